/* llm_open.c — rf_llm_parse / rf_llm_read_file: a GGUF file (keys `<arch>.embedding_length` ...),
 * a SafeTensors checkpoint with its config.json (model_type ...) or an APR file (its JSON metadata)
 * into an rf_llm_model: every tensor with its role (llm_names.c), type and shape, the
 * hyper-parameters. The readers (gguf.h, safetensors.h, apr.h) parse; this file only sorts what
 * they found. rf__llm_finish (llm_check.c) checks the shapes. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/formats_int.h"
#include "llm/llm_int.h"
#include "roofline/apr.h"
#include "roofline/gguf.h"
#include "roofline/model.h"
#include "roofline/safetensors.h"

static rf_status rf__add_w(rf_ctx *ctx, rf_llm_model *m, size_t *cap, const char *name, size_t len,
                           rf__llm_w *w)
{
    RF_TRY(rf__grow(ctx, (void **)&m->w, cap, m->n_w + 1, sizeof *m->w));
    w->name = rf__strndup(ctx, name, len);
    if (!w->name) return RF_NOMEM_ERR(ctx);
    m->w[m->n_w++] = *w;
    return RF_OK;
}

/* Unsigned key `<arch>.<suffix>` into *out when present (0 otherwise); wrong types are errors. */
static rf_status rf__gkey(rf_ctx *ctx, const rf_gguf *g, const char *arch, const char *suffix,
                          uint64_t *out)
{
    char key[192];
    snprintf(key, sizeof key, "%s.%s", arch, suffix);
    *out = 0;
    if (!rf_gguf_find(g, key)) return RF_OK;
    return rf_gguf_get_u64(ctx, g, key, out);
}

static rf_status rf__gguf_hparams(rf_ctx *ctx, const rf_gguf *g, rf_llm_hparams *hp)
{
    rf_gguf_str s;
    const char *a = hp->architecture;
    if (rf_gguf_find(g, "general.architecture")) {
        RF_TRY(rf_gguf_get_str(ctx, g, "general.architecture", &s));
        size_t n =
            s.len < sizeof hp->architecture - 1 ? (size_t)s.len : sizeof hp->architecture - 1;
        memcpy(hp->architecture, s.ptr, n);
        hp->architecture[n] = '\0';
    }
    if (rf_gguf_find(g, "general.name") && rf_gguf_get_str(ctx, g, "general.name", &s) == RF_OK) {
        size_t n = s.len < sizeof hp->name - 1 ? (size_t)s.len : sizeof hp->name - 1;
        memcpy(hp->name, s.ptr, n);
        hp->name[n] = '\0';
    }
    RF_TRY(rf__gkey(ctx, g, a, "embedding_length", &hp->n_embd));
    RF_TRY(rf__gkey(ctx, g, a, "block_count", &hp->n_layer));
    RF_TRY(rf__gkey(ctx, g, a, "attention.head_count", &hp->n_head));
    RF_TRY(rf__gkey(ctx, g, a, "attention.head_count_kv", &hp->n_head_kv));
    RF_TRY(rf__gkey(ctx, g, a, "attention.key_length", &hp->head_dim));
    RF_TRY(rf__gkey(ctx, g, a, "context_length", &hp->n_ctx));
    RF_TRY(rf__gkey(ctx, g, a, "vocab_size", &hp->n_vocab));
    RF_TRY(rf__gkey(ctx, g, a, "expert_count", &hp->n_expert));
    RF_TRY(rf__gkey(ctx, g, a, "expert_used_count", &hp->n_expert_used));
    /* feed_forward_length may be an array (per-layer widths): the tensors decide then */
    char key[192];
    snprintf(key, sizeof key, "%s.feed_forward_length", a);
    const rf_gguf_kv *kv = rf_gguf_find(g, key);
    if (kv && kv->value.type != RF_GGUF_ARRAY) RF_TRY(rf_gguf_get_u64(ctx, g, key, &hp->n_ff));
    return RF_OK;
}

