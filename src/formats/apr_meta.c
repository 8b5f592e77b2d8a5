/* apr_meta.c — the JSON metadata of an APR file into rf_apr_hparams (reference/apr-format.md
 * section 3): the keys both writers use with realizar's aliases, first non-null wins
 * (hidden_size/hidden_dim, num_hidden_layers/num_layers, ...), then the model.* duplicates of GGUF
 * imports, then an entrenar `model_config` JSON string; and the checks of section 11 item 10:
 * counts are non-negative integers, heads are not zero and KV heads divide them, heads divide the
 * width (unless head_dim is given), no more layers than the tensors hold, the embedding's shape
 * agrees with the width and vocabulary. Never reads tensor data. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "formats/apr_int.h"

typedef struct apr_meta {
    rf__apr_parse *p;
    json_t *root, *cfg; /* cfg: the parsed model_config string, or NULL */
    uint64_t at;        /* byte offset of the metadata */
} apr_meta;

/* The first non-null value of the aliases, in root then in model_config; NULL if none. */
static json_t *apr_get(const apr_meta *m, const char *const *keys, const char **which)
{
    for (int pass = 0; pass < 2; pass++) {
        json_t *o = pass ? m->cfg : m->root;
        for (size_t i = 0; o && keys[i]; i++) {
            json_t *v = json_object_get(o, keys[i]);
            if (v && !json_is_null(v)) {
                *which = keys[i];
                return v;
            }
        }
    }
    return NULL;
}

static rf_status apr_count(const apr_meta *m, const char *const *keys, uint64_t *out, int *given)
{
    const char *k = NULL;
    json_t *v = apr_get(m, keys, &k);
    *out = 0;
    if (given) *given = v != NULL;
    if (!v) return RF_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return RF__APR_BAD(
            m->p, m->at, "APR metadata at byte %llu: '%s' is %s, not a non-negative integer",
            (unsigned long long)m->at, k, json_is_integer(v) ? "negative" : "of another type");
    *out = (uint64_t)json_integer_value(v);
    return RF_OK;
}

static rf_status apr_real(const apr_meta *m, const char *const *keys, double *out)
{
    const char *k = NULL;
    json_t *v = apr_get(m, keys, &k);
    *out = 0;
    if (!v) return RF_OK;
    if (!json_is_number(v) || json_number_value(v) < 0)
        return RF__APR_BAD(m->p, m->at, "APR metadata at byte %llu: '%s' is not a number >= 0",
                           (unsigned long long)m->at, k);
    *out = json_number_value(v);
    return RF_OK;
}

/* Architecture: architecture, then model_type, lower-cased; "auto" and "" do not count. */
static void apr_arch(const apr_meta *m, rf_apr_hparams *hp)
{
    static const char *const keys[] = {"architecture", "model_type", "model.architecture"};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
            json_t *v = json_object_get(pass ? m->cfg : m->root, keys[i]);
            const char *s = json_string_value(v);
            if (!s || !s[0] || rf__strcasecmp(s, "auto") == 0) continue;
            size_t n = 0;
            for (; s[n] && n + 1 < sizeof hp->architecture; n++)
                hp->architecture[n] = (char)tolower((unsigned char)s[n]);
            hp->architecture[n] = '\0';
            return;
        }
}

/* Blocks the tensor names hold: 1 + the largest N of `blk.N.` / `layers.N.` / `h.N.`. */
static uint64_t apr_blocks(const rf_apr *a)
{
    static const char *const pre[] = {"blk.", "model.layers.", "layers.", "transformer.h.",
                                      "model.language_model.layers."};
    uint64_t nb = 0;
    for (uint64_t i = 0; i < a->n_tensors; i++)
        for (size_t k = 0; k < sizeof pre / sizeof *pre; k++) {
            const char *s = a->tensors[i].name;
            size_t n = strlen(pre[k]);
            if (strncmp(s, pre[k], n) != 0 || !isdigit((unsigned char)s[n])) continue;
            char *end;
            unsigned long long b = strtoull(s + n, &end, 10);
            if (*end == '.' && b < 1000000000ull && b + 1 > nb) nb = b + 1;
        }
    return nb;
}

