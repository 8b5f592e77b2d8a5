/* advice.c — what would move it, and by how much (roofline/advice.h, docs/advice.md). The layers
 * of a profile, an LLM decode step or an operations list become items (FLOPs; weight, activation
 * and KV bytes; element sizes; measured or estimated time; the producer a layer could be folded
 * into); each kind of change re-evaluates the items under the same roof (another machine's for
 * --what-if-hw), and the suggestions are ranked by the share of the whole run they save. A
 * measured run scales: a layer's predicted time is its measured time times after/before of the
 * estimate. Never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/advice.h"
#include "roofline/hw.h"

#define RF__ADV_HIGH 0.20
#define RF__ADV_MEDIUM 0.05
#define RF__ADV_LOW 0.01
#define RF__ADV_BATCH_ROWS 10

typedef struct rf__item {
    const char *name;
    int matrix;  /* Conv, Gemm, MatMul: runs on the compute ceiling of its precision */
    int fold;    /* elementwise, activation, norm, softmax: can be folded into its producer */
    int softmax; /* a softmax (attention fusion) */
    int attn_mm; /* a matmul that reads a softmax's output (A.V) */
    double flops, wbytes, abytes, kvbytes;
    double wbits, abits; /* element sizes, bits (32 when unknown) */
    double net_s;        /* its network bytes over the network roof: a floor no change here
                            moves (0 without one) */
    double est_s;        /* on the roof */
    double t_s;          /* measured, or est_s */
    int64_t producer;    /* item whose single-consumer output this item reads first, or -1 */
    double inter;        /* bytes of that tensor */
} rf__item;

typedef struct rf__adv {
    rf_ctx *ctx;
    rf__item *it;
    size_t n;
    rf_roof roof;
    const rf_machine *m;
    size_t compute;
    double total_s, total_est;
    int measured, llm;
    unsigned kv_bits;
    rf_advice_list *out;
    size_t cap;
} rf__adv;

