/* cmd_profile.c — `roofline profile MODEL`: per-layer FLOPs, bytes, intensity and bound of a model
 * file (ONNX, GGUF, SafeTensors), the model's totals, the slowest layers, and with --compare the
 * shift of intensity and bound under other input shapes. Parsing and writing only: the profile is
 * rf_profile_model, every output a renderer of src/report. */
#include <string.h>

#include "cli.h"

static const cli_opt cli_profile_opts[] = {
    CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "batch size: axis 0 of every model input"},
    {"seq", 0, "N", "sequence length: axis 1 of every rank-2/3 model input"},
    {"input", 'i', "NAME=DIMS[,...]", "input shape, e.g. input=1x3x512x512 (several: comma)"},
    {"dim", 'd', "SYM=N[,...]", "value of a symbolic dimension, e.g. batch=8"},
    {"value", 0, "NAME=N[,...]",
     "value of an integer scalar input that an If or a shape reads, e.g. sr=16000"},
    {"compare", 0, "NAME=DIMS[,...]", "profile again with these input shapes and show the shift"},
    {"top", 'n', "N",
     "a model of more than N layers: list its N slowest, slowest first (default: 20; 0: every "
     "layer)"},
    {"all", 0, NULL, "list every layer in model order, then the 5 slowest"},
    {"measure", 'm', NULL,
     "run the model on this CPU and put every layer's measured point under "
     "its roof (achieved FLOP/s, utilization)"},
    {"repeat", 0, "N",
     "--measure: timed passes after 2 warm-up ones (default: as many as fit in about 2.5 s); 1: "
     "one pass in all"},
    {"threads", 0, "N", "--measure: threads for oneDNN and OpenBLAS (default: every core)"},
    {"max-flops", 0, "N",
     "--measure: refuse a model whose one pass costs more than N FLOP (default 2T; 0: no limit)"},
    {"granular", 0, NULL, "LLMs: list every block's layers, not the repeated block once x N"},
    {"trips", 0, "NODE=N[,...]",
     "ONNX Loop / Scan: the trip count of NODE when the file does not give it"},
    {"allow-undefined", 0, NULL,
     "exit 0 even when more than a tenth of the layers have no cost (the totals are then a "
     "lower bound; without it that is exit 2)"},
    {"allow-unmeasured", 0, NULL,
     "--measure: exit 0 even when some layers did not run (no kernel, ...): a partial pass, "
     "its rows say why and it has no whole-pass time; without it that is exit 2"},
    CLI_ADVICE_OPTS,
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"chart", 0, NULL, "add the ASCII roofline chart (table format)"},
    {"wide", 0, NULL, "tables with measurements: every column (default: those that fit 120)"},
    {"plot", 0, "FILE.svg|FILE.html|-",
     "also draw the chart as SVG or an interactive HTML page "
     "(with --compare: both input shapes as series)"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_profile_opts);

/* Parse "a=..,b=.." bindings (is_dim) into b[*n]. */
static int cli_bindings(const cli_cmd *cmd, rf_ctx *ctx, const char *opt, const char *text,
                        int is_dim, rf_shape_binding *b, size_t cap, size_t *n)
{
    char buf[1024];
    if (!text) return 0;
    if (strlen(text) >= sizeof buf) return cli_usage_error(cmd, "--%s: value too long", opt);
    memcpy(buf, text, strlen(text) + 1);
    for (char *s = buf, *e; s && *s; s = e) {
        e = strchr(s, ',');
        if (e) *e++ = '\0';
        if (*n == cap) return cli_usage_error(cmd, "--%s: too many bindings", opt);
        if (rf_shape_binding_parse(ctx, s, is_dim, &b[*n]) != RF_OK)
            return cli_usage_error(cmd, "%s", rf_ctx_errmsg(ctx));
        (*n)++;
    }
    return 0;
}

/* Before this machine is measured (seconds): the model and the shapes, on a placeholder
 * machine, so a bad file or --input fails at once. An LLM of another architecture passes (its
 * weights report needs no graph). */
static int cli_profile_check(rf_ctx *ctx, const char *path, const rf_model_opts *mo,
                             const rf_model_opts *mo2, const cli_args *a)
{
    rf_machine *pm = NULL;
    rf_profile *pp = NULL;
    size_t pc, pb;
    rf_ctx_set_log(ctx, NULL, NULL, RF_LOG_WARN); /* the real run gives the warnings */
    rf_status st = cli_placeholder_machine(ctx, &pm, &pc, &pb);
    if (st == RF_OK) st = rf_profile_model(ctx, path, mo, pm, pc, pb, &pp);
    rf_profile_free(pp);
    pp = NULL;
    if (st == RF_OK && cli_get(a, "compare"))
        st = rf_profile_model(ctx, path, mo2, pm, pc, pb, &pp);
    rf_profile_free(pp);
    rf_machine_free(pm);
    cli_progress(ctx, 0);
    if (st == RF_OK || st == RF_UNSUPPORTED) {
        rf_ctx_clear_error(ctx);
        return EXIT_OK;
    }
    return cli_fail(ctx, st);
}

