/* ocl_compute.c — compute ceilings of an OpenCL device: FMA chains for every precision the device
 * supports (fp32; fp64 with cl_khr_fp64; fp16 with cl_khr_fp16) and int8 dot products where an
 * extension exposes them, each over vector widths (1 and the native width quick, 1 to 16 full),
 * the best width kept: "fp32.fma.opencl", ..., "int8.dot.opencl" (OP/s). */
#include <stdio.h>
#include <string.h>

#include "probe/ocl_int.h"

#define RF__OCL_SRC_MAX 8192

typedef struct rf__fma_job {
    cl_kernel k;
    size_t grid, wg;
} rf__fma_job;

static rf_status rf__fma_op(rf__ocl_run *run, void *arg, uint64_t units, double *seconds)
{
    rf__fma_job *j = arg;
    RF_CHECK(run->ctx, units < (1u << 30), RF_INTERNAL, "opencl: FMA iterations overflow");
    cl_int iters = (cl_int)units;
    cl_int e = clSetKernelArg(j->k, 3, sizeof iters, &iters);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clSetKernelArg", e);
    return rf__ocl_launch(run, j->k, j->grid, j->wg, seconds);
}

/* One precision at one width: build, set the arguments, time. RF_UNSUPPORTED (quietly skipped by
 * the caller) when an optional precision does not build. */
static rf_status rf__fma_width(rf__ocl_run *run, const char *prec, unsigned width, cl_mem out,
                               rf__stats *s)
{
    char src[RF__OCL_SRC_MAX];
    int kind = run->rep->device.int8_dot;
    int is_int8 = strcmp(prec, "int8") == 0;
    unsigned chains = width >= 16 ? 8 : 16;
    RF_TRY(rf__ocl_src_fma(run->ctx, prec, kind, width, chains, src, sizeof src));
    cl_program p = NULL;
    rf_status st = rf__ocl_build(run, src, is_int8 && kind == 1 ? "-cl-std=CL3.0" : "", &p);
    if (st != RF_OK && strcmp(prec, "fp32") != 0) {
        rf__log(run->ctx, RF_LOG_WARN, "peaks: %s at width %u skipped: %s", prec, width,
                rf_ctx_errmsg(run->ctx));
        rf_ctx_clear_error(run->ctx);
        return RF_UNSUPPORTED;
    }
    RF_TRY(st);
    cl_int e;
    rf__fma_job j = {clCreateKernel(p, "chains", &e), run->grid, run->wg};
    if (e != CL_SUCCESS) {
        clReleaseProgram(p);
        return rf__ocl_fail(run->ctx, "clCreateKernel", e);
    }
    float fa = 0.9990234375f, fb = 1.0f - 0.9990234375f;
    cl_int ia = 3, ib = (cl_int)0xff01ff01u; /* int8: bytes (1, -1, 1, -1) */
    e = clSetKernelArg(j.k, 0, sizeof out, &out);
    if (e == CL_SUCCESS) e = clSetKernelArg(j.k, 1, 4, is_int8 ? (void *)&ia : (void *)&fa);
    if (e == CL_SUCCESS) e = clSetKernelArg(j.k, 2, 4, is_int8 ? (void *)&ib : (void *)&fb);
    uint64_t iters = 64;
    /* A multiply-add is 2 FLOP; a 4 x 8-bit dot product with its accumulation 8 OP. */
    double per_iter = (double)run->grid * chains * (is_int8 ? 8.0 : 2.0 * width);
    st = e == CL_SUCCESS ? rf__ocl_bench(run, rf__fma_op, &j, per_iter, &iters, s)
                         : rf__ocl_fail(run->ctx, "clSetKernelArg", e);
    clReleaseKernel(j.k);
    clReleaseProgram(p);
    return st;
}

/* Widths to try for precision index `pi` (0 fp32, 1 fp64, 2 fp16, 3 int8). */
static size_t rf__fma_widths(const rf__ocl_run *run, int pi, unsigned *w)
{
    if (pi == 3) {
        w[0] = 1;
        return 1;
    }
    if (!run->opts->quick) {
        for (unsigned i = 0; i < 5; i++) w[i] = 1u << i;
        return 5;
    }
    unsigned nat = run->rep->device.native_width[pi];
    size_t n = 0;
    w[n++] = 1;
    if (nat == 2 || nat == 4 || nat == 8 || nat == 16) w[n++] = nat;
    return n;
}

static rf_status rf__fma_precision(rf__ocl_run *run, int pi, cl_mem out)
{
    static const char *const precs[4] = {"fp32", "fp64", "fp16", "int8"};
    const char *prec = precs[pi];
    unsigned widths[5], best_w = 0;
    size_t nw = rf__fma_widths(run, pi, widths);
    rf__stats best, s;
    memset(&best, 0, sizeof best);
    char what[64], parts[160] = "", v[32];
    size_t len = 0;
    snprintf(what, sizeof what, "%s %s, %zu vector width%s", prec, pi == 3 ? "dot" : "FMA", nw,
             nw > 1 ? "s" : "");
    rf__ocl_progress(run, what);
    for (size_t i = 0; i < nw; i++) {
        rf_status st = rf__fma_width(run, prec, widths[i], out, &s);
        if (st == RF_UNSUPPORTED) continue;
        RF_TRY(st);
        rf__appendf(parts, sizeof parts, &len, "%s%u: %s", len ? ", " : "", widths[i],
                    rf_si_format_compact(v, sizeof v, s.best, ""));
        if (s.best > best.best) {
            best = s;
            best_w = widths[i];
        }
    }
    if (!best_w) return RF_OK; /* an optional precision that did not build: said in the log */
    char name[RF_NAME_MAX], note[RF_TEXT_MAX];
    snprintf(name, sizeof name, "%s.%s.opencl", prec, pi == 3 ? "dot" : "fma");
    snprintf(note, sizeof note, "%u x %u chains/work-item, %zu items; CV %.1f%%; width %s%s",
             best_w, best_w >= 16 ? 8u : 16u, run->grid, 100 * best.cv, parts,
             pi == 3 ? "; OP/s" : "");
    return rf__ocl_add(run, name, RF_CEILING_COMPUTE, &best,
                       "roofline peaks --device: independent FMA chains per work-item "
                       "(mixbench's method), best vector width",
                       note);
}

rf_status rf__ocl_compute(rf__ocl_run *run)
{
    const rf_ocl_device *d = &run->rep->device;
    cl_int e;
    cl_mem out = clCreateBuffer(run->cl, CL_MEM_WRITE_ONLY, run->grid * 8, NULL, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateBuffer", e);
    int have[4] = {1, d->fp64, d->fp16, d->int8_dot != 0};
    rf_status st = RF_OK;
    for (int pi = 0; pi < 4 && st == RF_OK; pi++)
        if (have[pi]) st = rf__fma_precision(run, pi, out);
    clReleaseMemObject(out);
    return st;
}
