/* chart_layout.c — the one layout step of the roofline chart, shared by every back end: decade
 * axes, one roof per ceiling, ridge points, one point per plottable row (DESIGN.md "Intensity and
 * bound"), and the walk that hands it to a back end in normalised plot space (chart.h,
 * docs/chart.md). Never prints, never rasterises: back ends do. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chart.h"
#include "core/rf_int.h"

#define RF__EPS 1e-9 /* slack for log10 of exact decades (log10(1e-2) may be -2 - 1ulp) */

void rf__chart_free(rf_ctx *ctx, rf__chart *c)
{
    if (!c) return;
    rf__free(ctx, c->roofs);
    rf__free(ctx, c->ridges);
    rf__free(ctx, c->points);
    rf__free(ctx, c->unplotted);
    rf__free(ctx, c->density);
    memset(c, 0, sizeof *c);
}

/* "0.01", "0.1", "1", "10", "100", "1k" ... "100E"; "1e-7" / "1e21" beyond. Exact, no rounding. */
static void rf__decade_label(char *buf, size_t size, int d)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
    static const char *const mant[] = {"1", "10", "100"};
    if (d >= 0 && d < 21) {
        snprintf(buf, size, "%s%s", mant[d % 3], pre[d / 3]);
    } else if (d < 0 && d >= -6) {
        snprintf(buf, size, "0.%.*s1", -d - 1, "00000");
    } else {
        snprintf(buf, size, "1e%d", d);
    }
}

static void rf__axis_ticks(rf__chart_axis *a, double lo, double hi, const char *title)
{
    a->lo = lo;
    a->hi = hi;
    a->title = title;
    a->n_ticks = 0;
    for (double d = lo; d <= hi + 0.5 && a->n_ticks < RF__CHART_TICKS_MAX; d += 1) {
        rf__chart_tick *t = &a->ticks[a->n_ticks++];
        t->v = d;
        rf__decade_label(t->label, sizeof t->label, (int)d);
    }
}

/* ---- roofs ----------------------------------------------------------------------------------- */

static rf_status rf__roof_check(rf_ctx *ctx, const rf_ceiling *ce)
{
    RF_CHECK(ctx, isfinite(ce->value) && ce->value > 0, RF_RANGE,
             "chart: ceiling '%s' must be finite and positive, got %g", ce->name, ce->value);
    return RF_OK;
}

static void rf__roof_set(rf__chart_roof *ro, const rf_ceiling *ce, int primary)
{
    memset(ro, 0, sizeof *ro);
    rf__strlcpy(ro->name, ce->name, sizeof ro->name);
    ro->kind = ce->kind;
    ro->provenance = ce->provenance;
    ro->value = ce->value;
    ro->primary = primary;
    const char *unit = ce->kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
    rf_si_format(ro->value_text, sizeof ro->value_text, ce->value, 3, unit);
    size_t len = 0;
    rf__appendf(ro->label, sizeof ro->label, &len, "%s %s%s", ro->name, ro->value_text,
                ce->kind == RF_CEILING_NETWORK ? " (network)" : "");
}

static int rf__same_ceiling(const rf_ceiling *a, const rf_ceiling *b)
{
    return a->kind == b->kind && rf__strcasecmp(a->name, b->name) == 0;
}

/* Roofs in order: primary compute, primary bandwidth, the others of `m` in machine order. The
 * primary ones carry the analysis' figures (the points were evaluated against them). */
