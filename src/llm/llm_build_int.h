/* llm_build_int.h — the state shared by the graph builder's files: llm_build.c (weights,
 * embedding, head, per-weight fallback, the entry points) and llm_block.c (one decoder block).
 * Never installed. */
#ifndef RF_LLM_BUILD_INT_H
#define RF_LLM_BUILD_INT_H

#include "llm/llm_int.h"

typedef struct rf__lb {
    rf_ctx *ctx;
    rf_graph *g;
    const rf_llm_model *m;
    const rf_llm_opts *o;
    uint64_t B, S, T; /* sequences, new tokens each, positions attended */
    uint64_t BS;      /* B x S rows of every activation matrix */
    rf_dtype act, kv; /* activation and KV-cache types */
    uint32_t *wt;     /* graph tensor of each model weight */
    char pre[32];     /* "blk.*" (repeated block) or "blk.N" */
    int64_t blk;      /* block whose weights the layers read */
    uint64_t repeat;  /* 1, or n_layer for the repeated block */
    int in_block;     /* layers get the llm_block attribute */
} rf__lb;

/* New activation tensor "<pre>.<name>" (or "<name>" outside a block) of `rank` dims. */
rf_status rf__lb_act(rf__lb *b, const char *name, rf_dtype t, uint32_t flags, uint32_t rank,
                     const int64_t *dims, uint32_t *out);

/* New layer "<pre>.<name>": op_type (its kind from rf_op_kind_from_type unless `kind` >= 0),
 * inputs, one or more outputs; repeat and block attribute from b. *index may be NULL. */
rf_status rf__lb_layer(rf__lb *b, const char *name, const char *op_type, int kind,
                       const uint32_t *in, uint32_t n_in, const uint32_t *out, uint32_t n_out,
                       uint32_t *index);

/* x [BS, in] times weight `role` of the current block (-1 block: global) plus its bias role
 * (-1: none) into a new activation "<name>" [BS, out]. *width receives out. */
rf_status rf__lb_linear(rf__lb *b, const char *name, uint32_t x, uint64_t in, int64_t blk, int role,
                        int bias_role, uint32_t *y, uint64_t *width);

/* Norm of x [BS, width] with weight `role` (+ bias role, -1 none): RMSNorm or LayerNorm. */
rf_status rf__lb_norm(rf__lb *b, const char *name, uint32_t x, uint64_t width, int64_t blk,
                      int role, int bias_role, uint32_t *y);

/* Elementwise / unary op over same-shaped [BS, width] tensors into a new one. */
rf_status rf__lb_elem(rf__lb *b, const char *name, const char *op, const uint32_t *in,
                      uint32_t n_in, uint64_t width, uint32_t *y);

/* One decoder block from x (the residual stream [BS, E]) to *y (llm_block.c). */
rf_status rf__lb_block(rf__lb *b, uint32_t x, uint32_t *y);

#endif
