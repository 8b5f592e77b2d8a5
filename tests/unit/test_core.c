/* test_core.c — the roofline model: the seeds' own cases, the textbook exercise, machines and
 * ceilings, units. Every expected figure is worked out by hand in the comment beside it. */
#include "rf_test.h"

#include <roofline/roofline.h>

static rf_ctx *ctx_new(void)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    return c;
}

/* Seeds: ridge 100 GFLOP/s / 50 GB/s = 2 FLOP/B. */
RF_TEST(ridge_seed)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 50e9};
    double ai = 0;
    RF_EXPECT_INT(rf_ridge_ai(c, &roof, &ai), RF_OK);
    RF_EXPECT_DBL(ai, 2.0);
    rf_ctx_free(c);
}

/* Seeds: AI 200 FLOPs / 100 bytes = 2; 100 FLOPs over 1000 bytes memory-bound, 100000 over 100
 * compute-bound on that machine. */
RF_TEST(bound_seed)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 50e9};
    rf_eval e;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 200, 100, &e), RF_OK);
    RF_EXPECT_DBL(e.ai, 2.0);
    RF_EXPECT_INT(e.bound, RF_BOUND_COMPUTE); /* exactly at the ridge: compute */
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 100, 1000, &e), RF_OK);
    RF_EXPECT_DBL(e.ai, 0.1);
    RF_EXPECT_INT(e.bound, RF_BOUND_MEMORY);
    RF_EXPECT_NEAR(e.attainable_flops_per_s, 5e9, 1e-15); /* 0.1 * 50e9 */
    RF_EXPECT_NEAR(e.efficiency, 0.05, 1e-15);
    RF_EXPECT_NEAR(e.time_s, 1000 / 50e9, 1e-15);
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 100000, 100, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_COMPUTE);
    RF_EXPECT_DBL(e.attainable_flops_per_s, 100e9);
    RF_EXPECT_DBL(e.efficiency, 1.0);
    RF_EXPECT_NEAR(e.time_s, 1e-6, 1e-15); /* 1e5 / 1e11 */
    rf_ctx_free(c);
}

/* Seeds: zero bytes -> AI +inf, compute-bound. */
RF_TEST(zero_bytes_is_compute)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 50e9};
    rf_eval e;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 1000, 0, &e), RF_OK);
    RF_EXPECT(isinf(e.ai) && e.ai > 0);
    RF_EXPECT_INT(e.bound, RF_BOUND_COMPUTE);
    RF_EXPECT_DBL(e.attainable_flops_per_s, 100e9);
    RF_EXPECT_NEAR(e.time_s, 1e-8, 1e-15);
    rf_ctx_free(c);
}

/* FLOPs and bytes both zero: cost unknown, undefined, never a silent zero-time compute op. */
RF_TEST(zero_zero_is_undefined)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 50e9};
    rf_eval e;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 0, 0, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_UNDEFINED);
    RF_EXPECT(isnan(e.ai));
    RF_EXPECT_STR(rf_bound_name(e.bound), "undefined");
    /* FLOPs 0 with bytes: pure data movement, memory-bound, time from bandwidth. */
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 0, 100, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_MEMORY);
    RF_EXPECT_DBL(e.ai, 0.0);
    RF_EXPECT_NEAR(e.time_s, 2e-9, 1e-15);
    rf_ctx_free(c);
}

/* Seeds: a 64->32 dense layer at batch 8 has 32768 FLOPs and 8192 + 2048 + 1024 bytes (FP32). */
RF_TEST(dense_seed)
{
    rf_ctx *c = ctx_new();
    double f = 0, b = 0;
    RF_EXPECT_INT(rf_dense_cost(c, 8, 64, 32, 4, &f, &b), RF_OK);
    RF_EXPECT_DBL(f, 32768.0); /* 2 * 8 * 64 * 32 */
    RF_EXPECT_DBL(b, 8192.0 + 2048 + 1024);
    RF_EXPECT_INT(rf_dense_cost(c, 0, 64, 32, 4, &f, &b), RF_RANGE);
    RF_EXPECT_INT(rf_dense_cost(c, 1ULL << 40, 1ULL << 20, 1ULL << 20, 4, &f, &b), RF_RANGE);
    rf_ctx_free(c);
}

