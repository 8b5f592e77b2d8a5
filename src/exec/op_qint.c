/* op_qint.c — ConvInteger and MatMulInteger as ONNX Runtime's dynamic quantisation exports them:
 * the input's zero point computed at run time (DynamicQuantizeLinear's output), u8 weights with a
 * zero point per tensor or per output channel. oneDNN 2.6's int8 primitives take s8 weights, a
 * zero point for the source (given at run time) and none for the weights, so the weights' zero
 * point is folded in exactly: with o = 128 for u8 weights (0 for s8),
 *     sum (x - zx)(w - zw[c]) = sum (x - zx)(w - o) + (o - zw[c]) * sum (x - zx),
 * the first term oneDNN's int8 kernel (s32 accumulator, w - o fits s8), the second a box sum of
 * the shifted input over each output's window (a row sum for MatMulInteger) times a per-channel
 * integer, added in wrapping 32-bit arithmetic and converted to float once, as ONNX Runtime's
 * int32 output is by the Cast after it (bit-exact while the result fits int32, as ONNX Runtime
 * needs; the steps that run are in qint_run.c).
 * When w - zw fits s8 with one zero point, the weights are shifted by it and no term is added.
 * The padding of ConvInteger holds the zero point (contributes 0), as in ONNX Runtime and oneDNN.
 * Refused (not measured, reason given): a zero point of x with more than one value, weights
 * computed at run time, 3-D convolutions that need the term, a batched B. */
#include <string.h>

#include "exec/qint.h"

/* The values a fed tensor (weight, zero point) gets, in a new buffer (NULL: not fed, or no
 * memory). */
static float *fed_values(rf__xplan *p, uint32_t t, uint64_t *n)
{
    const rf__xtensor *x = &p->t[t];
    if (!x->fill || !rf_tensor_elems(&p->g->tensors[t], n) || *n == 0) return NULL;
    float *v = rf__calloc(p->ctx, *n, sizeof *v);
    if (v) rf__exec_synth(p->g, t, x->positive, x->integer, v, *n);
    return v;
}

/* How the weights W [co, ...] (channel c = index / per) with zero point wz (absent, one value or
 * one per channel) become s8: *shift to take away from every value, *term set when the
 * per-channel term is needed. 0 with *why when they cannot. */
static int weight_plan(rf__xplan *p, uint32_t W, uint32_t wz, int64_t co, float *shift, int *term,
                       int *per, const char **why)
{
    uint64_t n = 0, nz = 0;
    float *w = fed_values(p, W, &n), *z = NULL;
    int ok = 0, s8 = p->g->tensors[W].dtype == RF_DTYPE_I8;
    *per = 0, *term = 0, *shift = 0;
    if (!w) return *why = "weights computed at run time", 0;
    if (wz != RF_GRAPH_NO_TENSOR) {
        z = fed_values(p, wz, &nz);
        if (!z) {
            *why = "a weight zero point computed at run time";
            goto done;
        }
        if (nz != 1 && (int64_t)nz != co) {
            *why = "weight zero points neither one nor one per output channel";
            goto done;
        }
        *per = nz > 1;
    }
    float lo = w[0], hi = w[0];
    for (uint64_t i = 1; i < n; i++) lo = w[i] < lo ? w[i] : lo, hi = w[i] > hi ? w[i] : hi;
    int common = 1;
    for (uint64_t i = 1; i < nz; i++) common = common && z[i] == z[0];
    float z0 = z ? z[0] : 0.0f;
    if (lo < (s8 ? -128 : 0) || hi > (s8 ? 127 : 255)) {
        *why = s8 ? "s8 weights outside -128..127" : "u8 weights outside 0..255";
        goto done;
    }
    /* values the file does not give are synthetic: decide as the real ones would need (ONNX
     * Runtime's quantiser spreads u8 weights over 0..255 around a zero point) */
    int known = p->g->tensors[W].values && (wz == RF_GRAPH_NO_TENSOR || p->g->tensors[wz].values);
    if (!known && (!s8 || wz != RF_GRAPH_NO_TENSOR)) {
        *shift = s8 ? 0.0f : 128.0f;
        *term = 1;
    } else if (common && lo - z0 >= -128 && hi - z0 <= 127) {
        *shift = z0; /* w - zw fits s8: shifted once, nothing to add */
    } else {
        *shift = s8 ? 0.0f : 128.0f;
        *term = 1;
    }
    ok = 1;
done:
    rf__free(p->ctx, w);
    rf__free(p->ctx, z);
    return ok;
}

