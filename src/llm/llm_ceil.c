/* llm_ceil.c — what a built LLM graph is worth: rf_llm_cost (the cost model plus the causal-half
 * convention), the token-rate ceilings (aprender's model bytes / bandwidth / compute figures and
 * the refined per-layer sums: decode tokens/s, time to first token, prefill tokens/s, the batch
 * at which decode turns compute-bound, KV-cache bytes).
 * Formulas: docs/cost-model.md "LLM graphs" and "LLM ceilings". */
#include <math.h>
#include <string.h>

#include "llm/llm_int.h"

int rf_llm_layer_in_block(const rf_layer *l)
{
    return rf_layer_attr_int(l, "llm_block", 0) != 0;
}

/* A tensor of the score matrix: the output of an attention scores matmul (rank 4, [B, H, S, T])
 * or of the softmax that reads one. */
static int rf__score(const rf_graph *g, uint32_t t)
{
    for (int hops = 0; t != RF_GRAPH_NO_TENSOR && hops < 2; hops++) {
        int32_t p = g->tensors[t].producer;
        if (p < 0) return 0;
        const rf_layer *l = &g->layers[p];
        if (rf_layer_attr_int(l, "llm_attention", 0)) return g->tensors[t].rank == 4;
        if (l->kind != RF_OP_SOFTMAX || !l->n_inputs) return 0;
        t = l->inputs[0];
    }
    return 0;
}

static void rf__less(rf_cost *c, rf_layer_cost *lc, double *part, double b)
{
    *part -= b;
    lc->bytes -= b;
    c->bytes -= b;
}

rf_status rf_llm_cost(rf_ctx *ctx, const rf_graph *g, const rf_llm_opts *o, rf_cost **out)
{
    RF_TRY(rf_graph_cost(ctx, g, out));
    int half = o && o->causal_half && o->phase == RF_LLM_PREFILL;
    int fused = !o || !o->unfused_attention;
    if (!half && !fused) return RF_OK;
    rf_cost *c = *out;
    /* the score bytes: none when fused (on chip); half under the causal triangle */
    double keep = fused ? 0 : half ? 0.5 : 1;
    for (uint32_t i = 0; i < g->n_layers && i < c->n_layers; i++) {
        rf_layer_cost *lc = &c->layers[i];
        const rf_layer *l = &g->layers[i];
        if (!lc->known) continue;
        double r = (double)(l->repeat ? l->repeat : 1);
        for (int io = 0; io < 2; io++) {
            uint32_t n = io ? l->n_outputs : l->n_inputs;
            for (uint32_t k = 0; k < n; k++) {
                uint32_t t = io ? l->outputs[k] : l->inputs[k];
                uint64_t b;
                if (t == RF_GRAPH_NO_TENSOR || !rf__score(g, t) ||
                    !rf_tensor_bytes(&g->tensors[t], &b))
                    continue;
                double cut = (double)b * r * (1 - keep);
                if (io)
                    rf__less(c, lc, &lc->output_bytes, cut), c->output_bytes -= cut;
                else
                    rf__less(c, lc, &lc->input_bytes, cut), c->input_bytes -= cut;
            }
        }
        if (!half) continue;
        int attn = rf_layer_attr_int(l, "llm_attention", 0) != 0;
        int softmax = l->kind == RF_OP_SOFTMAX && l->n_inputs && rf__score(g, l->inputs[0]);
        if (!attn && !softmax) continue;
        double h = lc->flops / 2; /* "causal half": the upper triangle is never computed */
        lc->flops -= h;
        c->flops -= h;
        if (attn) c->matmul_conv_flops -= h;
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
