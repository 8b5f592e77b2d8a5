/* test_qkernels.c — the quantized matrix kernels (src/exec/q*.c) and the measured LLM pass
 * (roofline/exec_llm.h): every type's dot product against dequantise-then-dot (random blocks,
 * several lengths), every instruction-set variant built for this CPU against the reference, the
 * F16 conversions, the substitution rule, the threaded drivers against a naive product; the pass
 * on the tiny GGUF fixtures (finite times, no timing assertions) and its timing on a fake clock. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "exec/qkernels.h"
#include "rf_test.h"
#include "roofline/exec_llm.h"

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
    rf__weight_block(id, &be, &bb);
    size_t nb = k / be, bytes = nb * bb;
    for (size_t i = 0; i < bytes; i++) buf[i] = (uint8_t)rnd();
    for (size_t i = 0; i < nb; i++) {
        uint8_t *b = buf + i * bb;
        uint16_t d = rf__f32_to_f16(0.001f + 0.05f * (rndf() + 1.0f));
        uint16_t e = rf__f32_to_f16(0.001f + 0.02f * (rndf() + 1.0f));
        switch (id) {
        case RF__WEIGHT_F32: {
            float f = rndf();
            memcpy(b, &f, 4);
        } break;
        case RF__WEIGHT_F16:
            d = rf__f32_to_f16(rndf());
            memcpy(b, &d, 2);
            break;
        case RF__WEIGHT_BF16: {
            float f = rndf();
            uint32_t u;
            memcpy(&u, &f, 4);
            uint16_t h = (uint16_t)(u >> 16);
            memcpy(b, &h, 2);
        } break;
        case RF__WEIGHT_Q8_0:
        case RF__WEIGHT_Q5_0:
        case RF__WEIGHT_Q4_0: memcpy(b, &d, 2); break;
        case RF__WEIGHT_Q4_1:
        case RF__WEIGHT_Q5_1:
        case RF__WEIGHT_Q5_K:
        case RF__WEIGHT_Q4_K:
            memcpy(b, &d, 2);
            memcpy(b + 2, &e, 2);
            break;
        case RF__WEIGHT_Q6_K: memcpy(b + 208, &d, 2); break;
        case RF__WEIGHT_Q2_K:
            memcpy(b + 80, &d, 2);
            memcpy(b + 82, &e, 2);
            break;
        case RF__WEIGHT_Q3_K: memcpy(b + 108, &d, 2); break;
        }
    }
    return bytes;
}

/* dequantise-then-dot in double; *mag = sum |w x| for the tolerance */
static double ref_dot(int id, const void *w, const float *x, size_t k, double *mag)
{
    float *y = malloc(k * sizeof *y);
    double s = 0, m = 0;
    rf__dequant_row(id, w, y, k);
    for (size_t i = 0; i < k; i++) {
        s += (double)y[i] * x[i];
        m += fabs((double)y[i] * x[i]);
    }
    free(y);
    *mag = m;
    return s;
}

/* The activation the kernels of type id read, back in floats: x itself for F32, d . q for the
 * 8-bit formats. */
static void act_values(int id, const void *a, const float *x, size_t k, float *xq)
{
    if (rf__act_format(id) == RF__ACT_Q8_K) {
        const rf__block_q8_k *q = a;
        for (size_t i = 0; i < k; i++) xq[i] = q[i / 256].d * (float)q[i / 256].qs[i % 256];
    } else if (rf__act_format(id) == RF__ACT_Q8_32) {
        const rf__block_q8_32 *q = a;
        for (size_t i = 0; i < k; i++) xq[i] = q[i / 32].d * (float)q[i / 32].qs[i % 32];
    } else {
        memcpy(xq, x, k * sizeof *x);
    }
}

/* What rounding x to 8 bits may cost a dot product with the weights w (dequantised): every x_i
 * moves by at most half a step, max |x| of its block / 254, so the product by at most that times
 * sum |w_i| per block (0 for F32 activations); plus a millionth of sum |w x| for the float
 * rounding of the scale. */
