/* qgemm_avx512.c — the AVX-512 VNNI kernel of the prefill products (qgemm.h): a tile of two
 * groups of 16 packed weight rows (32 output columns) by up to RF__QGEMM_MR activation rows. Per
 * block, each 4-value slice of a group's 16 rows is loaded once (one zmm of u8) and multiplied by
 * vpdpbusd into an int32 lane per row against each activation row's 4 int8 values broadcast; the
 * block's integer sums are then scaled (a . dx) and the offsets added (b . sum x) in F32. Every
 * loop has constant bounds and is unrolled, so the 2 x 6 integer and 2 x 6 F32 accumulators stay
 * in registers (8 loads per 12 vpdpbusd). Compiled with target attributes only; qgemm.c picks it
 * when the CPU runs AVX-512 with VNNI (rf__kernel_isa_best). */
#include <string.h>

#include "exec/qgemm.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define RF__TARGET_F __attribute__((target("avx512f")))
#define RF__INLINE inline __attribute__((always_inline))

/* G groups (1 or 2) by MS activation rows, NT 4-value slices per block (blk / 4). */
RF__TARGET_VNNI static RF__INLINE void rf__qg_tile(const rf__qgemm_w *w, uint64_t g,
                                                   const rf__qgemm_act *a, uint64_t s0, float *y,
                                                   size_t ldy, unsigned nr, const int G,
                                                   const int MS, const int NT, const int F16)
{
    const uint64_t nb = w->K / (uint64_t)w->blk, K = w->K;
    const int blk = 4 * NT;
    const int8_t *xq = a->q + s0 * K;
    const float *xd = a->d + s0 * nb, *xs = a->s + s0 * nb;
    __m512 acc[2][RF__QGEMM_MR];
#pragma GCC unroll 16
    for (int s = 0; s < MS; s++) acc[0][s] = acc[1][s] = _mm512_setzero_ps();
    /* block j at (j / 2) pairs and (j % 2) halves from the group: the Q8_0 form pairs its blocks,
     * the F32 one is a pair of two blocks of block_bytes */
    const size_t pair = F16 ? 1088 : 2 * w->block_bytes, half = F16 ? 512 : w->block_bytes,
                 soff = F16 ? 1024 : 16 * (size_t)blk, shalf = F16 ? 32 : w->block_bytes;
    const uint8_t *b0 = w->data + (size_t)g * w->group_bytes,
                  *b1 = G == 2 ? b0 + w->group_bytes : b0;
    for (uint64_t j = 0; j < nb; j++) {
        size_t at = (size_t)(j / 2) * pair;
        const uint8_t *o0 = b0 + at + (j % 2) * half, *o1 = b1 + at + (j % 2) * half;
        __m512i ia[2][RF__QGEMM_MR];
#pragma GCC unroll 16
        for (int s = 0; s < MS; s++) ia[0][s] = ia[1][s] = _mm512_setzero_si512();
        const int8_t *xj = xq + j * (uint64_t)blk;
#pragma GCC unroll 16
        for (int t = 0; t < NT; t++) {
            __m512i w0 = _mm512_load_si512((const void *)(o0 + 64 * t)), w1 = w0;
            if (G == 2) w1 = _mm512_load_si512((const void *)(o1 + 64 * t));
#pragma GCC unroll 16
            for (int s = 0; s < MS; s++) {
                int32_t xv;
                memcpy(&xv, xj + (uint64_t)s * K + 4 * t, 4);
                __m512i xb = _mm512_set1_epi32(xv);
                ia[0][s] = _mm512_dpbusd_epi32(ia[0][s], w0, xb);
                if (G == 2) ia[1][s] = _mm512_dpbusd_epi32(ia[1][s], w1, xb);
            }
        }
#pragma GCC unroll 2
        for (int gg = 0; gg < G; gg++) {
            const uint8_t *sp = (gg ? b1 : b0) + at + soff + (j % 2) * shalf;
            __m512 av, bv;
            if (F16) { /* Q8_0: a = d, b = -128 d */
                av = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(const void *)sp));
                bv = _mm512_mul_ps(av, _mm512_set1_ps(-128.0f));
            } else {
                av = _mm512_load_ps((const float *)(const void *)sp);
                bv = _mm512_load_ps((const float *)(const void *)sp + 16);
            }
#pragma GCC unroll 16
            for (int s = 0; s < MS; s++) {
                __m512 sc = _mm512_mul_ps(av, _mm512_set1_ps(xd[(uint64_t)s * nb + j]));
                acc[gg][s] = _mm512_fmadd_ps(sc, _mm512_cvtepi32_ps(ia[gg][s]), acc[gg][s]);
                acc[gg][s] =
                    _mm512_fmadd_ps(bv, _mm512_set1_ps(xs[(uint64_t)s * nb + j]), acc[gg][s]);
            }
        }
    }
    __mmask16 m0 = (__mmask16)(nr >= 16 ? 0xffffu : (1u << nr) - 1);
    __mmask16 m1 = (__mmask16)(nr >= 32 ? 0xffffu : nr > 16 ? (1u << (nr - 16)) - 1 : 0);
