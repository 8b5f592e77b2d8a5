/* test_chart.c — the roofline chart: the layout step in data space (decades, roofs, ridges,
 * points, clamping), the draw walk, and the ASCII/UTF-8 back end (width, grid cells, legend).
 * Results and machines are built by hand; nothing is measured. See src/report/chart.h. */
#include <math.h>
#include <stdint.h>

#include "report/chart.h"
#include "rf_test.h"
#include "roofline/report.h"

#define PEAK 7.17e12
#define BW 307.2e9

/* A result evaluated by hand: rows of (ai, bytes = 1 GB) under fp32 7.17T / DRAM 307.2 G. */
typedef struct fixture {
    rf_ctx *ctx;
    rf_result r;
    rf_row rows[80];
    char names[80][32];
} fixture;

static rf_ceiling ceiling(const char *name, rf_ceiling_kind kind, double value)
{
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.kind = kind;
    c.value = value;
    c.provenance = RF_PROV_DATASHEET;
    return c;
}

/* Row i has FLOPs flops[i] and bytes bytes[i]. */
static void fixture_rows(fixture *f, size_t n, const double *flops, const double *bytes)
{
    for (size_t i = 0; i < n; i++) {
        rf_row *row = &f->rows[i];
        if (!f->names[i][0]) snprintf(f->names[i], sizeof f->names[i], "op%zu", i);
        row->name = f->names[i];
        row->op = NULL;
        row->index = i;
        RF_EXPECT_INT(rf_roof_eval(f->ctx, &f->r.roof, flops[i], bytes[i], &row->e), RF_OK);
        f->r.totals.time_s += row->e.time_s;
        f->r.totals.count++;
    }
    f->r.rows = f->rows;
    f->r.n_rows = n;
}

static void fixture_init(fixture *f, size_t n, const double *ai)
{
    memset(f, 0, sizeof *f);
    RF_EXPECT_INT(rf_ctx_new(&f->ctx, NULL), RF_OK);
    snprintf(f->r.title, sizeof f->r.title, "ops.csv");
    snprintf(f->r.machine, sizeof f->r.machine, "demo");
    f->r.compute = ceiling("fp32.fma.avx512", RF_CEILING_COMPUTE, PEAK);
    f->r.bandwidth = ceiling("DRAM", RF_CEILING_BANDWIDTH, BW);
    f->r.roof.peak_flops_per_s = PEAK;
    f->r.roof.bw_bytes_per_s = BW;
    f->r.ridge_ai = PEAK / BW;
    double flops[80], bytes[80];
    for (size_t i = 0; i < n; i++) flops[i] = ai[i] * 1e9, bytes[i] = 1e9;
    fixture_rows(f, n, flops, bytes);
}

static void fixture_free(fixture *f)
{
    rf_ctx_free(f->ctx);
}

/* fp32 + DRAM + L2 (2 TB/s); with `six`: fp64, fp32, L1, L2, L3, DRAM. */
static rf_machine *machine(rf_ctx *ctx, int six)
{
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_machine_new(ctx, "demo", &m), RF_OK);
    rf_ceiling c[] = {
        ceiling("fp64.fma.avx512", RF_CEILING_COMPUTE, PEAK / 2),
        ceiling("fp32.fma.avx512", RF_CEILING_COMPUTE, PEAK),
        ceiling("L1", RF_CEILING_BANDWIDTH, 20e12),
        ceiling("L2", RF_CEILING_BANDWIDTH, 2e12),
        ceiling("L3", RF_CEILING_BANDWIDTH, 800e9),
        ceiling("DRAM", RF_CEILING_BANDWIDTH, BW),
    };
    for (size_t i = 0; i < 6; i++)
        if (six || i == 1 || i == 3 || i == 5) RF_EXPECT_INT(rf_machine_add(ctx, m, &c[i]), RF_OK);
    return m;
}

static const double six_ai[] = {0.25, 1, 8, 60, 120, 2000};

/* ---- layout ---------------------------------------------------------------------------------- */

