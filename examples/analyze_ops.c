/* analyze_ops.c — the smallest use of libroofline: evaluate three operations against a datasheet
 * GPU and print their bound. Build: cc analyze_ops.c $(pkg-config --cflags --libs roofline). */
#include <stdio.h>
#include <string.h>

#include <roofline/roofline.h>

int main(void)
{
    static const struct {
        const char *name;
        double flops, bytes;
    } ops[] = {{"gemv 4096x4096 fp16", 33554432, 33570816},
               {"gemm 4096^3 fp16", 137438953472.0, 100663296},
               {"softmax", 163840, 131072}};
    rf_ctx *ctx = NULL;
    rf_machine *m = NULL;
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    size_t ci, bi;
    rf_status st = rf_ctx_new(&ctx, NULL);
    if (st == RF_OK) st = rf_hwdb_find(ctx, "a100-sxm4-80gb", &m);
    if (st == RF_OK) st = rf_machine_select(ctx, m, RF_CEILING_COMPUTE, "fp16.tensor", &ci);
    if (st == RF_OK) st = rf_machine_select(ctx, m, RF_CEILING_BANDWIDTH, NULL, &bi);
    if (st == RF_OK) st = rf_analysis_new(ctx, m, ci, bi, RF_SORT_INPUT, 0, &a);
    for (size_t i = 0; st == RF_OK && i < sizeof ops / sizeof *ops; i++)
        st = rf_analysis_add(a, ops[i].name, strlen(ops[i].name), NULL, ops[i].flops, ops[i].bytes);
    if (st == RF_OK) st = rf_analysis_finish(a, "example", &r);
    if (st == RF_OK) {
        for (size_t i = 0; i < r->n_rows; i++)
            printf("%-22s AI %8.2f  %-7s  %.3g us\n", r->rows[i].name, r->rows[i].e.ai,
                   rf_bound_name(r->rows[i].e.bound), r->rows[i].e.time_s * 1e6);
    } else {
        fprintf(stderr, "example: %s\n", rf_ctx_errmsg(ctx));
    }
    rf_result_free(r);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return st == RF_OK ? 0 : 1;
}
