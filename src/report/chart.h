/* chart.h — the roofline chart, laid out once and drawn by three back ends (ASCII, SVG, HTML)
 * through a small table of drawing functions (hwloc's lstopo.h struct draw_methods).
 * The layout works in data space (x = log10 FLOP/byte, y = log10 FLOP/s); the walk hands the back
 * end normalised plot coordinates. Internal to src/report; never prints. See docs/chart.md. */
#ifndef RF_REPORT_CHART_H
#define RF_REPORT_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "roofline/analysis.h"
#include "roofline/core.h"

#define RF__CHART_X_DECADES_MAX 10 /* widest x axis; points beyond are clamped to the edge */
#define RF__CHART_Y_DECADES_MAX 12 /* tallest y axis; points below are clamped to the bottom */
#define RF__CHART_TICKS_MAX 16     /* > both maxima: one tick per decade, both ends included */

/* One decade tick: value in data space (an integer) and its label ("0.01", "1k", "10G"). */
typedef struct rf__chart_tick {
    double v;
    char label[12];
} rf__chart_tick;

/* One axis: [lo, hi] in data space, whole decades, and a tick per decade from lo to hi. */
typedef struct rf__chart_axis {
    double lo, hi;
    size_t n_ticks;
    rf__chart_tick ticks[RF__CHART_TICKS_MAX];
    const char *title; /* static: "attainable FLOP/s", "arithmetic intensity (FLOP/byte)" */
} rf__chart_axis;

/* One roof per ceiling. A bandwidth roof rises from the left edge to the top compute roof; a
 * compute roof is flat from the highest bandwidth roof to the right edge. Clipped to the axes. */
typedef struct rf__chart_roof {
    char name[RF_NAME_MAX]; /* ceiling name, "DRAM", "fp32.fma.avx512" */
    rf_ceiling_kind kind;
    rf_provenance provenance;
    double value;            /* FLOP/s (compute) or byte/s (bandwidth) */
    int primary;             /* the ceiling the analysis used (r->compute or r->bandwidth) */
    int minor;               /* not the best of its precision or memory level (rf__chart_minor) */
    int visible;             /* 0 when the roof lies wholly outside the axes (x0.. undefined) */
    double x0, y0, x1, y1;   /* the segment, data space, x0 < x1 */
    double label_x, label_y; /* a point on the roof where its label goes (see rf__chart_draw) */
    char value_text[32];     /* "7.17 TFLOP/s", "307 GB/s" */
    char label[RF_NAME_MAX + 32]; /* "<name> <value_text>" */
} rf__chart_roof;

/* A ridge point: the primary compute roof meets bandwidth roof `roof`. */
typedef struct rf__chart_ridge {
    double ai;        /* FLOP/byte */
    double x, y;      /* data space */
    size_t roof;      /* index of the bandwidth roof in rf__chart.roofs */
    int primary;      /* against the primary bandwidth roof: the ridge of the analysis */
    char ai_text[24]; /* "23.3" */
} rf__chart_ridge;

#define RF__POINT_CLAMPED 1u  /* outside the axis range: drawn on the edge */
#define RF__POINT_INF_AI 2u   /* no bytes (AI = +inf): drawn on the right edge */
#define RF__POINT_MEASURED 4u /* attainable is a measurement (achieved FLOP/s), not an estimate */
#define RF__POINT_HOLLOW 8u   /* an estimate in a chart with measurements: drawn hollow */

/* One plotted row of the result. */
typedef struct rf__chart_point {
    size_t row;       /* index in r->rows */
    const char *name; /* borrowed from r->rows[row].name */
    double ai;        /* FLOP/byte, > 0, may be +inf */
    double attainable_flops_per_s;
    double x, y;              /* data space, after clamping; always inside the axes */
    char glyph;               /* 'A'..'Z', 'a'..'z', '0'..'9', then '*' */
    rf_bound bound;           /* RF_BOUND_MEMORY or RF_BOUND_COMPUTE */
    double share;             /* share of the total estimated time of all operations, [0, 1] */
    unsigned flags;           /* RF__POINT_* */
    char ai_text[24];         /* "12.3", "2k", "inf" */
    char attainable_text[32]; /* "1.23 TFLOP/s" */
    size_t pair; /* a measured point: its estimate; an estimate: its measurement; else SIZE_MAX */
} rf__chart_point;

/* Why a row is not plotted. */
typedef enum rf__unplotted_why {
    RF__UNPLOTTED_UNDEFINED, /* bound undefined (cost unknown), or no usable figures */
    RF__UNPLOTTED_NO_FLOPS   /* flops = 0: AI = 0 has no place on a log axis */
} rf__unplotted_why;

