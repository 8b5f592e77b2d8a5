/* exec_int.h — internals of the executor (src/exec): the plan (executor tensors, steps, arena),
 * the op builders that turn a graph layer into steps, and the hooks the unit tests use to read
 * tensors back. Steps are oneDNN primitives or plain C kernels; none of them times itself.
 * Never installed; never included by cli/.
 *
 * The files call one way: run.c (passes, timing) -> plan_mem.c (placement) -> plan.c (the
 * dispatcher: one entry per op registry row) -> op_*.c (the builders) -> steps.c (the leaf
 * helpers below). scripts/check-layers (CHECK_EXEC_CYCLES=1) fails on a call cycle.
 *
 * Glossary of the names that stay short:
 *   x        (rf__x..., RF__X...) the executor, as opposed to the graph it runs
 *   plan     everything one graph needs to run: executor tensors, steps, the arena
 *   xtensor  an executor tensor: a graph tensor, or a copy in another layout, or scratch
 *   step     one thing a pass runs: a oneDNN primitive (prim) or a C kernel (kernel)
 *   desc     a oneDNN memory descriptor (dims and layout); prim_desc a primitive descriptor
 *   kernel_args  the parameters of a C kernel (dims, strides, an op code, a value)
 *   extra layer  work the executor adds (a reorder), reported as a layer of its own
 *   op       an op builder, rf__xop_<entry>: the executor column of src/graph/op_table.h
 *   li       a layer's index in the graph; t, xu, Y: executor tensor indices */
#ifndef RF_EXEC_INT_H
#define RF_EXEC_INT_H

#include <math.h>

#include <oneapi/dnnl/dnnl.h>

#include "core/checked.h"
#include "core/rf_int.h"
#include "graph/graph_int.h"
#include "roofline/exec.h"

#define RF__XNONE UINT32_MAX          /* no tensor */
#define RF__XSCRATCH (UINT32_MAX - 1) /* the shared oneDNN scratchpad, as a step argument */
#define RF__XOWNER (-2)               /* rf__xstep.extra of a step that only owns outputs */

/* An executor tensor: a graph tensor (index < g->n_tensors) or one the executor added (a copy
 * in another layout). Every tensor holds float32 elements in the layout `md`. */
typedef struct rf__xtensor {
    uint32_t rank; /* 0 for a scalar (stored as 1 element) */
    int64_t dims[RF_GRAPH_MAX_RANK];
    int ready;             /* 1 once its shape and layout are known (produced or fed) */
    dnnl_memory_desc_t md; /* layout of its bytes */
    size_t bytes;          /* storage size */
    uint32_t alias;        /* a view of another tensor's bytes (Reshape ...), or RF__XNONE */
    int persistent;        /* own allocation for the whole run: weights, inputs, outputs */
    int weight;            /* constant over the passes: weights, constants and their packed
                              copies (layout copies made once, not timed) */
    int fill;              /* a graph tensor given synthetic values before the passes (weights,
                              constants, graph inputs) */
    int positive;          /* synthetic values must be > 0 (variances) */
    int integer;           /* synthetic values are small non-negative integers */
    int used;              /* read or written directly by a step */
    uint32_t copy_of;      /* a copy of this tensor in another layout (a packed weight, or
                              an activation reordered for a consumer), or RF__XNONE */
    dnnl_memory_desc_t copy_src_md; /* how copy_of's bytes are read for the copy */
    int64_t first, last;            /* step indices of its first and last use (-1: none) */
    size_t offset;                  /* arena offset (non-persistent roots) */
    void *raw;                      /* persistent allocation (unaligned) */
    float *data;                    /* its elements, resolved by rf__xplan_finalize */
    uint32_t src;                   /* the graph tensor it stands for, or RF__XNONE */
    uint32_t shift_of;              /* a weight filled once with shift_of's values minus shift
                                       (op_qint.c: u8 weights made s8), or RF__XNONE */
    float shift;
    int cst; /* constant over the passes without being filled: written by a folded step (a layer
                whose inputs are all constants, or a copy of such a tensor), computed once when
                the plan is made (plan_mem.c), never in a pass */
} rf__xtensor;

/* Elements of an executor tensor (its dims multiplied). */
static inline uint64_t rf__xtensor_elems(const rf__xtensor *t)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) n *= (uint64_t)t->dims[i];
    return n;
}

