/* cmd_analyze.c — `roofline analyze OPS.csv|OPS.json`: a list of operations (name, FLOPs, bytes)
 * against a machine: AI, attainable, bound, efficiency and time per operation, then totals.
 * Streams the input: rows go straight from the reader into the analysis. */
#include <string.h>

#include "cli.h"

static const cli_opt cli_analyze_opts[] = {
    CLI_MACHINE_OPTS,
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"sort", 's', "time|ai|name|input|lost",
     "order of the rows (default: input, or time with --top); lost: time lost to the roof"},
    {"top", 'n', "N", "print only the first N rows in sort order (totals still cover all)"},
    {"chart", 'c', NULL, "draw the ASCII roofline chart under the table"},
    {"no-summary", 0, NULL, "leave out the bottleneck summary under the table"},
    {"wide", 0, NULL, "tables with measurements: every column (default: those that fit 120)"},
    {"plot", 0, "FILE.svg|FILE.html|-",
     "also draw the roofline chart as SVG or an interactive "
     "HTML page ('-': SVG on stdout instead of the report)"},
    {"input-format", 0, "csv|json", "format of the input when its name does not say"},
    {"from", 0, "ncu|torch-trace",
     "read measurements made by a profiler: an Nsight Compute CSV or a PyTorch profiler trace "
     "(detected without this option when the file's header says)"},
    CLI_NETWORK_OPT,
    CLI_ADVICE_OPTS,
    {"wall", 0, "SECONDS",
     "measured wall time of the whole pass, beside the per-row times "
     "(the gap to their sum is dispatch overhead)"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_analyze_opts);

/* The hierarchical roofline of a profile: one result per memory level collected (L1, L2, DRAM),
 * each kernel's point at that level's intensity against that level's roof (the machine's "L1" or
 * "L2" ceiling; the analysis roof when it has none), for the chart's series; *n = 0 when the
 * profile has bytes at no level (a PyTorch trace). */
static rf_status cli_prof_levels(rf_ctx *ctx, const char *path, rf_prof_format from,
                                 const rf_machine *m, size_t ci, size_t bi, rf_result *out[3],
                                 size_t *n)
{
    static const struct {
        rf_prof_level level;
        const char *title;
    } levels[] = {/* DRAM first: the chart draws the first series' roof as the analysis roof */
                  {RF_PROF_LEVEL_DRAM, "DRAM"},
                  {RF_PROF_LEVEL_L2, "L2"},
                  {RF_PROF_LEVEL_L1, "L1"}};
    rf_status st = RF_OK;
    *n = 0;
    for (size_t i = 0; i < 3 && st == RF_OK; i++) {
        rf_analysis *an = NULL;
        size_t rows = 0;
        size_t b = rf_machine_find_prefix(m, RF_CEILING_BANDWIDTH, levels[i].title);
        if (b == SIZE_MAX || levels[i].level == RF_PROF_LEVEL_DRAM) b = bi; /* the analysis roof */
        if ((st = rf_analysis_new(ctx, m, ci, b, RF_SORT_INPUT, 0, &an)) == RF_OK)
            st = rf_prof_analyze_file_level(ctx, path, from, levels[i].level, an, &rows);
        if (st == RF_OK && rows) st = rf_analysis_finish(an, levels[i].title, &out[(*n)++]);
        rf_analysis_free(an);
    }
    if (st == RF_OK && *n == 1) { /* one level only: the ordinary chart says the same */
        rf_result_free(out[0]);
        out[0] = NULL;
        *n = 0;
    }
    return st;
}

/* Read the whole input once on a placeholder machine (nothing kept): a bad row or a truncated
 * file is reported before this machine is measured. */
static rf_status cli_analyze_check(rf_ctx *ctx, const char *path, int prof, rf_prof_format from,
                                   rf_ops_format infmt)
{
    rf_machine *pm = NULL;
    rf_analysis *an = NULL;
    rf_result *r = NULL;
    size_t pc, pb;
    rf_ctx_set_log(ctx, NULL, NULL, RF_LOG_WARN); /* the real run gives the warnings */
    rf_status st = cli_placeholder_machine(ctx, &pm, &pc, &pb);
    if (st == RF_OK) st = rf_analysis_new(ctx, pm, pc, pb, RF_SORT_INPUT, 1, &an);
    if (st == RF_OK)
        st = prof ? rf_prof_analyze_file(ctx, path, from, an)
                  : rf_ops_analyze_file(ctx, path, infmt, an);
    if (st == RF_OK) st = rf_analysis_finish(an, path, &r);
    rf_result_free(r);
    rf_analysis_free(an);
    rf_machine_free(pm);
    cli_progress(ctx, 0);
    return st;
}