static double act_bound(int id, const float *wd, const float *x, size_t k)
{
    size_t blk = rf__act_format(id) == RF__ACT_Q8_K    ? 256
                 : rf__act_format(id) == RF__ACT_Q8_32 ? 32
                                                       : 0;
    double bound = 0;
    for (size_t b = 0; blk && b < k; b += blk) {
        double amax = 0, sw = 0;
        for (size_t i = b; i < b + blk; i++) {
            amax = fabs(x[i]) > amax ? fabs(x[i]) : amax;
            sw += fabs(wd[i]);
        }
        bound += amax / 254.0 * sw;
    }
    for (size_t i = 0; blk && i < k; i++) bound += 1e-6 * fabs((double)wd[i] * x[i]);
    return bound;
}

static void check_type(int id, int isa)
{
    static const size_t lens_f[] = {1, 7, 33, 100, 1000, 4096, 5003};
    static const size_t lens_32[] = {32, 64, 96, 1024, 4128};
    static const size_t lens_256[] = {256, 512, 2816, 4096};
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    const size_t *lens = be == 1 ? lens_f : be == 32 ? lens_32 : lens_256;
    size_t n = be == 1 ? 7 : be == 32 ? 5 : 4;
    rf__row_dot_fn fn = rf__row_dot_get(id, isa);
    for (size_t li = 0; li < n; li++) {
        size_t k = lens[li];
        for (int rep = 0; rep < 4; rep++) {
            uint8_t *w = malloc(k / be * bb);
            float *x = malloc(k * sizeof *x), *xq = malloc(k * sizeof *xq),
                  *wd = malloc(k * sizeof *wd);
            void *buf = malloc(rf__act_bytes(id, k) + 1);
            fill_weights(id, w, k);
            for (size_t i = 0; i < k; i++) x[i] = rndf() * (rep == 1 ? 1e-3f : 1.0f);
            if (rep == 2) /* a block of zeros (scale 0) and one wide value per 32 */
                for (size_t i = 0; i < k; i++) x[i] = i < be ? 0.0f : i % 32 == 5 ? 40.0f : x[i];
            rf__dequant_row(id, w, wd, k);
            const void *a = rf__act_quantize(id, isa, x, k, buf);
            act_values(id, a, x, k, xq);
            /* the kernel computes exactly w . xq: float rounding only */
            double mag, ref = ref_dot(id, w, xq, k, &mag);
            double got = fn(w, a, k);
            if (!(fabs(got - ref) <= 2e-5 * mag + 1e-6))
                RF_FAIL_AT("%s %s k=%zu: %.9g vs reference %.9g (sum|wx| %.3g)",
                           rf_dtype_name(rf__weight_dtype(id)), rf__kernel_isa_name(isa), k, got,
                           ref, mag);
            /* and xq is x to within half a step of each block's scale */
            double mag_x, ref_x = ref_dot(id, w, x, k, &mag_x), bound = act_bound(id, wd, x, k);
            if (!(fabs(ref - ref_x) <= bound + 1e-12))
                RF_FAIL_AT("%s k=%zu: quantised activations give %.9g, F32 %.9g (bound %.3g)",
                           rf_dtype_name(rf__weight_dtype(id)), k, ref, ref_x, bound);
            free(w);
            free(x);
            free(xq);
            free(wd);
            free(buf);
        }
    }
}

/* The vectorised quantisers give the reference's bytes: scale, values and sums. */
RF_TEST(qk_act_quantisers)
{
    size_t k = 4096;
    float *x = malloc(k * sizeof *x);
    rf__block_q8_k *a = malloc(k / 256 * sizeof *a), *b = malloc(k / 256 * sizeof *b);
    rf__block_q8_32 *c = malloc(k / 32 * sizeof *c), *e = malloc(k / 32 * sizeof *e);
    for (size_t i = 0; i < k; i++) x[i] = rndf() * (i < 1024 ? 3.0f : 0.01f);
    for (size_t i = 256; i < 512; i++) x[i] = 0; /* a zero block */
    x[700] = -50.0f;                             /* the block's max, negative: -127 */
    memset(a, 0, k / 256 * sizeof *a);
    memset(c, 0, k / 32 * sizeof *c);
    rf__quantize_q8_k(x, k, a);
    rf__quantize_q8_32(x, k, c);
    RF_EXPECT_INT(a[2].qs[700 - 512], -127);
    RF_EXPECT_DBL(a[1].d, 0.0);
    int sum = 0;
    for (int i = 0; i < 16; i++) sum += a[3].qs[i];
    RF_EXPECT_INT(a[3].bsums[0], sum);
    sum = 0;
    for (int i = 0; i < 32; i++) sum += c[7].qs[i];
    RF_EXPECT_INT(c[7].sum, sum);
    if (rf__kernel_isa_best() < RF__KERNEL_AVX2) {
        fprintf(stderr, "SKIP: no vector quantisers for this CPU\n");
        exit(77);
    }
    memset(b, 0x55, k / 256 * sizeof *b);
    memset(e, 0x55, k / 32 * sizeof *e);
    RF_EXPECT(rf__quantize_q8_k_avx2(x, k, b));
    RF_EXPECT(rf__quantize_q8_32_avx2(x, k, e));
    RF_EXPECT(memcmp(a, b, k / 256 * sizeof *a) == 0);
    RF_EXPECT(memcmp(c, e, k / 32 * sizeof *c) == 0);
    free(x);
    free(a);
    free(b);
    free(c);
    free(e);
}

