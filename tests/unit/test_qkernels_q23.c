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

#include <unistd.h>

#include "exec/qgemm.h"
#include "q23_ggml_fixture.h"
#define RF_RAND_SEED 0x853c49e6748fea9bull
#include "rf_rand.h"
#include "rf_test.h"
#include "roofline/exec_llm.h"
#include "roofline/gguf.h"

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

/* ---- the measured LLM pass on Q2_K and Q3_K matrices: no substitution --------------------- */

/* Path of tests/data/gguf/NAME.gz gunzipped once into the build tree; exits 77 when it cannot. */
static const char *fixture(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, RF_BINARY_DIR "/fixtures-exec/%s", name);
    if (access(buf, R_OK) == 0) return buf;
    char cmd[16384];
    int w = snprintf(cmd, sizeof cmd,
                     "mkdir -p '" RF_BINARY_DIR "/fixtures-exec' && gunzip -c '" RF_SOURCE_DIR
                     "/tests/data/gguf/%s.gz' > '%s.tmp.%d' && mv '%s.tmp.%d' '%s'",
                     name, buf, (int)getpid(), buf, (int)getpid(), buf);
    if (w < 0 || (size_t)w >= sizeof cmd || system(cmd) != 0) {
        fprintf(stderr, "SKIP: cannot gunzip tests/data/gguf/%s.gz\n", name);
        exit(77);
    }
    return buf;
}

/* tiny_llama_mixed.gguf with its MLP matrices (Q4_K and Q6_K, 256 and 768 columns) retyped Q2_K
 * and Q3_K in place (their new blocks are smaller: the rest of each slot is padding), every
 * block's F16 scales set to 2^-8 so the random quants give finite values; gate and up of a block
 * share a type (decode's fused product of the two). The pass runs them on their own kernels:
 * decode's row kernels, prefill's packed GEMM (16 rows) on an AVX-512 VNNI CPU. */
RF_TEST(exec_llm_q2_k_q3_k_own_kernels)
{
    char p[4096], q[4200];
    const char *src = fixture("tiny_llama_mixed.gguf", p, sizeof p);
    static uint8_t img[2 << 20];
    FILE *f = fopen(src, "rb");
    RF_EXPECT(f != NULL);
    if (!f) return;
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    static const struct {
        const char *name;
        uint32_t type; /* ggml ids: 10 Q2_K, 11 Q3_K */
    } retype[] = {{"blk.0.ffn_gate.weight", 10}, {"blk.0.ffn_up.weight", 10},
                  {"blk.0.ffn_down.weight", 11}, {"blk.1.ffn_gate.weight", 11},
                  {"blk.1.ffn_up.weight", 11},   {"blk.1.ffn_down.weight", 10}};
    rf_ctx *ctx = NULL;
    rf_gguf *g = NULL;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf_gguf_parse(ctx, img, n, &g), RF_OK);
    if (!g) return;
    uint64_t offs[6], elems[6];
    for (int t = 0; t < 6; t++) {
        const rf_gguf_tensor *ti = rf_gguf_tensor_find(g, retype[t].name);
        RF_EXPECT(ti != NULL);
        if (!ti) return;
        offs[t] = ti->file_offset;
        elems[t] = ti->n_elements;
    }
    rf_gguf_free(g);
    for (int t = 0; t < 6; t++) {
        size_t nl = strlen(retype[t].name), at = 0;
        for (size_t i = 0; i + nl < n && !at; i++)
            if (memcmp(img + i, retype[t].name, nl) == 0) at = i + nl;
        RF_EXPECT(at > 0);
        uint32_t nd;
        memcpy(&nd, img + at, 4);
        memcpy(img + at + 4 + 8 * nd, &retype[t].type, 4);
        size_t bb = retype[t].type == 10 ? 84 : 110;
        uint16_t h = 0x1c00; /* 2^-8 */
        for (uint64_t b = 0; b < elems[t] / 256; b++) {
            uint8_t *blk = img + offs[t] + b * bb;
            if (retype[t].type == 10)
                memcpy(blk + 80, &h, 2), memcpy(blk + 82, &h, 2);
            else
                memcpy(blk + 108, &h, 2);
        }
    }
    snprintf(q, sizeof q, "%s.q23.%d.gguf", src, (int)getpid());
    f = fopen(q, "wb");
    RF_EXPECT(f && fwrite(img, 1, n, f) == n);
    if (f) fclose(f);
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    po.prompt = 16; /* prefill of 16 rows: the packed GEMM where the CPU has it */
    dopt.phase = RF_LLM_DECODE;
    dopt.context = 24;
    rf_exec_opts eo = {1, 1, 1, NULL, NULL, 0};
    rf_status st = rf_llm_read_file(ctx, q, &m);
    if (st == RF_OK) st = rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r);
    remove(q);
    if (st != RF_OK) RF_FAIL_AT("%s: %s", q, rf_ctx_errmsg(ctx));
    if (r) {
        RF_EXPECT_INT(r->n_subst, 0);
        RF_EXPECT(r->decode_s > 0 && isfinite(r->decode_s));
        RF_EXPECT(r->prefill_s > 0 && isfinite(r->prefill_s));
        RF_EXPECT(r->decode_tokens_per_s > 0 && isfinite(r->decode_tokens_per_s));
        /* a decode step reads the smaller matrices: the six MLP matrices (196608 values each)
         * take 446976 bytes as Q2_K and Q3_K, 764928 as the file's Q4_K and Q6_K; the step read
         * 1.34 MB of weights before (all but the gathered token_embd's 262144) */
        RF_EXPECT(r->decode_weight_bytes < 1611904.0 - 262144.0 - 300000.0);
    }
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}
