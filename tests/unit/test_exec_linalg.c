/* test_exec_linalg.c — Det, the op added through the op registry alone (a row, a cost section, a
 * kernel): its shape and cost rules on a batch, and the executor's LAPACK kernel against a naive
 * cofactor expansion, with a singular matrix and row swaps (the permutation's sign). */
#include "exec_tg.h"

/* Determinant by cofactor expansion along row 0 (n <= 5). */
static double det_ref(const float *a, int n)
{
    if (n == 1) return a[0];
    double d = 0;
    float m[25];
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                if (j != c) m[k++] = a[i * n + j];
        d += (c % 2 ? -1.0 : 1.0) * a[c] * det_ref(m, n - 1);
    }
    return d;
}

RF_TEST(det_rules_shape_and_flops)
{
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(4, 3, 3));
    uint32_t y = RF_GRAPH_NO_TENSOR;
    rf_graph_add_tensor(t.ctx, t.g, "y", RF_DTYPE_F32, 0, NULL, 0, &y);
    t.g->tensors[y].shape_known = 0;
    uint32_t li = lay(&t, "Det", IN(x), y);
    RF_EXPECT_INT(t.g->layers[li].kind, RF_OP_MATMUL);
    RF_EXPECT_INT(rf_graph_infer_shapes(t.ctx, t.g, NULL, 0), RF_OK);
    RF_EXPECT_INT(t.g->tensors[y].rank, 1);
    RF_EXPECT_INT(t.g->tensors[y].dims[0], 4);
    rf_cost *c = NULL;
    RF_EXPECT_INT(rf_graph_cost(t.ctx, t.g, &c), RF_OK);
    if (c) { /* docs/cost-model.md, "Det": 4 · (18 + 3) */
        RF_EXPECT_INT(c->layers[li].known, 1);
        RF_EXPECT(c->layers[li].flops == 84.0);
    }
    rf_cost_free(c);
    tg_free(&t);
}

RF_TEST(det_kernel_against_cofactors)
{
    const int n = 4, batch = 5;
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(batch, n, n));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(batch));
    uint32_t li = lay(&t, "Det", IN(x), y);
    if (run(&t)) {
        expect_measured(&t, li, "lapack:sgetrf");
        float *xv = vals(&t, x, 0), *g = out(&t, y), r[5];
        for (int b = 0; b < batch; b++) r[b] = (float)det_ref(xv + b * n * n, n);
        close_all("det", g, r, batch);
        free(xv), free(g);
    }
    tg_free(&t);
}

/* Fixed matrices through the kernel itself: a permutation (sign -1), a singular one. */
RF_TEST(det_kernel_sign_and_singular)
{
    float a[3][9] = {{0, 1, 0, 1, 0, 0, 0, 0, 1},  /* one swap: -1 */
                     {1, 2, 3, 2, 4, 6, 0, 1, 5},  /* rows 0 and 1 dependent: 0 */
                     {2, 0, 0, 0, 3, 0, 4, 0, 5}}; /* lower triangular: 30 */
    float y[3], scratch[12];
    float *ptr[3] = {&a[0][0], y, scratch};
    rf__xstep s;
    memset(&s, 0, sizeof s);
    s.ptr = ptr;
    s.c.inner = 3;
    s.c.outer = 3;
    tg t = tg_new();
    uint32_t x = tens(&t, "x", RF_TENSOR_INPUT, D(3, 3, 3));
    uint32_t yy = tens(&t, "y", RF_TENSOR_OUTPUT, D(3));
    uint32_t li = lay(&t, "Det", IN(x), yy);
    if (run(&t)) { /* the planned step's kernel, on these matrices */
        for (size_t k = 0; k < t.p->n_steps; k++)
            if (t.p->steps[k].layer == li && t.p->steps[k].cfn) t.p->steps[k].cfn(&s);
        RF_EXPECT(fabsf(y[0] + 1) < 1e-6f);
        RF_EXPECT(fabsf(y[1]) < 1e-6f);
        RF_EXPECT(fabsf(y[2] - 30) < 1e-5f);
    }
    tg_free(&t);
}
