/* op_layers.c — the executor's structured layers on oneDNN: pooling (max, average, global),
 * batch and layer normalization, softmax, reductions, concat, transpose (a reorder) and
 * resampling. Pooling and batch norm keep their input's layout; the rest work on plain tensors.
 * Semantics: onnx/docs/Operators.md. */
#include <string.h>

#include "exec/exec_int.h"

static float attr_f(const rf_layer *l, const char *name, float def)
{
    const rf_attr *a = rf_layer_attr(l, name);
    if (!a) return def;
    return a->type == RF_ATTR_FLOAT ? (float)a->f : a->type == RF_ATTR_INT ? (float)a->i : def;
}

static void md_of(dnnl_memory_desc_t *md, int n, const int64_t *d)
{
    rf__xdesc_plain(md, (uint32_t)n, d);
}

rf_status rf__xop_pool(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0];
    const rf__xtensor *x = &p->t[X], *y = &p->t[Y];
    int r = (int)x->rank, sp = r - 2, global = !strncmp(l->op_type, "Global", 6);
    if (r < 3 || r > 5 || y->rank != x->rank) {
        rf__xlayer_unmeasured(p, li, "pooling of a rank-%d tensor", r);
        return RF_OK;
    }
    int64_t k[3], s[3], d[3], pl[3], pr[3], tmp[RF_GRAPH_MAX_RANK];
    int nk = rf__xattr_ints(l, "kernel_shape", tmp, RF_GRAPH_MAX_RANK);
    for (int i = 0; i < sp; i++) k[i] = global ? x->dims[2 + i] : nk == sp ? tmp[i] : 1;
    int ns = rf__xattr_ints(l, "strides", tmp, RF_GRAPH_MAX_RANK);
    for (int i = 0; i < sp; i++) s[i] = !global && ns == sp ? tmp[i] : 1;
    int nd = rf__xattr_ints(l, "dilations", tmp, RF_GRAPH_MAX_RANK);
    for (int i = 0; i < sp; i++) d[i] = !global && nd == sp ? tmp[i] : 1;
    if (global)
        memset(pl, 0, sizeof pl), memset(pr, 0, sizeof pr);
    else
        rf__xconv_pads(l, sp, x->dims + 2, y->dims + 2, k, s, d, pl, pr);
    dnnl_alg_kind_t alg = dnnl_pooling_max;
    if (strstr(l->op_type, "Average"))
        alg = rf_layer_attr_int(l, "count_include_pad", 0) ? dnnl_pooling_avg_include_padding
                                                           : dnnl_pooling_avg_exclude_padding;
    dnnl_dims_t ks, ss, ds, pls, prs, yd;
    for (int i = 0; i < sp; i++)
        ks[i] = k[i], ss[i] = s[i], ds[i] = d[i] - 1, pls[i] = pl[i], prs[i] = pr[i];
    for (int i = 0; i < r; i++) yd[i] = y->dims[i];
    dnnl_memory_desc_t xm = x->md, ya;
    dnnl_memory_desc_init_by_tag(&ya, r, yd, dnnl_f32, dnnl_format_tag_any);
    dnnl_pooling_v2_desc_t pdsc;
    dnnl_primitive_desc_t pd;
    if (dnnl_pooling_v2_forward_desc_init(&pdsc, dnnl_forward_inference, alg, &xm, &ya, ss, ks, ds,
                                          pls, prs) != dnnl_success ||
        !rf__xprim_desc(p, &pdsc, &pd)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no pooling for these parameters");
        return RF_OK;
    }
    dnnl_memory_desc_t ym = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    rf__xtensor_define(p, Y, &ym);
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, X, xm, NULL}, {DNNL_ARG_DST, Y, ym, NULL}};
    rf__xlayer_measured(p, li, "onednn:pooling");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

/* A 1-D plain view of weight/parameter input i of n elements (plain copy when needed). */
static rf_status vec_in(rf__xplan *p, uint32_t li, uint32_t i, int64_t n, rf__xprim_arg *a, int id)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t t = l->inputs[i], u;
    RF_TRY(rf__xtensor_plain(p, li, t, &u));
    *a = (rf__xprim_arg){id, u, {0}, NULL};
    md_of(&a->md, 1, &n);
    return RF_OK;
}

