/* gguf_open.c — GGUF files on disk: the thin mmap wrapper over rf_gguf_parse, split sets
 * (`NAME-00001-of-0000N.gguf` with split.no / split.count / split.tensors.count, as written by
 * llama.cpp's gguf-split) loaded from their first file and checked to agree, and rf_gguf_free.
 * Only headers are touched: tensor data pages of the mapping are never read. */
#include <stdio.h>
#include <string.h>

#include "formats/gguf_int.h"

#define GG_MAX_FILE ((uint64_t)1 << 50)
#define GG_MAX_SHARDS 9999

/* Map and parse one file; the mapping is kept by the result. Errors are prefixed by the path. */
static rf_status gg_open_one(rf_ctx *ctx, const char *path, rf_gguf **out)
{
    rf__map *map = rf__calloc(ctx, 1, sizeof *map);
    if (!map) return RF_NOMEM_ERR(ctx);
    rf_status st = rf__map_file(ctx, path, GG_MAX_FILE, map);
    if (st != RF_OK) {
        rf__free(ctx, map);
        return st;
    }
    st = rf_gguf_parse(ctx, map->data, map->size, out);
    if (st != RF_OK) {
        rf__unmap_file(map);
        rf__free(ctx, map);
        return rf__error_prefix(ctx, path);
    }
    (*out)->priv->maps = map;
    (*out)->priv->n_maps = 1;
    return RF_OK;
}

/* split.* keys of a file: count 1 and no 0 when absent. */
static rf_status gg_split_keys(rf_ctx *ctx, const rf_gguf *g, uint32_t *no, uint32_t *count,
                               uint64_t *tensors)
{
    *no = 0;
    *count = 1;
    *tensors = g->n_tensors;
    if (!rf_gguf_find(g, "split.count")) return RF_OK;
    RF_TRY(rf_gguf_get_u32(ctx, g, "split.count", count));
    RF_TRY(rf_gguf_get_u32(ctx, g, "split.no", no));
    RF_TRY(rf_gguf_get_u64(ctx, g, "split.tensors.count", tensors));
    if (*count == 0 || *count > GG_MAX_SHARDS || *no >= *count)
        return rf__error(ctx, RF_FORMAT, -1, "GGUF: split.no %u / split.count %u are inconsistent",
                         *no, *count);
    return RF_OK;
}

/* Path of shard k (0-based) from the first one's path "...-00001-of-0000N.gguf". */
static rf_status gg_shard_path(rf_ctx *ctx, const char *first, uint32_t k, uint32_t count,
                               char *out, size_t cap)
{
    char tail[32];
    snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", 1u, count);
    size_t n = strlen(first), t = strlen(tail);
    if (n < t || strcmp(first + n - t, tail) != 0)
        return rf__error(ctx, RF_FORMAT, -1,
                         "%s: split.count is %u but the name does not end in '%s'", first, count,
                         tail);
    if (n + 1 > cap) return rf__error(ctx, RF_RANGE, -1, "%s: path too long", first);
    memcpy(out, first, n - t);
    snprintf(out + (n - t), cap - (n - t), "-%05u-of-%05u.gguf", k + 1, count);
    return RF_OK;
}

/* Concatenate the shards' tensors into g, refusing a name seen twice and a wrong total. */
static rf_status gg_merge(rf_ctx *ctx, rf_gguf *g, const char *path, uint64_t expect)
{
    rf__gguf_priv *p = g->priv;
    uint64_t n = 0;
    for (uint32_t k = 0; k < p->n_shard_parsed; k++) n += p->shards[k]->n_tensors;
    if (n != expect)
        return rf__error(ctx, RF_FORMAT, -1,
                         "%s: split.tensors.count is %llu but the %u files hold %llu tensors", path,
                         (unsigned long long)expect, p->n_shard_parsed, (unsigned long long)n);
    p->tensors = rf__calloc(ctx, n ? n : 1, sizeof *p->tensors);
    if (!p->tensors) return RF_NOMEM_ERR(ctx);
    RF_TRY(rf__gg_index_init(ctx, &p->t_ix, n));
    uint64_t i = 0;
    char name[96];
    for (uint32_t k = 0; k < p->n_shard_parsed; k++) {
        const rf_gguf *s = p->shards[k];
        for (uint64_t j = 0; j < s->n_tensors; j++, i++) {
            p->tensors[i] = s->tensors[j];
            p->tensors[i].shard = k;
            if (rf__gg_index_put(&p->t_ix, p->tensors[i].name, i, rf__gg_tensor_name, p->tensors))
                return rf__error(ctx, RF_FORMAT, -1, "%s: tensor '%s' is in two split files", path,
                                 rf__gg_name(name, sizeof name, p->tensors[i].name));
        }
        g->total_bytes += s->file_size;
        g->params += s->params;
        g->weight_bytes += s->weight_bytes;
    }
    g->tensors = p->tensors;
    g->n_tensors = n;
    return RF_OK;
}

