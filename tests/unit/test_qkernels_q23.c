/* test_qkernels_q23.c — Q2_K and Q3_K (qkernels_q23.c, qkernels_x86_q23.c, qgemm_types.c) against
 * llama.cpp itself: q23_ggml_fixture.h holds blocks and the floats ggml's own to_float gave for
 * them (tests/data/tools/ggml_dequant_fixture.c says how it was made), so the layouts are checked
 * against the code that defines them, not against this project's reading of them. Checked: the
 * reference dequantiser value by value; the dot kernel of every instruction-set level this CPU
 * runs against ggml's floats times the 8-bit activation (float rounding only); the prefill repack
 * (a . q + b per value) against the same floats. The random-block tests of test_qkernels.c and
 * test_qgemm.c then check the kernels against the reference on many more blocks. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qgemm.h"
#include "q23_ggml_fixture.h"
#define RF_RAND_SEED 0x853c49e6748fea9bull
#include "rf_rand.h"
#include "rf_test.h"

#define K (Q23_FIXTURE_BLOCKS * 256)

/* ggml's floats of type id, and its blocks */
static void ggml_floats(int id, float *y, const uint8_t **blocks)
{
    const uint32_t *u = id == RF__WEIGHT_Q2_K ? q2_k_floats : q3_k_floats;
    for (int i = 0; i < K; i++) memcpy(&y[i], &u[i], 4);
    *blocks = id == RF__WEIGHT_Q2_K ? q2_k_blocks : q3_k_blocks;
}

/* The largest |value| of the 256 of block b: the scale of a float's rounding in it. */
static double block_max(const float *y, int b)
{
    double m = 0;
    for (int i = 256 * b; i < 256 * b + 256; i++) m = fmax(m, fabs(y[i]));
    return m;
}

static void check_dequant(int id)
{
    float want[K], got[K];
    const uint8_t *blocks;
    ggml_floats(id, want, &blocks);
    rf__dequant_row(id, blocks, got, K);
    int bad = 0, nonzero = 0;
    for (int i = 0; i < K; i++) {
        /* one rounding apart at most (ggml may fuse a multiply-add); a wrong bit, scale or min
         * is a whole quantisation step off */
        double tol = 1e-6 * block_max(want, i / 256);
        nonzero += want[i] != 0;
        if (!(fabs((double)got[i] - want[i]) <= tol) && bad++ < 5)
            RF_FAIL_AT("%s value %d: %.9g, ggml %.9g", rf_dtype_name(rf__weight_dtype(id)), i,
                       got[i], want[i]);
    }
    RF_EXPECT(nonzero > K / 2); /* the fixture is not all zeros */
}

RF_TEST(q23_dequant_matches_ggml)
{
    check_dequant(RF__WEIGHT_Q2_K);
    check_dequant(RF__WEIGHT_Q3_K);
}

static void check_dots(int id)
{
    float w[K], x[K], xq[K];
    const uint8_t *blocks;
    ggml_floats(id, w, &blocks);
    static rf__block_q8_k act[Q23_FIXTURE_BLOCKS];
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < K; i++) x[i] = rndf() * (rep == 1 ? 1e-3f : 1.0f);
        if (rep == 2) /* one wide value per 16: the sums of 16 carry it */
            for (int i = 0; i < K; i++) x[i] = i % 16 == 3 ? 30.0f : x[i];
        for (int isa = RF__KERNEL_GENERIC; isa <= rf__kernel_isa_best(); isa++) {
            rf__act_quantize(id, isa, x, K, act);
            for (int i = 0; i < K; i++) xq[i] = act[i / 256].d * (float)act[i / 256].qs[i % 256];
            double ref = 0, mag = 0;
            for (int i = 0; i < K; i++) {
                ref += (double)w[i] * xq[i];
                mag += fabs((double)w[i] * xq[i]);
            }
            double got = rf__row_dot_get(id, isa)(blocks, act, K);
            if (!(fabs(got - ref) <= 2e-5 * mag + 1e-6))
                RF_FAIL_AT("%s %s rep %d: %.9g, ggml's floats give %.9g (sum|wx| %.3g)",
                           rf_dtype_name(rf__weight_dtype(id)), rf__kernel_isa_name(isa), rep, got,
                           ref, mag);
            /* and one block at a time (the kernels' per-block state restarts) */
            for (int b = 0; b < Q23_FIXTURE_BLOCKS; b++) {
                uint32_t be, bb;
                rf__weight_block(id, &be, &bb);
                double rb = 0, mb = 0;
                for (int i = 256 * b; i < 256 * b + 256; i++) {
                    rb += (double)w[i] * xq[i];
                    mb += fabs((double)w[i] * xq[i]);
                }
                double gb = rf__row_dot_get(id, isa)(blocks + bb * (size_t)b, act + b, 256);
                if (!(fabs(gb - rb) <= 2e-5 * mb + 1e-6))
                    RF_FAIL_AT("%s %s block %d: %.9g vs %.9g", rf_dtype_name(rf__weight_dtype(id)),
                               rf__kernel_isa_name(isa), b, gb, rb);
            }
        }
    }
}

RF_TEST(q23_dots_match_ggml)
{
    check_dots(RF__WEIGHT_Q2_K);
    check_dots(RF__WEIGHT_Q3_K);
}

/* The prefill repack: 17 rows (a partial group) of the fixture's row; every packed value a . q + b
 * equals ggml's float. */
static void check_pack(int id)
{
    float w[K];
    const uint8_t *blocks;
    ggml_floats(id, w, &blocks);
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t rb = K / be * bb;
    const uint64_t N = 17;
    uint8_t *m = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) memcpy(m + r * rb, blocks, rb);
    size_t pb = rf__qgemm_bytes(id, N, K);
    uint8_t *pm = malloc(pb + 64), *pd = pm + (64 - (uintptr_t)pm % 64) % 64;
    rf__qgemm_w pw;
    rf__qgemm_pack(id, m, rb, N, K, pd, &pw);
    RF_EXPECT_INT(pw.blk, 16);
    int bad = 0;
    for (uint64_t r = 0; r < N; r++)
        for (uint64_t j = 0; j < K / 16; j++) {
            const uint8_t *q = rf__qgemm_quants(&pw, r / 16, j);
            const float *ab = (const float *)(const void *)rf__qgemm_scales(&pw, r / 16, j);
            float a = ab[r % 16], b = ab[16 + r % 16];
            for (int i = 0; i < 16; i++) {
                int qi = q[((i / 4) * RF__QGEMM_ROWS + r % 16) * 4 + i % 4];
                double v = (double)a * qi + b, want = w[16 * j + (uint64_t)i];
                if (!(fabs(v - want) <= 1e-6 * block_max(w, (int)(j / 16))) && bad++ < 5)
                    RF_FAIL_AT("%s row %d value %d: packed %.9g, ggml %.9g",
                               rf_dtype_name(rf__weight_dtype(id)), (int)r, (int)(16 * j) + i, v,
                               want);
            }
        }
    free(pm);
    free(m);
}

RF_TEST(q23_prefill_pack_matches_ggml)
{
    check_pack(RF__WEIGHT_Q2_K);
    check_pack(RF__WEIGHT_Q3_K);
}
