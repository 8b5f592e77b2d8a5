/* op_contrib.c — ONNX Runtime's contrib ops (domain com.microsoft) in the executor, in plain C
 * and OpenBLAS, as docs/ContribOperators.md of ONNX Runtime defines them: the elementwise ones
 * with a bias along the last axis (BiasAdd, BiasSplitGelu in C; BiasGelu, FastGelu, QuickGelu
 * as oneDNN binary add + GELU/swish post-op or eltwise),
 * SkipLayerNormalization and SkipSimplifiedLayerNormalization (x + skip (+ bias), then layer or
 * RMS norm, rf__llm_norm), FusedMatMul (alpha, transA, transB, batched; sgemm per batch entry),
 * MatMulNBits (4-bit blocks dequantised to F32 each pass, then one sgemm), RotaryEmbedding with
 * cos/sin caches, and the attention ops (op_attn.c). */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/llm_exec_int.h"

enum { CB_BIASADD, CB_BIASGELU, CB_FASTGELU, CB_QUICKGELU, CB_BIASSPLITGELU };

static float gelu_erf(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}

/* BiasAdd (y = x + bias + skip) and BiasSplitGelu (x rows x 2H, y rows x H = inner); bias
 * ptr[1] along the last axis, skip ptr[2]. */
static void elt(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *b = c->st[0][0] ? s->ptr[1] : NULL;
    const float *k = c->op == CB_BIASADD ? s->ptr[2] : NULL;
    float *y = s->ptr[s->n_in];
    int64_t n = c->inner;
    for (int64_t r = 0; r < c->outer; r++) {
        float *yr = y + r * n;
        if (c->op == CB_BIASSPLITGELU) {
            const float *xr = x + r * 2 * n;
            for (int64_t i = 0; i < n; i++) yr[i] = (xr[i] + b[i]) * gelu_erf(xr[i + n] + b[i + n]);
            continue;
        }
        const float *xr = x + r * n;
        for (int64_t i = 0; i < n; i++) yr[i] = xr[i] + b[i] + k[r * n + i]; /* BiasAdd */
    }
}

/* Skip(Simplified)LayerNormalization: io = x, skip, gamma, [beta], [bias], then y and, when
 * given, mean, inv_std, sum (st[1][0..3]: the io index of each output, 0 when absent);
 * st[0][0..2]: io index of beta, bias (0 when absent), skip's element count (it repeats). */
static void skipnorm(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *k = s->ptr[1], *g = s->ptr[2];
    const float *be = c->st[0][0] ? s->ptr[c->st[0][0]] : NULL;
    const float *bi = c->st[0][1] ? s->ptr[c->st[0][1]] : NULL;
    float *y = s->ptr[c->st[1][0]];
    float *mo = c->st[1][1] ? s->ptr[c->st[1][1]] : NULL;
    float *io = c->st[1][2] ? s->ptr[c->st[1][2]] : NULL;
    float *so = c->st[1][3] ? s->ptr[c->st[1][3]] : NULL;
    int64_t n = c->inner, nk = c->st[0][2];
    int ln = c->op != 0;
    for (int64_t r = 0; r < c->outer; r++) {
        const float *xr = x + r * n, *kr = k + (r * n) % nk;
        float *yr = y + r * n;
        for (int64_t i = 0; i < n; i++) yr[i] = xr[i] + kr[i] + (bi ? bi[i] : 0.0f);
        if (so) memcpy(so + r * n, yr, (size_t)n * sizeof *yr);
        float mean = 0, ss = 0;
        if (ln) {
            for (int64_t i = 0; i < n; i++) mean += yr[i];
            mean /= (float)n;
        }
        for (int64_t i = 0; i < n; i++) ss += (yr[i] - mean) * (yr[i] - mean);
        float inv = 1.0f / sqrtf(ss / (float)n + c->value);
        for (int64_t i = 0; i < n; i++) yr[i] = (yr[i] - mean) * inv * g[i] + (be ? be[i] : 0.0f);
        if (mo) mo[r] = mean;
        if (io) io[r] = inv;
    }
}

/* C[b] = alpha op(A[b]) op(B[b]); dims = Bt, M, N, K; st[0] = transA, transB, A's and B's batch
 * strides (0: broadcast). */
