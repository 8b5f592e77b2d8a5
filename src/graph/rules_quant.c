/* rules_quant.c — shape and FLOP rules of the quantized ops and ONNX Runtime's contrib ops
 * (docs/cost-model.md, "Quantized" and "ONNX Runtime contrib ops"): QuantizeLinear,
 * DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, QLinearMatMul, ConvInteger,
 * QLinearConv with their integer types; FusedMatMul, MatMulNBits, the skip normalisations, the
 * fused GELUs, BiasAdd, Attention, MultiHeadAttention, GroupQueryAttention. The op registry
 * (op_table.h) names them. Counts are checked: an overflow leaves the layer undefined. */
#include <string.h>

#include "graph/graph_int.h"

rf_status rf__shape_quantize(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    /* y's type: the zero point's, else uint8 (ONNX QuantizeLinear) */
    rf_dtype dt = rf__lin(g, l, 2) ? rf__dt(g, l, 2) : RF_DTYPE_U8;
    return rf__like(ctx, g, l, 0, dt);
}

rf_status rf__shape_dequantize(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, rf__lin(g, l, 1) ? rf__dt(g, l, 1) : RF_DTYPE_F32);
}

rf_status rf__shape_dynquant(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s, scalar = {0, {0}};
    if (!rf__get(g, l, 0, &s)) return RF_OK;
    RF_TRY(rf__set(ctx, g, l, 0, &s, RF_DTYPE_U8));
    RF_TRY(rf__set(ctx, g, l, 1, &scalar, RF_DTYPE_F32));
    return rf__set(ctx, g, l, 2, &scalar, RF_DTYPE_U8);
}

/* MatMul-like on inputs a and b, output type dt (UNKNOWN: a's). */
static rf_status rf__mm_on(rf_ctx *ctx, rf_graph *g, const rf_layer *l, uint32_t a, uint32_t b,
                           rf_dtype dt)
{
    rf__shp x, w, y;
    if (!rf__get(g, l, a, &x) || !rf__get(g, l, b, &w) || !rf__matmul_shape(&x, &w, &y))
        return RF_OK;
    return rf__set(ctx, g, l, 0, &y, dt != RF_DTYPE_UNKNOWN ? dt : rf__dt(g, l, a));
}

rf_status rf__shape_mm_int(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__mm_on(ctx, g, l, 0, 1, RF_DTYPE_I32);
}

rf_status rf__shape_qlinear_mm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    /* a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp: y has y_zp's type */
    return rf__mm_on(ctx, g, l, 0, 3, rf__lin(g, l, 7) ? rf__dt(g, l, 7) : RF_DTYPE_U8);
}

/* FusedMatMul: MatMul of op(A), op(B) with the last two axes swapped by transA / transB. */
rf_status rf__shape_fused_mm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, w, y;
    if (!rf__get(g, l, 0, &x) || !rf__get(g, l, 1, &w) || x.rank < 2 || w.rank < 2) return RF_OK;
    int64_t t;
    if (rf_layer_attr_int(l, "transA", 0))
        t = x.d[x.rank - 1], x.d[x.rank - 1] = x.d[x.rank - 2], x.d[x.rank - 2] = t;
    if (rf_layer_attr_int(l, "transB", 0))
        t = w.d[w.rank - 1], w.d[w.rank - 1] = w.d[w.rank - 2], w.d[w.rank - 2] = t;
    if (!rf__matmul_shape(&x, &w, &y)) return RF_OK;
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* MatMulNBits: A [..., K] x packed B (attributes K, N) -> [..., N]. */
rf_status rf__shape_mm_nbits(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    int64_t K = rf_layer_attr_int(l, "K", 0), N = rf_layer_attr_int(l, "N", 0);
    if (!rf__get(g, l, 0, &x) || !x.rank || K <= 0 || N <= 0 || x.d[x.rank - 1] != K) return RF_OK;
    x.d[x.rank - 1] = N;
    return rf__set(ctx, g, l, 0, &x, rf__dt(g, l, 0));
}

/* Conv-like on x (input xi) and w (input wi), output type dt. */
static rf_status rf__conv_on(rf_ctx *ctx, rf_graph *g, const rf_layer *l, uint32_t xi, uint32_t wi,
                             rf_dtype dt)
{
    rf__shp x, w, y;
    if (!rf__get(g, l, xi, &x) || !rf__get(g, l, wi, &w) || x.rank < 3 || w.rank != x.rank)
        return RF_OK;
    int r = rf__window(l, &x, w.d + 2, w.d[0], &y);
    if (r < 0) return rf__shape_overflow(ctx, l, "the output size (pads, strides, dilations)");
    return r ? rf__set(ctx, g, l, 0, &y, dt) : RF_OK;
}

