/* cmd_llm.c — `roofline llm MODEL`: per-layer rooflines of an LLM (GGUF, or SafeTensors with its
 * config.json, or APR) for prefill (--prompt S) and decode (--context L) at --batch B, the
 * quantization read from the file (or a what-if --weights type), and the token-rate ceilings:
 * aprender's simple figures and the refined per-layer ones. Parsing and writing only: the analysis
 * is rf_llm_analyze (measured rates: rf_llm_measure, rf_llm_result_set_measured), every output
 * format a renderer of src/report. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const cli_opt cli_llm_opts[] = {
    CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "sequences decoded or prefilled together (default: 1)"},
    {"prompt", 'p', "S", "prefill: prompt tokens per sequence (default: 128)"},
    {"context", 0, "L",
     "decode: KV-cache positions attended, the new token included (default: 128)"},
    {"causal-half", 0, NULL,
     "prefill: count half of the attention matmuls, of the softmax and of the score bytes (the "
     "causal triangle; default: the full S x S)"},
    {"attention", 0, "fused|unfused",
     "fused (default): the S x S scores stay on chip, as FlashAttention kernels keep them; "
     "unfused: written and read back by separate matmul and softmax kernels"},
    {"granular", 0, NULL, "list every block's layers, not the repeated block once x N"},
    {"kv-bits", 0, "BITS", "KV-cache element size: 32, 16, 8 or 4 (default: 16)"},
    {"act-bits", 0, "BITS", "activation element size: 32, 16, 8 or 4 (default: 16)"},
    {"weights", 'w', "TYPE", "what-if: store every matrix as TYPE (q4_k, q8_0, f16, ...)"},
    {"measure", 'm', NULL,
     "run prefill and decode on this CPU (the file's weight types; GGUF files only) and set "
     "the measured rates against the ceilings"},
    {"allow-unmeasured", 0, NULL,
     "--measure: when the model cannot be run, print the estimates and exit 0 (one line on "
     "stderr still says why; without it that is exit 2)"},
    {"threads", 0, "N", "--measure: threads (default: every core)"},
    {"measured-tps", 0, "N", "a decode rate measured elsewhere (tokens/s, e.g. llama-bench tg)"},
    {"measured-ttft", 0, "S", "a time to first token measured elsewhere (seconds)"},
    {"tp", 0, "N", "tensor parallelism over N devices: per-device layers, two allreduces a block"},
    {"pp", 0, "M", "pipeline parallelism over M stages: layers split, a hand-off between stages"},
    CLI_NETWORK_OPT,
    {"net-latency", 0, "SECONDS",
     "latency of one message on the link (default: the interconnect's, else 1e-6)"},
    CLI_ADVICE_OPTS,
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"chart", 0, NULL, "add the ASCII roofline chart with prefill and decode points (table)"},
    {"plot", 0, "FILE.svg|FILE.html", "draw prefill and decode as two series into FILE"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_llm_opts);

static int cli_bits(const cli_cmd *cmd, const cli_args *a, const char *opt, uint32_t *out)
{
    unsigned long long v = 16;
    const char *t = cli_get(a, opt);
    if (t && cli_uint(cmd, opt, t, 1, 64, &v)) return EXIT_USAGE;
    if (v != 32 && v != 16 && v != 8 && v != 4)
        return cli_usage_error(cmd, "--%s: %llu bits is not one of 32, 16, 8, 4", opt, v);
    *out = (uint32_t)v;
    return 0;
}

/* A positive finite number option (a rate, a time). */
static int cli_positive(const cli_cmd *cmd, const char *opt, const char *text, double *out)
{
    char what[32];
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    snprintf(what, sizeof what, "--%s", opt);
    rf_status st = rf_si_parse(ctx, text, what, out); /* the library's one number parser */
    int rc = st != RF_OK ? cli_usage_error(cmd, "%s", rf_ctx_errmsg(ctx))
             : *out <= 0 ? cli_usage_error(cmd, "%s: '%s' is not a positive number", what, text)
                         : EXIT_OK;
    rf_ctx_free(ctx);
    return rc;
}

