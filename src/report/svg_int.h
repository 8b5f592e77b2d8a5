/* svg_int.h — internals shared by the SVG and HTML back ends of the roofline chart: XML escaping,
 * the label layout step (roof labels placed where they touch no roof, marker or other label), and
 * the SVG writer the HTML page embeds. Internal to src/report; never prints. See docs/chart.md. */
#ifndef RF_REPORT_SVG_INT_H
#define RF_REPORT_SVG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "chart.h"
#include "roofline/buf.h"

/* Write s as XML character data or attribute text: & < > " ' escaped; invalid UTF-8 and the
 * control characters XML 1.0 forbids become '?'. At most `max` code points (0: all), cut with
 * "…" when longer. */
rf_status rf__xml_text(rf_writer *w, const char *s, size_t max);

/* Code points in s (invalid bytes count one each): the width estimate of a label. */
size_t rf__xml_cols(const char *s);

/* ---- label layout (chart_labels.c) ----------------------------------------------------------- */

/* An oriented rectangle in pixels: centre, half width and height, unit direction of its width. */
typedef struct rf__box {
    double cx, cy, hw, hh, ux, uy;
} rf__box;

/* A uniform grid over the plot: each cell lists the obstacles that reach into it, so a candidate
 * label is tested against its neighbours only (near-linear layout of 1024 roofs). Ids: every
 * obstacle in the order added; kind_of/index_of map an id back, stamp de-duplicates a query. */
typedef struct rf__obs_grid {
    size_t nx, ny;   /* cells; 0 = no grid (degenerate plot): every obstacle is tested */
    double cw, ch;   /* cell size in pixels */
    uint32_t **cell; /* nx * ny lists of ids */
    uint32_t *cell_n, *cell_cap;
    unsigned char *kind_of; /* 0 circle, 1 segment, 2 box */
    uint32_t *index_of, *stamp;
    size_t n_ids, cap_ids;
    uint32_t query;
    uint64_t n_tests; /* obstacle tests made so far (the tests check the layout stays linear) */
} rf__obs_grid;

/* What labels must not touch: circles (markers), segments (roofs) and boxes (placed labels),
 * inside the rectangle [x0, x1] x [y0, y1] (the plot; set before the first obstacle is added).
 * Owned arrays; rf__obstacles_free. */
typedef struct rf__obstacles {
    double x0, y0, x1, y1;
    rf__obs_grid grid;
    struct rf__circle {
        double x, y, r;
    } * circles;
    size_t n_circles, cap_circles;
    struct rf__seg {
        double v[4]; /* x0, y0, x1, y1 */
    } * segments;
    size_t n_segments, cap_segments;
    rf__box *boxes;
    size_t n_boxes, cap_boxes;
} rf__obstacles;

rf_status rf__obstacles_circle(rf_ctx *ctx, rf__obstacles *o, double x, double y, double r);
rf_status rf__obstacles_segment(rf_ctx *ctx, rf__obstacles *o, double x0, double y0, double x1,
                                double y1);
void rf__obstacles_free(rf_ctx *ctx, rf__obstacles *o);

/* Where a roof label goes: pixel centre, rotation in degrees (SVG, clockwise), and whether only
 * the name was kept. `placed` = 0: no free place; the legend carries it. */
typedef struct rf__label_place {
    int placed, name_only;
    double cx, cy, angle_deg;
} rf__label_place;

/* The label layout step for the roof from (x0, y0) to (x1, y1) (pixels, x0 < x1): try positions
 * along the roof, on either side, in order of preference (a flat roof: from its right end
 * leftwards; a sloped roof: from where it enters the plot upwards), first with `cols_full` columns
 * of text, then `cols_name`; the first that touches no obstacle wins and is added to the boxes.
 * `char_w` and `text_h` are the estimated glyph width and line height in pixels. */
rf_status rf__label_place_roof(rf_ctx *ctx, rf__obstacles *o, double x0, double y0, double x1,
                               double y1, size_t cols_full, size_t cols_name, double char_w,
                               double text_h, rf__label_place *out);

/* ---- the SVG writer (chart_svg.c), embedded by the HTML page --------------------------------- */

/* A chart renderer failed with `st`: a bare RF_RANGE from the writer (no message on the context)
 * is its size cap; say which limit and how to get under it (fewer rows, --top). */
rf_status rf__chart_too_large(rf_ctx *ctx, rf_status st, const char *what,
                              const rf_result *const *results, size_t n);

