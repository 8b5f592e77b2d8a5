/* ocl_gemm.c — the achievable-GEMM ceiling of an OpenCL device: CLBlast's SGEMM (Debian's
 * libclblast-dev) on square row-major matrices grown until one call lasts the minimum time, timed
 * on the host clock around the queue (CLBlast may enqueue several kernels per call). A line below
 * the roof, "fp32.gemm.clblast", as fp32.gemm.openblas is on the CPU. Skipped (said in the log)
 * when the library was built without CLBlast. */
#include <stdio.h>
#include <string.h>

#include "probe/ocl_int.h"

#ifdef RF_HAVE_CLBLAST
#include <clblast_c.h>

#define RF__GEMM_MAX_N 8192

typedef struct rf__gemm_job {
    cl_mem a, b, c;
    size_t n;
} rf__gemm_job;

static rf_status rf__gemm_op(rf__ocl_run *run, void *arg, uint64_t units, double *seconds)
{
    rf__gemm_job *j = arg;
    double t0 = rf__now_s();
    for (uint64_t u = 0; u < units; u++) {
        CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                                           CLBlastTransposeNo, j->n, j->n, j->n, 1.0f, j->a, 0,
                                           j->n, j->b, 0, j->n, 0.0f, j->c, 0, j->n, &run->q, NULL);
        RF_CHECK(run->ctx, s == CLBlastSuccess, RF_INTERNAL, "opencl: CLBlastSgemm failed (%d)",
                 (int)s);
    }
    cl_int e = clFinish(run->q);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clFinish after CLBlastSgemm", e);
    *seconds = rf__now_s() - t0;
    return RF_OK;
}

static void rf__gemm_free(rf__gemm_job *j)
{
    if (j->a) clReleaseMemObject(j->a);
    if (j->b) clReleaseMemObject(j->b);
    if (j->c) clReleaseMemObject(j->c);
    memset(j, 0, sizeof *j);
}

static rf_status rf__gemm_alloc(rf__ocl_run *run, rf__gemm_job *j, size_t n)
{
    cl_int e;
    size_t bytes = n * n * sizeof(float);
    float fill = 0.5f;
    j->n = n;
    j->a = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e == CL_SUCCESS) j->b = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e == CL_SUCCESS) j->c = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(run->q, j->a, &fill, sizeof fill, 0, bytes, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(run->q, j->b, &fill, sizeof fill, 0, bytes, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clFinish(run->q);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "allocating the GEMM matrices", e);
    return RF_OK;
}

/* The size: doubled from 256 while one call is under the minimum time and three matrices fit. */
static rf_status rf__gemm_size(rf__ocl_run *run, rf__gemm_job *j)
{
    const rf_ocl_device *d = &run->rep->device;
    for (size_t n = 256;; n *= 2) {
        double t = 0;
        RF_TRY(rf__gemm_alloc(run, j, n));
        RF_TRY(rf__gemm_op(run, j, 1, &t)); /* the first call compiles CLBlast's kernels */
        if (n == 256) RF_TRY(rf__gemm_op(run, j, 1, &t));
        uint64_t next = (uint64_t)(2 * n) * (2 * n) * sizeof(float);
        int fits = (!d->max_alloc_bytes || next <= d->max_alloc_bytes) &&
                   (!d->global_mem_bytes || 3 * next <= d->global_mem_bytes / 2);
        if (t >= run->min_time_s || 2 * n > RF__GEMM_MAX_N || !fits) return RF_OK;
        rf__gemm_free(j);
    }
}

rf_status rf__ocl_gemm(rf__ocl_run *run)
{
    rf__gemm_job j;
    memset(&j, 0, sizeof j);
    rf__ocl_progress(run, "fp32.gemm.clblast (the first call builds CLBlast's kernels)");
    rf__stats s;
    uint64_t units = 1;
    rf_status st = rf__gemm_size(run, &j);
    if (st == RF_OK)
        st = rf__ocl_bench(run, rf__gemm_op, &j, 2.0 * (double)j.n * (double)j.n * (double)j.n,
                           &units, &s);
    if (st == RF_OK) {
        char note[RF_TEXT_MAX];
        snprintf(note, sizeof note, "achievable, not a roof: CLBlastSgemm %zu x %zu; CV %.1f%%",
                 j.n, j.n, 100 * s.cv);
        st = rf__ocl_add(run, "fp32.gemm.clblast", RF_CEILING_COMPUTE, &s,
                         "roofline peaks --device: CLBlast SGEMM, square row-major", note);
    }
    rf__gemm_free(&j);
    return st;
}

#else

rf_status rf__ocl_gemm(rf__ocl_run *run)
{
    rf__log(run->ctx, RF_LOG_INFO,
            "peaks: no GEMM ceiling: this roofline was built without CLBlast (libclblast-dev)");
    return RF_OK;
}

#endif
