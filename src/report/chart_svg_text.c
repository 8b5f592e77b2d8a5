/* chart_svg_text.c — the words and sizes of the SVG chart: the title naming the machine and where
 * its figures come from, the roof labels (placed by the label layout step, chart_labels.c), the
 * legend right of the plot (roofs with values and provenance, ridges, bounds as toggles, series),
 * and the numbers and marker sizes the draw methods (chart_svg.c) also use. Called by chart_svg.c,
 * never calling it. Never positions a point: only text and legend swatches. */
#include <math.h>
#include <string.h>

#include "core/rf_int.h"
#include "svg_int.h"

#define RF__LEG_LINE 17.0 /* pixels between legend lines */
#define RF__LEG_NOTE 14.0 /* pixels for a note line */

/* Bytes the titles of all series share at the start, cut back to a space so no word is split
 * (0 when there is one series or nothing worth cutting). */
size_t rf__series_common(const rf_result *const *results, size_t n)
{
    if (n < 2) return 0;
    const char *first = rf__title_base(results[0]);
    size_t common = strlen(first);
    for (size_t k = 1; k < n; k++) {
        const char *t = rf__title_base(results[k]);
        size_t j = 0;
        while (j < common && t[j] == first[j]) j++;
        common = j;
    }
    while (common && first[common - 1] != ' ') common--;
    for (size_t k = 0; k < n; k++) /* every label must keep something of its own */
        if (!rf__title_base(results[k])[common]) return 0;
    return common > 12 ? common : 0;
}

double rf__svg_radius(double share)
{
    return fmax(RF__SVG_RMIN, RF__SVG_RMAX * sqrt(share > 0 ? share : 0));
}

rf_status rf__svg_num(rf_writer *w, const char *attr, double v)
{
    char buf[40];
    if (isinf(v)) return rf_writef(w, " %s=\"%s\"", attr, v > 0 ? "inf" : "-inf");
    if (isnan(v)) return rf_writef(w, " %s=\"nan\"", attr);
    return rf_writef(w, " %s=\"%s\"", attr, rf_number_format(buf, sizeof buf, v));
}

/* The title and subtitle as plain text (not escaped yet). */
static void rf__svg_title_text(const rf__svg *s, char *title, size_t tsize, char *sub, size_t ssize)
{
    const rf_result *r0 = s->results[0];
    char buf[RF__SERIES_LABEL_MAX];
    size_t len = 0;
    title[0] = sub[0] = '\0';
    if (s->n == 1) {
        rf__appendf(title, tsize, &len, "%s", s->charts[0].title);
    } else {
        /* Runs of one model: name it once, then what differs ("... input=A vs input=B"). */
        size_t common = rf__series_common(s->results, s->n);
        const char *base = rf__title_base(r0);
        if (common) rf__appendf(title, tsize, &len, "%.*s", (int)common, base);
        for (size_t k = 0; k < s->n && k < 4; k++)
            rf__appendf(title, tsize, &len, "%s%.80s", k ? " vs " : "",
                        common ? rf__title_base(s->results[k]) + common
                               : rf__series_label(s->results, s->n, k, buf, sizeof buf));
        if (s->n > 4) rf__appendf(title, tsize, &len, " and %zu more", s->n - 4);
        rf__appendf(title, tsize, &len, " on %s", r0->machine);
    }
    len = 0;
    rf__appendf(sub, ssize, &len, "%s \xE2\x80\x94 %s",
                r0->machine_description[0] ? r0->machine_description : r0->machine,
                rf_provenance_name(r0->provenance));
    const char *src = s->m && s->m->source[0] ? s->m->source : r0->compute.source;
    if (src[0]) rf__appendf(sub, ssize, &len, ": %s", src);
}

/* Split `text` into at most `max` lines of at most `cols` code points, breaking after a space,
 * '/', ',' or '_' where there is one in the second half of a line (else mid-word). starts[i] and
 * lens[i] are byte offsets; the last line keeps whatever is left (the writer cuts it with "…").
 * Returns the number of lines (>= 1). */
