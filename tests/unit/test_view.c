/* test_view.c — a long result shown in a few rows (rf_report_opts.rows_max, issue 29): the table
 * lists the N slowest rows slowest first (a measured time before its estimate), one line names
 * the rest and their share, the totals stay those of every row; N at or above the row count
 * changes nothing; the brief chart is at most 100 columns and names its letters in one line. */
#include "rf_test.h"

#include <stdio.h>
#include <string.h>

#include <roofline/roofline.h>

/* Five rows on 100 GFLOP/s, 10 GB/s (ridge 10): times 1, 5, 2, 4, 3 ms in input order. */
static rf_result *five(rf_ctx *c)
{
    rf_machine *m = NULL;
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    if (rf_machine_simple(c, "t", 100e9, 10e9, RF_PROV_USER, "test", &m) != RF_OK) return NULL;
    static const char *const names[5] = {"one", "five", "two", "four", "three"};
    static const double ms[5] = {1, 5, 2, 4, 3};
    if (rf_analysis_new(c, m, 0, 1, RF_SORT_INPUT, 0, &a) == RF_OK) {
        for (int i = 0; i < 5; i++) /* compute-bound: time = flops / 100G */
            rf_analysis_add(a, names[i], strlen(names[i]), "Op", ms[i] * 1e-3 * 100e9, 1e6);
        rf_analysis_finish(a, "five", &r);
    }
    rf_analysis_free(a);
    rf_machine_free(m);
    return r;
}

static char *table(rf_ctx *c, const rf_result *r, const rf_report_opts *o, rf_buf *b)
{
    rf_buf_init(b, c, 0);
    rf_writer w = rf_buf_writer(b);
    RF_EXPECT_INT(rf_report_table(c, r, o, &w), RF_OK);
    rf_buf_append(b, "", 1);
    return b->data;
}

RF_TEST(table_lists_the_slowest_rows)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_result *r = five(c);
    RF_REQUIRE(r);
    rf_buf b;
    rf_report_opts o = {.width = 100, .rows_max = 2, .more_hint = "--all lists them"};
    const char *t = table(c, r, &o, &b);
    const char *p5 = strstr(t, "1  five"), *p4 = strstr(t, "2  four");
    RF_EXPECT(p5 && p4 && p5 < p4);
    RF_EXPECT(!strstr(t, "three") && !strstr(t, " one ") && !strstr(t, "two"));
    /* the rest: 1 + 2 + 3 of 15 ms */
    RF_EXPECT_CONTAINS(t, "... 3 more operations, 40.0% of the estimated time (--all lists them)");
    RF_EXPECT_CONTAINS(t, "time 15 ms"); /* the totals of every row */
    rf_result_free(r);
    rf_buf_free(&b);
    rf_ctx_free(c);
}

RF_TEST(table_with_room_for_every_row_is_unchanged)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_result *r = five(c);
    RF_REQUIRE(r);
    rf_buf b1, b2;
    rf_report_opts all = {.width = 100}, five_max = {.width = 100, .rows_max = 5};
    char *t1 = table(c, r, &all, &b1), *t2 = table(c, r, &five_max, &b2);
    RF_EXPECT_STR(t1, t2);
    RF_EXPECT(strstr(t1, "1  one") && strstr(t1, "5  three")); /* input order */
    RF_EXPECT(!strstr(t1, "more operation"));
    rf_result_free(r);
    rf_buf_free(&b1);
    rf_buf_free(&b2);
    rf_ctx_free(c);
}

/* A measured row ranks by its measurement: "one" (1 ms estimated) measured at 9 ms comes first. */
RF_TEST(table_ranks_by_measured_time)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_result *r = five(c);
    RF_REQUIRE(r);
    rf_achieved one = {0};
    one.m.time_s = one.m.min_s = one.m.max_s = 9e-3;
    one.m.runs = 1;
    r->rows[0].measured = &one; /* borrowed for the test: taken back before the free */
    rf_buf b;
    rf_report_opts o = {.width = 100, .rows_max = 1};
    const char *t = table(c, r, &o, &b);
    RF_EXPECT_CONTAINS(t, "1  one");
    RF_EXPECT_CONTAINS(t, "... 4 more operations");
    r->rows[0].measured = NULL;
    rf_result_free(r);
    rf_buf_free(&b);
    rf_ctx_free(c);
}

RF_TEST(brief_chart_fits_and_names_its_letters)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_result *r = five(c);
    RF_REQUIRE(r);
    rf_buf b;
    rf_buf_init(&b, c, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = {.width = 300, .rows_max = 3, .brief = 1};
    RF_EXPECT_INT(rf_report_chart_ascii(c, r, NULL, &o, &w), RF_OK);
    rf_buf_append(&b, "", 1);
    size_t lines = 0, widest = 0;
    for (const char *s = b.data, *e; (e = strchr(s, '\n')); s = e + 1, lines++)
        if ((size_t)(e - s) > widest) widest = (size_t)(e - s);
    RF_EXPECT(widest <= 100);
    RF_EXPECT(lines <= 10 + 4 + 3); /* plot, axes and titles, legend */
    RF_EXPECT_CONTAINS(b.data, "A-C: table rows 1-3");
    rf_result_free(r);
    rf_buf_free(&b);
    rf_ctx_free(c);
}
