/* qgemm_avx512.c — the AVX-512 VNNI kernel of the prefill products (qgemm.h): for one group of 16
 * packed weight rows and up to 8 activation rows, each block's 4-value slices of the 16 rows are
 * loaded once (one zmm of u8) and multiplied into an int32 lane per row by vpdpbusd against each
 * activation row's 4 int8 values broadcast; per block the integer sums are scaled (a . dx) and the
 * offsets added (b . sum x) in F32. Compiled with target attributes only; qgemm.c picks it when
 * the CPU runs AVX-512 with VNNI (rf__kernel_isa_best). */
#include <string.h>

#include "exec/qgemm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

#define RF__QG_BODY(MS)                                                                            \
    do {                                                                                           \
        __m512 acc[MS];                                                                            \
        for (int s = 0; s < (MS); s++) acc[s] = _mm512_setzero_ps();                               \
        for (uint64_t j = 0; j < nb; j++) {                                                        \
            const uint8_t *o = base + (size_t)j * w->block_bytes;                                  \
            __m512i ia[MS];                                                                        \
            for (int s = 0; s < (MS); s++) ia[s] = _mm512_setzero_si512();                         \
            for (int t = 0; t < nt; t++) {                                                         \
                __m512i wv = _mm512_loadu_si512((const void *)(o + 64 * t));                       \
                for (int s = 0; s < (MS); s++) {                                                   \
                    int32_t xv;                                                                    \
                    memcpy(&xv, xq + s * K + j * blk + 4 * t, 4);                                  \
                    ia[s] = _mm512_dpbusd_epi32(ia[s], wv, _mm512_set1_epi32(xv));                 \
                }                                                                                  \
            }                                                                                      \
            __m512 av = _mm512_loadu_ps((const float *)(const void *)(o + 16 * blk));              \
            __m512 bv = _mm512_loadu_ps((const float *)(const void *)(o + 16 * blk + 64));         \
            for (int s = 0; s < (MS); s++) {                                                       \
                __m512 sc = _mm512_mul_ps(av, _mm512_set1_ps(xd[s * nb + j]));                     \
                acc[s] = _mm512_fmadd_ps(sc, _mm512_cvtepi32_ps(ia[s]), acc[s]);                   \
                acc[s] = _mm512_fmadd_ps(bv, _mm512_set1_ps(xs[s * nb + j]), acc[s]);              \
            }                                                                                      \
        }                                                                                          \
        __mmask16 m = (__mmask16)((1u << nr) - 1);                                                 \
        for (int s = 0; s < (MS); s++) _mm512_mask_storeu_ps(y + s * ldy, m, acc[s]);              \
    } while (0)

RF__TARGET_VNNI static void rf__qgemm_avx512(const rf__qgemm_w *w, uint64_t g,
                                             const rf__qgemm_act *a, uint64_t s0, unsigned ms,
                                             unsigned nr, float *y, size_t ldy)
{
    uint64_t nb = w->K / (uint64_t)w->blk, K = w->K, blk = (uint64_t)w->blk;
    int nt = w->blk / 4;
    const uint8_t *base = w->data + (size_t)(g * nb) * w->block_bytes;
    const int8_t *xq = a->q + s0 * K;
    const float *xd = a->d + s0 * nb, *xs = a->s + s0 * nb;
    switch (ms) {
    case 8: RF__QG_BODY(8); break;
    case 7: RF__QG_BODY(7); break;
    case 6: RF__QG_BODY(6); break;
    case 5: RF__QG_BODY(5); break;
    case 4: RF__QG_BODY(4); break;
    case 3: RF__QG_BODY(3); break;
    case 2: RF__QG_BODY(2); break;
    default: RF__QG_BODY(1); break;
    }
}

rf__qgemm_kernel_fn rf__qgemm_kernel_avx512(void)
{
    return rf__qgemm_avx512;
}
#else
rf__qgemm_kernel_fn rf__qgemm_kernel_avx512(void)
{
    return NULL;
}
#endif
