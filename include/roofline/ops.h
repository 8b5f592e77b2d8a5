/* roofline/ops.h — reader of operations lists: CSV (header name,flops,bytes; memory_bytes accepted
 * for bytes; optional time and net_bytes columns; RFC 4180 quoting) or JSON (an array of objects
 * with the same keys, time_s for the time, or {"ops": [...]}). Streamed: each row goes to a
 * callback as soon as it is parsed; nothing is kept. */
#ifndef ROOFLINE_OPS_H
#define ROOFLINE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One operation as read. `name` is valid only during the callback (not NUL-terminated). */
typedef struct rf_op_row {
    const char *name;
    size_t name_len;
    double flops;  /**< FLOP, finite, >= 0 */
    double bytes;  /**< byte, finite, >= 0 */
    uint64_t row;  /**< 1-based number of the data row (CSV: not counting the header) */
    int has_time;  /**< non-zero when the row carries a measured time (CSV column `time`, JSON key
                        `time_s`; an empty CSV cell is no time) */
    double time_s; /**< measured time of one pass, second, finite and > 0 when has_time */
    double net_bytes; /**< bytes over the network (CSV column and JSON key `net_bytes`), finite,
                           >= 0; 0 when absent */
} rf_op_row;

/** Called once per row; a non-OK return stops the parse and is returned as is. */
typedef rf_status (*rf_op_fn)(void *user, const rf_op_row *row);

/** Input format. AUTO looks at the first non-blank byte: '[' or '{' is JSON, anything else CSV. */
typedef enum rf_ops_format { RF_OPS_AUTO, RF_OPS_CSV, RF_OPS_JSON } rf_ops_format;

/** Parse an operations list from memory. At least one row is required. Errors (RF_FORMAT or
 *  RF_RANGE) name the row and field (CSV) or the element and key (JSON) and set the byte offset:
 *  empty input, header only, unknown or missing columns, missing or extra fields, non-numeric,
 *  NaN, inf, hex, overflow, negative, unterminated quote, NUL bytes, invalid UTF-8, trailing data,
 *  duplicate keys, nesting. */
RF_API rf_status rf_ops_parse(rf_ctx *ctx, const void *data, size_t size, rf_ops_format fmt,
                              rf_op_fn fn, void *user);

/** Read a file (memory-mapped) or standard input when path is "-"; the format from the extension
 *  (.csv, .json) or else AUTO. Error messages start with the path. */
RF_API rf_status rf_ops_read_file(rf_ctx *ctx, const char *path, rf_ops_format fmt, rf_op_fn fn,
                                  void *user);

/** rf_ops_read_file with every row added to `an` as it is read (streamed: memory does not grow
 *  with the number of rows), with its measured time when the row has one. */
RF_API rf_status rf_ops_analyze_file(rf_ctx *ctx, const char *path, rf_ops_format fmt,
                                     rf_analysis *an);

#ifdef __cplusplus
}
#endif
#endif
