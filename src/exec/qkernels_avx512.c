/* qkernels_avx512.c — AVX-512 dot products of a weight row: F32, F16, BF16 against F32 activations
 * in zmm registers; Q8_0, Q4_0, Q4_K, Q6_K against 8-bit activations with VNNI (on ymm, see
 * below). Compiled with target attributes only; qkernels.c decides whether they run (F, BW, VL
 * and VNNI). Checked against the reference by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx2,fma,f16c")))

RF__TARGET_AVX512 static float rf__f16c_to_f32(uint16_t h)
{
    return _cvtsh_ss(h);
}

RF__TARGET_AVX512 static float rf__dot_f32(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const float *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        RF__PREFETCH_BLOCK(a + i, 256);
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

RF__TARGET_AVX512 static float rf__dot_f16(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        RF__PREFETCH_BLOCK(a + i, 128);
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
    for (; i < k; i++) s += rf__f16c_to_f32(a[i]) * x[i];
    return s;
}

RF__TARGET_AVX512 static __m512 rf__bf16x16_to_f32(const uint16_t *p)
{
    __m512i v = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
}

RF__TARGET_AVX512 static float rf__dot_bf16(const void *w, const void *act, size_t k)
{
    const float *x = act;
    const uint16_t *a = w;
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 64 <= k; i += 64) {
        RF__PREFETCH_BLOCK(a + i, 128);
        s0 = _mm512_fmadd_ps(rf__bf16x16_to_f32(a + i), _mm512_loadu_ps(x + i), s0);
        s1 = _mm512_fmadd_ps(rf__bf16x16_to_f32(a + i + 16), _mm512_loadu_ps(x + i + 16), s1);
        s2 = _mm512_fmadd_ps(rf__bf16x16_to_f32(a + i + 32), _mm512_loadu_ps(x + i + 32), s2);
        s3 = _mm512_fmadd_ps(rf__bf16x16_to_f32(a + i + 48), _mm512_loadu_ps(x + i + 48), s3);
    }
    for (; i + 16 <= k; i += 16)
        s0 = _mm512_fmadd_ps(rf__bf16x16_to_f32(a + i), _mm512_loadu_ps(x + i), s0);
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    for (; i < k; i++) s += rf__bf16_to_f32(a[i]) * x[i];
    return s;
}

/* ---- the quantized types against 8-bit activations: AVX2's arithmetic on ymm (VL), with VNNI
 * fusing each multiply with its accumulation. On Zen 4 a zmm operation takes two 256-bit passes,
 * and the Q4_K kernel measured faster on ymm (22 cycles per block against 25 on zmm). */
#define RF__TARGET_AVX512_VNNI                                                                     \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

/* Q8_0 . Q8_32: |w| . (x signed as w) in one vpdpbusd per block */
RF__TARGET_AVX512_VNNI static float rf__dot_q8_0(const void *w, const void *act, size_t k)
{
    const rf__block_q8_0 *b = w;
    const rf__block_q8_32 *a = act;
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    for (size_t i = 0; i < k / 32; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        __m256i q = _mm256_loadu_si256((const __m256i *)b[i].qs);
        __m256i y = _mm256_loadu_si256((const __m256i *)a[i].qs);
        __m256i p = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_sign_epi8(q, q),
                                        _mm256_sign_epi8(y, q));
        __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d);
        if (i & 1)
            t1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t1);
        else
            t0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t0);
    }
    return rf__hsum256(_mm256_add_ps(t0, t1));
}

/* Q4_0 . Q8_32: unsigned nibbles times x in one vpdpbusd, less 8 . sum x */
RF__TARGET_AVX512_VNNI static float rf__dot_q4_0(const void *w, const void *act, size_t k)
{
    const rf__block_q4_0 *b = w;
    const rf__block_q8_32 *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf);
    __m256 t0 = _mm256_setzero_ps(), t1 = t0;
    for (size_t i = 0; i < k / 32; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        __m128i q = _mm_loadu_si128((const __m128i *)b[i].qs);
        __m256i qq = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), m4);
        __m256i p = _mm256_dpbusd_epi32(_mm256_set1_epi32(-a[i].sum), qq,
                                        _mm256_loadu_si256((const __m256i *)a[i].qs));
        __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d);
        if (i & 1)
            t1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t1);
        else
            t0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t0);
    }
    return rf__hsum256(_mm256_add_ps(t0, t1));
}

/* Q4_K . Q8_K: as the AVX2 kernel (pair sums of nibbles times int8 activations, times each
 * sub-block's scale into dwords), the scale products fused by vpdpwssd. */
RF__TARGET_AVX512_VNNI static float rf__dot_q4_k(const void *w, const void *act, size_t k)
{
    const rf__block_q4_k *b = w;
    const rf__block_q8_k *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf);
    const __m256i k0 = _mm256_set1_epi16(0x0100), k1 = _mm256_set1_epi16(0x0302),
                  k2 = _mm256_set1_epi16(0x0504), k3 = _mm256_set1_epi16(0x0706),
                  k4 = _mm256_set1_epi16(0x0908), k5 = _mm256_set1_epi16(0x0b0a),
                  k6 = _mm256_set1_epi16(0x0d0c), k7 = _mm256_set1_epi16(0x0f0e);
    __m256 acc = _mm256_setzero_ps();
    __m128 accm = _mm_setzero_ps();
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        RF__PREFETCH_BLOCK(b + i, sizeof *b);
        uint32_t u[3];
        memcpy(u, b[i].scales, 12);
        uint64_t sc = (u[0] & 0x3f3f3f3fu) |
                      (uint64_t)((u[2] & 0x0f0f0f0fu) | ((u[0] >> 6) & 0x03030303u) << 4) << 32;
        uint64_t mn = (u[1] & 0x3f3f3f3fu) |
                      (uint64_t)(((u[2] >> 4) & 0x0f0f0f0fu) | ((u[1] >> 6) & 0x03030303u) << 4)
                          << 32;
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
        u0 = _mm256_dpwssd_epi32(                                                                  \
            u0, _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)(y + 64 * (j)))),     \
            _mm256_shuffle_epi8(s16, ka));                                                         \
        u1 = _mm256_dpwssd_epi32(                                                                  \
            u1,                                                                                    \
            _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(y + 64 * (j) + 32))),    \
            _mm256_shuffle_epi8(s16, kb));                                                         \
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

/* Q6_K . Q8_K: unsigned 6-bit values times the activations, the scale of each 16 fused by
 * vpdpwssd, less 32 . sum of scale . (sum of x over its 16). */
RF__TARGET_AVX512_VNNI static float rf__dot_q6_k(const void *w, const void *act, size_t k)
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
    sumi = _mm256_dpwssd_epi32(                                                                    \
        sumi, _mm256_maddubs_epi16(v[g], _mm256_loadu_si256((const __m256i *)(y + 32 * (g)))),     \
        _mm256_shuffle_epi8(s8, kq))
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

const rf__row_dot_fn rf__row_dot_avx512[RF__WEIGHT_TYPES] = {
    rf__dot_f32,
    rf__dot_f16,
    rf__dot_bf16,
    rf__dot_q8_0,
    rf__dot_q4_0,
    rf__dot_q4_k,
    rf__dot_q6_k,
    [RF__WEIGHT_Q2_K] = rf__dot_q2_k_avx512,
    [RF__WEIGHT_Q3_K] = rf__dot_q3_k_avx512};
#else
const rf__row_dot_fn rf__row_dot_avx512[RF__WEIGHT_TYPES] = {0};
#endif
