/* op_bnfold.c — a BatchNormalization after a convolution folded into the convolution's weights
 * and bias once, before the passes, as ONNX Runtime folds it at load (called by op_gemm.c). */
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"

/* Is tensor t a plain constant of n elements (a folded step reads its bytes as they are)? */
static int plain_const(const rf__xplan *p, uint32_t t, uint64_t n)
{
    if (t == RF_GRAPH_NO_TENSOR || t >= p->n_t || !rf__xconst(p, t) || !p->t[t].ready ||
        rf__xtensor_elems(&p->t[t]) != n)
        return 0;
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[t].rank, p->t[t].dims);
    return dnnl_memory_desc_equal(&md, &p->t[t].md);
}

/* W' = W * k and B' = (B - mean) * k + beta per output channel, k = scale / sqrt(var + eps):
 * io W, B (W again when c->op is 0: no bias), scale, beta, mean, var, then W', B'. */
static void bn_fold_kernel(const rf__xstep *s)
{
    const float *w = s->ptr[0], *b = s->ptr[1], *g = s->ptr[2], *be = s->ptr[3], *m = s->ptr[4],
                *v = s->ptr[5];
    float *w2 = s->ptr[6], *b2 = s->ptr[7];
    for (int64_t c = 0; c < s->c.outer; c++) {
        float k = g[c] / sqrtf(v[c] + s->c.value);
        for (int64_t i = 0; i < s->c.inner; i++) w2[c * s->c.inner + i] = w[c * s->c.inner + i] * k;
        b2[c] = ((s->c.op ? b[c] : 0.0f) - m[c]) * k + be[c];
    }
}

/* A BatchNormalization reading only Y, the output of a convolution of constant plain weights W
 * (and bias B), with constant per-channel parameters: folded into the convolution's weights
 * and bias, as ONNX Runtime does at load. New constants W', B' are computed by a folded step (once,
 * before the passes) and *W, *B replaced by them; *bn is the BatchNormalization layer (its output
 * is then the convolution's), RF__XNONE when there is none to fold. */
rf_status rf__xfold_bn(rf__xplan *p, uint32_t li, uint32_t Y, uint32_t *W, uint32_t *B,
                       uint32_t *bn)
{
    *bn = RF__XNONE;
    const rf_graph *g = p->g;
    if (Y >= g->n_tensors || p->consumer[Y] == RF__XNONE) return RF_OK;
    uint32_t e = p->consumer[Y];
    const rf_layer *l = &g->layers[e];
    const rf__xtensor *w = &p->t[*W];
    uint64_t C = w->rank ? (uint64_t)w->dims[0] : 0;
    if (strcmp(l->op_type, "BatchNormalization") || l->n_inputs != 5 || l->n_outputs != 1 ||
        l->inputs[0] != Y || !C || p->layers[e].folded != p->layers[li].folded ||
        rf_layer_attr_int(l, "training_mode", 0) || p->t[l->outputs[0]].ready ||
        !rf__shape_full(&g->tensors[l->outputs[0]]) || !plain_const(p, *W, rf__xtensor_elems(w)) ||
        (*B != RF_GRAPH_NO_TENSOR && !plain_const(p, *B, C)))
        return RF_OK;
    for (uint32_t i = 1; i < 5; i++)
        if (!plain_const(p, l->inputs[i], C)) return RF_OK;
    const rf__xtensor *yb = &p->t[l->outputs[0]], *y = &p->t[Y];
    if (yb->rank != y->rank || memcmp(yb->dims, y->dims, y->rank * sizeof *y->dims)) return RF_OK;
    const rf_attr *ea = rf_layer_attr(l, "epsilon");
    rf__xkernel_args c = {0};
    c.value = ea && ea->type == RF_ATTR_FLOAT ? (float)ea->f : 1e-5f;
    c.outer = (int64_t)C;
    c.inner = (int64_t)(rf__xtensor_elems(w) / C);
    c.op = *B != RF_GRAPH_NO_TENSOR;
    p->t[l->inputs[4]].positive = 1; /* a variance */
    uint32_t w2, b2;
    RF_TRY(rf__xtensor_add(p, &p->t[*W], &w2));
    rf__xtensor_define(p, w2, &p->t[*W].md);
    rf__xtensor bl = {0};
    bl.rank = 1;
    bl.dims[0] = (int64_t)C;
    RF_TRY(rf__xtensor_add(p, &bl, &b2));
    dnnl_memory_desc_t bm;
    rf__xdesc_plain(&bm, 1, bl.dims);
    rf__xtensor_define(p, b2, &bm);
    p->t[w2].src = *W;
    p->t[w2].cst = p->t[w2].persistent = p->t[b2].cst = p->t[b2].persistent = 1;
    uint32_t io[8] = {*W,           c.op ? *B : *W, l->inputs[1], l->inputs[2],
                      l->inputs[3], l->inputs[4],   w2,           b2};
    RF_TRY(rf__xstep_add_kernel(p, li, bn_fold_kernel, io, 8, 6, &c));
    p->steps[p->n_steps - 1].fold = 1; /* once, before the passes */
    *W = w2, *B = b2, *bn = e;
    return RF_OK;
}
