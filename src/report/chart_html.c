/* chart_html.c — the interactive HTML back end of the roofline chart (rf_report_chart_html): one
 * self-contained page, no network (a Content-Security-Policy forbids every fetch): the SVG of
 * chart_svg.c inline, a little CSS (light/dark from prefers-color-scheme) and script (tooltip per
 * marker, legend entries hiding a bound or a series, table sortable by column). The script reads
 * the figures from the markers' data-* attributes; it never computes a position. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"
#include "svg_int.h"

static const char rf__html_css[] =
    "<style>\n"
    ":root{color-scheme:light dark;--fg:#1a202c;--bg:#fff;--muted:#4a5568;--line:#e2e8f0;"
    "--head:#f7fafc}\n"
    "@media (prefers-color-scheme:dark){:root{--fg:#e2e8f0;--bg:#16181d;--muted:#a0aec0;"
    "--line:#2d3340;--head:#1f232b}}\n"
    "body{margin:0;background:var(--bg);color:var(--fg);"
    "font:14px 'DejaVu Sans',Arial,Helvetica,sans-serif}\n"
    "main{max-width:980px;margin:16px auto;padding:0 12px}\n"
    ".chart svg{max-width:100%;height:auto;display:block}\n"
    ".legend-item{cursor:pointer}.legend-item.off{opacity:.3}.pt{cursor:pointer}"
    ".pt:hover{stroke-width:2.6}\n"
    ".hint{color:var(--muted);font-size:12px;margin:4px 0 8px}\n"
    ".tip{position:fixed;pointer-events:none;background:var(--bg);color:var(--fg);"
    "border:1px solid var(--muted);padding:6px 9px;border-radius:4px;font-size:12px;"
    "box-shadow:0 2px 10px rgba(0,0,0,.25);max-width:340px;z-index:2}\n"
    ".tip b{display:block;margin-bottom:3px;overflow-wrap:anywhere}.tip span{display:block}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:right;"
    "white-space:nowrap}\n"
    "th{cursor:pointer;background:var(--head);position:sticky;top:0;user-select:none}\n"
    "th.text,td.text{text-align:left}td.name{max-width:300px;overflow:hidden;"
    "text-overflow:ellipsis}\n"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after"
    "{content:' \\25BC'}\n"
    "td.memory{color:#2b6cb0}td.compute{color:#c05621}\n"
    "@media (prefers-color-scheme:dark){td.memory{color:#63b3ed}td.compute{color:#f6ad55}}\n"
    "</style>\n";

static const char rf__html_js[] =
    "<script>\n"
    "(function () {\n"
    "  'use strict';\n"
    "  var svg = document.querySelector('svg.roofline');\n"
    "  var tip = document.getElementById('rf-tip');\n"
    "  var table = document.getElementById('rf-table');\n"
    "  var hidden = {}, hiddenSeries = {};\n"
    "  function num(s) { return s === 'inf' ? Infinity : s === '' ? NaN : parseFloat(s); }\n"
    "  function si(v, unit) {\n"
    "    if (!isFinite(v)) return v > 0 ? 'inf' : '-';\n"
    "    var p = ['', 'k', 'M', 'G', 'T', 'P', 'E'], i = 0;\n"
    "    while (Math.abs(v) >= 999.5 && i < 6) { v /= 1000; i++; }\n"
    "    return String(+v.toPrecision(3)) + ' ' + p[i] + unit;\n"
    "  }\n"
    "  function time(v) {\n"
    "    var u = [[1, 's'], [1e-3, 'ms'], [1e-6, 'us'], [1e-9, 'ns']];\n"
    "    for (var k = 0; k < u.length; k++)\n"
    "      if (v >= u[k][0] * 0.9995 || k === u.length - 1)\n"
    "        return String(+(v / u[k][0]).toPrecision(3)) + ' ' + u[k][1];\n"
    "  }\n"
    "  function line(text, bold) {\n"
    "    var e = document.createElement(bold ? 'b' : 'span');\n"
    "    e.textContent = text; tip.appendChild(e);\n"
    "  }\n"
    "  function show(pt, ev) {\n"
    "    var d = pt.dataset, ai = num(d.ai);\n"
    "    tip.textContent = '';\n"
    "    line(d.name, true);\n"
    "    if (d.op) line('op: ' + d.op);\n"
    "    var g = pt.closest('g.series');\n"
    "    if (g && svg.querySelectorAll('g.series').length > 1) line('series: ' + "
    "g.dataset.label);\n"
    "    line('AI: ' + (isFinite(ai) ? String(+ai.toPrecision(3)) : 'inf') + ' FLOP/byte');\n"
    "    line('attainable: ' + si(num(d.attainable), 'FLOP/s'));\n"
    "    line('FLOPs: ' + si(num(d.flops), 'FLOP') + ', bytes: ' + si(num(d.bytes), 'B'));\n"
    "    if (d.netBytes) line('network: ' + si(num(d.netBytes), 'B') + ', net AI ' +\n"
    "      String(+num(d.netAi).toPrecision(3)) + ' FLOP per network byte' +\n"
    "      (d.bound === 'network' ? ' (the x of this point)' : ''));\n"
    "    line('bound: ' + d.bound + (d.clamped ? ' (off scale)' : ''));\n"
    "    line('time: ' + time(num(d.time)) + ' (' + (100 * num(d.share)).toFixed(1) +\n"
    "         '% of the total)');\n"
    "    if (d.kind === 'measured')\n"
    "      line('measured (filled marker): ' + time(num(d.measured)) + ', ' +\n"
    "           si(num(d.achieved), 'FLOP/s') + (d.util ? ', ' + (100 * num(d.util)).toFixed(0) +\n"
    "           '% of its roof' : ''));\n"
    "    else if (d.kind === 'estimate')\n"
    "      line('estimate (hollow marker), on its roof' + (d.measured ? '; measured ' +\n"
    "           time(num(d.measured)) : ''));\n"
    "    if (d.above && d.kind === 'measured') line('above its roof: ' + d.above);\n"
    "    tip.hidden = false;\n"
    "    move(ev);\n"
    "  }\n";
/* The rest of the script (split: C99 compilers need only take 4095-byte string literals). */
static const char rf__html_js2[] =
    "  function move(ev) {\n"
    "    var x = ev.clientX + 14, y = ev.clientY + 14, r = tip.getBoundingClientRect();\n"
    "    if (x + r.width > window.innerWidth) x = ev.clientX - r.width - 14;\n"
    "    if (y + r.height > window.innerHeight) y = ev.clientY - r.height - 14;\n"
    "    tip.style.left = Math.max(0, x) + 'px'; tip.style.top = Math.max(0, y) + 'px';\n"
    "  }\n"
    "  svg.addEventListener('mouseover', function (ev) {\n"
    "    var pt = ev.target.closest('.pt'); if (pt) show(pt, ev);\n"
    "  });\n"
    "  svg.addEventListener('mousemove', function (ev) {\n"
    "    if (!tip.hidden && ev.target.closest('.pt')) move(ev);\n"
    "  });\n"
    "  svg.addEventListener('mouseout', function (ev) {\n"
    "    if (ev.target.closest('.pt')) tip.hidden = true;\n"
    "  });\n"
    "  function update() {\n"
    "    var off = function (e) { return hidden[e.dataset.bound] || "
    "hiddenSeries[e.dataset.series]; };\n"
    "    svg.querySelectorAll('.pt').forEach(function (e) { e.style.display = off(e) ? 'none' : "
    "''; });\n"
    "    table.querySelectorAll('tbody tr').forEach(function (e) {\n"
    "      e.hidden = !!off(e);\n"
    "    });\n"
    "  }\n"
    "  svg.querySelectorAll('.legend-item').forEach(function (item) {\n"
    "    item.addEventListener('click', function () {\n"
    "      var b = item.dataset.toggle, s = item.dataset.toggleSeries, set = b ? hidden : "
    "hiddenSeries;\n"
    "      var key = b || s;\n"
    "      set[key] = !set[key];\n"
    "      item.classList.toggle('off', set[key]);\n"
    "      update();\n"
    "    });\n"
    "  });\n"
    "  var more = svg.querySelector('[data-toggle-minor]');\n"
    "  if (more) more.addEventListener('click', function () {\n"
    "    var on = svg.classList.toggle('show-minor');\n"
    "    more.textContent = more.textContent.replace(on ? 'show' : 'hide', on ? 'hide' : 'show');\n"
    "  });\n"
    "  table.querySelectorAll('th').forEach(function (th, col) {\n"
    "    th.addEventListener('click', function () {\n"
    "      var asc = th.getAttribute('aria-sort') !== 'ascending';\n"
    "      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); "
    "});\n"
    "      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');\n"
    "      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
    "      var isNum = th.dataset.type === 'num';\n"
    "      rows.sort(function (a, b) {\n"
    "        var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v, c;\n"
    "        if (isNum) {\n"
    "          x = num(x); y = num(y);\n"
    "          if (isNaN(x) || isNaN(y)) return isNaN(x) - isNaN(y);\n"
    "          c = x < y ? -1 : x > y ? 1 : 0;\n"
    "        } else c = x < y ? -1 : x > y ? 1 : 0;\n"
    "        return (asc ? c : -c) || a.dataset.i - b.dataset.i;\n"
    "      });\n"
    "      rows.forEach(function (r) { body.appendChild(r); });\n"
    "    });\n"
    "  });\n"
    "})();\n"
    "</script>\n";

