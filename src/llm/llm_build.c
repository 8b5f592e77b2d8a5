/* llm_build.c — rf_llm_build: the graph of one phase (prefill of S tokens, or decode of one token
 * against L cached positions) at batch B: every weight of the file as a graph tensor (its real
 * type, or the what-if type), the embedding gather of B x S rows, the decoder blocks
 * (llm_block.c; one block x n_layer when all are identical), the final norm and the LM head (the
 * token embedding when there is no output tensor). An unknown architecture gets one matrix product
 * per 2-D weight. Conventions: docs/cost-model.md "LLM graphs". */
#include <stdio.h>
#include <string.h>

#include "llm/llm_build_int.h"

/* Room for a block's prefix (pre, under 32 bytes), a dot and the longest name a caller passes (a
 * literal, or rf__per_weight's 320-byte nx, ny): no name is cut. */
#define RF__LB_FULL_MAX (sizeof(((rf__lb *)0)->pre) + 1 + 320)

rf_status rf__lb_act(rf__lb *b, const char *name, rf_dtype t, uint32_t flags, uint32_t rank,
                     const int64_t *dims, uint32_t *out)
{
    char full[RF__LB_FULL_MAX];
    snprintf(full, sizeof full, "%s%s%s", b->in_block ? b->pre : "", b->in_block ? "." : "", name);
    return rf_graph_add_tensor(b->ctx, b->g, full, t, rank, dims, flags, out);
}

rf_status rf__lb_layer(rf__lb *b, const char *name, const char *op_type, int kind,
                       const uint32_t *in, uint32_t n_in, const uint32_t *out, uint32_t n_out,
                       uint32_t *index)
{
    char full[RF__LB_FULL_MAX];
    uint32_t li;
    snprintf(full, sizeof full, "%s%s%s", b->in_block ? b->pre : "", b->in_block ? "." : "", name);
    RF_TRY(rf_graph_add_layer(b->ctx, b->g, full, op_type, in, n_in, out, n_out, &li));
    rf_layer *l = &b->g->layers[li];
    /* op types of our own ("KVStore", "View") name what llama.cpp does; their cost rule is that
     * of a known kind (docs/cost-model.md "LLM graphs") */
    if (kind >= 0) l->kind = (rf_op_kind)kind;
    l->repeat = b->repeat;
    if (b->in_block) RF_TRY(rf_graph_set_attr_int(b->ctx, b->g, li, "llm_block", 1));
    if (index) *index = li;
    return RF_OK;
}

/* Weight tensor of role in block blk (-1 global), or NULL. */
static const rf__llm_w *rf__w(const rf__lb *b, int64_t blk, int role)
{
    return role < 0 ? NULL : rf__llm_get(b->m, blk, role);
}

rf_status rf__lb_linear(rf__lb *b, const char *name, uint32_t x, uint64_t in, int64_t blk, int role,
                        int bias_role, uint32_t *y, uint64_t *width)
{
    const rf__llm_w *w = rf__w(b, blk, role), *bias = rf__w(b, blk, bias_role);
    RF_CHECK(b->ctx, w && w->rank == 2, RF_FORMAT, "model: %s weight of '%s' is not a matrix",
             rf__llm_role_name(role), name);
    uint64_t d0 = (uint64_t)w->dims[0], d1 = (uint64_t)w->dims[1];
    int trans_b = d1 == in && !(d0 == in && b->m->conv1d); /* Linear [out, in] */
    RF_CHECK(b->ctx, trans_b || d0 == in, RF_FORMAT,
             "model: tensor '%s' is %llux%llu, expected an input width of %llu", w->name,
             (unsigned long long)d0, (unsigned long long)d1, (unsigned long long)in);
    *width = trans_b ? d0 : d1;
    int64_t dims[2] = {(int64_t)b->BS, (int64_t)*width};
    RF_TRY(rf__lb_act(b, name, b->act, 0, 2, dims, y));
    uint32_t ins[3] = {x, b->wt[w - b->m->w], bias ? b->wt[bias - b->m->w] : RF_GRAPH_NO_TENSOR};
    uint32_t li;
    RF_TRY(rf__lb_layer(b, name, "Gemm", -1, ins, bias ? 3 : 2, y, 1, &li));
    return trans_b ? rf_graph_set_attr_int(b->ctx, b->g, li, "transB", 1) : RF_OK;
}

rf_status rf__lb_norm(rf__lb *b, const char *name, uint32_t x, uint64_t width, int64_t blk,
                      int role, int bias_role, uint32_t *y)
{
    const rf__llm_w *w = rf__w(b, blk, role), *bias = rf__w(b, blk, bias_role);
    int64_t dims[2] = {(int64_t)b->BS, (int64_t)width};
    RF_TRY(rf__lb_act(b, name, b->act, 0, 2, dims, y));
    uint32_t ins[3] = {x, w ? b->wt[w - b->m->w] : RF_GRAPH_NO_TENSOR,
                       bias ? b->wt[bias - b->m->w] : RF_GRAPH_NO_TENSOR};
    return rf__lb_layer(b, name, b->m->layernorm ? "LayerNormalization" : "RMSNorm", -1, ins,
                        bias ? 3 : 2, y, 1, NULL);
}

