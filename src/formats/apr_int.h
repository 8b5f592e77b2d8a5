/* apr_int.h — internals shared by the APR reader's files: the parse state (apr.c: dispatch and v2;
 * apr_v1.c: APR1 and its wrappers; apr_meta.c: metadata into hyper-parameters; apr_dtype.c: dtype
 * bytes told apart by size, CRC32). Never installed; never included by cli/. */
#ifndef RF_APR_INT_H
#define RF_APR_INT_H

#include <jansson.h>

#include "formats/formats_int.h"
#include "formats/gguf_int.h"
#include "roofline/apr.h"

/* What a parsed file owns besides its public fields. */
typedef struct rf__apr_priv {
    rf_apr_tensor *tensors; /* owned, names too */
    uint64_t cap;
    rf__gg_index ix;   /* names -> positions */
    uint8_t *inflated; /* decompressed APR1 of a wrapper, or NULL */
    json_t *meta;      /* the metadata object (kept for lookups during the parse) */
} rf__apr_priv;

/* One parse: the image, the result being filled, the caller's flags. */
typedef struct rf__apr_parse {
    rf_ctx *ctx;
    const uint8_t *base;
    uint64_t size;
    unsigned flags;
    rf_apr *a;
} rf__apr_parse;

/* CRC32 (IEEE 802.3, reflected 0xEDB88320, init and final xor 0xFFFFFFFF: zlib's crc32()). */
uint32_t rf__apr_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* The meaning of dtype byte `b` (v2) for a tensor of `shape` whose stored size is `size`: the one
 * candidate of reference section 4 whose expected size matches. 1 and *out, or 0 when none does
 * (*known then says whether the byte itself is one of the table's). */
int rf__apr_dtype_pick(uint8_t b, const uint64_t *shape, uint32_t rank, uint64_t n, uint64_t size,
                       rf_apr_dtype *out, int *known);

/* Expected stored size of n elements (shape for K-quants padded per row) of type t, flat form. 1
 * and *out, or 0 on overflow. */
int rf__apr_dtype_size(rf_apr_dtype t, uint64_t n, uint64_t *out);

/* The graph element type standing for t. */
rf_dtype rf__apr_rf_dtype(rf_apr_dtype t);

/* An APR1 dtype string ("F32", ...) into its meaning; 0 when unknown. */
int rf__apr_dtype_from_name(const char *s, rf_apr_dtype *out);

/* Append one tensor (name copied; shape, sizes set by the caller) after checking the name: not
 * empty, at most RF_APR_MAX_NAME bytes, no NUL, not seen before. `at` is the entry's offset. */
rf_status rf__apr_add(rf__apr_parse *p, const char *name, size_t len, const rf_apr_tensor *t,
                      uint64_t at);

/* Elements of a shape (overflow: RF_RANGE naming the tensor). */
rf_status rf__apr_elems(rf__apr_parse *p, const rf_apr_tensor *t, uint64_t at, uint64_t *n);

/* Parse the JSON metadata m[0..n) at byte `at` into a->hp (after the tensors are known: the
 * numbers are checked against them). */
rf_status rf__apr_meta(rf__apr_parse *p, const uint8_t *m, uint64_t n, uint64_t at);

/* Validate the JSON document s[0..n) at byte `at` without building it (apr_json.c) and return an
 * object holding only the top-level members named in `keys` (NULL-terminated); a wanted key given
 * twice is an error. *out: json_decref. */
rf_status rf__apr_json_pick(rf__apr_parse *p, const uint8_t *s, uint64_t n, uint64_t at,
                            const char *const *keys, json_t **out);

/* APR1 at p->base (also inside a wrapper). */
rf_status rf__apr_v1(rf__apr_parse *p);

/* "APR\0" with byte 4 in {0, 1} (or 2 + a zstd frame): the compressed wrapper; also refuses the
 * aprender-tsp layout. */
rf_status rf__apr_wrapper(rf__apr_parse *p);

/* "APRN": aprender's classical models (section 9), refused naming the model kind. */
rf_status rf__apr_aprn(rf__apr_parse *p);

/* Error with the byte offset, RF_FORMAT. */
#define RF__APR_BAD(p, at, ...) rf__error((p)->ctx, RF_FORMAT, (int64_t)(at), __VA_ARGS__)

#endif