static size_t rf__wrap(const char *text, size_t cols, size_t max, size_t *starts, size_t *lens)
{
    size_t n = 0, pos = 0, total = strlen(text);
    while (n < max) {
        starts[n] = pos;
        if (n + 1 == max) {
            lens[n++] = total - pos;
            break;
        }
        size_t i = pos, cp = 0, brk = 0;
        while (text[i] && cp < cols) {
            i++;
            while (((unsigned char)text[i] & 0xC0) == 0x80) i++; /* whole code points */
            cp++;
            char ch = text[i - 1];
            if ((ch == ' ' || ch == '/' || ch == ',' || ch == '_') && cp > cols / 2) brk = i;
        }
        if (!text[i]) {
            lens[n++] = i - pos;
            break;
        }
        size_t end = brk ? brk : i;
        lens[n++] = end - pos;
        pos = end;
        while (text[pos] == ' ') pos++;
    }
    return n;
}

#define RF__TITLE_COLS 88 /* 15 px bold over the width of the picture */
#define RF__SUB_COLS 124  /* 11 px */
#define RF__TITLE_LINES 3
#define RF__SUB_LINES 2
#define RF__TITLE_STEP 19.0
#define RF__SUB_STEP 14.0

double rf__svg_title_height(const rf__svg *s)
{
    char title[RF__SERIES_LABEL_MAX * 4], sub[RF_TEXT_MAX * 3];
    size_t st[RF__TITLE_LINES], ln[RF__TITLE_LINES];
    rf__svg_title_text(s, title, sizeof title, sub, sizeof sub);
    size_t nt = rf__wrap(title, RF__TITLE_COLS, RF__TITLE_LINES, st, ln);
    size_t ns = rf__wrap(sub, RF__SUB_COLS, RF__SUB_LINES, st, ln);
    return (double)(nt - 1) * RF__TITLE_STEP + (double)(ns - 1) * RF__SUB_STEP;
}

static rf_status rf__svg_lines(rf__svg *s, const char *cls, const char *text, size_t cols,
                               size_t max, double y, double step)
{
    size_t st[RF__TITLE_LINES], ln[RF__TITLE_LINES];
    size_t n = rf__wrap(text, cols, max, st, ln);
    rf_writer *w = s->w;
    RF_TRY(rf_writef(w, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\">", cls, s->L, y));
    for (size_t i = 0; i < n; i++) {
        char line[RF__SERIES_LABEL_MAX * 4];
        size_t k = ln[i] < sizeof line ? ln[i] : sizeof line - 1;
        memcpy(line, text + st[i], k);
        line[k] = '\0';
        RF_TRY(rf_writef(w, "<tspan x=\"%.2f\" dy=\"%.0f\">", s->L, i ? step : 0));
        RF_TRY(rf__xml_text(w, line, i + 1 == n ? cols : 0));
        RF_TRY(RF_WRITE_LIT(w, "</tspan>"));
    }
    return RF_WRITE_LIT(w, "</text>\n");
}

rf_status rf__svg_title(rf__svg *s)
{
    char title[RF__SERIES_LABEL_MAX * 4], sub[RF_TEXT_MAX * 3];
    rf__svg_title_text(s, title, sizeof title, sub, sizeof sub);
    size_t st[RF__TITLE_LINES], ln[RF__TITLE_LINES];
    size_t nt = rf__wrap(title, RF__TITLE_COLS, RF__TITLE_LINES, st, ln);
    RF_TRY(rf__svg_lines(s, "title", title, RF__TITLE_COLS, RF__TITLE_LINES, 26, RF__TITLE_STEP));
    return rf__svg_lines(s, "sub", sub, RF__SUB_COLS, RF__SUB_LINES,
                         45 + (double)(nt - 1) * RF__TITLE_STEP, RF__SUB_STEP);
}

