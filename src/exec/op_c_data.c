/* op_c_data.c — the executor's data-movement ops in plain C: views (Reshape, Flatten, Squeeze,
 * Unsqueeze, Identity, Dropout: the output shares its input's bytes), Gather (indices wrap
 * modulo the axis size: the values are synthetic), Slice, Split, Expand, Pad (constant, edge,
 * reflect), Tile, Shape and Size. Copies run row by row (memcpy when a row is contiguous). */
#include <string.h>

#include "exec/exec_int.h"

/* y (contiguous over c.dims) = x at offset c.off with element strides c.st[0]. */
static void strided_copy(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    uint32_t R = c->rank;
    const float *x = s->ptr[0];
    float *y = s->ptr[s->n_in];
    int64_t n = c->dims[R - 1], sx = c->st[0][R - 1], idx[RF_GRAPH_MAX_RANK] = {0}, off = c->off;
    int64_t outer = 1;
    for (uint32_t i = 0; i + 1 < R; i++) outer *= c->dims[i];
    for (int64_t o = 0; o < outer; o++, y += n) {
        const float *row = x + off;
        if (sx == 1)
            memcpy(y, row, (size_t)n * sizeof *y);
        else
            for (int64_t i = 0; i < n; i++) y[i] = row[i * sx];
        for (int d = (int)R - 2; d >= 0; d--) {
            idx[d]++;
            off += c->st[0][d];
            if (idx[d] < c->dims[d]) break;
            off -= c->st[0][d] * idx[d];
            idx[d] = 0;
        }
    }
}

static void gather(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *ind = s->ptr[1];
    float *y = s->ptr[2];
    size_t row = (size_t)c->inner * sizeof *y;
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t j = 0; j < c->n_idx; j++) {
            int64_t k = rf__xwrap(ind[j], c->axis_n); /* never a float cast out of range */
            memcpy(y + (o * c->n_idx + j) * c->inner, x + (o * c->axis_n + k) * c->inner, row);
        }
}

/* Pad: fill, then copy x (dims c.dims) into y at offset c.off with y's strides c.st[0]. */
static void pad(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *y = s->ptr[1];
    for (int64_t i = 0; i < c->n_idx; i++) y[i] = c->value;
    uint32_t R = c->rank;
    int64_t n = c->dims[R - 1], idx[RF_GRAPH_MAX_RANK] = {0}, off = c->off, outer = 1;
    for (uint32_t i = 0; i + 1 < R; i++) outer *= c->dims[i];
    for (int64_t o = 0; o < outer; o++, x += n) {
        memcpy(y + off, x, (size_t)n * sizeof *x);
        for (int d = (int)R - 2; d >= 0; d--) {
            idx[d]++;
            off += c->st[0][d];
            if (idx[d] < c->dims[d]) break;
            off -= c->st[0][d] * idx[d];
            idx[d] = 0;
        }
    }
}

/* Where output index i of an axis reads from an input axis of n: Tile wraps (op 0), Pad "edge"
 * clamps (1), Pad "reflect" mirrors without repeating the edge (2), pb being the begin pad. */
static int64_t mapped_index(int op, int64_t i, int64_t n, int64_t pb)
{
    if (op == 0) return i % n;
    int64_t j = i - pb;
    if (op == 1) return j < 0 ? 0 : j >= n ? n - 1 : j;
    if (n == 1) return 0;
    int64_t per = 2 * (n - 1);
    j %= per;
    if (j < 0) j += per;
    return j >= n ? per - j : j;
}

/* y (contiguous over c.dims) from x (dims c.st[1], strides c.st[0]) through mapped_index per
 * axis (mode c.op, begin pads c.st[2]): Tile and Pad edge/reflect. */
