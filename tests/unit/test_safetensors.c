/* test_safetensors.c — the SafeTensors reader and config.json (roofline/safetensors.h) against the
 * gpt2_tiny fixture in tests/data/safetensors (tensors, params, layout compared with its .ref.json
 * through jansson), hand-made headers for every refusal (message and byte offset), sharded
 * checkpoints through an index, config.json aliases and family defaults, and an out-of-memory
 * sweep. */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "rf_fixtures.h"
#include "rf_test.h"
#include "roofline/safetensors.h"

#define FIX RF_FIXTURES_DIR "safetensors/"

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

static int64_t jint(json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

RF_TEST(fixture_gpt2_tiny)
{
    RF_NEED_FIXTURES();
    json_error_t err;
    json_t *ref = json_load_file(FIX "gpt2_tiny.ref.json", 0, &err);
    RF_EXPECT(ref != NULL);
    rf_ctx *ctx = new_ctx();
    rf_safetensors *st = NULL;
    const char *paths[2] = {FIX "gpt2_tiny/model.safetensors", FIX "gpt2_tiny"};
    for (int k = 0; k < 2 && ref; k++) {
        RF_EXPECT_INT(rf_safetensors_read_file(ctx, paths[k], &st), RF_OK);
        if (!st) break;
        json_t *lay = json_object_get(ref, "layout");
        RF_EXPECT_INT(st->header_size, jint(lay, "header_size"));
        RF_EXPECT_INT(st->data_start, jint(lay, "data_start"));
        RF_EXPECT_INT(st->data_size, jint(lay, "data_size"));
        RF_EXPECT_INT(st->file_size, jint(lay, "file_size"));
        RF_EXPECT_INT(st->params, jint(ref, "params"));
        RF_EXPECT_INT(st->weight_bytes, jint(ref, "weight_bytes"));
        RF_EXPECT_STR(rf_safetensors_meta(st, "format"), "pt");
        json_t *ts = json_object_get(ref, "tensors");
        RF_EXPECT_INT(st->n_tensors, json_array_size(ts));
        for (size_t i = 0; i < json_array_size(ts); i++) {
            json_t *t = json_array_get(ts, i);
            const rf_st_tensor *s =
                rf_safetensors_find(st, json_string_value(json_object_get(t, "name")));
            RF_EXPECT(s != NULL);
            if (!s) continue;
            RF_EXPECT_STR(rf_dtype_name(s->dtype), json_string_value(json_object_get(t, "dtype")));
            json_t *sh = json_object_get(t, "shape"), *off = json_object_get(t, "data_offsets");
            RF_EXPECT_INT(s->rank, json_array_size(sh));
            for (size_t d = 0; d < json_array_size(sh); d++)
                RF_EXPECT_INT(s->shape[d], json_integer_value(json_array_get(sh, d)));
            RF_EXPECT_INT(s->begin, json_integer_value(json_array_get(off, 0)));
            RF_EXPECT_INT(s->end, json_integer_value(json_array_get(off, 1)));
            RF_EXPECT_INT(s->n_bytes, jint(t, "nbytes"));
            RF_EXPECT_INT(s->n_elements, jint(t, "elements"));
        }
        rf_safetensors_free(st);
        st = NULL;
    }
    rf_hfconfig c;
    RF_EXPECT_INT(rf_hfconfig_read_beside(ctx, FIX "gpt2_tiny/model.safetensors", &c), RF_OK);
    json_t *hp = json_object_get(ref, "hparams");
    RF_EXPECT_STR(c.model_type, "gpt2");
    RF_EXPECT_INT(c.hidden_size, jint(hp, "n_embd"));
    RF_EXPECT_INT(c.num_hidden_layers, jint(hp, "n_layer"));
    RF_EXPECT_INT(c.num_attention_heads, jint(hp, "n_head"));
    RF_EXPECT_INT(c.vocab_size, jint(hp, "vocab"));
    RF_EXPECT_INT(c.max_position_embeddings, jint(hp, "n_positions"));
    RF_EXPECT_INT(c.intermediate_size, jint(hp, "n_inner"));
    RF_EXPECT_INT(c.num_key_value_heads, 4);
    RF_EXPECT_INT(c.head_dim, 32);
    RF_EXPECT_INT(c.tie_word_embeddings, 1);
    RF_EXPECT_STR(c.hidden_act, "gelu_new");
    rf_ctx_free(ctx);
    json_decref(ref);
}

/* An image from a header text (padded with spaces to a multiple of 8) and `data` zero bytes. */
static size_t make(uint8_t *buf, size_t cap, const char *header, size_t data)
{
    size_t n = strlen(header), pad = (8 - n % 8) % 8;
    if (8 + n + pad + data > cap) abort();
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)((uint64_t)(n + pad) >> (8 * i));
    memcpy(buf + 8, header, n);
    memset(buf + 8 + n, ' ', pad);
    memset(buf + 8 + n + pad, 0, data);
    return 8 + n + pad + data;
}

