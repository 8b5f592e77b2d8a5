/* llm_block.c — one decoder block as layers: norm, q/k/v (or fused qkv, split as a view), q/k
 * norms, RoPE, the KV-cache store (kv_write), Q.K^T and A.V over T cached positions (kv_read;
 * GQA: the cache holds n_head_kv heads, the arithmetic is per query head), softmax, output
 * projection, residual add; then norm, the MLP (gated, fused gate_up, plain, or MoE routed to the
 * experts the batch touches), residual add. Shapes from the file's weights (llm_check.c).
 * Conventions: docs/cost-model.md "LLM graphs". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/llm_build_int.h"

#define RF__BLK(b, role) rf__llm_get((b)->m, (b)->blk, (role))

/* A view: no work, no traffic (llama.cpp ggml_view / ggml_reshape). */
static rf_status rf__view(rf__lb *b, const char *name, uint32_t x, const uint32_t *outs, uint32_t n)
{
    return rf__lb_layer(b, name, "View", RF_OP_METADATA, &x, 1, outs, n, NULL);
}

/* q [BS, H*D], k [BS, Hkv*D], v [BS, Hkv*D] from the fused or separate projections. */
static rf_status rf__qkv(rf__lb *b, uint32_t xn, uint32_t qkv[3])
{
    const rf_llm_hparams *hp = &b->m->hp;
    uint64_t e = hp->n_embd, d = hp->head_dim, w;
    if (RF__BLK(b, RF__R_QKV)) {
        uint32_t f;
        RF_TRY(rf__lb_linear(b, "attn_qkv", xn, e, b->blk, RF__R_QKV, RF__R_QKV_B, &f, &w));
        RF_CHECK(b->ctx, w == (hp->n_head + 2 * hp->n_head_kv) * d, RF_FORMAT,
                 "model: fused qkv weight of block %lld has %llu outputs, expected %llu",
                 (long long)b->blk, (unsigned long long)w,
                 (unsigned long long)((hp->n_head + 2 * hp->n_head_kv) * d));
        static const char *const nm[3] = {"q", "k", "v"};
        for (int i = 0; i < 3; i++) {
            int64_t dims[2] = {(int64_t)b->BS, (int64_t)((i ? hp->n_head_kv : hp->n_head) * d)};
            RF_TRY(rf__lb_act(b, nm[i], b->act, 0, 2, dims, &qkv[i]));
        }
        return rf__view(b, "qkv_split", f, qkv, 3);
    }
    RF_TRY(rf__lb_linear(b, "attn_q", xn, e, b->blk, RF__R_Q, RF__R_Q_B, &qkv[0], &w));
    RF_CHECK(b->ctx, w == hp->n_head * d, RF_FORMAT,
             "model: q weight of block %lld has %llu outputs, expected %llu heads x %llu",
             (long long)b->blk, (unsigned long long)w, (unsigned long long)hp->n_head,
             (unsigned long long)d);
    RF_TRY(rf__lb_linear(b, "attn_k", xn, e, b->blk, RF__R_K, RF__R_K_B, &qkv[1], &w));
    RF_CHECK(b->ctx, w == hp->n_head_kv * d, RF_FORMAT,
             "model: k weight of block %lld has %llu outputs, expected %llu", (long long)b->blk,
             (unsigned long long)w, (unsigned long long)(hp->n_head_kv * d));
    RF_TRY(rf__lb_linear(b, "attn_v", xn, e, b->blk, RF__R_V, RF__R_V_B, &qkv[2], &w));
    RF_CHECK(b->ctx, w == hp->n_head_kv * d, RF_FORMAT,
             "model: v weight of block %lld has %llu outputs, expected %llu", (long long)b->blk,
             (unsigned long long)w, (unsigned long long)(hp->n_head_kv * d));
    return RF_OK;
}

