/* cmd_peaks.c — `roofline peaks`: measure this machine (or read the cached measurement) and print
 * every ceiling with its statistics, the ridge points, the working-set sweep and its plateaus, or
 * the machine file (--json) that `--hw FILE` takes. The measuring is the library's (probe.h). */
#include <math.h>
#include <string.h>

#include "cli.h"

static const cli_opt cli_peaks_opts[] = {
    {"quick", 'q', NULL, "only what the analysis needs (fp64/fp32 FMA, L1-DRAM; under 3 s)"},
    {"json", 0, NULL, "print the machine file (full form, provenance measured)"},
    {"chart", 0, NULL, "add the ASCII roofline chart of every ceiling"},
    {"plot", 0, "FILE.svg|FILE.html|-", "also draw every ceiling as SVG or an interactive page"},
    {"isa", 0, "ISA", "highest instruction set: avx512, avx2, sse2, generic (default: best)"},
    {"threads", 't', "N", "most threads to use (default: every CPU)"},
    {"refresh", 0, NULL, "measure again even when the cache has this machine"},
    {"no-cache", 0, NULL, "neither read nor write the cache"},
    {"mpi", 0, NULL,
     "under mpirun: one rank per node measures, rank 0 prints every node, the spread, the "
     "aggregate and the network (ping-pong, allreduce busbw); --json: the aggregate machine file"},
    {"per", 0, "node|socket", "--mpi: one measuring rank per node (default) or per socket"},
    {"device", 0, "opencl[:P.D]",
     "measure an OpenCL device instead of this CPU ('hw list --devices' numbers them)"},
    {"merge", 0, "NODE.json",
     "--device: also add its ceilings to this machine file as oclP.D.NAME (replacing an "
     "earlier merge)"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_peaks_opts);

#ifndef RF_HAVE_MPI
int cli_peaks_mpi(const cli_cmd *cmd, const rf_probe_opts *po, int per_socket, int json)
{
    (void)po, (void)per_socket, (void)json;
    return cli_usage_error(cmd, "--mpi: this roofline was built without MPI (install "
                                "libopenmpi-dev and rebuild: CMake finds it)");
}
#endif

static rf_status cli_table(rf_ctx *ctx, const rf_machine *m, const rf_probe_report *r, int chart,
                           rf_writer *w)
{
    rf_report_opts o = cli_report_opts();
    CLI_TRY(rf_report_machine_measured(ctx, m, r, &o, w));
    if (!chart) return RF_OK;
    CLI_TRY(rf_write(w, "\n", 1));
    return rf_report_machine_chart(ctx, m, RF_CHART_ASCII, &o, w);
}

/* Parse the options into probe options; EXIT_USAGE after one line on stderr. */
static int cli_peaks_opts_parse(const cli_cmd *cmd, const cli_args *a, rf_probe_opts *o)
{
    memset(o, 0, sizeof *o);
    o->quick = cli_get(a, "quick") != NULL;
    o->isa = cli_get(a, "isa");
    if (cli_get(a, "threads")) {
        unsigned long long t;
        if (cli_uint(cmd, "threads", cli_get(a, "threads"), 1, 256, &t)) return EXIT_USAGE;
        o->max_threads = (unsigned)t;
    }
    return EXIT_OK;
}

static int cli_peaks(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    rf_probe_opts o;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos) return cli_usage_error(cmd, "unexpected argument '%s'", a.pos[0]);
    if (cli_get(&a, "device")) return cli_peaks_device(cmd, &a);
    if (cli_get(&a, "merge")) return cli_usage_error(cmd, "--merge goes with --device");
    if (cli_peaks_opts_parse(cmd, &a, &o)) return EXIT_USAGE;
    const char *per = cli_get(&a, "per");
    if (per && strcmp(per, "node") != 0 && strcmp(per, "socket") != 0)
        return cli_usage_error(cmd, "--per: '%s' is not node or socket", per);
    if (per && !cli_get(&a, "mpi")) return cli_usage_error(cmd, "--per goes with --mpi");
    if (cli_get(&a, "mpi")) {
        if (cli_get(&a, "plot") || cli_get(&a, "chart"))
            return cli_usage_error(cmd, "--mpi prints a table or --json; no chart");
        return cli_peaks_mpi(cmd, &o, per && strcmp(per, "socket") == 0,
                             cli_get(&a, "json") != NULL);
    }
    const char *plot = cli_get(&a, "plot");
    if (plot && cli_plot_check(cmd->name, plot)) return EXIT_USAGE;
    int no_cache = cli_get(&a, "no-cache") != NULL, refresh = cli_get(&a, "refresh") != NULL;
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    cli_progress(ctx, 1);
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
        if (st == RF_OK && !o.quick) { /* the decode kernels' ceilings (issue 28) */
            fprintf(stderr, "roofline: peaks: the quantized dot kernels' ceilings...\n");
            st = rf_exec_kernel_ceilings(ctx, r->machine, r->threads, 0.05);
        }
        if (st == RF_OK && !no_cache && rf_probe_cache_store(ctx, &o, r->machine) != RF_OK) {
            fprintf(stderr, "roofline: warning: %s\n", rf_ctx_errmsg(ctx));
            rf_ctx_clear_error(ctx);
        }
    }
    rf_writer w = cli_stdout();
    const rf_machine *m = cached ? cached : (r ? r->machine : NULL);
    int to_stdout = plot && strcmp(plot, "-") == 0; /* the SVG replaces the table */
    if (st == RF_OK && !to_stdout)
        st = cli_get(&a, "json") ? rf_machine_write_json(ctx, m, 0, &w)
                                 : cli_table(ctx, m, r, cli_get(&a, "chart") != NULL, &w);
    if (st == RF_OK)
        rc = cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
    else
        rc = cli_fail(ctx, st);
    if (rc == EXIT_OK && plot) rc = cli_plot_machine(ctx, m, plot);
    rf_machine_free(cached);
    rf_probe_report_free(r);
    rf_ctx_free(ctx);
    return rc;
}

const cli_cmd cmd_peaks = {
    "peaks",
    "peaks [--quick] [--json] [--chart] [--plot FILE] [--isa ISA] [--threads N] [--refresh] "
    "[--no-cache] [--mpi [--per node|socket]] [--device opencl[:P.D] [--merge NODE.json]]",
    "measure this machine's ceilings (FLOP/s per precision and ISA, bandwidth per level)",
    "Measures this machine: compute ceilings per precision and instruction set (FMA, add, mul, "
    "scalar; fp16/bf16/int8 where the CPU has them), the OpenBLAS GEMM ceiling, the kernel ceiling "
    "of each weight type's decode dot product (q4_k.gemv.avx512: weight bytes/s it consumes from "
    "L2 "
    "on every thread; 1 core and DRAM figures in its note), and the bandwidth "
    "of L1, L2, L3 and DRAM found as plateaus of a working-set sweep, on 1 to all threads, each "
    "figure with min/median/max over repetitions and its hardware limit at the measured clock. "
    "Results are cached per machine under $XDG_CACHE_HOME/roofline/ (else ~/.cache/roofline/); "
    "'--hw measured' in the other commands uses them. The full run takes under 30 s on 2 cores, "
    "--quick under 3 s; progress goes to stderr. With --mpi under mpirun, every node of the "
    "allocation is measured at once and the network between the ranks too (docs/cluster.md). "
    "With --device opencl[:P.D], an OpenCL device is measured instead (FMA per precision, "
    "global-memory sweep, local memory, host<->device transfers, CLBlast SGEMM; "
    "docs/opencl.md), cached like the CPU.",
    cli_peaks_opts,
    cli_peaks,
};
