/* chart_labels.c — the label layout step of the SVG and HTML charts: each roof label is an oriented
 * rectangle slid along its roof, on one side then the other, until it touches no roof, marker,
 * ridge or label already placed and stays inside the plot (separating-axis tests, Liang-Barsky
 * clipping). Obstacles sit in a uniform grid over the plot, so each candidate is tested against
 * its neighbours only: near-linear in the number of roofs (1024 ceilings chart in well under a
 * second). Deterministic: candidates are tried in a fixed order. Never writes output. */
#include <math.h>
#include <string.h>

#include "core/rf_int.h"
#include "svg_int.h"

#define RF__LABEL_GAP 3.0  /* pixels between a label and its own roof */
#define RF__LABEL_STEP 4.0 /* pixels between candidate positions along a roof */
#define RF__LABEL_PAD 4.0  /* pixels added to the estimated text width */

/* Liang-Barsky: the part [t0, t1] of the segment (x0,y0)+t(dx,dy) inside the box; 0 if none. */
int rf__clip_segment(double x0, double y0, double dx, double dy, double xlo, double xhi, double ylo,
                     double yhi, double *t0, double *t1)
{
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {x0 - xlo, xhi - x0, y0 - ylo, yhi - y0};
    *t0 = 0, *t1 = 1;
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0) return 0;
            continue;
        }
        double t = q[k] / p[k];
        if (p[k] < 0)
            *t0 = fmax(*t0, t);
        else
            *t1 = fmin(*t1, t);
        if (*t0 > *t1) return 0;
    }
    return 1;
}

/* Candidate positions per label at most. A crowded chart (hundreds of roofs) cannot label them
 * all anyway: past RF__LABEL_CROWD roofs each label gets its share of a fixed search, so the whole
 * layout stays linear in the roofs (the labels not placed go to the legend). */
#define RF__LABEL_TRIES 256
#define RF__LABEL_CROWD 64
#define RF__LABEL_TRIES_MIN 16
#define RF__GRID_CELL 16.0 /* pixels per grid cell side (about one text line) */
#define RF__GRID_MAX 256   /* cells per axis at most */

/* ---- the grid -------------------------------------------------------------------------------- */

static void rf__grid_init(rf__obstacles *o)
{
    rf__obs_grid *g = &o->grid;
    double w = o->x1 - o->x0, h = o->y1 - o->y0;
    if (g->cell || !(w > 0) || !(h > 0) || !isfinite(w) || !isfinite(h)) return;
    g->nx = (size_t)fmin(RF__GRID_MAX, ceil(w / RF__GRID_CELL));
    g->ny = (size_t)fmin(RF__GRID_MAX, ceil(h / RF__GRID_CELL));
    if (g->nx < 1) g->nx = 1;
    if (g->ny < 1) g->ny = 1;
    g->cw = w / (double)g->nx, g->ch = h / (double)g->ny;
}

/* Cell range [*i0, *i1] x [*j0, *j1] covering the pixel rectangle, clamped to the grid. */
static void rf__grid_range(const rf__obstacles *o, double xa, double ya, double xb, double yb,
                           size_t *i0, size_t *i1, size_t *j0, size_t *j1)
{
    const rf__obs_grid *g = &o->grid;
    double fx0 = floor((xa - o->x0) / g->cw), fx1 = floor((xb - o->x0) / g->cw);
    double fy0 = floor((ya - o->y0) / g->ch), fy1 = floor((yb - o->y0) / g->ch);
    double mx = (double)g->nx - 1, my = (double)g->ny - 1;
    *i0 = (size_t)fmax(0, fmin(mx, fx0)), *i1 = (size_t)fmax(0, fmin(mx, fx1));
    *j0 = (size_t)fmax(0, fmin(my, fy0)), *j1 = (size_t)fmax(0, fmin(my, fy1));
}

static rf_status rf__grid_put(rf_ctx *ctx, rf__obs_grid *g, size_t c, uint32_t id)
{
    void *p = g->cell[c];
    size_t n = g->cell_n[c], cap = g->cell_cap[c];
    RF_TRY(rf__grow(ctx, &p, &cap, n + 1, sizeof(uint32_t)));
    g->cell[c] = p;
    g->cell[c][n] = id;
    g->cell_n[c] = (uint32_t)(n + 1);
    g->cell_cap[c] = (uint32_t)cap;
    return RF_OK;
}

