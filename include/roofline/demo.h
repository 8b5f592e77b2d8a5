/* roofline/demo.h — the dense-layer cost rule of the textbook and the cookbook's `apr profile`
 * demo (docs/cost-model.md "Dense"; its six layers at batch 32 are examples/cookbook-six-layers.csv),
 * and the datasheet machine the built-in demo falls back to. The demo model itself is ResNet-18
 * (rf_demo_model in roofline/model.h). */
#ifndef ROOFLINE_DEMO_H
#define ROOFLINE_DEMO_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Cost of a dense layer without bias at `batch`, elements of `elem_bytes` bytes:
 *  FLOPs = 2*batch*in*out; bytes = weights in*out + input batch*in + output batch*out, each times
 *  elem_bytes (docs/design.md "Bytes": every tensor once). RF_RANGE on overflow past 2^53 or zero sizes. */
rf_status rf_dense_cost(rf_ctx *ctx, uint64_t batch, uint64_t in, uint64_t out,
                        uint64_t elem_bytes, double *flops, double *bytes);

/** The datasheet machine the demo runs against until the probe measures this one. */
#define RF_DEMO_MACHINE "xeon-8480plus"

#ifdef __cplusplus
}
#endif
#endif
