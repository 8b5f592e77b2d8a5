/* qroof.c — the kernel ceiling of quantized decode (issue 28): how many bytes of weights per
 * second the project's own dot kernel of each weight type consumes, on one core and on every
 * thread at once, from rows held in L2 (the kernel alone) and streamed from a matrix larger than
 * the last-level cache (the kernel fed by DRAM). Timed by the probe's harness on its pinned team;
 * the kernels never time themselves. `llm` sets a decode against min(DRAM, this ceiling). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/qgemm.h"
#include "exec/qkernels.h"
#include "probe/probe_int.h"
#include "roofline/exec_llm.h"

#define RF__QROOF_K 2048                /* row length: a 1B model's hidden size */
#define RF__QROOF_L2_BYTES (256u << 10) /* per thread: half of the smallest L2 of a recent core */
#define RF__QROOF_DRAM_MIN (256ull << 20)
#define RF__QROOF_DRAM_MAX (1024ull << 20)
/* Timed passes: the median is the figure, min and max its spread. A DRAM-fed pass reads the whole
 * matrix once (50-100 ms here), so 7 of them hold the median steady against a neighbour's burst
 * or a pass that happened to find some of the matrix still in a shared last-level cache. */
#define RF__QROOF_REPS_L2 5
#define RF__QROOF_REPS_DRAM 7
#define RF__HARNESS_MAX_THREADS_QROOF 256 /* the harness's limit (harness.c) */

typedef struct rf__qroof_job {
    rf__row_dot_fn dot;
    rf__qgemv_kernel_fn gemv; /* the packed kernel decode calls instead (Q8_0, Q4_0, Q4_1) */
    rf__rows_dot_fn many;     /* or the many-row kernel rf__qmatmul_run calls, or NULL */
    uint8_t *w;               /* threads x per_thread bytes of rows (or of packed groups) */
    size_t per_thread, row_bytes, rows;
    rf__qgemm_w packed; /* one group's description, data set per group */
    const void *act;
    float sink[RF__HARNESS_MAX_THREADS_QROOF];
} rf__qroof_job;

/* The packed kernel decode calls for type id at level isa (Q8_0, Q4_0, Q4_1 at AVX-512 VNNI:
 * llm_exec_pass.c packs only there), or NULL. */
static rf__qgemv_kernel_fn rf__qroof_gemv(int id, int isa)
{
    if (isa < RF__KERNEL_AVX512 || !rf__qgemv_supported(id)) return NULL;
    rf__qgemm_w form = {0};
    form.nib = rf__qgemv_nib(id);
    rf__qgemv_kernel_fn f = rf__qgemv_kernel_for(&form, isa);
    return f == rf__qgemv_kernel_ref || f == rf__qgemv_nib_kernel_ref ? NULL : f;
}

static void rf__qroof_work(void *arg, unsigned tid, uint64_t units)
{
    rf__qroof_job *j = arg;
    const uint8_t *w = j->w + (size_t)tid * j->per_thread;
    float s = 0;
    if (j->gemv) {
        rf__qgemm_w g = j->packed;
        float y[RF__QGEMM_ROWS];
        for (uint64_t u = 0; u < units; u++)
            for (size_t r = 0; r < j->rows; r += RF__QGEMM_ROWS) {
                g.data = (uint8_t *)(uintptr_t)(w + r / RF__QGEMM_ROWS * g.group_bytes);
                j->gemv(&g, 0, j->act, RF__QGEMM_ROWS, y);
                s += y[0];
            }
    } else if (j->many) { /* RF__ROWS_DOT_MAX rows a call, as qmatmul.c calls it */
        float y[RF__ROWS_DOT_MAX];
        for (uint64_t u = 0; u < units; u++)
            for (size_t r = 0; r < j->rows; r += RF__ROWS_DOT_MAX) {
                unsigned nr =
                    (unsigned)(j->rows - r < RF__ROWS_DOT_MAX ? j->rows - r : RF__ROWS_DOT_MAX);
                j->many(w + r * j->row_bytes, j->row_bytes, nr, j->act, RF__QROOF_K, y);
                s += y[0];
            }
    } else {
        for (uint64_t u = 0; u < units; u++)
            for (size_t r = 0; r < j->rows; r++)
                s += j->dot(w + r * j->row_bytes, j->act, RF__QROOF_K);
    }
    j->sink[tid] += s;
}

