/* test_shape_range.c — shape inference and the cost model on hostile sizes (issue 11 item 2):
 * Conv pads near 2^62, ConvTranspose group/stride near 2^62, Slice steps of INT64_MAX/INT64_MIN
 * and negative steps from INT64_MAX, Concat and Pad sums past 2^63. Overflow is refused as
 * RF_RANGE naming the node; what can be computed exactly is. Graphs are built with the rf_graph
 * API, as the readers do; no fixture needed. */
#include <stdint.h>

#include "rf_test.h"
#include "roofline/roofline.h"

/* Setup steps that cannot fail unless the library is broken: stop the test process. */
#define TG_OK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) != RF_OK) {                                                                     \
            fprintf(stderr, "%s:%d: setup failed: %s\n", __FILE__, __LINE__, #expr);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct tg {
    rf_ctx *ctx;
    rf_graph *g;
} tg;

static void tg_open(tg *t)
{
    TG_OK(rf_ctx_new(&t->ctx, NULL));
    TG_OK(rf_graph_new(t->ctx, "test", &t->g));
}

static void tg_close(tg *t)
{
    rf_graph_free(t->g);
    rf_ctx_free(t->ctx);
}

static uint32_t tg_tensor(tg *t, const char *name, uint32_t rank, const int64_t *dims,
                          uint32_t flags)
{
    uint32_t i = 0;
    TG_OK(rf_graph_add_tensor(t->ctx, t->g, name, RF_DTYPE_F32, rank, dims, flags, &i));
    return i;
}

static uint32_t tg_values(tg *t, const char *name, const int64_t *v, uint32_t n)
{
    int64_t d = n;
    uint32_t i = 0;
    TG_OK(rf_graph_add_tensor(t->ctx, t->g, name, RF_DTYPE_I64, 1, &d, RF_TENSOR_WEIGHT, &i));
    TG_OK(rf_graph_set_values(t->ctx, t->g, i, v, n));
    return i;
}

static uint32_t tg_layer(tg *t, const char *name, const char *op, const uint32_t *in, uint32_t nin,
                         uint32_t out)
{
    uint32_t li = 0;
    TG_OK(rf_graph_add_layer(t->ctx, t->g, name, op, in, nin, &out, 1, &li));
    return li;
}

/* Infer; expect RF_RANGE naming the node. */
static void expect_range(tg *t, const char *node)
{
    rf_status st = rf_graph_infer_shapes(t->ctx, t->g, NULL, 0);
    RF_EXPECT_INT(st, RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(t->ctx), node);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(t->ctx), "overflows");
}

static const int64_t x4[4] = {1, 3, 8, 8};

RF_TEST(conv_pads_near_2p62)
{
    tg t;
    tg_open(&t);
    int64_t wd[4] = {4, 3, 3, 3};
    uint32_t in[2] = {tg_tensor(&t, "x", 4, x4, RF_TENSOR_INPUT),
                      tg_tensor(&t, "w", 4, wd, RF_TENSOR_WEIGHT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "conv_big_pads", "Conv", in, 2, y);
    int64_t pads[4] = {1ll << 62, 1ll << 62, 1ll << 62, 1ll << 62};
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "pads", pads, 4));
    expect_range(&t, "conv_big_pads");
    /* INT64_MAX twice wraps to a small positive size (8 + 2·(2^63-1) = 6 mod 2^64): no "3x3" */
    int64_t maxpads[4] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "pads", maxpads, 4));
    expect_range(&t, "conv_big_pads");
    tg_close(&t);
}

RF_TEST(conv_dilation_near_2p62)
{
    tg t;
    tg_open(&t);
    int64_t wd[4] = {4, 3, 3, 3};
    uint32_t in[2] = {tg_tensor(&t, "x", 4, x4, RF_TENSOR_INPUT),
                      tg_tensor(&t, "w", 4, wd, RF_TENSOR_WEIGHT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "conv_dil", "Conv", in, 2, y);
    int64_t dil[2] = {1ll << 62, 1ll << 62};
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "dilations", dil, 2));
    expect_range(&t, "conv_dil");
    tg_close(&t);
}

RF_TEST(pool_ceil_stride_int64_max)
{
    tg t;
    tg_open(&t);
    int64_t xd[4] = {1, 3, INT64_MAX, 8};
    uint32_t in = tg_tensor(&t, "x", 4, xd, RF_TENSOR_INPUT);
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "pool", "MaxPool", &in, 1, y);
    int64_t k[2] = {1, 1}, s[2] = {INT64_MAX, INT64_MAX};
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "kernel_shape", k, 2));
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "strides", s, 2));
    TG_OK(rf_graph_set_attr_int(t.ctx, t.g, li, "ceil_mode", 1));
    RF_EXPECT_INT(rf_graph_infer_shapes(t.ctx, t.g, NULL, 0), RF_OK);
    /* ceil((2^63-1 - 1) / (2^63-1)) + 1 = 2; ceil(7 / (2^63-1)) + 1 = 2 */
    RF_EXPECT_INT(t.g->tensors[y].dims[2], 2);
    RF_EXPECT_INT(t.g->tensors[y].dims[3], 2);
    tg_close(&t);
}

