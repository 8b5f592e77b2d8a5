/* llm_check.c — after opening: every weight into its (block, role) slot, the hyper-parameters the
 * keys left out derived from the tensors (n_embd and vocab from the token embedding, KV heads from
 * the K weight's width, the MLP width from the up/gate weights), the checks that the tensors agree
 * with each other, and whether all blocks are identical. Errors name the file and the tensor. */
#include <string.h>

#include "llm/llm_int.h"

/* Out features of a matrix weight whose input width is `in` (Linear [out, in], or [in, out] as
 * GPT-2's Conv1D stores it); 0 when neither dimension is `in`. */
static uint64_t rf__out(const rf__llm_w *w, uint64_t in)
{
    if (!w || w->rank != 2) return 0;
    if ((uint64_t)w->dims[1] == in) return (uint64_t)w->dims[0];
    if ((uint64_t)w->dims[0] == in) return (uint64_t)w->dims[1];
    return 0;
}

static rf_status rf__slots(rf_ctx *ctx, rf_llm_model *m, const char *path)
{
    uint64_t nl = m->hp.n_layer;
    if (!nl) /* no block_count key: the tensors tell */
        for (size_t i = 0; i < m->n_w; i++)
            if (m->w[i].block >= 0 && (uint64_t)m->w[i].block + 1 > nl)
                nl = (uint64_t)m->w[i].block + 1;
    RF_CHECK(ctx, nl < 100000, RF_FORMAT, "%s: %llu blocks is beyond reason", path,
             (unsigned long long)nl);
    m->hp.n_layer = nl;
    m->slot = rf__malloc(ctx, (size_t)(nl + 1) * RF__R_COUNT * sizeof *m->slot);
    if (!m->slot) return RF_NOMEM_ERR(ctx);
    memset(m->slot, 0xff, (size_t)(nl + 1) * RF__R_COUNT * sizeof *m->slot);
    for (size_t i = 0; i < m->n_w; i++) {
        rf__llm_w *w = &m->w[i];
        if (w->role == RF__R_OTHER) continue;
        RF_CHECK(ctx, w->block < 0 || (uint64_t)w->block < nl, RF_FORMAT,
                 "%s: tensor '%s' is in block %lld but the model has %llu blocks", path, w->name,
                 (long long)w->block, (unsigned long long)nl);
        RF_CHECK(ctx, w->dtype != RF_DTYPE_UNKNOWN, RF_UNSUPPORTED,
                 "%s: tensor '%s' has a type roofline cannot size", path, w->name);
        int32_t *s =
            &m->slot[(w->block < 0 ? nl : (uint64_t)w->block) * RF__R_COUNT + (uint64_t)w->role];
        if (w->expert > 0) continue; /* per-expert tensors: expert 0 stands for the set */
        RF_CHECK(ctx, *s < 0, RF_FORMAT, "%s: tensor '%s' plays the role of '%s' a second time",
                 path, w->name, m->w[*s].name);
        *s = (int32_t)i;
    }
    /* llama.cpp's phi3 stores gate and up fused in ffn_up ([E, 2F]) */
    for (uint64_t b = 0; strcmp(m->hp.architecture, "phi3") == 0 && b < nl; b++) {
        int32_t *r = &m->slot[b * RF__R_COUNT];
        if (r[RF__R_UP] >= 0 && r[RF__R_GATE] < 0 && r[RF__R_GATE_UP] < 0) {
            r[RF__R_GATE_UP] = r[RF__R_UP];
            r[RF__R_UP] = -1;
            m->w[r[RF__R_GATE_UP]].role = RF__R_GATE_UP;
        }
    }
    return RF_OK;
}

/* n_embd, vocab, heads, head_dim, KV heads, n_ff from the tensors where the keys are silent. */
static rf_status rf__derive(rf_ctx *ctx, rf_llm_model *m, const char *path)
{
    rf_llm_hparams *hp = &m->hp;
    const rf__llm_w *te = rf__llm_get(m, -1, RF__R_TOK_EMBD);
    if (te && te->rank == 2) {
        uint64_t a = (uint64_t)te->dims[0], b = (uint64_t)te->dims[1];
        if (!hp->n_embd) hp->n_embd = b;
        if (hp->n_embd == a && hp->n_embd != b) a = b; /* stored [E, V] */
        hp->n_vocab = a;
    }
    hp->tied_embeddings = rf__llm_get(m, -1, RF__R_OUTPUT) == NULL;
    if (!hp->n_layer || !hp->n_embd || !hp->n_head) return RF_OK; /* not a known shape */
    if (!hp->head_dim) hp->head_dim = hp->n_embd / hp->n_head;
    uint64_t e = hp->n_embd, d = hp->head_dim, qd = hp->n_head * d;
    const rf__llm_w *k = rf__llm_get(m, 0, RF__R_K), *qkv = rf__llm_get(m, 0, RF__R_QKV);
    uint64_t kv = k ? rf__out(k, e) : 0;
    if (!k && qkv) {
        uint64_t o = rf__out(qkv, e);
        kv = o > qd ? (o - qd) / 2 : 0;
    }
    if (kv) {
        RF_CHECK(ctx, d && kv % d == 0, RF_FORMAT,
                 "%s: tensor '%s' has %llu outputs, not a multiple of head_dim %llu", path,
                 k ? k->name : qkv->name, (unsigned long long)kv, (unsigned long long)d);
        hp->n_head_kv = kv / d;
    }
    if (!hp->n_head_kv) hp->n_head_kv = hp->n_head;
    const rf__llm_w *up = rf__llm_get(m, 0, RF__R_UP), *gu = rf__llm_get(m, 0, RF__R_GATE_UP);
    const rf__llm_w *ue = rf__llm_get(m, 0, RF__R_UP_EXPS);
    uint64_t f = up ? rf__out(up, e) : gu ? rf__out(gu, e) / 2 : 0;
    if (!f && ue && ue->rank == 3) f = (uint64_t)ue->dims[1];
    if (!f && ue && ue->rank == 2) f = rf__out(ue, e);
    if (f) hp->n_ff = f;
    return RF_OK;
}

