/* cmd_peaks.c — `roofline peaks`: measure this machine (or read the cached measurement) and print
 * every ceiling with its statistics, the ridge points, the working-set sweep and its plateaus, or
 * the machine file (--json) that `--hw FILE` takes. The measuring is the library's (probe.h). */
#include <math.h>
#include <string.h>

#include "cli.h"

static const rf_cli_opt rf__peaks_opts[] = {
    {"quick", 'q', NULL, "only what the analysis needs (fp64/fp32 FMA, L1-DRAM; under 3 s)"},
    {"json", 0, NULL, "print the machine file (full form, provenance measured)"},
    {"chart", 0, NULL, "add the ASCII roofline chart of every ceiling"},
    {"plot", 0, "FILE.svg|FILE.html|-", "also draw every ceiling as SVG or an interactive page"},
    {"isa", 0, "ISA", "highest instruction set: avx512, avx2, sse2, generic (default: best)"},
    {"threads", 't', "N", "most threads to use (default: every CPU)"},
    {"refresh", 0, NULL, "measure again even when the cache has this machine"},
    {"no-cache", 0, NULL, "neither read nor write the cache"},
    {0, 0, 0, 0},
};

static void rf__peaks_log(void *user, rf_log_level level, const char *msg)
{
    (void)user;
    fprintf(stderr, "roofline: %s%s\n", level == RF_LOG_WARN ? "warning: " : "", msg);
}

static rf_status rf__ceiling_rows(const rf_machine *m, rf_writer *w)
{
    char v[32], lo[32], hi[32];
    RF_TRY_CLI(rf_writef(w, "  %-20s %14s %3s  %-19s  %s\n", "ceiling", "value", "thr",
                         "min .. max", "note"));
    for (size_t i = 0; i < m->n_ceilings; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        const char *unit = c->kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
        int def = i == m->default_compute || i == m->default_bandwidth;
        rf_si_format(v, sizeof v, c->value, 4, unit);
        rf_si_format_compact(lo, sizeof lo, c->stats.min, "");
        rf_si_format_compact(hi, sizeof hi, c->stats.max, "");
        char spread[80];
        snprintf(spread, sizeof spread, "%s .. %s", lo, hi);
        RF_TRY_CLI(rf_writef(w, "%c %-20s %14s %3u  %-19s  %s\n", def ? '*' : ' ', c->name, v,
                             c->stats.threads, c->stats.threads ? spread : "", c->note));
    }
    return RF_OK;
}

/* Ridge points: every FMA and GEMM ceiling against every memory level. */
static rf_status rf__ridges(const rf_machine *m, rf_writer *w)
{
    RF_TRY_CLI(rf_writef(w,
                         "\nridge points (FLOP/byte): where the compute roof meets each level\n"
                         "  %-20s",
                         ""));
    for (size_t b = 0; b < m->n_ceilings; b++)
        if (m->ceilings[b].kind == RF_CEILING_BANDWIDTH)
            RF_TRY_CLI(rf_writef(w, " %8s", m->ceilings[b].name));
    RF_TRY_CLI(rf_write(w, "\n", 1));
    for (size_t c = 0; c < m->n_ceilings; c++) {
        const rf_ceiling *cc = &m->ceilings[c];
        if (cc->kind != RF_CEILING_COMPUTE ||
            (!strstr(cc->name, ".fma.") && !strstr(cc->name, ".gemm.") &&
             !strstr(cc->name, ".dot.")))
            continue;
        RF_TRY_CLI(rf_writef(w, "  %-20s", cc->name));
        for (size_t b = 0; b < m->n_ceilings; b++)
            if (m->ceilings[b].kind == RF_CEILING_BANDWIDTH)
                RF_TRY_CLI(rf_writef(w, " %8.3g", cc->value / m->ceilings[b].value));
        RF_TRY_CLI(rf_write(w, "\n", 1));
    }
    return RF_OK;
}

