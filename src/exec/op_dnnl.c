/* op_dnnl.c — the executor's per-element and broadcast layers on oneDNN: eltwise (ReLU, Clip,
 * GELU, Sigmoid, Tanh, Exp, ...), binary with broadcasting (Add, Sub, Mul, Div, Max, Min,
 * comparisons). They run in whatever layout their input arrived in (a conv's blocked layout
 * stays blocked). A broadcast oneDNN cannot do falls back to the C kernel (op_c.c). */
#include <string.h>

#include "exec/exec_int.h"

static float attr_f(const rf_layer *l, const char *name, float def)
{
    const rf_attr *a = rf_layer_attr(l, name);
    if (!a) return def;
    return a->type == RF_ATTR_FLOAT ? (float)a->f : a->type == RF_ATTR_INT ? (float)a->i : def;
}

/* The single known value of a layer input (a scalar with integer contents), or def. */
static float input_scalar(const rf__xplan *p, const rf_layer *l, uint32_t i, float def, int *known)
{
    *known = 0;
    if (i >= l->n_inputs || l->inputs[i] == RF_GRAPH_NO_TENSOR) return def;
    const rf_tensor *t = &p->g->tensors[l->inputs[i]];
    if (t->values && t->n_values == 1) {
        *known = 1;
        return (float)t->values[0];
    }
    return def;
}

static int elt_alg(rf__xplan *p, const rf_layer *l, dnnl_alg_kind_t *alg, float *a, float *b)
{
    static const struct {
        const char *op;
        dnnl_alg_kind_t alg;
        float a, b;
    } map[] = {
        {"Relu", dnnl_eltwise_relu, 0, 0},
        {"Sigmoid", dnnl_eltwise_logistic, 0, 0},
        {"Tanh", dnnl_eltwise_tanh, 0, 0},
        {"Exp", dnnl_eltwise_exp, 0, 0},
        {"Log", dnnl_eltwise_log, 0, 0},
        {"Sqrt", dnnl_eltwise_sqrt, 0, 0},
        {"Abs", dnnl_eltwise_abs, 0, 0},
        {"Gelu", dnnl_eltwise_gelu_erf, 0, 0},
        {"Softplus", dnnl_eltwise_soft_relu, 0, 0},
        {"Mish", dnnl_eltwise_mish, 0, 0},
        {"HardSwish", dnnl_eltwise_hardswish, 0, 0},
        {"Neg", dnnl_eltwise_linear, -1, 0},
        {"Reciprocal", dnnl_eltwise_pow, 1, -1},
        {"Round", dnnl_eltwise_round, 0, 0},
        {"Swish", dnnl_eltwise_swish, 1, 0},
        {"SiLU", dnnl_eltwise_swish, 1, 0},
        {"Silu", dnnl_eltwise_swish, 1, 0},
        {"LeakyRelu", dnnl_eltwise_relu, 0.01f, 0},
        {"Elu", dnnl_eltwise_elu, 1, 0},
        {"Clip", dnnl_eltwise_clip, 0, 0},
        {"Pow", dnnl_eltwise_pow, 1, 2},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(l->op_type, map[i].op)) continue;
        *alg = map[i].alg, *a = map[i].a, *b = map[i].b;
        if (!strcmp(l->op_type, "LeakyRelu") || !strcmp(l->op_type, "Elu"))
            *a = attr_f(l, "alpha", *a);
        if (!strcmp(l->op_type, "Gelu")) {
            const rf_attr *ap = rf_layer_attr(l, "approximate");
            if (ap && ap->type == RF_ATTR_STRING && !strcmp(ap->s, "tanh"))
                *alg = dnnl_eltwise_gelu_tanh;
        }
        if (!strcmp(l->op_type, "Clip")) {
            int k1 = 0, k2 = 0;
            int has_min = l->n_inputs > 1 && l->inputs[1] != RF_GRAPH_NO_TENSOR;
            int has_max = l->n_inputs > 2 && l->inputs[2] != RF_GRAPH_NO_TENSOR;
            *a = rf_layer_attr(l, "min") ? attr_f(l, "min", 0)
                 : has_min               ? input_scalar(p, l, 1, 0, &k1)
                                         : -3.4e38f;
            *b = rf_layer_attr(l, "max") ? attr_f(l, "max", 0)
                 : has_max               ? input_scalar(p, l, 2, 6, &k2)
                                         : 3.4e38f;
            if ((has_min && !k1 && !rf_layer_attr(l, "min")) ||
                (has_max && !k2 && !rf_layer_attr(l, "max")))
                rf__xplan_note(p, "Clip bounds given as float tensors: [0, 6] used");
        }
        if (!strcmp(l->op_type, "Pow")) {
            uint64_t n = 0;
            if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR ||
                !rf_tensor_elems(&p->g->tensors[l->inputs[1]], &n) || n != 1)
                return 0; /* a tensor exponent: the C kernel */
            int k = 0;
            *b = input_scalar(p, l, 1, 2, &k);
            if (!k) rf__xplan_note(p, "Pow exponents given as float tensors: 2 used");
        }
        return 1;
    }
    return 0;
}

