/* compute.c — compute ceilings: every usable kernel (quick: fp64 and fp32 FMA of the chosen ISA)
 * on 1, 2, 4, ... and all threads, and the clock under each ISA (a dependent chain of 1-cycle adds)
 * so each figure is shown beside its hardware limit, FLOPs/cycle x measured GHz x threads. */
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"

#define RF__BLOCK 256 /* iterations per harness unit */

typedef struct rf__flop_job {
    const rf__flop_kernel *k;
    rf__clock_fn clock;
    volatile double sink[256];
} rf__flop_job;

static void rf__flop_work(void *arg, unsigned tid, uint64_t units)
{
    rf__flop_job *j = arg;
    j->sink[tid & 255] = j->k->fn(units * RF__BLOCK, j->k->a, j->k->b);
}

static void rf__clock_work(void *arg, unsigned tid, uint64_t units)
{
    rf__flop_job *j = arg;
    j->sink[tid & 255] = (double)j->clock(units * RF__BLOCK);
}

/* Thread counts to measure, largest first: all, then ..., 4, 2, 1 (quick: all only). */
static size_t rf__thread_counts(const rf__probe_run *run, unsigned *out)
{
    size_t k = 0;
    out[k++] = run->threads;
    if (run->opts->quick) return k;
    unsigned p = 1;
    while (p * 2 < run->threads) p *= 2;
    for (; p >= 1 && k < 16; p /= 2)
        if (p < run->threads) out[k++] = p;
    return k;
}

/* Clock in GHz per core under each ISA at the team's threads (0 when not measured); with `only`
 * >= 0, under that ISA only. */
static rf_status rf__clocks(rf__probe_run *run, rf__team *team, double *ghz, int only)
{
    rf__flop_job *j = rf__calloc(run->ctx, 1, sizeof *j);
    if (!j) return RF_NOMEM_ERR(run->ctx);
    rf_status st = RF_OK;
    for (int isa = 0; isa <= run->isa && st == RF_OK; isa++) {
        if (only >= 0 && isa != only) continue;
        ghz[isa] = 0;
        if (!rf__clock_kernels[isa] || (run->opts->quick && isa != run->isa)) continue;
        j->clock = rf__clock_kernels[isa];
        rf__bench b = {
            team,     rf__clock_work, j, (double)RF__BLOCK * RF__CLOCK_CHAIN, run->min_time_s,
            run->reps};
        rf__stats s;
        st = rf__bench_run(run->ctx, &b, &s);
        ghz[isa] = s.best / rf__team_size(team) / 1e9;
    }
    rf__free(run->ctx, j);
    return st;
}

static rf_status rf__measure_kernel(rf__probe_run *run, rf__team *team, const rf__flop_kernel *k,
                                    rf__stats *s)
{
    rf__flop_job *j = rf__calloc(run->ctx, 1, sizeof *j);
    if (!j) return RF_NOMEM_ERR(run->ctx);
    j->k = k;
    rf__bench b = {team,     rf__flop_work, j, k->flops_per_iter * RF__BLOCK, run->min_time_s,
                   run->reps};
    rf_status st = rf__bench_run(run->ctx, &b, s);
    rf__free(run->ctx, j);
    return st;
}

/* The kernels to run: all usable, or in quick mode the best fp64 and fp32 FMA (else the best). */
static size_t rf__pick(const rf__probe_run *run, const rf__flop_kernel **ks, size_t n)
{
    if (!run->opts->quick) return n;
    const rf__flop_kernel *out[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        int p = strcmp(ks[i]->precision, "fp64") == 0   ? 0
                : strcmp(ks[i]->precision, "fp32") == 0 ? 1
                                                        : -1;
        if (p < 0 || strstr(ks[i]->id, "scalar")) continue;
        int better = !out[p] || ks[i]->isa > out[p]->isa ||
                     (ks[i]->isa == out[p]->isa && strcmp(ks[i]->op, "fma") == 0);
        if (better) out[p] = ks[i];
    }
    size_t k = 0;
    for (int p = 0; p < 2; p++)
        if (out[p]) ks[k++] = out[p];
    return k;
}

#define RF__MAXK 64
typedef struct rf__flop_fig {
    rf__stats s[16];
    double ghz[16];
} rf__flop_fig;

