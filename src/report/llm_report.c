/* llm_report.c — renderers of an rf_llm_result (`roofline llm`): the text report (model, shape,
 * weights, machine and roof, each phase's per-layer table with bytes split into weights,
 * activations and KV cache, the token-rate ceilings), and the same figures as JSON (schema
 * "roofline-llm/1") and CSV. Figures come from rf_llm_analyze; nothing here computes a cost. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/llm.h"
#include "roofline/report.h"

static const char *rf__si0(char *buf, size_t n, double v)
{
    if (v == 0) {
        rf__strlcpy(buf, "0", n);
        return buf;
    }
    return rf_si_format_compact(buf, n, v, "");
}

static const char *rf__time(char *buf, size_t n, double t)
{
    return rf_time_format(buf, n, isfinite(t) ? t : NAN, 3);
}

/* Bits per weight of a layer's weight inputs, or "" when it has none. */
static const char *rf__bpw(char *buf, size_t n, const rf_layer *l, const rf_layer_cost *c)
{
    /* a gather reads rows, not the table its params count */
    if (!c->params || c->weight_bytes == 0 || l->kind == RF_OP_GATHER) return "";
    snprintf(buf, n, "%.2f", 8 * c->weight_bytes / (double)c->params);
    return buf;
}

static int rf__listed(const rf_layer_cost *c)
{
    return c->known && !(c->flops == 0 && c->bytes == 0);
}

static rf_status rf__phase_table(rf_writer *w, const rf_llm_phase_result *p)
{
    char f[16], wb[16], ai[16], ao[16], kr[16], kw[16], a[16], t[32], b[16];
    const rf_cost *k = p->cost;
    RF_TRY(
        rf_writef(w, "\n%s (x: instances of the layer; figures are totals over them)\n", p->title));
    RF_TRY(rf_writef(w, "  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s %6s %5s\n", "layer",
                     "op", "x", "FLOPs", "weights", "act in", "act out", "KV rd", "KV wr", "AI",
                     "bound", "time", "share", "bpw"));
    for (uint32_t i = 0; i < p->graph->n_layers; i++) {
        const rf_layer *l = &p->graph->layers[i];
        const rf_layer_cost *c = &k->layers[i];
        if (!rf__listed(c)) continue;
        const rf_eval *e = &p->evals[i];
        char x[24];
        snprintf(x, sizeof x, "%llu", (unsigned long long)(l->repeat ? l->repeat : 1));
        RF_TRY(rf_writef(
            w, "  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s %5.1f%% %5s\n", l->name,
            l->op_type, x, rf__si0(f, sizeof f, c->flops), rf__si0(wb, sizeof wb, c->weight_bytes),
            rf__si0(ai, sizeof ai, c->input_bytes), rf__si0(ao, sizeof ao, c->output_bytes),
            rf__si0(kr, sizeof kr, c->kv_read_bytes), rf__si0(kw, sizeof kw, c->kv_write_bytes),
            rf__si0(a, sizeof a, e->ai), rf_bound_name(e->bound), rf__time(t, sizeof t, e->time_s),
            p->time_s > 0 ? 100 * e->time_s / p->time_s : 0.0, rf__bpw(b, sizeof b, l, c)));
    }
    double tai = k->bytes > 0 ? k->flops / k->bytes : INFINITY;
    RF_TRY(rf_writef(w, "  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s\n", "total", "", "",
                     rf__si0(f, sizeof f, k->flops), rf__si0(wb, sizeof wb, k->weight_bytes),
                     rf__si0(ai, sizeof ai, k->input_bytes),
                     rf__si0(ao, sizeof ao, k->output_bytes),
                     rf__si0(kr, sizeof kr, k->kv_read_bytes),
                     rf__si0(kw, sizeof kw, k->kv_write_bytes), rf__si0(a, sizeof a, tai),
                     tai >= p->ridge_ai ? "compute" : "memory", rf__time(t, sizeof t, p->time_s)));
    return rf_writef(w, "  matmul FLOPs (2 x multiply-adds, no bias): %.0f\n",
                     k->matmul_conv_flops);
}

