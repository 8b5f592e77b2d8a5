/* qkernels.c — the portable reference of the quantized matrix kernels and the choice among them:
 * the dequantisation of every kernel type (GGML block layouts: F32, F16, BF16, Q8_0, Q4_0, Q4_K,
 * Q6_K), the activations rounded to 8 bits (Q8_K, Q8_32), one dot product per type (integer sums
 * against the 8-bit activations for the quantized types, the scales once per block), the F32
 * helpers of the LLM pass, and the instruction-set level: each entry point runs the AVX2 or
 * AVX-512 version (qkernels_avx2.c, qkernels_avx512.c) when the level allows, else the reference.
 * The formats (conversions, type table) are in qkernels_formats.c. Never allocates, never times. */
#include <math.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

#include "exec/qkernels.h"
#include "probe/probe_int.h"

static uint16_t rf__load_u16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* ---- dequantisation of one block ------------------------------------------------------------ */

static void rf__dequant_block_q8_0(const rf__block_q8_0 *b, float *y)
{
    float d = rf__f16_to_f32(b->d);
    for (int l = 0; l < 32; l++) y[l] = d * (float)b->qs[l];
}

static void rf__dequant_block_q4_0(const rf__block_q4_0 *b, float *y)
{
    float d = rf__f16_to_f32(b->d);
    for (int l = 0; l < 16; l++) {
        y[l] = d * (float)((b->qs[l] & 0xf) - 8);
        y[l + 16] = d * (float)((b->qs[l] >> 4) - 8);
    }
}

static void rf__dequant_block_q4_k(const rf__block_q4_k *b, float *y)
{
    float d = rf__f16_to_f32(b->d), dmin = rf__f16_to_f32(b->dmin);
    const uint8_t *q = b->qs;
    for (int j = 0; j < 4; j++, q += 32, y += 64) {
        int s0, m0, s1, m1;
        rf__q4_k_scale_min(b->scales, 2 * j, &s0, &m0);
        rf__q4_k_scale_min(b->scales, 2 * j + 1, &s1, &m1);
        float d0 = d * (float)s0, n0 = dmin * (float)m0, d1 = d * (float)s1, n1 = dmin * (float)m1;
        for (int l = 0; l < 32; l++) {
            y[l] = d0 * (float)(q[l] & 0xf) - n0;
            y[l + 32] = d1 * (float)(q[l] >> 4) - n1;
        }
    }
}