static void mapped_copy(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    uint32_t R = c->rank;
    const float *x = s->ptr[0];
    float *y = s->ptr[1];
    int64_t n = c->dims[R - 1], idx[RF_GRAPH_MAX_RANK] = {0}, outer = 1;
    int64_t xn = c->st[1][R - 1], xs = c->st[0][R - 1], pb = c->st[2][R - 1];
    for (uint32_t i = 0; i + 1 < R; i++) outer *= c->dims[i];
    for (int64_t o = 0; o < outer; o++, y += n) {
        int64_t base = 0;
        for (uint32_t d = 0; d + 1 < R; d++)
            base += mapped_index(c->op, idx[d], c->st[1][d], c->st[2][d]) * c->st[0][d];
        if (c->op == 0 && xs == 1) { /* Tile: whole input rows */
            for (int64_t i = 0; i < n; i += xn)
                memcpy(y + i, x + base, (size_t)(n - i < xn ? n - i : xn) * sizeof *y);
        } else {
            for (int64_t i = 0; i < n; i++) y[i] = x[base + mapped_index(c->op, i, xn, pb) * xs];
        }
        for (int d = (int)R - 2; d >= 0; d--) {
            if (++idx[d] < c->dims[d]) break;
            idx[d] = 0;
        }
    }
}

static void out_dims(const rf__xtensor *y, rf__xkernel_args *c);
static void plain_strides(const rf__xtensor *x, int64_t *st);

static rf_status mapped_op(rf__xplan *p, uint32_t li, uint32_t xu, int op, const int64_t *pb)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0], r = p->t[xu].rank;
    if (!r || p->t[Y].rank != r) {
        rf__xlayer_unmeasured(p, li, "%s of a rank-%u tensor to rank %u", l->op_type, r,
                              p->t[Y].rank);
        return RF_OK;
    }
    const rf_tensor *rep = op == 0 && l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR
                               ? &p->g->tensors[l->inputs[1]]
                               : NULL;
    if (rep && rep->values && rep->n_values == r) { /* Tile with known repeats: x * repeats */
        int64_t want[RF_GRAPH_MAX_RANK];
        for (uint32_t i = 0; i < r; i++)
            if (rep->values[i] < 0 || !rf__i64_mul(p->t[xu].dims[i], rep->values[i], &want[i]))
                want[i] = -1;
        if (!rf__xshape_is(p, li, Y, r, want)) return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    out_dims(&p->t[Y], &c);
    plain_strides(&p->t[xu], c.st[0]);
    for (uint32_t i = 0; i < r; i++) {
        c.st[1][i] = p->t[xu].dims[i];
        c.st[2][i] = pb ? pb[i] : 0;
        if (c.st[1][i] <= 0 && c.dims[i] > 0) {
            rf__xlayer_unmeasured(p, li, "%s from an empty axis", l->op_type);
            return RF_OK;
        }
    }
    uint32_t io[2] = {xu, Y};
    rf__xlayer_measured(p, li, op == 0 ? "c:tile" : op == 1 ? "c:pad-edge" : "c:pad-reflect");
    return rf__xstep_add_kernel(p, li, mapped_copy, io, 2, 1, &c);
}

static void fill_values(const rf__xstep *s)
{
    for (int64_t i = 0; i < s->c.n_idx; i++) s->ptr[s->n_in][i] = (float)s->c.dims[i];
}

static void out_dims(const rf__xtensor *y, rf__xkernel_args *c)
{
    c->rank = y->rank ? y->rank : 1;
    for (uint32_t i = 0; i < c->rank; i++) c->dims[i] = y->rank ? y->dims[i] : 1;
}

static void plain_strides(const rf__xtensor *x, int64_t *st)
{
    int64_t acc = 1;
    for (int i = (int)x->rank - 1; i >= 0; i--) st[i] = acc, acc *= x->dims[i];
}

/* Slice (opset >= 10 inputs, else attributes): starts, axes and steps; the output dims come
 * from shape inference. Unknown starts are taken as 0 (noted). */
