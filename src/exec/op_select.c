/* op_select.c — the executor's selection and scan ops in plain C (neither oneDNN nor OpenBLAS
 * has them): TopK (a heap of the K best per slice, then ordered; ties to the lower index, as ONNX
 * asks), ArgMax and ArgMin (the first or the last best), CumSum (exclusive, reverse; the inner loop
 * over contiguous elements vectorises), Hardmax (1 at the first maximum of each slice), Trilu (the
 * upper or lower triangle of the last two axes, the rest zeroed), the p-norms LpNormalization and
 * GlobalLpPool (p 1 or 2), ReverseSequence and BitShift (on integers held as floats). Gathers,
 * scatters and OneHot are in op_index.c. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

/* Does (va, ia) rank before (vb, ib)? The larger (or smaller) value first, on a tie the lower
 * index. */
static int ranks_before(float va, int64_t ia, float vb, int64_t ib, int largest)
{
    if (va != vb) return largest ? va > vb : va < vb;
    return ia < ib;
}

/* Sift entry i down the heap of n entries (values v, indices x, stride s) whose root is the entry
 * that ranks last. */
static void sift_down(float *v, float *x, int64_t s, int64_t i, int64_t n, int largest)
{
    for (;;) {
        int64_t c = 2 * i + 1, w = i;
        if (c < n &&
            ranks_before(v[w * s], (int64_t)x[w * s], v[c * s], (int64_t)x[c * s], largest))
            w = c;
        if (c + 1 < n && ranks_before(v[w * s], (int64_t)x[w * s], v[(c + 1) * s],
                                      (int64_t)x[(c + 1) * s], largest))
            w = c + 1;
        if (w == i) return;
        float tv = v[i * s], tx = x[i * s];
        v[i * s] = v[w * s], x[i * s] = x[w * s];
        v[w * s] = tv, x[w * s] = tx;
        i = w;
    }
}

static void topk(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *vals = s->ptr[1], *idx = s->ptr[2];
    int64_t n = c->axis_n, k = c->n_idx, in = c->inner;
    int largest = c->op;
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t i = 0; i < in; i++) {
            const float *xs = x + o * n * in + i;
            float *v = vals + o * k * in + i, *ix = idx + o * k * in + i;
            /* the first K make the heap; each later element replaces the root when it ranks
             * before it */
            for (int64_t j = 0; j < k; j++) v[j * in] = xs[j * in], ix[j * in] = (float)j;
            for (int64_t j = k / 2; j-- > 0;) sift_down(v, ix, in, j, k, largest);
            for (int64_t j = k; j < n; j++)
                if (k && ranks_before(xs[j * in], j, v[0], (int64_t)ix[0], largest)) {
                    v[0] = xs[j * in], ix[0] = (float)j;
                    sift_down(v, ix, in, 0, k, largest);
                }
            /* order: the root (the last ranked) goes to the end, K - 1 times */
            for (int64_t m = k - 1; m > 0; m--) {
                float tv = v[0], tx = ix[0];
                v[0] = v[m * in], ix[0] = ix[m * in];
                v[m * in] = tv, ix[m * in] = tx;
                sift_down(v, ix, in, 0, m, largest);
            }
        }
}

/* Every slice along the axis (c.outer x c.inner of them, c.axis_n elements at stride c.inner in
 * x; yn at the same stride in y: axis_n, or 1 for a reduction) through fn. */
typedef void (*slice_fn)(const float *x, float *y, int64_t n, int64_t stride, int op);

static void slices(const rf__xstep *s, int64_t yn, slice_fn fn)
{
    const rf__xkernel_args *c = &s->c;
    int64_t n = c->axis_n, in = c->inner;
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t i = 0; i < in; i++)
            fn(s->ptr[0] + o * n * in + i, s->ptr[s->n_in] + o * yn * in + i, n, in, c->op);
}

/* The index of the best of n values at stride `in`: the largest (mx) or smallest, the first of
 * equals or the last (last). */
static int64_t best_at(const float *xs, int64_t n, int64_t in, int mx, int last)
{
    float best = xs[0];
    int64_t at = 0;
    for (int64_t j = 1; j < n; j++) {
        float v = xs[j * in];
        int better = mx ? v > best : v < best;
        if (better || (last && v == best)) best = v, at = j;
    }
    return at;
}

/* op bit 0: max (else min); bit 1: the last best index (select_last_index) */
static void argbest_slice(const float *xs, float *y, int64_t n, int64_t in, int op)
{
    *y = (float)best_at(xs, n, in, op & 1, (op >> 1) & 1);
}

static void argbest(const rf__xstep *s)
{
    slices(s, 1, argbest_slice);
}