static void rf__dequant_block_q6_k(const rf__block_q6_k *b, float *y)
{
    float d = rf__f16_to_f32(b->d);
    const uint8_t *ql = b->ql, *qh = b->qh;
    const int8_t *sc = b->scales;
    for (int n = 0; n < 2; n++, ql += 64, qh += 32, sc += 8, y += 128) {
        for (int l = 0; l < 32; l++) {
            int is = l / 16;
            int q1 = ((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
            int q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
            int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * (float)sc[is] * (float)q1;
            y[l + 32] = d * (float)sc[is + 2] * (float)q2;
            y[l + 64] = d * (float)sc[is + 4] * (float)q3;
            y[l + 96] = d * (float)sc[is + 6] * (float)q4;
        }
    }
}

void rf__dequant_row(int id, const void *w, float *y, size_t k)
{
    const uint8_t *p = w;
    switch (id) {
    case RF__WEIGHT_F32: memcpy(y, w, k * 4); break;
    case RF__WEIGHT_F16:
        for (size_t i = 0; i < k; i++) y[i] = rf__f16_to_f32(rf__load_u16(p + 2 * i));
        break;
    case RF__WEIGHT_BF16:
        for (size_t i = 0; i < k; i++) y[i] = rf__bf16_to_f32(rf__load_u16(p + 2 * i));
        break;
    case RF__WEIGHT_Q8_0:
        for (size_t i = 0; i < k / 32; i++)
            rf__dequant_block_q8_0((const rf__block_q8_0 *)(p + 34 * i), y + 32 * i);
        break;
    case RF__WEIGHT_Q4_0:
        for (size_t i = 0; i < k / 32; i++)
            rf__dequant_block_q4_0((const rf__block_q4_0 *)(p + 18 * i), y + 32 * i);
        break;
    case RF__WEIGHT_Q4_K:
        for (size_t i = 0; i < k / 256; i++)
            rf__dequant_block_q4_k((const rf__block_q4_k *)(p + 144 * i), y + 256 * i);
        break;
    case RF__WEIGHT_Q6_K:
        for (size_t i = 0; i < k / 256; i++)
            rf__dequant_block_q6_k((const rf__block_q6_k *)(p + 210 * i), y + 256 * i);
        break;
    case RF__WEIGHT_Q4_1:
    case RF__WEIGHT_Q5_0:
    case RF__WEIGHT_Q5_1:
    case RF__WEIGHT_Q5_K: rf__dequant_row_q5(id, w, y, k); break;
    case RF__WEIGHT_Q2_K:
    case RF__WEIGHT_Q3_K: rf__dequant_row_q23(id, w, y, k); break;
    default: memset(y, 0, k * 4);
    }
}

void rf__dequant_row_isa(int isa, int id, const void *w, float *y, size_t k)
{
    if (isa >= RF__KERNEL_AVX2 && rf__dequant_row_avx2(id, w, y, k)) return;
    rf__dequant_row(id, w, y, k);
}

/* ---- activations quantised to 8 bits --------------------------------------------------------- */

/* One block of n values: scale d = max |x| / 127, qs = round(x / d) (to nearest even, as the
 * vector conversions do) clamped to [-127, 127]; a zero block gets d = 0 and zeros. */
static float rf__quantize_block_q8(const float *x, int n, int8_t *qs)
{
    float amax = 0;
    for (int i = 0; i < n; i++) amax = fabsf(x[i]) > amax ? fabsf(x[i]) : amax;
    float is = amax > 0 ? 127.0f / amax : 0.0f;
    for (int i = 0; i < n; i++) {
        long v = lrintf(x[i] * is);
        qs[i] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
    }
    return amax > 0 ? amax / 127.0f : 0.0f;
}

void rf__quantize_q8_k(const float *x, size_t k, rf__block_q8_k *y)
{
    for (size_t b = 0; b < k / RF__SUPER_BLOCK; b++, x += RF__SUPER_BLOCK, y++) {
        y->d = rf__quantize_block_q8(x, RF__SUPER_BLOCK, y->qs);
        memset(y->pad, 0, sizeof y->pad);
        for (int g = 0; g < 16; g++) {
            int s = 0;
            for (int l = 0; l < 16; l++) s += y->qs[16 * g + l];
            y->bsums[g] = (int16_t)s;
        }
        for (int g = 0; g < 8; g++) y->sums32[g] = (int16_t)(y->bsums[2 * g] + y->bsums[2 * g + 1]);
    }
}

void rf__quantize_q8_32(const float *x, size_t k, rf__block_q8_32 *y)
{
    for (size_t b = 0; b < k / 32; b++, x += 32, y++) {
        y->d = rf__quantize_block_q8(x, 32, y->qs);
        int s = 0;
        for (int l = 0; l < 32; l++) s += y->qs[l];
        y->sum = s;
    }
}

const void *rf__act_quantize(int id, int isa, const float *x, size_t k, void *buf)
{
    switch (rf__act_format(id)) {
    case RF__ACT_Q8_K:
        if (!(isa >= RF__KERNEL_AVX2 && rf__quantize_q8_k_avx2(x, k, buf)))
            rf__quantize_q8_k(x, k, buf);
        return buf;
    case RF__ACT_Q8_32:
        if (!(isa >= RF__KERNEL_AVX2 && rf__quantize_q8_32_avx2(x, k, buf)))
            rf__quantize_q8_32(x, k, buf);
        return buf;
    default: return x;
    }
}

/* ---- reference dot products ---------------------------------------------------------------- */

static float rf__dot_f32_gen(const void *w, const void *act, size_t k)
{
    const float *a = w, *x = act;
    float s = 0;
    for (size_t i = 0; i < k; i++) s += a[i] * x[i];
    return s;
}
static float rf__dot_f16_gen(const void *w, const void *act, size_t k)
{
    const uint8_t *p = w;
    const float *x = act;
    float s = 0;
    for (size_t i = 0; i < k; i++) s += rf__f16_to_f32(rf__load_u16(p + 2 * i)) * x[i];
    return s;
}
static float rf__dot_bf16_gen(const void *w, const void *act, size_t k)
{
    const uint8_t *p = w;
    const float *x = act;
    float s = 0;
    for (size_t i = 0; i < k; i++) s += rf__bf16_to_f32(rf__load_u16(p + 2 * i)) * x[i];
    return s;
}

/* The quantized types against 8-bit activations: integer sums per block (or sub-block, times
 * its integer scale), then the float scales once per block. */
static float rf__dot_q8_0_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q8_0 *b = w;
    const rf__block_q8_32 *a = act;
    float s = 0;
    for (size_t i = 0; i < k / 32; i++) {
        int p = 0;
        for (int l = 0; l < 32; l++) p += b[i].qs[l] * a[i].qs[l];
        s += rf__f16_to_f32(b[i].d) * a[i].d * (float)p;
    }
    return s;
}

static float rf__dot_q4_0_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q4_0 *b = w;
    const rf__block_q8_32 *a = act;
    float s = 0;
    for (size_t i = 0; i < k / 32; i++) {
        int p = 0;
        for (int l = 0; l < 16; l++)
            p += ((b[i].qs[l] & 0xf) - 8) * a[i].qs[l] + ((b[i].qs[l] >> 4) - 8) * a[i].qs[l + 16];
        s += rf__f16_to_f32(b[i].d) * a[i].d * (float)p;
    }
    return s;
}

