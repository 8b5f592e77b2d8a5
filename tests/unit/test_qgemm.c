/* test_qgemm.c — the prefill products on quantised weights (src/exec/qgemm*.c): for Q8_0, Q4_0,
 * Q4_K and Q6_K (and Q4_1, Q5_0, Q5_1, Q5_K, Q2_K, Q3_K), random blocks packed and multiplied by
 * the reference kernel, the AVX-512 VNNI kernel (when this CPU runs it) and the threaded driver,
 * each checked against dequantise-then-multiply in double. The tolerance is the activations'
 * rounding to 8 bits: per block |x - dx . xq| <= dx / 2 = max|x| / 254, so |error| <= sum_blocks
 * max|x|_b / 254 . sum_b |w|, plus F32 accumulation (1e-5 of sum |w x|). Odd shapes: 40 rows (a
 * partial group of 16, an odd group count: a pair and a single) and 11 activation rows (a partial
 * tile of 6). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qgemm.h"
#define RF_RAND_SEED 0x9e3779b97f4a7c15ull
#include "rf_rand.h"
#include "qgemm_ref.h"
#include "rf_test.h"

typedef struct {
    float *y;
    double *ref, *tol;
} expect_t;

static void one_type(int id)
{
    const uint64_t N = 40, K = 512, S = 11;
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t rb = K / be * bb;
    uint8_t *w = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) qg_fill(id, w + r * rb, K);
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 97 == 0 ? 8.0f : 1.0f); /* outliers */
    int blk = rf__qgemm_blk(id);
    RF_EXPECT(blk == 16 || blk == 32);
    double *ref = malloc(S * N * sizeof *ref), *tol = malloc(S * N * sizeof *tol);
    qg_reference(id, w, rb, N, K, x, S, blk, ref, tol);

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
        int bad = qg_check(y, ref, tol, S * N);
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
    int bad = qg_check(y, ref, tol, S * N);
    if (bad) RF_FAIL_AT("type %d driver: %d outside the bound", id, bad);
    /* the bound is tight enough to fail: a wrong offset breaks it */
    if (pw.f16_scales) { /* Q8_0: row 0's scale of block 0 */
        uint16_t h = rf__f32_to_f16(50.0f);
        memcpy((uint8_t *)(uintptr_t)rf__qgemm_scales(&pw, 0, 0), &h, 2);
    } else {
        float *bv = (float *)(void *)(pd + 16 * (size_t)blk) + 16;
        bv[0] += 100.0f;
    }
    rf__qgemm_run(q, rf__kernel_isa_best(), &pw, x, S, ad, y);
    RF_EXPECT(qg_check(y, ref, tol, S * N) > 0);
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
RF_TEST(qgemm_q4_1) /* issue 28: the other quantised types' prefill on their own quants */
{
    one_type(RF__WEIGHT_Q4_1);
}
RF_TEST(qgemm_q5_0)
{
    one_type(RF__WEIGHT_Q5_0);
}
RF_TEST(qgemm_q5_1)
{
    one_type(RF__WEIGHT_Q5_1);
}
RF_TEST(qgemm_q5_k)
{
    one_type(RF__WEIGHT_Q5_K);
}
RF_TEST(qgemm_q2_k) /* blocks of 16: a scale and a minimum each */
{
    one_type(RF__WEIGHT_Q2_K);
}
RF_TEST(qgemm_q3_k) /* blocks of 16 with signed scales: a negative a, b = -4 a */
{
    one_type(RF__WEIGHT_Q3_K);
}

/* Decode on the packed Q8_0 form (rf__qgemv_*): 40 rows (a partial group), K = 480 (15 blocks:
 * an odd count, the last pair half empty) and K = 512, 3 activation rows in Q8_32; the reference
 * kernel, the AVX-512 one and the threaded driver against dequantise-then-dot in double, within
 * the same bound as above (Q8_32 rounds x per 32 as the prefill quantiser does). The packed size
 * is the file's (K = 512) and a wrong scale fails the check. */
