/* advice_terms.c — the terms of a run no layer change moves (advice_int.h): the dispatch overhead
 * of a measured pass and the link's time of an LLM over devices, each a fixed item, and the
 * changes that do move them — fusion, a graph runtime or larger batches; a TP degree or a faster
 * link (docs/advice.md). Never prints. */
#include <stdio.h>
#include <string.h>

#include "advice_int.h"
#include "core/rf_int.h"

rf_status rf__add_fixed(rf__adv *a, const char *name, double t_s, double batch_fixed_s)
{
    rf__item *it = rf__realloc(a->ctx, a->it, (a->n + 1) * sizeof *it);
    if (!it) return RF_NOMEM_ERR(a->ctx);
    a->it = it;
    rf__item *x = &it[a->n++];
    memset(x, 0, sizeof *x);
    x->name = name;
    x->fixed = 1;
    x->t_s = x->est_s = x->net_s = t_s;
    x->batch_fixed_s = batch_fixed_s;
    x->wbits = x->abits = 32;
    x->producer = -1;
    return RF_OK;
}

/* The measured pass spent between its layers: fusion, a graph runtime, larger batches. */
rf_status rf__dispatch(rf__adv *a)
{
    if (a->overhead_s <= 0 || a->total_s <= 0) return RF_OK;
    rf_advice *v;
    RF_TRY(rf__push(a, RF_ADVICE_DISPATCH, a->total_s - a->overhead_s, &v));
    v->dominant = v->saving_share >= RF__ADV_DOMINANT;
    char o[32], t[32];
    snprintf(v->title, sizeof v->title,
             "cut the dispatch overhead: %s of the %s pass (%.0f%%) is spent between the layers "
             "-- fuse layers, run the model as one graph, or batch more",
             rf_time_format(o, sizeof o, a->overhead_s, 3),
             rf_time_format(t, sizeof t, a->total_s, 3), 100 * v->saving_share);
    snprintf(v->assumption, sizeof v->assumption,
             "the gap between the measured pass and its layers is dispatch (framework calls, "
             "launches, syncs): fusion cuts the dispatches, a graph runtime (CUDA Graphs, ONNX "
             "Runtime, torch.compile) their cost, a batch shares them; the saving is the whole "
             "gap, an upper bound");
    return RF_OK;
}

/* LLMs over devices: the TP degree of the scan that decodes fastest, else a faster link. */
rf_status rf__parallelism(rf__adv *a)
{
    const rf_llm_dist *d = a->dist;
    if (!d || (d->o.tp <= 1 && d->o.pp <= 1) || a->total_s <= 0) return RF_OK;
    const rf_llm_dist_phase *ph = &d->phase[1];
    const rf_llm_dist_scan *best = NULL;
    for (size_t i = 0; i < d->n_scan; i++)
        if (!best || d->scan[i].decode_tokens_per_s > best->decode_tokens_per_s) best = &d->scan[i];
    double tp = d->o.tp, lat_s = (double)ph->allreduces * 2 * (tp - 1) * d->o.link_latency_s +
                                 (d->o.pp - 1) * d->o.link_latency_s;
    double share = ph->comm_s / a->total_s;
    char c[32], p[32], l[32], x[32], y[32], scan[256] = "";
    size_t len = 0;
    for (size_t i = 0; i < d->n_scan; i++)
        rf__appendf(scan, sizeof scan, &len, "%sTP %u %s", i ? ", " : "", d->scan[i].tp,
                    rf_si_format_compact(x, sizeof x, d->scan[i].decode_tokens_per_s, ""));
    rf_advice *v;
    int link = 0;
    if (best && best->tp != d->o.tp && best->decode_tokens_per_s > 1.01 * ph->tokens_per_s) {
        RF_TRY(rf__push(a, RF_ADVICE_PARALLELISM,
                        a->total_s * ph->tokens_per_s / best->decode_tokens_per_s, &v));
        snprintf(v->title, sizeof v->title,
                 "%s tensor parallelism: TP %u instead of %u, %s instead of %s tokens/s",
                 best->tp < d->o.tp ? "lower" : "raise", best->tp, d->o.tp,
                 rf_si_format_compact(x, sizeof x, best->decode_tokens_per_s, ""),
                 rf_si_format_compact(y, sizeof y, ph->tokens_per_s, ""));
    } else if (share >= RF__ADV_HIGH) {
        RF_TRY(rf__push(a, RF_ADVICE_PARALLELISM, a->total_s - ph->comm_s / 2, &v));
        link = 1;
        snprintf(v->title, sizeof v->title,
                 "a faster link than %s: the communication is %.0f%% of a decode step", d->o.link,
                 100 * share);
    } else {
        return RF_OK;
    }
    v->dominant = share >= RF__ADV_DOMINANT;
    int cut =
        snprintf(v->assumption, sizeof v->assumption,
                 "at TP %u the link takes %s of the %s step (%.0f%%), %s of it latency (%llu "
                 "allreduces x %.0f messages x %s): more bandwidth saves at most %s; %s; TP scan "
                 "(tokens/s): %s",
                 d->o.tp, rf_time_format(c, sizeof c, ph->comm_s, 3),
                 rf_time_format(p, sizeof p, a->total_s, 3), 100 * share,
                 rf_time_format(l, sizeof l, lat_s, 3), (unsigned long long)ph->allreduces,
                 2 * (tp - 1), rf_time_format(x, sizeof x, d->o.link_latency_s, 3),
                 rf_time_format(y, sizeof y, ph->comm_s > lat_s ? ph->comm_s - lat_s : 0, 3),
                 link ? "a link twice as fast (half the latency, twice the bandwidth) halves the "
                        "communication"
                      : "the scan holds the batch and the link",
                 scan);
    (void)cut; /* a long TP scan is cut at the field's size: the figures before it are whole */
    return RF_OK;
}
