/* cmd_profile.c — `roofline profile MODEL`: per-layer FLOPs, bytes, intensity and bound of a model
 * file (ONNX now; GGUF/SafeTensors through the same rf_model_load), the model's totals, the
 * slowest layers, and with --compare the shift of intensity and bound under other input shapes.
 * Printing only: loading, costs and evaluation are library calls. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const rf_cli_opt rf__profile_opts[] = {
    RF_CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "batch size: axis 0 of every model input"},
    {"seq", 0, "N", "sequence length: axis 1 of every rank-2/3 model input"},
    {"input", 'i', "NAME=DIMS[,...]", "input shape, e.g. input=1x3x512x512 (several: comma)"},
    {"dim", 'd', "SYM=N[,...]", "value of a symbolic dimension, e.g. batch=8"},
    {"compare", 0, "NAME=DIMS[,...]", "profile again with these input shapes and show the shift"},
    {"top", 't', "N", "list the N slowest layers (default: 5; 0: none)"},
    {"granular", 0, NULL, "LLMs: list every block's layers, not the repeated block once x N"},
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"chart", 0, NULL, "add the ASCII roofline chart (table format)"},
    {"plot", 0, "FILE.svg|FILE.html|-",
     "also draw the chart as SVG or an interactive HTML page "
     "(with --compare: both input shapes as series)"},
    {0, 0, 0, 0},
};

/* Parse "a=..,b=.." bindings (is_dim) into b[*n]. */
static int rf__bindings(const rf_cli_cmd *cmd, rf_ctx *ctx, const char *opt, const char *text,
                        int is_dim, rf_shape_binding *b, size_t cap, size_t *n)
{
    char buf[1024];
    if (!text) return 0;
    if (strlen(text) >= sizeof buf) return rf_cli_usage_error(cmd, "--%s: value too long", opt);
    memcpy(buf, text, strlen(text) + 1);
    for (char *s = buf, *e; s && *s; s = e) {
        e = strchr(s, ',');
        if (e) *e++ = '\0';
        if (*n == cap) return rf_cli_usage_error(cmd, "--%s: too many bindings", opt);
        if (rf_shape_binding_parse(ctx, s, is_dim, &b[*n]) != RF_OK)
            return rf_cli_usage_error(cmd, "%s", rf_ctx_errmsg(ctx));
        (*n)++;
    }
    return 0;
}

typedef struct rf__prof {
    rf_graph *g;
    rf_cost *c;
    rf_result *r;
    uint32_t skipped;
} rf__prof;

static void rf__prof_free(rf__prof *p)
{
    rf_result_free(p->r);
    rf_cost_free(p->c);
    rf_graph_free(p->g);
}

static rf_status rf__run(rf_ctx *ctx, const char *path, const rf_model_opts *mo,
                         const rf_machine *m, size_t ci, size_t bi, rf__prof *p)
{
    rf_analysis *an = NULL;
    char title[512];
    if (path)
        RF_TRY_CLI(rf_model_load(ctx, path, mo, &p->g));
    else {
        size_t n;
        const void *d = rf_demo_model(&n);
        RF_TRY_CLI(rf_model_load_mem(ctx, d, n, "resnet18 (built-in)", mo, &p->g));
    }
    RF_TRY_CLI(rf_graph_cost(ctx, p->g, &p->c));
    RF_TRY_CLI(rf_analysis_new(ctx, m, ci, bi, RF_SORT_INPUT, 0, &an));
    rf_status st = rf_graph_analysis_add(ctx, an, p->g, p->c, &p->skipped);
    size_t tl = (size_t)snprintf(title, sizeof title, "%s (%s",
                                 path ? path : "built-in demo: ResNet-18", p->g->format);
    if (p->g->opset && tl < sizeof title)
        tl +=
            (size_t)snprintf(title + tl, sizeof title - tl, ", opset %lld", (long long)p->g->opset);
    if (tl < sizeof title) tl += (size_t)snprintf(title + tl, sizeof title - tl, ")");
    /* The input shapes tell two runs of one model apart (--compare, the chart's series). */
    for (uint32_t i = 0; i < p->g->n_tensors && tl < sizeof title; i++) {
        const rf_tensor *t = &p->g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        tl += (size_t)snprintf(title + tl, sizeof title - tl, " %s=", t->name);
        for (uint32_t d = 0; d < t->rank && tl < sizeof title; d++)
            tl += (size_t)snprintf(title + tl, sizeof title - tl, d ? "x%lld" : "%lld",
                                   (long long)t->dims[d]);
    }
    if (st == RF_OK) st = rf_analysis_finish(an, title, &p->r);
    rf_analysis_free(an);
    return st;
}

