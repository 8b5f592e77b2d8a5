/* onnx_node.c — one ONNX NodeProto into an rf_graph layer: its tensors (created on first use),
 * its attributes (INT, FLOAT, STRING, INTS, FLOATS; Constant's tensor becomes the output's shape,
 * type and small integer values), decoded by protobuf-c through the capped allocator.
 * Subgraph attributes (If/Loop/Scan) are not decoded: such layers are marked undefined. */
#include <string.h>

#include "formats/onnx_int.h"
#include "onnx.pb-c.h"

/* Find a tensor by name or create it (unknown shape). */
static rf_status rf__tensor_for(rf__onnx *o, const char *name, uint32_t *ti)
{
    *ti = rf_graph_find_tensor(o->g, name);
    if (*ti != RF_GRAPH_NO_TENSOR) return RF_OK;
    return rf_graph_add_tensor(o->ctx, o->g, name, RF_DTYPE_UNKNOWN, UINT32_MAX, NULL, 0, ti);
}

/* A Constant's value (attribute value / value_int / value_ints / value_float) onto its output. */
static rf_status rf__constant(rf__onnx *o, uint32_t out, const Onnx__AttributeProto *a)
{
    rf_graph *g = o->g;
    if (strcmp(a->name, "value") == 0 && a->t) {
        const Onnx__TensorProto *t = a->t;
        rf_dtype dt;
        int64_t dims[RF_GRAPH_MAX_RANK];
        RF_CHECK(o->ctx, t->n_dims <= RF_GRAPH_MAX_RANK, RF_UNSUPPORTED, "%s: constant of rank %zu",
                 o->what, t->n_dims);
        for (size_t i = 0; i < t->n_dims; i++) {
            RF_CHECK(o->ctx, t->dims[i] >= 0, RF_FORMAT, "%s: negative dim", o->what);
            dims[i] = t->dims[i];
        }
        RF_TRY(rf__onnx_dtype(o, t->data_type, &dt));
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, dt));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, (uint32_t)t->n_dims, dims));
        if (t->has_raw_data)
            return rf__onnx_values_raw(o, out, dt, t->raw_data.data, t->raw_data.len);
        if (t->n_int64_data && t->n_int64_data <= RF_GRAPH_MAX_VALUES)
            return rf_graph_set_values(o->ctx, g, out, t->int64_data, (uint32_t)t->n_int64_data);
        return RF_OK;
    }
    int64_t one = 1;
    if (strcmp(a->name, "value_int") == 0) {
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, RF_DTYPE_I64));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, 0, NULL));
        return rf_graph_set_values(o->ctx, g, out, &a->i, 1);
    }
    if (strcmp(a->name, "value_ints") == 0) {
        int64_t n = (int64_t)a->n_ints;
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, RF_DTYPE_I64));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, 1, &n));
        return a->n_ints <= RF_GRAPH_MAX_VALUES
                   ? rf_graph_set_values(o->ctx, g, out, a->ints, (uint32_t)a->n_ints)
                   : RF_OK;
    }
    if (strcmp(a->name, "value_float") == 0) {
        g->tensors[out].dtype = RF_DTYPE_F32;
        return rf_graph_set_shape(o->ctx, g, out, 0, &one);
    }
    return RF_OK;
}

/* One attribute onto layer li. Returns 1 through *subgraph for GRAPH(S) attributes. */
/* ConstantOfShape's integer fill value (a one-element INT64 or INT32 tensor) as the private
 * attribute rf_fill_int, so that shape arithmetic sees the values it makes. */
static rf_status rf__fill_value(rf__onnx *o, uint32_t li, const Onnx__AttributeProto *a)
{
    const Onnx__TensorProto *t = a->t;
    if (strcmp(a->name, "value") != 0 || !t || (t->data_type != 7 && t->data_type != 6))
        return RF_OK;
    int64_t v;
    if (t->data_type == 7 && t->n_int64_data == 1)
        v = t->int64_data[0];
    else if (t->data_type == 6 && t->n_int32_data == 1)
        v = t->int32_data[0];
    else if (t->has_raw_data && t->raw_data.len == (t->data_type == 7 ? 8u : 4u)) {
        const uint8_t *b = t->raw_data.data;
        uint64_t u = 0;
        for (size_t k = t->raw_data.len; k-- > 0;) u = u << 8 | b[k];
        v = t->data_type == 7 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
    } else {
        return RF_OK;
    }
    return rf_graph_set_attr_int(o->ctx, o->g, li, "rf_fill_int", v);
}

