/* roofline/gguf.h — reader of GGUF model files (llama.cpp / ggml, versions 2 and 3): the header,
 * every metadata key/value (big arrays are not materialised: an array value keeps its element
 * type, count and byte offset so it can be walked on demand), the tensor infos with their ggml
 * types and true block sizes, the alignment and the data-offset checks, and split files
 * (`NAME-00001-of-0000N.gguf`). Never reads or copies tensor data. Spec: ggml docs/gguf.md,
 * summarised in docs/formats.md section 5a. */
#ifndef ROOFLINE_GGUF_H
#define ROOFLINE_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Metadata value types (GGUF `gguf_type`; the ids are the file's). */
typedef enum rf_gguf_vtype {
    RF_GGUF_U8 = 0,
    RF_GGUF_I8 = 1,
    RF_GGUF_U16 = 2,
    RF_GGUF_I16 = 3,
    RF_GGUF_U32 = 4,
    RF_GGUF_I32 = 5,
    RF_GGUF_F32 = 6,
    RF_GGUF_BOOL = 7,
    RF_GGUF_STRING = 8,
    RF_GGUF_ARRAY = 9,
    RF_GGUF_U64 = 10,
    RF_GGUF_I64 = 11,
    RF_GGUF_F64 = 12,
    RF_GGUF_VTYPE_COUNT
} rf_gguf_vtype;

/** A string inside the file: `len` bytes at `ptr`, NOT NUL-terminated, borrowed from the mapped
 *  file (valid until rf_gguf_free). GGUF strings are UTF-8 without a terminator. */
typedef struct rf_gguf_str {
    const char *ptr;
    uint64_t len;
} rf_gguf_str;

/** One metadata value. Scalars are decoded (integers widened, floats to double, strings borrowed);
 *  arrays are described only: walk them with rf_gguf_array_next. */
typedef struct rf_gguf_value {
    rf_gguf_vtype type;
    union {
        uint64_t u;    /**< U8, U16, U32, U64, BOOL (0/1) */
        int64_t i;     /**< I8, I16, I32, I64 */
        double f;      /**< F32, F64 */
        rf_gguf_str s; /**< STRING */
    } v;
    rf_gguf_vtype arr_type; /**< ARRAY: element type (may itself be ARRAY) */
    uint64_t arr_count;     /**< ARRAY: number of elements (not bytes) */
    uint64_t arr_offset;    /**< ARRAY: file offset of the first element, in bytes */
    uint64_t arr_bytes;     /**< ARRAY: bytes the elements take */
} rf_gguf_value;

/** One key/value pair; `offset` is the file offset of the key, in bytes. */
typedef struct rf_gguf_kv {
    rf_gguf_str key;
    rf_gguf_value value;
    uint64_t offset;
} rf_gguf_kv;

#define RF_GGUF_MAX_DIMS 4 /**< GGML_MAX_DIMS */

/** One tensor info. dims are in GGUF order: dims[0] is the innermost (contiguous) dimension, the
 *  reverse of PyTorch (a Linear [out, in] is dims {in, out}); unused dims are 1. */
typedef struct rf_gguf_tensor {
    rf_gguf_str name;
    uint32_t n_dims;                 /**< 0..4 */
    uint64_t dims[RF_GGUF_MAX_DIMS]; /**< elements per dimension */
    uint32_t type;                   /**< ggml type id (rf_ggml_type_*) */
    uint64_t offset;                 /**< byte offset from the start of its shard's data section */
    uint64_t file_offset;            /**< byte offset in its shard file */
    uint64_t n_elements;             /**< product of dims */
    uint64_t n_bytes;                /**< n_elements / block * block_bytes (padding excluded) */
    uint32_t shard;                  /**< 0-based index of the split file holding it */
} rf_gguf_tensor;

/** A parsed GGUF file (or a set of split files). Plain fields, read-only for the caller. */
typedef struct rf_gguf {
    uint32_t version;   /**< 2 or 3 */
    int big_endian;     /**< 1 when the file was written big-endian (detected, byte-swapped) */
    uint32_t alignment; /**< general.alignment or 32, bytes */
    uint64_t n_kv;      /**< key/values of the first (or only) file */
    const rf_gguf_kv *kv;
    uint64_t n_tensors; /**< tensors of all shards */
    const rf_gguf_tensor *tensors;
    uint64_t kv_end;            /**< file offset one past the last key/value (first shard), bytes */
    uint64_t tensor_info_end;   /**< file offset one past the last tensor info (first shard) */
    uint64_t data_offset;       /**< start of the data section (first shard), aligned */
    uint64_t file_size;         /**< bytes of the first shard */
    uint64_t total_bytes;       /**< bytes of all shards together */
    uint64_t params;            /**< sum over tensors of n_elements */
    uint64_t weight_bytes;      /**< sum over tensors of n_bytes (padding excluded) */
    uint32_t n_shards;          /**< 1, or split.count */
    struct rf__gguf_priv *priv; /**< internal: maps, indexes */
    rf_allocator alloc_;        /**< private: what frees it */
} rf_gguf;

