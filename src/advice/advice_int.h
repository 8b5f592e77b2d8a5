/* advice_int.h — what the two halves of the advice share: the items (advice_items.c builds them
 * from a profile, an LLM phase or a result) and the run over them (advice.c: every change
 * re-evaluated, ranked by Amdahl). Internal to src/advice. */
#ifndef RF_ADVICE_INT_H
#define RF_ADVICE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "roofline/advice.h"

typedef struct rf__item {
    const char *name;
    int matrix;  /* Conv, Gemm, MatMul: runs on the compute ceiling of its precision */
    int fold;    /* elementwise, activation, norm, softmax: can be folded into its producer */
    int softmax; /* a softmax (attention fusion) */
    int attn_mm; /* a matmul that reads a softmax's output (A.V) */
    double flops, wbytes, abytes, kvbytes;
    double wbits, abits;  /* element sizes, bits (32 when unknown) */
    double net_s;         /* its network bytes over the network roof: a floor no change here
                             moves (0 without one) */
    double est_s;         /* on the roof */
    double t_s;           /* measured, or est_s */
    int64_t producer;     /* item whose single-consumer output this item reads first, or -1 */
    double inter;         /* bytes of that tensor */
    int fixed;            /* communication or dispatch: t_s, whatever the change (but its own) */
    int no_lowp;          /* an FFT: no lower precision is tried on it */
    double batch_fixed_s; /* the part of t_s a larger batch does not grow (latency, dispatch) */
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
    int integer_model;          /* its weights are already integers of 8 bits or fewer: no INT8 */
    double overhead_s;          /* measured dispatch overhead in total_s (an item), 0: none */
    const rf_llm_dist *dist;    /* LLMs over devices: the communication is an item */
    char check[2][RF_TEXT_MAX]; /* a measured rate above its ceiling: title, reasons */
    rf_advice_list *out;
    size_t cap;
} rf__adv;

/* Time of `flops` and `bytes` on roof r (the longer of compute and memory). */
double rf__advice_eval(const rf_roof *r, double flops, double bytes);

/* An item's time on roof r with these FLOPs and bytes, its network time a floor under it. */
double rf__advice_time(const rf_roof *r, const rf__item *x, double flops, double bytes);

/* The run-time of item i when its estimate becomes `est_after`: measured times scale. */
double rf__scaled(const rf__item *i, double est_after);

/* The list a->out, empty, for a run of a->total_s (measured: a->measured). */
rf_status rf__out_new(rf__adv *a);
/* A suggestion appended to a->out: `kind`, the run from a->total_s to after_s. */
rf_status rf__push(rf__adv *a, rf_advice_kind kind, double after_s, rf_advice **out);
/* A layer's name (copied) appended to v->layers; counts it in n_layers and n_layers_total. */
rf_status rf__add_layer(rf__adv *a, rf_advice *v, const char *name);
/* Priorities, the 1% cut, the order, o->max: the last step of every run over a->out. */
rf_status rf__rank(rf__adv *a, const rf_advice_opts *o);

/* The precisions tried, in order: title, weight and activation bits, the ceilings' prefix. */
typedef struct rf__prec_kind {
    const char *title;
    double wbits, abits;
    const char *ceilings;
} rf__prec_kind;
#define RF__PREC_KINDS 4
extern const rf__prec_kind rf__prec_kinds[RF__PREC_KINDS];

/* One lower precision, item by item (advice.c, advice_stream.c): init, every item, push. */
typedef struct rf__prec {
    const char *title, *ceilings;
    double wbits, abits, peak;
    size_t ci;
    double after;
    size_t touched;
} rf__prec;
void rf__prec_init(const rf__adv *a, rf__prec *p, const char *title, double wbits, double abits,
                   const char *ceilings);
/* Adds item x; returns 1 when x is a layer the suggestion lists. */
int rf__prec_item(const rf__adv *a, rf__prec *p, const rf__item *x);
/* *out: the suggestion, or NULL when no item changes (nothing pushed). */
rf_status rf__prec_push(rf__adv *a, const rf__prec *p, rf_advice **out);

/* One other machine, item by item; h->m is owned (rf_machine_free). */
typedef struct rf__hw {
    rf_machine *m;
    rf_roof r;
    double est;
    uint64_t flips;
} rf__hw;
rf_status rf__hw_init(rf__adv *a, rf__hw *h, const char *name);
void rf__hw_item(const rf__adv *a, rf__hw *h, const rf__item *x);
rf_status rf__hw_push(rf__adv *a, rf__hw *h);

/* Append a fixed item (communication, dispatch): t_s seconds, batch_fixed_s of it per pass. */
rf_status rf__add_fixed(rf__adv *a, const char *name, double t_s, double batch_fixed_s);

#define RF__ADV_HIGH 0.20
#define RF__ADV_DOMINANT 0.5 /* a term this share of the run puts its remedy first */

/* advice_terms.c: the dispatch change when a->overhead_s > 0; the TP degree or the link when
 * a->dist is set. */
rf_status rf__dispatch(rf__adv *a);
rf_status rf__parallelism(rf__adv *a);

/* Every change over a->it (freed here), ranked and cut to o->max; *out on success. */
rf_status rf__advice_finish(rf__adv *a, const rf_advice_opts *o, rf_advice_list **out);

#endif
