/* roofline/llm.h — transformer LLMs as layer graphs: the architecture read from a GGUF file
 * (general.architecture and its keys) or a SafeTensors checkpoint with its config.json
 * (model_type), the weights actually present deciding every dimension, GQA, tied embeddings and
 * quantization; graphs for the prefill of S tokens and the decode of one token against a KV cache
 * of L positions at batch B; token-rate ceilings. Conventions: docs/cost-model.md "LLM graphs".
 * Never prints; parsing is the readers' (gguf.h, safetensors.h). */
#ifndef ROOFLINE_LLM_H
#define ROOFLINE_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "core.h"
#include "ctx.h"
#include "analysis.h"
#include "cost.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Hyper-parameters of a model as found in its file (keys, config.json) and checked against its
 *  tensors. Counts are elements; 0 = not applicable. */
typedef struct rf_llm_hparams {
    char architecture[64]; /**< "llama", "qwen2", "gpt2", ... as the file names it */
    char name[128];        /**< general.name, or "" */
    char format[16];       /**< "gguf", "safetensors" or "apr" */
    int known;             /**< 1 when the architecture is one of the families built block by
                                block; 0: one matmul per 2-D weight (with a warning) */
    uint64_t n_embd, n_layer, n_head, n_head_kv, head_dim, n_ff, n_vocab, n_ctx;
    uint64_t n_expert, n_expert_used; /**< MoE: experts per block and routed per token */
    int tied_embeddings;    /**< 1: no output tensor, the LM head reads the token embedding */
    int uniform;            /**< 1: every block has the same tensor types and shapes */
    uint64_t params;        /**< elements of every tensor in the file */
    uint64_t weight_bytes;  /**< storage bytes of every tensor (padding excluded) */
    uint64_t active_params; /**< params a token touches: all but the unused experts' */
} rf_llm_hparams;

/** An opened model: hyper-parameters plus its weights sorted into roles. Opaque. */
typedef struct rf_llm_model rf_llm_model;

/** Open `path`: a GGUF file (split files too) or a SafeTensors file / index / folder with the
 *  config.json beside it, or an APR file (apr.h: hyper-parameters from its metadata). Errors name
 * the path (RF_IO, RF_FORMAT; RF_UNSUPPORTED for another format). An unknown architecture (or a
 * SafeTensors file without its config.json) is not an error: it is logged as a warning, `known`
 * is 0, and rf_llm_weights_report describes the weights. *out owned by the caller (rf_llm_free). */
RF_API rf_status rf_llm_read_file(rf_ctx *ctx, const char *path, rf_llm_model **out);

/** The same from the bytes of the file (`name`: its path, for messages and for the files read
 *  beside it: config.json, split GGUF files, SafeTensors shards of an index). The bytes are only
 *  borrowed for the call. */
RF_API rf_status rf_llm_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                              rf_llm_model **out);

/** Release. Accepts NULL. */
RF_API void rf_llm_free(rf_llm_model *m);

/** The model's hyper-parameters (valid until rf_llm_free). */
RF_API const rf_llm_hparams *rf_llm_hparams_get(const rf_llm_model *m);

/** The two phases. */
typedef enum rf_llm_phase {
    RF_LLM_PREFILL, /**< S prompt tokens at once, attention over those S positions */
    RF_LLM_DECODE   /**< one new token per sequence, attention over L cached positions */
} rf_llm_phase;

/** Options of one graph. Zero-initialised means: prefill, batch 1, 128 tokens, context 128,
 *  F16 activations and KV cache, weight types from the file, full attention matmuls. */
