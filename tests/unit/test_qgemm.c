/* test_qgemm.c — the prefill products on quantised weights (src/exec/qgemm*.c): for Q8_0, Q4_0,
 * Q4_K and Q6_K, random blocks packed and multiplied by the reference kernel, the AVX-512 VNNI
 * kernel (when this CPU runs it) and the threaded driver, each checked against
 * dequantise-then-multiply in double. The tolerance is the activations' rounding to 8 bits: per
 * block |x - dx . xq| <= dx / 2 = max|x| / 254, so |error| <= sum_blocks max|x|_b / 254 .
 * sum_b |w|, plus F32 accumulation (1e-5 of sum |w x|). Odd shapes: 40 rows (a partial group of
 * 16, an odd group count: a pair and a single) and 11 activation rows (a partial tile of 6). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qgemm.h"
#include "rf_test.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static float rndf(void)
{
    return (float)((double)(rnd() & 0xffffff) / 8388608.0 - 1.0);
}

static void fill(int id, uint8_t *buf, size_t k)
{
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t nb = k / be;
    for (size_t i = 0; i < nb * bb; i++) buf[i] = (uint8_t)rnd();
    for (size_t i = 0; i < nb; i++) {
        uint8_t *b = buf + i * bb;
        uint16_t d = rf__f32_to_f16(0.001f + 0.05f * (rndf() + 1.0f));
        uint16_t e = rf__f32_to_f16(0.001f + 0.02f * (rndf() + 1.0f));
        if (id == RF__WEIGHT_Q6_K)
            memcpy(b + 208, &d, 2);
        else
            memcpy(b, &d, 2);
        if (id == RF__WEIGHT_Q4_K) memcpy(b + 2, &e, 2);
    }
}

typedef struct {
    float *y;
    double *ref, *tol;
} expect_t;

/* The reference product and the bound for every (s, r). */
static void reference(int id, const uint8_t *w, size_t rb, uint64_t N, uint64_t K, const float *x,
                      uint64_t S, int blk, double *ref, double *tol)
{
    float *wf = malloc(K * sizeof *wf);
    for (uint64_t r = 0; r < N; r++) {
        rf__dequant_row(id, w + r * rb, wf, K);
        for (uint64_t s = 0; s < S; s++) {
            double acc = 0, mag = 0, bound = 0;
            for (uint64_t j = 0; j < K / (uint64_t)blk; j++) {
                double amax = 0, sw = 0;
                for (int i = 0; i < blk; i++) {
                    uint64_t k = j * (uint64_t)blk + (uint64_t)i;
                    acc += (double)wf[k] * x[s * K + k];
                    mag += fabs((double)wf[k] * x[s * K + k]);
                    amax = fmax(amax, fabs(x[s * K + k]));
                    sw += fabs(wf[k]);
                }
                bound += amax / 254.0 * sw;
            }
            ref[s * N + r] = acc;
            tol[s * N + r] = bound * 1.001 + 1e-5 * mag + 1e-6;
        }
    }
    free(wf);
}

static int check(const float *y, const double *ref, const double *tol, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(y[i] - ref[i]) <= tol[i])) bad++;
    return bad;
}

static void one_type(int id)
{
    const uint64_t N = 40, K = 512, S = 11;
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t rb = K / be * bb;
    uint8_t *w = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) fill(id, w + r * rb, K);
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 97 == 0 ? 8.0f : 1.0f); /* outliers */
    int blk = rf__qgemm_blk(id);
    RF_EXPECT(blk == 16 || blk == 32);
    double *ref = malloc(S * N * sizeof *ref), *tol = malloc(S * N * sizeof *tol);
    reference(id, w, rb, N, K, x, S, blk, ref, tol);

    size_t pb = rf__qgemm_bytes(id, N, K);
    uint8_t *pm = malloc(pb + 64), *pd = pm + (64 - (uintptr_t)pm % 64) % 64;
    rf__qgemm_w pw;
    rf__qgemm_pack(id, w, rb, N, K, pd, &pw);
    RF_EXPECT_INT((int)pw.groups, 3);
    size_t ab = rf__qgemm_act_bytes(S, K, blk);
    uint8_t *am = malloc(ab + 64), *ad = am + (64 - (uintptr_t)am % 64) % 64;
    rf__qgemm_act a;
    rf__qgemm_quantize(x, S, K, blk, ad, &a);
    float *y = malloc(S * N * sizeof *y);

    rf__qgemm_kernel_fn kerns[2] = {rf__qgemm_kernel_ref, rf__kernel_isa_best() >= RF__KERNEL_AVX512
                                                              ? rf__qgemm_kernel_avx512()
                                                              : NULL};
    for (int ki = 0; ki < 4; ki++) { /* each kernel by single groups, then by pairs */
        unsigned per = ki % 2 ? 2 : 1;
        if (!kerns[ki / 2]) continue;
        for (size_t i = 0; i < S * N; i++) y[i] = NAN;
        for (uint64_t g = 0; g < pw.groups; g += per)
            for (uint64_t s0 = 0; s0 < S; s0 += RF__QGEMM_MR) {
                unsigned ms = (unsigned)(S - s0 < RF__QGEMM_MR ? S - s0 : RF__QGEMM_MR);
                unsigned ng = g + per <= pw.groups ? per : 1;
                unsigned nr = (unsigned)(N - g * 16 < 16 * ng ? N - g * 16 : 16 * ng);
                kerns[ki / 2](&pw, g, ng, &a, s0, ms, nr, y + s0 * N + g * 16, N);
            }
        int bad = check(y, ref, tol, S * N);
        if (bad)
            RF_FAIL_AT("type %d kernel %d by %u: %d of %d outside the bound", id, ki / 2, per, bad,
                       (int)(S * N));
    }
    /* the threaded driver, two threads, at the best level */
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    for (size_t i = 0; i < S * N; i++) y[i] = NAN;
    rf__qgemm_run(q, rf__kernel_isa_best(), &pw, x, S, ad, y);
    int bad = check(y, ref, tol, S * N);
    if (bad) RF_FAIL_AT("type %d driver: %d outside the bound", id, bad);
    /* the bound is tight enough to fail: a wrong offset breaks it */
    float *bv = (float *)(void *)(pd + 16 * (size_t)blk) + 16;
    bv[0] += 100.0f;
    rf__qgemm_run(q, rf__kernel_isa_best(), &pw, x, S, ad, y);
    RF_EXPECT(check(y, ref, tol, S * N) > 0);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    free(w), free(x), free(ref), free(tol), free(pm), free(am), free(y);
}

RF_TEST(qgemm_q8_0)
{
    one_type(RF__WEIGHT_Q8_0);
}
RF_TEST(qgemm_q4_0)
{
    one_type(RF__WEIGHT_Q4_0);
}
RF_TEST(qgemm_q4_k)
{
    one_type(RF__WEIGHT_Q4_K);
}
RF_TEST(qgemm_q6_k)
{
    one_type(RF__WEIGHT_Q6_K);
}