/* W's values minus shift, as a weight tensor packed once (W itself when shift is 0). */
static rf_status shifted_weight(rf__xplan *p, uint32_t W, float shift, uint32_t *out)
{
    *out = W;
    if (shift == 0.0f) return RF_OK;
    RF_TRY(rf__xtensor_add(p, &p->t[W], out));
    rf__xtensor *x = &p->t[*out];
    rf__xtensor_define(p, *out, &p->t[W].md);
    x->fill = x->weight = x->persistent = 1;
    x->shift_of = W, x->shift = shift;
    x->src = W;
    return RF_OK;
}

/* ---- the run-time zero point: f32 value to the s32 oneDNN reads ---- */

static void zp_to_s32(const rf__xstep *s)
{
    int32_t v = (int32_t)s->ptr[0][0];
    memcpy(s->ptr[1], &v, sizeof v);
}

/* Tensor zt (one value, f32) as a one-element s32 tensor written by a C step of layer li. */
static rf_status zp_s32(rf__xplan *p, uint32_t li, uint32_t zt, uint32_t *out)
{
    rf__xtensor like = {0};
    like.rank = 1, like.dims[0] = 1;
    uint32_t z0;
    RF_TRY(rf__xtensor_plain(p, li, zt, &z0));
    RF_TRY(rf__xtensor_add(p, &like, out));
    dnnl_memory_desc_t md;
    dnnl_memory_desc_init_by_tag(&md, 1, (dnnl_dims_t){1}, dnnl_s32, dnnl_a);
    rf__xtensor_define(p, *out, &md);
    uint32_t io[2] = {z0, *out};
    return rf__xstep_add_kernel(p, li, zp_to_s32, io, 2, 1, NULL);
}

/* An attribute with the plan's scratchpad and a run-time zero point for the source. */
static dnnl_primitive_attr_t zp_attr(rf__xplan *p, int with_zp)
{
    dnnl_primitive_attr_t a = NULL;
    if (dnnl_primitive_attr_clone(&a, p->attr) != dnnl_success) return NULL;
    const int32_t rt = DNNL_RUNTIME_S32_VAL;
    if (with_zp &&
        dnnl_primitive_attr_set_zero_points(a, DNNL_ARG_SRC, 1, 0, &rt) != dnnl_success) {
        dnnl_primitive_attr_destroy(a);
        return NULL;
    }
    return a;
}

/* ---- the fused chain (planning) ---- */

typedef struct qchain {
    uint32_t layer[4], n; /* the fused layers, in order */
    uint32_t y;           /* the tensor the step writes: the last one's output (Y when none) */
    uint32_t mul, add;    /* their operands (graph tensors), or RF__XNONE */
    int op;               /* RF__QP_* */
} qchain;

static int same_dims(const rf__xtensor *a, const rf__xtensor *b)
{
    if (a->rank != b->rank) return 0;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return 1;
}

/* Is t (ready) one value, or C values along axis `axis` of a rank-R output (1 elsewhere)? */
static int operand_kind(const rf__xtensor *t, uint32_t R, uint32_t axis, int64_t C, int *per)
{
    uint64_t n = rf__xtensor_elems(t);
    *per = 0;
    if (!t->ready) return 0;
    if (n == 1) return 1;
    if ((int64_t)n != C || t->rank > R) return 0;
    uint32_t lead = R - t->rank; /* NumPy: t's dims are the output's last ones */
    for (uint32_t i = 0; i < t->rank; i++)
        if (t->dims[i] != (i + lead == axis ? C : 1)) return 0;
    return *per = 1;
}

