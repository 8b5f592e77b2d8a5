/* op_c.c — the executor's plain C kernels, for what oneDNN has no primitive for: n-ary
 * elementwise with NumPy broadcasting (Pow, Where, Mod, logic, and broadcasts oneDNN refuses)
 * and unary math (Erf, Floor, ...). Inner loops are unit-stride or broadcast so the compiler
 * vectorises them. Views, Gather, Slice, Pad and the other data ops are in op_c_data.c. */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

int rf__xbinary_op_of(const char *op)
{
    static const char *const names[] = {"Add",
                                        "Sub",
                                        "Mul",
                                        "Div",
                                        "Pow",
                                        "Max",
                                        "Min",
                                        "Equal",
                                        "Greater",
                                        "Less",
                                        "GreaterOrEqual",
                                        "LessOrEqual",
                                        "And",
                                        "Or",
                                        "Xor",
                                        "Mod",
                                        "Where",
                                        "PRelu"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(op, names[i])) return i;
    return -1;
}

/* y[i] = a[i*sa] OP b[i*sb]; sa, sb in {0, 1} or any stride. */
#define RF__ROW(EXPR)                                                                              \
    do {                                                                                           \
        if (sa == 1 && sb == 1)                                                                    \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float x = a[i], z = b[i];                                                          \
                y[i] = (EXPR);                                                                     \
            }                                                                                      \
        else if (sa == 1 && sb == 0)                                                               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float x = a[i], z = b[0];                                                          \
                y[i] = (EXPR);                                                                     \
            }                                                                                      \
        else if (sa == 0 && sb == 1)                                                               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float x = a[0], z = b[i];                                                          \
                y[i] = (EXPR);                                                                     \
            }                                                                                      \
        else                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                      \
                float x = a[i * sa], z = b[i * sb];                                                \
                y[i] = (EXPR);                                                                     \
            }                                                                                      \
    } while (0)

static void bin_row(int op, float *restrict y, const float *restrict a, int64_t sa,
                    const float *restrict b, int64_t sb, int64_t n)
{
    switch (op) {
    case RF__XB_ADD: RF__ROW(x + z); break;
    case RF__XB_SUB: RF__ROW(x - z); break;
    case RF__XB_MUL: RF__ROW(x * z); break;
    case RF__XB_DIV: RF__ROW(x / z); break;
    case RF__XB_POW: RF__ROW(powf(x, z)); break;
    case RF__XB_MAX: RF__ROW(x > z ? x : z); break;
    case RF__XB_MIN: RF__ROW(x < z ? x : z); break;
    case RF__XB_EQ: RF__ROW((float)(x == z)); break;
    case RF__XB_GT: RF__ROW((float)(x > z)); break;
    case RF__XB_LT: RF__ROW((float)(x < z)); break;
    case RF__XB_GE: RF__ROW((float)(x >= z)); break;
    case RF__XB_LE: RF__ROW((float)(x <= z)); break;
    case RF__XB_AND: RF__ROW((float)(x != 0 && z != 0)); break;
    case RF__XB_OR: RF__ROW((float)(x != 0 || z != 0)); break;
    case RF__XB_XOR: RF__ROW((float)((x != 0) != (z != 0))); break;
    case RF__XB_MOD: RF__ROW(z != 0 ? fmodf(x, z) : 0.0f); break;
    case RF__XB_PRELU: RF__ROW(x < 0 ? z * x : x); break;
    default: break;
    }
}

static void where_row(float *restrict y, const float *c, int64_t sc, const float *a, int64_t sa,
                      const float *b, int64_t sb, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = c[i * sc] != 0 ? a[i * sa] : b[i * sb];
}

