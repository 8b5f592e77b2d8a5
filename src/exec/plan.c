/* plan.c — turns a graph into the executor's plan: one executor tensor per graph tensor, and the
 * steps of every layer in graph order, each layer dispatched to the op builder its row of the op
 * registry names (src/graph/op_table.h). The builders (op_*.c) use the helpers of steps.c; memory
 * placement and running are in plan_mem.c; nothing here allocates tensor data or times anything. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec_int.h"

/* ---- the layer dispatcher: one entry per row of the op registry (src/graph/op_table.h) ------ */

/* A constant: filled once before the passes, no run-time work. */
rf_status rf__xop_constant(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    for (uint32_t o = 0; o < l->n_outputs; o++) {
        uint32_t t = l->outputs[o];
        p->t[t].weight = p->t[t].fill = p->t[t].persistent = 1;
    }
    rf__xlayer_unmeasured(p, li, "constant: filled once before the run, no run-time work");
    return RF_OK;
}

/* MatMul: the LLM builders' attention and expert matmuls have kernels of their own. */
rf_status rf__xop_matmul_any(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    if (rf_layer_attr_int(l, "llm_attention", 0)) return rf__xop_llm_attn(p, li);
    if (rf__xop_llm_is_expert(p, li)) return rf__xop_llm(p, li);
    return rf__xop_matmul(p, li);
}

typedef rf_status (*rf__xop_entry)(rf__xplan *p, uint32_t li);
#define rf__xop_none NULL /* the row gives the reason */
static const rf__xop_entry rf__xop_entries[] = {
#define RF__XOP_ENTRY(id, name, dom, kind, shape, cost, sec, exec, why) rf__xop_##exec,
    RF_OP_TABLE(RF__XOP_ENTRY)
#undef RF__XOP_ENTRY
};
#undef rf__xop_none
_Static_assert(sizeof rf__xop_entries / sizeof *rf__xop_entries == RF_OPID_COUNT,
               "one executor entry per op registry row");

/* Will layer li's steps run on one thread (steps.c decides that for each step it adds)? Its
 * inputs that change per pass and its outputs under RF__XTINY_BYTES, and a Conv's, MatMul's or
 * Gemm's multiply-adds under RF__XTINY_MACS; other kinds that compute much on few bytes
 * (attention, recurrences, reductions over a window) are never called tiny here. */
static int layer_tiny(const rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < l->n_inputs; i++)
        if (l->inputs[i] != RF_GRAPH_NO_TENSOR && !rf__xconst(p, l->inputs[i]))
            bytes += 4 * rf__xtensor_elems(&p->t[l->inputs[i]]);
    for (uint32_t o = 0; o < l->n_outputs; o++)
        bytes += 4 * rf__xtensor_elems(&p->t[l->outputs[o]]);
    if (bytes >= RF__XTINY_BYTES || !l->n_outputs) return 0;
    const rf__xtensor *y = &p->t[l->outputs[0]];
    switch (l->kind) {
    case RF_OP_CONV:
    case RF_OP_CONV_TRANSPOSE: {
        if (l->n_inputs < 2 || l->inputs[1] == RF_GRAPH_NO_TENSOR) return 0;
        const rf__xtensor *w = &p->t[l->inputs[1]], *x = &p->t[l->inputs[0]];
        double per = (double)rf__xtensor_elems(w) / (double)(w->dims[0] > 0 ? w->dims[0] : 1);
        double big = (double)rf__xtensor_elems(l->kind == RF_OP_CONV ? y : x);
        return w->rank >= 1 && big * per < RF__XTINY_MACS;
    }
    case RF_OP_GEMM:
    case RF_OP_MATMUL: {
        const rf__xtensor *a = &p->t[l->inputs[0]];
        int64_t k = a->rank ? a->dims[a->rank - 1] : 1;
        if (l->kind == RF_OP_GEMM && rf_layer_attr_int(l, "transA", 0) && a->rank == 2)
            k = a->dims[0];
        return (double)rf__xtensor_elems(y) * (double)k < RF__XTINY_MACS;
    }
    case RF_OP_ACTIVATION:
    case RF_OP_ELEMENTWISE:
    case RF_OP_DATA_MOVEMENT:
    case RF_OP_METADATA:
    case RF_OP_BATCHNORM:
    case RF_OP_GATHER: return 1;
    default: return 0;
    }
}

