/* chart_ascii.c — the terminal back end of the roofline chart (rf_report_chart_ascii): a grid of
 * characters sized to the terminal, filled through the draw methods of chart.h (hwloc's
 * lstopo-ascii.c), then a legend. Never lays anything out itself: positions come from
 * rf__chart_draw. Output depends only on its input (no time, no locale, no colour). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chart_ascii_int.h"

#define RF__WIDTH_MIN 40u
#define RF__WIDTH_MAX 1000u /* bounds the grid's memory; wider terminals get 1000 columns */

/* ---- the grid -------------------------------------------------------------------------------- */

static rf__cell *rf__at(rf__ascii *a, long row, long col)
{
    if (row < 0 || col < 0 || row >= (long)a->rows || col >= (long)a->width) return NULL;
    return &a->cells[(size_t)row * a->width + (size_t)col];
}

static void rf__put(rf__ascii *a, long row, long col, uint32_t ch, int layer)
{
    rf__cell *cl = rf__at(a, row, col);
    if (cl && layer >= cl->layer) cl->ch = ch, cl->layer = (uint8_t)layer;
}

/* Normalised plot space to grid cells: cell centres sit at n * (cells - 1). */
static long rf__col(const rf__ascii *a, double x)
{
    return (long)a->left + lround(x * (a->pw - 1));
}
static long rf__row(const rf__ascii *a, double y)
{
    return (long)a->top + (long)a->ph - 1 - lround(y * (a->ph - 1));
}

/* Place `s` at row/col when every cell from col-gap to the end+gap is free of layer > `below`;
 * `s` is cut at its first space when `name_only`. Returns 1 when placed. */
static int rf__place(rf__ascii *a, long row, long col, const char *s, int name_only, int below,
                     int gap)
{
    size_t n = 0, i = 0;
    while (s[i] && !(name_only && s[i] == ' ')) rf__next_cp(s, &i), n++;
    for (long k = col - gap; k < col + (long)n + gap; k++) {
        rf__cell *cl = rf__at(a, row, k);
        if (!cl && k >= col && k < col + (long)n) return 0;
        if (cl && cl->layer > below) return 0;
    }
    i = 0;
    for (long k = col; k < col + (long)n; k++) rf__put(a, row, k, rf__next_cp(s, &i), RF__L_TEXT);
    return 1;
}

/* Place `s` from row/col to the right edge at most, cut with '~' ('…') when longer (titles). */
static void rf__place_fit(rf__ascii *a, long row, long col, const char *s)
{
    size_t n = rf__cols(s), room = col < (long)a->width ? a->width - (size_t)col : 0, i = 0;
    size_t keep = n <= room ? n : room ? room - 1 : 0;
    for (size_t k = 0; k < keep; k++)
        rf__put(a, row, col + (long)k, rf__next_cp(s, &i), RF__L_TEXT);
    if (n > room && room) rf__put(a, row, col + (long)keep, a->utf8 ? 0x2026 : '~', RF__L_TEXT);
}

static rf_status rf__a_begin(void *user, const rf__chart *c)
{
    rf__ascii *a = user;
    size_t lw = 0;
    for (size_t i = 0; i < c->y.n_ticks; i++)
        if (strlen(c->y.ticks[i].label) > lw) lw = strlen(c->y.ticks[i].label);
    a->c = c;
    a->left = (unsigned)lw + 2;
    a->pw = a->width - a->left;
    a->top = a->brief ? 1 : 2;    /* brief: no title (the report's first line says it) */
    a->rows = a->ph + a->top + 3; /* title, y title, plot, x axis, x labels, x title */
    a->cells = rf__calloc(a->ctx, (size_t)a->rows * a->width, sizeof *a->cells);
    a->same_as = rf__calloc(a->ctx, c->n_points + 1, sizeof *a->same_as);
    if (!a->cells || !a->same_as) return RF_NOMEM_ERR(a->ctx);
    for (size_t i = 0; i < (size_t)a->rows * a->width; i++) a->cells[i] = (rf__cell){' ', -1, 0};
    for (size_t i = 0; i < c->n_points; i++) a->same_as[i] = SIZE_MAX;
    return RF_OK;
}

/* The density of a big input's other rows (chart_density.c), shaded in three steps of the log
 * of the rows per character cell, under the axes, roofs and markers. */
static const uint32_t rf__shade_utf8[3] = {0x2591, 0x2592, 0x2593}; /* light, medium, dark */
static const uint32_t rf__shade_ascii[3] = {'.', ':', '%'};

