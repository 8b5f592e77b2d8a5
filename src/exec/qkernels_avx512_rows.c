/* qkernels_avx512_rows.c — decode's dot products of many weight rows at once against one
 * activation (issue 28: Q4_0 and Q4_1 decode at llama.cpp's speed). A row kernel pays per
 * 32-weight block for the activation's loads and for its scalar scales (the weight's F16 d times
 * the activation's d, broadcast); for Q4_0's 18-byte blocks that cost more than the multiply (27
 * to 33 cycles per 256 weights, 10 GB/s from L2 on one core). Two kernels, the file's layout as
 * it is (no repack at load): with VBMI (the one chosen where the CPU has it), four blocks of a row
 * in one zmm by a byte permute and their F16 scales (and Q4_1's minimums) by a word permute, the
 * activation rearranged once per call for all its rows (16-18 cycles per 256 weights); without,
 * Q4_0 eight rows at a time, four rows' nibbles a zmm, sharing each activation block and making
 * the eight scales in one F16 conversion (20 cycles). Target attributes only; qkernels.c's
 * rf__rows_dot_get decides which runs (AVX-512 F, BW, VL and VNNI; VBMI by cpuid). Checked against
 * dequantise-then-dot by tests/unit/test_qkernels_rows.c. */
#include <string.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "exec/qkernels_x86.h"

#define RF__TARGET_AVX512_VNNI                                                                     \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")))

/* Each 128-bit lane's four floats summed: lane l of v gives y[l]. */
RF__TARGET_AVX512_VNNI static __m128 rf__lane_sums(__m512 v)
{
    /* transpose-free: pairwise adds within lanes, then the four lane totals gathered */
    __m512 t = _mm512_add_ps(v, _mm512_permute_ps(v, 0x4e)); /* (0+2, 1+3, 2+0, 3+1) */
    t = _mm512_add_ps(t, _mm512_permute_ps(t, 0xb1));        /* every element: the lane sum */
    return _mm512_castps512_ps128(_mm512_permutexvar_ps(
        _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), t));
}

static uint16_t rf__u16at(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* Q4_0 . Q8_32 for nr (1..8) rows row_bytes apart: y[r] = row r . a. */
RF__TARGET_AVX512_VNNI static void rf__rows_dot_q4_0_8(const void *w, size_t row_bytes, unsigned nr,
                                                       const void *act, size_t k, float *y)
{
    const uint8_t *p[8];
    for (unsigned r = 0; r < 8; r++) /* missing rows: the last one again */
        p[r] = (const uint8_t *)w + (r < nr ? r : nr - 1) * row_bytes;
    const rf__block_q8_32 *a = act;
    const __m512i m4 = _mm512_set1_epi8(0xf);
    const __m512i e0 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3),
                  e1 = _mm512_add_epi32(e0, _mm512_set1_epi32(4));
    /* the next rows' bytes (the block of rows after this one), a share of them per block */
    const uint8_t *next = (const uint8_t *)w + 8 * row_bytes;
    const size_t nb = k / 32, ahead = (8 * row_bytes + nb - 1) / nb;
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    for (size_t i = 0; i < nb; i++) {
        const size_t o = 18 * i;
        for (size_t f = 0; f < ahead; f += 64)
            _mm_prefetch((const char *)next + ahead * i + f, _MM_HINT_T0);
#define RF__LOAD4(r0)                                                                              \
    _mm512_inserti32x4(                                                                            \
        _mm512_inserti32x4(                                                                        \
            _mm512_inserti32x4(                                                                    \
                _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(p[r0] + o + 2))),         \
                _mm_loadu_si128((const __m128i *)(p[r0 + 1] + o + 2)), 1),                         \
            _mm_loadu_si128((const __m128i *)(p[r0 + 2] + o + 2)), 2),                             \
        _mm_loadu_si128((const __m128i *)(p[r0 + 3] + o + 2)), 3)
        __m512i q0 = RF__LOAD4(0), q1 = RF__LOAD4(4);
