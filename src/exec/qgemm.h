/* qgemm.h — prefill matrix products on quantised weights (qgemm.c, qgemm_avx512.c, the Q4_1/Q5
 * repacks in qgemm_types.c): a weight matrix of Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K..Q6_K
 * is repacked once into groups of 16 rows whose blocks hold
 * unsigned 8-bit quants interleaved 4 bytes per row (one zmm = 4 values of each of 16 rows) with
 * the block's F32 scale and offset per row (w = a . q + b, exact for every one of these types);
 * the activation rows are quantised to int8 per block (scale = max |x| / 127) with each block's
 * exact F32 sum, and y = sum_blocks a . dx . (q . xq) + b . sum(x) is formed with VNNI (vpdpbusd:
 * u8 weights x s8 activations), AMX-INT8 tiles (tdpbsud, qgemm_amx.c: a packed block is a B tile)
 * or a portable reference. The result differs from the F32 product only by the rounding of x to 8
 * bits: at most max|x|_block / 254 . sum |a q| per block.
 * Calls go qgemm.c -> qgemm_avx512.c, qgemm.c -> qgemm_amx.c -> qmatmul.c; decode's driver
 * qgemv.c -> qgemm.c, qgemv_q4.c -> qgemv_q4_avx512.c. Never installed. */
#ifndef RF_EXEC_QGEMM_H
#define RF_EXEC_QGEMM_H

#include <stddef.h>
#include <stdint.h>

#include "exec/qkernels.h"

#define RF__QGEMM_ROWS 16 /* weight rows per packed group (one zmm of int32 lanes) */
#define RF__QGEMM_MR 6    /* activation rows per kernel call (by 2 groups: 32 rows) */

/* A packed weight matrix. Two block layouts: every type but Q8_0 keeps after each block's 16 x blk
 * quants its 16 F32 scales a and 16 F32 offsets b; Q8_0 (f16_scales) keeps the file's F16 scales
 * d (a = d, b = -128 d) and pairs its blocks: the quants of blocks 2p and 2p + 1 (1024 bytes), then
 * their 32 F16 scales (64 bytes), 34 bytes a row per 32 values as in the file. So a Q8_0 matrix
 * packs into as many bytes as it had, one sequential stream of whole cache lines that decode reads
 * too (rf__qgemv_run), where the F32 form would have made a decode read 18% more bytes. */
typedef struct rf__qgemm_w {
    int blk;            /* values per block: 32, or 16 (Q2_K, Q3_K, Q6_K: a scale per 16) */
    int f16_scales;     /* 1: the Q8_0 layout above */
    int nib;            /* RF__WEIGHT_Q4_0 or _Q4_1: decode's nibble form (qgemv_q4.c), read by
                         * the decode kernels only; 0: one of the two forms above */
    uint64_t N, K;      /* rows (output width), columns (input width) */
    uint64_t groups;    /* ceil(N / 16); the last group's missing rows are zero */
    size_t block_bytes; /* 16 x blk quants, then 16 scales a and 16 offsets b (F32): 0 for Q8_0 */
    size_t group_bytes; /* the bytes of a group of 16 rows, a multiple of 64 */
    uint8_t *data;      /* groups x (K / blk) blocks */
} rf__qgemm_w;

/* The quants of block j of group g (16 x blk bytes, 64-byte aligned), and its scales: 16 F32 a
 * then 16 F32 b, or 16 F16 d for the Q8_0 layout. */
static inline const uint8_t *rf__qgemm_quants(const rf__qgemm_w *w, uint64_t g, uint64_t j)
{
    const uint8_t *p = w->data + (size_t)g * w->group_bytes;
    return w->f16_scales ? p + (size_t)(j / 2) * 1088 + (size_t)(j % 2) * 512
                         : p + (size_t)j * w->block_bytes;
}
static inline const uint8_t *rf__qgemm_scales(const rf__qgemm_w *w, uint64_t g, uint64_t j)
{
    const uint8_t *p = w->data + (size_t)g * w->group_bytes;
    return w->f16_scales ? p + (size_t)(j / 2) * 1088 + 1024 + (size_t)(j % 2) * 32
                         : p + (size_t)j * w->block_bytes + RF__QGEMM_ROWS * (size_t)w->blk;
}

