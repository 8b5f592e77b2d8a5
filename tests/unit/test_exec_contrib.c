/* test_exec_contrib.c — ONNX Runtime's contrib ops in the executor (op_contrib.c, op_attn.c)
 * against naive double-precision references written from ONNX Runtime's ContribOperators.md:
 * the elementwise ones with biases, the skip norms (skip repeated over the batch, the sum
 * output), FusedMatMul (alpha, both transposes, a broadcast B), MatMulNBits (nibble order, packed
 * zero points, the default zero point 8, K not a multiple of the block), RotaryEmbedding with
 * caches (half-split and interleaved pairs, position ids), Attention (causal),
 * MultiHeadAttention (L != S, Dv != D) and GroupQueryAttention (past + new, shared KV heads).
 * Tolerance: close_all's 1e-4 absolute + 1e-4 relative; float sums of at most 40 products of
 * values below 4 in magnitude and float erf/tanh/exp (within a few ulp) stay far inside it. */
#include "exec_tg.h"

static uint32_t tensd(tg *t, const char *name, uint32_t flags, rf_dtype dt, const int64_t *dims,
                      uint32_t rank)
{
    uint32_t i = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t->ctx, t->g, name, dt, rank, dims, flags, &i);
    return i;
}

static uint32_t ms_layer(tg *t, const char *op, const uint32_t *in, uint32_t nin,
                         const uint32_t *out, uint32_t nout)
{
    uint32_t li = 0;
    rf_graph_add_layer(t->ctx, t->g, op, op, in, nin, out, nout, &li);
    t->g->layers[li].domain = rf_graph_strdup(t->ctx, t->g, "com.microsoft", 13);
    t->g->layers[li].kind = rf_op_kind_in_domain(op, "com.microsoft"); /* as the reader does */
    return li;
}

static void fattr(tg *t, uint32_t li, const char *name, double v)
{
    rf_graph_set_attr_float(t->ctx, t->g, li, name, v);
}

static double gelu(double v)
{
    return 0.5 * v * (1 + erf(v / sqrt(2.0)));
}

RF_TEST(contrib_eltwise)
{
    enum { R = 6, N = 10 };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(2, 3, N));
    uint32_t x2 = tens(&t, "x2", RF_TENSOR_INPUT, D(R, 2 * N));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(N));
    uint32_t b2 = tens(&t, "b2", RF_TENSOR_WEIGHT, D(2 * N));
    uint32_t sk = tens(&t, "sk", RF_TENSOR_INPUT, D(2, 3, N));
    uint32_t y[6];
    char nm[16];
    for (int i = 0; i < 6; i++) {
        snprintf(nm, sizeof nm, "y%d", i);
        y[i] = tens(&t, nm, RF_TENSOR_OUTPUT, D(2, 3, N));
    }
    uint32_t l[6];
    l[0] = ms_layer(&t, "BiasAdd", IN(x, b, sk), &y[0], 1);
    l[1] = ms_layer(&t, "BiasGelu", IN(x, b), &y[1], 1);
    l[2] = ms_layer(&t, "FastGelu", IN(x, b), &y[2], 1);
    l[3] = ms_layer(&t, "FastGelu", IN(x), &y[3], 1);
    l[4] = ms_layer(&t, "QuickGelu", IN(x), &y[4], 1);
    fattr(&t, l[4], "alpha", 1.5);
    l[5] = ms_layer(&t, "BiasSplitGelu", IN(x2, b2), &y[5], 1);
    if (run(&t)) {
        float *xv = vals(&t, x, 0), *bv = vals(&t, b, 0), *kv = vals(&t, sk, 0);
        float *x2v = vals(&t, x2, 0), *b2v = vals(&t, b2, 0);
        static float r[6][R * N];
        for (int i = 0; i < R * N; i++) {
            int j = i % N, row = i / N;
            double v = xv[i], vb = v + bv[j];
            r[0][i] = (float)(vb + kv[i]);
            r[1][i] = (float)gelu(vb);
            r[2][i] = (float)(0.5 * vb *
                              (1 + tanh(sqrt(2 / 3.14159265358979323846) *
                                        (vb + 0.044715 * vb * vb * vb))));
            r[3][i] =
                (float)(0.5 * v *
                        (1 + tanh(sqrt(2 / 3.14159265358979323846) * (v + 0.044715 * v * v * v))));
            r[4][i] = (float)(v / (1 + exp(-1.5 * v)));
            double left = x2v[row * 2 * N + j] + b2v[j];
            double right = x2v[row * 2 * N + N + j] + b2v[N + j];
            r[5][i] = (float)(left * gelu(right));
        }
        static const char *const kern[6] = {"c:contrib-eltwise",     "onednn:binary+eltwise",
                                            "onednn:binary+eltwise", "onednn:eltwise",
                                            "onednn:eltwise",        "c:contrib-eltwise"};
        for (int k = 0; k < 6; k++) {
            expect_measured(&t, l[k], kern[k]);
            float *g = out(&t, y[k]);
            close_all(t.g->layers[l[k]].op_type, g, r[k], R * N);
            free(g);
        }
        free(xv), free(bv), free(kv), free(x2v), free(b2v);
    }
    tg_free(&t);
}

