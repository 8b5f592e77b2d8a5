/* test_exec_quant.c — the quantisation ops in the executor (op_quant.c, op_qlinear.c) against
 * naive references: QuantizeLinear's ties rounded half to even and saturation at both ends of
 * u8 and i8, per-axis scales and zero points, DequantizeLinear per axis, DynamicQuantizeLinear.
 * The quantised outputs are integers and must match exactly (a rounding difference is a whole
 * step); dequantised values are one float subtraction and product (close_all's 1e-4). */
#include "exec_tg.h"

static uint32_t tensd(tg *t, const char *name, uint32_t flags, rf_dtype dt, const int64_t *dims,
                      uint32_t rank)
{
    uint32_t i = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t->ctx, t->g, name, dt, rank, dims, flags, &i);
    return i;
}

static void setv(tg *t, uint32_t x, const int64_t *v, uint32_t n)
{
    rf_graph_set_values(t->ctx, t->g, x, v, n);
}

static uint32_t lay_n(tg *t, const char *op, const uint32_t *in, uint32_t nin, const uint32_t *out,
                      uint32_t nout)
{
    uint32_t li = 0;
    rf_graph_add_layer(t->ctx, t->g, op, op, in, nin, out, nout, &li);
    return li;
}

/* Round half to even, written out: the nearest integer, on a tie the even one. */
static double ref_rne(double v)
{
    double f = floor(v), d = v - f;
    if (d > 0.5) return f + 1;
    if (d < 0.5) return f;
    return fmod(f, 2.0) == 0 ? f : f + 1;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void exact_all(const char *what, const float *got, const double *ref, uint64_t n)
{
    int bad = 0;
    for (uint64_t i = 0; i < n && bad < 3; i++)
        if ((double)got[i] != ref[i]) {
            RF_FAIL_AT("%s[%llu]: got %.9g, want %.9g", what, (unsigned long long)i, got[i],
                       ref[i]);
            bad++;
        }
}

/* x = -6 .. 5 over scale 2: every other value a tie; zp 253 saturates the top at 255. */
RF_TEST(quantize_ties_and_saturation_u8)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, D(2, 6));
    uint32_t s = tensd(&t, "s", RF_TENSOR_WEIGHT, RF_DTYPE_F32, NULL, 0);
    uint32_t z = tensd(&t, "z", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(2, 6));
    int64_t xv[12];
    for (int i = 0; i < 12; i++) xv[i] = i - 6;
    setv(&t, x, xv, 12);
    setv(&t, s, (const int64_t[]){2}, 1);
    setv(&t, z, (const int64_t[]){253}, 1);
    uint32_t li = lay_n(&t, "QuantizeLinear", IN(x, s, z), &y, 1);
    if (run(&t)) {
        expect_measured(&t, li, "c:quantize");
        double ref[12];
        for (int i = 0; i < 12; i++) ref[i] = clampd(ref_rne(xv[i] / 2.0) + 253, 0, 255);
        RF_EXPECT(ref[1] == 251 && ref[7] == 253 && ref[11] == 255); /* -2.5 -> -2, 0.5 -> 0 */
        float *g = out(&t, y);
        exact_all("q", g, ref, 12);
        free(g);
    }
    tg_free(&t);
}

