/* formats_int.h — internals shared by the format readers (they map files through core/io.h):
 * the split of the operations-list reader into its CSV (RFC 4180) and JSON (RFC 8259) halves. Never
 * installed; never included by cli/. */
#ifndef RF_FORMATS_INT_H
#define RF_FORMATS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/io.h"
#include "core/rf_int.h"
#include "formats/cursor.h"
#include "roofline/ops.h"

/* ---- model files (detect.c) ------------------------------------------------------------------ */

/* 1 when the bytes are a SafeTensors index: a JSON object with a "weight_map" key. */
int rf__is_st_index(const void *data, size_t size);

/* Where the config.json of a SafeTensors checkpoint is (beside the file, or in the folder given)
 * into path[cap]; 1 when it exists (hfconfig.c). */
int rf__hfconfig_path(const char *model_path, char *path, size_t cap);

/* The file a model path stands for: a checkpoint folder's model.safetensors.index.json when it
 * exists, else its model.safetensors; any other path as it is. */
rf_status rf__model_file(rf_ctx *ctx, const char *path, char *out, size_t cap);

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
