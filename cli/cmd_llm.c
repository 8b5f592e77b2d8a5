/* cmd_llm.c — `roofline llm MODEL`: per-layer rooflines of an LLM (GGUF, or SafeTensors with its
 * config.json) for prefill (--prompt S) and decode (--context L) at --batch B, the quantization
 * read from the file (or a what-if --weights type), and the token-rate ceilings: aprender's simple
 * figures and the refined per-layer ones. Printing only: graphs, costs and ceilings come from
 * roofline/llm.h (issue 4). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llm_out.h"

static const rf_cli_opt rf__llm_opts[] = {
    RF_CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "sequences decoded or prefilled together (default: 1)"},
    {"prompt", 'p', "S", "prefill: prompt tokens per sequence (default: 128)"},
    {"context", 'c', "L",
     "decode: KV-cache positions attended, the new token included (default: 128)"},
    {"causal-half", 0, NULL, "count half of prefill's attention matmuls (default: the full S x S)"},
    {"granular", 0, NULL, "list every block's layers, not the repeated block once x N"},
    {"kv-bits", 0, "BITS", "KV-cache element size: 32, 16, 8 or 4 (default: 16)"},
    {"act-bits", 0, "BITS", "activation element size: 32, 16, 8 or 4 (default: 16)"},
    {"weights", 'w', "TYPE", "what-if: store every matrix as TYPE (q4_k, q8_0, f16, ...)"},
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"chart", 0, NULL, "add the ASCII roofline chart with prefill and decode points (table)"},
    {"plot", 0, "FILE.svg|FILE.html", "draw prefill and decode as two series into FILE"},
    {0, 0, 0, 0},
};

typedef struct rf__llm_run {
    rf_llm_model *m;
    rf_machine *mach;
    size_t ci, bi;
    rf_roof roof;
    rf_llm_phase_out ph[2]; /* prefill, decode */
    rf_llm_ceilings ce;
    rf_result *res[3]; /* prefill, decode, both (the ASCII chart) */
} rf__llm_run;

static int rf__bits(const rf_cli_cmd *cmd, const rf_cli_args *a, const char *opt, uint32_t *out)
{
    unsigned long long v = 16;
    const char *t = rf_cli_get(a, opt);
    if (t && rf_cli_uint(cmd, opt, t, 1, 64, &v)) return RF_EXIT_USAGE;
    if (v != 32 && v != 16 && v != 8 && v != 4)
        return rf_cli_usage_error(cmd, "--%s: %llu bits is not one of 32, 16, 8, 4", opt, v);
    *out = (uint32_t)v;
    return 0;
}

/* Options into the two phases' rf_llm_opts. */
static int rf__parse(const rf_cli_cmd *cmd, const rf_cli_args *a, rf_llm_opts *po,
                     rf_llm_opts *dopt)
{
    unsigned long long b = 1, s = 128, l = 128;
    const unsigned long long max = 1ull << 24;
    if (rf_cli_get(a, "batch") && rf_cli_uint(cmd, "batch", rf_cli_get(a, "batch"), 1, max, &b))
        return RF_EXIT_USAGE;
    if (rf_cli_get(a, "prompt") && rf_cli_uint(cmd, "prompt", rf_cli_get(a, "prompt"), 1, max, &s))
        return RF_EXIT_USAGE;
    if (rf_cli_get(a, "context") &&
        rf_cli_uint(cmd, "context", rf_cli_get(a, "context"), 1, max, &l))
        return RF_EXIT_USAGE;
    memset(po, 0, sizeof *po);
    po->phase = RF_LLM_PREFILL;
    po->batch = b;
    po->prompt = s;
    po->causal_half = rf_cli_get(a, "causal-half") != NULL;
    po->granular = rf_cli_get(a, "granular") != NULL;
    if (rf__bits(cmd, a, "kv-bits", &po->kv_bits) || rf__bits(cmd, a, "act-bits", &po->act_bits))
        return RF_EXIT_USAGE;
    const char *w = rf_cli_get(a, "weights");
    if (w && (!rf_dtype_from_name(w, &po->weights) || !rf_dtype_block_bytes(po->weights) ||
              po->weights == RF_DTYPE_STRING))
        return rf_cli_usage_error(cmd, "--weights: unknown type '%s' (e.g. q4_k, q8_0, f16)", w);
    *dopt = *po;
    dopt->phase = RF_LLM_DECODE;
    dopt->context = l;
    return 0;
}

