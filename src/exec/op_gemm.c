/* op_gemm.c — the executor's matrix layers on oneDNN: Conv (1-D to 3-D, groups, depthwise,
 * stride, dilation, explicit or automatic pads) and ConvTranspose (deconvolution) with the
 * layouts oneDNN picks (format `any`),
 * Gemm (transA/transB, bias) and MatMul (batched, broadcast batch dims) as oneDNN matmul.
 * Weights are packed once before the passes; activations are reordered by timed extra steps. */
#include <string.h>

#include "exec/exec_int.h"

void rf__xconv_pads(const rf_layer *l, int sp, const int64_t *in, const int64_t *out,
                    const int64_t *k, const int64_t *s, const int64_t *d, int64_t *pl, int64_t *pr)
{
    int64_t pads[2 * RF_GRAPH_MAX_RANK] = {0};
    int np = rf__xattr_ints(l, "pads", pads, 2 * RF_GRAPH_MAX_RANK);
    const rf_attr *ap = rf_layer_attr(l, "auto_pad");
    const char *mode = ap && ap->type == RF_ATTR_STRING ? ap->s : "NOTSET";
    for (int i = 0; i < sp; i++) {
        int64_t total = (out[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in[i];
        if (!strcmp(mode, "SAME_UPPER"))
            pl[i] = total > 0 ? total / 2 : 0;
        else if (!strcmp(mode, "SAME_LOWER"))
            pl[i] = total > 0 ? total - total / 2 : 0;
        else
            pl[i] = np == 2 * sp ? pads[i] : 0;
        pr[i] = total - pl[i];
    }
}

static void spatial_attr(const rf_layer *l, const char *name, int sp, int64_t def, int64_t *v)
{
    int64_t tmp[RF_GRAPH_MAX_RANK];
    int n = rf__xattr_ints(l, name, tmp, RF_GRAPH_MAX_RANK);
    for (int i = 0; i < sp; i++) v[i] = n == sp ? tmp[i] : def;
}

/* A (de)convolution's fusion: the layers run as its post-ops and their operands. */
#define RF__XFUSE_MAX 4
typedef struct rf__xfused {
    uint32_t layer[RF__XFUSE_MAX], n;
    rf__xprim_arg arg[RF__XFUSE_MAX]; /* binary post-ops' operands */
    uint32_t n_arg, y;                /* y: the tensor the kernel writes */
} rf__xfused;

/* The step of a (de)convolution primitive `pd`: X reordered to what it picked, the plain weight
 * W (seen as `wplain`) packed once, the bias B plain (may be absent), Y defined in its layout;
 * with f (not NULL), the kernel writes f->y and reads the binary post-ops' operands. */
static rf_status conv_step(rf__xplan *p, uint32_t li, dnnl_primitive_desc_t pd, uint32_t X,
                           uint32_t W, const dnnl_memory_desc_t *wplain, uint32_t B,
                           const dnnl_memory_desc_t *bm, uint32_t Y, const char *kernel,
                           rf__xfused *f)
{
    dnnl_memory_desc_t xm = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    dnnl_memory_desc_t wm = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_desc_t ym = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    uint32_t xu, wu, bu = 0;
    rf_status st0 = rf__xtensor_convert(p, li, X, NULL, &xm, &xu);
    if (st0 == RF_OK) st0 = rf__xtensor_convert(p, li, W, wplain, &wm, &wu);
    if (st0 == RF_OK && B != RF_GRAPH_NO_TENSOR) st0 = rf__xtensor_plain(p, li, B, &bu);
    if (st0 == RF_OK && f) st0 = rf__xfuse_operands(p, li, f->arg, f->n_arg);
    if (st0 != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st0;
    }
    uint32_t Yw = f ? f->y : Y; /* with post-ops: the last fused layer's output */
    rf__xtensor_define(p, Yw, &ym);
    rf__xprim_arg a[4 + RF__XFUSE_MAX] = {{DNNL_ARG_SRC, xu, xm, NULL},
                                          {DNNL_ARG_WEIGHTS, wu, wm, NULL},
                                          {DNNL_ARG_DST, Yw, ym, NULL},
                                          {DNNL_ARG_BIAS, bu, *bm, NULL}};
    uint32_t n = B != RF_GRAPH_NO_TENSOR ? 4 : 3;
    for (uint32_t k = 0; f && k < f->n_arg; k++) a[n++] = f->arg[k];
    rf__xlayer_measured(p, li, kernel);
    return rf__xstep_add_prim(p, li, -1, pd, a, n);
}

/* The bias of a (de)convolution writing Y: B, or when it has none, the constant per-channel
 * operand of an Add right after it (that Add then runs as part of the kernel: f->layer[0], and
 * f->y is its output). */
static uint32_t fused_bias(rf__xplan *p, uint32_t Y, uint32_t B, rf__xfused *f)
{
    f->n = f->n_arg = 0;
    f->y = Y;
    if (B != RF_GRAPH_NO_TENSOR) return B;
    uint32_t add, b = rf__xfuse_bias(p, Y, &add);
    if (b == RF__XNONE) return RF_GRAPH_NO_TENSOR;
    f->layer[f->n++] = add;
    f->y = p->g->layers[add].outputs[0];
    return b;
}

/* Is oneDNN's implementation `pd` a generic one (im2col GEMM, reference)? */
static int generic_impl(const_dnnl_primitive_desc_t pd)
{
    const char *name = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) != dnnl_success || !name)
        return 0;
    return strstr(name, "gemm") || strstr(name, "ref");
}