/* Input i of a layer, or RF_GRAPH_NO_TENSOR when the layer has fewer (optional inputs). */
static inline uint32_t rf__xinput_at(const rf_layer *l, uint32_t i)
{
    return i < l->n_inputs ? l->inputs[i] : RF_GRAPH_NO_TENSOR;
}

/* A oneDNN argument of a step: the tensor and how its bytes are viewed. */
typedef struct rf__xprim_arg {
    int id;     /* DNNL_ARG_* */
    uint32_t t; /* tensor, or RF__XSCRATCH */
    dnnl_memory_desc_t md;
    dnnl_memory_t mem;
} rf__xprim_arg;

typedef struct rf__xplan rf__xplan;
typedef struct rf__xstep rf__xstep;
typedef void (*rf__xkernel_fn)(const rf__xstep *s);

/* Parameters of the C kernels (op_c.c). */
typedef struct rf__xkernel_args {
    int op;
    uint32_t rank; /* iteration rank (output dims) */
    int64_t dims[RF_GRAPH_MAX_RANK];
    int64_t st[3][RF_GRAPH_MAX_RANK]; /* element strides of inputs over the output dims */
    int64_t off;                      /* element offset of input 0 */
    int64_t outer, inner, axis_n, n_idx;
    float value;
} rf__xkernel_args;

/* Tensor t as outer x axis_n x inner around `axis` (a valid axis) into c. */
static inline void rf__xaround_axis(const rf__xtensor *t, int64_t axis, rf__xkernel_args *c)
{
    c->outer = c->inner = 1;
    for (uint32_t i = 0; i < t->rank; i++) {
        if ((int64_t)i < axis) c->outer *= t->dims[i];
        if ((int64_t)i > axis) c->inner *= t->dims[i];
    }
    c->axis_n = t->dims[axis];
}

/* One step of a pass: the main work of a graph layer or a reorder the executor added. */
struct rf__xstep {
    uint32_t layer;        /* graph layer it belongs to */
    int32_t extra;         /* index of the extra layer (reorder), -1 (the layer's own work) or
                              RF__XOWNER (no work: keeps the layer's outputs allocated) */
    dnnl_primitive_t prim; /* oneDNN step, or NULL */
    rf__xprim_arg *args;
    uint32_t n_args;
    rf__xkernel_fn cfn; /* C step (NULL and no prim: nothing to run, a view) */
    uint32_t *io;       /* tensors a C step reads (first n_in) then writes */
    uint32_t n_io, n_in;
    float **ptr; /* resolved data of io[] */
    rf__xkernel_args c;
    int tiny; /* run on one thread (fork/join would cost more): a C step moving under
                 RF__XTINY_BYTES, a primitive by prim_tiny (steps.c) */
    int fold; /* folded: reads constants only; run once when the plan is made, never in a pass
                 (a folded layer's own step, or a reorder of a folded tensor) */
};

/* Values of a scale or zero point op_qlinear.c reads when it makes a primitive (per plan). */
#define RF__XQ_MAXV 4096

/* A step that touches fewer bytes than this runs on one OpenMP thread: a team's fork and join
 * costs microseconds, and on a busy machine a spinning peer that was descheduled costs a time
 * slice (a 200k-node chain of tiny ops took 120 s on 2 threads under load, 4 s on one). */
#define RF__XTINY_BYTES (128u * 1024u)
/* ... and a convolution or matmul step also does fewer multiply-adds than this (about 20 us
 * on one core): its weights may weigh more than its activations. */
#define RF__XTINY_MACS 1e6

/* An extra layer's description (its timing comes from its step). */
typedef struct rf__xextra_layer {
    char name[RF_NAME_MAX];
    uint32_t before_layer;
    double bytes;
    int folded;    /* a reorder of a constant: made once when the plan is made */
    double load_s; /* the time that took, seconds */
} rf__xextra_layer;

/* Per graph layer: how it runs. */
typedef struct rf__xlayer {
    int measured;
    char reason[RF_TEXT_MAX];
    char kernel[RF_NAME_MAX];
    int32_t fused_into; /* -1: runs its own steps; else the layer whose kernel computes it as a
                           oneDNN post-op (run.c gives it a share of that kernel's time) */
    double work;        /* FLOPs of the layer's part of a fused kernel (the share's weight) */
    int folded;         /* every input is a constant: its steps run once when the plan is made
                           (plan_mem.c), not in the passes */
    double load_s;      /* the time its folded steps took then, seconds */
} rf__xlayer;

