/* llm_exec_int.h — the state of a measured LLM pass (rf_exec_llm_run), shared by its files. Calls
 * go one way, driver -> ops -> kernels:
 *   llm_exec.c          the driver: set-up, the two timed phases, the result;
 *   llm_exec_weights.c  every weight as the kernels read it, and the look-up by block and role;
 *   llm_exec_time.c     the harness: warm-up and timed passes, the median pass kept;
 *   llm_exec_pass.c     one forward pass through the blocks, each step read off the clock;
 *   llm_exec_ops.c      the non-matrix steps (norms, RoPE, attention, activations);
 *   llm_exec_roof.c     decode's roof: a step's weight products alone, timed between its steps;
 *   qmatmul.c, qteam.c, qkernels*.c (qkernels.h): the matrix products, the thread team, kernels.
 * Never installed.
 *
 * Glossary of the short names that stay (the usual transformer notation):
 *   lx      the rf__llm_exec of the run under way
 *   B       sequences in a batch            S    new tokens per sequence in this pass
 *   E       embedding width (n_embd)        p0   position of the pass's first new token
 *   H, Hkv  query heads, key/value heads    T    positions attended to (p0 + S)
 *   D       head width (head_dim)           Tmax positions the KV cache holds
 *   F       widest MLP (feed-forward) width V    vocabulary (rows of the LM head)
 *   L       decode context (llm_exec.c)     n    activation rows of a step (B x S)
 *   qw, kw  widths of a row of q (H x D) and of k or v (Hkv x D)
 *   l       the block (layer) under way, -1 for the model's global weights
 *   id      a weight type with a kernel (RF__WEIGHT_*, qkernels.h)
 *   isa     the kernels' instruction-set level (RF__KERNEL_*, qkernels.h)
 *   step    one timed piece of the pass (RF__STEP_*: a matrix product, a norm, ...) */
#ifndef RF_LLM_EXEC_INT_H
#define RF_LLM_EXEC_INT_H

#include "exec/progress.h"
#include "exec/qgemm.h"
#include "exec/qkernels.h"
#include "llm/llm_int.h"
#include "roofline/exec_llm.h"

/* Kinds of step timed, named as rf_llm_build names its layers (without "blk.N."). */
/* clang-format off */
#define RF__LLM_STEPS(X)                  \
    X(EMBD, "token_embd")                \
    X(ATTN_NORM, "attn_norm")            \
    X(Q, "attn_q")                       \
    X(K, "attn_k")                       \
    X(V, "attn_v")                       \
    X(QKV, "attn_qkv")                   \
    X(Q_NORM, "attn_q_norm")             \
    X(K_NORM, "attn_k_norm")             \
    X(ROPE_Q, "rope_q")                  \
    X(ROPE_K, "rope_k")                  \
    X(KV_STORE, "kv_store")              \
    X(SCORES, "attn_scores")             \
    X(SOFTMAX, "attn_softmax")           \
    X(AV, "attn_av")                     \
    X(O, "attn_output")                  \
    X(POST_ATTN_NORM, "post_attn_norm")  \
    X(ATTN_RES, "attn_residual")         \
    X(FFN_NORM, "ffn_norm")              \
    X(GATE, "ffn_gate")                  \
    X(UP, "ffn_up")                      \
    X(GATE_UP, "ffn_gate_up")            \
    X(ACT, "ffn_act")                    \
    X(MUL, "ffn_mul")                    \
    X(DOWN, "ffn_down")                  \
    X(POST_FFN_NORM, "post_ffn_norm")    \
    X(FFN_RES, "ffn_residual")           \
    X(OUT_NORM, "output_norm")           \
    X(OUTPUT, "output")
/* clang-format on */

enum {
#define RF__LLM_STEP_ENUM(id, name) RF__STEP_##id,
    RF__LLM_STEPS(RF__LLM_STEP_ENUM)
#undef RF__LLM_STEP_ENUM
        RF__STEP_COUNT
};
extern const char *const rf__llm_step_names[RF__STEP_COUNT];

