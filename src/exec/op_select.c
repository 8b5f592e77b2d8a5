/* op_select.c — the executor's selection, scan, gather and scatter ops in plain C (neither oneDNN
 * nor OpenBLAS has them): TopK (a heap of the K best per slice, then ordered; ties to the lower
 * index, as ONNX asks), ArgMax and ArgMin (the first or the last best), CumSum (exclusive,
 * reverse; the inner loop over contiguous elements vectorises), GatherElements and GatherND,
 * ScatterND and ScatterElements (the data copied, then the updates written over it or combined:
 * add, mul, max, min), Hardmax (1 at the first maximum of each slice), Trilu (the upper or
 * lower triangle of the last two axes, the rest zeroed), OneHot, the p-norms LpNormalization
 * and GlobalLpPool (p 1 or 2), ReverseSequence and BitShift (on integers held as floats). Indices
 * are synthetic values: wrapped modulo the size of the axis they index, as Gather's are, so every
 * read and write lands inside the tensor. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

enum { SEL_NONE, SEL_ADD, SEL_MUL, SEL_MAX, SEL_MIN };

static int64_t wrap(float v, int64_t n)
{
    return rf__xwrap(v, n);
}

static float combine(int op, float a, float b)
{
    switch (op) {
    case SEL_ADD: return a + b;
    case SEL_MUL: return a * b;
    case SEL_MAX: return a > b ? a : b;
    case SEL_MIN: return a < b ? a : b;
    default: return b;
    }
}

/* ---- TopK ------------------------------------------------------------------------------------ */

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
    const rf__xcop *c = &s->c;
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

/* ---- ArgMax, ArgMin -----------------------------------------------------------------------------
 */

/* Every slice along the axis (c.outer x c.inner of them, c.axis_n elements at stride c.inner in
 * x; yn at the same stride in y: axis_n, or 1 for a reduction) through fn. */
