/* test_exec_fuse.c — element-wise layers fused into the convolution or matmul before them as
 * oneDNN post-ops: the fused result equals the unfused one (the same graph with the intermediate
 * tensors made graph outputs, which keeps every layer on its own step), each fused layer is
 * reported with its host and a share of the host kernel's time, and a chain of convolutions
 * runs in one layout (no reorder between them). */
#include "exec_tg.h"

/* x -> Conv(w1, b1) -> Relu -> Conv(w2) -> HardSwish -> Sigmoid -> y; `keep` makes the
 * intermediates graph outputs (read outside: nothing fuses). Tensor order is the same either
 * way, so the synthetic values are too. Layer indices in li[5]. */
static tg chain(int keep, uint32_t *y, uint32_t *li)
{
    tg t = tg_new();
    uint32_t mid = keep ? RF_TENSOR_OUTPUT : 0;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 16, 10, 10));
    uint32_t w1 = tens(&t, "w1", RF_TENSOR_WEIGHT, D(32, 16, 3, 3));
    uint32_t b1 = tens(&t, "b1", RF_TENSOR_WEIGHT, D(32));
    uint32_t w2 = tens(&t, "w2", RF_TENSOR_WEIGHT, D(16, 32, 1, 1));
    uint32_t c1 = tens(&t, "c1", mid, D(1, 32, 10, 10)), r1 = tens(&t, "r1", mid, D(1, 32, 10, 10));
    uint32_t c2 = tens(&t, "c2", mid, D(1, 16, 10, 10)), h2 = tens(&t, "h2", mid, D(1, 16, 10, 10));
    *y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 16, 10, 10));
    li[0] = lay(&t, "Conv", IN(x, w1, b1), c1);
    ints(&t, li[0], "pads", D(1, 1, 1, 1));
    li[1] = lay(&t, "Relu", IN(c1), r1);
    li[2] = lay(&t, "Conv", IN(r1, w2), c2);
    li[3] = lay(&t, "HardSwish", IN(c2), h2);
    li[4] = lay(&t, "Sigmoid", IN(h2), *y);
    return t;
}

RF_TEST(fused_equals_unfused)
{
    uint32_t y, yu, li[5], lu[5];
    tg f = chain(0, &y, li), u = chain(1, &yu, lu);
    if (run(&f) && run(&u)) {
        RF_EXPECT_INT(f.p->layers[li[1]].fused_into, (int)li[0]);
        RF_EXPECT_INT(f.p->layers[li[3]].fused_into, (int)li[2]);
        RF_EXPECT_INT(f.p->layers[li[4]].fused_into, (int)li[2]);
        expect_measured(&f, li[1], "onednn:post-op");
        expect_measured(&f, li[4], "onednn:post-op");
        for (int k = 0; k < 5; k++) RF_EXPECT_INT(u.p->layers[lu[k]].fused_into, -1);
        expect_measured(&u, lu[1], "onednn:eltwise");
        size_t steps_f = 0, steps_u = 0; /* fewer steps run when fused */
        for (size_t s = 0; s < f.p->n_steps; s++) steps_f += f.p->steps[s].extra != RF__XOWNER;
        for (size_t s = 0; s < u.p->n_steps; s++) steps_u += u.p->steps[s].extra != RF__XOWNER;
        RF_EXPECT(steps_f + 3 <= steps_u);
        uint64_t n = elems(&f, y);
        float *a = out(&f, y), *b = out(&u, yu);
        close_all("fused vs unfused", a, b, n);
        double sum = 0;
        for (uint64_t i = 0; i < n; i++) sum += fabs((double)b[i] - 0.5);
        RF_EXPECT(sum > 0.01 * (double)n); /* not a constant sigmoid: the test can fail */
        free(a), free(b);
    }
    tg_free(&f);
    tg_free(&u);
}

/* A fused layer's row: measured, "fused into" its host, and host + fused shares add up to the
 * kernel's time (the fake clock makes every step 1 s). */
