/* llm_ceil.c — what a built LLM graph is worth: rf_llm_cost (the cost model plus the causal-half
 * convention), the token-rate ceilings (aprender's model bytes / bandwidth / compute figures and
 * the refined per-layer sums: decode tokens/s, time to first token, prefill tokens/s, the batch
 * at which decode turns compute-bound, KV-cache bytes), and the profile entry rf_llm_load_graph.
 * Formulas: docs/cost-model.md "LLM graphs" and "LLM ceilings". */
#include <math.h>
#include <string.h>

#include "llm/llm_int.h"

int rf_llm_layer_in_block(const rf_layer *l)
{
    return rf_layer_attr_int(l, "llm_block", 0) != 0;
}

rf_status rf_llm_cost(rf_ctx *ctx, const rf_graph *g, const rf_llm_opts *o, rf_cost **out)
{
    RF_TRY(rf_graph_cost(ctx, g, out));
    if (!o || !o->causal_half || o->phase != RF_LLM_PREFILL) return RF_OK;
    rf_cost *c = *out;
    for (uint32_t i = 0; i < g->n_layers && i < c->n_layers; i++) {
        rf_layer_cost *lc = &c->layers[i];
        if (!lc->known || !rf_layer_attr_int(&g->layers[i], "llm_attention", 0)) continue;
        double half = lc->flops / 2; /* "causal half": the upper triangle is never computed */
        lc->flops -= half;
        c->flops -= half;
        c->matmul_conv_flops -= half;
    }
    return RF_OK;
}

/* Sum over layers of max(flops / peak, bytes / bw). */
static rf_status rf__time(rf_ctx *ctx, const rf_cost *c, const rf_roof *roof, double *t)
{
    *t = 0;
    for (uint32_t i = 0; i < c->n_layers; i++) {
        rf_eval e;
        if (!c->layers[i].known || (c->layers[i].flops == 0 && c->layers[i].bytes == 0)) continue;
        RF_TRY(rf_roof_eval(ctx, roof, c->layers[i].flops, c->layers[i].bytes, &e));
        *t += e.time_s;
    }
    return RF_OK;
}

static double rf__bits(uint32_t b)
{
    return b ? (double)b : 16.0;
}

rf_status rf_llm_ceilings_compute(rf_ctx *ctx, const rf_llm_model *m, const rf_graph *g,
                                  const rf_cost *prefill, const rf_llm_opts *po,
                                  const rf_cost *decode, const rf_llm_opts *dopt,
                                  const rf_roof *roof, rf_llm_ceilings *out)
{
    const rf_llm_hparams *hp = &m->hp;
    double peak = roof->peak_flops_per_s, bw = roof->bw_bytes_per_s;
    RF_CHECK(ctx, isfinite(peak) && peak > 0 && isfinite(bw) && bw > 0, RF_RANGE,
             "LLM ceilings: the roof's peak and bandwidth must be finite and > 0");
    memset(out, 0, sizeof *out);
    double B = (double)(dopt->batch ? dopt->batch : 1),
           L = (double)(dopt->context ? dopt->context : 128);
    double pB = (double)(po->batch ? po->batch : 1), S = (double)(po->prompt ? po->prompt : 128);
    out->params = (double)hp->params;
    out->model_bytes = (double)g->weight_bytes;
    out->bits_per_weight = out->params > 0 ? 8 * out->model_bytes / out->params : 0;
    out->bw_tokens_per_s = out->model_bytes > 0 ? bw / out->model_bytes : INFINITY;
    out->compute_tokens_per_s = out->params > 0 ? peak / (2 * out->params) : INFINITY;
    out->simple_bound =
        out->bw_tokens_per_s < out->compute_tokens_per_s ? RF_BOUND_MEMORY : RF_BOUND_COMPUTE;
    out->simple_tokens_per_s = fmin(out->bw_tokens_per_s, out->compute_tokens_per_s);
    RF_TRY(rf__time(ctx, decode, roof, &out->decode_step_s));
    RF_TRY(rf__time(ctx, prefill, roof, &out->prefill_s));
    out->decode_tokens_per_s = out->decode_step_s > 0 ? B / out->decode_step_s : INFINITY;
    out->prefill_tokens_per_s = out->prefill_s > 0 ? pB * S / out->prefill_s : INFINITY;
    out->decode_flops_per_token = decode->flops / B;
    out->prefill_flops = prefill->flops;
    /* AI(b) = b f1 / (W + b a) reaches the ridge r at b = r W / (f1 - r a) */
    double r = peak / bw, f1 = decode->flops / B, w = decode->weight_bytes;
    double a = (decode->bytes - w) / B;
    if (f1 > r * a) {
        double b = ceil(r * w / (f1 - r * a) - 1e-9);
        out->batch_compute_bound = b < 1 ? 1 : b > 1e15 ? 0 : (uint64_t)b;
    }
    out->kv_bytes_per_token = 2.0 * (double)hp->n_layer * (double)hp->n_head_kv *
                              (double)hp->head_dim * rf__bits(dopt->kv_bits) / 8;
    out->kv_bytes_context = out->kv_bytes_per_token * L;
    return RF_OK;
}

rf_status rf_llm_load_graph(rf_ctx *ctx, const char *path, uint64_t batch, uint64_t seq,
                            rf_graph **out)
{
    rf_llm_opts o = {0};
    o.phase = RF_LLM_PREFILL;
    o.batch = batch;
    o.prompt = seq;
    return rf_llm_load_graph_opts(ctx, path, &o, out);
}

rf_status rf_llm_load_graph_opts(rf_ctx *ctx, const char *path, const rf_llm_opts *o,
                                 rf_graph **out)
{
    rf_llm_model *m = NULL;
    *out = NULL;
    RF_TRY(rf_llm_open(ctx, path, &m));
    rf_status st = rf_llm_build(ctx, m, o, out);
    rf_llm_free(m);
    return st;
}
