/* test_llm.c — the LLM graph builder (roofline/llm.h): the GGUF and SafeTensors fixtures in
 * tests/data (params, decode at kv_len 128 and prefill of 128 tokens compared exactly with the
 * .ref.json matmul FLOPs, bits per weight, KV bytes), a sparse Llama-2-7B-shaped GGUF (published
 * params, 13.2 GFLOP per decoded token, 0.5 MiB of F16 KV per token, ~150 tokens/s on an A100),
 * GQA, mixed blocks, MoE, tied heads, causal half, the what-if type, unknown architectures,
 * refusals. */
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "gguf_build.h"
#include "rf_fixtures.h"
#include "rf_test.h"
#include "roofline/roofline.h"

#define FIX RF_FIXTURES_DIR

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

static double jnum(json_t *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = o;
    for (char *s = buf, *e; v && s; s = e) {
        e = strchr(s, '.');
        if (e) *e++ = '\0';
        v = json_object_get(v, s);
    }
    if (!v) RF_FAIL_AT("no %s in the reference", path);
    return v ? json_number_value(v) : -1;
}

/* Matmul FLOPs (the fixtures' convention) of one phase. */
static double phase_flops(rf_ctx *ctx, rf_llm_model *m, rf_llm_phase ph, uint64_t n, rf_cost **keep)
{
    rf_llm_opts o = {0};
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    o.phase = ph;
    o.prompt = o.context = n;
    if (rf_llm_build(ctx, m, &o, &g) != RF_OK || rf_llm_cost(ctx, g, &o, &c) != RF_OK) {
        RF_FAIL_AT("build: %s", rf_ctx_errmsg(ctx));
        rf_graph_free(g);
        return -1;
    }
    RF_EXPECT_INT(c->n_unknown, 0);
    RF_EXPECT_INT(g->params, rf_llm_hparams_get(m)->params);
    double f = c->matmul_conv_flops;
    if (keep)
        *keep = c;
    else
        rf_cost_free(c);
    rf_graph_free(g);
    return f;
}

static void check_fixture(const char *path, const char *ref_path)
{
    json_error_t err;
    json_t *ref = json_load_file(ref_path, 0, &err);
    RF_REQUIRE(ref != NULL);
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = NULL;
    rf_status st = rf_llm_read_file(ctx, path, &m);
    if (st != RF_OK) RF_FAIL_AT("open %s: %s", path, rf_ctx_errmsg(ctx));
    if (m) {
        const rf_llm_hparams *hp = rf_llm_hparams_get(m);
        RF_EXPECT(hp->known);
        RF_EXPECT_DBL((double)hp->params, jnum(ref, "summary.params"));
        RF_EXPECT_DBL((double)hp->weight_bytes, jnum(ref, "summary.weight_bytes"));
        RF_EXPECT_DBL(phase_flops(ctx, m, RF_LLM_DECODE, 128, NULL),
                      jnum(ref, "summary.decode_flops"));
        RF_EXPECT_DBL(phase_flops(ctx, m, RF_LLM_PREFILL, 128, NULL),
                      jnum(ref, "summary.prefill_flops"));
        if (json_object_get(ref, "bits_per_weight_overall"))
            RF_EXPECT_NEAR(8.0 * (double)hp->weight_bytes / (double)hp->params,
                           jnum(ref, "bits_per_weight_overall"), 1e-6);
        if (json_object_get(ref, "decode_bytes_analytic")) {
            rf_llm_opts po = {0}, dopt = {0};
            rf_graph *g = NULL;
            rf_cost *cp = NULL, *cd = NULL;
            rf_llm_ceilings ce;
            rf_roof roof = {1e12, 1e11};
            dopt.phase = RF_LLM_DECODE;
            RF_REQUIRE(rf_llm_build(ctx, m, &po, &g) == RF_OK);
            phase_flops(ctx, m, RF_LLM_PREFILL, 128, &cp);
            phase_flops(ctx, m, RF_LLM_DECODE, 128, &cd);
            RF_EXPECT(rf_llm_ceilings_compute(ctx, m, g, cp, &po, cd, &dopt, &roof, &ce) == RF_OK);
            RF_EXPECT_DBL(ce.kv_bytes_context,
                          jnum(ref, "decode_bytes_analytic.kv_cache_bytes_f16_at_kv_len"));
            RF_EXPECT_DBL(cd->kv_read_bytes, ce.kv_bytes_context);
            rf_cost_free(cp);
            rf_cost_free(cd);
            rf_graph_free(g);
        }
    }
    rf_llm_free(m);
    rf_ctx_free(ctx);
    json_decref(ref);
}

RF_TEST(llm_fixture_tiny_llama_mixed)
{
    char p[512];
    RF_NEED_FIXTURES();
    check_fixture(rf_test_gguf_fixture("tiny_llama_mixed.gguf", p, sizeof p),
                  FIX "gguf/tiny_llama_mixed.ref.json");
}

RF_TEST(llm_fixture_tinystories_f32)
{
    char p[512];
    RF_NEED_FIXTURES();
    check_fixture(rf_test_gguf_fixture("tinystories15m_f32.gguf", p, sizeof p),
                  FIX "gguf/tinystories15m_f32.ref.json");
}

RF_TEST(llm_fixture_tinystories_q8_0)
{
    char p[512];
    RF_NEED_FIXTURES();
    check_fixture(rf_test_gguf_fixture("tinystories15m_q8_0.gguf", p, sizeof p),
                  FIX "gguf/tinystories15m_q8_0.ref.json");
}

