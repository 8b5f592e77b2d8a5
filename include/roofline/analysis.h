/* roofline/analysis.h — evaluation of many operations (or layers) against one roof of a machine,
 * streamed: rows go in one at a time, totals are kept for all of them, and only the rows that will
 * be printed are kept (the top N by the sort key, or all). The result, rf_result, is what every
 * renderer draws. */
#ifndef ROOFLINE_ANALYSIS_H
#define ROOFLINE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Order of the printed rows. */
typedef enum rf_sort {
    RF_SORT_INPUT, /**< as given */
    RF_SORT_TIME,  /**< estimated time, longest first */
    RF_SORT_AI,    /**< arithmetic intensity, lowest first (most memory-starved first) */
    RF_SORT_NAME   /**< name, byte order */
} rf_sort;

/** One evaluated operation. */
typedef struct rf_row {
    char *name;     /**< owned by the result; never NULL */
    char *op;       /**< op kind ("MatMul", "Conv", …) or NULL for a plain operations list */
    char *detail;   /**< e.g. the output shape "1x64x112x112" (profile), or NULL */
    uint64_t index; /**< 0-based position in the input */
    rf_eval e;      /**< FLOPs, bytes, AI, attainable, bound, efficiency, time */
} rf_row;

/** Sums over every operation given (not only the printed ones). */
typedef struct rf_totals {
    uint64_t count;             /**< operations evaluated */
    double flops;               /**< FLOP */
    double bytes;               /**< byte */
    double ai;                  /**< flops / bytes (+inf if bytes = 0, NaN if both 0) */
    double time_s;              /**< sum of estimated times */
    uint64_t count_by_bound[3]; /**< indexed by rf_bound */
    double time_by_bound_s[3];  /**< indexed by rf_bound */
    double flops_by_bound[3];   /**< indexed by rf_bound */
} rf_totals;

/** The outcome of an analysis: the machine and roof used, the printed rows and the totals. */
typedef struct rf_result {
    char title[RF_TEXT_MAX];     /**< what was analysed (e.g. the input file name) */
    char machine[RF_NAME_MAX];   /**< machine identifier */
    char machine_description[RF_TEXT_MAX];
    rf_provenance provenance;    /**< of the machine */
    rf_ceiling compute;          /**< copy of the compute ceiling used */
    rf_ceiling bandwidth;        /**< copy of the bandwidth ceiling used */
    rf_roof roof;                /**< its two figures */
    double ridge_ai;             /**< FLOP/byte */
    rf_sort sort;                /**< order of rows */
    uint64_t top;                /**< 0 = all rows kept */
    rf_row *rows;                /**< n_rows printed rows, in `sort` order; owned */
    size_t n_rows;
    rf_totals totals;            /**< over all rows */
    rf_allocator alloc_;         /**< private */
} rf_result;

/** Opaque accumulator. */
typedef struct rf_analysis rf_analysis;

/** Start an analysis of operations under ceilings `compute` and `bandwidth` of `m` (indices, e.g.
 *  from rf_machine_select). With `top` > 0 only the first `top` rows in `sort` order are kept
 *  (a heap: memory O(top), time O(n log top)). The machine is copied from; it may be freed after. */
rf_status rf_analysis_new(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                          rf_sort sort, uint64_t top, rf_analysis **out);

/** Add one operation. `name` need not be NUL-terminated (name_len bytes); `op` may be NULL.
 *  FLOPs and bytes must be finite and >= 0 (RF_RANGE otherwise). Both 0 counts as undefined and
 *  is logged as a warning through the context. */
rf_status rf_analysis_add(rf_analysis *a, const char *name, size_t name_len, const char *op,
                          double flops, double bytes);

/** rf_analysis_add with a `detail` text kept in the row (may be NULL; the profile's output
 *  shape). With `quiet` non-zero an undefined row is not logged (the caller already warned). */
rf_status rf_analysis_add_detail(rf_analysis *a, const char *name, size_t name_len, const char *op,
                                 const char *detail, int quiet, double flops, double bytes);

/** Finish: sort the kept rows and hand over the result (*out owned by the caller). The accumulator
 *  can then only be freed. */
rf_status rf_analysis_finish(rf_analysis *a, const char *title, rf_result **out);

/** Release an accumulator. Accepts NULL. */
void rf_analysis_free(rf_analysis *a);

/** Release a result. Accepts NULL. */
void rf_result_free(rf_result *r);

/** Parse "time", "ai", "name", "input" into *out; RF_USAGE otherwise. */
rf_status rf_sort_parse(rf_ctx *ctx, const char *text, rf_sort *out);

#ifdef __cplusplus
}
#endif
#endif
