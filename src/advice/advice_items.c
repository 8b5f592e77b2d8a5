/* advice_items.c — the items the advice re-evaluates (advice_int.h): one per costed layer of a
 * profile's graph or an LLM decode step (FLOPs; weight, activation and KV bytes; element sizes;
 * the producer it could be folded into; a measured time where the run was measured), or one per
 * row of an operations list; then rf__advice_finish ranks the changes. Never prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice_int.h"
#include "core/rf_int.h"

static double rf__bits(rf_dtype d)
{
    uint32_t be = rf_dtype_block_elems(d), bb = rf_dtype_block_bytes(d);
    return be && bb ? 8.0 * bb / be : 32;
}

/* Follow metadata layers (views) back to the layer that wrote tensor t's bytes. */
static int64_t rf__writer(const rf_graph *g, uint32_t t)
{
    for (int hops = 0; t != RF_GRAPH_NO_TENSOR && hops < 8; hops++) {
        int32_t p = g->tensors[t].producer;
        if (p < 0) return -1;
        const rf_layer *l = &g->layers[p];
        if (l->kind != RF_OP_METADATA) return p;
        t = l->n_inputs ? l->inputs[0] : RF_GRAPH_NO_TENSOR;
    }
    return -1;
}

/* Items by name, then by position (the first of a name first). */
static int rf__cmp_item_name(const void *x, const void *y)
{
    const rf__item *a = *(rf__item *const *)x, *b = *(rf__item *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a < b ? -1 : a > b);
}

static rf_status rf__from_graph(rf__adv *a, const rf_graph *g, const rf_cost *c,
                                const rf_result *measured)
{
    a->it = rf__calloc(a->ctx, g->n_layers ? g->n_layers : 1, sizeof *a->it);
    uint32_t *uses = rf__calloc(a->ctx, g->n_tensors ? g->n_tensors : 1, sizeof *uses);
    int64_t *item_of = rf__malloc(a->ctx, (g->n_layers ? g->n_layers : 1) * sizeof *item_of);
    if (!a->it || !uses || !item_of) {
        rf__free(a->ctx, uses);
        rf__free(a->ctx, item_of);
        return RF_NOMEM_ERR(a->ctx);
    }
    for (uint32_t li = 0; li < g->n_layers; li++)
        for (uint32_t k = 0; k < g->layers[li].n_inputs; k++)
            if (g->layers[li].inputs[k] != RF_GRAPH_NO_TENSOR) uses[g->layers[li].inputs[k]]++;
    for (uint32_t li = 0; li < g->n_layers; li++) {
        const rf_layer *l = &g->layers[li];
        const rf_layer_cost *lc = &c->layers[li];
        item_of[li] = -1;
        if (!lc->known || (lc->flops <= 0 && lc->bytes <= 0)) continue;
        rf__item *x = &a->it[a->n];
        item_of[li] = (int64_t)a->n++;
        x->name = l->name;
        x->matrix = l->kind == RF_OP_CONV || l->kind == RF_OP_CONV_TRANSPOSE ||
                    l->kind == RF_OP_GEMM || l->kind == RF_OP_MATMUL;
        x->softmax = l->kind == RF_OP_SOFTMAX;
        x->fold = l->kind == RF_OP_ACTIVATION || l->kind == RF_OP_ELEMENTWISE ||
                  l->kind == RF_OP_BATCHNORM || l->kind == RF_OP_LAYERNORM ||
                  l->kind == RF_OP_RMSNORM || x->softmax;
        x->flops = lc->flops;
        x->wbytes = lc->weight_bytes;
        x->abytes = lc->input_bytes + lc->output_bytes;
        x->kvbytes = lc->kv_read_bytes + lc->kv_write_bytes;
        x->wbits = x->abits = 32;
        for (uint32_t k = 0; k < l->n_inputs; k++) {
            uint32_t t = l->inputs[k];
            if (t == RF_GRAPH_NO_TENSOR) continue;
            const rf_tensor *tt = &g->tensors[t];
            if ((tt->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_CONST_WEIGHT)) && x->wbytes > 0)
                x->wbits = rf__bits(tt->dtype);
        }
        if (l->n_outputs && l->outputs[0] != RF_GRAPH_NO_TENSOR)
            x->abits = rf__bits(g->tensors[l->outputs[0]].dtype);
        x->est_s = rf__advice_eval(&a->roof, x->flops, lc->bytes);
        x->t_s = x->est_s;
        x->producer = -1;
        if (l->n_inputs && l->inputs[0] != RF_GRAPH_NO_TENSOR) {
            uint32_t t = l->inputs[0];
            int64_t p = rf__writer(g, t);
            uint64_t tb = 0;
            if (p >= 0 && item_of[p] >= 0 && uses[t] == 1 && rf_tensor_bytes(&g->tensors[t], &tb)) {
                x->producer = item_of[p];
                x->inter = (double)tb * (double)l->repeat;
            }
        }
        x->attn_mm = x->matrix && x->producer >= 0 && a->it[x->producer].softmax;
        if (x->matrix && l->kind == RF_OP_MATMUL && x->wbytes <= 0 && x->kvbytes <= 0 &&
            x->producer >= 0 && !x->attn_mm)
            x->matrix = 1; /* activations x activations: still a matrix product */
    }
    /* measured times by name (rf_profile_measure's rows): the items sorted by name, each row
     * found by binary search (the first item of that name), O((n + rows) log n) */
    rf__item **by_name = measured && a->n ? rf__calloc(a->ctx, a->n, sizeof *by_name) : NULL;
    if (measured && a->n && !by_name) {
        rf__free(a->ctx, uses);
        rf__free(a->ctx, item_of);
        return RF_NOMEM_ERR(a->ctx);
    }
    for (size_t i = 0; by_name && i < a->n; i++) by_name[i] = &a->it[i];
    if (by_name && a->n > 1) qsort(by_name, a->n, sizeof *by_name, rf__cmp_item_name);
    for (size_t r = 0; by_name && r < measured->n_rows; r++) {
        const rf_row *row = &measured->rows[r];
        if (!row->measured) continue;
        size_t lo = 0, hi = a->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(by_name[mid]->name, row->name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < a->n && strcmp(by_name[lo]->name, row->name) == 0) {
            by_name[lo]->t_s = row->measured->m.time_s;
            a->measured = 1;
        }
    }
    rf__free(a->ctx, by_name);
    rf__free(a->ctx, uses);
    rf__free(a->ctx, item_of);
    return RF_OK;
}