static rf_status rf__attr(rf__onnx *o, uint32_t li, const Onnx__AttributeProto *a, int *subgraph)
{
    rf_ctx *ctx = o->ctx;
    int type = a->has_type ? a->type : 0;
    RF_CHECK(ctx, a->name && *a->name, RF_FORMAT, "%s: attribute without a name", o->what);
    if (type == 0) /* IR < 3 files may omit the type: infer it from what is set */
        type = a->n_ints ? 7 : a->n_floats ? 6 : a->has_s ? 3 : a->t ? 4 : a->has_f ? 1 : 2;
    switch (type) {
    case 1: return rf_graph_set_attr_float(ctx, o->g, li, a->name, a->f);
    case 2: return rf_graph_set_attr_int(ctx, o->g, li, a->name, a->i);
    case 3:
        return rf_graph_set_attr_string(ctx, o->g, li, a->name, (const char *)a->s.data, a->s.len);
    case 7:
        RF_CHECK(ctx, a->n_ints <= UINT32_MAX, RF_RANGE, "%s: too many ints", o->what);
        return rf_graph_set_attr_ints(ctx, o->g, li, a->name, a->ints, (uint32_t)a->n_ints);
    case 6: {
        double buf[64];
        uint32_t n = a->n_floats < 64 ? (uint32_t)a->n_floats : 64;
        for (uint32_t i = 0; i < n; i++) buf[i] = a->floats[i];
        return rf_graph_set_attr_floats(ctx, o->g, li, a->name, buf, n);
    }
    case 5:
    case 10: *subgraph = 1; return RF_OK;
    default: return RF_OK; /* tensors, strings, type protos: not needed for costs */
    }
}

static rf_status rf__build(rf__onnx *o, const Onnx__NodeProto *nd, size_t idx)
{
    uint32_t in[256], out[256], *ins = in, *outs = out, li;
    RF_CHECK(o->ctx, nd->n_input <= 256 && nd->n_output <= 256, RF_UNSUPPORTED,
             "%s: more than 256 inputs or outputs", o->what);
    RF_CHECK(o->ctx, nd->op_type && *nd->op_type, RF_FORMAT, "%s: no op_type", o->what);
    for (size_t i = 0; i < nd->n_input; i++) {
        if (!*nd->input[i])
            ins[i] = RF_GRAPH_NO_TENSOR;
        else
            RF_TRY(rf__tensor_for(o, nd->input[i], &ins[i]));
    }
    for (size_t i = 0; i < nd->n_output; i++) {
        RF_TRY(rf__tensor_for(o, nd->output[i], &outs[i]));
        const rf_tensor *t = &o->g->tensors[outs[i]];
        RF_CHECK(o->ctx, t->producer < 0 && !(t->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_INPUT)),
                 RF_FORMAT, "%s: output '%.200s' is already produced elsewhere", o->what, t->name);
    }
    char name[64];
    const char *nm = nd->name && *nd->name ? nd->name : name;
    size_t len = 0;
    rf__appendf(name, sizeof name, &len, "%s_%zu", nd->op_type, idx);
    RF_TRY(rf_graph_add_layer(o->ctx, o->g, nm, nd->op_type, ins, (uint32_t)nd->n_input, outs,
                              (uint32_t)nd->n_output, &li));
    rf_layer *l = &o->g->layers[li];
    const char *dom = nd->domain ? nd->domain : "";
    if (*dom) l->domain = rf_graph_strdup(o->ctx, o->g, dom, strlen(dom));
    if (!l->domain) return rf_ctx_error_status(o->ctx);
    if (*dom) l->kind = rf_op_kind_in_domain(nd->op_type, dom);
    int sub = 0;
    for (size_t i = 0; i < nd->n_attribute; i++) {
        RF_TRY(rf__attr(o, li, nd->attribute[i], &sub));
        if (strcmp(nd->op_type, "Constant") == 0 && nd->n_output == 1)
            RF_TRY(rf__constant(o, outs[0], nd->attribute[i]));
        if (strcmp(nd->op_type, "ConstantOfShape") == 0)
            RF_TRY(rf__fill_value(o, li, nd->attribute[i]));
    }
    if (sub) o->g->layers[li].kind = RF_OP_UNKNOWN; /* control flow: subgraphs not counted */
    return RF_OK;
}

rf_status rf__onnx_node(rf__onnx *o, const uint8_t *p, size_t n, size_t idx)
{
    rf__onnx_what(o, "graph.node[%zu]%s", "", idx);
    rf__onnx_cap_for(o, n);
    Onnx__NodeProto *nd = onnx__node_proto__unpack(&o->pa.pb, n, p);
    if (!nd) return rf__onnx_unpack_fail(o, p);
    char ex[160];
    rf__excerpt(ex, sizeof ex, nd->name ? nd->name : "", nd->name ? strlen(nd->name) : 0, 120);
    size_t len = 0;
    o->what[0] = '\0';
    rf__appendf(o->what, sizeof o->what, &len, "graph.node[%zu] '%s'", idx, ex);
    rf_status st = rf__build(o, nd, idx);
    onnx__node_proto__free_unpacked(nd, &o->pa.pb);
    return st;
}
