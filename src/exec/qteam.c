/* qteam.c — the executor's thread team: n - 1 workers plus the calling thread sharing each job as
 * 4n chunks taken from one atomic ticket (generation, chunk count, next chunk), so that threads
 * the scheduler runs do the work of one it does not (the machine is often shared). Workers spin
 * on the ticket for up to 50 us (a decode step's jobs come microseconds apart), then sleep on a
 * condition variable; they are not pinned. The caller, once no chunk is left to take, waits for
 * the last ones the same way: a brief spin, then it sleeps until the worker finishing the last
 * chunk wakes it. So a core taken by another process slows a pass by the chunks its thread holds,
 * instead of collapsing it into threads that spin (and yield) for a descheduled peer. Never
 * times, never prints. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "exec/qkernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define RF__CPU_PAUSE() _mm_pause()
#else
#define RF__CPU_PAUSE() ((void)0)
#endif

#define RF__TEAM_MAX_THREADS 256
/* A worker spins this long on the ticket before it sleeps: a decode step issues a team job every
 * few microseconds, with serial gaps (norms, activations, quantising the activations) of up to
 * tens; waking a sleeper costs 2 to 30 us (measured on a 2-vCPU KVM guest), more than most gaps.
 * Not longer: on a machine shared with other processes a spinning worker takes their CPU.
 * Time-based, since PAUSE lasts from 10 to 140 cycles across CPUs (and may exit to the hypervisor).
 */
#define RF__TEAM_SPIN_NS 50000
/* ticket: generation (24 bits) | chunks (20 bits) | next chunk (20 bits) */
#define RF__TICKET_GEN(v) ((uint32_t)((v) >> 40))
#define RF__TICKET_CHUNKS(v) ((uint32_t)(((v) >> 20) & 0xfffff))
#define RF__TICKET_NEXT(v) ((uint32_t)((v)&0xfffff))

struct rf__thread_team {
    unsigned n; /* threads, the caller included */
    _Atomic uint64_t ticket;
    atomic_uint finished, sleepers;
    atomic_uint chunks; /* of the current job: the worker finishing the last wakes the caller */
    atomic_int waiting; /* the caller sleeps on done_cv */
    atomic_int quit;
    rf__team_job job;
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t cv, done_cv;
    pthread_t th[RF__TEAM_MAX_THREADS];
};

static uint64_t rf__team_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wait until the ticket's generation differs from `seen`; returns it. */
static uint32_t rf__team_wait(rf__thread_team *t, uint32_t seen)
{
    uint32_t g;
    uint64_t t0 = rf__team_now_ns();
    for (unsigned s = 1;; s++) {
        if ((g = RF__TICKET_GEN(atomic_load(&t->ticket))) != seen) return g;
        RF__CPU_PAUSE();
        if (s % 64 == 0 && rf__team_now_ns() - t0 > RF__TEAM_SPIN_NS) break;
    }
    pthread_mutex_lock(&t->mu);
    atomic_fetch_add(&t->sleepers, 1);
    while ((g = RF__TICKET_GEN(atomic_load(&t->ticket))) == seen) pthread_cond_wait(&t->cv, &t->mu);
    atomic_fetch_sub(&t->sleepers, 1);
    pthread_mutex_unlock(&t->mu);
    return g;
}

/* Take and run chunks of generation g until none is left. job and arg are g's: the caller waits
 * for every chunk before it sets the next job. */
static void rf__team_work(rf__thread_team *t, uint32_t g)
{
    uint64_t v = atomic_load(&t->ticket);
    for (;;) {
        if (RF__TICKET_GEN(v) != g || RF__TICKET_NEXT(v) >= RF__TICKET_CHUNKS(v)) return;
        if (!atomic_compare_exchange_weak(&t->ticket, &v, v + 1)) continue;
        t->job(t->arg, RF__TICKET_NEXT(v), RF__TICKET_CHUNKS(v));
        if (atomic_fetch_add(&t->finished, 1) + 1 == atomic_load(&t->chunks) &&
            atomic_load(&t->waiting)) {
            pthread_mutex_lock(&t->mu);
            pthread_cond_signal(&t->done_cv);
            pthread_mutex_unlock(&t->mu);
        }
        v = atomic_load(&t->ticket);
    }
}

