/* region.c — recording of the marker API: rf_region_begin/end/add into a per-thread record (a
 * name table, a stack of open regions, per-call samples), the list of thread records, the clock
 * hook and the atexit writer. Never prints; a failed allocation drops the call. The merge and the
 * files are region_out.c. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/rf_int.h"
#include "region_int.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define RF__HAVE_TSC 1
#else
#define RF__HAVE_TSC 0
#endif

static pthread_mutex_t rf__list_lock = PTHREAD_MUTEX_INITIALIZER;
static rf__rthread *rf__list, **rf__tail = &rf__list; /* first-seen thread first */
static atomic_uint rf__generation = 1;
static pthread_once_t rf__once = PTHREAD_ONCE_INIT;
static uint64_t (*rf__clock_fn)(void *);
static void *rf__clock_user;
static const rf_perf_ops *rf__perf_test; /* rf_regions_set_perf */
static int rf__perf_env;                 /* ROOFLINE_COUNTERS=1, read once */

/* initial-exec: a plain offset from the thread pointer, no __tls_get_addr call per marker (a few
 * bytes of the static TLS surplus glibc keeps for libraries loaded later). */
#define RF__TLS _Thread_local __attribute__((tls_model("initial-exec")))
static RF__TLS rf__rthread *rf__tls;
static RF__TLS unsigned rf__tls_gen;

/* The clock: an invariant TSC where the CPU has one (a few ns; clock_gettime costs 100 ns under
 * kvm-clock), converted to ns when the records are read, against CLOCK_MONOTONIC over the same
 * interval; else CLOCK_MONOTONIC itself. */
static int rf__use_tsc;
static uint64_t rf__tsc0, rf__mono0;

static uint64_t rf__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rf__now(void)
{
    if (rf__clock_fn) return rf__clock_fn(rf__clock_user);
#if RF__HAVE_TSC
    if (rf__use_tsc) return __rdtsc();
#endif
    return rf__mono_ns();
}

static void rf__register_exit(void);

static void rf__clock_init(void)
{
#if RF__HAVE_TSC
    unsigned a, b, c, d;
    /* CPUID 0x80000007 EDX bit 8: invariant TSC (constant rate, runs in every C-state) */
    if (__get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8))) {
        rf__tsc0 = __rdtsc();
        rf__mono0 = rf__mono_ns();
        rf__use_tsc = 1;
    }
#endif
}

double rf__regions_ns_per_tick(void)
{
    pthread_once(&rf__once, rf__register_exit); /* the clock's state, set once, seen here */
    if (rf__clock_fn || !rf__use_tsc) return 1.0;
#if RF__HAVE_TSC
    uint64_t t1 = __rdtsc(), m1 = rf__mono_ns();
    /* a short interval measures the rate badly: stretch it to 20 ms */
    while (m1 - rf__mono0 < 20000000u) {
        t1 = __rdtsc();
        m1 = rf__mono_ns();
    }
    return t1 > rf__tsc0 ? (double)(m1 - rf__mono0) / (double)(t1 - rf__tsc0) : 1.0;
#else
    return 1.0;
#endif
}

void rf_regions_set_clock(uint64_t (*now_ns)(void *user), void *user)
{
    rf__clock_fn = now_ns;
    rf__clock_user = user;
}

static void rf__at_exit(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return;
    (void)rf_regions_write(ctx, NULL); /* nothing to tell: the library never prints */
    rf_ctx_free(ctx);
}

static void rf__lock(rf__rthread *t)
{
    while (atomic_flag_test_and_set_explicit(&t->lock, memory_order_acquire)) {
    }
}
static void rf__unlock(rf__rthread *t)
{
    atomic_flag_clear_explicit(&t->lock, memory_order_release);
}

static void rf__perf_close(rf__rthread *t, const rf_perf_ops *ops);

