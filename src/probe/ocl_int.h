/* ocl_int.h — what the OpenCL probe's files share (built with RF_HAVE_OPENCL only): the context
 * and queue of one device run, the kernel-source generators, the one timing harness (profiling
 * events, calibrated to a minimum time, repetitions, the probe's statistics) and the steps. */
#ifndef RF_OCL_INT_H
#define RF_OCL_INT_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "probe/probe_int.h"
#include "roofline/opencl.h"

/* One device run: the device, its context and profiling queue, the options resolved. */
typedef struct rf__ocl_run {
    rf_ctx *ctx;
    rf_ocl_report *rep;
    const rf_ocl_opts *opts;
    cl_device_id dev;
    cl_context cl;
    cl_command_queue q;
    double min_time_s;
    unsigned reps;
    size_t wg;      /* work-group size of the kernels */
    size_t grid;    /* work-items of the compute and local-memory grids (a multiple of wg) */
    double t0;      /* start of the run (progress lines) */
    unsigned flags; /* RF__DISTURB_* bits of the figures so far */
} rf__ocl_run;

/* ---- ocl_device.c ---- */
/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"); static. */
const char *rf__ocl_err(cl_int e);
/* RF_INTERNAL naming the call that failed and its error. */
rf_status rf__ocl_fail(rf_ctx *ctx, const char *what, cl_int e);
/* The cl_device_id of `dev` (indices re-resolved); RF_UNSUPPORTED when it is gone. */
rf_status rf__ocl_device_id(rf_ctx *ctx, const rf_ocl_device *dev, cl_device_id *out);

/* ---- ocl_run.c: the harness ---- */
/* op(arg, units, &seconds): do `units` units of work once and say how long it took on the device
 * (profiling events) — a kernel's iterations, passes, transfers of one buffer. */
typedef rf_status (*rf__ocl_op)(rf__ocl_run *run, void *arg, uint64_t units, double *seconds);
/* Calibrate `units` (starting at *units, doubling, then scaled) so one run lasts min_time_s, then
 * `reps` timed runs: statistics of per_unit * units / seconds (a rate). *units is left at the
 * calibrated count. */
rf_status rf__ocl_bench(rf__ocl_run *run, rf__ocl_op op, void *arg, double per_unit,
                        uint64_t *units, rf__stats *out);
/* Build `src` for the device (options `opts`); the build log's first line in the error. */
rf_status rf__ocl_build(rf__ocl_run *run, const char *src, const char *opts, cl_program *out);
/* Run kernel `k` over `global` work-items in groups of `local` once; its device time. */
rf_status rf__ocl_launch(rf__ocl_run *run, cl_kernel k, size_t global, size_t local,
                         double *seconds);
void rf__ocl_progress(rf__ocl_run *run, const char *what);
/* Add a measured ceiling (value = stats.best), as rf__probe_add does for the CPU. */
rf_status rf__ocl_add(rf__ocl_run *run, const char *name, rf_ceiling_kind kind, const rf__stats *s,
                      const char *source, const char *note);

/* ---- ocl_kernels.c: OpenCL C sources, written into buf (RF_RANGE when it does not fit) ---- */
/* FMA chains: kernel "chains" over the precision's type of vector width `width` (1, 2, 4, 8, 16)
 * with `chains` independent accumulators per work-item: x = fma(x, a, b), (out, a, b, iters). For
 * "int8": dot_acc_sat of char4 (khr) or arm_dot_acc (arm) chains, (out, a, b, iters). */
rf_status rf__ocl_src_fma(rf_ctx *ctx, const char *precision, int int8_kind, unsigned width,
                          unsigned chains, char *buf, size_t size);
/* Global memory: kernels "rd", "wr" and "cp" over float4 buffers indexed (gid + k * grid) & mask,
 * four loads or stores in flight per work-item; and "lm", reads of a local tile of `wg` float4. */
rf_status rf__ocl_src_mem(rf_ctx *ctx, size_t wg, char *buf, size_t size);

/* ---- the steps ---- */
rf_status rf__ocl_compute(rf__ocl_run *run);
rf_status rf__ocl_memory(rf__ocl_run *run);
rf_status rf__ocl_transfer(rf__ocl_run *run);
rf_status rf__ocl_gemm(rf__ocl_run *run);

#endif