RF_TEST(contrib_skip_norms)
{
    enum { B = 2, S = 3, N = 8 };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(B, S, N));
    uint32_t sk = tens(&t, "sk", RF_TENSOR_INPUT, D(S, N)); /* repeated over the batch */
    uint32_t g = tens(&t, "g", RF_TENSOR_WEIGHT, D(N));
    uint32_t be = tens(&t, "be", RF_TENSOR_WEIGHT, D(N));
    uint32_t bi = tens(&t, "bi", RF_TENSOR_WEIGHT, D(N));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B, S, N));
    uint32_t mo = tens(&t, "", 0, D(B, S, 1));
    uint32_t io = tens(&t, "", 0, D(B, S, 1));
    uint32_t sum = tens(&t, "sum", RF_TENSOR_OUTPUT, D(B, S, N));
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(B, S, N));
    uint32_t l0 = ms_layer(&t, "SkipLayerNormalization", IN(x, sk, g, be, bi),
                           (const uint32_t[]){y, mo, io, sum}, 4);
    fattr(&t, l0, "epsilon", 1e-5);
    uint32_t l1 = ms_layer(&t, "SkipSimplifiedLayerNormalization", IN(x, sk, g), &y2, 1);
    fattr(&t, l1, "epsilon", 1e-6);
    if (run(&t)) {
        expect_measured(&t, l0, "c:skip-layernorm");
        expect_measured(&t, l1, "c:skip-rmsnorm");
        float *xv = vals(&t, x, 0), *kv = vals(&t, sk, 0), *gv = vals(&t, g, 0);
        float *bev = vals(&t, be, 0), *biv = vals(&t, bi, 0);
        static float ry[B * S * N], rs[B * S * N], r2[B * S * N];
        for (int r = 0; r < B * S; r++) {
            double s[N], s2[N], mean = 0, var = 0, ms = 0;
            for (int i = 0; i < N; i++) {
                s[i] = (double)xv[r * N + i] + kv[(r % S) * N + i] + biv[i];
                s2[i] = (double)xv[r * N + i] + kv[(r % S) * N + i];
                mean += s[i] / N;
                ms += s2[i] * s2[i] / N;
            }
            for (int i = 0; i < N; i++) var += (s[i] - mean) * (s[i] - mean) / N;
            for (int i = 0; i < N; i++) {
                ry[r * N + i] = (float)((s[i] - mean) / sqrt(var + 1e-5) * gv[i] + bev[i]);
                rs[r * N + i] = (float)s[i];
                r2[r * N + i] = (float)(s2[i] / sqrt(ms + 1e-6) * gv[i]);
            }
        }
        float *gy = out(&t, y), *gs = out(&t, sum), *g2 = out(&t, y2);
        close_all("skip-ln", gy, ry, B * S * N);
        close_all("sum", gs, rs, B * S * N);
        close_all("skip-rms", g2, r2, B * S * N);
        free(xv), free(kv), free(gv), free(bev), free(biv), free(gy), free(gs), free(g2);
    }
    tg_free(&t);
}