/* The eltwise primitive of layer li; *done 0 when oneDNN has no algorithm for it (Pow with a
 * tensor exponent). */
static rf_status eltwise(rf__xplan *p, uint32_t li, int *done)
{
    const rf_layer *l = &p->g->layers[li];
    dnnl_alg_kind_t alg;
    float a, b;
    *done = 0;
    if (!l->n_inputs || l->inputs[0] == RF_GRAPH_NO_TENSOR || !elt_alg(p, l, &alg, &a, &b))
        return RF_OK;
    *done = 1;
    uint32_t X = l->inputs[0], Y = l->outputs[0];
    if (!rf__xshape_is(p, li, Y, p->t[X].rank, p->t[X].dims)) return RF_OK;
    dnnl_memory_desc_t md = p->t[X].md;
    dnnl_eltwise_desc_t ed;
    dnnl_primitive_desc_t pd;
    if (dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, alg, &md, a, b) !=
            dnnl_success ||
        !rf__xprim_desc(p, &ed, &pd)) {
        rf__xlayer_unmeasured(p, li, "oneDNN has no eltwise for '%s'", l->op_type);
        return RF_OK;
    }
    rf__xtensor_define(p, Y, &md);
    rf__xprim_arg args[2] = {{DNNL_ARG_SRC, X, md, NULL}, {DNNL_ARG_DST, Y, md, NULL}};
    rf__xlayer_measured(p, li, "onednn:eltwise");
    return rf__xstep_add_prim(p, li, -1, pd, args, 2);
}

rf_status rf__xop_eltwise(rf__xplan *p, uint32_t li)
{
    int done;
    RF_TRY(eltwise(p, li, &done));
    if (!done) rf__xlayer_unmeasured(p, li, "%s without input", p->g->layers[li].op_type);
    return RF_OK;
}

/* Pow: oneDNN's eltwise with a scalar exponent, else the broadcast kernels. */
rf_status rf__xop_pow(rf__xplan *p, uint32_t li)
{
    int done;
    RF_TRY(eltwise(p, li, &done));
    return done ? RF_OK : rf__xop_binary(p, li);
}

static int bin_alg(const char *op, dnnl_alg_kind_t *alg, int *commutes)
{
    static const struct {
        const char *op;
        dnnl_alg_kind_t alg;
        int commutes;
    } map[] = {{"Add", dnnl_binary_add, 1},       {"Mul", dnnl_binary_mul, 1},
               {"Sub", dnnl_binary_sub, 0},       {"Div", dnnl_binary_div, 0},
               {"Max", dnnl_binary_max, 1},       {"Min", dnnl_binary_min, 1},
               {"Equal", dnnl_binary_eq, 1},      {"Greater", dnnl_binary_gt, 0},
               {"Less", dnnl_binary_lt, 0},       {"GreaterOrEqual", dnnl_binary_ge, 0},
               {"LessOrEqual", dnnl_binary_le, 0}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(op, map[i].op)) {
            *alg = map[i].alg, *commutes = map[i].commutes;
            return 1;
        }
    return 0;
}

