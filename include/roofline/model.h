/* roofline/model.h — the one loader from a model file to an rf_graph (rf_model_load,
 * rf_model_load_mem: the format detected once from the bytes, one table of readers; ONNX through
 * onnx.h, GGUF, SafeTensors and APR through the transformer builder of llm.h), the profile of a
 * model on a roof (rf_profile_model), and the embedded demo model. src/model; docs/design.md
 * "Loader". Readers never copy weights and never open external weight files. */
#ifndef ROOFLINE_MODEL_H
#define ROOFLINE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "cost.h"
#include "graph.h"
#include "llm.h"
#include "shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/** File types rf_model_load knows. */
typedef enum rf_model_format {
    RF_MODEL_AUTO, /**< detect from the content (then the extension) */
    RF_MODEL_ONNX,
    RF_MODEL_GGUF,
    RF_MODEL_SAFETENSORS,
    RF_MODEL_APR /**< aprender / realizar .apr (apr.h), by its magic bytes */
} rf_model_format;

/** Largest rf_model_opts batch and seq (2^30, as the CLI's --batch and --seq); more is RF_RANGE. */
#define RF_MODEL_MAX_BATCH ((uint64_t)1 << 30)

/** Options of rf_model_load. Zero-initialised means: detect the format, shapes from the file. */
typedef struct rf_model_opts {
    rf_model_format format;
    const rf_shape_binding *bindings; /**< --input / --dim, applied in order */
    size_t n_bindings;
    uint64_t batch;    /**< > 0: axis 0 of every graph input (not a weight) is set to it (at most
                            RF_MODEL_MAX_BATCH) */
    uint64_t seq;      /**< > 0: axis 1 of every rank-2/3 graph input (tokens, [B, S, E]) */
    int granular;      /**< transformer models: every block's layers listed on their own instead of
                            one repeated block (rf_llm_opts.granular) */
    const char *trips; /**< ONNX Loop / Scan trip counts the file does not give: "NODE=N[,...]"
                            (--trips); NULL: none */
} rf_model_opts;

/** Detect a model file's format from its first bytes and its name. RF_MODEL_AUTO when unknown. */
RF_API rf_model_format rf_model_detect(const void *head, size_t n, const char *path);

/** Load a model file into a graph and infer its shapes with `opts` (may be NULL). Errors name
 *  the path. RF_UNSUPPORTED for a format not known (the message lists the known ones). */
RF_API rf_status rf_model_load(rf_ctx *ctx, const char *path, const rf_model_opts *opts,
                               rf_graph **out);

/** The same for a model already in memory (e.g. the embedded demo); `name` for messages. */
RF_API rf_status rf_model_load_mem(rf_ctx *ctx, const void *data, size_t size, const char *name,
                                   const rf_model_opts *opts, rf_graph **out);

/** The built-in demo model (ResNet-18, torchvision architecture, batch 1, 3x224x224, weights
 *  external and absent): the bytes of an ONNX file embedded in the library. Static. */
RF_API const void *rf_demo_model(size_t *size);

/** A model profiled on a roof: its graph, costs and one result row per layer. */
typedef struct rf_profile {
    rf_graph *graph;             /**< owned */
    rf_cost *cost;               /**< owned */
    rf_result *result;           /**< one row per layer with a cost (or undefined); owned */
    uint32_t skipped;            /**< cost-free metadata layers left out of the rows */
    struct rf_exec_result *exec; /**< after rf_profile_measure: the executor's timings; owned */
    char source[RF_TEXT_MAX];    /**< the path given ("demo" for the built-in one): bad-input
                                      errors of the calls on this profile start with it */
    rf_allocator alloc_;         /**< private */
} rf_profile;

/** Load `path` (NULL: the built-in demo) with `mo`, cost it and evaluate every layer on ceilings
 *  `compute` / `bandwidth` of `m`. The result's title names the file, its format and opset, and
 *  the input shapes. *out: rf_profile_free. */
RF_API rf_status rf_profile_model(rf_ctx *ctx, const char *path, const rf_model_opts *mo,
                                  const rf_machine *m, size_t compute, size_t bandwidth,
                                  rf_profile **out);

/** Run the profiled model forward on this CPU (rf_exec_run with `eo`, may be NULL: defaults) and
 *  rebuild its rows on ceilings `compute` / `bandwidth` of `m` with every layer's measured time
 *  (median, min, max over the timed passes), the oneDNN reorders the executor added as rows of
 *  their own, and the whole pass's wall time. Layers the executor could not run keep their
 *  estimate only; p->exec says why. */
struct rf_exec_opts;
RF_API rf_status rf_profile_measure(rf_ctx *ctx, rf_profile *p, const rf_machine *m, size_t compute,
                                    size_t bandwidth, const struct rf_exec_opts *eo);

/** Run the analysed model on this CPU (rf_exec_llm_run: one prefill chunk of the result's prompt,
 *  decode steps at its context) and set the measured rates on `r`. `eo` may be NULL. (Declared
 *  here, beside rf_profile_measure, not in llm.h: it runs the executor, which sits above llm.) */
RF_API rf_status rf_llm_measure(rf_ctx *ctx, rf_llm_result *r, const rf_llm_model *m,
                                const struct rf_exec_opts *eo);

/** Release. Accepts NULL. */
RF_API void rf_profile_free(rf_profile *p);

/** 1 when more than a tenth of the profile's listed layers have an undefined cost: its totals
 *  are then a lower bound (`roofline profile` says so and exits 2 unless --allow-undefined). */
RF_API int rf_profile_lower_bound(const rf_profile *p);

/** RF_OK, or RF_FORMAT with one line starting with `name` when rf_profile_lower_bound holds. */
RF_API rf_status rf_profile_check_defined(rf_ctx *ctx, const rf_profile *p, const char *name);

/** How much of a profile rf_profile_measure ran (rf_profile_measured_coverage). */
typedef struct rf_profile_coverage {
    uint32_t layers;  /**< layers listed (cost-free metadata left out) */
    uint32_t ran;     /**< of them, timed by the executor */
    double flops;     /**< FLOP of the listed layers */
    double ran_flops; /**< FLOP of the timed ones */
    uint32_t first;   /**< index of the first listed layer not run, UINT32_MAX when all ran */
    uint32_t folded;  /**< of the ones that ran, folded: constants computed once at load, not
                           timed in the pass (rf_exec_layer.folded) */
} rf_profile_coverage;

/** Fill *out from a measured profile (all 0 when `p` has not been measured). A pass is whole when
 *  ran == layers; a partial one has no whole-pass wall time (rf_profile_measure leaves it unset).
 */
RF_API void rf_profile_measured_coverage(const rf_profile *p, rf_profile_coverage *out);

/** RF_OK, or RF_FORMAT with one line starting with `name` when `p` was measured and some listed
 *  layer did not run: "N of M layers, P% of the FLOPs measured", the first layer not run and why
 *  (`roofline profile --measure` exits 2 then, unless --allow-unmeasured). */
RF_API rf_status rf_profile_check_measured(rf_ctx *ctx, const rf_profile *p, const char *name);

/** The layout of a public struct, for bindings that declare it by hand (python/roofline checks
 *  its ctypes copies with it): with `field` NULL, sizeof(type) ("rf_buf"); else the offset of
 *  that field. 1 with *out set, 0 when the library does not describe that type or field. */
RF_API int rf_abi_layout(const char *type, const char *field, size_t *out);

#ifdef __cplusplus
}
#endif
#endif