/* FusedMatMul: alpha op(A[b]) op(B), A [2, K, M] transposed, B [N, K] transposed, broadcast. */
RF_TEST(contrib_fused_matmul)
{
    enum { BT = 2, M = 3, K = 5, N = 4 };
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(BT, K, M));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(N, K));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(BT, M, N));
    uint32_t li = ms_layer(&t, "FusedMatMul", IN(a, b), &y, 1);
    fattr(&t, li, "alpha", 0.5);
    rf_graph_set_attr_int(t.ctx, t.g, li, "transA", 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "transB", 1);
    if (run(&t)) {
        expect_measured(&t, li, "openblas:fusedmatmul");
        float *av = vals(&t, a, 0), *bv = vals(&t, b, 0), *g = out(&t, y), r[BT * M * N];
        for (int z = 0; z < BT; z++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double acc = 0;
                    for (int k = 0; k < K; k++)
                        acc += (double)av[(z * K + k) * M + i] * bv[j * K + k];
                    r[(z * M + i) * N + j] = (float)(0.5 * acc);
                }
        close_all("y", g, r, BT * M * N);
        free(av), free(bv), free(g);
    }
    tg_free(&t);
}

/* MatMulNBits, 4 bits, K = 40 in blocks of 16 (the last block 8 wide, padded), with packed
 * zero points and without (8). Element 2i of a block is byte i's low nibble. The graph keeps
 * at most RF_GRAPH_MAX_VALUES (64) given values per tensor, hence N = 2. */
RF_TEST(contrib_matmul_nbits)
{
    enum {
        M = 3,
        K = 40,
        N = 2,
        BS = 16,
        NB = 3,
        NBY = N * NB * BS / 2,
        ZB = N * 2
    }; /* NBY <= 64 */
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(M, K));
    uint32_t w = tensd(&t, "w", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(N, NB, BS / 2));
    uint32_t s = tens(&t, "s", RF_TENSOR_WEIGHT, D(N * NB));
    uint32_t z = tensd(&t, "z", RF_TENSOR_WEIGHT, RF_DTYPE_U8, D(ZB));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(M, N));
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(M, N));
    int64_t wv[NBY], zv[ZB];
    for (int i = 0; i < NBY; i++) wv[i] = (i * 37 + 11) % 256;
    for (int i = 0; i < ZB; i++) zv[i] = (i * 53 + 7) % 256;
    rf_graph_set_values(t.ctx, t.g, w, wv, NBY);
    rf_graph_set_values(t.ctx, t.g, z, zv, ZB);
    uint32_t l0 = ms_layer(&t, "MatMulNBits", IN(a, w, s, z), &y, 1);
    uint32_t l1 = ms_layer(&t, "MatMulNBits", IN(a, w, s), &y2, 1);
    for (uint32_t li = l0; li <= l1; li++) {
        rf_graph_set_attr_int(t.ctx, t.g, li, "K", K);
        rf_graph_set_attr_int(t.ctx, t.g, li, "N", N);
        rf_graph_set_attr_int(t.ctx, t.g, li, "bits", 4);
        rf_graph_set_attr_int(t.ctx, t.g, li, "block_size", BS);
    }
    if (run(&t)) {
        expect_measured(&t, l0, "openblas:matmulnbits");
        expect_measured(&t, l1, "openblas:matmulnbits");
        float *av = vals(&t, a, 0), *sv = vals(&t, s, 1), *g = out(&t, y), *g2 = out(&t, y2);
        float r[M * N], r2[M * N];
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double acc = 0, acc2 = 0;
                for (int k = 0; k < K; k++) {
                    int blk = k / BS, i = k % BS;
                    int byte = (int)wv[(n * NB + blk) * (BS / 2) + i / 2];
                    int q = i % 2 ? byte >> 4 : byte & 15;
                    int zb = (int)zv[n * 2 + blk / 2], zq = blk % 2 ? zb >> 4 : zb & 15;
                    acc += (double)av[m * K + k] * (q - zq) * sv[n * NB + blk];
                    acc2 += (double)av[m * K + k] * (q - 8) * sv[n * NB + blk];
                }
                r[m * N + n] = (float)acc, r2[m * N + n] = (float)acc2;
            }
        close_all("zp", g, r, M * N);
        close_all("no zp", g2, r2, M * N);
        free(av), free(sv), free(g), free(g2);
    }
    tg_free(&t);
}