/* Seeds: a GPU of 10 TFLOP/s and 900 GB/s has a ridge above 10 (11.1). */
RF_TEST(gpu_ridge_seed)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {10e12, 900e9};
    double ai = 0;
    RF_EXPECT_INT(rf_ridge_ai(c, &roof, &ai), RF_OK);
    RF_EXPECT(ai > 10);
    RF_EXPECT_NEAR(ai, 11.111111111111111, 1e-12);
    rf_ctx_free(c);
}

/* Textbook exercise: A100-80G FP16 tensor 312 TFLOP/s, 2039 GB/s; a 4096x4096 FP16 GEMV
 * (33.55 MFLOP, 33.57 MB) -> 2.04 TFLOP/s attainable, memory-bound, 16.5 us
 * (reference/hardware-and-cases.md 3d). Plus a list: attainable = min(peak, AI*BW), ridge rule,
 * efficiency = attainable/peak, time = FLOPs/attainable. */
RF_TEST(textbook_exercise)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {312e12, 2039e9};
    rf_eval e;
    double flops = 2.0 * 4096 * 4096, bytes = 4096.0 * 4096 * 2 + 4096 * 2 * 2;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, flops, bytes, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_MEMORY);
    RF_EXPECT_NEAR(e.attainable_flops_per_s, 2.04e12, 0.005);
    RF_EXPECT_NEAR(e.time_s, 16.5e-6, 0.005);
    RF_EXPECT_NEAR(e.ridge_ai, 153.0, 0.005);
    static const double ops[][2] = {{1e9, 1e9}, {1e12, 1e9}, {5e9, 1e7}, {153e6, 1e6}, {1, 1e6}};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        RF_EXPECT_INT(rf_roof_eval(c, &roof, ops[i][0], ops[i][1], &e), RF_OK);
        double ai = ops[i][0] / ops[i][1];
        double att = ai * 2039e9 < 312e12 ? ai * 2039e9 : 312e12;
        RF_EXPECT_NEAR(e.attainable_flops_per_s, att, 1e-12);
        RF_EXPECT_INT(e.bound, ai >= 312e12 / 2039e9 ? RF_BOUND_COMPUTE : RF_BOUND_MEMORY);
        RF_EXPECT_NEAR(e.efficiency, att / 312e12, 1e-12);
        RF_EXPECT_NEAR(e.time_s, ops[i][0] / att, 1e-12);
    }
    rf_ctx_free(c);
}

/* Negative, NaN or infinite inputs and non-positive peaks are errors, with a message. */
RF_TEST(bad_inputs_are_errors)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 50e9}, bad = {0, 50e9}, nanroof = {NAN, 50e9};
    rf_eval e;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, -1, 10, &e), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "FLOPs");
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 1, -10, &e), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "bytes");
    RF_EXPECT_INT(rf_roof_eval(c, &roof, NAN, 10, &e), RF_RANGE);
    RF_EXPECT_INT(rf_roof_eval(c, &roof, INFINITY, 10, &e), RF_RANGE);
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 1, INFINITY, &e), RF_RANGE);
    RF_EXPECT_INT(rf_roof_eval(c, &bad, 1, 1, &e), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "peak compute");
    RF_EXPECT_INT(rf_roof_eval(c, &nanroof, 1, 1, &e), RF_RANGE);
    rf_roof negbw = {1e9, -5};
    RF_EXPECT_INT(rf_roof_eval(c, &negbw, 1, 1, &e), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "bandwidth");
    rf_ctx_free(c);
}

static rf_machine *cpu_machine(rf_ctx *c)
{
    rf_machine *m = NULL;
    rf_machine_new(c, "test-cpu", &m);
    static const struct {
        const char *name;
        rf_ceiling_kind kind;
        double v;
    } cs[] = {{"fp64.fma.avx512", RF_CEILING_COMPUTE, 119e9},
              {"fp32.fma.avx512", RF_CEILING_COMPUTE, 239e9},
              {"fp32.fma.avx2", RF_CEILING_COMPUTE, 129e9},
              {"L1", RF_CEILING_BANDWIDTH, 474e9},
              {"L2", RF_CEILING_BANDWIDTH, 176e9},
              {"DRAM", RF_CEILING_BANDWIDTH, 16e9}};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        rf_ceiling ce;
        memset(&ce, 0, sizeof ce);
        snprintf(ce.name, sizeof ce.name, "%s", cs[i].name);
        ce.kind = cs[i].kind;
        ce.value = cs[i].v;
        ce.provenance = RF_PROV_MEASURED;
        rf_machine_add(c, m, &ce);
    }
    return m;
}