RF_TEST(qk_reference_dots)
{
    for (int id = 0; id < RF__WEIGHT_TYPES; id++) check_type(id, RF__KERNEL_GENERIC);
}

RF_TEST(qk_isa_variants)
{
    int best = rf__kernel_isa_best(), tried = 0;
    for (int isa = RF__KERNEL_AVX2; isa <= best; isa++)
        for (int id = 0; id < RF__WEIGHT_TYPES; id++) {
            RF_EXPECT(rf__row_dot_has(id, isa) ||
                      (isa > RF__KERNEL_AVX2 && rf__row_dot_has(id, isa - 1)));
            check_type(id, isa);
            tried++;
        }
    if (!tried) {
        fprintf(stderr, "SKIP: no vector kernels for this CPU (best level: %s)\n",
                rf__kernel_isa_name(best));
        exit(77);
    }
}

/* The attention's row helpers at every level against naive loops: strided rows, lengths with
 * tails (n not a multiple of 8 or 32). */
/* The AVX2 dequantisers (prefill's path to sgemm) against the reference, element by element: the
 * same single rounding for F16, BF16, Q8_0 and Q6_K (exact), one fused multiply-subtract for Q4_K
 * where the reference rounds twice (within 2^-22 of the block's largest magnitude). A wrong nibble,
 * scale or min is off by a whole step of the block, far outside that. */
RF_TEST(qk_dequant_avx2_matches_reference)
{
    if (rf__kernel_isa_best() < RF__KERNEL_AVX2) RF_SKIP("no AVX2 on this CPU");
    enum { K = 1024 };
    static uint8_t w[K * 4];
    static float ref[K], got[K];
    const int ids[] = {RF__WEIGHT_F16, RF__WEIGHT_BF16, RF__WEIGHT_Q8_0, RF__WEIGHT_Q4_K,
                       RF__WEIGHT_Q6_K};
    for (size_t t = 0; t < sizeof ids / sizeof ids[0]; t++) {
        int id = ids[t];
        for (int rep = 0; rep < 20; rep++) {
            fill_weights(id, w, K);
            rf__dequant_row(id, w, ref, K);
            memset(got, 0xff, sizeof got);
            RF_EXPECT_INT(rf__dequant_row_avx2(id, w, got, K), 1);
            int bad = 0;
            for (size_t b = 0; b < K && !bad; b += 256) {
                double big = 0;
                for (size_t i = b; i < b + 256; i++) big = fmax(big, fabs((double)ref[i]));
                double tol = id == RF__WEIGHT_Q4_K ? ldexp(big, -22) : 0;
                for (size_t i = b; i < b + 256 && !bad; i++)
                    if (!(fabs((double)got[i] - (double)ref[i]) <= tol)) {
                        RF_FAIL_AT("type %d element %zu: %.9g, reference %.9g", id, i,
                                   (double)got[i], (double)ref[i]);
                        bad = 1;
                    }
            }
        }
    }
}