static rf_status rf__open_gguf(rf_ctx *ctx, const void *data, size_t size, const char *path,
                               rf__map *keep, rf_llm_model *m)
{
    rf_gguf *g = NULL;
    size_t cap = 0;
    RF_TRY(rf_gguf_parse_set(ctx, data, size, path, &g));
    if (rf__llm_adopt_map(ctx, g, keep) != RF_OK) {
        rf_gguf_free(g);
        return RF_NOMEM;
    }
    rf_status st = rf__gguf_hparams(ctx, g, &m->hp);
    for (uint64_t i = 0; st == RF_OK && i < g->n_tensors; i++) {
        const rf_gguf_tensor *t = &g->tensors[i];
        rf__llm_w w = {0};
        char name[256];
        size_t n = t->name.len < sizeof name - 1 ? (size_t)t->name.len : sizeof name - 1;
        memcpy(name, t->name.ptr, n);
        name[n] = '\0';
        w.role = rf__llm_role_gguf(name, &w.block);
        w.expert = -1;
        if (!rf_dtype_from_ggml(t->type, &w.dtype)) w.dtype = RF_DTYPE_UNKNOWN;
        w.rank = t->n_dims;
        for (uint32_t d = 0; d < t->n_dims; d++) w.dims[d] = (int64_t)t->dims[t->n_dims - 1 - d];
        st = rf__add_w(ctx, m, &cap, t->name.ptr, (size_t)t->name.len, &w);
    }
    if (st == RF_OK) {
        m->hp.params = g->params;
        m->hp.weight_bytes = g->weight_bytes;
        st = rf__llm_keep_gguf(ctx, m, g);
    }
    rf_gguf_free(g);
    rf__strlcpy(m->hp.format, "gguf", sizeof m->hp.format);
    return st;
}

static void rf__st_hparams(const rf_hfconfig *c, rf_llm_hparams *hp)
{
    rf__strlcpy(hp->architecture, c->model_type, sizeof hp->architecture);
    hp->n_embd = c->hidden_size;
    hp->n_layer = c->num_hidden_layers;
    hp->n_head = c->num_attention_heads;
    hp->n_head_kv = c->num_key_value_heads;
    hp->head_dim = c->head_dim;
    hp->n_ff = c->intermediate_size;
    hp->n_vocab = c->vocab_size;
    hp->n_ctx = c->max_position_embeddings;
    hp->n_expert = c->num_experts;
    hp->n_expert_used = c->num_experts_per_tok;
}

static rf_status rf__open_st(rf_ctx *ctx, const void *data, size_t size, const char *path,
                             int index, rf_llm_model *m)
{
    rf_safetensors *st = NULL;
    rf_hfconfig c;
    size_t cap = 0;
    memset(&c, 0, sizeof c);
    /* without a config.json the architecture is unknown: the weights are still reported */
    char cfg[4096];
    if (rf__hfconfig_path(path, cfg, sizeof cfg)) RF_TRY(rf_hfconfig_read_beside(ctx, path, &c));
    rf__st_hparams(&c, &m->hp);
    if (index)
        RF_TRY(rf_safetensors_parse_index(ctx, data, size, path, &st));
    else if (rf_safetensors_parse(ctx, data, size, &st) != RF_OK)
        return rf__error_prefix(ctx, path);
    int gemma2 = strncmp(c.model_type, "gemma2", 6) == 0 || strncmp(c.model_type, "gemma3", 6) == 0;
    rf_status s = RF_OK;
    for (uint64_t i = 0; s == RF_OK && i < st->n_tensors; i++) {
        const rf_st_tensor *t = &st->tensors[i];
        rf__llm_w w = {0};
        w.role = rf__llm_role_hf(t->name, gemma2, &w.block, &w.expert);
        w.dtype = t->dtype;
        w.rank = t->rank;
        for (uint32_t d = 0; d < t->rank; d++) w.dims[d] = (int64_t)t->shape[d];
        s = rf__add_w(ctx, m, &cap, t->name, strlen(t->name), &w);
    }
    if (s == RF_OK) {
        m->hp.params = st->params;
        m->hp.weight_bytes = st->weight_bytes;
    }
    rf_safetensors_free(st);
    m->conv1d = strcmp(c.model_type, "gpt2") == 0;
    rf__strlcpy(m->hp.format, "safetensors", sizeof m->hp.format);
    return s;
}

/* APR (aprender / realizar): hyper-parameters from the metadata, already resolved through
 * realizar's aliases and checked against the tensors by the reader; tensor names in either style
 * (`blk.N.attn_q.weight` or `model.layers.N.self_attn.q_proj.weight`). */
