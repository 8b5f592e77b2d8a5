/* roofline/graph.h — the layer graph every model reader produces (rf_graph), its element types
 * (rf_dtype, with every ggml quantized type at its true block size), the builder the readers use,
 * shape inference, and the cost model that turns a graph into FLOPs and bytes per layer (rf_cost).
 * Formulas: docs/cost-model.md. Block sizes: shared reference formats.md §5a (ggml-common.h).
 * The graph is plain data; nothing here parses files or prints. */
#ifndef ROOFLINE_GRAPH_H
#define ROOFLINE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== element types ============================================================================ */

/* X(NAME, "name", elements per block, bytes per block, ggml id or -1, ONNX DataType id or -1).
 * Plain types have a block of 1 element; sub-byte types pack a whole number of elements per byte
 * group (INT4: 2 per byte, F6: 4 per 3 bytes). STRING has no fixed size (bytes per block 0).
 * Append only: the enum values are part of the ABI. */
#define RF_DTYPE_LIST(X)                                                                           \
    X(UNKNOWN, "unknown", 1, 0, -1, 0)                                                             \
    X(F32, "F32", 1, 4, 0, 1)                                                                      \
    X(F16, "F16", 1, 2, 1, 10)                                                                     \
    X(BF16, "BF16", 1, 2, 30, 16)                                                                  \
    X(F64, "F64", 1, 8, 28, 11)                                                                    \
    X(F8_E4M3, "F8_E4M3", 1, 1, -1, 17)                                                            \
    X(F8_E4M3FNUZ, "F8_E4M3FNUZ", 1, 1, -1, 18)                                                    \
    X(F8_E5M2, "F8_E5M2", 1, 1, -1, 19)                                                            \
    X(F8_E5M2FNUZ, "F8_E5M2FNUZ", 1, 1, -1, 20)                                                    \
    X(F8_E8M0, "F8_E8M0", 1, 1, -1, 24)                                                            \
    X(F4_E2M1, "F4", 2, 1, -1, 23)                                                                 \
    X(F6_E2M3, "F6_E2M3", 4, 3, -1, -1)                                                            \
    X(F6_E3M2, "F6_E3M2", 4, 3, -1, -1)                                                            \
    X(I8, "I8", 1, 1, 24, 3)                                                                       \
    X(U8, "U8", 1, 1, -1, 2)                                                                       \
    X(I16, "I16", 1, 2, 25, 5)                                                                     \
    X(U16, "U16", 1, 2, -1, 4)                                                                     \
    X(I32, "I32", 1, 4, 26, 6)                                                                     \
    X(U32, "U32", 1, 4, -1, 12)                                                                    \
    X(I64, "I64", 1, 8, 27, 7)                                                                     \
    X(U64, "U64", 1, 8, -1, 13)                                                                    \
    X(I4, "I4", 2, 1, -1, 22)                                                                      \
    X(U4, "U4", 2, 1, -1, 21)                                                                      \
    X(I2, "I2", 4, 1, -1, 26)                                                                      \
    X(U2, "U2", 4, 1, -1, 25)                                                                      \
    X(BOOL, "BOOL", 1, 1, -1, 9)                                                                   \
    X(C64, "C64", 1, 8, -1, 14)                                                                    \
    X(C128, "C128", 1, 16, -1, 15)                                                                 \
    X(STRING, "STRING", 1, 0, -1, 8)                                                               \
    X(Q4_0, "Q4_0", 32, 18, 2, -1)                                                                 \
    X(Q4_1, "Q4_1", 32, 20, 3, -1)                                                                 \
    X(Q5_0, "Q5_0", 32, 22, 6, -1)                                                                 \
    X(Q5_1, "Q5_1", 32, 24, 7, -1)                                                                 \
    X(Q8_0, "Q8_0", 32, 34, 8, -1)                                                                 \
    X(Q8_1, "Q8_1", 32, 36, 9, -1)                                                                 \
    X(Q2_K, "Q2_K", 256, 84, 10, -1)                                                               \
    X(Q3_K, "Q3_K", 256, 110, 11, -1)                                                              \
    X(Q4_K, "Q4_K", 256, 144, 12, -1)                                                              \
    X(Q5_K, "Q5_K", 256, 176, 13, -1)                                                              \
    X(Q6_K, "Q6_K", 256, 210, 14, -1)                                                              \
    X(Q8_K, "Q8_K", 256, 292, 15, -1)                                                              \
    X(IQ2_XXS, "IQ2_XXS", 256, 66, 16, -1)                                                         \
    X(IQ2_XS, "IQ2_XS", 256, 74, 17, -1)                                                           \
    X(IQ3_XXS, "IQ3_XXS", 256, 98, 18, -1)                                                         \
    X(IQ1_S, "IQ1_S", 256, 50, 19, -1)                                                             \
    X(IQ4_NL, "IQ4_NL", 32, 18, 20, -1)                                                            \
    X(IQ3_S, "IQ3_S", 256, 110, 21, -1)                                                            \
    X(IQ2_S, "IQ2_S", 256, 82, 22, -1)                                                             \
    X(IQ4_XS, "IQ4_XS", 256, 136, 23, -1)                                                          \
    X(IQ1_M, "IQ1_M", 256, 56, 29, -1)                                                             \
    X(TQ1_0, "TQ1_0", 256, 54, 34, -1)                                                             \
    X(TQ2_0, "TQ2_0", 256, 66, 35, -1)                                                             \
    X(MXFP4, "MXFP4", 32, 17, 39, -1)                                                              \
    X(NVFP4, "NVFP4", 64, 36, 40, -1)                                                              \
    X(Q1_0, "Q1_0", 128, 18, 41, -1)                                                               \
    X(Q2_0, "Q2_0", 64, 18, 42, -1)