static int cli_analyze(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos == 0) return cli_usage_error(cmd, "missing the operations file (CSV or JSON)");
    if (a.n_pos > 1) return cli_usage_error(cmd, "expected one input file, got %zu", a.n_pos);
    const char *format = cli_format(cmd, &a);
    if (!format) return EXIT_USAGE;
    unsigned long long top = 0;
    if (cli_get(&a, "top") && cli_uint(cmd, "top", cli_get(&a, "top"), 1, 1ULL << 40, &top))
        return EXIT_USAGE;
    rf_ops_format infmt = RF_OPS_AUTO;
    const char *inf = cli_get(&a, "input-format");
    if (inf && strcmp(inf, "csv") == 0)
        infmt = RF_OPS_CSV;
    else if (inf && strcmp(inf, "json") == 0)
        infmt = RF_OPS_JSON;
    else if (inf)
        return cli_usage_error(cmd, "unknown input format '%s' (csv or json)", inf);
    rf_prof_format from = RF_PROF_AUTO;
    int prof = 0;
    const char *plot = cli_get(&a, "plot");
    if (plot && cli_plot_check(cmd->name, plot)) return EXIT_USAGE;
    cli_advice adv;
    if (cli_advice_parse(cmd, &a, &adv)) return EXIT_USAGE;

    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_sort sort = top ? RF_SORT_TIME : RF_SORT_INPUT;
    rf_machine *m = NULL;
    rf_analysis *an = NULL;
    rf_result *r = NULL;
    rf_advice_list *al = NULL;
    rf_advice_stream *as = NULL;
    size_t ci, bi, n_lv = 0;
    rf_result *lv[3] = {NULL, NULL, NULL};
    rf_status st = RF_OK;
    if (cli_get(&a, "from")) {
        if ((st = rf_prof_format_parse(ctx, cli_get(&a, "from"), &from)) != RF_OK) goto fail;
        prof = 1;
    } else if (!inf) {
        if ((st = rf_prof_detect_file(ctx, a.pos[0], &from)) != RF_OK) goto fail;
        prof = from != RF_PROF_AUTO;
    }
    if (cli_get(&a, "sort") && (st = rf_sort_parse(ctx, cli_get(&a, "sort"), &sort))) goto fail;
    if (strcmp(a.pos[0], "-") != 0 && cli_machine_measures(&a, NULL) && /* stdin: read once */
        (st = cli_analyze_check(ctx, a.pos[0], prof, from, infmt)) != RF_OK)
        goto fail; /* the file first: measuring this machine takes seconds */
    if ((st = cli_machine(ctx, &a, NULL, &m, &ci, &bi)) != RF_OK) goto fail;
    size_t ni;
    if ((st = cli_network(ctx, &a, m, &ni)) != RF_OK) goto fail;
    if ((st = rf_analysis_new(ctx, m, ci, bi, sort, top, &an)) != RF_OK) goto fail;
    if (ni != SIZE_MAX && (st = rf_analysis_set_network(an, m, ni)) != RF_OK) goto fail;
    if (cli_get(&a, "wall")) {
        double wall;
        if ((st = rf_si_parse(ctx, cli_get(&a, "wall"), "--wall", &wall)) != RF_OK) goto fail;
        if ((st = rf_analysis_set_wall(an, wall)) != RF_OK) goto fail;
        adv.o.wall_s = wall; /* the gap to the rows is dispatch: the advice weighs it */
    }
    /* the advice sees every row as it is read, whatever --top keeps for printing */
    if (!adv.off && ((st = rf_advice_stream_new(ctx, m, ci, bi, ni, &adv.o, &as)) != RF_OK ||
                     (st = rf_analysis_set_observer(an, rf_advice_stream_row, as)) != RF_OK))
        goto fail;
    if (prof)
        st = rf_prof_analyze_file(ctx, a.pos[0], from, an);
    else
        st = rf_ops_analyze_file(ctx, a.pos[0], infmt, an);
    if (st != RF_OK) goto fail;
    if ((st = rf_analysis_finish(an, a.pos[0], &r)) != RF_OK) goto fail;
    if (as && (st = rf_advice_stream_finish(as, &al)) != RF_OK) goto fail;
    if (!plot || strcmp(plot, "-") != 0)
        rc = cli_print_result(ctx, r, m, format, cli_get(&a, "chart") != NULL,
                              !cli_get(&a, "no-summary"), al);
    if (plot && rc == EXIT_OK && prof) {
        if ((st = cli_prof_levels(ctx, a.pos[0], from, m, ci, bi, lv, &n_lv)) != RF_OK) goto fail;
    }
    if (plot && rc == EXIT_OK)
        rc = n_lv ? cli_plot(ctx, (const rf_result *const *)lv, n_lv, m, plot)
                  : cli_plot(ctx, (const rf_result *const *)&r, 1, m, plot);
    goto out;
fail:
    rc = st == RF_USAGE && !rf_ctx_errmsg(ctx)[0] ? EXIT_USAGE : cli_fail(ctx, st);
out:
    for (size_t i = 0; i < n_lv; i++) rf_result_free(lv[i]);
    rf_advice_free(al);
    rf_advice_stream_free(as);
    rf_result_free(r);
    rf_analysis_free(an);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_analyze = {
    "analyze",
    "analyze [OPTIONS] OPS.csv|OPS.json|NCU.csv|TRACE.json|-",
    "roofline of a list of operations (name, FLOPs, bytes)",
    "Reads operations from a CSV file (header name,flops,bytes; memory_bytes is accepted for "
    "bytes) or a JSON array of objects with the same keys ('-' reads standard input), and prints "
    "for each its arithmetic intensity, attainable FLOP/s, bound, efficiency and estimated time "
    "on the machine, then the totals and the share of time per bound. An optional time column "
    "(seconds per pass; JSON key time_s) adds the measured figures: achieved FLOP/s and B/s, "
    "utilization of the roof, measured/estimated time, points above their roof with the likely "
    "reason, and the rows ranked by time lost to the roof. With --from ncu (an `ncu --csv` file, "
    "long or --page raw form, NERSC's hierarchical-roofline metrics) or --from torch-trace (a "
    "PyTorch profiler export_chrome_trace with with_flops=True), each kernel or op becomes one "
    "measured row, its launches summed (xN in the detail), its FLOPs of every precision against "
    "its DRAM bytes, and the detail names its L1, L2 and DRAM intensities.",
    cli_analyze_opts,
    cli_analyze,
};