static uint32_t other_input(const rf_layer *l, uint32_t t)
{
    if (l->n_inputs != 2) return RF__XNONE;
    return l->inputs[0] == t ? l->inputs[1] : l->inputs[1] == t ? l->inputs[0] : RF__XNONE;
}

/* The chain after Y (channels C along `axis`): Cast to float, Mul by one value, Add of one or C
 * values, Relu, in that order, each optional. */
static void chain_find(rf__xplan *p, uint32_t Y, uint32_t axis, int64_t C, qchain *q)
{
    int stage = 0;
    uint32_t t = Y;
    memset(q, 0, sizeof *q);
    q->y = Y, q->mul = q->add = RF__XNONE;
    while (q->n < 4) {
        uint32_t li = t < p->g->n_tensors ? p->consumer[t] : RF__XNONE;
        if (li == RF__XNONE || p->layers[li].fused_into >= 0) break;
        const rf_layer *l = &p->g->layers[li];
        if (l->n_outputs != 1 || !same_dims(&p->t[l->outputs[0]], &p->t[Y])) break;
        uint32_t o = other_input(l, t);
        int per = 0;
        if (!strcmp(l->op_type, "Cast") && stage < 1 && l->n_inputs == 1 &&
            rf_layer_attr_int(l, "to", 0) == 1) {
            stage = 1;
        } else if (!strcmp(l->op_type, "Mul") && stage < 2 && o != RF__XNONE &&
                   operand_kind(&p->t[o], p->t[Y].rank, axis, C, &per) && !per) {
            q->mul = o, q->op |= RF__QP_MUL, stage = 2;
        } else if (!strcmp(l->op_type, "Add") && stage < 3 && o != RF__XNONE &&
                   operand_kind(&p->t[o], p->t[Y].rank, axis, C, &per)) {
            q->add = o, q->op |= RF__QP_ADD | (per ? RF__QP_ADD_PER : 0), stage = 3;
        } else if (!strcmp(l->op_type, "Relu") && stage < 4 && l->n_inputs == 1) {
            q->op |= RF__QP_RELU, stage = 4;
        } else {
            break;
        }
        q->layer[q->n++] = li;
        t = q->y = l->outputs[0];
    }
}

/* After the step: the chain's layers reported as fused into li (a share of its time by their
 * work), their outputs views of the one the step writes. */
static void chain_commit(rf__xplan *p, uint32_t li, uint32_t Y, const qchain *q, double work)
{
    rf__xfuse_commit(p, li, Y, q->layer, q->n, q->y, work);
    for (uint32_t k = 0; k < q->n; k++) rf__xlayer_measured(p, q->layer[k], "c:fused-int8-post");
}