/* The model line, conventions, the machine. */
static rf_status rf__header(rf_writer *w, const rf_llm_result *r)
{
    const rf_llm_hparams *hp = &r->hparams;
    const rf_llm_opts *o = &r->phase[0].opts;
    const rf_machine *m = r->machine;
    char a[16], b[16];
    RF_TRY(rf_writef(w, "model    %s (%s, %s%s%s%s)\n", r->model, hp->format, hp->architecture,
                     hp->name[0] ? " \"" : "", hp->name, hp->name[0] ? "\"" : ""));
    if (hp->known)
        RF_TRY(rf_writef(
            w,
            "shape    %llu blocks%s, d_model %llu, %llu heads x %llu (%llu KV heads%s), ffn %llu, "
            "vocab %llu%s\n",
            (unsigned long long)hp->n_layer, hp->uniform ? " (identical)" : " (they differ)",
            (unsigned long long)hp->n_embd, (unsigned long long)hp->n_head,
            (unsigned long long)hp->head_dim, (unsigned long long)hp->n_head_kv,
            hp->n_head_kv < hp->n_head ? ", GQA" : "", (unsigned long long)hp->n_ff,
            (unsigned long long)hp->n_vocab,
            hp->tied_embeddings ? ", LM head tied to the embedding" : ""));
    if (hp->n_expert)
        RF_TRY(rf_writef(w,
                         "experts  %llu per block, %llu used per token: %llu of %llu params "
                         "active\n",
                         (unsigned long long)hp->n_expert, (unsigned long long)hp->n_expert_used,
                         (unsigned long long)hp->active_params, (unsigned long long)hp->params));
    RF_TRY(rf_writef(
        w, "weights  %llu params, %sB, %.3f bits per weight%s%s\n", (unsigned long long)hp->params,
        rf_si_format_compact(a, sizeof a, r->ceilings.model_bytes, ""), r->ceilings.bits_per_weight,
        o->weights ? " under the what-if type " : " (from the file)",
        o->weights ? rf_dtype_name(o->weights) : ""));
    RF_TRY(rf__write_machine_line(w, "", m->description, m->name, m->provenance));
    RF_TRY(rf_writef(
        w, "roof     %s %sFLOP/s, %s %sB/s, ridge %.3g FLOP/B\n", m->ceilings[r->compute].name,
        rf_si_format_compact(a, sizeof a, r->roof.peak_flops_per_s, ""),
        m->ceilings[r->bandwidth].name,
        rf_si_format_compact(b, sizeof b, r->roof.bw_bytes_per_s, ""), r->phase[0].ridge_ai));
    if (r->roof_note[0]) {
        char note[2 * RF_TEXT_MAX];
        snprintf(note, sizeof note, "%s: %s", m->ceilings[r->compute].name, r->roof_note);
        RF_TRY(rf_write_wrapped(w, 80, "         ", 9, note));
    }
    return rf_writef(w,
                     "counting FLOPs of every op (a multiply-add is 2); prefill attention %s; "
                     "attention %s; logits for every position; activations %u-bit, KV cache "
                     "%u-bit\n",
                     o->causal_half ? "counts half of the S x S matmuls, softmax and scores "
                                      "(--causal-half)"
                                    : "is the full S x S matmul (--causal-half halves it)",
                     o->unfused_attention
                         ? "unfused: the scores are written and read back (--attention)"
                         : "fused: the scores stay on chip (--attention unfused counts them)",
                     o->act_bits, o->kv_bits);
}

static rf_status rf__refined_above(rf_writer *w, const rf_llm_result *r);

