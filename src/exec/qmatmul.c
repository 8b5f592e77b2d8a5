/* qmatmul.c — the threaded drivers of the quantized matrix kernels: y = x . W^T for a weight
 * matrix of any kernel type read where it lies (the mapped file). Few activation rows (decode):
 * rows split over the thread team (qteam.c), each row's dot products dequantising in
 * registers against the activations quantised once to 8 bits (rf__act_quantize). Many rows
 * (prefill): each of the team's jobs dequantises blocks of its rows into F32 (AVX2 where it can)
 * and multiplies each with a single-threaded OpenBLAS sgemm (F32 weights go to sgemm in place).
 * Never times, never prints. */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "exec/qkernels.h"
#include "probe/probe_int.h"

#define RF__QMATMUL_GEMM_MIN_ROWS 8 /* activation rows from which sgemm beats dot products */
/* Prefill: each of the team's 4 x threads jobs dequantises its rows in blocks of about this many
 * floats (1 MiB, L2-sized) and multiplies each block with a single-threaded sgemm. One team for
 * both steps: OpenBLAS's own threads spun in sched_yield while the team dequantised, and the team
 * while they multiplied (a third of the CPU time of a 1B prefill went to the scheduler). */
#define RF__QMATMUL_BLOCK_FLOATS (1 << 18)
#define RF__QMATMUL_BUF_MAX_FLOATS (1 << 24) /* all the jobs' blocks together: at most 64 MiB */

struct rf__qmatmul {
    rf__thread_team *team;
    unsigned threads; /* in the team, the caller included */
    int isa;
    int amx, amx_allowed; /* prefill's packed products on AMX tiles (rf__qmatmul_amx) */
    void *chunk;          /* floats: one dequantised block per job */
    size_t chunk_cap;
    int blas_before; /* OpenBLAS's thread count when the driver was made, restored by free */
    void *act;       /* the S activation rows in the weight type's format (rf__act_quantize) */
    size_t act_cap;
};

rf_status rf__qmatmul_new(rf_ctx *ctx, unsigned threads, int isa, rf__qmatmul **out)
{
    *out = NULL;
    rf__qmatmul *q = rf__calloc(ctx, 1, sizeof *q);
    if (!q) return RF_NOMEM_ERR(ctx);
    if (threads == 0) {
        int cpus[256];
        threads = rf__cpus_allowed(cpus, 256);
        if (threads == 0) threads = 1;
    }
    q->threads = threads;
    q->isa = isa;
    const char *env = getenv("RF_AMX");
    int off = env && (strcmp(env, "0") == 0 || rf__strcasecmp(env, "off") == 0);
    q->amx = q->amx_allowed = isa >= RF__KERNEL_AVX512 && !off && (rf__cpu_features() & RF__F_AMX);
    rf_status st = rf__thread_team_new(ctx, threads, &q->team);
    if (st != RF_OK) {
        rf__free(ctx, q);
        return st;
    }
    q->blas_before = openblas_get_num_threads();
    openblas_set_num_threads(1); /* the team's threads call sgemm, one each */
    *out = q;
    return RF_OK;
}

void rf__qmatmul_free(rf_ctx *ctx, rf__qmatmul *q)
{
    if (!q) return;
    if (q->blas_before > 0) openblas_set_num_threads(q->blas_before);
    rf__thread_team_free(ctx, q->team);
    rf__free(ctx, q->chunk);
    rf__free(ctx, q->act);
    rf__free(ctx, q);
}

unsigned rf__qmatmul_threads(const rf__qmatmul *q)
{
    return q->threads;
}

int rf__qmatmul_isa(const rf__qmatmul *q)
{
    return q->isa;
}

int rf__qmatmul_amx(const rf__qmatmul *q)
{
    return q->amx;
}

void rf__qmatmul_set_amx(rf__qmatmul *q, int on)
{
    q->amx = on && q->amx_allowed;
}

void rf__qmatmul_parallel(rf__qmatmul *q, rf__team_job job, void *arg)
{
    rf__thread_team_run(q->team, job, arg);
}

typedef struct rf__matmul_job {
    rf__row_dot_fn dot;
    int id;
    const uint8_t *w;
    size_t row_bytes;
    uint64_t N, K, S;
    const float *x;
    const uint8_t *act; /* activation rows, act_bytes apart (x itself when act_bytes is 0) */
    size_t act_bytes;
    float *y;     /* dot products: y[s * N + r] */
    float *chunk; /* one block of `block` dequantised rows per job */
    uint64_t block;
    int isa;
    rf__rows_dot_fn rows; /* several rows at a time, or NULL */
} rf__matmul_job;

