/* llm_exec_ops.c — the non-matrix steps of the measured LLM pass in plain C, written to
 * vectorise: RMSNorm and LayerNorm, rotary embedding, attention over the KV cache (scores,
 * softmax and A.V as three jobs of the thread team, heads split over threads; GQA: query head h
 * reads KV head h / (H / Hkv)), SiLU / GELU, products and residual adds. Never times itself. */
#include <math.h>
#include <string.h>

#include "exec/llm_exec_int.h"

void rf__llm_norm(const float *x, float *y, uint64_t n, uint64_t c, const float *w, const float *b,
                  int layernorm, float eps)
{
    for (uint64_t r = 0; r < n; r++) {
        const float *xr = x + r * c;
        float *yr = y + r * c;
        float mean = 0, ss = 0;
        if (layernorm) {
            for (uint64_t i = 0; i < c; i++) mean += xr[i];
            mean /= (float)c;
        }
        for (uint64_t i = 0; i < c; i++) ss += (xr[i] - mean) * (xr[i] - mean);
        float inv = 1.0f / sqrtf(ss / (float)c + eps);
        for (uint64_t i = 0; i < c; i++) {
            float v = (xr[i] - mean) * inv;
            if (w) v *= w[i];
            if (b) v += b[i];
            yr[i] = v;
        }
    }
}

void rf__llm_rope_table(float *cs, uint64_t T, uint64_t D)
{
    uint64_t h = D / 2;
    for (uint64_t p = 0; p < T; p++)
        for (uint64_t i = 0; i < h; i++) {
            double th = (double)p * pow(10000.0, -2.0 * (double)i / (double)D);
            cs[2 * (p * h + i)] = (float)cos(th);
            cs[2 * (p * h + i) + 1] = (float)sin(th);
        }
}

void rf__llm_rope(float *x, uint64_t n, uint64_t heads, uint64_t D, uint64_t S, uint64_t p0,
                  const float *cs)
{
    uint64_t h2 = D / 2;
    for (uint64_t r = 0; r < n; r++) {
        const float *c = cs + 2 * (p0 + r % S) * h2;
        for (uint64_t hd = 0; hd < heads; hd++) {
            float *v = x + (r * heads + hd) * D; /* NeoX pairs: (i, i + D/2) */
            for (uint64_t i = 0; i < h2; i++) {
                float a = v[i], b = v[i + h2];
                v[i] = a * c[2 * i] - b * c[2 * i + 1];
                v[i + h2] = a * c[2 * i + 1] + b * c[2 * i];
            }
        }
    }
}

typedef struct rf__attn_job {
    rf__llm_exec *lx;
    uint64_t layer, S, p0, T;
    uint64_t i0, ni; /* the tile of query rows: i0 .. i0 + ni - 1 of the S */
} rf__attn_job;

/* Range of (b, h) pairs of thread tid. */
static void rf__attn_heads_of(const rf__llm_exec *lx, unsigned tid, unsigned n, uint64_t *a,
                              uint64_t *b)
{
    uint64_t pairs = lx->B * lx->H;
    *a = pairs * tid / n;
    *b = pairs * (tid + 1) / n;
}

static float *rf__cache_row(const rf__llm_exec *lx, float *cache, uint64_t layer, uint64_t b,
                            uint64_t t)
{
    uint64_t w = lx->Hkv * lx->D;
    return cache + ((layer * lx->B + b) * lx->Tmax + t) * w;
}

static void rf__attn_scores_job(void *arg, unsigned tid, unsigned n)
{
    const rf__attn_job *j = arg;
    rf__llm_exec *lx = j->lx;
    uint64_t a, e, D = lx->D, grp = lx->H / lx->Hkv, kw = lx->Hkv * D;
    float scale = 1.0f / sqrtf((float)D);
    rf__attn_heads_of(lx, tid, n, &a, &e);
    for (uint64_t bh = a; bh < e; bh++) {
        uint64_t b = bh / lx->H, h = bh % lx->H, hk = h / grp;
        const float *k0 = rf__cache_row(lx, lx->k_cache, j->layer, b, 0) + hk * D;
        for (uint64_t i = j->i0; i < j->i0 + j->ni; i++) {
            const float *q = lx->q + ((b * j->S + i) * lx->H + h) * D;
            float *s = lx->scores + (bh * j->ni + i - j->i0) * j->T;
            uint64_t len = j->p0 + i + 1; /* causal: positions 0 .. p0 + i */
            rf__f32_rows_dot(rf__qmatmul_isa(lx->matmul), k0, len, kw, q, D, s);
            for (uint64_t t = 0; t < len; t++) s[t] *= scale;
        }
    }
}

