/* region_int.h — the per-thread records of the marker API (region.c) as the merge (region_out.c)
 * reads them. Private to src/region. */
#ifndef RF_REGION_INT_H
#define RF_REGION_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "roofline/region.h"

/* One name as one thread saw it. */
typedef struct rf__rentry {
    char *name; /* malloc'd copy */
    uint64_t hash;
    uint64_t calls, total_ns, min_ns, max_ns; /* in clock ticks (rf__regions_ns_per_tick) */
    uint64_t seen;                            /* calls offered to the reservoir */
    uint64_t unmatched;
    double flops, bytes;
    uint64_t *samples; /* per-call times, ns */
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
        uint64_t start_ns;
    } stack[RF_REGION_MAX_DEPTH];
    uint32_t depth;
    uint64_t overflow; /* begins beyond RF_REGION_MAX_DEPTH still open */
    uint64_t rng;      /* xorshift state for the reservoir */
    struct rf__rthread *next;
} rf__rthread;

/* Nanoseconds per tick of the markers' clock (1 for CLOCK_MONOTONIC and the test hook). */
double rf__regions_ns_per_tick(void);

/* Walk every thread record under the list lock; `fn` is called with the record's lock held. */
void rf__regions_each(void (*fn)(void *user, const rf__rthread *t), void *user);

#endif
