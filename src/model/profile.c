/* profile.c — `roofline profile` as one library call: load a model file (or the built-in demo),
 * cost every layer and evaluate it on the roof, titled by the file and its input shapes (so two
 * profiles of one model under other shapes tell apart as chart series). Never prints: the reports
 * are src/report's (rf_report_profile_summary, rf_report_profile_compare). */
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/model.h"

/* "PATH (FORMAT, opset N) input=1x3x224x224 ..." */
static void rf__title(const rf_graph *g, const char *path, char *title, size_t cap)
{
    size_t tl = (size_t)snprintf(title, cap, "%s (%s", path ? path : "built-in demo: ResNet-18",
                                 g->format);
    if (g->opset && tl < cap)
        tl += (size_t)snprintf(title + tl, cap - tl, ", opset %lld", (long long)g->opset);
    if (tl < cap) tl += (size_t)snprintf(title + tl, cap - tl, ")");
    for (uint32_t i = 0; i < g->n_tensors && tl < cap; i++) {
        const rf_tensor *t = &g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        tl += (size_t)snprintf(title + tl, cap - tl, " %s=", t->name);
        for (uint32_t d = 0; d < t->rank && tl < cap; d++)
            tl += (size_t)snprintf(title + tl, cap - tl, d ? "x%lld" : "%lld",
                                   (long long)t->dims[d]);
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
    rf_status st = rf__profile(ctx, path, mo, m, compute, bandwidth, p);
    if (st != RF_OK) {
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
    rf_result_free(p->result);
    rf_cost_free(p->cost);
    rf_graph_free(p->graph);
    rf__free_with(&a, p);
}