typedef void (*slice_fn)(const float *x, float *y, int64_t n, int64_t stride, int op);
static void slices(const rf__xstep *s, int64_t yn, slice_fn fn)
{
    const rf__xcop *c = &s->c;
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
    const rf__xcop *c = &s->c;
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

/* OneHot: for each index, `axis_n` (depth) values along the axis: on at the index, off elsewhere
 * (off and on are input 2's two values, read at run time). */
static void one_hot(const rf__xstep *s)
{
    const rf__xcop *c = &s->c;
    const float *ind = s->ptr[0], *vals = s->ptr[1];
    float *y = s->ptr[2];
    int64_t depth = c->axis_n, in = c->inner;
    float off = vals[0], on = vals[1];
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t d = 0; d < depth; d++) {
            float *yr = y + (o * depth + d) * in;
            const float *ir = ind + o * in;
            for (int64_t i = 0; i < in; i++) yr[i] = wrap(ir[i], depth) == d ? on : off;
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
    const rf__xcop *c = &s->c;
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
    const rf__xcop *c = &s->c;
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

/* ---- CumSum ---------------------------------------------------------------------------------- */

static void cumsum(const rf__xstep *s)
{
    const rf__xcop *c = &s->c;
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

/* ---- ScatterND, ScatterElements ------------------------------------------------------------- */

/* The element offset in the data of ND index tuple t (axis_n indices, each wrapped into its
 * dimension c.dims[j], strides c.st[0]). */
static int64_t tuple_off(const rf__xcop *c, const float *ind, int64_t t)
{
    int64_t q = c->axis_n, off = 0;
    for (int64_t j = 0; j < q; j++) off += wrap(ind[t * q + j], c->dims[j]) * c->st[0][j];
    return off;
}

/* ScatterND: y = data; then for each of the n_idx index tuples, the slice of `inner` elements it
 * addresses gets the next slice of the updates (or is combined with it). c.dims: data's dims,
 * c.st[0]: its element strides. */
static void scatter_nd(const rf__xstep *s)
{
    const rf__xcop *c = &s->c;
    const float *d = s->ptr[0], *ind = s->ptr[1], *u = s->ptr[2];
    float *y = s->ptr[3];
    if (y != d) memcpy(y, d, (size_t)c->outer * sizeof *y);
    int64_t in = c->inner;
    for (int64_t t = 0; t < c->n_idx; t++) {
        float *yr = y + tuple_off(c, ind, t);
        const float *ur = u + t * in;
        if (c->op == SEL_NONE)
            memcpy(yr, ur, (size_t)in * sizeof *yr);
        else
            for (int64_t i = 0; i < in; i++) yr[i] = combine(c->op, yr[i], ur[i]);
    }
}

/* GatherND (batch_dims 0): each of the n_idx tuples copies the slice of `inner` elements it
 * addresses. Layout as scatter_nd. */
static void gather_nd(const rf__xstep *s)
{
    const rf__xcop *c = &s->c;
    const float *d = s->ptr[0], *ind = s->ptr[1];
    float *y = s->ptr[2];
    for (int64_t t = 0; t < c->n_idx; t++)
        memcpy(y + t * c->inner, d + tuple_off(c, ind, t), (size_t)c->inner * sizeof *y);
}

/* ScatterElements and GatherElements: every position of the indices (dims c.dims, rank c.rank)
 * points into the data by its index along axis c.off (wrapped into c.axis_n) and its own
 * position elsewhere (data strides c.st[0]). Scatter: y = data, then the update at that position
 * is written there (or combined); gather: y at that position reads the data there. */
static void by_element(const rf__xstep *s, int scatter)
{
    const rf__xcop *c = &s->c;
    const float *d = s->ptr[0], *ind = s->ptr[1], *u = s->ptr[2];
    float *y = s->ptr[s->n_in];
    if (scatter && y != d) memcpy(y, d, (size_t)c->outer * sizeof *y);
    uint32_t R = c->rank;
    int64_t axis = c->off, pos[RF_GRAPH_MAX_RANK] = {0}, n = 1;
    for (uint32_t i = 0; i < R; i++) n *= c->dims[i];
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (uint32_t j = 0; j < R; j++)
            off += ((int64_t)j == axis ? wrap(ind[e], c->axis_n) : pos[j]) * c->st[0][j];
        if (scatter)
            y[off] = combine(c->op, y[off], u[e]);
        else
            y[e] = d[off];
        for (int j = (int)R - 1; j >= 0 && ++pos[j] == c->dims[j]; j--) pos[j] = 0;
    }
}

static void scatter_el(const rf__xstep *s)
{
    by_element(s, 1);
}

static void gather_el(const rf__xstep *s)
{
    by_element(s, 0);
}

/* ---- planning -------------------------------------------------------------------------------- */

static int reduction(const rf_layer *l)
{
    const rf_attr *r = rf_layer_attr(l, "reduction");
    const char *m = r && r->type == RF_ATTR_STRING ? r->s : "none";
    return !strcmp(m, "add")    ? SEL_ADD
           : !strcmp(m, "mul")  ? SEL_MUL
           : !strcmp(m, "max")  ? SEL_MAX
           : !strcmp(m, "min")  ? SEL_MIN
           : !strcmp(m, "none") ? SEL_NONE
                                : -1;
}

static rf_status topk_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    int64_t axis = rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if (l->n_outputs < 2 || axis < 0 || axis >= (int64_t)x->rank ||
        p->t[l->outputs[0]].rank != x->rank) {
        rf__xnot(p, li, "TopK with an axis or outputs it cannot read");
        return RF_OK;
    }
    rf__xcop c;
    memset(&c, 0, sizeof c);
    rf__xaround(x, axis, &c);
    c.n_idx = p->t[l->outputs[0]].dims[axis];
    c.op = rf_layer_attr_int(l, "largest", 1) != 0;
    if (c.n_idx > c.axis_n || c.n_idx < 0) {
        rf__xnot(p, li, "TopK with K past the axis");
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
    rf__xmeasured(p, li, "c:topk");
    return rf__xstep_c(p, li, topk, io, 3, 1, &c);
}

static rf_status cumsum_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    const rf_tensor *a =
        l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR ? &p->g->tensors[l->inputs[1]] : NULL;
    if (!a || !a->values || a->n_values != 1 || !x->rank) {
        rf__xnot(p, li, "CumSum whose axis is not a constant");
        return RF_OK;
    }
    int64_t axis = a->values[0] < 0 ? a->values[0] + (int64_t)x->rank : a->values[0];
    if (axis < 0 || axis >= (int64_t)x->rank) {
        rf__xnot(p, li, "CumSum axis out of range");
        return RF_OK;
    }
    rf__xcop c;
    memset(&c, 0, sizeof c);
    rf__xaround(x, axis, &c);
    int excl = rf_layer_attr_int(l, "exclusive", 0) != 0;
    int rev = rf_layer_attr_int(l, "reverse", 0) != 0;
    c.op = excl | (rev << 1);
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xmeasured(p, li, "c:cumsum");
    return rf__xstep_c(p, li, cumsum, io, 2, 1, &c);
}

/* The layout of an ND or Elements index op (scatter or gather) on data d with indices ix whose
 * values (the updates, or the output) number nvals; 0 when they do not fit. ND: c.dims = data's
 * dims, c.st[0] its strides, n_idx tuples of axis_n indices, slices of `inner`. Elements: c.dims =
 * the indices' dims, c.off the axis, axis_n the data's size along it. */
static int index_layout(const rf_layer *l, const rf__xt *d, const rf__xt *ix, uint64_t nvals,
                        int nd, rf__xcop *c)
{
    c->rank = d->rank;
    c->outer = (int64_t)rf__xt_nel(d);
    int64_t stride = 1;
    for (int i = (int)d->rank - 1; i >= 0; i--) {
        if (d->dims[i] <= 0) return 0; /* nothing to index into */
        c->st[0][i] = stride;
        stride *= d->dims[i];
    }
    if (nd) {
        /* indices [..., q]; values [..., data dims from q on]; batch_dims 0 only */
        int64_t q = ix->rank ? ix->dims[ix->rank - 1] : -1;
        if (q < 1 || q > (int64_t)d->rank || rf_layer_attr_int(l, "batch_dims", 0) != 0) return 0;
        c->axis_n = q;
        c->n_idx = c->inner = 1;
        for (uint32_t i = 0; i + 1 < ix->rank; i++) c->n_idx *= ix->dims[i];
        for (uint32_t i = (uint32_t)q; i < d->rank; i++) c->inner *= d->dims[i];
        memcpy(c->dims, d->dims, sizeof c->dims);
        return (uint64_t)(c->n_idx * c->inner) == nvals;
    }
    int64_t axis = rf_layer_attr_int(l, "axis", 0);
    axis = axis < 0 ? axis + (int64_t)d->rank : axis;
    if (axis < 0 || axis >= (int64_t)d->rank || ix->rank != d->rank || rf__xt_nel(ix) != nvals)
        return 0;
    for (uint32_t i = 0; i < d->rank; i++)
        if ((int64_t)i != axis && ix->dims[i] > d->dims[i]) return 0;
    c->off = axis;
    c->axis_n = d->dims[axis];
    c->rank = ix->rank;
    memcpy(c->dims, ix->dims, sizeof c->dims);
    return 1;
}

/* ScatterND, ScatterElements (data, indices, updates) and GatherND, GatherElements (data,
 * indices). */
static rf_status index_op(rf__xplan *p, uint32_t li, uint32_t du)
{
    const rf_layer *l = &p->g->layers[li];
    int scatter = !strncmp(l->op_type, "Scatter", 7);
    int nd = !strcmp(l->op_type, "ScatterND") || !strcmp(l->op_type, "GatherND");
    int op = scatter ? reduction(l) : SEL_NONE;
    uint32_t need = scatter ? 3 : 2;
    if (l->n_inputs < need || l->inputs[1] == RF_GRAPH_NO_TENSOR ||
        (scatter && l->inputs[2] == RF_GRAPH_NO_TENSOR) || op < 0) {
        rf__xnot(p, li, "%s without its indices%s, or an unknown reduction", l->op_type,
                 scatter ? " and updates" : "");
        return RF_OK;
    }
    uint32_t iu, uu = RF__XNONE, Y = l->outputs[0];
    RF_TRY(rf__xplain(p, li, l->inputs[1], &iu));
    if (scatter) RF_TRY(rf__xplain(p, li, l->inputs[2], &uu));
    rf__xcop c;
    memset(&c, 0, sizeof c);
    c.op = op;
    uint64_t nvals = rf__xt_nel(scatter ? &p->t[uu] : &p->t[Y]);
    if (!index_layout(l, &p->t[du], &p->t[iu], nvals, nd, &c)) {
        rf__xnot(p, li, "%s with indices or %s that do not fit the data", l->op_type,
                 scatter ? "updates" : "an output");
        return RF_OK;
    }
    if (scatter && !rf__xshape_is(p, li, Y, p->t[du].rank, p->t[du].dims)) return RF_OK;
    if (!p->g->tensors[l->inputs[1]].values)
        rf__xnote(p, "Scatter and gather indices synthetic (small integers, wrapped modulo the "
                     "axis size)");
    static const char *const kernel[2][2] = {{"c:gatherelements", "c:gathernd"},
                                             {"c:scatterelements", "c:scatternd"}};
    static const rf__xcfn fn[2][2] = {{gather_el, gather_nd}, {scatter_el, scatter_nd}};
    uint32_t io[4] = {du, iu, scatter ? uu : Y, Y};
    rf__xmeasured(p, li, kernel[scatter][nd]);
    return rf__xstep_c(p, li, fn[scatter][nd], io, scatter ? 4 : 3, scatter ? 3 : 2, &c);
}

static rf_status argbest_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    int64_t axis = rf_layer_attr_int(l, "axis", 0);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if (axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0) {
        rf__xnot(p, li, "%s over an axis out of range or empty", l->op_type);
        return RF_OK;
    }
    rf__xcop c;
    memset(&c, 0, sizeof c);
    rf__xaround(x, axis, &c);
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
    rf__xmeasured(p, li, "c:argmax");
    return rf__xstep_c(p, li, argbest, io, 2, 1, &c);
}