/* RotaryEmbedding [B, S, H*D] with num_heads, position ids [B, S], caches [P, D/2]: half-split
 * pairs (i, i + D/2) and interleaved pairs (2i, 2i + 1). */
RF_TEST(contrib_rotary_embedding)
{
    enum { B = 2, S = 3, H = 2, HD = 6, P = 8 };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(B, S, H * HD));
    uint32_t pid = tensd(&t, "pid", RF_TENSOR_WEIGHT, RF_DTYPE_I64, D(B, S));
    uint32_t cs = tens(&t, "cs", RF_TENSOR_WEIGHT, D(P, HD / 2));
    uint32_t sn = tens(&t, "sn", RF_TENSOR_WEIGHT, D(P, HD / 2));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B, S, H * HD));
    uint32_t y2 = tens(&t, "y2", RF_TENSOR_OUTPUT, D(B, S, H * HD));
    const int64_t pv[B * S] = {0, 1, 2, 5, 6, 7};
    rf_graph_set_values(t.ctx, t.g, pid, pv, B * S);
    uint32_t l0 = ms_layer(&t, "RotaryEmbedding", IN(x, pid, cs, sn), &y, 1);
    uint32_t l1 = ms_layer(&t, "RotaryEmbedding", IN(x, pid, cs, sn), &y2, 1);
    rf_graph_set_attr_int(t.ctx, t.g, l0, "num_heads", H);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "num_heads", H);
    rf_graph_set_attr_int(t.ctx, t.g, l1, "interleaved", 1);
    if (run(&t)) {
        expect_measured(&t, l0, "c:rope-cache");
        expect_measured(&t, l1, "c:rope-cache");
        float *xv = vals(&t, x, 0), *cv = vals(&t, cs, 0), *sv = vals(&t, sn, 0);
        float *g = out(&t, y), *g2 = out(&t, y2), r[B * S * H * HD], r2[B * S * H * HD];
        for (int b = 0; b < B; b++)
            for (int s = 0; s < S; s++)
                for (int h = 0; h < H; h++) {
                    int o = ((b * S + s) * H + h) * HD, pos = (int)pv[b * S + s];
                    for (int i = 0; i < HD / 2; i++) {
                        double c = cv[pos * HD / 2 + i], si = sv[pos * HD / 2 + i];
                        double u = xv[o + i], v = xv[o + i + HD / 2];
                        r[o + i] = (float)(u * c - v * si);
                        r[o + i + HD / 2] = (float)(u * si + v * c);
                        u = xv[o + 2 * i], v = xv[o + 2 * i + 1];
                        r2[o + 2 * i] = (float)(u * c - v * si);
                        r2[o + 2 * i + 1] = (float)(u * si + v * c);
                    }
                }
        close_all("half", g, r, B * S * H * HD);
        close_all("interleaved", g2, r2, B * S * H * HD);
        free(xv), free(cv), free(sv), free(g), free(g2);
    }
    tg_free(&t);
}

/* Naive attention: q [B, S, H, D], k/v [B, L, Hkv, D(v)] (element (b, t, g, d) at k(b, t, g, d)
 * through the given strides), causal with offset off, out [B, S, H, Dv]. */
