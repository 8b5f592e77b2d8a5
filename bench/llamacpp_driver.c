/* llamacpp_driver.c — llama.cpp's own prefill and decode times on a GGUF file, for
 * bench/llm-vs-llamacpp.sh (the anchor roofline's `llm --measure` is compared with). Built by that
 * script against the llama.h of the pinned llama.cpp release (never by CMake: it needs the npm
 * cache) and run with the prebuilt libllama; ggml loads its best CPU variant from BACKEND_DIR.
 * Prefill: one llama_decode of N prompt tokens on an empty cache, median of R passes. Decode: M
 * single-token llama_decode calls after a prefill, the median step (tokens/s = 1 / median, the
 * statistic `roofline llm --measure` reports). Prints one line of `key value` pairs.
 * Usage: llamacpp_driver MODEL BACKEND_DIR THREADS N_PROMPT N_GEN REPEAT */
#include <llama.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet(enum ggml_log_level level, const char *text, void *user)
{
    (void)user;
    if (level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A positive count below 65537 from the command line, else -1. */
static int arg_int(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v > 0 && v <= 65536 ? (int)v : -1;
}

/* Decodes tokens [0, n) at positions after what the cache holds; 0 on success. */
static int run(struct llama_context *lc, llama_token *tok, int n)
{
    struct llama_batch b = llama_batch_get_one(tok, n);
    if (llama_decode(lc, b) != 0) return 1;
    llama_synchronize(lc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: %s MODEL BACKEND_DIR THREADS N_PROMPT N_GEN REPEAT\n", argv[0]);
        return 2;
    }
    int threads = arg_int(argv[3]), np = arg_int(argv[4]), ng = arg_int(argv[5]);
    int rep = arg_int(argv[6]);
    if (threads < 1 || np < 1 || ng < 1 || rep < 1 || rep > 1000) {
        fprintf(stderr, "llamacpp_driver: THREADS, N_PROMPT, N_GEN and REPEAT must be positive\n");
        return 2;
    }
    llama_log_set(quiet, NULL);
    ggml_backend_load_all_from_path(argv[2]);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    struct llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "llamacpp_driver: %s: llama.cpp cannot load it\n", argv[1]);
        return 1;
    }
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(np + ng + 16);
    cp.n_batch = cp.n_ubatch = (uint32_t)np;
    cp.n_threads = cp.n_threads_batch = threads;
    struct llama_context *lc = llama_init_from_model(model, cp);
    if (!lc) {
        fprintf(stderr, "llamacpp_driver: %s: cannot make a context\n", argv[1]);
        return 1;
    }
    int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    llama_token *tok = malloc(sizeof *tok * (size_t)(np + ng));
    double *pre = malloc(sizeof *pre * (size_t)rep), *step = malloc(sizeof *step * (size_t)ng);
    if (!tok || !pre || !step) return 1;
    for (int i = 0; i < np + ng; i++) tok[i] = (llama_token)(300 + (i * 7919) % (n_vocab - 300));
    llama_memory_t mem = llama_get_memory(lc);
    /* warm-up: page the weights in and let ggml repack them */
    if (run(lc, tok, np) || run(lc, tok + np, 1)) goto fail;
    for (int r = 0; r < rep; r++) {
        llama_memory_clear(mem, true);
        double t0 = now_s();
        if (run(lc, tok, np)) goto fail;
        pre[r] = now_s() - t0;
    }
    double total = 0;
    for (int i = 0; i < ng; i++) {
        double t0 = now_s();
        if (run(lc, tok + np + i, 1)) goto fail;
        step[i] = now_s() - t0;
        total += step[i];
    }
    double med = median(step, ng);
    printf("prefill_s %.6f prefill_tokens %d decode_tokens_per_s %.4f decode_mean_tokens_per_s "
           "%.4f decode_steps %d threads %d\n",
           median(pre, rep), np, 1 / med, ng / total, ng, threads);
    llama_free(lc);
    llama_model_free(model);
    llama_backend_free();
    free(tok);
    free(pre);
    free(step);
    return 0;
fail:
    fprintf(stderr, "llamacpp_driver: %s: llama_decode failed\n", argv[1]);
    return 1;
}
