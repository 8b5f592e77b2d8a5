/* test_llm_hf.c — the transformer builder on Hugging Face checkpoints of every family it names:
 * small SafeTensors files with a config.json are written here (llama with GQA, mistral, qwen2 with
 * q/k/v biases, gemma with a tied head and an explicit head_dim, phi3 with fused qkv and gate_up),
 * and params, hyper-parameters and the matmul FLOPs of both phases are checked against the
 * fixtures' convention: 2 x elements of every 2-D weight but the token embedding per token (the
 * tied head counts the embedding's), plus 4 x n_layer x n_head x head_dim x positions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rf_test.h"
#include "roofline/roofline.h"

typedef struct fam {
    const char *model_type;
    int qkv_bias, fused, tied, explicit_head_dim;
    uint64_t E, L, H, KV, D, F, V;
} fam;

typedef struct st_writer {
    char hdr[16384];
    size_t hlen;
    uint64_t off, params, matmul; /* matmul: elements of 2-D weights but the embedding */
} st_writer;

static void st_add(st_writer *w, const char *name, uint64_t d0, uint64_t d1)
{
    uint64_t n = d1 ? d0 * d1 : d0;
    char shape[48];
    if (d1)
        snprintf(shape, sizeof shape, "%llu,%llu", (unsigned long long)d0, (unsigned long long)d1);
    else
        snprintf(shape, sizeof shape, "%llu", (unsigned long long)d0);
    w->hlen +=
        (size_t)snprintf(w->hdr + w->hlen, sizeof w->hdr - w->hlen,
                         "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[%llu,%llu]}",
                         w->hlen > 1 ? "," : "", name, shape, (unsigned long long)w->off,
                         (unsigned long long)(w->off + 4 * n));
    w->off += 4 * n;
    w->params += n;
    if (d1 && !strstr(name, "embed_tokens")) w->matmul += n;
}

/* Write DIR/model.safetensors and DIR/config.json for family `f`. */
static void write_model(const char *dir, const fam *f, st_writer *w)
{
    char name[160], path[1024];
    memset(w, 0, sizeof *w);
    w->hdr[0] = '{';
    w->hlen = 1;
    const uint64_t E = f->E, D = f->D, Q = f->H * D, K = f->KV * D;
    st_add(w, "model.embed_tokens.weight", f->V, E);
    for (uint64_t l = 0; l < f->L; l++) {
#define NAME(fmt)                                                                                  \
    (snprintf(name, sizeof name, "model.layers.%llu." fmt, (unsigned long long)l), name)
        st_add(w, NAME("input_layernorm.weight"), E, 0);
        if (f->fused) {
            st_add(w, NAME("self_attn.qkv_proj.weight"), Q + 2 * K, E);
        } else {
            st_add(w, NAME("self_attn.q_proj.weight"), Q, E);
            st_add(w, NAME("self_attn.k_proj.weight"), K, E);
            st_add(w, NAME("self_attn.v_proj.weight"), K, E);
            if (f->qkv_bias) {
                st_add(w, NAME("self_attn.q_proj.bias"), Q, 0);
                st_add(w, NAME("self_attn.k_proj.bias"), K, 0);
                st_add(w, NAME("self_attn.v_proj.bias"), K, 0);
            }
        }
        st_add(w, NAME("self_attn.o_proj.weight"), E, Q);
        st_add(w, NAME("post_attention_layernorm.weight"), E, 0);
        if (f->fused) {
            st_add(w, NAME("mlp.gate_up_proj.weight"), 2 * f->F, E);
        } else {
            st_add(w, NAME("mlp.gate_proj.weight"), f->F, E);
            st_add(w, NAME("mlp.up_proj.weight"), f->F, E);
        }
        st_add(w, NAME("mlp.down_proj.weight"), E, f->F);
#undef NAME
    }
    st_add(w, "model.norm.weight", E, 0);
    if (!f->tied)
        st_add(w, "lm_head.weight", f->V, E);
    else
        w->matmul += f->V * E; /* the head reads the embedding */
    w->hlen += (size_t)snprintf(w->hdr + w->hlen, sizeof w->hdr - w->hlen, "}");
    while (w->hlen % 8) w->hdr[w->hlen++] = ' ';
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *fp = fopen(path, "wb");
    RF_REQUIRE(fp);
    uint64_t n = w->hlen;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(n >> (8 * i));
    fwrite(le, 1, 8, fp);
    fwrite(w->hdr, 1, w->hlen, fp);
    fclose(fp);
    RF_REQUIRE(truncate(path, (off_t)(8 + w->hlen + w->off)) == 0);
    snprintf(path, sizeof path, "%s/config.json", dir);
    fp = fopen(path, "w");
    RF_REQUIRE(fp);
    fprintf(fp,
            "{\"model_type\": \"%s\", \"hidden_size\": %llu, \"num_hidden_layers\": %llu, "
            "\"num_attention_heads\": %llu, \"num_key_value_heads\": %llu, "
            "\"intermediate_size\": %llu, \"vocab_size\": %llu, "
            "\"max_position_embeddings\": 256, \"tie_word_embeddings\": %s",
            f->model_type, (unsigned long long)E, (unsigned long long)f->L,
            (unsigned long long)f->H, (unsigned long long)f->KV, (unsigned long long)f->F,
            (unsigned long long)f->V, f->tied ? "true" : "false");
    if (f->explicit_head_dim) fprintf(fp, ", \"head_dim\": %llu", (unsigned long long)D);
    fprintf(fp, "}\n");
    fclose(fp);
}