static rf_status rf__sweep(const rf_probe_report *r, rf_writer *w)
{
    char s[32], v[32];
    RF_TRY_CLI(rf_writef(w, "\nworking-set sweep (load, %u thread%s; size per thread):\n",
                         r->sweep_threads, r->sweep_threads > 1 ? "s" : ""));
    for (size_t i = 0; i < r->n_sweep; i++) {
        rf_bytes_format_iec(s, sizeof s, (double)r->sweep[i].bytes, 3);
        rf_si_format(v, sizeof v, r->sweep[i].bytes_per_s, 3, "B/s");
        const char *lvl = "";
        for (size_t l = 0; l < r->n_levels; l++)
            if (r->sweep[i].bytes >= r->levels[l].first_bytes &&
                r->sweep[i].bytes <= r->levels[l].last_bytes)
                lvl = r->levels[l].name;
        RF_TRY_CLI(rf_writef(w, "  %10s %12s  %s\n", s, v, lvl));
    }
    RF_TRY_CLI(rf_writef(w, "levels: %s\n", r->levels_note[0] ? r->levels_note : "(one plateau)"));
    return RF_OK;
}

/* A result with no operations: what the charts draw when only the roofs matter. */
static rf_status rf__ceilings_only(rf_ctx *ctx, const rf_machine *m, rf_result **out)
{
    rf_analysis *an = NULL;
    rf_status st =
        rf_analysis_new(ctx, m, m->default_compute, m->default_bandwidth, RF_SORT_INPUT, 0, &an);
    if (st == RF_OK) st = rf_analysis_finish(an, "measured ceilings", out);
    rf_analysis_free(an);
    return st;
}

static rf_status rf__table(rf_ctx *ctx, const rf_machine *m, const rf_probe_report *r, int chart,
                           rf_writer *w)
{
    RF_TRY_CLI(rf_writef(w, "%s\n", m->description));
    RF_TRY_CLI(rf_writef(w, "conditions: %s\n\n", m->source));
    RF_TRY_CLI(rf__ceiling_rows(m, w));
    RF_TRY_CLI(rf_writef(w,
                         "\n* default roof. Compute: best repeatable of the repetitions, "
                         "limit = FLOP/cycle x clock\nmeasured under that ISA x threads. "
                         "Bandwidth: bytes = reads + writes issued by the\ncores "
                         "(write-allocate not counted); the roof of a level is its best mix.\n"));
    RF_TRY_CLI(rf__ridges(m, w));
    if (r) RF_TRY_CLI(rf__sweep(r, w));
    if (!chart) return RF_OK;
    rf_result *res = NULL;
    rf_report_opts o = rf_cli_report_opts();
    rf_status st = rf__ceilings_only(ctx, m, &res);
    if (st == RF_OK) st = rf_write(w, "\n", 1);
    if (st == RF_OK) st = rf_report_chart_ascii(ctx, res, m, &o, w);
    rf_result_free(res);
    return st;
}

/* Parse the options into probe options; RF_EXIT_USAGE after one line on stderr. */
static int rf__peaks_opts_parse(const rf_cli_cmd *cmd, const rf_cli_args *a, rf_probe_opts *o)
{
    memset(o, 0, sizeof *o);
    o->quick = rf_cli_get(a, "quick") != NULL;
    o->isa = rf_cli_get(a, "isa");
    if (rf_cli_get(a, "threads")) {
        unsigned long long t;
        if (rf_cli_uint(cmd, "threads", rf_cli_get(a, "threads"), 1, 256, &t)) return RF_EXIT_USAGE;
        o->max_threads = (unsigned)t;
    }
    return RF_EXIT_OK;
}

