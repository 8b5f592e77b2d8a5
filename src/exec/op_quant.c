/* op_quant.c — ONNX's linear quantisation in plain C: QuantizeLinear (y = saturate(round(x / s)
 * + zp), round half to even, saturated to the output type's range), DequantizeLinear (y = (x -
 * zp) * s) with per-tensor or per-axis scales and zero points, and DynamicQuantizeLinear (u8;
 * s = (max(0, max x) - min(0, min x)) / 255, zp = saturate(round(-min(0, min x) / s))). Integer
 * tensors hold their values as floats, as everywhere in the executor. Scale tensors fed before
 * the run are given positive synthetic values. Blocked quantisation (block_size) is refused. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

enum { Q_QUANT, Q_DEQUANT };

static float sat(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Round half to even without a libm call, so the loops vectorise: in the default rounding mode
 * adding and taking away 1.5 * 2^23 rounds a float of magnitude below 2^22 to an integer, ties to
 * even (larger magnitudes are clamped first; they saturate anyway). */
static float rne(float v)
{
    v = sat(v, -4194304.0f, 4194304.0f);
    return (v + 12582912.0f) - 12582912.0f;
}

/* x [outer, axis_n, inner]; scale ptr[1] and zero point ptr[2] (n_in 3) per axis index when
 * st[0][0] (per-axis) else one; lo, hi = st[1][0], st[1][1]. */
static void quant(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *sc = s->ptr[1], *zp = s->n_in > 2 ? s->ptr[2] : NULL;
    float *y = s->ptr[s->n_in];
    int per = c->st[0][0] != 0;
    float lo = (float)c->st[1][0], hi = (float)c->st[1][1];
    for (int64_t o = 0; o < c->outer; o++)
        for (int64_t a = 0; a < c->axis_n; a++) {
            int64_t k = per ? a : 0;
            float z = zp ? zp[k] : 0.0f, sk = sc[k];
            const float *xi = x + (o * c->axis_n + a) * c->inner;
            float *yi = y + (o * c->axis_n + a) * c->inner;
            if (c->op == Q_QUANT)
                for (int64_t i = 0; i < c->inner; i++) yi[i] = sat(rne(xi[i] / sk) + z, lo, hi);
            else
                for (int64_t i = 0; i < c->inner; i++) yi[i] = (xi[i] - z) * sk;
        }
}

/* DynamicQuantizeLinear in two passes over x: its range, then the quantisation (round half to
 * even by the 1.5 * 2^23 trick, then the clamp). gcc keeps both loops scalar in plain C (a float
 * select is control flow to it without -ffinite-math-only), so on x86-64 they are written with
 * SSE2, which every x86-64 CPU has: min/max skip a NaN as ONNX Runtime's MLAS does. The plain C
 * below is the reference and the fallback; both give the same bytes but for NaN (0 here). */
static void dq_range_c(const float *x, int64_t n, float *mn, float *mx)
{
    for (int64_t i = 0; i < n; i++) {
        *mn = x[i] < *mn ? x[i] : *mn;
        *mx = x[i] > *mx ? x[i] : *mx;
    }
}

static void dq_apply_c(const float *x, float *y, int64_t n, float sc, float z)
{
    for (int64_t i = 0; i < n; i++) y[i] = sat(rne(x[i] / sc) + z, 0.0f, 255.0f);
}

#if defined(__SSE2__)
#include <emmintrin.h>

static void dq_range(const float *x, int64_t n, float *mn_out, float *mx_out)
{
    __m128 mn0 = _mm_setzero_ps(), mn1 = mn0, mx0 = mn0, mx1 = mn0;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
        mn0 = _mm_min_ps(a, mn0), mx0 = _mm_max_ps(a, mx0);
        mn1 = _mm_min_ps(b, mn1), mx1 = _mm_max_ps(b, mx1);
    }
    float lo[4], hi[4];
    _mm_storeu_ps(lo, _mm_min_ps(mn0, mn1));
    _mm_storeu_ps(hi, _mm_max_ps(mx0, mx1));
    float mn = 0.0f, mx = 0.0f;
    for (int j = 0; j < 4; j++) {
        mn = lo[j] < mn ? lo[j] : mn;
        mx = hi[j] > mx ? hi[j] : mx;
    }
    dq_range_c(x + i, n - i, &mn, &mx);
    *mn_out = mn;
    *mx_out = mx;
}