rf_status rf__svg_roof_label(rf__svg *s, size_t index)
{
    const rf__chart *c = &s->charts[0];
    const rf__chart_roof *ro = &c->roofs[index];
    for (size_t j = 0; j < c->n_roofs && index < RF__SVG_LABELS_MAX; j++) {
        const rf__chart_roof *o = &c->roofs[j];
        if (j == index || o->kind != ro->kind || o->value != ro->value) continue;
        if (o->primary > ro->primary || (o->primary == ro->primary && j < index)) {
            s->label_state[index] = (unsigned short)(2 + j); /* drawn under roof j's line */
            return RF_OK;
        }
    }
    rf__label_place pl;
    RF_TRY(rf__label_place_roof(s->ctx, &s->obs, rf__svg_px(s, rf__chart_nx(c, ro->x0)),
                                rf__svg_py(s, rf__chart_ny(c, ro->y0)),
                                rf__svg_px(s, rf__chart_nx(c, ro->x1)),
                                rf__svg_py(s, rf__chart_ny(c, ro->y1)), rf__xml_cols(ro->label),
                                rf__xml_cols(ro->name), RF__SVG_CHAR_W, RF__SVG_TEXT_H, &pl));
    if (!pl.placed) {
        if (index < RF__SVG_LABELS_MAX) s->label_state[index] = 1;
        return RF_OK;
    }
    RF_TRY(rf_writef(s->w,
                     "<text class=\"rooflabel %s\" data-roof=\"%zu\" transform=\"translate("
                     "%.2f %.2f) rotate(%.2f)\" text-anchor=\"middle\" dy=\"0.35em\">",
                     ro->primary ? "primary" : "secondary", index, pl.cx, pl.cy, pl.angle_deg));
    RF_TRY(rf__xml_text(s->w, pl.name_only ? ro->name : ro->label, 0));
    return RF_WRITE_LIT(s->w, "</text>\n");
}

/* ---- the legend ------------------------------------------------------------------------------ */

static void rf__svg_counts(const rf__svg *s, size_t *mem, size_t *cmp, size_t *net, size_t *undef,
                           size_t *noflops, size_t *clamped, int *measured)
{
    *mem = *cmp = *net = *undef = *noflops = *clamped = 0;
    *measured = 0;
    for (size_t k = 0; k < s->n; k++) {
        const rf__chart *c = &s->charts[k];
        for (size_t i = 0; i < c->n_points; i++) {
            if (c->points[i].flags & RF__POINT_MEASURED) { /* counted with its estimate */
                *measured = 1;
                continue;
            }
            rf_bound b = c->points[i].bound;
            *(b == RF_BOUND_COMPUTE ? cmp : b == RF_BOUND_NETWORK ? net : mem) += 1;
        }
        *mem += c->sum_bound[0], *cmp += c->sum_bound[1], *net += c->sum_bound[2];
        *undef += c->n_undefined, *noflops += c->n_no_flops, *clamped += c->n_clamped;
    }
}

double rf__svg_legend_height(const rf__svg *s)
{
    size_t mem, cmp, net, undef, noflops, clamped;
    int measured;
    rf__svg_counts(s, &mem, &cmp, &net, &undef, &noflops, &clamped, &measured);
    const rf__chart *c = &s->charts[0];
    double h = 2 * RF__LEG_LINE + (double)(c->n_roofs - c->n_minor) * (RF__LEG_LINE + RF__LEG_NOTE);
    h += (c->n_minor > 0) * RF__LEG_LINE;
    h += RF__LEG_LINE * (double)(c->n_ridges > 1 ? 2 : 1) + RF__LEG_LINE; /* ridges, header */
    h += 2 * RF__LEG_LINE + (undef > 0) * RF__LEG_LINE + (noflops > 0) * RF__LEG_LINE;
    h += (net > 0) * (RF__LEG_LINE + RF__LEG_NOTE);
    h += (clamped > 0) * RF__LEG_NOTE + 2 * RF__LEG_NOTE + (measured != 0) * 2 * RF__LEG_LINE;
    if (s->n > 1) h += RF__LEG_LINE * (double)(s->n + 1);
    for (size_t k = 0; k < s->n; k++) h += (s->charts[k].n_summarised > 0) * 2 * RF__LEG_LINE;
    return h;
}

