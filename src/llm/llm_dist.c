/* llm_dist.c — rf_llm_distribute: an analysed transformer over tp x pp devices joined by one link.
 * Each layer of both phases is split as Megatron-style tensor parallelism splits it (column- and
 * row-parallel projections, heads, the MLP's inner dimension, the vocabulary of the LM head),
 * evaluated per device on the same roof, and the communication the split costs — two allreduces
 * per block, ring algorithm, alpha-beta model — plus the pipeline hand-offs is added. Pure
 * arithmetic on the analysis; never prints. docs/distributed.md has the rules. */
#include <math.h>
#include <string.h>

#include "llm/llm_int.h"

/* How tensor parallelism splits a layer, from its name in the builder's graph. */
enum { RF__REPLICATED, RF__COLUMN, RF__ROW, RF__HEADS };

static int rf__has(const char *name, const char *part)
{
    return strstr(name, part) != NULL;
}

static int rf__split_kind(const char *name)
{
    if (rf__has(name, "attn_output") || rf__has(name, "ffn_down")) return RF__ROW;
    if (rf__has(name, "attn_q") || rf__has(name, "attn_k") || rf__has(name, "attn_v") ||
        rf__has(name, "ffn_gate") || rf__has(name, "ffn_up") || strcmp(name, "output") == 0)
        return RF__COLUMN; /* attn_qkv, ffn_gate_up and the MoE experts' names too */
    if (rf__has(name, "rope") || rf__has(name, "kv_store") || rf__has(name, "attn_scores") ||
        rf__has(name, "attn_softmax") || rf__has(name, "attn_av") || rf__has(name, "ffn_act") ||
        rf__has(name, "ffn_mul"))
        return RF__HEADS;
    return RF__REPLICATED; /* norms, residual adds, the embedding gather */
}

/* One device's time for layer cost c split by n: a column-parallel layer reads the whole input and
 * writes 1/n of the output, a row-parallel one the reverse; heads split everything. */
static double rf__device_time(const rf_roof *roof, const rf_layer_cost *c, int kind, double n,
                              double scale)
{
    double w = c->weight_bytes, in = c->input_bytes * scale, out = c->output_bytes * scale;
    double kv = (c->kv_read_bytes + c->kv_write_bytes) * scale, f = c->flops * scale;
    switch (kind) {
    case RF__COLUMN: f /= n, w /= n, out /= n, kv /= n; break;
    case RF__ROW: f /= n, w /= n, in /= n, kv /= n; break;
    case RF__HEADS: f /= n, w /= n, in /= n, out /= n, kv /= n; break;
    default: break;
    }
    double tc = f / roof->peak_flops_per_s, tm = (w + in + out + kv) / roof->bw_bytes_per_s;
    return tc > tm ? tc : tm;
}

/* Phase p at `scale` times its batch (FLOPs and non-weight bytes grow with it) over tp devices. */
static double rf__device_s(const rf_llm_result *r, const rf_llm_phase_result *p, double tp,
                           double scale)
{
    double t = 0;
    for (uint32_t i = 0; i < p->graph->n_layers; i++) {
        const rf_layer_cost *c = &p->cost->layers[i];
        if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
        t += rf__device_time(&r->roof, c, rf__split_kind(p->graph->layers[i].name), tp, scale);
    }
    return t;
}

