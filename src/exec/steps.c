/* steps.c — the executor's leaf helpers, used by every op builder and by the plan: plain memory
 * descriptors, executor tensors (adding, defining their layout), steps (a oneDNN primitive or a
 * C kernel), layout conversions (reorders, reported as extra layers), and a layer's mark
 * (measured with its kernel, or not measured with the reason), and the synthetic values fed to
 * tensors the file gives no values for. Calls nothing else in src/exec. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec_int.h"

void rf__xdesc_plain(dnnl_memory_desc_t *md, uint32_t rank, const int64_t *dims)
{
    dnnl_dims_t d, s;
    int r = rank ? (int)rank : 1;
    for (int i = 0; i < r; i++) d[i] = rank ? dims[i] : 1;
    int64_t acc = 1;
    for (int i = r - 1; i >= 0; i--) {
        s[i] = acc;
        acc *= d[i] > 0 ? d[i] : 1;
    }
    memset(md, 0, sizeof *md);
    dnnl_memory_desc_init_by_strides(md, r, d, dnnl_f32, s);
}

rf_status rf__xtensor_add(rf__xplan *p, const rf__xtensor *like, uint32_t *out)
{
    RF_TRY(rf__grow(p->ctx, (void **)&p->t, &p->cap_t, p->n_t + 1, sizeof *p->t));
    rf__xtensor *t = &p->t[p->n_t];
    memset(t, 0, sizeof *t);
    if (like) {
        t->rank = like->rank;
        memcpy(t->dims, like->dims, sizeof t->dims);
    }
    t->alias = t->copy_of = t->src = t->shift_of = RF__XNONE;
    t->first = t->last = -1;
    *out = (uint32_t)p->n_t++;
    return RF_OK;
}

void rf__xtensor_define(rf__xplan *p, uint32_t t, const dnnl_memory_desc_t *md)
{
    rf__xtensor *x = &p->t[t];
    x->md = *md;
    x->bytes = dnnl_memory_desc_get_size(md);
    if (x->bytes < 64) x->bytes = 64;
    x->ready = 1;
}

int rf__xprim_desc(rf__xplan *p, const void *op_desc, dnnl_primitive_desc_t *pd)
{
    *pd = NULL;
    return dnnl_primitive_desc_create(pd, op_desc, p->attr, p->eng, NULL) == dnnl_success;
}

/* Is a primitive step tiny (rf__xstep.tiny)? Its activations (arguments that are not weights)
 * under RF__XTINY_BYTES and, for a convolution, deconvolution or matmul, under RF__XTINY_MACS
 * multiply-adds (dst elements x weights per output element, from the layouts of pd). */
static int prim_tiny(const rf__xplan *p, const_dnnl_primitive_desc_t pd, const rf__xprim_arg *args,
                     uint32_t n_args, dnnl_primitive_kind_t kind)
{
    uint64_t bytes = 0;
    for (uint32_t k = 0; k < n_args; k++)
        if (args[k].t >= p->n_t || !rf__xconst(p, args[k].t))
            bytes += dnnl_memory_desc_get_size(&args[k].md);
    if (bytes >= RF__XTINY_BYTES) return 0;
    if (kind != dnnl_convolution && kind != dnnl_deconvolution && kind != dnnl_matmul &&
        kind != dnnl_inner_product)
        return 1;
    const dnnl_memory_desc_t *w = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *big = dnnl_primitive_desc_query_md(
        pd, kind == dnnl_deconvolution ? dnnl_query_src_md : dnnl_query_dst_md, 0);
    if (!w || !big || big->ndims < 2 || w->ndims < 1) return 0;
    double we = 1, be = 1; /* weights met per element of `big`: all of them over its channels */
    for (int i = 0; i < w->ndims; i++) we *= (double)w->dims[i];
    for (int i = 0; i < big->ndims; i++) be *= (double)big->dims[i];
    double per = kind == dnnl_matmul ? (double)w->dims[w->ndims - 2]
                                     : we / (double)(big->dims[1] > 0 ? big->dims[1] : 1);
    return be * per < RF__XTINY_MACS;
}

/* The primitive descriptor of a tiny step made again while the OpenMP team is one thread:
 * convolutions, matmuls and normalizations fix their work split when made, and a split for two
 * threads forks a team even when the step runs with one (on a busy machine a fork waits for a
 * descheduled peer: the 50 us pass that took 45 ms). Only when the new one reads and writes
 * the same layouts; else (and for concats and sums, which split at run time) pd as it was. *tiny:
 * the step's team is one thread. */
