/* qgemm.c — the portable half of the prefill products on quantised weights (qgemm.h): the repack
 * of each type's blocks into unsigned quants with a scale and an offset per block, the activation
 * quantiser, the reference kernel and the threaded driver. */
#include <math.h>
#include <string.h>

#include "exec/qgemm.h"

int rf__qgemm_blk(int id)
{
    switch (id) {
    case RF__WEIGHT_Q8_0:
    case RF__WEIGHT_Q4_0:
    case RF__WEIGHT_Q4_1:
    case RF__WEIGHT_Q5_0:
    case RF__WEIGHT_Q5_1:
    case RF__WEIGHT_Q5_K:
    case RF__WEIGHT_Q4_K: return 32;
    case RF__WEIGHT_Q6_K:
    case RF__WEIGHT_Q2_K:
    case RF__WEIGHT_Q3_K: return 16;
    default: return 0;
    }
}

int rf__qgemm_supported(int id)
{
    return rf__qgemm_blk(id) != 0;
}

static size_t rf__block_bytes(int blk)
{
    return (size_t)RF__QGEMM_ROWS * (size_t)blk + 2 * RF__QGEMM_ROWS * sizeof(float);
}

/* Bytes of a group of 16 rows of K values of type id (qgemm.h's two layouts). */
static size_t rf__group_bytes(int id, uint64_t K)
{
    int blk = rf__qgemm_blk(id);
    uint64_t nb = K / (uint64_t)blk;
    if (id == RF__WEIGHT_Q8_0) return (size_t)((nb + 1) / 2) * 1088;
    return (size_t)nb * rf__block_bytes(blk);
}

size_t rf__qgemm_bytes(int id, uint64_t N, uint64_t K)
{
    int blk = rf__qgemm_blk(id);
    if (!blk) return 0;
    uint64_t groups = (N + RF__QGEMM_ROWS - 1) / RF__QGEMM_ROWS;
    return (size_t)groups * rf__group_bytes(id, K);
}

static uint16_t rf__u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* Block j (blk values) of a row of type id as w = a . q + b with q unsigned. */
static void rf__block_qab(int id, const uint8_t *row, uint64_t j, uint8_t *q, float *a, float *b)
{
    switch (id) {
    case RF__WEIGHT_Q8_0: {
        const uint8_t *p = row + 34 * j;
        float d = rf__f16_to_f32(rf__u16(p));
        for (int i = 0; i < 32; i++) q[i] = (uint8_t)((int)(int8_t)p[2 + i] + 128);
        *a = d;
        *b = -128.0f * d;
        break;
    }
    case RF__WEIGHT_Q4_0: {
        const uint8_t *p = row + 18 * j;
        float d = rf__f16_to_f32(rf__u16(p));
        for (int i = 0; i < 16; i++) {
            q[i] = p[2 + i] & 0xf;
            q[i + 16] = p[2 + i] >> 4;
        }
        *a = d;
        *b = -8.0f * d;
        break;
    }
    case RF__WEIGHT_Q4_K: { /* sub-block j % 8 of super-block j / 8 */
        const uint8_t *p = row + 144 * (j / 8);
        int sb = (int)(j % 8), sc, mn;
        float d = rf__f16_to_f32(rf__u16(p)), dmin = rf__f16_to_f32(rf__u16(p + 2));
        rf__q4_k_scale_min(p + 4, sb, &sc, &mn);
        const uint8_t *qs = p + 16 + 32 * (sb / 2);
        for (int i = 0; i < 32; i++) q[i] = sb % 2 ? qs[i] >> 4 : qs[i] & 0xf;
        *a = d * (float)sc;
        *b = -dmin * (float)mn;
        break;
    }
    case RF__WEIGHT_Q6_K: { /* 16 values: super-block j / 16, values 16 (j % 16) .. */
        const uint8_t *p = row + 210 * (j / 16);
        int e0 = (int)(j % 16) * 16, n = e0 / 128, c = (e0 % 128) / 32, l0 = e0 % 32;
        const uint8_t *ql = p + 64 * n, *qh = p + 128 + 32 * n;
        float d = rf__f16_to_f32(rf__u16(p + 208));
        int8_t sc = (int8_t)p[192 + e0 / 16];
        for (int i = 0; i < 16; i++) {
            int l = l0 + i, lo = c % 2 ? ql[l + 32] : ql[l];
            lo = c >= 2 ? lo >> 4 : lo & 0xf;
            q[i] = (uint8_t)(lo | ((qh[l] >> (2 * c)) & 3) << 4);
        }
        *a = d * (float)sc;
        *b = -32.0f * d * (float)sc;
        break;
    }
    default: /* the other types' repack: qgemm_types.c */
        if (!rf__qgemm_block_qab_q5(id, row, j, q, a, b)) memset(q, 0, 32), *a = *b = 0;
    }
}

