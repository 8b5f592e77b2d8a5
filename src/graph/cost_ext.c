/* cost_ext.c — shape and FLOP rules of the ops beyond the common set (docs/cost-model.md,
 * "Recurrent", "Einsum", "Comparisons and logic", "Quantized", "ONNX Runtime contrib ops"):
 * LSTM, GRU and RNN per direction and step; Einsum from its equation; comparisons and logic
 * with boolean outputs; QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear,
 * MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv with their integer types; ONNX
 * Runtime's fused transformer ops (com.microsoft). Counts are checked: an overflow leaves the
 * layer undefined, never wrong. Never parses files. */
#include <string.h>

#include "graph/graph_int.h"

#define RF__WHY(msg) (*why = (msg), 0)

static int rf__prod(const rf_tensor *t, uint32_t from, uint32_t to, uint64_t *out)
{
    uint64_t n = 1;
    for (uint32_t i = from; i < to && i < t->rank; i++)
        if (t->dims[i] < 0 || !rf__mul_ok(n, (uint64_t)t->dims[i], &n)) return 0;
    *out = n;
    return 1;
}

static int rf__elems_in(const rf_graph *g, const rf_layer *l, uint32_t i, uint64_t *n)
{
    const rf_tensor *t = rf__lin(g, l, i);
    return rf__shape_full(t) && rf__prod(t, 0, t->rank, n);
}

static int rf__elems_out(const rf_graph *g, const rf_layer *l, uint32_t i, uint64_t *n)
{
    const rf_tensor *t = rf__lout(g, l, i);
    return rf__shape_full(t) && rf__prod(t, 0, t->rank, n);
}

/* a·b + c·d into *out, checked */
static int rf__madd(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *out)
{
    uint64_t x, y;
    return rf__mul_ok(a, b, &x) && rf__mul_ok(c, d, &y) && rf__add_ok(x, y, out);
}

/* ---- shapes ------------------------------------------------------------------------------- */

/* A scalar integer constant at input i (or [1]); 0 when not known. */
static int rf__const1(const rf_graph *g, const rf_layer *l, uint32_t i, int64_t *v)
{
    const int64_t *p;
    if (rf__vals(g, l, i, &p) != 1) return 0;
    *v = p[0];
    return 1;
}

/* Output 0 as input i (elementwise with one data input), dtype `dt` (UNKNOWN: the input's). */
static rf_status rf__like(rf_ctx *ctx, rf_graph *g, const rf_layer *l, uint32_t i, rf_dtype dt)
{
    rf__shp s;
    if (!rf__get(g, l, i, &s)) return RF_OK;
    return rf__set(ctx, g, l, 0, &s, dt != RF_DTYPE_UNKNOWN ? dt : rf__dt(g, l, i));
}

static rf_status rf__same0(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, RF_DTYPE_UNKNOWN);
}

/* Comparisons and logic: broadcast, boolean output. */
static rf_status rf__compare(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__broadcast(g, l, l->n_inputs, &s)) return RF_OK;
    RF_TRY(rf__set(ctx, g, l, 0, &s, RF_DTYPE_BOOL));
    return rf__arith_values(ctx, g, l);
}

/* Elementwise with broadcasting, the first input's type (BiasAdd: X + bias + skip). */
static rf_status rf__bcast_same(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__broadcast(g, l, l->n_inputs, &s)) return RF_OK;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

static rf_status rf__bool1(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, RF_DTYPE_BOOL);
}

static rf_status rf__quantize(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    /* y's type: the zero point's, else uint8 (ONNX QuantizeLinear) */
    rf_dtype dt = rf__lin(g, l, 2) ? rf__dt(g, l, 2) : RF_DTYPE_U8;
    return rf__like(ctx, g, l, 0, dt);
}

static rf_status rf__dequantize(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, rf__lin(g, l, 1) ? rf__dt(g, l, 1) : RF_DTYPE_F32);
}

static rf_status rf__dynquant(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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

static rf_status rf__mm_int(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__mm_on(ctx, g, l, 0, 1, RF_DTYPE_I32);
}

static rf_status rf__qlinear_mm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    /* a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp: y has y_zp's type */
    return rf__mm_on(ctx, g, l, 0, 3, rf__lin(g, l, 7) ? rf__dt(g, l, 7) : RF_DTYPE_U8);
}