RF_TEST(llm_fixture_gpt2_tiny_safetensors)
{
    RF_NEED_FIXTURES();
    check_fixture(FIX "safetensors/gpt2_tiny", FIX "safetensors/gpt2_tiny.ref.json");
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = NULL;
    RF_REQUIRE(rf_llm_read_file(ctx, FIX "safetensors/gpt2_tiny/model.safetensors", &m) == RF_OK);
    const rf_llm_hparams *hp = rf_llm_hparams_get(m);
    RF_EXPECT(hp->tied_embeddings);
    RF_EXPECT_INT(hp->n_ff, 512);
    RF_EXPECT_INT(hp->n_head_kv, 4);
    RF_EXPECT_STR(hp->architecture, "gpt2");
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* Through the dispatcher, as `roofline profile` loads them. */
RF_TEST(llm_model_load_dispatch)
{
    RF_NEED_FIXTURES();
    rf_ctx *ctx = new_ctx();
    rf_graph *g = NULL;
    rf_model_opts mo = {0};
    mo.batch = 2;
    mo.seq = 16;
    RF_REQUIRE(rf_model_load(ctx, FIX "gguf/tiny_llama_mixed.gguf", &mo, &g) == RF_OK);
    RF_EXPECT_STR(g->format, "gguf");
    RF_EXPECT_INT(g->params, 1836288);
    uint32_t t = rf_graph_find_tensor(g, "tokens");
    RF_REQUIRE(t != RF_GRAPH_NO_TENSOR);
    RF_EXPECT_INT(g->tensors[t].dims[0], 2);
    RF_EXPECT_INT(g->tensors[t].dims[1], 16);
    rf_graph_free(g);
    g = NULL;
    RF_REQUIRE(rf_model_load(ctx, FIX "safetensors/gpt2_tiny", NULL, &g) == RF_OK);
    RF_EXPECT_STR(g->format, "safetensors");
    RF_EXPECT_INT(g->params, 541184);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

/* ---- synthetic GGUF files ------------------------------------------------------------------- */

typedef struct spec {
    const char *arch;
    uint64_t E, F, V, L, H, Hkv, experts, used;
    uint32_t mat;      /* ggml type of the matrices */
    uint32_t blk1_mat; /* block 1's attn_q type when != mat (mixed) */
    int tied, no_keys, fused;
} spec;

static uint64_t tbytes(uint32_t type, uint64_t n)
{
    uint32_t be, bb;
    if (!rf_ggml_type_block(type, &be, &bb)) abort();
    return n / be * bb;
}

typedef struct tw {
    gb b;
    uint64_t off;
    uint32_t n;
} tw;

static void t_add(tw *w, const char *name, uint64_t d0, uint64_t d1, uint64_t d2, uint32_t type)
{
    uint64_t dims[3] = {d0, d1, d2};
    uint32_t nd = d2 ? 3 : d1 ? 2 : 1;
    gb_tensor(&w->b, name, nd, dims, type, w->off);
    w->off += (tbytes(type, d0 * (d1 ? d1 : 1) * (d2 ? d2 : 1)) + 31) / 32 * 32;
    w->n++;
}

/* Tensor infos of a llama-style model (run twice: once to count). */
static void tensors(tw *w, const spec *s)
{
    char n[96];
    uint64_t D = s->E / s->H, KV = s->Hkv * D;
    t_add(w, "token_embd.weight", s->E, s->V, 0, s->mat);
    for (uint64_t i = 0; i < s->L; i++) {
#define NM(x) (snprintf(n, sizeof n, "blk.%llu." x, (unsigned long long)i), n)
        t_add(w, NM("attn_norm.weight"), s->E, 0, 0, 0);
        if (s->fused) {
            t_add(w, NM("attn_qkv.weight"), s->E, s->E + 2 * KV, 0, s->mat);
        } else {
            t_add(w, NM("attn_q.weight"), s->E, s->E, 0,
                  i == 1 && s->blk1_mat ? s->blk1_mat : s->mat);
            t_add(w, NM("attn_k.weight"), s->E, KV, 0, s->mat);
            t_add(w, NM("attn_v.weight"), s->E, KV, 0, s->mat);
        }
        t_add(w, NM("attn_output.weight"), s->E, s->E, 0, s->mat);
        t_add(w, NM("ffn_norm.weight"), s->E, 0, 0, 0);
        if (s->experts) {
            t_add(w, NM("ffn_gate_inp.weight"), s->E, s->experts, 0, 0);
            t_add(w, NM("ffn_gate_exps.weight"), s->E, s->F, s->experts, s->mat);
            t_add(w, NM("ffn_up_exps.weight"), s->E, s->F, s->experts, s->mat);
            t_add(w, NM("ffn_down_exps.weight"), s->F, s->E, s->experts, s->mat);
        } else if (s->fused) {
            t_add(w, NM("ffn_up.weight"), s->E, 2 * s->F, 0, s->mat);
            t_add(w, NM("ffn_down.weight"), s->F, s->E, 0, s->mat);
        } else {
            t_add(w, NM("ffn_gate.weight"), s->E, s->F, 0, s->mat);
            t_add(w, NM("ffn_up.weight"), s->E, s->F, 0, s->mat);
            t_add(w, NM("ffn_down.weight"), s->F, s->E, 0, s->mat);
        }
#undef NM
    }
    t_add(w, "output_norm.weight", s->E, 0, 0, 0);
    if (!s->tied) t_add(w, "output.weight", s->E, s->V, 0, s->mat);
}

/* Write the model to `path`: header, tensor infos, then a hole up to the data's end. */
static void write_gguf(const char *path, const spec *s)
{
    tw count = {0}, w = {0};
    char k[96];
    tensors(&count, s);
    uint32_t nkv = s->no_keys ? 1 : 6 + (s->experts ? 2 : 0);
    gb_header(&w.b, 3, count.n, nkv);
    gb_kv_str(&w.b, "general.architecture", s->arch);
#define KEY(x, v) (snprintf(k, sizeof k, "%s." x, s->arch), gb_kv_u32(&w.b, k, (uint32_t)(v)))
    if (!s->no_keys) {
        KEY("embedding_length", s->E);
        KEY("block_count", s->L);
        KEY("feed_forward_length", s->F);
        KEY("attention.head_count", s->H);
        KEY("attention.head_count_kv", s->Hkv);
        if (s->experts) {
            KEY("expert_count", s->experts);
            KEY("expert_used_count", s->used);
        }
    }
#undef KEY
    tensors(&w, s);
    gb_pad(&w.b, 32);
    uint64_t total = w.b.n + w.off;
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0 || write(fd, w.b.p, w.b.n) != (ssize_t)w.b.n || ftruncate(fd, (off_t)total) != 0)
        RF_FAIL_AT("cannot write %s", path);
    if (fd >= 0) close(fd);
    gb_free(&w.b);
    gb_free(&count.b);
}

static rf_llm_model *open_spec(rf_ctx *ctx, const spec *s, const char *tag)
{
    char path[512];
    rf_llm_model *m = NULL;
    snprintf(path, sizeof path, RF_BINARY_DIR "/llm_%s_%d.gguf", tag, (int)getpid());
    write_gguf(path, s);
    if (rf_llm_read_file(ctx, path, &m) != RF_OK)
        RF_FAIL_AT("open %s: %s", tag, rf_ctx_errmsg(ctx));
    unlink(path);
    return m;
}

static const spec llama7b = {"llama", 4096, 11008,       32000, 32, 32, 32,
                             0,       0,    1 /* F16 */, 0,     0,  0,  0};

RF_TEST(llm_llama2_7b_sparse)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = open_spec(ctx, &llama7b, "7b");
    RF_REQUIRE(m != NULL);
    const rf_llm_hparams *hp = rf_llm_hparams_get(m);
    RF_EXPECT_INT(hp->params, 6738415616ll);
    RF_EXPECT(hp->uniform);
    const uint64_t ctxlen = 4096;
    rf_cost *cd = NULL, *cp = NULL;
    double dec = phase_flops(ctx, m, RF_LLM_DECODE, ctxlen, &cd);
    phase_flops(ctx, m, RF_LLM_PREFILL, 128, &cp);
    /* 2 x (params - token_embd - norms) + 4 L d ctx */
    double mm = 2.0 * (6738415616.0 - 4096.0 * 32000 - 65 * 4096);
    RF_EXPECT_DBL(mm, 13214154752.0);
    RF_EXPECT_DBL(dec, mm + 4.0 * 32 * 4096 * ctxlen);
    rf_llm_opts po = {0}, dopt = {0};
    dopt.phase = RF_LLM_DECODE;
    dopt.context = ctxlen;
    rf_graph *g = NULL;
    RF_REQUIRE(rf_llm_build(ctx, m, &po, &g) == RF_OK);
    rf_roof a100 = {312e12, 2039e9}; /* fp16 tensor, HBM2e */
    rf_llm_ceilings ce;
    RF_REQUIRE(rf_llm_ceilings_compute(ctx, m, g, cp, &po, cd, &dopt, &a100, &ce) == RF_OK);
    RF_EXPECT_DBL(ce.kv_bytes_per_token, 524288.0); /* 0.5 MiB */
    RF_EXPECT_DBL(ce.kv_bytes_context, 524288.0 * 4096);
    RF_EXPECT_DBL(ce.model_bytes, 2.0 * 6738415616.0 + 2.0 * 65 * 4096); /* norms in F32 */
    RF_EXPECT_NEAR(ce.bw_tokens_per_s, 151.3, 0.001);                    /* "about 150 tokens/s" */
    RF_EXPECT(ce.simple_bound == RF_BOUND_MEMORY);
    RF_EXPECT(ce.decode_tokens_per_s < ce.bw_tokens_per_s);
    /* at 4096 positions each sequence reads 2 GiB of KV per step: no batch reaches the ridge */
    RF_EXPECT_INT(ce.batch_compute_bound, 0);
    rf_cost_free(cd);
    cd = NULL;
    dopt.context = 128;
    phase_flops(ctx, m, RF_LLM_DECODE, 128, &cd);
    RF_REQUIRE(rf_llm_ceilings_compute(ctx, m, g, cp, &po, cd, &dopt, &a100, &ce) == RF_OK);
    if (!(ce.batch_compute_bound > 153)) /* above ridge x model bytes / FLOPs per token */
        RF_FAIL_AT("batch_compute_bound %llu", (unsigned long long)ce.batch_compute_bound);
    /* and the graph at that batch is at the ridge, one below it is not */
    for (int k = 0; k < 2; k++) {
        rf_llm_opts ob = dopt;
        rf_graph *g2 = NULL;
        rf_cost *c = NULL;
        ob.batch = ce.batch_compute_bound - (uint64_t)k;
        RF_REQUIRE(rf_llm_build(ctx, m, &ob, &g2) == RF_OK &&
                   rf_llm_cost(ctx, g2, &ob, &c) == RF_OK);
        double ai = c->flops / c->bytes, ridge = 312e12 / 2039e9;
        if (k == 0)
            RF_EXPECT(ai >= ridge * 0.999);
        else
            RF_EXPECT(ai < ridge * 1.001);
        rf_cost_free(c);
        rf_graph_free(g2);
    }
    rf_graph_free(g);
    rf_cost_free(cd);
    rf_cost_free(cp);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* GQA: K/V widths from the weights; the cache holds n_head_kv heads, the arithmetic n_head. */
RF_TEST(llm_gqa_mixed_blocks_and_tied_head)
{
    rf_ctx *ctx = new_ctx();
    spec s = {"qwen2", 256, 512, 1000, 3, 8, 2, 0, 0, 8 /* Q8_0 */, 12 /* Q4_K */, 1, 0, 0};
    rf_llm_model *m = open_spec(ctx, &s, "gqa");
    RF_REQUIRE(m != NULL);
    const rf_llm_hparams *hp = rf_llm_hparams_get(m);
    RF_EXPECT_INT(hp->n_head_kv, 2);
    RF_EXPECT(hp->tied_embeddings);
    RF_EXPECT(!hp->uniform); /* block 1 differs */
    rf_llm_opts o = {0};
    o.phase = RF_LLM_DECODE;
    o.context = 100;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    RF_REQUIRE(rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK);
    uint32_t per_block = 0;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        RF_EXPECT_INT(g->layers[i].repeat, 1);
        per_block += strncmp(g->layers[i].name, "blk.1.", 6) == 0;
    }
    RF_EXPECT(per_block > 10);
    /* kv_read: 3 blocks x K and V x 100 positions x 2 heads x 32 x 2 bytes */
    RF_EXPECT_DBL(c->kv_read_bytes, 3.0 * 2 * 100 * 2 * 32 * 2);
    RF_EXPECT_DBL(c->kv_write_bytes, 3.0 * 2 * 1 * 2 * 32 * 2);
    /* the tied head reads the token embedding: 2 x E x V FLOPs */
    double w = 3.0 * (256 * 256 + 2 * 256 * 64 + 256 * 256 + 3 * 256 * 512) + 256.0 * 1000;
    RF_EXPECT_DBL(c->matmul_conv_flops, 2 * w + 4.0 * 3 * 8 * 32 * 100);
    rf_cost_free(c);
    rf_graph_free(g);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* MoE: FLOPs of the experts used per token; params resident of all. */
RF_TEST(llm_moe_active_experts)
{
    rf_ctx *ctx = new_ctx();
    spec s = {"llama", 128, 256, 500, 2, 4, 4, 8, 2, 0 /* F32 */, 0, 0, 0, 0};
    rf_llm_model *m = open_spec(ctx, &s, "moe");
    RF_REQUIRE(m != NULL);
    const rf_llm_hparams *hp = rf_llm_hparams_get(m);
    RF_EXPECT_INT(hp->n_expert, 8);
    uint64_t exp = 3ull * 128 * 256 * 8 * 2;
    RF_EXPECT_INT(hp->params - hp->active_params, exp / 8 * 6);
    rf_llm_opts o = {0};
    o.phase = RF_LLM_DECODE;
    o.context = 10;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    RF_REQUIRE(rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK);
    RF_EXPECT_INT(g->params, hp->params);
    double dense = 2.0 * (128 * 128 * 4 + 128 * 8) + 3.0 * 2 * 128 * 256 * 2; /* per block */
    RF_EXPECT_DBL(c->matmul_conv_flops, 2 * dense + 2.0 * 128 * 500 + 4.0 * 2 * 128 * 10);
    /* decode reads 2 of 8 experts' weights (F32) per block */
    double wexp = 2.0 * 3 * 2 * 128 * 256 * 4;
    RF_EXPECT(c->weight_bytes < wexp * 1.6 + 2.0 * 500 * 128 * 4);
    rf_cost_free(c);
    rf_graph_free(g);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* phi3: fused qkv and gate_up; causal half; what-if weights; act/kv bits. */
RF_TEST(llm_fused_causal_whatif)
{
    rf_ctx *ctx = new_ctx();
    spec s = {"phi3", 256, 512, 512, 2, 4, 4, 0, 0, 1 /* F16 */, 0, 0, 0, 1};
    rf_llm_model *m = open_spec(ctx, &s, "phi3");
    RF_REQUIRE(m != NULL);
    RF_EXPECT(rf_llm_hparams_get(m)->known);
    RF_EXPECT_INT(rf_llm_hparams_get(m)->n_ff, 512);
    rf_llm_opts o = {0};
    o.prompt = 64;
    rf_graph *g = NULL;
    rf_cost *full = NULL, *half = NULL;
    RF_REQUIRE(rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &full) == RF_OK);
    o.causal_half = 1;
    RF_REQUIRE(rf_llm_cost(ctx, g, &o, &half) == RF_OK);
    double attn = 4.0 * 2 * 4 * 64 * 64 * 64; /* 4 L H D S^2 */
    RF_EXPECT_DBL(full->matmul_conv_flops - half->matmul_conv_flops, attn / 2);
    rf_cost_free(full);
    rf_cost_free(half);
    rf_graph_free(g);
    o.causal_half = 0;
    o.weights = RF_DTYPE_Q4_K;
    o.act_bits = 32;
    RF_REQUIRE(rf_llm_build(ctx, m, &o, &g) == RF_OK);
    /* matrices to 4.5 bits, norms stay F32 */
    uint64_t mats = 2ull * 512 * 256 + 2 * (256 * 768 + 256 * 256 + 256 * 1024 + 512 * 256);
    RF_EXPECT_INT(g->weight_bytes, mats / 256 * 144 + (2 * 2 + 1) * 256 * 4);
    rf_graph_free(g);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

static int warned;
static void on_log(void *u, rf_log_level l, const char *msg)
{
    (void)u;
    if (l == RF_LOG_WARN && strstr(msg, "its weights are reported instead")) warned++;
}

RF_TEST(llm_unknown_architecture)
{
    rf_ctx *ctx = new_ctx();
    rf_ctx_set_log(ctx, on_log, NULL, RF_LOG_WARN);
    spec s = {"mamba9", 64, 128, 100, 2, 4, 4, 0, 0, 0, 0, 0, 1, 0};
    rf_llm_model *m = open_spec(ctx, &s, "unknown");
    RF_REQUIRE(m != NULL);
    RF_EXPECT(!rf_llm_hparams_get(m)->known);
    RF_EXPECT_INT(warned, 1);
    rf_llm_opts o = {0};
    o.phase = RF_LLM_DECODE;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    RF_REQUIRE(rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK);
    RF_EXPECT_DBL(c->matmul_conv_flops, 2.0 * (2 * (4 * 64 * 64 + 3 * 64 * 128) + 64 * 100));
    rf_cost_free(c);
    rf_graph_free(g);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(llm_refusals)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = NULL;
    RF_EXPECT(rf_llm_read_file(ctx, RF_BINARY_DIR "/no-such-model.gguf", &m) == RF_IO);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "no-such-model.gguf");
    char path[512];
    snprintf(path, sizeof path, RF_BINARY_DIR "/llm_text_%d.bin", (int)getpid());
    FILE *f = fopen(path, "w");
    RF_REQUIRE(f != NULL);
    fputs("hello, not a model\n", f);
    fclose(f);
    RF_EXPECT(rf_llm_read_file(ctx, path, &m) == RF_UNSUPPORTED);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "not a GGUF or SafeTensors model");
    unlink(path);
    RF_EXPECT(m == NULL);
    rf_ctx_free(ctx);
}