static rf_status slice(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[xu];
    int64_t xs[RF_GRAPH_MAX_RANK], start[RF_GRAPH_MAX_RANK] = {0}, step[RF_GRAPH_MAX_RANK];
    int64_t sv[RF_GRAPH_MAX_RANK], av[RF_GRAPH_MAX_RANK], tv[RF_GRAPH_MAX_RANK];
    plain_strides(x, xs);
    for (uint32_t i = 0; i < x->rank; i++) step[i] = 1;
    int ns = -1, na = -1, nt = -1;
    const rf_tensor *ts[4] = {NULL, NULL, NULL, NULL};
    for (uint32_t k = 1; k < l->n_inputs && k <= 4; k++)
        if (l->inputs[k] != RF_GRAPH_NO_TENSOR) ts[k - 1] = &p->g->tensors[l->inputs[k]];
    if (l->n_inputs > 1) {
        if (ts[0] && ts[0]->values && ts[0]->n_values <= RF_GRAPH_MAX_RANK)
            ns = (int)ts[0]->n_values, memcpy(sv, ts[0]->values, (size_t)ns * 8);
        if (ts[2] && ts[2]->values && ts[2]->n_values <= RF_GRAPH_MAX_RANK)
            na = (int)ts[2]->n_values, memcpy(av, ts[2]->values, (size_t)na * 8);
        if (ts[3] && ts[3]->values && ts[3]->n_values <= RF_GRAPH_MAX_RANK)
            nt = (int)ts[3]->n_values, memcpy(tv, ts[3]->values, (size_t)nt * 8);
    } else {
        ns = rf__xattr_ints(l, "starts", sv, RF_GRAPH_MAX_RANK);
        na = rf__xattr_ints(l, "axes", av, RF_GRAPH_MAX_RANK);
    }
    if (ns < 0) rf__xplan_note(p, "Slice starts not known: 0 used");
    for (int i = 0; i < ns; i++) {
        int64_t a = na == ns ? av[i] : i;
        a = a < 0 ? a + (int64_t)x->rank : a;
        if (a < 0 || a >= (int64_t)x->rank) continue;
        int64_t d = x->dims[a], st = nt == ns ? tv[i] : 1, s0 = sv[i];
        if (st == 0) st = 1;
        s0 = s0 < 0 ? s0 + d : s0;
        s0 = st > 0 ? (s0 < 0 ? 0 : s0 > d ? d : s0) : (s0 < 0 ? -1 : s0 > d - 1 ? d - 1 : s0);
        start[a] = s0 < 0 ? 0 : s0;
        step[a] = st;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    out_dims(&p->t[l->outputs[0]], &c);
    if (c.rank != (x->rank ? x->rank : 1)) {
        rf__xlayer_unmeasured(p, li, "Slice output rank differs from its input");
        return RF_OK;
    }
    for (uint32_t i = 0; i < x->rank; i++) {
        /* the declared dims are trusted only when the first and the last element they read
         * lie inside x, in checked arithmetic (a step near INT64_MIN, axes from a graph input) */
        int64_t last, span, st;
        int in = c.dims[i] >= 0 && rf__i64_mul(xs[i], step[i], &st) &&
                 (!c.dims[i] || (rf__i64_mul(c.dims[i] - 1, step[i], &span) &&
                                 rf__i64_add(start[i], span, &last) && last >= 0 &&
                                 last < x->dims[i] && start[i] < x->dims[i]));
        if (!in) {
            rf__xlayer_unmeasured(p, li,
                                  "Slice bounds not known, or its declared output reads outside x");
            return RF_OK;
        }
        c.st[0][i] = st;
        c.off += start[i] * xs[i];
    }
    uint32_t io[2] = {xu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:slice");
    return rf__xstep_add_kernel(p, li, strided_copy, io, 2, 1, &c);
}

static rf_status split(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    int64_t axis = rf_layer_attr_int(l, "axis", 0), xs[RF_GRAPH_MAX_RANK], at = 0;
    uint32_t r = p->t[xu].rank;
    axis = axis < 0 ? axis + (int64_t)r : axis;
    if (axis < 0 || axis >= (int64_t)r) {
        rf__xlayer_unmeasured(p, li, "Split axis out of range");
        return RF_OK;
    }
    plain_strides(&p->t[xu], xs);
    int64_t end = 0;
    uint32_t o;
    for (o = 0; o < l->n_outputs; o++, at = end) { /* each part: x with the axis cut, inside x */
        int64_t want[RF_GRAPH_MAX_RANK];
        const rf__xtensor *y = &p->t[l->outputs[o]];
        memcpy(want, p->t[xu].dims, sizeof want);
        want[axis] = y->rank == r ? y->dims[axis] : -1;
        if (want[axis] < 0 || !rf__i64_add(at, want[axis], &end) || end > p->t[xu].dims[axis]) {
            rf__xlayer_unmeasured(p, li, "Split parts that add up past the axis (%lld)",
                                  (long long)p->t[xu].dims[axis]);
            return RF_OK;
        }
        if (!rf__xshape_is(p, li, l->outputs[o], r, want)) return RF_OK;
    }
    for (at = 0, o = 0; o < l->n_outputs; o++) {
        rf__xkernel_args c;
        memset(&c, 0, sizeof c);
        out_dims(&p->t[l->outputs[o]], &c);
        memcpy(c.st[0], xs, sizeof xs);
        c.off = at * xs[axis];
        at += c.dims[axis];
        uint32_t io[2] = {xu, l->outputs[o]};
        RF_TRY(rf__xstep_add_kernel(p, li, strided_copy, io, 2, 1, &c));
    }
    rf__xlayer_measured(p, li, "c:split");
    return RF_OK;
}

static rf_status gather_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t iu, r = p->t[xu].rank;
    int64_t axis = rf_layer_attr_int(l, "axis", 0);
    axis = axis < 0 ? axis + (int64_t)r : axis;
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR || axis < 0 || axis >= (int64_t)r) {
        rf__xlayer_unmeasured(p, li, "Gather axis or indices not supported");
        return RF_OK;
    }
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[1], &iu));
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    rf__xaround_axis(&p->t[xu], axis, &c);
    c.n_idx = 1;
    for (uint32_t i = 0; i < p->t[iu].rank; i++) c.n_idx *= p->t[iu].dims[i];
    if (c.axis_n <= 0) {
        rf__xlayer_unmeasured(p, li, "Gather from an empty axis");
        return RF_OK;
    }
    /* y = x's dims before the axis, the indices' dims, x's dims after it: the kernel writes
     * that many elements (the LLM builders' embedding lookups drop a leading 1: the count is
     * what must agree) */
    const rf__xtensor *x = &p->t[xu], *ix = &p->t[iu];
    int64_t want[RF_GRAPH_MAX_RANK];
    uint32_t wr = 0;
    if (r - 1 + ix->rank > RF_GRAPH_MAX_RANK) {
        rf__xlayer_unmeasured(p, li, "Gather output of rank past %d", RF_GRAPH_MAX_RANK);
        return RF_OK;
    }
    for (uint32_t i = 0; i < r; i++) {
        if ((int64_t)i != axis) want[wr++] = x->dims[i];
        for (uint32_t k = 0; (int64_t)i == axis && k < ix->rank; k++) want[wr++] = ix->dims[k];
    }
    uint64_t nw = 1;
    int fits = 1;
    for (uint32_t i = 0; i < wr; i++) fits &= rf__mul_ok(nw, (uint64_t)want[i], &nw);
    if ((!fits || nw != rf__xtensor_elems(&p->t[l->outputs[0]])) &&
        !rf__xshape_is(p, li, l->outputs[0], wr, want))
        return RF_OK;
    if (!p->g->tensors[l->inputs[1]].values)
        rf__xplan_note(p,
                       "Gather indices synthetic (small integers, wrapped modulo the axis size)");
    uint32_t io[3] = {xu, iu, l->outputs[0]};
    rf__xlayer_measured(p, li, "c:gather");
    return rf__xstep_add_kernel(p, li, gather, io, 3, 2, &c);
}

