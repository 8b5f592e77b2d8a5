/* test_exec_select.c — the executor's selection, scan and scatter ops (op_select.c) against naive
 * references: TopK (largest and smallest, an inner axis, ties to the lower index), CumSum (every
 * combination of exclusive and reverse), ScatterND (whole slices and single elements, negative
 * indices wrapped, reduction add with a repeated index) and ScatterElements (both axes, mul). */
#include "exec_tg.h"

/* The reference TopK of one slice: indices ordered by value (descending when largest), ties by
 * index; the first k kept. */
static void topk_ref(const float *x, int64_t n, int64_t stride, int64_t k, int largest, float *v,
                     float *ix, int64_t ostride)
{
    int64_t order[64];
    for (int64_t i = 0; i < n; i++) order[i] = i;
    for (int64_t i = 1; i < n; i++) /* insertion sort: stable, so ties keep index order */
        for (int64_t j = i; j > 0; j--) {
            float a = x[order[j - 1] * stride], b = x[order[j] * stride];
            if (!(largest ? b > a : b < a)) break;
            int64_t tmp = order[j];
            order[j] = order[j - 1], order[j - 1] = tmp;
        }
    for (int64_t i = 0; i < k; i++) {
        v[i * ostride] = x[order[i] * stride];
        ix[i * ostride] = (float)order[i];
    }
}

/* x [3, 20, 4], K = 6 along axis 1 (an inner axis), largest and smallest. */
RF_TEST(topk_inner_axis_both_ways)
{
    for (int largest = 0; largest < 2; largest++) {
        tg t = tg_new();
        uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(3, 20, 4));
        uint32_t k = ivec(&t, "k", D(1), (const int64_t[]){6}, 1);
        uint32_t v = tens(&t, "v", RF_TENSOR_OUTPUT, D(3, 6, 4));
        uint32_t i = RF_GRAPH_NO_TENSOR;
        rf_graph_add_tensor(t.ctx, t.g, "i", RF_DTYPE_I64, 3, (const int64_t[]){3, 6, 4},
                            RF_TENSOR_OUTPUT, &i);
        uint32_t li = lay2(&t, "TopK", IN(x, k), v, i);
        rf_graph_set_attr_int(t.ctx, t.g, li, "axis", 1);
        rf_graph_set_attr_int(t.ctx, t.g, li, "largest", largest);
        if (run(&t)) {
            expect_measured(&t, li, "c:topk");
            float *xv = vals(&t, x, 0), *gv = out(&t, v), *gi = out(&t, i), rv[72], ri[72];
            for (int o = 0; o < 3; o++)
                for (int in = 0; in < 4; in++)
                    topk_ref(xv + o * 80 + in, 20, 4, 6, largest, rv + o * 24 + in,
                             ri + o * 24 + in, 4);
            close_all("topk values", gv, rv, 72);
            close_all("topk indices", gi, ri, 72);
            free(xv), free(gv), free(gi);
        }
        tg_free(&t);
    }
}

/* Constant values with ties on the last axis: equal values come out lower index first, for the
 * largest and the smallest alike; K = the whole axis orders all of it. */
RF_TEST(topk_ties_lower_index_first)
{
    static const int64_t xs[12] = {5, 1, 5, 3, 1, 5, 2, 2, 7, 0, 2, 7};
    for (int largest = 0; largest < 2; largest++)
        for (int64_t kk = 3; kk <= 6; kk += 3) {
            tg t = tg_new();
            uint32_t x = ivec(&t, "x", D(2, 6), xs, 12);
            uint32_t k = ivec(&t, "k", D(1), (const int64_t[]){kk}, 1);
            uint32_t v = tens(&t, "v", RF_TENSOR_OUTPUT, (const int64_t[]){2, kk}, 2);
            uint32_t i = tens(&t, "i", RF_TENSOR_OUTPUT, (const int64_t[]){2, kk}, 2);
            uint32_t li = lay2(&t, "TopK", IN(x, k), v, i);
            rf_graph_set_attr_int(t.ctx, t.g, li, "largest", largest);
            if (run(&t)) {
                expect_measured(&t, li, "c:topk");
                float xf[12], rv[12], ri[12], *gv = out(&t, v), *gi = out(&t, i);
                for (int e = 0; e < 12; e++) xf[e] = (float)xs[e];
                for (int r = 0; r < 2; r++)
                    topk_ref(xf + r * 6, 6, 1, kk, largest, rv + r * kk, ri + r * kk, 1);
                close_all("ties values", gv, rv, (uint64_t)(2 * kk));
                close_all("ties indices", gi, ri, (uint64_t)(2 * kk));
                if (largest && kk == 3) /* row 0: 5 at 0, 2, 5 */
                    RF_EXPECT(gi[0] == 0 && gi[1] == 2 && gi[2] == 5);
                free(gv), free(gi);
            }
            tg_free(&t);
        }
}

