/* apr_dtype.c — APR dtype bytes and their sizes (reference/apr-format.md section 4): three
 * generations of numbering overlap (aprender before and after GH-438, realizar's GGML ids), so a
 * byte names up to two candidates and the stored size picks one; a size that matches none is an
 * error, never a guess. Also the CRC32 the header and footer use. Pure arithmetic: no I/O. */
#include <string.h>

#include "formats/apr_int.h"

typedef struct apr_dt {
    const char *name;
    rf_dtype dtype;      /* the graph's type */
    uint32_t blk, bytes; /* elements and bytes per block (APR_Q8: + 4 bytes per tensor) */
} apr_dt;

static const apr_dt apr_dts[RF_APR_DTYPE_COUNT] = {
    [RF_APR_F32] = {"F32", RF_DTYPE_F32, 1, 4},
    [RF_APR_F16] = {"F16", RF_DTYPE_F16, 1, 2},
    [RF_APR_BF16] = {"BF16", RF_DTYPE_BF16, 1, 2},
    [RF_APR_F64] = {"F64", RF_DTYPE_F64, 1, 8},
    [RF_APR_I32] = {"I32", RF_DTYPE_I32, 1, 4},
    [RF_APR_I64] = {"I64", RF_DTYPE_I64, 1, 8},
    [RF_APR_I8] = {"I8", RF_DTYPE_I8, 1, 1},
    [RF_APR_U8] = {"U8", RF_DTYPE_U8, 1, 1},
    [RF_APR_APR_Q4] = {"APR_Q4", RF_DTYPE_Q4_0, 32, 18},
    [RF_APR_APR_Q8] = {"APR_Q8", RF_DTYPE_I8, 1, 1},
    [RF_APR_Q4_0] = {"Q4_0", RF_DTYPE_Q4_0, 32, 18},
    [RF_APR_Q4_1] = {"Q4_1", RF_DTYPE_Q4_1, 32, 20},
    [RF_APR_Q5_0] = {"Q5_0", RF_DTYPE_Q5_0, 32, 22},
    [RF_APR_Q5_1] = {"Q5_1", RF_DTYPE_Q5_1, 32, 24},
    [RF_APR_Q8_0] = {"Q8_0", RF_DTYPE_Q8_0, 32, 34},
    [RF_APR_Q4_K] = {"Q4_K", RF_DTYPE_Q4_K, 256, 144},
    [RF_APR_Q5_K] = {"Q5_K", RF_DTYPE_Q5_K, 256, 176},
    [RF_APR_Q6_K] = {"Q6_K", RF_DTYPE_Q6_K, 256, 210},
};

/* Candidates per byte, preferred first (aprender's plain type before realizar's GGML block type:
 * they can only tie below 32 elements, where a GGML block type cannot be). -1 ends a list. */
typedef struct apr_byte {
    uint8_t byte;
    int8_t cand[2];
} apr_byte;

static const apr_byte apr_bytes[] = {
    {0, {RF_APR_F32, -1}},
    {1, {RF_APR_F16, -1}},
    {2, {RF_APR_BF16, RF_APR_Q4_0}},
    {3, {RF_APR_F64, RF_APR_Q4_1}},
    {4, {RF_APR_I32, -1}},
    {5, {RF_APR_I64, -1}},
    {6, {RF_APR_I8, RF_APR_Q5_0}},
    {7, {RF_APR_U8, RF_APR_Q5_1}},
    {8, {RF_APR_APR_Q4, RF_APR_Q8_0}},
    {9, {RF_APR_APR_Q8, -1}},
    {12, {RF_APR_Q4_K, -1}},
    {13, {RF_APR_Q5_K, -1}},
    {14, {RF_APR_Q6_K, -1}},
    {30, {RF_APR_BF16, -1}},
    {128, {RF_APR_APR_Q4, -1}},
    {129, {RF_APR_APR_Q8, -1}},
};

const char *rf_apr_dtype_name(rf_apr_dtype t)
{
    return (unsigned)t < RF_APR_DTYPE_COUNT ? apr_dts[t].name : "?";
}

rf_dtype rf__apr_rf_dtype(rf_apr_dtype t)
{
    return (unsigned)t < RF_APR_DTYPE_COUNT ? apr_dts[t].dtype : RF_DTYPE_UNKNOWN;
}

int rf__apr_dtype_from_name(const char *s, rf_apr_dtype *out)
{
    for (int i = 0; i < RF_APR_DTYPE_COUNT; i++)
        if (rf__strcasecmp(s, apr_dts[i].name) == 0) {
            *out = (rf_apr_dtype)i;
            return 1;
        }
    return 0;
}

int rf__apr_dtype_size(rf_apr_dtype t, uint64_t n, uint64_t *out)
{
    const apr_dt *d = &apr_dts[t];
    uint64_t blocks = n / d->blk + (n % d->blk != 0);
    if (!rf__mul_ok(blocks, d->bytes, out)) return 0;
    return t == RF_APR_APR_Q8 ? rf__add_ok(*out, 4, out) : 1;
}

/* Does `size` fit type t for this shape? K-quants: flat, or each row padded to whole blocks
 * (realizar's converter when the row length is not a multiple of 256). */
static int apr_fits(rf_apr_dtype t, const uint64_t *shape, uint32_t rank, uint64_t n, uint64_t size)
{
    uint64_t want;
    if (rf__apr_dtype_size(t, n, &want) && want == size) return 1;
    if (apr_dts[t].blk != 256 || rank < 2 || shape[rank - 1] == 0) return 0;
    uint64_t cols = shape[rank - 1], rows = n / cols, per_row;
    if (!rf__apr_dtype_size(t, cols, &per_row)) return 0;
    return rf__mul_ok(rows, per_row, &want) && want == size;
}

int rf__apr_dtype_pick(uint8_t b, const uint64_t *shape, uint32_t rank, uint64_t n, uint64_t size,
                       rf_apr_dtype *out, int *known)
{
    *known = 0;
    for (size_t i = 0; i < sizeof apr_bytes / sizeof *apr_bytes; i++) {
        if (apr_bytes[i].byte != b) continue;
        *known = 1;
        for (int k = 0; k < 2 && apr_bytes[i].cand[k] >= 0; k++)
            if (apr_fits((rf_apr_dtype)apr_bytes[i].cand[k], shape, rank, n, size)) {
                *out = (rf_apr_dtype)apr_bytes[i].cand[k];
                return 1;
            }
    }
    return 0;
}

uint32_t rf__apr_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t table[256]; /* built per call: 2 k operations, no static mutable data */
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c >> 1 ^ (0xEDB88320u & (0u - (c & 1u)));
        table[i] = c;
    }
    crc = ~crc;
    while (n--) crc = table[(crc ^ *p++) & 0xff] ^ crc >> 8;
    return ~crc;
}