static rf_status rf__ceilings(rf_writer *w, const rf_llm_result *r)
{
    const rf_llm_ceilings *c = &r->ceilings;
    const rf_llm_opts *d = &r->phase[1].opts, *p = &r->phase[0].opts;
    char a[32], b[32], t[32], x[16];
    RF_TRY(RF_WRITE_LIT(w, "\nceilings (simple: model bytes = params x bits / 8)\n"));
    RF_TRY(rf_writef(w, "  model bytes           %sB (%.3f bits per weight)\n",
                     rf_si_format_compact(a, sizeof a, c->model_bytes, ""), c->bits_per_weight));
    RF_TRY(rf_writef(w, "  bandwidth ceiling     %s tokens/s (bandwidth / model bytes)\n",
                     rf_si_format_compact(x, sizeof x, c->bw_tokens_per_s, "")));
    RF_TRY(rf_writef(w, "  compute ceiling       %s tokens/s (peak / (2 x params))\n",
                     rf_si_format_compact(x, sizeof x, c->compute_tokens_per_s, "")));
    RF_TRY(rf_writef(w, "  ceiling               %s tokens/s, %s-bound\n",
                     rf_si_format_compact(x, sizeof x, c->simple_tokens_per_s, ""),
                     rf_bound_name(c->simple_bound)));
    RF_TRY(RF_WRITE_LIT(
        w, "ceilings (refined: sum over layers of max(FLOPs / peak, bytes / bandwidth))\n"));
    RF_TRY(rf_writef(w,
                     "  decode                %s tokens/s at batch %llu, context %llu (step %s, "
                     "%sFLOP per token)\n",
                     rf_si_format_compact(x, sizeof x, c->decode_tokens_per_s, ""),
                     (unsigned long long)d->batch, (unsigned long long)d->context,
                     rf__time(t, sizeof t, c->decode_step_s),
                     rf_si_format_compact(a, sizeof a, c->decode_flops_per_token, "")));
    RF_TRY(rf__refined_above(w, r));
    RF_TRY(rf_writef(w, "  time to first token   %s for %llu prompt tokens x batch %llu (%sFLOP)\n",
                     rf__time(t, sizeof t, c->prefill_s), (unsigned long long)p->prompt,
                     (unsigned long long)p->batch,
                     rf_si_format_compact(a, sizeof a, c->prefill_flops, "")));
    RF_TRY(rf_writef(w, "  prefill               %s tokens/s\n",
                     rf_si_format_compact(x, sizeof x, c->prefill_tokens_per_s, "")));
    if (c->batch_compute_bound)
        RF_TRY(rf_writef(w, "  decode compute-bound  from batch %llu (at context %llu)\n",
                         (unsigned long long)c->batch_compute_bound,
                         (unsigned long long)d->context));
    else
        RF_TRY(rf_writef(w,
                         "  decode compute-bound  at no batch (at context %llu the KV cache and "
                         "activations grow as fast as the FLOPs)\n",
                         (unsigned long long)d->context));
    return rf_writef(w,
                     "  KV cache              %s per token, %s for %llu positions (one sequence, "
                     "%u-bit)\n",
                     rf_bytes_format_iec(a, sizeof a, c->kv_bytes_per_token, 4),
                     rf_bytes_format_iec(b, sizeof b, c->kv_bytes_context, 4),
                     (unsigned long long)d->context, d->kv_bits);
}

/* The refined decode ceiling above the simple one surprises: say why in one line. */
static rf_status rf__refined_above(rf_writer *w, const rf_llm_result *r)
{
    const rf_llm_ceilings *c = &r->ceilings;
    if (!(c->decode_tokens_per_s > 1.005 * c->simple_tokens_per_s)) return RF_OK;
    const rf_llm_phase_result *d = &r->phase[1];
    double step = d->cost ? d->cost->weight_bytes : c->model_bytes;
    char a[32], b[32], line[512];
    size_t len = 0;
    line[0] = '\0';
    rf__appendf(line, sizeof line, &len, "above the simple ceiling: ");
    if (d->batch > 1)
        rf__appendf(line, sizeof line, &len, "the %llu sequences share one read of the weights",
                    (unsigned long long)d->batch);
    if (step < 0.995 * c->model_bytes)
        rf__appendf(line, sizeof line, &len,
                    "%sa step reads %sB of weights, not the model's %sB (the embedding table is "
                    "gathered, one row a token%s)",
                    d->batch > 1 ? "; " : "", rf_si_format_compact(a, sizeof a, step, ""),
                    rf_si_format_compact(b, sizeof b, c->model_bytes, ""),
                    r->hparams.n_expert_used && r->hparams.n_expert_used < r->hparams.n_expert
                        ? "; only the routed experts are read"
                        : "");
    else if (d->batch <= 1)
        rf__appendf(line, sizeof line, &len,
                    "the simple figure charges every weight byte at the bandwidth, the refined "
                    "one each layer at its own bound");
    return rf_write_wrapped(w, 96, "                        ", 24, line);
}