RF_TEST(layout_decades)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 0);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, m, &c) == RF_OK);
    /* x: 0.25 .. 2000 and ridges 3.58, 23.3 with a decade of margin: 0.01 .. 100k. */
    RF_EXPECT_DBL(c.x.lo, -2);
    RF_EXPECT_DBL(c.x.hi, 5);
    /* y: 76.8 G (lowest point) .. 7.17 T with a decade of margin: 1G .. 100T. */
    RF_EXPECT_DBL(c.y.lo, 9);
    RF_EXPECT_DBL(c.y.hi, 14);
    RF_REQUIRE(c.x.n_ticks == 8 && c.y.n_ticks == 6);
    const char *xl[] = {"0.01", "0.1", "1", "10", "100", "1k", "10k", "100k"};
    for (size_t i = 0; i < 8; i++) {
        RF_EXPECT_STR(c.x.ticks[i].label, xl[i]);
        RF_EXPECT_DBL(c.x.ticks[i].v, -2.0 + (double)i);
    }
    const char *yl[] = {"1G", "10G", "100G", "1T", "10T", "100T"};
    for (size_t i = 0; i < 6; i++) RF_EXPECT_STR(c.y.ticks[i].label, yl[i]);
    RF_EXPECT_STR(c.title, "ops.csv on demo");
    rf__chart_free(f.ctx, &c);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(layout_roofs)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 0);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, m, &c) == RF_OK);
    RF_REQUIRE(c.n_roofs == 3);
    const rf__chart_roof *fp32 = &c.roofs[0], *dram = &c.roofs[1], *l2 = &c.roofs[2];
    RF_EXPECT_STR(fp32->name, "fp32.fma.avx512");
    RF_EXPECT_STR(dram->name, "DRAM");
    RF_EXPECT_STR(l2->name, "L2");
    RF_EXPECT(fp32->primary && dram->primary && !l2->primary);
    RF_EXPECT(fp32->visible && dram->visible && l2->visible);
    RF_EXPECT_STR(fp32->label, "fp32.fma.avx512 7.17 TFLOP/s");
    RF_EXPECT_STR(dram->label, "DRAM 307 GB/s");
    /* Compute: flat at log10(peak) from where it meets the highest bandwidth (L2) to the edge. */
    RF_EXPECT_NEAR(fp32->x0, log10(PEAK / 2e12), 1e-12);
    RF_EXPECT_NEAR(fp32->y0, log10(PEAK), 1e-12);
    RF_EXPECT_DBL(fp32->x1, 5);
    RF_EXPECT_NEAR(fp32->y1, log10(PEAK), 1e-12);
    /* Bandwidth: y = log10(ai * bw) from the left edge up to the top compute roof. */
    RF_EXPECT_DBL(dram->x0, -2);
    RF_EXPECT_NEAR(dram->y0, -2 + log10(BW), 1e-12);
    RF_EXPECT_NEAR(dram->x1, log10(PEAK / BW), 1e-12);
    RF_EXPECT_NEAR(dram->y1, log10(PEAK), 1e-12);
    RF_EXPECT_NEAR(l2->y0, -2 + log10(2e12), 1e-12);
    RF_EXPECT_NEAR(l2->x1, log10(PEAK / 2e12), 1e-12);
    rf__chart_free(f.ctx, &c);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(layout_ridges)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 0);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, m, &c) == RF_OK);
    RF_REQUIRE(c.n_ridges == 2);
    RF_EXPECT(c.ridges[0].primary);
    RF_EXPECT_NEAR(c.ridges[0].x, log10(PEAK / BW), 1e-12);
    RF_EXPECT_NEAR(c.ridges[0].y, log10(PEAK), 1e-12);
    RF_EXPECT_STR(c.ridges[0].ai_text, "23.3");
    RF_EXPECT_STR(c.roofs[c.ridges[0].roof].name, "DRAM");
    RF_EXPECT(!c.ridges[1].primary);
    RF_EXPECT_NEAR(c.ridges[1].ai, PEAK / 2e12, 1e-12);
    RF_EXPECT_STR(c.ridges[1].ai_text, "3.58");
    rf__chart_free(f.ctx, &c);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(layout_points)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_REQUIRE(c.n_points == 6);
    double share = 0;
    for (size_t i = 0; i < 6; i++) {
        const rf__chart_point *p = &c.points[i];
        RF_EXPECT_INT(p->row, i);
        RF_EXPECT_INT(p->glyph, 'A' + (int)i);
        RF_EXPECT_NEAR(p->x, log10(six_ai[i]), 1e-12);
        RF_EXPECT_NEAR(p->y, log10(f.rows[i].e.attainable_flops_per_s), 1e-12);
        RF_EXPECT_INT(p->bound, f.rows[i].e.bound);
        RF_EXPECT_INT(p->flags, 0);
        RF_EXPECT_STR(p->name, f.names[i]);
        share += p->share;
    }
    RF_EXPECT_NEAR(share, 1, 1e-12);
    RF_EXPECT_NEAR(c.points[0].y, log10(0.25 * BW), 1e-12);
    RF_EXPECT_STR(c.points[0].ai_text, "0.25");
    RF_EXPECT_STR(c.points[0].attainable_text, "76.8 GFLOP/s");
    RF_EXPECT_STR(c.points[5].ai_text, "2k");
    RF_EXPECT_INT(c.points[5].bound, RF_BOUND_COMPUTE);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_null_machine)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_REQUIRE(c.n_roofs == 2 && c.n_ridges == 1);
    RF_EXPECT(c.roofs[0].primary && c.roofs[1].primary);
    RF_EXPECT_INT(c.roofs[0].kind, RF_CEILING_COMPUTE);
    RF_EXPECT_INT(c.roofs[1].kind, RF_CEILING_BANDWIDTH);
    /* With one bandwidth roof the compute roof starts at the ridge. */
    RF_EXPECT_NEAR(c.roofs[0].x0, log10(PEAK / BW), 1e-12);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