static rf_status hardmax_trilu_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    rf__xcop c;
    memset(&c, 0, sizeof c);
    if (!strcmp(l->op_type, "Hardmax")) {
        int64_t axis = rf_layer_attr_int(l, "axis", -1);
        axis = axis < 0 ? axis + (int64_t)x->rank : axis;
        if (axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0 ||
            (p->g->opset && p->g->opset < 13)) {
            rf__xnot(p, li, "Hardmax over an axis out of range, or before opset 13 (2-D)");
            return RF_OK;
        }
        rf__xaround(x, axis, &c);
        if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
        uint32_t io[2] = {xu, l->outputs[0]};
        rf__xmeasured(p, li, "c:hardmax");
        return rf__xstep_c(p, li, hardmax, io, 2, 1, &c);
    }
    const rf_tensor *kt =
        l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR ? &p->g->tensors[l->inputs[1]] : NULL;
    if (x->rank < 2 || (kt && (!kt->values || kt->n_values != 1))) {
        rf__xnot(p, li, "Trilu of rank < 2 or with k known only at run time");
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
    rf__xmeasured(p, li, "c:trilu");
    return rf__xstep_c(p, li, trilu, io, 2, 1, &c);
}

static rf_status onehot_op(rf__xplan *p, uint32_t li, uint32_t iu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *ix = &p->t[iu], *y = &p->t[l->outputs[0]];
    int64_t axis = rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)y->rank : axis;
    if (l->n_inputs < 3 || l->inputs[2] == RF_GRAPH_NO_TENSOR || y->rank != ix->rank + 1 ||
        axis < 0 || axis >= (int64_t)y->rank || y->dims[axis] <= 0 ||
        rf__xt_nel(&p->t[l->inputs[2]]) != 2) {
        rf__xnot(p, li, "OneHot whose depth, axis or values it cannot read");
        return RF_OK;
    }
    uint32_t vu;
    RF_TRY(rf__xplain(p, li, l->inputs[2], &vu));
    rf__xcop c;
    memset(&c, 0, sizeof c);
    c.outer = c.inner = 1;
    for (uint32_t i = 0; i < ix->rank; i++) {
        if ((int64_t)i < axis)
            c.outer *= ix->dims[i];
        else
            c.inner *= ix->dims[i];
    }
    c.axis_n = y->dims[axis];
    /* the depth may come from a graph input: the output must be the indices' shape with the
     * declared depth inserted at the axis, or the kernel would write past it */
    int64_t want[RF_GRAPH_MAX_RANK];
    for (uint32_t i = 0, k = 0; i < y->rank; i++)
        want[i] = (int64_t)i == axis ? c.axis_n : ix->dims[k++];
    if (!rf__xshape_is(p, li, l->outputs[0], y->rank, want)) return RF_OK;
    if (!p->g->tensors[l->inputs[0]].values)
        rf__xnote(p, "OneHot indices synthetic (small integers, wrapped modulo the depth)");
    uint32_t io[3] = {iu, vu, l->outputs[0]};
    rf__xmeasured(p, li, "c:onehot");
    return rf__xstep_c(p, li, one_hot, io, 3, 2, &c);
}

