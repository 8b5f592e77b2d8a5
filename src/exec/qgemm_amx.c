/* qgemm_amx.c — the AMX-INT8 driver of the prefill products (qgemm.h). A packed group's block is
 * an AMX B tile as it lies ([blk / 4][16 rows][4 bytes], 64-byte rows) and 16 int8 activation rows
 * (K bytes apart) an A tile, so one TDPBSUD (s8 activations x u8 weights) makes the 16 x 16 int32
 * dot products of a block; they are stored to a 1 KiB scratch and scaled into 16 F32 accumulators
 * held in zmm (a . dx . dot + b . sum x) while the tile unit computes the next block. A job takes
 * its share of the groups; per group, K in chunks whose quants stay in L1 while every tile of 16
 * tokens passes by. qgemm.c calls it when the team allows AMX (rf__qmatmul_amx: the CPU, the OS
 * and Linux's permission, then $RF_AMX). Compiled with target attributes only. Never prints. */
#include <string.h>

#include "exec/qgemm.h"

#define RF__AMX_KC                                                                                 \
    1024             /* values of K per chunk: 16 KiB of a group's quants (512 to 4096: the same) */
#define RF__AMX_M 16 /* tokens per A tile */

static uint64_t rf__amx_tiles(uint64_t S)
{
    return (S + RF__AMX_M - 1) / RF__AMX_M;
}

/* Bytes of one tile of tokens' block: the A tile (16 x blk int8), then 16 dx and 16 s (F32). */
static size_t rf__amx_rec(int blk)
{
    return RF__AMX_M * (size_t)blk + 2 * RF__AMX_M * sizeof(float);
}

size_t rf__qgemm_amx_act_bytes(uint64_t S, uint64_t K, int blk)
{
    return 64 + (size_t)(rf__amx_tiles(S) * (K / (uint64_t)blk)) * rf__amx_rec(blk);
}

/* The scratch past a's arrays (rf__qgemm_amx_act_bytes): per tile of 16 tokens and block, in
 * order, the tokens' int8 values as an A tile (16 rows of blk bytes; zero rows past S) then their
 * 16 scales dx and 16 sums of x (zero past S; for Q8_0's F16 layout the sums times -128, the
 * offset's factor b / a, so its epilogue takes one product less): one stream per tile of tokens. */
static uint8_t *rf__amx_recs(const rf__qgemm_act *a)
{
    uintptr_t p = (uintptr_t)(a->s + a->S * (a->K / (uint64_t)a->blk));
    return (uint8_t *)(p + (64 - p % 64) % 64);
}