/** Element type of a tensor. */
typedef enum rf_dtype {
#define RF__DTYPE_ENUM(name, text, blk, bytes, ggml, onnx) RF_DTYPE_##name,
    RF_DTYPE_LIST(RF__DTYPE_ENUM)
#undef RF__DTYPE_ENUM
        RF_DTYPE_COUNT
} rf_dtype;

/** Short name ("F32", "Q4_K", ...); "unknown" for out-of-range values. Static. */
const char *rf_dtype_name(rf_dtype t);

/** Look up a name, case-insensitive ("q4_k", "F16"; SafeTensors spellings "F8_E4M3", "F4").
 *  Returns 1 and *out, or 0 when unknown. */
int rf_dtype_from_name(const char *name, rf_dtype *out);

/** Map a ggml type id (GGUF tensor info) or an ONNX TensorProto.DataType id. 1 and *out, or 0
 *  for unknown or removed ids (the caller reports the id). */
int rf_dtype_from_ggml(uint32_t id, rf_dtype *out);
int rf_dtype_from_onnx(int32_t id, rf_dtype *out);

/** Elements per block and bytes per block (block of 1 for plain types; bytes 0 for STRING and
 *  UNKNOWN). */
uint32_t rf_dtype_block_elems(rf_dtype t);
uint32_t rf_dtype_block_bytes(rf_dtype t);

/** Storage bytes of `n_elems` elements: n / block · bytes per block, rounded up to a whole block
 *  (readers that must insist on whole blocks check n % block themselves). Returns 1 and *out, or
 *  0 on overflow or for a type without a fixed size. */
int rf_dtype_bytes(rf_dtype t, uint64_t n_elems, uint64_t *out);

/* ==== the graph ================================================================================ */

#define RF_GRAPH_MAX_RANK 8      /**< readers refuse tensors of higher rank (RF_UNSUPPORTED) */
#define RF_GRAPH_NO_TENSOR UINT32_MAX /**< an omitted optional input ("" in ONNX) */
#define RF_GRAPH_MAX_VALUES 64   /**< longest integer constant kept for shape inference */

