/* qkernels_avx512.c — AVX-512 (F + BW) dot products of a weight row (F32, F16, BF16, Q8_0, Q4_0,
 * Q4_K, Q6_K) with F32 activations, each block dequantised in zmm registers and never stored.
 * Compiled with target attributes only; qkernels.c decides whether they run. Checked against the
 * reference by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TQ5 __attribute__((target("avx512f,avx512bw,avx2,fma,f16c")))

RF__TQ5 static float rf__h5(uint16_t h)
{
    return _cvtsh_ss(h);
}

/* 16 bytes as floats */
#define RF__I8F16(v) _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v))
#define RF__U8F16(v) _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(v))
#define RF__LD(p) _mm_loadu_si128((const __m128i *)(p))

RF__TQ5 static float rf__dot_f32(const void *w, const float *x, const float *xs, size_t k)
{
    const float *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 64 <= k; i += 64) {
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 32), _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 48), _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += a[i] * x[i];
    return s;
}

RF__TQ5 static float rf__dot_f16(const void *w, const float *x, const float *xs, size_t k)
{
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 64 <= k; i += 64) {
        __m512 w0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i)));
        __m512 w1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 16)));
        __m512 w2 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 32)));
        __m512 w3 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i + 48)));
        s0 = _mm512_fmadd_ps(w0, _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(w1, _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(w2, _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(w3, _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(a + i))),
                             _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__h5(a[i]) * x[i];
    return s;
}

RF__TQ5 static __m512 rf__bf16x16(const uint16_t *p)
{
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

RF__TQ5 static float rf__dot_bf16(const void *w, const float *x, const float *xs, size_t k)
{
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    (void)xs;
    for (; i + 64 <= k; i += 64) {
        s0 = _mm512_fmadd_ps(rf__bf16x16(a + i), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(rf__bf16x16(a + i + 16), _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(rf__bf16x16(a + i + 32), _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(rf__bf16x16(a + i + 48), _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(rf__bf16x16(a + i), _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__bf16_to_f32(a[i]) * x[i];
    return s;
}

RF__TQ5 static float rf__dot_q8_0(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq8_0 *b = w;
    __m512 t0 = _mm512_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 32; i++, x += 32) {
        __m512 a = _mm512_mul_ps(RF__I8F16(RF__LD(b[i].qs)), _mm512_loadu_ps(x));
        a = _mm512_fmadd_ps(RF__I8F16(RF__LD(b[i].qs + 16)), _mm512_loadu_ps(x + 16), a);
        if (i & 1)
            t1 = _mm512_fmadd_ps(a, _mm512_set1_ps(rf__h5(b[i].d)), t1);
        else
            t0 = _mm512_fmadd_ps(a, _mm512_set1_ps(rf__h5(b[i].d)), t0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

RF__TQ5 static float rf__dot_q4_0(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq4_0 *b = w;
    const __m128i m4 = _mm_set1_epi8(0xf), c8 = _mm_set1_epi8(8);
    __m512 t0 = _mm512_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 32; i++, x += 32) {
        __m128i q = RF__LD(b[i].qs);
        __m128i lo = _mm_sub_epi8(_mm_and_si128(q, m4), c8);
        __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), m4), c8);
        __m512 a = _mm512_mul_ps(RF__I8F16(lo), _mm512_loadu_ps(x));
        a = _mm512_fmadd_ps(RF__I8F16(hi), _mm512_loadu_ps(x + 16), a);
        if (i & 1)
            t1 = _mm512_fmadd_ps(a, _mm512_set1_ps(rf__h5(b[i].d)), t1);
        else
            t0 = _mm512_fmadd_ps(a, _mm512_set1_ps(rf__h5(b[i].d)), t0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

/* Q4_K without shuffles: 64 bytes of quants are 16 dword lanes (lanes 0-7 one 32-byte chunk,
 * 8-15 the next); nibble n of every lane is (v >> 4n) & 15, converted and multiplied by x taken
 * in that order (rf__qk_prep's reordered copy, made once per activation vector). Even nibbles
 * belong to the chunks' low sub-blocks, odd ones to the high: per-lane scale vectors; the mins
 * come from the sums of x per sub-block. */
RF__TQ5 static float rf__dot_q4_k(const void *w, const float *x, const float *aux, size_t k)
{
    const rf__bq4_k *b = w;
    const float *xs = aux, *xp = aux + (k + 31) / 32;
    const __m512i m4 = _mm512_set1_epi32(0xf);
    /* lanes 0-7 take sub-block s0, lanes 8-15 s1: (0, 2), (1, 3), (4, 6), (5, 7) */
    const __m512i p0 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2);
    const __m512i one = _mm512_set1_epi32(1), four = _mm512_set1_epi32(4);
    const __m512i sel[4] = {p0, _mm512_add_epi32(p0, one), _mm512_add_epi32(p0, four),
                            _mm512_add_epi32(_mm512_add_epi32(p0, four), one)};
    __m512 t0 = _mm512_setzero_ps(), t1 = t0;
    __m256 mv = _mm256_setzero_ps(); /* dmin . min . sum of x, per sub-block lane */
    (void)x;
    for (size_t i = 0; i < k / 256; i++, xp += 256, xs += 8) {
        uint32_t u[3];
        memcpy(u, b[i].scales, 12);
        uint64_t sc = (u[0] & 0x3f3f3f3fu) |
                      (uint64_t)((u[2] & 0x0f0f0f0fu) | ((u[0] >> 6) & 0x03030303u) << 4) << 32;
        uint64_t mn = (u[1] & 0x3f3f3f3fu) |
                      (uint64_t)(((u[2] >> 4) & 0x0f0f0f0fu) | ((u[1] >> 6) & 0x03030303u) << 4)
                          << 32;
        __m256 scf = _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)sc))),
            _mm256_set1_ps(rf__h5(b[i].d)));
        __m256 mnf = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)mn)));
        mv = _mm256_fmadd_ps(_mm256_mul_ps(mnf, _mm256_loadu_ps(xs)),
                             _mm256_set1_ps(rf__h5(b[i].dmin)), mv);
        __m512 scz = _mm512_castps256_ps512(scf);
        for (int L = 0; L < 2; L++) {
            const float *xl = xp + 128 * L;
            __m512i v = _mm512_loadu_si512((const void *)(b[i].qs + 64 * L));
            __m512 lo =
                _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(v, m4)), _mm512_loadu_ps(xl));
            __m512 hi =
                _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(v, 4), m4)),
                              _mm512_loadu_ps(xl + 16));
