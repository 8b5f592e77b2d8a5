/* onnx_int.h — internals of the ONNX reader: the protobuf wire walker (onnx_wire.c), the
 * hand-decoded initializer metadata (no raw_data copy), the protobuf-c allocator that goes
 * through the context with a cap, and external-data path checks. Never installed. */
#ifndef RF_ONNX_INT_H
#define RF_ONNX_INT_H

#include <protobuf-c/protobuf-c.h>

#include "formats/formats_int.h"
#include "roofline/graph.h"

/* ---- protobuf wire (formats.md §5c) ---- */
enum { RF__PB_VARINT = 0, RF__PB_I64 = 1, RF__PB_LEN = 2, RF__PB_I32 = 5 };

/* Each returns 1, or 0 with *why set (static) when the input is malformed; cursor moves past. */
int rf__pb_varint(rf__cursor *c, uint64_t *v, const char **why);
int rf__pb_tag(rf__cursor *c, uint32_t *field, int *wire, const char **why);
int rf__pb_skip(rf__cursor *c, int wire, const char **why);
int rf__pb_bytes(rf__cursor *c, const uint8_t **p, size_t *n, const char **why);

/* ---- initializer metadata, decoded by hand ---- */
typedef struct rf__onnx_tensor {
    const uint8_t *name;
    size_t name_len;
    int32_t data_type;
    uint32_t rank;
    int64_t dims[RF_GRAPH_MAX_RANK];
    const uint8_t *raw; /* raw_data in the input, or NULL */
    size_t raw_len;
    const uint8_t *i64; /* packed int64_data, or NULL */
    size_t i64_len;
    int external;            /* data_location = EXTERNAL or external_data present */
    const uint8_t *location; /* external_data "location" value */
    size_t location_len;
    uint64_t ext_offset, ext_length; /* external_data "offset" / "length" (0: absent) */
    int has_length;
    const char *ext_bad;        /* "offset" / "length" when its value is not a decimal number */
    const uint8_t *ext_bad_val; /* that value (not NUL-terminated) */
    size_t ext_bad_len;
} rf__onnx_tensor;

/* Decode TensorProto bytes p[0..n) at input offset `off` (for messages). On error sets the
 * context's error naming `what` and returns the status. */
rf_status rf__onnx_tensor_decode(rf_ctx *ctx, const uint8_t *base, const uint8_t *p, size_t n,
                                 const char *what, rf__onnx_tensor *t);

/* Check an external-data location: not empty, not absolute, no ".." component, no NUL, and when
 * base_dir is given and the file exists, its real path stays inside base_dir's. Never opens it. */
rf_status rf__onnx_check_location(rf_ctx *ctx, const uint8_t *loc, size_t n, const char *base_dir,
                                  const char *what);

/* Where an initializer's external data stands: 0 present and inside its file, 1 the file is
 * missing (or not a regular file), 2 offset + length pass the file's end. Never opens it. */
int rf__onnx_external_state(const rf__onnx_tensor *t, const char *base_dir);

/* ---- the protobuf-c allocator through the context, with a cap on live bytes ---- */
typedef struct rf__pb_alloc {
    ProtobufCAllocator pb;
    rf_ctx *ctx;
    size_t live, cap;
    int capped; /* an allocation failed because of the cap */
} rf__pb_alloc;

void rf__pb_alloc_init(rf__pb_alloc *a, rf_ctx *ctx, size_t cap);

/* ---- the reader's state (onnx.c, onnx_node.c) ---- */
typedef struct rf__onnx {
    rf_ctx *ctx;
    rf_graph *g;
    const uint8_t *base;
    size_t size;
    const char *base_dir;
    rf__pb_alloc pa;
    char what[320];     /* the item being read, for messages */
    size_t opsets;      /* opset_import entries */
    int depth;          /* subgraphs being inlined (If / Loop / Scan) */
    uint32_t if_groups; /* If nodes whose condition is unknown: both branches inlined */
    const void *scope;  /* the rf__scope of the subgraph being inlined (onnx_node.c); NULL: none */
    /* external data that cannot be read: counts, the first tensor and file of each kind */
    size_t ext_missing, ext_outside;
    char ext_missing_first[160], ext_missing_file[160], ext_outside_first[160];
} rf__onnx;

rf_status rf__onnx_unpack_fail(rf__onnx *o, const uint8_t *p);
void rf__onnx_cap_for(rf__onnx *o, size_t n);
void rf__onnx_what(rf__onnx *o, const char *fmt, const char *s, size_t i);
rf_status rf__onnx_dtype(rf__onnx *o, int32_t id, rf_dtype *dt);
rf_status rf__onnx_values_raw(rf__onnx *o, uint32_t ti, rf_dtype dt, const uint8_t *raw,
                              size_t raw_len);
rf_status rf__onnx_values_packed(rf__onnx *o, uint32_t ti, const uint8_t *p, size_t n);
/* One NodeProto (bytes p[0..n), the idx-th node) into a layer. */
rf_status rf__onnx_node(rf__onnx *o, const uint8_t *p, size_t n, size_t idx);

#endif
