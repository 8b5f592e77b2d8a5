/* test_scale.c — round trips and scale (issue 11 item 8): totals past DBL_MAX are refused when
 * added (never written as null that `plot` then refuses); the roof-label layout does near-linear
 * work in the number of roofs (counted obstacle tests, not time); a chart over its output cap
 * says which limit was hit and how to get under it (--top). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report/svg_int.h"
#include "rf_test.h"
#include "roofline/roofline.h"

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) exit(1);
    return ctx;
}

static rf_analysis *new_analysis(rf_ctx *ctx, rf_machine **m)
{
    rf_analysis *a = NULL;
    if (rf_machine_simple(ctx, "m", 1e12, 1e9, RF_PROV_USER, "test", m) != RF_OK) exit(1);
    if (rf_analysis_new(ctx, *m, 0, 1, RF_SORT_INPUT, 0, &a) != RF_OK) exit(1);
    return a;
}

RF_TEST(totals_past_dbl_max_are_refused)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    rf_analysis *a = new_analysis(ctx, &m);
    RF_EXPECT_INT(rf_analysis_add(a, "a", 1, NULL, 1e308, 1), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "b", 1, NULL, 1e308, 1), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "operation 'b': the sum of FLOPs");
    RF_EXPECT_INT(rf_analysis_add(a, "c", 1, NULL, 1, 1.5e308), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "d", 1, NULL, 1, 1.5e308), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "the sum of bytes");
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(result_json_round_trips_at_the_edge)
{
    /* the largest totals the analysis takes are written as numbers and read back */
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    rf_analysis *a = new_analysis(ctx, &m);
    RF_EXPECT_INT(rf_analysis_add(a, "a", 1, NULL, 1e308, 1e300), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "b", 1, NULL, 7e307, 1), RF_OK);
    rf_result *r = NULL, *back = NULL;
    RF_REQUIRE(rf_analysis_finish(a, "edge", &r) == RF_OK);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_report_json(ctx, r, &w), RF_OK);
    RF_EXPECT(b.data && !strstr(b.data, "\"flops\": null") && !strstr(b.data, "\"time_s\": null"));
    RF_EXPECT_INT(rf_result_parse_json(ctx, b.data, b.len, "edge.json", &back), RF_OK);
    if (back) RF_EXPECT_DBL(back->totals.flops, r->totals.flops);
    rf_result_free(back);
    rf_result_free(r);
    rf_buf_free(&b);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

/* Obstacle tests made to label n roofs crossing a 600x400 plot (as a machine file with n
 * ceilings draws them: bandwidth roofs rising, compute roofs flat, spread over the plot). */
static uint64_t label_work(size_t n)
{
    rf_ctx *ctx = new_ctx();
    rf__obstacles o;
    memset(&o, 0, sizeof o);
    o.x0 = 80, o.y0 = 40, o.x1 = 680, o.y1 = 440;
    double seg[1024][4];
    for (size_t i = 0; i < n; i++) {
        double f = fmod((double)i * 0.6180339887, 1.0);
        if (i % 2) { /* flat compute roof from somewhere on the left to the right edge */
            seg[i][0] = 80 + 300 * f, seg[i][1] = 40 + 400 * f, seg[i][2] = 680,
            seg[i][3] = seg[i][1];
        } else { /* bandwidth roof rising from the left edge */
            seg[i][0] = 80, seg[i][1] = 440 - 200 * f, seg[i][2] = 380 + 300 * f, seg[i][3] = 40;
        }
        if (rf__obstacles_segment(ctx, &o, seg[i][0], seg[i][1], seg[i][2], seg[i][3]) != RF_OK)
            exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        rf__label_place pl;
        double *s = seg[i];
        int ok = s[0] < s[2] ? rf__label_place_roof(ctx, &o, s[0], s[1], s[2], s[3], 18, 6, 6.5, 12,
                                                    &pl) == RF_OK
                             : 1;
        if (!ok) exit(1);
    }
    uint64_t work = o.grid.n_tests;
    rf__obstacles_free(ctx, &o);
    rf_ctx_free(ctx);
    return work;
}

RF_TEST(label_layout_is_near_linear)
{
    uint64_t w128 = label_work(128), w1024 = label_work(1024);
    fprintf(stderr, "obstacle tests: 128 roofs %llu, 1024 roofs %llu (x%.1f for x8 roofs)\n",
            (unsigned long long)w128, (unsigned long long)w1024, (double)w1024 / (double)w128);
    RF_EXPECT(w128 > 0);
    /* all pairs would be x64 and more (each label tests every roof and label); linear is x8 */
    RF_EXPECT((double)w1024 < 16.0 * (double)w128);
}

