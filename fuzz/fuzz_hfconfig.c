/* fuzz_hfconfig.c — libFuzzer target for the Hugging Face config.json reader
 * (src/formats/hfconfig.c, rf_hfconfig_parse): a refused input must carry a one-line message; an
 * accepted one must have kept its strings terminated and its defaults consistent
 * (num_key_value_heads given or equal to the heads). A violation aborts. Corpus:
 * fuzz/corpus/hfconfig/ (hand-made). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    rf_hfconfig c;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    if (rf_hfconfig_parse(ctx, data, size, &c) == RF_OK) {
        if (memchr(c.model_type, 0, sizeof c.model_type) == NULL ||
            memchr(c.hidden_act, 0, sizeof c.hidden_act) == NULL)
            abort();
        if (c.num_attention_heads && !c.num_key_value_heads) abort();
    } else {
        const char *msg = rf_ctx_errmsg(ctx);
        if (!msg[0]) abort();
        for (const char *p = msg; *p; p++)
            if ((unsigned char)*p < 0x20) abort();
    }
    rf_ctx_free(ctx);
    return 0;
}
