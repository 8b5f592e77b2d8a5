/* peaks_device.c — `roofline peaks --device opencl[:P.D]` and `roofline hw list --devices`: choose
 * the device, read its cached measurement or measure it, print the table, the machine file or the
 * chart, and with --merge add its ceilings to a node's machine file (written atomically). The
 * measuring, the cache and the merge are the library's (opencl.h). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_hw_devices(rf_ctx *ctx, int json)
{
    size_t n = 0;
    rf_ocl_device *devs = calloc(RF_OCL_MAX_DEVICES, sizeof *devs);
    if (!devs) {
        fprintf(stderr, "roofline: out of memory\n");
        return EXIT_INTERNAL;
    }
    rf_writer w = cli_stdout();
    rf_status st = rf_ocl_devices(ctx, devs, RF_OCL_MAX_DEVICES, &n);
    if (st == RF_OK) st = rf_report_ocl_devices(ctx, devs, n, json, &w);
    free(devs);
    if (st != RF_OK) return cli_fail(ctx, st);
    return cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
}

/* Add the device's ceilings to `node` (read from `path` before measuring) under oclP.D and write
 * it back atomically. Returns the exit code. */
static int cli_merge(rf_ctx *ctx, const rf_ocl_device *d, const rf_machine *dev, rf_machine *node,
                     const char *path)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "ocl%u.%u", d->platform, d->device);
    rf_status st = rf_ocl_merge(ctx, node, dev, prefix);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    if (st == RF_OK) st = rf_machine_write_json(ctx, node, 0, &w);
    int rc = st == RF_OK ? cli_write_file(path, &b, "the merged machine file") : cli_fail(ctx, st);
    if (rc == EXIT_OK)
        fprintf(stderr, "roofline: peaks: %zu ceilings of %s merged into %s as %s.*\n",
                dev->n_ceilings, d->name, path, prefix);
    rf_buf_free(&b);
    return rc;
}

/* The cached machine, else a measurement (stored unless --no-cache). */
static rf_status cli_device_measure(rf_ctx *ctx, const cli_args *a, const rf_ocl_device *d,
                                    const rf_ocl_opts *o, rf_machine **cached, rf_ocl_report **r)
{
    int no_cache = cli_get(a, "no-cache") != NULL, refresh = cli_get(a, "refresh") != NULL;
    if (!no_cache && !refresh) CLI_TRY(rf_ocl_cache_load(ctx, d, o, cached));
    if (*cached) {
        char path[1024];
        if (rf_ocl_cache_path(ctx, d, o, path, sizeof path) == RF_OK)
            fprintf(stderr, "roofline: peaks: from the cache %s (--refresh measures again)\n",
                    path);
        return RF_OK;
    }
    CLI_TRY(rf_ocl_run(ctx, d, o, r));
    if (!no_cache && rf_ocl_cache_store(ctx, d, o, (*r)->machine) != RF_OK) {
        fprintf(stderr, "roofline: warning: %s\n", rf_ctx_errmsg(ctx));
        rf_ctx_clear_error(ctx);
    }
    return RF_OK;
}

static rf_status cli_device_print(rf_ctx *ctx, const cli_args *a, const rf_machine *m,
                                  const rf_ocl_report *r)
{
    rf_writer w = cli_stdout();
    if (cli_get(a, "json")) return rf_machine_write_json(ctx, m, 0, &w);
    rf_report_opts o = cli_report_opts();
    CLI_TRY(rf_report_ocl_measured(ctx, m, r, &o, &w));
    if (!cli_get(a, "chart")) return RF_OK;
    CLI_TRY(rf_write(&w, "\n", 1));
    return rf_report_machine_chart(ctx, m, RF_CHART_ASCII, &o, &w);
}

int cli_peaks_device(const cli_cmd *cmd, const cli_args *a)
{
    static const char *const cpu_only[] = {"isa", "threads", "mpi", "per"};
    for (size_t i = 0; i < sizeof cpu_only / sizeof *cpu_only; i++)
        if (cli_get(a, cpu_only[i]))
            return cli_usage_error(cmd, "--%s is for this CPU, not with --device", cpu_only[i]);
    const char *plot = cli_get(a, "plot"), *merge = cli_get(a, "merge");
    if (plot && cli_plot_check(cmd->name, plot)) return EXIT_USAGE;
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    cli_progress(ctx, 1);
    rf_ocl_device d;
    rf_ocl_opts o;
    memset(&o, 0, sizeof o);
    o.quick = cli_get(a, "quick") != NULL;
    rf_machine *cached = NULL, *node = NULL;
    rf_ocl_report *r = NULL;
    /* The node's file is read first: a bad one is said before anything is measured. */
    rf_status st = merge ? rf_machine_read_file(ctx, merge, &node) : RF_OK;
    if (st == RF_OK) st = rf_ocl_select(ctx, cli_get(a, "device"), &d);
    if (st == RF_OK) st = cli_device_measure(ctx, a, &d, &o, &cached, &r);
    const rf_machine *m = cached ? cached : (r ? r->machine : NULL);
    int rc;
    if (st == RF_OK && !(plot && strcmp(plot, "-") == 0)) st = cli_device_print(ctx, a, m, r);
    if (st == RF_OK)
        rc = cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
    else
        rc = cli_fail(ctx, st);
    if (rc == EXIT_OK && plot) rc = cli_plot_machine(ctx, m, plot);
    if (rc == EXIT_OK && merge) rc = cli_merge(ctx, &d, m, node, merge);
    rf_machine_free(node);
    rf_machine_free(cached);
    rf_ocl_report_free(r);
    rf_ctx_free(ctx);
    return rc;
}
