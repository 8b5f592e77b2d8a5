/* roofline/region.h — the marker API: time named regions of your own code (LIKWID's marker API),
 * give their FLOPs and bytes, and have them written at exit as a saved result (the JSON `roofline
 * plot` reads, plus a "regions" section with the measured times) to $ROOFLINE_OUTPUT, or as this
 * process's record in $ROOFLINE_OUTPUT_DIR, which `roofline run` evaluates against a machine.
 * Records are per thread and merged when read; the library never prints. Process-wide by nature:
 * the markers take no context (see rf_region_begin).
 */
#ifndef ROOFLINE_REGION_H
#define ROOFLINE_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "buf.h"
#include "core.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Deepest nesting of open regions per thread; deeper begin/end pairs are ignored (counted). */
#define RF_REGION_MAX_DEPTH 64

/** Per-call times kept per region and thread for the median: every call up to this many, then a
 *  uniform sample of this size (reservoir sampling). Calls, total, min and max are always exact. */
#define RF_REGION_MAX_SAMPLES 4096

/** Open region `name` on the calling thread. Regions nest (a region's time includes the regions
 *  opened inside it); the same name may be open twice (recursion: both calls counted). `name`
 *  is copied the first time a thread sees it. Thread-safe: each thread records into its own
 *  record (its own cache lines), merged only when the regions are read. Never fails visibly: when
 *  memory runs out the call is dropped. These calls keep process-wide state (a list of thread
 *  records, registered once with atexit), the one exception to "no hidden global state": code
 *  being timed has no context to pass. */
RF_API void rf_region_begin(const char *name);

/** Close region `name`, the innermost open one on this thread. An end whose name is not the
 *  innermost open region (or without any open) is ignored and counted as `unmatched`. */
RF_API void rf_region_end(const char *name);

/** Add `flops` FLOP and `bytes` byte of work to region `name` (summed over calls and threads).
 *  May be called inside or outside the region; non-finite or negative values are ignored. */
RF_API void rf_region_add(const char *name, double flops, double bytes);

/** What one region did, merged over every thread. */
typedef struct rf_region_stats {
    char *name;         /**< owned by the rf_regions */
    uint64_t calls;     /**< completed begin/end pairs */
    double total_s;     /**< sum of the calls' times over every thread, second */
    double min_s;       /**< shortest call, second (0 when calls = 0) */
    double median_s;    /**< median time per call, second (see RF_REGION_MAX_SAMPLES) */
    double max_s;       /**< longest call, second */
    double flops;       /**< FLOP given through rf_region_add */
    double bytes;       /**< byte given through rf_region_add */
    uint32_t threads;   /**< threads that completed at least one call */
    uint64_t unmatched; /**< ends ignored: no matching begin */
    /** Hardware counts (ROOFLINE_COUNTERS=1, see rf_regions_set_perf): the calls whose counters
     *  were read, and the FLOP (floating-point retirement events weighted by the FLOPs per
     *  event) and bytes (last-level-cache misses x 64 B) counted over them. 0 when not counted. */
    uint64_t counted_calls;
    double counted_flops;
    double counted_bytes;
} rf_region_stats;
/** The FLOPs and bytes a region is evaluated with: the hardware counts when every call of it was
 *  counted (returns 1), else the rf_region_add figures (returns 0). */
RF_API int rf_region_counts(const rf_region_stats *s, double *flops, double *bytes);

/** A set of region statistics, in the order the names were first seen. */
typedef struct rf_regions {
    rf_region_stats *items; /**< n entries, owned */
    size_t n;
    rf_allocator alloc_; /**< private */
} rf_regions;

/** Merge every thread's records into *out (owned by the caller: rf_regions_free). Safe while
 *  other threads are recording (each thread's record is locked briefly). */
RF_API rf_status rf_regions_snapshot(rf_ctx *ctx, rf_regions **out);

/** Release. Accepts NULL. */
RF_API void rf_regions_free(rf_regions *r);

/** Add the regions of `from` (another process's record) to `into` (made with the same `ctx`),
 *  matched by name (new names appended): calls, totals, counts, threads and unmatched ends are
 *  summed, min and max kept; the median is the calls-weighted mean of the two (an estimate: the
 *  samples are not in the records). */
RF_API rf_status rf_regions_merge(rf_ctx *ctx, rf_regions *into, const rf_regions *from);

/** The regions as an analysis on ceilings `compute` / `bandwidth` of `m`: one row per region, op
 *  "region", its FLOPs and bytes (totals of rf_region_add over every call) and its measured time
 *  (the total over every call and thread), so each lands as a measured point under its roof.
 *  *out: rf_result_free. */
RF_API rf_status rf_regions_analyze(rf_ctx *ctx, const rf_regions *regions, const rf_machine *m,
                                    size_t compute, size_t bandwidth, const char *title,
                                    rf_result **out);

/** Write the regions recorded so far to `path` (NULL: a new file regions-PID.json of this process
 *  in the directory $ROOFLINE_OUTPUT_DIR, created with O_EXCL and never through a symlink, so each
 *  process of a program that forks writes its own record (a child starts from zero); else
 *  $ROOFLINE_OUTPUT; nothing is written and RF_OK returned when neither is set) as
 *  rf_regions_write_json against the machine named
 *  by $ROOFLINE_HW (a datasheet name or machine file), else the cached measurement of this
 *  machine, else the datasheet xeon-8480plus (the demo's) — the roof only matters to
 *  `roofline plot` on the file; `roofline run` evaluates the regions again. Called at exit
 *  automatically. */
