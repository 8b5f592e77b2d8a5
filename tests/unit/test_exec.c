/* test_exec.c — the executor's oneDNN and C compute ops numerically against naive C references
 * on small shapes: convolution (groups, depthwise, stride, dilation, asymmetric pads),
 * ConvTranspose (the same, with output_padding), Gemm,
 * batched MatMul, eltwise, broadcast binary (oneDNN and C), Where, Pow, pooling, normalisation,
 * softmax, reduction. Graphs built by hand with their shapes stated; no timing assertions.
 * Layouts: test_exec_layout.c; data ops: test_exec_data.c; harness: test_exec_run.c. */
#include "exec_tg.h"

/* ---- convolution -------------------------------------------------------------------------- */

static void conv_case(convp q, int64_t pb, int64_t pr, int bias)
{
    tg t = tg_new();
    q.oh = (q.h + q.pt + pb - ((q.kh - 1) * q.dh + 1)) / q.sh + 1;
    q.ow = (q.w + q.pl + pr - ((q.kw - 1) * q.dw + 1)) / q.sw + 1;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(q.n, q.c, q.h, q.w));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(q.oc, q.c / q.g, q.kh, q.kw));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(q.n, q.oc, q.oh, q.ow));
    uint32_t li = bias ? lay(&t, "Conv", IN(x, w, b), y) : lay(&t, "Conv", IN(x, w), y);
    rf_graph_set_attr_int(t.ctx, t.g, li, "group", q.g);
    ints(&t, li, "strides", D(q.sh, q.sw));
    ints(&t, li, "dilations", D(q.dh, q.dw));
    ints(&t, li, "pads", D(q.pt, q.pl, pb, pr));
    if (run(&t)) {
        expect_measured(&t, li, "onednn:convolution");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *bv = vals(&t, b, 0), *got = out(&t, y);
        float *ref = calloc(elems(&t, y), sizeof *ref);
        conv_ref(&q, xv, wv, bias ? bv : NULL, ref);
        close_all("conv", got, ref, elems(&t, y));
        free(xv), free(wv), free(bv), free(got), free(ref);
    }
    tg_free(&t);
}

RF_TEST(conv_groups_stride_dilation_pads)
{
    conv_case((convp){2, 4, 9, 8, 6, 3, 3, 2, 2, 1, 2, 1, 1, 0, 0, 0}, 2, 1, 1);
}

RF_TEST(conv_depthwise_and_plain)
{
    conv_case((convp){1, 8, 7, 7, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, 0, 0}, 1, 1, 1);
    conv_case((convp){1, 3, 12, 10, 16, 5, 3, 1, 2, 2, 1, 1, 2, 1, 0, 0}, 2, 1, 0);
    conv_case((convp){1, 4, 8, 8, 8, 3, 3, 1, 2, 2, 1, 1, 0, 0, 0, 0}, 0, 0,
              1); /* last row unused */
}

/* ConvTranspose against a scatter reference: every input pixel times every tap lands at
 * i = h*stride - pad_top + u*dilation (ONNX ConvTranspose, weight (C_in, C_out/group, kh, kw)). */