/* Cost of one phase of `m` under `o` (flops and bytes out). */
static void phase_cost(rf_ctx *ctx, rf_llm_model *m, rf_llm_opts o, double *flops, double *bytes)
{
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    *flops = *bytes = -1;
    if (rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK) {
        *flops = c->flops;
        *bytes = c->bytes;
    } else {
        RF_FAIL_AT("build: %s", rf_ctx_errmsg(ctx));
    }
    rf_cost_free(c);
    rf_graph_free(g);
}

/* The LLM conventions (issue 12 item 8) on the Llama-2-7B shape (32 layers, 32 heads of 128, F16
 * scores): the score matrix is [1, 32, S, T] at 2 bytes, written by Q.K^T, read and written by
 * the softmax, read by A.V: 4 x 32 x S x T x 2 bytes a layer. Fused attention (the default)
 * leaves them all out; --causal-half halves them with the attention matmuls and the softmax. */
RF_TEST(llm_conventions_7b)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = open_spec(ctx, &llama7b, "7bconv");
    RF_REQUIRE(m != NULL);
    rf_llm_opts o = {0};
    double ff, bf, fu, bu, fh, bh;
    o.phase = RF_LLM_PREFILL;
    o.prompt = 512;
    phase_cost(ctx, m, o, &ff, &bf); /* fused */
    o.unfused_attention = 1;
    phase_cost(ctx, m, o, &fu, &bu);
    o.causal_half = 1;
    phase_cost(ctx, m, o, &fh, &bh);
    const double scores = 4.0 * 32 * 32 * 512 * 512 * 2; /* 2 GiB over the 32 layers */
    RF_EXPECT_DBL(bu - bf, scores);
    RF_EXPECT_DBL(ff, fu); /* fusing moves no FLOPs */
    RF_EXPECT_DBL(bu - bh, scores / 2);
    /* halved: Q.K^T and A.V, 2 x 2 x 32 x 512 x 512 x 128 a layer, and the softmax's 5 x 32 x
     * 512 x 512 */
    RF_EXPECT_DBL(fu - fh, 32.0 * (2.0 * 2 * 32 * 512 * 512 * 128 + 5.0 * 32 * 512 * 512) / 2);
    /* decode: the scores are [1, 32, 1, L]: 4 x 32 x 32 x L x 2 bytes; causal-half changes
     * nothing (one new token) */
    for (uint64_t L = 512; L <= 4096; L *= 8) {
        rf_llm_opts d = {0};
        d.phase = RF_LLM_DECODE;
        d.context = L;
        phase_cost(ctx, m, d, &ff, &bf);
        d.unfused_attention = 1;
        phase_cost(ctx, m, d, &fu, &bu);
        d.causal_half = 1;
        phase_cost(ctx, m, d, &fh, &bh);
        RF_EXPECT_DBL(bu - bf, 4.0 * 32 * 32 * (double)L * 2);
        RF_EXPECT_DBL(bh, bu);
        RF_EXPECT_DBL(fh, fu);
    }
    /* the compute roof by precision: F16 weights with 16-bit activations -> fp16.tensor on an
     * A100 (312 TFLOP/s, not fp32's 19.5); 8-bit activations -> int8.tensor; 32 -> fp32 */
    rf_machine *a100 = NULL;
    RF_REQUIRE(rf_hwdb_find(ctx, "a100-sxm4-80gb", &a100) == RF_OK);
    size_t ci = 99;
    char why[256];
    rf_llm_opts p = {0};
    RF_EXPECT_INT(rf_llm_pick_compute(ctx, m, a100, &p, &ci, why, sizeof why), RF_OK);
    RF_EXPECT_STR(a100->ceilings[ci].name, "fp16.tensor");
    RF_EXPECT_CONTAINS(why, "F16 weights");
    p.act_bits = 8;
    rf_llm_pick_compute(ctx, m, a100, &p, &ci, why, sizeof why);
    RF_EXPECT_STR(a100->ceilings[ci].name, "int8.tensor");
    p.act_bits = 32;
    rf_llm_pick_compute(ctx, m, a100, &p, &ci, why, sizeof why);
    RF_EXPECT_STR(a100->ceilings[ci].name, "fp32");
    /* a machine without a 16-bit ceiling keeps its default and says so */
    rf_machine *plain = NULL;
    rf_machine_simple(ctx, "plain", 1e12, 1e11, RF_PROV_USER, "test", &plain);
    p.act_bits = 16;
    rf_llm_pick_compute(ctx, m, plain, &p, &ci, why, sizeof why);
    RF_EXPECT_INT(ci, plain->default_compute);
    RF_EXPECT_CONTAINS(why, "has no fp16|bf16 ceiling");
    rf_machine_free(plain);
    rf_machine_free(a100);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* A GGUF of an unknown family ("mystery") with n_blk block tensors "blk.K.w" and n_flat tensors
 * "wK" (no separator before the digits: a group each), all F32 [4]: 16 bytes, 4 params. */