/* Options into the two phases' rf_llm_opts. */
static int llm_parse_opts(const cli_cmd *cmd, const cli_args *a, rf_llm_opts *po, rf_llm_opts *dopt)
{
    unsigned long long b = 1, s = 128, l = 128;
    const unsigned long long max = 1ull << 24;
    if (cli_get(a, "batch") && cli_uint(cmd, "batch", cli_get(a, "batch"), 1, max, &b))
        return EXIT_USAGE;
    if (cli_get(a, "prompt") && cli_uint(cmd, "prompt", cli_get(a, "prompt"), 1, max, &s))
        return EXIT_USAGE;
    if (cli_get(a, "context") && cli_uint(cmd, "context", cli_get(a, "context"), 1, max, &l))
        return EXIT_USAGE;
    memset(po, 0, sizeof *po);
    po->phase = RF_LLM_PREFILL;
    po->batch = b;
    po->prompt = s;
    po->causal_half = cli_get(a, "causal-half") != NULL;
    const char *att = cli_get(a, "attention");
    if (att && strcmp(att, "fused") != 0 && strcmp(att, "unfused") != 0)
        return cli_usage_error(cmd, "--attention: '%s' is neither fused nor unfused", att);
    po->unfused_attention = att && strcmp(att, "unfused") == 0;
    po->granular = cli_get(a, "granular") != NULL;
    if (cli_bits(cmd, a, "kv-bits", &po->kv_bits) || cli_bits(cmd, a, "act-bits", &po->act_bits))
        return EXIT_USAGE;
    const char *w = cli_get(a, "weights");
    if (w && (!rf_dtype_from_name(w, &po->weights) || !rf_dtype_block_bytes(po->weights) ||
              po->weights == RF_DTYPE_STRING))
        return cli_usage_error(cmd, "--weights: unknown type '%s' (e.g. q4_k, q8_0, f16)", w);
    *dopt = *po;
    dopt->phase = RF_LLM_DECODE;
    dopt->context = l;
    return 0;
}

static rf_status cli_render_llm(rf_ctx *ctx, const void *r, rf_writer *w)
{
    return rf_report_llm_json(ctx, r, w);
}

/* The LLM JSON with its advice, then the distributed view when there is one. */
static rf_status cli_llm_json(rf_ctx *ctx, const rf_llm_result *r, const rf_advice_list *al,
                              const rf_llm_dist *d)
{
    if (!d) return cli_json_with_advice(ctx, cli_render_llm, r, al);
    rf_buf b, b2;
    rf_buf_init(&b, ctx, 0);
    rf_buf_init(&b2, ctx, 0);
    rf_writer bw = rf_buf_writer(&b), bw2 = rf_buf_writer(&b2), w = cli_stdout();
    rf_status st = rf_report_llm_json(ctx, r, &bw);
    if (st == RF_OK && al) st = rf_report_json_add_advice(ctx, b.data, b.len, al, &bw2);
    if (st == RF_OK)
        st = al ? rf_report_json_add_dist(ctx, b2.data, b2.len, d, &w)
                : rf_report_json_add_dist(ctx, b.data, b.len, d, &w);
    rf_buf_free(&b);
    rf_buf_free(&b2);
    return st;
}

static int cli_print(rf_ctx *ctx, const char *format, const cli_args *a, const rf_llm_result *r,
                     const rf_advice_list *al, const rf_llm_dist *d)
{
    rf_writer w = cli_stdout();
    rf_report_opts o = cli_report_opts();
    rf_status st;
    if (strcmp(format, "json") == 0) {
        st = cli_llm_json(ctx, r, al, d);
    } else if (strcmp(format, "csv") == 0) {
        st = rf_report_llm_csv(ctx, r, &w);
    } else {
        st = rf_report_llm_table(ctx, r, &o, &w);
        if (st == RF_OK && cli_get(a, "chart")) {
            st = rf_write(&w, "\n", 1);
            if (st == RF_OK) st = rf_report_chart_ascii(ctx, r->groups, r->machine, &o, &w);
        }
        if (st == RF_OK && d)
            st = rf_report_llm_dist(ctx, d, r->phase[1].batch ? r->phase[1].batch : 1, &o, &w);
        if (st == RF_OK && al) st = rf_report_advice(ctx, al, &o, &w);
    }
    if (st != RF_OK) return cli_fail(ctx, st);
    if (cli_flush(ctx) != RF_OK) return cli_fail(ctx, RF_IO);
    const char *plot = cli_get(a, "plot");
    if (plot) return cli_plot_llm(ctx, r, plot);
    return EXIT_OK;
}