struct rf__xplan {
    rf_ctx *ctx;
    const rf_graph *g;
    dnnl_engine_t eng;
    dnnl_stream_t strm;
    dnnl_primitive_attr_t attr; /* scratchpad mode user */
    rf__xtensor *t;
    size_t n_t, cap_t;
    rf__xstep *steps;
    size_t n_steps, cap_steps;
    rf__xextra_layer *extra;
    size_t n_extra, cap_extra;
    rf__xlayer *layers; /* g->n_layers */
    uint32_t *consumer; /* per graph tensor: the one layer reading it (once), or RF__XNONE
                           when none or several do (fusion needs a single reader) */
    size_t scratch_bytes;
    void (*omp_set)(int);           /* omp_set_num_threads, when the runtime has one (run.c) */
    float qscratch[5][RF__XQ_MAXV]; /* op_qlinear.c: scales and zero points read at planning */
    int threads;                    /* the team size for the steps that are not tiny */
    void *scratch_raw, *arena_raw;
    size_t arena_bytes;
    uint64_t peak_bytes;
    char note[RF_TEXT_MAX]; /* data-dependent inputs given */
    size_t note_len;
};

/* Is tensor t the same in every pass (a weight, a constant, or computed from them once)? */
static inline int rf__xconst(const rf__xplan *p, uint32_t t)
{
    return t < p->n_t && (p->t[t].weight || p->t[t].cst);
}

/* ---- plan.c ---- */
/* Build the plan of `g`: every layer's steps, tensor lifetimes, the arena; weights and inputs
 * filled with synthetic values. RF_NOMEM, RF_RANGE (too big), RF_INTERNAL (oneDNN). */
rf_status rf__xplan_new(rf_ctx *ctx, const rf_graph *g, rf__xplan **out);
/* rf__xplan_new for a team of `threads` set through omp_set (omp_set_num_threads; NULL: none):
 * the primitives of tiny steps are made for one thread (their work split is fixed then). */
rf_status rf__xplan_new_team(rf_ctx *ctx, const rf_graph *g, void (*omp_set)(int), int threads,
                             rf__xplan **out);
/* rf__xplan_new with the same steps and layouts but nothing folded (rf__xlayer.folded): what a
 * folded plan runs once runs in every pass, its tensors kept for rf__xplan_read. The unit
 * tests' reference for what folding must leave unchanged. */
rf_status rf__xplan_new_unfolded(rf_ctx *ctx, const rf_graph *g, rf__xplan **out);
void rf__xplan_free(rf__xplan *p);
/* Run every step once. step_s (n_steps entries) receives each step's time when not NULL; the
 * clock is read just before and just after each step. */
rf_status rf__xplan_pass(rf__xplan *p, double (*clock)(void *), void *user, double *step_s);
/* Copy graph tensor `t` out as plain row-major float32 (n elements). RF_USAGE when it is not
 * alive at the end of a pass (only inputs, weights and outputs are). */
rf_status rf__xplan_read(rf__xplan *p, uint32_t t, float *out, uint64_t n);
/* The synthetic values of graph tensor t of g (what rf__xplan_new fills it with). */
void rf__exec_synth(const rf_graph *g, uint32_t t, int positive, int integer, float *out,
                    uint64_t n);

/* ---- helpers for the op builders (plan.c) ---- */
void rf__xdesc_plain(dnnl_memory_desc_t *md, uint32_t rank, const int64_t *dims);
/* A new executor tensor (a copy of `like`'s shape); its index in *out. */
rf_status rf__xtensor_add(rf__xplan *p, const rf__xtensor *like, uint32_t *out);
/* Make the result of layer `li` output `o` a tensor of layout md (sets its size). */
void rf__xtensor_define(rf__xplan *p, uint32_t t, const dnnl_memory_desc_t *md);
/* Tensor `t`, whose bytes read as `view` (NULL: its own layout; a view has the dims of `want`),
 * in layout `want`: itself when view equals want, else a copy made by a reorder (a timed extra
 * step before layer li; for weights, once before the run). Copies are shared between
 * consumers. */
rf_status rf__xtensor_convert(rf__xplan *p, uint32_t li, uint32_t t, const dnnl_memory_desc_t *view,
                              const dnnl_memory_desc_t *want, uint32_t *use);