/* Which roof binds a measured decode: DRAM or the main kernel's rate from L2; the roof itself,
 * its weight products alone timed between its steps; the decode's share of it and where the rest
 * of a step goes. */
static rf_status rf__decode_roof(rf_writer *w, const rf_llm_result *r)
{
    const rf_llm_measured *x = &r->measured;
    const char *mem = r->machine && r->bandwidth < r->machine->n_ceilings
                          ? r->machine->ceilings[r->bandwidth].name
                          : "memory";
    const char *type = x->kernel_type[0] ? x->kernel_type : "weights'";
    char rf[32], lo[32], hi[32], by[32], bw[32], kr[32], st[32], pi[32], pa[32], ot[32], line[2048];
    unsigned n = x->kernel_threads;
    size_t len = 0;
    line[0] = '\0';
    rf_si_format_compact(rf, sizeof rf, x->roof_bytes_per_s, "");
    rf_si_format_compact(lo, sizeof lo, x->step_weight_bytes / x->products_max_s, "");
    rf_si_format_compact(hi, sizeof hi, x->step_weight_bytes / x->products_min_s, "");
    rf_si_format_compact(by, sizeof by, x->step_weight_bytes, "");
    rf_si_format_compact(bw, sizeof bw, x->bandwidth_bytes_per_s, "");
    rf_si_format_compact(kr, sizeof kr, x->kernel_bytes_per_s, "");
    int have_bw = x->bandwidth_bytes_per_s > 0, have_k = x->kernel_bytes_per_s > 0;
    if (x->bound_by_both) {
        rf__appendf(line, sizeof line, &len,
                    "decode is bound by the %s dot kernel and %s alike: on %u core%s the kernel "
                    "consumes %sB/s of weights held in L2 (%s), %s delivers %sB/s",
                    type, mem, n, n == 1 ? "" : "s", kr, x->kernel_ceiling, mem, bw);
    } else if (x->bound_by_kernel) {
        rf__appendf(line, sizeof line, &len, "decode is bound by the %s dot kernel", type);
        if (have_k)
            rf__appendf(line, sizeof line, &len,
                        ": on %u core%s it consumes %sB/s of weights held in L2 (%s)", n,
                        n == 1 ? "" : "s", kr, x->kernel_ceiling);
        if (have_bw)
            rf__appendf(line, sizeof line, &len, "%s %s could deliver %sB/s", have_k ? ";" : ":",
                        mem, bw);
    } else {
        rf__appendf(line, sizeof line, &len, "decode is bound by %s: %sB/s", mem, bw);
        if (have_k)
            rf__appendf(line, sizeof line, &len,
                        "; the %s dot kernel on %u core%s consumes %sB/s of weights held in L2 "
                        "(%s)",
                        type, n, n == 1 ? "" : "s", kr, x->kernel_ceiling);
    }
    rf__appendf(line, sizeof line, &len,
                ". Streamed through the kernels, a step's weight products alone read its %sB of "
                "weights at %sB/s (each timed right after a decode step, passes %s-%sB/s",
                by, rf, lo, hi);
    if (have_bw)
        rf__appendf(line, sizeof line, &len, "; %.0f%% of %s", 100 * x->roof_of_bandwidth, mem);
    if (have_k)
        rf__appendf(line, sizeof line, &len, ", %.0f%% of the kernel's", 100 * x->roof_of_kernel);
    rf__appendf(line, sizeof line, &len, ")%s: the roof",
                x->roof_of_bandwidth > 1.02 ? ", part of them held in the last-level cache from "
                                              "one step to the next"
                                            : "");
    if (x->serial_bytes_per_s > 0 &&
        x->roof_bytes_per_s < (have_k && x->kernel_bytes_per_s < x->bandwidth_bytes_per_s
                                   ? x->kernel_bytes_per_s
                                   : x->bandwidth_bytes_per_s)) {
        char ov[32];
        rf_si_format_compact(ov, sizeof ov,
                             x->kernel_bytes_per_s < x->bandwidth_bytes_per_s
                                 ? x->kernel_bytes_per_s
                                 : x->bandwidth_bytes_per_s,
                             "");
        rf__appendf(line, sizeof line, &len,
                    ". The kernel's work and the memory stream give %sB/s one after the other, "
                    "%sB/s overlapped",
                    rf_si_format_compact(lo, sizeof lo, x->serial_bytes_per_s, ""), ov);
        if (x->overlap >= 0)
            rf__appendf(line, sizeof line, &len,
                        ": the products get %.0f%% of the way from the one to the other",
                        100 * (x->overlap > 1 ? 1 : x->overlap));
        else
            rf__appendf(line, sizeof line, &len,
                        ": the products stay under both, so the stream itself falls short of "
                        "%s's figure (too few loads in flight, or other tenants' traffic now)",
                        mem);
    }
    rf__appendf(line, sizeof line, &len,
                ". Decode reads weights at %.1f%% of it: a step takes %s, its products %s (%s "
                "alone), attention, norms and the rest %s",
                100 * x->decode_of_roof, rf__time(st, sizeof st, x->step_s),
                rf__time(pi, sizeof pi, x->products_in_step_s),
                rf__time(pa, sizeof pa, x->products_s), rf__time(ot, sizeof ot, x->other_s));
    if (x->busy_other > RF_BUSY_OTHERS) /* both slowed alike; DRAM and the kernel's rate not */
        rf__appendf(line, sizeof line, &len,
                    "; other processes took %.0f%% of the CPU meanwhile: the decode and its roof "
                    "slowed alike, what binds may differ on a quiet machine",
                    100 * x->busy_other);
    if (x->decode_of_roof > 1.05) /* the products alone slower than the whole step: disturbed */
        rf__appendf(line, sizeof line, &len,
                    "; above its roof: the products alone ran slower than whole steps, so the "
                    "machine was busier then");
    return rf_write_wrapped(w, 96, "  roof                  ", 24, line);
}

