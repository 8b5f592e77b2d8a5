/* test_apr_bad.c — the APR reader refusing broken files (reference/apr-format.md section 11):
 * every edit of a valid file's header, index and metadata with its status and words, the metadata
 * aliases that must still read, truncation at every byte, allocation failures. Each refusal is one
 * sentence naming the file; no refusal leaves a result behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apr_build.h"
#include "rf_test.h"
#include "roofline/roofline.h"

#define APR_DIR RF_SOURCE_DIR "/tests/data/apr/"

static uint64_t sz_f32(uint64_t n)
{
    return 4 * n;
}

/* Each mutation of a valid v2 file and the status and words it must produce. */
typedef struct bad {
    const char *what, *meta;
    rf_status st;
    const char *words;
} bad;

static void expect_bad(rf_ctx *ctx, const uint8_t *p, size_t n, const char *what, rf_status st,
                       const char *words)
{
    rf_apr *a = NULL;
    rf_status got = rf_apr_parse(ctx, p, n, what, 0, &a);
    if (got != st || a)
        RF_FAIL_AT("%s: status %d, expected %d (%s)", what, got, st, rf_ctx_errmsg(ctx));
    else if (!strstr(rf_ctx_errmsg(ctx), words) || !strstr(rf_ctx_errmsg(ctx), what))
        RF_FAIL_AT("%s: message lacks '%s': %s", what, words, rf_ctx_errmsg(ctx));
    rf_apr_free(a);
}

static const char *GOOD_META = "{\"architecture\":\"llama\",\"hidden_size\":128,\"num_layers\":1,"
                               "\"num_heads\":2,\"num_kv_heads\":1,\"vocab_size\":96}";

RF_TEST(hostile_metadata)
{
    static const bad cs[] = {
        {"notjson.apr", "{\"a\":", RF_FORMAT, "not valid JSON"},
        {"array.apr", "[1,2]", RF_FORMAT, "not a JSON object"},
        {"dupkey.apr", "{\"num_heads\":2,\"num_heads\":2}", RF_FORMAT, "appears twice"},
        {"control.apr", "{\"name\":\"a\tb\"}", RF_FORMAT, "not valid JSON"},
        {"utf8.apr", "{\"name\":\"\xff\"}", RF_FORMAT, "not valid JSON"},
        {"trail.apr", "{} x", RF_FORMAT, "not valid JSON"},
        {"zeroheads.apr", "{\"num_heads\":0}", RF_FORMAT, "head count is zero"},
        {"kvdiv.apr", "{\"num_heads\":2,\"num_kv_heads\":3}", RF_FORMAT, "do not divide"},
        {"hiddiv.apr", "{\"hidden_size\":128,\"num_heads\":3}", RF_FORMAT, "do not divide"},
        {"layers.apr", "{\"num_hidden_layers\":5}", RF_FORMAT, "but the tensors hold 1 blocks"},
        {"hidden.apr", "{\"hidden_dim\":64}", RF_FORMAT, "hidden size 64"},
        {"vocab.apr", "{\"vocab_size\":100}", RF_FORMAT, "vocabulary 100"},
        {"negative.apr", "{\"num_layers\":-1}", RF_FORMAT, "negative"},
        {"string.apr", "{\"num_heads\":\"2\"}", RF_FORMAT, "of another type"},
        {"fraction.apr", "{\"intermediate_size\":1.5}", RF_FORMAT, "intermediate_size"},
        {"mconfig.apr", "{\"model_config\":\"[1]\"}", RF_FORMAT, "model_config"},
    };
    ab_t t[32];
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    size_t n = ab_llama(t, 128, 2, 1, 256, 96, 1, 0, 0, sz_f32);
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        gb b;
        ab_v2(&b, cs[i].meta, t, n, 0x0400, AB_PAD | AB_FOOTER);
        expect_bad(ctx, b.p, b.n, cs[i].what, cs[i].st, cs[i].words);
        gb_free(&b);
    }
    { /* nesting deeper than 128 */
        char deep[512] = "{\"x\":";
        size_t k = strlen(deep);
        for (int d = 0; d < 200; d++) deep[k++] = '[';
        for (int d = 0; d < 200; d++) deep[k++] = ']';
        deep[k++] = '}';
        deep[k] = '\0';
        gb b;
        ab_v2(&b, deep, t, n, 0x0400, AB_PAD | AB_FOOTER);
        expect_bad(ctx, b.p, b.n, "deep.apr", RF_FORMAT, "not valid JSON");
        gb_free(&b);
    }
    /* aliases: realizar's keys, the model.* duplicates, an entrenar model_config string */
    static const char *const ok[] = {
        "{\"num_hidden_layers\":1,\"num_attention_heads\":2,\"num_key_value_heads\":1,"
        "\"hidden_size\":128,\"intermediate_dim\":256,\"model_type\":\"LLaMA\"}",
        "{\"model.hidden_size\":128,\"model.num_layers\":1,\"model.num_heads\":2,"
        "\"model.num_kv_heads\":1,\"model.architecture\":\"llama\",\"hidden_size\":null}",
        "{\"model_config\":\"{\\\"hidden_size\\\":128,\\\"num_layers\\\":1,\\\"num_heads\\\":2,"
        "\\\"architecture\\\":\\\"llama\\\"}\"}",
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        gb b;
        rf_apr *a = NULL;
        ab_v2(&b, ok[i], t, n, 0x0400, AB_PAD | AB_FOOTER);
        RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "alias.apr", 0, &a), RF_OK);
        if (a) {
            RF_EXPECT_STR(a->hp.architecture, "llama");
            RF_EXPECT_INT(a->hp.hidden_size, 128);
            RF_EXPECT_INT(a->hp.num_layers, 1);
            RF_EXPECT_INT(a->hp.num_heads, 2);
            RF_EXPECT_INT(a->hp.vocab_size, 96);
        } else {
            fprintf(stderr, "%s\n", rf_ctx_errmsg(ctx));
        }
        rf_apr_free(a);
        gb_free(&b);
    }
    rf_ctx_free(ctx);
}