void rf__qgemm_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K, uint8_t *data,
                    rf__qgemm_w *out)
{
    int blk = rf__qgemm_blk(id);
    out->blk = blk;
    out->f16_scales = id == RF__WEIGHT_Q8_0;
    out->nib = 0;
    out->N = N;
    out->K = K;
    out->groups = (N + RF__QGEMM_ROWS - 1) / RF__QGEMM_ROWS;
    out->block_bytes = out->f16_scales ? 0 : rf__block_bytes(blk);
    out->group_bytes = rf__group_bytes(id, K);
    out->data = data;
    uint64_t nb = K / (uint64_t)blk;
    uint8_t q[32];
    if (out->f16_scales && nb % 2) /* the unused half of the last pair */
        for (uint64_t g = 0; g < out->groups; g++)
            memset(data + (size_t)(g + 1) * out->group_bytes - 576, 0, 576);
    for (uint64_t g = 0; g < out->groups; g++)
        for (uint64_t j = 0; j < nb; j++) {
            uint8_t *o = (uint8_t *)(uintptr_t)rf__qgemm_quants(out, g, j);
            uint8_t *sc = (uint8_t *)(uintptr_t)rf__qgemm_scales(out, g, j);
            float *av = (float *)(void *)sc, *bv = av + RF__QGEMM_ROWS;
            for (unsigned r = 0; r < RF__QGEMM_ROWS; r++) {
                uint64_t row = g * RF__QGEMM_ROWS + r;
                const uint8_t *src = (const uint8_t *)w + row * row_bytes;
                if (row >= N) {
                    memset(q, 0, sizeof q);
                    if (out->f16_scales)
                        memset(sc + 2 * r, 0, 2);
                    else
                        av[r] = bv[r] = 0;
                } else if (out->f16_scales) { /* q + 128, the F16 scale as it is */
                    const uint8_t *p = src + 34 * j;
                    for (int i = 0; i < 32; i++) q[i] = (uint8_t)(p[2 + i] ^ 0x80);
                    memcpy(sc + 2 * r, p, 2);
                } else {
                    rf__block_qab(id, src, j, q, &av[r], &bv[r]);
                }
                /* [blk / 4][16 rows][4 values] */
                for (int t = 0; t < blk / 4; t++)
                    memcpy(o + (t * RF__QGEMM_ROWS + r) * 4, q + 4 * t, 4);
            }
        }
}

/* Scale a and offset b of row r of block j of group g. */
static void rf__qgemm_ab(const rf__qgemm_w *w, uint64_t g, uint64_t j, unsigned r, float *a,
                         float *b)
{
    const uint8_t *sc = rf__qgemm_scales(w, g, j);
    if (w->f16_scales) {
        *a = rf__f16_to_f32(rf__u16(sc + 2 * r));
        *b = -128.0f * *a;
    } else {
        memcpy(a, sc + 4 * r, 4);
        memcpy(b, sc + 4 * (RF__QGEMM_ROWS + r), 4);
    }
}

size_t rf__qgemm_act_bytes(uint64_t S, uint64_t K, int blk)
{
    size_t q = (size_t)(S * K + 63) / 64 * 64;
    return q + 2 * (size_t)(S * (K / (uint64_t)blk)) * sizeof(float) +
           rf__qgemm_amx_act_bytes(S, K, blk);
}

/* The struct over buf for S x K activations of block blk. */
static void rf__qgemm_act_at(void *buf, uint64_t S, uint64_t K, int blk, rf__qgemm_act *a)
{
    a->q = buf;
    a->d = (float *)(void *)((uint8_t *)buf + (S * K + 63) / 64 * 64);
    a->s = a->d + S * (K / (uint64_t)blk);
    a->S = S;
    a->K = K;
    a->blk = blk;
}

void rf__qgemm_quantize_rows_ref(const float *x, const rf__qgemm_act *a, uint64_t s0, uint64_t s1)
{
    uint64_t K = a->K, nb = K / (uint64_t)a->blk;
    int blk = a->blk;
    for (uint64_t s = s0; s < s1; s++)
        for (uint64_t j = 0; j < nb; j++) {
            const float *xb = x + s * K + j * (uint64_t)blk;
            int8_t *qb = a->q + s * K + j * (uint64_t)blk;
            float amax = 0, sum = 0;
            for (int i = 0; i < blk; i++) {
                amax = fabsf(xb[i]) > amax ? fabsf(xb[i]) : amax;
                sum += xb[i];
            }
            float is = amax > 0 ? 127.0f / amax : 0.0f;
            for (int i = 0; i < blk; i++) {
                float v = nearbyintf(xb[i] * is);
                qb[i] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
            }
            a->d[s * nb + j] = amax / 127.0f;
            a->s[s * nb + j] = sum;
        }
}

