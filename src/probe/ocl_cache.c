/* ocl_cache.c — measured OpenCL devices cached beside the CPU's (cache.c: same folder, same merge
 * of the best figure per ceiling, same atomic write), one file per platform, device, driver, mode
 * and library version; and a device's ceilings merged into a node's machine under a prefix. Needs
 * no OpenCL: it works on the machines the device probe made. */
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"
#include "roofline/opencl.h"

/* Revision of what the device probe measures: bump it when the kernels or the method change. */
#define RF__OCL_REVISION "ocl-1"

static uint64_t rf__ocl_fnv(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (h ^ 0xff) * 1099511628211ull; /* a separator: "ab"+"c" is not "a"+"bc" */
}

rf_status rf_ocl_cache_path(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                            char *buf, size_t size)
{
    RF_CHECK(ctx, dev && buf && size, RF_USAGE, "rf_ocl_cache_path: missing argument");
    RF_TRY(rf__cache_dir(ctx, buf, size));
    uint64_t h = 14695981039346656037ull;
    const char *parts[] = {dev->platform_name, dev->name,    dev->vendor,     dev->version,
                           dev->driver,        rf_version(), RF__OCL_REVISION};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) h = rf__ocl_fnv(h, parts[i]);
    size_t len = strlen(buf);
    int k = snprintf(buf + len, size - len, "/peaks-opencl-%s-%016llx.json",
                     opts && opts->quick ? "quick" : "full", (unsigned long long)h);
    RF_CHECK(ctx, k > 0 && (size_t)k < size - len, RF_RANGE, "probe cache: the path is too long");
    return RF_OK;
}

rf_status rf_ocl_cache_load(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                            rf_machine **out)
{
    char path[1024];
    RF_CHECK(ctx, out, RF_USAGE, "rf_ocl_cache_load: missing argument");
    *out = NULL;
    RF_TRY(rf_ocl_cache_path(ctx, dev, opts, path, sizeof path));
    return rf__cache_read(ctx, path, out);
}

rf_status rf_ocl_cache_store(rf_ctx *ctx, const rf_ocl_device *dev, const rf_ocl_opts *opts,
                             const rf_machine *m)
{
    char path[1024];
    RF_CHECK(ctx, m, RF_USAGE, "rf_ocl_cache_store: missing argument");
    RF_TRY(rf_ocl_cache_path(ctx, dev, opts, path, sizeof path));
    return rf__cache_write(ctx, path, m);
}

static int rf__prefix_ok(const char *p)
{
    size_t n = strlen(p);
    if (n == 0 || n > 31 || p[0] == '.' || p[n - 1] == '.') return 0;
    for (; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

rf_status rf_ocl_merge(rf_ctx *ctx, rf_machine *node, const rf_machine *dev, const char *prefix)
{
    RF_CHECK(ctx, node && dev && prefix, RF_USAGE, "rf_ocl_merge: missing argument");
    RF_CHECK(ctx, rf__prefix_ok(prefix), RF_USAGE,
             "merge: prefix '%s' is not 1-31 letters, digits, '.', '_' or '-'", prefix);
    size_t plen = strlen(prefix);
    RF_CHECK(ctx, node->n_ceilings > 0, RF_USAGE, "merge: the node's machine has no ceiling");
    char dc[RF_NAME_MAX], db[RF_NAME_MAX];
    rf__strlcpy(dc, node->ceilings[node->default_compute].name, sizeof dc);
    rf__strlcpy(db, node->ceilings[node->default_bandwidth].name, sizeof db);
    for (size_t i = 0; i < dev->n_ceilings; i++)
        RF_CHECK(ctx, plen + 1 + strlen(dev->ceilings[i].name) < RF_NAME_MAX, RF_RANGE,
                 "merge: '%s.%s' is longer than %d bytes", prefix, dev->ceilings[i].name,
                 RF_NAME_MAX - 1);
    /* What an earlier merge under this prefix left goes: a merge replaces, never duplicates. */
    size_t kept = 0;
    for (size_t i = 0; i < node->n_ceilings; i++) {
        const char *name = node->ceilings[i].name;
        if (strncmp(name, prefix, plen) == 0 && name[plen] == '.') continue;
        node->ceilings[kept++] = node->ceilings[i];
    }
    node->n_ceilings = kept;
    long c = rf_machine_find(node, dc), b = rf_machine_find(node, db);
    RF_CHECK(ctx, c >= 0 && b >= 0, RF_USAGE,
             "merge: the node's default ceilings are under the prefix '%s' (merge the device "
             "into the CPU's machine file)",
             prefix);
    node->default_compute = (size_t)c;
    node->default_bandwidth = (size_t)b;
    for (size_t i = 0; i < dev->n_ceilings; i++) {
        rf_ceiling x = dev->ceilings[i];
        size_t nlen = strlen(dev->ceilings[i].name); /* fits: checked above */
        memcpy(x.name, prefix, plen);
        x.name[plen] = '.';
        memcpy(x.name + plen + 1, dev->ceilings[i].name, nlen + 1);
        /* The device and the conditions it was measured in (the node's source is the CPU's). */
        if (dev->source[0]) rf__strlcpy(x.source, dev->source, sizeof x.source);
        RF_TRY(rf_machine_add(ctx, node, &x));
    }
    return RF_OK;
}