#pragma GCC unroll 16
    for (int s = 0; s < MS; s++) {
        _mm512_mask_storeu_ps(y + s * ldy, m0, acc[0][s]);
        if (G == 2) _mm512_mask_storeu_ps(y + s * ldy + 16, m1, acc[1][s]);
    }
}

#define RF__QG_CASE(G, MS)                                                                         \
    case (G)*8 + (MS):                                                                             \
        if (w->f16_scales)                                                                         \
            rf__qg_tile(w, g, a, s0, y, ldy, nr, G, MS, 8, 1);                                     \
        else if (w->blk == 32)                                                                     \
            rf__qg_tile(w, g, a, s0, y, ldy, nr, G, MS, 8, 0);                                     \
        else                                                                                       \
            rf__qg_tile(w, g, a, s0, y, ldy, nr, G, MS, 4, 0);                                     \
        break

RF__TARGET_VNNI static void rf__qgemm_avx512(const rf__qgemm_w *w, uint64_t g, unsigned ng,
                                             const rf__qgemm_act *a, uint64_t s0, unsigned ms,
                                             unsigned nr, float *y, size_t ldy)
{
    switch ((ng == 2 ? 2 : 1) * 8 + (ms > RF__QGEMM_MR ? RF__QGEMM_MR : ms)) {
        RF__QG_CASE(2, 6);
        RF__QG_CASE(2, 5);
        RF__QG_CASE(2, 4);
        RF__QG_CASE(2, 3);
        RF__QG_CASE(2, 2);
        RF__QG_CASE(2, 1);
        RF__QG_CASE(1, 6);
        RF__QG_CASE(1, 5);
        RF__QG_CASE(1, 4);
        RF__QG_CASE(1, 3);
        RF__QG_CASE(1, 2);
        RF__QG_CASE(1, 1);
    default: break;
    }
}

rf__qgemm_kernel_fn rf__qgemm_kernel_avx512(void)
{
    return rf__qgemm_avx512;
}

/* Decode on the packed Q8_0 form: per block, eight zmm of 4 quants of each of 16 rows (q + 128)
 * by vpdpbusd against 4 activation bytes broadcast, the +128 taken off by starting the lanes at
 * -128 . sum xq; then times d . dx into F32. Two integer chains (even and odd slices). The stream
 * (quants and scales in one run of whole lines) prefetched RF__PREFETCH_AHEAD_BYTES ahead, a pair
 * of blocks (17 lines) at a time, into L2 (T1), and the next pair from L2 into L1 (T0): with two
 * cores streaming a 1B model's matrices on a 2-vCPU Emerald Rapids guest, 12% more bytes a second
 * than T0 alone at 4 KiB ahead and 8% more than T1 alone (step-by-step A/B of the whole set). */
