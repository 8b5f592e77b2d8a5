/* test_apr.c — the APR reader (roofline/apr.h) and APR in the transformer builder: the four
 * fixtures of tests/data/apr with the figures of their README (params, bytes per dtype, decode
 * FLOPs at a 128-position cache), files written here for the dtypes and variants the fixtures
 * lack (F16, BF16, Q4_K, Q6_K, aprender's 4-bit and 8-bit types, the LZ4 flag, the APR1 wrappers)
 * each against its GGUF twin, every hostile case of reference section 11, truncation at every
 * byte, allocation failures, and --granular. */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apr_build.h"
#include "rf_test.h"
#include "roofline/roofline.h"

#define APR_DIR RF_SOURCE_DIR "/tests/data/apr/"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(sz > 0 ? (size_t)sz : 1);
    *n = p ? fread(p, 1, (size_t)sz, f) : 0;
    fclose(f);
    return p;
}

/* params, weight bytes (the graph's) and decode matmul FLOPs at context 128 of a model file. */
typedef struct figs {
    uint64_t params, bytes;
    double decode;
    int known;
} figs;

static int llm_figs(rf_ctx *ctx, const char *path, figs *f)
{
    rf_llm_model *m = NULL;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    rf_llm_opts o;
    memset(&o, 0, sizeof o);
    o.phase = RF_LLM_DECODE;
    o.context = 128;
    memset(f, 0, sizeof *f);
    if (rf_llm_open(ctx, path, &m) != RF_OK) {
        fprintf(stderr, "%s: %s\n", path, rf_ctx_errmsg(ctx));
        return 0;
    }
    int ok = rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK;
    if (ok) {
        f->params = g->params;
        f->bytes = g->weight_bytes;
        f->decode = c->matmul_conv_flops;
        f->known = rf_llm_hparams_get(m)->known;
    }
    rf_cost_free(c);
    rf_graph_free(g);
    rf_llm_free(m);
    return ok;
}

RF_TEST(fixtures)
{
    static const struct {
        const char *file;
        rf_apr_layout layout;
        int footer;
        uint64_t f32, other;
        rf_apr_dtype ot;
        uint64_t other2;
        rf_apr_dtype ot2;
    } fx[] = {
        {"dev_f32.apr", RF_APR_V2, 1, 689664, 0, RF_APR_F32, 0, RF_APR_F32},
        {"dev_q8_legacy_ids.apr", RF_APR_V2, 1, 99840, 147484, RF_APR_APR_Q8, 0, RF_APR_F32},
        {"dev_realizar_ggml_q.apr", RF_APR_V2, 0, 1536, 82944, RF_APR_Q4_0, 26112, RF_APR_Q8_0},
        {"dev_apr1_f32.apr", RF_APR_APR1, 1, 689664, 0, RF_APR_F32, 0, RF_APR_F32},
    };
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (size_t i = 0; i < sizeof fx / sizeof *fx; i++) {
        char path[1024];
        snprintf(path, sizeof path, APR_DIR "%s", fx[i].file);
        rf_apr *a = NULL;
        if (rf_apr_open(ctx, path, 0, &a) != RF_OK) {
            RF_FAIL_AT("%s: %s", path, rf_ctx_errmsg(ctx));
            continue;
        }
        RF_EXPECT_INT(a->layout, fx[i].layout);
        RF_EXPECT_INT(a->n_tensors, 12);
        RF_EXPECT_INT(a->params, 172416);
        RF_EXPECT_INT(a->has_footer, fx[i].footer);
        RF_EXPECT_INT(a->footer_checked, fx[i].footer);
        RF_EXPECT_INT(a->bytes_by_type[RF_APR_F32], fx[i].f32);
        if (fx[i].other) RF_EXPECT_INT(a->bytes_by_type[fx[i].ot], fx[i].other);
        if (fx[i].other2) RF_EXPECT_INT(a->bytes_by_type[fx[i].ot2], fx[i].other2);
        RF_EXPECT_INT(a->weight_bytes, fx[i].f32 + fx[i].other + fx[i].other2);
        RF_EXPECT_STR(a->hp.architecture, "llama");
        RF_EXPECT_INT(a->hp.hidden_size, 128);
        RF_EXPECT_INT(a->hp.num_layers, 1);
        RF_EXPECT_INT(a->hp.num_heads, 2);
        RF_EXPECT_INT(a->hp.num_kv_heads, 1);
        RF_EXPECT_INT(a->hp.intermediate_size, 256);
        RF_EXPECT_INT(a->hp.vocab_size, 96);
        uint64_t w = a->weight_bytes;
        rf_apr_free(ctx, a);
        figs f;
        RF_EXPECT(llm_figs(ctx, path, &f));
        RF_EXPECT_INT(f.params, 172416);
        RF_EXPECT_INT(f.bytes, w);
        RF_EXPECT_DBL(f.decode, 385024);
        RF_EXPECT(f.known);
    }
    rf_ctx_free(ctx);
}