RF_TEST(cumsum_exclusive_reverse)
{
    for (int mode = 0; mode < 4; mode++) {
        int excl = mode & 1, rev = mode >> 1;
        tg t = tg_new();
        uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 7, 3));
        uint32_t a = ivec(&t, "axis", NULL, 0, (const int64_t[]){-2}, 1);
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 7, 3));
        uint32_t li = lay(&t, "CumSum", IN(x, a), y);
        rf_graph_set_attr_int(t.ctx, t.g, li, "exclusive", excl);
        rf_graph_set_attr_int(t.ctx, t.g, li, "reverse", rev);
        if (run(&t)) {
            expect_measured(&t, li, "c:cumsum");
            float *xv = vals(&t, x, 0), *g = out(&t, y), r[42];
            for (int o = 0; o < 2; o++)
                for (int in = 0; in < 3; in++)
                    for (int j = 0; j < 7; j++) {
                        double s = 0;
                        for (int m = 0; m < 7; m++) {
                            int take = rev ? (excl ? m > j : m >= j) : (excl ? m < j : m <= j);
                            if (take) s += xv[(o * 7 + m) * 3 + in];
                        }
                        r[(o * 7 + j) * 3 + in] = (float)s;
                    }
            close_all("cumsum", g, r, 42);
            free(xv), free(g);
        }
        tg_free(&t);
    }
}

/* data [4, 5, 3]: slices chosen by one index (rows 1 and 3), then single elements by three
 * (one negative: -1 wraps to the last), then reduction add over a repeated row. */
RF_TEST(scatter_nd_slices_elements_add)
{
    tg t = tg_new();
    uint32_t d = tens(&t, "d", RF_TENSOR_INPUT, D(4, 5, 3));
    uint32_t i1 = ivec(&t, "i1", D(2, 1), (const int64_t[]){1, 3}, 2);
    uint32_t u1 = tens(&t, "u1", RF_TENSOR_INPUT, D(2, 5, 3));
    uint32_t y1 = tens(&t, "y1", RF_TENSOR_OUTPUT, D(4, 5, 3));
    uint32_t i2 = ivec(&t, "i2", D(2, 3), (const int64_t[]){0, 4, 2, 2, -1, 0}, 6);
    uint32_t u2 = tens(&t, "u2", RF_TENSOR_INPUT, D(2));
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(4, 5, 3));
    uint32_t i3 = ivec(&t, "i3", D(3, 1), (const int64_t[]){2, 0, 2}, 3);
    uint32_t u3 = tens(&t, "u3", RF_TENSOR_INPUT, D(3, 5, 3));
    uint32_t y3 = tens(&t, "y3", RF_TENSOR_OUTPUT, D(4, 5, 3));
    uint32_t l1 = lay(&t, "ScatterND", IN(d, i1, u1), y1);
    uint32_t l2 = lay(&t, "ScatterND", IN(d, i2, u2), y2);
    uint32_t l3 = lay(&t, "ScatterND", IN(d, i3, u3), y3);
    rf_graph_set_attr_string(t.ctx, t.g, l3, "reduction", "add", 3);
    if (run(&t)) {
        expect_measured(&t, l1, "c:scatternd");
        expect_measured(&t, l2, "c:scatternd");
        expect_measured(&t, l3, "c:scatternd");
        float *dv = vals(&t, d, 0), *a = vals(&t, u1, 0), *b = vals(&t, u2, 0),
              *c = vals(&t, u3, 0);
        float *g1 = out(&t, y1), *g2 = out(&t, y2), *g3 = out(&t, y3), r[60];
        memcpy(r, dv, sizeof r);
        for (int e = 0; e < 15; e++) r[15 + e] = a[e], r[45 + e] = a[15 + e];
        close_all("nd slices", g1, r, 60);
        memcpy(r, dv, sizeof r);
        r[(0 * 5 + 4) * 3 + 2] = b[0];
        r[(2 * 5 + 4) * 3 + 0] = b[1]; /* (2, -1, 0): -1 is the last of 5 */
        close_all("nd elements", g2, r, 60);
        memcpy(r, dv, sizeof r);
        for (int e = 0; e < 15; e++) {
            r[30 + e] += c[e] + c[30 + e]; /* row 2 twice */
            r[e] += c[15 + e];
        }
        close_all("nd add", g3, r, 60);
        free(dv), free(a), free(b), free(c), free(g1), free(g2), free(g3);
    }
    tg_free(&t);
}