static float rf__dot_q4_k_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q4_k *b = w;
    const rf__block_q8_k *a = act;
    float s = 0;
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        int32_t isum = 0, msum = 0; /* |isum| <= 8 . 63 . 32 . 15 . 127 < 2^25 */
        for (int j = 0; j < 8; j++) {
            int sc, mn, p = 0, shift = 4 * (j & 1);
            rf__q4_k_scale_min(b[i].scales, j, &sc, &mn);
            const uint8_t *q = b[i].qs + 32 * (j / 2);
            const int8_t *y = a[i].qs + 32 * j;
            for (int l = 0; l < 32; l++) p += ((q[l] >> shift) & 0xf) * y[l];
            isum += sc * p;
            msum += mn * a[i].sums32[j];
        }
        s += a[i].d *
             (rf__f16_to_f32(b[i].d) * (float)isum - rf__f16_to_f32(b[i].dmin) * (float)msum);
    }
    return s;
}

static float rf__dot_q6_k_gen(const void *w, const void *act, size_t k)
{
    const rf__block_q6_k *b = w;
    const rf__block_q8_k *a = act;
    float s = 0;
    for (size_t i = 0; i < k / RF__SUPER_BLOCK; i++) {
        int32_t isum = 0; /* |isum| <= 16 . 128 . 16 . 32 . 127 < 2^28 */
        for (int n = 0; n < 2; n++) {
            const uint8_t *ql = b[i].ql + 64 * n, *qh = b[i].qh + 32 * n;
            const int8_t *sc = b[i].scales + 8 * n, *y = a[i].qs + 128 * n;
            for (int g = 0; g < 8; g++) { /* 16 values each: quarter g / 2, half g % 2 */
                int p = 0, qq = g / 2;
                for (int l = 16 * (g % 2); l < 16 * (g % 2) + 16; l++) {
                    int lo = qq & 1 ? ql[l + 32] : ql[l];
                    int q = ((qq < 2 ? lo & 0xf : lo >> 4) | (((qh[l] >> (2 * qq)) & 3) << 4)) - 32;
                    p += q * y[32 * qq + l];
                }
                isum += sc[g] * p;
            }
        }
        s += a[i].d * rf__f16_to_f32(b[i].d) * (float)isum;
    }
    return s;
}

const rf__row_dot_fn rf__row_dot_generic[RF__WEIGHT_TYPES] = {
    rf__dot_f32_gen,  rf__dot_f16_gen,  rf__dot_bf16_gen, rf__dot_q8_0_gen, rf__dot_q4_0_gen,
    rf__dot_q4_k_gen, rf__dot_q6_k_gen, rf__dot_q4_1_gen, rf__dot_q5_0_gen, rf__dot_q5_1_gen,
    rf__dot_q5_k_gen, rf__dot_q2_k_gen, rf__dot_q3_k_gen};

