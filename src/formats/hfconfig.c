/* hfconfig.c — the Hugging Face config.json beside a SafeTensors checkpoint
 * (include/roofline/safetensors.h rf_hfconfig): hyper-parameters under their usual names and
 * GPT-2's aliases, with the defaults of transformers' config classes (GPT2Config: n_embd 768,
 * n_layer 12, n_head 12, n_positions 1024, vocab 50257, n_inner = 4 * n_embd, tied head;
 * PretrainedConfig ties the head; LlamaConfig/MistralConfig/Qwen2Config/Phi3Config untie it).
 * Never guesses a size the file and the family do not give. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json_scan.h"
#include "formats/formats_int.h"
#include "roofline/safetensors.h"

/* A count field, under one of two names: 1 found, 0 absent; an error for a wrong type. */
static rf_status hf_count(rf_ctx *ctx, json_t *root, const char *a, const char *b, uint64_t *out)
{
    const char *names[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (!names[i]) continue;
        json_t *v = json_object_get(root, names[i]);
        if (!v || json_is_null(v)) continue;
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return rf__error(ctx, RF_FORMAT, -1,
                             "config.json: \"%s\" is not a non-negative integer", names[i]);
        *out = (uint64_t)json_integer_value(v);
        return RF_OK;
    }
    return RF_OK;
}

static rf_status hf_string(rf_ctx *ctx, json_t *root, const char *key, char *out, size_t cap)
{
    json_t *v = json_object_get(root, key);
    if (!v || json_is_null(v)) return RF_OK;
    if (!json_is_string(v) || json_string_length(v) >= cap)
        return rf__error(ctx, RF_FORMAT, -1, "config.json: \"%s\" is not a short string", key);
    rf__strlcpy(out, json_string_value(v), cap);
    return RF_OK;
}

/* Defaults of the family's transformers config class for what the file leaves out. */
static void hf_defaults(rf_hfconfig *c, int tie_given)
{
    int gpt2 = strcmp(c->model_type, "gpt2") == 0;
    if (gpt2) {
        if (!c->hidden_size) c->hidden_size = 768;
        if (!c->num_hidden_layers) c->num_hidden_layers = 12;
        if (!c->num_attention_heads) c->num_attention_heads = 12;
        if (!c->max_position_embeddings) c->max_position_embeddings = 1024;
        if (!c->vocab_size) c->vocab_size = 50257;
        if (!c->intermediate_size) c->intermediate_size = 4 * c->hidden_size;
    }
    /* PretrainedConfig ties by default; these families' config classes untie. */
    static const char *const untied[] = {"llama", "mistral",   "mixtral",
                                         "qwen2", "qwen2_moe", "phi3"};
    if (!tie_given) {
        c->tie_word_embeddings = 1;
        for (size_t i = 0; i < sizeof untied / sizeof *untied; i++)
            if (strcmp(c->model_type, untied[i]) == 0) c->tie_word_embeddings = 0;
    }
    if (!c->num_key_value_heads) c->num_key_value_heads = c->num_attention_heads;
    if (!c->head_dim && c->num_attention_heads)
        c->head_dim = c->hidden_size / c->num_attention_heads;
}

