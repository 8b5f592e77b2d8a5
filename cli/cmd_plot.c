/* cmd_plot.c — `roofline plot RESULT.json [RESULT2.json ...] -o FILE.svg|FILE.html|-`: draws saved
 * results (the JSON of `analyze --json`, read back strictly by rf_result_read_file) as an SVG chart
 * or an interactive HTML page, several results as toggled series on shared axes. */
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const cli_opt cli_plot_opts[] = {
    {"output", 'o', "FILE.svg|FILE.html|-", "where to write the chart ('-': standard output)"},
    {"format", 'f', "svg|html", "back end, when the output name does not say (default: svg)"},
    {"hw", 0, "NAME|FILE", "also draw every other ceiling of this machine (datasheet or file)"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_plot_opts);

static int plot_command(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos == 0) return cli_usage_error(cmd, "missing the result file (from --json)");
    const char *out = cli_get(&a, "output"), *fmt = cli_get(&a, "format");
    if (!out) return cli_usage_error(cmd, "missing -o FILE.svg|FILE.html|-");
    int format = cli_plot_format(out);
    if (fmt && strcmp(fmt, "svg") == 0)
        format = CLI_PLOT_SVG;
    else if (fmt && strcmp(fmt, "html") == 0)
        format = CLI_PLOT_HTML;
    else if (fmt)
        return cli_usage_error(cmd, "unknown format '%s' (svg or html)", fmt);
    if (format < 0) return cli_plot_check(cmd->name, out);
    struct stat so, si;
    for (size_t i = 0; strcmp(out, "-") != 0 && stat(out, &so) == 0 && i < a.n_pos; i++)
        if (stat(a.pos[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
            return cli_usage_error(cmd, "-o %s is the input %s: the chart would replace it", out,
                                   a.pos[i]);

    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_result *r[CLI_MAX_POS] = {0};
    rf_machine *m = NULL;
    rf_status st = RF_OK;
    for (size_t i = 0; i < a.n_pos && st == RF_OK; i++)
        st = rf_result_read_file(ctx, a.pos[i], &r[i]);
    if (st == RF_OK && cli_get(&a, "hw")) st = rf_machine_resolve(ctx, cli_get(&a, "hw"), &m);
    if (st == RF_OK)
        rc = cli_plot_as(ctx, (const rf_result *const *)r, a.n_pos, m, out, format);
    else
        rc = cli_fail(ctx, st);
    for (size_t i = 0; i < a.n_pos; i++) rf_result_free(r[i]);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_plot = {
    "plot",
    "plot [OPTIONS] RESULT.json [RESULT2.json ...] -o FILE.svg|FILE.html|-",
    "draw saved results as an SVG chart or an interactive HTML page",
    "Reads results written by 'analyze --json' (up to 8) and draws their roofline chart: an SVG "
    "picture, or a self-contained HTML page (no network) with a tooltip per operation, legend "
    "entries that hide a bound or a series, and a sortable table. Several results are drawn as "
    "series on shared axes (e.g. 224x224 against 512x512). With --hw, every ceiling of that "
    "machine is drawn beside the roof each result was analysed against.",
    cli_plot_opts,
    plot_command,
};
