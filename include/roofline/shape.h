/* roofline/shape.h — shapes of a graph's tensors: bindings from the command line (--input, --dim)
 * and shape inference over the common operator set (docs/cost-model.md "Shape inference"). */
#ifndef ROOFLINE_SHAPE_H
#define ROOFLINE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A binding of a graph input or a symbolic dimension, from the command line:
 *  `--input NAME=1x3x512x512` (name + dims) or `--dim batch=8` (symbol + one value). */
typedef struct rf_shape_binding {
    char name[256]; /**< input tensor name, or dim symbol */
    int is_dim;     /**< 1 for a symbol binding; 2 for an input's value (`--value NAME=N`) */
    uint32_t rank;  /**< input bindings */
    int64_t dims[RF_GRAPH_MAX_RANK];
    int64_t value; /**< symbol bindings; an input's value (is_dim 2: the integer scalar an If
                        condition or a shape computation reads, e.g. a sample rate) */
} rf_shape_binding;

/** Parse "NAME=1x3x224x224" (is_dim 0; dims >= 1, "x"-separated) or "SYMBOL=8" (is_dim 1) into
 *  *b. RF_USAGE with a message naming the text when it is malformed. */
RF_API rf_status rf_shape_binding_parse(rf_ctx *ctx, const char *text, int is_dim,
                                        rf_shape_binding *b);

/** Apply bindings to the graph inputs (replacing their dims; an unknown input name is
 *  RF_USAGE), then bind symbols, then infer every layer's output shapes in order for the common
 *  operator set (docs/cost-model.md "Shape inference"). Shapes the file already states are kept
 *  unless an input binding changed the graph's inputs. Layers whose outputs stay unknown are left
 *  so; the cost model reports them as undefined with the reason. */
RF_API rf_status rf_graph_infer_shapes(rf_ctx *ctx, rf_graph *g, const rf_shape_binding *b,
                                       size_t n);

#ifdef __cplusplus
}
#endif
#endif
