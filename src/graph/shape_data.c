/* shape_data.c — shape rules for the ops that move or describe data (Reshape, Flatten, Transpose,
 * Shape, Gather, Slice, Concat, Squeeze/Unsqueeze, Expand, Pad, Reduce*, Resize, ConstantOfShape,
 * Identity/Dropout/Cast), and integer value propagation for shape arithmetic (ONNX Operators.md).
 * An op whose rule cannot decide leaves its outputs unchanged. */
#include <string.h>

#include "graph/graph_int.h"

#define RF__MAXV RF_GRAPH_MAX_VALUES

static rf_status rf__put_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const int64_t *v,
                                uint32_t n)
{
    return l->n_outputs ? rf_graph_set_values(ctx, g, l->outputs[0], v, n) : RF_OK;
}

/* ---- integer arithmetic on known values: Add, Sub, Mul, Div, Min, Max, the comparisons
 * (Equal, Less, Greater, GreaterOrEqual, LessOrEqual: 1 or 0) with a scalar or an equal length,
 * and Where (condition, x, y) ---- */
rf_status rf__arith_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    const int64_t *a, *b, *c = NULL;
    const char *t = l->op_type;
    int where = strcmp(t, "Where") == 0;
    int na = rf__vals(g, l, 0, &a), nb = rf__vals(g, l, 1, &b);
    int nc = where ? rf__vals(g, l, 2, &c) : 1;
    if (l->n_inputs != (where ? 3u : 2u) || na < 1 || nb < 1 || nc < 1) return RF_OK;
    int n = na > nb ? na : nb;
    n = nc > n ? nc : n;
    if ((na != n && na != 1) || (nb != n && nb != 1) || (nc != n && nc != 1)) return RF_OK;
    int64_t out[RF__MAXV];
    for (int i = 0; i < n; i++) {
        int64_t x = a[na == 1 ? 0 : i], y = b[nb == 1 ? 0 : i];
        if (where) {
            out[i] = x ? y : c[nc == 1 ? 0 : i];
            continue;
        }
        if (!strcmp(t, "Add") && !__builtin_add_overflow(x, y, &out[i])) continue;
        if (!strcmp(t, "Sub") && !__builtin_sub_overflow(x, y, &out[i])) continue;
        if (!strcmp(t, "Mul") && !__builtin_mul_overflow(x, y, &out[i])) continue;
        if (!strcmp(t, "Div") && y != 0 && !(x == INT64_MIN && y == -1)) {
            out[i] = x / y;
            continue;
        }
        if (!strcmp(t, "Min") || !strcmp(t, "Max")) {
            out[i] = (t[1] == 'i') == (x < y) ? x : y;
            continue;
        }
        if (!strcmp(t, "Equal"))
            out[i] = x == y;
        else if (!strcmp(t, "Less"))
            out[i] = x < y;
        else if (!strcmp(t, "Greater"))
            out[i] = x > y;
        else if (!strcmp(t, "LessOrEqual"))
            out[i] = x <= y;
        else if (!strcmp(t, "GreaterOrEqual"))
            out[i] = x >= y;
        else
            return RF_OK;
    }
    return rf__put_values(ctx, g, l, out, (uint32_t)n);
}

