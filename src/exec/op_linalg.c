/* op_linalg.c — the executor's linear-algebra ops: Det, each matrix of a batch factorised by
 * LAPACK's sgetrf (OpenBLAS ships LAPACK) in a scratch copy, the determinant the product of the
 * pivots with the permutation's sign. */
#include <string.h>

#include "exec/exec_int.h"

/* LAPACK (Fortran interface, in libopenblas). */
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);

/* ptr[0]: the batch [outer, n, n]; ptr[1]: the determinants [outer]; ptr[2]: scratch, one matrix
 * and its pivots. Row-major input read as column-major is the transpose: the same determinant. */
static void det(const rf__xstep *s)
{
    const float *x = s->ptr[0];
    float *y = s->ptr[1], *a = s->ptr[2];
    int n = (int)s->c.inner, info = 0;
    int *piv = (int *)(a + (size_t)n * (size_t)n);
    for (int64_t b = 0; b < s->c.outer; b++) {
        memcpy(a, x + b * (int64_t)n * n, (size_t)n * (size_t)n * sizeof *a);
        sgetrf_(&n, &n, a, &n, piv, &info);
        double d = 1.0; /* info > 0: a zero pivot, the matrix is singular */
        for (int i = 0; i < n && info == 0; i++) d *= (piv[i] != i + 1 ? -1.0 : 1.0) * a[i * n + i];
        y[b] = info == 0 ? (float)d : 0.0f;
    }
}

rf_status rf__xop_det(rf__xplan *p, uint32_t li)
{
    const rf_layer *l = &p->g->layers[li];
    uint32_t xu, Y = l->outputs[0], tmp;
    RF_TRY(rf__xtensor_plain(p, li, l->inputs[0], &xu));
    const rf__xtensor *x = &p->t[xu];
    int64_t n = x->rank >= 2 ? x->dims[x->rank - 1] : 0;
    if (x->rank < 2 || n != x->dims[x->rank - 2] || n <= 0 || n > 4096 ||
        rf__xtensor_elems(&p->t[Y]) * (uint64_t)n * (uint64_t)n != rf__xtensor_elems(x)) {
        rf__xlayer_unmeasured(p, li,
                              "Det of something other than a batch of square matrices up to 4096");
        return RF_OK;
    }
    rf__xkernel_args c;
    memset(&c, 0, sizeof c);
    c.inner = n;
    c.outer = (int64_t)rf__xtensor_elems(&p->t[Y]);
    rf__xtensor scratch = {0};
    scratch.rank = 1; /* one matrix and its pivots (ints, as floats' room) */
    scratch.dims[0] = n * n + n;
    RF_TRY(rf__xtensor_add(p, &scratch, &tmp));
    dnnl_memory_desc_t md;
    rf__xdesc_plain(&md, 1, p->t[tmp].dims);
    rf__xtensor_define(p, tmp, &md);
    uint32_t io[3] = {xu, Y, tmp};
    rf__xlayer_measured(p, li, "lapack:sgetrf");
    return rf__xstep_add_kernel(p, li, det, io, 3, 1, &c);
}