const char *rf_advice_kind_name(rf_advice_kind k)
{
    static const char *const names[] = {"precision", "kv-precision", "fusion",       "attention",
                                        "batching",  "pruning",      "distillation", "hardware"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "unknown";
}

static double rf__eval(const rf_roof *r, double flops, double bytes)
{
    double tc = flops / r->peak_flops_per_s, tm = bytes / r->bw_bytes_per_s;
    return tc > tm ? tc : tm;
}

/* An item's time on roof r with these FLOPs and bytes, its network time a floor under it. */
static double rf__ev(const rf_roof *r, const rf__item *x, double flops, double bytes)
{
    double t = rf__eval(r, flops, bytes);
    return t > x->net_s ? t : x->net_s;
}

/* The run-time of item i when its estimate becomes `est_after`: measured times scale. */
static double rf__scaled(const rf__item *i, double est_after)
{
    return i->est_s > 0 ? i->t_s * est_after / i->est_s : est_after;
}

static rf_status rf__push(rf__adv *a, rf_advice_kind kind, double after_s, rf_advice **out)
{
    rf_advice_list *l = a->out;
    RF_TRY(rf__grow(a->ctx, (void **)&l->items, &a->cap, l->n + 1, sizeof *l->items));
    rf_advice *v = &l->items[l->n++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->before_s = a->total_s;
    v->after_s = after_s;
    v->saving_s = a->total_s - after_s;
    v->saving_share = a->total_s > 0 ? v->saving_s / a->total_s : 0;
    v->speedup = after_s > 0 ? a->total_s / after_s : INFINITY;
    *out = v;
    return RF_OK;
}

static rf_status rf__add_layer(rf__adv *a, rf_advice *v, const char *name)
{
    char **nl = rf__malloc(a->ctx, (v->n_layers + 1) * sizeof *nl);
    if (!nl) return RF_NOMEM_ERR(a->ctx);
    if (v->n_layers) memcpy(nl, v->layers, v->n_layers * sizeof *nl);
    nl[v->n_layers] = rf__strdup(a->ctx, name);
    rf__free(a->ctx, v->layers);
    v->layers = nl;
    if (!nl[v->n_layers]) return RF_NOMEM_ERR(a->ctx);
    v->n_layers++;
    return RF_OK;
}

/* ---- 1. lower precision -------------------------------------------------------------------- */

static rf_status rf__precision(rf__adv *a, const char *title, double wbits, double abits,
                               const char *ceilings)
{
    size_t ci = ceilings ? rf_machine_find_prefix(a->m, RF_CEILING_COMPUTE, ceilings) : SIZE_MAX;
    double peak = ci != SIZE_MAX ? a->m->ceilings[ci].value : a->roof.peak_flops_per_s;
    if (peak < a->roof.peak_flops_per_s) peak = a->roof.peak_flops_per_s; /* never slower */
    rf_roof r = a->roof;
    double after = 0;
    size_t touched = 0;
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        double wb = x->wbits > wbits ? x->wbytes * wbits / x->wbits : x->wbytes;
        double ab = abits > 0 && x->abits > abits ? x->abytes * abits / x->abits : x->abytes;
        touched += wb < x->wbytes || ab < x->abytes;
        r.peak_flops_per_s = x->matrix ? peak : a->roof.peak_flops_per_s;
        after += rf__scaled(x, rf__ev(&r, x, x->flops, wb + ab + x->kvbytes));
    }
    if (!touched) return RF_OK; /* already there */
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_PRECISION, after, &v));
    rf__strlcpy(v->title, title, sizeof v->title);
    char pk[32];
    if (ceilings && ci != SIZE_MAX)
        snprintf(v->ceiling, sizeof v->ceiling, "%s at %s", a->m->ceilings[ci].name,
                 rf_si_format(pk, sizeof pk, peak, 3, "FLOP/s"));
    else
        snprintf(v->ceiling, sizeof v->ceiling, "%s (%s)", a->m->ceilings[a->compute].name,
                 ceilings ? "this machine has no ceiling at that precision" : "dequantised");
    snprintf(v->assumption, sizeof v->assumption,
             "%s%s; matrix layers at the %s ceiling, the rest on the same bandwidth",
             abits > 0 ? "weights and activations stored at that size"
                       : "weights stored at that size, activations as they are",
             wbits == 4.5 ? " (4.5 bits a weight with the block scales, as Q4_K)" : "",
             ceilings && ci != SIZE_MAX ? "new" : "present");
    for (size_t i = 0; i < a->n; i++) { /* the matrix layers whose bytes shrink */
        const rf__item *x = &a->it[i];
        if (x->matrix && ((x->wbytes > 0 && x->wbits > wbits) ||
                          (abits > 0 && x->abytes > 0 && x->abits > abits)))
            RF_TRY(rf__add_layer(a, v, x->name));
    }
    return RF_OK;
}

static rf_status rf__kv(rf__adv *a)
{
    if (!a->llm || a->kv_bits <= 8) return RF_OK;
    double after = 0, kv = 0;
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        kv += x->kvbytes;
        after += rf__scaled(
            x, rf__ev(&a->roof, x, x->flops, x->wbytes + x->abytes + x->kvbytes * 8 / a->kv_bits));
    }
    if (kv <= 0) return RF_OK;
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_KV_PRECISION, after, &v));
    snprintf(v->title, sizeof v->title, "KV cache at 8 bits (from %u)", a->kv_bits);
    snprintf(v->assumption, sizeof v->assumption,
             "K and V stored at 8 bits (a scale per block), read and written at that size");
    for (size_t i = 0; i < a->n; i++)
        if (a->it[i].kvbytes > 0) RF_TRY(rf__add_layer(a, v, a->it[i].name));
    return RF_OK;
}

/* ---- 2. fusion ----------------------------------------------------------------------------- */

