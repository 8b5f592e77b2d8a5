/* plateau.c — memory levels from a working-set sweep: runs of sizes whose bandwidth stays within a
 * tolerance of the run's median are plateaus; single points between them are transitions; adjacent
 * plateaus that agree are merged. Named L1, L2, ... and DRAM for the last when the sweep went past
 * every cache. Pure arithmetic on recorded points (tests/unit/test_probe.c feeds it sweeps). */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"

typedef struct rf__seg {
    size_t first, last; /* point indices, inclusive */
    double median;
} rf__seg;

static int rf__cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double rf__median_of(const rf_probe_point *p, size_t first, size_t last)
{
    double v[64];
    size_t n = 0;
    for (size_t i = first; i <= last && n < 64; i++) v[n++] = p[i].bytes_per_s;
    if (n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, n, sizeof *v, rf__cmp_dbl);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int rf__near(double a, double b, double tol)
{
    return fabs(a / b - 1) <= tol;
}

/* Greedy runs: a point joins the current run when it is within tol of the run's median. */
static size_t rf__segment(const rf_probe_point *p, size_t n, double tol, rf__seg *seg, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        if (k && rf__near(p[i].bytes_per_s, seg[k - 1].median, tol)) {
            seg[k - 1].last = i;
            seg[k - 1].median = rf__median_of(p, seg[k - 1].first, i);
            continue;
        }
        seg[k].first = seg[k].last = i;
        seg[k++].median = p[i].bytes_per_s;
    }
    return k;
}

size_t rf__plateaus(const rf_probe_point *pts, size_t n, double tol, int has_dram,
                    rf_probe_level *levels, size_t max_levels)
{
    rf__seg seg[64], keep[64];
    if (n == 0 || max_levels == 0) return 0;
    if (n > 64) n = 64;
    size_t ns = rf__segment(pts, n, tol, seg, 64), nk = 0;
    for (size_t i = 0; i < ns; i++) {
        int lone = seg[i].first == seg[i].last, edge = i == 0 || i + 1 == ns;
        if (lone && !edge && ns > 1) continue; /* a transition between two plateaus */
        if (nk && rf__near(seg[i].median, keep[nk - 1].median, tol)) {
            keep[nk - 1].last = seg[i].last;
            keep[nk - 1].median = rf__median_of(pts, keep[nk - 1].first, seg[i].last);
            continue;
        }
        keep[nk++] = seg[i];
    }
    /* More plateaus than levels (noise, or a machine with more levels than asked for): merge the
     * two adjacent ones whose medians are closest until they fit. */
    while (nk > max_levels) {
        size_t best = 0;
        double dmin = HUGE_VAL;
        for (size_t i = 0; i + 1 < nk; i++) {
            double d = fabs(log(keep[i].median / keep[i + 1].median));
            if (d < dmin) dmin = d, best = i;
        }
        keep[best].last = keep[best + 1].last;
        keep[best].median = rf__median_of(pts, keep[best].first, keep[best].last);
        memmove(&keep[best + 1], &keep[best + 2], (nk - best - 2) * sizeof *keep);
        nk--;
    }
    for (size_t i = 0; i < nk; i++) {
        rf_probe_level *l = &levels[i];
        memset(l, 0, sizeof *l);
        if (has_dram && i + 1 == nk && nk > 1)
            rf__strlcpy(l->name, "DRAM", sizeof l->name);
        else
            snprintf(l->name, sizeof l->name, "L%u", (unsigned)(i + 1) & 0xffu);
        l->first_bytes = pts[keep[i].first].bytes;
        l->last_bytes = pts[keep[i].last].bytes;
        l->bytes_per_s = keep[i].median;
    }
    return nk;
}

/* Which private cache a per-thread working set fits in: 0 for L1, 1 for L2, 2 beyond (0 sizes
 * mean unknown). */
static int rf__cache_of(uint64_t bytes, const uint64_t private_bytes[2])
{
    if (private_bytes[0] && bytes <= private_bytes[0]) return 0;
    if (private_bytes[1] && bytes <= private_bytes[1]) return 1;
    return 2;
}

/* A level named `name` over the sweep points with sizes in [first, last] (clamped to the sweep):
 * its bandwidth is their median. */
static void rf__level_from(const rf_probe_point *pts, size_t n, uint64_t first, uint64_t last,
                           const char *name, rf_probe_level *l)
{
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    size_t a = SIZE_MAX, b = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].bytes >= first && pts[i].bytes <= last) {
            if (a == SIZE_MAX) a = i;
            b = i;
        }
    if (a == SIZE_MAX) { /* no point inside: the nearest one stands for it */
        a = b = 0;
        while (b + 1 < n && pts[b + 1].bytes <= first) b++;
        a = b;
    }
    l->first_bytes = pts[a].bytes;
    l->last_bytes = pts[b].bytes;
    l->bytes_per_s = rf__median_of(pts, a, b);
}

