/* gguf_index.c — lookups over a parsed GGUF file: the name indexes (open addressing, FNV-1a),
 * typed key/value getters, on-demand walks of array values, and the ggml type ids mapped onto
 * rf_dtype's true block sizes (ggml-common.h, reference/formats.md 5a). Never parses a header. */
#include <stdio.h>
#include <string.h>

#include "formats/gguf_int.h"
#include "roofline/graph.h"

/* ---- ggml types: the block geometry lives in rf_dtype (roofline/graph.h) ----------------------
 */

int rf_ggml_type_block(uint32_t id, uint32_t *block_elems, uint32_t *block_bytes)
{
    rf_dtype t;
    if (!rf_dtype_from_ggml(id, &t)) return 0;
    if (block_elems) *block_elems = rf_dtype_block_elems(t);
    if (block_bytes) *block_bytes = rf_dtype_block_bytes(t);
    return 1;
}

const char *rf_ggml_type_name(uint32_t id)
{
    rf_dtype t;
    return rf_dtype_from_ggml(id, &t) ? rf_dtype_name(t) : NULL;
}

int rf_ggml_type_from_name(const char *name)
{
    for (uint32_t i = 0; name && i < RF_GGML_TYPE_COUNT; i++) {
        const char *n = rf_ggml_type_name(i);
        if (n && rf__strcasecmp(n, name) == 0) return (int)i;
    }
    return -1;
}

const char *rf_gguf_vtype_name(uint32_t type)
{
    static const char *const names[RF_GGUF_VTYPE_COUNT] = {
        "UINT8", "INT8",   "UINT16", "INT16",  "UINT32", "INT32",  "FLOAT32",
        "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64",  "FLOAT64"};
    return type < RF_GGUF_VTYPE_COUNT ? names[type] : "?";
}

const char *rf__gg_name(char *out, size_t cap, rf_gguf_str s)
{
    return rf__excerpt(out, cap, s.ptr, (size_t)s.len, 64);
}

/* ---- name indexes ---------------------------------------------------------------------------- */

static uint64_t gg_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

rf_status rf__gg_index_init(rf_ctx *ctx, rf__gg_index *ix, uint64_t n)
{
    uint64_t cap = 16;
    while (cap < n * 2) cap *= 2; /* n is bounded by the image size / 13 */
    ix->slots = rf__calloc(ctx, (size_t)cap, sizeof *ix->slots);
    if (!ix->slots) return RF_NOMEM_ERR(ctx);
    ix->cap = cap;
    return RF_OK;
}

void rf__gg_index_free(const rf_allocator *a, rf__gg_index *ix)
{
    rf__free_with(a, ix->slots);
    ix->slots = NULL;
    ix->cap = 0;
}

rf_gguf_str rf__gg_kv_name(const void *user, uint64_t i)
{
    return ((const rf_gguf_kv *)user)[i].key;
}

rf_gguf_str rf__gg_tensor_name(const void *user, uint64_t i)
{
    return ((const rf_gguf_tensor *)user)[i].name;
}

static uint64_t *gg_slot(const rf__gg_index *ix, const char *s, size_t len, rf__gg_name_fn fn,
                         const void *user)
{
    uint64_t m = ix->cap - 1, h = gg_hash(s, len) & m;
    for (;; h = (h + 1) & m) {
        uint64_t *slot = &ix->slots[h];
        if (*slot == 0) return slot;
        rf_gguf_str o = fn(user, *slot - 1);
        if (o.len == len && memcmp(o.ptr, s, len) == 0) return slot;
    }
}

uint64_t rf__gg_index_put(rf__gg_index *ix, rf_gguf_str s, uint64_t pos, rf__gg_name_fn fn,
                          const void *user)
{
    uint64_t *slot = gg_slot(ix, s.ptr, (size_t)s.len, fn, user);
    if (*slot) return *slot;
    *slot = pos + 1;
    return 0;
}

uint64_t rf__gg_index_get(const rf__gg_index *ix, const char *s, size_t len, rf__gg_name_fn fn,
                          const void *user)
{
    if (!ix->slots) return 0;
    return *gg_slot(ix, s, len, fn, user);
}

const rf_gguf_kv *rf_gguf_find(const rf_gguf *g, const char *key)
{
    if (!g || !key) return NULL;
    uint64_t i = rf__gg_index_get(&g->priv->kv_ix, key, strlen(key), rf__gg_kv_name, g->kv);
    return i ? &g->kv[i - 1] : NULL;
}

