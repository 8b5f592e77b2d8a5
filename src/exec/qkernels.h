/* qkernels.h — internals of the quantized matrix kernels (src/exec/q*.c): GGML block layouts, the
 * kernel ids, the 8-bit activation formats, one dot-product table per instruction set (qkernels.c
 * is the portable reference and the runtime choice by cpuid, qkernels_avx2.c and
 * qkernels_avx512.c compiled with target attributes, qkernels_formats.c the conversions and type
 * table they share), the F32 helpers of the LLM pass, and the threaded matrix-vector /
 * matrix-matrix drivers (qmatmul.c over qteam.c). Calls go one way: qmatmul.c -> qkernels.c ->
 * qkernels_avx2.c, qkernels_avx512.c -> qkernels_formats.c. Never installed. */
#ifndef RF_EXEC_QKERNELS_H
#define RF_EXEC_QKERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "core/rf_int.h"
#include "roofline/graph.h"

/* Weight types with a kernel. Ids index the per-ISA tables. */
enum {
    RF__WEIGHT_F32,
    RF__WEIGHT_F16,
    RF__WEIGHT_BF16,
    RF__WEIGHT_Q8_0,
    RF__WEIGHT_Q4_0,
    RF__WEIGHT_Q4_K,
    RF__WEIGHT_Q6_K,
    RF__WEIGHT_Q4_1,
    RF__WEIGHT_Q5_0,
    RF__WEIGHT_Q5_1,
    RF__WEIGHT_Q5_K,
    RF__WEIGHT_Q2_K,
    RF__WEIGHT_Q3_K,
    RF__WEIGHT_TYPES
};

/* GGML blocks (ggml-common.h layouts, little-endian; F16 scales as raw bits). */
#define RF__SUPER_BLOCK 256 /* weights per K-quant super-block (GGML's QK_K) */
typedef struct rf__block_q8_0 {
    uint16_t d;
    int8_t qs[32];
} rf__block_q8_0; /* 34 bytes */
typedef struct rf__block_q4_0 {
    uint16_t d;
    uint8_t qs[16];
} rf__block_q4_0;               /* 18 bytes */
typedef struct rf__block_q4_k { /* 144 bytes */
    uint16_t d, dmin;           /* super-block scales of the 6-bit scales and of the 6-bit mins */
    uint8_t scales[12];         /* 8 scales and 8 mins, 6 bits each, packed */
    uint8_t qs[128];            /* 4-bit quants: 4 chunks of 32 bytes, low nibbles then high */
} rf__block_q4_k;
typedef struct rf__block_q4_1 {
    uint16_t d, m; /* w = d . q + m */
    uint8_t qs[16];
} rf__block_q4_1; /* 20 bytes */
typedef struct rf__block_q5_0 {
    uint16_t d;
    uint8_t qh[4]; /* bit j: the fifth bit of weight j */
    uint8_t qs[16];
} rf__block_q5_0; /* 22 bytes; w = d . (q - 16) */
typedef struct rf__block_q5_1 {
    uint16_t d, m;
    uint8_t qh[4];
    uint8_t qs[16];
} rf__block_q5_1;               /* 24 bytes; w = d . q + m */
typedef struct rf__block_q5_k { /* 176 bytes: Q4_K plus a fifth bit per weight */
    uint16_t d, dmin;
    uint8_t scales[12];
    uint8_t qh[32]; /* bit j of byte l: the fifth bit of weight l of sub-block j */
    uint8_t qs[128];
} rf__block_q5_k;
typedef struct rf__block_q6_k { /* 210 bytes */
    uint8_t ql[128];            /* low 4 bits */
    uint8_t qh[64];             /* high 2 bits */
    int8_t scales[16];          /* one per 16 weights */
    uint16_t d;
} rf__block_q6_k;
typedef struct rf__block_q2_k { /* 84 bytes; weight v of 16-weight sub-block s = v / 16: */
    uint8_t scales[16];         /* w = d . (scales[s] & 15) . q - dmin . (scales[s] >> 4) */
    uint8_t qs[64]; /* q = bits 2c, 2c+1 of qs[32 (v / 128) + v % 32], c = v % 128 / 32 */
    uint16_t d, dmin;
} rf__block_q2_k;
typedef struct rf__block_q3_k { /* 110 bytes: Q2_K's 2-bit layout plus a third bit, one scale */
    uint8_t hmask[32];          /* bit v / 32 of hmask[v % 32]: the third bit of weight v */
    uint8_t qs[64];             /* w = d . (sc[s] - 32) . (q - 4), q = 0..7 */
    uint8_t scales[12];         /* 16 6-bit scales (rf__q3_k_scales) */
    uint16_t d;
} rf__block_q3_k;

