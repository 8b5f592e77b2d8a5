/* llm_data.c — where an opened model's weights lie: the file mappings of a GGUF file (every shard
 * of a split set) taken over from the reader and kept by the model, each weight pointed at its
 * bytes. The data pages are never read here; the executor (src/exec) reads them in place. */
#include <string.h>

#include "formats/formats_int.h"
#include "formats/gguf_int.h"
#include "llm/llm_int.h"

/* The mapping of shard k of g (NULL when it is not a file mapping). */
static rf__map *rf__shard_map(rf_gguf *g, uint32_t k)
{
    rf__gguf_priv *p = g->priv;
    rf__gguf_priv *sp = p->shards ? (k < p->n_shard_parsed ? p->shards[k]->priv : NULL) : p;
    if (!sp || sp->n_maps < 1 || !sp->maps || !sp->maps[0].mapped) return NULL;
    return &sp->maps[0];
}

/* Hand the mapping `keep` of the first file (may be NULL or not a mapping) to the reader's first
 * shard, so that rf__llm_keep_gguf can take it over for the model: the weights stay readable in
 * place, the file mapped once. */
rf_status rf__llm_adopt_map(rf_ctx *ctx, rf_gguf *g, rf__map *keep)
{
    if (!keep || !keep->mapped) return RF_OK;
    rf_gguf *first = g->priv->shards ? g->priv->shards[0] : g;
    if (first->priv->maps) return RF_OK;
    rf__map *mp = rf__calloc(ctx, 1, sizeof *mp);
    if (!mp) return RF_NOMEM_ERR(ctx);
    *mp = *keep;
    memset(keep, 0, sizeof *keep);
    first->priv->maps = mp;
    first->priv->n_maps = 1;
    return RF_OK;
}

rf_status rf__llm_keep_gguf(rf_ctx *ctx, rf_llm_model *m, rf_gguf *g)
{
    uint32_t n = g->n_shards ? g->n_shards : 1;
    if (g->big_endian) return RF_OK; /* byte-swapped data: no kernel reads it (data stays NULL) */
    for (uint32_t k = 0; k < n; k++)
        if (!rf__shard_map(g, k)) return RF_OK; /* read from a pipe: nothing to keep */
    m->maps = rf__calloc(ctx, n, sizeof *m->maps);
    if (!m->maps) return RF_NOMEM_ERR(ctx);
    for (uint32_t k = 0; k < n; k++) {
        rf__map *src = rf__shard_map(g, k);
        m->maps[k] = *src;
        src->mapped = NULL; /* now the model's: rf_gguf_free leaves it alone */
        src->heap = NULL;
    }
    m->n_maps = n;
    for (uint64_t i = 0; i < g->n_tensors && i < m->n_w; i++) {
        const rf_gguf_tensor *t = &g->tensors[i];
        const rf__map *map = &m->maps[t->shard < n ? t->shard : 0];
        uint64_t end;
        if (!rf__add_ok(t->file_offset, t->n_bytes, &end) || end > map->size) continue;
        m->w[i].data = map->data + t->file_offset;
        m->w[i].n_bytes = t->n_bytes;
    }
    return RF_OK;
}

void rf__llm_data_free(rf_llm_model *m)
{
    for (uint32_t k = 0; k < m->n_maps; k++) rf__unmap_file(&m->maps[k]);
    rf__free_with(&m->alloc, m->maps);
    m->maps = NULL;
    m->n_maps = 0;
}