/* A machine that lacks the analysis' ceilings still gets them, flagged primary. */
RF_TEST(layout_machine_without_the_analysis_roof)
{
    fixture f;
    fixture_init(&f, 2, six_ai);
    rf_machine *m = NULL;
    RF_REQUIRE(rf_machine_simple(f.ctx, "other", 1e12, 1e11, RF_PROV_USER, "", &m) == RF_OK);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, m, &c) == RF_OK);
    RF_REQUIRE(c.n_roofs == 4);
    RF_EXPECT_STR(c.roofs[0].name, "fp32.fma.avx512");
    RF_EXPECT_STR(c.roofs[1].name, "DRAM");
    RF_EXPECT(c.roofs[0].primary && c.roofs[1].primary && !c.roofs[2].primary);
    RF_EXPECT(!c.roofs[3].primary);
    rf__chart_free(f.ctx, &c);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(layout_clamp)
{
    const double ai[] = {1e-12, 1, 1e9};
    fixture f;
    fixture_init(&f, 3, ai);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_EXPECT(c.x.hi - c.x.lo <= RF__CHART_X_DECADES_MAX);
    RF_EXPECT(c.y.hi - c.y.lo <= RF__CHART_Y_DECADES_MAX);
    /* The ridge keeps its decade of margin on both sides. */
    RF_EXPECT(c.x.lo <= floor(log10(PEAK / BW)) - 1 && c.x.hi >= ceil(log10(PEAK / BW)) + 1);
    RF_REQUIRE(c.n_points == 3);
    RF_EXPECT(c.points[0].flags & RF__POINT_CLAMPED);
    RF_EXPECT_DBL(c.points[0].x, c.x.lo);
    RF_EXPECT(c.points[0].y >= c.y.lo);
    RF_EXPECT_INT(c.points[1].flags, 0);
    RF_EXPECT(c.points[2].flags & RF__POINT_CLAMPED);
    RF_EXPECT_DBL(c.points[2].x, c.x.hi);
    RF_EXPECT_INT(c.n_clamped, 2);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_inf_ai_on_the_right_edge)
{
    fixture f;
    fixture_init(&f, 1, six_ai);
    const double flops[] = {1e9, 5e9}, bytes[] = {1e9, 0};
    f.r.totals.time_s = 0;
    fixture_rows(&f, 2, flops, bytes);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_REQUIRE(c.n_points == 2);
    RF_EXPECT(isinf(c.points[1].ai));
    RF_EXPECT_INT(c.points[1].flags, RF__POINT_INF_AI);
    RF_EXPECT_DBL(c.points[1].x, c.x.hi);
    RF_EXPECT_NEAR(c.points[1].y, log10(PEAK), 1e-12);
    RF_EXPECT_STR(c.points[1].ai_text, "inf");
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_not_plotted)
{
    fixture f;
    fixture_init(&f, 1, six_ai);
    /* defined, undefined (0, 0), no FLOPs (0, 1e6), defined */
    const double flops[] = {1e9, 0, 0, 8e9}, bytes[] = {1e9, 0, 1e6, 1e9};
    f.r.totals.time_s = 0;
    fixture_rows(&f, 4, flops, bytes);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_REQUIRE(c.n_points == 2 && c.n_unplotted == 2);
    RF_EXPECT_INT(c.points[0].row, 0);
    RF_EXPECT_INT(c.points[1].row, 3);
    RF_EXPECT_INT(c.points[1].glyph, 'B'); /* glyphs go to plotted points only */
    RF_EXPECT_INT(c.unplotted[0].row, 1);
    RF_EXPECT_INT(c.unplotted[0].why, RF__UNPLOTTED_UNDEFINED);
    RF_EXPECT_INT(c.unplotted[1].row, 2);
    RF_EXPECT_INT(c.unplotted[1].why, RF__UNPLOTTED_NO_FLOPS);
    RF_EXPECT_INT(c.n_undefined, 1);
    RF_EXPECT_INT(c.n_no_flops, 1);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_glyphs_past_62)
{
    double ai[70];
    for (size_t i = 0; i < 70; i++) ai[i] = 0.5 + (double)i;
    fixture f;
    fixture_init(&f, 70, ai);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_REQUIRE(c.n_points == 70);
    const char *want = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789********";
    char got[71];
    for (size_t i = 0; i < 70; i++) got[i] = c.points[i].glyph;
    got[70] = '\0';
    RF_EXPECT_STR(got, want);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_no_points_still_has_axes)
{
    fixture f;
    fixture_init(&f, 0, six_ai);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, NULL, &c) == RF_OK);
    RF_EXPECT_INT(c.n_points, 0);
    RF_EXPECT(c.x.hi - c.x.lo >= 4);
    RF_EXPECT(c.y.hi - c.y.lo >= 3);
    RF_EXPECT(c.x.lo <= log10(PEAK / BW) - 1 && c.x.hi >= log10(PEAK / BW) + 1);
    RF_EXPECT(c.roofs[0].visible && c.roofs[1].visible);
    rf__chart_free(f.ctx, &c);
    fixture_free(&f);
}