/* Hardmax: 1 where the first maximum of the slice is, 0 elsewhere. */
static void hardmax_slice(const float *xs, float *ys, int64_t n, int64_t in, int op)
{
    (void)op;
    int64_t at = best_at(xs, n, in, 1, 0);
    for (int64_t j = 0; j < n; j++) ys[j * in] = j == at ? 1.0f : 0.0f;
}

static void hardmax(const rf__xstep *s)
{
    slices(s, s->c.axis_n, hardmax_slice);
}

/* Trilu over matrices of c.axis_n rows and c.inner columns (c.outer of them): keep element (i, j)
 * when j - i >= k (upper, c.op = 1) or j - i <= k (lower); k = c.off. */
static void trilu(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *y = s->ptr[s->n_in];
    int64_t rows = c->axis_n, cols = c->inner, k = c->off;
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t i = 0; i < rows; i++) {
            const float *xr = x + (o * rows + i) * cols;
            float *yr = y + (o * rows + i) * cols;
            for (int64_t j = 0; j < cols; j++) {
                int keep = c->op ? j - i >= k : j - i <= k;
                yr[j] = keep ? xr[j] : 0.0f;
            }
        }
}

/* The p-norm (p 1 or 2) of n values at stride `in`. */
static double pnorm(const float *xs, int64_t n, int64_t in, int p)
{
    double acc = 0;
    for (int64_t j = 0; j < n; j++)
        acc += p == 1 ? fabs(xs[j * in]) : (double)xs[j * in] * xs[j * in];
    return p == 1 ? acc : sqrt(acc);
}

/* LpNormalization (op = p) along the axis: each slice divided by its p-norm (0 stays 0). */
static void lp_slice(const float *xs, float *ys, int64_t n, int64_t in, int op)
{
    double norm = pnorm(xs, n, in, op);
    float inv = norm > 0 ? (float)(1.0 / norm) : 0.0f;
    for (int64_t j = 0; j < n; j++) ys[j * in] = xs[j * in] * inv;
}

static void lp_norm(const rf__xstep *s)
{
    slices(s, s->c.axis_n, lp_slice);
}

/* GlobalLpPool: each [N, C] row of spatial values (the slice, contiguous) to its p-norm. */
static void global_lp_slice(const float *xs, float *y, int64_t n, int64_t in, int op)
{
    *y = (float)pnorm(xs, n, in, op);
}

static void global_lp(const rf__xstep *s)
{
    slices(s, 1, global_lp_slice);
}

/* ReverseSequence: x as [outer = T or B][mid = B or T][inner]; c.op = 1 when time is the first
 * axis. The first len(b) steps of each batch row reversed (len clamped into 0..T), the rest
 * copied. */
static void reverse_seq(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *lens = s->ptr[1];
    float *y = s->ptr[2];
    int64_t T = c->op ? c->outer : c->axis_n, B = c->op ? c->axis_n : c->outer, in = c->inner;
    for (int64_t b = 0; b < B; b++) {
        float lf = lens[b]; /* clamped as a float: no conversion out of range, NaN to 0 */
        int64_t len = !(lf > 0) ? 0 : lf >= (float)T ? T : (int64_t)lf;
        for (int64_t t = 0; t < T; t++) {
            int64_t from = t < len ? len - 1 - t : t;
            int64_t yo = c->op ? (t * B + b) * in : (b * T + t) * in;
            int64_t xo = c->op ? (from * B + b) * in : (b * T + from) * in;
            memcpy(y + yo, x + xo, (size_t)in * sizeof *y);
        }
    }
}

/* BitShift on unsigned integers held as floats: x · 2^y (left, c.op = 1) or floor(x / 2^y),
 * broadcast through the strides c.st[0] and c.st[1] over the output's dims. */
static void bit_shift(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *a = s->ptr[0], *b = s->ptr[1];
    float *y = s->ptr[2];
    uint32_t R = c->rank;
    int64_t pos[RF_GRAPH_MAX_RANK] = {0}, n = 1;
    for (uint32_t i = 0; i < R; i++) n *= c->dims[i];
    for (int64_t e = 0; e < n; e++) {
        int64_t ia = 0, ib = 0;
        for (uint32_t j = 0; j < R; j++) ia += pos[j] * c->st[0][j], ib += pos[j] * c->st[1][j];
        float sh = !(b[ib] > 0) ? 0 : b[ib] > 63 ? 63 : b[ib]; /* NaN to 0 */
        float v = ldexpf(a[ia], c->op ? (int)sh : -(int)sh);
        y[e] = c->op ? v : floorf(v);
        for (int j = (int)R - 1; j >= 0 && ++pos[j] == c->dims[j]; j--) pos[j] = 0;
    }
}

