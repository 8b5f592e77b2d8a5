/* cluster.c — machines of many nodes as one allocation (include/roofline/cluster.h): the spread of
 * each ceiling over the nodes, the aggregate machine (compute and bandwidth ceilings every node
 * has, summed), and the network ceilings from ping-pong and allreduce curves. Pure arithmetic on
 * what the caller gathered (cli/mpi_peaks.c under MPI); never measures, never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rf_int.h"
#include "roofline/cluster.h"

rf_status rf_cluster_new(rf_ctx *ctx, rf_cluster **out)
{
    RF_CHECK(ctx, out, RF_USAGE, "rf_cluster_new: missing argument");
    *out = rf__calloc(ctx, 1, sizeof **out);
    if (!*out) return RF_NOMEM_ERR(ctx);
    (*out)->alloc_ = *rf_ctx_allocator(ctx);
    return RF_OK;
}

void rf_cluster_free(rf_cluster *c)
{
    if (!c) return;
    rf_allocator a = c->alloc_;
    for (size_t i = 0; i < c->n_nodes; i++) rf_machine_free(c->nodes[i]);
    rf__free_with(&a, c->nodes);
    rf__free_with(&a, c->names);
    rf__free_with(&a, c->spread);
    rf_machine_free(c->aggregate);
    rf__free_with(&a, c);
}

rf_status rf_cluster_add_node(rf_ctx *ctx, rf_cluster *c, const char *name, const rf_machine *m)
{
    RF_CHECK(ctx, c && name && m, RF_USAGE, "rf_cluster_add_node: missing argument");
    if (c->n_nodes == c->cap_) {
        size_t cap = c->cap_ ? 2 * c->cap_ : 8;
        rf_machine **n = rf__realloc(ctx, c->nodes, cap * sizeof *n);
        if (!n) return RF_NOMEM_ERR(ctx);
        c->nodes = n;
        char(*nm)[RF_NAME_MAX] = rf__realloc(ctx, c->names, cap * sizeof *nm);
        if (!nm) return RF_NOMEM_ERR(ctx);
        c->names = nm;
        c->cap_ = cap;
    }
    rf_machine *copy = NULL;
    RF_TRY(rf_machine_clone(ctx, m, &copy));
    c->nodes[c->n_nodes] = copy;
    rf__strlcpy(c->names[c->n_nodes], name, RF_NAME_MAX);
    c->n_nodes++;
    return RF_OK;
}

double rf_allreduce_busbw(double bytes, double seconds, unsigned ranks)
{
    if (ranks < 2 || !(seconds > 0)) return 0;
    return bytes / seconds * 2.0 * (double)(ranks - 1) / (double)ranks;
}

static rf_status rf__curve(rf_ctx *ctx, rf_cluster_curve *cv, const double *bytes,
                           const double *seconds, size_t n, const char *what)
{
    RF_CHECK(ctx, n >= 1 && n <= 32, RF_USAGE, "%s: 1 to 32 message sizes, got %zu", what, n);
    for (size_t i = 0; i < n; i++)
        RF_CHECK(ctx, isfinite(bytes[i]) && bytes[i] > 0 && isfinite(seconds[i]) && seconds[i] > 0,
                 RF_RANGE, "%s: message %zu: %g bytes in %g s is not a measurement", what, i,
                 bytes[i], seconds[i]);
    cv->n = n;
    memcpy(cv->bytes, bytes, n * sizeof *bytes);
    memcpy(cv->seconds, seconds, n * sizeof *seconds);
    for (size_t i = 0; i < n; i++) cv->rate[i] = bytes[i] / seconds[i];
    return RF_OK;
}

rf_status rf_cluster_set_pingpong(rf_ctx *ctx, rf_cluster *c, int inter, const double *bytes,
                                  const double *half_rtt_s, size_t n)
{
    RF_CHECK(ctx, c && bytes && half_rtt_s, RF_USAGE, "rf_cluster_set_pingpong: missing argument");
    return rf__curve(ctx, inter ? &c->p2p_inter : &c->p2p_intra, bytes, half_rtt_s, n,
                     inter ? "ping-pong across nodes" : "ping-pong within a node");
}

rf_status rf_cluster_set_allreduce(rf_ctx *ctx, rf_cluster *c, unsigned ranks, const double *bytes,
                                   const double *seconds, size_t n)
{
    RF_CHECK(ctx, c && bytes && seconds && ranks >= 2, RF_USAGE,
             "rf_cluster_set_allreduce: at least two ranks");
    RF_TRY(rf__curve(ctx, &c->allreduce, bytes, seconds, n, "allreduce"));
    for (size_t i = 0; i < n; i++)
        c->allreduce.rate[i] = rf_allreduce_busbw(bytes[i], seconds[i], ranks);
    c->ranks = ranks;
    return RF_OK;
}

static int rf__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The spread of ceiling `name` over the nodes that have it; 0 when fewer than one. */
static size_t rf__spread(const rf_cluster *c, const rf_ceiling *ce, double *vals,
                         rf_cluster_spread *s)
{
    memset(s, 0, sizeof *s);
    rf__strlcpy(s->name, ce->name, sizeof s->name);
    s->kind = ce->kind;
    s->min = INFINITY;
    for (size_t i = 0; i < c->n_nodes; i++) {
        long k = rf_machine_find(c->nodes[i], ce->name);
        if (k < 0 || c->nodes[i]->ceilings[k].kind != ce->kind) continue;
        double v = c->nodes[i]->ceilings[k].value;
        vals[s->n++] = v;
        if (v < s->min) s->min = v, s->slowest = i;
        if (v > s->max) s->max = v;
    }
    if (!s->n) return 0;
    if (s->n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(vals, s->n, sizeof *vals, rf__cmp_double);
    s->median = s->n % 2 ? vals[s->n / 2] : (vals[s->n / 2 - 1] + vals[s->n / 2]) / 2;
    s->slowest_ratio = s->median > 0 ? s->min / s->median : 0;
    for (size_t i = 0; i < s->n; i++) s->n_slow += vals[i] < RF_CLUSTER_SLOW * s->median;
    return s->n;
}

static rf_status rf__net_ceiling(rf_ctx *ctx, rf_machine *m, const char *name,
                                 const rf_cluster_curve *cv, unsigned ranks, const char *how)
{
    if (!cv->n) return RF_OK;
    rf_ceiling ce;
    memset(&ce, 0, sizeof ce);
    rf__strlcpy(ce.name, name, sizeof ce.name);
    ce.kind = RF_CEILING_NETWORK;
    ce.provenance = RF_PROV_MEASURED;
    size_t best = 0;
    double lo = INFINITY;
    for (size_t i = 0; i < cv->n; i++) {
        if (cv->rate[i] > cv->rate[best]) best = i;
        if (cv->rate[i] < lo) lo = cv->rate[i];
    }
    ce.value = cv->rate[best];
    ce.stats.threads = ranks;
    ce.stats.repetitions = (uint32_t)cv->n;
    ce.stats.min = lo;
    ce.stats.median = ce.value;
    ce.stats.max = ce.value;
    snprintf(ce.source, sizeof ce.source, "roofline peaks --mpi: %s over %u ranks", how, ranks);
    char a[32], b[32], t[32];
    snprintf(ce.note, sizeof ce.note, "best at %s messages; %s for %s",
             rf_bytes_format_iec(a, sizeof a, cv->bytes[best], 3),
             rf_time_format(t, sizeof t, cv->seconds[0], 3),
             rf_bytes_format_iec(b, sizeof b, cv->bytes[0], 3));
    return rf_machine_add(ctx, m, &ce);
}

rf_status rf_cluster_finish(rf_ctx *ctx, rf_cluster *c)
{
    RF_CHECK(ctx, c && c->n_nodes >= 1, RF_USAGE, "rf_cluster_finish: no node");
    const rf_machine *first = c->nodes[0];
    rf__free_with(&c->alloc_, c->spread);
    c->spread = rf__calloc(ctx, first->n_ceilings ? first->n_ceilings : 1, sizeof *c->spread);
    double *vals = rf__calloc(ctx, c->n_nodes, sizeof *vals);
    if (!c->spread || !vals) {
        rf__free_with(&c->alloc_, vals);
        return RF_NOMEM_ERR(ctx);
    }
    c->n_spread = 0;
    rf_machine_free(c->aggregate);
    c->aggregate = NULL;
    rf_status st = rf_machine_new(ctx, "cluster", &c->aggregate);
    rf_machine *ag = c->aggregate;
    if (st == RF_OK) {
        snprintf(ag->description, sizeof ag->description, "%zu node%s (%u ranks) measured together",
                 c->n_nodes, c->n_nodes == 1 ? "" : "s",
                 c->ranks ? c->ranks : (unsigned)c->n_nodes);
        rf__strlcpy(ag->kind, "cluster", sizeof ag->kind);
        ag->provenance = RF_PROV_MEASURED;
        rf__strlcpy(ag->source, "roofline peaks --mpi", sizeof ag->source);
    }
    for (size_t k = 0; st == RF_OK && k < first->n_ceilings; k++) {
        const rf_ceiling *ce = &first->ceilings[k];
        if (ce->kind == RF_CEILING_NETWORK) continue;
        rf_cluster_spread *s = &c->spread[c->n_spread];
        if (!rf__spread(c, ce, vals, s)) continue;
        c->n_spread++;
        if (s->n != c->n_nodes) continue; /* the aggregate: what every node has */
        rf_ceiling sum = *ce;
        sum.value = 0;
        for (size_t i = 0; i < c->n_nodes; i++)
            sum.value += c->nodes[i]->ceilings[rf_machine_find(c->nodes[i], ce->name)].value;
        sum.stats.min = s->min;
        sum.stats.median = s->median;
        sum.stats.max = s->max;
        sum.capacity_bytes = ce->capacity_bytes * (double)c->n_nodes;
        snprintf(sum.note, sizeof sum.note,
                 "sum over %zu nodes; per node min %.4g, median %.4g, max %.4g", c->n_nodes, s->min,
                 s->median, s->max);
        st = rf_machine_add(ctx, ag, &sum);
    }
    rf__free_with(&c->alloc_, vals);
    if (st == RF_OK && first->default_compute < first->n_ceilings) {
        long i = rf_machine_find(ag, first->ceilings[first->default_compute].name);
        if (i >= 0) ag->default_compute = (size_t)i;
    }
    if (st == RF_OK && first->default_bandwidth < first->n_ceilings) {
        long i = rf_machine_find(ag, first->ceilings[first->default_bandwidth].name);
        if (i >= 0) ag->default_bandwidth = (size_t)i;
    }
    unsigned r = c->ranks ? c->ranks : 2;
    if (st == RF_OK)
        st = rf__net_ceiling(ctx, ag, "net.p2p.intra", &c->p2p_intra, 2,
                             "ping-pong between two ranks on one node");
    if (st == RF_OK)
        st = rf__net_ceiling(ctx, ag, "net.p2p.inter", &c->p2p_inter, 2,
                             "ping-pong between ranks on two nodes");
    if (st == RF_OK)
        st = rf__net_ceiling(ctx, ag, "net.allreduce.busbw", &c->allreduce, r,
                             "allreduce bus bandwidth (nccl-tests' busbw)");
    return st;
}