/* The geometry of a ConvInteger as 2-D (a 1-D one has H = 1): 0 with *why when not supported. */
static int conv_geometry(rf__xplan *p, uint32_t li, uint32_t X, uint32_t W, uint32_t Y,
                         rf__xkernel_args *c, const char **why)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__xtensor *x = &p->t[X], *w = &p->t[W], *y = &p->t[Y];
    int r = (int)x->rank, sp = r - 2;
    int64_t g = rf_layer_attr_int(l, "group", 1), cin;
    if (r < 3 || r > 4 || (int)w->rank != r || (int)y->rank != r)
        return *why = "only 1-D and 2-D ConvInteger run", 0;
    if (g < 1 || x->dims[1] % g || w->dims[0] % g || !rf__i64_mul(w->dims[1], g, &cin) ||
        cin != x->dims[1] || y->dims[0] != x->dims[0] || y->dims[1] != w->dims[0])
        return *why = "weights or output that do not agree with the input", 0;
    int64_t k[2] = {1, 1}, s[2] = {1, 1}, d[2] = {1, 1}, pl[2] = {0, 0}, pr[2] = {0, 0};
    int64_t in[2] = {1, 1}, out[2] = {1, 1}, tmp[2];
    int o = 2 - sp; /* 1-D: the W axis only */
    for (int i = 0; i < sp; i++) {
        k[o + i] = w->dims[2 + i], in[o + i] = x->dims[2 + i], out[o + i] = y->dims[2 + i];
    }
    if (rf__xattr_ints(l, "strides", tmp, 2) == sp)
        for (int i = 0; i < sp; i++) s[o + i] = tmp[i];
    if (rf__xattr_ints(l, "dilations", tmp, 2) == sp)
        for (int i = 0; i < sp; i++) d[o + i] = tmp[i];
    rf__xconv_pads(l, sp, x->dims + 2, y->dims + 2, w->dims + 2, s + o, d + o, pl + o, pr + o);
    for (int i = 0; i < 2; i++)
        if (k[i] < 1 || s[i] < 1 || d[i] < 1 || pl[i] < 0 || pr[i] < 0 ||
            (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 != in[i] + pl[i] + pr[i])
            return *why = "strides, dilations or pads that do not give the output's size", 0;
    int64_t *g0 = c->st[0], *kk = c->st[1];
    g0[G_N] = x->dims[0], g0[G_C] = x->dims[1], g0[G_H] = in[0], g0[G_W] = in[1];
    g0[G_G] = g, g0[G_CO] = y->dims[1], g0[G_OH] = out[0], g0[G_OW] = out[1];
    kk[K_KH] = k[0], kk[K_KW] = k[1], kk[K_SH] = s[0], kk[K_SW] = s[1];
    kk[K_DH] = d[0], kk[K_DW] = d[1], kk[K_PT] = pl[0], kk[K_PL] = pl[1];
    c->st[2][F_PB] = pr[0], c->st[2][F_PR] = pr[1]; /* for the descriptor */
    return 1;
}

/* An input zero point: absent, or one value (fed or computed). 0 with *why otherwise. */
static int input_zp_ok(rf__xplan *p, uint32_t xz, const char **why)
{
    if (xz == RF_GRAPH_NO_TENSOR) return 1;
    if (rf__xtensor_elems(&p->t[xz]) != 1) return *why = "input zero points per row", 0;
    return 1;
}

