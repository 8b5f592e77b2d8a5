/* test_opencl.c — unit tests for the parts of the OpenCL device probe that need no device: the
 * "opencl[:P.D]" syntax, the cache path (keyed by device and mode), the merge of a device's
 * ceilings into a node's machine (prefix, replacing an earlier merge, the node's defaults kept,
 * bad prefixes and names too long), and every kernel source the probe writes checked by clang's
 * OpenCL C front end with the extensions it needs (fp16 and int8 dot products included, which
 * POCL lacks). Measuring a device is tests/cli/opencl.sh's (POCL). */
#define _GNU_SOURCE /* setenv, mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rf_test.h"
#include "roofline/opencl.h"
#ifdef RF_HAVE_OPENCL
#include "probe/ocl_int.h"
#endif

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

static void add(rf_ctx *ctx, rf_machine *m, const char *name, rf_ceiling_kind kind, double v)
{
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.kind = kind;
    c.value = v;
    c.provenance = RF_PROV_MEASURED;
    if (rf_machine_add(ctx, m, &c) != RF_OK) abort();
}

RF_TEST(select_syntax)
{
    rf_ctx *ctx = new_ctx();
    rf_ocl_device d;
    static const char *const bad[] = {"cuda",       "opencl:",     "opencl:1", "opencl:0.0x",
                                      "opencl:a.b", "opencl:-1.0", "OpenCL",   "opencl:0.0 "};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        RF_EXPECT_INT(rf_ocl_select(ctx, bad[i], &d), RF_USAGE);
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "opencl:PLATFORM.DEVICE");
    }
    /* A well-formed spec is never a usage error: a device, or no such device / no OpenCL. */
    rf_status st = rf_ocl_select(ctx, "opencl:63.63", &d);
    RF_EXPECT_INT(st, RF_UNSUPPORTED);
    rf_ctx_free(ctx);
}

RF_TEST(cache_path_keys)
{
    rf_ctx *ctx = new_ctx();
    char dir[] = "/tmp/rf_ocl_XXXXXX", a[1024], b[1024], c[1024];
    RF_REQUIRE(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    rf_ocl_device d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "Some GPU");
    snprintf(d.driver, sizeof d.driver, "1.0");
    rf_ocl_opts quick = {1, 0, 0}, full = {0, 0, 0};
    RF_EXPECT_INT(rf_ocl_cache_path(ctx, &d, &quick, a, sizeof a), RF_OK);
    RF_EXPECT_INT(rf_ocl_cache_path(ctx, &d, &full, b, sizeof b), RF_OK);
    RF_EXPECT(strncmp(a, dir, strlen(dir)) == 0);
    RF_EXPECT_CONTAINS(a, "/roofline/peaks-opencl-quick-");
    RF_EXPECT_CONTAINS(b, "/roofline/peaks-opencl-full-");
    snprintf(d.driver, sizeof d.driver, "1.1"); /* a new driver measures again */
    RF_EXPECT_INT(rf_ocl_cache_path(ctx, &d, &quick, c, sizeof c), RF_OK);
    RF_EXPECT(strcmp(a, c) != 0);
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_ocl_cache_load(ctx, &d, &quick, &m), RF_OK);
    RF_EXPECT(m == NULL); /* nothing stored yet */
    rf_machine *dev = NULL;
    RF_REQUIRE(rf_machine_new(ctx, "gpu", &dev) == RF_OK);
    add(ctx, dev, "fp32.fma.opencl", RF_CEILING_COMPUTE, 1e13);
    add(ctx, dev, "DRAM", RF_CEILING_BANDWIDTH, 1e12);
    RF_EXPECT_INT(rf_ocl_cache_store(ctx, &d, &quick, dev), RF_OK);
    RF_EXPECT_INT(rf_ocl_cache_load(ctx, &d, &quick, &m), RF_OK);
    RF_REQUIRE(m != NULL);
    RF_EXPECT_INT(m->n_ceilings, 2);
    RF_EXPECT_DBL(m->ceilings[0].value, 1e13);
    rf_machine_free(m);
    rf_machine_free(dev);
    remove(c);
    remove(a);
    snprintf(c, sizeof c, "%s/roofline", dir);
    remove(c);
    remove(dir);
    rf_ctx_free(ctx);
}

