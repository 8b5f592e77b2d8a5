/* chart_ascii_legend.c — the legend of the terminal chart (chart_ascii.c): the roofs with their
 * values and provenance, the ridge points, and one line per point (letter, name, intensity,
 * rate), points hidden under another letter sharing its line, a big input's density named. */
#include <math.h>
#include <stdio.h>

#include "chart_ascii_int.h"

static const char *rf__roof_style(const rf__ascii *a, const rf__chart_roof *ro)
{
    if (!ro->primary) return a->utf8 ? "····" : "....";
    if (ro->kind == RF_CEILING_COMPUTE) return a->utf8 ? "────" : "----";
    return a->utf8 ? "╱╱╱╱" : "////";
}

/* Append s when it fits whole in what is left of the line; returns 1 when appended. */
static int rf__line_maybe(rf__line *l, const char *s)
{
    if (rf__cols(s) > l->max - l->cols) return 0;
    rf__line_text(l, s, SIZE_MAX);
    return 1;
}

static void rf__prov_text(char *buf, size_t size, const rf__chart_roof *ro)
{
    size_t len = 0;
    buf[0] = '\0';
    rf__appendf(buf, size, &len, " (%s%s)", rf_provenance_name(ro->provenance),
                ro->visible ? "" : ", off the chart");
}

/* "---- fp32.fma.avx512  7.17 TFLOP/s (datasheet)", one per roof, names aligned and cut so the
 * value fits; the provenances only when they all fit. */
static rf_status rf__legend_roofs(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    size_t nw = 0, vw = 0, tw = 0;
    char prov[48];
    for (size_t i = 0; i < c->n_roofs; i++) {
        rf__prov_text(prov, sizeof prov, &c->roofs[i]);
        nw = rf__zmax(nw, rf__cols(c->roofs[i].name));
        vw = rf__zmax(vw, strlen(c->roofs[i].value_text));
        tw = rf__zmax(tw, strlen(c->roofs[i].value_text) + strlen(prov));
    }
    int with_prov = 5 + nw + 2 + tw <= a->width;
    if (!with_prov && 5 + nw + 2 + vw > a->width) nw = a->width - 5 - 2 - vw;
    for (size_t i = 0; i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        rf__prov_text(prov, sizeof prov, ro);
        rf__line_text(l, rf__roof_style(a, ro), 4);
        rf__line_pad(l, 5);
        rf__line_text(l, ro->name, nw);
        rf__line_pad(l, 5 + nw + 2);
        rf__line_text(l, ro->value_text, SIZE_MAX);
        if (with_prov) rf__line_text(l, prov, SIZE_MAX);
        RF_TRY(rf__line_flush(l, w));
    }
    return RF_OK;
}

/* "+    ridge 23.3 FLOP/byte (DRAM); L2 3.58": the analysis' ridge, then the others that fit. */
static rf_status rf__legend_ridges(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    char buf[RF_NAME_MAX + 64];
    for (size_t i = 0; i < c->n_ridges; i++) {
        const rf__chart_ridge *g = &c->ridges[i];
        if (!g->primary) continue;
        rf__line_text(l, a->utf8 ? "◆" : "+", 1);
        rf__line_pad(l, 5);
        size_t len = 0;
        rf__appendf(buf, sizeof buf, &len, "ridge %s FLOP/byte (%s)", g->ai_text,
                    c->roofs[g->roof].name);
        rf__line_text(l, buf, SIZE_MAX);
    }
    for (size_t i = 0, first = 1; i < c->n_ridges; i++) {
        const rf__chart_ridge *g = &c->ridges[i];
        if (g->primary) continue;
        size_t len = 0;
        rf__appendf(buf, sizeof buf, &len, "%s%s %s", first ? "; " : ", ", c->roofs[g->roof].name,
                    g->ai_text);
        if (!rf__line_maybe(l, buf)) break;
        first = 0;
    }
    return rf__line_flush(l, w);
}