static rf_status rf__leg_header(rf__svg *s, double x, double *y, const char *text)
{
    *y += RF__LEG_LINE;
    RF_TRY(rf_writef(s->w,
                     "<text class=\"legend-head\" x=\"%.2f\" y=\"%.2f\" "
                     "font-weight=\"bold\">%s</text>\n",
                     x, *y, text));
    return RF_OK;
}

/* A legend swatch: a marker of `shape` (rf__series_shape), radius r, classes "swatch CLS". */
static rf_status rf__svg_swatch(rf_writer *w, size_t shape, double X, double Y, double r,
                                const char *cls, const char *extra)
{
    const double pi = 3.14159265358979323846;
    if (shape == 0)
        return rf_writef(w, "<circle class=\"swatch %s%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"/>",
                         cls, extra, X, Y, r);
    if (shape == 1)
        return rf_writef(w,
                         "<rect class=\"swatch %s%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                         "height=\"%.2f\"/>",
                         cls, extra, X - r * 0.9, Y - r * 0.9, 1.8 * r, 1.8 * r);
    static const unsigned corners[6] = {0, 0, 3, 4, 3, 5};
    static const double turn[6] = {0, 0, -90, -90, 90, -90};
    unsigned nc = corners[shape % 6];
    RF_TRY(rf_writef(w, "<polygon class=\"swatch %s%s\" points=\"", cls, extra));
    for (unsigned i = 0; i < nc; i++) {
        double a = (turn[shape % 6] + 360.0 * i / nc) * pi / 180;
        RF_TRY(rf_writef(w, "%s%.2f,%.2f", i ? " " : "", X + 1.15 * r * cos(a),
                         Y + 1.15 * r * sin(a)));
    }
    return RF_WRITE_LIT(w, "\"/>");
}

static rf_status rf__leg_roofs(rf__svg *s, double x, double *y)
{
    const rf__chart *c = &s->charts[0];
    rf_writer *w = s->w;
    RF_TRY(rf__leg_header(s, x, y, "Ceilings"));
    for (size_t i = 0; i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        if (ro->minor) continue;
        *y += RF__LEG_LINE;
        RF_TRY(rf_writef(w,
                         "<line class=\"roof %s %s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                         "y2=\"%.2f\"/>",
                         ro->kind == RF_CEILING_COMPUTE ? "compute" : "bandwidth",
                         ro->primary ? "primary" : "secondary", x, *y - 4, x + 24, *y - 4));
        RF_TRY(rf_writef(w, "<text x=\"%.2f\" y=\"%.2f\" data-roof=\"%zu\">", x + 30, *y, i));
        RF_TRY(rf__xml_text(w, ro->name, 18));
        RF_TRY(rf_writef(w, " %s</text>\n", ro->value_text));
        *y += RF__LEG_NOTE;
        unsigned st = i < RF__SVG_LABELS_MAX ? s->label_state[i] : 0;
        RF_TRY(rf_writef(w, "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">%s%s%s%s", x + 30, *y - 2,
                         rf_provenance_name(ro->provenance),
                         ro->primary ? ", used for the analysis" : "",
                         ro->visible ? "" : ", off the chart", st == 1 ? ", unlabelled" : ""));
        if (st >= 2) {
            RF_TRY(RF_WRITE_LIT(w, ", same line as "));
            RF_TRY(rf__xml_text(w, c->roofs[st - 2].name, 16));
        }
        RF_TRY(RF_WRITE_LIT(w, "</text>\n"));
    }
    if (c->n_minor) { /* the roofs left out: a toggle on the page, a note in a picture */
        *y += RF__LEG_LINE;
        if (s->interactive)
            RF_TRY(rf_writef(w,
                             "<text class=\"legend-minor\" data-toggle-minor=\"1\" "
                             "x=\"%.2f\" y=\"%.2f\">+ %zu more ceilings (click to show)</text>\n",
                             x, *y, c->n_minor));
        else
            RF_TRY(rf_writef(w,
                             "<text class=\"note minor-note\" data-minor=\"%zu\" x=\"%.2f\" "
                             "y=\"%.2f\">+ %zu slower ceilings not drawn</text>\n",
                             c->n_minor, x, *y, c->n_minor));
    }
    size_t i = 0;                                        /* position among the ridges shown */
    for (size_t k = 0; k < c->n_ridges && i <= 3; k++) { /* the analysis' ridge comes first */
        const rf__chart_ridge *g = &c->ridges[k];
        if (c->roofs[g->roof].minor) continue;
        if (i <= 1) *y += RF__LEG_LINE;
        if (i == 0)
            RF_TRY(rf_writef(w,
                             "<path class=\"ridge primary\" d=\"M%.2f %.2fl5 5-5 5-5-5z\"/>"
                             "<text x=\"%.2f\" y=\"%.2f\">ridge %s FLOP/byte (",
                             x + 12, *y - 9, x + 30, *y, g->ai_text));
        else
            RF_TRY(rf_writef(w, "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">",
                             x + 30 + (double)(i - 1) * 68, *y));
        RF_TRY(rf__xml_text(w, c->roofs[g->roof].name, i ? 8 : 16));
        RF_TRY(i ? rf_writef(w, " %s</text>\n", g->ai_text) : RF_WRITE_LIT(w, ")</text>\n"));
        i++;
    }
    return RF_OK;
}