/* --tp/--pp over the link of --interconnect (or the machine file's network ceiling). */
static rf_status cli_llm_distribute(rf_ctx *ctx, const rf_machine *mach, size_t ni,
                                    const rf_llm_result *r, uint32_t tp, uint32_t pp,
                                    double latency, rf_llm_dist *out)
{
    rf_llm_dist_opts o;
    memset(&o, 0, sizeof o);
    o.tp = tp;
    o.pp = pp;
    o.link_bytes_per_s = mach->ceilings[ni].value;
    snprintf(o.link, sizeof o.link, "%s", mach->ceilings[ni].name);
    const rf_interconnect *ic = NULL;
    o.link_latency_s = 1e-6;
    if (rf_interconnect_find(ctx, o.link, &ic) == RF_OK) o.link_latency_s = ic->latency_s;
    if (latency >= 0) o.link_latency_s = latency;
    return rf_llm_distribute(ctx, r, &o, out);
}

/* --measure could not run the model: one line on stderr naming the file (`why` from the library,
 * already naming it, or NULL: no layer graph); exit 2 unless --allow-unmeasured. */
static int cli_llm_unmeasured(const cli_args *a, const char *path, const char *why)
{
    int allow = cli_get(a, "allow-unmeasured") != NULL;
    if (why)
        fprintf(stderr, "roofline: %s%s\n", why,
                allow ? "; the estimates follow, unmeasured"
                      : " (--allow-unmeasured: the estimates alone, exit 0)");
    else
        fprintf(stderr, "roofline: %s: not measured: no layer graph to run, only its weights%s\n",
                path, allow ? "" : " (--allow-unmeasured: the weights report alone, exit 0)");
    return allow ? EXIT_OK : EXIT_USAGE;
}