/* Per-axis (axis 1) i8 with zero points at both ends of the range, synthetic x and scales. */
RF_TEST(quantize_dequantize_per_axis_i8)
{
    enum { N = 2, C = 3, W = 4 };
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, D(N, C, W));
    uint32_t s = tensd(&t, "s", RF_TENSOR_WEIGHT, RF_DTYPE_F32, D(C));
    uint32_t z = tensd(&t, "z", RF_TENSOR_WEIGHT, RF_DTYPE_I8, D(C));
    uint32_t q = tensd(&t, "q", RF_TENSOR_OUTPUT, RF_DTYPE_I8, D(N, C, W));
    uint32_t d = tensd(&t, "d", RF_TENSOR_OUTPUT, RF_DTYPE_F32, D(N, C, W));
    setv(&t, z, (const int64_t[]){-128, 0, 127}, 3);
    uint32_t l0 = lay_n(&t, "QuantizeLinear", IN(x, s, z), &q, 1);
    uint32_t l1 = lay_n(&t, "DequantizeLinear", IN(q, s, z), &d, 1);
    if (run(&t)) {
        expect_measured(&t, l0, "c:quantize");
        expect_measured(&t, l1, "c:dequantize");
        float *xv = vals(&t, x, 0), *sv = vals(&t, s, 1), *gq = out(&t, q), *gd = out(&t, d);
        const double zv[C] = {-128, 0, 127};
        double rq[N * C * W];
        float rd[N * C * W];
        int lo = 0, hi = 0;
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                for (int w = 0; w < W; w++) {
                    int i = (n * C + c) * W + w;
                    double v = ref_rne((double)(xv[i] / sv[c])) + zv[c];
                    lo += v<-128, hi += v> 127;
                    rq[i] = clampd(v, -128, 127);
                    rd[i] = (float)((rq[i] - zv[c]) * sv[c]);
                }
        RF_EXPECT(lo > 0 && hi > 0); /* both ends saturated */
        exact_all("q", gq, rq, N * C * W);
        close_all("d", gd, rd, N * C * W);
        free(xv), free(sv), free(gq), free(gd);
    }
    tg_free(&t);
}

/* DequantizeLinear of an integer input along the last axis (axis -1). */
RF_TEST(dequantize_last_axis)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_U8, D(2, 3));
    uint32_t s = tensd(&t, "s", RF_TENSOR_WEIGHT, RF_DTYPE_F32, D(3));
    uint32_t z = tensd(&t, "z", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(3));
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_F32, D(2, 3));
    setv(&t, z, (const int64_t[]){1, 2, 3}, 3);
    uint32_t li = lay_n(&t, "DequantizeLinear", IN(x, s, z), &y, 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "axis", -1);
    if (run(&t)) {
        expect_measured(&t, li, "c:dequantize");
        float *xv = calloc(6, sizeof *xv), *sv = vals(&t, s, 1), *g = out(&t, y), r[6];
        rf__exec_synth(t.g, x, 0, 1, xv, 6);
        for (int i = 0; i < 6; i++) r[i] = (xv[i] - (float)(1 + i % 3)) * sv[i % 3];
        close_all("y", g, r, 6);
        free(xv), free(sv), free(g);
    }
    tg_free(&t);
}

RF_TEST(dynamic_quantize)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, D(3, 20));
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(3, 20));
    uint32_t ys = tensd(&t, "ys", RF_TENSOR_OUTPUT, RF_DTYPE_F32, NULL, 0);
    uint32_t yz = tensd(&t, "yz", RF_TENSOR_OUTPUT, RF_DTYPE_U8, NULL, 0);
    uint32_t li = lay_n(&t, "DynamicQuantizeLinear", IN(x), (const uint32_t[]){y, ys, yz}, 3);
    if (run(&t)) {
        expect_measured(&t, li, "c:quantize");
        float *xv = vals(&t, x, 0), *g = out(&t, y), *gs = out(&t, ys), *gz = out(&t, yz);
        float mn = 0, mx = 0;
        for (int i = 0; i < 60; i++) mn = xv[i] < mn ? xv[i] : mn, mx = xv[i] > mx ? xv[i] : mx;
        float sc = (mx - mn) / 255.0f;
        double zp = clampd(ref_rne((double)(-mn / sc)), 0, 255), r[60];
        for (int i = 0; i < 60; i++) r[i] = clampd(ref_rne((double)(xv[i] / sc)) + zp, 0, 255);
        close_all("scale", gs, &sc, 1);
        exact_all("zp", gz, &zp, 1);
        exact_all("y", g, r, 60);
        free(xv), free(g), free(gs), free(gz);
    }
    tg_free(&t);
}