/* One try of fused_desc: the chain after f->y (binary post-ops only when `binary`) in *pd, or
 * NULL and f untouched. */
static void chain_desc(rf__xplan *p, const void *desc, dnnl_primitive_desc_t *pd, rf__xfused *f,
                       uint32_t max, int binary, const dnnl_memory_desc_t *like)
{
    dnnl_post_ops_t po = NULL;
    dnnl_primitive_attr_t at = NULL;
    rf__xfused g = *f;
    *pd = NULL;
    uint32_t more = 0;
    if (dnnl_post_ops_create(&po) == dnnl_success)
        more =
            rf__xfuse_chain(p, f->y, po, g.layer + f->n, g.arg, &g.n_arg, max, binary, like, &g.y);
    if (more && dnnl_primitive_attr_clone(&at, p->attr) == dnnl_success &&
        dnnl_primitive_attr_set_post_ops(at, po) == dnnl_success &&
        dnnl_primitive_desc_create(pd, desc, at, p->eng, NULL) == dnnl_success) {
        g.n += more;
        *f = g;
    } else {
        *pd = NULL;
    }
    if (po) dnnl_post_ops_destroy(po);
    if (at) dnnl_primitive_attr_destroy(at);
}

/* The primitive descriptor of (de)convolution desc of layer li with up to max element-wise
 * layers that follow f->y (its output, or the Add fused_bias took) fused in as post-ops (*f);
 * without them when oneDNN refuses the post-ops. A binary post-op whose operand's layout
 * oneDNN's direct kernels do not take sends it to im2col GEMM (a residual in nhwc next to a
 * conv that wants nChw16c: 3x slower than the conv plus a separate Add): then a residual is
 * read in the layout the conv writes (reordered before it), and if that does not help either,
 * the chain stops before the first binary post-op. 1 on success, 0: no primitive. */
static int fused_desc(rf__xplan *p, const void *desc, const dnnl_memory_desc_t *xmd,
                      dnnl_primitive_desc_t *pd, rf__xfused *f, uint32_t max)
{
    dnnl_primitive_desc_t base = NULL;
    rf__xfused f0 = *f;
    dnnl_convolution_desc_t in_place;
    *pd = NULL;
    if (xmd && *(const dnnl_primitive_kind_t *)desc == dnnl_convolution) {
        /* the input in the layout it arrived in (a chain of convs: no reorder between them),
         * when a direct kernel takes it */
        memcpy(&in_place, desc, sizeof in_place);
        in_place.src_desc = *xmd;
        if (rf__xprim_desc(p, &in_place, &base) && !generic_impl(base))
            desc = &in_place;
        else if (base)
            dnnl_primitive_desc_destroy(base);
        base = desc == &in_place ? base : NULL;
    }
    if (!base && !rf__xprim_desc(p, desc, &base)) return 0;
    const dnnl_memory_desc_t *dst = dnnl_primitive_desc_query_md(base, dnnl_query_dst_md, 0);
    /* a convolution's activation layouts as the kernel without post-ops picked them, not `any`
     * (the direct kernels take a binary post-op only with them fixed); weights stay `any` */
    dnnl_convolution_desc_t cd;
    int fixed = *(const dnnl_primitive_kind_t *)desc == dnnl_convolution && dst;
    if (fixed) {
        memcpy(&cd, desc, sizeof cd);
        cd.src_desc = *dnnl_primitive_desc_query_md(base, dnnl_query_src_md, 0);
        cd.dst_desc = *dst;
    }
    for (int k = 0; max && k < 3 && !*pd; k++) { /* residual as it is, in dst's layout, none */
        *f = f0;
        chain_desc(p, k == 1 && fixed ? (const void *)&cd : desc, pd, f, max, k < 2,
                   k == 1 ? dst : NULL);
        if (*pd && generic_impl(*pd) && !generic_impl(base)) {
            dnnl_primitive_desc_destroy(*pd);
            *pd = NULL;
        }
    }
    if (*pd) {
        dnnl_primitive_desc_destroy(base);
        return 1;
    }
    *f = f0;
    *pd = base;
    return 1;
}

