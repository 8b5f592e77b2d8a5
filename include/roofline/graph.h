/* roofline/graph.h — the layer graph every model reader produces (rf_graph: tensors, layers,
 * attributes) and the builder calls through which readers make one. Shape inference is in
 * shape.h, the cost model in cost.h (docs/design.md, "Header map"). The graph is plain data;
 * nothing here parses files or prints. */
#ifndef ROOFLINE_GRAPH_H
#define ROOFLINE_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"
#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RF_GRAPH_MAX_RANK 8           /**< readers refuse tensors of higher rank (RF_UNSUPPORTED) */
#define RF_GRAPH_NO_TENSOR UINT32_MAX /**< an omitted optional input ("" in ONNX) */
#define RF_GRAPH_MAX_VALUES 64        /**< longest integer constant kept for shape inference */

/** Tensor flags (a bit set). */
enum {
    RF_TENSOR_WEIGHT = 1u << 0,   /**< stored in the model (initializer, GGUF/SafeTensors tensor) */
    RF_TENSOR_INPUT = 1u << 1,    /**< a graph input fed at run time */
    RF_TENSOR_OUTPUT = 1u << 2,   /**< a graph output */
    RF_TENSOR_KV = 1u << 3,       /**< part of an LLM's KV cache: reads and writes are counted as
                                       kv_read / kv_write bytes by the cost model */
    RF_TENSOR_EXTERNAL = 1u << 4, /**< a weight whose bytes live in another file (ONNX external
                                       data); its size still comes from dims and dtype */
    RF_TENSOR_BUFFER = 1u << 5,   /**< stored state that is not a trainable parameter (BatchNorm
                                       running mean and variance): in weight_bytes, not params */
    RF_TENSOR_CONST_WEIGHT = 1u << 6 /**< a weight held by a Constant node (paddle2onnx): counted
                                          as RF_TENSOR_WEIGHT is, but still written by its layer */
};

/** A tensor. Dims are outermost first (NumPy/ONNX/PyTorch order; GGUF readers reverse theirs).
 *  dims[i] = -1 means unknown; then dim_names[i] may hold the symbol ("batch"). */
typedef struct rf_tensor {
    const char *name; /**< never NULL; "" for anonymous; owned by the graph */
    rf_dtype dtype;
    uint32_t rank;   /**< 0 .. RF_GRAPH_MAX_RANK; 0 is a scalar when shape_known */
    int shape_known; /**< 0 when even the rank is unknown */
    int64_t dims[RF_GRAPH_MAX_RANK];
    const char *dim_names[RF_GRAPH_MAX_RANK]; /**< symbol of an unknown dim, or NULL */
    uint32_t flags;                           /**< RF_TENSOR_* */
    /** Known integer contents (ONNX Constant / small int64 initializers, results of Shape...):
     *  used by shape inference for Reshape, Slice, Gather chains. NULL when unknown. */
    const int64_t *values;
    uint32_t n_values;
    int32_t producer; /**< index of the layer that writes it, or -1 */
    /** Known floating-point contents (Resize's scales from a Constant), NULL when unknown. */
    const double *fvalues;
    uint32_t n_fvalues;
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
    int64_t i;            /**< RF_ATTR_INT */
    double f;             /**< RF_ATTR_FLOAT */
    const char *s;        /**< RF_ATTR_STRING (NUL-terminated; may contain no NUL) */
    const int64_t *ints;  /**< RF_ATTR_INTS, n elements */
    const double *floats; /**< RF_ATTR_FLOATS, n elements */
    uint32_t n;
} rf_attr;

/* Op kinds: what the cost model does with a layer. X(NAME, "name"). */
#define RF_OP_KIND_LIST(X)                                                                         \
    X(UNKNOWN, "unknown") /* cost undefined, warned about */                                       \
    X(CONV, "conv")       /* Conv (1-D/2-D/3-D, groups) */                                         \
    X(CONV_TRANSPOSE, "conv_transpose")                                                            \
    X(GEMM, "gemm")     /* Gemm / Linear: 2-D, transA/transB, optional bias C */                   \
    X(MATMUL, "matmul") /* MatMul, batched with broadcasting (attention matmuls too) */            \
    X(SOFTMAX, "softmax")                                                                          \
    X(LAYERNORM, "layernorm")                                                                      \
    X(RMSNORM, "rmsnorm")                                                                          \
    X(BATCHNORM, "batchnorm")                                                                      \
    X(ACTIVATION, "activation")       /* unary, per element: Relu, Sigmoid, Gelu, Clip ... */      \
    X(ELEMENTWISE, "elementwise")     /* n-ary with broadcasting: Add, Mul, Pow, Sqrt ... */       \
    X(REDUCE, "reduce")               /* ReduceMean/Sum/Max ... */                                 \
    X(POOL, "pool")                   /* MaxPool, AveragePool with a kernel */                     \
    X(GLOBAL_POOL, "global_pool")     /* GlobalAveragePool, GlobalMaxPool */                       \
    X(DATA_MOVEMENT, "data_movement") /* Transpose, Concat, Slice, Split, Pad, Expand, Tile */     \
    X(METADATA, "metadata")   /* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Shape ... */      \
    X(CONSTANT, "constant")   /* Constant, ConstantOfShape: no run-time work */                    \
    X(GATHER, "gather")       /* Gather / embedding lookup */                                      \
    X(RESIZE, "resize")       /* Resize / Upsample */                                              \
    X(ATTENTION, "attention") /* fused scaled-dot-product attention (LLM builders) */              \
    X(ROPE, "rope")           /* rotary position embedding (LLM builders) */

