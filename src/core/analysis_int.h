/* analysis_int.h — what the analysis shares with the result reader: the evaluation of a measured
 * time against a row's estimate (measured.c). Internal to the library; never installed. */
#ifndef RF_ANALYSIS_INT_H
#define RF_ANALYSIS_INT_H

#include <stddef.h>

#include "roofline/analysis.h"

/* A memory level a working set may fit in: a bandwidth ceiling with a known capacity. */
typedef struct rf__level {
    char name[16];
    double bytes_per_s; /* its bandwidth */
    double capacity_bytes;
} rf__level;

/* Check a measured time: finite, > 0, min_s <= time_s <= max_s (0 and 0: both become time_s).
 * Fills *out with the checked copy; RF_RANGE naming `what` (e.g. the row's name) otherwise. */
rf_status rf__measured_check(rf_ctx *ctx, const rf_measured *m, const char *what, rf_measured *out);

/* The measured figures of a row evaluated as `e` under `roof` (rf_achieved): achieved rates,
 * utilization, ratio, time lost, and the above-roof flag with its reasons. `provisional`: the roof
 * is provisional. levels[0..n_levels) are the machine's levels with a capacity (may be none). */
void rf__achieved_eval(const rf_eval *e, const rf_roof *roof, int provisional,
                       const rf__level *levels, size_t n_levels, const rf_measured *m,
                       rf_achieved *out);

/* rf_analysis_add_measured for a row of which `tensor_flops` (<= flops) ran on matrix units: its
 * compute peak mixes the analysis roof's peak with the machine's fp16/bf16 tensor ceiling by
 * share of the FLOPs (time = tensor / tensor peak + rest / roof peak); the plain roof when the
 * machine has no tensor ceiling above it. */
rf_status rf__analysis_add_tensor(rf_analysis *a, const char *name, size_t name_len, const char *op,
                                  const char *detail, int quiet, double flops, double tensor_flops,
                                  double bytes, const rf_measured *m);

/* Add a measured row to the measured totals (nothing when `a` is NULL). */
void rf__achieved_totals_add(rf_totals *t, const rf_eval *e, const rf_achieved *a);

/* Order of two rows by time lost to the roof: measured rows first, most lost first; the others by
 * estimated time, longest first. Negative when x goes first; 0 on a tie. */
int rf__achieved_cmp_lost(const rf_row *x, const rf_row *y);

/* Words for the reasons in `why` (RF_ABOVE_* bits): "bytes fit L2 (faster than DRAM); provisional
 * roof; FLOPs or bytes miscounted?". Writes into buf[size]; returns buf. `roof_bw` names the roof's
 * bandwidth ceiling. */
char *rf__above_text(char *buf, size_t size, const rf_achieved *a, const char *roof_bw);

#endif