static dnnl_primitive_desc_t one_thread(rf__xplan *p, dnnl_primitive_desc_t pd,
                                        const rf__xprim_arg *args, uint32_t n_args, int *tiny)
{
    dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
    const_dnnl_op_desc_t od = NULL;
    const_dnnl_primitive_attr_t at = NULL;
    *tiny = 0;
    if (dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind) != dnnl_success)
        return pd;
    *tiny = prim_tiny(p, pd, args, n_args, kind);
    if (!*tiny || !p->omp_set || p->threads <= 1 || kind == dnnl_concat || kind == dnnl_sum ||
        dnnl_primitive_desc_get_attr(pd, &at) != dnnl_success ||
        (kind != dnnl_reorder &&
         (dnnl_primitive_desc_query(pd, dnnl_query_op_d, 0, &od) != dnnl_success || !od)))
        return pd;
    dnnl_primitive_desc_t one = NULL;
    dnnl_status_t ok = dnnl_invalid_arguments;
    p->omp_set(1);
    if (kind == dnnl_reorder) {
        const dnnl_memory_desc_t *src = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        const dnnl_memory_desc_t *dst = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        if (src && dst) ok = dnnl_reorder_primitive_desc_create(&one, src, p->eng, dst, p->eng, at);
    } else {
        ok = dnnl_primitive_desc_create(&one, od, at, p->eng, NULL);
    }
    p->omp_set(p->threads);
    if (ok != dnnl_success) return pd;
    for (uint32_t k = 0; k < n_args; k++) {
        const dnnl_memory_desc_t *m =
            dnnl_primitive_desc_query_md(one, dnnl_query_exec_arg_md, args[k].id);
        if (!m || !dnnl_memory_desc_equal(m, &args[k].md)) {
            dnnl_primitive_desc_destroy(one);
            return pd;
        }
    }
    dnnl_primitive_desc_destroy(pd);
    return one;
}

