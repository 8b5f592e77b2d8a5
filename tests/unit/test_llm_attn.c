/* test_llm_attn.c — the LLM pass's attention (llm_exec_ops.c) a tile of query rows at a time:
 * grouped-query heads (4 over 2 KV heads), two sequences, a pass of S = 10 new rows at p0 = 3
 * (causal over p0 + i + 1 positions), once as one tile and once as tiles of 3, 3, 3 and 1, each
 * against a naive softmax(q.K^T / sqrt(D)).V in double; and the tile size that bounds the scores.
 */
#include <math.h>
#include <stdlib.h>

#include "exec/llm_exec_int.h"
#include "rf_test.h"

enum { B = 2, H = 4, HKV = 2, D = 8, S = 10, P0 = 3, T = P0 + S };

static float rndf(unsigned *st)
{
    *st = *st * 1664525u + 1013904223u;
    return (float)(*st >> 8) / 16777216.0f * 2.0f - 1.0f;
}

RF_TEST(llm_attention_in_tiles)
{
    rf_ctx *ctx;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    rf__llm_exec lx = {0};
    lx.ctx = ctx;
    lx.B = B, lx.H = H, lx.Hkv = HKV, lx.D = D, lx.Tmax = T, lx.n_layer = 1;
    RF_EXPECT_INT(rf__qmatmul_new(ctx, 2, rf__kernel_isa_best(), &lx.matmul), RF_OK);
    static float q[B * S * H * D], kc[B * T * HKV * D], vc[B * T * HKV * D], sc[B * H * S * T],
        out[B * S * H * D];
    unsigned st = 7;
    for (size_t i = 0; i < sizeof q / sizeof *q; i++) q[i] = rndf(&st);
    for (size_t i = 0; i < sizeof kc / sizeof *kc; i++) kc[i] = rndf(&st), vc[i] = rndf(&st);
    lx.q = q, lx.k_cache = kc, lx.v_cache = vc, lx.scores = sc, lx.attn = out;
    /* the reference */
    static double ref[B * S * H * D];
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < S; i++) {
                int hk = h / (H / HKV), len = P0 + i + 1;
                double p[T], mx = -1e300, sum = 0;
                for (int t = 0; t < len; t++) {
                    double d = 0;
                    for (int e = 0; e < D; e++)
                        d += (double)q[((b * S + i) * H + h) * D + e] *
                             kc[((b * T + t) * HKV + hk) * D + e];
                    p[t] = d / sqrt((double)D);
                    mx = fmax(mx, p[t]);
                }
                for (int t = 0; t < len; t++) sum += p[t] = exp(p[t] - mx);
                for (int e = 0; e < D; e++) {
                    double o = 0;
                    for (int t = 0; t < len; t++)
                        o += p[t] / sum * vc[((b * T + t) * HKV + hk) * D + e];
                    ref[((b * S + i) * H + h) * D + e] = o;
                }
            }
    for (int tile = S; tile >= 3; tile -= S - 3) {
        for (size_t i = 0; i < sizeof out / sizeof *out; i++) out[i] = NAN;
        for (int i0 = 0; i0 < S; i0 += tile) {
            int ni = S - i0 < tile ? S - i0 : tile;
            rf__llm_attn_scores(&lx, 0, S, P0, (uint64_t)i0, (uint64_t)ni);
            rf__llm_attn_softmax(&lx, S, P0, (uint64_t)i0, (uint64_t)ni);
            rf__llm_attn_values(&lx, 0, S, P0, (uint64_t)i0, (uint64_t)ni);
        }
        int bad = 0;
        for (size_t i = 0; i < sizeof out / sizeof *out; i++)
            bad += !(fabs(out[i] - ref[i]) <= 1e-5);
        if (bad) RF_FAIL_AT("tiles of %d rows: %d of %d values off", tile, bad, B * S * H * D);
    }
    rf__qmatmul_free(ctx, lx.matmul);
    rf_ctx_free(ctx);
    /* 32 MiB of scores a tile: 32 heads by 2048 positions take 128 rows; at least 1, at most S */
    RF_EXPECT_INT((int)rf__llm_attn_tile(1, 32, 4096, 2048), 128);
    RF_EXPECT_INT((int)rf__llm_attn_tile(1, 32, 100, 2048), 100);
    RF_EXPECT_INT((int)rf__llm_attn_tile(64, 64, 1000000, 1000000), 1);
}
