/* json_scan.c — the pre-scan of a JSON document against per-format limits (json_scan.h): a
 * tokenizer that tracks only nesting, object keys and value counts, so that a 100 MB hostile file
 * is refused after one read of its bytes instead of after jansson built a 2 GB tree. Checks no
 * grammar (jansson does); never allocates, never recurses. */
#include <string.h>

#include "core/json_scan.h"

#define RF__SCAN_DEPTH 64      /* levels tracked; deeper ones are only counted */
#define RF__JANSSON_DEPTH 2048 /* JSON_PARSER_MAX_DEPTH of jansson 2.14 */

typedef struct rf__scan_level {
    char type;      /* '{' or '[' */
    char want_key;  /* object: the next string is a key */
    char is_bulk;   /* this container is the bulk */
    char next_bulk; /* top level: the value of the key just read is the bulk */
} rf__scan_level;

typedef struct rf__scan {
    rf_ctx *ctx;
    const rf__json_limits *lim;
    uint64_t values;      /* all values so far */
    uint64_t bulk_values; /* values inside the bulk (its own container excluded) */
    uint64_t item_start;  /* values when the current bulk member started */
    uint64_t item_limit;  /* per_item or special_item */
    size_t item_at;       /* byte where it started */
    int in_item;
} rf__scan;

static rf_status rf__scan_item_end(rf__scan *s)
{
    if (!s->in_item) return RF_OK;
    s->in_item = 0;
    uint64_t n = s->values - s->item_start;
    s->bulk_values += n;
    RF_CHECK(
        s->ctx, n <= s->item_limit, RF_RANGE,
        "at byte %zu: an item holds more than %llu JSON values (a limit of this format, so that "
        "a hostile file cannot exhaust memory)",
        s->item_at, (unsigned long long)s->item_limit);
    return RF_OK;
}

static rf_status rf__scan_item_start(rf__scan *s, size_t at, const char *key, size_t key_len)
{
    RF_TRY(rf__scan_item_end(s));
    const char *sp = s->lim->special_item_key;
    s->in_item = 1;
    s->item_start = s->values;
    s->item_at = at;
    s->item_limit = sp && key && strlen(sp) == key_len && memcmp(sp, key, key_len) == 0
                        ? s->lim->special_item
                        : s->lim->per_item;
    return RF_OK;
}

/* End of the string starting at p[i] == '"' (index of the closing quote), or n. */
static size_t rf__scan_string(const char *p, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        const char *q = memchr(p + i, '"', n - i); /* fast path: jump to the next quote */
        if (!q) return n;
        size_t j = (size_t)(q - p), bs = 0;
        while (j - bs > i && p[j - bs - 1] == '\\') bs++;
        if (bs % 2 == 0) return j;
        i = j;
    }
    return n;
}

/* The level record of depth d; past RF__SCAN_DEPTH one shared record that is never the bulk
 * and never expects keys (only the first two levels matter for the bulk). */
static rf__scan_level *rf__scan_at(rf__scan_level *lv, uint32_t d)
{
    if (d <= RF__SCAN_DEPTH) return &lv[d];
    lv[RF__SCAN_DEPTH + 1] = (rf__scan_level){'[', 0, 0, 0};
    return &lv[RF__SCAN_DEPTH + 1];
}

rf_status rf__json_scan(rf_ctx *ctx, const void *data, size_t size, const rf__json_limits *lim)
{
    const char *p = data;
    rf__scan_level lv[RF__SCAN_DEPTH + 2];
    uint32_t depth = 0;
    uint64_t scalar_items = 0;
    rf__scan s = {ctx, lim, 0, 0, 0, 0, 0, 0};
    memset(lv, 0, sizeof lv);
    for (size_t i = 0; i < size; i++) {
        char c = p[i];
        rf__scan_level *L = rf__scan_at(lv, depth);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') {
            if (c == ',' && depth && L->type == '{') L->want_key = 1;
            continue;
        }
        if (c == '}' || c == ']') {
            if (depth && L->is_bulk) RF_TRY(rf__scan_item_end(&s));
            if (depth) depth--;
            if (depth == 0 && lim->one_value) break;
            continue;
        }
        /* a key or a value starts at i; find where its token ends */
        int is_key = depth && L->type == '{' && L->want_key && c == '"';
        size_t end = i;
        if (c == '"') {
            end = rf__scan_string(p, i, size);
            RF_CHECK(ctx, end - i - 1 <= lim->max_string, RF_RANGE,
                     "at byte %zu: a string of more than %zu bytes (a limit of this format)", i,
                     lim->max_string);
        } else if (c != '{' && c != '[') {
            while (end + 1 < size && !strchr(" \t\r\n,:]}[{\"", p[end + 1])) end++;
            RF_CHECK(ctx, end - i + 1 <= lim->max_string, RF_RANGE,
                     "at byte %zu: a token of more than %zu bytes (a limit of this format)", i,
                     lim->max_string);
        }
        int container = c == '{' || c == '[';
        if (depth && L->is_bulk) {
            if (is_key || L->type == '[')
                RF_TRY(rf__scan_item_start(&s, i, is_key ? p + i + 1 : NULL,
                                           is_key ? end - i - 1 : 0));
            /* a scalar where an item belongs is the reader's error to name; many cost a tree */
            if (!is_key && !container && lim->items_are_containers)
                RF_CHECK(ctx, ++scalar_items <= 64, RF_FORMAT,
                         "at byte %zu: more than 64 items are not objects", i);
        }
        s.values++;
        RF_CHECK(ctx, !lim->max_values || s.values <= lim->max_values, RF_RANGE,
                 "at byte %zu: more than %llu JSON values (a limit of this format)", i,
                 (unsigned long long)lim->max_values);
        if (is_key) {
            L->want_key = 0;
            L->next_bulk = depth == 1 && lim->bulk_key && strlen(lim->bulk_key) == end - i - 1 &&
                           memcmp(lim->bulk_key, p + i + 1, end - i - 1) == 0;
            i = end;
            continue;
        }
        int bulk = depth == 0 ? !lim->bulk_key : depth == 1 && L->next_bulk;
        if (depth) L->next_bulk = 0;
        if (container) {
            RF_CHECK(ctx, !lim->max_depth || depth < lim->max_depth, RF_FORMAT,
                     "at byte %zu: nested too deeply (more than %u levels)", i, lim->max_depth);
            /* past jansson's own limit: it refuses the document there, having built no more
             * than what was scanned so far, and names the problem in its words */
            if (depth >= RF__JANSSON_DEPTH) return RF_OK;
            depth++;
            *rf__scan_at(lv, depth) = (rf__scan_level){c, c == '{', (char)bulk, 0};
            continue;
        }
        i = end;
        if (depth == 0 && lim->one_value) break;
    }
    RF_TRY(rf__scan_item_end(&s));
    uint64_t outside = s.values - s.bulk_values;
    RF_CHECK(ctx, outside <= lim->outside, RF_RANGE,
             "more than %llu JSON values outside the main list (a limit of this format)",
             (unsigned long long)lim->outside);
    return RF_OK;
}