static rf_status conv_steps(rf__xplan *p, uint32_t li, rf__xkernel_args *c, uint32_t X, uint32_t Wd,
                            uint32_t xz, uint32_t wz, dnnl_data_type_t xdt)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0];
    const int64_t *g0 = c->st[0], *k = c->st[1];
    int64_t G = g0[G_G];
    dnnl_dims_t xd = {g0[G_N], g0[G_C], g0[G_H], g0[G_W]};
    dnnl_dims_t yd = {g0[G_N], g0[G_CO], g0[G_OH], g0[G_OW]};
    dnnl_dims_t wd = {G, g0[G_CO] / G, g0[G_C] / G, k[K_KH], k[K_KW]};
    dnnl_dims_t st = {k[K_SH], k[K_SW]}, dl = {k[K_DH] - 1, k[K_DW] - 1};
    dnnl_dims_t pdl = {k[K_PT], k[K_PL]}, pdr = {c->st[2][F_PB], c->st[2][F_PR]};
    dnnl_memory_desc_t xf, xq, wa, wplain, ya;
    dnnl_memory_desc_init_by_tag(&xf, 4, xd, dnnl_f32, dnnl_abcd);
    dnnl_memory_desc_init_by_tag(&xq, 4, xd, xdt, dnnl_acdb);
    dnnl_memory_desc_init_by_tag(&ya, 4, yd, dnnl_s32, dnnl_acdb);
    int wr = G > 1 ? 5 : 4;
    dnnl_dims_t wdp;
    for (int i = 0; i < wr; i++) wdp[i] = wd[i + 5 - wr];
    dnnl_memory_desc_init_by_tag(&wa, wr, wdp, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wplain, wr, wdp, dnnl_f32, G > 1 ? dnnl_abcde : dnnl_abcd);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_attr_t at = zp_attr(p, xz != RF_GRAPH_NO_TENSOR);
    int ok = at &&
             dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                                        dnnl_convolution_direct, &xq, &wa, NULL,
                                                        &ya, st, dl, pdl, pdr) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &cd, at, p->eng, NULL) == dnnl_success;
    if (at) dnnl_primitive_attr_destroy(at);
    if (!ok) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no int8 convolution for these parameters");
        return RF_OK;
    }
    dnnl_memory_desc_t wm = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    uint32_t x0, xu, wu, zi = RF__XNONE, A;
    rf_status s0 = RF_OK;
    c->n_idx = dnnl_memory_desc_equal(&p->t[X].md, &xq); /* the quantiser wrote u8 nhwc */
    if (c->n_idx)
        x0 = xu = X;
    else if ((s0 = rf__xtensor_plain(p, li, X, &x0)) == RF_OK)
        s0 = rf__xtensor_convert(p, li, x0, &xf, &xq, &xu);
    if (s0 == RF_OK) s0 = rf__xtensor_convert(p, li, Wd, &wplain, &wm, &wu);
    if (s0 == RF_OK && xz != RF_GRAPH_NO_TENSOR) s0 = zp_s32(p, li, xz, &zi);
    rf__xtensor like = {0};
    like.rank = 4;
    memcpy(like.dims, yd, 4 * sizeof *like.dims);
    if (s0 == RF_OK) s0 = rf__xtensor_add(p, &like, &A);
    if (s0 != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return s0;
    }
    rf__xtensor_define(p, A, &ya);
    rf__xprim_arg args[4] = {{DNNL_ARG_SRC, xu, xq, NULL},
                             {DNNL_ARG_WEIGHTS, wu, wm, NULL},
                             {DNNL_ARG_DST, A, ya, NULL},
                             {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zi, {0}, NULL}};
    if (zi != RF__XNONE) args[3].md = p->t[zi].md;
    RF_TRY(rf__xstep_add_prim(p, li, -1, pd, args, zi != RF__XNONE ? 4 : 3));
    /* the finishing step */
    uint32_t io[8], n = 0, S = RF__XNONE;
    io[n++] = A;
    if (c->st[2][F_TERM]) io[n++] = x0;
    if (xz != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, xz, &io[n++]));
    if (wz != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, wz, &io[n++]));
    qchain q;
    chain_find(p, Y, 1, g0[G_CO], &q);
    c->op = q.op;
    if (q.mul != RF__XNONE) RF_TRY(rf__xtensor_plain(p, li, q.mul, &io[n++]));
    if (q.add != RF__XNONE) RF_TRY(rf__xtensor_plain(p, li, q.add, &io[n++]));
    if (c->st[2][F_TERM]) {
        int64_t a = g0[G_N] * G * g0[G_H] * g0[G_W], b = g0[G_N] * G * g0[G_OH] * g0[G_OW];
        rf__xtensor sl = {0};
        sl.rank = 1, sl.dims[0] = a + b;
        RF_TRY(rf__xtensor_add(p, &sl, &S));
        dnnl_memory_desc_t sm;
        dnnl_memory_desc_init_by_tag(&sm, 1, (dnnl_dims_t){a + b}, dnnl_s32, dnnl_a);
        rf__xtensor_define(p, S, &sm);
        io[n++] = S;
        c->st[2][F_SCRATCH_SPLIT] = a;
    }
    dnnl_memory_desc_t yplain;
    rf__xdesc_plain(&yplain, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, q.y, &yplain);
    io[n++] = q.y;
    c->st[2][F_XZ] = xz != RF_GRAPH_NO_TENSOR;
    c->st[2][F_WZ] = wz != RF_GRAPH_NO_TENSOR;
    rf__xlayer_measured(p, li, "onednn:convolution-int8");
    /* the scratch is written, so it counts as an output */
    RF_TRY(rf__xstep_add_kernel(p, li, rf__xqint_conv_finish, io, n, S != RF__XNONE ? n - 2 : n - 1,
                                c));
    chain_commit(p, li, Y, &q,
                 2.0 * (double)rf__xtensor_elems(&p->t[Y]) * (double)(g0[G_C] / G) *
                     (double)(k[K_KH] * k[K_KW]));
    return RF_OK;
}

