/* gemm.c — the "achievable" ceiling of real code: OpenBLAS dgemm and sgemm on square matrices large
 * enough to saturate the cores (the fasterbench method), on one thread and on all. A line below the
 * roof, reported beside the kernel peaks as fp64.gemm.openblas and fp32.gemm.openblas. */
#include <cblas.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"

typedef struct rf__gemm_job {
    int fp64;
    int n;
    void *a, *b, *c;
} rf__gemm_job;

static void rf__gemm_work(void *arg, unsigned tid, uint64_t units)
{
    rf__gemm_job *j = arg;
    (void)tid;
    for (uint64_t u = 0; u < units; u++) {
        if (j->fp64)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j->n, j->n, j->n, 1.0, j->a,
                        j->n, j->b, j->n, 0.0, j->c, j->n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, j->n, j->n, j->n, 1.0f, j->a,
                        j->n, j->b, j->n, 0.0f, j->c, j->n);
    }
}

static rf_status rf__gemm_one(rf__probe_run *run, rf__team *team, int fp64, unsigned threads,
                              rf__stats *s)
{
    rf__gemm_job j = {fp64, fp64 ? 1536 : 2048, NULL, NULL, NULL};
    size_t el = fp64 ? sizeof(double) : sizeof(float), bytes = (size_t)j.n * (size_t)j.n * el;
    j.a = rf__malloc(run->ctx, bytes);
    j.b = rf__malloc(run->ctx, bytes);
    j.c = rf__malloc(run->ctx, bytes);
    rf_status st = RF_OK;
    if (!j.a || !j.b || !j.c) {
        st = RF_NOMEM_ERR(run->ctx);
    } else {
        for (size_t i = 0; i < (size_t)j.n * (size_t)j.n; i++) {
            if (fp64)
                ((double *)j.a)[i] = ((double *)j.b)[i] = 1.0 / (double)(1 + i % 7);
            else
                ((float *)j.a)[i] = ((float *)j.b)[i] = 1.0f / (float)(1 + i % 7);
        }
        openblas_set_num_threads((int)threads);
        rf__bench b = {team,     rf__gemm_work, &j, 2.0 * j.n * (double)j.n * j.n, run->min_time_s,
                       run->reps};
        st = rf__bench_run(run->ctx, &b, s);
    }
    rf__free(run->ctx, j.a);
    rf__free(run->ctx, j.b);
    rf__free(run->ctx, j.c);
    return st;
}

rf_status rf__probe_gemm(rf__probe_run *run)
{
    rf__team *team = NULL;
    RF_TRY(rf__team_new(run->ctx, 1, &team)); /* the caller of OpenBLAS; it runs its own threads */
    rf_status st = RF_OK;
    for (int fp64 = 1; fp64 >= 0 && st == RF_OK; fp64--) {
        rf__stats all, one;
        char what[64], note[RF_TEXT_MAX], v[32];
        const char *name = fp64 ? "fp64.gemm.openblas" : "fp32.gemm.openblas";
        snprintf(what, sizeof what, "%s, 1 and %u threads", name, run->threads);
        rf__progress(run, what);
        st = rf__gemm_one(run, team, fp64, run->threads, &all);
        if (st == RF_OK && run->threads > 1)
            st = rf__gemm_one(run, team, fp64, 1, &one);
        else
            one = all;
        if (st != RF_OK) break;
        snprintf(note, sizeof note, "achievable, not a roof: %s %d x %d; CV %.1f%%; 1 thread %s",
                 fp64 ? "dgemm" : "sgemm", fp64 ? 1536 : 2048, fp64 ? 1536 : 2048, 100 * all.cv,
                 rf_si_format(v, sizeof v, one.best, 3, ""));
        st = rf__probe_add(run, name, RF_CEILING_COMPUTE, &all, run->threads,
                           "roofline peaks: OpenBLAS cblas_?gemm, square row-major", note);
    }
    openblas_set_num_threads((int)run->threads);
    rf__team_free(run->ctx, team);
    return st;
}
