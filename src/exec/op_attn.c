/* op_attn.c — ONNX Runtime's attention contrib ops in the executor: Attention (the QKV
 * projection X.W + b as one sgemm, then attention), MultiHeadAttention (separate 3-D query, key
 * and value) and GroupQueryAttention (query heads sharing KV heads, causal; the new K and V
 * appended to the past into present_key/present_value [B, Hkv, T, D], attention over them). One
 * attention kernel for all three: per batch and head, scores = scale q.K^T (sgemm on strided
 * views, no copies; a query head reads KV head h / (H / Hkv), as the LLM kinds' attention does),
 * a causal mask when asked, softmax, then P.V (sgemm) into [B, S, H, Dv]. Refused (not measured,
 * reason given): masks, attention biases, MHA's past/present, packed QKV, qkv_hidden_sizes,
 * rotary or local-window GQA. GQA's seqlens_k is taken as full (every sequence T long). */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

/* io = q, k, v sources, scores scratch [S, L], out [B, S, H, Dv]. dims = B, S, L, H, Hkv, D, Dv;
 * st[0], st[1], st[2] = q, k, v strides over (batch, position, head) and element offset; value =
 * scale; op = causal (key t visible from query s when t <= s + off). */
static void attn(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *q = s->ptr[0], *k = s->ptr[1], *v = s->ptr[2];
    float *sc = s->ptr[3], *y = s->ptr[4];
    int64_t B = c->dims[0], S = c->dims[1], L = c->dims[2], H = c->dims[3], Hkv = c->dims[4];
    int64_t D = c->dims[5], Dv = c->dims[6], G = H / Hkv;
    for (int64_t b = 0; b < B; b++)
        for (int64_t h = 0; h < H; h++) {
            int64_t g = h / G;
            const float *qh = q + c->st[0][3] + b * c->st[0][0] + h * c->st[0][2];
            const float *kh = k + c->st[1][3] + b * c->st[1][0] + g * c->st[1][2];
            const float *vh = v + c->st[2][3] + b * c->st[2][0] + g * c->st[2][2];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)L, (int)D, c->value,
                        qh, (int)c->st[0][1], kh, (int)c->st[1][1], 0.0f, sc, (int)L);
            for (int64_t i = 0; i < S; i++) {
                float *r = sc + i * L;
                int64_t n = c->op ? i + c->off + 1 : L;
                n = n > L ? L : n < 1 ? 1 : n;
                float mx = r[0], sum = 0;
                for (int64_t j = 1; j < n; j++) mx = r[j] > mx ? r[j] : mx;
                for (int64_t j = 0; j < n; j++) sum += r[j] = expf(r[j] - mx);
                float inv = 1.0f / sum;
                for (int64_t j = 0; j < n; j++) r[j] *= inv;
                for (int64_t j = n; j < L; j++) r[j] = 0.0f;
            }
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)S, (int)Dv, (int)L, 1.0f,
                        sc, (int)L, vh, (int)c->st[2][1], 0.0f, y + b * S * H * Dv + h * Dv,
                        (int)(H * Dv));
        }
}

/* QKV = X [R, hid] . W [hid, 3 hid] (+ bias); io = X, W, [bias], QKV. dims = R, hid, 3 hid. */
static void qkv_proj(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    int64_t R = c->dims[0], K = c->dims[1], N = c->dims[2];
    float *y = s->ptr[s->n_in];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)R, (int)N, (int)K, 1.0f, s->ptr[0],
                (int)K, s->ptr[1], (int)N, 0.0f, y, (int)N);
    if (s->n_in > 2)
        for (int64_t r = 0; r < R; r++)
            for (int64_t n = 0; n < N; n++) y[r * N + n] += s->ptr[2][n];
}

/* present = [past, new] in [B, Hkv, T, D]; new K/V are [B, S, Hkv, D]. io = k, v, [past_k,
 * past_v], present_k, present_v. dims = B, Hkv, P, S, D; op = has past. */
static void kv_append(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    int64_t B = c->dims[0], Hk = c->dims[1], P = c->dims[2], S = c->dims[3], D = c->dims[4];
    int64_t T = P + S;
    for (int kv = 0; kv < 2; kv++) {
        const float *nw = s->ptr[kv], *past = c->op ? s->ptr[2 + kv] : NULL;
        float *pr = s->ptr[s->n_in + (uint32_t)kv];
        for (int64_t b = 0; b < B; b++)
            for (int64_t h = 0; h < Hk; h++) {
                float *o = pr + (b * Hk + h) * T * D;
                if (past) memcpy(o, past + (b * Hk + h) * P * D, (size_t)(P * D) * sizeof *o);
                for (int64_t t = 0; t < S; t++)
                    memcpy(o + (P + t) * D, nw + ((b * S + t) * Hk + h) * D, (size_t)D * sizeof *o);
            }
    }
}