typedef struct rf__chart_unplotted {
    size_t row; /* index in r->rows */
    rf__unplotted_why why;
} rf__chart_unplotted;

/* The whole chart. Roofs are ordered: primary compute, primary bandwidth, then the other ceilings
 * in machine order. Arrays are owned; release with rf__chart_free. */
typedef struct rf__chart {
    char title[RF_TEXT_MAX + RF_NAME_MAX + 8]; /* "<r->title> on <machine>" or "<machine>" */
    rf__chart_axis x, y;
    rf__chart_roof *roofs;
    size_t n_roofs;
    rf__chart_ridge *ridges; /* one per bandwidth roof; primary first */
    size_t n_ridges;
    rf__chart_point *points; /* estimates in row order, then the measured points in row order */
    size_t n_points;
    size_t n_measured;              /* measured points (the last n_measured of `points`) */
    rf__chart_unplotted *unplotted; /* in row order */
    size_t n_unplotted, n_undefined, n_no_flops, n_clamped;
    /* Big inputs (chart_density.c): plottable rows that are not markers, counted in a grid of
     * 1/RF__DENSITY_PER_DECADE-decade cells whose cell (0, 0) starts at (dens_x0, dens_y0). */
    size_t n_minor;      /* roofs flagged minor: the walk skips them and their ridges */
    int show_minor;      /* set by a back end that draws them anyway (the HTML page, hidden) */
    size_t n_summarised; /* 0: every plottable row is a marker */
    size_t sum_bound[3]; /* of those: memory, compute, network */
    double sum_share;    /* their share of the total time */
    double sum_x[2], sum_y[2]; /* their data-space range */
    uint32_t *density;         /* dens_ny rows of dens_nx counts (row 0 at the bottom); owned */
    size_t dens_nx, dens_ny;
    double dens_x0, dens_y0;
    uint32_t dens_max;
} rf__chart;

/* A chart of more than RF__CHART_ROOFS_ALL roofs draws only those that matter: the analysis'
 * roofs and the best of each precision (compute: the name up to its first '.', "fp32") and of
 * each memory level (bandwidth: up to the first '.' or space, "L1"); the others are minor. */
#define RF__CHART_ROOFS_ALL 8

/* Past RF__CHART_POINTS_MAX plottable rows a chart draws the RF__CHART_TOP rows with the largest
 * estimated time as markers and the others as a density (a million rows in seconds). */
#define RF__CHART_POINTS_MAX 5000
#define RF__CHART_TOP 1000
#define RF__DENSITY_PER_DECADE 8

/* Whether a row has a place on the chart; else *why says which list it goes to. */
int rf__chart_plottable(const rf_eval *e, rf__unplotted_why *why);

/* *keep = NULL when every plottable row of r is drawn as a marker; else an owned array of
 * r->n_rows bytes, 1 for the RF__CHART_TOP rows kept (largest estimated time first, ties in row
 * order), and *n_kept their count. RF_NOMEM. */
rf_status rf__chart_keep(rf_ctx *ctx, const rf_result *r, unsigned char **keep, size_t *n_kept);

/* Count the plottable rows not kept (n_summarised, per bound, share, range); then, once the
 * axes are set, grid them (c->density). Both do nothing when keep is NULL. */
void rf__chart_summarise(rf__chart *c, const rf_result *r, const unsigned char *keep);
rf_status rf__chart_density(rf_ctx *ctx, rf__chart *c, const rf_result *r,
                            const unsigned char *keep);

/* Lay out `r` against every ceiling of `m` (NULL: only r->compute and r->bandwidth). The analysis'
 * two ceilings are matched in `m` by kind and name (case-insensitive), added when missing, and
 * always drawn with the figures of `r` (its points were evaluated against them). *out is filled
 * (zeroed first) and owned by the caller: rf__chart_free. RF_USAGE for a missing argument, RF_RANGE
 * for a roof that is not finite and > 0, RF_NOMEM. Borrows row names from `r`: keep `r` alive while
 * the chart is used. */
rf_status rf__chart_layout(rf_ctx *ctx, const rf_result *r, const rf_machine *m, rf__chart *out);

/* Release the arrays of a chart laid out with `ctx`. Accepts NULL. */
void rf__chart_free(rf_ctx *ctx, rf__chart *c);

/* Data space to normalised plot space [0, 1] (0 = left / bottom edge). */
static inline double rf__chart_nx(const rf__chart *c, double x)
{
    return (x - c->x.lo) / (c->x.hi - c->x.lo);
}
static inline double rf__chart_ny(const rf__chart *c, double y)
{
    return (y - c->y.lo) / (c->y.hi - c->y.lo);
}

/* ---- drawing --------------------------------------------------------------------------------- */