static rf_status rf__layout_roofs(rf_ctx *ctx, const rf_result *r, const rf_machine *m,
                                  rf__chart *c)
{
    size_t n = 3 + (m ? m->n_ceilings : 0);
    c->roofs = rf__calloc(ctx, n, sizeof *c->roofs);
    if (!c->roofs) return RF_NOMEM_ERR(ctx);
    RF_TRY(rf__roof_check(ctx, &r->compute));
    RF_TRY(rf__roof_check(ctx, &r->bandwidth));
    RF_CHECK(ctx,
             r->compute.kind == RF_CEILING_COMPUTE && r->bandwidth.kind == RF_CEILING_BANDWIDTH,
             RF_USAGE, "chart: the result's ceilings are not a compute and a bandwidth ceiling");
    rf__roof_set(&c->roofs[0], &r->compute, 1);
    rf__roof_set(&c->roofs[1], &r->bandwidth, 1);
    c->n_roofs = 2;
    const int net = r->network.value > 0;
    if (net) { /* the third roof: points bound by it sit at their network intensity */
        RF_TRY(rf__roof_check(ctx, &r->network));
        rf__roof_set(&c->roofs[c->n_roofs++], &r->network, 1);
    }
    for (size_t i = 0; m && i < m->n_ceilings; i++) {
        const rf_ceiling *ce = &m->ceilings[i];
        if (rf__same_ceiling(ce, &r->compute) || rf__same_ceiling(ce, &r->bandwidth) ||
            (net && rf__same_ceiling(ce, &r->network)))
            continue;
        /* the decode kernels' ceilings (q4_k.gemv.avx512) bound weight bytes, not a memory level:
         * drawn only when chosen as the roof */
        if (ce->kind == RF_CEILING_BANDWIDTH && strstr(ce->name, ".gemv.")) continue;
        RF_TRY(rf__roof_check(ctx, ce));
        rf__roof_set(&c->roofs[c->n_roofs++], ce, 0);
    }
    return RF_OK;
}

/* The group of a roof: its precision or memory level (RF__CHART_ROOFS_ALL), as a length of its
 * name; a network roof is its own group. */
static size_t rf__roof_group(const rf__chart_roof *ro)
{
    size_t n = 0;
    while (ro->name[n] && ro->name[n] != '.' &&
           (ro->kind == RF_CEILING_COMPUTE || ro->name[n] != ' '))
        n++;
    return n;
}

static int rf__same_group(const rf__chart_roof *a, const rf__chart_roof *b)
{
    size_t n = rf__roof_group(a);
    return a->kind == b->kind && a->kind != RF_CEILING_NETWORK && n == rf__roof_group(b) &&
           rf__strncasecmp(a->name, b->name, n) == 0;
}

/* Flag the roofs that do not matter (RF__CHART_ROOFS_ALL): quadratic in the roofs, which are few
 * (a machine file holds at most a few dozen ceilings). */
static void rf__layout_minor(rf__chart *c)
{
    if (c->n_roofs <= RF__CHART_ROOFS_ALL) return;
    for (size_t i = 0; i < c->n_roofs; i++) {
        rf__chart_roof *ro = &c->roofs[i];
        if (ro->primary) continue;
        for (size_t j = 0; j < c->n_roofs && !ro->minor; j++) {
            const rf__chart_roof *o = &c->roofs[j];
            if (j == i || !rf__same_group(ro, o)) continue; /* a primary one counts too */
            if (o->value > ro->value || (o->value == ro->value && j < i)) ro->minor = 1;
        }
        c->n_minor += (size_t)ro->minor;
    }
}

/* Ridges of the primary compute roof against every bandwidth roof, the primary one first. */
static rf_status rf__layout_ridges(rf_ctx *ctx, rf__chart *c)
{
    c->ridges = rf__calloc(ctx, c->n_roofs, sizeof *c->ridges);
    if (!c->ridges) return RF_NOMEM_ERR(ctx);
    const double peak = c->roofs[0].value;
    for (size_t i = 1; i < c->n_roofs; i++) {
        if (c->roofs[i].kind == RF_CEILING_COMPUTE) continue;
        rf__chart_ridge *g = &c->ridges[c->n_ridges++];
        g->ai = peak / c->roofs[i].value;
        /* 1 TFLOP/s over 1e-300 B/s: a ridge past DBL_MAX has no place on a log axis */
        RF_CHECK(ctx, isfinite(g->ai) && g->ai > 0, RF_RANGE,
                 "chart: the ridge of '%s' (%s) over '%s' (%s) is %g FLOP/byte, too far out to "
                 "draw; give ceilings within a factor of 1e300 of each other",
                 c->roofs[0].name, c->roofs[0].value_text, c->roofs[i].name, c->roofs[i].value_text,
                 g->ai);
        g->x = log10(g->ai);
        g->y = log10(peak);
        g->roof = i;
        g->primary = c->roofs[i].primary && c->roofs[i].kind == RF_CEILING_BANDWIDTH;
        rf_si_format_compact(g->ai_text, sizeof g->ai_text, g->ai, "");
    }
    return RF_OK;
}

