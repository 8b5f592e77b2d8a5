/* fuzz_result.c — libFuzzer target for result files (src/report/result_json.c, read back for
 * `roofline plot`): parse the input; a refused input must come with a one-line message; an
 * accepted one must be written again by rf_report_json and read back to the same rows and roof,
 * and must draw as SVG and HTML without error. A violation aborts. Corpus: fuzz/corpus/result/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/buf.h"
#include "roofline/report.h"

static int same_result(const rf_result *a, const rf_result *b)
{
    if (a->n_rows != b->n_rows || strcmp(a->title, b->title) || strcmp(a->machine, b->machine) ||
        a->compute.value != b->compute.value || a->bandwidth.value != b->bandwidth.value ||
        a->totals.time_s != b->totals.time_s)
        return 0;
    for (size_t i = 0; i < a->n_rows; i++) {
        const rf_row *x = &a->rows[i], *y = &b->rows[i];
        if (strcmp(x->name, y->name) || x->e.flops != y->e.flops || x->e.bytes != y->e.bytes ||
            x->e.bound != y->e.bound || (!x->op) != (!y->op) || (x->op && strcmp(x->op, y->op)))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_result *r = NULL, *again = NULL;
    rf_status st = rf_result_parse_json(ctx, data, size, "fuzz.json", &r);
    if (st != RF_OK) {
        const char *msg = rf_ctx_errmsg(ctx);
        if (!msg[0] || strchr(msg, '\n') || r) abort();
    } else {
        rf_buf b;
        rf_buf_init(&b, ctx, 0);
        rf_writer w = rf_buf_writer(&b);
        if (rf_report_json(ctx, r, &w) != RF_OK) abort();
        if (rf_result_parse_json(ctx, b.data, b.len, "again.json", &again) != RF_OK) abort();
        if (!same_result(r, again)) abort();
        rf_buf_free(&b);
        const rf_result *const one[1] = {r};
        rf_buf_init(&b, ctx, 0);
        w = rf_buf_writer(&b);
        if (rf_report_chart_svg(ctx, one, 1, NULL, NULL, &w) != RF_OK) abort();
        if (rf_report_chart_html(ctx, one, 1, NULL, NULL, &w) != RF_OK) abort();
        rf_buf_free(&b);
    }
    rf_result_free(again);
    rf_result_free(r);
    rf_ctx_free(ctx);
    return 0;
}