/* The n-ary broadcast kernel: output dims c.dims (rank c.rank), input k at stride c.st[k]. */
static void nary(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    uint32_t R = c->rank, nin = s->n_in;
    float *y = s->ptr[nin];
    int64_t n = c->dims[R - 1], idx[RF_GRAPH_MAX_RANK] = {0}, off[3] = {0, 0, 0}, outer = 1;
    for (uint32_t i = 0; i + 1 < R; i++) outer *= c->dims[i];
    for (int64_t o = 0; o < outer; o++, y += n) {
        if (c->op == RF__XB_WHERE)
            where_row(y, s->ptr[0] + off[0], c->st[0][R - 1], s->ptr[1] + off[1], c->st[1][R - 1],
                      s->ptr[2] + off[2], c->st[2][R - 1], n);
        else
            bin_row(c->op, y, s->ptr[0] + off[0], c->st[0][R - 1], s->ptr[1] + off[1],
                    c->st[1][R - 1], n);
        for (int d = (int)R - 2; d >= 0; d--) { /* next outer index, offsets follow */
            idx[d]++;
            for (uint32_t k = 0; k < nin; k++) off[k] += c->st[k][d];
            if (idx[d] < c->dims[d]) break;
            for (uint32_t k = 0; k < nin; k++) off[k] -= c->st[k][d] * idx[d];
            idx[d] = 0;
        }
    }
}

/* Element strides of tensor t over output dims yd[R] (0 where t broadcasts). */
void rf__xbroadcast_strides(const rf__xtensor *t, uint32_t R, const int64_t *yd, int64_t *st)
{
    int64_t acc = 1;
    for (int i = (int)R - 1; i >= 0; i--) {
        int k = i - (int)(R - t->rank);
        int64_t d = k >= 0 ? t->dims[k] : 1;
        st[i] = d == 1 && yd[i] != 1 ? 0 : acc;
        acc *= d;
    }
}

rf_status rf__xop_cbinary(rf__xplan *p, uint32_t li, int op)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t nin = op == RF__XB_WHERE ? 3 : 2, io[4];
    if (l->n_inputs != nin) {
        rf__xlayer_unmeasured(p, li, "%s with %u inputs", l->op_type, l->n_inputs);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    uint32_t Y = l->outputs[0];
    if (!rf__xbroadcast_output(p, li, nin))
        return RF_OK; /* a PRelu slope that does not broadcast */
    c.rank = p->t[Y].rank ? p->t[Y].rank : 1;
    for (uint32_t i = 0; i < c.rank; i++) c.dims[i] = p->t[Y].rank ? p->t[Y].dims[i] : 1;
    for (uint32_t k = 0; k < nin; k++) {
        if (l->inputs[k] == RF_GRAPH_NO_TENSOR) {
            rf__xlayer_unmeasured(p, li, "%s with an omitted input", l->op_type);
            return RF_OK;
        }
        RF_TRY(rf__xtensor_plain(p, li, l->inputs[k], &io[k]));
        rf__xbroadcast_strides(&p->t[io[k]], c.rank, c.dims, c.st[k]);
    }
    io[nin] = Y;
    rf__xlayer_measured(p, li, op == RF__XB_WHERE ? "c:where" : "c:binary");
    return rf__xstep_add_kernel(p, li, nary, io, nin + 1, nin, &c);
}

/* ---- unary C kernels ---- */

/* exp(x) for x <= 0 in plain arithmetic so the loop vectorises (no libm call): 2^n by the
 * exponent bits, e^r by a degree-6 polynomial on |r| <= ln2/2; relative error ~2e-7. */
static inline float exp_neg(float x)
{
    x = x < -87.0f ? -87.0f : x;
    float n = x * 1.44269504f, fl = (float)(int32_t)n;
    fl = fl > n ? fl - 1.0f : fl;             /* floor */
    float k = n - fl > 0.5f ? fl + 1.0f : fl; /* nearest */
    float r = x - k * 0.693145752f - k * 1.42860677e-6f;
    float q = 1.0f + r * (1.0f + r * (0.5f + r * (0.166666672f +
                                                  r * (0.0416666418f + r * (0.00833336543f +
                                                                            r * 0.00138828356f)))));
    int32_t bits = ((int32_t)k + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return q * scale;
}

/* erf by Abramowitz and Stegun 7.1.26 (absolute error <= 1.5e-7), vectorisable. */
static inline float erf_fast(float x)
{
    float a = fabsf(x), t = 1.0f / (1.0f + 0.3275911f * a);
    float y =
        1.0f -
        t *
            (0.254829592f +
             t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f)))) *
            exp_neg(-a * a);
    return x < 0 ? -y : y;
}
enum {
    U_ERF,
    U_FLOOR,
    U_CEIL,
    U_SIGN,
    U_SOFTSIGN,
    U_HARDSIGMOID,
    U_SIN,
    U_COS,
    U_NOT,
    U_COPY,      /* Cast */
    U_COPY_LIKE, /* CastLike */
    U_TAN,
    U_ASIN,
    U_ACOS,
    U_ATAN,
    U_SINH,
    U_COSH,
    U_ASINH,
    U_ACOSH,
    U_ATANH,
    U_THRESHOLDED_RELU,
    U_SHRINK,
    U_CELU
};