/* ---- points ---------------------------------------------------------------------------------- */

static char rf__glyph(size_t i)
{
    if (i < 26) return (char)('A' + i);
    if (i < 52) return (char)('a' + (i - 26));
    if (i < 62) return (char)('0' + (i - 52));
    return '*';
}

/* A measured point for every plotted row with a measured time (achieved FLOP/s finite and > 0),
 * after the estimates; every estimate is then drawn hollow. */
static void rf__layout_measured(const rf_result *r, rf__chart *c)
{
    size_t n = c->n_points;
    for (size_t i = 0; i < n; i++) {
        rf__chart_point *est = &c->points[i];
        const rf_achieved *a = r->rows[est->row].measured;
        if (!a || !isfinite(a->flops_per_s) || !(a->flops_per_s > 0)) continue;
        rf__chart_point *p = &c->points[c->n_points];
        *p = *est;
        p->attainable_flops_per_s = a->flops_per_s;
        p->y = log10(a->flops_per_s);
        p->flags = (est->flags & RF__POINT_INF_AI) | RF__POINT_MEASURED;
        p->pair = i;
        rf_si_format(p->attainable_text, sizeof p->attainable_text, a->flops_per_s, 3, "FLOP/s");
        est->pair = c->n_points++;
        c->n_measured++;
    }
    for (size_t i = 0; c->n_measured && i < n; i++) c->points[i].flags |= RF__POINT_HOLLOW;
}

/* One point per row with a finite attainable > 0 (of a big input: per row kept, rf__chart_keep);
 * the others are listed as not plotted. Points get their raw data-space position here;
 * rf__clamp_points moves them inside the axes. */
static rf_status rf__layout_points(rf_ctx *ctx, const rf_result *r, rf__chart *c,
                                   const unsigned char *keep, size_t n_kept)
{
    if (!r->n_rows) return RF_OK;
    size_t n_max = keep ? n_kept : r->n_rows;
    c->points = rf__calloc(ctx, 2 * n_max, sizeof *c->points); /* estimates + measurements */
    c->unplotted = rf__calloc(ctx, r->n_rows, sizeof *c->unplotted);
    if (!c->points || !c->unplotted) return RF_NOMEM_ERR(ctx);
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_eval *e = &r->rows[i].e;
        rf__unplotted_why why;
        if (!rf__chart_plottable(e, &why)) {
            c->unplotted[c->n_unplotted++] = (rf__chart_unplotted){i, why};
            *(why == RF__UNPLOTTED_NO_FLOPS ? &c->n_no_flops : &c->n_undefined) += 1;
            continue;
        }
        if (keep && !keep[i]) continue; /* in the density */
        rf__chart_point *p = &c->points[c->n_points];
        p->row = i;
        p->name = r->rows[i].name ? r->rows[i].name : "";
        /* A network-bound point sits under the network roof: at its FLOPs per network byte. */
        p->ai = e->bound == RF_BOUND_NETWORK ? e->net_ai : e->ai;
        p->attainable_flops_per_s = e->attainable_flops_per_s;
        p->glyph = rf__glyph(c->n_points++);
        p->bound = e->bound;
        p->share = r->totals.time_s > 0 ? e->time_s / r->totals.time_s : 0;
        if (!(p->share >= 0)) p->share = 0;
        if (p->share > 1) p->share = 1;
        p->flags = isinf(p->ai) ? RF__POINT_INF_AI : 0;
        p->x = isinf(p->ai) ? 0 : log10(p->ai);
        p->y = log10(e->attainable_flops_per_s);
        p->pair = SIZE_MAX;
        rf_si_format_compact(p->ai_text, sizeof p->ai_text, p->ai, "");
        rf_si_format(p->attainable_text, sizeof p->attainable_text, e->attainable_flops_per_s, 3,
                     "FLOP/s");
    }
    rf__layout_measured(r, c);
    return RF_OK;
}

