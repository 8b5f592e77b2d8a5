/* cmd_ops.c — `roofline ops [PATTERN] [--json]`: the op registry — which op types roofline
 * counts, by which rule of docs/cost-model.md, and which --measure can run. Parsing only: the
 * renderer is src/report's (rf_report_ops). */
#include "cli.h"

static const cli_opt cli_ops_opts[] = {
    {"json", 0, NULL, "print a JSON array (op, domain, kind, cost_section, executor, no_kernel)"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_ops_opts);

static int cli_ops(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos > 1) return cli_usage_error(cmd, "takes at most one PATTERN");
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_writer w = cli_stdout();
    rf_status st = rf_report_ops(ctx, a.n_pos ? a.pos[0] : NULL, cli_get(&a, "json") != NULL, &w);
    rc = st == RF_OK ? (cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL) : cli_fail(ctx, st);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_ops = {
    "ops",
    "ops [PATTERN] [--json]",
    "the op types roofline knows: cost rules and executor kernels",
    "Lists the op registry: every op type roofline reads (ONNX's standard ops, ONNX Runtime's "
    "com.microsoft contrib ops, the LLM builders' own), its kind, the section of "
    "docs/cost-model.md whose rule counts its FLOPs and bytes, and the executor kernel that "
    "--measure runs it with, or why it has none. PATTERN keeps the ops whose name contains it.",
    cli_ops_opts,
    cli_ops,
};
