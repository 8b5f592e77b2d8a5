/* advice_stream.c — the advice of an operations list as its rows go by (rf_advice_stream_*,
 * roofline/advice.h): each row becomes one item, added to every change's running sums at once
 * and forgotten, so a million rows cost the sums and the names of the RF_ADVICE_LAYERS_MAX
 * slowest rows per change, whatever the analysis keeps for printing (--top). An operations list
 * has no weights, producers or KV cache: of the changes only lower precision (activations) and
 * other machines apply (advice.c skips the rest on such items). rf_advise_result runs the same
 * stream over a result's rows. Never prints. */
#include <stdlib.h>
#include <string.h>

#include "advice_int.h"
#include "core/rf_int.h"

typedef struct rf__kept {
    double t_s;
    uint64_t index;
    char *name;
} rf__kept;

/* The slowest rows a change lists: a min-heap by time (the first to go at its root). */
typedef struct rf__names {
    rf__kept *v;
    size_t n;
    uint64_t total;
} rf__names;

struct rf_advice_stream {
    rf__adv a;
    rf_advice_opts o;
    double net_bw;
    rf__prec prec[RF__PREC_KINDS];
    rf__names names[RF__PREC_KINDS];
    rf__hw *hw;
    size_t n_hw;
    uint64_t index;
    double measured_s; /* the measured rows' times */
};

/* An FFT (by its op, else its name): no lower precision is tried on it. */
static int rf__is_fft(const char *name, size_t len, const char *op)
{
    const char *s = op && op[0] ? op : name;
    size_t n = op && op[0] ? strlen(op) : len;
    for (size_t i = 0; i + 3 <= n; i++)
        if ((s[i] | 0x20) == 'f' && (s[i + 1] | 0x20) == 'f' && (s[i + 2] | 0x20) == 't') return 1;
    return 0;
}

static int rf__kept_before(const rf__kept *x, const rf__kept *y) /* x leaves first */
{
    return x->t_s < y->t_s || (x->t_s == y->t_s && x->index > y->index);
}

static void rf__names_down(rf__names *h, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && rf__kept_before(&h->v[l], &h->v[m])) m = l;
        if (r < h->n && rf__kept_before(&h->v[r], &h->v[m])) m = r;
        if (m == i) return;
        rf__kept t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
}