/* q as [B, S, H, D] (RoPE or a view), k/v stored into the cache: k_new/v_new [B, S, Hkv, D]. */
static rf_status rf__rope_store(rf__lb *b, uint32_t qkv[3], uint32_t *q4)
{
    const rf_llm_hparams *hp = &b->m->hp;
    int64_t B = (int64_t)b->B, S = (int64_t)b->S, D = (int64_t)hp->head_dim;
    int64_t dq[4] = {B, S, (int64_t)hp->n_head, D}, dk[4] = {B, S, (int64_t)hp->n_head_kv, D};
    uint32_t in[2], kv[2];
    for (int i = 0; i < 2; i++) { /* q_norm / k_norm (qwen3, gemma3) */
        const int role = i ? RF__R_K_NORM : RF__R_Q_NORM;
        if (!RF__BLK(b, role)) continue;
        uint64_t w = (uint64_t)(i ? dk[2] : dq[2]) * (uint64_t)D;
        uint32_t x = qkv[i];
        RF_TRY(rf__lb_norm(b, i ? "attn_k_norm" : "attn_q_norm", x, w, b->blk, role, -1, &qkv[i]));
    }
    RF_TRY(rf__lb_act(b, "q_rot", b->act, 0, 4, dq, q4));
    if (b->m->rope) {
        uint32_t kr;
        RF_TRY(rf__lb_layer(b, "rope_q", "RotaryEmbedding", -1, &qkv[0], 1, q4, 1, NULL));
        RF_TRY(rf__lb_act(b, "k_rot", b->act, 0, 4, dk, &kr));
        RF_TRY(rf__lb_layer(b, "rope_k", "RotaryEmbedding", -1, &qkv[1], 1, &kr, 1, NULL));
        qkv[1] = kr;
    } else {
        RF_TRY(rf__view(b, "q_heads", qkv[0], q4, 1));
    }
    RF_TRY(rf__lb_act(b, "k_new", b->kv, RF_TENSOR_KV, 4, dk, &kv[0]));
    RF_TRY(rf__lb_act(b, "v_new", b->kv, RF_TENSOR_KV, 4, dk, &kv[1]));
    in[0] = qkv[1];
    in[1] = qkv[2];
    return rf__lb_layer(b, "kv_store", "KVStore", RF_OP_DATA_MOVEMENT, in, 2, kv, 2, NULL);
}

/* scores = q.K^T over T positions, softmax, A.V, then the output projection. */
static rf_status rf__attend(rf__lb *b, uint32_t q4, uint32_t *o)
{
    const rf_llm_hparams *hp = &b->m->hp;
    int64_t B = (int64_t)b->B, S = (int64_t)b->S, T = (int64_t)b->T, D = (int64_t)hp->head_dim;
    int64_t H = (int64_t)hp->n_head, Hkv = (int64_t)hp->n_head_kv;
    int64_t dc[4] = {B, Hkv, T, D}, ds[4] = {B, H, S, T}, da[2] = {(int64_t)b->BS, H * D};
    uint32_t kc, vc, sc, pr, ctxv, in[2], li;
    uint64_t w;
    RF_TRY(rf__lb_act(b, "k_cache", b->kv, RF_TENSOR_KV, 4, dc, &kc));
    RF_TRY(rf__lb_act(b, "v_cache", b->kv, RF_TENSOR_KV, 4, dc, &vc));
    RF_TRY(rf__lb_act(b, "scores", b->act, 0, 4, ds, &sc));
    in[0] = q4;
    in[1] = kc;
    RF_TRY(rf__lb_layer(b, "attn_scores", "MatMul", -1, in, 2, &sc, 1, &li));
    RF_TRY(rf_graph_set_attr_int(b->ctx, b->g, li, "llm_attention", 1));
    RF_TRY(rf__lb_act(b, "probs", b->act, 0, 4, ds, &pr));
    RF_TRY(rf__lb_layer(b, "attn_softmax", "Softmax", -1, &sc, 1, &pr, 1, NULL));
    RF_TRY(rf__lb_act(b, "attn", b->act, 0, 2, da, &ctxv));
    in[0] = pr;
    in[1] = vc;
    RF_TRY(rf__lb_layer(b, "attn_av", "MatMul", -1, in, 2, &ctxv, 1, &li));
    RF_TRY(rf_graph_set_attr_int(b->ctx, b->g, li, "llm_attention", 1));
    RF_TRY(rf__lb_linear(b, "attn_output", ctxv, (uint64_t)(H * D), b->blk, RF__R_O, RF__R_O_B, o,
                         &w));
    RF_CHECK(b->ctx, w == hp->n_embd, RF_FORMAT,
             "model: attention output weight of block %lld has %llu outputs, expected %llu",
             (long long)b->blk, (unsigned long long)w, (unsigned long long)hp->n_embd);
    return RF_OK;
}

