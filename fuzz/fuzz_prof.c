/* fuzz_prof.c — libFuzzer target for the profiler-measurement reader (roofline/prof.h): every input
 * goes through rf_prof_parse as AUTO, NCU and TORCH, and each delivered kernel is checked against
 * the documented invariants (a NUL-terminated name of at most 4096 bytes, a launch count >= 1,
 * every figure finite and >= 0). A violation aborts; so does an error without a message or a
 * message with unprintable bytes. Corpus: fuzz/corpus/prof/. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/prof.h"

static int bad(double v)
{
    return !isfinite(v) || v < 0;
}

static rf_status check_kernel(void *user, const rf_prof_kernel *k)
{
    (void)user;
    if (!k->name || strlen(k->name) == 0 || strlen(k->name) > 4096 || k->count == 0) abort();
    if (bad(k->flops_fp64) || bad(k->flops_fp32) || bad(k->flops_fp16) || bad(k->flops_tensor) ||
        bad(k->flops_other) || bad(k->bytes_l1) || bad(k->bytes_l2) || bad(k->bytes_dram) ||
        bad(k->time_s))
        abort();
    return RF_OK;
}

static void run(rf_ctx *ctx, const uint8_t *data, size_t size, rf_prof_format fmt)
{
    rf_ctx_clear_error(ctx);
    rf_status st = rf_prof_parse(ctx, data, size, fmt, check_kernel, NULL, NULL);
    if (st == RF_OK) return;
    if (st != RF_FORMAT && st != RF_RANGE && st != RF_NOMEM) abort();
    const char *msg = rf_ctx_errmsg(ctx);
    if (rf_ctx_error_status(ctx) != st || msg[0] == '\0') abort();
    for (const char *m = msg; *m; m++) /* one printable line: input bytes are escaped */
        if ((unsigned char)*m < 0x20 || (unsigned char)*m > 0x7E) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    run(ctx, data, size, RF_PROF_AUTO);
    run(ctx, data, size, RF_PROF_NCU);
    run(ctx, data, size, RF_PROF_TORCH);
    rf_ctx_free(ctx);
    return 0;
}
