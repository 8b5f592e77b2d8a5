/* region_report.c — the measured points of the marker regions beside their roofline estimate:
 * calls, time per call, total, achieved FLOP/s and byte/s, utilization of the region's own roof.
 * A renderer (writes through an rf_writer, with the table helpers of src/report); the time comes
 * from the markers, never estimated. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report/report_int.h"
#include "roofline/region.h"

static const rf_row *rf__row_named(const rf_result *r, const char *name)
{
    for (size_t i = 0; r && i < r->n_rows; i++)
        if (strcmp(r->rows[i].name, name) == 0) return &r->rows[i];
    return NULL;
}

rf_status rf_report_regions(rf_ctx *ctx, const rf_regions *regions, const rf_result *r,
                            const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, regions && w, RF_USAGE, "rf_report_regions: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from the program: no control bytes */
    w = &rf__cw;
    size_t width = o && o->width ? o->width : 80, name_w = 6;
    for (size_t i = 0; i < regions->n; i++) {
        size_t n = rf__utf8_cols(regions->items[i].name, strlen(regions->items[i].name));
        if (n > name_w) name_w = n;
    }
    size_t room = width > 78 ? width - 58 : 20;
    if (name_w > room) name_w = room;
    RF_TRY(RF_WRITE_LIT(w, "measured (marker regions; time summed over threads)\n"));
    RF_TRY(rf__write_cell(w, "region", name_w, 0));
    RF_TRY(
        RF_WRITE_LIT(w, "   calls  median/call   min/call      total  FLOP/s     B/s   util.\n"));
    size_t n_counted = 0;
    for (size_t i = 0; i < regions->n; i++) {
        const rf_region_stats *s = &regions->items[i];
        const rf_row *row = rf__row_named(r, s->name);
        char med[24], mn[24], tot[24], fl[24], by[24], ut[24];
        rf_time_format(med, sizeof med, s->median_s, 3);
        rf_time_format(mn, sizeof mn, s->min_s, 3);
        rf_time_format(tot, sizeof tot, s->total_s, 3);
        double f, b;
        n_counted += (size_t)rf_region_counts(s, &f, &b);
        double fps = s->total_s > 0 ? f / s->total_s : NAN;
        double bps = s->total_s > 0 ? b / s->total_s : NAN;
        rf_si_format_compact(fl, sizeof fl, f > 0 ? fps : NAN, "");
        rf_si_format_compact(by, sizeof by, b > 0 ? bps : NAN, "");
        /* utilization = achieved / attainable under the region's own roof (DESIGN.md) */
        if (row && row->e.bound != RF_BOUND_UNDEFINED && s->total_s > 0 && f > 0)
            snprintf(ut, sizeof ut, "%.1f%%", 100 * fps / row->e.attainable_flops_per_s);
        else if (row && row->e.bound != RF_BOUND_UNDEFINED && s->total_s > 0)
            snprintf(ut, sizeof ut, "%.1f%%", 100 * row->e.time_s / s->total_s);
        else
            snprintf(ut, sizeof ut, "-");
        RF_TRY(rf__write_name_cell(w, s->name, name_w));
        RF_TRY(rf_writef(w, "  %6llu  %11s  %9s  %9s  %6s  %6s  %6s\n",
                         (unsigned long long)s->calls, med, mn, tot, fl, by, ut));
    }
    if (n_counted)
        RF_TRY(rf_writef(w,
                         "(FLOPs and bytes of %zu of %zu region%s counted by hardware counters; "
                         "the others as given by rf_region_add)\n",
                         n_counted, regions->n, regions->n == 1 ? "" : "s"));
    for (size_t i = 0; i < regions->n; i++)
        if (regions->items[i].unmatched)
            RF_TRY(rf_writef(w, "(region '%s': %llu end%s without a matching begin, ignored)\n",
                             regions->items[i].name,
                             (unsigned long long)regions->items[i].unmatched,
                             regions->items[i].unmatched == 1 ? "" : "s"));
    return RF_OK;
}
