/* test_qteam.c — the executor's thread team (src/exec/qteam.c): every chunk of every job runs once
 * on any team size, and a caller waiting for a slow peer sleeps instead of spinning (issue 28:
 * under contention a 2-thread decode collapsed into threads spinning for a descheduled one). */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "exec/qkernels.h"
#include "rf_test.h"

typedef struct {
    atomic_uint runs[64];
    pthread_t caller;
    long caller_ns, worker_ns; /* how long a chunk sleeps on the caller / on a worker */
    atomic_uint by_worker;
} team_job;

static void nap(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void job(void *arg, unsigned part, unsigned n)
{
    team_job *j = arg;
    if (part < n && part < 64) atomic_fetch_add(&j->runs[part], 1);
    if (pthread_equal(pthread_self(), j->caller)) {
        if (j->caller_ns) nap(j->caller_ns);
    } else {
        atomic_fetch_add(&j->by_worker, 1);
        if (j->worker_ns) nap(j->worker_ns);
    }
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

RF_TEST(team_every_chunk_once)
{
    rf_ctx *ctx = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (unsigned n = 1; n <= 5; n++) {
        rf__thread_team *t = NULL;
        RF_EXPECT(rf__thread_team_new(ctx, n, &t) == RF_OK);
        for (int rep = 0; rep < 200 && t; rep++) {
            team_job j = {0};
            j.caller = pthread_self();
            rf__thread_team_run(t, job, &j);
            unsigned chunks = n == 1 ? 1 : 4 * n;
            for (unsigned c = 0; c < chunks; c++) RF_EXPECT_INT(atomic_load(&j.runs[c]), 1);
            RF_EXPECT_INT(atomic_load(&j.runs[chunks]), 0);
        }
        rf__thread_team_free(ctx, t);
    }
    rf_ctx_free(ctx);
}

/* A worker holding a chunk for 60 ms (as if descheduled): the caller, with nothing left to take,
 * waits for it asleep: its CPU time stays far below the wait (it spun for the whole wait before).
 */
RF_TEST(team_caller_sleeps_on_a_slow_peer)
{
    rf_ctx *ctx = NULL;
    rf__thread_team *t = NULL;
    RF_EXPECT(rf_ctx_new(&ctx, NULL) == RF_OK);
    RF_EXPECT(rf__thread_team_new(ctx, 2, &t) == RF_OK);
    if (!t) return;
    int measured = 0;
    for (int attempt = 0; attempt < 20 && !measured; attempt++) {
        team_job j = {0};
        j.caller = pthread_self();
        j.caller_ns = 2000000; /* the worker wakes and takes a chunk while the caller naps */
        j.worker_ns = 60000000;
        double c0 = thread_cpu_s(), w0 = wall_s();
        rf__thread_team_run(t, job, &j);
        double cpu = thread_cpu_s() - c0, wall = wall_s() - w0;
        for (unsigned c = 0; c < 8; c++) RF_EXPECT_INT(atomic_load(&j.runs[c]), 1);
        if (atomic_load(&j.by_worker) == 0) continue; /* the caller took every chunk: again */
        measured = 1;
        RF_EXPECT(wall >= 0.055);
        if (cpu > 0.2 * wall)
            RF_FAIL_AT("caller used %.1f ms of CPU in a %.1f ms wait", 1e3 * cpu, 1e3 * wall);
    }
    RF_EXPECT(measured);
    rf__thread_team_free(ctx, t);
    rf_ctx_free(ctx);
}
