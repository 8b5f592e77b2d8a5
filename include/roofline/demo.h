/* roofline/demo.h — the built-in demo: the six dense layers of the cookbook's `apr profile` example
 * (embedding 1000->128, attention.qkv 128->384, attention.out 384->128, ffn.up 128->512, ffn.down
 * 512->128, output.proj 128->1000), FP32, counted as dense layers (docs/cost-model.md "Dense"). */
#ifndef ROOFLINE_DEMO_H
#define ROOFLINE_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One dense layer: y[batch, out] = x[batch, in] . W[in, out]. */
typedef struct rf_dense_layer {
    const char *name;
    uint64_t in;  /**< input features */
    uint64_t out; /**< output features */
} rf_dense_layer;

/** The demo's layers (static, *count set). */
const rf_dense_layer *rf_demo_layers(size_t *count);

/** Cost of a dense layer without bias at `batch`, elements of `elem_bytes` bytes:
 *  FLOPs = 2*batch*in*out; bytes = weights in*out + input batch*in + output batch*out, each times
 *  elem_bytes (DESIGN.md "Bytes": every tensor once). RF_RANGE on overflow past 2^53 or zero sizes. */
rf_status rf_dense_cost(rf_ctx *ctx, uint64_t batch, uint64_t in, uint64_t out,
                        uint64_t elem_bytes, double *flops, double *bytes);

/** Add the demo's layers at `batch` (FP32) to an analysis. */
rf_status rf_demo_add(rf_analysis *a, rf_ctx *ctx, uint64_t batch);

/** The datasheet machine the demo runs against until the probe measures this one. */
#define RF_DEMO_MACHINE "xeon-8480plus"

#ifdef __cplusplus
}
#endif
#endif
