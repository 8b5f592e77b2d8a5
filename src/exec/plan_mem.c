/* plan_mem.c — the executor's memory and one pass: tensor lifetimes over the steps, one arena
 * where a tensor's space is reused after its last consumer, weights and inputs filled with
 * synthetic values and packed once, oneDNN memory objects bound, and running every step once.
 * It never times more than one step at a time and never repeats passes (run.c does). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec_int.h"

rf_status rf__xplan_build(rf__xplan *p);

static uint32_t root(const rf__xplan *p, uint32_t t)
{
    while (p->t[t].alias != RF__XNONE) t = p->t[t].alias;
    return t;
}

/* First and last step of every tensor's storage (aliases count for the tensor they view). */
static void lifetimes(rf__xplan *p)
{
    for (size_t s = 0; s < p->n_steps; s++) {
        const rf__xstep *st = &p->steps[s];
        uint32_t n = st->prim ? st->n_args : st->n_io;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t t = st->prim ? st->args[k].t : st->io[k];
            if (t == RF__XSCRATCH) continue;
            p->t[t].used = 1;
            uint32_t r = root(p, t);
            p->t[r].used = 1;
            if (p->t[r].first < 0) p->t[r].first = (int64_t)s;
            p->t[r].last = (int64_t)s;
        }
    }
    for (size_t t = 0; t < p->n_t; t++) /* a view that is a graph output keeps its bytes */
        if (p->t[t].persistent && p->t[t].alias != RF__XNONE) p->t[root(p, t)].persistent = 1;
    for (size_t s = 0; s < p->n_steps; s++) { /* what a folded step writes outlives the arena */
        const rf__xstep *st = &p->steps[s];
        uint32_t n = st->prim ? st->n_args : st->n_io;
        for (uint32_t k = 0; st->fold && k < n; k++) {
            uint32_t t = st->prim ? st->args[k].t : st->io[k];
            if (t != RF__XSCRATCH) p->t[root(p, t)].persistent = 1;
        }
    }
}

/* Order of placement: by first use, then by index (qsort's context-free comparator reads both
 * from a pair). */
typedef struct {
    int64_t first;
    size_t t;
} rf__by_first;

