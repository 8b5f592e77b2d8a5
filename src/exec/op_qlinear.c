/* op_qlinear.c — ONNX's QLinear matrix ops on oneDNN's int8 primitives: QLinearMatMul as an int8
 * matmul, QLinearConv as an int8 convolution (through rf__xop_conv_as); ConvInteger and
 * MatMulInteger go to op_qint.c. Sources u8 or s8 (the graph's type), weights s8, s32
 * accumulation; the zero points and the output scales (x_scale * w_scale / y_scale, per output
 * channel when w_scale is) are oneDNN attributes fixed when the primitive is made, as ONNX Runtime
 * fixes them when it prepares the kernel; rounding (half to even), y_zero_point and saturation
 * are eltwise post-ops on an f32 destination. The executor keeps every tensor as f32 holding the
 * integer values, so the activation's conversion to 8 bits is a timed reorder (an extra layer)
 * and the weight's is packing, done once. Refused (not measured, reason given): scales or zero
 * points computed at run time (their values must be known to make the primitive), zero points
 * per row, weight zero points for a convolution other than 0 (oneDNN's int8 convolution has
 * none), weight values that do not fit s8 (u8 weights above 127), a batched B. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

#define Q_MAXV RF__XQ_MAXV /* values of a scale or zero point read when the primitive is made */

/* The values of a small tensor fed before the run (a weight, a constant or a graph input), as
 * the run will fill it; scales get positive synthetic values. 0 when produced by a layer or too
 * large. */
static int fed_vals(rf__xplan *p, uint32_t t, int scale, float *v, uint64_t *n)
{
    rf__xtensor *x = &p->t[t];
    if (!x->fill || !rf_tensor_elems(&p->g->tensors[t], n) || *n > Q_MAXV || *n == 0) return 0;
    if (scale) x->positive = 1;
    rf__exec_synth(p->g, t, x->positive, x->integer, v, *n);
    return 1;
}

/* A zero point (optional input) as one value: absent = 0; 0 when per-element and not uniform. */
static int common_zp(rf__xplan *p, uint32_t t, int32_t *zp, const char **why)
{
    float *v = p->qscratch[0]; /* scratch lives in the plan: two plans, two threads */
    uint64_t n = 0;
    *zp = 0;
    if (t == RF_GRAPH_NO_TENSOR) return 1;
    if (!fed_vals(p, t, 0, v, &n)) return *why = "a zero point computed at run time", 0;
    for (uint64_t i = 1; i < n; i++)
        if (v[i] != v[0]) return *why = "zero points per row or channel", 0;
    *zp = (int32_t)v[0];
    return 1;
}

static dnnl_data_type_t src_type(const rf__xplan *p, uint32_t t)
{
    return p->g->tensors[t].dtype == RF_DTYPE_I8 ? dnnl_s8 : dnnl_u8;
}

/* Weight values must fit s8: checked on the values the run will feed. */
static int weight_fits(rf__xplan *p, uint32_t t)
{
    const rf__xtensor *x = &p->t[t];
    uint64_t n = 0;
    if (!x->fill || !rf_tensor_elems(&p->g->tensors[t], &n)) return 0;
    if (p->g->tensors[t].dtype == RF_DTYPE_I8) return 1;
    float *v = rf__calloc(p->ctx, n ? n : 1, sizeof *v);
    if (!v) return 0;
    rf__exec_synth(p->g, t, x->positive, x->integer, v, n);
    int ok = 1;
    for (uint64_t i = 0; i < n && ok; i++) ok = v[i] >= -128 && v[i] <= 127;
    rf__free(p->ctx, v);
    return ok;
}

/* The attributes of one layer: p->attr's (scratchpad), zero points, output scales (scale[n],
 * mask over the destination's dims) and, for the QLinear ops, round + y_zero_point + saturation
 * (lo, hi) as post-ops. NULL when oneDNN refuses one. */
static dnnl_primitive_attr_t make_attr(rf__xplan *p, int32_t zx, int32_t zw, const float *sc,
                                       int64_t n, int mask, int qout, float zy, float lo, float hi)
{
    dnnl_primitive_attr_t a = NULL;
    dnnl_post_ops_t po = NULL;
    if (dnnl_primitive_attr_clone(&a, p->attr) != dnnl_success) return NULL;
    int ok = 1;
    if (zx) ok = dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &zx) == dnnl_success;
    if (ok && zw)
        ok = dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_WEIGHTS, 1, 0, &zw) == dnnl_success;
    if (ok && sc) ok = dnnl_primitive_attr_set_output_scales(a, n, mask, sc) == dnnl_success;
    if (ok && qout) {
        ok =
            dnnl_post_ops_create(&po) == dnnl_success &&
            dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_round, 0, 0) == dnnl_success &&
            dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, 1.0f, zy) == dnnl_success &&
            dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip, lo, hi) == dnnl_success &&
            dnnl_primitive_attr_set_post_ops(a, po) == dnnl_success;
    }
    if (po) dnnl_post_ops_destroy(po);
    if (!ok) {
        dnnl_primitive_attr_destroy(a);
        return NULL;
    }
    return a;
}

