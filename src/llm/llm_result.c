/* llm_result.c — rf_llm_analyze: the whole `roofline llm` analysis as one result — both phases
 * built, costed and evaluated layer by layer on the roof, the token-rate ceilings, and the rows the
 * renderers and charts draw (each phase's layers; per phase the groups "all layers", "weight
 * matmuls", "attention matmuls", "other ops"). Never prints: src/report renders rf_llm_result. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llm/llm_int.h"

/* A layer with no cost (metadata) or an unknown one is not evaluated. */
static int rf__costed(const rf_layer_cost *c)
{
    return c->known && !(c->flops == 0 && c->bytes == 0);
}

static rf_status rf__phase(rf_ctx *ctx, const rf_llm_model *m, const rf_roof *roof,
                           rf_llm_phase_result *p)
{
    RF_TRY(rf_llm_build(ctx, m, &p->opts, &p->graph));
    RF_TRY(rf_llm_cost(ctx, p->graph, &p->opts, &p->cost));
    p->evals = rf__calloc(ctx, p->graph->n_layers + 1, sizeof *p->evals);
    if (!p->evals) return RF_NOMEM_ERR(ctx);
    p->ridge_ai = roof->peak_flops_per_s / roof->bw_bytes_per_s;
    for (uint32_t i = 0; i < p->graph->n_layers; i++) {
        const rf_layer_cost *c = &p->cost->layers[i];
        if (!rf__costed(c)) continue;
        RF_TRY(rf_roof_eval(ctx, roof, c->flops, c->bytes, &p->evals[i]));
        p->time_s += p->evals[i].time_s;
    }
    return RF_OK;
}

/* The chart's points of one phase: the whole phase, its weight matmuls, its attention matmuls
 * and everything else (norms, softmax, RoPE, adds, KV stores, the gather). */
static rf_status rf__groups(rf_analysis *an, const rf_llm_phase_result *p)
{
    static const char *const what[4] = {"all layers", "weight matmuls", "attention matmuls",
                                        "other ops"};
    double f[4] = {0}, b[4] = {0};
    char name[96];
    for (uint32_t i = 0; i < p->graph->n_layers; i++) {
        const rf_layer *l = &p->graph->layers[i];
        const rf_layer_cost *c = &p->cost->layers[i];
        if (!c->known) continue;
        int k = rf_layer_attr_int(l, "llm_attention", 0) ? 2 : l->kind == RF_OP_GEMM ? 1 : 3;
        f[0] += c->flops, b[0] += c->bytes, f[k] += c->flops, b[k] += c->bytes;
    }
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "%s: %s", p->name, what[k]);
        if (f[k] > 0) RF_TRY(rf_analysis_add(an, name, strlen(name), NULL, f[k], b[k]));
    }
    return RF_OK;
}

/* The rows of phase `which` (0 prefill, 1 decode), or 2: both phases' groups. */
static rf_status rf__rows(rf_ctx *ctx, const rf_llm_result *r, int which, rf_result **out)
{
    rf_analysis *an = NULL;
    char name[160];
    RF_TRY(rf_analysis_new(ctx, r->machine, r->compute, r->bandwidth, RF_SORT_INPUT, 0, &an));
    rf_status st = RF_OK;
    for (int k = 0; k < 2 && st == RF_OK; k++) {
        const rf_llm_phase_result *p = &r->phase[k];
        if (which == 2) st = rf__groups(an, p);
        if (which != k) continue;
        for (uint32_t i = 0; i < p->graph->n_layers && st == RF_OK; i++) {
            const rf_layer_cost *c = &p->cost->layers[i];
            if (!rf__costed(c)) continue;
            const char *nm = p->graph->layers[i].name;
            st = rf_analysis_add_detail(an, nm, strlen(nm), p->graph->layers[i].op_type, NULL, 1,
                                        c->flops, c->bytes);
        }
    }
    snprintf(name, sizeof name, "%s of %s",
             which == 1   ? "decode"
             : which == 0 ? "prefill"
                          : "llm",
             r->phase[0].graph->architecture);
    if (st == RF_OK) st = rf_analysis_finish(an, name, out);
    rf_analysis_free(an);
    return st;
}