/* 1 when type id has a packed form. */
int rf__qgemm_supported(int id);
/* Block length of type id's packed form (0 when none). */
int rf__qgemm_blk(int id);
/* Bytes of the packed form of N x K. */
size_t rf__qgemm_bytes(int id, uint64_t N, uint64_t K);
/* Pack N rows (row_bytes apart) of K values of type id into out->data (rf__qgemm_bytes long,
 * 64-byte aligned); fills the other fields. */
void rf__qgemm_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K, uint8_t *data,
                    rf__qgemm_w *out);

/* qgemm_types.c: block j (32 values) of a row of Q4_1, Q5_0, Q5_1 or Q5_K, or (16 values) of Q2_K
 * or Q3_K, as w = a . q + b with q unsigned (0 for another type): those types pack like Q4_0 and
 * Q6_K too (the F32 layout, blk 32 or 16). */
int rf__qgemm_block_qab_q5(int id, const uint8_t *row, uint64_t j, uint8_t *q, float *a, float *b);

/* Activation rows quantised for a packed matrix of block blk: S rows of K int8, and per row and
 * block the scale and the exact sum of x. */
typedef struct rf__qgemm_act {
    int8_t *q;    /* S x K */
    float *d, *s; /* S x (K / blk) */
    uint64_t S, K;
    int blk;
} rf__qgemm_act;
size_t rf__qgemm_act_bytes(uint64_t S, uint64_t K, int blk);
/* Quantise x [S, K] into buf (rf__qgemm_act_bytes long, 64-byte aligned) described by a. */
void rf__qgemm_quantize(const float *x, uint64_t S, uint64_t K, int blk, void *buf,
                        rf__qgemm_act *a);

/* Rows s0 .. s1 - 1 of x quantised into a (its buffers set up for x's S x K): the portable way,
 * and the AVX-512 one (NULL when this build has none). */
typedef void (*rf__qgemm_quantize_fn)(const float *x, const rf__qgemm_act *a, uint64_t s0,
                                      uint64_t s1);
void rf__qgemm_quantize_rows_ref(const float *x, const rf__qgemm_act *a, uint64_t s0, uint64_t s1);
rf__qgemm_quantize_fn rf__qgemm_quantize_rows_avx512(void);

/* The kernel: y[s * ldy + r] for s < ms (<= RF__QGEMM_MR) activation rows from s0, r < nr rows
 * of the ng (1 or 2) groups from g (nr <= 16 ng). */
typedef void (*rf__qgemm_kernel_fn)(const rf__qgemm_w *w, uint64_t g, unsigned ng,
                                    const rf__qgemm_act *a, uint64_t s0, unsigned ms, unsigned nr,
                                    float *y, size_t ldy);
void rf__qgemm_kernel_ref(const rf__qgemm_w *w, uint64_t g, unsigned ng, const rf__qgemm_act *a,
                          uint64_t s0, unsigned ms, unsigned nr, float *y, size_t ldy);
/* The AVX-512 VNNI kernel, or NULL when this build has none. */
rf__qgemm_kernel_fn rf__qgemm_kernel_avx512(void);
/* The kernel for `isa` (the reference below AVX-512). */
rf__qgemm_kernel_fn rf__qgemm_kernel(int isa);

/* y [S, N] = x . W^T, the team splitting the row groups (rf__qmatmul_parallel); act is scratch
 * of rf__qgemm_act_bytes(S, K, w->blk) bytes, 64-byte aligned. At AVX-512 with a team that
 * allows AMX (rf__qmatmul_amx) the products run on AMX-INT8 tiles (qgemm_amx.c). */
void rf__qgemm_run(rf__qmatmul *q, int isa, const rf__qgemm_w *w, const float *x, uint64_t S,
                   void *act, float *y);

/* ---- qgemm_amx.c: the same products on AMX-INT8 tiles (the packed blocks are B tiles as they
 * lie; 16 tokens an A tile; per block a 16 x 16 int32 tile scaled into F32 accumulators). */
/* Extra bytes rf__qgemm_act_bytes reserves past the activations for the AMX driver. */
size_t rf__qgemm_amx_act_bytes(uint64_t S, uint64_t K, int blk);
/* Tiles t0 .. t1 - 1 of 16 tokens of a (quantised) laid out for the tiles: their scales, and the
 * last tile padded with zero rows. */
void rf__qgemm_amx_prep(const rf__qgemm_w *w, const rf__qgemm_act *a, uint64_t t0, uint64_t t1);
/* y [S, N] for the rows of groups g0 .. g1 - 1 from a prepared a; only where the CPU runs AMX
 * and Linux allowed it (RF__F_AMX). */
