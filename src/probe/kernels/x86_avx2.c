/* x86_avx2.c — AVX2+FMA kernels (fp64/fp32 FMA, add, mul on ymm; scalar FMA; load/store/copy/triad
 * and non-temporal stores) and the AVX2 clock. Compiled with target attributes only (one portable
 * binary); cpu.c decides whether they run. Checked against generic.c by tests/unit/test_probe.c. */
#include "probe/probe_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__T2 __attribute__((target("avx2,fma")))
/* 12 ymm accumulators (of 16 registers): 2 FMA pipes x 4-cycle latency x 1.5. */

RF__T2 static double rf__sum_pd(__m256d v)
{
    double t[4];
    _mm256_storeu_pd(t, v);
    return t[0] + t[1] + t[2] + t[3];
}
RF__T2 static double rf__sum_ps(__m256 v)
{
    float t[8];
    double s = 0;
    _mm256_storeu_ps(t, v);
    for (int l = 0; l < 8; l++) s += t[l];
    return s;
}
RF__T2 static double rf__sum_sd(__m128d v)
{
    return _mm_cvtsd_f64(v);
}
RF__T2 static double rf__sum_ss(__m128 v)
{
    return _mm_cvtss_f32(v);
}
RF__T2 static __m256d rf__set_pd(double v)
{
    return _mm256_set1_pd(v);
}
RF__T2 static __m256 rf__set_ps(double v)
{
    return _mm256_set1_ps((float)v);
}
RF__T2 static __m128d rf__set_sd(double v)
{
    return _mm_set_sd(v);
}
RF__T2 static __m128 rf__set_ss(double v)
{
    return _mm_set_ss((float)v);
}

#define RF__FMA_PD(x, a, b) _mm256_fmadd_pd(x, a, b)
#define RF__ADD_PD(x, a, b) _mm256_add_pd(x, b)
#define RF__MUL_PD(x, a, b) _mm256_mul_pd(x, a)
#define RF__FMA_PS(x, a, b) _mm256_fmadd_ps(x, a, b)
#define RF__ADD_PS(x, a, b) _mm256_add_ps(x, b)
#define RF__MUL_PS(x, a, b) _mm256_mul_ps(x, a)
#define RF__FMA_SD(x, a, b) _mm_fmadd_sd(x, a, b)
#define RF__FMA_SS(x, a, b) _mm_fmadd_ss(x, a, b)
/* clang-format off */
RF__FLOP_KERNEL(12, rf__fp64_fma, "avx2,fma", __m256d, __m256d,
                rf__set_pd, rf__set_pd, RF__FMA_PD, rf__sum_pd)
RF__FLOP_KERNEL(12, rf__fp64_add, "avx2,fma", __m256d, __m256d,
                rf__set_pd, rf__set_pd, RF__ADD_PD, rf__sum_pd)
RF__FLOP_KERNEL(12, rf__fp64_mul, "avx2,fma", __m256d, __m256d,
                rf__set_pd, rf__set_pd, RF__MUL_PD, rf__sum_pd)
RF__FLOP_KERNEL(12, rf__fp32_fma, "avx2,fma", __m256, __m256,
                rf__set_ps, rf__set_ps, RF__FMA_PS, rf__sum_ps)
RF__FLOP_KERNEL(12, rf__fp32_add, "avx2,fma", __m256, __m256,
                rf__set_ps, rf__set_ps, RF__ADD_PS, rf__sum_ps)
RF__FLOP_KERNEL(12, rf__fp32_mul, "avx2,fma", __m256, __m256,
                rf__set_ps, rf__set_ps, RF__MUL_PS, rf__sum_ps)
RF__FLOP_KERNEL(12, rf__fp64_fma_s, "avx2,fma", __m128d, __m128d,
                rf__set_sd, rf__set_sd, RF__FMA_SD, rf__sum_sd)
RF__FLOP_KERNEL(12, rf__fp32_fma_s, "avx2,fma", __m128, __m128,
                rf__set_ss, rf__set_ss, RF__FMA_SS, rf__sum_ss)

