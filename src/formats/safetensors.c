/* safetensors.c — the SafeTensors parser over (data, size) (include/roofline/safetensors.h;
 * huggingface/safetensors README "Format", reference/formats.md 5b): the u64 little-endian header
 * length (<= 100 MB and inside the file), the JSON header through jansson (duplicates refused),
 * dtypes, shapes, data_offsets (each inside the buffer, size = elements x bits / 8, sorted they
 * tile the buffer exactly) and `__metadata__` (string to string). Never reads tensor data. Files,
 * indexes of shards and lookups: safetensors_open.c. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_int.h"
#include "core/json_scan.h"
#include "formats/safetensors_int.h"

typedef struct st_dt {
    const char *name;
    rf_dtype dtype;
    uint8_t bits;
} st_dt;

static const st_dt st_dtypes[] = {
    {"BOOL", RF_DTYPE_BOOL, 8},
    {"U8", RF_DTYPE_U8, 8},
    {"I8", RF_DTYPE_I8, 8},
    {"F8_E5M2", RF_DTYPE_F8_E5M2, 8},
    {"F8_E4M3", RF_DTYPE_F8_E4M3, 8},
    {"F8_E8M0", RF_DTYPE_F8_E8M0, 8},
    {"F8_E4M3FNUZ", RF_DTYPE_F8_E4M3FNUZ, 8},
    {"F8_E5M2FNUZ", RF_DTYPE_F8_E5M2FNUZ, 8},
    {"I16", RF_DTYPE_I16, 16},
    {"U16", RF_DTYPE_U16, 16},
    {"F16", RF_DTYPE_F16, 16},
    {"BF16", RF_DTYPE_BF16, 16},
    {"I32", RF_DTYPE_I32, 32},
    {"U32", RF_DTYPE_U32, 32},
    {"F32", RF_DTYPE_F32, 32},
    {"F64", RF_DTYPE_F64, 64},
    {"I64", RF_DTYPE_I64, 64},
    {"U64", RF_DTYPE_U64, 64},
    {"C64", RF_DTYPE_C64, 64},
    {"F4", RF_DTYPE_F4_E2M1, 4},
    {"F6_E2M3", RF_DTYPE_F6_E2M3, 6},
    {"F6_E3M2", RF_DTYPE_F6_E3M2, 6},
};

/* Byte offset of the quoted key `name` in the header (for messages), or of the header start. */
static int64_t st_where(const st_parse *p, const char *name)
{
    size_t n = strlen(name);
    const char *h = (const char *)p->base + 8;
    for (size_t i = 0; n + 2 <= p->header_len && i + n + 2 <= p->header_len; i++)
        if (h[i] == '"' && memcmp(h + i + 1, name, n) == 0 && h[i + 1 + n] == '"')
            return (int64_t)(8 + i);
    return 8;
}

static rf_status st_bad_code(const st_parse *p, rf_status code, const char *name, const char *fmt,
                             const char *detail)
{
    char ex[96];
    int64_t at = st_where(p, name);
    return rf__error(p->ctx, code, at, "SafeTensors tensor '%s' at header byte %lld: %s%s",
                     rf__excerpt(ex, sizeof ex, name, strlen(name), 64), (long long)at, fmt,
                     detail ? detail : "");
}

static rf_status st_bad(const st_parse *p, const char *name, const char *fmt, const char *detail)
{
    return st_bad_code(p, RF_FORMAT, name, fmt, detail);
}

