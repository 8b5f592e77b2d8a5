/* test_exec_hostile.c — the executor validates before it allocates (issue 25, part 1): output
 * shapes declared smaller than an op computes (TopK's K, OneHot's depth, Split, Slice, Expand,
 * elementwise and broadcast ops), operands that do not agree (Gemm, Conv, LSTM), empty operands
 * kept away from oneDNN and the C kernels, and float indices converted without UB. Each hostile
 * layer is planned and run once: it must end "not measured" with the reason named, and the plan
 * must still run (nothing read or written past a buffer: the sanitizer build runs these too). */
#include "exec_tg.h"

static void expect_not(const tg *t, uint32_t li, const char *why)
{
    RF_EXPECT_INT(t->p->layers[li].measured, 0);
    RF_EXPECT_CONTAINS(t->p->layers[li].reason, why);
}

/* K and the depth from graph inputs: the declared outputs are compared with what the op writes. */
RF_TEST(topk_onehot_declared_small)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 10));
    uint32_t k = tens(&t, "k", RF_TENSOR_INPUT, D(1));
    uint32_t v = tens(&t, "v", RF_TENSOR_OUTPUT, D(1, 3));
    uint32_t i = tens(&t, "i", RF_TENSOR_OUTPUT, D(1, 1));
    uint32_t l0 = lay2(&t, "TopK", IN(x, k), v, i);
    uint32_t ind = tens(&t, "ind", RF_TENSOR_INPUT, D(4));
    uint32_t dep = tens(&t, "dep", RF_TENSOR_INPUT, D(1));
    uint32_t ov = tens(&t, "ov", RF_TENSOR_WEIGHT, D(2));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 3));
    uint32_t l1 = lay(&t, "OneHot", IN(ind, dep, ov), y);
    uint32_t z = tens(&t, "z", RF_TENSOR_OUTPUT, D(1, 5)); /* an elementwise op's output */
    uint32_t l2 = lay(&t, "Erf", IN(x), z);
    if (run(&t)) {
        expect_not(&t, l0, "output 'i': declared shape 1x1, computed 1x3");
        expect_not(&t, l1, "output 'y': declared shape 1x3, computed 4x3");
        expect_not(&t, l2, "output 'z': declared shape 1x5, computed 1x10");
    }
    tg_free(&t);
}

/* Slice with a negative step and a step of INT64_MIN, Split sizes past the axis, an Expand its
 * input does not broadcast to, a PRelu slope that does not broadcast, a Pad output too small, a
 * Tile output other than x times its known repeats. */
