/* roofline/advice.h — what would move it, and by how much: every suggestion is computed by
 * evaluating the same layers again, on the same roof (or another machine's), under one change —
 * lower precision, fusion, batching, pruning, distillation, other hardware — and ranked by the
 * share of the whole run it saves (Amdahl). Never a fixed sentence; docs/advice.md has the rules.
 */
#ifndef ROOFLINE_ADVICE_H
#define ROOFLINE_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "analysis.h"
#include "buf.h"
#include "core.h"
#include "llm.h"
#include "model.h"
#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The kinds of change. */
typedef enum rf_advice_kind {
    RF_ADVICE_PRECISION,    /**< weights (and activations) at a lower precision */
    RF_ADVICE_KV_PRECISION, /**< LLMs: the KV cache at 8 bits */
    RF_ADVICE_FUSION,       /**< elementwise, norm and activation layers folded into producers */
    RF_ADVICE_ATTENTION,    /**< attention fused: the score matrix never reaches memory */
    RF_ADVICE_BATCHING,     /**< memory-bound matrix layers re-using their weights over a batch */
    RF_ADVICE_PRUNING,      /**< structured sparsity on layers far below the ridge */
    RF_ADVICE_DISTILLATION, /**< a smaller layer in place of the heaviest ones */
    RF_ADVICE_HARDWARE,     /**< the same work on another machine (--what-if-hw) */
    RF_ADVICE_PARALLELISM,  /**< LLMs over devices: a lower TP degree or a faster link */
    RF_ADVICE_DISPATCH,     /**< a measured pass mostly spent between its layers */
    RF_ADVICE_CHECK         /**< not a change: a measured rate above its ceiling, and why */
} rf_advice_kind;

/** "precision", "kv-precision", "fusion", "attention", "batching", "pruning", "distillation",
 *  "hardware", "parallelism", "dispatch", "check". */
RF_API const char *rf_advice_kind_name(rf_advice_kind k);

/** One row of a batching table: the whole model at `batch` samples (sequences) per pass. */
typedef struct rf_advice_batch {
    uint64_t batch;
    double time_s;          /**< one pass of the batch */
    double per_sample_s;    /**< time_s / batch */
    double throughput;      /**< samples per second */
    uint64_t compute_bound; /**< matrix layers compute-bound at this batch */
} rf_advice_batch;

/** One suggestion. Times are seconds of the whole run (measured where the input was measured). */
typedef struct rf_advice {
    rf_advice_kind kind;
    char title[RF_TEXT_MAX];      /**< e.g. "weights and activations at INT8" */
    char assumption[RF_TEXT_MAX]; /**< the one-line assumption behind the figure */
    char ceiling[RF_TEXT_MAX];    /**< the compute ceiling (or machine) the change runs on */
    char **layers;                /**< names of the layers it touches; owned */
    size_t n_layers;
    double before_s, after_s; /**< the whole run, before and after */
    double saving_s;          /**< before_s - after_s (negative: slower, other hardware only) */
    double saving_share;      /**< saving_s / before_s */
    double speedup;           /**< before_s / after_s */
    const char *priority;     /**< "HIGH" (>= 20% saved), "MEDIUM" (>= 5%), "LOW" (>= 1%), "CHECK"
                                   (a check, no saving); static */
    rf_advice_batch *batches; /**< batching: the table; owned */
    size_t n_batches;
    uint64_t flips;          /**< hardware: layers whose bound differs there */
    uint64_t n_layers_total; /**< layers it touches in all: n_layers, or more when a long
                                  operations list kept only the RF_ADVICE_LAYERS_MAX slowest */
    int lossy;    /**< 1: it changes the model's numbers (lower precision but TF32, sparsity, a
                       student): ordered as if it saved a fifth less; accuracy is to check */
    int dominant; /**< 1: listed first, whatever the savings — a check, or the remedy of a term
                       (communication, dispatch) that takes half the run or more */
} rf_advice;

/** Most layer names one suggestion on an operations list keeps (the slowest; in input order). */
#define RF_ADVICE_LAYERS_MAX 1000

/** The suggestions, highest saving first. */
typedef struct rf_advice_list {
    rf_advice *items;
    size_t n;
    double total_s;      /**< the run the shares are of */
    int measured;        /**< 1: total_s and the savings start from measured times */
    char unit[16];       /**< "sample" or "token": what a batch is made of */
    rf_allocator alloc_; /**< private */
} rf_advice_list;