/* Groups: an item that can be folded joins its producer's group. group[i] = head index. */
static rf_status rf__fusion(rf__adv *a)
{
    if (!a->n) return RF_OK;
    int64_t *head = rf__malloc(a->ctx, a->n * sizeof *head);
    if (!head) return RF_NOMEM_ERR(a->ctx);
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        head[i] = (int64_t)i;
        if (x->producer >= 0 && (x->fold || (x->attn_mm && a->it[x->producer].softmax)))
            head[i] = head[x->producer];
    }
    rf_status st = RF_OK;
    for (int attn = 0; attn < 2 && st == RF_OK; attn++) {
        double after = a->total_s, saved_bytes = 0;
        size_t groups = 0;
        for (size_t h = 0; h < a->n; h++) {
            double f = 0, b = 0, inter = 0, t = 0, est = 0;
            size_t members = 0;
            int has_attn = 0;
            for (size_t i = h; i < a->n; i++) {
                if (head[i] != (int64_t)h) continue;
                const rf__item *x = &a->it[i];
                f += x->flops;
                b += x->wbytes + x->abytes + x->kvbytes;
                if (i != h) inter += x->inter;
                t += x->t_s;
                est += x->est_s;
                members++;
                has_attn |= x->attn_mm && a->it[x->producer].softmax;
            }
            if (members < 2 || has_attn != attn) continue;
            double fused = rf__eval(&a->roof, f, b - 2 * inter);
            double t_after = est > 0 ? t * fused / est : fused;
            after -= t - t_after;
            saved_bytes += 2 * inter;
            groups++;
        }
        if (!groups || after >= a->total_s) continue;
        rf_advice *v;
        if ((st = rf__push(a, attn ? RF_ADVICE_ATTENTION : RF_ADVICE_FUSION, after, &v)) != RF_OK)
            break;
        char mb[32];
        rf_si_format(mb, sizeof mb, saved_bytes, 3, "B");
        if (attn) {
            snprintf(v->title, sizeof v->title, "fused attention in %zu group%s", groups,
                     groups == 1 ? "" : "s");
            snprintf(v->assumption, sizeof v->assumption,
                     "the score matrix (Q.K^T, its scaling, mask and softmax) stays on chip as in "
                     "FlashAttention kernels: %s less written and read back",
                     mb);
        } else {
            snprintf(v->title, sizeof v->title,
                     "fuse elementwise, norm and activation layers into their producers (%zu "
                     "group%s)",
                     groups, groups == 1 ? "" : "s");
            snprintf(v->assumption, sizeof v->assumption,
                     "each folded layer runs in its producer's epilogue (oneDNN post-ops, "
                     "compiler fusion): the intermediate tensors are never written and read back, "
                     "%s less traffic",
                     mb);
        }
        for (size_t i = 0; i < a->n && st == RF_OK; i++)
            if (head[i] != (int64_t)i) st = rf__add_layer(a, v, a->it[i].name);
    }
    rf__free(a->ctx, head);
    return st;
}

/* ---- 3. batching --------------------------------------------------------------------------- */

static double rf__batch_time(const rf__adv *a, double b, uint64_t *cbound)
{
    double t = 0;
    *cbound = 0;
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        if (x->matrix && x->wbytes > 0) { /* the weights are read once for the whole batch */
            double e = rf__eval(&a->roof, b * x->flops, x->wbytes + b * (x->abytes + x->kvbytes));
            *cbound += b * x->flops / a->roof.peak_flops_per_s >=
                       (x->wbytes + b * (x->abytes + x->kvbytes)) / a->roof.bw_bytes_per_s;
            t += rf__scaled(x, e);
        } else {
            t += b * x->t_s;
        }
    }
    return t;
}

static rf_status rf__batching(rf__adv *a)
{
    size_t n_mm = 0, mem = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->it[i].matrix && a->it[i].wbytes > 0) {
            n_mm++;
            mem += a->it[i].flops / a->roof.peak_flops_per_s <
                   (a->it[i].wbytes + a->it[i].abytes + a->it[i].kvbytes) / a->roof.bw_bytes_per_s;
        }
    if (!n_mm || !mem) return RF_OK;
    rf_advice_batch rows[RF__ADV_BATCH_ROWS];
    size_t nr = 0;
    for (uint64_t b = 1; nr < RF__ADV_BATCH_ROWS; b *= 2) {
        rf_advice_batch *r = &rows[nr++];
        r->batch = b;
        r->time_s = rf__batch_time(a, (double)b, &r->compute_bound);
        r->per_sample_s = r->time_s / (double)b;
        r->throughput = r->time_s > 0 ? (double)b / r->time_s : 0;
        if (r->compute_bound == n_mm) break;
    }
    /* the batch to suggest: the smallest within 10% of the best throughput in the table */
    size_t best = 0, pick = 0;
    for (size_t i = 1; i < nr; i++)
        if (rows[i].throughput > rows[best].throughput) best = i;
    while (pick < best && rows[pick].throughput < 0.9 * rows[best].throughput) pick++;
    if (pick == 0) return RF_OK;
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_BATCHING, rows[pick].per_sample_s, &v));
    v->before_s = rows[0].time_s;
    v->saving_s = v->before_s - v->after_s;
    v->saving_share = v->before_s > 0 ? v->saving_s / v->before_s : 0;
    v->speedup = v->after_s > 0 ? v->before_s / v->after_s : INFINITY;
    snprintf(v->title, sizeof v->title, "batch %llu %ss a pass: %.2fx the throughput",
             (unsigned long long)rows[pick].batch, a->out->unit, v->speedup);
    snprintf(v->assumption, sizeof v->assumption,
             "%zu of %zu weight-bound matrix layers read their weights once for the whole batch; "
             "savings are per %s (a batch's latency grows: see the table)",
             mem, n_mm, a->out->unit);
    v->batches = rf__malloc(a->ctx, nr * sizeof *v->batches);
    if (!v->batches) return RF_NOMEM_ERR(a->ctx);
    memcpy(v->batches, rows, nr * sizeof *rows);
    v->n_batches = nr;
    for (size_t i = 0; i < a->n; i++)
        if (a->it[i].matrix && a->it[i].wbytes > 0 &&
            a->it[i].flops / a->roof.peak_flops_per_s <
                (a->it[i].wbytes + a->it[i].abytes + a->it[i].kvbytes) / a->roof.bw_bytes_per_s)
            RF_TRY(rf__add_layer(a, v, a->it[i].name));
    return RF_OK;
}