/* Rates as in the layout ("1.23 TFLOP/s"), or compact ("1.23T") when the width is short. */
static void rf__rate_text(char *buf, size_t size, const rf__chart_point *p, int compact)
{
    if (!compact) {
        rf__strlcpy(buf, p->attainable_text, size);
        return;
    }
    char tmp[32];
    rf_si_format(tmp, sizeof tmp, p->attainable_flops_per_s, 3, "");
    size_t j = 0;
    for (size_t i = 0; tmp[i] && j + 1 < size; i++)
        if (tmp[i] != ' ') buf[j++] = tmp[i];
    buf[j] = '\0';
}

/* Columns after the name: "  AI <aw>  <tw>  compute"; with compact rates when `compact`. */
static size_t rf__point_rest(const rf__chart *c, int compact, size_t *aw, size_t *tw)
{
    char rate[32];
    *aw = *tw = 0;
    for (size_t i = 0; i < c->n_points; i++) {
        rf__rate_text(rate, sizeof rate, &c->points[i], compact);
        *aw = rf__zmax(*aw, strlen(c->points[i].ai_text));
        *tw = rf__zmax(*tw, strlen(rate));
    }
    return 2 + 3 + *aw + 2 + *tw + 2 + 7;
}

static void rf__point_line(rf__ascii *a, rf__line *l, size_t i, size_t nw, size_t aw, size_t tw,
                           int compact, size_t more)
{
    const rf__chart_point *p = &a->c->points[i];
    char g[2] = {p->glyph, '\0'}, rate[32];
    rf__rate_text(rate, sizeof rate, p, compact);
    rf__line_text(l, g, 1);
    rf__line_pad(l, 3);
    rf__line_text(l, p->name, nw);
    rf__line_pad(l, 3 + nw + 2);
    rf__line_text(l, "AI ", 3);
    rf__line_pad(l, l->cols + aw - strlen(p->ai_text));
    rf__line_text(l, p->ai_text, SIZE_MAX);
    rf__line_pad(l, l->cols + 2 + tw - strlen(rate));
    rf__line_text(l, rate, SIZE_MAX);
    rf__line_pad(l, l->cols + 2);
    size_t bound_at = l->cols;
    rf__line_text(l, rf_bound_name(p->bound), SIZE_MAX);
    if (p->bound == RF_BOUND_NETWORK) rf__line_maybe(l, " (AI: FLOPs per network byte)");
    if (p->flags & RF__POINT_CLAMPED) rf__line_maybe(l, "  (off scale)");
    if (p->pair != SIZE_MAX) { /* its measurement, on the same line */
        const rf__chart_point *m = &a->c->points[p->pair];
        char buf[80];
        rf__rate_text(rate, sizeof rate, m, compact);
        rf__line_pad(l, bound_at + 7);
        snprintf(buf, sizeof buf, "  measured %s (%.0f%%)%s", rate,
                 100 * m->attainable_flops_per_s / p->attainable_flops_per_s,
                 m->flags & RF__POINT_CLAMPED ? " off scale" : "");
        rf__line_maybe(l, buf);
    }
    if (more) { /* the estimates drawn under it: one line for them all (the table names them) */
        char buf[48];
        rf__line_pad(l, bound_at + 7);
        snprintf(buf, sizeof buf, "  (+%zu more here)", more);
        rf__line_maybe(l, buf);
    }
    if (a->same_as[i] != SIZE_MAX && !(p->flags & RF__POINT_MEASURED)) {
        char s[] = "  (at the same place as ?)";
        s[sizeof s - 3] = a->c->points[a->same_as[i]].glyph;
        rf__line_maybe(l, s);
    }
}

/* Point i: an estimate without a measurement drawn over by another such estimate. */
static int rf__hidden_estimate(const rf__ascii *a, size_t i)
{
    const rf__chart *c = a->c;
    size_t o = a->same_as[i];
    return o != SIZE_MAX && c->points[i].pair == SIZE_MAX &&
           !(c->points[i].flags & RF__POINT_MEASURED) && c->points[o].pair == SIZE_MAX &&
           !(c->points[o].flags & RF__POINT_MEASURED);
}

/* "A  attention.qkv  AI 12.3  1.23 TFLOP/s  memory", one per point, names cut to fit the width;
 * compact rates ("1.23T") when the names would get fewer than 12 columns. */
