/* test_exec_qint.c — ONNX Runtime's dynamic int8 pattern in the executor (op_qint.c, op_quant.c):
 * DynamicQuantizeLinear feeding ConvInteger or MatMulInteger its zero point at run time, with
 * u8 weights and weight zero points per tensor or per output channel, s8 weights, groups,
 * dilation, uneven pads, 1-D. The inputs and the expected outputs come from
 * tests/data/int8/int8_cases.h, which make_int8_cases.py computes with numpy from the ONNX
 * definitions (and checks against ONNX Runtime where it runs the case). Every output is an
 * integer (or DynamicQuantizeLinear's scale): they must match exactly. */
#include "exec_tg.h"

#include "../data/int8/int8_cases.h"

#define N_OF(a) (uint32_t)(sizeof(a) / sizeof *(a))

static uint32_t tensd(tg *t, const char *name, uint32_t flags, rf_dtype dt, const int64_t *dims,
                      uint32_t rank)
{
    uint32_t i = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t->ctx, t->g, name, dt, rank, dims, flags, &i);
    return i;
}

/* Values the executor feeds tensor x with (any count: the graph's setter keeps short ones). */
static void feed(tg *t, uint32_t x, const int64_t *v, uint32_t n)
{
    int64_t *d = rf_graph_alloc(t->ctx, t->g, (size_t)n * sizeof *d);
    if (!d) return;
    memcpy(d, v, (size_t)n * sizeof *d);
    t->g->tensors[x].values = d;
    t->g->tensors[x].n_values = n;
}

static void same(const char *what, const float *got, const int64_t *want, uint32_t n)
{
    int bad = 0;
    for (uint32_t i = 0; i < n && bad < 3; i++)
        if ((double)got[i] != (double)want[i]) {
            RF_FAIL_AT("%s[%u]: got %.9g, want %lld", what, i, got[i], (long long)want[i]);
            bad++;
        }
}

typedef struct qcase {
    const char *op;
    const int64_t *xd, *x, *wd, *w, *wz, *xq, *yd, *y;
    uint32_t xr, nx, wr, nw, nwz, yr, ny;
    rf_dtype wt;
    float scale;
    int64_t zp;
    const int64_t *strides, *pads, *dil;
    uint32_t sp;
    int64_t group;
    const int64_t *bias, *bias_dims; /* the fused chain (Cast, Mul by xs, Add bias, Relu) */
    uint32_t nb, br;
    const float *z;
    int hide_xq; /* xq read by the op only: the quantiser writes it as u8 nhwc */
} qcase;