/* A machine with several ceilings: selection by name or precision, defaults, which one binds. */
RF_TEST(machine_select_and_binding)
{
    rf_ctx *c = ctx_new();
    rf_machine *m = cpu_machine(c);
    RF_REQUIRE(m && m->n_ceilings == 6);
    size_t ci = 99, bi = 99, bind = 99;
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, NULL, &ci), RF_OK);
    RF_EXPECT_INT(ci, 0); /* first compute ceiling added is the default */
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, "fp32", &ci), RF_OK);
    RF_EXPECT_STR(m->ceilings[ci].name, "fp32.fma.avx512"); /* highest of the fp32 family */
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, "FP32.FMA.AVX2", &ci), RF_OK);
    RF_EXPECT_STR(m->ceilings[ci].name, "fp32.fma.avx2");
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, "fp16", &ci), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "fp32.fma.avx512");
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, "fp3", &ci), RF_USAGE);
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_BANDWIDTH, "dram", &bi), RF_OK);
    RF_EXPECT_INT(bi, 5);
    RF_EXPECT_INT(rf_machine_select(c, m, RF_CEILING_COMPUTE, "fp32", &ci), RF_OK);
    double att = 0;
    /* fp32 239 GFLOP/s from DRAM 16 GB/s: ridge 14.94. */
    RF_EXPECT_INT(rf_machine_binding(c, m, ci, bi, 1.0, &bind, &att), RF_OK);
    RF_EXPECT_INT(bind, bi);
    RF_EXPECT_DBL(att, 16e9);
    RF_EXPECT_INT(rf_machine_binding(c, m, ci, bi, 239.0 / 16.0, &bind, &att), RF_OK);
    RF_EXPECT_INT(bind, ci); /* tie goes to compute */
    RF_EXPECT_INT(rf_machine_binding(c, m, ci, bi, INFINITY, &bind, &att), RF_OK);
    RF_EXPECT_INT(bind, ci);
    RF_EXPECT_DBL(att, 239e9);
    /* From L1 the same intensity is compute-bound: 239/474 = 0.504 ridge. */
    RF_EXPECT_INT(rf_machine_binding(c, m, ci, 3, 1.0, &bind, &att), RF_OK);
    RF_EXPECT_INT(bind, ci);
    RF_EXPECT_INT(rf_machine_binding(c, m, bi, ci, 1.0, &bind, &att), RF_USAGE); /* swapped */
    double h[6];
    rf_machine_heights(m, 2.0, h);
    RF_EXPECT_DBL(h[0], 119e9);
    RF_EXPECT_DBL(h[5], 32e9);
    rf_machine_free(m);
    rf_ctx_free(c);
}

RF_TEST(machine_rejects_bad_ceilings)
{
    rf_ctx *c = ctx_new();
    rf_machine *m = cpu_machine(c), *copy = NULL;
    rf_ceiling ce;
    memset(&ce, 0, sizeof ce);
    snprintf(ce.name, sizeof ce.name, "DRAM");
    ce.kind = RF_CEILING_BANDWIDTH;
    ce.value = 1e9;
    RF_EXPECT_INT(rf_machine_add(c, m, &ce), RF_FORMAT); /* duplicate */
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "duplicate");
    snprintf(ce.name, sizeof ce.name, "HBM");
    ce.value = 0;
    RF_EXPECT_INT(rf_machine_add(c, m, &ce), RF_RANGE);
    ce.value = NAN;
    RF_EXPECT_INT(rf_machine_add(c, m, &ce), RF_RANGE);
    ce.value = -3;
    RF_EXPECT_INT(rf_machine_add(c, m, &ce), RF_RANGE);
    ce.name[0] = '\0';
    ce.value = 1;
    RF_EXPECT_INT(rf_machine_add(c, m, &ce), RF_FORMAT);
    RF_EXPECT_INT(rf_machine_set_value(c, m, 0, -1, RF_PROV_USER, "--peak-flops"), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "--peak-flops");
    RF_EXPECT_INT(rf_machine_set_value(c, m, 0, 5e9, RF_PROV_USER, "--peak-flops"), RF_OK);
    RF_EXPECT_DBL(m->ceilings[0].value, 5e9);
    RF_EXPECT_INT(rf_machine_clone(c, m, &copy), RF_OK);
    RF_EXPECT_INT(copy->n_ceilings, m->n_ceilings);
    RF_EXPECT_STR(copy->ceilings[5].name, "DRAM");
    rf_machine_free(copy);
    rf_machine_free(m);
    rf_machine_free(NULL);
    rf_ctx_free(c);
}