static void deconv_case(convp q, int64_t pb, int64_t pr, int64_t oph, int64_t opw, int bias)
{
    tg t = tg_new();
    q.oh = q.sh * (q.h - 1) + oph + (q.kh - 1) * q.dh + 1 - q.pt - pb;
    q.ow = q.sw * (q.w - 1) + opw + (q.kw - 1) * q.dw + 1 - q.pl - pr;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(q.n, q.c, q.h, q.w));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(q.c, q.oc / q.g, q.kh, q.kw));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(q.n, q.oc, q.oh, q.ow));
    uint32_t li =
        bias ? lay(&t, "ConvTranspose", IN(x, w, b), y) : lay(&t, "ConvTranspose", IN(x, w), y);
    rf_graph_set_attr_int(t.ctx, t.g, li, "group", q.g);
    ints(&t, li, "strides", D(q.sh, q.sw));
    ints(&t, li, "dilations", D(q.dh, q.dw));
    ints(&t, li, "pads", D(q.pt, q.pl, pb, pr));
    ints(&t, li, "output_padding", D(oph, opw));
    if (run(&t)) {
        expect_measured(&t, li, "onednn:deconvolution");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *bv = vals(&t, b, 0), *got = out(&t, y);
        uint64_t ny = elems(&t, y);
        double *acc = calloc(ny, sizeof *acc);
        float *ref = calloc(ny, sizeof *ref);
        int64_t icg = q.c / q.g, ocg = q.oc / q.g;
        for (int64_t n = 0; n < q.n; n++)
            for (int64_t c = 0; c < q.c; c++)
                for (int64_t hh = 0; hh < q.h; hh++)
                    for (int64_t ww = 0; ww < q.w; ww++)
                        for (int64_t oo = 0; oo < ocg; oo++)
                            for (int64_t u = 0; u < q.kh; u++)
                                for (int64_t v = 0; v < q.kw; v++) {
                                    int64_t i = hh * q.sh - q.pt + u * q.dh;
                                    int64_t j = ww * q.sw - q.pl + v * q.dw;
                                    if (i < 0 || i >= q.oh || j < 0 || j >= q.ow) continue;
                                    int64_t o = c / icg * ocg + oo;
                                    acc[((n * q.oc + o) * q.oh + i) * q.ow + j] +=
                                        (double)xv[((n * q.c + c) * q.h + hh) * q.w + ww] *
                                        wv[((c * ocg + oo) * q.kh + u) * q.kw + v];
                                }
        for (uint64_t i = 0; i < ny; i++)
            ref[i] = (float)(acc[i] + (bias ? bv[i / (uint64_t)(q.oh * q.ow) % q.oc] : 0));
        close_all("deconv", got, ref, ny);
        free(xv), free(wv), free(bv), free(got), free(ref), free(acc);
    }
    tg_free(&t);
}

RF_TEST(conv_transpose_groups_stride_dilation_pads)
{
    /* stride 2, pads 1, output_padding 1 (a U-Net/DCGAN upsampler) */
    deconv_case((convp){2, 4, 5, 6, 6, 3, 3, 1, 2, 2, 1, 1, 1, 1, 0, 0}, 1, 1, 1, 1, 1);
    /* groups 2, dilation 2, asymmetric pads, no bias */
    deconv_case((convp){1, 4, 4, 5, 8, 3, 2, 2, 1, 2, 2, 1, 0, 1, 0, 0}, 2, 0, 0, 1, 0);
    /* depthwise, stride 3 */
    deconv_case((convp){1, 6, 3, 3, 6, 2, 2, 6, 3, 3, 1, 1, 0, 0, 0, 0}, 0, 0, 0, 0, 1);
}

/* ---- matrix products ---------------------------------------------------------------------- */

RF_TEST(gemm_trans_bias)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(7, 5));  /* transA: A is K x M */
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(9, 7)); /* transB: B is N x K */
    uint32_t c = tens(&t, "c", RF_TENSOR_WEIGHT, D(9));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(5, 9));
    uint32_t li = lay(&t, "Gemm", IN(a, b, c), y);
    rf_graph_set_attr_int(t.ctx, t.g, li, "transA", 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "transB", 1);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:matmul");
        float *av = vals(&t, a, 0), *bv = vals(&t, b, 0), *cv = vals(&t, c, 0), *got = out(&t, y);
        float ref[45];
        for (int m = 0; m < 5; m++)
            for (int n = 0; n < 9; n++) {
                double acc = cv[n];
                for (int k = 0; k < 7; k++) acc += (double)av[k * 5 + m] * bv[n * 7 + k];
                ref[m * 9 + n] = (float)acc;
            }
        close_all("gemm", got, ref, 45);
        free(av), free(bv), free(cv), free(got);
    }
    tg_free(&t);
}

