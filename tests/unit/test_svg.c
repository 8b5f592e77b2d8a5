/* test_svg.c — the SVG and HTML charts and what they rest on: XML escaping, the label layout step
 * (a label never overlaps an obstacle; no place means the legend), results read back from JSON
 * (round trip, strictness), deterministic output, and out-of-memory sweeps. Positions against
 * the axes are checked end to end by tests/chart/check_svg.py. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/svg_int.h"
#include "rf_test.h"
#include "roofline/report.h"

static rf_ctx *ctx_new(void)
{
    rf_ctx *ctx = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    return ctx;
}

/* A result of five operations on a 1 TFLOP/s, 100 GB/s machine (ridge 10 FLOP/byte). */
static rf_result *result_new(rf_ctx *ctx)
{
    static const double ai[] = {0.5, 2, 10, 40, 0};
    rf_machine *m = NULL;
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    RF_EXPECT(rf_machine_simple(ctx, "m<&>", 1e12, 1e11, RF_PROV_USER, "cli", &m) == RF_OK);
    RF_EXPECT(rf_analysis_new(ctx, m, 0, 1, RF_SORT_INPUT, 0, &a) == RF_OK);
    for (size_t i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "op \"%zu\" <x>", i);
        RF_EXPECT(rf_analysis_add(a, name, strlen(name), NULL, ai[i] * 1e6, 1e6) == RF_OK);
    }
    RF_EXPECT(rf_analysis_finish(a, "t.csv", &r) == RF_OK);
    rf_analysis_free(a);
    rf_machine_free(m);
    return r;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++) n++;
    return n;
}

RF_TEST(xml_escape)
{
    rf_ctx *ctx = ctx_new();
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf__xml_text(&w, "a<b&\"'>\x01\xff\xc3\xa9", 0), RF_OK);
    RF_EXPECT_STR(b.data, "a&lt;b&amp;&quot;&#39;&gt;??\xc3\xa9");
    b.len = 0;
    RF_EXPECT_INT(rf__xml_text(&w, "abcdef", 4), RF_OK);
    RF_EXPECT_STR(b.data, "abc\xE2\x80\xA6");
    RF_EXPECT_INT((int)rf__xml_cols("\xc3\xa9t\xe9"), 3);
    rf_buf_free(&b);
    rf_ctx_free(ctx);
}

RF_TEST(label_avoids_obstacles)
{
    rf_ctx *ctx = ctx_new();
    rf__obstacles o;
    memset(&o, 0, sizeof o);
    o.x1 = 600, o.y1 = 400;
    /* A flat roof at y = 200 and a marker where the label would go first (its right end). */
    RF_EXPECT_INT(rf__obstacles_segment(ctx, &o, 100, 200, 600, 200), RF_OK);
    RF_EXPECT_INT(rf__obstacles_circle(ctx, &o, 560, 190, 12), RF_OK);
    rf__label_place p;
    RF_EXPECT_INT(rf__label_place_roof(ctx, &o, 100, 200, 600, 200, 20, 4, 7, 14, &p), RF_OK);
    RF_EXPECT(p.placed && !p.name_only);
    double hw = (20 * 7 + 4) / 2.0;
    RF_EXPECT(p.cx + hw < 560 - 12 || p.cy > 200); /* left of the marker, or below the roof */
    RF_EXPECT(p.cy < 200 - 7 || p.cy > 200 + 7);   /* never on its own roof */
    RF_EXPECT_DBL(p.angle_deg, 0);
    /* A second label of the same roof does not overlap the first. */
    rf__label_place q;
    RF_EXPECT_INT(rf__label_place_roof(ctx, &o, 100, 200, 600, 200, 20, 4, 7, 14, &q), RF_OK);
    RF_EXPECT(q.placed && (q.cx + hw <= p.cx - hw || q.cx - hw >= p.cx + hw || q.cy != p.cy));
    /* A sloped roof: the label turns with it (up and to the right: a negative angle). */
    RF_EXPECT_INT(rf__label_place_roof(ctx, &o, 0, 400, 300, 100, 8, 4, 7, 14, &q), RF_OK);
    RF_EXPECT(q.placed);
    RF_EXPECT_NEAR(q.angle_deg, -45, 1e-9);
    /* No room at all: not placed, the legend carries it. */
    rf__obstacles tiny;
    memset(&tiny, 0, sizeof tiny);
    tiny.x1 = 50, tiny.y1 = 10;
    RF_EXPECT_INT(rf__label_place_roof(ctx, &tiny, 0, 5, 50, 5, 20, 10, 7, 14, &q), RF_OK);
    RF_EXPECT(!q.placed);
    rf__obstacles_free(ctx, &o);
    rf_ctx_free(ctx);
}