/* fork(): every lock is held across it, so the child never sees a record half changed; the child
 * starts from zero (what the parent recorded is the parent's to write, each process writes its
 * own record) keeping the names and the open regions, so an end after the fork still matches;
 * counters opened for the parent's threads are closed in the child. */
static void rf__fork_prepare(void)
{
    pthread_mutex_lock(&rf__list_lock);
    for (rf__rthread *t = rf__list; t; t = t->next) rf__lock(t);
}

static void rf__fork_parent(void)
{
    for (rf__rthread *t = rf__list; t; t = t->next) rf__unlock(t);
    pthread_mutex_unlock(&rf__list_lock);
}

static void rf__fork_child(void)
{
    for (rf__rthread *t = rf__list; t; t = t->next) {
        for (uint32_t i = 0; i < t->n_entries; i++) {
            rf__rentry *e = &t->entries[i];
            char *name = e->name;
            uint64_t hash = e->hash, *samples = e->samples;
            uint32_t cap = e->cap_samples;
            memset(e, 0, sizeof *e);
            e->name = name;
            e->hash = hash;
            e->samples = samples;
            e->cap_samples = cap;
        }
        for (uint32_t d = 0; d < t->depth && d < RF_REGION_MAX_DEPTH; d++) t->stack[d].counted = 0;
        rf__perf_close(t, rf__perf_test ? rf__perf_test : &rf__perf_sys_ops);
        rf__unlock(t);
    }
    pthread_mutex_unlock(&rf__list_lock);
}

static void rf__register_exit(void)
{
    const char *c = getenv("ROOFLINE_COUNTERS");
    rf__perf_env = c && strcmp(c, "1") == 0;
    rf__clock_init();
    pthread_atfork(rf__fork_prepare, rf__fork_parent, rf__fork_child);
    atexit(rf__at_exit);
}

void rf_regions_set_perf(const rf_perf_ops *ops)
{
    rf__perf_test = ops;
}

static void rf__perf_close(rf__rthread *t, const rf_perf_ops *ops)
{
    for (int i = 0; i < t->perf_n; i++) ops->close(ops->user, t->perf_fd[i]);
    t->perf_n = 0;
    free(t->perf_start);
    t->perf_start = NULL;
}

/* Open this thread's counters: every event of this CPU's vendor (every event for a test's
 * stand-in); all or none, so a region's count never misses a width. */
static void rf__perf_open(rf__rthread *t)
{
    const rf_perf_ops *ops = rf__perf_test  ? rf__perf_test
                             : rf__perf_env ? &rf__perf_sys_ops
                                            : NULL;
    if (!ops) return;
    int vendor = rf__perf_test ? -1 : rf__perf_vendor(), fp = 0, mem = 0;
    t->perf_start = malloc(sizeof *t->perf_start * RF_REGION_MAX_DEPTH);
    if (!t->perf_start) return;
    for (size_t i = 0; i < rf__perf_n_events && t->perf_n < RF__PERF_MAX; i++) {
        const rf__perf_event *e = &rf__perf_events[i];
        if (vendor >= 0 && e->vendor && e->vendor != vendor) continue;
        int fd = ops->open(ops->user, e->type, e->config);
        if (fd < 0) {
            rf__perf_close(t, ops);
            return;
        }
        t->perf_fd[t->perf_n] = fd;
        t->perf_ev[t->perf_n++] = (uint8_t)i;
        *(e->mem ? &mem : &fp) += 1;
    }
    if (!fp || !mem) rf__perf_close(t, ops);
}

/* This thread's running counts into v[]; 0 when a read failed (the call is then not counted). */
static int rf__perf_read(const rf__rthread *t, uint64_t *v)
{
    const rf_perf_ops *ops = rf__perf_test ? rf__perf_test : &rf__perf_sys_ops;
    for (int i = 0; i < t->perf_n; i++)
        if (ops->read(ops->user, t->perf_fd[i], &v[i]) != 0) return 0;
    return 1;
}

