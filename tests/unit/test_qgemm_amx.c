/* test_qgemm_amx.c — the AMX-INT8 prefill products (src/exec/qgemm_amx.c): for every packed type
 * (blocks of 32, and Q6_K's 16), random blocks packed and multiplied on AMX tiles, against the
 * portable reference kernel (rf__qgemm_kernel_ref: the same sums in another order, within F32
 * rounding) and against dequantise-then-multiply in double (within the activations' rounding to 8
 * bits, as test_qgemm.c bounds it). Ragged shapes: S = 1, 5, 16, 17, 33 and 128 tokens (partial
 * tiles of 16), N = 40 and 72 (a partial group of 16, odd group counts), K past one chunk of the
 * driver and with an odd count of Q8_0's paired blocks. The threaded driver with AMX on and off,
 * $RF_AMX, and a changed scale that must move the result. Skipped, saying why, where the CPU or
 * the kernel gives no AMX. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qgemm.h"
#include "probe/probe_int.h"
#define RF_RAND_SEED 0x2545f4914f6cdd1dull
#include "rf_rand.h"
#include "qgemm_ref.h"
#include "rf_test.h"

/* 1 when this process may run the AMX kernel; else says why on stderr. */
static int amx_here(void)
{
    if (rf__kernel_isa_best() < RF__KERNEL_AVX512) return 0;
    return (rf__cpu_features() & RF__F_AMX) != 0;
}

typedef struct {
    uint64_t N, K, S;
    int id;
    uint8_t *w, *pm, *am;
    size_t rb;
    rf__qgemm_w pw;
    rf__qgemm_act a;
    float *x;
    double *ref, *bound, *mag; /* double product, quantisation bound, sum |w x| */
} prob;

static void prob_make(prob *p, int id, uint64_t N, uint64_t K, uint64_t S)
{
    memset(p, 0, sizeof *p);
    p->id = id, p->N = N, p->K = K, p->S = S;
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    p->rb = K / be * bb;
    p->w = malloc(N * p->rb);
    for (uint64_t r = 0; r < N; r++) qg_fill(id, p->w + r * p->rb, K);
    p->x = malloc(S * K * sizeof *p->x);
    for (uint64_t i = 0; i < S * K; i++) p->x[i] = rndf() * (i % 89 == 0 ? 8.0f : 1.0f);
    int blk = rf__qgemm_blk(id);
    size_t pb = rf__qgemm_bytes(id, N, K), ab = rf__qgemm_act_bytes(S, K, blk);
    p->pm = aligned_alloc(64, (pb + 63) / 64 * 64);
    p->am = aligned_alloc(64, (ab + 63) / 64 * 64);
    memset(p->am, 0x5a, ab); /* the driver must write what it reads */
    rf__qgemm_pack(id, p->w, p->rb, N, K, p->pm, &p->pw);
    p->ref = malloc(S * N * sizeof *p->ref);
    p->bound = malloc(S * N * sizeof *p->bound);
    p->mag = malloc(S * N * sizeof *p->mag);
    float *wf = malloc(K * sizeof *wf);
    for (uint64_t r = 0; r < N; r++) {
        rf__dequant_row(id, p->w + r * p->rb, wf, K);
        for (uint64_t s = 0; s < S; s++) {
            double acc = 0, mag = 0, bound = 0;
            for (uint64_t j = 0; j < K / (uint64_t)blk; j++) {
                double amax = 0, sw = 0;
                for (int i = 0; i < blk; i++) {
                    uint64_t k = j * (uint64_t)blk + (uint64_t)i;
                    acc += (double)wf[k] * p->x[s * K + k];
                    mag += fabs((double)wf[k] * p->x[s * K + k]);
                    amax = fmax(amax, fabs(p->x[s * K + k]));
                    sw += fabs(wf[k]);
                }
                bound += amax / 254.0 * sw;
            }
            p->ref[s * N + r] = acc;
            p->bound[s * N + r] = bound * 1.001 + 1e-5 * mag + 1e-6;
            p->mag[s * N + r] = mag;
        }
    }
    free(wf);
}

static void prob_free(prob *p)
{
    free(p->w), free(p->pm), free(p->am), free(p->x), free(p->ref), free(p->bound), free(p->mag);
}

/* Values of y outside the bound around the double product. */
static int outside(const prob *p, const float *y)
{
    int bad = 0;
    for (uint64_t i = 0; i < p->S * p->N; i++)
        if (!(fabs(y[i] - p->ref[i]) <= p->bound[i])) bad++;
    return bad;
}

/* The AMX kernel alone over every group against the reference kernel and the double product. */
static void one_shape(int id, uint64_t N, uint64_t K, uint64_t S)
{
    prob p;
    prob_make(&p, id, N, K, S);
    rf__qgemm_quantize(p.x, S, K, p.pw.blk, p.am, &p.a);
    rf__qgemm_amx_prep(&p.pw, &p.a, 0, (S + 15) / 16);
    float *y = malloc(S * N * sizeof *y), *yr = malloc(S * N * sizeof *yr);
    for (uint64_t i = 0; i < S * N; i++) y[i] = yr[i] = NAN;
    rf__qgemm_amx_groups(&p.pw, &p.a, y, 0, p.pw.groups);
    for (uint64_t g = 0; g < p.pw.groups; g++)
        for (uint64_t s0 = 0; s0 < S; s0 += RF__QGEMM_MR) {
            unsigned ms = (unsigned)(S - s0 < RF__QGEMM_MR ? S - s0 : RF__QGEMM_MR);
            unsigned nr = (unsigned)(N - g * 16 < 16 ? N - g * 16 : 16);
            rf__qgemm_kernel_ref(&p.pw, g, 1, &p.a, s0, ms, nr, yr + s0 * N + g * 16, N);
        }
    int far = 0, first = -1;
    for (uint64_t i = 0; i < S * N; i++)
        if (!(fabs(y[i] - yr[i]) <= 1e-4 * p.mag[i] + 1e-5))
            far++, first = first < 0 ? (int)i : first;
    if (far)
        RF_FAIL_AT("type %d N %d K %d S %d: %d of %d away from the reference kernel (first [%d] "
                   "%g vs %g)",
                   id, (int)N, (int)K, (int)S, far, (int)(S * N), first, (double)y[first],
                   (double)yr[first]);
    int bad = outside(&p, y);
    if (bad)
        RF_FAIL_AT("type %d N %d K %d S %d: %d of %d outside the bound", id, (int)N, (int)K, (int)S,
                   bad, (int)(S * N));
    free(y), free(yr);
    prob_free(&p);
}

