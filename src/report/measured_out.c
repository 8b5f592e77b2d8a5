/* measured_out.c — the measured fields of a result in every text renderer: the JSON "measured"
 * objects of a row and of the totals, the extra CSV columns, and the table's measured totals,
 * above-roof list and ranking by time lost to the roof. Written only when the result has
 * measurements, so results without them print exactly as before. Never computes a figure:
 * src/core/measured.c does. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/analysis_int.h"
#include "core/rf_int.h"
#include "report_int.h"

#define RF__LOST_LIST 5 /* rows listed under "time lost to the roof" */

int rf__result_has_measured(const rf_result *r)
{
    if (r->totals.count_measured || r->totals.wall_s > 0) return 1;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].measured) return 1;
    return 0;
}

static const char *const rf__why_names[4] = {"faster_level", "miscount", "provisional", "noise"};

/* ---- JSON ------------------------------------------------------------------------------------ */

rf_status rf__json_row_measured(const rf_row *row, rf_writer *w)
{
    const rf_achieved *a = row->measured;
    if (!a) return RF_OK;
    RF_TRY(RF_WRITE_LIT(w, ", \"measured\": {"));
    RF_TRY(rf__json_key_num(w, "time_s", a->m.time_s, 0));
    RF_TRY(rf__json_key_num(w, "min_s", a->m.min_s, 0));
    RF_TRY(rf__json_key_num(w, "max_s", a->m.max_s, 0));
    RF_TRY(rf_writef(w, "\"runs\": %lu, ", (unsigned long)a->m.runs));
    RF_TRY(rf__json_key_num(w, "achieved_flops_per_s", a->flops_per_s, 0));
    RF_TRY(rf__json_key_num(w, "achieved_bytes_per_s", a->bytes_per_s, 0));
    RF_TRY(rf__json_key_num(w, "utilization", a->utilization, 0));
    RF_TRY(rf__json_key_num(w, "ratio", a->ratio, 0));
    RF_TRY(rf__json_key_num(w, "lost_s", a->lost_s, 0));
    RF_TRY(rf_writef(w, "\"above_roof\": %s", a->above ? "true" : "false"));
    if (a->above) {
        RF_TRY(RF_WRITE_LIT(w, ", \"reasons\": ["));
        int first = 1;
        for (unsigned k = 0; k < 4; k++)
            if (a->why & (1u << k)) {
                RF_TRY(rf_writef(w, "%s\"%s\"", first ? "" : ", ", rf__why_names[k]));
                first = 0;
            }
        RF_TRY(RF_WRITE_LIT(w, "]"));
        if (a->level[0]) {
            RF_TRY(RF_WRITE_LIT(w, ", \"level\": "));
            RF_TRY(rf__write_json_string(w, a->level));
        }
    }
    return RF_WRITE_LIT(w, "}");
}

rf_status rf__json_totals_measured(const rf_totals *t, rf_writer *w)
{
    if (!t->count_measured && !(t->wall_s > 0)) return RF_OK;
    RF_TRY(rf_writef(w, ", \"measured\": {\"count\": %llu, \"count_above\": %llu, ",
                     (unsigned long long)t->count_measured, (unsigned long long)t->count_above));
    RF_TRY(rf__json_key_num(w, "time_s", t->measured_s, 0));
    RF_TRY(rf__json_key_num(w, "estimated_s", t->measured_est_s, 0));
    RF_TRY(rf__json_key_num(w, "lost_s", t->lost_s, t->wall_s > 0 ? 0 : 1));
    if (t->wall_s > 0) {
        RF_TRY(rf__json_key_num(w, "wall_s", t->wall_s, 0));
        RF_TRY(rf__json_key_num(w, "overhead_s", t->wall_s - t->measured_s, t->busy_other < 0));
        if (t->busy_other >= 0) RF_TRY(rf__json_key_num(w, "busy_other", t->busy_other, 1));
    }
    return RF_WRITE_LIT(w, "}");
}

/* ---- CSV ------------------------------------------------------------------------------------- */

const char rf__csv_measured_header[] =
    ",measured_s,measured_min_s,measured_max_s,runs,achieved_flops_per_s,achieved_bytes_per_s,"
    "utilization,measured_ratio,lost_s,above_roof,above_reasons,above_level";

rf_status rf__csv_row_measured(const rf_row *row, rf_writer *w)
{
    const rf_achieved *a = row->measured;
    if (!a) return RF_WRITE_LIT(w, ",,,,,,,,,,,,");
    const double v[9] = {a->m.time_s,       a->m.min_s,     a->m.max_s,
                         (double)a->m.runs, a->flops_per_s, a->bytes_per_s,
                         a->utilization,    a->ratio,       a->lost_s};
    char num[40], why[64];
    for (size_t k = 0; k < 9; k++) {
        RF_TRY(RF_WRITE_LIT(w, ","));
        if (!isnan(v[k])) RF_TRY(rf_writef(w, "%s", rf_number_format(num, sizeof num, v[k])));
    }
    size_t len = 0;
    why[0] = '\0';
    for (unsigned k = 0; k < 4; k++)
        if (a->above && (a->why & (1u << k)))
            rf__appendf(why, sizeof why, &len, "%s%s", len ? ";" : "", rf__why_names[k]);
    RF_TRY(rf_writef(w, ",%d,%s,", a->above ? 1 : 0, why));
    return rf__write_csv_field(w, a->level);
}

/* ---- table: the lines under the totals ------------------------------------------------------- */