typedef enum rf_op_kind {
#define RF__OPK_ENUM(name, text) RF_OP_##name,
    RF_OP_KIND_LIST(RF__OPK_ENUM)
#undef RF__OPK_ENUM
        RF_OP_KIND_COUNT
} rf_op_kind;

/** Name of a kind ("conv"); static. */
RF_API const char *rf_op_kind_name(rf_op_kind k);

/** Kind of an ONNX-style op type ("Conv", "MatMul", "Relu", ...); RF_OP_UNKNOWN when not known.
 *  Readers of other formats may use it too or set the kind directly. */
RF_API rf_op_kind rf_op_kind_from_type(const char *op_type);
/** The kind of `op_type` in ONNX domain `domain` ("" or "ai.onnx": the standard ops;
 *  "com.microsoft": ONNX Runtime's contrib ops roofline has rules for; any other: unknown). */
RF_API rf_op_kind rf_op_kind_in_domain(const char *op_type, const char *domain);

/** One op of the registry (every op type roofline knows: its cost rule and executor kernel). */
typedef struct rf_op_info {
    const char *name;   /**< ONNX op type ("Conv") */
    const char *domain; /**< "" (ONNX), "com.microsoft", or "roofline" (its own builders) */
    rf_op_kind kind;
    const char *cost_section; /**< the section of docs/cost-model.md that counts it */
    const char *executor;     /**< its kernel family in the executor; NULL when it has none */
    const char *no_kernel;    /**< why it has none (NULL when it has one) */
} rf_op_info;

/** How many ops the registry holds; rf_op_registry_at(i) for i below it fills *out (1), else 0.
 *  Sorted by name; static data. */
RF_API size_t rf_op_registry_count(void);
RF_API int rf_op_registry_at(size_t i, rf_op_info *out);

/** A layer (an operator instance). */
typedef struct rf_layer {
    const char *name;    /**< never NULL; owned by the graph */
    const char *op_type; /**< as in the source (ONNX op_type, e.g. "Conv"); never NULL */
    const char *domain;  /**< ONNX domain ("" default); never NULL */
    rf_op_kind kind;
    uint32_t *inputs; /**< tensor indices; RF_GRAPH_NO_TENSOR for an omitted input */
    uint32_t n_inputs;
    uint32_t *outputs;
    uint32_t n_outputs;
    rf_attr *attrs;
    uint32_t n_attrs;
    uint32_t cap_attrs_; /**< private */
    uint64_t repeat;     /**< the layer stands for `repeat` identical instances (>= 1), e.g.
                              one decoder block x N; costs are multiplied by it */
} rf_layer;

/** One metadata key/value (strings, owned by the graph). */
typedef struct rf_kv {
    const char *key;
    const char *value;
} rf_kv;

typedef struct rf__arena rf__arena;           /* private */
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
RF_API rf_status rf_graph_new(rf_ctx *ctx, const char *format, rf_graph **out);

/** Release a graph and everything it owns. Accepts NULL. */
RF_API void rf_graph_free(rf_graph *g);

/** Copy bytes into the graph's arena (NUL-terminated). NULL when out of memory (error set). */
RF_API char *rf_graph_strdup(rf_ctx *ctx, rf_graph *g, const char *s, size_t len);

/** Arena allocation of `size` bytes, 8-byte aligned, zeroed; freed with the graph. */
RF_API void *rf_graph_alloc(rf_ctx *ctx, rf_graph *g, size_t size);

/** Set name / architecture (copied). */
RF_API rf_status rf_graph_set_name(rf_ctx *ctx, rf_graph *g, const char *name);
RF_API rf_status rf_graph_set_architecture(rf_ctx *ctx, rf_graph *g, const char *arch);

/** Append a metadata key/value (both copied). */
RF_API rf_status rf_graph_add_meta(rf_ctx *ctx, rf_graph *g, const char *key, const char *value);