static void unary(const rf__xstep *s)
{
    const float *restrict x = s->ptr[0];
    float *restrict y = s->ptr[1];
    int64_t n = s->c.inner;
    float a = s->c.value, b = (float)s->c.off * 1e-6f;
    switch (s->c.op) {
    case U_ERF:
        for (int64_t i = 0; i < n; i++) y[i] = erf_fast(x[i]);
        break;
    case U_FLOOR:
        for (int64_t i = 0; i < n; i++) y[i] = floorf(x[i]);
        break;
    case U_CEIL:
        for (int64_t i = 0; i < n; i++) y[i] = ceilf(x[i]);
        break;
    case U_SIGN:
        for (int64_t i = 0; i < n; i++) y[i] = (float)((x[i] > 0) - (x[i] < 0));
        break;
    case U_SOFTSIGN:
        for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + fabsf(x[i]));
        break;
    case U_HARDSIGMOID:
        for (int64_t i = 0; i < n; i++) {
            float v = a * x[i] + b;
            y[i] = v < 0 ? 0 : v > 1 ? 1 : v;
        }
        break;
    case U_SIN:
        for (int64_t i = 0; i < n; i++) y[i] = sinf(x[i]);
        break;
    case U_COS:
        for (int64_t i = 0; i < n; i++) y[i] = cosf(x[i]);
        break;
    case U_NOT:
        for (int64_t i = 0; i < n; i++) y[i] = (float)(x[i] == 0);
        break;
    case U_TAN:
        for (int64_t i = 0; i < n; i++) y[i] = tanf(x[i]);
        break;
    case U_ASIN:
        for (int64_t i = 0; i < n; i++) y[i] = asinf(x[i]);
        break;
    case U_ACOS:
        for (int64_t i = 0; i < n; i++) y[i] = acosf(x[i]);
        break;
    case U_ATAN:
        for (int64_t i = 0; i < n; i++) y[i] = atanf(x[i]);
        break;
    case U_SINH:
        for (int64_t i = 0; i < n; i++) y[i] = sinhf(x[i]);
        break;
    case U_COSH:
        for (int64_t i = 0; i < n; i++) y[i] = coshf(x[i]);
        break;
    case U_ASINH:
        for (int64_t i = 0; i < n; i++) y[i] = asinhf(x[i]);
        break;
    case U_ACOSH:
        for (int64_t i = 0; i < n; i++) y[i] = acoshf(x[i]);
        break;
    case U_ATANH:
        for (int64_t i = 0; i < n; i++) y[i] = atanhf(x[i]);
        break;
    case U_THRESHOLDED_RELU:
        for (int64_t i = 0; i < n; i++) y[i] = x[i] > a ? x[i] : 0.0f;
        break;
    case U_SHRINK: /* a = lambd, b = bias */
        for (int64_t i = 0; i < n; i++) y[i] = x[i] < -a ? x[i] + b : x[i] > a ? x[i] - b : 0.0f;
        break;
    case U_CELU:
        for (int64_t i = 0; i < n; i++) {
            float neg = a * (expf(fminf(x[i], 0.0f) / a) - 1.0f);
            y[i] = fmaxf(x[i], 0.0f) + fminf(neg, 0.0f);
        }
        break;
    default: memcpy(y, x, (size_t)n * sizeof *y); break;
    }
}

