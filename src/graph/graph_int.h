/* graph_int.h — internals shared by src/graph: shape helpers for inference and cost, and the
 * per-kind cost functions (cost.c dispatches, cost_*.c count; docs/cost-model.md).
 * Never installed; never included by cli/. */
#ifndef RF_GRAPH_INT_H
#define RF_GRAPH_INT_H

#include "core/checked.h"
#include "core/rf_int.h"
#include <string.h>

#include "roofline/cost.h"
#include "roofline/graph.h"
#include "roofline/shape.h"

/* The tensor at input/output slot i of layer l, or NULL when absent or omitted. */
static inline const rf_tensor *rf__lin(const rf_graph *g, const rf_layer *l, uint32_t i)
{
    if (i >= l->n_inputs || l->inputs[i] == RF_GRAPH_NO_TENSOR) return NULL;
    return &g->tensors[l->inputs[i]];
}
static inline const rf_tensor *rf__lout(const rf_graph *g, const rf_layer *l, uint32_t i)
{
    if (i >= l->n_outputs) return NULL;
    return &g->tensors[l->outputs[i]];
}

/* 1 when the tensor exists and every dim is known. */
static inline int rf__shape_full(const rf_tensor *t)
{
    if (!t || !t->shape_known) return 0;
    for (uint32_t i = 0; i < t->rank; i++)
        if (t->dims[i] < 0) return 0;
    return 1;
}

/* Integer attribute list: copies up to `max` values into out, returns the count, or -1 when
 * absent. */
int rf__attr_ints(const rf_layer *l, const char *name, int64_t *out, int max);

/* FLOPs of one layer, split into the core (multiply-adds of Conv/Gemm/MatMul/attention, or the
 * whole count for other kinds) and the extra (bias adds); cost_ops.c, docs/cost-model.md.
 * Returns 1, or 0 with *why set to a static reason when the count is not known. */
int rf__layer_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why);

/* ---- shape inference helpers (shape_ops.c, shape_data.c) ---- */

/* A full shape (every dim known). */
typedef struct rf__shp {
    uint32_t rank;
    int64_t d[RF_GRAPH_MAX_RANK];
} rf__shp;

static inline int rf__get(const rf_graph *g, const rf_layer *l, uint32_t i, rf__shp *s)
{
    const rf_tensor *t = rf__lin(g, l, i);
    if (!rf__shape_full(t)) return 0;
    s->rank = t->rank;
    memcpy(s->d, t->dims, sizeof s->d);
    return 1;
}

/* Integer contents of input i (values), count or -1. */
static inline int rf__vals(const rf_graph *g, const rf_layer *l, uint32_t i, const int64_t **v)
{
    const rf_tensor *t = rf__lin(g, l, i);
    *v = NULL;
    if (!t || !t->values) return -1;
    *v = t->values;
    return (int)t->n_values;
}

static inline rf_status rf__set(rf_ctx *ctx, rf_graph *g, const rf_layer *l, uint32_t o,
                                const rf__shp *s, rf_dtype dt)
{
    if (o >= l->n_outputs) return RF_OK;
    for (uint32_t i = 0; i < s->rank; i++)
        if (s->d[i] < 0) return RF_OK;
    rf_tensor *t = &g->tensors[l->outputs[o]];
    if (dt != RF_DTYPE_UNKNOWN && t->dtype == RF_DTYPE_UNKNOWN) t->dtype = dt;
    return rf_graph_set_shape(ctx, g, l->outputs[o], s->rank, s->d);
}

static inline rf_dtype rf__dt(const rf_graph *g, const rf_layer *l, uint32_t i)
{
    const rf_tensor *t = rf__lin(g, l, i);
    return t ? t->dtype : RF_DTYPE_UNKNOWN;
}

static inline int64_t rf__axis(int64_t a, uint32_t rank)
{
    return a < 0 ? a + (int64_t)rank : a;
}

/* Rules for data-movement, metadata, constant, gather, reduce and resize layers, and integer
 * value propagation of elementwise arithmetic (shape_data.c). */
rf_status rf__infer_data(rf_ctx *ctx, rf_graph *g, const rf_layer *l);
rf_status rf__arith_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l);

/* Refuse layer l because a size computed from its file data (`what`) overflows 64-bit integers:
 * RF_RANGE, "node 'NAME' (OP): WHAT overflows 64-bit integers" (shape.c). */
rf_status rf__shape_overflow(rf_ctx *ctx, const rf_layer *l, const char *what);

/* NumPy broadcasting of the first n_in present inputs (shape_ops.c); 0 when they disagree. */
int rf__broadcast(const rf_graph *g, const rf_layer *l, uint32_t n_in, rf__shp *out);
/* Conv / pooling output spatial sizes (shape_ops.c): 1 inferred, 0 undecided, -1 overflow. */
int rf__window(const rf_layer *l, const rf__shp *x, const int64_t *k, int64_t c_out, rf__shp *y);
/* ONNX MatMul's output shape (1-D operands, broadcast batch dims); 0 when they do not agree. */
int rf__matmul_shape(const rf__shp *a, const rf__shp *b, rf__shp *y);

/* An Einsum equation parsed against its inputs' shapes (cost_ext.c; the executor lowers it). */
#define RF__EIN_MAX 8 /* operands */
typedef struct rf__ein {
    int n;                                         /* operands */
    char term[RF__EIN_MAX][RF_GRAPH_MAX_RANK + 1]; /* letters per operand, ellipsis expanded */
    char out[RF_GRAPH_MAX_RANK + 1];               /* output letters */
    int64_t size[128];                             /* per letter, -1 unset */
} rf__ein;
/* Parse layer l's equation against its inputs' shapes: letters only, "..." expanded to fresh
 * letters ('0'.., the broadcast dims of the operands' ellipses; an operand's dim of size 1 there
 * broadcasts), implicit output = the letters seen once, alphabetically. 0 when malformed or
 * inconsistent. */
int rf__ein_parse(const rf_graph *g, const rf_layer *l, rf__ein *e);

/* The ops with rules of their own (cost_ext.c): recurrent (LSTM, GRU, RNN), Einsum,
 * comparisons and logic (boolean outputs), quantized ops, ONNX Runtime's contrib ops. `flops`
 * NULL: the kind's rule counts it. docs/cost-model.md. */
typedef struct rf__ext_op {
    const char *op, *domain; /* domain NULL: any */
    rf_op_kind kind;
    rf_status (*shape)(rf_ctx *ctx, rf_graph *g, const rf_layer *l);
    int (*flops)(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                 const char **why);
} rf__ext_op;
const rf__ext_op *rf__ext_find(const rf_layer *l);
/* The kind of an op known to cost_ext.c by type and domain, or RF_OP_UNKNOWN. */
rf_op_kind rf__ext_kind(const char *op_type, const char *domain);

/* Shape inference of one layer (shape.c, shape_ops.c). Returns RF_OK also when it could not
 * infer (outputs then stay unknown); errors for NOMEM and for overflowing sizes (RF_RANGE). */
rf_status rf__infer_layer(rf_ctx *ctx, rf_graph *g, uint32_t li);

#endif
