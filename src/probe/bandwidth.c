/* bandwidth.c — bandwidth ceilings: a load sweep over per-thread working sets from 3 KiB to far
 * past the last cache, plateaus named L1, L2, L3, DRAM (plateau.c) and compared with hwloc's sizes,
 * then every mix (load, store, copy, triad, non-temporal) at each level on each thread count. Bytes
 * are counted as the core issues them: reads + writes (copy = read + write; write-allocate traffic
 * of ordinary stores is not counted). The roof of a level uses the best of load, copy and triad. */
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"

#define RF__GRAIN 1536u               /* bytes: 192 doubles, what every kernel divides */
#define RF__DRAM_TOTAL (512ull << 20) /* working set of all threads for DRAM */
#define RF__MAXT 256
#define RF__MIXES 6

typedef struct rf__bw_job {
    const rf__bw_kernel *k;
    double *buf[RF__MAXT];
    void *raw[RF__MAXT];
    size_t cap; /* doubles per thread */
    size_t n;   /* doubles per thread in use */
    volatile double sink[RF__MAXT];
} rf__bw_job;

static void rf__bw_touch(void *arg, unsigned tid)
{
    rf__bw_job *j = arg;
    for (size_t i = 0; i < j->cap; i++) j->buf[tid][i] = 1.0;
}

static void rf__bw_work(void *arg, unsigned tid, uint64_t units)
{
    rf__bw_job *j = arg;
    j->sink[tid] = j->k->fn(j->buf[tid], j->n, units, 0.5);
}

static void rf__bw_release(rf_ctx *ctx, rf__bw_job *j, unsigned nt)
{
    for (unsigned t = 0; t < nt; t++) rf__free(ctx, j->raw[t]);
    rf__free(ctx, j);
}

/* Buffers of `bytes` per thread, allocated here and first touched by the worker that uses them. */
static rf_status rf__bw_alloc(rf_ctx *ctx, rf__team *team, uint64_t bytes, rf__bw_job **out)
{
    unsigned nt = rf__team_size(team);
    rf__bw_job *j = rf__calloc(ctx, 1, sizeof *j);
    if (!j) return RF_NOMEM_ERR(ctx);
    j->cap = (size_t)(bytes / 8);
    for (unsigned t = 0; t < nt; t++) {
        j->raw[t] = rf__malloc(ctx, (size_t)bytes + 64);
        if (!j->raw[t]) {
            rf__bw_release(ctx, j, nt);
            return rf__error(ctx, RF_NOMEM, -1, "probe: cannot allocate %llu bytes per thread",
                             (unsigned long long)bytes);
        }
        j->buf[t] = (double *)(((uintptr_t)j->raw[t] + 63) & ~(uintptr_t)63);
    }
    rf__team_run(team, rf__bw_touch, j);
    *out = j;
    return RF_OK;
}

static rf_status rf__bw_measure(rf__probe_run *run, rf__team *team, rf__bw_job *j,
                                const rf__bw_kernel *k, uint64_t bytes, rf__stats *s)
{
    j->k = k;
    j->n = (size_t)(bytes / RF__GRAIN * RF__GRAIN / 8);
    rf__bench b = {team, rf__bw_work, j, (double)j->n * 8, run->min_time_s, run->reps};
    return rf__bench_run(run->ctx, &b, s);
}

/* Sweep the load kernel over per-thread sizes 3 KiB x 2^k up to `max`; detect the levels. */
static rf_status rf__sweep(rf__probe_run *run, rf__team *team, rf__bw_job *j,
                           const rf__bw_kernel *load, uint64_t max)
{
    rf_probe_report *r = run->rep;
    size_t n = 0;
    for (uint64_t b = 2 * RF__GRAIN; b <= max; b *= 2) n++;
    r->sweep = rf__calloc(run->ctx, n ? n : 1, sizeof *r->sweep);
    if (!r->sweep) return RF_NOMEM_ERR(run->ctx);
    char what[96];
    snprintf(what, sizeof what, "working-set sweep with %s, %u threads", load->id,
             rf__team_size(team));
    rf__progress(run, what);
    for (uint64_t b = 2 * RF__GRAIN; b <= max; b *= 2) {
        rf__stats s;
        RF_TRY(rf__bw_measure(run, team, j, load, b, &s));
        r->sweep[r->n_sweep].bytes = b;
        r->sweep[r->n_sweep++].bytes_per_s = s.best;
    }
    r->sweep_threads = rf__team_size(team);
    uint64_t hw[4];
    rf__cache_sizes(hw);
    r->n_levels = rf__plateaus_by_caches(r->sweep, r->n_sweep, 0.2, hw, r->levels, 4);
    return RF_OK;
}