/* data [4, 5]; along axis 0 (each column's row chosen, no repeats within a column) and along
 * axis 1 with mul and a negative index, indices [2, 3] inside the data's [4, 5]. */
RF_TEST(scatter_elements_axes_mul)
{
    tg t = tg_new();
    uint32_t d = tens(&t, "d", RF_TENSOR_INPUT, D(4, 5));
    uint32_t i0 = ivec(&t, "i0", D(2, 5), (const int64_t[]){3, 0, 1, 2, 3, 1, 2, 3, 0, 0}, 10);
    uint32_t u0 = tens(&t, "u0", RF_TENSOR_INPUT, D(2, 5));
    uint32_t y0 = tens(&t, "y0", RF_TENSOR_OUTPUT, D(4, 5));
    uint32_t i1 = ivec(&t, "i1", D(2, 3), (const int64_t[]){4, -1, 0, 2, 2, 1}, 6);
    uint32_t u1 = tens(&t, "u1", RF_TENSOR_INPUT, D(2, 3));
    uint32_t y1 = tens(&t, "y1", RF_TENSOR_OUTPUT, D(4, 5));
    uint32_t l0 = lay(&t, "ScatterElements", IN(d, i0, u0), y0);
    uint32_t l1 = lay(&t, "ScatterElements", IN(d, i1, u1), y1);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "axis", 1);
    rf_graph_set_attr_string(t.ctx, t.g, l1, "reduction", "mul", 3);
    if (run(&t)) {
        expect_measured(&t, l0, "c:scatterelements");
        expect_measured(&t, l1, "c:scatterelements");
        float *dv = vals(&t, d, 0), *a = vals(&t, u0, 0), *b = vals(&t, u1, 0);
        float *g0 = out(&t, y0), *g1 = out(&t, y1), r[20];
        static const int rows[10] = {3, 0, 1, 2, 3, 1, 2, 3, 0, 0};
        memcpy(r, dv, sizeof r);
        for (int e = 0; e < 10; e++) r[rows[e] * 5 + e % 5] = a[e];
        close_all("elements axis 0", g0, r, 20);
        static const int cols[6] = {4, 4, 0, 2, 2, 1}; /* -1 of 5 is 4 */
        memcpy(r, dv, sizeof r);
        for (int e = 0; e < 6; e++) r[(e / 3) * 5 + cols[e]] *= b[e];
        close_all("elements axis 1 mul", g1, r, 20);
        free(dv), free(a), free(b), free(g0), free(g1);
    }
    tg_free(&t);
}

/* What the kernels cannot take is refused by name, never run out of bounds. */
RF_TEST(select_refusals)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 5));
    uint32_t ax = tens(&t, "ax", RF_TENSOR_INPUT, D(1)); /* an axis known only at run time */
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 5));
    uint32_t i = ivec(&t, "i", D(2, 6), (const int64_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 12);
    uint32_t u = tens(&t, "u", RF_TENSOR_INPUT, D(2, 6));
    uint32_t z = tens(&t, "z", RF_TENSOR_OUTPUT, D(4, 5));
    uint32_t w = tens(&t, "w", RF_TENSOR_OUTPUT, D(4, 5));
    uint32_t l0 = lay(&t, "CumSum", IN(x, ax), y);
    uint32_t l1 = lay(&t, "ScatterElements", IN(x, i, u), z); /* 6 columns into 5 */
    uint32_t l2 = lay(&t, "ScatterND", IN(x, i, u), w);       /* q = 6 > rank 2 */
    rf_graph_set_attr_string(t.ctx, t.g, l2, "reduction", "xor", 3);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[l0].measured, 0);
        RF_EXPECT_CONTAINS(t.p->layers[l0].reason, "axis is not a constant");
        RF_EXPECT_INT(t.p->layers[l1].measured, 0);
        RF_EXPECT_CONTAINS(t.p->layers[l1].reason, "do not fit the data");
        RF_EXPECT_INT(t.p->layers[l2].measured, 0);
        RF_EXPECT_CONTAINS(t.p->layers[l2].reason, "unknown reduction");
    }
    tg_free(&t);
}