static rf_llm_model *many_tensors(rf_ctx *ctx, uint64_t n_blk, uint64_t n_flat)
{
    gb b = {0};
    char name[64];
    uint64_t dims[1] = {4}, off = 0;
    gb_header(&b, 3, n_blk + n_flat, 1);
    gb_kv_str(&b, "general.architecture", "mystery");
    for (uint64_t i = 0; i < n_blk + n_flat; i++, off += 32) {
        if (i < n_blk)
            snprintf(name, sizeof name, "blk.%llu.w", (unsigned long long)i);
        else
            snprintf(name, sizeof name, "w%llu", (unsigned long long)(i - n_blk));
        gb_tensor(&b, name, 1, dims, 0 /* F32 */, off);
    }
    gb_pad(&b, 32);
    gb_zeros(&b, (size_t)off);
    rf_llm_model *m = NULL;
    if (rf_llm_parse(ctx, b.p, b.n, "many.gguf", &m) != RF_OK)
        RF_FAIL_AT("many.gguf: %s", rf_ctx_errmsg(ctx));
    gb_free(&b);
    return m;
}

/* The weights report groups tensors through a hash table (it was a linear search per tensor:
 * 73 s for a 35 MB file of 200,000 distinct names): the groups, their order (first seen) and
 * counts are those of the definition, and the CSV has a total, one row per type and one per
 * group. */
