/* analysis.c — evaluates a stream of operations against one roof: keeps totals over all of them and
 * only the rows that will be printed (all, or the top N by the sort key in a bounded heap, so
 * memory is O(N) and time O(n log N) for a million rows). Produces the rf_result the renderers
 * draw. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_int.h"
#include "rf_int.h"
#include "roofline/analysis.h"

#define RF__LEVELS_MAX 8 /* memory levels with a capacity kept for the above-roof reasons */

struct rf_analysis {
    rf_ctx *ctx;
    rf_allocator a;
    rf_result head; /* machine and roof fields of the result; rows and totals filled at the end */
    rf_sort sort;
    uint64_t top; /* 0 = keep all */
    rf_row *rows; /* kept rows; a max-heap in output order when top > 0 */
    size_t n, cap;
    uint64_t next_index;
    uint64_t n_undefined_logged;
    rf__level levels[RF__LEVELS_MAX]; /* bandwidth ceilings with a capacity, for rf_achieved */
    size_t n_levels;
    int provisional;    /* the roof (either ceiling) is provisional */
    double tensor_peak; /* the machine's fp16/bf16 matrix-unit ceiling, FLOP/s; 0 without one */
    rf_row_observer observer;
    void *observer_user;
};

/* Output order: negative when x is printed before y. Ties keep input order. */
static int rf__row_cmp(rf_sort sort, const rf_row *x, const rf_row *y)
{
    int c = 0;
    switch (sort) {
    case RF_SORT_TIME: c = (x->e.time_s > y->e.time_s) ? -1 : (x->e.time_s < y->e.time_s); break;
    case RF_SORT_AI: {
        /* Undefined (NaN) intensities go last. */
        int xn = isnan(x->e.ai), yn = isnan(y->e.ai);
        if (xn || yn)
            c = xn - yn;
        else
            c = (x->e.ai < y->e.ai) ? -1 : (x->e.ai > y->e.ai);
        break;
    }
    case RF_SORT_NAME: c = strcmp(x->name, y->name); break;
    case RF_SORT_LOST: c = rf__achieved_cmp_lost(x, y); break;
    case RF_SORT_INPUT: break;
    }
    if (c) return c < 0 ? -1 : 1;
    return (x->index < y->index) ? -1 : (x->index > y->index);
}

rf_status rf_sort_parse(rf_ctx *ctx, const char *text, rf_sort *out)
{
    static const struct {
        const char *name;
        rf_sort sort;
    } t[] = {{"time", RF_SORT_TIME},
             {"ai", RF_SORT_AI},
             {"name", RF_SORT_NAME},
             {"input", RF_SORT_INPUT},
             {"lost", RF_SORT_LOST}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (rf__strcasecmp(text, t[i].name) == 0) {
            *out = t[i].sort;
            return RF_OK;
        }
    return rf__error(ctx, RF_USAGE, -1, "unknown sort key '%s' (use time, ai, name, input or lost)",
                     text);
}

rf_status rf_analysis_new(rf_ctx *ctx, const rf_machine *m, size_t compute, size_t bandwidth,
                          rf_sort sort, uint64_t top, rf_analysis **out)
{
    RF_CHECK(ctx, out && m, RF_USAGE, "rf_analysis_new: missing argument");
    *out = NULL;
    rf_roof roof;
    RF_TRY(rf_machine_roof(ctx, m, compute, bandwidth, &roof));
    rf_analysis *a = rf__calloc(ctx, 1, sizeof *a);
    if (!a) return RF_NOMEM_ERR(ctx);
    a->ctx = ctx;
    a->a = *rf_ctx_allocator(ctx);
    a->sort = sort;
    a->top = top;
    rf_result *h = &a->head;
    rf__strlcpy(h->machine, m->name, sizeof h->machine);
    rf__strlcpy(h->machine_description, m->description, sizeof h->machine_description);
    h->provenance = m->provenance;
    h->compute = m->ceilings[compute];
    h->bandwidth = m->ceilings[bandwidth];
    h->roof = roof;
    h->ridge_ai = roof.peak_flops_per_s / roof.bw_bytes_per_s;
    h->sort = sort;
    h->top = top;
    h->totals.busy_other = -1;
    a->provisional = h->compute.provisional || h->bandwidth.provisional;
    for (size_t i = 0; i < m->n_ceilings && a->n_levels < RF__LEVELS_MAX; i++) {
        const rf_ceiling *c = &m->ceilings[i];
        if (c->kind != RF_CEILING_BANDWIDTH || !(c->capacity_bytes > 0)) continue;
        rf__level *l = &a->levels[a->n_levels++];
        rf__strlcpy(l->name, c->name, sizeof l->name);
        l->bytes_per_s = c->value;
        l->capacity_bytes = c->capacity_bytes;
    }
    size_t t = rf_machine_find_prefix(m, RF_CEILING_COMPUTE, "fp16.tensor|bf16.tensor");
    if (t != SIZE_MAX && m->ceilings[t].value > roof.peak_flops_per_s)
        a->tensor_peak = m->ceilings[t].value;
    *out = a;
    return RF_OK;
}

static void rf__heap_sift_down(rf_analysis *a, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        if (l < a->n && rf__row_cmp(a->sort, &a->rows[l], &a->rows[big]) > 0) big = l;
        if (r < a->n && rf__row_cmp(a->sort, &a->rows[r], &a->rows[big]) > 0) big = r;
        if (big == i) return;
        rf_row t = a->rows[i];
        a->rows[i] = a->rows[big];
        a->rows[big] = t;
        i = big;
    }
}

