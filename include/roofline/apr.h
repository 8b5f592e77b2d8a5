/* roofline/apr.h — reader of APR model files, the native format of the Rust library aprender and
 * its inference engine realizar: v2 ("APR\0" version 2, and "APR2") from both writers, the older
 * "APR1" JSON-index layout and its LZ4 wrapper; APRN classical models and aprender-tsp files are
 * recognised and refused. Reads the header, the JSON metadata and the tensor index only: never
 * tensor data (the footer CRC32 of small files excepted). Spec: the project's
 * reference/apr-format.md (the layout as the Rust code writes it); checks of its section 11. */
#ifndef ROOFLINE_APR_H
#define ROOFLINE_APR_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RF_APR_MAX_METADATA                                                                        \
    ((uint64_t)64 << 20)                        /**< bytes of JSON metadata accepted (aprender     \
                                                     writes at most 16 MiB; vocabularies ~10) */
#define RF_APR_MAX_NAME 256                     /**< bytes of a tensor name (writer limit) */
#define RF_APR_MAX_DIMS 8                       /**< dimensions of a tensor (writer limit) */
#define RF_APR_MAX_INFLATED ((uint64_t)1 << 30) /**< bytes a compressed APR1 may declare */
#define RF_APR_CRC_MAX_FILE                                                                        \
    ((uint64_t)64 << 20) /**< footer CRC32 verified up to this file size                           \
                              (above it the data would have to be read) */

/** Layouts (reference section 1). */
typedef enum rf_apr_layout {
    RF_APR_V2,       /**< "APR\0" version 2 (or "APR2"): 64-byte header, binary index */
    RF_APR_APR1,     /**< "APR1": JSON metadata, JSON index, unaligned data, CRC32 trailer */
    RF_APR_APR1_LZ4, /**< "APR\0" + compression byte 1 around an LZ4 block holding an APR1 file */
    RF_APR_APR1_RAW  /**< "APR\0" + compression byte 0 around an APR1 file */
} rf_apr_layout;

/** What a tensor's bytes are, the dtype byte and the stored size told apart (reference section
 *  4: aprender and realizar give some bytes different meanings). X(NAME, "name"). */
#define RF_APR_DTYPE_LIST(X)                                                                       \
    X(F32, "F32")                                                                                  \
    X(F16, "F16")                                                                                  \
    X(BF16, "BF16")                                                                                \
    X(F64, "F64")                                                                                  \
    X(I32, "I32")                                                                                  \
    X(I64, "I64")                                                                                  \
    X(I8, "I8")                                                                                    \
    X(U8, "U8")                                                                                    \
    X(APR_Q4, "APR_Q4") /* aprender: per 32 values an f16 scale + 16 bytes of nibbles */           \
    X(APR_Q8, "APR_Q8") /* aprender: one f32 scale for the tensor + one byte per value */          \
    X(Q4_0, "Q4_0")                                                                                \
    X(Q4_1, "Q4_1")                                                                                \
    X(Q5_0, "Q5_0")                                                                                \
    X(Q5_1, "Q5_1")                                                                                \
    X(Q8_0, "Q8_0")                                                                                \
    X(Q4_K, "Q4_K")                                                                                \
    X(Q5_K, "Q5_K")                                                                                \
    X(Q6_K, "Q6_K")

typedef enum rf_apr_dtype {
#define RF__APR_DT_ENUM(n, s) RF_APR_##n,
    RF_APR_DTYPE_LIST(RF__APR_DT_ENUM)
#undef RF__APR_DT_ENUM
        RF_APR_DTYPE_COUNT
} rf_apr_dtype;

/** One tensor of the index. Shape is rows first ([out_features, in_features], PyTorch order). */
typedef struct rf_apr_tensor {
    const char *name;   /**< NUL-terminated, owned by the rf_apr */
    uint8_t dtype_byte; /**< as stored (v2); 0 for APR1 (its dtype is a string) */
    rf_apr_dtype type;  /**< the meaning the stored size selects */
    rf_dtype dtype;     /**< the graph's element type: the same, APR_Q4 as Q4_0 (same block
                             geometry), APR_Q8 as I8 (its 4-byte scale is in n_bytes) */
    uint32_t rank;      /**< 0 .. RF_APR_MAX_DIMS */
    uint64_t shape[RF_APR_MAX_DIMS];
    uint64_t offset;      /**< bytes from the start of the data section */
    uint64_t file_offset; /**< bytes from the start of the (decompressed) file */
    uint64_t n_elements;  /**< product of the shape */
    uint64_t n_bytes;     /**< stored size, bytes (padding excluded) */
} rf_apr_tensor;