/** Tensor flags (a bit set). */
enum {
    RF_TENSOR_WEIGHT = 1u << 0, /**< stored in the model (initializer, GGUF/SafeTensors tensor) */
    RF_TENSOR_INPUT = 1u << 1,  /**< a graph input fed at run time */
    RF_TENSOR_OUTPUT = 1u << 2, /**< a graph output */
    RF_TENSOR_KV = 1u << 3,     /**< part of an LLM's KV cache: reads and writes are counted as
                                     kv_read / kv_write bytes by the cost model */
    RF_TENSOR_EXTERNAL = 1u << 4, /**< a weight whose bytes live in another file (ONNX external
                                       data); its size still comes from dims and dtype */
    RF_TENSOR_BUFFER = 1u << 5    /**< stored state that is not a trainable parameter (BatchNorm
                                       running mean and variance): in weight_bytes, not params */
};

/** A tensor. Dims are outermost first (NumPy/ONNX/PyTorch order; GGUF readers reverse theirs).
 *  dims[i] = -1 means unknown; then dim_names[i] may hold the symbol ("batch"). */
typedef struct rf_tensor {
    const char *name;       /**< never NULL; "" for anonymous; owned by the graph */
    rf_dtype dtype;
    uint32_t rank;          /**< 0 .. RF_GRAPH_MAX_RANK; 0 is a scalar when shape_known */
    int shape_known;        /**< 0 when even the rank is unknown */
    int64_t dims[RF_GRAPH_MAX_RANK];
    const char *dim_names[RF_GRAPH_MAX_RANK]; /**< symbol of an unknown dim, or NULL */
    uint32_t flags;         /**< RF_TENSOR_* */
    /** Known integer contents (ONNX Constant / small int64 initializers, results of Shape...):
     *  used by shape inference for Reshape, Slice, Gather chains. NULL when unknown. */
    const int64_t *values;
    uint32_t n_values;
    int32_t producer;       /**< index of the layer that writes it, or -1 */
} rf_tensor;

/** Attribute value types (ONNX AttributeProto subset). */
typedef enum rf_attr_type {
    RF_ATTR_INT,
    RF_ATTR_FLOAT,
    RF_ATTR_STRING,
    RF_ATTR_INTS,
    RF_ATTR_FLOATS
} rf_attr_type;

/** A named attribute of a layer. */
typedef struct rf_attr {
    const char *name;
    rf_attr_type type;
    int64_t i;             /**< RF_ATTR_INT */
    double f;              /**< RF_ATTR_FLOAT */
    const char *s;         /**< RF_ATTR_STRING (NUL-terminated; may contain no NUL) */
    const int64_t *ints;   /**< RF_ATTR_INTS, n elements */
    const double *floats;  /**< RF_ATTR_FLOATS, n elements */
    uint32_t n;
} rf_attr;

/* Op kinds: what the cost model does with a layer. X(NAME, "name"). */
#define RF_OP_KIND_LIST(X)                                                                         \
    X(UNKNOWN, "unknown")         /* cost undefined, warned about */                              \
    X(CONV, "conv")               /* Conv (1-D/2-D/3-D, groups) */                                \
    X(CONV_TRANSPOSE, "conv_transpose")                                                            \
    X(GEMM, "gemm")               /* Gemm / Linear: 2-D, transA/transB, optional bias C */        \
    X(MATMUL, "matmul")           /* MatMul, batched with broadcasting (attention matmuls too) */ \
    X(SOFTMAX, "softmax")                                                                          \
    X(LAYERNORM, "layernorm")                                                                      \
    X(RMSNORM, "rmsnorm")                                                                          \
    X(BATCHNORM, "batchnorm")                                                                      \
    X(ACTIVATION, "activation")   /* unary, per element: Relu, Sigmoid, Gelu, Clip ... */         \
    X(ELEMENTWISE, "elementwise") /* n-ary with broadcasting: Add, Mul, Pow, Sqrt ... */          \
    X(REDUCE, "reduce")           /* ReduceMean/Sum/Max ... */                                    \
    X(POOL, "pool")               /* MaxPool, AveragePool with a kernel */                        \
    X(GLOBAL_POOL, "global_pool") /* GlobalAveragePool, GlobalMaxPool */                          \
    X(DATA_MOVEMENT, "data_movement") /* Transpose, Concat, Slice, Split, Pad, Expand, Tile */    \
    X(METADATA, "metadata")       /* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape ... */ \
    X(CONSTANT, "constant")       /* Constant, ConstantOfShape: no run-time work */               \
    X(GATHER, "gather")           /* Gather / embedding lookup */                                 \
    X(RESIZE, "resize")           /* Resize / Upsample */                                         \
    X(ATTENTION, "attention")     /* fused scaled-dot-product attention (LLM builders) */         \
    X(ROPE, "rope")               /* rotary position embedding (LLM builders) */

