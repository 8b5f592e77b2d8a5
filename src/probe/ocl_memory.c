/* ocl_memory.c — memory ceilings of an OpenCL device: a read sweep over buffer sizes from 4 KiB to
 * past its last cache, plateaus named L1, L2, ... DRAM (plateau.c, as the CPU's), then read, write
 * and copy at each plateau (the roof of a level is its best mix), and local memory. Bytes are those
 * the kernels load and store (copy = read + write), as the CPU probe counts them. */
#include <stdio.h>
#include <string.h>

#include "probe/ocl_int.h"

#define RF__OCL_MEM_MIN (4u << 10)
#define RF__OCL_MEM_SRC 8192

typedef struct rf__mem_job {
    cl_kernel rd, wr, cp, lm;
    cl_mem a, b, out;
    cl_kernel k;       /* the kernel of the current figure */
    size_t grid, wg;   /* the memory grid: a power of two */
    unsigned vw;       /* floats per vector: 16 on a CPU device, 4 elsewhere */
    int blocked;       /* each work-item a contiguous run (CPU devices), else coalesced */
    uint64_t bytes;    /* working set (copy: both buffers together) */
    cl_uint steps;     /* accesses per work-item and pass */
    double pass_bytes; /* bytes loaded and stored per pass */
} rf__mem_job;

static uint64_t rf__pow2_floor(uint64_t v)
{
    uint64_t p = 1;
    while (p <= v / 2) p *= 2;
    return p;
}

static rf_status rf__mem_op(rf__ocl_run *run, void *arg, uint64_t units, double *seconds)
{
    rf__mem_job *j = arg;
    RF_CHECK(run->ctx, units < (1u << 30), RF_INTERNAL, "opencl: memory passes overflow");
    cl_uint passes = (cl_uint)units;
    cl_int e = clSetKernelArg(j->k, j->k == j->lm ? 1 : 6, sizeof passes, &passes);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clSetKernelArg", e);
    int lm = j->k == j->lm;
    return rf__ocl_launch(run, j->k, lm ? run->grid : j->grid, lm ? run->wg : j->wg, seconds);
}

/* Point kernel `k` (rd, wr or cp) at a working set of `bytes`. */
static rf_status rf__mem_set(rf__ocl_run *run, rf__mem_job *j, cl_kernel k, uint64_t bytes)
{
    int cp = k == j->cp;
    double vec = 4.0 * j->vw;
    uint64_t n = bytes / (uint64_t)vec / (cp ? 2 : 1); /* vectors per buffer */
    cl_uint mask = (cl_uint)(n - 1);
    /* Blocked (a CPU device, whose threads run a work-group's items one after the other): each
     * work-item streams through the whole buffer from its own start, so every core's working
     * set is the buffer, as a CPU thread's is in the CPU sweep. Coalesced: the grid strides. */
    uint64_t steps = j->blocked ? n : n / j->grid < 4 ? 4 : n / j->grid;
    cl_uint ia = j->blocked ? (cl_uint)(n / j->grid) : 1, ib = j->blocked ? 1 : (cl_uint)j->grid;
    j->k = k;
    j->bytes = bytes;
    j->steps = (cl_uint)steps;
    j->pass_bytes = (double)steps * (double)j->grid * vec * (cp ? 2 : 1);
    cl_mem second = cp ? j->b : j->out;
    cl_int e = clSetKernelArg(k, 0, sizeof j->a, &j->a);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 1, sizeof second, &second);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 2, sizeof mask, &mask);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 3, sizeof j->steps, &j->steps);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 4, sizeof ia, &ia);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 5, sizeof ib, &ib);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clSetKernelArg", e);
    return RF_OK;
}

static rf_status rf__mem_time(rf__ocl_run *run, rf__mem_job *j, cl_kernel k, uint64_t bytes,
                              rf__stats *s)
{
    uint64_t passes = 1;
    RF_TRY(rf__mem_set(run, j, k, bytes));
    return rf__ocl_bench(run, rf__mem_op, j, j->pass_bytes, &passes, s);
}

/* The largest buffer of the sweep: past the device's last cache (four times it, twice quick) and
 * at least 64 MiB, within what one allocation and a quarter of the memory allow. */
