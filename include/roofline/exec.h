/* roofline/exec.h — the executor: runs a layer graph forward on this CPU with real intermediate
 * tensors (synthetic values) and times every layer with one harness (warm-up, N timed passes,
 * per-layer median/min/max, whole-pass wall time). Kernels: oneDNN primitives, plain C for the
 * shape and gather ops. It never decides bounds or prints: the caller puts the times under roofs.
 */
#ifndef ROOFLINE_EXEC_H
#define ROOFLINE_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "core.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Options of rf_exec_run. Zero-initialised means: every core, 2 warm-up passes, automatic
 *  repetitions, the monotonic clock. */
typedef struct rf_exec_opts {
    unsigned threads; /**< 0 = every core; applied to oneDNN (OpenMP) and OpenBLAS alike */
    unsigned warmup;  /**< warm-up passes; 0 = default (2, or none when repeat is 1: one pass) */
    unsigned repeat;  /**< timed passes; 0 = auto: enough passes for ~2.5 s from the warm-up
                           passes' time, at least 5, at most 1000 */
    double (*clock)(void *user); /**< seconds; NULL = CLOCK_MONOTONIC. Tests inject a fake one */
    void *clock_user;            /**< passed back to `clock` */
    double max_flops;            /**< work budget of one pass, FLOP (rf_profile_measure refuses a
                                      model whose pass costs more); 0 = none */
} rf_exec_opts;

/** What the executor measured for one layer of the graph. */
typedef struct rf_exec_layer {
    int measured; /**< 1: timed; 0: not measured, `reason` says why */
    char reason[RF_TEXT_MAX];
    double median_s, min_s, max_s; /**< per pass, seconds (0 when not measured) */
    char kernel[RF_NAME_MAX];      /**< "onednn:convolution", "c:gather", "c:view", ... */
    int32_t fused_into; /**< -1: ran as its own step(s); else the index of the layer whose oneDNN
                             kernel computed it as a post-op (kernel "onednn:post-op"): its times
                             are its share of that kernel's, split by FLOPs (a conv's count, one
                             per element for the element-wise op) */
    int folded;    /**< 1 (with measured 1): every input is a constant (weights, Constant nodes,
                        layers folded before it, the shape of a tensor of fixed shape): computed
                        once when the run was prepared, as ONNX Runtime folds constants at load,
                        and not part of any pass (median/min/max 0) */
    double load_s; /**< folded: the time computing it once took, seconds */
} rf_exec_layer;

/** A layer the executor added: a oneDNN reorder between two layouts. */
typedef struct rf_exec_extra {
    char name[RF_NAME_MAX]; /**< "reorder:<tensor name>" (truncated) */
    uint32_t before_layer;  /**< index of the graph layer it runs just before */
    double median_s;        /**< per pass, seconds */
    double bytes;           /**< bytes read plus bytes written */
    int folded;             /**< 1: a reorder of a folded tensor, made once before the passes
                                 (median_s 0) */
    double load_s;          /**< folded: the time it took then, seconds */
} rf_exec_extra;

/** The result of rf_exec_run; free with rf_exec_result_free. */
typedef struct rf_exec_result {
    uint32_t n_layers;     /**< = graph->n_layers */
    rf_exec_layer *layers; /**< indexed like graph->layers */
    size_t n_extra;
    rf_exec_extra *extra;
    double wall_median_s, wall_min_s; /**< whole forward pass, seconds (layers + extras +
                                           dispatch between them) */
    unsigned runs, warmup, threads;   /**< timed passes, warm-up passes, threads used */
    uint64_t peak_bytes;           /**< executor tensors (weights, inputs, live activations at their
                                        peak) plus the largest oneDNN scratchpad, bytes */
    char inputs_note[RF_TEXT_MAX]; /**< what data-dependent ops were given */
    double busy_other; /**< share of the machine's CPU time other processes used during the timed
                            passes, 0..1; -1 when unknown (no /proc/stat, or a clock injected) */
    uint32_t n_folded; /**< layers folded (rf_exec_layer.folded) */
    size_t n_extra_folded; /**< extra layers (reorders) folded */
    double load_s;         /**< time the folded layers and reorders took, once, seconds */
    rf_allocator alloc_;   /**< private */
} rf_exec_result;

/** Run graph `g` (after rf_model_load / rf_graph_infer_shapes) forward `warmup + repeat` times
 *  on synthetic float32 inputs and weights, timing each layer. Layers the executor cannot run
 *  (unknown op, unknown shape, unsupported attribute) are `measured = 0` with the reason; their
 *  outputs still exist with the right shape so later layers run. Tensors are placed in one
 *  arena planned from their lifetimes (a tensor's space is reused after its last consumer).
 *  Thread counts of OpenMP and OpenBLAS are set for the call and restored after.
 *  *out owned by the caller. RF_NOMEM; RF_RANGE when the tensors need more memory than the
 *  machine has; RF_INTERNAL when oneDNN fails at run time. Not thread-safe (one call at a time
 *  per process: it sets the process's OpenMP/OpenBLAS thread counts). */
RF_API rf_status rf_exec_run(rf_ctx *ctx, const rf_graph *g, const rf_exec_opts *o,
                             rf_exec_result **out);

/** Release a result. Accepts NULL. */
RF_API void rf_exec_result_free(rf_exec_result *r);

#ifdef __cplusplus
}
#endif
#endif