RF_TEST(chart_over_its_output_cap_names_the_limit)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    rf_analysis *a = new_analysis(ctx, &m);
    char name[32];
    for (int i = 0; i < 200; i++) {
        int n = snprintf(name, sizeof name, "op%d", i);
        RF_REQUIRE(rf_analysis_add(a, name, (size_t)n, NULL, 1e9 * (i + 1), 1e8) == RF_OK);
    }
    rf_result *r = NULL;
    RF_REQUIRE(rf_analysis_finish(a, "many", &r) == RF_OK);
    const rf_result *rs[1] = {r};
    for (int html = 0; html < 2; html++) {
        rf_buf b;
        rf_buf_init(&b, ctx, 8192);
        rf_writer w = rf_buf_writer(&b);
        rf_status st = html ? rf_report_chart_html(ctx, rs, 1, NULL, NULL, &w)
                            : rf_report_chart_svg(ctx, rs, 1, NULL, NULL, &w);
        RF_EXPECT_INT(st, RF_RANGE);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "size limit");
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "200 rows");
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "--top");
        rf_buf_free(&b);
    }
    rf_result_free(r);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(profile_rows_with_a_shape_round_trip)
{
    /* `profile --json` writes each row's output shape; `plot` must read its own file back */
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    rf_analysis *a = new_analysis(ctx, &m);
    RF_REQUIRE(rf_analysis_add_detail(a, "conv1", 5, "Conv", "1x64x112x112", 0, 2e9, 1e7) == RF_OK);
    rf_result *r = NULL, *back = NULL;
    RF_REQUIRE(rf_analysis_finish(a, "model.onnx", &r) == RF_OK);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_report_json(ctx, r, &w), RF_OK);
    RF_EXPECT(b.data && strstr(b.data, "\"shape\": \"1x64x112x112\""));
    RF_EXPECT_INT(rf_result_parse_json(ctx, b.data, b.len, "model.json", &back), RF_OK);
    if (back && back->n_rows == 1 && back->rows[0].detail)
        RF_EXPECT_STR(back->rows[0].detail, "1x64x112x112");
    else
        RF_EXPECT(!"the shape was not read back");
    rf_result_free(back);
    rf_result_free(r);
    rf_buf_free(&b);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

/* The table's number formatting skips printf on the common path (units.c rf__g_format,
 * rf__f1_format); it must give printf's bytes for every double, ties and powers of ten included. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int same_as_printf(double v, int prec)
{
    char a[64], b[64], c[64], d[64];
    rf__g_format(a, sizeof a, v, prec);
    snprintf(b, sizeof b, "%.*g", prec, v);
    rf__f1_format(c, sizeof c, v, "%");
    snprintf(d, sizeof d, "%.1f%%", v);
    int ok = strcmp(a, b) == 0 && (fabs(v) > 1e20 || strcmp(c, d) == 0); /* cells: 24 bytes */
    if (!ok) printf("  %.17g prec %d: %s / %s, %s / %s\n", v, prec, a, b, c, d);
    return ok;
}

RF_TEST(fast_number_text_matches_printf)
{
    uint64_t s = 0x9E3779B97F4A7C15u;
    size_t bad = 0;
    static const double edge[] = {0,      -0.0,   0.5,     1.5,     2.5,      0.125,     0.0625,
                                  999.5,  999.95, 9.995,   99.95,   1e-5,     1e-4,      0.00099995,
                                  1e21,   1e22,   1e23,    5e-324,  1e-300,   1e300,     123456789,
                                  0.05,   0.15,   0.25,    0.35,    100,      99.95,     1.05,
                                  1.25e6, 2.675,  1.0 / 3, 2.0 / 3, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        for (int p = 1; p <= 9; p++) bad += !same_as_printf(edge[i], p);
    for (int i = 0; i < 300000 && bad < 10; i++) {
        uint64_t r = rng_next(&s);
        double v;
        switch (i % 4) {
        case 0: memcpy(&v, &r, sizeof v); break;               /* any bit pattern */
        case 1: v = (double)(r % 100000000) / 1000; break;     /* decimals with ties */
        case 2: v = (double)(r % 2000001) / 20 - 50000; break; /* x.x5: ties at %.1f */
        default: v = ldexp((double)(r >> 11), (int)(r % 120) - 90); break;
        }
        if (isnan(v)) continue;
        bad += !same_as_printf(v, 1 + (int)(r % 9));
    }
    RF_EXPECT(bad == 0);
}

/* rf_number_format (JSON and CSV cells) takes an integer path for most values; it must give the
 * bytes of the strfromd + strtod reference everywhere. */
RF_TEST(fast_shortest_numbers_match_the_reference)
{
    uint64_t s = 0x2545F4914F6CDD1Du;
    size_t bad = 0;
    static const double edge[] = {1e-11,   1e17,         0.1,     0.2,        0.3,
                                  1.0 / 3, 2.0 / 3,      7.92e-9, 1e16 - 0.5, 0x1p-30,
                                  0x1p40,  0x1p52 + 0.5, 0.5,     1.5e-5,     9.999999999999999e16,
                                  123.456, 5e-324,       1e300};
    for (int i = -1; i < 400000 && bad < 10; i++) {
        double v;
        if (i < 0) {
            for (size_t j = 0; j < sizeof edge / sizeof *edge; j++) {
                char a[48], b[48];
                rf_number_format(a, sizeof a, edge[j]);
                rf__number_format_slow(b, sizeof b, edge[j]);
                if (strcmp(a, b)) printf("  %.17g: %s / %s\n", edge[j], a, b), bad++;
            }
            continue;
        }
        uint64_t r = rng_next(&s);
        switch (i % 4) {
        case 0: memcpy(&v, &r, sizeof v); break;
        case 1: v = (double)(r % 1000000000) / (double)(1 + (r >> 40) % 100000); break;
        case 2: v = (double)(r % 100000000) / 1e12; break;
        default: v = ldexp((double)(r >> 11), (int)(r % 110) - 90); break;
        }
        if (isnan(v) || isinf(v) || (v == floor(v) && fabs(v) < 0x1p53)) continue; /* integers */
        char a[48], b[48];
        rf_number_format(a, sizeof a, v);
        rf__number_format_slow(b, sizeof b, v);
        if (strcmp(a, b)) printf("  %.17g: %s / %s\n", v, a, b), bad++;
    }
    RF_EXPECT(bad == 0);
}
