/* cost.c — rf_graph_cost: FLOPs (cost_ops.c) and bytes of every layer under the default traffic
 * model (docs/cost-model.md "Bytes": every weight, input and output once, at its storage size;
 * metadata ops move nothing; Gather reads only the rows it gathers), times the layer's repeat
 * count, with totals and the list of unknown op types (one warning). Never parses, never prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph_int.h"

#define RF__EXACT ((uint64_t)1 << 53) /* doubles hold integers exactly up to here */

/* Bytes of one tensor, or 0 with *ok cleared when its size is unknown. */
static uint64_t rf__tbytes(const rf_tensor *t, int *ok)
{
    uint64_t b;
    if (rf_tensor_bytes(t, &b)) return b;
    if (t->dtype == RF_DTYPE_STRING && rf__shape_full(t)) return 0;
    *ok = 0;
    return 0;
}

/* Sort the bytes of layer l into the five classes. Returns 0 with *why when a size is unknown. */
static int rf__layer_bytes(const rf_graph *g, const rf_layer *l, rf_layer_cost *c, const char **why)
{
    int ok = 1;
    if (l->kind == RF_OP_METADATA || l->kind == RF_OP_CONSTANT) return 1; /* "Metadata" */
    for (uint32_t i = 0; i < l->n_inputs; i++) {
        const rf_tensor *t = rf__lin(g, l, i);
        if (!t) continue;
        uint64_t b = rf__tbytes(t, &ok);
        if (l->kind == RF_OP_GATHER && i == 0) { /* "Gather": rows read = output size */
            const rf_tensor *y = rf__lout(g, l, 0);
            uint64_t yb = y ? rf__tbytes(y, &ok) : 0;
            b = yb < b ? yb : b;
        }
        uint64_t n;
        if (t->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_CONST_WEIGHT)) {
            c->weight_bytes += (double)b;
            if (rf_tensor_elems(t, &n)) c->params += n;
        } else if (t->flags & RF_TENSOR_KV) {
            c->kv_read_bytes += (double)b;
        } else {
            c->input_bytes += (double)b;
        }
    }
    for (uint32_t i = 0; i < l->n_outputs; i++) {
        const rf_tensor *t = rf__lout(g, l, i);
        uint64_t b = rf__tbytes(t, &ok);
        if (t->flags & RF_TENSOR_KV)
            c->kv_write_bytes += (double)b;
        else
            c->output_bytes += (double)b;
    }
    if (!ok) *why = "tensor size unknown";
    return ok;
}

static void rf__scale(rf_layer_cost *c, double r)
{
    c->flops *= r;
    c->bias_flops *= r;
    c->weight_bytes *= r;
    c->input_bytes *= r;
    c->output_bytes *= r;
    c->kv_read_bytes *= r;
    c->kv_write_bytes *= r;
}

/* Cost of layer i into c; returns the bias-free matrix FLOPs through *mm. */
static void rf__layer_cost(const rf_graph *g, const rf_layer *l, rf_layer_cost *c, double *mm)
{
    const char *why = NULL;
    uint64_t core = 0, extra = 0, flops = 0;
    memset(c, 0, sizeof *c);
    *mm = 0;
    int ok = rf__layer_flops(g, l, &core, &extra, &why);
    if (ok && (!rf__add_ok(core, extra, &flops) || flops > RF__EXACT)) {
        ok = 0;
        why = "counts overflow";
    }
    if (ok) ok = rf__layer_bytes(g, l, c, &why);
    if (!ok) {
        memset(c, 0, sizeof *c);
        rf__strlcpy(c->reason, why ? why : "unknown", sizeof c->reason);
        return;
    }
    c->known = 1;
    c->flops = (double)flops;
    c->bias_flops = (double)extra;
    double r = (double)(l->repeat ? l->repeat : 1);
    rf__scale(c, r);
    c->params *= l->repeat ? l->repeat : 1;
    c->bytes =
        c->weight_bytes + c->input_bytes + c->output_bytes + c->kv_read_bytes + c->kv_write_bytes;
    int is_mm = l->kind == RF_OP_CONV || l->kind == RF_OP_CONV_TRANSPOSE || l->kind == RF_OP_GEMM ||
                l->kind == RF_OP_MATMUL || l->kind == RF_OP_ATTENTION;
    *mm = is_mm ? (double)core * r : 0;
}