/* FusedMatMul: MatMul of op(A), op(B) with the last two axes swapped by transA / transB. */
static rf_status rf__fused_mm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
static rf_status rf__mm_nbits(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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

static rf_status rf__conv_int(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__conv_on(ctx, g, l, 0, 1, RF_DTYPE_I32);
}

static rf_status rf__qlinear_conv(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__conv_on(ctx, g, l, 0, 3, rf__lin(g, l, 7) ? rf__dt(g, l, 7) : RF_DTYPE_U8);
}

/* SkipLayerNormalization and SkipSimplifiedLayerNormalization: output and the optional
 * input+skip+bias sum as the input; mean and inverse std with the last axis 1. */
static rf_status rf__skipnorm(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
static rf_status rf__split_gelu(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__get(g, l, 0, &s) || !s.rank || s.d[s.rank - 1] % 2) return RF_OK;
    s.d[s.rank - 1] /= 2;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

/* TopK: values (the input's type) and indices (int64), the axis cut to K (input 1, or the
 * attribute k of opset 1). K past the axis is left unknown (ONNX calls it an error). */
static rf_status rf__topk(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    int64_t k = rf_layer_attr_int(l, "k", -1);
    if (!rf__get(g, l, 0, &s) || !s.rank) return RF_OK;
    if (l->n_inputs > 1 && !rf__const1(g, l, 1, &k)) return RF_OK;
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", -1), s.rank);
    if (a < 0 || a >= (int64_t)s.rank || k < 0 || k > s.d[a]) return RF_OK;
    s.d[a] = k;
    RF_TRY(rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0)));
    return rf__set(ctx, g, l, 1, &s, RF_DTYPE_I64);
}

/* ArgMax, ArgMin: the axis reduced (kept as 1 with keepdims, the default), int64 indices. */
static rf_status rf__argmax(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s, y = {0, {0}};
    if (!rf__get(g, l, 0, &s) || !s.rank) return RF_OK;
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", 0), s.rank);
    if (a < 0 || a >= (int64_t)s.rank) return RF_OK;
    int keep = rf_layer_attr_int(l, "keepdims", 1) != 0;
    for (uint32_t i = 0; i < s.rank; i++)
        if ((int64_t)i != a)
            y.d[y.rank++] = s.d[i];
        else if (keep)
            y.d[y.rank++] = 1;
    return rf__set(ctx, g, l, 0, &y, RF_DTYPE_I64);
}

/* GatherElements: the indices' shape, the data's type. */
static rf_status rf__gather_el(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp i;
    if (!rf__get(g, l, 1, &i) || !rf__lin(g, l, 0)) return RF_OK;
    return rf__set(ctx, g, l, 0, &i, rf__dt(g, l, 0));
}

/* GatherND: indices [..., q] pick slices data[b..., i_1 .. i_q, rest...]: the output is
 * indices.shape[:-1] + data.shape[batch_dims + q:]. */
static rf_status rf__gather_nd(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp d, i, y = {0, {0}};
    if (!rf__get(g, l, 0, &d) || !rf__get(g, l, 1, &i) || !i.rank) return RF_OK;
    int64_t b = rf_layer_attr_int(l, "batch_dims", 0), q = i.d[i.rank - 1];
    if (b < 0 || q < 1 || b >= (int64_t)i.rank || b + q > (int64_t)d.rank) return RF_OK;
    for (uint32_t k = 0; k + 1 < i.rank; k++) y.d[y.rank++] = i.d[k];
    for (int64_t k = b + q; k < (int64_t)d.rank && y.rank < RF_GRAPH_MAX_RANK; k++)
        y.d[y.rank++] = d.d[k];
    if (i.rank - 1 + d.rank - (uint32_t)(b + q) > RF_GRAPH_MAX_RANK) return RF_OK;
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* CastLike: input 0's shape, input 1's type. */
static rf_status rf__castlike(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, rf__dt(g, l, 1));
}

/* OneHot: the indices' shape with `depth` (input 1, a constant) inserted at `axis`, the values'
 * type (input 2). */
static rf_status rf__onehot(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s, y = {0, {0}};
    int64_t depth;
    if (!rf__get(g, l, 0, &s) || s.rank >= RF_GRAPH_MAX_RANK || !rf__const1(g, l, 1, &depth) ||
        depth < 0)
        return RF_OK;
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", -1), s.rank + 1);
    if (a < 0 || a > (int64_t)s.rank) return RF_OK;
    for (uint32_t i = 0, k = 0; i <= s.rank; i++)
        y.d[y.rank++] = (int64_t)i == a ? depth : s.d[k++];
    return rf__set(ctx, g, l, 0, &y, rf__lin(g, l, 2) ? rf__dt(g, l, 2) : RF_DTYPE_F32);
}

/* RandomNormal, RandomUniform: the `shape` attribute, float unless `dtype` says otherwise. */
static rf_status rf__random(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp y;
    int64_t d[RF_GRAPH_MAX_RANK];
    int n = rf__attr_ints(l, "shape", d, RF_GRAPH_MAX_RANK);
    if (n < 0) return RF_OK;
    y.rank = (uint32_t)n;
    memcpy(y.d, d, (size_t)n * sizeof *d);
    rf_dtype dt;
    if (!rf_dtype_from_onnx((int32_t)rf_layer_attr_int(l, "dtype", 1), &dt)) dt = RF_DTYPE_F32;
    return rf__set(ctx, g, l, 0, &y, dt);
}