RF_TEST(qk_rows_helpers)
{
    static const size_t ns[] = {64, 128, 7, 40, 100};
    for (int isa = RF__KERNEL_GENERIC; isa <= rf__kernel_isa_best(); isa++)
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
            size_t n = ns[ni], rows = 37, stride = n + 13;
            float *a = malloc(rows * stride * sizeof *a), *x = malloc(n * sizeof *x);
            float *p = malloc(rows * sizeof *p), *y = malloc((rows > n ? rows : n) * sizeof *y);
            for (size_t i = 0; i < rows * stride; i++) a[i] = rndf();
            for (size_t i = 0; i < n; i++) x[i] = rndf();
            for (size_t r = 0; r < rows; r++) p[r] = rndf();
            rf__f32_rows_dot(isa, a, rows, stride, x, n, y);
            for (size_t r = 0; r < rows; r++) {
                double ref = 0, mag = 0;
                for (size_t i = 0; i < n; i++) {
                    ref += (double)a[r * stride + i] * x[i];
                    mag += fabs((double)a[r * stride + i] * x[i]);
                }
                if (!(fabs(y[r] - ref) <= 1e-5 * mag + 1e-7)) {
                    RF_FAIL_AT("rows_dot %s n=%zu row %zu: %.9g vs %.9g", rf__kernel_isa_name(isa),
                               n, r, y[r], ref);
                    break;
                }
            }
            for (size_t i = 0; i < n; i++) y[i] = 1e30f; /* overwritten, not accumulated */
            rf__f32_rows_axpy(isa, a, rows, stride, p, n, y);
            for (size_t i = 0; i < n; i++) {
                double ref = 0, mag = 0;
                for (size_t r = 0; r < rows; r++) {
                    ref += (double)p[r] * a[r * stride + i];
                    mag += fabs((double)p[r] * a[r * stride + i]);
                }
                if (!(fabs(y[i] - ref) <= 1e-5 * mag + 1e-7)) {
                    RF_FAIL_AT("rows_axpy %s n=%zu column %zu: %.9g vs %.9g",
                               rf__kernel_isa_name(isa), n, i, y[i], ref);
                    break;
                }
            }
            free(a);
            free(x);
            free(p);
            free(y);
        }
}

/* SiLU at every level against x / (1 + exp(-x)) in double: within 4 float ulps (the AVX2 exp
 * polynomial is within 2 of expf), 0 below -80, the tail past a multiple of 8 included. */
RF_TEST(qk_silu)
{
    size_t n = 2003;
    float *y = malloc(n * sizeof *y), *x = malloc(n * sizeof *x);
    for (int isa = RF__KERNEL_GENERIC; isa <= rf__kernel_isa_best(); isa++) {
        for (size_t i = 0; i < n; i++) x[i] = y[i] = -100.0f + 200.0f * (float)i / (float)(n - 1);
        x[7] = y[7] = -79.9f;
        x[8] = y[8] = -80.0f;
        rf__f32_silu(isa, y, n);
        for (size_t i = 0; i < n; i++) {
            double ref = x[i] > -80.0f ? x[i] / (1.0 + exp(-(double)x[i])) : 0.0;
            if (!(fabs(y[i] - ref) <= 4 * 1.2e-7 * fabs(ref) + 1e-30)) {
                RF_FAIL_AT("silu %s x=%.9g: %.9g vs %.9g", rf__kernel_isa_name(isa), x[i], y[i],
                           ref);
                break;
            }
        }
    }
    free(x);
    free(y);
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
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q4_K), RF__WEIGHT_Q4_K);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q5_K), RF__WEIGHT_Q5_K); /* issue 28: own kernels */
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q4_1), RF__WEIGHT_Q4_1);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q5_0), RF__WEIGHT_Q5_0);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q5_1), RF__WEIGHT_Q5_1);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q2_K), RF__WEIGHT_Q2_K);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_Q3_K), RF__WEIGHT_Q3_K);
    RF_EXPECT_INT(rf__weight_type(RF_DTYPE_IQ4_XS), -1); /* the IQ types: still substituted */
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_IQ2_XXS, 4096), RF__WEIGHT_Q2_K);
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_IQ3_XXS, 4096), RF__WEIGHT_Q3_K);
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_IQ4_XS, 288),
                  RF__WEIGHT_Q4_0); /* 288 is no multiple of 256 */
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_IQ4_XS, 4096), RF__WEIGHT_Q4_K);
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_Q8_1, 4096), RF__WEIGHT_Q8_0);
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_F64, 7), RF__WEIGHT_F32);
    RF_EXPECT_INT(rf__weight_type_nearest(RF_DTYPE_IQ2_XXS, 100), RF__WEIGHT_F16);
}

/* ---- the threaded drivers against a naive product ------------------------------------------- */

