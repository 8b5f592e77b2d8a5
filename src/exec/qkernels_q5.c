/* qkernels_q5.c — the portable reference of the decode kernels for Q4_1, Q5_0, Q5_1 and Q5_K
 * weights (issue 28: every GGUF type read runs its own kernel, not the nearest one's): the
 * dequantisers (ggml's dequantize_row_* layouts, reference/formats.md 5a) and the dot products
 * against 8-bit activations (Q8_32 for the 32-weight types, Q8_K for Q5_K), integer sums per
 * block then the float scales, as qkernels.c does for the other types. The AVX2 versions are in
 * qkernels_avx2.c. Checked by tests/unit/test_qkernels.c like every type. */
#include <string.h>

#include "exec/qkernels.h"

static uint32_t rf__q5_bits(const uint8_t qh[4])
{
    return (uint32_t)qh[0] | (uint32_t)qh[1] << 8 | (uint32_t)qh[2] << 16 | (uint32_t)qh[3] << 24;
}

/* Weight j (0..31) of a 32-weight block as an unsigned integer: nibble j % 16 (low for j < 16)
 * plus, for the 5-bit types, bit j of qh times 16. */
static int rf__q5_value(const uint8_t *qs, uint32_t qh, int j)
{
    int q = j < 16 ? qs[j] & 0xf : qs[j - 16] >> 4;
    return q | (int)((qh >> j) & 1) << 4;
}

void rf__dequant_row_q5(int id, const void *w, float *y, size_t k)
{
    const uint8_t *p = w;
    for (size_t i = 0; id != RF__WEIGHT_Q5_K && i < k / 32; i++, y += 32) {
        if (id == RF__WEIGHT_Q4_1) {
            const rf__block_q4_1 *b = (const rf__block_q4_1 *)(p + sizeof *b * i);
            float d = rf__f16_to_f32(b->d), m = rf__f16_to_f32(b->m);
            for (int j = 0; j < 32; j++) y[j] = d * (float)rf__q5_value(b->qs, 0, j) + m;
        } else if (id == RF__WEIGHT_Q5_0) {
            const rf__block_q5_0 *b = (const rf__block_q5_0 *)(p + sizeof *b * i);
            float d = rf__f16_to_f32(b->d);
            uint32_t qh = rf__q5_bits(b->qh);
            for (int j = 0; j < 32; j++) y[j] = d * (float)(rf__q5_value(b->qs, qh, j) - 16);
        } else {
            const rf__block_q5_1 *b = (const rf__block_q5_1 *)(p + sizeof *b * i);
            float d = rf__f16_to_f32(b->d), m = rf__f16_to_f32(b->m);
            uint32_t qh = rf__q5_bits(b->qh);
            for (int j = 0; j < 32; j++) y[j] = d * (float)rf__q5_value(b->qs, qh, j) + m;
        }
    }
    for (size_t i = 0; id == RF__WEIGHT_Q5_K && i < k / RF__SUPER_BLOCK; i++) {
        const rf__block_q5_k *b = (const rf__block_q5_k *)(p + sizeof *b * i);
        float d = rf__f16_to_f32(b->d), dmin = rf__f16_to_f32(b->dmin);
        for (int j = 0; j < 8; j++, y += 32) { /* sub-block j: nibbles of chunk j / 2, bit j */
            int sc, mn;
            rf__q4_k_scale_min(b->scales, j, &sc, &mn);
            const uint8_t *q = b->qs + 32 * (j / 2);
            for (int l = 0; l < 32; l++) {
                int v = ((q[l] >> (4 * (j & 1))) & 0xf) | ((b->qh[l] >> j) & 1) << 4;
                y[l] = d * (float)sc * (float)v - dmin * (float)mn;
            }
        }
    }
}

float rf__dot_q4_1_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q4_1 *b = w;
    const rf__block_q8_32 *a = act;
    float s = 0;
    for (size_t i = 0; i < k / 32; i++) {
        int p = 0;
        for (int j = 0; j < 32; j++) p += rf__q5_value(b[i].qs, 0, j) * a[i].qs[j];
        s +=
            a[i].d * (rf__f16_to_f32(b[i].d) * (float)p + rf__f16_to_f32(b[i].m) * (float)a[i].sum);
    }
    return s;
}

float rf__dot_q5_0_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q5_0 *b = w;
    const rf__block_q8_32 *a = act;
    float s = 0;
    for (size_t i = 0; i < k / 32; i++) {
        int p = 0;
        uint32_t qh = rf__q5_bits(b[i].qh);
        for (int j = 0; j < 32; j++) p += rf__q5_value(b[i].qs, qh, j) * a[i].qs[j];
        s += a[i].d * rf__f16_to_f32(b[i].d) * (float)(p - 16 * a[i].sum);
    }
    return s;
}

float rf__dot_q5_1_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q5_1 *b = w;
    const rf__block_q8_32 *a = act;
    float s = 0;
    for (size_t i = 0; i < k / 32; i++) {
        int p = 0;
        uint32_t qh = rf__q5_bits(b[i].qh);
        for (int j = 0; j < 32; j++) p += rf__q5_value(b[i].qs, qh, j) * a[i].qs[j];
        s +=
            a[i].d * (rf__f16_to_f32(b[i].d) * (float)p + rf__f16_to_f32(b[i].m) * (float)a[i].sum);
    }
    return s;
}

float rf__dot_q5_k_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q5_k *b = w;
    const rf__block_q8_k *a = act;
    float s = 0;
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        int32_t isum = 0, msum = 0; /* |isum| <= 8 . 63 . 32 . 31 . 127 < 2^26 */
        for (int j = 0; j < 8; j++) {
            int sc, mn, p = 0, shift = 4 * (j & 1);
            rf__q4_k_scale_min(b[i].scales, j, &sc, &mn);
            const uint8_t *q = b[i].qs + 32 * (j / 2);
            const int8_t *y = a[i].qs + 32 * j;
            for (int l = 0; l < 32; l++)
                p += (((q[l] >> shift) & 0xf) | ((b[i].qh[l] >> j) & 1) << 4) * y[l];
            isum += sc * p;
            msum += mn * a[i].sums32[j];
        }
        s += a[i].d *
             (rf__f16_to_f32(b[i].d) * (float)isum - rf__f16_to_f32(b[i].dmin) * (float)msum);
    }
    return s;
}