static rf_status lp_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    int pool = !strcmp(l->op_type, "GlobalLpPool");
    int64_t pn = rf_layer_attr_int(l, "p", 2);
    int64_t axis = pool ? 2 : rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)x->rank : axis;
    if ((pn != 1 && pn != 2) || axis < 0 || axis >= (int64_t)x->rank || x->dims[axis] <= 0 ||
        (pool && x->rank < 3)) {
        rf__xnot(p, li, "%s with p other than 1 or 2, or an axis out of range", l->op_type);
        return RF_OK;
    }
    rf__xcop c;
    memset(&c, 0, sizeof c);
    c.op = (int)pn;
    if (pool) { /* [N, C, spatial...] -> [N, C, 1...]: slices of the spatial values */
        c.outer = x->dims[0] * x->dims[1];
        c.axis_n = c.outer ? (int64_t)rf__xt_nel(x) / c.outer : 0;
        c.inner = 1;
    } else {
        rf__xaround(x, axis, &c);
    }
    int64_t want[RF_GRAPH_MAX_RANK];
    memcpy(want, x->dims, sizeof want);
    for (uint32_t i = 2; pool && i < x->rank; i++) want[i] = 1;
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, want)) return RF_OK;
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xmeasured(p, li, pool ? "c:globallppool" : "c:lpnorm");
    return rf__xstep_c(p, li, pool ? global_lp : lp_norm, io, 2, 1, &c);
}

