/* ncu.c — Nsight Compute CSV (`ncu --csv`, docs/prof-import.md): the long form (one row per metric:
 * ID, Kernel Name, Metric Name, Metric Unit, Metric Value, with any other columns) and `--page
 * raw`'s wide form (one row per launch, a column per metric, a row of units under the header).
 * Reads NERSC's hierarchical-roofline set: FLOPs from the {d,f,h}{add,mul,fma} SASS counters (an
 * FMA counts 2) and the tensor pipe, bytes from dram/lts/l1tex, time from gpu__time_duration or,
 * when a launch has none, sm__cycles_elapsed.avg over sm__cycles_elapsed.avg.per_second (the NERSC
 * scripts collect only those two).
 * Lines starting "==" (==PROF==, ==WARNING==) are ncu's log and are skipped. Never keeps a row. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/prof_int.h"

#define NCU_MAX_FIELDS 65536 /* columns of one record */
#define NCU_TENSOR_FLOPS 512 /* FLOP per tensor-pipe warp instruction (NERSC, V100 HMMA) */

enum { M_FP64, M_FP32, M_FP16, M_TENSOR, M_DRAM, M_L2, M_L1, M_TIME, M_CYCLES, M_RATE };
enum { U_COUNT, U_BYTES, U_TIME, U_CYCLES, U_RATE };