/* One toggle entry: a swatch (circle or square) and its text; data-toggle for the page. */
static rf_status rf__leg_bound(rf__svg *s, double x, double *y, const char *bound, size_t count,
                               const char *text)
{
    rf_writer *w = s->w;
    *y += RF__LEG_LINE;
    RF_TRY(rf_writef(w, "<g class=\"legend-item\" data-toggle=\"%s\">", bound));
    if (strcmp(bound, "compute") == 0)
        RF_TRY(rf_writef(w,
                         "<rect class=\"swatch compute\" x=\"%.2f\" y=\"%.2f\" width=\"11\" "
                         "height=\"11\"/>",
                         x + 6.5, *y - 10));
    else if (strcmp(bound, "memory") == 0)
        RF_TRY(rf_writef(w, "<circle class=\"swatch memory\" cx=\"%.2f\" cy=\"%.2f\" r=\"6\"/>",
                         x + 12, *y - 4.5));
    else if (strcmp(bound, "network") == 0)
        RF_TRY(rf_writef(w,
                         "<polygon class=\"swatch network\" points=\"%.2f,%.2f %.2f,%.2f %.2f,%.2f "
                         "%.2f,%.2f\"/>",
                         x + 12, *y - 11, x + 18.5, *y - 4.5, x + 12, *y + 2, x + 5.5, *y - 4.5));
    return rf_writef(w, "<text x=\"%.2f\" y=\"%.2f\">%s (%zu)</text></g>\n", x + 30, *y, text,
                     count);
}