void rf__f32_rows_dot(int isa, const float *a, size_t rows, size_t stride, const float *x, size_t n,
                      float *y)
{
    if (isa >= RF__KERNEL_AVX2 && rf__f32_rows_dot_avx2(a, rows, stride, x, n, y)) return;
    for (size_t r = 0; r < rows; r++) y[r] = rf__dot_f32_gen(a + r * stride, x, n);
}

void rf__f32_rows_axpy(int isa, const float *a, size_t rows, size_t stride, const float *p,
                       size_t n, float *y)
{
    if (isa >= RF__KERNEL_AVX2 && rf__f32_rows_axpy_avx2(a, rows, stride, p, n, y)) return;
    memset(y, 0, n * sizeof *y);
    for (size_t r = 0; r < rows; r++)
        for (size_t i = 0; i < n; i++) y[i] += p[r] * a[r * stride + i];
}

void rf__f32_silu(int isa, float *y, size_t n)
{
    if (isa >= RF__KERNEL_AVX2 && rf__f32_silu_avx2(y, n)) return;
    for (size_t i = 0; i < n; i++) y[i] = y[i] > -80.0f ? y[i] / (1.0f + expf(-y[i])) : 0.0f;
}

/* ---- instruction-set level and dispatch ------------------------------------------------------ */

static const char *const rf__kernel_isa_names[RF__KERNEL_ISAS] = {"generic", "avx2", "avx512"};

const char *rf__kernel_isa_name(int isa)
{
    return isa >= 0 && isa < RF__KERNEL_ISAS ? rf__kernel_isa_names[isa] : "?";
}

int rf__kernel_isa_best(void)
{
    uint32_t f = rf__cpu_features();
    int isa = RF__KERNEL_GENERIC, probe_isa = RF__ISA_GENERIC;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* F16C (cpuid 1, ecx bit 29) converts F16 weights in the AVX2 kernels */
    unsigned a = 0, b = 0, c = 0, d = 0;
    int f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)); /* clang 14's builtin lacks it */
    if ((f & (RF__F_AVX2 | RF__F_FMA)) == (RF__F_AVX2 | RF__F_FMA) && f16c) isa = RF__KERNEL_AVX2;
    /* the AVX-512 kernels take VNNI's vpdpwssd / vpdpbusd on ymm (VL): Ice Lake, Zen 4 and later */
    const uint32_t f512 = RF__F_AVX512F | RF__F_AVX512BW | RF__F_AVX512VL | RF__F_AVX512VNNI;
    if (isa == RF__KERNEL_AVX2 && (f & f512) == f512) isa = RF__KERNEL_AVX512;
#endif
    /* $RF_ISA (the probe's override) caps the level; an unknown or unsupported name is ignored */
    if (rf__isa_select(NULL, NULL, f, &probe_isa) == RF_OK && probe_isa < RF__ISA_AVX512) {
        int cap = probe_isa == RF__ISA_AVX2 ? RF__KERNEL_AVX2 : RF__KERNEL_GENERIC;
        if (cap < isa) isa = cap;
    }
    return isa;
}

rf__row_dot_fn rf__row_dot_get(int id, int isa)
{
    const rf__row_dot_fn *tabs[RF__KERNEL_ISAS] = {rf__row_dot_generic, rf__row_dot_avx2,
                                                   rf__row_dot_avx512};
    for (int l = isa; l > RF__KERNEL_GENERIC; l--)
        if (tabs[l][id]) return tabs[l][id];
    return rf__row_dot_generic[id];
}

rf__rows_dot_fn rf__rows_dot_get(int id, int isa)
{
    if (id < 0 || id >= RF__WEIGHT_TYPES) return NULL;
    if (isa < RF__KERNEL_AVX512) return NULL;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (rf__rows_dot_avx512_vbmi[id] && __builtin_cpu_supports("avx512vbmi"))
        return rf__rows_dot_avx512_vbmi[id];
#endif
    return rf__rows_dot_avx512[id];
}

int rf__row_dot_has(int id, int isa)
{
    const rf__row_dot_fn *tabs[RF__KERNEL_ISAS] = {rf__row_dot_generic, rf__row_dot_avx2,
                                                   rf__row_dot_avx512};
    return isa >= 0 && isa < RF__KERNEL_ISAS && tabs[isa][id] != NULL;
}
