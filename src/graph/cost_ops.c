/* cost_ops.c — FLOPs per op kind, every rule from docs/cost-model.md (section named at each
 * function). Works on inferred shapes only; never reads files, never counts bytes (cost.c does).
 * All counts are uint64 with overflow checks: an overflow makes the layer unknown, never wrong. */
#include "graph/graph_int.h"

static int rf__mul3(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
    return rf__mul_ok(a, b, out) && rf__mul_ok(*out, c, out);
}

/* "Conv": 2·N·Cout·prod(out spatial)·(Cin/groups)·prod(kernel) + N·Cout·prod(out) for a bias.
 * W is [Cout, Cin/groups, k1..kd], so W's elements = Cout·(Cin/groups)·prod(k). */
int rf__cost_conv(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                  const char **why)
{
    const rf_tensor *w = rf__lin(g, l, 1), *y = rf__lout(g, l, 0);
    if (!rf__shape_full(w) || w->rank < 3) return RF__WHY("weight shape unknown");
    if (!rf__shape_full(y) || y->rank != w->rank) return RF__WHY("output shape unknown");
    uint64_t outs, wel, macs;
    /* outputs N·Cout·spatial; each needs (Cin/g)·prod(k) = wel / Cout MACs */
    if (!rf__prod(y, 0, y->rank, &outs) || !rf__prod(w, 1, w->rank, &wel) ||
        !rf__mul_ok(outs, wel, &macs) || !rf__mul_ok(macs, 2, core))
        return RF__WHY("counts overflow");
    *extra = rf__lin(g, l, 2) ? outs : 0;
    return 1;
}

/* "ConvTranspose": every input element scatters into (Cout/groups)·prod(k) outputs:
 * 2·N·Cin·prod(in spatial)·(Cout/groups)·prod(k), + N·Cout·prod(out) for a bias. W is
 * [Cin, Cout/groups, k...]. */
int rf__cost_convt(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                   const char **why)
{
    const rf_tensor *x = rf__lin(g, l, 0), *w = rf__lin(g, l, 1), *y = rf__lout(g, l, 0);
    if (!rf__shape_full(x) || !rf__shape_full(w) || w->rank < 3 || x->rank != w->rank)
        return RF__WHY("input or weight shape unknown");
    uint64_t ins, wel, macs, outs = 0;
    if (!rf__prod(x, 0, x->rank, &ins) || !rf__prod(w, 1, w->rank, &wel) ||
        !rf__mul_ok(ins, wel, &macs) || !rf__mul_ok(macs, 2, core))
        return RF__WHY("counts overflow");
    if (rf__lin(g, l, 2)) {
        if (!rf__shape_full(y) || !rf__prod(y, 0, y->rank, &outs))
            return RF__WHY("output shape unknown");
    }
    *extra = outs;
    return 1;
}

/* "Gemm": A [M,K] (or [K,M] with transA), B [K,N] (or [N,K] with transB): 2·M·N·K, + M·N when C
 * is given (beta·C; alpha scaling folded, as in the fixtures and torch's addmm). */
int rf__cost_gemm(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                  const char **why)
{
    const rf_tensor *a = rf__lin(g, l, 0), *b = rf__lin(g, l, 1);
    if (!rf__shape_full(a) || !rf__shape_full(b) || a->rank != 2 || b->rank != 2)
        return RF__WHY("input shapes unknown");
    int ta = rf_layer_attr_int(l, "transA", 0) != 0, tb = rf_layer_attr_int(l, "transB", 0) != 0;
    uint64_t m = (uint64_t)a->dims[ta ? 1 : 0], k = (uint64_t)a->dims[ta ? 0 : 1];
    uint64_t n = (uint64_t)b->dims[tb ? 0 : 1];
    uint64_t mn;
    if (!rf__mul3(m, n, k, core) || !rf__mul_ok(*core, 2, core) || !rf__mul_ok(m, n, &mn))
        return RF__WHY("counts overflow");
    *extra = rf__lin(g, l, 2) ? mn : 0;
    return 1;
}

/* "MatMul": NumPy matmul with broadcasting: 2·prod(output dims)·K, K = last dim of A (a 1-D A is
 * [K]). Covers attention's Q·K^T and A·V. */
int rf__cost_matmul(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    const rf_tensor *a = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    if (!rf__shape_full(a) || a->rank < 1) return RF__WHY("input shape unknown");
    if (!rf__shape_full(y)) return RF__WHY("output shape unknown");
    uint64_t outs, k = (uint64_t)a->dims[a->rank - 1];
    if (!rf__prod(y, 0, y->rank, &outs) || !rf__mul3(outs, k, 2, core))
        return RF__WHY("counts overflow");
    *extra = 0;
    return 1;
}

/* "Attention (fused)": Q [B,H,S,D], K [B,Hkv,T,D], V [B,Hkv,T,Dv]: Q·K^T 2·B·H·S·T·D and A·V
 * 2·B·H·S·T·Dv (core), softmax 5·B·H·S·T (extra). GQA shares K/V but not the arithmetic. */
