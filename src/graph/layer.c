/* layer.c — layers of an rf_graph: adding them, their attributes, the op-type → kind table, and
 * tensor size helpers (elements, bytes, shape text). Never parses files or counts costs. */
#include <string.h>

#include "graph/graph_int.h"

static const struct {
    const char *type;
    rf_op_kind kind;
} rf__op_kinds[] = {
    {"Conv", RF_OP_CONV},
    {"ConvTranspose", RF_OP_CONV_TRANSPOSE},
    {"Gemm", RF_OP_GEMM},
    {"Linear", RF_OP_GEMM},
    {"MatMul", RF_OP_MATMUL},
    {"Softmax", RF_OP_SOFTMAX},
    {"LogSoftmax", RF_OP_SOFTMAX},
    {"LayerNormalization", RF_OP_LAYERNORM},
    {"SimplifiedLayerNormalization", RF_OP_RMSNORM},
    {"RMSNormalization", RF_OP_RMSNORM},
    {"RMSNorm", RF_OP_RMSNORM},
    {"BatchNormalization", RF_OP_BATCHNORM},
    {"InstanceNormalization", RF_OP_LAYERNORM},
    {"GroupNormalization", RF_OP_LAYERNORM},
    {"Relu", RF_OP_ACTIVATION},
    {"LeakyRelu", RF_OP_ACTIVATION},
    {"PRelu", RF_OP_ACTIVATION},
    {"Sigmoid", RF_OP_ACTIVATION},
    {"Tanh", RF_OP_ACTIVATION},
    {"Gelu", RF_OP_ACTIVATION},
    {"Erf", RF_OP_ACTIVATION},
    {"Clip", RF_OP_ACTIVATION},
    {"HardSwish", RF_OP_ACTIVATION},
    {"HardSigmoid", RF_OP_ACTIVATION},
    {"Elu", RF_OP_ACTIVATION},
    {"Selu", RF_OP_ACTIVATION},
    {"Softplus", RF_OP_ACTIVATION},
    {"Mish", RF_OP_ACTIVATION},
    {"Silu", RF_OP_ACTIVATION},
    {"Swish", RF_OP_ACTIVATION},
    {"Exp", RF_OP_ACTIVATION},
    {"Log", RF_OP_ACTIVATION},
    {"Neg", RF_OP_ACTIVATION},
    {"Abs", RF_OP_ACTIVATION},
    {"Reciprocal", RF_OP_ACTIVATION},
    {"Floor", RF_OP_ACTIVATION},
    {"Ceil", RF_OP_ACTIVATION},
    {"Sin", RF_OP_ACTIVATION},
    {"Cos", RF_OP_ACTIVATION},
    {"Acos", RF_OP_ACTIVATION},
    {"Acosh", RF_OP_ACTIVATION},
    {"Asin", RF_OP_ACTIVATION},
    {"Asinh", RF_OP_ACTIVATION},
    {"Atan", RF_OP_ACTIVATION},
    {"Atanh", RF_OP_ACTIVATION},
    {"Tan", RF_OP_ACTIVATION},
    {"Sinh", RF_OP_ACTIVATION},
    {"Cosh", RF_OP_ACTIVATION},
    {"Round", RF_OP_ACTIVATION},
    {"Sign", RF_OP_ACTIVATION},
    {"Softsign", RF_OP_ACTIVATION},
    {"Shrink", RF_OP_ACTIVATION},
    {"ThresholdedRelu", RF_OP_ACTIVATION},
    {"Celu", RF_OP_ACTIVATION},
    {"Hardmax", RF_OP_ACTIVATION},
    {"Sqrt", RF_OP_ELEMENTWISE},
    {"Not", RF_OP_ACTIVATION},
    {"Cast", RF_OP_DATA_MOVEMENT},
    {"Add", RF_OP_ELEMENTWISE},
    {"Sub", RF_OP_ELEMENTWISE},
    {"Mul", RF_OP_ELEMENTWISE},
    {"Div", RF_OP_ELEMENTWISE},
    {"Pow", RF_OP_ELEMENTWISE},
    {"Max", RF_OP_ELEMENTWISE},
    {"Min", RF_OP_ELEMENTWISE},
    {"Sum", RF_OP_ELEMENTWISE},
    {"Mean", RF_OP_ELEMENTWISE},
    {"Equal", RF_OP_ELEMENTWISE},
    {"Less", RF_OP_ELEMENTWISE},
    {"Greater", RF_OP_ELEMENTWISE},
    {"Where", RF_OP_ELEMENTWISE},
    {"And", RF_OP_ELEMENTWISE},
    {"Or", RF_OP_ELEMENTWISE},
    {"Mod", RF_OP_ELEMENTWISE},
    {"ReduceMean", RF_OP_REDUCE},
    {"ReduceSum", RF_OP_REDUCE},
    {"ReduceMax", RF_OP_REDUCE},
    {"ReduceMin", RF_OP_REDUCE},
    {"ReduceProd", RF_OP_REDUCE},
    {"ReduceL2", RF_OP_REDUCE},
    {"ReduceSumSquare", RF_OP_REDUCE},
    {"ReduceL1", RF_OP_REDUCE},
    {"ReduceLogSum", RF_OP_REDUCE},
    {"ReduceLogSumExp", RF_OP_REDUCE},
    {"MaxPool", RF_OP_POOL},
    {"AveragePool", RF_OP_POOL},
    {"LpPool", RF_OP_POOL},
    {"GlobalAveragePool", RF_OP_GLOBAL_POOL},
    {"GlobalMaxPool", RF_OP_GLOBAL_POOL},
    {"GlobalLpPool", RF_OP_GLOBAL_POOL},
    {"Transpose", RF_OP_DATA_MOVEMENT},
    {"Concat", RF_OP_DATA_MOVEMENT},
    {"Slice", RF_OP_DATA_MOVEMENT},
    {"Split", RF_OP_DATA_MOVEMENT},
    {"Pad", RF_OP_DATA_MOVEMENT},
    {"Expand", RF_OP_DATA_MOVEMENT},
    {"Tile", RF_OP_DATA_MOVEMENT},
    {"DepthToSpace", RF_OP_DATA_MOVEMENT},
    {"SpaceToDepth", RF_OP_DATA_MOVEMENT},
    {"Reshape", RF_OP_METADATA},
    {"Flatten", RF_OP_METADATA},
    {"Squeeze", RF_OP_METADATA},
    {"Unsqueeze", RF_OP_METADATA},
    {"Identity", RF_OP_METADATA},
    {"Shape", RF_OP_METADATA},
    {"Size", RF_OP_METADATA},
    {"Dropout", RF_OP_METADATA},
    {"Constant", RF_OP_CONSTANT},
    {"ConstantOfShape", RF_OP_CONSTANT},
    {"Range", RF_OP_CONSTANT},
    {"Gather", RF_OP_GATHER},
    {"GatherElements", RF_OP_GATHER},
    {"GatherND", RF_OP_GATHER},
    {"Embedding", RF_OP_GATHER},
    {"Resize", RF_OP_RESIZE},
    {"Upsample", RF_OP_RESIZE},
    {"Attention", RF_OP_ATTENTION},
    {"MultiHeadAttention", RF_OP_ATTENTION},
    {"RotaryEmbedding", RF_OP_ROPE},
};

