/* test_disturb.c — the disturbed-run judgement of the probe (src/probe/disturb.c) on injected
 * figures: other processes' CPU share, the load average when /proc/stat is missing, the CV and
 * preempted repetitions of a figure, a clock that fell, a figure the clock cannot explain; the
 * words for them; the merge that keeps each ceiling's best figure; the provisional flag through
 * the machine file and the cache. Pure functions: nothing is measured, no speed is asserted. */
#define _GNU_SOURCE /* setenv, mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/probe_int.h"
#include "rf_test.h"
#include "roofline/hw.h"
#include "roofline/probe.h"

/* A quiet attempt on 2 of 2 CPUs: nobody else ran, the clock held, FMA at 95% of its limit. */
static rf__disturb_in quiet(void)
{
    rf__disturb_in in;
    memset(&in, 0, sizeof in);
    in.busy_other = 0.02;
    in.load_before = 0.1;
    in.cpus = 2;
    in.threads = 2;
    in.clock_before_ghz = 3.0;
    in.clock_after_ghz = 2.98;
    in.limit_fraction = 0.95;
    return in;
}

RF_TEST(quiet_run_is_not_disturbed)
{
    rf__disturb_in in = quiet();
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    in.limit_fraction = 0; /* unknown figures say nothing */
    in.clock_after_ghz = 0;
    in.busy_other = -1;
    in.load_before = -1;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
}

RF_TEST(other_processes)
{
    rf__disturb_in in = quiet();
    in.busy_other = 0.68; /* the case: peaks --quick right after apt-get */
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_OTHERS);
    in.busy_other = RF_BUSY_OTHERS; /* at the threshold: still quiet */
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    /* Without /proc/stat the load average stands in: 1.8 busy of 2 CPUs leaves no room */
    in.busy_other = -1;
    in.load_before = 1.8;
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_OTHERS);
    in.load_before = 0.4;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    in.threads = 1; /* one thread needs one free CPU */
    in.load_before = 1.0;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
}

RF_TEST(clock_fell)
{
    rf__disturb_in in = quiet();
    in.clock_after_ghz = 2.5; /* fell by 17% while the kernels ran */
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_CLOCK_FELL);
    in = quiet();
    in.clock_best_ghz = 3.6; /* an earlier attempt saw a higher clock */
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_CLOCK_FELL);
    in.clock_best_ghz = 3.2;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    char buf[256];
    in = quiet();
    in.clock_after_ghz = 2.0;
    rf__disturb_text(buf, sizeof buf, rf__run_disturbed(&in), &in);
    RF_EXPECT_CONTAINS(buf, "the clock fell from 3.00 to 2.00 GHz");
}

RF_TEST(figure_the_clock_cannot_explain)
{
    rf__disturb_in in = quiet();
    in.limit_fraction = 5.94; /* the clock chain was slowed more than the kernel */
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_LIMIT);
    in.limit_fraction = 0.3;
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_LIMIT);
    in.limit_fraction = 0.5; /* one vector pipe of the two assumed: a real machine, not noise */
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
}

RF_TEST(figure_spread_and_preemption)
{
    double v[3] = {271e9, 470e9, 180e9}; /* CV far above 10% */
    rf__stats s;
    rf__stats_compute(v, 3, &s);
    RF_EXPECT_INT(rf__figure_disturbed(&s), RF__DISTURB_SPREAD);
    double w[3] = {469e9, 470e9, 471e9};
    rf__stats_compute(w, 3, &s);
    RF_EXPECT_INT(rf__figure_disturbed(&s), 0);
    s.disturbed = 2;
    RF_EXPECT_INT(rf__figure_disturbed(&s), RF__DISTURB_PREEMPTED);
}

RF_TEST(disturbed_words)
{
    rf__disturb_in in = quiet();
    in.busy_other = 0.53;
    in.worst_cv = 0.53;
    char buf[256];
    rf__disturb_text(buf, sizeof buf, RF__DISTURB_OTHERS | RF__DISTURB_SPREAD, &in);
    RF_EXPECT_STR(buf, "other processes used 53% of the CPU time, CV up to 53% over repetitions");
    in.busy_other = -1;
    in.load_before = 3.5;
    rf__disturb_text(buf, sizeof buf, RF__DISTURB_OTHERS, &in);
    RF_EXPECT_STR(buf, "load average 3.50 on 2 CPUs");
}

static rf_machine *two(rf_ctx *c, double flops, int pf, double bw, int pb)
{
    rf_machine *m = NULL;
    rf_machine_simple(c, "m", flops, bw, RF_PROV_MEASURED, "test", &m);
    m->ceilings[0].provisional = pf;
    m->ceilings[1].provisional = pb;
    return m;
}

