/* roofline/dtype.h — element types of tensors (rf_dtype): plain, sub-byte and every ggml quantized
 * type at its true block size, with their names and their GGUF and ONNX ids. Block sizes:
 * docs/formats.md §5a (ggml-common.h). Pure tables; no I/O. */
#ifndef ROOFLINE_DTYPE_H
#define ROOFLINE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

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
RF_API const char *rf_dtype_name(rf_dtype t);

/** Look up a name, case-insensitive ("q4_k", "F16"; SafeTensors spellings "F8_E4M3", "F4").
 *  Returns 1 and *out, or 0 when unknown. */
RF_API int rf_dtype_from_name(const char *name, rf_dtype *out);

/** Map a ggml type id (GGUF tensor info) or an ONNX TensorProto.DataType id. 1 and *out, or 0
 *  for unknown or removed ids (the caller reports the id). */
RF_API int rf_dtype_from_ggml(uint32_t id, rf_dtype *out);
RF_API int rf_dtype_from_onnx(int32_t id, rf_dtype *out);

/** Elements per block and bytes per block (block of 1 for plain types; bytes 0 for STRING and
 *  UNKNOWN). */
RF_API uint32_t rf_dtype_block_elems(rf_dtype t);
RF_API uint32_t rf_dtype_block_bytes(rf_dtype t);

/** Storage bytes of `n_elems` elements: n / block · bytes per block, rounded up to a whole block
 *  (readers that must insist on whole blocks check n % block themselves). Returns 1 and *out, or
 *  0 on overflow or for a type without a fixed size. */
RF_API int rf_dtype_bytes(rf_dtype t, uint64_t n_elems, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
