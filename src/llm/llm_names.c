/* llm_names.c — the tensor-name tables: which role a weight plays, from llama.cpp's GGUF names
 * (llama-arch.cpp LLM_TENSOR_NAMES) and Hugging Face transformers' module paths (modeling_llama,
 * modeling_gpt2, modeling_phi3, modeling_gemma2, modeling_mixtral), and the traits of each known
 * family. Pure string work: never opens files, never builds graphs. */
#include <stdlib.h>
#include <string.h>

#include "llm/llm_int.h"

typedef struct rf__suffix {
    const char *s;
    int role;
} rf__suffix;

static const char *const rf__role_names[] = {
#define RF__ROLE_NAME(n) #n,
    RF__LLM_ROLES(RF__ROLE_NAME)
#undef RF__ROLE_NAME
};

const char *rf__llm_role_name(int role)
{
    return role >= 0 && role < RF__R_COUNT ? rf__role_names[role] : "?";
}

static const rf__suffix rf__gguf_global[] = {
    {"token_embd.weight", RF__R_TOK_EMBD},  {"position_embd.weight", RF__R_POS_EMBD},
    {"output_norm.weight", RF__R_OUT_NORM}, {"output_norm.bias", RF__R_OUT_NORM_B},
    {"output.weight", RF__R_OUTPUT},        {NULL, 0}};

static const rf__suffix rf__gguf_block[] = {{"attn_norm.weight", RF__R_ATTN_NORM},
                                            {"attn_norm.bias", RF__R_ATTN_NORM_B},
                                            {"attn_q.weight", RF__R_Q},
                                            {"attn_q.bias", RF__R_Q_B},
                                            {"attn_k.weight", RF__R_K},
                                            {"attn_k.bias", RF__R_K_B},
                                            {"attn_v.weight", RF__R_V},
                                            {"attn_v.bias", RF__R_V_B},
                                            {"attn_qkv.weight", RF__R_QKV},
                                            {"attn_qkv.bias", RF__R_QKV_B},
                                            {"attn_output.weight", RF__R_O},
                                            {"attn_output.bias", RF__R_O_B},
                                            {"attn_q_norm.weight", RF__R_Q_NORM},
                                            {"attn_k_norm.weight", RF__R_K_NORM},
                                            {"post_attention_norm.weight", RF__R_POST_ATTN_NORM},
                                            {"ffn_norm.weight", RF__R_FFN_NORM},
                                            {"ffn_norm.bias", RF__R_FFN_NORM_B},
                                            {"ffn_gate.weight", RF__R_GATE},
                                            {"ffn_up.weight", RF__R_UP},
                                            {"ffn_up.bias", RF__R_UP_B},
                                            {"ffn_down.weight", RF__R_DOWN},
                                            {"ffn_down.bias", RF__R_DOWN_B},
                                            {"post_ffw_norm.weight", RF__R_POST_FFN_NORM},
                                            {"ffn_gate_inp.weight", RF__R_ROUTER},
                                            {"ffn_gate_exps.weight", RF__R_GATE_EXPS},
                                            {"ffn_up_exps.weight", RF__R_UP_EXPS},
                                            {"ffn_down_exps.weight", RF__R_DOWN_EXPS},
                                            {NULL, 0}};

static const rf__suffix rf__hf_global[] = {{"embed_tokens.weight", RF__R_TOK_EMBD},
                                           {"wte.weight", RF__R_TOK_EMBD},
                                           {"wpe.weight", RF__R_POS_EMBD},
                                           {"norm.weight", RF__R_OUT_NORM},
                                           {"ln_f.weight", RF__R_OUT_NORM},
                                           {"ln_f.bias", RF__R_OUT_NORM_B},
                                           {"final_layernorm.weight", RF__R_OUT_NORM},
                                           {"lm_head.weight", RF__R_OUTPUT},
                                           {NULL, 0}};

static const rf__suffix rf__hf_block[] = {
    {"input_layernorm.weight", RF__R_ATTN_NORM},
    {"ln_1.weight", RF__R_ATTN_NORM},
    {"ln_1.bias", RF__R_ATTN_NORM_B},
    {"self_attn.q_proj.weight", RF__R_Q},
    {"self_attn.q_proj.bias", RF__R_Q_B},
    {"self_attn.k_proj.weight", RF__R_K},
    {"self_attn.k_proj.bias", RF__R_K_B},
    {"self_attn.v_proj.weight", RF__R_V},
    {"self_attn.v_proj.bias", RF__R_V_B},
    {"self_attn.qkv_proj.weight", RF__R_QKV},
    {"attn.c_attn.weight", RF__R_QKV},
    {"attn.c_attn.bias", RF__R_QKV_B},
    {"self_attn.o_proj.weight", RF__R_O},
    {"self_attn.o_proj.bias", RF__R_O_B},
    {"attn.c_proj.weight", RF__R_O},
    {"attn.c_proj.bias", RF__R_O_B},
    {"self_attn.q_norm.weight", RF__R_Q_NORM},
    {"self_attn.k_norm.weight", RF__R_K_NORM},
    {"post_attention_layernorm.weight", RF__R_FFN_NORM},
    {"ln_2.weight", RF__R_FFN_NORM},
    {"ln_2.bias", RF__R_FFN_NORM_B},
    {"pre_feedforward_layernorm.weight", RF__R_FFN_NORM},
    {"post_feedforward_layernorm.weight", RF__R_POST_FFN_NORM},
    {"mlp.gate_proj.weight", RF__R_GATE},
    {"mlp.up_proj.weight", RF__R_UP},
    {"mlp.gate_up_proj.weight", RF__R_GATE_UP},
    {"mlp.down_proj.weight", RF__R_DOWN},
    {"mlp.c_fc.weight", RF__R_UP},
    {"mlp.c_fc.bias", RF__R_UP_B},
    {"mlp.c_proj.weight", RF__R_DOWN},
    {"mlp.c_proj.bias", RF__R_DOWN_B},
    {"block_sparse_moe.gate.weight", RF__R_ROUTER},
    {NULL, 0}};