RF_TEST(matmul_batched_broadcast)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(2, 1, 3, 4));
    uint32_t b = tens(&t, "b", RF_TENSOR_INPUT, D(3, 4, 5));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 3, 3, 5));
    uint32_t v = tens(&t, "v", RF_TENSOR_WEIGHT, D(5));
    uint32_t z = tens(&t, "z", RF_TENSOR_OUTPUT, D(2, 3, 3));
    uint32_t li = lay(&t, "MatMul", IN(a, b), y);
    uint32_t l2 = lay(&t, "MatMul", IN(y, v), z);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:matmul");
        expect_measured(&t, l2, "onednn:matmul");
        float *av = vals(&t, a, 0), *bv = vals(&t, b, 0), *vv = vals(&t, v, 0);
        float *got = out(&t, y), *gz = out(&t, z), ref[90], rz[18];
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                for (int m = 0; m < 3; m++)
                    for (int n = 0; n < 5; n++) {
                        double acc = 0;
                        for (int k = 0; k < 4; k++)
                            acc += (double)av[(i * 3 + m) * 4 + k] * bv[(j * 4 + k) * 5 + n];
                        ref[((i * 3 + j) * 3 + m) * 5 + n] = (float)acc;
                    }
        for (int r = 0; r < 18; r++) {
            double acc = 0;
            for (int n = 0; n < 5; n++) acc += (double)ref[r * 5 + n] * vv[n];
            rz[r] = (float)acc;
        }
        close_all("matmul", got, ref, 90);
        close_all("matmul 1-D", gz, rz, 18);
        free(av), free(bv), free(vv), free(got), free(gz);
    }
    tg_free(&t);
}

/* ---- elementwise -------------------------------------------------------------------------- */

static float ref_unary(const char *op, float x)
{
    if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(op, "Sigmoid")) return 1.0f / (1.0f + expf(-x));
    if (!strcmp(op, "Tanh")) return tanhf(x);
    if (!strcmp(op, "Exp")) return expf(x);
    if (!strcmp(op, "Gelu")) return 0.5f * x * (1.0f + erff(x / sqrtf(2.0f)));
    if (!strcmp(op, "LeakyRelu")) return x > 0 ? x : 0.1f * x;
    if (!strcmp(op, "Clip")) return x < -0.25f ? -0.25f : x > 0.5f ? 0.5f : x;
    if (!strcmp(op, "Erf")) return erff(x);
    if (!strcmp(op, "Neg")) return -x;
    if (!strcmp(op, "Abs")) return fabsf(x);
    return NAN;
}

RF_TEST(eltwise_ops)
{
    static const char *const ops[] = {"Relu",      "Sigmoid", "Tanh", "Exp", "Gelu",
                                      "LeakyRelu", "Clip",    "Erf",  "Neg", "Abs"};
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        tg t = tg_new();
        uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(3, 5, 7));
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(3, 5, 7));
        uint32_t li = lay(&t, ops[k], IN(x), y);
        rf_graph_set_attr_float(t.ctx, t.g, li, "alpha", 0.1);
        rf_graph_set_attr_float(t.ctx, t.g, li, "min", -0.25);
        rf_graph_set_attr_float(t.ctx, t.g, li, "max", 0.5);
        if (run(&t)) {
            RF_EXPECT_INT(t.p->layers[li].measured, 1);
            float *xv = vals(&t, x, 0), *got = out(&t, y), ref[105];
            for (int i = 0; i < 105; i++) ref[i] = ref_unary(ops[k], xv[i]);
            close_all(ops[k], got, ref, 105);
            free(xv), free(got);
        }
        tg_free(&t);
    }
}

/* Broadcast binary ops: oneDNN when the full operand can be src0, else the C kernel. */
static void binary_case(const char *op, int swap, const char *kernel)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(2, 3, 4, 5));
    uint32_t b = tens(&t, "b", RF_TENSOR_INPUT, D(3, 1, 5));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 3, 4, 5));
    uint32_t li = swap ? lay(&t, op, IN(b, a), y) : lay(&t, op, IN(a, b), y);
    if (run(&t)) {
        expect_measured(&t, li, kernel);
        float *av = vals(&t, a, 0), *bv = vals(&t, b, 0), *got = out(&t, y), ref[120];
        for (int i = 0; i < 120; i++) {
            int j = i / 20 % 3, l = i % 5;
            float p = av[i], q = bv[j * 5 + l];
            if (swap) p = bv[j * 5 + l], q = av[i];
            ref[i] = !strcmp(op, "Add")     ? p + q
                     : !strcmp(op, "Sub")   ? p - q
                     : !strcmp(op, "Mul")   ? p * q
                     : !strcmp(op, "Div")   ? p / q
                     : !strcmp(op, "Max")   ? (p > q ? p : q)
                     : !strcmp(op, "PRelu") ? (p < 0 ? q * p : p)
                                            : powf(fabsf(p), q);
        }
        close_all(op, got, ref, 120);
        free(av), free(bv), free(got);
    }
    tg_free(&t);
}

