/* fuzz_safetensors.c — libFuzzer target for the SafeTensors parser and the config.json reader
 * (roofline/safetensors.h): an accepted file must satisfy the format's invariants (tensors tile
 * the data buffer, sizes = elements x bits / 8, lookups find every name); a refusal must carry a
 * printable message and an offset inside the input. The same bytes are also fed to
 * rf_hfconfig_parse. A violation aborts. Corpus: fuzz/corpus/safetensors/ (fuzz/gen_corpus.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/safetensors.h"

static void refused(rf_ctx *ctx, rf_status st, size_t size)
{
    const char *msg = rf_ctx_errmsg(ctx);
    if (rf_ctx_error_status(ctx) != st || !msg[0]) abort();
    for (const char *m = msg; *m; m++)
        if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7E) abort();
    int64_t off = rf_ctx_error_offset(ctx);
    if (st != RF_NOMEM && off > (int64_t)size) abort();
}

static void check(const rf_safetensors *st, size_t size)
{
    uint64_t bytes = 0;
    for (uint64_t i = 0; i < st->n_tensors; i++) {
        const rf_st_tensor *t = &st->tensors[i];
        if (rf_safetensors_find(st, t->name) != t) abort();
        if (t->end - t->begin != t->n_bytes || t->n_elements * t->bits / 8 != t->n_bytes) abort();
        if (t->file_offset != st->data_start + t->begin || t->end > st->data_size) abort();
        bytes += t->n_bytes;
    }
    if (bytes != st->data_size || st->data_start + st->data_size != size) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_safetensors *st = NULL;
    rf_status s = rf_safetensors_parse(ctx, data, size, &st);
    if (s == RF_OK)
        check(st, size);
    else if (st)
        abort();
    else
        refused(ctx, s, size);
    rf_safetensors_free(st);
    rf_hfconfig c;
    s = rf_hfconfig_parse(ctx, data, size, &c);
    if (s != RF_OK) refused(ctx, s, size);
    rf_ctx_free(ctx);
    return 0;
}
