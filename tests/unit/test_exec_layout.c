/* test_exec_layout.c — the executor's layouts: oneDNN's blocked layouts flowing between layers
 * and reordered (timed extra layers) where a plain tensor is needed, a blocked tensor plus a
 * per-channel constant, Gemm with a full C, and a weight reached through a view packed once. */
#include "exec_tg.h"

/* Conv -> Relu -> Add(skip) -> GlobalAveragePool -> Flatten: blocked layouts flow between
 * oneDNN layers and are reordered for the C view; the result is still right. */
RF_TEST(conv_chain_layouts_and_reorders)
{
    tg t = tg_new();
    convp q = {1, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 8, 8};
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 16, 8, 8));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(16, 16, 3, 3));
    uint32_t c = tens(&t, "c", 0, D(1, 16, 8, 8)), r = tens(&t, "r", 0, D(1, 16, 8, 8));
    uint32_t s = tens(&t, "s", 0, D(1, 16, 8, 8)), gp = tens(&t, "gp", 0, D(1, 16, 1, 1));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 16));
    uint32_t l0 = lay(&t, "Conv", IN(x, w), c);
    ints(&t, l0, "pads", D(1, 1, 1, 1));
    lay(&t, "Relu", IN(c), r);
    lay(&t, "Add", IN(r, x), s);
    uint32_t l3 = lay(&t, "GlobalAveragePool", IN(s), gp);
    uint32_t l4 = lay(&t, "Flatten", IN(gp), y);
    if (run(&t)) {
        expect_measured(&t, l3, "onednn:pooling");
        expect_measured(&t, l4, "c:view");
        RF_EXPECT_INT(t.p->layers[2].fused_into, 0); /* Relu and Add(skip) run in the conv */
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *got = out(&t, y);
        float cv[16 * 64], ref[16];
        conv_ref(&q, xv, wv, NULL, cv);
        for (int o = 0; o < 16; o++) {
            double acc = 0;
            for (int i = 0; i < 64; i++)
                acc += (cv[o * 64 + i] > 0 ? cv[o * 64 + i] : 0) + xv[o * 64 + i];
            ref[o] = (float)(acc / 64);
        }
        close_all("chain", got, ref, 16);
        free(xv), free(wv), free(got);
    }
    tg_free(&t);
}

/* A conv's output (oneDNN's layout) plus a per-channel [C,1,1] constant, and Gemm with a full
 * [M,N] C and no transposes. */
RF_TEST(blocked_plus_channel_broadcast_and_gemm_full_c)
{
    tg t = tg_new();
    convp q = {1, 16, 6, 6, 32, 1, 1, 1, 1, 1, 1, 1, 0, 0, 6, 6};
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 16, 6, 6));
    uint32_t w = tens(&t, "w", RF_TENSOR_WEIGHT, D(32, 16, 1, 1));
    uint32_t c = tens(&t, "c", 0, D(1, 32, 6, 6)), k = tens(&t, "k", RF_TENSOR_WEIGHT, D(32, 1, 1));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 32, 6, 6));
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(3, 4)),
             bb = tens(&t, "bb", RF_TENSOR_WEIGHT, D(4, 5));
    uint32_t cc = tens(&t, "cc", RF_TENSOR_WEIGHT, D(3, 5)),
             z = tens(&t, "z", RF_TENSOR_OUTPUT, D(3, 5));
    lay(&t, "Conv", IN(x, w), c);
    uint32_t l1 = lay(&t, "Add", IN(c, k), y);
    uint32_t l2 = lay(&t, "Gemm", IN(a, bb, cc), z);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[l1].measured, 1);
        expect_measured(&t, l2, "onednn:matmul");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *kv = vals(&t, k, 0);
        float *av = vals(&t, a, 0), *bv = vals(&t, bb, 0), *cv = vals(&t, cc, 0);
        float *gy = out(&t, y), *gz = out(&t, z), ry[32 * 36], rz[15];
        conv_ref(&q, xv, wv, NULL, ry);
        for (int i = 0; i < 32 * 36; i++) ry[i] += kv[i / 36];
        for (int m = 0; m < 3; m++)
            for (int n = 0; n < 5; n++) {
                double acc = cv[m * 5 + n];
                for (int j = 0; j < 4; j++) acc += (double)av[m * 4 + j] * bv[j * 5 + n];
                rz[m * 5 + n] = (float)acc;
            }
        close_all("conv + channel", gy, ry, 32 * 36);
        close_all("gemm full C", gz, rz, 15);
        free(xv), free(wv), free(kv), free(av), free(bv), free(cv), free(gy), free(gz);
    }
    tg_free(&t);
}

/* A weight reached through a Reshape is still packed once before the passes (no timed
 * reorder), and the conv reads it right. */

RF_TEST(weight_through_view_is_packed_once)
{
    tg t = tg_new();
    convp q = {1, 8, 5, 5, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 5, 5};
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(1, 8, 5, 5));
    uint32_t wf = tens(&t, "wf", RF_TENSOR_WEIGHT, D(16, 72));
    uint32_t w = tens(&t, "w", 0, D(16, 8, 3, 3)),
             y = tens(&t, "y", RF_TENSOR_OUTPUT, D(1, 16, 5, 5));
    lay(&t, "Reshape", IN(wf), w);
    uint32_t li = lay(&t, "Conv", IN(x, w), y);
    ints(&t, li, "pads", D(1, 1, 1, 1));
    if (run(&t)) {
        expect_measured(&t, li, "onednn:convolution");
        for (size_t e = 0; e < t.p->n_extra; e++)
            RF_EXPECT(strstr(t.p->extra[e].name, "reorder:w") == NULL ||
                      !strcmp(t.p->extra[e].name, "reorder:x"));
        float *xv = vals(&t, x, 0), *wv = vals(&t, wf, 0), *got = out(&t, y), ref[16 * 25];
        conv_ref(&q, xv, wv, NULL, ref);
        close_all("conv via view", got, ref, 16 * 25);
        free(xv), free(wv), free(got);
    }
    tg_free(&t);
}
