/* qkernels_avx2.c — AVX2+FMA+F16C kernels: dot products of a weight row with F32 activations (F32,
 * F16, BF16) or with 8-bit ones (Q8_0, Q4_0, Q4_K, Q6_K: maddubs/madd integer products, the block
 * scales applied once per block), the activation quantisers (the reference's bytes), and the F32
 * helpers of the LLM pass (attention rows, SiLU). Compiled with target attributes only (one
 * portable binary); qkernels.c decides whether they run. Checked against the reference by
 * tests/unit/test_qkernels.c. */
#include <math.h>
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))

RF__TARGET_AVX2 static float rf__f16c_to_f32(uint16_t h)
{
    return _cvtsh_ss(h);
}

RF__TARGET_AVX2 static float rf__dot_f32(const void *w, const void *act, size_t k)
{
    const float *a = w, *x = act;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= k; i += 32) {
        RF__PREFETCH_BLOCK(a + i, 128);
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 16), _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 24), _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += a[i] * x[i];
    return s;
}

RF__TARGET_AVX2 static float rf__dot_f16(const void *w, const void *act, size_t k)
{
    const uint16_t *a = w;
    const float *x = act;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= k; i += 32) {
        RF__PREFETCH_BLOCK(a + i, 64);
        __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));
        __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 8)));
        __m256 w2 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 16)));
        __m256 w3 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i + 24)));
        s0 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__f16c_to_f32(a[i]) * x[i];
    return s;
}

RF__TARGET_AVX2 static __m256 rf__bf16x8_to_f32(const uint16_t *p)
{
    __m256i v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
}

RF__TARGET_AVX2 static float rf__dot_bf16(const void *w, const void *act, size_t k)
{
    const uint16_t *a = w;
    const float *x = act;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 32 <= k; i += 32) {
        RF__PREFETCH_BLOCK(a + i, 64);
        s0 = _mm256_fmadd_ps(rf__bf16x8_to_f32(a + i), _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(rf__bf16x8_to_f32(a + i + 8), _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(rf__bf16x8_to_f32(a + i + 16), _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(rf__bf16x8_to_f32(a + i + 24), _mm256_loadu_ps(x + i + 24), s3);
    }
    float s = rf__hsum256(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__bf16_to_f32(a[i]) * x[i];
    return s;
}

/* ---- 8-bit activations: the quantisers (the same bytes as the reference's) ------------------ */

/* max |x| over n floats (n a multiple of 8); NaN ignored as the reference does */
RF__TARGET_AVX2 static float rf__abs_max(const float *x, int n)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 m = _mm256_setzero_ps();
    for (int i = 0; i < n; i += 8)
        m = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + i)), m);
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
}

/* 32 floats times `is`, rounded to nearest even, clamped to [-127, 127], as 32 bytes in order */
RF__TARGET_AVX2 static __m256i rf__quantize_32(const float *x, __m256 is)
{
    const __m256i hi = _mm256_set1_epi32(127), lo = _mm256_set1_epi32(-127);
    __m256i v[4];
    for (int j = 0; j < 4; j++) {
        __m256i t = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 8 * j), is));
        v[j] = _mm256_min_epi32(_mm256_max_epi32(t, lo), hi);
    }
    __m256i p = _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
    return _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* sums of the signed bytes of q: per 16 (lanes) as dwords 0 and 4 of the result */
RF__TARGET_AVX2 static __m256i rf__sums_of_16(__m256i q)
{
    __m256i s =
        _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), q), _mm256_set1_epi16(1));
    s = _mm256_hadd_epi32(s, s);
    return _mm256_hadd_epi32(s, s);
}

RF__TARGET_AVX2 int rf__quantize_q8_k_avx2(const float *x, size_t k, rf__block_q8_k *y)
{
    for (size_t b = 0; b < k / RF__SUPER_BLOCK; b++, x += RF__SUPER_BLOCK, y++) {
        float amax = rf__abs_max(x, RF__SUPER_BLOCK);
        __m256 is = _mm256_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
        y->d = amax > 0 ? amax / 127.0f : 0.0f;
        memset(y->pad, 0, sizeof y->pad);
        for (int i = 0; i < RF__SUPER_BLOCK; i += 32) {
            __m256i q = rf__quantize_32(x + i, is), s = rf__sums_of_16(q);
            _mm256_storeu_si256((__m256i *)(y->qs + i), q);
            y->bsums[i / 16] = (int16_t)_mm256_extract_epi32(s, 0);
            y->bsums[i / 16 + 1] = (int16_t)_mm256_extract_epi32(s, 4);
            y->sums32[i / 32] = (int16_t)(y->bsums[i / 16] + y->bsums[i / 16 + 1]);
        }
    }
    return 1;
}