uint64_t rf__llm_attn_tile(uint64_t B, uint64_t H, uint64_t S, uint64_t T)
{
    uint64_t per_row = B * H * (T ? T : 1) * sizeof(float), rows = ((uint64_t)32 << 20) / per_row;
    return rows < 1 ? 1 : rows > S ? S : rows;
}

void rf__llm_attn_scores(rf__llm_exec *lx, uint64_t layer, uint64_t S, uint64_t p0, uint64_t i0,
                         uint64_t ni)
{
    rf__attn_job j = {lx, layer, S, p0, p0 + S, i0, ni};
    rf__qmatmul_parallel(lx->matmul, rf__attn_scores_job, &j);
}

static void rf__attn_softmax_job(void *arg, unsigned tid, unsigned n)
{
    const rf__attn_job *j = arg;
    rf__llm_exec *lx = j->lx;
    uint64_t a, e;
    rf__attn_heads_of(lx, tid, n, &a, &e);
    for (uint64_t bh = a; bh < e; bh++)
        for (uint64_t i = j->i0; i < j->i0 + j->ni; i++) {
            float *s = lx->scores + (bh * j->ni + i - j->i0) * j->T, mx = -INFINITY, sum = 0;
            uint64_t len = j->p0 + i + 1;
            for (uint64_t t = 0; t < len; t++) mx = s[t] > mx ? s[t] : mx;
            for (uint64_t t = 0; t < len; t++) { /* below -87 expf is subnormal: 0, as it */
                s[t] = s[t] - mx > -87.0f ? expf(s[t] - mx) : 0.0f; /* rounds to in the sum */
                sum += s[t];
            }
            float inv = 1.0f / sum;
            for (uint64_t t = 0; t < len; t++) s[t] *= inv;
        }
}

void rf__llm_attn_softmax(rf__llm_exec *lx, uint64_t S, uint64_t p0, uint64_t i0, uint64_t ni)
{
    rf__attn_job j = {lx, 0, S, p0, p0 + S, i0, ni};
    rf__qmatmul_parallel(lx->matmul, rf__attn_softmax_job, &j);
}

static void rf__attn_values_job(void *arg, unsigned tid, unsigned n)
{
    const rf__attn_job *j = arg;
    rf__llm_exec *lx = j->lx;
    uint64_t a, e, D = lx->D, grp = lx->H / lx->Hkv, kw = lx->Hkv * D;
    rf__attn_heads_of(lx, tid, n, &a, &e);
    for (uint64_t bh = a; bh < e; bh++) {
        uint64_t b = bh / lx->H, h = bh % lx->H, hk = h / grp;
        const float *v0 = rf__cache_row(lx, lx->v_cache, j->layer, b, 0) + hk * D;
        for (uint64_t i = j->i0; i < j->i0 + j->ni; i++) {
            const float *p = lx->scores + (bh * j->ni + i - j->i0) * j->T;
            float *out = lx->attn + ((b * j->S + i) * lx->H + h) * D;
            rf__f32_rows_axpy(rf__qmatmul_isa(lx->matmul), v0, j->p0 + i + 1, kw, p, D, out);
        }
    }
}

void rf__llm_attn_values(rf__llm_exec *lx, uint64_t layer, uint64_t S, uint64_t p0, uint64_t i0,
                         uint64_t ni)
{
    rf__attn_job j = {lx, layer, S, p0, p0 + S, i0, ni};
    rf__qmatmul_parallel(lx->matmul, rf__attn_values_job, &j);
}

void rf__llm_activation(float *y, uint64_t n, int gelu, int isa)
{
    if (gelu) {
        for (uint64_t i = 0; i < n; i++) {
            float v = y[i];
            y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        }
    } else {
        rf__f32_silu(isa, y, (size_t)n);
    }
}

void rf__llm_mul(float *y, const float *z, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) y[i] *= z[i];
}

void rf__llm_add(float *y, const float *z, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) y[i] += z[i];
}
