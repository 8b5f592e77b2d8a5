/* llm_exec_time.c — the timing harness of the measured LLM pass (STYLE.md: kernels never time
 * themselves): warm-up passes, then timed passes, the pass whose total is the median kept with its
 * per-kind times, min and max beside it. The clock is exec.h's (tests inject a fake one). */
#include <math.h>
#include <string.h>

#include "exec/llm_exec_int.h"
#include "probe/probe_int.h"

double rf__llm_exec_clock(void *user)
{
    (void)user;
    return rf__now_s();
}

void rf__llm_exec_progress(rf__llm_exec *lx, const char *step, unsigned k, unsigned n)
{
    rf__xprogress_step(&lx->progress, lx->clock(lx->clock_user), step, k, n);
}

static double rf__pass_total(const double *step_s)
{
    double t = 0;
    for (int k = 0; k < RF__STEP_COUNT; k++) t += step_s[k];
    return t;
}

rf_status rf__llm_exec_time(rf__llm_exec *lx, uint64_t S, uint64_t p0, unsigned warmup,
                            unsigned repeat, rf__llm_exec_timing *out)
{
    memset(out, 0, sizeof *out);
    const char *what = p0 == 0 ? "prefill" : "decode";
    for (unsigned w = 0; w < warmup; w++) {
        RF_TRY(rf__llm_exec_pass(lx, S, p0));
        rf__llm_exec_progress(lx, p0 == 0 ? "prefill warm-up" : "decode warm-up", w + 1, warmup);
    }
    if (repeat == 0) { /* size the run from one more pass: about a second of timed passes */
        RF_TRY(rf__llm_exec_pass(lx, S, p0));
        double t = rf__pass_total(lx->step_s);
        repeat = t > 0 && t < 1.0 / 3 ? (unsigned)ceil(1.0 / t) : 3;
        if (repeat > 50) repeat = 50;
    }
    double *all = rf__malloc(lx->ctx, (size_t)repeat * (RF__STEP_COUNT + 1) * sizeof *all);
    if (!all) return RF_NOMEM_ERR(lx->ctx);
    rf_status st = RF_OK;
    unsigned *ix = (unsigned *)rf__malloc(lx->ctx, repeat * sizeof *ix);
    if (!ix) {
        rf__free(lx->ctx, all);
        return RF_NOMEM_ERR(lx->ctx);
    }
    for (unsigned r = 0; r < repeat && st == RF_OK; r++) {
        st = rf__llm_exec_pass(lx, S, p0);
        rf__llm_exec_progress(lx, what, r + 1, repeat);
        double *row = all + (size_t)r * (RF__STEP_COUNT + 1);
        memcpy(row + 1, lx->step_s, sizeof lx->step_s);
        row[0] = rf__pass_total(lx->step_s);
        ix[r] = r;
    }
    if (st == RF_OK) {
        for (unsigned i = 1; i < repeat; i++) /* insertion sort of the pass indices by total */
            for (unsigned j = i; j > 0 && all[(size_t)ix[j] * (RF__STEP_COUNT + 1)] <
                                              all[(size_t)ix[j - 1] * (RF__STEP_COUNT + 1)];
                 j--) {
                unsigned t = ix[j];
                ix[j] = ix[j - 1];
                ix[j - 1] = t;
            }
        const double *med = all + (size_t)ix[repeat / 2] * (RF__STEP_COUNT + 1);
        out->med_s = med[0];
        memcpy(out->step_s, med + 1, sizeof out->step_s);
        memcpy(out->step_calls, lx->step_calls, sizeof out->step_calls);
        out->min_s = all[(size_t)ix[0] * (RF__STEP_COUNT + 1)];
        out->max_s = all[(size_t)ix[repeat - 1] * (RF__STEP_COUNT + 1)];
        out->repeat = repeat;
    }
    rf__free(lx->ctx, ix);
    rf__free(lx->ctx, all);
    return st;
}