/* A weight as the kernels read it. */
typedef struct rf__exec_weight {
    int used;            /* 1 when the pass reads it */
    int id;              /* kernel type (matrices), -1 for vectors */
    const uint8_t *data; /* rows x row_bytes: the mapped file, synth or a copy in copy_mem */
    size_t row_bytes;
    uint64_t rows, cols;
    float *vec;         /* vectors (norms, biases): an F32 copy of n = rows x cols values */
    uint8_t *synth;     /* substitute data (owned), or NULL */
    void *copy_mem;     /* the allocation of a copy on huge pages (rf__llm_exec_stream_copy) */
    rf__qgemm_w packed; /* the repacked copy (qgemm.h), made at the first product using it; */
    void *packed_mem;   /* its allocation (packed.data 64-byte aligned inside), or NULL */
    double packed_peak; /* bytes of the larger packed form it has held (counted in mem_bytes) */
} rf__exec_weight;

typedef struct rf__llm_exec {
    rf_ctx *ctx;
    const rf_llm_model *model;
    rf__qmatmul *matmul;      /* the thread team and the matrix products' scratch */
    rf__exec_weight *weights; /* one per model->w */
    uint64_t B, E, H, Hkv, D, F, V, n_layer;
    uint64_t Tmax, rows_max; /* positions held by the cache; activation rows (B x S) */
    float eps;
    /* activations, F32 [rows_max, width] */
    float *x, *x_norm;        /* the residual stream; its norm, the input of the next products */
    float *q, *k, *v;         /* the projections of this pass's tokens */
    float *attn;              /* attention output (A.V), the input of the output projection */
    float *proj;              /* output of the attention's or the MLP's last projection */
    float *gate, *up;         /* MLP gate and up projections (gate alone for a plain MLP) */
    float *logits;            /* the LM head's output */
    float *fused;             /* output of a fused product (qkv or gate_up) before it is split */
    float *scores;            /* [B, H, S, T] of the current pass */
    float *rope_cs;           /* [Tmax, D/2] cos, sin interleaved */
    float *k_cache, *v_cache; /* [n_layer, B, Tmax, Hkv x D] */
    double mem_bytes;
    void *qg_act; /* prefill's quantised activation rows (rf__qgemm_run scratch) */
    size_t qg_act_cap;
    void *fg_buf; /* prefill's float GEMM scratch (rf__fgemm_run: activation panels, tiles) */
    size_t fg_cap;
    /* timing of the pass under way */
    double (*clock)(void *);
    void *clock_user;
    double t_last;                       /* clock at the end of the last step */
    rf__xprogress progress;              /* its lines (progress.h) */
    double step_s[RF__STEP_COUNT];       /* seconds per kind of step */
    uint64_t step_calls[RF__STEP_COUNT]; /* steps per kind */
} rf__llm_exec;

/* The weight of `role` in block b (-1: global), or NULL when the model has none
 * (llm_exec_weights.c). */
const rf__exec_weight *rf__llm_exec_weight(const rf__llm_exec *lx, int64_t b, int role);

/* Resolve every weight (llm_exec_weights.c); lx->V and lx->F set; substitutions into r. */
rf_status rf__llm_exec_setup_weights(rf__llm_exec *lx, rf_exec_llm_result *r);

/* One forward pass of S new tokens per sequence at positions p0 .. p0 + S - 1 (llm_exec_pass.c):
 * every step timed into lx->step_s / lx->step_calls. */
rf_status rf__llm_exec_pass(rf__llm_exec *lx, uint64_t S, uint64_t p0);

/* One weight product exactly as the pass makes it (llm_exec_pass.c; no bias): y [n, out] =
 * x [n, in] . W^T for the weight of `role` in block blk (-1: global). */
rf_status rf__llm_exec_linear(rf__llm_exec *lx, int64_t blk, int role, const float *x, uint64_t n,
                              uint64_t in, uint64_t out, float *y);
/* The n products of roles[] that read the same x (q/k/v, or gate/up) as one job, exactly as the
 * pass makes them (no bias), the step closed with its time split over kinds[]; *done 0 when the
 * pass would make them one at a time (then none is made). */
rf_status rf__llm_exec_linear_n(rf__llm_exec *lx, int64_t blk, const int *roles, const int *kinds,
                                unsigned n, const float *x, uint64_t rows, uint64_t in,
                                float *const *y, int *done);

/* ---- llm_exec_roof.c ---- */
/* A decode step's weight products alone (every block's projections and the LM head, in the
 * pass's order, nothing between them), timed into lx->step_s / lx->step_calls like a pass. */
rf_status rf__llm_exec_products(rf__llm_exec *lx);
/* 1 when step kind k is a weight product (q, k, v, qkv, attention output, gate, up, gate_up, down,
 * the LM head). */
int rf__llm_step_is_product(int k);

