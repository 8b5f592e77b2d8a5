/* llm_measure.c — `roofline llm --measure`: the analysed model run on this CPU by the executor's
 * LLM pass (src/exec, rf_exec_llm_run: one prefill chunk, decode steps at the context, weights read
 * in place from the mapped file) and its rates set on the analysis against the ceilings. It lives
 * above both llm and exec. Never prints. */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/exec_llm.h"
#include "roofline/model.h"

/* The roof a decode of these weights can reach on the threads it ran: min(the roof's bandwidth,
 * the dot kernel's ceiling: what it keeps up while its rows stream from memory, as decode's do),
 * the kernel's from the machine when the probe measured it on as many threads (`roofline peaks`),
 * else measured now (issue 28). */
static rf_status rf__llm_kernel_roof(rf_ctx *ctx, rf_llm_result *r, const rf_exec_llm_result *x)
{
    rf_llm_measured *m = &r->measured;
    if (!m->have_decode || x->decode_kernel_dtype == RF_DTYPE_UNKNOWN) return RF_OK;
    char name[RF_NAME_MAX];
    rf_exec_kernel_ceiling_name(x->decode_kernel_dtype, name, sizeof name);
    rf_ceiling c = {0};
    for (size_t i = 0; r->machine && i < r->machine->n_ceilings; i++) {
        const rf_ceiling *k = &r->machine->ceilings[i];
        if (strcmp(k->name, name) == 0 && k->stats.threads == x->threads) c = *k;
    }
    if (!(c.value > 0)) {
        rf__log(ctx, RF_LOG_INFO, "measuring: the %s dot kernel's ceiling on %u thread%s", name,
                x->threads, x->threads == 1 ? "" : "s");
        RF_TRY(rf_exec_kernel_ceiling(ctx, x->decode_kernel_dtype, x->threads, 0.02, 1, &c));
    }
    m->kernel_bytes_per_s = c.value;
    rf__strlcpy(m->kernel_ceiling, c.name, sizeof m->kernel_ceiling);
    rf__strlcpy(m->kernel_type, rf_dtype_name(x->decode_kernel_dtype), sizeof m->kernel_type);
    m->kernel_threads = x->threads;
    double bw = r->roof.bw_bytes_per_s;
    m->bound_by_kernel = c.value < bw;
    m->roof_bytes_per_s = m->bound_by_kernel ? c.value : bw;
    m->decode_of_roof = m->roof_bytes_per_s > 0 ? m->weight_bytes_per_s / m->roof_bytes_per_s : 0;
    return RF_OK;
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
    if (st == RF_OK) st = rf__llm_kernel_roof(ctx, r, x);
    rf_exec_llm_result_free(x);
    return st;
}
