/* test_threads.c — two contexts at once, one per thread, through the readers (ONNX, GGUF), shape
 * inference and costing, the graph executor and the markers: each thread's figures equal a lone
 * run's. The library keeps no mutable global state (docs/design.md); the TSan job (make tsan)
 * runs this under ThreadSanitizer, where a race is a failure even when the figures agree. */
#include <pthread.h>

#include "rf_test.h"
#include "roofline/roofline.h"

typedef struct job {
    double flops; /* the model's cost */
    uint32_t layers;
    int measured;     /* layers the executor timed */
    uint64_t tensors; /* tensors of the GGUF file */
    int ok;
} job;

static void *work(void *arg)
{
    job *j = arg;
    rf_ctx *ctx = NULL;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    rf_exec_result *r = NULL;
    rf_gguf *gg = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return NULL;
    rf_exec_opts o = {1, 1, 3, NULL, NULL, 0}; /* one thread each, 1 warm-up, 3 passes */
    for (int round = 0; round < 3; round++) {
        rf_region_begin("thread-work");
        j->ok =
            rf_model_load(ctx, RF_SOURCE_DIR "/tests/data/onnx/tiny_cnn.onnx", NULL, &g) == RF_OK &&
            rf_graph_cost(ctx, g, &c) == RF_OK && rf_exec_run(ctx, g, &o, &r) == RF_OK &&
            rf_gguf_read_file(ctx, RF_SOURCE_DIR "/tests/data/gguf/tiny_llama_mixed.gguf", &gg) ==
                RF_OK;
        rf_region_end("thread-work");
        rf_region_add("thread-work", 1e6, 1e6);
        if (j->ok) {
            j->flops = c->flops;
            j->layers = g->n_layers;
            j->measured = 0;
            for (uint32_t i = 0; i < r->n_layers; i++) j->measured += r->layers[i].measured;
            j->tensors = gg->n_tensors;
        }
        rf_gguf_free(gg), gg = NULL;
        rf_exec_result_free(r), r = NULL;
        rf_cost_free(c), c = NULL;
        rf_graph_free(g), g = NULL;
        if (!j->ok) break;
    }
    rf_ctx_free(ctx);
    return NULL;
}

RF_TEST(two_contexts_at_once)
{
    job alone = {0}, a = {0}, b = {0};
    work(&alone);
    RF_EXPECT(alone.ok);
    RF_EXPECT(alone.measured > 0 && alone.tensors > 0);
    pthread_t ta, tb;
    RF_EXPECT_INT(pthread_create(&ta, NULL, work, &a), 0);
    RF_EXPECT_INT(pthread_create(&tb, NULL, work, &b), 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    const job *js[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        RF_EXPECT(js[k]->ok);
        RF_EXPECT(js[k]->flops == alone.flops);
        RF_EXPECT_INT(js[k]->layers, alone.layers);
        RF_EXPECT_INT(js[k]->measured, alone.measured);
        RF_EXPECT_INT(js[k]->tensors, alone.tensors);
    }
    rf_ctx *ctx = NULL;
    rf_regions *regs = NULL;
    RF_EXPECT_INT(rf_ctx_new(&ctx, NULL), RF_OK);
    RF_EXPECT_INT(rf_regions_snapshot(ctx, &regs), RF_OK);
    int found = 0;
    for (size_t i = 0; regs && i < regs->n; i++)
        if (strcmp(regs->items[i].name, "thread-work") == 0) {
            found = 1;
            RF_EXPECT_INT(regs->items[i].calls, 9); /* 3 threads x 3 rounds */
            RF_EXPECT_INT(regs->items[i].threads, 3);
            RF_EXPECT(regs->items[i].flops == 9e6);
        }
    RF_EXPECT(found);
    rf_regions_free(regs);
    rf_ctx_free(ctx);
}