typedef struct kvview {
    const float *p;
    int64_t sb, st, sh;
} kvview;

static void ref_attn(int B, int S, int L, int H, int Hk, int Dd, int Dv, kvview q, kvview k,
                     kvview v, int causal, int off, float *y)
{
    double scale = 1 / sqrt((double)Dd);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            int g = h / (H / Hk);
            for (int s = 0; s < S; s++) {
                double sc[64], mx = -1e300, sum = 0;
                int n = causal ? s + off + 1 : L;
                for (int u = 0; u < n; u++) {
                    double acc = 0;
                    for (int d = 0; d < Dd; d++)
                        acc += (double)q.p[b * q.sb + s * q.st + h * q.sh + d] *
                               k.p[b * k.sb + u * k.st + g * k.sh + d];
                    sc[u] = acc * scale;
                    mx = sc[u] > mx ? sc[u] : mx;
                }
                for (int u = 0; u < n; u++) sum += sc[u] = exp(sc[u] - mx);
                for (int d = 0; d < Dv; d++) {
                    double acc = 0;
                    for (int u = 0; u < n; u++)
                        acc += sc[u] / sum * v.p[b * v.sb + u * v.st + g * v.sh + d];
                    y[((b * S + s) * H + h) * Dv + d] = (float)acc;
                }
            }
        }
}

RF_TEST(contrib_attention_causal)
{
    enum { B = 2, S = 4, HID = 8, H = 2, DH = HID / H };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(B, S, HID));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(HID, 3 * HID));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(3 * HID));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B, S, HID));
    uint32_t li = ms_layer(&t, "Attention", IN(x, w, b), &y, 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "num_heads", H);
    rf_graph_set_attr_int(t.ctx, t.g, li, "unidirectional", 1);
    if (run(&t)) {
        expect_measured(&t, li, "openblas:attention");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *bv = vals(&t, b, 0), *g = out(&t, y);
        static float qkv[B * S * 3 * HID], r[B * S * HID];
        for (int i = 0; i < B * S; i++)
            for (int j = 0; j < 3 * HID; j++) {
                double acc = bv[j];
                for (int k = 0; k < HID; k++) acc += (double)xv[i * HID + k] * wv[k * 3 * HID + j];
                qkv[i * 3 * HID + j] = (float)acc;
            }
        kvview q = {qkv, S * 3 * HID, 3 * HID, DH}, k = {qkv + HID, S * 3 * HID, 3 * HID, DH};
        kvview v = {qkv + 2 * HID, S * 3 * HID, 3 * HID, DH};
        ref_attn(B, S, S, H, H, DH, DH, q, k, v, 1, 0, r);
        close_all("y", g, r, B * S * HID);
        free(xv), free(wv), free(bv), free(g);
    }
    tg_free(&t);
}

RF_TEST(contrib_multihead_attention)
{
    enum { B = 1, S = 3, L = 5, H = 2, DH = 4, DV = 3 };
    tg t = tg_new();
    uint32_t q = tens(&t, "q", RF_TENSOR_INPUT, D(B, S, H * DH));
    uint32_t k = tens(&t, "k", RF_TENSOR_INPUT, D(B, L, H * DH));
    uint32_t v = tens(&t, "v", RF_TENSOR_INPUT, D(B, L, H * DV));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B, S, H * DV));
    uint32_t li = ms_layer(&t, "MultiHeadAttention", IN(q, k, v), &y, 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "num_heads", H);
    if (run(&t)) {
        expect_measured(&t, li, "openblas:attention");
        float *qv = vals(&t, q, 0), *kv = vals(&t, k, 0), *vv = vals(&t, v, 0), *g = out(&t, y);
        float r[B * S * H * DV];
        ref_attn(B, S, L, H, H, DH, DV, (kvview){qv, S * H * DH, H * DH, DH},
                 (kvview){kv, L * H * DH, H * DH, DH}, (kvview){vv, L * H * DV, H * DV, DV}, 0, 0,
                 r);
        close_all("y", g, r, B * S * H * DV);
        free(qv), free(kv), free(vv), free(g);
    }
    tg_free(&t);
}