typedef enum rf_op_kind {
#define RF__OPK_ENUM(name, text) RF_OP_##name,
    RF_OP_KIND_LIST(RF__OPK_ENUM)
#undef RF__OPK_ENUM
        RF_OP_KIND_COUNT
} rf_op_kind;

/** Name of a kind ("conv"); static. */
const char *rf_op_kind_name(rf_op_kind k);

/** Kind of an ONNX-style op type ("Conv", "MatMul", "Relu", ...); RF_OP_UNKNOWN when not known.
 *  Readers of other formats may use it too or set the kind directly. */
rf_op_kind rf_op_kind_from_type(const char *op_type);

/** A layer (an operator instance). */
typedef struct rf_layer {
    const char *name;      /**< never NULL; owned by the graph */
    const char *op_type;   /**< as in the source (ONNX op_type, e.g. "Conv"); never NULL */
    const char *domain;    /**< ONNX domain ("" default); never NULL */
    rf_op_kind kind;
    uint32_t *inputs;      /**< tensor indices; RF_GRAPH_NO_TENSOR for an omitted input */
    uint32_t n_inputs;
    uint32_t *outputs;
    uint32_t n_outputs;
    rf_attr *attrs;
    uint32_t n_attrs;
    uint32_t cap_attrs_;   /**< private */
    uint64_t repeat;       /**< the layer stands for `repeat` identical instances (>= 1), e.g.
                                one decoder block x N; costs are multiplied by it */
} rf_layer;

/** One metadata key/value (strings, owned by the graph). */
typedef struct rf_kv {
    const char *key;
    const char *value;
} rf_kv;

typedef struct rf__arena rf__arena; /* private */
typedef struct rf__name_index rf__name_index; /* private */

/** A model as a list of layers over tensors, in execution (topological) order. Build with
 *  rf_graph_new and the rf_graph_add_* calls; release with rf_graph_free. All strings and arrays
 *  belong to the graph. Read the fields freely; change them only through the builder. */
typedef struct rf_graph {
    const char *format;       /**< "onnx", "gguf", "safetensors", "builtin" */
    const char *architecture; /**< "resnet", "llama", ... or "" */
    const char *name;         /**< model or graph name, or "" */
    rf_tensor *tensors;
    uint32_t n_tensors;
    rf_layer *layers;
    uint32_t n_layers;
    rf_kv *meta;
    uint32_t n_meta;
    uint64_t params;       /**< elements of all weight tensors (each counted once) */
    uint64_t weight_bytes; /**< storage bytes of all weight tensors (each counted once) */
    int64_t opset;         /**< ONNX default-domain opset, or 0 */
    /* private */
    size_t cap_tensors_, cap_layers_, cap_meta_;
    rf__arena *arena_;
    rf__name_index *index_;
    rf_allocator alloc_;
} rf_graph;

/** Create an empty graph; `format` is copied. Free with rf_graph_free. */
rf_status rf_graph_new(rf_ctx *ctx, const char *format, rf_graph **out);

/** Release a graph and everything it owns. Accepts NULL. */
void rf_graph_free(rf_graph *g);

/** Copy bytes into the graph's arena (NUL-terminated). NULL when out of memory (error set). */
char *rf_graph_strdup(rf_ctx *ctx, rf_graph *g, const char *s, size_t len);

/** Arena allocation of `size` bytes, 8-byte aligned, zeroed; freed with the graph. */
void *rf_graph_alloc(rf_ctx *ctx, rf_graph *g, size_t size);