/* dims of tensor t right-aligned to rank R (leading 1s). */
static void padded(const rf__xtensor *t, uint32_t R, int64_t *d)
{
    for (uint32_t i = 0; i < R; i++) d[i] = i < R - t->rank ? 1 : t->dims[i - (R - t->rank)];
}

/* src1's layout for a broadcast binary whose src0 m0 (dims yd, rank R) is blocked: bd in the
 * same format tag, so oneDNN's vector kernel runs (a plain src1 next to a blocked src0 sends it
 * to its reference kernel, 100x slower). Falls back to the plain bd_plain. */
static dnnl_memory_desc_t like_src0(const dnnl_memory_desc_t *m0, uint32_t R, const int64_t *yd,
                                    const int64_t *bd, const dnnl_memory_desc_t *bd_plain)
{
    static const dnnl_format_tag_t tags[][3] = {
        {dnnl_aBc16b, dnnl_aBc8b, dnnl_acb},
        {dnnl_aBcd16b, dnnl_aBcd8b, dnnl_acdb},
        {dnnl_aBcde16b, dnnl_aBcde8b, dnnl_acdeb},
    };
    if (R < 3 || R > 5) return *bd_plain;
    dnnl_dims_t y, b;
    for (uint32_t i = 0; i < R; i++) y[i] = yd[i], b[i] = bd[i];
    for (int k = 0; k < 3; k++) {
        dnnl_memory_desc_t t;
        if (dnnl_memory_desc_init_by_tag(&t, (int)R, y, dnnl_f32, tags[R - 3][k]) != dnnl_success ||
            !dnnl_memory_desc_equal(&t, m0))
            continue;
        if (dnnl_memory_desc_init_by_tag(&t, (int)R, b, dnnl_f32, tags[R - 3][k]) == dnnl_success)
            return t;
    }
    return *bd_plain;
}