/* Model totals: FLOPs as FLOPs and MACs, params, weight bytes, skipped and undefined layers. */
static void rf__model_summary(const rf__prof *p)
{
    char a[32], b[32], c[32], d[32];
    const rf_cost *k = p->c;
    printf("model: %u layers (%u cost-free metadata layer%s not listed), %llu params, %sB of "
           "weights\n",
           p->g->n_layers, p->skipped, p->skipped == 1 ? "" : "s", (unsigned long long)p->g->params,
           rf_si_format_compact(a, sizeof a, (double)p->g->weight_bytes, ""));
    printf("       %sFLOP in all (= %s multiply-adds); Conv/Gemm/MatMul %sFLOP = %sMAC\n",
           rf_si_format_compact(a, sizeof a, k->flops, ""),
           rf_si_format_compact(b, sizeof b, k->flops / 2, ""),
           rf_si_format_compact(c, sizeof c, k->matmul_conv_flops, ""),
           rf_si_format_compact(d, sizeof d, k->matmul_conv_flops / 2, ""));
    if (k->n_unknown) {
        printf("       %u layer%s undefined (op types:", k->n_unknown,
               k->n_unknown == 1 ? "" : "s");
        for (uint32_t i = 0; i < k->n_unknown_ops; i++) printf(" %s", k->unknown_ops[i]);
        printf(")\n");
    }
}

/* "10.5 us": a time with an SI prefix. */
static const char *rf__time(char *buf, size_t n, double t)
{
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    double v = t * 1e9;
    int k = 0;
    while (k < 3 && v >= 1000) v /= 1000, k++;
    snprintf(buf, n, "%.3g %s", v, unit[k]);
    return buf;
}

