/* graph_analysis.c — hands a costed graph to the analysis, one row per layer (the rows of
 * `roofline profile`). Cost-free metadata layers are left out and counted; undefined layers stay
 * as undefined rows. No formatting, no I/O. */
#include "graph/graph_int.h"

rf_status rf_graph_analysis_add(rf_ctx *ctx, rf_analysis *a, const rf_graph *g, const rf_cost *c,
                                uint32_t *n_skipped)
{
    uint32_t skipped = 0;
    char shape[128];
    (void)ctx;
    for (uint32_t i = 0; i < g->n_layers && i < c->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        const rf_layer_cost *lc = &c->layers[i];
        if (lc->known && lc->flops == 0 && lc->bytes == 0) {
            skipped++;
            continue;
        }
        rf_tensor_shape_str(rf__lout(g, l, 0), shape, sizeof shape);
        RF_TRY(rf_analysis_add_detail(a, l->name, strlen(l->name), l->op_type, shape, 1,
                                      lc->known ? lc->flops : 0, lc->known ? lc->bytes : 0));
    }
    if (n_skipped) *n_skipped = skipped;
    return RF_OK;
}