/* <td> with its display text and the raw value it sorts by. */
static rf_status rf__td_num(rf_writer *w, double v, const char *text)
{
    char buf[40];
    const char *raw = isnan(v) ? "" : isinf(v) ? "inf" : rf_number_format(buf, sizeof buf, v);
    return rf_writef(w, "<td data-v=\"%s\">%s</td>", raw, text);
}

static rf_status rf__td_text(rf_writer *w, const char *cls, const char *s)
{
    RF_TRY(rf_writef(w, "<td class=\"text %s\" data-v=\"", cls));
    RF_TRY(rf__xml_text(w, s, 0));
    RF_TRY(RF_WRITE_LIT(w, "\">"));
    RF_TRY(rf__xml_text(w, s, 0));
    return RF_WRITE_LIT(w, "</td>");
}

static rf_status rf__html_head_row(rf_writer *w, int series, int op, int meas)
{
    RF_TRY(RF_WRITE_LIT(w, "<table id=\"rf-table\">\n<thead><tr><th data-type=\"num\">#</th>"));
    if (series) RF_TRY(RF_WRITE_LIT(w, "<th class=\"text\">series</th>"));
    RF_TRY(RF_WRITE_LIT(w, "<th class=\"text\">name</th>"));
    if (op) RF_TRY(RF_WRITE_LIT(w, "<th class=\"text\">op</th>"));
    RF_TRY(RF_WRITE_LIT(w, "<th data-type=\"num\">FLOPs</th><th data-type=\"num\">bytes</th>"
                           "<th data-type=\"num\">AI (FLOP/B)</th><th data-type=\"num\">"
                           "attainable</th><th class=\"text\">bound</th><th data-type=\"num\">"
                           "efficiency</th><th data-type=\"num\">time</th><th data-type=\"num\">"
                           "share</th>"));
    if (meas)
        RF_TRY(RF_WRITE_LIT(w, "<th data-type=\"num\">measured</th><th data-type=\"num\">"
                               "achieved</th><th data-type=\"num\">of its roof</th>"));
    return RF_WRITE_LIT(w, "</tr></thead>\n<tbody>\n");
}