static rf_status rf__analyze(rf_ctx *ctx, const rf_llm_model *m, rf_llm_result *r)
{
    RF_TRY(rf_machine_roof(ctx, r->machine, r->compute, r->bandwidth, &r->roof));
    for (int k = 0; k < 2; k++) {
        rf_llm_phase_result *p = &r->phase[k];
        p->name = k ? "decode" : "prefill";
        p->opts.phase = k ? RF_LLM_DECODE : RF_LLM_PREFILL;
        /* the options' defaults (0 = 1 sequence, 128 tokens, 128 positions) made explicit */
        uint64_t prompt = p->opts.prompt ? p->opts.prompt : 128;
        p->batch = p->opts.batch ? p->opts.batch : 1;
        p->tokens = k ? 1 : prompt;
        p->positions = k ? (p->opts.context ? p->opts.context : 128) : prompt;
        RF_TRY(rf__phase(ctx, m, &r->roof, p));
    }
    snprintf(r->phase[0].title, sizeof r->phase[0].title, "prefill: %llu tokens x batch %llu",
             (unsigned long long)r->phase[0].tokens, (unsigned long long)r->phase[0].batch);
    snprintf(r->phase[1].title, sizeof r->phase[1].title,
             "decode: 1 token x batch %llu against %llu cached positions",
             (unsigned long long)r->phase[1].batch, (unsigned long long)r->phase[1].positions);
    RF_TRY(rf_llm_ceilings_compute(ctx, m, r->phase[1].graph, r->phase[0].cost, &r->phase[0].opts,
                                   r->phase[1].cost, &r->phase[1].opts, &r->roof, &r->ceilings));
    RF_TRY(rf__rows(ctx, r, 0, &r->prefill_rows));
    RF_TRY(rf__rows(ctx, r, 1, &r->decode_rows));
    return rf__rows(ctx, r, 2, &r->groups);
}

rf_status rf_llm_analyze(rf_ctx *ctx, const rf_llm_model *m, const char *model_name,
                         const rf_machine *mach, size_t compute, size_t bandwidth,
                         const rf_llm_opts *po, const rf_llm_opts *dopt, rf_llm_result **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, m && mach && po && dopt && out, RF_USAGE,
             "rf_llm_analyze: model, machine, options and out are required");
    *out = NULL;
    rf_llm_result *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->alloc_ = *rf_ctx_allocator(ctx);
    r->hparams = m->hp;
    r->compute = compute;
    r->bandwidth = bandwidth;
    r->phase[0].opts = *po;
    r->phase[1].opts = *dopt;
    r->model = rf__strdup(ctx, model_name ? model_name : "");
    rf_status st = r->model ? rf_machine_clone(ctx, mach, &r->machine) : RF_NOMEM_ERR(ctx);
    if (st == RF_OK) st = rf__analyze(ctx, m, r);
    if (st != RF_OK) {
        rf_llm_result_free(r);
        return st;
    }
    *out = r;
    return RF_OK;
}

void rf_llm_result_free(rf_llm_result *r)
{
    if (!r) return;
    rf_allocator a = r->alloc_;
    for (int k = 0; k < 2; k++) {
        rf_graph_free(r->phase[k].graph);
        rf_cost_free(r->phase[k].cost);
        rf__free_with(&a, r->phase[k].evals);
    }
    rf_result_free(r->prefill_rows);
    rf_result_free(r->decode_rows);
    rf_result_free(r->groups);
    rf_machine_free(r->machine);
    rf__free_with(&a, r->model);
    rf__free_with(&a, r);
}

