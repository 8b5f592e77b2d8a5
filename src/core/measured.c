/* measured.c — a measured time held against a row's estimate: achieved FLOP/s and bytes/s,
 * utilization of the roof at the row's AI (DESIGN.md "Performance"), measured/estimated ratio,
 * time lost to the roof, and why a point may sit above its roof (a faster memory level holds its
 * bytes, a provisional roof, or a miscounted op). Pure arithmetic; never prints, never allocates.
 */
#include <math.h>
#include <string.h>

#include "analysis_int.h"
#include "rf_int.h"

rf_status rf__measured_check(rf_ctx *ctx, const rf_measured *m, const char *what, rf_measured *out)
{
    RF_CHECK(ctx, m, RF_USAGE, "%s: no measured time given", what);
    RF_CHECK(ctx, isfinite(m->time_s) && m->time_s > 0, RF_RANGE,
             "%s: the measured time must be finite and positive, got %g s", what, m->time_s);
    *out = *m;
    if (m->min_s == 0 && m->max_s == 0) {
        out->min_s = out->max_s = m->time_s;
        return RF_OK;
    }
    RF_CHECK(ctx, isfinite(m->min_s) && isfinite(m->max_s) && m->min_s > 0, RF_RANGE,
             "%s: the measured min and max must be finite and positive, got %g s and %g s", what,
             m->min_s, m->max_s);
    RF_CHECK(ctx, m->min_s <= m->time_s && m->time_s <= m->max_s, RF_RANGE,
             "%s: the measured time %g s is not between its min %g s and max %g s", what, m->time_s,
             m->min_s, m->max_s);
    return RF_OK;
}

/* The level that holds `bytes` with the smallest capacity (the fastest that can), or NULL. */
static const rf__level *rf__holding_level(const rf__level *lv, size_t n, double bytes)
{
    const rf__level *best = NULL;
    for (size_t i = 0; i < n; i++)
        if (lv[i].capacity_bytes >= bytes && (!best || lv[i].capacity_bytes < best->capacity_bytes))
            best = &lv[i];
    return best;
}

/* Reasons for a point above its roof. A memory-bound point is explained by a faster level when
 * its bytes fit one whose roof at this AI is at least what was achieved; otherwise, unless the
 * roof is provisional (which alone may explain it), a point at most 5% over is put down to the
 * spread of clock and timer between the roof's run and this one, and one further over to FLOPs or
 * bytes miscounted for the op. */
static void rf__above_why(const rf_eval *e, const rf_roof *roof, int provisional,
                          const rf__level *lv, size_t n, rf_achieved *a)
{
    if (provisional) a->why |= RF_ABOVE_PROVISIONAL;
    if (e->bound == RF_BOUND_MEMORY) {
        const rf__level *l = rf__holding_level(lv, n, e->bytes);
        if (l && l->bytes_per_s > roof->bw_bytes_per_s) {
            double cap = e->flops > 0 ? fmin(roof->peak_flops_per_s, e->ai * l->bytes_per_s)
                                      : l->bytes_per_s;
            double got = e->flops > 0 ? a->flops_per_s : a->bytes_per_s;
            a->why |= RF_ABOVE_FASTER_LEVEL;
            rf__strlcpy(a->level, l->name, sizeof a->level);
            if (got > cap * 1.000001 && !provisional) a->why |= RF_ABOVE_MISCOUNT;
        }
    }
    if (!a->why)
        a->why = a->utilization <= 1 + RF_ABOVE_NOISE_SHARE ? RF_ABOVE_NOISE : RF_ABOVE_MISCOUNT;
}

void rf__achieved_eval(const rf_eval *e, const rf_roof *roof, int provisional,
                       const rf__level *levels, size_t n_levels, const rf_measured *m,
                       rf_achieved *out)
{
    memset(out, 0, sizeof *out);
    out->m = *m;
    const double t = m->time_s;
    out->flops_per_s = e->flops / t;
    out->bytes_per_s = e->bytes / t;
    if (e->bound == RF_BOUND_UNDEFINED || !(e->time_s > 0)) {
        out->utilization = out->ratio = NAN; /* no estimate to hold it against */
        return;
    }
    out->utilization = e->flops > 0 ? out->flops_per_s / e->attainable_flops_per_s
                                    : out->bytes_per_s / roof->bw_bytes_per_s;
    out->ratio = t / e->time_s;
    out->lost_s = t - e->time_s;
    out->above = out->utilization > 1;
    if (out->above) rf__above_why(e, roof, provisional, levels, n_levels, out);
}

void rf__achieved_totals_add(rf_totals *t, const rf_eval *e, const rf_achieved *a)
{
    if (!a) return;
    t->count_measured++;
    t->count_above += a->above != 0;
    t->measured_s += a->m.time_s;
    t->measured_est_s += e->time_s;
    t->lost_s += a->lost_s;
}

int rf__achieved_cmp_lost(const rf_row *x, const rf_row *y)
{
    int xm = x->measured != NULL, ym = y->measured != NULL;
    if (xm != ym) return xm ? -1 : 1;
    double a = xm ? x->measured->lost_s : x->e.time_s, b = xm ? y->measured->lost_s : y->e.time_s;
    return (a > b) ? -1 : (a < b);
}

char *rf__above_text(char *buf, size_t size, const rf_achieved *a, const char *roof_bw)
{
    size_t len = 0;
    buf[0] = '\0';
    if (a->why & RF_ABOVE_FASTER_LEVEL)
        rf__appendf(buf, size, &len, "bytes fit %s (faster than %s)", a->level, roof_bw);
    if (a->why & RF_ABOVE_PROVISIONAL)
        rf__appendf(buf, size, &len, "%sprovisional roof", len ? "; " : "");
    if (a->why & RF_ABOVE_MISCOUNT)
        rf__appendf(buf, size, &len, "%sFLOPs or bytes miscounted?", len ? "; " : "");
    if (a->why & RF_ABOVE_NOISE)
        rf__appendf(buf, size, &len, "%swithin %.0f%%: clock and timer spread between runs",
                    len ? "; " : "", 100 * RF_ABOVE_NOISE_SHARE);
    return buf;
}
