/* op_einsum.c — Einsum in the executor, lowered from the cost model's parse of the equation
 * (rf__ein_parse, rules_recurrent.c). Operands are contracted left to right, two at a time: each
 * pair's letters split into batch (in both, needed later), M (first only), N (second only) and K
 * (in both, not needed later); an operand not already laid out as [batch, M, K] / [batch, K, M]
 * (resp. [batch, K, N] / [batch, N, K]) is first copied so by the permute kernel, which also
 * sums the letters no one needs later, takes diagonals (a letter twice in a term) and broadcasts
 * size-1 ellipsis dims; the pair is then a batched sgemm (OpenBLAS, one call per batch entry).
 * One operand alone (transpose, reduction, diagonal, trace) is one permute step. A final permute
 * puts the result in the output's letter order when the product's order differs. */
#include <cblas.h>
#include <limits.h>
#include <string.h>

#include "exec/exec_int.h"

/* y[out] = sum over the reduced dims of x: iteration dims `dims` (the output's letters, then the
 * summed ones), st[0] = x's strides over them (0: broadcast; a diagonal's strides added),
 * st[1] = y's strides (0 for a summed dim). n_idx = y's elements. */
static void ein_permute(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *y = s->ptr[1];
    memset(y, 0, (size_t)c->n_idx * sizeof *y);
    uint32_t R = c->rank;
    if (R == 0) {
        y[0] = x[0];
        return;
    }
    int64_t n = c->dims[R - 1], sx = c->st[0][R - 1], sy = c->st[1][R - 1];
    int64_t outer = 1, idx[RF_GRAPH_MAX_RANK] = {0};
    for (uint32_t i = 0; i + 1 < R; i++) outer *= c->dims[i];
    for (int64_t o = 0; o < outer; o++) {
        int64_t xo = 0, yo = 0;
        for (uint32_t i = 0; i + 1 < R; i++) {
            xo += idx[i] * c->st[0][i];
            yo += idx[i] * c->st[1][i];
        }
        const float *a = x + xo;
        float *b = y + yo;
        if (sy == 0) { /* a sum along the innermost dim */
            float acc = 0;
            for (int64_t i = 0; i < n; i++) acc += a[i * sx];
            b[0] += acc;
        } else if (sx == 1 && sy == 1) {
            for (int64_t i = 0; i < n; i++) b[i] += a[i];
        } else {
            for (int64_t i = 0; i < n; i++) b[i * sy] += a[i * sx];
        }
        for (int i = (int)R - 2; i >= 0; i--) {
            if (++idx[i] < c->dims[i]) break;
            idx[i] = 0;
        }
    }
}

/* C[b] = op(A[b]) · op(B[b]) for b < dims[0]; M, N, K = dims[1..3]; st[0][0], st[0][1]: A, B
 * transposed ([K, M], [N, K]). Products too small for a BLAS call to pay run as plain loops. */
static void ein_gemm(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *A = s->ptr[0], *B = s->ptr[1];
    float *C = s->ptr[2];
    int64_t Bt = c->dims[0], M = c->dims[1], N = c->dims[2], K = c->dims[3];
    int ta = c->st[0][0] != 0, tb = c->st[0][1] != 0;
    if (M * N * K < 64) {
        for (int64_t b = 0; b < Bt; b++) {
            const float *a = A + b * M * K, *w = B + b * K * N;
            float *y = C + b * M * N;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    float acc = 0;
                    for (int64_t k = 0; k < K; k++)
                        acc += a[ta ? k * M + i : i * K + k] * w[tb ? j * K + k : k * N + j];
                    y[i * N + j] = acc;
                }
        }
        return;
    }
    for (int64_t b = 0; b < Bt; b++)
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    (int)M, (int)N, (int)K, 1.0f, A + b * M * K, ta ? (int)M : (int)K,
                    B + b * K * N, tb ? (int)K : (int)N, 0.0f, C + b * M * N, (int)N);
}

/* An operand during the lowering: an executor tensor (plain row-major) and its letters. */
typedef struct ein_op {
    uint32_t t;
    char term[RF_GRAPH_MAX_RANK + 1];
} ein_op;

static void add_letter(char *set, char c)
{
    if (!strchr(set, c)) {
        size_t n = strlen(set);
        set[n] = c;
        set[n + 1] = '\0';
    }
}

/* Element count of the letters' sizes; 0 when it overflows or passes the executor's limit. */
static uint64_t letters_elems(const rf__ein *e, const char *ls)
{
    uint64_t n = 1;
    for (const char *q = ls; *q; q++)
        if (!rf__mul_ok(n, (uint64_t)e->size[(int)*q], &n) || n > (1ull << 40)) return 0;
    return n;
}