static void *rf__team_worker(void *p)
{
    rf__thread_team *t = p;
    uint32_t seen = 0;
    for (;;) {
        seen = rf__team_wait(t, seen);
        if (atomic_load(&t->quit)) return NULL;
        rf__team_work(t, seen);
    }
}

/* Publish the next generation with `chunks` chunks and wake the sleepers. */
static uint32_t rf__team_publish(rf__thread_team *t, uint32_t chunks)
{
    uint32_t g = (RF__TICKET_GEN(atomic_load(&t->ticket)) + 1) & 0xffffff;
    atomic_store(&t->ticket, (uint64_t)g << 40 | (uint64_t)chunks << 20);
    if (atomic_load(&t->sleepers) > 0) {
        pthread_mutex_lock(&t->mu);
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
    return g;
}

rf_status rf__thread_team_new(rf_ctx *ctx, unsigned n, rf__thread_team **out)
{
    *out = NULL;
    RF_CHECK(ctx, n >= 1 && n <= RF__TEAM_MAX_THREADS, RF_RANGE, "executor: %u threads (1 to %d)",
             n, RF__TEAM_MAX_THREADS);
    rf__thread_team *t = rf__calloc(ctx, 1, sizeof *t);
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
    if (pthread_cond_init(&t->done_cv, NULL) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        rf__free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "executor: cannot create a condition variable");
    }
    unsigned started = 1;
    for (; started < n; started++)
        if (pthread_create(&t->th[started], NULL, rf__team_worker, t) != 0) break;
    if (started < n) {
        t->n = started; /* rf__thread_team_free joins the ones that started */
        rf__thread_team_free(ctx, t);
        return rf__error(ctx, RF_INTERNAL, -1, "executor: cannot start thread %u of %u", started,
                         n);
    }
    *out = t;
    return RF_OK;
}

void rf__thread_team_run(rf__thread_team *t, rf__team_job job, void *arg)
{
    if (t->n == 1) {
        job(arg, 0, 1);
        return;
    }
    uint32_t chunks = 4 * t->n;
    t->job = job;
    t->arg = arg;
    atomic_store(&t->finished, 0);
    atomic_store(&t->chunks, chunks);
    rf__team_work(t, rf__team_publish(t, chunks));
    uint64_t t0 = rf__team_now_ns();
    for (unsigned s = 1; atomic_load(&t->finished) < chunks; s++) {
        RF__CPU_PAUSE();
        if (s % 64 == 0 && rf__team_now_ns() - t0 > RF__TEAM_SPIN_NS) {
            /* seq_cst: a worker finishing after the store of `waiting` sees it and signals; one
             * that finished before is counted in `finished`, read after it under the mutex */
            pthread_mutex_lock(&t->mu);
            atomic_store(&t->waiting, 1);
            while (atomic_load(&t->finished) < chunks) pthread_cond_wait(&t->done_cv, &t->mu);
            atomic_store(&t->waiting, 0);
            pthread_mutex_unlock(&t->mu);
            break;
        }
    }
}

void rf__thread_team_free(rf_ctx *ctx, rf__thread_team *t)
{
    if (!t) return;
    atomic_store(&t->quit, 1);
    rf__team_publish(t, 0);
    for (unsigned i = 1; i < t->n; i++) pthread_join(t->th[i], NULL);
    pthread_cond_destroy(&t->cv);
    pthread_cond_destroy(&t->done_cv);
    pthread_mutex_destroy(&t->mu);
    rf__free(ctx, t);
}
