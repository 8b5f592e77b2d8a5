/* safetensors_open.c — SafeTensors checkpoints on disk: the mmap wrapper over
 * rf_safetensors_parse, folders, and sharded checkpoints through model.safetensors.index.json
 * (Hugging Face convention: {"weight_map": {tensor: shard file}}; shard names are plain file
 * names in the index's folder, never paths), each shard validated, every tensor exactly once and
 * in the shard the map names. Lookups by name. Never reads tensor data. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json_scan.h"
#include "formats/safetensors_int.h"

#define ST_MAX_FILE ((uint64_t)1 << 50)
#define ST_MAX_INDEX ((uint64_t)64 << 20)

static rf_gguf_str st_name(const void *user, uint64_t i)
{
    const rf_st_tensor *t = &((const rf_st_tensor *)user)[i];
    rf_gguf_str s = {t->name, strlen(t->name)};
    return s;
}

rf_status rf__st_index(rf_ctx *ctx, rf_safetensors *st)
{
    rf__st_priv *p = st->priv;
    RF_TRY(rf__gg_index_init(ctx, &p->ix, st->n_tensors));
    for (uint64_t i = 0; i < st->n_tensors; i++) {
        rf_gguf_str s = {p->tensors[i].name, strlen(p->tensors[i].name)};
        if (rf__gg_index_put(&p->ix, s, i, st_name, p->tensors))
            return rf__error(ctx, RF_FORMAT, p->n_shards ? -1 : 8,
                             p->n_shards ? "SafeTensors tensor '%s' is in two shards"
                                         : "SafeTensors tensor '%s' appears twice in the header "
                                           "(a duplicate object key)",
                             p->tensors[i].name);
    }
    return RF_OK;
}

const rf_st_tensor *rf_safetensors_find(const rf_safetensors *st, const char *name)
{
    if (!st || !name) return NULL;
    uint64_t i = rf__gg_index_get(&st->priv->ix, name, strlen(name), st_name, st->tensors);
    return i ? &st->tensors[i - 1] : NULL;
}

const char *rf_safetensors_meta(const rf_safetensors *st, const char *key)
{
    for (uint64_t i = 0; st && key && i < st->n_meta; i++)
        if (strcmp(st->meta[i].key, key) == 0) return st->meta[i].value;
    return NULL;
}

static rf_status st_open_file(rf_ctx *ctx, const char *path, rf_safetensors **out)
{
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, ST_MAX_FILE, &map));
    rf_status s = rf_safetensors_parse(ctx, map.data, map.size, out);
    if (s != RF_OK) {
        rf__unmap_file(&map);
        return rf__error_prefix(ctx, path);
    }
    (*out)->priv->map = map; /* names are copied; the map is kept only to pin the file */
    return RF_OK;
}

/* A shard name from an index: a plain file name (no '/', not "." or ".."). */
static int st_plain_name(const char *s)
{
    return s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* Open the distinct shards of a weight_map, in order of first appearance. */
static rf_status st_open_shards(rf_ctx *ctx, const char *dir, const char *ipath, json_t *wm,
                                rf_safetensors *st, const char ***files)
{
    rf__st_priv *p = st->priv;
    size_t n = json_object_size(wm);
    p->shards = rf__calloc(ctx, n ? n : 1, sizeof *p->shards);
    *files = rf__calloc(ctx, n ? n : 1, sizeof **files);
    if (!p->shards || !*files) return RF_NOMEM_ERR(ctx);
    const char *k;
    json_t *v;
    char path[4096];
    json_object_foreach(wm, k, v)
    {
        const char *f = json_string_value(v);
        if (!f || !st_plain_name(f))
            return rf__error(ctx, RF_FORMAT, -1,
                             "%s: weight_map entry of tensor '%.64s' is not a plain file name",
                             ipath, k);
        uint32_t j = 0;
        while (j < p->n_shards && strcmp((*files)[j], f) != 0) j++;
        if (j < p->n_shards) continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, f) >= sizeof path)
            return rf__error(ctx, RF_RANGE, -1, "%s: shard path too long", ipath);
        RF_TRY(st_open_file(ctx, path, &p->shards[j]));
        (*files)[j] = f;
        p->n_shards++;
    }
    return RF_OK;
}

