/* test_op_cost.c — rf_op_cost against the cost model's checks (docs/cost-model.md): ResNet-18's
 * conv1, a Linear with bias, BatchNorm, MaxPool, an unknown op, bad input. */
#include <roofline/roofline.h>

#include "rf_test.h"

RF_TEST(conv1_resnet18)
{
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    int64_t x[] = {1, 3, 224, 224}, w[] = {64, 3, 7, 7}, k[] = {7, 7}, s[] = {2, 2},
            p[] = {3, 3, 3, 3}, od[RF_GRAPH_MAX_RANK];
    rf_op_input in[] = {{RF_DTYPE_F32, 4, x, 0, NULL, 0}, {RF_DTYPE_F32, 4, w, 1, NULL, 0}};
    rf_attr at[] = {{"kernel_shape", RF_ATTR_INTS, 0, 0, NULL, k, NULL, 2},
                    {"strides", RF_ATTR_INTS, 0, 0, NULL, s, NULL, 2},
                    {"pads", RF_ATTR_INTS, 0, 0, NULL, p, NULL, 4}};
    rf_layer_cost c;
    uint32_t rank = 0;
    RF_EXPECT_INT(rf_op_cost(ctx, "Conv", in, 2, at, 3, &c, od, &rank), RF_OK);
    RF_EXPECT_DBL(c.flops, 236027904);
    RF_EXPECT_INT(rank, 4);
    RF_EXPECT_INT(od[2], 112);
    RF_EXPECT_DBL(c.weight_bytes, 64 * 3 * 49 * 4);
    RF_EXPECT_DBL(c.input_bytes, 3 * 224 * 224 * 4);
    RF_EXPECT_DBL(c.output_bytes, 64 * 112 * 112 * 4);
    RF_EXPECT_INT(c.params, 64 * 3 * 49);
    rf_ctx_free(ctx);
}

RF_TEST(linear_bn_pool_unknown)
{
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_layer_cost c;
    int64_t x[] = {8, 512}, w[] = {1000, 512}, b[] = {1000};
    rf_op_input lin[] = {{RF_DTYPE_F32, 2, x, 0, NULL, 0},
                         {RF_DTYPE_F32, 2, w, 1, NULL, 0},
                         {RF_DTYPE_F32, 1, b, 1, NULL, 0}};
    rf_attr tb = {"transB", RF_ATTR_INT, 1, 0, NULL, NULL, NULL, 0};
    RF_EXPECT_INT(rf_op_cost(ctx, "Gemm", lin, 3, &tb, 1, &c, NULL, NULL), RF_OK);
    RF_EXPECT_DBL(c.flops, 2.0 * 8 * 512 * 1000 + 8 * 1000);
    RF_EXPECT_DBL(c.bias_flops, 8 * 1000);
    int64_t y[] = {1, 64, 112, 112}, ch[] = {64};
    rf_op_input bn[] = {{RF_DTYPE_F32, 4, y, 0, NULL, 0},
                        {RF_DTYPE_F32, 1, ch, 1, NULL, 0},
                        {RF_DTYPE_F32, 1, ch, 1, NULL, 0},
                        {RF_DTYPE_F32, 1, ch, 1, NULL, 0},
                        {RF_DTYPE_F32, 1, ch, 1, NULL, 0}};
    RF_EXPECT_INT(rf_op_cost(ctx, "BatchNormalization", bn, 5, NULL, 0, &c, NULL, NULL), RF_OK);
    RF_EXPECT_DBL(c.flops, 2.0 * 64 * 112 * 112);
    int64_t k[] = {3, 3}, s[] = {2, 2}, p[] = {1, 1, 1, 1};
    rf_attr pa[] = {{"kernel_shape", RF_ATTR_INTS, 0, 0, NULL, k, NULL, 2},
                    {"strides", RF_ATTR_INTS, 0, 0, NULL, s, NULL, 2},
                    {"pads", RF_ATTR_INTS, 0, 0, NULL, p, NULL, 4}};
    RF_EXPECT_INT(rf_op_cost(ctx, "MaxPool", bn, 1, pa, 3, &c, NULL, NULL), RF_OK);
    RF_EXPECT_DBL(c.flops, 9.0 * 64 * 56 * 56);
    RF_EXPECT_INT(rf_op_cost(ctx, "NoSuchOp", bn, 1, NULL, 0, &c, NULL, NULL), RF_OK);
    RF_EXPECT_INT(c.known, 0);
    /* Resize to known sizes (input 3's values), bilinear on 2 axes: 2·2^2 per output element */
    int64_t img[] = {1, 3, 8, 8}, four[] = {4}, sizes[] = {1, 3, 16, 16};
    rf_op_input rs[] = {{RF_DTYPE_F32, 4, img, 0, NULL, 0},
                        {RF_DTYPE_UNKNOWN, 0, NULL, 0, NULL, 0},
                        {RF_DTYPE_UNKNOWN, 0, NULL, 0, NULL, 0},
                        {RF_DTYPE_I64, 1, four, 0, sizes, 4}};
    rf_attr lin_mode = {"mode", RF_ATTR_STRING, 0, 0, "linear", NULL, NULL, 0};
    int64_t od[RF_GRAPH_MAX_RANK];
    uint32_t rank = 0;
    RF_EXPECT_INT(rf_op_cost(ctx, "Resize", rs, 4, &lin_mode, 1, &c, od, &rank), RF_OK);
    RF_EXPECT_INT(rank, 4);
    RF_EXPECT_INT(od[3], 16);
    RF_EXPECT_DBL(c.flops, 8.0 * 3 * 16 * 16);
    int64_t neg[] = {-1};
    rf_op_input bad = {RF_DTYPE_F32, 1, neg, 0, NULL, 0};
    RF_EXPECT_INT(rf_op_cost(ctx, "Relu", &bad, 1, NULL, 0, &c, NULL, NULL), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "dim 0 is -1");
    rf_ctx_free(ctx);
}
