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

/* Time of `flops` and `bytes` on roof r (the longer of compute and memory). */
double rf__advice_eval(const rf_roof *r, double flops, double bytes);

/* An item's time on roof r with these FLOPs and bytes, its network time a floor under it. */
double rf__advice_time(const rf_roof *r, const rf__item *x, double flops, double bytes);

/* Every change over a->it (freed here), ranked and cut to o->max; *out on success. */
rf_status rf__advice_finish(rf__adv *a, const rf_advice_opts *o, rf_advice_list **out);

#endif
