/* chart_density.c — big inputs on a chart: past RF__CHART_POINTS_MAX plottable rows, only the
 * RF__CHART_TOP rows with the largest estimated time become markers; every other plottable row is
 * counted in a density grid (cells of 1/8 decade on both axes) that the back ends draw under the
 * markers, and summarised in the legend (how many rows, their share of the time, per bound).
 * Linear in the rows apart from one sort of their times, and bounded in memory: a byte per row
 * and a double per plottable row while the chart is laid out. See docs/chart.md. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "core/rf_int.h"

int rf__chart_plottable(const rf_eval *e, rf__unplotted_why *why)
{
    *why = RF__UNPLOTTED_UNDEFINED;
    if (e->bound == RF_BOUND_UNDEFINED || isnan(e->ai) || e->ai < 0) return 0;
    if (e->flops == 0 || e->ai == 0) return *why = RF__UNPLOTTED_NO_FLOPS, 0;
    return isfinite(e->attainable_flops_per_s) && e->attainable_flops_per_s > 0;
}

static int rf__cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* A NaN time sorts last and is never kept ahead of a number. */
static double rf__time_key(const rf_eval *e)
{
    return isnan(e->time_s) ? -INFINITY : e->time_s;
}

rf_status rf__chart_keep(rf_ctx *ctx, const rf_result *r, unsigned char **keep, size_t *n_kept)
{
    *keep = NULL;
    *n_kept = 0;
    size_t n = 0;
    rf__unplotted_why why;
    for (size_t i = 0; i < r->n_rows; i++) n += (size_t)rf__chart_plottable(&r->rows[i].e, &why);
    if (n <= RF__CHART_POINTS_MAX) return RF_OK;
    double *t = rf__malloc(ctx, n * sizeof *t);
    unsigned char *k = rf__calloc(ctx, r->n_rows, 1);
    if (!t || !k) {
        rf__free(ctx, t);
        rf__free(ctx, k);
        return RF_NOMEM_ERR(ctx);
    }
    size_t j = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        if (rf__chart_plottable(&r->rows[i].e, &why)) t[j++] = rf__time_key(&r->rows[i].e);
    qsort(t, n, sizeof *t, rf__cmp_desc);
    const double thr = t[RF__CHART_TOP - 1];
    size_t above = 0; /* rows strictly above the threshold are all kept; ties fill the rest */
    while (above < n && t[above] > thr) above++;
    size_t ties = RF__CHART_TOP - above;
    rf__free(ctx, t);
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_eval *e = &r->rows[i].e;
        if (!rf__chart_plottable(e, &why)) continue;
        double v = rf__time_key(e);
        if (v > thr || (v == thr && ties && ties--)) k[i] = 1, (*n_kept)++;
    }
    *keep = k;
    return RF_OK;
}

void rf__chart_summarise(rf__chart *c, const rf_result *r, const unsigned char *keep)
{
    c->sum_x[0] = c->sum_y[0] = INFINITY;
    c->sum_x[1] = c->sum_y[1] = -INFINITY;
    if (!keep) return;
    rf__unplotted_why why;
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_eval *e = &r->rows[i].e;
        if (keep[i] || !rf__chart_plottable(e, &why)) continue;
        double ai = e->bound == RF_BOUND_NETWORK ? e->net_ai : e->ai;
        double x = isinf(ai) ? NAN : log10(ai), y = log10(e->attainable_flops_per_s);
        if (!isnan(x)) c->sum_x[0] = fmin(c->sum_x[0], x), c->sum_x[1] = fmax(c->sum_x[1], x);
        c->sum_y[0] = fmin(c->sum_y[0], y), c->sum_y[1] = fmax(c->sum_y[1], y);
        c->n_summarised++;
        c->sum_bound[e->bound == RF_BOUND_COMPUTE ? 1 : e->bound == RF_BOUND_NETWORK ? 2 : 0]++;
        if (r->totals.time_s > 0 && e->time_s > 0) c->sum_share += e->time_s / r->totals.time_s;
    }
    if (c->sum_share > 1) c->sum_share = 1;
}

/* Cell of data-space value v on an axis from lo with n cells of 1/RF__DENSITY_PER_DECADE. */
static size_t rf__cell(double v, double lo, size_t n)
{
    double f = floor((v - lo) * RF__DENSITY_PER_DECADE);
    if (!(f >= 0)) return 0;
    return f >= (double)n ? n - 1 : (size_t)f;
}

rf_status rf__chart_density(rf_ctx *ctx, rf__chart *c, const rf_result *r,
                            const unsigned char *keep)
{
    if (!keep || !c->n_summarised) return RF_OK;
    size_t nx = (size_t)lround((c->x.hi - c->x.lo) * RF__DENSITY_PER_DECADE);
    size_t ny = (size_t)lround((c->y.hi - c->y.lo) * RF__DENSITY_PER_DECADE);
    if (!nx || !ny) return RF_OK;
    c->density = rf__calloc(ctx, nx * ny, sizeof *c->density);
    if (!c->density) return RF_NOMEM_ERR(ctx);
    c->dens_nx = nx, c->dens_ny = ny, c->dens_x0 = c->x.lo, c->dens_y0 = c->y.lo;
    rf__unplotted_why why;
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_eval *e = &r->rows[i].e;
        if (keep[i] || !rf__chart_plottable(e, &why)) continue;
        double ai = e->bound == RF_BOUND_NETWORK ? e->net_ai : e->ai;
        size_t cx = isinf(ai) ? nx - 1 : rf__cell(log10(ai), c->x.lo, nx);
        size_t cy = rf__cell(log10(e->attainable_flops_per_s), c->y.lo, ny);
        uint32_t *cell = &c->density[cy * nx + cx];
        if (*cell < UINT32_MAX) (*cell)++;
        if (*cell > c->dens_max) c->dens_max = *cell;
    }
    return RF_OK;
}