static rf__rthread *rf__thread(void)
{
    unsigned gen = atomic_load_explicit(&rf__generation, memory_order_relaxed);
    if (rf__tls && rf__tls_gen == gen) return rf__tls;
    pthread_once(&rf__once, rf__register_exit);
    size_t size = (sizeof(rf__rthread) + 63) / 64 * 64; /* whole cache lines: no false sharing */
    rf__rthread *t = aligned_alloc(64, size);
    if (!t) return NULL;
    memset(t, 0, size);
    atomic_flag_clear(&t->lock);
    t->rng = 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)t;
    pthread_mutex_lock(&rf__list_lock);
    *rf__tail = t;
    rf__tail = &t->next;
    pthread_mutex_unlock(&rf__list_lock);
    rf__perf_open(t);
    rf__tls = t;
    rf__tls_gen = gen;
    return t;
}

static uint64_t rf__hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Grow the open-addressing table to `cap` slots and re-insert every entry. */
static int rf__rehash(rf__rthread *t, uint32_t cap)
{
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab) return 0;
    for (uint32_t i = 0; i < t->n_entries; i++) {
        uint32_t k = (uint32_t)t->entries[i].hash & (cap - 1);
        while (tab[k]) k = (k + 1) & (cap - 1);
        tab[k] = i + 1;
    }
    free(t->table);
    t->table = tab;
    t->cap_table = cap;
    return 1;
}

/* Index of `name` in t's entries, inserted when absent; UINT32_MAX when memory runs out. */
static uint32_t rf__entry(rf__rthread *t, const char *name)
{
    uint64_t h = rf__hash(name);
    if (t->cap_table) {
        for (uint32_t k = (uint32_t)h & (t->cap_table - 1);; k = (k + 1) & (t->cap_table - 1)) {
            uint32_t e = t->table[k];
            if (!e) break;
            if (t->entries[e - 1].hash == h && strcmp(t->entries[e - 1].name, name) == 0)
                return e - 1;
        }
    }
    uint32_t idx = UINT32_MAX;
    rf__lock(t);
    if (t->n_entries == t->cap_entries) {
        uint32_t cap = t->cap_entries ? t->cap_entries * 2 : 16;
        rf__rentry *ne = realloc(t->entries, cap * sizeof *ne);
        if (!ne) goto out;
        t->entries = ne;
        t->cap_entries = cap;
    }
    if ((t->n_entries + 1) * 2 > t->cap_table &&
        !rf__rehash(t, t->cap_table ? t->cap_table * 2 : 32))
        goto out;
    rf__rentry *en = &t->entries[t->n_entries];
    memset(en, 0, sizeof *en);
    size_t len = strlen(name);
    en->name = malloc(len + 1);
    if (!en->name) goto out;
    memcpy(en->name, name, len + 1);
    en->hash = h;
    idx = t->n_entries++;
    uint32_t k = (uint32_t)h & (t->cap_table - 1);
    while (t->table[k]) k = (k + 1) & (t->cap_table - 1);
    t->table[k] = idx + 1;
out:
    rf__unlock(t);
    return idx;
}

void rf_region_begin(const char *name)
{
    rf__rthread *t = rf__thread();
    if (!t || !name) return;
    if (t->depth == RF_REGION_MAX_DEPTH) {
        t->overflow++;
        return;
    }
    uint32_t e = rf__entry(t, name);
    if (e == UINT32_MAX) {
        t->overflow++; /* its end must be swallowed too */
        return;
    }
    t->stack[t->depth].entry = e;
    t->stack[t->depth].counted = t->perf_n && rf__perf_read(t, t->perf_start[t->depth]);
    t->stack[t->depth].start_ns = rf__now(); /* last: the lookup is not timed */
    t->depth++;
}

