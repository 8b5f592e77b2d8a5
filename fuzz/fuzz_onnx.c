/* fuzz_onnx.c — libFuzzer target for the ONNX reader (roofline/model.h): every input goes through
 * rf_onnx_parse, then shape inference and the cost model when it parsed. A refused input must
 * carry a message; a parsed graph must have every layer's tensor indices in range.
 * Corpus: fuzz/corpus/onnx/ (small fixtures from tests/data/onnx, hand-made malformed ones). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_status st = rf_onnx_parse(ctx, data, size, "fuzz.onnx", NULL, &g);
    if (st != RF_OK) {
        if (g || rf_ctx_errmsg(ctx)[0] == '\0') abort();
        for (const char *p = rf_ctx_errmsg(ctx); *p; p++) /* one line: names are escaped */
            if ((unsigned char)*p < 0x20) abort();
    } else {
        for (uint32_t i = 0; i < g->n_layers; i++) {
            const rf_layer *l = &g->layers[i];
            for (uint32_t k = 0; k < l->n_inputs; k++)
                if (l->inputs[k] != RF_GRAPH_NO_TENSOR && l->inputs[k] >= g->n_tensors) abort();
            for (uint32_t k = 0; k < l->n_outputs; k++)
                if (l->outputs[k] >= g->n_tensors) abort();
        }
        if (rf_graph_infer_shapes(ctx, g, NULL, 0) == RF_OK && rf_graph_cost(ctx, g, &c) == RF_OK) {
            if (c->n_layers != g->n_layers || !(c->flops >= 0) || !(c->bytes >= 0)) abort();
        }
    }
    rf_cost_free(c);
    rf_graph_free(g);
    rf_ctx_free(ctx);
    return 0;
}