RF_TEST(conv_transpose_group_near_2p62)
{
    tg t;
    tg_open(&t);
    int64_t wd[4] = {3, 3, 3, 3};
    uint32_t in[2] = {tg_tensor(&t, "x", 4, x4, RF_TENSOR_INPUT),
                      tg_tensor(&t, "w", 4, wd, RF_TENSOR_WEIGHT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "deconv_group", "ConvTranspose", in, 2, y);
    TG_OK(rf_graph_set_attr_int(t.ctx, t.g, li, "group", 1ll << 62));
    expect_range(&t, "deconv_group");
    /* 3 · 0x5555555555555556 = 2^64 + 2 wraps to 2 output channels */
    TG_OK(rf_graph_set_attr_int(t.ctx, t.g, li, "group", 0x5555555555555556ll));
    expect_range(&t, "deconv_group");
    tg_close(&t);
}

RF_TEST(conv_transpose_stride_near_2p62)
{
    tg t;
    tg_open(&t);
    int64_t wd[4] = {3, 2, 3, 3};
    uint32_t in[2] = {tg_tensor(&t, "x", 4, x4, RF_TENSOR_INPUT),
                      tg_tensor(&t, "w", 4, wd, RF_TENSOR_WEIGHT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "deconv_stride", "ConvTranspose", in, 2, y);
    int64_t s[2] = {1ll << 62, 1ll << 62};
    TG_OK(rf_graph_set_attr_ints(t.ctx, t.g, li, "strides", s, 2));
    expect_range(&t, "deconv_stride");
    tg_close(&t);
}

/* Slice over axis 1 of x[1, dim] with (start, end, step); returns the inferred size or -1. */
static int64_t slice_dim(int64_t dim, int64_t start, int64_t end, int64_t step)
{
    tg t;
    tg_open(&t);
    int64_t xd[2] = {1, dim}, axis = 1;
    uint32_t in[5] = {tg_tensor(&t, "x", 2, xd, RF_TENSOR_INPUT), tg_values(&t, "s", &start, 1),
                      tg_values(&t, "e", &end, 1), tg_values(&t, "a", &axis, 1),
                      tg_values(&t, "p", &step, 1)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    tg_layer(&t, "slice", "Slice", in, 5, y);
    int64_t r = -1;
    if (rf_graph_infer_shapes(t.ctx, t.g, NULL, 0) == RF_OK && t.g->tensors[y].shape_known)
        r = t.g->tensors[y].dims[1];
    tg_close(&t);
    return r;
}

RF_TEST(slice_steps_at_the_int64_limits)
{
    RF_EXPECT_INT(slice_dim(8, 0, 8, 3), 3);
    RF_EXPECT_INT(slice_dim(8, 0, INT64_MAX, INT64_MAX), 1);
    RF_EXPECT_INT(slice_dim(INT64_MAX, 0, INT64_MAX, INT64_MAX), 1);
    RF_EXPECT_INT(slice_dim(INT64_MAX, 0, INT64_MAX, 1), INT64_MAX);
    RF_EXPECT_INT(slice_dim(8, INT64_MAX, INT64_MIN, -1), 8);
    RF_EXPECT_INT(slice_dim(INT64_MAX, INT64_MAX, INT64_MIN, -1), INT64_MAX);
    RF_EXPECT_INT(slice_dim(INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN), 1);
    RF_EXPECT_INT(slice_dim(8, -1, INT64_MIN, -3), 3);
}

RF_TEST(concat_sum_past_2p63)
{
    tg t;
    tg_open(&t);
    int64_t big[2] = {1, (1ll << 62) + (1ll << 61)};
    uint32_t in[2] = {tg_tensor(&t, "a", 2, big, RF_TENSOR_INPUT),
                      tg_tensor(&t, "b", 2, big, RF_TENSOR_INPUT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "concat_big", "Concat", in, 2, y);
    TG_OK(rf_graph_set_attr_int(t.ctx, t.g, li, "axis", 1));
    expect_range(&t, "concat_big");
    tg_close(&t);
}

RF_TEST(pad_sum_past_2p63)
{
    tg t;
    tg_open(&t);
    int64_t pads[8] = {0, 0, INT64_MAX, 1, 0, 0, INT64_MAX, 1};
    uint32_t in[2] = {tg_tensor(&t, "x", 4, x4, RF_TENSOR_INPUT), tg_values(&t, "p", pads, 8)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    tg_layer(&t, "pad_big", "Pad", in, 2, y);
    expect_range(&t, "pad_big");
    tg_close(&t);
}

RF_TEST(overflow_message_stays_one_line)
{
    tg t;
    tg_open(&t);
    int64_t big[2] = {1, INT64_MAX};
    uint32_t in[2] = {tg_tensor(&t, "a", 2, big, RF_TENSOR_INPUT),
                      tg_tensor(&t, "b", 2, big, RF_TENSOR_INPUT)};
    uint32_t y = tg_tensor(&t, "y", UINT32_MAX, NULL, 0);
    uint32_t li = tg_layer(&t, "evil\n\x1b[2Jname", "Concat", in, 2, y);
    TG_OK(rf_graph_set_attr_int(t.ctx, t.g, li, "axis", 1));
    expect_range(&t, "evil??[2Jname");
    for (const char *p = rf_ctx_errmsg(t.ctx); *p; p++) RF_EXPECT((unsigned char)*p >= 0x20);
    tg_close(&t);
}