/* A plateau that runs past the end of a private cache is two levels whose figures came within the
 * tolerance of each other (here: L2 at 235 GB/s and the shared L3 at 195 GB/s per 2 threads, one
 * plateau from 48 KiB to 6 MiB, so L3 went missing): split it where the cache ends. */
static size_t rf__split_at_caches(const rf_probe_point *pts, size_t n,
                                  const uint64_t private_bytes[2], rf_probe_level *raw, size_t nr,
                                  size_t max)
{
    for (int k = 0; k < 2; k++) {
        uint64_t cap = private_bytes[k];
        for (size_t i = 0; i + 1 < nr; i++) { /* not the last: DRAM (a flat sweep is all one) */
            if (!(raw[i].first_bytes <= cap && raw[i].last_bytes > cap) || nr >= max) continue;
            uint64_t below = 0, above = 0;
            for (size_t j = 0; j < n; j++) {
                if (pts[j].bytes >= raw[i].first_bytes && pts[j].bytes <= cap) below = pts[j].bytes;
                if (!above && pts[j].bytes > cap && pts[j].bytes <= raw[i].last_bytes)
                    above = pts[j].bytes;
            }
            if (!below || !above) continue;
            memmove(&raw[i + 2], &raw[i + 1], (nr - i - 1) * sizeof *raw);
            rf_probe_level hi = raw[i];
            rf__level_from(pts, n, raw[i].first_bytes, below, raw[i].name, &raw[i]);
            rf__level_from(pts, n, above, hi.last_bytes, hi.name, &raw[i + 1]);
            nr++;
            i++;
        }
    }
    return nr;
}

size_t rf__plateaus_by_caches(const rf_probe_point *pts, size_t n, double tol,
                              const uint64_t private_bytes[2], rf_probe_level *levels,
                              size_t max_levels)
{
    rf_probe_level raw[16];
    size_t nr = rf__plateaus(pts, n, tol, 1, raw, 16);
    if (nr < 1 || !private_bytes[0] || !private_bytes[1] || max_levels < 4)
        return rf__plateaus(pts, n, tol, 1, levels, max_levels < 4 ? max_levels : 4);
    nr = rf__split_at_caches(pts, n, private_bytes, raw, nr, 16);
    /* Group the plateaus: L1 and L2 by the private cache their middle size fits in (hwloc knows
     * those even under a hypervisor), the last one is DRAM, everything between is L3. Counting
     * plateaus instead let noise shift every name by one. */
    int group[16];
    for (size_t i = 0; i < nr; i++) {
        uint64_t mid = (uint64_t)sqrt((double)raw[i].first_bytes * (double)raw[i].last_bytes);
        group[i] = i + 1 == nr ? 3 : rf__cache_of(mid, private_bytes);
    }
    static const char *const names[4] = {"L1", "L2", "L3", "DRAM"};
    rf_probe_level byg[4];
    int have[4] = {0, 0, 0, 0};
    for (int g = 0; g < 4; g++) {
        size_t first = SIZE_MAX, last = 0;
        for (size_t i = 0; i < nr; i++)
            if (group[i] == g) {
                if (first == SIZE_MAX) first = i;
                last = i;
            }
        if (first == SIZE_MAX) continue;
        rf__level_from(pts, n, raw[first].first_bytes, raw[last].last_bytes, names[g], &byg[g]);
        have[g] = 1;
    }
    /* A disturbed sweep can lose a level (its points read as the next one's): the private caches
     * are known, so measure them inside their sizes anyway; L3 in the gap before DRAM if any. */
    uint64_t lo = pts[0].bytes, hi = pts[n - 1].bytes;
    if (!have[0]) rf__level_from(pts, n, lo, private_bytes[0] / 4, "L1", &byg[0]), have[0] = 1;
    if (!have[1])
        rf__level_from(pts, n, 2 * private_bytes[0], private_bytes[1] / 2, "L2", &byg[1]),
            have[1] = 1;
    /* A flat sweep (one plateau: an unoptimised build, or a machine too busy to tell) is all
     * "DRAM": keep DRAM to the sizes past the caches so each level is measured where it lives. */
    if (have[3] && byg[3].first_bytes <= byg[1].last_bytes)
        rf__level_from(pts, n, 16 * byg[1].last_bytes, hi, "DRAM", &byg[3]);
    if (!have[2] && have[3] && byg[3].first_bytes >= 16 * byg[1].last_bytes)
        rf__level_from(pts, n, 4 * byg[1].last_bytes, byg[3].first_bytes / 2, "L3", &byg[2]),
            have[2] = 1;
    size_t nl = 0;
    for (int g = 0; g < 4; g++)
        if (have[g] && byg[g].first_bytes <= byg[g].last_bytes) levels[nl++] = byg[g];
    return nl;
}