/* The QLinear ops' output scales x_s * w_s / y_s (per output channel when w_s is) and y's zero
 * point and range. 0 (why set) when a value is not known. */
static int qlinear_scales(rf__xplan *p, uint32_t xs, uint32_t ws, uint32_t ys, uint32_t yz,
                          int64_t channels, float *sc, int64_t *n, float *zy, float *lo, float *hi,
                          const char **why)
{
    float *a = p->qscratch[1], *b = p->qscratch[2], *c = p->qscratch[3];
    uint64_t na, nb, nc;
    if (!fed_vals(p, xs, 1, a, &na) || !fed_vals(p, ws, 1, b, &nb) || !fed_vals(p, ys, 1, c, &nc))
        return *why = "a scale computed at run time", 0;
    if (na != 1 || nc != 1 || (nb != 1 && (int64_t)nb != channels))
        return *why = "per-row scales", 0;
    *n = (int64_t)nb;
    for (uint64_t i = 0; i < nb; i++) sc[i] = a[0] * b[i] / c[0];
    int32_t z = 0;
    if (!common_zp(p, yz, &z, why)) return 0;
    *zy = (float)z;
    int s8 = yz != RF_GRAPH_NO_TENSOR && p->g->tensors[yz].dtype == RF_DTYPE_I8;
    *lo = s8 ? -128.0f : 0.0f;
    *hi = s8 ? 127.0f : 255.0f;
    return 1;
}

/* The int8 matmul: A [M, K] (any rank, rows flattened) u8/s8, B [K, N] s8, Y [M, N] f32. */
static rf_status qmatmul(rf__xplan *p, uint32_t li, uint32_t A, uint32_t B, uint32_t az,
                         uint32_t bz, const float *sc, int64_t nsc, int qout, float zy, float lo,
                         float hi)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0];
    const rf__xtensor *a = &p->t[A], *b = &p->t[B];
    const char *why = NULL;
    int32_t zx = 0, zw = 0;
    if (b->rank != 2 || a->rank < 1 || a->dims[a->rank - 1] != b->dims[0]) {
        rf__xlayer_unmeasured(p, li, "%s of a batched or mismatched B", l->op_type);
        return RF_OK;
    }
    if (!common_zp(p, az, &zx, &why) || !common_zp(p, bz, &zw, &why)) {
        rf__xlayer_unmeasured(p, li, "%s: %s", l->op_type, why);
        return RF_OK;
    }
    if (!weight_fits(p, B)) {
        rf__xlayer_unmeasured(p, li, "%s: B computed at run time or not within s8", l->op_type);
        return RF_OK;
    }
    int64_t K = b->dims[0], N = b->dims[1], M = 1;
    for (uint32_t i = 0; i + 1 < a->rank; i++) M *= a->dims[i];
    uint64_t ny = 0;
    if (!rf__mul_ok((uint64_t)M, (uint64_t)N, &ny) || rf__xtensor_elems(&p->t[Y]) != ny) {
        rf__xlayer_unmeasured(p, li, "%s output of %llu elements, computed %lldx%lld", l->op_type,
                              (unsigned long long)rf__xtensor_elems(&p->t[Y]), (long long)M,
                              (long long)N);
        return RF_OK;
    }
    dnnl_memory_desc_t af, am, bm, bw, ym;
    dnnl_memory_desc_init_by_strides(&af, 2, (dnnl_dims_t){M, K}, dnnl_f32, (dnnl_dims_t){K, 1});
    dnnl_memory_desc_init_by_strides(&am, 2, (dnnl_dims_t){M, K}, src_type(p, A),
                                     (dnnl_dims_t){K, 1});
    dnnl_memory_desc_init_by_strides(&bm, 2, (dnnl_dims_t){K, N}, dnnl_f32, (dnnl_dims_t){N, 1});
    dnnl_memory_desc_init_by_tag(&bw, 2, (dnnl_dims_t){K, N}, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_strides(&ym, 2, (dnnl_dims_t){M, N}, dnnl_f32, (dnnl_dims_t){N, 1});
    dnnl_primitive_attr_t at =
        make_attr(p, zx, zw, sc, nsc, nsc > 1 ? 1 << 1 : 0, qout, zy, lo, hi);
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = NULL;
    int ok = at && dnnl_matmul_desc_init(&md, &am, &bw, NULL, &ym) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &md, at, p->eng, NULL) == dnnl_success;
    if (at) dnnl_primitive_attr_destroy(at);
    if (!ok) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no int8 matmul for these zero points and scales");
        return RF_OK;
    }
    dnnl_memory_desc_t wm = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    uint32_t a0, au, bu;
    rf_status st = rf__xtensor_plain(p, li, A, &a0);
    if (st == RF_OK) st = rf__xtensor_convert(p, li, a0, &af, &am, &au);
    if (st == RF_OK) st = rf__xtensor_plain(p, li, B, &bu);
    if (st == RF_OK) st = rf__xtensor_convert(p, li, bu, &bm, &wm, &bu);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_memory_desc_t yplain;
    rf__xdesc_plain(&yplain, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, Y, &yplain);
    rf__xprim_arg args[3] = {{DNNL_ARG_SRC, au, am, NULL},
                             {DNNL_ARG_WEIGHTS, bu, wm, NULL},
                             {DNNL_ARG_DST, Y, ym, NULL}};
    rf__xlayer_measured(p, li, "onednn:matmul-int8");
    return rf__xstep_add_prim(p, li, -1, pd, args, 3);
}

