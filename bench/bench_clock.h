/* bench_clock.h — the clocks of the single-core kernel benches (qgemm.c, qkernels.c): seconds on
 * a given clock, and seconds per cycle from a chain of dependent adds (one a cycle) timed on it. */
#ifndef RF_BENCH_CLOCK_H
#define RF_BENCH_CLOCK_H

#include <time.h>

static inline double bench_clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds per cycle on clock `id`: 1e8 dependent adds, best of 5; 0 when not x86-64. */
static inline double bench_cycle_s(clockid_t id)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        unsigned long x = 1;
        double t0 = bench_clock_s(id);
        for (long i = 0; i < 100000000L; i++) __asm__ volatile("add $1, %0" : "+r"(x));
        double t = bench_clock_s(id) - t0;
        best = t < best ? t : best;
    }
    return best / 1e8;
#else
    (void)id;
    return 0;
#endif
}

#endif
