/* qint_run.c — the finishing steps of ConvInteger and MatMulInteger (planned by op_qint.c): the
 * s32 accumulator oneDNN wrote plus the weight zero point's term, (o - zw[c]) * sum (x - zx) over
 * each output's window (channel sums, then box sums; padding adds nothing), in the wrapping
 * 32-bit arithmetic of ONNX Runtime's int32 accumulator, converted to float once, then the fused
 * Cast / Mul / Add / Relu each rounded as its own layer rounds; the conv's s32 nhwc becomes f32
 * nchw on the way. Parts run on the pass's team (xpar.c). Never allocates, never plans. */
#include <string.h>

#include "exec/qint.h"

typedef struct qfin {
    const rf__xstep *s;
    const int32_t *a;
    const float *x, *xz, *wz, *mul, *add;
    const uint8_t *xu8;
    int32_t *cs, *bs;
    float *y;
} qfin;

static void fin_bind(const rf__xstep *s, qfin *f)
{
    const int64_t *fl = s->c.st[2];
    uint32_t k = 0;
    memset(f, 0, sizeof f[0]);
    f->s = s;
    f->a = (const int32_t *)(const void *)s->ptr[k++];
    if (fl[F_TERM] && s->c.n_idx)
        f->xu8 = (const uint8_t *)(const void *)s->ptr[k++];
    else if (fl[F_TERM])
        f->x = s->ptr[k++];
    if (fl[F_XZ]) f->xz = s->ptr[k++];
    if (fl[F_WZ]) f->wz = s->ptr[k++];
    if (s->c.op & P_MUL) f->mul = s->ptr[k++];
    if (s->c.op & P_ADD) f->add = s->ptr[k++];
    if (fl[F_TERM] && s->n_io > k + 1) {
        f->cs = (int32_t *)(void *)s->ptr[k++];
        f->bs = f->cs + fl[RF__QF_SPLIT];
    }
    f->y = s->ptr[k];
}

/* The fused element-wise layers over a row of n outputs, in order, each rounded to float as its
 * own layer rounds; the Add's operand is channel c's value (by_col: y[i]'s channel is i). One
 * loop per layer, so each vectorises. */
static void post_row(const qfin *f, float *y, int64_t n, int64_t c, int by_col)
{
    int op = f->s->c.op;
    if (op & P_MUL) {
        float m = f->mul[0];
        for (int64_t i = 0; i < n; i++) y[i] = y[i] * m;
    }
    if ((op & P_ADD) && (op & P_ADD_PER) && by_col) {
        for (int64_t i = 0; i < n; i++) y[i] = y[i] + f->add[i];
    } else if (op & P_ADD) {
        float b = f->add[op & P_ADD_PER ? c : 0];
        for (int64_t i = 0; i < n; i++) y[i] = y[i] + b;
    }
    if (op & P_RELU)
        for (int64_t i = 0; i < n; i++) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}

/* Channel sums of x - zx per group: rows (n, g, h) split over the team. */
static void fin_chansum(void *arg, unsigned part, unsigned parts)
{
    const qfin *f = arg;
    const int64_t *g0 = f->s->c.st[0];
    int64_t G = g0[G_G], cg = g0[G_C] / G, H = g0[G_H], W = g0[G_W], lo, hi;
    int32_t zx = f->xz ? (int32_t)f->xz[0] : 0;
    rf__xpar_range(g0[G_N] * G * H, 1, part, parts, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t n = r / (G * H), g = r / H % G, h = r % H;
        int32_t *o = f->cs + r * W;
        for (int64_t w = 0; w < W; w++) o[w] = (int32_t)(-cg * zx);
        if (f->xu8) { /* nhwc: a group's channels side by side */
            for (int64_t w = 0; w < W; w++) {
                const uint8_t *xi = f->xu8 + ((n * H + h) * W + w) * g0[G_C] + g * cg;
                int32_t acc = 0;
                for (int64_t c = 0; c < cg; c++) acc += xi[c];
                o[w] += acc;
            }
            continue;
        }
        for (int64_t c = 0; c < cg; c++) {
            const float *xi = f->x + ((n * g0[G_C] + g * cg + c) * H + h) * W;
            for (int64_t w = 0; w < W; w++) o[w] += (int32_t)xi[w];
        }
    }
}

/* Box sums of the channel sums over each output's window (padding adds nothing). */
static void fin_boxsum(void *arg, unsigned part, unsigned parts)
{
    const qfin *f = arg;
    const int64_t *g0 = f->s->c.st[0], *k = f->s->c.st[1];
    int64_t G = g0[G_G], H = g0[G_H], W = g0[G_W], OH = g0[G_OH], OW = g0[G_OW], lo, hi;
    rf__xpar_range(g0[G_N] * G * OH, 1, part, parts, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t ng = r / OH, oh = r % OH;
        int32_t *o = f->bs + r * OW;
        const int32_t *cs = f->cs + ng * H * W;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t acc = 0;
            for (int64_t i = 0; i < k[K_KH]; i++) {
                int64_t h = oh * k[K_SH] - k[K_PT] + i * k[K_DH];
                if (h < 0 || h >= H) continue;
                for (int64_t j = 0; j < k[K_KW]; j++) {
                    int64_t w = ow * k[K_SW] - k[K_PL] + j * k[K_DW];
                    if (w >= 0 && w < W) acc += cs[h * W + w];
                }
            }
            o[ow] = (int32_t)acc;
        }
    }
}

