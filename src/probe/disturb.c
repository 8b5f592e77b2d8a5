/* disturb.c — was a measuring run disturbed? Pure judgements on figures the run gathered (other
 * processes' share of the CPU from /proc/stat or the load average, the spread over repetitions,
 * preempted repetitions, a clock that fell while the kernels ran, a figure the clock cannot
 * explain), the words for them, and the merge that keeps each ceiling's best repeatable figure
 * over several attempts. Never measures, never reads /proc: probe.c hands the figures in. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe/probe_int.h"

unsigned rf__figure_disturbed(const rf__stats *s)
{
    unsigned bits = 0;
    if (s->cv > RF__DISTURB_CV) bits |= RF__DISTURB_SPREAD;
    if (s->disturbed) bits |= RF__DISTURB_PREEMPTED;
    return bits;
}

/* The top measured clock far under the kernel's figure. */
static int rf__clock_under_kernel(const rf__disturb_in *in)
{
    double top = in->clock_top_ghz > 0 ? in->clock_top_ghz : in->clock_before_ghz;
    return in->clock_kernel_ghz > 0 && top > 0 &&
           top < RF__DISTURB_KERNEL_CLOCK * in->clock_kernel_ghz;
}

unsigned rf__run_disturbed(const rf__disturb_in *in)
{
    unsigned bits = 0;
    if (in->busy_other >= 0) {
        if (in->busy_other > RF_BUSY_OTHERS) bits |= RF__DISTURB_OTHERS;
    } else if (in->load_before >= 0 && in->cpus > 0) {
        /* No /proc/stat: the load average before the run, beyond what would leave our threads
         * their CPUs, stands in for it. */
        double free_cpus = (double)in->cpus - in->load_before;
        if (free_cpus < (double)in->threads - 0.5) bits |= RF__DISTURB_OTHERS;
    }
    if (in->clock_before_ghz > 0 && in->clock_after_ghz > 0) {
        double lo = fmin(in->clock_before_ghz, in->clock_after_ghz);
        double hi = fmax(in->clock_before_ghz, in->clock_after_ghz);
        if (lo < (1 - RF__DISTURB_CLOCK) * hi) bits |= RF__DISTURB_CLOCK_FELL;
    }
    if (in->clock_best_ghz > 0 && in->clock_before_ghz > 0 &&
        in->clock_before_ghz < (1 - RF__DISTURB_CLOCK) * in->clock_best_ghz)
        bits |= RF__DISTURB_CLOCK_FELL;
    /* The kernel's "cpu MHz" is the base or the current clock; one measured far under it (a
     * dependent chain that ran at half speed) means the vCPU shared its core or was taken away. */
    if (rf__clock_under_kernel(in)) bits |= RF__DISTURB_CLOCK_FELL;
    /* A figure above what the measured clock allows means the clock chain itself was slowed; one
     * far below it (under 40%: every core has at least half the assumed vector pipes) means the
     * kernel was. */
    if (in->limit_fraction > 1.15 || (in->limit_fraction > 0 && in->limit_fraction < 0.4))
        bits |= RF__DISTURB_LIMIT;
    return bits;
}

