/* qgemm_types.c — the repack of Q4_1, Q5_0, Q5_1, Q5_K, Q2_K and Q3_K blocks for the prefill
 * products on quantised weights (qgemm.h; issue 28: prefill on every quantised type's own weights,
 * not dequantised to F32 and multiplied in float): each 32 values of a block as unsigned quants q
 * with one F32 scale a and offset b (each 16 for Q2_K and Q3_K, one scale per 16), w = a . q + b
 * exactly (ggml's layouts, reference/formats.md 5a; the same values rf__dequant_row gives).
 * qgemm.c's rf__qgemm_pack calls it for the types it does not repack itself. A leaf: it calls only
 * the format helpers (and Q3_K's scale unpacking, qkernels_q23.c). */
#include <string.h>

#include "exec/qgemm.h"

static uint16_t rf__u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* The 32 nibbles of a 32-value block (low nibbles then high), each plus 16 when bit j of qh (a
 * 32-bit little-endian word) is set; qh NULL for none. */
static void rf__nibbles_q5(const uint8_t *qs, const uint8_t *qh, uint8_t *q)
{
    uint32_t h =
        qh ? (uint32_t)qh[0] | (uint32_t)qh[1] << 8 | (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24
           : 0;
    for (int i = 0; i < 16; i++) {
        q[i] = (uint8_t)((qs[i] & 0xf) | ((h >> i) & 1) << 4);
        q[i + 16] = (uint8_t)((qs[i] >> 4) | ((h >> (i + 16)) & 1) << 4);
    }
}

int rf__qgemm_block_qab_q5(int id, const uint8_t *row, uint64_t j, uint8_t *q, float *a, float *b)
{
    switch (id) {
    case RF__WEIGHT_Q4_1: { /* w = d . q + m */
        const uint8_t *p = row + 20 * j;
        rf__nibbles_q5(p + 4, NULL, q);
        *a = rf__f16_to_f32(rf__u16le(p));
        *b = rf__f16_to_f32(rf__u16le(p + 2));
        return 1;
    }
    case RF__WEIGHT_Q5_0: { /* w = d . (q - 16) */
        const uint8_t *p = row + 22 * j;
        rf__nibbles_q5(p + 6, p + 2, q);
        *a = rf__f16_to_f32(rf__u16le(p));
        *b = -16.0f * *a;
        return 1;
    }
    case RF__WEIGHT_Q5_1: { /* w = d . q + m */
        const uint8_t *p = row + 24 * j;
        rf__nibbles_q5(p + 8, p + 4, q);
        *a = rf__f16_to_f32(rf__u16le(p));
        *b = rf__f16_to_f32(rf__u16le(p + 2));
        return 1;
    }
    case RF__WEIGHT_Q5_K: { /* sub-block j % 8 of super-block j / 8: w = d sc q - dmin mn */
        const uint8_t *p = row + 176 * (j / 8);
        int sb = (int)(j % 8), sc, mn, shift = 4 * (sb & 1);
        rf__q4_k_scale_min(p + 4, sb, &sc, &mn);
        const uint8_t *qh = p + 16, *qs = p + 48 + 32 * (sb / 2);
        for (int l = 0; l < 32; l++)
            q[l] = (uint8_t)(((qs[l] >> shift) & 0xf) | ((qh[l] >> sb) & 1) << 4);
        *a = rf__f16_to_f32(rf__u16le(p)) * (float)sc;
        *b = -rf__f16_to_f32(rf__u16le(p + 2)) * (float)mn;
        return 1;
    }
    case RF__WEIGHT_Q2_K: { /* 16 values: sub-block j % 16 of super-block j / 16 */
        const uint8_t *p = row + 84 * (j / 16), *qs = p + 16;
        int s = (int)(j % 16), sc = p[s];
        for (int l = 16 * s; l < 16 * s + 16; l++)
            q[l - 16 * s] = (uint8_t)((qs[32 * (l / 128) + l % 32] >> (2 * (l % 128 / 32))) & 3);
        *a = rf__f16_to_f32(rf__u16le(p + 80)) * (float)(sc & 0xf);
        *b = -rf__f16_to_f32(rf__u16le(p + 82)) * (float)(sc >> 4);
        return 1;
    }
    case RF__WEIGHT_Q3_K: { /* w = d sc (q - 4), q = 0..7, the scale signed */
        const uint8_t *p = row + 110 * (j / 16), *hm = p, *qs = p + 32;
        int s = (int)(j % 16);
        for (int l = 16 * s; l < 16 * s + 16; l++)
            q[l - 16 * s] = (uint8_t)(((qs[32 * (l / 128) + l % 32] >> (2 * (l % 128 / 32))) & 3) |
                                      ((hm[l % 32] >> (l / 32)) & 1) << 2);
        *a = rf__f16_to_f32(rf__u16le(p + 108)) * (float)rf__q3_k_scale(p + 96, s);
        *b = -4.0f * *a;
        return 1;
    }
    default: return 0;
    }
}
