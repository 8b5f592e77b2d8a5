/* qkernels_x86_q23.c — AVX2 and AVX-512 VNNI dot products of Q2_K and Q3_K rows against Q8_K
 * activations (issue 28). Both types keep 32 bytes of 2-bit quants per 128 weights, four weights
 * a byte 32 apart, so one load and one shift per 32 weights gives 32 unsigned quants (Q3_K adds
 * its third bit from the 32 bytes of hmask, shifted to bit 2); vpmaddubsw multiplies them by the
 * activation's bytes into pair sums, and each 16-weight sub-block's scale multiplies its eight
 * pair sums into dwords: vpdpwssd with VNNI (on ymm, as qkernels_avx512.c's Q4_K and Q6_K), a
 * vpmaddwd and an add without. Q2_K's minimums come off through the activation's sums of 16
 * (one vpmaddwd a block), Q3_K's offset of 4 the same way. Target attributes only; the tables of
 * qkernels_avx2.c and qkernels_avx512.c hold them and qkernels.c decides which runs. Checked
 * against qkernels_q23.c by tests/unit/test_qkernels.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define RF__TARGET_AVX512_VNNI                                                                     \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

/* acc + b . c summed in pairs into dwords */
#define RF__DPW_AVX2(acc, b, c) _mm256_add_epi32((acc), _mm256_madd_epi16((b), (c)))
#define RF__DPW_VNNI(acc, b, c) _mm256_dpwssd_epi32((acc), (b), (c))

/* Q3_K's 16 scales (6 bits, less 32) as bytes, from the 12 packed ones: the low nibbles of bytes
 * 0..7 then their high nibbles, each with two bits of bytes 8..11 on top (rf__q3_k_scales):
 * dword k of the top bytes shifted by 2k and masked holds the top bits of scales 4k .. 4k+3. */
__attribute__((target("avx2"))) static inline __m128i rf__q3_k_scales128(const uint8_t *p)
{
    uint64_t lo;
    uint32_t top;
    memcpy(&lo, p, 8);
    memcpy(&top, p + 8, 4);
    const __m128i m4 = _mm_set1_epi8(0xf);
    __m128i l = _mm_cvtsi64_si128((long long)lo);
    __m128i nib = _mm_unpacklo_epi64(_mm_and_si128(l, m4), _mm_and_si128(_mm_srli_epi16(l, 4), m4));
    __m128i hi = _mm_and_si128(_mm_srlv_epi32(_mm_set1_epi32((int)top), _mm_setr_epi32(0, 2, 4, 6)),
                               _mm_set1_epi8(3));
    return _mm_sub_epi8(_mm_or_si128(nib, _mm_slli_epi16(hi, 4)), _mm_set1_epi8(32));
}

/* The sixteen int16 scales s16 of a block, half n (scales 8n .. 8n+7) in both 128-bit lanes. */
#define RF__HALF_SCALES(s16, n)                                                                    \
    ((n) ? _mm256_permute2x128_si256((s16), (s16), 0x11)                                           \
         : _mm256_permute2x128_si256((s16), (s16), 0x00))

/* Byte pairs picking int16 scale 2j (low lane) and 2j + 1 (high lane) of eight: the scales of
 * the two sub-blocks of 16 weights in 32 (vpmaddubsw's sums 0..7 and 8..15). */
#define RF__PAIR_PICK(j)                                                                           \
    _mm256_set_m128i(_mm_set1_epi16((short)(0x0302 + 0x0404 * (j))),                               \
                     _mm_set1_epi16((short)(0x0100 + 0x0404 * (j))))

/* The 4 x 32 weights q0..q3 of half a super-block against the activations y (32 apart), each
 * pair of 16 scaled by its sub-block's scale (sh shuffled by k0..k3), into u0 and u1 (Q2_K and
 * Q3_K alike). */