static rf_status rf__a_end(void *user)
{
    rf__ascii *a = user;
    const rf__chart *c = a->c;
    if (!c->density || !c->dens_max) return RF_OK;
    uint32_t *n = rf__calloc(a->ctx, (size_t)a->rows * a->width, sizeof *n), most = 0;
    if (!n) return RF_NOMEM_ERR(a->ctx);
    const double step = 1.0 / RF__DENSITY_PER_DECADE;
    for (size_t j = 0; j < c->dens_ny; j++)
        for (size_t i = 0; i < c->dens_nx; i++) {
            uint32_t k = c->density[j * c->dens_nx + i];
            double x = rf__chart_nx(c, c->dens_x0 + ((double)i + 0.5) * step);
            double y = rf__chart_ny(c, c->dens_y0 + ((double)j + 0.5) * step);
            if (!k || !(x >= 0 && x <= 1 && y >= 0 && y <= 1)) continue;
            long row = rf__row(a, y), col = rf__col(a, x);
            if (!rf__at(a, row, col)) continue;
            uint32_t *t = &n[(size_t)row * a->width + (size_t)col];
            *t = *t > UINT32_MAX - k ? UINT32_MAX : *t + k;
            if (*t > most) most = *t;
        }
    for (size_t q = 0; q < (size_t)a->rows * a->width; q++) {
        if (!n[q]) continue;
        /* rows on a roof (estimates) round to a cell beside it: the roof stands for them */
        long row = (long)(q / a->width), col = (long)(q % a->width);
        int by_roof = 0;
        for (long d = -1; d <= 1; d++) {
            const rf__cell *nb = rf__at(a, row + d, col);
            by_roof |= nb && (nb->layer == RF__L_ROOF1 || nb->layer == RF__L_ROOF2);
        }
        if (by_roof) continue;
        int level = most > 1 ? (int)(3 * log((double)n[q]) / log((double)most + 1)) : 0;
        level = level < 0 ? 0 : level > 2 ? 2 : level;
        rf__put(a, row, col, a->utf8 ? rf__shade_utf8[level] : rf__shade_ascii[level], RF__L_DENS);
    }
    a->dens_most = most;
    rf__free(a->ctx, n);
    return RF_OK;
}

/* ---- lines ----------------------------------------------------------------------------------- */

static void rf__axis_line(rf__ascii *a, unsigned style, double x0, double y0, double x1)
{
    long axis_row = a->top + a->ph, ycol = a->left - 1;
    if (style == RF__LINE_GRID_X) { /* a tick; the corner stands for the one at the y axis */
        if (rf__col(a, x0) == (long)a->left) return;
        rf__put(a, axis_row, rf__col(a, x0), a->utf8 ? 0x2534 : '+', RF__L_AXIS);
    } else if (style == RF__LINE_GRID_Y) {
        rf__put(a, rf__row(a, y0), ycol, a->utf8 ? 0x2524 : '|', RF__L_AXIS);
    } else if (x1 > x0) { /* the x axis */
        for (long k = a->left; k < (long)a->width; k++)
            rf__put(a, axis_row, k, a->utf8 ? 0x2500 : '-', RF__L_AXIS);
        rf__put(a, axis_row, ycol, a->utf8 ? 0x2514 : '+', RF__L_AXIS);
    } else { /* the y axis */
        for (long r = a->top; r < axis_row; r++)
            rf__put(a, r, ycol, a->utf8 ? 0x2502 : '|', RF__L_AXIS);
    }
}

/* A roof, one grid column at a time: the rows its height crosses in that column get the roof's
 * character ('-' flat, '/' sloped, '.' for a secondary roof); a shallow roof moving into the next
 * row within a column keeps one cell, the row of the column's middle, so it reads as a line. */
static void rf__roof_line(rf__ascii *a, double x0, double y0, double x1, double y1, unsigned st)
{
    double u0 = x0 * (a->pw - 1), u1 = x1 * (a->pw - 1);
    double v0 = y0 * (a->ph - 1), v1 = y1 * (a->ph - 1);
    double slope = u1 > u0 ? (v1 - v0) / (u1 - u0) : 0;
    int primary = (st & RF__LINE_PRIMARY) != 0, layer = primary ? RF__L_ROOF1 : RF__L_ROOF2;
    uint32_t ch = a->utf8 ? 0xB7 : '.';
    if (primary && fabs(slope) < 1e-12)
        ch = a->utf8 ? 0x2500 : '-';
    else if (primary)
        ch = a->utf8 ? (slope > 0 ? 0x2571 : 0x2572) : (slope > 0 ? '/' : '\\');
    long base = (long)a->top + (long)a->ph - 1;
    for (long c = lround(u0); c <= lround(u1); c++) {
        double ua = fmax(u0, (double)c - 0.5), ub = fmin(u1, (double)c + 0.5);
        double va = v0 + (ua - u0) * slope, vb = v0 + (ub - u0) * slope;
        long lo = lround(fmin(va, vb)), hi = lround(fmax(va, vb));
        if (hi - lo <= 1) lo = hi = lround((va + vb) / 2);
        for (long k = lo; k <= hi; k++) rf__put(a, base - k, (long)a->left + c, ch, layer);
    }
}

