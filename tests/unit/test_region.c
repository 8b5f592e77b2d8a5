/* test_region.c — the marker API with a fake clock: aggregation per name (calls, total, min,
 * median, max), nesting, unmatched ends, threads merged, the macros compiled out, and the saved
 * result read back both by `roofline plot`'s reader and by the regions reader. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* From a clean slate on the fake clock: one call of `name` taking `ns`, its FLOPs and bytes. */
static void one_call(const char *name, uint64_t ns, double flops, double bytes)
{
    rf_regions_reset();
    rf_regions_set_clock(fake_clock, NULL);
    fake_now = 0;
    rf_region_begin(name);
    fake_now = ns;
    rf_region_end(name);
    rf_region_add(name, flops, bytes);
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
    one_call("gemm", 2000, 4e6, 1e5);
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

/* ROOFLINE_OUTPUT_DIR: a symlink planted at the record's name is not followed (its target keeps
 * its content, the record goes to the next name, mode 0600), and two records merge by name. */
RF_TEST(write_dir_never_follows)
{
    one_call("w", 1000, 10, 20);
    char dir[] = "/tmp/rf-region-XXXXXX", victim[64], planted[96], rec[96], text[32] = "";
    RF_REQUIRE(mkdtemp(dir));
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(planted, sizeof planted, "%s/regions-%ld.json", dir, (long)getpid());
    snprintf(rec, sizeof rec, "%s/regions-%ld-1.json", dir, (long)getpid());
    FILE *f = fopen(victim, "w");
    RF_REQUIRE(f);
    fputs("precious\n", f);
    fclose(f);
    RF_REQUIRE(symlink(victim, planted) == 0);
    setenv("ROOFLINE_OUTPUT_DIR", dir, 1);
    setenv("ROOFLINE_OUTPUT", victim, 1); /* the directory wins */
    setenv("ROOFLINE_HW", "xeon-8480plus", 1);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    RF_EXPECT_INT(rf_regions_write(ctx, NULL), RF_OK);
    f = fopen(victim, "r");
    RF_REQUIRE(f);
    RF_EXPECT(fgets(text, sizeof text, f) != NULL);
    fclose(f);
    RF_EXPECT_STR(text, "precious\n");
    struct stat sb;
    RF_EXPECT(stat(rec, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    rf_regions *a = NULL, *b = NULL;
    RF_EXPECT_INT(rf_regions_read_file(ctx, rec, &a), RF_OK);
    RF_EXPECT_INT(rf_regions_read_file(ctx, rec, &b), RF_OK);
    if (a && b) {
        RF_EXPECT_INT(rf_regions_merge(ctx, a, b), RF_OK);
        RF_EXPECT_INT(a->n, 1);
        RF_EXPECT_INT(a->items[0].calls, 2);
        RF_EXPECT_INT(a->items[0].threads, 2);
        RF_EXPECT_DBL(a->items[0].flops, 20);
        RF_EXPECT_DBL(a->items[0].median_s, 1e-6);
        b->items[0].name[0] = 'v'; /* a new name is appended */
        RF_EXPECT_INT(rf_regions_merge(ctx, a, b), RF_OK);
        RF_EXPECT_INT(a->n, 2);
        RF_EXPECT_STR(a->items[1].name, "v");
    }
    RF_EXPECT_INT(rf_regions_merge(ctx, a, NULL), RF_USAGE);
    rf_regions_free(a);
    rf_regions_free(b);
    unsetenv("ROOFLINE_OUTPUT_DIR");
    unsetenv("ROOFLINE_OUTPUT");
    unsetenv("ROOFLINE_HW");
    unlink(rec);
    unlink(planted);
    unlink(victim);
    rmdir(dir);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
}

/* ROOFLINE_OUTPUT (no `roofline run`): a symlink planted at that name is replaced by the new
 * file, never written through: its target keeps its content. */
RF_TEST(write_output_never_follows)
{
    one_call("w", 1000, 10, 20);
    char dir[] = "/tmp/rf-region-XXXXXX", victim[64], out[64], text[32] = "";
    RF_REQUIRE(mkdtemp(dir));
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    FILE *f = fopen(victim, "w");
    RF_REQUIRE(f);
    fputs("precious\n", f);
    fclose(f);
    RF_REQUIRE(symlink(victim, out) == 0);
    setenv("ROOFLINE_OUTPUT", out, 1);
    setenv("ROOFLINE_HW", "xeon-8480plus", 1);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    RF_EXPECT_INT(rf_regions_write(ctx, NULL), RF_OK);
    f = fopen(victim, "r");
    RF_REQUIRE(f);
    RF_EXPECT(fgets(text, sizeof text, f) != NULL);
    fclose(f);
    RF_EXPECT_STR(text, "precious\n");
    struct stat sb;
    RF_EXPECT(lstat(out, &sb) == 0 && S_ISREG(sb.st_mode)); /* the link itself was replaced */
    rf_regions *a = NULL;
    RF_EXPECT_INT(rf_regions_read_file(ctx, out, &a), RF_OK);
    if (a) RF_EXPECT_INT(a->n, 1);
    rf_regions_free(a);
    unsetenv("ROOFLINE_OUTPUT");
    unsetenv("ROOFLINE_HW");
    unlink(out);
    unlink(victim);
    rmdir(dir);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
}

/* fork(): the child starts from zero (the parent's calls are the parent's to write) but keeps the
 * names and the open regions, so an end after the fork matches in both processes. */
RF_TEST(fork_child_starts_from_zero)
{
    one_call("pre", 10, 5, 5);
    rf_region_begin("open");
    pid_t pid = fork();
    RF_REQUIRE(pid >= 0);
    fake_now = 30;
    rf_region_end("open");
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    const rf_region_stats *pre = find(r, "pre"), *open = find(r, "open");
    if (pid == 0) {
        int ok = pre && pre->calls == 0 && pre->flops == 0 && open && open->calls == 1 &&
                 open->unmatched == 0;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    RF_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    RF_EXPECT(pre && pre->calls == 1 && pre->flops == 5);
    RF_EXPECT(open && open->calls == 1 && open->unmatched == 0);
    rf_regions_free(r);
    rf_ctx_free(ctx);
    rf_regions_set_clock(NULL, NULL);
    rf_regions_reset();
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
    char line[1024];
    int opened = 0;
    RF_EXPECT_INT(rf_perf_detect(ctx, open_ok, &opened, &c), RF_OK);
    RF_EXPECT(c.fp >= 1 && c.mem == 1);
    RF_EXPECT(opened >= 2);
    RF_EXPECT_CONTAINS(c.fp_events, "fp_arith_inst_retired");
    RF_EXPECT_CONTAINS(rf_perf_describe(&c, line, sizeof line),
                       "hardware counters count each region");
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

/* A stand-in for perf_event: handle h is event h of the library's table (the stand-in is offered
 * every event, in table order: 0-7 Intel FP_ARITH_INST_RETIRED by width, 8 AMD
 * FpRetSseAvxOps.all, 9 LLC misses); the test moves the counts between begin and end. */
static uint64_t fake_counts[16];
static int fake_fail_open = -1;
static int fake_open(void *user, uint32_t type, uint64_t config)
{
    (void)type;
    (void)config;
    int h = (*(int *)user)++;
    return h == fake_fail_open ? -2 : h;
}
static int fake_read(void *user, int h, uint64_t *count)
{
    (void)user;
    *count = fake_counts[h];
    return 0;
}
static void fake_close(void *user, int h)
{
    (void)user;
    (void)h;
}

RF_TEST(perf_counting)
{
    int next = 0;
    rf_perf_ops ops = {fake_open, fake_read, fake_close, &next};
    rf_regions_reset();
    rf_regions_set_clock(fake_clock, NULL);
    rf_regions_set_perf(&ops);
    memset(fake_counts, 0, sizeof fake_counts);
    fake_now = 0;
    rf_region_begin("outer");
    fake_counts[2] += 10; /* 10 x 128-bit packed double: 20 FLOP */
    rf_region_begin("inner");
    fake_counts[7] += 5; /* 5 x 512-bit packed single: 80 FLOP */
    fake_counts[9] += 3; /* 3 LLC misses: 192 B */
    fake_now = 100;
    rf_region_end("inner");
    fake_counts[8] += 7; /* AMD's event counts FLOPs themselves */
    fake_now = 300;
    rf_region_end("outer");
    rf_region_add("outer", 1, 1); /* given counts stay beside the counted ones */
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_regions *r = snap(ctx);
    const rf_region_stats *o = find(r, "outer"), *in = find(r, "inner");
    RF_EXPECT(o && in);
    double f = 0, b = 0;
    if (o && in) {
        RF_EXPECT_INT(o->counted_calls, 1);
        RF_EXPECT_DBL(o->counted_flops, 20 + 80 + 7); /* inclusive, like the time */
        RF_EXPECT_DBL(o->counted_bytes, 192);
        RF_EXPECT_DBL(in->counted_flops, 80);
        RF_EXPECT_DBL(in->counted_bytes, 192);
        RF_EXPECT_INT(rf_region_counts(o, &f, &b), 1);
        RF_EXPECT_DBL(f, 107);
        RF_EXPECT_DBL(o->flops, 1);
    }
    /* the counts go through the saved result and back, and into the analysis */
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_machine_simple(ctx, "t", 1e12, 1e11, RF_PROV_USER, "test", &m), RF_OK);
    rf_buf bb;
    rf_buf_init(&bb, ctx, 0);
    rf_writer w = rf_buf_writer(&bb);
    RF_EXPECT_INT(rf_regions_write_json(ctx, r, m, "prog", &w), RF_OK);
    RF_EXPECT_CONTAINS(bb.data, "\"counted_flops\": 107");
    rf_regions *back = NULL;
    RF_EXPECT_INT(rf_regions_parse_json(ctx, bb.data, bb.len, "x.json", &back), RF_OK);
    const rf_region_stats *ob = find(back, "outer");
    RF_EXPECT(ob && ob->counted_calls == 1 && ob->counted_bytes == 192);
    rf_result *res = NULL;
    RF_EXPECT_INT(
        rf_regions_analyze(ctx, back, m, m->default_compute, m->default_bandwidth, "prog", &res),
        RF_OK);
    if (res) RF_EXPECT_DBL(res->rows[0].e.flops, 107);
    rf_buf out;
    rf_buf_init(&out, ctx, 0);
    rf_writer ow = rf_buf_writer(&out);
    RF_EXPECT_INT(rf_report_regions(ctx, back, res, NULL, &ow), RF_OK);
    RF_EXPECT_CONTAINS(out.data, "2 of 2 regions counted by hardware counters");
    static const char half[] = "{\"regions\": [{\"name\": \"x\", \"calls\": 1, \"total_s\": 1, "
                               "\"min_s\": 1, \"median_s\": 1, \"max_s\": 1, \"flops\": 0, "
                               "\"bytes\": 0, \"threads\": 1, \"unmatched\": 0, "
                               "\"counted_flops\": 5}]}";
    rf_regions *nope = NULL;
    RF_EXPECT_INT(rf_regions_parse_json(ctx, half, sizeof half - 1, "h.json", &nope), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "need 'counted_calls'");
    rf_buf_free(&out);
    rf_result_free(res);
    rf_regions_free(back);
    rf_buf_free(&bb);
    rf_machine_free(m);
    rf_regions_free(r);

    /* one event that does not open: the thread counts nothing, the given counts are used */
    rf_regions_reset();
    next = 0;
    fake_fail_open = 9;
    rf_region_begin("k");
    fake_counts[2] += 10;
    rf_region_end("k");
    rf_region_add("k", 4, 2);
    r = snap(ctx);
    const rf_region_stats *k = find(r, "k");
    RF_EXPECT(k && k->counted_calls == 0);
    if (k) {
        RF_EXPECT_INT(rf_region_counts(k, &f, &b), 0);
        RF_EXPECT_DBL(f, 4);
        RF_EXPECT_DBL(b, 2);
    }
    rf_regions_free(r);
    rf_ctx_free(ctx);
    fake_fail_open = -1;
    rf_regions_reset();
    rf_regions_set_perf(NULL);
    rf_regions_set_clock(NULL, NULL);
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
