/* json_scan.h — a bound on what a JSON document may cost before jansson builds its tree (issue 11
 * item 3): one pass over the bytes, no allocation, that refuses nesting, strings, numbers and
 * element counts past per-format limits. jansson spends ~50-100 bytes per value, so limiting the
 * values each kept item may bring keeps a hostile file's tree a small multiple of what is kept.
 * Never installed; never included by cli/. */
#ifndef RF_JSON_SCAN_H
#define RF_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/rf_int.h"

/* Limits of one document. Values are counted as jansson allocates them: every object, array,
 * string (keys included), number and literal is one. The "bulk" container holds the kept items:
 * the top-level container itself (bulk_key NULL) or the value of the top-level key bulk_key (the
 * result's "rows", the machine file's "ceilings"). Each member of the bulk must be an object or
 * array (when items_are_containers, beyond 64 scalars: the reader names the first) holding at
 * most per_item values (special_item_key: a member
 * of a bulk object under that key may hold up to special_item values, e.g. SafeTensors'
 * "__metadata__"); everything outside the bulk holds at most outside values in all. */
typedef struct rf__json_limits {
    uint32_t max_depth;   /* the top-level container is depth 1; at most 64 */
    size_t max_string;    /* bytes of one string or number token as written */
    const char *bulk_key; /* NULL: the top-level container is the bulk */
    uint64_t per_item;    /* values of one bulk member (its key, if any, included) */
    const char *special_item_key;
    uint64_t special_item;    /* values of the member under special_item_key */
    uint64_t outside;         /* values outside the bulk in total */
    int items_are_containers; /* 1: a scalar bulk member is refused */
    uint64_t max_values;      /* values in all; 0: no limit beyond the above */
    int one_value;            /* 1: stop after the first complete value (a stream's element) */
} rf__json_limits;

/* Scan data[0..size) against `lim`. RF_OK when within them (the syntax is not checked: jansson
 * does that after); else RF_RANGE (or RF_FORMAT for a scalar bulk member) with a one-line message
 * "at byte N: ..." naming the limit. Never allocates; linear time. */
rf_status rf__json_scan(rf_ctx *ctx, const void *data, size_t size, const rf__json_limits *lim);

#endif
