/* gguf_open.c — the library half of bench/gguf-open.sh: open a GGUF file with rf_gguf_read_file and
 * print its tensor count, params and weight bytes (what `roofline profile` must do first), so the
 * header cost can be timed on its own. Built by CMake -DRF_BENCH=ON as build/bench/gguf_open. */
#include <stdio.h>

#include "roofline/gguf.h"

int main(int argc, char **argv)
{
    rf_ctx *ctx = NULL;
    rf_gguf *g = NULL;
    if (argc != 2 || rf_ctx_new(&ctx, NULL) != RF_OK) return 2;
    if (rf_gguf_read_file(ctx, argv[1], &g) != RF_OK) {
        fprintf(stderr, "%s\n", rf_ctx_errmsg(ctx));
        return 2;
    }
    printf("tensors %llu params %llu weight_bytes %llu\n", (unsigned long long)g->n_tensors,
           (unsigned long long)g->params, (unsigned long long)g->weight_bytes);
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    return 0;
}