RF_TEST(slice_split_expand_bounds)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(10));
    uint32_t s = ivec(&t, "s", D(1), (const int64_t[]){-1}, 1);
    uint32_t e = ivec(&t, "e", D(1), (const int64_t[]){-100}, 1);
    uint32_t ax = tens(&t, "ax", RF_TENSOR_INPUT, D(1)); /* axes known only at run time */
    uint32_t st = ivec(&t, "st", D(1), (const int64_t[]){-1}, 1);
    uint32_t sm = ivec(&t, "sm", D(1), (const int64_t[]){INT64_MIN}, 1);
    uint32_t y0 = tens(&t, "y0", RF_TENSOR_OUTPUT, D(20));
    uint32_t y1 = tens(&t, "y1", RF_TENSOR_OUTPUT, D(3));
    uint32_t l0 = lay(&t, "Slice", IN(x, s, e, ax, st), y0);
    uint32_t l1 = lay(&t, "Slice", IN(x, s, e, ax, sm), y1);
    uint32_t x2 = tens(&t, "x2", RF_TENSOR_INPUT, D(1, 4));
    uint32_t sp = ivec(&t, "sp", D(2), (const int64_t[]){3, 3}, 2);
    uint32_t p0 = tens(&t, "p0", RF_TENSOR_OUTPUT, D(1, 3));
    uint32_t p1 = tens(&t, "p1", RF_TENSOR_OUTPUT, D(1, 3));
    uint32_t l2 = lay2(&t, "Split", IN(x2, sp), p0, p1);
    rf_graph_set_attr_int(t.ctx, t.g, l2, "axis", 1);
    uint32_t shp = tens(&t, "shp", RF_TENSOR_INPUT, D(2));
    uint32_t ex = tens(&t, "ex", RF_TENSOR_OUTPUT, D(3, 8));
    uint32_t l3 = lay(&t, "Expand", IN(x2, shp), ex);
    uint32_t x3 = tens(&t, "x3", RF_TENSOR_INPUT, D(1, 4, 8));
    uint32_t sl = tens(&t, "sl", RF_TENSOR_WEIGHT, D(3));
    uint32_t pr = tens(&t, "pr", RF_TENSOR_OUTPUT, D(1, 4, 8));
    uint32_t l4 = lay(&t, "PRelu", IN(x3, sl), pr);
    uint32_t rp = ivec(&t, "rp", D(2), (const int64_t[]){2, 2}, 2);
    uint32_t ty = tens(&t, "ty", RF_TENSOR_OUTPUT, D(2, 9));
    uint32_t l6 = lay(&t, "Tile", IN(x2, rp), ty);
    uint32_t pd = tens(&t, "pd", RF_TENSOR_OUTPUT, D(1, 5));
    uint32_t l5 = lay(&t, "Pad", IN(x2), pd);
    ints(&t, l5, "pads", D(0, 2, 0, 2));
    if (run(&t)) {
        expect_not(&t, l0, "declared output reads outside x");
        expect_not(&t, l1, "declared output reads outside x");
        expect_not(&t, l2, "Split parts that add up past the axis (4)");
        expect_not(&t, l3, "does not broadcast to");
        expect_not(&t, l4, "PRelu inputs whose shapes do not broadcast");
        expect_not(&t, l5, "not its input plus the pads");
        expect_not(&t, l6, "output 'ty': declared shape 2x9, computed 2x8");
    }
    tg_free(&t);
}

/* Zero-sized dimensions never reach oneDNN (its primitive descriptors divide by them) nor the C
 * kernels; Concat still takes an empty input (an empty past KV cache is common). */
RF_TEST(empty_operands)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(0, 4));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(4, 3));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(0, 3));
    uint32_t l0 = lay(&t, "MatMul", IN(a, b), y);
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 1, 0));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(1, 16, 0));
    uint32_t r = tens(&t, "r", RF_TENSOR_WEIGHT, D(1, 16, 4));
    uint32_t ly = tens(&t, "ly", RF_TENSOR_OUTPUT, D(2, 1, 1, 4));
    uint32_t l1 = lay(&t, "LSTM", IN(x, w, r), ly);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "hidden_size", 4);
    uint32_t past = tens(&t, "past", RF_TENSOR_INPUT, D(1, 0, 8));
    uint32_t nw = tens(&t, "nw", RF_TENSOR_INPUT, D(1, 2, 8));
    uint32_t cy = tens(&t, "cy", RF_TENSOR_OUTPUT, D(1, 2, 8));
    uint32_t l2 = lay(&t, "Concat", IN(past, nw), cy);
    rf_graph_set_attr_int(t.ctx, t.g, l2, "axis", 1);
    if (run(&t)) {
        expect_not(&t, l0, "output 'y' is empty");
        expect_not(&t, l1, "input 'x' is empty");
        RF_EXPECT_INT(t.p->layers[l2].measured, 1);
    }
    tg_free(&t);
}

/* Operands oneDNN reads by the sizes it is told: Gemm's B rows against K, a Conv bias, an LSTM
 * whose R does not have hidden_size columns. */