typedef struct rf_llm_opts {
    rf_llm_phase phase;
    uint64_t batch;    /**< sequences B (0 = 1) */
    uint64_t prompt;   /**< prefill: tokens S per sequence (0 = 128) */
    uint64_t context;  /**< decode: KV positions L attended to, the new token included (0 = 128) */
    uint32_t act_bits; /**< activations: 32, 16, 8 or 4 bits (0 = 16) */
    uint32_t kv_bits;  /**< KV cache: 32, 16, 8 or 4 bits (0 = 16) */
    rf_dtype weights;  /**< what-if: every matrix weight stored as this type (RF_DTYPE_UNKNOWN =
                            the file's types); vectors keep theirs */
    int causal_half;   /**< prefill: count half the attention matmuls (the causal triangle);
                            0 = the full S x S matmuls, as dense kernels compute them */
    int granular;      /**< 1: every block's layers listed on their own ("blk.0", "blk.1", ...)
                            even when all blocks are identical; 0: identical blocks are one
                            block "blk.*" with repeat = n_layer (`apr profile --granular`) */
    int unfused_attention; /**< 1: the score matrix (Q.K^T, softmax) is written to memory and
                                read back, as separate matmul and softmax kernels do; 0 (the
                                default): fused, as FlashAttention-style kernels (vLLM,
                                TensorRT-LLM, PyTorch's scaled_dot_product_attention, llama.cpp
                                --flash-attn) keep it on chip: no score bytes */
} rf_llm_opts;

/** Build the graph of one phase: embedding gather of B x S rows, per block norms, q/k/v/o (or
 *  fused qkv) projections, RoPE, the KV-cache store (kv_write), Q.K^T and A.V over the cache
 *  (kv_read; GQA from the K/V weights' widths), softmax, residual adds, the MLP (gated, fused
 *  gate_up, plain, or MoE with the experts a batch touches), the final norm and the LM head (all
 *  positions' logits). Identical blocks become one block of layers with repeat = n_layer;
 *  otherwise one block per layer index. Weight tensors of all blocks are in the graph, so
 *  g->params and g->weight_bytes are the file's. *out owned by the caller (rf_graph_free). */
RF_API rf_status rf_llm_build(rf_ctx *ctx, const rf_llm_model *m, const rf_llm_opts *o,
                              rf_graph **out);

/** rf_graph_cost of a graph from rf_llm_build, with the options' conventions applied: the score
 *  matrix's bytes left out under fused attention (the default); under causal_half in prefill,
 *  half of the attention matmuls' FLOPs, of the softmax's and of the score bytes that remain.
 *  *out: rf_cost_free. */
RF_API rf_status rf_llm_cost(rf_ctx *ctx, const rf_graph *g, const rf_llm_opts *o, rf_cost **out);

/** 1 when layer `l` of a graph from rf_llm_build belongs to the repeated decoder block. */
RF_API int rf_llm_layer_in_block(const rf_layer *l);

/** Token-rate ceilings of a model on a roof. Times in s, rates in tokens/s, bytes, FLOP. */
typedef struct rf_llm_ceilings {
    /* the simple figures (aprender's ceiling module) */
    double params;               /**< all parameters */
    double bits_per_weight;      /**< 8 x model_bytes / params */
    double model_bytes;          /**< weight bytes (the file's, or under the what-if type) */
    double bw_tokens_per_s;      /**< bandwidth / model_bytes */
    double compute_tokens_per_s; /**< peak / (2 x params) */
    double simple_tokens_per_s;  /**< the lower of the two */
    rf_bound simple_bound;       /**< RF_BOUND_MEMORY when the bandwidth ceiling is lower */
    /* refined, from the per-layer sums (each layer at max(flops/peak, bytes/bw)) */
    double decode_step_s;        /**< one decode step of the whole batch at the context */
    double decode_tokens_per_s;  /**< batch / decode_step_s */
    double prefill_s;            /**< time to first token: the prefill of the whole batch */
    double prefill_tokens_per_s; /**< batch x prompt / prefill_s */
    double decode_flops_per_token, prefill_flops; /**< FLOP (all ops) */
    uint64_t batch_compute_bound; /**< smallest batch at which decode's totals reach the ridge;
                                       0 when no batch does */
    double kv_bytes_per_token;    /**< K and V of one position, all blocks, at kv_bits */
    double kv_bytes_context;      /**< for the whole context, one sequence */
} rf_llm_ceilings;

