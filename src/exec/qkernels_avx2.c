/* qkernels_avx2.c — AVX2+FMA+F16C dot products of a weight row (F32, F16, BF16, Q8_0, Q4_0, Q4_K,
 * Q6_K) with F32 activations, each block dequantised in ymm registers and never stored. Compiled
 * with target attributes only (one portable binary); qkernels.c decides whether they run.
 * Checked against the reference by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TQ2 __attribute__((target("avx2,fma,f16c")))

RF__TQ2 static float rf__hsum(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

RF__TQ2 static float rf__h(uint16_t h)
{
    return _cvtsh_ss(h);
}

/* 8 signed / unsigned bytes (low 8 of v) as floats */
#define RF__I8F(v) _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v))
#define RF__U8F(v) _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v))

RF__TQ2 static float rf__dot_f32(const void *w, const float *x, const float *xs, size_t k)
{
    const float *a = w;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 32 <= k; i += 32) {
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += a[i] * x[i];
    return s;
}

RF__TQ2 static float rf__dot_f16(const void *w, const float *x, const float *xs, size_t k)
{
    const uint16_t *a = w;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 32 <= k; i += 32) {
        __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 8)));
        __m256 w2 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 16)));
        __m256 w3 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 24)));
        s0 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__h(a[i]) * x[i];
    return s;
}

RF__TQ2 static __m256 rf__bf8(const uint16_t *p)
{
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

RF__TQ2 static float rf__dot_bf16(const void *w, const float *x, const float *xs, size_t k)
{
    const uint16_t *a = w;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 32 <= k; i += 32) {
        s0 = _mm256_fmadd_ps(rf__bf8(a + i), _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(rf__bf8(a + i + 8), _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(rf__bf8(a + i + 16), _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(rf__bf8(a + i + 24), _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__bf16_to_f32(a[i]) * x[i];
    return s;
}

/* Four groups of 8 bytes of q (32 elements, signed) times x, summed into one vector. */
RF__TQ2 static __m256 rf__dot32_i8(__m128i q0, __m128i q1, const float *x)
{
    __m256 a = _mm256_mul_ps(RF__I8F(q0), _mm256_loadu_ps(x));
    a = _mm256_fmadd_ps(RF__I8F(_mm_srli_si128(q0, 8)), _mm256_loadu_ps(x + 8), a);
    a = _mm256_fmadd_ps(RF__I8F(q1), _mm256_loadu_ps(x + 16), a);
    return _mm256_fmadd_ps(RF__I8F(_mm_srli_si128(q1, 8)), _mm256_loadu_ps(x + 24), a);
}

RF__TQ2 static float rf__dot_q8_0(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq8_0 *b = w;
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 32; i++, x += 32) {
        __m128i q0 = _mm_loadu_si128((const __m128i *)b[i].qs);
        __m128i q1 = _mm_loadu_si128((const __m128i *)(b[i].qs + 16));
        __m256 d = _mm256_set1_ps(rf__h(b[i].d));
        if (i & 1)
            t1 = _mm256_fmadd_ps(rf__dot32_i8(q0, q1, x), d, t1);
        else
            t0 = _mm256_fmadd_ps(rf__dot32_i8(q0, q1, x), d, t0);
    }
    return rf__hsum(_mm256_add_ps(t0, t1));
}

RF__TQ2 static float rf__dot_q4_0(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq4_0 *b = w;
    const __m128i m4 = _mm_set1_epi8(0xf), c8 = _mm_set1_epi8(8);
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 32; i++, x += 32) {
        __m128i q = _mm_loadu_si128((const __m128i *)b[i].qs);
        __m128i lo = _mm_sub_epi8(_mm_and_si128(q, m4), c8);
        __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), m4), c8);
        __m256 d = _mm256_set1_ps(rf__h(b[i].d));
        if (i & 1)
            t1 = _mm256_fmadd_ps(rf__dot32_i8(lo, hi, x), d, t1);
        else
            t0 = _mm256_fmadd_ps(rf__dot32_i8(lo, hi, x), d, t0);
    }
    return rf__hsum(_mm256_add_ps(t0, t1));
}

/* Scales (times d) and mins of the 8 sub-blocks of a Q4_K block: 6 bits each in 12 packed
 * bytes, unpacked with 32-bit masks into two vectors. */
RF__TQ2 static void rf__q4k_scales(const rf__bq4_k *b, __m256 *sc, __m256 *mn)
{
    uint32_t u[3];
    memcpy(u, b->scales, 12);
    uint64_t s = (u[0] & 0x3f3f3f3fu) |
                 (uint64_t)((u[2] & 0x0f0f0f0fu) | ((u[0] >> 6) & 0x03030303u) << 4) << 32;
    uint64_t m = (u[1] & 0x3f3f3f3fu) |
                 (uint64_t)(((u[2] >> 4) & 0x0f0f0f0fu) | ((u[1] >> 6) & 0x03030303u) << 4) << 32;
    *sc = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)s))),
                        _mm256_set1_ps(rf__h(b->d)));
    *mn = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)m)));
}

