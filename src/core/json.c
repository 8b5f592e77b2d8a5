/* json.c — strict whole-document JSON reading and typed getters (json_int.h), so every reader
 * refuses the same things with the same words: duplicate keys, unknown keys, wrong types, strings
 * too long for their field, non-finite numbers. */
#include <math.h>
#include <string.h>

#include "json_int.h"

rf_status rf__json_load(rf_ctx *ctx, const void *data, size_t size, json_t **root)
{
    const char *s = data;
    size_t k = 0;
    *root = NULL;
    while (k < size && s[k] && strchr(" \t\r\n", s[k])) k++;
    RF_CHECK(ctx, k < size, RF_FORMAT, "empty input (expected a JSON object)");
    json_error_t e;
    json_t *r = json_loadb(data, size, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &e);
    if (!r) {
        enum json_error_code code = json_error_code(&e);
        /* jansson can fail on memory without a message ("line -1, column -1:"): say what it was */
        if (code == json_error_out_of_memory || !e.text[0])
            return rf__error(ctx, RF_NOMEM, -1,
                             "out of memory while reading the JSON document (%zu bytes)", size);
        rf_status st = code == json_error_numeric_overflow ? RF_RANGE : RF_FORMAT;
        /* jansson quotes the input near the error: keep the message one printable line. */
        for (char *p = e.text; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
        return rf__error(ctx, st, e.position, "line %d, column %d: %s", e.line, e.column, e.text);
    }
    if (!json_is_object(r)) {
        rf_status st =
            rf__error(ctx, RF_FORMAT, (int64_t)k, "top level: expected a JSON object, got %s",
                      rf__json_type_name(r));
        json_decref(r);
        return st;
    }
    *root = r;
    return RF_OK;
}

static size_t rf__ws(const char *s, size_t k, size_t n)
{
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n')) k++;
    return k;
}

/* jansson's error for the value that starts at byte `at`, as rf__json_load words it. */
static rf_status rf__json_err(rf_ctx *ctx, json_error_t *e, size_t at)
{
    enum json_error_code code = json_error_code(e);
    if (code == json_error_out_of_memory || !e->text[0])
        return rf__error(ctx, RF_NOMEM, (int64_t)at,
                         "out of memory while reading the JSON value "
                         "at byte %zu",
                         at);
    for (char *p = e->text; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
    size_t pos = at + (e->position > 0 ? (size_t)e->position : 0);
    return rf__error(ctx, code == json_error_numeric_overflow ? RF_RANGE : RF_FORMAT, (int64_t)pos,
                     "at byte %zu: %s", pos, e->text);
}

/* Decode the one value at data[*k..n) and move *k past it. */
static rf_status rf__json_one(rf_ctx *ctx, const char *s, size_t *k, size_t n, json_t **out,
                              int ints)
{
    json_error_t e;
    size_t left = n - *k, len = left > INT32_MAX ? INT32_MAX : left; /* positions are ints */
    *out = json_loadb(s + *k, len,
                      JSON_REJECT_DUPLICATES | (ints ? 0 : JSON_DECODE_INT_AS_REAL) |
                          JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK,
                      &e);
    if (!*out) return rf__json_err(ctx, &e, *k);
    *k += e.position > 0 ? (size_t)e.position : 0;
    return RF_OK;
}

/* Skip the array at data[*k] ('[' there), strings and nesting respected; RF_FORMAT when the
 * input ends first. */
static rf_status rf__json_skip_array(rf_ctx *ctx, const char *s, size_t *k, size_t n)
{
    size_t at = *k, depth = 0;
    for (size_t i = *k; i < n; i++) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
            continue;
        }
        if (c == '[' || c == '{') depth++;
        if ((c == ']' || c == '}') && --depth == 0) {
            *k = i + 1;
            return RF_OK;
        }
    }
    return rf__error(ctx, RF_FORMAT, (int64_t)at, "at byte %zu: the array never ends", at);
}

rf_status rf__json_member_next(rf_ctx *ctx, const void *data, size_t size, size_t *pos,
                               const char *skip_key, int ints, json_t **key, json_t **val,
                               size_t *skip_at, size_t *skip_end)
{
    const char *s = data;
    size_t k = *pos; /* at the '{' first, then at the ',' or '}' after a member */
    *key = *val = NULL;
    RF_CHECK(ctx, k < size, RF_FORMAT, "at byte %zu: the object never ends", k);
    if (s[k] == '}') return RF_OK;
    int start = s[k] == '{';
    k = rf__ws(s, k + 1, size);
    if (start && k < size && s[k] == '}') {
        *pos = k;
        return RF_OK;
    }
    RF_CHECK(ctx, k < size && s[k] == '"', RF_FORMAT, "at byte %zu: expected a key", k);
    RF_TRY(rf__json_one(ctx, s, &k, size, key, 0));
    k = rf__ws(s, k, size);
    rf_status st = RF_OK;
    if (k >= size || s[k] != ':') {
        st = rf__error(ctx, RF_FORMAT, (int64_t)k, "at byte %zu: expected ':'", k);
    } else {
        k = rf__ws(s, k + 1, size);
        if (skip_key && strcmp(json_string_value(*key), skip_key) == 0) {
            if (k >= size || s[k] != '[')
                st = rf__error(ctx, RF_FORMAT, (int64_t)k, "top level: '%s' must be an array",
                               skip_key);
            *skip_at = k;
            if (st == RF_OK) st = rf__json_skip_array(ctx, s, &k, size);
            *skip_end = k;
        } else {
            st = rf__json_one(ctx, s, &k, size, val, ints);
        }
    }
    k = rf__ws(s, k, size);
    if (st == RF_OK && (k >= size || (s[k] != ',' && s[k] != '}')))
        st = rf__error(ctx, RF_FORMAT, (int64_t)k, "at byte %zu: expected ',' or '}'", k);
    if (st != RF_OK) {
        json_decref(*key);
        json_decref(*val);
        *key = *val = NULL;
        return st;
    }
    *pos = k;
    return RF_OK;
}

