/* test_exec_data.c — the executor's data-movement layers against naive references: Concat,
 * Transpose, Gather (constant and synthetic indices), Slice (steps), Pad, Expand, Split, views
 * (Reshape chains share bytes), Shape. Graphs built by hand with their shapes stated. */
#include "exec_tg.h"

RF_TEST(concat_transpose)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(2, 3, 4)),
             b = tens(&t, "b", RF_TENSOR_INPUT, D(2, 5, 4));
    uint32_t c = tens(&t, "c", RF_TENSOR_OUTPUT, D(2, 8, 4));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 2, 8));
    uint32_t l0 = lay(&t, "Concat", IN(a, b), c);
    rf_graph_set_attr_int(t.ctx, t.g, l0, "axis", -2);
    uint32_t l1 = lay(&t, "Transpose", IN(c), y);
    ints(&t, l1, "perm", D(2, 0, 1));
    if (run(&t)) {
        expect_measured(&t, l0, "onednn:concat");
        expect_measured(&t, l1, "onednn:reorder");
        float *av = vals(&t, a, 0), *bv = vals(&t, b, 0), *gc = out(&t, c), *gy = out(&t, y);
        float rc[64], ry[64];
        for (int n = 0; n < 2; n++)
            for (int r = 0; r < 8; r++)
                for (int k = 0; k < 4; k++)
                    rc[(n * 8 + r) * 4 + k] =
                        r < 3 ? av[(n * 3 + r) * 4 + k] : bv[(n * 5 + r - 3) * 4 + k];
        for (int k = 0; k < 4; k++)
            for (int n = 0; n < 2; n++)
                for (int r = 0; r < 8; r++) ry[(k * 2 + n) * 8 + r] = rc[(n * 8 + r) * 4 + k];
        close_all("concat", gc, rc, 64);
        close_all("transpose", gy, ry, 64);
        free(av), free(bv), free(gc), free(gy);
    }
    tg_free(&t);
}

RF_TEST(gather_constant_and_synthetic_indices)
{
    tg t = tg_new();
    uint32_t e = tens(&t, "emb", RF_TENSOR_WEIGHT, D(10, 6));
    uint32_t i = tens(&t, "idx", RF_TENSOR_WEIGHT, D(2, 2));
    rf_graph_set_values(t.ctx, t.g, i, (const int64_t[]){3, -1, 0, 9}, 4);
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 2, 6));
    uint32_t ids = RF_GRAPH_NO_TENSOR, z = tens(&t, "z", RF_TENSOR_OUTPUT, D(10, 5));
    rf_graph_add_tensor(t.ctx, t.g, "ids", RF_DTYPE_I64, 1, (const int64_t[]){5}, RF_TENSOR_INPUT,
                        &ids);
    uint32_t l0 = lay(&t, "Gather", IN(e, i), y);
    uint32_t l1 = lay(&t, "Gather", IN(e, ids), z);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "axis", 1);
    if (run(&t)) {
        expect_measured(&t, l0, "c:gather");
        expect_measured(&t, l1, "c:gather");
        RF_EXPECT_CONTAINS(t.p->note, "Gather indices synthetic");
        float *ev = vals(&t, e, 0), *gy = out(&t, y), *gz = out(&t, z), ry[24], rz[50];
        const int rows[4] = {3, 9, 0, 9};
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 6; k++) ry[j * 6 + k] = ev[rows[j] * 6 + k];
        for (int r = 0; r < 10; r++) /* integer inputs are k mod 5: 0 1 2 3 4 */
            for (int j = 0; j < 5; j++) rz[r * 5 + j] = ev[r * 6 + j % 5];
        close_all("gather", gy, ry, 24);
        close_all("gather axis 1", gz, rz, 50);
        free(ev), free(gy), free(gz);
    }
    tg_free(&t);
}