static uint64_t rf__mem_max(const rf__ocl_run *run)
{
    const rf_ocl_device *d = &run->rep->device;
    int quick = run->opts->quick;
    uint64_t want = d->global_cache_bytes * (quick ? 2 : 4),
             cap = quick ? 512ull << 20 : 2ull << 30;
    if (want < (64ull << 20)) want = 64ull << 20;
    if (want > cap) want = cap;
    if (d->max_alloc_bytes && want > d->max_alloc_bytes) want = d->max_alloc_bytes;
    if (d->global_mem_bytes && want > d->global_mem_bytes / 4) want = d->global_mem_bytes / 4;
    return rf__pow2_floor(want < (1u << 20) ? (1u << 20) : want);
}

static rf_status rf__mem_sweep(rf__ocl_run *run, rf__mem_job *j, uint64_t max)
{
    rf_ocl_report *r = run->rep;
    size_t n = 0;
    for (uint64_t b = RF__OCL_MEM_MIN; b <= max; b *= 2) n++;
    r->sweep = rf__alloc_with(&r->alloc_, NULL, n * sizeof *r->sweep);
    if (!r->sweep) return RF_NOMEM_ERR(run->ctx);
    char what[96], a[32];
    snprintf(what, sizeof what, "global-memory read sweep, 4 KiB to %s",
             rf_bytes_format_iec(a, sizeof a, (double)max, 3));
    rf__ocl_progress(run, what);
    for (uint64_t b = RF__OCL_MEM_MIN; b <= max; b *= 2) {
        rf__stats s;
        RF_TRY(rf__mem_time(run, j, j->rd, b, &s));
        r->sweep[r->n_sweep].bytes = b;
        r->sweep[r->n_sweep++].bytes_per_s = s.best;
    }
    /* The last plateau is the slowest memory the sweep reached: DRAM (rf__mem_level says so when
     * the sweep could not go past the cache the device reports). */
    r->n_levels = rf__plateaus(r->sweep, r->n_sweep, 0.2, 1, r->levels, 4);
    return RF_OK;
}

/* Read, write and copy at the middle of level `l`: the best is the level's roof. */
static rf_status rf__mem_level(rf__ocl_run *run, rf__mem_job *j, const rf_probe_level *l)
{
    uint64_t mid = l->first_bytes;
    while (mid * 4 <= l->last_bytes) mid *= 2;                /* geometric middle, a power of two */
    if (mid < 2 * RF__OCL_MEM_MIN) mid = 2 * RF__OCL_MEM_MIN; /* copy halves it */
    rf__stats s[3];
    static const char *const mix[3] = {"read", "write", "copy"};
    cl_kernel ks[3] = {j->rd, j->wr, j->cp};
    size_t best = 0;
    for (size_t i = 0; i < 3; i++) {
        RF_TRY(rf__mem_time(run, j, ks[i], mid, &s[i]));
        if (s[i].best > s[best].best) best = i;
    }
    char note[RF_TEXT_MAX], a[32], v[3][32], sz[32], c[32];
    uint64_t cache = run->rep->device.global_cache_bytes;
    int within = strcmp(l->name, "DRAM") == 0 && cache && l->last_bytes < 2 * cache;
    snprintf(note, sizeof note,
             "roof: %s, CV %.1f%%; %s buffer: read %s write %s copy %s; plateau to %s%s%s",
             mix[best], 100 * s[best].cv, rf_bytes_format_iec(sz, sizeof sz, (double)mid, 3),
             rf_si_format_compact(v[0], sizeof v[0], s[0].best, ""),
             rf_si_format_compact(v[1], sizeof v[1], s[1].best, ""),
             rf_si_format_compact(v[2], sizeof v[2], s[2].best, ""),
             rf_bytes_format_iec(a, sizeof a, (double)l->last_bytes, 3),
             within ? ", within the device's reported cache of " : "",
             within ? rf_bytes_format_iec(c, sizeof c, (double)cache, 3) : "");
    RF_TRY(rf__ocl_add(run, l->name, RF_CEILING_BANDWIDTH, &s[best],
                       "roofline peaks --device: read/write/copy kernels over one buffer", note));
    rf_machine *m = run->rep->machine;
    if (strcmp(l->name, "DRAM") != 0) /* what the plateau showed it holds, at least */
        m->ceilings[m->n_ceilings - 1].capacity_bytes = (double)l->last_bytes;
    return RF_OK;
}

