/* qkernels_q23.c — the portable reference of the decode kernels for Q2_K and Q3_K weights (issue
 * 28: every GGUF type read runs its own kernel): the dequantisers (ggml's block_q2_K and
 * block_q3_K, reference/formats.md; the layout is described at rf__block_q2_k and rf__block_q3_k
 * in qkernels.h) and the dot products against Q8_K activations, integer sums per 16-weight
 * sub-block times its integer scale, then the float scales once per super-block, as qkernels.c
 * does for Q4_K and Q6_K. The vector versions are in qkernels_x86_q23.c. Checked against bytes
 * ggml itself dequantised by tests/unit/test_qkernels_q23.c. */
#include <string.h>

#include "exec/qkernels.h"

/* The 2-bit part of weight v (0..255) of a block: 32 bytes per 128 weights, each byte holding
 * weights l, l + 32, l + 64 and l + 96 of its 128 in bit pairs 0-1, 2-3, 4-5, 6-7. */
static int rf__q2_bits(const uint8_t *qs, int v)
{
    return (qs[32 * (v / 128) + v % 32] >> (2 * (v % 128 / 32))) & 3;
}

/* Q3_K's third bit of weight v: bit v / 32 of hmask[v % 32]. */
static int rf__q3_high(const uint8_t *hmask, int v)
{
    return (hmask[v % 32] >> (v / 32)) & 1;
}

int rf__q3_k_scale(const uint8_t *p, int s)
{
    /* low nibbles: bytes 0..7 (scales 0..7), their high nibbles (8..15); the top two bits of
     * scale s in bits 2 (s / 4) .. 2 (s / 4) + 1 of byte 8 + s % 4 */
    int lo = s < 8 ? p[s] & 0xf : p[s - 8] >> 4, hi = (p[8 + s % 4] >> (2 * (s / 4))) & 3;
    return (lo | hi << 4) - 32;
}

void rf__q3_k_scales(const uint8_t *p, int8_t sc[16])
{
    for (int s = 0; s < 16; s++) sc[s] = (int8_t)rf__q3_k_scale(p, s);
}

void rf__dequant_row_q23(int id, const void *w, float *y, size_t k)
{
    for (size_t i = 0; id == RF__WEIGHT_Q2_K && i < k / RF__SUPER_BLOCK; i++, y += 256) {
        const rf__block_q2_k *b = (const rf__block_q2_k *)w + i;
        float d = rf__f16_to_f32(b->d), dmin = rf__f16_to_f32(b->dmin);
        for (int s = 0; s < 16; s++) {
            float a = d * (float)(b->scales[s] & 0xf), m = dmin * (float)(b->scales[s] >> 4);
            for (int l = 16 * s; l < 16 * s + 16; l++) y[l] = a * (float)rf__q2_bits(b->qs, l) - m;
        }
    }
    for (size_t i = 0; id == RF__WEIGHT_Q3_K && i < k / RF__SUPER_BLOCK; i++, y += 256) {
        const rf__block_q3_k *b = (const rf__block_q3_k *)w + i;
        float d = rf__f16_to_f32(b->d);
        int8_t sc[16];
        rf__q3_k_scales(b->scales, sc);
        for (int s = 0; s < 16; s++) {
            float a = d * (float)sc[s];
            for (int l = 16 * s; l < 16 * s + 16; l++)
                y[l] = a * (float)(rf__q2_bits(b->qs, l) + 4 * rf__q3_high(b->hmask, l) - 4);
        }
    }
}

float rf__dot_q2_k_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q2_k *b = w;
    const rf__block_q8_k *a = act;
    float s = 0;
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        int32_t isum = 0, msum = 0; /* |isum| <= 16 . 15 . 16 . 3 . 127 < 2^21 */
        for (int g = 0; g < 16; g++) {
            int p = 0;
            for (int l = 16 * g; l < 16 * g + 16; l++) p += rf__q2_bits(b[i].qs, l) * a[i].qs[l];
            isum += (b[i].scales[g] & 0xf) * p;
            msum += (b[i].scales[g] >> 4) * a[i].bsums[g];
        }
        s += a[i].d *
             (rf__f16_to_f32(b[i].d) * (float)isum - rf__f16_to_f32(b[i].dmin) * (float)msum);
    }
    return s;
}

float rf__dot_q3_k_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q3_k *b = w;
    const rf__block_q8_k *a = act;
    float s = 0;
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        int8_t sc[16];
        rf__q3_k_scales(b[i].scales, sc);
        int32_t isum = 0; /* |isum| <= 16 . 32 . 16 . 7 . 127 < 2^23 */
        for (int g = 0; g < 16; g++) {
            int p = 0; /* q . x, then the offset of 4 off through the sum of x */
            for (int l = 16 * g; l < 16 * g + 16; l++)
                p += (rf__q2_bits(b[i].qs, l) | rf__q3_high(b[i].hmask, l) << 2) * a[i].qs[l];
            isum += sc[g] * (p - 4 * a[i].bsums[g]);
        }
        s += a[i].d * rf__f16_to_f32(b[i].d) * (float)isum;
    }
    return s;
}