static rf_status revseq_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xt *x = &p->t[xu];
    int64_t ta = rf_layer_attr_int(l, "time_axis", 0), ba = rf_layer_attr_int(l, "batch_axis", 1);
    if (x->rank < 2 || l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR ||
        !((ta == 0 && ba == 1) || (ta == 1 && ba == 0)) ||
        rf__xt_nel(&p->t[l->inputs[1]]) != (uint64_t)x->dims[ba]) {
        rf__xnot(p, li, "ReverseSequence whose axes or lengths it cannot read");
        return RF_OK;
    }
    uint32_t lu;
    RF_TRY(rf__xplain(p, li, l->inputs[1], &lu));
    rf__xcop c;
    memset(&c, 0, sizeof c);
    c.op = ta == 0;
    c.outer = x->dims[0];
    c.axis_n = x->dims[1];
    int64_t rows = c.outer * c.axis_n;
    c.inner = rows > 0 ? (int64_t)rf__xt_nel(x) / rows : 0;
    if (!p->g->tensors[l->inputs[1]].values)
        rf__xnote(p, "ReverseSequence lengths synthetic (clamped into the time axis)");
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    uint32_t io[3] = {xu, lu, l->outputs[0]};
    rf__xmeasured(p, li, "c:reversesequence");
    return rf__xstep_c(p, li, reverse_seq, io, 3, 2, &c);
}

