/* ops_json.c — the JSON form of an operations list (docs/ops-format.md; RFC 8259): an array of
 * {"name", "flops", "bytes"} objects, or {"ops": [...], "schema": 1}. Streams the array: the
 * brackets and commas are scanned here and each element is decoded alone by jansson, handed to the
 * callback and released, so memory never grows with the elements. Never hand-decodes JSON values.
 * (jansson allocates with its own global allocator, not through the context.) */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/json_scan.h"
#include "formats/formats_int.h"

/* How elements are decoded. JSON_DISABLE_EOF_CHECK makes json_loadb stop after one array or object
 * and, on success too, store in err.position the number of bytes it consumed: up to and with the
 * closing '}' (checked with jansson 2.14: `{"a":1},{...` and `{"a":1}  ,` both give 7; a scalar
 * with JSON_DECODE_ANY, `1,`, gives 1 — the look-ahead byte is given back). JSON_DECODE_INT_AS_REAL
 * keeps integers beyond int64 (1e20 FLOPs written out) from failing as "too big integer". jansson
 * itself refuses NaN/Infinity (invalid token), 1e400 (numeric overflow), invalid UTF-8, \u0000,
 * lone surrogates and nesting deeper than JSON_PARSER_MAX_DEPTH (2048) without deep recursion. */
#define JS_ELEMENT_FLAGS (JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL)
#define JS_SCALAR_FLAGS (JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY)

/* name, flops and bytes are required; time_s (seconds measured) is optional. */
enum { KEY_NAME, KEY_FLOPS, KEY_BYTES, KEY_TIME, KEY_NET, KEY_COUNT, KEY_REQUIRED = KEY_TIME };

typedef struct js {
    rf_ctx *ctx;
    rf__cursor *cur;
    rf__ops_sink *sink;
    uint64_t count; /* elements delivered so far = index of the next one */
} js;

/* Copy jansson's message with anything unprintable replaced by '?'. */
static const char *js_clean(char *out, size_t cap, const char *text)
{
    size_t i = 0;
    for (; i + 1 < cap && text[i]; i++) {
        unsigned char b = (unsigned char)text[i];
        out[i] = (b >= 0x20 && b < 0x7F) ? (char)b : '?';
    }
    out[i] = '\0';
    return out;
}

/* Does a syntax error come from a NaN or an infinity? jansson names the token in its message
 * ("invalid token near 'NaN'"), except after a sign, where it stops at the byte after the '-'
 * ("near '-'", position on the 'I' of -Infinity): look at both. */
static int js_is_nonfinite(const js *j, const char *text, int64_t at)
{
    const char *near = strstr(text, "near '");
    if (near) {
        near += 6;
        if (*near == '-' || *near == '+') near++;
        if (rf__strncasecmp(near, "nan", 3) == 0 || rf__strncasecmp(near, "inf", 3) == 0) return 1;
    }
    size_t size = (size_t)(j->cur->end - j->cur->base);
    if (at < 0 || (uint64_t)at > size || size - (size_t)at < 3) return 0;
    const char *p = (const char *)j->cur->base + at;
    return rf__strncasecmp(p, "nan", 3) == 0 || rf__strncasecmp(p, "inf", 3) == 0;
}

/* Turn a jansson failure for the value that starts at `off` into our error. */
static rf_status js_jansson_error(js *j, const json_error_t *err, size_t off, const char *where)
{
    char text[JSON_ERROR_TEXT_LENGTH];
    js_clean(text, sizeof text, err->text);
    int64_t at = (int64_t)off + (err->position > 0 ? err->position : 0);
    switch (json_error_code(err)) {
    case json_error_out_of_memory:
        return rf__error(j->ctx, RF_NOMEM, at, "%s: out of memory while reading it", where);
    case json_error_numeric_overflow:
        return rf__error(j->ctx, RF_RANGE, at, "%s: number out of range (%s)", where, text);
    case json_error_stack_overflow:
        return rf__error(j->ctx, RF_FORMAT, at, "%s: nested too deeply (%s)", where, text);
    case json_error_duplicate_key:
        return rf__error(j->ctx, RF_FORMAT, at, "%s: duplicate key (%s)", where, text);
    default: break;
    }
    if (js_is_nonfinite(j, text, at))
        return rf__error(j->ctx, RF_FORMAT, at, "%s: NaN and Infinity are not JSON numbers (%s)",
                         where, text);
    return rf__error(j->ctx, RF_FORMAT, at, "%s: invalid JSON (%s)", where, text);
}