static rf_status rf__leg_points(rf__svg *s, double x, double *y)
{
    size_t mem, cmp, net, undef, noflops, clamped;
    int measured;
    rf__svg_counts(s, &mem, &cmp, &net, &undef, &noflops, &clamped, &measured);
    rf_writer *w = s->w;
    RF_TRY(rf__leg_header(s, x, y, "Operations"));
    RF_TRY(rf__leg_bound(s, x, y, "memory", mem, "memory-bound"));
    RF_TRY(rf__leg_bound(s, x, y, "compute", cmp, "compute-bound"));
    if (net) RF_TRY(rf__leg_bound(s, x, y, "network", net, "network-bound"));
    if (undef) RF_TRY(rf__leg_bound(s, x, y, "undefined", undef, "undefined, not plotted"));
    if (noflops) RF_TRY(rf__leg_bound(s, x, y, "noflops", noflops, "no FLOPs, not plotted"));
    for (size_t k = 0; k < s->n; k++) { /* a big input: what the density holds */
        const rf__chart *c = &s->charts[k];
        if (!c->n_summarised) continue;
        *y += RF__LEG_LINE;
        RF_TRY(rf_writef(w,
                         "<rect class=\"swatch dens\" x=\"%.2f\" y=\"%.2f\" width=\"11\" "
                         "height=\"11\" fill-opacity=\"0.5\"/><text class=\"density-note\" "
                         "data-rows=\"%zu\" x=\"%.2f\" y=\"%.2f\">%zu more rows: density</text>\n",
                         x + 6.5, *y - 10, c->n_summarised, x + 30, *y, c->n_summarised));
        *y += RF__LEG_LINE;
        RF_TRY(rf_writef(w,
                         "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">markers: top %zu; rest "
                         "%.1f%% of time</text>\n",
                         x, *y, c->n_points - c->n_measured, 100 * c->sum_share));
    }
    if (measured) { /* a swatch of each kind of marker, drawn as on the plot */
        *y += RF__LEG_LINE;
        RF_TRY(rf__svg_swatch(w, 0, x + 12, *y - 4.5, 6, "measured", ""));
        RF_TRY(rf_writef(w,
                         "<text class=\"kind-measured\" x=\"%.2f\" y=\"%.2f\">measured "
                         "(solid)</text>\n",
                         x + 30, *y));
        *y += RF__LEG_LINE;
        RF_TRY(rf__svg_swatch(w, 0, x + 12, *y - 4.5, 6, "hollow", ""));
        RF_TRY(rf_writef(w,
                         "<text class=\"kind-estimate\" x=\"%.2f\" y=\"%.2f\">model "
                         "estimate (open)</text>\n",
                         x + 30, *y));
    }
    const char *notes[5] = {clamped ? "some points off scale: drawn on the edge" : NULL,
                            net ? "network-bound: x is FLOPs per network byte" : NULL,
                            "marker area \xE2\x88\x9D share of the time",
                            measured ? NULL : "all points: model estimates",
                            measured ? "dashed line: from estimate to measured" : NULL};
    for (size_t k = 0; k < 5; k++) {
        if (!notes[k]) continue;
        *y += RF__LEG_NOTE;
        RF_TRY(rf_writef(w, "<text class=\"note\" x=\"%.2f\" y=\"%.2f\">%s</text>\n", x, *y,
                         notes[k]));
    }
    return RF_OK;
}

static rf_status rf__leg_series(rf__svg *s, double x, double *y)
{
    rf_writer *w = s->w;
    char buf[RF__SERIES_LABEL_MAX];
    RF_TRY(rf__leg_header(s, x, y, "Series"));
    for (size_t k = 0; k < s->n; k++) {
        *y += RF__LEG_LINE;
        RF_TRY(rf_writef(w,
                         "<g class=\"legend-item series series-%zu\" data-toggle-series=\"%zu\">",
                         k % RF__SERIES_STYLES, k));
        RF_TRY(rf__svg_swatch(w, rf__series_shape(k), x + 12, *y - 4.5, 6, "series-swatch", ""));
        RF_TRY(rf_writef(w, "<text x=\"%.2f\" y=\"%.2f\">", x + 30, *y));
        RF_TRY(rf__xml_text(w, rf__series_label(s->results, s->n, k, buf, sizeof buf), 28));
        RF_TRY(RF_WRITE_LIT(w, "</text></g>\n"));
    }
    return RF_OK;
}

rf_status rf__svg_legend(rf__svg *s)
{
    double x = s->L + s->PW + 24, y = s->T - 6;
    RF_TRY(RF_WRITE_LIT(s->w, "<g class=\"legend\">\n"));
    RF_TRY(rf__leg_roofs(s, x, &y));
    y += RF__LEG_LINE / 2;
    RF_TRY(rf__leg_points(s, x, &y));
    if (s->n > 1) {
        y += RF__LEG_LINE / 2;
        RF_TRY(rf__leg_series(s, x, &y));
    }
    return RF_WRITE_LIT(s->w, "</g>\n");
}