rf_status rf__xop_cunary(rf__xplan *p, uint32_t li)
{
    static const char *const names[] = {
        "Erf",    "Floor", "Ceil", "Sign",     "Softsign", "HardSigmoid", "Sin",
        "Cos",    "Not",   "Cast", "CastLike", "Tan",      "Asin",        "Acos",
        "Atan",   "Sinh",  "Cosh", "Asinh",    "Acosh",    "Atanh",       "ThresholdedRelu",
        "Shrink", "Celu"};
    const rf_layer *l = &p->g->layers[li];
    int op = -1;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(l->op_type, names[i])) op = i;
    if (op < 0) {
        rf__xlayer_unmeasured(p, li, "no unary kernel for op '%s'", l->op_type);
        return RF_OK;
    }
    if (!l->n_inputs || l->inputs[0] == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "%s without input", l->op_type);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    uint32_t io[2];
    uint64_t n = 1;
    int copy = op == U_COPY || op == U_COPY_LIKE;
    if (copy) { /* a copy of every byte: in the input's layout (a conv's stays, no reorders) */
        io[0] = l->inputs[0];
        io[1] = l->outputs[0];
        if (!rf__xshape_is(p, li, io[1], p->t[io[0]].rank, p->t[io[0]].dims)) return RF_OK;
        dnnl_memory_desc_t md = p->t[io[0]].md;
        n = dnnl_memory_desc_get_size(&md) / sizeof(float);
        rf__xtensor_define(p, io[1], &md);
    } else {
        RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &io[0]));
        io[1] = l->outputs[0];
        if (!rf__xshape_is(p, li, io[1], p->t[io[0]].rank, p->t[io[0]].dims)) return RF_OK;
        for (uint32_t i = 0; i < p->t[io[0]].rank; i++) n *= (uint64_t)p->t[io[0]].dims[i];
    }
    c.inner = (int64_t)n;
    /* the attributes as `a` (value) and `b` (off, in millionths), each op's own defaults */
    int shrink = op == U_SHRINK, unit = op == U_THRESHOLDED_RELU || op == U_CELU;
    const rf_attr *a = rf_layer_attr(l, shrink ? "lambd" : "alpha");
    const rf_attr *b = rf_layer_attr(l, shrink ? "bias" : "beta");
    double a0 = shrink ? 0.5 : unit ? 1.0 : 0.2, b0 = shrink ? 0.0 : 0.5;
    c.value = a && a->type == RF_ATTR_FLOAT ? (float)a->f : (float)a0;
    double bv = b && b->type == RF_ATTR_FLOAT ? b->f : b0;
    if (!(fabs(bv) <= 1e9)) { /* in millionths within int64; NaN refused too */
        rf__xlayer_unmeasured(p, li, "%s with %s %g out of range", l->op_type,
                              shrink ? "bias" : "beta", bv);
        return RF_OK;
    }
    c.off = (int64_t)(bv * 1e6);
    if (op == U_CELU && c.value == 0) {
        rf__xlayer_unmeasured(p, li, "Celu with alpha 0");
        return RF_OK;
    }
    rf__xlayer_measured(p, li, copy ? "c:cast" : "c:unary");
    return rf__xstep_add_kernel(p, li, unary, io, 2, 1, &c);
}

/* ---- Resize, cubic (ONNX Resize mode "cubic": Keys' kernel with coefficient a, 4 taps per
 * resized axis, edge taps clamped as exclude_outside = 0 does) over the last two axes ---------- */

/* Source coordinate of output index o (ONNX coordinate_transformation_mode). */
static double cubic_src(int mode, int64_t o, int64_t in, int64_t out)
{
    double scale = (double)out / (double)in;
    switch (mode) {
    case 1: return out > 1 ? (double)o * (double)(in - 1) / (double)(out - 1) : 0; /* corners */
    case 2: return (double)o / scale;                                              /* asymmetric */
    case 3: return out > 1 ? ((double)o + 0.5) / scale - 0.5 : 0; /* pytorch_half_pixel */
    default: return ((double)o + 0.5) / scale - 0.5;              /* half_pixel */
    }
}

