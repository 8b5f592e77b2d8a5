/* gguf.c — the GGUF parser over (data, size) (include/roofline/gguf.h; ggml docs/gguf.md and
 * reference/formats.md section 5a): magic, version (2/3; v1 refused; a byte-swapped version means
 * a big-endian file), key/values of every type, tensor infos, alignment, and the data-section
 * checks (each tensor inside the image, aligned, no overlap). Never reads tensor data. The file
 * and split-set wrappers, lookups and name indexes live in gguf_open.c and gguf_index.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gguf_int.h"

#define GG_MAX_DEPTH 8        /* nested arrays */
#define GG_MAX_KEY 65535      /* bytes, spec */
#define GG_MAX_TENSOR_NAME 64 /* bytes, spec (ggml itself allows 63) */
#define GG_DEFAULT_ALIGN 32
#define GG_MAX_TENSORS ((uint64_t)1 << 20) /* plausibility bound, checked before allocating */
#define GG_MAX_KV ((uint64_t)1 << 16)

static const uint8_t gg_size_of[RF_GGUF_VTYPE_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

static rf_status gg_trunc(rf__gg *r, uint64_t need, const char *what)
{
    if (!r->ctx) return RF_FORMAT;
    return rf__error(r->ctx, RF_FORMAT, (int64_t)r->pos,
                     "GGUF truncated: %s at byte %llu needs %llu bytes, %llu left", what,
                     (unsigned long long)r->pos, (unsigned long long)need,
                     (unsigned long long)(r->size - r->pos));
}

/* Read n (1, 2, 4 or 8) bytes as an unsigned integer in the file's byte order. */
static rf_status gg_uint(rf__gg *r, unsigned n, uint64_t *out, const char *what)
{
    *out = 0;
    if (r->size - r->pos < n) return gg_trunc(r, n, what);
    const uint8_t *p = r->base + r->pos;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v |= (uint64_t)p[r->be ? n - 1 - i : i] << (8 * i);
    r->pos += n;
    *out = v;
    return RF_OK;
}

static rf_status gg_u32(rf__gg *r, uint32_t *out, const char *what)
{
    uint64_t v = 0;
    *out = 0;
    RF_TRY(gg_uint(r, 4, &v, what));
    *out = (uint32_t)v;
    return RF_OK;
}

/* A gguf string: u64 length + bytes (no NUL), borrowed. */
static rf_status gg_str(rf__gg *r, rf_gguf_str *out, const char *what)
{
    uint64_t len = 0, at = r->pos;
    RF_TRY(gg_uint(r, 8, &len, what));
    if (len > r->size - r->pos) {
        if (!r->ctx) return RF_FORMAT;
        return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                         "GGUF %s at byte %llu: string length %llu runs past the end of the file "
                         "(%llu bytes left)",
                         what, (unsigned long long)at, (unsigned long long)len,
                         (unsigned long long)(r->size - r->pos));
    }
    out->ptr = (const char *)r->base + r->pos;
    out->len = len;
    r->pos += len;
    return RF_OK;
}

static int64_t gg_sext(uint64_t v, unsigned n)
{
    if (n == 8) return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (8 * n - 1);
    return (int64_t)((v ^ sign) - sign);
}

/* Elements of an array: fixed-size types are skipped in one step, strings and nested arrays are
 * walked (validated) without being stored. */
static rf_status gg_array(rf__gg *r, rf_gguf_value *out, int depth, const char *what)
{
    uint32_t et = 0;
    uint64_t count = 0, at = r->pos;
    RF_TRY(gg_u32(r, &et, what));
    RF_TRY(gg_uint(r, 8, &count, what));
    if (et >= RF_GGUF_VTYPE_COUNT || (et == RF_GGUF_ARRAY && depth + 1 >= GG_MAX_DEPTH)) {
        if (!r->ctx) return RF_FORMAT;
        return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                         et >= RF_GGUF_VTYPE_COUNT
                             ? "GGUF %s at byte %llu: unknown array element type %u"
                             : "GGUF %s at byte %llu: arrays nested deeper than 8 (type %u)",
                         what, (unsigned long long)at, et);
    }
    out->arr_type = (rf_gguf_vtype)et;
    out->arr_count = count;
    out->arr_offset = r->pos;
    uint64_t left = r->size - r->pos, min = et == RF_GGUF_STRING  ? 8
                                            : et == RF_GGUF_ARRAY ? 12
                                                                  : gg_size_of[et];
    if (count > left / min) {
        if (!r->ctx) return RF_FORMAT;
        return rf__error(
            r->ctx, RF_FORMAT, (int64_t)at,
            "GGUF %s at byte %llu: array of %llu %s elements needs at least %llu bytes "
            "per element, only %llu bytes left",
            what, (unsigned long long)at, (unsigned long long)count, rf_gguf_vtype_name(et),
            (unsigned long long)min, (unsigned long long)left);
    }
    if (et == RF_GGUF_STRING || et == RF_GGUF_ARRAY || et == RF_GGUF_BOOL) {
        rf_gguf_value e;
        for (uint64_t i = 0; i < count; i++) RF_TRY(rf__gg_value(r, et, &e, depth + 1, what));
    } else {
        r->pos += count * min; /* count <= left / min: no overflow, inside the image */
    }
    out->arr_bytes = r->pos - out->arr_offset;
    return RF_OK;
}