RF_TEST(not_models)
{
    rf_ctx *ctx = NULL;
    rf_apr *a = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    RF_EXPECT_INT(rf_apr_open(ctx, APR_DIR "aprender_tsp_att48-aco.apr", 0, &a), RF_UNSUPPORTED);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "aprender-tsp");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "aprender_tsp_att48-aco.apr");
    uint8_t aprn[64] = "APRN\1\0\2\0";
    RF_EXPECT_INT(rf_apr_parse(ctx, aprn, sizeof aprn, "m.apr", 0, &a), RF_UNSUPPORTED);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx),
                  "m.apr: APRN classical model (LogisticRegression): no tensors to profile");
    RF_EXPECT(a == NULL);
    rf_ctx_free(ctx);
}

static uint64_t sz_f32(uint64_t n)
{
    return 4 * n;
}
static uint64_t sz_16(uint64_t n)
{
    return 2 * n;
}
static uint64_t sz_q4k(uint64_t n)
{
    return n / 256 * 144;
}
static uint64_t sz_q6k(uint64_t n)
{
    return n / 256 * 210;
}
static uint64_t sz_q4(uint64_t n)
{
    return (n + 31) / 32 * 18;
}
static uint64_t sz_q8_0(uint64_t n)
{
    return (n + 31) / 32 * 34;
}
static uint64_t sz_aq8(uint64_t n)
{
    return 4 + n;
}

/* Written files for each dtype against the GGUF twin of the same model. */
RF_TEST(dtypes_vs_gguf)
{
    static const struct {
        const char *what;
        uint8_t byte;
        uint32_t ggml;
        ab_size_fn size;
        rf_apr_dtype type;
        unsigned opts;
    } cs[] = {
        {"F32", 0, 0, sz_f32, RF_APR_F32, AB_PAD | AB_FOOTER},
        {"F16", 1, 1, sz_16, RF_APR_F16, AB_PAD | AB_FOOTER},
        {"BF16 (GH-438 byte 30)", 30, 30, sz_16, RF_APR_BF16, AB_PAD | AB_FOOTER},
        {"BF16 (old byte 2)", 2, 30, sz_16, RF_APR_BF16, AB_PAD | AB_FOOTER},
        {"Q4_K", 12, 12, sz_q4k, RF_APR_Q4_K, 0},
        {"Q6_K", 14, 14, sz_q6k, RF_APR_Q6_K, AB_APR2},
        {"Q4_0 (realizar byte 2)", 2, 2, sz_q4, RF_APR_Q4_0, 0},
        {"Q8_0 (realizar byte 8)", 8, 8, sz_q8_0, RF_APR_Q8_0, 0},
        {"APR_Q4 (byte 8)", 8, 2, sz_q4, RF_APR_APR_Q4, AB_PAD | AB_FOOTER},
        {"APR_Q4 (byte 128)", 128, 2, sz_q4, RF_APR_APR_Q4, AB_PAD | AB_FOOTER},
        {"APR_Q8 (byte 9)", 9, 24, sz_aq8, RF_APR_APR_Q8, AB_PAD | AB_FOOTER},
        {"APR_Q8 (byte 129)", 129, 24, sz_aq8, RF_APR_APR_Q8, AB_PAD},
    };
    const uint64_t E = 256, H = 4, KV = 2, F = 512, V = 256, L = 2;
    const char *meta = "{\"architecture\":\"llama\",\"hidden_size\":256,\"num_layers\":2,"
                       "\"num_heads\":4,\"num_kv_heads\":2,\"intermediate_size\":512,"
                       "\"vocab_size\":256}";
    char apath[256], gpath[256];
    snprintf(apath, sizeof apath, "%s/test_apr_%d.apr", RF_BINARY_DIR, (int)getpid());
    snprintf(gpath, sizeof gpath, "%s/test_apr_%d.gguf", RF_BINARY_DIR, (int)getpid());
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        ab_t t[32];
        gb a, g;
        size_t n = ab_llama(t, E, H, KV, F, V, L, cs[i].byte, cs[i].ggml, cs[i].size);
        ab_v2(&a, meta, t, n, 0x0400, cs[i].opts);
        ab_gguf(&g, t, n, E, H, KV, F, L);
        RF_REQUIRE(ab_write(apath, &a) && ab_write(gpath, &g));
        rf_apr *ap = NULL;
        if (rf_apr_parse(ctx, a.p, a.n, cs[i].what, 0, &ap) != RF_OK) {
            RF_FAIL_AT("%s", rf_ctx_errmsg(ctx));
        } else {
            uint64_t mat = 0;
            for (size_t k = 0; k < n; k++) mat += t[k].rank == 2 ? t[k].size : 0;
            if (cs[i].type != RF_APR_F32) RF_EXPECT_INT(ap->bytes_by_type[cs[i].type], mat);
            RF_EXPECT_INT(ap->has_footer, (cs[i].opts & AB_FOOTER) != 0);
        }
        rf_apr_free(ctx, ap);
        figs fa, fg;
        RF_EXPECT(llm_figs(ctx, apath, &fa) && llm_figs(ctx, gpath, &fg));
        RF_EXPECT(fa.known);
        RF_EXPECT_INT(fa.params, fg.params);
        RF_EXPECT_DBL(fa.decode, fg.decode);
        if (cs[i].type == RF_APR_APR_Q8) /* GGUF I8 twin, plus the 4-byte scales */
            RF_EXPECT_INT(fa.bytes, fg.bytes + 4 * (2 + 7 * L));
        else
            RF_EXPECT_INT(fa.bytes, fg.bytes);
        if (rf_test_failures) fprintf(stderr, "  (case %s)\n", cs[i].what);
        gb_free(&a);
        gb_free(&g);
    }
    unlink(apath);
    unlink(gpath);
    rf_ctx_free(ctx);
}