static void rf__clamp_points(rf__chart *c)
{
    for (size_t i = 0; i < c->n_points; i++) {
        rf__chart_point *p = &c->points[i];
        double x = p->flags & RF__POINT_INF_AI ? c->x.hi : p->x;
        double y = p->y;
        if (x < c->x.lo) x = c->x.lo, p->flags |= RF__POINT_CLAMPED;
        if (x > c->x.hi) x = c->x.hi, p->flags |= RF__POINT_CLAMPED;
        if (y < c->y.lo) y = c->y.lo, p->flags |= RF__POINT_CLAMPED;
        if (y > c->y.hi) y = c->y.hi, p->flags |= RF__POINT_CLAMPED;
        p->x = x;
        p->y = y;
        if (p->flags & RF__POINT_CLAMPED) c->n_clamped++;
    }
}

/* ---- axes ------------------------------------------------------------------------------------ */

/* Whole decades with at least one decade of margin beyond [lo, hi]. */
static double rf__dec_lo(double v)
{
    return floor(v - 1 + RF__EPS);
}
static double rf__dec_hi(double v)
{
    return ceil(v + 1 - RF__EPS);
}

/* Shrink [*a, *b] to at most `max` decades: keep [ka, kb] (itself cut to `max` from the top) and
 * grow it toward *a and *b a decade at a time, low side first. */
static void rf__dec_cap(double *a, double *b, double ka, double kb, int max)
{
    if (*b - *a <= max) return;
    if (kb - ka > max) ka = kb - max;
    while (kb - ka < max && (ka > *a || kb < *b)) {
        if (ka > *a) ka -= 1;
        if (kb - ka < max && kb < *b) kb += 1;
    }
    *a = ka;
    *b = kb;
}

static void rf__dec_min(double *a, double *b, int min)
{
    while (*b - *a < min) {
        *a -= 1;
        if (*b - *a < min) *b += 1;
    }
}

/* x: every ridge and every point with a finite AI, a decade of margin, 4 to 10 decades. */
static void rf__layout_x(rf__chart *c)
{
    double rlo = INFINITY, rhi = -INFINITY;
    for (size_t i = 0; i < c->n_ridges; i++) {
        if (c->roofs[c->ridges[i].roof].minor) continue;
        rlo = fmin(rlo, c->ridges[i].x);
        rhi = fmax(rhi, c->ridges[i].x);
    }
    double lo = rlo, hi = rhi;
    for (size_t i = 0; i < c->n_points; i++) {
        if (c->points[i].flags & RF__POINT_INF_AI) continue;
        lo = fmin(lo, c->points[i].x);
        hi = fmax(hi, c->points[i].x);
    }
    if (c->n_summarised) lo = fmin(lo, c->sum_x[0]), hi = fmax(hi, c->sum_x[1]);
    double a = rf__dec_lo(lo), b = rf__dec_hi(hi);
    rf__dec_cap(&a, &b, rf__dec_lo(rlo), rf__dec_hi(rhi), RF__CHART_X_DECADES_MAX);
    rf__dec_min(&a, &b, 4);
    rf__axis_ticks(&c->x, a, b, "arithmetic intensity (FLOP/byte)");
}

/* y: every compute roof, ridge and point with a decade of margin below and a sixth of one above
 * (room for a roof label, not a spare decade: a 351 GFLOP/s peak gets a 1T top, not 10T), and
 * the primary bandwidth roof from the left edge (so it enters at the left, not through the
 * floor); 3 to 12 decades. */
static void rf__layout_y(rf__chart *c)
{
    double rlo = INFINITY, rhi = -INFINITY;
    for (size_t i = 0; i < c->n_roofs; i++) {
        if (c->roofs[i].kind != RF_CEILING_COMPUTE || c->roofs[i].minor) continue;
        rlo = fmin(rlo, log10(c->roofs[i].value));
        rhi = fmax(rhi, log10(c->roofs[i].value));
    }
    double lo = rlo, hi = rhi; /* a measured point may lie above every roof */
    for (size_t i = 0; i < c->n_points; i++) lo = fmin(lo, c->points[i].y);
    for (size_t i = 0; i < c->n_points; i++) hi = fmax(hi, c->points[i].y);
    if (c->n_summarised) lo = fmin(lo, c->sum_y[0]), hi = fmax(hi, c->sum_y[1]);
    double a = rf__dec_lo(lo), b = ceil(hi + 1.0 / 6 - RF__EPS);
    a = fmin(a, floor(c->x.lo + log10(c->roofs[1].value) + RF__EPS));
    rf__dec_cap(&a, &b, rf__dec_lo(rlo), b, RF__CHART_Y_DECADES_MAX);
    rf__dec_min(&a, &b, 3);
    rf__axis_ticks(&c->y, a, b, "attainable FLOP/s");
}