rf_status rf__gg_value(rf__gg *r, uint32_t type, rf_gguf_value *out, int depth, const char *what)
{
    memset(out, 0, sizeof *out);
    out->type = (rf_gguf_vtype)type;
    uint64_t at = r->pos, v = 0;
    switch (type) {
    case RF_GGUF_STRING: return gg_str(r, &out->v.s, what);
    case RF_GGUF_ARRAY: return gg_array(r, out, depth, what);
    case RF_GGUF_F32: {
        RF_TRY(gg_uint(r, 4, &v, what));
        float f;
        uint32_t b = (uint32_t)v;
        memcpy(&f, &b, 4);
        out->v.f = f;
        return RF_OK;
    }
    case RF_GGUF_F64:
        RF_TRY(gg_uint(r, 8, &v, what));
        memcpy(&out->v.f, &v, 8);
        return RF_OK;
    case RF_GGUF_I8:
    case RF_GGUF_I16:
    case RF_GGUF_I32:
    case RF_GGUF_I64:
        RF_TRY(gg_uint(r, gg_size_of[type], &v, what));
        out->v.i = gg_sext(v, gg_size_of[type]);
        return RF_OK;
    case RF_GGUF_U8:
    case RF_GGUF_U16:
    case RF_GGUF_U32:
    case RF_GGUF_U64:
    case RF_GGUF_BOOL:
        RF_TRY(gg_uint(r, gg_size_of[type], &v, what));
        if (type == RF_GGUF_BOOL && v > 1) {
            if (!r->ctx) return RF_FORMAT;
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF %s at byte %llu: BOOL value %llu is neither 0 nor 1", what,
                             (unsigned long long)at, (unsigned long long)v);
        }
        out->v.u = v;
        return RF_OK;
    default:
        if (!r->ctx) return RF_FORMAT;
        return rf__error(r->ctx, RF_FORMAT, (int64_t)at - 4,
                         "GGUF %s at byte %llu: unknown value type %u", what,
                         (unsigned long long)(at - 4), type);
    }
}