#define QCASE(n, op_, wt_, sp_)                                                                    \
    (qcase)                                                                                        \
    {                                                                                              \
        op_, n##_x_dims, n##_x, n##_w_dims, n##_w, n##_wz, n##_xq, n##_y_dims, n##_y,              \
            N_OF(n##_x_dims), N_OF(n##_x), N_OF(n##_w_dims), N_OF(n##_w), N_OF(n##_wz),            \
            N_OF(n##_y_dims), N_OF(n##_y), wt_, n##_scale, n##_zp, NULL, NULL, NULL, sp_, 1, NULL, \
            NULL, 0, 0, NULL, 0                                                                    \
    }
#define WITH_POST(q, n)                                                                            \
    ((q).bias = n##_bias, (q).bias_dims = n##_bias_dims, (q).nb = N_OF(n##_bias),                  \
     (q).br = N_OF(n##_bias_dims), (q).z = n##_z)

/* Build DynamicQuantizeLinear -> op, run once, compare every output. */
static void run_case(const qcase *q)
{
    tg t = tg_new();
    uint32_t x = tensd(&t, "x", RF_TENSOR_INPUT, RF_DTYPE_F32, q->xd, q->xr);
    uint32_t xq = tensd(&t, "xq", q->hide_xq ? 0 : RF_TENSOR_OUTPUT, RF_DTYPE_U8, q->xd, q->xr);
    uint32_t xs = tensd(&t, "xs", RF_TENSOR_OUTPUT, RF_DTYPE_F32, NULL, 0);
    uint32_t xz = tensd(&t, "xz", RF_TENSOR_OUTPUT, RF_DTYPE_U8, NULL, 0);
    uint32_t w = tensd(&t, "w", RF_TENSOR_WEIGHT, q->wt, q->wd, q->wr);
    int64_t nz = q->nwz;
    uint32_t wz = tensd(&t, "wz", RF_TENSOR_WEIGHT, q->wt, &nz, q->nwz > 1 ? 1 : 0);
    uint32_t y = tensd(&t, "y", q->z ? 0 : RF_TENSOR_OUTPUT, RF_DTYPE_I32, q->yd, q->yr);
    feed(&t, x, q->x, q->nx);
    feed(&t, w, q->w, q->nw);
    feed(&t, wz, q->wz, q->nwz);
    uint32_t l0 = 0, l1 = 0, o3[3] = {xq, xs, xz};
    rf_graph_add_layer(t.ctx, t.g, "dql", "DynamicQuantizeLinear", &x, 1, o3, 3, &l0);
    rf_graph_add_layer(t.ctx, t.g, "op", q->op, (const uint32_t[]){xq, w, xz, wz}, 4, &y, 1, &l1);
    uint32_t lc[4] = {0}, z = 0;
    if (q->z) { /* ONNX Runtime's chain after the op */
        uint32_t yf = tensd(&t, "yf", 0, RF_DTYPE_F32, q->yd, q->yr);
        uint32_t ys = tensd(&t, "ys", 0, RF_DTYPE_F32, q->yd, q->yr);
        uint32_t yb = tensd(&t, "yb", 0, RF_DTYPE_F32, q->yd, q->yr);
        uint32_t b = tensd(&t, "bias", RF_TENSOR_WEIGHT, RF_DTYPE_F32, q->bias_dims, q->br);
        z = tensd(&t, "z", RF_TENSOR_OUTPUT, RF_DTYPE_F32, q->yd, q->yr);
        feed(&t, b, q->bias, q->nb);
        rf_graph_add_layer(t.ctx, t.g, "cast", "Cast", &y, 1, &yf, 1, &lc[0]);
        rf_graph_set_attr_int(t.ctx, t.g, lc[0], "to", 1);
        rf_graph_add_layer(t.ctx, t.g, "mul", "Mul", (const uint32_t[]){yf, xs}, 2, &ys, 1, &lc[1]);
        rf_graph_add_layer(t.ctx, t.g, "add", "Add", (const uint32_t[]){ys, b}, 2, &yb, 1, &lc[2]);
        rf_graph_add_layer(t.ctx, t.g, "relu", "Relu", &yb, 1, &z, 1, &lc[3]);
    }
    if (q->strides) {
        ints(&t, l1, "strides", q->strides, q->sp);
        ints(&t, l1, "pads", q->pads, 2 * q->sp);
        ints(&t, l1, "dilations", q->dil, q->sp);
        rf_graph_set_attr_int(t.ctx, t.g, l1, "group", q->group);
    }
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[l0].measured, 1);
        if (!t.p->layers[l1].measured) RF_FAIL_AT("not measured: %s", t.p->layers[l1].reason);
        float *gq = q->hide_xq ? NULL : out(&t, xq), *gs = out(&t, xs), *gz = out(&t, xz),
              *gy = out(&t, q->z ? z : y);
        if (gq) same("xq", gq, q->xq, q->nx);
        if (!gq) RF_EXPECT_INT((int)t.p->n_extra, 0); /* no reorder to u8: written as such */
        if (gs[0] != q->scale) RF_FAIL_AT("scale: got %.9g, want %.9g", gs[0], q->scale);
        same("zp", gz, &q->zp, 1);
        if (!q->z) same("y", gy, q->y, q->ny);
        for (uint32_t i = 0; q->z && i < q->ny; i++)
            if (gy[i] != q->z[i]) {
                RF_FAIL_AT("z[%u]: got %.9g, want %.9g", i, gy[i], q->z[i]);
                break;
            }
        for (int k = 0; q->z && k < 4; k++) /* each of the chain reported, fused into the op */
            RF_EXPECT_INT(t.p->layers[lc[k]].fused_into, (int)l1);
        free(gq), free(gs), free(gz), free(gy);
    }
    tg_free(&t);
}

/* Per-channel u8 weight zero points: the folded term per output channel. */
RF_TEST(conv_integer_per_channel_zero_points)
{
    qcase q = QCASE(conv_pc, "ConvInteger", RF_DTYPE_U8, 2);
    q.strides = conv_pc_strides, q.pads = conv_pc_pads, q.dil = conv_pc_dilations;
    q.group = conv_pc_group;
    run_case(&q);
}

/* The same with xq read by the convolution only: quantised straight to u8 nhwc, the term's
 * channel sums read from it. */
RF_TEST(conv_integer_per_channel_u8_nhwc_input)
{
    qcase q = QCASE(conv_pc, "ConvInteger", RF_DTYPE_U8, 2);
    q.strides = conv_pc_strides, q.pads = conv_pc_pads, q.dil = conv_pc_dilations;
    q.group = conv_pc_group;
    q.hide_xq = 1;
    run_case(&q);
}

RF_TEST(conv_integer_groups_u8_nhwc_input_fused)
{
    qcase q = QCASE(conv_group, "ConvInteger", RF_DTYPE_U8, 2);
    q.strides = conv_group_strides, q.pads = conv_group_pads, q.dil = conv_group_dilations;
    q.group = conv_group_group;
    q.hide_xq = 1;
    WITH_POST(q, conv_group);
    run_case(&q);
}

/* One zero point (143), two groups, dilation 2 on H, uneven pads, stride 2 on W; then ONNX
 * Runtime's Cast, Mul, Add, Relu, fused into the finishing step. */
RF_TEST(conv_integer_groups_dilation_pads)
{
    qcase q = QCASE(conv_group, "ConvInteger", RF_DTYPE_U8, 2);
    q.strides = conv_group_strides, q.pads = conv_group_pads, q.dil = conv_group_dilations;
    q.group = conv_group_group;
    WITH_POST(q, conv_group);
    run_case(&q);
}

/* s8 weights whose zero point (-5) leaves them within s8: shifted once, no term. */
RF_TEST(conv_integer_s8_weights_shifted)
{
    qcase q = QCASE(conv_s8, "ConvInteger", RF_DTYPE_I8, 2);
    q.strides = conv_s8_strides, q.pads = conv_s8_pads, q.dil = conv_s8_dilations;
    q.group = conv_s8_group;
    run_case(&q);
}

RF_TEST(conv_integer_1d_per_channel)
{
    qcase q = QCASE(conv_1d, "ConvInteger", RF_DTYPE_U8, 1);
    q.strides = conv_1d_strides, q.pads = conv_1d_pads, q.dil = conv_1d_dilations;
    q.group = conv_1d_group;
    run_case(&q);
}

/* Rows of a rank-3 A, per-column zero points of B, then the fused chain. */
RF_TEST(matmul_integer_per_column_zero_points)
{
    qcase q = QCASE(matmul_pc, "MatMulInteger", RF_DTYPE_U8, 0);
    WITH_POST(q, matmul_pc);
    run_case(&q);
}
