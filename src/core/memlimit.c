/* memlimit.c — how much memory this process may really take now: the least of the kernel's
 * MemAvailable, the address-space and data rlimits (less what is mapped already) and the cgroup's
 * limit (v2 memory.max less memory.current, or v1 memory.limit_in_bytes less usage), with the
 * name of the one that binds. What the executor and the LLM pass check a plan against before
 * they allocate, so a small hostile file cannot ask for more than the machine offers. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "core/rf_int.h"

/* The first number in a file (a cgroup knob); 0 when absent or "max". */
static int rf__read_u64(const char *path, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long v = 0;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    if (ok) *out = v;
    return ok;
}

/* "Key:   N kB" from /proc/meminfo or /proc/self/status, in bytes. */
static int rf__kb_field(const char *path, const char *key, uint64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    size_t n = strlen(key);
    int ok = 0;
    while (!ok && fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%llu", &kb) == 1)
            *out = (uint64_t)kb * 1024, ok = 1;
    }
    fclose(f);
    return ok;
}

static void rf__least(uint64_t v, const char *what, uint64_t *best, const char **why)
{
    if (v < *best) *best = v, *why = what;
}

uint64_t rf__mem_usable(const char **what)
{
    uint64_t best = UINT64_MAX, v, used = 0, vm = 0;
    const char *why = "no limit known";
    if (rf__kb_field("/proc/meminfo", "MemAvailable", &v))
        rf__least(v, "MemAvailable", &best, &why);
    rf__kb_field("/proc/self/status", "VmSize", &vm);
    rf__kb_field("/proc/self/status", "VmData", &used);
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        rf__least((uint64_t)rl.rlim_cur > vm ? (uint64_t)rl.rlim_cur - vm : 0, "RLIMIT_AS", &best,
                  &why);
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        rf__least((uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0, "RLIMIT_DATA",
                  &best, &why);
    uint64_t lim, cur = 0;
    if (rf__read_u64("/sys/fs/cgroup/memory.max", &lim)) { /* v2 ("max": no number, no limit) */
        rf__read_u64("/sys/fs/cgroup/memory.current", &cur);
        rf__least(lim > cur ? lim - cur : 0, "the cgroup's memory.max", &best, &why);
    } else if (rf__read_u64("/sys/fs/cgroup/memory/memory.limit_in_bytes", &lim) &&
               lim < (1ull << 60)) { /* v1; "no limit" reads as a huge number */
        rf__read_u64("/sys/fs/cgroup/memory/memory.usage_in_bytes", &cur);
        rf__least(lim > cur ? lim - cur : 0, "the cgroup's memory limit", &best, &why);
    }
    if (what) *what = why;
    return best;
}