static const rf_apr_tensor *apr_embedding(const rf_apr *a)
{
    static const char *const names[] = {"model.embed_tokens.weight", "token_embd.weight",
                                        "embed_tokens.weight", "transformer.wte.weight"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const rf_apr_tensor *t = rf_apr_find(a, names[i]);
        if (t && t->rank == 2) return t;
    }
    return NULL;
}

/* Section 11 item 10. */
static rf_status apr_check(const apr_meta *m, rf_apr_hparams *hp, int heads_given, int kv_given,
                           int hidden_given)
{
    rf__apr_parse *p = m->p;
    unsigned long long at = m->at;
    if ((heads_given && !hp->num_heads) || (kv_given && !hp->num_kv_heads) ||
        (hidden_given && !hp->hidden_size))
        return RF__APR_BAD(p, at, "APR metadata at byte %llu: %s is zero", at,
                           heads_given && !hp->num_heads   ? "the head count"
                           : kv_given && !hp->num_kv_heads ? "the KV head count"
                                                           : "the hidden size");
    if (hp->num_kv_heads && hp->num_heads &&
        (hp->num_kv_heads > hp->num_heads || hp->num_heads % hp->num_kv_heads))
        return RF__APR_BAD(p, at,
                           "APR metadata at byte %llu: %llu KV heads do not divide %llu "
                           "heads",
                           at, (unsigned long long)hp->num_kv_heads,
                           (unsigned long long)hp->num_heads);
    if (hp->num_heads && hp->hidden_size && !hp->head_dim && hp->hidden_size % hp->num_heads)
        return RF__APR_BAD(p, at,
                           "APR metadata at byte %llu: %llu heads do not divide the hidden "
                           "size %llu",
                           at, (unsigned long long)hp->num_heads,
                           (unsigned long long)hp->hidden_size);
    uint64_t nb = apr_blocks(p->a);
    if (hp->num_layers > nb)
        return RF__APR_BAD(p, at,
                           "APR metadata at byte %llu: %llu layers, but the tensors hold "
                           "%llu blocks",
                           at, (unsigned long long)hp->num_layers, (unsigned long long)nb);
    const rf_apr_tensor *e = apr_embedding(p->a);
    if (!e) return RF_OK;
    uint64_t v = e->shape[0], h = e->shape[1];
    if (hp->transposed && hp->hidden_size && h != hp->hidden_size && v == hp->hidden_size)
        v = e->shape[1], h = e->shape[0]; /* entrenar: maybe stored [hidden, vocab] */
    if (hp->hidden_size && hp->hidden_size != h)
        return RF__APR_BAD(p, at,
                           "APR metadata at byte %llu: hidden size %llu, but the embedding "
                           "'%s' is %llux%llu",
                           at, (unsigned long long)hp->hidden_size, e->name,
                           (unsigned long long)e->shape[0], (unsigned long long)e->shape[1]);
    if (hp->vocab_size && hp->vocab_size != v)
        return RF__APR_BAD(p, at,
                           "APR metadata at byte %llu: vocabulary %llu, but the embedding "
                           "'%s' is %llux%llu",
                           at, (unsigned long long)hp->vocab_size, e->name,
                           (unsigned long long)e->shape[0], (unsigned long long)e->shape[1]);
    if (!hp->vocab_size) hp->vocab_size = v;
    return RF_OK;
}