/* Decode the one JSON value at the cursor with jansson and move past it. */
static rf_status js_value(js *j, size_t flags, const char *where, json_t **out)
{
    size_t off = rf__cursor_offset(j->cur), left = rf__cursor_left(j->cur);
    size_t len = left > INT_MAX ? INT_MAX : left; /* err.position is an int */
    /* What jansson may build for one element (core/json_scan.h): a few keys with scalars. */
    static const rf__json_limits lim = {
        .max_depth = 0, .max_string = 65536, .per_item = 16, .outside = 1, .one_value = 1};
    if (rf__json_scan(j->ctx, j->cur->p, len, &lim) != RF_OK) {
        char msg[256];
        rf__strlcpy(msg, rf_ctx_errmsg(j->ctx), sizeof msg);
        return rf__error(j->ctx, rf_ctx_error_status(j->ctx), (int64_t)off, "%s: %s", where, msg);
    }
    json_error_t err;
    json_t *v = json_loadb((const char *)j->cur->p, len, flags, &err);
    if (!v) return js_jansson_error(j, &err, off, where);
    if (err.position <= 0 || (size_t)err.position > len) {
        json_decref(v);
        return rf__error(j->ctx, RF_INTERNAL, (int64_t)off, "%s: JSON decoder lost its place",
                         where);
    }
    rf__cursor_skip(j->cur, (size_t)err.position);
    *out = v;
    return RF_OK;
}

/* "the end of the input" or the byte at the cursor, for "expected X, found Y". */
static const char *js_found(const js *j, char *buf, size_t cap)
{
    if (rf__cursor_eof(j->cur)) return "the end of the input";
    char ex[16];
    snprintf(buf, cap, "'%s'", rf__excerpt(ex, sizeof ex, j->cur->p, 1, 1));
    return buf;
}

/* ---- one element ----------------------------------------------------------------------------- */

static const char *js_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "a number";
    }
}

/* flops or bytes: a JSON number, finite, >= 0. */
static rf_status js_number(js *j, const json_t *v, const char *where, const char *key, size_t off,
                           double *out)
{
    char ex[96];
    if (json_is_string(v))
        return rf__error(
            j->ctx, RF_FORMAT, (int64_t)off, "%s, key '%s': \"%s\" is a string, not a number",
            where, key,
            rf__excerpt(ex, sizeof ex, json_string_value(v), json_string_length(v), 40));
    if (!json_is_number(v))
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s, key '%s' must be a number, not %s",
                         where, key, js_type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x)) /* jansson refuses overflow already; kept for safety */
        return rf__error(j->ctx, RF_RANGE, (int64_t)off, "%s, key '%s' is out of range", where,
                         key);
    if (x < 0)
        return rf__error(j->ctx, RF_RANGE, (int64_t)off, "%s, key '%s': %.17g is negative", where,
                         key, x);
    *out = x == 0 ? 0 : x; /* -0 is zero */
    return RF_OK;
}

/* name: a non-empty string of at most RF__OPS_NAME_MAX bytes (jansson checked the UTF-8). */
static rf_status js_name(js *j, const json_t *v, const char *where, size_t off, rf_op_row *row)
{
    if (!json_is_string(v))
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s, key 'name' must be a string, not %s",
                         where, js_type_name(v));
    row->name = json_string_value(v);
    row->name_len = json_string_length(v);
    if (row->name_len == 0)
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s, key 'name' is empty", where);
    if (row->name_len > RF__OPS_NAME_MAX)
        return rf__error(j->ctx, RF_RANGE, (int64_t)off, "%s, key 'name' is longer than %d bytes",
                         where, RF__OPS_NAME_MAX);
    return RF_OK;
}

/* Which key this is (KEY_*), and its spelling; -1 when unknown. */
static int js_key_kind(const char *key, const char **label)
{
    static const char *const names[] = {"name",         "flops",  "bytes",
                                        "memory_bytes", "time_s", "net_bytes"};
    static const int kinds[] = {KEY_NAME, KEY_FLOPS, KEY_BYTES, KEY_BYTES, KEY_TIME, KEY_NET};
    for (int i = 0; i < 6; i++)
        if (strcmp(key, names[i]) == 0) {
            *label = names[i];
            return kinds[i];
        }
    return -1;
}