RF__TARGET_AVX2 int rf__quantize_q8_32_avx2(const float *x, size_t k, rf__block_q8_32 *y)
{
    for (size_t b = 0; b < k / 32; b++, x += 32, y++) {
        float amax = rf__abs_max(x, 32);
        y->d = amax > 0 ? amax / 127.0f : 0.0f;
        __m256i q = rf__quantize_32(x, _mm256_set1_ps(amax > 0 ? 127.0f / amax : 0.0f));
        __m256i s = rf__sums_of_16(q);
        _mm256_storeu_si256((__m256i *)y->qs, q);
        y->sum = _mm256_extract_epi32(s, 0) + _mm256_extract_epi32(s, 4);
    }
    return 1;
}

/* ---- integer dot products against 8-bit activations ---------------------------------------- */

/* Q8_0 . Q8_32: |w| . (x signed as w), 16-bit pair sums, then dwords; one scale per block */
RF__TARGET_AVX2 static float rf__dot_q8_0(const void *w, const void *act, size_t k)
{
    const rf__block_q8_0 *b = w;
    const rf__block_q8_32 *a = act;
    const __m256i one = _mm256_set1_epi16(1);
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    for (size_t i = 0; i < k / 32; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        __m256i q = _mm256_loadu_si256((const __m256i *)b[i].qs);
        __m256i y = _mm256_loadu_si256((const __m256i *)a[i].qs);
        __m256i p = _mm256_madd_epi16(
            _mm256_maddubs_epi16(_mm256_sign_epi8(q, q), _mm256_sign_epi8(y, q)), one);
        __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d);
        if (i & 1)
            t1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t1);
        else
            t0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t0);
    }
    return rf__hsum256(_mm256_add_ps(t0, t1));
}

/* Q4_0 . Q8_32: unsigned nibbles times x, less 8 . sum x (each of the 8 dwords takes one sum) */
RF__TARGET_AVX2 static float rf__dot_q4_0(const void *w, const void *act, size_t k)
{
    const rf__block_q4_0 *b = w;
    const rf__block_q8_32 *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf), one = _mm256_set1_epi16(1);
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    for (size_t i = 0; i < k / 32; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        __m128i q = _mm_loadu_si128((const __m128i *)b[i].qs);
        __m256i qq = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), m4);
        __m256i y = _mm256_loadu_si256((const __m256i *)a[i].qs);
        __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(qq, y), one);
        p = _mm256_sub_epi32(p, _mm256_set1_epi32(a[i].sum));
        __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d);
        if (i & 1)
            t1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t1);
        else
            t0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t0);
    }
    return rf__hsum256(_mm256_add_ps(t0, t1));
}

/* Q4_K . Q8_K: per 32-byte chunk j, low nibbles (sub-block 2j) and high (2j+1) times the int8
 * activations in 16-bit pair sums, then times the sub-block's scale into dwords; d . d_x once per
 * block; the mins from the activation's sums per 16. */
RF__TARGET_AVX2 static float rf__dot_q4_k(const void *w, const void *act, size_t k)
{
    const rf__block_q4_k *b = w;
    const rf__block_q8_k *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf);
    /* byte pairs (2j, 2j+1) of 8 int16 scales: sub-block j's scale in every word */
    const __m256i k0 = _mm256_set1_epi16(0x0100), k1 = _mm256_set1_epi16(0x0302),
                  k2 = _mm256_set1_epi16(0x0504), k3 = _mm256_set1_epi16(0x0706),
                  k4 = _mm256_set1_epi16(0x0908), k5 = _mm256_set1_epi16(0x0b0a),
                  k6 = _mm256_set1_epi16(0x0d0c), k7 = _mm256_set1_epi16(0x0f0e);
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        uint64_t sc, mn;
        rf__q4_k_scales_mins(b[i].scales, &sc, &mn);
        const int8_t *y = a[i].qs;
        const uint8_t *q = b[i].qs;
        __m128i pm = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)mn)),
                                    _mm_loadu_si128((const __m128i *)a[i].sums32));
        /* d and dmin (adjacent halves) times the activation's scale in one conversion */
        uint32_t dm;
        memcpy(&dm, &b[i].d, 4);
        __m128 dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128((int)dm)), _mm_set1_ps(a[i].d));
        accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), accm);
        __m256i s16 =
            _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)sc)));
        __m256i u0 = _mm256_setzero_si256(), u1 = u0;