static void expect_st(const char *header, size_t data, rf_status want, const char *msg)
{
    static uint8_t buf[1 << 16];
    size_t n = make(buf, sizeof buf, header, data);
    rf_ctx *ctx = new_ctx();
    rf_safetensors *st = NULL;
    rf_status s = rf_safetensors_parse(ctx, buf, n, &st);
    if (s != want)
        RF_FAIL_AT("%s: status %d want %d (%s)", header, (int)s, (int)want, rf_ctx_errmsg(ctx));
    if (want != RF_OK) {
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), msg);
        RF_EXPECT(rf_ctx_error_offset(ctx) >= 0 && (size_t)rf_ctx_error_offset(ctx) <= n);
        RF_EXPECT(st == NULL);
    }
    rf_safetensors_free(st);
    rf_ctx_free(ctx);
}

RF_TEST(valid_small)
{
    expect_st("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,3],\"data_offsets\":[0,12]},"
              "\"b\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[12,14]},"
              "\"e\":{\"dtype\":\"F32\",\"shape\":[0,5],\"data_offsets\":[14,14]},"
              "\"s\":{\"dtype\":\"I8\",\"shape\":[],\"data_offsets\":[14,15]},"
              "\"__metadata__\":{\"format\":\"pt\"}}",
              15, RF_OK, NULL);
    expect_st("{}", 0, RF_OK, NULL);
}

RF_TEST(refusals)
{
    const char *t1 = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    expect_st(t1, 4, RF_FORMAT, "'a' at header byte 9: data_offsets are outside the data buffer");
    expect_st(t1, 12, RF_FORMAT, "not fully covered: tensors end at byte 72, the file at byte 76");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, RF_FORMAT,
              "do not span elements x dtype size");
    expect_st("{\"a\":{\"dtype\":\"Q4_K\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8,
              RF_UNSUPPORTED, "unknown dtype Q4_K");
    expect_st(
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,8]}}", 8,
        RF_RANGE, "product of its shape overflows");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4,
              RF_UNSUPPORTED, "rank above 8");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, RF_FORMAT,
              "not a non-negative integer");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4, RF_FORMAT,
              "outside the data buffer");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
              "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
              4, RF_FORMAT, "overlaps another tensor");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, RF_FORMAT,
              "a hole in the data buffer before it");
    expect_st("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1, RF_FORMAT,
              "do not fill whole bytes");
    /* the header is read one member at a time: a repeated name is found by the tensor index */
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]},"
              "\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}}",
              0, RF_FORMAT, "'a' appears twice in the header (a duplicate object key)");
    expect_st("{\"__metadata__\":{},\"__metadata__\":{}}", 0, RF_FORMAT, "'__metadata__' twice");
    expect_st("{\"a\":{\"dtype\":\"F32\",\"shape\":[0],\"dtype\":\"F16\"}}", 0, RF_FORMAT,
              "duplicate object key");
    expect_st("{\"__metadata__\":{\"k\":1}}", 0, RF_FORMAT, "__metadata__ value");
    expect_st("[1]", 0, RF_FORMAT, "does not start with '{'");
    expect_st("{\"a\":", 0, RF_FORMAT, "header JSON at byte");
    /* header lengths: beyond the file, beyond 100 MB, file shorter than 8 bytes */
    uint8_t b[16] = {0xF0, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    rf_ctx *ctx = new_ctx();
    rf_safetensors *st = NULL;
    RF_EXPECT_INT(rf_safetensors_parse(ctx, b, 10, &st), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "header length 240 at byte 0 is larger than the file");
    b[0] = 0;
    b[4] = 0x80;
    RF_EXPECT_INT(rf_safetensors_parse(ctx, b, 10, &st), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "larger than the 100 MB limit");
    RF_EXPECT_INT(rf_safetensors_parse(ctx, b, 5, &st), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "truncated");
    rf_ctx_free(ctx);
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) RF_FAIL_AT("cannot write %s", path);
    if (f) fclose(f);
}