/* Experts a batch of n tokens touches when each picks u of e: e (1 - (1 - u/e)^n), at least u. */
static uint64_t rf__touched(uint64_t e, uint64_t u, uint64_t n)
{
    double t = ceil((double)e * (1.0 - pow(1.0 - (double)u / (double)e, (double)n)) - 1e-9);
    return t < (double)u ? u : t > (double)e ? e : (uint64_t)t;
}

/* One expert matrix product: x [BS, in] against `role`'s active experts into [BS, u, out]. */
static rf_status rf__expert_mm(rf__lb *b, const char *name, uint32_t x, int role, uint64_t *out,
                               uint32_t *y)
{
    const rf_llm_hparams *hp = &b->m->hp;
    const rf__llm_w *w = RF__BLK(b, role);
    int64_t o = w->rank == 3 ? w->dims[1] : w->dims[0], i = w->dims[w->rank - 1];
    int64_t dv[3] = {(int64_t)rf__touched(hp->n_expert, hp->n_expert_used, b->BS), o, i};
    int64_t dy[3] = {(int64_t)b->BS, (int64_t)hp->n_expert_used, o};
    char vn[128];
    uint32_t v, in[2];
    rf_graph *g = b->g;
    uint64_t params = g->params, bytes = g->weight_bytes; /* a view of resident weights */
    snprintf(vn, sizeof vn, "%s.active", w->name);
    RF_TRY(rf_graph_add_tensor(b->ctx, g, vn, g->tensors[b->wt[w - b->m->w]].dtype, 3, dv,
                               RF_TENSOR_WEIGHT, &v));
    g->params = params;
    g->weight_bytes = bytes;
    RF_TRY(rf__lb_act(b, name, b->act, 0, 3, dy, y));
    in[0] = x;
    in[1] = v;
    *out = (uint64_t)o;
    return rf__lb_layer(b, name, "MatMul", -1, in, 2, y, 1, NULL);
}

static rf_status rf__moe(rf__lb *b, uint32_t hn, uint32_t *d)
{
    const rf_llm_hparams *hp = &b->m->hp;
    uint64_t e = hp->n_embd, n, f;
    uint32_t lg, pr, g, u, a, m, dn, in[2];
    RF_TRY(rf__lb_linear(b, "ffn_router", hn, e, b->blk, RF__R_ROUTER, -1, &lg, &n));
    RF_TRY(rf__lb_elem(b, "ffn_router_softmax", "Softmax", &lg, 1, n, &pr));
    RF_TRY(rf__expert_mm(b, "ffn_gate_exps", hn, RF__R_GATE_EXPS, &f, &g));
    RF_TRY(rf__expert_mm(b, "ffn_up_exps", hn, RF__R_UP_EXPS, &f, &u));
    int64_t dy[3] = {(int64_t)b->BS, (int64_t)hp->n_expert_used, (int64_t)f};
    RF_TRY(rf__lb_act(b, "ffn_act_exps", b->act, 0, 3, dy, &a));
    RF_TRY(
        rf__lb_layer(b, "ffn_act_exps", b->m->act_gelu ? "Gelu" : "Silu", -1, &g, 1, &a, 1, NULL));
    RF_TRY(rf__lb_act(b, "ffn_mul_exps", b->act, 0, 3, dy, &m));
    in[0] = a;
    in[1] = u;
    RF_TRY(rf__lb_layer(b, "ffn_mul_exps", "Mul", -1, in, 2, &m, 1, NULL));
    RF_TRY(rf__expert_mm(b, "ffn_down_exps", m, RF__R_DOWN_EXPS, &f, &dn));
    int64_t de[2] = {(int64_t)b->BS, (int64_t)e};
    RF_TRY(rf__lb_act(b, "ffn_moe_out", b->act, 0, 2, de, d));
    return rf__lb_layer(b, "ffn_moe_sum", "ReduceSum", -1, &dn, 1, d, 1, NULL);
}