static uint32_t in_at(const rf_layer *l, uint32_t i)
{
    return i < l->n_inputs ? l->inputs[i] : RF_GRAPH_NO_TENSOR;
}

/* The int8 convolution: zero point of x as an attribute, w's must be 0. */
static rf_status qconv(rf__xplan *p, uint32_t li, uint32_t X, uint32_t W, uint32_t xz, uint32_t wz,
                       uint32_t B, const float *sc, int64_t nsc, int qout, float zy, float lo,
                       float hi)
{
    const rf_layer *l = &p->g->layers[li];
    const char *why = NULL;
    int32_t zx = 0, zw = 0;
    if (!common_zp(p, xz, &zx, &why) || !common_zp(p, wz, &zw, &why)) {
        rf__xlayer_unmeasured(p, li, "%s: %s", l->op_type, why);
        return RF_OK;
    }
    if (zw != 0) {
        rf__xlayer_unmeasured(p, li,
                              "%s: weight zero point %d (oneDNN's int8 convolution has none)",
                              l->op_type, (int)zw);
        return RF_OK;
    }
    if (!weight_fits(p, W)) {
        rf__xlayer_unmeasured(p, li, "%s: weights computed at run time or not within s8",
                              l->op_type);
        return RF_OK;
    }
    dnnl_primitive_attr_t at = make_attr(p, zx, 0, sc, nsc, nsc > 1 ? 1 << 1 : 0, qout, zy, lo, hi);
    if (!at) {
        rf__xlayer_unmeasured(p, li, "oneDNN refuses these int8 attributes");
        return RF_OK;
    }
    rf_status st = rf__xop_conv_as(p, li, X, W, B, src_type(p, X), at, "onednn:convolution-int8");
    dnnl_primitive_attr_destroy(at);
    return st;
}

rf_status rf__xop_qlinear(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    const char *t = l->op_type, *why = NULL;
    float *sc = p->qscratch[4];
    int64_t n = 0;
    float zy = 0, lo = 0, hi = 0;
    if (!strcmp(t, "MatMulInteger")) return rf__xop_matmul_integer(p, li);
    if (!strcmp(t, "ConvInteger")) return rf__xop_conv_integer(p, li);
    int mm = !strcmp(t, "QLinearMatMul"), cv = !strcmp(t, "QLinearConv");
    if (!mm && !cv) {
        rf__xlayer_unmeasured(p, li, "no int8 kernel for op '%s'", t);
        return RF_OK;
    }
    if (l->n_inputs < 8) {
        rf__xlayer_unmeasured(p, li, "%s without its eight inputs", t);
        return RF_OK;
    }
    uint32_t W = l->inputs[3];
    int64_t ch = mm ? (p->t[W].rank == 2 ? p->t[W].dims[1] : -1) : p->t[W].dims[0];
    if (!qlinear_scales(p, l->inputs[1], l->inputs[4], l->inputs[6], l->inputs[7], ch, sc, &n, &zy,
                        &lo, &hi, &why)) {
        rf__xlayer_unmeasured(p, li, "%s: %s", t, why);
        return RF_OK;
    }
    if (mm)
        return qmatmul(p, li, l->inputs[0], W, l->inputs[2], l->inputs[5], sc, n, 1, zy, lo, hi);
    return qconv(p, li, l->inputs[0], W, l->inputs[2], l->inputs[5], in_at(l, 8), sc, n, 1, zy, lo,
                 hi);
}
