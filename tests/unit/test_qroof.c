/* test_qroof.c — the kernel ceilings of decode (src/exec/qroof.c, issue 28 item 3): their names
 * (type in lower case, "gemv", the instruction set the kernels run: never clashing with the
 * probe's instruction peaks such as bf16.dot.avx512), a measured figure for a type with a kernel,
 * a refusal for one without, and the whole set added to a machine. */
#include <string.h>

#include "exec/qkernels.h"
#include "rf_test.h"
#include "roofline/exec_llm.h"

RF_TEST(qroof_names)
{
    char name[RF_NAME_MAX], want[RF_NAME_MAX];
    const char *isa = rf__kernel_isa_name(rf__kernel_isa_best());
    rf_exec_kernel_ceiling_name(RF_DTYPE_Q4_K, name, sizeof name);
    snprintf(want, sizeof want, "q4_k.gemv.%s", isa);
    RF_EXPECT_STR(name, want);
    rf_exec_kernel_ceiling_name(RF_DTYPE_BF16, name, sizeof name);
    snprintf(want, sizeof want, "bf16.gemv.%s", isa);
    RF_EXPECT_STR(name, want);
    rf_exec_kernel_ceiling_name(RF_DTYPE_Q3_K, name, sizeof name); /* issue 28: its own kernel */
    snprintf(want, sizeof want, "q3_k.gemv.%s", isa);
    RF_EXPECT_STR(name, want);
    rf_exec_kernel_ceiling_name(RF_DTYPE_IQ4_XS, name, sizeof name); /* no kernel of its own */
    RF_EXPECT_STR(name, "");
}

RF_TEST(qroof_measures_one_type)
{
    rf_ctx *ctx = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_ceiling c;
    RF_EXPECT(rf_exec_kernel_ceiling(ctx, RF_DTYPE_Q8_0, 1, 0.005, 0, &c) == RF_OK);
    char want[RF_NAME_MAX];
    rf_exec_kernel_ceiling_name(RF_DTYPE_Q8_0, want, sizeof want);
    RF_EXPECT_STR(c.name, want);
    RF_EXPECT(c.kind == RF_CEILING_BANDWIDTH);
    RF_EXPECT(c.provenance == RF_PROV_MEASURED);
    RF_EXPECT(c.value > 1e8 && c.value < 1e13); /* 0.1 GB/s .. 10 TB/s of weights */
    RF_EXPECT_INT(c.stats.threads, 1);
    RF_EXPECT_CONTAINS(c.note, "kernel ceiling, not a memory level");
    RF_EXPECT_CONTAINS(c.note, "Q8_0 dot kernel");
    RF_EXPECT(rf_exec_kernel_ceiling(ctx, RF_DTYPE_IQ4_XS, 1, 0.005, 0, &c) == RF_UNSUPPORTED);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "IQ4_XS");
    rf_ctx_free(ctx);
}

RF_TEST(qroof_rates_every_type)
{
    rf_ctx *ctx = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    int isa = rf__kernel_isa_best();
    for (int id = 0; id < RF__WEIGHT_TYPES; id++) {
        double one = 0, two = 0;
        RF_EXPECT(rf__qkernel_rate(ctx, id, isa, 1, 0, 0.002, &one) == RF_OK);
        RF_EXPECT(rf__qkernel_rate(ctx, id, isa, 2, 0, 0.002, &two) == RF_OK);
        if (!(one > 1e7) || !(two > 1e7)) RF_FAIL_AT("type %d: %g and %g B/s", id, one, two);
    }
    double r;
    RF_EXPECT(rf__qkernel_rate(ctx, RF__WEIGHT_TYPES, isa, 1, 0, 0.002, &r) == RF_RANGE);
    rf_ctx_free(ctx);
}

/* With the DRAM figures the value is the lower of the two rates on all threads: the rows streamed
 * from past the last-level cache, as decode reads them (the source says which), never above the
 * rate from L2. */
RF_TEST(qroof_dram_fed_value)
{
    rf_ctx *ctx = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_ceiling fed;
    RF_EXPECT(rf_exec_kernel_ceiling(ctx, RF_DTYPE_F16, 1, 0.005, 1, &fed) == RF_OK);
    RF_EXPECT(fed.value > 1e8);
    RF_EXPECT_CONTAINS(fed.note, "from DRAM");
    /* the figure is one of the two the call measured (no comparison with another call's timing:
     * on a busy machine two calls' rates differ by more than any fixed factor) */
    if (!strstr(fed.source, "streamed")) RF_EXPECT_CONTAINS(fed.source, "held in L2");
    RF_EXPECT(fed.stats.median == fed.value);
    RF_EXPECT(fed.stats.min <= fed.value && fed.value <= fed.stats.max);
    RF_EXPECT(fed.stats.repetitions >= 5);
    rf_ctx_free(ctx);
}
