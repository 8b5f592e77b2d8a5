/* roofline/prof.h — reader of measurements made by GPU profilers elsewhere: Nsight Compute CSV
 * (`ncu --csv`, the long one-row-per-metric form or `--page raw`'s one-row-per-launch form, with
 * NERSC's hierarchical-roofline metric set) and PyTorch profiler Chrome traces
 * (`export_chrome_trace`, with_flops=True). Launches of one kernel (or op) are aggregated by name;
 * each aggregate goes to a callback. docs/prof-import.md describes the metrics and units. */
#ifndef ROOFLINE_PROF_H
#define ROOFLINE_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Input format. AUTO: a JSON object or array is a PyTorch trace; text whose header names Nsight
 *  Compute's "Kernel Name" column is an ncu CSV; anything else is refused (RF_FORMAT). */
typedef enum rf_prof_format { RF_PROF_AUTO, RF_PROF_NCU, RF_PROF_TORCH } rf_prof_format;

/** One kernel (ncu) or op (PyTorch), summed over its launches. All figures finite and >= 0. */
typedef struct rf_prof_kernel {
    const char *name; /**< NUL-terminated, valid during the callback only */
    uint64_t count;   /**< launches (ncu IDs; trace events) aggregated */
    double flops_fp64, flops_fp32, flops_fp16; /**< FLOP on the FMA pipes (an FMA counts 2) */
    double flops_tensor; /**< FLOP on the tensor pipe (ncu: 512 per warp instruction, NERSC's
                              V100 figure); PyTorch: 0 (its flops are in flops_other) */
    double flops_other;  /**< FLOP of unknown precision (PyTorch's args.flops) */
    double bytes_l1, bytes_l2, bytes_dram; /**< byte moved at L1/TEX, L2 (LTS), DRAM/HBM */
    double time_s;                         /**< second, summed over the launches; 0: not timed */
    double bytes_inputs; /**< PyTorch: bytes of the op's input tensors ("Input Dims" x "Input
                              type", record_shapes=True); outputs are not recorded. ncu: 0 */
    int gpu_kernel;      /**< 1: a GPU kernel (ncu; a trace's kernel events), 0: a framework op */
} rf_prof_kernel;

/** Called once per kernel, in order of first appearance; non-OK stops the parse. */
typedef rf_status (*rf_prof_fn)(void *user, const rf_prof_kernel *k);

/** Parse a profile from memory and deliver the aggregated kernels. At least one kernel with a
 *  known metric is required. Errors (RF_FORMAT, RF_RANGE, RF_NOMEM) name the line and column
 *  (CSV) or the event (trace) and set the byte offset. `*found` (may be NULL) gets the format
 *  read. */
RF_API rf_status rf_prof_parse(rf_ctx *ctx, const void *data, size_t size, rf_prof_format fmt,
                               rf_prof_fn fn, void *user, rf_prof_format *found);

/** Read `path` (memory-mapped; "-" is standard input) and add one measured row per kernel to `an`:
 *  FLOPs of all precisions, the DRAM bytes (else L2, else L1 when DRAM was not collected) and the
 *  summed time; the detail names the launch count and the L1/L2/DRAM intensities (the
 *  hierarchical roofline). Error messages start with the path. */
RF_API rf_status rf_prof_analyze_file(rf_ctx *ctx, const char *path, rf_prof_format fmt,
                                      rf_analysis *an);

/** What `path` holds: RF_PROF_NCU when a line in its first 64 KiB is a header naming "Kernel
 *  Name" and a metric column, RF_PROF_TORCH when it is JSON holding "traceEvents" or events with
 *  "ph" in its first 64 KiB, else RF_PROF_AUTO (not a profile: an operations list, say). "-" is
 *  never sniffed (AUTO). Errors only when the file cannot be read. */
RF_API rf_status rf_prof_detect_file(rf_ctx *ctx, const char *path, rf_prof_format *out);

/** The memory level whose bytes make a row's intensity (the hierarchical roofline: one point per
 *  level for each kernel). AUTO: DRAM, else L2, else L1, the first collected. */
typedef enum rf_prof_level {
    RF_PROF_LEVEL_AUTO,
    RF_PROF_LEVEL_L1,
    RF_PROF_LEVEL_L2,
    RF_PROF_LEVEL_DRAM
} rf_prof_level;

/** rf_prof_analyze_file with the bytes of one `level`: kernels without bytes at that level are
 *  left out (*n_rows, may be NULL, gets the rows added), and nothing is logged for undefined
 *  rows (the AUTO analysis of the same file already said). */
RF_API rf_status rf_prof_analyze_file_level(rf_ctx *ctx, const char *path, rf_prof_format fmt,
                                            rf_prof_level level, rf_analysis *an, size_t *n_rows);

/** Parse "ncu", "torch-trace" (or "torch") into *out; RF_USAGE otherwise. */
RF_API rf_status rf_prof_format_parse(rf_ctx *ctx, const char *text, rf_prof_format *out);

#ifdef __cplusplus
}
#endif
#endif