RF_TEST(simple_machine)
{
    rf_ctx *c = ctx_new();
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_machine_simple(c, "x", 19.5e12, 2039e9, RF_PROV_USER, "cli", &m), RF_OK);
    RF_REQUIRE(m);
    RF_EXPECT_STR(m->ceilings[m->default_compute].name, "peak");
    RF_EXPECT_STR(m->ceilings[m->default_bandwidth].name, "memory");
    rf_machine_free(m);
    RF_EXPECT_INT(rf_machine_simple(c, "x", 0, 2039e9, RF_PROV_USER, "cli", &m), RF_RANGE);
    RF_EXPECT(m == NULL);
    rf_ctx_free(c);
}

RF_TEST(si_parse)
{
    rf_ctx *c = ctx_new();
    double v = 0;
    RF_EXPECT_INT(rf_si_parse(c, "19.5T", "--peak-flops", &v), RF_OK);
    RF_EXPECT_DBL(v, 19.5e12);
    RF_EXPECT_INT(rf_si_parse(c, "2039G", "--peak-bw", &v), RF_OK);
    RF_EXPECT_DBL(v, 2039e9);
    RF_EXPECT_INT(rf_si_parse(c, "1.5e9", "x", &v), RF_OK);
    RF_EXPECT_DBL(v, 1.5e9);
    RF_EXPECT_INT(rf_si_parse(c, "900GB/s", "x", &v), RF_OK);
    RF_EXPECT_DBL(v, 900e9);
    RF_EXPECT_INT(rf_si_parse(c, "312 TFLOP/s", "x", &v), RF_OK);
    RF_EXPECT_DBL(v, 312e12);
    RF_EXPECT_INT(rf_si_parse(c, "64k", "x", &v), RF_OK);
    RF_EXPECT_DBL(v, 64e3);
    static const char *bad[] = {"",    "T",    "nan", "inf", "0x10", "-5G", "1e400",
                                "12Q", "1..2", " 5",  "5 5", "1e",   "+"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rf_status st = rf_si_parse(c, bad[i], "--peak-bw", &v);
        if (st == RF_OK) RF_FAIL_AT("'%s' was accepted", bad[i]);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "--peak-bw");
    }
    RF_EXPECT_INT(rf_si_parse(c, "1e300T", "x", &v), RF_RANGE);
    rf_ctx_free(c);
}

RF_TEST(si_format)
{
    char b[48];
    RF_EXPECT_STR(rf_si_format(b, sizeof b, 19.5e12, 3, "FLOP/s"), "19.5 TFLOP/s");
    RF_EXPECT_STR(rf_si_format(b, sizeof b, 2039e9, 4, "B/s"), "2.039 TB/s");
    RF_EXPECT_STR(rf_si_format(b, sizeof b, 999.96e9, 3, "B/s"), "1 TB/s");
    RF_EXPECT_STR(rf_si_format(b, sizeof b, 12, 3, ""), "12");
    RF_EXPECT_STR(rf_si_format(b, sizeof b, INFINITY, 3, ""), "inf");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 16.5e-6, 3), "16.5 us");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 2.5, 3), "2.5 s");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 0.00123, 3), "1.23 ms");
    /* SI always (issue 29): a long total is "1.2 ks", never "1e+03 s" */
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 1000, 3), "1 ks");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 1234, 2), "1.2 ks");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 999.4, 3), "999 s");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 3.6e6, 3), "3.6 Ms");
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 600e-9, 2), "600 ns"); /* hw list latency */
    RF_EXPECT_STR(rf_time_format(b, sizeof b, 999.7e-9, 3), "1000 ns");
    RF_EXPECT_STR(rf_bytes_format_iec(b, sizeof b, 524288, 3), "512 KiB");
    RF_EXPECT_STR(rf_number_format(b, sizeof b, 0.1), "0.1");
    RF_EXPECT_STR(rf_number_format(b, sizeof b, 32768), "32768");
    RF_EXPECT_STR(rf_number_format(b, sizeof b, 1.0 / 3), "0.3333333333333333");
    RF_EXPECT_STR(rf_number_format(b, sizeof b, 19500000000000.0), "19500000000000");
}

