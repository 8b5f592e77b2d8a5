/* ocl_transfer.c — host<->device transfer ceilings of an OpenCL device: clEnqueueWriteBuffer and
 * clEnqueueReadBuffer of one large buffer from pinned host memory (a CL_MEM_ALLOC_HOST_PTR buffer,
 * mapped) and from ordinary pageable memory, the better of the two per direction. They are
 * ceilings of kind network, "h2d" and "d2h": a link data crosses, like PCIe in the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/ocl_int.h"

typedef struct rf__xfer_job {
    cl_mem dev;
    void *host;
    size_t bytes;
    int to_device;
} rf__xfer_job;

static rf_status rf__xfer_op(rf__ocl_run *run, void *arg, uint64_t units, double *seconds)
{
    rf__xfer_job *j = arg;
    cl_event first = NULL, last = NULL;
    cl_int e = CL_SUCCESS;
    for (uint64_t u = 0; u < units && e == CL_SUCCESS; u++) {
        cl_event *ev = u == 0 ? &first : u + 1 == units ? &last : NULL;
        e = j->to_device
                ? clEnqueueWriteBuffer(run->q, j->dev, CL_FALSE, 0, j->bytes, j->host, 0, NULL, ev)
                : clEnqueueReadBuffer(run->q, j->dev, CL_FALSE, 0, j->bytes, j->host, 0, NULL, ev);
    }
    if (e == CL_SUCCESS) e = clFinish(run->q);
    cl_ulong t0 = 0, t1 = 0;
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(last ? last : first, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                                    NULL);
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "a host<->device transfer", e);
    *seconds = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 1e-9;
    return RF_OK;
}

static rf_status rf__xfer_direction(rf__ocl_run *run, rf__xfer_job *j, void *pinned, void *paged)
{
    rf__stats s[2];
    void *hosts[2] = {pinned, paged};
    for (int i = 0; i < 2; i++) {
        uint64_t units = 1;
        j->host = hosts[i];
        RF_TRY(rf__ocl_bench(run, rf__xfer_op, j, (double)j->bytes, &units, &s[i]));
    }
    int best = s[1].best > s[0].best;
    char note[RF_TEXT_MAX], a[32], b[32], sz[32];
    snprintf(note, sizeof note, "%s, %s buffers: pinned %s, pageable %s; CV %.1f%%",
             j->to_device ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
             rf_bytes_format_iec(sz, sizeof sz, (double)j->bytes, 3),
             rf_si_format_compact(a, sizeof a, s[0].best, "B/s"),
             rf_si_format_compact(b, sizeof b, s[1].best, "B/s"), 100 * s[best].cv);
    return rf__ocl_add(run, j->to_device ? "h2d" : "d2h", RF_CEILING_NETWORK, &s[best],
                       "roofline peaks --device: host<->device transfers (a link, like PCIe)",
                       note);
}

rf_status rf__ocl_transfer(rf__ocl_run *run)
{
    rf__xfer_job j;
    memset(&j, 0, sizeof j);
    j.bytes = run->opts->quick ? 16u << 20 : 64u << 20;
    rf__ocl_progress(run, "host<->device transfers");
    cl_int e;
    cl_mem pin = clCreateBuffer(run->cl, CL_MEM_ALLOC_HOST_PTR, j.bytes, NULL, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateBuffer", e);
    j.dev = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, j.bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        clReleaseMemObject(pin);
        return rf__ocl_fail(run->ctx, "clCreateBuffer", e);
    }
    void *pinned = clEnqueueMapBuffer(run->q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, j.bytes,
                                      0, NULL, NULL, &e);
    void *raw = rf__malloc(run->ctx, j.bytes + 4096);
    rf_status st = RF_OK;
    if (e != CL_SUCCESS)
        st = rf__ocl_fail(run->ctx, "clEnqueueMapBuffer", e);
    else if (!raw)
        st = RF_NOMEM_ERR(run->ctx);
    if (st == RF_OK) {
        void *paged = (void *)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095);
        memset(paged, 1, j.bytes); /* touched: page faults are not the link's */
        memset(pinned, 1, j.bytes);
        j.to_device = 1;
        st = rf__xfer_direction(run, &j, pinned, paged);
        j.to_device = 0;
        if (st == RF_OK) st = rf__xfer_direction(run, &j, pinned, paged);
    }
    if (pinned) {
        clEnqueueUnmapMemObject(run->q, pin, pinned, 0, NULL, NULL);
        clFinish(run->q);
    }
    rf__free(run->ctx, raw);
    clReleaseMemObject(j.dev);
    clReleaseMemObject(pin);
    return st;
}
