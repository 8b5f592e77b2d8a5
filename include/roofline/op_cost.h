/* roofline/op_cost.h — the cost of one operation from its kind, input shapes, element types and
 * attributes, by the rules of docs/cost-model.md (the same code that costs model graphs: a
 * one-layer graph is built, its output shapes inferred and costed). For callers that hold no model
 * file: the Python package's PyTorch hooks, or a program costing its own kernels. */
#ifndef ROOFLINE_OP_COST_H
#define ROOFLINE_OP_COST_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "cost.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One input of the operation. `dtype` RF_DTYPE_UNKNOWN marks an omitted optional input. */
typedef struct rf_op_input {
    rf_dtype dtype;
    uint32_t rank;         /**< <= RF_GRAPH_MAX_RANK */
    const int64_t *dims;   /**< rank dims, each >= 0; outermost first */
    int weight;            /**< non-zero: a stored parameter (counted as weight bytes and params) */
    const int64_t *values; /**< known integer contents (e.g. Resize's sizes), or NULL */
    uint32_t n_values;     /**< how many (at most RF_GRAPH_MAX_VALUES are kept) */
} rf_op_input;

/** Cost `op_type` (ONNX spelling: "Conv", "Gemm", "MatMul", "BatchNormalization", "Relu",
 *  "MaxPool", "Gather", ... — every type rf_op_kind_from_type knows) applied to `inputs` with
 *  `attrs` (ONNX attribute names and meanings; name and values borrowed for the call). The output
 *  (one, the dtype of input 0) is inferred. *out gets the layer's FLOPs and bytes; an op whose
 *  cost is unknown is RF_OK with out->known = 0 and the reason. `out_dims` (RF_GRAPH_MAX_RANK
 *  entries) and `out_rank` receive the inferred output shape when not NULL. RF_USAGE for a
 *  malformed input (rank too high, negative dim). Thread-safe given distinct contexts. */
RF_API rf_status rf_op_cost(rf_ctx *ctx, const char *op_type, const rf_op_input *inputs,
                            uint32_t n_inputs, const rf_attr *attrs, uint32_t n_attrs,
                            rf_layer_cost *out, int64_t *out_dims, uint32_t *out_rank);

#ifdef __cplusplus
}
#endif
#endif