/* ---- 4. pruning and distillation ----------------------------------------------------------- */

static rf_status rf__shrink(rf__adv *a, int distil)
{
    double ridge = a->roof.peak_flops_per_s / a->roof.bw_bytes_per_s, after = a->total_s;
    size_t n = 0;
    int *pick = rf__calloc(a->ctx, a->n ? a->n : 1, sizeof *pick);
    if (!pick) return RF_NOMEM_ERR(a->ctx);
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        double bytes = x->wbytes + x->abytes + x->kvbytes;
        if (!x->matrix || x->wbytes <= 0) continue;
        if (distil ? x->flops >= 1e9 : (bytes > 0 && x->flops / bytes < 0.1 * ridge)) pick[i] = 1;
    }
    if (distil) { /* no layer over 1 GFLOP: the three slowest matrix layers */
        for (size_t i = 0; i < a->n; i++) n += (size_t)pick[i];
        for (size_t k = 0; !n && k < 3; k++) {
            size_t best = SIZE_MAX;
            for (size_t i = 0; i < a->n; i++)
                if (a->it[i].matrix && a->it[i].wbytes > 0 && pick[i] != 2 &&
                    (best == SIZE_MAX || a->it[i].t_s > a->it[best].t_s))
                    best = i;
            if (best != SIZE_MAX) pick[best] = 2;
        }
    }
    n = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!pick[i]) continue;
        const rf__item *x = &a->it[i];
        after -= x->t_s - rf__scaled(x, rf__ev(&a->roof, x, x->flops / 2,
                                               x->wbytes / 2 + x->abytes + x->kvbytes));
        n++;
    }
    rf_status st = RF_OK;
    rf_advice *v;
    if (n && after < a->total_s &&
        (st = rf__push(a, distil ? RF_ADVICE_DISTILLATION : RF_ADVICE_PRUNING, after, &v)) ==
            RF_OK) {
        if (distil) {
            snprintf(v->title, sizeof v->title, "distil the %zu heaviest layer%s into smaller ones",
                     n, n == 1 ? "" : "s");
            snprintf(v->assumption, sizeof v->assumption,
                     "a student layer with half the FLOPs and half the weights each (over 1 GFLOP, "
                     "else the three slowest matrix layers); accuracy is the user's to check");
        } else {
            snprintf(v->title, sizeof v->title,
                     "50%% structured sparsity on %zu layer%s far below the ridge", n,
                     n == 1 ? "" : "s");
            snprintf(v->assumption, sizeof v->assumption,
                     "AI < 0.1 x the ridge (%.3g FLOP/B); half the channels or heads removed, "
                     "dense kernels: half the FLOPs and half the weight bytes",
                     0.1 * ridge);
        }
        for (size_t i = 0; i < a->n && st == RF_OK; i++)
            if (pick[i]) st = rf__add_layer(a, v, a->it[i].name);
    }
    rf__free(a->ctx, pick);
    return st;
}

/* ---- 5. other hardware --------------------------------------------------------------------- */

