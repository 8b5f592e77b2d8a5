/* qkernels_rows_avx512.c — AVX-512 dot products of four weight rows at once with one activation,
 * the decode kernels of F32, F16, BF16 (F32 activations, zmm) and Q8_0, Q4_0 (8-bit activations,
 * VNNI on ymm). Each activation load serves four rows, and the four rows are four streams from
 * memory at once, where one row at a time is one (a core pulls more from DRAM with more streams
 * in flight). Compiled with target attributes only; qkernels.c decides whether they run. Checked
 * against the reference by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__TARGET_ROWS                                                                            \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

RF__TARGET_ROWS static inline __m512 rf__ld_f32(const void *p, __mmask16 m)
{
    return _mm512_maskz_loadu_ps(m, p);
}
RF__TARGET_ROWS static inline __m512 rf__ld_f16(const void *p, __mmask16 m)
{
    return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}
RF__TARGET_ROWS static inline __m512 rf__ld_bf16(const void *p, __mmask16 m)
{
    __m512i v = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

/* Four rows of a float type (LD loads 16 weights as F32 under a mask; ES: bytes per weight):
 * 32 weights per step, two accumulators per row, the activation loads shared; a masked tail. */
#define RF__ROWS4_FLOAT(name, LD, ES)                                                              \
    RF__TARGET_ROWS static void name(const void *w, size_t rb, const void *act, size_t k,          \
                                     float *y)                                                     \
    {                                                                                              \
        const uint8_t *p = w;                                                                      \
        const float *x = act;                                                                      \
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0,     \
               b3 = a0;                                                                            \
        const __mmask16 all = 0xffff;                                                              \
        size_t i = 0;                                                                              \
        for (; i + 32 <= k; i += 32) {                                                             \
            __m512 x0 = _mm512_loadu_ps(x + i), x1 = _mm512_loadu_ps(x + i + 16);                  \
            const uint8_t *q = p + (ES)*i;                                                         \
            a0 = _mm512_fmadd_ps(LD(q, all), x0, a0);                                              \
            b0 = _mm512_fmadd_ps(LD(q + 16 * (ES), all), x1, b0);                                  \
            a1 = _mm512_fmadd_ps(LD(q + rb, all), x0, a1);                                         \
            b1 = _mm512_fmadd_ps(LD(q + rb + 16 * (ES), all), x1, b1);                             \
            a2 = _mm512_fmadd_ps(LD(q + 2 * rb, all), x0, a2);                                     \
            b2 = _mm512_fmadd_ps(LD(q + 2 * rb + 16 * (ES), all), x1, b2);                         \
            a3 = _mm512_fmadd_ps(LD(q + 3 * rb, all), x0, a3);                                     \
            b3 = _mm512_fmadd_ps(LD(q + 3 * rb + 16 * (ES), all), x1, b3);                         \
        }                                                                                          \
        for (; i < k; i += 16) {                                                                   \
            __mmask16 m = k - i >= 16 ? all : (__mmask16)((1u << (k - i)) - 1);                    \
            __m512 x0 = _mm512_maskz_loadu_ps(m, x + i);                                           \
            const uint8_t *q = p + (ES)*i;                                                         \
            a0 = _mm512_fmadd_ps(LD(q, m), x0, a0);                                                \
            a1 = _mm512_fmadd_ps(LD(q + rb, m), x0, a1);                                           \
            a2 = _mm512_fmadd_ps(LD(q + 2 * rb, m), x0, a2);                                       \
            a3 = _mm512_fmadd_ps(LD(q + 3 * rb, m), x0, a3);                                       \
        }                                                                                          \
        y[0] = _mm512_reduce_add_ps(_mm512_add_ps(a0, b0));                                        \
        y[1] = _mm512_reduce_add_ps(_mm512_add_ps(a1, b1));                                        \
        y[2] = _mm512_reduce_add_ps(_mm512_add_ps(a2, b2));                                        \
        y[3] = _mm512_reduce_add_ps(_mm512_add_ps(a3, b3));                                        \
    }
RF__ROWS4_FLOAT(rf__rows4_f32, rf__ld_f32, 4)
RF__ROWS4_FLOAT(rf__rows4_f16, rf__ld_f16, 2)
RF__ROWS4_FLOAT(rf__rows4_bf16, rf__ld_bf16, 2)
#undef RF__ROWS4_FLOAT