RF_TEST(merge_keeps_the_best)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    /* attempt 1: compute disturbed (271 G), memory quiet; attempt 2: compute quiet (470 G),
     * memory disturbed and lower */
    rf_machine *a = two(c, 271e9, 1, 20e9, 0), *b = two(c, 470e9, 0, 12e9, 1);
    rf__merge_best(a, b);
    RF_EXPECT_DBL(a->ceilings[0].value, 470e9);
    RF_EXPECT_INT(a->ceilings[0].provisional, 0);
    RF_EXPECT_DBL(a->ceilings[1].value, 20e9);
    RF_EXPECT_INT(a->ceilings[1].provisional, 0);
    RF_EXPECT_INT(rf_machine_provisional(a), 0);
    /* both attempts disturbed: the higher figure, still provisional */
    rf_machine *d = two(c, 300e9, 1, 10e9, 1), *e = two(c, 350e9, 1, 9e9, 1);
    rf__merge_best(d, e);
    RF_EXPECT_DBL(d->ceilings[0].value, 350e9);
    RF_EXPECT_INT(d->ceilings[0].provisional, 1);
    RF_EXPECT_DBL(d->ceilings[1].value, 10e9);
    RF_EXPECT_INT(rf_machine_provisional(d), 1);
    rf_machine_free(a);
    rf_machine_free(b);
    rf_machine_free(d);
    rf_machine_free(e);
    rf_ctx_free(c);
}

RF_TEST(provisional_through_the_machine_file)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_machine *m = two(c, 300e9, 0, 10e9, 1), *back = NULL;
    m->ceilings[1].capacity_bytes = 1 << 20;
    rf_buf b;
    rf_buf_init(&b, c, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_machine_write_json(c, m, 0, &w), RF_OK);
    RF_EXPECT_CONTAINS(b.data, "\"provisional\": true");
    RF_EXPECT_CONTAINS(b.data, "\"capacity_bytes\": 1048576");
    RF_EXPECT_INT(rf_machine_parse_json(c, b.data, b.len, "mem", &back), RF_OK);
    if (back) {
        RF_EXPECT_INT(back->ceilings[0].provisional, 0);
        RF_EXPECT_INT(back->ceilings[1].provisional, 1);
        RF_EXPECT_DBL(back->ceilings[1].capacity_bytes, 1048576);
    }
    rf_machine_free(back);
    back = NULL;
    const char bad[] = "{\"name\":\"x\",\"kind\":\"cpu\",\"ceilings\":[{\"name\":\"p\",\"kind\":"
                       "\"compute\",\"value\":1e9,\"provisional\":1}]}";
    RF_EXPECT_INT(rf_machine_parse_json(c, bad, sizeof bad - 1, "mem", &back), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "'provisional' must be true or false");
    const char cap[] = "{\"name\":\"x\",\"kind\":\"cpu\",\"ceilings\":[{\"name\":\"p\",\"kind\":"
                       "\"compute\",\"value\":1e9,\"capacity_bytes\":10}]}";
    RF_EXPECT_INT(rf_machine_parse_json(c, cap, sizeof cap - 1, "mem", &back), RF_FORMAT);
    rf_buf_free(&b);
    rf_machine_free(m);
    rf_ctx_free(c);
}

RF_TEST(cache_keeps_the_best_figure_and_serves_it)
{
    char dir[] = "/tmp/rf-disturb-XXXXXX";
    if (!mkdtemp(dir)) return;
    setenv("XDG_CACHE_HOME", dir, 1);
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_probe_opts o;
    memset(&o, 0, sizeof o);
    o.quick = 1;
    rf_machine *m = two(c, 300e9, 1, 10e9, 0), *got = NULL;
    RF_EXPECT_INT(rf_probe_cache_store(c, &o, m), RF_OK);
    RF_EXPECT_INT(rf_probe_cache_load(c, &o, &got), RF_OK);
    RF_EXPECT(got != NULL); /* provisional, yet served: no measuring again on every call */
    rf_machine_free(got);
    got = NULL;
    /* a second disturbed run with a lower compute figure: the cache keeps the better one */
    rf_machine *m2 = two(c, 200e9, 1, 12e9, 1);
    RF_EXPECT_INT(rf_probe_cache_store(c, &o, m2), RF_OK);
    char path[1024];
    RF_EXPECT_INT(rf_probe_cache_path(c, &o, path, sizeof path), RF_OK);
    rf_machine *stored = NULL;
    RF_EXPECT_INT(rf_machine_read_file(c, path, &stored), RF_OK);
    if (stored) {
        RF_EXPECT_DBL(stored->ceilings[0].value, 300e9);
        RF_EXPECT_INT(stored->ceilings[0].provisional, 1);
        RF_EXPECT_DBL(stored->ceilings[1].value, 12e9);
        RF_EXPECT_INT(stored->ceilings[1].provisional, 0);
    }
    /* a quiet run raises compute and is no longer provisional ... */
    rf_machine *q = two(c, 470e9, 0, 11e9, 0);
    RF_EXPECT_INT(rf_probe_cache_store(c, &o, q), RF_OK);
    RF_EXPECT_INT(rf_probe_cache_load(c, &o, &got), RF_OK);
    RF_EXPECT(got != NULL);
    if (got) {
        RF_EXPECT_DBL(got->ceilings[0].value, 470e9);
        RF_EXPECT_INT(got->ceilings[0].provisional, 0);
        RF_EXPECT_DBL(got->ceilings[1].value, 12e9); /* ... but never lowers bandwidth */
    }
    rf_machine_free(got);
    got = NULL;
    /* a busy run a third as fast leaves every cached figure where it was */
    rf_machine *busy = two(c, 150e9, 1, 4e9, 1);
    RF_EXPECT_INT(rf_probe_cache_store(c, &o, busy), RF_OK);
    RF_EXPECT_INT(rf_probe_cache_load(c, &o, &got), RF_OK);
    if (got) {
        RF_EXPECT_DBL(got->ceilings[0].value, 470e9);
        RF_EXPECT_DBL(got->ceilings[1].value, 12e9);
    }
    rf_machine_free(busy);
    unlink(path);
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/roofline", dir);
    rmdir(sub);
    rmdir(dir);
    rf_machine_free(stored);
    rf_machine_free(got);
    rf_machine_free(q);
    rf_machine_free(m2);
    rf_machine_free(m);
    rf_ctx_free(c);
}