static uint64_t rf__qroof_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* `bytes` (a multiple of the block) of valid blocks of type id: random quants, F16 scales in
 * [2^-14, 2^-13) (NaN or denormal scales would be unlike a real file), F16/BF16/F32 weights of
 * magnitude 2^-8..2^-6. A 64 KiB pattern repeated. */
static void rf__qroof_fill(int id, uint8_t *p, size_t bytes)
{
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    uint8_t pat[65536]; /* whole blocks of it repeated */
    size_t n = sizeof pat / bb * bb;
    uint64_t s = 88172645463325252ull + (uint64_t)id;
    for (size_t i = 0; i < n; i++) pat[i] = (uint8_t)rf__qroof_rng(&s);
    rf_dtype t = rf__weight_dtype(id);
    for (size_t i = 0; i + bb <= n; i += bb) {
        uint64_t r = rf__qroof_rng(&s);
        uint16_t h = (uint16_t)(0x0400 + (r & 0x3ff)),
                 v = (uint16_t)(((r >> 10) & 0x83ff) | 0x1c00);
        if (t == RF_DTYPE_F16) memcpy(pat + i, &v, 2);
        if (t == RF_DTYPE_BF16) { /* the same magnitude as bfloat16 */
            v = (uint16_t)(((r >> 10) & 0x807f) | 0x3c00);
            memcpy(pat + i, &v, 2);
        }
        if (t == RF_DTYPE_F32) {
            float f = (float)((double)(int32_t)(r >> 32) * 1e-11);
            memcpy(pat + i, &f, 4);
        }
        if (t == RF_DTYPE_Q8_0 || t == RF_DTYPE_Q4_0 || t == RF_DTYPE_Q4_K || t == RF_DTYPE_Q4_1 ||
            t == RF_DTYPE_Q5_0 || t == RF_DTYPE_Q5_1 || t == RF_DTYPE_Q5_K)
            memcpy(pat + i, &h, 2);
        if (t == RF_DTYPE_Q4_K || t == RF_DTYPE_Q4_1 || t == RF_DTYPE_Q5_1 || t == RF_DTYPE_Q5_K)
            memcpy(pat + i + 2, &h, 2);
        if (t == RF_DTYPE_Q6_K) memcpy(pat + i + 208, &h, 2);
        if (t == RF_DTYPE_Q2_K) memcpy(pat + i + 80, &h, 2), memcpy(pat + i + 82, &h, 2);
        if (t == RF_DTYPE_Q3_K) memcpy(pat + i + 108, &h, 2);
    }
    for (size_t o = 0; o < bytes; o += n) memcpy(p + o, pat, bytes - o < n ? bytes - o : n);
}