static void check_qmm(int id, uint64_t N, uint64_t K, uint64_t S, unsigned threads)
{
    rf_ctx *ctx = NULL;
    rf__qmatmul *q = NULL;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, threads, rf__kernel_isa_best(), &q), RF_OK);
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t rb = K / be * bb;
    uint8_t *w = malloc(N * rb);
    float *x = malloc(S * K * sizeof *x), *y = malloc(S * N * sizeof *y);
    float *row = malloc(K * sizeof *row);
    for (uint64_t r = 0; r < N; r++) fill_weights(id, w + r * rb, K);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf();
    RF_EXPECT_INT(rf__qmatmul_run(ctx, q, id, w, rb, N, K, x, S, y), RF_OK);
    int bad = 0;
    for (uint64_t r = 0; r < N && !bad; r++) {
        rf__dequant_row(id, w + r * rb, row, K);
        for (uint64_t s = 0; s < S && !bad; s++) {
            double ref = 0, mag = 0;
            for (uint64_t k = 0; k < K; k++) {
                ref += (double)row[k] * x[s * K + k];
                mag += fabs((double)row[k] * x[s * K + k]);
            }
            /* few rows: 8-bit activations (act_bound); many: sgemm on the dequantised rows */
            double tol = S < 8 ? act_bound(id, row, x + s * K, K) : 0;
            if (!(fabs(y[s * N + r] - ref) <= tol + 2e-5 * mag + 1e-6)) {
                RF_FAIL_AT("%s N=%llu K=%llu S=%llu: y[%llu][%llu] %.9g vs %.9g",
                           rf_dtype_name(rf__weight_dtype(id)), (unsigned long long)N,
                           (unsigned long long)K, (unsigned long long)S, (unsigned long long)s,
                           (unsigned long long)r, y[s * N + r], ref);
                bad = 1;
            }
        }
    }
    free(w);
    free(x);
    free(y);
    free(row);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
}

RF_TEST(qk_matmul_drivers)
{
    for (int id = 0; id < RF__WEIGHT_TYPES; id++) {
        check_qmm(id, 37, 512, 1, 2); /* decode: dot products, rows over 2 threads */
        check_qmm(id, 37, 512, 3, 1);
        check_qmm(id, 300, 512, 12, 2); /* prefill: dequantised chunks + sgemm */
    }
}

/* Decode's fused products (rf__qmatmul_dots_n: q/k/v or gate/up of a step as one team job): for
 * every type, three matrices of 37, 5 and 20 rows (the jobs' row ranges falling across them),
 * 2 activation rows, 2 threads: each output bit for bit the single-matrix driver's (the same
 * kernels on the same quantised activations; that driver is checked against a naive product
 * above). Refused: no matrix, or rows enough for the GEMM path. */
RF_TEST(qk_matmul_dots_n)
{
    enum { M = 3 };
    const uint64_t N[M] = {37, 5, 20}, K = 512, S = 2;
    rf_ctx *ctx = NULL;
    rf__qmatmul *q = NULL;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf();
    for (int id = 0; id < RF__WEIGHT_TYPES; id++) {
        uint32_t be, bb;
        rf__weight_block(id, &be, &bb);
        size_t rb = K / be * bb;
        uint8_t *w[M];
        float *y[M], *one = malloc(S * 37 * sizeof *one);
        for (int m = 0; m < M; m++) {
            w[m] = malloc(N[m] * rb);
            for (uint64_t r = 0; r < N[m]; r++) fill_weights(id, w[m] + r * rb, K);
            y[m] = malloc(S * N[m] * sizeof **y);
            for (uint64_t i = 0; i < S * N[m]; i++) y[m][i] = NAN;
        }
        RF_EXPECT_INT(
            rf__qmatmul_dots_n(ctx, q, id, (const uint8_t *const *)w, rb, N, M, K, x, S, y), RF_OK);
        for (int m = 0; m < M; m++) {
            RF_EXPECT_INT(rf__qmatmul_run(ctx, q, id, w[m], rb, N[m], K, x, S, one), RF_OK);
            if (memcmp(one, y[m], S * N[m] * sizeof *one) != 0)
                RF_FAIL_AT("%s: matrix %d of the fused products differs from its own product",
                           rf_dtype_name(rf__weight_dtype(id)), m);
        }
        for (int m = 0; m < M; m++) free(w[m]), free(y[m]);
        free(one);
    }
    float *y1[1] = {x};
    const uint8_t *w1[1] = {(const uint8_t *)x};
    uint64_t n1 = 1;
    RF_EXPECT_INT(rf__qmatmul_dots_n(ctx, q, RF__WEIGHT_F32, w1, 4 * K, &n1, 0, K, x, 1, y1),
                  RF_USAGE);
    RF_EXPECT_INT(rf__qmatmul_dots_n(ctx, q, RF__WEIGHT_F32, w1, 4 * K, &n1, 1, K, x, 8, y1),
                  RF_USAGE);
    free(x);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
}