/* Edits of the header and index of a valid file. */
RF_TEST(hostile_layout)
{
    ab_t t[32];
    gb b;
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    size_t n = ab_llama(t, 128, 2, 1, 256, 96, 1, 0, 0, sz_f32);
    ab_v2(&b, GOOD_META, t, n, 0x0400, AB_PAD | AB_FOOTER);
    uint8_t *c = malloc(b.n + 16);
    const uint64_t io = 64 + (strlen(GOOD_META) + 63) / 64 * 64;
#define EDIT(stmt, fix)                                                                            \
    do {                                                                                           \
        memcpy(c, b.p, b.n);                                                                       \
        stmt;                                                                                      \
        if (fix) ab_fix_crc(c);                                                                    \
    } while (0)
    EDIT((c[41] ^= 1, ab_put32(c + b.n - 4, rf__apr_crc32(0, c, b.n - 4))), 0);
    expect_bad(ctx, c, b.n, "crc.apr", RF_FORMAT, "header CRC32");
    rf_apr *a = NULL;
    RF_EXPECT_INT(rf_apr_parse(ctx, c, b.n, "lenient.apr", RF_APR_LENIENT_CRC, &a), RF_OK);
    rf_apr_free(a);
    EDIT(c[b.n - 1] ^= 1, 0);
    expect_bad(ctx, c, b.n, "footer.apr", RF_FORMAT, "footer CRC32");
    EDIT(ab_put64(c + 12, UINT64_MAX - 8), 1);
    expect_bad(ctx, c, b.n, "metaoff.apr", RF_FORMAT, "metadata");
    EDIT(ab_put32(c + 20, 0x7fffffff), 1);
    expect_bad(ctx, c, b.n, "metasize.apr", RF_FORMAT, "metadata");
    EDIT(ab_put64(c + 24, 70), 1);
    expect_bad(ctx, c, b.n, "overlap.apr", RF_FORMAT, "tensor index offset");
    EDIT(ab_put64(c + 32, b.n + 1), 1);
    expect_bad(ctx, c, b.n, "dataoff.apr", RF_FORMAT, "data offset");
    EDIT(ab_put32(c + 8, 1000000), 1);
    expect_bad(ctx, c, b.n, "count.apr", RF_FORMAT, "tensor count");
    EDIT((c[6] = 0x04, c[7] = 0x04), 1);
    expect_bad(ctx, c, b.n, "encrypted.apr", RF_UNSUPPORTED, "encrypted");
    EDIT(c[7] = 0x0c, 1);
    expect_bad(ctx, c, b.n, "colmajor.apr", RF_UNSUPPORTED, "column-major");
    EDIT(c[4] = 7, 0);
    expect_bad(ctx, c, b.n, "version.apr", RF_UNSUPPORTED, "version byte 7");
    EDIT((c[io] = 0, c[io + 1] = 0), 0); /* the index starts with lm_head.weight's length */
    expect_bad(ctx, c, b.n, "emptyname.apr", RF_FORMAT, "the name is empty");
    EDIT((c[io] = 0x2c, c[io + 1] = 1), 0); /* 300 */
    expect_bad(ctx, c, b.n, "longname.apr", RF_FORMAT, "longer than 256");
    EDIT(c[io + 2 + 3] = 0, 0); /* a NUL inside "lm_head.weight" */
    expect_bad(ctx, c, b.n, "nul.apr", RF_FORMAT, "NUL");
    EDIT(c[io + 2 + 14 + 1] = 9, 0); /* ndim 9 */
    expect_bad(ctx, c, b.n, "ndim.apr", RF_FORMAT, "9 dimensions");
    EDIT(c[io + 2 + 14] = 50, 0); /* unknown dtype byte */
    expect_bad(ctx, c, b.n, "dtype.apr", RF_FORMAT, "unknown dtype byte 50");
    EDIT(ab_put64(c + io + 2 + 14 + 2, UINT64_MAX / 2), 0); /* rows: product overflows */
    expect_bad(ctx, c, b.n, "dims.apr", RF_RANGE, "overflows");
    EDIT(ab_put64(c + io + 2 + 14 + 2 + 16 + 8, 1000), 0); /* size fits no type */
    expect_bad(ctx, c, b.n, "size.apr", RF_FORMAT, "fit no type");
    EDIT(ab_put64(c + io + 2 + 14 + 2 + 16, b.n), 0); /* offset past the end */
    expect_bad(ctx, c, b.n, "offset.apr", RF_RANGE, "past the end");
    EDIT(c[io + 2] = 'z', 0); /* "zm_head.weight" sorts after the next name */
    expect_bad(ctx, c, b.n, "unsorted.apr", RF_FORMAT, "not sorted");
    EDIT(c[io] = '[', 1);
    expect_bad(ctx, c, b.n, "jsonindex.apr", RF_UNSUPPORTED, "JSON");
    EDIT(c[b.n] = 0, 0);
    expect_bad(ctx, c, b.n + 1, "trailing.apr", RF_FORMAT, "neither padding nor");
    EDIT(memcpy(c, "ABCD", 4), 0);
    expect_bad(ctx, c, b.n, "magic.apr", RF_FORMAT, "not an APR file");
#undef EDIT
    free(c);
    gb_free(&b);
    /* duplicate names */
    memcpy(&t[2], &t[1], sizeof t[1]);
    ab_v2(&b, "{}", t, n, 0x0400, AB_PAD | AB_FOOTER);
    expect_bad(ctx, b.p, b.n, "dup.apr", RF_FORMAT, "");
    gb_free(&b);
    rf_ctx_free(ctx);
}

