/* llm_weights_report.c — the weights report (roofline/llm.h rf_llm_weights) as text, JSON and CSV:
 * what a model of an architecture roofline does not build still tells — its parameters, bytes by
 * type, bits per weight, tensors grouped by name, and the memory-bound token rate of reading them
 * once per token. A renderer. */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "core/text.h"
#include "report_int.h"
#include "roofline/llm.h"
#include "roofline/report.h"

#define RF__WR_GROUPS 24 /* groups listed in the text (the JSON has them all) */

rf_status rf_report_llm_weights(rf_ctx *ctx, const rf_llm_weights *wr, const char *path,
                                const rf_machine *m, size_t bandwidth, const rf_report_opts *o,
                                rf_writer *w)
{
    RF_CHECK(ctx, wr && m && w && bandwidth < m->n_ceilings, RF_USAGE,
             "rf_report_llm_weights: missing argument");
    rf_writer cw = rf__clean_writer(w); /* names from files */
    w = &cw;
    char a[32], b[32], c[32];
    const rf_ceiling *bw = &m->ceilings[bandwidth];
    char head[1024];
    if (!wr->architecture[0] && strcmp(wr->format, "safetensors") == 0)
        snprintf(head, sizeof head,
                 "%s: a SafeTensors file without its config.json: the architecture is unknown, so "
                 "there is no layer graph; its weights:",
                 path ? path : "model");
    else
        snprintf(head, sizeof head,
                 "%s (%s): architecture '%s' is not one roofline builds block by block, so there "
                 "is no layer graph; its weights:",
                 path ? path : "model", wr->format,
                 wr->architecture[0] ? wr->architecture : "none");
    RF_TRY(rf_write_wrapped(w, o && o->width ? o->width : 80, "", 2, head));
    RF_TRY(rf_writef(
        w, "weights  %llu tensors, %s params, %sB, %.3f bits per weight\n",
        (unsigned long long)wr->tensors, rf_si_format_compact(a, sizeof a, (double)wr->params, ""),
        rf_si_format_compact(b, sizeof b, (double)wr->bytes, ""), wr->bits_per_weight));
    RF_TRY(RF_WRITE_LIT(w, "by type "));
    for (int t = 0; t < RF_DTYPE_COUNT; t++)
        if (wr->bytes_by_dtype[t] || wr->params_by_dtype[t])
            RF_TRY(
                rf_writef(w, " %s %sB (%s params)", rf_dtype_name((rf_dtype)t),
                          rf_si_format_compact(a, sizeof a, (double)wr->bytes_by_dtype[t], ""),
                          rf_si_format_compact(b, sizeof b, (double)wr->params_by_dtype[t], "")));
    RF_TRY(rf__write_machine_line(w, "\n", m->description, m->name, m->provenance));
    double tps = wr->bytes ? bw->value / (double)wr->bytes : 0;
    char line[512];
    snprintf(line, sizeof line,
             "%s tokens/s at batch 1: every weight read once per token from %s (%sB/s / %sB; "
             "memory-bound, the simple figure)",
             rf_si_format_compact(c, sizeof c, tps, ""), bw->name,
             rf_si_format_compact(a, sizeof a, bw->value, ""),
             rf_si_format_compact(b, sizeof b, (double)wr->bytes, ""));
    RF_TRY(rf_write_wrapped(w, o && o->width ? o->width : 80, "ceiling  ", 9, line));
    RF_TRY(RF_WRITE_LIT(w, "\n"));
    RF_TRY(rf_writef(w, "  %-44s %7s %9s %9s  %s\n", "tensors (numbers as *)", "count", "params",
                     "bytes", "type"));
    for (size_t i = 0; i < wr->n_groups && i < RF__WR_GROUPS; i++) {
        const rf_llm_weight_group *g = &wr->groups[i];
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_name_cell(w, g->prefix, 44));
        RF_TRY(rf_writef(w, " %7llu %9s %9s  %s\n", (unsigned long long)g->tensors,
                         rf_si_format_compact(a, sizeof a, (double)g->params, ""),
                         rf_si_format_compact(b, sizeof b, (double)g->bytes, ""),
                         g->dtype == RF_DTYPE_UNKNOWN ? "mixed" : rf_dtype_name(g->dtype)));
    }
    if (wr->n_groups > RF__WR_GROUPS)
        RF_TRY(rf_writef(w, "  (%zu more groups: --json lists them all)\n",
                         wr->n_groups - RF__WR_GROUPS));
    return RF_OK;
}