static rf_status rf__hardware(rf__adv *a, const char *name)
{
    rf_machine *m = NULL;
    RF_TRY(rf_machine_resolve(a->ctx, name, &m));
    rf_roof r;
    rf_status st = rf_machine_roof(a->ctx, m, m->default_compute, m->default_bandwidth, &r);
    double est = 0;
    uint64_t flips = 0;
    for (size_t i = 0; st == RF_OK && i < a->n; i++) {
        const rf__item *x = &a->it[i];
        double b = x->wbytes + x->abytes + x->kvbytes;
        est += rf__ev(&r, x, x->flops, b);
        int here = x->flops / a->roof.peak_flops_per_s >= b / a->roof.bw_bytes_per_s;
        int there = x->flops / r.peak_flops_per_s >= b / r.bw_bytes_per_s;
        flips += (x->flops > 0 || b > 0) && here != there;
    }
    rf_advice *v;
    double after = a->total_est > 0 ? a->total_s * est / a->total_est : est;
    if (st == RF_OK) st = rf__push(a, RF_ADVICE_HARDWARE, after, &v);
    if (st == RF_OK) {
        snprintf(v->title, sizeof v->title, "the same work on %s", m->name);
        char pk[32], bw[32];
        snprintf(v->ceiling, sizeof v->ceiling, "%.120s: %.60s %s, %.60s %s",
                 m->description[0] ? m->description : m->name, m->ceilings[m->default_compute].name,
                 rf_si_format(pk, sizeof pk, r.peak_flops_per_s, 4, "FLOP/s"),
                 m->ceilings[m->default_bandwidth].name,
                 rf_si_format(bw, sizeof bw, r.bw_bytes_per_s, 4, "B/s"));
        snprintf(v->assumption, sizeof v->assumption,
                 "its default roof (%s); %llu layer%s change%s bound there",
                 rf_provenance_name(m->provenance), (unsigned long long)flips,
                 flips == 1 ? "" : "s", flips == 1 ? "s" : "");
        v->flips = flips;
    }
    rf_machine_free(m);
    return st;
}

/* ---- ranking ------------------------------------------------------------------------------- */

static int rf__by_saving(const void *x, const void *y)
{
    const rf_advice *p = x, *q = y;
    int hp = p->kind == RF_ADVICE_HARDWARE, hq = q->kind == RF_ADVICE_HARDWARE;
    if (hp != hq) return hp - hq; /* asked-for machines after the changes */
    return (p->saving_share < q->saving_share) - (p->saving_share > q->saving_share);
}

static rf_status rf__run(rf__adv *a, const rf_advice_opts *o)
{
    a->out = rf__calloc(a->ctx, 1, sizeof *a->out);
    if (!a->out) return RF_NOMEM_ERR(a->ctx);
    a->out->alloc_ = *rf_ctx_allocator(a->ctx);
    rf__strlcpy(a->out->unit, a->llm ? "sequence" : "sample", sizeof a->out->unit);
    a->total_s = a->total_est = 0;
    for (size_t i = 0; i < a->n; i++) {
        a->total_s += a->it[i].t_s;
        a->total_est += a->it[i].est_s;
    }
    a->out->total_s = a->total_s;
    a->out->measured = a->measured;
    rf_status st = RF_OK;
    if (a->total_s > 0 && !(o && o->machines_only)) {
        if (st == RF_OK)
            st = rf__precision(a, "weights and activations at BF16/FP16", 16, 16, "bf16|fp16");
        if (st == RF_OK) st = rf__precision(a, "weights and activations at INT8", 8, 8, "int8|i8");
        if (st == RF_OK)
            st = rf__precision(a, "weights at 4 bits (activations unchanged)", 4.5, 0, NULL);
        if (st == RF_OK) st = rf__kv(a);
        if (st == RF_OK) st = rf__fusion(a);
        if (st == RF_OK) st = rf__batching(a);
        if (st == RF_OK) st = rf__shrink(a, 0);
        if (st == RF_OK) st = rf__shrink(a, 1);
    }
    for (size_t k = 0; st == RF_OK && o && k < o->n_what_if; k++)
        st = rf__hardware(a, o->what_if[k]);
    if (st != RF_OK) return st;
    rf_advice_list *l = a->out;
    /* Amdahl: under 1% of the run is left out (asked-for machines stay) */
    size_t keep = 0;
    for (size_t i = 0; i < l->n; i++) {
        rf_advice *v = &l->items[i];
        double s = v->saving_share;
        v->priority = s >= RF__ADV_HIGH ? "HIGH" : s >= RF__ADV_MEDIUM ? "MEDIUM" : "LOW";
        if (s >= RF__ADV_LOW || v->kind == RF_ADVICE_HARDWARE)
            l->items[keep++] = *v;
        else {
            for (size_t k = 0; k < v->n_layers; k++) rf__free(a->ctx, v->layers[k]);
            rf__free(a->ctx, v->layers);
            rf__free(a->ctx, v->batches);
        }
    }
    l->n = keep;
    qsort(l->items, l->n, sizeof *l->items, rf__by_saving);
    size_t max = o && o->max ? o->max : 5, hw = o ? o->n_what_if : 0,
           changes = l->n - (hw < l->n ? hw : l->n);
    if (changes > max) { /* drop the smallest changes, keep the machines */
        for (size_t i = max; i < changes; i++) {
            rf_advice *v = &l->items[i];
            for (size_t k = 0; k < v->n_layers; k++) rf__free(a->ctx, v->layers[k]);
            rf__free(a->ctx, v->layers);
            rf__free(a->ctx, v->batches);
        }
        memmove(&l->items[max], &l->items[changes], (l->n - changes) * sizeof *l->items);
        l->n -= changes - max;
    }
    return RF_OK;
}

