/* markers.c — your own code on the roofline: a blocked matrix multiply and a STREAM triad, each a
 * marker region with its FLOPs and bytes (docs/cost-model.md: every matrix once; the triad reads
 * b and c and writes a). Built with ROOFLINE_MARKERS; run it under `roofline run -- ./markers`
 * (or with ROOFLINE_OUTPUT=regions.json, then `roofline plot regions.json`). Without
 * ROOFLINE_MARKERS the same source builds with the markers compiled out. */
#ifndef ROOFLINE_MARKERS /* or -DROOFLINE_MARKERS, as docs/markers.md builds it */
#define ROOFLINE_MARKERS
#endif
#include <roofline/roofline.h>

#include <stdio.h>
#include <stdlib.h>

#define BLOCK 32

/* C += A·B for n×n row-major matrices, in BLOCK×BLOCK tiles. */
static void gemm_blocked(size_t n, const double *a, const double *b, double *c)
{
    for (size_t i0 = 0; i0 < n; i0 += BLOCK)
        for (size_t k0 = 0; k0 < n; k0 += BLOCK)
            for (size_t j0 = 0; j0 < n; j0 += BLOCK)
                for (size_t i = i0; i < i0 + BLOCK && i < n; i++)
                    for (size_t k = k0; k < k0 + BLOCK && k < n; k++) {
                        double aik = a[i * n + k];
                        for (size_t j = j0; j < j0 + BLOCK && j < n; j++)
                            c[i * n + j] += aik * b[k * n + j];
                    }
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    size_t len = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000000;
    int reps = 5;
    if (n == 0 || n > 4096 || len == 0 || len > 100000000) {
        fprintf(stderr, "usage: markers [N (1..4096)] [LENGTH (1..1e8)]\n");
        return 2;
    }
    double *a = malloc(n * n * sizeof *a), *b = malloc(n * n * sizeof *b),
           *c = calloc(n * n, sizeof *c);
    double *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y), *z = malloc(len * sizeof *z);
    if (!a || !b || !c || !x || !y || !z) {
        fprintf(stderr, "markers: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < n * n; i++) a[i] = 1.0 / (double)(i + 1), b[i] = (double)(i % 7);
    for (size_t i = 0; i < len; i++) x[i] = 0.0, y[i] = 1.0, z[i] = 2.0; /* pages touched */

    for (int r = 0; r < reps; r++) {
        RF_REGION_BEGIN("gemm_blocked");
        gemm_blocked(n, a, b, c);
        RF_REGION_END("gemm_blocked");
        RF_REGION_ADD("gemm_blocked", 2.0 * n * n * n, 3.0 * n * n * sizeof(double));

        RF_REGION_BEGIN("stream_triad");
        for (size_t i = 0; i < len; i++) x[i] = y[i] + 3.0 * z[i];
        RF_REGION_END("stream_triad");
        RF_REGION_ADD("stream_triad", 2.0 * len, 3.0 * len * sizeof(double));
    }
    printf("markers: c[0] = %g, x[0] = %g\n", c[0], x[0]); /* the program's own output */
    free(a), free(b), free(c), free(x), free(y), free(z);
    return 0;
}