RF_TEST(layout_errors)
{
    fixture f;
    fixture_init(&f, 2, six_ai);
    rf__chart c;
    RF_EXPECT_INT(rf__chart_layout(f.ctx, NULL, NULL, &c), RF_USAGE);
    f.r.compute.value = 0;
    RF_EXPECT_INT(rf__chart_layout(f.ctx, &f.r, NULL, &c), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(f.ctx), "fp32.fma.avx512");
    f.r.compute.value = PEAK;
    f.r.bandwidth.value = NAN;
    RF_EXPECT_INT(rf__chart_layout(f.ctx, &f.r, NULL, &c), RF_RANGE);
    fixture_free(&f);
}

RF_TEST(layout_out_of_memory)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 1);
    for (uint64_t n = 1; n < 10; n++) {
        rf__chart c;
        rf_ctx_fail_alloc_after(f.ctx, n, 1);
        rf_status st = rf__chart_layout(f.ctx, &f.r, m, &c);
        rf_ctx_fail_alloc_after(f.ctx, 0, 0);
        RF_EXPECT(st == RF_OK || st == RF_NOMEM);
        if (st == RF_OK) rf__chart_free(f.ctx, &c);
    }
    rf_machine_free(m);
    fixture_free(&f);
}

/* ---- the walk -------------------------------------------------------------------------------- */

typedef struct recorder {
    const rf__chart *c;
    int began, ended, lines, texts, points, ridges, outside, primary_seen, secondary_after;
    double px[8], py[8];
} recorder;

static int inside(double v)
{
    return v >= 0 && v <= 1;
}

static rf_status rec_begin(void *u, const rf__chart *c)
{
    recorder *r = u;
    r->c = c;
    r->began++;
    return RF_OK;
}

static rf_status rec_end(void *u)
{
    ((recorder *)u)->ended++;
    return RF_OK;
}

