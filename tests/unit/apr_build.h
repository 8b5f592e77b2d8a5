/* apr_build.h — a tiny APR v2 writer for tests (reference/apr-format.md section 2), on top of
 * gguf_build.h's byte buffer: header with its CRC32, metadata, a sorted binary index, zeroed data
 * with aprender's 64-byte padding or realizar's packing, an optional footer CRC32; plus a GGUF
 * twin of the same llama so both readers can be compared. Test-only; aborts on OOM. */
#ifndef RF_TEST_APR_BUILD_H
#define RF_TEST_APR_BUILD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/apr_int.h"
#include "gguf_build.h"

typedef struct ab_t {
    char name[96];
    uint8_t dtype; /* the APR dtype byte */
    uint32_t ggml; /* the GGUF twin's type */
    uint32_t rank;
    uint64_t dims[4]; /* rows first */
    uint64_t size;    /* stored bytes */
} ab_t;

enum { AB_FOOTER = 1, AB_PAD = 2, AB_APR2 = 4 };

static int ab_cmp(const void *x, const void *y)
{
    return strcmp(((const ab_t *)x)->name, ((const ab_t *)y)->name);
}

static inline void ab_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ab_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Recompute the header CRC (after a test edits the header). */
static inline void ab_fix_crc(uint8_t *p)
{
    ab_put32(p + 40, rf__apr_crc32(rf__apr_crc32(0, p, 40), p + 44, 20));
}

/* Build a v2 file into b (sorted by name unless `unsorted`). */
static inline void ab_v2(gb *b, const char *meta, ab_t *t, size_t n, uint16_t flags, unsigned o)
{
    qsort(t, n, sizeof *t, ab_cmp);
    memset(b, 0, sizeof *b);
    gb_zeros(b, 64);
    gb_raw(b, meta, strlen(meta));
    gb_pad(b, 64);
    uint64_t io = b->n, off = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t nl = (uint16_t)strlen(t[i].name);
        uint8_t h[2] = {(uint8_t)nl, (uint8_t)(nl >> 8)}, dt[2] = {t[i].dtype, (uint8_t)t[i].rank};
        gb_raw(b, h, 2);
        gb_raw(b, t[i].name, nl);
        gb_raw(b, dt, 2);
        for (uint32_t d = 0; d < t[i].rank; d++) gb_uint(b, t[i].dims[d], 8);
        gb_uint(b, off, 8);
        gb_uint(b, t[i].size, 8);
        off += t[i].size;
        if (o & AB_PAD) off = (off + 63) / 64 * 64;
    }
    gb_pad(b, 64);
    uint64_t dof = b->n;
    gb_zeros(b, (size_t)off);
    if (o & AB_FOOTER) gb_u32(b, rf__apr_crc32(0, b->p, b->n));
    uint8_t *h = b->p;
    memcpy(h, (o & AB_APR2) ? "APR2" : "APR\0", 4);
    h[4] = 2;
    h[5] = 0;
    h[6] = (uint8_t)flags;
    h[7] = (uint8_t)(flags >> 8);
    ab_put32(h + 8, (uint32_t)n);
    ab_put64(h + 12, 64);
    ab_put32(h + 20, (uint32_t)strlen(meta));
    ab_put64(h + 24, io);
    ab_put64(h + 32, dof);
    ab_fix_crc(h);
    if (o & AB_FOOTER) { /* the header changed: the footer covers it */
        b->n -= 4;
        gb_u32(b, rf__apr_crc32(0, b->p, b->n));
    }
}

/* A llama (E, heads H, KV heads, F, vocab V, L blocks), HF names, matrices of dtype byte `mat`
 * with `bytes(n)` stored bytes and GGUF twin type `ggml`; norms F32. Returns the count. */