static int rf__cmp_first(const void *a, const void *b)
{
    const rf__by_first *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* First-fit placement of the non-persistent roots, in order of first use. The tensors still
 * alive are kept sorted by offset and dropped once past their last use, so placing n tensors
 * costs O(n log n + n * alive), not O(n^2) (a 200k-layer chain keeps two or three alive). */
static rf_status place(rf__xplan *p)
{
    size_t n = 0, m = 0;
    rf__by_first *order = rf__calloc(p->ctx, p->n_t + 1, sizeof *order);
    size_t *live = rf__calloc(p->ctx, p->n_t + 1, sizeof *live);
    if (!order || !live) {
        rf__free(p->ctx, order);
        rf__free(p->ctx, live);
        return RF_NOMEM_ERR(p->ctx);
    }
    for (size_t t = 0; t < p->n_t; t++)
        if (p->t[t].ready && !p->t[t].persistent && p->t[t].alias == RF__XNONE &&
            p->t[t].first >= 0)
            order[n].first = p->t[t].first, order[n++].t = t;
    if (n > 1) qsort(order, n, sizeof *order, rf__cmp_first);
    for (size_t i = 0; i < n; i++) {
        rf__xtensor *x = &p->t[order[i].t];
        size_t size = (x->bytes + 63) & ~(size_t)63, off = 0, keep = 0;
        for (size_t j = 0; j < m; j++) /* drop the dead, keeping the offset order */
            if (p->t[live[j]].last >= x->first) live[keep++] = live[j];
        m = keep;
        size_t at = 0;
        for (; at < m; at++) { /* lowest gap that fits */
            const rf__xtensor *y = &p->t[live[at]];
            if (off + size <= y->offset) break;
            size_t end = y->offset + ((y->bytes + 63) & ~(size_t)63);
            if (end > off) off = end;
        }
        x->offset = off;
        if (off + size > p->arena_bytes) p->arena_bytes = off + size;
        size_t k = m++; /* insert by offset */
        for (; k > 0 && p->t[live[k - 1]].offset > off; k--) live[k] = live[k - 1];
        live[k] = order[i].t;
    }
    rf__free(p->ctx, order);
    rf__free(p->ctx, live);
    return RF_OK;
}

static void *aligned(void *raw)
{
    return (void *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
}

static rf_status check_total(rf__xplan *p)
{
    double total = (double)p->arena_bytes + (double)p->scratch_bytes;
    for (size_t t = 0; t < p->n_t; t++)
        if (p->t[t].ready && p->t[t].persistent && p->t[t].alias == RF__XNONE)
            total += (double)p->t[t].bytes;
    const char *what;
    double usable = (double)rf__mem_usable(&what);
    if (total > 0.9 * usable) /* what the process may really take now, with room for the rest */
        return rf__error(p->ctx, RF_RANGE, -1,
                         "measuring needs %.3g GB for the executor's tensors; %s allows %.3g GB "
                         "now",
                         total / 1e9, what, usable / 1e9);
    return RF_OK;
}

/* Run a reorder once, outside the passes (weight packing, reading a tensor back). */
static rf_status reorder_once(rf__xplan *p, const dnnl_memory_desc_t *from, void *src,
                              const dnnl_memory_desc_t *to, void *dst)
{
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t a = NULL, b = NULL;
    int ok =
        dnnl_reorder_primitive_desc_create(&pd, from, p->eng, to, p->eng, NULL) == dnnl_success &&
        dnnl_primitive_create(&prim, pd) == dnnl_success &&
        dnnl_memory_create(&a, from, p->eng, src) == dnnl_success &&
        dnnl_memory_create(&b, to, p->eng, dst) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
        ok = dnnl_primitive_execute(prim, p->strm, 2, args) == dnnl_success &&
             dnnl_stream_wait(p->strm) == dnnl_success;
    }
    if (a) dnnl_memory_destroy(a);
    if (b) dnnl_memory_destroy(b);
    if (prim) dnnl_primitive_destroy(prim);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return ok ? RF_OK : rf__error(p->ctx, RF_INTERNAL, -1, "oneDNN reorder failed");
}

/* Allocate, fill and pack; bind the steps' arguments to their bytes. */
static rf_status finalize(rf__xplan *p)
{
    const rf_graph *g = p->g;
    RF_TRY(check_total(p));
    p->arena_raw = rf__malloc(p->ctx, p->arena_bytes + 64);
    p->scratch_raw = rf__malloc(p->ctx, p->scratch_bytes + 64);
    if (!p->arena_raw || !p->scratch_raw) return RF_NOMEM_ERR(p->ctx);
    p->peak_bytes = p->arena_bytes + p->scratch_bytes;
    for (size_t t = 0; t < p->n_t; t++) {
        rf__xtensor *x = &p->t[t];
        if (!x->ready || x->alias != RF__XNONE) continue;
        int needed = x->used || x->persistent;
        for (size_t k = g->n_tensors; k < p->n_t && !needed; k++)
            needed = p->t[k].copy_of == t && p->t[k].weight;
        if (!needed) continue;
        if (x->persistent) {
            x->raw = rf__malloc(p->ctx, x->bytes + 64);
            if (!x->raw) return RF_NOMEM_ERR(p->ctx);
            x->data = aligned(x->raw);
            if (x->used || t >= g->n_tensors) p->peak_bytes += x->bytes;
        } else {
            x->data = (float *)((char *)aligned(p->arena_raw) + x->offset);
        }
        if (x->fill && t >= g->n_tensors) memset(x->data, 0, x->bytes); /* zeros (RNN bias) */
        if (x->fill && x->shift_of != RF__XNONE && p->t[x->shift_of].data &&
            !p->t[x->shift_of].cst) /* filled: lower index (a folded one: fold_once) */
            for (size_t i = 0; i < x->bytes / 4 && i < p->t[x->shift_of].bytes / 4; i++)
                x->data[i] = p->t[x->shift_of].data[i] - x->shift;
        if (x->fill && t < g->n_tensors) {
            uint64_t n = x->bytes / 4;
            rf_tensor_elems(&g->tensors[t], &n);
            rf__exec_synth(g, (uint32_t)t, x->positive, x->integer, x->data, n);
        }
    }
    for (size_t t = 0; t < p->n_t; t++)
        if (p->t[t].alias != RF__XNONE) p->t[t].data = p->t[root(p, (uint32_t)t)].data;
    for (size_t t = g->n_tensors; t < p->n_t; t++) { /* pack weights, then drop unused plains */
        rf__xtensor *x = &p->t[t];
        if (x->weight && x->copy_of != RF__XNONE && x->data)
            RF_TRY(reorder_once(p, &x->copy_src_md, p->t[x->copy_of].data, &x->md, x->data));
    }
    for (size_t t = 0; t < p->n_t; t++) { /* graph tensors, and shifted weights once packed */
        rf__xtensor *x = &p->t[t];
        if (t >= g->n_tensors && x->shift_of == RF__XNONE) continue;
        if (x->raw && !x->used &&
            (t >= g->n_tensors || !(g->tensors[t].flags & RF_TENSOR_OUTPUT))) {
            rf__free(p->ctx, x->raw);
            x->raw = NULL;
            x->data = NULL;
        }
    }
    void *scratch = aligned(p->scratch_raw);
    for (size_t s = 0; s < p->n_steps; s++) {
        rf__xstep *st = &p->steps[s];
        for (uint32_t k = 0; k < st->n_args; k++) {
            rf__xprim_arg *a = &st->args[k];
            void *ptr = a->t == RF__XSCRATCH ? scratch : (void *)p->t[a->t].data;
            if (dnnl_memory_create(&a->mem, &a->md, p->eng, ptr) != dnnl_success)
                return rf__error(p->ctx, RF_INTERNAL, -1, "oneDNN could not bind a tensor");
        }
        for (uint32_t k = 0; k < st->n_io; k++) {
            st->ptr[k] = p->t[st->io[k]].data;
            if (!st->ptr[k] && st->cfn)
                return rf__error(p->ctx, RF_INTERNAL, -1, "layer '%s': tensor without storage",
                                 g->layers[st->layer].name);
        }
    }
    return RF_OK;
}

/* The bytes each step touches decide its team: tiny steps run on one thread (rf__xstep.tiny). */
static void tiny_steps(rf__xplan *p)
{
    for (size_t s = 0; s < p->n_steps; s++) {
        rf__xstep *st = &p->steps[s];
        if (st->prim) continue; /* set when it was made (steps.c) */
        uint64_t bytes = 0;
        uint32_t n = st->prim ? st->n_args : st->n_io;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t t = st->prim ? st->args[k].t : st->io[k];
            if (t != RF__XSCRATCH) bytes += p->t[t].bytes;
        }
        st->tiny = bytes < RF__XTINY_BYTES;
    }
}