/* Give obstacle (kind, index) an id and list it in every cell of the pixel rectangle it may
 * reach; a segment only in the cells it crosses. */
static rf_status rf__grid_add(rf_ctx *ctx, rf__obstacles *o, int kind, size_t index, double xa,
                              double ya, double xb, double yb, const double *seg)
{
    rf__obs_grid *g = &o->grid;
    rf__grid_init(o);
    if (!g->nx) return RF_OK;
    if (!g->cell) {
        size_t n = g->nx * g->ny;
        g->cell = rf__calloc(ctx, n, sizeof *g->cell);
        g->cell_n = rf__calloc(ctx, n, sizeof *g->cell_n);
        g->cell_cap = rf__calloc(ctx, n, sizeof *g->cell_cap);
        if (!g->cell || !g->cell_n || !g->cell_cap) return RF_NOMEM_ERR(ctx);
    }
    RF_CHECK(ctx, g->n_ids < UINT32_MAX, RF_RANGE, "chart: too many obstacles for the labels");
    if (g->n_ids == g->cap_ids) {
        size_t cap = g->cap_ids, c1 = cap, c2 = cap;
        void *k = g->kind_of, *x = g->index_of, *st = g->stamp;
        RF_TRY(rf__grow(ctx, &k, &cap, g->n_ids + 1, 1));
        g->kind_of = k;
        RF_TRY(rf__grow(ctx, &x, &c1, g->n_ids + 1, sizeof *g->index_of));
        g->index_of = x;
        RF_TRY(rf__grow(ctx, &st, &c2, g->n_ids + 1, sizeof *g->stamp));
        g->stamp = st;
        g->cap_ids = cap < c1 ? (cap < c2 ? cap : c2) : (c1 < c2 ? c1 : c2);
    }
    uint32_t id = (uint32_t)g->n_ids++;
    g->kind_of[id] = (unsigned char)kind;
    g->index_of[id] = (uint32_t)index;
    g->stamp[id] = 0;
    size_t i0, i1, j0, j1;
    rf__grid_range(o, fmin(xa, xb), fmin(ya, yb), fmax(xa, xb), fmax(ya, yb), &i0, &i1, &j0, &j1);
    for (size_t j = j0; j <= j1; j++)
        for (size_t i = i0; i <= i1; i++) {
            if (seg) { /* only the cells the segment crosses (one pixel of slack) */
                double cx0 = o->x0 + (double)i * g->cw - 1, cy0 = o->y0 + (double)j * g->ch - 1;
                double t0, t1, sx = seg[0], sy = seg[1];
                if (!rf__clip_segment(sx, sy, seg[2] - sx, seg[3] - sy, cx0, cx0 + g->cw + 2, cy0,
                                      cy0 + g->ch + 2, &t0, &t1))
                    continue;
            }
            RF_TRY(rf__grid_put(ctx, g, j * g->nx + i, id));
        }
    return RF_OK;
}

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
    RF_TRY(st);
    return rf__grid_add(ctx, o, 0, o->n_circles - 1, x - r, y - r, x + r, y + r, NULL);
}

rf_status rf__obstacles_segment(rf_ctx *ctx, rf__obstacles *o, double x0, double y0, double x1,
                                double y1)
{
    const struct rf__seg s = {{x0, y0, x1, y1}};
    void *p = o->segments;
    rf_status st = rf__push(ctx, &p, &o->n_segments, &o->cap_segments, sizeof s, &s);
    o->segments = p;
    RF_TRY(st);
    return rf__grid_add(ctx, o, 1, o->n_segments - 1, x0, y0, x1, y1, s.v);
}