void rf__qgemm_amx_groups(const rf__qgemm_w *w, const rf__qgemm_act *a, float *y, uint64_t g0,
                          uint64_t g1);
/* 1 when rf__qgemm_run takes w to the tiles: blocks of 32 (twice to 1.4 times the VNNI kernel's
 * rate on a 2-vCPU Emerald Rapids guest); Q6_K's blocks of 16 stay on VNNI, which the tiles' fixed
 * cost per block (loads, a 16-row TMUL pass, a 1 KiB store) makes 10-20% faster there. */
int rf__qgemm_amx_takes(const rf__qgemm_w *w);
/* rf__qgemm_run's AMX path: x quantised into a (its buffers over act) by quant and prepared, then
 * the groups split over the team. */
void rf__qgemm_amx_run(rf__qmatmul *q, const rf__qgemm_w *w, const float *x, const rf__qgemm_act *a,
                       rf__qgemm_quantize_fn quant, float *y);

/* ---- decode on the packed form: a few activation rows against a packed Q8_0, Q4_0 or Q4_1
 * matrix, a group of 16 rows a call (all 16 dot products from one pass over the group's stream:
 * one broadcast of 4 activation bytes serves 16 rows). The activations are in the Q8_32 format of
 * the row kernels (rf__act_quantize): the weights' offset (+128, Q4_0's 8) comes off through each
 * activation block's sum, Q4_1's m times it. */
/* 1 when decode reads a packed form of type id: Q8_0's (the same as prefill's), or the nibble form
 * of Q4_0 and Q4_1 (qgemv_q4.c: their prefill form would read 2.2 times the file's bytes). */
int rf__qgemv_supported(int id);
/* id when decode's form of type id is the nibble form (Q4_0, Q4_1; not prefill's), else 0. */
int rf__qgemv_nib(int id);
/* Bytes of decode's packed form of N x K of type id (0 when none): as many as the file's rows
 * (K / 32 even; an odd count pads each group's last pair). */
size_t rf__qgemv_bytes(int id, uint64_t N, uint64_t K);
/* Pack into decode's form (rf__qgemm_pack for Q8_0; data rf__qgemv_bytes long, 64-byte aligned). */
void rf__qgemv_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K, uint8_t *data,
                    rf__qgemm_w *out);
/* The nibble form's block j of group g: its 256 bytes of nibbles (slice t = bytes 64 t .. 64 t +
 * 63: byte 4 r + i is byte 4 t + i of row r's 16, low nibble value 4 t + i, high 16 + 4 t + i) and
 * its 16 F16 d (Q4_1: the 16 F16 m 64 bytes on). Pairs of blocks: quants, quants, d, d (, m, m). */
static inline const uint8_t *rf__qgemv_nib_quants(const rf__qgemm_w *w, uint64_t g, uint64_t j)
{
    size_t pair = w->nib == RF__WEIGHT_Q4_1 ? 640 : 576;
    return w->data + (size_t)g * w->group_bytes + (size_t)(j / 2) * pair + (size_t)(j % 2) * 256;
}
static inline const uint8_t *rf__qgemv_nib_d(const rf__qgemm_w *w, uint64_t g, uint64_t j)
{
    size_t pair = w->nib == RF__WEIGHT_Q4_1 ? 640 : 576;
    return w->data + (size_t)g * w->group_bytes + (size_t)(j / 2) * pair + 512 +
           (size_t)(j % 2) * 32;
}
/* y[r] = row (16 g + r) . a for r < nr (<= 16): a is K / 32 Q8_32 blocks. */
typedef void (*rf__qgemv_kernel_fn)(const rf__qgemm_w *w, uint64_t g, const void *a, unsigned nr,
                                    float *y);
void rf__qgemv_kernel_ref(const rf__qgemm_w *w, uint64_t g, const void *a, unsigned nr, float *y);
/* The AVX-512 VNNI kernel (prefetching the stream RF__PREFETCH_AHEAD_BYTES ahead), or NULL. */
rf__qgemv_kernel_fn rf__qgemv_kernel_avx512(void);
rf__qgemv_kernel_fn rf__qgemv_kernel(int isa);
/* qgemv_q4.c: the nibble form's bytes (0 for other types) and pack (as rf__qgemv_pack), and its
 * kernel (both types): the portable one, the AVX-512 VNNI one or NULL, the one for `isa`. */
size_t rf__qgemv_nib_bytes(int id, uint64_t N, uint64_t K);
void rf__qgemv_nib_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K,
                        uint8_t *data, rf__qgemm_w *out);
