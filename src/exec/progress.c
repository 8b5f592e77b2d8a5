/* progress.c — the executor's progress lines (progress.h): a line on the context's log (INFO)
 * when a measuring step has run two seconds or more since the last one. */
#include "exec/progress.h"

#include "core/rf_int.h"

void rf__xprogress_start(rf__xprogress *p, rf_ctx *ctx, double now)
{
    p->ctx = ctx;
    p->t0 = p->last = now;
}

void rf__xprogress_step(rf__xprogress *p, double now, const char *step, unsigned k, unsigned n)
{
    if (!p->ctx || now - p->last < RF__XPROGRESS_S) return;
    p->last = now;
    if (n)
        rf__log(p->ctx, RF_LOG_INFO, "measuring: %6.1f s  %s, pass %u of %u", now - p->t0, step, k,
                n);
    else
        rf__log(p->ctx, RF_LOG_INFO, "measuring: %6.1f s  %s", now - p->t0, step);
}