/* Same type and shape for every role in block b as in block 0. */
static int rf__same_block(const rf_llm_model *m, uint64_t b)
{
    for (int r = RF__R_FIRST_BLOCK; r < RF__R_OTHER; r++) {
        const rf__llm_w *x = rf__llm_get(m, 0, r), *y = rf__llm_get(m, (int64_t)b, r);
        if (!x != !y) return 0;
        if (x && (x->dtype != y->dtype || x->rank != y->rank ||
                  memcmp(x->dims, y->dims, sizeof x->dims) != 0))
            return 0;
    }
    return 1;
}

/* The roles every block of a built family needs. */
static int rf__complete(const rf_llm_model *m, uint64_t b, const char **missing)
{
    int64_t i = (int64_t)b;
    int attn =
        rf__llm_get(m, i, RF__R_QKV) ||
        (rf__llm_get(m, i, RF__R_Q) && rf__llm_get(m, i, RF__R_K) && rf__llm_get(m, i, RF__R_V));
    int mlp = rf__llm_get(m, i, RF__R_DOWN) &&
              (rf__llm_get(m, i, RF__R_UP) || rf__llm_get(m, i, RF__R_GATE_UP));
    int moe = rf__llm_get(m, i, RF__R_ROUTER) && rf__llm_get(m, i, RF__R_UP_EXPS) &&
              rf__llm_get(m, i, RF__R_DOWN_EXPS) && rf__llm_get(m, i, RF__R_GATE_EXPS);
    *missing = !attn                                 ? "q/k/v or qkv"
               : !rf__llm_get(m, i, RF__R_O)         ? "attention output"
               : !(mlp || moe)                       ? "MLP"
               : !rf__llm_get(m, -1, RF__R_TOK_EMBD) ? "token embedding"
                                                     : NULL;
    return *missing == NULL;
}

rf_status rf__llm_finish(rf_ctx *ctx, rf_llm_model *m, const char *path)
{
    rf_llm_hparams *hp = &m->hp;
    RF_TRY(rf__slots(ctx, m, path));
    RF_TRY(rf__derive(ctx, m, path));
    int fam = rf__llm_family(m, hp->architecture);
    const char *missing = "hyper-parameters (embedding length, block count, head count)";
    int ok = fam && hp->n_layer && hp->n_embd && hp->n_head && hp->head_dim;
    for (uint64_t b = 0; ok && b < hp->n_layer; b++) ok = rf__complete(m, b, &missing);
    hp->known = ok;
    const char *arch = hp->architecture[0] ? hp->architecture : "(none)";
    if (!ok && !hp->architecture[0] && strcmp(hp->format, "safetensors") == 0)
        rf__log(ctx, RF_LOG_WARN,
                "%s: the architecture is unknown (no config.json beside it, or no model_type "
                "in it): its weights are reported instead",
                path);
    else if (!ok && !fam)
        rf__log(ctx, RF_LOG_WARN,
                "%s: architecture '%s' is not one roofline builds block by block: its weights "
                "are reported instead",
                path, arch);
    else if (!ok)
        rf__log(ctx, RF_LOG_WARN,
                "%s: architecture '%s' without the %s weights or keys roofline needs: its "
                "weights are reported instead",
                path, arch, missing);
    hp->uniform = 1;
    for (uint64_t b = 1; b < hp->n_layer; b++) hp->uniform &= rf__same_block(m, b);
    if (!hp->n_expert_used || !hp->n_expert) hp->n_expert = hp->n_expert_used = 0;
    hp->active_params = hp->params;
    for (size_t i = 0; hp->n_expert && i < m->n_w; i++) {
        const rf__llm_w *w = &m->w[i];
        if (w->role < RF__R_GATE_EXPS || w->role > RF__R_DOWN_EXPS) continue;
        uint64_t n = 1;
        for (uint32_t d = 0; d < w->rank; d++) n *= (uint64_t)w->dims[d];
        uint64_t unused = w->expert >= 0 ? (uint64_t)w->expert >= hp->n_expert_used
                                         : n / hp->n_expert * (hp->n_expert - hp->n_expert_used);
        hp->active_params -= w->expert >= 0 ? (unused ? n : 0) : unused;
    }
    return RF_OK;
}