static void one_type(int id)
{
    if (!amx_here()) RF_SKIP("no AMX-INT8 here (CPU, XCR0 or Linux's permission): nothing to test");
    static const uint64_t Ss[] = {1, 5, 16, 17, 33, 128};
    /* K: one chunk (512), three chunks the last of a single pair (2304 = 9 x 256) */
    for (size_t i = 0; i < sizeof Ss / sizeof *Ss; i++) {
        one_shape(id, 72, 512, Ss[i]);
        one_shape(id, 40, 2304, Ss[i]);
    }
    if (id == RF__WEIGHT_Q8_0) { /* an odd number of blocks: the last pair half empty */
        one_shape(id, 40, 480, 17);
        one_shape(id, 24, 2080, 33); /* 65 blocks: a chunk of one block */
    }
}

RF_TEST(amx_q8_0)
{
    one_type(RF__WEIGHT_Q8_0);
}
RF_TEST(amx_q4_0)
{
    one_type(RF__WEIGHT_Q4_0);
}
RF_TEST(amx_q4_1)
{
    one_type(RF__WEIGHT_Q4_1);
}
RF_TEST(amx_q5_0)
{
    one_type(RF__WEIGHT_Q5_0);
}
RF_TEST(amx_q5_1)
{
    one_type(RF__WEIGHT_Q5_1);
}
RF_TEST(amx_q4_k)
{
    one_type(RF__WEIGHT_Q4_K);
}
RF_TEST(amx_q5_k)
{
    one_type(RF__WEIGHT_Q5_K);
}
RF_TEST(amx_q6_k)
{
    one_type(RF__WEIGHT_Q6_K);
}

/* rf__qgemm_run through the team: AMX by default here, the VNNI kernel when turned off, both
 * within the bound; a changed scale moves the AMX result out of it; $RF_AMX=0 and "off" make a
 * team without AMX. */
static void driver(int id)
{
    if (!amx_here()) RF_SKIP("no AMX-INT8 here (CPU, XCR0 or Linux's permission): nothing to test");
    const uint64_t N = 72, K = 1280, S = 37;
    prob p;
    prob_make(&p, id, N, K, S);
    float *y = malloc(S * N * sizeof *y);
    rf_ctx *ctx;
    rf__qmatmul *q;
    int isa = rf__kernel_isa_best();
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, isa, &q), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_amx(q), 1);
    for (int on = 1; on >= 0; on--) {
        rf__qmatmul_set_amx(q, on);
        RF_EXPECT_INT(rf__qmatmul_amx(q), on);
        for (uint64_t i = 0; i < S * N; i++) y[i] = NAN;
        rf__qgemm_run(q, isa, &p.pw, p.x, S, p.am, y);
        int bad = outside(&p, y);
        if (bad) RF_FAIL_AT("type %d driver, AMX %d: %d outside the bound", id, on, bad);
    }
    rf__qmatmul_set_amx(q, 1);
    if (p.pw.f16_scales) { /* Q8_0: row 0's scale of block 1 */
        uint16_t h = rf__f32_to_f16(50.0f);
        memcpy((uint8_t *)(uintptr_t)rf__qgemm_scales(&p.pw, 0, 1), &h, 2);
    } else {
        float *bv = (float *)(void *)((uint8_t *)(uintptr_t)rf__qgemm_scales(&p.pw, 0, 1)) + 16;
        bv[0] += 100.0f;
    }
    rf__qgemm_run(q, isa, &p.pw, p.x, S, p.am, y);
    RF_EXPECT(outside(&p, y) > 0);
    rf__qmatmul_free(ctx, q);
    const char *offs[] = {"0", "off"};
    for (int i = 0; i < 2; i++) {
        setenv("RF_AMX", offs[i], 1);
        RF_EXPECT_INT(rf__qmatmul_new(ctx, 1, isa, &q), RF_OK);
        RF_EXPECT_INT(rf__qmatmul_amx(q), 0);
        rf__qmatmul_set_amx(q, 1); /* not allowed: stays off */
        RF_EXPECT_INT(rf__qmatmul_amx(q), 0);
        rf__qmatmul_free(ctx, q);
    }
    unsetenv("RF_AMX");
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 1, RF__KERNEL_AVX2, &q), RF_OK);
    RF_EXPECT_INT(rf__qmatmul_amx(q), 0); /* RF_ISA=avx2 and below: never AMX */
    rf__qmatmul_free(ctx, q);
    rf_ctx_free(ctx);
    free(y);
    prob_free(&p);
}

RF_TEST(amx_driver_q8_0)
{
    driver(RF__WEIGHT_Q8_0);
}
RF_TEST(amx_driver_q4_k)
{
    driver(RF__WEIGHT_Q4_K);
}
RF_TEST(amx_driver_q6_k)
{
    driver(RF__WEIGHT_Q6_K);
}