RF_TEST(clock_far_under_the_kernels)
{
    /* The case seen on this VM: the kernel says 2.60 GHz, a quiet run measures 3.65 GHz, a run
     * whose vCPUs shared their cores measured every clock at half (1.83 GHz) with the FMA figure
     * halved too, so neither the fall nor the limit gave it away. */
    rf__disturb_in in = quiet();
    in.clock_kernel_ghz = 2.60;
    in.clock_before_ghz = in.clock_after_ghz = in.clock_top_ghz = 3.65;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    in.clock_before_ghz = in.clock_after_ghz = in.clock_top_ghz = 1.83;
    RF_EXPECT_INT(rf__run_disturbed(&in), RF__DISTURB_CLOCK_FELL);
    char buf[256];
    rf__disturb_text(buf, sizeof buf, RF__DISTURB_CLOCK_FELL, &in);
    RF_EXPECT_STR(buf, "the clock measured 1.83 GHz, under the 2.60 GHz the kernel reports");
    /* A wide-vector licence lowers the chosen ISA's clock alone: the top clock still holds. */
    in.clock_before_ghz = in.clock_after_ghz = 1.9;
    in.clock_top_ghz = 2.5;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
    in.clock_kernel_ghz = 0; /* no figure from the kernel: nothing to say */
    in.clock_top_ghz = 1.0;
    RF_EXPECT_INT(rf__run_disturbed(&in), 0);
}

/* Pairs out of their physical order: the lower figure of each is a measurement error. */
RF_TEST(order_check_marks_the_impossible_figure)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_machine *m = NULL;
    const char doc[] = "{\"name\":\"x\",\"kind\":\"cpu\",\"ceilings\":["
                       "{\"name\":\"fp64.fma.avx512\",\"kind\":\"compute\",\"value\":159e9},"
                       "{\"name\":\"fp32.fma.avx512\",\"kind\":\"compute\",\"value\":154e9},"
                       "{\"name\":\"fp64.fma.avx2\",\"kind\":\"compute\",\"value\":80e9},"
                       "{\"name\":\"fp32.fma.avx2\",\"kind\":\"compute\",\"value\":160e9},"
                       "{\"name\":\"L1\",\"kind\":\"bandwidth\",\"value\":800e9},"
                       "{\"name\":\"L2\",\"kind\":\"bandwidth\",\"value\":150e9},"
                       "{\"name\":\"L3\",\"kind\":\"bandwidth\",\"value\":190e9},"
                       "{\"name\":\"DRAM\",\"kind\":\"bandwidth\",\"value\":30e9}]}";
    RF_EXPECT_INT(rf_machine_parse_json(c, doc, sizeof doc - 1, "mem", &m), RF_OK);
    if (m) {
        RF_EXPECT_INT(rf__order_check(m), 2);
        RF_EXPECT_INT(m->ceilings[1].provisional, 1); /* fp32 avx512 below fp64 */
        RF_EXPECT_CONTAINS(m->ceilings[1].note, "below fp64.fma.avx512");
        RF_EXPECT_INT(m->ceilings[0].provisional, 0);
        RF_EXPECT_INT(m->ceilings[3].provisional, 0); /* avx2 in order */
        RF_EXPECT_INT(m->ceilings[5].provisional, 1); /* L2 slower than L3 */
        RF_EXPECT_CONTAINS(m->ceilings[5].note, "slower than L3");
        RF_EXPECT_INT(m->ceilings[6].provisional, 0);
    }
    rf_machine_free(m);
    rf_ctx_free(c);
}
