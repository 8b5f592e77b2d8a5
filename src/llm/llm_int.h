/* llm_int.h — internals of src/llm: the roles a weight plays in a transformer (the same for GGUF
 * and SafeTensors names), the opened model (hyper-parameters + weights by block and role), and
 * the helpers shared by the name tables (llm_names.c), the openers (llm_open.c) and the graph
 * builder (llm_build.c, llm_block.c). Never installed. */
#ifndef RF_LLM_INT_H
#define RF_LLM_INT_H

#include "core/rf_int.h"
#include "roofline/llm.h"

/* Roles of a weight. Globals first, then per block. */
/* clang-format off */
#define RF__LLM_ROLES(X)  \
    X(TOK_EMBD)           \
    X(POS_EMBD)           \
    X(OUT_NORM)           \
    X(OUT_NORM_B)         \
    X(OUTPUT)             \
    X(ATTN_NORM)          \
    X(ATTN_NORM_B)        \
    X(Q)                  \
    X(Q_B)                \
    X(K)                  \
    X(K_B)                \
    X(V)                  \
    X(V_B)                \
    X(QKV)                \
    X(QKV_B)              \
    X(O)                  \
    X(O_B)                \
    X(Q_NORM)             \
    X(K_NORM)             \
    X(POST_ATTN_NORM)     \
    X(FFN_NORM)           \
    X(FFN_NORM_B)         \
    X(GATE)               \
    X(UP)                 \
    X(UP_B)               \
    X(GATE_UP)            \
    X(DOWN)               \
    X(DOWN_B)             \
    X(POST_FFN_NORM)      \
    X(ROUTER)             \
    X(GATE_EXPS)          \
    X(UP_EXPS)            \
    X(DOWN_EXPS)          \
    X(OTHER)
/* clang-format on */

enum {
#define RF__ROLE_ENUM(n) RF__R_##n,
    RF__LLM_ROLES(RF__ROLE_ENUM)
#undef RF__ROLE_ENUM
        RF__R_COUNT
};
#define RF__R_FIRST_BLOCK RF__R_ATTN_NORM

/* One weight of the file. dims outermost first (GGUF dims reversed). */
typedef struct rf__llm_w {
    char *name;
    int role;
    int64_t block;  /* -1: global */
    int64_t expert; /* SafeTensors per-expert tensors: the expert index; else -1 */
    rf_dtype dtype;
    uint32_t rank;
    int64_t dims[RF_GRAPH_MAX_RANK];
    uint64_t extra_bytes; /* stored beyond what dtype and dims give (APR: the per-tensor scale of
                             APR_Q8, K-quant rows padded one by one); added to the graph's
                             weight_bytes */
    const uint8_t *data;  /* the tensor's bytes in the file mapping the model keeps (GGUF), or NULL
                             (SafeTensors, big-endian files): see llm_data.c */
    uint64_t n_bytes;     /* bytes at data */
} rf__llm_w;

struct rf_llm_model {
    rf_llm_hparams hp;
    rf__llm_w *w;
    size_t n_w;
    int32_t *slot;   /* (n_layer + 1) x RF__R_COUNT indices into w, -1 absent; row n_layer:
                        globals */
    int act_gelu;    /* MLP activation: 1 GELU, 0 SiLU */
    int layernorm;   /* 1: LayerNorm (gpt2), 0: RMSNorm */
    int rope;        /* 1: rotary positions */
    int gemma_scale; /* 1: embeddings scaled by sqrt(n_embd) */
    int conv1d;      /* SafeTensors gpt2: matrices stored [in, out] */
    rf_allocator alloc;
    struct rf__map *maps; /* file mappings kept for the weights' data (llm_data.c), or NULL */
    uint32_t n_maps;
};

/* Weight of `role` in block `b` (-1: global), or NULL. */
static inline const rf__llm_w *rf__llm_get(const rf_llm_model *m, int64_t b, int role)
{
    uint64_t row = b < 0 ? m->hp.n_layer : (uint64_t)b;
    if (!m->slot || row > m->hp.n_layer) return NULL;
    int32_t i = m->slot[row * RF__R_COUNT + (uint64_t)role];
    return i < 0 ? NULL : &m->w[i];
}

/* Role and block of a tensor name: GGUF (`blk.N.attn_q.weight`) or Hugging Face
 * (`model.layers.N.self_attn.q_proj.weight`, `h.N.attn.c_attn.weight`). gemma2 selects the
 * gemma2 meaning of post_attention_layernorm. *expert set for `experts.K.` names. */
int rf__llm_role_gguf(const char *name, int64_t *block);
int rf__llm_role_hf(const char *name, int gemma2, int64_t *block, int64_t *expert);

/* Family traits by architecture name; 0 when the family is not known. */
int rf__llm_family(rf_llm_model *m, const char *arch);

/* Assign slots, derive hyper-parameters missing from the keys from the tensors, check the
 * shapes agree, decide uniformity (llm_open.c). */
rf_status rf__llm_finish(rf_ctx *ctx, rf_llm_model *m, const char *path);

/* Keep the mappings of an opened GGUF file in the model and point every weight at its bytes
 * (m->w[i] is g's tensor i); the file's tensor data stays mapped, never read, until
 * rf__llm_data_free (llm_data.c). */
struct rf_gguf;
rf_status rf__llm_keep_gguf(rf_ctx *ctx, rf_llm_model *m, struct rf_gguf *g);
void rf__llm_data_free(rf_llm_model *m);
/* Give the mapping `keep` (the first file's, may be NULL) to the reader's first shard so that
 * rf__llm_keep_gguf takes it over; *keep is emptied when taken. */
struct rf__map;
rf_status rf__llm_adopt_map(rf_ctx *ctx, struct rf_gguf *g, struct rf__map *keep);

/* Names of roles (for messages). */
const char *rf__llm_role_name(int role);

#endif