static rf_status rf__phase(rf_ctx *ctx, rf__llm_run *r, rf_llm_phase_out *p)
{
    RF_TRY_CLI(rf_llm_build(ctx, r->m, &p->opts, &p->g));
    RF_TRY_CLI(rf_llm_cost(ctx, p->g, &p->opts, &p->c));
    p->evals = calloc(p->g->n_layers + 1, sizeof *p->evals);
    if (!p->evals) return RF_NOMEM;
    p->ridge = r->roof.peak_flops_per_s / r->roof.bw_bytes_per_s;
    for (uint32_t i = 0; i < p->g->n_layers; i++) {
        const rf_layer_cost *c = &p->c->layers[i];
        if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
        RF_TRY_CLI(rf_roof_eval(ctx, &r->roof, c->flops, c->bytes, &p->evals[i]));
        p->time_s += p->evals[i].time_s;
    }
    return RF_OK;
}

/* The chart's points of one phase: the whole phase, its weight matmuls, its attention matmuls
 * and everything else (norms, softmax, RoPE, adds, KV stores, the gather). */
static rf_status rf__groups(rf_analysis *an, const rf_llm_phase_out *p)
{
    static const char *const what[4] = {"all layers", "weight matmuls", "attention matmuls",
                                        "other ops"};
    double f[4] = {0}, b[4] = {0};
    char name[96];
    for (uint32_t i = 0; i < p->g->n_layers; i++) {
        const rf_layer *l = &p->g->layers[i];
        const rf_layer_cost *c = &p->c->layers[i];
        if (!c->known) continue;
        int k = rf_layer_attr_int(l, "llm_attention", 0) ? 2 : l->kind == RF_OP_GEMM ? 1 : 3;
        f[0] += c->flops, b[0] += c->bytes, f[k] += c->flops, b[k] += c->bytes;
    }
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "%s: %s", p->name, what[k]);
        if (f[k] > 0) RF_TRY_CLI(rf_analysis_add(an, name, strlen(name), NULL, f[k], b[k]));
    }
    return RF_OK;
}

/* An rf_result of a phase's layers (`which` 0 prefill, 1 decode), or 2: both phases' groups. */
static rf_status rf__result(rf_ctx *ctx, rf__llm_run *r, int which, rf_result **out)
{
    rf_analysis *an = NULL;
    char name[160];
    RF_TRY_CLI(rf_analysis_new(ctx, r->mach, r->ci, r->bi, RF_SORT_INPUT, 0, &an));
    rf_status st = RF_OK;
    for (int k = 0; k < 2 && st == RF_OK; k++) {
        const rf_llm_phase_out *p = &r->ph[k];
        if (which == 2) st = rf__groups(an, p);
        if (which != k) continue;
        for (uint32_t i = 0; i < p->g->n_layers && st == RF_OK; i++) {
            const rf_layer_cost *c = &p->c->layers[i];
            if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
            const char *nm = p->g->layers[i].name;
            st = rf_analysis_add_detail(an, nm, strlen(nm), p->g->layers[i].op_type, NULL, 1,
                                        c->flops, c->bytes);
        }
    }
    snprintf(name, sizeof name, "%s%s%s",
             which == 1   ? "decode"
             : which == 0 ? "prefill"
                          : "llm",
             " of ", r->ph[0].g->architecture);
    if (st == RF_OK) st = rf_analysis_finish(an, name, out);
    rf_analysis_free(an);
    return st;
}

static void rf__free(rf__llm_run *r)
{
    for (int k = 0; k < 2; k++) {
        rf_graph_free(r->ph[k].g);
        rf_cost_free(r->ph[k].c);
        free(r->ph[k].evals);
    }
    for (int k = 0; k < 3; k++) rf_result_free(r->res[k]);
    rf_machine_free(r->mach);
    rf_llm_free(r->m);
}

