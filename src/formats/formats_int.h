/* formats_int.h — internals shared by the format readers: mapping an input file (or standard input)
 * into memory for the (data, size) parsers, and the split of the operations-list reader into its
 * CSV (RFC 4180) and JSON (RFC 8259) halves. Never installed; never included by cli/. */
#ifndef RF_FORMATS_INT_H
#define RF_FORMATS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/rf_int.h"
#include "formats/cursor.h"
#include "roofline/ops.h"

/* ---- input files ----------------------------------------------------------------------------- */

/* A file's bytes in memory: mapped read-only (regular files), or read into a buffer from the
 * context (standard input, pipes and other non-regular files). `data` is valid, and never NULL,
 * until rf__unmap_file; `size` may be 0. */
typedef struct rf__map {
    const uint8_t *data;
    size_t size;
    void *mapped;      /* mmap base, or NULL */
    size_t mapped_len; /* length given to mmap */
    void *heap;        /* buffer from rf__malloc, or NULL */
    rf_ctx *ctx;       /* the context that owns `heap` */
} rf__map;

/* Map `path` (a regular file) or read it ("-" is standard input; FIFOs and character devices are
 * read too) into *map. Refuses more than max_bytes. On failure *map is empty (safe to unmap) and
 * the error names the path: RF_IO (no such file, permission denied, is a directory, read error),
 * RF_RANGE (too large), RF_NOMEM. Size-0 files are not mapped (mmap refuses length 0). */
rf_status rf__map_file(rf_ctx *ctx, const char *path, uint64_t max_bytes, rf__map *map);

/* Release what rf__map_file acquired; leaves *map empty. Accepts an empty or zeroed map. */
void rf__unmap_file(rf__map *map);

/* ---- operations lists (ops.c, ops_csv.c, ops_json.c) ----------------------------------------- */

#define RF__OPS_NAME_MAX 4096 /* longest accepted operation name, in bytes */

/* What both halves share while parsing: the callback and whether it stopped the parse (so that
 * rf_ops_read_file does not prefix a message the callback did not set). */
typedef struct rf__ops_sink {
    rf_op_fn fn;
    void *user;
    int callback_failed;
} rf__ops_sink;

/* Deliver one row; records a callback failure in the sink. */
static inline rf_status rf__ops_emit(rf__ops_sink *sink, const rf_op_row *row)
{
    rf_status st = sink->fn(sink->user, row);
    if (st != RF_OK) sink->callback_failed = 1;
    return st;
}

/* Parse from the cursor (BOM already skipped, no NUL bytes in the input) to the end. */
rf_status rf__ops_parse_csv(rf_ctx *ctx, rf__cursor *cur, rf__ops_sink *sink);
rf_status rf__ops_parse_json(rf_ctx *ctx, rf__cursor *cur, rf__ops_sink *sink);

#endif