static void fused_mm(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    int64_t M = c->dims[1], N = c->dims[2], K = c->dims[3];
    int ta = c->st[0][0] != 0, tb = c->st[0][1] != 0;
    for (int64_t b = 0; b < c->dims[0]; b++)
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    (int)M, (int)N, (int)K, c->value, s->ptr[0] + b * c->st[0][2],
                    ta ? (int)M : (int)K, s->ptr[1] + b * c->st[0][3], tb ? (int)K : (int)N, 0.0f,
                    s->ptr[2] + b * M * N, (int)N);
}

/* MatMulNBits, 4 bits: io = A [M, K], B [N, nb, bs/2] (bytes held as floats), scales [N, nb],
 * [zero points: packed nibbles [N, ceil(nb/2)] (st[0][1] = 1) or floats [N, nb] (2)], [bias
 * [N]] (st[0][2] = its io index), then W scratch [N, K] and Y [M, N]. dims = M, N, K, bs, nb. */
static void nbits(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    int64_t M = c->dims[0], N = c->dims[1], K = c->dims[2], bs = c->dims[3], nb = c->dims[4];
    const float *A = s->ptr[0], *B = s->ptr[1], *sc = s->ptr[2];
    const float *zp = c->st[0][1] ? s->ptr[3] : NULL;
    const float *bias = c->st[0][2] ? s->ptr[c->st[0][2]] : NULL;
    float *W = s->ptr[s->n_in], *Y = s->ptr[s->n_in + 1];
    int64_t zrow = (nb + 1) / 2;
    for (int64_t n = 0; n < N; n++)
        for (int64_t j = 0; j < nb; j++) {
            float z = 8.0f;
            if (c->st[0][1] == 1) {
                unsigned zb = (unsigned)zp[n * zrow + j / 2] & 255u;
                z = (float)(j % 2 ? zb >> 4 : zb & 15u);
            } else if (c->st[0][1] == 2) {
                z = zp[n * nb + j];
            }
            float sj = sc[n * nb + j];
            const float *blk = B + (n * nb + j) * (bs / 2);
            float *w = W + n * K + j * bs;
            int64_t m = K - j * bs < bs ? K - j * bs : bs;
            for (int64_t i = 0; i < m; i++) {
                unsigned byte = (unsigned)blk[i / 2] & 255u;
                w[i] = ((float)(i % 2 ? byte >> 4 : byte & 15u) - z) * sj;
            }
        }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f, A, (int)K, W,
                (int)K, 0.0f, Y, (int)N);
    if (bias)
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) Y[m * N + n] += bias[n];
}

/* RotaryEmbedding with caches: x as [B, S, H, D] through strides st[0][0..2] (b, s, h; d
 * contiguous), y contiguous in x's order (st[1][0..2]); position ids [B, S] (st[2][0] = 1) or one
 * offset (0); cos/sin [P, R/2]. dims = B, S, H, D, R (rotary dims), P; op = interleaved. */
static void rope_cache(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *pid = s->ptr[1], *cs = s->ptr[2], *sn = s->ptr[3];
    float *y = s->ptr[4];
    int64_t B = c->dims[0], S = c->dims[1], H = c->dims[2], D = c->dims[3], R = c->dims[4];
    int64_t P = c->dims[5], h2 = R / 2;
    for (int64_t b = 0; b < B; b++)
        for (int64_t q = 0; q < S; q++) {
            /* the run's ids are synthetic: clamped into the cache as floats (no conversion out
             * of range, NaN to 0); an empty cache is refused by the planner */
            float pf = c->st[2][0] ? pid[b * S + q] : pid[0] + (float)q;
            int64_t pos = !(pf > 0) ? 0 : pf >= (float)P ? P - 1 : (int64_t)pf;
            if (pos >= P) pos = P - 1; /* float rounding at the top */
            const float *cr = cs + pos * h2, *sr = sn + pos * h2;
            for (int64_t h = 0; h < H; h++) {
                const float *a = x + b * c->st[0][0] + q * c->st[0][1] + h * c->st[0][2];
                float *o = y + b * c->st[1][0] + q * c->st[1][1] + h * c->st[1][2];
                if (c->op) {
                    for (int64_t i = 0; i < h2; i++) {
                        float u = a[2 * i], v = a[2 * i + 1];
                        o[2 * i] = u * cr[i] - v * sr[i];
                        o[2 * i + 1] = u * sr[i] + v * cr[i];
                    }
                } else {
                    for (int64_t i = 0; i < h2; i++) {
                        float u = a[i], v = a[i + h2];
                        o[i] = u * cr[i] - v * sr[i];
                        o[i + h2] = u * sr[i] + v * cr[i];
                    }
                }
                for (int64_t i = R; i < D; i++) o[i] = a[i];
            }
        }
}