/* Record op type `t` in the cost's list of unknown types once. */
static rf_status rf__note_unknown(rf_ctx *ctx, rf_cost *c, const char *t, size_t *cap)
{
    for (uint32_t i = 0; i < c->n_unknown_ops; i++)
        if (strcmp(c->unknown_ops[i], t) == 0) return RF_OK;
    RF_TRY(rf__grow(ctx, (void **)&c->unknown_ops, cap, (size_t)c->n_unknown_ops + 1,
                    sizeof *c->unknown_ops));
    char *d = rf__strdup(ctx, t);
    if (!d) return RF_NOMEM_ERR(ctx);
    c->unknown_ops[c->n_unknown_ops++] = d;
    return RF_OK;
}

/* "domain:Op" for an op of another domain than ONNX's own, else "Op". */
static const char *rf__qualified(const rf_layer *l, char *buf, size_t cap)
{
    if (!l->domain[0] || strcmp(l->domain, "ai.onnx") == 0) return l->op_type;
    snprintf(buf, cap, "%s:%s", l->domain, l->op_type);
    return buf;
}

/* The branch If group `grp` takes (0 then, 1 else) when shape inference found its condition's
 * value (the condition input of its rf_IfSelect outputs), with the If's name in *node; -1 when it
 * did not. */
static int rf__if_taken(const rf_graph *g, int64_t grp, const char **node)
{
    int taken = -1;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        const rf_attr *a = rf_layer_attr(l, "rf_if_select");
        const int64_t *c;
        if (!a || a->i != grp || l->n_inputs != 3) continue;
        const rf_attr *n = rf_layer_attr(l, "rf_if_node");
        if (n && n->type == RF_ATTR_STRING) *node = n->s;
        if (rf__vals(g, l, 0, &c) >= 1) taken = c[0] == 0;
    }
    return taken;
}

/* The branch of If group `grp` a layer's rf_if_path ("1:0/3:1") puts it on; -1: not in it. */
static int rf__if_branch(const rf_layer *l, int64_t grp)
{
    const rf_attr *a = rf_layer_attr(l, "rf_if_path");
    if (!a || a->type != RF_ATTR_STRING || !a->s) return -1;
    for (const char *p = a->s; *p;) {
        char *end;
        long long gid = strtoll(p, &end, 10);
        if (*end != ':') return -1;
        int br = end[1] == '1';
        if (gid == grp) return br;
        p = strchr(end, '/');
        if (!p) return -1;
        p++;
    }
    return -1;
}

void rf__if_dropped_mask(const rf_graph *g, uint8_t *mask)
{
    int64_t max_grp = 0;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_attr *a = rf_layer_attr(&g->layers[i], "rf_if_select");
        if (a && a->i > max_grp) max_grp = a->i;
    }
    for (int64_t grp = 1; grp <= max_grp; grp++) {
        const char *node = NULL;
        int taken = rf__if_taken(g, grp, &node);
        for (uint32_t i = 0; taken >= 0 && i < g->n_layers; i++)
            if (rf__if_branch(&g->layers[i], grp) == !taken) mask[i] = 1;
    }
}

/* If nodes whose condition was unknown when read (onnx_node.c inlined both branches, each layer
 * tagged with the Ifs it sits in): the branch the inferred condition takes, or else the larger
 * (by FLOPs, then bytes) with one warning showing both; the other's layers, nested Ifs included,
 * become cost-free (listed nowhere, out of the totals). Outer Ifs first (lower group numbers). */
