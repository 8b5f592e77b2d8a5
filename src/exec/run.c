/* run.c — the executor's one timing harness (STYLE.md: kernels never time themselves): thread
 * counts for oneDNN (OpenMP) and OpenBLAS, warm-up passes, the number of timed passes, and the
 * per-layer median/min/max and whole-pass wall time. Kernels and memory are the plan's. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec_int.h"
#include "exec/progress.h"

/* OpenBLAS's own thread controls (cblas.h of the Debian build declares them). */
void openblas_set_num_threads(int n);
int openblas_get_num_threads(void);

/* oneDNN's Debian build runs on OpenMP: its thread count is OpenMP's. The OpenMP runtime comes
 * in with libdnnl, so its controls are looked up rather than linked (no -fopenmp anywhere). */
typedef struct omp_fns {
    int (*get_max)(void);
    void (*set)(int);
    int (*procs)(void);
} omp_fns;

static omp_fns omp_lookup(void)
{
    omp_fns f;
    *(void **)&f.get_max = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    *(void **)&f.set = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    *(void **)&f.procs = dlsym(RTLD_DEFAULT, "omp_get_num_procs");
    return f;
}

static double mono_clock(void *user)
{
    (void)user;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median (mean of the two middle values for an even count), min and max of v[n]; sorts v. */
static void stats(double *v, size_t n, double *med, double *min, double *max)
{
    if (n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(v, n, sizeof *v, cmp_dbl);
    *min = v[0];
    *max = v[n - 1];
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Passes and their times: warm-up, then `runs` timed passes into step_s[runs][n_steps] and
 * wall[runs]. */
static rf_status passes(rf__xplan *p, const rf_exec_opts *o, rf_exec_result *r, double **step_out,
                        double **wall_out)
{
    double (*clk)(void *) = o && o->clock ? o->clock : mono_clock;
    void *user = o ? o->clock_user : NULL;
    size_t ns = p->n_steps ? p->n_steps : 1;
    double best = 0;
    rf__xprogress pr = {0}; /* a line every 2 s: started on the first pass's own clock reading */
    for (unsigned w = 0; w < r->warmup; w++) {
        double t0 = clk(user);
        if (w == 0) rf__xprogress_start(&pr, p->ctx, t0);
        RF_TRY(rf__xplan_pass(p, clk, user, NULL));
        double t1 = clk(user), d = t1 - t0;
        if (w == 0 || d < best) best = d;
        rf__xprogress_step(&pr, t1, "warm-up", w + 1, r->warmup);
    }
    unsigned runs = o ? o->repeat : 0;
    if (!runs) {
        double want = best > 0 ? 2.5 / best : 1000;
        runs = want < 5 ? 5 : want > 1000 ? 1000 : (unsigned)want;
    }
    r->runs = runs;
    double *step_s = rf__calloc(p->ctx, (size_t)runs * ns, sizeof *step_s);
    double *wall = rf__calloc(p->ctx, runs, sizeof *wall);
    if (!step_s || !wall) {
        rf__free(p->ctx, step_s);
        rf__free(p->ctx, wall);
        return RF_NOMEM_ERR(p->ctx);
    }
    *step_out = step_s;
    *wall_out = wall;
    rf__cpu_times c0 = rf__cpu_times_now();
    for (unsigned k = 0; k < runs; k++) {
        double t0 = clk(user);
        if (k == 0 && !r->warmup) rf__xprogress_start(&pr, p->ctx, t0);
        RF_TRY(rf__xplan_pass(p, clk, user, step_s + (size_t)k * ns));
        double t1 = clk(user);
        wall[k] = t1 - t0;
        rf__xprogress_step(&pr, t1, "timed", k + 1, runs);
    }
    rf__cpu_times c1 = rf__cpu_times_now();
    /* Other processes' CPU time is the machine's, not an injected clock's: unknown then. */
    r->busy_other = o && o->clock ? -1 : rf__cpu_others_share(&c0, &c1);
    return RF_OK;
}

/* The steps of every layer and of every extra layer, grouped (counting sort): owner o's steps are
 * idx[start[o] .. start[o + 1]). Owners: layers 0..L-1, then extras L..L+E-1; untimed steps none.
 */
static rf_status group_steps(rf__xplan *p, size_t L, size_t E, size_t **start, size_t **idx)
{
    *start = rf__calloc(p->ctx, L + E + 2, sizeof **start);
    *idx = rf__calloc(p->ctx, p->n_steps + 1, sizeof **idx);
    if (!*start || !*idx) return RF_NOMEM_ERR(p->ctx);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t s = 0; s < p->n_steps; s++) {
            const rf__xstep *st = &p->steps[s];
            size_t o = st->extra < 0 ? st->layer : L + (size_t)st->extra;
            if (o >= L + E) continue;
            if (pass == 0)
                (*start)[o + 2]++;
            else
                (*idx)[(*start)[o + 1]++] = s;
        }
        if (pass == 0)
            for (size_t o = 2; o < L + E + 2; o++) (*start)[o] += (*start)[o - 1];
    }
    return RF_OK;
}

/* A fused kernel's times split between the layer that owns it and the layers fused into it, by
 * their work (FLOPs): the rows still add up to the kernel's time. O(layers). */
static rf_status fused_shares(const rf__xplan *p, rf_exec_result *r)
{
    uint32_t L = r->n_layers;
    double *tot = rf__calloc(p->ctx, L ? L : 1, sizeof *tot);
    if (!tot) return RF_NOMEM_ERR(p->ctx);
    for (uint32_t e = 0; e < L; e++) {
        int32_t h = p->layers[e].fused_into;
        if (h >= 0 && (uint32_t)h < L) tot[h] += p->layers[e].work;
    }
    for (uint32_t h = 0; h < L; h++)
        if (tot[h] > 0) tot[h] += p->layers[h].work;
    for (uint32_t e = 0; e < L; e++) { /* hosts come before their fused layers: not yet scaled */
        int32_t h = p->layers[e].fused_into;
        if (h < 0 || (uint32_t)h >= L || !(tot[h] > 0)) continue;
        double f = p->layers[e].work / tot[h];
        const rf_exec_layer *H = &r->layers[h];
        r->layers[e].median_s = H->median_s * f;
        r->layers[e].min_s = H->min_s * f;
        r->layers[e].max_s = H->max_s * f;
    }
    for (uint32_t h = 0; h < L; h++) {
        if (!(tot[h] > 0)) continue;
        double f = p->layers[h].work / tot[h];
        r->layers[h].median_s *= f, r->layers[h].min_s *= f, r->layers[h].max_s *= f;
    }
    rf__free(p->ctx, tot);
    return RF_OK;
}

/* Per layer and per extra layer, the median, min and max over the passes of the sum of its steps'
 * times; O(passes x steps). */
static rf_status summarise(rf__xplan *p, rf_exec_result *r, const double *step_s, double *wall)
{
    size_t ns = p->n_steps ? p->n_steps : 1, L = r->n_layers, E = r->n_extra;
    size_t *start = NULL, *idx = NULL;
    double *v = rf__calloc(p->ctx, r->runs ? r->runs : 1, sizeof *v);
    rf_status st = v ? group_steps(p, L, E, &start, &idx) : RF_NOMEM_ERR(p->ctx);
    for (size_t o = 0; st == RF_OK && o < L + E; o++) {
        if (o < L && !r->layers[o].measured) continue;
        for (unsigned k = 0; k < r->runs; k++) {
            v[k] = 0;
            for (size_t j = start[o]; j < start[o + 1]; j++) v[k] += step_s[k * ns + idx[j]];
        }
        double mn, mx;
        if (o < L)
            stats(v, r->runs, &r->layers[o].median_s, &r->layers[o].min_s, &r->layers[o].max_s);
        else
            stats(v, r->runs, &r->extra[o - L].median_s, &mn, &mx);
    }
    if (st == RF_OK) st = fused_shares(p, r);
    double mx;
    if (st == RF_OK) stats(wall, r->runs, &r->wall_median_s, &r->wall_min_s, &mx);
    rf__free(p->ctx, v);
    rf__free(p->ctx, start);
    rf__free(p->ctx, idx);
    return st;
}

static rf_status result_new(rf__xplan *p, rf_exec_result **out)
{
    rf_exec_result *r = rf__calloc(p->ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(p->ctx);
    r->alloc_ = *rf_ctx_allocator(p->ctx);
    r->busy_other = -1;
    *out = r;
    r->n_layers = p->g->n_layers;
    r->layers = rf__calloc(p->ctx, r->n_layers ? r->n_layers : 1, sizeof *r->layers);
    r->extra = rf__calloc(p->ctx, p->n_extra ? p->n_extra : 1, sizeof *r->extra);
    if (!r->layers || !r->extra) return RF_NOMEM_ERR(p->ctx);
    for (uint32_t li = 0; li < r->n_layers; li++) {
        rf_exec_layer *L = &r->layers[li];
        L->measured = p->layers[li].measured;
        rf__strlcpy(L->reason, p->layers[li].reason, sizeof L->reason);
        rf__strlcpy(L->kernel, p->layers[li].kernel, sizeof L->kernel);
        L->fused_into = p->layers[li].fused_into;
        L->folded = p->layers[li].folded && L->measured;
        L->load_s = L->folded ? p->layers[li].load_s : 0;
        r->n_folded += (uint32_t)L->folded;
        r->load_s += L->load_s;
    }
    r->n_extra = p->n_extra;
    for (size_t e = 0; e < p->n_extra; e++) {
        rf__strlcpy(r->extra[e].name, p->extra[e].name, sizeof r->extra[e].name);
        r->extra[e].before_layer = p->extra[e].before_layer;
        r->extra[e].bytes = p->extra[e].bytes;
        r->extra[e].folded = p->extra[e].folded;
        r->extra[e].load_s = p->extra[e].load_s;
        r->n_extra_folded += (size_t)p->extra[e].folded;
        r->load_s += p->extra[e].load_s;
    }
    r->peak_bytes = p->peak_bytes;
    rf__strlcpy(r->inputs_note, p->note[0] ? p->note : "synthetic float32 values everywhere",
                sizeof r->inputs_note);
    return RF_OK;
}

rf_status rf_exec_run(rf_ctx *ctx, const rf_graph *g, const rf_exec_opts *o, rf_exec_result **out)
{
    RF_CHECK(ctx, g && out, RF_USAGE, "rf_exec_run: no graph or no result pointer");
    *out = NULL;
    omp_fns omp = omp_lookup();
    int omp_before = omp.get_max ? omp.get_max() : 0, blas_before = openblas_get_num_threads();
    long procs = omp.procs ? omp.procs() : sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = o && o->threads ? o->threads : procs > 0 ? (unsigned)procs : 1;
    if (omp.set) omp.set((int)threads);
    openblas_set_num_threads((int)threads);
    rf__xplan *p = NULL;
    rf_exec_result *r = NULL;
    double *step_s = NULL, *wall = NULL;
    rf_status st;
    RF_TRY_GOTO(st, rf__xplan_new_team(ctx, g, omp.set, (int)threads, &p), done);
    RF_TRY_GOTO(st, result_new(p, &r), done);
    r->threads = threads;
    /* --repeat 1 means one pass in all: no warm-up unless asked for */
    r->warmup = o && o->warmup ? o->warmup : o && o->repeat == 1 ? 0 : 2;
    RF_TRY_GOTO(st, passes(p, o, r, &step_s, &wall), done);
    RF_TRY_GOTO(st, summarise(p, r, step_s, wall), done);
    *out = r;
    r = NULL;
done:
    rf__free(ctx, step_s);
    rf__free(ctx, wall);
    rf_exec_result_free(r);
    rf__xplan_free(p);
    if (omp.set && omp_before > 0) omp.set(omp_before);
    openblas_set_num_threads(blas_before);
    return st;
}

void rf_exec_result_free(rf_exec_result *r)
{
    if (!r) return;
    rf_allocator a = r->alloc_;
    rf__free_with(&a, r->layers);
    rf__free_with(&a, r->extra);
    rf__free_with(&a, r);
}