#define RF__QGEMV_AHEAD 4096 /* RF__PREFETCH_AHEAD_BYTES */
RF__TARGET_VNNI static void rf__qgemv_avx512(const rf__qgemm_w *w, uint64_t g, const void *act,
                                             unsigned nr, float *y)
{
    const rf__block_q8_32 *a = act;
    const uint64_t nb = w->K / 32;
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    for (uint64_t j = 0; j < nb; j++) {
        const uint8_t *o = rf__qgemm_quants(w, g, j);
        if (j % 2 == 0)
            for (int l = 0; l < 1088; l += 64) {
                _mm_prefetch((const char *)o + RF__QGEMV_AHEAD + l, _MM_HINT_T1);
                _mm_prefetch((const char *)o + 1088 + l, _MM_HINT_T0); /* the next pair */
            }
        const int32_t *xv = (const int32_t *)(const void *)a[j].qs;
        __m512i s0 = _mm512_set1_epi32(-128 * a[j].sum), s1 = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int t = 0; t < 8; t += 2) {
            s0 = _mm512_dpbusd_epi32(s0, _mm512_load_si512((const void *)(o + 64 * t)),
                                     _mm512_set1_epi32(xv[t]));
            s1 = _mm512_dpbusd_epi32(s1, _mm512_load_si512((const void *)(o + 64 * t + 64)),
                                     _mm512_set1_epi32(xv[t + 1]));
        }
        __m512 d = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_load_si256(
                                     (const __m256i *)(const void *)rf__qgemm_scales(w, g, j))),
                                 _mm512_set1_ps(a[j].d));
        __m512 p = _mm512_cvtepi32_ps(_mm512_add_epi32(s0, s1));
        if (j % 2)
            acc1 = _mm512_fmadd_ps(p, d, acc1);
        else
            acc0 = _mm512_fmadd_ps(p, d, acc0);
    }
    _mm512_mask_storeu_ps(y, (__mmask16)(nr >= 16 ? 0xffffu : (1u << nr) - 1),
                          _mm512_add_ps(acc0, acc1));
}

rf__qgemv_kernel_fn rf__qgemv_kernel_avx512(void)
{
    return rf__qgemv_avx512;
}
/* Rows s0 .. s1 - 1 quantised: per block of 32 (two zmm) or 16 (one), max |x| and the sum reduced,
 * x . 127 / max rounded to nearest even (as nearbyintf) and narrowed with saturation. */
RF__TARGET_VNNI static void rf__qgemm_quantize_avx512(const float *x, const rf__qgemm_act *a,
                                                      uint64_t s0, uint64_t s1)
{
    const uint64_t K = a->K, nb = K / (uint64_t)a->blk;
    for (uint64_t s = s0; s < s1; s++) {
        const float *xr = x + s * K;
        int8_t *qr = a->q + s * K;
        for (uint64_t j = 0; j < nb; j++) {
            if (a->blk == 32) {
                __m512 v0 = _mm512_loadu_ps(xr + 32 * j), v1 = _mm512_loadu_ps(xr + 32 * j + 16);
                float amax =
                    _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
                float sum = _mm512_reduce_add_ps(_mm512_add_ps(v0, v1));
                __m512 is = _mm512_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
                __m128i q0 = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v0, is)));
                __m128i q1 = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v1, is)));
                _mm_storeu_si128((__m128i *)(void *)(qr + 32 * j), q0);
                _mm_storeu_si128((__m128i *)(void *)(qr + 32 * j + 16), q1);
                a->d[s * nb + j] = amax / 127.0f;
                a->s[s * nb + j] = sum;
            } else {
                __m512 v0 = _mm512_loadu_ps(xr + 16 * j);
                float amax = _mm512_reduce_max_ps(_mm512_abs_ps(v0));
                float sum = _mm512_reduce_add_ps(v0);
                __m512 is = _mm512_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
                __m128i q0 = _mm512_cvtsepi32_epi8(_mm512_cvtps_epi32(_mm512_mul_ps(v0, is)));
                _mm_storeu_si128((__m128i *)(void *)(qr + 16 * j), q0);
                a->d[s * nb + j] = amax / 127.0f;
                a->s[s * nb + j] = sum;
            }
        }
    }
}

rf__qgemm_quantize_fn rf__qgemm_quantize_rows_avx512(void)
{
    return rf__qgemm_quantize_avx512;
}

/* Panels of x for K values k0 .. k1 - 1 (multiples of 16): each 16 x 16 block of rows and values
 * transposed in registers (unpack, shuffle, then two 128-bit lane shuffles); rows past S zero. */
