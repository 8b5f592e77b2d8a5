/* chart_svg.c — the SVG back end of the roofline chart (rf_report_chart_svg, and the <svg> the HTML
 * page embeds): the layout of chart_layout.c mapped onto a fixed plot rectangle through the draw
 * methods of chart.h (hwloc's lstopo-svg.c), roof labels placed by the label layout step
 * (chart_labels.c), then the legend (chart_svg_legend.c). Never positions anything from the
 * result itself; output depends only on the input (no time, no locale). See docs/chart.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/analysis_int.h"
#include "core/rf_int.h"
#include "roofline/report.h"
#include "svg_int.h"

/* Title without its folder. */
const char *rf__title_base(const rf_result *r)
{
    const char *slash = strrchr(r->title, '/');
    return slash ? slash + 1 : r->title;
}

const char *rf__series_label(const rf_result *const *results, size_t n, size_t i, char *buf,
                             size_t size)
{
    const rf_result *r = results[i];
    const char *base = rf__title_base(r);
    size_t len = 0, same = 0, common = rf__series_common(results, n);
    for (size_t k = 0; k < n; k++) same += strcmp(results[k]->title, r->title) == 0;
    if (common) /* two runs of one model: the part that tells them apart ("input=1x3x512x512") */
        rf__appendf(buf, size, &len, "\u2026 %s", base + common);
    else if (base[0])
        rf__appendf(buf, size, &len, "%s", base);
    else
        rf__appendf(buf, size, &len, "series %zu", i + 1);
    if (same > 1) /* the same input against other roofs: say which */
        rf__appendf(buf, size, &len, " (%s, %s)", r->compute.name, r->bandwidth.name);
    return buf;
}

/* ---- begin: sizes, styles, patterns, obstacles ----------------------------------------------- */

static const char rf__svg_style[] =
    "<style>\n"
    ".bg{fill:#fff}\n"
    "text{fill:#1a202c;font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;font-size:12px}\n"
    ".title{font-size:15px;font-weight:bold}.sub{font-size:11px;fill:#4a5568}\n"
    ".grid{stroke:#e2e8f0;stroke-width:1}.axis{stroke:#1a202c;stroke-width:1.2}\n"
    ".roof{stroke:#4a5568;stroke-width:1.4;stroke-dasharray:6 4;fill:none}\n"
    ".roof.primary{stroke:#1a202c;stroke-width:2.4;stroke-dasharray:none}\n"
    ".rooflabel{font-size:11.5px}.rooflabel.secondary{fill:#4a5568}\n"
    ".ridge{fill:#fff;stroke:#1a202c;stroke-width:1.4}.ridge-drop{stroke:#718096;"
    "stroke-dasharray:2 3}\n"
    ".pt{stroke:#1a202c;stroke-width:1;fill-opacity:.85}\n"
    ".pt.memory,.swatch.memory{fill:#2b6cb0}.pt.compute,.swatch.compute{fill:url(#rf-hatch)}\n"
    ".pt.network,.swatch.network{fill:#38a169}\n"
    ".hatch-bg{fill:#dd6b20}.hatch-fg{stroke:#fff;stroke-width:1.3}\n"
    ".dens,.swatch.dens{fill:#553c9a;stroke:none}\n"
    ".legend text{font-size:11.5px}.legend .note{fill:#4a5568;font-size:10.5px}\n"
    ".swatch{stroke:#1a202c;stroke-width:1}\n"
    "@media (prefers-color-scheme:dark){.bg{fill:#16181d}text{fill:#e2e8f0}"
    ".sub,.legend .note,.rooflabel.secondary{fill:#a0aec0}.grid{stroke:#2d3340}"
    ".axis,.roof.primary{stroke:#e2e8f0}.roof{stroke:#a0aec0}"
    ".ridge{fill:#16181d;stroke:#e2e8f0}.pt,.swatch{stroke:#e2e8f0}"
    ".pt.memory,.swatch.memory{fill:#4299e1}.hatch-bg{fill:#ed8936}.hatch-fg{stroke:#16181d}}\n"
    "</style>\n"
    "<defs><pattern id=\"rf-hatch\" patternUnits=\"userSpaceOnUse\" width=\"5\" height=\"5\" "
    "patternTransform=\"rotate(45)\"><rect class=\"hatch-bg\" width=\"5\" height=\"5\"/>"
    "<line class=\"hatch-fg\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\"/></pattern></defs>\n";