/* Shared by `profile` and the demo: load `path` (NULL: the built-in demo) and print. */
int cli_profile_run(const cli_cmd *cmd, const cli_args *a, const char *path,
                    const char *fallback_machine)
{
    rf_shape_binding b[32], b2[32];
    size_t nb = 0, nb2 = 0;
    /* the table: the `top` slowest layers (the demo 8, profile 20); --all or --top 0: all */
    unsigned long long batch = 0, seq = 0, top = fallback_machine ? 8 : 20;
    const char *format = cli_format(cmd, a);
    if (!format) return EXIT_USAGE;
    const char *plot = cli_get(a, "plot");
    if (plot && cli_plot_check(cmd->name, plot)) return EXIT_USAGE;
    if (cli_get(a, "batch") && cli_uint(cmd, "batch", cli_get(a, "batch"), 1, 1ULL << 30, &batch))
        return EXIT_USAGE;
    if (cli_get(a, "seq") && cli_uint(cmd, "seq", cli_get(a, "seq"), 1, 1ULL << 30, &seq))
        return EXIT_USAGE;
    if (cli_get(a, "top") && cli_uint(cmd, "top", cli_get(a, "top"), 0, 1ULL << 30, &top))
        return EXIT_USAGE;
    unsigned long long repeat = 0, threads = 0;
    if (cli_get(a, "repeat") && cli_uint(cmd, "repeat", cli_get(a, "repeat"), 1, 100000, &repeat))
        return EXIT_USAGE;
    if (cli_get(a, "threads") && cli_uint(cmd, "threads", cli_get(a, "threads"), 1, 1024, &threads))
        return EXIT_USAGE;
    double max_flops = 2e12; /* one pass of a large real model (BERT-large at 512: 0.35 T) */
    const char *mf = cli_get(a, "max-flops");
    if (mf && !(mf[0] == '0' && !mf[1])) {
        rf_ctx *pc = cli_ctx();
        rf_status ps = pc ? rf_si_parse(pc, mf, "--max-flops", &max_flops) : RF_NOMEM;
        if (ps != RF_OK) cli_usage_error(cmd, "%s", pc ? rf_ctx_errmsg(pc) : "out of memory");
        rf_ctx_free(pc);
        if (ps != RF_OK) return EXIT_USAGE;
    } else if (mf) {
        max_flops = 0;
    }
    cli_advice adv;
    if (cli_advice_parse(cmd, a, &adv)) return EXIT_USAGE;
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    int rc = cli_bindings(cmd, ctx, "input", cli_get(a, "input"), 0, b, 16, &nb);
    if (!rc) rc = cli_bindings(cmd, ctx, "dim", cli_get(a, "dim"), 1, b, 32, &nb);
    if (!rc) rc = cli_bindings(cmd, ctx, "value", cli_get(a, "value"), 2, b, 32, &nb);
    for (size_t i = 0; !rc && i < nb; i++) b2[nb2++] = b[i];
    if (!rc) rc = cli_bindings(cmd, ctx, "compare", cli_get(a, "compare"), 0, b2, 32, &nb2);
    if (rc) {
        rf_ctx_free(ctx);
        return rc;
    }
    rf_model_opts mo = {RF_MODEL_AUTO,      b, nb, batch, seq, cli_get(a, "granular") != NULL,
                        cli_get(a, "trips")},
                  mo2 = mo;
    mo2.bindings = b2;
    mo2.n_bindings = nb2;
    if (cli_machine_measures(a, fallback_machine) &&
        (rc = cli_profile_check(ctx, path, &mo, &mo2, a)) != EXIT_OK) {
        rf_ctx_free(ctx);
        return rc;
    }
    rf_machine *m = NULL;
    rf_profile *p1 = NULL, *p2 = NULL;
    rf_advice_list *al = NULL;
    size_t ci, bi;
    rf_status st = cli_machine(ctx, a, fallback_machine, &m, &ci, &bi);
    if (st != RF_OK && fallback_machine && !cli_get(a, "hw"))
        st = cli_machine(ctx, a, CLI_DEMO_MACHINE, &m, &ci, &bi);
    if (st == RF_OK) st = rf_profile_model(ctx, path, &mo, m, ci, bi, &p1);
    if (st == RF_UNSUPPORTED && path) { /* an LLM file of an unknown architecture: its weights */
        rf_llm_model *lm = NULL;
        rf_ctx_set_log(ctx, NULL, NULL, RF_LOG_WARN); /* the load above gave its warnings */
        rf_status lst = rf_llm_read_file(ctx, path, &lm);
        cli_progress(ctx, 0);
        if (lst == RF_OK && !rf_llm_hparams_get(lm)->known) {
            rc = cli_weights_report(ctx, lm, path, m, bi, format);
            rf_llm_free(lm);
            rf_machine_free(m);
            rf_ctx_free(ctx);
            return rc;
        }
        rf_llm_free(lm);
        st = rf_profile_model(ctx, path, &mo, m, ci, bi, &p1); /* the original error again */
    }
    if (st == RF_OK && cli_get(a, "measure")) {
        rf_exec_opts eo = {0};
        eo.repeat = (unsigned)repeat;
        eo.threads = (unsigned)threads;
        eo.max_flops = max_flops;
        fprintf(stderr, "roofline: measuring: running the model on this CPU...\n");
        cli_progress(ctx, 1); /* a line every two seconds of a long run, as llm --measure */
        st = rf_profile_measure(ctx, p1, m, ci, bi, &eo);
        cli_progress(ctx, 0);
        if (st == RF_OK) cli_warn_busy(p1->result->totals.busy_other, "the passes were timed");
    }
    if (st == RF_OK && cli_get(a, "compare"))
        st = rf_profile_model(ctx, path, &mo2, m, ci, bi, &p2);
    if (st == RF_OK && !adv.off) st = rf_advise_profile(ctx, p1, m, ci, bi, &adv.o, &al);
    if (st == RF_OK) {
        int table = strcmp(format, "table") == 0;
        /* the demo (fallback machine set) shows the chart and the summary unless --no-chart */
        int demo = fallback_machine != NULL, all = cli_get(a, "all") || !top;
        int chart = demo ? !cli_get(a, "no-chart") : cli_get(a, "chart") != NULL;
        int to_stdout = plot && strcmp(plot, "-") == 0; /* the SVG replaces the report */
        rf_report_opts o = cli_report_opts();
        if (!all) { /* one screen: the slowest layers, the rest in one line */
            o.rows_max = top;
            o.more_hint = "--all lists them";
            o.brief = demo;
        }
        if (!to_stdout) /* brief: the chart after the model's totals */
            rc = cli_print_result_opts(ctx, p1->result, m, format, table && chart && !o.brief,
                                       demo && !table, al, &o);
        if (!rc && table && !to_stdout) {
            rf_writer w = cli_stdout();
            st = o.brief ? RF_OK : rf_write(&w, "\n", 1);
            if (st == RF_OK && demo && !o.brief) st = rf_report_summary(ctx, p1->result, &o, &w);
            if (st == RF_OK) st = rf_report_profile_summary(ctx, p1, 5, &o, &w);
            if (st == RF_OK && o.brief && chart) st = rf_write(&w, "\n", 1);
            if (st == RF_OK && o.brief && chart)
                st = rf_report_chart_ascii(ctx, p1->result, m, &o, &w);
            if (st == RF_OK && p2)
                st = rf_report_profile_compare(ctx, p1, p2, cli_get(a, "compare"), &o, &w);
            if (st == RF_OK && al) st = rf_report_advice(ctx, al, &o, &w);
            if (st == RF_OK && o.brief)
                st = rf_writef(&w, "\nmore: --all (the full report), --json or --csv (every "
                                   "layer), --plot demo.html\n");
            if (st != RF_OK)
                rc = cli_fail(ctx, st);
            else if (cli_flush(ctx) != RF_OK)
                rc = cli_fail(ctx, RF_IO);
        }
        const rf_result *series[2] = {p1 ? p1->result : NULL, p2 ? p2->result : NULL};
        if (!rc && plot) rc = cli_plot(ctx, series, p2 ? 2 : 1, m, plot);
        if (!rc && !cli_get(a, "allow-undefined") &&
            (st = rf_profile_check_defined(ctx, p1, path ? path : "demo")) != RF_OK)
            rc = cli_fail(ctx, st);
        if (!rc && !cli_get(a, "allow-unmeasured") &&
            (st = rf_profile_check_measured(ctx, p1, path ? path : "demo")) != RF_OK)
            rc = cli_fail(ctx, st);
    } else {
        rc = cli_fail(ctx, st);
    }
    rf_advice_free(al);
    rf_profile_free(p1);
    rf_profile_free(p2);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return rc;
}

