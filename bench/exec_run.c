/* exec_run.c — dev driver of the executor (rf_exec_run) for the benchmarks: loads a model, runs
 * it forward and prints one line per layer (time, kernel or the reason it was not measured),
 * the reorders the executor added, and a last line "wall_median_s=... wall_min_s=...".
 * With --tsv, one tab-separated line per measured layer instead: name, op type, kernel,
 * median_s, FLOPs and bytes of the cost model, and the weight shape (for picking 3x3 convs).
 * Usage: exec_run MODEL [--threads N] [--repeat N] [--batch N] [--quiet] [--tsv]
 * Not part of the CLI (the lead wires `profile --measure`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roofline/roofline.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: exec_run MODEL [--threads N] [--repeat N] [--batch N] [--quiet]\n");
        return 2;
    }
    rf_exec_opts o = {0};
    rf_model_opts mo = {0};
    int quiet = 0, tsv = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            o.threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            o.repeat = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            mo.batch = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--tsv"))
            quiet = tsv = 1;
        else {
            fprintf(stderr, "exec_run: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    rf_ctx *ctx = NULL;
    rf_graph *g = NULL;
    rf_exec_result *r = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 1;
    rf_status st = rf_model_load(ctx, argv[1], &mo, &g);
    if (st == RF_OK) st = rf_exec_run(ctx, g, &o, &r);
    if (st != RF_OK) {
        fprintf(stderr, "exec_run: %s\n", rf_ctx_errmsg(ctx));
        rf_graph_free(g);
        rf_ctx_free(ctx);
        return st == RF_NOMEM ? 1 : 2;
    }
    rf_cost *cost = NULL;
    if (tsv && rf_graph_cost(ctx, g, &cost) == RF_OK) {
        for (uint32_t i = 0; i < r->n_layers; i++) {
            const rf_layer *l = &g->layers[i];
            char wshape[64] = "-";
            if (l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR)
                rf_tensor_shape_str(&g->tensors[l->inputs[1]], wshape, sizeof wshape);
            if (r->layers[i].measured)
                printf("%s\t%s\t%s\t%.9g\t%.17g\t%.17g\t%s\n", l->name, l->op_type,
                       r->layers[i].kernel, r->layers[i].median_s, cost->layers[i].flops,
                       cost->layers[i].bytes, wshape);
        }
        rf_cost_free(cost);
    }
    double sum = 0, extra = 0;
    unsigned not_measured = 0;
    for (uint32_t i = 0; i < r->n_layers; i++) {
        const rf_exec_layer *L = &r->layers[i];
        if (L->measured)
            sum += L->median_s;
        else
            not_measured++;
        if (!quiet) {
            if (L->measured)
                printf("%-48.48s %-12s %10.1f us  %-26s\n", g->layers[i].name, g->layers[i].op_type,
                       L->median_s * 1e6, L->kernel);
            else
                printf("%-48.48s %-12s   not measured: %s\n", g->layers[i].name,
                       g->layers[i].op_type, L->reason);
        }
    }
    for (size_t e = 0; e < r->n_extra; e++) {
        extra += r->extra[e].median_s;
        if (!quiet)
            printf("  + %-44.44s before layer %u  %10.1f us  %.0f bytes\n", r->extra[e].name,
                   r->extra[e].before_layer, r->extra[e].median_s * 1e6, r->extra[e].bytes);
    }
    printf("layers=%u not_measured=%u extras=%zu sum_layers_s=%.6g sum_extras_s=%.6g "
           "threads=%u runs=%u peak_bytes=%llu\n",
           r->n_layers, not_measured, r->n_extra, sum, extra, r->threads, r->runs,
           (unsigned long long)r->peak_bytes);
    printf("inputs: %s\n", r->inputs_note);
    printf("wall_median_s=%.6g wall_min_s=%.6g\n", r->wall_median_s, r->wall_min_s);
    rf_exec_result_free(r);
    rf_graph_free(g);
    rf_ctx_free(ctx);
    return 0;
}
