/* dense.c — cost of a dense (fully connected) layer without bias.
 * FLOPs 2*B*in*out (a multiply-add is 2 FLOPs); bytes: weights, input and output once
 * (docs/cost-model.md "Dense"; Williams et al. 2009 traffic model). */
#include <string.h>

#include "core/rf_int.h"
#include "roofline/cost.h"

rf_status rf_dense_cost(rf_ctx *ctx, uint64_t batch, uint64_t in, uint64_t out, uint64_t elem_bytes,
                        double *flops, double *bytes)
{
    RF_CHECK(ctx, batch && in && out && elem_bytes, RF_RANGE,
             "dense layer: batch, in, out and element size must be > 0");
    const uint64_t exact = (uint64_t)1 << 53; /* doubles hold integers exactly up to here */
    uint64_t mac, f, w, x, y, sum;
    int ok = rf__mul_ok(batch, in, &mac) && rf__mul_ok(mac, out, &mac) && rf__mul_ok(mac, 2, &f) &&
             rf__mul_ok(in, out, &w) && rf__mul_ok(w, elem_bytes, &w) &&
             rf__mul_ok(batch, in, &x) && rf__mul_ok(x, elem_bytes, &x) &&
             rf__mul_ok(batch, out, &y) && rf__mul_ok(y, elem_bytes, &y) &&
             rf__add_ok(w, x, &sum) && rf__add_ok(sum, y, &sum);
    RF_CHECK(ctx, ok && f <= exact && sum <= exact, RF_RANGE,
             "dense layer %llux%llu at batch %llu: counts overflow", (unsigned long long)in,
             (unsigned long long)out, (unsigned long long)batch);
    *flops = (double)f;
    *bytes = (double)sum;
    return RF_OK;
}
