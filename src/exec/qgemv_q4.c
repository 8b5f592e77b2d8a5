/* qgemv_q4.c — decode's packed form of Q4_0 and Q4_1 (qgemm.h, "nibble form"; issue 28: Q4_0/Q4_1
 * decode at llama.cpp's speed): the file's 18- or 20-byte blocks straddle cache lines and keep
 * each row's scales between its quants, so a row-at-a-time kernel pays per block for scalar
 * scale loads. Here a group of 16 rows is one sequential stream of whole 64-byte lines, a pair of
 * 32-weight blocks at a time: the nibbles of block 2p (256 bytes: four slices, slice t holding
 * bytes 4t .. 4t + 3 of each row's 16, so its low nibbles are values 4t .. 4t + 3 and its high
 * nibbles 16 + 4t .. 19 + 4t, the file's bytes moved, never split), those of block 2p + 1, then
 * the 16 F16 d of each block (Q4_1: then the 16 F16 m of each): 576 bytes (Q4_0) or 640 (Q4_1) a
 * pair, exactly the file's bytes. Prefill keeps its own u8 form (qgemm.c); the pass holds one
 * of the two per matrix at a time (llm_exec_pass.c). Also the portable kernel on this form. A
 * leaf under qgemv.c (decode's driver): it calls only the format helpers and its AVX-512 file. */
#include <string.h>

#include "exec/qgemm.h"

/* Bytes of a pair of blocks of a group: 16 rows x 2 x 16 nibble bytes, then the F16 scales. */
static size_t rf__nib_pair_bytes(int id)
{
    return id == RF__WEIGHT_Q4_1 ? 640 : 576;
}

int rf__qgemv_nib(int id)
{
    return id == RF__WEIGHT_Q4_0 || id == RF__WEIGHT_Q4_1 ? id : 0;
}

size_t rf__qgemv_nib_bytes(int id, uint64_t N, uint64_t K)
{
    uint64_t groups = (N + RF__QGEMM_ROWS - 1) / RF__QGEMM_ROWS, pairs = (K / 32 + 1) / 2;
    return rf__qgemv_nib(id) ? (size_t)(groups * pairs) * rf__nib_pair_bytes(id) : 0;
}

static uint16_t rf__u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

void rf__qgemv_nib_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K,
                        uint8_t *data, rf__qgemm_w *out)
{
    const size_t bb = id == RF__WEIGHT_Q4_1 ? 20 : 18, qo = bb - 16; /* the nibbles' offset */
    const uint64_t nb = K / 32;
    memset(out, 0, sizeof *out);
    out->blk = 32;
    out->nib = id;
    out->N = N;
    out->K = K;
    out->groups = (N + RF__QGEMM_ROWS - 1) / RF__QGEMM_ROWS;
    out->group_bytes = (size_t)((nb + 1) / 2) * rf__nib_pair_bytes(id);
    out->data = data;
    if (nb % 2) /* the unused half of each group's last pair: zero quants and scales */
        for (uint64_t g = 0; g < out->groups; g++) {
            uint8_t *p =
                data + (size_t)g * out->group_bytes + (size_t)(nb / 2) * rf__nib_pair_bytes(id);
            memset(p + 256, 0, 256);
            memset(p + 512 + 32, 0, 32);
            if (id == RF__WEIGHT_Q4_1) memset(p + 512 + 96, 0, 32);
        }
    for (uint64_t g = 0; g < out->groups; g++)
        for (uint64_t j = 0; j < nb; j++) {
            uint8_t *o = (uint8_t *)(uintptr_t)rf__qgemv_nib_quants(out, g, j);
            uint8_t *d = (uint8_t *)(uintptr_t)rf__qgemv_nib_d(out, g, j);
            for (unsigned r = 0; r < RF__QGEMM_ROWS; r++) {
                uint64_t row = g * RF__QGEMM_ROWS + r;
                const uint8_t *p = (const uint8_t *)w + row * row_bytes + bb * j;
                for (int t = 0; t < 4; t++) {
                    if (row < N)
                        memcpy(o + 64 * t + 4 * r, p + qo + 4 * t, 4);
                    else
                        memset(o + 64 * t + 4 * r, 0, 4);
                }
                if (row < N) {
                    memcpy(d + 2 * r, p, 2);
                    if (id == RF__WEIGHT_Q4_1) memcpy(d + 64 + 2 * r, p + 2, 2);
                } else {
                    memset(d + 2 * r, 0, 2);
                    if (id == RF__WEIGHT_Q4_1) memset(d + 64 + 2 * r, 0, 2);
                }
            }
        }
}

void rf__qgemv_nib_kernel_ref(const rf__qgemm_w *w, uint64_t g, const void *act, unsigned nr,
                              float *y)
{
    const rf__block_q8_32 *a = act;
    const uint64_t nb = w->K / 32;
    const int q41 = w->nib == RF__WEIGHT_Q4_1;
    for (unsigned r = 0; r < nr; r++) {
        float acc = 0;
        for (uint64_t j = 0; j < nb; j++) {
            const uint8_t *o = rf__qgemv_nib_quants(w, g, j), *dp = rf__qgemv_nib_d(w, g, j);
            int32_t dot = 0;
            for (int t = 0; t < 4; t++)
                for (int i = 0; i < 4; i++) {
                    uint8_t b = o[64 * t + 4 * r + i];
                    dot += (int32_t)(b & 0xf) * a[j].qs[4 * t + i] +
                           (int32_t)(b >> 4) * a[j].qs[16 + 4 * t + i];
                }
            float d = rf__f16_to_f32(rf__u16(dp + 2 * r));
            if (q41) /* w = d q + m: m . dx . sum xq */
                acc += d * a[j].d * (float)dot +
                       rf__f16_to_f32(rf__u16(dp + 64 + 2 * r)) * a[j].d * (float)a[j].sum;
            else /* w = d (q - 8) */
                acc += d * a[j].d * (float)(dot - 8 * a[j].sum);
        }
        y[r] = acc;
    }
}

rf__qgemv_kernel_fn rf__qgemv_nib_kernel(int isa)
{
    rf__qgemv_kernel_fn f = isa >= RF__KERNEL_AVX512 ? rf__qgemv_nib_kernel_avx512() : NULL;
    return f ? f : rf__qgemv_nib_kernel_ref;
}