/* Only charts with measured points get these rules, so the others stay as they were: estimates
 * hollow, measurements filled, a thin dashed line from each estimate to its measurement. */
static const char rf__svg_style_measured[] =
    "<style>\n"
    ".pt.measured{fill-opacity:1;stroke:#fff;stroke-width:1.2}\n"
    ".pt.measured.compute,.swatch.measured.compute{fill:#c05621}\n"
    ".pt.hollow{fill:none;fill-opacity:1;stroke-width:1.2;stroke:#2b6cb0;pointer-events:all}\n"
    ".pt.hollow.compute,.swatch.hollow.compute{stroke:#c05621}\n"
    ".swatch.measured{stroke:#fff;stroke-width:1.2;fill:#4a5568}\n"
    ".swatch.hollow{fill:none;stroke:#4a5568;stroke-width:1.2}\n"
    ".link{stroke:#718096;stroke-width:1;stroke-dasharray:3 2}\n"
    "@media (prefers-color-scheme:dark){.link{stroke:#a0aec0}.pt.measured{stroke:#16181d}"
    ".pt.hollow{stroke:#63b3ed}.pt.hollow.compute{stroke:#ed8936}.swatch.measured{fill:#a0aec0;"
    "stroke:#16181d}.swatch.hollow{stroke:#a0aec0}}\n"
    "</style>\n";

/* Several series: each its own hue and marker shape; the bound is the fill (memory solid,
 * compute hatched in the series' hue), so no series is told apart only by a dash pattern. An
 * estimate with a measurement stays an open ring whatever its bound (the hatch rule would win). */
static const char *const rf__series_hue[RF__SERIES_STYLES] = {
    "#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#319795", "#975a16", "#1a202c"};

static rf_status rf__svg_style_series(rf__svg *s)
{
    rf_writer *w = s->w;
    RF_TRY(RF_WRITE_LIT(w, "<style>\n.series .pt{stroke:#fff;stroke-width:1;fill-opacity:.9}\n"
                           ".series .pt.hollow{fill:none}\n"));
    for (size_t k = 0; k < RF__SERIES_STYLES && k < s->n; k++)
        RF_TRY(rf_writef(w,
                         ".series-%zu .pt,.series-%zu .swatch{fill:%s}"
                         ".series-%zu .pt.compute{fill:url(#rf-hatch-%zu)}"
                         ".series-%zu .pt.hollow,.series-%zu .pt.hollow.compute{fill:none;"
                         "stroke:%s;stroke-width:1.4;pointer-events:all}\n",
                         k, k, rf__series_hue[k], k, k, k, k, rf__series_hue[k]));
    /* the bound entries of the legend: grey, solid (memory) and hatched (compute) */
    RF_TRY(RF_WRITE_LIT(w, ".legend-item .swatch.memory{fill:#718096}"
                           ".legend-item .swatch.compute{fill:url(#rf-hatch-g)}\n"));
    RF_TRY(RF_WRITE_LIT(w, "</style>\n<defs>"));
    for (size_t k = 0; k <= RF__SERIES_STYLES && k <= s->n; k++) { /* last: the grey one */
        int grey = k == s->n || k == RF__SERIES_STYLES;
        char id[8];
        snprintf(id, sizeof id, grey ? "g" : "%zu", k);
        RF_TRY(rf_writef(w,
                         "<pattern id=\"rf-hatch-%s\" patternUnits=\"userSpaceOnUse\" "
                         "width=\"4\" height=\"4\" patternTransform=\"rotate(45)\"><rect "
                         "width=\"4\" height=\"4\" fill=\"%s\"/><line x1=\"0\" y1=\"0\" "
                         "x2=\"0\" y2=\"4\" stroke=\"#fff\" stroke-width=\"1.6\"/></pattern>",
                         id, grey ? "#718096" : rf__series_hue[k]));
    }
    return RF_WRITE_LIT(w, "</defs>\n");
}

/* The marker shape of series k (several series only): 0 circle, 1 square, 2 triangle up,
 * 3 diamond, 4 triangle down, 5 pentagon, then again. */