rf_status rf__xstep_add_prim(rf__xplan *p, uint32_t li, int32_t extra, dnnl_primitive_desc_t pd,
                             const rf__xprim_arg *args, uint32_t n_args)
{
    int tiny;
    pd = one_thread(p, pd, args, n_args, &tiny);
    rf_status st = RF_OK;
    rf__xprim_arg *a = NULL;
    dnnl_primitive_t prim = NULL;
    const dnnl_memory_desc_t *sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t sp_bytes = sp ? dnnl_memory_desc_get_size(sp) : 0;
    a = rf__calloc(p->ctx, n_args + 1, sizeof *a);
    if (!a) {
        st = RF_NOMEM_ERR(p->ctx);
        goto done;
    }
    memcpy(a, args, n_args * sizeof *a);
    if (sp_bytes) {
        a[n_args] = (rf__xprim_arg){DNNL_ARG_SCRATCHPAD, RF__XSCRATCH, *sp, NULL};
        if (sp_bytes > p->scratch_bytes) p->scratch_bytes = sp_bytes;
    }
    if (dnnl_primitive_create(&prim, pd) != dnnl_success) {
        st = rf__error(p->ctx, RF_INTERNAL, -1, "layer '%s': oneDNN could not create a primitive",
                       p->g->layers[li].name);
        goto done;
    }
    RF_TRY_GOTO(
        st, rf__grow(p->ctx, (void **)&p->steps, &p->cap_steps, p->n_steps + 1, sizeof *p->steps),
        done);
    rf__xstep *s = &p->steps[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->layer = li;
    s->extra = extra;
    s->fold = extra == -1 && p->layers[li].folded;
    s->prim = prim;
    s->tiny = tiny;
    s->args = a;
    s->n_args = n_args + (sp_bytes ? 1 : 0);
    prim = NULL;
    a = NULL;
done:
    if (prim) dnnl_primitive_destroy(prim);
    rf__free(p->ctx, a);
    dnnl_primitive_desc_destroy(pd);
    return st;
}

rf_status rf__xstep_add_kernel(rf__xplan *p, uint32_t li, rf__xkernel_fn fn, const uint32_t *io,
                               uint32_t n_io, uint32_t n_in, const rf__xkernel_args *c)
{
    uint32_t *cp = rf__calloc(p->ctx, n_io ? n_io : 1, sizeof *cp);
    float **ptr = rf__calloc(p->ctx, n_io ? n_io : 1, sizeof *ptr);
    rf_status st = RF_OK;
    if (!cp || !ptr) {
        st = RF_NOMEM_ERR(p->ctx);
        goto fail;
    }
    if (n_io) memcpy(cp, io, n_io * sizeof *cp);
    RF_TRY_GOTO(
        st, rf__grow(p->ctx, (void **)&p->steps, &p->cap_steps, p->n_steps + 1, sizeof *p->steps),
        fail);
    rf__xstep *s = &p->steps[p->n_steps++];
    memset(s, 0, sizeof *s);
    s->layer = li;
    s->extra = -1;
    s->fold = p->layers[li].folded;
    s->cfn = fn;
    s->io = cp;
    s->ptr = ptr;
    s->n_io = n_io;
    s->n_in = n_in;
    if (c) s->c = *c;
    return RF_OK;
fail:
    rf__free(p->ctx, cp);
    rf__free(p->ctx, ptr);
    return st;
}

void rf__xlayer_measured(rf__xplan *p, uint32_t li, const char *kernel)
{
    p->layers[li].measured = 1;
    p->layers[li].reason[0] = 0;
    rf__strlcpy(p->layers[li].kernel, kernel, sizeof p->layers[li].kernel);
}

void rf__xlayer_unmeasured(rf__xplan *p, uint32_t li, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p->layers[li].measured = 0;
    vsnprintf(p->layers[li].reason, sizeof p->layers[li].reason, fmt, ap);
    va_end(ap);
}

void rf__xplan_note(rf__xplan *p, const char *text)
{
    if (strstr(p->note, text)) return;
    rf__appendf(p->note, sizeof p->note, &p->note_len, "%s%s", p->note_len ? "; " : "", text);
}

int rf__xattr_ints(const rf_layer *l, const char *name, int64_t *out, int max)
{
    return rf__attr_ints(l, name, out, max);
}

rf_status rf__xtensor_convert(rf__xplan *p, uint32_t li, uint32_t t, const dnnl_memory_desc_t *view,
                              const dnnl_memory_desc_t *want, uint32_t *use)
{
    dnnl_memory_desc_t v = view ? *view : p->t[t].md;
    if (dnnl_memory_desc_equal(&v, want)) {
        *use = t;
        return RF_OK;
    }
    for (size_t k = p->g->n_tensors; k < p->n_t; k++) /* a copy made for an earlier consumer */
        if (p->t[k].copy_of == t && dnnl_memory_desc_equal(&p->t[k].copy_src_md, &v) &&
            dnnl_memory_desc_equal(&p->t[k].md, want)) {
            *use = (uint32_t)k;
            return RF_OK;
        }
    rf__xtensor like = {0};
    like.rank = (uint32_t)want->ndims;
    for (int i = 0; i < want->ndims && i < RF_GRAPH_MAX_RANK; i++) like.dims[i] = want->dims[i];
    uint32_t n;
    int weight = p->t[t].weight;
    RF_TRY(rf__xtensor_add(p, &like, &n));
    rf__xtensor *x = &p->t[n];
    x->copy_of = t;
    x->copy_src_md = v;
    x->src = p->t[t].src;
    rf__xtensor_define(p, n, want);
    *use = n;
    if (weight) { /* packed once before the passes (plan_mem.c) */
        x->weight = x->persistent = 1;
        return RF_OK;
    }
    dnnl_primitive_desc_t pd = NULL;
    if (dnnl_reorder_primitive_desc_create(&pd, &v, p->eng, want, p->eng, p->attr) != dnnl_success)
        return rf__error(p->ctx, RF_INTERNAL, -1, "layer '%s': oneDNN has no reorder for a layout",
                         p->g->layers[li].name);
    RF_TRY(rf__grow(p->ctx, (void **)&p->extra, &p->cap_extra, p->n_extra + 1, sizeof *p->extra));
    rf__xextra_layer *e = &p->extra[p->n_extra];
    const char *nm = p->t[t].src != RF__XNONE ? p->g->tensors[p->t[t].src].name : "";
    snprintf(e->name, sizeof e->name, "reorder:%s", nm);
    e->before_layer = li;
    e->bytes = (double)dnnl_memory_desc_get_size(&v) + (double)dnnl_memory_desc_get_size(want);
    e->folded = p->t[t].cst; /* a reorder of a folded tensor: made once, as its source */
    if (e->folded) x->cst = x->persistent = 1;
    rf__xprim_arg a[2] = {{DNNL_ARG_FROM, t, v, NULL}, {DNNL_ARG_TO, n, *want, NULL}};
    RF_TRY(rf__xstep_add_prim(p, li, (int32_t)p->n_extra++, pd, a, 2));
    p->steps[p->n_steps - 1].fold = p->extra[p->n_extra - 1].folded;
    return RF_OK;
}

rf_status rf__xtensor_plain(rf__xplan *p, uint32_t li, uint32_t t, uint32_t *use)
{
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, p->t[t].rank, p->t[t].dims);
    return rf__xtensor_convert(p, li, t, NULL, &md, use);
}

