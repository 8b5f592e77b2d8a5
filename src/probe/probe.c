/* probe.c — one measuring run (rf_probe_run): the conditions (CPU, ISA, hypervisor, compiler, date,
 * load from other processes before and during the run), then compute, bandwidth and GEMM ceilings
 * gathered into a machine with provenance `measured`. Progress goes to the log, never to a file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe/probe_int.h"

#define RF__QUICK_BUDGET_S 8.0 /* a disturbed quick run is measured again while this holds */
#define RF__ATTEMPTS_MAX 3

#if defined(__clang__)
#define RF__COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RF__COMPILER "gcc " __VERSION__
#else
#define RF__COMPILER "unknown compiler"
#endif

/* The lowest "cpu MHz" /proc/cpuinfo gives over the CPUs, in GHz; 0 when it says none. */
static double rf__kernel_clock_ghz(void)
{
    double lo = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        double mhz;
        if (strncmp(line, "cpu MHz", 7) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon || sscanf(colon + 1, "%lf", &mhz) != 1 || !(mhz > 0 && mhz < 1e5)) continue;
        if (lo == 0 || mhz / 1e3 < lo) lo = mhz / 1e3;
    }
    fclose(f);
    return lo;
}

double rf__loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

void rf__progress(rf__probe_run *run, const char *what)
{
    run->step++;
    rf__log(run->ctx, RF_LOG_INFO, "peaks: %5.1f s  %s", rf__now_s() - run->rep->elapsed_s, what);
}

rf_status rf__probe_add(rf__probe_run *run, const char *name, rf_ceiling_kind kind,
                        const rf__stats *s, unsigned threads, const char *source, const char *note)
{
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    rf__strlcpy(c.name, name, sizeof c.name);
    c.kind = kind;
    c.value = s->best;
    c.provenance = RF_PROV_MEASURED;
    rf__strlcpy(c.source, source, sizeof c.source);
    rf__strlcpy(c.note, note, sizeof c.note);
    c.stats.threads = threads;
    c.stats.repetitions = s->n;
    c.stats.min = s->min;
    c.stats.median = s->median;
    c.stats.max = s->max;
    rf__strlcpy(c.stats.date, run->rep->date, sizeof c.stats.date);
    unsigned bits = rf__figure_disturbed(s);
    c.provisional = bits != 0; /* the whole attempt may make it provisional too (rf_probe_run) */
    run->disturbed |= bits;
    if (s->cv > run->q.worst_cv) run->q.worst_cv = s->cv;
    RF_CHECK(run->ctx, s->best > 0, RF_INTERNAL, "probe: %s measured no throughput", name);
    return rf_machine_add(run->ctx, run->rep->machine, &c);
}

rf_status rf_probe_isa(rf_ctx *ctx, const char *isa, const char **name_out)
{
    int level;
    RF_TRY(rf__isa_select(ctx, isa, rf__cpu_features(), &level));
    *name_out = rf__isa_name(level);
    return RF_OK;
}

void rf_probe_report_free(rf_probe_report *r)
{
    if (!r) return;
    rf_allocator a = r->alloc_;
    rf_machine_free(r->machine);
    rf__free_with(&a, r->sweep);
    rf__free_with(&a, r);
}

/* Defaults: fp32 FMA of the chosen ISA (the plain FP32 vector roof, as in the database), DRAM. */
static void rf__set_defaults(rf_machine *m, const char *isa)
{
    char name[RF_NAME_MAX];
    snprintf(name, sizeof name, "fp32.fma.%s", isa);
    long c = rf_machine_find(m, name), b = rf_machine_find(m, "DRAM");
    if (c < 0)
        for (size_t i = 0; i < m->n_ceilings && c < 0; i++)
            if (strncmp(m->ceilings[i].name, "fp32.", 5) == 0) c = (long)i;
    if (c >= 0) m->default_compute = (size_t)c;
    if (b >= 0) m->default_bandwidth = (size_t)b;
}

