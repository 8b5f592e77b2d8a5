/* fuzz_shapes.c — libFuzzer target for shape inference and the cost model on a parsed ONNX graph
 * (src/graph/shape*.c, cost*.c). Input: one byte r (rank of an --input binding, r % 5, 0 = none),
 * r bytes each picking a dim from a table of edge values (1 .. 2^62, INT64_MAX), then an ONNX
 * image. After inference every known dim must be >= 0 and every cost finite and >= 0; a refusal
 * must carry a one-line message. A violation aborts. Corpus: fuzz/corpus/shapes/. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int64_t edge_dims[16] = {1,         2,         3,
                                      7,         16,        224,
                                      1000,      65536,     1ll << 31,
                                      1ll << 32, 1ll << 40, (1ll << 53) + 1,
                                      1ll << 61, 1ll << 62, INT64_MAX / 3,
                                      INT64_MAX};

static void one_line(rf_ctx *ctx)
{
    const char *msg = rf_ctx_errmsg(ctx);
    if (!msg[0]) abort();
    for (const char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint32_t r = data[0] % 5;
    if (size < 1 + r) return 0;
    rf_shape_binding b;
    memset(&b, 0, sizeof b);
    b.rank = r;
    for (uint32_t i = 0; i < r; i++) b.dims[i] = edge_dims[data[1 + i] % 16];
    data += 1 + r;
    size -= 1 + r;

    rf_ctx *ctx;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    if (rf_onnx_parse(ctx, data, size, "fuzz.onnx", NULL, &g) != RF_OK) goto done;
    size_t nb = 0;
    for (uint32_t t = 0; r && t < g->n_tensors && !nb; t++)
        if ((g->tensors[t].flags & RF_TENSOR_INPUT) && g->tensors[t].name[0] &&
            strlen(g->tensors[t].name) < sizeof b.name) {
            memcpy(b.name, g->tensors[t].name, strlen(g->tensors[t].name) + 1);
            nb = 1;
        }
    if (rf_graph_infer_shapes(ctx, g, &b, nb) != RF_OK) {
        one_line(ctx);
        goto done;
    }
    for (uint32_t t = 0; t < g->n_tensors; t++) {
        const rf_tensor *x = &g->tensors[t];
        if (x->rank > RF_GRAPH_MAX_RANK) abort();
        for (uint32_t d = 0; x->shape_known && d < x->rank; d++)
            if (x->dims[d] < -1) abort();
    }
    if (rf_graph_cost(ctx, g, &c) != RF_OK) {
        one_line(ctx);
        goto done;
    }
    if (!(c->flops >= 0) || !(c->bytes >= 0) || !isfinite(c->flops) || !isfinite(c->bytes)) abort();
    for (uint32_t i = 0; i < c->n_layers; i++)
        if (!(c->layers[i].flops >= 0) || !isfinite(c->layers[i].flops) ||
            !isfinite(c->layers[i].bytes))
            abort();
done:
    rf_cost_free(c);
    rf_graph_free(g);
    rf_ctx_free(ctx);
    return 0;
}