/* 16 channels of one output pixel: A's row plus coef * the box sum, in the wrapping 32-bit
 * arithmetic of ONNX Runtime's int32 accumulator (exact whenever the result fits int32, which
 * ONNX Runtime needs too), to float. */
static inline void fin_px16(const int32_t *a, const uint32_t *coef, uint32_t b, float *t)
{
    for (int k = 0; k < 16; k++) t[k] = (float)(int32_t)((uint32_t)a[k] + coef[k] * b);
}

/* Y[n, c, oh, :] = A[n, oh, :, c] + (o - zw[c]) * box[n, g(c), oh, :], then the fused layers:
 * 16 channels at a time, A read a pixel's 16 channels at once, Y written as 16 row streams. */
static void fin_write(void *arg, unsigned part, unsigned parts)
{
    const qfin *f = arg;
    const int64_t *g0 = f->s->c.st[0], *fl = f->s->c.st[2];
    int64_t CO = g0[G_CO], OH = g0[G_OH], OW = g0[G_OW], G = g0[G_G], cog = CO / G, lo, hi;
    int64_t off = fl[F_OFF];
    rf__xpar_range(g0[G_N] * OH, 1, part, parts, &lo, &hi);
    for (int64_t r = lo; r < hi; r++) {
        int64_t n = r / OH, oh = r % OH;
        const int32_t *a = f->a + r * OW * CO;
        for (int64_t c0 = 0; c0 < CO; c0 += 16) {
            int64_t nb = CO - c0 < 16 ? CO - c0 : 16;
            uint32_t coef[16] = {0};
            const int32_t *brow[16] = {NULL};
            float *yrow[16], t[16];
            for (int64_t k = 0; k < nb; k++) {
                int64_t c = c0 + k;
                yrow[k] = f->y + ((n * CO + c) * OH + oh) * OW;
                if (!f->bs) continue;
                int64_t zw = f->wz ? (int64_t)f->wz[fl[F_WZ_PER] ? c : 0] : 0;
                coef[k] = (uint32_t)(off - zw);
                brow[k] = f->bs + ((n * G + c / cog) * OH + oh) * OW;
            }
            /* 64 pixels at a time into a tile, then 16 runs of 64 floats: rows of Y lie a
             * plane apart, and 16 streams that far apart would share the caches' sets */
            for (int64_t w0 = 0; w0 < OW; w0 += 64) {
                int64_t m = OW - w0 < 64 ? OW - w0 : 64;
                float tile[16][64];
                if (nb == 16 && (!f->bs || G == 1)) { /* one box sum for the 16 channels */
                    for (int64_t j = 0; j < m; j++) {
                        int64_t ow = w0 + j;
                        fin_px16(a + ow * CO + c0, coef, f->bs ? (uint32_t)brow[0][ow] : 0, t);
                        for (int k = 0; k < 16; k++) tile[k][j] = t[k];
                    }
                } else {
                    for (int64_t j = 0; j < m; j++)
                        for (int64_t k = 0; k < nb; k++) {
                            int64_t ow = w0 + j;
                            uint32_t b = brow[k] ? (uint32_t)brow[k][ow] : 0;
                            uint32_t v = (uint32_t)a[ow * CO + c0 + k] + coef[k] * b;
                            tile[k][j] = (float)(int32_t)v;
                        }
                }
                for (int64_t k = 0; k < nb; k++)
                    memcpy(yrow[k] + w0, tile[k], (size_t)m * sizeof **tile);
            }
            for (int64_t k = 0; k < nb; k++) post_row(f, yrow[k], OW, c0 + k, 0);
        }
    }
}

void rf__xqint_conv_finish(const rf__xstep *s)
{
    qfin f;
    fin_bind(s, &f);
    if (f.cs) {
        rf__xpar_run(fin_chansum, &f, s->tiny);
        rf__xpar_run(fin_boxsum, &f, s->tiny);
    }
    rf__xpar_run(fin_write, &f, s->tiny);
}

static void mm_write(void *arg, unsigned part, unsigned parts)
{
    const qfin *f = arg;
    const int64_t *fl = f->s->c.st[2];
    int64_t M = f->s->c.st[0][0], K = f->s->c.st[0][1], N = f->s->c.st[0][2], lo, hi;
    int32_t zx = f->xz ? (int32_t)f->xz[0] : 0;
    rf__xpar_range(M, 1, part, parts, &lo, &hi);
    for (int64_t m = lo; m < hi; m++) {
        const int32_t *a = f->a + m * N;
        float *y = f->y + m * N;
        if (!fl[F_TERM]) {
            for (int64_t n = 0; n < N; n++) y[n] = (float)a[n];
            post_row(f, y, N, 0, 1);
            continue;
        }
        int64_t rs = -K * (int64_t)zx;
        const float *x = f->x + m * K;
        for (int64_t k = 0; k < K; k++) rs += (int64_t)x[k];
        for (int64_t n = 0; n < N; n++) { /* wrapping 32-bit, as the conv's */
            int64_t coef = fl[F_OFF] - (f->wz ? (int64_t)f->wz[fl[F_WZ_PER] ? n : 0] : 0);
            y[n] = (float)(int32_t)((uint32_t)a[n] + (uint32_t)coef * (uint32_t)rs);
        }
        post_row(f, y, N, 0, 1);
    }
}

void rf__xqint_mm_finish(const rf__xstep *s)
{
    qfin f;
    fin_bind(s, &f);
    rf__xpar_run(mm_write, &f, s->tiny);
}