/* ArgMax and ArgMin over an inner axis on constant values with ties: the first best index, or the
 * last with select_last_index. */
RF_TEST(argmax_argmin_ties)
{
    static const int64_t xs[12] = {3, 9, 1, 9, 3, 0, 1, 0, 2, 2, 7, 0}; /* [2, 3, 2] */
    for (int mode = 0; mode < 4; mode++) {
        int mx = mode & 1, last = mode >> 1;
        tg t = tg_new();
        uint32_t x = ivec(&t, "x", D(2, 3, 2), xs, 12);
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 1, 2));
        uint32_t li = lay(&t, mx ? "ArgMax" : "ArgMin", IN(x), y);
        rf_graph_set_attr_int(t.ctx, t.g, li, "axis", 1);
        rf_graph_set_attr_int(t.ctx, t.g, li, "select_last_index", last);
        if (run(&t)) {
            expect_measured(&t, li, "c:argmax");
            float *g = out(&t, y), r[4];
            for (int o = 0; o < 2; o++)
                for (int in = 0; in < 2; in++) {
                    int at = 0;
                    for (int j = 1; j < 3; j++) {
                        int64_t v = xs[(o * 3 + j) * 2 + in], b = xs[(o * 3 + at) * 2 + in];
                        if ((mx ? v > b : v < b) || (last && v == b)) at = j;
                    }
                    r[o * 2 + in] = (float)at;
                }
            close_all("argbest", g, r, 4);
            if (mx && !last)
                RF_EXPECT(g[0] == 0 && g[1] == 0); /* 3,9 / 1,9 / 3,0: 3 at 0, 9 at 0 */
            if (mx && last) RF_EXPECT(g[0] == 2 && g[1] == 1);
            free(g);
        }
        tg_free(&t);
    }
}

/* GatherElements along both axes (a negative index wrapped) and GatherND with whole rows (q = 1)
 * and single elements (q = 2). */
RF_TEST(gather_elements_and_nd)
{
    tg t = tg_new();
    uint32_t d = tens(&t, "d", RF_TENSOR_INPUT, D(4, 5));
    uint32_t i0 = ivec(&t, "i0", D(2, 5), (const int64_t[]){3, 0, 1, 2, 3, 1, 2, 3, 0, -1}, 10);
    uint32_t y0 = tens(&t, "y0", RF_TENSOR_OUTPUT, D(2, 5));
    uint32_t i1 = ivec(&t, "i1", D(4, 2), (const int64_t[]){4, 0, 1, 1, 2, 3, -2, 0}, 8);
    uint32_t y1 = tens(&t, "y1", RF_TENSOR_OUTPUT, D(4, 2));
    uint32_t i2 = ivec(&t, "i2", D(3, 1), (const int64_t[]){2, 0, -1}, 3);
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(3, 5));
    uint32_t i3 = ivec(&t, "i3", D(2, 2), (const int64_t[]){1, 4, 3, 0}, 4);
    uint32_t y3 = tens(&t, "y3", RF_TENSOR_OUTPUT, D(2));
    uint32_t l0 = lay(&t, "GatherElements", IN(d, i0), y0);
    uint32_t l1 = lay(&t, "GatherElements", IN(d, i1), y1);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "axis", -1);
    uint32_t l2 = lay(&t, "GatherND", IN(d, i2), y2);
    uint32_t l3 = lay(&t, "GatherND", IN(d, i3), y3);
    if (run(&t)) {
        expect_measured(&t, l0, "c:gatherelements");
        expect_measured(&t, l1, "c:gatherelements");
        expect_measured(&t, l2, "c:gathernd");
        expect_measured(&t, l3, "c:gathernd");
        float *dv = vals(&t, d, 0), *g0 = out(&t, y0), *g1 = out(&t, y1), *g2 = out(&t, y2),
              *g3 = out(&t, y3), r[15];
        static const int rows[10] = {3, 0, 1, 2, 3, 1, 2, 3, 0, 3}; /* -1 of 4 is 3 */
        for (int e = 0; e < 10; e++) r[e] = dv[rows[e] * 5 + e % 5];
        close_all("elements axis 0", g0, r, 10);
        static const int cols[8] = {4, 0, 1, 1, 2, 3, 3, 0}; /* -2 of 5 is 3 */
        for (int e = 0; e < 8; e++) r[e] = dv[(e / 2) * 5 + cols[e]];
        close_all("elements axis -1", g1, r, 8);
        static const int nrow[3] = {2, 0, 3};
        for (int e = 0; e < 15; e++) r[e] = dv[nrow[e / 5] * 5 + e % 5];
        close_all("nd rows", g2, r, 15);
        r[0] = dv[1 * 5 + 4], r[1] = dv[3 * 5 + 0];
        close_all("nd elements", g3, r, 2);
        free(dv), free(g0), free(g1), free(g2), free(g3);
    }
    tg_free(&t);
}

