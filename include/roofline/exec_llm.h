/* roofline/exec_llm.h — a measured LLM pass on this CPU: one prefill chunk of S tokens and decode
 * steps at context L (KV cache filled) through the transformer blocks of an opened GGUF model, the
 * matrix products at the file's weight types read in place from the mapped file (quantized kernels
 * dequantising in registers; a type without a kernel runs as the nearest one, stated), attention
 * over the KV cache, norms, RoPE, softmax and SiLU/GELU in plain C. Synthetic activations (values
 * never change a dense kernel's time). Never prints; times through exec.h's clock. */
#ifndef ROOFLINE_EXEC_LLM_H
#define ROOFLINE_EXEC_LLM_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "exec.h"
#include "graph.h"
#include "llm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Time of one kind of layer, summed over the blocks, in the pass whose total is the median.
 *  Names are those of rf_llm_build's layers without the block prefix ("attn_q", "attn_scores",
 *  "ffn_down", "output", ...); "token_embd" includes position_embd, embd_add and embd_scale, and
 *  a fused "attn_qkv" or "ffn_gate_up" includes its split. */
typedef struct rf_exec_llm_kind {
    char name[32];
    double prefill_s;       /**< s in one prefill chunk; 0 when the kind does not run there */
    double decode_s;        /**< s in one decode step */
    uint64_t prefill_calls; /**< times it ran in one prefill pass (n_layer for a block layer) */
    uint64_t decode_calls;  /**< times it ran in one decode step */
} rf_exec_llm_kind;

/** A weight whose type has no kernel and ran as another (synthetic data of that type, the same
 *  shape): the measurement is of the substitute. */
typedef struct rf_exec_llm_subst {
    char weight[96]; /**< tensor name, e.g. "blk.0.attn_v.weight" (first of its kind) */
    rf_dtype from, to;
    uint64_t count; /**< weights with this from/to pair */
} rf_exec_llm_subst;

/** What rf_exec_llm_run measured. Times in s (median of the timed passes), rates in tokens/s. */
typedef struct rf_exec_llm_result {
    uint64_t batch;   /**< sequences */
    uint64_t prompt;  /**< S: tokens of the prefill chunk, per sequence */
    uint64_t context; /**< L: positions a decode step attends to, the new token included */
    unsigned threads, warmup;
    unsigned prefill_repeat, repeat; /**< timed prefill passes; timed decode steps */
    char isa[16];                    /**< kernels' instruction set: "avx512", "avx2", "generic" */
    double prefill_s, prefill_min_s, prefill_max_s;
    double prefill_tokens_per_s;                 /**< batch x prompt / prefill_s */
    double decode_s, decode_min_s, decode_max_s; /**< one step of the whole batch */
    double decode_tokens_per_s;                  /**< batch / decode_s */
    double decode_weight_bytes; /**< bytes of weights one decode step reads (matrices, norms,
                                     the embedding rows it gathers) */
    double decode_bytes_per_s;  /**< decode_weight_bytes / decode_s */
    double decode_kv_bytes;     /**< KV-cache bytes one decode step reads (F32 cache) */
    double memory_bytes;        /**< executor memory: activations, KV cache, scratch */
    size_t n_kinds;
    rf_exec_llm_kind *kinds;
    size_t n_subst;
    rf_exec_llm_subst *subst;
    char notes[512];   /**< what was simplified, one sentence each (e.g. "KV cache held as F32") */
    double busy_other; /**< share of the machine's CPU time other processes used while it ran,
                            0..1; -1 when unknown (no /proc/stat, or a clock injected) */
    rf_dtype decode_kernel_dtype; /**< the weight type whose dot kernel read the most bytes of a
                                       decode step (after substitutions); RF_DTYPE_UNKNOWN: none */
    double decode_kernel_share;   /**< its share of the step's matrix bytes, 0..1 */
    /* Decode's roof, measured with it (issue 28): after each timed decode step, the same step's
     * weight products alone (the same kernels, packed forms and threads, in the same order,
     * nothing between them). */
    double decode_products_s; /**< median time of such a products-only pass */
    double decode_products_min_s, decode_products_max_s;
    double
        decode_products_share;        /**< median over the timed steps of (the products alone / the
                                           step just before them): the share of its roof a step ran at */
    double decode_products_in_step_s; /**< the products' time inside the median decode step (the
                                           rest: attention, norms, RoPE, activations, residuals) */
    rf_allocator alloc;               /**< internal: how the result was allocated */
} rf_exec_llm_result;

