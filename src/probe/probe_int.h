/* probe_int.h — what the probe's files share: CPU features and ISA levels, the kernel descriptor
 * tables (one per kernels/ file), the pinned thread team, the timing harness and its statistics,
 * and the plateau detector. Kernels never time themselves; the harness (harness.c) does. */
#ifndef RF_PROBE_INT_H
#define RF_PROBE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/rf_int.h"
#include "roofline/analysis.h"
#include "roofline/probe.h"

/* CPU features (bits), detected by cpu.c from cpuid + xgetbv (OS state saving included). */
enum {
    RF__F_SSE2 = 1u << 0,
    RF__F_AVX = 1u << 1,
    RF__F_FMA = 1u << 2,
    RF__F_AVX2 = 1u << 3,
    RF__F_AVX512F = 1u << 4,
    RF__F_AVX512BW = 1u << 5,
    RF__F_AVX512VL = 1u << 6,
    RF__F_AVX512FP16 = 1u << 7,
    RF__F_AVX512BF16 = 1u << 8,
    RF__F_AVX512VNNI = 1u << 9,
    RF__F_AVXVNNI = 1u << 10,
    RF__F_HYPERVISOR = 1u << 11,
    RF__F_AMX = 1u << 12 /* AMX tiles with BF16 and INT8, and the OS lets this process use them */
};

/* ISA levels, each a family of kernel files; a level includes the ones below it. */
enum { RF__ISA_GENERIC, RF__ISA_SSE2, RF__ISA_AVX2, RF__ISA_AVX512, RF__ISA_COUNT };

/* A compute kernel: `iters` iterations of independent accumulators x = op(x, a, b), every lane
 * starting at b; returns the sum of every lane (the checksum, predictable: see test_probe.c). */
typedef double (*rf__flop_fn)(uint64_t iters, double a, double b);

/* Defines NAME as a compute kernel: NACC accumulators of VT, every lane starting at MKB(b),
 * x = STEP(x, va, vb) per iteration with va = MKA(a) of type AT, the checksum SUM(x) summed. */
#define RF__FLOP_KERNEL(NACC, NAME, TARGET, AT, VT, MKA, MKB, STEP, SUM)                           \
    __attribute__((target(TARGET))) static double NAME(uint64_t iters, double a, double b)         \
    {                                                                                              \
        AT va = MKA(a);                                                                            \
        (void)va;                                                                                  \
        VT vb = MKB(b), x[NACC];                                                                   \
        double s = 0;                                                                              \
        for (int j = 0; j < (NACC); j++) x[j] = vb;                                                \
        for (uint64_t i = 0; i < iters; i++) {                                                     \
            _Pragma("GCC unroll 16") for (int j = 0; j < (NACC); j++) x[j] = STEP(x[j], va, vb);   \
        }                                                                                          \
        for (int j = 0; j < (NACC); j++) s += SUM(x[j]);                                           \
        return s;                                                                                  \
    }

typedef struct rf__flop_kernel {
    const char *id;         /* "fp64.fma.avx512" */
    const char *precision;  /* "fp64", "fp32", "fp16", "bf16", "int8" */
    const char *op;         /* "fma", "add", "mul", "dot", "muladd" */
    int isa;                /* RF__ISA_* */
    uint32_t features;      /* required RF__F_* bits */
    double flops_per_iter;  /* FLOP (OP for int8) per iteration, every accumulator and lane */
    double flops_per_cycle; /* per core, assuming two vector pipes: the hardware limit */
    double a, b;            /* arguments that keep values finite, normal and exact */
    rf__flop_fn fn;
} rf__flop_kernel;

/* A bandwidth kernel over `n` doubles at `buf` (64-byte aligned, n a multiple of 192), `passes`
 * times. Mixes: load (sum, returned), store (buf = s), copy (second half = first half), triad
 * (first third = second + s * last third), and .nt variants with non-temporal stores. Bytes
 * counted per pass: n * 8 (reads + writes as the core issues them; write-allocate not counted). */
typedef double (*rf__bw_fn)(double *buf, size_t n, uint64_t passes, double s);

typedef struct rf__bw_kernel {
    const char *id;  /* "load.avx512" */
    const char *mix; /* "load", "store", "copy", "triad", "store.nt", "copy.nt" */
    int isa;
    uint32_t features;
    rf__bw_fn fn;
} rf__bw_kernel;

/* The tables, one per kernels/ file (absent ISAs export empty tables). */
extern const rf__flop_kernel rf__flop_generic[], rf__flop_sse2[], rf__flop_avx2[],
    rf__flop_avx512[];
extern const size_t rf__n_flop_generic, rf__n_flop_sse2, rf__n_flop_avx2, rf__n_flop_avx512;
extern const rf__bw_kernel rf__bw_generic[], rf__bw_sse2[], rf__bw_avx2[], rf__bw_avx512[];
extern const size_t rf__n_bw_generic, rf__n_bw_sse2, rf__n_bw_avx2, rf__n_bw_avx512;