/* Write the chart of results[0..n) (several results: one toggled series each, on shared axes)
 * with every ceiling of `m` (may be NULL) as one <svg> element. `interactive`: legend entries
 * carry data-toggle attributes for the HTML page's script, and no XML prolog is written. */
rf_status rf__svg_write(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
                        int interactive, rf_writer *w);

/* Label of series i of results[0..n): its title without directories ("series N" when it has
 * none), with its roof's names when another series has the same title. Written into buf. */
#define RF__SERIES_LABEL_MAX (RF_TEXT_MAX + 2 * RF_NAME_MAX + 8)
/* A result's title without its folder; the bytes all series titles share at the start, cut at a
 * space (0 for one series or when nothing is worth cutting). */
const char *rf__title_base(const rf_result *r);
size_t rf__series_common(const rf_result *const *results, size_t n);

/* Several series: series k's marker shape (0 circle, 1 square, 2 triangle, 3 diamond, 4 triangle
 * down, 5 pentagon) and hue (one of RF__SERIES_STYLES, then again). */
#define RF__SERIES_STYLES 8
size_t rf__series_shape(size_t k);

const char *rf__series_label(const rf_result *const *results, size_t n, size_t i, char *buf,
                             size_t size);

/* ---- the SVG writer's state, shared by chart_svg.c (draw methods) and chart_svg_text.c (title,
 * roof labels, legend, numbers and marker sizes) ---------------------------------------------- */

#define RF__SVG_RMAX 26.0      /* radius of a marker holding all the time; area is proportional */
#define RF__SVG_RMIN 4.0       /* smallest radius drawn, so a tiny share stays visible */
#define RF__SVG_LEGEND_W 236.0 /* pixels right of the plot for the legend */
#define RF__SVG_CHAR_W 7.0     /* estimated glyph width of a roof label (11.5 px DejaVu Sans) */
#define RF__SVG_TEXT_H 14.0    /* line height of a roof label */
#define RF__SVG_LABELS_MAX 256 /* roofs whose label state is kept (the others: legend only) */

typedef struct rf__svg {
    rf_ctx *ctx;
    rf_writer *w;
    const rf_result *const *results;
    const rf__chart *charts; /* one per result, on shared axes */
    size_t n;
    const rf_machine *m;
    const rf__draw_methods *dm;
    int interactive;
    size_t series; /* series whose markers are being drawn */
    int group_open;
    double L, T, PW, PH, W, H; /* plot rectangle and whole picture, pixels */
    rf__obstacles obs;
    unsigned short label_state[RF__SVG_LABELS_MAX]; /* roof i: 0 labelled on the plot, 1 no
                                                     * place (legend only), 2 + j on roof j */
    unsigned char roof_drawn[RF__SVG_LABELS_MAX];   /* roof i's line written (rf__svg_roof_at) */
} rf__svg;

static inline double rf__svg_px(const rf__svg *s, double x)
{
    return s->L + x * s->PW;
}
static inline double rf__svg_py(const rf__svg *s, double y)
{
    return s->T + (1 - y) * s->PH;
}

/* Marker radius for a share of the total time: area proportional, at least a few pixels. */
double rf__svg_radius(double share);

/* The radius a marker is drawn with: with several series at most RF__SVG_RMAX_SERIES, so one
 * series' big marker does not cover the others' or the roof. */
#define RF__SVG_RMAX_SERIES 12.0
static inline double rf__svg_marker_radius(const rf__svg *s, double share)
{
    double r = rf__svg_radius(share);
    return s->n > 1 && r > RF__SVG_RMAX_SERIES ? RF__SVG_RMAX_SERIES : r;
}

/* Write ` attr="number"` (shortest round-trip text; "inf" for infinity). */
rf_status rf__svg_num(rf_writer *w, const char *attr, double v);

/* The title and the subtitle naming the machine and its provenance, each wrapped at word breaks
 * over up to three and two lines; rf__svg_title_height: pixels the lines past the first take. */
rf_status rf__svg_title(rf__svg *s);
double rf__svg_title_height(const rf__svg *s);

/* Label of roof `index` of chart 0, placed by the label layout step (or left to the legend). */
rf_status rf__svg_roof_label(rf__svg *s, size_t index);

/* Height in pixels the legend needs, and the legend itself (right of the plot). */
double rf__svg_legend_height(const rf__svg *s);
rf_status rf__svg_legend(rf__svg *s);

#endif
