/* test_gguf.c — the GGUF reader (roofline/gguf.h) against the fixtures in tests/data/gguf (every
 * figure compared with the fixture's .ref.json, read here with jansson: layout, tensors, params,
 * by_type, weight_bytes, bits per weight, key/values), hand-made images for every refusal (with
 * its message and byte offset), big-endian files, arrays walked on demand, split sets, and an
 * out-of-memory sweep. */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "rf_fixtures.h"
#include "rf_test.h"
#include "roofline/gguf.h"
#include "gguf_build.h"

#define FIX RF_FIXTURES_DIR "gguf/"

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

static int str_is(rf_gguf_str s, const char *c)
{
    return s.len == strlen(c) && memcmp(s.ptr, c, s.len) == 0;
}

/* Compare a parsed file with the fixture's .ref.json, field by field. */
static void check_against_ref(const char *model)
{
    char path[512], refp[512];
    rf_test_gguf_fixture(model, path, sizeof path);
    snprintf(refp, sizeof refp, FIX "%.*s.ref.json", (int)(strstr(model, ".gguf") - model), model);
    json_error_t err;
    json_t *ref = json_load_file(refp, 0, &err);
    RF_EXPECT(ref != NULL);
    if (!ref) return;
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    rf_status st = rf_gguf_read_file(ctx, path, &g);
    if (st != RF_OK) RF_FAIL_AT("open %s: %s", path, rf_ctx_errmsg(ctx));
    if (!g) goto done;
    json_t *lay = json_object_get(ref, "layout");
    RF_EXPECT_INT(g->alignment, jint(lay, "alignment"));
    RF_EXPECT_INT(g->kv_end, jint(lay, "kv_end"));
    RF_EXPECT_INT(g->tensor_info_end, jint(lay, "tensor_info_end"));
    RF_EXPECT_INT(g->data_offset, jint(lay, "data_offset"));
    RF_EXPECT_INT(g->file_size, jint(lay, "file_size"));
    RF_EXPECT_INT(g->weight_bytes, jint(lay, "data_size"));
    RF_EXPECT_INT(g->params, jint(ref, "params"));
    RF_EXPECT_INT(g->weight_bytes, jint(ref, "weight_bytes"));
    RF_EXPECT_INT(g->version, 3);
    RF_EXPECT_INT(g->n_shards, 1);
    double bpw = 8.0 * (double)g->weight_bytes / (double)g->params;
    RF_EXPECT_NEAR(bpw, json_real_value(json_object_get(ref, "bits_per_weight_overall")), 1e-6);
    /* by_type */
    const char *tname;
    json_t *bt;
    json_object_foreach(json_object_get(ref, "by_type"), tname, bt)
    {
        int id = rf_ggml_type_from_name(tname);
        RF_EXPECT(id >= 0);
        int64_t n = 0, el = 0, by = 0;
        for (uint64_t i = 0; i < g->n_tensors; i++)
            if ((int)g->tensors[i].type == id) {
                n++;
                el += (int64_t)g->tensors[i].n_elements;
                by += (int64_t)g->tensors[i].n_bytes;
            }
        RF_EXPECT_INT(n, jint(bt, "tensors"));
        RF_EXPECT_INT(el, jint(bt, "elements"));
        RF_EXPECT_INT(by, jint(bt, "bytes"));
    }
    /* every tensor, in file order */
    json_t *man = json_object_get(ref, "gguf_manifest"), *ts = json_object_get(man, "tensors");
    RF_EXPECT_INT(g->n_tensors, json_array_size(ts));
    for (size_t i = 0; i < json_array_size(ts) && i < g->n_tensors; i++) {
        json_t *t = json_array_get(ts, i);
        const rf_gguf_tensor *gt = &g->tensors[i];
        RF_EXPECT(str_is(gt->name, json_string_value(json_object_get(t, "name"))));
        RF_EXPECT(rf_gguf_tensor_find(g, json_string_value(json_object_get(t, "name"))) == gt);
        json_t *dims = json_object_get(t, "dims");
        RF_EXPECT_INT(gt->n_dims, json_array_size(dims));
        for (size_t d = 0; d < json_array_size(dims); d++)
            RF_EXPECT_INT(gt->dims[d], json_integer_value(json_array_get(dims, d)));
        RF_EXPECT_INT(gt->type, jint(t, "type_id"));
        RF_EXPECT_STR(rf_ggml_type_name(gt->type), json_string_value(json_object_get(t, "type")));
        RF_EXPECT_INT(gt->offset, jint(t, "offset"));
        RF_EXPECT_INT(gt->n_bytes, jint(t, "nbytes"));
        RF_EXPECT_INT(gt->n_elements, jint(t, "elements"));
        RF_EXPECT_INT(gt->file_offset, gt->offset + g->data_offset);
    }
    /* every key/value: type, scalar value, array subtype/length/first elements */
    json_t *kvs = json_object_get(man, "kv");
    RF_EXPECT_INT(g->n_kv, json_array_size(kvs));
    for (size_t i = 0; i < json_array_size(kvs); i++) {
        json_t *e = json_array_get(kvs, i);
        const char *key = json_string_value(json_object_get(e, "key"));
        const rf_gguf_kv *kv = rf_gguf_find(g, key);
        RF_EXPECT(kv == &g->kv[i]);
        if (!kv) continue;
        RF_EXPECT_STR(rf_gguf_vtype_name(kv->value.type),
                      json_string_value(json_object_get(e, "type")));
        json_t *v = json_object_get(e, "value");
        if (kv->value.type == RF_GGUF_U32) RF_EXPECT_INT(kv->value.v.u, json_integer_value(v));
        if (kv->value.type == RF_GGUF_F32)
            RF_EXPECT_NEAR(kv->value.v.f, json_number_value(v), 1e-6);
        if (kv->value.type == RF_GGUF_STRING)
            RF_EXPECT(str_is(kv->value.v.s, json_string_value(v)));
        if (kv->value.type == RF_GGUF_ARRAY) {
            RF_EXPECT_STR(rf_gguf_vtype_name(kv->value.arr_type),
                          json_string_value(json_object_get(e, "subtype")));
            RF_EXPECT_INT(kv->value.arr_count, jint(e, "length"));
            rf_gguf_iter it;
            rf_gguf_value ev;
            rf_gguf_array_iter(g, &kv->value, &it);
            json_t *head = json_object_get(e, "head");
            uint64_t n = 0;
            while (rf_gguf_array_next(&it, &ev)) {
                json_t *h = json_array_get(head, n);
                if (h && ev.type == RF_GGUF_STRING) RF_EXPECT(str_is(ev.v.s, json_string_value(h)));
                if (h && ev.type == RF_GGUF_I32) RF_EXPECT_INT(ev.v.i, json_integer_value(h));
                n++;
            }
            RF_EXPECT_INT(n, kv->value.arr_count);
        }
    }
done:
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    json_decref(ref);
}