/* The unary ops added with the cost rules (Round on oneDNN, the rest in C), against libm; outside
 * a function's domain both give NaN. */
RF_TEST(unary_trig_round_shrink_celu)
{
    static const char *const ops[] = {"Tan",   "Asin",    "Acos",   "Atan",
                                      "Sinh",  "Cosh",    "Asinh",  "Acosh",
                                      "Atanh", "Round",   "Shrink", "ThresholdedRelu",
                                      "Celu",  "CastLike"};
    enum { N = 12 };
    static const int64_t xs[N] = {-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8};
    for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
        const char *op = ops[k];
        tg t = tg_new();
        uint32_t x = ivec(&t, "x", D(N), xs, N);
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(N));
        uint32_t li = lay(&t, op, IN(x), y);
        if (!strcmp(op, "Shrink")) {
            rf_graph_set_attr_float(t.ctx, t.g, li, "lambd", 1.5);
            rf_graph_set_attr_float(t.ctx, t.g, li, "bias", 0.5);
        }
        if (!strcmp(op, "Celu")) rf_graph_set_attr_float(t.ctx, t.g, li, "alpha", 2.0);
        if (run(&t)) {
            expect_measured(&t, li,
                            !strcmp(op, "CastLike") ? "c:cast"
                            : !strcmp(op, "Round")  ? "onednn:eltwise"
                                                    : "c:unary");
            float *g = out(&t, y), r[N];
            for (int i = 0; i < N; i++) {
                double v = (double)xs[i], w;
                if (!strcmp(op, "Tan"))
                    w = tan(v);
                else if (!strcmp(op, "Asin"))
                    w = asin(v);
                else if (!strcmp(op, "Acos"))
                    w = acos(v);
                else if (!strcmp(op, "Atan"))
                    w = atan(v);
                else if (!strcmp(op, "Sinh"))
                    w = sinh(v);
                else if (!strcmp(op, "Cosh"))
                    w = cosh(v);
                else if (!strcmp(op, "Asinh"))
                    w = asinh(v);
                else if (!strcmp(op, "Acosh"))
                    w = acosh(v);
                else if (!strcmp(op, "Atanh"))
                    w = atanh(v);
                else if (!strcmp(op, "Round"))
                    w = nearbyint(v);
                else if (!strcmp(op, "Shrink"))
                    w = v < -1.5 ? v + 0.5 : v > 1.5 ? v - 0.5 : 0;
                else if (!strcmp(op, "ThresholdedRelu"))
                    w = v > 1.0 ? v : 0;
                else if (!strcmp(op, "Celu"))
                    w = fmax(v, 0) + fmin(0, 2.0 * (exp(v / 2.0) - 1));
                else
                    w = v;
                r[i] = (float)w;
            }
            for (int i = 0; i < N; i++) /* NaN outside a domain: NaN in both */
                if (isnan(r[i]) || isinf(r[i])) {
                    RF_EXPECT(isnan(g[i]) == isnan(r[i]) && isinf(g[i]) == isinf(r[i]));
                    r[i] = g[i] = 0;
                }
            close_all(op, g, r, N);
            free(g);
        }
        tg_free(&t);
    }
}

