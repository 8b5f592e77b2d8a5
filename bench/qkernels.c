/* qkernels.c — the decode dot products' ceilings on one core (issues 10 and 28): for each weight
 * type and each instruction-set level this CPU runs, the row kernel decode calls: ns and cycles
 * per 256 weights with the rows in L2 (64 rows of 2048: compute only), the bytes per second that
 * makes, and the same streaming a matrix of COLD_MIB (default 768) MiB, past the L3 of the Xeons
 * this runs on (what one core pulls from DRAM; the former 32 MiB sat in a 300 MB L3). Best of 9
 * passes each; for Q8_0, Q4_0 and Q4_1 at AVX-512 also decode's packed 16-row kernel over
 * decode's packed form of the same rows (qgemm.h), and for the types with one the several-row
 * kernel; cycles from a chain of dependent adds timed on the same core (x86-64 only). Internal API
 * (src/exec/qkernels.h): built with the library's private headers. Usage: build/bench/qkernels
 * [TYPE]  (TYPE: q4_k, q6_k, q8_0, q4_0, q4_1, f16, bf16, f32, q2_k, q3_k) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "exec/qgemm.h"
#include "exec/qkernels.h"

static double now(void)
{
    return bench_clock_s(CLOCK_MONOTONIC);
}
static double cycle_s(void)
{
    return bench_cycle_s(CLOCK_MONOTONIC);
}

static volatile float rf_sink; /* keeps the products from being optimised away */

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Best seconds (wall, and the thread's CPU time of that pass) of one pass of the packed
 * kernel decode calls (qgemm.h) over `groups` groups of 16 rows. */
static double packed_pass_s(rf__qgemv_kernel_fn fn, const rf__qgemm_w *pw, uint64_t groups,
                            const void *a, float *y, double *cpu)
{
    double best = 1e9;
    for (int r = 0; r < 9; r++) {
        double t0 = now(), c0 = cpu_now();
        for (uint64_t g = 0; g < groups; g++) fn(pw, g, a, 16, y + 16 * g);
        double t = now() - t0, c = cpu_now() - c0;
        rf_sink = y[0] + y[16 * groups - 1];
        if (t < best) best = t, *cpu = c;
    }
    return best;
}

/* Best seconds of one pass of `rows` dot products of K weights by the several-row kernel, as
 * decode calls it (RF__ROWS_DOT_MAX rows a call). */
static double rows_pass_s(rf__rows_dot_fn fn, const uint8_t *w, size_t rb, size_t rows,
                          const void *a, size_t K, float *y)
{
    double best = 1e9;
    for (int r = 0; r < 9; r++) {
        double t0 = now();
        for (size_t n = 0; n < rows; n += RF__ROWS_DOT_MAX)
            fn(w + n * rb, rb,
               (unsigned)(rows - n < RF__ROWS_DOT_MAX ? rows - n : RF__ROWS_DOT_MAX), a, K, y + n);
        double t = now() - t0;
        rf_sink = y[0] + y[rows - 1];
        best = t < best ? t : best;
    }
    return best;
}

/* Best seconds of one pass of `rows` dot products of K weights. */
static double pass_s(rf__row_dot_fn fn, const uint8_t *w, size_t rb, size_t rows, const void *a,
                     size_t K, float *y)
{
    double best = 1e9;
    for (int r = 0; r < 9; r++) {
        double t0 = now();
        for (size_t n = 0; n < rows; n++) y[n] = fn(w + n * rb, a, K);
        double t = now() - t0;
        float s = 0;
        for (size_t n = 0; n < rows; n += 64) s += y[n];
        rf_sink = s;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int id;
    } types[] = {{"q4_k", RF__WEIGHT_Q4_K}, {"q6_k", RF__WEIGHT_Q6_K}, {"q8_0", RF__WEIGHT_Q8_0},
                 {"q4_0", RF__WEIGHT_Q4_0}, {"q4_1", RF__WEIGHT_Q4_1}, {"f16", RF__WEIGHT_F16},
                 {"bf16", RF__WEIGHT_BF16}, {"f32", RF__WEIGHT_F32},   {"q2_k", RF__WEIGHT_Q2_K},
                 {"q3_k", RF__WEIGHT_Q3_K}};
    const size_t K = 2048, hot = 64;
    const char *cm = getenv("COLD_MIB");
    size_t cold_bytes = (size_t)(cm ? strtoul(cm, NULL, 10) : 768) << 20;
    double cyc = cycle_s();
    printf("clock: %.2f GHz (dependent adds); K = %zu; cold matrix %zu MiB\n",
           cyc > 0 ? 1e-9 / cyc : 0.0, K, cold_bytes >> 20);
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        if (argc > 1 && strcmp(argv[1], types[t].name) != 0) continue;
        int id = types[t].id;
        uint32_t be, bb;
        rf__weight_block(id, &be, &bb);
        size_t rb = K / be * bb, cold = cold_bytes / rb;
        uint8_t *w = malloc(cold * rb);
        float *x = malloc(K * sizeof *x), *y = malloc(cold * sizeof *y);
        void *buf = aligned_alloc(64, rf__act_bytes(id, K) + 64);
        if (!w || !x || !y || !buf) return 1;
        srand(1);
        for (size_t i = 0; i < cold * rb; i++) w[i] = (uint8_t)rand();
        for (size_t b = 0; b < cold * K / be; b++) { /* sane F16 scales (2^-14 .. 2^-13) */
            uint16_t d = (uint16_t)(0x0400 + (rand() & 0x3ff));
            if (be == 1) d = (uint16_t)(0x2000 + (rand() & 0x3ff)); /* F16/BF16: finite values */
            size_t at = id == RF__WEIGHT_Q6_K   ? 208
                        : id == RF__WEIGHT_Q2_K ? 80
                        : id == RF__WEIGHT_Q3_K ? 108
                                                : 0; /* the F16 d (then Q2_K's dmin) */
            if (id != RF__WEIGHT_F32) memcpy(w + b * bb + at, &d, 2);
            if (id == RF__WEIGHT_Q4_K || id == RF__WEIGHT_Q4_1 || id == RF__WEIGHT_Q2_K)
                memcpy(w + b * bb + at + 2, &d, 2);
        }
        for (size_t i = 0; i < K; i++) x[i] = (float)rand() / (float)RAND_MAX - 0.5f;
        for (int isa = RF__KERNEL_GENERIC; isa <= rf__kernel_isa_best(); isa++) {
            const void *a = rf__act_quantize(id, isa, x, K, buf);
            rf__row_dot_fn fn = rf__row_dot_get(id, isa);
            double th = pass_s(fn, w, rb, hot, a, K, y), tc = pass_s(fn, w, rb, cold, a, K, y);
            double ns = 1e9 * th / ((double)hot * K / 256);
            printf("%-4s %-7s L2: %6.2f ns/256 weights", types[t].name, rf__kernel_isa_name(isa),
                   ns);
            if (cyc > 0) printf(" (%5.1f cycles)", 1e-9 * ns / cyc);
            printf(", %5.1f GB/s; DRAM: %5.1f GB/s on one core\n", (double)hot * rb / th / 1e9,
                   (double)cold * rb / tc / 1e9);
        }
        rf__rows_dot_fn rows = rf__rows_dot_get(id, rf__kernel_isa_best());
        if (rows) { /* decode's several-row kernel */
            const void *a = rf__act_quantize(id, rf__kernel_isa_best(), x, K, buf);
            double th = rows_pass_s(rows, w, rb, hot, a, K, y),
                   tc = rows_pass_s(rows, w, rb, cold, a, K, y);
            double ns = 1e9 * th / ((double)hot * K / 256);
            printf("%-4s %-7s L2: %6.2f ns/256 weights", types[t].name, "rows", ns);
            if (cyc > 0) printf(" (%5.1f cycles)", 1e-9 * ns / cyc);
            printf(", %5.1f GB/s; DRAM: %5.1f GB/s on one core (%d rows a call)\n",
                   (double)hot * rb / th / 1e9, (double)cold * rb / tc / 1e9, RF__ROWS_DOT_MAX);
        }
        if (rf__qgemv_supported(id) && rf__kernel_isa_best() >= RF__KERNEL_AVX512 &&
            rf__qgemv_kernel_avx512() &&
            rf__qgemv_nib_kernel_avx512()) { /* decode's kernel: the packed form of the rows */
            uint64_t groups = cold / 16;
            uint8_t *pm = aligned_alloc(64, (rf__qgemv_bytes(id, groups * 16, K) + 63) / 64 * 64);
            if (!pm) return 1;
            rf__qgemm_w pw, ph;
            rf__qgemv_pack(id, w, rb, groups * 16, K, pm, &pw);
            const void *a = rf__act_quantize(id, RF__KERNEL_AVX512, x, K, buf);
            rf__qgemv_kernel_fn fn = rf__qgemv_kernel_for(&pw, RF__KERNEL_AVX512);
            ph = pw; /* the first 64 rows, in L2 */
            double ch, cc, th = packed_pass_s(fn, &ph, hot / 16, a, y, &ch),
                           tc = packed_pass_s(fn, &pw, groups, a, y, &cc);
            double ns = 1e9 * th / ((double)hot * K / 256);
            printf("%-4s %-7s L2: %6.2f ns/256 weights", types[t].name, "packed", ns);
            if (cyc > 0) printf(" (%5.1f cycles)", 1e-9 * ns / cyc);
            printf(", %5.1f GB/s; DRAM: %5.1f GB/s on one core (%.0f%% of the pass on the CPU)\n",
                   (double)hot * rb / th / 1e9, (double)groups * 16 * rb / tc / 1e9, 100 * cc / tc);
            free(pm);
        }
        free(w);
        free(x);
        free(y);
        free(buf);
    }
    return 0;
}
