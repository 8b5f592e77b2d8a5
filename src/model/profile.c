/* profile.c — `roofline profile` as one library call: load a model file (or the built-in demo),
 * cost every layer and evaluate it on the roof, titled by the file and its input shapes (so two
 * profiles of one model under other shapes tell apart as chart series). Never prints: the reports
 * are src/report's (rf_report_profile_summary, rf_report_profile_compare). */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/exec.h"
#include "roofline/model.h"

/* "PATH (FORMAT, opset N) input=1x3x224x224 sr=16000 ..." */
static void rf__title(const rf_graph *g, const char *path, char *title, size_t cap)
{
    size_t tl =
        (size_t)snprintf(title, cap, "%s (%s", path ? path : "built-in demo: ResNet-18", g->format);
    if (g->opset && tl < cap)
        tl += (size_t)snprintf(title + tl, cap - tl, ", opset %lld", (long long)g->opset);
    if (tl < cap) tl += (size_t)snprintf(title + tl, cap - tl, ")");
    for (uint32_t i = 0; i < g->n_tensors && tl < cap; i++) {
        const rf_tensor *t = &g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        tl += (size_t)snprintf(title + tl, cap - tl, " %s=", t->name);
        if (t->rank == 0 && tl < cap) /* a scalar: its value (--value), else "scalar" */
            tl += t->values && t->n_values == 1
                      ? (size_t)snprintf(title + tl, cap - tl, "%lld", (long long)t->values[0])
                      : (size_t)snprintf(title + tl, cap - tl, "scalar");
        for (uint32_t d = 0; d < t->rank && tl < cap; d++)
            tl +=
                (size_t)snprintf(title + tl, cap - tl, d ? "x%lld" : "%lld", (long long)t->dims[d]);
    }
}

static rf_status rf__profile(rf_ctx *ctx, const char *path, const rf_model_opts *mo,
                             const rf_machine *m, size_t ci, size_t bi, rf_profile *p)
{
    rf_analysis *an = NULL;
    char title[512];
    if (path) {
        RF_TRY(rf_model_load(ctx, path, mo, &p->graph));
    } else {
        size_t n;
        const void *d = rf_demo_model(&n);
        RF_TRY(rf_model_load_mem(ctx, d, n, "resnet18 (built-in)", mo, &p->graph));
    }
    RF_TRY(rf_graph_cost(ctx, p->graph, &p->cost));
    RF_TRY(rf_analysis_new(ctx, m, ci, bi, RF_SORT_INPUT, 0, &an));
    rf_status st = rf_graph_analysis_add(ctx, an, p->graph, p->cost, &p->skipped);
    rf__title(p->graph, path, title, sizeof title);
    if (st == RF_OK) st = rf_analysis_finish(an, title, &p->result);
    rf_analysis_free(an);
    return st;
}

rf_status rf_profile_model(rf_ctx *ctx, const char *path, const rf_model_opts *mo,
                           const rf_machine *m, size_t compute, size_t bandwidth, rf_profile **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, m && out, RF_USAGE, "rf_profile_model: machine and out are required");
    *out = NULL;
    rf_profile *p = rf__calloc(ctx, 1, sizeof *p);
    if (!p) return RF_NOMEM_ERR(ctx);
    p->alloc_ = *rf_ctx_allocator(ctx);
    rf__strlcpy(p->source, path ? path : "demo", sizeof p->source);
    rf_status st = rf__profile(ctx, path, mo, m, compute, bandwidth, p);
    if (st != RF_OK) {
        /* every bad-input line names the file (--input naming a missing input, ...) */
        if (rf_status_is_input_error(st)) rf__error_name(ctx, p->source);
        rf_profile_free(p);
        return st;
    }
    *out = p;
    return RF_OK;
}

void rf_profile_free(rf_profile *p)
{
    if (!p) return;
    rf_allocator a = p->alloc_;
    rf_exec_result_free(p->exec);
    rf_result_free(p->result);
    rf_cost_free(p->cost);
    rf_graph_free(p->graph);
    rf__free_with(&a, p);
}

/* Output shape of layer `l` as text ("?" when it has none or it is unknown). */
static const char *rf__out_shape(const rf_graph *g, const rf_layer *l, char *buf, size_t cap)
{
    if (!l->n_outputs || l->outputs[0] >= g->n_tensors) {
        rf__strlcpy(buf, "?", cap);
        return buf;
    }
    return rf_tensor_shape_str(&g->tensors[l->outputs[0]], buf, cap);
}