static int named_out(const rf__xplan *p, const rf_layer *l, uint32_t o)
{
    return o < l->n_outputs && p->g->tensors[l->outputs[o]].name[0];
}

static rf_status scratch(rf__xplan *p, int64_t a, int64_t b, int64_t c, int64_t d, uint32_t *out)
{
    rf__xtensor like = {0};
    like.rank = 4, like.dims[0] = a, like.dims[1] = b, like.dims[2] = c, like.dims[3] = d;
    RF_TRY(rf__xtensor_add(p, &like, out));
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, 4, like.dims);
    rf__xtensor_define(p, *out, &md);
    return RF_OK;
}

static float scale_attr(const rf_layer *l, int64_t D)
{
    const rf_attr *a = rf_layer_attr(l, "scale");
    float s = a && a->type == RF_ATTR_FLOAT ? (float)a->f : 0.0f;
    return s != 0.0f ? s : 1.0f / sqrtf((float)D);
}

/* The attention step over prepared sources; the output defined plain. */
static rf_status attn_step(rf__xplan *p, uint32_t li, const uint32_t *qkv, rf__xkernel_args *c,
                           const char *kernel)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Y = l->outputs[0], sc, io[5];
    int64_t B = c->dims[0], S = c->dims[1], L = c->dims[2], H = c->dims[3], Dv = c->dims[6];
    int64_t bs, bsh, ny = -1, hdv = -1;
    if (rf__i64_mul(B, S, &bs) && rf__i64_mul(bs, H, &bsh) && rf__i64_mul(bsh, Dv, &ny))
        (void)rf__i64_mul(H, Dv, &hdv);
    /* no keys (L < 1) would leave the scores unwritten and softmax read them */
    if (ny < 0 || hdv < 0 || rf__xtensor_elems(&p->t[Y]) != (uint64_t)ny || S > INT_MAX || L < 1 ||
        L > INT_MAX || hdv > INT_MAX || c->dims[4] <= 0 || H % c->dims[4]) {
        rf__xlayer_unmeasured(p, li, "%s: output or head counts do not agree", l->op_type);
        return RF_OK;
    }
    RF_TRY(scratch(p, 1, 1, S, L, &sc));
    io[0] = qkv[0], io[1] = qkv[1], io[2] = qkv[2], io[3] = sc, io[4] = Y;
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[Y].rank, p->t[Y].dims);
    rf__xtensor_define(p, Y, &md);
    rf__xlayer_measured(p, li, kernel);
    return rf__xstep_add_kernel(p, li, attn, io, 5, 3, c);
}

static rf_status attention(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t X = rf__xinput_at(l, 0), W = rf__xinput_at(l, 1), Bi = rf__xinput_at(l, 2);
    int64_t H = rf_layer_attr_int(l, "num_heads", 0);
    if (rf__xinput_at(l, 3) != RF_GRAPH_NO_TENSOR || rf__xinput_at(l, 4) != RF_GRAPH_NO_TENSOR ||
        rf__xinput_at(l, 5) != RF_GRAPH_NO_TENSOR || rf_layer_attr(l, "qkv_hidden_sizes") ||
        rf_layer_attr_int(l, "do_rotary", 0) || named_out(p, l, 1)) {
        rf__xlayer_unmeasured(
            p, li, "Attention with a mask, past, attention bias, qkv_hidden_sizes or rotary");
        return RF_OK;
    }
    const rf__xtensor *x = &p->t[X], *w = &p->t[W];
    if (x->rank != 3 || w->rank != 2 || H <= 0 || w->dims[0] != x->dims[2] ||
        w->dims[1] != 3 * x->dims[2] || x->dims[2] % H ||
        (Bi != RF_GRAPH_NO_TENSOR && rf__xtensor_elems(&p->t[Bi]) != (uint64_t)w->dims[1])) {
        rf__xlayer_unmeasured(p, li, "Attention: input, weights and num_heads do not agree");
        return RF_OK;
    }
    int64_t B = x->dims[0], S = x->dims[1], hid = x->dims[2], D = hid / H;
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = B * S, c.dims[1] = hid, c.dims[2] = 3 * hid;
    uint32_t io[4], n = 0, qkv;
    RF_TRY(rf__xtensor_plain(p, li, X, &io[n++]));
    RF_TRY(rf__xtensor_plain(p, li, W, &io[n++]));
    if (Bi != RF_GRAPH_NO_TENSOR) RF_TRY(rf__xtensor_plain(p, li, Bi, &io[n++]));
    RF_TRY(scratch(p, 1, B, S, 3 * hid, &qkv));
    io[n] = qkv;
    RF_TRY(rf__xstep_add_kernel(p, li, qkv_proj, io, n + 1, n, &c));
    memset(&c, 0, sizeof c);
    c.dims[0] = B, c.dims[1] = S, c.dims[2] = S, c.dims[3] = H, c.dims[4] = H, c.dims[5] = D;
    c.dims[6] = D;
    for (int i = 0; i < 3; i++) {
        c.st[i][0] = S * 3 * hid, c.st[i][1] = 3 * hid, c.st[i][2] = D;
        c.st[i][3] = i * hid;
    }
    c.value = scale_attr(l, D);
    c.op = rf_layer_attr_int(l, "unidirectional", 0) != 0;
    return attn_step(p, li, (const uint32_t[]){qkv, qkv, qkv}, &c, "openblas:attention");
}