/* The link from an estimate to its measurement: ':' in the cells between them (same column). */
static void rf__link_line(rf__ascii *a, double x0, double y0, double y1)
{
    long col = rf__col(a, x0), r0 = rf__row(a, y0), r1 = rf__row(a, y1);
    for (long r = (r0 < r1 ? r0 : r1) + 1; r < (r0 < r1 ? r1 : r0); r++)
        rf__put(a, r, col, ':', RF__L_ROOF2);
}

static rf_status rf__a_line(void *user, double x0, double y0, double x1, double y1, unsigned style)
{
    rf__ascii *a = user;
    unsigned kind = style & ~(unsigned)RF__LINE_PRIMARY;
    (void)x1;
    if (kind == RF__LINE_LINK) rf__link_line(a, x0, y0, y1);
    if (kind == RF__LINE_COMPUTE || kind == RF__LINE_BANDWIDTH)
        rf__roof_line(a, x0, y0, x1, y1, style);
    else if (kind == RF__LINE_GRID_X || kind == RF__LINE_GRID_Y || kind == RF__LINE_AXIS)
        rf__axis_line(a, kind, x0, y0, x1);
    return RF_OK;
}

/* ---- markers and text ------------------------------------------------------------------------ */

static rf_status rf__a_marker(void *user, double x, double y, const rf__mark *mk)
{
    rf__ascii *a = user;
    long row = rf__row(a, y), col = rf__col(a, x);
    if (mk->ridge) { /* only the analysis' ridge is marked; the others are in the legend */
        if (mk->primary) rf__put(a, row, col, a->utf8 ? 0x25C6 : '+', RF__L_RIDGE);
        return RF_OK;
    }
    rf__cell *cl = rf__at(a, row, col);
    if (!cl) return RF_OK;
    const rf__chart_point *p = &a->c->points[mk->index];
    int own = cl->point >= 0 && p->pair == (size_t)cl->point; /* on its own estimate: replace */
    if (cl->point >= 0 && !own) {
        a->same_as[mk->index] = (size_t)cl->point;
        return RF_OK;
    }
    /* An estimate with a measurement is 'o' (hollow); its measurement carries the letter. */
    uint32_t hollow = a->utf8 ? 0x25CB : 'o';
    cl->ch =
        (mk->flags & RF__POINT_HOLLOW) && p->pair != SIZE_MAX ? hollow : (unsigned char)mk->glyph;
    cl->layer = RF__L_POINT;
    cl->point = (int32_t)mk->index;
    return RF_OK;
}

/* Try `s` (or its name only) beside the roof at grid cell row/col: above then below a flat roof,
 * ending at col; below-right then above-left of a sloped one. Only over empty plot cells. */
static int rf__label_at(rf__ascii *a, long row, long col, const char *s, int name_only, int flat)
{
    size_t i = 0;
    long n = 0;
    while (s[i] && !(name_only && s[i] == ' ')) rf__next_cp(s, &i), n++;
    long at[2][2] = {{row - 1, col - n + 1}, {row + 1, col - n + 1}};
    if (!flat) at[0][0] = row + 1, at[0][1] = col + 1, at[1][0] = row - 1, at[1][1] = col - n;
    for (int k = 0; k < 2; k++) {
        if (at[k][0] < (long)a->top || at[k][0] >= (long)(a->top + a->ph)) continue;
        if (at[k][1] < (long)a->left) continue;
        if (rf__place(a, at[k][0], at[k][1], s, name_only, RF__L_DENS, 1)) return 1;
    }
    return 0;
}

/* A roof label: the whole label at the layout's label point, else the name alone there or further
 * along the roof, a column at a time (leftwards along a flat roof, up the first 3/4 of a sloped
 * one). Skipped when no place is free: the legend names every roof anyway. */
static void rf__roof_label(rf__ascii *a, const rf__chart_roof *ro, const char *s)
{
    const rf__chart *c = a->c;
    int flat = ro->kind == RF_CEILING_COMPUTE;
    long c0 = rf__col(a, rf__chart_nx(c, ro->x0)), c1 = rf__col(a, rf__chart_nx(c, ro->x1));
    long cl = rf__col(a, rf__chart_nx(c, ro->label_x));
    if (!flat) c1 = c0 + (c1 - c0) * 3 / 4;
    double slope = (ro->y1 - ro->y0) / (ro->x1 - ro->x0);
    for (long col = cl, name_only = 0; col >= c0 && col <= c1; col += flat ? -1 : 1) {
        double x = c->x.lo + (double)(col - (long)a->left) / (a->pw - 1) * (c->x.hi - c->x.lo);
        long row = rf__row(a, rf__chart_ny(c, ro->y0 + (x - ro->x0) * slope));
        if (!name_only && rf__label_at(a, row, col, s, 0, flat)) return;
        if (rf__label_at(a, row, col, s, 1, flat)) return;
        name_only = 1;
    }
}

