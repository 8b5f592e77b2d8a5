/* roofline/core.h — the roofline model: ceilings, machines, ridge points, attainable performance,
 * bound, efficiency and estimated time (Williams, Waterman, Patterson, CACM 2009).
 * Pure arithmetic on plain structs; no I/O. Units are SI base units throughout:
 * FLOP, byte, second, FLOP/s, byte/s. See docs/design.md, "Conventions". */
#ifndef ROOFLINE_CORE_H
#define ROOFLINE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RF_NAME_MAX 64  /**< bytes for a name, including the NUL */
#define RF_TEXT_MAX 320 /**< bytes for a source or note, including the NUL */

/** What a ceiling limits. */
typedef enum rf_ceiling_kind {
    RF_CEILING_COMPUTE,   /**< horizontal roof, value in FLOP/s (or OP/s for integer precisions) */
    RF_CEILING_BANDWIDTH, /**< sloped roof, value in byte/s */
    RF_CEILING_NETWORK    /**< network roof (interconnect), value in byte/s per direction per
                               device; its intensity is FLOPs per network byte. Never the
                               machine's default bandwidth. */
} rf_ceiling_kind;

/** "compute", "bandwidth" or "network". Static. */
RF_API const char *rf_ceiling_kind_name(rf_ceiling_kind kind);

/** Where a ceiling's figure comes from. */
typedef enum rf_provenance {
    RF_PROV_MEASURED,  /**< measured on this machine by the probe; `stats` is filled */
    RF_PROV_DATASHEET, /**< from a vendor document named in `source` */
    RF_PROV_FILE,      /**< read from a machine file named in `source` */
    RF_PROV_USER       /**< given on the command line (--peak-flops, --peak-bw) */
} rf_provenance;

/** Repetition statistics of a measured ceiling (all zero otherwise). Values in the ceiling's unit.
 */
typedef struct rf_ceiling_stats {
    uint32_t threads;     /**< threads used */
    uint32_t repetitions; /**< timed repetitions */
    double min, median, max;
    char date[32]; /**< ISO 8601 UTC, e.g. "2026-11-22T01:02:03Z" */
} rf_ceiling_stats;

/** One named ceiling of a machine. */
typedef struct rf_ceiling {
    char name[RF_NAME_MAX]; /**< "fp64.fma.avx512", "fp16.tensor", "int8.tensor", "DRAM", "L1" */
    rf_ceiling_kind kind;
    double value;             /**< FLOP/s (compute) or byte/s (bandwidth); finite and > 0 */
    rf_provenance provenance; /**< where `value` comes from */
    char source[RF_TEXT_MAX]; /**< document, file or method the figure comes from */
    char note[RF_TEXT_MAX];   /**< e.g. "derived: 56 cores x 2.0 GHz x 32 FLOP/cycle"; may be "" */
    rf_ceiling_stats stats;   /**< measured ceilings only */
    double capacity_bytes;    /**< bandwidth ceilings: bytes the level holds (the probe fills it
                                   from hwloc's cache sizes; 0 = unknown or unbounded, e.g. DRAM) */
    int provisional;          /**< non-zero: measured in a disturbed run (other processes, a
                                   spread over repetitions or a falling clock); `--hw measured`
                                   measures such a machine again. 0 for every other figure. */
} rf_ceiling;

/** A machine: a set of named ceilings plus the pair the analysis uses unless told otherwise.
 *  Create with rf_machine_new, add ceilings with rf_machine_add, release with rf_machine_free. */
typedef struct rf_machine {
    char name[RF_NAME_MAX];        /**< identifier, e.g. "a100-sxm4-80gb" */
    char description[RF_TEXT_MAX]; /**< human name, e.g. "NVIDIA A100 SXM4 80GB" */
    char kind[16];                 /**< "cpu", "gpu" or "custom" */
    rf_provenance provenance;      /**< of the machine as a whole */
    char source[RF_TEXT_MAX];      /**< document or file it comes from */
    rf_ceiling *ceilings;          /**< n_ceilings entries, owned */
    size_t n_ceilings;             /**< number of ceilings */
    size_t default_compute;        /**< index of the compute ceiling used by default */
    size_t default_bandwidth;      /**< index of the bandwidth ceiling used by default */
    rf_allocator alloc_;           /**< private: the allocator that owns `ceilings` */
    size_t cap_;                   /**< private: capacity of `ceilings` */
} rf_machine;

