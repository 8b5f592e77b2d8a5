/* test_exec_fold.c — constant folding in the executor (plan.c mark_folded, plan_mem.c fold_once):
 * layers whose inputs are all constants run once when the plan is made, never in a pass, and
 * give exactly the values running them in every pass gives (tests/data/onnx/field_fold.onnx:
 * an LSTM whose W, R, B are a Slice, a Transpose and a Concat of initializers, a MatMul whose B
 * is a Concat of a Transpose and a Slice of initializers, a Reshape by a Shape). */
#include "exec_tg.h"

static rf_graph *load(rf_ctx *ctx, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/onnx/%s.onnx", RF_SOURCE_DIR, name);
    rf_graph *g = NULL;
    if (rf_model_load(ctx, path, NULL, &g) != RF_OK) RF_FAIL_AT("%s: %s", name, rf_ctx_errmsg(ctx));
    return g;
}

static uint32_t layer_named(const rf_graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_layers; i++)
        if (!strcmp(g->layers[i].name, name)) return i;
    RF_FAIL_AT("no layer '%s'", name);
    return 0;
}

static uint32_t tensor_named(const rf_graph *g, const char *name)
{
    for (uint32_t i = 0; i < g->n_tensors; i++)
        if (!strcmp(g->tensors[i].name, name)) return i;
    RF_FAIL_AT("no tensor '%s'", name);
    return 0;
}

/* One pass of plan p; the outputs y and Y into ys, Ys; the steps the pass ran (timed by the fake
 * clock, one tick each) into *ran. */
static void pass_outputs(rf__xplan *p, const rf_graph *g, float *ys, float *Ys, unsigned *ran)
{
    double *step_s = calloc(p->n_steps + 1, sizeof *step_s);
    RF_REQUIRE(step_s);
    RF_EXPECT_INT(rf__xplan_pass(p, fake_clock, NULL, step_s), RF_OK);
    *ran = 0;
    for (size_t s = 0; s < p->n_steps; s++) *ran += step_s[s] > 0;
    free(step_s);
    RF_EXPECT_INT(rf__xplan_read(p, tensor_named(g, "y"), ys, 4), RF_OK);
    RF_EXPECT_INT(rf__xplan_read(p, tensor_named(g, "Y"), Ys, 24), RF_OK);
}