rf_status rf__xop_binary(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    dnnl_alg_kind_t alg;
    int commutes;
    int b = rf__xbinary_op_of(l->op_type);
    if (b < 0) {
        rf__xlayer_unmeasured(p, li, "no broadcast kernel for op '%s'", l->op_type);
        return RF_OK;
    }
    if (l->n_inputs != 2 || l->inputs[0] == RF_GRAPH_NO_TENSOR ||
        l->inputs[1] == RF_GRAPH_NO_TENSOR || !bin_alg(l->op_type, &alg, &commutes))
        return rf__xop_cbinary(p, li, b);
    uint32_t A = l->inputs[0], B = l->inputs[1], Y = l->outputs[0];
    if (!rf__xbroadcast_output(p, li, 2)) return RF_OK;
    uint32_t R = p->t[Y].rank ? p->t[Y].rank : 1;
    int64_t ad[RF_GRAPH_MAX_RANK], bd[RF_GRAPH_MAX_RANK], yd[RF_GRAPH_MAX_RANK];
    padded(&p->t[Y], R, yd);
    padded(&p->t[A], R, ad);
    padded(&p->t[B], R, bd);
    int full_a = !memcmp(ad, yd, R * sizeof *yd), full_b = !memcmp(bd, yd, R * sizeof *yd);
    dnnl_memory_desc_t pa;
    rf__xdesc_plain(&pa, p->t[A].rank, p->t[A].dims);
    int a_plain_b_not = full_a && full_b && dnnl_memory_desc_equal(&pa, &p->t[A].md) &&
                        p->t[B].rank == R && !dnnl_memory_desc_equal(&p->t[B].md, &pa);
    /* src0 sets the layout: the full operand, and of two, the one not plain (no reorder) */
    if (((!full_a && full_b) || a_plain_b_not) && commutes) {
        uint32_t t = A;
        A = B, B = t;
        memcpy(ad, bd, sizeof ad);
        padded(&p->t[B], R, bd);
        full_a = 1, full_b = !memcmp(bd, yd, R * sizeof *yd);
    }
    if (!full_a) return rf__xop_cbinary(p, li, b);
    dnnl_memory_desc_t m0, m1, a_plain, b_plain;
    rf__xdesc_plain(&a_plain, R, ad);
    rf__xdesc_plain(&b_plain, R, bd);
    m0 = p->t[A].rank == R ? p->t[A].md : a_plain;
    m1 = full_b ? m0 : like_src0(&m0, R, yd, bd, &b_plain);
    dnnl_binary_desc_t bdsc;
    dnnl_primitive_desc_t pd;
    if (dnnl_binary_desc_init(&bdsc, alg, &m0, &m1, &m0) != dnnl_success ||
        !rf__xprim_desc(p, &bdsc, &pd)) {
        m0 = a_plain; /* a blocked src0 with a broadcast src1: try plain, then the C kernel */
        m1 = full_b ? a_plain : b_plain;
        if (dnnl_binary_desc_init(&bdsc, alg, &m0, &m1, &m0) != dnnl_success ||
            !rf__xprim_desc(p, &bdsc, &pd))
            return rf__xop_cbinary(p, li, b);
    }
    uint32_t au = A, bu = B;
    rf_status st = RF_OK;
    if (!dnnl_memory_desc_equal(&m0, &p->t[A].md)) {
        st = rf__xtensor_plain(p, li, A, &au);
        if (st == RF_OK && !dnnl_memory_desc_equal(&m0, &a_plain))
            st = rf__xtensor_convert(p, li, au, &a_plain, &m0, &au);
    }
    if (st == RF_OK && !dnnl_memory_desc_equal(&m1, &p->t[B].md)) {
        st = rf__xtensor_plain(p, li, B, &bu);
        if (st == RF_OK && !dnnl_memory_desc_equal(&m1, &b_plain))
            st = rf__xtensor_convert(p, li, bu, &b_plain, &m1, &bu);
    }
    if (st != RF_OK) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    if (p->t[Y].rank == R)
        rf__xtensor_define(p, Y, &m0);
    else
        rf__xtensor_define(p, Y, &a_plain); /* a scalar output: one element either way */
    rf__xprim_arg args[3] = {{DNNL_ARG_SRC_0, au, m0, NULL},
                             {DNNL_ARG_SRC_1, bu, m1, NULL},
                             {DNNL_ARG_DST, Y, m0, NULL}};
    rf__xlayer_measured(p, li, "onednn:binary");
    return rf__xstep_add_prim(p, li, -1, pd, args, 3);
}

/* ---- post-op fusion: element-wise layers run inside the kernel of the layer before them ---- */

/* Element-wise ops oneDNN applies as eltwise post-ops with the same result as the layer alone
 * (elt_alg's algorithms; HardSigmoid as linear then clip). */
static int fusable_unary(const char *op)
{
    static const char *const ok[] = {"Relu", "Clip",       "Sigmoid", "HardSwish", "LeakyRelu",
                                     "Tanh", "Elu",        "Gelu",    "Softplus",  "Mish",
                                     "Exp",  "Abs",        "Sqrt",    "Swish",     "SiLU",
                                     "Silu", "Reciprocal", "Neg",     NULL};
    for (const char *const *n = ok; *n; n++)
        if (!strcmp(op, *n)) return 1;
    return 0;
}

/* Binary layer l reading t (at input k) and `other` as a binary post-op: other is full-size
 * (a residual, read in its own layout), per channel or a scalar (read as a plain [1,C,1,..]).
 * Sub and Div only with t first. Appends to po, fills *a; 1 when it did. */
