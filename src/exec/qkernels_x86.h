/* qkernels_x86.h — what the AVX2 and AVX-512 quantized kernels share: the unpacking of Q6_K's
 * 6-bit values with 256-bit integer operations (both kernels accumulate at their own width) and
 * the horizontal sum of eight floats, Q4_K's packed scales and mins, the prefetch distance.
 * Included by qkernels_avx2.c and qkernels_avx512.c only, after <immintrin.h>. */
#ifndef RF_EXEC_QKERNELS_X86_H
#define RF_EXEC_QKERNELS_X86_H

#include <stdint.h>
#include <string.h>

/* The 128 values of half a Q6_K block (ql: 64 bytes of low nibbles, qh: 32 bytes of high bit
 * pairs) as four vectors of 32 unsigned bytes (0..63, the offset of 32 not taken off): v[g]
 * holds values 32g .. 32g+31. An AVX2 function, inlined into the AVX-512 kernel too (a superset
 * target). */
__attribute__((target("avx2"))) static inline void
rf__q6_k_unpack256(const uint8_t *ql, const uint8_t *qh, __m256i v[4])
{
    const __m256i m4 = _mm256_set1_epi8(0xf), m2 = _mm256_set1_epi8(3);
    __m256i l0 = _mm256_loadu_si256((const __m256i *)ql);
    __m256i l1 = _mm256_loadu_si256((const __m256i *)(ql + 32));
    __m256i h = _mm256_loadu_si256((const __m256i *)qh);
    v[0] = _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m2), 4));
    v[1] = _mm256_or_si256(_mm256_and_si256(l1, m4),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m2), 4));
    v[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m2), 4));
    v[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                           _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m2), 4));
}

/* Decode streams each weight matrix once from DRAM, one row after the other. The hardware
 * prefetchers alone kept one core at 6-7 GB/s of a 1B Q8_0 model on a Xeon with a 300 MB L3
 * (the kernel itself consumes 16 GB/s from L2): every kernel asks for the line this many bytes
 * ahead of each one it reads (past the row's end: the next row's, which it reads next). 4 KiB
 * measured best among 0.25 to 16 KiB (2 cores: 11-13 -> 19-22 GB/s). A prefetch never faults. */
#define RF__PREFETCH_AHEAD_BYTES 4096
/* Touch the lines from p + RF__PREFETCH_AHEAD_BYTES over `bytes` bytes (a block; called once
 * per block of the stream, so the addresses it touches are at most 64 bytes apart). */
#define RF__PREFETCH_BLOCK(p, bytes)                                                               \
    do {                                                                                           \
        for (int rf__o = 0; rf__o < (int)(bytes); rf__o += 64)                                     \
            _mm_prefetch((const char *)(p) + RF__PREFETCH_AHEAD_BYTES + rf__o, _MM_HINT_T0);       \
    } while (0)

/* The 6-bit scales and mins of a Q4_K (and Q5_K) block as 8 bytes each (sub-blocks 0..7). */
static inline void rf__q4_k_scales_mins(const uint8_t *q, uint64_t *sc, uint64_t *mn)
{
    uint32_t u[3];
    memcpy(u, q, 12);
    *sc = (u[0] & 0x3f3f3f3fu) | (uint64_t)((u[2] & 0x0f0f0f0fu) | ((u[0] >> 6) & 0x03030303u) << 4)
                                     << 32;
    *mn = (u[1] & 0x3f3f3f3fu) |
          (uint64_t)(((u[2] >> 4) & 0x0f0f0f0fu) | ((u[1] >> 6) & 0x03030303u) << 4) << 32;
}

/* The sum of a vector's eight floats (both kernels end their dot products with it). */
__attribute__((target("avx2"))) static inline float rf__hsum256(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

#endif
