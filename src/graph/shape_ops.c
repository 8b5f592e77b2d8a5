/* shape_ops.c — the per-op shape rules of static shape inference (ONNX operator semantics,
 * onnx/docs/Operators.md), plus value propagation of small integer tensors (Shape, Gather,
 * Concat, arithmetic) so that Reshape/Slice targets computed in the graph are known.
 * When a rule cannot decide, the output stays as it is (unknown or as the file stated). */
#include <string.h>

#include "graph/graph_int.h"

/* NumPy broadcasting of all present inputs. */
int rf__broadcast(const rf_graph *g, const rf_layer *l, uint32_t n_in, rf__shp *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < n_in; i++) {
        rf__shp s;
        if (!rf__lin(g, l, i)) continue;
        if (!rf__get(g, l, i, &s)) return 0;
        if (s.rank > out->rank) {
            uint32_t sh = s.rank - out->rank;
            memmove(out->d + sh, out->d, out->rank * sizeof *out->d);
            for (uint32_t k = 0; k < sh; k++) out->d[k] = 1;
            out->rank = s.rank;
        }
        for (uint32_t k = 0; k < s.rank; k++) {
            int64_t *o = &out->d[out->rank - s.rank + k], v = s.d[k];
            if (*o == 1)
                *o = v;
            else if (v != 1 && v != *o)
                return 0;
        }
    }
    return 1;
}

/* Conv / pooling output spatial sizes (ONNX Conv, MaxPool: auto_pad, pads, strides, dilations,
 * ceil_mode). x: input [N, C, spatial...]; k: kernel sizes; c_out: channels of the output.
 * Returns 1 when inferred, 0 when the rule cannot decide, -1 when a size overflows int64. */
int rf__window(const rf_layer *l, const rf__shp *x, const int64_t *k, int64_t c_out, rf__shp *y)
{
    uint32_t nd = x->rank - 2;
    int64_t st[RF_GRAPH_MAX_RANK], di[RF_GRAPH_MAX_RANK], pads[2 * RF_GRAPH_MAX_RANK];
    int ns = rf__attr_ints(l, "strides", st, RF_GRAPH_MAX_RANK);
    int nd_ = rf__attr_ints(l, "dilations", di, RF_GRAPH_MAX_RANK);
    int np = rf__attr_ints(l, "pads", pads, 2 * RF_GRAPH_MAX_RANK);
    const rf_attr *ap = rf_layer_attr(l, "auto_pad");
    const char *autopad = ap && ap->type == RF_ATTR_STRING ? ap->s : "NOTSET";
    int ceil_mode = rf_layer_attr_int(l, "ceil_mode", 0) != 0;
    y->rank = x->rank;
    y->d[0] = x->d[0];
    y->d[1] = c_out;
    for (uint32_t i = 0; i < nd; i++) {
        int64_t s = ns > (int)i ? st[i] : 1, d = nd_ > (int)i ? di[i] : 1, in = x->d[2 + i];
        if (s <= 0 || d <= 0 || k[i] <= 0) return 0;
        if (strcmp(autopad, "SAME_UPPER") == 0 || strcmp(autopad, "SAME_LOWER") == 0) {
            y->d[2 + i] = rf__i64_div_ceil(in, s);
            continue;
        }
        int64_t pb = 0, pe = 0, ek, span;
        if (strcmp(autopad, "VALID") != 0 && np == 2 * (int)nd) {
            pb = pads[i];
            pe = pads[nd + i];
        }
        /* effective kernel (k-1)·d + 1; span = in + pads - effective kernel */
        if (!rf__i64_mul(k[i] - 1, d, &ek) || !rf__i64_add(ek, 1, &ek) ||
            !rf__i64_add(in, pb, &span) || !rf__i64_add(span, pe, &span) ||
            !rf__i64_sub(span, ek, &span))
            return -1;
        if (span < 0) return 0;
        int64_t q = ceil_mode ? rf__i64_div_ceil(span, s) : span / s;
        if (!rf__i64_add(q, 1, &y->d[2 + i])) return -1;
    }
    return 1;
}

/* ConvTranspose output spatial size of axis i: s·(in-1) + output_padding + (k-1)·d + 1 - pads;
 * 0 when it overflows int64. */
static int rf__convt_dim(int64_t s, int64_t in, int64_t opad, int64_t k, int64_t d, int64_t p,
                         int64_t *out)
{
    int64_t a, b;
    return rf__i64_sub(in, 1, &a) && rf__i64_mul(s, a, &a) && rf__i64_add(a, opad, &a) &&
           rf__i64_sub(k, 1, &b) && rf__i64_mul(b, d, &b) && rf__i64_add(a, b, &a) &&
           rf__i64_add(a, 1, &a) && rf__i64_sub(a, p, out);
}

