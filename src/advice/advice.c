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

#include "advice_int.h"
#include "core/rf_int.h"
#include "roofline/hw.h"

#define RF__ADV_MEDIUM 0.05
#define RF__ADV_LOW 0.01
#define RF__ADV_BATCH_ROWS 10
#define RF__ADV_LOSSY 0.8 /* ordering weight of a change that alters the model's numbers */

const char *rf_advice_kind_name(rf_advice_kind k)
{
    static const char *const names[] = {"precision",   "kv-precision", "fusion",       "attention",
                                        "batching",    "pruning",      "distillation", "hardware",
                                        "parallelism", "dispatch",     "check"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "unknown";
}

double rf__advice_eval(const rf_roof *r, double flops, double bytes)
{
    double tc = flops / r->peak_flops_per_s, tm = bytes / r->bw_bytes_per_s;
    return tc > tm ? tc : tm;
}

double rf__advice_time(const rf_roof *r, const rf__item *x, double flops, double bytes)
{
    double t = rf__advice_eval(r, flops, bytes);
    return t > x->net_s ? t : x->net_s;
}

/* The run-time of item i when its estimate becomes `est_after`: measured times scale. */
double rf__scaled(const rf__item *i, double est_after)
{
    if (i->fixed) return i->t_s;
    return i->est_s > 0 ? i->t_s * est_after / i->est_s : est_after;
}

rf_status rf__push(rf__adv *a, rf_advice_kind kind, double after_s, rf_advice **out)
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

rf_status rf__add_layer(rf__adv *a, rf_advice *v, const char *name)
{
    size_t n = v->n_layers;
    if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: the list is full; double it (amortised O(1)) */
        char **nl = rf__malloc(a->ctx, (n ? 2 * n : 1) * sizeof *nl);
        if (!nl) return RF_NOMEM_ERR(a->ctx);
        if (n) memcpy(nl, v->layers, n * sizeof *nl);
        rf__free(a->ctx, v->layers);
        v->layers = nl;
    }
    v->layers[n] = rf__strdup(a->ctx, name);
    if (!v->layers[n]) return RF_NOMEM_ERR(a->ctx);
    v->n_layers++;
    v->n_layers_total++;
    return RF_OK;
}

/* ---- 1. lower precision -------------------------------------------------------------------- */

const rf__prec_kind rf__prec_kinds[RF__PREC_KINDS] = {
    {"weights and activations at BF16/FP16", 16, 16, "bf16|fp16"},
    {"weights and activations at INT8", 8, 8, "int8|i8"},
    {"weights at 4 bits (activations unchanged)", 4.5, 0, NULL},
    {"matrix math at TF32 (weights and activations stay FP32)", 32, 32, "tf32"},
};

void rf__prec_init(const rf__adv *a, rf__prec *p, const char *title, double wbits, double abits,
                   const char *ceilings)
{
    memset(p, 0, sizeof *p);
    p->title = title;
    p->wbits = wbits;
    p->abits = abits;
    p->ceilings = ceilings;
    p->ci = ceilings ? rf_machine_find_prefix(a->m, RF_CEILING_COMPUTE, ceilings) : SIZE_MAX;
    p->peak = p->ci != SIZE_MAX ? a->m->ceilings[p->ci].value : a->roof.peak_flops_per_s;
    if (p->peak < a->roof.peak_flops_per_s) p->peak = a->roof.peak_flops_per_s; /* never slower */
}

int rf__prec_item(const rf__adv *a, rf__prec *p, const rf__item *x)
{
    rf_roof r = a->roof;
    if (x->fixed || x->no_lowp) { /* communication, dispatch, an FFT: as they are */
        p->after += x->t_s;
        return 0;
    }
    if (p->wbits >= 32) { /* TF32: FP32 data, matrix products on the TF32 ceiling */
        int fp32 = x->matrix && x->abits >= 32 && (x->wbytes <= 0 || x->wbits >= 32);
        p->touched += fp32 && p->ci != SIZE_MAX && p->peak > a->roof.peak_flops_per_s;
        r.peak_flops_per_s = fp32 ? p->peak : a->roof.peak_flops_per_s;
        p->after +=
            rf__scaled(x, rf__advice_time(&r, x, x->flops, x->wbytes + x->abytes + x->kvbytes));
        return fp32;
    }
    double wb = x->wbits > p->wbits ? x->wbytes * p->wbits / x->wbits : x->wbytes;
    double ab = p->abits > 0 && x->abits > p->abits ? x->abytes * p->abits / x->abits : x->abytes;
    p->touched += wb < x->wbytes || ab < x->abytes;
    r.peak_flops_per_s = x->matrix ? p->peak : a->roof.peak_flops_per_s;
    p->after += rf__scaled(x, rf__advice_time(&r, x, x->flops, wb + ab + x->kvbytes));
    /* listed: the matrix layers whose bytes shrink */
    return x->matrix && ((x->wbytes > 0 && x->wbits > p->wbits) ||
                         (p->abits > 0 && x->abytes > 0 && x->abits > p->abits));
}