RF_TEST(binary_broadcast)
{
    binary_case("Add", 0, "onednn:binary");
    binary_case("Add", 1, "onednn:binary"); /* swapped: commutes */
    binary_case("Mul", 0, "onednn:binary");
    binary_case("Sub", 0, "onednn:binary");
    binary_case("Sub", 1, "c:binary"); /* the broadcast operand first: C */
    binary_case("Div", 1, "c:binary");
    binary_case("Max", 0, "onednn:binary");
    binary_case("PRelu", 0, "c:binary");
}

RF_TEST(where_and_pow)
{
    tg t = tg_new();
    uint32_t c = tens(&t, "c", RF_TENSOR_INPUT, D(4, 1));
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 6));
    uint32_t z = tens(&t, "z", RF_TENSOR_INPUT, D(6));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 6));
    uint32_t e = tens(&t, "e", RF_TENSOR_WEIGHT, D(6));
    uint32_t p = tens(&t, "p", RF_TENSOR_OUTPUT, D(4, 6));
    uint32_t l0 = lay(&t, "Where", IN(c, x, z), y);
    uint32_t l1 = lay(&t, "Pow", IN(y, e), p);
    if (run(&t)) {
        expect_measured(&t, l0, "c:where");
        expect_measured(&t, l1, "c:binary");
        float *cv = vals(&t, c, 0), *xv = vals(&t, x, 0), *zv = vals(&t, z, 0),
              *ev = vals(&t, e, 0);
        float *gy = out(&t, y), *gp = out(&t, p), ry[24], rp[24];
        for (int i = 0; i < 24; i++) {
            ry[i] = cv[i / 6] != 0 ? xv[i] : zv[i % 6];
            rp[i] = powf(ry[i], ev[i % 6]);
        }
        close_all("where", gy, ry, 24);
        for (int i = 0; i < 24; i++) /* NaN for negative bases with a fractional exponent */
            if (!isnan(rp[i])) close_all("pow", gp + i, rp + i, 1);
        free(cv), free(xv), free(zv), free(ev), free(gy), free(gp);
    }
    tg_free(&t);
}

/* ---- pooling and normalisation ------------------------------------------------------------ */

static void pool_ref(const float *x, int64_t C, int64_t H, int64_t W, int64_t k, int64_t s,
                     int64_t pad, int64_t OH, int64_t OW, int max, float *y)
{
    for (int64_t c = 0; c < C; c++)
        for (int64_t i = 0; i < OH; i++)
            for (int64_t j = 0; j < OW; j++) {
                double acc = max ? -INFINITY : 0;
                int cnt = 0;
                for (int64_t u = 0; u < k; u++)
                    for (int64_t v = 0; v < k; v++) {
                        int64_t h = i * s - pad + u, w = j * s - pad + v;
                        if (h < 0 || h >= H || w < 0 || w >= W) continue;
                        float e = x[(c * H + h) * W + w];
                        if (max)
                            acc = e > acc ? e : acc;
                        else
                            acc += e;
                        cnt++;
                    }
                y[(c * OH + i) * OW + j] = (float)(max ? acc : acc / cnt);
            }
}

RF_TEST(pooling_max_avg_ceil)
{
    for (int max = 0; max < 2; max++) {
        tg t = tg_new();
        /* 9x9, k3 s2 p1, ceil_mode: ceil((9+2-3)/2)+1 = 5 */
        uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 3, 9, 9));
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 3, 5, 5));
        uint32_t li = lay(&t, max ? "MaxPool" : "AveragePool", IN(x), y);
        ints(&t, li, "kernel_shape", D(3, 3));
        ints(&t, li, "strides", D(2, 2));
        ints(&t, li, "pads", D(1, 1, 1, 1));
        rf_graph_set_attr_int(t.ctx, t.g, li, "ceil_mode", 1);
        if (run(&t)) {
            expect_measured(&t, li, "onednn:pooling");
            float *xv = vals(&t, x, 0), *got = out(&t, y), ref[75];
            pool_ref(xv, 3, 9, 9, 3, 2, 1, 5, 5, max, ref);
            close_all(max ? "maxpool" : "avgpool", got, ref, 75);
            free(xv), free(got);
        }
        tg_free(&t);
    }
}