/* Tiles t0 .. t1 - 1 of tokens, already quantised into a, laid out for the tiles. */
void rf__qgemm_amx_prep(const rf__qgemm_w *w, const rf__qgemm_act *a, uint64_t t0, uint64_t t1)
{
    const uint64_t S = a->S, K = a->K, blk = (uint64_t)a->blk, nb = K / blk;
    const float f = w->f16_scales ? -128.0f : 1.0f;
    const size_t rec = rf__amx_rec(a->blk);
    uint8_t *base = rf__amx_recs(a);
    for (uint64_t t = t0; t < t1; t++)
        for (uint64_t j = 0; j < nb; j++) {
            uint8_t *o = base + (size_t)(t * nb + j) * rec;
            float *ds = (float *)(void *)(o + RF__AMX_M * blk);
            for (unsigned m = 0; m < RF__AMX_M; m++) {
                uint64_t s = t * RF__AMX_M + m;
                if (s < S) {
                    memcpy(o + m * blk, a->q + s * K + j * blk, (size_t)blk);
                    ds[m] = a->d[s * nb + j];
                    ds[RF__AMX_M + m] = f * a->s[s * nb + j];
                } else {
                    memset(o + m * blk, 0, (size_t)blk);
                    ds[m] = ds[RF__AMX_M + m] = 0.0f;
                }
            }
        }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define RF__TARGET_AMX                                                                             \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")))
#define RF__INLINE inline __attribute__((always_inline))

/* LDTILECFG's 64 bytes (palette 1: 8 tiles of up to 16 rows of 64 bytes). */
typedef struct rf__amx_cfg {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} rf__amx_cfg;

/* Tiles 0 and 3: A (16 tokens x blk bytes); 1 and 4: B (blk / 4 rows of 64 bytes); 2 and 5: C
 * (16 x 16 int32). Two sets, so a block's products overlap the previous block's epilogue. The
 * whole struct is the asm's operand (the intrinsic names only 8 of its bytes). */
RF__TARGET_AMX static void rf__amx_config(int blk)
{
    rf__amx_cfg c;
    memset(&c, 0, sizeof c);
    c.palette = 1;
    for (int i = 0; i < 6; i += 3) {
        c.rows[i] = RF__AMX_M, c.colsb[i] = (uint16_t)blk;
        c.rows[i + 1] = (uint8_t)(blk / 4), c.colsb[i + 1] = 64;
        c.rows[i + 2] = RF__AMX_M, c.colsb[i + 2] = 64;
    }
    __asm__ volatile("ldtilecfg %0" ::"m"(c));
}

/* Block j0 + jj's products into the C scratch cb: A from the tokens' record jj, B from the group.
 */
#define RF__AMX_STEP(TA, TB, TC, jj, cb)                                                           \
    do {                                                                                           \
        _tile_loadd(TA, xr + (size_t)(jj)*REC, BLK);                                               \
        _tile_loadd(TB, rf__amx_quants(gb, j0 + (jj), bbytes, F16), 64);                           \
        _tile_zero(TC);                                                                            \
        _tile_dpbsud(TC, TA, TB);                                                                  \
        _tile_stored(TC, cb, 64);                                                                  \
    } while (0)

static RF__INLINE const uint8_t *rf__amx_quants(const uint8_t *gb, uint64_t j, size_t bbytes,
                                                const int F16)
{
    return F16 ? gb + (size_t)(j / 2) * 1088 + (size_t)(j % 2) * 512 : gb + (size_t)j * bbytes;
}

/* acc[m] += a . dx[m] . C[m] + b . s[m] for the 16 tokens m of block j0 + jj (C as 16 rows of 16
 * int32 in cb; dx and s from the tokens' record, a and b the group's 16 rows' scales). Q8_0's F16
 * scales: b = -128 a, the -128 already in s: acc[m] += a . (C[m] . dx[m] + s[m]). */
#define RF__AMX_EPI(cb, jj)                                                                        \
    do {                                                                                           \
        const uint64_t j_ = j0 + (jj);                                                             \
        const float *d_ = (const float *)(const void *)(xr + (size_t)(jj)*REC + 16 * BLK);         \
        if (F16) {                                                                                 \
            const uint8_t *sp_ = gb + (size_t)(j_ / 2) * 1088 + 1024 + (size_t)(j_ % 2) * 32;      \
            __m512 av_ = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)(const void *)sp_));   \
            _Pragma("GCC unroll 16") for (int m = 0; m < RF__AMX_M; m++)                           \
            {                                                                                      \
                __m512 c_ = _mm512_cvtepi32_ps(_mm512_load_si512((const void *)(cb + 16 * m)));    \
                __m512 t_ =                                                                        \
                    _mm512_fmadd_ps(c_, _mm512_set1_ps(d_[m]), _mm512_set1_ps(d_[RF__AMX_M + m])); \
                acc[m] = _mm512_fmadd_ps(av_, t_, acc[m]);                                         \
            }                                                                                      \
        } else {                                                                                   \
            const float *sp_ =                                                                     \
                (const float *)(const void *)(gb + (size_t)j_ * bbytes + 16 * (size_t)BLK);        \
            __m512 av_ = _mm512_load_ps(sp_), bv_ = _mm512_load_ps(sp_ + 16);                      \
            _Pragma("GCC unroll 16") for (int m = 0; m < RF__AMX_M; m++)                           \
            {                                                                                      \
                __m512 c_ = _mm512_cvtepi32_ps(_mm512_load_si512((const void *)(cb + 16 * m)));    \
                acc[m] = _mm512_fmadd_ps(c_, _mm512_mul_ps(av_, _mm512_set1_ps(d_[m])), acc[m]);   \
                acc[m] = _mm512_fmadd_ps(bv_, _mm512_set1_ps(d_[RF__AMX_M + m]), acc[m]);          \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* One tile of 16 tokens (mr of them real) by one group (nr rows real) over blocks j0 .. j0 + n - 1:
 * the accumulators start at zero (first) or at y, and end in y (ldy apart). xr: the tokens'
 * record of block j0 (rf__amx_recs). Two sets of tiles: block jj + 1's products run on the tile
 * unit while block jj's epilogue runs on the vector units. */
RF__TARGET_AMX static RF__INLINE void rf__amx_tile(const uint8_t *gb, size_t bbytes,
                                                   const uint8_t *xr, uint64_t j0, unsigned n,
                                                   float *y, size_t ldy, unsigned mr, unsigned nr,
                                                   int first, const int BLK, const int F16)
{
    const size_t REC = 16 * BLK + 128;
    __m512 acc[RF__AMX_M];
    const __mmask16 mk = (__mmask16)(nr >= 16 ? 0xffffu : (1u << nr) - 1);
#pragma GCC unroll 16
    for (int m = 0; m < RF__AMX_M; m++)
        acc[m] = !first && (unsigned)m < mr ? _mm512_maskz_loadu_ps(mk, y + (size_t)m * ldy)
                                            : _mm512_setzero_ps();
    _Alignas(64) int32_t cb0[RF__AMX_M * 16], cb1[RF__AMX_M * 16];
    for (unsigned jj = 0; jj < n; jj += 2) {
        RF__AMX_STEP(0, 1, 2, jj, cb0);
        if (jj > 0) RF__AMX_EPI(cb1, jj - 1);
        if (jj + 1 < n) RF__AMX_STEP(3, 4, 5, jj + 1, cb1);
        RF__AMX_EPI(cb0, jj);
    }
    if (n % 2 == 0) RF__AMX_EPI(cb1, n - 1);
#pragma GCC unroll 16
    for (int m = 0; m < RF__AMX_M; m++)
        if ((unsigned)m < mr) _mm512_mask_storeu_ps(y + (size_t)m * ldy, mk, acc[m]);
}

typedef void (*rf__amx_tile_fn)(const uint8_t *gb, size_t bbytes, const uint8_t *xr, uint64_t j0,
                                unsigned n, float *y, size_t ldy, unsigned mr, unsigned nr,
                                int first);
#define RF__AMX_TILE_FN(name, BLK, F16)                                                            \
    RF__TARGET_AMX static void name(const uint8_t *gb, size_t bbytes, const uint8_t *xr,           \
                                    uint64_t j0, unsigned n, float *y, size_t ldy, unsigned mr,    \
                                    unsigned nr, int first)                                        \
    {                                                                                              \
        rf__amx_tile(gb, bbytes, xr, j0, n, y, ldy, mr, nr, first, BLK, F16);                      \
    }
RF__AMX_TILE_FN(rf__amx_tile_q8_0, 32, 1)
RF__AMX_TILE_FN(rf__amx_tile_b32, 32, 0)
RF__AMX_TILE_FN(rf__amx_tile_b16, 16, 0)

/* Groups g0 .. g1 - 1 of w by every tile of tokens, into y [S, N]. */
RF__TARGET_AMX static void rf__amx_groups(const rf__qgemm_w *w, const rf__qgemm_act *a, float *y,
                                          uint64_t g0, uint64_t g1)
{
    const uint64_t S = a->S, K = w->K, blk = (uint64_t)w->blk, nb = K / blk;
    const uint64_t T = rf__amx_tiles(S), nbc = RF__AMX_KC / blk;
    const rf__amx_tile_fn f = w->f16_scales ? rf__amx_tile_q8_0
                              : blk == 32   ? rf__amx_tile_b32
                                            : rf__amx_tile_b16;
    const uint8_t *recs = rf__amx_recs(a);
    const size_t rec = rf__amx_rec(w->blk);
    rf__amx_config(w->blk);
    /* a chunk of a group is cb bytes of the stream (Q8_0: whole pairs); while the tiles of tokens
     * pass over one chunk, the next is prefetched into L2, a share before each tile */
    const size_t cb = w->f16_scales ? (size_t)(nbc / 2) * 1088 : (size_t)nbc * w->block_bytes;
    const uint8_t *end = w->data + (size_t)g1 * w->group_bytes;
    for (uint64_t g = g0; g < g1; g++) {
        const uint8_t *gb = w->data + (size_t)g * w->group_bytes;
        uint64_t r0 = g * RF__QGEMM_ROWS;
        unsigned nr = (unsigned)(w->N - r0 < RF__QGEMM_ROWS ? w->N - r0 : RF__QGEMM_ROWS);
        for (uint64_t c0 = 0; c0 < nb; c0 += nbc) {
            unsigned n = (unsigned)(nb - c0 < nbc ? nb - c0 : nbc);
            const uint8_t *next =
                c0 + nbc < nb ? gb + (size_t)(c0 / nbc + 1) * cb : gb + w->group_bytes;
            size_t lines =
                next < end ? ((size_t)(end - next) < cb ? (size_t)(end - next) : cb) / 64 : 0;
            for (uint64_t t = 0; t < T; t++) {
                uint64_t s0 = t * RF__AMX_M;
                unsigned mr = (unsigned)(S - s0 < RF__AMX_M ? S - s0 : RF__AMX_M);
                for (size_t l = lines * t / T; l < lines * (t + 1) / T; l++)
                    _mm_prefetch((const char *)next + 64 * l, _MM_HINT_T1);
                f(gb, w->block_bytes, recs + (size_t)(t * nb + c0) * rec, c0, n, y + s0 * w->N + r0,
                  (size_t)w->N, mr, nr, c0 == 0);
            }
        }
    }
    _tile_release();
}
#else
static void rf__amx_groups(const rf__qgemm_w *w, const rf__qgemm_act *a, float *y, uint64_t g0,
                           uint64_t g1)
{
    (void)w, (void)a, (void)y, (void)g0, (void)g1;
}
#endif

void rf__qgemm_amx_groups(const rf__qgemm_w *w, const rf__qgemm_act *a, float *y, uint64_t g0,
                          uint64_t g1)
{
    rf__amx_groups(w, a, y, g0, g1);
}

typedef struct rf__amx_job {
    const rf__qgemm_w *w;
    const rf__qgemm_act *a;
    rf__qgemm_quantize_fn quant;
    const float *x;
    float *y;
} rf__amx_job;

/* Job p of np: its share of the tiles of tokens quantised and their scales laid out. */
static void rf__amx_quant_part(void *arg, unsigned p, unsigned np)
{
    const rf__amx_job *j = arg;
    uint64_t T = rf__amx_tiles(j->a->S), t0 = T * p / np, t1 = T * (p + 1) / np;
    uint64_t s1 = t1 * RF__AMX_M < j->a->S ? t1 * RF__AMX_M : j->a->S;
    if (t0 >= t1) return;
    j->quant(j->x, j->a, t0 * RF__AMX_M, s1);
    rf__qgemm_amx_prep(j->w, j->a, t0, t1);
}

/* Job p of np: its share of the groups. */
static void rf__amx_part(void *arg, unsigned p, unsigned np)
{
    const rf__amx_job *j = arg;
    uint64_t G = j->w->groups;
    rf__qgemm_amx_groups(j->w, j->a, j->y, G * p / np, G * (p + 1) / np);
}

int rf__qgemm_amx_takes(const rf__qgemm_w *w)
{
    return w->blk == 32;
}

void rf__qgemm_amx_run(rf__qmatmul *q, const rf__qgemm_w *w, const float *x, const rf__qgemm_act *a,
                       rf__qgemm_quantize_fn quant, float *y)
{
    rf__amx_job j = {w, a, quant, x, y};
    rf__qmatmul_parallel(q, rf__amx_quant_part, &j);
    rf__qmatmul_parallel(q, rf__amx_part, &j);
}