static rf_status rf__open_apr(rf_ctx *ctx, const void *data, size_t size, const char *path,
                              rf_llm_model *m)
{
    rf_apr *a = NULL;
    size_t cap = 0;
    RF_TRY(rf_apr_parse(ctx, data, size, path, 0, &a));
    const rf_apr_hparams *h = &a->hp;
    rf_llm_hparams *hp = &m->hp;
    rf__strlcpy(hp->architecture, h->architecture, sizeof hp->architecture);
    rf__strlcpy(hp->name, h->name, sizeof hp->name);
    hp->n_embd = h->hidden_size;
    hp->n_layer = h->num_layers;
    hp->n_head = h->num_heads;
    hp->n_head_kv = h->num_kv_heads;
    hp->head_dim = h->head_dim;
    hp->n_ff = h->intermediate_size;
    hp->n_vocab = h->vocab_size;
    hp->n_ctx = h->max_position_embeddings;
    hp->n_expert = h->num_experts;
    hp->n_expert_used = h->num_experts_per_tok;
    int gemma2 =
        strncmp(hp->architecture, "gemma2", 6) == 0 || strncmp(hp->architecture, "gemma3", 6) == 0;
    rf_status st = RF_OK;
    for (uint64_t i = 0; st == RF_OK && i < a->n_tensors; i++) {
        const rf_apr_tensor *t = &a->tensors[i];
        rf__llm_w w = {0};
        uint64_t plain = 0;
        w.expert = -1;
        w.role = rf__llm_role_gguf(t->name, &w.block);
        if (w.role == RF__R_OTHER) w.role = rf__llm_role_hf(t->name, gemma2, &w.block, &w.expert);
        w.dtype = t->dtype;
        w.rank = t->rank;
        for (uint32_t d = 0; d < t->rank; d++) w.dims[d] = (int64_t)t->shape[d];
        if (rf_dtype_bytes(t->dtype, t->n_elements, &plain) && t->n_bytes > plain)
            w.extra_bytes = t->n_bytes - plain;
        st = rf__add_w(ctx, m, &cap, t->name, strlen(t->name), &w);
    }
    hp->params = a->params;
    hp->weight_bytes = a->weight_bytes;
    m->conv1d = h->transposed;
    rf_apr_free(a);
    rf__strlcpy(hp->format, "apr", sizeof hp->format);
    return st;
}

/* rf_llm_parse, with the mapping the bytes come from (NULL: borrowed bytes) for GGUF to keep. */
static rf_status rf__llm_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                               rf__map *keep, rf_llm_model **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, data && out, RF_USAGE, "rf_llm_parse: data and out are required");
    *out = NULL;
    name = name ? name : "model";
    rf_model_format fmt = rf_model_detect(data, size, name);
    int index = fmt == RF_MODEL_AUTO && rf__is_st_index(data, size);
    RF_CHECK(ctx,
             fmt == RF_MODEL_GGUF || fmt == RF_MODEL_SAFETENSORS || fmt == RF_MODEL_APR || index,
             RF_UNSUPPORTED,
             "%s: not a GGUF or SafeTensors model (LLM analysis reads .gguf files, "
             "SafeTensors checkpoints with their config.json and .apr files)",
             name);
    rf_llm_model *m = rf__calloc(ctx, 1, sizeof *m);
    if (!m) return RF_NOMEM_ERR(ctx);
    m->alloc = *rf_ctx_allocator(ctx);
    rf_status st = fmt == RF_MODEL_GGUF  ? rf__open_gguf(ctx, data, size, name, keep, m)
                   : fmt == RF_MODEL_APR ? rf__open_apr(ctx, data, size, name, m)
                                         : rf__open_st(ctx, data, size, name, index, m);
    if (st == RF_OK) st = rf__llm_finish(ctx, m, name);
    if (st != RF_OK) {
        rf_llm_free(m);
        rf__error_name(ctx, name);
        return st;
    }
    *out = m;
    return RF_OK;
}

rf_status rf_llm_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                       rf_llm_model **out)
{
    return rf__llm_parse(ctx, data, size, name, NULL, out);
}

rf_status rf_llm_read_file(rf_ctx *ctx, const char *path, rf_llm_model **out)
{
    char file[4096];
    rf__map map;
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_llm_read_file: path and out are required");
    *out = NULL;
    RF_TRY(rf__model_file(ctx, path, file, sizeof file));
    RF_TRY(rf__map_file(ctx, file, (uint64_t)1 << 50, &map));
    rf_status st = rf__llm_parse(ctx, map.data, map.size, file, &map, out);
    rf__unmap_file(&map); /* a no-op when the model kept it */
    return st;
}

void rf_llm_free(rf_llm_model *m)
{
    if (!m) return;
    rf_allocator a = m->alloc;
    for (size_t i = 0; i < m->n_w; i++) rf__free_with(&a, m->w[i].name);
    rf__free_with(&a, m->w);
    rf__free_with(&a, m->slot);
    rf__llm_data_free(m);
    rf__free_with(&a, m);
}

const rf_llm_hparams *rf_llm_hparams_get(const rf_llm_model *m)
{
    return &m->hp;
}