/* Tensor `t` in plain row-major layout. */
/* Input 0 of layer li in the plain layout into *xu, *ok = 1; *ok = 0 with the layer marked not
 * measured when it has no input or no output. */
rf_status rf__xinput0_plain(rf__xplan *p, uint32_t li, uint32_t *xu, int *ok);
rf_status rf__xtensor_plain(rf__xplan *p, uint32_t li, uint32_t t, uint32_t *use);
/* Create a oneDNN primitive descriptor for op_desc with the plan's attributes; 0 when oneDNN
 * has no implementation (the caller falls back), 1 on success. */
int rf__xprim_desc(rf__xplan *p, const void *op_desc, dnnl_primitive_desc_t *pd);
/* Append a step running primitive pd (consumed) with args; the scratchpad is added. */
rf_status rf__xstep_add_prim(rf__xplan *p, uint32_t li, int32_t extra, dnnl_primitive_desc_t pd,
                             const rf__xprim_arg *args, uint32_t n_args);
/* Append a C step over tensors io (n_in inputs first). */
rf_status rf__xstep_add_kernel(rf__xplan *p, uint32_t li, rf__xkernel_fn fn, const uint32_t *io,
                               uint32_t n_io, uint32_t n_in, const rf__xkernel_args *c);
/* Mark layer li measured with `kernel`, or not measured with a reason. */
void rf__xlayer_measured(rf__xplan *p, uint32_t li, const char *kernel);
void rf__xlayer_unmeasured(rf__xplan *p, uint32_t li, const char *fmt, ...) RF__PRINTF(3, 4);
/* Add a phrase to the inputs note (once per distinct text). */
void rf__xplan_note(rf__xplan *p, const char *text);
/* Does output t of layer li have the shape the op computes from its actual inputs (rank, dims)?
 * 1 when it does; else the layer is marked not measured ("output 'y': declared shape 1x3,
 * computed 1x10") and 0. Value-dependent shapes (TopK's K, OneHot's depth, Slice, Split, Expand)
 * go through it before any step writes or reads by the declared shape. */
int rf__xshape_is(rf__xplan *p, uint32_t li, uint32_t t, uint32_t rank, const int64_t *dims);
/* Does tensor t broadcast (NumPy rules) to the R dims yd? */
int rf__xbroadcasts_to(const rf__xtensor *t, uint32_t R, const int64_t *yd);
/* Inputs 0 .. nin-1 of layer li broadcast together (omitted ones skipped) and to its declared
 * output 0; else the layer is marked not measured and 0. */
int rf__xbroadcast_output(rf__xplan *p, uint32_t li, uint32_t nin);
/* A float holding an index (synthetic or computed) into 0 .. n-1 (n > 0), wrapped modulo n as
 * the executor wraps synthetic indices; NaN and values past int64 (UB to convert) wrap through
 * fmod, never a cast out of range. */
static inline int64_t rf__xwrap(float v, int64_t n)
{
    int64_t k;
    if (v > -4.0e18f && v < 4.0e18f) {
        k = (int64_t)v % n;
    } else {
        double r = fmod((double)v, (double)n); /* exact; NaN and infinities give NaN */
        k = r == r ? (int64_t)r : 0;
    }
    return k < 0 ? k + n : k;
}
/* Element strides of tensor t broadcast (NumPy rules) over the R output dims yd (op_c.c). */
void rf__xbroadcast_strides(const rf__xtensor *t, uint32_t R, const int64_t *yd, int64_t *st);
/* Attribute ints of a layer (count, or -1 when absent). */
int rf__xattr_ints(const rf_layer *l, const char *name, int64_t *out, int max);

/* rf__xop_<entry>: the builder of its rows of the op registry, on input 0 in the plain layout. */
#define RF__ON_INPUT0(entry, builder)                                                              \
    rf_status rf__xop_##entry(rf__xplan *p, uint32_t li)                                           \
    {                                                                                              \
        uint32_t xu;                                                                               \
        int ok;                                                                                    \
        RF_TRY(rf__xinput0_plain(p, li, &xu, &ok));                                                \
        return ok ? builder(p, li, xu) : RF_OK;                                                    \
    }

/* Left and right pads of a conv or pool over `sp` spatial dims (op_gemm.c): explicit `pads` or
 * auto_pad, the right side completed so the output has its inferred size (covers ceil_mode). */
