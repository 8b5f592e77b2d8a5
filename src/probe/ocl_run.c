/* ocl_run.c — one device run (rf_ocl_run): the context and profiling queue, the conditions
 * (device, driver, host load before and during), the steps (compute, memory, transfers, GEMM) into
 * a machine with provenance measured; and the one harness that times device work from profiling
 * events, calibrated to a minimum time, with the CPU probe's statistics. Never prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RF_HAVE_OPENCL
#include "probe/ocl_int.h"
#else
#include "probe/probe_int.h"
#include "roofline/opencl.h"
#endif

#define RF__OCL_MAX_REPS 64

void rf_ocl_report_free(rf_ocl_report *r)
{
    if (!r) return;
    rf_allocator a = r->alloc_;
    rf_machine_free(r->machine);
    rf__free_with(&a, r->sweep);
    rf__free_with(&a, r);
}

#ifdef RF_HAVE_OPENCL

void rf__ocl_progress(rf__ocl_run *run, const char *what)
{
    rf__log(run->ctx, RF_LOG_INFO, "peaks: %5.1f s  %s", rf__now_s() - run->t0, what);
}

rf_status rf__ocl_build(rf__ocl_run *run, const char *src, const char *opts, cl_program *out)
{
    cl_int e;
    *out = clCreateProgramWithSource(run->cl, 1, &src, NULL, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateProgramWithSource", e);
    e = clBuildProgram(*out, 1, &run->dev, opts, NULL, NULL);
    if (e == CL_SUCCESS) return RF_OK;
    char log[512] = "";
    clGetProgramBuildInfo(*out, run->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    log[sizeof log - 1] = '\0';
    for (char *p = log; *p; p++) /* one line */
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    clReleaseProgram(*out);
    *out = NULL;
    return rf__error(run->ctx, RF_INTERNAL, -1, "opencl: building a kernel failed: %s (%d): %.200s",
                     rf__ocl_err(e), (int)e, log);
}

rf_status rf__ocl_launch(rf__ocl_run *run, cl_kernel k, size_t global, size_t local,
                         double *seconds)
{
    cl_event ev = NULL;
    cl_ulong t0 = 0, t1 = 0;
    cl_int e = clEnqueueNDRangeKernel(run->q, k, 1, NULL, &global, &local, 0, NULL, &ev);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clEnqueueNDRangeKernel", e);
    e = clWaitForEvents(1, &ev);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "running a kernel", e);
    *seconds = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 1e-9;
    return RF_OK;
}

rf_status rf__ocl_bench(rf__ocl_run *run, rf__ocl_op op, void *arg, double per_unit,
                        uint64_t *units, rf__stats *out)
{
    double t = 0, v[RF__OCL_MAX_REPS];
    uint64_t u = *units ? *units : 1;
    /* A warm-up run first (the first launch of a kernel may compile it, and a driver may count
     * that in), then calibration: grow until a run lasts the minimum time; a run far too short
     * grows by its ratio at once. */
    RF_TRY(op(run, arg, u, &t));
    for (int i = 0; i < 40; i++) {
        RF_TRY(op(run, arg, u, &t));
        if (t >= run->min_time_s) break;
        double f = t > 0 ? 1.2 * run->min_time_s / t : 16;
        uint64_t next = (uint64_t)((double)u * (f > 16 ? 16 : f < 2 ? 2 : f));
        RF_CHECK(run->ctx, next > u && next < (1ull << 40), RF_INTERNAL,
                 "opencl: a kernel does not slow down with more work (%.3g s)", t);
        u = next;
    }
    unsigned n = run->reps < RF__OCL_MAX_REPS ? run->reps : RF__OCL_MAX_REPS;
    for (unsigned r = 0; r < n; r++) {
        RF_TRY(op(run, arg, u, &t));
        v[r] = per_unit * (double)u / t;
    }
    *units = u;
    rf__stats_compute(v, n, out);
    return RF_OK;
}

rf_status rf__ocl_add(rf__ocl_run *run, const char *name, rf_ceiling_kind kind, const rf__stats *s,
                      const char *source, const char *note)
{
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    rf__strlcpy(c.name, name, sizeof c.name);
    c.kind = kind;
    c.value = s->best;
    c.provenance = RF_PROV_MEASURED;
    rf__strlcpy(c.source, source, sizeof c.source);
    rf__strlcpy(c.note, note, sizeof c.note);
    c.stats.threads = run->rep->device.compute_units;
    c.stats.repetitions = s->n;
    c.stats.min = s->min;
    c.stats.median = s->median;
    c.stats.max = s->max;
    rf__strlcpy(c.stats.date, run->rep->date, sizeof c.stats.date);
    unsigned bits = rf__figure_disturbed(s);
    c.provisional = bits != 0;
    run->flags |= bits;
    RF_CHECK(run->ctx, s->best > 0 && isfinite(s->best), RF_INTERNAL,
             "opencl: %s measured no throughput", name);
    return rf_machine_add(run->ctx, run->rep->machine, &c);
}

/* Lower-case letters, digits and '-' from the device's name: the machine's name. */
static void rf__ocl_machine_name(const rf_ocl_device *d, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *p = d->name; *p && n + 1 < size; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (ok)
            buf[n++] = c;
        else if (n && buf[n - 1] != '-')
            buf[n++] = '-';
    }
    while (n && buf[n - 1] == '-') n--;
    buf[n] = '\0';
    if (!n) rf__strlcpy(buf, "opencl-device", size);
}

