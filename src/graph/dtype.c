/* dtype.c — element types: names, block sizes, the ggml and ONNX id maps, checked byte sizes.
 * The table is RF_DTYPE_LIST in roofline/graph.h (block sizes from ggml-common.h via
 * docs/formats.md §5a; ONNX ids from onnx.in.proto TensorProto.DataType). Pure lookups; no I/O. */
#include "core/rf_int.h"
#include "roofline/graph.h"

typedef struct rf__dtype_info {
    const char *name;
    uint32_t block_elems, block_bytes;
    int ggml, onnx;
} rf__dtype_info;

static const rf__dtype_info rf__dtypes[RF_DTYPE_COUNT] = {
#define RF__DTYPE_ROW(nm, text, blk, bytes, ggml, onnx) {text, blk, bytes, ggml, onnx},
    RF_DTYPE_LIST(RF__DTYPE_ROW)
#undef RF__DTYPE_ROW
};

const char *rf_dtype_name(rf_dtype t)
{
    return (unsigned)t < RF_DTYPE_COUNT ? rf__dtypes[t].name : "unknown";
}

int rf_dtype_from_name(const char *name, rf_dtype *out)
{
    static const struct {
        const char *alias;
        rf_dtype t;
    } aliases[] = {
        {"FLOAT", RF_DTYPE_F32},  {"FLOAT16", RF_DTYPE_F16},       {"BFLOAT16", RF_DTYPE_BF16},
        {"DOUBLE", RF_DTYPE_F64}, {"F8_E4M3FN", RF_DTYPE_F8_E4M3}, {"F4_E2M1", RF_DTYPE_F4_E2M1},
        {"INT8", RF_DTYPE_I8},    {"UINT8", RF_DTYPE_U8},          {"INT32", RF_DTYPE_I32},
        {"INT64", RF_DTYPE_I64},
    };
    if (!name) return 0;
    for (int t = 1; t < RF_DTYPE_COUNT; t++) {
        if (rf__strcasecmp(name, rf__dtypes[t].name) == 0) {
            *out = (rf_dtype)t;
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++) {
        if (rf__strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].t;
            return 1;
        }
    }
    return 0;
}

int rf_dtype_from_ggml(uint32_t id, rf_dtype *out)
{
    for (int t = 1; t < RF_DTYPE_COUNT; t++) {
        if (rf__dtypes[t].ggml >= 0 && (uint32_t)rf__dtypes[t].ggml == id) {
            *out = (rf_dtype)t;
            return 1;
        }
    }
    return 0;
}

int rf_dtype_from_onnx(int32_t id, rf_dtype *out)
{
    for (int t = 1; t < RF_DTYPE_COUNT; t++) {
        if (rf__dtypes[t].onnx > 0 && rf__dtypes[t].onnx == id) {
            *out = (rf_dtype)t;
            return 1;
        }
    }
    return 0;
}

uint32_t rf_dtype_block_elems(rf_dtype t)
{
    return (unsigned)t < RF_DTYPE_COUNT ? rf__dtypes[t].block_elems : 1;
}

uint32_t rf_dtype_block_bytes(rf_dtype t)
{
    return (unsigned)t < RF_DTYPE_COUNT ? rf__dtypes[t].block_bytes : 0;
}

int rf_dtype_bytes(rf_dtype t, uint64_t n_elems, uint64_t *out)
{
    uint32_t blk = rf_dtype_block_elems(t), bb = rf_dtype_block_bytes(t);
    if (bb == 0 || blk == 0) return 0;
    uint64_t blocks = n_elems / blk + (n_elems % blk != 0);
    return rf__mul_ok(blocks, bb, out);
}