static int cli_profile(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos != 1)
        return cli_usage_error(cmd,
                               a.n_pos ? "one model file at a time" : "a model file is needed");
    return cli_profile_run(cmd, &a, a.pos[0], NULL);
}

const cli_cmd cmd_profile = {
    "profile",
    "profile [OPTIONS] MODEL.onnx|MODEL.gguf|MODEL.safetensors|MODEL.apr|CHECKPOINT_DIR",
    "per-layer roofline analysis of a model file",
    "Reads the model's graph (ONNX: nodes, attributes, initializer shapes; GGUF, SafeTensors and "
    "aprender/realizar .apr: the transformer built from the header, --granular for every block; "
    "weights are never loaded and external weight files need not exist), infers every tensor's "
    "shape from the inputs (--input, --dim, --batch, --seq), counts FLOPs and bytes per layer "
    "(docs/cost-model.md) and evaluates each layer against the machine: one row per layer with "
    "its output shape, then the model's totals (FLOPs and MACs, params, weight bytes) and the "
    "slowest layers. A model of more than 20 layers (--top) lists its 20 slowest, slowest first, "
    "and one line for the rest; --all lists every layer in model order; --json and --csv always "
    "hold every layer. --compare profiles again with other input shapes and shows how intensity "
    "and bound shift.",
    cli_profile_opts,
    cli_profile,
};
