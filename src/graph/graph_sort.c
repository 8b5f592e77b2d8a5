/* graph_sort.c — putting a graph's layers in topological order (each after the writers of its
 * inputs), as ONNX Runtime does for a file whose nodes are listed out of order (the fp16
 * converter appends its Casts at the end). A depth-first walk in the file's order, so a graph
 * already in order keeps it; iterative, so a deep chain cannot exhaust the stack. A real cycle is
 * refused, naming a node on it. */
#include <stdlib.h>
#include <string.h>

#include "graph/graph_int.h"

static rf_status rf__cycle(rf_ctx *ctx, const rf_graph *g, uint32_t li, uint32_t t)
{
    char a[100], b[100];
    rf__name_excerpt(a, sizeof a, g->layers[li].name);
    rf__name_excerpt(b, sizeof b, g->tensors[t].name);
    return rf__error(ctx, RF_FORMAT, -1,
                     "graph: node '%s' is on a cycle: it reads '%s', which is computed from its "
                     "own output",
                     a, b);
}

rf_status rf_graph_sort_layers(rf_ctx *ctx, rf_graph *g, uint32_t *moved)
{
    uint32_t n = g->n_layers;
    if (moved) *moved = 0;
    if (!n) return RF_OK;
    rf_status st = RF_OK;
    uint8_t *state = rf__calloc(ctx, n, 1); /* 0 not seen, 1 on the walk's stack, 2 placed */
    uint32_t *order = rf__calloc(ctx, n, sizeof *order);
    uint32_t *stk = rf__calloc(ctx, n, sizeof *stk), *next = rf__calloc(ctx, n, sizeof *next);
    rf_layer *sorted = NULL;
    if (!state || !order || !stk || !next) {
        st = RF_NOMEM_ERR(ctx);
        goto done;
    }
    uint32_t placed = 0;
    for (uint32_t root = 0; root < n; root++) {
        if (state[root]) continue;
        uint32_t sp = 0;
        stk[sp] = root, next[sp++] = 0, state[root] = 1;
        while (sp) {
            uint32_t li = stk[sp - 1];
            const rf_layer *l = &g->layers[li];
            if (next[sp - 1] < l->n_inputs) {
                uint32_t t = l->inputs[next[sp - 1]++];
                if (t == RF_GRAPH_NO_TENSOR || g->tensors[t].producer < 0) continue;
                uint32_t w = (uint32_t)g->tensors[t].producer;
                if (w == li || state[w] == 1) {
                    st = rf__cycle(ctx, g, li, t);
                    goto done;
                }
                if (state[w] == 0) stk[sp] = w, next[sp++] = 0, state[w] = 1;
                continue;
            }
            state[li] = 2;
            order[placed++] = li;
            sp--;
        }
    }
    uint32_t out_of_place = 0;
    for (uint32_t i = 0; i < n; i++) out_of_place += order[i] != i;
    if (moved) *moved = out_of_place;
    if (!out_of_place) goto done;
    sorted = rf__calloc(ctx, g->cap_layers_ ? g->cap_layers_ : n, sizeof *sorted);
    if (!sorted) {
        st = RF_NOMEM_ERR(ctx);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        sorted[i] = g->layers[order[i]];
        next[order[i]] = i; /* old index -> new */
    }
    for (uint32_t t = 0; t < g->n_tensors; t++)
        if (g->tensors[t].producer >= 0)
            g->tensors[t].producer = (int32_t)next[g->tensors[t].producer];
    rf__free(ctx, g->layers);
    g->layers = sorted;
    sorted = NULL;
done:
    rf__free(ctx, state);
    rf__free(ctx, order);
    rf__free(ctx, stk);
    rf__free(ctx, next);
    rf__free(ctx, sorted);
    return st;
}