/* The 4 taps (clamped source indices) and weights of output index o. */
static void cubic_taps(int mode, float a, int64_t o, int64_t in, int64_t out, int64_t *idx,
                       float *w)
{
    double s = cubic_src(mode, o, in, out), f = floor(s), t = s - f;
    double t1 = t + 1, u = 1 - t, u1 = 2 - t;
    w[0] = (float)(((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a);
    w[1] = (float)(((a + 2) * t - (a + 3)) * t * t + 1);
    w[2] = (float)(((a + 2) * u - (a + 3)) * u * u + 1);
    w[3] = (float)(((a * u1 - 5 * a) * u1 + 8 * a) * u1 - 4 * a);
    f = f < -2.0 ? -2.0 : f > (double)in ? (double)in : f; /* converted in range; NaN: below */
    for (int k = 0; k < 4; k++) {
        int64_t i = f == f ? (int64_t)f - 1 + k : 0;
        idx[k] = i < 0 ? 0 : i >= in ? in - 1 : i;
    }
}

void rf__xresize_cubic(const float *x, float *y, int64_t planes, int64_t ih, int64_t iw, int64_t oh,
                       int64_t ow, int mode, float a)
{
    int64_t ci[RF__CUBIC_MAX_W * 4];
    float cw[RF__CUBIC_MAX_W * 4];
    if (ow > RF__CUBIC_MAX_W) return; /* the planner refuses it */
    if (ih <= 0 || iw <= 0) {         /* no source pixel: no tap to read */
        for (int64_t e = 0; e < planes * oh * ow; e++) y[e] = 0;
        return;
    }
    for (int64_t j = 0; j < ow; j++) cubic_taps(mode, a, j, iw, ow, ci + 4 * j, cw + 4 * j);
    for (int64_t pl = 0; pl < planes; pl++) {
        const float *xp = x + pl * ih * iw;
        for (int64_t i = 0; i < oh; i++) {
            int64_t ri[4];
            float rw[4];
            cubic_taps(mode, a, i, ih, oh, ri, rw);
            float *yr = y + (pl * oh + i) * ow;
            for (int64_t j = 0; j < ow; j++) {
                float acc = 0;
                for (int u = 0; u < 4; u++) {
                    const float *row = xp + ri[u] * iw;
                    float h = row[ci[4 * j]] * cw[4 * j] + row[ci[4 * j + 1]] * cw[4 * j + 1] +
                              row[ci[4 * j + 2]] * cw[4 * j + 2] +
                              row[ci[4 * j + 3]] * cw[4 * j + 3];
                    acc += h * rw[u];
                }
                yr[j] = acc;
            }
        }
    }
}

static void resize_cubic(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    rf__xresize_cubic(s->ptr[0], s->ptr[1], c->outer, c->st[0][0], c->st[0][1], c->st[1][0],
                      c->st[1][1], c->op, c->value);
}

rf_status rf__xop_resize_cubic(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t xu, Y = l->outputs[0];
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &xu));
    const rf__xtensor *x = &p->t[xu], *y = &p->t[Y];
    uint32_t r = x->rank;
    int ok = r >= 2 && y->rank == r && y->dims[r - 1] <= RF__CUBIC_MAX_W && x->dims[r - 2] > 0 &&
             x->dims[r - 1] > 0;
    for (uint32_t i = 0; ok && i + 2 < r; i++) ok = x->dims[i] == y->dims[i];
    const rf_attr *ct = rf_layer_attr(l, "coordinate_transformation_mode");
    const char *cm = ct && ct->type == RF_ATTR_STRING ? ct->s : "half_pixel";
    int mode = !strcmp(cm, "half_pixel")           ? 0
               : !strcmp(cm, "align_corners")      ? 1
               : !strcmp(cm, "asymmetric")         ? 2
               : !strcmp(cm, "pytorch_half_pixel") ? 3
                                                   : -1;
    if (!ok || mode < 0 || rf_layer_attr_int(l, "exclude_outside", 0)) {
        rf__xlayer_unmeasured(p, li,
                              "cubic resize of more than the last two axes, wider than %d, or "
                              "coordinate mode '%s' / exclude_outside",
                              RF__CUBIC_MAX_W, cm);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = mode;
    c.outer = 1;
    for (uint32_t i = 0; i + 2 < r; i++) c.outer *= x->dims[i];
    c.st[0][0] = x->dims[r - 2], c.st[0][1] = x->dims[r - 1];
    c.st[1][0] = y->dims[r - 2], c.st[1][1] = y->dims[r - 1];
    const rf_attr *ca = rf_layer_attr(l, "cubic_coeff_a");
    c.value = ca && ca->type == RF_ATTR_FLOAT ? (float)ca->f : -0.75f;
    uint32_t io[2] = {xu, Y};
    rf__xlayer_measured(p, li, "c:resize-cubic");
    return rf__xstep_add_kernel(p, li, resize_cubic, io, 2, 1, &c);
}
