/* roofline/cost.h — the cost model: FLOPs and bytes moved per layer of a graph (rf_cost) and for a
 * dense layer, and the bridge that hands a costed graph to an analysis, one row per layer.
 * Formulas: docs/cost-model.md. Never prints. */
#ifndef ROOFLINE_COST_H
#define ROOFLINE_COST_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Cost of one layer (times its repeat count). FLOP and byte units; doubles hold exact integers
 *  up to 2^53. */
typedef struct rf_layer_cost {
    double flops;          /**< FLOP (a multiply-add is 2), bias adds included */
    double bias_flops;     /**< the part of `flops` that is bias adds (Conv/Gemm) or the softmax
                                of a fused attention; flops - bias_flops is the matrix work */
    double weight_bytes;   /**< bytes of weight inputs, read once */
    double input_bytes;    /**< bytes of non-weight, non-KV inputs, read once */
    double output_bytes;   /**< bytes of outputs (not KV), written once */
    double kv_read_bytes;  /**< bytes of KV-cache inputs */
    double kv_write_bytes; /**< bytes of KV-cache outputs */
    double bytes;          /**< sum of the five above */
    uint64_t params;       /**< elements of the weight inputs */
    int known;             /**< 0: undefined (unknown op, unknown shape); FLOPs/bytes are 0 */
    char reason[96];       /**< why unknown ("unknown op type", "shape of input 0 unknown") */
} rf_layer_cost;

/** The cost of a whole graph. */
typedef struct rf_cost {
    rf_layer_cost *layers; /**< n_layers entries, parallel to graph->layers */
    uint32_t n_layers;
    double flops, bytes, weight_bytes, input_bytes, output_bytes, kv_read_bytes, kv_write_bytes;
    double matmul_conv_flops; /**< FLOPs of Conv/ConvTranspose/Gemm/MatMul/attention only, without
                                   bias adds (the fixtures' convention) */
    uint64_t params;          /**< graph->params (each weight once) */
    uint32_t n_unknown;       /**< layers whose cost is undefined */
    char **unknown_ops;       /**< distinct op types of undefined layers */
    uint32_t n_unknown_ops;
    rf_allocator alloc_; /**< private */
} rf_cost;

/** Count every layer of `g` (docs/cost-model.md). Never fails for an unknown op: that layer is
 *  marked unknown, and one warning listing the unknown op types goes through the context's log.
 *  *out is owned by the caller (rf_cost_free). RF_NOMEM, RF_RANGE (counts beyond 2^63). */
RF_API rf_status rf_graph_cost(rf_ctx *ctx, const rf_graph *g, rf_cost **out);

/** Release a cost. Accepts NULL. */
RF_API void rf_cost_free(rf_cost *c);

/** Add one row per layer of `g` with its cost `c` to an analysis (the profile's table): name,
 *  op type, output shape as detail, FLOPs, bytes. Layers whose cost is undefined go in as
 *  undefined rows (not logged again); layers that cost nothing (Shape, Reshape, Constant, ...:
 *  docs/cost-model.md "Metadata") are left out and counted in *n_skipped (may be NULL). */
RF_API rf_status rf_graph_analysis_add(rf_ctx *ctx, rf_analysis *a, const rf_graph *g,
                                       const rf_cost *c, uint32_t *n_skipped);

/** Cost of a dense layer without bias at `batch`, elements of `elem_bytes` bytes:
 *  FLOPs = 2*batch*in*out; bytes = weights in*out + input batch*in + output batch*out, each times
 *  elem_bytes (every tensor once; docs/cost-model.md "Dense"). RF_RANGE on overflow past 2^53 or
 *  zero sizes. */
RF_API rf_status rf_dense_cost(rf_ctx *ctx, uint64_t batch, uint64_t in, uint64_t out,
                               uint64_t elem_bytes, double *flops, double *bytes);

#ifdef __cplusplus
}
#endif
#endif