rf_status rf__shape_conv_int(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__conv_on(ctx, g, l, 0, 1, RF_DTYPE_I32);
}

rf_status rf__shape_qlinear_conv(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__conv_on(ctx, g, l, 0, 3, rf__lin(g, l, 7) ? rf__dt(g, l, 7) : RF_DTYPE_U8);
}

/* SkipLayerNormalization and SkipSimplifiedLayerNormalization: output and the optional
 * input+skip+bias sum as the input; mean and inverse std with the last axis 1. */
rf_status rf__shape_skipnorm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s, r;
    if (!rf__get(g, l, 0, &s) || !s.rank) return RF_OK;
    r = s;
    r.d[r.rank - 1] = 1;
    int simplified = strstr(l->op_type, "Simplified") != NULL;
    for (uint32_t o = 0; o < l->n_outputs; o++) {
        int sum = o == (simplified ? 2u : 3u) || o == 0;
        RF_TRY(rf__set(ctx, g, l, o, sum ? &s : &r, sum ? rf__dt(g, l, 0) : RF_DTYPE_F32));
    }
    return RF_OK;
}

/* BiasSplitGelu: [N, S, 2D] (+ bias [2D]) -> [N, S, D]. */
rf_status rf__shape_split_gelu(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__get(g, l, 0, &s) || !s.rank || s.d[s.rank - 1] % 2) return RF_OK;
    s.d[s.rank - 1] /= 2;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

/* Elementwise with broadcasting, the first input's type (BiasAdd: X + bias + skip). */
rf_status rf__shape_bcast_same(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__broadcast(g, l, l->n_inputs, &s)) return RF_OK;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

/* com.microsoft Attention: input [B, S, H_in], weights [H_in, Hq + Hk + Hv] -> [B, S, Hv]. */
static int rf__attn_sizes(const rf_graph *g, const rf_layer *l, int64_t *hq, int64_t *hk,
                          int64_t *hv)
{
    const rf_tensor *w = rf__lin(g, l, 1);
    int64_t qkv[3];
    if (!rf__shape_full(w) || w->rank != 2) return 0;
    if (rf__attr_ints(l, "qkv_hidden_sizes", qkv, 3) == 3) {
        *hq = qkv[0], *hk = qkv[1], *hv = qkv[2];
    } else {
        if (w->dims[1] % 3) return 0;
        *hq = *hk = *hv = w->dims[1] / 3;
    }
    return *hq > 0 && *hk > 0 && *hv > 0;
}

rf_status rf__shape_ms_attention(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    int64_t hq, hk, hv;
    if (!rf__get(g, l, 0, &x) || x.rank != 3 || !rf__attn_sizes(g, l, &hq, &hk, &hv)) return RF_OK;
    x.d[2] = hv;
    return rf__set(ctx, g, l, 0, &x, rf__dt(g, l, 0));
}

/* MultiHeadAttention / GroupQueryAttention: query [B, S, D] -> [B, S, Dv], Dv from value
 * (or D); GQA's present key/value [B, kv_heads, T, head] when their inputs say. */
rf_status rf__shape_mha(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp q, v;
    if (!rf__get(g, l, 0, &q) || q.rank != 3) return RF_OK;
    int gqa = strcmp(l->op_type, "GroupQueryAttention") == 0;
    int64_t nh = rf_layer_attr_int(l, "num_heads", 0);
    int64_t kvh = gqa ? rf_layer_attr_int(l, "kv_num_heads", 0) : nh;
    if (nh <= 0 || kvh <= 0) return RF_OK;
    rf__shp y = q;
    if (gqa && !rf__lin(g, l, 1)) { /* packed QKV: [B, S, (nh + 2 kvh) head] */
        int64_t per = nh + 2 * kvh;
        if (q.d[2] % per) return RF_OK;
        y.d[2] = q.d[2] / per * nh;
    } else if (!gqa && rf__get(g, l, 2, &v) && (v.rank == 3 || v.rank == 4)) {
        y.d[2] = v.rank == 3 ? v.d[2] : v.d[1] * v.d[3];
    }
    RF_TRY(rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0)));
    if (!gqa) return RF_OK;
    rf__shp pk;
    int64_t head = y.d[2] / nh, total = q.d[1];
    if (rf__get(g, l, 3, &pk) && pk.rank == 4) total = pk.d[2] + q.d[1];
    const int64_t *tv;
    if (rf__vals(g, l, 6, &tv) == 1 && tv[0] > 0) total = tv[0]; /* total_sequence_length */
    rf__shp pres = {4, {q.d[0], kvh, total, head}};
    RF_TRY(rf__set(ctx, g, l, 1, &pres, rf__dt(g, l, 0)));
    return rf__set(ctx, g, l, 2, &pres, rf__dt(g, l, 0));
}