static void qgemv_shape(uint64_t K)
{
    const uint64_t N = 40, S = 3;
    const int id = RF__WEIGHT_Q8_0;
    size_t rb = K / 32 * 34;
    RF_EXPECT(rf__qgemv_supported(id) && !rf__qgemv_supported(RF__WEIGHT_Q4_K));
    uint8_t *w = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) qg_fill(id, w + r * rb, K);
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 97 == 0 ? 8.0f : 1.0f);
    double *ref = malloc(S * N * sizeof *ref), *tol = malloc(S * N * sizeof *tol);
    qg_reference(id, w, rb, N, K, x, S, 32, ref, tol);
    size_t pb = rf__qgemm_bytes(id, N, K);
    if (K == 512) RF_EXPECT_INT((int)pb, (int)(48 * rb)); /* 3 groups of 16 rows, as in the file */
    uint8_t *pm = malloc(pb + 64), *pd = pm + (64 - (uintptr_t)pm % 64) % 64;
    memset(pd, 0xa5, pb); /* padding must be written by the packer */
    rf__qgemm_w pw;
    rf__qgemm_pack(id, w, rb, N, K, pd, &pw);
    size_t ab = (rf__act_bytes(id, K) + 63) / 64 * 64;
    uint8_t *am = malloc(S * ab + 64), *ad = am + (64 - (uintptr_t)am % 64) % 64;
    for (uint64_t s = 0; s < S; s++)
        rf__act_quantize(id, RF__KERNEL_GENERIC, x + s * K, K, ad + s * ab);
    float *y = malloc(S * N * sizeof *y);
    rf__qgemv_kernel_fn kerns[2] = {rf__qgemv_kernel_ref, rf__kernel_isa_best() >= RF__KERNEL_AVX512
                                                              ? rf__qgemv_kernel_avx512()
                                                              : NULL};
    for (int ki = 0; ki < 2; ki++) {
        if (!kerns[ki]) continue;
        for (size_t i = 0; i < S * N; i++) y[i] = NAN;
        for (uint64_t s = 0; s < S; s++)
            for (uint64_t g = 0; g < pw.groups; g++) {
                unsigned nr = (unsigned)(N - g * 16 < 16 ? N - g * 16 : 16);
                kerns[ki](&pw, g, ad + s * ab, nr, y + s * N + g * 16);
            }
        int bad = qg_check(y, ref, tol, S * N);
        if (bad)
            RF_FAIL_AT("qgemv K %d kernel %d: %d of %d outside the bound", (int)K, ki, bad,
                       (int)(S * N));
    }
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    for (size_t i = 0; i < S * N; i++) y[i] = NAN;
    rf__qgemv_run(q, rf__kernel_isa_best(), &pw, ad, ab, S, y);
    int bad = qg_check(y, ref, tol, S * N);
    if (bad) RF_FAIL_AT("qgemv K %d driver: %d outside the bound", (int)K, bad);
    uint16_t h = rf__f32_to_f16(50.0f);
    memcpy((uint8_t *)(uintptr_t)rf__qgemm_scales(&pw, 2, pw.K / 32 - 1) + 2 * 3, &h,
           2); /* row 35 */
    rf__qgemv_run(q, rf__kernel_isa_best(), &pw, ad, ab, S, y);
    RF_EXPECT(qg_check(y, ref, tol, S * N) > 0);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    free(w), free(x), free(ref), free(tol), free(pm), free(am), free(y);
}

RF_TEST(qgemv_q8_0)
{
    qgemv_shape(512);
    qgemv_shape(480);
}

/* Several packed Q8_0 matrices of one K as one team job (rf__qgemv_run_n, decode's q/k/v and
 * gate/up): N = 40, 8 and 72 (partial groups, a matrix of one group, the groups' split between
 * the jobs falling inside matrices), K = 480, 2 activation rows; each output against
 * dequantise-then-dot in double, and a scale changed in the last matrix caught in its output
 * alone. */