/* FLOPs of a (de)convolution per pass, 2 per multiply-add (docs/cost-model.md "Conv"): each
 * element of `big` (a conv's output, a deconv's input) meets w's elements / w->dims[0] weights.
 * The weight of its share of a fused kernel's time. */
static double conv_work(const rf__xtensor *big, const rf__xtensor *w)
{
    return 2.0 * (double)rf__xtensor_elems(big) * (double)rf__xtensor_elems(w) /
           (double)(w->dims[0] > 0 ? w->dims[0] : 1);
}

rf_status rf__xop_conv(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "Conv without weights");
        return RF_OK;
    }
    uint32_t B = l->n_inputs > 2 ? l->inputs[2] : RF_GRAPH_NO_TENSOR;
    return rf__xop_conv_as(p, li, l->inputs[0], l->inputs[1], B, dnnl_f32, NULL,
                           "onednn:convolution");
}

rf_status rf__xop_conv_as(rf__xplan *p, uint32_t li, uint32_t X, uint32_t W, uint32_t B,
                          dnnl_data_type_t xdt, const_dnnl_primitive_attr_t attr,
                          const char *kernel)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0];
    const rf__xtensor *x = &p->t[X], *w = &p->t[W], *y = &p->t[Y];
    int r = (int)x->rank, sp = r - 2;
    int64_t g = rf_layer_attr_int(l, "group", 1);
    int64_t cin;
    if (r < 3 || r > 5 || (int)w->rank != r || y->rank != x->rank || g < 1 || x->dims[1] % g ||
        w->dims[0] % g) {
        rf__xlayer_unmeasured(p, li, "Conv shape not supported (input rank %d, group %lld)", r,
                              (long long)g);
        return RF_OK;
    }
    /* operands oneDNN would read by the shapes it is given: W's input channels, Y's batch and
     * channels, the bias length (checked here; oneDNN's JIT code is not bounds-checked) */
    if (!rf__i64_mul(w->dims[1], g, &cin) || cin != x->dims[1] || y->dims[0] != x->dims[0] ||
        y->dims[1] != w->dims[0] ||
        (B != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[B]) != (uint64_t)w->dims[0])) {
        rf__xlayer_unmeasured(p, li,
                              "Conv whose weights, bias or output do not agree with its input");
        return RF_OK;
    }
    int64_t k[3], s[3], d[3], pl[3], pr[3];
    for (int i = 0; i < sp; i++) k[i] = w->dims[2 + i];
    spatial_attr(l, "strides", sp, 1, s);
    spatial_attr(l, "dilations", sp, 1, d);
    rf__xconv_pads(l, sp, x->dims + 2, y->dims + 2, k, s, d, pl, pr);
    dnnl_dims_t xd, wd, yd, st, dl, pdl, pdr;
    for (int i = 0; i < r; i++) xd[i] = x->dims[i], yd[i] = y->dims[i];
    int wr = g > 1 ? r + 1 : r;
    if (g > 1) {
        wd[0] = g, wd[1] = w->dims[0] / g, wd[2] = w->dims[1];
        for (int i = 0; i < sp; i++) wd[3 + i] = k[i];
    } else {
        for (int i = 0; i < r; i++) wd[i] = w->dims[i];
    }
    for (int i = 0; i < sp; i++) st[i] = s[i], dl[i] = d[i] - 1, pdl[i] = pl[i], pdr[i] = pr[i];
    dnnl_memory_desc_t xa, wa, ya, bm, wplain;
    dnnl_memory_desc_init_by_tag(&xa, r, xd, xdt, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wa, wr, wd, xdt == dnnl_f32 ? dnnl_f32 : dnnl_s8,
                                 dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&ya, r, yd, dnnl_f32, dnnl_format_tag_any);
    rf__xdesc_plain(&bm, 1, (const int64_t[]){w->dims[0]});
    int64_t wdims[RF_GRAPH_MAX_RANK + 1];
    for (int i = 0; i < wr; i++) wdims[i] = wd[i];
    rf__xdesc_plain(&wplain, (uint32_t)wr, wdims);
    dnnl_convolution_desc_t cd;
    dnnl_primitive_desc_t pd;
    rf__xfused f;
    dnnl_memory_desc_t xplain;
    rf__xdesc_plain(&xplain, x->rank, x->dims);
    int plain_x = dnnl_memory_desc_equal(&xplain, &x->md) || x->md.data_type != xdt;
    uint32_t bn = RF__XNONE;
    if (!attr && xdt == dnnl_f32) {
        RF_TRY(rf__xfold_bn(p, li, Y, &W, &B, &bn));
        x = &p->t[X], w = &p->t[W], y = &p->t[Y]; /* adding tensors moves p->t */
    }
    if (!attr) B = fused_bias(p, Y, B, &f);
    if (bn != RF__XNONE) { /* the convolution writes the BatchNormalization's output */
        f.layer[f.n++] = bn;
        f.y = p->g->layers[bn].outputs[0];
    }
    if (dnnl_dilated_convolution_forward_desc_init(
            &cd, dnnl_forward_inference, dnnl_convolution_direct, &xa, &wa,
            B != RF_GRAPH_NO_TENSOR ? &bm : NULL, &ya, st, dl, pdl, pdr) != dnnl_success ||
        (attr ? dnnl_primitive_desc_create(&pd, &cd, attr, p->eng, NULL) != dnnl_success
              : !fused_desc(p, &cd, plain_x ? NULL : &x->md, &pd, &f, RF__XFUSE_MAX - f.n))) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no %sconvolution for these parameters",
                              xdt == dnnl_f32 ? "" : "int8 ");
        return RF_OK;
    }
    double work = conv_work(y, w); /* before conv_step: adding copies moves p->t */
    RF_TRY(conv_step(p, li, pd, X, W, &wplain, B, &bm, Y, kernel, attr ? NULL : &f));
    if (!attr) rf__xfuse_commit(p, li, Y, f.layer, f.n, f.y, work);
    return RF_OK;
}