static int rf__match(const rf__suffix *t, const char *s)
{
    for (; t->s; t++)
        if (strcmp(t->s, s) == 0) return t->role;
    return RF__R_OTHER;
}

/* "N." at s: the block number (at most 1e9) and the rest; NULL when not a number. */
static const char *rf__index(const char *s, int64_t *n)
{
    char *end;
    if (*s < '0' || *s > '9') return NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '.' || v > 1000000000ull) return NULL;
    *n = (int64_t)v;
    return end + 1;
}

int rf__llm_role_gguf(const char *name, int64_t *block)
{
    const char *rest;
    *block = -1;
    if (strncmp(name, "blk.", 4) == 0 && (rest = rf__index(name + 4, block)) != NULL) {
        int r = rf__match(rf__gguf_block, rest);
        if (r == RF__R_OTHER) *block = -1;
        return r;
    }
    return rf__match(rf__gguf_global, name);
}

/* Strip "model." / "transformer." / "model.language_model." prefixes. */
static const char *rf__hf_strip(const char *s)
{
    static const char *const pre[] = {"model.language_model.", "model.", "transformer."};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (strncmp(s, pre[i], strlen(pre[i])) == 0) return s + strlen(pre[i]);
    return s;
}

/* Mixtral experts: "block_sparse_moe.experts.K.w1.weight" (w1 gate, w3 up, w2 down). */
static int rf__hf_expert(const char *rest, int64_t *expert)
{
    static const char pre[] = "block_sparse_moe.experts.";
    if (strncmp(rest, pre, sizeof pre - 1) != 0) return RF__R_OTHER;
    const char *w = rf__index(rest + sizeof pre - 1, expert);
    if (!w) return RF__R_OTHER;
    if (strcmp(w, "w1.weight") == 0) return RF__R_GATE_EXPS;
    if (strcmp(w, "w3.weight") == 0) return RF__R_UP_EXPS;
    if (strcmp(w, "w2.weight") == 0) return RF__R_DOWN_EXPS;
    return RF__R_OTHER;
}

int rf__llm_role_hf(const char *name, int gemma2, int64_t *block, int64_t *expert)
{
    const char *s = rf__hf_strip(name), *rest = NULL;
    *block = *expert = -1;
    if (strncmp(s, "layers.", 7) == 0)
        rest = rf__index(s + 7, block);
    else if (strncmp(s, "h.", 2) == 0)
        rest = rf__index(s + 2, block);
    if (!rest) {
        *block = -1;
        if (strcmp(name, "lm_head.weight") == 0) return RF__R_OUTPUT;
        return rf__match(rf__hf_global, s);
    }
    int r = rf__match(rf__hf_block, rest);
    if (r == RF__R_OTHER) r = rf__hf_expert(rest, expert);
    if (gemma2 && strcmp(rest, "post_attention_layernorm.weight") == 0) r = RF__R_POST_ATTN_NORM;
    if (r == RF__R_OTHER) *block = *expert = -1;
    return r;
}

typedef struct rf__family {
    const char *name;
    int gelu, layernorm, rope, gemma_scale;
} rf__family;

/* GGUF general.architecture values and config.json model_type values of the built families. */
static const rf__family rf__families[] = {
    {"llama", 0, 0, 1, 0},  {"mistral", 0, 0, 1, 0},     {"mixtral", 0, 0, 1, 0},
    {"qwen2", 0, 0, 1, 0},  {"qwen2moe", 0, 0, 1, 0},    {"qwen2_moe", 0, 0, 1, 0},
    {"qwen3", 0, 0, 1, 0},  {"gemma", 1, 0, 1, 1},       {"gemma2", 1, 0, 1, 1},
    {"gemma3", 1, 0, 1, 1}, {"gemma3_text", 1, 0, 1, 1}, {"phi3", 0, 0, 1, 0},
    {"gpt2", 1, 1, 0, 0},
};

int rf__llm_family(rf_llm_model *m, const char *arch)
{
    for (size_t i = 0; i < sizeof rf__families / sizeof *rf__families; i++) {
        const rf__family *f = &rf__families[i];
        if (strcmp(f->name, arch) != 0) continue;
        m->act_gelu = f->gelu;
        m->layernorm = f->layernorm;
        m->rope = f->rope;
        m->gemma_scale = f->gemma_scale;
        return 1;
    }
    return 0;
}