static void rf__heap_sift_up(rf_analysis *a, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (rf__row_cmp(a->sort, &a->rows[i], &a->rows[p]) <= 0) return;
        rf_row t = a->rows[i];
        a->rows[i] = a->rows[p];
        a->rows[p] = t;
        i = p;
    }
}

static void rf__totals_add(rf_totals *t, const rf_eval *e)
{
    t->count++;
    t->flops += e->flops;
    t->bytes += e->bytes;
    t->time_s += e->time_s;
    t->net_bytes += e->net_bytes;
    t->count_by_bound[e->bound]++;
    t->time_by_bound_s[e->bound] += e->time_s;
    t->flops_by_bound[e->bound] += e->flops;
}

static void rf__row_release(rf_analysis *a, rf_row *r)
{
    rf__free_with(&a->a, r->name);
    rf__free_with(&a->a, r->op);
    rf__free_with(&a->a, r->detail);
    rf__free_with(&a->a, r->measured);
}

static char *rf__dup_with(rf_analysis *a, const char *s, size_t n)
{
    char *d = rf__malloc(a->ctx, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

rf_status rf_analysis_add(rf_analysis *a, const char *name, size_t name_len, const char *op,
                          double flops, double bytes)
{
    return rf_analysis_add_detail(a, name, name_len, op, NULL, 0, flops, bytes);
}

rf_status rf_analysis_add_detail(rf_analysis *a, const char *name, size_t name_len, const char *op,
                                 const char *detail, int quiet, double flops, double bytes)
{
    return rf_analysis_add_measured(a, name, name_len, op, detail, quiet, flops, bytes, NULL);
}

rf_status rf_analysis_set_wall(rf_analysis *a, double seconds)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    RF_CHECK(a->ctx, isfinite(seconds) && seconds > 0, RF_RANGE,
             "the wall time of the pass must be finite and positive, got %g s", seconds);
    a->head.totals.wall_s = seconds;
    return RF_OK;
}

rf_status rf_analysis_set_observer(rf_analysis *a, rf_row_observer fn, void *user)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    a->observer = fn;
    a->observer_user = user;
    return RF_OK;
}

rf_status rf_analysis_set_busy(rf_analysis *a, double share)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    RF_CHECK(a->ctx, !isnan(share) && share <= 1, RF_RANGE,
             "other processes' share of the CPU must be at most 1, got %g", share);
    a->head.totals.busy_other = share < 0 ? -1 : share;
    return RF_OK;
}

rf_status rf_analysis_set_network(rf_analysis *a, const rf_machine *m, size_t network)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    RF_CHECK(
        a->ctx, m && network < m->n_ceilings && m->ceilings[network].kind == RF_CEILING_NETWORK,
        RF_USAGE, "machine '%s': ceiling %zu is not a network ceiling", m ? m->name : "?", network);
    a->head.network = m->ceilings[network];
    return RF_OK;
}