static float fattr(const rf_layer *l, const char *name, float def)
{
    const rf_attr *a = rf_layer_attr(l, name);
    return a && a->type == RF_ATTR_FLOAT ? (float)a->f : def;
}

static void define_plain(rf__xplan *p, uint32_t t)
{
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[t].rank, p->t[t].dims);
    rf__xtensor_define(p, t, &md);
}

/* BiasGelu, FastGelu, QuickGelu on oneDNN (JIT-vectorised GELU and swish): a binary add of the
 * bias along the last axis with the activation as a post-op, or the eltwise alone. */
static rf_status dnnl_act(rf__xplan *p, uint32_t li, uint32_t X, uint32_t Bi, int64_t rows,
                          int64_t n, dnnl_alg_kind_t alg, float alpha)
{
    uint32_t Y = p->g->layers[li].outputs[0], xu, bu = 0;
    dnnl_memory_desc_t xm, bm;
    dnnl_memory_desc_init_by_strides(&xm, 2, (dnnl_dims_t){rows, n}, dnnl_f32, (dnnl_dims_t){n, 1});
    dnnl_memory_desc_init_by_strides(&bm, 2, (dnnl_dims_t){1, n}, dnnl_f32, (dnnl_dims_t){n, 1});
    dnnl_primitive_desc_t pd = NULL;
    int ok;
    if (Bi != RF_GRAPH_NO_TENSOR) {
        dnnl_primitive_attr_t at = NULL;
        dnnl_post_ops_t po = NULL;
        dnnl_binary_desc_t bd;
        ok = dnnl_primitive_attr_clone(&at, p->attr) == dnnl_success &&
             dnnl_post_ops_create(&po) == dnnl_success &&
             dnnl_post_ops_append_eltwise(po, 1.0f, alg, alpha, 0.0f) == dnnl_success &&
             dnnl_primitive_attr_set_post_ops(at, po) == dnnl_success &&
             dnnl_binary_desc_init(&bd, dnnl_binary_add, &xm, &bm, &xm) == dnnl_success &&
             dnnl_primitive_desc_create(&pd, &bd, at, p->eng, NULL) == dnnl_success;
        if (po) dnnl_post_ops_destroy(po);
        if (at) dnnl_primitive_attr_destroy(at);
    } else {
        dnnl_eltwise_desc_t ed;
        ok = dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, alg, &xm, alpha, 0.0f) ==
                 dnnl_success &&
             rf__xprim_desc(p, &ed, &pd);
    }
    if (!ok) {
        if (pd) dnnl_primitive_desc_destroy(pd);
        rf__xlayer_unmeasured(p, li, "oneDNN has no %s for these shapes", p->g->layers[li].op_type);
        return RF_OK;
    }
    rf_status st = rf__xtensor_plain(p, li, X, &xu);
    if (st == RF_OK && Bi != RF_GRAPH_NO_TENSOR) st = rf__xtensor_plain(p, li, Bi, &bu);
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    define_plain(p, Y);
    rf__xlayer_measured(p, li,
                        Bi != RF_GRAPH_NO_TENSOR ? "onednn:binary+eltwise" : "onednn:eltwise");
    if (Bi != RF_GRAPH_NO_TENSOR) {
        rf__xprim_arg a[3] = {{DNNL_ARG_SRC_0, xu, xm, NULL},
                              {DNNL_ARG_SRC_1, bu, bm, NULL},
                              {DNNL_ARG_DST, Y, xm, NULL}};
        return rf__xstep_add_prim(p, li, -1, pd, a, 3);
    }
    rf__xprim_arg a[2] = {{DNNL_ARG_SRC, xu, xm, NULL}, {DNNL_ARG_DST, Y, xm, NULL}};
    return rf__xstep_add_prim(p, li, -1, pd, a, 2);
}

