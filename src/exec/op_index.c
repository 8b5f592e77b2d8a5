/* op_index.c — the executor's ops that index by values in plain C: GatherElements and GatherND,
 * ScatterND, ScatterElements and opset 9's Scatter (the data copied, then the updates written over
 * it or combined: add, mul, max, min), and OneHot. Indices are synthetic values: wrapped modulo
 * the size of the axis they index, as Gather's are, so every read and write lands inside the
 * tensor. */
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

/* OneHot: for each index, `axis_n` (depth) values along the axis: on at the index, off elsewhere
 * (off and on are input 2's two values, read at run time). */
static void one_hot(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
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

/* The element offset in the data of ND index tuple t (axis_n indices, each wrapped into its
 * dimension c.dims[j], strides c.st[0]). */
static int64_t tuple_off(const rf__xkernel_args *c, const float *ind, int64_t t)
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
    const rf__xkernel_args *c = &s->c;
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
    const rf__xkernel_args *c = &s->c;
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
    const rf__xkernel_args *c = &s->c;
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

/* The layout of an ND or Elements index op (scatter or gather) on data d with indices ix whose
 * values (the updates, or the output) number nvals; 0 when they do not fit. ND: c.dims = data's
 * dims, c.st[0] its strides, n_idx tuples of axis_n indices, slices of `inner`. Elements: c.dims =
 * the indices' dims, c.off the axis, axis_n the data's size along it. */
static int index_layout(const rf_layer *l, const rf__xtensor *d, const rf__xtensor *ix,
                        uint64_t nvals, int nd, rf__xkernel_args *c)
{
    c->rank = d->rank;
    c->outer = (int64_t)rf__xtensor_elems(d);
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
    if (axis < 0 || axis >= (int64_t)d->rank || ix->rank != d->rank ||
        rf__xtensor_elems(ix) != nvals)
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
        rf__xlayer_unmeasured(p, li, "%s without its indices%s, or an unknown reduction",
                              l->op_type, scatter ? " and updates" : "");
        return RF_OK;
    }
    uint32_t iu, uu = RF__XNONE, Y = l->outputs[0];
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[1], &iu));
    if (scatter) RF_TRY(rf__xtensor_plain(p, li, l->inputs[2], &uu));
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    uint64_t nvals = rf__xtensor_elems(scatter ? &p->t[uu] : &p->t[Y]);
    if (!index_layout(l, &p->t[du], &p->t[iu], nvals, nd, &c)) {
        rf__xlayer_unmeasured(p, li, "%s with indices or %s that do not fit the data", l->op_type,
                              scatter ? "updates" : "an output");
        return RF_OK;
    }
    if (scatter && !rf__xshape_is(p, li, Y, p->t[du].rank, p->t[du].dims)) return RF_OK;
    if (!p->g->tensors[l->inputs[1]].values)
        rf__xplan_note(p,
                       "Scatter and gather indices synthetic (small integers, wrapped modulo the "
                       "axis size)");
    static const char *const kernel[2][2] = {{"c:gatherelements", "c:gathernd"},
                                             {"c:scatterelements", "c:scatternd"}};
    static const rf__xkernel_fn fn[2][2] = {{gather_el, gather_nd}, {scatter_el, scatter_nd}};
    uint32_t io[4] = {du, iu, scatter ? uu : Y, Y};
    rf__xlayer_measured(p, li, kernel[scatter][nd]);
    return rf__xstep_add_kernel(p, li, fn[scatter][nd], io, scatter ? 4 : 3, scatter ? 3 : 2, &c);
}

static rf_status onehot_op(rf__xplan *p, uint32_t li, uint32_t iu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *ix = &p->t[iu], *y = &p->t[l->outputs[0]];
    int64_t axis = rf_layer_attr_int(l, "axis", -1);
    axis = axis < 0 ? axis + (int64_t)y->rank : axis;
    if (l->n_inputs < 3 || l->inputs[2] == RF_GRAPH_NO_TENSOR || y->rank != ix->rank + 1 ||
        axis < 0 || axis >= (int64_t)y->rank || y->dims[axis] <= 0 ||
        rf__xtensor_elems(&p->t[l->inputs[2]]) != 2) {
        rf__xlayer_unmeasured(p, li, "OneHot whose depth, axis or values it cannot read");
        return RF_OK;
    }
    uint32_t vu;
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[2], &vu));
    rf__xkernel_args c;
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
        rf__xplan_note(p, "OneHot indices synthetic (small integers, wrapped modulo the depth)");
    uint32_t io[3] = {iu, vu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:onehot");
    return rf__xstep_add_kernel(p, li, one_hot, io, 3, 2, &c);
}

RF__ON_INPUT0(index, index_op)
RF__ON_INPUT0(onehot, onehot_op)
