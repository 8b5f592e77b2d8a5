/* qgemv_q4_avx512.c — decode's AVX-512 VNNI kernel on the nibble form of Q4_0 and Q4_1 (qgemm.h,
 * qgemv_q4.c): per 32-weight block of a group of 16 rows, four zmm loads of nibbles, each split
 * by an and and a shift into the 4 low-nibble values and the 4 high-nibble values of every row,
 * multiplied by vpdpbusd against the activation's 4 int8 values at those positions broadcast (the
 * low values' chain starting at -8 . sum xq for Q4_0); then times d . dx into F32, and Q4_1's m
 * times dx . sum xq. The stream prefetched as the Q8_0 kernel does (qgemm_avx512.c): a pair of
 * blocks (9 or 10 lines) at a time, RF__PREFETCH_AHEAD_BYTES ahead into L2 and the next pair into
 * L1. Target attributes only; qgemv_q4.c picks it when the CPU runs AVX-512 with VNNI. */
#include "exec/qgemm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define RF__QGEMV_Q4_AHEAD 4096 /* RF__PREFETCH_AHEAD_BYTES */

RF__TARGET_VNNI static inline __attribute__((always_inline)) void
rf__qgemv_nib_tile(const rf__qgemm_w *w, uint64_t g, const void *act, unsigned nr, float *y,
                   const int Q41)
{
    const rf__block_q8_32 *a = act;
    const uint64_t nb = w->K / 32;
    const size_t pair = Q41 ? 640 : 576;
    const __m512i m4 = _mm512_set1_epi8(0xf);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    const uint8_t *o = w->data + (size_t)g * w->group_bytes;
    for (uint64_t j = 0; j < nb; j++) {
        const uint8_t *q = o + (size_t)(j / 2) * pair + (size_t)(j % 2) * 256,
                      *dp = o + (size_t)(j / 2) * pair + 512 + (size_t)(j % 2) * 32;
        if (j % 2 == 0)
            for (size_t l = 0; l < pair; l += 64) {
                _mm_prefetch((const char *)q + RF__QGEMV_Q4_AHEAD + l, _MM_HINT_T1);
                _mm_prefetch((const char *)q + pair + l, _MM_HINT_T0); /* the next pair */
            }
        const int32_t *xv = (const int32_t *)(const void *)a[j].qs;
        __m512i s0 = Q41 ? _mm512_setzero_si512() : _mm512_set1_epi32(-8 * a[j].sum),
                s1 = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int t = 0; t < 4; t++) {
            __m512i v = _mm512_load_si512((const void *)(q + 64 * t));
            s0 = _mm512_dpbusd_epi32(s0, _mm512_and_si512(v, m4), _mm512_set1_epi32(xv[t]));
            s1 = _mm512_dpbusd_epi32(s1, _mm512_and_si512(_mm512_srli_epi16(v, 4), m4),
                                     _mm512_set1_epi32(xv[t + 4]));
        }
        __m512 d =
            _mm512_mul_ps(_mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(const void *)dp)),
                          _mm512_set1_ps(a[j].d));
        __m512 p = _mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1));
        if (j % 2)
            acc1 = _mm512_fmadd_ps(p, d, acc1);
        else
            acc0 = _mm512_fmadd_ps(p, d, acc0);
        if (Q41) /* m . dx . sum xq */
            acc1 = _mm512_fmadd_ps(
                _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(const void *)(dp + 64))),
                _mm512_set1_ps(a[j].d * (float)a[j].sum), acc1);
    }
    _mm512_mask_storeu_ps(y, (__mmask16)(nr >= 16 ? 0xffffu : (1u << nr) - 1),
                          _mm512_add_ps(acc0, acc1));
}

RF__TARGET_VNNI static void rf__qgemv_nib_avx512(const rf__qgemm_w *w, uint64_t g, const void *act,
                                                 unsigned nr, float *y)
{
    if (w->nib == RF__WEIGHT_Q4_1)
        rf__qgemv_nib_tile(w, g, act, nr, y, 1);
    else
        rf__qgemv_nib_tile(w, g, act, nr, y, 0);
}

rf__qgemv_kernel_fn rf__qgemv_nib_kernel_avx512(void)
{
    return rf__qgemv_nib_avx512;
}
#else
rf__qgemv_kernel_fn rf__qgemv_nib_kernel_avx512(void)
{
    return NULL;
}
#endif