/* The model line, conventions, the machine. */
static void rf__header(const char *path, const rf__llm_run *r)
{
    const rf_llm_hparams *hp = rf_llm_hparams_get(r->m);
    const rf_llm_opts *o = &r->ph[0].opts;
    char a[16], b[16];
    printf("model    %s (%s, %s%s%s%s)\n", path, hp->format, hp->architecture,
           hp->name[0] ? " \"" : "", hp->name, hp->name[0] ? "\"" : "");
    if (hp->known)
        printf(
            "shape    %llu blocks%s, d_model %llu, %llu heads x %llu (%llu KV heads%s), ffn %llu, "
            "vocab %llu%s\n",
            (unsigned long long)hp->n_layer, hp->uniform ? " (identical)" : " (they differ)",
            (unsigned long long)hp->n_embd, (unsigned long long)hp->n_head,
            (unsigned long long)hp->head_dim, (unsigned long long)hp->n_head_kv,
            hp->n_head_kv < hp->n_head ? ", GQA" : "", (unsigned long long)hp->n_ff,
            (unsigned long long)hp->n_vocab,
            hp->tied_embeddings ? ", LM head tied to the embedding" : "");
    if (hp->n_expert)
        printf("experts  %llu per block, %llu used per token: %llu of %llu params active\n",
               (unsigned long long)hp->n_expert, (unsigned long long)hp->n_expert_used,
               (unsigned long long)hp->active_params, (unsigned long long)hp->params);
    printf("weights  %llu params, %sB, %.3f bits per weight%s%s\n", (unsigned long long)hp->params,
           rf_si_format_compact(a, sizeof a, r->ce.model_bytes, ""), r->ce.bits_per_weight,
           o->weights ? " under the what-if type " : " (from the file)",
           o->weights ? rf_dtype_name(o->weights) : "");
    printf("machine  %s [%s, %s]\n", r->mach->description, r->mach->name,
           rf_provenance_name(r->mach->provenance));
    printf("roof     %s %sFLOP/s, %s %sB/s, ridge %.3g FLOP/B\n", r->mach->ceilings[r->ci].name,
           rf_si_format_compact(a, sizeof a, r->roof.peak_flops_per_s, ""),
           r->mach->ceilings[r->bi].name,
           rf_si_format_compact(b, sizeof b, r->roof.bw_bytes_per_s, ""), r->ph[0].ridge);
    printf("counting FLOPs of every op (a multiply-add is 2); prefill attention %s; logits for "
           "every position; activations %u-bit, KV cache %u-bit\n",
           o->causal_half ? "counts half of the S x S matmuls (--causal-half)"
                          : "is the full S x S matmul (--causal-half halves it)",
           o->act_bits, o->kv_bits);
}

/* A memory size in KiB / MiB / GiB (powers of two, DESIGN.md "Units"). */
static const char *rf__mib(char *buf, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (k < 4 && v >= 1024) v /= 1024, k++;
    snprintf(buf, n, "%.4g %s", v, unit[k]);
    return buf;
}

static void rf__ceilings(const rf__llm_run *r)
{
    const rf_llm_ceilings *c = &r->ce;
    const rf_llm_opts *d = &r->ph[1].opts, *p = &r->ph[0].opts;
    char a[16], b[16], t[24], x[16], y[16];
    printf("\nceilings (simple: model bytes = params x bits / 8)\n");
    printf("  model bytes           %sB (%.3f bits per weight)\n",
           rf_si_format_compact(a, sizeof a, c->model_bytes, ""), c->bits_per_weight);
    printf("  bandwidth ceiling     %s tokens/s (bandwidth / model bytes)\n",
           rf_si_format_compact(x, sizeof x, c->bw_tokens_per_s, ""));
    printf("  compute ceiling       %s tokens/s (peak / (2 x params))\n",
           rf_si_format_compact(x, sizeof x, c->compute_tokens_per_s, ""));
    printf("  ceiling               %s tokens/s, %s-bound\n",
           rf_si_format_compact(x, sizeof x, c->simple_tokens_per_s, ""),
           rf_bound_name(c->simple_bound));
    printf("ceilings (refined: sum over layers of max(FLOPs / peak, bytes / bandwidth))\n");
    printf("  decode                %s tokens/s at batch %llu, context %llu (step %s, %sFLOP per "
           "token)\n",
           rf_si_format_compact(y, sizeof y, c->decode_tokens_per_s, ""),
           (unsigned long long)d->batch, (unsigned long long)d->context,
           rf_llm_time(t, sizeof t, c->decode_step_s),
           rf_si_format_compact(a, sizeof a, c->decode_flops_per_token, ""));
    printf("  time to first token   %s for %llu prompt tokens x batch %llu (%sFLOP)\n",
           rf_llm_time(t, sizeof t, c->prefill_s), (unsigned long long)p->prompt,
           (unsigned long long)p->batch, rf_si_format_compact(a, sizeof a, c->prefill_flops, ""));
    printf("  prefill               %s tokens/s\n",
           rf_si_format_compact(x, sizeof x, c->prefill_tokens_per_s, ""));
    if (c->batch_compute_bound)
        printf("  decode compute-bound  from batch %llu (at context %llu)\n",
               (unsigned long long)c->batch_compute_bound, (unsigned long long)d->context);
    else
        printf("  decode compute-bound  at no batch (at context %llu the KV cache and activations "
               "grow as fast as the FLOPs)\n",
               (unsigned long long)d->context);
    printf("  KV cache              %s per token, %s for %llu positions (one sequence, %u-bit)\n",
           rf__mib(a, sizeof a, c->kv_bytes_per_token), rf__mib(b, sizeof b, c->kv_bytes_context),
           (unsigned long long)d->context, d->kv_bits);
}

