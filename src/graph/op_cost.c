/* op_cost.c — rf_op_cost: one operation costed by the graph's own rules (docs/cost-model.md): a
 * one-layer graph is built with the builder API, its output shape inferred by
 * rf_graph_infer_shapes and costed by rf_graph_cost. Never parses files, never prints. */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/op_cost.h"
#include "roofline/shape.h"

static rf_status rf__op_attr(rf_ctx *ctx, rf_graph *g, const rf_attr *a)
{
    RF_CHECK(ctx, a->name && a->name[0], RF_USAGE, "rf_op_cost: an attribute has no name");
    switch (a->type) {
    case RF_ATTR_INT: return rf_graph_set_attr_int(ctx, g, 0, a->name, a->i);
    case RF_ATTR_FLOAT: return rf_graph_set_attr_float(ctx, g, 0, a->name, a->f);
    case RF_ATTR_STRING:
        return rf_graph_set_attr_string(ctx, g, 0, a->name, a->s ? a->s : "",
                                        a->s ? strlen(a->s) : 0);
    case RF_ATTR_INTS:
        RF_CHECK(ctx, a->ints || !a->n, RF_USAGE, "rf_op_cost: attribute '%s' has no values",
                 a->name);
        return rf_graph_set_attr_ints(ctx, g, 0, a->name, a->ints, a->n);
    case RF_ATTR_FLOATS:
        RF_CHECK(ctx, a->floats || !a->n, RF_USAGE, "rf_op_cost: attribute '%s' has no values",
                 a->name);
        return rf_graph_set_attr_floats(ctx, g, 0, a->name, a->floats, a->n);
    }
    return rf__error(ctx, RF_USAGE, -1, "rf_op_cost: attribute '%s' has an unknown type", a->name);
}

static rf_status rf__op_build(rf_ctx *ctx, rf_graph *g, const char *op_type, const rf_op_input *in,
                              uint32_t n_in, const rf_attr *attrs, uint32_t n_attrs)
{
    uint32_t idx[16], out;
    RF_CHECK(ctx, n_in <= 16, RF_USAGE, "rf_op_cost: at most 16 inputs, got %u", n_in);
    for (uint32_t i = 0; i < n_in; i++) {
        if (in[i].dtype == RF_DTYPE_UNKNOWN) {
            idx[i] = RF_GRAPH_NO_TENSOR;
            continue;
        }
        RF_CHECK(ctx, in[i].rank <= RF_GRAPH_MAX_RANK && (in[i].dims || !in[i].rank), RF_USAGE,
                 "rf_op_cost: input %u: rank %u (at most %d, with its dims)", i, in[i].rank,
                 RF_GRAPH_MAX_RANK);
        for (uint32_t k = 0; k < in[i].rank; k++)
            RF_CHECK(ctx, in[i].dims[k] >= 0, RF_USAGE, "rf_op_cost: input %u: dim %u is %lld", i,
                     k, (long long)in[i].dims[k]);
        char name[16];
        snprintf(name, sizeof name, "in%u", i);
        uint32_t flags = in[i].weight ? RF_TENSOR_WEIGHT : RF_TENSOR_INPUT;
        RF_TRY(
            rf_graph_add_tensor(ctx, g, name, in[i].dtype, in[i].rank, in[i].dims, flags, &idx[i]));
        if (in[i].values && in[i].n_values) /* e.g. Resize's sizes, for shape inference */
            RF_TRY(rf_graph_set_values(ctx, g, idx[i], in[i].values, in[i].n_values));
    }
    rf_dtype dt = n_in && in[0].dtype != RF_DTYPE_UNKNOWN ? in[0].dtype : RF_DTYPE_F32;
    RF_TRY(rf_graph_add_tensor(ctx, g, "out", dt, UINT32_MAX, NULL, RF_TENSOR_OUTPUT, &out));
    RF_TRY(rf_graph_add_layer(ctx, g, op_type, op_type, idx, n_in, &out, 1, NULL));
    for (uint32_t i = 0; i < n_attrs; i++) RF_TRY(rf__op_attr(ctx, g, &attrs[i]));
    return RF_OK;
}

rf_status rf_op_cost(rf_ctx *ctx, const char *op_type, const rf_op_input *inputs, uint32_t n_inputs,
                     const rf_attr *attrs, uint32_t n_attrs, rf_layer_cost *out, int64_t *out_dims,
                     uint32_t *out_rank)
{
    RF_CHECK(ctx, op_type && op_type[0] && out && (inputs || !n_inputs) && (attrs || !n_attrs),
             RF_USAGE, "rf_op_cost: missing argument");
    memset(out, 0, sizeof *out);
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    rf_status st;
    RF_TRY_GOTO(st, rf_graph_new(ctx, "op", &g), done);
    RF_TRY_GOTO(st, rf__op_build(ctx, g, op_type, inputs, n_inputs, attrs, n_attrs), done);
    RF_TRY_GOTO(st, rf_graph_infer_shapes(ctx, g, NULL, 0), done);
    RF_TRY_GOTO(st, rf_graph_cost(ctx, g, &c), done);
    *out = c->layers[0];
    const rf_tensor *y = &g->tensors[g->layers[0].outputs[0]];
    if (out_rank) *out_rank = y->shape_known ? y->rank : 0;
    if (out_dims && y->shape_known) memcpy(out_dims, y->dims, y->rank * sizeof *out_dims);
done:
    rf_cost_free(c);
    rf_graph_free(g);
    return st;
}