static rf_status mha(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Q = rf__xinput_at(l, 0), K = rf__xinput_at(l, 1), V = rf__xinput_at(l, 2);
    int64_t H = rf_layer_attr_int(l, "num_heads", 0);
    for (uint32_t i = 3; i < l->n_inputs; i++)
        if (l->inputs[i] != RF_GRAPH_NO_TENSOR) {
            rf__xlayer_unmeasured(p, li,
                                  "MultiHeadAttention with bias, mask, attention bias or past");
            return RF_OK;
        }
    if (K == RF_GRAPH_NO_TENSOR || V == RF_GRAPH_NO_TENSOR || named_out(p, l, 1) ||
        named_out(p, l, 2)) {
        rf__xlayer_unmeasured(p, li, "MultiHeadAttention with packed QKV or present outputs");
        return RF_OK;
    }
    const rf__xtensor *q = &p->t[Q], *k = &p->t[K], *v = &p->t[V];
    if (q->rank != 3 || k->rank != 3 || v->rank != 3 || H <= 0 || q->dims[2] % H ||
        v->dims[2] % H || k->dims[2] != q->dims[2] || k->dims[0] != q->dims[0] ||
        v->dims[0] != q->dims[0] || v->dims[1] != k->dims[1]) {
        rf__xlayer_unmeasured(p, li,
                              "MultiHeadAttention of shapes other than 3-D query, key, value");
        return RF_OK;
    }
    int64_t B = q->dims[0], S = q->dims[1], L = k->dims[1], D = q->dims[2] / H;
    int64_t Dv = v->dims[2] / H;
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = B, c.dims[1] = S, c.dims[2] = L, c.dims[3] = H, c.dims[4] = H, c.dims[5] = D;
    c.dims[6] = Dv;
    c.st[0][0] = S * H * D, c.st[0][1] = H * D, c.st[0][2] = D;
    c.st[1][0] = L * H * D, c.st[1][1] = H * D, c.st[1][2] = D;
    c.st[2][0] = L * H * Dv, c.st[2][1] = H * Dv, c.st[2][2] = Dv;
    c.value = scale_attr(l, D);
    c.op = rf_layer_attr_int(l, "unidirectional", 0) != 0;
    uint32_t u[3];
    RF_TRY(rf__xtensor_plain(p, li, Q, &u[0]));
    RF_TRY(rf__xtensor_plain(p, li, K, &u[1]));
    RF_TRY(rf__xtensor_plain(p, li, V, &u[2]));
    return attn_step(p, li, u, &c, "openblas:attention");
}

