/* roofline/analysis.h — evaluation of many operations (or layers) against one roof of a machine,
 * streamed: rows go in one at a time, totals are kept for all of them, and only the rows that will
 * be printed are kept (the top N by the sort key, or all). The result, rf_result, is what every
 * renderer draws. */
#ifndef ROOFLINE_ANALYSIS_H
#define ROOFLINE_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Order of the printed rows. */
typedef enum rf_sort {
    RF_SORT_INPUT, /**< as given */
    RF_SORT_TIME,  /**< estimated time, longest first */
    RF_SORT_AI,    /**< arithmetic intensity, lowest first (most memory-starved first) */
    RF_SORT_NAME,  /**< name, byte order */
    RF_SORT_LOST   /**< time lost to the roof (measured - estimated), most first; rows without a
                        measurement after every measured one, by estimated time */
} rf_sort;

/** A time measured for one operation (one pass), in seconds: the median of `runs` timed passes
 *  and their spread (min_s = max_s = time_s for a single figure; runs 0 = unknown count). */
typedef struct rf_measured {
    double time_s, min_s, max_s;
    uint32_t runs;
} rf_measured;

/** Why a measured point lies above its roof (bits; several may hold). */
enum {
    RF_ABOVE_FASTER_LEVEL =
        1u,                    /**< its bytes fit a faster memory level than the roof's (`level`) */
    RF_ABOVE_MISCOUNT = 2u,    /**< no level explains it: FLOPs or bytes miscounted for the op */
    RF_ABOVE_PROVISIONAL = 4u, /**< the roof was measured in a disturbed run (provisional) */
    RF_ABOVE_NOISE = 8u        /**< at most RF_ABOVE_NOISE_SHARE over the roof and nothing else
                                    explains it: the spread of clock and timer between the roof's
                                    run and this one, not a miscount */
};
/** How far over its roof a point may be and still be put down to measurement spread (5%). */
#define RF_ABOVE_NOISE_SHARE 0.05

/** What a measurement says about a row. Every figure is derived from `m` and the row's estimate
 *  (rf_eval) by the analysis. */
typedef struct rf_achieved {
    rf_measured m;      /**< as given */
    double flops_per_s; /**< achieved: flops / m.time_s */
    double bytes_per_s; /**< achieved: bytes / m.time_s */
    double utilization; /**< achieved FLOP/s / attainable at the row's AI (fasterbench's
                             util%); for a row without FLOPs, achieved B/s / bandwidth */
    double ratio;       /**< m.time_s / estimated time (1 = on its roof; < 1 above it) */
    double lost_s;      /**< m.time_s - estimated time: time lost to the roof (< 0 above) */
    int above;          /**< non-zero: faster than its roof allows (utilization > 1) */
    unsigned why;       /**< RF_ABOVE_* bits when `above` */
    char level[16];     /**< RF_ABOVE_FASTER_LEVEL: the ceiling whose capacity holds the
                             row's bytes ("L2"); else "" */
} rf_achieved;

/** One evaluated operation. */
typedef struct rf_row {
    char *name;     /**< owned by the result; never NULL */
    char *op;       /**< op kind ("MatMul", "Conv", …) or NULL for a plain operations list */
    char *detail;   /**< e.g. the output shape "1x64x112x112" (profile), or NULL */
    uint64_t index; /**< 0-based position in the input */
    rf_eval e;      /**< FLOPs, bytes, AI, attainable, bound, efficiency, time */
    rf_achieved *measured; /**< the measurement, or NULL when the row has none; owned by the
                                result (kept apart so rows without one stay small) */
} rf_row;

/** Sums over every operation given (not only the printed ones). */
typedef struct rf_totals {
    uint64_t count; /**< operations evaluated */
    double flops;   /**< FLOP */
    double bytes;   /**< byte */
    double ai;      /**< flops / bytes (+inf if bytes = 0, NaN if both 0) */
    double time_s;  /**< sum of estimated times */
    uint64_t count_by_bound[RF_BOUND_COUNT]; /**< indexed by rf_bound */
    double time_by_bound_s[RF_BOUND_COUNT];  /**< indexed by rf_bound */
    double flops_by_bound[RF_BOUND_COUNT];   /**< indexed by rf_bound */
    double net_bytes; /**< bytes over the network (0 without a network roof) */
    /* Measurements (all 0 when no row carries one). */
    uint64_t count_measured; /**< rows with a measured time */
    uint64_t count_above;    /**< measured rows above their roof */
    double measured_s;       /**< sum of the measured times of those rows (s) */
    double measured_est_s;   /**< sum of the estimated times of the same rows (s) */
    double lost_s;           /**< sum of their time lost to the roof (measured - estimated) */
    double wall_s;           /**< measured wall time of the whole pass (s), 0 = not given
                                  (rf_analysis_set_wall); wall_s - measured_s is dispatch
                                  overhead between the layers */
    double busy_other;       /**< share of the machine's CPU time other processes used while the
                                  pass was timed, 0..1; -1 = unknown (rf_analysis_set_busy). Over
                                  RF_BUSY_OTHERS the measured times are slower than a quiet
                                  machine gives */
} rf_totals;

/** Other processes' share of the CPU beyond which a measurement is called disturbed. */
#define RF_BUSY_OTHERS 0.10