/* Sizes that leave a tail after the SIMD loops of both passes (8 and 4 wide). */
RF_TEST(dynamic_quantize_tail)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, D(1, 37));
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(1, 37));
    uint32_t ys = tensd(&t, "ys", RF_TENSOR_OUTPUT, RF_DTYPE_F32, NULL, 0);
    uint32_t yz = tensd(&t, "yz", RF_TENSOR_OUTPUT, RF_DTYPE_U8, NULL, 0);
    uint32_t li = lay_n(&t, "DynamicQuantizeLinear", IN(x), (const uint32_t[]){y, ys, yz}, 3);
    if (run(&t)) {
        expect_measured(&t, li, "c:quantize");
        float *xv = vals(&t, x, 0), *g = out(&t, y), *gs = out(&t, ys), *gz = out(&t, yz);
        float mn = 0, mx = 0;
        for (int i = 0; i < 37; i++) mn = xv[i] < mn ? xv[i] : mn, mx = xv[i] > mx ? xv[i] : mx;
        float sc = (mx - mn) / 255.0f;
        double zp = clampd(ref_rne((double)(-mn / sc)), 0, 255), r[37];
        for (int i = 0; i < 37; i++) r[i] = clampd(ref_rne((double)(xv[i] / sc)) + zp, 0, 255);
        close_all("scale", gs, &sc, 1);
        exact_all("zp", gz, &zp, 1);
        exact_all("y", g, r, 37);
        free(xv), free(g), free(gs), free(gz);
    }
    tg_free(&t);
}

/* Blocked quantisation is refused, with the reason. */
RF_TEST(quantize_blocked_refused)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, D(2, 8));
    uint32_t s = tensd(&t, "s", RF_TENSOR_WEIGHT, RF_DTYPE_F32, D(2, 2));
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(2, 8));
    uint32_t li = lay_n(&t, "QuantizeLinear", IN(x, s), &y, 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "block_size", 4);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[li].measured, 0);
        RF_EXPECT(strstr(t.p->layers[li].reason, "block_size") != NULL);
    }
    tg_free(&t);
}

/* The integer values the executor fed an integer tensor with. */
static float *ivals(const tg *t, uint32_t x)
{
    uint64_t n = elems(t, x);
    float *v = calloc(n ? n : 1, sizeof *v);
    rf__exec_synth(t->g, x, 0, 1, v, n);
    return v;
}

/* MatMulInteger u8 x u8 with both zero points: the products of integers are exact in f32 here
 * (|sum| < 2^24), so the result must match exactly. */
RF_TEST(matmul_integer_zero_points)
{
    enum { M = 3, K = 40, N = 5 };
    tg t = tg_new();
    uint32_t a = tensd(&t, "a", RF_TENSOR_INPUT, RF_DTYPE_U8, D(M, K));
    uint32_t b = tensd(&t, "b", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(K, N));
    uint32_t az = tensd(&t, "az", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t bz = tensd(&t, "bz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_I32, D(M, N));
    setv(&t, az, (const int64_t[]){2}, 1);
    setv(&t, bz, (const int64_t[]){1}, 1);
    uint32_t li = lay_n(&t, "MatMulInteger", IN(a, b, az, bz), &y, 1);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:matmul-int8");
        float *av = ivals(&t, a), *bv = ivals(&t, b), *g = out(&t, y);
        double r[M * N];
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int k = 0; k < K; k++) acc += (av[i * K + k] - 2.0) * (bv[k * N + j] - 1.0);
                r[i * N + j] = acc;
            }
        exact_all("y", g, r, M * N);
        free(av), free(bv), free(g);
    }
    tg_free(&t);
}

/* QLinearMatMul u8 x s8 -> u8 with per-column weight scales: y = sat(rne(acc * s) + zp), s =
 * a_s * b_s[n] / y_s computed in float as ONNX Runtime does; the integer accumulator is exact,
 * so only a product landing within float rounding of a .5 could differ by one (none does here:
 * checked by the distance to the tie). */
