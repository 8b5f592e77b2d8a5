/* op_rnn.c — the executor's recurrent layers on oneDNN: ONNX LSTM and GRU (forward, reverse,
 * bidirectional; linear_before_reset GRU as oneDNN's LBR GRU). The ONNX weight bytes are viewed
 * in oneDNN's gate order (i, f, c, o for LSTM; u, r, o for GRU) and packed once: the same work
 * as ONNX's order, and the values are synthetic anyway. Bidirectional outputs come out
 * concatenated per step ([T, N, 2H] bytes in Y's [T, 2, N, H] storage). */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"

static void md_s(dnnl_memory_desc_t *md, int n, const int64_t *d, const int64_t *s)
{
    dnnl_dims_t dd = {0}, ss = {0};
    for (int i = 0; i < n; i++) dd[i] = d[i], ss[i] = s[i];
    memset(md, 0, sizeof *md);
    dnnl_memory_desc_init_by_strides(md, n, dd, dnnl_f32, ss);
}

static uint32_t opt_in(const rf_layer *l, uint32_t i)
{
    return i < l->n_inputs ? l->inputs[i] : RF_GRAPH_NO_TENSOR;
}

static uint32_t opt_out(const rf__xplan *p, const rf_layer *l, uint32_t i)
{
    if (i >= l->n_outputs) return RF_GRAPH_NO_TENSOR;
    uint32_t t = l->outputs[i];
    return p->g->tensors[t].name[0] ? t : RF_GRAPH_NO_TENSOR;
}

/* Is tensor t (RF_GRAPH_NO_TENSOR passes) of exactly the n dims d? */
static int dims_are(const rf__xplan *p, uint32_t t, uint32_t n, const int64_t *d)
{
    if (t == RF_GRAPH_NO_TENSOR) return 1;
    if (p->t[t].rank != n) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (p->t[t].dims[i] != d[i]) return 0;
    return 1;
}

/* Every operand against X [T, N, I] and W [D, G*H, I] before oneDNN is asked: R [D, G*H, H],
 * B [D, 2*G*H], initial_h and initial_c [D, N, H], hidden_size H, Y [T, D, N, H], Y_h and Y_c
 * [D, N, H] (oneDNN reads and writes them by these sizes; its JIT code is not bounds-checked).
 * 1 when they agree, else the layer is marked not measured. */
static int rnn_operands(rf__xplan *p, uint32_t li, int64_t G, int64_t Hd)
{
    const rf_layer *l = &p->g->layers[li];
    int lstm = G == 4;
    const rf__xtensor *x = &p->t[l->inputs[0]], *w = &p->t[l->inputs[1]];
    int64_t T = x->dims[0], N = x->dims[1], D = w->dims[0], gh = w->dims[1], b2;
    int64_t hs = rf_layer_attr_int(l, "hidden_size", Hd);
    int ok = Hd > 0 && hs == Hd && w->dims[2] == x->dims[2] && rf__i64_mul(gh, 2, &b2) &&
             dims_are(p, opt_in(l, 2), 3, (int64_t[]){D, gh, Hd}) &&
             dims_are(p, opt_in(l, 3), 2, (int64_t[]){D, b2}) &&
             dims_are(p, opt_in(l, 5), 3, (int64_t[]){D, N, Hd}) &&
             (!lstm || dims_are(p, opt_in(l, 6), 3, (int64_t[]){D, N, Hd}));
    if (!ok) {
        rf__xlayer_unmeasured(p, li,
                              "%s whose R, B, initial_h/c or hidden_size do not agree with X and W",
                              l->op_type);
        return 0;
    }
    uint32_t outs[3] = {opt_out(p, l, 0), opt_out(p, l, 1),
                        lstm ? opt_out(p, l, 2) : RF_GRAPH_NO_TENSOR};
    for (int o = 0; o < 3; o++)
        if (outs[o] != RF_GRAPH_NO_TENSOR &&
            !rf__xshape_is(p, li, outs[o], o ? 3 : 4,
                           o ? (int64_t[]){D, N, Hd} : (int64_t[]){T, D, N, Hd}))
            return 0;
    return 1;
}

/* A state tensor of layout si the graph does not give: zeros filled once (input), or scratch
 * written by the step (output). */