/* Round is half to even (ONNX): 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -1.5 -> -2. */
RF_TEST(round_half_to_even)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(5));
    uint32_t h = ivec(&t, "half", D(1), (const int64_t[]){2}, 1);
    uint32_t q = tens(&t, "q", RF_TENSOR_OUTPUT, D(5)), y = tens(&t, "y", RF_TENSOR_OUTPUT, D(5));
    uint32_t k = ivec(&t, "k", D(5), (const int64_t[]){1, 3, 5, -1, -3}, 5);
    (void)x;
    uint32_t l0 = lay(&t, "Div", IN(k, h), q); /* 0.5, 1.5, 2.5, -0.5, -1.5 */
    uint32_t l1 = lay(&t, "Round", IN(q), y);
    (void)l0;
    if (run(&t)) {
        expect_measured(&t, l1, "onednn:eltwise");
        float *g = out(&t, y);
        const float r[5] = {0, 2, 2, -0.0f, -2};
        close_all("round", g, r, 5);
        free(g);
    }
    tg_free(&t);
}

/* LRN on oneDNN against the ONNX formula, size 3 over 5 channels. */
RF_TEST(lrn_across_channels)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 5, 3, 4));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 5, 3, 4));
    uint32_t li = lay(&t, "LRN", IN(x), y);
    rf_graph_set_attr_int(t.ctx, t.g, li, "size", 3);
    rf_graph_set_attr_float(t.ctx, t.g, li, "alpha", 0.5);
    rf_graph_set_attr_float(t.ctx, t.g, li, "beta", 0.75);
    rf_graph_set_attr_float(t.ctx, t.g, li, "bias", 2.0);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:lrn");
        float *xv = vals(&t, x, 0), *g = out(&t, y), r[120];
        for (int n = 0; n < 2; n++)
            for (int c = 0; c < 5; c++)
                for (int s = 0; s < 12; s++) {
                    double sq = 0;
                    for (int cc = c - 1; cc <= c + 1; cc++)
                        if (cc >= 0 && cc < 5) sq += pow(xv[(n * 5 + cc) * 12 + s], 2);
                    r[(n * 5 + c) * 12 + s] =
                        (float)(xv[(n * 5 + c) * 12 + s] / pow(2.0 + 0.5 / 3 * sq, 0.75));
                }
        close_all("lrn", g, r, 120);
        free(xv), free(g);
    }
    tg_free(&t);
}

/* Hardmax (first maximum), Trilu lower with k = 1 and upper with k = -1, OneHot with a negative
 * index, LpNormalization p = 1 and 2, GlobalLpPool p = 2. */
