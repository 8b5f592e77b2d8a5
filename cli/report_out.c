/* report_out.c — prints an analysis result in the format asked for: the table (with the chart and
 * the bottleneck summary), JSON or CSV. Shared by `analyze` and the demo. */
#include <string.h>

#include "cli.h"

static rf_status cli_render_result(rf_ctx *ctx, const void *r, rf_writer *w)
{
    return rf_report_json(ctx, r, w);
}

/* A writer that passes a document through to `out` in blocks but holds back its last bytes,
 * where the closing brace is: the advice goes in there, and the document is never held whole. */
typedef struct cli_tail {
    rf_writer *out;
    size_t n;
    char held[1 << 16];
} cli_tail;

#define CLI_TAIL_KEEP 256 /* the end of a document: "}\n" and what comes before it */

static rf_status cli_tail_write(void *user, const char *data, size_t size)
{
    cli_tail *t = user;
    while (size) {
        if (t->n == sizeof t->held) { /* full: pass on all but the last bytes */
            size_t pass = t->n - CLI_TAIL_KEEP;
            rf_status st = rf_write(t->out, t->held, pass);
            if (st != RF_OK) return st;
            memmove(t->held, t->held + pass, CLI_TAIL_KEEP);
            t->n = CLI_TAIL_KEEP;
        }
        size_t k = sizeof t->held - t->n < size ? sizeof t->held - t->n : size;
        memcpy(t->held + t->n, data, k);
        t->n += k;
        data += k;
        size -= k;
    }
    return RF_OK;
}

rf_status cli_json_with_advice(rf_ctx *ctx,
                               rf_status (*render)(rf_ctx *, const void *, rf_writer *),
                               const void *obj, const rf_advice_list *adv)
{
    rf_writer w = cli_stdout();
    if (!adv) return render(ctx, obj, &w);
    static cli_tail t; /* 64 KiB: not on the stack */
    t.out = &w;
    t.n = 0;
    rf_writer tw = {cli_tail_write, &t};
    rf_status st = render(ctx, obj, &tw);
    if (st != RF_OK) return st;
    return rf_report_json_add_advice(ctx, t.held, t.n, adv, &w);
}

int cli_print_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m, const char *format,
                     int chart, int summary, const rf_advice_list *adv)
{
    rf_report_opts o = cli_report_opts();
    return cli_print_result_opts(ctx, r, m, format, chart, summary, adv, &o);
}

int cli_print_result_opts(rf_ctx *ctx, const rf_result *r, const rf_machine *m, const char *format,
                          int chart, int summary, const rf_advice_list *adv,
                          const rf_report_opts *opts)
{
    rf_writer w = cli_stdout();
    rf_report_opts o = *opts;
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