static rf_status state_tensor(rf__xplan *p, const dnnl_memory_desc_t *si, int input, uint32_t *t)
{
    rf__xtensor like = {0};
    RF_TRY(rf__xtensor_add(p, &like, t));
    rf__xtensor_define(p, *t, si);
    p->t[*t].rank = (uint32_t)si->ndims;
    for (int i = 0; i < si->ndims; i++) p->t[*t].dims[i] = si->dims[i];
    if (input) p->t[*t].weight = p->t[*t].fill = p->t[*t].persistent = 1;
    return RF_OK;
}

rf_status rf__xop_rnn(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    int lstm = !strcmp(l->op_type, "LSTM");
    int lbr = !lstm && rf_layer_attr_int(l, "linear_before_reset", 0) != 0;
    int64_t G = lstm ? 4 : 3;
    uint32_t X = opt_in(l, 0), W = opt_in(l, 1), R = opt_in(l, 2), B = opt_in(l, 3);
    uint32_t H0 = opt_in(l, 5), C0 = lstm ? opt_in(l, 6) : RF_GRAPH_NO_TENSOR;
    uint32_t Y = opt_out(p, l, 0), YH = opt_out(p, l, 1),
             YC = lstm ? opt_out(p, l, 2) : RF_GRAPH_NO_TENSOR;
    if (X == RF_GRAPH_NO_TENSOR || W == RF_GRAPH_NO_TENSOR || R == RF_GRAPH_NO_TENSOR ||
        Y == RF_GRAPH_NO_TENSOR || p->t[X].rank != 3 || p->t[W].rank != 3 ||
        rf_layer_attr_int(l, "layout", 0) != 0 || rf_layer_attr(l, "activations")) {
        rf__xlayer_unmeasured(p, li, "%s without Y, batch-first, or with custom activations",
                              l->op_type);
        return RF_OK;
    }
    int64_t T = p->t[X].dims[0], N = p->t[X].dims[1], I = p->t[X].dims[2];
    int64_t D = p->t[W].dims[0], Hd = p->t[W].dims[1] / G;
    const rf_attr *da = rf_layer_attr(l, "direction");
    const char *dir = da && da->type == RF_ATTR_STRING ? da->s : "forward";
    dnnl_rnn_direction_t dn = !strcmp(dir, "reverse")         ? dnnl_unidirectional_right2left
                              : !strcmp(dir, "bidirectional") ? dnnl_bidirectional_concat
                                                              : dnnl_unidirectional_left2right;
    if (p->t[W].dims[1] != G * Hd || D != (dn == dnnl_bidirectional_concat ? 2 : 1)) {
        rf__xlayer_unmeasured(p, li, "%s weights do not match its direction", l->op_type);
        return RF_OK;
    }
    if (!rnn_operands(p, li, G, Hd)) return RF_OK;
    if (opt_in(l, 4) != RF_GRAPH_NO_TENSOR)
        rf__xplan_note(p, "RNN sequence_lens ignored: every sequence runs its full length");
    int64_t gb = lbr ? 4 : G;
    dnnl_memory_desc_t src, dst, si, wl_view, wi_view, wl_any, wi_any, bias;
    md_s(&si, 4, (int64_t[]){1, D, N, Hd}, (int64_t[]){D * N * Hd, N * Hd, Hd, 1});
    /* an LSTM given one of h and c (in or out) gets the other as a tensor of its own: zeros in
     * (made once), scratch out; else its Y_h would never be written or its h0 never read */
    if (lstm && (H0 == RF_GRAPH_NO_TENSOR) != (C0 == RF_GRAPH_NO_TENSOR))
        RF_TRY(state_tensor(p, &si, 1, H0 == RF_GRAPH_NO_TENSOR ? &H0 : &C0));
    if (lstm && (YH == RF_GRAPH_NO_TENSOR) != (YC == RF_GRAPH_NO_TENSOR))
        RF_TRY(state_tensor(p, &si, 0, YH == RF_GRAPH_NO_TENSOR ? &YH : &YC));
    int iter = H0 != RF_GRAPH_NO_TENSOR && (!lstm || C0 != RF_GRAPH_NO_TENSOR);
    int diter = YH != RF_GRAPH_NO_TENSOR && (!lstm || YC != RF_GRAPH_NO_TENSOR);
    md_s(&src, 3, (int64_t[]){T, N, I}, (int64_t[]){N * I, I, 1});
    md_s(&dst, 3, (int64_t[]){T, N, D * Hd}, (int64_t[]){N * D * Hd, D * Hd, 1});
    md_s(&wl_view, 5, (int64_t[]){1, D, I, G, Hd},
         (int64_t[]){D * G * Hd * I, G * Hd * I, 1, Hd * I, I});
    md_s(&wi_view, 5, (int64_t[]){1, D, Hd, G, Hd},
         (int64_t[]){D * G * Hd * Hd, G * Hd * Hd, 1, Hd * Hd, Hd});
    md_s(&bias, 4, (int64_t[]){1, D, gb, Hd}, (int64_t[]){D * 2 * G * Hd, 2 * G * Hd, Hd, 1});
    dnnl_memory_desc_init_by_tag(&wl_any, 5, wl_view.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_init_by_tag(&wi_any, 5, wi_view.dims, dnnl_f32, dnnl_format_tag_any);
    dnnl_memory_desc_t bdense; /* oneDNN 2.6 wants a dense bias, always given */
    md_s(&bdense, 4, (int64_t[]){1, D, gb, Hd}, (int64_t[]){D * gb * Hd, gb * Hd, Hd, 1});
    const dnnl_memory_desc_t *bp = &bdense;
    dnnl_rnn_desc_t rd;
    dnnl_status_t ds;
    if (lstm)
        ds = dnnl_lstm_forward_desc_init(&rd, dnnl_forward_inference, dn, &src, iter ? &si : NULL,
                                         iter ? &si : NULL, &wl_any, &wi_any, bp, &dst,
                                         diter ? &si : NULL, diter ? &si : NULL, 0);
    else if (lbr)
        ds =
            dnnl_lbr_gru_forward_desc_init(&rd, dnnl_forward_inference, dn, &src, iter ? &si : NULL,
                                           &wl_any, &wi_any, bp, &dst, diter ? &si : NULL, 0);
    else
        ds = dnnl_gru_forward_desc_init(&rd, dnnl_forward_inference, dn, &src, iter ? &si : NULL,
                                        &wl_any, &wi_any, bp, &dst, diter ? &si : NULL, 0);
    dnnl_primitive_desc_t pd;
    if (ds != dnnl_success || !rf__xprim_desc(p, &rd, &pd)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no %s for these shapes", l->op_type);
        return RF_OK;
    }
    dnnl_memory_desc_t wl = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    dnnl_memory_desc_t wi = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    rf__xprim_arg a[9];
    uint32_t n = 0, u;
    rf_status st = rf__xtensor_plain(p, li, X, &u);
    a[n++] = (rf__xprim_arg){DNNL_ARG_SRC_LAYER, u, src, NULL};
    if (st == RF_OK) st = rf__xtensor_convert(p, li, W, &wl_view, &wl, &u);
    a[n++] = (rf__xprim_arg){DNNL_ARG_WEIGHTS_LAYER, u, wl, NULL};
    if (st == RF_OK) st = rf__xtensor_convert(p, li, R, &wi_view, &wi, &u);
    a[n++] = (rf__xprim_arg){DNNL_ARG_WEIGHTS_ITER, u, wi, NULL};
    if (st == RF_OK && B != RF_GRAPH_NO_TENSOR)
        st = rf__xtensor_convert(p, li, B, &bias, &bdense, &u);
    if (st == RF_OK && B == RF_GRAPH_NO_TENSOR) { /* zeros, made once */
        rf__xtensor like = {0};
        st = rf__xtensor_add(p, &like, &u);
        if (st == RF_OK) {
            p->t[u].weight = p->t[u].fill = p->t[u].persistent = 1;
            rf__xtensor_define(p, u, &bdense);
        }
    }
    a[n++] = (rf__xprim_arg){DNNL_ARG_BIAS, u, bdense, NULL};
    if (st == RF_OK && iter)
        st = rf__xtensor_plain(p, li, H0, &u),
        a[n++] = (rf__xprim_arg){DNNL_ARG_SRC_ITER, u, si, NULL};
    if (st == RF_OK && iter && lstm)
        st = rf__xtensor_plain(p, li, C0, &u),
        a[n++] = (rf__xprim_arg){DNNL_ARG_SRC_ITER_C, u, si, NULL};
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    a[n++] = (rf__xprim_arg){DNNL_ARG_DST_LAYER, Y, dst, NULL};
    if (diter) a[n++] = (rf__xprim_arg){DNNL_ARG_DST_ITER, YH, si, NULL};
    if (diter && lstm) a[n++] = (rf__xprim_arg){DNNL_ARG_DST_ITER_C, YC, si, NULL};
    rf__xlayer_measured(p, li, lstm ? "onednn:lstm" : lbr ? "onednn:lbr_gru" : "onednn:gru");
    return rf__xstep_add_prim(p, li, -1, pd, a, n);
}