RF_TEST(hardmax_trilu_onehot_lp)
{
    tg t = tg_new();
    static const int64_t hv[8] = {1, 4, 4, 2, 0, 0, -1, -5};
    uint32_t hx = ivec(&t, "hx", D(2, 4), hv, 8), hy = tens(&t, "hy", RF_TENSOR_OUTPUT, D(2, 4));
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 3, 4));
    uint32_t k1 = ivec(&t, "k1", D(1), (const int64_t[]){1}, 1);
    uint32_t km = ivec(&t, "km", D(1), (const int64_t[]){-1}, 1);
    uint32_t lo = tens(&t, "lo", RF_TENSOR_OUTPUT, D(2, 3, 4));
    uint32_t up = tens(&t, "up", RF_TENSOR_OUTPUT, D(2, 3, 4));
    uint32_t oi = ivec(&t, "oi", D(3), (const int64_t[]){2, -1, 0}, 3);
    uint32_t od = ivec(&t, "od", D(1), (const int64_t[]){4}, 1);
    uint32_t ov = ivec(&t, "ov", D(2), (const int64_t[]){-2, 7}, 2);
    uint32_t oy = tens(&t, "oy", RF_TENSOR_OUTPUT, D(4, 3)); /* axis 0 */
    uint32_t l1 = tens(&t, "l1", RF_TENSOR_OUTPUT, D(2, 3, 4));
    uint32_t l2 = tens(&t, "l2", RF_TENSOR_OUTPUT, D(2, 3, 4));
    uint32_t gp = tens(&t, "gp", RF_TENSOR_OUTPUT, D(2, 3, 1));
    uint32_t L[7];
    L[0] = lay(&t, "Hardmax", IN(hx), hy);
    L[1] = lay(&t, "Trilu", IN(x, k1), lo);
    rf_graph_set_attr_int(t.ctx, t.g, L[1], "upper", 0);
    L[2] = lay(&t, "Trilu", IN(x, km), up);
    L[3] = lay(&t, "OneHot", IN(oi, od, ov), oy);
    rf_graph_set_attr_int(t.ctx, t.g, L[3], "axis", 0);
    L[4] = lay(&t, "LpNormalization", IN(x), l1);
    rf_graph_set_attr_int(t.ctx, t.g, L[4], "p", 1);
    rf_graph_set_attr_int(t.ctx, t.g, L[4], "axis", 1);
    L[5] = lay(&t, "LpNormalization", IN(x), l2);
    L[6] = lay(&t, "GlobalLpPool", IN(x), gp);
    if (run(&t)) {
        static const char *const kern[7] = {"c:hardmax", "c:trilu",  "c:trilu",       "c:onehot",
                                            "c:lpnorm",  "c:lpnorm", "c:globallppool"};
        for (int i = 0; i < 7; i++) expect_measured(&t, L[i], kern[i]);
        float *xv = vals(&t, x, 0), *g = out(&t, hy), r[24];
        const float rh[8] = {0, 1, 0, 0, 1, 0, 0, 0}; /* first 4 wins; first 0 wins */
        close_all("hardmax", g, rh, 8);
        free(g);
        g = out(&t, lo);
        for (int m = 0; m < 2; m++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    r[(m * 3 + i) * 4 + j] = j - i <= 1 ? xv[(m * 3 + i) * 4 + j] : 0;
        close_all("trilu lower", g, r, 24);
        free(g);
        g = out(&t, up);
        for (int m = 0; m < 2; m++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 4; j++)
                    r[(m * 3 + i) * 4 + j] = j - i >= -1 ? xv[(m * 3 + i) * 4 + j] : 0;
        close_all("trilu upper", g, r, 24);
        free(g);
        g = out(&t, oy);
        const int hot[3] = {2, 3, 0}; /* -1 of depth 4 is 3 */
        for (int d = 0; d < 4; d++)
            for (int i = 0; i < 3; i++) r[d * 3 + i] = d == hot[i] ? 7.0f : -2.0f;
        close_all("onehot", g, r, 12);
        free(g);
        for (int pn = 1; pn <= 2; pn++) {
            g = out(&t, pn == 1 ? l1 : l2);
            for (int m = 0; m < 2; m++)
                for (int j = 0; j < 4; j++) { /* p = 1 along axis 1 (3 long, stride 4) */
                    for (int i = 0; i < 3 && pn == 1; i++) {
                        double s = 0;
                        for (int q = 0; q < 3; q++) s += fabs(xv[(m * 3 + q) * 4 + j]);
                        r[(m * 3 + i) * 4 + j] = (float)(xv[(m * 3 + i) * 4 + j] / s);
                    }
                }
            for (int row = 0; row < 6 && pn == 2; row++) { /* p = 2 along the last axis */
                double s = 0;
                for (int j = 0; j < 4; j++) s += (double)xv[row * 4 + j] * xv[row * 4 + j];
                for (int j = 0; j < 4; j++) r[row * 4 + j] = (float)(xv[row * 4 + j] / sqrt(s));
            }
            close_all(pn == 1 ? "lp1" : "lp2", g, r, 24);
            free(g);
        }
        g = out(&t, gp);
        for (int row = 0; row < 6; row++) {
            double s = 0;
            for (int j = 0; j < 4; j++) s += (double)xv[row * 4 + j] * xv[row * 4 + j];
            r[row] = (float)sqrt(s);
        }
        close_all("global lp", g, r, 6);
        free(g);
        free(xv);
    }
    tg_free(&t);
}

/* ReduceLogSum (oneDNN's sum with a log post-op), ReverseSequence with time first and batch
 * first (lengths clamped: 9 past T = 4 reverses it all, 0 reverses nothing), BitShift both ways
 * with a broadcast shift. */