/* K-quants: realizar pads each row when the row length is not a multiple of 256. */
RF_TEST(kquant_rows)
{
    ab_t t[1] = {{"w", 12, 12, 2, {3, 300}, 3 * 2 * 144}};
    gb b;
    rf_ctx *ctx = NULL;
    rf_apr *a = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    ab_v2(&b, "{}", t, 1, 0x20, 0);
    RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "rows.apr", 0, &a), RF_OK);
    RF_EXPECT(a && a->tensors[0].type == RF_APR_Q4_K);
    rf_apr_free(ctx, a);
    gb_free(&b);
    t[0].size = (900 + 255) / 256 * 144; /* flat */
    ab_v2(&b, "{}", t, 1, 0x20, 0);
    RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "flat.apr", 0, &a), RF_OK);
    rf_apr_free(ctx, a);
    gb_free(&b);
    rf_ctx_free(ctx);
}

/* The LZ4 flag without compressed data (aprender's writer) reads; compressed sizes do not. */
RF_TEST(lz4_flag)
{
    ab_t t[32];
    gb b;
    rf_ctx *ctx = NULL;
    rf_apr *a = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    size_t n = ab_llama(t, 128, 2, 1, 256, 96, 1, 0, 0, sz_f32);
    ab_v2(&b, "{\"num_layers\":1}", t, n, 0x0401, AB_PAD | AB_FOOTER);
    RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "lz4flag.apr", 0, &a), RF_OK);
    RF_EXPECT(a && a->flags == 0x0401 && a->params == 172416);
    rf_apr_free(ctx, a);
    gb_free(&b);
    t[3].size -= 1000; /* as if compressed */
    ab_v2(&b, "{}", t, n, 0x0401, AB_PAD | AB_FOOTER);
    RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "lz4data.apr", 0, &a), RF_UNSUPPORTED);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "compressed tensors are not supported");
    gb_free(&b);
    rf_ctx_free(ctx);
}

/* "APR\0" + compression byte + u32 length around an APR1 file (section 8). */
static uint8_t *wrap(const uint8_t *f, size_t n, int lz4, size_t *out_n)
{
    int cap = LZ4_compressBound((int)n);
    uint8_t *w = malloc(13 + (size_t)cap + n);
    memcpy(w, "APR\0", 4);
    w[4] = (uint8_t)lz4;
    ab_put32(w + 5, (uint32_t)n);
    if (!lz4) {
        memcpy(w + 9, f, n);
        *out_n = 9 + n;
        return w;
    }
    ab_put32(w + 9, (uint32_t)n);
    int c = LZ4_compress_default((const char *)f, (char *)w + 13, (int)n, cap);
    *out_n = 13 + (size_t)c;
    return w;
}