/* Step st's team (one thread when tiny); *team is the size set last (-1: none yet), set only
 * when it changes. */
static void set_team(rf__xplan *p, const rf__xstep *st, int *team)
{
    int want = st->tiny ? 1 : p->threads;
    if (p->omp_set && p->threads > 1 && want != *team) p->omp_set(*team = want);
}

/* Run step st once. */
static rf_status run_step(rf__xplan *p, const rf__xstep *st)
{
    dnnl_exec_arg_t args[32];
    if (st->prim) {
        uint32_t n = st->n_args < 32 ? st->n_args : 32;
        for (uint32_t k = 0; k < n; k++)
            args[k] = (dnnl_exec_arg_t){st->args[k].id, st->args[k].mem};
        if (dnnl_primitive_execute(st->prim, p->strm, (int)n, args) != dnnl_success ||
            dnnl_stream_wait(p->strm) != dnnl_success)
            return rf__error(p->ctx, RF_INTERNAL, -1, "layer '%s': oneDNN failed to run",
                             p->g->layers[st->layer].name);
    } else if (st->cfn) {
        st->cfn(st);
    }
    return RF_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The folded steps, once, in order (each reads constants or earlier folded results), each
 * timed into its layer's or extra layer's load_s; then the weights made from folded tensors
 * (op_qint.c's shifted weights). The passes skip these steps. */
static rf_status fold_once(rf__xplan *p)
{
    int team = -1;
    for (size_t s = 0; s < p->n_steps; s++) {
        const rf__xstep *st = &p->steps[s];
        if (!st->fold || st->extra == RF__XOWNER) continue;
        set_team(p, st, &team);
        double t0 = now_s();
        RF_TRY(run_step(p, st));
        double d = now_s() - t0;
        if (st->extra >= 0)
            p->extra[st->extra].load_s += d;
        else
            p->layers[st->layer].load_s += d;
    }
    for (size_t t = 0; t < p->n_t; t++) {
        rf__xtensor *x = &p->t[t];
        if (!x->fill || x->shift_of == RF__XNONE || !x->data || !p->t[x->shift_of].cst ||
            !p->t[x->shift_of].data)
            continue;
        for (size_t i = 0; i < x->bytes / 4 && i < p->t[x->shift_of].bytes / 4; i++)
            x->data[i] = p->t[x->shift_of].data[i] - x->shift;
    }
    return RF_OK;
}

rf_status rf__xplan_new(rf_ctx *ctx, const rf_graph *g, rf__xplan **out)
{
    return rf__xplan_new_team(ctx, g, NULL, 1, out);
}

/* The reference plan of the tests: what was folded runs in every pass instead (its tensors keep
 * their own storage, so they can be read back). */
static void unfold(rf__xplan *p)
{
    for (size_t s = 0; s < p->n_steps; s++) p->steps[s].fold = 0;
    for (size_t e = 0; e < p->n_extra; e++) p->extra[e].folded = 0;
    for (uint32_t li = 0; li < p->g->n_layers; li++) p->layers[li].folded = 0;
}

static rf_status plan_new(rf_ctx *ctx, const rf_graph *g, void (*omp_set)(int), int threads,
                          int no_fold, rf__xplan **out)
{
    rf_status st = RF_OK;
    *out = NULL;
    rf__xplan *p = rf__calloc(ctx, 1, sizeof *p);
    if (!p) return RF_NOMEM_ERR(ctx);
    p->ctx = ctx;
    p->g = g;
    p->omp_set = omp_set;
    p->threads = threads > 0 ? threads : 1;
    p->layers = rf__calloc(ctx, g->n_layers ? g->n_layers : 1, sizeof *p->layers);
    p->consumer = rf__calloc(ctx, g->n_tensors ? g->n_tensors : 1, sizeof *p->consumer);
    if (!p->layers || !p->consumer) {
        st = RF_NOMEM_ERR(ctx);
        goto fail;
    }
    if (dnnl_engine_create(&p->eng, dnnl_cpu, 0) != dnnl_success ||
        dnnl_stream_create(&p->strm, p->eng, dnnl_stream_default_flags) != dnnl_success ||
        dnnl_primitive_attr_create(&p->attr) != dnnl_success ||
        dnnl_primitive_attr_set_scratchpad_mode(p->attr, dnnl_scratchpad_mode_user) !=
            dnnl_success) {
        st = rf__error(ctx, RF_INTERNAL, -1, "oneDNN: no CPU engine");
        goto fail;
    }
    RF_TRY_GOTO(st, rf__xplan_build(p), fail);
    if (no_fold) /* the same steps and layouts, every one run in each pass */
        unfold(p);
    lifetimes(p);
    RF_TRY_GOTO(st, place(p), fail);
    RF_TRY_GOTO(st, finalize(p), fail);
    tiny_steps(p);
    RF_TRY_GOTO(st, fold_once(p), fail);
    *out = p;
    return RF_OK;
fail:
    rf__xplan_free(p);
    return st;
}

rf_status rf__xplan_new_team(rf_ctx *ctx, const rf_graph *g, void (*omp_set)(int), int threads,
                             rf__xplan **out)
{
    return plan_new(ctx, g, omp_set, threads, 0, out);
}

rf_status rf__xplan_new_unfolded(rf_ctx *ctx, const rf_graph *g, rf__xplan **out)
{
    return plan_new(ctx, g, NULL, 1, 1, out);
}

void rf__xplan_free(rf__xplan *p)
{
    if (!p) return;
    for (size_t s = 0; s < p->n_steps; s++) {
        rf__xstep *st = &p->steps[s];
        for (uint32_t k = 0; k < st->n_args; k++)
            if (st->args[k].mem) dnnl_memory_destroy(st->args[k].mem);
        if (st->prim) dnnl_primitive_destroy(st->prim);
        rf__free(p->ctx, st->args);
        rf__free(p->ctx, st->io);
        rf__free(p->ctx, st->ptr);
    }
    for (size_t t = 0; t < p->n_t; t++) rf__free(p->ctx, p->t[t].raw);
    rf__free(p->ctx, p->steps);
    rf__free(p->ctx, p->t);
    rf__free(p->ctx, p->extra);
    rf__free(p->ctx, p->layers);
    rf__free(p->ctx, p->consumer);
    rf__free(p->ctx, p->arena_raw);
    rf__free(p->ctx, p->scratch_raw);
    if (p->attr) dnnl_primitive_attr_destroy(p->attr);
    if (p->strm) dnnl_stream_destroy(p->strm);
    if (p->eng) dnnl_engine_destroy(p->eng);
    rf__free(p->ctx, p);
}

rf_status rf__xplan_pass(rf__xplan *p, double (*clock)(void *), void *user, double *step_s)
{
    int team = -1; /* the team size set last: set only when it changes */
    for (size_t s = 0; s < p->n_steps; s++) {
        const rf__xstep *st = &p->steps[s];
        if (st->extra == RF__XOWNER || st->fold) { /* folded: ran once (fold_once) */
            if (step_s) step_s[s] = 0;
            continue;
        }
        set_team(p, st, &team);
        double t0 = clock(user);
        RF_TRY(run_step(p, st));
        double t1 = clock(user);
        if (step_s) step_s[s] = t1 - t0;
    }
    return RF_OK;
}

rf_status rf__xplan_read(rf__xplan *p, uint32_t t, float *out, uint64_t n)
{
    RF_CHECK(p->ctx, t < p->g->n_tensors, RF_USAGE, "tensor %u out of range", t);
    const rf__xtensor *x = &p->t[t];
    uint32_t r = root(p, t);
    RF_CHECK(p->ctx, x->ready && p->t[r].persistent && x->data, RF_USAGE,
             "tensor '%s' is not kept after a pass", p->g->tensors[t].name);
    dnnl_memory_desc_t plain;
    rf__xdesc_plain(&plain, x->rank, x->dims);
    RF_CHECK(p->ctx, dnnl_memory_desc_get_size(&plain) == n * 4, RF_USAGE,
             "tensor '%s' has not %llu elements", p->g->tensors[t].name, (unsigned long long)n);
    return reorder_once(p, &x->md, x->data, &plain, out);
}
