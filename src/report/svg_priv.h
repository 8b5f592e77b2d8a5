/* svg_priv.h — the state of the SVG back end shared by chart_svg.c (the draw methods) and
 * chart_svg_legend.c (title, roof labels, legend). Internal to the SVG writer. */
#ifndef RF_REPORT_SVG_PRIV_H
#define RF_REPORT_SVG_PRIV_H

#include "svg_int.h"

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

/* Write ` attr="number"` (shortest round-trip text; "inf" for infinity). */
rf_status rf__svg_num(rf_writer *w, const char *attr, double v);

/* The title and the subtitle naming the machine and its provenance. */
rf_status rf__svg_title(rf__svg *s);

/* Label of roof `index` of chart 0, placed by the label layout step (or left to the legend). */
rf_status rf__svg_roof_label(rf__svg *s, size_t index);

/* Height in pixels the legend needs, and the legend itself (right of the plot). */
double rf__svg_legend_height(const rf__svg *s);
rf_status rf__svg_legend(rf__svg *s);

#endif