/* Measured rates against the ceilings (--measure, --measured-tps, --measured-ttft). */
static rf_status rf__measured(rf_writer *w, const rf_llm_result *r)
{
    const rf_llm_measured *x = &r->measured;
    char a[32], b[32], t[32];
    if (!x->have_decode && !x->have_prefill) return RF_OK;
    RF_TRY(RF_WRITE_LIT(w, "measured\n"));
    if (x->source[0]) RF_TRY(rf_write_wrapped(w, 96, "  ", 2, x->source));
    if (x->have_decode)
        RF_TRY(rf_writef(w,
                         "  decode                %s tokens/s: %.1f%% of the refined ceiling, "
                         "%.1f%% of the bandwidth,\n                        %.2g%% of the "
                         "compute ceiling; weights read at %sB/s (%sB a step)\n",
                         rf_si_format_compact(a, sizeof a, x->decode_tokens_per_s, ""),
                         100 * x->decode_of_refined, 100 * x->decode_of_bandwidth,
                         100 * x->decode_of_compute,
                         rf_si_format_compact(b, sizeof b, x->weight_bytes_per_s, ""),
                         rf_si_format_compact(t, sizeof t, x->step_weight_bytes, "")));
    if (x->have_decode && x->decode_of_refined > 1.005) /* above its roof: say so */
        RF_TRY(rf_write_wrapped(
            w, 96, "  ! above the ceiling   ", 24,
            "a measured rate over the roof means the analysis is not of what ran: another "
            "batch, context or prompt, smaller weights than this file's, a faster machine than "
            "--hw, or more than one token a step (speculative decoding)"));
    if (x->have_decode && x->roof_bytes_per_s > 0) RF_TRY(rf__decode_roof(w, r));
    if (x->have_prefill)
        RF_TRY(
            rf_writef(w,
                      "  time to first token   %s (%s tokens/s): the refined ceiling's is %.1f%% "
                      "of it\n",
                      rf__time(t, sizeof t, x->ttft_s),
                      rf_si_format_compact(a, sizeof a, x->prefill_tokens_per_s, ""),
                      100 * x->ttft_of_refined));
    return RF_OK;
}

rf_status rf_report_llm_table(rf_ctx *ctx, const rf_llm_result *r, const rf_report_opts *o,
                              rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_llm_table: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    (void)o;
    RF_TRY(rf__header(w, r));
    RF_TRY(rf__phase_table(w, &r->phase[0]));
    RF_TRY(rf__phase_table(w, &r->phase[1]));
    RF_TRY(rf__ceilings(w, r));
    return rf__measured(w, r);
}