/* ---- the measured pass on the GGUF fixtures (tests/data/gguf) ---------------------------------
 */

/* Path of tests/data/gguf/NAME.gz gunzipped once into the build tree; exits 77 when it cannot. */
static const char *fixture(const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, RF_BINARY_DIR "/fixtures-exec/%s", name);
    if (access(buf, R_OK) == 0) return buf;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '" RF_BINARY_DIR "/fixtures-exec' && gunzip -c '" RF_SOURCE_DIR
             "/tests/data/gguf/%s.gz' > '%s.tmp.%d' && mv '%s.tmp.%d' '%s'",
             name, buf, (int)getpid(), buf, (int)getpid(), buf);
    if (system(cmd) != 0) {
        fprintf(stderr, "SKIP: cannot gunzip tests/data/gguf/%s.gz\n", name);
        exit(77);
    }
    return buf;
}

static const rf_exec_llm_kind *kind(const rf_exec_llm_result *r, const char *name)
{
    for (size_t i = 0; i < r->n_kinds; i++)
        if (strcmp(r->kinds[i].name, name) == 0) return &r->kinds[i];
    return NULL;
}

static rf_exec_llm_result *run(const char *path, uint64_t S, uint64_t L, const rf_exec_opts *eo)
{
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    po.prompt = S;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = L;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    rf_status st = rf_llm_read_file(ctx, path, &m);
    if (st == RF_OK) st = rf_exec_llm_run(ctx, m, &po, &dopt, eo, &r);
    if (st != RF_OK) RF_FAIL_AT("%s: %s", path, rf_ctx_errmsg(ctx));
    rf_llm_free(m);
    rf_ctx_free(ctx);
    return r;
}

static void check_finite(const rf_exec_llm_result *r)
{
    RF_EXPECT(r->prefill_s > 0 && isfinite(r->prefill_s));
    RF_EXPECT(r->decode_s > 0 && isfinite(r->decode_s));
    RF_EXPECT(r->prefill_min_s <= r->prefill_s && r->prefill_s <= r->prefill_max_s);
    RF_EXPECT(r->decode_min_s <= r->decode_s && r->decode_s <= r->decode_max_s);
    RF_EXPECT(r->decode_tokens_per_s > 0 && isfinite(r->decode_tokens_per_s));
    RF_EXPECT(r->prefill_tokens_per_s > 0 && isfinite(r->prefill_tokens_per_s));
    RF_EXPECT(r->decode_weight_bytes > 0);
    RF_EXPECT(r->memory_bytes > 0);
    for (size_t i = 0; i < r->n_kinds; i++)
        RF_EXPECT(r->kinds[i].prefill_s >= 0 && r->kinds[i].decode_s >= 0);
}

RF_TEST(exec_llm_tiny_mixed)
{
    char p[4096];
    rf_exec_opts eo = {2, 1, 2, NULL, NULL, 0};
    rf_exec_llm_result *r = run(fixture("tiny_llama_mixed.gguf", p, sizeof p), 16, 40, &eo);
    if (!r) return;
    check_finite(r);
    RF_EXPECT_INT(r->n_subst, 0); /* every type of the file has a kernel */
    RF_EXPECT_INT(r->threads, 2);
    RF_EXPECT_INT(r->repeat, 2);
    RF_EXPECT_INT(r->prompt, 16);
    RF_EXPECT_INT(r->context, 40);
    const rf_exec_llm_kind *k = kind(r, "attn_q");
    RF_EXPECT(k && k->decode_calls == 2 && k->prefill_calls == 2); /* two blocks */
    k = kind(r, "output");
    RF_EXPECT(k && k->decode_calls == 1);
    RF_EXPECT(kind(r, "attn_scores") && kind(r, "ffn_down") && kind(r, "rope_k"));
    RF_EXPECT(!kind(r, "attn_qkv")); /* separate projections in this file */
    rf_exec_llm_result_free(r);
}