static void dq_apply(const float *x, float *y, int64_t n, float sc, float z)
{
    const __m128 s = _mm_set1_ps(sc), zz = _mm_set1_ps(z), big = _mm_set1_ps(4194304.0f),
                 nbig = _mm_set1_ps(-4194304.0f), magic = _mm_set1_ps(12582912.0f),
                 zero = _mm_setzero_ps(), top = _mm_set1_ps(255.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_div_ps(_mm_loadu_ps(x + i), s);
        v = _mm_min_ps(_mm_max_ps(v, nbig), big);
        v = _mm_add_ps(_mm_sub_ps(_mm_add_ps(v, magic), magic), zz);
        _mm_storeu_ps(y + i, _mm_min_ps(_mm_max_ps(v, zero), top));
    }
    dq_apply_c(x + i, y + i, n - i, sc, z);
}
#else
static void dq_range(const float *x, int64_t n, float *mn, float *mx)
{
    *mn = *mx = 0.0f;
    dq_range_c(x, n, mn, mx);
}
#define dq_apply dq_apply_c
#endif

/* DynamicQuantizeLinear over the pass's threads: each part finds its range, the parts' ranges
 * make the scale and zero point, then each part quantises its share. With c.op set, y is u8 in
 * the nhwc layout the int8 convolution reads (x [N, C, H, W] in c.dims), written as such. */
typedef struct dq_job {
    const rf__xstep *s;
    float lo[256], hi[256]; /* per part (a team is at most 256 threads) */
    float sc, z;
} dq_job;

static void dq_range_part(void *arg, unsigned part, unsigned parts)
{
    dq_job *j = arg;
    int64_t lo, hi;
    if (part >= 256) return; /* a larger team: the first 256 parts cover x */
    rf__xpar_range(j->s->c.inner, 64, part, parts < 256 ? parts : 256, &lo, &hi);
    j->lo[part] = j->hi[part] = 0.0f;
    if (hi > lo) dq_range(j->s->ptr[0] + lo, hi - lo, &j->lo[part], &j->hi[part]);
}

static void dq_apply_part(void *arg, unsigned part, unsigned parts)
{
    const dq_job *j = arg;
    const rf__xstep *s = j->s;
    int64_t lo, hi;
    if (!s->c.op) {
        rf__xpar_range(s->c.inner, 64, part, parts, &lo, &hi);
        if (hi > lo) dq_apply(s->ptr[0] + lo, s->ptr[1] + lo, hi - lo, j->sc, j->z);
        return;
    }
    const int64_t *d = s->c.dims; /* N C H W */
    int64_t C = d[1], H = d[2], W = d[3];
    float row[256];
    uint8_t *y = (uint8_t *)(void *)s->ptr[1];
    rf__xpar_range(d[0] * H, 1, part, parts, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t n = r / H, h = r % H;
        uint8_t *yr = y + r * W * C;
        for (int64_t c = 0; c < C; c++) {
            const float *x = s->ptr[0] + ((n * C + c) * H + h) * W;
            for (int64_t w0 = 0; w0 < W; w0 += 256) {
                int64_t m = W - w0 < 256 ? W - w0 : 256;
                dq_apply(x + w0, row, m, j->sc, j->z);
                for (int64_t i = 0; i < m; i++) yr[(w0 + i) * C + c] = (uint8_t)row[i];
            }
        }
    }
}

