/* test_region.c — the marker API with a fake clock: aggregation per name (calls, total, min,
 * median, max), nesting, unmatched ends, threads merged, the macros compiled out, and the saved
 * result read back both by `roofline plot`'s reader and by the regions reader. */
#include <pthread.h>

#include <roofline/roofline.h>

#include "rf_test.h"

static uint64_t fake_now;
static uint64_t fake_clock(void *user)
{
    (void)user;
    return fake_now;
}

static rf_regions *snap(rf_ctx *ctx)
{
    rf_regions *r = NULL;
    RF_EXPECT_INT(rf_regions_snapshot(ctx, &r), RF_OK);
    return r;
}

static const rf_region_stats *find(const rf_regions *r, const char *name)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (strcmp(r->items[i].name, name) == 0) return &r->items[i];
    return NULL;
}

RF_TEST(aggregation)
{
    rf_regions_reset();
    rf_regions_set_clock(fake_clock, NULL);
    static const uint64_t d[] = {30, 10, 20, 50};
    for (int i = 0; i < 4; i++) {
        fake_now = 1000 * (uint64_t)i;
        rf_region_begin("k");
        fake_now += d[i];
        rf_region_end("k");
    }
    rf_region_add("k", 100, 40);
    rf_region_add("k", 28, 24);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    const rf_region_stats *s = find(r, "k");
    RF_EXPECT(s != NULL);
    if (s) {
        RF_EXPECT_INT(s->calls, 4);
        RF_EXPECT_DBL(s->total_s, 110e-9);
        RF_EXPECT_DBL(s->min_s, 10e-9);
        RF_EXPECT_DBL(s->max_s, 50e-9);
        RF_EXPECT_DBL(s->median_s, 25e-9); /* (20 + 30) / 2 */
        RF_EXPECT_DBL(s->flops, 128);
        RF_EXPECT_DBL(s->bytes, 64);
        RF_EXPECT_INT(s->threads, 1);
        RF_EXPECT_INT(s->unmatched, 0);
    }
    rf_regions_free(r);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
}

RF_TEST(nesting)
{
    rf_regions_reset();
    rf_regions_set_clock(fake_clock, NULL);
    fake_now = 0;
    rf_region_begin("outer");
    fake_now = 10;
    rf_region_begin("inner");
    fake_now = 30;
    rf_region_end("inner");
    fake_now = 40;
    rf_region_begin("inner");
    fake_now = 45;
    rf_region_end("inner");
    fake_now = 100;
    rf_region_end("outer");
    rf_region_end("outer"); /* no begin left: unmatched */
    rf_region_begin("a");
    rf_region_end("b"); /* not the innermost: unmatched, "a" stays open */
    fake_now = 107;
    rf_region_end("a");
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    const rf_region_stats *o = find(r, "outer"), *in = find(r, "inner"), *a = find(r, "a"),
                          *b = find(r, "b");
    RF_EXPECT(o && in && a && b);
    if (o && in && a && b) {
        RF_EXPECT_INT(o->calls, 1);
        RF_EXPECT_DBL(o->total_s, 100e-9); /* inclusive of the inner regions */
        RF_EXPECT_INT(o->unmatched, 1);
        RF_EXPECT_INT(in->calls, 2);
        RF_EXPECT_DBL(in->total_s, 25e-9);
        RF_EXPECT_DBL(in->median_s, 12.5e-9);
        RF_EXPECT_DBL(a->total_s, 7e-9);
        RF_EXPECT_INT(b->calls, 0);
        RF_EXPECT_INT(b->unmatched, 1);
        RF_EXPECT_STR(r->items[0].name, "outer"); /* first-seen order */
    }
    rf_regions_free(r);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        rf_region_begin("par");
        rf_region_end("par");
        rf_region_add("par", 2, 1);
    }
    return NULL;
}

RF_TEST(threads_merge)
{
    rf_regions_reset();
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    const rf_region_stats *s = find(r, "par");
    RF_EXPECT(s != NULL);
    if (s) {
        RF_EXPECT_INT(s->calls, 4000);
        RF_EXPECT_INT(s->threads, 4);
        RF_EXPECT_DBL(s->flops, 8000);
        RF_EXPECT_DBL(s->bytes, 4000);
        RF_EXPECT(s->min_s <= s->median_s && s->median_s <= s->max_s);
    }
    rf_regions_free(r);
    rf_ctx_free(ctx);
    rf_regions_reset();
}

RF_TEST(macros_off)
{
    /* ROOFLINE_MARKERS is not defined here: the macros expand to nothing, arguments unevaluated. */
    rf_regions_reset();
    int evaluated = 0;
    RF_REGION_BEGIN((evaluated++, "off"));
    RF_REGION_ADD("off", evaluated++, 1);
    RF_REGION_END("off");
    RF_EXPECT_INT(evaluated, 0);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    RF_EXPECT_INT(r ? r->n : 99, 0);
    rf_regions_free(r);
    rf_ctx_free(ctx);
}