static void rf__conditions(rf__probe_run *run, double t0, const rf__cpu_times *c0)
{
    rf_probe_report *r = run->rep;
    rf__cpu_times c1 = rf__cpu_times_now();
    r->elapsed_s = rf__now_s() - t0;
    r->busy_other = rf__cpu_others_share(c0, &c1);
    rf_machine *m = r->machine;
    snprintf(m->description, sizeof m->description, "%s (measured, %u threads)", r->cpu_model,
             r->threads);
    rf__strlcpy(m->kind, "cpu", sizeof m->kind);
    m->provenance = RF_PROV_MEASURED;
    char src[1024]; /* a long CPU name may cut the tail when copied; what matters comes first */
    snprintf(src, sizeof src,
             "roofline peaks %s, %s: %s, %u of %u CPUs, ISA %s, %s, %s; load %.2f before, other "
             "processes used %.0f%% of the CPU time during the %.1f s run",
             run->opts->quick ? "--quick" : "(full)", r->date, r->cpu_model, r->threads, r->cpus,
             r->isa, r->hypervisor ? "under a hypervisor" : "no hypervisor", r->compiler,
             r->load_before, r->busy_other < 0 ? -1.0 : 100 * r->busy_other, r->elapsed_s);
    rf__strlcpy(m->source, src, sizeof m->source);
}

static rf_status rf__probe_init(rf_ctx *ctx, const rf_probe_opts *o, rf__probe_run *run,
                                rf_probe_report *r)
{
    int cpus[256];
    run->ctx = ctx;
    run->opts = o;
    run->rep = r;
    run->features = rf__cpu_features();
    RF_TRY(rf__isa_select(ctx, o->isa, run->features, &run->isa));
    r->cpus = rf__cpus_allowed(cpus, 256);
    run->threads = o->max_threads && o->max_threads < r->cpus ? o->max_threads : r->cpus;
    if (run->threads == 0) run->threads = 1;
    run->min_time_s = o->min_time_s > 0 ? o->min_time_s : (o->quick ? 0.004 : 0.01);
    run->reps = o->repetitions ? o->repetitions : (o->quick ? 3 : 5);
    r->threads = run->threads;
    rf__cpu_brand(r->cpu_model, sizeof r->cpu_model);
    rf__strlcpy(r->isa, rf__isa_name(run->isa), sizeof r->isa);
    rf__strlcpy(r->compiler, RF__COMPILER, sizeof r->compiler);
    r->hypervisor = (run->features & RF__F_HYPERVISOR) != 0;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    r->load_before = rf__loadavg();
    return RF_OK;
}

/* Capacity of each cache level from hwloc (per instance): private L1 and L2 once per thread used,
 * shared L3 and L4 once. DRAM and unknown levels stay 0. */
static void rf__fill_capacities(rf_machine *m, unsigned threads)
{
    uint64_t hw[4];
    rf__cache_sizes(hw);
    static const char *const names[4] = {"L1", "L2", "L3", "L4"};
    for (int i = 0; i < 4; i++) {
        long k = rf_machine_find(m, names[i]);
        if (k >= 0 && hw[i]) m->ceilings[k].capacity_bytes = (double)hw[i] * (i < 2 ? threads : 1);
    }
}

/* One attempt: compute, bandwidth (and GEMM for a full run) into a fresh machine; its figures for
 * the disturbed-run judgement go to run->q and run->disturbed. */