const rf_gguf_tensor *rf_gguf_tensor_find(const rf_gguf *g, const char *name)
{
    if (!g || !name) return NULL;
    uint64_t i =
        rf__gg_index_get(&g->priv->t_ix, name, strlen(name), rf__gg_tensor_name, g->tensors);
    return i ? &g->tensors[i - 1] : NULL;
}

/* ---- typed getters -----------------------------------------------------------------------------
 */

static rf_status gg_get(rf_ctx *ctx, const rf_gguf *g, const char *key, const rf_gguf_kv **kv)
{
    *kv = rf_gguf_find(g, key);
    if (!*kv) return rf__error(ctx, RF_FORMAT, -1, "GGUF: missing key '%s'", key);
    return RF_OK;
}

static rf_status gg_wrong(rf_ctx *ctx, const rf_gguf_kv *kv, const char *key, const char *want)
{
    return rf__error(ctx, RF_FORMAT, (int64_t)kv->offset,
                     "GGUF key '%s' at byte %llu: %s value, expected %s", key,
                     (unsigned long long)kv->offset, rf_gguf_vtype_name(kv->value.type), want);
}

rf_status rf_gguf_get_u64(rf_ctx *ctx, const rf_gguf *g, const char *key, uint64_t *out)
{
    const rf_gguf_kv *kv;
    RF_TRY(gg_get(ctx, g, key, &kv));
    switch (kv->value.type) {
    case RF_GGUF_U8:
    case RF_GGUF_U16:
    case RF_GGUF_U32:
    case RF_GGUF_U64: *out = kv->value.v.u; return RF_OK;
    case RF_GGUF_I8:
    case RF_GGUF_I16:
    case RF_GGUF_I32:
    case RF_GGUF_I64:
        if (kv->value.v.i < 0) return gg_wrong(ctx, kv, key, "a non-negative integer");
        *out = (uint64_t)kv->value.v.i;
        return RF_OK;
    default: return gg_wrong(ctx, kv, key, "an integer");
    }
}

rf_status rf_gguf_get_u32(rf_ctx *ctx, const rf_gguf *g, const char *key, uint32_t *out)
{
    uint64_t v;
    RF_TRY(rf_gguf_get_u64(ctx, g, key, &v));
    if (v > UINT32_MAX) return gg_wrong(ctx, rf_gguf_find(g, key), key, "a 32-bit count");
    *out = (uint32_t)v;
    return RF_OK;
}

rf_status rf_gguf_get_f64(rf_ctx *ctx, const rf_gguf *g, const char *key, double *out)
{
    const rf_gguf_kv *kv;
    RF_TRY(gg_get(ctx, g, key, &kv));
    if (kv->value.type != RF_GGUF_F32 && kv->value.type != RF_GGUF_F64)
        return gg_wrong(ctx, kv, key, "FLOAT32 or FLOAT64");
    *out = kv->value.v.f;
    return RF_OK;
}

rf_status rf_gguf_get_str(rf_ctx *ctx, const rf_gguf *g, const char *key, rf_gguf_str *out)
{
    const rf_gguf_kv *kv;
    RF_TRY(gg_get(ctx, g, key, &kv));
    if (kv->value.type != RF_GGUF_STRING) return gg_wrong(ctx, kv, key, "STRING");
    *out = kv->value.v.s;
    return RF_OK;
}

rf_status rf_gguf_get_array_len(rf_ctx *ctx, const rf_gguf *g, const char *key, uint64_t *out)
{
    const rf_gguf_kv *kv;
    RF_TRY(gg_get(ctx, g, key, &kv));
    if (kv->value.type != RF_GGUF_ARRAY) return gg_wrong(ctx, kv, key, "ARRAY");
    *out = kv->value.arr_count;
    return RF_OK;
}

/* ---- arrays on demand ------------------------------------------------------------------------ */

void rf_gguf_array_iter(const rf_gguf *g, const rf_gguf_value *array, rf_gguf_iter *it)
{
    memset(it, 0, sizeof *it);
    it->g = g;
    if (!g || !array || array->type != RF_GGUF_ARRAY) return;
    it->type = array->arr_type;
    it->left = array->arr_count;
    it->pos = array->arr_offset;
}

int rf_gguf_array_next(rf_gguf_iter *it, rf_gguf_value *out)
{
    if (!it->g || it->left == 0) return 0;
    const rf__gguf_priv *p = it->g->priv;
    rf__gg r = {NULL, p->data, p->size, it->pos, p->be, p->version};
    if (rf__gg_value(&r, it->type, out, 0, "array element") != RF_OK) return 0; /* validated */
    it->pos = r.pos;
    it->left--;
    return 1;
}