RF_TEST(llm_weights_report_groups_and_csv)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = many_tensors(ctx, 3000, 3000);
    RF_REQUIRE(m != NULL);
    RF_EXPECT(!rf_llm_hparams_get(m)->known);
    rf_llm_weights *w = NULL;
    RF_REQUIRE(rf_llm_weights_report(ctx, m, &w) == RF_OK);
    RF_EXPECT_INT(w->tensors, 6000);
    RF_EXPECT_INT(w->params, 6000 * 4);
    RF_EXPECT_INT(w->bytes, 6000 * 16);
    RF_EXPECT_INT(w->n_groups, 1 + 3000); /* blk.*.w, then w0 ... w2999 */
    RF_EXPECT_STR(w->groups[0].prefix, "blk.*.w");
    RF_EXPECT_INT(w->groups[0].tensors, 3000);
    RF_EXPECT_INT(w->groups[0].bytes, 3000 * 16);
    RF_EXPECT_STR(w->groups[1].prefix, "w0");
    RF_EXPECT_STR(w->groups[3000].prefix, "w2999");
    RF_EXPECT_INT(w->groups[3000].tensors, 1);
    rf_machine *a100 = NULL;
    RF_REQUIRE(rf_hwdb_find(ctx, "a100-sxm4-80gb", &a100) == RF_OK);
    long dram = rf_machine_find(a100, "DRAM");
    RF_REQUIRE(dram >= 0);
    rf_buf buf;
    rf_buf_init(&buf, ctx, 1 << 20);
    rf_writer bw = rf_buf_writer(&buf);
    RF_REQUIRE(rf_report_llm_weights_csv(ctx, w, "many.gguf", a100, (size_t)dram, &bw) == RF_OK);
    rf_buf_append(&buf, "", 1);
    /* 2.039e12 B/s / 96,000 B = 21,239,583.33 tokens/s */
    RF_EXPECT_CONTAINS(buf.data,
                       "row,name,tensors,params,bytes,bits_per_weight,type,"
                       "bw_tokens_per_s\ntotal,many.gguf,6000,24000,96000,32,,21239583.3");
    RF_EXPECT_CONTAINS(buf.data, "\ndtype,F32,,24000,96000,32,F32,\n");
    RF_EXPECT_CONTAINS(buf.data, "\ngroup,blk.*.w,3000,12000,48000,32,F32,\ngroup,w0,1,4,16,");
    size_t lines = 0;
    for (size_t i = 0; i < buf.len; i++) lines += buf.data[i] == '\n';
    RF_EXPECT_INT(lines, 1 + 1 + 1 + 3001);
    rf_buf_free(&buf);
    rf_machine_free(a100);
    rf_llm_weights_free(w);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* The Llama-2-7B shape (model tag `tag`) analysed on an H100 from the datasheet database, on its
 * fp16.tensor and memory ceilings, default options: 1 when every step worked. */
