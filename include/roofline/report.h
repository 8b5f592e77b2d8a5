/* roofline/report.h — renderers of an rf_result: aligned table, JSON, CSV, the bottleneck summary
 * and the ASCII roofline chart. Each writes through an rf_writer and never prints by itself.
 * Output is independent of locale and time. */
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
    int color;      /**< may use ANSI colours (the CLI honours NO_COLOR and isatty) */
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

#ifdef __cplusplus
}
#endif
#endif