RF_API rf_status rf_regions_write(rf_ctx *ctx, const char *path);

/** The saved result of `regions` under the default roof of `m` (rf_report_json: one row per
 *  region, op "region", the FLOPs and bytes given) with a top-level "regions" array holding each
 *  region's measured figures (name, calls, total_s, min_s, median_s, max_s, flops, bytes,
 *  threads, unmatched). `title` names the program (may be NULL). */
RF_API rf_status rf_regions_write_json(rf_ctx *ctx, const rf_regions *regions, const rf_machine *m,
                                       const char *title, rf_writer *w);

/** Read the "regions" array of a file written by rf_regions_write_json (strict: unknown keys,
 *  wrong types, negative or non-finite figures are errors naming the item). `source` names the
 *  input in messages. *out owned by the caller. */
RF_API rf_status rf_regions_parse_json(rf_ctx *ctx, const void *data, size_t size,
                                       const char *source, rf_regions **out);

/** rf_regions_parse_json on a file. */
RF_API rf_status rf_regions_read_file(rf_ctx *ctx, const char *path, rf_regions **out);

/** Table of the regions' measured points against the rows of `r` (the same regions evaluated
 *  under a roof, matched by name): calls, time per call (median and min), total, achieved
 *  FLOP/s and byte/s, and utilization = achieved / attainable. */
RF_API rf_status rf_report_regions(rf_ctx *ctx, const rf_regions *regions, const rf_result *r,
                                   const rf_report_opts *o, rf_writer *w);

/** Hardware counters this process could count a region's FLOPs and bytes with. */
typedef struct rf_perf_counters {
    unsigned fp;         /**< floating-point events that opened */
    unsigned mem;        /**< memory events that opened */
    char fp_events[512]; /**< their names, comma-separated */
    char mem_events[96];
    char why[160]; /**< when either kind is missing: why, in a few words */
} rf_perf_counters;

/** Opens one counter for this process: returns >= 0 on success (and closes it), -errno on
 *  failure. `type` and `config` as in struct perf_event_attr. */
typedef int (*rf_perf_open_fn)(void *user, uint32_t type, uint64_t config);

/** Try the x86 floating-point retirement events of this CPU's vendor and the last-level-cache
 *  misses through `open_fn` (NULL: perf_event_open on this process; tests pass a stand-in, which
 *  is offered every event). Always RF_OK unless `out` is NULL; the outcome is in *out. */
RF_API rf_status rf_perf_detect(rf_ctx *ctx, rf_perf_open_fn open_fn, void *user,
                                rf_perf_counters *out);

/** One sentence for `roofline run`: which counters count the regions, or that none are available
 *  and why, and that the rf_region_add counts are used. Returns buf. */
RF_API const char *rf_perf_describe(const rf_perf_counters *c, char *buf, size_t size);
/** Where the markers read hardware counters from: `open` opens one event for the calling thread
 *  and returns a handle >= 0 (or -errno), `read` stores its running count (scaled for
 *  multiplexing) and returns 0 (or -errno), `close` releases it. */
typedef struct rf_perf_ops {
    int (*open)(void *user, uint32_t type, uint64_t config);
    int (*read)(void *user, int handle, uint64_t *count);
    void (*close)(void *user, int handle);
    void *user;
} rf_perf_ops;
/** Count every region's FLOPs and bytes with hardware counters: each thread opens this CPU's
 *  floating-point retirement events and last-level-cache misses once (perf_event_open on the
 *  thread) and reads them at every begin and end. On when the environment has
 *  ROOFLINE_COUNTERS=1 (`roofline run` sets it when rf_perf_detect found both kinds) or when a
 *  test passes stand-in `ops` here (which are offered every event of every vendor); NULL restores
 *  the environment's choice. Call before any thread records (or after rf_regions_reset). A
 *  thread whose events do not all open counts nothing. */
RF_API void rf_regions_set_perf(const rf_perf_ops *ops);

/** Forget every record (tests). No thread may be inside a marker call meanwhile. */
RF_API void rf_regions_reset(void);

/** Test hook: the clock the markers read, in nanoseconds (NULL: CLOCK_MONOTONIC). Set it before
 *  any thread records. */
RF_API void rf_regions_set_clock(uint64_t (*now_ns)(void *user), void *user);

/* The macro layer: compiled to nothing unless ROOFLINE_MARKERS is defined before this header is
 * first included (as LIKWID_PERFMON does for likwid-marker.h), so instrumented code ships
 * unchanged. The arguments are not evaluated when markers are off. */
#ifdef ROOFLINE_MARKERS
#define RF_REGION_BEGIN(name) rf_region_begin(name)
#define RF_REGION_END(name) rf_region_end(name)
#define RF_REGION_ADD(name, flops, bytes) rf_region_add((name), (double)(flops), (double)(bytes))
#else
#define RF_REGION_BEGIN(name) ((void)0)
#define RF_REGION_END(name) ((void)0)
#define RF_REGION_ADD(name, flops, bytes) ((void)0)
#endif

#ifdef __cplusplus
}
#endif
#endif