/* Every weighted matrix layer already at 8 bits or fewer (Q8_0, Q4_K, INT8): an integer model. */
static void rf__integer_model(rf__adv *a)
{
    size_t weighted = 0, small = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->it[i].matrix && a->it[i].wbytes > 0) {
            weighted++;
            small += a->it[i].wbits <= 8.5; /* Q8_0: 8 bits and a 16-bit scale per 32 */
        }
    a->integer_model = weighted && small == weighted;
}

/* A measured profile: its rows outside the graph (reorders) and the gap between the measured
 * layers and the wall time of the pass (dispatch) become fixed items. */
static rf_status rf__measured_extras(rf__adv *a, const rf_result *res, double wall_s)
{
    if (!a->measured || !res) return RF_OK;
    double layers = 0;
    for (size_t i = 0; i < a->n; i++) layers += a->it[i].t_s;
    double other = res->totals.measured_s - layers;
    if (other > 1e-9 * layers)
        RF_TRY(rf__add_fixed(a, "(measured rows outside the graph)", other, 0));
    if (wall_s > res->totals.measured_s && res->totals.measured_s > 0) {
        a->overhead_s = wall_s - res->totals.measured_s;
        RF_TRY(rf__add_fixed(a, "(dispatch between the layers)", a->overhead_s, a->overhead_s));
    }
    return RF_OK;
}

static rf_status rf__adv_init(rf__adv *a, rf_ctx *ctx, const rf_machine *m, size_t compute,
                              size_t bandwidth)
{
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    a->m = m;
    a->compute = compute;
    return rf_machine_roof(ctx, m, compute, bandwidth, &a->roof);
}

rf_status rf_advise_profile(rf_ctx *ctx, const rf_profile *p, const rf_machine *m, size_t compute,
                            size_t bandwidth, const rf_advice_opts *o, rf_advice_list **out)
{
    RF_CHECK(ctx, p && m && out, RF_USAGE, "rf_advise_profile: missing argument");
    *out = NULL;
    rf__adv a;
    RF_TRY(rf__adv_init(&a, ctx, m, compute, bandwidth));
    rf_status st = rf__from_graph(&a, p->graph, p->cost, p->result);
    rf__integer_model(&a);
    double wall = o && o->wall_s > 0 ? o->wall_s : p->result ? p->result->totals.wall_s : 0;
    if (st == RF_OK) st = rf__measured_extras(&a, p->result, wall);
    if (st != RF_OK) {
        rf__free(ctx, a.it);
        return st;
    }
    return rf__advice_finish(&a, o, out);
}