static const char *const rf__kind_names[RF_OP_KIND_COUNT] = {
#define RF__OPK_NAME(name, text) text,
    RF_OP_KIND_LIST(RF__OPK_NAME)
#undef RF__OPK_NAME
};

const char *rf_op_kind_name(rf_op_kind k)
{
    return (unsigned)k < RF_OP_KIND_COUNT ? rf__kind_names[k] : "unknown";
}

rf_op_kind rf_op_kind_from_type(const char *op_type)
{
    for (size_t i = 0; op_type && i < sizeof rf__op_kinds / sizeof *rf__op_kinds; i++)
        if (strcmp(op_type, rf__op_kinds[i].type) == 0) return rf__op_kinds[i].kind;
    return op_type ? rf__ext_kind(op_type, "") : RF_OP_UNKNOWN; /* cost_ext.c's standard ops */
}

rf_op_kind rf_op_kind_in_domain(const char *op_type, const char *domain)
{
    if (!domain || !domain[0] || strcmp(domain, "ai.onnx") == 0)
        return rf_op_kind_from_type(op_type);
    rf_op_kind k = op_type ? rf__ext_kind(op_type, domain) : RF_OP_UNKNOWN;
    /* ONNX Runtime also registers standard ops (LayerNormalization ...) in its own domain */
    if (k == RF_OP_UNKNOWN && strcmp(domain, "com.microsoft") == 0)
        k = rf_op_kind_from_type(op_type);
    return k;
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