rf_status rf__lb_elem(rf__lb *b, const char *name, const char *op, const uint32_t *in,
                      uint32_t n_in, uint64_t width, uint32_t *y)
{
    int64_t dims[2] = {(int64_t)b->BS, (int64_t)width};
    RF_TRY(rf__lb_act(b, name, b->act, 0, 2, dims, y));
    return rf__lb_layer(b, name, op, -1, in, n_in, y, 1, NULL);
}

static rf_dtype rf__bits_type(uint32_t bits)
{
    switch (bits) {
    case 32: return RF_DTYPE_F32;
    case 8: return RF_DTYPE_I8;
    case 4: return RF_DTYPE_I4;
    default: return RF_DTYPE_F16;
    }
}

/* Every weight of the file as a graph tensor (so params and weight bytes are the file's). */
static rf_status rf__weights(rf__lb *b)
{
    const rf_llm_model *m = b->m;
    b->wt = rf_graph_alloc(b->ctx, b->g, (m->n_w + 1) * sizeof *b->wt);
    if (!b->wt) return rf_ctx_error_status(b->ctx);
    for (size_t i = 0; i < m->n_w; i++) {
        const rf__llm_w *w = &m->w[i];
        rf_dtype t = w->dtype;
        rf_dtype o = b->o->weights;
        if (o != RF_DTYPE_UNKNOWN && w->rank >= 2 && rf_dtype_block_bytes(o) &&
            (uint64_t)w->dims[w->rank - 1] % rf_dtype_block_elems(o) == 0)
            t = o;
        RF_TRY(rf_graph_add_tensor(b->ctx, b->g, w->name, t, w->rank, w->dims, RF_TENSOR_WEIGHT,
                                   &b->wt[i]));
        if (t == w->dtype && !rf__add_ok(b->g->weight_bytes, w->extra_bytes, &b->g->weight_bytes))
            b->g->weight_bytes = UINT64_MAX;
    }
    return RF_OK;
}

/* Token (and position) embedding: gathers of B x S rows. */
static rf_status rf__embedding(rf__lb *b, uint32_t *x)
{
    const rf_llm_hparams *hp = &b->m->hp;
    int64_t ids[2] = {(int64_t)b->B, (int64_t)b->S}, e = (int64_t)hp->n_embd;
    int64_t dims[2] = {(int64_t)b->BS, e};
    uint32_t tok, in[2];
    RF_TRY(
        rf_graph_add_tensor(b->ctx, b->g, "tokens", RF_DTYPE_I32, 2, ids, RF_TENSOR_INPUT, &tok));
    RF_TRY(rf__lb_act(b, "embd", b->act, 0, 2, dims, x));
    in[0] = b->wt[rf__llm_get(b->m, -1, RF__R_TOK_EMBD) - b->m->w];
    in[1] = tok;
    RF_TRY(rf__lb_layer(b, "token_embd", "Gather", -1, in, 2, x, 1, NULL));
    const rf__llm_w *pe = rf__llm_get(b->m, -1, RF__R_POS_EMBD);
    if (pe) {
        uint32_t pos, p;
        RF_TRY(rf_graph_add_tensor(b->ctx, b->g, "positions", RF_DTYPE_I32, 2, ids, RF_TENSOR_INPUT,
                                   &pos));
        RF_TRY(rf__lb_act(b, "pos_embd", b->act, 0, 2, dims, &p));
        in[0] = b->wt[pe - b->m->w];
        in[1] = pos;
        RF_TRY(rf__lb_layer(b, "position_embd", "Gather", -1, in, 2, &p, 1, NULL));
        in[0] = *x;
        in[1] = p;
        RF_TRY(rf__lb_elem(b, "embd_add", "Add", in, 2, hp->n_embd, x));
    }
    uint32_t unscaled = *x;
    if (b->m->gemma_scale) RF_TRY(rf__lb_elem(b, "embd_scale", "Mul", &unscaled, 1, hp->n_embd, x));
    return RF_OK;
}

/* Final norm and LM head (logits of every position, as the fixtures count them). */
static rf_status rf__head(rf__lb *b, uint32_t x)
{
    const rf_llm_model *m = b->m;
    uint32_t xn = x, logits;
    uint64_t v;
    if (rf__llm_get(m, -1, RF__R_OUT_NORM))
        RF_TRY(rf__lb_norm(b, "output_norm", x, m->hp.n_embd, -1, RF__R_OUT_NORM, RF__R_OUT_NORM_B,
                           &xn));
    int role = m->hp.tied_embeddings ? RF__R_TOK_EMBD : RF__R_OUTPUT;
    RF_TRY(rf__lb_linear(b, "output", xn, m->hp.n_embd, -1, role, -1, &logits, &v));
    b->g->tensors[logits].flags |= RF_TENSOR_OUTPUT;
    return RF_OK;
}

