/* fuzz_llm.c — libFuzzer target for the LLM path after the GGUF parser: the transformer reader
 * (src/llm: weights into roles, hyper-parameters from keys and tensors, the checks between them),
 * the builder of both phases, their costs and the token-rate ceilings (rf_llm_parse, then
 * rf_llm_analyze at two option sets, the second taking batch, prompt and context from the input's
 * last bytes). An accepted model must give finite, non-negative FLOPs, bytes, times and rates; a
 * refusal must carry a printable one-line message. A violation aborts. Corpus: fuzz/corpus/llm/
 * (seeds made by fuzz/gen_corpus_llm.py). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_msg(rf_ctx *ctx)
{
    const char *msg = rf_ctx_errmsg(ctx);
    if (!msg[0]) abort();
    for (const char *p = msg; *p; p++)
        if ((unsigned char)*p < 0x20) abort();
}

static int ok(double v)
{
    return isfinite(v) && v >= 0;
}

static void check_result(const rf_llm_result *r)
{
    const rf_llm_ceilings *c = &r->ceilings;
    if (!ok(c->params) || !ok(c->model_bytes) || !ok(c->decode_step_s) || !ok(c->prefill_s) ||
        !ok(c->decode_flops_per_token) || !ok(c->prefill_flops) || !ok(c->kv_bytes_context) ||
        !ok(c->kv_bytes_per_token))
        abort();
    for (int p = 0; p < 2; p++) {
        const rf_llm_phase_result *ph = &r->phase[p];
        if (!ok(ph->time_s) || !ph->graph || !ph->cost) abort();
        for (uint32_t i = 0; i < ph->graph->n_layers; i++)
            if (!ok(ph->evals[i].flops) || !ok(ph->evals[i].bytes) || !ok(ph->evals[i].time_s))
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_llm_model *m = NULL;
    rf_machine *mach = NULL;
    if (rf_llm_parse(ctx, data, size, "fuzz.gguf", &m) != RF_OK) {
        check_msg(ctx);
        goto out;
    }
    if (rf_machine_simple(ctx, "fuzz", 1e12, 1e11, RF_PROV_USER, "fuzz", &mach) != RF_OK) abort();
    for (int k = 0; k < 2; k++) {
        rf_llm_opts po, dopt;
        memset(&po, 0, sizeof po);
        memset(&dopt, 0, sizeof dopt);
        if (k == 1 && size >= 4) { /* sizes from the input: up to 2^16 tokens, 255 sequences */
            po.batch = dopt.batch = data[size - 1];
            po.prompt = (uint64_t)data[size - 2] << 8 | data[size - 3];
            dopt.context = (uint64_t)data[size - 4] << 8 | data[size - 3];
            po.causal_half = data[size - 4] & 1;
            po.kv_bits = dopt.kv_bits = 4u << (data[size - 2] & 3);
        }
        rf_llm_result *r = NULL;
        if (rf_llm_analyze(ctx, m, "fuzz.gguf", mach, 0, 0, &po, &dopt, &r) == RF_OK)
            check_result(r);
        else
            check_msg(ctx);
        rf_llm_result_free(r);
    }
out:
    rf_machine_free(mach);
    rf_llm_free(m);
    rf_ctx_free(ctx);
    return 0;
}