RF__TARGET_F static void rf__fgemm_pack_avx512(const float *x, uint64_t S, uint64_t K,
                                               float *panels, uint64_t k0, uint64_t k1)
{
    uint64_t np = (S + RF__FGEMM_SB - 1) / RF__FGEMM_SB;
    for (uint64_t b = 0; b < np; b++)
        for (unsigned s0 = 0; s0 < RF__FGEMM_SB; s0 += 16)
            for (uint64_t k = k0; k < k1; k += 16) {
                __m512 r[16], t[16];
                for (unsigned i = 0; i < 16; i++) {
                    uint64_t row = b * RF__FGEMM_SB + s0 + i;
                    r[i] = row < S ? _mm512_loadu_ps(x + row * K + k) : _mm512_setzero_ps();
                }
                for (int i = 0; i < 16; i += 2) {
                    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
                    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
                }
                for (int i = 0; i < 16; i += 4) {
                    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
                    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xee);
                    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
                    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xee);
                }
                for (int h = 0; h < 16; h += 8)
                    for (int i = 0; i < 4; i++) {
                        t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + 4 + i], 0x88);
                        t[h + 4 + i] = _mm512_shuffle_f32x4(r[h + i], r[h + 4 + i], 0xdd);
                    }
                for (int i = 0; i < 8; i++) {
                    r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
                    r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xdd);
                }
                float *p = panels + (b * K + k) * RF__FGEMM_SB + s0;
                for (int i = 0; i < 16; i++) _mm512_storeu_ps(p + (size_t)i * RF__FGEMM_SB, r[i]);
            }
}

rf__fgemm_pack_fn rf__fgemm_pack_rows_avx512(void)
{
    return rf__fgemm_pack_avx512;
}

/* The float tile: NR weight rows broadcast against the panel's 64 activation rows (4 zmm). */
RF__TARGET_F static RF__INLINE void rf__fg_tile(const float *p, const float *w, size_t ldw,
                                                unsigned kc, float *t, const rf__fgemm_prefetch *pf,
                                                const int NR)
{
    __m512 acc[RF__FGEMM_NR][4];
    const uint8_t *pl = pf ? pf->base : NULL;
    unsigned pli = 0, plr = 0;
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
        acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = _mm512_setzero_ps();
    for (unsigned k = 0; k < kc; k++, p += RF__FGEMM_SB) {
        if (pl) { /* one line a value of K, row after row */
            __builtin_prefetch(pl + 64 * (size_t)pli, 0, 3);
            if (++pli == pf->lines) {
                pli = 0;
                pl = ++plr < pf->rows ? pl + pf->stride : NULL;
            }
        }
        __m512 p0 = _mm512_load_ps(p), p1 = _mm512_load_ps(p + 16), p2 = _mm512_load_ps(p + 32),
               p3 = _mm512_load_ps(p + 48);
#pragma GCC unroll 8
        for (int i = 0; i < NR; i++) {
            __m512 wv = _mm512_set1_ps(w[i * ldw + k]);
            acc[i][0] = _mm512_fmadd_ps(wv, p0, acc[i][0]);
            acc[i][1] = _mm512_fmadd_ps(wv, p1, acc[i][1]);
            acc[i][2] = _mm512_fmadd_ps(wv, p2, acc[i][2]);
            acc[i][3] = _mm512_fmadd_ps(wv, p3, acc[i][3]);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < NR; i++)
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) _mm512_store_ps(t + i * RF__FGEMM_SB + 16 * v, acc[i][v]);
}

RF__TARGET_F static void rf__fgemm_avx512(const float *p, const float *w, size_t ldw, unsigned nr,
                                          unsigned kc, float *t, const rf__fgemm_prefetch *pf)
{
    switch (nr) {
    case 6: rf__fg_tile(p, w, ldw, kc, t, pf, 6); break;
    case 5: rf__fg_tile(p, w, ldw, kc, t, pf, 5); break;
    case 4: rf__fg_tile(p, w, ldw, kc, t, pf, 4); break;
    case 3: rf__fg_tile(p, w, ldw, kc, t, pf, 3); break;
    case 2: rf__fg_tile(p, w, ldw, kc, t, pf, 2); break;
    default: rf__fg_tile(p, w, ldw, kc, t, pf, 1); break;
    }
}

rf__fgemm_kernel_fn rf__fgemm_kernel_avx512(void)
{
    return rf__fgemm_avx512;
}
#else
rf__qgemm_kernel_fn rf__qgemm_kernel_avx512(void)
{
    return NULL;
}
rf__qgemv_kernel_fn rf__qgemv_kernel_avx512(void)
{
    return NULL;
}
rf__qgemm_quantize_fn rf__qgemm_quantize_rows_avx512(void)
{
    return NULL;
}
rf__fgemm_kernel_fn rf__fgemm_kernel_avx512(void)
{
    return NULL;
}
rf__fgemm_pack_fn rf__fgemm_pack_rows_avx512(void)
{
    return NULL;
}
#endif
