/* x86_sse2.c — SSE2 kernels (the x86-64 baseline: fp64/fp32 add and mul on xmm, no FMA; stores,
 * copy, triad, non-temporal stores) and the SSE2 clock. Target attributes only; cpu.c decides
 * whether they run. Checked against generic.c by tests/unit/test_probe.c. */
#include "probe/probe_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

#define RF__TS __attribute__((target("sse2")))
/* 12 xmm accumulators: 2 pipes x 4-cycle latency x 1.5. */

RF__TS static double rf__sum_pd(__m128d v)
{
    double t[2];
    _mm_storeu_pd(t, v);
    return t[0] + t[1];
}
RF__TS static double rf__sum_ps(__m128 v)
{
    float t[4];
    _mm_storeu_ps(t, v);
    return (double)t[0] + t[1] + t[2] + t[3];
}
RF__TS static __m128d rf__set_pd(double v)
{
    return _mm_set1_pd(v);
}
RF__TS static __m128 rf__set_ps(double v)
{
    return _mm_set1_ps((float)v);
}
#define RF__ADD_PD(x, a, b) _mm_add_pd(x, b)
#define RF__MUL_PD(x, a, b) _mm_mul_pd(x, a)
#define RF__ADD_PS(x, a, b) _mm_add_ps(x, b)
#define RF__MUL_PS(x, a, b) _mm_mul_ps(x, a)
/* clang-format off */
RF__FLOP_KERNEL(12, rf__fp64_add, "sse2", __m128d, __m128d,
                rf__set_pd, rf__set_pd, RF__ADD_PD, rf__sum_pd)
RF__FLOP_KERNEL(12, rf__fp64_mul, "sse2", __m128d, __m128d,
                rf__set_pd, rf__set_pd, RF__MUL_PD, rf__sum_pd)
RF__FLOP_KERNEL(12, rf__fp32_add, "sse2", __m128, __m128,
                rf__set_ps, rf__set_ps, RF__ADD_PS, rf__sum_ps)
RF__FLOP_KERNEL(12, rf__fp32_mul, "sse2", __m128, __m128,
                rf__set_ps, rf__set_ps, RF__MUL_PS, rf__sum_ps)

#define FS RF__F_SSE2
const rf__flop_kernel rf__flop_sse2[] = {
    {"fp64.add.sse2", "fp64", "add", RF__ISA_SSE2, FS, 12 * 2, 4, 1, 1, rf__fp64_add},
    {"fp64.mul.sse2", "fp64", "mul", RF__ISA_SSE2, FS, 12 * 2, 4, 1, 1, rf__fp64_mul},
    {"fp32.add.sse2", "fp32", "add", RF__ISA_SSE2, FS, 12 * 4, 8, 1, 1, rf__fp32_add},
    {"fp32.mul.sse2", "fp32", "mul", RF__ISA_SSE2, FS, 12 * 4, 8, 1, 1, rf__fp32_mul},
};
/* clang-format on */
const size_t rf__n_flop_sse2 = sizeof rf__flop_sse2 / sizeof *rf__flop_sse2;

#define RF__BW_T RF__TS
#define RF__BW_V __m128d
#define RF__BW_W 2
#define RF__BW_LOAD _mm_load_pd
#define RF__BW_STORE _mm_store_pd
#define RF__BW_STREAM _mm_stream_pd
#define RF__BW_ADD _mm_add_pd
#define RF__BW_SET1 _mm_set1_pd
#define RF__BW_ZERO _mm_setzero_pd
#define RF__BW_TRIAD(s, b, c) _mm_add_pd(b, _mm_mul_pd(s, c))
#define RF__BW_SUM rf__sum_pd
#include "bw_kernels.h"

const rf__bw_kernel rf__bw_sse2[] = {
    {"load.sse2", "load", RF__ISA_SSE2, FS, rf__load},
    {"store.sse2", "store", RF__ISA_SSE2, FS, rf__store},
    {"copy.sse2", "copy", RF__ISA_SSE2, FS, rf__copy},
    {"triad.sse2", "triad", RF__ISA_SSE2, FS, rf__triad},
    {"store.nt.sse2", "store.nt", RF__ISA_SSE2, FS, rf__store_nt},
    {"copy.nt.sse2", "copy.nt", RF__ISA_SSE2, FS, rf__copy_nt},
};
const size_t rf__n_bw_sse2 = sizeof rf__bw_sse2 / sizeof *rf__bw_sse2;

/* Clock under SSE2: the 32-add chain with 32 xmm multiplies beside it. */
RF__TS uint64_t rf__clock_sse2(uint64_t iters)
{
    RF__CLOCK_ONE
    __m128d x[8], a = _mm_set1_pd(1.0);
    uint64_t c = 0;
    for (int j = 0; j < 8; j++) x[j] = a;
    for (uint64_t i = 0; i < iters; i++) {
        RF__INC32(c)
#pragma GCC unroll 32
        for (int j = 0; j < 32; j++) x[j & 7] = _mm_mul_pd(x[j & 7], a);
    }
    double t = 0;
    for (int j = 0; j < 8; j++) t += rf__sum_pd(x[j]);
    return c + (t > 1e300);
}

#else
const rf__flop_kernel rf__flop_sse2[1];
const size_t rf__n_flop_sse2 = 0;
const rf__bw_kernel rf__bw_sse2[1];
const size_t rf__n_bw_sse2 = 0;
#endif