static int analyze_7b_h100(rf_ctx *ctx, const char *tag, rf_llm_model **m, rf_machine **h100,
                           rf_llm_result **r)
{
    size_t ci = 0, bi = 0;
    rf_llm_opts po = {0}, dopt = {0};
    *m = open_spec(ctx, &llama7b, tag);
    return *m && rf_hwdb_find(ctx, "h100-sxm5", h100) == RF_OK &&
           rf_machine_select(ctx, *h100, RF_CEILING_COMPUTE, "fp16.tensor", &ci) == RF_OK &&
           rf_machine_select(ctx, *h100, RF_CEILING_BANDWIDTH, NULL, &bi) == RF_OK &&
           rf_llm_analyze(ctx, *m, "7b", *h100, ci, bi, &po, &dopt, r) == RF_OK;
}

/* Distributed inference (issue 15) on the Llama-2-7B shape, F16, an H100 (fp16.tensor 989.4
 * TFLOP/s, 3.35 TB/s) over NVLink 4 (450 GB/s, latency set to 1 us), TP 8, prompt 128, decode at
 * batch 1. One allreduce's message: batch x tokens x 4096 x 2 bytes (decode 8 KiB, prefill 1 MiB);
 * ring: 2 x 7/8 x message / 450e9 + 14 x 1 us; 2 per block, 64 a pass. llm-analysis's
 * get_latency_fwd_per_tp_comm moves the same 2 x b x s x h x (tp-1)/tp elements (its latency term
 * is max(bytes time, a minimum) where the ring's alpha-beta model adds 2(tp-1) latencies). */
RF_TEST(llm_distributed_7b_tp8)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = NULL;
    rf_machine *h100 = NULL;
    rf_llm_result *r = NULL;
    RF_REQUIRE(analyze_7b_h100(ctx, "7bdist", &m, &h100, &r));
    rf_llm_dist_opts o;
    memset(&o, 0, sizeof o);
    o.tp = 8;
    o.pp = 1;
    o.link_bytes_per_s = 450e9;
    o.link_latency_s = 1e-6;
    snprintf(o.link, sizeof o.link, "nvlink4");
    rf_llm_dist d;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &d), RF_OK);
    const rf_llm_dist_phase *dec = &d.phase[1], *pre = &d.phase[0];
    RF_EXPECT_DBL(dec->allreduce_bytes, 4096.0 * 2);
    RF_EXPECT_DBL(pre->allreduce_bytes, 128.0 * 4096 * 2);
    RF_EXPECT_INT(dec->allreduces, 64);
    const double dec_ar = 2.0 * 7 / 8 * 8192 / 450e9 + 14e-6;
    RF_EXPECT_NEAR(dec->allreduce_s, dec_ar, 1e-12);
    RF_EXPECT_NEAR(dec->comm_s, 64 * dec_ar, 1e-12);
    RF_EXPECT_NEAR(pre->allreduce_s, 2.0 * 7 / 8 * 1048576 / 450e9 + 14e-6, 1e-12);
    RF_EXPECT_NEAR(dec->comm_bytes, 64 * 2.0 * 7 / 8 * 8192, 1e-12);
    /* llm-analysis: elems = 2 b s h (tp-1)/tp, times dtype bytes over the link: with no latency
     * the two agree to the last bit */
    o.link_latency_s = 0;
    rf_llm_dist z;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &z), RF_OK);
    RF_EXPECT_NEAR(z.phase[0].allreduce_s, 2.0 * 1 * 128 * 4096 * 7 / 8 * 2 / 450e9, 1e-12);
    /* the device's share: weight-bound decode reads 1/8 of the matrices, so its time is about
     * an eighth of the single device's (norms and residual adds replicated, a few us more) */
    double one = r->ceilings.decode_step_s;
    RF_EXPECT(dec->device_s > one / 8 && dec->device_s < one / 8 * 1.05);
    RF_EXPECT_NEAR(d.weight_bytes_per_device, r->ceilings.model_bytes / 8, 1e-12);
    RF_EXPECT_NEAR(dec->pass_s, dec->device_s + dec->comm_s, 1e-12);
    RF_EXPECT_NEAR(dec->tokens_per_s, 1 / dec->pass_s, 1e-12);
    /* 64 x 14 us of latency against ~0.5 ms of layers: bound by the link already at batch 1;
     * the scan: TP 1 has no communication and is the single device's decode rate */
    RF_EXPECT_INT(dec->comm_bound, 1);
    RF_EXPECT_INT(d.decode_batch_comm_bound, 1);
    RF_EXPECT_INT(d.n_scan, 4);
    RF_EXPECT_INT(d.scan[0].tp, 1);
    RF_EXPECT_NEAR(d.scan[0].decode_tokens_per_s, 1 / one, 1e-9);
    RF_EXPECT_DBL(d.scan[0].comm_share, 0);
    RF_EXPECT(d.tp_comm_bound >= 2 && d.tp_comm_bound <= 8);
    /* pipeline: 4 stages, 3 hand-offs of the message, one latency each */
    o.tp = 1;
    o.pp = 4;
    o.link_latency_s = 1e-6;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &d), RF_OK);
    RF_EXPECT_INT(d.phase[1].allreduces, 0);
    RF_EXPECT_NEAR(d.phase[1].comm_s, 3 * (8192 / 450e9 + 1e-6), 1e-15);
    RF_EXPECT_NEAR(d.phase[1].pipelined_tokens_per_s, 4 * d.phase[1].tokens_per_s, 1e-9);
    /* refusals */
    o.pp = 33;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &d), RF_USAGE);
    o.pp = 1;
    o.tp = 0;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &d), RF_USAGE);
    o.tp = 2;
    o.link_bytes_per_s = NAN;
    RF_EXPECT_INT(rf_llm_distribute(ctx, r, &o, &d), RF_USAGE);
    rf_llm_result_free(r);
    rf_machine_free(h100);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