static rf_status rf__legend_points(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    size_t nw = 0, aw, tw;
    for (size_t i = 0; i < c->n_points; i++) nw = rf__zmax(nw, rf__cols(c->points[i].name));
    size_t *more = rf__calloc(a->ctx, c->n_points + 1, sizeof *more), most = 0;
    if (!more) return RF_NOMEM_ERR(a->ctx);
    for (size_t i = 0; i < c->n_points; i++)
        if (rf__hidden_estimate(a, i)) most = rf__zmax(most, ++more[a->same_as[i]]);
    char tail[48] = "";
    if (most) snprintf(tail, sizeof tail, "  (+%zu more here)", most);
    size_t rest = 3 + strlen(tail) + rf__point_rest(c, 0, &aw, &tw);
    int compact = nw + rest > a->width && a->width < rest + 12;
    if (compact) rest = 3 + strlen(tail) + rf__point_rest(c, 1, &aw, &tw);
    if (nw + rest > a->width) nw = a->width > rest + 8 ? a->width - rest : 8;
    /* an estimate hidden under another estimate's letter gets no line of its own: the line of
     * the one drawn counts it (ResNet-18's 17 ReLUs at one point: one line, not 17) */
    rf_status st = RF_OK;
    for (size_t i = 0; i < c->n_points && st == RF_OK; i++) {
        if (c->points[i].flags & RF__POINT_MEASURED) continue; /* on its estimate's line */
        if (rf__hidden_estimate(a, i)) continue;
        rf__point_line(a, l, i, nw, aw, tw, compact, more[i]);
        st = rf__line_flush(l, w);
    }
    rf__free(a->ctx, more);
    RF_TRY(st);
    if (!c->n_measured) return RF_OK;
    rf__line_text(l,
                  a->utf8
                      ? "letter: measured; \xE2\x97\x8B: its estimate on the roof; ':' joins them; "
                        "(%) of the roof"
                      : "letter: measured; o: its estimate on the roof; ':' joins them; (%) "
                        "of the roof",
                  SIZE_MAX);
    return rf__line_flush(l, w);
}

/* ---- the brief legend (rf_report_opts.brief): a few lines, whatever the number of roofs ---- */

/* Append `s` to the line, after "  " when the line has text; when it does not fit, flush the line
 * and go on on the next, indented 5. */
static rf_status rf__brief_item(rf__line *l, rf_writer *w, const char *s)
{
    size_t n = rf__cols(s);
    if (l->cols && l->cols + 2 + n > l->max) {
        RF_TRY(rf__line_flush(l, w));
        rf__line_pad(l, 5);
    } else if (l->cols) {
        rf__line_text(l, "  ", 2);
    }
    rf__line_text(l, s, l->max - l->cols);
    return RF_OK;
}

/* "──── fp32.fma.avx512  ╱╱╱╱ DRAM  ◆ ridge  ···· other roofs (measured):  fp64.fma.avx512 170
 * GFLOP/s  L1 698 GB/s", wrapped: the table's header gives the analysis' own figures. */
static rf_status rf__brief_roofs(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    char buf[RF_NAME_MAX + 96];
    int one_prov = 1;
    for (size_t i = 0; i < c->n_roofs; i++)
        one_prov &= c->roofs[i].provenance == c->roofs[0].provenance;
    for (size_t i = 0; i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        if (!ro->primary) continue;
        snprintf(buf, sizeof buf, "%s %s", rf__roof_style(a, ro), ro->name);
        RF_TRY(rf__brief_item(l, w, buf));
    }
    for (size_t i = 0; i < c->n_ridges; i++)
        if (c->ridges[i].primary)
            RF_TRY(rf__brief_item(l, w, a->utf8 ? "\xE2\x97\x86 ridge" : "+ ridge"));
    if (c->n_roofs > 2) {
        snprintf(buf, sizeof buf, "%s other roofs%s%s%s:", a->utf8 ? "····" : "....",
                 one_prov ? " (" : "", one_prov ? rf_provenance_name(c->roofs[0].provenance) : "",
                 one_prov ? ")" : "");
        RF_TRY(rf__brief_item(l, w, buf));
    }
    for (size_t i = 0; i < c->n_roofs; i++) {
        const rf__chart_roof *ro = &c->roofs[i];
        if (ro->primary) continue;
        snprintf(buf, sizeof buf, "%s %s%s%s%s%s", ro->name, ro->value_text, one_prov ? "" : " (",
                 one_prov ? "" : rf_provenance_name(ro->provenance), one_prov ? "" : ")",
                 ro->visible ? "" : " (off the chart)");
        RF_TRY(rf__brief_item(l, w, buf));
    }
    return rf__line_flush(l, w);
}