/** Ceilings on `roof` from the costs of the two phases (rf_llm_cost of graphs built with the
 *  options `po` and `dopt`); `g` is either graph (its weight bytes are the model bytes, under the
 *  what-if type if one was given). The batch at which decode turns compute-bound comes from the
 *  decode totals, whose FLOPs and non-weight bytes grow linearly with the batch.
 *  RF_RANGE for a roof that is not finite and positive. */
RF_API rf_status rf_llm_ceilings_compute(rf_ctx *ctx, const rf_llm_model *m, const rf_graph *g,
                                         const rf_cost *prefill, const rf_llm_opts *po,
                                         const rf_cost *decode, const rf_llm_opts *dopt,
                                         const rf_roof *roof, rf_llm_ceilings *out);

/** One phase of an LLM analysis: its graph, costs and per-layer evaluations on the roof. */
typedef struct rf_llm_phase_result {
    const char *name;   /**< "prefill" or "decode" (static) */
    char title[256];    /**< heading of its table, e.g. "prefill: 128 tokens x batch 1" */
    rf_llm_opts opts;   /**< the options it was built with (defaults filled in) */
    uint64_t batch;     /**< sequences */
    uint64_t tokens;    /**< new tokens per sequence: the prompt (prefill) or 1 (decode) */
    uint64_t positions; /**< positions attended: the prompt (prefill) or the context (decode) */
    rf_graph *graph;    /**< owned */
    rf_cost *cost;      /**< owned */
    rf_eval *evals;     /**< one per layer; zeroed for cost-free or unknown layers; owned */
    double time_s;      /**< sum of the layers' estimated times */
    double ridge_ai;    /**< FLOP/byte of the roof used */
} rf_llm_phase_result;

/** Measured token rates of an analysed model, from this CPU (rf_llm_measure) or given by the user
 *  (e.g. llama.cpp's benchmark), set against the ceilings. 0 / NaN: not given. */