RF_TEST(qgemv_n_q8_0)
{
    enum { M = 3 };
    const uint64_t Ns[M] = {40, 8, 72}, K = 480, S = 2;
    const int id = RF__WEIGHT_Q8_0;
    size_t rb = K / 32 * 34, ab = (rf__act_bytes(id, K) + 63) / 64 * 64;
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 89 == 0 ? 6.0f : 1.0f);
    uint8_t *am = malloc(S * ab + 64), *ad = am + (64 - (uintptr_t)am % 64) % 64;
    for (uint64_t s = 0; s < S; s++)
        rf__act_quantize(id, rf__kernel_isa_best(), x + s * K, K, ad + s * ab);
    uint8_t *w[M], *pm[M];
    double *ref[M], *tol[M];
    float *y[M];
    rf__qgemm_w pw[M];
    const rf__qgemm_w *pp[M];
    for (int m = 0; m < M; m++) {
        w[m] = malloc(Ns[m] * rb);
        for (uint64_t r = 0; r < Ns[m]; r++) qg_fill(id, w[m] + r * rb, K);
        ref[m] = malloc(S * Ns[m] * sizeof **ref);
        tol[m] = malloc(S * Ns[m] * sizeof **tol);
        qg_reference(id, w[m], rb, Ns[m], K, x, S, 32, ref[m], tol[m]);
        size_t pb = rf__qgemm_bytes(id, Ns[m], K);
        pm[m] = malloc(pb + 64);
        rf__qgemm_pack(id, w[m], rb, Ns[m], K, pm[m] + (64 - (uintptr_t)pm[m] % 64) % 64, &pw[m]);
        pp[m] = &pw[m];
        y[m] = malloc(S * Ns[m] * sizeof **y);
        for (size_t i = 0; i < S * Ns[m]; i++) y[m][i] = NAN;
    }
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    rf__qgemv_run_n(q, rf__kernel_isa_best(), pp, M, ad, ab, S, y);
    for (int m = 0; m < M; m++) {
        int bad = qg_check(y[m], ref[m], tol[m], S * Ns[m]);
        if (bad)
            RF_FAIL_AT("qgemv_n matrix %d: %d of %d outside the bound", m, bad, (int)(S * Ns[m]));
    }
    uint16_t h = rf__f32_to_f16(50.0f);
    memcpy((uint8_t *)(uintptr_t)rf__qgemm_scales(&pw[2], 4, 3) + 2 * 5, &h, 2); /* row 69 */
    rf__qgemv_run_n(q, rf__kernel_isa_best(), pp, M, ad, ab, S, y);
    RF_EXPECT(qg_check(y[0], ref[0], tol[0], S * Ns[0]) == 0);
    RF_EXPECT(qg_check(y[1], ref[1], tol[1], S * Ns[1]) == 0);
    RF_EXPECT(qg_check(y[2], ref[2], tol[2], S * Ns[2]) > 0);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    for (int m = 0; m < M; m++) free(w[m]), free(pm[m]), free(ref[m]), free(tol[m]), free(y[m]);
    free(x), free(am);
}

/* The float GEMM (rf__fgemm_run) for a type: 13 rows (tiles of 6, 6 and 1 across the jobs), 70
 * activation rows (a full panel of 64 and a partial one), K = 2304 (two passes of KC = 2048: the
 * second reads rows from a block offset), against dequantise-then-multiply in double; the
 * reference kernel and the AVX-512 one alone on one tile. */
