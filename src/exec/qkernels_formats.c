/* qkernels_formats.c — the formats the quantized kernels read, with no kernel in them: F16 and
 * BF16 conversions, Q4_K's packed 6-bit scales, the table of weight types with a kernel (dtype,
 * block size, the nearest type for one without a kernel) and the activation format each type's
 * dot product reads. A leaf: it calls no other file of the kernels or of the LLM pass, so the
 * reference (qkernels.c) and the vector kernels (qkernels_avx2.c, qkernels_avx512.c) share it
 * without calling each other. */
#include <math.h>
#include <string.h>

#include "exec/qkernels.h"

float rf__f16_to_f32(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0x1f) {
        bits = s | 0x7f800000u | (m << 13); /* inf, nan */
    } else if (e != 0) {
        bits = s | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        bits = s;
    } else { /* subnormal: normalise */
        e = 113;
        while (!(m & 0x400)) {
            m <<= 1;
            e--;
        }
        bits = s | (e << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

uint16_t rf__f32_to_f16(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    uint32_t s = (b >> 16) & 0x8000, e = (b >> 23) & 0xff, m = b & 0x7fffff;
    if (e == 0xff) return (uint16_t)(s | 0x7c00 | (m ? 0x200 : 0));
    int ex = (int)e - 127 + 15;
    if (ex >= 0x1f) return (uint16_t)(s | 0x7c00);
    if (ex <= 0) { /* subnormal or zero, round to nearest even */
        if (ex < -10) return (uint16_t)s;
        m |= 0x800000;
        unsigned shift = (unsigned)(14 - ex);
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(s | r);
    }
    uint32_t r = ((uint32_t)ex << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++; /* may carry into the exponent: fine */
    return (uint16_t)(s | r);
}

float rf__bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

/* Scale and min of sub-block j (0..7) of a Q4_K block: 6 bits each, packed in 12 bytes. */
void rf__q4_k_scale_min(const uint8_t *q, int j, int *sc, int *mn)
{
    if (j < 4) {
        *sc = q[j] & 63;
        *mn = q[j + 4] & 63;
    } else {
        *sc = (q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4);
        *mn = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

/* ---- activation formats -----------------------------------------------------------------------
 */

int rf__act_format(int id)
{
    switch (id) {
    case RF__WEIGHT_Q4_K:
    case RF__WEIGHT_Q5_K:
    case RF__WEIGHT_Q6_K:
    case RF__WEIGHT_Q2_K:
    case RF__WEIGHT_Q3_K: return RF__ACT_Q8_K;
    case RF__WEIGHT_Q8_0:
    case RF__WEIGHT_Q4_0:
    case RF__WEIGHT_Q4_1:
    case RF__WEIGHT_Q5_0:
    case RF__WEIGHT_Q5_1: return RF__ACT_Q8_32;
    default: return RF__ACT_F32;
    }
}

size_t rf__act_bytes(int id, size_t k)
{
    switch (rf__act_format(id)) {
    case RF__ACT_Q8_K: return k / RF__SUPER_BLOCK * sizeof(rf__block_q8_k);
    case RF__ACT_Q8_32: return k / 32 * sizeof(rf__block_q8_32);
    default: return 0;
    }
}

/* ---- weight types and substitution --------------------------------------------------------- */

static const rf_dtype rf__weight_dtypes[RF__WEIGHT_TYPES] = {
    RF_DTYPE_F32,  RF_DTYPE_F16,  RF_DTYPE_BF16, RF_DTYPE_Q8_0, RF_DTYPE_Q4_0,
    RF_DTYPE_Q4_K, RF_DTYPE_Q6_K, RF_DTYPE_Q4_1, RF_DTYPE_Q5_0, RF_DTYPE_Q5_1,
    RF_DTYPE_Q5_K, RF_DTYPE_Q2_K, RF_DTYPE_Q3_K};
static const uint32_t rf__weight_block_elems[RF__WEIGHT_TYPES] = {1,  1,  1,  32,  32,  256, 256,
                                                                  32, 32, 32, 256, 256, 256};
static const uint32_t rf__weight_block_bytes[RF__WEIGHT_TYPES] = {4,  2,  2,  34,  18, 144, 210,
                                                                  20, 22, 24, 176, 84, 110};

int rf__weight_type(rf_dtype t)
{
    for (int i = 0; i < RF__WEIGHT_TYPES; i++)
        if (rf__weight_dtypes[i] == t) return i;
    return -1;
}

rf_dtype rf__weight_dtype(int id)
{
    return id >= 0 && id < RF__WEIGHT_TYPES ? rf__weight_dtypes[id] : RF_DTYPE_UNKNOWN;
}

void rf__weight_block(int id, uint32_t *elems, uint32_t *bytes)
{
    *elems = rf__weight_block_elems[id];
    *bytes = rf__weight_block_bytes[id];
}

/* Bits per weight of a dtype from the dtype table (graph.h); 0 when unknown. */
static double rf__bits_per_weight(rf_dtype t)
{
    static const struct {
        uint32_t e, b;
    } tab[] = {
#define RF__BITS_PER_WEIGHT(name, text, blk, bytes, ggml, onnx) {blk, bytes},
        RF_DTYPE_LIST(RF__BITS_PER_WEIGHT)
#undef RF__BITS_PER_WEIGHT
    };
    return (unsigned)t < RF_DTYPE_COUNT ? 8.0 * tab[t].b / tab[t].e : 0;
}

int rf__weight_type_nearest(rf_dtype t, uint64_t k)
{
    double bpw = rf__bits_per_weight(t), best_d = INFINITY;
    int best = RF__WEIGHT_F32;
    /* ties go to the earlier entry of this order: F16 before BF16, K-quants before Q4_0 */
    static const int order[RF__WEIGHT_TYPES] = {
        RF__WEIGHT_F32,  RF__WEIGHT_F16,  RF__WEIGHT_BF16, RF__WEIGHT_Q8_0, RF__WEIGHT_Q4_K,
        RF__WEIGHT_Q5_K, RF__WEIGHT_Q4_0, RF__WEIGHT_Q4_1, RF__WEIGHT_Q5_0, RF__WEIGHT_Q5_1,
        RF__WEIGHT_Q6_K, RF__WEIGHT_Q2_K, RF__WEIGHT_Q3_K};
    for (int o = 0; o < RF__WEIGHT_TYPES; o++) {
        int i = order[o];
        if (k % rf__weight_block_elems[i]) continue;
        double d = fabs(log((bpw > 0 ? bpw : 32.0) /
                            (8.0 * rf__weight_block_bytes[i] / rf__weight_block_elems[i])));
        if (d < best_d - 1e-12) {
            best_d = d;
            best = i;
        }
    }
    return best;
}