/* Reshape: 0 copies the input dim (allowzero = 0), -1 takes what is left. */
static rf_status rf__reshape(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    const int64_t *v;
    int n = rf__vals(g, l, 1, &v);
    if (n < 0 || n > RF_GRAPH_MAX_RANK) return RF_OK;
    rf__shp y = {(uint32_t)n, {0}};
    int64_t total = 1, known = 1;
    int infer = -1;
    for (uint32_t i = 0; i < x->rank; i++)
        if (__builtin_mul_overflow(total, x->d[i], &total)) return RF_OK;
    for (int i = 0; i < n; i++) {
        y.d[i] = v[i];
        if (v[i] == 0 && !rf_layer_attr_int(l, "allowzero", 0)) {
            if ((uint32_t)i >= x->rank) return RF_OK;
            y.d[i] = x->d[i];
        }
        if (y.d[i] == -1) {
            if (infer >= 0) return RF_OK;
            infer = i;
            continue;
        }
        if (y.d[i] < 0 || __builtin_mul_overflow(known, y.d[i], &known)) return RF_OK;
    }
    if (infer >= 0) {
        if (known == 0 || total % known) return RF_OK;
        y.d[infer] = total / known;
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    const int64_t *xv;
    int nx = rf__vals(g, l, 0, &xv); /* a shape vector reshaped: the same values */
    return nx >= 0 && (int64_t)nx == total ? rf__put_values(ctx, g, l, xv, (uint32_t)nx) : RF_OK;
}

static rf_status rf__gather(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    rf__shp idx, y;
    if (!rf__get(g, l, 1, &idx) || x->rank == 0) return RF_OK;
    int64_t ax = rf__axis(rf_layer_attr_int(l, "axis", 0), x->rank);
    if (ax < 0 || ax >= (int64_t)x->rank || x->rank - 1 + idx.rank > RF_GRAPH_MAX_RANK)
        return RF_OK;
    y.rank = 0;
    for (int64_t i = 0; i < ax; i++) y.d[y.rank++] = x->d[i];
    for (uint32_t i = 0; i < idx.rank; i++) y.d[y.rank++] = idx.d[i];
    for (uint32_t i = (uint32_t)ax + 1; i < x->rank; i++) y.d[y.rank++] = x->d[i];
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    const int64_t *dv, *iv;
    int nd = rf__vals(g, l, 0, &dv), ni = rf__vals(g, l, 1, &iv);
    if (x->rank != 1 || nd < 1 || ni < 1) return RF_OK;
    int64_t out[RF__MAXV];
    for (int i = 0; i < ni; i++) {
        int64_t k = iv[i] < 0 ? iv[i] + nd : iv[i];
        if (k < 0 || k >= nd) return RF_OK;
        out[i] = dv[k];
    }
    return rf__put_values(ctx, g, l, out, (uint32_t)ni);
}

/* Slice (opset >= 10: starts, ends, axes, steps as inputs; earlier: attributes). */
/* The values of a small tensor x (all known, row-major) moved into y: output index (i_0..i_r-1)
 * reads input axis perm[k] (identity when perm is NULL) at first[k] + i_k * stride[k]. Used by
 * Slice (any rank, negative steps) and Transpose so that constants such as Pad's pads, built by
 * reshaping and reversing a vector, keep their values. Nothing when x's values are not known. */
static rf_status rf__permute_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x,
                                    const rf__shp *y, const int64_t *first, const int64_t *stride,
                                    const int64_t *perm)
{
    const int64_t *xv;
    int nx = rf__vals(g, l, 0, &xv);
    int64_t total = 1, ny = 1, xs[RF_GRAPH_MAX_RANK];
    for (uint32_t a = x->rank; a-- > 0;) {
        xs[a] = total; /* row-major strides of x */
        if (x->d[a] < 0 || x->d[a] > RF__MAXV || (total *= x->d[a]) > RF__MAXV) return RF_OK;
    }
    for (uint32_t a = 0; a < y->rank; a++)
        if (y->d[a] < 0 || y->d[a] > RF__MAXV || (ny *= y->d[a]) > RF__MAXV) return RF_OK;
    if (nx < 0 || nx != total || y->rank != x->rank) return RF_OK;
    int64_t out[RF__MAXV];
    for (int64_t o = 0; o < ny; o++) {
        int64_t rem = o, at = 0;
        for (uint32_t k = y->rank; k-- > 0;) {
            int64_t i = rem % y->d[k], src = perm ? perm[k] : (int64_t)k;
            rem /= y->d[k];
            int64_t pos = first[k] + i * stride[k];
            if (pos < 0 || pos >= x->d[src]) return RF_OK;
            at += pos * xs[src];
        }
        out[o] = xv[at];
    }
    return rf__put_values(ctx, g, l, out, (uint32_t)ny);
}

