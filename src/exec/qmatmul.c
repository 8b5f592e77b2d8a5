/* qmatmul.c — the threaded drivers of the quantized matrix kernels: y = x . W^T for a weight
 * matrix of any kernel type read where it lies (the mapped file). Few activation rows (decode):
 * rows split over the thread team (qteam.c), each row's dot products dequantising in
 * registers against the activations quantised once to 8 bits (rf__qk_act). Many rows (prefill): row
 * chunks dequantised into F32 by the team, then OpenBLAS sgemm (F32 weights go to sgemm directly).
 * Never times, never prints. */
#include <cblas.h>
#include <string.h>

#include "exec/qkernels.h"
#include "probe/probe_int.h"

#define RF__QMM_GEMM_MIN 8             /* activation rows from which sgemm beats dot products */
#define RF__QMM_CHUNK_FLOATS (1 << 20) /* dequantised chunk: 4 MiB, L2/L3-sized */

struct rf__qmm {
    rf__qteam *team;
    unsigned n;
    int isa;
    void *chunk; /* floats: RF__QMM_CHUNK_FLOATS (or 16 rows, when longer) */
    size_t chunk_cap;
    void *act; /* the S activation rows in the weight type's format (rf__qk_act) */
    size_t act_cap;
};

rf_status rf__qmm_new(rf_ctx *ctx, unsigned threads, int isa, rf__qmm **out)
{
    *out = NULL;
    rf__qmm *q = rf__calloc(ctx, 1, sizeof *q);
    if (!q) return RF_NOMEM_ERR(ctx);
    if (threads == 0) {
        int cpus[256];
        threads = rf__cpus_allowed(cpus, 256);
        if (threads == 0) threads = 1;
    }
    q->n = threads;
    q->isa = isa;
    rf_status st = rf__qteam_new(ctx, threads, &q->team);
    if (st != RF_OK) {
        rf__free(ctx, q);
        return st;
    }
    openblas_set_num_threads((int)threads); /* the same thread count for OpenBLAS */
    *out = q;
    return RF_OK;
}

void rf__qmm_free(rf_ctx *ctx, rf__qmm *q)
{
    if (!q) return;
    rf__qteam_free(ctx, q->team);
    rf__free(ctx, q->chunk);
    rf__free(ctx, q->act);
    rf__free(ctx, q);
}

unsigned rf__qmm_threads(const rf__qmm *q)
{
    return q->n;
}

int rf__qmm_isa(const rf__qmm *q)
{
    return q->isa;
}

void rf__qmm_parallel(rf__qmm *q, rf__qmm_job job, void *arg)
{
    rf__qteam_run(q->team, job, arg);
}

typedef struct rf__mv {
    rf__qk_dot_fn dot;
    int id;
    const uint8_t *w;
    size_t row_bytes;
    uint64_t N, K, S;
    const float *x;
    const uint8_t *act; /* activation rows, act_bytes apart (x itself when act_bytes is 0) */
    size_t act_bytes;
    float *y;     /* dot products: y[s * N + r] */
    float *chunk; /* dequantise: rows [r0, r1) into chunk */
    uint64_t r0, r1;
    int isa;
} rf__mv;

static void rf__mv_job(void *arg, unsigned tid, unsigned n)
{
    const rf__mv *m = arg;
    uint64_t a = m->N * tid / n, b = m->N * (tid + 1) / n;
    for (uint64_t r = a; r < b; r++) {
        const uint8_t *row = m->w + r * m->row_bytes;
        for (uint64_t s = 0; s < m->S; s++) {
            const void *xa = m->act_bytes ? (const void *)(m->act + s * m->act_bytes)
                                          : (const void *)(m->x + s * m->K);
            m->y[s * m->N + r] = m->dot(row, xa, m->K);
        }
    }
}

static void rf__dq_job(void *arg, unsigned tid, unsigned n)
{
    const rf__mv *m = arg;
    uint64_t rows = m->r1 - m->r0, a = m->r0 + rows * tid / n, b = m->r0 + rows * (tid + 1) / n;
    for (uint64_t r = a; r < b; r++) {
        const uint8_t *row = m->w + r * m->row_bytes;
        float *y = m->chunk + (r - m->r0) * m->K;
        if (!(m->isa >= RF__QISA_AVX2 && rf__qk_dequant_avx2(m->id, row, y, m->K)))
            rf__qk_dequant(m->id, row, y, m->K);
    }
}

static rf_status rf__qmm_reserve(rf_ctx *ctx, void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return RF_OK;
    void *n = rf__realloc(ctx, *p, need);
    if (!n) return RF_NOMEM_ERR(ctx);
    *p = n;
    *cap = need;
    return RF_OK;
}

rf_status rf__qmm_run(rf_ctx *ctx, rf__qmm *q, int id, const void *w, size_t row_bytes, uint64_t N,
                      uint64_t K, const float *x, uint64_t S, float *y)
{
    rf__mv m = {rf__qk_get(id, q->isa), id, w, row_bytes, N, K, S, x, NULL, 0, y, NULL, 0, 0, 0};
    m.isa = q->isa;
    if (S < RF__QMM_GEMM_MIN) {
        /* the activations quantised once, read by every row */
        m.act_bytes = rf__qk_act_bytes(id, (size_t)K);
        RF_TRY(rf__qmm_reserve(ctx, &q->act, &q->act_cap, (size_t)S * m.act_bytes + 64));
        uint8_t *act = (uint8_t *)q->act + (64 - (uintptr_t)q->act % 64) % 64; /* cache lines */
        for (uint64_t s = 0; s < S && m.act_bytes; s++)
            rf__qk_act(id, q->isa, x + s * K, (size_t)K, act + s * m.act_bytes);
        m.act = act;
        rf__qmm_parallel(q, rf__mv_job, &m);
        return RF_OK;
    }
    if (id == RF__QK_F32) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)N, (int)K, 1.0f, x,
                    (int)K, w, (int)(row_bytes / 4), 0.0f, y, (int)N);
        return RF_OK;
    }
    uint64_t rows = RF__QMM_CHUNK_FLOATS / K;
    if (rows < 16) rows = 16;
    if (rows > N) rows = N;
    RF_TRY(rf__qmm_reserve(ctx, &q->chunk, &q->chunk_cap, (size_t)(rows * K) * 4));
    m.chunk = q->chunk;
    for (uint64_t r0 = 0; r0 < N; r0 += rows) {
        m.r0 = r0;
        m.r1 = r0 + rows < N ? r0 + rows : N;
        rf__qmm_parallel(q, rf__dq_job, &m);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)S, (int)(m.r1 - r0), (int)K, 1.0f,
                    x, (int)K, q->chunk, (int)K, 0.0f, y + r0, (int)N);
    }
    return RF_OK;
}