#undef RF__LOAD4
        __m512i xl = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)a[i].qs));
        __m512i xh = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(a[i].qs + 16)));
        __m512i z = _mm512_set1_epi32(-2 * a[i].sum); /* 4 lanes a row: -8 . sum x */
        __m512i s0 = _mm512_dpbusd_epi32(z, _mm512_and_si512(q0, m4), xl);
        __m512i s1 = _mm512_dpbusd_epi32(z, _mm512_and_si512(q1, m4), xl);
        s0 = _mm512_dpbusd_epi32(s0, _mm512_and_si512(_mm512_srli_epi16(q0, 4), m4), xh);
        s1 = _mm512_dpbusd_epi32(s1, _mm512_and_si512(_mm512_srli_epi16(q1, 4), m4), xh);
        uint64_t d0 = (uint64_t)rf__u16at(p[0] + o) | (uint64_t)rf__u16at(p[1] + o) << 16 |
                      (uint64_t)rf__u16at(p[2] + o) << 32 | (uint64_t)rf__u16at(p[3] + o) << 48;
        uint64_t d1 = (uint64_t)rf__u16at(p[4] + o) | (uint64_t)rf__u16at(p[5] + o) << 16 |
                      (uint64_t)rf__u16at(p[6] + o) << 32 | (uint64_t)rf__u16at(p[7] + o) << 48;
        __m256 d = _mm256_mul_ps(_mm256_cvtph_ps(_mm_set_epi64x((long long)d1, (long long)d0)),
                                 _mm256_set1_ps(a[i].d));
        __m512 dz = _mm512_castps256_ps512(d);
        acc0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0), _mm512_permutexvar_ps(e0, dz), acc0);
        acc1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s1), _mm512_permutexvar_ps(e1, dz), acc1);
    }
    float out[8];
    _mm_storeu_ps(out, rf__lane_sums(acc0));
    _mm_storeu_ps(out + 4, rf__lane_sums(acc1));
    for (unsigned r = 0; r < nr; r++) y[r] = out[r];
}

/* ... for any nr: eight rows a time */
RF__TARGET_AVX512_VNNI static void rf__rows_dot_q4_0(const void *w, size_t row_bytes, unsigned nr,
                                                     const void *act, size_t k, float *y)
{
    for (unsigned r = 0; r < nr; r += 8)
        rf__rows_dot_q4_0_8((const uint8_t *)w + r * row_bytes, row_bytes, nr - r < 8 ? nr - r : 8,
                            act, k, y + r);
}

/* ---- with VBMI (Ice Lake and later): four blocks of a row in one zmm, taken from the file's
 * 18-byte blocks by one byte permute (vpermt2b) and their four scales by one word permute, so a
 * row costs per four blocks what the kernel above pays per block for its scales. The activation
 * of up to RF__Q4_0_CHUNK blocks is rearranged once per call to match (lane b: block b of the
 * four) and read by all the call's rows (the driver passes RF__ROWS_DOT_MAX), each row then one
 * stream. */
#define RF__TARGET_AVX512_VBMI                                                                     \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi,avx2,fma,f16c")))
#define RF__Q4_0_CHUNK 256 /* blocks of activation rearranged at a time (K = 8192: 16 KiB) */

/* The 32-weight blocks of bb bytes with 16 bytes of nibbles at qo, the F16 d at 0 and (mo > 0)
 * the F16 minimum m at mo: w = d . (q - off) (+ m); off 8 for Q4_0, 0 for Q4_1. */