static int rf__peaks(const rf_cli_cmd *cmd, int argc, char **argv)
{
    rf_cli_args a;
    rf_probe_opts o;
    int done, rc = rf_cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos) return rf_cli_usage_error(cmd, "unexpected argument '%s'", a.pos[0]);
    if (rf__peaks_opts_parse(cmd, &a, &o)) return RF_EXIT_USAGE;
    const char *plot = rf_cli_get(&a, "plot");
    if (plot && rf_cli_plot_check(cmd->name, plot)) return RF_EXIT_USAGE;
    int no_cache = rf_cli_get(&a, "no-cache") != NULL, refresh = rf_cli_get(&a, "refresh") != NULL;
    rf_ctx *ctx = rf_cli_ctx();
    if (!ctx) return RF_EXIT_INTERNAL;
    rf_ctx_set_log(ctx, rf__peaks_log, NULL, RF_LOG_INFO);
    const char *isa;
    rf_machine *cached = NULL;
    rf_probe_report *r = NULL;
    rf_status st = rf_probe_isa(ctx, o.isa, &isa);
    if (st == RF_OK && !no_cache && !refresh) st = rf_probe_cache_load(ctx, &o, &cached);
    if (st == RF_OK && cached) {
        char path[1024];
        if (rf_probe_cache_path(ctx, &o, path, sizeof path) == RF_OK)
            fprintf(stderr, "roofline: peaks: from the cache %s (--refresh measures again)\n",
                    path);
    } else if (st == RF_OK) {
        st = rf_probe_run(ctx, &o, &r);
        if (st == RF_OK && !no_cache && rf_probe_cache_store(ctx, &o, r->machine) != RF_OK) {
            fprintf(stderr, "roofline: warning: %s\n", rf_ctx_errmsg(ctx));
            rf_ctx_clear_error(ctx);
        }
    }
    rf_writer w = rf_cli_stdout();
    const rf_machine *m = cached ? cached : (r ? r->machine : NULL);
    int to_stdout = plot && strcmp(plot, "-") == 0; /* the SVG replaces the table */
    if (st == RF_OK && !to_stdout)
        st = rf_cli_get(&a, "json") ? rf_machine_write_json(ctx, m, 0, &w)
                                    : rf__table(ctx, m, r, rf_cli_get(&a, "chart") != NULL, &w);
    if (st == RF_OK)
        rc = rf_cli_flush(ctx) == RF_OK ? RF_EXIT_OK : RF_EXIT_INTERNAL;
    else
        rc = rf_cli_fail(ctx, st);
    if (rc == RF_EXIT_OK && plot) {
        rf_result *res = NULL;
        st = rf__ceilings_only(ctx, m, &res);
        const rf_result *one[1] = {res};
        rc = st == RF_OK ? rf_cli_plot(ctx, one, 1, m, plot) : rf_cli_fail(ctx, st);
        rf_result_free(res);
    }
    rf_machine_free(cached);
    rf_probe_report_free(r);
    rf_ctx_free(ctx);
    return rc;
}

const rf_cli_cmd rf_cmd_peaks = {
    "peaks",
    "peaks [--quick] [--json] [--chart] [--plot FILE] [--isa ISA] [--threads N] [--refresh] "
    "[--no-cache]",
    "measure this machine's ceilings (FLOP/s per precision and ISA, bandwidth per level)",
    "Measures this machine: compute ceilings per precision and instruction set (FMA, add, mul, "
    "scalar; fp16/bf16/int8 where the CPU has them), the OpenBLAS GEMM ceiling, and the bandwidth "
    "of L1, L2, L3 and DRAM found as plateaus of a working-set sweep, on 1 to all threads, each "
    "figure with min/median/max over repetitions and its hardware limit at the measured clock. "
    "Results are cached per machine under $XDG_CACHE_HOME/roofline/ (else ~/.cache/roofline/); "
    "'--hw measured' in the other commands uses them. The full run takes under 30 s on 2 cores, "
    "--quick under 3 s; progress goes to stderr.",
    rf__peaks_opts,
    rf__peaks,
};
