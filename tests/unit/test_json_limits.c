/* test_json_limits.c — memory bounded by what is kept (issue 11 item 3): every JSON reader
 * (result, machine file, SafeTensors header and index, config.json, ops elements) refuses a
 * document whose items hold more values than the format needs, or whose strings are absurdly
 * long, before jansson builds its tree — and says so in one line; a GGUF claiming more tensors
 * than any model has is refused before allocating. Documents are made in memory (1-3 MB). */
#include <stdint.h>
#include <stdlib.h>

#include "rf_test.h"
#include "roofline/roofline.h"

/* prefix + n copies of item (separated by ',') + suffix, in a malloc'ed buffer. */
static char *repeat(const char *prefix, const char *item, size_t n, const char *suffix, size_t *len)
{
    size_t a = strlen(prefix), b = strlen(item), c = strlen(suffix);
    char *s = malloc(a + n * (b + 1) + c + 1);
    if (!s) exit(1);
    memcpy(s, prefix, a);
    size_t k = a;
    for (size_t i = 0; i < n; i++) {
        if (i) s[k++] = ',';
        memcpy(s + k, item, b);
        k += b;
    }
    memcpy(s + k, suffix, c + 1);
    *len = k + c;
    return s;
}

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) exit(1);
    return ctx;
}

static void one_line(rf_ctx *ctx)
{
    for (const char *p = rf_ctx_errmsg(ctx); *p; p++) RF_EXPECT((unsigned char)*p >= 0x20);
}

RF_TEST(result_rows_of_scalars_and_fat_rows)
{
    rf_ctx *ctx = new_ctx();
    rf_result *r = NULL;
    size_t n;
    char *s = repeat("{\"schema\":1,\"kind\":\"analysis\",\"rows\":[", "1", 1000000, "]}", &n);
    RF_EXPECT_INT(rf_result_parse_json(ctx, s, n, "r.json", &r), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "r.json: at byte");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "not objects");
    one_line(ctx);
    free(s);
    s = repeat("{\"schema\":1,\"rows\":[{\"name\":[", "0", 500000, "]}]}", &n);
    RF_EXPECT_INT(rf_result_parse_json(ctx, s, n, "r.json", &r), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "an item holds more than 64 JSON values");
    free(s);
    s = repeat("{\"title\":[", "0", 500000, "]}", &n);
    RF_EXPECT_INT(rf_result_parse_json(ctx, s, n, "r.json", &r), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "outside the main list");
    free(s);
    RF_EXPECT(r == NULL);
    rf_ctx_free(ctx);
}

RF_TEST(machine_ceiling_with_a_huge_array)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    size_t n;
    char *s = repeat("{\"name\":\"x\",\"ceilings\":[{\"name\":\"L1\",\"note\":[", "1", 400000,
                     "]}]}", &n);
    RF_EXPECT_INT(rf_machine_parse_json(ctx, s, n, "m.json", &m), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "m.json: at byte");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "more than 64 JSON values");
    free(s);
    RF_EXPECT(m == NULL);
    rf_ctx_free(ctx);
}

RF_TEST(safetensors_header_with_a_huge_shape)
{
    rf_ctx *ctx = new_ctx();
    size_t n;
    char *h = repeat("{\"a\":{\"dtype\":\"F32\",\"shape\":[", "1", 300000,
                     "],\"data_offsets\":[0,0]}}", &n);
    unsigned char *f = malloc(8 + n);
    RF_REQUIRE(f != NULL);
    for (int i = 0; i < 8; i++) f[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memcpy(f + 8, h, n);
    rf_safetensors *st = NULL;
    RF_EXPECT_INT(rf_safetensors_parse(ctx, f, 8 + n, &st), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "SafeTensors header JSON");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "more than 32 JSON values");
    one_line(ctx);
    RF_EXPECT(st == NULL);
    free(h);
    free(f);
    rf_ctx_free(ctx);
}

RF_TEST(config_json_limits)
{
    rf_ctx *ctx = new_ctx();
    rf_hfconfig c;
    size_t n;
    char *s = repeat("{\"x\":[", "1", 600000, "]}", &n);
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, s, n, &c), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "config.json: at byte");
    free(s);
    s = repeat("{\"model_type\":\"", "aaaaaaaaaaaaaaa", 80000, "\"}", &n);
    RF_EXPECT_INT(rf_hfconfig_parse(ctx, s, n, &c), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "a string of more than 1048576 bytes");
    free(s);
    rf_ctx_free(ctx);
}

static rf_status count_row(void *user, const rf_op_row *row)
{
    (void)row;
    ++*(size_t *)user;
    return RF_OK;
}

RF_TEST(ops_element_with_a_huge_array)
{
    rf_ctx *ctx = new_ctx();
    size_t n, rows = 0;
    char *s = repeat("[{\"name\":\"a\",\"flops\":1,\"bytes\":1},{\"name\":\"b\",\"flops\":[", "1",
                     500000, "],\"bytes\":1}]", &n);
    RF_EXPECT_INT(rf_ops_parse(ctx, s, n, RF_OPS_JSON, count_row, &rows), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "ops[1]");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "more than 16 JSON values");
    RF_EXPECT_INT(rows, 1);
    free(s);
    rf_ctx_free(ctx);
}

RF_TEST(gguf_implausible_tensor_count)
{
    /* a 1 GB file (as a sparse one would be) claiming (size-24)/24 tensors: only the 24-byte
     * header is given, the size is what the count is checked against */
    rf_ctx *ctx = new_ctx();
    size_t size = (size_t)1 << 30;
    unsigned char *f = calloc(1, size);
    if (!f) {
        rf_ctx_free(ctx);
        RF_SKIP("cannot allocate 1 GB of zeros (lazily)");
    }
    uint64_t nt = (size - 24) / 24;
    memcpy(f, "GGUF", 4);
    f[4] = 3;
    for (int i = 0; i < 8; i++) f[8 + i] = (unsigned char)(nt >> (8 * i));
    rf_gguf *g = NULL;
    RF_EXPECT_INT(rf_gguf_parse(ctx, f, size, &g), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "tensor count 44739241 at byte 8 is implausible");
    RF_EXPECT(g == NULL);
    free(f);
    rf_ctx_free(ctx);
}

RF_TEST(file_keywords_in_messages_stay_one_line)
{
    /* found by fuzz_machine: a unit "GB\n\n}/s" reached the message raw */
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    static const char mj[] = "{\"name\": \"x\", \"ceilings\": [{\"name\": \"fp32\", \"kind\": "
                             "\"compute\", \"value\": 1e12}, {\"name\": \"DRAM\", \"kind\": "
                             "\"bandwidth\", \"value\": 1e11, \"unit\": \"GB\\n\\n}/s\"}]}";
    RF_EXPECT_INT(rf_machine_parse_json(ctx, mj, sizeof mj - 1, "m.json", &m), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "unit 'GB\\x0a\\x0a}/s'");
    one_line(ctx);
    rf_result *r = NULL;
    static const char rj[] = "{\"schema\":1,\"kind\":\"a\\nb\"}";
    RF_EXPECT_INT(rf_result_parse_json(ctx, rj, sizeof rj - 1, "r.json", &r), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "kind 'a?b'");
    one_line(ctx);
    rf_ctx_free(ctx);
}
