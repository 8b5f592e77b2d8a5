/* layer.c — layers of an rf_graph: adding them, their attributes, kind names, and tensor size
 * helpers (elements, bytes, shape text). The op types' kinds come from the registry
 * (op_registry.c). Never parses files or counts costs. */
#include <string.h>

#include "graph/graph_int.h"

static const char *const rf__kind_names[RF_OP_KIND_COUNT] = {
#define RF__OPK_NAME(name, text) text,
    RF_OP_KIND_LIST(RF__OPK_NAME)
#undef RF__OPK_NAME
};

const char *rf_op_kind_name(rf_op_kind k)
{
    return (unsigned)k < RF_OP_KIND_COUNT ? rf__kind_names[k] : "unknown";
}

static uint32_t *rf__dup_idx(rf_ctx *ctx, rf_graph *g, const uint32_t *v, uint32_t n)
{
    uint32_t *d = rf_graph_alloc(ctx, g, (size_t)n * sizeof *d + 1);
    if (d && n) memcpy(d, v, (size_t)n * sizeof *d);
    return d;
}

rf_status rf_graph_add_layer(rf_ctx *ctx, rf_graph *g, const char *name, const char *op_type,
                             const uint32_t *inputs, uint32_t n_inputs, const uint32_t *outputs,
                             uint32_t n_outputs, uint32_t *index)
{
    name = name ? name : "";
    op_type = op_type ? op_type : "";
    for (uint32_t i = 0; i < n_inputs; i++)
        RF_CHECK(ctx, inputs[i] < g->n_tensors || inputs[i] == RF_GRAPH_NO_TENSOR, RF_USAGE,
                 "layer '%.200s': input %u is not a tensor", name, i);
    for (uint32_t i = 0; i < n_outputs; i++)
        RF_CHECK(ctx, outputs[i] < g->n_tensors, RF_USAGE,
                 "layer '%.200s': output %u is not a tensor", name, i);
    RF_CHECK(ctx, g->n_layers < INT32_MAX, RF_RANGE, "graph: too many layers");
    RF_TRY(rf__grow(ctx, (void **)&g->layers, &g->cap_layers_, (size_t)g->n_layers + 1,
                    sizeof *g->layers));
    rf_layer *l = &g->layers[g->n_layers];
    memset(l, 0, sizeof *l);
    l->name = rf_graph_strdup(ctx, g, name, strlen(name));
    l->op_type = rf_graph_strdup(ctx, g, op_type, strlen(op_type));
    l->domain = "";
    l->inputs = rf__dup_idx(ctx, g, inputs, n_inputs);
    l->outputs = rf__dup_idx(ctx, g, outputs, n_outputs);
    if (!l->name || !l->op_type || !l->inputs || !l->outputs) return rf_ctx_error_status(ctx);
    l->n_inputs = n_inputs;
    l->n_outputs = n_outputs;
    l->kind = rf_op_kind_from_type(op_type);
    l->repeat = 1;
    for (uint32_t i = 0; i < n_outputs; i++) g->tensors[outputs[i]].producer = (int32_t)g->n_layers;
    if (index) *index = g->n_layers;
    g->n_layers++;
    return RF_OK;
}

/* Append an attribute slot to layer `li`; NULL on failure (error set). */
static rf_attr *rf__attr_new(rf_ctx *ctx, rf_graph *g, uint32_t li, const char *name,
                             rf_attr_type type)
{
    if (li >= g->n_layers) {
        rf__error(ctx, RF_USAGE, -1, "graph: no layer %u", li);
        return NULL;
    }
    rf_layer *l = &g->layers[li];
    if (l->n_attrs == l->cap_attrs_) {
        uint32_t ncap = l->cap_attrs_ ? l->cap_attrs_ * 2 : 4;
        rf_attr *na = rf_graph_alloc(ctx, g, (size_t)ncap * sizeof *na);
        if (!na) return NULL;
        if (l->n_attrs) memcpy(na, l->attrs, (size_t)l->n_attrs * sizeof *na);
        l->attrs = na;
        l->cap_attrs_ = ncap;
    }
    rf_attr *a = &l->attrs[l->n_attrs];
    memset(a, 0, sizeof *a);
    a->name = rf_graph_strdup(ctx, g, name, strlen(name));
    if (!a->name) return NULL;
    a->type = type;
    l->n_attrs++;
    return a;
}