/** Options. Zero-initialised: at most 5 suggestions, no other machines. */
typedef struct rf_advice_opts {
    size_t max;                 /**< most suggestions kept (0: 5); other-hardware ones extra */
    const char *const *what_if; /**< datasheet names or machine files to evaluate the work on */
    size_t n_what_if;
    int machines_only; /**< 1: only the what-if machines, no changes */
    double wall_s;     /**< rf_advice_stream_*: the measured wall time of the whole pass (0: none);
                            its gap to the measured rows is dispatch overhead, which only the
                            dispatch change moves. rf_advise_profile takes the result's own */
    const rf_llm_dist *dist; /**< rf_advise_llm: the distributed view (NULL: one
                                  device); its communication joins the run */
} rf_advice_opts;

/** Advice for a profiled model on ceilings `compute` / `bandwidth` of `m` (the profile's), from
 *  its graph and costs (weights, activations, dtypes, producers) and, after rf_profile_measure,
 *  its measured times. *out: rf_advice_free. */
RF_API rf_status rf_advise_profile(rf_ctx *ctx, const rf_profile *p, const rf_machine *m,
                                   size_t compute, size_t bandwidth, const rf_advice_opts *o,
                                   rf_advice_list **out);

/** Advice for an LLM analysis: its decode step (what token rates hang on), with the KV cache
 *  and batching of sequences. */
RF_API rf_status rf_advise_llm(rf_ctx *ctx, const rf_llm_result *r, const rf_advice_opts *o,
                               rf_advice_list **out);

/** Advice for a plain operations list (`analyze`): FLOPs and bytes only, so precision assumes
 *  FP32 data and every byte scales, fusion and batching have nothing to go on. */
RF_API rf_status rf_advise_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m,
                                  size_t compute, size_t bandwidth, const rf_advice_opts *o,
                                  rf_advice_list **out);

/** Advice on an operations list as its rows go by, in memory that does not grow with the rows:
 *  every row is evaluated (rf_advise_result gives the same figures from a result's rows), a
 *  change lists the names of its RF_ADVICE_LAYERS_MAX slowest rows at most (n_layers_total counts
 *  them all). `m` is borrowed until rf_advice_stream_finish; `network`: the index of a network
 *  ceiling of `m`, or SIZE_MAX. The other machines of `o` are resolved here (errors here). */
typedef struct rf_advice_stream rf_advice_stream;
RF_API rf_status rf_advice_stream_new(rf_ctx *ctx, const rf_machine *m, size_t compute,
                                      size_t bandwidth, size_t network, const rf_advice_opts *o,
                                      rf_advice_stream **out);

/** Add one evaluated row (`name`: name_len bytes, not necessarily terminated; row->name is not
 *  read). The signature of rf_row_observer: pass it to rf_analysis_set_observer with the stream. */
RF_API rf_status rf_advice_stream_row(void *stream, const rf_row *row, const char *name,
                                      size_t name_len);

/** The advice over every row added; *out: rf_advice_free. The stream can then only be freed. */
RF_API rf_status rf_advice_stream_finish(rf_advice_stream *s, rf_advice_list **out);

/** Release. Accepts NULL. */
RF_API void rf_advice_stream_free(rf_advice_stream *s);

/** Release. Accepts NULL. */
RF_API void rf_advice_free(rf_advice_list *a);

/** The advice as text: one numbered paragraph per suggestion (priority, saving, speedup, layers,
 *  ceiling, assumption), batching with its table; the thresholds in the heading. */
RF_API rf_status rf_report_advice(rf_ctx *ctx, const rf_advice_list *a, const rf_report_opts *o,
                                  rf_writer *w);

/** The advice as a JSON array (the value of an "advice" key). */
RF_API rf_status rf_report_advice_json(rf_ctx *ctx, const rf_advice_list *a, rf_writer *w);

/** A JSON object `doc` (as rf_report_json and rf_report_llm_json write it) with an "advice" key
 *  added at its end. */
RF_API rf_status rf_report_json_add_advice(rf_ctx *ctx, const char *doc, size_t len,
                                           const rf_advice_list *a, rf_writer *w);

#ifdef __cplusplus
}
#endif
#endif
