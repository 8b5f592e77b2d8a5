/* llm_exec_int.h — the state of a measured LLM pass shared by llm_exec.c (set-up, timing,
 * result), llm_exec_pass.c (one forward pass through the blocks) and llm_exec_ops.c (norms, RoPE,
 * attention, activations in plain C). Never installed. */
#ifndef RF_LLM_EXEC_INT_H
#define RF_LLM_EXEC_INT_H

#include "exec/qkernels.h"
#include "llm/llm_int.h"
#include "roofline/exec_llm.h"

/* Kinds of layer timed, named as rf_llm_build names its layers (without "blk.N."). */
/* clang-format off */
#define RF__LX_KINDS(X)                  \
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
#define RF__LX_ENUM(id, name) RF__LK_##id,
    RF__LX_KINDS(RF__LX_ENUM)
#undef RF__LX_ENUM
        RF__LK_COUNT
};
extern const char *const rf__lx_kind_names[RF__LK_COUNT];

/* A weight as the kernels read it. */
typedef struct rf__lw {
    int used;            /* 1 when the pass reads it */
    int id;              /* kernel type (matrices), -1 for vectors */
    const uint8_t *data; /* rows x row_bytes: the mapped file, or synth */
    size_t row_bytes;
    uint64_t rows, cols;
    float *vec;     /* vectors (norms, biases): an F32 copy of n = rows x cols values */
    uint8_t *synth; /* substitute data (owned), or NULL */
} rf__lw;

typedef struct rf__lx {
    rf_ctx *ctx;
    const rf_llm_model *m;
    rf__qmm *q;
    rf__lw *lw; /* one per m->w */
    uint64_t B, E, H, Hkv, D, F, V, nl;
    uint64_t Tmax, rows_max; /* positions held by the cache; activation rows (B x S) */
    float eps;
    /* activations, F32 [rows_max, width] */
    float *x, *xn, *qb, *kb, *vb, *att, *o, *gb, *ub, *logits, *tmp;
    float *scores;  /* [B, H, S, T] of the current pass */
    float *rope_cs; /* [Tmax, D/2] cos, sin interleaved */
    float *kc, *vc; /* KV cache [nl, B, Tmax, Hkv x D] */
    double mem_bytes;
    /* timing of the pass under way */
    double (*clock)(void *);
    void *clock_user;
    double t_last;
    double ks[RF__LK_COUNT];
    uint64_t kn[RF__LK_COUNT];
} rf__lx;

/* The lw of weight `role` of block b (-1: global), or NULL when the model has none. */
const rf__lw *rf__lx_w(const rf__lx *lx, int64_t b, int role);

/* Resolve every weight (llm_exec_weights.c); lx->V and lx->F set; substitutions into r. */
rf_status rf__lx_setup_weights(rf__lx *lx, rf_exec_llm_result *r);

/* One forward pass of S new tokens per sequence at positions p0 .. p0 + S - 1 (llm_exec_pass.c):
 * every step timed into lx->ks / lx->kn. */
rf_status rf__lx_pass(rf__lx *lx, uint64_t S, uint64_t p0);

/* ---- llm_exec_ops.c ---- */
/* RMSNorm (w may be NULL) or LayerNorm (bias may be NULL) of n rows of width c, in place ok. */
void rf__lx_norm(const float *x, float *y, uint64_t n, uint64_t c, const float *w, const float *b,
                 int layernorm, float eps);
/* Rotary embedding of n rows of `heads` heads of D values; row r at position p0 + r % S. */
void rf__lx_rope(float *x, uint64_t n, uint64_t heads, uint64_t D, uint64_t S, uint64_t p0,
                 const float *cs);
/* Cos/sin table for T positions (base 10000). */
void rf__lx_rope_table(float *cs, uint64_t T, uint64_t D);
/* Attention in three team jobs: scores = q.K^T / sqrt(D) (causal), softmax, A.V into lx->att. */
void rf__lx_scores(rf__lx *lx, uint64_t layer, uint64_t S, uint64_t p0);
void rf__lx_softmax(rf__lx *lx, uint64_t S, uint64_t p0);
void rf__lx_av(rf__lx *lx, uint64_t layer, uint64_t S, uint64_t p0);
/* y = act(y) (SiLU or GELU, tanh form) over n values; y *= z. */
void rf__lx_act(float *y, uint64_t n, int gelu, int isa);
void rf__lx_mul(float *y, const float *z, uint64_t n);
void rf__lx_add(float *y, const float *z, uint64_t n);

/* ---- llm_exec_time.c: the harness ---- */
typedef struct rf__lx_timing {
    double med_s, min_s, max_s; /* pass totals */
    double ks[RF__LK_COUNT];    /* per kind, in the median pass */
    uint64_t kn[RF__LK_COUNT];  /* steps per kind in one pass */
    unsigned repeat;
} rf__lx_timing;
/* warm-up passes, then `repeat` timed passes (0: as many as fill about a second, 3 to 50). */
rf_status rf__lx_time(rf__lx *lx, uint64_t S, uint64_t p0, unsigned warmup, unsigned repeat,
                      rf__lx_timing *out);
/* CLOCK_MONOTONIC seconds (the default clock). */
double rf__lx_clock(void *user);
#endif
