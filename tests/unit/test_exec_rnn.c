/* test_exec_rnn.c — the executor's LSTM against a naive reference in oneDNN's gate order
 * (i, f, c, o) over the ONNX weight bytes (what op_rnn.c computes: the same work as ONNX's
 * order), with initial states and every output; GRU (plain and linear_before_reset) and a
 * bidirectional LSTM measured with their output shapes. */
#include "exec_tg.h"

static float sig(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

RF_TEST(lstm_against_reference)
{
    enum { T = 5, N = 2, I = 3, H = 4 };
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(T, N, I));
    uint32_t w = tens(&t, "W", RF_TENSOR_WEIGHT, D(1, 4 * H, I));
    uint32_t r = tens(&t, "R", RF_TENSOR_WEIGHT, D(1, 4 * H, H));
    uint32_t b = tens(&t, "B", RF_TENSOR_WEIGHT, D(1, 8 * H));
    uint32_t h0 = tens(&t, "h0", RF_TENSOR_INPUT, D(1, N, H)),
             c0 = tens(&t, "c0", RF_TENSOR_INPUT, D(1, N, H));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(T, 1, N, H));
    uint32_t yh = tens(&t, "yh", RF_TENSOR_OUTPUT, D(1, N, H)),
             yc = tens(&t, "yc", RF_TENSOR_OUTPUT, D(1, N, H));
    uint32_t li = 0, outs[3] = {y, yh, yc};
    uint32_t ins[7] = {x, w, r, b, RF_GRAPH_NO_TENSOR, h0, c0};
    rf_graph_add_layer(t.ctx, t.g, "lstm", "LSTM", ins, 7, outs, 3, &li);
    rf_graph_set_attr_int(t.ctx, t.g, li, "hidden_size", H);
    if (run(&t)) {
        expect_measured(&t, li, "onednn:lstm");
        float *xv = vals(&t, x, 0), *wv = vals(&t, w, 0), *rv = vals(&t, r, 0),
              *bv = vals(&t, b, 0);
        float *hv = vals(&t, h0, 0), *cv = vals(&t, c0, 0), ry[T * N * H];
        for (int s = 0; s < T; s++)
            for (int n = 0; n < N; n++) {
                float g[4][H], hn[H];
                for (int k = 0; k < 4; k++)
                    for (int o = 0; o < H; o++) {
                        double acc = bv[k * H + o];
                        for (int i = 0; i < I; i++)
                            acc += (double)wv[(k * H + o) * I + i] * xv[(s * N + n) * I + i];
                        for (int i = 0; i < H; i++)
                            acc += (double)rv[(k * H + o) * H + i] * hv[n * H + i];
                        g[k][o] = (float)acc;
                    }
                for (int o = 0; o < H; o++) {
                    float c = sig(g[1][o]) * cv[n * H + o] + sig(g[0][o]) * tanhf(g[2][o]);
                    cv[n * H + o] = c;
                    hn[o] = sig(g[3][o]) * tanhf(c);
                }
                memcpy(hv + n * H, hn, sizeof hn);
                memcpy(ry + (s * N + n) * H, hn, sizeof hn);
            }
        float *gy = out(&t, y), *gh = out(&t, yh), *gc = out(&t, yc);
        close_all("lstm Y", gy, ry, T * N * H);
        close_all("lstm Y_h", gh, hv, N * H);
        close_all("lstm Y_c", gc, cv, N * H);
        free(xv), free(wv), free(rv), free(bv), free(hv), free(cv), free(gy), free(gh), free(gc);
    }
    tg_free(&t);
}

RF_TEST(gru_and_bidirectional_lstm_measured)
{
    for (int k = 0; k < 3; k++) {
        tg t = tg_new();
        int64_t G = k == 2 ? 4 : 3, Dn = k == 2 ? 2 : 1;
        uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(6, 2, 5));
        uint32_t w = tens(&t, "W", RF_TENSOR_WEIGHT, D(Dn, G * 8, 5));
        uint32_t r = tens(&t, "R", RF_TENSOR_WEIGHT, D(Dn, G * 8, 8));
        uint32_t b = tens(&t, "B", RF_TENSOR_WEIGHT, D(Dn, 2 * G * 8));
        uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(6, Dn, 2, 8));
        uint32_t z = tens(&t, "z", RF_TENSOR_OUTPUT, D(6, Dn, 2, 8));
        uint32_t li = lay(&t, k == 2 ? "LSTM" : "GRU", IN(x, w, r, b), y);
        if (k == 1) rf_graph_set_attr_int(t.ctx, t.g, li, "linear_before_reset", 1);
        if (k == 2) rf_graph_set_attr_string(t.ctx, t.g, li, "direction", "bidirectional", 13);
        uint32_t l2 = lay(&t, "Relu", IN(y), z);
        if (run(&t)) {
            expect_measured(&t, li,
                            k == 0   ? "onednn:gru"
                            : k == 1 ? "onednn:lbr_gru"
                                     : "onednn:lstm");
            expect_measured(&t, l2, "onednn:eltwise");
        }
        tg_free(&t);
    }
}