RF_TEST(exec_llm_tinystories_q8_0)
{
    char p[4096];
    rf_exec_opts eo = {1, 1, 1, NULL, NULL, 0};
    /* 4 prompt rows: the dot-product path; then 9 rows: dequantised chunks and sgemm */
    const char *path = fixture("tinystories15m_q8_0.gguf", p, sizeof p);
    for (uint64_t S = 4; S <= 9; S += 5) {
        rf_exec_llm_result *r = run(path, S, 64, &eo);
        if (!r) return;
        check_finite(r);
        const rf_exec_llm_kind *k = kind(r, "ffn_gate");
        RF_EXPECT(k && k->decode_calls == 6);
        rf_exec_llm_result_free(r);
    }
}

/* A fake clock: every reading half a second after the one before. */
static double fake_clock(void *user)
{
    double *t = user;
    *t += 0.5;
    return *t;
}

RF_TEST(exec_llm_fake_clock)
{
    char p[4096];
    double t = 0;
    rf_exec_opts eo = {1, 1, 0, fake_clock, &t, 0};
    rf_exec_llm_result *r = run(fixture("tiny_llama_mixed.gguf", p, sizeof p), 8, 16, &eo);
    if (!r) return;
    uint64_t nd = 0, np = 0;
    for (size_t i = 0; i < r->n_kinds; i++) {
        nd += r->kinds[i].decode_calls;
        np += r->kinds[i].prefill_calls;
    }
    RF_EXPECT(nd > 10 && np > 10);
    /* one reading per step, nothing else; a decode step fusing q/k/v (gate/up) into one job takes
     * one reading for its 3 (2) kinds, its time split over them */
    uint64_t fusable = 2 * kind(r, "attn_q")->decode_calls + kind(r, "ffn_gate")->decode_calls;
    RF_EXPECT(r->decode_s <= 0.5 * (double)nd && r->decode_s >= 0.5 * (double)(nd - fusable));
    RF_EXPECT_DBL(fmod(r->decode_s, 0.5), 0.0);
    RF_EXPECT_DBL(r->prefill_s, 0.5 * (double)np);
    RF_EXPECT_DBL(r->decode_min_s, r->decode_max_s);
    RF_EXPECT_DBL(r->decode_tokens_per_s, 1.0 / r->decode_s);
    RF_EXPECT_DBL(r->prefill_tokens_per_s, 8.0 / r->prefill_s);
    RF_EXPECT_INT(r->repeat, 3); /* auto: a pass of more than a third of a second gives 3 */
    RF_EXPECT_DBL(kind(r, "attn_q")->decode_s, 0.5 * 2);
    rf_exec_llm_result_free(r);
}

/* The tiny fixture with blk.0.attn_q.weight retyped Q4_0 -> IQ4_NL (same block geometry; no
 * kernel): it runs as Q4_K, and the result says so. */
RF_TEST(exec_llm_substitution)
{
    char p[4096], q[4200];
    const char *src = fixture("tiny_llama_mixed.gguf", p, sizeof p);
    FILE *f = fopen(src, "rb");
    RF_EXPECT(f != NULL);
    if (!f) return;
    static uint8_t img[2 << 20];
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    const char *name = "blk.0.attn_q.weight";
    size_t nl = strlen(name), at = 0;
    for (size_t i = 0; i + nl < n; i++)
        if (memcmp(img + i, name, nl) == 0) {
            at = i + nl;
            break;
        }
    RF_EXPECT(at > 0);
    uint32_t nd, type;
    memcpy(&nd, img + at, 4);
    memcpy(&type, img + at + 4 + 8 * nd, 4);
    RF_EXPECT_INT(type, 2); /* Q4_0 */
    type = 20;              /* IQ4_NL */
    memcpy(img + at + 4 + 8 * nd, &type, 4);
    snprintf(q, sizeof q, "%s.iq4nl.%d.gguf", src, (int)getpid());
    f = fopen(q, "wb");
    RF_EXPECT(f && fwrite(img, 1, n, f) == n);
    if (f) fclose(f);
    rf_exec_opts eo = {1, 1, 1, NULL, NULL, 0};
    rf_exec_llm_result *r = run(q, 4, 8, &eo);
    remove(q);
    if (!r) return;
    check_finite(r);
    RF_EXPECT_INT(r->n_subst, 1);
    if (r->n_subst == 1) {
        RF_EXPECT_STR(r->subst[0].weight, name);
        RF_EXPECT_INT(r->subst[0].from, RF_DTYPE_IQ4_NL);
        RF_EXPECT_INT(r->subst[0].to, RF_DTYPE_Q4_K);
    }
    rf_exec_llm_result_free(r);
}