/** Parse a GGUF image data[0..size) (borrowed: it must outlive the result). Validates everything
 *  listed in the header comment; every refusal (RF_FORMAT, RF_UNSUPPORTED for v1 or an unknown
 *  ggml type, RF_RANGE for sizes that overflow) is one sentence naming the item and the byte
 *  offset, also set as rf_ctx_error_offset. A split shard parses alone (its own tensors only).
 *  *out is NULL on failure; free with rf_gguf_free. */
RF_API rf_status rf_gguf_parse(rf_ctx *ctx, const void *data, size_t size, rf_gguf **out);

/** rf_gguf_parse of the first (or only) file of a set whose bytes the caller holds (valid until
 *  rf_gguf_free); when its split.* keys say it is split, the other files are read beside `path`
 *  ("NAME-0000K-of-0000N.gguf") and merged. Errors are prefixed by `path`. */
RF_API rf_status rf_gguf_parse_set(rf_ctx *ctx, const void *data, size_t size, const char *path,
                                   rf_gguf **out);

/** Map `path` and parse it; when it is the first of split files (split.count > 1) the other shards
 *  (same name with -0000K-of-0000N) are mapped and parsed too, and checked to agree (split.no,
 *  split.count, split.tensors.count, no tensor twice). Error messages start with the path. */
RF_API rf_status rf_gguf_read_file(rf_ctx *ctx, const char *path, rf_gguf **out);

/** Release a parsed file and its mappings. Accepts NULL. */
RF_API void rf_gguf_free(rf_gguf *g);

/** The key/value named `key` (NUL-terminated), or NULL. O(1) on average. */
RF_API const rf_gguf_kv *rf_gguf_find(const rf_gguf *g, const char *key);

/** The tensor named `name`, or NULL. O(1) on average. */
RF_API const rf_gguf_tensor *rf_gguf_tensor_find(const rf_gguf *g, const char *name);

/** Typed lookups. Missing key: RF_FORMAT "missing key 'K'". Wrong type (e.g. a string where a
 *  count is expected, a negative integer, a value above the target's range): RF_FORMAT naming the
 *  key, its type and the byte offset. get_u64/get_u32 accept every integer type holding a
 *  non-negative value; get_f64 accepts F32 and F64; get_str needs STRING (borrowed, not
 *  terminated); get_array_len needs ARRAY and returns its element count. */
RF_API rf_status rf_gguf_get_u64(rf_ctx *ctx, const rf_gguf *g, const char *key, uint64_t *out);
RF_API rf_status rf_gguf_get_u32(rf_ctx *ctx, const rf_gguf *g, const char *key, uint32_t *out);
RF_API rf_status rf_gguf_get_f64(rf_ctx *ctx, const rf_gguf *g, const char *key, double *out);
RF_API rf_status rf_gguf_get_str(rf_ctx *ctx, const rf_gguf *g, const char *key, rf_gguf_str *out);
RF_API rf_status rf_gguf_get_array_len(rf_ctx *ctx, const rf_gguf *g, const char *key,
                                       uint64_t *out);

/** Walking an array value on demand: init from an ARRAY value, then call next until it returns
 *  0. Elements were validated during the parse, so next cannot fail; nested arrays come back as
 *  ARRAY values that can be walked the same way. */
typedef struct rf_gguf_iter {
    const rf_gguf *g;
    rf_gguf_vtype type;
    uint64_t left;
    uint64_t pos; /* file offset of the next element (first shard) */
} rf_gguf_iter;
RF_API void rf_gguf_array_iter(const rf_gguf *g, const rf_gguf_value *array, rf_gguf_iter *it);
RF_API int rf_gguf_array_next(rf_gguf_iter *it, rf_gguf_value *out);

/** Name of a metadata value type ("UINT32"), or "?" for an unknown id. Static. */
RF_API const char *rf_gguf_vtype_name(uint32_t type);

/* ---- ggml tensor types ----------------------------------------------------------------------- */

/** Number of ggml type ids known (GGML_TYPE_COUNT at ggml HEAD d99724f2: 43). */
#define RF_GGML_TYPE_COUNT 43

/** Block geometry of ggml type `id`: elements per block and bytes per block (e.g. Q4_K: 256 and
 *  144). Returns 1, or 0 for an unknown or removed id (4, 5, 31-33, 36-38, >= 43). */
RF_API int rf_ggml_type_block(uint32_t id, uint32_t *block_elems, uint32_t *block_bytes);

/** Name of ggml type `id` ("Q4_K"), or NULL for an unknown or removed id. Static. */
RF_API const char *rf_ggml_type_name(uint32_t id);

/** ggml type id for a name (case-insensitive, "q4_k" or "Q4_K"), or -1. */
RF_API int rf_ggml_type_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
