/* profile_report.c — the text under `roofline profile`'s table: the model's totals (FLOPs and
 * MACs, params, weight bytes, skipped and undefined layers), the slowest layers, and with
 * --compare the shift of intensity, bound and time layer by layer under other input shapes.
 * Figures come from rf_profile_model; nothing here computes a cost. */
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/exec.h"
#include "roofline/model.h"
#include "roofline/report.h"

static rf_status rf__model_summary(rf_writer *w, const rf_profile *p)
{
    char a[32], b[32], c[32], d[32];
    const rf_cost *k = p->cost;
    RF_TRY(rf_writef(w,
                     "model: %u layers (%u cost-free metadata layer%s not listed), %llu params, "
                     "%sB of weights\n",
                     p->graph->n_layers, p->skipped, p->skipped == 1 ? "" : "s",
                     (unsigned long long)p->graph->params,
                     rf_si_format_compact(a, sizeof a, (double)p->graph->weight_bytes, "")));
    RF_TRY(rf_writef(
        w, "       %sFLOP in all%s (= %s multiply-adds); Conv/Gemm/MatMul %sFLOP = %sMAC\n",
        rf_si_format_compact(a, sizeof a, k->flops, ""),
        rf_profile_lower_bound(p) ? " at least" : "",
        rf_si_format_compact(b, sizeof b, k->flops / 2, ""),
        rf_si_format_compact(c, sizeof c, k->matmul_conv_flops, ""),
        rf_si_format_compact(d, sizeof d, k->matmul_conv_flops / 2, "")));
    if (!k->n_unknown) return RF_OK;
    RF_TRY(rf_writef(w, "       %u of %u layer%s undefined%s (op types:", k->n_unknown,
                     p->graph->n_layers - p->skipped, k->n_unknown == 1 ? "" : "s",
                     rf_profile_lower_bound(p) ? ": the totals are a lower bound" : ""));
    for (uint32_t i = 0; i < k->n_unknown_ops; i++) {
        RF_TRY(rf_write(w, " ", 1));
        RF_TRY(rf_write(w, k->unknown_ops[i], strlen(k->unknown_ops[i])));
    }
    return RF_WRITE_LIT(w, ")\n");
}

static rf_status rf__slowest(rf_ctx *ctx, rf_writer *w, const rf_result *r, uint64_t top)
{
    char t[32];
    size_t k = top < r->n_rows ? (size_t)top : r->n_rows;
    if (!k) return RF_OK;
    size_t *idx = rf__malloc(ctx, k * sizeof *idx);
    if (!idx) return RF_NOMEM_ERR(ctx);
    size_t n = rf__slowest_rows(r, k, idx);
    rf_status st = rf_writef(w, "\nslowest %zu layers:\n", n);
    for (size_t i = 0; i < n && st == RF_OK; i++) {
        const rf_row *row = &r->rows[idx[i]];
        st = rf_writef(w, "  %2zu. %-40s %-18s %9s  %5.1f%%  %s\n", i + 1, row->name,
                       row->op ? row->op : "", rf_time_format(t, sizeof t, row->e.time_s, 3),
                       100 * rf__time_share(r, row), rf_bound_name(row->e.bound));
    }
    rf__free(ctx, idx);
    return st;
}

/* --measure: how the model was run, and each layer the executor could not run with its reason
 * (one line per op type: the first reason, and how many layers). */
static rf_status rf__measured(rf_writer *w, const rf_profile *p, int brief)
{
    const rf_exec_result *x = p->exec;
    char t[32], b[32];
    rf_profile_coverage cv;
    rf_profile_measured_coverage(p, &cv);
    if (cv.ran == cv.layers && brief) /* one line: the table's lines gave the wall time */
        return rf_writef(w,
                         "run      %u of %u layers on this CPU, %u thread%s, median of %u passes "
                         "after %u warm-up, %sB at peak\n",
                         cv.ran, cv.layers, x->threads, x->threads == 1 ? "" : "s", x->runs,
                         x->warmup, rf_si_format_compact(b, sizeof b, (double)x->peak_bytes, ""));
    if (cv.ran == cv.layers)
        RF_TRY(rf_writef(w,
                         "measured: %u of %u layers on this CPU, %u thread%s, median of %u timed "
                         "passes after %u warm-up;\n          whole pass %s (wall), executor "
                         "memory %sB at peak\n",
                         cv.ran, cv.layers, x->threads, x->threads == 1 ? "" : "s", x->runs,
                         x->warmup, rf_time_format(t, sizeof t, x->wall_median_s, 3),
                         rf_si_format_compact(b, sizeof b, (double)x->peak_bytes, "")));
    else /* a partial pass: never a whole-pass time */
        RF_TRY(rf_writef(w,
                         "measured: a partial pass: %u of %u layers, %.1f%% of the FLOPs measured "
                         "on this CPU,\n          %u thread%s, median of %u timed passes after %u "
                         "warm-up; no whole-pass time (%u layer%s not run), executor memory %sB "
                         "at peak\n",
                         cv.ran, cv.layers, cv.flops > 0 ? 100 * cv.ran_flops / cv.flops : 0.0,
                         x->threads, x->threads == 1 ? "" : "s", x->runs, x->warmup,
                         cv.layers - cv.ran, cv.layers - cv.ran == 1 ? "" : "s",
                         rf_si_format_compact(b, sizeof b, (double)x->peak_bytes, "")));
    if (x->inputs_note[0]) RF_TRY(rf_writef(w, "          inputs: %s\n", x->inputs_note));
    for (uint32_t i = 0; i < x->n_layers && i < p->graph->n_layers; i++) {
        const rf_layer_cost *c = &p->cost->layers[i];
        const char *op = p->graph->layers[i].op_type;
        if (x->layers[i].measured || (c->known && c->flops == 0 && c->bytes == 0)) continue;
        uint32_t same = 0, first = 1;
        for (uint32_t k = 0; k < x->n_layers && k < p->graph->n_layers; k++) {
            const rf_layer_cost *ck = &p->cost->layers[k];
            if (x->layers[k].measured || (ck->known && ck->flops == 0 && ck->bytes == 0) ||
                strcmp(p->graph->layers[k].op_type, op) != 0)
                continue;
            if (k < i) first = 0;
            same++;
        }
        if (first)
            RF_TRY(rf_writef(w, "          not measured: %u %s layer%s: %s\n", same, op,
                             same == 1 ? "" : "s", x->layers[i].reason));
    }
    return RF_OK;
}

