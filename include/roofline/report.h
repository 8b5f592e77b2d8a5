/* roofline/report.h — renderers of an rf_result: aligned table, JSON, CSV, the bottleneck summary
 * and the roofline chart (ASCII, SVG, HTML). Each writes through an rf_writer and never prints
 * by itself. Output is independent of locale and time. */
#ifndef ROOFLINE_REPORT_H
#define ROOFLINE_REPORT_H

#include <stddef.h>

#include "analysis.h"
#include "buf.h"
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the JSON result schema ("schema" field). */
#define RF_RESULT_SCHEMA 1

/** Options shared by the renderers. Zero-initialised means: 80 columns, ASCII, no colour. */
typedef struct rf_report_opts {
    unsigned width; /**< terminal columns (0 = 80) */
    int utf8;       /**< may use UTF-8 box/line characters */
    int color;      /**< reserved for ANSI colours: no renderer reads it (the CLI sets it) */
    unsigned chart_height; /**< rows of the chart's plot area (0 = automatic) */
} rf_report_opts;

/** Aligned table of rows and totals, with SI units. */
rf_status rf_report_table(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf_writer *w);

/** Bottleneck summary: bound shares, the slowest operations, and what would move them. */
rf_status rf_report_summary(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o,
                            rf_writer *w);

/** JSON document (schema RF_RESULT_SCHEMA) in base units: machine, roof, rows, totals. */
rf_status rf_report_json(rf_ctx *ctx, const rf_result *r, rf_writer *w);

/** CSV: header then one line per row, base units, RFC 4180 quoting. */
rf_status rf_report_csv(rf_ctx *ctx, const rf_result *r, rf_writer *w);

/** ASCII (or UTF-8) log-log roofline chart of `r` with every ceiling of `m` (may be NULL: only the
 *  roof used), ridge points marked and one letter/digit per row with a legend. */
rf_status rf_report_chart_ascii(rf_ctx *ctx, const rf_result *r, const rf_machine *m,
                                const rf_report_opts *o, rf_writer *w);

/** Read back a result written by rf_report_json (schema <= RF_RESULT_SCHEMA), e.g. to plot it
 *  later. Strict: duplicate or unknown keys, wrong types, negative or non-finite figures and a
 *  bound that does not match the row's figures are RF_FORMAT / RF_RANGE errors naming the item
 *  (and the byte offset for a syntax error); a newer schema is RF_UNSUPPORTED. Each row is
 *  evaluated again under the file's roof. `source` names the input in messages (may be NULL).
 *  *out is owned by the caller: rf_result_free. */
rf_status rf_result_parse_json(rf_ctx *ctx, const void *data, size_t size, const char *source,
                               rf_result **out);

/** rf_result_parse_json on a file ("-": standard input), mapped read-only. RF_IO names the path. */
rf_status rf_result_load(rf_ctx *ctx, const char *path, rf_result **out);

/** SVG roofline chart of results[0..n_results) (n_results >= 1; several results are drawn as
 *  series on shared axes, e.g. 224x224 vs 512x512 or prefill vs decode) with every ceiling of `m`
 *  (may be NULL: only the ceilings of the results): log-log decade axes with SI labels, every
 *  roof labelled with its value, ridge points, one marker per plotted row (circle: memory-bound,
 *  hatched square: compute-bound; area proportional to its share of the time) carrying its
 *  figures as data-* attributes, a legend and a title naming the machine and its provenance.
 *  A standalone SVG 1.1 document; deterministic. `o` may be NULL (unused for now). */
rf_status rf_report_chart_svg(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                              const rf_machine *m, const rf_report_opts *o, rf_writer *w);

/** A self-contained HTML page (no network: inline SVG, CSS and script) with the chart of
 *  rf_report_chart_svg, a tooltip per marker, legend entries that hide a bound or a series, a
 *  table of every row sortable by column, and light/dark styling following the system. */
rf_status rf_report_chart_html(rf_ctx *ctx, const rf_result *const *results, size_t n_results,
                               const rf_machine *m, const rf_report_opts *o, rf_writer *w);

#ifdef __cplusplus
}
#endif
#endif