typedef struct rf_llm_measured {
    int have_decode, have_prefill;
    double decode_tokens_per_s;  /**< measured decode rate of the whole batch */
    double ttft_s;               /**< measured time to first token (the prefill of the batch) */
    double prefill_tokens_per_s; /**< batch x prompt / ttft_s */
    double decode_of_bandwidth;  /**< weight_bytes_per_s over the roof's bandwidth */
    double decode_of_compute;    /**< decode tokens/s over the compute ceiling (2 x params) */
    double decode_of_refined;    /**< over the refined per-layer decode ceiling */
    double weight_bytes_per_s;   /**< step_weight_bytes x decode steps per second */
    double step_weight_bytes;    /**< bytes of weights one decode step reads (the decode phase's
                                      weight_bytes: token_embd's gathered rows, not the table) */
    double ttft_of_refined;      /**< the refined time to first token over the measured one */
    char source[1024];           /**< where the figures come from and what was simplified */
    double busy_other; /**< other processes' share of the CPU while it was measured here, 0..1;
                            -1 unknown or not measured here. Over RF_BUSY_OTHERS the rates may be
                            lower than a quiet machine gives (the source says so) */
    /* The roof of a measured decode (rf_llm_measure, rf_llm_result_set_decode_roof; 0 / "" when
     * not known): what the dot kernels pull through this step's weights when a step is nothing
     * but its weight products, timed between the decode steps. What binds it: the lower of the
     * DRAM ceiling and the main kernel's rate from L2 on the decode's threads (unless the
     * products alone reach RF_LLM_MEMORY_BOUND of DRAM: then memory). Every rate over
     * step_weight_bytes. */
    double roof_bytes_per_s;  /**< step_weight_bytes / products_s */
    double products_s;        /**< a step's weight products alone: the step x the median over the
                                   steps of (products alone / the step just before them), a ratio
                                   of two passes a moment apart that a neighbour's burst moves
                                   less than either; the median of the passes without pairs */
    double products_median_s; /**< the median of the products-only passes */
    double products_min_s, products_max_s; /**< their spread */
    double step_s;                         /**< the decode step (batch / decode_tokens_per_s) */
    double products_in_step_s;             /**< the products' time inside the measured step */
    double other_s;                        /**< the rest of the step: attention, norms, RoPE, ... */
    double bandwidth_bytes_per_s;          /**< the DRAM ceiling (the roof's bandwidth) */
    double roof_of_bandwidth;              /**< roof_bytes_per_s / bandwidth_bytes_per_s */
    int bound_by_kernel;                   /**< 1: the dot kernel binds; 0: memory does */
    int bound_by_both;                /**< 1: the kernel's rate from L2 and the bandwidth are within
                                           RF_LLM_BOTH_BOUND of each other: both bind */
    double decode_of_roof;            /**< weight_bytes_per_s / roof_bytes_per_s */
    char kernel_type[16];             /**< the weight type whose kernel reads the most, "Q4_K" */
    unsigned kernel_threads;          /**< threads of the decode and of its roof */
    double kernel_bytes_per_s;        /**< that kernel's rate from L2 on as many threads, measured
                                           with the decode (0: unknown) */
    char kernel_ceiling[RF_NAME_MAX]; /**< its name, "q4_k.gemv.avx512", or "" */
    double roof_of_kernel;            /**< roof_bytes_per_s / kernel_bytes_per_s (0: unknown) */
    double serial_bytes_per_s; /**< the kernel's work and the DRAM stream one after the other:
                                    1 / (1 / kernel + 1 / bandwidth) (0: either unknown) */
    double overlap;            /**< where the roof lies from that (0) to min(kernel, bandwidth),
                                    both overlapped (1); 0 when either is unknown */
} rf_llm_measured;

/** The whole analysis of `roofline llm`: both phases, the ceilings, and the rows the charts draw.
 */
typedef struct rf_llm_result {
    char *model;                  /**< the path or name given; owned */
    rf_llm_hparams hparams;       /**< copy of the model's */
    rf_machine *machine;          /**< copy of the machine; owned */
    size_t compute, bandwidth;    /**< the roof's ceilings in `machine` */
    rf_roof roof;                 /**< their figures */
    rf_llm_phase_result phase[2]; /**< [0] prefill, [1] decode */
    rf_llm_ceilings ceilings;
    rf_result *prefill_rows;     /**< every costed layer of prefill as a result row; owned */
    rf_result *decode_rows;      /**< the same for decode; owned */
    rf_result *groups;           /**< per phase: all layers, weight matmuls, attention matmuls,
                                      other ops (the ASCII chart's points); owned */
    rf_llm_measured measured;    /**< rf_llm_result_set_measured, rf_llm_measure */
    char roof_note[RF_TEXT_MAX]; /**< why this compute ceiling (rf_llm_pick_compute's sentence,
                                      set by the caller), or "" */
    rf_allocator alloc_;         /**< private */
} rf_llm_result;

/** Distributed inference (`llm --tp N --pp M --interconnect`): how the analysed model runs over
 *  tp x pp devices joined by one link. */
typedef struct rf_llm_dist_opts {
    uint32_t tp;             /**< tensor-parallel degree (>= 1) */
    uint32_t pp;             /**< pipeline stages (>= 1, at most n_layer) */
    double link_bytes_per_s; /**< the link: bytes per second per direction and device, > 0 */
    double link_latency_s;   /**< one message's latency (>= 0): alpha of the ring's alpha-beta */
    char link[RF_NAME_MAX];  /**< its name ("nvlink4", "network" for a bare bandwidth) */
} rf_llm_dist_opts;