#define RF__Q4K_NIB(n, acc)                                                                        \
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(v, 4 * (n)), m4)), \
                          _mm512_loadu_ps(xl + 16 * (n)), acc)
            RF__Q4K_NIB(2, lo);
            RF__Q4K_NIB(3, hi);
            RF__Q4K_NIB(4, lo);
            RF__Q4K_NIB(5, hi);
            RF__Q4K_NIB(6, lo);
            RF__Q4K_NIB(7, hi);
#undef RF__Q4K_NIB
            t0 = _mm512_fmadd_ps(lo, _mm512_permutexvar_ps(sel[2 * L], scz), t0);
            t1 = _mm512_fmadd_ps(hi, _mm512_permutexvar_ps(sel[2 * L + 1], scz), t1);
        }
    }
    __m128 m2 = _mm_add_ps(_mm256_castps256_ps128(mv), _mm256_extractf128_ps(mv, 1));
    m2 = _mm_add_ps(m2, _mm_movehl_ps(m2, m2));
    m2 = _mm_add_ss(m2, _mm_movehdup_ps(m2));
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1)) - _mm_cvtss_f32(m2);
}

RF__TQ5 static float rf__dot_q6_k(const void *w, const float *x, const float *xs, size_t k)
{
    const rf__bq6_k *b = w;
    __m512 t0 = _mm512_setzero_ps(), t1 = t0;
    (void)xs;
    for (size_t i = 0; i < k / 256; i++) {
        float d = rf__h5(b[i].d);
        for (int n = 0; n < 2; n++, x += 128) {
            const uint8_t *ql = b[i].ql + 64 * n, *qh = b[i].qh + 32 * n;
            const int8_t *sc = b[i].scales + 8 * n;
            __m256i v[4];
            rf__q6k_unpack256(ql, qh, v);
            for (int g = 0; g < 4; g++) {
                __m256i q = v[g];
                __m512 a = _mm512_mul_ps(RF__I8F16(_mm256_castsi256_si128(q)),
                                         _mm512_loadu_ps(x + 32 * g));
                __m512 c = _mm512_mul_ps(RF__I8F16(_mm256_extracti128_si256(q, 1)),
                                         _mm512_loadu_ps(x + 32 * g + 16));
                t0 = _mm512_fmadd_ps(a, _mm512_set1_ps(d * sc[2 * g]), t0);
                t1 = _mm512_fmadd_ps(c, _mm512_set1_ps(d * sc[2 * g + 1]), t1);
            }
        }
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
}

const rf__qk_dot_fn rf__qk_avx512[RF__QK_COUNT] = {
    rf__dot_f32, rf__dot_f16, rf__dot_bf16, rf__dot_q8_0, rf__dot_q4_0, rf__dot_q4_k, rf__dot_q6_k};
#else
const rf__qk_dot_fn rf__qk_avx512[RF__QK_COUNT] = {0};
#endif
