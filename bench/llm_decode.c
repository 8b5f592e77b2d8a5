/* llm_decode.c — the library half of bench/llm-decode.sh: open a GGUF model, run
 * rf_exec_llm_run (a short prefill, then decode steps at context L) and print one line of
 * figures: decode seconds per step (median), weight bytes per step, achieved bytes/s, tokens/s,
 * threads and kernels' ISA. Built by the script against the build tree's library.
 * Usage: llm_decode MODEL [THREADS] [CONTEXT] [PROMPT] */
#include <stdio.h>
#include <stdlib.h>

#include "roofline/exec_llm.h"

int main(int argc, char **argv)
{
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    if (argc < 2 || rf_ctx_new(&ctx, NULL) != RF_OK) return 2;
    rf_exec_opts eo = {0};
    rf_llm_opts po = {0}, dopt = {0};
    eo.threads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = argc > 3 ? strtoull(argv[3], NULL, 10) : 128;
    po.prompt = argc > 4 ? strtoull(argv[4], NULL, 10) : 4;
    if (rf_llm_read_file(ctx, argv[1], &m) != RF_OK ||
        rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r) != RF_OK) {
        fprintf(stderr, "llm_decode: %s\n", rf_ctx_errmsg(ctx));
        return 2;
    }
    printf("decode_s %.6f min %.6f max %.6f weight_bytes %.0f bytes_per_s %.6g tokens_per_s %.3f "
           "threads %u isa %s repeat %u prefill_s %.4f\n",
           r->decode_s, r->decode_min_s, r->decode_max_s, r->decode_weight_bytes,
           r->decode_bytes_per_s, r->decode_tokens_per_s, r->threads, r->isa, r->repeat,
           r->prefill_s);
    for (size_t i = 0; getenv("LLM_DECODE_KINDS") && i < r->n_kinds; i++)
        printf("  %-16s decode %9.3f ms  prefill %9.3f ms\n", r->kinds[i].name,
               1e3 * r->kinds[i].decode_s, 1e3 * r->kinds[i].prefill_s);
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
    return 0;
}
