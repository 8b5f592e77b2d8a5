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

static void rf__sort(double *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static double rf__product_s(const double *step_s)
{
    double t = 0;
    for (int k = 0; k < RF__STEP_COUNT; k++)
        if (rf__llm_step_is_product(k)) t += step_s[k];
    return t;
}

rf_status rf__llm_exec_time(rf__llm_exec *lx, uint64_t S, uint64_t p0, unsigned warmup,
                            unsigned repeat, int roof, rf__llm_exec_timing *out)
{
    memset(out, 0, sizeof *out);
    const char *what = p0 == 0 ? "prefill" : "decode";
    for (unsigned w = 0; w < warmup; w++) {
        RF_TRY(rf__llm_exec_pass(lx, S, p0));
        if (roof) RF_TRY(rf__llm_exec_products(lx));
        rf__llm_exec_progress(lx, p0 == 0 ? "prefill warm-up" : "decode warm-up", w + 1, warmup);
    }
    if (repeat == 0) { /* size the run from one more pass: about a second of timed passes */
        RF_TRY(rf__llm_exec_pass(lx, S, p0));
        double t = rf__pass_total(lx->step_s);
        repeat = t > 0 && t < 1.0 / 3 ? (unsigned)ceil(1.0 / t) : 3;
        if (repeat > 50) repeat = 50;
    }
    /* per timed pass: its total, its steps, then (roof) the products-only pass's total */
    size_t row_n = RF__STEP_COUNT + 2;
    double *all = rf__malloc(lx->ctx, (size_t)repeat * row_n * sizeof *all);
    double *prod = rf__malloc(lx->ctx, 2 * (size_t)repeat * sizeof *prod);
    unsigned *ix = (unsigned *)rf__malloc(lx->ctx, repeat * sizeof *ix);
    rf_status st = !all || !prod || !ix ? RF_NOMEM_ERR(lx->ctx) : RF_OK;
    for (unsigned r = 0; r < repeat && st == RF_OK; r++) {
        st = rf__llm_exec_pass(lx, S, p0);
        double *row = all + (size_t)r * row_n;
        memcpy(row + 1, lx->step_s, sizeof lx->step_s);
        row[0] = rf__pass_total(lx->step_s);
        row[RF__STEP_COUNT + 1] = 0;
        memcpy(out->step_calls, lx->step_calls, sizeof out->step_calls); /* the pass's, not the
                                                                            products pass's */
        ix[r] = r;
        if (st == RF_OK && roof) { /* the same step's products alone, right after it */
            st = rf__llm_exec_products(lx);
            row[RF__STEP_COUNT + 1] = rf__pass_total(lx->step_s);
        }
        rf__llm_exec_progress(lx, what, r + 1, repeat);
    }
    if (st == RF_OK) {
        for (unsigned i = 1; i < repeat; i++) /* insertion sort of the pass indices by total */
            for (unsigned j = i;
                 j > 0 && all[(size_t)ix[j] * row_n] < all[(size_t)ix[j - 1] * row_n]; j--) {
                unsigned t = ix[j];
                ix[j] = ix[j - 1];
                ix[j - 1] = t;
            }
        const double *med = all + (size_t)ix[repeat / 2] * row_n;
        out->med_s = med[0];
        memcpy(out->step_s, med + 1, sizeof out->step_s);
        out->min_s = all[(size_t)ix[0] * row_n];
        out->max_s = all[(size_t)ix[repeat - 1] * row_n];
        out->repeat = repeat;
        if (roof) {
            double *ratio = prod + repeat;
            for (unsigned r = 0; r < repeat; r++) {
                const double *row = all + (size_t)r * row_n;
                prod[r] = row[RF__STEP_COUNT + 1];
                ratio[r] = row[0] > 0 ? prod[r] / row[0] : 0;
            }
            rf__sort(prod, repeat);
            rf__sort(ratio, repeat);
            out->prod_med_s = prod[repeat / 2];
            out->prod_min_s = prod[0];
            out->prod_max_s = prod[repeat - 1];
            out->prod_share = ratio[repeat / 2];
            out->prod_in_step_s = rf__product_s(out->step_s);
        }
    }
    rf__free(lx->ctx, ix);
    rf__free(lx->ctx, prod);
    rf__free(lx->ctx, all);
    return st;
}