rf_status rf__xop_conv_integer(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = rf__xinput_at(l, 0), W = rf__xinput_at(l, 1), xz = rf__xinput_at(l, 2),
             wz = rf__xinput_at(l, 3), Y = l->outputs[0];
    const char *why = NULL;
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    float shift = 0;
    int term = 0, per = 0;
    if (X == RF_GRAPH_NO_TENSOR || W == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "ConvInteger without its input or weights");
        return RF_OK;
    }
    if (!conv_geometry(p, li, X, W, Y, &c, &why) || !input_zp_ok(p, xz, &why) ||
        !weight_plan(p, W, wz, p->t[W].dims[0], &shift, &term, &per, &why)) {
        rf__xlayer_unmeasured(p, li, "ConvInteger: %s", why);
        return RF_OK;
    }
    /* the term's sums stay within int32: |x - zx| <= 255 over C/G * KH * KW values */
    double most = 255.0 * (double)(c.st[0][G_C] / c.st[0][G_G]) * (double)c.st[1][K_KH] *
                  (double)c.st[1][K_KW];
    if (term && most > 2147483647.0) {
        rf__xlayer_unmeasured(p, li, "ConvInteger: windows too large for the zero-point term");
        return RF_OK;
    }
    c.st[2][F_OFF] = (int64_t)shift;
    c.st[2][F_WZ_PER] = per;
    c.st[2][F_TERM] = term;
    if (!term) wz = RF_GRAPH_NO_TENSOR; /* folded into the weights */
    uint32_t Wd;
    RF_TRY(shifted_weight(p, W, shift, &Wd));
    dnnl_data_type_t xdt = p->g->tensors[X].dtype == RF_DTYPE_I8 ? dnnl_s8 : dnnl_u8;
    return conv_steps(p, li, &c, X, Wd, xz, wz, xdt);
}

/* ---- MatMulInteger: the same term over rows ---- */