static void dyn_quant(const rf__xstep *s)
{
    dq_job j;
    j.s = s;
    memset(j.lo, 0, sizeof j.lo);
    memset(j.hi, 0, sizeof j.hi);
    rf__xpar_run(dq_range_part, &j, s->tiny);
    float mn = 0.0f, mx = 0.0f;
    for (int k = 0; k < 256; k++) {
        mn = j.lo[k] < mn ? j.lo[k] : mn;
        mx = j.hi[k] > mx ? j.hi[k] : mx;
    }
    float sc = (mx - mn) / 255.0f;
    float z = sc > 0 ? sat(rne(-mn / sc), 0.0f, 255.0f) : 0.0f;
    s->ptr[2][0] = sc;
    s->ptr[3][0] = z;
    j.sc = sc, j.z = z;
    if (sc > 0)
        rf__xpar_run(dq_apply_part, &j, s->tiny);
    else if (s->c.op)
        memset(s->ptr[1], (int)z, (size_t)s->c.inner);
    else
        memset(s->ptr[1], 0, (size_t)s->c.inner * sizeof(float));
}

/* Is y (rank 4) read only by a ConvInteger as its input? Then it is written as u8 nhwc. */
static int feeds_int8_conv(const rf__xplan *p, uint32_t y)
{
    uint32_t li = p->consumer[y];
    if (li == RF__XNONE || p->t[y].rank != 4) return 0;
    const rf_layer *l = &p->g->layers[li];
    return !strcmp(l->op_type, "ConvInteger") && l->n_inputs >= 1 && l->inputs[0] == y &&
           (l->n_inputs < 2 || l->inputs[1] != y) && (l->n_inputs < 3 || l->inputs[2] != y);
}

/* The range of an integer type, 0 when it is not one quantisation here produces. */
static int qrange(rf_dtype d, float *lo, float *hi)
{
    switch (d) {
    case RF_DTYPE_U8: *lo = 0, *hi = 255; return 1;
    case RF_DTYPE_I8: *lo = -128, *hi = 127; return 1;
    case RF_DTYPE_U16: *lo = 0, *hi = 65535; return 1;
    case RF_DTYPE_I16: *lo = -32768, *hi = 32767; return 1;
    default: return 0;
    }
}

static rf_status quant_op(rf__xplan *p, uint32_t li, int op)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "%s without a scale", l->op_type);
        return RF_OK;
    }
    if (rf_layer_attr_int(l, "block_size", 0) != 0) {
        rf__xlayer_unmeasured(p, li, "blocked quantisation (block_size) not supported");
        return RF_OK;
    }
    uint32_t X = l->inputs[0], S = l->inputs[1], Y = l->outputs[0];
    uint32_t Z = l->n_inputs > 2 ? l->inputs[2] : RF_GRAPH_NO_TENSOR;
    const rf__xtensor *x = &p->t[X];
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    float lo = 0, hi = 255;
    if (op == Q_QUANT) {
        rf_dtype dt = Z != RF_GRAPH_NO_TENSOR ? p->g->tensors[Z].dtype : p->g->tensors[Y].dtype;
        if (dt == RF_DTYPE_UNKNOWN && Z == RF_GRAPH_NO_TENSOR) dt = RF_DTYPE_U8;
        if (!qrange(dt, &lo, &hi)) {
            rf__xlayer_unmeasured(p, li, "QuantizeLinear to %s not supported", rf_dtype_name(dt));
            return RF_OK;
        }
    }
    c.st[1][0] = (int64_t)lo, c.st[1][1] = (int64_t)hi;
    uint64_t ns = 0, nz = 0;
    rf_tensor_elems(&p->g->tensors[S], &ns);
    if (Z != RF_GRAPH_NO_TENSOR) rf_tensor_elems(&p->g->tensors[Z], &nz);
    int64_t r = (int64_t)x->rank, axis = rf_layer_attr_int(l, "axis", 1);
    axis = axis < 0 ? axis + r : axis;
    c.outer = 1, c.axis_n = 1, c.inner = 1;
    if (p->t[S].rank >= 1 && ns != 1) { /* per-axis */
        if (axis < 0 || axis >= r || (int64_t)ns != x->dims[axis] ||
            (Z != RF_GRAPH_NO_TENSOR && nz != ns)) {
            rf__xlayer_unmeasured(p, li, "%s scale of %llu values does not match axis %lld",
                                  l->op_type, (unsigned long long)ns, (long long)axis);
            return RF_OK;
        }
        for (int64_t i = 0; i < r; i++)
            *(i < axis ? &c.outer : i == axis ? &c.axis_n : &c.inner) *= x->dims[i];
        c.st[0][0] = 1;
    } else {
        if (Z != RF_GRAPH_NO_TENSOR && nz != 1) {
            rf__xlayer_unmeasured(p, li, "%s zero point and scale differ in size", l->op_type);
            return RF_OK;
        }
        for (int64_t i = 0; i < r; i++) c.inner *= x->dims[i];
    }
    if (!rf__xshape_is(p, li, Y, x->rank, x->dims)) return RF_OK;
    if (p->t[S].fill) p->t[S].positive = 1;
    uint32_t io[4], n = 0;
    RF_TRY(rf__xtensor_plain(p, li, X, &io[n++]));
    RF_TRY(rf__xtensor_plain(p, li, S, &io[n++]));
    if (Z != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, Z, &io[n++]));
    io[n] = Y;
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, Y, &md);
    rf__xlayer_measured(p, li, op == Q_QUANT ? "c:quantize" : "c:dequantize");
    return rf__xstep_add_kernel(p, li, quant, io, n + 1, n, &c);
}

