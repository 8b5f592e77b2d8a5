/* test_analysis.c — the streamed analysis: totals over every row, the top-N heap against a full
 * sort, every sort key, undefined rows, and allocation failures at every point. */
#include "rf_test.h"

#include <roofline/roofline.h>

static rf_machine *machine(rf_ctx *c)
{
    rf_machine *m = NULL;
    rf_machine_simple(c, "t", 100e9, 50e9, RF_PROV_USER, "test", &m);
    return m;
}

static int n_warnings;
static void count_log(void *u, rf_log_level l, const char *msg)
{
    (void)u;
    (void)msg;
    if (l == RF_LOG_WARN) n_warnings++;
}

/* A deterministic pseudo-random sequence (no rand(): no global state in tests either). */
static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static rf_result *run(rf_ctx *c, rf_sort sort, uint64_t top, size_t n, uint64_t seed)
{
    rf_machine *m = machine(c);
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    if (!m || rf_analysis_new(c, m, 0, 1, sort, top, &a) != RF_OK) goto out;
    for (size_t i = 0; i < n; i++) {
        char name[32];
        int len = snprintf(name, sizeof name, "op%05llu", (unsigned long long)next(&seed) % 100000);
        double f = (double)(next(&seed) % 1000), b = (double)(next(&seed) % 1000);
        if (rf_analysis_add(a, name, (size_t)len, NULL, f, b) != RF_OK) goto out;
    }
    rf_analysis_finish(a, "t", &r);
out:
    rf_analysis_free(a);
    rf_machine_free(m);
    return r;
}

RF_TEST(totals_cover_every_row)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_machine *m = machine(c);
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    RF_EXPECT_INT(rf_analysis_new(c, m, 0, 1, RF_SORT_TIME, 2, &a), RF_OK);
    /* ridge 2: (100, 1000) memory 20 ns; (1e5, 100) compute 1 us; (10, 10) AI 1, memory 0.2 ns */
    RF_EXPECT_INT(rf_analysis_add(a, "mem", 3, NULL, 100, 1000), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "cmp", 3, NULL, 1e5, 100), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "small", 5, NULL, 10, 10), RF_OK);
    RF_EXPECT_INT(rf_analysis_add(a, "bad", 3, NULL, -1, 10), RF_RANGE);
    RF_EXPECT_INT(rf_analysis_finish(a, "three", &r), RF_OK);
    RF_REQUIRE(r);
    RF_EXPECT_INT(r->totals.count, 3);
    RF_EXPECT_INT(r->n_rows, 2);
    RF_EXPECT_STR(r->rows[0].name, "cmp");
    RF_EXPECT_STR(r->rows[1].name, "mem");
    RF_EXPECT_DBL(r->totals.flops, 100 + 1e5 + 10);
    RF_EXPECT_DBL(r->totals.bytes, 1110);
    RF_EXPECT_NEAR(r->totals.time_s, 20e-9 + 1e-6 + 0.2e-9, 1e-12);
    RF_EXPECT_INT(r->totals.count_by_bound[RF_BOUND_MEMORY], 2);
    RF_EXPECT_INT(r->totals.count_by_bound[RF_BOUND_COMPUTE], 1);
    RF_EXPECT_NEAR(r->totals.time_by_bound_s[RF_BOUND_MEMORY], 20.2e-9, 1e-12);
    RF_EXPECT_NEAR(r->totals.time_by_bound_s[RF_BOUND_COMPUTE], 1e-6, 1e-12);
    RF_EXPECT_NEAR(r->totals.ai, 100110.0 / 1110.0, 1e-15);
    RF_EXPECT_DBL(r->ridge_ai, 2.0);
    RF_EXPECT_STR(r->title, "three");
    rf_result_free(r);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(c);
}

/* The top-N heap keeps exactly the first N rows of the full sort, for every key. */
RF_TEST(top_n_matches_full_sort)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_sort keys[] = {RF_SORT_TIME, RF_SORT_AI, RF_SORT_NAME, RF_SORT_INPUT};
    for (size_t k = 0; k < 4; k++) {
        rf_result *all = run(c, keys[k], 0, 5000, 42), *top = run(c, keys[k], 37, 5000, 42);
        RF_REQUIRE(all && top);
        RF_EXPECT_INT(all->n_rows, 5000);
        RF_EXPECT_INT(top->n_rows, 37);
        RF_EXPECT_INT(top->totals.count, 5000);
        RF_EXPECT_DBL(top->totals.time_s, all->totals.time_s);
        for (size_t i = 0; i < 37; i++) {
            if (all->rows[i].index != top->rows[i].index)
                RF_FAIL_AT("key %zu row %zu: %llu vs %llu", k, i,
                           (unsigned long long)all->rows[i].index,
                           (unsigned long long)top->rows[i].index);
        }
        /* The full sort is really sorted. */
        for (size_t i = 1; i < all->n_rows; i++) {
            const rf_row *p = &all->rows[i - 1], *q = &all->rows[i];
            int ok = 1;
            if (keys[k] == RF_SORT_TIME) ok = p->e.time_s >= q->e.time_s;
            if (keys[k] == RF_SORT_AI) ok = isnan(q->e.ai) || p->e.ai <= q->e.ai;
            if (keys[k] == RF_SORT_NAME) ok = strcmp(p->name, q->name) <= 0;
            if (keys[k] == RF_SORT_INPUT) ok = p->index < q->index;
            if (!ok) {
                RF_FAIL_AT("key %zu not sorted at %zu", k, i);
                break;
            }
        }
        rf_result_free(all);
        rf_result_free(top);
    }
    rf_ctx_free(c);
}

