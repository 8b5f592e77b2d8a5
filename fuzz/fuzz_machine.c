/* fuzz_machine.c — libFuzzer target for machine files (src/hw/machine_json.c): parse the input;
 * when it is accepted, write it back in the full form and parse that again, which must succeed and
 * give the same machine field by field (exact doubles), else abort(). Replayed under gcc by
 * regression_driver.c over fuzz/corpus/machine/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/buf.h"
#include "roofline/hw.h"

static int same_ceiling(const rf_ceiling *x, const rf_ceiling *y)
{
    return strcmp(x->name, y->name) == 0 && x->kind == y->kind && x->value == y->value &&
           x->provenance == y->provenance && strcmp(x->source, y->source) == 0 &&
           strcmp(x->note, y->note) == 0 && x->stats.threads == y->stats.threads &&
           x->stats.repetitions == y->stats.repetitions && x->stats.min == y->stats.min &&
           x->stats.median == y->stats.median && x->stats.max == y->stats.max &&
           strcmp(x->stats.date, y->stats.date) == 0;
}

static int same_machine(const rf_machine *a, const rf_machine *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->description, b->description) ||
        strcmp(a->kind, b->kind) || strcmp(a->source, b->source) ||
        a->provenance != b->provenance || a->n_ceilings != b->n_ceilings ||
        a->default_compute != b->default_compute || a->default_bandwidth != b->default_bandwidth)
        return 0;
    for (size_t i = 0; i < a->n_ceilings; i++)
        if (!same_ceiling(&a->ceilings[i], &b->ceilings[i])) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_machine *m = NULL, *again = NULL;
    if (rf_machine_parse_json(ctx, data, size, "fuzz.json", &m) == RF_OK) {
        rf_buf b;
        rf_buf_init(&b, ctx, 0);
        rf_writer w = rf_buf_writer(&b);
        if (rf_machine_write_json(ctx, m, 0, &w) != RF_OK) abort();
        if (rf_machine_parse_json(ctx, b.data, b.len, "fuzz.json", &again) != RF_OK) abort();
        if (!same_machine(m, again)) abort();
        rf_buf_free(&b);
    } else { /* refused: one line of text, never empty (the CLI prints it as is) */
        const char *msg = rf_ctx_errmsg(ctx);
        if (!msg[0]) abort();
        for (const char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20) abort();
    }
    rf_machine_free(again);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return 0;
}