static rf_status dispatch(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    const rf__op_row *r = rf__op_of(l);
    if (r && rf__xop_entries[r->id] && p->omp_set && p->threads > 1 && !p->layers[li].folded &&
        layer_tiny(p, li)) {
        /* oneDNN fixes a primitive's layouts and work split for the team it is made with: a
         * tiny layer's are made for the one thread it runs on (else a split for two forks a
         * team each pass, and a busy machine's descheduled peer costs a time slice) */
        p->omp_set(1);
        rf_status st = rf__xop_entries[r->id](p, li);
        p->omp_set(p->threads);
        return st;
    }
    if (r && rf__xop_entries[r->id]) return rf__xop_entries[r->id](p, li);
    if (!r && l->kind == RF_OP_CONSTANT) return rf__xop_constant(p, li);
    rf__xlayer_unmeasured(p, li, "no executor kernel for op '%s' (%s)", l->op_type,
                          r ? r->no_kernel : rf_op_kind_name(l->kind));
    return RF_OK;
}

/* Does a layer have nothing to run or an operand no kernel is given? A zero-sized output (there
 * is nothing to compute), or a zero-sized data input (input 0, or any input of rank >= 2: an
 * empty rank-1 input is the usual omitted roi or scales), is never handed to oneDNN (its
 * primitive descriptors divide by those sizes) or to a C kernel (taps, positions, keys at index
 * -1): the layer is marked not measured and its outputs still get storage. Concat, Shape, Size
 * and the views take empty inputs as they are. 1 when the layer was marked. */
static int empty_operand(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    static const char *const as_is[] = {
        "Concat",    "Shape",    "Size",    "Reshape", "Flatten",         "Squeeze",
        "Unsqueeze", "Identity", "Dropout", "View",    "ConstantOfShape", NULL};
    for (const char *const *n = as_is; *n; n++)
        if (!strcmp(l->op_type, *n)) return 0;
    for (uint32_t o = 0; o < l->n_outputs; o++) {
        uint32_t t = l->outputs[o];
        if (p->g->tensors[t].name[0] && rf__shape_full(&p->g->tensors[t]) &&
            !rf__xtensor_elems(&p->t[t])) {
            rf__xlayer_unmeasured(p, li,
                                  "output '%s' is empty (a zero-sized dimension): nothing to run",
                                  p->g->tensors[t].name);
            return 1;
        }
    }
    for (uint32_t i = 0; i < l->n_inputs; i++) {
        uint32_t t = l->inputs[i];
        if (t == RF_GRAPH_NO_TENSOR || (i && p->t[t].rank < 2) || rf__xtensor_elems(&p->t[t]))
            continue;
        rf__xlayer_unmeasured(p, li, "input '%s' is empty (a zero-sized dimension)",
                              p->g->tensors[t].name);
        return 1;
    }
    return 0;
}

/* Checks what every layer needs before a builder runs: inputs present with known shapes,
 * outputs with known shapes. 0 (layer marked not measured) when one is missing. */
static int layer_ready(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    for (uint32_t i = 0; i < l->n_inputs; i++) {
        uint32_t t = l->inputs[i];
        if (t != RF_GRAPH_NO_TENSOR && !p->t[t].ready) {
            rf__xlayer_unmeasured(p, li, "input '%s' has no known shape or was not produced",
                                  p->g->tensors[t].name);
            return 0;
        }
    }
    for (uint32_t o = 0; o < l->n_outputs; o++) /* an omitted optional output has no name */
        if (!rf__shape_full(&p->g->tensors[l->outputs[o]]) &&
            p->g->tensors[l->outputs[o]].name[0]) {
            rf__xlayer_unmeasured(p, li, "shape of output '%s' unknown",
                                  p->g->tensors[l->outputs[o]].name);
            return 0;
        }
    return !empty_operand(p, li);
}