static int cli_llm(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    rf_llm_opts po, dopt;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos != 1)
        return cli_usage_error(cmd, a.n_pos ? "one model at a time" : "a model file is needed");
    const char *format = cli_format(cmd, &a);
    if (!format || llm_parse_opts(cmd, &a, &po, &dopt)) return EXIT_USAGE;
    double tps = 0, ttft = 0;
    unsigned long long threads = 0;
    if (cli_get(&a, "threads") &&
        cli_uint(cmd, "threads", cli_get(&a, "threads"), 1, 1024, &threads))
        return EXIT_USAGE;
    if (cli_get(&a, "measured-tps") &&
        cli_positive(cmd, "measured-tps", cli_get(&a, "measured-tps"), &tps))
        return EXIT_USAGE;
    if (cli_get(&a, "measured-ttft") &&
        cli_positive(cmd, "measured-ttft", cli_get(&a, "measured-ttft"), &ttft))
        return EXIT_USAGE;
    if (cli_get(&a, "plot") && cli_plot_check("llm", cli_get(&a, "plot"))) return EXIT_USAGE;
    cli_advice adv;
    if (cli_advice_parse(cmd, &a, &adv)) return EXIT_USAGE;
    unsigned long long tp = 1, pp = 1;
    double net_latency = -1;
    if (cli_get(&a, "tp") && cli_uint(cmd, "tp", cli_get(&a, "tp"), 1, 4096, &tp))
        return EXIT_USAGE;
    if (cli_get(&a, "pp") && cli_uint(cmd, "pp", cli_get(&a, "pp"), 1, 4096, &pp))
        return EXIT_USAGE;
    if (cli_get(&a, "net-latency") &&
        cli_positive(cmd, "net-latency", cli_get(&a, "net-latency"), &net_latency))
        return EXIT_USAGE;
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_machine *mach = NULL;
    rf_llm_model *m = NULL;
    rf_llm_result *r = NULL;
    rf_advice_list *al = NULL;
    size_t ci, bi;
    if (cli_machine_measures(&a, NULL)) { /* the model first: measuring takes seconds */
        rf_status cs = rf_llm_read_file(ctx, a.pos[0], &m);
        rf_llm_free(m);
        m = NULL;
        if (cs != RF_OK) {
            rc = cli_fail(ctx, cs);
            rf_ctx_free(ctx);
            return rc;
        }
    }
    rf_status st = cli_machine(ctx, &a, NULL, &mach, &ci, &bi);
    if (st == RF_USAGE && !cli_get(&a, "hw")) { /* cli_machine printed the line */
        rf_ctx_free(ctx);
        return EXIT_USAGE;
    }
    const int dist_on = tp > 1 || pp > 1 || cli_get(&a, "interconnect");
    size_t ni = SIZE_MAX;
    if (st == RF_OK && dist_on) st = cli_network(ctx, &a, mach, &ni);
    if (st == RF_OK && dist_on && ni == SIZE_MAX) {
        rf_machine_free(mach);
        rf_ctx_free(ctx);
        return cli_usage_error(cmd, "--tp/--pp need a link: --interconnect NAME ('roofline hw "
                                    "list') or a bandwidth, or a machine file with a network "
                                    "ceiling");
    }
    if (st == RF_OK) st = rf_llm_read_file(ctx, a.pos[0], &m);
    if (st == RF_OK && !rf_llm_hparams_get(m)->known) { /* no layer graph: the weights */
        rc = cli_weights_report(ctx, m, a.pos[0], mach, bi, format);
        if (rc == EXIT_OK && cli_get(&a, "measure")) rc = cli_llm_unmeasured(&a, a.pos[0], NULL);
        rf_llm_free(m);
        rf_machine_free(mach);
        rf_ctx_free(ctx);
        return rc;
    }
    char why[RF_TEXT_MAX] = "";
    int unmeasured = EXIT_OK;
    if (st == RF_OK && !cli_get(&a, "compute") && !cli_get(&a, "peak-flops"))
        st = rf_llm_pick_compute(ctx, m, mach, &po, &ci, why, sizeof why);
    if (st == RF_OK) st = rf_llm_analyze(ctx, m, a.pos[0], mach, ci, bi, &po, &dopt, &r);
    if (st == RF_OK) snprintf(r->roof_note, sizeof r->roof_note, "%s", why);
    if (st == RF_OK && (tps > 0 || ttft > 0))
        st = rf_llm_result_set_measured(ctx, r, tps, ttft, "given on the command line");
    if (st == RF_OK && cli_get(&a, "measure")) {
        rf_exec_opts eo = {0};
        eo.threads = (unsigned)threads;
        fprintf(stderr, "roofline: measuring: prefill and decode on this CPU...\n");
        cli_progress(ctx, 1); /* a line every two seconds of a long step */
        st = rf_llm_measure(ctx, r, m, &eo);
        cli_progress(ctx, 0);
        if (st == RF_OK) cli_warn_busy(r->measured.busy_other, "prefill and decode ran");
        if (st == RF_UNSUPPORTED || st == RF_FORMAT) { /* a model the LLM pass cannot run */
            unmeasured = cli_llm_unmeasured(&a, a.pos[0], rf_ctx_errmsg(ctx));
            st = unmeasured == EXIT_OK ? RF_OK : st;
        }
    }
    rf_llm_dist dist, *d = NULL;
    if (st == RF_OK && dist_on)
        st = cli_llm_distribute(ctx, mach, ni, r, (uint32_t)tp, (uint32_t)pp, net_latency, &dist);
    if (st == RF_OK && dist_on) d = &dist;
    adv.o.dist = d; /* the advice weighs the link too */
    if (st == RF_OK && !adv.off) st = rf_advise_llm(ctx, r, &adv.o, &al);
    rc = unmeasured    ? unmeasured
         : st == RF_OK ? cli_print(ctx, format, &a, r, al, d)
                       : cli_fail(ctx, st);
    rf_advice_free(al);
    rf_llm_result_free(r);
    rf_llm_free(m);
    rf_machine_free(mach);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_llm = {
    "llm",
    "llm [OPTIONS] MODEL.gguf|MODEL.apr|CHECKPOINT_DIR",
    "prefill/decode rooflines and token-rate ceilings of an LLM",
    "Reads the architecture and the weights' real types from a GGUF file or a SafeTensors "
    "checkpoint (with its config.json) and builds the per-layer graph of prefill (--prompt S "
    "tokens) and of decode (one token against --context L cached positions) at --batch B: "
    "q/k/v/o projections, the two attention matmuls, softmax, norms, residual adds, the MLP, the "
    "embedding gather and the LM head, with bytes split into weights, activations in and out, "
    "KV-cache reads and writes. Then the ceilings: model bytes, bandwidth and compute ceilings in "
    "tokens/s and which binds; decode tokens/s, time to first token, prefill tokens/s, the batch "
    "at which decode turns compute-bound and the KV-cache size, against --hw.",
    cli_llm_opts,
    cli_llm,
};