/* A new plain tensor holding the letters `ls`. */
static rf_status new_tensor(rf__xplan *p, const rf__ein *e, const char *ls, uint32_t *out)
{
    rf__xtensor like = {0};
    like.rank = (uint32_t)strlen(ls);
    for (uint32_t i = 0; i < like.rank; i++) like.dims[i] = e->size[(int)ls[i]];
    RF_TRY(rf__xtensor_add(p, &like, out));
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, like.rank, like.dims);
    rf__xtensor_define(p, *out, &md);
    return RF_OK;
}

/* Whether operand x can be read as it is with the letters `want` (no diagonal, no broadcast,
 * nothing to sum). */
static int usable(const rf__xplan *p, const rf__ein *e, const ein_op *x, const char *want)
{
    if (strcmp(x->term, want) != 0) return 0;
    for (uint32_t i = 0; i < p->t[x->t].rank; i++)
        if (p->t[x->t].dims[i] != e->size[(int)x->term[i]]) return 0;
    return 1;
}

/* One permute step: x into a tensor (y, or a new one when y is RF__XNONE) with letters `want`,
 * summing x's other letters. *ok = 0 (layer refused, reason set) past the iteration rank. */
static rf_status permute(rf__xplan *p, uint32_t li, const rf__ein *e, const ein_op *x,
                         const char *want, uint32_t y, uint32_t *out, int *ok)
{
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    char iter[2 * RF_GRAPH_MAX_RANK + 1] = "";
    for (const char *q = want; *q; q++) add_letter(iter, *q);
    for (const char *q = x->term; *q; q++) add_letter(iter, *q);
    *ok = strlen(iter) <= RF_GRAPH_MAX_RANK;
    if (!*ok) {
        rf__xlayer_unmeasured(p, li, "Einsum step over more than %d indices", RF_GRAPH_MAX_RANK);
        return RF_OK;
    }
    const rf__xtensor *xt = &p->t[x->t];
    int64_t xs[RF_GRAPH_MAX_RANK], acc = 1;
    for (int i = (int)xt->rank - 1; i >= 0; i--) {
        xs[i] = xt->dims[i] == 1 ? 0 : acc; /* a size-1 dim broadcasts */
        acc *= xt->dims[i];
    }
    c.rank = (uint32_t)strlen(iter);
    size_t nw = strlen(want);
    for (uint32_t i = 0; i < c.rank; i++) {
        c.dims[i] = e->size[(int)iter[i]];
        for (uint32_t d = 0; d < xt->rank; d++)
            if (x->term[d] == iter[i]) c.st[0][i] += xs[d];
        int64_t ys = 0;
        if (i < nw) {
            ys = 1;
            for (size_t j = i + 1; j < nw; j++) ys *= e->size[(int)want[j]];
        }
        c.st[1][i] = ys;
    }
    c.n_idx = (int64_t)letters_elems(e, want);
    if (y == RF__XNONE) RF_TRY(new_tensor(p, e, want, &y));
    uint32_t io[2] = {x->t, y};
    *out = y;
    return rf__xstep_add_kernel(p, li, ein_permute, io, 2, 1, &c);
}

/* The letters of `a` in `set`, in a's order. */
static void pick(char *dst, const char *a, const char *set, int in)
{
    size_t n = 0;
    for (const char *q = a; *q; q++)
        if ((strchr(set, *q) != NULL) == in && !memchr(dst, *q, n)) dst[n++] = *q;
    dst[n] = '\0';
}

/* Contract x and w into a new operand (or into y when the product's letters are the output's);
 * `need` = letters used after this pair. */
