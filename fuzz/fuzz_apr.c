/* fuzz_apr.c — libFuzzer target for the APR reader (roofline/apr.h): an accepted file must
 * satisfy the reader's invariants (every tensor inside the file after the data offset, stored
 * size = a size its type allows, lookups find every name, sums match); a refusal must carry a
 * printable message and an offset inside the input. Both CRC modes are tried. A violation
 * aborts. Corpus: fuzz/corpus/apr/ (the shared fixtures, the written variants of the tests). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/apr.h"

static void refused(rf_ctx *ctx, rf_status st, size_t size)
{
    const char *msg = rf_ctx_errmsg(ctx);
    if (rf_ctx_error_status(ctx) != st || !msg[0]) abort();
    for (const char *m = msg; *m; m++)
        if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7E) abort();
    int64_t off = rf_ctx_error_offset(ctx);
    if (st != RF_NOMEM && off > (int64_t)size) abort();
}

static void check(const rf_apr *a, size_t size)
{
    uint64_t params = 0, bytes = 0, by_type = 0;
    int wrapped = a->layout == RF_APR_APR1_LZ4 || a->layout == RF_APR_APR1_RAW;
    for (uint64_t i = 0; i < a->n_tensors; i++) {
        const rf_apr_tensor *t = &a->tensors[i];
        if (rf_apr_find(a, t->name) != t || !t->name[0] || strlen(t->name) > RF_APR_MAX_NAME)
            abort();
        if ((unsigned)t->type >= RF_APR_DTYPE_COUNT || t->rank > RF_APR_MAX_DIMS) abort();
        if (t->file_offset != a->data_offset + t->offset) abort();
        if (!wrapped && (t->file_offset > size || t->n_bytes > size - t->file_offset)) abort();
        params += t->n_elements;
        bytes += t->n_bytes;
    }
    for (int k = 0; k < RF_APR_DTYPE_COUNT; k++) by_type += a->bytes_by_type[k];
    if (params != a->params || bytes != a->weight_bytes || by_type != bytes) abort();
    if (a->hp.num_kv_heads && a->hp.num_heads && a->hp.num_heads % a->hp.num_kv_heads) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    for (unsigned flags = 0; flags < 2; flags++) {
        rf_apr *a = NULL;
        rf_status s = rf_apr_parse(ctx, data, size, NULL, flags ? RF_APR_LENIENT_CRC : 0, &a);
        if (s == RF_OK)
            check(a, size);
        else if (a)
            abort();
        else
            refused(ctx, s, size);
        rf_apr_free(a);
    }
    rf_ctx_free(ctx);
    return 0;
}