#define RF__Q4_K_CHUNK(j, ka, kb)                                                                  \
    do {                                                                                           \
        __m256i qv = _mm256_loadu_si256((const __m256i *)(q + 32 * (j)));                          \
        __m256i lo = _mm256_and_si256(qv, m4),                                                     \
                hi = _mm256_and_si256(_mm256_srli_epi16(qv, 4), m4);                               \
        __m256i pl =                                                                               \
            _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)(y + 64 * (j))));         \
        __m256i ph =                                                                               \
            _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(y + 64 * (j) + 32)));    \
        u0 = _mm256_add_epi32(u0, _mm256_madd_epi16(pl, _mm256_shuffle_epi8(s16, ka)));            \
        u1 = _mm256_add_epi32(u1, _mm256_madd_epi16(ph, _mm256_shuffle_epi8(s16, kb)));            \
    } while (0)
        RF__Q4_K_CHUNK(0, k0, k1);
        RF__Q4_K_CHUNK(1, k2, k3);
        RF__Q4_K_CHUNK(2, k4, k5);
        RF__Q4_K_CHUNK(3, k6, k7);
#undef RF__Q4_K_CHUNK
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd),
                              _mm256_cvtepi32_ps(_mm256_add_epi32(u0, u1)), acc);
    }
    __m128 m = _mm_add_ps(accm, _mm_movehl_ps(accm, accm));
    m = _mm_add_ss(m, _mm_movehdup_ps(m));
    return rf__hsum256(acc) - _mm_cvtss_f32(m);
}

/* Q6_K . Q8_K: the 6-bit values unsigned (0..63) times the activations, times the scale of each
 * 16 into dwords, less 32 . sum over the 16 scales of scale . (sum of x over its 16). */
RF__TARGET_AVX2 static float rf__dot_q6_k(const void *w, const void *act, size_t k)
{
    const rf__block_q6_k *b = w;
    const rf__block_q8_k *a = act;
    /* byte pairs of scales 2g (low lane) and 2g+1 (high lane) of 8 int16 scales */
    const __m256i kq0 = _mm256_set_m128i(_mm_set1_epi16(0x0302), _mm_set1_epi16(0x0100)),
                  kq1 = _mm256_set_m128i(_mm_set1_epi16(0x0706), _mm_set1_epi16(0x0504)),
                  kq2 = _mm256_set_m128i(_mm_set1_epi16(0x0b0a), _mm_set1_epi16(0x0908)),
                  kq3 = _mm256_set_m128i(_mm_set1_epi16(0x0f0e), _mm_set1_epi16(0x0d0c));
    __m256 acc = _mm256_setzero_ps();
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        __m256i sc = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)b[i].scales));
        __m256i sumi = _mm256_slli_epi32(
            _mm256_madd_epi16(sc, _mm256_loadu_si256((const __m256i *)a[i].bsums)), 5);
        sumi = _mm256_sub_epi32(_mm256_setzero_si256(), sumi);
        for (int n = 0; n < 2; n++) {
            const int8_t *y = a[i].qs + 128 * n;
            __m256i v[4];
            rf__q6_k_unpack256(b[i].ql + 64 * n, b[i].qh + 32 * n, v);
            __m256i s8 = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(
                _mm256_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(b[i].scales + 8 * n)))));
#define RF__Q6_K_GROUP(g, kq)                                                                      \
    sumi = _mm256_add_epi32(                                                                       \
        sumi, _mm256_madd_epi16(                                                                   \
                  _mm256_maddubs_epi16(v[g], _mm256_loadu_si256((const __m256i *)(y + 32 * (g)))), \
                  _mm256_shuffle_epi8(s8, kq)))
            RF__Q6_K_GROUP(0, kq0);
            RF__Q6_K_GROUP(1, kq1);
            RF__Q6_K_GROUP(2, kq2);
            RF__Q6_K_GROUP(3, kq3);
#undef RF__Q6_K_GROUP
        }
        acc = _mm256_fmadd_ps(_mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d),
                              _mm256_cvtepi32_ps(sumi), acc);
    }
    return rf__hsum256(acc);
}

RF__TARGET_AVX2 int rf__f32_rows_dot_avx2(const float *a, size_t rows, size_t stride,
                                          const float *x, size_t n, float *y)
{
    for (size_t r = 0; r < rows; r++) y[r] = rf__dot_f32(a + r * stride, x, n);
    return 1;
}