rf_status rf_report_llm_csv(rf_ctx *ctx, const rf_llm_result *r, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_llm_csv: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    RF_TRY(RF_WRITE_LIT(w, "phase,layer,op,repeat,flops,weight_bytes,input_bytes,output_bytes,"
                           "kv_read_bytes,kv_write_bytes,bytes,ai,bound,time_s\n"));
    for (int k = 0; k < 2; k++) {
        const rf_llm_phase_result *p = &r->phase[k];
        for (uint32_t i = 0; i < p->graph->n_layers; i++) {
            const rf_layer_cost *c = &p->cost->layers[i];
            const rf_eval *e = &p->evals[i];
            const rf_layer *l = &p->graph->layers[i];
            if (!rf__listed(c)) continue;
            RF_TRY(rf_writef(w, "%s,", p->name));
            RF_TRY(rf__write_csv_field(w, l->name));
            RF_TRY(rf_write(w, ",", 1));
            RF_TRY(rf__write_csv_field(w, l->op_type));
            RF_TRY(rf_writef(w, ",%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g\n",
                             (unsigned long long)l->repeat, c->flops, c->weight_bytes,
                             c->input_bytes, c->output_bytes, c->kv_read_bytes, c->kv_write_bytes,
                             c->bytes, e->ai, rf_bound_name(e->bound), e->time_s));
        }
    }
    return RF_OK;
}

/* "key": number, with the separator after it. */
static rf_status rf__jnum(rf_writer *w, const char *key, double v, const char *sep)
{
    RF_TRY(rf_writef(w, "\"%s\": ", key));
    RF_TRY(rf__write_json_number(w, v));
    return rf_write(w, sep, strlen(sep));
}

static rf_status rf__json_phase(rf_writer *w, const rf_llm_phase_result *p)
{
    const rf_cost *k = p->cost;
    RF_TRY(rf_writef(w, "\"%s\": {", p->name));
    RF_TRY(rf__jnum(w, "batch", (double)p->batch, ", "));
    RF_TRY(rf__jnum(w, "tokens", (double)p->tokens, ", "));
    RF_TRY(rf__jnum(w, "positions", (double)p->positions, ", "));
    RF_TRY(rf__jnum(w, "flops", k->flops, ", "));
    RF_TRY(rf__jnum(w, "matmul_flops", k->matmul_conv_flops, ", "));
    RF_TRY(rf__jnum(w, "bytes", k->bytes, ", "));
    RF_TRY(rf__jnum(w, "weight_bytes", k->weight_bytes, ", "));
    RF_TRY(rf__jnum(w, "input_bytes", k->input_bytes, ", "));
    RF_TRY(rf__jnum(w, "output_bytes", k->output_bytes, ", "));
    RF_TRY(rf__jnum(w, "kv_read_bytes", k->kv_read_bytes, ", "));
    RF_TRY(rf__jnum(w, "kv_write_bytes", k->kv_write_bytes, ", "));
    RF_TRY(rf__jnum(w, "time_s", p->time_s, ", "));
    RF_TRY(RF_WRITE_LIT(w, "\"layers\": ["));
    int first = 1;
    for (uint32_t i = 0; i < p->graph->n_layers; i++) {
        const rf_layer_cost *c = &k->layers[i];
        const rf_eval *e = &p->evals[i];
        const rf_layer *l = &p->graph->layers[i];
        if (!rf__listed(c)) continue;
        RF_TRY(rf_writef(w, "%s\n    {\"name\": ", first ? "" : ","));
        RF_TRY(rf__write_json_string(w, l->name));
        RF_TRY(RF_WRITE_LIT(w, ", \"op\": "));
        RF_TRY(rf__write_json_string(w, l->op_type));
        RF_TRY(RF_WRITE_LIT(w, ", "));
        first = 0;
        RF_TRY(rf__jnum(w, "repeat", (double)l->repeat, ", "));
        RF_TRY(rf__jnum(w, "flops", c->flops, ", "));
        RF_TRY(rf__jnum(w, "weight_bytes", c->weight_bytes, ", "));
        RF_TRY(rf__jnum(w, "input_bytes", c->input_bytes, ", "));
        RF_TRY(rf__jnum(w, "output_bytes", c->output_bytes, ", "));
        RF_TRY(rf__jnum(w, "kv_read_bytes", c->kv_read_bytes, ", "));
        RF_TRY(rf__jnum(w, "kv_write_bytes", c->kv_write_bytes, ", "));
        RF_TRY(rf__jnum(w, "params", (double)c->params, ", "));
        RF_TRY(rf__jnum(w, "ai", e->ai, ", "));
        RF_TRY(rf_writef(w, "\"bound\": \"%s\", ", rf_bound_name(e->bound)));
        RF_TRY(rf__jnum(w, "time_s", e->time_s, "}"));
    }
    return RF_WRITE_LIT(w, "]}");
}