typedef uint64_t (*ab_size_fn)(uint64_t n);
static inline size_t ab_llama(ab_t *t, uint64_t E, uint64_t H, uint64_t KV, uint64_t F, uint64_t V,
                              uint64_t L, uint8_t mat, uint32_t ggml, ab_size_fn bytes)
{
    size_t k = 0;
    uint64_t D = E / H;
#define AB_ADD(nm, r, c)                                                                           \
    do {                                                                                           \
        ab_t *x = &t[k++];                                                                         \
        memset(x, 0, sizeof *x);                                                                   \
        snprintf(x->name, sizeof x->name, "%s", nm);                                               \
        x->rank = (c) != 0 ? 2 : 1;                                                                \
        x->dims[0] = (r);                                                                          \
        x->dims[1] = (c);                                                                          \
        uint64_t ne = (c) != 0 ? (uint64_t)(r) * (c) : (r);                                        \
        x->dtype = (c) != 0 ? mat : 0;                                                             \
        x->ggml = (c) != 0 ? ggml : 0;                                                             \
        x->size = (c) != 0 ? bytes(ne) : 4 * ne;                                                   \
    } while (0)
    char nm[96];
    AB_ADD("model.embed_tokens.weight", V, E);
    for (uint64_t l = 0; l < L; l++) {
#define AB_N(s) (snprintf(nm, sizeof nm, "model.layers.%llu.%s", (unsigned long long)l, s), nm)
        AB_ADD(AB_N("input_layernorm.weight"), E, 0);
        AB_ADD(AB_N("self_attn.q_proj.weight"), H * D, E);
        AB_ADD(AB_N("self_attn.k_proj.weight"), KV * D, E);
        AB_ADD(AB_N("self_attn.v_proj.weight"), KV * D, E);
        AB_ADD(AB_N("self_attn.o_proj.weight"), E, H * D);
        AB_ADD(AB_N("post_attention_layernorm.weight"), E, 0);
        AB_ADD(AB_N("mlp.gate_proj.weight"), F, E);
        AB_ADD(AB_N("mlp.up_proj.weight"), F, E);
        AB_ADD(AB_N("mlp.down_proj.weight"), E, F);
#undef AB_N
    }
    AB_ADD("model.norm.weight", E, 0);
    AB_ADD("lm_head.weight", V, E);
#undef AB_ADD
    return k;
}

/* The GGUF twin of tensors t[0..n) (HF names mapped to GGUF ones by the builder's tables would
 * be the same roles: the GGUF reader takes GGUF names, so map the few used here). */
static inline void ab_gguf_name(const char *hf, char *out, size_t cap)
{
    static const char *const map[][2] = {{"input_layernorm.weight", "attn_norm.weight"},
                                         {"self_attn.q_proj.weight", "attn_q.weight"},
                                         {"self_attn.k_proj.weight", "attn_k.weight"},
                                         {"self_attn.v_proj.weight", "attn_v.weight"},
                                         {"self_attn.o_proj.weight", "attn_output.weight"},
                                         {"post_attention_layernorm.weight", "ffn_norm.weight"},
                                         {"mlp.gate_proj.weight", "ffn_gate.weight"},
                                         {"mlp.up_proj.weight", "ffn_up.weight"},
                                         {"mlp.down_proj.weight", "ffn_down.weight"}};
    unsigned l;
    char rest[96];
    if (strcmp(hf, "model.embed_tokens.weight") == 0)
        snprintf(out, cap, "token_embd.weight");
    else if (strcmp(hf, "model.norm.weight") == 0)
        snprintf(out, cap, "output_norm.weight");
    else if (strcmp(hf, "lm_head.weight") == 0)
        snprintf(out, cap, "output.weight");
    else if (sscanf(hf, "model.layers.%u.%95s", &l, rest) == 2) {
        for (size_t i = 0; i < sizeof map / sizeof *map; i++)
            if (strcmp(rest, map[i][0]) == 0) snprintf(out, cap, "blk.%u.%s", l, map[i][1]);
    }
}

static inline void ab_gguf(gb *b, const ab_t *t, size_t n, uint64_t E, uint64_t H, uint64_t KV,
                           uint64_t F, uint64_t L)
{
    memset(b, 0, sizeof *b);
    gb_header(b, 3, n, 6);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "llama.embedding_length", (uint32_t)E);
    gb_kv_u32(b, "llama.block_count", (uint32_t)L);
    gb_kv_u32(b, "llama.attention.head_count", (uint32_t)H);
    gb_kv_u32(b, "llama.attention.head_count_kv", (uint32_t)KV);
    gb_kv_u32(b, "llama.feed_forward_length", (uint32_t)F);
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        char nm[96] = "";
        ab_gguf_name(t[i].name, nm, sizeof nm);
        uint64_t d[2] = {t[i].rank == 2 ? t[i].dims[1] : t[i].dims[0], t[i].dims[0]};
        gb_tensor(b, nm, t[i].rank, d, t[i].ggml, off);
        off += (t[i].size + 31) / 32 * 32;
    }
    gb_pad(b, 32);
    gb_zeros(b, (size_t)off);
}

/* The bytes of a file (malloc), *n its size; NULL when it cannot be read. */
static inline uint8_t *ab_slurp(const char *path, size_t *n)
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

static inline int ab_write(const char *path, const gb *b)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    int ok = fwrite(b->p, 1, b->n, f) == b->n;
    return fclose(f) == 0 && ok;
}

#endif