rf_status rf_analysis_add_measured(rf_analysis *a, const char *name, size_t name_len,
                                   const char *op, const char *detail, int quiet, double flops,
                                   double bytes, const rf_measured *m)
{
    return rf_analysis_add_net(a, name, name_len, op, detail, quiet, flops, bytes, 0, m);
}

/* One row under `roof` (the analysis roof, or its copy with a row's own compute peak). */
static rf_status rf__analysis_add_row(rf_analysis *a, const rf_roof *roof, const char *name,
                                      size_t name_len, const char *op, const char *detail,
                                      int quiet, double flops, double bytes, double net_bytes,
                                      const rf_measured *m)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    rf_row row;
    rf_achieved ach; /* on the stack until the row is kept (the heap compares by it) */
    memset(&row, 0, sizeof row);
    rf_status est =
        rf_roof_eval_net(a->ctx, roof, a->head.network.value, flops, bytes, net_bytes, &row.e);
    if (est != RF_OK) { /* the row's name in front of the reason */
        char why[512];
        rf__strlcpy(why, rf_ctx_errmsg(a->ctx), sizeof why);
        return rf__error(a->ctx, est, -1, "operation '%.*s': %s",
                         (int)(name_len > 200 ? 200 : name_len), name, why);
    }
    /* Totals that pass DBL_MAX would be written as null, which no reader takes back: refuse. */
    const rf_totals *t = &a->head.totals;
    int f_ok = isfinite(t->flops + row.e.flops),
        b_ok = isfinite(t->bytes + row.e.bytes) && isfinite(t->net_bytes + row.e.net_bytes);
    RF_CHECK(a->ctx, f_ok && b_ok && isfinite(t->time_s + row.e.time_s), RF_RANGE,
             "operation '%.*s': the sum of %s over the operations passes %g, the largest number "
             "kept",
             (int)(name_len > 200 ? 200 : name_len), name,
             !f_ok   ? "FLOPs"
             : !b_ok ? "bytes"
                     : "times",
             DBL_MAX);
    if (m) {
        char what[240];
        rf_measured ok;
        snprintf(what, sizeof what, "operation '%.*s'", (int)(name_len > 200 ? 200 : name_len),
                 name);
        RF_TRY(rf__measured_check(a->ctx, m, what, &ok));
        rf__achieved_eval(&row.e, roof, a->provisional, a->levels, a->n_levels, &ok, &ach);
        row.measured = &ach;
    }
    row.index = a->next_index++;
    rf__totals_add(&a->head.totals, &row.e);
    rf__achieved_totals_add(&a->head.totals, &row.e, row.measured);
    if (row.e.bound == RF_BOUND_UNDEFINED && !quiet && a->n_undefined_logged++ < 10)
        rf__log(a->ctx, RF_LOG_WARN,
                "operation '%.*s' has no FLOPs and no bytes: cost unknown, "
                "listed as undefined",
                (int)(name_len > 200 ? 200 : name_len), name);
    if (a->observer) RF_TRY(a->observer(a->observer_user, &row, name, name_len));
    /* With a full heap, a row that sorts after the current last one is not kept: no copy made. */
    int full = a->top && a->n == a->top;
    if (full && a->sort != RF_SORT_NAME && rf__row_cmp(a->sort, &row, &a->rows[0]) >= 0)
        return RF_OK; /* the comparison reads no name for these keys */
    row.name = rf__dup_with(a, name, name_len);
    row.op = op ? rf__dup_with(a, op, strlen(op)) : NULL;
    row.detail = detail ? rf__dup_with(a, detail, strlen(detail)) : NULL;
    if (m && (row.measured = rf__malloc(a->ctx, sizeof ach)) != NULL) *row.measured = ach;
    if (!row.name || (op && !row.op) || (detail && !row.detail) || (m && !row.measured)) {
        rf__row_release(a, &row);
        return RF_NOMEM_ERR(a->ctx);
    }
    if (full) {
        if (rf__row_cmp(a->sort, &row, &a->rows[0]) >= 0) {
            rf__row_release(a, &row);
            return RF_OK;
        }
        rf__row_release(a, &a->rows[0]);
        a->rows[0] = row;
        rf__heap_sift_down(a, 0);
        return RF_OK;
    }
    rf_status st = rf__grow(a->ctx, (void **)&a->rows, &a->cap, a->n + 1, sizeof *a->rows);
    if (st != RF_OK) {
        rf__row_release(a, &row);
        return st;
    }
    a->rows[a->n++] = row;
    if (a->top) rf__heap_sift_up(a, a->n - 1);
    return RF_OK;
}