rf_status rf_report_llm_weights_json(rf_ctx *ctx, const rf_llm_weights *wr, const char *path,
                                     const rf_machine *m, size_t bandwidth, rf_writer *w)
{
    RF_CHECK(ctx, wr && m && w && bandwidth < m->n_ceilings, RF_USAGE,
             "rf_report_llm_weights_json: missing argument");
    const rf_ceiling *bw = &m->ceilings[bandwidth];
    RF_TRY(RF_WRITE_LIT(w, "{\"schema\": \"roofline-llm-weights/1\", \"model\": "));
    RF_TRY(rf__write_json_string(w, path ? path : ""));
    RF_TRY(RF_WRITE_LIT(w, ", \"format\": "));
    RF_TRY(rf__write_json_string(w, wr->format));
    RF_TRY(RF_WRITE_LIT(w, ", \"architecture\": "));
    RF_TRY(rf__write_json_string(w, wr->architecture));
    RF_TRY(rf_writef(w,
                     ", \"known\": false, \"tensors\": %llu, \"params\": %llu, \"bytes\": %llu, "
                     "\"bits_per_weight\": ",
                     (unsigned long long)wr->tensors, (unsigned long long)wr->params,
                     (unsigned long long)wr->bytes));
    RF_TRY(rf__write_json_number(w, wr->bits_per_weight));
    RF_TRY(RF_WRITE_LIT(w, ",\n \"by_dtype\": {"));
    int first = 1;
    for (int t = 0; t < RF_DTYPE_COUNT; t++) {
        if (!wr->bytes_by_dtype[t] && !wr->params_by_dtype[t]) continue;
        RF_TRY(rf_writef(w, "%s\"%s\": {\"params\": %llu, \"bytes\": %llu}", first ? "" : ", ",
                         rf_dtype_name((rf_dtype)t), (unsigned long long)wr->params_by_dtype[t],
                         (unsigned long long)wr->bytes_by_dtype[t]));
        first = 0;
    }
    RF_TRY(RF_WRITE_LIT(w, "},\n \"machine\": "));
    RF_TRY(rf__write_json_string(w, m->name));
    RF_TRY(RF_WRITE_LIT(w, ", \"bandwidth\": "));
    RF_TRY(rf__write_json_string(w, bw->name));
    RF_TRY(RF_WRITE_LIT(w, ", \"bw_bytes_per_s\": "));
    RF_TRY(rf__write_json_number(w, bw->value));
    RF_TRY(RF_WRITE_LIT(w, ", \"bw_tokens_per_s\": "));
    RF_TRY(rf__write_json_number(w, wr->bytes ? bw->value / (double)wr->bytes : 0));
    RF_TRY(RF_WRITE_LIT(w, ",\n \"groups\": ["));
    for (size_t i = 0; i < wr->n_groups; i++) {
        const rf_llm_weight_group *g = &wr->groups[i];
        RF_TRY(rf_writef(w, "%s\n  {\"prefix\": ", i ? "," : ""));
        RF_TRY(rf__write_json_string(w, g->prefix));
        RF_TRY(rf_writef(
            w, ", \"tensors\": %llu, \"params\": %llu, \"bytes\": %llu, \"type\": \"%s\"}",
            (unsigned long long)g->tensors, (unsigned long long)g->params,
            (unsigned long long)g->bytes,
            g->dtype == RF_DTYPE_UNKNOWN ? "mixed" : rf_dtype_name(g->dtype)));
    }
    return RF_WRITE_LIT(w, "]}\n");
}

/* One CSV row: kind, name (quoted as needed), tensors (empty when 0 and not asked), params, bytes,
 * bits per weight, type, tokens/s (empty when < 0). */
static rf_status rf__csv_row(rf_writer *w, const char *kind, const char *name, uint64_t tensors,
                             uint64_t params, uint64_t bytes, const char *type, double tps)
{
    char n[32];
    RF_TRY(rf_writef(w, "%s,", kind));
    RF_TRY(rf__write_csv_field(w, name));
    if (tensors)
        RF_TRY(rf_writef(w, ",%llu,", (unsigned long long)tensors));
    else
        RF_TRY(RF_WRITE_LIT(w, ",,"));
    RF_TRY(rf_writef(
        w, "%llu,%llu,%s,%s,", (unsigned long long)params, (unsigned long long)bytes,
        rf_number_format(n, sizeof n, params ? 8.0 * (double)bytes / (double)params : 0), type));
    if (tps >= 0) RF_TRY(rf__write_json_number(w, tps));
    return RF_WRITE_LIT(w, "\n");
}

rf_status rf_report_llm_weights_csv(rf_ctx *ctx, const rf_llm_weights *wr, const char *path,
                                    const rf_machine *m, size_t bandwidth, rf_writer *w)
{
    RF_CHECK(ctx, wr && m && w && bandwidth < m->n_ceilings, RF_USAGE,
             "rf_report_llm_weights_csv: missing argument");
    rf_writer cw = rf__clean_writer(w); /* names from files */
    w = &cw;
    const rf_ceiling *bw = &m->ceilings[bandwidth];
    RF_TRY(RF_WRITE_LIT(w, "row,name,tensors,params,bytes,bits_per_weight,type,bw_tokens_per_s\n"));
    RF_TRY(rf__csv_row(w, "total", path ? path : "", wr->tensors, wr->params, wr->bytes, "",
                       wr->bytes ? bw->value / (double)wr->bytes : 0));
    for (int t = 0; t < RF_DTYPE_COUNT; t++)
        if (wr->bytes_by_dtype[t] || wr->params_by_dtype[t])
            RF_TRY(rf__csv_row(w, "dtype", rf_dtype_name((rf_dtype)t), 0, wr->params_by_dtype[t],
                               wr->bytes_by_dtype[t], rf_dtype_name((rf_dtype)t), -1));
    for (size_t i = 0; i < wr->n_groups; i++) {
        const rf_llm_weight_group *g = &wr->groups[i];
        RF_TRY(rf__csv_row(w, "group", g->prefix, g->tensors, g->params, g->bytes,
                           g->dtype == RF_DTYPE_UNKNOWN ? "mixed" : rf_dtype_name(g->dtype), -1));
    }
    return RF_OK;
}