RF_TEST(status_names)
{
    RF_EXPECT_STR(rf_status_name(RF_FORMAT), "FORMAT");
    RF_EXPECT_STR(rf_status_str(RF_NOMEM), "out of memory");
    RF_EXPECT_STR(rf_status_name((rf_status)999), "UNKNOWN");
    RF_EXPECT(rf_status_is_input_error(RF_RANGE));
    RF_EXPECT(!rf_status_is_input_error(RF_NOMEM));
    RF_EXPECT(!rf_status_is_input_error(RF_OK));
}

RF_TEST(ctx_errors_and_alloc_failures)
{
    rf_ctx *c = ctx_new();
    RF_EXPECT_STR(rf_ctx_errmsg(c), "");
    RF_EXPECT_INT(rf_ctx_error_offset(c), -1);
    rf_roof roof = {-1, 1};
    rf_eval e;
    rf_roof_eval(c, &roof, 1, 1, &e);
    RF_EXPECT_INT(rf_ctx_error_status(c), RF_RANGE);
    rf_ctx_clear_error(c);
    RF_EXPECT_STR(rf_ctx_errmsg(c), "");
    rf_machine *m = NULL;
    rf_ctx_fail_alloc_after(c, 1, 1);
    RF_EXPECT_INT(rf_machine_new(c, "x", &m), RF_NOMEM);
    RF_EXPECT(m == NULL);
    rf_ctx_fail_alloc_after(c, 0, 0);
    RF_EXPECT_INT(rf_machine_new(c, "x", &m), RF_OK);
    rf_machine_free(m);
    RF_EXPECT(rf_ctx_alloc_count(c) >= 2);
    RF_EXPECT(rf_version()[0] >= '0' && rf_version()[0] <= '9');
    rf_ctx_free(c);
}

/* examples/cookbook-six-layers.csv is the cookbook's six-layer demo at batch 32 (FP32): each row
 * must equal the dense rule, so the example file cannot drift from the cost model. */
static rf_status six_row(void *user, const rf_op_row *row)
{
    static const struct {
        const char *name;
        uint64_t in, out;
    } layers[] = {{"embedding", 1000, 128},    {"attention.qkv", 128, 384},
                  {"attention.out", 384, 128}, {"ffn.up", 128, 512},
                  {"ffn.down", 512, 128},      {"output.proj", 128, 1000}};
    int *seen = user;
    RF_EXPECT(row->row >= 1 && row->row <= 6);
    if (row->row < 1 || row->row > 6) return RF_OK;
    size_t i = (size_t)row->row - 1;
    double f = 0, b = 0;
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    RF_EXPECT_INT(rf_dense_cost(c, 32, layers[i].in, layers[i].out, 4, &f, &b), RF_OK);
    rf_ctx_free(c);
    RF_EXPECT(row->name_len == strlen(layers[i].name) &&
              memcmp(row->name, layers[i].name, row->name_len) == 0);
    RF_EXPECT_DBL(row->flops, f);
    RF_EXPECT_DBL(row->bytes, b);
    (*seen)++;
    return RF_OK;
}

RF_TEST(cookbook_example_matches_dense_rule)
{
    rf_ctx *c = ctx_new();
    int seen = 0;
    RF_EXPECT_INT(rf_ops_read_file(c, RF_SOURCE_DIR "/examples/cookbook-six-layers.csv",
                                   RF_OPS_AUTO, six_row, &seen),
                  RF_OK);
    RF_EXPECT_INT(seen, 6);
    rf_ctx_free(c);
}