static rf_status elt_op(rf__xplan *p, uint32_t li, int op)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = rf__xinput_at(l, 0), Bi = rf__xinput_at(l, 1), Y = l->outputs[0];
    const rf__xtensor *x = &p->t[X], *y = &p->t[Y];
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.value = fattr(l, "alpha", 1.702f);
    int64_t last = x->rank ? x->dims[x->rank - 1] : 1;
    int need_b = op == CB_BIASADD || op == CB_BIASGELU || op == CB_BIASSPLITGELU;
    int has_b = Bi != RF_GRAPH_NO_TENSOR && op != CB_QUICKGELU;
    if ((need_b && !has_b) || (has_b && rf__xtensor_elems(&p->t[Bi]) != (uint64_t)last) ||
        last <= 0 ||
        (op == CB_BIASADD &&
         (rf__xinput_at(l, 2) == RF_GRAPH_NO_TENSOR ||
          rf__xtensor_elems(&p->t[rf__xinput_at(l, 2)]) != rf__xtensor_elems(x))) ||
        rf__xtensor_elems(y) !=
            (op == CB_BIASSPLITGELU ? rf__xtensor_elems(x) / 2 : rf__xtensor_elems(x)) ||
        (op == CB_BIASSPLITGELU && last % 2)) {
        rf__xlayer_unmeasured(p, li, "%s: inputs and bias do not agree", l->op_type);
        return RF_OK;
    }
    c.st[0][0] = has_b;
    c.outer = (int64_t)(rf__xtensor_elems(x) / (uint64_t)last);
    if (op == CB_BIASGELU || op == CB_FASTGELU || op == CB_QUICKGELU)
        return dnnl_act(p, li, X, has_b ? Bi : RF_GRAPH_NO_TENSOR, c.outer, last,
                        op == CB_BIASGELU   ? dnnl_eltwise_gelu_erf
                        : op == CB_FASTGELU ? dnnl_eltwise_gelu_tanh
                                            : dnnl_eltwise_swish,
                        op == CB_QUICKGELU ? c.value : 0.0f);
    c.inner = op == CB_BIASSPLITGELU ? last / 2 : last;
    uint32_t io[4], n = 0;
    RF_TRY(rf__xtensor_plain(p, li, X, &io[n++]));
    if (has_b) RF_TRY(rf__xtensor_plain(p, li, Bi, &io[n++]));
    if (op == CB_BIASADD) RF_TRY(rf__xtensor_plain(p, li, rf__xinput_at(l, 2), &io[n++]));
    io[n] = Y;
    define_plain(p, Y);
    rf__xlayer_measured(p, li, "c:contrib-eltwise");
    return rf__xstep_add_kernel(p, li, elt, io, n + 1, n, &c);
}

static rf_status skipnorm_op(rf__xplan *p, uint32_t li, int layernorm)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = rf__xinput_at(l, 0), K = rf__xinput_at(l, 1), G = rf__xinput_at(l, 2);
    uint32_t Be = layernorm ? rf__xinput_at(l, 3) : RF_GRAPH_NO_TENSOR,
             Bi = rf__xinput_at(l, layernorm ? 4 : 3);
    if (X == RF_GRAPH_NO_TENSOR || K == RF_GRAPH_NO_TENSOR || G == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "%s without input, skip or gamma", l->op_type);
        return RF_OK;
    }
    const rf__xtensor *x = &p->t[X];
    int64_t n = x->rank ? x->dims[x->rank - 1] : 0;
    uint64_t nx = rf__xtensor_elems(x), nk = rf__xtensor_elems(&p->t[K]);
    if (n <= 0 || rf__xtensor_elems(&p->t[G]) != (uint64_t)n || !nk || nk % (uint64_t)n ||
        nx % nk || (Be != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[Be]) != (uint64_t)n) ||
        (Bi != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[Bi]) != (uint64_t)n) ||
        rf__xtensor_elems(&p->t[l->outputs[0]]) != nx) {
        rf__xlayer_unmeasured(p, li, "%s: shapes do not agree", l->op_type);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.op = layernorm;
    c.inner = n;
    c.outer = (int64_t)(nx / (uint64_t)n);
    c.value = fattr(l, "epsilon", 1e-12f);
    c.st[0][2] = (int64_t)nk;
    uint32_t io[9], m = 0;
    RF_TRY(rf__xtensor_plain(p, li, X, &io[m++]));
    RF_TRY(rf__xtensor_plain(p, li, K, &io[m++]));
    RF_TRY(rf__xtensor_plain(p, li, G, &io[m++]));
    if (Be != RF_GRAPH_NO_TENSOR) {
        c.st[0][0] = m;
        RF_TRY(rf__xtensor_plain(p, li, Be, &io[m++]));
    }
    if (Bi != RF_GRAPH_NO_TENSOR) {
        c.st[0][1] = m;
        RF_TRY(rf__xtensor_plain(p, li, Bi, &io[m++]));
    }
    uint32_t n_in = m;
    for (uint32_t o = 0; o < l->n_outputs && o < 4; o++) {
        uint32_t t = l->outputs[o];
        if (!p->g->tensors[t].name[0]) continue;
        uint64_t want = o == 0 || o == 3 ? nx : (uint64_t)c.outer;
        if (rf__xtensor_elems(&p->t[t]) != want) {
            rf__xlayer_unmeasured(p, li, "%s: output %u of an unexpected size", l->op_type, o);
            return RF_OK;
        }
        define_plain(p, t);
        c.st[1][o] = m;
        io[m++] = t;
    }
    rf__xlayer_measured(p, li, layernorm ? "c:skip-layernorm" : "c:skip-rmsnorm");
    return rf__xstep_add_kernel(p, li, skipnorm, io, m, n_in, &c);
}

