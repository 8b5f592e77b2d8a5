/* test_qgemv_q4.c — decode on the nibble form of Q4_0 and Q4_1 (src/exec/qgemv_q4*.c): random
 * blocks packed and multiplied by the portable kernel, the AVX-512 VNNI one (when this CPU runs
 * it) and the threaded drivers (rf__qgemv_run, rf__qgemv_run_n), each against dequantise-then-dot
 * in double. The bound is the activations' rounding to 8 bits per block of 32 (Q8_32): |error| <=
 * sum_blocks max|x|_b / 254 . sum_b |w|, plus F32 accumulation. Ragged shapes: 40 rows (a partial
 * group), 5 rows (less than one), K = 480 (15 blocks: the last pair half empty). A scale (d, and
 * Q4_1's m) changed in the packed form must fail the check, in that matrix alone. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qgemm.h"
#define RF_RAND_SEED 0x51ed270b27d4c3a1ull
#include "rf_rand.h"
#include "qgemm_ref.h"
#include "rf_test.h"

static size_t block_bytes(int id)
{
    return id == RF__WEIGHT_Q4_1 ? 20 : 18;
}

/* One row of K values: random nibbles, d in [0.001, 0.101), Q4_1's m in [-0.04, 0.04). */
static void fill(int id, uint8_t *row, uint64_t K)
{
    size_t bb = block_bytes(id);
    for (uint64_t j = 0; j < K / 32; j++) {
        uint8_t *b = row + bb * j;
        for (size_t i = 0; i < bb; i++) b[i] = (uint8_t)rnd();
        uint16_t d = rf__f32_to_f16(0.001f + 0.05f * (rndf() + 1.0f)),
                 m = rf__f32_to_f16(0.04f * rndf());
        memcpy(b, &d, 2);
        if (id == RF__WEIGHT_Q4_1) memcpy(b + 2, &m, 2);
    }
}

/* A matrix of type id, N x K, its file rows, packed form, reference against S activations. */
typedef struct {
    uint64_t N;
    uint8_t *w, *mem;
    rf__qgemm_w pw;
    double *ref, *tol;
    float *y;
} mat_t;

static void mat_make(mat_t *m, int id, uint64_t N, uint64_t K, const float *x, uint64_t S)
{
    size_t rb = K / 32 * block_bytes(id);
    m->N = N;
    m->w = malloc(N * rb);
    for (uint64_t r = 0; r < N; r++) fill(id, m->w + r * rb, K);
    m->ref = malloc(S * N * sizeof *m->ref);
    m->tol = malloc(S * N * sizeof *m->tol);
    qg_reference(id, m->w, rb, N, K, x, S, 32, m->ref, m->tol);
    size_t pb = rf__qgemv_bytes(id, N, K);
    m->mem = malloc(pb + 64);
    uint8_t *pd = m->mem + (64 - (uintptr_t)m->mem % 64) % 64;
    memset(pd, 0xa5, pb); /* padding must be written by the packer */
    rf__qgemv_pack(id, m->w, rb, N, K, pd, &m->pw);
    m->y = malloc(S * N * sizeof *m->y);
    for (size_t i = 0; i < S * N; i++) m->y[i] = NAN;
}

static void mat_free(mat_t *m)
{
    free(m->w), free(m->mem), free(m->ref), free(m->tol), free(m->y);
}

/* Row r's F16 d (which = 0) or m (1) of block j set to v in the packed form. */
static void set_scale(mat_t *m, uint64_t r, uint64_t j, int which, float v)
{
    uint16_t h = rf__f32_to_f16(v);
    uint8_t *p = (uint8_t *)(uintptr_t)rf__qgemv_nib_d(&m->pw, r / 16, j);
    memcpy(p + 64 * which + 2 * (r % 16), &h, 2);
}

static void shape(int id, uint64_t N, uint64_t K)
{
    const uint64_t S = 3;
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 97 == 0 ? 8.0f : 1.0f); /* outliers */
    mat_t m;
    mat_make(&m, id, N, K, x, S);
    RF_EXPECT(m.pw.nib == id && m.pw.groups == (N + 15) / 16);
    if (K % 64 == 0) /* as many bytes as the file's rows, whole groups */
        RF_EXPECT_INT((int)rf__qgemv_bytes(id, N, K),
                      (int)(m.pw.groups * 16 * (K / 32) * block_bytes(id)));
    size_t ab = (rf__act_bytes(id, K) + 63) / 64 * 64;
    uint8_t *am = malloc(S * ab + 64), *ad = am + (64 - (uintptr_t)am % 64) % 64;
    for (uint64_t s = 0; s < S; s++)
        rf__act_quantize(id, RF__KERNEL_GENERIC, x + s * K, K, ad + s * ab);
    int avx = rf__kernel_isa_best() >= RF__KERNEL_AVX512;
    rf__qgemv_kernel_fn kerns[2] = {rf__qgemv_nib_kernel_ref,
                                    avx ? rf__qgemv_nib_kernel_avx512() : NULL};
    RF_EXPECT(rf__qgemv_kernel_for(&m.pw, RF__KERNEL_GENERIC) == rf__qgemv_nib_kernel_ref);
    for (int ki = 0; ki < 2; ki++) {
        if (!kerns[ki]) continue;
        for (size_t i = 0; i < S * N; i++) m.y[i] = NAN;
        for (uint64_t s = 0; s < S; s++)
            for (uint64_t g = 0; g < m.pw.groups; g++) {
                unsigned nr = (unsigned)(N - g * 16 < 16 ? N - g * 16 : 16);
                kerns[ki](&m.pw, g, ad + s * ab, nr, m.y + s * N + g * 16);
            }
        int bad = qg_check(m.y, m.ref, m.tol, S * N);
        if (bad)
            RF_FAIL_AT("type %d N %d K %d kernel %d: %d of %d outside the bound", id, (int)N,
                       (int)K, ki, bad, (int)(S * N));
    }
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    for (size_t i = 0; i < S * N; i++) m.y[i] = NAN;
    rf__qgemv_run(q, rf__kernel_isa_best(), &m.pw, ad, ab, S, m.y);
    int bad = qg_check(m.y, m.ref, m.tol, S * N);
    if (bad) RF_FAIL_AT("type %d N %d K %d driver: %d outside the bound", id, (int)N, (int)K, bad);
    for (int which = 0; which < (id == RF__WEIGHT_Q4_1 ? 2 : 1); which++) {
        set_scale(&m, N - 1, K / 32 - 1, which, 50.0f); /* the last row's last block */
        rf__qgemv_run(q, rf__kernel_isa_best(), &m.pw, ad, ab, S, m.y);
        RF_EXPECT(qg_check(m.y, m.ref, m.tol, S * N) > 0);
        mat_free(&m);
        mat_make(&m, id, N, K, x, S); /* fresh, for the next scale */
    }
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    mat_free(&m);
    free(x), free(am);
}