static rf_status bitshift_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf_attr *d = rf_layer_attr(l, "direction");
    const rf__xt *y = &p->t[l->outputs[0]];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR || !d || d->type != RF_ATTR_STRING ||
        (strcmp(d->s, "LEFT") && strcmp(d->s, "RIGHT")) || !y->rank) {
        rf__xnot(p, li, "BitShift without a direction or a second input");
        return RF_OK;
    }
    uint32_t bu;
    RF_TRY(rf__xplain(p, li, l->inputs[1], &bu));
    rf__xcop c;
    memset(&c, 0, sizeof c);
    c.op = !strcmp(d->s, "LEFT");
    c.rank = y->rank;
    memcpy(c.dims, y->dims, sizeof c.dims);
    if (!rf__xbcast_out(p, li, 2)) return RF_OK;
    rf__xbstrides(&p->t[xu], c.rank, c.dims, c.st[0]);
    rf__xbstrides(&p->t[bu], c.rank, c.dims, c.st[1]);
    uint32_t io[3] = {xu, bu, l->outputs[0]};
    rf__xmeasured(p, li, "c:bitshift");
    return rf__xstep_c(p, li, bit_shift, io, 3, 2, &c);
}

rf_status rf__xop_select(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    static const char *const indexed[] = {"ScatterND", "ScatterElements", "Scatter",
                                          "GatherND",  "GatherElements",  NULL};
    int tk = !strcmp(l->op_type, "TopK"), cs = !strcmp(l->op_type, "CumSum");
    int am = !strcmp(l->op_type, "ArgMax") || !strcmp(l->op_type, "ArgMin"), sc = 0;
    for (const char *const *n = indexed; *n; n++) sc |= !strcmp(l->op_type, *n);
    int ht = !strcmp(l->op_type, "Hardmax") || !strcmp(l->op_type, "Trilu");
    int oh = !strcmp(l->op_type, "OneHot");
    int lp = !strcmp(l->op_type, "LpNormalization") || !strcmp(l->op_type, "GlobalLpPool");
    int rs = !strcmp(l->op_type, "ReverseSequence"), bs = !strcmp(l->op_type, "BitShift");
    if (!(tk || cs || sc || am || ht || oh || lp || rs || bs)) {
        rf__xnot(p, li, "no selection kernel for op '%s'", l->op_type);
        return RF_OK;
    }
    if (!l->n_inputs || l->inputs[0] == RF_GRAPH_NO_TENSOR || !l->n_outputs) {
        rf__xnot(p, li, "%s without input", l->op_type);
        return RF_OK;
    }
    uint32_t xu;
    RF_TRY(rf__xplain(p, li, l->inputs[0], &xu));
    if (tk) return topk_op(p, li, xu);
    if (cs) return cumsum_op(p, li, xu);
    if (am) return argbest_op(p, li, xu);
    if (ht) return hardmax_trilu_op(p, li, xu);
    if (oh) return onehot_op(p, li, xu);
    if (lp) return lp_op(p, li, xu);
    if (rs) return revseq_op(p, li, xu);
    if (bs) return bitshift_op(p, li, xu);
    return index_op(p, li, xu);
}