char *rf__disturb_text(char *buf, size_t size, unsigned bits, const rf__disturb_in *in)
{
    size_t len = 0;
    buf[0] = '\0';
    if ((bits & RF__DISTURB_OTHERS) && in->busy_other >= 0)
        rf__appendf(buf, size, &len, "other processes used %.0f%% of the CPU time",
                    100 * in->busy_other);
    else if (bits & RF__DISTURB_OTHERS)
        rf__appendf(buf, size, &len, "load average %.2f on %u CPUs", in->load_before, in->cpus);
    if (bits & RF__DISTURB_SPREAD)
        rf__appendf(buf, size, &len, "%sCV up to %.0f%% over repetitions", len ? ", " : "",
                    100 * in->worst_cv);
    if (bits & RF__DISTURB_PREEMPTED)
        rf__appendf(buf, size, &len, "%srepetitions preempted", len ? ", " : "");
    if (bits & RF__DISTURB_CLOCK_FELL) {
        /* The largest fall seen: from the best clock (or the one before) to the lowest. */
        double hi = fmax(in->clock_best_ghz, fmax(in->clock_before_ghz, in->clock_after_ghz));
        double lo = in->clock_before_ghz;
        if (in->clock_after_ghz > 0 && (lo <= 0 || in->clock_after_ghz < lo))
            lo = in->clock_after_ghz;
        if (rf__clock_under_kernel(in))
            rf__appendf(buf, size, &len,
                        "%sthe clock measured %.2f GHz, under the %.2f GHz the kernel "
                        "reports",
                        len ? ", " : "", in->clock_top_ghz > 0 ? in->clock_top_ghz : lo,
                        in->clock_kernel_ghz);
        else
            rf__appendf(buf, size, &len, "%sthe clock fell from %.2f to %.2f GHz", len ? ", " : "",
                        hi, lo);
    }
    if (bits & RF__DISTURB_LIMIT)
        rf__appendf(buf, size, &len, "%sFMA at %.0f%% of FLOP/cycle x clock", len ? ", " : "",
                    100 * in->limit_fraction);
    return buf;
}

void rf__merge_best(rf_machine *best, const rf_machine *again)
{
    for (size_t i = 0; i < best->n_ceilings; i++) {
        rf_ceiling *b = &best->ceilings[i];
        long j = rf_machine_find(again, b->name);
        if (j < 0) continue;
        const rf_ceiling *a = &again->ceilings[j];
        /* Disturbance only ever lowers a throughput: the higher figure is the better one, and it
         * can be trusted when either attempt was quiet for this ceiling. */
        int provisional = b->provisional && a->provisional;
        if (a->value > b->value) {
            double cap = b->capacity_bytes;
            *b = *a;
            if (!(b->capacity_bytes > 0)) b->capacity_bytes = cap;
        }
        b->provisional = provisional;
    }
}

/* The orders a machine's ceilings must keep: fp64 at most fp32 on one instruction set and
 * operation (a vector holds half as many), and each memory level at least as fast as the one
 * below it (L1 >= L2 >= L3 >= DRAM). A pair out of order is a measurement error: disturbance only
 * lowers a figure, so the lower one of the pair is the suspect; it is marked provisional with
 * the reason, and a cached figure (rf__merge_best) or a later quiet run replaces it. Returns the
 * number of figures marked. */
unsigned rf__order_check(rf_machine *m)
{
    static const char *const levels[] = {"L1", "L2", "L3", "DRAM"};
    unsigned marked = 0;
    for (size_t i = 0; i < m->n_ceilings; i++) {
        rf_ceiling *d = &m->ceilings[i];
        if (strncmp(d->name, "fp64.", 5) != 0) continue;
        char want[RF_NAME_MAX];
        snprintf(want, sizeof want, "fp32.%s", d->name + 5);
        long j = rf_machine_find(m, want);
        if (j < 0 || !(d->value > m->ceilings[j].value * 1.02)) continue;
        rf_ceiling *s = &m->ceilings[j];
        s->provisional = 1;
        snprintf(s->note, sizeof s->note, "below %s (%.3g): a disturbed measurement", d->name,
                 d->value);
        marked++;
    }
    for (size_t k = 0; k + 1 < sizeof levels / sizeof *levels; k++) {
        long up = rf_machine_find(m, levels[k]), down = rf_machine_find(m, levels[k + 1]);
        if (up < 0 || down < 0 || !(m->ceilings[down].value > m->ceilings[up].value * 1.02))
            continue;
        rf_ceiling *u = &m->ceilings[up];
        u->provisional = 1;
        snprintf(u->note, sizeof u->note, "slower than %s (%.3g B/s): a disturbed measurement",
                 levels[k + 1], m->ceilings[down].value);
        marked++;
    }
    return marked;
}