static rf_status apr_fields(apr_meta *m, rf_apr_hparams *hp)
{
#define APR_KEYS(n, ...) static const char *const n[] = {__VA_ARGS__, NULL}
    APR_KEYS(hidden, "hidden_size", "hidden_dim", "model.hidden_size");
    APR_KEYS(layers, "num_hidden_layers", "num_layers", "model.num_layers");
    APR_KEYS(heads, "num_attention_heads", "num_heads", "model.num_heads");
    APR_KEYS(kv, "num_key_value_heads", "num_kv_heads", "model.num_kv_heads");
    APR_KEYS(ffn, "intermediate_size", "intermediate_dim", "model.intermediate_size");
    APR_KEYS(vocab, "vocab_size", "model.vocab_size");
    APR_KEYS(ctxlen, "max_position_embeddings", "context_length", "max_seq_len", "n_ctx",
             "model.max_position_embeddings");
    APR_KEYS(hdim, "head_dim");
    APR_KEYS(nexp, "num_experts");
    APR_KEYS(used, "num_experts_per_tok");
    APR_KEYS(theta, "rope_theta", "model.rope_theta");
    APR_KEYS(eps, "rms_norm_eps", "eps", "model.rms_norm_eps");
#undef APR_KEYS
    int hg, lg, kg;
    RF_TRY(apr_count(m, hidden, &hp->hidden_size, &hg));
    RF_TRY(apr_count(m, layers, &hp->num_layers, NULL));
    RF_TRY(apr_count(m, heads, &hp->num_heads, &lg));
    RF_TRY(apr_count(m, kv, &hp->num_kv_heads, &kg));
    RF_TRY(apr_count(m, ffn, &hp->intermediate_size, NULL));
    RF_TRY(apr_count(m, vocab, &hp->vocab_size, NULL));
    RF_TRY(apr_count(m, ctxlen, &hp->max_position_embeddings, NULL));
    RF_TRY(apr_count(m, hdim, &hp->head_dim, NULL));
    RF_TRY(apr_count(m, nexp, &hp->num_experts, NULL));
    RF_TRY(apr_count(m, used, &hp->num_experts_per_tok, NULL));
    RF_TRY(apr_real(m, theta, &hp->rope_theta));
    RF_TRY(apr_real(m, eps, &hp->rms_norm_eps));
    apr_arch(m, hp);
    const char *name = json_string_value(json_object_get(m->root, "name"));
    if (name) rf__strlcpy(hp->name, name, sizeof hp->name);
    hp->tied_embeddings = json_is_true(json_object_get(m->root, "tied_embeddings"));
    return apr_check(m, hp, lg, kg, hg);
}

/* Every top-level key read above: only these are materialised (apr_json.c). */
static const char *const apr_wanted[] = {"hidden_size",
                                         "hidden_dim",
                                         "model.hidden_size",
                                         "num_hidden_layers",
                                         "num_layers",
                                         "model.num_layers",
                                         "num_attention_heads",
                                         "num_heads",
                                         "model.num_heads",
                                         "num_key_value_heads",
                                         "num_kv_heads",
                                         "model.num_kv_heads",
                                         "intermediate_size",
                                         "intermediate_dim",
                                         "model.intermediate_size",
                                         "vocab_size",
                                         "model.vocab_size",
                                         "max_position_embeddings",
                                         "context_length",
                                         "max_seq_len",
                                         "n_ctx",
                                         "model.max_position_embeddings",
                                         "head_dim",
                                         "num_experts",
                                         "num_experts_per_tok",
                                         "rope_theta",
                                         "model.rope_theta",
                                         "rms_norm_eps",
                                         "eps",
                                         "model.rms_norm_eps",
                                         "architecture",
                                         "model_type",
                                         "model.architecture",
                                         "name",
                                         "tied_embeddings",
                                         "model_config",
                                         "format",
                                         NULL};

rf_status rf__apr_meta(rf__apr_parse *p, const uint8_t *s, uint64_t n, uint64_t at)
{
    apr_meta m = {p, NULL, NULL, at};
    json_error_t err;
    if (n == 0)
        return RF__APR_BAD(p, at, "APR metadata at byte %llu is empty", (unsigned long long)at);
    RF_TRY(rf__apr_json_pick(p, s, n, at, apr_wanted, &m.root));
    p->a->priv->meta = m.root; /* released by rf_apr_parse */
    json_t *mc = json_object_get(m.root, "model_config");
    if (json_is_string(mc)) { /* entrenar checkpoints */
        m.cfg =
            json_loadb(json_string_value(mc), json_string_length(mc), JSON_REJECT_DUPLICATES, &err);
        if (!json_is_object(m.cfg)) {
            json_decref(m.cfg);
            return RF__APR_BAD(p, at,
                               "APR metadata at byte %llu: 'model_config' is not a JSON "
                               "object in a string",
                               (unsigned long long)at);
        }
        const char *f = json_string_value(json_object_get(m.cfg, "format"));
        if (!f) f = json_string_value(json_object_get(m.root, "format"));
        p->a->hp.transposed = f && strcmp(f, "entrenar-checkpoint") == 0;
    } else if (json_is_object(mc)) {
        m.cfg = json_incref(mc);
    }
    rf_status st = apr_fields(&m, &p->a->hp);
    json_decref(m.cfg);
    return st;
}