/* Compare the plateaus with hwloc's cache sizes; fill hwloc_bytes and the report's note. */
static void rf__levels_note(rf_probe_report *r)
{
    uint64_t hw[4];
    char a[32], b[32], c[32];
    size_t len = 0;
    rf__cache_sizes(hw);
    r->levels_note[0] = '\0';
    for (size_t i = 0; i + 1 < r->n_levels && i < 4; i++) {
        rf_probe_level *l = &r->levels[i];
        uint64_t mult = i >= 2 ? r->sweep_threads : 1; /* L3 and beyond are shared */
        uint64_t lo = l->last_bytes * mult, hi = r->levels[i + 1].first_bytes * mult;
        l->hwloc_bytes = hw[i];
        int ok = hw[i] && hw[i] * 1.01 >= (double)lo && hw[i] <= hi * 1.01;
        rf__appendf(r->levels_note, sizeof r->levels_note, &len,
                    "%s%s ends between %s and %s%s (hwloc: %s%s)", len ? "; " : "", l->name,
                    rf_bytes_format_iec(a, sizeof a, (double)lo, 3),
                    rf_bytes_format_iec(b, sizeof b, (double)hi, 3), mult > 1 ? " in all" : "",
                    hw[i] ? rf_bytes_format_iec(c, sizeof c, (double)hw[i], 3) : "unknown",
                    ok ? "" : ", mismatch: the sweep is used");
    }
}

/* The size a level is measured at: the geometric middle of its plateau, but at least four times
 * the previous level's last size (a noisy sweep can start a plateau on the transition, where the
 * smaller cache still holds part of the data and inflates the figure); DRAM: the largest. */
static uint64_t rf__level_bytes(const rf_probe_level *l, const rf_probe_level *prev, int is_last,
                                uint64_t max)
{
    if (is_last) return max;
    unsigned steps = 0;
    for (uint64_t b = l->first_bytes; b < l->last_bytes; b *= 2) steps++;
    uint64_t bytes = l->first_bytes << (steps / 2);
    if (prev && bytes < 4 * prev->last_bytes) bytes = 4 * prev->last_bytes;
    return bytes < l->last_bytes ? bytes : l->last_bytes;
}

typedef struct rf__lvl_fig {
    rf__stats s[16][RF__MIXES];
    uint64_t bytes;
} rf__lvl_fig;

static const char *const rf__mix_names[RF__MIXES] = {"load",  "copy",     "triad",
                                                     "store", "store.nt", "copy.nt"};

/* The kernels of the chosen ISA, by mix (NULL where it has none; quick: load, copy, triad). */
static void rf__mix_kernels(const rf__probe_run *run, const rf__bw_kernel **mk)
{
    const rf__bw_kernel *all[64];
    size_t n = rf__bw_usable(run->isa, run->features, all, 64);
    for (int m = 0; m < RF__MIXES; m++) {
        mk[m] = NULL;
        if (run->opts->quick && m > 2) continue;
        for (size_t i = 0; i < n && !mk[m]; i++)
            if (strcmp(all[i]->mix, rf__mix_names[m]) == 0) mk[m] = all[i];
    }
}