static rf_status fused_matmul_op(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t A = rf__xinput_at(l, 0), B = rf__xinput_at(l, 1), Y = l->outputs[0];
    if (A == RF_GRAPH_NO_TENSOR || B == RF_GRAPH_NO_TENSOR ||
        rf_layer_attr_int(l, "transBatchA", 0) || rf_layer_attr_int(l, "transBatchB", 0)) {
        rf__xlayer_unmeasured(p, li, "FusedMatMul without two operands, or with transBatchA/B");
        return RF_OK;
    }
    const rf__xtensor *a = &p->t[A], *b = &p->t[B];
    int ta = rf_layer_attr_int(l, "transA", 0) != 0, tb = rf_layer_attr_int(l, "transB", 0) != 0;
    if (a->rank < 2 || b->rank < 2) {
        rf__xlayer_unmeasured(p, li, "FusedMatMul of a 1-D operand");
        return RF_OK;
    }
    int64_t M = a->dims[a->rank - (ta ? 1 : 2)], K = a->dims[a->rank - (ta ? 2 : 1)];
    int64_t Kb = b->dims[b->rank - (tb ? 1 : 2)], N = b->dims[b->rank - (tb ? 2 : 1)];
    uint64_t mk = M > 0 && K > 0 ? (uint64_t)(M * K) : 1,
             nk = N > 0 && K > 0 ? (uint64_t)(N * K) : 1;
    uint64_t ba = rf__xtensor_elems(a) / mk, bb = rf__xtensor_elems(b) / nk;
    uint64_t bt = ba > bb ? ba : bb, ny = 0;
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX || K != Kb || /* M * N < 2^62 after these */
        (ba != bb && ba != 1 && bb != 1) || !rf__mul_ok(bt, (uint64_t)(M * N), &ny) ||
        rf__xtensor_elems(&p->t[Y]) != ny) {
        rf__xlayer_unmeasured(
            p, li, "FusedMatMul shapes do not agree (batch dims must match or be absent)");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = (int64_t)bt, c.dims[1] = M, c.dims[2] = N, c.dims[3] = K;
    c.st[0][0] = ta, c.st[0][1] = tb;
    c.st[0][2] = ba > 1 ? M * K : 0, c.st[0][3] = bb > 1 ? N * K : 0;
    c.value = fattr(l, "alpha", 1.0f);
    uint32_t io[3];
    RF_TRY(rf__xtensor_plain(p, li, A, &io[0]));
    RF_TRY(rf__xtensor_plain(p, li, B, &io[1]));
    io[2] = Y;
    define_plain(p, Y);
    rf__xlayer_measured(p, li, "openblas:fusedmatmul");
    return rf__xstep_add_kernel(p, li, fused_mm, io, 3, 2, &c);
}