static rf_status contract(rf__xplan *p, uint32_t li, const rf__ein *e, const ein_op *x,
                          const ein_op *w, const char *need, uint32_t y, ein_op *res, int *ok)
{
    char both[RF_GRAPH_MAX_RANK + 1], xo[RF_GRAPH_MAX_RANK + 1], wo[RF_GRAPH_MAX_RANK + 1];
    char bat[RF_GRAPH_MAX_RANK + 1], m[RF_GRAPH_MAX_RANK + 1], n[RF_GRAPH_MAX_RANK + 1];
    char k[RF_GRAPH_MAX_RANK + 1], tmp[RF_GRAPH_MAX_RANK + 1];
    pick(both, x->term, w->term, 1);
    pick(xo, x->term, w->term, 0);
    pick(wo, w->term, x->term, 0);
    pick(tmp, need, both, 1); /* batch letters in the order they are needed */
    memcpy(bat, tmp, sizeof tmp);
    pick(k, both, need, 0);
    pick(m, need, xo, 1);
    pick(n, need, wo, 1);
    char ra[3 * RF_GRAPH_MAX_RANK + 1], rb[3 * RF_GRAPH_MAX_RANK + 1];
    char ta_s[3 * RF_GRAPH_MAX_RANK + 1], tb_s[3 * RF_GRAPH_MAX_RANK + 1];
    char prod[3 * RF_GRAPH_MAX_RANK + 1];
    snprintf(ra, sizeof ra, "%s%s%s", bat, m, k);
    snprintf(ta_s, sizeof ta_s, "%s%s%s", bat, k, m);
    snprintf(rb, sizeof rb, "%s%s%s", bat, k, n);
    snprintf(tb_s, sizeof tb_s, "%s%s%s", bat, n, k);
    snprintf(prod, sizeof prod, "%s%s%s", bat, m, n);
    *ok = strlen(ra) <= RF_GRAPH_MAX_RANK && strlen(rb) <= RF_GRAPH_MAX_RANK &&
          strlen(prod) <= RF_GRAPH_MAX_RANK;
    uint64_t Bt = letters_elems(e, bat), M = letters_elems(e, m), N = letters_elems(e, n);
    uint64_t K = letters_elems(e, k);
    if (!*ok || !Bt || !M || !N || !K || M > INT_MAX || N > INT_MAX || K > INT_MAX ||
        !letters_elems(e, prod) || !letters_elems(e, ra) || !letters_elems(e, rb)) {
        *ok = 0;
        rf__xlayer_unmeasured(p, li, "Einsum product too large or over more than %d indices",
                              RF_GRAPH_MAX_RANK);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.dims[0] = (int64_t)Bt, c.dims[1] = (int64_t)M, c.dims[2] = (int64_t)N, c.dims[3] = (int64_t)K;
    uint32_t a, b;
    if (usable(p, e, x, ra)) {
        a = x->t;
    } else if (usable(p, e, x, ta_s)) {
        a = x->t, c.st[0][0] = 1;
    } else {
        RF_TRY(permute(p, li, e, x, ra, RF__XNONE, &a, ok));
        if (!*ok) return RF_OK;
    }
    if (usable(p, e, w, rb)) {
        b = w->t;
    } else if (usable(p, e, w, tb_s)) {
        b = w->t, c.st[0][1] = 1;
    } else {
        RF_TRY(permute(p, li, e, w, rb, RF__XNONE, &b, ok));
        if (!*ok) return RF_OK;
    }
    if (y == RF__XNONE || strcmp(prod, e->out) != 0) RF_TRY(new_tensor(p, e, prod, &y));
    res->t = y;
    memcpy(res->term, prod, strlen(prod) + 1);
    uint32_t io[3] = {a, b, y};
    return rf__xstep_add_kernel(p, li, ein_gemm, io, 3, 2, &c);
}

rf_status rf__xop_einsum(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    rf__ein e;
    if (!rf__ein_parse(p->g, l, &e) || e.n < 1) {
        rf__xlayer_unmeasured(p, li, "Einsum equation not understood or input shapes unknown");
        return RF_OK;
    }
    uint32_t Y = l->outputs[0];
    if (p->t[Y].rank != strlen(e.out)) {
        rf__xlayer_unmeasured(p, li, "Einsum output rank differs from its equation");
        return RF_OK;
    }
    for (uint32_t i = 0; i < p->t[Y].rank; i++)
        if (p->t[Y].dims[i] != e.size[(int)e.out[i]]) {
            rf__xlayer_unmeasured(p, li, "Einsum output shape differs from its equation");
            return RF_OK;
        }
    if (!p->t[Y].ready) {
        dnnl_memory_desc_t md;
        rf__xdesc_plain(&md, p->t[Y].rank, p->t[Y].dims);
        rf__xtensor_define(p, Y, &md);
    }
    size_t first_step = p->n_steps;
    ein_op cur;
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &cur.t));
    memcpy(cur.term, e.term[0], sizeof cur.term);
    int ok = 1;
    for (int o = 1; o < e.n && ok; o++) {
        ein_op w, res;
        RF_TRY(rf__xtensor_plain(p, li, l->inputs[o], &w.t));
        memcpy(w.term, e.term[o], sizeof w.term);
        char need[RF__EIN_MAX * RF_GRAPH_MAX_RANK + RF_GRAPH_MAX_RANK + 1];
        snprintf(need, sizeof need, "%s", e.out);
        for (int q = o + 1; q < e.n; q++) strncat(need, e.term[q], RF_GRAPH_MAX_RANK);
        RF_TRY(contract(p, li, &e, &cur, &w, need, o + 1 == e.n ? Y : RF__XNONE, &res, &ok));
        cur = res;
    }
    if (ok && cur.t != Y) {
        uint32_t got;
        RF_TRY(permute(p, li, &e, &cur, e.out, Y, &got, &ok));
    }
    if (!ok) { /* drop the steps already added: the layer is not measured */
        while (p->n_steps > first_step) { /* (a layout copy of an input stays: harmless) */
            rf__xstep *s = &p->steps[p->n_steps - 1];
            if (s->cfn != ein_permute && s->cfn != ein_gemm) break;
            p->n_steps--;
            rf__free(p->ctx, s->io);
            rf__free(p->ctx, s->ptr);
        }
        return RF_OK;
    }
    rf__xlayer_measured(p, li, e.n > 1 ? "openblas:einsum" : "c:einsum");
    return RF_OK;
}