rf_status rf_llm_result_set_measured(rf_ctx *ctx, rf_llm_result *r, double decode_tokens_per_s,
                                     double ttft_s, const char *source)
{
    RF_CHECK(ctx, r, RF_USAGE, "rf_llm_result_set_measured: no result");
    RF_CHECK(ctx, isfinite(decode_tokens_per_s) && decode_tokens_per_s >= 0, RF_RANGE,
             "measured decode rate %g tokens/s is not a finite figure >= 0", decode_tokens_per_s);
    RF_CHECK(ctx, isfinite(ttft_s) && ttft_s >= 0, RF_RANGE,
             "measured time to first token %g s is not a finite figure >= 0", ttft_s);
    rf_llm_measured *x = &r->measured;
    const rf_llm_ceilings *c = &r->ceilings;
    double batch = (double)(r->phase[1].batch ? r->phase[1].batch : 1);
    double pbatch = (double)(r->phase[0].batch ? r->phase[0].batch : 1);
    double prompt = (double)(r->phase[0].tokens ? r->phase[0].tokens : 1);
    memset(x, 0, sizeof *x);
    x->busy_other = -1;
    if (decode_tokens_per_s > 0) {
        double steps = decode_tokens_per_s / batch; /* one step reads the weights once */
        x->have_decode = 1;
        x->decode_tokens_per_s = decode_tokens_per_s;
        /* the bytes a decode step reads, as the decode phase counts them (issue 28: the whole
         * file's, token_embd included, overstated it) */
        x->step_weight_bytes = r->phase[1].cost ? r->phase[1].cost->weight_bytes : c->model_bytes;
        x->weight_bytes_per_s = x->step_weight_bytes * steps;
        x->decode_of_bandwidth =
            r->roof.bw_bytes_per_s > 0 ? x->weight_bytes_per_s / r->roof.bw_bytes_per_s : 0;
        x->decode_of_compute =
            c->compute_tokens_per_s > 0 ? decode_tokens_per_s / c->compute_tokens_per_s : 0;
        x->decode_of_refined =
            c->decode_tokens_per_s > 0 ? decode_tokens_per_s / c->decode_tokens_per_s : 0;
    }
    if (ttft_s > 0) {
        x->have_prefill = 1;
        x->ttft_s = ttft_s;
        x->prefill_tokens_per_s = pbatch * prompt / ttft_s;
        x->ttft_of_refined = c->prefill_s / ttft_s;
    }
    rf__strlcpy(x->source, source ? source : "", sizeof x->source);
    return RF_OK;
}

rf_status rf_llm_result_set_decode_roof(rf_ctx *ctx, rf_llm_result *r,
                                        const rf_llm_decode_roof_in *in)
{
    RF_CHECK(ctx, r && in, RF_USAGE, "rf_llm_result_set_decode_roof: missing argument");
    rf_llm_measured *x = &r->measured;
    RF_CHECK(ctx, x->have_decode && x->decode_tokens_per_s > 0 && x->step_weight_bytes > 0,
             RF_USAGE, "rf_llm_result_set_decode_roof: no measured decode to set a roof for");
    RF_CHECK(ctx,
             isfinite(in->products_s) && in->products_s > 0 && isfinite(in->products_in_step_s) &&
                 in->products_in_step_s >= 0 && isfinite(in->paired_share) && in->paired_share >= 0,
             RF_RANGE, "decode roof: products %g s a step is not a finite figure > 0",
             in->products_s);
    double batch = (double)(r->phase[1].batch ? r->phase[1].batch : 1);
    x->products_median_s = in->products_s;
    x->products_min_s = in->products_min_s > 0 ? in->products_min_s : in->products_s;
    x->products_max_s = in->products_max_s > 0 ? in->products_max_s : in->products_s;
    x->step_s = batch / x->decode_tokens_per_s;
    x->products_in_step_s = in->products_in_step_s;
    x->other_s = x->step_s > in->products_in_step_s ? x->step_s - in->products_in_step_s : 0;
    x->products_s = in->paired_share > 0 ? x->step_s * in->paired_share : in->products_s;
    x->roof_bytes_per_s = x->step_weight_bytes / x->products_s;
    x->bandwidth_bytes_per_s = r->roof.bw_bytes_per_s > 0 ? r->roof.bw_bytes_per_s : 0;
    x->roof_of_bandwidth =
        x->bandwidth_bytes_per_s > 0 ? x->roof_bytes_per_s / x->bandwidth_bytes_per_s : 0;
    double k =
        isfinite(in->kernel_bytes_per_s) && in->kernel_bytes_per_s > 0 ? in->kernel_bytes_per_s : 0;
    /* the products alone at DRAM's rate: memory. Below it, the lower of the two ceilings the
     * stream meets: DRAM, or the kernel as fast as it runs on rows in L2 (the stream overlaps
     * them only partly, so the roof is under both). Without a DRAM figure, or without the
     * kernel's, the kernel is named: its rate is what was measured. */
    if (!(x->bandwidth_bytes_per_s > 0))
        x->bound_by_kernel = 1;
    else if (x->roof_of_bandwidth >= RF_LLM_MEMORY_BOUND)
        x->bound_by_kernel = 0;
    else
        x->bound_by_kernel = k > 0 ? k < x->bandwidth_bytes_per_s : 1;
    double lo = k < x->bandwidth_bytes_per_s ? k : x->bandwidth_bytes_per_s,
           hi = k < x->bandwidth_bytes_per_s ? x->bandwidth_bytes_per_s : k;
    x->bound_by_both =
        k > 0 && x->roof_of_bandwidth < RF_LLM_MEMORY_BOUND && hi < RF_LLM_BOTH_BOUND * lo;
    x->decode_of_roof = x->weight_bytes_per_s / x->roof_bytes_per_s;
    rf__strlcpy(x->kernel_type, in->kernel_type ? in->kernel_type : "", sizeof x->kernel_type);
    x->kernel_threads = in->threads;
    x->kernel_bytes_per_s = k;
    x->roof_of_kernel = k > 0 ? x->roof_bytes_per_s / k : 0;
    x->serial_bytes_per_s = 0;
    x->overlap = 0;
    if (k > 0 && x->bandwidth_bytes_per_s > 0) { /* the two in series, and overlapped */
        x->serial_bytes_per_s = 1 / (1 / k + 1 / x->bandwidth_bytes_per_s);
        x->overlap = (x->roof_bytes_per_s - x->serial_bytes_per_s) / (lo - x->serial_bytes_per_s);
    }
    rf__strlcpy(x->kernel_ceiling, in->kernel_ceiling ? in->kernel_ceiling : "",
                sizeof x->kernel_ceiling);
    return RF_OK;
}