void rf__xconv_pads(const rf_layer *l, int sp, const int64_t *in, const int64_t *out,
                    const int64_t *k, const int64_t *s, const int64_t *d, int64_t *pl, int64_t *pr);

/* ---- the op builders: the entries of the op registry's executor column (src/graph/op_table.h,
 * rf__xop_<entry>; plan.c dispatches), each for the rows that name it. Each returns RF_OK after
 * adding steps or marking the layer not measured; errors are only RF_NOMEM / RF_INTERNAL. ---- */
#define RF__XOP_DECL(id, name, dom, kind, shape, cost, sec, exec, why)                             \
    rf_status rf__xop_##exec(rf__xplan *p, uint32_t li);
RF_OP_TABLE(RF__XOP_DECL) /* (rf__xop_none is declared, never defined: plan.c maps it to NULL) */
#undef RF__XOP_DECL
rf_status rf__xop_conv(rf__xplan *p, uint32_t li);
/* A BatchNormalization reading only Y, the output of layer li's convolution of constant weights
 * *W (bias *B), folded into new constant weights and bias (op_bnfold.c): *W, *B replaced, *bn the
 * folded layer or RF__XNONE. */
rf_status rf__xfold_bn(rf__xplan *p, uint32_t li, uint32_t Y, uint32_t *W, uint32_t *B,
                       uint32_t *bn);
/* A convolution of X by W (+ bias B) into the layer's output with source type xdt (f32, or u8 /
 * s8 with s8 weights) and attributes attr (NULL: the plan's); the int8 ops use it. */
rf_status rf__xop_conv_as(rf__xplan *p, uint32_t li, uint32_t X, uint32_t W, uint32_t B,
                          dnnl_data_type_t xdt, const_dnnl_primitive_attr_t attr,
                          const char *kernel);
rf_status rf__xop_deconv(rf__xplan *p, uint32_t li);
rf_status rf__xop_llm_attn(rf__xplan *p, uint32_t li);
rf_status rf__xop_llm(rf__xplan *p, uint32_t li);
/* 1 when MatMul layer li is an LLM builder's expert matmul (op_llm.c runs it). */
int rf__xop_llm_is_expert(const rf__xplan *p, uint32_t li);
rf_status rf__xop_gemm(rf__xplan *p, uint32_t li);
rf_status rf__xop_matmul(rf__xplan *p, uint32_t li);
rf_status rf__xop_eltwise(rf__xplan *p, uint32_t li);
/* Post-op fusion (op_dnnl.c): the element-wise layers that follow tensor Y alone (Relu, Clip,
 * HardSigmoid, ..., Add/Mul/... of a residual, a per-channel or a scalar operand), appended to
 * po as oneDNN post-ops, at most max of them: their indices in fused[], the binary post-ops'
 * operands in args[*n_args] (up to max; binary 0: the chain stops at the first binary layer;
 * like, not NULL: a residual is read in that layout), the tensor the last one writes in *y_out
 * (Y when none). Returns the count. */
uint32_t rf__xfuse_chain(rf__xplan *p, uint32_t Y, dnnl_post_ops_t po, uint32_t *fused,
                         rf__xprim_arg *args, uint32_t *n_args, uint32_t max, int binary,
                         const dnnl_memory_desc_t *like, uint32_t *y_out);
/* The bias a (de)convolution without one can take from the layer after its output Y: an Add of
 * a constant per-channel operand (C elements, [C,1,..] or [1,C,1,..], plain bytes), the Add's
 * index in *layer. RF__XNONE when there is none. */
uint32_t rf__xfuse_bias(rf__xplan *p, uint32_t Y, uint32_t *layer);
/* The binary post-ops' operands in the layout their args say (a plain copy, or a residual
 * reordered to the kernel's output layout, when needed). */
rf_status rf__xfuse_operands(rf__xplan *p, uint32_t li, rf__xprim_arg *args, uint32_t n);
/* After the fused kernel of layer li was added: the layers fused[] are marked measured as part
 * of it, their outputs (and li's own, Y) made views of y_out. work: li's FLOPs per pass. */
void rf__xfuse_commit(rf__xplan *p, uint32_t li, uint32_t Y, const uint32_t *fused, uint32_t n,
                      uint32_t y_out, double work);
