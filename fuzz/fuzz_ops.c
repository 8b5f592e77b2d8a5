/* fuzz_ops.c — libFuzzer target for the operations-list reader (roofline/ops.h): every input goes
 * through rf_ops_parse as AUTO, CSV and JSON, and each delivered row is checked against the
 * documented invariants (name inside the input or a live buffer, non-empty, at most 4096 bytes;
 * flops and bytes finite and >= 0; rows numbered 1, 2, ...). A violation aborts; so does an error
 * without a message, a message with unprintable bytes, or a refused input without an offset.
 * Corpus: fuzz/corpus/ops/. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/ops.h"

typedef struct check {
    const uint8_t *data;
    size_t size;
    uint64_t rows;
} check;

static rf_status check_row(void *user, const rf_op_row *r)
{
    check *c = user;
    if (!r->name || r->name_len == 0 || r->name_len > 4096) abort();
    if (!isfinite(r->flops) || !isfinite(r->bytes) || r->flops < 0 || r->bytes < 0) abort();
    if (signbit(r->flops) || signbit(r->bytes)) abort(); /* -0 is delivered as 0 */
    if (r->row != c->rows + 1) abort();
    /* Touch every byte of the name, so ASan sees a stale or short buffer. */
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < r->name_len; i++) sink ^= (uint8_t)r->name[i];
    (void)sink;
    /* A name that points into the input must lie inside it. */
    const uint8_t *n = (const uint8_t *)r->name;
    uintptr_t lo = (uintptr_t)c->data, hi = lo + c->size, p = (uintptr_t)n;
    if (p >= lo && p < hi && r->name_len > hi - p) abort();
    c->rows++;
    return RF_OK;
}

static void run(rf_ctx *ctx, const uint8_t *data, size_t size, rf_ops_format fmt)
{
    check c = {data, size, 0};
    rf_ctx_clear_error(ctx);
    rf_status st = rf_ops_parse(ctx, data, size, fmt, check_row, &c);
    if (st == RF_OK) {
        if (c.rows == 0) abort(); /* at least one row is required */
        return;
    }
    if (st != RF_FORMAT && st != RF_RANGE && st != RF_UNSUPPORTED && st != RF_NOMEM) abort();
    const char *msg = rf_ctx_errmsg(ctx);
    if (rf_ctx_error_status(ctx) != st || msg[0] == '\0') abort();
    for (const char *m = msg; *m; m++) /* one printable line: input bytes are escaped */
        if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7E) abort();
    int64_t off = rf_ctx_error_offset(ctx);
    if (st != RF_NOMEM && (off < 0 || (uint64_t)off > size)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    run(ctx, data, size, RF_OPS_AUTO);
    run(ctx, data, size, RF_OPS_CSV);
    run(ctx, data, size, RF_OPS_JSON);
    rf_ctx_free(ctx);
    return 0;
}