rf_status rf__shape_conv(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, w, y;
    if (!rf__get(g, l, 0, &x) || !rf__get(g, l, 1, &w) || x.rank < 3 || w.rank != x.rank)
        return RF_OK;
    if (l->kind == RF_OP_CONV) {
        int r = rf__window(l, &x, w.d + 2, w.d[0], &y);
        if (r < 0) return rf__shape_overflow(ctx, l, "the output size (pads, strides, dilations)");
        return r ? rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)) : RF_OK;
    }
    /* ConvTranspose: out = s·(in-1) + output_padding + (k-1)·d + 1 - pad_begin - pad_end */
    int64_t st[RF_GRAPH_MAX_RANK], di[RF_GRAPH_MAX_RANK], op[RF_GRAPH_MAX_RANK];
    int64_t pads[2 * RF_GRAPH_MAX_RANK], os[RF_GRAPH_MAX_RANK];
    uint32_t nd = x.rank - 2;
    int ns = rf__attr_ints(l, "strides", st, RF_GRAPH_MAX_RANK);
    int ndl = rf__attr_ints(l, "dilations", di, RF_GRAPH_MAX_RANK);
    int nop = rf__attr_ints(l, "output_padding", op, RF_GRAPH_MAX_RANK);
    int np = rf__attr_ints(l, "pads", pads, 2 * RF_GRAPH_MAX_RANK);
    int nos = rf__attr_ints(l, "output_shape", os, RF_GRAPH_MAX_RANK);
    y.rank = x.rank;
    y.d[0] = x.d[0];
    if (!rf__i64_mul(w.d[1], rf_layer_attr_int(l, "group", 1), &y.d[1]))
        return rf__shape_overflow(ctx, l, "the output channels (group)");
    for (uint32_t i = 0; i < nd; i++) {
        if (nos == (int)nd) {
            y.d[2 + i] = os[i];
            continue;
        }
        int64_t s = ns > (int)i ? st[i] : 1, d = ndl > (int)i ? di[i] : 1, p = 0;
        if (np == 2 * (int)nd && !rf__i64_add(pads[i], pads[nd + i], &p))
            return rf__shape_overflow(ctx, l, "the sum of pads");
        if (!rf__convt_dim(s, x.d[2 + i], nop > (int)i ? op[i] : 0, w.d[2 + i], d, p, &y.d[2 + i]))
            return rf__shape_overflow(ctx, l, "the output size (strides, pads, dilations)");
    }
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

rf_status rf__shape_pool(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, y;
    int64_t k[RF_GRAPH_MAX_RANK];
    if (!rf__get(g, l, 0, &x) || x.rank < 3) return RF_OK;
    if (l->kind == RF_OP_GLOBAL_POOL) {
        y = x;
        for (uint32_t i = 2; i < y.rank; i++) y.d[i] = 1;
        return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
    }
    if (rf__attr_ints(l, "kernel_shape", k, RF_GRAPH_MAX_RANK) != (int)x.rank - 2) return RF_OK;
    int r = rf__window(l, &x, k, x.d[1], &y);
    if (r < 0) return rf__shape_overflow(ctx, l, "the output size (pads, strides, dilations)");
    return r ? rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)) : RF_OK;
}

rf_status rf__shape_gemm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp a, b, y;
    if (!rf__get(g, l, 0, &a) || !rf__get(g, l, 1, &b)) return RF_OK;
    if (l->kind == RF_OP_GEMM) {
        if (a.rank != 2 || b.rank != 2) return RF_OK;
        y.rank = 2;
        y.d[0] = a.d[rf_layer_attr_int(l, "transA", 0) ? 1 : 0];
        y.d[1] = b.d[rf_layer_attr_int(l, "transB", 0) ? 0 : 1];
        return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
    }
    if (!rf__matmul_shape(&a, &b, &y)) return RF_OK;
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

int rf__matmul_shape(const rf__shp *a_, const rf__shp *b_, rf__shp *y)
{
    /* MatMul: 1-D operands get a dim prepended/appended, batch dims broadcast */
    const rf__shp a = *a_, b = *b_;
    if (a.rank == 0 || b.rank == 0) return 0;
    int a1 = a.rank == 1, b1 = b.rank == 1;
    rf__shp ba = a, bb = b;
    ba.rank = a1 ? 0 : a.rank - 2;
    bb.rank = b1 ? 0 : b.rank - 2;
    uint32_t r = ba.rank > bb.rank ? ba.rank : bb.rank;
    if (r + 2 > RF_GRAPH_MAX_RANK) return 0;
    y->rank = r;
    for (uint32_t i = 0; i < r; i++) {
        int64_t da = i + ba.rank >= r ? ba.d[i + ba.rank - r] : 1;
        int64_t db = i + bb.rank >= r ? bb.d[i + bb.rank - r] : 1;
        if (da != db && da != 1 && db != 1) return 0;
        y->d[i] = da == 1 ? db : da;
    }
    if (!a1) y->d[y->rank++] = a.d[a.rank - 2];
    if (!b1) y->d[y->rank++] = b.d[b.rank - 1];
    return 1;
}

/* Elementwise with broadcasting: the NumPy broadcast of the inputs, the first input's type (Where:
 * the second's), integer values carried through (shape_data.c). */
rf_status rf__shape_broadcast(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__broadcast(g, l, l->n_inputs, &s)) return RF_OK;
    RF_TRY(rf__set(ctx, g, l, 0, &s, rf__dt(g, l, strcmp(l->op_type, "Where") == 0)));
    return rf__arith_values(ctx, g, l);
}

/* Output 0 as input 0: shape and type (activations, normalisations, softmax, rotary). */
rf_status rf__shape_same(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__get(g, l, 0, &s)) return RF_OK;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

/* No rule: the outputs keep what the file declares. */
rf_status rf__shape_none(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    (void)ctx, (void)g, (void)l;
    return RF_OK;
}

rf_status rf__infer_layer(rf_ctx *ctx, rf_graph *g, uint32_t li)
{
    const rf_layer *l = &g->layers[li];
    const rf__op_row *r = rf__op_of(l);
    return (r ? r->shape : rf__kind_shape(l->kind))(ctx, g, l);
}
