/* cmd_hw.c — `roofline hw list` and `roofline hw show NAME|FILE`: the datasheet database and
 * machine files, as a table or as JSON (the machine-file form, ready to edit and pass to --hw).
 * Parsing and writing only: the renderers are src/report's. */
#include <string.h>

#include "cli.h"

static const cli_opt cli_hw_opts[] = {
    {"json", 0, NULL, "print JSON (show: a machine file in the full form)"},
    {"simple", 0, NULL, "show --json: the simple form (name, peak_flops, peak_bandwidth)"},
    {"devices", 0, NULL, "list: the OpenCL devices of this machine instead of the database"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_hw_opts);

static int cli_hw(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos == 0) return cli_usage_error(cmd, "missing 'list' or 'show NAME|FILE'");
    int json = cli_get(&a, "json") != NULL;
    int is_list = strcmp(a.pos[0], "list") == 0, is_show = strcmp(a.pos[0], "show") == 0;
    if (!is_list && !is_show) return cli_usage_error(cmd, "unknown action '%s'", a.pos[0]);
    if (is_list && a.n_pos != 1) return cli_usage_error(cmd, "'list' takes no argument");
    if (is_show && a.n_pos != 2) return cli_usage_error(cmd, "'show' takes one NAME or FILE");
    if (is_show && cli_get(&a, "devices"))
        return cli_usage_error(cmd, "--devices goes with 'list'");
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_writer w = cli_stdout();
    rf_report_opts o = cli_report_opts();
    rf_machine *m = NULL;
    const rf_interconnect *ic = NULL;
    rf_status st;
    if (is_list && cli_get(&a, "devices")) {
        rc = cli_hw_devices(ctx, json);
        rf_ctx_free(ctx);
        return rc;
    } else if (is_list) {
        st = rf_report_hwdb_list(ctx, json, &w);
    } else if (rf_interconnect_find(ctx, a.pos[1], &ic) == RF_OK) {
        st = rf_report_interconnect(ctx, ic, json, &w);
    } else if ((st = rf_machine_resolve(ctx, a.pos[1], &m)) == RF_OK) {
        st = json ? rf_machine_write_json(ctx, m, cli_get(&a, "simple") != NULL, &w)
                  : rf_report_machine_show(ctx, m, &o, &w);
    }
    rf_machine_free(m);
    if (st == RF_OK)
        rc = cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
    else
        rc = cli_fail(ctx, st);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_hw = {
    "hw",
    "hw list [--devices] | hw show NAME|FILE [--json [--simple]]",
    "the datasheet database and machine files",
    "'hw list' lists the devices of the datasheet database (every figure dense, with the document "
    "it comes from) and the interconnects (network roofs); 'hw list --devices' lists this "
    "machine's OpenCL devices instead. 'hw show' prints one device, "
    "interconnect or machine file, ceiling by ceiling; with --json a device or file prints as a "
    "machine file you can edit and pass to --hw.",
    cli_hw_opts,
    cli_hw,
};