rf_status rf__qkernel_rate_stats(rf_ctx *ctx, int id, int isa, unsigned threads, int dram,
                                 double min_time_s, rf__stats *stats)
{
    memset(stats, 0, sizeof *stats);
    RF_CHECK(ctx,
             id >= 0 && id < RF__WEIGHT_TYPES && threads >= 1 &&
                 threads <= RF__HARNESS_MAX_THREADS_QROOF,
             RF_RANGE, "kernel ceiling: type %d on %u threads is out of range", id, threads);
    uint32_t be, bb;
    rf__weight_block(id, &be, &bb);
    rf__qroof_job j = {0};
    j.dot = rf__row_dot_get(id, isa);
    j.gemv = rf__qroof_gemv(id, isa);
    j.many = j.gemv ? NULL : rf__rows_dot_get(id, isa);
    j.row_bytes = (size_t)RF__QROOF_K / be * bb;
    uint64_t total = RF__QROOF_L2_BYTES * (uint64_t)threads;
    if (dram) {
        uint64_t c[4];
        rf__cache_sizes(c);
        uint64_t llc = c[3] ? c[3] : c[2];
        total = 3 * llc > RF__QROOF_DRAM_MIN ? 3 * llc : RF__QROOF_DRAM_MIN;
        if (total > RF__QROOF_DRAM_MAX) total = RF__QROOF_DRAM_MAX;
    }
    j.rows = (size_t)(total / threads / j.row_bytes);
    size_t unit = 1; /* rows per call */
    if (j.gemv) {    /* whole groups of 16 rows, packed as decode reads them */
        unit = RF__QGEMM_ROWS;
        j.rows = j.rows / unit * unit;
    }
    if (j.rows < 4 * unit) j.rows = 4 * unit;
    j.per_thread = j.rows * j.row_bytes;
    uint8_t *tmp = NULL;
    if (j.gemv) {
        tmp = rf__malloc(ctx, RF__QGEMM_ROWS * j.row_bytes + 64);
        if (!tmp) return RF_NOMEM_ERR(ctx);
        j.per_thread = j.rows / RF__QGEMM_ROWS * rf__qgemv_bytes(id, RF__QGEMM_ROWS, RF__QROOF_K);
    }
    size_t act_bytes = rf__act_bytes(id, RF__QROOF_K);
    float *x = rf__malloc(ctx, RF__QROOF_K * sizeof *x + act_bytes + 64);
    void *wmem = rf__malloc(ctx, j.per_thread * threads + 64);
    j.w = wmem ? (uint8_t *)wmem + (64 - (uintptr_t)wmem % 64) % 64 : NULL;
    rf__team *team = NULL;
    rf_status st = !x || !j.w ? RF_NOMEM_ERR(ctx) : rf__team_new(ctx, threads, &team);
    if (st == RF_OK) {
        uint64_t s = 1;
        for (size_t i = 0; i < RF__QROOF_K; i++)
            x[i] = (float)((double)(int32_t)rf__qroof_rng(&s) * 4.7e-10);
        uint8_t *buf = (uint8_t *)(x + RF__QROOF_K);
        buf += (64 - (uintptr_t)buf % 64) % 64;
        j.act = rf__act_quantize(id, isa, x, RF__QROOF_K, buf);
        if (j.gemv) { /* one group of random rows packed, repeated */
            uint8_t *raw = tmp + (64 - (uintptr_t)tmp % 64) % 64;
            rf__qroof_fill(id, raw, RF__QGEMM_ROWS * j.row_bytes);
            rf__qgemv_pack(id, raw, j.row_bytes, RF__QGEMM_ROWS, RF__QROOF_K, j.w, &j.packed);
            for (size_t o = j.packed.group_bytes; o < j.per_thread * threads;
                 o += j.packed.group_bytes)
                memcpy(j.w + o, j.w, j.packed.group_bytes);
        } else {
            rf__qroof_fill(id, j.w, j.per_thread * threads);
        }
        /* the bytes of the file's rows a pass reads (the packed form is as large) */
        rf__bench b = {team,       rf__qroof_work,
                       &j,         (double)(j.rows * j.row_bytes),
                       min_time_s, dram ? RF__QROOF_REPS_DRAM : RF__QROOF_REPS_L2};
        st = rf__bench_run(ctx, &b, stats);
    }
    rf__team_free(ctx, team);
    rf__free(ctx, wmem);
    rf__free(ctx, tmp);
    rf__free(ctx, x);
    return st;
}

rf_status rf__qkernel_rate(rf_ctx *ctx, int id, int isa, unsigned threads, int dram,
                           double min_time_s, double *bytes_per_s)
{
    rf__stats s;
    *bytes_per_s = 0;
    RF_TRY(rf__qkernel_rate_stats(ctx, id, isa, threads, dram, min_time_s, &s));
    *bytes_per_s = s.median;
    return RF_OK;
}

/* "q4_k.gemv.avx512": the type in lower case, like fp32.gemm.openblas ("dot" would clash with
 * the probe's bf16.dot.avx512 instruction peak). */