RF_TEST(fused_rows_share_the_kernel_time)
{
    uint32_t y, li[5];
    tg t = chain(0, &y, li);
    rf_exec_opts o = {1, 1, 3, fake_clock, NULL, 0};
    rf_exec_result *r = NULL;
    rf_status st = rf_exec_run(t.ctx, t.g, &o, &r);
    if (st != RF_OK) fprintf(stderr, "%s\n", rf_ctx_errmsg(t.ctx));
    RF_REQUIRE(st == RF_OK && r);
    RF_EXPECT_INT(r->layers[li[0]].fused_into, -1);
    RF_EXPECT_INT(r->layers[li[1]].fused_into, (int)li[0]);
    RF_EXPECT_INT(r->layers[li[4]].fused_into, (int)li[2]);
    RF_EXPECT_INT(r->layers[li[4]].measured, 1);
    double h1 = r->layers[li[0]].median_s + r->layers[li[1]].median_s;
    double h2 = r->layers[li[2]].median_s + r->layers[li[3]].median_s + r->layers[li[4]].median_s;
    RF_EXPECT_NEAR(h1, 1.0, 1e-9);
    RF_EXPECT_NEAR(h2, 1.0, 1e-9);
    RF_EXPECT(r->layers[li[1]].median_s > 0 && r->layers[li[1]].median_s < 0.05);
    RF_EXPECT(r->layers[li[0]].median_s > 0.95);
    rf_exec_result_free(r);
    tg_free(&t);
}

/* Conv -> Relu -> Conv -> Clip -> Conv -> y: one blocked layout through the chain. The only
 * reorders are the input's into the first conv's layout; none between the convs. */
RF_TEST(conv_chain_has_no_inner_reorders)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 16, 12, 12));
    uint32_t w[3], a[5], li[5];
    char nm[8];
    for (int k = 0; k < 3; k++) {
        snprintf(nm, sizeof nm, "w%d", k);
        w[k] = tens(&t, nm, RF_TENSOR_WEIGHT, D(16, 16, 3, 3));
    }
    for (int k = 0; k < 5; k++) {
        snprintf(nm, sizeof nm, "a%d", k);
        a[k] = tens(&t, nm, k == 4 ? RF_TENSOR_OUTPUT : 0, D(1, 16, 12, 12));
    }
    li[0] = lay(&t, "Conv", IN(x, w[0]), a[0]);
    li[1] = lay(&t, "Relu", IN(a[0]), a[1]);
    li[2] = lay(&t, "Conv", IN(a[1], w[1]), a[2]);
    li[3] = lay(&t, "Clip", IN(a[2]), a[3]);
    rf_graph_set_attr_float(t.ctx, t.g, li[3], "min", 0.0);
    rf_graph_set_attr_float(t.ctx, t.g, li[3], "max", 6.0);
    li[4] = lay(&t, "Conv", IN(a[3], w[2]), a[4]);
    for (int k = 0; k < 5; k += 2) ints(&t, li[k], "pads", D(1, 1, 1, 1));
    if (run(&t)) {
        for (int k = 0; k < 5; k += 2) expect_measured(&t, li[k], "onednn:convolution");
        RF_EXPECT_INT(t.p->layers[li[3]].fused_into, (int)li[2]);
        for (size_t e = 0; e < t.p->n_extra; e++) {
            RF_EXPECT_STR(t.p->extra[e].name, "reorder:x");
            RF_EXPECT_INT(t.p->extra[e].before_layer, li[0]);
        }
    }
    tg_free(&t);
}

/* x -> Conv(w1) -> Add(b1 [32,1,1]) -> ConvTranspose(w2, 2x2 stride 2) -> Add(b2 [1,16,1,1])
 * -> y: the Conv takes b1 as its bias (the Add fused into it), the ConvTranspose fuses nothing
 * (oneDNN's deconvolution applies post-ops one element at a time) and its Add runs as a binary
 * on the blocked output. `keep`: the intermediates are graph outputs, nothing fuses. */