/* Quantize / dequantize: 2 per element (scale and zero point); DynamicQuantizeLinear 4 (the
 * min/max scan, then the quantisation). */
int rf__cost_quant(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                   const char **why)
{
    (void)extra;
    uint64_t n;
    if (!rf__elems_in(g, l, 0, &n)) return RF__WHY("input shape unknown");
    uint64_t k = !strcmp(l->op_type, "DynamicQuantizeLinear") ? 4 : 2;
    return rf__mul_ok(n, k, core) ? 1 : RF__WHY("counts overflow");
}

/* 2·M·K·N of a matmul on inputs a and b (batch dims from the output) */
static int rf__mm_count(const rf_graph *g, const rf_layer *l, uint32_t a, uint64_t k_dim,
                        uint64_t *core, const char **why)
{
    uint64_t outs;
    (void)a;
    if (!rf__elems_out(g, l, 0, &outs)) return RF__WHY("output shape unknown");
    if (!rf__mul_ok(outs, k_dim, core) || !rf__mul_ok(*core, 2, core))
        return RF__WHY("counts overflow");
    return 1;
}

int rf__cost_mm(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                const char **why)
{
    (void)extra;
    /* MatMulInteger (A, B), QLinearMatMul (A at 0, B at 3), FusedMatMul (transA),
     * MatMulNBits (K): the inner dimension */
    const rf_tensor *a = rf__lin(g, l, 0);
    if (!rf__shape_full(a) || !a->rank) return RF__WHY("A's shape unknown");
    uint64_t k = (uint64_t)a->dims[a->rank - 1];
    if (!strcmp(l->op_type, "FusedMatMul") && rf_layer_attr_int(l, "transA", 0) && a->rank >= 2)
        k = (uint64_t)a->dims[a->rank - 2];
    if (!strcmp(l->op_type, "MatMulNBits")) {
        k = (uint64_t)rf_layer_attr_int(l, "K", 0);
        uint64_t outs;
        if (rf__lin(g, l, 5) && rf__elems_out(g, l, 0, &outs)) *extra = outs; /* bias */
    }
    if (!rf__mm_count(g, l, 0, k, core, why)) return 0;
    return 1;
}

int rf__cost_conv_int(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                      const char **why)
{
    /* ConvInteger (w at 1), QLinearConv (w at 3, bias at 8): 2·outputs·(Cin/g)·prod(k) */
    int ql = !strcmp(l->op_type, "QLinearConv");
    const rf_tensor *w = rf__lin(g, l, ql ? 3 : 1);
    uint64_t outs, wel;
    if (!rf__shape_full(w) || w->rank < 3 || !rf__elems_out(g, l, 0, &outs))
        return RF__WHY("weight or output shape unknown");
    if (!rf__prod(w, 1, w->rank, &wel) || !rf__mul_ok(outs, wel, core) ||
        !rf__mul_ok(*core, 2, core))
        return RF__WHY("counts overflow");
    *extra = ql && rf__lin(g, l, 8) ? outs : 0;
    return 1;
}

/* Per-element counts of the contrib elementwise ops, on the output's elements: Gelu, FastGelu
 * and QuickGelu 1 (+1 with a bias input), BiasGelu 2, BiasSplitGelu 4 (both halves' bias, gelu,
 * product), SkipLayerNormalization 8 (+1 with a bias; the skip add and LayerNormalization's 7),
 * SkipSimplifiedLayerNormalization 5 (+1). */
int rf__cost_contrib(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                     const char **why)
{
    (void)extra;
    const char *t = l->op_type;
    uint64_t n, k = 1;
    if (!rf__elems_out(g, l, 0, &n)) return RF__WHY("output shape unknown");
    if (!strcmp(t, "BiasGelu"))
        k = 2;
    else if (!strcmp(t, "BiasSplitGelu"))
        k = 4;
    else if (!strcmp(t, "SkipLayerNormalization"))
        k = 8 + (rf__lin(g, l, 4) != NULL);
    else if (!strcmp(t, "SkipSimplifiedLayerNormalization"))
        k = 5 + (rf__lin(g, l, 3) != NULL);
    else
        k = 1 + (rf__lin(g, l, 1) != NULL); /* Gelu, FastGelu (bias), QuickGelu */
    return rf__mul_ok(n, k, core) ? 1 : RF__WHY("counts overflow");
}