/** Set name / architecture (copied). */
rf_status rf_graph_set_name(rf_ctx *ctx, rf_graph *g, const char *name);
rf_status rf_graph_set_architecture(rf_ctx *ctx, rf_graph *g, const char *arch);

/** Append a metadata key/value (both copied). */
rf_status rf_graph_add_meta(rf_ctx *ctx, rf_graph *g, const char *key, const char *value);

/** Add a tensor named `name` (copied; "" allowed and never indexed). rank <= RF_GRAPH_MAX_RANK;
 *  dims may be NULL when rank is 0 or the shape is unknown (rank = UINT32_MAX means unknown rank).
 *  A non-empty name already present is RF_FORMAT ("duplicate tensor"). *index receives the new
 *  index (may be NULL). Weight tensors with a known shape are added to params and weight_bytes. */
rf_status rf_graph_add_tensor(rf_ctx *ctx, rf_graph *g, const char *name, rf_dtype dtype,
                              uint32_t rank, const int64_t *dims, uint32_t flags,
                              uint32_t *index);

/** Index of the tensor named `name`, or RF_GRAPH_NO_TENSOR. */
uint32_t rf_graph_find_tensor(const rf_graph *g, const char *name);

/** Set a tensor's shape (after creation, e.g. by shape inference); dims copied. */
rf_status rf_graph_set_shape(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t rank,
                             const int64_t *dims);

/** Record the symbol of unknown dim `axis` of a tensor (copied). */
rf_status rf_graph_set_dim_name(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t axis,
                                const char *symbol);

/** Record known integer contents of a tensor (at most RF_GRAPH_MAX_VALUES; longer is ignored). */
rf_status rf_graph_set_values(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const int64_t *v,
                              uint32_t n);

/** Add a layer. op_type and name copied; kind from rf_op_kind_from_type(op_type). The index
 *  arrays are copied; every index must be < n_tensors or RF_GRAPH_NO_TENSOR (inputs only).
 *  repeat starts at 1. The outputs' producer is set to this layer. *index may be NULL. */
rf_status rf_graph_add_layer(rf_ctx *ctx, rf_graph *g, const char *name, const char *op_type,
                             const uint32_t *inputs, uint32_t n_inputs, const uint32_t *outputs,
                             uint32_t n_outputs, uint32_t *index);

/** Attributes of layer `layer` (names and values copied). A later attribute of the same name
 *  shadows an earlier one for rf_layer_attr. */
rf_status rf_graph_set_attr_int(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                int64_t v);
rf_status rf_graph_set_attr_float(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                  double v);
rf_status rf_graph_set_attr_string(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                   const char *v, size_t len);
rf_status rf_graph_set_attr_ints(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                 const int64_t *v, uint32_t n);
rf_status rf_graph_set_attr_floats(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                   const double *v, uint32_t n);

/** The last attribute of layer `l` named `name`, or NULL. */
const rf_attr *rf_layer_attr(const rf_layer *l, const char *name);
/** Attribute as an int (INT) or `def` when absent or of another type. */
int64_t rf_layer_attr_int(const rf_layer *l, const char *name, int64_t def);

/** Elements of a tensor (product of dims). 1 and *out, or 0 when a dim is unknown or the product
 *  overflows. Bytes likewise, through rf_dtype_bytes. */
int rf_tensor_elems(const rf_tensor *t, uint64_t *out);
int rf_tensor_bytes(const rf_tensor *t, uint64_t *out);

/** Write a tensor's shape as "1x3x224x224" ("?" for unknown dims, the symbol when known, "scalar"
 *  for rank 0, "?" for unknown rank) into buf[size]; always terminated. Returns buf. */
const char *rf_tensor_shape_str(const rf_tensor *t, char *buf, size_t size);

/* ==== shape inference ========================================================================== */

/** A binding of a graph input or a symbolic dimension, from the command line:
 *  `--input NAME=1x3x512x512` (name + dims) or `--dim batch=8` (symbol + one value). */
typedef struct rf_shape_binding {
    char name[256];     /**< input tensor name, or dim symbol */
    int is_dim;         /**< 1 for a symbol binding */
    uint32_t rank;      /**< input bindings */
    int64_t dims[RF_GRAPH_MAX_RANK];
    int64_t value;      /**< symbol bindings */
} rf_shape_binding;