static int has_in(const rf_layer *l, uint32_t i, uint64_t want, const rf__xplan *p)
{
    uint64_t n;
    return i < l->n_inputs && l->inputs[i] != RF_GRAPH_NO_TENSOR &&
           rf_tensor_elems(&p->g->tensors[l->inputs[i]], &n) && n == want;
}

rf_status rf__xop_norm(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0];
    const rf__xtensor *x = &p->t[X];
    int bn = !strcmp(l->op_type, "BatchNormalization");
    float eps = attr_f(l, "epsilon", 1e-5f);
    int64_t C, rows = 1;
    dnnl_memory_desc_t md;
    if (!rf__xshape_is(p, li, Y, x->rank, x->dims)) return RF_OK; /* oneDNN writes x's size */
    if (bn) {
        C = x->rank >= 2 ? x->dims[1] : 0;
        md = x->md;
        if (x->rank < 2 || l->n_inputs < 5 || !has_in(l, 1, (uint64_t)C, p) ||
            !has_in(l, 2, (uint64_t)C, p) || !has_in(l, 3, (uint64_t)C, p) ||
            !has_in(l, 4, (uint64_t)C, p)) {
            rf__xlayer_unmeasured(p, li,
                                  "BatchNormalization needs X of rank >= 2 and four vectors of C");
            return RF_OK;
        }
        p->t[l->inputs[4]].positive = 1;
    } else {
        int64_t axis = rf_layer_attr_int(l, "axis", -1);
        axis = axis < 0 ? axis + (int64_t)x->rank : axis;
        C = 1;
        for (uint32_t i = 0; i < x->rank; i++) {
            if ((int64_t)i < axis)
                rows *= x->dims[i];
            else
                C *= x->dims[i];
        }
        md_of(&md, 2, (int64_t[]){rows, C});
        if (axis < 0 || axis >= (int64_t)x->rank || !has_in(l, 1, (uint64_t)C, p)) {
            rf__xlayer_unmeasured(p, li, "LayerNormalization axis or scale not supported");
            return RF_OK;
        }
    }
    int shift = has_in(l, 2, (uint64_t)C, p);
    unsigned flags =
        dnnl_use_scale | (shift ? dnnl_use_shift : 0) | (bn ? dnnl_use_global_stats : 0);
    dnnl_batch_normalization_desc_t bd;
    dnnl_layer_normalization_desc_t ld;
    dnnl_primitive_desc_t pd;
    int ok = bn ? dnnl_batch_normalization_forward_desc_init(&bd, dnnl_forward_inference, &md, eps,
                                                             flags) == dnnl_success &&
                      rf__xprim_desc(p, &bd, &pd)
                : dnnl_layer_normalization_forward_desc_init(&ld, dnnl_forward_inference, &md, NULL,
                                                             eps, flags) == dnnl_success &&
                      rf__xprim_desc(p, &ld, &pd);
    if (!ok) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no %s for this shape", l->op_type);
        return RF_OK;
    }
    rf__xprim_arg a[6];
    uint32_t n = 0, xu = X;
    rf_status st = bn ? RF_OK : rf__xtensor_plain(p, li, X, &xu);
    a[n++] = (rf__xprim_arg){DNNL_ARG_SRC, xu, md, NULL};
    a[n++] = (rf__xprim_arg){DNNL_ARG_DST, Y, md, NULL};
    if (st == RF_OK) st = vec_in(p, li, 1, C, &a[n++], DNNL_ARG_SCALE);
    if (st == RF_OK && shift) st = vec_in(p, li, 2, C, &a[n++], DNNL_ARG_SHIFT);
    if (st == RF_OK && bn) st = vec_in(p, li, 3, C, &a[n++], DNNL_ARG_MEAN);
    if (st == RF_OK && bn) st = vec_in(p, li, 4, C, &a[n++], DNNL_ARG_VARIANCE);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    if (bn) rf__xtensor_define(p, Y, &md);
    rf__xlayer_measured(p, li, bn ? "onednn:batch_normalization" : "onednn:layer_normalization");
    return rf__xstep_add_prim(p, li, -1, pd, a, n);
}

/* LRN (ONNX: x / (bias + alpha / size * sum of squares over `size` channels)^beta) is oneDNN's
 * across-channel LRN with k = bias; oneDNN divides alpha by the local size as ONNX does. */