rf_status rf__json_load_bulk(rf_ctx *ctx, const void *data, size_t size, const char *bulk_key,
                             json_t **head, size_t *bulk_at, size_t *bulk_end)
{
    const char *s = data;
    *head = NULL;
    *bulk_at = *bulk_end = 0;
    size_t k = rf__ws(s, 0, size);
    RF_CHECK(ctx, k < size, RF_FORMAT, "empty input (expected a JSON object)");
    RF_CHECK(ctx, s[k] == '{', RF_FORMAT, "top level: expected a JSON object");
    json_t *h = json_object(), *key, *v;
    if (!h) return RF_NOMEM_ERR(ctx);
    rf_status st;
    size_t at = 0, end = 0;
    while ((st = rf__json_member_next(ctx, s, size, &k, bulk_key, 0, &key, &v, &at, &end)) ==
               RF_OK &&
           key) {
        const char *name = json_string_value(key);
        if (json_object_get(h, name) || (!v && *bulk_end))
            st = rf__error(ctx, RF_FORMAT, (int64_t)k, "top level: duplicate key '%s'", name);
        else if (!v)
            *bulk_at = at, *bulk_end = end;
        else if (json_object_set_new(h, name, v) != 0)
            st = RF_NOMEM_ERR(ctx);
        else
            v = NULL;
        json_decref(key);
        json_decref(v);
        if (st != RF_OK) break;
    }
    if (st == RF_OK && rf__ws(s, k + 1, size) != size)
        st = rf__error(ctx, RF_FORMAT, (int64_t)k + 1, "at byte %zu: data after the JSON object",
                       k + 1);
    if (st != RF_OK) {
        json_decref(h);
        return st;
    }
    *head = h;
    return RF_OK;
}

rf_status rf__json_bulk_next(rf_ctx *ctx, const void *data, size_t *pos, size_t end, json_t **elem)
{
    const char *s = data;
    size_t k = *pos; /* at the '[' first, then at the ',' or ']' after an element */
    *elem = NULL;
    RF_CHECK(ctx, k < end, RF_FORMAT, "at byte %zu: the array never ends", k);
    if (s[k] == ']') return RF_OK;
    int start = s[k] == '[';
    k = rf__ws(s, k + 1, end);
    if (start && k < end && s[k] == ']') {
        *pos = k;
        return RF_OK;
    }
    RF_TRY(rf__json_one(ctx, s, &k, end, elem, 0));
    k = rf__ws(s, k, end);
    if (k >= end || (s[k] != ',' && s[k] != ']')) {
        json_decref(*elem);
        *elem = NULL;
        return rf__error(ctx, RF_FORMAT, (int64_t)k, "at byte %zu: expected ',' or ']'", k);
    }
    *pos = k;
    return RF_OK;
}

const char *rf__json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

rf_status rf__json_keys(rf_ctx *ctx, const json_t *obj, const char *const *allowed,
                        const char *where)
{
    RF_CHECK(ctx, json_is_object(obj), RF_FORMAT, "%s: expected an object, got %s", where,
             rf__json_type_name(obj));
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        size_t k = 0;
        while (allowed[k] && strcmp(allowed[k], key) != 0) k++;
        if (allowed[k]) continue;
        /* The key is the file's text: show it printable and short, the message stays one line. */
        char shown[68];
        size_t n = 0;
        for (const char *p = key; *p && n < 64; p++)
            shown[n++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
        shown[n] = '\0';
        return rf__error(ctx, RF_FORMAT, -1, "%s: unknown key '%s'", where, shown);
    }
    return RF_OK;
}

rf_status rf__json_str(rf_ctx *ctx, const json_t *obj, const char *key, const char *where,
                       char *dst, size_t cap, int required)
{
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        RF_CHECK(ctx, !required, RF_FORMAT, "%s: missing '%s'", where, key);
        return RF_OK;
    }
    RF_CHECK(ctx, json_is_string(v), RF_FORMAT, "%s: '%s' must be a string, got %s", where, key,
             rf__json_type_name(v));
    size_t n = json_string_length(v);
    RF_CHECK(ctx, n < cap, RF_RANGE, "%s: '%s' is too long (%zu bytes, at most %zu)", where, key, n,
             cap - 1);
    RF_CHECK(ctx, !memchr(json_string_value(v), '\0', n), RF_FORMAT,
             "%s: '%s' holds a NUL character", where, key);
    RF_CHECK(ctx, n > 0 || !required, RF_FORMAT, "%s: '%s' is empty", where, key);
    memcpy(dst, json_string_value(v), n + 1);
    return RF_OK;
}

rf_status rf__json_num(rf_ctx *ctx, const json_t *obj, const char *key, const char *where,
                       double *out, int *present)
{
    const json_t *v = json_object_get(obj, key);
    if (present) *present = v != NULL;
    if (!v) {
        RF_CHECK(ctx, present, RF_FORMAT, "%s: missing '%s'", where, key);
        return RF_OK;
    }
    RF_CHECK(ctx, json_is_number(v), RF_FORMAT, "%s: '%s' must be a number, got %s", where, key,
             rf__json_type_name(v));
    *out = json_number_value(v);
    RF_CHECK(ctx, isfinite(*out), RF_RANGE, "%s: '%s' is not finite", where, key);
    return RF_OK;
}
