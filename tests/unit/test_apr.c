/* test_apr.c — the APR reader (roofline/apr.h) and APR in the transformer builder: the four
 * fixtures of tests/data/apr with the figures of their README (params, bytes per dtype, decode
 * FLOPs at a 128-position cache), files written here for the dtypes and variants the fixtures
 * lack (F16, BF16, Q4_K, Q6_K, aprender's 4-bit and 8-bit types, the LZ4 flag, the APR1 wrappers)
 * each against its GGUF twin, and --granular. Hostile inputs: test_apr_bad.c. */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apr_build.h"
#include "rf_test.h"
#include "roofline/roofline.h"

#define APR_DIR RF_SOURCE_DIR "/tests/data/apr/"

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
    if (rf_llm_read_file(ctx, path, &m) != RF_OK) {
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
        if (rf_apr_read_file(ctx, path, 0, &a) != RF_OK) {
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
        rf_apr_free(a);
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
    RF_EXPECT_INT(rf_apr_read_file(ctx, APR_DIR "aprender_tsp_att48-aco.apr", 0, &a),
                  RF_UNSUPPORTED);
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
        rf_apr_free(ap);
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
    rf_apr_free(a);
    gb_free(&b);
    t[0].size = (900 + 255) / 256 * 144; /* flat */
    ab_v2(&b, "{}", t, 1, 0x20, 0);
    RF_EXPECT_INT(rf_apr_parse(ctx, b.p, b.n, "flat.apr", 0, &a), RF_OK);
    rf_apr_free(a);
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
    rf_apr_free(a);
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
    uint8_t *f = ab_slurp(APR_DIR "dev_apr1_f32.apr", &n);
    RF_REQUIRE(f && n == 691078);
    rf_ctx *ctx = NULL;
    rf_apr *a = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    for (int lz4 = 0; lz4 < 2; lz4++) {
        uint8_t *w = wrap(f, n, lz4, &wn);
        RF_EXPECT_INT(rf_apr_parse(ctx, w, wn, "wrapped.apr", 0, &a), RF_OK);
        RF_EXPECT(a && a->layout == (lz4 ? RF_APR_APR1_LZ4 : RF_APR_APR1_RAW));
        RF_EXPECT(a && a->params == 172416 && a->weight_bytes == 689664);
        rf_apr_free(a);
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