/** Hyper-parameters from the metadata, with realizar's aliases resolved (hidden_size/hidden_dim,
 *  num_hidden_layers/num_layers, num_attention_heads/num_heads, num_key_value_heads/num_kv_heads,
 *  intermediate_size/intermediate_dim, architecture/model_type, the model.* duplicates, an
 *  entrenar `model_config` string) and checked against the tensors. 0 / "" = not given. */
typedef struct rf_apr_hparams {
    char architecture[64]; /**< lower-cased: "llama", "qwen2", ...; "" when absent or "auto" */
    char name[128];        /**< metadata "name", or "" */
    uint64_t hidden_size, num_layers, num_heads, num_kv_heads, head_dim, intermediate_size;
    uint64_t vocab_size, max_position_embeddings, num_experts, num_experts_per_tok;
    double rope_theta, rms_norm_eps; /**< 0 when absent */
    int tied_embeddings;             /**< metadata tied_embeddings: true */
    int transposed;                  /**< entrenar checkpoint: 2-D weights stored [in, out] */
} rf_apr_hparams;

/** A parsed APR file. Plain fields, read-only for the caller. */
typedef struct rf_apr {
    rf_apr_layout layout;
    uint32_t version_major, version_minor; /**< v2: header bytes 4 and 5; APR1: 1, 0 */
    uint32_t flags;                        /**< v2 header flags (reference section 5) */
    uint64_t n_tensors;
    const rf_apr_tensor *tensors;                                       /**< in index order */
    uint64_t metadata_offset, metadata_size, index_offset, data_offset; /**< bytes */
    uint64_t file_size;    /**< bytes of the file as given (compressed for the wrappers) */
    int has_footer;        /**< v2: a CRC32 follows the data; APR1: always 1 */
    int footer_checked;    /**< 1 when it was verified (files up to RF_APR_CRC_MAX_FILE) */
    uint64_t params;       /**< sum of n_elements */
    uint64_t weight_bytes; /**< sum of n_bytes */
    uint64_t bytes_by_type[RF_APR_DTYPE_COUNT]; /**< stored bytes per meaning */
    rf_apr_hparams hp;
    struct rf__apr_priv *priv; /**< internal */
    rf_allocator alloc_;       /**< private: what frees it */
} rf_apr;

/** Flags of rf_apr_parse. */
enum {
    RF_APR_LENIENT_CRC = 1u << 0 /**< a v2 header CRC mismatch is a warning (realizar's reading)
                                      instead of RF_FORMAT (aprender's) */
};

/** Parse an APR image data[0..size) (borrowed during the call only: names are copied). `name`
 *  (may be NULL) starts every error message. Refusals are one sentence naming the item and the
 *  byte offset: RF_FORMAT (layout, checksums, sizes, metadata), RF_RANGE (sizes beyond the limits
 *  above or overflowing 64 bits), RF_UNSUPPORTED (APRN classical models, aprender-tsp files,
 *  encrypted or column-major files, compressed tensors, zstd wrappers, JSON tensor indexes).
 *  Warnings (unknown flag bits, unaligned or overlapping tensors) go to the context's log. *out
 *  is NULL on failure; free with rf_apr_free. */
RF_API rf_status rf_apr_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                              unsigned flags, rf_apr **out);

/** Map `path` and parse it; errors start with the path. */
RF_API rf_status rf_apr_read_file(rf_ctx *ctx, const char *path, unsigned flags, rf_apr **out);

/** Release. Accepts NULL. */
RF_API void rf_apr_free(rf_apr *a);

/** The tensor named `name`, or NULL. O(1) on average. */
RF_API const rf_apr_tensor *rf_apr_find(const rf_apr *a, const char *name);

/** "APR_Q8", "Q4_K", ...; "?" out of range. Static. */
RF_API const char *rf_apr_dtype_name(rf_apr_dtype t);

/** "v2", "APR1", "APR1 (LZ4 wrapper)", "APR1 (wrapper)". Static. */
RF_API const char *rf_apr_layout_name(rf_apr_layout l);

/** 1 when data[0..n) starts like an APR file of any kind (APR\0, APR1, APR2, APRN). */
RF_API int rf_apr_magic(const void *data, size_t n);

#ifdef __cplusplus
}
#endif
#endif
