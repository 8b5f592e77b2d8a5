/* perf.c — which hardware counters this process could count FLOPs and bytes with: tries
 * perf_event_open (or a test's stand-in) for x86 floating-point retirement events (Intel
 * FP_ARITH_INST_RETIRED, AMD FpRetSseAvxOps) and last-level-cache misses (memory traffic at 64 B
 * a line), closes what it opened, and says so in one sentence; and the backend that keeps such
 * events open for the markers to read (region.c). Never prints. */
#define _DEFAULT_SOURCE 1 /* syscall(2) */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/rf_int.h"
#include "region_int.h"

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* type 0 = PERF_TYPE_HARDWARE, 4 = PERF_TYPE_RAW (stable ABI numbers, also without the header).
 * Intel FP_ARITH_INST_RETIRED (event 0xc7, one umask per width; an FMA counts twice; Intel SDM
 * vol. 3B, "Performance Monitoring Events"): FLOPs = count x elements per instruction. AMD
 * FpRetSseAvxOps.all (event 0x03, umask 0xff; Family 17h+ PPR, the kernel pairs its counter for
 * the large per-cycle increments) counts FLOPs themselves. Memory: last-level-cache misses, 64 B
 * a line (reads that missed; write-backs are not counted, so bytes are a lower bound). */
const rf__perf_event rf__perf_events[] = {
    {"fp_arith_inst_retired.scalar_double", 4, 0x01c7, 1, 0, 1},
    {"fp_arith_inst_retired.scalar_single", 4, 0x02c7, 1, 0, 1},
    {"fp_arith_inst_retired.128b_packed_double", 4, 0x04c7, 1, 0, 2},
    {"fp_arith_inst_retired.128b_packed_single", 4, 0x08c7, 1, 0, 4},
    {"fp_arith_inst_retired.256b_packed_double", 4, 0x10c7, 1, 0, 4},
    {"fp_arith_inst_retired.256b_packed_single", 4, 0x20c7, 1, 0, 8},
    {"fp_arith_inst_retired.512b_packed_double", 4, 0x40c7, 1, 0, 8},
    {"fp_arith_inst_retired.512b_packed_single", 4, 0x80c7, 1, 0, 16},
    {"fp_ret_sse_avx_ops.all", 4, 0xff03, 2, 0, 1},
    {"cache-misses (LLC, 64 B a line)", 0, 3 /* PERF_COUNT_HW_CACHE_MISSES */, 0, 1, 64},
};
const size_t rf__perf_n_events = sizeof rf__perf_events / sizeof *rf__perf_events;

int rf__perf_vendor(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    if (b == 0x756e6547u) return 1; /* "Genu"ineIntel */
    if (b == 0x68747541u) return 2; /* "Auth"enticAMD */
#endif
    return 0;
}

/* One event of the calling thread, user space only: counting from now (`counting`, its count
 * scaled by enabled/running time when the kernel multiplexes), or disabled (a probe). Returns the
 * descriptor or -errno. */
static int rf__perf_event_open(uint32_t type, uint64_t config, int counting)
{
#if defined(__linux__) && defined(SYS_perf_event_open)
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.disabled = !counting;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    if (counting)
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)type;
    (void)config;
    (void)counting;
    return -ENOSYS;
#endif
}

static int rf__perf_open_sys(void *user, uint32_t type, uint64_t config)
{
    (void)user;
    int fd = rf__perf_event_open(type, config, 0);
    if (fd < 0) return fd;
    close(fd);
    return 0;
}

/* The counting backend: the calling thread's event, read by rf__perf_count_read. */
static int rf__perf_count_open(void *user, uint32_t type, uint64_t config)
{
    (void)user;
    return rf__perf_event_open(type, config, 1);
}

static int rf__perf_count_read(void *user, int fd, uint64_t *count)
{
    (void)user;
    uint64_t v[3]; /* value, time enabled, time running */
    if (read(fd, v, sizeof v) != (ssize_t)sizeof v) return -EIO;
    *count = v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]) : v[0];
    return 0;
}

static void rf__perf_count_close(void *user, int fd)
{
    (void)user;
    close(fd);
}

const rf_perf_ops rf__perf_sys_ops = {rf__perf_count_open, rf__perf_count_read,
                                      rf__perf_count_close, NULL};

rf_status rf_perf_detect(rf_ctx *ctx, rf_perf_open_fn open_fn, void *user, rf_perf_counters *out)
{
    RF_CHECK(ctx, out, RF_USAGE, "rf_perf_detect: missing argument");
    memset(out, 0, sizeof *out);
    if (!open_fn) open_fn = rf__perf_open_sys;
    int vendor = rf__perf_vendor(), first_err = 0;
    size_t lf = 0, lm = 0;
    for (size_t i = 0; i < rf__perf_n_events; i++) {
        const rf__perf_event *e = &rf__perf_events[i];
        if (e->vendor && e->vendor != vendor && open_fn == rf__perf_open_sys) continue;
        int rc = open_fn(user, e->type, e->config);
        if (rc < 0) {
            if (!first_err) first_err = -rc;
            continue;
        }
        if (e->mem) {
            out->mem++;
            rf__appendf(out->mem_events, sizeof out->mem_events, &lm, "%s%s", lm ? ", " : "",
                        e->name);
        } else {
            out->fp++;
            rf__appendf(out->fp_events, sizeof out->fp_events, &lf, "%s%s", lf ? ", " : "",
                        e->name);
        }
    }
    if (!out->fp || !out->mem) {
        const char *why = first_err == ENOENT || first_err == EOPNOTSUPP
                              ? "the CPU or hypervisor exposes no such events"
                          : first_err == EACCES || first_err == EPERM
                              ? "not permitted (kernel.perf_event_paranoid)"
                          : first_err == ENOSYS ? "no perf_event interface"
                                                : "perf_event_open failed";
        snprintf(out->why, sizeof out->why, "%s (%s)", why,
                 first_err ? strerror(first_err) : "no event for this CPU");
    }
    return RF_OK;
}

const char *rf_perf_describe(const rf_perf_counters *c, char *buf, size_t size)
{
    if (c->fp && c->mem)
        snprintf(buf, size,
                 "hardware counters count each region: FLOPs from %s; bytes from %s (reads that "
                 "missed the last level: a lower bound of memory traffic)",
                 c->fp_events, c->mem_events);
    else
        snprintf(buf, size,
                 "no floating-point and memory counters: %s; FLOPs and bytes are the "
                 "rf_region_add counts",
                 c->why);
    return buf;
}
