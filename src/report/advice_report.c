/* advice_report.c — the advice (roofline/advice.h) as text under a table, and as the "advice"
 * array of the JSON documents. A renderer: it writes what rf_advise_* computed, nothing more. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "core/text.h"
#include "report_int.h"
#include "roofline/advice.h"

#define RF__ADV_NAMES 4 /* layer names shown before "(+N more)" */
#define RF__ADV_BRIEF 2 /* suggestions in the one-screen form (rf_report_opts.brief) */

rf_status rf_report_advice(rf_ctx *ctx, const rf_advice_list *a, const rf_report_opts *o,
                           rf_writer *w)
{
    RF_CHECK(ctx, a && w, RF_USAGE, "rf_report_advice: missing argument");
    rf_writer cw = rf__clean_writer(w); /* layer names come from files */
    w = &cw;
    size_t width = o && o->width ? o->width : 80;
    const int brief = o && o->brief; /* the first RF__ADV_BRIEF, each without its assumption */
    if (brief && width > 120) width = 120; /* one screen: no line wider than the table's */
    size_t n = brief && a->n > RF__ADV_BRIEF ? RF__ADV_BRIEF : a->n;
    char tot[32], part[64] = "";
    rf_time_format(tot, sizeof tot, a->total_s, 3);
    if (n < a->n) snprintf(part, sizeof part, "; the first %zu of %zu", n, a->n);
    if (brief)
        RF_TRY(rf_writef(w, "\nWhat would move it (%s %s%s)\n",
                         a->measured ? "from the measured" : "from the estimated", tot, part));
    else
        RF_TRY(rf_writef(w,
                         "\nWhat would move it (each change evaluated on the same layers; %s %s)\n",
                         a->measured ? "from the measured" : "from the estimated", tot));
    if (!a->n) {
        RF_TRY(RF_WRITE_LIT(w, "  no change saves 1% of the run or more\n"));
        return RF_OK;
    }
    for (size_t i = 0; i < n; i++) {
        const rf_advice *v = &a->items[i];
        char text[2048], first[48], s[32], t0[32], t1[32];
        size_t len = 0;
        rf_time_format(s, sizeof s, fabs(v->saving_s), 3);
        rf_time_format(t0, sizeof t0, v->before_s, 3);
        rf_time_format(t1, sizeof t1, v->after_s, 3);
        snprintf(first, sizeof first, "  %zu. [%s] ", i + 1,
                 v->kind == RF_ADVICE_HARDWARE ? "what-if" : v->priority);
        if (v->kind == RF_ADVICE_CHECK) { /* not a change: what to look at */
            rf__appendf(text, sizeof text, &len, "%s. Likely reasons: %s.", v->title,
                        v->assumption);
            RF_TRY(rf_write_wrapped(w, width, first, 5, text));
            continue;
        }
        if (v->kind == RF_ADVICE_HARDWARE)
            rf__appendf(text, sizeof text, &len, "%s: %s to %s, %.2fx (%s).", v->title, t0, t1,
                        v->speedup, v->ceiling);
        else if (v->kind == RF_ADVICE_BATCHING)
            rf__appendf(text, sizeof text, &len, "%s: %s instead of %s per %s, %.1f%% saved.",
                        v->title, t1, t0, a->unit, 100 * v->saving_share);
        else
            rf__appendf(text, sizeof text, &len, "%s: saves %.1f%% (%s of %s), %.2fx.", v->title,
                        100 * v->saving_share, s, t0, v->speedup);
        if (v->ceiling[0] && v->kind != RF_ADVICE_HARDWARE && !brief)
            rf__appendf(text, sizeof text, &len, " Compute on %s.", v->ceiling);
        if (v->n_layers && brief) { /* the count: the names are in the full report */
            uint64_t all = v->n_layers_total > v->n_layers ? v->n_layers_total : v->n_layers;
            if (len && text[len - 1] == '.') len--, text[len] = '\0';
            rf__appendf(text, sizeof text, &len, ", %llu layer%s.", (unsigned long long)all,
                        all == 1 ? "" : "s");
        } else if (v->n_layers) {
            uint64_t all = v->n_layers_total > v->n_layers ? v->n_layers_total : v->n_layers;
            size_t shown = v->n_layers < RF__ADV_NAMES ? v->n_layers : RF__ADV_NAMES;
            rf__appendf(text, sizeof text, &len, " Layers (%llu): ", (unsigned long long)all);
            for (size_t k = 0; k < shown; k++)
                rf__appendf(text, sizeof text, &len, "%s%s", k ? ", " : "", v->layers[k]);
            if (all > shown)
                rf__appendf(text, sizeof text, &len, " (+%llu more)",
                            (unsigned long long)(all - shown));
            rf__appendf(text, sizeof text, &len, ".");
        }
        if (!brief) rf__appendf(text, sizeof text, &len, " Assuming %s.", v->assumption);
        RF_TRY(rf_write_wrapped(w, width, first, 5, text));
        if (v->n_batches && !brief) {
            RF_TRY(rf_writef(w, "     %8s  %11s  %11s  %11s  %s\n", "batch", "pass", "per-item",
                             "items/s", "compute-bound matrix layers"));
            for (size_t k = 0; k < v->n_batches; k++) {
                const rf_advice_batch *b = &v->batches[k];
                char pt[32], ps[32], tp[32];
                rf_time_format(pt, sizeof pt, b->time_s, 3);
                rf_time_format(ps, sizeof ps, b->per_sample_s, 3);
                rf_si_format(tp, sizeof tp, b->throughput, 3, "");
                RF_TRY(rf_writef(w, "     %8llu  %11s  %11s  %11s  %llu\n",
                                 (unsigned long long)b->batch, pt, ps, tp,
                                 (unsigned long long)b->compute_bound));
            }
        }
    }
    if (brief) return RF_OK;
    return rf_write_wrapped(w, width, "  ", 3,
                            "(priority by the share of the whole run saved: HIGH >= 20%, "
                            "MEDIUM >= 5%, LOW >= 1%; changes under 1% left out)");
}