static void rf__dot_rows_job(void *arg, unsigned tid, unsigned n)
{
    const rf__matmul_job *m = arg;
    uint64_t a = m->N * tid / n, b = m->N * (tid + 1) / n;
    if (m->rows && m->act_bytes) { /* RF__ROWS_DOT_MAX rows a call, each activation in turn */
        for (uint64_t r = a; r < b; r += RF__ROWS_DOT_MAX) {
            unsigned nr = (unsigned)(b - r < RF__ROWS_DOT_MAX ? b - r : RF__ROWS_DOT_MAX);
            for (uint64_t s = 0; s < m->S; s++)
                m->rows(m->w + r * m->row_bytes, m->row_bytes, nr, m->act + s * m->act_bytes, m->K,
                        m->y + s * m->N + r);
        }
        return;
    }
    for (uint64_t r = a; r < b; r++) {
        const uint8_t *row = m->w + r * m->row_bytes;
        for (uint64_t s = 0; s < m->S; s++) {
            const void *xa = m->act_bytes ? (const void *)(m->act + s * m->act_bytes)
                                          : (const void *)(m->x + s * m->K);
            m->y[s * m->N + r] = m->dot(row, xa, m->K);
        }
    }
}

/* Job `c` of `nc`: its share of the rows, dequantised a block at a time into its own buffer (F32
 * weights are read in place) and multiplied with the activations by a single-threaded sgemm. */
static void rf__sgemm_rows_job(void *arg, unsigned c, unsigned nc)
{
    const rf__matmul_job *m = arg;
    uint64_t a = m->N * c / nc, b = m->N * (c + 1) / nc;
    float *buf = m->chunk + (size_t)c * (size_t)(m->block * m->K);
    for (uint64_t r0 = a; r0 < b; r0 += m->block) {
        uint64_t r1 = r0 + m->block < b ? r0 + m->block : b;
        const float *wt = buf;
        int ld = (int)m->K;
        if (m->id == RF__WEIGHT_F32) {
            wt = (const float *)(const void *)(m->w + r0 * m->row_bytes);
            ld = (int)(m->row_bytes / 4);
        } else {
            for (uint64_t r = r0; r < r1; r++) {
                const uint8_t *row = m->w + r * m->row_bytes;
                float *y = buf + (r - r0) * m->K;
                rf__dequant_row_isa(m->isa, m->id, row, y, m->K);
            }
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)m->S, (int)(r1 - r0), (int)m->K,
                    1.0f, m->x, (int)m->K, wt, ld, 0.0f, m->y + r0, (int)m->N);
    }
}

typedef struct rf__dots_n_job {
    const rf__matmul_job *m; /* id, dot, K, S, activations (its w, N and y unused) */
    const uint8_t *const *w;
    const uint64_t *N;
    float *const *y;
    unsigned n;
    uint64_t rows; /* of the n matrices together */
} rf__dots_n_job;

/* Part p of np: its share of the rows of the matrices end to end. */
static void rf__dots_n_part(void *arg, unsigned p, unsigned np)
{
    const rf__dots_n_job *j = arg;
    const rf__matmul_job *m = j->m;
    uint64_t r0 = j->rows * p / np, r1 = j->rows * (p + 1) / np, base = 0;
    for (unsigned i = 0; i < j->n && r0 < r1; base += j->N[i], i++) {
        uint64_t e = r1 < base + j->N[i] ? r1 : base + j->N[i];
        for (; m->rows && m->act_bytes && r0 < e;) { /* the many-row kernel, as rf__dot_rows_job */
            unsigned nr = (unsigned)(e - r0 < RF__ROWS_DOT_MAX ? e - r0 : RF__ROWS_DOT_MAX);
            for (uint64_t s = 0; s < m->S; s++)
                m->rows(j->w[i] + (r0 - base) * m->row_bytes, m->row_bytes, nr,
                        m->act + s * m->act_bytes, m->K, j->y[i] + s * j->N[i] + r0 - base);
            r0 += nr;
        }
        for (; r0 < e; r0++) {
            const uint8_t *row = j->w[i] + (r0 - base) * m->row_bytes;
            for (uint64_t s = 0; s < m->S; s++) {
                const void *xa = m->act_bytes ? (const void *)(m->act + s * m->act_bytes)
                                              : (const void *)(m->x + s * m->K);
                j->y[i][s * j->N[i] + r0 - base] = m->dot(row, xa, m->K);
            }
        }
    }
}

