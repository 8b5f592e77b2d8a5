/* rules_select.c — shape and FLOP rules of comparisons and logic (boolean outputs), selection
 * (TopK, ArgMax/ArgMin, the gathers and scatters by element, CumSum), generators and masks
 * (OneHot, CastLike, the random and window generators), the spectral ops (DFT, STFT,
 * MelWeightMatrix) and LRN, MeanVarianceNormalization, LpNormalization (docs/cost-model.md, one
 * section each). The op registry (op_table.h) names them. Counts are checked: an overflow leaves
 * the layer undefined. */
#include <string.h>

#include "graph/graph_int.h"

/* Comparisons and logic: broadcast, boolean output. */
rf_status rf__shape_compare(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp s;
    if (!rf__broadcast(g, l, l->n_inputs, &s)) return RF_OK;
    RF_TRY(rf__set(ctx, g, l, 0, &s, RF_DTYPE_BOOL));
    return rf__arith_values(ctx, g, l);
}

rf_status rf__shape_bool1(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    RF_TRY(rf__like(ctx, g, l, 0, RF_DTYPE_BOOL));
    const int64_t *v; /* Not of known values (an If's condition built from a shape test) */
    int n = rf__vals(g, l, 0, &v);
    if (n < 1 || n > RF_GRAPH_MAX_VALUES || strcmp(l->op_type, "Not") != 0 || !l->n_outputs)
        return RF_OK;
    int64_t out[RF_GRAPH_MAX_VALUES];
    for (int i = 0; i < n; i++) out[i] = v[i] == 0;
    return rf_graph_set_values(ctx, g, l->outputs[0], out, (uint32_t)n);
}

/* TopK: values (the input's type) and indices (int64), the axis cut to K (input 1, or the
 * attribute k of opset 1). K past the axis is left unknown (ONNX calls it an error). */
rf_status rf__shape_topk(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_argmax(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_gather_el(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp i;
    if (!rf__get(g, l, 1, &i) || !rf__lin(g, l, 0)) return RF_OK;
    return rf__set(ctx, g, l, 0, &i, rf__dt(g, l, 0));
}

/* GatherND: indices [..., q] pick slices data[b..., i_1 .. i_q, rest...]: the output is
 * indices.shape[:-1] + data.shape[batch_dims + q:]. */
rf_status rf__shape_gather_nd(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_castlike(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    return rf__like(ctx, g, l, 0, rf__dt(g, l, 1));
}

/* OneHot: the indices' shape with `depth` (input 1, a constant) inserted at `axis`, the values'
 * type (input 2). */
rf_status rf__shape_onehot(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_random(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_window_fn(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_dft(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_stft(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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
rf_status rf__shape_mel(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
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

/* TopK: one comparison per input element against the worst kept, then ordering the K kept of
 * each slice, K·ceil(log2 K) (docs/cost-model.md, "Selection and scans"). */
int rf__cost_topk(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
int rf__cost_norm_ext(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
int rf__cost_dft(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
int rf__cost_stft(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
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
int rf__cost_cumsum(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    (void)extra;
    return rf__elems_in(g, l, 0, core) ? 1 : RF__WHY("input shape unknown");
}

/* ScatterND, ScatterElements: a copy of the data (0 FLOPs) with the updates written over it, or
 * combined with it (reduction add, mul, max, min: one per update element). */
int rf__cost_scatter(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                     const char **why)
{
    (void)extra;
    const rf_attr *r = rf_layer_attr(l, "reduction");
    if (!r || r->type != RF_ATTR_STRING || !strcmp(r->s, "none")) return 1;
    return rf__elems_in(g, l, 2, core) ? 1 : RF__WHY("updates shape unknown");
}