static void rf__phase(const rf_llm_result *r, const rf_llm_phase_result *p,
                      const rf_llm_dist_opts *o, double scale, rf_llm_dist_phase *d)
{
    const double tp = o->tp, pp = o->pp, bw = o->link_bytes_per_s, lat = o->link_latency_s;
    double batch = (double)(p->batch ? p->batch : 1) * scale, tokens = (double)p->tokens;
    double act = (double)(p->opts.act_bits ? p->opts.act_bits : 16) / 8;
    memset(d, 0, sizeof *d);
    d->device_s = rf__device_s(r, p, tp, scale);
    d->allreduce_bytes = batch * tokens * (double)r->hparams.n_embd * act;
    d->allreduces = o->tp > 1 ? 2 * r->hparams.n_layer : 0;
    if (o->tp > 1)
        d->allreduce_s = 2 * (tp - 1) / tp * d->allreduce_bytes / bw + 2 * (tp - 1) * lat;
    if (o->pp > 1) d->handoff_s = d->allreduce_bytes / bw + lat;
    d->comm_s = (double)d->allreduces * d->allreduce_s + (pp - 1) * d->handoff_s;
    d->comm_bytes = (double)d->allreduces * 2 * (tp - 1) / tp * d->allreduce_bytes +
                    (pp - 1) / pp * d->allreduce_bytes;
    d->pass_s = d->device_s + d->comm_s;
    d->tokens_per_s = d->pass_s > 0 ? batch * tokens / d->pass_s : 0;
    d->pipelined_tokens_per_s = d->pass_s > 0 ? batch * tokens * pp / d->pass_s : 0;
    d->comm_share = d->pass_s > 0 ? d->comm_s / d->pass_s : 0;
    d->comm_bound = d->comm_s > d->device_s;
}

rf_status rf_llm_distribute(rf_ctx *ctx, const rf_llm_result *r, const rf_llm_dist_opts *o,
                            rf_llm_dist *out)
{
    RF_CHECK(ctx, r && o && out, RF_USAGE, "rf_llm_distribute: missing argument");
    RF_CHECK(ctx, o->tp >= 1 && o->tp <= 4096, RF_USAGE, "--tp must be 1 to 4096, got %u", o->tp);
    RF_CHECK(ctx, o->pp >= 1 && o->pp <= r->hparams.n_layer, RF_USAGE,
             "--pp must be 1 to the %llu blocks, got %u", (unsigned long long)r->hparams.n_layer,
             o->pp);
    RF_CHECK(ctx, isfinite(o->link_bytes_per_s) && o->link_bytes_per_s > 0, RF_USAGE,
             "the link's bandwidth must be finite and positive, got %g B/s", o->link_bytes_per_s);
    RF_CHECK(ctx, isfinite(o->link_latency_s) && o->link_latency_s >= 0, RF_USAGE,
             "the link's latency must be finite and >= 0, got %g s", o->link_latency_s);
    memset(out, 0, sizeof *out);
    out->o = *o;
    for (int k = 0; k < 2; k++) rf__phase(r, &r->phase[k], o, 1, &out->phase[k]);
    out->weight_bytes_per_device = r->ceilings.model_bytes / ((double)o->tp * (double)o->pp);
    /* the decode batch at which the link takes longer than the device's layers */
    for (double b = 1; b <= 65536 && !out->decode_batch_comm_bound; b *= 2) {
        rf_llm_dist_phase d;
        double b0 = (double)(r->phase[1].batch ? r->phase[1].batch : 1);
        rf__phase(r, &r->phase[1], o, b / b0, &d);
        if (d.comm_bound) out->decode_batch_comm_bound = (uint64_t)b;
    }
    /* the TP degrees 1, 2, 4, ... at the analysed batch */
    uint32_t top = o->tp > 8 ? o->tp : 8;
    for (uint32_t t = 1; t <= top && out->n_scan < 8; t *= 2) {
        rf_llm_dist_opts so = *o;
        rf_llm_dist_phase pf, dc;
        so.tp = t;
        rf__phase(r, &r->phase[0], &so, 1, &pf);
        rf__phase(r, &r->phase[1], &so, 1, &dc);
        rf_llm_dist_scan *s = &out->scan[out->n_scan++];
        s->tp = t;
        s->decode_tokens_per_s = dc.tokens_per_s;
        s->comm_share = dc.comm_share;
        s->prefill_s = pf.pass_s;
        if (dc.comm_bound && !out->tp_comm_bound) out->tp_comm_bound = t;
    }
    return RF_OK;
}