rf_status rf_report_llm_json(rf_ctx *ctx, const rf_llm_result *r, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_llm_json: missing argument");
    (void)ctx;
    const rf_llm_ceilings *c = &r->ceilings;
    RF_TRY(RF_WRITE_LIT(w, "{\"schema\": \"roofline-llm/1\", \"model\": "));
    RF_TRY(rf__write_json_string(w, r->model));
    RF_TRY(RF_WRITE_LIT(w, ", \"architecture\": "));
    RF_TRY(rf__write_json_string(w, r->hparams.architecture));
    RF_TRY(rf_writef(w, ", \"params\": %llu, ", (unsigned long long)r->hparams.params));
    RF_TRY(rf__jnum(w, "weight_bytes", c->model_bytes, ", "));
    RF_TRY(rf__jnum(w, "bits_per_weight", c->bits_per_weight, ",\n \"machine\": "));
    RF_TRY(rf__write_json_string(w, r->machine->name));
    RF_TRY(RF_WRITE_LIT(w, ", \"compute\": "));
    RF_TRY(rf__write_json_string(w, r->machine->ceilings[r->compute].name));
    RF_TRY(RF_WRITE_LIT(w, ", \"compute_note\": "));
    RF_TRY(rf__write_json_string(w, r->roof_note));
    RF_TRY(rf_writef(w, ", \"attention\": \"%s\", \"causal_half\": %s, ",
                     r->phase[0].opts.unfused_attention ? "unfused" : "fused",
                     r->phase[0].opts.causal_half ? "true" : "false"));
    RF_TRY(rf__jnum(w, "peak_flops_per_s", r->roof.peak_flops_per_s, ", "));
    RF_TRY(rf__jnum(w, "bw_bytes_per_s", r->roof.bw_bytes_per_s, ",\n \"ceilings\": {"));
    RF_TRY(rf__jnum(w, "bw_tokens_per_s", c->bw_tokens_per_s, ", "));
    RF_TRY(rf__jnum(w, "compute_tokens_per_s", c->compute_tokens_per_s, ", "));
    RF_TRY(rf__jnum(w, "simple_tokens_per_s", c->simple_tokens_per_s, ", "));
    RF_TRY(rf_writef(w, "\"simple_bound\": \"%s\", ", rf_bound_name(c->simple_bound)));
    RF_TRY(rf__jnum(w, "decode_tokens_per_s", c->decode_tokens_per_s, ", "));
    RF_TRY(rf__jnum(w, "time_to_first_token_s", c->prefill_s, ", "));
    RF_TRY(rf__jnum(w, "prefill_tokens_per_s", c->prefill_tokens_per_s, ", "));
    RF_TRY(rf_writef(w, "\"batch_compute_bound\": %llu, ",
                     (unsigned long long)c->batch_compute_bound));
    RF_TRY(rf__jnum(w, "kv_bytes_per_token", c->kv_bytes_per_token, ", "));
    RF_TRY(rf__jnum(w, "kv_bytes_context", c->kv_bytes_context, "},\n "));
    const rf_llm_measured *x = &r->measured;
    if (x->have_decode || x->have_prefill) {
        RF_TRY(RF_WRITE_LIT(w, "\"measured\": {\"source\": "));
        RF_TRY(rf__write_json_string(w, x->source));
        RF_TRY(RF_WRITE_LIT(w, ", "));
        RF_TRY(rf__jnum(w, "decode_tokens_per_s", x->have_decode ? x->decode_tokens_per_s : NAN,
                        ", "));
        RF_TRY(rf__jnum(w, "decode_of_bandwidth_ceiling",
                        x->have_decode ? x->decode_of_bandwidth : NAN, ", "));
        RF_TRY(rf__jnum(w, "decode_of_refined_ceiling", x->have_decode ? x->decode_of_refined : NAN,
                        ", "));
        RF_TRY(rf__jnum(w, "decode_of_compute_ceiling", x->have_decode ? x->decode_of_compute : NAN,
                        ", "));
        RF_TRY(
            rf__jnum(w, "weight_bytes_per_s", x->have_decode ? x->weight_bytes_per_s : NAN, ", "));
        RF_TRY(rf__jnum(w, "step_weight_bytes", x->have_decode ? x->step_weight_bytes : NAN, ", "));
        if (x->have_decode && x->roof_bytes_per_s > 0) {
            RF_TRY(RF_WRITE_LIT(w, "\"decode_roof\": {\"bound\": "));
            RF_TRY(rf__write_json_string(w, x->bound_by_both     ? "kernel and memory"
                                            : x->bound_by_kernel ? "kernel"
                                                                 : "memory"));
            RF_TRY(RF_WRITE_LIT(w, ", \"kernel_type\": "));
            RF_TRY(rf__write_json_string(w, x->kernel_type));
            RF_TRY(RF_WRITE_LIT(w, ", "));
            RF_TRY(rf__jnum(w, "threads", (double)x->kernel_threads, ", "));
            RF_TRY(rf__jnum(w, "roof_bytes_per_s", x->roof_bytes_per_s, ", "));
            RF_TRY(rf__jnum(w, "bandwidth_bytes_per_s",
                            x->bandwidth_bytes_per_s > 0 ? x->bandwidth_bytes_per_s : NAN, ", "));
            RF_TRY(rf__jnum(w, "roof_of_bandwidth",
                            x->bandwidth_bytes_per_s > 0 ? x->roof_of_bandwidth : NAN, ", "));
            RF_TRY(rf__jnum(w, "decode_of_roof", x->decode_of_roof, ", "));
            RF_TRY(rf__jnum(w, "step_s", x->step_s, ", "));
            RF_TRY(rf__jnum(w, "products_s", x->products_s, ", "));
            RF_TRY(rf__jnum(w, "products_median_s", x->products_median_s, ", "));
            RF_TRY(rf__jnum(w, "products_min_s", x->products_min_s, ", "));
            RF_TRY(rf__jnum(w, "products_max_s", x->products_max_s, ", "));
            RF_TRY(rf__jnum(w, "products_in_step_s", x->products_in_step_s, ", "));
            RF_TRY(rf__jnum(w, "other_s", x->other_s, ", "));
            RF_TRY(RF_WRITE_LIT(w, "\"kernel_ceiling\": "));
            RF_TRY(rf__write_json_string(w, x->kernel_ceiling));
            RF_TRY(RF_WRITE_LIT(w, ", "));
            RF_TRY(rf__jnum(w, "kernel_bytes_per_s",
                            x->kernel_bytes_per_s > 0 ? x->kernel_bytes_per_s : NAN, ", "));
            RF_TRY(rf__jnum(w, "roof_of_kernel",
                            x->kernel_bytes_per_s > 0 ? x->roof_of_kernel : NAN, ", "));
            RF_TRY(rf__jnum(w, "serial_bytes_per_s",
                            x->serial_bytes_per_s > 0 ? x->serial_bytes_per_s : NAN, ", "));
            RF_TRY(rf__jnum(w, "overlap", x->serial_bytes_per_s > 0 ? x->overlap : NAN, "}, "));
        }
        RF_TRY(rf__jnum(w, "time_to_first_token_s", x->have_prefill ? x->ttft_s : NAN, ", "));
        RF_TRY(rf__jnum(w, "prefill_tokens_per_s", x->have_prefill ? x->prefill_tokens_per_s : NAN,
                        ", "));
        RF_TRY(rf__jnum(w, "ttft_of_refined_ceiling", x->have_prefill ? x->ttft_of_refined : NAN,
                        "},\n "));
    }
    RF_TRY(rf__json_phase(w, &r->phase[0]));
    RF_TRY(RF_WRITE_LIT(w, ",\n "));
    RF_TRY(rf__json_phase(w, &r->phase[1]));
    return RF_WRITE_LIT(w, "}\n");
}
