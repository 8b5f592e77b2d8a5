/* exec_tg.h — helpers of the executor's unit tests: a graph built by hand with stated shapes,
 * planned and run once by the executor, tensors read back, synthetic inputs regenerated, and
 * results compared with a naive reference. Static functions; include from one test file each. */
#ifndef RF_EXEC_TG_H
#define RF_EXEC_TG_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"
#include "rf_test.h"
#include "roofline/roofline.h"

typedef struct tg {
    rf_ctx *ctx;
    rf_graph *g;
    rf__xplan *p;
} tg;

static inline tg tg_new(void)
{
    tg t = {0};
    rf_ctx_new(&t.ctx, NULL);
    rf_graph_new(t.ctx, "test", &t.g);
    return t;
}

static inline void tg_free(tg *t)
{
    rf__xplan_free(t->p);
    rf_graph_free(t->g);
    rf_ctx_free(t->ctx);
}

#define D(...) (const int64_t[]){__VA_ARGS__}, (uint32_t)(sizeof((int64_t[]){__VA_ARGS__}) / 8)
#define IN(...) (const uint32_t[]){__VA_ARGS__}, (uint32_t)(sizeof((uint32_t[]){__VA_ARGS__}) / 4)

static inline uint32_t tens(tg *t, const char *name, uint32_t flags, const int64_t *dims,
                            uint32_t rank)
{
    uint32_t i = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t->ctx, t->g, name, RF_DTYPE_F32, rank, dims, flags, &i);
    return i;
}

static inline uint32_t lay(tg *t, const char *op, const uint32_t *in, uint32_t nin, uint32_t out)
{
    uint32_t li = 0;
    char name[64];
    snprintf(name, sizeof name, "%s_%u", op, t->g->n_layers);
    rf_graph_add_layer(t->ctx, t->g, name, op, in, nin, &out, 1, &li);
    return li;
}

/* An int64 weight with known values (indices, axes, sizes), as an initializer is. */
static inline uint32_t ivec(tg *t, const char *name, const int64_t *dims, uint32_t rank,
                            const int64_t *v, uint32_t n)
{
    uint32_t i = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t->ctx, t->g, name, RF_DTYPE_I64, rank, dims, RF_TENSOR_WEIGHT, &i);
    rf_graph_set_values(t->ctx, t->g, i, v, n);
    return i;
}

/* A layer of two outputs, named after its op. */
static inline uint32_t lay2(tg *t, const char *op, const uint32_t *in, uint32_t nin, uint32_t y0,
                            uint32_t y1)
{
    uint32_t li = 0, out[2] = {y0, y1};
    rf_graph_add_layer(t->ctx, t->g, op, op, in, nin, out, 2, &li);
    return li;
}

static inline void ints(tg *t, uint32_t li, const char *name, const int64_t *v, uint32_t n)
{
    rf_graph_set_attr_ints(t->ctx, t->g, li, name, v, n);
}

static inline uint64_t elems(const tg *t, uint32_t x)
{
    uint64_t n = 0;
    rf_tensor_elems(&t->g->tensors[x], &n);
    return n;
}

/* The values the executor fed tensor x with. */
static inline float *vals(const tg *t, uint32_t x, int positive)
{
    uint64_t n = elems(t, x);
    float *v = calloc(n ? n : 1, sizeof *v);
    rf__exec_synth(t->g, x, positive, 0, v, n);
    return v;
}

static double fake_now;
static inline double fake_clock(void *user)
{
    (void)user;
    return fake_now += 1;
}

/* Plan and run one pass; NULL (and a failure) when planning fails. */
static inline int run(tg *t)
{
    rf_status st = rf__xplan_new(t->ctx, t->g, &t->p);
    if (st != RF_OK) {
        RF_FAIL_AT("plan: %s", rf_ctx_errmsg(t->ctx));
        return 0;
    }
    st = rf__xplan_pass(t->p, fake_clock, NULL, NULL);
    if (st != RF_OK) RF_FAIL_AT("pass: %s", rf_ctx_errmsg(t->ctx));
    return st == RF_OK;
}

static inline float *out(tg *t, uint32_t y)
{
    uint64_t n = elems(t, y);
    float *v = calloc(n ? n : 1, sizeof *v);
    if (rf__xplan_read(t->p, y, v, n) != RF_OK) RF_FAIL_AT("read: %s", rf_ctx_errmsg(t->ctx));
    return v;
}

static inline void close_all(const char *what, const float *got, const float *ref, uint64_t n)
{
    int bad = 0;
    for (uint64_t i = 0; i < n && bad < 3; i++)
        if (!(fabs((double)got[i] - (double)ref[i]) <= 1e-4 + 1e-4 * fabs((double)ref[i]))) {
            RF_FAIL_AT("%s[%llu]: got %.7g, want %.7g", what, (unsigned long long)i, got[i],
                       ref[i]);
            bad++;
        }
}

static inline void expect_measured(const tg *t, uint32_t li, const char *kernel)
{
    RF_EXPECT_INT(t->p->layers[li].measured, 1);
    RF_EXPECT_STR(t->p->layers[li].kernel, kernel);
    if (!t->p->layers[li].measured) fprintf(stderr, "  reason: %s\n", t->p->layers[li].reason);
}

/* Convolution parameters and the naive NCHW reference (groups, stride, dilation, pads). */
typedef struct convp {
    int64_t n, c, h, w, oc, kh, kw, g, sh, sw, dh, dw, pt, pl, oh, ow;
} convp;

static inline void conv_ref(const convp *q, const float *x, const float *w, const float *b,
                            float *y)
{
    int64_t icg = q->c / q->g, ocg = q->oc / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t o = 0; o < q->oc; o++)
            for (int64_t i = 0; i < q->oh; i++)
                for (int64_t j = 0; j < q->ow; j++) {
                    double acc = b ? b[o] : 0;
                    int64_t grp = o / ocg;
                    for (int64_t c = 0; c < icg; c++)
                        for (int64_t u = 0; u < q->kh; u++)
                            for (int64_t v = 0; v < q->kw; v++) {
                                int64_t hi = i * q->sh - q->pt + u * q->dh;
                                int64_t wi = j * q->sw - q->pl + v * q->dw;
                                if (hi < 0 || hi >= q->h || wi < 0 || wi >= q->w) continue;
                                acc += (double)
                                           x[((n * q->c + grp * icg + c) * q->h + hi) * q->w + wi] *
                                       w[((o * icg + c) * q->kh + u) * q->kw + v];
                            }
                    y[((n * q->oc + o) * q->oh + i) * q->ow + j] = (float)acc;
                }
}

#endif
