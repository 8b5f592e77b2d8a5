/* prof_int.h — internals of the profiler-measurement reader (roofline/prof.h): the table that
 * aggregates launches by kernel name (prof.c) and the two grammars that fill it (ncu.c,
 * torch_trace.c). Never installed; never included by cli/. */
#ifndef RF_PROF_INT_H
#define RF_PROF_INT_H

#include "formats/formats_int.h"
#include "roofline/prof.h"

#define RF__PROF_NAME_MAX 4096          /* longest kept kernel name, bytes (longer: truncated) */
#define RF__PROF_MAX_KERNELS (1u << 20) /* distinct kernels in one profile */

/* Kernels by name, in order of first appearance; names owned by the table. */
typedef struct rf__prof_table {
    rf_ctx *ctx;
    rf_prof_kernel *k;
    size_t n, cap;
    uint32_t *slot; /* open addressing: index + 1, 0 = empty; n_slot a power of two */
    size_t n_slot;
} rf__prof_table;

/* The kernel named name[0..len) (created with zero sums when new) into *out. */
rf_status rf__prof_kernel_get(rf__prof_table *t, const char *name, size_t len,
                              rf_prof_kernel **out);
void rf__prof_table_free(rf__prof_table *t);

/* Parse into the table (no NUL bytes in the input, BOM skipped). */
rf_status rf__prof_parse_ncu(rf_ctx *ctx, rf__cursor *cur, rf__prof_table *t);
rf_status rf__prof_parse_torch(rf_ctx *ctx, const uint8_t *data, size_t size, rf__prof_table *t);

#endif