RF_TEST(saved_result)
{
    rf_regions_reset();
    rf_regions_set_clock(fake_clock, NULL);
    fake_now = 0;
    rf_region_begin("gemm");
    fake_now = 2000;
    rf_region_end("gemm");
    rf_region_add("gemm", 4e6, 1e5);
    rf_region_begin("idle");
    rf_region_end("idle");
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_machine_simple(ctx, "t", 1e12, 1e11, RF_PROV_USER, "test", &m), RF_OK);
    rf_regions *r = snap(ctx);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_regions_write_json(ctx, r, m, "prog", &w), RF_OK);
    rf_result *res = NULL;
    RF_EXPECT_INT(rf_result_parse_json(ctx, b.data, b.len, "x.json", &res), RF_OK);
    if (res) {
        RF_EXPECT_INT(res->n_rows, 2);
        RF_EXPECT_STR(res->rows[0].name, "gemm");
        RF_EXPECT_DBL(res->rows[0].e.flops, 4e6);
        RF_EXPECT_INT(res->rows[1].e.bound, RF_BOUND_UNDEFINED);
        RF_EXPECT_STR(res->title, "prog");
    }
    rf_regions *back = NULL;
    RF_EXPECT_INT(rf_regions_parse_json(ctx, b.data, b.len, "x.json", &back), RF_OK);
    if (back) {
        RF_EXPECT_INT(back->n, 2);
        RF_EXPECT_DBL(back->items[0].total_s, 2e-6);
        RF_EXPECT_INT(back->items[0].calls, 1);
    }
    rf_buf out;
    rf_buf_init(&out, ctx, 0);
    rf_writer ow = rf_buf_writer(&out);
    RF_EXPECT_INT(rf_report_regions(ctx, back, res, NULL, &ow), RF_OK);
    RF_EXPECT_CONTAINS(out.data, "gemm");
    RF_EXPECT_CONTAINS(out.data, "2 us"); /* 4 MFLOP in 2 us = 2 TFLOP/s, over the 1T peak */
    RF_EXPECT_CONTAINS(out.data, "2T");
    RF_EXPECT_CONTAINS(out.data, "200.0%");
    static const char bad[] = "{\"regions\": [{\"name\": \"x\", \"calls\": -1}]}";
    rf_regions *nope = NULL;
    RF_EXPECT_INT(rf_regions_parse_json(ctx, bad, sizeof bad - 1, "bad.json", &nope), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "bad.json: regions[0]");
    rf_buf_free(&out);
    rf_regions_free(back);
    rf_result_free(res);
    rf_buf_free(&b);
    rf_regions_free(r);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
}

RF_TEST(write_unset)
{
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    unsetenv("ROOFLINE_OUTPUT");
    RF_EXPECT_INT(rf_regions_write(ctx, NULL), RF_OK); /* nothing written, nothing to say */
    rf_ctx_free(ctx);
}

static int open_ok(void *user, uint32_t type, uint64_t config)
{
    (void)type;
    (void)config;
    ++*(int *)user;
    return 3;
}

static int open_enoent(void *user, uint32_t type, uint64_t config)
{
    (void)user;
    (void)type;
    (void)config;
    return -2; /* ENOENT: what a VM without a virtual PMU answers */
}

RF_TEST(perf_detect_both_ways)
{
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_perf_counters c;
    char line[512];
    int opened = 0;
    RF_EXPECT_INT(rf_perf_detect(ctx, open_ok, &opened, &c), RF_OK);
    RF_EXPECT(c.fp >= 1 && c.mem == 1);
    RF_EXPECT(opened >= 2);
    RF_EXPECT_CONTAINS(c.fp_events, "fp_arith_inst_retired");
    RF_EXPECT_CONTAINS(rf_perf_describe(&c, line, sizeof line), "hardware counters available");
    RF_EXPECT_CONTAINS(line, "cache-misses");
    RF_EXPECT_INT(rf_perf_detect(ctx, open_enoent, NULL, &c), RF_OK);
    RF_EXPECT_INT(c.fp + c.mem, 0);
    RF_EXPECT_CONTAINS(rf_perf_describe(&c, line, sizeof line), "no floating-point and memory");
    RF_EXPECT_CONTAINS(line, "rf_region_add counts");
    RF_EXPECT_CONTAINS(line, "hypervisor");
    /* the real interface answers one way or the other, without failing */
    RF_EXPECT_INT(rf_perf_detect(ctx, NULL, NULL, &c), RF_OK);
    RF_EXPECT(strlen(rf_perf_describe(&c, line, sizeof line)) > 20);
    rf_ctx_free(ctx);
}

static void *worker_new_names(void *arg)
{
    char name[16];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "n%d", i % 50); /* new names while the merge reads */
        rf_region_begin(name);
        rf_region_end(name);
    }
    return arg;
}

RF_TEST(snapshot_while_recording)
{
    rf_regions_reset();
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker_new_names, NULL);
    for (int k = 0; k < 20; k++) rf_regions_free(snap(ctx)); /* records change meanwhile */
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    rf_regions *r = snap(ctx);
    RF_EXPECT_INT(r ? r->n : 0, 50);
    uint64_t calls = 0;
    for (size_t i = 0; r && i < r->n; i++) calls += r->items[i].calls;
    RF_EXPECT_INT(calls, 400);
    rf_regions_free(r);
    rf_ctx_free(ctx);
    rf_regions_reset();
}