/* Magic and version; detects a big-endian file by its byte-swapped version. */
static rf_status gg_header(rf__gg *r)
{
    if (r->size < 4 || memcmp(r->base, "GGUF", 4) != 0)
        return rf__error(r->ctx, RF_FORMAT, 0,
                         "not a GGUF file: the magic at byte 0 is not 'GGUF'");
    r->pos = 4;
    uint32_t v = 0;
    RF_TRY(gg_u32(r, &v, "version"));
    uint32_t sw = (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
    if (v == 0 || v > 3) {
        if (sw >= 1 && sw <= 3) {
            r->be = 1;
            v = sw;
        } else {
            return rf__error(r->ctx, RF_UNSUPPORTED, 4,
                             "GGUF version %u at byte 4 is not supported (only 2 and 3)", v);
        }
    }
    if (v == 1)
        return rf__error(r->ctx, RF_UNSUPPORTED, 4,
                         "GGUF version 1 at byte 4 is no longer supported (32-bit counts); "
                         "convert the file with a current llama.cpp");
    r->version = v;
    return RF_OK;
}

/* Key/values: each key once, general.alignment a power-of-two UINT32. */
static rf_status gg_kvs(rf__gg *r, rf__gguf_priv *p, uint64_t n_kv, uint32_t *align)
{
    char what[160], name[96];
    RF_TRY(rf__gg_index_init(r->ctx, &p->kv_ix, n_kv));
    for (uint64_t i = 0; i < n_kv; i++) {
        rf_gguf_kv *kv = &p->kv[i];
        kv->offset = r->pos;
        snprintf(what, sizeof what, "key #%llu", (unsigned long long)i);
        RF_TRY(gg_str(r, &kv->key, what));
        rf__gg_name(name, sizeof name, kv->key);
        if (kv->key.len == 0 || kv->key.len > GG_MAX_KEY)
            return rf__error(r->ctx, RF_FORMAT, (int64_t)kv->offset,
                             "GGUF key #%llu at byte %llu: key length %llu is not in 1..65535",
                             (unsigned long long)i, (unsigned long long)kv->offset,
                             (unsigned long long)kv->key.len);
        if (rf__gg_index_put(&p->kv_ix, kv->key, i, rf__gg_kv_name, p->kv))
            return rf__error(r->ctx, RF_FORMAT, (int64_t)kv->offset,
                             "GGUF key '%s' at byte %llu appears twice", name,
                             (unsigned long long)kv->offset);
        snprintf(what, sizeof what, "key '%s'", name);
        uint32_t type = 0;
        RF_TRY(gg_u32(r, &type, what));
        RF_TRY(rf__gg_value(r, type, &kv->value, 0, what));
        if (kv->key.len == 17 && memcmp(kv->key.ptr, "general.alignment", 17) == 0) {
            uint64_t a = kv->value.v.u;
            if (type != RF_GGUF_U32 || a == 0 || (a & (a - 1)) != 0)
                return rf__error(r->ctx, RF_FORMAT, (int64_t)kv->offset,
                                 "GGUF key 'general.alignment' at byte %llu must be a non-zero "
                                 "power of two of type UINT32 (got %s %llu)",
                                 (unsigned long long)kv->offset, rf_gguf_vtype_name(type),
                                 (unsigned long long)a);
            *align = (uint32_t)a;
        }
    }
    return RF_OK;
}

/* Elements and bytes of one tensor from its dims and type; every step overflow-checked. */
static rf_status gg_tensor_size(rf__gg *r, rf_gguf_tensor *t, uint64_t at, const char *name)
{
    uint32_t blk, bb;
    if (!rf_ggml_type_block(t->type, &blk, &bb))
        return rf__error(r->ctx, RF_UNSUPPORTED, (int64_t)at,
                         "GGUF tensor '%s' at byte %llu: unknown ggml type id %u", name,
                         (unsigned long long)at, t->type);
    uint64_t n = 1;
    for (uint32_t d = 0; d < t->n_dims; d++)
        if (t->dims[d] > INT64_MAX || !rf__mul_ok(n, t->dims[d], &n) || n > INT64_MAX)
            return rf__error(r->ctx, RF_RANGE, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu: the product of its dims overflows",
                             name, (unsigned long long)at);
    if (t->dims[0] % blk != 0)
        return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                         "GGUF tensor '%s' at byte %llu: row length %llu is not a multiple of the "
                         "%s block size %u",
                         name, (unsigned long long)at, (unsigned long long)t->dims[0],
                         rf_ggml_type_name(t->type), blk);
    t->n_elements = n;
    if (!rf__mul_ok(n / blk, bb, &t->n_bytes))
        return rf__error(r->ctx, RF_RANGE, (int64_t)at,
                         "GGUF tensor '%s' at byte %llu: its byte size overflows", name,
                         (unsigned long long)at);
    return RF_OK;
}

/* Tensor infos: name (unique, <= 64 bytes), n_dims <= 4, dims, type, aligned offset. */
static rf_status gg_tensor_infos(rf__gg *r, rf__gguf_priv *p, uint64_t n, uint32_t align)
{
    char what[160], name[96];
    RF_TRY(rf__gg_index_init(r->ctx, &p->t_ix, n));
    for (uint64_t i = 0; i < n; i++) {
        rf_gguf_tensor *t = &p->tensors[i];
        uint64_t at = r->pos;
        snprintf(what, sizeof what, "tensor info #%llu", (unsigned long long)i);
        RF_TRY(gg_str(r, &t->name, what));
        rf__gg_name(name, sizeof name, t->name);
        if (t->name.len > GG_MAX_TENSOR_NAME)
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu: name longer than 64 bytes", name,
                             (unsigned long long)at);
        if (t->name.len && memchr(t->name.ptr, 0, (size_t)t->name.len))
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu: name has a NUL byte", name,
                             (unsigned long long)at);
        if (rf__gg_index_put(&p->t_ix, t->name, i, rf__gg_tensor_name, p->tensors))
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu appears twice", name,
                             (unsigned long long)at);
        snprintf(what, sizeof what, "tensor '%s'", name);
        RF_TRY(gg_u32(r, &t->n_dims, what));
        if (t->n_dims > RF_GGUF_MAX_DIMS)
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu: %u dims (at most 4)", name,
                             (unsigned long long)at, t->n_dims);
        for (uint32_t d = 0; d < RF_GGUF_MAX_DIMS; d++) t->dims[d] = 1;
        for (uint32_t d = 0; d < t->n_dims; d++) RF_TRY(gg_uint(r, 8, &t->dims[d], what));
        RF_TRY(gg_u32(r, &t->type, what));
        RF_TRY(gg_uint(r, 8, &t->offset, what));
        RF_TRY(gg_tensor_size(r, t, at, name));
        if (t->offset % align != 0)
            return rf__error(r->ctx, RF_FORMAT, (int64_t)at,
                             "GGUF tensor '%s' at byte %llu: data offset %llu is not a multiple "
                             "of the alignment %u",
                             name, (unsigned long long)at, (unsigned long long)t->offset, align);
    }
    return RF_OK;
}

