/* generic.c — the portable C kernels: the reference every instruction-set file is checked against
 * (tests/unit/test_probe.c) and the fallback on any CPU (BLIS ref_kernels). Plain C, built with the
 * default flags; kernels never time themselves. The numbers per iteration sit beside the code. */
#include <string.h>

#include "probe/probe_int.h"

#define RF__NACC 16 /* independent accumulators: enough to hide a 4-cycle latency on 2 pipes */

static double rf__fp64_muladd(uint64_t iters, double a, double b)
{
    double x[RF__NACC], s = 0;
    for (int j = 0; j < RF__NACC; j++) x[j] = b;
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < RF__NACC; j++) x[j] = x[j] * a + b;
    }
    for (int j = 0; j < RF__NACC; j++) s += x[j];
    return s;
}

static double rf__fp32_muladd(uint64_t iters, double a, double b)
{
    float x[RF__NACC], fa = (float)a, fb = (float)b;
    double s = 0;
    for (int j = 0; j < RF__NACC; j++) x[j] = fb;
    for (uint64_t i = 0; i < iters; i++) {
#pragma GCC unroll 16
        for (int j = 0; j < RF__NACC; j++) x[j] = x[j] * fa + fb;
    }
    for (int j = 0; j < RF__NACC; j++) s += x[j];
    return s;
}

/* clang-format off */
const rf__flop_kernel rf__flop_generic[] = {
    {"fp64.muladd.generic", "fp64", "muladd", RF__ISA_GENERIC, 0, 2.0 * RF__NACC, 0, 0.5, 1.0,
     rf__fp64_muladd},
    {"fp32.muladd.generic", "fp32", "muladd", RF__ISA_GENERIC, 0, 2.0 * RF__NACC, 0, 0.5, 1.0,
     rf__fp32_muladd},
};
/* clang-format on */
const size_t rf__n_flop_generic = sizeof rf__flop_generic / sizeof *rf__flop_generic;

static double rf__load(double *buf, size_t n, uint64_t passes, double s)
{
    double acc[8] = {0};
    (void)s;
    for (uint64_t p = 0; p < passes; p++)
        for (size_t i = 0; i < n; i += 8) {
#pragma GCC unroll 8
            for (int j = 0; j < 8; j++) acc[j] += buf[i + (size_t)j];
        }
    return acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
}

static double rf__store(double *buf, size_t n, uint64_t passes, double s)
{
    for (uint64_t p = 0; p < passes; p++) {
        for (size_t i = 0; i < n; i++) buf[i] = s;
        __asm__ volatile("" ::"r"(buf) : "memory");
    }
    return 0;
}

static double rf__copy(double *buf, size_t n, uint64_t passes, double s)
{
    (void)s;
    size_t h = n / 2;
    for (uint64_t p = 0; p < passes; p++) {
        memcpy(buf + h, buf, h * sizeof *buf);
        __asm__ volatile("" ::"r"(buf) : "memory");
    }
    return 0;
}

static double rf__triad(double *buf, size_t n, uint64_t passes, double s)
{
    size_t t = n / 3;
    double *a = buf, *b = buf + t, *c = buf + 2 * t;
    for (uint64_t p = 0; p < passes; p++) {
        for (size_t i = 0; i < t; i++) a[i] = b[i] + s * c[i];
        __asm__ volatile("" ::"r"(buf) : "memory");
    }
    return 0;
}

const rf__bw_kernel rf__bw_generic[] = {
    {"load.generic", "load", RF__ISA_GENERIC, 0, rf__load},
    {"store.generic", "store", RF__ISA_GENERIC, 0, rf__store},
    {"copy.generic", "copy", RF__ISA_GENERIC, 0, rf__copy},
    {"triad.generic", "triad", RF__ISA_GENERIC, 0, rf__triad},
};
const size_t rf__n_bw_generic = sizeof rf__bw_generic / sizeof *rf__bw_generic;

/* Scalar clock: the chain alone (one add per cycle on any out-of-order core). */
static uint64_t rf__clock_generic(uint64_t iters)
{
    RF__CLOCK_ONE
    uint64_t x = 0;
    for (uint64_t i = 0; i < iters; i++) {
        RF__INC32(x)
    }
    return x;
}

#if defined(__x86_64__) || defined(__i386__)
const rf__clock_fn rf__clock_kernels[RF__ISA_COUNT] = {rf__clock_generic, rf__clock_sse2,
                                                       rf__clock_avx2, rf__clock_avx512};
#else
const rf__clock_fn rf__clock_kernels[RF__ISA_COUNT] = {rf__clock_generic, 0, 0, 0};
#endif
