/* cache.c — measured machines cached per machine: one machine file (the full JSON form) per CPU
 * model, CPU count, ISA and mode under $XDG_CACHE_HOME/roofline/ (else ~/.cache/roofline/),
 * written atomically (temporary file + rename). Backs `--hw measured`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "probe/probe_int.h"

/* Revision of what the probe measures (see rf__cache_key). */
#define RF__PROBE_REVISION "probe-4" /* 4: the cache keeps the best figure of every run */
#include "roofline/buf.h"
#include "roofline/hw.h"

static uint64_t rf__fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

rf_status rf__cache_dir(rf_ctx *ctx, char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/roofline", xdg);
    else if (home && home[0])
        n = snprintf(buf, size, "%s/.cache/roofline", home);
    else
        return rf__error(ctx, RF_IO, -1, "probe cache: neither XDG_CACHE_HOME nor HOME is set");
    RF_CHECK(ctx, n > 0 && (size_t)n < size, RF_RANGE, "probe cache: the folder name is too long");
    return RF_OK;
}

rf_status rf_probe_cache_path(rf_ctx *ctx, const rf_probe_opts *opts, char *buf, size_t size)
{
    int isa, cpus[256];
    char brand[96], count[16];
    struct utsname un;
    const char *kernel = uname(&un) == 0 ? un.release : "";
    RF_TRY(rf__isa_select(ctx, opts ? opts->isa : NULL, rf__cpu_features(), &isa));
    RF_TRY(rf__cache_dir(ctx, buf, size));
    rf__cpu_brand(brand, sizeof brand);
    unsigned n = rf__cpus_allowed(cpus, 256);
    if (opts && opts->max_threads && opts->max_threads < n) n = opts->max_threads;
    snprintf(count, sizeof count, ":%u", n);
    /* The library version and the probe's own revision are in the key: a newer probe measures
     * differently (kernels, clock chain, level naming), so a cache never serves an older probe's
     * figures. Bump RF__PROBE_REVISION whenever what the probe measures changes. */
    uint64_t h = rf__fnv1a(14695981039346656037ull, brand); /* same CPU, count, kernel */
    h = rf__fnv1a(rf__fnv1a(rf__fnv1a(h, count), kernel), rf_version());
    h = rf__fnv1a(h, RF__PROBE_REVISION);
    size_t len = strlen(buf);
    int k =
        snprintf(buf + len, size - len, "/peaks-%s-%s-%016llx.json",
                 opts && opts->quick ? "quick" : "full", rf__isa_name(isa), (unsigned long long)h);
    RF_CHECK(ctx, k > 0 && (size_t)k < size - len, RF_RANGE, "probe cache: the path is too long");
    return RF_OK;
}

rf_status rf__cache_read(rf_ctx *ctx, const char *path, rf_machine **out)
{
    struct stat sb;
    *out = NULL;
    if (stat(path, &sb) != 0) return RF_OK;
    rf_status st = rf_machine_read_file(ctx, path, out);
    if (st != RF_OK) {
        /* A damaged cache is not the caller's error: measure again. */
        rf__log(ctx, RF_LOG_WARN, "ignoring the cache file %s: %s", path, rf_ctx_errmsg(ctx));
        rf_ctx_clear_error(ctx);
        *out = NULL;
    } else if (rf_machine_provisional(*out)) {
        /* Served all the same: it holds the best figures measured here so far, and measuring
         * again on every call would loop on a busy machine. A later run can only raise them. */
        rf__log(ctx, RF_LOG_INFO,
                "peaks: some cached ceilings were measured while the machine was busy "
                "(provisional); 'roofline peaks --refresh' on a quiet machine can raise them");
    }
    return RF_OK;
}

rf_status rf_probe_cache_load(rf_ctx *ctx, const rf_probe_opts *opts, rf_machine **out)
{
    char path[1024];
    *out = NULL;
    RF_TRY(rf_probe_cache_path(ctx, opts, path, sizeof path));
    return rf__cache_read(ctx, path, out);
}

static rf_status rf__mkdirs(rf_ctx *ctx, char *dir)
{
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = '\0';
        int bad = mkdir(dir, 0755) != 0 && errno != EEXIST;
        *p = c;
        RF_CHECK(ctx, !bad, RF_IO, "probe cache: cannot create the folder %s: %s", dir,
                 strerror(errno));
        if (!c) return RF_OK;
    }
}

rf_status rf__cache_write(rf_ctx *ctx, const char *path, const rf_machine *m)
{
    char tmp[1100], dir[1024];
    rf_buf b;
    rf__strlcpy(dir, path, sizeof dir);
    char *slash = strrchr(dir, '/');
    RF_CHECK(ctx, slash && slash != dir, RF_USAGE, "probe cache: '%s' is not a path", path);
    *slash = '\0';
    RF_TRY(rf__mkdirs(ctx, dir));
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    /* A ceiling is the best the machine can do, and disturbance only lowers a figure: keep, per
     * ceiling, the higher of this run's and the cached one (with its own date and conditions).
     * A run can raise a cached figure, never lower it. */
    rf_machine *merged = NULL, *old = NULL;
    RF_TRY(rf_machine_clone(ctx, m, &merged));
    rf__order_check(merged);
    if (access(path, F_OK) == 0 && rf_machine_read_file(ctx, path, &old) == RF_OK)
        rf__merge_best(merged, old);
    rf_ctx_clear_error(ctx);
    rf_machine_free(old);
    m = merged;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_status st = rf_machine_write_json(ctx, m, 0, &w);
    if (st == RF_OK) {
        FILE *f = fopen(tmp, "wb");
        int ok = f && fwrite(b.data, 1, b.len, f) == b.len;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok || rename(tmp, path) != 0) {
            st = rf__error(ctx, RF_IO, -1, "probe cache: cannot write %s: %s", path,
                           strerror(errno));
            remove(tmp);
        }
    }
    rf_buf_free(&b);
    rf_machine_free(merged);
    return st;
}

rf_status rf_probe_cache_store(rf_ctx *ctx, const rf_probe_opts *opts, const rf_machine *m)
{
    char path[1024];
    RF_TRY(rf_probe_cache_path(ctx, opts, path, sizeof path));
    return rf__cache_write(ctx, path, m);
}

rf_status rf_probe_measured(rf_ctx *ctx, rf_machine **out)
{
    rf_probe_opts o;
    memset(&o, 0, sizeof o);
    RF_TRY(rf_probe_cache_load(ctx, &o, out));
    if (*out) return RF_OK;
    o.quick = 1;
    RF_TRY(rf_probe_cache_load(ctx, &o, out));
    if (*out) return RF_OK;
    rf__log(ctx, RF_LOG_INFO, "peaks: no measured machine in the cache: measuring (--quick)");
    rf_probe_report *r = NULL;
    RF_TRY(rf_probe_run(ctx, &o, &r));
    rf_status st = rf_probe_cache_store(ctx, &o, r->machine);
    if (st != RF_OK) {
        rf__log(ctx, RF_LOG_WARN, "%s", rf_ctx_errmsg(ctx));
        rf_ctx_clear_error(ctx);
    }
    char path[1024];
    if (st == RF_OK && rf_machine_provisional(r->machine) &&
        rf_probe_cache_path(ctx, &o, path, sizeof path) == RF_OK &&
        rf_machine_read_file(ctx, path, out) == RF_OK) { /* the best of this run and earlier ones */
        rf_probe_report_free(r);
        return RF_OK;
    }
    rf_ctx_clear_error(ctx);
    *out = r->machine;
    r->machine = NULL;
    rf_probe_report_free(r);
    return RF_OK;
}
