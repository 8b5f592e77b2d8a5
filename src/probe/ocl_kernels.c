/* ocl_kernels.c — the OpenCL C the device probe builds at run time, written from a few
 * parameters: FMA chains per precision and vector width (mixbench's and clpeak's method: many
 * independent accumulators per work-item so the pipes stay full), int8 dot-product chains, and the
 * global- and local-memory kernels. Text only: building and timing are ocl_run.c's. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probe/ocl_int.h"

typedef struct rf__src {
    char *buf;
    size_t size, len;
    int overflow;
} rf__src;

static void rf__put(rf__src *s, const char *fmt, ...) RF__PRINTF(2, 3);
static void rf__put(rf__src *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= s->size - s->len) {
        s->overflow = 1;
        s->len = s->size - 1;
    } else {
        s->len += (size_t)n;
    }
}

static rf_status rf__src_done(rf_ctx *ctx, const rf__src *s)
{
    RF_CHECK(ctx, !s->overflow, RF_RANGE, "opencl: kernel source longer than %zu bytes", s->size);
    return RF_OK;
}

/* int8: every accumulator is fed its own bytes (as_char4 of itself), so no dot product is loop
 * invariant; b = (1, -1, 1, -1) keeps the sums small. dot_acc_sat saturates: never undefined. */
static void rf__src_dot(rf__src *s, int kind, unsigned chains)
{
    if (kind == 2)
        rf__put(s, "#pragma OPENCL EXTENSION cl_arm_integer_dot_product_accumulate_int8 : "
                   "enable\n");
    rf__put(s, "__kernel void chains(__global int *out, int a, int b, int iters)\n{\n"
               "    char4 vb = as_char4(b);\n    int x0 = (int)get_global_id(0) + a");
    for (unsigned j = 1; j < chains; j++) rf__put(s, ", x%u = x0 + %u", j, j);
    rf__put(s, ";\n    for (int i = 0; i < iters; i++) {\n");
    for (unsigned j = 0; j < chains; j++)
        rf__put(s,
                kind == 2 ? "        x%u = arm_dot_acc(as_char4(x%u), vb, x%u);\n"
                          : "        x%u = dot_acc_sat(as_char4(x%u), vb, x%u);\n",
                j, j, j);
    rf__put(s, "    }\n    out[get_global_id(0)] = x0");
    for (unsigned j = 1; j < chains; j++) rf__put(s, " + x%u", j);
    rf__put(s, ";\n}\n");
}

