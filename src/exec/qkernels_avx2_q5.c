/* qkernels_avx2_q5.c — AVX2+FMA+F16C dot products for Q4_1, Q5_0, Q5_1 (against Q8_32) and Q5_K
 * (against Q8_K): the Q4_0 and Q4_K kernels of qkernels_avx2.c with a fifth bit per weight and,
 * for the types with a minimum, its product with the activation's sum. Target attributes only;
 * qkernels_avx2.c's table holds them. Checked against qkernels_q5.c by tests/unit/test_qkernels.c.
 */
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

/* ---- Q4_1, Q5_0, Q5_1 (. Q8_32) and Q5_K (. Q8_K): the Q4_0 and Q4_K kernels with a fifth bit
 * per weight (bit j of the block's 32-bit qh: byte j after rf__bits16 gives it as 16) and, for the
 * types with a minimum, its product with the activation's sum. */

/* 32 bytes: 16 where bit j of x is set, else 0 (ggml's bytes_from_bits_32, masked). */
RF__TARGET_AVX2 static __m256i rf__bits16(uint32_t x)
{
    const __m256i shuf =
        _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)x), shuf);
    v = _mm256_or_si256(v, _mm256_set1_epi64x(0x7fbfdfeff7fbfdfe));
    return _mm256_and_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi64x(-1)), _mm256_set1_epi8(16));
}

/* The 32 weights of a 32-weight block as unsigned bytes: low nibbles 0..15, high 16..31, plus
 * the fifth bits. */
RF__TARGET_AVX2 static __m256i rf__q5_bytes(const uint8_t *qs, const uint8_t *qh)
{
    __m128i q = _mm_loadu_si128((const __m128i *)qs);
    __m256i v = _mm256_and_si256(_mm256_set_m128i(_mm_srli_epi16(q, 4), q), _mm256_set1_epi8(0xf));
    if (!qh) return v;
    uint32_t h;
    memcpy(&h, qh, 4);
    return _mm256_or_si256(v, rf__bits16(h));
}

/* The 32-weight types: sum of q . y per block (q unsigned), minus `off` . sum y (Q5_0's 16), the
 * block's scale; plus m . sum y for the types with a minimum. */
#define RF__DOT_Q5_32(NAME, TYPE, QH, OFF, MIN)                                                    \
    RF__TARGET_AVX2 float NAME(const void *w, const void *act, size_t k)                           \
    {                                                                                              \
        const TYPE *b = w;                                                                         \
        const rf__block_q8_32 *a = act;                                                            \
        const __m256i one = _mm256_set1_epi16(1);                                                  \
        __m256 t0 = _mm256_setzero_ps(), t1 = t0;                                                  \
        float mins = 0;                                                                            \
        for (size_t i = 0; i < k / 32; i++) {                                                      \
            RF__PREFETCH_BLOCK(b + i, sizeof *b);                                                  \
            __m256i q = rf__q5_bytes(b[i].qs, QH);                                                 \
            __m256i y = _mm256_loadu_si256((const __m256i *)a[i].qs);                              \
            __m256i p = _mm256_madd_epi16(_mm256_maddubs_epi16(q, y), one);                        \
            if (OFF) p = _mm256_sub_epi32(p, _mm256_set1_epi32((OFF)*a[i].sum / 8));               \
            __m256 d = _mm256_set1_ps(rf__f16c_to_f32(b[i].d) * a[i].d);                           \
            if (i & 1)                                                                             \
                t1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t1);                                \
            else                                                                                   \
                t0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), d, t0);                                \
            MIN;                                                                                   \
        }                                                                                          \
        return rf__hsum256(_mm256_add_ps(t0, t1)) + mins;                                          \
    }
RF__DOT_Q5_32(rf__dot_q4_1_avx2, rf__block_q4_1, NULL, 0,
              mins += rf__f16c_to_f32(b[i].m) * a[i].d * (float)a[i].sum)
RF__DOT_Q5_32(rf__dot_q5_0_avx2, rf__block_q5_0, b[i].qh, 16, (void)0)
RF__DOT_Q5_32(rf__dot_q5_1_avx2, rf__block_q5_1, b[i].qh, 0,
              mins += rf__f16c_to_f32(b[i].m) * a[i].d * (float)a[i].sum)
#undef RF__DOT_Q5_32

/* Q5_K . Q8_K: the Q4_K kernel, each nibble with its fifth bit (bit j of qh[l] for sub-block j) */
RF__TARGET_AVX2 float rf__dot_q5_k_avx2(const void *w, const void *act, size_t k)
{
    const rf__block_q5_k *b = w;
    const rf__block_q8_k *a = act;
    const __m256i m4 = _mm256_set1_epi8(0xf), m16 = _mm256_set1_epi8(16);
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
        __m256i hb = _mm256_loadu_si256((const __m256i *)b[i].qh);
        __m128i pm = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)mn)),
                                    _mm_loadu_si128((const __m128i *)a[i].sums32));
        uint32_t dm;
        memcpy(&dm, &b[i].d, 4);
        __m128 dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128((int)dm)), _mm_set1_ps(a[i].d));
        accm = _mm_fmadd_ps(_mm_shuffle_ps(dd, dd, 0x55), _mm_cvtepi32_ps(pm), accm);
        __m256i s16 =
            _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(_mm_cvtsi64_si128((long long)sc)));
        __m256i u0 = _mm256_setzero_si256(), u1 = u0;
#define RF__Q5_K_CHUNK(j, ka, kb)                                                                  \
    do {                                                                                           \
        __m256i qv = _mm256_loadu_si256((const __m256i *)(q + 32 * (j)));                          \
        __m256i lo = _mm256_or_si256(                                                              \
            _mm256_and_si256(qv, m4),                                                              \
            _mm256_and_si256(_mm256_slli_epi16(_mm256_srli_epi16(hb, 2 * (j)), 4), m16));          \
        __m256i hi = _mm256_or_si256(                                                              \
            _mm256_and_si256(_mm256_srli_epi16(qv, 4), m4),                                        \
            _mm256_and_si256(_mm256_slli_epi16(_mm256_srli_epi16(hb, 2 * (j) + 1), 4), m16));      \
        __m256i pl =                                                                               \
            _mm256_maddubs_epi16(lo, _mm256_loadu_si256((const __m256i *)(y + 64 * (j))));         \
        __m256i ph =                                                                               \
            _mm256_maddubs_epi16(hi, _mm256_loadu_si256((const __m256i *)(y + 64 * (j) + 32)));    \
        u0 = _mm256_add_epi32(u0, _mm256_madd_epi16(pl, _mm256_shuffle_epi8(s16, ka)));            \
        u1 = _mm256_add_epi32(u1, _mm256_madd_epi16(ph, _mm256_shuffle_epi8(s16, kb)));            \
    } while (0)
        RF__Q5_K_CHUNK(0, k0, k1);
        RF__Q5_K_CHUNK(1, k2, k3);
        RF__Q5_K_CHUNK(2, k4, k5);
        RF__Q5_K_CHUNK(3, k6, k7);
#undef RF__Q5_K_CHUNK
        acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd),
                              _mm256_cvtepi32_ps(_mm256_add_epi32(u0, u1)), acc);
    }
    __m128 m = _mm_add_ps(accm, _mm_movehl_ps(accm, accm));
    m = _mm_add_ss(m, _mm_movehdup_ps(m));
    return rf__hsum256(acc) - _mm_cvtss_f32(m);
}

#endif