/* "A-H: table rows 1-8; C D E under B, G H under F" (a cell shows one letter), and the key of
 * measured points. */
static rf_status rf__brief_points(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    char buf[256];
    size_t n_est = c->n_points - c->n_measured, said = 0;
    if (!n_est) return RF_OK;
    if (n_est == 1)
        snprintf(buf, sizeof buf, "%c: the table's row", c->points[0].glyph);
    else
        snprintf(buf, sizeof buf, "%c-%c: table rows 1-%zu", c->points[0].glyph,
                 c->points[n_est - 1].glyph, n_est);
    size_t len = strlen(buf);
    /* the letters hidden in a cell another point holds: the estimates' letters, or with
     * measurements the measured points' (their estimates are hollow marks) */
    size_t lo = c->n_measured ? n_est : 0, hi = c->n_measured ? c->n_points : n_est;
    for (size_t o = 0; o < c->n_points; o++) {
        size_t k = 0;
        for (size_t i = lo; i < hi; i++)
            if (a->same_as[i] == o && k < 12)
                rf__appendf(buf, sizeof buf, &len, "%s%c",
                            k++      ? " "
                            : said++ ? ", "
                                     : "; ",
                            c->points[i].glyph);
        const rf__chart_point *po = &c->points[o];
        int hollow = (po->flags & RF__POINT_HOLLOW) && po->pair != SIZE_MAX;
        if (k && hollow)
            rf__appendf(buf, sizeof buf, &len, " under %s", a->utf8 ? "\xE2\x97\x8B" : "o");
        else if (k)
            rf__appendf(buf, sizeof buf, &len, " under %c", po->glyph);
    }
    rf__line_text(l, buf, l->max);
    RF_TRY(rf__line_flush(l, w));
    if (!c->n_measured) return RF_OK;
    rf__line_text(l,
                  a->utf8
                      ? "letter: measured; \xE2\x97\x8B: its estimate on the roof; ':' joins them"
                      : "letter: measured; o: its estimate on the roof; ':' joins them",
                  SIZE_MAX);
    return rf__line_flush(l, w);
}

rf_status rf__ascii_legend(rf__ascii *a, rf__line *l, rf_writer *w)
{
    const rf__chart *c = a->c;
    if (a->brief) {
        RF_TRY(rf__brief_roofs(a, l, w));
        RF_TRY(rf__brief_points(a, l, w));
    } else {
        RF_TRY(rf__line_flush(l, w));
        RF_TRY(rf__legend_roofs(a, l, w));
        RF_TRY(rf__legend_ridges(a, l, w));
        RF_TRY(rf__legend_points(a, l, w));
    }
    if (c->n_summarised && a->dens_most) { /* what the shading stands for */
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%s %zu more rows (%.1f%% of the time) as a density: 1 to %lu rows a cell",
                 a->utf8 ? "\xE2\x96\x91\xE2\x96\x92\xE2\x96\x93" : ".:%", c->n_summarised,
                 100 * c->sum_share, (unsigned long)a->dens_most);
        rf__line_text(l, buf, SIZE_MAX);
        RF_TRY(rf__line_flush(l, w));
    }
    if (!c->n_unplotted) return RF_OK;
    char buf[96];
    size_t len = 0;
    rf__appendf(buf, sizeof buf, &len, "not plotted:");
    if (c->n_undefined) rf__appendf(buf, sizeof buf, &len, " %zu undefined", c->n_undefined);
    if (c->n_undefined && c->n_no_flops) rf__appendf(buf, sizeof buf, &len, ",");
    if (c->n_no_flops) rf__appendf(buf, sizeof buf, &len, " %zu with no FLOPs", c->n_no_flops);
    rf__line_text(l, buf, SIZE_MAX);
    return rf__line_flush(l, w);
}