/** The outcome of an analysis: the machine and roof used, the printed rows and the totals. */
typedef struct rf_result {
    char title[RF_TEXT_MAX];   /**< what was analysed (e.g. the input file name) */
    char machine[RF_NAME_MAX]; /**< machine identifier */
    char machine_description[RF_TEXT_MAX];
    rf_provenance provenance; /**< of the machine */
    rf_ceiling compute;       /**< copy of the compute ceiling used */
    rf_ceiling bandwidth;     /**< copy of the bandwidth ceiling used */
    rf_ceiling network;       /**< copy of the network ceiling used; value 0 when none
                                   (rf_analysis_set_network) */
    rf_roof roof;             /**< its two figures */
    double ridge_ai;          /**< FLOP/byte */
    rf_sort sort;             /**< order of rows */
    uint64_t top;             /**< 0 = all rows kept */
    rf_row *rows;             /**< n_rows printed rows, in `sort` order; owned */
    size_t n_rows;
    rf_totals totals;    /**< over all rows */
    rf_allocator alloc_; /**< private */
} rf_result;

/** Opaque accumulator. */
typedef struct rf_analysis rf_analysis;

/** Start an analysis of operations under ceilings `compute` and `bandwidth` of `m` (indices, e.g.
 *  from rf_machine_select). With `top` > 0 only the first `top` rows in `sort` order are kept
 *  (a heap: memory O(top), time O(n log top)). The machine is copied from; it may be freed after.
 */
RF_API rf_status rf_analysis_new(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                                 rf_sort sort, uint64_t top, rf_analysis **out);

/** Add one operation. `name` need not be NUL-terminated (name_len bytes); `op` may be NULL.
 *  FLOPs and bytes must be finite and >= 0 (RF_RANGE otherwise). Both 0 counts as undefined and
 *  is logged as a warning through the context. */
RF_API rf_status rf_analysis_add(rf_analysis *a, const char *name, size_t name_len, const char *op,
                                 double flops, double bytes);

/** rf_analysis_add with a `detail` text kept in the row (may be NULL; the profile's output
 *  shape). With `quiet` non-zero an undefined row is not logged (the caller already warned). */
RF_API rf_status rf_analysis_add_detail(rf_analysis *a, const char *name, size_t name_len,
                                        const char *op, const char *detail, int quiet, double flops,
                                        double bytes);

/** rf_analysis_add_detail with a measured time `m` (may be NULL: same as without). The row gets
 *  the measured fields (rf_achieved): achieved FLOP/s and bytes/s, utilization of its roof, the
 *  measured/estimated ratio, the time lost to the roof, and an above-roof flag with its likely
 *  reason (its bytes fit a faster level of the machine given to rf_analysis_new — a bandwidth
 *  ceiling with a capacity — a miscounted op, or a provisional roof). m->time_s must be finite and
 *  > 0, min_s <= time_s <= max_s (0 for both: taken as time_s); RF_RANGE otherwise, naming the
 *  row. A row with no cost (undefined) keeps its measured time and no derived figures. */
RF_API rf_status rf_analysis_add_measured(rf_analysis *a, const char *name, size_t name_len,
                                          const char *op, const char *detail, int quiet,
                                          double flops, double bytes, const rf_measured *m);

/** Give the analysis a third roof: ceiling `network` of `m` (kind RF_CEILING_NETWORK). Call
 *  before adding rows; rows then may carry network bytes (rf_analysis_add_net), and the result's
 *  `network` and `roof.net_bytes_per_s` are set. */
RF_API rf_status rf_analysis_set_network(rf_analysis *a, const rf_machine *m, size_t network);

/** rf_analysis_add_measured with `net_bytes` over the network (finite, >= 0; > 0 needs a network
 *  roof, rf_analysis_set_network): the row's time, bound and attainable take all three roofs. */
RF_API rf_status rf_analysis_add_net(rf_analysis *a, const char *name, size_t name_len,
                                     const char *op, const char *detail, int quiet, double flops,
                                     double bytes, double net_bytes, const rf_measured *m);

/** Record the measured wall time of the whole pass (seconds, finite and > 0, else RF_RANGE): the
 *  totals then set the sum of the measured layers against it (the gap is dispatch overhead). */
RF_API rf_status rf_analysis_set_wall(rf_analysis *a, double seconds);

/** Record other processes' share of the machine's CPU time while the pass was timed (0..1, else
 *  RF_RANGE; a negative share means unknown and is accepted as such). */
RF_API rf_status rf_analysis_set_busy(rf_analysis *a, double share);

/** Something that sees every row as it is evaluated, kept for printing or not (the advice:
 *  rf_advice_stream_row). `name` holds name_len bytes (row->name is NULL at that point); a status
 *  other than RF_OK stops the row with that status. */
typedef rf_status (*rf_row_observer)(void *user, const rf_row *row, const char *name,
                                     size_t name_len);

/** Call `fn(user, ...)` for every row added from now on (NULL: none). */
RF_API rf_status rf_analysis_set_observer(rf_analysis *a, rf_row_observer fn, void *user);

/** Finish: sort the kept rows and hand over the result (*out owned by the caller). The accumulator
 *  can then only be freed. */
RF_API rf_status rf_analysis_finish(rf_analysis *a, const char *title, rf_result **out);

/** Release an accumulator. Accepts NULL. */
RF_API void rf_analysis_free(rf_analysis *a);

/** Release a result. Accepts NULL. */
RF_API void rf_result_free(rf_result *r);

/** Parse "time", "ai", "name", "input", "lost" into *out; RF_USAGE otherwise. */
RF_API rf_status rf_sort_parse(rf_ctx *ctx, const char *text, rf_sort *out);

#ifdef __cplusplus
}
#endif
#endif