RF_TEST(apr1_wrappers)
{
    size_t n, wn;
    uint8_t *f = slurp(APR_DIR "dev_apr1_f32.apr", &n);
    RF_REQUIRE(f && n == 691078);
    rf_ctx *ctx = NULL;
    rf_apr *a = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (int lz4 = 0; lz4 < 2; lz4++) {
        uint8_t *w = wrap(f, n, lz4, &wn);
        RF_EXPECT_INT(rf_apr_parse(ctx, w, wn, "wrapped.apr", 0, &a), RF_OK);
        RF_EXPECT(a && a->layout == (lz4 ? RF_APR_APR1_LZ4 : RF_APR_APR1_RAW));
        RF_EXPECT(a && a->params == 172416 && a->weight_bytes == 689664);
        rf_apr_free(ctx, a);
        a = NULL;
        if (lz4) {
            RF_EXPECT(wn > 13);
            ab_put32(w + 5, 0x40000001u); /* declared above 1 GiB */
            ab_put32(w + 9, 0x40000001u);
            RF_EXPECT_INT(rf_apr_parse(ctx, w, wn, "bomb.apr", 0, &a), RF_RANGE);
            uint32_t big = (uint32_t)(255 * (wn - 13) + 17); /* more than the block can hold */
            ab_put32(w + 5, big);
            ab_put32(w + 9, big);
            RF_EXPECT_INT(rf_apr_parse(ctx, w, wn, "ratio.apr", 0, &a), RF_FORMAT);
            RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "cannot hold");
            ab_put32(w + 5, (uint32_t)n);
            ab_put32(w + 9, (uint32_t)n);
            w[20] ^= 0xff; /* corrupt the block */
            rf_status st = rf_apr_parse(ctx, w, wn, "corrupt.apr", 0, &a);
            RF_EXPECT(st == RF_FORMAT || st == RF_RANGE);
            w[4] = 2; /* zstd: its frame magic after the length */
            memcpy(w + 9, "\x28\xb5\x2f\xfd", 4);
            RF_EXPECT_INT(rf_apr_parse(ctx, w, wn, "zstd.apr", 0, &a), RF_UNSUPPORTED);
        }
        free(w);
    }
    free(f);
    rf_ctx_free(ctx);
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
    rf_apr_free(ctx, a);
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
        rf_apr_free(ctx, a);
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
    rf_apr_free(ctx, a);
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
    uint8_t *f = slurp(path, &n);
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
        rf_apr_free(ctx, a);
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
    uint8_t *f = slurp(APR_DIR "dev_q8_legacy_ids.apr", &n);
    RF_REQUIRE(f);
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (uint64_t k = 1; k < 10000; k++) {
        rf_apr *a = NULL;
        rf_ctx_fail_alloc_after(ctx, k, 1);
        rf_status st = rf_apr_parse(ctx, f, n, "oom.apr", 0, &a);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        rf_apr_free(ctx, a);
        if (st == RF_OK) break;
        /* jansson allocates through malloc, not the context: only the reader's own fail here */
        if (st != RF_NOMEM) RF_FAIL_AT("allocation %llu: status %d", (unsigned long long)k, st);
    }
    free(f);
    rf_ctx_free(ctx);
}

/* --granular lists every block; the totals do not change. */
RF_TEST(granular)
{
    ab_t t[32];
    gb b;
    char path[256];
    snprintf(path, sizeof path, "%s/test_apr_gran_%d.apr", RF_BINARY_DIR, (int)getpid());
    size_t n = ab_llama(t, 128, 2, 1, 256, 96, 3, 0, 0, sz_f32);
    ab_v2(&b, "{\"architecture\":\"llama\",\"num_layers\":3,\"num_heads\":2}", t, n, 0x0400,
          AB_PAD | AB_FOOTER);
    RF_REQUIRE(ab_write(path, &b));
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_graph *g[2] = {NULL, NULL};
    rf_cost *c[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        rf_model_opts mo;
        memset(&mo, 0, sizeof mo);
        mo.granular = k;
        RF_REQUIRE(rf_model_load(ctx, path, &mo, &g[k]) == RF_OK);
        RF_REQUIRE(rf_graph_cost(ctx, g[k], &c[k]) == RF_OK);
    }
    int star = 0, blk2 = 0;
    for (uint32_t i = 0; i < g[0]->n_layers; i++)
        star += strncmp(g[0]->layers[i].name, "blk.*.", 6) == 0;
    for (uint32_t i = 0; i < g[1]->n_layers; i++) {
        blk2 += strncmp(g[1]->layers[i].name, "blk.2.", 6) == 0;
        RF_EXPECT_INT(g[1]->layers[i].repeat, 1);
        RF_EXPECT(strncmp(g[1]->layers[i].name, "blk.*", 5) != 0);
    }
    RF_EXPECT(star > 0 && blk2 == star);
    RF_EXPECT(g[1]->n_layers > g[0]->n_layers);
    RF_EXPECT_DBL(c[0]->flops, c[1]->flops);
    RF_EXPECT_DBL(c[0]->bytes, c[1]->bytes);
    for (int k = 0; k < 2; k++) {
        rf_cost_free(c[k]);
        rf_graph_free(g[k]);
    }
    unlink(path);
    gb_free(&b);
    rf_ctx_free(ctx);
}