RF_TEST(undefined_rows_warn_once_each)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    n_warnings = 0;
    rf_ctx_set_log(c, count_log, NULL, RF_LOG_WARN);
    rf_machine *m = machine(c);
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    rf_analysis_new(c, m, 0, 1, RF_SORT_INPUT, 0, &a);
    for (int i = 0; i < 25; i++) rf_analysis_add(a, "unknown", 7, "Foo", 0, 0);
    rf_analysis_add(a, "known", 5, "Gemm", 10, 10);
    RF_EXPECT_INT(rf_analysis_finish(a, "", &r), RF_OK);
    RF_EXPECT_INT(n_warnings, 11); /* ten by name, then one count */
    RF_EXPECT_INT(r->totals.count_by_bound[RF_BOUND_UNDEFINED], 25);
    RF_EXPECT_STR(r->rows[25].op, "Gemm");
    rf_result_free(r);
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(c);
}

/* Every allocation may fail: the result is RF_OK or RF_NOMEM, never a crash or a leak
 * (the sanitizer build checks leaks). */
RF_TEST(allocation_failure_sweep)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    int ok = 0;
    for (uint64_t n = 1; n < 400 && !ok; n++) {
        rf_ctx_fail_alloc_after(c, n, 1);
        rf_result *r = run(c, RF_SORT_NAME, 10, 50, 7);
        ok = r != NULL;
        if (!ok) RF_EXPECT_INT(rf_ctx_error_status(c), RF_NOMEM);
        rf_result_free(r);
    }
    RF_EXPECT(ok);
    rf_ctx_fail_alloc_after(c, 0, 0);
    rf_ctx_free(c);
}

RF_TEST(sort_parse)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_sort s;
    RF_EXPECT_INT(rf_sort_parse(c, "AI", &s), RF_OK);
    RF_EXPECT_INT(s, RF_SORT_AI);
    RF_EXPECT_INT(rf_sort_parse(c, "speed", &s), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "speed");
    rf_ctx_free(c);
}

/* Public functions handed a NULL handle (a freed result from a binding) answer RF_USAGE with a
 * message instead of crashing; batch and seq beyond RF_MODEL_MAX_BATCH are a range error naming
 * the model (a binding's 2**64-1 was cast to -1 and ignored). */
RF_TEST(null_handles_and_batch_range)
{
    rf_ctx *c;
    rf_ctx_new(&c, NULL);
    rf_buf b;
    rf_buf_init(&b, c, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_report_table(c, NULL, NULL, &w), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "rf_report_table: missing argument");
    RF_EXPECT_INT(rf_report_json(c, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_csv(c, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_summary(c, NULL, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_llm_json(c, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_llm_table(c, NULL, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_profile_summary(c, NULL, 5, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(rf_report_machine_show(c, NULL, NULL, &w), RF_USAGE);
    RF_EXPECT_INT(b.len, 0);
    rf_machine *mc = NULL;
    RF_EXPECT_INT(rf_machine_clone(c, NULL, &mc), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "rf_machine_clone: missing argument");
    size_t idx;
    RF_EXPECT_INT(rf_machine_select(c, NULL, RF_CEILING_COMPUTE, NULL, &idx), RF_USAGE);
    rf_result *r = NULL;
    RF_EXPECT_INT(rf_analysis_finish(NULL, "t", &r), RF_USAGE);
    RF_EXPECT_INT(rf_analysis_add(NULL, "x", 1, NULL, 1, 1), RF_USAGE);
    RF_EXPECT_INT(rf_analysis_set_wall(NULL, 1), RF_USAGE);
    size_t n;
    const void *d = rf_demo_model(&n);
    rf_model_opts o = {0};
    o.batch = UINT64_MAX;
    rf_graph *g = NULL;
    RF_EXPECT_INT(rf_model_load_mem(c, d, n, "demo.onnx", &o, &g), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "demo.onnx: batch 18446744073709551615 is out of range");
    o.batch = 0;
    o.seq = RF_MODEL_MAX_BATCH + 1;
    RF_EXPECT_INT(rf_model_load_mem(c, d, n, "demo.onnx", &o, &g), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "seq");
    RF_EXPECT(g == NULL);
    rf_buf_free(&b);
    rf_ctx_free(c);
}