RF_TEST(folded_layers_equal_running_them)
{
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_graph *g = load(ctx, "field_fold");
    RF_REQUIRE(g);
    rf__xplan *f = NULL, *u = NULL;
    RF_REQUIRE(rf__xplan_new(ctx, g, &f) == RF_OK);
    RF_REQUIRE(rf__xplan_new_unfolded(ctx, g, &u) == RF_OK);
    static const char *const folded[] = {"w_slice",    "r_transpose", "b_concat", "p_transpose",
                                         "q_slice",    "m_concat",    "h_shape",  "hs_slice",
                                         "shp_concat", NULL};
    for (const char *const *n = folded; *n; n++) {
        uint32_t li = layer_named(g, *n);
        RF_EXPECT_INT(f->layers[li].folded, 1);
        RF_EXPECT_INT(f->layers[li].measured, 1);
        RF_EXPECT_INT(u->layers[li].folded, 0);
    }
    RF_EXPECT_INT(f->layers[layer_named(g, "lstm")].folded, 0);
    RF_EXPECT_INT(f->layers[layer_named(g, "matmul")].folded, 0);
    RF_EXPECT_INT(f->layers[layer_named(g, "mm_reshape")].folded, 0);
    unsigned fold_steps = 0, fold_extras = 0;
    for (size_t s = 0; s < f->n_steps; s++)
        fold_steps += f->steps[s].fold && f->steps[s].extra != RF__XOWNER;
    for (size_t e = 0; e < f->n_extra; e++) fold_extras += f->extra[e].folded;
    for (size_t s = 0; s < u->n_steps; s++) RF_EXPECT_INT(u->steps[s].fold, 0);
    RF_EXPECT(fold_steps >= 6);
    RF_EXPECT(fold_extras >= 1); /* the LSTM's W and R in oneDNN's layout: reordered once */
    float yf[4], Yf[24], yu[4], Yu[24];
    unsigned ran_f = 0, ran_u = 0;
    pass_outputs(f, g, yf, Yf, &ran_f);
    pass_outputs(u, g, yu, Yu, &ran_u);
    RF_EXPECT(ran_f + fold_steps <= ran_u); /* the folded steps are not in the pass */
    RF_EXPECT(!memcmp(yf, yu, sizeof yf));  /* bit for bit */
    if (memcmp(yf, yu, sizeof yf))
        for (int i = 0; i < 4; i++) fprintf(stderr, "  y[%d] %.9g %.9g\n", i, yf[i], yu[i]);
    RF_EXPECT(!memcmp(Yf, Yu, sizeof Yf));
    static const char *const made[] = {"W", "R", "B", "M", "shp", NULL}; /* the folded values */
    for (const char *const *n = made; *n; n++) {
        uint32_t t = tensor_named(g, *n);
        uint64_t k = 0;
        rf_tensor_elems(&g->tensors[t], &k);
        float *a = calloc(k, sizeof *a), *b = calloc(k, sizeof *b);
        RF_REQUIRE(a && b);
        RF_EXPECT_INT(rf__xplan_read(f, t, a, k), RF_OK);
        RF_EXPECT_INT(rf__xplan_read(u, t, b, k), RF_OK);
        if (memcmp(a, b, k * sizeof *a)) RF_FAIL_AT("folded '%s' differs from running it", *n);
        free(a), free(b);
    }
    float h[8]; /* an LSTM with Y_h and no Y_c writes Y_h: the last step of Y */
    RF_EXPECT_INT(rf__xplan_read(f, tensor_named(g, "Y_h"), h, 8), RF_OK);
    RF_EXPECT(!memcmp(h, Yf + 16, sizeof h));
    int nonzero = 0;
    for (int i = 0; i < 4; i++) nonzero |= yf[i] != 0.0f;
    RF_EXPECT(nonzero);
    /* a second pass of the folded plan: the folded values are still there */
    float y2[4], Y2[24];
    unsigned ran2 = 0;
    pass_outputs(f, g, y2, Y2, &ran2);
    RF_EXPECT(!memcmp(yf, y2, sizeof yf));
    RF_EXPECT_INT(ran2, ran_f);
    rf__xplan_free(f);
    rf__xplan_free(u);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

/* rf_exec_run: folded layers are measured with no time in the pass, their once-at-load time and
 * the counts in the result. */
RF_TEST(exec_result_reports_folded)
{
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_graph *g = load(ctx, "field_fold");
    RF_REQUIRE(g);
    rf_exec_opts o = {1, 1, 2, NULL, NULL, 0};
    rf_exec_result *r = NULL;
    RF_REQUIRE(rf_exec_run(ctx, g, &o, &r) == RF_OK);
    uint32_t li = layer_named(g, "m_concat"), lstm = layer_named(g, "lstm");
    RF_EXPECT_INT(r->layers[li].folded, 1);
    RF_EXPECT_INT(r->layers[li].measured, 1);
    RF_EXPECT(r->layers[li].median_s == 0);
    RF_EXPECT(r->layers[li].load_s > 0);
    RF_EXPECT_INT(r->layers[lstm].folded, 0);
    RF_EXPECT(r->layers[lstm].median_s > 0);
    RF_EXPECT_INT(r->n_folded, 9);
    RF_EXPECT(r->n_extra_folded >= 1);
    RF_EXPECT(r->load_s > 0);
    for (size_t e = 0; e < r->n_extra; e++)
        if (r->extra[e].folded) RF_EXPECT(r->extra[e].median_s == 0);
    rf_exec_result_free(r);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

/* A layer reading a constant and an activation is not folded, and a post-op fusion never joins
 * a folded kernel with a layer that is not (its kernel would run once only): the Add of the
 * folded MatMul's result and the input x runs in every pass, with the values of the unfolded
 * plan; a pass with another x gives another y. */
RF_TEST(activation_input_not_folded)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 4));
    uint32_t a = tens(&t, "a", RF_TENSOR_WEIGHT, D(4, 4));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(4, 4));
    uint32_t ab = tens(&t, "ab", 0, D(4, 4));
    uint32_t xy = tens(&t, "xy", 0, D(4, 4));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 4));
    uint32_t l0 = lay(&t, "MatMul", IN(a, b), ab);
    uint32_t l1 = lay(&t, "Add", IN(ab, x), xy);
    uint32_t l2 = lay(&t, "Relu", IN(xy), y);
    rf__xplan *u = NULL;
    RF_REQUIRE(rf__xplan_new_unfolded(t.ctx, t.g, &u) == RF_OK);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[l0].folded, 1);
        RF_EXPECT_INT(t.p->layers[l1].folded, 0);
        RF_EXPECT_INT(t.p->layers[l2].folded, 0);
        RF_EXPECT(t.p->layers[l1].fused_into != (int32_t)l0);
        RF_EXPECT_INT(t.p->layers[l1].measured, 1);
        RF_EXPECT_INT(rf__xplan_pass(u, fake_clock, NULL, NULL), RF_OK);
        float yf[16], yu[16];
        RF_EXPECT_INT(rf__xplan_read(t.p, y, yf, 16), RF_OK);
        RF_EXPECT_INT(rf__xplan_read(u, y, yu, 16), RF_OK);
        RF_EXPECT(!memcmp(yf, yu, sizeof yf));
        float *xd = t.p->t[x].data; /* a new input: the pass follows it */
        for (int i = 0; i < 16; i++) xd[i] += 100.0f;
        RF_EXPECT_INT(rf__xplan_pass(t.p, fake_clock, NULL, NULL), RF_OK);
        float y2[16];
        RF_EXPECT_INT(rf__xplan_read(t.p, y, y2, 16), RF_OK);
        for (int i = 0; i < 16; i++)
            if (!(fabsf(y2[i] - (yf[i] + 100.0f)) < 1e-3f || (yf[i] == 0 && y2[i] > 0)))
                RF_FAIL_AT("y[%d]: %g after x += 100, %g before", i, y2[i], yf[i]);
    }
    rf__xplan_free(u);
    tg_free(&t);
}

