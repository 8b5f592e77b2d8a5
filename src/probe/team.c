/* team.c — the pinned thread team: n workers, worker i bound to the i-th CPU the process may run on
 * (sched_setaffinity), each running the job it is handed between two barriers. Data a job touches
 * first is placed by the worker that uses it (first touch). Never times anything itself. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "probe/probe_int.h"

#define RF__TEAM_MAX 256

typedef struct rf__worker {
    struct rf__team *team;
    unsigned tid;
    int cpu;
} rf__worker;

struct rf__team {
    unsigned n;
    pthread_barrier_t start, done;
    rf__job job;
    void *arg;
    int quit;
    atomic_int state; /* 0 starting, 1 running, -1 abandoned (a thread could not start) */
    pthread_t th[RF__TEAM_MAX];
    rf__worker w[RF__TEAM_MAX];
};

double rf__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

unsigned rf__cpus_allowed(int *cpus, unsigned max)
{
    cpu_set_t set;
    unsigned n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        if (max) cpus[0] = -1;
        return max ? 1 : 0;
    }
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set)) cpus[n++] = c;
    return n;
}

static void *rf__worker_main(void *p)
{
    rf__worker *w = p;
    rf__team *t = w->team;
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        (void)sched_setaffinity(0, sizeof set, &set); /* best effort: unpinned still measures */
    }
    int s;
    while ((s = atomic_load(&t->state)) == 0) sched_yield();
    if (s < 0) return NULL;
    for (;;) {
        pthread_barrier_wait(&t->start);
        if (t->quit) break;
        t->job(t->arg, w->tid);
        pthread_barrier_wait(&t->done);
    }
    return NULL;
}

rf_status rf__team_new(rf_ctx *ctx, unsigned n, rf__team **out)
{
    int cpus[RF__TEAM_MAX];
    unsigned ncpu = rf__cpus_allowed(cpus, RF__TEAM_MAX);
    *out = NULL;
    RF_CHECK(ctx, n >= 1 && n <= RF__TEAM_MAX, RF_RANGE, "probe: %u threads (1 to %d)", n,
             RF__TEAM_MAX);
    rf__team *t = rf__calloc(ctx, 1, sizeof *t);
    if (!t) return RF_NOMEM_ERR(ctx);
    t->n = n;
    atomic_init(&t->state, 0);
    if (pthread_barrier_init(&t->start, NULL, n + 1) != 0) goto fail_b1;
    if (pthread_barrier_init(&t->done, NULL, n + 1) != 0) goto fail_b2;
    unsigned started = 0;
    for (; started < n; started++) {
        rf__worker *w = &t->w[started];
        w->team = t;
        w->tid = started;
        w->cpu = ncpu ? cpus[started % ncpu] : -1;
        if (pthread_create(&t->th[started], NULL, rf__worker_main, w) != 0) break;
    }
    if (started < n) {
        atomic_store(&t->state, -1); /* the started workers leave before any barrier */
        for (unsigned i = 0; i < started; i++) pthread_join(t->th[i], NULL);
        pthread_barrier_destroy(&t->done);
        pthread_barrier_destroy(&t->start);
        rf__free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "probe: cannot start thread %u of %u", started, n);
    }
    atomic_store(&t->state, 1);
    *out = t;
    return RF_OK;
fail_b2:
    pthread_barrier_destroy(&t->start);
fail_b1:
    rf__free(ctx, t);
    return rf__error(ctx, RF_INTERNAL, -1, "probe: cannot create the thread barriers");
}

unsigned rf__team_size(const rf__team *t)
{
    return t->n;
}

void rf__team_run(rf__team *t, rf__job job, void *arg)
{
    t->job = job;
    t->arg = arg;
    pthread_barrier_wait(&t->start);
    pthread_barrier_wait(&t->done);
}

void rf__team_free(rf_ctx *ctx, rf__team *t)
{
    if (!t) return;
    t->quit = 1;
    pthread_barrier_wait(&t->start);
    for (unsigned i = 0; i < t->n; i++) pthread_join(t->th[i], NULL);
    pthread_barrier_destroy(&t->start);
    pthread_barrier_destroy(&t->done);
    rf__free(ctx, t);
}