static rf_status rec_line(void *u, double x0, double y0, double x1, double y1, unsigned style)
{
    recorder *r = u;
    r->lines++;
    if (!inside(x0) || !inside(y0) || !inside(x1) || !inside(y1)) r->outside++;
    unsigned kind = style & ~(unsigned)RF__LINE_PRIMARY;
    if (kind == RF__LINE_COMPUTE || kind == RF__LINE_BANDWIDTH) {
        if (style & RF__LINE_PRIMARY)
            r->primary_seen = 1;
        else if (r->primary_seen)
            r->secondary_after = 1;
    }
    return RF_OK;
}
static rf_status rec_marker(void *u, double x, double y, const rf__mark *mk)
{
    recorder *r = u;
    if (!inside(x) || !inside(y)) r->outside++;
    if (mk->ridge)
        r->ridges++;
    else if (mk->index < 8)
        r->px[mk->index] = x, r->py[mk->index] = y, r->points++;
    return RF_OK;
}
static rf_status rec_text(void *u, double x, double y, const char *s, rf__text_kind k, size_t i)
{
    (void)k, (void)i;
    recorder *r = u;
    r->texts++;
    if (!inside(x) || !inside(y) || !s) r->outside++;
    return RF_OK;
}
static rf_status rec_fail(void *u, double x, double y, const rf__mark *mk)
{
    (void)u, (void)x, (void)y, (void)mk;
    return RF_IO;
}

RF_TEST(draw_walk)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 1);
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f.ctx, &f.r, m, &c) == RF_OK);
    recorder rec;
    memset(&rec, 0, sizeof rec);
    rf__draw_methods dm = {rec_begin, rec_line, rec_marker, rec_text, rec_end};
    RF_EXPECT_INT(rf__chart_draw(&c, &dm, &rec), RF_OK);
    RF_EXPECT(rec.began == 1 && rec.ended == 1 && rec.c == &c);
    RF_EXPECT_INT(rec.outside, 0);
    RF_EXPECT_INT(rec.points, 6);
    RF_EXPECT_INT(rec.ridges, 4);
    RF_EXPECT(rec.primary_seen && !rec.secondary_after);
    for (size_t i = 0; i < 6; i++) {
        RF_EXPECT_NEAR(rec.px[i], (log10(six_ai[i]) - c.x.lo) / (c.x.hi - c.x.lo), 1e-12);
        RF_EXPECT_NEAR(rec.py[i], rf__chart_ny(&c, c.points[i].y), 1e-12);
    }
    dm.marker = rec_fail;
    RF_EXPECT_INT(rf__chart_draw(&c, &dm, &rec), RF_IO);
    rf__chart_free(f.ctx, &c);
    rf_machine_free(m);
    fixture_free(&f);
}

/* ---- ASCII ----------------------------------------------------------------------------------- */

/* Render into a NUL-terminated string owned by the caller (free). */
static char *render(fixture *f, const rf_machine *m, unsigned width, int utf8)
{
    rf_buf b;
    rf_buf_init(&b, f->ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = {.width = width, .utf8 = utf8};
    rf_status st = rf_report_chart_ascii(f->ctx, &f->r, m, &o, &w);
    RF_EXPECT_INT(st, RF_OK);
    if (st != RF_OK) fprintf(stderr, "%s\n", rf_ctx_errmsg(f->ctx));
    char *out = strdup(b.data ? b.data : "");
    rf_buf_free(&b);
    return out;
}

/* Split into at most `max` lines (in place); returns the count. */
static size_t split(char *s, char **lines, size_t max)
{
    size_t n = 0;
    for (char *p = s; *p && n < max;) {
        char *nl = strchr(p, '\n');
        lines[n++] = p;
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
    return n;
}

/* Code points of a valid UTF-8 string, or -1 when it is not valid UTF-8. */
static long utf8_cols(const char *s)
{
    long n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
        int len = *p < 0x80             ? 1
                  : (*p & 0xE0) == 0xC0 ? 2
                  : (*p & 0xF0) == 0xE0 ? 3
                  : (*p & 0xF8) == 0xF0 ? 4
                                        : 0;
        if (!len || (len == 2 && *p < 0xC2)) return -1;
        for (int k = 1; k < len; k++)
            if ((p[k] & 0xC0) != 0x80) return -1;
        p += len;
    }
    return n;
}

/* Every line: valid UTF-8, at most `width` columns, no trailing space. */
static void check_lines(const char *out, unsigned width)
{
    char *copy = strdup(out), *lines[400];
    size_t n = split(copy, lines, 400);
    RF_EXPECT(n > 10);
    RF_EXPECT(out[0] && out[strlen(out) - 1] == '\n');
    for (size_t i = 0; i < n; i++) {
        long cols = utf8_cols(lines[i]);
        if (cols < 0 || cols > (long)width)
            RF_FAIL_AT("line %zu (%ld cols): '%s'", i, cols, lines[i]);
        size_t len = strlen(lines[i]);
        if (len && lines[i][len - 1] == ' ') RF_FAIL_AT("trailing space on line %zu", i);
    }
    free(copy);
}

/* The plot's geometry, read off the ASCII output: the x axis line starts with "+-" at column
 * `left - 1`; the plot rows above it have '|' in that column. */
typedef struct geometry {
    size_t axis, left, pw, ph;
} geometry;

static int find_geometry(char **lines, size_t n, geometry *g)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = strstr(lines[i], "+-");
        if (!p || strspn(lines[i], " ") != (size_t)(p - lines[i])) continue;
        g->axis = i;
        g->left = (size_t)(p - lines[i]) + 1;
        g->pw = strlen(lines[i]) - g->left;
        g->ph = 0;
        while (g->ph < i && strlen(lines[i - 1 - g->ph]) >= g->left &&
               lines[i - 1 - g->ph][g->left - 1] == '|')
            g->ph++;
        return 1;
    }
    return 0;
}

