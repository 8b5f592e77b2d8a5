/* region_int.h — the per-thread records of the marker API (region.c) as the merge (region_out.c)
 * reads them. Private to src/region. */
#ifndef RF_REGION_INT_H
#define RF_REGION_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "roofline/region.h"

/* The hardware events the markers can count with (perf.c): `weight` FLOPs (or bytes, for a
 * memory event) per count; vendor 0 any, 1 Intel, 2 AMD. */
typedef struct rf__perf_event {
    const char *name;
    uint32_t type;   /* PERF_TYPE_* */
    uint64_t config; /* event | umask << 8 for raw events */
    int vendor;
    int mem;
    double weight;
} rf__perf_event;
extern const rf__perf_event rf__perf_events[];
extern const size_t rf__perf_n_events;
extern const rf_perf_ops rf__perf_sys_ops; /* perf_event_open on the calling thread */
int rf__perf_vendor(void);                 /* 1 Intel, 2 AMD, 0 other */
#define RF__PERF_MAX 12                    /* >= rf__perf_n_events */

/* One name as one thread saw it. */
typedef struct rf__rentry {
    char *name; /* malloc'd copy */
    uint64_t hash;
    uint64_t calls, total_ns, min_ns, max_ns; /* in clock ticks (rf__regions_ns_per_tick) */
    uint64_t seen;                            /* calls offered to the reservoir */
    uint64_t unmatched;
    double flops, bytes;
    uint64_t cnt_calls;          /* calls counted by hardware counters */
    double cnt_flops, cnt_bytes; /* what they counted */
    uint64_t *samples;           /* per-call times, ns */
    uint32_t n_samples, cap_samples;
} rf__rentry;

/* One thread's record: its own allocation, cache-line aligned, never shared while recording. */
typedef struct rf__rthread {
    atomic_flag lock; /* held while the entries change, and by the merge */
    rf__rentry *entries;
    uint32_t n_entries, cap_entries;
    uint32_t *table; /* open addressing over entries: index + 1, 0 empty */
    uint32_t cap_table;
    struct {
        uint32_t entry;
        int counted; /* perf_start[depth] holds the counts at its begin */
        uint64_t start_ns;
    } stack[RF_REGION_MAX_DEPTH];
    uint32_t depth;
    uint64_t overflow; /* begins beyond RF_REGION_MAX_DEPTH still open */
    uint64_t rng;      /* xorshift state for the reservoir */
    /* hardware counters (rf_regions_set_perf): handles, their events, the counts at each open
     * region's begin (perf_n rows of RF__PERF_MAX per depth, allocated when counting) */
    int perf_n;
    int perf_fd[RF__PERF_MAX];
    uint8_t perf_ev[RF__PERF_MAX];
    uint64_t (*perf_start)[RF__PERF_MAX];
    struct rf__rthread *next;
} rf__rthread;

/* Nanoseconds per tick of the markers' clock (1 for CLOCK_MONOTONIC and the test hook). */
double rf__regions_ns_per_tick(void);

/* Walk every thread record under the list lock; `fn` is called with the record's lock held. */
void rf__regions_each(void (*fn)(void *user, const rf__rthread *t), void *user);

#endif