RF_TEST(merge_prefix_replaces)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *node = NULL, *dev = NULL;
    RF_REQUIRE(rf_machine_new(ctx, "node", &node) == RF_OK);
    RF_REQUIRE(rf_machine_new(ctx, "gpu", &dev) == RF_OK);
    add(ctx, node, "fp64.fma.avx512", RF_CEILING_COMPUTE, 1e11);
    add(ctx, node, "fp32.fma.avx512", RF_CEILING_COMPUTE, 2e11);
    add(ctx, node, "DRAM", RF_CEILING_BANDWIDTH, 2e10);
    node->default_compute = 1;
    add(ctx, dev, "fp32.fma.opencl", RF_CEILING_COMPUTE, 2e13);
    add(ctx, dev, "DRAM", RF_CEILING_BANDWIDTH, 1e12);
    add(ctx, dev, "h2d", RF_CEILING_NETWORK, 2.5e10);
    snprintf(dev->source, sizeof dev->source, "roofline peaks --device opencl:0.0: Some GPU");
    RF_EXPECT_INT(rf_ocl_merge(ctx, node, dev, "ocl0.0"), RF_OK);
    RF_EXPECT_INT(node->n_ceilings, 6);
    RF_EXPECT(rf_machine_find(node, "ocl0.0.fp32.fma.opencl") >= 0);
    RF_EXPECT(rf_machine_find(node, "ocl0.0.h2d") >= 0);
    long d = rf_machine_find(node, "ocl0.0.DRAM");
    RF_REQUIRE(d >= 0);
    RF_EXPECT_DBL(node->ceilings[d].value, 1e12);
    RF_EXPECT_CONTAINS(node->ceilings[d].source, "Some GPU");
    RF_EXPECT_STR(node->ceilings[node->default_compute].name, "fp32.fma.avx512");
    RF_EXPECT_STR(node->ceilings[node->default_bandwidth].name, "DRAM");
    /* Again, with a faster device: replaced, not duplicated; the defaults follow their names. */
    dev->ceilings[1].value = 2e12;
    RF_EXPECT_INT(rf_ocl_merge(ctx, node, dev, "ocl0.0"), RF_OK);
    RF_EXPECT_INT(node->n_ceilings, 6);
    d = rf_machine_find(node, "ocl0.0.DRAM");
    RF_EXPECT_DBL(node->ceilings[d].value, 2e12);
    RF_EXPECT_STR(node->ceilings[node->default_compute].name, "fp32.fma.avx512");
    /* Another device beside it. */
    RF_EXPECT_INT(rf_ocl_merge(ctx, node, dev, "ocl1.0"), RF_OK);
    RF_EXPECT_INT(node->n_ceilings, 9);
    /* Selecting the device's roof by prefix. */
    size_t c = 0;
    RF_EXPECT_INT(rf_machine_select(ctx, node, RF_CEILING_COMPUTE, "ocl1.0.fp32", &c), RF_OK);
    RF_EXPECT_STR(node->ceilings[c].name, "ocl1.0.fp32.fma.opencl");
    rf_machine_free(node);
    rf_machine_free(dev);
    rf_ctx_free(ctx);
}