static void check_glyph_cells(fixture *f, const rf_machine *m, unsigned width)
{
    rf__chart c;
    RF_REQUIRE(rf__chart_layout(f->ctx, &f->r, m, &c) == RF_OK);
    char *out = render(f, m, width, 0), *lines[400];
    size_t n = split(out, lines, 400);
    geometry g;
    RF_REQUIRE(find_geometry(lines, n, &g));
    RF_EXPECT_INT(g.left + g.pw, width);
    for (size_t i = 0; i < c.n_points; i++) {
        long col = (long)g.left + lround(rf__chart_nx(&c, c.points[i].x) * (double)(g.pw - 1));
        long row = (long)g.axis - 1 - lround(rf__chart_ny(&c, c.points[i].y) * (double)(g.ph - 1));
        const char *line = lines[row];
        char got = (long)strlen(line) > col ? line[col] : ' ';
        if (got != c.points[i].glyph)
            RF_FAIL_AT("width %u: point %c expected at row %ld col %ld, found '%c' in '%s'", width,
                       c.points[i].glyph, row, col, got, line);
    }
    free(out);
    rf__chart_free(f->ctx, &c);
}

RF_TEST(ascii_glyph_at_its_cell)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 0);
    check_glyph_cells(&f, m, 40);
    check_glyph_cells(&f, m, 80);
    check_glyph_cells(&f, m, 123);
    check_glyph_cells(&f, m, 200);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(ascii_widths)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    snprintf(f.names[2], sizeof f.names[2], "a.very.long.operation.name.x");
    rf_machine *m = machine(f.ctx, 1);
    const unsigned widths[] = {40, 80, 200, 10 /* below the minimum: 40 */};
    const unsigned heights[] = {12, 23, 30, 12};
    for (size_t k = 0; k < 4; k++) {
        char *out = render(&f, m, widths[k], 0), *lines[400];
        check_lines(out, widths[k] < 40 ? 40 : widths[k]);
        RF_EXPECT_CONTAINS(out, "arithmetic intensity (FLOP/byte)");
        size_t n = split(out, lines, 400);
        geometry g;
        RF_REQUIRE(find_geometry(lines, n, &g));
        RF_EXPECT_INT(g.ph, heights[k]);
        free(out);
    }
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(ascii_height_option)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_buf b;
    rf_buf_init(&b, f.ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = {.width = 100, .chart_height = 17};
    RF_REQUIRE(rf_report_chart_ascii(f.ctx, &f.r, NULL, &o, &w) == RF_OK);
    char *lines[400];
    size_t n = split(b.data, lines, 400);
    geometry g;
    RF_REQUIRE(find_geometry(lines, n, &g));
    RF_EXPECT_INT(g.ph, 17);
    RF_EXPECT_INT(g.left + g.pw, 100);
    rf_buf_free(&b);
    fixture_free(&f);
}