rf_status rf__xop_lrn(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t xu, Y = l->outputs[0];
    int64_t size = rf_layer_attr_int(l, "size", 0);
    if (!l->n_inputs || l->inputs[0] == RF_GRAPH_NO_TENSOR || size <= 0 ||
        p->t[l->inputs[0]].rank < 3) {
        rf__xlayer_unmeasured(p, li, "LRN needs an input of rank >= 3 and a size");
        return RF_OK;
    }
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &xu));
    if (!rf__xshape_is(p, li, Y, p->t[xu].rank, p->t[xu].dims)) return RF_OK;
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[xu].rank, p->t[xu].dims);
    dnnl_lrn_desc_t ld;
    dnnl_primitive_desc_t pd;
    if (dnnl_lrn_forward_desc_init(&ld, dnnl_forward_inference, dnnl_lrn_across_channels, &md, size,
                                   attr_f(l, "alpha", 1e-4f), attr_f(l, "beta", 0.75f),
                                   attr_f(l, "bias", 1.0f)) != dnnl_success ||
        !rf__xprim_desc(p, &ld, &pd)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no LRN for this shape");
        return RF_OK;
    }
    rf__xtensor_define(p, Y, &md);
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, xu, md, NULL}, {DNNL_ARG_DST, Y, md, NULL}};
    rf__xlayer_measured(p, li, "onednn:lrn");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

rf_status rf__xop_softmax(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0], xu;
    const rf__xtensor *x = &p->t[X];
    int r = x->rank ? (int)x->rank : 1;
    int64_t axis = rf_layer_attr_int(l, "axis", p->g->opset && p->g->opset < 13 ? 1 : -1);
    axis = axis < 0 ? axis + r : axis;
    dnnl_memory_desc_t md;
    if (axis < 0 || axis >= r) {
        rf__xlayer_unmeasured(p, li, "softmax axis out of range");
        return RF_OK;
    }
    if (!rf__xshape_is(p, li, Y, x->rank, x->dims)) return RF_OK; /* oneDNN writes x's size */
    if (p->g->opset && p->g->opset < 13) {                        /* coerced to 2-D at axis */
        int64_t d2[2] = {1, 1};
        for (int i = 0; i < r; i++) d2[i < axis ? 0 : 1] *= x->rank ? x->dims[i] : 1;
        md_of(&md, 2, d2);
        axis = 1;
    } else {
        rf__xdesc_plain(&md, x->rank, x->dims);
    }
    dnnl_softmax_desc_t sd;
    dnnl_logsoftmax_desc_t lsd;
    dnnl_primitive_desc_t pd;
    int log = !strcmp(l->op_type, "LogSoftmax");
    int ok = log ? dnnl_logsoftmax_forward_desc_init(&lsd, dnnl_forward_inference, &md,
                                                     (int)axis) == dnnl_success &&
                       rf__xprim_desc(p, &lsd, &pd)
                 : dnnl_softmax_forward_desc_init(&sd, dnnl_forward_inference, &md, (int)axis) ==
                           dnnl_success &&
                       rf__xprim_desc(p, &sd, &pd);
    if (!ok) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no softmax for this shape");
        return RF_OK;
    }
    rf_status st = rf__xtensor_plain(p, li, X, &xu);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, xu, md, NULL}, {DNNL_ARG_DST, Y, md, NULL}};
    rf__xlayer_measured(p, li, log ? "onednn:logsoftmax" : "onednn:softmax");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