static rf_status rf__attempt(rf__probe_run *run)
{
    rf_probe_report *r = run->rep;
    rf__free_with(&r->alloc_, r->sweep);
    r->sweep = NULL;
    r->n_sweep = r->n_levels = 0;
    run->disturbed = 0;
    double best_clock = fmax(run->q.clock_best_ghz, run->q.clock_before_ghz);
    memset(&run->q, 0, sizeof run->q);
    run->q.clock_best_ghz = best_clock;
    run->q.cpus = r->cpus;
    run->q.threads = run->threads;
    run->q.load_before = rf__loadavg();
    run->q.clock_kernel_ghz = rf__kernel_clock_ghz();
    RF_TRY(rf_machine_new(run->ctx, "measured", &r->machine));
    rf__cpu_times c0 = rf__cpu_times_now();
    RF_TRY(rf__probe_compute(run));
    RF_TRY(rf__probe_bandwidth(run));
    if (!run->opts->quick) RF_TRY(rf__probe_gemm(run));
    rf__cpu_times c1 = rf__cpu_times_now();
    run->q.busy_other = rf__cpu_others_share(&c0, &c1);
    unsigned whole = rf__run_disturbed(&run->q);
    run->disturbed |= whole;
    if (whole) /* the attempt as a whole: every figure it gave is in doubt */
        for (size_t i = 0; i < r->machine->n_ceilings; i++) r->machine->ceilings[i].provisional = 1;
    return RF_OK;
}

/* Attempts while disturbed and the next one fits the budget (quick runs only); the best figure of
 * each ceiling is kept in *best (owned by the caller). */
static rf_status rf__attempts(rf__probe_run *run, double t0, rf_machine **best, char *why,
                              size_t why_size)
{
    rf_probe_report *r = run->rep;
    for (;;) {
        double a0 = rf__now_s();
        r->attempts++;
        RF_TRY(rf__attempt(run));
        if (run->disturbed) rf__disturb_text(why, why_size, run->disturbed, &run->q);
        if (!*best) {
            *best = r->machine;
        } else {
            rf__merge_best(*best, r->machine);
            rf_machine_free(r->machine);
        }
        r->machine = NULL;
        double now = rf__now_s(), took = now - a0;
        if (!rf_machine_provisional(*best) || !run->opts->quick) return RF_OK;
        if (r->attempts >= RF__ATTEMPTS_MAX || now + took - t0 > RF__QUICK_BUDGET_S) return RF_OK;
        rf__log(run->ctx, RF_LOG_INFO, "peaks: disturbed (%s): measuring again", why);
    }
}

static void rf__warn_provisional(rf__probe_run *run, const char *why)
{
    rf_probe_report *r = run->rep;
    size_t n = 0;
    for (size_t i = 0; i < r->machine->n_ceilings; i++)
        n += r->machine->ceilings[i].provisional != 0;
    r->provisional = n > 0;
    if (!n) {
        r->disturbed[0] = '\0';
        return;
    }
    rf__strlcpy(r->disturbed, why, sizeof r->disturbed);
    rf__log(run->ctx, RF_LOG_WARN,
            "peaks: the machine was busy (%s): %zu of %zu ceilings are provisional after %u "
            "attempt%s (the cache keeps the best figure of every run; a quiet 'peaks --refresh' "
            "raises them)",
            why[0] ? why : "disturbed", n, r->machine->n_ceilings, r->attempts,
            r->attempts == 1 ? "" : "s");
}

rf_status rf_probe_run(rf_ctx *ctx, const rf_probe_opts *opts, rf_probe_report **out)
{
    rf_probe_opts defaults;
    memset(&defaults, 0, sizeof defaults);
    const rf_probe_opts *o = opts ? opts : &defaults;
    *out = NULL;
    rf_probe_report *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->alloc_ = *rf_ctx_allocator(ctx);
    rf__probe_run run;
    memset(&run, 0, sizeof run);
    rf_machine *best = NULL;
    char why[RF_TEXT_MAX] = "";
    rf_status st = rf__probe_init(ctx, o, &run, r);
    double t0 = rf__now_s();
    rf__cpu_times c0 = rf__cpu_times_now();
    r->elapsed_s = t0; /* progress lines count from here until rf__conditions sets the duration */
    if (st == RF_OK) st = rf__attempts(&run, t0, &best, why, sizeof why);
    if (st != RF_OK) {
        rf_machine_free(best);
        rf_probe_report_free(r);
        return st;
    }
    r->machine = best;
    rf__conditions(&run, t0, &c0);
    rf__set_defaults(r->machine, r->isa);
    rf__fill_capacities(r->machine, r->threads);
    rf__warn_provisional(&run, why);
    *out = r;
    return RF_OK;
}