/* ---- roof segments --------------------------------------------------------------------------- */

/* Clip the segment of `ro` to the axes; clears `visible` when nothing (or a point) is left. */
static void rf__clip(const rf__chart *c, rf__chart_roof *ro)
{
    double t0, t1, dx = ro->x1 - ro->x0, dy = ro->y1 - ro->y0;
    if (!rf__clip_segment(ro->x0, ro->y0, dx, dy, c->x.lo, c->x.hi, c->y.lo, c->y.hi, &t0, &t1) ||
        t0 >= t1) {
        ro->visible = 0;
        return;
    }
    double x0 = ro->x0, y0 = ro->y0;
    ro->x0 = x0 + t0 * dx, ro->y0 = y0 + t0 * dy;
    ro->x1 = x0 + t1 * dx, ro->y1 = y0 + t1 * dy;
}

/* Bandwidth roofs rise from the left edge to the top compute roof; compute roofs run flat from the
 * highest bandwidth roof to the right edge. */
static void rf__layout_segments(rf__chart *c)
{
    double top = -INFINITY, bwmax = -INFINITY;
    for (size_t i = 0; i < c->n_roofs; i++) {
        double v = log10(c->roofs[i].value);
        if (c->roofs[i].kind == RF_CEILING_COMPUTE)
            top = fmax(top, v);
        else
            bwmax = fmax(bwmax, v);
    }
    for (size_t i = 0; i < c->n_roofs; i++) {
        rf__chart_roof *ro = &c->roofs[i];
        double v = log10(ro->value);
        if (ro->kind != RF_CEILING_COMPUTE) {
            ro->x0 = c->x.lo, ro->y0 = c->x.lo + v;
            ro->x1 = top - v, ro->y1 = top;
        } else {
            ro->x0 = v - bwmax, ro->y0 = v;
            ro->x1 = c->x.hi, ro->y1 = v;
        }
        ro->visible = ro->x1 > ro->x0;
        if (ro->visible) rf__clip(c, ro);
        if (!ro->visible) continue;
        if (ro->kind == RF_CEILING_COMPUTE) {
            ro->label_x = ro->x1, ro->label_y = ro->y1;
        } else { /* a little way along from where it enters the plot */
            double t = fmin(1, 0.04 * (c->x.hi - c->x.lo) / (ro->x1 - ro->x0));
            ro->label_x = ro->x0 + t * (ro->x1 - ro->x0);
            ro->label_y = ro->y0 + t * (ro->y1 - ro->y0);
        }
    }
}

static void rf__layout_title(const rf_result *r, rf__chart *c)
{
    size_t len = 0;
    if (r->title[0] && r->machine[0])
        rf__appendf(c->title, sizeof c->title, &len, "%s on %s", r->title, r->machine);
    else
        rf__appendf(c->title, sizeof c->title, &len, "%s",
                    r->title[0]     ? r->title
                    : r->machine[0] ? r->machine
                                    : "roofline");
}

/* Every coordinate a back end will scale must be finite: NaN reaches lround() in the ASCII back
 * end (undefined) and "nan" in SVG attributes. The checks above keep them so; this is the net. */
static rf_status rf__layout_check(rf_ctx *ctx, const rf__chart *c)
{
    const char *bad = NULL;
    if (!isfinite(c->x.lo) || !isfinite(c->x.hi) || !(c->x.hi > c->x.lo)) bad = "the x axis";
    if (!isfinite(c->y.lo) || !isfinite(c->y.hi) || !(c->y.hi > c->y.lo)) bad = "the y axis";
    for (size_t i = 0; !bad && i < c->n_ridges; i++)
        if (!isfinite(c->ridges[i].x) || !isfinite(c->ridges[i].y)) bad = "a ridge point";
    for (size_t i = 0; !bad && i < c->n_points; i++)
        if (!isfinite(c->points[i].x) || !isfinite(c->points[i].y)) bad = "a point";
    for (size_t i = 0; !bad && i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        if (ro->visible && !(isfinite(ro->x0) && isfinite(ro->y0) && isfinite(ro->x1) &&
                             isfinite(ro->y1) && isfinite(ro->label_x) && isfinite(ro->label_y)))
            bad = "a roof";
    }
    RF_CHECK(ctx, !bad, RF_RANGE,
             "chart: %s has no finite position; the figures span too wide a range to draw", bad);
    return RF_OK;
}