static rf_status rf__num(rf_writer *w, const char *key, double v)
{
    RF_TRY(rf_writef(w, ", \"%s\": ", key));
    return rf__write_json_number(w, v);
}

rf_status rf_report_advice_json(rf_ctx *ctx, const rf_advice_list *a, rf_writer *w)
{
    RF_CHECK(ctx, a && w, RF_USAGE, "rf_report_advice_json: missing argument");
    RF_TRY(RF_WRITE_LIT(w, "["));
    for (size_t i = 0; i < a->n; i++) {
        const rf_advice *v = &a->items[i];
        RF_TRY(rf_writef(w, "%s\n    {\"kind\": \"%s\", \"title\": ", i ? "," : "",
                         rf_advice_kind_name(v->kind)));
        RF_TRY(rf__write_json_string(w, v->title));
        RF_TRY(rf_writef(w, ", \"priority\": \"%s\", \"assumption\": ",
                         v->kind == RF_ADVICE_HARDWARE ? "what-if" : v->priority));
        RF_TRY(rf__write_json_string(w, v->assumption));
        RF_TRY(RF_WRITE_LIT(w, ", \"ceiling\": "));
        RF_TRY(rf__write_json_string(w, v->ceiling));
        RF_TRY(rf__num(w, "before_s", v->before_s));
        RF_TRY(rf__num(w, "after_s", v->after_s));
        RF_TRY(rf__num(w, "saving_s", v->saving_s));
        RF_TRY(rf__num(w, "saving_share", v->saving_share));
        RF_TRY(rf__num(w, "speedup", v->speedup));
        RF_TRY(rf_writef(w, ", \"measured\": %s", a->measured ? "true" : "false"));
        if (v->kind == RF_ADVICE_HARDWARE)
            RF_TRY(rf_writef(w, ", \"bound_flips\": %llu", (unsigned long long)v->flips));
        RF_TRY(RF_WRITE_LIT(w, ", \"layers\": ["));
        for (size_t k = 0; k < v->n_layers; k++) {
            if (k) RF_TRY(RF_WRITE_LIT(w, ", "));
            RF_TRY(rf__write_json_string(w, v->layers[k]));
        }
        RF_TRY(RF_WRITE_LIT(w, "]"));
        if (v->n_layers_total > v->n_layers) /* a long list: the slowest layers only */
            RF_TRY(rf_writef(w, ", \"layers_total\": %llu", (unsigned long long)v->n_layers_total));
        if (v->n_batches) {
            RF_TRY(RF_WRITE_LIT(w, ", \"batches\": ["));
            for (size_t k = 0; k < v->n_batches; k++) {
                const rf_advice_batch *b = &v->batches[k];
                RF_TRY(rf_writef(w, "%s{\"batch\": %llu", k ? ", " : "",
                                 (unsigned long long)b->batch));
                RF_TRY(rf__num(w, "time_s", b->time_s));
                RF_TRY(rf__num(w, "per_item_s", b->per_sample_s));
                RF_TRY(rf__num(w, "items_per_s", b->throughput));
                RF_TRY(rf_writef(w, ", \"compute_bound_layers\": %llu}",
                                 (unsigned long long)b->compute_bound));
            }
            RF_TRY(RF_WRITE_LIT(w, "]"));
        }
        RF_TRY(RF_WRITE_LIT(w, "}"));
    }
    return a->n ? RF_WRITE_LIT(w, "\n  ]") : RF_WRITE_LIT(w, "]");
}

rf_status rf_report_json_add_advice(rf_ctx *ctx, const char *doc, size_t len,
                                    const rf_advice_list *a, rf_writer *w)
{
    RF_CHECK(ctx, a, RF_USAGE, "rf_report_json_add_advice: no advice");
    RF_TRY(rf__json_reopen(ctx, doc, len, "rf_report_json_add_advice", w));
    RF_TRY(RF_WRITE_LIT(w, ",\n  \"advice\": "));
    RF_TRY(rf_report_advice_json(ctx, a, w));
    return RF_WRITE_LIT(w, "\n}\n");
}