RF_TEST(ascii_axes_and_labels)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 0);
    char *out = render(&f, m, 80, 0);
    RF_EXPECT_CONTAINS(out, "attainable FLOP/s\n");
    RF_EXPECT_CONTAINS(out, " 1T |");
    RF_EXPECT_CONTAINS(out, "100G |");
    RF_EXPECT_CONTAINS(out, "0.01");
    RF_EXPECT_CONTAINS(out, "1k");
    RF_EXPECT_CONTAINS(out, "fp32.fma.avx512 7.17 TFLOP/s");
    RF_EXPECT_CONTAINS(out, "\n---- fp32.fma.avx512  7.17 TFLOP/s (datasheet)\n");
    RF_EXPECT_CONTAINS(out, "\n//// DRAM ");
    RF_EXPECT_CONTAINS(out, "\n.... L2 ");
    RF_EXPECT_CONTAINS(out, "\n+    ridge 23.3 FLOP/byte (DRAM); L2 3.58\n");
    RF_EXPECT(strchr(out, '/') && strstr(out, "--"));
    free(out);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(ascii_legend_lists_every_point)
{
    const double ai[] = {0.25, 1, 8, 60, 120, 2000, 0.5, 3};
    fixture f;
    fixture_init(&f, 8, ai);
    for (size_t i = 0; i < 8; i++) snprintf(f.names[i], sizeof f.names[i], "layer.%zu.op", i);
    char *out = render(&f, NULL, 80, 0);
    for (size_t i = 0; i < 8; i++) {
        char want[64];
        snprintf(want, sizeof want, "\n%c  layer.%zu.op  AI ", 'A' + (int)i, i);
        RF_EXPECT_CONTAINS(out, want);
    }
    RF_EXPECT_CONTAINS(out, "\nA  layer.0.op  AI 0.25  76.8 GFLOP/s  memory\n");
    RF_EXPECT_CONTAINS(out, "\nF  layer.5.op  AI   2k  7.17 TFLOP/s  compute\n");
    free(out);
    fixture_free(&f);
}

RF_TEST(ascii_utf8)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    snprintf(f.names[0], sizeof f.names[0], "caf\xc3\xa9.\xe5\xb1\x82.gather.long.name");
    snprintf(f.names[1], sizeof f.names[1], "bad\xff\xc3(\x01)\nname");
    rf_machine *m = machine(f.ctx, 1);
    const unsigned widths[] = {40, 80, 200};
    for (size_t k = 0; k < 3; k++) {
        char *out = render(&f, m, widths[k], 1);
        check_lines(out, widths[k]);
        RF_EXPECT_CONTAINS(out, "\xe2\x94\x82"); /* │ */
        RF_EXPECT_CONTAINS(out, "\xe2\x94\x94"); /* └ */
        RF_EXPECT_CONTAINS(out, "\xe2\x95\xb1"); /* ╱ */
        RF_EXPECT_CONTAINS(out, "\xc2\xb7");     /* · */
        RF_EXPECT_CONTAINS(out, "\xe2\x97\x86"); /* ◆ */
        if (widths[k] >= 80)
            RF_EXPECT_CONTAINS(out, "bad?"
                                    "?(?)?name");
        free(out);
    }
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(ascii_six_ceilings)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 1);
    char *out = render(&f, m, 80, 0);
    check_lines(out, 80);
    const char *legend[] = {"\n---- fp32.fma.avx512 ",
                            "\n//// DRAM ",
                            "\n.... fp64.fma.avx512 ",
                            "\n.... L1 ",
                            "\n.... L2 ",
                            "\n.... L3 "};
    for (size_t i = 0; i < 6; i++) RF_EXPECT_CONTAINS(out, legend[i]);
    RF_EXPECT_CONTAINS(out, "ridge 23.3 FLOP/byte (DRAM); L1 0.358, L2 3.58, L3 8.96");
    RF_EXPECT_CONTAINS(out, "fp64.fma.avx512 3.58 TFLOP/s"); /* labelled in the plot */
    RF_EXPECT_CONTAINS(out, "....");
    free(out);
    rf_machine_free(m);
    fixture_free(&f);
}