static int fuse_binary(rf__xplan *p, const rf_layer *l, uint32_t t, dnnl_post_ops_t po,
                       const dnnl_memory_desc_t *like, rf__xprim_arg *a)
{
    dnnl_alg_kind_t alg;
    int commutes;
    if (l->n_inputs != 2 || !bin_alg(l->op_type, &alg, &commutes) || alg == dnnl_binary_eq ||
        alg == dnnl_binary_gt || alg == dnnl_binary_lt || alg == dnnl_binary_ge ||
        alg == dnnl_binary_le || l->inputs[0] == l->inputs[1])
        return 0;
    int k = l->inputs[0] == t ? 0 : 1;
    uint32_t o = l->inputs[1 - k];
    if ((k && !commutes) || o == RF_GRAPH_NO_TENSOR || !p->t[o].ready) return 0;
    const rf__xtensor *x = &p->t[t], *ot = &p->t[o];
    uint32_t R = x->rank;
    if (R < 2 || ot->rank > R || !rf__xbroadcasts_to(ot, R, x->dims)) return 0;
    int64_t od[RF_GRAPH_MAX_RANK];
    padded(ot, R, od);
    int full = !memcmp(od, x->dims, R * sizeof *od), chan = 1;
    for (uint32_t i = 0; i < R; i++) chan &= i == 1 || od[i] == 1;
    dnnl_memory_desc_t md, plain;
    rf__xdesc_plain(&plain, R, od);
    if (full && ot->rank == R)
        md = like ? *like : ot->md; /* a residual: in whatever layout it has, or like's */
    else if (chan)
        md = plain;
    else
        return 0;
    int idx = dnnl_post_ops_len(po);
    if (dnnl_post_ops_append_binary(po, alg, &md) != dnnl_success) return 0;
    *a = (rf__xprim_arg){DNNL_ARG_ATTR_MULTIPLE_POST_OP(idx) | DNNL_ARG_SRC_1, o, md, NULL};
    return 1;
}

uint32_t rf__xfuse_bias(rf__xplan *p, uint32_t Y, uint32_t *layer)
{
    const rf_graph *g = p->g;
    if (Y >= g->n_tensors || p->consumer[Y] == RF__XNONE) return RF__XNONE;
    const rf_layer *l = &g->layers[p->consumer[Y]];
    if (strcmp(l->op_type, "Add") || l->n_inputs != 2 || l->n_outputs != 1 ||
        l->inputs[0] == l->inputs[1])
        return RF__XNONE;
    uint32_t o = l->inputs[l->inputs[0] == Y ? 1 : 0], out = l->outputs[0];
    if (o == RF_GRAPH_NO_TENSOR || o >= g->n_tensors || !rf__xconst(p, o) || !p->t[o].ready ||
        out >= g->n_tensors || p->t[out].ready || !rf__shape_full(&g->tensors[out]) ||
        p->t[out].cst != p->t[Y].cst)
        return RF__XNONE;
    const rf__xtensor *x = &p->t[Y], *b = &p->t[o], *y = &p->t[out];
    uint32_t R = x->rank;
    if (R < 2 || b->rank > R || y->rank != R || memcmp(y->dims, x->dims, R * sizeof *x->dims))
        return RF__XNONE;
    int64_t bd[RF_GRAPH_MAX_RANK];
    padded(b, R, bd);
    for (uint32_t i = 0; i < R; i++)
        if (bd[i] != (i == 1 ? x->dims[1] : 1)) return RF__XNONE;
    dnnl_memory_desc_t plain;
    rf__xdesc_plain(&plain, b->rank, b->dims);
    if (!dnnl_memory_desc_equal(&plain, &b->md)) return RF__XNONE;
    *layer = p->consumer[Y];
    return o;
}