/** One phase over the devices. Times per pass (one prefill chunk, one decode step). */
typedef struct rf_llm_dist_phase {
    double device_s; /**< one device's share of the layers on its roof (TP-split layers at 1/tp
                          of their FLOPs, weight and split activation bytes; norms, residual
                          adds and the embedding gather replicated), all stages one after
                          another */
    double allreduce_bytes; /**< one TP allreduce's message: batch x tokens x n_embd x act bytes */
    uint64_t allreduces;    /**< per pass: 2 per block (after the attention output projection and
                                 after the MLP down projection) when tp > 1 */
    double allreduce_s;  /**< one allreduce, ring: 2(tp-1)/tp x bytes / link + 2(tp-1) x latency */
    double handoff_s;    /**< one pipeline hand-off: the message / link + latency */
    double comm_s;       /**< allreduces x allreduce_s + (pp - 1) x handoff_s */
    double comm_bytes;   /**< bytes each device sends per pass */
    double pass_s;       /**< device_s + comm_s (no overlap: both are on the critical path) */
    double tokens_per_s; /**< batch x tokens / pass_s: one pass at a time */
    double pipelined_tokens_per_s; /**< with pp > 1 and pp passes in flight: batch x tokens / the
                                        slowest stage's (device_s + comm_s) / pp */
    double comm_share;             /**< comm_s / pass_s */
    int comm_bound;                /**< comm_s > device_s */
} rf_llm_dist_phase;

/** A degree of tensor parallelism as the scan shows it (decode at the analysed batch). */
typedef struct rf_llm_dist_scan {
    uint32_t tp;
    double decode_tokens_per_s, comm_share, prefill_s;
} rf_llm_dist_scan;

/** The whole distributed view. */
typedef struct rf_llm_dist {
    rf_llm_dist_opts o;
    rf_llm_dist_phase phase[2];       /**< [0] prefill, [1] decode */
    double weight_bytes_per_device;   /**< the model's weight bytes / (tp x pp) */
    uint64_t decode_batch_comm_bound; /**< smallest decode batch (powers of 2 up to 65536) at which
                                          communication takes longer than the device's layers;
                                          0 when none does */
    uint32_t tp_comm_bound;   /**< smallest TP degree of the scan whose decode is communication-
                                   bound at the analysed batch; 0 when none */
    rf_llm_dist_scan scan[8]; /**< tp = 1, 2, 4, ... up to max(8, tp) */
    size_t n_scan;
} rf_llm_dist;

/** The distributed view of an analysis `r` (rf_llm_analyze) under `o`. RF_USAGE for a degree of
 *  0, a pipeline longer than the blocks, or a link that is not finite and positive. */
RF_API rf_status rf_llm_distribute(rf_ctx *ctx, const rf_llm_result *r, const rf_llm_dist_opts *o,
                                   rf_llm_dist *out);

/** Analyse `m` on ceilings `compute` / `bandwidth` of `mach` for the prefill options `po` and the
 *  decode options `dopt` (their `phase` fields are set by the call): builds and costs both
 *  graphs, evaluates every layer, computes the ceilings and the result rows. `model_name` (the
 *  path) is kept for the reports. *out owned by the caller: rf_llm_result_free. */
RF_API rf_status rf_llm_analyze(rf_ctx *ctx, const rf_llm_model *m, const char *model_name,
                                const rf_machine *mach, size_t compute, size_t bandwidth,
                                const rf_llm_opts *po, const rf_llm_opts *dopt,
                                rf_llm_result **out);

/** Release. Accepts NULL. */
RF_API void rf_llm_result_free(rf_llm_result *r);

/** The weights of a model whose architecture roofline does not build (a SafeTensors file without
 *  its config.json, a GGUF of another family): aprender's simple figures. */
typedef struct rf_llm_weight_group {
    char *prefix;     /**< tensor names with their numeric parts as '*' ("blk.*.attn_q.weight") */
    uint64_t tensors; /**< how many */
    uint64_t params;
    uint64_t bytes;
    rf_dtype dtype; /**< their type (RF_DTYPE_UNKNOWN when mixed) */
} rf_llm_weight_group;