/* The measured cells of a row ("-" when it has none). */
static rf_status rf__html_measured(rf_writer *w, const rf_achieved *a)
{
    char t[48];
    if (!a)
        return RF_WRITE_LIT(w, "<td data-v=\"\">-</td><td data-v=\"\">-</td>"
                               "<td data-v=\"\">-</td>");
    RF_TRY(rf__td_num(w, a->m.time_s, rf_time_format(t, sizeof t, a->m.time_s, 3)));
    RF_TRY(rf__td_num(w, a->flops_per_s, rf_si_format(t, sizeof t, a->flops_per_s, 3, "FLOP/s")));
    if (isnan(a->utilization))
        snprintf(t, sizeof t, "-");
    else
        snprintf(t, sizeof t, "%.0f%%%s", 100 * a->utilization, a->above ? " (above)" : "");
    return rf__td_num(w, a->utilization, t);
}

static rf_status rf__html_row(rf_writer *w, const rf_result *const *results, size_t n, size_t k,
                              size_t i, size_t seq, int op, int meas)
{
    const rf_result *r = results[k];
    int series = n > 1;
    const rf_row *row = &r->rows[i];
    const rf_eval *e = &row->e;
    char t[48], buf[RF__SERIES_LABEL_MAX];
    RF_TRY(rf_writef(w, "<tr data-i=\"%zu\" data-series=\"%zu\" data-bound=\"%s\">", seq, k,
                     rf_bound_name(e->bound)));
    snprintf(t, sizeof t, "%llu", (unsigned long long)row->index + 1);
    RF_TRY(rf__td_num(w, (double)row->index + 1, t));
    if (series) RF_TRY(rf__td_text(w, "series", rf__series_label(results, n, k, buf, sizeof buf)));
    RF_TRY(rf__td_text(w, "name", row->name));
    if (op) RF_TRY(rf__td_text(w, "op", row->op ? row->op : ""));
    RF_TRY(rf__td_num(w, e->flops, rf_si_format(t, sizeof t, e->flops, 3, "FLOP")));
    RF_TRY(rf__td_num(w, e->bytes, rf_si_format(t, sizeof t, e->bytes, 3, "B")));
    if (isnan(e->ai))
        snprintf(t, sizeof t, "-");
    else
        rf_si_format(t, sizeof t, e->ai, 3, "");
    RF_TRY(rf__td_num(w, e->ai, t));
    if (isnan(e->attainable_flops_per_s))
        snprintf(t, sizeof t, "-");
    else
        rf_si_format(t, sizeof t, e->attainable_flops_per_s, 3, "FLOP/s");
    RF_TRY(rf__td_num(w, e->attainable_flops_per_s, t));
    RF_TRY(rf_writef(w, "<td class=\"text %s\" data-v=\"%s\">%s</td>", rf_bound_name(e->bound),
                     rf_bound_name(e->bound), rf_bound_name(e->bound)));
    snprintf(t, sizeof t, "%.1f%%", 100 * e->efficiency);
    RF_TRY(rf__td_num(w, e->efficiency, t));
    RF_TRY(rf__td_num(w, e->time_s, rf_time_format(t, sizeof t, e->time_s, 3)));
    double share = r->totals.time_s > 0 ? e->time_s / r->totals.time_s : 0;
    snprintf(t, sizeof t, "%.1f%%", 100 * share);
    RF_TRY(rf__td_num(w, share, t));
    if (meas) RF_TRY(rf__html_measured(w, row->measured));
    return RF_WRITE_LIT(w, "</tr>\n");
}

