/* json_int.h — the strict reading of small JSON documents shared by the machine-file and result
 * readers (and any other whole-document reader): load with duplicates refused, typed getters that
 * name the object and key in their one-sentence errors. On top of jansson; never prints. */
#ifndef RF_JSON_INT_H
#define RF_JSON_INT_H

#include <jansson.h>
#include <stddef.h>

#include "rf_int.h"

/* Parse data[0..size) as one JSON object (duplicate keys refused, integers read as reals).
 * Errors: empty input, syntax (with line, column and byte offset), numeric overflow (RF_RANGE),
 * out of memory (RF_NOMEM), a top level that is not an object. *root owned by the caller
 * (json_decref). */
rf_status rf__json_load(rf_ctx *ctx, const void *data, size_t size, json_t **root);

/* rf__json_load for a document whose bulk is the array under top-level key `bulk_key` (a result's
 * "rows"): every other member is decoded into *head (duplicate top-level keys refused), while the
 * array is only skipped over and its bytes [*bulk_at, *bulk_end) returned (0, 0 when the key is
 * absent; RF_FORMAT when its value is not an array), for rf__json_bulk_next to decode one element
 * at a time: memory is one element's tree, not the document's. *head owned by the caller. */
rf_status rf__json_load_bulk(rf_ctx *ctx, const void *data, size_t size, const char *bulk_key,
                             json_t **head, size_t *bulk_at, size_t *bulk_end);

/* The next member of the object at data[*pos..size) (*pos starts at its '{'): *key a jansson
 * string and *val its value decoded as rf__json_load decodes (both NULL once the object has
 * ended); *pos moves past it. A member whose key is `skip_key` (may be NULL) must be an array: it
 * is skipped, not decoded (*val NULL), and its bytes are [*skip_at, *skip_end). `ints`: integers
 * stay integers (else reals, as rf__json_load). Duplicate keys are the caller's to find. */
rf_status rf__json_member_next(rf_ctx *ctx, const void *data, size_t size, size_t *pos,
                               const char *skip_key, int ints, json_t **key, json_t **val,
                               size_t *skip_at, size_t *skip_end);

/* The next element of the array at data[*pos..end) (*pos starts at the '['), decoded as
 * rf__json_load decodes, into *elem (NULL once the array has ended). *pos moves past it. */
rf_status rf__json_bulk_next(rf_ctx *ctx, const void *data, size_t *pos, size_t end, json_t **elem);

/* "an object", "a string", "a number", ... for messages. */
const char *rf__json_type_name(const json_t *v);

/* `obj` must be an object whose keys are all in the NULL-terminated `allowed`; `where` names it
 * in messages ("ceiling 'L1'"). */
rf_status rf__json_keys(rf_ctx *ctx, const json_t *obj, const char *const *allowed,
                        const char *where);

/* String `key` of `obj` into dst[cap]: not longer than cap - 1, no NUL inside, not empty when
 * `required`. Absent: an error when `required`, else dst is left as it is. */
rf_status rf__json_str(rf_ctx *ctx, const json_t *obj, const char *key, const char *where,
                       char *dst, size_t cap, int required);

/* Finite number `key` of `obj` into *out. *present (may be NULL: then the key is required) tells
 * whether it was there. */
rf_status rf__json_num(rf_ctx *ctx, const json_t *obj, const char *key, const char *where,
                       double *out, int *present);

#endif