/* 32 unsigned bytes at 4 groups of 8 (two xmm) times x: one vector */
RF__TQ2 static __m256 rf__dot32_u8(__m128i q0, __m128i q1, const float *x)
{
    __m256 a = _mm256_mul_ps(RF__U8F(q0), _mm256_loadu_ps(x));
    a = _mm256_fmadd_ps(RF__U8F(_mm_srli_si128(q0, 8)), _mm256_loadu_ps(x + 8), a);
    a = _mm256_fmadd_ps(RF__U8F(q1), _mm256_loadu_ps(x + 16), a);
    return _mm256_fmadd_ps(RF__U8F(_mm_srli_si128(q1, 8)), _mm256_loadu_ps(x + 24), a);
}

RF__TQ2 static float rf__dot_q4_k(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq4_k *b = w;
    const __m256i m4 = _mm256_set1_epi8(0xf);
    __m256 t0 = _mm256_setzero_ps(), t1 = t0, mv = t0;
    for (size_t i = 0; i < k / 256; i++, x += 256, xs += 8) {
        __m256 sc, mn;
        float s[8];
        rf__q4k_scales(&b[i], &sc, &mn);
        _mm256_storeu_ps(s, sc);
        mv = _mm256_fmadd_ps(_mm256_mul_ps(mn, _mm256_loadu_ps(xs)),
                             _mm256_set1_ps(rf__h(b[i].dmin)), mv);
        for (int j = 0; j < 4; j++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(b[i].qs + 32 * j));
            __m256i lo = _mm256_and_si256(q, m4),
                    hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
            __m256 a = rf__dot32_u8(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1),
                                    x + 64 * j);
            __m256 c = rf__dot32_u8(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1),
                                    x + 64 * j + 32);
            t0 = _mm256_fmadd_ps(a, _mm256_set1_ps(s[2 * j]), t0);
            t1 = _mm256_fmadd_ps(c, _mm256_set1_ps(s[2 * j + 1]), t1);
        }
    }
    return rf__hsum(_mm256_add_ps(t0, t1)) - rf__hsum(mv);
}

/* 16 signed bytes times x[0..16), scaled by s, into t */
RF__TQ2 static __m256 rf__q6_16(__m128i q, const float *x, float s, __m256 t)
{
    __m256 a = _mm256_mul_ps(RF__I8F(q), _mm256_loadu_ps(x));
    a = _mm256_fmadd_ps(RF__I8F(_mm_srli_si128(q, 8)), _mm256_loadu_ps(x + 8), a);
    return _mm256_fmadd_ps(a, _mm256_set1_ps(s), t);
}

RF__TQ2 static float rf__dot_q6_k(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq6_k *b = w;
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 256; i++) {
        float d = rf__h(b[i].d);
        for (int n = 0; n < 2; n++, x += 128) {
            const uint8_t *ql = b[i].ql + 64 * n, *qh = b[i].qh + 32 * n;
            const int8_t *sc = b[i].scales + 8 * n;
            __m256i v[4];
            rf__q6k_unpack256(ql, qh, v);
            for (int g = 0; g < 4; g++) {
                __m256i q = v[g];
                t0 = rf__q6_16(_mm256_castsi256_si128(q), x + 32 * g, d * sc[2 * g], t0);
                t1 = rf__q6_16(_mm256_extracti128_si256(q, 1), x + 32 * g + 16, d * sc[2 * g + 1],
                               t1);
            }
        }
    }
    return rf__hsum(_mm256_add_ps(t0, t1));
}

/* F16 and BF16 rows to F32 with F16C / shifts (the prefill's dequantisation); 0 for other types. */
RF__TQ2 int rf__qk_dequant_avx2(int id, const void *w, float *y, size_t k)
{
    const uint16_t *a = w;
    size_t i = 0;
    if (id == RF__QK_F16) {
        for (; i + 8 <= k; i += 8)
            _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i))));
        for (; i < k; i++) y[i] = rf__h(a[i]);
        return 1;
    }
    if (id == RF__QK_BF16) {
        for (; i + 8 <= k; i += 8) _mm256_storeu_ps(y + i, rf__bf8(a + i));
        for (; i < k; i++) y[i] = rf__bf16_to_f32(a[i]);
        return 1;
    }
    return 0;
}

const rf__qk_dot_fn rf__qk_avx2[RF__QK_COUNT] = {
    rf__dot_f32, rf__dot_f16, rf__dot_bf16, rf__dot_q8_0, rf__dot_q4_0, rf__dot_q4_k, rf__dot_q6_k};
#else
/* Not an x86 build: no AVX2 kernels, nothing dequantised here. */
int rf__qk_dequant_avx2(int id, const void *w, float *y, size_t k)
{
    (void)id, (void)w, (void)y, (void)k;
    return 0;
}

const rf__qk_dot_fn rf__qk_avx2[RF__QK_COUNT] = {0};
#endif
