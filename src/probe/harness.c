/* harness.c — the one place that times kernels (zstd's benchfn): calibrate the work so one
 * repetition lasts at least the minimum time (the calibration runs are the warm-up), then timed
 * repetitions on every worker at once, from the earliest start to the latest end; statistics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/probe_int.h"

#define RF__HARNESS_MAX_THREADS 256
#define RF__MAX_REPS 64

static int rf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rf__stats_compute(double *v, unsigned n, rf__stats *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0) return;
    if (n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, n, sizeof *v, rf__cmp_double);
    double sum = 0, sq = 0;
    for (unsigned i = 0; i < n; i++) sum += v[i];
    out->n = n;
    out->min = v[0];
    out->max = v[n - 1];
    out->median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    out->mean = sum / n;
    for (unsigned i = 0; i < n; i++) sq += (v[i] - out->mean) * (v[i] - out->mean);
    out->cv = n > 1 && out->mean > 0 ? sqrt(sq / (n - 1)) / out->mean : 0;
    /* Best repeatable: the highest value that another repetition comes within 2% of; a lone best
     * is an outlier, so the median stands when no two agree. */
    out->best = out->median;
    for (unsigned i = n - 1; i > 0; i--)
        if (v[i - 1] >= 0.98 * v[i]) {
            out->best = v[i];
            break;
        }
    if (n == 1) out->best = v[0];
}

typedef struct rf__bench_job {
    const rf__bench *b;
    uint64_t units;
    double t0[RF__HARNESS_MAX_THREADS], t1[RF__HARNESS_MAX_THREADS];
    double cpu[RF__HARNESS_MAX_THREADS]; /* CPU time of each worker during the run */
} rf__bench_job;

static double rf__thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void rf__bench_job_run(void *arg, unsigned tid)
{
    rf__bench_job *j = arg;
    double c0 = rf__thread_cpu_s();
    j->t0[tid] = rf__now_s();
    j->b->work(j->b->arg, tid, j->units);
    j->t1[tid] = rf__now_s();
    j->cpu[tid] = rf__thread_cpu_s() - c0;
}

/* One run of `units` per worker; returns the span from the first start to the last end. *quiet
 * is cleared when a worker was off its CPU for more than 5% of the span (another process ran). */
static double rf__bench_once(rf__bench_job *j, uint64_t units, int *quiet)
{
    unsigned n = rf__team_size(j->b->team);
    j->units = units;
    rf__team_run(j->b->team, rf__bench_job_run, j);
    double t0 = j->t0[0], t1 = j->t1[0];
    for (unsigned i = 1; i < n; i++) {
        if (j->t0[i] < t0) t0 = j->t0[i];
        if (j->t1[i] > t1) t1 = j->t1[i];
    }
    double span = t1 - t0 > 1e-9 ? t1 - t0 : 1e-9;
    if (quiet) {
        *quiet = 1;
        for (unsigned i = 0; i < n; i++)
            if (j->cpu[i] < 0.95 * (j->t1[i] - j->t0[i])) *quiet = 0;
    }
    return span;
}

rf_status rf__bench_run(rf_ctx *ctx, const rf__bench *b, rf__stats *out)
{
    unsigned n = rf__team_size(b->team), reps = b->reps ? b->reps : 3;
    RF_CHECK(ctx, n <= RF__HARNESS_MAX_THREADS, RF_RANGE, "probe: too many threads (%u)", n);
    if (reps > RF__MAX_REPS / 2) reps = RF__MAX_REPS / 2;
    rf__bench_job *j = rf__calloc(ctx, 1, sizeof *j);
    if (!j) return RF_NOMEM_ERR(ctx);
    j->b = b;
    double min_t = b->min_time_s > 0 ? b->min_time_s : 0.01, t;
    uint64_t units = 1;
    /* Calibrate (and warm up): grow until a run lasts a quarter of the minimum time. */
    while ((t = rf__bench_once(j, units, NULL)) < 0.25 * min_t && units < (1ull << 40)) {
        double f = 0.5 * min_t / t;
        units = (uint64_t)((double)units * (f > 64 ? 64 : (f < 2 ? 2 : f)));
    }
    units = (uint64_t)ceil((double)units * min_t / t);
    if (units < 1) units = 1;
    /* Repetitions during which a worker was preempted are retried (up to `reps` more times) and
     * only kept when there are not enough undisturbed ones. */
    double v[RF__MAX_REPS], busy[RF__MAX_REPS];
    unsigned nv = 0, nb = 0;
    for (unsigned a = 0; a < 2 * reps && nv < reps; a++) {
        int quiet;
        double rate = (double)n * (double)units * b->per_unit / rf__bench_once(j, units, &quiet);
        if (quiet)
            v[nv++] = rate;
        else
            busy[nb++] = rate;
    }
    rf__free(ctx, j);
    unsigned disturbed = reps - nv;
    for (unsigned i = 0; nv < reps && i < nb; i++) v[nv++] = busy[i];
    rf__stats_compute(v, nv, out);
    out->disturbed = disturbed;
    return RF_OK;
}