/* Hann, Hamming, Blackman windows: [size], size the constant input 0; float by default. */
static rf_status rf__window_fn(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    int64_t size;
    if (!rf__const1(g, l, 0, &size) || size < 0) return RF_OK;
    rf__shp y = {1, {size}};
    rf_dtype dt;
    if (!rf_dtype_from_onnx((int32_t)rf_layer_attr_int(l, "output_datatype", 1), &dt))
        dt = RF_DTYPE_F32;
    return rf__set(ctx, g, l, 0, &y, dt);
}

/* DFT (opset 17): [..., n, 1|2] -> the axis at dft_length (input 1) or n, halved plus one when
 * onesided; the last dim 2 (real, imaginary). */
static rf_status rf__dft(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__get(g, l, 0, &s) || s.rank < 3) return RF_OK;
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", 1), s.rank), len = 0;
    if (a < 0 || a >= (int64_t)s.rank - 1) return RF_OK;
    if (!(rf__lin(g, l, 1) ? rf__const1(g, l, 1, &len) : (len = s.d[a], 1)) || len <= 0)
        return RF_OK;
    s.d[a] = rf_layer_attr_int(l, "onesided", 0) ? len / 2 + 1 : len;
    s.d[s.rank - 1] = 2;
    return rf__set(ctx, g, l, 0, &s, rf__dt(g, l, 0));
}

/* STFT's frame length: input 3, else the window's (input 2) length; 0 when not known. */
static int64_t rf__stft_len(const rf_graph *g, const rf_layer *l)
{
    int64_t len = 0;
    const rf_tensor *w = rf__lin(g, l, 2);
    if (rf__lin(g, l, 3)) return rf__const1(g, l, 3, &len) ? len : 0;
    return rf__shape_full(w) && w->rank == 1 ? w->dims[0] : 0;
}

/* STFT (opset 17): signal [batch, length, 1|2] -> [batch, frames, bins, 2], frames =
 * (length - L) / frame_step + 1, bins = L/2 + 1 when onesided (the default) else L. */