static int gg_by_offset(const void *a, const void *b)
{
    const rf_gguf_tensor *x = *(const rf_gguf_tensor *const *)a,
                         *y = *(const rf_gguf_tensor *const *)b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->n_bytes < y->n_bytes ? -1 : x->n_bytes > y->n_bytes;
}

/* Every tensor inside the data section, none overlapping another. */
static rf_status gg_layout(rf__gg *r, rf_gguf *g, rf__gguf_priv *p)
{
    uint64_t pad = (g->alignment - g->tensor_info_end % g->alignment) % g->alignment;
    g->data_offset = g->tensor_info_end + pad; /* tensor_info_end <= size < 2^63: no overflow */
    if (g->n_tensors == 0) return RF_OK;
    if (g->data_offset > r->size)
        return rf__error(r->ctx, RF_FORMAT, (int64_t)r->size,
                         "GGUF data section at byte %llu starts past the end of the file (%llu "
                         "bytes)",
                         (unsigned long long)g->data_offset, (unsigned long long)r->size);
    uint64_t room = r->size - g->data_offset;
    const rf_gguf_tensor **order = rf__malloc(r->ctx, g->n_tensors * sizeof *order);
    if (!order) return RF_NOMEM_ERR(r->ctx);
    for (uint64_t i = 0; i < g->n_tensors; i++) order[i] = &p->tensors[i];
    if (g->n_tensors > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(order, g->n_tensors, sizeof *order, gg_by_offset);
    rf_status st = RF_OK;
    char name[96], other[96];
    for (uint64_t i = 0; i < g->n_tensors && st == RF_OK; i++) {
        const rf_gguf_tensor *t = order[i];
        rf__gg_name(name, sizeof name, t->name);
        if (t->offset > room || t->n_bytes > room - t->offset) {
            st = rf__error(r->ctx, RF_FORMAT, (int64_t)r->size,
                           "GGUF tensor '%s': data [%llu, +%llu) at file byte %llu runs past the "
                           "end of the file (%llu bytes)",
                           name, (unsigned long long)t->offset, (unsigned long long)t->n_bytes,
                           (unsigned long long)(g->data_offset + t->offset),
                           (unsigned long long)r->size);
        } else if (i > 0 && order[i - 1]->offset + order[i - 1]->n_bytes > t->offset) {
            rf__gg_name(other, sizeof other, order[i - 1]->name);
            st = rf__error(r->ctx, RF_FORMAT, (int64_t)(g->data_offset + t->offset),
                           "GGUF tensor '%s' at file byte %llu overlaps tensor '%s'", name,
                           (unsigned long long)(g->data_offset + t->offset), other);
        }
    }
    rf__free(r->ctx, order);
    return st;
}

/* Counts of the header, bounded by the smallest possible size of what they count. */
static rf_status gg_counts(rf__gg *r, uint64_t *n_tensors, uint64_t *n_kv)
{
    RF_TRY(gg_uint(r, 8, n_tensors, "tensor count"));
    RF_TRY(gg_uint(r, 8, n_kv, "key/value count"));
    uint64_t left = r->size - r->pos;
    if (*n_kv > left / 13 || *n_tensors > left / 24)
        return rf__error(r->ctx, RF_FORMAT, *n_kv > left / 13 ? 16 : 8,
                         "GGUF %s %llu at byte %d cannot fit in the %llu bytes left",
                         *n_kv > left / 13 ? "key/value count" : "tensor count",
                         (unsigned long long)(*n_kv > left / 13 ? *n_kv : *n_tensors),
                         *n_kv > left / 13 ? 16 : 8, (unsigned long long)left);
    /* Plausibility before any allocation: a sparse file can make the bound above reach 4 TB of
     * tensor records. The largest published models hold tens of thousands of tensors (a
     * 256-expert MoE: ~50k) and well under a thousand keys. */
    if (*n_tensors > GG_MAX_TENSORS || *n_kv > GG_MAX_KV)
        return rf__error(
            r->ctx, RF_FORMAT, *n_tensors > GG_MAX_TENSORS ? 8 : 16,
            "GGUF %s %llu at byte %d is implausible (at most %llu)",
            *n_tensors > GG_MAX_TENSORS ? "tensor count" : "key/value count",
            (unsigned long long)(*n_tensors > GG_MAX_TENSORS ? *n_tensors : *n_kv),
            *n_tensors > GG_MAX_TENSORS ? 8 : 16,
            (unsigned long long)(*n_tensors > GG_MAX_TENSORS ? GG_MAX_TENSORS : GG_MAX_KV));
    return RF_OK;
}

static rf_status gg_parse(rf__gg *r, rf_gguf *g, rf__gguf_priv *p)
{
    RF_TRY(gg_header(r));
    uint64_t nt = 0, nkv = 0;
    RF_TRY(gg_counts(r, &nt, &nkv));
    p->kv = rf__calloc(r->ctx, nkv ? nkv : 1, sizeof *p->kv);
    p->tensors = rf__calloc(r->ctx, nt ? nt : 1, sizeof *p->tensors);
    if (!p->kv || !p->tensors) return RF_NOMEM_ERR(r->ctx);
    g->kv = p->kv;
    g->tensors = p->tensors;
    g->version = r->version;
    g->big_endian = r->be;
    g->alignment = GG_DEFAULT_ALIGN;
    RF_TRY(gg_kvs(r, p, nkv, &g->alignment));
    g->n_kv = nkv;
    g->kv_end = r->pos;
    RF_TRY(gg_tensor_infos(r, p, nt, g->alignment));
    g->n_tensors = nt;
    g->tensor_info_end = r->pos;
    RF_TRY(gg_layout(r, g, p));
    for (uint64_t i = 0; i < nt; i++) {
        p->tensors[i].file_offset = g->data_offset + p->tensors[i].offset;
        g->params += p->tensors[i].n_elements; /* each < 2^63 and bytes <= file: sums fit */
        g->weight_bytes += p->tensors[i].n_bytes;
    }
    return RF_OK;
}

rf_status rf_gguf_parse(rf_ctx *ctx, const void *data, size_t size, rf_gguf **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_gguf_parse: bad arguments");
    *out = NULL;
    rf_gguf *g = rf__calloc(ctx, 1, sizeof *g);
    if (g) g->alloc_ = *rf_ctx_allocator(ctx);
    rf__gguf_priv *p = rf__calloc(ctx, 1, sizeof *p);
    if (!g || !p) {
        rf__free(ctx, g);
        rf__free(ctx, p);
        return RF_NOMEM_ERR(ctx);
    }
    g->priv = p;
    rf__gg r = {ctx, data ? data : (const uint8_t *)"", size, 0, 0, 0};
    rf_status st = size > INT64_MAX ? rf__error(ctx, RF_RANGE, -1, "GGUF image too large")
                                    : gg_parse(&r, g, p);
    if (st != RF_OK) {
        rf_gguf_free(g);
        return st;
    }
    p->data = r.base;
    p->size = size;
    p->be = r.be;
    p->version = r.version;
    g->file_size = g->total_bytes = size;
    g->n_shards = 1;
    *out = g;
    return RF_OK;
}

void rf_gguf_free(rf_gguf *g)
{
    if (!g) return;
    rf_allocator al = g->alloc_;
    rf__gguf_priv *p = g->priv;
    if (p) {
        for (uint32_t i = 0; i < p->n_shard_parsed; i++) rf_gguf_free(p->shards[i]);
        rf__free_with(&al, p->shards);
        rf__free_with(&al, p->kv);
        rf__free_with(&al, p->tensors);
        if (!p->shards) rf__gg_index_free(&al, &p->kv_ix); /* else shards[0]'s, shared */
        rf__gg_index_free(&al, &p->t_ix);
        for (uint32_t i = 0; i < p->n_maps; i++) rf__unmap_file(&p->maps[i]);
        rf__free_with(&al, p->maps);
        rf__free_with(&al, p);
    }
    rf__free_with(&al, g);
}