/* Load shards 1..count-1 beside the first one and check each one's split keys. */
static rf_status gg_load_split(rf_ctx *ctx, rf_gguf *g, const char *path, uint32_t count,
                               uint64_t expect)
{
    rf__gguf_priv *p = g->priv;
    size_t cap = strlen(path) + 32;
    char *sp = rf__malloc(ctx, cap);
    if (!sp) return RF_NOMEM_ERR(ctx);
    rf_status st = RF_OK;
    for (uint32_t k = 1; k < count && st == RF_OK; k++) {
        st = gg_shard_path(ctx, path, k, count, sp, cap);
        if (st == RF_OK) st = gg_open_one(ctx, sp, &p->shards[k]);
        if (st != RF_OK) break;
        p->n_shard_parsed = k + 1;
        uint32_t no, c;
        uint64_t t;
        st = gg_split_keys(ctx, p->shards[k], &no, &c, &t);
        if (st == RF_OK && (no != k || c != count))
            st = rf__error(ctx, RF_FORMAT, -1, "%s: split.no %u / split.count %u, expected %u / %u",
                           sp, no, c, k, count);
        else if (st == RF_OK && t != expect)
            st = rf__error(ctx, RF_FORMAT, -1, "%s: split.tensors.count %llu, expected %llu", sp,
                           (unsigned long long)t, (unsigned long long)expect);
        else if (st != RF_OK)
            rf__error_prefix(ctx, sp);
    }
    rf__free(ctx, sp);
    return st;
}

/* The set whose first file is `first` (parsed; owned from here on): itself, or every split file
 * loaded beside `path` and merged. */
static rf_status gg_set(rf_ctx *ctx, rf_gguf *first, const char *path, rf_gguf **out)
{
    rf_gguf *g = NULL;
    uint32_t no, count;
    uint64_t expect;
    rf_status st = gg_split_keys(ctx, first, &no, &count, &expect);
    if (st != RF_OK) {
        rf__error_prefix(ctx, path);
        goto fail;
    }
    if (count == 1) {
        *out = first;
        return RF_OK;
    }
    if (no != 0) {
        st = rf__error(ctx, RF_USAGE, -1, "%s: this is split file %u of %u; open the first one",
                       path, no + 1, count);
        goto fail;
    }
    g = rf__calloc(ctx, 1, sizeof *g);
    if (g) g->alloc_ = *rf_ctx_allocator(ctx);
    rf__gguf_priv *p = g ? rf__calloc(ctx, 1, sizeof *p) : NULL;
    if (p) p->shards = rf__calloc(ctx, count, sizeof *p->shards);
    if (!p || !p->shards) {
        if (p) rf__free(ctx, p);
        st = RF_NOMEM_ERR(ctx);
        goto fail;
    }
    *g = *first; /* header fields and key/values of the first shard */
    g->priv = p;
    g->params = g->weight_bytes = g->total_bytes = 0;
    g->n_shards = count;
    p->shards[0] = first;
    p->n_shard_parsed = 1;
    first = NULL;
    p->data = p->shards[0]->priv->data;
    p->size = p->shards[0]->priv->size;
    p->be = p->shards[0]->priv->be;
    p->version = p->shards[0]->priv->version;
    p->kv_ix = p->shards[0]->priv->kv_ix; /* shared, owned by shards[0] */
    st = gg_load_split(ctx, g, path, count, expect);
    if (st == RF_OK) st = gg_merge(ctx, g, path, expect);
    if (st == RF_OK) {
        *out = g;
        return RF_OK;
    }
fail:
    rf_gguf_free(g);
    rf_gguf_free(first);
    return st;
}

rf_status rf_gguf_read_file(rf_ctx *ctx, const char *path, rf_gguf **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_gguf_read_file: path and out are required");
    *out = NULL;
    rf_gguf *first = NULL;
    RF_TRY(gg_open_one(ctx, path, &first));
    return gg_set(ctx, first, path, out);
}

rf_status rf_gguf_parse_set(rf_ctx *ctx, const void *data, size_t size, const char *path,
                            rf_gguf **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, data && path && out, RF_USAGE,
             "rf_gguf_parse_set: data, path and out are required");
    *out = NULL;
    rf_gguf *first = NULL;
    if (rf_gguf_parse(ctx, data, size, &first) != RF_OK) return rf__error_prefix(ctx, path);
    return gg_set(ctx, first, path, out);
}