static rf_status gqa(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t Q = rf__xinput_at(l, 0), K = rf__xinput_at(l, 1), V = rf__xinput_at(l, 2),
             PK = rf__xinput_at(l, 3), PV = rf__xinput_at(l, 4);
    int64_t H = rf_layer_attr_int(l, "num_heads", 0), Hk = rf_layer_attr_int(l, "kv_num_heads", 0);
    const rf_attr *cap = rf_layer_attr(l, "softcap");
    if (K == RF_GRAPH_NO_TENSOR || V == RF_GRAPH_NO_TENSOR ||
        rf_layer_attr_int(l, "do_rotary", 0) ||
        rf_layer_attr_int(l, "local_window_size", -1) != -1 ||
        (cap && cap->type == RF_ATTR_FLOAT && cap->f != 0) ||
        rf__xinput_at(l, 7) != RF_GRAPH_NO_TENSOR || rf__xinput_at(l, 8) != RF_GRAPH_NO_TENSOR ||
        (PK == RF_GRAPH_NO_TENSOR) != (PV == RF_GRAPH_NO_TENSOR)) {
        rf__xlayer_unmeasured(
            p, li,
            "GroupQueryAttention with packed QKV, rotary, a local window, softcap or "
            "rotary caches");
        return RF_OK;
    }
    const rf__xtensor *q = &p->t[Q], *k = &p->t[K], *v = &p->t[V];
    if (q->rank != 3 || k->rank != 3 || v->rank != 3 || H <= 0 || Hk <= 0 || H % Hk ||
        q->dims[2] % H || k->dims[2] != q->dims[2] / H * Hk || v->dims[2] != k->dims[2] ||
        k->dims[1] != q->dims[1] || v->dims[1] != q->dims[1] || k->dims[0] != q->dims[0] ||
        v->dims[0] != q->dims[0]) {
        rf__xlayer_unmeasured(p, li,
                              "GroupQueryAttention of shapes other than [B, S, heads x head size]");
        return RF_OK;
    }
    int64_t B = q->dims[0], S = q->dims[1], D = q->dims[2] / H, P = 0;
    if (PK != RF_GRAPH_NO_TENSOR) {
        const rf__xtensor *pk = &p->t[PK];
        if (pk->rank != 4 || pk->dims[0] != B || pk->dims[1] != Hk || pk->dims[3] != D ||
            rf__xtensor_elems(&p->t[PV]) != rf__xtensor_elems(pk)) {
            rf__xlayer_unmeasured(p, li,
                                  "GroupQueryAttention past of a shape other than [B, Hkv, P, D]");
            return RF_OK;
        }
        P = pk->dims[2];
    }
    int64_t T = P + S;
    uint32_t pres[2];
    for (uint32_t o = 0; o < 2; o++) {
        if (named_out(p, l, 1 + o)) {
            pres[o] = l->outputs[1 + o];
            if (rf__xtensor_elems(&p->t[pres[o]]) != (uint64_t)(B * Hk * T * D)) {
                rf__xlayer_unmeasured(
                    p, li, "GroupQueryAttention present of a size other than past + new");
                return RF_OK;
            }
            dnnl_memory_desc_t md;
            rf__xdesc_plain(&md, p->t[pres[o]].rank, p->t[pres[o]].dims);
            rf__xtensor_define(p, pres[o], &md);
        } else {
            RF_TRY(scratch(p, B, Hk, T, D, &pres[o]));
        }
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = B, c.dims[1] = Hk, c.dims[2] = P, c.dims[3] = S, c.dims[4] = D;
    c.op = P > 0;
    uint32_t io[6], n = 0, qu;
    RF_TRY(rf__xtensor_plain(p, li, K, &io[n++]));
    RF_TRY(rf__xtensor_plain(p, li, V, &io[n++]));
    if (P > 0) {
        RF_TRY(rf__xtensor_plain(p, li, PK, &io[n++]));
        RF_TRY(rf__xtensor_plain(p, li, PV, &io[n++]));
    }
    io[n] = pres[0], io[n + 1] = pres[1];
    RF_TRY(rf__xstep_add_kernel(p, li, kv_append, io, n + 2, n, &c));
    RF_TRY(rf__xtensor_plain(p, li, Q, &qu));
    memset(&c, 0, sizeof c);
    c.dims[0] = B, c.dims[1] = S, c.dims[2] = T, c.dims[3] = H, c.dims[4] = Hk, c.dims[5] = D;
    c.dims[6] = D;
    c.st[0][0] = S * H * D, c.st[0][1] = H * D, c.st[0][2] = D;
    for (int i = 1; i < 3; i++) c.st[i][0] = Hk * T * D, c.st[i][1] = D, c.st[i][2] = T * D;
    c.value = scale_attr(l, D);
    c.op = 1;
    c.off = P;
    rf__xplan_note(p, "GroupQueryAttention's seqlens_k taken as full");
    return attn_step(p, li, (const uint32_t[]){qu, pres[0], pres[1]}, &c, "openblas:attention");
}

rf_status rf__xop_attn(rf__xplan *p, uint32_t li)
{
    const char *t = p->g->layers[li].op_type;
    if (!strcmp(t, "Attention")) return attention(p, li);
    if (!strcmp(t, "MultiHeadAttention")) return mha(p, li);
    return gqa(p, li);
}
