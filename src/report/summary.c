/* summary.c — the bottleneck summary under a table: the share of the time per bound and the
 * operations whose cost is unknown. What would move it is the advice (advice_report.c), computed
 * by src/advice. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"

rf_status rf_report_summary(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_summary: missing argument (a freed result?)");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    size_t width = o && o->width ? o->width : 80;
    const rf_totals *t = &r->totals;
    RF_TRY(RF_WRITE_LIT(w, "\nBottlenecks\n"));
    for (int k = 0; k < (r->network.value > 0 ? RF_BOUND_COUNT : 3); k++) {
        if (!t->count_by_bound[k] && k == RF_BOUND_UNDEFINED) continue;
        double share = t->time_s > 0 ? 100 * t->time_by_bound_s[k] / t->time_s : 0;
        RF_TRY(rf_writef(w, "  %-9s %llu of %llu operations, %.1f%% of the estimated time\n",
                         rf_bound_name((rf_bound)k), (unsigned long long)t->count_by_bound[k],
                         (unsigned long long)t->count, share));
    }
    if (t->count_by_bound[RF_BOUND_UNDEFINED]) {
        char text[256];
        snprintf(text, sizeof text,
                 "%llu operation(s) have no FLOPs and no bytes: their cost is "
                 "unknown and not in the totals.",
                 (unsigned long long)t->count_by_bound[RF_BOUND_UNDEFINED]);
        RF_TRY(rf_write_wrapped(w, width, "  ", 2, text));
    }
    return RF_OK;
}