/* What a line is. RF__LINE_PRIMARY is or-ed into a roof's style when it is the analysis' roof. */
typedef enum rf__line_style {
    RF__LINE_AXIS,      /* the frame: x axis (0,0)-(1,0) and y axis (0,0)-(0,1) */
    RF__LINE_GRID_X,    /* a decade of x, vertical, full height: draw faint, or just a tick */
    RF__LINE_GRID_Y,    /* a decade of y, horizontal, full width */
    RF__LINE_COMPUTE,   /* a compute roof (flat) */
    RF__LINE_BANDWIDTH, /* a bandwidth roof (sloped) */
    RF__LINE_LINK,      /* thin line from an estimate to its measurement (same AI: vertical) */
    RF__LINE_PRIMARY = 0x100
} rf__line_style;

/* What a text is, and so how a back end may place it. Coordinates are where the text belongs;
 * titles' coordinates are suggestions (a terminal puts the y title above the axis). */
typedef enum rf__text_kind {
    RF__TEXT_TITLE,         /* chart title, at (0, 1), above the plot */
    RF__TEXT_AXIS_X,        /* x axis title at (0.5, 0), below the tick labels */
    RF__TEXT_AXIS_Y,        /* y axis title at (0, 0.5), left of the tick labels (or rotated) */
    RF__TEXT_TICK_X,        /* decade label under the x axis, centred on (x, 0) */
    RF__TEXT_TICK_Y,        /* decade label left of the y axis, right-aligned on (0, y) */
    RF__TEXT_ROOF_COMPUTE,  /* "NAME VALUE": above the roof, ending at its right end (x, y) */
    RF__TEXT_ROOF_BANDWIDTH /* "NAME VALUE": along the roof from (x, y) which lies on it; a back
                             * end short of room may keep the name only (up to the first space) */
} rf__text_kind;

/* What a marker is. */
typedef struct rf__mark {
    int ridge;      /* 1: a ridge point (c->ridges[index]); 0: a point (c->points[index]) */
    size_t index;   /* into c->ridges or c->points */
    char glyph;     /* the point's glyph; '+' for a ridge */
    rf_bound bound; /* points: memory or compute; ridges: RF_BOUND_UNDEFINED */
    int primary;    /* ridges: the ridge of the analysis' roof */
    unsigned flags; /* points: RF__POINT_* */
    double share;   /* points: share of total time, to size a marker */
} rf__mark;

/* A back end. Each function returns RF_OK or stops the walk with its error. Coordinates are in
 * normalised plot space [0,1] x [0,1], (0,0) bottom-left; a back end maps them to its own grid, so
 * every back end puts a point at the same place. `index` of text() is the roof (c->roofs) of a roof
 * label or the tick of a tick label (c->x.ticks, c->y.ticks), 0 otherwise, so a back end short of
 * room may move a label along its roof. Every member is required. */
typedef struct rf__draw_methods {
    rf_status (*begin)(void *user, const rf__chart *c);
    rf_status (*line)(void *user, double x0, double y0, double x1, double y1, unsigned style);
    rf_status (*marker)(void *user, double x, double y, const rf__mark *mark);
    rf_status (*text)(void *user, double x, double y, const char *str, rf__text_kind kind,
                      size_t index);
    rf_status (*end)(void *user);
} rf__draw_methods;

/* Walk the chart: begin; axes and decade grid lines; tick labels and titles; secondary roofs then
 * primary roofs; ridges (primary last); points in row order, then each measured point after a
 * RF__LINE_LINK line from its estimate; roof labels (last, so a back end can
 * put them only where nothing is drawn yet); end. Returns the first error of the back end. */
rf_status rf__chart_draw(const rf__chart *c, const rf__draw_methods *dm, void *user);

/* Liang-Barsky: the part of the segment (x0, y0) + t (dx, dy), t in [0, 1], inside the box
 * [xlo, xhi] x [ylo, yhi] is t in [*t0, *t1]. Returns 0 when the segment misses the box
 * (*t0 > *t1, or parallel to and outside an edge). Shared by the roof clipping and the label
 * layout, so the two agree on what crosses what. */
int rf__clip_segment(double x0, double y0, double dx, double dy, double xlo, double xhi, double ylo,
                     double yhi, double *t0, double *t1);

/* Put charts[0..n) on shared axes (the union of their windows, capped at the maximum decades,
 * grown from the first chart's): ticks, point clamping and roof segments are done again. */
void rf__chart_share_axes(rf__chart *charts, size_t n);

/* The points of `c` only, in row order, through dm->marker (further series of a chart). */
rf_status rf__chart_draw_points(const rf__chart *c, const rf__draw_methods *dm, void *user);

#endif
