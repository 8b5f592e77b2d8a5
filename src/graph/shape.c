/* shape.c — static shape inference over an rf_graph: bindings from the command line
 * (`--input NAME=1x3x224x224`, `--dim batch=8`), then one pass over the layers in order
 * (rules per op in shape_ops.c; docs/cost-model.md "Shape inference"). Never reads files. */
#include <string.h>

#include "graph/graph_int.h"

rf_status rf_shape_binding_parse(rf_ctx *ctx, const char *text, int is_dim, rf_shape_binding *b)
{
    memset(b, 0, sizeof *b);
    if (is_dim == 2) { /* --value NAME=N: an integer scalar input's value */
        const char *eq = text ? strrchr(text, '=') : NULL;
        RF_CHECK(ctx, eq && eq != text && (size_t)(eq - text) < sizeof b->name, RF_USAGE,
                 "--value '%.100s': expected NAME=INTEGER", text ? text : "");
        memcpy(b->name, text, (size_t)(eq - text));
        b->is_dim = 2;
        const char *p = eq + 1 + (eq[1] == '-');
        int64_t v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= (INT64_MAX - 9) / 10) v = v * 10 + (*p++ - '0');
        RF_CHECK(ctx, p != start && *p == '\0', RF_USAGE,
                 "--value '%.100s': the value must be an integer", text);
        b->value = eq[1] == '-' ? -v : v;
        return RF_OK;
    }
    const char *eq = text ? strrchr(text, '=') : NULL;
    RF_CHECK(ctx, eq && eq != text && (size_t)(eq - text) < sizeof b->name, RF_USAGE,
             "%s '%.100s': expected NAME=%s", is_dim ? "--dim" : "--input", text ? text : "",
             is_dim ? "VALUE" : "1x3x224x224");
    memcpy(b->name, text, (size_t)(eq - text));
    b->is_dim = is_dim;
    const char *p = eq + 1;
    for (;;) {
        int64_t v = 0;
        const char *start = p;
        while (*p >= '0' && *p <= '9' && v <= (INT64_MAX - 9) / 10) v = v * 10 + (*p++ - '0');
        RF_CHECK(ctx, p != start && v > 0 && !(*p >= '0' && *p <= '9'), RF_USAGE,
                 "%s '%.100s': dimensions must be positive integers", is_dim ? "--dim" : "--input",
                 text);
        if (is_dim) {
            RF_CHECK(ctx, *p == '\0', RF_USAGE, "--dim '%.100s': expected SYMBOL=VALUE", text);
            b->value = v;
            return RF_OK;
        }
        RF_CHECK(ctx, b->rank < RF_GRAPH_MAX_RANK, RF_USAGE,
                 "--input '%.100s': more than %d dimensions", text, RF_GRAPH_MAX_RANK);
        b->dims[b->rank++] = v;
        if (*p == '\0') return RF_OK;
        RF_CHECK(ctx, *p == 'x' || *p == 'X', RF_USAGE,
                 "--input '%.100s': separate dimensions with 'x'", text);
        p++;
    }
}

/* Forget the inferred shapes of every layer output (except constants) so that new input shapes
 * propagate. */
static void rf__reset_inferred(rf_graph *g)
{
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        rf_tensor *t = &g->tensors[i];
        if (t->producer < 0 || (t->flags & RF_TENSOR_WEIGHT)) continue;
        if (g->layers[t->producer].kind == RF_OP_CONSTANT &&
            strcmp(g->layers[t->producer].op_type, "Constant") == 0)
            continue;
        t->shape_known = 0;
        t->rank = 0;
        t->values = NULL;
        t->n_values = 0;
        t->fvalues = NULL;
        t->n_fvalues = 0;
    }
}

static rf_status rf__bind_input(rf_ctx *ctx, rf_graph *g, const rf_shape_binding *b)
{
    uint32_t ti = rf_graph_find_tensor(g, b->name);
    if (ti == RF_GRAPH_NO_TENSOR || !(g->tensors[ti].flags & RF_TENSOR_INPUT)) {
        char names[256];
        size_t len = 0;
        names[0] = '\0';
        for (uint32_t i = 0; i < g->n_tensors; i++)
            if (g->tensors[i].flags & RF_TENSOR_INPUT)
                rf__appendf(names, sizeof names, &len, "%s'%s'", len ? ", " : "",
                            g->tensors[i].name);
        return rf__error(ctx, RF_USAGE, -1, "--%s: the model has no input '%.100s' (inputs: %s)",
                         b->is_dim == 2 ? "value" : "input", b->name, len ? names : "none");
    }
    const rf_tensor *t = &g->tensors[ti];
    if (b->is_dim == 2) { /* a value: the input keeps its declared one-element shape */
        uint64_t n = 1;
        for (uint32_t d = 0; t->shape_known && d < t->rank; d++)
            n *= t->dims[d] > 0 ? (uint64_t)t->dims[d] : 2;
        RF_CHECK(ctx, n == 1, RF_USAGE,
                 "--value %.100s: input '%.100s' is not a scalar (rank %u); --value gives one "
                 "number",
                 b->name, b->name, t->rank);
        if (!t->shape_known) RF_TRY(rf_graph_set_shape(ctx, g, ti, 0, b->dims));
        return rf_graph_set_values(ctx, g, ti, &b->value, 1);
    }
    RF_CHECK(ctx, !t->shape_known || t->rank == b->rank, RF_USAGE,
             "input '%.100s' has rank %u, --input gives %u", b->name, t->rank, b->rank);
    return rf_graph_set_shape(ctx, g, ti, b->rank, b->dims);
}

static void rf__bind_dim(rf_graph *g, const rf_shape_binding *b, int *used)
{
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        rf_tensor *t = &g->tensors[i];
        for (uint32_t d = 0; t->shape_known && d < t->rank; d++) {
            if (t->dims[d] < 0 && t->dim_names[d] && strcmp(t->dim_names[d], b->name) == 0) {
                t->dims[d] = b->value;
                *used = 1;
            }
        }
    }
}

const char *rf__name_excerpt(char *dst, size_t cap, const char *src)
{
    size_t n = 0; /* names come from the file: keep the message one line */
    for (const char *p = src ? src : ""; *p && n + 1 < cap; p++)
        dst[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
    dst[n] = '\0';
    return dst;
}

rf_status rf__shape_overflow(rf_ctx *ctx, const rf_layer *l, const char *what)
{
    char name[96], op[48];
    rf__name_excerpt(name, sizeof name, l->name);
    rf__name_excerpt(op, sizeof op, l->op_type);
    return rf__error(ctx, RF_RANGE, -1, "node '%s' (%s): %s overflows 64-bit integers", name, op,
                     what);
}

rf_status rf_graph_infer_shapes(rf_ctx *ctx, rf_graph *g, const rf_shape_binding *b, size_t n)
{
    int any_input = 0;
    for (size_t i = 0; i < n; i++) any_input |= b[i].is_dim != 1;
    for (size_t i = 0; i < n; i++) {
        if (b[i].is_dim == 1) {
            int used = 0;
            rf__bind_dim(g, &b[i], &used);
            if (!used)
                rf__log(ctx, RF_LOG_WARN, "--dim %s: no dimension of the model is named '%s'",
                        b[i].name, b[i].name);
        } else {
            RF_TRY(rf__bind_input(ctx, g, &b[i]));
        }
    }
    if (any_input || n) rf__reset_inferred(g);
    for (uint32_t li = 0; li < g->n_layers; li++) RF_TRY(rf__infer_layer(ctx, g, li));
    return RF_OK;
}