#define RF__Q23_HALF_SUMS(DPW)                                                                     \
    do {                                                                                           \
        u0 = DPW(u0, _mm256_maddubs_epi16(q0, _mm256_loadu_si256((const __m256i *)y)),             \
                 _mm256_shuffle_epi8(sh, k0));                                                     \
        u1 = DPW(u1, _mm256_maddubs_epi16(q1, _mm256_loadu_si256((const __m256i *)(y + 32))),      \
                 _mm256_shuffle_epi8(sh, k1));                                                     \
        u0 = DPW(u0, _mm256_maddubs_epi16(q2, _mm256_loadu_si256((const __m256i *)(y + 64))),      \
                 _mm256_shuffle_epi8(sh, k2));                                                     \
        u1 = DPW(u1, _mm256_maddubs_epi16(q3, _mm256_loadu_si256((const __m256i *)(y + 96))),      \
                 _mm256_shuffle_epi8(sh, k3));                                                     \
    } while (0)

/* Q2_K . Q8_K: sumi = sum over sub-blocks of scale . (q . x), msum = sum of min . (sum of x). */
#define RF__Q2_K_KERNEL(NAME, TARGET, DPW)                                                         \
    TARGET float NAME(const void *w, const void *act, size_t k)                                    \
    {                                                                                              \
        const rf__block_q2_k *b = w;                                                               \
        const rf__block_q8_k *a = act;                                                             \
        const __m256i m3 = _mm256_set1_epi8(3);                                                    \
        const __m128i m4 = _mm_set1_epi8(0xf);                                                     \
        const __m256i k0 = RF__PAIR_PICK(0), k1 = RF__PAIR_PICK(1), k2 = RF__PAIR_PICK(2),         \
                      k3 = RF__PAIR_PICK(3);                                                       \
        __m256 acc = _mm256_setzero_ps(), accm = acc;                                              \
        for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {                                         \
            RF__PREFETCH_BLOCK(b + i, sizeof *b);                                                  \
            __m128i s8 = _mm_loadu_si128((const __m128i *)b[i].scales);                            \
            __m256i sc = _mm256_cvtepu8_epi16(_mm_and_si128(s8, m4));                              \
            __m256i mn = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s8, 4), m4));           \
            __m256i pm = _mm256_madd_epi16(mn, _mm256_loadu_si256((const __m256i *)a[i].bsums));   \
            __m256i u0 = _mm256_setzero_si256(), u1 = u0;                                          \
            for (int n = 0; n < 2; n++) {                                                          \
                const int8_t *y = a[i].qs + 128 * n;                                               \
                __m256i qv = _mm256_loadu_si256((const __m256i *)(b[i].qs + 32 * n));              \
                __m256i sh = RF__HALF_SCALES(sc, n);                                               \
                __m256i q0 = _mm256_and_si256(qv, m3),                                             \
                        q1 = _mm256_and_si256(_mm256_srli_epi16(qv, 2), m3),                       \
                        q2 = _mm256_and_si256(_mm256_srli_epi16(qv, 4), m3),                       \
                        q3 = _mm256_and_si256(_mm256_srli_epi16(qv, 6), m3);                       \
                RF__Q23_HALF_SUMS(DPW);                                                            \
            }                                                                                      \
            /* d and dmin (adjacent) times the activation's scale in one conversion */             \
            uint32_t dm;                                                                           \
            memcpy(&dm, &b[i].d, 4);                                                               \
            __m128 dd = _mm_mul_ps(_mm_cvtph_ps(_mm_cvtsi32_si128((int)dm)), _mm_set1_ps(a[i].d)); \
            acc = _mm256_fmadd_ps(_mm256_broadcastss_ps(dd),                                       \
                                  _mm256_cvtepi32_ps(_mm256_add_epi32(u0, u1)), acc);              \
            accm = _mm256_fmadd_ps(_mm256_broadcastss_ps(_mm_movehdup_ps(dd)),                     \
                                   _mm256_cvtepi32_ps(pm), accm);                                  \
        }                                                                                          \
        return rf__hsum256(_mm256_sub_ps(acc, accm));                                              \
    }