/* ConvTranspose as oneDNN deconvolution. ONNX's weight is (C_in, C_out/group, k...): oneDNN's
 * (C_out, C_in, k...) in the `iohw` order (per group: `giohw`), so the plain weight is described
 * with that tag and reordered once to what the primitive picks. Pads: the convolution that goes
 * back from Y to X has the same padding, so rf__xconv_pads runs with input and output swapped; an
 * output_padding shows up as a smaller right padding. */
rf_status rf__xop_deconv(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "ConvTranspose without weights");
        return RF_OK;
    }
    uint32_t X = l->inputs[0], W = l->inputs[1], Y = l->outputs[0];
    uint32_t B = l->n_inputs > 2 ? l->inputs[2] : RF_GRAPH_NO_TENSOR;
    const rf__xtensor *x = &p->t[X], *w = &p->t[W], *y = &p->t[Y];
    int r = (int)x->rank, sp = r - 2;
    int64_t g = rf_layer_attr_int(l, "group", 1);
    if (r < 3 || r > 5 || (int)w->rank != r || y->rank != x->rank || g < 1 || x->dims[1] % g ||
        w->dims[0] != x->dims[1] || w->dims[1] * g != y->dims[1]) {
        rf__xlayer_unmeasured(p, li,
                              "ConvTranspose shape not supported (input rank %d, group %lld)", r,
                              (long long)g);
        return RF_OK;
    }
    if (y->dims[0] != x->dims[0] ||
        (B != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[B]) != (uint64_t)y->dims[1])) {
        rf__xlayer_unmeasured(p, li, "ConvTranspose whose bias or output batch does not agree");
        return RF_OK;
    }
    int64_t k[3], s[3], d[3], pl[3], pr[3];
    for (int i = 0; i < sp; i++) k[i] = w->dims[2 + i];
    spatial_attr(l, "strides", sp, 1, s);
    spatial_attr(l, "dilations", sp, 1, d);
    rf__xconv_pads(l, sp, y->dims + 2, x->dims + 2, k, s, d, pl, pr);
    dnnl_dims_t xd, wd, yd, st, dl, pdl, pdr;
    for (int i = 0; i < r; i++) xd[i] = x->dims[i], yd[i] = y->dims[i];
    int wr = g > 1 ? r + 1 : r;
    if (g > 1) {
        wd[0] = g, wd[1] = y->dims[1] / g, wd[2] = x->dims[1] / g;
        for (int i = 0; i < sp; i++) wd[3 + i] = k[i];
    } else {
        wd[0] = y->dims[1], wd[1] = x->dims[1];
        for (int i = 0; i < sp; i++) wd[2 + i] = k[i];
    }
    for (int i = 0; i < sp; i++) st[i] = s[i], dl[i] = d[i] - 1, pdl[i] = pl[i], pdr[i] = pr[i];
    /* ONNX's bytes, (g, I/g, O/g, k...), seen in oneDNN's dims order (g, O/g, I/g, k...) */
    dnnl_dims_t ws;
    int64_t kk = 1, ig = x->dims[1] / g, og = y->dims[1] / g;
    for (int i = sp - 1; i >= 0; i--) {
        ws[wr - sp + i] = kk;
        kk *= k[i];
    }
    ws[wr - sp - 2] = kk;      /* O/g */
    ws[wr - sp - 1] = og * kk; /* I/g */
    if (g > 1) ws[0] = ig * og * kk;
    dnnl_memory_desc_t xa, wa, ya, bm, wplain;
    dnnl_memory_desc_init_by_tag(&xa, r, xd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wa, wr, wd, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&ya, r, yd, dnnl_f32, dnnl_format_tag_any);
    memset(&wplain, 0, sizeof wplain);
    dnnl_memory_desc_init_by_strides(&wplain, wr, wd, dnnl_f32, ws);
    rf__xdesc_plain(&bm, 1, (const int64_t[]){y->dims[1]});
    dnnl_deconvolution_desc_t cd;
    dnnl_primitive_desc_t pd;
    rf__xfused f;
    /* nothing fused, no bias taken from an Add: oneDNN 2.6 runs an f32 deconvolution as a
     * backward-data convolution and then applies bias and post-ops in a loop of its own (3x and
     * 15x the kernel's time on a 2x2 stride-2 ConvTranspose); the Add runs as its own binary */
    f.n = f.n_arg = 0;
    f.y = Y;
    if (dnnl_dilated_deconvolution_forward_desc_init(
            &cd, dnnl_forward_inference, dnnl_deconvolution_direct, &xa, &wa,
            B != RF_GRAPH_NO_TENSOR ? &bm : NULL, &ya, st, dl, pdl, pdr) != dnnl_success ||
        !fused_desc(p, &cd, NULL, &pd, &f, 0)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no deconvolution for these parameters");
        return RF_OK;
    }
    double work = conv_work(x, w); /* before conv_step: adding copies moves p->t */
    RF_TRY(conv_step(p, li, pd, X, W, &wplain, B, &bm, Y, "onednn:deconvolution", &f));
    rf__xfuse_commit(p, li, Y, f.layer, f.n, f.y, work);
    return RF_OK;
}

