/* test_exec_run.c — rf_exec_run as a whole: the timing harness against a fake clock (exact
 * medians, the automatic repetition count), layers that cannot run keeping shapes flowing,
 * usage errors, an out-of-memory sweep, and every layer of the ONNX fixtures in tests/data
 * measured. No timing assertions. */
#include "exec_tg.h"

/* A clock whose every tick in pass k (warm-up included) is k + 1 seconds long: 2 + 2 * steps
 * reads per pass (pass start and end, each step's start and end). */
typedef struct pass_clock {
    uint64_t calls, per_pass;
    double now;
} pass_clock;

static double tick(void *user)
{
    pass_clock *c = user;
    c->now += (double)(c->calls++ / c->per_pass + 1);
    return c->now;
}

static tg relu_graph(void)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 8));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 8));
    lay(&t, "Relu", IN(x), y);
    return t;
}

RF_TEST(harness_fake_clock_exact_medians)
{
    tg t = relu_graph();
    pass_clock c = {0, 4, 0}; /* one step */
    rf_exec_opts o = {1, 2, 5, tick, &c, 0};
    rf_exec_result *r = NULL;
    rf_status st = rf_exec_run(t.ctx, t.g, &o, &r);
    if (st != RF_OK) fprintf(stderr, "%s\n", rf_ctx_errmsg(t.ctx));
    RF_REQUIRE(st == RF_OK && r);
    RF_EXPECT_INT(r->runs, 5);
    RF_EXPECT_INT(r->warmup, 2);
    RF_EXPECT_INT(r->threads, 1);
    RF_EXPECT_INT(r->n_layers, 1);
    RF_EXPECT_INT(r->layers[0].measured, 1);
    RF_EXPECT_STR(r->layers[0].kernel, "onednn:eltwise");
    /* timed passes are k = 2..6: the step takes k + 1 = 3..7, the pass 3 ticks of k + 1 */
    RF_EXPECT_DBL(r->layers[0].median_s, 5);
    RF_EXPECT_DBL(r->layers[0].min_s, 3);
    RF_EXPECT_DBL(r->layers[0].max_s, 7);
    RF_EXPECT_DBL(r->wall_median_s, 15);
    RF_EXPECT_DBL(r->wall_min_s, 9);
    RF_EXPECT_INT(c.calls, 7 * 4);
    RF_EXPECT(r->peak_bytes >= 2 * 32 * 4);
    rf_exec_result_free(r);
    tg_free(&t);
}

static void collect_info(void *user, rf_log_level level, const char *msg)
{
    char *buf = user;
    size_t n = strlen(buf);
    if (level == RF_LOG_INFO && n + strlen(msg) + 2 < 4096)
        snprintf(buf + n, 4096 - n, "%s\n", msg);
}

/* profile --measure reports progress as llm --measure does: with passes of 3 s and more on the
 * fake clock every pass is "long", so each gets a line ("measuring: ... timed, pass k of n"),
 * and the harness reads the clock no more often than without them (the lines use its readings). */
RF_TEST(harness_progress_lines)
{
    tg t = relu_graph();
    char log[4096] = "";
    pass_clock c = {0, 4, 0};
    rf_exec_opts o = {1, 2, 5, tick, &c, 0};
    rf_exec_result *r = NULL;
    rf_ctx_set_log(t.ctx, collect_info, log, RF_LOG_INFO);
    RF_REQUIRE(rf_exec_run(t.ctx, t.g, &o, &r) == RF_OK);
    RF_EXPECT_INT(c.calls, 7 * 4);
    RF_EXPECT_CONTAINS(log, "measuring: ");
    RF_EXPECT_CONTAINS(log, "warm-up, pass 1 of 2");
    RF_EXPECT_CONTAINS(log, "timed, pass 5 of 5");
    rf_exec_result_free(r);
    r = NULL;
    /* a quick run (passes of nanoseconds on a real clock): no line */
    log[0] = '\0';
    o = (rf_exec_opts){1, 1, 3, NULL, NULL, 0};
    RF_REQUIRE(rf_exec_run(t.ctx, t.g, &o, &r) == RF_OK);
    RF_EXPECT_STR(log, "");
    rf_exec_result_free(r);
    tg_free(&t);
}

RF_TEST(harness_even_runs_and_auto_repeat)
{
    tg t = relu_graph();
    pass_clock c = {0, 4, 0};
    rf_exec_opts o = {1, 1, 4, tick, &c, 0};
    rf_exec_result *r = NULL;
    RF_REQUIRE(rf_exec_run(t.ctx, t.g, &o, &r) == RF_OK);
    RF_EXPECT_DBL(r->layers[0].median_s, 3.5); /* 2 3 4 5 */
    rf_exec_result_free(r);
    r = NULL;
    c = (pass_clock){0, 4, 0};
    o = (rf_exec_opts){1, 0, 0, tick, &c, 0}; /* a pass of 3 s or more: the minimum, 5 runs */
    RF_REQUIRE(rf_exec_run(t.ctx, t.g, &o, &r) == RF_OK);
    RF_EXPECT_INT(r->warmup, 2);
    RF_EXPECT_INT(r->runs, 5);
    rf_exec_result_free(r);
    tg_free(&t);
}

/* A layer with no kernel: not measured with its reason, its output still exists with the
 * stated shape, and the layer after it runs. */
