/* cmd_demo.c — `roofline demo` (and `roofline` with no argument): the built-in six-layer model of
 * the cookbook at batch 32, FP32, against a datasheet CPU: table, chart and bottleneck summary. */
#include <string.h>

#include "cli.h"

static const rf_cli_opt rf__demo_opts[] = {
    RF_CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "batch size (default: 32)"},
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"no-chart", 0, NULL, "leave out the chart"},
    {0, 0, 0, 0},
};

static int rf__demo(const rf_cli_cmd *cmd, int argc, char **argv)
{
    rf_cli_args a;
    int done, rc = rf_cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos) return rf_cli_usage_error(cmd, "unexpected argument '%s'", a.pos[0]);
    const char *format = rf_cli_format(cmd, &a);
    if (!format) return RF_EXIT_USAGE;
    unsigned long long batch = 32;
    if (rf_cli_get(&a, "batch") &&
        rf_cli_uint(cmd, "batch", rf_cli_get(&a, "batch"), 1, 1ULL << 30, &batch))
        return RF_EXIT_USAGE;
    rf_ctx *ctx = rf_cli_ctx();
    if (!ctx) return RF_EXIT_INTERNAL;
    rf_machine *m = NULL;
    rf_analysis *an = NULL;
    rf_result *r = NULL;
    size_t ci, bi;
    char title[96];
    snprintf(title, sizeof title, "demo: six dense layers, batch %llu, FP32", batch);
    rf_status st = rf_cli_machine(ctx, &a, RF_DEMO_MACHINE, &m, &ci, &bi);
    if (st == RF_OK) st = rf_analysis_new(ctx, m, ci, bi, RF_SORT_INPUT, 0, &an);
    if (st == RF_OK) st = rf_demo_add(an, ctx, batch);
    if (st == RF_OK) st = rf_analysis_finish(an, title, &r);
    if (st == RF_OK)
        rc = rf_cli_print_result(ctx, r, m, format, !rf_cli_get(&a, "no-chart"), 1);
    else
        rc = rf_cli_fail(ctx, st);
    rf_result_free(r);
    rf_analysis_free(an);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return rc;
}

const rf_cli_cmd rf_cmd_demo = {
    "demo",
    "demo [OPTIONS]",
    "the built-in demo (what 'roofline' with no argument runs)",
    "Profiles the built-in six-layer model (embedding 1000->128, attention.qkv 128->384, "
    "attention.out 384->128, ffn.up 128->512, ffn.down 512->128, output.proj 128->1000; FP32; "
    "FLOPs 2*B*in*out, bytes = weights + input + output) at batch 32 against the datasheet figures "
    "of an Intel Xeon Platinum 8480+, or the machine given.",
    rf__demo_opts,
    rf__demo,
};