static void one_float_type(int id)
{
    const uint64_t N = 13, K = 2304, S = 70;
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    size_t rb = K / be * bb;
    uint8_t *w = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) qg_fill(id, w + r * rb, K);
    float *x = malloc(S * K * sizeof *x), *wf = malloc(N * K * sizeof *wf);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf();
    for (uint64_t r = 0; r < N; r++) rf__dequant_row(id, w + r * rb, wf + r * K, K);
    double *ref = malloc(S * N * sizeof *ref), *tol = malloc(S * N * sizeof *tol);
    for (uint64_t s = 0; s < S; s++)
        for (uint64_t r = 0; r < N; r++) {
            double acc = 0, mag = 0;
            for (uint64_t k = 0; k < K; k++) {
                acc += (double)wf[r * K + k] * x[s * K + k];
                mag += fabs((double)wf[r * K + k] * x[s * K + k]);
            }
            ref[s * N + r] = acc;
            tol[s * N + r] = 2e-5 * mag + 1e-6;
        }
    float *y = malloc(S * N * sizeof *y);
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    for (unsigned threads = 1; threads <= 2; threads++)
        for (int isa = RF__KERNEL_GENERIC; isa <= rf__kernel_isa_best(); isa++) {
            RF_EXPECT_INT(rf__qmatmul_new(ctx, threads, isa, &q), RF_OK);
            size_t sb = rf__fgemm_scratch_bytes(S, K, threads);
            uint8_t *m = malloc(sb + 64), *sc = m + (64 - (uintptr_t)m % 64) % 64;
            for (size_t i = 0; i < S * N; i++) y[i] = NAN;
            rf__fgemm_run(q, isa, id, w, rb, N, K, x, S, sc, y);
            int bad = qg_check(y, ref, tol, S * N);
            if (bad) RF_FAIL_AT("type %d isa %d threads %u: %d outside", id, isa, threads, bad);
            rf__qmatmul_free(ctx, q);
            free(m);
        }
    /* one tile of 5 rows by one panel over 64 values, both kernels against each other */
    rf__fgemm_kernel_fn kerns[2] = {rf__fgemm_kernel_ref, rf__kernel_isa_best() >= RF__KERNEL_AVX512
                                                              ? rf__fgemm_kernel_avx512()
                                                              : NULL};
    float *p = aligned_alloc(64, 64 * RF__FGEMM_SB * sizeof(float));
    _Alignas(64) float t[2][RF__FGEMM_NR * RF__FGEMM_SB];
    for (int i = 0; i < 64 * RF__FGEMM_SB; i++) p[i] = rndf();
    for (int ki = 0; ki < 2; ki++)
        if (kerns[ki]) kerns[ki](p, wf, K, 5, 64, t[ki], NULL);
    for (int i = 0; kerns[1] && i < 5 * RF__FGEMM_SB; i++) {
        double mag = 1e-6; /* |p| <= 1: the terms' magnitudes are at most |w| */
        for (int k = 0; k < 64; k++) mag += fabs(wf[(i / RF__FGEMM_SB) * K + (uint64_t)k]);
        if (!(fabs(t[0][i] - t[1][i]) <= 1e-5 * mag)) RF_FAIL_AT("kernel tile value %d differs", i);
    }
    /* the check can fail: a weight changed moves the product out of bounds */
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 1, rf__kernel_isa_best(), &q), RF_OK);
    uint8_t *m = malloc(rf__fgemm_scratch_bytes(S, K, 1) + 64),
            *sc = m + (64 - (uintptr_t)m % 64) % 64;
    w[rb * 3 + bb * 5 + bb - 1] ^= 0x40; /* a high byte: sign, exponent or quants */
    rf__fgemm_run(q, rf__kernel_isa_best(), id, w, rb, N, K, x, S, sc, y);
    RF_EXPECT(qg_check(y, ref, tol, S * N) > 0);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    free(w), free(x), free(wf), free(ref), free(tol), free(y), free(p), free(m);
}

RF_TEST(fgemm_f16)
{
    one_float_type(RF__WEIGHT_F16);
}
RF_TEST(fgemm_f32)
{
    one_float_type(RF__WEIGHT_F32);
}
RF_TEST(fgemm_bf16)
{
    one_float_type(RF__WEIGHT_BF16);
}
RF_TEST(fgemm_q5_k)
{
    one_float_type(RF__WEIGHT_Q5_K);
}

/* The packed form's size, which the LLM pass's memory check counts: 1.25 bytes a weight for the
 * blocks of 32 (16 x 32 quants and 2 x 16 F32 per block of 16 rows), 1.5 for Q6_K's 16, Q8_0's
 * own 34 bytes per 32 (F16 scales, blocks in pairs of 1088 bytes, an odd last block padded to a
 * pair); a partial group of rows takes a whole group. */
RF_TEST(qgemm_bytes)
{
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q8_0, 2048, 2048), 2048 * 2048 / 32 * 34);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q4_0, 2048, 2048), 2048 * 2048 * 5 / 4);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q4_K, 2048, 2048), 2048 * 2048 * 5 / 4);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q6_K, 2048, 2048), 2048 * 2048 * 3 / 2);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q8_0, 17, 64), 2 * 1088);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_Q8_0, 16, 96), 2 * 1088);
    RF_EXPECT_INT((int)rf__qgemm_bytes(RF__WEIGHT_F16, 16, 64), 0);
}