int rf__cost_attention(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                       const char **why)
{
    const rf_tensor *q = rf__lin(g, l, 0), *k = rf__lin(g, l, 1), *v = rf__lin(g, l, 2);
    if (!rf__shape_full(q) || !rf__shape_full(k) || !rf__shape_full(v) || q->rank != 4 ||
        k->rank != 4 || v->rank != 4)
        return RF__WHY("Q/K/V shapes unknown (need rank 4)");
    uint64_t scores, a, b;
    if (!rf__prod(q, 0, 3, &scores) || !rf__mul_ok(scores, (uint64_t)k->dims[2], &scores) ||
        !rf__mul3(scores, (uint64_t)q->dims[3], 2, &a) ||
        !rf__mul3(scores, (uint64_t)v->dims[3], 2, &b) || !rf__add_ok(a, b, core) ||
        !rf__mul_ok(scores, 5, extra))
        return RF__WHY("counts overflow");
    return 1;
}

/* Per-element FLOPs of the simple kinds (docs/cost-model.md, one section each). */
static uint64_t rf__per_elem(const rf_layer *l)
{
    switch (l->kind) {
    case RF_OP_SOFTMAX: return 5;   /* max, subtract, exp, sum, divide */
    case RF_OP_LAYERNORM: return 7; /* mean, subtract, square, variance sum, scale, gamma, beta */
    case RF_OP_RMSNORM: return 4;   /* square, sum, scale, gamma */
    case RF_OP_BATCHNORM: return 2; /* inference: y = x·a + b with folded a, b */
    case RF_OP_ROPE: return 3;      /* x·cos + rotate(x)·sin */
    case RF_OP_ACTIVATION: return 1;
    default: return 0;
    }
}

/* The count of an output-sized rule: `per` FLOPs per output element. */
static int rf__per_output(const rf_graph *g, const rf_layer *l, uint64_t per, uint64_t *core,
                          const char **why)
{
    uint64_t n = 0;
    if (!rf_tensor_elems(rf__lout(g, l, 0), &n)) return RF__WHY("output shape unknown");
    if (!rf__mul_ok(n, per, core)) return RF__WHY("counts overflow");
    return 1;
}

/* "Unknown": not counted, never guessed. */
int rf__cost_unknown(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                     const char **why)
{
    (void)g, (void)l, (void)core, (void)extra;
    return RF__WHY("unknown op type");
}

/* "Data movement" (and metadata, constants, gathers): 0 FLOPs. */
int rf__cost_zero(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                  const char **why)
{
    (void)g, (void)l, (void)extra, (void)why;
    *core = 0;
    return 1;
}

/* "Reductions and global pooling": one op per input element. */
int rf__cost_per_input(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                       const char **why)
{
    (void)extra;
    if (!rf_tensor_elems(rf__lin(g, l, 0), core)) return RF__WHY("input shape unknown");
    return 1;
}

/* "Pooling": prod(kernel) per output element. */
int rf__cost_window(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    int64_t ks[RF_GRAPH_MAX_RANK];
    uint64_t kern = 1;
    (void)extra;
    int nk = rf__attr_ints(l, "kernel_shape", ks, RF_GRAPH_MAX_RANK);
    if (nk < 0) return RF__WHY("kernel_shape missing");
    for (int i = 0; i < nk; i++)
        if (ks[i] < 0 || !rf__mul_ok(kern, (uint64_t)ks[i], &kern)) return RF__WHY("bad kernel");
    return rf__per_output(g, l, kern, core, why);
}

/* "Elementwise": (inputs - 1) per output element, at least 1. */
int rf__cost_nary(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                  const char **why)
{
    (void)extra;
    return rf__per_output(g, l, l->n_inputs > 2 ? l->n_inputs - 1 : 1, core, why);
}

/* "Resize": nearest 0; linear 2·2^k; cubic 2·4^k per output element, k the resized axes. */
int rf__cost_resize(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    const rf_tensor *x = rf__lin(g, l, 0), *y = rf__lout(g, l, 0);
    const rf_attr *m = rf_layer_attr(l, "mode");
    const char *mode = m && m->type == RF_ATTR_STRING ? m->s : "nearest";
    int k = 0;
    (void)extra;
    for (uint32_t i = 0; x && y && i < y->rank && i < x->rank; i++) k += x->dims[i] != y->dims[i];
    uint64_t kern = 0;
    if (mode[0] == 'l' || mode[0] == 'c') kern = 2ull << ((mode[0] == 'c' ? 2 : 1) * k);
    return rf__per_output(g, l, kern, core, why);
}

/* Softmax, the normalisations, activations, rotary: a fixed count per element by kind. */
int rf__cost_per_elem(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                      const char **why)
{
    (void)extra;
    return rf__per_output(g, l, rf__per_elem(l), core, why);
}

int rf__layer_flops(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    *core = *extra = 0;
    const rf__op_row *r = rf__op_of(l);
    return (r ? r->cost : rf__kind_cost(l->kind))(g, l, core, extra, why);
}