rf_status rf_llm_pick_compute(rf_ctx *ctx, const rf_llm_model *m, const rf_machine *mach,
                              const rf_llm_opts *o, size_t *compute, char *why, size_t cap)
{
    RF_CHECK(ctx, m && mach && compute && why && cap, RF_USAGE,
             "rf_llm_pick_compute: missing argument");
    /* the matrix weights' main type: the one with the most elements in tensors of rank >= 2
     * (ties: the first in file order). One pass over the tensors: a file may hold millions. */
    double elems[RF_DTYPE_COUNT] = {0};
    for (size_t k = 0; k < m->n_w; k++) {
        const rf__llm_w *w = &m->w[k];
        uint64_t n;
        if ((unsigned)w->dtype >= RF_DTYPE_COUNT || w->rank < 2 || !rf_dtype_bytes(w->dtype, 1, &n))
            continue;
        double e = 1;
        for (uint32_t d = 0; d < w->rank; d++) e *= (double)w->dims[d];
        elems[w->dtype] += e;
    }
    rf_dtype main = RF_DTYPE_UNKNOWN;
    double best = -1;
    for (size_t i = 0; i < m->n_w; i++) {
        double b = (unsigned)m->w[i].dtype < RF_DTYPE_COUNT ? elems[m->w[i].dtype] : 0;
        if (b > best) best = b, main = m->w[i].dtype;
    }
    if (o && o->weights != RF_DTYPE_UNKNOWN) main = o->weights;
    unsigned act = o && o->act_bits ? o->act_bits : 16;
    const char *want, *what;
    if (main == RF_DTYPE_F32 || act == 32)
        want = "fp32", what = main == RF_DTYPE_F32 ? "F32 weights" : "32-bit activations";
    else if (act == 8)
        want = "int8", what = "8-bit activations (W8A8)";
    else if (act == 4)
        want = "int4|int8", what = "4-bit activations";
    else
        want = main == RF_DTYPE_BF16 ? "bf16|fp16" : "fp16|bf16",
        what = "16-bit activations, weights dequantised to them";
    size_t pick = rf_machine_find_prefix(mach, RF_CEILING_COMPUTE, want);
    const char *wt = main != RF_DTYPE_UNKNOWN ? rf_dtype_name(main) : "unknown";
    if (pick == SIZE_MAX) {
        *compute = mach->default_compute;
        snprintf(why, cap,
                 "%s weights, %s: %s has no %s ceiling, so its default %s (--compute sets "
                 "another)",
                 wt, what, mach->name, want, mach->ceilings[*compute].name);
    } else {
        *compute = pick;
        snprintf(why, cap, "picked for %s weights, %s (--compute sets another)", wt, what);
    }
    return RF_OK;
}