/* Strided 2-D (or batched) view of a plain tensor's bytes: dims d[n], element strides s[n]. */
static void md_strided(dnnl_memory_desc_t *md, int n, const dnnl_dim_t *d, const dnnl_dim_t *s)
{
    dnnl_dims_t dd = {0}, ss = {0};
    for (int i = 0; i < n; i++) dd[i] = d[i], ss[i] = s[i];
    memset(md, 0, sizeof *md);
    dnnl_memory_desc_init_by_strides(md, n, dd, dnnl_f32, ss);
}

/* A oneDNN matmul step: A viewed as am (plain bytes of tensor A), B as bm (packed when a
 * weight), optional bias C viewed as cm, output Y viewed as ym. */
static rf_status matmul_step(rf__xplan *p, uint32_t li, uint32_t A, const dnnl_memory_desc_t *am,
                             uint32_t Bt, const dnnl_memory_desc_t *bm, uint32_t C,
                             const dnnl_memory_desc_t *cm, uint32_t Y, const dnnl_memory_desc_t *ym)
{
    dnnl_memory_desc_t bw = *bm;
    if (rf__xconst(p, Bt)) /* packed once (a folded B: by a reorder made once) */
        dnnl_memory_desc_init_by_tag(&bw, bm->ndims, bm->dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd;
    rf__xfused f = {.n = 0, .n_arg = 0, .y = Y};
    /* the element-wise layers after it as post-ops, as after a Conv (fused_desc) */
    if (dnnl_matmul_desc_init(&md, am, &bw, C != RF__XNONE ? cm : NULL, ym) != dnnl_success ||
        !fused_desc(p, &md, NULL, &pd, &f, RF__XFUSE_MAX)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no matmul for these shapes");
        return RF_OK;
    }
    double work = 2.0 * (double)am->dims[am->ndims - 1]; /* FLOPs: 2 K per output element */
    for (int i = 0; i < ym->ndims; i++) work *= (double)ym->dims[i];
    dnnl_memory_desc_t wm = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    uint32_t au, bu, cu = 0;
    rf_status st = rf__xtensor_plain(p, li, A, &au);
    if (st == RF_OK) st = rf__xtensor_plain(p, li, Bt, &bu);
    if (st == RF_OK && !dnnl_memory_desc_equal(&wm, bm))
        st = rf__xtensor_convert(p, li, bu, bm, &wm, &bu);
    if (st == RF_OK && C != RF__XNONE) st = rf__xtensor_plain(p, li, C, &cu);
    if (st == RF_OK) st = rf__xfuse_operands(p, li, f.arg, f.n_arg);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_memory_desc_t yplain;
    rf__xdesc_plain(&yplain, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, f.y, &yplain); /* with post-ops: the last fused layer's output */
    rf__xprim_arg a[4 + RF__XFUSE_MAX] = {{DNNL_ARG_SRC, au, *am, NULL},
                                          {DNNL_ARG_WEIGHTS, bu, wm, NULL},
                                          {DNNL_ARG_DST, f.y, *ym, NULL},
                                          {DNNL_ARG_BIAS, cu, C != RF__XNONE ? *cm : *ym, NULL}};
    uint32_t n = C != RF__XNONE ? 4 : 3;
    for (uint32_t k = 0; k < f.n_arg; k++) a[n++] = f.arg[k];
    rf__xlayer_measured(p, li, "onednn:matmul");
    RF_TRY(rf__xstep_add_prim(p, li, -1, pd, a, n));
    rf__xfuse_commit(p, li, Y, f.layer, f.n, f.y, work);
    return RF_OK;
}

rf_status rf__xop_gemm(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "Gemm without B");
        return RF_OK;
    }
    uint32_t A = l->inputs[0], B = l->inputs[1], Y = l->outputs[0];
    uint32_t C = l->n_inputs > 2 && l->inputs[2] != RF_GRAPH_NO_TENSOR ? l->inputs[2] : RF__XNONE;
    const rf__xtensor *a = &p->t[A], *b = &p->t[B], *y = &p->t[Y];
    if (a->rank != 2 || b->rank != 2 || y->rank != 2) {
        rf__xlayer_unmeasured(p, li, "Gemm operands are not 2-D");
        return RF_OK;
    }
    int ta = rf_layer_attr_int(l, "transA", 0) != 0, tb = rf_layer_attr_int(l, "transB", 0) != 0;
    dnnl_dim_t M = y->dims[0], N = y->dims[1], K = ta ? a->dims[0] : a->dims[1];
    /* A is M x K, B is K x N (each as transposed), C broadcasts to M x N: oneDNN reads them by
     * these sizes, so a B of fewer rows than K would be read past its end */
    if ((ta ? a->dims[1] : a->dims[0]) != M || (tb ? b->dims[1] : b->dims[0]) != K ||
        (tb ? b->dims[0] : b->dims[1]) != N ||
        (C != RF__XNONE && !rf__xbroadcasts_to(&p->t[C], 2, y->dims))) {
        rf__xlayer_unmeasured(
            p, li, "Gemm operands that do not agree: A %lldx%lld, B %lldx%lld, Y %lldx%lld",
            (long long)a->dims[0], (long long)a->dims[1], (long long)b->dims[0],
            (long long)b->dims[1], (long long)M, (long long)N);
        return RF_OK;
    }
    dnnl_memory_desc_t am, bm, cm, ym;
    memset(&cm, 0, sizeof cm);
    md_strided(&am, 2, (dnnl_dim_t[]){M, K}, ta ? (dnnl_dim_t[]){1, M} : (dnnl_dim_t[]){K, 1});
    md_strided(&bm, 2, (dnnl_dim_t[]){K, N}, tb ? (dnnl_dim_t[]){1, K} : (dnnl_dim_t[]){N, 1});
    md_strided(&ym, 2, (dnnl_dim_t[]){M, N}, (dnnl_dim_t[]){N, 1});
    if (C != RF__XNONE) {
        const rf__xtensor *c = &p->t[C];
        dnnl_dim_t cd[2] = {1, 1};
        if (c->rank == 2)
            cd[0] = c->dims[0], cd[1] = c->dims[1];
        else if (c->rank == 1)
            cd[1] = c->dims[0];
        md_strided(&cm, 2, cd, (dnnl_dim_t[]){cd[1], 1});
    }
    return matmul_step(p, li, A, &am, B, &bm, C, &cm, Y, &ym);
}