static void rf__ocl_conditions(rf__ocl_run *run, const rf__cpu_times *c0)
{
    rf_ocl_report *r = run->rep;
    rf_ocl_device *d = &r->device;
    rf_machine *m = r->machine;
    rf__cpu_times c1 = rf__cpu_times_now();
    r->elapsed_s = rf__now_s() - run->t0;
    r->busy_other = rf__cpu_others_share(c0, &c1);
    rf__ocl_machine_name(d, m->name, sizeof m->name);
    snprintf(m->description, sizeof m->description, "%s (OpenCL %u.%u, measured)", d->name,
             d->platform, d->device);
    rf__strlcpy(m->kind, d->type, sizeof m->kind);
    m->provenance = RF_PROV_MEASURED;
    char src[1024];
    snprintf(src, sizeof src,
             "roofline peaks --device opencl:%u.%u%s, %s; host load %.2f before, others used "
             "%.0f%% of the CPU during the %.1f s run: %s (%s, driver %s), %u CUs at %u MHz",
             d->platform, d->device, run->opts->quick ? " --quick" : "", r->date, r->load_before,
             r->busy_other < 0 ? -1.0 : 100 * r->busy_other, r->elapsed_s, d->name,
             d->platform_name, d->driver, d->compute_units, d->clock_mhz);
    rf__strlcpy(m->source, src, sizeof m->source);
    /* A CPU device shares the host's cores: other processes' time disturbs every figure. */
    if (strcmp(d->type, "cpu") == 0 && r->busy_other > RF_BUSY_OTHERS)
        for (size_t i = 0; i < m->n_ceilings; i++) m->ceilings[i].provisional = 1;
    long c = rf_machine_find(m, "fp32.fma.opencl"), b = rf_machine_find(m, "DRAM");
    if (c >= 0) m->default_compute = (size_t)c;
    if (b >= 0) m->default_bandwidth = (size_t)b;
    r->provisional = rf_machine_provisional(m);
}

static rf_status rf__ocl_open(rf__ocl_run *run)
{
    cl_int e;
    RF_TRY(rf__ocl_device_id(run->ctx, &run->rep->device, &run->dev));
    run->cl = clCreateContext(NULL, 1, &run->dev, NULL, NULL, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateContext", e);
    run->q = clCreateCommandQueue(run->cl, run->dev, CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateCommandQueue", e);
    size_t max_wg = 0;
    clGetDeviceInfo(run->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    run->wg = 256;
    while (run->wg > 4 && run->wg > max_wg) run->wg /= 2;
    unsigned cu = run->rep->device.compute_units ? run->rep->device.compute_units : 1;
    run->grid = run->wg * 8 * cu;
    return RF_OK;
}

static rf_status rf__ocl_steps(rf__ocl_run *run)
{
    RF_TRY(rf__ocl_compute(run));
    RF_TRY(rf__ocl_memory(run));
    RF_TRY(rf__ocl_transfer(run));
    if (!run->opts->quick) RF_TRY(rf__ocl_gemm(run));
    return RF_OK;
}

rf_status rf_ocl_run(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                     rf_ocl_report **out)
{
    RF_CHECK(ctx, dev && out, RF_USAGE, "rf_ocl_run: missing argument");
    rf_ocl_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    const rf_ocl_opts *o = opts ? opts : &defaults;
    *out = NULL;
    rf_ocl_report *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->alloc_ = *rf_ctx_allocator(ctx);
    r->device = *dev;
    rf__ocl_run run;
    memset(&run, 0, sizeof run);
    run.ctx = ctx;
    run.rep = r;
    run.opts = o;
    run.min_time_s = o->min_time_s > 0 ? o->min_time_s : (o->quick ? 0.01 : 0.02);
    run.reps = o->repetitions ? o->repetitions : (o->quick ? 3 : 5);
    run.t0 = rf__now_s();
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->load_before = rf__loadavg();
    rf__cpu_times c0 = rf__cpu_times_now();
    rf_status st = rf_machine_new(ctx, "opencl", &r->machine);
    if (st == RF_OK) st = rf__ocl_open(&run);
    if (st == RF_OK) st = rf__ocl_steps(&run);
    if (run.q) clReleaseCommandQueue(run.q);
    if (run.cl) clReleaseContext(run.cl);
    if (st != RF_OK) {
        rf_ocl_report_free(r);
        return st;
    }
    rf__ocl_conditions(&run, &c0);
    if (r->provisional)
        rf__log(ctx, RF_LOG_WARN,
                "peaks: the device's figures spread over repetitions or other processes took "
                "the CPU: some ceilings are provisional (the cache keeps the best of every run)");
    *out = r;
    return RF_OK;
}

#else /* built without OpenCL */

rf_status rf_ocl_run(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                     rf_ocl_report **out)
{
    (void)dev, (void)opts;
    if (out) *out = NULL;
    return rf__error(ctx, RF_UNSUPPORTED, -1,
                     "opencl: this roofline was built without OpenCL (install "
                     "ocl-icd-opencl-dev and opencl-headers, then rebuild)");
}

#endif
