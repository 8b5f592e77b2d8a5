/* op_llm.c — the LLM builders' own layer kinds (src/llm) in the graph executor, in plain C on
 * plain tensors: RMSNorm (the measured LLM pass's kernel, rf__llm_norm), RotaryEmbedding (NeoX
 * pairs (i, i + D/2); cos and sin computed once per position and shared by its heads, as
 * llama.cpp does), KVStore (the new K and V rows copied out, as into the cache) and the MoE
 * expert matmuls (OpenBLAS, grouped by expert). The attention matmuls are in op_gemm.c. Values
 * are synthetic: positions count from 0 in every pass, routing is synthetic (below). */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "exec/exec_int.h"
#include "exec/llm_exec_int.h"

#define RF__ROPE_MAX_HALF 1024 /* head_dim up to 2048 */

static void rmsnorm(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    rf__llm_norm(s->ptr[0], s->ptr[s->n_in], (uint64_t)c->outer, (uint64_t)c->inner,
                 s->n_in > 1 ? s->ptr[1] : NULL, NULL, 0, c->value);
}

/* x [rows, H*D] rotated into y [rows, H*D]; row r is position r % S (c->axis_n = S). */
static void rope(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0];
    float *y = s->ptr[1];
    int64_t D = c->inner, H = c->n_idx, h2 = D / 2;
    float cs[2 * RF__ROPE_MAX_HALF];
    for (int64_t r = 0; r < c->outer; r++) {
        double pos = (double)(r % c->axis_n);
        for (int64_t i = 0; i < h2; i++) {
            double th = pos * pow(10000.0, -2.0 * (double)i / (double)D);
            cs[2 * i] = (float)cos(th);
            cs[2 * i + 1] = (float)sin(th);
        }
        for (int64_t h = 0; h < H; h++) {
            const float *a = x + (r * H + h) * D;
            float *b = y + (r * H + h) * D;
            for (int64_t i = 0; i < h2; i++) {
                float u = a[i], v = a[i + h2];
                b[i] = u * cs[2 * i] - v * cs[2 * i + 1];
                b[i + h2] = u * cs[2 * i + 1] + v * cs[2 * i];
            }
            if (D % 2) b[D - 1] = a[D - 1];
        }
    }
}

static void kvstore(const rf__xstep *s)
{
    for (uint32_t i = 0; i < s->n_in; i++)
        memcpy(s->ptr[s->n_in + i], s->ptr[i], (size_t)s->c.n_idx * sizeof(float));
}

/* MoE expert matmul: x [BS, in] (gate/up) or [BS, u, in] (down) against the active experts
 * W [E, out, in] into y [BS, u, out]. Synthetic routing that keeps each expert's tokens
 * contiguous, as grouped kernels (llama.cpp's mul_mat_id) arrange them: the token-slot pairs taken
 * slot-major (p = j * BS + t) are cut into E equal runs, run e to expert e. Each run is one sgemm
 * per slot it spans, so every expert's weights are read once per pass.
 * c: outer = BS, n_idx = u, axis_n = E, inner = in, off = out, value = x has a slot axis. */
static void moe(const rf__xstep *s)
{
    const rf__xkernel_args *c = &s->c;
    const float *x = s->ptr[0], *w = s->ptr[1];
    float *y = s->ptr[2];
    int64_t BS = c->outer, u = c->n_idx, E = c->axis_n, K = c->inner, N = c->off;
    int64_t P = BS * u, ldx = c->value != 0 ? u * K : K, colx = c->value != 0 ? K : 0;
    for (int64_t e = 0; e < E; e++) {
        int64_t p0 = e * P / E, p1 = (e + 1) * P / E;
        while (p0 < p1) {
            int64_t j = p0 / BS, t0 = p0 % BS, t1 = p1 - j * BS < BS ? p1 - j * BS : BS;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)(t1 - t0), (int)N, (int)K,
                        1.0f, x + t0 * ldx + j * colx, (int)ldx, w + e * N * K, (int)K, 0.0f,
                        y + t0 * u * N + j * N, (int)(u * N));
            p0 = j * BS + t1;
        }
    }
}

static uint64_t elems_of(const rf__xtensor *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) n *= (uint64_t)t->dims[i];
    return n;
}

int rf__xop_llm_is_expert(const rf__xplan *p, uint32_t li)
{
    /* the builder's expert matmuls: x against a rank-3 weight into [BS, u, out] */
    const rf_layer *l = &p->g->layers[li];
    return !strcmp(l->op_type, "MatMul") && l->n_inputs == 2 && l->n_outputs == 1 &&
           l->inputs[0] != RF_GRAPH_NO_TENSOR && l->inputs[1] != RF_GRAPH_NO_TENSOR &&
           p->t[l->inputs[1]].rank == 3 && p->t[l->inputs[1]].weight &&
           p->t[l->outputs[0]].rank == 3 &&
           (p->t[l->inputs[0]].rank == 2 || p->t[l->inputs[0]].rank == 3);
}