static rf_status rf__a_text(void *user, double x, double y, const char *s, rf__text_kind kind,
                            size_t index)
{
    rf__ascii *a = user;
    long n = (long)rf__cols(s), axis_row = a->top + a->ph;
    switch (kind) {
    case RF__TEXT_TITLE:
        if (!a->brief) rf__place_fit(a, 0, 0, s);
        break;
    case RF__TEXT_AXIS_Y: rf__place_fit(a, a->top - 1, 0, s); break;
    case RF__TEXT_AXIS_X: {
        long col = (long)a->left + ((long)a->pw - n) / 2;
        rf__place_fit(a, axis_row + 2, col < 0 ? 0 : col, s);
        break;
    }
    case RF__TEXT_TICK_X: {
        long col = rf__col(a, x) - (n - 1) / 2;
        if (col + n > (long)a->width) col = (long)a->width - n;
        rf__place(a, axis_row + 1, col < 0 ? 0 : col, s, 0, RF__L_DENS, 1);
        break;
    }
    case RF__TEXT_TICK_Y:
        rf__place(a, rf__row(a, y), (long)a->left - 2 - n, s, 0, RF__L_DENS, 0);
        break;
    case RF__TEXT_ROOF_COMPUTE:
    case RF__TEXT_ROOF_BANDWIDTH: rf__roof_label(a, &a->c->roofs[index], s); break;
    }
    return RF_OK;
}

/* ---- output: the grid, then the legend ------------------------------------------------------- */

static rf_status rf__emit_grid(rf__ascii *a, rf__line *l, rf_writer *w)
{
    for (unsigned r = 0; r < a->rows; r++) {
        for (unsigned k = 0; k < a->width; k++)
            rf__line_cp(l, a->cells[(size_t)r * a->width + k].ch);
        RF_TRY(rf__line_flush(l, w));
    }
    return RF_OK;
}

static const rf__draw_methods rf__ascii_methods = {
    rf__a_begin, rf__a_line, rf__a_marker, rf__a_text, rf__a_end,
};

#define RF__BRIEF_WIDTH 100u /* the one-screen form: at most this wide, */
#define RF__BRIEF_ROWS 10u   /* and this many plot rows unless chart_height says */

static void rf__ascii_size(rf__ascii *a, const rf_report_opts *o)
{
    unsigned w = o && o->width ? o->width : 80, max = RF__WIDTH_MAX;
    a->brief = o && o->brief;
    if (a->brief) max = RF__BRIEF_WIDTH;
    a->width = w < RF__WIDTH_MIN ? RF__WIDTH_MIN : w > max ? max : w;
    unsigned h = o && o->chart_height ? o->chart_height
                 : a->brief           ? RF__BRIEF_ROWS
                                      : (unsigned)lround(a->width / 3.5);
    unsigned lo = o && o->chart_height ? 6 : a->brief ? RF__BRIEF_ROWS : 12;
    unsigned hi = o && o->chart_height ? 200 : 30;
    a->ph = h < lo ? lo : h > hi ? hi : h;
    a->utf8 = o && o->utf8;
}

rf_status rf_report_chart_ascii(rf_ctx *ctx, const rf_result *r, const rf_machine *m,
                                const rf_report_opts *o, rf_writer *w)
{
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_chart_ascii: missing argument");
    rf__ascii a = {.ctx = ctx};
    rf__ascii_size(&a, o);
    rf__chart c;
    rf__view v; /* a long result with rows_max: its slowest rows, the glyphs in table order */
    RF_TRY(rf__view_make(ctx, r, o, &v));
    rf_status st = rf__chart_layout(ctx, &v.r, m, &c);
    if (st != RF_OK) {
        rf__view_free(ctx, &v);
        return st;
    }
    rf__line l = {rf__malloc(ctx, (size_t)a.width * 4 + 8), 0, 0, a.width, a.utf8};
    if (!l.buf) {
        st = RF_NOMEM_ERR(ctx);
        goto done;
    }
    RF_TRY_GOTO(st, rf__chart_draw(&c, &rf__ascii_methods, &a), done);
    st = rf__emit_grid(&a, &l, w);
    if (st == RF_OK) st = rf__ascii_legend(&a, &l, w);
    if (st != RF_OK)
        rf__error(ctx, st, -1, "chart: cannot write the output (%s)", rf_status_str(st));
done:
    rf__free(ctx, l.buf);
    rf__free(ctx, a.cells);
    rf__free(ctx, a.same_as);
    rf__chart_free(ctx, &c);
    rf__view_free(ctx, &v);
    return st;
}