static rf_status rf__finish(rf__adv *a, const rf_advice_opts *o, rf_advice_list **out)
{
    rf_status st = rf__run(a, o);
    rf__free(a->ctx, a->it);
    if (st != RF_OK) {
        rf_advice_free(a->out);
        return st;
    }
    *out = a->out;
    return RF_OK;
}

void rf_advice_free(rf_advice_list *l)
{
    if (!l) return;
    rf_allocator al = l->alloc_;
    for (size_t i = 0; i < l->n; i++) {
        for (size_t k = 0; k < l->items[i].n_layers; k++) rf__free_with(&al, l->items[i].layers[k]);
        rf__free_with(&al, l->items[i].layers);
        rf__free_with(&al, l->items[i].batches);
    }
    rf__free_with(&al, l->items);
    rf__free_with(&al, l);
}

/* ---- items from a graph (a profile, an LLM phase) ------------------------------------------ */

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
        x->est_s = rf__eval(&a->roof, x->flops, lc->bytes);
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
    /* measured times by name (rf_profile_measure's rows) */
    for (size_t r = 0; measured && r < measured->n_rows; r++) {
        const rf_row *row = &measured->rows[r];
        if (!row->measured) continue;
        for (size_t i = 0; i < a->n; i++)
            if (strcmp(a->it[i].name, row->name) == 0) {
                a->it[i].t_s = row->measured->m.time_s;
                a->measured = 1;
                break;
            }
    }
    rf__free(a->ctx, uses);
    rf__free(a->ctx, item_of);
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
    if (st != RF_OK) {
        rf__free(ctx, a.it);
        return st;
    }
    return rf__finish(&a, o, out);
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
    return rf__finish(&a, o, out);
}

rf_status rf_advise_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m, size_t compute,
                           size_t bandwidth, const rf_advice_opts *o, rf_advice_list **out)
{
    RF_CHECK(ctx, r && m && out, RF_USAGE, "rf_advise_result: missing argument");
    *out = NULL;
    rf__adv a;
    RF_TRY(rf__adv_init(&a, ctx, m, compute, bandwidth));
    a.it = rf__calloc(ctx, r->n_rows ? r->n_rows : 1, sizeof *a.it);
    if (!a.it) return RF_NOMEM_ERR(ctx);
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        if (row->e.bound == RF_BOUND_UNDEFINED) continue;
        rf__item *x = &a.it[a.n++];
        x->name = row->name;
        /* an operations list says nothing of weights: matrix-like by intensity, every byte data
         * at FP32 (activations, so only the precisions that shrink them apply) */
        x->matrix = row->e.ai >= 1;
        x->flops = row->e.flops;
        x->abytes = row->e.bytes;
        x->wbits = x->abits = 32;
        x->net_s = r->network.value > 0 ? row->e.net_bytes / r->network.value : 0;
        x->est_s = rf__ev(&a.roof, x, x->flops, x->abytes);
        x->t_s = row->measured ? row->measured->m.time_s : x->est_s;
        a.measured |= row->measured != NULL;
        x->producer = -1;
    }
    return rf__finish(&a, o, out);
}