/* The MLP on hn [BS, E] into *d [BS, E]. */
static rf_status rf__mlp(rf__lb *b, uint32_t hn, uint32_t *d)
{
    const rf_llm_hparams *hp = &b->m->hp;
    uint64_t e = hp->n_embd, f, w;
    uint32_t g = 0, u, a, in[2];
    int gated = 1;
    if (RF__BLK(b, RF__R_ROUTER)) return rf__moe(b, hn, d);
    if (RF__BLK(b, RF__R_GATE_UP)) {
        uint32_t gu, gus[2];
        RF_TRY(rf__lb_linear(b, "ffn_gate_up", hn, e, b->blk, RF__R_GATE_UP, -1, &gu, &w));
        f = w / 2;
        int64_t dims[2] = {(int64_t)b->BS, (int64_t)f};
        RF_TRY(rf__lb_act(b, "ffn_gate", b->act, 0, 2, dims, &gus[0]));
        RF_TRY(rf__lb_act(b, "ffn_up", b->act, 0, 2, dims, &gus[1]));
        RF_TRY(rf__view(b, "gate_up_split", gu, gus, 2));
        g = gus[0];
        u = gus[1];
    } else if (RF__BLK(b, RF__R_GATE)) {
        RF_TRY(rf__lb_linear(b, "ffn_gate", hn, e, b->blk, RF__R_GATE, -1, &g, &f));
        RF_TRY(rf__lb_linear(b, "ffn_up", hn, e, b->blk, RF__R_UP, RF__R_UP_B, &u, &w));
        RF_CHECK(b->ctx, w == f, RF_FORMAT, "model: gate and up weights of block %lld differ",
                 (long long)b->blk);
    } else {
        RF_TRY(rf__lb_linear(b, "ffn_up", hn, e, b->blk, RF__R_UP, RF__R_UP_B, &u, &f));
        gated = 0;
    }
    const char *act = b->m->act_gelu ? "Gelu" : "Silu";
    RF_TRY(rf__lb_elem(b, "ffn_act", act, gated ? &g : &u, 1, f, &a));
    if (gated) {
        in[0] = a;
        in[1] = u;
        RF_TRY(rf__lb_elem(b, "ffn_mul", "Mul", in, 2, f, &a));
    }
    RF_TRY(rf__lb_linear(b, "ffn_down", a, f, b->blk, RF__R_DOWN, RF__R_DOWN_B, d, &w));
    RF_CHECK(b->ctx, w == e, RF_FORMAT, "model: ffn_down of block %lld has %llu outputs, not %llu",
             (long long)b->blk, (unsigned long long)w, (unsigned long long)e);
    return RF_OK;
}

rf_status rf__lb_block(rf__lb *b, uint32_t x, uint32_t *y)
{
    uint64_t e = b->m->hp.n_embd;
    uint32_t xn, qkv[3], q4, o, h, hn, d, in[2], t;
    RF_TRY(rf__lb_norm(b, "attn_norm", x, e, b->blk, RF__R_ATTN_NORM, RF__R_ATTN_NORM_B, &xn));
    RF_TRY(rf__qkv(b, xn, qkv));
    RF_TRY(rf__rope_store(b, qkv, &q4));
    RF_TRY(rf__attend(b, q4, &o));
    if (RF__BLK(b, RF__R_POST_ATTN_NORM)) {
        t = o;
        RF_TRY(rf__lb_norm(b, "post_attn_norm", t, e, b->blk, RF__R_POST_ATTN_NORM, -1, &o));
    }
    in[0] = x;
    in[1] = o;
    RF_TRY(rf__lb_elem(b, "attn_residual", "Add", in, 2, e, &h));
    hn = h;
    if (RF__BLK(b, RF__R_FFN_NORM))
        RF_TRY(rf__lb_norm(b, "ffn_norm", h, e, b->blk, RF__R_FFN_NORM, RF__R_FFN_NORM_B, &hn));
    RF_TRY(rf__mlp(b, hn, &d));
    if (RF__BLK(b, RF__R_POST_FFN_NORM)) {
        t = d;
        RF_TRY(rf__lb_norm(b, "post_ffn_norm", t, e, b->blk, RF__R_POST_FFN_NORM, -1, &d));
    }
    in[0] = h;
    in[1] = d;
    return rf__lb_elem(b, "ffn_residual", "Add", in, 2, e, y);
}