rf_status rf__chart_layout(rf_ctx *ctx, const rf_result *r, const rf_machine *m, rf__chart *out)
{
    RF_CHECK(ctx, r && out, RF_USAGE, "rf__chart_layout: missing argument");
    memset(out, 0, sizeof *out);
    rf_status st;
    unsigned char *keep = NULL;
    size_t n_kept = 0;
    RF_TRY_GOTO(st, rf__layout_roofs(ctx, r, m, out), fail);
    rf__layout_minor(out);
    RF_TRY_GOTO(st, rf__layout_ridges(ctx, out), fail);
    RF_TRY_GOTO(st, rf__chart_keep(ctx, r, &keep, &n_kept), fail);
    rf__chart_summarise(out, r, keep);
    RF_TRY_GOTO(st, rf__layout_points(ctx, r, out, keep, n_kept), fail);
    rf__layout_x(out);
    rf__layout_y(out);
    RF_TRY_GOTO(st, rf__chart_density(ctx, out, r, keep), fail);
    rf__free(ctx, keep);
    keep = NULL;
    rf__clamp_points(out);
    rf__layout_segments(out);
    rf__layout_title(r, out);
    RF_TRY_GOTO(st, rf__layout_check(ctx, out), fail);
    return RF_OK;
fail:
    rf__free(ctx, keep);
    rf__chart_free(ctx, out);
    return st;
}

/* Several results on shared axes: the union of their windows, at most the maximum decades (the
 * first chart's window is kept and grown toward the others). Points are placed and clamped again
 * from their figures and the roofs re-clipped, so every chart stays consistent with its axes. */
void rf__chart_share_axes(rf__chart *charts, size_t n)
{
    if (n < 2) return;
    double xa = charts[0].x.lo, xb = charts[0].x.hi, ya = charts[0].y.lo, yb = charts[0].y.hi;
    double xlo = xa, xhi = xb, ylo = ya, yhi = yb;
    for (size_t k = 1; k < n; k++) {
        xlo = fmin(xlo, charts[k].x.lo), xhi = fmax(xhi, charts[k].x.hi);
        ylo = fmin(ylo, charts[k].y.lo), yhi = fmax(yhi, charts[k].y.hi);
    }
    rf__dec_cap(&xlo, &xhi, xa, xb, RF__CHART_X_DECADES_MAX);
    rf__dec_cap(&ylo, &yhi, ya, yb, RF__CHART_Y_DECADES_MAX);
    for (size_t k = 0; k < n; k++) {
        rf__chart *c = &charts[k];
        rf__axis_ticks(&c->x, xlo, xhi, c->x.title);
        rf__axis_ticks(&c->y, ylo, yhi, c->y.title);
        c->n_clamped = 0;
        for (size_t i = 0; i < c->n_points; i++) {
            rf__chart_point *p = &c->points[i];
            p->flags &= ~RF__POINT_CLAMPED;
            p->x = isinf(p->ai) ? 0 : log10(p->ai);
            p->y = log10(p->attainable_flops_per_s);
        }
        rf__clamp_points(c);
        rf__layout_segments(c);
    }
}

/* Points only, in row order (further series of a chart with several results). */
rf_status rf__chart_draw_points(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    for (size_t i = 0; i < c->n_points; i++) {
        const rf__chart_point *p = &c->points[i];
        if ((p->flags & RF__POINT_MEASURED) && p->pair < c->n_points) {
            const rf__chart_point *e = &c->points[p->pair];
            RF_TRY(dm->line(user, rf__chart_nx(c, e->x), rf__chart_ny(c, e->y),
                            rf__chart_nx(c, p->x), rf__chart_ny(c, p->y), RF__LINE_LINK));
        }
        rf__mark mk = {0, i, p->glyph, p->bound, 0, p->flags, p->share};
        RF_TRY(dm->marker(user, rf__chart_nx(c, p->x), rf__chart_ny(c, p->y), &mk));
    }
    return RF_OK;
}

/* ---- the walk -------------------------------------------------------------------------------- */