static rf_status rf__add_compute(rf__probe_run *run, const rf__flop_kernel *k, const unsigned *tc,
                                 size_t ntc, const rf__flop_fig *f)
{
    char note[RF_TEXT_MAX], v[32], src[RF_TEXT_MAX];
    size_t len = 0;
    note[0] = '\0';
    if (k->flops_per_cycle > 0 && f->ghz[0] > 0) {
        double lim = k->flops_per_cycle * f->ghz[0] * 1e9 * tc[0];
        rf__appendf(note, sizeof note, &len, "limit %g FLOP/cycle x %.2f GHz x %u = %s (%.0f%%); ",
                    k->flops_per_cycle, f->ghz[0], tc[0], rf_si_format(v, sizeof v, lim, 3, ""),
                    100 * f->s[0].best / lim);
    } else if (f->ghz[0] > 0) {
        rf__appendf(note, sizeof note, &len, "%.1f FLOP/cycle at %.2f GHz; ",
                    f->s[0].best / tc[0] / (f->ghz[0] * 1e9), f->ghz[0]);
    }
    if (k->flops_per_cycle > 0 && f->ghz[0] > 0 && strcmp(k->precision, "fp32") == 0 &&
        strcmp(k->op, "fma") == 0 && k->isa == run->isa) /* the default roof: for disturb.c */
        run->q.limit_fraction = f->s[0].best / (k->flops_per_cycle * f->ghz[0] * 1e9 * tc[0]);
    rf__appendf(note, sizeof note, &len, "CV %.1f%%", 100 * f->s[0].cv);
    if (f->s[0].disturbed)
        rf__appendf(note, sizeof note, &len, " (%u of %u repetitions disturbed)", f->s[0].disturbed,
                    f->s[0].n);
    for (size_t t = 1; t < ntc; t++)
        rf__appendf(note, sizeof note, &len, "; %u thread%s %s (x%.2f)", tc[t],
                    tc[t] > 1 ? "s" : "", rf_si_format(v, sizeof v, f->s[t].best, 3, ""),
                    f->s[0].best / f->s[t].best);
    snprintf(src, sizeof src, "roofline peaks: kernel %s, %.0f %s per iteration", k->id,
             k->flops_per_iter, strcmp(k->precision, "int8") == 0 ? "OP" : "FLOP");
    return rf__probe_add(run, k->id, RF_CEILING_COMPUTE, &f->s[0], tc[0], src, note);
}

/* A throughput kernel on more threads is never slower than on fewer unless something else ran on
 * the CPUs meanwhile (on a VM the host's other tenants, which no counter here shows). Such a figure
 * is measured again, up to twice, and the better kept. */
static rf_status rf__remeasure_slow(rf__probe_run *run, const rf__flop_kernel *const *ks, size_t nk,
                                    const unsigned *tc, size_t ntc, rf__flop_fig *figs)
{
    rf__team *team = NULL;
    rf_status st = RF_OK;
    for (size_t i = 0; i < nk && st == RF_OK; i++) {
        for (int attempt = 0; attempt < 2; attempt++) {
            double fewer = 0;
            for (size_t t = 1; t < ntc; t++)
                if (figs[i].s[t].best > fewer) fewer = figs[i].s[t].best;
            if (figs[i].s[0].best >= fewer) break;
            if (!team && (st = rf__team_new(run->ctx, tc[0], &team)) != RF_OK) break;
            rf__stats again;
            if ((st = rf__measure_kernel(run, team, ks[i], &again)) != RF_OK) break;
            if (again.best > figs[i].s[0].best) figs[i].s[0] = again;
        }
    }
    rf__team_free(run->ctx, team);
    return st;
}

rf_status rf__probe_compute(rf__probe_run *run)
{
    const rf__flop_kernel *ks[RF__MAXK];
    size_t nk = rf__pick(run, ks, rf__flop_usable(run->isa, run->features, ks, RF__MAXK));
    unsigned tc[16];
    size_t ntc = rf__thread_counts(run, tc);
    rf__flop_fig *figs = rf__calloc(run->ctx, nk ? nk : 1, sizeof *figs);
    if (!figs) return RF_NOMEM_ERR(run->ctx);
    rf_status st = RF_OK;
    for (size_t t = 0; t < ntc && st == RF_OK; t++) {
        rf__team *team = NULL;
        double ghz[RF__ISA_COUNT] = {0};
        char what[96];
        if ((st = rf__team_new(run->ctx, tc[t], &team)) != RF_OK) break;
        snprintf(what, sizeof what, "clock per instruction set, %u thread%s", tc[t],
                 tc[t] > 1 ? "s" : "");
        rf__progress(run, what);
        st = rf__clocks(run, team, ghz, -1);
        if (t == 0) {
            run->q.clock_before_ghz = ghz[run->isa];
            for (int k = 0; k < RF__ISA_COUNT; k++)
                if (ghz[k] > run->q.clock_top_ghz) run->q.clock_top_ghz = ghz[k];
        }
        for (size_t i = 0; i < nk && st == RF_OK; i++) {
            snprintf(what, sizeof what, "%s, %u thread%s", ks[i]->id, tc[t], tc[t] > 1 ? "s" : "");
            rf__progress(run, what);
            st = rf__measure_kernel(run, team, ks[i], &figs[i].s[t]);
            figs[i].ghz[t] = ghz[strstr(ks[i]->id, "scalar") ? RF__ISA_GENERIC : ks[i]->isa];
        }
        if (st == RF_OK && t == 0) { /* the clock again: did it fall while the kernels ran? */
            double after[RF__ISA_COUNT] = {0};
            st = rf__clocks(run, team, after, run->isa);
            run->q.clock_after_ghz = after[run->isa];
        }
        rf__team_free(run->ctx, team);
    }
    if (st == RF_OK && ntc > 1) st = rf__remeasure_slow(run, ks, nk, tc, ntc, figs);
    for (size_t i = 0; i < nk && st == RF_OK; i++)
        st = rf__add_compute(run, ks[i], tc, ntc, &figs[i]);
    rf__free(run->ctx, figs);
    return st;
}