static void rf__if_groups(rf_ctx *ctx, const rf_graph *g, rf_cost *c, uint8_t *dropped)
{
    int64_t max_grp = 0;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_attr *a = rf_layer_attr(&g->layers[i], "rf_if_select");
        if (a && a->i > max_grp) max_grp = a->i;
        const rf_attr *p = rf_layer_attr(&g->layers[i], "rf_if_path");
        if (p && p->type == RF_ATTR_STRING && p->s && strtoll(p->s, NULL, 10) > max_grp)
            max_grp = strtoll(p->s, NULL, 10);
    }
    for (int64_t grp = 1; grp <= max_grp; grp++) {
        double f[2] = {0, 0}, b[2] = {0, 0};
        const char *node = NULL;
        int live = 0;
        for (uint32_t i = 0; i < g->n_layers && i < c->n_layers; i++) {
            int br = rf__if_branch(&g->layers[i], grp);
            if (br < 0 || dropped[i]) continue;
            live = 1;
            if (!c->layers[i].known) continue;
            f[br] += c->layers[i].flops;
            b[br] += c->layers[i].bytes;
        }
        if (!live) continue; /* inside a branch already dropped, or empty */
        int drop = f[1] > f[0] || (f[1] == f[0] && b[1] > b[0]) ? 0 : 1;
        int taken = rf__if_taken(g, grp, &node); /* known once shapes were inferred */
        if (taken >= 0) drop = !taken;
        for (uint32_t i = 0; i < g->n_layers && i < c->n_layers; i++) {
            rf_layer_cost *lc = &c->layers[i];
            if (rf__if_branch(&g->layers[i], grp) != drop || dropped[i]) continue;
            if (lc->known) {
                c->flops -= lc->flops;
                c->bytes -= lc->bytes;
                c->weight_bytes -= lc->weight_bytes;
                c->input_bytes -= lc->input_bytes;
                c->output_bytes -= lc->output_bytes;
                c->kv_read_bytes -= lc->kv_read_bytes;
                c->kv_write_bytes -= lc->kv_write_bytes;
                const rf_layer *l = &g->layers[i];
                if (l->kind == RF_OP_CONV || l->kind == RF_OP_CONV_TRANSPOSE ||
                    l->kind == RF_OP_GEMM || l->kind == RF_OP_MATMUL || l->kind == RF_OP_ATTENTION)
                    c->matmul_conv_flops -= lc->flops - lc->bias_flops;
            } else if (c->n_unknown) {
                c->n_unknown--;
            }
            memset(lc, 0, sizeof *lc);
            lc->known = 1;
            dropped[i] = 1;
            rf__strlcpy(lc->reason,
                        taken >= 0 ? "the branch of an If not taken: not counted"
                                   : "the smaller branch of an If: not counted",
                        sizeof lc->reason);
        }
        if (taken >= 0) continue; /* decided: nothing to warn about */
        char fa[32], fb[32];
        rf__log(ctx, RF_LOG_WARN,
                "If '%s': its condition is not known: both branches costed (then %s, else %s "
                "FLOP), the larger (%s) counted",
                node ? node : "?", rf_si_format_compact(fa, sizeof fa, f[0], ""),
                rf_si_format_compact(fb, sizeof fb, f[1], ""), drop ? "then" : "else");
    }
}

/* Where layer l's unknown input shape comes from: the first input of unknown shape, followed
 * back through its writers to the first layer whose own inputs are all known (the op whose rule
 * could not decide). Appends "input shape unknown (from Resize 'r': its output shape not
 * inferred)", or the layer's own reason. */
static void rf__why_unknown(const rf_graph *g, const rf_cost *c, uint32_t k, char *dst, size_t cap,
                            size_t *len)
{
    const rf_layer *l = &g->layers[k];
    int32_t from = -1;
    for (uint32_t hops = 0; hops < g->n_layers; hops++) {
        const rf_layer *x = from < 0 ? l : &g->layers[from];
        int32_t up = -1;
        for (uint32_t i = 0; i < x->n_inputs && up < 0; i++) {
            const rf_tensor *t = rf__lin(g, x, i);
            if (t && !rf__shape_full(t)) up = t->producer >= 0 ? t->producer : -2;
        }
        if (up == -1 || up == -2) {
            if (from < 0 && up == -1) { /* every input known: the layer's own reason */
                rf__appendf(dst, cap, len, "%s", c->layers[k].reason);
                return;
            }
            break;
        }
        from = up;
    }
    char nm[96], op[48];
    if (from < 0) {
        rf__appendf(dst, cap, len, "input shape unknown");
        return;
    }
    rf__name_excerpt(nm, sizeof nm, g->layers[from].name);
    rf__name_excerpt(op, sizeof op, g->layers[from].op_type);
    const rf_layer *o = &g->layers[from]; /* its inputs known: only the values can be missing */
    int rs = o->kind == RF_OP_RESIZE;
    rf__appendf(dst, cap, len, "input shape unknown (from %s '%s': %s)", op, nm,
                rs ? "scales and sizes not constant" : "its output shape not inferred");
}

