/* roofline/onnx.h — the ONNX reader: a ModelProto (protobuf, onnx.proto subset) into an rf_graph,
 * decoded one message at a time so that weights are never copied and external weight files are
 * never opened. Shapes as the file states them: rf_graph_infer_shapes (shape.h) follows. */
#ifndef ROOFLINE_ONNX_H
#define ROOFLINE_ONNX_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Parse an ONNX ModelProto from memory into *out (owned by the caller, rf_graph_free).
 *  `name` is used in error messages ("model.onnx: graph.node[3] 'Conv_0': ..."), may be NULL.
 *  `base_dir` is the model's folder for checking external-data paths against links leaving it
 *  (NULL: only the text of the paths is checked). Shapes are those the file states; call
 *  rf_graph_infer_shapes after. RF_FORMAT / RF_UNSUPPORTED / RF_RANGE with the byte offset on the
 *  context for malformed input; RF_NOMEM. Peak memory is bounded by a small multiple of the
 *  graph's size, not of the weights (raw_data is never copied). */
RF_API rf_status rf_onnx_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                               const char *base_dir, rf_graph **out);

/** Memory-map `path` and rf_onnx_parse it (base_dir = the file's folder). */
RF_API rf_status rf_onnx_read_file(rf_ctx *ctx, const char *path, rf_graph **out);

#ifdef __cplusplus
}
#endif
#endif
