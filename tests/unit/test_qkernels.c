/* test_qkernels.c — the quantized matrix kernels (src/exec/q*.c) and the measured LLM pass
 * (roofline/exec_llm.h): every type's dot product against dequantise-then-dot (random blocks,
 * several lengths), every instruction-set variant built for this CPU against the reference, the
 * F16 conversions, the substitution rule, the threaded drivers against a naive product; the pass
 * on the tiny GGUF fixtures (finite times, no timing assertions) and its timing on a fake clock. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qkernels.h"
#include "rf_test.h"

/* xorshift: reproducible random data */
static uint64_t rf_rng = 88172645463325252ull;
static uint32_t rnd(void)
{
    rf_rng ^= rf_rng << 13;
    rf_rng ^= rf_rng >> 7;
    rf_rng ^= rf_rng << 17;
    return (uint32_t)(rf_rng >> 11);
}
static float rndf(void) /* [-1, 1) */
{
    return (float)((double)(rnd() & 0xffffff) / 8388608.0 - 1.0);
}

/* Random weights of kernel type id: k elements into buf (bytes returned); F16 scales kept in a
 * sane range so the reference stays finite. */
static size_t fill_weights(int id, uint8_t *buf, size_t k)
{
    uint32_t be, bb;
    rf__qk_block(id, &be, &bb);
    size_t nb = k / be, bytes = nb * bb;
    for (size_t i = 0; i < bytes; i++) buf[i] = (uint8_t)rnd();
    for (size_t i = 0; i < nb; i++) {
        uint8_t *b = buf + i * bb;
        uint16_t d = rf__f32_to_f16(0.001f + 0.05f * (rndf() + 1.0f));
        uint16_t e = rf__f32_to_f16(0.001f + 0.02f * (rndf() + 1.0f));
        switch (id) {
        case RF__QK_F32: {
            float f = rndf();
            memcpy(b, &f, 4);
        } break;
        case RF__QK_F16:
            d = rf__f32_to_f16(rndf());
            memcpy(b, &d, 2);
            break;
        case RF__QK_BF16: {
            float f = rndf();
            uint32_t u;
            memcpy(&u, &f, 4);
            uint16_t h = (uint16_t)(u >> 16);
            memcpy(b, &h, 2);
        } break;
        case RF__QK_Q8_0:
        case RF__QK_Q4_0: memcpy(b, &d, 2); break;
        case RF__QK_Q4_K:
            memcpy(b, &d, 2);
            memcpy(b + 2, &e, 2);
            break;
        case RF__QK_Q6_K: memcpy(b + 208, &d, 2); break;
        }
    }
    return bytes;
}

/* dequantise-then-dot in double; *mag = sum |w x| for the tolerance */
static double ref_dot(int id, const void *w, const float *x, size_t k, double *mag)
{
    float *y = malloc(k * sizeof *y);
    double s = 0, m = 0;
    rf__qk_dequant(id, w, y, k);
    for (size_t i = 0; i < k; i++) {
        s += (double)y[i] * x[i];
        m += fabs((double)y[i] * x[i]);
    }
    free(y);
    *mag = m;
    return s;
}

static void check_type(int id, int isa)
{
    static const size_t lens_f[] = {1, 7, 33, 100, 1000, 4096, 5003};
    static const size_t lens_32[] = {32, 64, 96, 1024, 4128};
    static const size_t lens_256[] = {256, 512, 2816, 4096};
    uint32_t be, bb;
    rf__qk_block(id, &be, &bb);
    const size_t *lens = be == 1 ? lens_f : be == 32 ? lens_32 : lens_256;
    size_t n = be == 1 ? 7 : be == 32 ? 5 : 4;
    rf__qk_dot_fn fn = rf__qk_get(id, isa);
    for (size_t li = 0; li < n; li++) {
        size_t k = lens[li];
        for (int rep = 0; rep < 3; rep++) {
            uint8_t *w = malloc(k / be * bb);
            float *x = malloc(k * sizeof *x), *xs = malloc((k / 32 + 1) * sizeof *xs);
            fill_weights(id, w, k);
            for (size_t i = 0; i < k; i++) x[i] = rndf();
            rf__qk_xsums(x, k, xs);
            double mag, ref = ref_dot(id, w, x, k, &mag);
            double got = fn(w, x, xs, k);
            if (!(fabs(got - ref) <= 2e-5 * mag + 1e-6))
                RF_FAIL_AT("%s %s k=%zu: %.9g vs reference %.9g (sum|wx| %.3g)",
                           rf_dtype_name(rf__qk_dtype(id)), rf__qisa_name(isa), k, got, ref, mag);
            free(w);
            free(x);
            free(xs);
        }
    }
}

RF_TEST(qk_reference_dots)
{
    for (int id = 0; id < RF__QK_COUNT; id++) check_type(id, RF__QISA_GENERIC);
}

RF_TEST(qk_isa_variants)
{
    int best = rf__qisa_best(), tried = 0;
    for (int isa = RF__QISA_AVX2; isa <= best; isa++)
        for (int id = 0; id < RF__QK_COUNT; id++) {
            RF_EXPECT(rf__qk_has(id, isa));
            check_type(id, isa);
            tried++;
        }
    if (!tried) {
        fprintf(stderr, "SKIP: no vector kernels for this CPU (best level: %s)\n",
                rf__qisa_name(best));
        exit(77);
    }
}

RF_TEST(qk_f16_conversions)
{
    RF_EXPECT_DBL(rf__f16_to_f32(0x3c00), 1.0);
    RF_EXPECT_DBL(rf__f16_to_f32(0xc000), -2.0);
    RF_EXPECT_DBL(rf__f16_to_f32(0x0001), ldexp(1.0, -24));
    RF_EXPECT_DBL(rf__f16_to_f32(0x7bff), 65504.0);
    RF_EXPECT(isinf(rf__f16_to_f32(0x7c00)));
    RF_EXPECT(isnan(rf__f16_to_f32(0x7e00)));
    for (uint32_t h = 0; h < 0x7c00; h++) /* every finite positive half survives the round trip */
        if (rf__f32_to_f16(rf__f16_to_f32((uint16_t)h)) != h) {
            RF_FAIL_AT("half 0x%04x does not round-trip", h);
            break;
        }
    RF_EXPECT_INT(rf__f32_to_f16(1.0f + ldexpf(1.0f, -11)), 0x3c00); /* tie to even */
    RF_EXPECT_DBL(rf__bf16_to_f32(0x3f80), 1.0);
}

RF_TEST(qk_substitution)
{
    RF_EXPECT_INT(rf__qk_id(RF_DTYPE_Q4_K), RF__QK_Q4_K);
    RF_EXPECT_INT(rf__qk_id(RF_DTYPE_Q5_K), -1);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_Q5_K, 4096), RF__QK_Q6_K);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_Q2_K, 4096), RF__QK_Q4_K);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_Q4_1, 4096), RF__QK_Q4_K);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_Q4_1, 288), RF__QK_Q4_0); /* 288 is no multiple of 256 */
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_Q8_1, 4096), RF__QK_Q8_0);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_F64, 7), RF__QK_F32);
    RF_EXPECT_INT(rf__qk_nearest(RF_DTYPE_IQ2_XXS, 100), RF__QK_F16);
}