static void rf__warn_unknown(rf_ctx *ctx, const rf_graph *g, const rf_cost *c)
{
    char list[1024], q[256];
    size_t len = 0;
    list[0] = '\0';
    for (uint32_t i = 0; i < c->n_unknown_ops; i++) { /* each type with its count, first reason */
        uint32_t n = 0, first = UINT32_MAX;
        for (uint32_t k = 0; k < g->n_layers; k++)
            if (!c->layers[k].known &&
                !strcmp(rf__qualified(&g->layers[k], q, sizeof q), c->unknown_ops[i])) {
                n++;
                first = first == UINT32_MAX ? k : first;
            }
        rf__appendf(list, sizeof list, &len, "%s%s x%u", i ? "; " : "", c->unknown_ops[i], n);
        if (first != UINT32_MAX) {
            rf__appendf(list, sizeof list, &len, ": ");
            rf__why_unknown(g, c, first, list, sizeof list, &len);
        }
    }
    rf__log(ctx, RF_LOG_WARN, "cost undefined for %u layer%s (op types: %s)", c->n_unknown,
            c->n_unknown == 1 ? "" : "s", list);
}

rf_status rf_graph_cost(rf_ctx *ctx, const rf_graph *g, rf_cost **out)
{
    *out = NULL;
    rf_cost *c = rf__calloc(ctx, 1, sizeof *c);
    if (!c) return RF_NOMEM_ERR(ctx);
    c->alloc_ = *rf_ctx_allocator(ctx);
    c->layers = rf__calloc(ctx, (size_t)g->n_layers + 1, sizeof *c->layers);
    if (!c->layers) {
        rf_cost_free(c);
        return RF_NOMEM_ERR(ctx);
    }
    c->n_layers = g->n_layers;
    c->params = g->params;
    size_t cap = 0;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        rf_layer_cost *lc = &c->layers[i];
        double mm;
        rf__layer_cost(g, &g->layers[i], lc, &mm);
        if (!lc->known) {
            c->n_unknown++;
            char q[256];
            rf_status st =
                rf__note_unknown(ctx, c, rf__qualified(&g->layers[i], q, sizeof q), &cap);
            if (st != RF_OK) {
                rf_cost_free(c);
                return st;
            }
            continue;
        }
        c->flops += lc->flops;
        c->bytes += lc->bytes;
        c->weight_bytes += lc->weight_bytes;
        c->input_bytes += lc->input_bytes;
        c->output_bytes += lc->output_bytes;
        c->kv_read_bytes += lc->kv_read_bytes;
        c->kv_write_bytes += lc->kv_write_bytes;
        c->matmul_conv_flops += mm;
    }
    uint8_t *dropped = rf__calloc(ctx, (size_t)g->n_layers + 1, 1);
    if (!dropped) {
        rf_cost_free(c);
        return RF_NOMEM_ERR(ctx);
    }
    rf__if_groups(ctx, g, c, dropped);
    rf__free(ctx, dropped);
    if (c->n_unknown) rf__warn_unknown(ctx, g, c);
    *out = c;
    return RF_OK;
}

void rf_cost_free(rf_cost *c)
{
    if (!c) return;
    rf_allocator a = c->alloc_;
    for (uint32_t i = 0; i < c->n_unknown_ops; i++) rf__free_with(&a, c->unknown_ops[i]);
    rf__free_with(&a, c->unknown_ops);
    rf__free_with(&a, c->layers);
    rf__free_with(&a, c);
}