static rf_status rf__mem_local(rf__ocl_run *run, rf__mem_job *j)
{
    rf__stats s;
    uint64_t iters = 64;
    rf__ocl_progress(run, "local memory");
    j->k = j->lm;
    cl_int e = clSetKernelArg(j->lm, 0, sizeof j->out, &j->out);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clSetKernelArg", e);
    RF_TRY(rf__ocl_bench(run, rf__mem_op, j, (double)run->grid * 4 * 4 * j->vw, &iters, &s));
    char note[RF_TEXT_MAX];
    snprintf(note, sizeof note, "%s; a %zu-byte tile per work-group read as float%u; CV %.1f%%",
             run->rep->device.local_mem_dedicated ? "on-chip (CL_LOCAL)"
                                                  : "emulated in global memory (CL_GLOBAL)",
             run->wg * 4 * j->vw, j->vw, 100 * s.cv);
    return rf__ocl_add(run, "local", RF_CEILING_BANDWIDTH, &s,
                       "roofline peaks --device: reads of a __local tile", note);
}

static rf_status rf__mem_kernels(rf__ocl_run *run, rf__mem_job *j, cl_program p)
{
    static const char *const names[4] = {"rd", "wr", "cp", "lm"};
    cl_kernel *ks[4] = {&j->rd, &j->wr, &j->cp, &j->lm};
    for (int i = 0; i < 4; i++) {
        cl_int e;
        *ks[i] = clCreateKernel(p, names[i], &e);
        if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateKernel", e);
    }
    return RF_OK;
}

static rf_status rf__mem_buffers(rf__ocl_run *run, rf__mem_job *j, uint64_t max)
{
    cl_int e;
    float zero = 0;
    j->a = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, (size_t)max, NULL, &e);
    if (e == CL_SUCCESS)
        j->b = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, (size_t)max / 2, NULL, &e);
    size_t out_n = j->grid > run->grid ? j->grid : run->grid;
    if (e == CL_SUCCESS) j->out = clCreateBuffer(run->cl, CL_MEM_READ_WRITE, out_n * 4, NULL, &e);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clCreateBuffer", e);
    /* Written once by the device (first touch where it will be read), ones so sums stay finite. */
    float one = 1.0f;
    e = clEnqueueFillBuffer(run->q, j->a, &one, sizeof one, 0, (size_t)max, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueFillBuffer(run->q, j->b, &zero, sizeof zero, 0, (size_t)max / 2, 0, NULL,
                                NULL);
    if (e == CL_SUCCESS) e = clFinish(run->q);
    if (e != CL_SUCCESS) return rf__ocl_fail(run->ctx, "clEnqueueFillBuffer", e);
    return RF_OK;
}

static void rf__mem_release(rf__mem_job *j)
{
    cl_kernel ks[4] = {j->rd, j->wr, j->cp, j->lm};
    for (int i = 0; i < 4; i++)
        if (ks[i]) clReleaseKernel(ks[i]);
    cl_mem ms[3] = {j->a, j->b, j->out};
    for (int i = 0; i < 3; i++)
        if (ms[i]) clReleaseMemObject(ms[i]);
}

rf_status rf__ocl_memory(rf__ocl_run *run)
{
    char src[RF__OCL_MEM_SRC];
    rf__mem_job j;
    memset(&j, 0, sizeof j);
    j.blocked = strcmp(run->rep->device.type, "cpu") == 0;
    if (j.blocked) { /* two single-item groups per compute unit (each a thread's task) */
        j.wg = 1;
        j.grid = 2 * (run->rep->device.compute_units ? run->rep->device.compute_units : 1);
    } else { /* four groups per compute unit: all resident at once */
        j.wg = run->wg;
        j.grid = (size_t)rf__pow2_floor((uint64_t)run->grid / 2);
        if (j.grid < j.wg) j.grid = j.wg;
    }
    j.vw = j.blocked ? 16 : 4;
    uint64_t max = rf__mem_max(run);
    RF_TRY(rf__ocl_src_mem(run->ctx, run->wg, src, sizeof src));
    cl_program p = NULL;
    RF_TRY(rf__ocl_build(run, src, j.blocked ? "-DVT=float16 -DVW=16" : "-DVT=float4 -DVW=4", &p));
    rf_status st = rf__mem_kernels(run, &j, p);
    if (st == RF_OK) st = rf__mem_buffers(run, &j, max);
    if (st == RF_OK) st = rf__mem_sweep(run, &j, max);
    if (st == RF_OK) rf__ocl_progress(run, "read, write and copy at each level");
    for (size_t i = 0; st == RF_OK && i < run->rep->n_levels; i++)
        st = rf__mem_level(run, &j, &run->rep->levels[i]);
    if (st == RF_OK) st = rf__mem_local(run, &j);
    rf__mem_release(&j);
    clReleaseProgram(p);
    return st;
}