#define FA (RF__F_AVX2 | RF__F_FMA)
const rf__flop_kernel rf__flop_avx2[] = {
    {"fp64.fma.avx2", "fp64", "fma", RF__ISA_AVX2, FA, 12 * 8, 16, 0.5, 1, rf__fp64_fma},
    {"fp32.fma.avx2", "fp32", "fma", RF__ISA_AVX2, FA, 12 * 16, 32, 0.5, 1, rf__fp32_fma},
    {"fp64.add.avx2", "fp64", "add", RF__ISA_AVX2, FA, 12 * 4, 8, 1, 1, rf__fp64_add},
    {"fp32.add.avx2", "fp32", "add", RF__ISA_AVX2, FA, 12 * 8, 16, 1, 1, rf__fp32_add},
    {"fp64.mul.avx2", "fp64", "mul", RF__ISA_AVX2, FA, 12 * 4, 8, 1, 1, rf__fp64_mul},
    {"fp32.mul.avx2", "fp32", "mul", RF__ISA_AVX2, FA, 12 * 8, 16, 1, 1, rf__fp32_mul},
    {"fp64.fma.scalar", "fp64", "fma", RF__ISA_AVX2, FA, 12 * 2, 4, 0.5, 1, rf__fp64_fma_s},
    {"fp32.fma.scalar", "fp32", "fma", RF__ISA_AVX2, FA, 12 * 2, 4, 0.5, 1, rf__fp32_fma_s},
};
/* clang-format on */
const size_t rf__n_flop_avx2 = sizeof rf__flop_avx2 / sizeof *rf__flop_avx2;

#define RF__BW_T RF__T2
#define RF__BW_V __m256d
#define RF__BW_W 4
#define RF__BW_LOAD _mm256_load_pd
#define RF__BW_STORE _mm256_store_pd
#define RF__BW_STREAM _mm256_stream_pd
#define RF__BW_ADD _mm256_add_pd
#define RF__BW_SET1 _mm256_set1_pd
#define RF__BW_ZERO _mm256_setzero_pd
#define RF__BW_TRIAD(s, b, c) _mm256_fmadd_pd(s, c, b)
#define RF__BW_SUM rf__sum_pd
#include "bw_kernels.h"

const rf__bw_kernel rf__bw_avx2[] = {
    {"load.avx2", "load", RF__ISA_AVX2, FA, rf__load},
    {"store.avx2", "store", RF__ISA_AVX2, FA, rf__store},
    {"copy.avx2", "copy", RF__ISA_AVX2, FA, rf__copy},
    {"triad.avx2", "triad", RF__ISA_AVX2, FA, rf__triad},
    {"store.nt.avx2", "store.nt", RF__ISA_AVX2, FA, rf__store_nt},
    {"copy.nt.avx2", "copy.nt", RF__ISA_AVX2, FA, rf__copy_nt},
};
const size_t rf__n_bw_avx2 = sizeof rf__bw_avx2 / sizeof *rf__bw_avx2;

/* Clock under AVX2: the 32-add chain sets the pace, 32 ymm FMAs beside it. */
RF__T2 uint64_t rf__clock_avx2(uint64_t iters)
{
    RF__CLOCK_ONE
    __m256d x[8], a = _mm256_set1_pd(0.5), b = _mm256_set1_pd(1.0);
    uint64_t c = 0;
    for (int j = 0; j < 8; j++) x[j] = b;
    for (uint64_t i = 0; i < iters; i++) {
        RF__INC32(c)
#pragma GCC unroll 32
        for (int j = 0; j < 32; j++) x[j & 7] = _mm256_fmadd_pd(x[j & 7], a, b);
    }
    double t = 0;
    for (int j = 0; j < 8; j++) t += rf__sum_pd(x[j]);
    return c + (t > 1e300);
}

#else
const rf__flop_kernel rf__flop_avx2[1];
const size_t rf__n_flop_avx2 = 0;
const rf__bw_kernel rf__bw_avx2[1];
const size_t rf__n_bw_avx2 = 0;
#endif