/* y = sum_r p[r] a_r, 32 columns at a time in four accumulators, then 8, then one by one */
RF__TARGET_AVX2 int rf__f32_rows_axpy_avx2(const float *a, size_t rows, size_t stride,
                                           const float *p, size_t n, float *y)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (size_t r = 0; r < rows; r++) {
            const float *ar = a + r * stride + i;
            __m256 pr = _mm256_broadcast_ss(p + r);
            s0 = _mm256_fmadd_ps(pr, _mm256_loadu_ps(ar), s0);
            s1 = _mm256_fmadd_ps(pr, _mm256_loadu_ps(ar + 8), s1);
            s2 = _mm256_fmadd_ps(pr, _mm256_loadu_ps(ar + 16), s2);
            s3 = _mm256_fmadd_ps(pr, _mm256_loadu_ps(ar + 24), s3);
        }
        _mm256_storeu_ps(y + i, s0);
        _mm256_storeu_ps(y + i + 8, s1);
        _mm256_storeu_ps(y + i + 16, s2);
        _mm256_storeu_ps(y + i + 24, s3);
    }
    for (; i + 8 <= n; i += 8) {
        __m256 s0 = _mm256_setzero_ps();
        for (size_t r = 0; r < rows; r++)
            s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(p + r), _mm256_loadu_ps(a + r * stride + i),
                                 s0);
        _mm256_storeu_ps(y + i, s0);
    }
    for (; i < n; i++) {
        float s = 0;
        for (size_t r = 0; r < rows; r++) s += p[r] * a[r * stride + i];
        y[i] = s;
    }
    return 1;
}

/* exp(x) for x in [-87, 88] (clamped): x = n ln 2 + r, |r| <= ln 2 / 2, Cephes' expf polynomial
 * for exp(r), 2^n into the exponent bits. */
RF__TARGET_AVX2 static __m256 rf__exp_x8(__m256 x)
{
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504089f)),
                               _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_add_ps(_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r), _mm256_set1_ps(1.0f));
    __m256i e =
        _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

RF__TARGET_AVX2 int rf__f32_silu_avx2(float *y, size_t n)
{
    const __m256 one = _mm256_set1_ps(1.0f), lim = _mm256_set1_ps(-80.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(y + i);
        __m256 s =
            _mm256_div_ps(v, _mm256_add_ps(one, rf__exp_x8(_mm256_sub_ps(_mm256_setzero_ps(), v))));
        _mm256_storeu_ps(y + i, _mm256_and_ps(s, _mm256_cmp_ps(v, lim, _CMP_GT_OQ)));
    }
    for (; i < n; i++) y[i] = y[i] > -80.0f ? y[i] / (1.0f + expf(-y[i])) : 0.0f;
    return 1;
}