static int rf__by_time(const void *x, const void *y)
{
    const rf_row *a = *(const rf_row *const *)x, *b = *(const rf_row *const *)y;
    if (a->e.time_s != b->e.time_s) return a->e.time_s < b->e.time_s ? 1 : -1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void rf__slowest(const rf_result *r, unsigned long long top)
{
    const rf_row **v = malloc((r->n_rows + 1) * sizeof *v);
    char t[32];
    if (!v || !top) {
        free(v);
        return;
    }
    for (size_t i = 0; i < r->n_rows; i++) v[i] = &r->rows[i];
    qsort(v, r->n_rows, sizeof *v, rf__by_time);
    printf("\nslowest %llu layers:\n", top < r->n_rows ? top : (unsigned long long)r->n_rows);
    for (size_t i = 0; i < r->n_rows && i < top; i++)
        printf("  %2zu. %-40s %-18s %9s  %5.1f%%  %s\n", i + 1, v[i]->name,
               v[i]->op ? v[i]->op : "", rf__time(t, sizeof t, v[i]->e.time_s),
               r->totals.time_s > 0 ? 100 * v[i]->e.time_s / r->totals.time_s : 0.0,
               rf_bound_name(v[i]->e.bound));
    free(v);
}

/* --compare: the same model under a second set of input shapes, layer by layer (by name). */
static void rf__compare(const rf__prof *a, const rf__prof *b, const char *what)
{
    char x[32], y[32], t1[32], t2[32];
    printf("\ncompare: %s\n", what);
    printf("  %-40s %9s %9s  %-8s %-8s %9s %9s\n", "layer", "AI", "AI'", "bound", "bound'", "time",
           "time'");
    size_t j = 0, changed = 0;
    for (size_t i = 0; i < a->r->n_rows; i++) {
        const rf_row *ra = &a->r->rows[i], *rb = NULL;
        for (size_t k = 0; k < b->r->n_rows && !rb; k++, j = (j + 1) % b->r->n_rows)
            if (strcmp(b->r->rows[j].name, ra->name) == 0) rb = &b->r->rows[j];
        if (!rb) continue;
        changed += ra->e.bound != rb->e.bound;
        printf("  %-40s %9s %9s  %-8s %-8s %9s %9s\n", ra->name,
               rf_si_format_compact(x, sizeof x, ra->e.ai, ""),
               rf_si_format_compact(y, sizeof y, rb->e.ai, ""), rf_bound_name(ra->e.bound),
               rf_bound_name(rb->e.bound), rf__time(t1, sizeof t1, ra->e.time_s),
               rf__time(t2, sizeof t2, rb->e.time_s));
    }
    printf("  total: AI %s -> %s FLOP/byte, time %s -> %s; %zu layer%s changed bound\n",
           rf_si_format_compact(x, sizeof x, a->r->totals.ai, ""),
           rf_si_format_compact(y, sizeof y, b->r->totals.ai, ""),
           rf__time(t1, sizeof t1, a->r->totals.time_s),
           rf__time(t2, sizeof t2, b->r->totals.time_s), changed, changed == 1 ? "" : "s");
}

/* Shared by `profile` and the demo: load `path` (NULL: the built-in demo) and print. */
int rf_cli_profile_run(const rf_cli_cmd *cmd, const rf_cli_args *a, const char *path,
                       const char *fallback_machine)
{
    rf_shape_binding b[32], b2[32];
    size_t nb = 0, nb2 = 0;
    unsigned long long batch = 0, seq = 0, top = 5;
    const char *format = rf_cli_format(cmd, a);
    if (!format) return RF_EXIT_USAGE;
    const char *plot = rf_cli_get(a, "plot");
    if (plot && rf_cli_plot_check(cmd->name, plot)) return RF_EXIT_USAGE;
    if (rf_cli_get(a, "batch") &&
        rf_cli_uint(cmd, "batch", rf_cli_get(a, "batch"), 1, 1ULL << 30, &batch))
        return RF_EXIT_USAGE;
    if (rf_cli_get(a, "seq") && rf_cli_uint(cmd, "seq", rf_cli_get(a, "seq"), 1, 1ULL << 30, &seq))
        return RF_EXIT_USAGE;
    if (rf_cli_get(a, "top") && rf_cli_uint(cmd, "top", rf_cli_get(a, "top"), 0, 1ULL << 30, &top))
        return RF_EXIT_USAGE;
    rf_ctx *ctx = rf_cli_ctx();
    if (!ctx) return RF_EXIT_INTERNAL;
    int rc = rf__bindings(cmd, ctx, "input", rf_cli_get(a, "input"), 0, b, 16, &nb);
    if (!rc) rc = rf__bindings(cmd, ctx, "dim", rf_cli_get(a, "dim"), 1, b, 32, &nb);
    for (size_t i = 0; !rc && i < nb; i++) b2[nb2++] = b[i];
    if (!rc) rc = rf__bindings(cmd, ctx, "compare", rf_cli_get(a, "compare"), 0, b2, 32, &nb2);
    if (rc) {
        rf_ctx_free(ctx);
        return rc;
    }
    rf_model_opts mo = {RF_MODEL_AUTO, b, nb, batch, seq, rf_cli_get(a, "granular") != NULL},
                  mo2 = mo;
    mo2.bindings = b2;
    mo2.n_bindings = nb2;
    rf_machine *m = NULL;
    rf__prof p1 = {0}, p2 = {0};
    size_t ci, bi;
    rf_status st = rf_cli_machine(ctx, a, fallback_machine, &m, &ci, &bi);
    if (st != RF_OK && fallback_machine && !rf_cli_get(a, "hw"))
        st = rf_cli_machine(ctx, a, RF_DEMO_MACHINE, &m, &ci, &bi);
    if (st == RF_OK) st = rf__run(ctx, path, &mo, m, ci, bi, &p1);
    if (st == RF_OK && rf_cli_get(a, "compare")) st = rf__run(ctx, path, &mo2, m, ci, bi, &p2);
    if (st == RF_OK) {
        int table = strcmp(format, "table") == 0;
        /* the demo (fallback machine set) shows the chart and the summary unless --no-chart */
        int demo = fallback_machine != NULL;
        int chart = demo ? !rf_cli_get(a, "no-chart") : rf_cli_get(a, "chart") != NULL;
        int to_stdout = plot && strcmp(plot, "-") == 0; /* the SVG replaces the report */
        if (!to_stdout) rc = rf_cli_print_result(ctx, p1.r, m, format, table && chart, demo);
        if (!rc && table && !to_stdout) {
            printf("\n");
            rf__model_summary(&p1);
            rf__slowest(p1.r, top);
            if (p2.r) rf__compare(&p1, &p2, rf_cli_get(a, "compare"));
            if (rf_cli_flush(ctx) != RF_OK) rc = rf_cli_fail(ctx, RF_IO);
        }
        const rf_result *series[2] = {p1.r, p2.r};
        if (!rc && plot) rc = rf_cli_plot(ctx, series, p2.r ? 2 : 1, m, plot);
    } else {
        rc = rf_cli_fail(ctx, st);
    }
    rf__prof_free(&p1);
    rf__prof_free(&p2);
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return rc;
}

static int rf__profile(const rf_cli_cmd *cmd, int argc, char **argv)
{
    rf_cli_args a;
    int done, rc = rf_cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos != 1)
        return rf_cli_usage_error(cmd,
                                  a.n_pos ? "one model file at a time" : "a model file is needed");
    return rf_cli_profile_run(cmd, &a, a.pos[0], NULL);
}

const rf_cli_cmd rf_cmd_profile = {
    "profile",
    "profile [OPTIONS] MODEL.onnx",
    "per-layer roofline analysis of a model file",
    "Reads the model's graph (ONNX: nodes, attributes, initializer shapes; GGUF, SafeTensors and "
    "aprender/realizar .apr: the transformer built from the header, --granular for every block; "
    "weights are never loaded and external weight files need not exist), infers every tensor's "
    "shape from the inputs (--input, --dim, --batch, --seq), counts FLOPs and bytes per layer "
    "(docs/cost-model.md) and evaluates each layer against the machine: one row per layer with "
    "its output shape, then the model's totals (FLOPs and MACs, params, weight bytes) and the "
    "slowest layers. --compare profiles again with other input shapes and shows how intensity and "
    "bound shift.",
    rf__profile_opts,
    rf__profile,
};