/* Activations as the quantized types' dot products read them: each weight type has an activation
 * format, made once per activation vector (rf__act_quantize) and shared by all the rows of a
 * matrix. F32, F16, BF16 read F32; Q4_K and Q6_K read Q8_K (256 int8 values, one float scale, the
 * sums of every 16); Q8_0 and Q4_0 read Q8_32 (32 int8 values, one float scale, their sum). The
 * kernels then multiply integers and apply the weight and activation scales once per block or
 * sub-block, as llama.cpp's CPU kernels do: the result differs from the F32 product by the rounding
 * of x to 8 bits, at most (max |x| of the block / 254) . sum |w| per block (the tests' bound). */
enum { RF__ACT_F32, RF__ACT_Q8_K, RF__ACT_Q8_32 };
typedef struct rf__block_q8_k {
    int8_t qs[256];    /* round(x / d), in [-127, 127] */
    float d;           /* x ~ d . qs */
    int16_t bsums[16]; /* sums of qs over each 16 (Q6_K's scales) */
    int16_t sums32[8]; /* and over each 32 (Q4_K's mins) */
    uint8_t
        pad[12]; /* zeros: 320 bytes, five cache lines (qs 64-byte aligned in an aligned array) */
} rf__block_q8_k;
typedef struct rf__block_q8_32 {
    float d;
    int32_t sum; /* sum of qs */
    int8_t qs[32];
} rf__block_q8_32; /* 40 bytes */

/* Activation format of kernel type id, and the bytes of the activation of k elements (0 for
 * F32: the kernels read x itself). */
int rf__act_format(int id);
size_t rf__act_bytes(int id, size_t k);
/* x[0..k) in the activation format of type id: a pointer to x itself for F32, else `buf`
 * (rf__act_bytes long, best 64-byte aligned) filled. `isa` picks the vectorised quantiser; every
 * level gives the same bytes. k is a multiple of the type's block. */
const void *rf__act_quantize(int id, int isa, const float *x, size_t k, void *buf);
/* The reference quantisers, and the AVX2 ones (0 when this build has none). */
void rf__quantize_q8_k(const float *x, size_t k, rf__block_q8_k *y);
void rf__quantize_q8_32(const float *x, size_t k, rf__block_q8_32 *y);
int rf__quantize_q8_k_avx2(const float *x, size_t k, rf__block_q8_k *y);
int rf__quantize_q8_32_avx2(const float *x, size_t k, rf__block_q8_32 *y);

/* Dot product of one weight row (k elements of the kernel's type at w) with one activation `a` in
 * the type's activation format (rf__act_quantize). k is a multiple of the type's block. */
typedef float (*rf__row_dot_fn)(const void *w, const void *a, size_t k);

/* Per-ISA tables (NULL entries fall back to the level below). Absent ISAs export NULLs. */
extern const rf__row_dot_fn rf__row_dot_generic[RF__WEIGHT_TYPES];
extern const rf__row_dot_fn rf__row_dot_avx2[RF__WEIGHT_TYPES];
extern const rf__row_dot_fn rf__row_dot_avx512[RF__WEIGHT_TYPES];

/* Decode's several-row kernels (qkernels_avx512_rows.c): y[r] = row r . a for r < nr (any, >= 1;
 * the decode driver passes RF__ROWS_DOT_MAX at a time) rows of k elements of the type, row_bytes
 * apart, against one activation in the type's format; the same sums as the row kernel. Types
 * without one have NULL entries. */
#define RF__ROWS_DOT_MAX 32
typedef void (*rf__rows_dot_fn)(const void *w, size_t row_bytes, unsigned nr, const void *a,
                                size_t k, float *y);
extern const rf__rows_dot_fn rf__rows_dot_avx512[RF__WEIGHT_TYPES];
extern const rf__rows_dot_fn rf__rows_dot_avx512_vbmi[RF__WEIGHT_TYPES]; /* AVX-512 VBMI too */
/* The several-row kernel of type `id` at level `isa` (the VBMI one when the CPU has it), or
 * NULL when that level has none. */
rf__rows_dot_fn rf__rows_dot_get(int id, int isa);

/* Kernel id of a dtype, or -1 when none. */
int rf__weight_type(rf_dtype t);
/* Kernel id chosen for a type without one: the nearest in bits per weight whose block divides
 * `k` (F32 when none does). */
int rf__weight_type_nearest(rf_dtype t, uint64_t k);
rf_dtype rf__weight_dtype(int id);
/* Elements per block and bytes per block of a kernel type. */
void rf__weight_block(int id, uint32_t *elems, uint32_t *bytes);