/* The reorders the executor ran just before layer `i`, as rows of their own. */
static rf_status rf__add_reorders(rf_analysis *an, const rf_exec_result *x, uint32_t i)
{
    for (size_t k = 0; k < x->n_extra; k++) {
        const rf_exec_extra *e = &x->extra[k];
        if (e->before_layer != i) continue;
        if (e->folded) { /* made once at load: listed with its bytes, no time in the pass */
            char note[96], t[32];
            snprintf(note, sizeof note, "folded: a constant, reordered once at load (%s)",
                     rf_time_format(t, sizeof t, e->load_s, 3));
            RF_TRY(rf_analysis_add_detail(an, e->name, strlen(e->name), "Reorder", note, 1, 0,
                                          e->bytes));
            continue;
        }
        if (!(e->median_s > 0)) continue;
        rf_measured m = {e->median_s, 0, 0, x->runs};
        RF_TRY(rf_analysis_add_measured(an, e->name, strlen(e->name), "Reorder", NULL, 1, 0,
                                        e->bytes, &m));
    }
    return RF_OK;
}

/* The profile's rows again, each layer with its measured time where the executor timed it. */
static rf_status rf__measured_rows(rf_ctx *ctx, rf_profile *p, rf_analysis *an)
{
    const rf_graph *g = p->graph;
    const rf_exec_result *x = p->exec;
    char shape[128 + RF_NAME_MAX + RF_TEXT_MAX];
    for (uint32_t i = 0; i < g->n_layers && i < p->cost->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        const rf_layer_cost *c = &p->cost->layers[i];
        const rf_exec_layer *e = i < x->n_layers ? &x->layers[i] : NULL;
        RF_TRY(rf__add_reorders(an, x, i));
        if (c->known && c->flops == 0 && c->bytes == 0) continue; /* metadata: not listed */
        double f = c->known ? c->flops : 0, b = c->known ? c->bytes : 0;
        rf__out_shape(g, l, shape, sizeof shape);
        if (e && e->measured && e->folded) { /* computed once at load: not in the pass */
            size_t n = strlen(shape);
            snprintf(shape + n, sizeof shape - n, "%sfolded: a constant, computed once at load",
                     n ? " " : "");
            n = strlen(shape);
            char t[32];
            if (e->fused_into < 0)
                snprintf(shape + n, sizeof shape - n, " (%s)",
                         rf_time_format(t, sizeof t, e->load_s, 3));
        } else if (e && e->measured && e->fused_into >= 0 &&
                   (uint32_t)e->fused_into < g->n_layers) {
            size_t n = strlen(shape); /* the row keeps its share; the note says whose kernel */
            snprintf(shape + n, sizeof shape - n, " fused into %s", g->layers[e->fused_into].name);
        } else if (e && !e->measured) { /* every row the executor did not run says why */
            size_t n = strlen(shape);
            snprintf(shape + n, sizeof shape - n, "%snot measured: %s", n ? " " : "",
                     e->reason[0] ? e->reason : "no reason given");
        }
        if (e && e->measured && e->median_s > 0) {
            rf_measured m = {e->median_s, e->min_s, e->max_s, x->runs};
            RF_TRY(rf_analysis_add_measured(an, l->name, strlen(l->name), l->op_type, shape, 1, f,
                                            b, &m));
        } else {
            RF_TRY(
                rf_analysis_add_detail(an, l->name, strlen(l->name), l->op_type, shape, 1, f, b));
        }
    }
    (void)ctx;
    RF_TRY(rf_analysis_set_busy(an, x->busy_other));
    /* a partial pass has no whole-pass time: its wall time is of the layers that ran only */
    rf_profile_coverage cv;
    rf_profile_measured_coverage(p, &cv);
    return x->wall_median_s > 0 && cv.ran == cv.layers ? rf_analysis_set_wall(an, x->wall_median_s)
                                                       : RF_OK;
}