void rf__qgemm_quantize(const float *x, uint64_t S, uint64_t K, int blk, void *buf,
                        rf__qgemm_act *a)
{
    rf__qgemm_act_at(buf, S, K, blk, a);
    rf__qgemm_quantize_rows_ref(x, a, 0, S);
}

void rf__qgemm_kernel_ref(const rf__qgemm_w *w, uint64_t g, unsigned ng, const rf__qgemm_act *a,
                          uint64_t s0, unsigned ms, unsigned nr, float *y, size_t ldy)
{
    uint64_t nb = w->K / (uint64_t)w->blk;
    int blk = w->blk;
    (void)ng;
    for (unsigned s = 0; s < ms; s++)
        for (unsigned rr = 0; rr < nr; rr++) {
            uint64_t gr = g + rr / RF__QGEMM_ROWS;
            unsigned r = rr % RF__QGEMM_ROWS;
            float acc = 0;
            for (uint64_t j = 0; j < nb; j++) {
                const uint8_t *o = rf__qgemm_quants(w, gr, j);
                float av, bv;
                rf__qgemm_ab(w, gr, j, r, &av, &bv);
                const int8_t *xq = a->q + (s0 + s) * w->K + j * (uint64_t)blk;
                int32_t dot = 0;
                for (int i = 0; i < blk; i++)
                    dot += (int32_t)o[((i / 4) * RF__QGEMM_ROWS + r) * 4 + i % 4] * xq[i];
                acc += av * a->d[(s0 + s) * nb + j] * (float)dot + bv * a->s[(s0 + s) * nb + j];
            }
            y[s * ldy + rr] = acc;
        }
}

rf__qgemm_kernel_fn rf__qgemm_kernel(int isa)
{
    rf__qgemm_kernel_fn f = isa >= RF__KERNEL_AVX512 ? rf__qgemm_kernel_avx512() : NULL;
    return f ? f : rf__qgemm_kernel_ref;
}

typedef struct rf__qgemm_job {
    const rf__qgemm_w *w;
    const rf__qgemm_act *a;
    rf__qgemm_kernel_fn kern;
    rf__qgemm_quantize_fn quant;
    const float *x;
    float *y;
} rf__qgemm_job;

/* Job p of np quantises its share of the activation rows. */
static void rf__qgemm_quant_part(void *arg, unsigned p, unsigned np)
{
    const rf__qgemm_job *j = arg;
    j->quant(j->x, j->a, j->a->S * p / np, j->a->S * (p + 1) / np);
}

/* Job p of np: its share of the pairs of groups, each pair by every tile of activation rows
 * (the pair's weights stay in L2 while the activation rows stream by). */
static void rf__qgemm_part(void *arg, unsigned p, unsigned np)
{
    const rf__qgemm_job *j = arg;
    const rf__qgemm_w *w = j->w;
    uint64_t pairs = (w->groups + 1) / 2, p0 = pairs * p / np, p1 = pairs * (p + 1) / np;
    for (uint64_t pr = p0; pr < p1; pr++) {
        uint64_t g = 2 * pr, r0 = g * RF__QGEMM_ROWS;
        unsigned ng = g + 1 < w->groups ? 2 : 1;
        unsigned nr = (unsigned)(w->N - r0 < 2 * RF__QGEMM_ROWS ? w->N - r0 : 2 * RF__QGEMM_ROWS);
        for (uint64_t s0 = 0; s0 < j->a->S; s0 += RF__QGEMM_MR) {
            unsigned ms = (unsigned)(j->a->S - s0 < RF__QGEMM_MR ? j->a->S - s0 : RF__QGEMM_MR);
            j->kern(w, g, ng, j->a, s0, ms, nr, j->y + s0 * w->N + r0, (size_t)w->N);
        }
    }
}