static void rf__json(const char *path, const rf__llm_run *r)
{
    const rf_llm_hparams *hp = rf_llm_hparams_get(r->m);
    const rf_llm_ceilings *c = &r->ce;
    printf("{\"schema\": \"roofline-llm/1\", \"model\": ");
    rf_llm_jstr(path);
    printf(", \"architecture\": ");
    rf_llm_jstr(hp->architecture);
    printf(", \"params\": %llu, \"weight_bytes\": %.17g, \"bits_per_weight\": %.17g,\n",
           (unsigned long long)hp->params, c->model_bytes, c->bits_per_weight);
    printf(" \"machine\": ");
    rf_llm_jstr(r->mach->name);
    printf(", \"peak_flops_per_s\": %.17g, \"bw_bytes_per_s\": %.17g,\n", r->roof.peak_flops_per_s,
           r->roof.bw_bytes_per_s);
    printf(" \"ceilings\": {\"bw_tokens_per_s\": %.17g, \"compute_tokens_per_s\": %.17g, "
           "\"simple_tokens_per_s\": %.17g, \"simple_bound\": \"%s\", \"decode_tokens_per_s\": "
           "%.17g, \"time_to_first_token_s\": %.17g, \"prefill_tokens_per_s\": %.17g, "
           "\"batch_compute_bound\": %llu, \"kv_bytes_per_token\": %.17g, \"kv_bytes_context\": "
           "%.17g},\n ",
           c->bw_tokens_per_s, c->compute_tokens_per_s, c->simple_tokens_per_s,
           rf_bound_name(c->simple_bound), c->decode_tokens_per_s, c->prefill_s,
           c->prefill_tokens_per_s, (unsigned long long)c->batch_compute_bound,
           c->kv_bytes_per_token, c->kv_bytes_context);
    rf_llm_json_phase(&r->ph[0]);
    printf(",\n ");
    rf_llm_json_phase(&r->ph[1]);
    printf("}\n");
}

static rf_status rf__analyse(rf_ctx *ctx, const char *path, rf__llm_run *r)
{
    RF_TRY_CLI(rf_machine_roof(ctx, r->mach, r->ci, r->bi, &r->roof));
    RF_TRY_CLI(rf_llm_open(ctx, path, &r->m));
    for (int k = 0; k < 2; k++) {
        rf_llm_phase_out *p = &r->ph[k];
        p->name = k ? "decode" : "prefill";
        p->batch = p->opts.batch;
        p->tokens = k ? 1 : p->opts.prompt;
        p->positions = k ? p->opts.context : p->opts.prompt;
        RF_TRY_CLI(rf__phase(ctx, r, p));
    }
    snprintf(r->ph[0].title, sizeof r->ph[0].title, "prefill: %llu tokens x batch %llu",
             (unsigned long long)r->ph[0].tokens, (unsigned long long)r->ph[0].batch);
    snprintf(r->ph[1].title, sizeof r->ph[1].title,
             "decode: 1 token x batch %llu against %llu cached positions",
             (unsigned long long)r->ph[1].batch, (unsigned long long)r->ph[1].positions);
    RF_TRY_CLI(rf_llm_ceilings_compute(ctx, r->m, r->ph[1].g, r->ph[0].c, &r->ph[0].opts,
                                       r->ph[1].c, &r->ph[1].opts, &r->roof, &r->ce));
    for (int k = 0; k < 3; k++) RF_TRY_CLI(rf__result(ctx, r, k, &r->res[k]));
    return RF_OK;
}