/* Clock kernels: a dependent chain of 1-cycle integer adds (RF__CLOCK_CHAIN per iteration) with
 * the ISA's vector FMAs beside it, so the core runs at the frequency that ISA gets. */
#define RF__CLOCK_CHAIN 32
/* One link of the chain: an add the compiler can neither fold nor reorder (GCC/clang asm). The
 * addend is a register whose value the compiler cannot see (RF__CLOCK_ONE): Golden Cove and later
 * cores execute chains of add-immediate at rename, faster than one per cycle, which made the
 * scalar clock read 8 GHz; register + register adds take one cycle on every core. */
#define RF__CLOCK_ONE                                                                              \
    uint64_t rf__one = 1;                                                                          \
    __asm__ volatile("" : "+r"(rf__one));
#define RF__INC1(x)                                                                                \
    (x) += rf__one;                                                                                \
    __asm__ volatile("" : "+r"(x));
#define RF__INC8(x)                                                                                \
    RF__INC1(x) RF__INC1(x) RF__INC1(x) RF__INC1(x) RF__INC1(x) RF__INC1(x) RF__INC1(x) RF__INC1(x)
#define RF__INC32(x) RF__INC8(x) RF__INC8(x) RF__INC8(x) RF__INC8(x)
typedef uint64_t (*rf__clock_fn)(uint64_t iters);
extern const rf__clock_fn rf__clock_kernels[RF__ISA_COUNT];
uint64_t rf__clock_sse2(uint64_t iters);
uint64_t rf__clock_avx2(uint64_t iters);
uint64_t rf__clock_avx512(uint64_t iters);

/* ---- cpu.c ---- */
uint32_t rf__cpu_features(void);
void rf__cpu_brand(char *buf, size_t size);
const char *rf__isa_name(int isa);
/* Resolve an ISA name (NULL: $RF_ISA, else the best available) to a level. */
rf_status rf__isa_select(rf_ctx *ctx, const char *name, uint32_t features, int *isa_out);
/* Every kernel of every file usable at `isa` on a CPU with `features`. */
size_t rf__flop_usable(int isa, uint32_t features, const rf__flop_kernel **out, size_t max);
size_t rf__bw_usable(int isa, uint32_t features, const rf__bw_kernel **out, size_t max);

/* ---- team.c: pinned workers; job(arg, tid) runs on each, the call returns when all are done ----
 */
typedef struct rf__team rf__team;
typedef void (*rf__job)(void *arg, unsigned tid);
rf_status rf__team_new(rf_ctx *ctx, unsigned n, rf__team **out);
unsigned rf__team_size(const rf__team *t);
void rf__team_run(rf__team *t, rf__job job, void *arg);
void rf__team_free(rf_ctx *ctx, rf__team *t);
/* CPUs the process may run on, in order (cpus[i] is worker i's CPU); returns the count. */
unsigned rf__cpus_allowed(int *cpus, unsigned max);
double rf__now_s(void);

/* ---- harness.c: warm-up, minimum time, repetitions, statistics ---- */
typedef struct rf__stats {
    double min, median, max, mean, cv; /* cv = standard deviation / mean */
    double best;                       /* best repeatable value (see rf__stats_compute) */
    unsigned n;
    unsigned disturbed; /* repetitions kept although another process took a worker's CPU */
} rf__stats;
/* Statistics of n samples (sorted in place). */
void rf__stats_compute(double *v, unsigned n, rf__stats *out);

/* work(arg, tid, units) does `units` units on worker tid; a unit counts `per_unit` (FLOP or byte)
 * per thread. The harness sizes units so a repetition lasts >= min_time_s and reports rates. */
typedef void (*rf__work_fn)(void *arg, unsigned tid, uint64_t units);
typedef struct rf__bench {
    rf__team *team;
    rf__work_fn work;
    void *arg;
    double per_unit;
    double min_time_s;
    unsigned reps;
} rf__bench;
rf_status rf__bench_run(rf_ctx *ctx, const rf__bench *b, rf__stats *out);

/* ---- plateau.c ---- */
/* Find plateaus in a sweep (sizes ascending): runs of points within `tol` (e.g. 0.2) of their
 * median, transitions left out, the closest neighbours merged while there are more than
 * `max_levels`; names them L1, L2, ... and the last DRAM when `has_dram`. */
size_t rf__plateaus(const rf_probe_point *pts, size_t n, double tol, int has_dram,
                    rf_probe_level *levels, size_t max_levels);

/* ---- topo.c: cache sizes from hwloc (0 when unknown) ---- */
/* Levels named with the help of the private cache sizes (per thread, byte; hwloc's L1d and L2):
 * plateaus that fit in L1 are L1, in L2 are L2, the last is DRAM, the rest L3; several plateaus of
 * one group merge. Falls back to rf__plateaus when the sizes are unknown. */