RF_TEST(batchnorm_layernorm_softmax_reduce)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 3, 4, 4));
    uint32_t sc = tens(&t, "sc", RF_TENSOR_WEIGHT, D(3)),
             bi = tens(&t, "bi", RF_TENSOR_WEIGHT, D(3));
    uint32_t me = tens(&t, "me", RF_TENSOR_WEIGHT, D(3)),
             va = tens(&t, "va", RF_TENSOR_WEIGHT, D(3));
    uint32_t bn = tens(&t, "bn", RF_TENSOR_OUTPUT, D(2, 3, 4, 4));
    uint32_t g4 = tens(&t, "g4", RF_TENSOR_WEIGHT, D(4)),
             b4 = tens(&t, "b4", RF_TENSOR_WEIGHT, D(4));
    uint32_t ln = tens(&t, "ln", RF_TENSOR_OUTPUT, D(2, 3, 4, 4));
    uint32_t sm = tens(&t, "sm", RF_TENSOR_OUTPUT, D(2, 3, 4, 4));
    uint32_t rm = tens(&t, "rm", RF_TENSOR_OUTPUT, D(2, 1, 4, 4));
    uint32_t l0 = lay(&t, "BatchNormalization", IN(x, sc, bi, me, va), bn);
    rf_graph_set_attr_float(t.ctx, t.g, l0, "epsilon", 1e-3);
    uint32_t l1 = lay(&t, "LayerNormalization", IN(x, g4, b4), ln);
    uint32_t l2 = lay(&t, "Softmax", IN(x), sm);
    uint32_t l3 = lay(&t, "ReduceMean", IN(x), rm);
    ints(&t, l3, "axes", D(1));
    if (run(&t)) {
        expect_measured(&t, l0, "onednn:batch_normalization");
        expect_measured(&t, l1, "onednn:layer_normalization");
        expect_measured(&t, l2, "onednn:softmax");
        expect_measured(&t, l3, "onednn:reduction");
        float *xv = vals(&t, x, 0), *s = vals(&t, sc, 0), *b = vals(&t, bi, 0),
              *m = vals(&t, me, 0);
        float *v = vals(&t, va, 1), *gg = vals(&t, g4, 0), *gb = vals(&t, b4, 0);
        float rbn[96], rln[96], rsm[96], rrm[32];
        for (int i = 0; i < 96; i++) {
            int c = i / 16 % 3;
            rbn[i] = (xv[i] - m[c]) / sqrtf(v[c] + 1e-3f) * s[c] + b[c];
        }
        for (int r = 0; r < 24; r++) {
            const float *row = xv + r * 4;
            double mu = 0, var = 0, mx = -INFINITY, se = 0;
            for (int k = 0; k < 4; k++) mu += row[k] / 4.0, mx = row[k] > mx ? row[k] : mx;
            for (int k = 0; k < 4; k++)
                var += (row[k] - mu) * (row[k] - mu) / 4.0, se += exp(row[k] - mx);
            for (int k = 0; k < 4; k++) {
                rln[r * 4 + k] = (float)((row[k] - mu) / sqrt(var + 1e-5) * gg[k] + gb[k]);
                rsm[r * 4 + k] = (float)(exp(row[k] - mx) / se);
            }
        }
        for (int n = 0; n < 2; n++)
            for (int i = 0; i < 16; i++)
                rrm[n * 16 + i] = (xv[n * 48 + i] + xv[n * 48 + 16 + i] + xv[n * 48 + 32 + i]) / 3;
        float *o0 = out(&t, bn), *o1 = out(&t, ln), *o2 = out(&t, sm), *o3 = out(&t, rm);
        close_all("batchnorm", o0, rbn, 96);
        close_all("layernorm", o1, rln, 96);
        close_all("softmax", o2, rsm, 96);
        close_all("reducemean", o3, rrm, 32);
        free(xv), free(s), free(b), free(m), free(v), free(gg), free(gb);
        free(o0), free(o1), free(o2), free(o3);
    }
    tg_free(&t);
}