RF_TEST(qlinear_matmul_per_column)
{
    enum { M = 4, K = 32, N = 6 };
    tg t = tg_new();
    uint32_t a = tensd(&t, "a", RF_TENSOR_INPUT, RF_DTYPE_U8, D(M, K));
    uint32_t as = tensd(&t, "as", RF_TENSOR_WEIGHT, RF_DTYPE_F32, NULL, 0);
    uint32_t az = tensd(&t, "az", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t b = tensd(&t, "b", RF_TENSOR_WEIGHT, RF_DTYPE_I8, D(K, N));
    uint32_t bs = tensd(&t, "bs", RF_TENSOR_WEIGHT, RF_DTYPE_F32, D(N));
    uint32_t bz = tensd(&t, "bz", RF_TENSOR_WEIGHT, RF_DTYPE_I8, D(N));
    uint32_t ys = tensd(&t, "ys", RF_TENSOR_WEIGHT, RF_DTYPE_F32, NULL, 0);
    uint32_t yz = tensd(&t, "yz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(M, N));
    setv(&t, az, (const int64_t[]){3}, 1);
    setv(&t, bz, (const int64_t[]){0, 0, 0, 0, 0, 0}, N);
    setv(&t, yz, (const int64_t[]){50}, 1);
    uint32_t li = lay_n(&t, "QLinearMatMul", IN(a, as, az, b, bs, bz, ys, yz), &y, 1);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:matmul-int8");
        float *av = ivals(&t, a), *bv = ivals(&t, b), *g = out(&t, y);
        float *asv = vals(&t, as, 1), *bsv = vals(&t, bs, 1), *ysv = vals(&t, ys, 1);
        double r[M * N];
        int low = 0, high = 0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int acc = 0;
                for (int k = 0; k < K; k++) acc += ((int)av[i * K + k] - 3) * (int)bv[k * N + j];
                float s = asv[0] * bsv[j] / ysv[0], v = (float)acc * s;
                RF_EXPECT(fabs(v - floor(v) - 0.5) > 1e-3);
                double q = ref_rne(v) + 50;
                low += q < 0;
                high += q > 255;
                r[i * N + j] = clampd(q, 0, 255);
            }
        exact_all("y", g, r, M * N);
        /* y_zero_point 50 puts part of the products under 0: saturation is checked, and the
         * rest lands inside */
        RF_EXPECT(low > 0 && low + high < M * N);
        free(av), free(bv), free(g), free(asv), free(bsv), free(ysv);
    }
    tg_free(&t);
}

/* ConvInteger with an input zero point, pads 1, stride 2: conv_ref on (x - 2). */
RF_TEST(conv_integer)
{
    convp q = {1, 4, 7, 7, 5, 3, 3, 1, 2, 2, 1, 1, 1, 1, 4, 4};
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_U8, D(1, 4, 7, 7));
    uint32_t w = tensd(&t, "w", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(5, 4, 3, 3));
    uint32_t xz = tensd(&t, "xz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_I32, D(1, 5, 4, 4));
    setv(&t, xz, (const int64_t[]){2}, 1);
    uint32_t li = lay_n(&t, "ConvInteger", IN(x, w, xz), &y, 1);
    ints(&t, li, "pads", D(1, 1, 1, 1));
    ints(&t, li, "strides", D(2, 2));
    if (run(&t)) {
        expect_measured(&t, li, "onednn:convolution-int8");
        float *xv = ivals(&t, x), *wv = ivals(&t, w), *g = out(&t, y);
        static float r[80];
        /* zero padding of x - zp is a padding of x by zp: shift x, pad with zeros */
        for (int i = 0; i < 4 * 49; i++) xv[i] -= 2.0f;
        conv_ref(&q, xv, wv, NULL, r);
        double rd[80];
        for (int i = 0; i < 80; i++) rd[i] = r[i];
        exact_all("y", g, rd, 80);
        free(xv), free(wv), free(g);
    }
    tg_free(&t);
}