void rf__qgemm_run(rf__qmatmul *q, int isa, const rf__qgemm_w *w, const float *x, uint64_t S,
                   void *act, float *y)
{
    rf__qgemm_act a;
    rf__qgemm_act_at(act, S, w->K, w->blk, &a);
    rf__qgemm_quantize_fn quant =
        isa >= RF__KERNEL_AVX512 ? rf__qgemm_quantize_rows_avx512() : NULL;
    rf__qgemm_job j = {w, &a, rf__qgemm_kernel(isa), quant ? quant : rf__qgemm_quantize_rows_ref,
                       x, y};
    if (isa >= RF__KERNEL_AVX512 && rf__qmatmul_amx(q) && rf__qgemm_amx_takes(w)) {
        rf__qgemm_amx_run(q, w, x, &a, j.quant, y);
        return;
    }
    rf__qmatmul_parallel(q, rf__qgemm_quant_part, &j);
    rf__qmatmul_parallel(q, rf__qgemm_part, &j);
}

/* ---- decode on the packed Q8_0 form (the driver: qgemv.c) ---- */

void rf__qgemv_kernel_ref(const rf__qgemm_w *w, uint64_t g, const void *act, unsigned nr, float *y)
{
    const rf__block_q8_32 *a = act;
    uint64_t nb = w->K / 32;
    for (unsigned r = 0; r < nr; r++) {
        float acc = 0;
        for (uint64_t j = 0; j < nb; j++) {
            const uint8_t *o = rf__qgemm_quants(w, g, j);
            float av, bv;
            rf__qgemm_ab(w, g, j, r, &av, &bv);
            int32_t dot = 0; /* (q + 128) . xq, less 128 . sum xq */
            for (int i = 0; i < 32; i++)
                dot += (int32_t)o[((i / 4) * RF__QGEMM_ROWS + r) * 4 + i % 4] * a[j].qs[i];
            acc += av * a[j].d * (float)(dot - 128 * a[j].sum);
        }
        y[r] = acc;
    }
}

rf__qgemv_kernel_fn rf__qgemv_kernel(int isa)
{
    rf__qgemv_kernel_fn f = isa >= RF__KERNEL_AVX512 ? rf__qgemv_kernel_avx512() : NULL;
    return f ? f : rf__qgemv_kernel_ref;
}

/* ---- float weights ---- */

void rf__fgemm_kernel_ref(const float *p, const float *w, size_t ldw, unsigned nr, unsigned kc,
                          float *t, const rf__fgemm_prefetch *pf)
{
    (void)pf;
    for (unsigned i = 0; i < nr; i++)
        for (unsigned s = 0; s < RF__FGEMM_SB; s++) {
            float acc = 0;
            for (unsigned k = 0; k < kc; k++) acc += w[i * ldw + k] * p[k * RF__FGEMM_SB + s];
            t[i * RF__FGEMM_SB + s] = acc;
        }
}

static uint64_t rf__fgemm_panels(uint64_t S)
{
    return (S + RF__FGEMM_SB - 1) / RF__FGEMM_SB;
}

size_t rf__fgemm_scratch_bytes(uint64_t S, uint64_t K, unsigned threads)
{
    uint64_t kc = K < RF__FGEMM_KC ? K : RF__FGEMM_KC;
    return (size_t)(rf__fgemm_panels(S) * RF__FGEMM_SB * K +
                    4 * (uint64_t)threads * RF__FGEMM_NR * (kc + 16)) *
           sizeof(float);
}

typedef struct rf__fgemm_job {
    rf__fgemm_kernel_fn kern;
    rf__fgemm_pack_fn pack; /* NULL: one value at a time */
    int isa, id;
    const uint8_t *w;
    size_t row_bytes;
    uint64_t N, K, S;
    const float *x;
    float *panels; /* rf__fgemm_panels(S) x [K][SB] */
    float *wbuf;   /* per job: NR x KC dequantised values */
    float *y;
} rf__fgemm_job;

/* Job c of nc packs its share of K for every panel: 16 values at a time with AVX-512 when it
 * can, the rest (and every value without it) one by one. */
static void rf__fgemm_pack_job(void *arg, unsigned c, unsigned nc)
{
    const rf__fgemm_job *j = arg;
    uint64_t k16 = j->pack ? j->K / 16 : 0, k0 = 16 * (k16 * c / nc),
             k1 = 16 * (k16 * (c + 1) / nc);
    if (k1 > k0) j->pack(j->x, j->S, j->K, j->panels, k0, k1);
    if (c + 1 < nc) {
        if (!j->pack)
            k0 = j->K * c / nc, k1 = j->K * (c + 1) / nc;
        else
            return;
    } else {
        k0 = j->pack ? 16 * k16 : j->K * c / nc;
        k1 = j->K;
    }
    for (uint64_t b = 0; b < rf__fgemm_panels(j->S); b++) {
        float *p = j->panels + b * j->K * RF__FGEMM_SB;
        for (unsigned s = 0; s < RF__FGEMM_SB; s++) {
            uint64_t row = b * RF__FGEMM_SB + s;
            const float *xr = j->x + row * j->K;
            if (row < j->S)
                for (uint64_t k = k0; k < k1; k++) p[k * RF__FGEMM_SB + s] = xr[k];
            else
                for (uint64_t k = k0; k < k1; k++) p[k * RF__FGEMM_SB + s] = 0;
        }
    }
}