/* A BatchNormalization after a Conv of constant weights is folded into the Conv's weights and
 * bias once, before the passes (a folded step, as ONNX Runtime folds it at load): its row is
 * "fused into" the Conv, and the output is the Conv, BatchNormalization and Relu computed one
 * after the other (with and without a Conv bias, grouped too). */
static void conv_bn_case(convp q, int bias)
{
    tg t = tg_new();
    q.oh = (q.h + 2 * q.pt - q.kh) / q.sh + 1;
    q.ow = (q.w + 2 * q.pl - q.kw) / q.sw + 1;
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(q.n, q.c, q.h, q.w));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(q.oc, q.c / q.g, q.kh, q.kw));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t sc = tens(&t, "scale", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t be = tens(&t, "beta", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t mu = tens(&t, "mean", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t va = tens(&t, "var", RF_TENSOR_WEIGHT, D(q.oc));
    uint32_t c = tens(&t, "c", 0, D(q.n, q.oc, q.oh, q.ow));
    uint32_t z = tens(&t, "z", 0, D(q.n, q.oc, q.oh, q.ow));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(q.n, q.oc, q.oh, q.ow));
    uint32_t lc = bias ? lay(&t, "Conv", IN(x, w, b), c) : lay(&t, "Conv", IN(x, w), c);
    rf_graph_set_attr_int(t.ctx, t.g, lc, "group", q.g);
    ints(&t, lc, "strides", D(q.sh, q.sw));
    ints(&t, lc, "pads", D(q.pt, q.pl, q.pt, q.pl));
    uint32_t lb = lay(&t, "BatchNormalization", IN(c, sc, be, mu, va), z);
    rf_graph_set_attr_float(t.ctx, t.g, lb, "epsilon", 1e-3);
    uint32_t lr = lay(&t, "Relu", IN(z), y);
    if (run(&t)) {
        expect_measured(&t, lc, "onednn:convolution");
        expect_measured(&t, lb, "onednn:post-op");
        RF_EXPECT_INT(t.p->layers[lb].fused_into, (int)lc);
        RF_EXPECT_INT(t.p->layers[lr].fused_into, (int)lc);
        unsigned folds = 0;
        for (size_t s = 0; s < t.p->n_steps; s++) folds += t.p->steps[s].fold;
        RF_EXPECT(folds >= 1);
        uint64_t n = elems(&t, y);
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *bv = vals(&t, b, 0);
        float *sv = vals(&t, sc, 0), *bev = vals(&t, be, 0), *mv = vals(&t, mu, 0),
              *vv = vals(&t, va, 1), *got = out(&t, y), *ref = calloc(n, sizeof *ref);
        conv_ref(&q, xv, wv, bias ? bv : NULL, ref);
        int64_t hw = q.oh * q.ow, neg = 0;
        for (uint64_t i = 0; i < n; i++) {
            int64_t ch = ((int64_t)i / hw) % q.oc;
            float v = (ref[i] - mv[ch]) / sqrtf(vv[ch] + 1e-3f) * sv[ch] + bev[ch];
            neg += v < 0;
            ref[i] = v > 0 ? v : 0;
        }
        close_all("conv + batchnorm + relu", got, ref, n);
        RF_EXPECT(neg > 0 && neg < (int64_t)n); /* the Relu cuts some: the test can fail */
        free(xv), free(wv), free(bv), free(sv), free(bev), free(mv), free(vv), free(got);
        free(ref);
    }
    tg_free(&t);
}

RF_TEST(batchnorm_folded_into_conv)
{
    conv_bn_case((convp){1, 4, 9, 8, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0}, 1);
    conv_bn_case((convp){2, 3, 8, 8, 5, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0}, 0);
}
