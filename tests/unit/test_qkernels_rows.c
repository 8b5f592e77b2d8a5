/* test_qkernels_rows.c — decode's several-row kernels (rf__rows_dot_get, qkernels_avx512_rows.c):
 * for every type that has one at this CPU's best level (and the plain AVX-512 one where the VBMI
 * one is chosen), 1 to RF__ROWS_DOT_MAX rows (a partial set
 * repeats its last row inside and must store only its own), lengths of 1, 3, 7 and 65 blocks (a
 * partial group of 4 and chunk of 32), rows further apart than their bytes, each against
 * dequantise-then-dot in double of the same 8-bit activation (float rounding only), nothing written
 * past nr; then the threaded decode driver (rf__qmatmul_run, one and two activation rows, 37 rows:
 * a partial last call) against the same reference, and a changed weight byte caught. Skips where no
 * type has one (no AVX-512). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qkernels.h"
#define RF_RAND_SEED 0x2545f4914f6cdd1dull
#include "rf_rand.h"
#include "rf_test.h"

/* n rows of k weights of type id, rb bytes apart: random quants, sane F16 scales (and minimums) */
static void fill(int id, uint8_t *w, size_t rb, size_t n, size_t k)
{
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    for (size_t i = 0; i < n * rb; i++) w[i] = (uint8_t)rnd();
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < k / be; j++) {
            uint8_t *b = w + r * rb + j * bb;
            uint16_t d = rf__f32_to_f16(0.001f + 0.05f * (rndf() + 1.0f));
            uint16_t e = rf__f32_to_f16(0.001f + 0.02f * (rndf() + 1.0f));
            memcpy(b + (id == RF__WEIGHT_Q6_K ? 208 : 0), &d, 2);
            if (id == RF__WEIGHT_Q4_1 || id == RF__WEIGHT_Q5_1 || id == RF__WEIGHT_Q4_K ||
                id == RF__WEIGHT_Q5_K)
                memcpy(b + 2, &e, 2);
        }
}

/* row . (the activation as the kernels read it), in double; *mag = sum |w x| */
static double ref_dot(int id, const uint8_t *row, const void *a, size_t k, double *mag)
{
    float *wd = malloc(k * sizeof *wd);
    rf__dequant_row(id, row, wd, k);
    double s = 0, m = 0;
    for (size_t i = 0; i < k; i++) {
        double x;
        if (rf__act_format(id) == RF__ACT_Q8_32) {
            const rf__block_q8_32 *q = a;
            x = (double)q[i / 32].d * q[i / 32].qs[i % 32];
        } else {
            const rf__block_q8_k *q = a;
            x = (double)q[i / 256].d * q[i / 256].qs[i % 256];
        }
        s += wd[i] * x;
        m += fabs(wd[i] * x);
    }
    free(wd);
    *mag = m;
    return s;
}

static int one_type(int id, int isa)
{
    rf__rows_dot_fn fns[2] = {rf__rows_dot_get(id, isa), NULL}; /* the chosen one, the plain */
    if (!fns[0]) return 0;
    if (isa >= RF__KERNEL_AVX512 && rf__rows_dot_avx512[id] != fns[0])
        fns[1] = rf__rows_dot_avx512[id];
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    static const size_t nblocks[] = {1, 3, 7, 65};
    for (size_t li = 0; li < 2 * sizeof nblocks / sizeof *nblocks; li++) {
        rf__rows_dot_fn fn = fns[li % 2];
        if (!fn) continue;
        size_t k = nblocks[li / 2] * be, rb = k / be * bb + 6; /* rows 6 bytes further apart */
        uint8_t *w = malloc(RF__ROWS_DOT_MAX * rb);
        float *x = malloc(k * sizeof *x);
        void *buf = malloc(rf__act_bytes(id, k) + 64);
        fill(id, w, rb, RF__ROWS_DOT_MAX, k);
        for (size_t i = 0; i < k; i++) x[i] = rndf() * (i % 29 == 0 ? 9.0f : 1.0f);
        const void *a = rf__act_quantize(id, isa, x, k, buf);
        for (unsigned nr = 1; nr <= RF__ROWS_DOT_MAX; nr++) {
            float y[RF__ROWS_DOT_MAX + 1];
            for (unsigned r = 0; r <= RF__ROWS_DOT_MAX; r++) y[r] = NAN;
            fn(w, rb, nr, a, k, y);
            for (unsigned r = 0; r < RF__ROWS_DOT_MAX + 1; r++) {
                if (r >= nr) {
                    if (!isnan(y[r])) RF_FAIL_AT("type %d nr %u: y[%u] written", id, nr, r);
                    continue;
                }
                double mag, ref = ref_dot(id, w + r * rb, a, k, &mag);
                if (!(fabs(y[r] - ref) <= 2e-5 * mag + 1e-6))
                    RF_FAIL_AT("type %d k %zu nr %u row %u: %.9g vs %.9g", id, k, nr, r, y[r], ref);
            }
        }
        free(w), free(x), free(buf);
    }
    /* the threaded decode driver takes them: 37 rows, one and two activation rows */
    const uint64_t N = 37, K = 20 * (uint64_t)be;
    size_t rb = (size_t)K / be * bb;
    uint8_t *w = malloc(N * rb);
    float *x = malloc(2 * K * sizeof *x), *y = malloc(2 * N * sizeof *y);
    void *buf = malloc(rf__act_bytes(id, K) + 64);
    fill(id, w, rb, N, K);
    for (size_t i = 0; i < 2 * K; i++) x[i] = rndf();
    rf_ctx *ctx;
    rf__qmatmul *q;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, isa, &q), RF_OK);
    for (uint64_t S = 1; S <= 2; S++) {
        for (int flip = 0; flip < 2; flip++) {
            if (flip) w[5 * rb + 2 * bb + bb - 1] ^= 0x44; /* row 5: two quants of block 2 */
            RF_EXPECT_INT(rf__qmatmul_run(ctx, q, id, w, rb, N, K, x, S, y), RF_OK);
            if (flip) w[5 * rb + 2 * bb + bb - 1] ^= 0x44;
            int bad = 0;
            for (uint64_t s = 0; s < S; s++) {
                const void *a = rf__act_quantize(id, RF__KERNEL_GENERIC, x + s * K, K, buf);
                for (uint64_t r = 0; r < N; r++) {
                    double mag, ref = ref_dot(id, w + r * rb, a, K, &mag);
                    bad += !(fabs(y[s * N + r] - ref) <= 2e-5 * mag + 1e-6);
                }
            }
            if (bad != (flip ? (int)S : 0))
                RF_FAIL_AT("type %d S %d flip %d: %d products off", id, (int)S, flip, bad);
        }
    }
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    free(w), free(x), free(y), free(buf);
    return 1;
}

RF_TEST(qk_rows_kernels)
{
    int best = rf__kernel_isa_best(), tried = 0;
    for (int isa = RF__KERNEL_GENERIC; isa <= best; isa++)
        for (int id = 0; id < RF__WEIGHT_TYPES; id++) tried += one_type(id, isa);
    RF_EXPECT(rf__rows_dot_get(RF__WEIGHT_TYPES, best) == NULL);
    if (!tried) {
        fprintf(stderr, "SKIP: no several-row kernels for this CPU (best level: %s)\n",
                rf__kernel_isa_name(best));
        exit(77);
    }
}