RF_TEST(gemm_conv_rnn_operands)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(2, 4096));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(1, 1));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 1));
    uint32_t l0 = lay(&t, "Gemm", IN(a, b), y);
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 3, 8, 8));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(4, 3, 3, 3));
    uint32_t cb = tens(&t, "cb", RF_TENSOR_WEIGHT, D(1));
    uint32_t cy = tens(&t, "cy", RF_TENSOR_OUTPUT, D(1, 4, 6, 6));
    uint32_t l1 = lay(&t, "Conv", IN(x, w, cb), cy);
    uint32_t sx = tens(&t, "sx", RF_TENSOR_INPUT, D(2, 1, 4));
    uint32_t sw = tens(&t, "sw", RF_TENSOR_WEIGHT, D(1, 16, 4));
    uint32_t sr = tens(&t, "sr", RF_TENSOR_WEIGHT, D(1, 16, 1));
    uint32_t sy = tens(&t, "sy", RF_TENSOR_OUTPUT, D(2, 1, 1, 4));
    uint32_t l2 = lay(&t, "LSTM", IN(sx, sw, sr), sy);
    rf_graph_set_attr_int(t.ctx, t.g, l2, "hidden_size", 4);
    if (run(&t)) {
        expect_not(&t, l0, "Gemm operands that do not agree: A 2x4096, B 1x1");
        expect_not(&t, l1, "Conv whose weights, bias or output do not agree");
        expect_not(&t, l2, "whose R, B, initial_h/c or hidden_size do not agree");
    }
    tg_free(&t);
}

/* oneDNN ops write x's size (softmax, layer normalization) or the reduced count into the output
 * buffer: a smaller declared output is refused before a primitive is made. */
RF_TEST(onednn_outputs_declared_small)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 64));
    uint32_t g = tens(&t, "g", RF_TENSOR_WEIGHT, D(64));
    uint32_t y0 = tens(&t, "y0", RF_TENSOR_OUTPUT, D(1, 2));
    uint32_t y1 = tens(&t, "y1", RF_TENSOR_OUTPUT, D(1, 2));
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(1, 1));
    uint32_t l0 = lay(&t, "Softmax", IN(x), y0);
    uint32_t l1 = lay(&t, "LayerNormalization", IN(x, g), y1);
    uint32_t l2 = lay(&t, "ReduceSum", IN(x), y2);
    ints(&t, l2, "axes", D(1));
    if (run(&t)) {
        expect_not(&t, l0, "output 'y0': declared shape 1x2, computed 4x64");
        expect_not(&t, l1, "output 'y1': declared shape 1x2, computed 4x64");
        expect_not(&t, l2, "reduction output declared with 1 elements, computed 4");
    }
    tg_free(&t);
}

/* Float indices wrap without a conversion out of range (2^63, infinities, NaN), and the cubic
 * resize kernel given an empty axis writes zeros instead of reading tap -1. */
RF_TEST(float_index_and_empty_taps)
{
    RF_EXPECT_INT(rf__xwrap(3.0f, 10), 3);
    RF_EXPECT_INT(rf__xwrap(-1.0f, 10), 9);
    int64_t big = rf__xwrap(9.2233720e18f, 10); /* 2^63: past int64 */
    RF_EXPECT(big >= 0 && big < 10);
    RF_EXPECT_INT(rf__xwrap(-9.2233720e18f, 10), 2); /* -2^63 mod 10 = -8 -> 2 */
    RF_EXPECT_INT(rf__xwrap(INFINITY, 7), 0);
    RF_EXPECT_INT(rf__xwrap(-INFINITY, 7), 0);
    RF_EXPECT_INT(rf__xwrap(NAN, 7), 0);
    float x[1] = {5}, y[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    rf__xresize_cubic(x, y, 1, 0, 4, 2, 4, 0, -0.75f);
    for (int i = 0; i < 8; i++) RF_EXPECT(y[i] == 0.0f);
    /* a Gather whose index is INT64_MAX (2^63 once a float) runs */
    tg t = tg_new();
    uint32_t d = tens(&t, "d", RF_TENSOR_INPUT, D(10));
    uint32_t ix = ivec(&t, "ix", D(1), (const int64_t[]){INT64_MAX}, 1);
    uint32_t g = tens(&t, "g", RF_TENSOR_OUTPUT, D(1));
    uint32_t l0 = lay(&t, "Gather", IN(d, ix), g);
    if (run(&t)) expect_measured(&t, l0, "c:gather");
    tg_free(&t);
}