/* Truncated at every byte: a refusal, never a crash. realizar's fixture and the tsp file at every
 * byte; the three aprender ones (250 to 690 kB, and the suite also runs under ASan) at every byte
 * of their header, metadata and index, every 509th of their data and every one of the last 64.
 * One test per file: each its own process and timeout. */
static void truncation(const char *file)
{
    char path[1024];
    size_t n;
    snprintf(path, sizeof path, APR_DIR "%s", file);
    uint8_t *f = ab_slurp(path, &n);
    RF_REQUIRE(f);
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    int apr1 = memcmp(f, "APR1", 4) == 0, tsp = n == 77, every = n < 200000;
    for (size_t k = 0; k < n; k += every || k < 4096 || k + 64 >= n ? 1 : 509) {
        /* an exact-size copy (over-reads caught by the sanitizers) while the cut falls in the
         * header, metadata and index; past them, the file itself with a shorter size */
        int copy = k < 4096;
        uint8_t *p = copy ? malloc(k ? k : 1) : f;
        if (copy) memcpy(p, f, k);
        rf_apr *a = NULL;
        rf_status st = rf_apr_parse(ctx, p, k, "t", 0, &a);
        int ok = st == RF_FORMAT || st == RF_RANGE || (tsp && st == RF_UNSUPPORTED);
        if (st == RF_OK && k + 4 == n && !apr1) ok = a != NULL; /* without its footer */
        if (!ok || (a && st != RF_OK)) {
            RF_FAIL_AT("%s cut at %zu: status %d (%s)", file, k, st, rf_ctx_errmsg(ctx));
            k = n;
        }
        rf_apr_free(a);
        if (copy) free(p);
    }
    free(f);
    rf_ctx_free(ctx);
}

RF_TEST(truncation_realizar)
{
    truncation("dev_realizar_ggml_q.apr");
}
RF_TEST(truncation_tsp)
{
    truncation("aprender_tsp_att48-aco.apr");
}
RF_TEST(truncation_q8)
{
    truncation("dev_q8_legacy_ids.apr");
}
RF_TEST(truncation_f32)
{
    truncation("dev_f32.apr");
}
RF_TEST(truncation_apr1)
{
    truncation("dev_apr1_f32.apr");
}

/* Allocation failures at every allocation of a parse: RF_NOMEM, never a crash or a leak. */
RF_TEST(oom)
{
    size_t n;
    uint8_t *f = ab_slurp(APR_DIR "dev_q8_legacy_ids.apr", &n);
    RF_REQUIRE(f);
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (uint64_t k = 1; k < 10000; k++) {
        rf_apr *a = NULL;
        rf_ctx_fail_alloc_after(ctx, k, 1);
        rf_status st = rf_apr_parse(ctx, f, n, "oom.apr", 0, &a);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        rf_apr_free(a);
        if (st == RF_OK) break;
        /* jansson allocates through malloc, not the context: only the reader's own fail here */
        if (st != RF_NOMEM) RF_FAIL_AT("allocation %llu: status %d", (unsigned long long)k, st);
    }
    free(f);
    rf_ctx_free(ctx);
}