/* ISA levels for the kernels (same names as the probe's: generic, avx2, avx512). */
enum { RF__KERNEL_GENERIC, RF__KERNEL_AVX2, RF__KERNEL_AVX512, RF__KERNEL_ISAS };
const char *rf__kernel_isa_name(int isa);
/* Best level this CPU runs (cpuid + xgetbv through the probe; AVX2 with FMA and F16C; AVX-512
 * with BW, VL and VNNI; $RF_ISA caps it). */
int rf__kernel_isa_best(void);
/* The kernel of type `id` at level `isa` (falling back to lower levels; never NULL). */
rf__row_dot_fn rf__row_dot_get(int id, int isa);
/* 1 when `isa` has its own kernel for `id` (not a fallback). */
int rf__row_dot_has(int id, int isa);

/* F32 row helpers of the attention: y[r] = a_r . x over `rows` rows of n floats `stride` floats
 * apart (the scores against the K cache), and y = sum_r p[r] a_r (A.V against the V cache). The
 * AVX2 versions return 0 when this build has none. */
void rf__f32_rows_dot(int isa, const float *a, size_t rows, size_t stride, const float *x, size_t n,
                      float *y);
void rf__f32_rows_axpy(int isa, const float *a, size_t rows, size_t stride, const float *p,
                       size_t n, float *y);
int rf__f32_rows_dot_avx2(const float *a, size_t rows, size_t stride, const float *x, size_t n,
                          float *y);
int rf__f32_rows_axpy_avx2(const float *a, size_t rows, size_t stride, const float *p, size_t n,
                           float *y);

/* y = y . sigmoid(y) (SiLU) in place, 0 below -80 (where it is 0 to float precision); the AVX2
 * version (an exp polynomial within 2 ulp of expf) returns 0 when this build has none. */
void rf__f32_silu(int isa, float *y, size_t n);
int rf__f32_silu_avx2(float *y, size_t n);

/* qkernels_q5.c: the reference dequantiser of Q4_1, Q5_0, Q5_1 and Q5_K, and their dot
 * products (what rf__row_dot_generic holds for them). */
void rf__dequant_row_q5(int id, const void *w, float *y, size_t k);
float rf__dot_q4_1_gen(const void *w, const void *act, size_t k);
float rf__dot_q5_0_gen(const void *w, const void *act, size_t k);
float rf__dot_q5_1_gen(const void *w, const void *act, size_t k);
float rf__dot_q5_k_gen(const void *w, const void *act, size_t k);
/* qkernels_avx2_q5.c: their AVX2 versions (x86-64 builds only; qkernels_avx2.c's table). */
float rf__dot_q4_1_avx2(const void *w, const void *act, size_t k);
float rf__dot_q5_0_avx2(const void *w, const void *act, size_t k);
float rf__dot_q5_1_avx2(const void *w, const void *act, size_t k);
float rf__dot_q5_k_avx2(const void *w, const void *act, size_t k);

/* qkernels_q23.c: the reference dequantiser of Q2_K and Q3_K, their dot products against Q8_K,
 * and Q3_K's 16 scales (6-bit, less 32) from the block's 12 packed bytes. */
void rf__dequant_row_q23(int id, const void *w, float *y, size_t k);
float rf__dot_q2_k_gen(const void *w, const void *act, size_t k);
float rf__dot_q3_k_gen(const void *w, const void *act, size_t k);
void rf__q3_k_scales(const uint8_t *packed, int8_t sc[16]);
int rf__q3_k_scale(const uint8_t *packed, int s); /* scale s (0..15) alone */
/* qkernels_x86_q23.c: their AVX2 and AVX-512 VNNI versions (x86-64 builds only: the tables of
 * qkernels_avx2.c and qkernels_avx512.c hold them). */
float rf__dot_q2_k_avx2(const void *w, const void *act, size_t k);
float rf__dot_q3_k_avx2(const void *w, const void *act, size_t k);
float rf__dot_q2_k_avx512(const void *w, const void *act, size_t k);
float rf__dot_q3_k_avx512(const void *w, const void *act, size_t k);

/* Portable reference: dequantise `k` elements of type `id` into y. */
void rf__dequant_row(int id, const void *w, float *y, size_t k);
/* The same with AVX2 + F16C (only when the CPU has them) for F16, BF16, Q8_0, Q4_K and Q6_K
 * (Q4_K within an ulp of the reference, the others identical); 0 for other types. */
