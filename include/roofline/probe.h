/* roofline/probe.h — measure this machine: FLOP/s per precision and instruction set, GEMM,
 * bandwidth per memory level (plateaus of a working-set sweep), per thread count, with the
 * conditions of the run; and the per-machine cache behind `--hw measured`. Never knows about models
 * (docs/design.md). Kernels are chosen at run time by cpuid (one portable binary): src/probe/. */
#ifndef ROOFLINE_PROBE_H
#define ROOFLINE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What to measure. Zero-initialised means: the full run, best ISA, every core. */
typedef struct rf_probe_opts {
    int quick;            /**< only what the analysis needs: best-ISA fp64/fp32 FMA and L1, L2,
                               L3, DRAM on every core (under 3 s) */
    const char *isa;      /**< highest instruction set: "avx512", "avx2", "sse2" or "generic";
                               NULL: $RF_ISA, else the best the CPU and OS support */
    unsigned max_threads; /**< 0: every CPU the process may run on */
    double min_time_s; /**< minimum duration of one timed repetition (0: 4 ms quick, 10 ms full) */
    unsigned repetitions; /**< timed repetitions per figure (0: 3 quick, 5 full) */
} rf_probe_opts;

/** One point of the working-set sweep. */
typedef struct rf_probe_point {
    uint64_t bytes;     /**< working set per thread, byte */
    double bytes_per_s; /**< best repeatable bandwidth of the sweep kernel on every thread */
} rf_probe_point;

/** One detected plateau of the sweep. */
typedef struct rf_probe_level {
    char name[16];        /**< "L1", "L2", "L3", "DRAM" */
    uint64_t first_bytes; /**< smallest per-thread working set on the plateau, byte */
    uint64_t last_bytes;  /**< largest, byte */
    double bytes_per_s;   /**< median of the plateau */
    uint64_t hwloc_bytes; /**< size of that cache as hwloc reports it (0: none, or DRAM) */
} rf_probe_level;

/** Plateau detector input limits. */
#define RF_PROBE_MAX_LEVELS 8

/** The outcome of a run: the machine (ceilings with stats and notes), the conditions it ran in, the
 *  sweep and its plateaus. Free with rf_probe_report_free. */
typedef struct rf_probe_report {
    rf_machine *machine;   /**< owned; provenance measured */
    char cpu_model[96];    /**< cpuid brand string */
    char isa[16];          /**< highest ISA used */
    char compiler[64];     /**< compiler that built the kernels */
    char date[32];         /**< ISO 8601 UTC start of the run */
    unsigned cpus;         /**< CPUs the process may run on */
    unsigned threads;      /**< most threads used */
    int hypervisor;        /**< cpuid's hypervisor bit */
    double load_before;    /**< 1-minute load average before the run (/proc/loadavg) */
    double busy_other;     /**< share of CPU time used by other processes during the run, 0..1
                                (/proc/stat minus this process's own time); -1 unknown */
    double elapsed_s;      /**< duration of the run */
    rf_probe_point *sweep; /**< n_sweep points of the sweep on `sweep_threads` threads; owned */
    size_t n_sweep;
    unsigned sweep_threads;
    rf_probe_level levels[RF_PROBE_MAX_LEVELS]; /**< detected plateaus, smallest first */
    size_t n_levels;
    char levels_note[RF_TEXT_MAX]; /**< how the plateaus compare with hwloc's cache sizes */
    unsigned attempts;             /**< measuring attempts: a disturbed quick run is measured
                                        again within a small time budget, the best repeatable
                                        figure of each ceiling kept */
    int provisional;               /**< non-zero: some ceilings stayed disturbed (their
                                        `provisional` is set; `--hw measured` measures again) */
    char disturbed[RF_TEXT_MAX];   /**< what disturbed the run, in words ("" when quiet) */
    rf_allocator alloc_;           /**< private */
} rf_probe_report;

/** Measure this machine. Progress goes to the context's log at RF_LOG_INFO (one line per step).
 *  A disturbed run (other processes' CPU share, spread over repetitions, a clock that fell) is
 *  measured again while the next attempt fits a small time budget (quick: 8 s in all; a full run
 *  is not repeated), keeping each ceiling's best repeatable figure; ceilings that stay disturbed
 *  are marked provisional and one warning line says so through the log (RF_LOG_WARN). Bandwidth
 *  ceilings get their capacity from hwloc's cache sizes (all cores' private caches together).
 *  RF_USAGE for an unknown or unsupported `isa`. *out owned by the caller. Not thread-safe: it
 *  starts and pins its own threads. */
RF_API rf_status rf_probe_run(rf_ctx *ctx, const rf_probe_opts *opts, rf_probe_report **out);

/** Release a report (and its machine). Accepts NULL. */
RF_API void rf_probe_report_free(rf_probe_report *r);

/** The ISA rf_probe_run would use for `isa` (NULL: $RF_ISA, else the best): RF_USAGE naming the
 *  choices when unknown, or when the CPU or OS lacks it. `*name_out` is static. */
RF_API rf_status rf_probe_isa(rf_ctx *ctx, const char *isa, const char **name_out);

/** Path of the cache file for `opts` (quick and full are kept apart, keyed by CPU model, CPU count
 *  and ISA) under $XDG_CACHE_HOME/roofline/, else $HOME/.cache/roofline/. RF_RANGE if too long. */
RF_API rf_status rf_probe_cache_path(rf_ctx *ctx, const rf_probe_opts *opts, char *buf,
                                     size_t size);

/** Load the cached machine for `opts`: RF_OK with *out NULL when there is none, or when the cached
 *  machine is provisional (measured in a disturbed run: it is to be measured again). */
RF_API rf_status rf_probe_cache_load(rf_ctx *ctx, const rf_probe_opts *opts, rf_machine **out);

/** Store `m` as the cached machine for `opts` (creating the folders; written to a temporary file
 *  and renamed). A provisional `m` is merged with the cached machine first, keeping each ceiling's
 *  higher figure, so repeated disturbed runs converge on the best figures seen. */
RF_API rf_status rf_probe_cache_store(rf_ctx *ctx, const rf_probe_opts *opts, const rf_machine *m);

/** The machine behind `--hw measured`: the cached full run, else the cached quick run (neither
 *  when provisional), else a quick run now, stored in the cache; a provisional run gives the best
 *  figures of it and the earlier provisional cache. */
RF_API rf_status rf_probe_measured(rf_ctx *ctx, rf_machine **out);

#ifdef __cplusplus
}
#endif
#endif