/* After a builder: outputs not yet defined get a plain layout, and an untimed empty step owns
 * every output, so each has storage even when the layer was not measured (later layers run). */
static rf_status settle(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t io[64], n = 0;
    for (uint32_t o = 0; o < l->n_outputs; o++) {
        uint32_t t = l->outputs[o];
        if (!rf__shape_full(&p->g->tensors[t])) continue;
        if (!p->t[t].ready) {
            dnnl_memory_desc_t md;
            rf__xdesc_plain(&md, p->t[t].rank, p->t[t].dims);
            rf__xtensor_define(p, t, &md);
        }
        if (n < 64) io[n++] = t;
    }
    if (!n) return RF_OK;
    RF_TRY(rf__xstep_add_kernel(p, li, NULL, io, n, 0, NULL));
    p->steps[p->n_steps - 1].extra = RF__XOWNER;
    return RF_OK;
}

static int is_int_dtype(rf_dtype d)
{
    return d == RF_DTYPE_I8 || d == RF_DTYPE_U8 || d == RF_DTYPE_I16 || d == RF_DTYPE_U16 ||
           d == RF_DTYPE_I32 || d == RF_DTYPE_U32 || d == RF_DTYPE_I64 || d == RF_DTYPE_U64 ||
           d == RF_DTYPE_BOOL;
}

/* One executor tensor per graph tensor; weights and graph inputs are ready from the start. */
static rf_status graph_tensors(rf__xplan *p)
{
    const rf_graph *g = p->g;
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        const rf_tensor *gt = &g->tensors[i];
        uint32_t k;
        RF_TRY(rf__xtensor_add(p, NULL, &k));
        rf__xtensor *x = &p->t[k];
        x->src = i;
        x->integer = is_int_dtype(gt->dtype);
        if (!rf__shape_full(gt)) continue;
        uint64_t n = 0;
        if (!rf_tensor_elems(gt, &n) || n > (1ull << 40))
            return rf__error(p->ctx, RF_RANGE, -1,
                             "tensor '%s' has too many elements for the executor to hold",
                             gt->name);
        x->rank = gt->rank;
        memcpy(x->dims, gt->dims, sizeof x->dims);
        x->persistent = (gt->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_INPUT | RF_TENSOR_OUTPUT)) != 0;
        /* fed before the passes: weights, inputs, and anything no layer writes (a filled KV
         * cache, a constant with known values) */
        int fed = (gt->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_INPUT)) != 0 || gt->producer < 0;
        if (fed && (gt->flags & RF_TENSOR_KV))
            rf__xplan_note(p, "KV cache filled with synthetic values");
        if (fed) {
            dnnl_memory_desc_t md;
            rf__xdesc_plain(&md, x->rank, x->dims);
            rf__xtensor_define(p, k, &md);
            x->fill = x->persistent = 1;
            x->weight = (gt->flags & RF_TENSOR_WEIGHT) || gt->values; /* else copies are timed */
        }
    }
    return RF_OK;
}

/* Who reads each graph tensor: one layer reading it once (p->consumer), else RF__XNONE. A
 * graph output has an outside reader: RF__XNONE too. */
static void consumers(rf__xplan *p)
{
    const rf_graph *g = p->g;
    const uint32_t several = RF__XNONE - 1;
    for (uint32_t t = 0; t < g->n_tensors; t++)
        p->consumer[t] = g->tensors[t].flags & RF_TENSOR_OUTPUT ? several : RF__XNONE;
    for (uint32_t li = 0; li < g->n_layers; li++) {
        p->layers[li].fused_into = -1;
        const rf_layer *l = &g->layers[li];
        for (uint32_t i = 0; i < l->n_inputs; i++) {
            uint32_t t = l->inputs[i];
            if (t == RF_GRAPH_NO_TENSOR || t >= g->n_tensors) continue;
            p->consumer[t] = p->consumer[t] == RF__XNONE ? li : several;
        }
    }
    for (uint32_t t = 0; t < g->n_tensors; t++)
        if (p->consumer[t] == several) p->consumer[t] = RF__XNONE;
}

