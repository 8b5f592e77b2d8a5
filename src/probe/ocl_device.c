/* ocl_device.c — OpenCL platforms and devices: listing them with what the probe needs (type,
 * compute units, memories, fp64/fp16/int8-dot support), choosing one from "opencl[:P.D]", and the
 * names of OpenCL error codes. Without OpenCL at build time every call says so (RF_UNSUPPORTED). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RF_HAVE_OPENCL
#include "probe/ocl_int.h"
#else
#include "probe/probe_int.h"
#include "roofline/opencl.h"
#endif

#define RF__OCL_NOT_BUILT                                                                          \
    "this roofline was built without OpenCL (install ocl-icd-opencl-dev and opencl-headers, "      \
    "then rebuild: CMake finds them)"

/* "opencl" or "opencl:P.D": *any set for the first. RF_USAGE otherwise. */
static rf_status rf__ocl_spec(rf_ctx *ctx, const char *spec, int *any, unsigned *p, unsigned *d)
{
    RF_CHECK(ctx, spec, RF_USAGE, "rf_ocl_select: missing argument");
    *any = strcmp(spec, "opencl") == 0;
    *p = *d = 0;
    if (*any) return RF_OK;
    int used = 0;
    unsigned a, b;
    int ok = strncmp(spec, "opencl:", 7) == 0 && spec[7] >= '0' && spec[7] <= '9' &&
             sscanf(spec + 7, "%3u.%3u%n", &a, &b, &used) == 2 && spec[7 + used] == '\0';
    RF_CHECK(ctx, ok, RF_USAGE,
             "--device: '%s' is not opencl or opencl:PLATFORM.DEVICE (e.g. opencl:0.0; "
             "'roofline hw list --devices' numbers them)",
             spec);
    *p = a;
    *d = b;
    return RF_OK;
}

int rf_ocl_built(void)
{
#ifdef RF_HAVE_OPENCL
    return 1;
#else
    return 0;
#endif
}

#ifdef RF_HAVE_OPENCL