/* Q3_K . Q8_K: sumi = sum over sub-blocks of scale . (q . x - 4 . sum of x), q = 0..7. The third
 * bit of the 32 weights c of 128 (c = 0..3) of half n is bit 4n + c of the hmask bytes: bit c of
 * hn (hmask, shifted down by 4 for n = 1) moved to bit 2 and masked (every shift stays inside
 * the byte it reads). */
#define RF__Q3_HIGH0(h) _mm256_and_si256(_mm256_slli_epi16((h), 2), m4b)
#define RF__Q3_HIGH1(h) _mm256_and_si256(_mm256_slli_epi16((h), 1), m4b)
#define RF__Q3_HIGH2(h) _mm256_and_si256((h), m4b)
#define RF__Q3_HIGH3(h) _mm256_and_si256(_mm256_srli_epi16((h), 1), m4b)
#define RF__Q3_K_KERNEL(NAME, TARGET, DPW)                                                         \
    TARGET float NAME(const void *w, const void *act, size_t k)                                    \
    {                                                                                              \
        const rf__block_q3_k *b = w;                                                               \
        const rf__block_q8_k *a = act;                                                             \
        const __m256i m3 = _mm256_set1_epi8(3), m4b = _mm256_set1_epi8(4);                         \
        const __m256i k0 = RF__PAIR_PICK(0), k1 = RF__PAIR_PICK(1), k2 = RF__PAIR_PICK(2),         \
                      k3 = RF__PAIR_PICK(3);                                                       \
        __m256 acc = _mm256_setzero_ps();                                                          \
        for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {                                         \
            RF__PREFETCH_BLOCK(b + i, sizeof *b);                                                  \
            __m256i sc = _mm256_cvtepi8_epi16(rf__q3_k_scales128(b[i].scales));                    \
            /* -4 . sum over sub-blocks of scale . (sum of x) */                                   \
            __m256i u0 = _mm256_sub_epi32(                                                         \
                        _mm256_setzero_si256(),                                                    \
                        _mm256_slli_epi32(_mm256_madd_epi16(sc, _mm256_loadu_si256(                \
                                                                    (const __m256i *)a[i].bsums)), \
                                          2)),                                                     \
                    u1 = _mm256_setzero_si256();                                                   \
            __m256i hm = _mm256_loadu_si256((const __m256i *)b[i].hmask);                          \
            for (int n = 0; n < 2; n++) {                                                          \
                const int8_t *y = a[i].qs + 128 * n;                                               \
                __m256i qv = _mm256_loadu_si256((const __m256i *)(b[i].qs + 32 * n));              \
                __m256i sh = RF__HALF_SCALES(sc, n), hn = n ? _mm256_srli_epi16(hm, 4) : hm;       \
                __m256i q0 = _mm256_or_si256(_mm256_and_si256(qv, m3), RF__Q3_HIGH0(hn)),          \
                        q1 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qv, 2), m3),       \
                                             RF__Q3_HIGH1(hn)),                                    \
                        q2 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qv, 4), m3),       \
                                             RF__Q3_HIGH2(hn)),                                    \
                        q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(qv, 6), m3),       \
                                             RF__Q3_HIGH3(hn));                                    \
                RF__Q23_HALF_SUMS(DPW);                                                            \
            }                                                                                      \
            acc = _mm256_fmadd_ps(_mm256_set1_ps(_cvtsh_ss(b[i].d) * a[i].d),                      \
                                  _mm256_cvtepi32_ps(_mm256_add_epi32(u0, u1)), acc);              \
        }                                                                                          \
        return rf__hsum256(acc);                                                                   \
    }

RF__Q2_K_KERNEL(rf__dot_q2_k_avx2, RF__TARGET_AVX2, RF__DPW_AVX2)
RF__Q3_K_KERNEL(rf__dot_q3_k_avx2, RF__TARGET_AVX2, RF__DPW_AVX2)
RF__Q2_K_KERNEL(rf__dot_q2_k_avx512, RF__TARGET_AVX512_VNNI, RF__DPW_VNNI)
RF__Q3_K_KERNEL(rf__dot_q3_k_avx512, RF__TARGET_AVX512_VNNI, RF__DPW_VNNI)

#endif