rf_status rf__ocl_src_fma(rf_ctx *ctx, const char *precision, int int8_kind, unsigned width,
                          unsigned chains, char *buf, size_t size)
{
    rf__src s = {buf, size, 0, 0};
    buf[0] = '\0';
    RF_CHECK(ctx,
             chains >= 1 && chains <= 32 &&
                 (width == 1 || width == 2 || width == 4 || width == 8 || width == 16),
             RF_USAGE, "opencl: %u chains of width %u", chains, width);
    if (strcmp(precision, "int8") == 0) {
        rf__src_dot(&s, int8_kind, chains);
        return rf__src_done(ctx, &s);
    }
    const char *t = strcmp(precision, "fp64") == 0   ? "double"
                    : strcmp(precision, "fp16") == 0 ? "half"
                                                     : "float";
    if (t[0] == 'd') rf__put(&s, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    if (t[0] == 'h') rf__put(&s, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
    char vt[24];
    if (width > 1)
        snprintf(vt, sizeof vt, "%s%u", t, width);
    else
        rf__strlcpy(vt, t, sizeof vt);
    /* a and b come as float (half arguments need the extension on the host too); x starts near 1
     * and x = x * a + b with a < 1 converges to b / (1 - a) = 1: always normal, never infinite. */
    rf__put(&s,
            "__kernel void chains(__global %s *out, float fa, float fb, int iters)\n{\n"
            "    %s a = (%s)((%s)fa), b = (%s)((%s)fb);\n"
            "    %s x0 = (%s)((%s)(get_global_id(0) & 1023) * (%s)0.0009765625)",
            t, vt, vt, t, vt, t, vt, vt, t, t);
    for (unsigned j = 1; j < chains; j++) rf__put(&s, ", x%u = x0 + (%s)(%s)%u", j, vt, t, j);
    rf__put(&s, ";\n    for (int i = 0; i < iters; i++) {\n");
    for (unsigned j = 0; j < chains; j++) rf__put(&s, "        x%u = fma(x%u, a, b);\n", j, j);
    rf__put(&s, "    }\n    %s s = x0", vt);
    for (unsigned j = 1; j < chains; j++) rf__put(&s, " + x%u", j);
    rf__put(&s, ";\n    out[get_global_id(0)] = %s;\n}\n", width > 1 ? "s.s0 + s.s1" : "s");
    return rf__src_done(ctx, &s);
}

/* Indices (gid * a + k * b) & mask over vectors VT of VW floats (build options): a GPU gets
 * a = 1, b = grid (neighbouring work-items on neighbouring vectors: coalesced), a CPU device
 * a = steps, b = 1 (each work-item a contiguous run, as its loop over work-items wants). While the
 * buffer is smaller than the grid's reach every compute unit reads all of it (its own caches hold
 * it: the aggregate bandwidth of that level); beyond, every element is touched once per pass.
 * `k` runs 4 at a time: four accesses in flight, four accumulators. */
rf_status rf__ocl_src_mem(rf_ctx *ctx, size_t wg, char *buf, size_t size)
{
    rf__src s = {buf, size, 0, 0};
    buf[0] = '\0';
    RF_CHECK(ctx, wg >= 4 && (wg & (wg - 1)) == 0, RF_USAGE, "opencl: work-group size %zu", wg);
    rf__put(&s, "#define IDX(k) ((gid * a + (k) * b) & mask)\n"
                "#define SUM(v) (dot((v).lo.lo, (float4)1) + dot((v).lo.hi, (float4)1) + "
                "dot((v).hi.lo, (float4)1) + dot((v).hi.hi, (float4)1))\n"
                "#if VW == 4\n#undef SUM\n#define SUM(v) dot((v), (float4)1)\n#endif\n"
                "__kernel void rd(__global const VT *in, __global float *out, uint mask,\n"
                "                 uint steps, uint a, uint b, uint passes)\n{\n"
                "    uint gid = get_global_id(0);\n"
                "    VT s0 = 0, s1 = 0, s2 = 0, s3 = 0;\n"
                "    for (uint p = 0; p < passes; p++)\n"
                "        for (uint k = 0; k < steps; k += 4) {\n"
                "            s0 += in[IDX(k)]; s1 += in[IDX(k + 1)];\n"
                "            s2 += in[IDX(k + 2)]; s3 += in[IDX(k + 3)];\n"
                "        }\n"
                "    VT t = (s0 + s1) + (s2 + s3);\n"
                "    out[gid] = SUM(t);\n}\n");
    rf__put(&s, "__kernel void wr(__global VT *o, __global float *out, uint mask,\n"
                "                 uint steps, uint a, uint b, uint passes)\n{\n"
                "    uint gid = get_global_id(0);\n"
                "    for (uint p = 0; p < passes; p++) {\n"
                "        VT v = (VT)((float)p);\n"
                "        for (uint k = 0; k < steps; k += 4) {\n"
                "            o[IDX(k)] = v; o[IDX(k + 1)] = v;\n"
                "            o[IDX(k + 2)] = v; o[IDX(k + 3)] = v;\n"
                "        }\n"
                "    }\n"
                "    if (gid == 0) out[0] = o[0].s0;\n}\n");
    rf__put(&s, "__kernel void cp(__global const VT *in, __global VT *o, uint mask,\n"
                "                 uint steps, uint a, uint b, uint passes)\n{\n"
                "    uint gid = get_global_id(0);\n"
                "    for (uint p = 0; p < passes; p++)\n"
                "        for (uint k = 0; k < steps; k += 4) {\n"
                "            o[IDX(k)] = in[IDX(k)]; o[IDX(k + 1)] = in[IDX(k + 1)];\n"
                "            o[IDX(k + 2)] = in[IDX(k + 2)]; o[IDX(k + 3)] = in[IDX(k + 3)];\n"
                "        }\n}\n");
    /* Local memory: a tile of one vector per work-item, read four at a time at offsets that move
     * with the iteration (nothing to hoist out of the loop), neighbours on neighbouring banks. */
    rf__put(
        &s,
        "#define LW %zu\n"
        "__kernel void lm(__global float *out, uint iters)\n{\n"
        "    __local VT tile[LW];\n"
        "    uint l = get_local_id(0);\n"
        "    tile[l] = (VT)((float)l);\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    VT s0 = 0, s1 = 0, s2 = 0, s3 = 0;\n"
        "    for (uint i = 0; i < iters; i++) {\n"
        "        uint c = l + i;\n"
        "        s0 += tile[c & (LW - 1)]; s1 += tile[(c + LW / 4) & (LW - 1)];\n"
        "        s2 += tile[(c + LW / 2) & (LW - 1)]; s3 += tile[(c + 3 * LW / 4) & (LW - 1)];\n"
        "    }\n"
        "    VT t = (s0 + s1) + (s2 + s3);\n"
        "    out[get_global_id(0)] = SUM(t);\n}\n",
        wg);
    return rf__src_done(ctx, &s);
}
