/* cpuload.c — how much of the machine other processes took while we measured: CPU time of every
 * process and of this one from /proc/stat and getrusage. The probe judges a peaks run with it and
 * the executor a --measure run; neither prints, the caller words it. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/rf_int.h"

#define RF__CPU_MIN_WINDOW_S 0.2 /* CPU-seconds summed over the CPUs */

rf__cpu_times rf__cpu_times_now(void)
{
    rf__cpu_times t = {0, 0, 0, 0};
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    long hz = sysconf(_SC_CLK_TCK);
    if (f) {
        t.ok = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                      &v[4], &v[5], &v[6], &v[7]) == 8 &&
               hz > 0;
        fclose(f);
    }
    double sum = 0;
    for (int i = 0; i < 8; i++) sum += (double)v[i];
    t.total = sum / (double)(hz > 0 ? hz : 100);
    t.busy = (sum - (double)v[3] - (double)v[4]) / (double)(hz > 0 ? hz : 100);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        t.self = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                 (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return t;
}

double rf__cpu_others_share(const rf__cpu_times *a, const rf__cpu_times *b)
{
    /* /proc/stat counts in ticks (10 ms): under 20 of them the share is too coarse to judge. */
    if (!a->ok || !b->ok || !(b->total - a->total >= RF__CPU_MIN_WINDOW_S)) return -1;
    double other = (b->busy - a->busy) - (b->self - a->self);
    double share = other / (b->total - a->total);
    return share < 0 ? 0 : share > 1 ? 1 : share;
}