/* The metrics read, what each adds to and by how much per unit counted. */
static const struct {
    const char *name;
    int kind;
    double per;
} ncu_metrics[] = {
    {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", M_FP64, 1},
    {"sm__sass_thread_inst_executed_op_dmul_pred_on.sum", M_FP64, 1},
    {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum", M_FP64, 2},
    {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", M_FP32, 1},
    {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", M_FP32, 1},
    {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", M_FP32, 2},
    {"sm__sass_thread_inst_executed_op_hadd_pred_on.sum", M_FP16, 1},
    {"sm__sass_thread_inst_executed_op_hmul_pred_on.sum", M_FP16, 1},
    {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum", M_FP16, 2},
    {"sm__inst_executed_pipe_tensor.sum", M_TENSOR, NCU_TENSOR_FLOPS},
    {"dram__bytes.sum", M_DRAM, 1},
    {"lts__t_bytes.sum", M_L2, 1},
    {"l1tex__t_bytes.sum", M_L1, 1},
    {"gpu__time_duration.sum", M_TIME, 1},
    {"sm__cycles_elapsed.avg", M_CYCLES, 1},
    {"sm__cycles_elapsed.avg.per_second", M_RATE, 1},
};
#define NCU_N_METRICS (sizeof ncu_metrics / sizeof *ncu_metrics)

typedef struct ncu_field {
    const uint8_t *p;
    size_t n;
    size_t off;
} ncu_field;

typedef struct ncu {
    rf_ctx *ctx;
    rf__cursor *cur;
    rf__prof_table *t;
    uint64_t line; /* line where the current record starts, 1-based */
    ncu_field *f;  /* fields of the current record */
    size_t n_f, cap_f;
    char buf[RF__PROF_NAME_MAX + 1];                       /* an unescaped field */
    int col_id, col_name, col_metric, col_unit, col_value; /* long form; -1 when absent */
    int *wide_metric; /* wide form: metric index per column, -1 = not read */
    double *wide_scale;
    size_t n_cols;
    char prev_id[64]; /* long form: the launch of the previous row */
    rf_prof_kernel *prev_k;
    double cycles, rate; /* the current launch's elapsed SM cycles and clock, 0 until read */
    int timed;           /* the current launch has gpu__time_duration */
} ncu;

static rf_status ncu_err(ncu *c, rf_status st, size_t off, const char *fmt, ...) RF__PRINTF(4, 5);
static rf_status ncu_err(ncu *c, rf_status st, size_t off, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return rf__error(c->ctx, st, (int64_t)off, "line %llu: %s", (unsigned long long)c->line, msg);
}

/* ---- records --------------------------------------------------------------------------------- */

static rf_status ncu_push(ncu *c, const uint8_t *p, size_t n, size_t off)
{
    if (c->n_f == c->cap_f) {
        if (c->cap_f >= NCU_MAX_FIELDS)
            return ncu_err(c, RF_RANGE, off, "more than %d fields", NCU_MAX_FIELDS);
        size_t cap = c->cap_f ? c->cap_f * 2 : 32;
        ncu_field *f = rf__realloc(c->ctx, c->f, cap * sizeof *f);
        if (!f) return RF_NOMEM_ERR(c->ctx);
        c->f = f;
        c->cap_f = cap;
    }
    c->f[c->n_f++] = (ncu_field){p, n, off};
    return RF_OK;
}

/* Read one record (RFC 4180 quoting; a quoted field keeps its "" pairs, unescaped on use). */
static rf_status ncu_record(ncu *c)
{
    rf__cursor *cur = c->cur;
    c->n_f = 0;
    for (;;) {
        size_t off = rf__cursor_offset(cur);
        const uint8_t *p = cur->p;
        size_t n;
        if (rf__cursor_peek(cur) == '"') {
            rf__cursor_advance(cur);
            p = cur->p;
            for (;;) {
                const uint8_t *q = memchr(cur->p, '"', rf__cursor_left(cur));
                if (!q) return ncu_err(c, RF_FORMAT, off, "unterminated quote (byte %zu)", off);
                for (const uint8_t *s = cur->p; s < q; s++) c->line += *s == '\n';
                cur->p = q + 1;
                if (!rf__cursor_expect(cur, '"')) break;
            }
            n = (size_t)(cur->p - 1 - p);
        } else {
            while (!rf__cursor_eof(cur) && *cur->p != ',' && *cur->p != '\n' && *cur->p != '\r' &&
                   *cur->p != '"')
                cur->p++;
            if (rf__cursor_peek(cur) == '"')
                return ncu_err(c, RF_FORMAT, rf__cursor_offset(cur),
                               "a quote inside an unquoted field");
            n = (size_t)(cur->p - p);
        }
        RF_TRY(ncu_push(c, p, n, off));
        if (rf__cursor_expect(cur, ',')) continue;
        if (rf__cursor_eof(cur)) return RF_OK;
        rf__cursor_expect(cur, '\r');
        if (rf__cursor_expect(cur, '\n')) return RF_OK;
        return ncu_err(c, RF_FORMAT, rf__cursor_offset(cur), "text after a closing quote");
    }
}

/* Field i unescaped (and truncated to RF__PROF_NAME_MAX) into c->buf; returns its length. */
static size_t ncu_text(ncu *c, size_t i)
{
    const ncu_field *f = &c->f[i];
    size_t len = 0;
    for (size_t k = 0; k < f->n && len < RF__PROF_NAME_MAX; k++) {
        c->buf[len++] = (char)f->p[k];
        if (f->p[k] == '"') k++; /* the second quote of a pair */
    }
    c->buf[len] = '\0';
    return len;
}

static int ncu_is(const ncu_field *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->p, s, f->n) == 0;
}

/* Skip blank lines and ncu's log lines ("==PROF== ..."); 0 at the end. */
static int ncu_skip_lines(ncu *c)
{
    rf__cursor *cur = c->cur;
    for (;;) {
        if (rf__cursor_eof(cur)) return 0;
        int log = rf__cursor_peek(cur) == '=' && rf__cursor_peek_at(cur, 1) == '=';
        const uint8_t *e = cur->p;
        while (e < cur->end && (*e == ' ' || *e == '\t' || *e == '\r')) e++;
        if (!log && e < cur->end && *e != '\n') return 1;
        const uint8_t *nl = memchr(cur->p, '\n', rf__cursor_left(cur));
        cur->p = nl ? nl + 1 : cur->end;
        c->line++;
    }
}

/* ---- values ---------------------------------------------------------------------------------- */

static int ncu_metric(const ncu_field *f)
{
    for (size_t i = 0; i < NCU_N_METRICS; i++)
        if (ncu_is(f, ncu_metrics[i].name)) return (int)i;
    return -1;
}

/* The factor that turns a value in `unit` into counts, bytes or seconds; 0 when unknown. */
static double ncu_unit_scale(const ncu_field *u, int kind)
{
    static const struct {
        const char *name;
        int kind;
        double scale;
    } units[] = {{"", U_COUNT, 1},
                 {"inst", U_COUNT, 1},
                 {"Kinst", U_COUNT, 1e3},
                 {"Minst", U_COUNT, 1e6},
                 {"Ginst", U_COUNT, 1e9},
                 {"byte", U_BYTES, 1},
                 {"Kbyte", U_BYTES, 1e3},
                 {"Mbyte", U_BYTES, 1e6},
                 {"Gbyte", U_BYTES, 1e9},
                 {"Tbyte", U_BYTES, 1e12},
                 {"nsecond", U_TIME, 1e-9},
                 {"usecond", U_TIME, 1e-6},
                 {"msecond", U_TIME, 1e-3},
                 {"second", U_TIME, 1},
                 {"ns", U_TIME, 1e-9},
                 {"us", U_TIME, 1e-6},
                 {"ms", U_TIME, 1e-3},
                 {"s", U_TIME, 1},
                 {"cycle", U_CYCLES, 1},
                 {"Kcycle", U_CYCLES, 1e3},
                 {"Mcycle", U_CYCLES, 1e6},
                 {"Gcycle", U_CYCLES, 1e9},
                 {"cycle/second", U_RATE, 1},
                 {"cycle/msecond", U_RATE, 1e3},
                 {"cycle/usecond", U_RATE, 1e6},
                 {"cycle/nsecond", U_RATE, 1e9},
                 {"hz", U_RATE, 1},
                 {"Khz", U_RATE, 1e3},
                 {"Mhz", U_RATE, 1e6},
                 {"Ghz", U_RATE, 1e9}};
    int want = kind == M_TIME     ? U_TIME
               : kind == M_CYCLES ? U_CYCLES
               : kind == M_RATE   ? U_RATE
               : kind >= M_DRAM   ? U_BYTES
                                  : U_COUNT;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (units[i].kind == want && ncu_is(u, units[i].name)) return units[i].scale;
    return 0;
}

/* A value: thousands separators dropped; empty or "n/a" is *has = 0. */
static rf_status ncu_value(ncu *c, const ncu_field *f, double *out, int *has)
{
    char num[64], ex[96];
    size_t n = 0;
    *has = 0;
    for (size_t k = 0; k < f->n; k++) {
        if (f->p[k] == ',' || f->p[k] == ' ') continue;
        if (n + 1 >= sizeof num)
            return ncu_err(c, RF_FORMAT, f->off, "value \"%s\" is too long to be a number",
                           rf__excerpt(ex, sizeof ex, f->p, f->n, 40));
        num[n++] = (char)f->p[k];
    }
    num[n] = '\0';
    if (n == 0 || strcmp(num, "n/a") == 0) return RF_OK;
    const char *why = "not a number";
    rf_status st = rf__decimal_scan(num, n, 0, out, &why);
    if (st != RF_OK)
        return ncu_err(c, st, f->off, "value \"%s\" is %s",
                       rf__excerpt(ex, sizeof ex, f->p, f->n, 40), why);
    *has = 1;
    return RF_OK;
}

/* A launch ends: time from its cycles when it had no gpu__time_duration. */
static void ncu_launch_end(ncu *c, rf_prof_kernel *k)
{
    if (k && !c->timed && c->cycles > 0 && c->rate > 0) k->time_s += c->cycles / c->rate;
    c->cycles = c->rate = 0;
    c->timed = 0;
}

static rf_status ncu_add(ncu *c, rf_prof_kernel *k, int metric, double v, const ncu_field *at)
{
    v *= ncu_metrics[metric].per;
    int kind = ncu_metrics[metric].kind;
    if (kind == M_CYCLES || kind == M_RATE) {
        if (!(v <= 1e300))
            return ncu_err(c, RF_RANGE, at->off, "%s is out of range", ncu_metrics[metric].name);
        *(kind == M_CYCLES ? &c->cycles : &c->rate) = v;
        return RF_OK;
    }
    if (kind == M_TIME) c->timed = 1;
    double *dst[] = {&k->flops_fp64, &k->flops_fp32, &k->flops_fp16, &k->flops_tensor,
                     &k->bytes_dram, &k->bytes_l2,   &k->bytes_l1,   &k->time_s};
    double sum = *dst[ncu_metrics[metric].kind] + v;
    if (!(sum <= 1e300))
        return ncu_err(c, RF_RANGE, at->off, "%s summed over the launches is out of range",
                       ncu_metrics[metric].name);
    *dst[ncu_metrics[metric].kind] = sum;
    return RF_OK;
}

/* The kernel named by field i. */
static rf_status ncu_kernel(ncu *c, size_t i, rf_prof_kernel **k)
{
    size_t len = ncu_text(c, i);
    if (len == 0) return ncu_err(c, RF_FORMAT, c->f[i].off, "the kernel name is empty");
    size_t bad = rf__utf8_check((const uint8_t *)c->buf, len);
    if (bad < len) return ncu_err(c, RF_FORMAT, c->f[i].off, "the kernel name is not UTF-8");
    RF_TRY(rf__prof_kernel_get(c->t, c->buf, len, k));
    (*k)->gpu_kernel = 1;
    return RF_OK;
}

/* ---- the two forms --------------------------------------------------------------------------- */

static rf_status ncu_long_row(ncu *c)
{
    size_t need = (size_t)c->col_value;
    if ((size_t)c->col_metric > need) need = (size_t)c->col_metric;
    if ((size_t)c->col_name > need) need = (size_t)c->col_name;
    if ((size_t)c->col_unit > need) need = (size_t)c->col_unit;
    if (c->n_f <= need)
        return ncu_err(c, RF_FORMAT, c->f[0].off, "%zu fields, the header has %zu", c->n_f,
                       c->n_cols);
    int metric = ncu_metric(&c->f[c->col_metric]);
    if (metric < 0) return RF_OK;
    double v;
    int has;
    RF_TRY(ncu_value(c, &c->f[c->col_value], &v, &has));
    rf_prof_kernel *k;
    RF_TRY(ncu_kernel(c, (size_t)c->col_name, &k));
    char id[64] = "";
    if (c->col_id >= 0 && (size_t)c->col_id < c->n_f) {
        const ncu_field *f = &c->f[c->col_id];
        size_t n = f->n < sizeof id - 1 ? f->n : sizeof id - 1;
        memcpy(id, f->p, n);
        id[n] = '\0';
    }
    if (k != c->prev_k || strcmp(id, c->prev_id) != 0 || c->col_id < 0) {
        if (c->col_id >= 0 || k != c->prev_k) {
            ncu_launch_end(c, c->prev_k);
            k->count++;
        }
        c->prev_k = k;
        memcpy(c->prev_id, id, sizeof id);
    }
    if (!has) return RF_OK;
    double scale = ncu_unit_scale(&c->f[c->col_unit], ncu_metrics[metric].kind);
    char ex[96];
    if (scale == 0)
        return ncu_err(c, RF_FORMAT, c->f[c->col_unit].off, "unknown unit \"%s\" for %s",
                       rf__excerpt(ex, sizeof ex, c->f[c->col_unit].p, c->f[c->col_unit].n, 40),
                       ncu_metrics[metric].name);
    return ncu_add(c, k, metric, v * scale, &c->f[c->col_value]);
}

/* Wide form: the row under the header holds the units (its ID cell is empty). */
static rf_status ncu_wide_units(ncu *c)
{
    char ex[96];
    for (size_t i = 0; i < c->n_cols && i < c->n_f; i++) {
        int m = c->wide_metric[i];
        if (m < 0) continue;
        c->wide_scale[i] = ncu_unit_scale(&c->f[i], ncu_metrics[m].kind);
        if (c->wide_scale[i] == 0)
            return ncu_err(c, RF_FORMAT, c->f[i].off, "unknown unit \"%s\" for %s",
                           rf__excerpt(ex, sizeof ex, c->f[i].p, c->f[i].n, 40),
                           ncu_metrics[m].name);
    }
    return RF_OK;
}

static rf_status ncu_wide_row(ncu *c)
{
    if (c->n_f != c->n_cols)
        return ncu_err(c, RF_FORMAT, c->f[0].off, "%zu fields, the header has %zu", c->n_f,
                       c->n_cols);
    if (c->col_id >= 0 && c->f[c->col_id].n == 0) return ncu_wide_units(c);
    rf_prof_kernel *k;
    RF_TRY(ncu_kernel(c, (size_t)c->col_name, &k));
    k->count++;
    ncu_launch_end(c, NULL);
    for (size_t i = 0; i < c->n_cols; i++) {
        int m = c->wide_metric[i];
        double v;
        int has;
        if (m < 0) continue;
        RF_TRY(ncu_value(c, &c->f[i], &v, &has));
        if (has) RF_TRY(ncu_add(c, k, m, v * c->wide_scale[i], &c->f[i]));
    }
    ncu_launch_end(c, k);
    return RF_OK;
}

static rf_status ncu_header(ncu *c)
{
    c->col_id = c->col_name = c->col_metric = c->col_unit = c->col_value = -1;
    c->n_cols = c->n_f;
    for (size_t i = 0; i < c->n_f; i++) {
        const ncu_field *f = &c->f[i];
        int *col = ncu_is(f, "ID")             ? &c->col_id
                   : ncu_is(f, "Kernel Name")  ? &c->col_name
                   : ncu_is(f, "Metric Name")  ? &c->col_metric
                   : ncu_is(f, "Metric Unit")  ? &c->col_unit
                   : ncu_is(f, "Metric Value") ? &c->col_value
                                               : NULL;
        if (col && *col < 0) *col = (int)i;
    }
    if (c->col_name < 0)
        return ncu_err(c, RF_FORMAT, c->f[0].off, "the header has no \"Kernel Name\" column");
    if (c->col_metric >= 0) {
        if (c->col_unit < 0 || c->col_value < 0)
            return ncu_err(c, RF_FORMAT, c->f[0].off,
                           "a \"Metric Name\" column without \"Metric Unit\" and \"Metric Value\"");
        return RF_OK;
    }
    c->wide_metric = rf__malloc(c->ctx, c->n_cols * sizeof *c->wide_metric);
    c->wide_scale = rf__malloc(c->ctx, c->n_cols * sizeof *c->wide_scale);
    if (!c->wide_metric || !c->wide_scale) return RF_NOMEM_ERR(c->ctx);
    for (size_t i = 0; i < c->n_cols; i++) {
        c->wide_metric[i] = ncu_metric(&c->f[i]);
        c->wide_scale[i] = 1; /* until a units row says otherwise */
    }
    return RF_OK;
}

static rf_status ncu_parse(ncu *c)
{
    if (!ncu_skip_lines(c))
        return rf__error(c->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(c->cur),
                         "no header: the input is empty or only ncu log lines");
    c->line++;
    RF_TRY(ncu_record(c));
    RF_TRY(ncu_header(c));
    while (ncu_skip_lines(c)) {
        c->line++;
        RF_TRY(ncu_record(c));
        RF_TRY(c->col_metric >= 0 ? ncu_long_row(c) : ncu_wide_row(c));
    }
    ncu_launch_end(c, c->prev_k);
    return RF_OK;
}

rf_status rf__prof_parse_ncu(rf_ctx *ctx, rf__cursor *cur, rf__prof_table *t)
{
    ncu *c = rf__calloc(ctx, 1, sizeof *c);
    if (!c) return RF_NOMEM_ERR(ctx);
    c->ctx = ctx;
    c->cur = cur;
    c->t = t;
    rf_status st = ncu_parse(c);
    rf__free(ctx, c->f);
    rf__free(ctx, c->wide_metric);
    rf__free(ctx, c->wide_scale);
    rf__free(ctx, c);
    return st;
}
