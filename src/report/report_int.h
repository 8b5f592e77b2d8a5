/* report_int.h — helpers shared by the text renderers: compact SI numbers, UTF-8 aware column
 * widths, CSV/JSON escaping. Internal to src/report. */
#ifndef RF_REPORT_INT_H
#define RF_REPORT_INT_H

#include <stddef.h>

#include "roofline/analysis.h"
#include "roofline/buf.h"

/* Intensity with 3 significant digits ("0.25", "12.5", "2.05k", "inf", "-"). */
char *rf__ai_text(char *buf, size_t size, double ai);

/* Number of code points in s[0..n) (display columns for the text we print). */
size_t rf__utf8_cols(const char *s, size_t n);

/* Bytes of the longest prefix of s (NUL-terminated) that fits in `cols` columns, never cutting a
 * UTF-8 sequence; *used gets the columns of that prefix. */
size_t rf__utf8_fit(const char *s, size_t cols, size_t *used);

/* Write s padded with spaces (left- or right-aligned) to `cols` columns, truncated with "~" when
 * longer. */
rf_status rf__write_cell(rf_writer *w, const char *s, size_t cols, int right);

/* Write a name padded to `cols` columns; when longer, its start and its end around one "~"
 * (layer paths differ at the end: "/layer1/~1.0/conv2/Conv"). */
rf_status rf__write_name_cell(rf_writer *w, const char *s, size_t cols);

/* Write s as a JSON string literal (quotes included). */
rf_status rf__write_json_string(rf_writer *w, const char *s);

/* Write s as a CSV field (quoted when it holds a comma, quote, CR or LF; RFC 4180). */
rf_status rf__write_csv_field(rf_writer *w, const char *s);

/* JSON number: shortest round-trip text; null for NaN and infinities. */
rf_status rf__write_json_number(rf_writer *w, double v);

/* Share of total time as a fraction (0 when the total is 0). */
double rf__time_share(const rf_result *r, const rf_row *row);

/* Write `text` word-wrapped to `width` columns: the first line starts with `first` (e.g. "  1. "),
 * the following ones with `indent` spaces. Ends with a newline. */
rf_status rf__write_wrapped(rf_writer *w, size_t width, const char *first, size_t indent,
                            const char *text);

/* ---- measured fields (measured_out.c): written only when the result has measurements ---- */

/* Non-zero when a row carries a measured time or the totals a wall time. */
int rf__result_has_measured(const rf_result *r);

/* ", "measured": {...}" of a row (nothing when the row has no measurement). */
rf_status rf__json_row_measured(const rf_row *row, rf_writer *w);

/* ", "measured": {...}" of the totals (nothing without measurements). */
rf_status rf__json_totals_measured(const rf_totals *t, rf_writer *w);

/* The extra CSV header columns (starting with a comma), and a row's cells (empty when none). */
extern const char rf__csv_measured_header[];
rf_status rf__csv_row_measured(const rf_row *row, rf_writer *w);

/* The table's lines under the totals: measured vs estimated and wall time, the rows above their
 * roof with the reason, the rows losing the most time to their roof. */
rf_status rf__table_measured(const rf_result *r, rf_writer *w);

#endif