RF_TEST(slice_steps_pad_expand)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 10));
    uint32_t st = tens(&t, "starts", RF_TENSOR_WEIGHT, D(2)),
             en = tens(&t, "ends", RF_TENSOR_WEIGHT, D(2));
    uint32_t ax = tens(&t, "axes", RF_TENSOR_WEIGHT, D(2)),
             sp = tens(&t, "steps", RF_TENSOR_WEIGHT, D(2));
    rf_graph_set_values(t.ctx, t.g, st, (const int64_t[]){1, -2}, 2);
    rf_graph_set_values(t.ctx, t.g, en, (const int64_t[]){4, 0}, 2);
    rf_graph_set_values(t.ctx, t.g, ax, (const int64_t[]){0, 1}, 2);
    rf_graph_set_values(t.ctx, t.g, sp, (const int64_t[]){2, -3}, 2);
    uint32_t s = tens(&t, "s", RF_TENSOR_OUTPUT, D(2, 3)); /* rows 1,3; cols 8,5,2 */
    uint32_t pads = tens(&t, "pads", RF_TENSOR_WEIGHT, D(4));
    rf_graph_set_values(t.ctx, t.g, pads, (const int64_t[]){1, 0, 0, 2}, 4);
    uint32_t pd = tens(&t, "pd", RF_TENSOR_OUTPUT, D(3, 5));
    uint32_t shp = tens(&t, "shp", RF_TENSOR_WEIGHT, D(3));
    rf_graph_set_values(t.ctx, t.g, shp, (const int64_t[]){2, 3, 5}, 3);
    uint32_t ex = tens(&t, "ex", RF_TENSOR_OUTPUT, D(2, 3, 5));
    uint32_t l0 = lay(&t, "Slice", IN(x, st, en, ax, sp), s);
    uint32_t l1 = lay(&t, "Pad", IN(s, pads), pd);
    uint32_t l2 = lay(&t, "Expand", IN(pd, shp), ex);
    if (run(&t)) {
        expect_measured(&t, l0, "c:slice");
        expect_measured(&t, l1, "c:pad");
        expect_measured(&t, l2, "c:expand");
        float *xv = vals(&t, x, 0), *gs = out(&t, s), *gp = out(&t, pd), *ge = out(&t, ex);
        float rs[6], rp[15] = {0}, re[30];
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 3; c++) rs[r * 3 + c] = xv[(1 + 2 * r) * 10 + 8 - 3 * c];
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 3; c++) rp[(r + 1) * 5 + c] = rs[r * 3 + c];
        for (int i = 0; i < 30; i++) re[i] = rp[i % 15];
        close_all("slice", gs, rs, 6);
        close_all("pad", gp, rp, 15);
        close_all("expand", ge, re, 30);
        free(xv), free(gs), free(gp), free(ge);
    }
    tg_free(&t);
}

/* Tile and Pad edge/reflect against index arithmetic written out (ONNX Operators.md examples:
 * reflect of [1.0 1.2; 2.3 3.4; 4.5 5.7] by 2 columns each side gives 1.0 1.2 1.0 1.2 ...). */
RF_TEST(tile_pad_edge_reflect)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(3, 4));
    uint32_t rep = tens(&t, "rep", RF_TENSOR_WEIGHT, D(2));
    rf_graph_set_values(t.ctx, t.g, rep, (const int64_t[]){2, 3}, 2);
    uint32_t ti = tens(&t, "ti", RF_TENSOR_OUTPUT, D(6, 12));
    uint32_t pads = tens(&t, "pads", RF_TENSOR_WEIGHT, D(4));
    rf_graph_set_values(t.ctx, t.g, pads, (const int64_t[]){1, 3, 2, 1}, 4);
    uint32_t pe = tens(&t, "pe", RF_TENSOR_OUTPUT, D(6, 8));
    uint32_t pr = tens(&t, "pr", RF_TENSOR_OUTPUT, D(6, 8));
    uint32_t l0 = lay(&t, "Tile", IN(x, rep), ti);
    uint32_t l1 = lay(&t, "Pad", IN(x, pads), pe);
    uint32_t l2 = lay(&t, "Pad", IN(x, pads), pr);
    rf_graph_set_attr_string(t.ctx, t.g, l1, "mode", "edge", 4);
    rf_graph_set_attr_string(t.ctx, t.g, l2, "mode", "reflect", 7);
    if (run(&t)) {
        expect_measured(&t, l0, "c:tile");
        expect_measured(&t, l1, "c:pad-edge");
        expect_measured(&t, l2, "c:pad-reflect");
        float *xv = vals(&t, x, 0), *gt = out(&t, ti), *ge = out(&t, pe), *gr = out(&t, pr);
        float rt[72], re[48], rr[48];
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 12; c++) rt[r * 12 + c] = xv[(r % 3) * 4 + c % 4];
        /* rows: pad 1 before, 2 after; columns: 3 before, 1 after */
        static const int er[6] = {0, 0, 1, 2, 2, 2}, ec[8] = {0, 0, 0, 0, 1, 2, 3, 3};
        static const int rr_[6] = {1, 0, 1, 2, 1, 0}, rc[8] = {3, 2, 1, 0, 1, 2, 3, 2};
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 8; c++) {
                re[r * 8 + c] = xv[er[r] * 4 + ec[c]];
                rr[r * 8 + c] = xv[rr_[r] * 4 + rc[c]];
            }
        close_all("tile", gt, rt, 72);
        close_all("pad edge", ge, re, 48);
        close_all("pad reflect", gr, rr, 48);
        free(xv), free(gt), free(ge), free(gr);
    }
    tg_free(&t);
}