/* Check the keys of element `obj` (starting at `off`) and fill the row; the name stays owned by
 * obj. */
static rf_status js_row(js *j, json_t *obj, const char *where, size_t off, rf_op_row *row)
{
    static const char *const required[KEY_REQUIRED] = {"name", "flops", "bytes"};
    json_t *val, *have[KEY_COUNT] = {NULL, NULL, NULL, NULL, NULL};
    const char *key, *label[KEY_COUNT] = {NULL, NULL, NULL, NULL, NULL}, *spelled = NULL;
    char ex[96];
    json_object_foreach(obj, key, val)
    {
        int kind = js_key_kind(key, &spelled);
        if (kind < 0)
            return rf__error(j->ctx, RF_FORMAT, (int64_t)off,
                             "%s: unknown key '%s' (expected name, flops, bytes or "
                             "memory_bytes, and optionally time_s and net_bytes)",
                             where, rf__excerpt(ex, sizeof ex, key, strlen(key), 40));
        if (have[kind])
            return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s: keys '%s' and '%s' both given",
                             where, label[kind], spelled);
        have[kind] = val;
        label[kind] = spelled;
    }
    for (int k = 0; k < KEY_REQUIRED; k++)
        if (!have[k])
            return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s: missing key '%s'", where,
                             required[k]);
    RF_TRY(js_name(j, have[KEY_NAME], where, off, row));
    RF_TRY(js_number(j, have[KEY_FLOPS], where, label[KEY_FLOPS], off, &row->flops));
    RF_TRY(js_number(j, have[KEY_BYTES], where, label[KEY_BYTES], off, &row->bytes));
    if (have[KEY_NET])
        RF_TRY(js_number(j, have[KEY_NET], where, "net_bytes", off, &row->net_bytes));
    if (!have[KEY_TIME]) return RF_OK;
    RF_TRY(js_number(j, have[KEY_TIME], where, "time_s", off, &row->time_s));
    if (!(row->time_s > 0))
        return rf__error(j->ctx, RF_RANGE, (int64_t)off,
                         "%s, key 'time_s': a measured time must be positive, got 0", where);
    row->has_time = 1;
    return RF_OK;
}

/* One element of the ops array: decode, check, deliver, release. */
static rf_status js_element(js *j)
{
    char where[40], found[16];
    snprintf(where, sizeof where, "ops[%llu]", (unsigned long long)j->count);
    size_t off = rf__cursor_offset(j->cur);
    if (rf__cursor_peek(j->cur) != '{')
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "%s: expected an object, found %s", where,
                         js_found(j, found, sizeof found));
    json_t *obj;
    RF_TRY(js_value(j, JS_ELEMENT_FLAGS, where, &obj));
    rf_op_row row = {NULL, 0, 0, 0, j->count + 1, 0, 0, 0};
    rf_status st = js_row(j, obj, where, off, &row);
    if (st == RF_OK) {
        j->count++;
        st = rf__ops_emit(j->sink, &row);
    }
    json_decref(obj);
    return st;
}

/* ---- the containers -------------------------------------------------------------------------- */

/* The ops array, cursor on its '['. */
static rf_status js_array(js *j)
{
    char found[16];
    size_t open = rf__cursor_offset(j->cur);
    rf__cursor_advance(j->cur);
    rf__cursor_skip_ws(j->cur);
    if (rf__cursor_expect(j->cur, ']'))
        return rf__error(j->ctx, RF_FORMAT, (int64_t)open, "no operations: the array is empty");
    for (;;) {
        rf__cursor_skip_ws(j->cur);
        RF_TRY(js_element(j));
        rf__cursor_skip_ws(j->cur);
        if (rf__cursor_expect(j->cur, ',')) continue;
        if (rf__cursor_expect(j->cur, ']')) return RF_OK;
        return rf__error(j->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(j->cur),
                         "expected ',' or ']' after ops[%llu], found %s",
                         (unsigned long long)(j->count - 1), js_found(j, found, sizeof found));
    }
}