/* A non-negative JSON integer. */
static int st_uint(json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0) return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* dtype, shape, data_offsets of one entry; sizes overflow-checked. */
static rf_status st_entry(st_parse *p, const char *name, json_t *e, rf_st_tensor *t)
{
    if (!json_is_object(e)) return st_bad(p, name, "the entry is not an object", NULL);
    json_t *dt = json_object_get(e, "dtype"), *sh = json_object_get(e, "shape"),
           *off = json_object_get(e, "data_offsets");
    if (!json_is_string(dt) || !json_is_array(sh) || !json_is_array(off) ||
        json_array_size(off) != 2)
        return st_bad(p, name,
                      "needs \"dtype\" (string), \"shape\" (array) and \"data_offsets\" "
                      "([begin, end])",
                      NULL);
    const st_dt *d = NULL;
    for (size_t i = 0; i < sizeof st_dtypes / sizeof *st_dtypes; i++)
        if (strcmp(st_dtypes[i].name, json_string_value(dt)) == 0) d = &st_dtypes[i];
    if (!d) {
        char ex[48];
        return st_bad_code(
            p, RF_UNSUPPORTED, name, "unknown dtype ",
            rf__excerpt(ex, sizeof ex, json_string_value(dt), json_string_length(dt), 24));
    }
    t->dtype = d->dtype;
    t->bits = d->bits;
    if (json_array_size(sh) > RF_GRAPH_MAX_RANK) {
        return st_bad_code(p, RF_UNSUPPORTED, name, "rank above 8", NULL);
    }
    t->rank = (uint32_t)json_array_size(sh);
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (!st_uint(json_array_get(sh, i), &t->shape[i]))
            return st_bad(p, name, "a shape entry is not a non-negative integer", NULL);
        if (!rf__mul_ok(n, t->shape[i], &n)) {
            return st_bad_code(p, RF_RANGE, name, "the product of its shape overflows", NULL);
        }
    }
    t->n_elements = n;
    uint64_t bits;
    if (!rf__mul_ok(n, d->bits, &bits)) {
        return st_bad_code(p, RF_RANGE, name, "its byte size overflows", NULL);
    }
    if (bits % 8 != 0) return st_bad(p, name, "its elements do not fill whole bytes", NULL);
    t->n_bytes = bits / 8;
    if (!st_uint(json_array_get(off, 0), &t->begin) || !st_uint(json_array_get(off, 1), &t->end))
        return st_bad(p, name, "data_offsets are not non-negative integers", NULL);
    if (t->begin > t->end || t->end > p->data_size)
        return st_bad(p, name, "data_offsets are outside the data buffer", NULL);
    if (t->end - t->begin != t->n_bytes)
        return st_bad(p, name, "data_offsets do not span elements x dtype size", NULL);
    t->file_offset = p->data_start + t->begin;
    return RF_OK;
}

static rf_status st_metadata(st_parse *p, json_t *m, rf_safetensors *st)
{
    if (!json_is_object(m))
        return rf__error(p->ctx, RF_FORMAT, st_where(p, "__metadata__"),
                         "SafeTensors __metadata__ is not an object");
    size_t n = json_object_size(m), i = 0;
    rf_st_meta *meta = rf__calloc(p->ctx, n ? n : 1, sizeof *meta);
    if (!meta) return RF_NOMEM_ERR(p->ctx);
    p->priv->meta = meta;
    const char *k;
    json_t *v;
    json_object_foreach(m, k, v)
    {
        if (!json_is_string(v))
            return rf__error(p->ctx, RF_FORMAT, st_where(p, k),
                             "SafeTensors __metadata__ value of a key is not a string");
        meta[i].key = rf__strdup(p->ctx, k);
        meta[i].value = rf__strdup(p->ctx, json_string_value(v));
        st->n_meta = ++i;
        if (!meta[i - 1].key || !meta[i - 1].value) return RF_NOMEM_ERR(p->ctx);
    }
    st->meta = meta;
    return RF_OK;
}