size_t rf__plateaus_by_caches(const rf_probe_point *pts, size_t n, double tol,
                              const uint64_t private_bytes[2], rf_probe_level *levels,
                              size_t max_levels);
void rf__cache_sizes(uint64_t sizes[4]); /* L1d, L2, L3, L4 per instance, byte */

/* ---- disturb.c: was a run disturbed? (pure functions of figures the run gathered) ---- */
#define RF__DISTURB_CV 0.10    /* a figure's CV over repetitions beyond which it is disturbed */
#define RF__DISTURB_CLOCK 0.10 /* a clock that fell by more than this share */
/* A top clock under this share of the kernel's "cpu MHz": the vCPUs were shared. */
#define RF__DISTURB_KERNEL_CLOCK 0.75
enum {
    RF__DISTURB_OTHERS = 1u,     /* other processes took CPU time (or the load average says so) */
    RF__DISTURB_SPREAD = 2u,     /* a figure's CV over repetitions is too high */
    RF__DISTURB_PREEMPTED = 4u,  /* repetitions kept although a worker lost its CPU */
    RF__DISTURB_CLOCK_FELL = 8u, /* the clock fell during the run (or against an earlier one) */
    RF__DISTURB_LIMIT = 16u      /* a compute figure the measured clock cannot explain */
};
/* What one attempt of a run saw. Unknown figures are negative (busy_other, load_before) or 0. */
typedef struct rf__disturb_in {
    double busy_other;  /* share of the CPU time other processes used during the attempt, 0..1 */
    double load_before; /* 1-minute load average before it */
    unsigned cpus, threads;
    double worst_cv;         /* the highest CV of the attempt's figures (for the words) */
    double clock_before_ghz; /* clock under the chosen ISA before the compute kernels */
    double clock_after_ghz;  /* the same after them */
    double clock_best_ghz;   /* the best clock an earlier attempt measured */
    double clock_top_ghz;    /* the highest clock measured under any ISA before the kernels (a
                                wide-vector licence may lower the chosen ISA's on its own) */
    double clock_kernel_ghz; /* the lowest "cpu MHz" the kernel reports for the CPUs (0 unknown):
                                a top clock far under it means the vCPUs were shared */
    double limit_fraction;   /* fp32 FMA figure / (FLOP/cycle x clock x threads) */
} rf__disturb_in;
/* Bits for one figure from its statistics (spread, preempted repetitions). */
unsigned rf__figure_disturbed(const rf__stats *s);
/* Bits for the whole attempt (others, clock, limit). */
unsigned rf__run_disturbed(const rf__disturb_in *in);
/* The reasons in words: "other processes used 68% of the CPU time, CV up to 69% ...". */
char *rf__disturb_text(char *buf, size_t size, unsigned bits, const rf__disturb_in *in);
/* Keep in `best` each ceiling's higher figure of the two attempts; provisional only when it was
 * in both. Ceilings of `again` missing from `best` are ignored. */
void rf__merge_best(rf_machine *best, const rf_machine *again);
/* Marks provisional, with the reason, the lower figure of each pair out of its physical order
 * (fp64 above fp32 on one ISA and op; a memory level slower than the one below it); the count. */
unsigned rf__order_check(rf_machine *m);

/* ---- cache.c: the folder of measured machines, reading and writing one (the device probe's
 * cache, ocl_cache.c, shares them) ---- */
rf_status rf__cache_dir(rf_ctx *ctx, char *buf, size_t size);
/* *out NULL when `path` does not exist or is damaged (a warning through the log). */
rf_status rf__cache_read(rf_ctx *ctx, const char *path, rf_machine **out);
/* `m` merged with the machine at `path` (the best figure per ceiling), written atomically. */
rf_status rf__cache_write(rf_ctx *ctx, const char *path, const rf_machine *m);

/* ---- compute.c, bandwidth.c, gemm.c: add measured ceilings to the report's machine ---- */
typedef struct rf__probe_run {
    rf_ctx *ctx;
    const rf_probe_opts *opts;
    rf_probe_report *rep;
    int isa;
    uint32_t features;
    unsigned threads; /* most threads */
    double min_time_s;
    unsigned reps;
    size_t step, steps; /* progress */
    rf__disturb_in q;   /* what the current attempt saw (compute.c fills the clocks and limit) */
    unsigned disturbed; /* RF__DISTURB_* bits of the figures added so far in this attempt */
} rf__probe_run;
void rf__progress(rf__probe_run *run, const char *what);
rf_status rf__probe_compute(rf__probe_run *run);
rf_status rf__probe_bandwidth(rf__probe_run *run);
rf_status rf__probe_gemm(rf__probe_run *run);
/* Add a measured ceiling: value = stats.best; note as given. */
rf_status rf__probe_add(rf__probe_run *run, const char *name, rf_ceiling_kind kind,
                        const rf__stats *s, unsigned threads, const char *source, const char *note);

/* The 1-minute load average (/proc/loadavg), or -1 when it cannot be read. */
double rf__loadavg(void);

#endif
