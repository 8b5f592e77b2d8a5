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

/* ---- helpers of the shape and cost rules (rules_*.c, cost_ops.c) ---- */

#define RF__WHY(msg) (*why = (msg), 0)

static inline int rf__prod(const rf_tensor *t, uint32_t from, uint32_t to, uint64_t *out)
{
    uint64_t n = 1;
    for (uint32_t i = from; i < to && i < t->rank; i++)
        if (t->dims[i] < 0 || !rf__mul_ok(n, (uint64_t)t->dims[i], &n)) return 0;
    *out = n;
    return 1;
}

static inline int rf__elems_in(const rf_graph *g, const rf_layer *l, uint32_t i, uint64_t *n)
{
    const rf_tensor *t = rf__lin(g, l, i);
    return rf__shape_full(t) && rf__prod(t, 0, t->rank, n);
}

static inline int rf__elems_out(const rf_graph *g, const rf_layer *l, uint32_t i, uint64_t *n)
{
    const rf_tensor *t = rf__lout(g, l, i);
    return rf__shape_full(t) && rf__prod(t, 0, t->rank, n);
}

/* a·b + c·d into *out, checked */
static inline int rf__madd(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *out)
{
    uint64_t x, y;
    return rf__mul_ok(a, b, &x) && rf__mul_ok(c, d, &y) && rf__add_ok(x, y, out);
}

/* A scalar integer constant at input i (or [1]); 0 when not known. */
static inline int rf__const1(const rf_graph *g, const rf_layer *l, uint32_t i, int64_t *v)
{
    const int64_t *p;
    if (rf__vals(g, l, i, &p) != 1) return 0;
    *v = p[0];
    return 1;
}

/* Output 0 as input i (elementwise with one data input), dtype `dt` (UNKNOWN: the input's). */
static inline rf_status rf__like(rf_ctx *ctx, rf_graph *g, const rf_layer *l, uint32_t i,
                                 rf_dtype dt)
{
    rf__shp s;
    if (!rf__get(g, l, i, &s)) return RF_OK;
    return rf__set(ctx, g, l, 0, &s, dt != RF_DTYPE_UNKNOWN ? dt : rf__dt(g, l, i));
}

/* Integer value propagation of elementwise arithmetic (shape_data.c). */
rf_status rf__arith_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l);

/* Refuse layer l because a size computed from its file data (`what`) overflows 64-bit integers:
 * RF_RANGE, "node 'NAME' (OP): WHAT overflows 64-bit integers" (shape.c). */
rf_status rf__shape_overflow(rf_ctx *ctx, const rf_layer *l, const char *what);
/* A name from a file cut to cap - 1 bytes, control bytes as '?', for a one-line message. */
const char *rf__name_excerpt(char *dst, size_t cap, const char *src);

/* NumPy broadcasting of the first n_in present inputs (shape_ops.c); 0 when they disagree. */
int rf__broadcast(const rf_graph *g, const rf_layer *l, uint32_t n_in, rf__shp *out);
/* Conv / pooling output spatial sizes (shape_ops.c): 1 inferred, 0 undecided, -1 overflow. */
int rf__window(const rf_layer *l, const rf__shp *x, const int64_t *k, int64_t c_out, rf__shp *y);
/* ONNX MatMul's output shape (1-D operands, broadcast batch dims); 0 when they do not agree. */
int rf__matmul_shape(const rf__shp *a, const rf__shp *b, rf__shp *y);

/* An Einsum equation parsed against its inputs' shapes (rules_recurrent.c; the executor lowers it).
 */
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

/* ---- the op registry (op_table.h, op_registry.c) ---- */

#include "graph/op_table.h"

typedef enum rf__op_id {
#define RF__OPID_ENUM(id, ...) RF_OPID_##id,
    RF_OP_TABLE(RF__OPID_ENUM)
#undef RF__OPID_ENUM
        RF_OPID_COUNT
} rf__op_id;

typedef enum rf__op_domain { RF__DOM_ONNX, RF__DOM_MS, RF__DOM_RF } rf__op_domain;

typedef enum rf__cost_section {
#define RF__SEC_ENUM(id, title) RF__SEC_##id,
    RF_COST_SECTIONS(RF__SEC_ENUM)
#undef RF__SEC_ENUM
        RF__SEC_COUNT
} rf__cost_section;
/* The "### " title in docs/cost-model.md of a section. */
const char *rf__cost_section_title(rf__cost_section s);

/* A shape rule writes the shapes (and, where known, integer values) of a layer's outputs from
 * its inputs'; RF_OK also when it could not (outputs stay unknown). A cost rule counts a layer's
 * FLOPs: core (matrix work, or all of it) and extra (bias adds); 1, or 0 with *why. */
typedef rf_status (*rf__shape_rule)(rf_ctx *ctx, rf_graph *g, const rf_layer *l);
typedef int (*rf__cost_rule)(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                             const char **why);

#define RF__RULE_DECL(id, name, dom, kind, shape, cost, ...)                                       \
    rf_status rf__shape_##shape(rf_ctx *ctx, rf_graph *g, const rf_layer *l);                      \
    int rf__cost_##cost(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,     \
                        const char **why);
RF_OP_TABLE(RF__RULE_DECL)
#undef RF__RULE_DECL

typedef struct rf__op_row {
    rf__op_id id;
    const char *name;
    rf__op_domain domain;
    rf_op_kind kind;
    rf__shape_rule shape;
    rf__cost_rule cost;
    rf__cost_section section; /* the docs/cost-model.md section its cost rule implements */
    const char *executor;     /* the executor entry's name, "none" when it has none */
    const char *no_kernel;    /* why it has none; NULL when it has one */
} rf__op_row;

/* The row of an op type in an ONNX domain ("" or "ai.onnx": the standard ops and roofline's own;
 * "com.microsoft": the contrib ops, then the standard ones; any other: NULL). */
const rf__op_row *rf__op_find(const char *op_type, const char *domain);
/* The row a layer's rules come from: NULL for a layer whose kind is unknown (an op of another
 * domain, a subgraph op that was not inlined) or whose type has no row (then its kind's rules
 * apply, rf__kind_shape / rf__kind_cost). */
const rf__op_row *rf__op_of(const rf_layer *l);

/* mask[i] = 1 for each layer on the branch of an If that shape inference decided against (both
 * branches were inlined; the condition's value became known): the cost model drops them and the
 * executor does not run them. mask has g->n_layers entries, zeroed by the caller. */
void rf__if_dropped_mask(const rf_graph *g, uint8_t *mask);
const rf__op_row *rf__op_row_at(rf__op_id id);
rf__shape_rule rf__kind_shape(rf_op_kind k);
rf__cost_rule rf__kind_cost(rf_op_kind k);

/* Shape inference of one layer (shape.c, shape_ops.c). Returns RF_OK also when it could not
 * infer (outputs then stay unknown); errors for NOMEM and for overflowing sizes (RF_RANGE). */
rf_status rf__infer_layer(rf_ctx *ctx, rf_graph *g, uint32_t li);

#endif