rf_status rf_graph_set_attr_int(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                int64_t v)
{
    rf_attr *a = rf__attr_new(ctx, g, layer, name, RF_ATTR_INT);
    if (!a) return rf_ctx_error_status(ctx);
    a->i = v;
    return RF_OK;
}

rf_status rf_graph_set_attr_float(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                  double v)
{
    rf_attr *a = rf__attr_new(ctx, g, layer, name, RF_ATTR_FLOAT);
    if (!a) return rf_ctx_error_status(ctx);
    a->f = v;
    return RF_OK;
}

rf_status rf_graph_set_attr_string(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                   const char *v, size_t len)
{
    rf_attr *a = rf__attr_new(ctx, g, layer, name, RF_ATTR_STRING);
    if (!a || !(a->s = rf_graph_strdup(ctx, g, v, len))) return rf_ctx_error_status(ctx);
    return RF_OK;
}

rf_status rf_graph_set_attr_ints(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                 const int64_t *v, uint32_t n)
{
    rf_attr *a = rf__attr_new(ctx, g, layer, name, RF_ATTR_INTS);
    if (!a) return rf_ctx_error_status(ctx);
    int64_t *d = rf_graph_alloc(ctx, g, (size_t)n * sizeof *d + 1);
    if (!d) return rf_ctx_error_status(ctx);
    if (n) memcpy(d, v, (size_t)n * sizeof *d);
    a->ints = d;
    a->n = n;
    return RF_OK;
}

rf_status rf_graph_set_attr_floats(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                   const double *v, uint32_t n)
{
    rf_attr *a = rf__attr_new(ctx, g, layer, name, RF_ATTR_FLOATS);
    if (!a) return rf_ctx_error_status(ctx);
    double *d = rf_graph_alloc(ctx, g, (size_t)n * sizeof *d + 1);
    if (!d) return rf_ctx_error_status(ctx);
    if (n) memcpy(d, v, (size_t)n * sizeof *d);
    a->floats = d;
    a->n = n;
    return RF_OK;
}

const rf_attr *rf_layer_attr(const rf_layer *l, const char *name)
{
    for (uint32_t i = l->n_attrs; i-- > 0;)
        if (strcmp(l->attrs[i].name, name) == 0) return &l->attrs[i];
    return NULL;
}

int64_t rf_layer_attr_int(const rf_layer *l, const char *name, int64_t def)
{
    const rf_attr *a = rf_layer_attr(l, name);
    return a && a->type == RF_ATTR_INT ? a->i : def;
}

int rf__attr_ints(const rf_layer *l, const char *name, int64_t *out, int max)
{
    const rf_attr *a = rf_layer_attr(l, name);
    if (!a || a->type != RF_ATTR_INTS) return -1;
    int n = a->n < (uint32_t)max ? (int)a->n : max;
    for (int i = 0; i < n; i++) out[i] = a->ints[i];
    return n;
}

int rf_tensor_elems(const rf_tensor *t, uint64_t *out)
{
    if (!rf__shape_full(t)) return 0;
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++)
        if (!rf__mul_ok(n, (uint64_t)t->dims[i], &n)) return 0;
    *out = n;
    return 1;
}

int rf_tensor_bytes(const rf_tensor *t, uint64_t *out)
{
    uint64_t n;
    return rf_tensor_elems(t, &n) && rf_dtype_bytes(t->dtype, n, out);
}

const char *rf_tensor_shape_str(const rf_tensor *t, char *buf, size_t size)
{
    size_t len = 0;
    if (size == 0) return buf;
    buf[0] = '\0';
    if (!t || !t->shape_known) {
        rf__appendf(buf, size, &len, "?");
        return buf;
    }
    if (t->rank == 0) rf__appendf(buf, size, &len, "scalar");
    for (uint32_t i = 0; i < t->rank; i++) {
        const char *sep = i ? "x" : "";
        if (t->dims[i] >= 0)
            rf__appendf(buf, size, &len, "%s%lld", sep, (long long)t->dims[i]);
        else
            rf__appendf(buf, size, &len, "%s%s", sep, t->dim_names[i] ? t->dim_names[i] : "?");
    }
    return buf;
}