/* Over devices: each layer is one device's share of it (the items scaled to the device time, or
 * to the measured step less the link's), and the link's time a fixed item. */
static rf_status rf__llm_devices(rf__adv *a, const rf_llm_dist *d)
{
    const rf_llm_dist_phase *ph = &d->phase[1];
    double sum = 0, want = ph->device_s;
    for (size_t i = 0; i < a->n; i++) sum += a->it[i].t_s;
    if (a->measured) want = sum - ph->comm_s; /* a measured step holds the link's time */
    for (size_t i = 0; want > 0 && sum > 0 && i < a->n; i++) a->it[i].t_s *= want / sum;
    double tp = d->o.tp, lat = (double)ph->allreduces * 2 * (tp - 1) * d->o.link_latency_s +
                               (d->o.pp - 1) * d->o.link_latency_s;
    a->dist = d;
    return ph->comm_s > 0 ? rf__add_fixed(a, "(communication between the devices)", ph->comm_s,
                                          lat < ph->comm_s ? lat : ph->comm_s)
                          : RF_OK;
}

/* A measured decode rate above the refined ceiling: the analysis is not of what ran. */
static void rf__llm_check(rf__adv *a, const rf_llm_result *r)
{
    const rf_llm_measured *x = &r->measured;
    if (!x->have_decode || x->decode_of_refined <= 1.005) return;
    char m[32], c[32];
    snprintf(a->check[0], sizeof a->check[0],
             "check the measurement: %s tokens/s is above its ceiling (%.1f%% of the refined %s "
             "tokens/s)",
             rf_si_format_compact(m, sizeof m, x->decode_tokens_per_s, ""),
             100 * x->decode_of_refined,
             rf_si_format_compact(c, sizeof c, r->ceilings.decode_tokens_per_s, ""));
    snprintf(a->check[1], sizeof a->check[1],
             "another batch, context or prompt than analysed, weights smaller than this "
             "file's, a machine faster than --hw says, or more than one token a step "
             "(speculative decoding); the savings below start from the measured rate");
}

rf_status rf_advise_llm(rf_ctx *ctx, const rf_llm_result *r, const rf_advice_opts *o,
                        rf_advice_list **out)
{
    RF_CHECK(ctx, r && out, RF_USAGE, "rf_advise_llm: missing argument");
    *out = NULL;
    const rf_llm_phase_result *ph = &r->phase[1];
    rf__adv a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.m = r->machine;
    a.compute = r->compute;
    a.roof = r->roof;
    a.llm = 1;
    a.kv_bits = ph->opts.kv_bits ? ph->opts.kv_bits : 16;
    rf_status st = rf__from_graph(&a, ph->graph, ph->cost, NULL);
    if (st != RF_OK) {
        rf__free(ctx, a.it);
        return st;
    }
    if (r->measured.have_decode && r->measured.decode_tokens_per_s > 0) {
        /* a measured decode step: every layer scaled to it */
        double est = 0,
               step = (double)(ph->batch ? ph->batch : 1) / r->measured.decode_tokens_per_s;
        for (size_t i = 0; i < a.n; i++) est += a.it[i].est_s;
        for (size_t i = 0; est > 0 && i < a.n; i++) a.it[i].t_s = a.it[i].est_s * step / est;
        a.measured = 1;
    }
    /* the activations of an LLM analysis are at act_bits, its weights at the file's types */
    for (size_t i = 0; i < a.n; i++) a.it[i].abits = ph->opts.act_bits ? ph->opts.act_bits : 16;
    rf__integer_model(&a);
    if (o && o->dist && (o->dist->o.tp > 1 || o->dist->o.pp > 1)) st = rf__llm_devices(&a, o->dist);
    if (st == RF_OK) rf__llm_check(&a, r);
    if (st != RF_OK) {
        rf__free(ctx, a.it);
        return st;
    }
    return rf__advice_finish(&a, o, out);
}
