/* llm_exec_pass.c — one forward pass of the measured LLM run: the embedding gather, every decoder
 * block in the order rf_llm_build lays it out (llm_block.c: norm, q/k/v or fused qkv, q/k norms,
 * RoPE, KV-cache store, scores, softmax, A.V, output projection, residual; norm, gated / fused /
 * plain MLP, residual), the final norm and the LM head; each step read off the clock once. */
#include <string.h>

#include "exec/llm_exec_int.h"

/* Close the step under way: its time since the last tick goes to kind k. */
static void rf__tick(rf__lx *lx, int k)
{
    double t = lx->clock(lx->clock_user);
    lx->ks[k] += t - lx->t_last;
    lx->kn[k]++;
    lx->t_last = t;
}

/* y [n, rows of w] = x [n, cols of w] . W^T (+ bias). */
static rf_status rf__linear(rf__lx *lx, int64_t blk, int role, int bias_role, const float *x,
                            uint64_t n, uint64_t in, uint64_t out, float *y)
{
    const rf__lw *w = rf__lx_w(lx, blk, role),
                 *b = bias_role >= 0 ? rf__lx_w(lx, blk, bias_role) : NULL;
    RF_TRY(rf__qmm_run(lx->ctx, lx->q, w->id, w->data, w->row_bytes, w->rows, in, x, n, y));
    (void)out;
    if (b && b->vec)
        for (uint64_t r = 0; r < n; r++) rf__lx_add(y + r * w->rows, b->vec, w->rows);
    return RF_OK;
}

static void rf__norm_role(rf__lx *lx, int64_t blk, int role, int bias_role, const float *x,
                          float *y, uint64_t n, uint64_t c)
{
    const rf__lw *w = rf__lx_w(lx, blk, role),
                 *b = bias_role >= 0 ? rf__lx_w(lx, blk, bias_role) : NULL;
    rf__lx_norm(x, y, n, c, w ? w->vec : NULL, b ? b->vec : NULL, lx->m->layernorm, lx->eps);
}

static void rf__embed(rf__lx *lx, uint64_t S, uint64_t p0)
{
    const rf__lw *e = rf__lx_w(lx, -1, RF__R_TOK_EMBD), *pe = rf__lx_w(lx, -1, RF__R_POS_EMBD);
    uint64_t n = lx->B * S;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t pos = p0 + r % S, tok = (pos * 7919 + r / S) % e->rows; /* synthetic tokens */
        float *xr = lx->x + r * lx->E;
        rf__qk_dequant(e->id, e->data + tok * e->row_bytes, xr, lx->E);
        if (lx->m->gemma_scale)
            for (uint64_t i = 0; i < lx->E; i++) xr[i] *= 45.25f; /* ~sqrt(n_embd): scale only */
        if (pe && pe->vec && pos < pe->rows) rf__lx_add(xr, pe->vec + pos * lx->E, lx->E);
    }
}

static rf_status rf__attention(rf__lx *lx, int64_t l, uint64_t S, uint64_t p0)
{
    uint64_t n = lx->B * S, E = lx->E, D = lx->D, qw = lx->H * D, kw = lx->Hkv * D;
    if (rf__lx_w(lx, l, RF__R_QKV)) {
        RF_TRY(rf__linear(lx, l, RF__R_QKV, RF__R_QKV_B, lx->xn, n, E, qw + 2 * kw, lx->tmp));
        for (uint64_t r = 0; r < n; r++) {
            const float *t = lx->tmp + r * (qw + 2 * kw);
            memcpy(lx->qb + r * qw, t, qw * sizeof *t);
            memcpy(lx->kb + r * kw, t + qw, kw * sizeof *t);
            memcpy(lx->vb + r * kw, t + qw + kw, kw * sizeof *t);
        }
        rf__tick(lx, RF__LK_QKV);
    } else {
        RF_TRY(rf__linear(lx, l, RF__R_Q, RF__R_Q_B, lx->xn, n, E, qw, lx->qb));
        rf__tick(lx, RF__LK_Q);
        RF_TRY(rf__linear(lx, l, RF__R_K, RF__R_K_B, lx->xn, n, E, kw, lx->kb));
        rf__tick(lx, RF__LK_K);
        RF_TRY(rf__linear(lx, l, RF__R_V, RF__R_V_B, lx->xn, n, E, kw, lx->vb));
        rf__tick(lx, RF__LK_V);
    }
    if (rf__lx_w(lx, l, RF__R_Q_NORM)) {
        rf__norm_role(lx, l, RF__R_Q_NORM, -1, lx->qb, lx->qb, n * lx->H, D);
        rf__tick(lx, RF__LK_Q_NORM);
    }
    if (rf__lx_w(lx, l, RF__R_K_NORM)) {
        rf__norm_role(lx, l, RF__R_K_NORM, -1, lx->kb, lx->kb, n * lx->Hkv, D);
        rf__tick(lx, RF__LK_K_NORM);
    }
    if (lx->m->rope) {
        rf__lx_rope(lx->qb, n, lx->H, D, S, p0, lx->rope_cs);
        rf__tick(lx, RF__LK_ROPE_Q);
        rf__lx_rope(lx->kb, n, lx->Hkv, D, S, p0, lx->rope_cs);
        rf__tick(lx, RF__LK_ROPE_K);
    }
    for (uint64_t r = 0; r < n; r++) {
        uint64_t b = r / S, t = p0 + r % S, at = (((uint64_t)l * lx->B + b) * lx->Tmax + t) * kw;
        memcpy(lx->kc + at, lx->kb + r * kw, kw * sizeof(float));
        memcpy(lx->vc + at, lx->vb + r * kw, kw * sizeof(float));
    }
    rf__tick(lx, RF__LK_KV_STORE);
    rf__lx_scores(lx, (uint64_t)l, S, p0);
    rf__tick(lx, RF__LK_SCORES);
    rf__lx_softmax(lx, S, p0);
    rf__tick(lx, RF__LK_SOFTMAX);
    rf__lx_av(lx, (uint64_t)l, S, p0);
    rf__tick(lx, RF__LK_AV);
    RF_TRY(rf__linear(lx, l, RF__R_O, RF__R_O_B, lx->att, n, qw, E, lx->o));
    rf__tick(lx, RF__LK_O);
    if (rf__lx_w(lx, l, RF__R_POST_ATTN_NORM)) {
        rf__norm_role(lx, l, RF__R_POST_ATTN_NORM, -1, lx->o, lx->o, n, E);
        rf__tick(lx, RF__LK_POST_ATTN_NORM);
    }
    rf__lx_add(lx->x, lx->o, n * E);
    rf__tick(lx, RF__LK_ATTN_RES);
    return RF_OK;
}

