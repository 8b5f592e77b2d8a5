/* ops.c — entry points of the operations-list reader (include/roofline/ops.h, docs/ops-format.md):
 * argument checks, the rules both forms share (text without NUL bytes, an optional UTF-8 BOM),
 * the choice between CSV and JSON, and the file wrapper that maps the input and names it in errors.
 * The grammars live in ops_csv.c (RFC 4180) and ops_json.c (RFC 8259, through jansson). */
#include <stdio.h>
#include <string.h>

#include "formats/formats_int.h"

#define RF__OPS_MAX_FILE_BYTES ((uint64_t)4 << 30) /* 4 GiB */

/* AUTO: JSON when the first non-blank byte is '[' or '{', else CSV. */
static rf_ops_format rf__ops_sniff(const rf__cursor *cur)
{
    rf__cursor probe = *cur;
    rf__cursor_skip_ws(&probe);
    int b = rf__cursor_peek(&probe);
    return (b == '[' || b == '{') ? RF_OPS_JSON : RF_OPS_CSV;
}

/* Parse data[0..size) as `fmt`; the sink records whether the callback stopped the parse.
 * `map`: the file mapping data lies in (or NULL): the check for NUL bytes lets its pages go
 * behind it, so that pass does not make the whole file resident at once. */
static rf_status rf__ops_parse_mem(rf_ctx *ctx, const void *data, size_t size, rf_ops_format fmt,
                                   rf__ops_sink *sink, rf__map *map)
{
    if (fmt != RF_OPS_AUTO && fmt != RF_OPS_CSV && fmt != RF_OPS_JSON)
        return rf__error(ctx, RF_USAGE, -1, "unknown operations-list format %d", (int)fmt);
    const uint8_t *nul = NULL, *p = data;
    for (size_t at = 0, step = (size_t)1 << 22; size && at < size && !nul; at += step) {
        size_t n = size - at < step ? size - at : step;
        nul = memchr(p + at, 0, n);
        rf__map_drop_before(map, p + at + n);
    }
    if (nul) {
        size_t off = (size_t)(nul - (const uint8_t *)data);
        return rf__error(ctx, RF_FORMAT, (int64_t)off,
                         "NUL byte at byte %zu (an operations list is text)", off);
    }
    rf__cursor cur;
    rf__cursor_init(&cur, data, size);
    rf__cursor_expect_bytes(&cur, "\xEF\xBB\xBF", 3); /* a UTF-8 byte order mark is ignored */
    if (fmt == RF_OPS_AUTO) fmt = rf__ops_sniff(&cur);
    if (fmt == RF_OPS_JSON) return rf__ops_parse_json(ctx, &cur, sink);
    return rf__ops_parse_csv(ctx, &cur, sink);
}

rf_status rf_ops_parse(rf_ctx *ctx, const void *data, size_t size, rf_ops_format fmt, rf_op_fn fn,
                       void *user)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, fn, RF_USAGE, "rf_ops_parse: no row callback given");
    RF_CHECK(ctx, data || size == 0, RF_USAGE, "rf_ops_parse: data is NULL but size is %zu", size);
    rf__ops_sink sink = {fn, user, 0};
    return rf__ops_parse_mem(ctx, data, size, fmt, &sink, NULL);
}

/* The format named by the path's extension (.csv, .json; any case), else AUTO. */
static rf_ops_format rf__ops_format_of_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    if (!dot) return RF_OPS_AUTO;
    if (rf__strcasecmp(dot, ".csv") == 0) return RF_OPS_CSV;
    if (rf__strcasecmp(dot, ".json") == 0) return RF_OPS_JSON;
    return RF_OPS_AUTO;
}

/* The reader's own callback around the caller's: every 64k rows the mapped bytes behind the row
 * (its name points into them for plain CSV fields) are let go, so a million-row file does not
 * stay resident beside the rows the analysis keeps. */
typedef struct rf__ops_drop {
    rf_op_fn fn;
    void *user;
    rf__map *map;
    uint64_t n;
} rf__ops_drop;

static rf_status rf__ops_dropping(void *user, const rf_op_row *row)
{
    rf__ops_drop *d = user;
    if ((++d->n & 0xFFFF) == 0) rf__map_drop_before(d->map, row->name);
    return d->fn(d->user, row);
}

rf_status rf_ops_read_file(rf_ctx *ctx, const char *path, rf_ops_format fmt, rf_op_fn fn,
                           void *user)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && fn, RF_USAGE, "rf_ops_read_file: path and callback are required");
    if (fmt == RF_OPS_AUTO) fmt = rf__ops_format_of_path(path);
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__OPS_MAX_FILE_BYTES, &map)); /* its errors name the path */
    rf__ops_drop drop = {fn, user, &map, 0};
    rf__ops_sink sink = {rf__ops_dropping, &drop, 0};
    rf_status st = rf__ops_parse_mem(ctx, map.data, map.size, fmt, &sink, &map);
    if (st != RF_OK && !sink.callback_failed)
        rf__error_prefix(ctx, strcmp(path, "-") == 0 ? "standard input" : path);
    rf__unmap_file(&map);
    return st;
}

typedef struct rf__ops_an {
    rf_analysis *an;
    uint64_t failed_row; /* the row the analysis refused, 0 = none */
} rf__ops_an;

/* Each row as it is read goes into the analysis, with its measured time when it has one. */
static rf_status rf__ops_to_analysis(void *user, const rf_op_row *row)
{
    rf__ops_an *u = user;
    rf_measured m = {row->time_s, 0, 0, 1};
    rf_status st = rf_analysis_add_net(u->an, row->name, row->name_len, NULL, NULL, 0, row->flops,
                                       row->bytes, row->net_bytes, row->has_time ? &m : NULL);
    if (st != RF_OK) u->failed_row = row->row;
    return st;
}

rf_status rf_ops_analyze_file(rf_ctx *ctx, const char *path, rf_ops_format fmt, rf_analysis *an)
{
    RF_CHECK(ctx, an, RF_USAGE, "rf_ops_analyze_file: no analysis");
    rf__ops_an u = {an, 0};
    rf_status st = rf_ops_read_file(ctx, path, fmt, rf__ops_to_analysis, &u);
    if (st != RF_OK && u.failed_row) { /* the analysis' message, with the file and row in front */
        char where[64];
        snprintf(where, sizeof where, "row %llu", (unsigned long long)u.failed_row);
        rf__error_prefix(ctx, where);
        rf__error_prefix(ctx, strcmp(path, "-") == 0 ? "standard input" : path);
    }
    return st;
}