size_t rf__series_shape(size_t k)
{
    return k % 6;
}

static int rf__svg_any_measured(const rf__svg *s)
{
    for (size_t k = 0; k < s->n; k++)
        if (s->charts[k].n_measured) return 1;
    return 0;
}

/* How far a marker of circle radius r reaches from its centre, over r: a square or a regular
 * polygon of the circle's area (rf__svg_shape) reaches past it (a triangle 1.56 r). */
static double rf__svg_reach(size_t shape)
{
    static const double reach[6] = {1, 1.2534, 1.5551, 1.2534, 1.5551, 1.1496};
    return shape < 6 ? reach[shape] : 1.5551;
}

/* Every marker, ridge and roof of every series becomes an obstacle for the roof labels. */
static rf_status rf__svg_obstacles(rf__svg *s)
{
    const rf__chart *c0 = &s->charts[0];
    s->obs.x0 = s->L, s->obs.y0 = s->T, s->obs.x1 = s->L + s->PW, s->obs.y1 = s->T + s->PH;
    for (size_t k = 0; k < s->n; k++)
        for (size_t i = 0; i < s->charts[k].n_points; i++) {
            const rf__chart *c = &s->charts[k];
            const rf__chart_point *p = &c->points[i];
            /* several series: a triangle or pentagon reaches past the circle's radius */
            double r = rf__svg_marker_radius(s, p->share);
            if (s->n > 1) r *= rf__svg_reach(rf__series_shape(k));
            RF_TRY(rf__obstacles_circle(s->ctx, &s->obs, rf__svg_px(s, rf__chart_nx(c, p->x)),
                                        rf__svg_py(s, rf__chart_ny(c, p->y)), r + 2));
        }
    for (size_t i = 0; i < c0->n_ridges; i++)
        if (!c0->roofs[c0->ridges[i].roof].minor)
            RF_TRY(rf__obstacles_circle(s->ctx, &s->obs,
                                        rf__svg_px(s, rf__chart_nx(c0, c0->ridges[i].x)),
                                        rf__svg_py(s, rf__chart_ny(c0, c0->ridges[i].y)), 7));
    for (size_t i = 0; i < c0->n_roofs; i++) {
        const rf__chart_roof *ro = &c0->roofs[i];
        if (!ro->visible || ro->minor) continue;
        RF_TRY(rf__obstacles_segment(s->ctx, &s->obs, rf__svg_px(s, rf__chart_nx(c0, ro->x0)),
                                     rf__svg_py(s, rf__chart_ny(c0, ro->y0)),
                                     rf__svg_px(s, rf__chart_nx(c0, ro->x1)),
                                     rf__svg_py(s, rf__chart_ny(c0, ro->y1))));
    }
    return RF_OK;
}

/* A big input's rows that are not markers: one cell per 1/8 decade, darker for more rows (log
 * scale), under the grid and the markers. data-rows on the group says how many rows it holds. */
static rf_status rf__svg_density(rf__svg *s, size_t k)
{
    const rf__chart *c = &s->charts[k];
    if (!c->density || !c->dens_max) return RF_OK;
    rf_writer *w = s->w;
    RF_TRY(rf_writef(w,
                     "<g class=\"density series-%zu\" data-series=\"%zu\" data-rows=\"%zu\" "
                     "data-cells=\"%zux%zu\" data-max=\"%lu\">\n",
                     k % RF__SERIES_STYLES, k, c->n_summarised, c->dens_nx, c->dens_ny,
                     (unsigned long)c->dens_max));
    const double step = 1.0 / RF__DENSITY_PER_DECADE, lmax = log1p((double)c->dens_max);
    for (size_t j = 0; j < c->dens_ny; j++)
        for (size_t i = 0; i < c->dens_nx; i++) {
            uint32_t n = c->density[j * c->dens_nx + i];
            if (!n) continue;
            double x0 = c->dens_x0 + (double)i * step, y0 = c->dens_y0 + (double)j * step;
            double X0 = rf__svg_px(s, fmax(0, rf__chart_nx(c, x0)));
            double X1 = rf__svg_px(s, fmin(1, rf__chart_nx(c, x0 + step)));
            double Y1 = rf__svg_py(s, fmax(0, rf__chart_ny(c, y0)));
            double Y0 = rf__svg_py(s, fmin(1, rf__chart_ny(c, y0 + step)));
            if (!(X1 > X0) || !(Y1 > Y0)) continue;
            RF_TRY(rf_writef(w,
                             "<rect class=\"dens\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                             "height=\"%.2f\" fill-opacity=\"%.2f\" data-n=\"%lu\"/>\n",
                             X0, Y0, X1 - X0, Y1 - Y0, 0.12 + 0.78 * log1p((double)n) / lmax,
                             (unsigned long)n));
        }
    return RF_WRITE_LIT(w, "</g>\n");
}