rf_status rf_profile_measure(rf_ctx *ctx, rf_profile *p, const rf_machine *m, size_t compute,
                             size_t bandwidth, const rf_exec_opts *eo)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, p && p->graph && p->cost && p->result && m, RF_USAGE,
             "rf_profile_measure: a profile and a machine are required");
    rf_exec_result_free(p->exec);
    p->exec = NULL;
    if (eo && eo->max_flops > 0 && p->cost->flops > eo->max_flops) { /* before any allocation */
        rf__error(ctx, RF_RANGE, -1,
                  "one pass of the model is %.3g FLOP, over the work budget of %.3g FLOP "
                  "(--max-flops)",
                  p->cost->flops, eo->max_flops);
        return rf__error_name(ctx, p->source);
    }
    rf_status xs = rf_exec_run(ctx, p->graph, eo, &p->exec);
    if (xs != RF_OK) /* a tensor too large to hold, ...: the line names the file */
        return rf_status_is_input_error(xs) ? rf__error_name(ctx, p->source) : xs;
    rf_analysis *an = NULL;
    rf_result *r = NULL;
    RF_TRY(rf_analysis_new(ctx, m, compute, bandwidth, RF_SORT_INPUT, 0, &an));
    rf_status st = rf__measured_rows(ctx, p, an);
    /* a partial pass says so in the title, so the chart's subtitle and the JSON carry it too */
    char title[RF_TEXT_MAX];
    size_t tl = 0;
    rf_profile_coverage cv;
    rf_profile_measured_coverage(p, &cv);
    title[0] = '\0';
    rf__appendf(title, sizeof title, &tl, "%s", p->result->title);
    if (cv.ran < cv.layers)
        rf__appendf(title, sizeof title, &tl,
                    " (partial pass: %u of %u layers, %.1f%% of the FLOPs measured)", cv.ran,
                    cv.layers, cv.flops > 0 ? 100 * cv.ran_flops / cv.flops : 0.0);
    char lt[32];
    if (cv.folded)
        rf__appendf(title, sizeof title, &tl,
                    " (%u of %u layers folded: constants, computed once at load in %s, not in "
                    "the pass)",
                    cv.folded, cv.layers, rf_time_format(lt, sizeof lt, p->exec->load_s, 3));
    if (st == RF_OK) st = rf_analysis_finish(an, title, &r);
    rf_analysis_free(an);
    if (st != RF_OK) return st;
    rf_result_free(p->result);
    p->result = r;
    return RF_OK;
}

void rf_profile_measured_coverage(const rf_profile *p, rf_profile_coverage *out)
{
    memset(out, 0, sizeof *out);
    out->first = UINT32_MAX;
    if (!p || !p->exec || !p->graph || !p->cost) return;
    const rf_exec_result *x = p->exec;
    for (uint32_t i = 0; i < p->graph->n_layers && i < p->cost->n_layers; i++) {
        const rf_layer_cost *c = &p->cost->layers[i];
        if (c->known && c->flops == 0 && c->bytes == 0) continue; /* metadata: not listed */
        double f = c->known ? c->flops : 0;
        out->layers++;
        out->flops += f;
        if (i < x->n_layers && x->layers[i].measured) {
            out->folded += (uint32_t)(x->layers[i].folded != 0);
            out->ran++;
            out->ran_flops += f;
        } else if (out->first == UINT32_MAX) {
            out->first = i;
        }
    }
}

rf_status rf_profile_check_measured(rf_ctx *ctx, const rf_profile *p, const char *name)
{
    RF_CHECK(ctx, p, RF_USAGE, "rf_profile_check_measured: missing argument");
    rf_profile_coverage cv;
    rf_profile_measured_coverage(p, &cv);
    if (!p->exec || cv.ran == cv.layers) return RF_OK;
    const rf_layer *l = &p->graph->layers[cv.first];
    const char *why = cv.first < p->exec->n_layers ? p->exec->layers[cv.first].reason : "";
    return rf__error(ctx, RF_FORMAT, -1,
                     "%s: a partial pass: %u of %u layers, %.1f%% of the FLOPs measured; %u not "
                     "run, first %s '%s': %s (--allow-unmeasured accepts that)",
                     name && name[0] ? name : "model", cv.ran, cv.layers,
                     cv.flops > 0 ? 100 * cv.ran_flops / cv.flops : 0.0, cv.layers - cv.ran,
                     l->op_type, l->name, why[0] ? why : "no reason given");
}

int rf_profile_lower_bound(const rf_profile *p)
{
    uint32_t listed = p && p->graph ? p->graph->n_layers - p->skipped : 0;
    return p && p->cost && p->cost->n_unknown && (uint64_t)p->cost->n_unknown * 10 > listed;
}

rf_status rf_profile_check_defined(rf_ctx *ctx, const rf_profile *p, const char *name)
{
    RF_CHECK(ctx, p, RF_USAGE, "rf_profile_check_defined: missing argument");
    if (!rf_profile_lower_bound(p)) return RF_OK;
    return rf__error(ctx, RF_FORMAT, -1,
                     "%s: %u of %u layers have no cost (undefined): the totals are a lower "
                     "bound (--allow-undefined accepts that)",
                     name && name[0] ? name : "model", p->cost->n_unknown,
                     p->graph->n_layers - p->skipped);
}
