/* llm_exec_roof.c — the roof of a measured decode (issue 28): one decode step's weight products
 * alone, the same products the pass makes (llm_exec_pass.c's rf__llm_exec_linear and, for q/k/v and
 * gate/up made as one job, rf__llm_exec_linear_n: the same kernels, packed forms, thread team and
 * activation rounding), in the same order, with nothing between them: no attention, norms, RoPE,
 * activations or residuals. The harness (llm_exec_time.c) times such a pass after each decode step,
 * so the rate at which the dot kernels pull this step's weights through is measured at the same
 * moment and from the same cache state as the decode. */
#include <string.h>

#include "exec/llm_exec_int.h"

/* The step's products into their kinds of lx->step_s, as rf__llm_exec_pass closes its steps. */
static void rf__roof_done(rf__llm_exec *lx, int k)
{
    double t = lx->clock(lx->clock_user);
    lx->step_s[k] += t - lx->t_last;
    lx->step_calls[k]++;
    lx->t_last = t;
}

static rf_status rf__roof_attn(rf__llm_exec *lx, int64_t l, uint64_t n)
{
    static const int roles[3] = {RF__R_Q, RF__R_K, RF__R_V},
                     kinds[3] = {RF__STEP_Q, RF__STEP_K, RF__STEP_V};
    uint64_t E = lx->E, qw = lx->H * lx->D, kw = lx->Hkv * lx->D;
    float *const ys[3] = {lx->q, lx->k, lx->v};
    int done = 0;
    if (rf__llm_exec_weight(lx, l, RF__R_QKV)) {
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_QKV, lx->x_norm, n, E, qw + 2 * kw, lx->fused));
        rf__roof_done(lx, RF__STEP_QKV);
        done = 1;
    } else {
        RF_TRY(rf__llm_exec_linear_n(lx, l, roles, kinds, 3, lx->x_norm, n, E, ys, &done));
    }
    if (!done) {
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_Q, lx->x_norm, n, E, qw, lx->q));
        rf__roof_done(lx, RF__STEP_Q);
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_K, lx->x_norm, n, E, kw, lx->k));
        rf__roof_done(lx, RF__STEP_K);
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_V, lx->x_norm, n, E, kw, lx->v));
        rf__roof_done(lx, RF__STEP_V);
    }
    RF_TRY(rf__llm_exec_linear(lx, l, RF__R_O, lx->attn, n, qw, E, lx->proj));
    rf__roof_done(lx, RF__STEP_O);
    return RF_OK;
}

static rf_status rf__roof_mlp(rf__llm_exec *lx, int64_t l, uint64_t n)
{
    static const int roles[2] = {RF__R_GATE, RF__R_UP}, kinds[2] = {RF__STEP_GATE, RF__STEP_UP};
    uint64_t E = lx->E;
    const rf__exec_weight *gu = rf__llm_exec_weight(lx, l, RF__R_GATE_UP),
                          *up = rf__llm_exec_weight(lx, l, RF__R_UP);
    uint64_t F = gu ? gu->rows / 2 : up->rows; /* widths may differ per block */
    float *const ys[2] = {lx->gate, lx->up};
    int done = 0;
    if (gu) {
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_GATE_UP, lx->x_norm, n, E, 2 * F, lx->fused));
        rf__roof_done(lx, RF__STEP_GATE_UP);
    } else if (rf__llm_exec_weight(lx, l, RF__R_GATE)) {
        RF_TRY(rf__llm_exec_linear_n(lx, l, roles, kinds, 2, lx->x_norm, n, E, ys, &done));
        if (!done) {
            RF_TRY(rf__llm_exec_linear(lx, l, RF__R_GATE, lx->x_norm, n, E, F, lx->gate));
            rf__roof_done(lx, RF__STEP_GATE);
            RF_TRY(rf__llm_exec_linear(lx, l, RF__R_UP, lx->x_norm, n, E, F, lx->up));
            rf__roof_done(lx, RF__STEP_UP);
        }
    } else {
        RF_TRY(rf__llm_exec_linear(lx, l, RF__R_UP, lx->x_norm, n, E, F, lx->gate));
        rf__roof_done(lx, RF__STEP_UP);
    }
    RF_TRY(rf__llm_exec_linear(lx, l, RF__R_DOWN, lx->gate, n, F, E, lx->proj));
    rf__roof_done(lx, RF__STEP_DOWN);
    return RF_OK;
}

rf_status rf__llm_exec_products(rf__llm_exec *lx)
{
    uint64_t n = lx->B; /* a decode step: one new token per sequence */
    memset(lx->step_s, 0, sizeof lx->step_s);
    memset(lx->step_calls, 0, sizeof lx->step_calls);
    lx->t_last = lx->clock(lx->clock_user);
    for (uint64_t l = 0; l < lx->n_layer; l++) {
        RF_TRY(rf__roof_attn(lx, (int64_t)l, n));
        RF_TRY(rf__roof_mlp(lx, (int64_t)l, n));
    }
    int role = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT) ? RF__R_OUTPUT : RF__R_TOK_EMBD;
    RF_TRY(rf__llm_exec_linear(lx, -1, role, lx->x_norm, lx->B, lx->E, lx->V, lx->logits));
    rf__roof_done(lx, RF__STEP_OUTPUT);
    return RF_OK;
}

int rf__llm_step_is_product(int k)
{
    return k == RF__STEP_Q || k == RF__STEP_K || k == RF__STEP_V || k == RF__STEP_QKV ||
           k == RF__STEP_O || k == RF__STEP_GATE || k == RF__STEP_UP || k == RF__STEP_GATE_UP ||
           k == RF__STEP_DOWN || k == RF__STEP_OUTPUT;
}