const char *rf__ocl_err(cl_int e)
{
    static const struct {
        cl_int code;
        const char *name;
    } names[] = {
        {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
        {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
        {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
        {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
        {CL_PROFILING_INFO_NOT_AVAILABLE, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM"},
        {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
        {CL_INVALID_BINARY, "CL_INVALID_BINARY"},
        {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
        {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
        {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE"},
        {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
        {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
        {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
        {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
        {CL_INVALID_EVENT, "CL_INVALID_EVENT"},
        {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
        {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform: no ICD vendor file)"},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].code == e) return names[i].name;
    return "an OpenCL error";
}

rf_status rf__ocl_fail(rf_ctx *ctx, const char *what, cl_int e)
{
    return rf__error(ctx, RF_INTERNAL, -1, "opencl: %s failed: %s (%d)", what, rf__ocl_err(e),
                     (int)e);
}

static void rf__ocl_str(cl_device_id d, cl_device_info what, char *buf, size_t size)
{
    size_t got = 0;
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, size - 1, buf, &got) != CL_SUCCESS) buf[0] = '\0';
    buf[size - 1] = '\0';
    /* trailing spaces and NULs some drivers leave */
    for (size_t n = strlen(buf); n > 0 && buf[n - 1] == ' '; n--) buf[n - 1] = '\0';
}

static uint64_t rf__ocl_u64(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) v = 0;
    return v;
}

static unsigned rf__ocl_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) v = 0;
    return v;
}

/* Whole-word search in an extension list. */
static int rf__ocl_has(const char *exts, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(exts, name); p; p = strstr(p + 1, name))
        if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}

static void rf__ocl_describe(cl_platform_id pl, cl_device_id d, unsigned pi, unsigned di,
                             rf_ocl_device *o)
{
    char exts[8192];
    cl_device_type t = 0;
    cl_device_local_mem_type lt = 0;
    cl_bool uni = 0;
    memset(o, 0, sizeof *o);
    o->platform = pi;
    o->device = di;
    if (clGetPlatformInfo(pl, CL_PLATFORM_NAME, sizeof o->platform_name - 1, o->platform_name,
                          NULL) != CL_SUCCESS)
        o->platform_name[0] = '\0';
    rf__ocl_str(d, CL_DEVICE_NAME, o->name, sizeof o->name);
    rf__ocl_str(d, CL_DEVICE_VENDOR, o->vendor, sizeof o->vendor);
    rf__ocl_str(d, CL_DEVICE_VERSION, o->version, sizeof o->version);
    rf__ocl_str(d, CL_DRIVER_VERSION, o->driver, sizeof o->driver);
    rf__ocl_str(d, CL_DEVICE_EXTENSIONS, exts, sizeof exts);
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    rf__strlcpy(o->type,
                (t & CL_DEVICE_TYPE_GPU)           ? "gpu"
                : (t & CL_DEVICE_TYPE_CPU)         ? "cpu"
                : (t & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                   : "custom",
                sizeof o->type);
    o->compute_units = rf__ocl_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS);
    o->clock_mhz = rf__ocl_uint(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    o->global_mem_bytes = rf__ocl_u64(d, CL_DEVICE_GLOBAL_MEM_SIZE);
    o->max_alloc_bytes = rf__ocl_u64(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    o->global_cache_bytes = rf__ocl_u64(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    o->local_mem_bytes = rf__ocl_u64(d, CL_DEVICE_LOCAL_MEM_SIZE);
    if (clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL) == CL_SUCCESS)
        o->local_mem_dedicated = lt == CL_LOCAL;
    if (clGetDeviceInfo(d, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof uni, &uni, NULL) == CL_SUCCESS)
        o->host_unified = uni != 0;
    o->fp64 = rf__ocl_has(exts, "cl_khr_fp64") || rf__ocl_u64(d, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    o->fp16 = rf__ocl_has(exts, "cl_khr_fp16");
    o->int8_dot = rf__ocl_has(exts, "cl_khr_integer_dot_product")                   ? 1
                  : rf__ocl_has(exts, "cl_arm_integer_dot_product_accumulate_int8") ? 2
                                                                                    : 0;
    o->native_width[0] = rf__ocl_uint(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
    o->native_width[1] = o->fp64 ? rf__ocl_uint(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) : 0;
    o->native_width[2] = o->fp16 ? rf__ocl_uint(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF) : 0;
}

#define RF__OCL_MAX_PLATFORMS 16

static rf_status rf__ocl_platforms(rf_ctx *ctx, cl_platform_id *pl, cl_uint *np)
{
    cl_int e = clGetPlatformIDs(RF__OCL_MAX_PLATFORMS, pl, np);
    RF_CHECK(ctx, e == CL_SUCCESS || e == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */, RF_UNSUPPORTED,
             "opencl: no OpenCL platform (clGetPlatformIDs: %s)", rf__ocl_err(e));
    if (e != CL_SUCCESS) *np = 0;
    if (*np > RF__OCL_MAX_PLATFORMS) *np = RF__OCL_MAX_PLATFORMS;
    RF_CHECK(ctx, *np > 0, RF_UNSUPPORTED,
             "opencl: no OpenCL platform: the ICD loader found no driver (install one, e.g. "
             "pocl-opencl-icd; OCL_ICD_VENDORS names where it looks)");
    return RF_OK;
}

rf_status rf_ocl_devices(rf_ctx *ctx, rf_ocl_device *out, size_t max, size_t *n_out)
{
    RF_CHECK(ctx, out && n_out, RF_USAGE, "rf_ocl_devices: missing argument");
    cl_platform_id pl[RF__OCL_MAX_PLATFORMS];
    cl_uint np = 0;
    *n_out = 0;
    RF_TRY(rf__ocl_platforms(ctx, pl, &np));
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id ids[RF_OCL_MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(pl[p], CL_DEVICE_TYPE_ALL, RF_OCL_MAX_DEVICES, ids, &nd) != CL_SUCCESS)
            continue; /* CL_DEVICE_NOT_FOUND: a platform without devices */
        if (nd > RF_OCL_MAX_DEVICES) nd = RF_OCL_MAX_DEVICES;
        for (cl_uint d = 0; d < nd && *n_out < max; d++)
            rf__ocl_describe(pl[p], ids[d], p, d, &out[(*n_out)++]);
    }
    RF_CHECK(ctx, *n_out > 0, RF_UNSUPPORTED,
             "opencl: %u platform%s but no device (is the driver loaded?)", (unsigned)np,
             np == 1 ? "" : "s");
    return RF_OK;
}

rf_status rf__ocl_device_id(rf_ctx *ctx, const rf_ocl_device *dev, cl_device_id *out)
{
    cl_platform_id pl[RF__OCL_MAX_PLATFORMS];
    cl_device_id ids[RF_OCL_MAX_DEVICES];
    cl_uint np = 0, nd = 0;
    RF_TRY(rf__ocl_platforms(ctx, pl, &np));
    RF_CHECK(ctx,
             dev->platform < np &&
                 clGetDeviceIDs(pl[dev->platform], CL_DEVICE_TYPE_ALL, RF_OCL_MAX_DEVICES, ids,
                                &nd) == CL_SUCCESS &&
                 dev->device < nd && dev->device < RF_OCL_MAX_DEVICES,
             RF_UNSUPPORTED, "opencl: device %u.%u is gone", dev->platform, dev->device);
    *out = ids[dev->device];
    return RF_OK;
}

rf_status rf_ocl_select(rf_ctx *ctx, const char *spec, rf_ocl_device *out)
{
    int any;
    unsigned p, d;
    RF_TRY(rf__ocl_spec(ctx, spec, &any, &p, &d));
    rf_ocl_device *all = rf__calloc(ctx, RF_OCL_MAX_DEVICES, sizeof *all);
    if (!all) return RF_NOMEM_ERR(ctx);
    size_t n = 0, pick = SIZE_MAX;
    rf_status st = rf_ocl_devices(ctx, all, RF_OCL_MAX_DEVICES, &n);
    for (size_t i = 0; st == RF_OK && i < n && pick == SIZE_MAX; i++)
        if (any ? strcmp(all[i].type, "gpu") == 0 || strcmp(all[i].type, "accelerator") == 0
                : all[i].platform == p && all[i].device == d)
            pick = i;
    if (st == RF_OK && any && pick == SIZE_MAX) pick = 0;
    if (st == RF_OK && pick == SIZE_MAX)
        st = rf__error(ctx, RF_UNSUPPORTED, -1,
                       "--device %s: no such OpenCL device ('roofline hw list --devices' lists "
                       "%zu)",
                       spec, n);
    if (st == RF_OK) *out = all[pick];
    rf__free(ctx, all);
    return st;
}

#else /* built without OpenCL */

rf_status rf_ocl_devices(rf_ctx *ctx, rf_ocl_device *out, size_t max, size_t *n_out)
{
    (void)out, (void)max;
    if (n_out) *n_out = 0;
    return rf__error(ctx, RF_UNSUPPORTED, -1, "opencl: %s", RF__OCL_NOT_BUILT);
}

rf_status rf_ocl_select(rf_ctx *ctx, const char *spec, rf_ocl_device *out)
{
    int any;
    unsigned p, d;
    (void)out;
    RF_TRY(rf__ocl_spec(ctx, spec, &any, &p, &d));
    return rf__error(ctx, RF_UNSUPPORTED, -1, "--device %s: %s", spec, RF__OCL_NOT_BUILT);
}

#endif