static tg bias_chain(int keep, uint32_t *y, uint32_t *li)
{
    tg t = tg_new();
    uint32_t mid = keep ? RF_TENSOR_OUTPUT : 0;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 16, 8, 8));
    uint32_t w1 = tens(&t, "w1", RF_TENSOR_WEIGHT, D(32, 16, 3, 3));
    uint32_t b1 = tens(&t, "b1", RF_TENSOR_WEIGHT, D(32, 1, 1));
    uint32_t w2 = tens(&t, "w2", RF_TENSOR_WEIGHT, D(32, 16, 2, 2));
    uint32_t b2 = tens(&t, "b2", RF_TENSOR_WEIGHT, D(1, 16, 1, 1));
    uint32_t c1 = tens(&t, "c1", mid, D(1, 32, 8, 8)), a1 = tens(&t, "a1", mid, D(1, 32, 8, 8));
    uint32_t d2 = tens(&t, "d2", mid, D(1, 16, 16, 16));
    *y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 16, 16, 16));
    li[0] = lay(&t, "Conv", IN(x, w1), c1);
    ints(&t, li[0], "pads", D(1, 1, 1, 1));
    li[1] = lay(&t, "Add", IN(c1, b1), a1);
    li[2] = lay(&t, "ConvTranspose", IN(a1, w2), d2);
    ints(&t, li[2], "strides", D(2, 2));
    li[3] = lay(&t, "Add", IN(b2, d2), *y);
    return t;
}

RF_TEST(add_becomes_bias_not_deconv_post_op)
{
    uint32_t y, yu, li[4], lu[4];
    tg f = bias_chain(0, &y, li), u = bias_chain(1, &yu, lu);
    if (run(&f) && run(&u)) {
        RF_EXPECT_INT(f.p->layers[li[1]].fused_into, (int)li[0]);
        expect_measured(&f, li[1], "onednn:post-op");
        RF_EXPECT_INT(f.p->layers[li[3]].fused_into, -1);
        expect_measured(&f, li[3], "onednn:binary");
        for (int k = 0; k < 4; k++) RF_EXPECT_INT(u.p->layers[lu[k]].fused_into, -1);
        uint64_t n = elems(&f, y);
        float *a = out(&f, y), *b = out(&u, yu);
        close_all("bias-fused vs unfused", a, b, n);
        free(a), free(b);
    }
    tg_free(&f);
    tg_free(&u);
}

/* x -> Conv a -> Cast -> Concat(., Conv b) -> Conv -> y: the Cast and the Concat run in the
 * convs' layout (no reorder after the input's), and the result equals the same graph with the
 * intermediates made outputs (every layer on its own, in whatever layouts that gives). */
static tg concat_chain(int keep, uint32_t *y, uint32_t *li)
{
    tg t = tg_new();
    uint32_t mid = keep ? RF_TENSOR_OUTPUT : 0;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 32, 12, 12));
    uint32_t wa = tens(&t, "wa", RF_TENSOR_WEIGHT, D(32, 32, 3, 3));
    uint32_t wb = tens(&t, "wb", RF_TENSOR_WEIGHT, D(32, 32, 1, 1));
    uint32_t wc = tens(&t, "wc", RF_TENSOR_WEIGHT, D(32, 64, 3, 3));
    uint32_t a = tens(&t, "a", mid, D(1, 32, 12, 12)), ac = tens(&t, "ac", mid, D(1, 32, 12, 12));
    uint32_t b = tens(&t, "b", mid, D(1, 32, 12, 12)), c = tens(&t, "c", mid, D(1, 64, 12, 12));
    *y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 32, 12, 12));
    li[0] = lay(&t, "Conv", IN(x, wa), a);
    ints(&t, li[0], "pads", D(1, 1, 1, 1));
    li[1] = lay(&t, "Cast", IN(a), ac);
    li[2] = lay(&t, "Conv", IN(x, wb), b);
    li[3] = lay(&t, "Concat", IN(ac, b), c);
    rf_graph_set_attr_int(t.ctx, t.g, li[3], "axis", 1);
    li[4] = lay(&t, "Conv", IN(c, wc), *y);
    ints(&t, li[4], "pads", D(1, 1, 1, 1));
    return t;
}