static rf_status nbits_op(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t A = rf__xinput_at(l, 0), B = rf__xinput_at(l, 1), S = rf__xinput_at(l, 2),
             Z = rf__xinput_at(l, 3), Y = l->outputs[0];
    int64_t K = rf_layer_attr_int(l, "K", 0), N = rf_layer_attr_int(l, "N", 0);
    int64_t bits = rf_layer_attr_int(l, "bits", 4), bs = rf_layer_attr_int(l, "block_size", 0);
    if (bits != 4 || rf__xinput_at(l, 4) != RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "MatMulNBits with %lld bits or g_idx (4 bits, no g_idx, only)",
                              (long long)bits);
        return RF_OK;
    }
    if (A == RF_GRAPH_NO_TENSOR || B == RF_GRAPH_NO_TENSOR || S == RF_GRAPH_NO_TENSOR || K <= 0 ||
        N <= 0 || bs < 16 || bs % 2 || K > INT_MAX || N > INT_MAX) {
        rf__xlayer_unmeasured(p, li, "MatMulNBits without A, B, scales, K, N or block_size");
        return RF_OK;
    }
    /* every count in checked arithmetic: a block_size of 2^62 made N*nb*(bs/2) wrap to 0 */
    int64_t nb = rf__i64_div_ceil(K, bs), nsc = -1, nbytes = -1, nzp = -1, mn = -1;
    if (!rf__i64_mul(N, nb, &nsc) || !rf__i64_mul(nsc, bs / 2, &nbytes) ||
        !rf__i64_mul(N, (nb + 1) / 2, &nzp))
        nsc = nbytes = nzp = -1;
    const rf__xtensor *a = &p->t[A];
    uint64_t na = rf__xtensor_elems(a),
             zn = Z != RF_GRAPH_NO_TENSOR ? rf__xtensor_elems(&p->t[Z]) : 0;
    int64_t M = a->rank && a->dims[a->rank - 1] == K ? (int64_t)(na / (uint64_t)K) : -1;
    int zkind = Z == RF_GRAPH_NO_TENSOR                                                    ? 0
                : nzp >= 0 && zn == (uint64_t)nzp && p->g->tensors[Z].dtype == RF_DTYPE_U8 ? 1
                : nsc >= 0 && zn == (uint64_t)nsc                                          ? 2
                                                                                           : -1;
    uint32_t Bias = rf__xinput_at(l, 5);
    if (M < 0 || M > INT_MAX || !rf__i64_mul(M, N, &mn) || nbytes < 0 ||
        rf__xtensor_elems(&p->t[B]) != (uint64_t)nbytes ||
        rf__xtensor_elems(&p->t[S]) != (uint64_t)nsc || zkind < 0 ||
        rf__xtensor_elems(&p->t[Y]) != (uint64_t)mn ||
        (Bias != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[Bias]) != (uint64_t)N)) {
        rf__xlayer_unmeasured(p, li, "MatMulNBits shapes do not agree with K, N and block_size");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = M, c.dims[1] = N, c.dims[2] = K, c.dims[3] = bs, c.dims[4] = nb;
    c.st[0][1] = zkind;
    if (p->t[S].fill) p->t[S].positive = 1;
    uint32_t io[7], m = 0;
    RF_TRY(rf__xtensor_plain(p, li, A, &io[m++]));
    RF_TRY(rf__xtensor_plain(p, li, B, &io[m++]));
    RF_TRY(rf__xtensor_plain(p, li, S, &io[m++]));
    if (zkind) RF_TRY(rf__xtensor_plain(p, li, Z, &io[m++]));
    if (Bias != RF_GRAPH_NO_TENSOR) {
        c.st[0][2] = m;
        RF_TRY(rf__xtensor_plain(p, li, Bias, &io[m++]));
    }
    uint32_t n_in = m, W;
    rf__xtensor like = {0};
    like.rank = 2, like.dims[0] = N, like.dims[1] = K;
    RF_TRY(rf__xtensor_add(p, &like, &W));
    define_plain(p, W);
    io[m++] = W;
    io[m++] = Y;
    define_plain(p, Y);
    rf__xlayer_measured(p, li, "openblas:matmulnbits");
    return rf__xstep_add_kernel(p, li, nbits, io, m, n_in, &c);
}