static rf_status rf__qmatmul_reserve(rf_ctx *ctx, void **p, size_t *cap, size_t need)
{
    if (need <= *cap) return RF_OK;
    void *n = rf__realloc(ctx, *p, need);
    if (!n) return RF_NOMEM_ERR(ctx);
    *p = n;
    *cap = need;
    return RF_OK;
}

/* The S activation rows in the type's format (rf__act_quantize) in q's buffer, into m. */
static rf_status rf__qmatmul_act(rf_ctx *ctx, rf__qmatmul *q, rf__matmul_job *m)
{
    m->act_bytes = rf__act_bytes(m->id, (size_t)m->K);
    RF_TRY(rf__qmatmul_reserve(ctx, &q->act, &q->act_cap, (size_t)m->S * m->act_bytes + 64));
    uint8_t *act = (uint8_t *)q->act + (64 - (uintptr_t)q->act % 64) % 64; /* cache lines */
    for (uint64_t s = 0; s < m->S && m->act_bytes; s++)
        rf__act_quantize(m->id, q->isa, m->x + s * m->K, (size_t)m->K, act + s * m->act_bytes);
    m->act = act;
    return RF_OK;
}

rf_status rf__qmatmul_dots_n(rf_ctx *ctx, rf__qmatmul *q, int id, const uint8_t *const *w,
                             size_t row_bytes, const uint64_t *N, unsigned n, uint64_t K,
                             const float *x, uint64_t S, float *const *y)
{
    RF_CHECK(ctx, n >= 1 && n <= RF__QMATMUL_MAX_MATS && S < RF__QMATMUL_GEMM_MIN_ROWS, RF_USAGE,
             "executor: %u matrices by %llu rows in one job", n, (unsigned long long)S);
    rf__matmul_job m = {rf__row_dot_get(id, q->isa),
                        id,
                        NULL,
                        row_bytes,
                        0,
                        K,
                        S,
                        x,
                        NULL,
                        0,
                        NULL,
                        NULL,
                        0,
                        0,
                        NULL};
    m.isa = q->isa;
    m.rows = rf__rows_dot_get(id, q->isa);
    RF_TRY(rf__qmatmul_act(ctx, q, &m));
    rf__dots_n_job j = {&m, w, N, y, n, 0};
    for (unsigned i = 0; i < n; i++) j.rows += N[i];
    rf__qmatmul_parallel(q, rf__dots_n_part, &j);
    return RF_OK;
}

rf_status rf__qmatmul_run(rf_ctx *ctx, rf__qmatmul *q, int id, const void *w, size_t row_bytes,
                          uint64_t N, uint64_t K, const float *x, uint64_t S, float *y)
{
    rf__matmul_job m = {
        rf__row_dot_get(id, q->isa), id, w, row_bytes, N, K, S, x, NULL, 0, y, NULL, 0, 0, NULL};
    m.isa = q->isa;
    m.rows = rf__rows_dot_get(id, q->isa);
    if (S < RF__QMATMUL_GEMM_MIN_ROWS) {
        RF_TRY(rf__qmatmul_act(ctx, q, &m)); /* quantised once, read by every row */
        rf__qmatmul_parallel(q, rf__dot_rows_job, &m);
        return RF_OK;
    }
    unsigned jobs = 4 * q->threads; /* as the team splits a job (qteam.c) */
    uint64_t block = RF__QMATMUL_BLOCK_FLOATS / K;
    if (block * K * jobs > RF__QMATMUL_BUF_MAX_FLOATS)
        block = RF__QMATMUL_BUF_MAX_FLOATS / jobs / K;
    if (block < 4) block = 4;
    if (block > N) block = N;
    m.block = block;
    if (id != RF__WEIGHT_F32)
        RF_TRY(rf__qmatmul_reserve(ctx, &q->chunk, &q->chunk_cap, (size_t)(block * K) * 4 * jobs));
    m.chunk = q->chunk;
    rf__qmatmul_parallel(q, rf__sgemm_rows_job, &m);
    return RF_OK;
}