/* Job c of nc: its share of the weight rows, a tile of NR rows (dequantised unless F32) by every
 * panel, K a chunk at a time, the tile's results added into y. */
static void rf__fgemm_rows_job(void *arg, unsigned c, unsigned nc)
{
    const rf__fgemm_job *j = arg;
    uint64_t ra = j->N * c / nc, rb = j->N * (c + 1) / nc, K = j->K;
    uint32_t be, bb;
    rf__weight_block(j->id, &be, &bb);
    /* rows 64 bytes more than a pass apart: not all in one L1 set (2048 x 4 bytes is 2 x 4 KiB) */
    size_t wld = (size_t)(K < RF__FGEMM_KC ? K : RF__FGEMM_KC) + 16;
    float *wb = j->wbuf + (size_t)c * RF__FGEMM_NR * wld;
    _Alignas(64) float t[RF__FGEMM_NR * RF__FGEMM_SB];
    for (uint64_t k0 = 0; k0 < K; k0 += RF__FGEMM_KC) {
        unsigned kc = (unsigned)(K - k0 < RF__FGEMM_KC ? K - k0 : RF__FGEMM_KC);
        for (uint64_t r0 = ra; r0 < rb; r0 += RF__FGEMM_NR) {
            unsigned nr = (unsigned)(rb - r0 < RF__FGEMM_NR ? rb - r0 : RF__FGEMM_NR);
            const float *wt = wb;
            size_t ldw = wld;
            if (j->id == RF__WEIGHT_F32) {
                wt = (const float *)(const void *)(j->w + r0 * j->row_bytes) + k0;
                ldw = j->row_bytes / sizeof(float);
            } else {
                for (unsigned i = 0; i < nr; i++)
                    rf__dequant_row_isa(j->isa, j->id,
                                        j->w + (r0 + i) * j->row_bytes + k0 / be * bb, wb + i * wld,
                                        kc);
            }
            /* the next tile's rows (of this pass over K) prefetched during the first panel */
            uint64_t rn = r0 + RF__FGEMM_NR;
            rf__fgemm_prefetch pf = {
                j->w + rn * j->row_bytes + k0 / be * bb, j->row_bytes,
                (unsigned)((kc / be * bb + 63) / 64),
                rn < rb ? (unsigned)(rb - rn < RF__FGEMM_NR ? rb - rn : RF__FGEMM_NR) : 0};
            for (uint64_t b = 0; b < rf__fgemm_panels(j->S); b++) {
                j->kern(j->panels + (b * K + k0) * RF__FGEMM_SB, wt, ldw, nr, kc, t,
                        b == 0 && pf.rows ? &pf : NULL);
                uint64_t ns = j->S - b * RF__FGEMM_SB;
                if (ns > RF__FGEMM_SB) ns = RF__FGEMM_SB;
                for (uint64_t s = 0; s < ns; s++) {
                    float *yr = j->y + (b * RF__FGEMM_SB + s) * j->N + r0;
                    if (k0 == 0)
                        for (unsigned i = 0; i < nr; i++) yr[i] = t[i * RF__FGEMM_SB + s];
                    else
                        for (unsigned i = 0; i < nr; i++) yr[i] += t[i * RF__FGEMM_SB + s];
                }
            }
        }
    }
}

void rf__fgemm_run(rf__qmatmul *q, int isa, int id, const void *w, size_t row_bytes, uint64_t N,
                   uint64_t K, const float *x, uint64_t S, void *scratch, float *y)
{
    rf__fgemm_kernel_fn kern = isa >= RF__KERNEL_AVX512 ? rf__fgemm_kernel_avx512() : NULL;
    float *panels = scratch;
    rf__fgemm_job j = {kern ? kern : rf__fgemm_kernel_ref,
                       isa >= RF__KERNEL_AVX512 ? rf__fgemm_pack_rows_avx512() : NULL,
                       isa,
                       id,
                       w,
                       row_bytes,
                       N,
                       K,
                       S,
                       x,
                       panels,
                       panels + rf__fgemm_panels(S) * RF__FGEMM_SB * K,
                       y};
    rf__qmatmul_parallel(q, rf__fgemm_pack_job, &j);
    rf__qmatmul_parallel(q, rf__fgemm_rows_job, &j);
}