/* Concatenate the shards' tensors; each must be in the map, in the shard the map names. */
static rf_status st_merge(rf_ctx *ctx, const char *ipath, json_t *wm, rf_safetensors *st,
                          const char **files)
{
    rf__st_priv *p = st->priv;
    uint64_t n = 0;
    for (uint32_t j = 0; j < p->n_shards; j++) n += p->shards[j]->n_tensors;
    p->tensors = rf__calloc(ctx, n ? n : 1, sizeof *p->tensors);
    if (!p->tensors) return RF_NOMEM_ERR(ctx);
    p->borrowed_names = 1;
    for (uint32_t j = 0; j < p->n_shards; j++) {
        const rf_safetensors *s = p->shards[j];
        for (uint64_t i = 0; i < s->n_tensors; i++) {
            const char *want = json_string_value(json_object_get(wm, s->tensors[i].name));
            if (!want || strcmp(want, files[j]) != 0)
                return rf__error(ctx, RF_FORMAT, -1,
                                 "%s: tensor '%.64s' found in %s but the weight_map says %s", ipath,
                                 s->tensors[i].name, files[j], want ? want : "nothing");
            p->tensors[st->n_tensors] = s->tensors[i];
            p->tensors[st->n_tensors++].shard = j;
        }
        st->total_bytes += s->file_size;
        st->params += s->params;
        st->weight_bytes += s->weight_bytes;
    }
    st->tensors = p->tensors;
    RF_TRY(rf__st_index(ctx, st));
    if (n != json_object_size(wm))
        return rf__error(ctx, RF_FORMAT, -1,
                         "%s: the weight_map lists %zu tensors but the shards hold %llu", ipath,
                         json_object_size(wm), (unsigned long long)n);
    return RF_OK;
}

rf_status rf_safetensors_parse_index(rf_ctx *ctx, const void *data, size_t size, const char *ipath,
                                     rf_safetensors **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, data && ipath && out, RF_USAGE,
             "rf_safetensors_parse_index: data, path and out are required");
    *out = NULL;
    /* What jansson may build (core/json_scan.h): one name -> file pair per tensor. */
    static const rf__json_limits lim = {.max_depth = 3,
                                        .max_string = 65536,
                                        .bulk_key = "weight_map",
                                        .per_item = 2,
                                        .outside = 4096};
    if (rf__json_scan(ctx, data, size, &lim) != RF_OK) return rf__error_prefix(ctx, ipath);
    json_error_t err;
    json_t *root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &err);
    json_t *wm = root ? json_object_get(root, "weight_map") : NULL;
    if (!json_is_object(wm)) {
        json_decref(root);
        return rf__error(ctx, RF_FORMAT, root ? -1 : (int64_t)err.position,
                         "%s: not a JSON object with a \"weight_map\" object", ipath);
    }
    char dir[4096];
    const char *slash = strrchr(ipath, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - ipath) : 1, slash ? ipath : ".");
    rf_safetensors *st = rf__calloc(ctx, 1, sizeof *st);
    if (st) st->alloc_ = *rf_ctx_allocator(ctx);
    rf__st_priv *p = st ? rf__calloc(ctx, 1, sizeof *p) : NULL;
    const char **files = NULL;
    rf_status s = p ? RF_OK : RF_NOMEM_ERR(ctx);
    if (p) st->priv = p;
    if (s == RF_OK) s = st_open_shards(ctx, dir, ipath, wm, st, &files);
    if (s == RF_OK) s = st_merge(ctx, ipath, wm, st, files);
    rf__free(ctx, files);
    json_decref(root);
    if (s != RF_OK || !p) {
        if (!p) rf__free(ctx, st);
        rf_safetensors_free(p ? st : NULL);
        return s;
    }
    const rf_safetensors *s0 = p->shards[0];
    if (s0) {
        st->meta = s0->meta;
        st->n_meta = s0->n_meta;
        st->header_size = s0->header_size;
        st->data_start = s0->data_start;
        st->data_size = s0->data_size;
        st->file_size = s0->file_size;
    }
    st->n_shards = p->n_shards;
    *out = st;
    return RF_OK;
}

static rf_status st_open_index(rf_ctx *ctx, const char *ipath, rf_safetensors **out)
{
    rf__map map;
    RF_TRY(rf__map_file(ctx, ipath, ST_MAX_INDEX, &map));
    rf_status s = rf_safetensors_parse_index(ctx, map.data, map.size, ipath, out);
    rf__unmap_file(&map);
    return s;
}

static int st_ends_with(const char *s, const char *t)
{
    size_t n = strlen(s), m = strlen(t);
    return n >= m && strcmp(s + n - m, t) == 0;
}

rf_status rf_safetensors_read_file(rf_ctx *ctx, const char *path, rf_safetensors **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_safetensors_read_file: path and out are required");
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        char f[4096];
        snprintf(f, sizeof f, "%s/model.safetensors.index.json", path);
        if (stat(f, &sb) == 0) return st_open_index(ctx, f, out);
        snprintf(f, sizeof f, "%s/model.safetensors", path);
        return st_open_file(ctx, f, out);
    }
    if (st_ends_with(path, ".index.json")) return st_open_index(ctx, path, out);
    return st_open_file(ctx, path, out);
}
