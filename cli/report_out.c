/* report_out.c — prints an analysis result in the format asked for: the table (with the chart and
 * the bottleneck summary), JSON or CSV. Shared by `analyze` and the demo. */
#include <string.h>

#include "cli.h"

static rf_status cli_render_result(rf_ctx *ctx, const void *r, rf_writer *w)
{
    return rf_report_json(ctx, r, w);
}

rf_status cli_json_with_advice(rf_ctx *ctx,
                               rf_status (*render)(rf_ctx *, const void *, rf_writer *),
                               const void *obj, const rf_advice_list *adv)
{
    rf_writer w = cli_stdout();
    if (!adv) return render(ctx, obj, &w);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer bw = rf_buf_writer(&b);
    rf_status st = render(ctx, obj, &bw);
    if (st == RF_OK) st = rf_report_json_add_advice(ctx, b.data, b.len, adv, &w);
    rf_buf_free(&b);
    return st;
}

int cli_print_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m, const char *format,
                     int chart, int summary, const rf_advice_list *adv)
{
    rf_writer w = cli_stdout();
    rf_report_opts o = cli_report_opts();
    rf_status st;
    if (strcmp(format, "json") == 0) {
        st = cli_json_with_advice(ctx, cli_render_result, r, adv);
    } else if (strcmp(format, "csv") == 0) {
        st = rf_report_csv(ctx, r, &w);
    } else {
        st = rf_report_table(ctx, r, &o, &w);
        if (st == RF_OK && chart) {
            st = rf_write(&w, "\n", 1);
            if (st == RF_OK) st = rf_report_chart_ascii(ctx, r, m, &o, &w);
        }
        if (st == RF_OK && summary) st = rf_report_summary(ctx, r, &o, &w);
        if (st == RF_OK && summary && adv) st = rf_report_advice(ctx, adv, &o, &w);
    }
    if (st == RF_IO || cli_flush(ctx) != RF_OK) return EXIT_INTERNAL;
    return st == RF_OK ? EXIT_OK : cli_fail(ctx, st);
}

int cli_weights_report(rf_ctx *ctx, const rf_llm_model *m, const char *path, const rf_machine *mach,
                       size_t bandwidth, const char *format)
{
    rf_llm_weights *wr = NULL;
    rf_status st = rf_llm_weights_report(ctx, m, &wr);
    rf_writer w = cli_stdout();
    rf_report_opts o = cli_report_opts();
    if (st == RF_OK)
        st = strcmp(format, "json") == 0
                 ? rf_report_llm_weights_json(ctx, wr, path, mach, bandwidth, &w)
             : strcmp(format, "csv") == 0
                 ? rf_report_llm_weights_csv(ctx, wr, path, mach, bandwidth, &w)
                 : rf_report_llm_weights(ctx, wr, path, mach, bandwidth, &o, &w);
    rf_llm_weights_free(wr);
    if (st == RF_OK && cli_flush(ctx) != RF_OK) st = RF_IO;
    return st == RF_OK ? EXIT_OK : cli_fail(ctx, st);
}