/* The ceiling of level `l`: best of load, copy, triad on the most threads; the rest in the note. */
static rf_status rf__add_level(rf__probe_run *run, const rf_probe_level *lv, const rf__lvl_fig *f,
                               const rf__bw_kernel **mk, const unsigned *tc, size_t ntc)
{
    char note[RF_TEXT_MAX], src[RF_TEXT_MAX], v[32], sz[32];
    size_t len = 0;
    int best = 0;
    for (int m = 1; m < 3; m++)
        if (mk[m] && f->s[0][m].best > f->s[0][best].best) best = m;
    rf__appendf(note, sizeof note, &len, "roof: %s, CV %.1f%%%s;", rf__mix_names[best],
                100 * f->s[0][best].cv, f->s[0][best].disturbed ? " (disturbed)" : "");
    for (size_t t = 0; t < ntc; t++) {
        rf__appendf(note, sizeof note, &len, "%s %u thread%s:", t ? ";" : "", tc[t],
                    tc[t] > 1 ? "s" : "");
        for (int m = 0; m < RF__MIXES; m++)
            if (mk[m])
                rf__appendf(note, sizeof note, &len, " %s %s", rf__mix_names[m],
                            rf_si_format(v, sizeof v, f->s[t][m].best, 3, ""));
    }
    snprintf(src, sizeof src,
             "roofline peaks: %s kernels at %s per thread; bytes = reads + writes issued "
             "(write-allocate not counted)",
             rf__isa_name(run->isa), rf_bytes_format_iec(sz, sizeof sz, (double)f->bytes, 3));
    return rf__probe_add(run, lv->name, RF_CEILING_BANDWIDTH, &f->s[0][best], tc[0], src, note);
}

rf_status rf__probe_bandwidth(rf__probe_run *run)
{
    const rf__bw_kernel *mk[RF__MIXES];
    rf__mix_kernels(run, mk);
    RF_CHECK(run->ctx, mk[0], RF_INTERNAL, "probe: no load kernel for %s", rf__isa_name(run->isa));
    unsigned tc[16];
    size_t ntc = 0;
    tc[ntc++] = run->threads;
    if (!run->opts->quick && run->threads > 1) tc[ntc++] = 1;
    rf__lvl_fig *figs = rf__calloc(run->ctx, RF_PROBE_MAX_LEVELS, sizeof *figs);
    if (!figs) return RF_NOMEM_ERR(run->ctx);
    rf_status st = RF_OK;
    for (size_t t = 0; t < ntc && st == RF_OK; t++) {
        rf__team *team = NULL;
        rf__bw_job *j = NULL;
        uint64_t max = RF__DRAM_TOTAL / tc[t] / RF__GRAIN * RF__GRAIN;
        if ((st = rf__team_new(run->ctx, tc[t], &team)) != RF_OK) break;
        st = rf__bw_alloc(run->ctx, team, max, &j);
        if (st == RF_OK && t == 0) st = rf__sweep(run, team, j, mk[0], max);
        if (st == RF_OK && t == 0) rf__levels_note(run->rep);
        for (size_t l = 0; l < run->rep->n_levels && st == RF_OK; l++) {
            const rf_probe_level *lv = &run->rep->levels[l];
            uint64_t bytes =
                rf__level_bytes(lv, l ? lv - 1 : NULL, l + 1 == run->rep->n_levels, max);
            char what[96];
            snprintf(what, sizeof what, "%s mixes, %u thread%s", lv->name, tc[t],
                     tc[t] > 1 ? "s" : "");
            rf__progress(run, what);
            if (t == 0) figs[l].bytes = bytes;
            unsigned reps = run->reps;
            if (l + 1 == run->rep->n_levels && run->reps > 3) run->reps = 3; /* DRAM: long passes */
            for (int m = 0; m < RF__MIXES && st == RF_OK; m++)
                if (mk[m]) st = rf__bw_measure(run, team, j, mk[m], bytes, &figs[l].s[t][m]);
            run->reps = reps;
        }
        if (j) rf__bw_release(run->ctx, j, tc[t]);
        rf__team_free(run->ctx, team);
    }
    for (size_t l = 0; l < run->rep->n_levels && st == RF_OK; l++)
        st = rf__add_level(run, &run->rep->levels[l], &figs[l], mk, tc, ntc);
    rf__free(run->ctx, figs);
    return st;
}