rf_status rf__xop_matmul_integer(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t A = rf__xinput_at(l, 0), B = rf__xinput_at(l, 1), az = rf__xinput_at(l, 2),
             bz = rf__xinput_at(l, 3), Y = l->outputs[0];
    const char *why = NULL;
    if (A == RF_GRAPH_NO_TENSOR || B == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger without its two inputs");
        return RF_OK;
    }
    const rf__xtensor *a = &p->t[A], *b = &p->t[B];
    if (b->rank != 2 || a->rank < 1 || a->dims[a->rank - 1] != b->dims[0]) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger of a batched or mismatched B");
        return RF_OK;
    }
    int64_t K = b->dims[0], N = b->dims[1], M = 1;
    for (uint32_t i = 0; i + 1 < a->rank; i++) M *= a->dims[i];
    uint64_t ny = 0;
    if (!rf__mul_ok((uint64_t)M, (uint64_t)N, &ny) || rf__xtensor_elems(&p->t[Y]) != ny) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger output of %llu elements, computed %lldx%lld",
                              (unsigned long long)rf__xtensor_elems(&p->t[Y]), (long long)M,
                              (long long)N);
        return RF_OK;
    }
    float shift = 0;
    int term = 0, per = 0;
    if (!input_zp_ok(p, az, &why) || !weight_plan(p, B, bz, N, &shift, &term, &per, &why)) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger: %s", why);
        return RF_OK;
    }
    if (term && 255.0 * (double)K > 2147483647.0) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger: rows too long for the zero-point term");
        return RF_OK;
    }
    /* B [K, N]: a per-column zero point is one per output channel (per-row ones are refused) */
    if (per && p->t[bz].rank >= 1 && p->t[bz].dims[p->t[bz].rank - 1] != N) {
        rf__xlayer_unmeasured(p, li, "MatMulInteger: weight zero points per row");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.st[0][0] = M, c.st[0][1] = K, c.st[0][2] = N;
    c.st[2][F_OFF] = (int64_t)shift;
    c.st[2][F_WZ_PER] = per;
    c.st[2][F_TERM] = term;
    if (!term) bz = RF_GRAPH_NO_TENSOR;
    uint32_t Bd;
    RF_TRY(shifted_weight(p, B, shift, &Bd));
    dnnl_data_type_t xdt = p->g->tensors[A].dtype == RF_DTYPE_I8 ? dnnl_s8 : dnnl_u8;
    dnnl_memory_desc_t af, aq, bf, bw, ym;
    dnnl_memory_desc_init_by_tag(&af, 2, (dnnl_dims_t){M, K}, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&aq, 2, (dnnl_dims_t){M, K}, xdt, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&bf, 2, (dnnl_dims_t){K, N}, dnnl_f32, dnnl_ab);
    dnnl_memory_desc_init_by_tag(&bw, 2, (dnnl_dims_t){K, N}, dnnl_s8, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&ym, 2, (dnnl_dims_t){M, N}, dnnl_s32, dnnl_ab);
    dnnl_primitive_attr_t at = zp_attr(p, az != RF_GRAPH_NO_TENSOR);
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = NULL;
    int ok = at && dnnl_matmul_desc_init(&md, &aq, &bw, NULL, &ym) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &md, at, p->eng, NULL) == dnnl_success;
    if (at) dnnl_primitive_attr_destroy(at);
    if (!ok) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no int8 matmul for these zero points");
        return RF_OK;
    }
    dnnl_memory_desc_t wm = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    uint32_t a0, au, bu, zi = RF__XNONE, S;
    rf_status s0 = rf__xtensor_plain(p, li, A, &a0);
    if (s0 == RF_OK) s0 = rf__xtensor_convert(p, li, a0, &af, &aq, &au);
    if (s0 == RF_OK) s0 = rf__xtensor_convert(p, li, Bd, &bf, &wm, &bu);
    if (s0 == RF_OK && az != RF_GRAPH_NO_TENSOR) s0 = zp_s32(p, li, az, &zi);
    rf__xtensor like = {0};
    like.rank = 2, like.dims[0] = M, like.dims[1] = N;
    if (s0 == RF_OK) s0 = rf__xtensor_add(p, &like, &S);
    if (s0 != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return s0;
    }
    rf__xtensor_define(p, S, &ym);
    rf__xprim_arg args[4] = {{DNNL_ARG_SRC, au, aq, NULL},
                             {DNNL_ARG_WEIGHTS, bu, wm, NULL},
                             {DNNL_ARG_DST, S, ym, NULL},
                             {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zi, {0}, NULL}};
    if (zi != RF__XNONE) args[3].md = p->t[zi].md;
    RF_TRY(rf__xstep_add_prim(p, li, -1, pd, args, zi != RF__XNONE ? 4 : 3));
    uint32_t io[8], n = 0;
    io[n++] = S;
    if (term) io[n++] = a0;
    if (az != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, az, &io[n++]));
    if (bz != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, bz, &io[n++]));
    qchain q;
    chain_find(p, Y, p->t[Y].rank - 1, N, &q);
    c.op = q.op;
    if (q.mul != RF__XNONE) RF_TRY(rf__xtensor_plain(p, li, q.mul, &io[n++]));
    if (q.add != RF__XNONE) RF_TRY(rf__xtensor_plain(p, li, q.add, &io[n++]));
    dnnl_memory_desc_t yplain;
    rf__xdesc_plain(&yplain, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, q.y, &yplain);
    io[n++] = q.y;
    c.st[2][F_XZ] = az != RF_GRAPH_NO_TENSOR;
    c.st[2][F_WZ] = bz != RF_GRAPH_NO_TENSOR;
    rf__xlayer_measured(p, li, "onednn:matmul-int8");
    RF_TRY(rf__xstep_add_kernel(p, li, rf__xqint_mm_finish, io, n, n - 1, &c));
    chain_commit(p, li, Y, &q, 2.0 * (double)M * (double)K * (double)N);
    return RF_OK;
}