/* The value of "schema": the integer 1. */
static rf_status js_schema(js *j)
{
    size_t off = rf__cursor_offset(j->cur);
    json_t *v;
    RF_TRY(js_value(j, JS_SCALAR_FLAGS, "key 'schema'", &v));
    int is_int = json_is_integer(v);
    json_int_t n = is_int ? json_integer_value(v) : 0;
    json_decref(v);
    if (is_int && n == 1) return RF_OK;
    if (is_int)
        return rf__error(j->ctx, RF_UNSUPPORTED, (int64_t)off,
                         "schema %lld is not supported (this reader knows schema 1)", (long long)n);
    return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "key 'schema' must be the integer 1");
}

/* One "key": value member of the top-level object; seen[0] for ops, seen[1] for schema. */
static rf_status js_member(js *j, int seen[2])
{
    char found[16], ex[96];
    size_t off = rf__cursor_offset(j->cur);
    if (rf__cursor_peek(j->cur) != '"')
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "expected a key string, found %s",
                         js_found(j, found, sizeof found));
    json_t *k;
    RF_TRY(js_value(j, JS_SCALAR_FLAGS, "top-level object", &k));
    const char *key = json_string_value(k);
    size_t key_len = json_string_length(k);
    int which = strcmp(key, "ops") == 0 ? 0 : strcmp(key, "schema") == 0 ? 1 : -1;
    rf__excerpt(ex, sizeof ex, key, key_len, 40);
    json_decref(k);
    if (which < 0)
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off,
                         "unknown top-level key '%s' (expected 'ops' and optionally 'schema')", ex);
    if (seen[which])
        return rf__error(j->ctx, RF_FORMAT, (int64_t)off, "duplicate top-level key '%s'", ex);
    seen[which] = 1;
    rf__cursor_skip_ws(j->cur);
    if (!rf__cursor_expect(j->cur, ':'))
        return rf__error(j->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(j->cur),
                         "expected ':' after key '%s', found %s", ex,
                         js_found(j, found, sizeof found));
    rf__cursor_skip_ws(j->cur);
    if (which == 1) return js_schema(j);
    if (rf__cursor_peek(j->cur) != '[')
        return rf__error(j->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(j->cur),
                         "key 'ops' must be an array, found %s", js_found(j, found, sizeof found));
    return js_array(j);
}

/* {"ops": [...], "schema": 1}, cursor on its '{'. */
static rf_status js_object(js *j)
{
    char found[16];
    int seen[2] = {0, 0};
    size_t open = rf__cursor_offset(j->cur);
    rf__cursor_advance(j->cur);
    rf__cursor_skip_ws(j->cur);
    if (!rf__cursor_expect(j->cur, '}')) {
        for (;;) {
            rf__cursor_skip_ws(j->cur);
            RF_TRY(js_member(j, seen));
            rf__cursor_skip_ws(j->cur);
            if (rf__cursor_expect(j->cur, ',')) continue;
            if (rf__cursor_expect(j->cur, '}')) break;
            return rf__error(j->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(j->cur),
                             "expected ',' or '}' in the top-level object, found %s",
                             js_found(j, found, sizeof found));
        }
    }
    if (!seen[0])
        return rf__error(j->ctx, RF_FORMAT, (int64_t)open,
                         "no operations: the top-level object has no 'ops' key");
    return RF_OK;
}

rf_status rf__ops_parse_json(rf_ctx *ctx, rf__cursor *cur, rf__ops_sink *sink)
{
    js j = {ctx, cur, sink, 0};
    char found[16];
    rf__cursor_skip_ws(cur);
    int b = rf__cursor_peek(cur);
    if (b < 0)
        return rf__error(ctx, RF_FORMAT, (int64_t)rf__cursor_offset(cur),
                         "no operations: the input is empty");
    if (b != '[' && b != '{')
        return rf__error(ctx, RF_FORMAT, (int64_t)rf__cursor_offset(cur),
                         "expected a JSON array or object, found %s",
                         js_found(&j, found, sizeof found));
    RF_TRY(b == '[' ? js_array(&j) : js_object(&j));
    rf__cursor_skip_ws(cur);
    if (!rf__cursor_eof(cur))
        return rf__error(ctx, RF_FORMAT, (int64_t)rf__cursor_offset(cur),
                         "trailing data after the JSON %s at byte %zu",
                         b == '[' ? "array" : "object", rf__cursor_offset(cur));
    return RF_OK;
}