static rf_status hf_fields(rf_ctx *ctx, json_t *root, rf_hfconfig *c)
{
    RF_TRY(hf_string(ctx, root, "model_type", c->model_type, sizeof c->model_type));
    RF_TRY(hf_string(ctx, root, "hidden_act", c->hidden_act, sizeof c->hidden_act));
    if (!c->hidden_act[0])
        RF_TRY(hf_string(ctx, root, "activation_function", c->hidden_act, sizeof c->hidden_act));
    RF_TRY(hf_count(ctx, root, "hidden_size", "n_embd", &c->hidden_size));
    RF_TRY(hf_count(ctx, root, "num_hidden_layers", "n_layer", &c->num_hidden_layers));
    RF_TRY(hf_count(ctx, root, "num_attention_heads", "n_head", &c->num_attention_heads));
    RF_TRY(hf_count(ctx, root, "num_key_value_heads", NULL, &c->num_key_value_heads));
    RF_TRY(hf_count(ctx, root, "head_dim", NULL, &c->head_dim));
    RF_TRY(hf_count(ctx, root, "intermediate_size", "n_inner", &c->intermediate_size));
    RF_TRY(hf_count(ctx, root, "vocab_size", NULL, &c->vocab_size));
    RF_TRY(
        hf_count(ctx, root, "max_position_embeddings", "n_positions", &c->max_position_embeddings));
    RF_TRY(hf_count(ctx, root, "num_local_experts", "num_experts", &c->num_experts));
    RF_TRY(hf_count(ctx, root, "num_experts_per_tok", NULL, &c->num_experts_per_tok));
    json_t *eps = json_object_get(root, "rms_norm_eps");
    if (!eps) eps = json_object_get(root, "layer_norm_epsilon");
    if (!eps) eps = json_object_get(root, "layer_norm_eps");
    if (eps && json_is_number(eps)) c->rms_norm_eps = json_number_value(eps);
    json_t *tie = json_object_get(root, "tie_word_embeddings");
    if (tie && !json_is_boolean(tie))
        return rf__error(ctx, RF_FORMAT, -1,
                         "config.json: \"tie_word_embeddings\" is not a boolean");
    if (tie) c->tie_word_embeddings = json_is_true(tie);
    hf_defaults(c, tie != NULL);
    return RF_OK;
}

rf_status rf_hfconfig_parse(rf_ctx *ctx, const void *data, size_t size, rf_hfconfig *out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_hfconfig_parse: bad arguments");
    memset(out, 0, sizeof *out);
    /* What jansson may build (core/json_scan.h): configs nest a few levels (rope_scaling,
     * text_config); id2label maps of image models run to thousands of entries. */
    static const rf__json_limits lim = {.max_depth = 16,
                                        .max_string = 1 << 20,
                                        .per_item = 1 << 18,
                                        .outside = 1,
                                        .max_values = 1 << 19};
    RF_TRY(rf__json_scan(ctx, data ? data : "", size, &lim) == RF_OK
               ? RF_OK
               : rf__error_prefix(ctx, "config.json"));
    json_error_t err;
    json_t *root = json_loadb(data ? data : "", size, JSON_REJECT_DUPLICATES, &err);
    if (!root && (json_error_code(&err) == json_error_out_of_memory || !err.text[0]))
        return rf__error(ctx, RF_NOMEM, -1,
                         "config.json: out of memory while reading it (%zu bytes)", size);
    if (!root) {
        char clean[160];
        rf__excerpt(clean, sizeof clean, err.text, strlen(err.text), 120);
        return rf__error(ctx, RF_FORMAT, (int64_t)err.position, "config.json at byte %lld: %s",
                         (long long)err.position, clean);
    }
    rf_status st = json_is_object(root)
                       ? hf_fields(ctx, root, out)
                       : rf__error(ctx, RF_FORMAT, 0, "config.json is not a JSON object");
    json_decref(root);
    return st;
}

rf_status rf_hfconfig_read_file(rf_ctx *ctx, const char *path, rf_hfconfig *out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_hfconfig_read_file: path and out are required");
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, (uint64_t)16 << 20, &map));
    rf_status st = rf_hfconfig_parse(ctx, map.data, map.size, out);
    rf__unmap_file(&map);
    if (st != RF_OK) rf__error_prefix(ctx, path);
    return st;
}

int rf__hfconfig_path(const char *model_path, char *path, size_t cap)
{
    struct stat sb;
    const char *slash = strrchr(model_path, '/');
    if (stat(model_path, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(path, cap, "%s/config.json", model_path);
    else if (slash)
        snprintf(path, cap, "%.*s/config.json", (int)(slash - model_path), model_path);
    else
        snprintf(path, cap, "config.json");
    return stat(path, &sb) == 0;
}

rf_status rf_hfconfig_read_beside(rf_ctx *ctx, const char *model_path, rf_hfconfig *out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, model_path && out, RF_USAGE, "rf_hfconfig_read_beside: bad arguments");
    char path[4096];
    rf__hfconfig_path(model_path, path, sizeof path);
    return rf_hfconfig_read_file(ctx, path, out);
}