void rf__obstacles_free(rf_ctx *ctx, rf__obstacles *o)
{
    if (!o) return;
    rf__obs_grid *g = &o->grid;
    for (size_t c = 0; g->cell && c < g->nx * g->ny; c++) rf__free(ctx, g->cell[c]);
    rf__free(ctx, g->cell);
    rf__free(ctx, g->cell_n);
    rf__free(ctx, g->cell_cap);
    rf__free(ctx, g->kind_of);
    rf__free(ctx, g->index_of);
    rf__free(ctx, g->stamp);
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

/* Does obstacle `id` of the grid touch b (whose bounding box is bb: x0, y0, x1, y1)? */
static int rf__box_hits(const rf__obstacles *o, const rf__box *b, const double *bb, uint32_t id)
{
    uint32_t i = o->grid.index_of[id];
    ((rf__obstacles *)o)->grid.n_tests++;
    switch (o->grid.kind_of[id]) {
    case 0: return rf__box_circle(b, &o->circles[i]);
    case 1: {
        const double *v = o->segments[i].v; /* bounding boxes apart: cannot touch */
        if (fmax(v[0], v[2]) < bb[0] || fmin(v[0], v[2]) > bb[2] || fmax(v[1], v[3]) < bb[1] ||
            fmin(v[1], v[3]) > bb[3])
            return 0;
        return rf__box_segment(b, v);
    }
    default: return rf__box_box(b, &o->boxes[i]);
    }
}

static int rf__box_free(rf__obstacles *o, const rf__box *b)
{
    if (!rf__box_inside(o, b)) return 0;
    rf__obs_grid *g = &o->grid;
    if (g->cell) { /* the neighbours only: the cells under b's bounding box */
        double rx = rf__radius(b, 1, 0), ry = rf__radius(b, 0, 1);
        size_t i0, i1, j0, j1;
        const double bb[4] = {b->cx - rx, b->cy - ry, b->cx + rx, b->cy + ry};
        rf__grid_range(o, bb[0], bb[1], bb[2], bb[3], &i0, &i1, &j0, &j1);
        if (++g->query == 0) { /* wrapped: forget every stamp */
            memset(g->stamp, 0, g->n_ids * sizeof *g->stamp);
            g->query = 1;
        }
        for (size_t j = j0; j <= j1; j++)
            for (size_t i = i0; i <= i1; i++) {
                size_t c = j * g->nx + i;
                for (uint32_t k = 0; k < g->cell_n[c]; k++) {
                    uint32_t id = g->cell[c][k];
                    if (g->stamp[id] == g->query) continue;
                    g->stamp[id] = g->query;
                    if (rf__box_hits(o, b, bb, id)) return 0;
                }
            }
        return 1;
    }
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
static int rf__slide(rf__obstacles *o, const double *seg, double hw, double hh, int side, int lane,
                     int flat, size_t *budget, rf__box *out)
{
    double dx = seg[2] - seg[0], dy = seg[3] - seg[1], len = sqrt(dx * dx + dy * dy);
    if (!(len > 0)) return 0;
    double ux = dx / len, uy = dy / len, nx = uy, ny = -ux; /* n points up (SVG y grows down) */
    double lo = hw + 2, hi = len - hw - 2;
    if (hi < lo) lo = hi = len / 2;
    size_t steps = (size_t)((hi - lo) / RF__LABEL_STEP) + 1;
    for (size_t k = 0; k<steps && * budget> 0; k++, --*budget) {
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
    size_t budget = RF__LABEL_TRIES;
    if (o->n_segments > RF__LABEL_CROWD) budget = RF__LABEL_TRIES * RF__LABEL_CROWD / o->n_segments;
    if (budget < RF__LABEL_TRIES_MIN) budget = RF__LABEL_TRIES_MIN;
    for (int form = 0; form < 2; form++) {
        double hw = ((double)cols[form] * char_w + RF__LABEL_PAD) / 2, hh = text_h / 2;
        for (int k = 0; k < 5; k++) { /* lane 0 above, below, then lane 1 above, below */
            rf__box b;
            if (k == 4) {   /* a flat roof's own line, continued left of where it starts: free
                             * above the slope that ends there (A100's short tensor roofs) */
                int ok = 0; /* step left until clear of the slope's upper end */
                for (int j = 0; flat && !ok && j < 8; j++) {
                    b = (rf__box){x0 - RF__LABEL_GAP - 2 - hw - 6.0 * j, y0, hw, hh, 1, 0};
                    ok = rf__box_free(o, &b);
                }
                if (!ok) continue;
            } else if (!rf__slide(o, seg, hw, hh, k % 2 ? -1 : 1, k / 2, flat, &budget, &b)) {
                continue;
            }
            void *p = o->boxes;
            RF_TRY(rf__push(ctx, &p, &o->n_boxes, &o->cap_boxes, sizeof b, &b));
            o->boxes = p;
            double rx = rf__radius(&b, 1, 0), ry = rf__radius(&b, 0, 1);
            RF_TRY(rf__grid_add(ctx, o, 2, o->n_boxes - 1, b.cx - rx, b.cy - ry, b.cx + rx,
                                b.cy + ry, NULL));
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