rf_status rf__xop_llm(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    int norm = !strcmp(l->op_type, "RMSNorm"), rot = !strcmp(l->op_type, "RotaryEmbedding");
    int kv = !strcmp(l->op_type, "KVStore");
    int ex = rf__xop_llm_is_expert(p, li);
    if (!(norm || rot || kv || ex)) {
        rf__xlayer_unmeasured(p, li, "no LLM kernel for op '%s'", l->op_type);
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    uint32_t io[4], xu[2];
    for (uint32_t i = 0; i < l->n_inputs && i < 2; i++) {
        if (l->inputs[i] == RF_GRAPH_NO_TENSOR) {
            rf__xlayer_unmeasured(p, li, "%s without input %u", l->op_type, i);
            return RF_OK;
        }
        RF_TRY(rf__xtensor_plain(p, li, l->inputs[i], &xu[i]));
    }
    if (norm) {
        const rf__xtensor *x = &p->t[xu[0]];
        uint64_t n = elems_of(x);
        c.inner = x->rank ? x->dims[x->rank - 1] : 1;
        c.outer = c.inner ? (int64_t)(n / (uint64_t)c.inner) : 0;
        int w = l->n_inputs > 1 && elems_of(&p->t[xu[1]]) == (uint64_t)c.inner;
        const rf_attr *e = rf_layer_attr(l, "epsilon");
        c.value = e && e->type == RF_ATTR_FLOAT ? (float)e->f : 1e-5f;
        if (!c.inner || elems_of(&p->t[l->outputs[0]]) != n) {
            rf__xlayer_unmeasured(p, li, "RMSNorm output differs from its input");
            return RF_OK;
        }
        io[0] = xu[0], io[1] = xu[1], io[1 + w] = l->outputs[0];
        rf__xlayer_measured(p, li, "c:rmsnorm");
        return rf__xstep_add_kernel(p, li, rmsnorm, io, 2 + (uint32_t)w, 1 + (uint32_t)w, &c);
    }
    if (ex) {
        const rf__xtensor *x = &p->t[xu[0]], *w = &p->t[xu[1]], *y = &p->t[l->outputs[0]];
        int slots = x->rank == 3;
        c.outer = y->dims[0], c.n_idx = y->dims[1], c.off = y->dims[2];
        c.axis_n = w->dims[0], c.inner = w->dims[2], c.value = (float)slots;
        if (x->dims[0] != c.outer || x->dims[x->rank - 1] != c.inner || w->dims[1] != c.off ||
            (slots && x->dims[1] != c.n_idx) || c.axis_n < 1 || c.axis_n > c.outer * c.n_idx ||
            c.inner > INT32_MAX || c.off * c.n_idx > INT32_MAX || c.outer > INT32_MAX) {
            rf__xlayer_unmeasured(p, li, "expert matmul shapes do not agree");
            return RF_OK;
        }
        io[0] = xu[0], io[1] = xu[1], io[2] = l->outputs[0];
        rf__xlayer_measured(p, li, "openblas:moe");
        return rf__xstep_add_kernel(p, li, moe, io, 3, 2, &c);
    }
    if (rot) {
        const rf__xtensor *y = &p->t[l->outputs[0]]; /* [B, S, H, D] */
        if (y->rank != 4 || elems_of(&p->t[xu[0]]) != elems_of(y) || y->dims[3] < 2 ||
            y->dims[3] > 2 * RF__ROPE_MAX_HALF) {
            rf__xlayer_unmeasured(p, li,
                                  "RotaryEmbedding of a shape other than [B, S, heads, head_dim]");
            return RF_OK;
        }
        c.outer = y->dims[0] * y->dims[1], c.axis_n = y->dims[1] ? y->dims[1] : 1;
        c.n_idx = y->dims[2], c.inner = y->dims[3];
        io[0] = xu[0], io[1] = l->outputs[0];
        rf__xlayer_measured(p, li, "c:rope");
        return rf__xstep_add_kernel(p, li, rope, io, 2, 1, &c);
    }
    if (l->n_inputs != 2 || l->n_outputs != 2 ||
        elems_of(&p->t[xu[0]]) != elems_of(&p->t[l->outputs[0]]) ||
        elems_of(&p->t[xu[1]]) != elems_of(&p->t[xu[0]]) ||
        elems_of(&p->t[l->outputs[1]]) != elems_of(&p->t[xu[0]])) {
        rf__xlayer_unmeasured(p, li, "KVStore: K and V in and out must agree");
        return RF_OK;
    }
    c.n_idx = (int64_t)elems_of(&p->t[xu[0]]);
    io[0] = xu[0], io[1] = xu[1], io[2] = l->outputs[0], io[3] = l->outputs[1];
    rf__xlayer_measured(p, li, "c:kvstore");
    return rf__xstep_add_kernel(p, li, kvstore, io, 4, 2, &c);
}