RF_TEST(not_measured_keeps_shapes_flowing)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 3));
    uint32_t m = tens(&t, "m", 0, D(2, 3)), y = tens(&t, "y", RF_TENSOR_OUTPUT, D(2, 3));
    uint32_t u = tens(&t, "u", 0, 0, UINT32_MAX),
             z = tens(&t, "z", RF_TENSOR_OUTPUT, 0, UINT32_MAX);
    lay(&t, "FancyOp", IN(x), m);
    lay(&t, "Relu", IN(m), y);
    lay(&t, "Mystery", IN(x), u); /* shape unknown: so is its consumer's */
    lay(&t, "Relu", IN(u), z);
    rf_exec_opts o = {1, 1, 1, NULL, NULL, 0};
    rf_exec_result *r = NULL;
    RF_REQUIRE(rf_exec_run(t.ctx, t.g, &o, &r) == RF_OK);
    RF_EXPECT_INT(r->layers[0].measured, 0);
    RF_EXPECT_CONTAINS(r->layers[0].reason, "no executor kernel for op 'FancyOp'");
    RF_EXPECT_DBL(r->layers[0].median_s, 0);
    RF_EXPECT_INT(r->layers[1].measured, 1);
    RF_EXPECT_INT(r->layers[2].measured, 0);
    RF_EXPECT_CONTAINS(r->layers[2].reason, "shape of output 'u' unknown");
    RF_EXPECT_INT(r->layers[3].measured, 0);
    RF_EXPECT_CONTAINS(r->layers[3].reason, "input 'u' has no known shape");
    rf_exec_result_free(r);
    tg_free(&t);
}

RF_TEST(usage_errors_and_oom_sweep)
{
    tg t = relu_graph();
    rf_exec_result *r = (rf_exec_result *)1;
    RF_EXPECT_INT(rf_exec_run(t.ctx, NULL, NULL, &r), RF_USAGE);
    rf_exec_result_free(NULL);
    rf_exec_opts o = {1, 1, 1, NULL, NULL, 0};
    int ok = 0;
    for (uint64_t n = 1; n < 200 && !ok; n++) {
        rf_ctx_fail_alloc_after(t.ctx, n, 1);
        r = NULL;
        rf_status st = rf_exec_run(t.ctx, t.g, &o, &r);
        if (st == RF_OK)
            ok = 1;
        else
            RF_EXPECT_INT(st, RF_NOMEM);
        rf_exec_result_free(r);
    }
    rf_ctx_fail_alloc_after(t.ctx, 0, 0);
    RF_EXPECT(ok);
    tg_free(&t);
}

/* Every layer of the fixture models is measured or is a constant (tests/data/onnx). */
static void fixture(const char *name, unsigned expect_unmeasured_nonconst)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/onnx/%s.onnx", RF_SOURCE_DIR, name);
    rf_ctx *ctx = NULL;
    rf_graph *g = NULL;
    rf_exec_result *r = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_status st = rf_model_load(ctx, path, NULL, &g);
    if (st == RF_OK) {
        rf_exec_opts o = {1, 1, 1, NULL, NULL, 0};
        st = rf_exec_run(ctx, g, &o, &r);
    }
    if (st != RF_OK) RF_FAIL_AT("%s: %s", name, rf_ctx_errmsg(ctx));
    if (r) {
        unsigned other = 0;
        for (uint32_t i = 0; i < r->n_layers; i++)
            if (!r->layers[i].measured && g->layers[i].kind != RF_OP_CONSTANT) {
                fprintf(stderr, "  %s: %s not measured: %s\n", name, g->layers[i].name,
                        r->layers[i].reason);
                other++;
            } else if (r->layers[i].measured && !(r->layers[i].median_s >= 0)) {
                RF_FAIL_AT("%s: layer %u has time %g", name, i, r->layers[i].median_s);
            }
        RF_EXPECT_INT(other, expect_unmeasured_nonconst);
        RF_EXPECT(r->wall_median_s > 0);
        RF_EXPECT(r->peak_bytes > 0);
    }
    rf_exec_result_free(r);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

RF_TEST(fixture_tiny_cnn)
{
    fixture("tiny_cnn", 0);
}
RF_TEST(fixture_resnet18)
{
    fixture("resnet18", 0);
}
RF_TEST(fixture_mobilenet_v2)
{
    fixture("mobilenet_v2", 0);
}
RF_TEST(fixture_transformer_encoder)
{
    fixture("transformer_encoder_small", 0);
}

/* A tensor too big to hold is RF_RANGE with its name, before any allocation of its size. */
RF_TEST(huge_tensor_is_range_error)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1 << 20, 1 << 20, 1 << 10));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4));
    lay(&t, "Relu", IN(x), y);
    rf_exec_result *r = NULL;
    RF_EXPECT_INT(rf_exec_run(t.ctx, t.g, NULL, &r), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(t.ctx), "'x'");
    RF_EXPECT(r == NULL);
    tg_free(&t);
    t = tg_new(); /* 2^38 floats: within the element limit, beyond this machine's memory */
    uint32_t w = tens(&t, "big", RF_TENSOR_INPUT, D(1 << 16, 1 << 16, 64));
    uint32_t z = tens(&t, "z", RF_TENSOR_OUTPUT, D(1 << 16, 1 << 16, 64));
    lay(&t, "Relu", IN(w), z);
    RF_EXPECT_INT(rf_exec_run(t.ctx, t.g, NULL, &r), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(t.ctx), "GB for the executor's tensors; ");
    tg_free(&t);
}