static void rf__qroof_name(int id, int isa, char *out, size_t cap)
{
    char t[16];
    size_t i = 0;
    for (const char *p = rf_dtype_name(rf__weight_dtype(id)); *p && i + 1 < sizeof t; p++)
        t[i++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    t[i] = '\0';
    snprintf(out, cap, "%s.gemv.%s", t, rf__kernel_isa_name(isa));
}

void rf_exec_kernel_ceiling_name(rf_dtype t, char *out, size_t cap)
{
    int id = rf__weight_type(t);
    if (cap) out[0] = '\0';
    if (id >= 0 && cap) rf__qroof_name(id, rf__kernel_isa_best(), out, cap);
}

rf_status rf_exec_kernel_ceiling(rf_ctx *ctx, rf_dtype t, unsigned threads, double min_time_s,
                                 int dram, rf_ceiling *out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, out, RF_USAGE, "rf_exec_kernel_ceiling: no output");
    memset(out, 0, sizeof *out);
    int id = rf__weight_type(t), isa = rf__kernel_isa_best();
    RF_CHECK(ctx, id >= 0, RF_UNSUPPORTED, "no dot kernel for %s weights", rf_dtype_name(t));
    if (threads == 0) {
        int cpus[256];
        threads = rf__cpus_allowed(cpus, 256);
        if (threads == 0) threads = 1;
    }
    if (threads > RF__HARNESS_MAX_THREADS_QROOF) threads = RF__HARNESS_MAX_THREADS_QROOF;
    rf__stats s_l2_1, s_l2_n, s_dram_1, s_dram_n;
    memset(&s_dram_1, 0, sizeof s_dram_1);
    memset(&s_dram_n, 0, sizeof s_dram_n);
    RF_TRY(rf__qkernel_rate_stats(ctx, id, isa, 1, 0, min_time_s, &s_l2_1));
    s_l2_n = s_l2_1;
    if (threads > 1) RF_TRY(rf__qkernel_rate_stats(ctx, id, isa, threads, 0, min_time_s, &s_l2_n));
    if (dram) {
        RF_TRY(rf__qkernel_rate_stats(ctx, id, isa, 1, 1, min_time_s, &s_dram_1));
        s_dram_n = s_dram_1;
        if (threads > 1)
            RF_TRY(rf__qkernel_rate_stats(ctx, id, isa, threads, 1, min_time_s, &s_dram_n));
    }
    double l2_1 = s_l2_1.median, l2_n = s_l2_n.median, dram_1 = s_dram_1.median,
           dram_n = s_dram_n.median;
    rf__qroof_name(id, isa, out->name, sizeof out->name);
    out->kind = RF_CEILING_BANDWIDTH;
    /* decode streams its weights from memory: with the DRAM figures, the rate the kernel keeps up
     * while they stream (when lower than from L2) is the roof a decode can reach */
    int fed = dram && dram_n > 0 && dram_n < l2_n;
    const rf__stats *sv = fed ? &s_dram_n : &s_l2_n;
    out->value = sv->median;
    out->provenance = RF_PROV_MEASURED;
    const char *kern = rf__qroof_gemv(id, isa)     ? "packed 16-row"
                       : rf__rows_dot_get(id, isa) ? "many-row"
                                                   : "row";
    if (fed)
        snprintf(out->source, sizeof out->source,
                 "roofline: the %s %s dot kernel (%s) on rows of %d weights streamed from a "
                 "matrix past the last-level cache, median of %u passes",
                 rf_dtype_name(t), kern, rf__kernel_isa_name(isa), RF__QROOF_K, sv->n);
    else
        snprintf(out->source, sizeof out->source,
                 "roofline: the %s %s dot kernel (%s) on rows of %d weights held in L2, median "
                 "of %u passes",
                 rf_dtype_name(t), kern, rf__kernel_isa_name(isa), RF__QROOF_K, sv->n);
    char a[32], b[32], c[32], d[32], lo[32], hi[32];
    rf_si_format(lo, sizeof lo, sv->min, 3, "");
    rf_si_format(hi, sizeof hi, sv->max, 3, "");
    if (dram)
        snprintf(out->note, sizeof out->note,
                 "kernel ceiling, not a memory level: weight bytes/s the %s dot kernel consumes "
                 "(medians); 1 core %sB/s from L2, %sB/s from DRAM; %u cores %sB/s from L2, "
                 "%sB/s from DRAM (passes %s-%sB/s)",
                 rf_dtype_name(t), rf_si_format(a, sizeof a, l2_1, 3, ""),
                 rf_si_format(b, sizeof b, dram_1, 3, ""), threads,
                 rf_si_format(c, sizeof c, l2_n, 3, ""), rf_si_format(d, sizeof d, dram_n, 3, ""),
                 lo, hi);
    else
        snprintf(out->note, sizeof out->note,
                 "kernel ceiling, not a memory level: weight bytes/s the %s dot kernel consumes "
                 "(medians); 1 core %sB/s from L2; %u cores %sB/s from L2 (passes %s-%sB/s)",
                 rf_dtype_name(t), rf_si_format(a, sizeof a, l2_1, 3, ""), threads,
                 rf_si_format(c, sizeof c, l2_n, 3, ""), lo, hi);
    out->stats.threads = threads;
    out->stats.repetitions = sv->n;
    out->stats.min = sv->min;
    out->stats.median = sv->median;
    out->stats.max = sv->max;
    return RF_OK;
}

rf_status rf_exec_kernel_ceilings(rf_ctx *ctx, rf_machine *m, unsigned threads, double min_time_s)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, m, RF_USAGE, "rf_exec_kernel_ceilings: no machine");
    for (int id = 0; id < RF__WEIGHT_TYPES; id++) {
        rf_ceiling c;
        RF_TRY(rf_exec_kernel_ceiling(ctx, rf__weight_dtype(id), threads, min_time_s, 1, &c));
        RF_TRY(rf_machine_add(ctx, m, &c));
    }
    return RF_OK;
}