static rf_status rope_op(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = rf__xinput_at(l, 0), P = rf__xinput_at(l, 1), C = rf__xinput_at(l, 2),
             Sn = rf__xinput_at(l, 3), Y = l->outputs[0];
    if (X == RF_GRAPH_NO_TENSOR || P == RF_GRAPH_NO_TENSOR || C == RF_GRAPH_NO_TENSOR ||
        Sn == RF_GRAPH_NO_TENSOR) {
        rf__xlayer_unmeasured(p, li, "RotaryEmbedding without position ids or cos/sin caches");
        return RF_OK;
    }
    const rf__xtensor *x = &p->t[X], *cs = &p->t[C];
    if (cs->rank != 2 || rf__xtensor_elems(&p->t[Sn]) != rf__xtensor_elems(cs) ||
        (x->rank != 3 && x->rank != 4) || rf__xtensor_elems(&p->t[Y]) != rf__xtensor_elems(x)) {
        rf__xlayer_unmeasured(
            p, li, "RotaryEmbedding of a shape other than [B, S, hidden] or [B, N, S, H]");
        return RF_OK;
    }
    int64_t R = 2 * cs->dims[1], heads = rf_layer_attr_int(l, "num_heads", 0), B = x->dims[0];
    int64_t rd = rf_layer_attr_int(l, "rotary_embedding_dim", 0);
    int64_t S, H, D;
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    if (x->rank == 4) { /* [B, N, S, H] */
        H = x->dims[1], S = x->dims[2], D = x->dims[3];
        c.st[0][0] = H * S * D, c.st[0][1] = D, c.st[0][2] = S * D;
    } else {
        S = x->dims[1];
        D = heads > 0 ? x->dims[2] / heads : rd > 0 ? rd : R;
        H = D > 0 ? x->dims[2] / D : 0;
        c.st[0][0] = S * H * D, c.st[0][1] = H * D, c.st[0][2] = D;
    }
    uint64_t np = rf__xtensor_elems(&p->t[P]);
    if (D <= 0 || H <= 0 || cs->dims[0] <= 0 || H * D * S * B != (int64_t)rf__xtensor_elems(x) ||
        R > D || R < 2 || (np != 1 && np != (uint64_t)(B * S))) {
        rf__xlayer_unmeasured(p, li,
                              "RotaryEmbedding head size, caches and position ids do not agree");
        return RF_OK;
    }
    memcpy(c.st[1], c.st[0], sizeof c.st[1]);
    c.st[2][0] = np != 1;
    c.dims[0] = B, c.dims[1] = S, c.dims[2] = H, c.dims[3] = D, c.dims[4] = R;
    c.dims[5] = cs->dims[0];
    c.op = rf_layer_attr_int(l, "interleaved", 0) != 0;
    uint32_t io[5];
    RF_TRY(rf__xtensor_plain(p, li, X, &io[0]));
    RF_TRY(rf__xtensor_plain(p, li, P, &io[1]));
    RF_TRY(rf__xtensor_plain(p, li, C, &io[2]));
    RF_TRY(rf__xtensor_plain(p, li, Sn, &io[3]));
    io[4] = Y;
    define_plain(p, Y);
    rf__xlayer_measured(p, li, "c:rope-cache");
    return rf__xstep_add_kernel(p, li, rope_cache, io, 5, 4, &c);
}

rf_status rf__xop_contrib(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    const char *t = l->op_type;
    if (!strcmp(t, "BiasAdd")) return elt_op(p, li, CB_BIASADD);
    if (!strcmp(t, "BiasGelu")) return elt_op(p, li, CB_BIASGELU);
    if (!strcmp(t, "FastGelu")) return elt_op(p, li, CB_FASTGELU);
    if (!strcmp(t, "QuickGelu")) return elt_op(p, li, CB_QUICKGELU);
    if (!strcmp(t, "BiasSplitGelu")) return elt_op(p, li, CB_BIASSPLITGELU);
    if (!strcmp(t, "SkipLayerNormalization")) return skipnorm_op(p, li, 1);
    if (!strcmp(t, "SkipSimplifiedLayerNormalization")) return skipnorm_op(p, li, 0);
    if (!strcmp(t, "FusedMatMul")) return fused_matmul_op(p, li);
    if (!strcmp(t, "MatMulNBits")) return nbits_op(p, li);
    if (!strcmp(t, "RotaryEmbedding") && !strcmp(l->domain, "com.microsoft")) return rope_op(p, li);
    if (!strcmp(t, "Attention") || !strcmp(t, "MultiHeadAttention") ||
        !strcmp(t, "GroupQueryAttention"))
        return rf__xop_attn(p, li);
    rf__xlayer_unmeasured(p, li, "no contrib kernel for op '%s'", t);
    return RF_OK;
}