static rf_status rf__stft(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    int64_t step, len = rf__stft_len(g, l);
    if (!rf__get(g, l, 0, &s) || s.rank != 3 || !rf__const1(g, l, 1, &step) || step <= 0 ||
        len <= 0 || len > s.d[1])
        return RF_OK;
    int64_t bins = rf_layer_attr_int(l, "onesided", 1) ? len / 2 + 1 : len;
    rf__shp y = {4, {s.d[0], (s.d[1] - len) / step + 1, bins, 2}};
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* MelWeightMatrix: [dft_length / 2 + 1, num_mel_bins] from the constant inputs 1 and 0. */
static rf_status rf__mel(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    int64_t bins, len;
    if (!rf__const1(g, l, 0, &bins) || !rf__const1(g, l, 1, &len) || bins < 0 || len < 0)
        return RF_OK;
    rf__shp y = {2, {len / 2 + 1, bins}};
    rf_dtype dt;
    if (!rf_dtype_from_onnx((int32_t)rf_layer_attr_int(l, "output_datatype", 1), &dt))
        dt = RF_DTYPE_F32;
    return rf__set(ctx, g, l, 0, &y, dt);
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

static rf_status rf__ms_attention(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    int64_t hq, hk, hv;
    if (!rf__get(g, l, 0, &x) || x.rank != 3 || !rf__attn_sizes(g, l, &hq, &hk, &hv)) return RF_OK;
    x.d[2] = hv;
    return rf__set(ctx, g, l, 0, &x, rf__dt(g, l, 0));
}

/* MultiHeadAttention / GroupQueryAttention: query [B, S, D] -> [B, S, Dv], Dv from value
 * (or D); GQA's present key/value [B, kv_heads, T, head] when their inputs say. */
static rf_status rf__mha(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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

/* LSTM / GRU / RNN: X [S, B, I] (layout 0) or [B, S, I]; W [dirs, G·H, I]; hidden_size H.
 * Y [S, dirs, B, H] or [B, S, dirs, H]; Y_h (and LSTM's Y_c) [dirs, B, H] or [B, dirs, H]. */
static int rf__rnn_dims(const rf_graph *g, const rf_layer *l, int64_t *S, int64_t *B, int64_t *I,
                        int64_t *H, int64_t *dirs, int64_t *gates)
{
    const rf_tensor *x = rf__lin(g, l, 0), *w = rf__lin(g, l, 1), *r = rf__lin(g, l, 2);
    if (!rf__shape_full(x) || x->rank != 3 || !rf__shape_full(w) || w->rank != 3) return 0;
    int layout = rf_layer_attr_int(l, "layout", 0) != 0;
    *gates = !strcmp(l->op_type, "LSTM") ? 4 : !strcmp(l->op_type, "GRU") ? 3 : 1;
    *S = x->dims[layout ? 1 : 0];
    *B = x->dims[layout ? 0 : 1];
    *I = x->dims[2];
    *dirs = w->dims[0];
    *H = rf_layer_attr_int(l, "hidden_size", 0);
    if (*H <= 0 && rf__shape_full(r) && r->rank == 3) *H = r->dims[2];
    return *H > 0 && *dirs > 0 && *dirs <= 2 && w->dims[2] == *I && w->dims[1] == *gates * *H;
}

static rf_status rf__rnn(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    int64_t S, B, I, H, dirs, G;
    if (!rf__rnn_dims(g, l, &S, &B, &I, &H, &dirs, &G)) return RF_OK;
    int layout = rf_layer_attr_int(l, "layout", 0) != 0;
    rf__shp y = {4, {S, dirs, B, H}}, h = {3, {dirs, B, H}};
    if (layout) {
        y.d[0] = B, y.d[1] = S, y.d[2] = dirs;
        h.d[0] = B, h.d[1] = dirs;
    }
    rf_dtype dt = rf__dt(g, l, 0);
    RF_TRY(rf__set(ctx, g, l, 0, &y, dt));
    RF_TRY(rf__set(ctx, g, l, 1, &h, dt));
    return rf__set(ctx, g, l, 2, &h, dt);
}

/* Control flow (ONNX Loop / Scan inlined by the reader): a scan output stacked over the trips,
 * [trips] + the body's shape; a scan input's slice, its shape without axis 0. Views: no cost. */
static rf_status rf__stack_trips(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, y;
    int64_t trips = rf_layer_attr_int(l, "trips", 1);
    if (!rf__get(g, l, 0, &x) || x.rank + 1 > RF_GRAPH_MAX_RANK || trips < 0) return RF_OK;
    y.rank = x.rank + 1;
    y.d[0] = trips;
    memcpy(y.d + 1, x.d, x.rank * sizeof *x.d);
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

static rf_status rf__scan_slice(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, y;
    if (!rf__get(g, l, 0, &x) || x.rank < 1) return RF_OK;
    y.rank = x.rank - 1;
    memcpy(y.d, x.d + 1, y.rank * sizeof *x.d);
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* ---- Einsum ------------------------------------------------------------------------------- */

int rf__ein_parse(const rf_graph *g, const rf_layer *l, rf__ein *e)
{
    const rf_attr *a = rf_layer_attr(l, "equation");
    if (!a || a->type != RF_ATTR_STRING || !a->s) return 0;
    memset(e, 0, sizeof *e);
    for (int i = 0; i < 128; i++) e->size[i] = -1;
    const char *s = a->s, *arrow = strstr(s, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - s) : strlen(s);
    if (lhs_len > 256) return 0;
    int ell_rank = 0; /* dims the ellipsis stands for (the largest over the operands) */
    int k = 0, pos = 0, ell[RF__EIN_MAX] = {0};
    for (size_t i = 0; i <= lhs_len; i++) {
        char c = i < lhs_len ? s[i] : ',';
        if (c == ' ') continue;
        if (c == ',') {
            if (k >= RF__EIN_MAX || (uint32_t)k >= l->n_inputs) return 0;
            const rf_tensor *t = rf__lin(g, l, (uint32_t)k);
            if (!rf__shape_full(t)) return 0;
            int er = (int)t->rank - (pos - (ell[k] ? 1 : 0));
            if (ell[k] ? er < 0 : er != 0) return 0;
            if (ell[k] && er > ell_rank) ell_rank = er;
            k++;
            pos = 0;
            continue;
        }
        if (c == '.' && i + 2 < lhs_len && s[i + 1] == '.' && s[i + 2] == '.') {
            if (ell[k] || k >= RF__EIN_MAX) return 0;
            ell[k] = 1;
            if (pos >= RF_GRAPH_MAX_RANK) return 0;
            e->term[k][pos++] = '*';
            i += 2;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || k >= RF__EIN_MAX ||
            pos >= RF_GRAPH_MAX_RANK)
            return 0;
        e->term[k][pos++] = c;
    }
    e->n = k;
    if (k != (int)l->n_inputs || ell_rank > 9) return 0;
    /* sizes: letters from the dims, ellipsis dims right-aligned as '0'..'8' */
    for (int o = 0; o < k; o++) {
        const rf_tensor *t = rf__lin(g, l, (uint32_t)o);
        int er = (int)t->rank - (int)strlen(e->term[o]) + (ell[o] ? 1 : 0);
        char expanded[RF_GRAPH_MAX_RANK + 1];
        int n = 0;
        uint32_t d = 0;
        for (const char *p = e->term[o]; *p; p++) {
            if (*p == '*') {
                for (int j = 0; j < er; j++) {
                    if (n >= RF_GRAPH_MAX_RANK) return 0;
                    char c = (char)('0' + ell_rank - er + j);
                    int64_t v = t->dims[d++];
                    /* broadcast: 1 yields to the other size */
                    if (e->size[(int)c] < 0 || e->size[(int)c] == 1)
                        e->size[(int)c] = v;
                    else if (v != 1 && v != e->size[(int)c])
                        return 0;
                    expanded[n++] = c;
                }
                continue;
            }
            int64_t v = t->dims[d++];
            if (e->size[(int)*p] >= 0 && e->size[(int)*p] != v) return 0;
            e->size[(int)*p] = v;
            expanded[n++] = *p;
        }
        expanded[n] = '\0';
        memcpy(e->term[o], expanded, (size_t)n + 1);
    }
    /* output: explicit, or the letters seen once in alphabetical order after the ellipsis */
    int n = 0;
    if (arrow) {
        for (const char *p = arrow + 2; *p; p++) {
            if (*p == ' ') continue;
            if (*p == '.' && p[1] == '.' && p[2] == '.') {
                for (int j = 0; j < ell_rank && n < RF_GRAPH_MAX_RANK; j++)
                    e->out[n++] = (char)('0' + j);
                p += 2;
                continue;
            }
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) || e->size[(int)*p] < 0 ||
                n >= RF_GRAPH_MAX_RANK || strchr(e->out, *p))
                return 0;
            e->out[n++] = *p;
        }
    } else {
        for (int j = 0; j < ell_rank && n < RF_GRAPH_MAX_RANK; j++) e->out[n++] = (char)('0' + j);
        for (int c = 'A'; c <= 'z'; c++) {
            int seen = 0;
            for (int o = 0; o < k; o++)
                for (const char *p = e->term[o]; *p; p++) seen += *p == c;
            if (seen == 1) {
                if (n >= RF_GRAPH_MAX_RANK) return 0;
                e->out[n++] = (char)c;
            }
        }
    }
    e->out[n] = '\0';
    return 1;
}

static rf_status rf__einsum(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__ein e;
    if (!rf__ein_parse(g, l, &e)) return RF_OK;
    rf__shp y = {(uint32_t)strlen(e.out), {0}};
    for (uint32_t i = 0; i < y.rank; i++) y.d[i] = e.size[(int)e.out[i]];
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* "Einsum": P = the product of every index's size (each term of the sum); an n-operand einsum
 * does n - 1 multiplies and one add per term: n·P (2P for a matrix product, P for a one-operand
 * sum or transpose). The contraction (n >= 2) is matrix work. */
static int rf__einsum_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                            const char **why)
{
    rf__ein e;
    (void)extra;
    if (!rf__ein_parse(g, l, &e)) return RF__WHY("equation unparsed or shapes unknown");
    uint64_t p = 1;
    for (int c = 0; c < 128; c++)
        if (e.size[c] >= 0 && !rf__mul_ok(p, (uint64_t)e.size[c], &p))
            return RF__WHY("counts overflow");
    if (!rf__mul_ok(p, (uint64_t)(e.n > 1 ? e.n : 1), core)) return RF__WHY("counts overflow");
    return 1;
}

/* ---- FLOPs -------------------------------------------------------------------------------- */

/* "Recurrent": per direction, step and batch row: the input and recurrent projections
 * 2·G·H·(I + H) (matrix work), the two bias adds 2·G·H when B is given, the sum of the two
 * projections G·H, and the gates: LSTM 9·H (3 sigmoids, 2 tanh, 3 products, c's sum; + 6·H with
 * peepholes), GRU 8·H (2 sigmoids, r·(R·h), its sum, tanh, (1 - z)·n + z·h), RNN H (the
 * activation). */
static int rf__rnn_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                         const char **why)
{
    int64_t S, B, I, H, dirs, G;
    if (!rf__rnn_dims(g, l, &S, &B, &I, &H, &dirs, &G))
        return RF__WHY("X, W or hidden_size unknown");
    uint64_t rows, mm, el;
    uint64_t gates = G == 4 ? 9 + (rf__lin(g, l, 7) ? 6 : 0) : G == 3 ? 8 : 1;
    uint64_t per_el = (uint64_t)G * (uint64_t)H * (rf__lin(g, l, 3) ? 3 : 1) + gates * (uint64_t)H;
    if (!rf__mul_ok((uint64_t)S, (uint64_t)B, &rows) || !rf__mul_ok(rows, (uint64_t)dirs, &rows) ||
        !rf__madd(2 * (uint64_t)G, (uint64_t)H, 1, 0, &mm) ||
        !rf__mul_ok(mm, (uint64_t)I + (uint64_t)H, &mm) || !rf__mul_ok(mm, rows, core) ||
        !rf__mul_ok(per_el, rows, &el))
        return RF__WHY("counts overflow");
    *extra = el;
    return 1;
}

/* Quantize / dequantize: 2 per element (scale and zero point); DynamicQuantizeLinear 4 (the
 * min/max scan, then the quantisation). */
static int rf__quant_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                           const char **why)
{
    (void)extra;
    uint64_t n;
    if (!rf__elems_in(g, l, 0, &n)) return RF__WHY("input shape unknown");
    uint64_t k = !strcmp(l->op_type, "DynamicQuantizeLinear") ? 4 : 2;
    return rf__mul_ok(n, k, core) ? 1 : RF__WHY("counts overflow");
}

/* TopK: one comparison per input element against the worst kept, then ordering the K kept of
 * each slice, K·ceil(log2 K) (docs/cost-model.md, "Selection and scans"). */
static int rf__topk_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                          const char **why)
{
    (void)extra;
    const rf_tensor *x = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    uint64_t n, kept;
    if (!rf__elems_in(g, l, 0, &n) || !rf__elems_out(g, l, 0, &kept) || x->rank != y->rank)
        return RF__WHY("input or output shape unknown");
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", -1), x->rank);
    if (a < 0 || a >= (int64_t)x->rank) return RF__WHY("axis out of range");
    uint64_t k = (uint64_t)y->dims[a], lg = 0, sort;
    while (lg < 64 && (1ull << lg) < k) lg++;
    if (!rf__mul_ok(kept, lg, &sort) || !rf__add_ok(n, sort, core))
        return RF__WHY("counts overflow");
    return 1;
}