/* The roof of a measured decode (issue 28): its weight products alone, bound by the lower of the
 * DRAM ceiling and the kernel's rate from L2 (memory from RF_LLM_MEMORY_BOUND of DRAM up). Figures
 * set, not timed: the 7B F16 shape on an H100 (3.35 TB/s), a decode reading its weights at 45% of
 * that, products alone at 50% with a kernel at 60% (the kernel binds), at 300% (memory), unknown
 * (the kernel named); products alone at 90-95% (memory) and 120% (the weights partly in cache). */
static void roof_in(rf_llm_decode_roof_in *in, double products_s, double in_step_s)
{
    memset(in, 0, sizeof *in);
    in->products_s = products_s;
    in->products_min_s = 0.98 * products_s;
    in->products_max_s = 1.03 * products_s;
    in->products_in_step_s = in_step_s;
    in->paired_share = 0; /* the median of the passes; the paired ratio below */
    in->kernel_type = "F16";
    in->threads = 2;
}

static void roof_render(rf_ctx *ctx, const rf_llm_result *r, int json, rf_buf *buf)
{
    rf_buf_init(buf, ctx, 1 << 22);
    rf_writer w = rf_buf_writer(buf);
    rf_report_opts o = {0};
    RF_EXPECT_INT(json ? rf_report_llm_json(ctx, r, &w) : rf_report_llm_table(ctx, r, &o, &w),
                  RF_OK);
    rf_buf_append(buf, "", 1);
    if (json) return;
    char *d = buf->data; /* the wrapped lines joined: every run of blanks one space */
    for (const char *s = buf->data; *s; s++)
        if (!((*s == ' ' || *s == '\n') && d > buf->data && d[-1] == ' '))
            *d++ = *s == '\n' ? ' ' : *s;
    *d = '\0';
}