/* Keep `ns` for the median: every call up to the cap, then reservoir sampling (Vitter's R). */
static void rf__sample(rf__rthread *t, rf__rentry *en, uint64_t ns)
{
    en->seen++;
    if (en->n_samples < RF_REGION_MAX_SAMPLES) {
        if (en->n_samples == en->cap_samples) {
            uint32_t cap = en->cap_samples ? en->cap_samples * 2 : 16;
            uint64_t *ns_arr = realloc(en->samples, cap * sizeof *ns_arr);
            if (!ns_arr) return;
            en->samples = ns_arr;
            en->cap_samples = cap;
        }
        en->samples[en->n_samples++] = ns;
        return;
    }
    t->rng ^= t->rng << 13;
    t->rng ^= t->rng >> 7;
    t->rng ^= t->rng << 17;
    uint64_t j = t->rng % en->seen;
    if (j < RF_REGION_MAX_SAMPLES) en->samples[j] = ns;
}

void rf_region_end(const char *name)
{
    uint64_t now = rf__now(); /* first: the bookkeeping below is not timed */
    rf__rthread *t = rf__thread();
    if (!t || !name) return;
    if (t->overflow) {
        t->overflow--;
        return;
    }
    if (t->depth == 0 || strcmp(t->entries[t->stack[t->depth - 1].entry].name, name) != 0) {
        uint32_t e = rf__entry(t, name);
        if (e != UINT32_MAX) {
            rf__lock(t);
            t->entries[e].unmatched++;
            rf__unlock(t);
        }
        return;
    }
    t->depth--;
    rf__rentry *en = &t->entries[t->stack[t->depth].entry];
    uint64_t ns = now - t->stack[t->depth].start_ns;
    uint64_t cnt[RF__PERF_MAX];
    int counted = t->stack[t->depth].counted && rf__perf_read(t, cnt);
    rf__lock(t);
    for (int i = 0; counted && i < t->perf_n; i++) {
        const rf__perf_event *ev = &rf__perf_events[t->perf_ev[i]];
        uint64_t d = cnt[i] >= t->perf_start[t->depth][i] ? cnt[i] - t->perf_start[t->depth][i] : 0;
        *(ev->mem ? &en->cnt_bytes : &en->cnt_flops) += (double)d * ev->weight;
    }
    en->cnt_calls += (uint64_t)counted;
    if (en->calls == 0 || ns < en->min_ns) en->min_ns = ns;
    if (ns > en->max_ns) en->max_ns = ns;
    en->calls++;
    en->total_ns += ns;
    rf__sample(t, en, ns);
    rf__unlock(t);
}

void rf_region_add(const char *name, double flops, double bytes)
{
    rf__rthread *t = rf__thread();
    if (!t || !name || !(flops >= 0 && flops <= 1e300) || !(bytes >= 0 && bytes <= 1e300)) return;
    uint32_t e = rf__entry(t, name);
    if (e == UINT32_MAX) return;
    rf__lock(t);
    t->entries[e].flops += flops;
    t->entries[e].bytes += bytes;
    rf__unlock(t);
}

void rf__regions_each(void (*fn)(void *user, const rf__rthread *t), void *user)
{
    pthread_mutex_lock(&rf__list_lock);
    for (rf__rthread *t = rf__list; t; t = t->next) {
        rf__lock(t);
        fn(user, t);
        rf__unlock(t);
    }
    pthread_mutex_unlock(&rf__list_lock);
}

void rf_regions_reset(void)
{
    pthread_mutex_lock(&rf__list_lock);
    rf__rthread *t = rf__list;
    rf__list = NULL;
    rf__tail = &rf__list;
    atomic_fetch_add(&rf__generation, 1);
    pthread_mutex_unlock(&rf__list_lock);
    while (t) {
        rf__rthread *next = t->next;
        for (uint32_t i = 0; i < t->n_entries; i++) {
            free(t->entries[i].name);
            free(t->entries[i].samples);
        }
        free(t->entries);
        free(t->table);
        rf__perf_close(t, rf__perf_test ? rf__perf_test : &rf__perf_sys_ops);
        free(t);
        t = next;
    }
}
