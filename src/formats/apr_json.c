/* apr_json.c — the APR metadata's JSON read without materialising it: one pass validates the whole
 * document (RFC 8259 grammar, UTF-8, no control characters in strings, nesting at most 128 deep,
 * top-level keys unique) without allocating, and only the values of the keys the reader wants are
 * handed to jansson. A converter's metadata carries the tokenizer (tens of thousands of strings,
 * megabytes) that a full jansson tree would allocate one by one for nothing. Never prints. */
#include <string.h>

#include "formats/apr_int.h"

#define APR_JSON_DEPTH 128

typedef struct js {
    const uint8_t *s;
    size_t n, i;
} js;

static void js_ws(js *j)
{
    while (j->i < j->n &&
           (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r'))
        j->i++;
}

static int js_hex(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at j->i (on the quote); 1 and past it, or 0 with j->i at the bad byte. */
static int js_string(js *j)
{
    size_t start = ++j->i;
    while (j->i < j->n && j->s[j->i] != '"') {
        uint8_t c = j->s[j->i];
        if (c < 0x20) return 0;
        if (c != '\\') {
            j->i++;
            continue;
        }
        if (j->i + 1 >= j->n) return 0;
        c = j->s[++j->i];
        if (c == 'u') {
            for (int k = 1; k <= 4; k++)
                if (j->i + (size_t)k >= j->n || !js_hex(j->s[j->i + (size_t)k])) return 0;
            j->i += 4;
        } else if (!strchr("\"\\/bfnrt", c) || c == 0) {
            return 0;
        }
        j->i++;
    }
    if (j->i >= j->n) return 0;
    size_t ok = rf__utf8_check(j->s + start, j->i - start);
    if (ok != j->i - start) {
        j->i = start + ok;
        return 0;
    }
    j->i++;
    return 1;
}

static int js_digits(js *j)
{
    size_t s = j->i;
    while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') j->i++;
    return j->i > s;
}

static int js_number(js *j)
{
    if (j->s[j->i] == '-') j->i++;
    if (j->i < j->n && j->s[j->i] == '0')
        j->i++;
    else if (!js_digits(j))
        return 0;
    if (j->i < j->n && j->s[j->i] == '.' && (j->i++, !js_digits(j))) return 0;
    if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
        j->i++;
        if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
        if (!js_digits(j)) return 0;
    }
    return 1;
}

static int js_value(js *j, int depth);

/* Members or elements of an object ('}') or array (']') at j->i (on the opening bracket). */
static int js_container(js *j, int depth, uint8_t close)
{
    if (depth >= APR_JSON_DEPTH) return 0;
    j->i++;
    js_ws(j);
    if (j->i < j->n && j->s[j->i] == close) return ++j->i, 1;
    for (;;) {
        if (close == '}') {
            if (j->i >= j->n || j->s[j->i] != '"' || !js_string(j)) return 0;
            js_ws(j);
            if (j->i >= j->n || j->s[j->i] != ':') return 0;
            j->i++;
        }
        if (!js_value(j, depth + 1)) return 0;
        js_ws(j);
        if (j->i >= j->n) return 0;
        if (j->s[j->i] == close) return ++j->i, 1;
        if (j->s[j->i] != ',') return 0;
        j->i++;
        js_ws(j);
    }
}

static int js_value(js *j, int depth)
{
    js_ws(j);
    if (j->i >= j->n) return 0;
    switch (j->s[j->i]) {
    case '{': return js_container(j, depth, '}');
    case '[': return js_container(j, depth, ']');
    case '"': return js_string(j);
    case 't': return j->n - j->i >= 4 && memcmp(j->s + j->i, "true", 4) == 0 && (j->i += 4);
    case 'f': return j->n - j->i >= 5 && memcmp(j->s + j->i, "false", 5) == 0 && (j->i += 5);
    case 'n': return j->n - j->i >= 4 && memcmp(j->s + j->i, "null", 4) == 0 && (j->i += 4);
    default: return js_number(j);
    }
}

/* The key at k (on its quote) as a NUL-terminated copy into buf, if it has no escapes and fits. */
static int js_key(const uint8_t *k, size_t len, char *buf, size_t cap)
{
    if (len + 1 > cap || memchr(k, '\\', len)) return 0;
    memcpy(buf, k, len);
    buf[len] = '\0';
    return 1;
}

rf_status rf__apr_json_pick(rf__apr_parse *p, const uint8_t *s, uint64_t n, uint64_t at,
                            const char *const *keys, json_t **out)
{
    js j = {s, (size_t)n, 0};
    *out = NULL;
    if (!js_value(&j, 0) || (js_ws(&j), j.i != j.n))
        return RF__APR_BAD(p, at + j.i,
                           "APR metadata at byte %llu is not valid JSON (near byte %llu)",
                           (unsigned long long)at, (unsigned long long)(at + j.i));
    j.i = 0;
    js_ws(&j);
    if (s[j.i] != '{')
        return RF__APR_BAD(p, at, "APR metadata at byte %llu is not a JSON object",
                           (unsigned long long)at);
    json_t *root = json_object();
    if (!root) return RF_NOMEM_ERR(p->ctx);
    /* walk the (valid) top level again: key spans, wanted values to jansson */
    j.i++;
    js_ws(&j);
    char key[64];
    rf_status st = RF_OK;
    while (st == RF_OK && s[j.i] == '"') {
        size_t k0 = j.i + 1;
        js_string(&j);
        size_t klen = j.i - 1 - k0;
        js_ws(&j);
        j.i++; /* ':' */
        js_ws(&j);
        size_t v0 = j.i;
        js_value(&j, 1);
        int wanted = 0;
        if (js_key(s + k0, klen, key, sizeof key))
            for (size_t k = 0; keys[k] && !wanted; k++) wanted = strcmp(keys[k], key) == 0;
        if (wanted && json_object_get(root, key))
            st = RF__APR_BAD(p, at + k0,
                             "APR metadata at byte %llu is not valid JSON: key '%s' "
                             "appears twice",
                             (unsigned long long)at, key);
        if (wanted && st == RF_OK) {
            json_error_t err;
            json_t *v = json_loadb((const char *)s + v0, j.i - v0,
                                   JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
            if (!v || json_object_set_new(root, key, v) != 0)
                st = v ? RF_NOMEM_ERR(p->ctx)
                       : RF__APR_BAD(p, at + v0,
                                     "APR metadata at byte %llu: the value of '%s' is "
                                     "not valid JSON",
                                     (unsigned long long)at, key);
        }
        js_ws(&j);
        if (s[j.i] == ',') j.i++;
        js_ws(&j);
    }
    if (st != RF_OK) {
        json_decref(root);
        return st;
    }
    *out = root;
    return RF_OK;
}