RF_TEST(ascii_single_point)
{
    const double ai[] = {4};
    fixture f;
    fixture_init(&f, 1, ai);
    check_glyph_cells(&f, NULL, 80);
    char *out = render(&f, NULL, 80, 0);
    check_lines(out, 80);
    RF_EXPECT_CONTAINS(out, "\nA  op0  AI 4  1.23 TFLOP/s  memory\n");
    RF_EXPECT(!strstr(out, "\nB  "));
    free(out);
    fixture_free(&f);
}

RF_TEST(ascii_zero_points)
{
    fixture f;
    fixture_init(&f, 0, six_ai);
    char *out = render(&f, NULL, 80, 0);
    check_lines(out, 80);
    RF_EXPECT_CONTAINS(out, "DRAM 307 GB/s");
    RF_EXPECT_CONTAINS(out, "+    ridge 23.3 FLOP/byte (DRAM)\n");
    RF_EXPECT(strstr(out, "//") && strstr(out, "---"));
    RF_EXPECT(!strstr(out, "\nA  "));
    RF_EXPECT(!strstr(out, "not plotted"));
    free(out);
    fixture_free(&f);
}

RF_TEST(ascii_same_place_and_not_plotted)
{
    fixture f;
    fixture_init(&f, 1, six_ai);
    const double flops[] = {8e9, 8e9, 0, 0, 1e12}, bytes[] = {1e9, 1e9, 0, 5, 0};
    f.r.totals.time_s = 0;
    fixture_rows(&f, 5, flops, bytes);
    char *out = render(&f, NULL, 80, 0);
    check_lines(out, 80);
    /* B at A's place: counted on A's line, no line of its own (the table names it) */
    RF_EXPECT_CONTAINS(out, "(+1 more here)\n");
    RF_EXPECT(!strstr(out, "\nB  "));
    RF_EXPECT_CONTAINS(out, "\nnot plotted: 1 undefined, 1 with no FLOPs\n");
    RF_EXPECT_CONTAINS(out, "\nC  op4  AI inf  7.17 TFLOP/s  compute\n");
    free(out);
    fixture_free(&f);
}

RF_TEST(ascii_clamped_point)
{
    const double ai[] = {1e-12, 10};
    fixture f;
    fixture_init(&f, 2, ai);
    check_glyph_cells(&f, NULL, 80);
    char *out = render(&f, NULL, 80, 0);
    RF_EXPECT_CONTAINS(out, "AI 1e-12  0.307 FLOP/s  memory  (off scale)\n");
    free(out);
    fixture_free(&f);
}

RF_TEST(ascii_identical_runs)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 1);
    char *a = render(&f, m, 97, 0), *b = render(&f, m, 97, 0);
    RF_EXPECT_STR(a, b);
    free(a);
    free(b);
    rf_machine_free(m);
    fixture_free(&f);
}

static rf_status fail_writer(void *user, const char *data, size_t size)
{
    (void)data, (void)size;
    return --*(int *)user <= 0 ? RF_IO : RF_OK;
}

RF_TEST(ascii_errors)
{
    fixture f;
    fixture_init(&f, 6, six_ai);
    rf_machine *m = machine(f.ctx, 1);
    for (int k = 1; k < 40; k += 7) {
        int left = k;
        rf_writer w = {fail_writer, &left};
        RF_EXPECT_INT(rf_report_chart_ascii(f.ctx, &f.r, m, NULL, &w), RF_IO);
    }
    rf_writer none = {fail_writer, NULL};
    RF_EXPECT_INT(rf_report_chart_ascii(f.ctx, NULL, m, NULL, &none), RF_USAGE);
    /* Every allocation failing in turn: RF_NOMEM, never a crash or a leak. */
    for (uint64_t n = 1; n < 12; n++) {
        rf_buf b;
        rf_buf_init(&b, f.ctx, 0);
        rf_writer w = rf_buf_writer(&b);
        rf_ctx_fail_alloc_after(f.ctx, n, 1);
        rf_status st = rf_report_chart_ascii(f.ctx, &f.r, m, NULL, &w);
        rf_ctx_fail_alloc_after(f.ctx, 0, 0);
        RF_EXPECT(st == RF_OK || st == RF_NOMEM);
        rf_buf_free(&b);
    }
    rf_machine_free(m);
    fixture_free(&f);
}