RF_TEST(svg_one_marker_per_plotted_row_and_escaped)
{
    rf_ctx *ctx = ctx_new();
    rf_result *r = result_new(ctx);
    const rf_result *const one[1] = {r};
    rf_buf b, c;
    rf_buf_init(&b, ctx, 0);
    rf_buf_init(&c, ctx, 0);
    rf_writer w = rf_buf_writer(&b), v = rf_buf_writer(&c);
    RF_EXPECT_INT(rf_report_chart_svg(ctx, one, 1, NULL, NULL, &w), RF_OK);
    RF_EXPECT_INT(rf_report_chart_svg(ctx, one, 1, NULL, NULL, &v), RF_OK);
    RF_EXPECT(b.len == c.len && memcmp(b.data, c.data, b.len) == 0); /* deterministic */
    RF_EXPECT_INT((int)count(b.data, "class=\"pt "), 4);             /* the 0-FLOP row: not */
    RF_EXPECT_INT((int)count(b.data, "class=\"pt memory"), 2);
    RF_EXPECT_INT((int)count(b.data, "<rect class=\"pt compute"), 2);
    RF_EXPECT(strstr(b.data, "<x>") == NULL);
    RF_EXPECT_CONTAINS(b.data, "data-name=\"op &quot;0&quot; &lt;x&gt;\"");
    RF_EXPECT_CONTAINS(b.data, "m&lt;&amp;&gt;");
    b.len = 0;
    RF_EXPECT_INT(rf_report_chart_html(ctx, one, 1, NULL, NULL, &w), RF_OK);
    RF_EXPECT_CONTAINS(b.data, "<!DOCTYPE html>");
    RF_EXPECT_CONTAINS(b.data, "default-src 'none'");
    RF_EXPECT_INT((int)count(b.data, "<tr data-i="), 5); /* every row in the table */
    RF_EXPECT_INT(rf_report_chart_svg(ctx, one, 0, NULL, NULL, &w), RF_USAGE);
    rf_buf_free(&b);
    rf_buf_free(&c);
    rf_result_free(r);
    rf_ctx_free(ctx);
}

RF_TEST(result_json_round_trip)
{
    rf_ctx *ctx = ctx_new();
    rf_result *r = result_new(ctx), *back = NULL;
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_report_json(ctx, r, &w), RF_OK);
    RF_EXPECT_INT(rf_result_parse_json(ctx, b.data, b.len, "r.json", &back), RF_OK);
    RF_REQUIRE(back);
    RF_EXPECT_INT((int)back->n_rows, 5);
    RF_EXPECT_STR(back->title, "t.csv");
    RF_EXPECT_STR(back->rows[1].name, r->rows[1].name);
    RF_EXPECT_DBL(back->rows[3].e.attainable_flops_per_s, r->rows[3].e.attainable_flops_per_s);
    RF_EXPECT_INT(back->rows[4].e.bound, RF_BOUND_MEMORY); /* no FLOPs: AI 0, memory */
    RF_EXPECT_DBL(back->totals.time_s, r->totals.time_s);
    rf_result_free(back);
    /* Strict: a second "schema" key, a newer schema, a stray key. */
    static const char *bad[] = {"{\"schema\": 1, \"schema\": 1}", "{\"schema\": 9}",
                                "{\"schema\": 1, \"kind\": \"analysis\", \"x\": 1}", "[]", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        back = (rf_result *)1;
        rf_status st = rf_result_parse_json(ctx, bad[i], strlen(bad[i]), "bad.json", &back);
        RF_EXPECT(st == RF_FORMAT || st == RF_UNSUPPORTED);
        RF_EXPECT(back == NULL);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "bad.json: ");
    }
    /* Out of memory at every allocation in turn: RF_NOMEM, never a crash or a leak. */
    for (uint64_t n = 1; n < 40; n++) {
        rf_ctx_fail_alloc_after(ctx, n, 1);
        back = NULL;
        rf_status st = rf_result_parse_json(ctx, b.data, b.len, "r.json", &back);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        RF_EXPECT(st == RF_OK || st == RF_NOMEM);
        rf_result_free(back);
    }
    rf_buf_free(&b);
    rf_result_free(r);
    rf_ctx_free(ctx);
}

RF_TEST(svg_out_of_memory_and_two_series)
{
    rf_ctx *ctx = ctx_new();
    rf_result *r = result_new(ctx), *s = result_new(ctx);
    const rf_result *const two[2] = {r, s};
    for (uint64_t n = 1; n < 40; n++) {
        rf_buf b;
        rf_buf_init(&b, ctx, 0);
        rf_writer w = rf_buf_writer(&b);
        rf_ctx_fail_alloc_after(ctx, n, 1);
        rf_status st = rf_report_chart_html(ctx, two, 2, NULL, NULL, &w);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        RF_EXPECT(st == RF_OK || st == RF_NOMEM);
        if (st == RF_OK) {
            RF_EXPECT_INT((int)count(b.data, "class=\"pt "), 8);
            RF_EXPECT_CONTAINS(b.data, "data-toggle-series=\"1\"");
        }
        rf_buf_free(&b);
    }
    rf_result_free(r);
    rf_result_free(s);
    rf_ctx_free(ctx);
}