/* Cubic Resize: the kernel against PyTorch's bicubic interpolation (a = -0.75, edge taps
 * clamped) of x = 0.1 k^2 - k, k = 0..11, as [1,1,3,4] to [5,7] — align_corners=False is
 * ONNX half_pixel, True is align_corners (values printed by torch 1.13's F.interpolate) — then
 * through a graph with the mode attribute. */
RF_TEST(resize_cubic_against_pytorch)
{
    float x[12], y[35];
    for (int k = 0; k < 12; k++) x[k] = 0.1f * (float)(k * k) - (float)k;
    static const float half_pixel[35] = {
        0.327315f,  -0.054666f, -0.654630f, -1.172300f, -1.592084f, -1.951231f, -2.157228f,
        -0.924588f, -1.181827f, -1.578313f, -1.897100f, -2.118000f, -2.273669f, -2.354926f,
        -2.390079f, -2.440224f, -2.498897f, -2.487500f, -2.378216f, -2.196073f, -2.070235f,
        -2.127570f, -1.970621f, -1.691482f, -1.349900f, -0.910432f, -0.390477f, -0.057544f,
        -1.600272f, -1.318582f, -0.835965f, -0.295500f, 0.342851f,  1.066284f,  1.523958f};
    static const float corners[35] = {
        0.000000f,  -0.384375f, -0.900000f, -1.287500f, -1.600000f, -1.915625f, -2.100000f,
        -1.275000f, -1.527344f, -1.850000f, -2.075000f, -2.225000f, -2.347656f, -2.400000f,
        -2.400000f, -2.459375f, -2.500000f, -2.487500f, -2.400000f, -2.240625f, -2.100000f,
        -2.225000f, -2.091406f, -1.850000f, -1.600000f, -1.275000f, -0.833594f, -0.500000f,
        -1.600000f, -1.334375f, -0.900000f, -0.487500f, 0.000000f,  0.634375f,  1.100000f};
    rf__xresize_cubic(x, y, 1, 3, 4, 5, 7, 0, -0.75f);
    close_all("cubic half_pixel", y, half_pixel, 35);
    rf__xresize_cubic(x, y, 1, 3, 4, 5, 7, 1, -0.75f);
    close_all("cubic align_corners", y, corners, 35);

    tg t = tg_new();
    uint32_t in = tens(&t, "in", RF_TENSOR_INPUT, D(2, 3, 6, 5));
    uint32_t yo = tens(&t, "yo", RF_TENSOR_OUTPUT, D(2, 3, 12, 9));
    uint32_t li = lay(&t, "Resize", IN(in), yo);
    rf_graph_set_attr_string(t.ctx, t.g, li, "mode", "cubic", 5);
    if (run(&t)) {
        expect_measured(&t, li, "c:resize-cubic");
        float *xv = vals(&t, in, 0), *got = out(&t, yo);
        float *ref = calloc(2 * 3 * 12 * 9, sizeof *ref);
        rf__xresize_cubic(xv, ref, 6, 6, 5, 12, 9, 0, -0.75f);
        close_all("cubic graph", got, ref, 2 * 3 * 12 * 9);
        free(xv), free(got), free(ref);
    }
    tg_free(&t);
}

RF_TEST(split_views_shape)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 6));
    uint32_t a = tens(&t, "a", RF_TENSOR_OUTPUT, D(2, 2)),
             b = tens(&t, "b", RF_TENSOR_OUTPUT, D(2, 4));
    uint32_t r = tens(&t, "r", 0, D(4, 3)), f = tens(&t, "f", RF_TENSOR_OUTPUT, D(12));
    uint32_t sh = tens(&t, "sh", RF_TENSOR_OUTPUT, D(2));
    uint32_t li = 0, outs[2] = {a, b};
    rf_graph_add_layer(t.ctx, t.g, "split", "Split", (const uint32_t[]){x}, 1, outs, 2, &li);
    rf_graph_set_attr_int(t.ctx, t.g, li, "axis", 1);
    uint32_t l1 = lay(&t, "Reshape", IN(x), r);
    uint32_t l2 = lay(&t, "Flatten", IN(r), f);
    uint32_t l3 = lay(&t, "Shape", IN(r), sh);
    if (run(&t)) {
        expect_measured(&t, li, "c:split");
        expect_measured(&t, l1, "c:view");
        expect_measured(&t, l2, "c:view");
        expect_measured(&t, l3, "c:shape");
        RF_EXPECT(t.p->t[f].data == t.p->t[x].data); /* views share the bytes */
        float *xv = vals(&t, x, 0), *ga = out(&t, a), *gb = out(&t, b), *gf = out(&t, f);
        float *gs = out(&t, sh), ra[4], rb[8], rsh[2] = {4, 3};
        for (int n = 0; n < 2; n++)
            for (int k = 0; k < 6; k++) {
                if (k < 2)
                    ra[n * 2 + k] = xv[n * 6 + k];
                else
                    rb[n * 4 + k - 2] = xv[n * 6 + k];
            }
        close_all("split a", ga, ra, 4);
        close_all("split b", gb, rb, 8);
        close_all("flatten", gf, xv, 12);
        close_all("shape", gs, rsh, 2);
        free(xv), free(ga), free(gb), free(gf), free(gs);
    }
    tg_free(&t);
}

