/* gguf_int.h — internals shared by the GGUF reader's files: the bounded reader with its byte order
 * (gguf.c), the key/tensor name indexes and the mappings kept alive for a parsed file
 * (gguf_index.c, gguf_open.c). Never installed; never included by cli/. */
#ifndef RF_GGUF_INT_H
#define RF_GGUF_INT_H

#include "formats/formats_int.h"
#include "roofline/gguf.h"

/* A bounded reader over one GGUF image. `ctx` may be NULL when walking an array that the parse
 * has already validated (errors then cannot happen and are not reported). */
typedef struct rf__gg {
    rf_ctx *ctx;
    const uint8_t *base;
    uint64_t size;
    uint64_t pos;
    int be;           /* file is big-endian */
    uint32_t version; /* 2 or 3 */
} rf__gg;

/* Read one value of `type` at the reader's position into *out (scalars decoded; strings borrowed;
 * arrays described and skipped, their elements validated). `what` names the item in errors. */
rf_status rf__gg_value(rf__gg *r, uint32_t type, rf_gguf_value *out, int depth, const char *what);

/* An open-addressing index of names -> 0-based positions (kv keys or tensor names). */
typedef struct rf__gg_index {
    uint64_t *slots; /* position + 1, 0 = empty */
    uint64_t cap;    /* power of two */
} rf__gg_index;

/* Allocate an index for up to n names. */
rf_status rf__gg_index_init(rf_ctx *ctx, rf__gg_index *ix, uint64_t n);
void rf__gg_index_free(const rf_allocator *a, rf__gg_index *ix);

/* Insert name `s` at position `pos`; strs(user, i) gives the name stored at position i. Returns
 * the position of an equal name already there + 1, or 0 when inserted. */
typedef rf_gguf_str (*rf__gg_name_fn)(const void *user, uint64_t i);
uint64_t rf__gg_index_put(rf__gg_index *ix, rf_gguf_str s, uint64_t pos, rf__gg_name_fn fn,
                          const void *user);

/* Position + 1 of `s`, or 0. */
uint64_t rf__gg_index_get(const rf__gg_index *ix, const char *s, size_t len, rf__gg_name_fn fn,
                          const void *user);

rf_gguf_str rf__gg_kv_name(const void *user, uint64_t i);     /* user: const rf_gguf_kv * */
rf_gguf_str rf__gg_tensor_name(const void *user, uint64_t i); /* user: const rf_gguf_tensor * */

/* What a parsed file owns besides its public fields. */
typedef struct rf__gguf_priv {
    const uint8_t *data; /* image of the first (or only) shard */
    uint64_t size;
    int be;
    uint32_t version;
    rf_gguf_kv *kv;
    rf_gguf_tensor *tensors;
    rf__gg_index kv_ix, t_ix;
    rf__map *maps; /* one per shard when opened from files, else NULL */
    uint32_t n_maps;
    rf_gguf **shards; /* parsed shards of a split set (shards[0] shares nothing with g) */
    uint32_t n_shard_parsed;
} rf__gguf_priv;

/* Format a key or tensor name for a message (escaped, cut). */
const char *rf__gg_name(char *out, size_t cap, rf_gguf_str s);

#endif
