/* llm_out.c — printing for `roofline llm`: the per-layer table of one phase (the repeated
 * decoder block once with its x N, plus the layers outside it; bytes split into weights,
 * activations in/out, KV read and write; bits per weight), and the same rows as CSV or JSON.
 * Figures come from the library (rf_llm_cost, rf_roof_eval); nothing here computes a cost. */
#include <math.h>
#include <string.h>

#include "llm_out.h"

/* "10.5 us" */
const char *rf_llm_time(char *buf, size_t n, double t)
{
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    double v = t * 1e9;
    int k = 0;
    if (!isfinite(t)) {
        snprintf(buf, n, "-");
        return buf;
    }
    while (k < 3 && v >= 1000) v /= 1000, k++;
    snprintf(buf, n, "%.3g %s", v, unit[k]);
    return buf;
}

static const char *rf__si(char *buf, size_t n, double v)
{
    return v == 0 ? (snprintf(buf, n, "0"), buf) : rf_si_format_compact(buf, n, v, "");
}

/* Bits per weight of a layer's weight inputs, or "" when it has none. */
static const char *rf__bpw(char *buf, size_t n, const rf_layer *l, const rf_layer_cost *c)
{
    /* a gather reads rows, not the table its params count */
    if (!c->params || c->weight_bytes == 0 || l->kind == RF_OP_GATHER) return "";
    snprintf(buf, n, "%.2f", 8 * c->weight_bytes / (double)c->params);
    return buf;
}

void rf_llm_print_phase(const rf_llm_phase_out *p)
{
    char f[16], w[16], ai[16], ao[16], kr[16], kw[16], a[16], t[24], b[16];
    printf("\n%s (x: instances of the layer; figures are totals over them)\n", p->title);
    printf("  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s %6s %5s\n", "layer", "op", "x",
           "FLOPs", "weights", "act in", "act out", "KV rd", "KV wr", "AI", "bound", "time",
           "share", "bpw");
    for (uint32_t i = 0; i < p->g->n_layers; i++) {
        const rf_layer *l = &p->g->layers[i];
        const rf_layer_cost *c = &p->c->layers[i];
        if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
        const rf_eval *e = &p->evals[i];
        char x[24];
        snprintf(x, sizeof x, "%llu", (unsigned long long)(l->repeat ? l->repeat : 1));
        printf("  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s %5.1f%% %5s\n", l->name,
               l->op_type, x, rf__si(f, sizeof f, c->flops), rf__si(w, sizeof w, c->weight_bytes),
               rf__si(ai, sizeof ai, c->input_bytes), rf__si(ao, sizeof ao, c->output_bytes),
               rf__si(kr, sizeof kr, c->kv_read_bytes), rf__si(kw, sizeof kw, c->kv_write_bytes),
               rf__si(a, sizeof a, e->ai), rf_bound_name(e->bound),
               rf_llm_time(t, sizeof t, e->time_s),
               p->time_s > 0 ? 100 * e->time_s / p->time_s : 0.0, rf__bpw(b, sizeof b, l, c));
    }
    printf("  %-24s %-15s %5s %7s %7s %7s %7s %7s %7s %7s %-8s %9s\n", "total", "", "",
           rf__si(f, sizeof f, p->c->flops), rf__si(w, sizeof w, p->c->weight_bytes),
           rf__si(ai, sizeof ai, p->c->input_bytes), rf__si(ao, sizeof ao, p->c->output_bytes),
           rf__si(kr, sizeof kr, p->c->kv_read_bytes), rf__si(kw, sizeof kw, p->c->kv_write_bytes),
           rf__si(a, sizeof a, p->c->bytes > 0 ? p->c->flops / p->c->bytes : INFINITY),
           p->c->flops / (p->c->bytes > 0 ? p->c->bytes : 1) >= p->ridge ? "compute" : "memory",
           rf_llm_time(t, sizeof t, p->time_s));
    printf("  matmul FLOPs (2 x multiply-adds, no bias): %.0f\n", p->c->matmul_conv_flops);
}

void rf_llm_csv_phase(const rf_llm_phase_out *p, int header)
{
    if (header)
        printf("phase,layer,op,repeat,flops,weight_bytes,input_bytes,output_bytes,kv_read_bytes,"
               "kv_write_bytes,bytes,ai,bound,time_s\n");
    for (uint32_t i = 0; i < p->g->n_layers; i++) {
        const rf_layer_cost *c = &p->c->layers[i];
        const rf_eval *e = &p->evals[i];
        if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
        printf("%s,%s,%s,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g\n", p->name,
               p->g->layers[i].name, p->g->layers[i].op_type,
               (unsigned long long)p->g->layers[i].repeat, c->flops, c->weight_bytes,
               c->input_bytes, c->output_bytes, c->kv_read_bytes, c->kv_write_bytes, c->bytes,
               e->ai, rf_bound_name(e->bound), e->time_s);
    }
}

/* A JSON number: non-finite values as null. */
static void rf__jnum(const char *key, double v, const char *sep)
{
    if (isfinite(v))
        printf("\"%s\": %.17g%s", key, v, sep);
    else
        printf("\"%s\": null%s", key, sep);
}

/* A JSON string with quotes, backslashes and control bytes escaped. */
void rf_llm_jstr(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

void rf_llm_json_phase(const rf_llm_phase_out *p)
{
    printf("\"%s\": {", p->name);
    rf__jnum("batch", (double)p->batch, ", ");
    rf__jnum("tokens", (double)p->tokens, ", ");
    rf__jnum("positions", (double)p->positions, ", ");
    rf__jnum("flops", p->c->flops, ", ");
    rf__jnum("matmul_flops", p->c->matmul_conv_flops, ", ");
    rf__jnum("bytes", p->c->bytes, ", ");
    rf__jnum("weight_bytes", p->c->weight_bytes, ", ");
    rf__jnum("input_bytes", p->c->input_bytes, ", ");
    rf__jnum("output_bytes", p->c->output_bytes, ", ");
    rf__jnum("kv_read_bytes", p->c->kv_read_bytes, ", ");
    rf__jnum("kv_write_bytes", p->c->kv_write_bytes, ", ");
    rf__jnum("time_s", p->time_s, ", ");
    printf("\"layers\": [");
    int first = 1;
    for (uint32_t i = 0; i < p->g->n_layers; i++) {
        const rf_layer_cost *c = &p->c->layers[i];
        const rf_eval *e = &p->evals[i];
        if (!c->known || (c->flops == 0 && c->bytes == 0)) continue;
        printf("%s\n    {\"name\": ", first ? "" : ",");
        rf_llm_jstr(p->g->layers[i].name);
        printf(", \"op\": \"%s\", ", p->g->layers[i].op_type);
        first = 0;
        rf__jnum("repeat", (double)p->g->layers[i].repeat, ", ");
        rf__jnum("flops", c->flops, ", ");
        rf__jnum("weight_bytes", c->weight_bytes, ", ");
        rf__jnum("input_bytes", c->input_bytes, ", ");
        rf__jnum("output_bytes", c->output_bytes, ", ");
        rf__jnum("kv_read_bytes", c->kv_read_bytes, ", ");
        rf__jnum("kv_write_bytes", c->kv_write_bytes, ", ");
        rf__jnum("params", (double)c->params, ", ");
        rf__jnum("ai", e->ai, ", ");
        printf("\"bound\": \"%s\", ", rf_bound_name(e->bound));
        rf__jnum("time_s", e->time_s, "}");
    }
    printf("]}");
}