uint32_t rf__xfuse_chain(rf__xplan *p, uint32_t Y, dnnl_post_ops_t po, uint32_t *fused,
                         rf__xprim_arg *args, uint32_t *n_args, uint32_t max, int binary,
                         const dnnl_memory_desc_t *like, uint32_t *y_out)
{
    const rf_graph *g = p->g;
    uint32_t n = 0, t = Y;
    *n_args = 0;
    while (n < max && t < g->n_tensors && p->consumer[t] != RF__XNONE) {
        uint32_t e = p->consumer[t];
        const rf_layer *l = &g->layers[e];
        if (l->n_outputs != 1 || !l->n_inputs) break;
        uint32_t o = l->outputs[0];
        if (p->t[o].cst != p->t[Y].cst) break; /* a folded kernel runs once: only folded layers */
        const rf__xtensor *x = &p->t[t], *y = &p->t[o];
        int same = rf__shape_full(&g->tensors[o]) && y->rank == x->rank && !y->ready;
        for (uint32_t k = 0; same && k < x->rank; k++) same = y->dims[k] == x->dims[k];
        if (!same) break;
        dnnl_alg_kind_t alg;
        float a, b;
        if (!strcmp(l->op_type, "HardSigmoid") && l->inputs[0] == t) {
            const rf_attr *al = rf_layer_attr(l, "alpha"), *be = rf_layer_attr(l, "beta");
            a = al && al->type == RF_ATTR_FLOAT ? (float)al->f : 0.2f;
            b = be && be->type == RF_ATTR_FLOAT ? (float)be->f : 0.5f;
            if (dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_linear, a, b) != dnnl_success ||
                dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_clip, 0.0f, 1.0f) !=
                    dnnl_success)
                break;
        } else if (fusable_unary(l->op_type) && l->inputs[0] == t) {
            int ready = 1; /* Clip's bounds: known by now */
            for (uint32_t k = 1; k < l->n_inputs; k++)
                ready &= l->inputs[k] == RF_GRAPH_NO_TENSOR || p->t[l->inputs[k]].ready;
            if (!ready || !elt_alg(p, l, &alg, &a, &b) ||
                dnnl_post_ops_append_eltwise(po, 1.0f, alg, a, b) != dnnl_success)
                break;
        } else if (binary && fuse_binary(p, l, t, po, like, &args[*n_args])) {
            ++*n_args;
        } else {
            break;
        }
        fused[n++] = e;
        t = o;
    }
    *y_out = t;
    return n;
}

rf_status rf__xfuse_operands(rf__xplan *p, uint32_t li, rf__xprim_arg *args, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) { /* per-channel operands are read as plain bytes */
        const rf__xtensor *x = &p->t[args[k].t];
        dnnl_memory_desc_t own = x->md, plain;
        rf__xdesc_plain(&plain, x->rank, x->dims);
        if (dnnl_memory_desc_equal(&own, &args[k].md)) continue;
        if (dnnl_memory_desc_equal(&plain, &args[k].md) || x->rank != (uint32_t)args[k].md.ndims)
            RF_TRY(rf__xtensor_plain(p, li, args[k].t, &args[k].t));
        else /* a residual in the kernel's output layout */
            RF_TRY(rf__xtensor_convert(p, li, args[k].t, NULL, &args[k].md, &args[k].t));
    }
    return RF_OK;
}

void rf__xfuse_commit(rf__xplan *p, uint32_t li, uint32_t Y, const uint32_t *fused, uint32_t n,
                      uint32_t y_out, double work)
{
    p->layers[li].work = work > 0 ? work : 1;
    if (!n) return;
    const dnnl_memory_desc_t md = p->t[y_out].md;
    uint32_t t = Y;
    for (uint32_t k = 0; k < n; k++) { /* every tensor of the chain is the kernel's output */
        uint32_t e = fused[k];
        if (t != y_out) {
            rf__xtensor_define(p, t, &md);
            p->t[t].alias = y_out;
        }
        p->layers[e].fused_into = (int32_t)li;
        p->layers[e].work = (double)rf__xtensor_elems(&p->t[y_out]); /* one op per element */
        rf__xlayer_measured(p, e, "onednn:post-op");
        t = p->g->layers[e].outputs[0];
    }
}