RF_TEST(sharded_index)
{
    char dir[256], p[512], cmd[600];
    snprintf(dir, sizeof dir, RF_BINARY_DIR "/st_shards_%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) RF_FAIL_AT("mkdir");
    static uint8_t buf[4096];
    size_t n = make(buf, sizeof buf,
                    "{\"x\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}", 8);
    snprintf(p, sizeof p, "%s/model-00001-of-00002.safetensors", dir);
    write_file(p, buf, n);
    n = make(buf, sizeof buf, "{\"y\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
             12);
    snprintf(p, sizeof p, "%s/model-00002-of-00002.safetensors", dir);
    write_file(p, buf, n);
    const char *idx = "{\"metadata\":{\"total_size\":20},\"weight_map\":{"
                      "\"x\":\"model-00001-of-00002.safetensors\","
                      "\"y\":\"model-00002-of-00002.safetensors\"}}";
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    write_file(p, idx, strlen(idx));
    rf_ctx *ctx = new_ctx();
    rf_safetensors *st = NULL;
    RF_EXPECT_INT(rf_safetensors_read_file(ctx, dir, &st), RF_OK);
    if (st) {
        RF_EXPECT_INT(st->n_shards, 2);
        RF_EXPECT_INT(st->n_tensors, 2);
        RF_EXPECT_INT(st->params, 7);
        RF_EXPECT_INT(st->weight_bytes, 20);
        RF_EXPECT(rf_safetensors_find(st, "y") && rf_safetensors_find(st, "y")->shard == 1);
    }
    rf_safetensors_free(st);
    st = NULL;
    const char *bad[] = {
        ("{\"weight_map\":{\"x\":\"model-00001-of-00002.safetensors\","
         "\"y\":\"model-00001-of-00002.safetensors\"}}"),
        "{\"weight_map\":{\"x\":\"model-00001-of-00002.safetensors\"}}",
        "{\"weight_map\":{\"x\":\"../model-00001-of-00002.safetensors\"}}",
        "{\"weight_map\":{\"x\":\"missing.safetensors\"}}",
        "{\"weight_map\":[]}",
    };
    const char *msgs[] = {"the weight_map lists 2 tensors but the shards hold 1",
                          "the weight_map lists 1 tensors but the shards hold 1",
                          "is not a plain file name", "missing.safetensors", "weight_map"};
    for (int i = 0; i < 5; i++) {
        write_file(p, bad[i], strlen(bad[i]));
        rf_status s = rf_safetensors_read_file(ctx, p, &st);
        if (i == 1) { /* y is unlisted but its shard is not opened: x alone is consistent */
            RF_EXPECT_INT(s, RF_OK);
            rf_safetensors_free(st);
            st = NULL;
            continue;
        }
        RF_EXPECT(s != RF_OK);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), msgs[i]);
        RF_EXPECT(st == NULL);
    }
    rf_ctx_free(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) RF_FAIL_AT("rm");
}

RF_TEST(hfconfig_families)
{
    rf_ctx *ctx = new_ctx();
    rf_hfconfig c;
    const char *llama = "{\"model_type\":\"llama\",\"hidden_size\":4096,\"num_hidden_layers\":32,"
                        "\"num_attention_heads\":32,\"num_key_value_heads\":8,"
                        "\"intermediate_size\":14336,\"vocab_size\":128256,\"rms_norm_eps\":1e-5,"
                        "\"max_position_embeddings\":8192}";
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, llama, strlen(llama), &c), RF_OK);
    RF_EXPECT_INT(c.num_key_value_heads, 8);
    RF_EXPECT_INT(c.head_dim, 128);
    RF_EXPECT_INT(c.tie_word_embeddings, 0);
    RF_EXPECT_DBL(c.rms_norm_eps, 1e-5);
    const char *gemma = "{\"model_type\":\"gemma\",\"hidden_size\":2048,\"head_dim\":256,"
                        "\"num_attention_heads\":8,\"num_key_value_heads\":1}";
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, gemma, strlen(gemma), &c), RF_OK);
    RF_EXPECT_INT(c.head_dim, 256);
    RF_EXPECT_INT(c.tie_word_embeddings, 1);
    const char *gpt2 = "{\"model_type\":\"gpt2\"}";
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, gpt2, strlen(gpt2), &c), RF_OK);
    RF_EXPECT_INT(c.hidden_size, 768);
    RF_EXPECT_INT(c.intermediate_size, 3072);
    RF_EXPECT_INT(c.vocab_size, 50257);
    const char *moe =
        "{\"model_type\":\"mixtral\",\"num_local_experts\":8,\"num_experts_per_tok\":2}";
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, moe, strlen(moe), &c), RF_OK);
    RF_EXPECT_INT(c.num_experts, 8);
    RF_EXPECT_INT(c.num_experts_per_tok, 2);
    const char *bad = "{\"model_type\":\"llama\",\"hidden_size\":\"4096\"}";
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, bad, strlen(bad), &c), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "\"hidden_size\" is not a non-negative integer");
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, "{", 1, &c), RF_FORMAT);
    RF_EXPECT_INT(rf_hfconfig_read_beside(ctx, RF_BINARY_DIR "/nowhere/model.safetensors", &c),
                  RF_IO);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "nowhere/config.json");
    rf_ctx_free(ctx);
}

RF_TEST(out_of_memory_sweep)
{
    static uint8_t buf[4096];
    size_t n = make(buf, sizeof buf,
                    "{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                    "\"__metadata__\":{\"format\":\"pt\"}}",
                    4);
    rf_ctx *ctx = new_ctx();
    int ok = 0;
    for (uint64_t k = 1; k < 32 && !ok; k++) {
        rf_ctx_fail_alloc_after(ctx, k, 1);
        rf_safetensors *st = NULL;
        rf_status s = rf_safetensors_parse(ctx, buf, n, &st);
        if (s == RF_OK)
            ok = 1;
        else
            RF_EXPECT_INT(s, RF_NOMEM);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        rf_safetensors_free(st);
    }
    RF_EXPECT(ok);
    rf_ctx_free(ctx);
}