/* com.microsoft Attention: the QKV projection 2·B·S·H_in·(Hq + Hk + Hv) + its bias, then per head
 * Q·K^T 2·B·S·T·Hq, softmax 5·B·heads·S·T, A·V 2·B·S·T·Hv (T = S, plus a past's length). */
int rf__cost_ms_attention(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                          const char **why)
{
    const rf_tensor *x = rf__lin(g, l, 0), *past = rf__lin(g, l, 4);
    int64_t hq, hk, hv, nh = rf_layer_attr_int(l, "num_heads", 0);
    if (!rf__shape_full(x) || x->rank != 3 || nh <= 0 || !rf__attn_sizes(g, l, &hq, &hk, &hv))
        return RF__WHY("input, weights or num_heads unknown");
    uint64_t B = (uint64_t)x->dims[0], S = (uint64_t)x->dims[1], Hin = (uint64_t)x->dims[2];
    uint64_t T = S;
    if (rf__shape_full(past) && past->rank == 5) T += (uint64_t)past->dims[3];
    uint64_t bs, proj, qk, av, sm, bias = 0;
    if (!rf__mul_ok(B, S, &bs) || !rf__mul_ok(bs, Hin, &proj) ||
        !rf__mul_ok(proj, 2 * (uint64_t)(hq + hk + hv), &proj) || !rf__mul_ok(bs, T, &qk) ||
        !rf__mul_ok(qk, 2 * (uint64_t)hq, &av) || !rf__mul_ok(bs, T, &sm) ||
        !rf__mul_ok(sm, 5 * (uint64_t)nh, &sm) || !rf__mul_ok(qk, 2 * (uint64_t)hv, &qk))
        return RF__WHY("counts overflow");
    if (rf__lin(g, l, 2) && !rf__mul_ok(bs, (uint64_t)(hq + hk + hv), &bias))
        return RF__WHY("counts overflow");
    *extra = bias + sm;
    *core = proj + qk + av;
    return 1;
}

/* MultiHeadAttention / GroupQueryAttention: Q·K^T 2·B·S·T·D, softmax 5·B·heads·S·T, A·V
 * 2·B·S·T·Dv (per head D/heads, summed over heads), T the keys' length (past + new for GQA);
 * MHA's bias adds B·S·D + B·T·(D + Dv) when given. */
int rf__cost_mha(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                 const char **why)
{
    const rf_tensor *q = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    int gqa = strcmp(l->op_type, "GroupQueryAttention") == 0;
    int64_t nh = rf_layer_attr_int(l, "num_heads", 0);
    if (!rf__shape_full(q) || q->rank != 3 || !rf__shape_full(y) || y->rank != 3 || nh <= 0)
        return RF__WHY("query or output shape unknown");
    uint64_t B = (uint64_t)q->dims[0], S = (uint64_t)q->dims[1], Dv = (uint64_t)y->dims[2];
    uint64_t D = Dv, T = S;
    if (gqa) {
        const rf_tensor *pk = rf__lout(g, l, 1);
        if (rf__shape_full(pk) && pk->rank == 4) T = (uint64_t)pk->dims[2];
    } else {
        const rf_tensor *k = rf__lin(g, l, 1);
        if (rf__shape_full(k) && k->rank == 3) T = (uint64_t)k->dims[1];
        if (rf__shape_full(k) && k->rank == 4) T = (uint64_t)k->dims[2];
        D = (uint64_t)q->dims[2];
    }
    uint64_t bst, qk, av, sm;
    if (!rf__mul_ok(B, S, &bst) || !rf__mul_ok(bst, T, &bst) || !rf__mul_ok(bst, 2 * D, &qk) ||
        !rf__mul_ok(bst, 2 * Dv, &av) || !rf__mul_ok(bst, 5 * (uint64_t)nh, &sm))
        return RF__WHY("counts overflow");
    uint64_t bias = 0;
    if (!gqa && rf__lin(g, l, 3) && !rf__madd(B * S, D, B * T, D + Dv, &bias))
        return RF__WHY("counts overflow");
    *extra = sm + bias;
    *core = qk + av;
    return 1;
}