static double matmul_flops(rf_ctx *ctx, rf_llm_model *m, rf_llm_phase ph, uint64_t n)
{
    rf_llm_opts o;
    memset(&o, 0, sizeof o);
    o.phase = ph;
    o.prompt = o.context = n;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    double flops = -1;
    if (rf_llm_build(ctx, m, &o, &g) == RF_OK && rf_llm_cost(ctx, g, &o, &c) == RF_OK) {
        RF_EXPECT_INT(c->n_unknown, 0);
        flops = c->matmul_conv_flops;
    } else {
        RF_FAIL_AT("build: %s", rf_ctx_errmsg(ctx));
    }
    rf_cost_free(c);
    rf_graph_free(g);
    return flops;
}

static void check_family(const fam *f)
{
    char dir[512];
    snprintf(dir, sizeof dir, RF_BINARY_DIR "/llm_hf_%s", f->model_type);
    st_writer *w = calloc(1, sizeof *w);
    RF_REQUIRE(w);
    write_model(dir, f, w);
    rf_ctx *ctx = NULL;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    rf_llm_model *m = NULL;
    rf_status st = rf_llm_read_file(ctx, dir, &m);
    if (st != RF_OK) RF_FAIL_AT("%s: %s", f->model_type, rf_ctx_errmsg(ctx));
    if (st == RF_OK) {
        const rf_llm_hparams *h = rf_llm_hparams_get(m);
        RF_EXPECT_STR(h->architecture, f->model_type);
        RF_EXPECT_INT(h->known, 1);
        RF_EXPECT_INT(h->n_embd, f->E);
        RF_EXPECT_INT(h->n_layer, f->L);
        RF_EXPECT_INT(h->n_head, f->H);
        RF_EXPECT_INT(h->n_head_kv, f->KV);
        RF_EXPECT_INT(h->head_dim, f->D);
        RF_EXPECT_INT(h->n_ff, f->F);
        RF_EXPECT_INT(h->tied_embeddings, f->tied);
        RF_EXPECT_INT(h->params, w->params);
        const double att = 4.0 * (double)(f->L * f->H * f->D);
        RF_EXPECT_DBL(matmul_flops(ctx, m, RF_LLM_DECODE, 16), 2.0 * (double)w->matmul + att * 16);
        RF_EXPECT_DBL(matmul_flops(ctx, m, RF_LLM_PREFILL, 16),
                      16 * (2.0 * (double)w->matmul) + att * 16 * 16);
    }
    rf_llm_free(m);
    rf_ctx_free(ctx);
    free(w);
}

RF_TEST(llama_gqa)
{
    const fam f = {"llama", 0, 0, 0, 0, 64, 2, 4, 2, 16, 128, 100};
    check_family(&f);
}

RF_TEST(mistral)
{
    const fam f = {"mistral", 0, 0, 0, 0, 64, 2, 8, 2, 8, 160, 120};
    check_family(&f);
}

RF_TEST(qwen2_qkv_bias)
{
    const fam f = {"qwen2", 1, 0, 1, 0, 64, 3, 4, 2, 16, 96, 100};
    check_family(&f);
}

RF_TEST(gemma_tied_head_dim)
{
    /* head_dim 32 with 4 heads on a width of 64: q is wider than the model */
    const fam f = {"gemma", 0, 0, 1, 1, 64, 2, 4, 1, 32, 128, 100};
    check_family(&f);
}

RF_TEST(phi3_fused)
{
    const fam f = {"phi3", 0, 1, 0, 0, 64, 2, 4, 4, 16, 128, 100};
    check_family(&f);
}
