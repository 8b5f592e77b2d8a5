/* test_prof.c — the profiler-measurement reader (roofline/prof.h): Nsight Compute's long and wide
 * CSV forms with units, separators and launches summed; PyTorch traces with ops, kernels and their
 * External id; format detection; refusals with their status and message; allocation failures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rf_test.h"
#include "roofline/prof.h"

typedef struct got {
    size_t n;
    rf_prof_kernel k[8];
    char names[8][64];
} got;

static rf_status keep(void *user, const rf_prof_kernel *k)
{
    got *g = user;
    if (g->n < 8) {
        g->k[g->n] = *k;
        strncpy(g->names[g->n], k->name, 63);
        g->names[g->n][63] = '\0';
        g->k[g->n].name = g->names[g->n];
    }
    g->n++;
    return RF_OK;
}

static rf_status parse(rf_ctx *ctx, const char *text, rf_prof_format fmt, got *g,
                       rf_prof_format *found)
{
    memset(g, 0, sizeof *g);
    return rf_prof_parse(ctx, text, strlen(text), fmt, keep, g, found);
}

#define LONG_HDR "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"

RF_TEST(ncu_long_units_and_launches)
{
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    got g;
    rf_prof_format found = RF_PROF_AUTO;
    const char *csv = "==PROF== Connected\n" LONG_HDR
                      "\"0\",\"k\",\"gpu__time_duration.sum\",\"usecond\",\"1.5\"\n"
                      "\"0\",\"k\",\"dram__bytes.sum\",\"Mbyte\",\"2\"\n"
                      "\"0\",\"k\",\"sm__sass_thread_inst_executed_op_dfma_pred_on.sum\",\"\","
                      "\"1,000\"\n"
                      "\"1\",\"k\",\"gpu__time_duration.sum\",\"nsecond\",\"500\"\n"
                      "\"1\",\"k\",\"lts__t_bytes.sum\",\"Kbyte\",\"3\"\n"
                      "\"2\",\"j\",\"l1tex__t_bytes.sum\",\"byte\",\"7\"\n"
                      "\"2\",\"j\",\"sm__inst_executed_pipe_tensor.sum\",\"inst\",\"2\"\n"
                      "\"2\",\"j\",\"unrelated__metric\",\"%\",\"n/a\"\n";
    RF_EXPECT(parse(ctx, csv, RF_PROF_AUTO, &g, &found) == RF_OK);
    RF_EXPECT_INT(found, RF_PROF_NCU);
    RF_EXPECT_INT(g.n, 2);
    RF_EXPECT(strcmp(g.k[0].name, "k") == 0);
    RF_EXPECT_INT(g.k[0].count, 2);
    RF_EXPECT_DBL(g.k[0].flops_fp64, 2000);
    RF_EXPECT_DBL(g.k[0].bytes_dram, 2e6);
    RF_EXPECT_DBL(g.k[0].bytes_l2, 3e3);
    RF_EXPECT_NEAR(g.k[0].time_s, 2e-6, 1e-12);
    RF_EXPECT_INT(g.k[0].gpu_kernel, 1);
    RF_EXPECT_INT(g.k[1].count, 1);
    RF_EXPECT_DBL(g.k[1].flops_tensor, 1024);
    RF_EXPECT_DBL(g.k[1].bytes_l1, 7);
    rf_ctx_free(ctx);
}

RF_TEST(ncu_wide_units_row)
{
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    got g;
    const char *csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes.sum\"\r\n"
                      "\"\",\"\",\"msecond\",\"Gbyte\"\r\n"
                      "\"0\",\"a\"\"b\",\"1\",\"1\"\r\n"
                      "\"1\",\"a\"\"b\",\"2\",\"0.5\"\r\n";
    RF_EXPECT(parse(ctx, csv, RF_PROF_NCU, &g, NULL) == RF_OK);
    RF_EXPECT_INT(g.n, 1);
    RF_EXPECT(strcmp(g.k[0].name, "a\"b") == 0);
    RF_EXPECT_INT(g.k[0].count, 2);
    RF_EXPECT_NEAR(g.k[0].time_s, 3e-3, 1e-12);
    RF_EXPECT_DBL(g.k[0].bytes_dram, 1.5e9);
    rf_ctx_free(ctx);
}

RF_TEST(torch_ops_and_kernels)
{
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    got g;
    rf_prof_format found = RF_PROF_AUTO;
    /* CPU only: the ops with flops, summed by name; ops without flops and other phases skipped. */
    const char *cpu = "{\"traceEvents\":["
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"dur\":10,"
                      "\"args\":{\"flops\":100}},"
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::empty\",\"dur\":1,"
                      "\"args\":{}},"
                      "{\"ph\":\"i\",\"name\":\"marker\"},"
                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"dur\":30,"
                      "\"args\":{\"flops\":300}}]}";
    RF_EXPECT(parse(ctx, cpu, RF_PROF_AUTO, &g, &found) == RF_OK);
    RF_EXPECT_INT(found, RF_PROF_TORCH);
    RF_EXPECT_INT(g.n, 1);
    RF_EXPECT_INT(g.k[0].count, 2);
    RF_EXPECT_DBL(g.k[0].flops_other, 400);
    RF_EXPECT_NEAR(g.k[0].time_s, 40e-6, 1e-12);
    RF_EXPECT_INT(g.k[0].gpu_kernel, 0);
    /* With kernels: the kernels are the rows, the op's flops shared among its kernels. */
    const char *gpu = "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"dur\":10,"
                      "\"args\":{\"flops\":100,\"External id\":3}},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"dur\":2,"
                      "\"args\":{\"External id\":3}},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"dur\":4,"
                      "\"args\":{\"External id\":3}},"
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"memcpy\",\"dur\":1}]";
    RF_EXPECT(parse(ctx, gpu, RF_PROF_TORCH, &g, NULL) == RF_OK);
    RF_EXPECT_INT(g.n, 3);
    RF_EXPECT_DBL(g.k[0].flops_other, 50);
    RF_EXPECT_DBL(g.k[1].flops_other, 50);
    RF_EXPECT_DBL(g.k[2].flops_other, 0);
    RF_EXPECT_INT(g.k[2].gpu_kernel, 1);
    rf_ctx_free(ctx);
}