RF_TEST(llm_decode_roof_binding)
{
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = NULL;
    rf_machine *h100 = NULL;
    rf_llm_result *r = NULL;
    RF_REQUIRE(analyze_7b_h100(ctx, "7broof", &m, &h100, &r));
    rf_llm_decode_roof_in in;
    roof_in(&in, 1, 0);
    /* no measured decode: nothing to set a roof for */
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_USAGE);
    double bw = r->roof.bw_bytes_per_s, swb = r->phase[1].cost->weight_bytes;
    RF_REQUIRE(bw > 3e12 && swb > 1e10);
    double tps = 0.45 * bw / swb, step = 1 / tps;
    RF_REQUIRE(rf_llm_result_set_measured(ctx, r, tps, 0, "set by the test") == RF_OK);
    const rf_llm_measured *x = &r->measured;
    /* the kernel binds: its rate from L2 at 60% of the bandwidth, products alone at 50%, 95% of
     * the step in them */
    roof_in(&in, swb / (0.5 * bw), 0.95 * step);
    in.kernel_bytes_per_s = 0.6 * bw;
    in.kernel_ceiling = "f16.gemv.avx512";
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_NEAR(x->roof_bytes_per_s, 0.5 * bw, 1e-6 * bw);
    RF_EXPECT_NEAR(x->roof_of_bandwidth, 0.5, 1e-12);
    RF_EXPECT_NEAR(x->roof_of_kernel, 0.5 / 0.6, 1e-12);
    /* in series 1 / (1/0.6 + 1/1) = 0.375 of bw; overlapped 0.6: the roof 0.5 is 5/9 of the way */
    RF_EXPECT_NEAR(x->serial_bytes_per_s, 0.375 * bw, 1e-9 * bw);
    RF_EXPECT_NEAR(x->overlap, (0.5 - 0.375) / (0.6 - 0.375), 1e-9);
    RF_EXPECT_INT(x->bound_by_kernel, 1);
    RF_EXPECT_NEAR(x->decode_of_roof, 0.9, 1e-12); /* 45% of bw over 50% */
    RF_EXPECT_NEAR(x->decode_of_roof, in.products_s / x->step_s, 1e-12);
    RF_EXPECT_NEAR(x->step_s, step, 1e-12 * step);
    RF_EXPECT_NEAR(x->other_s, 0.05 * step, 1e-9 * step);
    RF_EXPECT_NEAR(x->products_median_s, in.products_s, 1e-15);
    RF_EXPECT_DBL(x->bandwidth_bytes_per_s, bw);
    RF_EXPECT_STR(x->kernel_type, "F16");
    RF_EXPECT_STR(x->kernel_ceiling, "f16.gemv.avx512");
    rf_buf buf;
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, " roof decode is bound by the F16 dot kernel: on 2 cores it "
                                 "consumes ");
    RF_EXPECT_CONTAINS(buf.data, "of weights held in L2 (f16.gemv.avx512); ");
    RF_EXPECT_CONTAINS(buf.data, ". Streamed through the kernels, a step's weight products alone "
                                 "read its ");
    RF_EXPECT_CONTAINS(buf.data, "; 50% of ");
    RF_EXPECT_CONTAINS(buf.data, ", 83% of the kernel's): the roof. The kernel's work and the "
                                 "memory stream give ");
    RF_EXPECT_CONTAINS(buf.data, "Decode reads weights at 90.0% of it: a step takes ");
    RF_EXPECT_CONTAINS(buf.data, " overlapped: the products get 56% of the way from the one to the "
                                 "other. Decode reads");
    RF_EXPECT(strstr(buf.data, " alike") == NULL);
    RF_EXPECT(strstr(buf.data, "above its roof") == NULL);
    rf_buf_free(&buf);
    r->measured.busy_other = 0.55; /* measured while other processes ran */
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, "; other processes took 55% of the CPU meanwhile: the decode and "
                                 "its roof slowed alike, what binds may differ on a quiet machine");
    rf_buf_free(&buf);
    r->measured.busy_other = -1;
    roof_render(ctx, r, 1, &buf);
    json_error_t je;
    json_t *doc = json_loads(buf.data, 0, &je);
    RF_REQUIRE(doc != NULL);
    RF_EXPECT_STR(json_string_value(json_object_get(
                      json_object_get(json_object_get(doc, "measured"), "decode_roof"), "bound")),
                  "kernel");
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.decode_of_roof"), 0.9, 1e-9);
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.roof_bytes_per_s"), 0.5 * bw, 1e-3 * bw);
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.kernel_bytes_per_s"), 0.6 * bw, 1e-3 * bw);
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.roof_of_kernel"), 0.5 / 0.6, 1e-9);
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.overlap"), 5.0 / 9, 1e-9);
    /* one bytes figure: the roof and the decode's rate both over the step's weight bytes */
    RF_EXPECT_NEAR(jnum(doc, "measured.decode_roof.roof_bytes_per_s") *
                       jnum(doc, "measured.decode_roof.products_s"),
                   jnum(doc, "measured.step_weight_bytes"), 1e-6 * swb);
    json_decref(doc);
    rf_buf_free(&buf);
    RF_EXPECT_INT(x->bound_by_both, 0);
    /* a kernel about as fast as memory, on either side of it: both named */
    in.kernel_bytes_per_s = 0.95 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 1);
    RF_EXPECT_INT(x->bound_by_both, 1);
    in.kernel_bytes_per_s = 1.1 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 0);
    RF_EXPECT_INT(x->bound_by_both, 1);
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, " roof decode is bound by the F16 dot kernel and ");
    RF_EXPECT_CONTAINS(buf.data, " alike: on 2 cores the kernel consumes ");
    rf_buf_free(&buf);
    roof_render(ctx, r, 1, &buf);
    RF_EXPECT_CONTAINS(buf.data, "\"decode_roof\": {\"bound\": \"kernel and memory\", ");
    rf_buf_free(&buf);
    in.kernel_bytes_per_s = 1.2 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_both, 0);
    /* the same stream with a kernel three times faster than memory: memory binds */
    in.kernel_bytes_per_s = 3 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 0);
    RF_EXPECT_NEAR(x->decode_of_roof, 0.9, 1e-12); /* the roof is the same */
    char want[160];
    snprintf(want, sizeof want,
             " roof decode is bound by %s: ", r->machine->ceilings[r->bandwidth].name);
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, want);
    RF_EXPECT_CONTAINS(buf.data, "; the F16 dot kernel on 2 cores consumes ");
    rf_buf_free(&buf);
    /* no kernel rate: the kernel named below RF_LLM_MEMORY_BOUND, memory from it up */
    in.kernel_bytes_per_s = 0;
    in.kernel_ceiling = NULL;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 1);
    RF_EXPECT_STR(x->kernel_ceiling, "");
    roof_in(&in, swb / (0.89 * bw), 0.95 * step);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 1);
    roof_in(&in, swb / (RF_LLM_MEMORY_BOUND * bw * (1 + 1e-12)), 0.95 * step);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 0);
    /* products alone at 95% of DRAM: memory, even with a kernel slower than DRAM from L2 */
    roof_in(&in, swb / (0.95 * bw), 0.95 * step);
    in.kernel_bytes_per_s = 0.97 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 0);
    RF_EXPECT_INT(x->bound_by_both, 0);
    RF_EXPECT_NEAR(x->decode_of_roof, 0.45 / 0.95, 1e-12);
    /* above DRAM: weights partly held in the last-level cache between steps */
    roof_in(&in, swb / (1.2 * bw), 0.95 * step);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_INT(x->bound_by_kernel, 0);
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, "; 120% of ");
    RF_EXPECT_CONTAINS(buf.data,
                       "held in the last-level cache from one step to the next: the roof");
    rf_buf_free(&buf);
    /* a decode faster than its products alone: said, not hidden */
    roof_in(&in, 0.8 * step, 0.95 * step);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_NEAR(x->decode_of_roof, 0.8, 1e-12);
    roof_in(&in, 1.2 * step, 0.95 * step);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, "above its roof");
    rf_buf_free(&buf);
    /* under even the two in series (kernel 3 x bw: 0.75 bw in series, the products at 0.5) */
    roof_in(&in, swb / (0.5 * bw), 0.95 * step);
    in.kernel_bytes_per_s = 3 * bw;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_NEAR(x->overlap, (0.5 - 0.75) / (1 - 0.75), 1e-9);
    roof_render(ctx, r, 0, &buf);
    RF_EXPECT_CONTAINS(buf.data, "overlapped: the products stay under both, so the stream itself "
                                 "falls short of ");
    rf_buf_free(&buf);
    /* paired: the products alone at 91% of the step just before them, whatever the median */
    roof_in(&in, 2 * step, 0.95 * step);
    in.paired_share = 0.91;
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_OK);
    RF_EXPECT_NEAR(x->decode_of_roof, 0.91, 1e-12);
    RF_EXPECT_NEAR(x->products_s, 0.91 * step, 1e-12 * step);
    RF_EXPECT_NEAR(x->products_median_s, 2 * step, 1e-12 * step);
    RF_EXPECT_NEAR(x->roof_bytes_per_s * x->products_s, swb, 1e-9 * swb);
    /* figures that cannot be a roof */
    roof_in(&in, 0, 0);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_RANGE);
    roof_in(&in, NAN, 0);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_RANGE);
    roof_in(&in, 1, -1);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, &in), RF_RANGE);
    RF_EXPECT_INT(rf_llm_result_set_decode_roof(ctx, r, NULL), RF_USAGE);
    rf_llm_result_free(r);
    rf_machine_free(h100);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}

static double tick(void *user)
{
    double *t = user;
    return *t += 0.001;
}

/* Decode's F16 matrices of 2 MiB or more (gate, up, down of 2 MiB, the 4 MiB head; not the
 * untied token embedding, which is only gathered) are copied onto transparent huge pages when
 * Linux gives them (llm_exec_pass.c: rf__llm_exec_stream_copy), counted in the run's memory; the
 * run's other buffers here take under 1 MiB. Under ASan this also checks the copies' lifetime. */
RF_TEST(llm_exec_copies_streamed_matrices_to_huge_pages)
{
    static const spec s = {"llama", 512, 2048, 4096, 1, 8, 8, 0, 0, 1 /* F16 */, 0, 0, 0, 0};
    rf_ctx *ctx = new_ctx();
    rf_llm_model *m = open_spec(ctx, &s, "huge");
    RF_REQUIRE(m != NULL);
    double t = 0;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    rf_exec_opts eo = {1, 1, 2, tick, &t, 0};
    po.prompt = 4;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = 8;
    RF_REQUIRE(rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r) == RF_OK);
    char mode[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f) {
        size_t n = fread(mode, 1, sizeof mode - 1, f);
        mode[n] = 0;
        fclose(f);
    }
    double copies = 3.0 * 2048 * 512 * 2 + 4096.0 * 512 * 2;
    if (strstr(mode, "[always]") || strstr(mode, "[madvise]"))
        RF_EXPECT(r->memory_bytes >= copies && r->memory_bytes < copies + (1 << 20));
    else
        RF_EXPECT(r->memory_bytes < (1 << 20));
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}
