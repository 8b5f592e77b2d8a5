/* qteam.c — the executor's thread team: n - 1 workers plus the calling thread, a job handed over
 * by bumping a generation counter that the workers spin on briefly (a matrix-vector product lasts
 * tens of microseconds: a futex wake per job would cost a good share of it), then sleep on a
 * condition variable. Workers are not pinned: on a busy machine the scheduler may move them to an
 * idle CPU. Never times, never prints. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RF__PAUSE() _mm_pause()
#else
#define RF__PAUSE() ((void)0)
#endif

#define RF__QT_MAX 256
#define RF__QT_SPIN                                                                                \
    1000 /* pauses (~ 5 to 60 us) before a worker sleeps: back-to-back jobs are                    \
             caught, an oversubscribed machine is not burnt spinning */

typedef struct rf__qworker {
    struct rf__qteam *t;
    unsigned tid;
} rf__qworker;

struct rf__qteam {
    unsigned n; /* threads, the caller included */
    atomic_uint gen, done, sleepers;
    atomic_int quit;
    rf__qmm_job job;
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th[RF__QT_MAX];
    rf__qworker w[RF__QT_MAX];
};

/* Wait until the generation differs from `seen`; returns it. */
static unsigned rf__qt_wait(rf__qteam *t, unsigned seen)
{
    unsigned g;
    for (unsigned s = 0; s < RF__QT_SPIN; s++) {
        if ((g = atomic_load(&t->gen)) != seen) return g;
        RF__PAUSE();
    }
    pthread_mutex_lock(&t->mu);
    atomic_fetch_add(&t->sleepers, 1);
    while ((g = atomic_load(&t->gen)) == seen) pthread_cond_wait(&t->cv, &t->mu);
    atomic_fetch_sub(&t->sleepers, 1);
    pthread_mutex_unlock(&t->mu);
    return g;
}

static void *rf__qt_main(void *p)
{
    rf__qworker *w = p;
    rf__qteam *t = w->t;
    unsigned seen = 0;
    for (;;) {
        seen = rf__qt_wait(t, seen);
        if (atomic_load(&t->quit)) return NULL;
        t->job(t->arg, w->tid, t->n);
        atomic_fetch_add(&t->done, 1);
    }
}

/* Hand the workers the next generation (job set, or quit). */
static void rf__qt_kick(rf__qteam *t)
{
    atomic_fetch_add(&t->gen, 1);
    if (atomic_load(&t->sleepers) > 0) {
        pthread_mutex_lock(&t->mu);
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
}

rf_status rf__qteam_new(rf_ctx *ctx, unsigned n, rf__qteam **out)
{
    *out = NULL;
    RF_CHECK(ctx, n >= 1 && n <= RF__QT_MAX, RF_RANGE, "executor: %u threads (1 to %d)", n,
             RF__QT_MAX);
    rf__qteam *t = rf__calloc(ctx, 1, sizeof *t);
    if (!t) return RF_NOMEM_ERR(ctx);
    t->n = n;
    if (pthread_mutex_init(&t->mu, NULL) != 0) {
        rf__free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "executor: cannot create a mutex");
    }
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        rf__free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "executor: cannot create a condition variable");
    }
    unsigned started = 1;
    for (; started < n; started++) {
        t->w[started].t = t;
        t->w[started].tid = started;
        if (pthread_create(&t->th[started], NULL, rf__qt_main, &t->w[started]) != 0) break;
    }
    if (started < n) {
        t->n = started; /* rf__qteam_free joins the ones that started */
        rf__qteam_free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "executor: cannot start thread %u of %u", started,
                         n);
    }
    *out = t;
    return RF_OK;
}

void rf__qteam_run(rf__qteam *t, rf__qmm_job job, void *arg)
{
    if (t->n == 1) {
        job(arg, 0, 1);
        return;
    }
    t->job = job;
    t->arg = arg;
    atomic_store(&t->done, 0);
    rf__qt_kick(t);
    job(arg, 0, t->n);
    for (unsigned s = 0; atomic_load(&t->done) < t->n - 1; s++) {
        if (s < RF__QT_SPIN)
            RF__PAUSE();
        else
            sched_yield();
    }
}

void rf__qteam_free(rf_ctx *ctx, rf__qteam *t)
{
    if (!t) return;
    atomic_store(&t->quit, 1);
    rf__qt_kick(t);
    for (unsigned i = 1; i < t->n; i++) pthread_join(t->th[i], NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    rf__free(ctx, t);
}