/** Put the layers in topological order (each after the writers of its inputs), keeping the
 *  present order where it already is one; tensors' producers follow. *moved (may be NULL) gets
 *  the number of layers that changed place. A cycle is RF_FORMAT, naming a node on it. */
RF_API rf_status rf_graph_sort_layers(rf_ctx *ctx, rf_graph *g, uint32_t *moved);

/** Add a tensor named `name` (copied; "" allowed and never indexed). rank <= RF_GRAPH_MAX_RANK;
 *  dims may be NULL when rank is 0 or the shape is unknown (rank = UINT32_MAX means unknown rank).
 *  A non-empty name already present is RF_FORMAT ("duplicate tensor"). *index receives the new
 *  index (may be NULL). Weight tensors with a known shape are added to params and weight_bytes. */
RF_API rf_status rf_graph_add_tensor(rf_ctx *ctx, rf_graph *g, const char *name, rf_dtype dtype,
                                     uint32_t rank, const int64_t *dims, uint32_t flags,
                                     uint32_t *index);

/** Index of the tensor named `name`, or RF_GRAPH_NO_TENSOR. */
RF_API uint32_t rf_graph_find_tensor(const rf_graph *g, const char *name);

/** Set a tensor's shape (after creation, e.g. by shape inference); dims copied. */
RF_API rf_status rf_graph_set_shape(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t rank,
                                    const int64_t *dims);

/** Set a tensor's element type. */
RF_API rf_status rf_graph_set_dtype(rf_ctx *ctx, rf_graph *g, uint32_t tensor, rf_dtype dtype);

/** Add RF_TENSOR_* flags to a tensor. Marking a weight RF_TENSOR_BUFFER takes its elements out of
 *  g->params (its bytes stay in g->weight_bytes). */
RF_API rf_status rf_graph_add_flags(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t flags);

/** Record the symbol of unknown dim `axis` of a tensor (copied). */
RF_API rf_status rf_graph_set_dim_name(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t axis,
                                       const char *symbol);

/** Record known integer contents of a tensor (at most RF_GRAPH_MAX_VALUES; longer is ignored). */
RF_API rf_status rf_graph_set_values(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const int64_t *v,
                                     uint32_t n);

/** Record known floating-point contents of a tensor (at most RF_GRAPH_MAX_VALUES). */
RF_API rf_status rf_graph_set_fvalues(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const double *v,
                                      uint32_t n);

/** Add a layer. op_type and name copied; kind from rf_op_kind_from_type(op_type). The index
 *  arrays are copied; every index must be < n_tensors or RF_GRAPH_NO_TENSOR (inputs only).
 *  repeat starts at 1. The outputs' producer is set to this layer. *index may be NULL. */
RF_API rf_status rf_graph_add_layer(rf_ctx *ctx, rf_graph *g, const char *name, const char *op_type,
                                    const uint32_t *inputs, uint32_t n_inputs,
                                    const uint32_t *outputs, uint32_t n_outputs, uint32_t *index);

/** Attributes of layer `layer` (names and values copied). A later attribute of the same name
 *  shadows an earlier one for rf_layer_attr. */
RF_API rf_status rf_graph_set_attr_int(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                       int64_t v);
RF_API rf_status rf_graph_set_attr_float(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                         double v);
RF_API rf_status rf_graph_set_attr_string(rf_ctx *ctx, rf_graph *g, uint32_t layer,
                                          const char *name, const char *v, size_t len);
RF_API rf_status rf_graph_set_attr_ints(rf_ctx *ctx, rf_graph *g, uint32_t layer, const char *name,
                                        const int64_t *v, uint32_t n);
RF_API rf_status rf_graph_set_attr_floats(rf_ctx *ctx, rf_graph *g, uint32_t layer,
                                          const char *name, const double *v, uint32_t n);

/** The last attribute of layer `l` named `name`, or NULL. */
RF_API const rf_attr *rf_layer_attr(const rf_layer *l, const char *name);
/** Attribute as an int (INT) or `def` when absent or of another type. */
RF_API int64_t rf_layer_attr_int(const rf_layer *l, const char *name, int64_t def);

/** Elements of a tensor (product of dims). 1 and *out, or 0 when a dim is unknown or the product
 *  overflows. Bytes likewise, through rf_dtype_bytes. */
RF_API int rf_tensor_elems(const rf_tensor *t, uint64_t *out);
RF_API int rf_tensor_bytes(const rf_tensor *t, uint64_t *out);

/** Write a tensor's shape as "1x3x224x224" ("?" for unknown dims, the symbol when known, "scalar"
 *  for rank 0, "?" for unknown rank) into buf[size]; always terminated. Returns buf. */
RF_API const char *rf_tensor_shape_str(const rf_tensor *t, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