/* The sum of a ymm's eight floats. */
RF__TARGET_ROWS static inline float rf__hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* One row's block against the shared activation block: `init` holds -sum(x) . c / 8 in each lane
 * (the offset the unsigned weights add, spread over the eight lanes), so vpdpbusd of the unsigned
 * weights with the signed activations leaves the signed product; times d_w . d_x. */
#define RF__QROW(acc, qv, dwp)                                                                     \
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_dpbusd_epi32(init, qv, yv)),                   \
                          _mm256_mul_ps(dx, _mm256_cvtph_ps(_mm_set1_epi16((short)(dwp)))), acc)

/* Q8_0: the weights made unsigned (q + 128: a xor of the sign bit), one vpdpbusd per block and
 * row, less 128 . sum(x) (from the activation block). */
RF__TARGET_ROWS static void rf__rows4_q8_0(const void *w, size_t rb, const void *act, size_t k,
                                           float *y)
{
    const rf__block_q8_0 *r0 = w, *r1 = (const void *)((const uint8_t *)w + rb),
                         *r2 = (const void *)((const uint8_t *)w + 2 * rb),
                         *r3 = (const void *)((const uint8_t *)w + 3 * rb);
    const rf__block_q8_32 *a = act;
    const __m256i sign = _mm256_set1_epi8((char)0x80);
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    for (size_t i = 0; i < k / 32; i++) {
        __m256i yv = _mm256_loadu_si256((const __m256i *)a[i].qs);
        __m256i init = _mm256_set1_epi32(-16 * a[i].sum);
        __m256 dx = _mm256_set1_ps(a[i].d);
#define RF__Q8(rr) _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)rr[i].qs), sign)
        RF__QROW(c0, RF__Q8(r0), r0[i].d);
        RF__QROW(c1, RF__Q8(r1), r1[i].d);
        RF__QROW(c2, RF__Q8(r2), r2[i].d);
        RF__QROW(c3, RF__Q8(r3), r3[i].d);
#undef RF__Q8
    }
    y[0] = rf__hsum8(c0);
    y[1] = rf__hsum8(c1);
    y[2] = rf__hsum8(c2);
    y[3] = rf__hsum8(c3);
}

/* Q4_0: the nibbles (0..15: low halves weights 0..15, high halves 16..31) in one vpdpbusd per
 * block and row, less 8 . sum(x). */
RF__TARGET_ROWS static void rf__rows4_q4_0(const void *w, size_t rb, const void *act, size_t k,
                                           float *y)
{
    const rf__block_q4_0 *r0 = w, *r1 = (const void *)((const uint8_t *)w + rb),
                         *r2 = (const void *)((const uint8_t *)w + 2 * rb),
                         *r3 = (const void *)((const uint8_t *)w + 3 * rb);
    const rf__block_q8_32 *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf);
    __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0;
    for (size_t i = 0; i < k / 32; i++) {
        __m256i yv = _mm256_loadu_si256((const __m256i *)a[i].qs);
        __m256i init = _mm256_set1_epi32(-a[i].sum);
        __m256 dx = _mm256_set1_ps(a[i].d);
#define RF__Q4(rr)                                                                                 \
    _mm256_and_si256(                                                                              \
        _mm256_set_m128i(_mm_srli_epi16(_mm_loadu_si128((const __m128i *)rr[i].qs), 4),            \
                         _mm_loadu_si128((const __m128i *)rr[i].qs)),                              \
        m4)
        RF__QROW(c0, RF__Q4(r0), r0[i].d);
        RF__QROW(c1, RF__Q4(r1), r1[i].d);
        RF__QROW(c2, RF__Q4(r2), r2[i].d);
        RF__QROW(c3, RF__Q4(r3), r3[i].d);
#undef RF__Q4
    }
    y[0] = rf__hsum8(c0);
    y[1] = rf__hsum8(c1);
    y[2] = rf__hsum8(c2);
    y[3] = rf__hsum8(c3);
}
#undef RF__QROW

const rf__rows_dot_fn rf__rows_dot_avx512[RF__WEIGHT_TYPES] = {
    rf__rows4_f32, rf__rows4_f16, rf__rows4_bf16, rf__rows4_q8_0, rf__rows4_q4_0};
#else
const rf__rows_dot_fn rf__rows_dot_avx512[RF__WEIGHT_TYPES] = {0};
#endif
