/* report_int.h — helpers shared by the text renderers: compact SI numbers, UTF-8 aware column
 * widths, CSV/JSON escaping. Internal to src/report. */
#ifndef RF_REPORT_INT_H
#define RF_REPORT_INT_H

#include <stddef.h>

#include "roofline/analysis.h"
#include "core/text.h"
#include "roofline/buf.h"
#include "roofline/report.h"

/* Intensity with 3 significant digits ("0.25", "12.5", "2.05k", "inf", "-"). */
char *rf__ai_text(char *buf, size_t size, double ai);

/* Bytes of the longest prefix of s (NUL-terminated) that fits in `cols` columns, never cutting a
 * UTF-8 sequence; *used gets the columns of that prefix. */
size_t rf__utf8_fit(const char *s, size_t cols, size_t *used);

/* Write s padded with spaces (left- or right-aligned) to `cols` columns, truncated with "~" when
 * longer. */
rf_status rf__write_cell(rf_writer *w, const char *s, size_t cols, int right);

/* Write a name padded to `cols` columns; when longer, its start and its end around one "~"
 * (layer paths differ at the end: "/layer1/~1.0/conv2/Conv"). */
rf_status rf__write_name_cell(rf_writer *w, const char *s, size_t cols);

/* The name column width, from `cols` up to `widest`, at which no two of names[0..n) that are cut
 * in the middle print alike (issue 29: four layers printed as "/layer~.0/conv1/Conv"). */
size_t rf__name_width_unique(rf_ctx *ctx, const char *const *names, size_t n, size_t cols,
                             size_t widest);

/* Share of total time as a fraction (0 when the total is 0). */
double rf__time_share(const rf_result *r, const rf_row *row);

/* Indices of the (up to) k rows with the longest time, longest first (ties in input order), into
 * idx[0..k); returns how many. */
size_t rf__slowest_rows(const rf_result *r, size_t k, size_t *idx);

/* ---- views of a long result (view.c): rf_report_opts.rows_max ---- */

/* r->rows_max slowest rows of a result (borrowed), slowest first; `r` is the result itself, with
 * its totals, when nothing is left out. */
typedef struct rf__view {
    const rf_result *src; /* the result itself */
    rf_result r;          /* a shallow copy: rows point into `rows` or the result's own */
    rf_row *rows;         /* owned array of borrowed rows, or NULL */
    size_t n_rest;        /* rows left out */
    double rest_share;    /* their share of the time (measured where measured), 0..1 */
    int measured;         /* the ranking used measured times */
} rf__view;

/* Fill *v from r and o->rows_max (o may be NULL). RF_NOMEM. Release with rf__view_free. */
rf_status rf__view_make(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf__view *v);
void rf__view_free(rf_ctx *ctx, rf__view *v);

/* "... 40 more operations, 29.6% of the estimated time (HINT)\n"; nothing when none is left out. */
rf_status rf__view_rest_line(const rf__view *v, const rf_report_opts *o, rf_writer *w);

/* ---- measured fields (measured_out.c): written only when the result has measurements ---- */

/* Non-zero when a row carries a measured time or the totals a wall time. */
int rf__result_has_measured(const rf_result *r);

/* ", "measured": {...}" of a row (nothing when the row has no measurement). */
rf_status rf__json_row_measured(const rf_row *row, rf_writer *w);

/* `"key": number` and ", " unless `last` (result_json.c). */
rf_status rf__json_key_num(rf_writer *w, const char *key, double v, int last);

/* A JSON object `doc` written to w without its closing brace (and the blank before it), ready for
 * one more member: the advice, the distributed view. RF_USAGE naming `who` when it is no object. */
rf_status rf__json_reopen(rf_ctx *ctx, const char *doc, size_t len, const char *who, rf_writer *w);

/* ", "measured": {...}" of the totals (nothing without measurements). */
rf_status rf__json_totals_measured(const rf_totals *t, rf_writer *w);

/* The extra CSV header columns (starting with a comma), and a row's cells (empty when none). */
extern const char rf__csv_measured_header[];
rf_status rf__csv_row_measured(const rf_row *row, rf_writer *w);

/* The table's lines under the totals: measured vs estimated and wall time, the rows above their
 * roof with the reason, the rows losing the most time to their roof (`brief`: the count of rows
 * above their roof instead of the two lists). `hidden`: the columns the table left out to fit
 * ("x est, B/s"), or "". */
rf_status rf__table_measured(const rf_result *r, const char *hidden, int brief, rf_writer *w);

/* "machine  DESC [NAME, PROVENANCE]\n", the provenance left out when it is the name itself
 * ("[measured]", not "[measured, measured]"), the brackets too when the description already says
 * it ("Xeon (measured, 2 threads)", not "Xeon (measured, 2 threads) [measured]"). */
rf_status rf__write_machine_line(rf_writer *w, const char *lead, const char *desc, const char *name,
                                 rf_provenance prov);

#endif