/* A model the executor cannot run is refused with a reason, never run half-way. */
RF_TEST(exec_llm_refusals)
{
    char p[4096], q[4200];
    const char *src = fixture("tiny_llama_mixed.gguf", p, sizeof p);
    static uint8_t img[2 << 20];
    FILE *f = fopen(src, "rb");
    RF_EXPECT(f != NULL);
    if (!f) return;
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    /* general.architecture "llama" -> "xlama": an architecture not built block by block */
    const char *key = "general.architecture";
    size_t kl = strlen(key), at = 0;
    for (size_t i = 0; i + kl + 12 + 5 < n; i++)
        if (memcmp(img + i, key, kl) == 0) {
            at = i + kl + 4 + 8; /* value type, string length */
            break;
        }
    RF_EXPECT(at > 0 && memcmp(img + at, "llama", 5) == 0);
    img[at] = 'x';
    snprintf(q, sizeof q, "%s.xlama.%d.gguf", src, (int)getpid());
    f = fopen(q, "wb");
    RF_EXPECT(f && fwrite(img, 1, n, f) == n);
    if (f) fclose(f);
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    rf_status st = rf_llm_read_file(ctx, q, &m);
    remove(q);
    RF_EXPECT_INT(st, RF_OK);
    if (st == RF_OK) {
        RF_EXPECT_INT(rf_exec_llm_run(ctx, m, NULL, NULL, NULL, &r), RF_UNSUPPORTED);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "xlama");
        RF_EXPECT(r == NULL);
    }
    RF_EXPECT_INT(rf_exec_llm_run(ctx, NULL, NULL, NULL, NULL, &r), RF_USAGE);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* Two sequences: 2 x 4 prompt rows (the sgemm path), decode of both against their own caches. */
RF_TEST(exec_llm_batch)
{
    char p[4096];
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    rf_exec_opts eo = {2, 1, 1, NULL, NULL, 0};
    po.batch = dopt.batch = 2;
    po.prompt = 4;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = 12;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf_llm_read_file(ctx, fixture("tiny_llama_mixed.gguf", p, sizeof p), &m), RF_OK);
    RF_EXPECT_INT(rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r), RF_OK);
    if (r) {
        check_finite(r);
        RF_EXPECT_INT(r->batch, 2);
        RF_EXPECT_DBL(r->decode_tokens_per_s, 2.0 / r->decode_s);
        RF_EXPECT_DBL(r->prefill_tokens_per_s, 8.0 / r->prefill_s);
        RF_EXPECT_CONTAINS(r->notes, "sgemm");
    }
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* llm --measure reports progress: a clock that runs 0.7 s a read makes every step "long", so the
 * log gets "measuring: ... prefill, pass k of n" and "decode, pass k of n" lines (INFO), never
 * more than one per two seconds of that clock. */
static double slow_clock(void *user)
{
    double *t = user;
    return *t += 0.7;
}

static void collect(void *user, rf_log_level level, const char *msg)
{
    char *buf = user;
    size_t n = strlen(buf);
    if (level == RF_LOG_INFO && n + strlen(msg) + 2 < 4096)
        snprintf(buf + n, 4096 - n, "%s\n", msg);
}

RF_TEST(exec_llm_progress_lines)
{
    char p[4096], log[4096] = "";
    double t = 0;
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    rf_exec_opts eo = {1, 1, 3, slow_clock, &t, 0};
    po.prompt = 4;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = 8;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    rf_ctx_set_log(ctx, collect, log, RF_LOG_INFO);
    RF_EXPECT_INT(rf_llm_read_file(ctx, fixture("tiny_llama_mixed.gguf", p, sizeof p), &m), RF_OK);
    RF_EXPECT_INT(rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r), RF_OK);
    RF_EXPECT_CONTAINS(log, "prefill, pass ");
    RF_EXPECT_CONTAINS(log, "decode, pass 3 of 3");
    RF_EXPECT_CONTAINS(log, "warm-up, pass 1 of 1");
    RF_EXPECT_CONTAINS(log, "measuring: ");
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}