typedef struct rf_llm_weights {
    uint64_t params, bytes, tensors;
    double bits_per_weight; /**< 8 x bytes / params */
    uint64_t bytes_by_dtype[RF_DTYPE_COUNT];
    uint64_t params_by_dtype[RF_DTYPE_COUNT];
    rf_llm_weight_group *groups; /**< in the order first seen; owned */
    size_t n_groups;
    char architecture[64], format[16];
    rf_allocator alloc_; /**< private */
} rf_llm_weights;

/** The weights report of `m` (any architecture). *out: rf_llm_weights_free. */
RF_API rf_status rf_llm_weights_report(rf_ctx *ctx, const rf_llm_model *m, rf_llm_weights **out);
RF_API void rf_llm_weights_free(rf_llm_weights *w);

/** The compute ceiling of `mach` an LLM's matrix math runs on when the user names none (LLM-Viewer
 *  and llm-analysis pick it by precision, not the machine's FP32 default): F32 weights -> fp32;
 *  otherwise the activations' width (o->act_bits, 16 by default; weights are dequantised to it,
 *  W4A16, W8A16) -> the best bf16/fp16 ceiling (bf16 first for BF16 weights), 8 -> int8,
 *  32 -> fp32. Without such a ceiling the machine's default. `why` gets one sentence. */
RF_API rf_status rf_llm_pick_compute(rf_ctx *ctx, const rf_llm_model *m, const rf_machine *mach,
                                     const rf_llm_opts *o, size_t *compute, char *why, size_t cap);

/** Set measured rates on an analysis: `decode_tokens_per_s` (0: not measured) and `ttft_s` (time
 *  to first token of the batch's prompt; 0: not measured), and compute their shares of each
 *  ceiling. `source` says where they come from. RF_RANGE for a negative or non-finite figure. */
RF_API rf_status rf_llm_result_set_measured(rf_ctx *ctx, rf_llm_result *r,
                                            double decode_tokens_per_s, double ttft_s,
                                            const char *source);

/** A decode whose weight products alone read at least this share of the DRAM ceiling is bound by
 *  memory, whatever its kernel's rate from L2. */
#define RF_LLM_MEMORY_BOUND 0.9
/** Below that, a kernel's rate from L2 and the DRAM ceiling within this factor of each other both
 *  bind (the lower one named first). */
#define RF_LLM_BOTH_BOUND 1.15

/** What a measured decode's roof was measured from (rf_llm_result_set_decode_roof). */
typedef struct rf_llm_decode_roof_in {
    double products_s; /**< a step's weight products alone, median (> 0) */
    double products_min_s, products_max_s;
    double products_in_step_s; /**< their time inside the measured step */
    double paired_share;       /**< median of (products alone / step) over the steps, or 0 */
    const char *kernel_type;   /**< "Q4_K" */
    unsigned threads;
    double kernel_bytes_per_s;  /**< that kernel's rate from L2 on these threads, 0: unknown */
    const char *kernel_ceiling; /**< its name ("q4_k.gemv.avx512"), or NULL */
} rf_llm_decode_roof_in;

/** Set the roof of the measured decode (after rf_llm_result_set_measured with a decode rate):
 *  roof = step_weight_bytes / (the step x paired_share) (without paired_share: / products_s); bound
 * by memory when that is at least RF_LLM_MEMORY_BOUND of the roof's bandwidth, else by the lower of
 * the bandwidth and the kernel's rate from L2 (by the kernel when that rate is unknown); the
 * decode's share of the roof and the step split into its products and the rest. RF_RANGE for a
 * figure that is not finite and positive; RF_USAGE without a measured decode. */
RF_API rf_status rf_llm_result_set_decode_roof(rf_ctx *ctx, rf_llm_result *r,
                                               const rf_llm_decode_roof_in *in);

#ifdef __cplusplus
}
#endif
#endif