RF__TARGET_AVX512_VBMI static inline __attribute__((always_inline)) void
rf__rows_dot_nib_vbmi(const void *w, size_t row_bytes, unsigned nr, const void *act, size_t k,
                      float *y, const int bb, const int qo, const int mo, const int off)
{
    const rf__block_q8_32 *a = act;
    const size_t nb = k / 32;
    const __m512i m4 = _mm512_set1_epi8(0xf);
    const __m512i e4 = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    /* byte 16 b + t of a group: quant byte t of block b (bb b + qo + t); word 4 b + t: its d
     * (and its m) */
    uint8_t iq[64];
    uint16_t id[32], im[32];
    for (int b = 0; b < 4; b++)
        for (int t = 0; t < 16; t++) iq[16 * b + t] = (uint8_t)(bb * b + qo + t);
    for (int j = 0; j < 32; j++) {
        id[j] = (uint16_t)(j < 16 ? bb / 2 * (j / 4) : 0);
        im[j] = (uint16_t)(j < 16 ? bb / 2 * (j / 4) + mo / 2 : 0);
    }
    const __m512i pq = _mm512_loadu_si512(iq), pd = _mm512_loadu_si512(id),
                  pm = _mm512_loadu_si512(im);
    __m512i xl[RF__Q4_0_CHUNK / 4], xh[RF__Q4_0_CHUNK / 4], zs[RF__Q4_0_CHUNK / 4];
    __m512 da[RF__Q4_0_CHUNK / 4], ds[RF__Q4_0_CHUNK / 4];
    for (unsigned r = 0; r < nr; r++) y[r] = 0;
    for (size_t c0 = 0; c0 < nb; c0 += RF__Q4_0_CHUNK) {
        size_t cn = nb - c0 < RF__Q4_0_CHUNK ? nb - c0 : RF__Q4_0_CHUNK, ng = (cn + 3) / 4;
        for (size_t g = 0; g < ng; g++) { /* missing blocks of a last group: zeros */
            __m128i l[4], h[4];
            int32_t sv[4];
            float dv[4], sd[4];
            for (size_t b = 0; b < 4; b++) {
                size_t i = c0 + 4 * g + b;
                int in = i < c0 + cn;
                l[b] = in ? _mm_loadu_si128((const __m128i *)a[i].qs) : _mm_setzero_si128();
                h[b] = in ? _mm_loadu_si128((const __m128i *)(a[i].qs + 16)) : _mm_setzero_si128();
                sv[b] = in ? -off / 4 * a[i].sum : 0; /* four lanes a block: -off . sum x */
                dv[b] = in ? a[i].d : 0.0f;
                sd[b] = in ? 0.25f * a[i].d * (float)a[i].sum : 0.0f; /* m's: a quarter a lane */
            }
            xl[g] = _mm512_inserti32x4(
                _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(l[0]), l[1], 1), l[2],
                                   2),
                l[3], 3);
            xh[g] = _mm512_inserti32x4(
                _mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(h[0]), h[1], 1), h[2],
                                   2),
                h[3], 3);
            zs[g] = _mm512_permutexvar_epi32(
                e4, _mm512_castsi128_si512(_mm_setr_epi32(sv[0], sv[1], sv[2], sv[3])));
            da[g] = _mm512_permutexvar_ps(
                e4, _mm512_castps128_ps512(_mm_setr_ps(dv[0], dv[1], dv[2], dv[3])));
            if (mo > 0)
                ds[g] = _mm512_permutexvar_ps(
                    e4, _mm512_castps128_ps512(_mm_setr_ps(sd[0], sd[1], sd[2], sd[3])));
        }
        const size_t full = cn / 4, tail = (size_t)bb * (cn % 4); /* bytes of a last group */
        const __mmask64 tl = tail >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << tail) - 1,
                        th = tail > 64 ? ((__mmask64)1 << (tail - 64)) - 1 : 0;
        for (unsigned r = 0; r < nr; r++) {
            const uint8_t *row = (const uint8_t *)w + r * row_bytes + (size_t)bb * c0;
            __m512 t0 = _mm512_setzero_ps(), t1 = t0;
            for (size_t g = 0; g < ng; g++, row += 4 * bb) {
                RF__PREFETCH_BLOCK(row, 4 * bb);
                __m512i lo, hi;
                if (g < full) {
                    lo = _mm512_loadu_si512(row);
                    hi = _mm512_maskz_loadu_epi8(((__mmask64)1 << (4 * bb - 64)) - 1, row + 64);
                } else {
                    lo = _mm512_maskz_loadu_epi8(tl, row);
                    hi = _mm512_maskz_loadu_epi8(th, row + 64);
                }
                __m512i q = _mm512_permutex2var_epi8(lo, pq, hi);
                __m512 dw =
                    _mm512_cvtph_ps(_mm512_castsi512_si256(_mm512_permutex2var_epi16(lo, pd, hi)));
                __m512i s = _mm512_dpbusd_epi32(zs[g], _mm512_and_si512(q, m4), xl[g]);
                s = _mm512_dpbusd_epi32(s, _mm512_and_si512(_mm512_srli_epi16(q, 4), m4), xh[g]);
                if (mo > 0)
                    t1 = _mm512_fmadd_ps(_mm512_cvtph_ps(_mm512_castsi512_si256(
                                             _mm512_permutex2var_epi16(lo, pm, hi))),
                                         ds[g], t1);
                if (g & 1)
                    t1 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, da[g]), t1);
                else
                    t0 = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), _mm512_mul_ps(dw, da[g]), t0);
            }
            y[r] += _mm512_reduce_add_ps(_mm512_add_ps(t0, t1));
        }
    }
}

RF__TARGET_AVX512_VBMI static void rf__rows_dot_q4_0_vbmi(const void *w, size_t row_bytes,
                                                          unsigned nr, const void *act, size_t k,
                                                          float *y)
{
    rf__rows_dot_nib_vbmi(w, row_bytes, nr, act, k, y, 18, 2, 0, 8);
}

RF__TARGET_AVX512_VBMI static void rf__rows_dot_q4_1_vbmi(const void *w, size_t row_bytes,
                                                          unsigned nr, const void *act, size_t k,
                                                          float *y)
{
    rf__rows_dot_nib_vbmi(w, row_bytes, nr, act, k, y, 20, 4, 2, 0);
}

const rf__rows_dot_fn rf__rows_dot_avx512[RF__WEIGHT_TYPES] = {[RF__WEIGHT_Q4_0] =
                                                                   rf__rows_dot_q4_0};
const rf__rows_dot_fn rf__rows_dot_avx512_vbmi[RF__WEIGHT_TYPES] = {
    [RF__WEIGHT_Q4_0] = rf__rows_dot_q4_0_vbmi, [RF__WEIGHT_Q4_1] = rf__rows_dot_q4_1_vbmi};
#else
const rf__rows_dot_fn rf__rows_dot_avx512[RF__WEIGHT_TYPES] = {0};
const rf__rows_dot_fn rf__rows_dot_avx512_vbmi[RF__WEIGHT_TYPES] = {0};
#endif