static rf_status pad_op(rf__xplan *p, uint32_t li, uint32_t xu)
{
    const rf_layer *l = &p->g->layers[li];
    const rf_attr *m = rf_layer_attr(l, "mode");
    uint32_t Y = l->outputs[0], r = p->t[xu].rank;
    int64_t pads[2 * RF_GRAPH_MAX_RANK], ys[RF_GRAPH_MAX_RANK];
    int np = rf__xattr_ints(l, "pads", pads, 2 * RF_GRAPH_MAX_RANK);
    if (np < 0 && l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR) {
        const rf_tensor *t = &p->g->tensors[l->inputs[1]];
        if (t->values && t->n_values <= 2 * RF_GRAPH_MAX_RANK) {
            np = (int)t->n_values;
            memcpy(pads, t->values, (size_t)np * sizeof *pads);
        }
    }
    const char *mode = m && m->type == RF_ATTR_STRING ? m->s : "constant";
    int mapped = !strcmp(mode, "edge") ? 1 : !strcmp(mode, "reflect") ? 2 : 0;
    if ((!mapped && strcmp(mode, "constant")) || np != (int)(2 * r) || !r || p->t[Y].rank != r) {
        rf__xlayer_unmeasured(
            p, li,
            "Pad mode '%s' or pads not supported (constant, edge or reflect with known "
            "pads only)",
            mode);
        return RF_OK;
    }
    if (mapped) return mapped_op(p, li, xu, mapped, pads);
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.rank = r;
    plain_strides(&p->t[Y], ys);
    c.n_idx = 1;
    for (uint32_t i = 0; i < r; i++) {
        int64_t w;
        if (pads[i] < 0 || pads[r + i] < 0) {
            rf__xlayer_unmeasured(p, li, "Pad with negative pads");
            return RF_OK;
        }
        if (!rf__i64_add(p->t[xu].dims[i], pads[i], &w) || !rf__i64_add(w, pads[r + i], &w) ||
            w != p->t[Y].dims[i]) {
            rf__xlayer_unmeasured(p, li,
                                  "Pad whose declared output is not its input plus the pads");
            return RF_OK;
        }
        c.dims[i] = p->t[xu].dims[i];
        c.st[0][i] = ys[i];
        c.off += pads[i] * ys[i];
        c.n_idx *= p->t[Y].dims[i];
    }
    uint32_t io[2] = {xu, Y};
    rf__xlayer_measured(p, li, "c:pad");
    return rf__xstep_add_kernel(p, li, pad, io, 2, 1, &c);
}

/* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, the builders' View: the output is a
 * view of the input (no copy, no time). */
rf_status rf__xop_view(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t xu, Y = l->outputs[0];
    int ok;
    if (l->n_outputs != 1) {
        rf__xlayer_unmeasured(p, li, "a view with %u outputs", l->n_outputs);
        return RF_OK;
    }
    RF_TRY(rf__xinput0_plain(p, li, &xu, &ok));
    if (!ok) return RF_OK;
    {
        uint64_t nx = 1, ny = 1;
        for (uint32_t i = 0; i < p->t[xu].rank; i++) nx *= (uint64_t)p->t[xu].dims[i];
        for (uint32_t i = 0; i < p->t[Y].rank; i++) ny *= (uint64_t)p->t[Y].dims[i];
        if (nx != ny) {
            rf__xlayer_unmeasured(p, li, "%s changes the element count", l->op_type);
            return RF_OK;
        }
        dnnl_memory_desc_t md;
        rf__xdesc_plain(&md, p->t[Y].rank, p->t[Y].dims);
        rf__xtensor_define(p, Y, &md);
        p->t[Y].alias = xu;
        p->t[Y].weight = p->t[xu].weight; /* a view of a weight is packed once too */
        uint32_t io[2] = {xu, Y};
        rf__xlayer_measured(p, li, "c:view");
        return rf__xstep_add_kernel(p, li, NULL, io, 2, 1, NULL);
    }
}

