/* chart_labels.c — the label layout step of the SVG and HTML charts: each roof label is an oriented
 * rectangle slid along its roof, on one side then the other, until it touches no roof, marker,
 * ridge or label already placed and stays inside the plot (separating-axis tests, Liang-Barsky
 * clipping). Deterministic: candidates are tried in a fixed order. Never writes output. */
#include <math.h>
#include <string.h>

#include "core/rf_int.h"
#include "svg_int.h"

#define RF__LABEL_GAP 3.0  /* pixels between a label and its own roof */
#define RF__LABEL_STEP 4.0 /* pixels between candidate positions along a roof */
#define RF__LABEL_PAD 4.0  /* pixels added to the estimated text width */

static rf_status rf__push(rf_ctx *ctx, void **arr, size_t *n, size_t *cap, size_t elem,
                          const void *item)
{
    RF_TRY(rf__grow(ctx, arr, cap, *n + 1, elem));
    memcpy((char *)*arr + *n * elem, item, elem);
    *n += 1;
    return RF_OK;
}

rf_status rf__obstacles_circle(rf_ctx *ctx, rf__obstacles *o, double x, double y, double r)
{
    const struct rf__circle c = {x, y, r};
    void *p = o->circles;
    rf_status st = rf__push(ctx, &p, &o->n_circles, &o->cap_circles, sizeof c, &c);
    o->circles = p;
    return st;
}

rf_status rf__obstacles_segment(rf_ctx *ctx, rf__obstacles *o, double x0, double y0, double x1,
                                double y1)
{
    const struct rf__seg s = {{x0, y0, x1, y1}};
    void *p = o->segments;
    rf_status st = rf__push(ctx, &p, &o->n_segments, &o->cap_segments, sizeof s, &s);
    o->segments = p;
    return st;
}

void rf__obstacles_free(rf_ctx *ctx, rf__obstacles *o)
{
    if (!o) return;
    rf__free(ctx, o->circles);
    rf__free(ctx, o->segments);
    rf__free(ctx, o->boxes);
    memset(o, 0, sizeof *o);
}

/* ---- geometry -------------------------------------------------------------------------------- */

/* Half extent of box b projected on unit axis (ax, ay). */
static double rf__radius(const rf__box *b, double ax, double ay)
{
    return b->hw * fabs(b->ux * ax + b->uy * ay) + b->hh * fabs(-b->uy * ax + b->ux * ay);
}

/* Separating-axis test of two oriented rectangles. */
static int rf__box_box(const rf__box *a, const rf__box *b)
{
    const double axes[4][2] = {{a->ux, a->uy}, {-a->uy, a->ux}, {b->ux, b->uy}, {-b->uy, b->ux}};
    double dx = b->cx - a->cx, dy = b->cy - a->cy;
    for (int k = 0; k < 4; k++) {
        double d = fabs(dx * axes[k][0] + dy * axes[k][1]);
        if (d > rf__radius(a, axes[k][0], axes[k][1]) + rf__radius(b, axes[k][0], axes[k][1]))
            return 0;
    }
    return 1;
}

/* (x, y) in the frame of b. */
static void rf__local(const rf__box *b, double x, double y, double *lx, double *ly)
{
    double dx = x - b->cx, dy = y - b->cy;
    *lx = dx * b->ux + dy * b->uy;
    *ly = -dx * b->uy + dy * b->ux;
}

static int rf__box_circle(const rf__box *b, const struct rf__circle *c)
{
    double lx, ly;
    rf__local(b, c->x, c->y, &lx, &ly);
    double qx = fmax(-b->hw, fmin(b->hw, lx)), qy = fmax(-b->hh, fmin(b->hh, ly));
    return (lx - qx) * (lx - qx) + (ly - qy) * (ly - qy) < c->r * c->r;
}