RF_TEST(qgemv_q4_0)
{
    shape(RF__WEIGHT_Q4_0, 40, 512);
    shape(RF__WEIGHT_Q4_0, 40, 480);
    shape(RF__WEIGHT_Q4_0, 5, 96);
    RF_EXPECT(rf__qgemv_supported(RF__WEIGHT_Q4_0) && rf__qgemv_nib(RF__WEIGHT_Q4_0));
    RF_EXPECT(!rf__qgemv_nib(RF__WEIGHT_Q8_0) && !rf__qgemv_supported(RF__WEIGHT_Q4_K));
}

RF_TEST(qgemv_q4_1)
{
    shape(RF__WEIGHT_Q4_1, 40, 512);
    shape(RF__WEIGHT_Q4_1, 40, 480);
    shape(RF__WEIGHT_Q4_1, 5, 96);
    RF_EXPECT(rf__qgemv_supported(RF__WEIGHT_Q4_1) && rf__qgemv_nib(RF__WEIGHT_Q4_1));
}

/* Bytes: Q4_0 and Q4_1 at the file's size for an even block count, a padded pair for an odd
 * one; Q8_0 as prefill's form; none for Q4_K. */
RF_TEST(qgemv_q4_bytes)
{
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q4_0, 2048, 2048), 2048 * 64 * 18);
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q4_1, 2048, 8192), 2048 * 256 * 20);
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q4_0, 17, 96), 2 * 2 * 576);
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q4_1, 16, 32), 640);
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q8_0, 17, 64),
                  (int)rf__qgemm_bytes(RF__WEIGHT_Q8_0, 17, 64));
    RF_EXPECT_INT((int)rf__qgemv_bytes(RF__WEIGHT_Q4_K, 16, 256), 0);
}

/* Decode's fused q/k/v and gate/up on the nibble form (rf__qgemv_run_n): N = 40, 8 and 72 (the
 * groups' split between the jobs falling inside matrices), K = 480, 2 activation rows; each
 * output against dequantise-then-dot, and a scale changed in the last matrix caught there alone. */
static void run_n(int id)
{
    enum { M = 3 };
    const uint64_t Ns[M] = {40, 8, 72}, K = 480, S = 2;
    size_t ab = (rf__act_bytes(id, K) + 63) / 64 * 64;
    float *x = malloc(S * K * sizeof *x);
    for (uint64_t i = 0; i < S * K; i++) x[i] = rndf() * (i % 89 == 0 ? 6.0f : 1.0f);
    uint8_t *am = malloc(S * ab + 64), *ad = am + (64 - (uintptr_t)am % 64) % 64;
    for (uint64_t s = 0; s < S; s++)
        rf__act_quantize(id, rf__kernel_isa_best(), x + s * K, K, ad + s * ab);
    mat_t m[M];
    const rf__qgemm_w *pp[M];
    float *y[M];
    for (int i = 0; i < M; i++) {
        mat_make(&m[i], id, Ns[i], K, x, S);
        pp[i] = &m[i].pw;
        y[i] = m[i].y;
    }
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &q), RF_OK);
    rf__qgemv_run_n(q, rf__kernel_isa_best(), pp, M, ad, ab, S, y);
    for (int i = 0; i < M; i++) {
        int bad = qg_check(y[i], m[i].ref, m[i].tol, S * Ns[i]);
        if (bad) RF_FAIL_AT("type %d run_n matrix %d: %d outside the bound", id, i, bad);
    }
    set_scale(&m[2], 69, 3, id == RF__WEIGHT_Q4_1, 50.0f); /* Q4_1: its m */
    rf__qgemv_run_n(q, rf__kernel_isa_best(), pp, M, ad, ab, S, y);
    RF_EXPECT(qg_check(y[0], m[0].ref, m[0].tol, S * Ns[0]) == 0);
    RF_EXPECT(qg_check(y[1], m[1].ref, m[1].tol, S * Ns[1]) == 0);
    RF_EXPECT(qg_check(y[2], m[2].ref, m[2].tol, S * Ns[2]) > 0);
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    for (int i = 0; i < M; i++) mat_free(&m[i]);
    free(x), free(am);
}

RF_TEST(qgemv_n_q4_0)
{
    run_n(RF__WEIGHT_Q4_0);
}

RF_TEST(qgemv_n_q4_1)
{
    run_n(RF__WEIGHT_Q4_1);
}