/** Run and time the model on this CPU. `prefill` and `decode` are the options of the two graphs
 *  (rf_llm_opts; NULL = defaults: batch 1, S = 128, L = 128); only batch, prompt and context are
 *  used (activations and the KV cache run as F32, weights at the file's types: the what-if type is
 *  ignored, see notes). `opts` may be NULL (every core, 2 warm-up passes, repeat chosen so the
 *  timed passes last about a second, at least 3). Needs a GGUF model whose data the model kept
 *  mapped (rf_llm_read_file) and an architecture built block by block (rf_llm_hparams.known)
 * without experts: RF_UNSUPPORTED otherwise, naming the reason. *out owned by the caller
 *  (rf_exec_llm_result_free). Not thread-safe with other calls on `ctx`. */
RF_API rf_status rf_exec_llm_run(rf_ctx *ctx, const rf_llm_model *model, const rf_llm_opts *prefill,
                                 const rf_llm_opts *decode, const rf_exec_opts *opts,
                                 rf_exec_llm_result **out);

/** The kernel ceiling of decode for weights of type `t` (issue 28): bytes of weights per second
 *  the library's own dot kernel for `t` (at the best instruction set of this CPU) consumes on
 *  `threads` threads at once (0: every core) from rows held in L2, measured now (each figure
 *  best of 3 runs of at least `min_time_s`; `dram` non-zero: the DRAM figures too, and the value
 *  is then the lower of the two: what the kernel keeps up on those threads while its rows stream
 *  from past the last-level cache, as decode's do). Filled as a bandwidth ceiling named like the
 *  probe's kernel ceilings ("q4_k.gemv.avx512", value in byte/s, RF_PROV_MEASURED); its note gives
 *  every figure (one core and all threads, from L2 and, with `dram`, from DRAM). Measured on a
 *  matrix of its own, not a decode's roof: rf_exec_llm_run measures that with the decode
 *  (decode_products_s); rf_llm_measure compares this call's rate from L2 (`dram` 0) with the DRAM
 *  ceiling to say which binds. RF_UNSUPPORTED
 * for a type without a kernel. Takes about 4 x min_time_s x 5 plus filling a matrix of up to 512
 * MiB.
 */
RF_API rf_status rf_exec_kernel_ceiling(rf_ctx *ctx, rf_dtype t, unsigned threads,
                                        double min_time_s, int dram, rf_ceiling *out);
/** rf_exec_kernel_ceiling for every weight type with a kernel, each added to `m`. */
RF_API rf_status rf_exec_kernel_ceilings(rf_ctx *ctx, rf_machine *m, unsigned threads,
                                         double min_time_s);
/** The name rf_exec_kernel_ceiling gives the ceiling of type `t` on this CPU ("q8_0.gemv.avx512"),
 *  or "" when `t` has no kernel. */
RF_API void rf_exec_kernel_ceiling_name(rf_dtype t, char *out, size_t cap);

/** Release. Accepts NULL. */
RF_API void rf_exec_llm_result_free(rf_exec_llm_result *r);

/** Name of the instruction set the LLM kernels use on this CPU ("avx512", "avx2", "generic"),
 *  after $RF_ISA. Static. */
RF_API const char *rf_exec_llm_isa(void);

#ifdef __cplusplus
}
#endif
#endif