/* LRN: per element, the squares of `size` neighbours summed (2·size), then scale and bias, the
 * power and the divide (4). MeanVarianceNormalization: mean, subtract, square, variance, divide
 * (5). LpNormalization: |x| or x², the sum, the divide (3). */
static int rf__norm_ext_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                              const char **why)
{
    (void)extra;
    uint64_t n, k = 3;
    if (!rf__elems_in(g, l, 0, &n)) return RF__WHY("input shape unknown");
    if (!strcmp(l->op_type, "LRN")) {
        int64_t size = rf_layer_attr_int(l, "size", 0);
        if (size <= 0 || size > (1 << 20)) return RF__WHY("LRN size missing or out of range");
        k = 2 * (uint64_t)size + 4;
    } else if (!strcmp(l->op_type, "MeanVarianceNormalization")) {
        k = 5;
    }
    return rf__mul_ok(n, k, core) ? 1 : RF__WHY("counts overflow");
}

/* FFT work of `count` transforms of length n: 5·n·ceil(log2 n) for complex input, half that for
 * real input (FFTW's convention for its flop estimates). */
static int rf__fft(uint64_t count, uint64_t n, int complex_in, uint64_t *out)
{
    uint64_t lg = 0, per;
    while (lg < 64 && (1ull << lg) < n) lg++;
    if (!rf__mul_ok(n, lg, &per) || !rf__mul_ok(per, 5, &per)) return 0;
    if (!complex_in) per /= 2;
    return rf__mul_ok(count, per, out);
}