/* rf_IfSelect (an If whose branches were both inlined): a view of the branch output the
 * condition's inferred value takes. The layers of the other branch still run. */
rf_status rf__xop_if_select(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    const rf_tensor *c = l->n_inputs == 3 && l->inputs[0] != RF_GRAPH_NO_TENSOR
                             ? &p->g->tensors[l->inputs[0]]
                             : NULL;
    if (!c || !c->values || c->n_values < 1 || l->n_outputs != 1) {
        rf__xlayer_unmeasured(p, li, "an If whose condition is known only when it runs");
        return RF_OK;
    }
    uint32_t xu, Y = l->outputs[0];
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[c->values[0] ? 1 : 2], &xu));
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, Y, &md);
    p->t[Y].alias = xu;
    uint32_t io[2] = {xu, Y};
    rf__xlayer_measured(p, li, "c:view");
    return rf__xstep_add_kernel(p, li, NULL, io, 2, 1, NULL);
}

/* Gather, Slice, Split, Expand, Pad, Tile, Shape, Size: C kernels that copy or describe data. */
rf_status rf__xop_data(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t xu, Y = l->outputs[0];
    int ok, dims_only = !strcmp(l->op_type, "Shape") || !strcmp(l->op_type, "Size");
    if (dims_only && l->n_inputs && l->inputs[0] != RF_GRAPH_NO_TENSOR && l->n_outputs)
        xu = l->inputs[0], ok = 1; /* only its dims are read: no plain copy */
    else
        RF_TRY(rf__xinput0_plain(p, li, &xu, &ok));
    if (!ok) return RF_OK;
    if (!strcmp(l->op_type, "Gather")) return gather_op(p, li, xu);
    if (!strcmp(l->op_type, "Slice")) return slice(p, li, xu);
    if (!strcmp(l->op_type, "Split")) return split(p, li, xu);
    if (!strcmp(l->op_type, "Pad")) return pad_op(p, li, xu);
    if (!strcmp(l->op_type, "Tile")) return mapped_op(p, li, xu, 0, NULL);
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    if (!strcmp(l->op_type, "Expand")) {
        out_dims(&p->t[Y], &c);
        if (!rf__xbroadcasts_to(&p->t[xu], c.rank, c.dims)) { /* the shape may be a graph input */
            rf__xlayer_unmeasured(p, li,
                                  "Expand to a declared shape its input does not broadcast to");
            return RF_OK;
        }
        rf__xbroadcast_strides(&p->t[xu], c.rank, c.dims, c.st[0]);
        uint32_t io[2] = {xu, Y};
        rf__xlayer_measured(p, li, "c:expand");
        return rf__xstep_add_kernel(p, li, strided_copy, io, 2, 1, &c);
    }
    /* Shape / Size: the input's dims (or the values shape inference found). */
    const rf_tensor *gy = &p->g->tensors[Y];
    uint64_t n = 1;
    rf_tensor_elems(gy, &n);
    if (n > RF_GRAPH_MAX_RANK) {
        rf__xlayer_unmeasured(p, li, "%s output too long", l->op_type);
        return RF_OK;
    }
    c.n_idx = (int64_t)n;
    for (uint64_t i = 0; i < n; i++)
        c.dims[i] = gy->values && gy->n_values == n ? gy->values[i]
                                                    : (i < p->t[xu].rank ? p->t[xu].dims[i] : 0);
    if (!strcmp(l->op_type, "Size")) {
        c.dims[0] = 1;
        for (uint32_t i = 0; i < p->t[xu].rank; i++) c.dims[0] *= p->t[xu].dims[i];
    }
    uint32_t io[2] = {xu, Y};
    rf__xlayer_measured(p, li, "c:shape");
    return rf__xstep_add_kernel(p, li, fill_values, io, 2, 1, &c);
}