RF_TEST(concat_and_cast_keep_the_conv_layout)
{
    uint32_t y, yu, li[5], lu[5];
    tg f = concat_chain(0, &y, li), u = concat_chain(1, &yu, lu);
    if (run(&f) && run(&u)) {
        expect_measured(&f, li[1], "c:cast");
        expect_measured(&f, li[3], "onednn:concat");
        for (size_t e = 0; e < f.p->n_extra; e++) /* only the input goes to the convs' layout */
            RF_EXPECT_STR(f.p->extra[e].name, "reorder:x");
        uint64_t n = elems(&f, y);
        float *a = out(&f, y), *b = out(&u, yu);
        close_all("concat in the conv layout vs alone", a, b, n);
        free(a), free(b);
    }
    tg_free(&f);
    tg_free(&u);
}

/* The team sizes a plan asked for while it was built (a stand-in for omp_set_num_threads). */
static int team_calls[2];
static void fake_team(int n)
{
    team_calls[n == 1 ? 0 : 1]++;
}

/* A tiny conv's primitive is made again for one thread when the plan is for two; its result is
 * the same, and its step is marked tiny. */
RF_TEST(tiny_conv_made_for_one_thread)
{
    uint32_t y, li[5];
    tg t = chain(0, &y, li), r = chain(0, &y, li);
    team_calls[0] = team_calls[1] = 0;
    rf_status st = rf__xplan_new_team(t.ctx, t.g, fake_team, 2, &t.p);
    RF_REQUIRE(st == RF_OK);
    RF_EXPECT(team_calls[0] >= 2 && team_calls[1] == team_calls[0]); /* 1, then back to 2 */
    size_t tiny = 0;
    for (size_t s = 0; s < t.p->n_steps; s++)
        if (t.p->steps[s].prim && t.p->steps[s].layer == li[0]) tiny += t.p->steps[s].tiny;
    RF_EXPECT(tiny >= 1);
    if (rf__xplan_pass(t.p, fake_clock, NULL, NULL) == RF_OK && run(&r)) {
        uint64_t n = elems(&t, y);
        float *a = out(&t, y), *b = out(&r, y);
        close_all("one-thread primitive vs default", a, b, n);
        free(a), free(b);
    }
    tg_free(&t);
    tg_free(&r);
}

/* a [6,16] . w [16,24] -> Add(bias [24]) -> Relu -> y: both fused into the matmul (rows
 * measured as post-ops of it), the result equal to the graph with the intermediates as outputs. */
static tg mm_chain(int keep, uint32_t *y, uint32_t *li)
{
    tg t = tg_new();
    uint32_t mid = keep ? RF_TENSOR_OUTPUT : 0;
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(6, 16));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(16, 24));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(24));
    uint32_t m = tens(&t, "m", mid, D(6, 24)), s = tens(&t, "s", mid, D(6, 24));
    *y = tens(&t, "y", RF_TENSOR_OUTPUT, D(6, 24));
    li[0] = lay(&t, "MatMul", IN(a, w), m);
    li[1] = lay(&t, "Add", IN(m, b), s);
    li[2] = lay(&t, "Relu", IN(s), *y);
    return t;
}

RF_TEST(matmul_fuses_bias_and_relu)
{
    uint32_t y, yu, li[3], lu[3];
    tg f = mm_chain(0, &y, li), u = mm_chain(1, &yu, lu);
    if (run(&f) && run(&u)) {
        expect_measured(&f, li[0], "onednn:matmul");
        RF_EXPECT_INT(f.p->layers[li[1]].fused_into, (int)li[0]);
        RF_EXPECT_INT(f.p->layers[li[2]].fused_into, (int)li[0]);
        expect_measured(&f, li[2], "onednn:post-op");
        RF_EXPECT_INT(u.p->layers[lu[1]].fused_into, -1);
        uint64_t n = elems(&f, y);
        float *a = out(&f, y), *b = out(&u, yu);
        close_all("fused matmul vs unfused", a, b, n);
        size_t zero = 0;
        for (uint64_t i = 0; i < n; i++) zero += a[i] == 0;
        RF_EXPECT(zero > 0 && zero < n); /* the Relu cut some, not all: the test can fail */
        free(a), free(b);
    }
    tg_free(&f);
    tg_free(&u);
}