rf_status rf__xop_reduce(rf__xplan *p, uint32_t li)
{
    static const struct {
        const char *op;
        dnnl_alg_kind_t alg;
        float p;
    } map[] = {{"ReduceMean", dnnl_reduction_mean, 0},
               {"ReduceSum", dnnl_reduction_sum, 0},
               {"ReduceMax", dnnl_reduction_max, 0},
               {"ReduceMin", dnnl_reduction_min, 0},
               {"ReduceProd", dnnl_reduction_mul, 0},
               {"ReduceL1", dnnl_reduction_norm_lp_sum, 1},
               {"ReduceL2", dnnl_reduction_norm_lp_sum, 2},
               {"ReduceSumSquare", dnnl_reduction_norm_lp_power_p_sum, 2}};
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0], xu;
    const rf__xtensor *x = &p->t[X];
    size_t m = 0;
    /* ReduceLogSum: the sum with log as an eltwise post-op */
    int logsum = !strcmp(l->op_type, "ReduceLogSum");
    while (m < sizeof map / sizeof map[0] && strcmp(map[m].op, logsum ? "ReduceSum" : l->op_type))
        m++;
    int64_t axes[RF_GRAPH_MAX_RANK];
    int na = rf__xattr_ints(l, "axes", axes, RF_GRAPH_MAX_RANK);
    if (na < 0 && l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR) {
        const rf_tensor *t = &p->g->tensors[l->inputs[1]];
        if (!t->values || t->n_values > RF_GRAPH_MAX_RANK) {
            rf__xlayer_unmeasured(p, li, "reduction axes not known");
            return RF_OK;
        }
        na = (int)t->n_values;
        memcpy(axes, t->values, (size_t)na * sizeof *axes);
    }
    int64_t yd[RF_GRAPH_MAX_RANK];
    uint32_t r = x->rank ? x->rank : 1;
    for (uint32_t i = 0; i < r; i++) yd[i] = x->rank ? (na > 0 ? x->dims[i] : 1) : 1;
    for (int i = 0; i < na; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + (int64_t)r : axes[i];
        if (a < 0 || a >= (int64_t)r) {
            rf__xlayer_unmeasured(p, li, "reduction axis out of range");
            return RF_OK;
        }
        yd[a] = 1;
    }
    uint64_t ny = 1;
    for (uint32_t i = 0; i < r; i++) ny *= (uint64_t)yd[i]; /* <= nel(x) */
    if (ny != rf__xtensor_elems(&p->t[Y])) { /* keepdims or not, the count oneDNN writes */
        rf__xlayer_unmeasured(p, li, "reduction output declared with %llu elements, computed %llu",
                              (unsigned long long)rf__xtensor_elems(&p->t[Y]),
                              (unsigned long long)ny);
        return RF_OK;
    }
    /* Every reduced axis of size 1: Mean, Sum, Max, Min and Prod are the input itself, which
     * oneDNN refuses to "reduce" (its source and destination would be equal). */
    if (ny == rf__xtensor_elems(x) && !logsum && m < sizeof map / sizeof map[0] && map[m].p == 0 &&
        map[m].alg != dnnl_reduction_norm_lp_power_p_sum)
        return rf__xop_view(p, li);
    dnnl_memory_desc_t xm, ym;
    rf__xdesc_plain(&xm, x->rank, x->dims);
    md_of(&ym, (int)r, yd);
    dnnl_reduction_desc_t rd;
    dnnl_primitive_desc_t pd = NULL;
    int ok = m < sizeof map / sizeof map[0] &&
             dnnl_reduction_desc_init(&rd, map[m].alg, &xm, &ym, map[m].p, 0) == dnnl_success;
    if (ok && logsum) {
        dnnl_primitive_attr_t at = NULL;
        dnnl_post_ops_t po = NULL;
        ok = dnnl_primitive_attr_clone(&at, p->attr) == dnnl_success &&
             dnnl_post_ops_create(&po) == dnnl_success &&
             dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_log, 0.0f, 0.0f) == dnnl_success &&
             dnnl_primitive_attr_set_post_ops(at, po) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &rd, at, p->eng, NULL) == dnnl_success;
        if (po) dnnl_post_ops_destroy(po);
        if (at) dnnl_primitive_attr_destroy(at);
    } else if (ok) {
        ok = rf__xprim_desc(p, &rd, &pd);
    }
    if (!ok) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        rf__xlayer_unmeasured(p, li, "oneDNN has no reduction for this case");
        return RF_OK;
    }
    rf_status st = rf__xtensor_plain(p, li, X, &xu);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, xu, xm, NULL}, {DNNL_ARG_DST, Y, ym, NULL}};
    rf__xlayer_measured(p, li, "onednn:reduction");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

/* The layout a Concat runs in: that of the first input in one of the common activation
 * layouts of rank R other than plain (nhwc-like or channel-blocked: what convs hand on); the
 * others are reordered to it. dnnl_format_tag_undef: plain. */
static dnnl_format_tag_t concat_tag(const rf__xplan *p, const rf_layer *l, int R)
{
    static const dnnl_format_tag_t tags[][3] = {
        {dnnl_acb, dnnl_aBc16b, dnnl_aBc8b},
        {dnnl_acdb, dnnl_aBcd16b, dnnl_aBcd8b},
        {dnnl_acdeb, dnnl_aBcde16b, dnnl_aBcde8b},
    };
    if (R < 3 || R > 5) return dnnl_format_tag_undef;
    for (uint32_t i = 0; i < l->n_inputs; i++) {
        uint32_t t = l->inputs[i];
        if (t == RF_GRAPH_NO_TENSOR || p->t[t].rank != (uint32_t)R) continue;
        dnnl_dims_t d;
        for (int k = 0; k < R; k++) d[k] = p->t[t].dims[k];
        for (int k = 0; k < 3; k++) {
            dnnl_memory_desc_t m;
            if (dnnl_memory_desc_init_by_tag(&m, R, d, dnnl_f32, tags[R - 3][k]) == dnnl_success &&
                dnnl_memory_desc_equal(&m, &p->t[t].md))
                return tags[R - 3][k];
        }
    }
    return dnnl_format_tag_undef;
}