static int st_by_begin(const void *a, const void *b)
{
    const rf_st_tensor *x = *(const rf_st_tensor *const *)a, *y = *(const rf_st_tensor *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Sorted by offset, the tensors tile [0, data_size) with no hole and no overlap. */
static rf_status st_tiling(st_parse *p, rf_safetensors *st)
{
    uint64_t n = st->n_tensors, at = 0;
    const rf_st_tensor **o = rf__malloc(p->ctx, (n ? n : 1) * sizeof *o);
    if (!o) return RF_NOMEM_ERR(p->ctx);
    for (uint64_t i = 0; i < n; i++) o[i] = &p->priv->tensors[i];
    if (n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(o, n, sizeof *o, st_by_begin);
    rf_status s = RF_OK;
    for (uint64_t i = 0; i < n && s == RF_OK; i++) {
        if (o[i]->begin != at)
            s = st_bad(p, o[i]->name,
                       o[i]->begin < at ? "its data overlaps another tensor"
                                        : "a hole in the data buffer before it",
                       NULL);
        at = o[i]->end;
    }
    if (s == RF_OK && at != p->data_size)
        s = rf__error(p->ctx, RF_FORMAT, (int64_t)(p->data_start + at),
                      "SafeTensors data buffer not fully covered: tensors end at byte %llu, the "
                      "file at byte %llu",
                      (unsigned long long)(p->data_start + at),
                      (unsigned long long)(p->data_start + p->data_size));
    rf__free(p->ctx, o);
    return s;
}

/* The header length, and the JSON object's bytes scanned against the limits (core/json_scan.h). */
static rf_status st_header(st_parse *p, size_t size)
{
    if (size < 8)
        return rf__error(p->ctx, RF_FORMAT, 0,
                         "SafeTensors truncated: the 8-byte header length at byte 0 needs 8 bytes, "
                         "%zu present",
                         size);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | p->base[i];
    if (n > RF_ST_MAX_HEADER || n > size - 8)
        return rf__error(p->ctx, RF_FORMAT, 0,
                         "SafeTensors header length %llu at byte 0 is larger than %s (%llu bytes)",
                         (unsigned long long)n,
                         n > RF_ST_MAX_HEADER ? "the 100 MB limit" : "the file",
                         (unsigned long long)(n > RF_ST_MAX_HEADER ? RF_ST_MAX_HEADER : size - 8));
    p->header_len = (size_t)n;
    p->data_start = 8 + n;
    p->data_size = size - 8 - n;
    if (n == 0 || p->base[8] != '{')
        return rf__error(p->ctx, RF_FORMAT, 8,
                         "SafeTensors header at byte 8 does not start with '{'");
    /* What jansson may build (core/json_scan.h): an entry is its key, dtype, shape (rank <= 8)
     * and data_offsets, about 18 values; __metadata__ holds string pairs. */
    static const rf__json_limits lim = {.max_depth = 3,
                                        .max_string = 1 << 20,
                                        .per_item = 32,
                                        .special_item_key = "__metadata__",
                                        .special_item = 1 << 16,
                                        .outside = 1,
                                        .items_are_containers = 1};
    if (rf__json_scan(p->ctx, p->base + 8, (size_t)n, &lim) != RF_OK) {
        char msg[256];
        rf__strlcpy(msg, rf_ctx_errmsg(p->ctx), sizeof msg);
        return rf__error(p->ctx, rf_ctx_error_status(p->ctx), 8,
                         "SafeTensors header JSON (from byte 8) %s", msg);
    }
    return RF_OK;
}

/* The header's members are decoded one at a time (core/json_int.h), so a header of a million
 * entries costs one entry's tree beside the tensor table, not a tree of the whole header. */
static rf_status st_parse_all(st_parse *p, rf_safetensors *st)
{
    rf_status s = st_header(p, p->size);
    size_t pos = 8, cap = 0, end = 8 + p->header_len, at = 0, skip_end = 0;
    int meta = 0;
    while (s == RF_OK) {
        json_t *key = NULL, *v = NULL;
        s = rf__json_member_next(p->ctx, p->base, end, &pos, NULL, 1, &key, &v, &at, &skip_end);
        if (s != RF_OK) {
            char msg[256];
            rf__strlcpy(msg, rf_ctx_errmsg(p->ctx), sizeof msg);
            s = rf__error(p->ctx, rf_ctx_error_status(p->ctx), (int64_t)pos,
                          "SafeTensors header JSON %s", msg);
            break;
        }
        if (!key) break;
        const char *k = json_string_value(key);
        if (strcmp(k, "__metadata__") == 0) {
            s = meta++ ? rf__error(p->ctx, RF_FORMAT, (int64_t)pos,
                                   "SafeTensors header has '__metadata__' twice")
                       : st_metadata(p, v, st);
        } else {
            s = rf__grow(p->ctx, (void **)&p->priv->tensors, &cap, st->n_tensors + 1,
                         sizeof *p->priv->tensors);
            rf_st_tensor *t = s == RF_OK ? &p->priv->tensors[st->n_tensors] : NULL;
            if (t) memset(t, 0, sizeof *t);
            if (s == RF_OK) s = st_entry(p, k, v, t);
            if (s == RF_OK && !(t->name = rf__strdup(p->ctx, k))) s = RF_NOMEM_ERR(p->ctx);
            if (s == RF_OK) st->n_tensors++;
        }
        json_decref(key);
        json_decref(v);
    }
    for (size_t k = pos + 1; s == RF_OK && k < end; k++) /* padding after '}': spaces only */
        if (!strchr(" \t\r\n", (char)p->base[k]) || !p->base[k])
            s = rf__error(p->ctx, RF_FORMAT, (int64_t)k,
                          "SafeTensors header JSON at byte %zu: data after the object", k);
    if (s == RF_OK && !p->priv->tensors) { /* no tensors: an empty table, not NULL */
        p->priv->tensors = rf__calloc(p->ctx, 1, sizeof *p->priv->tensors);
        if (!p->priv->tensors) s = RF_NOMEM_ERR(p->ctx);
    }
    if (s == RF_OK) s = st_tiling(p, st);
    return s;
}

rf_status rf_safetensors_parse(rf_ctx *ctx, const void *data, size_t size, rf_safetensors **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_safetensors_parse: bad arguments");
    *out = NULL;
    rf_safetensors *st = rf__calloc(ctx, 1, sizeof *st);
    if (st) st->alloc_ = *rf_ctx_allocator(ctx);
    rf__st_priv *pv = st ? rf__calloc(ctx, 1, sizeof *pv) : NULL;
    if (!pv) {
        rf__free(ctx, st);
        return RF_NOMEM_ERR(ctx);
    }
    st->priv = pv;
    st_parse p = {ctx, data ? data : (const uint8_t *)"", size, 0, 0, 0, pv};
    rf_status s = st_parse_all(&p, st);
    if (s == RF_OK) s = rf__st_index(ctx, st);
    if (s != RF_OK) {
        rf_safetensors_free(st);
        return s;
    }
    st->tensors = pv->tensors;
    st->header_size = p.header_len;
    st->data_start = p.data_start;
    st->data_size = p.data_size;
    st->file_size = st->total_bytes = size;
    st->n_shards = 1;
    for (uint64_t i = 0; i < st->n_tensors; i++) {
        st->params += st->tensors[i].n_elements; /* bytes tile the file: sums fit */
        st->weight_bytes += st->tensors[i].n_bytes;
    }
    *out = st;
    return RF_OK;
}

void rf_safetensors_free(rf_safetensors *st)
{
    if (!st) return;
    rf_allocator al = st->alloc_;
    rf__st_priv *p = st->priv;
    if (p) {
        for (uint64_t i = 0; p->tensors && !p->borrowed_names && i < st->n_tensors; i++)
            rf__free_with(&al, (void *)p->tensors[i].name);
        for (uint64_t i = 0; p->meta && i < st->n_meta && !p->shards; i++) {
            rf__free_with(&al, (void *)p->meta[i].key);
            rf__free_with(&al, (void *)p->meta[i].value);
        }
        if (!p->shards) rf__free_with(&al, p->meta);
        rf__free_with(&al, p->tensors);
        rf__gg_index_free(&al, &p->ix);
        for (uint32_t i = 0; i < p->n_shards; i++) rf_safetensors_free(p->shards[i]);
        rf__free_with(&al, p->shards);
        rf__unmap_file(&p->map);
        rf__free_with(&al, p);
    }
    rf__free_with(&al, st);
}