rf_status rf__xop_matmul(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_inputs < 2 || l->inputs[0] == RF_GRAPH_NO_TENSOR ||
        l->inputs[1] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "MatMul without two operands");
        return RF_OK;
    }
    uint32_t A = l->inputs[0], B = l->inputs[1], Y = l->outputs[0];
    const rf__xtensor *a = &p->t[A], *b = &p->t[B];
    /* ONNX numpy.matmul: 1-D A is [1, K], 1-D B is [K, 1]; batch dims broadcast. */
    dnnl_dim_t ad[RF_GRAPH_MAX_RANK + 1], bd[RF_GRAPH_MAX_RANK + 1], yd[RF_GRAPH_MAX_RANK + 1];
    int ra = a->rank ? (int)a->rank : 1, rb = b->rank ? (int)b->rank : 1;
    if (ra == 1)
        ad[0] = 1, ad[1] = a->dims[0], ra = 2;
    else
        for (int i = 0; i < ra; i++) ad[i] = a->dims[i];
    if (rb == 1)
        bd[0] = b->dims[0], bd[1] = 1, rb = 2;
    else
        for (int i = 0; i < rb; i++) bd[i] = b->dims[i];
    int R = ra > rb ? ra : rb;
    if (R > 6) {
        rf__xlayer_unmeasured(p, li, "MatMul of rank %d", R);
        return RF_OK;
    }
    dnnl_dim_t A2[8] = {0}, B2[8] = {0}, as[8], bs[8], ys[8];
    for (int i = 0; i < R; i++) {
        A2[i] = i < R - ra ? 1 : ad[i - (R - ra)];
        B2[i] = i < R - rb ? 1 : bd[i - (R - rb)];
    }
    for (int i = 0; i < R - 2; i++) yd[i] = A2[i] > B2[i] ? A2[i] : B2[i];
    yd[R - 2] = A2[R - 2], yd[R - 1] = B2[R - 1];
    if (A2[R - 1] != B2[R - 2]) {
        rf__xlayer_unmeasured(p, li, "MatMul inner dimensions differ");
        return RF_OK;
    }
    uint64_t ny = 1;
    for (int i = 0; i < R - 2; i++)
        if (A2[i] != B2[i] && A2[i] != 1 && B2[i] != 1) {
            rf__xlayer_unmeasured(p, li, "MatMul batch dimensions that do not broadcast");
            return RF_OK;
        }
    for (int i = 0; i < R; i++) ny *= (uint64_t)yd[i];
    if (ny != rf__xtensor_elems(&p->t[Y])) { /* 1-D operands drop an axis: compare the counts */
        rf__xlayer_unmeasured(p, li, "MatMul output declared with %llu elements, computed %llu",
                              (unsigned long long)rf__xtensor_elems(&p->t[Y]),
                              (unsigned long long)ny);
        return RF_OK;
    }
    dnnl_dim_t acc[3] = {1, 1, 1};
    for (int i = R - 1; i >= 0; i--) {
        as[i] = acc[0], bs[i] = acc[1], ys[i] = acc[2];
        acc[0] *= A2[i], acc[1] *= B2[i], acc[2] *= yd[i];
    }
    dnnl_memory_desc_t am, bm, ym;
    md_strided(&am, R, A2, as);
    md_strided(&bm, R, B2, bs);
    md_strided(&ym, R, yd, ys);
    return matmul_step(p, li, A, &am, B, &bm, RF__XNONE, NULL, Y, &ym);
}