/* Constant folding, as ONNX Runtime does at load: a layer (on a branch taken) whose inputs are
 * all constants -- weights, values the file gives, outputs of Constant nodes or of layers folded
 * before it -- is marked folded, its outputs constant (rf__xtensor.cst, own storage). Its steps
 * are built as any layer's and run once when the plan is made, so its values are the ones a pass
 * would compute. Shape and Size of a tensor whose shape the plan fixes are constants too. Graph
 * inputs are never constants, even with a value given (--value): they are fed per pass. */
static rf_status mark_folded(rf__xplan *p, const uint8_t *dropped)
{
    const rf_graph *g = p->g;
    uint8_t *cst = rf__calloc(p->ctx, (size_t)g->n_tensors + 1, 1);
    if (!cst) return RF_NOMEM_ERR(p->ctx);
    for (uint32_t t = 0; t < g->n_tensors; t++) {
        const rf_tensor *gt = &g->tensors[t];
        cst[t] = !(gt->flags & RF_TENSOR_INPUT) &&
                 ((gt->flags & RF_TENSOR_WEIGHT) || (gt->values && gt->producer < 0));
    }
    for (uint32_t li = 0; li < g->n_layers; li++) {
        const rf_layer *l = &g->layers[li];
        if (dropped[li] || !l->n_outputs) continue;
        const rf__op_row *r = rf__op_of(l); /* filled once already (rf__xop_constant) */
        int con = r ? rf__xop_entries[r->id] == rf__xop_constant : l->kind == RF_OP_CONSTANT;
        int fold = !con && l->n_inputs > 0; /* (the random ops are filled: rf__xop_constant) */
        int shape_of = !strcmp(l->op_type, "Shape") || !strcmp(l->op_type, "Size");
        for (uint32_t i = 0; fold && i < l->n_inputs; i++) {
            uint32_t t = l->inputs[i];
            if (t == RF_GRAPH_NO_TENSOR) continue;
            fold = t < g->n_tensors &&
                   (cst[t] || (shape_of && i == 0 && rf__shape_full(&g->tensors[t])));
        }
        if (!con && !fold) continue;
        p->layers[li].folded = fold;
        for (uint32_t o = 0; o < l->n_outputs; o++) {
            uint32_t t = l->outputs[o];
            if (t >= g->n_tensors) continue;
            cst[t] = 1;
            if (fold) p->t[t].cst = p->t[t].persistent = 1;
        }
    }
    rf__free(p->ctx, cst);
    return RF_OK;
}

rf_status rf__xplan_build(rf__xplan *p);
rf_status rf__xplan_build(rf__xplan *p)
{
    RF_TRY(graph_tensors(p));
    consumers(p);
    uint8_t *dropped = rf__calloc(p->ctx, (size_t)p->g->n_layers + 1, 1);
    if (!dropped) return RF_NOMEM_ERR(p->ctx);
    rf__if_dropped_mask(p->g, dropped); /* the If branches not taken: not run */
    rf_status st = mark_folded(p, dropped);
    for (uint32_t li = 0; st == RF_OK && li < p->g->n_layers; li++) {
        if (p->layers[li].fused_into >= 0) continue; /* computed by an earlier layer's kernel */
        if (dropped[li]) {
            rf__xlayer_unmeasured(p, li, "on the branch of an If not taken");
        } else if (layer_ready(p, li)) {
            st = dispatch(p, li);
        }
        if (st == RF_OK) st = settle(p, li);
    }
    rf__free(p->ctx, dropped);
    return st;
}
