/* fuzz_gguf.c — libFuzzer target for the GGUF parser (roofline/gguf.h): every input goes through
 * rf_gguf_parse; an accepted file is checked against the documented invariants (every tensor's
 * data inside the input, n_bytes from the true block size, names and strings inside the input,
 * lookups find what the tables hold) and every array is walked to its end; a refusal must carry a
 * printable message and an offset inside the input. A violation aborts. Corpus: fuzz/corpus/gguf/
 * (seeds made by fuzz/gen_corpus.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/gguf.h"

static void inside(const uint8_t *data, size_t size, const char *p, uint64_t len)
{
    uintptr_t lo = (uintptr_t)data, hi = lo + size, q = (uintptr_t)p;
    if (len && (q < lo || q > hi || len > hi - q)) abort();
    volatile uint8_t sink = 0;
    for (uint64_t i = 0; i < len; i++) sink ^= (uint8_t)p[i];
    (void)sink;
}

static void walk(const rf_gguf *g, const rf_gguf_value *v, const uint8_t *data, size_t size, int d)
{
    rf_gguf_iter it;
    rf_gguf_value e;
    uint64_t n = 0;
    rf_gguf_array_iter(g, v, &it);
    while (rf_gguf_array_next(&it, &e)) {
        if (e.type == RF_GGUF_STRING) inside(data, size, e.v.s.ptr, e.v.s.len);
        if (e.type == RF_GGUF_ARRAY) {
            if (d > 8) abort();
            walk(g, &e, data, size, d + 1);
        }
        n++;
    }
    if (n != v->arr_count) abort();
}

static void check(const rf_gguf *g, const uint8_t *data, size_t size)
{
    for (uint64_t i = 0; i < g->n_kv; i++) {
        const rf_gguf_kv *kv = &g->kv[i];
        inside(data, size, kv->key.ptr, kv->key.len);
        if (kv->value.type == RF_GGUF_STRING)
            inside(data, size, kv->value.v.s.ptr, kv->value.v.s.len);
        if (kv->value.type == RF_GGUF_ARRAY) walk(g, &kv->value, data, size, 0);
    }
    uint64_t params = 0;
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        const rf_gguf_tensor *t = &g->tensors[i];
        inside(data, size, t->name.ptr, t->name.len);
        uint32_t blk, bytes;
        if (!rf_ggml_type_block(t->type, &blk, &bytes) || t->n_dims > 4) abort();
        if (t->n_elements % blk || t->n_elements / blk * bytes != t->n_bytes) abort();
        if (t->file_offset > size || t->n_bytes > size - t->file_offset) abort();
        if (t->offset % g->alignment) abort();
        params += t->n_elements;
    }
    if (params != g->params || g->data_offset % g->alignment) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_gguf *g = NULL;
    rf_status st = rf_gguf_parse(ctx, data, size, &g);
    if (st == RF_OK) {
        check(g, data, size);
    } else {
        if (g) abort();
        const char *msg = rf_ctx_errmsg(ctx);
        if (rf_ctx_error_status(ctx) != st || !msg[0]) abort();
        for (const char *m = msg; *m; m++)
            if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7E) abort();
        int64_t off = rf_ctx_error_offset(ctx);
        if (st != RF_NOMEM && (off < 0 || (uint64_t)off > size)) abort();
    }
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    return 0;
}