rf_status rf__prec_push(rf__adv *a, const rf__prec *p, rf_advice **out)
{
    *out = NULL;
    if (!p->touched) return RF_OK;                       /* already there */
    if (p->wbits == 8 && a->integer_model) return RF_OK; /* Q8_0, Q4_K, ...: integers already */
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_PRECISION, p->after, &v));
    rf__strlcpy(v->title, p->title, sizeof v->title);
    char pk[32];
    /* a quick peaks run measures no bf16/int8 ceiling: say so rather than "no ceiling" */
    int quick = a->m->provenance == RF_PROV_MEASURED && strstr(a->m->source, "--quick") != NULL;
    v->lossy = p->wbits < 32;
    if (p->ceilings && p->ci != SIZE_MAX)
        snprintf(v->ceiling, sizeof v->ceiling, "%s at %s", a->m->ceilings[p->ci].name,
                 rf_si_format(pk, sizeof pk, p->peak, 3, "FLOP/s"));
    else
        snprintf(v->ceiling, sizeof v->ceiling, "%s (%s)", a->m->ceilings[a->compute].name,
                 !p->ceilings ? "dequantised"
                 : quick      ? "not measured: 'roofline peaks --quick' leaves that precision "
                                "out; a full 'roofline peaks' measures it"
                              : "this machine has no ceiling at that precision");
    if (p->wbits >= 32) {
        snprintf(v->assumption, sizeof v->assumption,
                 "weights and activations stay FP32; matrix products on the TF32 ceiling (10-bit "
                 "mantissa products, FP32 sums: PyTorch's allow_tf32, cuBLAS/cuDNN TF32 math), the "
                 "rest as it is");
        *out = v;
        return RF_OK;
    }
    snprintf(v->assumption, sizeof v->assumption,
             "%s%s; matrix layers at the %s ceiling, the rest on the same bandwidth",
             p->abits > 0 ? "weights and activations stored at that size"
                          : "weights stored at that size, activations as they are",
             p->wbits == 4.5 ? " (4.5 bits a weight with the block scales, as Q4_K)" : "",
             p->ceilings && p->ci != SIZE_MAX ? "new" : "present");
    *out = v;
    return RF_OK;
}

static rf_status rf__precision(rf__adv *a, const char *title, double wbits, double abits,
                               const char *ceilings)
{
    rf__prec p;
    rf__prec_init(a, &p, title, wbits, abits, ceilings);
    for (size_t i = 0; i < a->n; i++) rf__prec_item(a, &p, &a->it[i]);
    rf_advice *v;
    RF_TRY(rf__prec_push(a, &p, &v));
    rf__prec_init(a, &p, title, wbits, abits, ceilings); /* the listed layers, in order */
    for (size_t i = 0; v && i < a->n; i++)
        if (rf__prec_item(a, &p, &a->it[i])) RF_TRY(rf__add_layer(a, v, a->it[i].name));
    return RF_OK;
}