/* Refusals: status and a fragment of the one-line message. */
static void refuse(const char *file, int line, const char *text, rf_prof_format fmt, rf_status want,
                   const char *frag)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    got g;
    rf_status st = parse(ctx, text, fmt, &g, NULL);
    if (st != want || !strstr(rf_ctx_errmsg(ctx), frag)) {
        fprintf(stderr, "%s:%d: expected %s \"%s\"; got %s \"%s\"\n", file, line,
                rf_status_name(want), frag, rf_status_name(st), rf_ctx_errmsg(ctx));
        rf_test_failures++;
    }
    rf_ctx_free(ctx);
}
#define REFUSE(text, fmt, want, frag) refuse(__FILE__, __LINE__, (text), (fmt), (want), (frag))

RF_TEST(refusals)
{
    REFUSE("", RF_PROF_AUTO, RF_FORMAT, "neither a PyTorch trace");
    REFUSE("name,flops,bytes\na,1,2\n", RF_PROF_AUTO, RF_FORMAT, "neither");
    REFUSE("", RF_PROF_NCU, RF_FORMAT, "no header");
    REFUSE(LONG_HDR, RF_PROF_NCU, RF_FORMAT, "no kernel with a known metric");
    REFUSE(LONG_HDR "\"0\",\"k\",\"dram__bytes.sum\",\"byte\",\"-4\"\n", RF_PROF_NCU, RF_RANGE,
           "line 2: value \"-4\"");
    REFUSE(LONG_HDR "\"0\",\"k\",\"dram__bytes.sum\",\"usecond\",\"4\"\n", RF_PROF_NCU, RF_FORMAT,
           "unknown unit \"usecond\" for dram__bytes.sum");
    REFUSE(LONG_HDR "\"0\",\"\",\"dram__bytes.sum\",\"byte\",\"4\"\n", RF_PROF_NCU, RF_FORMAT,
           "the kernel name is empty");
    REFUSE(LONG_HDR "\"0\",\"k\",\"dram__bytes.sum\",\"byte\",\"4\"x\n", RF_PROF_NCU, RF_FORMAT,
           "text after a closing quote");
    REFUSE(LONG_HDR "\"0\",\"k\",\"dram__bytes.sum\",\"byte\",\"1e308\"\n"
                    "\"1\",\"k\",\"dram__bytes.sum\",\"byte\",\"1e308\"\n",
           RF_PROF_NCU, RF_RANGE, "out of range");
    REFUSE("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"dur\":1,"
           "\"args\":{\"flops\":-1}}]}",
           RF_PROF_TORCH, RF_FORMAT, "traceEvents[0]: \"args.flops\"");
    REFUSE("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"dur\":1,\"args\":{\"flops\":1}}]}",
           RF_PROF_TORCH, RF_FORMAT, "no \"name\" string");
    REFUSE("{\"traceEvents\":[]}", RF_PROF_TORCH, RF_FORMAT, "no op with flops");
    REFUSE("{\"traceEvents\":[", RF_PROF_TORCH, RF_FORMAT, "");
}

/* Allocation failures at every allocation of a parse: RF_NOMEM, never a crash or a leak. */
RF_TEST(oom)
{
    const char *csv = LONG_HDR "\"0\",\"k\",\"dram__bytes.sum\",\"byte\",\"4\"\n"
                               "\"1\",\"j\",\"dram__bytes.sum\",\"byte\",\"4\"\n";
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (uint64_t k = 1; k < 1000; k++) {
        got g;
        rf_ctx_fail_alloc_after(ctx, k, 1);
        rf_status st = parse(ctx, csv, RF_PROF_NCU, &g, NULL);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        if (st == RF_OK) break;
        if (st != RF_NOMEM) RF_FAIL_AT("allocation %llu: status %d", (unsigned long long)k, st);
    }
    rf_ctx_free(ctx);
}