/* F16 and BF16 rows to F32 with F16C / shifts (the prefill's dequantisation); 0 for other types. */
RF__TARGET_AVX2 int rf__dequant_row_avx2(int id, const void *w, float *y, size_t k)
{
    const uint16_t *a = w;
    size_t i = 0;
    if (id == RF__WEIGHT_F16) {
        for (; i + 8 <= k; i += 8)
            _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i))));
        for (; i < k; i++) y[i] = rf__f16c_to_f32(a[i]);
        return 1;
    }
    if (id == RF__WEIGHT_BF16) {
        for (; i + 8 <= k; i += 8) _mm256_storeu_ps(y + i, rf__bf16x8_to_f32(a + i));
        for (; i < k; i++) y[i] = rf__bf16_to_f32(a[i]);
        return 1;
    }
    if (id == RF__WEIGHT_Q8_0) { /* d . q, as the reference: one rounding */
        const rf__block_q8_0 *b = w;
        for (size_t n = 0; n < k / 32; n++, y += 32) {
            __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[n].d));
            for (int l = 0; l < 32; l += 8)
                _mm256_storeu_ps(
                    y + l, _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(
                                                _mm_loadl_epi64((const __m128i *)(b[n].qs + l))))));
        }
        return 1;
    }
    if (id ==
        RF__WEIGHT_Q4_K) { /* (d . scale) . q - dmin . min, fused: within an ulp of the reference */
        const rf__block_q4_k *b = w;
        const __m128i m4 = _mm_set1_epi8(0xf);
        for (size_t n = 0; n < k / RF__SUPER_BLOCK; n++) {
            float d = rf__f16c_to_f32(b[n].d), dmin = rf__f16c_to_f32(b[n].dmin);
            const uint8_t *q = b[n].qs;
            for (int j = 0; j < 4; j++, q += 32, y += 64) {
                int s0, m0, s1, m1;
                rf__q4_k_scale_min(b[n].scales, 2 * j, &s0, &m0);
                rf__q4_k_scale_min(b[n].scales, 2 * j + 1, &s1, &m1);
                __m256 d0 = _mm256_set1_ps(d * (float)s0), n0 = _mm256_set1_ps(dmin * (float)m0);
                __m256 d1 = _mm256_set1_ps(d * (float)s1), n1 = _mm256_set1_ps(dmin * (float)m1);
                for (int l = 0; l < 32; l += 8) {
                    __m128i v = _mm_loadl_epi64((const __m128i *)(q + l));
                    __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_and_si128(v, m4)));
                    __m256 hi = _mm256_cvtepi32_ps(
                        _mm256_cvtepu8_epi32(_mm_and_si128(_mm_srli_epi16(v, 4), m4)));
                    _mm256_storeu_ps(y + l, _mm256_fmsub_ps(d0, lo, n0));
                    _mm256_storeu_ps(y + l + 32, _mm256_fmsub_ps(d1, hi, n1));
                }
            }
        }
        return 1;
    }
    if (id == RF__WEIGHT_Q6_K) { /* (d . scale) . (q - 32), as the reference */
        const rf__block_q6_k *b = w;
        const __m256i off = _mm256_set1_epi32(32);
        for (size_t n = 0; n < k / RF__SUPER_BLOCK; n++) {
            float d = rf__f16c_to_f32(b[n].d);
            for (int h = 0; h < 2; h++, y += 128) {
                __m256i v[4];
                uint8_t u[128];
                rf__q6_k_unpack256(b[n].ql + 64 * h, b[n].qh + 32 * h, v);
                for (int g = 0; g < 4; g++) _mm256_storeu_si256((__m256i *)(u + 32 * g), v[g]);
                for (int g = 0; g < 8; g++) { /* 16 values of scale 8h + g */
                    __m256 ds = _mm256_set1_ps(d * (float)b[n].scales[8 * h + g]);
                    for (int l = 0; l < 16; l += 8) {
                        __m256i x = _mm256_cvtepu8_epi32(
                            _mm_loadl_epi64((const __m128i *)(u + 16 * g + l)));
                        _mm256_storeu_ps(
                            y + 16 * g + l,
                            _mm256_mul_ps(ds, _mm256_cvtepi32_ps(_mm256_sub_epi32(x, off))));
                    }
                }
            }
        }
        return 1;
    }
    return 0;
}

const rf__row_dot_fn rf__row_dot_avx2[RF__WEIGHT_TYPES] = {
    rf__dot_f32,       rf__dot_f16,       rf__dot_bf16,      rf__dot_q8_0,      rf__dot_q4_0,
    rf__dot_q4_k,      rf__dot_q6_k,      rf__dot_q4_1_avx2, rf__dot_q5_0_avx2, rf__dot_q5_1_avx2,
    rf__dot_q5_k_avx2, rf__dot_q2_k_avx2, rf__dot_q3_k_avx2};
#else
/* Not an x86 build: no AVX2 kernels, nothing dequantised here. */
int rf__dequant_row_avx2(int id, const void *w, float *y, size_t k)
{
    (void)id, (void)w, (void)y, (void)k;
    return 0;
}

int rf__quantize_q8_k_avx2(const float *x, size_t k, rf__block_q8_k *y)
{
    (void)x, (void)k, (void)y;
    return 0;
}

int rf__f32_rows_dot_avx2(const float *a, size_t rows, size_t stride, const float *x, size_t n,
                          float *y)
{
    (void)a, (void)rows, (void)stride, (void)x, (void)n, (void)y;
    return 0;
}

int rf__f32_silu_avx2(float *y, size_t n)
{
    (void)y, (void)n;
    return 0;
}

int rf__f32_rows_axpy_avx2(const float *a, size_t rows, size_t stride, const float *p, size_t n,
                           float *y)
{
    (void)a, (void)rows, (void)stride, (void)p, (void)n, (void)y;
    return 0;
}

int rf__quantize_q8_32_avx2(const float *x, size_t k, rf__block_q8_32 *y)
{
    (void)x, (void)k, (void)y;
    return 0;
}

const rf__row_dot_fn rf__row_dot_avx2[RF__WEIGHT_TYPES] = {0};
#endif