rf_status rf_analysis_add_net(rf_analysis *a, const char *name, size_t name_len, const char *op,
                              const char *detail, int quiet, double flops, double bytes,
                              double net_bytes, const rf_measured *m)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    return rf__analysis_add_row(a, &a->head.roof, name, name_len, op, detail, quiet, flops, bytes,
                                net_bytes, m);
}

rf_status rf__analysis_add_tensor(rf_analysis *a, const char *name, size_t name_len, const char *op,
                                  const char *detail, int quiet, double flops, double tensor_flops,
                                  double bytes, const rf_measured *m)
{
    if (!a) return RF_USAGE;
    rf_roof roof = a->head.roof;
    double p0 = roof.peak_flops_per_s;
    if (a->tensor_peak > 0 && tensor_flops > 0 && flops > 0 && tensor_flops <= flops)
        roof.peak_flops_per_s =
            flops / (tensor_flops / a->tensor_peak + (flops - tensor_flops) / p0);
    return rf__analysis_add_row(a, &roof, name, name_len, op, detail, quiet, flops, bytes, 0, m);
}

/* Heap sort in place (qsort would need the sort key in a global): repeatedly moves the
 * last-in-order row to the end. */
static void rf__sort_rows(rf_analysis *a)
{
    if (!a->top) {
        /* Build a heap of all rows, then pop: O(n log n), in place, deterministic. */
        for (size_t i = a->n / 2; i-- > 0;) rf__heap_sift_down(a, i);
    }
    size_t n = a->n;
    while (a->n > 1) {
        rf_row t = a->rows[0];
        a->rows[0] = a->rows[a->n - 1];
        a->rows[a->n - 1] = t;
        a->n--;
        rf__heap_sift_down(a, 0);
    }
    a->n = n;
}

rf_status rf_analysis_finish(rf_analysis *a, const char *title, rf_result **out)
{
    if (!a) return RF_USAGE; /* no context to hold a message */
    RF_CHECK(a->ctx, out, RF_USAGE, "rf_analysis_finish: missing argument");
    *out = NULL;
    rf_result *r = rf__malloc(a->ctx, sizeof *r);
    if (!r) return RF_NOMEM_ERR(a->ctx);
    if (a->n_undefined_logged > 10)
        rf__log(a->ctx, RF_LOG_WARN, "%llu operations in all have an unknown cost (undefined)",
                (unsigned long long)a->n_undefined_logged);
    if (a->sort != RF_SORT_INPUT || a->top) rf__sort_rows(a);
    *r = a->head;
    rf__strlcpy(r->title, title ? title : "", sizeof r->title);
    rf_totals *t = &r->totals;
    t->ai = t->bytes > 0 ? t->flops / t->bytes : (t->flops > 0 ? INFINITY : NAN);
    r->rows = a->rows;
    r->n_rows = a->n;
    r->alloc_ = a->a;
    a->rows = NULL;
    a->n = a->cap = 0;
    *out = r;
    return RF_OK;
}

void rf_analysis_free(rf_analysis *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->n; i++) rf__row_release(a, &a->rows[i]);
    rf__free_with(&a->a, a->rows);
    rf_allocator al = a->a;
    rf__free_with(&al, a);
}

void rf_result_free(rf_result *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n_rows; i++) {
        rf__free_with(&r->alloc_, r->rows[i].name);
        rf__free_with(&r->alloc_, r->rows[i].op);
        rf__free_with(&r->alloc_, r->rows[i].detail);
        rf__free_with(&r->alloc_, r->rows[i].measured);
    }
    rf__free_with(&r->alloc_, r->rows);
    rf_allocator al = r->alloc_;
    rf__free_with(&al, r);
}
