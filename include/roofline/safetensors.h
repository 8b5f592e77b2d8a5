/* roofline/safetensors.h — reader of SafeTensors checkpoints (Hugging Face safetensors format):
 * the u64 header length, the JSON header (dtypes, shapes, data_offsets validated to tile the data
 * buffer exactly, `__metadata__`), sharded checkpoints through `model.safetensors.index.json`, and
 * the Hugging Face `config.json` beside them (rf_hfconfig). Never reads or copies tensor data.
 * Spec: huggingface/safetensors README "Format", summarised in docs/formats.md section 5b. */
#ifndef ROOFLINE_SAFETENSORS_H
#define ROOFLINE_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RF_ST_MAX_HEADER 100000000u /**< bytes; the reference reader's MAX_HEADER_SIZE */

/** One tensor. Shape is outermost first (row-major, PyTorch order). */
typedef struct rf_st_tensor {
    const char *name; /**< NUL-terminated, owned by the rf_safetensors */
    rf_dtype dtype;   /**< element type (F32, BF16, F8_E4M3, I32, F4 ...) */
    uint32_t bits;    /**< bits per element (4, 6, 8, 16, 32, 64) */
    uint32_t rank;    /**< 0 .. RF_GRAPH_MAX_RANK */
    uint64_t shape[RF_GRAPH_MAX_RANK];
    uint64_t begin, end;  /**< data_offsets: bytes from the start of the data buffer */
    uint64_t file_offset; /**< byte offset of the data in its shard file */
    uint64_t n_elements;
    uint64_t n_bytes; /**< end - begin = n_elements * bits / 8 */
    uint32_t shard;   /**< 0-based index of the shard file holding it */
} rf_st_tensor;

/** One `__metadata__` entry (strings owned by the rf_safetensors). */
typedef struct rf_st_meta {
    const char *key;
    const char *value;
} rf_st_meta;

/** A parsed checkpoint (one file or all shards of an index). Read-only for the caller. */
typedef struct rf_safetensors {
    uint64_t n_tensors;
    const rf_st_tensor *tensors; /**< in header order, shard after shard */
    uint64_t n_meta;
    const rf_st_meta *meta; /**< `__metadata__` of the first (or only) file */
    uint64_t header_size;   /**< N of the first file, bytes */
    uint64_t data_start;    /**< 8 + N */
    uint64_t data_size;     /**< bytes of the data buffer (first file) */
    uint64_t file_size;     /**< bytes of the first file */
    uint64_t total_bytes;   /**< bytes of all shard files */
    uint64_t params;        /**< sum of n_elements */
    uint64_t weight_bytes;  /**< sum of n_bytes */
    uint32_t n_shards;
    struct rf__st_priv *priv; /**< internal */
    rf_allocator alloc_;      /**< private: what frees it */
} rf_safetensors;

/** Parse one SafeTensors image data[0..size) (borrowed only during the call: names and metadata
 *  are copied). Refusals (RF_FORMAT, RF_RANGE, RF_UNSUPPORTED for an unknown dtype or a rank
 *  above RF_GRAPH_MAX_RANK) name the item and set the byte offset. Free with rf_safetensors_free.
 */
RF_API rf_status rf_safetensors_parse(rf_ctx *ctx, const void *data, size_t size,
                                      rf_safetensors **out);

/** Open `path`: a .safetensors file, a `model.safetensors.index.json` (every shard of its
 *  weight_map is opened and validated; every tensor must be found exactly once, in the shard the
 *  map names), or a folder holding either. Errors start with the path. */
/** A sharded checkpoint from the bytes of its `model.safetensors.index.json` (a JSON object with a
 *  "weight_map" of tensor name -> shard file name); `ipath` is the index's path: the shards are
 *  read beside it and named in messages. *out: rf_safetensors_free. */
RF_API rf_status rf_safetensors_parse_index(rf_ctx *ctx, const void *data, size_t size,
                                            const char *ipath, rf_safetensors **out);

RF_API rf_status rf_safetensors_read_file(rf_ctx *ctx, const char *path, rf_safetensors **out);

/** Release. Accepts NULL. */
RF_API void rf_safetensors_free(rf_safetensors *st);

/** The tensor named `name`, or NULL. O(1) on average. */
RF_API const rf_st_tensor *rf_safetensors_find(const rf_safetensors *st, const char *name);

/** Value of a `__metadata__` key, or NULL. */
RF_API const char *rf_safetensors_meta(const rf_safetensors *st, const char *key);

/* ---- Hugging Face config.json ------------------------------------------------------------------
 */

/** Architecture hyper-parameters from a Hugging Face `config.json`, with the alias spellings
 *  (GPT-2's n_embd / n_layer / n_head / n_inner / n_positions) and the per-family defaults of
 *  transformers' config classes (e.g. gpt2: n_inner = 4 * n_embd; num_key_value_heads =
 *  num_attention_heads; head_dim = hidden_size / num_attention_heads). 0 = not given and no
 *  default. */
typedef struct rf_hfconfig {
    char model_type[64];  /**< "llama", "gpt2", ... ("" when absent) */
    char hidden_act[32];  /**< "silu", "gelu_new", ... */
    uint64_t hidden_size; /**< d_model */
    uint64_t num_hidden_layers;
    uint64_t num_attention_heads;
    uint64_t num_key_value_heads; /**< = num_attention_heads when absent (no GQA) */
    uint64_t head_dim;            /**< = hidden_size / num_attention_heads when absent */
    uint64_t intermediate_size;   /**< MLP width */
    uint64_t vocab_size;
    uint64_t max_position_embeddings;
    uint64_t num_experts; /**< num_local_experts / num_experts; 0 = dense */
    uint64_t num_experts_per_tok;
    int tie_word_embeddings; /**< 1 when the LM head reuses the token embedding */
    double rms_norm_eps;     /**< or layer_norm_epsilon; 0 when absent */
} rf_hfconfig;

/** Parse a config.json image. RF_FORMAT (not JSON, duplicate keys, a field of the wrong type, a
 *  negative or fractional count) naming the field. */
RF_API rf_status rf_hfconfig_parse(rf_ctx *ctx, const void *data, size_t size, rf_hfconfig *out);

/** Read `path` (a config.json). Errors start with the path. */
RF_API rf_status rf_hfconfig_read_file(rf_ctx *ctx, const char *path, rf_hfconfig *out);

/** Read the config.json beside a model: in `model_path` when it is a folder, else in the folder of
 *  the file. RF_IO naming the expected path when there is none. */
RF_API rf_status rf_hfconfig_read_beside(rf_ctx *ctx, const char *model_path, rf_hfconfig *out);

#ifdef __cplusplus
}
#endif
#endif