/** Parse "NAME=1x3x224x224" (is_dim 0; dims >= 1, "x"-separated) or "SYMBOL=8" (is_dim 1) into
 *  *b. RF_USAGE with a message naming the text when it is malformed. */
rf_status rf_shape_binding_parse(rf_ctx *ctx, const char *text, int is_dim, rf_shape_binding *b);

/** Apply bindings to the graph inputs (replacing their dims; an unknown input name is
 *  RF_USAGE), then bind symbols, then infer every layer's output shapes in order for the common
 *  operator set (docs/cost-model.md "Shape inference"). Shapes the file already states are kept
 *  unless an input binding changed the graph's inputs. Layers whose outputs stay unknown are left
 *  so; the cost model reports them as undefined with the reason. */
rf_status rf_graph_infer_shapes(rf_ctx *ctx, rf_graph *g, const rf_shape_binding *b, size_t n);

/* ==== cost model =============================================================================== */

/** Cost of one layer (times its repeat count). FLOP and byte units; doubles hold exact integers
 *  up to 2^53. */
typedef struct rf_layer_cost {
    double flops;          /**< FLOP (a multiply-add is 2), bias adds included */
    double bias_flops;     /**< the part of `flops` that is bias adds (Conv/Gemm) or the softmax
                                of a fused attention; flops - bias_flops is the matrix work */
    double weight_bytes;   /**< bytes of weight inputs, read once */
    double input_bytes;    /**< bytes of non-weight, non-KV inputs, read once */
    double output_bytes;   /**< bytes of outputs (not KV), written once */
    double kv_read_bytes;  /**< bytes of KV-cache inputs */
    double kv_write_bytes; /**< bytes of KV-cache outputs */
    double bytes;          /**< sum of the five above */
    uint64_t params;       /**< elements of the weight inputs */
    int known;             /**< 0: undefined (unknown op, unknown shape); FLOPs/bytes are 0 */
    char reason[96];       /**< why unknown ("unknown op type", "shape of input 0 unknown") */
} rf_layer_cost;

/** The cost of a whole graph. */
typedef struct rf_cost {
    rf_layer_cost *layers;   /**< n_layers entries, parallel to graph->layers */
    uint32_t n_layers;
    double flops, bytes, weight_bytes, input_bytes, output_bytes, kv_read_bytes, kv_write_bytes;
    double matmul_conv_flops; /**< FLOPs of Conv/ConvTranspose/Gemm/MatMul/attention only, without
                                   bias adds (the fixtures' convention) */
    uint64_t params;         /**< graph->params (each weight once) */
    uint32_t n_unknown;      /**< layers whose cost is undefined */
    char **unknown_ops;      /**< distinct op types of undefined layers */
    uint32_t n_unknown_ops;
    rf_allocator alloc_;     /**< private */
} rf_cost;

/** Count every layer of `g` (docs/cost-model.md). Never fails for an unknown op: that layer is
 *  marked unknown, and one warning listing the unknown op types goes through the context's log.
 *  *out is owned by the caller (rf_cost_free). RF_NOMEM, RF_RANGE (counts beyond 2^63). */
rf_status rf_graph_cost(rf_ctx *ctx, const rf_graph *g, rf_cost **out);

/** Release a cost. Accepts NULL. */
void rf_cost_free(rf_cost *c);

/** Add one row per layer of `g` with its cost `c` to an analysis (the profile's table): name,
 *  op type, output shape as detail, FLOPs, bytes. Layers whose cost is undefined go in as
 *  undefined rows (not logged again); layers that cost nothing (Shape, Reshape, Constant, ...:
 *  docs/cost-model.md "Metadata") are left out and counted in *n_skipped (may be NULL). */
rf_status rf_graph_analysis_add(rf_ctx *ctx, rf_analysis *a, const rf_graph *g, const rf_cost *c,
                                uint32_t *n_skipped);

#ifdef __cplusplus
}
#endif
#endif