/* The table lists every row, or for a big input (rf__chart_keep) only the rows drawn as markers,
 * with a line saying how many more there are and where to find them. */
static rf_status rf__html_table(rf_ctx *ctx, const rf_result *const *results, size_t n,
                                rf_writer *w)
{
    int op = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < results[k]->n_rows && !op; i++) op = results[k]->rows[i].op != NULL;
    int meas = 0;
    for (size_t k = 0; k < n; k++) meas |= rf__result_has_measured(results[k]);
    RF_TRY(rf__html_head_row(w, n > 1, op, meas));
    size_t seq = 0, left = 0;
    rf_status st = RF_OK;
    for (size_t k = 0; k < n && st == RF_OK; k++) {
        unsigned char *keep = NULL;
        size_t n_kept = 0;
        RF_TRY(rf__chart_keep(ctx, results[k], &keep, &n_kept));
        for (size_t i = 0; i < results[k]->n_rows && st == RF_OK; i++)
            if (!keep || keep[i])
                st = rf__html_row(w, results, n, k, i, seq++, op, meas);
            else
                left++;
        rf__free(ctx, keep);
    }
    RF_TRY(st);
    RF_TRY(RF_WRITE_LIT(w, "</tbody>\n</table>\n"));
    if (!left) return RF_OK;
    return rf_writef(w,
                     "<p class=\"hint\" id=\"rf-more\">%zu more rows are in the chart's density "
                     "only; the table lists the %zu with the largest estimated time ('--csv' "
                     "lists every row).</p>\n",
                     left, seq);
}

static rf_status rf__html_write(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                                const rf_machine *m, rf_writer *w);

rf_status rf_report_chart_html(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                               const rf_machine *m, const rf_report_opts *o, rf_writer *w)
{
    (void)o;
    rf_ctx_clear_error(ctx); /* so a writer's bare RF_RANGE is told apart from a named error */
    rf_status st = rf__html_write(ctx, results, n_results, m, w);
    return rf__chart_too_large(ctx, st, "HTML page", results, n_results);
}

static rf_status rf__html_write(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                                const rf_machine *m, rf_writer *w)
{
    RF_CHECK(ctx, results && n_results && w && results[0], RF_USAGE, "chart: no result to draw");
    RF_TRY(RF_WRITE_LIT(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                           "'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                           "<meta name=\"viewport\" content=\"width=device-width, "
                           "initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light "
                           "dark\">\n<title>Roofline: "));
    RF_TRY(rf__xml_text(w, results[0]->title[0] ? results[0]->title : results[0]->machine, 120));
    RF_TRY(RF_WRITE_LIT(w, "</title>\n"));
    RF_TRY(rf_write(w, rf__html_css, sizeof rf__html_css - 1));
    RF_TRY(RF_WRITE_LIT(w, "</head>\n<body>\n<main>\n<div class=\"chart\">\n"));
    RF_TRY(rf__svg_write(ctx, results, n_results, m, 1, w));
    RF_TRY(RF_WRITE_LIT(w, "</div>\n<div id=\"rf-tip\" class=\"tip\" role=\"tooltip\" hidden>"
                           "</div>\n<p class=\"hint\">Hover a marker for its figures; click a "
                           "legend entry to hide that class; click a column header to sort."
                           "</p>\n"));
    RF_TRY(rf__html_table(ctx, results, n_results, w));
    RF_TRY(RF_WRITE_LIT(w, "</main>\n"));
    RF_TRY(rf_write(w, rf__html_js, sizeof rf__html_js - 1));
    RF_TRY(rf_write(w, rf__html_js2, sizeof rf__html_js2 - 1));
    return RF_WRITE_LIT(w, "</body>\n</html>\n");
}