static rf_status rf__names_add(rf_ctx *ctx, rf__names *h, double t_s, uint64_t index,
                               const char *name, size_t len)
{
    h->total++;
    rf__kept k = {t_s, index, NULL};
    if (h->n == RF_ADVICE_LAYERS_MAX && !rf__kept_before(&h->v[0], &k)) return RF_OK;
    if (!(k.name = rf__malloc(ctx, len + 1))) return RF_NOMEM_ERR(ctx);
    memcpy(k.name, name, len);
    k.name[len] = '\0';
    if (h->n == RF_ADVICE_LAYERS_MAX) { /* replace the fastest kept */
        rf__free(ctx, h->v[0].name);
        h->v[0] = k;
        rf__names_down(h, 0);
        return RF_OK;
    }
    if (!h->v && !(h->v = rf__malloc(ctx, RF_ADVICE_LAYERS_MAX * sizeof *h->v))) {
        rf__free(ctx, k.name);
        return RF_NOMEM_ERR(ctx);
    }
    size_t i = h->n++;
    h->v[i] = k;
    while (i > 0 && rf__kept_before(&h->v[i], &h->v[(i - 1) / 2])) {
        rf__kept t = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return RF_OK;
}

static int rf__by_index(const void *x, const void *y)
{
    const rf__kept *p = x, *q = y;
    return (p->index > q->index) - (p->index < q->index);
}

rf_status rf_advice_stream_new(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                               size_t network, const rf_advice_opts *o, rf_advice_stream **out)
{
    RF_CHECK(ctx, m && out, RF_USAGE, "rf_advice_stream_new: missing argument");
    *out = NULL;
    RF_CHECK(ctx, network == SIZE_MAX || network < m->n_ceilings, RF_USAGE,
             "rf_advice_stream_new: no ceiling %zu", network);
    rf_advice_stream *s = rf__calloc(ctx, 1, sizeof *s);
    if (!s) return RF_NOMEM_ERR(ctx);
    s->a.ctx = ctx;
    s->a.m = m;
    s->a.compute = compute;
    if (o) s->o = *o;
    s->net_bw = network != SIZE_MAX ? m->ceilings[network].value : 0;
    rf_status st = rf_machine_roof(ctx, m, compute, bandwidth, &s->a.roof);
    for (size_t k = 0; st == RF_OK && k < RF__PREC_KINDS; k++) {
        const rf__prec_kind *pk = &rf__prec_kinds[k];
        rf__prec_init(&s->a, &s->prec[k], pk->title, pk->wbits, pk->abits, pk->ceilings);
    }
    if (st == RF_OK && s->o.n_what_if && !(s->hw = rf__calloc(ctx, s->o.n_what_if, sizeof *s->hw)))
        st = RF_NOMEM_ERR(ctx);
    for (; st == RF_OK && s->n_hw < s->o.n_what_if; s->n_hw++)
        st = rf__hw_init(&s->a, &s->hw[s->n_hw], s->o.what_if[s->n_hw]);
    if (st != RF_OK) {
        if (s->hw && s->n_hw < s->o.n_what_if) s->n_hw++; /* a half-made one frees too */
        rf_advice_stream_free(s);
        return st;
    }
    *out = s;
    return RF_OK;
}

rf_status rf_advice_stream_row(void *stream, const rf_row *row, const char *name, size_t name_len)
{
    rf_advice_stream *s = stream;
    if (!s || !row) return RF_USAGE;
    uint64_t index = s->index++;
    if (row->e.bound == RF_BOUND_UNDEFINED) return RF_OK;
    rf__adv *a = &s->a;
    rf__item x;
    memset(&x, 0, sizeof x);
    /* an operations list says nothing of weights: matrix-like by intensity, every byte data
     * at FP32 (activations, so only the precisions that shrink them apply) */
    x.matrix = row->e.ai >= 1;
    x.flops = row->e.flops;
    x.abytes = row->e.bytes;
    x.wbits = x.abits = 32;
    x.net_s = s->net_bw > 0 ? row->e.net_bytes / s->net_bw : 0;
    x.est_s = rf__advice_time(&a->roof, &x, x.flops, x.abytes);
    x.t_s = row->measured ? row->measured->m.time_s : x.est_s;
    x.producer = -1;
    x.no_lowp = rf__is_fft(name, name_len, row->op);
    a->measured |= row->measured != NULL;
    if (row->measured) s->measured_s += x.t_s;
    a->total_s += x.t_s;
    a->total_est += x.est_s;
    for (size_t k = 0; k < RF__PREC_KINDS; k++)
        if (rf__prec_item(a, &s->prec[k], &x))
            RF_TRY(rf__names_add(a->ctx, &s->names[k], x.t_s, index, name, name_len));
    for (size_t k = 0; k < s->n_hw; k++) rf__hw_item(a, &s->hw[k], &x);
    return RF_OK;
}

static rf_status rf__stream_run(rf_advice_stream *s)
{
    rf__adv *a = &s->a;
    if (a->measured && s->o.wall_s > s->measured_s && s->measured_s > 0) {
        /* the gap to the wall time of the pass: dispatch, which no other change moves */
        a->overhead_s = s->o.wall_s - s->measured_s;
        a->total_s += a->overhead_s;
        a->total_est += a->overhead_s;
        for (size_t k = 0; k < RF__PREC_KINDS; k++) s->prec[k].after += a->overhead_s;
        for (size_t k = 0; k < s->n_hw; k++) s->hw[k].est += a->overhead_s;
    }
    RF_TRY(rf__out_new(a));
    if (a->total_s > 0 && !s->o.machines_only) RF_TRY(rf__dispatch(a));
    for (size_t k = 0; a->total_s > 0 && !s->o.machines_only && k < RF__PREC_KINDS; k++) {
        rf_advice *v;
        RF_TRY(rf__prec_push(a, &s->prec[k], &v));
        rf__names *h = &s->names[k];
        if (!v) continue;
        if (h->n > 1) qsort(h->v, h->n, sizeof *h->v, rf__by_index);
        for (size_t i = 0; i < h->n; i++) RF_TRY(rf__add_layer(a, v, h->v[i].name));
        v->n_layers_total = h->total;
    }
    for (size_t k = 0; k < s->n_hw; k++) RF_TRY(rf__hw_push(a, &s->hw[k]));
    return rf__rank(a, &s->o);
}

rf_status rf_advice_stream_finish(rf_advice_stream *s, rf_advice_list **out)
{
    if (!s) return RF_USAGE;
    RF_CHECK(s->a.ctx, out, RF_USAGE, "rf_advice_stream_finish: missing argument");
    *out = NULL;
    rf_status st = rf__stream_run(s);
    if (st != RF_OK) {
        rf_advice_free(s->a.out);
        s->a.out = NULL;
        return st;
    }
    *out = s->a.out;
    s->a.out = NULL;
    return RF_OK;
}

void rf_advice_stream_free(rf_advice_stream *s)
{
    if (!s) return;
    rf_ctx *ctx = s->a.ctx;
    for (size_t k = 0; k < RF__PREC_KINDS; k++) {
        for (size_t i = 0; i < s->names[k].n; i++) rf__free(ctx, s->names[k].v[i].name);
        rf__free(ctx, s->names[k].v);
    }
    for (size_t k = 0; k < s->n_hw; k++) rf_machine_free(s->hw[k].m);
    rf__free(ctx, s->hw);
    rf_advice_free(s->a.out);
    rf__free(ctx, s);
}

rf_status rf_advise_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m, size_t compute,
                           size_t bandwidth, const rf_advice_opts *o, rf_advice_list **out)
{
    RF_CHECK(ctx, r && m && out, RF_USAGE, "rf_advise_result: missing argument");
    *out = NULL;
    rf_advice_stream *s = NULL;
    size_t net = SIZE_MAX;
    for (size_t i = 0; r->network.value > 0 && i < m->n_ceilings && net == SIZE_MAX; i++)
        if (m->ceilings[i].kind == RF_CEILING_NETWORK && m->ceilings[i].value == r->network.value)
            net = i;
    RF_TRY(rf_advice_stream_new(ctx, m, compute, bandwidth, net, o, &s));
    if (!(s->o.wall_s > 0)) s->o.wall_s = r->totals.wall_s;
    if (net == SIZE_MAX) s->net_bw = r->network.value; /* a network the machine does not list */
    rf_status st = RF_OK;
    for (size_t i = 0; st == RF_OK && i < r->n_rows; i++)
        st = rf_advice_stream_row(s, &r->rows[i], r->rows[i].name, strlen(r->rows[i].name));
    if (st == RF_OK) st = rf_advice_stream_finish(s, out);
    rf_advice_stream_free(s);
    return st;
}
