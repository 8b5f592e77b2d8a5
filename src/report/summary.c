/* summary.c — the bottleneck summary under a table: share of time per bound, the slowest
 * operations, and for each what would move it with the predicted gain, computed from the same roof
 * (halve the bytes of a memory-bound operation; halve the FLOPs or raise the roof of a
 * compute-bound one). Advice is arithmetic on the model, never a guess. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"

#define RF__SLOWEST 3

static double rf__time_at(const rf_roof *roof, double flops, double bytes)
{
    double tc = flops / roof->peak_flops_per_s, tm = bytes / roof->bw_bytes_per_s;
    return tc > tm ? tc : tm;
}

/* One paragraph of advice for `row`, numbered `rank`, wrapped to `width`. */
static rf_status rf__advice(const rf_result *r, const rf_row *row, size_t rank, size_t width,
                            rf_writer *w)
{
    char ai[32], t0[32], t1[32], text[1024], first[32];
    size_t len = 0;
    const rf_eval *e = &row->e;
    rf__ai_text(ai, sizeof ai, e->ai);
    rf_time_format(t0, sizeof t0, e->time_s, 3);
    snprintf(first, sizeof first, "  %zu. ", rank);
    rf__appendf(text, sizeof text, &len, "%s: %s-bound", row->name, rf_bound_name(e->bound));
    if (e->bound == RF_BOUND_UNDEFINED) {
        rf__appendf(text, sizeof text, &len,
                    "; its cost is unknown, so it is left out of the "
                    "estimate.");
    } else if (e->flops == 0) {
        double after = rf__time_at(&r->roof, 0, e->bytes / 2);
        rf_time_format(t1, sizeof t1, after, 3);
        rf__appendf(text, sizeof text, &len,
                    ": it only moves data (no FLOPs), so its time is all "
                    "memory traffic. Only fewer bytes move it: avoiding the copy, or half the "
                    "bytes, takes it from %s to %s.",
                    t0, t1);
    } else if (e->bound == RF_BOUND_MEMORY) {
        double after = rf__time_at(&r->roof, e->flops, e->bytes / 2);
        rf_time_format(t1, sizeof t1, after, 3);
        rf__appendf(text, sizeof text, &len,
                    " at AI %s FLOP/B, below the ridge %.3g, so at most "
                    "%.0f%% of the compute roof. Halving its bytes (8-bit weights, fusing it with "
                    "its neighbours) takes it from %s to %s (%.2fx).",
                    ai, r->ridge_ai, 100 * e->efficiency, t0, t1, e->time_s / after);
        if (e->ai > 0)
            rf__appendf(text, sizeof text, &len,
                        " It needs %.3gx fewer bytes per FLOP (e.g. a "
                        "larger batch re-using the weights) to reach the compute roof.",
                        r->ridge_ai / e->ai);
    } else {
        double after = rf__time_at(&r->roof, e->flops / 2, e->bytes);
        rf_time_format(t1, sizeof t1, after, 3);
        rf__appendf(text, sizeof text, &len,
                    " at AI %s FLOP/B, on the compute roof (%s). Only "
                    "fewer FLOPs or a higher compute ceiling (lower precision, matrix units) moves "
                    "it: half the FLOPs takes it from %s to %s (%.2fx).",
                    ai, r->compute.name, t0, t1, e->time_s / after);
    }
    return rf_write_wrapped(w, width, first, 5, text);
}

rf_status rf_report_summary(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf_writer *w)
{
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    size_t width = o && o->width ? o->width : 80;
    const rf_totals *t = &r->totals;
    RF_TRY(RF_WRITE_LIT(w, "\nBottlenecks\n"));
    for (int k = 0; k < 3; k++) {
        if (!t->count_by_bound[k] && k == RF_BOUND_UNDEFINED) continue;
        double share = t->time_s > 0 ? 100 * t->time_by_bound_s[k] / t->time_s : 0;
        RF_TRY(rf_writef(w, "  %-9s %llu of %llu operations, %.1f%% of the estimated time\n",
                         rf_bound_name((rf_bound)k), (unsigned long long)t->count_by_bound[k],
                         (unsigned long long)t->count, share));
    }
    size_t idx[RF__SLOWEST];
    size_t n = rf__slowest_rows(r, RF__SLOWEST, idx);
    if (!n) return RF_OK;
    RF_TRY(RF_WRITE_LIT(w, "\nWhat would move it (slowest first)\n"));
    for (size_t i = 0; i < n; i++) RF_TRY(rf__advice(r, &r->rows[idx[i]], i + 1, width, w));
    double mem = t->time_by_bound_s[RF_BOUND_MEMORY];
    if (mem > 0 && t->time_s > 0) {
        /* Upper bound of the saving: every memory-bound operation's bytes halved. */
        double saved = 0;
        for (size_t i = 0; i < r->n_rows; i++) {
            const rf_eval *e = &r->rows[i].e;
            if (e->bound == RF_BOUND_MEMORY)
                saved += e->time_s - rf__time_at(&r->roof, e->flops, e->bytes / 2);
        }
        char text[256];
        snprintf(text, sizeof text,
                 "Overall: halving the bytes of every memory-bound operation "
                 "saves %.1f%% of the estimated time.",
                 100 * saved / t->time_s);
        if (r->n_rows == t->count) RF_TRY(rf_write_wrapped(w, width, "  ", 2, text));
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