/** Bound of a point under a roof. */
typedef enum rf_bound {
    RF_BOUND_MEMORY,    /**< AI below the ridge: bandwidth limits */
    RF_BOUND_COMPUTE,   /**< AI at or above the ridge (a tie goes to compute), or bytes = 0 */
    RF_BOUND_UNDEFINED, /**< cost unknown (FLOPs and bytes both 0): listed with a warning */
    RF_BOUND_NETWORK    /**< network bytes / network bandwidth is the longest of the three times
                             (only with a network roof and network bytes) */
} rf_bound;

/** Number of rf_bound values (arrays indexed by bound). */
#define RF_BOUND_COUNT 4

/** Short lower-case name of a bound: "memory", "compute", "undefined". Static. */
RF_API const char *rf_bound_name(rf_bound bound);

/** Lower-case name of a provenance: "measured", "datasheet", "file", "user". Static. */
RF_API const char *rf_provenance_name(rf_provenance p);

/** Parse a provenance name (as printed by rf_provenance_name); returns 0 when unknown. */
RF_API int rf_provenance_parse(const char *text, rf_provenance *out);

/** One roof: a compute ceiling and a bandwidth ceiling. */
typedef struct rf_roof {
    double peak_flops_per_s; /**< > 0, finite */
    double bw_bytes_per_s;   /**< > 0, finite */
} rf_roof;

/** The evaluation of one (FLOPs, bytes) pair under a roof. */
typedef struct rf_eval {
    double flops;    /**< FLOP */
    double bytes;    /**< byte */
    double ai;       /**< FLOP/byte; +inf when bytes = 0 and flops > 0; NaN if undefined */
    double ridge_ai; /**< FLOP/byte where the roofs meet: peak / bw */
    double attainable_flops_per_s; /**< min(peak, ai * bw) */
    double efficiency;             /**< attainable / peak, in [0, 1] */
    double time_s;                 /**< max(flops / peak, bytes / bw[, net_bytes / net_bw]) */
    rf_bound bound;
    double net_bytes; /**< bytes over the network (rf_roof_eval_net), 0 otherwise */
    double net_ai;    /**< flops / net_bytes (+inf when net_bytes = 0 and flops > 0); NaN when
                           the row has no network bytes */
} rf_eval;

/** rf_roof_eval with a third roof: `net_bytes` (finite, >= 0) crossing a network of `net_bw`
 *  bytes/s (0: no network roof). time = max(flops / peak, bytes / bw, net_bytes / net_bw); the
 *  bound is the resource of the longest time (ties: compute, then memory); attainable = flops /
 *  time. net_bytes > 0 without a network roof is RF_USAGE. */
RF_API rf_status rf_roof_eval_net(rf_ctx *ctx, const rf_roof *roof, double net_bw, double flops,
                                  double bytes, double net_bytes, rf_eval *out);

/** Ridge point peak / bw in FLOP/byte. RF_RANGE if either is not finite and > 0. */
RF_API rf_status rf_ridge_ai(rf_ctx *ctx, const rf_roof *roof, double *ai_out);

/** Evaluate (flops, bytes) under `roof`.
 *  flops and bytes must be finite and >= 0, the roof's figures finite and > 0; otherwise RF_RANGE
 *  with a message naming the value. flops = bytes = 0 gives RF_BOUND_UNDEFINED with time 0.
 *  Thread-safe given distinct contexts. */
RF_API rf_status rf_roof_eval(rf_ctx *ctx, const rf_roof *roof, double flops, double bytes,
                              rf_eval *out);

/* ---- machines ---- */

/** Create an empty machine named `name` (may be truncated to RF_NAME_MAX-1). *out owned by caller.
 */
RF_API rf_status rf_machine_new(rf_ctx *ctx, const char *name, rf_machine **out);

/** Deep copy of `src`. */
RF_API rf_status rf_machine_clone(rf_ctx *ctx, const rf_machine *src, rf_machine **out);

/** Release a machine. Accepts NULL. */
RF_API void rf_machine_free(rf_machine *m);

/** Append a copy of `c` (its value must be finite and > 0, its name non-empty and unique in `m`).
 *  The first compute and the first bandwidth ceiling added become the defaults. */
RF_API rf_status rf_machine_add(rf_ctx *ctx, rf_machine *m, const rf_ceiling *c);

/** Replace the value of ceiling `index` (finite and > 0, else RF_RANGE) and record where the new
 *  figure comes from (e.g. RF_PROV_USER, "--peak-flops on the command line"). */
RF_API rf_status rf_machine_set_value(rf_ctx *ctx, rf_machine *m, size_t index, double value,
                                      rf_provenance prov, const char *source);