void rf__qgemv_nib_kernel_ref(const rf__qgemm_w *w, uint64_t g, const void *a, unsigned nr,
                              float *y);
rf__qgemv_kernel_fn rf__qgemv_nib_kernel_avx512(void);
rf__qgemv_kernel_fn rf__qgemv_nib_kernel(int isa);
/* The kernel for w's form at level isa (rf__qgemv_kernel, or the nibble one). */
rf__qgemv_kernel_fn rf__qgemv_kernel_for(const rf__qgemm_w *w, int isa);
/* y [S, N] = x . W^T for S activation rows already in the Q8_32 format, act_bytes apart, the
 * team splitting the groups (w in either decode form). */
void rf__qgemv_run(rf__qmatmul *q, int isa, const rf__qgemm_w *w, const void *act, size_t act_bytes,
                   uint64_t S, float *y);
/* The same for n (<= RF__QGEMV_MAX_MATS) matrices of one K against the same activations, y[i]
 * [S, w[i]->N] each, as ONE team job over their groups end to end: q/k/v or gate/up of a decode
 * step pay one hand-off to the team instead of n, and the small k and v split as finely as the
 * rest. */
#define RF__QGEMV_MAX_MATS 4
void rf__qgemv_run_n(rf__qmatmul *q, int isa, const rf__qgemm_w *const *w, unsigned n,
                     const void *act, size_t act_bytes, uint64_t S, float *const *y);

/* ---- prefill products on float weights (F32 read in place; F16, BF16 and any type without a
 * packed form dequantised a tile of rows at a time): y [S, N] = x . W^T in F32 with F32
 * accumulation. x is first packed into panels of RF__FGEMM_SB activation rows, [K][SB] (rows
 * past S zero), so a kernel tile is RF__FGEMM_NR weight rows broadcast by SB activation rows in
 * four zmm (24 FMA accumulators); K is taken RF__FGEMM_KC at a time so one panel stays in L2. */
#define RF__FGEMM_SB 64   /* activation rows per panel (four zmm of F32) */
#define RF__FGEMM_NR 6    /* weight rows per kernel tile */
#define RF__FGEMM_KC 2048 /* values of K per pass over the panels */

/* Cache lines a tile kernel prefetches (into L2) as it runs, one per value of K: `lines` from
 * each of `rows` rows `stride` bytes apart from base (the next tile's weight rows, whose first
 * bytes would otherwise wait on DRAM, a new 4 KiB page per row). */
typedef struct rf__fgemm_prefetch {
    const uint8_t *base;
    size_t stride;
    unsigned lines, rows;
} rf__fgemm_prefetch;

/* The tile kernel: acc[i][s] (i < nr <= NR, s < SB) = sum over kc values of w[i * ldw + k] .
 * p[k * SB + s]; the result stored to t[i * SB + s]; pf (or NULL) prefetched meanwhile. */
typedef void (*rf__fgemm_kernel_fn)(const float *p, const float *w, size_t ldw, unsigned nr,
                                    unsigned kc, float *t, const rf__fgemm_prefetch *pf);
void rf__fgemm_kernel_ref(const float *p, const float *w, size_t ldw, unsigned nr, unsigned kc,
                          float *t, const rf__fgemm_prefetch *pf);
/* The AVX-512 kernel, or NULL when this build has none. */
rf__fgemm_kernel_fn rf__fgemm_kernel_avx512(void);
/* Pack x [S, K] into the panels for values k0 .. k1 - 1 (multiples of 16): AVX-512 or NULL. */
typedef void (*rf__fgemm_pack_fn)(const float *x, uint64_t S, uint64_t K, float *panels,
                                  uint64_t k0, uint64_t k1);
rf__fgemm_pack_fn rf__fgemm_pack_rows_avx512(void);
/* Scratch bytes rf__fgemm_run needs (64-byte aligned) for S x K activations and `threads`. */
size_t rf__fgemm_scratch_bytes(uint64_t S, uint64_t K, unsigned threads);
/* y [S, N] = x [S, K] . W^T for N rows of type id (row_bytes apart), the team splitting the
 * rows; K a multiple of id's block (and of 256 when K > RF__FGEMM_KC and id is block-quantised). */
void rf__fgemm_run(rf__qmatmul *q, int isa, int id, const void *w, size_t row_bytes, uint64_t N,
                   uint64_t K, const float *x, uint64_t S, void *scratch, float *y);

#endif