/* DFT: one transform per slice along the axis (docs/cost-model.md "Spectral"). */
static int rf__dft_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                         const char **why)
{
    (void)extra;
    const rf_tensor *x = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    if (!rf__shape_full(x) || !rf__shape_full(y) || x->rank < 3 || y->rank != x->rank)
        return RF__WHY("input or output shape unknown");
    int64_t a = rf__axis(rf_layer_attr_int(l, "axis", 1), x->rank);
    uint64_t count = 1, n = (uint64_t)x->dims[a];
    int64_t len;
    if (rf__lin(g, l, 1) && rf__const1(g, l, 1, &len) && len > 0) n = (uint64_t)len;
    for (uint32_t i = 0; i + 1 < x->rank; i++)
        if ((int64_t)i != a && !rf__mul_ok(count, (uint64_t)x->dims[i], &count))
            return RF__WHY("counts overflow");
    return rf__fft(count, n, x->dims[x->rank - 1] == 2, core) ? 1 : RF__WHY("counts overflow");
}

/* STFT: per frame the window product (L, when a window is given) and one transform of L. */
static int rf__stft_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                          const char **why)
{
    const rf_tensor *x = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    int64_t len = rf__stft_len(g, l);
    if (!rf__shape_full(x) || !rf__shape_full(y) || y->rank != 4 || x->rank != 3 || len <= 0)
        return RF__WHY("signal, frame length or output shape unknown");
    uint64_t frames;
    if (!rf__mul_ok((uint64_t)y->dims[0], (uint64_t)y->dims[1], &frames))
        return RF__WHY("counts overflow");
    if (!rf__fft(frames, (uint64_t)len, x->dims[2] == 2, core)) return RF__WHY("counts overflow");
    if (rf__lin(g, l, 2) && !rf__mul_ok(frames, (uint64_t)len, extra))
        return RF__WHY("counts overflow");
    return 1;
}