RF_TEST(fixture_tiny_llama_mixed)
{
    RF_NEED_FIXTURES();
    check_against_ref("tiny_llama_mixed.gguf");
}

RF_TEST(fixture_tinystories_f32)
{
    RF_NEED_FIXTURES();
    check_against_ref("tinystories15m_f32.gguf");
}

RF_TEST(fixture_tinystories_q8_0)
{
    RF_NEED_FIXTURES();
    check_against_ref("tinystories15m_q8_0.gguf");
}

RF_TEST(typed_getters)
{
    RF_NEED_FIXTURES();
    char path[512];
    rf_test_gguf_fixture("tiny_llama_mixed.gguf", path, sizeof path);
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    RF_EXPECT_INT(rf_gguf_read_file(ctx, path, &g), RF_OK);
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    double f = 0;
    rf_gguf_str s = {0};
    RF_EXPECT_INT(rf_gguf_get_u32(ctx, g, "llama.block_count", &u32), RF_OK);
    RF_EXPECT_INT(u32, 2);
    RF_EXPECT_INT(rf_gguf_get_u64(ctx, g, "llama.attention.head_count_kv", &u64), RF_OK);
    RF_EXPECT_INT(u64, 2);
    RF_EXPECT_INT(rf_gguf_get_f64(ctx, g, "llama.rope.freq_base", &f), RF_OK);
    RF_EXPECT_DBL(f, 10000.0);
    RF_EXPECT_INT(rf_gguf_get_str(ctx, g, "general.architecture", &s), RF_OK);
    RF_EXPECT(str_is(s, "llama"));
    RF_EXPECT_INT(rf_gguf_get_array_len(ctx, g, "tokenizer.ggml.tokens", &u64), RF_OK);
    RF_EXPECT_INT(u64, 512);
    RF_EXPECT_INT(rf_gguf_get_u32(ctx, g, "general.architecture", &u32), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "'general.architecture'");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "STRING value, expected an integer");
    RF_EXPECT_INT(rf_gguf_get_u32(ctx, g, "llama.expert_count", &u32), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "missing key 'llama.expert_count'");
    RF_EXPECT_INT(rf_gguf_get_str(ctx, g, "llama.block_count", &s), RF_FORMAT);
    RF_EXPECT(rf_gguf_find(g, "nope") == NULL);
    RF_EXPECT(rf_gguf_tensor_find(g, "output.weight") != NULL);
    RF_EXPECT(rf_gguf_tensor_find(g, "output.weigh") == NULL);
    rf_gguf_free(g);
    rf_ctx_free(ctx);
}

RF_TEST(ggml_types)
{
    uint32_t b = 0, s = 0;
    RF_EXPECT(rf_ggml_type_block(12, &b, &s));
    RF_EXPECT_INT(b, 256);
    RF_EXPECT_INT(s, 144);
    RF_EXPECT(rf_ggml_type_block(14, &b, &s) && b == 256 && s == 210);
    RF_EXPECT(rf_ggml_type_block(8, &b, &s) && b == 32 && s == 34);
    RF_EXPECT(rf_ggml_type_block(15, &b, &s) && b == 256 && s == 292);
    RF_EXPECT(rf_ggml_type_block(39, &b, &s) && b == 32 && s == 17);
    RF_EXPECT(rf_ggml_type_block(42, &b, &s) && b == 64 && s == 18);
    RF_EXPECT(!rf_ggml_type_block(4, &b, &s));
    RF_EXPECT(!rf_ggml_type_block(31, &b, &s));
    RF_EXPECT(!rf_ggml_type_block(43, &b, &s));
    RF_EXPECT_STR(rf_ggml_type_name(23), "IQ4_XS");
    RF_EXPECT_INT(rf_ggml_type_from_name("q6_k"), 14);
    RF_EXPECT_INT(rf_ggml_type_from_name("Q4_2"), -1);
}