/* md of tensor t in `tag` (its dims), or plain when tag is undef. */
static void concat_md(const rf__xtensor *t, dnnl_format_tag_t tag, dnnl_memory_desc_t *md)
{
    dnnl_dims_t d;
    for (uint32_t i = 0; i < t->rank; i++) d[i] = t->dims[i];
    if (tag == dnnl_format_tag_undef ||
        dnnl_memory_desc_init_by_tag(md, (int)t->rank, d, dnnl_f32, tag) != dnnl_success)
        rf__xdesc_plain(md, t->rank, t->dims);
}

/* Is the concat primitive pd oneDNN's reference one (one element at a time)? */
static int concat_ref(const_dnnl_primitive_desc_t pd)
{
    const char *name = NULL;
    return dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) == dnnl_success &&
           name && strstr(name, "ref");
}

rf_status rf__xop_concat(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0], n = 0;
    int r = p->t[Y].rank ? (int)p->t[Y].rank : 1;
    int64_t axis = rf_layer_attr_int(l, "axis", 0);
    axis = axis < 0 ? axis + r : axis;
    if (axis < 0 || axis >= r) { /* before any dims[axis] is read */
        rf__xlayer_unmeasured(p, li, "Concat axis out of range");
        return RF_OK;
    }
    dnnl_memory_desc_t *mds = rf__calloc(p->ctx, l->n_inputs + 1, sizeof *mds), ym;
    rf__xprim_arg *a = rf__calloc(p->ctx, l->n_inputs + 1, sizeof *a);
    rf_status st = RF_OK;
    if (!mds || !a) {
        st = RF_NOMEM_ERR(p->ctx);
        goto done;
    }
    /* in the inputs' layout when they share one (no reorders between convs and the concat),
     * else (or when oneDNN would concat that layout one element at a time) plain */
    dnnl_format_tag_t tag = concat_tag(p, l, r);
    dnnl_primitive_desc_t pd = NULL;
    for (int k = 0; k < 2 && !pd; k++, tag = dnnl_format_tag_undef) {
        if (k && tag == dnnl_format_tag_undef) break;
        n = 0;
        for (uint32_t i = 0; i < l->n_inputs; i++) {
            uint32_t t = l->inputs[i];
            if (t == RF_GRAPH_NO_TENSOR || (p->t[t].rank && p->t[t].dims[axis] == 0)) continue;
            concat_md(&p->t[t], p->t[t].rank == (uint32_t)r ? tag : dnnl_format_tag_undef, &mds[n]);
            a[n] = (rf__xprim_arg){DNNL_ARG_MULTIPLE_SRC + (int)n, t, mds[n], NULL};
            n++;
        }
        concat_md(&p->t[Y], tag, &ym);
        if (!n || dnnl_concat_primitive_desc_create(&pd, &ym, (int)n, (int)axis, mds, p->attr,
                                                    p->eng) != dnnl_success)
            pd = NULL;
        if (pd && tag != dnnl_format_tag_undef && concat_ref(pd)) {
            dnnl_primitive_desc_destroy(pd);
            pd = NULL;
        }
    }
    if (!pd) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no concat for these inputs");
        goto done;
    }
    for (uint32_t i = 0; i < n && st == RF_OK; i++) {
        dnnl_memory_desc_t pl;
        rf__xdesc_plain(&pl, p->t[a[i].t].rank, p->t[a[i].t].dims);
        if (dnnl_memory_desc_equal(&mds[i], &p->t[a[i].t].md)) continue;
        st = dnnl_memory_desc_equal(&mds[i], &pl)
                 ? rf__xtensor_plain(p, li, a[i].t, &a[i].t)
                 : rf__xtensor_convert(p, li, a[i].t, NULL, &mds[i], &a[i].t);
    }
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        goto done;
    }
    rf__xtensor_define(p, Y, &ym);
    a[n] = (rf__xprim_arg){DNNL_ARG_DST, Y, ym, NULL};
    rf__xlayer_measured(p, li, "onednn:concat");
    st = rf__xstep_add_prim(p, li, -1, pd, a, n + 1);
