/* test_exec_llmops.c — the LLM builders' layer kinds in the graph executor against naive
 * references: the attention matmuls with grouped-query heads (scores = q.K^T from [B,S,H,D] and
 * the [B,Hkv,T,D] cache; A.V into [B*S, H*D]), RMSNorm, rotary embedding (NeoX pairs, position =
 * row % S), KVStore and the MoE expert matmuls; and a GGUF-built graph (tests/data/gguf) with every
 * layer measured. */
#include "exec_tg.h"

static uint32_t attn_layer(tg *t, const uint32_t *in, uint32_t out)
{
    uint32_t li = lay(t, "MatMul", in, 2, out);
    rf_graph_set_attr_int(t->ctx, t->g, li, "llm_attention", 1);
    return li;
}

RF_TEST(attention_gqa_scores_and_av)
{
    enum { B = 2, S = 3, H = 4, HKV = 2, T = 5, D = 6, G = H / HKV };
    tg t = tg_new();
    uint32_t q = tens(&t, "q", RF_TENSOR_INPUT, D(B, S, H, D));
    uint32_t kc = tens(&t, "kc", RF_TENSOR_INPUT, D(B, HKV, T, D));
    uint32_t vc = tens(&t, "vc", RF_TENSOR_INPUT, D(B, HKV, T, D));
    uint32_t p = tens(&t, "p", RF_TENSOR_INPUT, D(B, H, S, T));
    uint32_t sc = tens(&t, "sc", RF_TENSOR_OUTPUT, D(B, H, S, T));
    uint32_t av = tens(&t, "av", RF_TENSOR_OUTPUT, D(B * S, H * D));
    uint32_t l0 = attn_layer(&t, (const uint32_t[]){q, kc}, sc);
    uint32_t l1 = attn_layer(&t, (const uint32_t[]){p, vc}, av);
    if (run(&t)) {
        expect_measured(&t, l0, "onednn:matmul");
        expect_measured(&t, l1, "onednn:matmul");
        float *qv = vals(&t, q, 0), *kv = vals(&t, kc, 0), *vv = vals(&t, vc, 0);
        float *pv = vals(&t, p, 0), *gs = out(&t, sc), *ga = out(&t, av);
        static float rs[B * H * S * T], ra[B * S * H * D];
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int s = 0; s < S; s++) {
                    int g = h / G; /* the KV head query head h reads */
                    for (int u = 0; u < T; u++) {
                        double acc = 0;
                        for (int d = 0; d < D; d++)
                            acc += (double)qv[((b * S + s) * H + h) * D + d] *
                                   kv[((b * HKV + g) * T + u) * D + d];
                        rs[((b * H + h) * S + s) * T + u] = (float)acc;
                    }
                    for (int d = 0; d < D; d++) {
                        double acc = 0;
                        for (int u = 0; u < T; u++)
                            acc += (double)pv[((b * H + h) * S + s) * T + u] *
                                   vv[((b * HKV + g) * T + u) * D + d];
                        ra[((b * S + s) * H + h) * D + d] = (float)acc;
                    }
                }
        close_all("scores", gs, rs, B * H * S * T);
        close_all("av", ga, ra, B * S * H * D);
        free(qv), free(kv), free(vv), free(pv), free(gs), free(ga);
    }
    tg_free(&t);
}