/* Synthetic values: the tensor's own integer values when it has them, else a fixed pseudo-random
 * sequence per tensor (weights scaled by fan-in), positive or small integers when asked. */
void rf__exec_synth(const rf_graph *g, uint32_t t, int positive, int integer, float *out,
                    uint64_t n)
{
    const rf_tensor *gt = &g->tensors[t];
    if (gt->values && gt->n_values == n) {
        for (uint64_t i = 0; i < n; i++) out[i] = (float)gt->values[i];
        return;
    }
    double scale = 1.0;
    if ((gt->flags & RF_TENSOR_WEIGHT) && gt->rank >= 2 && gt->dims[0] > 0 &&
        n / (uint64_t)gt->dims[0] > 0)
        scale = sqrt(3.0 / (double)(n / (uint64_t)gt->dims[0]));
    uint64_t s = 0x9E3779B97F4A7C15ull * (t + 1) + 0x2545F4914F6CDD1Dull;
    for (uint64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(s >> 40) / (double)(1ull << 24) * 2.0 - 1.0; /* [-1, 1) */
        if (integer)
            out[i] = (float)(i % 5);
        else if (positive)
            out[i] = (float)(0.5 + fabs(u));
        else
            out[i] = (float)(u * scale);
    }
}

/* dims as the tables write a shape: "1x3x8", "scalar" for rank 0. */
static void shape_text(char *buf, size_t n, uint32_t rank, const int64_t *dims)
{
    size_t len = 0;
    buf[0] = 0;
    if (!rank) rf__appendf(buf, n, &len, "scalar");
    for (uint32_t i = 0; i < rank; i++)
        rf__appendf(buf, n, &len, "%s%lld", i ? "x" : "", (long long)dims[i]);
}

int rf__xshape_is(rf__xplan *p, uint32_t li, uint32_t t, uint32_t rank, const int64_t *dims)
{
    const rf__xtensor *x = &p->t[t];
    int same = x->rank == rank;
    for (uint32_t i = 0; same && i < rank; i++) same = x->dims[i] == dims[i];
    if (same) return 1;
    char d[160], c[160];
    shape_text(d, sizeof d, x->rank, x->dims);
    shape_text(c, sizeof c, rank, dims);
    const char *nm = x->src != RF__XNONE ? p->g->tensors[x->src].name : "";
    rf__xlayer_unmeasured(p, li, "output '%s': declared shape %s, computed %s", nm, d, c);
    return 0;
}

int rf__xbroadcasts_to(const rf__xtensor *t, uint32_t R, const int64_t *yd)
{
    if (t->rank > R) return 0;
    for (uint32_t k = 0; k < t->rank; k++) {
        int64_t d = t->dims[k], y = yd[R - t->rank + k];
        if (d != 1 && d != y) return 0;
    }
    return 1;
}

int rf__xbroadcast_output(rf__xplan *p, uint32_t li, uint32_t nin)
{
    const rf_layer *l = &p->g->layers[li];
    int64_t yd[RF_GRAPH_MAX_RANK];
    uint32_t R = 0;
    for (uint32_t k = 0; k < nin; k++) {
        uint32_t t = rf__xinput_at(l, k);
        if (t == RF_GRAPH_NO_TENSOR) continue;
        if (p->t[t].rank > R) R = p->t[t].rank;
    }
    for (uint32_t i = 0; i < R; i++) yd[i] = 1;
    for (uint32_t k = 0; k < nin; k++) { /* NumPy rules: each axis 1 or the one size */
        uint32_t t = rf__xinput_at(l, k);
        if (t == RF_GRAPH_NO_TENSOR) continue;
        const rf__xtensor *x = &p->t[t];
        for (uint32_t j = 0; j < x->rank; j++) {
            int64_t d = x->dims[j], *y = &yd[R - x->rank + j];
            if (d == *y || d == 1) continue;
            if (*y != 1) {
                rf__xlayer_unmeasured(p, li, "%s inputs whose shapes do not broadcast", l->op_type);
                return 0;
            }
            *y = d;
        }
    }
    return rf__xshape_is(p, li, l->outputs[0], R, yd);
}

rf_status rf__xinput0_plain(rf__xplan *p, uint32_t li, uint32_t *xu, int *ok)
{
    const rf_layer *l = &p->g->layers[li];
    *ok = 0;
    if (!l->n_inputs || l->inputs[0] == RF_GRAPH_NO_TENSOR || !l->n_outputs) {
        rf__xlayer_unmeasured(p, li, "%s without input", l->op_type);
        return RF_OK;
    }
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], xu));
    *ok = 1;
    return RF_OK;
}