static void cumsum(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *y = s->ptr[s->n_in];
    int64_t n = c->axis_n, in = c->inner;
    int excl = c->op & 1, rev = (c->op >> 1) & 1;
    for (int64_t o = 0; o < c->outer; o++) {
        const float *xb = x + o * n * in;
        float *yb = y + o * n * in;
        for (int64_t step = 0; step < n; step++) {
            int64_t a = rev ? n - 1 - step : step, prev = rev ? a + 1 : a - 1;
            float *yr = yb + a * in;
            const float *xr = xb + a * in;
            if (step == 0) {
                for (int64_t i = 0; i < in; i++) yr[i] = excl ? 0.0f : xr[i];
                continue;
            }
            const float *yp = yb + prev * in, *add = excl ? xb + prev * in : xr;
            for (int64_t i = 0; i < in; i++) yr[i] = yp[i] + add[i];
        }
    }
}

static rf_status topk_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    int64_t axis = rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if (l->n_outputs < 2 || axis < 0 || axis >= (int64_t)x->rank ||
        p->t[l->outputs[0]].rank != x->rank) {
        rf__xlayer_unmeasured(p, li, "TopK with an axis or outputs it cannot read");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    rf__xaround_axis(x, axis, &c);
    c.n_idx = p->t[l->outputs[0]].dims[axis];
    c.op = rf_layer_attr_int(l, "largest", 1) != 0;
    if (c.n_idx > c.axis_n || c.n_idx < 0) {
        rf__xlayer_unmeasured(p, li, "TopK with K past the axis");
        return RF_OK;
    }
    /* K from a graph input is known only at run time: both outputs must be x with the axis
     * cut to the declared K, or the kernel would write past the smaller one */
    int64_t want[RF_GRAPH_MAX_RANK];
    memcpy(want, x->dims, sizeof want);
    want[axis] = c.n_idx;
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, want) ||
        !rf__xshape_is(p, li, l->outputs[1], x->rank, want))
        return RF_OK;
    uint32_t io[3] = {xu, l->outputs[0], l->outputs[1]};
    rf__xlayer_measured(p, li, "c:topk");
    return rf__xstep_add_kernel(p, li, topk, io, 3, 1, &c);
}

static rf_status cumsum_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    const rf_tensor *a =
        l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR ? &p->g->tensors[l->inputs[1]] : NULL;
    if (!a || !a->values || a->n_values != 1 || !x->rank) {
        rf__xlayer_unmeasured(p, li, "CumSum whose axis is not a constant");
        return RF_OK;
    }
    int64_t axis = a->values[0] < 0 ? a->values[0] + (int64_t)x->rank : a->values[0];
    if (axis < 0 || axis >= (int64_t)x->rank) {
        rf__xlayer_unmeasured(p, li, "CumSum axis out of range");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    rf__xaround_axis(x, axis, &c);
    int excl = rf_layer_attr_int(l, "exclusive", 0) != 0;
    int rev = rf_layer_attr_int(l, "reverse", 0) != 0;
    c.op = excl | (rev << 1);
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:cumsum");
    return rf__xstep_add_kernel(p, li, cumsum, io, 2, 1, &c);
}

static rf_status argbest_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    int64_t axis = rf_layer_attr_int(l, "axis", 0);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if (axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0) {
        rf__xlayer_unmeasured(p, li, "%s over an axis out of range or empty", l->op_type);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    rf__xaround_axis(x, axis, &c);
    int mx = strcmp(l->op_type, "ArgMax") == 0;
    int last = rf_layer_attr_int(l, "select_last_index", 0) != 0;
    c.op = mx | (last << 1);
    int64_t want[RF_GRAPH_MAX_RANK];
    uint32_t wr = 0;
    int keep = rf_layer_attr_int(l, "keepdims", 1) != 0;
    for (uint32_t i = 0; i < x->rank; i++)
        if ((int64_t)i != axis || keep) want[wr++] = (int64_t)i == axis ? 1 : x->dims[i];
    if (!rf__xshape_is(p, li, l->outputs[0], wr, want)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:argmax");
    return rf__xstep_add_kernel(p, li, argbest, io, 2, 1, &c);
}

static rf_status hardmax_trilu_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    if (!strcmp(l->op_type, "Hardmax")) {
        int64_t axis = rf_layer_attr_int(l, "axis", -1);
        axis = axis < 0 ? axis + (int64_t)x->rank : axis;
        if (axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0 ||
            (p->g->opset && p->g->opset < 13)) {
            rf__xlayer_unmeasured(p, li,
                                  "Hardmax over an axis out of range, or before opset 13 (2-D)");
            return RF_OK;
        }
        rf__xaround_axis(x, axis, &c);
        if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
        uint32_t io[2] = {xu, l->outputs[0]};
        rf__xlayer_measured(p, li, "c:hardmax");
        return rf__xstep_add_kernel(p, li, hardmax, io, 2, 1, &c);
    }
    const rf_tensor *kt =
        l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR ? &p->g->tensors[l->inputs[1]] : NULL;
    if (x->rank < 2 || (kt && (!kt->values || kt->n_values != 1))) {
        rf__xlayer_unmeasured(p, li, "Trilu of rank < 2 or with k known only at run time");
        return RF_OK;
    }
    c.outer = 1;
    for (uint32_t i = 0; i + 2 < x->rank; i++) c.outer *= x->dims[i];
    c.axis_n = x->dims[x->rank - 2];
    c.inner = x->dims[x->rank - 1];
    c.off = kt ? kt->values[0] : 0;
    c.op = rf_layer_attr_int(l, "upper", 1) != 0;
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:trilu");
    return rf__xstep_add_kernel(p, li, trilu, io, 2, 1, &c);
}