done:
    rf__free(p->ctx, mds);
    rf__free(p->ctx, a);
    return st;
}

rf_status rf__xop_transpose(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0], xu;
    const rf__xtensor *x = &p->t[X];
    int r = (int)x->rank;
    int64_t perm[RF_GRAPH_MAX_RANK], xs[RF_GRAPH_MAX_RANK], acc = 1;
    int np = rf__xattr_ints(l, "perm", perm, RF_GRAPH_MAX_RANK);
    if (np < 0)
        for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
    else if (np != r) {
        rf__xlayer_unmeasured(p, li, "Transpose perm of %d axes for rank %d", np, r);
        return RF_OK;
    }
    if (r == 0) r = 1, perm[0] = 0;
    for (int i = r - 1; i >= 0; i--) xs[i] = acc, acc *= x->rank ? x->dims[i] : 1;
    dnnl_dims_t vd, vs;
    for (int i = 0; i < r; i++) {
        if (perm[i] < 0 || perm[i] >= r) {
            rf__xlayer_unmeasured(p, li, "Transpose perm out of range");
            return RF_OK;
        }
        vd[i] = x->rank ? x->dims[perm[i]] : 1, vs[i] = xs[perm[i]];
    }
    dnnl_memory_desc_t view, ym;
    memset(&view, 0, sizeof view);
    dnnl_memory_desc_init_by_strides(&view, r, vd, dnnl_f32, vs);
    rf__xdesc_plain(&ym, p->t[Y].rank, p->t[Y].dims);
    dnnl_primitive_desc_t pd;
    if (dnnl_reorder_primitive_desc_create(&pd, &view, p->eng, &ym, p->eng, p->attr) !=
        dnnl_success) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no reorder for this permutation");
        return RF_OK;
    }
    rf_status st = rf__xtensor_plain(p, li, X, &xu);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    rf__xprim_arg a[2] = {{DNNL_ARG_FROM, xu, view, NULL}, {DNNL_ARG_TO, Y, ym, NULL}};
    rf__xlayer_measured(p, li, "onednn:reorder");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

rf_status rf__xop_resize(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = l->inputs[0], Y = l->outputs[0];
    const rf__xtensor *x = &p->t[X], *y = &p->t[Y];
    const rf_attr *m = rf_layer_attr(l, "mode");
    const char *mode = m && m->type == RF_ATTR_STRING ? m->s : "nearest";
    int r = (int)x->rank;
    if (!strcmp(mode, "cubic")) return rf__xop_resize_cubic(p, li);
    dnnl_alg_kind_t alg = !strcmp(mode, "nearest")  ? dnnl_resampling_nearest
                          : !strcmp(mode, "linear") ? dnnl_resampling_linear
                                                    : dnnl_alg_kind_undef;
    if (r < 3 || r > 5 || y->rank != x->rank || x->dims[0] != y->dims[0] ||
        x->dims[1] != y->dims[1] || alg == dnnl_alg_kind_undef) {
        rf__xlayer_unmeasured(p, li, "resize mode '%s' or shape not supported", mode);
        return RF_OK;
    }
    float f[3];
    for (int i = 0; i < r - 2; i++) f[i] = (float)y->dims[2 + i] / (float)x->dims[2 + i];
    dnnl_memory_desc_t xm = x->md, ya;
    dnnl_dims_t yd;
    for (int i = 0; i < r; i++) yd[i] = y->dims[i];
    dnnl_memory_desc_init_by_tag(&ya, r, yd, dnnl_f32, dnnl_format_tag_any);
    dnnl_resampling_desc_t rd;
    dnnl_primitive_desc_t pd;
    if (dnnl_resampling_forward_desc_init(&rd, dnnl_forward_inference, alg, f, &xm, &ya) !=
            dnnl_success ||
        !rf__xprim_desc(p, &rd, &pd)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no resampling for this case");
        return RF_OK;
    }
    dnnl_memory_desc_t ym = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    rf__xtensor_define(p, Y, &ym);
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, X, xm, NULL}, {DNNL_ARG_DST, Y, ym, NULL}};
    rf__xlayer_measured(p, li, "onednn:resampling");
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}