/* Does the segment s (x0, y0, x1, y1) cross box b? Clipped in the frame of b. */
static int rf__box_segment(const rf__box *b, const double *s)
{
    double ax, ay, bx, by, t0, t1;
    rf__local(b, s[0], s[1], &ax, &ay);
    rf__local(b, s[2], s[3], &bx, &by);
    return rf__clip_segment(ax, ay, bx - ax, by - ay, -b->hw, b->hw, -b->hh, b->hh, &t0, &t1);
}

static int rf__box_inside(const rf__obstacles *o, const rf__box *b)
{
    double rx = rf__radius(b, 1, 0), ry = rf__radius(b, 0, 1);
    return b->cx - rx >= o->x0 && b->cx + rx <= o->x1 && b->cy - ry >= o->y0 && b->cy + ry <= o->y1;
}

static int rf__box_free(const rf__obstacles *o, const rf__box *b)
{
    if (!rf__box_inside(o, b)) return 0;
    for (size_t i = 0; i < o->n_circles; i++)
        if (rf__box_circle(b, &o->circles[i])) return 0;
    for (size_t i = 0; i < o->n_segments; i++)
        if (rf__box_segment(b, o->segments[i].v)) return 0;
    for (size_t i = 0; i < o->n_boxes; i++)
        if (rf__box_box(b, &o->boxes[i])) return 0;
    return 1;
}

/* ---- placement ------------------------------------------------------------------------------- */

/* Slide a box of half width hw along the roof on side `side` (+1 above/left, -1 below/right), in
 * lane 0 (against the roof) or 1 (one line further out); a flat roof from its right end
 * leftwards, a sloped one from its lower end upwards. */
static int rf__slide(const rf__obstacles *o, const double *seg, double hw, double hh, int side,
                     int lane, int flat, rf__box *out)
{
    double dx = seg[2] - seg[0], dy = seg[3] - seg[1], len = sqrt(dx * dx + dy * dy);
    if (!(len > 0)) return 0;
    double ux = dx / len, uy = dy / len, nx = uy, ny = -ux; /* n points up (SVG y grows down) */
    double lo = hw + 2, hi = len - hw - 2;
    if (hi < lo) lo = hi = len / 2;
    size_t steps = (size_t)((hi - lo) / RF__LABEL_STEP) + 1;
    for (size_t k = 0; k < steps; k++) {
        double s = flat ? hi - (double)k * RF__LABEL_STEP : lo + (double)k * RF__LABEL_STEP;
        double off = side * (hh + RF__LABEL_GAP + lane * 2 * hh);
        rf__box b = {seg[0] + s * ux + off * nx, seg[1] + s * uy + off * ny, hw, hh, ux, uy};
        if (rf__box_free(o, &b)) {
            *out = b;
            return 1;
        }
    }
    return 0;
}

rf_status rf__label_place_roof(rf_ctx *ctx, rf__obstacles *o, double x0, double y0, double x1,
                               double y1, size_t cols_full, size_t cols_name, double char_w,
                               double text_h, rf__label_place *out)
{
    memset(out, 0, sizeof *out);
    const double seg[4] = {x0, y0, x1, y1};
    int flat = fabs(y1 - y0) < 1e-9;
    const size_t cols[2] = {cols_full, cols_name};
    for (int form = 0; form < 2; form++) {
        double hw = ((double)cols[form] * char_w + RF__LABEL_PAD) / 2, hh = text_h / 2;
        for (int k = 0; k < 4; k++) { /* lane 0 above, below, then lane 1 above, below */
            rf__box b;
            if (!rf__slide(o, seg, hw, hh, k % 2 ? -1 : 1, k / 2, flat, &b)) continue;
            void *p = o->boxes;
            RF_TRY(rf__push(ctx, &p, &o->n_boxes, &o->cap_boxes, sizeof b, &b));
            o->boxes = p;
            out->placed = 1;
            out->name_only = form == 1;
            out->cx = b.cx, out->cy = b.cy;
            out->angle_deg = atan2(b.uy, b.ux) * 180.0 / 3.14159265358979323846;
            if (fabs(out->angle_deg) < 1e-9) out->angle_deg = 0;
            return RF_OK;
        }
    }
    return RF_OK;
}