static int rf__print(rf_ctx *ctx, const char *path, const char *format, const rf_cli_args *a,
                     rf__llm_run *r)
{
    if (strcmp(format, "json") == 0) {
        rf__json(path, r);
    } else if (strcmp(format, "csv") == 0) {
        rf_llm_csv_phase(&r->ph[0], 1);
        rf_llm_csv_phase(&r->ph[1], 0);
    } else {
        rf__header(path, r);
        rf_llm_print_phase(&r->ph[0]);
        rf_llm_print_phase(&r->ph[1]);
        rf__ceilings(r);
        if (rf_cli_get(a, "chart")) {
            rf_writer w = rf_cli_stdout();
            rf_report_opts o = rf_cli_report_opts();
            printf("\n");
            fflush(stdout);
            rf_status st = rf_report_chart_ascii(ctx, r->res[2], r->mach, &o, &w);
            if (st != RF_OK) return rf_cli_fail(ctx, st);
        }
    }
    if (rf_cli_flush(ctx) != RF_OK) return rf_cli_fail(ctx, RF_IO);
    const char *plot = rf_cli_get(a, "plot");
    if (plot) {
        const rf_result *two[2] = {r->res[0], r->res[1]};
        return rf_cli_plot(ctx, two, 2, r->mach, plot);
    }
    return RF_EXIT_OK;
}

static int rf__llm(const rf_cli_cmd *cmd, int argc, char **argv)
{
    rf_cli_args a;
    rf__llm_run r = {0};
    int done, rc = rf_cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos != 1)
        return rf_cli_usage_error(cmd, a.n_pos ? "one model at a time" : "a model file is needed");
    const char *format = rf_cli_format(cmd, &a);
    if (!format || rf__parse(cmd, &a, &r.ph[0].opts, &r.ph[1].opts)) return RF_EXIT_USAGE;
    if (rf_cli_get(&a, "plot") && rf_cli_plot_check("llm", rf_cli_get(&a, "plot")))
        return RF_EXIT_USAGE;
    rf_ctx *ctx = rf_cli_ctx();
    if (!ctx) return RF_EXIT_INTERNAL;
    rf_status st = rf_cli_machine(ctx, &a, NULL, &r.mach, &r.ci, &r.bi);
    if (st == RF_USAGE && !rf_cli_get(&a, "hw")) { /* rf_cli_machine printed the line */
        rf_ctx_free(ctx);
        return RF_EXIT_USAGE;
    }
    if (st == RF_OK) st = rf__analyse(ctx, a.pos[0], &r);
    rc = st == RF_OK ? rf__print(ctx, a.pos[0], format, &a, &r) : rf_cli_fail(ctx, st);
    rf__free(&r);
    rf_ctx_free(ctx);
    return rc;
}

const rf_cli_cmd rf_cmd_llm = {
    "llm",
    "llm [OPTIONS] MODEL.gguf|CHECKPOINT_DIR",
    "prefill/decode rooflines and token-rate ceilings of an LLM",
    "Reads the architecture and the weights' real types from a GGUF file or a SafeTensors "
    "checkpoint (with its config.json) and builds the per-layer graph of prefill (--prompt S "
    "tokens) and of decode (one token against --context L cached positions) at --batch B: "
    "q/k/v/o projections, the two attention matmuls, softmax, norms, residual adds, the MLP, the "
    "embedding gather and the LM head, with bytes split into weights, activations in and out, "
    "KV-cache reads and writes. Then the ceilings: model bytes, bandwidth and compute ceilings in "
    "tokens/s and which binds; decode tokens/s, time to first token, prefill tokens/s, the batch "
    "at which decode turns compute-bound and the KV-cache size, against --hw.",
    rf__llm_opts,
    rf__llm,
};