static rf_status rf__kv(rf__adv *a)
{
    if (!a->llm || a->kv_bits <= 8) return RF_OK;
    double after = 0, kv = 0;
    for (size_t i = 0; i < a->n; i++) {
        const rf__item *x = &a->it[i];
        kv += x->kvbytes;
        after +=
            rf__scaled(x, rf__advice_time(&a->roof, x, x->flops,
                                          x->wbytes + x->abytes + x->kvbytes * 8 / a->kv_bits));
    }
    if (kv <= 0) return RF_OK;
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_KV_PRECISION, after, &v));
    v->lossy = 1;
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
    /* one pass sums every group at its head (a head's members all come after it) */
    double *sum = rf__calloc(a->ctx, a->n * 5, sizeof *sum); /* f, b, inter, t, est */
    size_t *members = rf__calloc(a->ctx, a->n, sizeof *members);
    uint8_t *has_attn = rf__calloc(a->ctx, a->n, 1);
    rf_status st = sum && members && has_attn ? RF_OK : RF_NOMEM_ERR(a->ctx);
    for (size_t i = 0; i < a->n && st == RF_OK; i++) {
        const rf__item *x = &a->it[i];
        size_t h = (size_t)head[i];
        double *g = &sum[5 * h];
        g[0] += x->flops;
        g[1] += x->wbytes + x->abytes + x->kvbytes;
        if (i != h) g[2] += x->inter;
        g[3] += x->t_s;
        g[4] += x->est_s;
        members[h]++;
        has_attn[h] |= x->attn_mm && a->it[x->producer].softmax;
    }
    for (int attn = 0; attn < 2 && st == RF_OK; attn++) {
        double after = a->total_s, saved_bytes = 0;
        size_t groups = 0;
        for (size_t h = 0; h < a->n; h++) {
            const double *g = &sum[5 * h];
            if (members[h] < 2 || has_attn[h] != attn) continue;
            double fused = rf__advice_eval(&a->roof, g[0], g[1] - 2 * g[2]);
            double t_after = g[4] > 0 ? g[3] * fused / g[4] : fused;
            after -= g[3] - t_after;
            saved_bytes += 2 * g[2];
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
    rf__free(a->ctx, sum);
    rf__free(a->ctx, members);
    rf__free(a->ctx, has_attn);
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
            double e =
                rf__advice_eval(&a->roof, b * x->flops, x->wbytes + b * (x->abytes + x->kvbytes));
            *cbound += b * x->flops / a->roof.peak_flops_per_s >=
                       (x->wbytes + b * (x->abytes + x->kvbytes)) / a->roof.bw_bytes_per_s;
            t += rf__scaled(x, e);
        } else { /* latency and dispatch are paid once a pass */
            t += x->batch_fixed_s + b * (x->t_s - x->batch_fixed_s);
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
        after -= x->t_s - rf__scaled(x, rf__advice_time(&a->roof, x, x->flops / 2,
                                                        x->wbytes / 2 + x->abytes + x->kvbytes));
        n++;
    }
    rf_status st = RF_OK;
    rf_advice *v;
    /* distillation retrains a model: worth a word only when it saves a HIGH share */
    if (distil && after > a->total_s * (1 - RF__ADV_HIGH)) n = 0;
    if (n && after < a->total_s &&
        (st = rf__push(a, distil ? RF_ADVICE_DISTILLATION : RF_ADVICE_PRUNING, after, &v)) ==
            RF_OK) {
        if (distil) {
            v->lossy = 1;
            snprintf(v->title, sizeof v->title, "distil the %zu heaviest layer%s into smaller ones",
                     n, n == 1 ? "" : "s");
            snprintf(v->assumption, sizeof v->assumption,
                     "a student layer with half the FLOPs and half the weights each (over 1 GFLOP, "
                     "else the three slowest matrix layers); accuracy is the user's to check");
        } else {
            v->lossy = 1;
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

rf_status rf__hw_init(rf__adv *a, rf__hw *h, const char *name)
{
    memset(h, 0, sizeof *h);
    RF_TRY(rf_machine_resolve(a->ctx, name, &h->m));
    return rf_machine_roof(a->ctx, h->m, h->m->default_compute, h->m->default_bandwidth, &h->r);
}

void rf__hw_item(const rf__adv *a, rf__hw *h, const rf__item *x)
{
    double b = x->wbytes + x->abytes + x->kvbytes;
    h->est += rf__advice_time(&h->r, x, x->flops, b);
    int here = x->flops / a->roof.peak_flops_per_s >= b / a->roof.bw_bytes_per_s;
    int there = x->flops / h->r.peak_flops_per_s >= b / h->r.bw_bytes_per_s;
    h->flips += (x->flops > 0 || b > 0) && here != there;
}

rf_status rf__hw_push(rf__adv *a, rf__hw *h)
{
    rf_advice *v;
    const rf_machine *m = h->m;
    double after = a->total_est > 0 ? a->total_s * h->est / a->total_est : h->est;
    RF_TRY(rf__push(a, RF_ADVICE_HARDWARE, after, &v));
    snprintf(v->title, sizeof v->title, "the same work on %s", m->name);
    char pk[32], bw[32];
    snprintf(v->ceiling, sizeof v->ceiling, "%.120s: %.60s %s, %.60s %s",
             m->description[0] ? m->description : m->name, m->ceilings[m->default_compute].name,
             rf_si_format(pk, sizeof pk, h->r.peak_flops_per_s, 4, "FLOP/s"),
             m->ceilings[m->default_bandwidth].name,
             rf_si_format(bw, sizeof bw, h->r.bw_bytes_per_s, 4, "B/s"));
    snprintf(v->assumption, sizeof v->assumption,
             "its default roof (%s); %llu layer%s change%s bound there",
             rf_provenance_name(m->provenance), (unsigned long long)h->flips,
             h->flips == 1 ? "" : "s", h->flips == 1 ? "s" : "");
    v->flips = h->flips;
    return RF_OK;
}

static rf_status rf__hardware(rf__adv *a, const char *name)
{
    rf__hw h;
    rf_status st = rf__hw_init(a, &h, name);
    for (size_t i = 0; st == RF_OK && i < a->n; i++) rf__hw_item(a, &h, &a->it[i]);
    if (st == RF_OK) st = rf__hw_push(a, &h);
    rf_machine_free(h.m);
    return st;
}

/* ---- ranking ------------------------------------------------------------------------------- */

static int rf__by_saving(const void *x, const void *y)
{
    const rf_advice *p = x, *q = y;
    int dp = p->dominant + (p->kind == RF_ADVICE_CHECK),
        dq = q->dominant + (q->kind == RF_ADVICE_CHECK);
    if (dp != dq) return dq - dp; /* a check, then the remedy of a dominant term, first */
    int hp = p->kind == RF_ADVICE_HARDWARE, hq = q->kind == RF_ADVICE_HARDWARE;
    if (hp != hq) return hp - hq; /* asked-for machines after the changes */
    /* a change that alters the model's numbers is ordered as if it saved RF__ADV_LOSSY less */
    double sp = p->saving_share * (p->lossy ? RF__ADV_LOSSY : 1);
    double sq = q->saving_share * (q->lossy ? RF__ADV_LOSSY : 1);
    return (sp < sq) - (sp > sq);
}

rf_status rf__out_new(rf__adv *a)
{
    a->out = rf__calloc(a->ctx, 1, sizeof *a->out);
    if (!a->out) return RF_NOMEM_ERR(a->ctx);
    a->out->alloc_ = *rf_ctx_allocator(a->ctx);
    rf__strlcpy(a->out->unit, a->llm ? "sequence" : "sample", sizeof a->out->unit);
    a->out->total_s = a->total_s;
    a->out->measured = a->measured;
    return RF_OK;
}

static rf_status rf__run(rf__adv *a, const rf_advice_opts *o)
{
    a->total_s = a->total_est = 0;
    for (size_t i = 0; i < a->n; i++) {
        a->total_s += a->it[i].t_s;
        a->total_est += a->it[i].est_s;
    }
    RF_TRY(rf__out_new(a));
    rf_status st = RF_OK;
    if (a->check[0][0]) { /* a measured rate above its ceiling: first, whatever follows */
        rf_advice *v;
        RF_TRY(rf__push(a, RF_ADVICE_CHECK, a->total_s, &v));
        v->dominant = 1;
        rf__strlcpy(v->title, a->check[0], sizeof v->title);
        rf__strlcpy(v->assumption, a->check[1], sizeof v->assumption);
    }
    if (a->total_s > 0 && !(o && o->machines_only)) {
        st = rf__parallelism(a);
        if (st == RF_OK) st = rf__dispatch(a);
        for (size_t k = 0; st == RF_OK && k < RF__PREC_KINDS; k++) {
            const rf__prec_kind *pk = &rf__prec_kinds[k];
            st = rf__precision(a, pk->title, pk->wbits, pk->abits, pk->ceilings);
        }
        if (st == RF_OK) st = rf__kv(a);
        if (st == RF_OK) st = rf__fusion(a);
        if (st == RF_OK) st = rf__batching(a);
        if (st == RF_OK) st = rf__shrink(a, 0);
        if (st == RF_OK) st = rf__shrink(a, 1);
    }
    for (size_t k = 0; st == RF_OK && o && k < o->n_what_if; k++)
        st = rf__hardware(a, o->what_if[k]);
    if (st != RF_OK) return st;
    return rf__rank(a, o);
}

rf_status rf__rank(rf__adv *a, const rf_advice_opts *o)
{
    rf_advice_list *l = a->out;
    /* Amdahl: under 1% of the run is left out (asked-for machines stay) */
    size_t keep = 0;
    for (size_t i = 0; i < l->n; i++) {
        rf_advice *v = &l->items[i];
        double s = v->saving_share;
        v->priority = v->kind == RF_ADVICE_CHECK ? "CHECK"
                      : s >= RF__ADV_HIGH        ? "HIGH"
                      : s >= RF__ADV_MEDIUM      ? "MEDIUM"
                                                 : "LOW";
        if (s >= RF__ADV_LOW || v->kind == RF_ADVICE_HARDWARE || v->dominant ||
            v->kind == RF_ADVICE_CHECK)
            l->items[keep++] = *v;
        else {
            for (size_t k = 0; k < v->n_layers; k++) rf__free(a->ctx, v->layers[k]);
            rf__free(a->ctx, v->layers);
            rf__free(a->ctx, v->batches);
        }
    }
    l->n = keep;
    if (l->n > 1) qsort(l->items, l->n, sizeof *l->items, rf__by_saving); /* none: no array */
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

rf_status rf__advice_finish(rf__adv *a, const rf_advice_opts *o, rf_advice_list **out)
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