static rf_status rf__draw_frame(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    RF_TRY(dm->text(user, 0, 1, c->title, RF__TEXT_TITLE, 0));
    RF_TRY(dm->line(user, 0, 0, 1, 0, RF__LINE_AXIS));
    RF_TRY(dm->line(user, 0, 0, 0, 1, RF__LINE_AXIS));
    for (size_t i = 0; i < c->x.n_ticks; i++) {
        double x = rf__chart_nx(c, c->x.ticks[i].v);
        RF_TRY(dm->line(user, x, 0, x, 1, RF__LINE_GRID_X));
        RF_TRY(dm->text(user, x, 0, c->x.ticks[i].label, RF__TEXT_TICK_X, i));
    }
    for (size_t i = 0; i < c->y.n_ticks; i++) {
        double y = rf__chart_ny(c, c->y.ticks[i].v);
        RF_TRY(dm->line(user, 0, y, 1, y, RF__LINE_GRID_Y));
        RF_TRY(dm->text(user, 0, y, c->y.ticks[i].label, RF__TEXT_TICK_Y, i));
    }
    RF_TRY(dm->text(user, 0.5, 0, c->x.title, RF__TEXT_AXIS_X, 0));
    return dm->text(user, 0, 0.5, c->y.title, RF__TEXT_AXIS_Y, 0);
}

/* Secondary roofs first, then primary ones over them; in each, bandwidth roofs before compute
 * roofs (so a flat roof is drawn over the top end of the slopes that reach it). */
static rf_status rf__draw_roofs(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    for (int pass = 0; pass < 4; pass++)
        for (size_t i = 0; i < c->n_roofs; i++) {
            const rf__chart_roof *ro = &c->roofs[i];
            if (!ro->visible || ro->primary != pass / 2 || (ro->minor && !c->show_minor)) continue;
            if ((ro->kind == RF_CEILING_COMPUTE) != (pass % 2)) continue;
            unsigned style = ro->kind == RF_CEILING_COMPUTE ? RF__LINE_COMPUTE : RF__LINE_BANDWIDTH;
            if (ro->primary) style |= RF__LINE_PRIMARY;
            RF_TRY(dm->line(user, rf__chart_nx(c, ro->x0), rf__chart_ny(c, ro->y0),
                            rf__chart_nx(c, ro->x1), rf__chart_ny(c, ro->y1), style));
        }
    return RF_OK;
}

/* Ridges (the primary one last, on top), then points in row order. */
static rf_status rf__draw_marks(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    for (size_t k = c->n_ridges; k-- > 0;) {
        const rf__chart_ridge *g = &c->ridges[k];
        if (g->x < c->x.lo || g->x > c->x.hi || g->y < c->y.lo || g->y > c->y.hi) continue;
        if (c->roofs[g->roof].minor) continue;
        rf__mark mk = {1, k, '+', RF_BOUND_UNDEFINED, g->primary, 0, 0};
        RF_TRY(dm->marker(user, rf__chart_nx(c, g->x), rf__chart_ny(c, g->y), &mk));
    }
    return rf__chart_draw_points(c, dm, user);
}

/* Roof labels last, primary roofs first (they get the free space). */
static rf_status rf__draw_labels(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    for (int pass = 1; pass >= 0; pass--)
        for (size_t i = 0; i < c->n_roofs; i++) {
            const rf__chart_roof *ro = &c->roofs[i];
            if (!ro->visible || ro->primary != pass || ro->minor) continue;
            rf__text_kind kind =
                ro->kind == RF_CEILING_COMPUTE ? RF__TEXT_ROOF_COMPUTE : RF__TEXT_ROOF_BANDWIDTH;
            RF_TRY(dm->text(user, rf__chart_nx(c, ro->label_x), rf__chart_ny(c, ro->label_y),
                            ro->label, kind, i));
        }
    return RF_OK;
}

rf_status rf__chart_draw(const rf__chart *c, const rf__draw_methods *dm, void *user)
{
    RF_TRY(dm->begin(user, c));
    RF_TRY(rf__draw_frame(c, dm, user));
    RF_TRY(rf__draw_roofs(c, dm, user));
    RF_TRY(rf__draw_marks(c, dm, user));
    RF_TRY(rf__draw_labels(c, dm, user));
    return dm->end(user);
}