static rf_status rf__table_measured_totals(const rf_result *r, const char *hidden, rf_writer *w)
{
    const rf_totals *t = &r->totals;
    char a[32], b[32], c[32];
    RF_TRY(RF_WRITE_LIT(w, "columns  measured: time per pass; achieved: FLOP/s; util.: achieved / "
                           "roof at its AI\n         (^ above its roof); "));
    if (!strstr(hidden, "x est")) RF_TRY(RF_WRITE_LIT(w, "x est: measured / estimated time"));
    if (hidden[0])
        RF_TRY(rf_writef(w, "%s--wide adds %s", strstr(hidden, "x est") ? "" : "; ", hidden));
    RF_TRY(RF_WRITE_LIT(w, "\n"));
    RF_TRY(rf_writef(w, "measured %llu of %llu operations: %s measured vs %s estimated (x%.2f),\n",
                     (unsigned long long)t->count_measured, (unsigned long long)t->count,
                     rf_time_format(a, sizeof a, t->measured_s, 3),
                     rf_time_format(b, sizeof b, t->measured_est_s, 3),
                     t->measured_est_s > 0 ? t->measured_s / t->measured_est_s : 0.0));
    RF_TRY(
        rf_writef(w, "         %s lost to the roofs\n", rf_time_format(c, sizeof c, t->lost_s, 3)));
    if (!(t->wall_s > 0)) return RF_OK;
    double gap = t->wall_s - t->measured_s;
    RF_TRY(rf_writef(w, "wall     %s for the whole pass, %s in the layers:\n",
                     rf_time_format(a, sizeof a, t->wall_s, 3),
                     rf_time_format(b, sizeof b, t->measured_s, 3)));
    if (gap >= 0)
        RF_TRY(rf_writef(w, "         %s (%.1f%%) between them is dispatch overhead\n",
                         rf_time_format(c, sizeof c, gap, 3), 100 * gap / t->wall_s));
    else
        RF_TRY(rf_writef(w,
                         "         the layers sum to %s more than the pass (overlap, or overhead "
                         "in the layer timings)\n",
                         rf_time_format(c, sizeof c, -gap, 3)));
    if (!(t->busy_other > RF_BUSY_OTHERS)) return RF_OK;
    return rf_writef(
        w,
        "busy     other processes used %.0f%% of the CPU time while the passes were "
        "timed:\n         these times may be slower than this machine gives when quiet; "
        "measure again then\n",
        100 * t->busy_other);
}

/* Width of the name column of the lists: the longest name shown, at most 30 columns. */
static size_t rf__list_name_w(const rf_result *r, int above_only)
{
    size_t w = 4;
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        if (!row->measured || (above_only && !row->measured->above)) continue;
        size_t n = rf__utf8_cols(row->name, strlen(row->name));
        if (n > w) w = n;
    }
    return w < 30 ? w : 30;
}

/* Rows above their roof, each with its likely reason (the printed rows only). */
static rf_status rf__table_above(const rf_result *r, rf_writer *w)
{
    if (!r->totals.count_above) return RF_OK;
    RF_TRY(rf_writef(w, "above the roof (%llu): measured faster than the roof allows\n",
                     (unsigned long long)r->totals.count_above));
    char why[256];
    size_t shown = 0, nw = rf__list_name_w(r, 1);
    for (size_t i = 0; i < r->n_rows && shown < 10; i++) {
        const rf_achieved *a = r->rows[i].measured;
        if (!a || !a->above) continue;
        shown++;
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_name_cell(w, r->rows[i].name, nw));
        RF_TRY(rf_writef(w, "  %.0f%% of its roof: %s\n", 100 * a->utilization,
                         rf__above_text(why, sizeof why, a, r->bandwidth.name)));
    }
    return RF_OK;
}

/* The measured rows that lose the most time to their roof (printed rows only), most first. */
static rf_status rf__table_lost(const rf_result *r, rf_writer *w)
{
    size_t pick[RF__LOST_LIST], n = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        if (!row->measured || !(row->measured->lost_s > 0)) continue;
        size_t k = n < RF__LOST_LIST ? n++ : RF__LOST_LIST;
        if (k == RF__LOST_LIST) {
            if (rf__achieved_cmp_lost(row, &r->rows[pick[k - 1]]) >= 0) continue;
            k--;
        }
        while (k > 0 && rf__achieved_cmp_lost(row, &r->rows[pick[k - 1]]) < 0) {
            pick[k] = pick[k - 1];
            k--;
        }
        pick[k] = i;
    }
    if (!n) return RF_OK;
    RF_TRY(RF_WRITE_LIT(w, "time lost to the roof (measured - estimated), most first\n"));
    size_t nw = rf__list_name_w(r, 0);
    for (size_t k = 0; k < n; k++) {
        const rf_row *row = &r->rows[pick[k]];
        char a[32], b[32], c[32];
        RF_TRY(rf_writef(w, "  %zu. ", k + 1));
        RF_TRY(rf__write_name_cell(w, row->name, nw));
        RF_TRY(rf_writef(w, " %8s lost: %s measured, %s on its roof (%.0f%%)\n",
                         rf_time_format(a, sizeof a, row->measured->lost_s, 3),
                         rf_time_format(b, sizeof b, row->measured->m.time_s, 3),
                         rf_time_format(c, sizeof c, row->e.time_s, 3),
                         100 * row->measured->utilization));
    }
    return RF_OK;
}

rf_status rf__table_measured(const rf_result *r, const char *hidden, int brief, rf_writer *w)
{
    if (!rf__result_has_measured(r)) return RF_OK;
    RF_TRY(rf__table_measured_totals(r, hidden, w));
    if (brief) /* one screen: the count; the table ranks the time lost already */
        return r->totals.count_above
                   ? rf_writef(w, "above    %llu rows measured faster than their roof allows\n",
                               (unsigned long long)r->totals.count_above)
                   : RF_OK;
    RF_TRY(rf__table_above(r, w));
    return rf__table_lost(r, w);
}