static rf_status dyn_op(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (l->n_outputs < 3) {
        rf__xlayer_unmeasured(p, li, "DynamicQuantizeLinear without its three outputs");
        return RF_OK;
    }
    const rf__xtensor *x = &p->t[l->inputs[0]];
    if (!rf__xshape_is(p, li, l->outputs[0], x->rank, x->dims)) return RF_OK;
    if (rf__xtensor_elems(&p->t[l->outputs[1]]) != 1 ||
        rf__xtensor_elems(&p->t[l->outputs[2]]) != 1) {
        rf__xlayer_unmeasured(p, li,
                              "DynamicQuantizeLinear whose scale or zero point is not one value");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    uint64_t n = 0;
    rf_tensor_elems(&p->g->tensors[l->inputs[0]], &n);
    c.inner = (int64_t)n;
    uint32_t io[4];
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &io[0]));
    for (int o = 0; o < 3; o++) {
        uint32_t t = l->outputs[o];
        dnnl_memory_desc_t md;
        rf__xdesc_plain(&md, p->t[t].rank, p->t[t].dims);
        if (o == 0 && feeds_int8_conv(p, t)) { /* u8 nhwc, as the conv reads it */
            dnnl_dims_t d4 = {0};
            memcpy(d4, p->t[t].dims, 4 * sizeof *d4);
            dnnl_memory_desc_init_by_tag(&md, 4, d4, dnnl_u8, dnnl_acdb);
            c.op = 1;
            memcpy(c.dims, p->t[t].dims, 4 * sizeof *c.dims);
        }
        rf__xtensor_define(p, t, &md);
        io[1 + o] = t;
    }
    rf__xlayer_measured(p, li, "c:quantize");
    return rf__xstep_add_kernel(p, li, dyn_quant, io, 4, 1, &c);
}

rf_status rf__xop_quant(rf__xplan *p, uint32_t li)
{
    const char *t = p->g->layers[li].op_type;
    if (!strcmp(t, "QuantizeLinear")) return quant_op(p, li, Q_QUANT);
    if (!strcmp(t, "DequantizeLinear")) return quant_op(p, li, Q_DEQUANT);
    if (!strcmp(t, "DynamicQuantizeLinear")) return dyn_op(p, li);
    rf__xlayer_unmeasured(p, li, "no quantisation kernel for op '%s'", t);
    return RF_OK;
}