/* Bytes a pass of S tokens per sequence allocates as it first runs (llm_exec_pass.c): the packed
 * copies of the weights its products repack (prefill's about 1.25 bytes a weight, qgemm.h; decode's
 * of Q8_0, Q4_0 and Q4_1 their own size; one form per matrix at a time) and the products'
 * scratch; 0 when its products take no packed path. */
double rf__llm_exec_prefill_bytes(const rf__llm_exec *lx, uint64_t S);
/* The bytes of the copies rf__llm_exec_stream_copy would make: the matrices decode multiplies in
 * the mapped file (no packed form at this ISA) of 2 MiB or more, when Linux gives huge pages. */
double rf__llm_exec_stream_bytes(rf__llm_exec *lx);
/* Copy those matrices onto transparent huge pages (their data then points there). */
rf_status rf__llm_exec_stream_copy(rf__llm_exec *lx);

/* ---- llm_exec_ops.c ---- */
/* RMSNorm (w may be NULL) or LayerNorm (bias may be NULL) of n rows of width c, in place ok. */
void rf__llm_norm(const float *x, float *y, uint64_t n, uint64_t c, const float *w, const float *b,
                  int layernorm, float eps);
/* Rotary embedding of n rows of `heads` heads of D values; row r at position p0 + r % S. */
void rf__llm_rope(float *x, uint64_t n, uint64_t heads, uint64_t D, uint64_t S, uint64_t p0,
                  const float *cs);
/* Cos/sin table for T positions (base 10000). */
void rf__llm_rope_table(float *cs, uint64_t T, uint64_t D);
/* Attention in three team jobs over a tile of query rows i0 .. i0 + ni - 1 of the pass's S:
 * scores = q.K^T / sqrt(D) (causal) into lx->scores [B, H, ni, p0 + S], softmax, A.V into those
 * rows of lx->attn. A long prompt goes tile by tile, so the scores never hold S x S per head. */
void rf__llm_attn_scores(rf__llm_exec *lx, uint64_t layer, uint64_t S, uint64_t p0, uint64_t i0,
                         uint64_t ni);
void rf__llm_attn_softmax(rf__llm_exec *lx, uint64_t S, uint64_t p0, uint64_t i0, uint64_t ni);
void rf__llm_attn_values(rf__llm_exec *lx, uint64_t layer, uint64_t S, uint64_t p0, uint64_t i0,
                         uint64_t ni);
/* Query rows per attention tile: as many as keep the tile's scores within 32 MiB (at least 1). */
uint64_t rf__llm_attn_tile(uint64_t B, uint64_t H, uint64_t S, uint64_t T);
/* y = act(y) (SiLU or GELU, tanh form) over n values; y *= z. */
void rf__llm_activation(float *y, uint64_t n, int gelu, int isa);
void rf__llm_mul(float *y, const float *z, uint64_t n);
void rf__llm_add(float *y, const float *z, uint64_t n);

/* ---- llm_exec_time.c: the harness ---- */
typedef struct rf__llm_exec_timing {
    double med_s, min_s, max_s;          /* pass totals */
    double step_s[RF__STEP_COUNT];       /* per kind, in the median pass */
    uint64_t step_calls[RF__STEP_COUNT]; /* steps per kind in one pass */
    unsigned repeat;
    /* decode's roof (when asked): a products-only pass (rf__llm_exec_products) after each timed
     * step, the median of their totals with min and max; the products' time inside the median
     * step; the median over the pairs of (products alone / the step before them) */
    double prod_med_s, prod_min_s, prod_max_s, prod_in_step_s, prod_share;
} rf__llm_exec_timing;
/* warm-up passes, then `repeat` timed passes (0: as many as fill about a second, 3 to 50). */
/* One progress line (RF_LOG_INFO: "measuring: 12.3 s  prefill, pass 3 of 7") when two seconds
 * or more have passed on lx->clock since the last one; n = 0: no pass count. */
void rf__llm_exec_progress(rf__llm_exec *lx, const char *step, unsigned k, unsigned n);

/* `roof` non-zero (decode): a products-only pass after every warm-up and timed pass, out->prod_*
 * set. */
rf_status rf__llm_exec_time(rf__llm_exec *lx, uint64_t S, uint64_t p0, unsigned warmup,
                            unsigned repeat, int roof, rf__llm_exec_timing *out);
/* CLOCK_MONOTONIC seconds (the default clock). */
double rf__llm_exec_clock(void *user);
#endif