RF_TEST(rmsnorm_rope_kvstore)
{
    enum { B = 2, S = 3, H = 2, D = 8, C = H * D };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(B * S, C));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(C));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B * S, C));
    uint32_t r = tens(&t, "r", RF_TENSOR_OUTPUT, D(B, S, H, D));
    uint32_t v = tens(&t, "v", RF_TENSOR_INPUT, D(B * S, C));
    uint32_t kn = tens(&t, "kn", RF_TENSOR_OUTPUT, D(B, S, H, D));
    uint32_t vn = tens(&t, "vn", RF_TENSOR_OUTPUT, D(B, S, H, D));
    uint32_t l0 = lay(&t, "RMSNorm", IN(x, w), y);
    rf_graph_set_attr_float(t.ctx, t.g, l0, "epsilon", 1e-6);
    uint32_t l1 = lay(&t, "RotaryEmbedding", IN(y), r);
    uint32_t l2 = 0;
    rf_graph_add_layer(t.ctx, t.g, "kv_store", "KVStore", (const uint32_t[]){r, v}, 2,
                       (const uint32_t[]){kn, vn}, 2, &l2);
    if (run(&t)) {
        expect_measured(&t, l0, "c:rmsnorm");
        expect_measured(&t, l1, "c:rope");
        expect_measured(&t, l2, "c:kvstore");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *vv = vals(&t, v, 0);
        float *gy = out(&t, y), *gr = out(&t, r), *gk = out(&t, kn), *gv = out(&t, vn);
        static float ry[B * S * C], rr[B * S * C];
        for (int i = 0; i < B * S; i++) {
            double ss = 0;
            for (int c = 0; c < C; c++) ss += (double)xv[i * C + c] * xv[i * C + c];
            double inv = 1 / sqrt(ss / C + 1e-6);
            for (int c = 0; c < C; c++) ry[i * C + c] = (float)(xv[i * C + c] * inv * wv[c]);
            for (int h = 0; h < H; h++) /* position i % S; pairs (j, j + D/2) */
                for (int j = 0; j < D / 2; j++) {
                    double th = (i % S) * pow(10000.0, -2.0 * j / D);
                    double a = ry[i * C + h * D + j], b = ry[i * C + h * D + j + D / 2];
                    rr[i * C + h * D + j] = (float)(a * cos(th) - b * sin(th));
                    rr[i * C + h * D + j + D / 2] = (float)(a * sin(th) + b * cos(th));
                }
        }
        close_all("rmsnorm", gy, ry, B * S * C);
        close_all("rope", gr, rr, B * S * C);
        close_all("kv_store k", gk, gr, B * S * C);
        close_all("kv_store v", gv, vv, B * S * C);
        free(xv), free(wv), free(vv), free(gy), free(gr), free(gk), free(gv);
    }
    tg_free(&t);
}

/* MoE expert matmuls: token-slot pairs taken slot-major (p = j * BS + t) cut into E equal runs,
 * run e to expert e (op_llm.c); gate/up read x [BS, in], down reads x [BS, u, in]. */
static void moe_case(int slots)
{
    enum { BS = 5, U = 2, E = 3, K = 4, N = 6 };
    tg t = tg_new();
    uint32_t x = slots ? tens(&t, "x", RF_TENSOR_INPUT, D(BS, U, K))
                       : tens(&t, "x", RF_TENSOR_INPUT, D(BS, K));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(E, N, K));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(BS, U, N));
    uint32_t li = lay(&t, "MatMul", IN(x, w), y);
    if (run(&t)) {
        expect_measured(&t, li, "openblas:moe");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *gy = out(&t, y);
        float ry[BS * U * N];
        for (int j = 0; j < U; j++)
            for (int tk = 0; tk < BS; tk++) {
                int pp = j * BS + tk, e = 0;
                while ((e + 1) * (BS * U) / E <= pp) e++;
                for (int n = 0; n < N; n++) {
                    double acc = 0;
                    for (int k = 0; k < K; k++)
                        acc += (double)wv[(e * N + n) * K + k] *
                               xv[slots ? (tk * U + j) * K + k : tk * K + k];
                    ry[(tk * U + j) * N + n] = (float)acc;
                }
            }
        close_all(slots ? "moe down" : "moe gate", gy, ry, BS * U * N);
        free(xv), free(wv), free(gy);
    }
    tg_free(&t);
}

RF_TEST(moe_expert_matmuls)
{
    moe_case(0);
    moe_case(1);
}

/* A model from a GGUF file runs with no layer left unmeasured (the builder's kinds included). */
RF_TEST(gguf_llama_every_layer_measured)
{
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_graph *g = NULL;
    rf_status st =
        rf_model_load(ctx, RF_SOURCE_DIR "/tests/data/gguf/tiny_llama_mixed.gguf", NULL, &g);
    RF_EXPECT_INT(st, RF_OK);
    if (st != RF_OK) fprintf(stderr, "  %s\n", rf_ctx_errmsg(ctx));
    rf__xplan *p = NULL;
    if (g) {
        st = rf__xplan_new(ctx, g, &p);
        RF_EXPECT_INT(st, RF_OK);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; p && i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        n += !strcmp(l->op_type, "RotaryEmbedding") || !strcmp(l->op_type, "KVStore");
        if (l->kind == RF_OP_CONSTANT || l->kind == RF_OP_METADATA) continue;
        if (!p->layers[i].measured)
            RF_FAIL_AT("%s (%s) not measured: %s", l->name, l->op_type, p->layers[i].reason);
    }
    RF_EXPECT(n >= 3); /* the builder's kinds are there to be measured */
    rf__xplan_free(p);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}