/* Unknown architecture: one matrix product per weight of rank >= 2 (rows B x S). */
static rf_status rf__per_weight(rf__lb *b)
{
    const rf_llm_model *m = b->m;
    for (size_t i = 0; i < m->n_w; i++) {
        const rf__llm_w *w = &m->w[i];
        if (w->rank < 2) continue;
        uint64_t in = 1;
        for (uint32_t d = 1; d < w->rank; d++) in *= (uint64_t)w->dims[d];
        char nx[320], ny[320];
        snprintf(nx, sizeof nx, "%s:in", w->name);
        snprintf(ny, sizeof ny, "%s:out", w->name);
        int64_t dx[2] = {(int64_t)b->BS, (int64_t)in}, dy[2] = {(int64_t)b->BS, w->dims[0]};
        uint32_t x, y, ins[2];
        RF_TRY(rf__lb_act(b, nx, b->act, RF_TENSOR_INPUT, 2, dx, &x));
        RF_TRY(rf__lb_act(b, ny, b->act, 0, 2, dy, &y));
        ins[0] = x;
        ins[1] = b->wt[i];
        if (w->role == RF__R_TOK_EMBD || w->role == RF__R_POS_EMBD) {
            dy[1] = (int64_t)in;
            RF_TRY(rf_graph_set_shape(b->ctx, b->g, y, 2, dy));
            RF_TRY(rf__lb_layer(b, w->name, "Gather", -1, ins + 1, 1, &y, 1, NULL));
            continue;
        }
        RF_TRY(rf__lb_layer(b, w->name, "MatMul", -1, ins, 2, &y, 1, NULL));
    }
    return RF_OK;
}

static rf_status rf__blocks(rf__lb *b)
{
    const rf_llm_hparams *hp = &b->m->hp;
    uint32_t x;
    RF_TRY(rf__embedding(b, &x));
    int grouped = hp->uniform && !b->o->granular; /* --granular: every block's rows */
    uint64_t n = grouped ? (hp->n_layer ? 1 : 0) : hp->n_layer;
    b->repeat = grouped && hp->n_layer ? hp->n_layer : 1;
    b->in_block = 1;
    for (uint64_t i = 0; i < n; i++) {
        b->blk = (int64_t)i;
        if (grouped)
            snprintf(b->pre, sizeof b->pre, "blk.*");
        else
            snprintf(b->pre, sizeof b->pre, "blk.%llu", (unsigned long long)i);
        RF_TRY(rf__lb_block(b, x, &x));
    }
    b->in_block = 0;
    b->repeat = 1;
    return rf__head(b, x);
}

static rf_status rf__build(rf__lb *b)
{
    const rf_llm_hparams *hp = &b->m->hp;
    RF_TRY(rf_graph_set_architecture(b->ctx, b->g, hp->architecture));
    RF_TRY(rf_graph_set_name(b->ctx, b->g, hp->name));
    RF_TRY(rf_graph_add_meta(b->ctx, b->g, "phase",
                             b->o->phase == RF_LLM_DECODE ? "decode" : "prefill"));
    RF_TRY(rf__weights(b));
    return hp->known ? rf__blocks(b) : rf__per_weight(b);
}

rf_status rf_llm_build(rf_ctx *ctx, const rf_llm_model *m, const rf_llm_opts *o, rf_graph **out)
{
    static const rf_llm_opts defaults;
    o = o ? o : &defaults;
    rf__lb b = {0};
    b.ctx = ctx;
    b.m = m;
    b.o = o;
    b.repeat = 1;
    b.B = o->batch ? o->batch : 1;
    b.S = o->phase == RF_LLM_DECODE ? 1 : o->prompt ? o->prompt : 128;
    b.T = o->phase == RF_LLM_DECODE ? (o->context ? o->context : 128) : b.S;
    b.act = rf__bits_type(o->act_bits);
    b.kv = rf__bits_type(o->kv_bits);
    RF_CHECK(ctx, b.B <= (1u << 24) && b.S <= (1u << 24) && b.T <= (1u << 24), RF_RANGE,
             "LLM graph: batch, prompt and context must be at most 16777216");
    b.BS = b.B * b.S;
    *out = NULL;
    RF_TRY(rf_graph_new(ctx, m->hp.format, &b.g));
    rf_status st = rf__build(&b);
    if (st != RF_OK) {
        rf_graph_free(b.g);
        return st;
    }
    *out = b.g;
    return RF_OK;
}