RF_TEST(logsum_reverse_sequence_bitshift)
{
    tg t = tg_new();
    int64_t xs[24]; /* positive, so the log of the sum is defined */
    for (int i = 0; i < 24; i++) xs[i] = 1 + (i * 7) % 24;
    uint32_t x = ivec(&t, "x", D(4, 3, 2), xs, 24);
    uint32_t ax = ivec(&t, "ax", D(1), (const int64_t[]){1}, 1);
    uint32_t ls = tens(&t, "ls", RF_TENSOR_OUTPUT, D(4, 1, 2));
    uint32_t lens = ivec(&t, "lens", D(3), (const int64_t[]){2, 9, 0}, 3);
    uint32_t r0 = tens(&t, "r0", RF_TENSOR_OUTPUT, D(4, 3, 2));
    uint32_t x2 = tens(&t, "x2", RF_TENSOR_INPUT, D(3, 4, 2));
    uint32_t r1 = tens(&t, "r1", RF_TENSOR_OUTPUT, D(3, 4, 2));
    uint32_t bv = ivec(&t, "bv", D(2, 3), (const int64_t[]){1, 2, 3, 40, 50, 64}, 6);
    uint32_t sh = ivec(&t, "sh", D(3), (const int64_t[]){0, 1, 3}, 3);
    uint32_t bl = tens(&t, "bl", RF_TENSOR_OUTPUT, D(2, 3));
    uint32_t br = tens(&t, "br", RF_TENSOR_OUTPUT, D(2, 3));
    uint32_t L[5];
    L[0] = lay(&t, "ReduceLogSum", IN(x, ax), ls);
    L[1] = lay(&t, "ReverseSequence", IN(x, lens), r0);
    L[2] = lay(&t, "ReverseSequence", IN(x2, lens), r1);
    rf_graph_set_attr_int(t.ctx, t.g, L[2], "time_axis", 1);
    rf_graph_set_attr_int(t.ctx, t.g, L[2], "batch_axis", 0);
    L[3] = lay(&t, "BitShift", IN(bv, sh), bl);
    rf_graph_set_attr_string(t.ctx, t.g, L[3], "direction", "LEFT", 4);
    L[4] = lay(&t, "BitShift", IN(bv, sh), br);
    rf_graph_set_attr_string(t.ctx, t.g, L[4], "direction", "RIGHT", 5);
    if (run(&t)) {
        static const char *const kern[5] = {"onednn:reduction", "c:reversesequence",
                                            "c:reversesequence", "c:bitshift", "c:bitshift"};
        for (int i = 0; i < 5; i++) expect_measured(&t, L[i], kern[i]);
        float xv[24], *g = out(&t, ls), r[24];
        for (int i = 0; i < 24; i++) xv[i] = (float)xs[i];
        for (int a = 0; a < 4; a++)
            for (int c = 0; c < 2; c++) {
                double s = 0;
                for (int b = 0; b < 3; b++) s += xv[(a * 3 + b) * 2 + c];
                r[a * 2 + c] = (float)log(s);
            }
        close_all("logsum", g, r, 8);
        free(g);
        const int len[3] = {2, 4, 0};
        g = out(&t, r0); /* [T 4][B 3][2] */
        for (int tt = 0; tt < 4; tt++)
            for (int b = 0; b < 3; b++) {
                int from = tt < len[b] ? len[b] - 1 - tt : tt;
                for (int c = 0; c < 2; c++) r[(tt * 3 + b) * 2 + c] = xv[(from * 3 + b) * 2 + c];
            }
        close_all("reverse time first", g, r, 24);
        free(g);
        float *x2v = vals(&t, x2, 0);
        g = out(&t, r1); /* [B 3][T 4][2] */
        for (int b = 0; b < 3; b++)
            for (int tt = 0; tt < 4; tt++) {
                int from = tt < len[b] ? len[b] - 1 - tt : tt;
                for (int c = 0; c < 2; c++) r[(b * 4 + tt) * 2 + c] = x2v[(b * 4 + from) * 2 + c];
            }
        close_all("reverse batch first", g, r, 24);
        free(g);
        g = out(&t, bl);
        const float rl[6] = {1, 4, 24, 40, 100, 512};
        close_all("shift left", g, rl, 6);
        free(g);
        g = out(&t, br);
        const float rr[6] = {1, 1, 0, 40, 25, 8};
        close_all("shift right", g, rr, 6);
        free(g);
        free(x2v);
    }
    tg_free(&t);
}