int rf__dequant_row_avx2(int id, const void *w, float *y, size_t k);
/* The AVX2 version when `isa` allows and it has the type, else the reference. */
void rf__dequant_row_isa(int isa, int id, const void *w, float *y, size_t k);

/* qkernels_formats.c: F16 and BF16 conversions; Q4_K's 6-bit scale and min of sub-block j (0..7)
 * from the block's 12 packed bytes. */
float rf__f16_to_f32(uint16_t h);
uint16_t rf__f32_to_f16(float f);
float rf__bf16_to_f32(uint16_t h);
void rf__q4_k_scale_min(const uint8_t *q, int j, int *sc, int *mn);

/* ---- qroof.c: the kernel ceiling ------------------------------------------------------------ */
/* Weight bytes per second the dot kernel of type id at level isa consumes on `threads` pinned
 * threads at once, called as decode calls it (Q8_0, Q4_0, Q4_1 at AVX-512: the packed 16-row
 * kernel over decode's packed form, qgemm.h; the others a row at a time), each over its own rows of
 * 2048 weights: 256 KiB of them (held in L2) or, when `dram`, its share of a matrix three times the
 * last-level cache (256 MiB to 1 GiB). The probe's harness times 5 passes (7 from DRAM); `stats`
 * gets them (min, median, max), rf__qkernel_rate the median. */
struct rf__stats;
rf_status rf__qkernel_rate_stats(rf_ctx *ctx, int id, int isa, unsigned threads, int dram,
                                 double min_time_s, struct rf__stats *stats);
rf_status rf__qkernel_rate(rf_ctx *ctx, int id, int isa, unsigned threads, int dram,
                           double min_time_s, double *bytes_per_s);

/* ---- qmatmul.c: threaded drivers ---------------------------------------------------------- */
typedef struct rf__qmatmul rf__qmatmul; /* a thread team plus per-thread scratch */

rf_status rf__qmatmul_new(rf_ctx *ctx, unsigned threads, int isa, rf__qmatmul **out);
void rf__qmatmul_free(rf_ctx *ctx, rf__qmatmul *q);
unsigned rf__qmatmul_threads(const rf__qmatmul *q);
int rf__qmatmul_isa(const rf__qmatmul *q);
/* 1 when prefill's packed products run on AMX-INT8 tiles (qgemm_amx.c): decided when the team is
 * made, at AVX-512 on a CPU with AMX whose OS saves the tile state and lets this process use it
 * (rf__cpu_features' RF__F_AMX), unless $RF_AMX is "0" or "off". set_amx(q, 0) turns it off (1
 * turns it back on only where it was allowed). */
int rf__qmatmul_amx(const rf__qmatmul *q);
void rf__qmatmul_set_amx(rf__qmatmul *q, int on);

/* y[s][n] = sum_k x[s][k] * W[n][k] for s < S, n < N: W is N rows of K elements of type `id`
 * (row stride row_bytes). Small S: row-parallel dot products (against rf__act_quantize); larger
 * S: row chunks dequantised by the team into F32, then OpenBLAS sgemm. */
rf_status rf__qmatmul_run(rf_ctx *ctx, rf__qmatmul *q, int id, const void *w, size_t row_bytes,
                          uint64_t N, uint64_t K, const float *x, uint64_t S, float *y);

/* Decode's products of n (<= RF__QMATMUL_MAX_MATS) matrices of one type and one K against the
 * same S (< 8) activation rows as ONE team job over their rows end to end: x quantised once,
 * y[i][s][r] = x[s] . row r of w[i] (N[i] rows, row stride row_bytes). */
#define RF__QMATMUL_MAX_MATS 4
rf_status rf__qmatmul_dots_n(rf_ctx *ctx, rf__qmatmul *q, int id, const uint8_t *const *w,
                             size_t row_bytes, const uint64_t *N, unsigned n, uint64_t K,
                             const float *x, uint64_t S, float *const *y);

/* Run a job split in n parts: job(arg, part, n) for every part, parts shared by the team's
 * threads (for attention and other row-parallel ops); returns when all are done. */
typedef void (*rf__team_job)(void *arg, unsigned part, unsigned n_parts);
void rf__qmatmul_parallel(rf__qmatmul *q, rf__team_job job, void *arg);

/* ---- qteam.c: n - 1 workers plus the caller taking the parts of each job from one ticket ---- */
typedef struct rf__thread_team rf__thread_team;
rf_status rf__thread_team_new(rf_ctx *ctx, unsigned n, rf__thread_team **out);
void rf__thread_team_run(rf__thread_team *t, rf__team_job job,
                         void *arg); /* returns when all are done */
void rf__thread_team_free(rf_ctx *ctx, rf__thread_team *t);

#endif