/* GQA: 4 query heads on 2 KV heads, past of 2 positions: present = [past, new] and causal
 * attention with the queries at positions 2..4. */
RF_TEST(contrib_group_query_attention_past)
{
    enum { B = 1, S = 3, H = 4, HK = 2, DH = 2, P = 2, T = P + S };
    tg t = tg_new();
    uint32_t q = tens(&t, "q", RF_TENSOR_INPUT, D(B, S, H * DH));
    uint32_t k = tens(&t, "k", RF_TENSOR_INPUT, D(B, S, HK * DH));
    uint32_t v = tens(&t, "v", RF_TENSOR_INPUT, D(B, S, HK * DH));
    uint32_t pk = tens(&t, "pk", RF_TENSOR_INPUT, D(B, HK, P, DH));
    uint32_t pv = tens(&t, "pv", RF_TENSOR_INPUT, D(B, HK, P, DH));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(B, S, H * DH));
    uint32_t ok = tens(&t, "ok", RF_TENSOR_OUTPUT, D(B, HK, T, DH));
    uint32_t ov = tens(&t, "ov", RF_TENSOR_OUTPUT, D(B, HK, T, DH));
    uint32_t li =
        ms_layer(&t, "GroupQueryAttention", IN(q, k, v, pk, pv), (const uint32_t[]){y, ok, ov}, 3);
    rf_graph_set_attr_int(t.ctx, t.g, li, "num_heads", H);
    rf_graph_set_attr_int(t.ctx, t.g, li, "kv_num_heads", HK);
    if (run(&t)) {
        expect_measured(&t, li, "openblas:attention");
        float *qv = vals(&t, q, 0), *kv = vals(&t, k, 0), *vv = vals(&t, v, 0);
        float *pkv = vals(&t, pk, 0), *pvv = vals(&t, pv, 0);
        float *g = out(&t, y), *gk = out(&t, ok), *gv = out(&t, ov);
        float rk[B * HK * T * DH], rv[B * HK * T * DH], r[B * S * H * DH];
        for (int h = 0; h < HK; h++)
            for (int u = 0; u < T; u++)
                for (int d = 0; d < DH; d++) {
                    int o = (h * T + u) * DH + d;
                    rk[o] = u < P ? pkv[(h * P + u) * DH + d] : kv[((u - P) * HK + h) * DH + d];
                    rv[o] = u < P ? pvv[(h * P + u) * DH + d] : vv[((u - P) * HK + h) * DH + d];
                }
        ref_attn(B, S, T, H, HK, DH, DH, (kvview){qv, S * H * DH, H * DH, DH},
                 (kvview){rk, HK * T * DH, DH, T * DH}, (kvview){rv, HK * T * DH, DH, T * DH}, 1, P,
                 r);
        close_all("present_k", gk, rk, B * HK * T * DH);
        close_all("present_v", gv, rv, B * HK * T * DH);
        close_all("y", g, r, B * S * H * DH);
        free(qv), free(kv), free(vv), free(pkv), free(pvv), free(g), free(gk), free(gv);
    }
    tg_free(&t);
}

/* A mask is not run (refused with the reason), not ignored. */
RF_TEST(contrib_attention_mask_refused)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 2, 4));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(4, 12));
    uint32_t b = tens(&t, "b", RF_TENSOR_WEIGHT, D(12));
    uint32_t m = tens(&t, "m", RF_TENSOR_INPUT, D(1, 2));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 2, 4));
    uint32_t li = ms_layer(&t, "Attention", IN(x, w, b, m), &y, 1);
    rf_graph_set_attr_int(t.ctx, t.g, li, "num_heads", 2);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[li].measured, 0);
        RF_EXPECT(strstr(t.p->layers[li].reason, "mask") != NULL);
    }
    tg_free(&t);
}