/** Convenience: a machine with one compute ceiling "peak" and one bandwidth ceiling "memory", the
 *  simple form of a machine file (textbook; fasterbench's HardwarePeaks). */
RF_API rf_status rf_machine_simple(rf_ctx *ctx, const char *name, double peak_flops_per_s,
                                   double bw_bytes_per_s, rf_provenance prov, const char *source,
                                   rf_machine **out);

/** Non-zero when any ceiling of `m` is provisional (measured in a disturbed run). */
RF_API int rf_machine_provisional(const rf_machine *m);

/** Index of the ceiling called exactly `name` (case-insensitive), or -1. */
RF_API long rf_machine_find(const rf_machine *m, const char *name);

/** Select a ceiling of `kind` by name: an exact (case-insensitive) name, or a prefix ending at a
 * '.'
 *  ("fp32" matches "fp32.fma.avx512"; the highest value wins among several). NULL or "" selects the
 *  machine's default for that kind. RF_USAGE with the list of candidates when nothing matches. */
RF_API rf_status rf_machine_select(rf_ctx *ctx, const rf_machine *m, rf_ceiling_kind kind,
                                   const char *name, size_t *index_out);

/** The ceiling of `kind` of `m` named by the first of `names` ("bf16|fp16": alternatives in
 *  order) that matches one, as a name or a prefix ending at a '.' ("fp16" matches
 *  "fp16.tensor"), the highest value among several; SIZE_MAX when none does. */
RF_API size_t rf_machine_find_prefix(const rf_machine *m, rf_ceiling_kind kind, const char *names);

/** The roof made of ceilings `compute` and `bandwidth` of `m`. */
RF_API rf_status rf_machine_roof(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                                 rf_roof *out);

/** Which ceiling binds at intensity `ai` (FLOP/byte, may be +inf) when the data stream from
 *  bandwidth ceiling `bandwidth` and compute runs at ceiling `compute`: `*index_out` is `compute`
 * when ai >= ridge, else `bandwidth`. `*attainable_out` (may be NULL) gets min(peak, ai * bw).
 * Against a machine with several memory levels, pass the level the data live in. */
RF_API rf_status rf_machine_binding(rf_ctx *ctx, const rf_machine *m, size_t compute,
                                    size_t bandwidth, double ai, size_t *index_out,
                                    double *attainable_out);

/** Roof height of every ceiling of `m` at intensity `ai`: value for compute ceilings, ai * value
 * for bandwidth ceilings. `heights` has m->n_ceilings entries. Used by the charts. */
RF_API void rf_machine_heights(const rf_machine *m, double ai, double *heights);

/* ---- units ---- */

/** Parse a non-negative number with an optional SI suffix (k, M, G, T, P, E; K accepted for k) and
 *  an optional unit text after it that is ignored if it is one of "FLOP/s", "FLOPS", "B/s", "/s":
 *  "19.5T" -> 19.5e12, "2039G" -> 2.039e12, "1.5e9" -> 1.5e9. Rejects NaN, infinities, hex,
 *  negative numbers, overflow and trailing garbage with RF_RANGE or RF_FORMAT, naming `what`. */
RF_API rf_status rf_si_parse(rf_ctx *ctx, const char *text, const char *what, double *out);

/** Format `value` with an SI prefix and `unit` into buf: rf_si_format(buf, 16, 1.95e13, 3,
 * "FLOP/s")
 *  -> "19.5 TFLOP/s". `digits` significant digits (1..9). Infinity prints as "inf". Returns buf. */
RF_API char *rf_si_format(char *buf, size_t size, double value, int digits, const char *unit);

/** rf_si_format with 3 significant digits and no space, for narrow columns and axis labels:
 *  "3.15M", "262kB", "0.25", "inf", "-" (NaN). Returns buf. */
RF_API char *rf_si_format_compact(char *buf, size_t size, double value, const char *unit);

/** Format a time in seconds with the best of s, ms, us, ns: "16.5 us". Returns buf. */
RF_API char *rf_time_format(char *buf, size_t size, double seconds, int digits);

/** Format a byte count with binary prefixes (KiB, MiB, GiB) for memory sizes. Returns buf. */
RF_API char *rf_bytes_format_iec(char *buf, size_t size, double bytes, int digits);

/** Shortest decimal text that parses back to exactly `value` (for JSON/CSV output; locale
 *  independent, "%.17g" style but minimal). "inf" for +infinity. Returns buf (size >= 32). */
RF_API char *rf_number_format(char *buf, size_t size, double value);

#ifdef __cplusplus
}
#endif
#endif