static rf_status rf__svg_begin(void *user, const rf__chart *c)
{
    rf__svg *s = user;
    (void)c;
    s->L = 78, s->T = 62 + rf__svg_title_height(s), s->PW = 620, s->PH = 420;
    s->W = s->L + s->PW + 24 + RF__SVG_LEGEND_W;
    s->H = fmax(s->T + s->PH + 64, s->T + rf__svg_legend_height(s) + 16);
    rf_writer *w = s->w;
    if (!s->interactive) RF_TRY(RF_WRITE_LIT(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    RF_TRY(rf_writef(w,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"roofline\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
                     s->W, s->H, s->W, s->H));
    RF_TRY(RF_WRITE_LIT(w, "<title>Roofline: "));
    RF_TRY(rf__xml_text(w, s->charts[0].title, 0));
    RF_TRY(RF_WRITE_LIT(w, "</title>\n"));
    RF_TRY(rf_write(w, rf__svg_style, sizeof rf__svg_style - 1));
    if (rf__svg_any_measured(s))
        RF_TRY(rf_write(w, rf__svg_style_measured, sizeof rf__svg_style_measured - 1));
    if (s->n > 1) RF_TRY(rf__svg_style_series(s));
    if (s->charts[0].n_minor && s->interactive)
        RF_TRY(RF_WRITE_LIT(w,
                            "<style>.roof.minor{display:none;stroke-width:1;stroke-dasharray:2 3}"
                            ".show-minor .roof.minor{display:inline}.legend-minor{cursor:"
                            "pointer}</style>\n"));
    RF_TRY(rf_writef(w, "<rect class=\"bg\" width=\"%.0f\" height=\"%.0f\"/>\n", s->W, s->H));
    for (size_t k = 0; k < s->n; k++) RF_TRY(rf__svg_density(s, k));
    return rf__svg_obstacles(s);
}

/* ---- lines ----------------------------------------------------------------------------------- */

/* The roof of chart 0 drawn from (x0, y0) with `style`: the walk hands the same doubles it
 * computed. Roofs of one value start at one point: the first of them not drawn yet is the one. */
static const rf__chart_roof *rf__svg_roof_at(rf__svg *s, double x0, double y0, unsigned style,
                                             size_t *idx)
{
    const rf__chart *c = &s->charts[0];
    const int primary = (style & RF__LINE_PRIMARY) != 0;
    const rf_ceiling_kind kind = (style & ~(unsigned)RF__LINE_PRIMARY) == RF__LINE_COMPUTE
                                     ? RF_CEILING_COMPUTE
                                     : RF_CEILING_BANDWIDTH;
    const rf__chart_roof *first = NULL;
    for (size_t i = 0; i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        if (!ro->visible || rf__chart_nx(c, ro->x0) != x0 || rf__chart_ny(c, ro->y0) != y0)
            continue;
        if (ro->primary != primary ||
            (ro->kind == RF_CEILING_COMPUTE) != (kind == RF_CEILING_COMPUTE))
            continue;
        if (i >= RF__SVG_LABELS_MAX) return *idx = i, ro;
        if (!first) first = ro, *idx = i;
        if (s->roof_drawn[i]) continue;
        s->roof_drawn[i] = 1;
        return *idx = i, ro;
    }
    return first;
}

static rf_status rf__svg_line(void *user, double x0, double y0, double x1, double y1,
                              unsigned style)
{
    rf__svg *s = user;
    rf_writer *w = s->w;
    const rf__chart *c = &s->charts[0];
    unsigned kind = style & ~(unsigned)RF__LINE_PRIMARY;
    const double X0 = rf__svg_px(s, x0), Y0 = rf__svg_py(s, y0);
    const double X1 = rf__svg_px(s, x1), Y1 = rf__svg_py(s, y1);
    if (kind == RF__LINE_LINK)
        return rf_writef(w,
                         "<line class=\"link\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                         "y2=\"%.2f\"/>\n",
                         X0, Y0, X1, Y1);
    if (kind == RF__LINE_AXIS || kind == RF__LINE_GRID_X || kind == RF__LINE_GRID_Y) {
        const char *cls = kind == RF__LINE_AXIS     ? "axis"
                          : kind == RF__LINE_GRID_X ? "grid grid-x"
                                                    : "grid grid-y";
        RF_TRY(rf_writef(w, "<line class=\"%s\"", cls));
        if (kind == RF__LINE_GRID_X)
            RF_TRY(rf_writef(w, " data-decade=\"%.0f\"", c->x.lo + x0 * (c->x.hi - c->x.lo)));
        if (kind == RF__LINE_GRID_Y)
            RF_TRY(rf_writef(w, " data-decade=\"%.0f\"", c->y.lo + y0 * (c->y.hi - c->y.lo)));
        return rf_writef(w, " x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", X0, Y0, X1, Y1);
    }
    size_t idx = 0;
    const rf__chart_roof *ro = rf__svg_roof_at(s, x0, y0, style, &idx);
    RF_TRY(rf_writef(
        w, "<line class=\"roof %s %s%s\"", kind == RF__LINE_COMPUTE ? "compute" : "bandwidth",
        style & RF__LINE_PRIMARY ? "primary" : "secondary", ro && ro->minor ? " minor" : ""));
    if (ro) {
        RF_TRY(rf_writef(w, " data-roof=\"%zu\" data-name=\"", idx));
        RF_TRY(rf__xml_text(w, ro->name, 0));
        RF_TRY(RF_WRITE_LIT(w, "\""));
        RF_TRY(rf__svg_num(w, "data-value", ro->value));
    }
    RF_TRY(rf_writef(w, " x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"", X0, Y0, X1, Y1));
    if (!ro || !ro->minor) return RF_WRITE_LIT(w, "/>\n");
    RF_TRY(RF_WRITE_LIT(w, "><title>")); /* a minor roof has no label: its tooltip names it */
    RF_TRY(rf__xml_text(w, ro->label, 0));
    return RF_WRITE_LIT(w, "</title></line>\n");
}

/* ---- markers --------------------------------------------------------------------------------- */

static rf_status rf__svg_ridge(rf__svg *s, double X, double Y, const rf__mark *mk)
{
    const rf__chart *c = &s->charts[0];
    const rf__chart_ridge *g = &c->ridges[mk->index];
    rf_writer *w = s->w;
    if (mk->primary)
        RF_TRY(rf_writef(w,
                         "<line class=\"ridge-drop\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                         "y2=\"%.2f\"/>\n",
                         X, Y + 6, X, s->T + s->PH));
    RF_TRY(rf_writef(w, "<path class=\"ridge%s\" d=\"M%.2f %.2fl5 5-5 5-5-5z\" data-roof=\"",
                     mk->primary ? " primary" : "", X, Y - 5));
    RF_TRY(rf__xml_text(w, c->roofs[g->roof].name, 0));
    RF_TRY(RF_WRITE_LIT(w, "\""));
    RF_TRY(rf__svg_num(w, "data-ai", g->ai));
    RF_TRY(RF_WRITE_LIT(w, "><title>ridge "));
    RF_TRY(rf__xml_text(w, g->ai_text, 0));
    RF_TRY(RF_WRITE_LIT(w, " FLOP/byte ("));
    RF_TRY(rf__xml_text(w, c->roofs[g->roof].name, 0));
    return RF_WRITE_LIT(w, ")</title></path>\n");
}

/* The data a test (or the page's script) reads back from a marker. */
static rf_status rf__svg_point_data(rf__svg *s, const rf__chart_point *p)
{
    const rf_result *r = s->results[s->series];
    const rf_row *row = &r->rows[p->row];
    rf_writer *w = s->w;
    RF_TRY(RF_WRITE_LIT(w, " data-name=\""));
    RF_TRY(rf__xml_text(w, p->name, 0));
    RF_TRY(RF_WRITE_LIT(w, "\""));
    if (row->op) {
        RF_TRY(RF_WRITE_LIT(w, " data-op=\""));
        RF_TRY(rf__xml_text(w, row->op, 0));
        RF_TRY(RF_WRITE_LIT(w, "\""));
    }
    RF_TRY(rf__svg_num(w, "data-flops", row->e.flops));
    RF_TRY(rf__svg_num(w, "data-bytes", row->e.bytes));
    RF_TRY(rf__svg_num(w, "data-ai", row->e.ai));
    RF_TRY(rf__svg_num(w, "data-attainable", row->e.attainable_flops_per_s));
    RF_TRY(rf_writef(w, " data-bound=\"%s\"", rf_bound_name(p->bound)));
    if (row->e.net_bytes > 0) { /* a row with network bytes: its network intensity too */
        RF_TRY(rf__svg_num(w, "data-net-bytes", row->e.net_bytes));
        RF_TRY(rf__svg_num(w, "data-net-ai", row->e.net_ai));
    }
    RF_TRY(rf__svg_num(w, "data-time", row->e.time_s));
    RF_TRY(rf__svg_num(w, "data-share", p->share));
    RF_TRY(rf_writef(w, " data-series=\"%zu\"", s->series));
    if (p->flags & RF__POINT_CLAMPED) RF_TRY(RF_WRITE_LIT(w, " data-clamped=\"1\""));
    if (!s->charts[s->series].n_measured) return RF_OK;
    const rf_achieved *a = row->measured;
    RF_TRY(
        rf_writef(w, " data-kind=\"%s\"", p->flags & RF__POINT_MEASURED ? "measured" : "estimate"));
    if (!a) return RF_OK;
    RF_TRY(rf__svg_num(w, "data-measured", a->m.time_s));
    RF_TRY(rf__svg_num(w, "data-achieved", a->flops_per_s));
    if (!isnan(a->utilization)) RF_TRY(rf__svg_num(w, "data-util", a->utilization));
    if (!a->above) return RF_OK;
    char why[256];
    RF_TRY(RF_WRITE_LIT(w, " data-above=\""));
    RF_TRY(rf__xml_text(w, rf__above_text(why, sizeof why, a, r->bandwidth.name), 0));
    return RF_WRITE_LIT(w, "\"");
}

static rf_status rf__svg_point_title(rf__svg *s, const rf__chart_point *p)
{
    const rf_row *row = &s->results[s->series]->rows[p->row];
    char t[32];
    rf_writer *w = s->w;
    RF_TRY(RF_WRITE_LIT(w, "<title>"));
    RF_TRY(rf__xml_text(w, p->name, 120));
    RF_TRY(rf_writef(w, ": AI %s FLOP/byte, %s, %s-bound, ", p->ai_text, p->attainable_text,
                     rf_bound_name(p->bound)));
    if (p->flags & RF__POINT_MEASURED) {
        RF_TRY(rf_writef(w, "measured %s, %.0f%% of its roof%s</title>",
                         rf_time_format(t, sizeof t, row->measured->m.time_s, 3),
                         100 * row->measured->utilization,
                         row->measured->above ? ", above it" : ""));
        return RF_OK;
    }
    RF_TRY(rf_writef(w, "%s (%.1f%% of the time)%s</title>",
                     rf_time_format(t, sizeof t, row->e.time_s, 3), 100 * p->share,
                     p->flags & RF__POINT_HOLLOW ? ", estimate" : ""));
    return RF_OK;
}

/* Open a marker element of `shape` (see rf__series_shape) and the area of a circle of radius
 * r, centred on (X, Y), with classes "pt BOUND KIND"; *tag is its element name. */
static rf_status rf__svg_shape(rf_writer *w, size_t shape, double X, double Y, double r,
                               const char *bound, const char *kind, const char **tag)
{
    const double pi = 3.14159265358979323846;
    if (shape == 0) {
        *tag = "circle";
        return rf_writef(w, "<circle class=\"pt %s %s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", bound,
                         kind, X, Y, r);
    }
    if (shape == 1) { /* a square of the same area as the circle */
        double h = r * sqrt(pi) / 2;
        *tag = "rect";
        return rf_writef(w,
                         "<rect class=\"pt %s %s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                         "height=\"%.2f\"",
                         bound, kind, X - h, Y - h, 2 * h, 2 * h);
    }
    /* a regular polygon of the circle's area: triangle up, diamond, triangle down, pentagon */
    static const unsigned corners[6] = {0, 0, 3, 4, 3, 5};
    static const double turn[6] = {0, 0, -90, -90, 90, -90};
    unsigned nc = corners[shape];
    double R = r * sqrt(2 * pi / (nc * sin(2 * pi / nc)));
    *tag = "polygon";
    RF_TRY(rf_writef(w, "<polygon class=\"pt %s %s\" points=\"", bound, kind));
    for (unsigned i = 0; i < nc; i++) {
        double a = (turn[shape] + 360.0 * i / nc) * pi / 180;
        RF_TRY(rf_writef(w, "%s%.2f,%.2f", i ? " " : "", X + R * cos(a), Y + R * sin(a)));
    }
    return RF_WRITE_LIT(w, "\"");
}

static rf_status rf__svg_marker(void *user, double x, double y, const rf__mark *mk)
{
    rf__svg *s = user;
    rf_writer *w = s->w;
    const double X = rf__svg_px(s, x), Y = rf__svg_py(s, y);
    if (mk->ridge) return rf__svg_ridge(s, X, Y, mk);
    if (!s->group_open) {
        char buf[RF__SERIES_LABEL_MAX];
        RF_TRY(rf_writef(w, "<g class=\"series series-%zu\" data-series=\"%zu\" data-label=\"",
                         s->series % RF__SERIES_STYLES, s->series));
        RF_TRY(rf__xml_text(w, rf__series_label(s->results, s->n, s->series, buf, sizeof buf), 0));
        RF_TRY(RF_WRITE_LIT(w, "\">\n"));
        s->group_open = 1;
    }
    const rf__chart_point *p = &s->charts[s->series].points[mk->index];
    const char *kind = mk->flags & RF__POINT_MEASURED ? "measured"
                       : mk->flags & RF__POINT_HOLLOW ? "estimate hollow"
                                                      : "estimate";
    double r = rf__svg_marker_radius(s, mk->share);
    if (mk->flags & RF__POINT_MEASURED) r = fmax(r, 4.5); /* a solid dot, not a dark ring */
    const char *bound = mk->bound == RF_BOUND_NETWORK   ? "network"
                        : mk->bound == RF_BOUND_COMPUTE ? "compute"
                                                        : "memory";
    /* One series: the shape is the bound (circle memory, square compute, diamond network).
     * Several: the shape is the series (rf__series_shape) and the bound its fill. */
    size_t shape = s->n > 1                        ? rf__series_shape(s->series)
                   : mk->bound == RF_BOUND_NETWORK ? 3
                   : mk->bound == RF_BOUND_COMPUTE ? 1
                                                   : 0;
    const char *tag = NULL;
    RF_TRY(rf__svg_shape(w, shape, X, Y, r, bound, kind, &tag));
    RF_TRY(rf__svg_point_data(s, p));
    if (s->interactive) return RF_WRITE_LIT(w, "/>\n");
    RF_TRY(RF_WRITE_LIT(w, ">"));
    RF_TRY(rf__svg_point_title(s, p));
    return rf_writef(w, "</%s>\n", tag);
}

/* ---- text ------------------------------------------------------------------------------------ */

static rf_status rf__svg_text(void *user, double x, double y, const char *str, rf__text_kind kind,
                              size_t index)
{
    rf__svg *s = user;
    rf_writer *w = s->w;
    const rf__chart *c = &s->charts[0];
    const double X = rf__svg_px(s, x), Y = rf__svg_py(s, y);
    switch (kind) {
    case RF__TEXT_TITLE: return rf__svg_title(s);
    case RF__TEXT_AXIS_X:
        RF_TRY(rf_writef(w,
                         "<text class=\"axis-title\" x=\"%.2f\" y=\"%.2f\" "
                         "text-anchor=\"middle\">",
                         X, s->T + s->PH + 44));
        break;
    case RF__TEXT_AXIS_Y:
        RF_TRY(rf_writef(w,
                         "<text class=\"axis-title\" transform=\"translate(18 %.2f) "
                         "rotate(-90)\" text-anchor=\"middle\">",
                         Y));
        break;
    case RF__TEXT_TICK_X:
        RF_TRY(rf_writef(w,
                         "<text class=\"tick tick-x\" data-decade=\"%.0f\" x=\"%.2f\" "
                         "y=\"%.2f\" text-anchor=\"middle\">",
                         c->x.ticks[index].v, X, Y + 18));
        break;
    case RF__TEXT_TICK_Y:
        RF_TRY(rf_writef(w,
                         "<text class=\"tick tick-y\" data-decade=\"%.0f\" x=\"%.2f\" "
                         "y=\"%.2f\" text-anchor=\"end\" dy=\"0.35em\">",
                         c->y.ticks[index].v, X - 7, Y));
        break;
    case RF__TEXT_ROOF_COMPUTE:
    case RF__TEXT_ROOF_BANDWIDTH: return rf__svg_roof_label(s, index);
    }
    RF_TRY(rf__xml_text(w, str, 0));
    return RF_WRITE_LIT(w, "</text>\n");
}

/* ---- end: further series, the legend --------------------------------------------------------- */

static rf_status rf__svg_end(void *user)
{
    rf__svg *s = user;
    for (size_t k = 1; k < s->n; k++) {
        if (s->group_open) RF_TRY(RF_WRITE_LIT(s->w, "</g>\n"));
        s->group_open = 0;
        s->series = k;
        RF_TRY(rf__chart_draw_points(&s->charts[k], s->dm, s));
    }
    if (s->group_open) RF_TRY(RF_WRITE_LIT(s->w, "</g>\n"));
    s->group_open = 0;
    RF_TRY(rf__svg_legend(s));
    return RF_WRITE_LIT(s->w, "</svg>\n");
}

static const rf__draw_methods rf__svg_methods = {rf__svg_begin, rf__svg_line, rf__svg_marker,
                                                 rf__svg_text, rf__svg_end};

rf_status rf__svg_write(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
                        int interactive, rf_writer *w)
{
    RF_CHECK(ctx, results && n && w, RF_USAGE, "chart: no result to draw");
    for (size_t k = 0; k < n; k++)
        RF_CHECK(ctx, results[k], RF_USAGE, "chart: result %zu is missing", k + 1);
    rf__svg s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx, s.w = w, s.results = results, s.n = n, s.m = m, s.interactive = interactive;
    s.dm = &rf__svg_methods;
    rf__chart *charts = rf__calloc(ctx, n, sizeof *charts);
    if (!charts) return RF_NOMEM_ERR(ctx);
    rf_status st = RF_OK;
    size_t done = 0;
    for (; done < n && st == RF_OK; done++)
        st = rf__chart_layout(ctx, results[done], m, &charts[done]);
    if (st == RF_OK) {
        rf__chart_share_axes(charts, n);
        charts[0].show_minor = interactive; /* the page draws them hidden, behind a toggle */
        s.charts = charts;
        st = rf__chart_draw(&charts[0], &rf__svg_methods, &s);
    }
    for (size_t k = 0; k < n; k++) rf__chart_free(ctx, &charts[k]);
    rf__free(ctx, charts);
    rf__obstacles_free(ctx, &s.obs);
    return st;
}

rf_status rf__chart_too_large(rf_ctx *ctx, rf_status st, const char *what,
                              const rf_result *const *results, size_t n)
{
    if (st != RF_RANGE || rf_ctx_error_status(ctx) != RF_OK) return st;
    size_t rows = 0;
    for (size_t k = 0; results && k < n; k++) rows += results[k] ? results[k]->n_rows : 0;
    return rf__error(ctx, RF_RANGE, -1,
                     "chart: the %s passes the size limit of its output (256 MiB in the roofline "
                     "program) with %zu rows; draw fewer of them (--top N)",
                     what, rows);
}

rf_status rf_report_chart_svg(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                              const rf_machine *m, const rf_report_opts *o, rf_writer *w)
{
    (void)o;
    rf_ctx_clear_error(ctx); /* so a writer's bare RF_RANGE is told apart from a named error */
    rf_status st = rf__svg_write(ctx, results, n_results, m, 0, w);
    return rf__chart_too_large(ctx, st, "SVG", results, n_results);
}
