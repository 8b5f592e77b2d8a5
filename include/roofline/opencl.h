/* roofline/opencl.h — measure an OpenCL device: FMA throughput per precision it supports (many
 * independent chains per work-item, mixbench's method), global-memory bandwidth over a sweep of
 * buffer sizes (its caches as plateaus), local memory, host<->device transfers, and SGEMM through
 * CLBlast; the result is a machine like the CPU's (provenance measured), cached per device, and
 * mergeable into a node's machine file. Built when CMake finds OpenCL (ocl-icd); otherwise every
 * call that needs a device returns RF_UNSUPPORTED saying so. Never prints (docs/design.md). */
#ifndef ROOFLINE_OPENCL_H
#define ROOFLINE_OPENCL_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "core.h"
#include "probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most devices rf_ocl_devices lists. */
#define RF_OCL_MAX_DEVICES 64

/** One OpenCL device as its platform reports it. Strings are as the driver gives them (they may
 *  hold any bytes: renderers clean them). */
typedef struct rf_ocl_device {
    unsigned platform;           /**< index of the platform (clGetPlatformIDs order) */
    unsigned device;             /**< index of the device in its platform */
    char platform_name[128];     /**< CL_PLATFORM_NAME */
    char name[128];              /**< CL_DEVICE_NAME */
    char vendor[96];             /**< CL_DEVICE_VENDOR */
    char version[96];            /**< CL_DEVICE_VERSION ("OpenCL 3.0 ...") */
    char driver[64];             /**< CL_DRIVER_VERSION */
    char type[16];               /**< "gpu", "cpu", "accelerator" or "custom" */
    unsigned compute_units;      /**< CL_DEVICE_MAX_COMPUTE_UNITS */
    unsigned clock_mhz;          /**< CL_DEVICE_MAX_CLOCK_FREQUENCY, MHz */
    uint64_t global_mem_bytes;   /**< CL_DEVICE_GLOBAL_MEM_SIZE, byte */
    uint64_t max_alloc_bytes;    /**< CL_DEVICE_MAX_MEM_ALLOC_SIZE, byte */
    uint64_t global_cache_bytes; /**< CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, byte (0: none) */
    uint64_t local_mem_bytes;    /**< CL_DEVICE_LOCAL_MEM_SIZE, byte */
    int local_mem_dedicated;     /**< non-zero: CL_LOCAL (on-chip); 0: emulated in global */
    int host_unified;            /**< non-zero: CL_DEVICE_HOST_UNIFIED_MEMORY */
    int fp64;                    /**< non-zero: cl_khr_fp64 (or a double FP config) */
    int fp16;                    /**< non-zero: cl_khr_fp16 */
    int int8_dot;                /**< 1: cl_khr_integer_dot_product (4x8-bit), 2: the Arm
                                      extension cl_arm_integer_dot_product_accumulate_int8, 0 */
    unsigned native_width[3];    /**< native vector width of float, double, half (0: none) */
} rf_ocl_device;

/** Non-zero when this library was built with OpenCL. */
RF_API int rf_ocl_built(void);

/** Every device of every platform into out[0..max), *n_out of them. RF_UNSUPPORTED with one
 *  sentence when the library was built without OpenCL, when the ICD loader finds no platform
 *  (no vendor file, or OCL_ICD_VENDORS naming none) or no platform has a device. */
RF_API rf_status rf_ocl_devices(rf_ctx *ctx, rf_ocl_device *out, size_t max, size_t *n_out);

/** The device `spec` names: "opencl" (the first GPU or accelerator of any platform, else the first
 *  device) or "opencl:P.D" (platform P, device D, 0-based as rf_ocl_devices numbers them).
 *  RF_USAGE for another text, RF_UNSUPPORTED when there is no such device (or no OpenCL). */
RF_API rf_status rf_ocl_select(rf_ctx *ctx, const char *spec, rf_ocl_device *out);

/** What to measure. Zero-initialised: the full run. */
typedef struct rf_ocl_opts {
    int quick;            /**< fewer vector widths, a shorter sweep, no GEMM (a few seconds) */
    double min_time_s;    /**< minimum duration of one timed repetition (0: 10 ms quick, 20 ms) */
    unsigned repetitions; /**< timed repetitions per figure (0: 3 quick, 5 full) */
} rf_ocl_opts;

/** The outcome of a device run. Free with rf_ocl_report_free. */
typedef struct rf_ocl_report {
    rf_machine *machine;   /**< owned; provenance measured; ceilings named "fp32.fma.opencl",
                                "int8.dot.opencl", "fp32.gemm.clblast", the plateaus of the sweep
                                ("L1" ... "DRAM"), "local", and the network ceilings "h2d", "d2h" */
    rf_ocl_device device;  /**< the device measured */
    char date[32];         /**< ISO 8601 UTC start of the run */
    double load_before;    /**< 1-minute load average before the run (-1 unknown) */
    double busy_other;     /**< share of CPU time other processes used during the run, -1 unknown */
    double elapsed_s;      /**< duration of the run, s */
    rf_probe_point *sweep; /**< n_sweep points of the global-memory read sweep; `bytes` is the
                                whole buffer (not per thread); owned */
    size_t n_sweep;
    rf_probe_level levels[RF_PROBE_MAX_LEVELS]; /**< plateaus of the sweep, smallest first */
    size_t n_levels;
    int provisional;     /**< non-zero: some ceilings were measured disturbed */
    rf_allocator alloc_; /**< private */
} rf_ocl_report;

/** Measure `dev` (from rf_ocl_devices or rf_ocl_select). Progress goes to the context's log at
 *  RF_LOG_INFO. Kernels are built from source at run time; a build or enqueue failure is
 *  RF_INTERNAL naming the call and the OpenCL error. *out owned by the caller. */
RF_API rf_status rf_ocl_run(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                            rf_ocl_report **out);

/** Release a report (and its machine). Accepts NULL. */
RF_API void rf_ocl_report_free(rf_ocl_report *r);

/** Path of the cache file of `dev` for `opts` (quick and full apart; keyed by platform, device,
 *  driver and the library's version) beside the CPU's, under $XDG_CACHE_HOME/roofline/. */
RF_API rf_status rf_ocl_cache_path(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                                   char *buf, size_t size);

/** The cached machine of `dev` (RF_OK with *out NULL when there is none; a damaged file is
 *  ignored with a warning through the log). */
RF_API rf_status rf_ocl_cache_load(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                                   rf_machine **out);

/** Store `m` as the cached machine of `dev` (the higher figure of this run and the cached one per
 *  ceiling, as the CPU's cache; written to a temporary file and renamed). */
RF_API rf_status rf_ocl_cache_store(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                                    const rf_machine *m);

/** Add every ceiling of `dev` to `node` as "PREFIX.NAME" (e.g. "ocl0.0.fp32.fma.opencl"),
 *  replacing the ceilings a former merge of the same prefix left; the node's defaults stay. The
 *  prefix is 1-31 bytes of letters, digits, '.', '_' and '-' (RF_USAGE otherwise). */
RF_API rf_status rf_ocl_merge(rf_ctx *ctx, rf_machine *node, const rf_machine *dev,
                              const char *prefix);

#ifdef __cplusplus
}
#endif
#endif