/* The one-screen form: "model    49 layers, 11.7M params, 46.7MB of weights, 3.64 GFLOP
 * (1.82G multiply-adds)", and the undefined layers' count when there are some. */
static rf_status rf__model_brief(rf_writer *w, const rf_profile *p)
{
    char a[32], b[32], c[32], d[32];
    const rf_cost *k = p->cost;
    RF_TRY(rf_writef(w,
                     "model    %u layers, %s params, %sB of weights, %sFLOP%s (%s multiply-adds)",
                     p->graph->n_layers - p->skipped,
                     rf_si_format_compact(a, sizeof a, (double)p->graph->params, ""),
                     rf_si_format_compact(b, sizeof b, (double)p->graph->weight_bytes, ""),
                     rf_si_format_compact(c, sizeof c, k->flops, ""),
                     rf_profile_lower_bound(p) ? " at least" : "",
                     rf_si_format_compact(d, sizeof d, k->flops / 2, "")));
    if (k->n_unknown) RF_TRY(rf_writef(w, ", %u undefined", k->n_unknown));
    return RF_WRITE_LIT(w, "\n");
}

rf_status rf_report_profile_summary(rf_ctx *ctx, const rf_profile *p, uint64_t top,
                                    const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, p && w, RF_USAGE, "rf_report_profile_summary: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    RF_TRY(o && o->brief ? rf__model_brief(w, p) : rf__model_summary(w, p));
    if (p->exec) RF_TRY(rf__measured(w, p, o && o->brief));
    /* a table that listed only the slowest rows was already this list */
    if (o && (o->brief || (o->rows_max && p->result->n_rows > o->rows_max))) return RF_OK;
    return rf__slowest(ctx, w, p->result, top);
}

rf_status rf_report_profile_compare(rf_ctx *ctx, const rf_profile *a, const rf_profile *b,
                                    const char *what, const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, a && b && w, RF_USAGE, "rf_report_profile_compare: missing argument");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    (void)o;
    char x[32], y[32], t1[32], t2[32];
    const rf_result *ra_ = a->result, *rb_ = b->result;
    RF_TRY(rf_writef(w, "\ncompare: %s\n", what));
    RF_TRY(rf_writef(w, "  %-40s %9s %9s  %-8s %-8s %9s %9s\n", "layer", "AI", "AI'", "bound",
                     "bound'", "time", "time'"));
    size_t j = 0, changed = 0;
    for (size_t i = 0; i < ra_->n_rows; i++) {
        const rf_row *ra = &ra_->rows[i], *rb = NULL;
        for (size_t k = 0; k < rb_->n_rows && !rb; k++, j = (j + 1) % rb_->n_rows)
            if (strcmp(rb_->rows[j].name, ra->name) == 0) rb = &rb_->rows[j];
        if (!rb) continue;
        changed += ra->e.bound != rb->e.bound;
        RF_TRY(rf_writef(w, "  %-40s %9s %9s  %-8s %-8s %9s %9s\n", ra->name,
                         rf_si_format_compact(x, sizeof x, ra->e.ai, ""),
                         rf_si_format_compact(y, sizeof y, rb->e.ai, ""),
                         rf_bound_name(ra->e.bound), rf_bound_name(rb->e.bound),
                         rf_time_format(t1, sizeof t1, ra->e.time_s, 3),
                         rf_time_format(t2, sizeof t2, rb->e.time_s, 3)));
    }
    return rf_writef(
        w, "  total: AI %s -> %s FLOP/byte, time %s -> %s; %zu layer%s changed bound\n",
        rf_si_format_compact(x, sizeof x, ra_->totals.ai, ""),
        rf_si_format_compact(y, sizeof y, rb_->totals.ai, ""),
        rf_time_format(t1, sizeof t1, ra_->totals.time_s, 3),
        rf_time_format(t2, sizeof t2, rb_->totals.time_s, 3), changed, changed == 1 ? "" : "s");
}
