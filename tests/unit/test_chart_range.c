/* test_chart_range.c — charts of extreme figures (issue 11 item 2): a roof whose ridge is past
 * DBL_MAX (1 TFLOP/s over 1e-300 B/s) is refused as RF_RANGE with a message naming both
 * ceilings, by every back end, instead of reaching lround(NaN) (ASCII) or writing "nan" into the
 * SVG; ceilings 60 decades apart but finite still draw, with finite coordinates only. */
#include <math.h>
#include <string.h>

#include "rf_test.h"
#include "roofline/buf.h"
#include "roofline/report.h"

typedef struct fx {
    rf_ctx *ctx;
    rf_result r;
    rf_row rows[3];
} fx;

static void fx_init(fx *f, double peak, double bw)
{
    memset(f, 0, sizeof *f);
    if (rf_ctx_new(&f->ctx, NULL) != RF_OK) exit(1);
    snprintf(f->r.title, sizeof f->r.title, "ops.csv");
    snprintf(f->r.machine, sizeof f->r.machine, "extreme");
    snprintf(f->r.compute.name, sizeof f->r.compute.name, "fp32");
    f->r.compute.kind = RF_CEILING_COMPUTE;
    f->r.compute.value = peak;
    snprintf(f->r.bandwidth.name, sizeof f->r.bandwidth.name, "DRAM");
    f->r.bandwidth.kind = RF_CEILING_BANDWIDTH;
    f->r.bandwidth.value = bw;
    f->r.roof.peak_flops_per_s = peak;
    f->r.roof.bw_bytes_per_s = bw;
    f->r.ridge_ai = peak / bw;
    static char names[3][2] = {"a", "b", "c"};
    const double flops[3] = {1e9, 1e12, 5e6}, bytes[3] = {1e9, 1e6, 0};
    for (size_t i = 0; i < 3; i++) {
        f->rows[i].name = names[i];
        f->rows[i].index = i;
        RF_EXPECT_INT(rf_roof_eval(f->ctx, &f->r.roof, flops[i], bytes[i], &f->rows[i].e), RF_OK);
        f->r.totals.time_s += f->rows[i].e.time_s;
        f->r.totals.count++;
    }
    f->r.rows = f->rows;
    f->r.n_rows = 3;
}

/* Render with back end k (0 ASCII, 1 SVG, 2 HTML) into b; returns the status. */
static rf_status render(fx *f, int k, rf_buf *b)
{
    rf_buf_init(b, f->ctx, 0);
    rf_writer w = rf_buf_writer(b);
    const rf_result *rs[1] = {&f->r};
    if (k == 0) return rf_report_chart_ascii(f->ctx, &f->r, NULL, NULL, &w);
    if (k == 1) return rf_report_chart_svg(f->ctx, rs, 1, NULL, NULL, &w);
    return rf_report_chart_html(f->ctx, rs, 1, NULL, NULL, &w);
}

/* printf's "nan"/"-nan" as a word (the HTML page's script spells NaN, which is fine). */
static int has_nan(const rf_buf *b)
{
    for (const char *p = b->data; p && (p = strstr(p, "nan")) != NULL; p++) {
        int before = p > b->data && ((p[-1] | 0x20) >= 'a' && (p[-1] | 0x20) <= 'z');
        int after = (p[3] | 0x20) >= 'a' && (p[3] | 0x20) <= 'z';
        if (!before && !after) return 1;
    }
    return 0;
}

RF_TEST(ridge_past_dbl_max_is_refused)
{
    for (int k = 0; k < 3; k++) {
        fx f;
        fx_init(&f, 1e12, 1e-300);
        rf_buf b;
        RF_EXPECT_INT(render(&f, k, &b), RF_RANGE);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(f.ctx), "ridge");
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(f.ctx), "'DRAM'");
        RF_EXPECT(!has_nan(&b));
        if (has_nan(&b)) fprintf(stderr, "%s\n", b.data);
        rf_buf_free(&b);
        rf_ctx_free(f.ctx);
    }
}

RF_TEST(far_apart_but_finite_ceilings_draw_finite)
{
    for (int k = 0; k < 3; k++) {
        fx f;
        fx_init(&f, 1e30, 1e-30);
        rf_buf b;
        RF_EXPECT_INT(render(&f, k, &b), RF_OK);
        RF_EXPECT(b.len > 0);
        RF_EXPECT(!has_nan(&b));
        if (has_nan(&b)) fprintf(stderr, "%s\n", b.data);
        rf_buf_free(&b);
        rf_ctx_free(f.ctx);
    }
}