static rf_status lp_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    int pool = !strcmp(l->op_type, "GlobalLpPool");
    int64_t pn = rf_layer_attr_int(l, "p", 2);
    int64_t axis = pool ? 2 : rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if ((pn != 1 && pn != 2) || axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0 ||
        (pool && x->rank < 3)) {
        rf__xlayer_unmeasured(p, li, "%s with p other than 1 or 2, or an axis out of range",
                              l->op_type);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = (int)pn;
    if (pool) { /* [N, C, spatial...] -> [N, C, 1...]: slices of the spatial values */
        c.outer = x->dims[0] * x->dims[1];
        c.axis_n = c.outer ? (int64_t)rf__xtensor_elems(x) / c.outer : 0;
        c.inner = 1;
    } else {
        rf__xaround_axis(x, axis, &c);
    }
    int64_t want[RF_GRAPH_MAX_RANK];
    memcpy(want, x->dims, sizeof want);
    for (uint32_t i = 2; pool && i < x->rank; i++) want[i] = 1;
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, want)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xlayer_measured(p, li, pool ? "c:globallppool" : "c:lpnorm");
    return rf__xstep_add_kernel(p, li, pool ? global_lp : lp_norm, io, 2, 1, &c);
}

static rf_status revseq_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    int64_t ta = rf_layer_attr_int(l, "time_axis", 0), ba = rf_layer_attr_int(l, "batch_axis", 1);
    if (x->rank < 2 || l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR ||
        !((ta == 0 && ba == 1) || (ta == 1 && ba == 0)) ||
        rf__xtensor_elems(&p->t[l->inputs[1]]) != (uint64_t)x->dims[ba]) {
        rf__xlayer_unmeasured(p, li, "ReverseSequence whose axes or lengths it cannot read");
        return RF_OK;
    }
    uint32_t lu;
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[1], &lu));
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = ta == 0;
    c.outer = x->dims[0];
    c.axis_n = x->dims[1];
    int64_t rows = c.outer * c.axis_n;
    c.inner = rows > 0 ? (int64_t)rf__xtensor_elems(x) / rows : 0;
    if (!p->g->tensors[l->inputs[1]].values)
        rf__xplan_note(p, "ReverseSequence lengths synthetic (clamped into the time axis)");
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    uint32_t io[3] = {xu, lu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:reversesequence");
    return rf__xstep_add_kernel(p, li, reverse_seq, io, 3, 2, &c);
}

static rf_status bitshift_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf_attr *d = rf_layer_attr(l, "direction");
    const rf__xtensor *y = &p->t[l->outputs[0]];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR || !d || d->type != RF_ATTR_STRING ||
        (strcmp(d->s, "LEFT") && strcmp(d->s, "RIGHT")) || !y->rank) {
        rf__xlayer_unmeasured(p, li, "BitShift without a direction or a second input");
        return RF_OK;
    }
    uint32_t bu;
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[1], &bu));
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = !strcmp(d->s, "LEFT");
    c.rank = y->rank;
    memcpy(c.dims, y->dims, sizeof c.dims);
    if (!rf__xbroadcast_output(p, li, 2)) return RF_OK;
    rf__xbroadcast_strides(&p->t[xu], c.rank, c.dims, c.st[0]);
    rf__xbroadcast_strides(&p->t[bu], c.rank, c.dims, c.st[1]);
    uint32_t io[3] = {xu, bu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:bitshift");
    return rf__xstep_add_kernel(p, li, bit_shift, io, 3, 2, &c);
}

RF__ON_INPUT0(topk, topk_op)
RF__ON_INPUT0(cumsum, cumsum_op)
RF__ON_INPUT0(argbest, argbest_op)
RF__ON_INPUT0(hardmax_trilu, hardmax_trilu_op)
RF__ON_INPUT0(lp, lp_op)
RF__ON_INPUT0(revseq, revseq_op)
RF__ON_INPUT0(bitshift, bitshift_op)
