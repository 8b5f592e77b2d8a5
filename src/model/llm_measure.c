/* llm_measure.c — `roofline llm --measure`: the analysed model run on this CPU by the executor's
 * LLM pass (src/exec, rf_exec_llm_run: one prefill chunk, decode steps at the context, weights read
 * in place from the mapped file) and its rates set on the analysis against the ceilings. It lives
 * above both llm and exec. Never prints. */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/exec_llm.h"
#include "roofline/model.h"

/* The roof of the decode, measured with it (issue 28): the step's weight products alone, timed
 * between its steps (rf_exec_llm_run). What binds it: DRAM or the main weight type's dot kernel,
 * whose rate on rows held in L2 on the decode's threads is measured now (a fraction of a second;
 * cache-resident, so steadier than any DRAM-fed figure). */
static rf_status rf__llm_decode_roof(rf_ctx *ctx, rf_llm_result *r, const rf_exec_llm_result *x)
{
    if (!r->measured.have_decode || !(x->decode_products_s > 0)) return RF_OK;
    rf_ceiling k = {0};
    if (x->decode_kernel_dtype != RF_DTYPE_UNKNOWN) {
        rf__log(ctx, RF_LOG_INFO, "measuring: the %s dot kernel on rows in L2, %u thread%s",
                rf_dtype_name(x->decode_kernel_dtype), x->threads, x->threads == 1 ? "" : "s");
        if (rf_exec_kernel_ceiling(ctx, x->decode_kernel_dtype, x->threads, 0.02, 0, &k) != RF_OK)
            memset(&k, 0, sizeof k); /* no kernel rate: the roof is still measured */
    }
    rf_llm_decode_roof_in in = {0};
    in.products_s = x->decode_products_s;
    in.products_min_s = x->decode_products_min_s;
    in.products_max_s = x->decode_products_max_s;
    in.products_in_step_s = x->decode_products_in_step_s;
    in.paired_share = x->decode_products_share;
    in.kernel_type =
        x->decode_kernel_dtype != RF_DTYPE_UNKNOWN ? rf_dtype_name(x->decode_kernel_dtype) : "";
    in.threads = x->threads;
    in.kernel_bytes_per_s = k.value;
    in.kernel_ceiling = k.name;
    return rf_llm_result_set_decode_roof(ctx, r, &in);
}

rf_status rf_llm_measure(rf_ctx *ctx, rf_llm_result *r, const rf_llm_model *m,
                         const rf_exec_opts *eo)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, r && m, RF_USAGE, "rf_llm_measure: an analysis and its model are required");
    const char *fmt = rf_llm_hparams_get(m)->format;
    RF_CHECK(ctx, strcmp(fmt, "apr") != 0 && strcmp(fmt, "safetensors") != 0, RF_UNSUPPORTED,
             "%s: not measured: only GGUF files are run, not %s (its estimates need no run)",
             r->model ? r->model : "model",
             strcmp(fmt, "apr") == 0 ? "APR files" : "SafeTensors checkpoints");
    rf_exec_llm_result *x = NULL;
    rf_status rst = rf_exec_llm_run(ctx, m, &r->phase[0].opts, &r->phase[1].opts, eo, &x);
    if (rst != RF_OK) return rf__error_name(ctx, r->model); /* the file, not "model:" */
    char src[sizeof r->measured.source];
    size_t len = 0;
    src[0] = '\0';
    rf__appendf(src, sizeof src, &len,
                "measured on this CPU: %u thread%s, %s kernels, median of %u decode steps and %u "
                "prefill passes",
                x->threads, x->threads == 1 ? "" : "s", x->isa, x->repeat, x->prefill_repeat);
    if (x->n_subst)
        rf__appendf(src, sizeof src, &len,
                    "; %zu weight type%s without a kernel ran as the nearest", x->n_subst,
                    x->n_subst == 1 ? "" : "s");
    if (x->busy_other > RF_BUSY_OTHERS)
        rf__appendf(src, sizeof src, &len,
                    "; disturbed: other processes used %.0f%% of the CPU time while it ran, so "
                    "the rates may be lower than a quiet machine gives",
                    100 * x->busy_other);
    if (x->notes[0]) rf__appendf(src, sizeof src, &len, "; %s", x->notes);
    rf_status st = rf_llm_result_set_measured(ctx, r, x->decode_tokens_per_s, x->prefill_s, src);
    if (st == RF_OK) r->measured.busy_other = x->busy_other;
    if (st == RF_OK) st = rf__llm_decode_roof(ctx, r, x);
    rf_exec_llm_result_free(x);
    return st;
}