/* The LLM builders' attention matmuls (attribute llm_attention; src/llm/llm_block.c): scores =
 * q [B,S,H,D] . K-cache [B,Hkv,T,D]^T into [B,H,S,T], and A.V = probs [B,H,S,T] . V-cache
 * [B,Hkv,T,D] into [B*S, H*D] (= [B,S,H,D]). Grouped-query heads h read KV head h / (H/Hkv): as
 * one oneDNN matmul over batch dims [B, Hkv, G] with the cache broadcast over G, q and the A.V
 * output seen through strided views of their [B,S,H,D] bytes (no copies). */
rf_status rf__xop_llm_attn(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t A = l->inputs[0], C = l->inputs[1], Y = l->outputs[0];
    const rf__xtensor *a = &p->t[A], *c = &p->t[C], *y = &p->t[Y];
    int scores = y->rank == 4;
    if (a->rank != 4 || c->rank != 4 || (y->rank != 4 && y->rank != 2)) {
        rf__xlayer_unmeasured(p, li, "attention matmul of unexpected ranks");
        return RF_OK;
    }
    int64_t B = c->dims[0], Hkv = c->dims[1], T = c->dims[2], D = c->dims[3];
    int64_t S = scores ? a->dims[1] : a->dims[2], H = scores ? a->dims[2] : a->dims[1];
    if (Hkv <= 0 || H % Hkv || a->dims[0] != B || (scores && a->dims[3] != D) ||
        (!scores && a->dims[3] != T) ||
        (scores ? y->dims[1] != H || y->dims[2] != S || y->dims[3] != T
                : y->dims[0] != B * S || y->dims[1] != H * D)) {
        rf__xlayer_unmeasured(p, li, "attention matmul shapes do not agree");
        return RF_OK;
    }
    int64_t G = H / Hkv;
    dnnl_dim_t ad[5], as[5], bd[5], bs[5], yd[5], ys[5];
    /* the [B,S,H,D] bytes as [B, Hkv, G, S, D] */
    const dnnl_dim_t hd[5] = {B, Hkv, G, S, D}, hs[5] = {S * H * D, G * D, D, H * D, 1};
    /* the [B,H,S,T] bytes as [B, Hkv, G, S, T] */
    const dnnl_dim_t sd[5] = {B, Hkv, G, S, T}, ss[5] = {H * S * T, G * S * T, S * T, T, 1};
    if (scores) { /* K^T: [B, Hkv, 1, D, T] */
        memcpy(ad, hd, sizeof ad), memcpy(as, hs, sizeof as);
        memcpy(yd, sd, sizeof yd), memcpy(ys, ss, sizeof ys);
        const dnnl_dim_t kd[5] = {B, Hkv, 1, D, T}, ks[5] = {Hkv * T * D, T * D, T * D, 1, D};
        memcpy(bd, kd, sizeof bd), memcpy(bs, ks, sizeof bs);
    } else { /* V: [B, Hkv, 1, T, D] */
        memcpy(ad, sd, sizeof ad), memcpy(as, ss, sizeof as);
        memcpy(yd, hd, sizeof yd), memcpy(ys, hs, sizeof ys);
        const dnnl_dim_t vd[5] = {B, Hkv, 1, T, D}, vs[5] = {Hkv * T * D, T * D, T * D, D, 1};
        memcpy(bd, vd, sizeof bd), memcpy(bs, vs, sizeof bs);
    }
    dnnl_memory_desc_t am, bm, ym;
    md_strided(&am, 5, ad, as);
    md_strided(&bm, 5, bd, bs);
    md_strided(&ym, 5, yd, ys);
    return matmul_step(p, li, A, &am, C, &bm, RF__XNONE, NULL, Y, &ym);
}