rf_status rf__xop_binary(rf__xplan *p, uint32_t li);
rf_status rf__xop_pow(rf__xplan *p, uint32_t li);
rf_status rf__xop_matmul_any(rf__xplan *p, uint32_t li);
rf_status rf__xop_constant(rf__xplan *p, uint32_t li);
rf_status rf__xop_pool(rf__xplan *p, uint32_t li);
rf_status rf__xop_norm(rf__xplan *p, uint32_t li);
rf_status rf__xop_softmax(rf__xplan *p, uint32_t li);
rf_status rf__xop_lrn(rf__xplan *p, uint32_t li);
rf_status rf__xop_reduce(rf__xplan *p, uint32_t li);
rf_status rf__xop_concat(rf__xplan *p, uint32_t li);
rf_status rf__xop_transpose(rf__xplan *p, uint32_t li);
rf_status rf__xop_resize(rf__xplan *p, uint32_t li);
rf_status rf__xop_rnn(rf__xplan *p, uint32_t li); /* LSTM, GRU (op_rnn.c) */
/* Plain C ops (op_c.c, op_c_data.c): views, Gather, Slice, Pad, Where, Expand, Split, Shape,
 * unary and n-ary elementwise fallbacks. */
rf_status rf__xop_view(rf__xplan *p, uint32_t li);
rf_status rf__xop_if_select(rf__xplan *p, uint32_t li);
rf_status rf__xop_data(rf__xplan *p, uint32_t li);
rf_status rf__xop_cbinary(rf__xplan *p, uint32_t li, int op);
rf_status rf__xop_cunary(rf__xplan *p, uint32_t li);
/* Resize mode cubic over the last two axes (op_c.c); the kernel itself for tests. */
#define RF__CUBIC_MAX_W 4096
rf_status rf__xop_resize_cubic(rf__xplan *p, uint32_t li);
void rf__xresize_cubic(const float *x, float *y, int64_t planes, int64_t ih, int64_t iw, int64_t oh,
                       int64_t ow, int mode, float a);

/* Einsum (op_einsum.c): permutes and batched sgemm from the cost model's parse. */
rf_status rf__xop_einsum(rf__xplan *p, uint32_t li);

/* QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear in C (op_quant.c). */
rf_status rf__xop_quant(rf__xplan *p, uint32_t li);
/* ONNX Runtime's contrib ops (op_contrib.c) and its attention ops (op_attn.c). */
rf_status rf__xop_contrib(rf__xplan *p, uint32_t li);
rf_status rf__xop_attn(rf__xplan *p, uint32_t li);
/* MatMulInteger, QLinearMatMul, ConvInteger, QLinearConv on oneDNN int8 (op_qlinear.c). */
rf_status rf__xop_qlinear(rf__xplan *p, uint32_t li);
/* ConvInteger and MatMulInteger with any zero points (op_qint.c): an input zero point computed
 * at run time, u8 weights and weight zero points per tensor or per output channel folded in. */
rf_status rf__xop_conv_integer(rf__xplan *p, uint32_t li);
rf_status rf__xop_matmul_integer(rf__xplan *p, uint32_t li);

/* ---- xpar.c: a C kernel's parts on the pass's OpenMP team ---- */
/* fn(arg, part, parts) once per thread of the team (parts = the team's size), or fn(arg, 0, 1)
 * on the caller when serial is set or there is no OpenMP runtime. Returns when all are done. */
typedef void (*rf__xpar_fn)(void *arg, unsigned part, unsigned parts);
void rf__xpar_run(rf__xpar_fn fn, void *arg, int serial);
/* Part `part` of `parts` of 0 .. n-1 in whole blocks of `align`: [*lo, *hi). */
void rf__xpar_range(int64_t n, int64_t align, unsigned part, unsigned parts, int64_t *lo,
                    int64_t *hi);

/* C binary ops (rf__xkernel_args.op for the n-ary kernel). */
enum {
    RF__XB_ADD,
    RF__XB_SUB,
    RF__XB_MUL,
    RF__XB_DIV,
    RF__XB_POW,
    RF__XB_MAX,
    RF__XB_MIN,
    RF__XB_EQ,
    RF__XB_GT,
    RF__XB_LT,
    RF__XB_GE,
    RF__XB_LE,
    RF__XB_AND,
    RF__XB_OR,
    RF__XB_XOR,
    RF__XB_MOD,
    RF__XB_WHERE,
    RF__XB_PRELU
};
/* ONNX op type to a C binary op, or -1. */
int rf__xbinary_op_of(const char *op_type);

#endif