RF_TEST(merge_refuses)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *node = NULL, *dev = NULL;
    RF_REQUIRE(rf_machine_new(ctx, "node", &node) == RF_OK);
    RF_REQUIRE(rf_machine_new(ctx, "gpu", &dev) == RF_OK);
    add(ctx, node, "fp32", RF_CEILING_COMPUTE, 1e11);
    add(ctx, node, "DRAM", RF_CEILING_BANDWIDTH, 2e10);
    add(ctx, dev, "fp32.fma.opencl", RF_CEILING_COMPUTE, 2e13);
    static const char *const bad[] = {
        "", "a b", ".x", "x.", "ocl0/0", "a\nb", "abcdefghijklmnopqrstuvwxyz0123456789"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        RF_EXPECT_INT(rf_ocl_merge(ctx, node, dev, bad[i]), RF_USAGE);
    RF_EXPECT_INT(node->n_ceilings, 2); /* untouched */
    char longname[RF_NAME_MAX];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    add(ctx, dev, longname, RF_CEILING_BANDWIDTH, 1e12);
    RF_EXPECT_INT(rf_ocl_merge(ctx, node, dev, "ocl0.0"), RF_RANGE);
    RF_EXPECT_INT(node->n_ceilings, 2);
    rf_machine_free(node);
    rf_machine_free(dev);
    rf_ctx_free(ctx);
}

#ifdef RF_HAVE_OPENCL
/* clang -fsyntax-only on `src` with `flags`; 0 when it compiles. */
static int clang_ok(const char *dir, const char *src, const char *flags)
{
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/k.cl", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(src, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "clang -x cl -Xclang -finclude-default-header -fsyntax-only %s %s 2>&1 | head -n 5 "
             ">&2; exit $(clang -x cl -Xclang -finclude-default-header -fsyntax-only %s %s "
             ">/dev/null 2>&1; echo $?)",
             flags, path, flags, path);
    return system(cmd);
}
#endif

RF_TEST(kernel_sources_compile)
{
#ifndef RF_HAVE_OPENCL
    RF_SKIP("built without OpenCL");
#else
    if (system("command -v clang >/dev/null 2>&1") != 0) RF_SKIP("no clang (install-deps has it)");
    rf_ctx *ctx = new_ctx();
    char dir[] = "/tmp/rf_oclsrc_XXXXXX";
    RF_REQUIRE(mkdtemp(dir));
    static char src[16384];
    static const struct {
        const char *prec;
        int kind;
        const char *flags;
    } cases[] = {
        {"fp32", 0, "-cl-std=CL1.2"},
        {"fp64", 0, "-cl-std=CL1.2"},
        {"fp16", 0, "-cl-std=CL1.2"},
        {"int8", 1, "-cl-std=CL3.0 -D__opencl_c_integer_dot_product_input_4x8bit=1"},
        {"int8", 2, "-cl-std=CL1.2 -Xclang -cl-ext=+cl_arm_integer_dot_product_accumulate_int8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (unsigned w = 1; w <= 16; w *= 2) {
            if (cases[i].kind && w > 1) continue;
            RF_EXPECT_INT(rf__ocl_src_fma(ctx, cases[i].prec, cases[i].kind, w, w >= 16 ? 8 : 16,
                                          src, sizeof src),
                          RF_OK);
            RF_EXPECT_CONTAINS(src, "__kernel void chains(");
            int rc = clang_ok(dir, src, cases[i].flags);
            if (rc != 0) fprintf(stderr, "%s width %u:\n%s\n", cases[i].prec, w, src);
            RF_EXPECT_INT(rc, 0);
        }
    RF_EXPECT_INT(rf__ocl_src_mem(ctx, 256, src, sizeof src), RF_OK);
    RF_EXPECT_INT(clang_ok(dir, src, "-cl-std=CL1.2 -DVT=float4 -DVW=4"), 0);
    RF_EXPECT_INT(clang_ok(dir, src, "-cl-std=CL1.2 -DVT=float16 -DVW=16"), 0);
    RF_EXPECT_INT(rf__ocl_src_fma(ctx, "fp32", 0, 3, 16, src, sizeof src), RF_USAGE);
    RF_EXPECT_INT(rf__ocl_src_fma(ctx, "fp32", 0, 16, 32, src, 64), RF_RANGE); /* too small */
    char k[300];
    snprintf(k, sizeof k, "%s/k.cl", dir);
    remove(k);
    remove(dir);
    rf_ctx_free(ctx);
#endif
}