/* CumSum: one add per element. */
static int rf__cumsum_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                            const char **why)
{
    (void)extra;
    return rf__elems_in(g, l, 0, core) ? 1 : RF__WHY("input shape unknown");
}

/* ScatterND, ScatterElements: a copy of the data (0 FLOPs) with the updates written over it, or
 * combined with it (reduction add, mul, max, min: one per update element). */
static int rf__scatter_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                             const char **why)
{
    (void)extra;
    const rf_attr *r = rf_layer_attr(l, "reduction");
    if (!r || r->type != RF_ATTR_STRING || !strcmp(r->s, "none")) return 1;
    return rf__elems_in(g, l, 2, core) ? 1 : RF__WHY("updates shape unknown");
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

static int rf__mm_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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

static int rf__conv_int_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
static int rf__contrib_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
static int rf__ms_attention_flops(const rf_graph *g, const rf_layer *l, uint64_t *core,
                                  uint64_t *extra, const char **why)
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
static int rf__mha_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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

/* ---- the table ---------------------------------------------------------------------------- */

#define MS "com.microsoft"
static const rf__ext_op rf__ext_ops[] = {
    {"LSTM", NULL, RF_OP_MATMUL, rf__rnn, rf__rnn_flops},
    {"GRU", NULL, RF_OP_MATMUL, rf__rnn, rf__rnn_flops},
    {"RNN", NULL, RF_OP_MATMUL, rf__rnn, rf__rnn_flops},
    {"Einsum", NULL, RF_OP_MATMUL, rf__einsum, rf__einsum_flops},
    {"Equal", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"Greater", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"GreaterOrEqual", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"Less", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"LessOrEqual", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"And", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"Or", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"Xor", NULL, RF_OP_ELEMENTWISE, rf__compare, NULL},
    {"Not", NULL, RF_OP_ACTIVATION, rf__bool1, NULL},
    {"IsNaN", NULL, RF_OP_ACTIVATION, rf__bool1, NULL},
    {"IsInf", NULL, RF_OP_ACTIVATION, rf__bool1, NULL},
    {"TopK", NULL, RF_OP_REDUCE, rf__topk, rf__topk_flops},
    {"ArgMax", NULL, RF_OP_REDUCE, rf__argmax, NULL},
    {"ArgMin", NULL, RF_OP_REDUCE, rf__argmax, NULL},
    {"GatherElements", NULL, RF_OP_GATHER, rf__gather_el, NULL},
    {"GatherND", NULL, RF_OP_GATHER, rf__gather_nd, NULL},
    {"LRN", NULL, RF_OP_LAYERNORM, rf__same0, rf__norm_ext_flops},
    {"MeanVarianceNormalization", NULL, RF_OP_LAYERNORM, rf__same0, rf__norm_ext_flops},
    {"LpNormalization", NULL, RF_OP_LAYERNORM, rf__same0, rf__norm_ext_flops},
    {"CastLike", NULL, RF_OP_DATA_MOVEMENT, rf__castlike, NULL},
    {"Trilu", NULL, RF_OP_DATA_MOVEMENT, rf__same0, NULL},
    {"OneHot", NULL, RF_OP_DATA_MOVEMENT, rf__onehot, NULL},
    {"EyeLike", NULL, RF_OP_CONSTANT, rf__same0, NULL},
    {"RandomNormalLike", NULL, RF_OP_CONSTANT, rf__same0, NULL},
    {"RandomUniformLike", NULL, RF_OP_CONSTANT, rf__same0, NULL},
    {"Bernoulli", NULL, RF_OP_CONSTANT, rf__same0, NULL},
    {"RandomNormal", NULL, RF_OP_CONSTANT, rf__random, NULL},
    {"RandomUniform", NULL, RF_OP_CONSTANT, rf__random, NULL},
    {"HannWindow", NULL, RF_OP_CONSTANT, rf__window_fn, NULL},
    {"HammingWindow", NULL, RF_OP_CONSTANT, rf__window_fn, NULL},
    {"BlackmanWindow", NULL, RF_OP_CONSTANT, rf__window_fn, NULL},
    {"CumSum", NULL, RF_OP_ELEMENTWISE, rf__same0, rf__cumsum_flops},
    {"ScatterND", NULL, RF_OP_DATA_MOVEMENT, rf__same0, rf__scatter_flops},
    {"ScatterElements", NULL, RF_OP_DATA_MOVEMENT, rf__same0, rf__scatter_flops},
    {"Scatter", NULL, RF_OP_DATA_MOVEMENT, rf__same0, rf__scatter_flops}, /* opset 9-10 */
    {"ReverseSequence", NULL, RF_OP_DATA_MOVEMENT, rf__same0, NULL},
    {"BitShift", NULL, RF_OP_ELEMENTWISE, rf__bcast_same, NULL},
    {"DFT", NULL, RF_OP_REDUCE, rf__dft, rf__dft_flops}, /* a whole axis per output */
    {"STFT", NULL, RF_OP_REDUCE, rf__stft, rf__stft_flops},
    {"MelWeightMatrix", NULL, RF_OP_CONSTANT, rf__mel, NULL},
    {"QuantizeLinear", NULL, RF_OP_ACTIVATION, rf__quantize, rf__quant_flops},
    {"DequantizeLinear", NULL, RF_OP_ACTIVATION, rf__dequantize, rf__quant_flops},
    {"DynamicQuantizeLinear", NULL, RF_OP_ACTIVATION, rf__dynquant, rf__quant_flops},
    {"MatMulInteger", NULL, RF_OP_MATMUL, rf__mm_int, rf__mm_flops},
    {"QLinearMatMul", NULL, RF_OP_MATMUL, rf__qlinear_mm, rf__mm_flops},
    {"ConvInteger", NULL, RF_OP_CONV, rf__conv_int, rf__conv_int_flops},
    {"QLinearConv", NULL, RF_OP_CONV, rf__qlinear_conv, rf__conv_int_flops},
    {"FusedMatMul", MS, RF_OP_MATMUL, rf__fused_mm, rf__mm_flops},
    {"MatMulNBits", MS, RF_OP_MATMUL, rf__mm_nbits, rf__mm_flops},
    {"Attention", MS, RF_OP_ATTENTION, rf__ms_attention, rf__ms_attention_flops},
    {"MultiHeadAttention", MS, RF_OP_ATTENTION, rf__mha, rf__mha_flops},
    {"GroupQueryAttention", MS, RF_OP_ATTENTION, rf__mha, rf__mha_flops},
    {"SkipLayerNormalization", MS, RF_OP_LAYERNORM, rf__skipnorm, rf__contrib_flops},
    {"SkipSimplifiedLayerNormalization", MS, RF_OP_RMSNORM, rf__skipnorm, rf__contrib_flops},
    {"SimplifiedLayerNormalization", NULL, RF_OP_RMSNORM, rf__same0, NULL},
    {"BiasGelu", MS, RF_OP_ACTIVATION, rf__same0, rf__contrib_flops},
    {"FastGelu", MS, RF_OP_ACTIVATION, rf__same0, rf__contrib_flops},
    {"Gelu", MS, RF_OP_ACTIVATION, rf__same0, rf__contrib_flops},
    {"QuickGelu", MS, RF_OP_ACTIVATION, rf__same0, rf__contrib_flops},
    {"BiasSplitGelu", MS, RF_OP_ACTIVATION, rf__split_gelu, rf__contrib_flops},
    {"BiasAdd", MS, RF_OP_ELEMENTWISE, rf__bcast_same, NULL},
    {"RotaryEmbedding", MS, RF_OP_ROPE, rf__same0, NULL},
    {"rf_StackTrips", NULL, RF_OP_METADATA, rf__stack_trips, NULL},
    {"rf_ScanSlice", NULL, RF_OP_METADATA, rf__scan_slice, NULL},
};
#undef MS

static int rf__domain_is(const char *have, const char *want)
{
    if (!want) return 1;
    return strcmp(have, want) == 0;
}

const rf__ext_op *rf__ext_find(const rf_layer *l)
{
    if (l->kind == RF_OP_UNKNOWN && l->domain[0]) return NULL; /* a domain nobody knows */
    for (size_t i = 0; i < sizeof rf__ext_ops / sizeof *rf__ext_ops; i++) {
        const rf__ext_op *e = &rf__ext_ops[i];
        if (strcmp(l->op_type, e->op) == 0 && rf__domain_is(l->domain, e->domain)) return e;
    }
    return NULL;
}

rf_op_kind rf__ext_kind(const char *op_type, const char *domain)
{
    for (size_t i = 0; i < sizeof rf__ext_ops / sizeof *rf__ext_ops; i++) {
        const rf__ext_op *e = &rf__ext_ops[i];
        if (strcmp(op_type, e->op) == 0 && rf__domain_is(domain ? domain : "", e->domain))
            return e->kind;
    }
    return RF_OP_UNKNOWN;
}