static rf_status rf__slice(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t st[RF__MAXV], en[RF__MAXV], ax[RF__MAXV], sp[RF__MAXV];
    const int64_t *v;
    int n = rf__attr_ints(l, "starts", st, RF__MAXV), m, k = -1, s = -1;
    if (n >= 0) {
        m = rf__attr_ints(l, "ends", en, RF__MAXV);
        k = rf__attr_ints(l, "axes", ax, RF__MAXV);
    } else {
        if ((n = rf__vals(g, l, 1, &v)) < 0) return RF_OK;
        memcpy(st, v, (size_t)n * sizeof *v);
        if ((m = rf__vals(g, l, 2, &v)) >= 0) memcpy(en, v, (size_t)m * sizeof *v);
        if (rf__lin(g, l, 3) && (k = rf__vals(g, l, 3, &v)) >= 0) memcpy(ax, v, (size_t)k * 8);
        if (rf__lin(g, l, 3) && k < 0) return RF_OK;
        if (rf__lin(g, l, 4) && (s = rf__vals(g, l, 4, &v)) >= 0) memcpy(sp, v, (size_t)s * 8);
        if (rf__lin(g, l, 4) && s < 0) return RF_OK;
    }
    if (m != n || (k >= 0 && k != n) || (s >= 0 && s != n)) return RF_OK;
    rf__shp y = *x;
    int64_t first[RF_GRAPH_MAX_RANK], stride[RF_GRAPH_MAX_RANK]; /* per axis, for the values */
    for (uint32_t a = 0; a < x->rank; a++) first[a] = 0, stride[a] = 1;
    for (int i = 0; i < n; i++) {
        int64_t a = k >= 0 ? rf__axis(ax[i], x->rank) : i, step = s >= 0 ? sp[i] : 1;
        if (a < 0 || a >= (int64_t)x->rank || step == 0) return RF_OK;
        int64_t dim = x->d[a], b = st[i], e = en[i];
        b = b < 0 ? b + dim : b;
        e = e < 0 ? e + dim : e;
        /* count = ceil(|e - b| / |step|), written as (n-1)/|step| + 1 so that no term passes
         * int64 (steps of INT64_MAX or INT64_MIN, dims near 2^63). */
        if (step > 0) {
            b = b < 0 ? 0 : b > dim ? dim : b;
            e = e < 0 ? 0 : e > dim ? dim : e;
            y.d[a] = e > b ? (e - b - 1) / step + 1 : 0;
        } else {
            b = b < 0 ? -1 : b > dim - 1 ? dim - 1 : b;
            e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
            int64_t span = b - e; /* both in [-1, dim-1]: at most dim */
            y.d[a] = span <= 0 ? 0 : step == INT64_MIN ? 1 : (span - 1) / -step + 1;
        }
        first[a] = b, stride[a] = step;
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    return rf__permute_values(ctx, g, l, x, &y, first, stride, NULL);
}

static rf_status rf__concat(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    rf__shp y = *x, s;
    int64_t ax = rf__axis(rf_layer_attr_int(l, "axis", 0), x->rank);
    if (ax < 0 || ax >= (int64_t)x->rank) return RF_OK;
    int64_t vals[RF__MAXV];
    int nv = 0, vok = 1;
    y.d[ax] = 0;
    for (uint32_t i = 0; i < l->n_inputs; i++) {
        const int64_t *v;
        if (!rf__get(g, l, i, &s) || s.rank != x->rank) return RF_OK;
        if (!rf__i64_add(y.d[ax], s.d[ax], &y.d[ax]))
            return rf__shape_overflow(ctx, l, "the sum of the input sizes along the axis");
        int n = rf__vals(g, l, i, &v);
        if (n < 0 || nv + n > RF__MAXV)
            vok = 0;
        else
            memcpy(vals + nv, v, (size_t)n * sizeof *v), nv += n;
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    return vok && x->rank == 1 ? rf__put_values(ctx, g, l, vals, (uint32_t)nv) : RF_OK;
}

/* Axes of Squeeze/Unsqueeze/Reduce*: attribute (older opsets) or input 1; n = -1 when absent. */
static int rf__axes(const rf_graph *g, const rf_layer *l, int64_t *ax)
{
    int n = rf__attr_ints(l, "axes", ax, RF_GRAPH_MAX_RANK);
    const int64_t *v;
    if (n < 0 && rf__lin(g, l, 1)) {
        n = rf__vals(g, l, 1, &v);
        if (n < 0 || n > RF_GRAPH_MAX_RANK) return -2;
        memcpy(ax, v, (size_t)n * sizeof *v);
    }
    return n;
}

static rf_status rf__squeeze(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x, int un)
{
    int64_t ax[RF_GRAPH_MAX_RANK];
    int n = rf__axes(g, l, ax);
    rf__shp y = {0, {0}};
    if (n == -2 || (un && n < 0)) return RF_OK;
    uint32_t out_rank = un ? x->rank + (uint32_t)n : x->rank;
    if (out_rank > RF_GRAPH_MAX_RANK) return RF_OK;
    int mark[RF_GRAPH_MAX_RANK] = {0};
    for (int i = 0; i < n; i++) {
        int64_t a = rf__axis(ax[i], out_rank);
        if (a < 0 || a >= (int64_t)out_rank) return RF_OK;
        mark[a] = 1;
    }
    for (uint32_t i = 0, j = 0; i < out_rank; i++) {
        if (un)
            y.d[y.rank++] = mark[i] ? 1 : x->d[j++];
        else if (!(n < 0 ? x->d[i] == 1 : mark[i]))
            y.d[y.rank++] = x->d[i];
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    const int64_t *v;
    int nv = rf__vals(g, l, 0, &v);
    return nv >= 0 ? rf__put_values(ctx, g, l, v, (uint32_t)nv) : RF_OK;
}

static rf_status rf__reduce(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t ax[RF_GRAPH_MAX_RANK];
    int n = rf__axes(g, l, ax), keep = rf_layer_attr_int(l, "keepdims", 1) != 0;
    int mark[RF_GRAPH_MAX_RANK] = {0};
    if (n == -2) return RF_OK;
    for (int i = 0; i < n; i++) {
        int64_t a = rf__axis(ax[i], x->rank);
        if (a < 0 || a >= (int64_t)x->rank) return RF_OK;
        mark[a] = 1;
    }
    rf__shp y = {0, {0}};
    for (uint32_t i = 0; i < x->rank; i++) {
        int red = n <= 0 ? 1 : mark[i];
        if (!red)
            y.d[y.rank++] = x->d[i];
        else if (keep)
            y.d[y.rank++] = 1;
    }
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

static rf_status rf__transpose(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t p[RF_GRAPH_MAX_RANK], perm[RF_GRAPH_MAX_RANK];
    int n = rf__attr_ints(l, "perm", p, RF_GRAPH_MAX_RANK);
    rf__shp y = *x;
    for (uint32_t i = 0; i < x->rank; i++) {
        int64_t k = n < 0 ? (int64_t)(x->rank - 1 - i) : p[i];
        if ((n >= 0 && n != (int)x->rank) || k < 0 || k >= (int64_t)x->rank) return RF_OK;
        y.d[i] = x->d[k];
        perm[i] = k;
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    int64_t first[RF_GRAPH_MAX_RANK] = {0}, stride[RF_GRAPH_MAX_RANK];
    for (uint32_t i = 0; i < x->rank; i++) stride[i] = 1;
    return rf__permute_values(ctx, g, l, x, &y, first, stride, perm); /* a small constant */
}

/* Expand: broadcast of the input with the shape in input 1; Resize: sizes (input 3) or
 * scales (input 2, floor(in·scale)) — only sizes are kept as integers, so scales need a file
 * shape; ConstantOfShape: the values of input 0. */
static rf_status rf__from_values(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x,
                                 uint32_t in)
{
    const int64_t *v;
    int n = rf__vals(g, l, in, &v);
    if (n < 0 || n > RF_GRAPH_MAX_RANK) return RF_OK;
    rf__shp y = {(uint32_t)n, {0}};
    memcpy(y.d, v, (size_t)n * sizeof *v);
    if (x && strcmp(l->op_type, "Expand") == 0) { /* broadcast x with v */
        uint32_t r = x->rank > y.rank ? x->rank : y.rank;
        rf__shp o = {r, {0}};
        for (uint32_t i = 0; i < r; i++) {
            int64_t a = i + x->rank >= r ? x->d[i + x->rank - r] : 1;
            int64_t b = i + y.rank >= r ? y.d[i + y.rank - r] : 1;
            o.d[i] = a == 1 ? b : a;
        }
        y = o;
    }
    rf_dtype dt = x ? rf__dt(g, l, 0) : RF_DTYPE_F32;
    const rf_attr *fill = x ? NULL : rf_layer_attr(l, "rf_fill_int"); /* ConstantOfShape */
    if (fill) dt = RF_DTYPE_I64;
    RF_TRY(rf__set(ctx, g, l, 0, &y, dt));
    if (!fill || fill->type != RF_ATTR_INT || y.rank > 1 || (y.rank && y.d[0] > RF__MAXV))
        return RF_OK;
    int64_t out[RF__MAXV];
    uint32_t cnt = y.rank ? (uint32_t)y.d[0] : 1;
    for (uint32_t i = 0; i < cnt; i++) out[i] = fill->i;
    return rf__put_values(ctx, g, l, out, cnt);
}

/* Range (start, limit, delta scalars): max(ceil((limit - start) / delta), 0) elements, and the
 * values when they are few. */
static rf_status rf__range(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    const int64_t *s, *e, *d;
    if (rf__vals(g, l, 0, &s) != 1 || rf__vals(g, l, 1, &e) != 1 || rf__vals(g, l, 2, &d) != 1 ||
        d[0] == 0)
        return RF_OK;
    int64_t span, n;
    if (!rf__i64_sub(e[0], s[0], &span)) return rf__shape_overflow(ctx, l, "limit - start");
    n = d[0] > 0 ? rf__i64_div_ceil(span, d[0]) : rf__i64_div_ceil(-span, -d[0]);
    if (d[0] == INT64_MIN) return RF_OK;
    rf__shp y = {1, {n > 0 ? n : 0}};
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    if (y.d[0] > RF__MAXV) return RF_OK;
    int64_t out[RF__MAXV];
    for (int64_t i = 0; i < y.d[0]; i++) out[i] = s[0] + i * d[0]; /* |i·d| <= |span| */
    return rf__put_values(ctx, g, l, out, (uint32_t)y.d[0]);
}

static rf_status rf__pad(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t p[2 * RF_GRAPH_MAX_RANK];
    const int64_t *v;
    int n = rf__attr_ints(l, "pads", p, 2 * RF_GRAPH_MAX_RANK);
    if (n < 0 && (n = rf__vals(g, l, 1, &v)) >= 0 && n <= 2 * RF_GRAPH_MAX_RANK)
        memcpy(p, v, (size_t)n * sizeof *v);
    if (n != 2 * (int)x->rank) return RF_OK;
    rf__shp y = *x;
    for (uint32_t i = 0; i < x->rank; i++)
        if (!rf__i64_add(y.d[i], p[i], &y.d[i]) || !rf__i64_add(y.d[i], p[x->rank + i], &y.d[i]))
            return rf__shape_overflow(ctx, l, "the padded size");
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

static rf_status rf__flatten(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t ax = rf__axis(rf_layer_attr_int(l, "axis", 1), x->rank), a = 1, b = 1;
    if (ax < 0 || ax > (int64_t)x->rank) return RF_OK;
    for (uint32_t i = 0; i < x->rank; i++)
        if (__builtin_mul_overflow((int64_t)i < ax ? a : b, x->d[i], (int64_t)i < ax ? &a : &b))
            return RF_OK;
    rf__shp y = {2, {a, b}};
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

static rf_status rf__shape_op(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t s = rf__axis(rf_layer_attr_int(l, "start", 0), x->rank);
    int64_t e = rf__axis(rf_layer_attr_int(l, "end", (int64_t)x->rank), x->rank);
    s = s < 0 ? 0 : s > (int64_t)x->rank ? (int64_t)x->rank : s;
    e = e < s ? s : e > (int64_t)x->rank ? (int64_t)x->rank : e;
    rf__shp y = {1, {e - s}};
    RF_TRY(rf__set(ctx, g, l, 0, &y, RF_DTYPE_I64));
    return rf__put_values(ctx, g, l, x->d + s, (uint32_t)(e - s));
}

/* Split: equal parts over `axis`, or sizes from the `split` attribute / input 1. */
static rf_status rf__split(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    int64_t ax = rf__axis(rf_layer_attr_int(l, "axis", 0), x->rank), sz[RF__MAXV];
    const int64_t *v;
    if (ax < 0 || ax >= (int64_t)x->rank || l->n_outputs == 0) return RF_OK;
    int n = rf__attr_ints(l, "split", sz, RF__MAXV);
    if (n < 0 && (n = rf__vals(g, l, 1, &v)) >= 0) memcpy(sz, v, (size_t)n * sizeof *v);
    const int64_t *xv;
    int nx = rf__vals(g, l, 0, &xv), at = 0; /* a split of a known vector: its parts' values */
    for (uint32_t o = 0; o < l->n_outputs; o++) {
        rf__shp y = *x;
        if (n >= 0 && (uint32_t)n != l->n_outputs) return RF_OK;
        y.d[ax] = n >= 0 ? sz[o] : rf__i64_div_ceil(x->d[ax], l->n_outputs);
        RF_TRY(rf__set(ctx, g, l, o, &y, rf__dt(g, l, 0)));
        if (x->rank == 1 && nx == x->d[0] && y.d[0] >= 0 && y.d[0] <= nx - at) {
            RF_TRY(rf_graph_set_values(ctx, g, l->outputs[o], xv + at, (uint32_t)y.d[0]));
            at += (int)y.d[0];
        }
    }
    return RF_OK;
}

static rf_status rf__copy(rf_ctx *ctx, rf_graph *g, const rf_layer *l, const rf__shp *x)
{
    rf_dtype dt = rf__dt(g, l, 0);
    if (strcmp(l->op_type, "Cast") == 0) {
        rf_dtype to;
        if (!rf_dtype_from_onnx((int32_t)rf_layer_attr_int(l, "to", 0), &to)) to = RF_DTYPE_UNKNOWN;
        dt = to;
    }
    RF_TRY(rf__set(ctx, g, l, 0, x, dt));
    const int64_t *v;
    int n = rf__vals(g, l, 0, &v);
    return n >= 0 ? rf__put_values(ctx, g, l, v, (uint32_t)n) : RF_OK;
}

/* ---- the rules as the registry names them (op_table.h) ----------------------------------- */

rf_status rf__shape_const_of_shape(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__from_values(ctx, g, l, NULL, 0);
}

rf_status rf__shape_range(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__range(ctx, g, l);
}

/* Resize (X, roi, scales, sizes; opset 10: X, scales) and Upsample (X, scales): the sizes when
 * given, else floor(in · scale) from known float scales (a Constant's). */
rf_status rf__shape_resize(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    if (!rf__get(g, l, 0, &x)) return RF_OK;
    const rf_tensor *sizes = rf__lin(g, l, 3);
    if (sizes && !(sizes->values && sizes->n_values == 0))
        return rf__from_values(ctx, g, l, NULL, 3);
    const rf_tensor *sc = rf__lin(g, l, l->n_inputs >= 3 ? 2 : 1);
    double f[RF_GRAPH_MAX_RANK];
    uint32_t nf = 0;
    if (sc && sc->fvalues)
        for (nf = 0; nf < sc->n_fvalues && nf < RF_GRAPH_MAX_RANK; nf++) f[nf] = sc->fvalues[nf];
    else if (!sc) { /* Upsample opset 7-8: the scales attribute */
        const rf_attr *a = rf_layer_attr(l, "scales");
        if (a && a->type == RF_ATTR_FLOATS && a->n <= RF_GRAPH_MAX_RANK)
            for (nf = 0; nf < a->n; nf++) f[nf] = a->floats[nf];
    }
    if (nf != x.rank || nf == 0) return RF_OK;
    rf__shp y = x;
    for (uint32_t i = 0; i < x.rank; i++) {
        double d = (double)x.d[i] * f[i];
        if (!(d >= 0 && d < 9.2e18)) return rf__shape_overflow(ctx, l, "the resized size");
        y.d[i] = (int64_t)d; /* floor: d >= 0 */
    }
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

rf_status rf__shape_size(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    if (!rf__get(g, l, 0, &x)) return RF_OK;
    int64_t n = 1;
    for (uint32_t i = 0; i < x.rank; i++)
        if (!rf__i64_mul(n, x.d[i], &n)) return RF_OK;
    rf__shp y = {0, {0}};
    RF_TRY(rf__set(ctx, g, l, 0, &y, RF_DTYPE_I64));
    return rf__put_values(ctx, g, l, &n, 1);
}

/* The rules of one data input x (input 0, its shape known). */
#define RF__SHAPE_OF_X(rule, call)                                                                 \
    rf_status rf__shape_##rule(rf_ctx *ctx, rf_graph *g, const rf_layer *l)                        \
    {                                                                                              \
        rf__shp x;                                                                                 \
        if (!rf__get(g, l, 0, &x)) return RF_OK;                                                   \
        return call;                                                                               \
    }
RF__SHAPE_OF_X(reduce, rf__reduce(ctx, g, l, &x))
RF__SHAPE_OF_X(gather, rf__gather(ctx, g, l, &x))
RF__SHAPE_OF_X(reshape, rf__reshape(ctx, g, l, &x))
RF__SHAPE_OF_X(flatten, rf__flatten(ctx, g, l, &x))
RF__SHAPE_OF_X(transpose, rf__transpose(ctx, g, l, &x))
RF__SHAPE_OF_X(shape_of, rf__shape_op(ctx, g, l, &x))
RF__SHAPE_OF_X(slice, rf__slice(ctx, g, l, &x))
RF__SHAPE_OF_X(concat, rf__concat(ctx, g, l, &x))
RF__SHAPE_OF_X(squeeze, rf__squeeze(ctx, g, l, &x, 0))
RF__SHAPE_OF_X(unsqueeze, rf__squeeze(ctx, g, l, &x, 1))
RF__SHAPE_OF_X(expand, rf__from_values(ctx, g, l, &x, 1))
RF__SHAPE_OF_X(pad, rf__pad(ctx, g, l, &x))
RF__SHAPE_OF_X(split, rf__split(ctx, g, l, &x))
RF__SHAPE_OF_X(copy, rf__copy(ctx, g, l, &x))
#undef RF__SHAPE_OF_X