/* QLinearConv u8 x s8 -> u8, per-channel weight scales, int32 bias added before the scale. */
RF_TEST(qlinear_conv_per_channel_bias)
{
    convp q = {1, 4, 6, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 6, 6};
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_U8, D(1, 4, 6, 6));
    uint32_t xs = tensd(&t, "xs", RF_TENSOR_WEIGHT, RF_DTYPE_F32, NULL, 0);
    uint32_t xz = tensd(&t, "xz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t w = tensd(&t, "w", RF_TENSOR_WEIGHT, RF_DTYPE_I8, D(6, 4, 3, 3));
    uint32_t ws = tensd(&t, "ws", RF_TENSOR_WEIGHT, RF_DTYPE_F32, D(6));
    uint32_t wz = tensd(&t, "wz", RF_TENSOR_WEIGHT, RF_DTYPE_I8, D(6));
    uint32_t ys = tensd(&t, "ys", RF_TENSOR_WEIGHT, RF_DTYPE_F32, NULL, 0);
    uint32_t yz = tensd(&t, "yz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t b = tensd(&t, "b", RF_TENSOR_WEIGHT, RF_DTYPE_I32, D(6));
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_U8, D(1, 6, 6, 6));
    setv(&t, xz, (const int64_t[]){1}, 1);
    setv(&t, wz, (const int64_t[]){0, 0, 0, 0, 0, 0}, 6);
    setv(&t, yz, (const int64_t[]){120}, 1);
    setv(&t, b, (const int64_t[]){-7, 0, 3, 11, -2, 5}, 6);
    uint32_t li = lay_n(&t, "QLinearConv", IN(x, xs, xz, w, ws, wz, ys, yz, b), &y, 1);
    ints(&t, li, "pads", D(1, 1, 1, 1));
    if (run(&t)) {
        expect_measured(&t, li, "onednn:convolution-int8");
        float *xv = ivals(&t, x), *wv = ivals(&t, w), *g = out(&t, y);
        float *xsv = vals(&t, xs, 1), *wsv = vals(&t, ws, 1), *ysv = vals(&t, ys, 1);
        const float bv[6] = {-7, 0, 3, 11, -2, 5};
        static float acc[216];
        for (int i = 0; i < 4 * 36; i++) xv[i] -= 1.0f;
        conv_ref(&q, xv, wv, bv, acc);
        double r[216];
        for (int o = 0; o < 6; o++)
            for (int i = 0; i < 36; i++) {
                float s = xsv[0] * wsv[o] / ysv[0], v = acc[o * 36 + i] * s;
                RF_EXPECT(fabs(v - floor(v) - 0.5) > 1e-3);
                r[o * 36 + i] = clampd(ref_rne(v) + 120, 0, 255);
            }
        exact_all("y", g, r, 216);
        free(xv), free(wv), free(g), free(xsv), free(wsv), free(ysv);
    }
    tg_free(&t);
}

/* A weight zero point folds in (op_qint.c): u8 weights minus 3, x's zero point 0. */
RF_TEST(conv_integer_weight_zero_point)
{
    convp q = {1, 2, 4, 4, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 4, 4};
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_U8, D(1, 2, 4, 4));
    uint32_t w = tensd(&t, "w", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(3, 2, 1, 1));
    uint32_t xz = tensd(&t, "xz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t wz = tensd(&t, "wz", RF_TENSOR_WEIGHT, RF_DTYPE_U8, NULL, 0);
    uint32_t y = tensd(&t, "y", RF_TENSOR_OUTPUT, RF_DTYPE_I32, D(1, 3, 4, 4));
    setv(&t, wz, (const int64_t[]){3}, 1);
    uint32_t li = lay_n(&t, "ConvInteger", IN(x, w, xz, wz), &y, 1);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:convolution-int8");
        float *xv = ivals(&t, x), *wv = ivals(&t, w), *g = out(&t, y);
        float r[48];
        for (int i = 0; i < 6; i++) wv[i] -= 3.0f;
        conv_ref(&q, xv, wv, NULL, r);
        double rd[48];
        for (int i = 0; i < 48; i++) rd[i] = r[i];
        exact_all("y", g, rd, 48);
        free(xv), free(wv), free(g);
    }
    tg_free(&t);
}