static rf_status rf__mlp(rf__lx *lx, int64_t l, uint64_t S)
{
    uint64_t n = lx->B * S, E = lx->E, F;
    const float *in = lx->x;
    const rf__lw *gu = rf__lx_w(lx, l, RF__R_GATE_UP), *up = rf__lx_w(lx, l, RF__R_UP);
    F = gu ? gu->rows / 2 : up->rows; /* widths may differ per block */
    if (rf__lx_w(lx, l, RF__R_FFN_NORM)) {
        rf__norm_role(lx, l, RF__R_FFN_NORM, RF__R_FFN_NORM_B, lx->x, lx->xn, n, E);
        rf__tick(lx, RF__LK_FFN_NORM);
        in = lx->xn;
    }
    int gated = 1;
    if (rf__lx_w(lx, l, RF__R_GATE_UP)) {
        RF_TRY(rf__linear(lx, l, RF__R_GATE_UP, -1, in, n, E, 2 * F, lx->tmp));
        for (uint64_t r = 0; r < n; r++) {
            memcpy(lx->gb + r * F, lx->tmp + r * 2 * F, F * sizeof(float));
            memcpy(lx->ub + r * F, lx->tmp + r * 2 * F + F, F * sizeof(float));
        }
        rf__tick(lx, RF__LK_GATE_UP);
    } else if (rf__lx_w(lx, l, RF__R_GATE)) {
        RF_TRY(rf__linear(lx, l, RF__R_GATE, -1, in, n, E, F, lx->gb));
        rf__tick(lx, RF__LK_GATE);
        RF_TRY(rf__linear(lx, l, RF__R_UP, RF__R_UP_B, in, n, E, F, lx->ub));
        rf__tick(lx, RF__LK_UP);
    } else {
        RF_TRY(rf__linear(lx, l, RF__R_UP, RF__R_UP_B, in, n, E, F, lx->gb));
        rf__tick(lx, RF__LK_UP);
        gated = 0;
    }
    rf__lx_act(lx->gb, n * F, lx->m->act_gelu, rf__qmm_isa(lx->q));
    rf__tick(lx, RF__LK_ACT);
    if (gated) {
        rf__lx_mul(lx->gb, lx->ub, n * F);
        rf__tick(lx, RF__LK_MUL);
    }
    RF_TRY(rf__linear(lx, l, RF__R_DOWN, RF__R_DOWN_B, lx->gb, n, F, E, lx->o));
    rf__tick(lx, RF__LK_DOWN);
    if (rf__lx_w(lx, l, RF__R_POST_FFN_NORM)) {
        rf__norm_role(lx, l, RF__R_POST_FFN_NORM, -1, lx->o, lx->o, n, E);
        rf__tick(lx, RF__LK_POST_FFN_NORM);
    }
    rf__lx_add(lx->x, lx->o, n * E);
    rf__tick(lx, RF__LK_FFN_RES);
    return RF_OK;
}

rf_status rf__lx_pass(rf__lx *lx, uint64_t S, uint64_t p0)
{
    uint64_t n = lx->B * S;
    memset(lx->ks, 0, sizeof lx->ks);
    memset(lx->kn, 0, sizeof lx->kn);
    lx->t_last = lx->clock(lx->clock_user);
    rf__embed(lx, S, p0);
    rf__tick(lx, RF__LK_EMBD);
    for (uint64_t l = 0; l < lx->nl; l++) {
        rf__norm_role(lx, (int64_t)l, RF__R_ATTN_NORM, RF__R_ATTN_NORM_B, lx->x, lx->xn, n, lx->E);
        rf__tick(lx, RF__LK_ATTN_NORM);
        RF_TRY(rf__attention(lx, (int64_t)l, S, p0));
        RF_TRY(rf__mlp(lx, (int64_t)l, S));
    }
    rf__norm_role(lx, -1, RF__R_OUT_NORM, RF__R_OUT_NORM_B, lx->x, lx->xn, n, lx->E);
    rf__tick(lx, RF__LK_OUT_NORM);
    int role = rf__lx_w(lx, -1, RF__R_OUTPUT) ? RF__R_OUTPUT : RF__R_TOK_EMBD;
    RF_TRY(rf__linear(lx, -1, role, -1, lx->xn, n, lx->E, lx->V, lx->logits));
    rf__tick(lx, RF__LK_OUTPUT);
    return RF_OK;
}