/* Resize (nearest, 2x), LayerNormalization over two axes, Softmax at opset 11 (coerced to 2-D),
 * ReduceSum with constant axes and keepdims 0. */
RF_TEST(resize_layernorm_axis_softmax_opset11_reducesum)
{
    tg t = tg_new();
    t.g->opset = 11;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 2, 3, 4));
    uint32_t rs = tens(&t, "rs", RF_TENSOR_OUTPUT, D(1, 2, 6, 8));
    uint32_t g = tens(&t, "g", RF_TENSOR_WEIGHT, D(3, 4)),
             b = tens(&t, "b", RF_TENSOR_WEIGHT, D(3, 4));
    uint32_t ln = tens(&t, "ln", RF_TENSOR_OUTPUT, D(1, 2, 3, 4));
    uint32_t sm = tens(&t, "sm", RF_TENSOR_OUTPUT, D(1, 2, 3, 4));
    uint32_t ax = tens(&t, "ax", RF_TENSOR_WEIGHT, D(2));
    rf_graph_set_values(t.ctx, t.g, ax, (const int64_t[]){-1, 1}, 2);
    uint32_t rd = tens(&t, "rd", RF_TENSOR_OUTPUT, D(1, 3));
    uint32_t l0 = lay(&t, "Resize", IN(x), rs);
    uint32_t l1 = lay(&t, "LayerNormalization", IN(x, g, b), ln);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "axis", 2);
    uint32_t l2 = lay(&t, "Softmax", IN(x), sm); /* opset 11: axis 1, rows of 12 */
    uint32_t l3 = lay(&t, "ReduceSum", IN(x, ax), rd);
    rf_graph_set_attr_int(t.ctx, t.g, l3, "keepdims", 0);
    if (run(&t)) {
        expect_measured(&t, l0, "onednn:resampling");
        expect_measured(&t, l1, "onednn:layer_normalization");
        expect_measured(&t, l2, "onednn:softmax");
        expect_measured(&t, l3, "onednn:reduction");
        float *xv = vals(&t, x, 0), *gv = vals(&t, g, 0), *bv = vals(&t, b, 0);
        float rrs[96], rln[24], rsm[24], rrd[3] = {0, 0, 0};
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 8; j++)
                    rrs[(c * 6 + i) * 8 + j] = xv[(c * 3 + i / 2) * 4 + j / 2];
        for (int c = 0; c < 2; c++) {
            const float *row = xv + c * 12;
            double mu = 0, var = 0;
            for (int k = 0; k < 12; k++) mu += row[k] / 12.0;
            for (int k = 0; k < 12; k++) var += (row[k] - mu) * (row[k] - mu) / 12.0;
            for (int k = 0; k < 12; k++)
                rln[c * 12 + k] = (float)((row[k] - mu) / sqrt(var + 1e-5) * gv[k] + bv[k]);
        }
        double mx = -INFINITY, se = 0;
        for (int k = 0; k < 24; k++) mx = xv[k] > mx ? xv[k] : mx;
        for (int k = 0; k < 24; k++) se += exp(xv[k] - mx);
        for (int k = 0; k < 24; k++) rsm[k] = (float)(exp(xv[k] - mx) / se);
        for (int k = 0; k < 24; k++) rrd[k / 4 % 3] += xv[k];
        float *o0 = out(&t, rs), *o1 = out(&t, ln), *o2 = out(&t, sm), *o3 = out(&t, rd);
        close_all("resize", o0, rrs, 96);
        close_all("layernorm axis 2", o1, rln, 24);
        close_all("softmax opset 11", o2, rsm, 24);
        close_all("reducesum", o3, rrd, 3);
        free(xv), free(gv), free(bv), free(o0), free(o1), free(o2), free(o3);
    }
    tg_free(&t);
}
