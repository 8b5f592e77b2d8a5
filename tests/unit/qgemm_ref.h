/* qgemm_ref.h — what the packed-product tests share (test_qgemm.c, test_qgemm_amx.c,
 * test_qgemv_q4.c): random blocks of a weight type with sane scales, the product of the
 * dequantised weights in double precision with the bound 8-bit activations allow, and the count
 * of results outside it. Include after rf_rand.h (rnd, rndf). Test-only. */
#ifndef RF_TEST_QGEMM_REF_H
#define RF_TEST_QGEMM_REF_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qkernels.h"

static inline void qg_fill(int id, uint8_t *buf, size_t k)
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
        else if (id == RF__WEIGHT_Q2_K)
            memcpy(b + 80, &d, 2), memcpy(b + 82, &e, 2);
        else if (id == RF__WEIGHT_Q3_K)
            memcpy(b + 108, &d, 2);
        else
            memcpy(b, &d, 2);
        if (id == RF__WEIGHT_Q4_K || id == RF__WEIGHT_Q5_K || id == RF__WEIGHT_Q4_1 ||
            id == RF__WEIGHT_Q5_1)
            memcpy(b + 2, &e, 2); /* dmin, or Q4_1's and Q5_1's minimum m */
    }
    for (size_t i = 0; id == RF__WEIGHT_F16 && i < k; i++) {
        uint16_t h = rf__f32_to_f16(rndf());
        memcpy(buf + 2 * i, &h, 2);
    }
    for (size_t i = 0; (id == RF__WEIGHT_F32 || id == RF__WEIGHT_BF16) && i < k; i++) {
        float f = rndf();
        uint32_t u;
        memcpy(&u, &f, 4);
        if (id == RF__WEIGHT_F32)
            memcpy(buf + 4 * i, &f, 4);
        else
            buf[2 * i] = (uint8_t)(u >> 16), buf[2 * i + 1] = (uint8_t)(u >> 24);
    }
}

/* The reference product and the bound for every (s, r). */
static inline void qg_reference(int id, const uint8_t *w, size_t rb, uint64_t N, uint64_t K,
                                const float *x, uint64_t S, int blk, double *ref, double *tol)
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

static inline int qg_check(const float *y, const double *ref, const double *tol, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!(fabs(y[i] - ref[i]) <= tol[i])) bad++;
    return bad;
}

#endif
