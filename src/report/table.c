/* table.c — the aligned text table of an analysis: a header naming the machine and roof, one row
 * per kept operation, then totals and the share of time per bound. SI units, fixed widths, no
 * locale or time in the output (golden files check it). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"

enum {
    RF__COL_NUM,
    RF__COL_FLOPS,
    RF__COL_BYTES,
    RF__COL_AI,
    RF__COL_ATT,
    RF__COL_BOUND,
    RF__COL_EFF,
    RF__COL_TIME,
    RF__COL_SHARE,
    RF__NCOLS
};

/* Units live in the headers so the cells stay narrow: "3.83T" under "FLOP/s". */
static const char *const rf__hdr[RF__NCOLS] = {"#",     "FLOPs", "bytes", "AI",   "FLOP/s",
                                               "bound", "eff.",  "time",  "share"};

/* Tables longer than this use rf__widest instead of measuring every cell. */
#define RF__MEASURED_ROWS 4096

/* The widest text each cell can have: "-1.23k"/"999M" (SI, 3 digits), AI "0.00123", "undefined",
 * "100.0%", "1.23 us"/"999 ms". */
static const size_t rf__widest[RF__NCOLS] = {0, 6, 6, 7, 6, 9, 6, 7, 6};

/* Measured columns, only when the result has measurements: time, achieved FLOP/s and B/s,
 * utilization of the roof ("^": above it), measured / estimated time. */
enum { RF__MCOLS = 5 };
static const char *const rf__mhdr[RF__MCOLS] = {"measured", "achieved", "B/s", "util.", "x est"};

static void rf__mcells(const rf_row *row, char c[][24])
{
    const rf_achieved *a = row->measured;
    for (int k = 0; k < RF__MCOLS; k++) snprintf(c[k], 24, "-");
    if (!a) return;
    rf_time_format(c[0], 24, a->m.time_s, 3);
    rf_si_format_compact(c[1], 24, a->flops_per_s, "");
    rf_si_format_compact(c[2], 24, a->bytes_per_s, "");
    if (!isnan(a->utilization))
        snprintf(c[3], 24, "%.0f%%%s", 100 * a->utilization, a->above ? "^" : "");
    if (!isnan(a->ratio)) snprintf(c[4], 24, "%.2f", a->ratio);
}

/* A table with measurements fits 120 columns unless wide: the columns a measured point makes
 * secondary give way in this order while it does not (x est, achieved B/s, efficiency,
 * attainable FLOP/s, the estimated share), then the shape column down to 12. */
#define RF__NARROW_SHAPE 12
#define RF__NARROW_MAX 120
static const struct {
    int measured, col;
} rf__give_way[] = {{1, 4}, {1, 2}, {0, RF__COL_EFF}, {0, RF__COL_ATT}, {0, RF__COL_SHARE}};

/* Network columns, only with a network roof: bytes over the network and FLOPs per network byte. */
enum { RF__NCOLS_NET = 2 };
static const char *const rf__nhdr[RF__NCOLS_NET] = {"net B", "net AI"};

static void rf__ncells(const rf_row *row, char c[][24])
{
    rf_si_format_compact(c[0], 24, row->e.net_bytes, "");
    if (isnan(row->e.net_ai))
        snprintf(c[1], 24, "-");
    else
        rf__ai_text(c[1], 24, row->e.net_ai);
}

/* The text of each numeric cell of a row. */
static void rf__cells(const rf_result *r, const rf_row *row, size_t rank, char c[][24])
{
    rf__u64_text(c[RF__COL_NUM], rank);
    rf_si_format_compact(c[RF__COL_FLOPS], 24, row->e.flops, "");
    rf_si_format_compact(c[RF__COL_BYTES], 24, row->e.bytes, "");
    rf__ai_text(c[RF__COL_AI], 24, row->e.ai);
    rf_si_format_compact(c[RF__COL_ATT], 24, row->e.attainable_flops_per_s, "");
    rf__strlcpy(c[RF__COL_BOUND], rf_bound_name(row->e.bound), 24);
    rf__f1_format(c[RF__COL_EFF], 24, 100 * row->e.efficiency, "%");
    rf_time_format(c[RF__COL_TIME], 24, row->e.time_s, 3);
    rf__f1_format(c[RF__COL_SHARE], 24, 100 * rf__time_share(r, row), "%");
}

static rf_status rf__header(const rf_result *r, rf_writer *w)
{
    char a[48], b[48];
    const rf_totals *t = &r->totals;
    RF_TRY(rf_writef(w, "%s%s%llu operation%s\n", r->title, r->title[0] ? ": " : "",
                     (unsigned long long)t->count, t->count == 1 ? "" : "s"));
    RF_TRY(rf__write_machine_line(w, "",
                                  r->machine_description[0] ? r->machine_description : r->machine,
                                  r->machine, r->provenance));
    rf_si_format(a, sizeof a, r->roof.peak_flops_per_s, 3, "FLOP/s");
    rf_si_format(b, sizeof b, r->roof.bw_bytes_per_s, 3, "B/s");
    RF_TRY(rf_writef(w, "roof     %s %s, %s %s, ridge %.3g FLOP/B\n", r->compute.name, a,
                     r->bandwidth.name, b, r->ridge_ai));
    if (r->network.value > 0) {
        rf_si_format(a, sizeof a, r->network.value, 3, "B/s");
        rf__ai_text(b, sizeof b, r->roof.peak_flops_per_s / r->network.value);
        RF_TRY(rf_writef(w, "network  %s %s, ridge %s FLOP per network byte\n", r->network.name, a,
                         b));
    }
    if (r->compute.provisional || r->bandwidth.provisional)
        RF_TRY(rf_writef(w,
                         "         provisional: %s was measured in a disturbed run ('roofline "
                         "peaks --refresh'\n         measures it again)\n",
                         r->compute.provisional ? r->compute.name : r->bandwidth.name));
    return RF_WRITE_LIT(w, "\n");
}

/* The line naming the rows not listed: those a view left out (rf__view), or those an analysis
 * with a `top` never kept (their time is the totals' less the rows'). */
static rf_status rf__rest(const rf__view *v, const rf_report_opts *o, rf_writer *w)
{
    const rf_result *r = &v->r;
    if (v->n_rest || r->n_rows >= r->totals.count) return rf__view_rest_line(v, o, w);
    rf__view u = *v;
    double shown = 0;
    for (size_t i = 0; i < r->n_rows; i++) shown += r->rows[i].e.time_s;
    u.n_rest = (size_t)(r->totals.count - r->n_rows);
    u.rest_share = r->totals.time_s > 0 ? 1 - shown / r->totals.time_s : 0;
    u.rest_share = u.rest_share < 0 ? 0 : u.rest_share;
    u.measured = 0;
    return rf__view_rest_line(&u, o, w);
}

static rf_status rf__totals(const rf__view *v, const rf_report_opts *o, rf_writer *w)
{
    const rf_result *r = &v->r;
    const rf_totals *t = &r->totals;
    char f[32], b[32], ai[32], tm[32];
    rf_si_format_compact(f, sizeof f, t->flops, "");
    rf_si_format_compact(b, sizeof b, t->bytes, "B");
    rf__ai_text(ai, sizeof ai, t->ai);
    rf_time_format(tm, sizeof tm, t->time_s, 3);
    RF_TRY(rf__rest(v, o, w));
    RF_TRY(RF_WRITE_LIT(w, "\n"));
    RF_TRY(rf_writef(w, "total    FLOPs %s  bytes %s  AI %s FLOP/B  time %s (sum of estimates)\n",
                     f, b, ai, tm));
    const int net = r->network.value > 0, nk = net ? RF_BOUND_COUNT : 3;
    if (net)
        RF_TRY(rf_writef(w, "         network bytes %s\n",
                         rf_si_format_compact(b, sizeof b, t->net_bytes, "B")));
    RF_TRY(RF_WRITE_LIT(w, "bound   "));
    for (int k = 0; k < nk; k++) {
        double share = t->time_s > 0 ? 100 * t->time_by_bound_s[k] / t->time_s : 0;
        RF_TRY(rf_writef(w, " %s %llu (%.1f%% of time)%s", rf_bound_name((rf_bound)k),
                         (unsigned long long)t->count_by_bound[k], share, k + 1 < nk ? "," : "\n"));
    }
    return RF_OK;
}

static rf_status rf__table(rf_ctx *ctx, const rf__view *v, const rf_report_opts *o, rf_writer *w)
{
    const rf_result *r = &v->r;
    size_t width = o && o->width ? o->width : 80, wcol[RF__NCOLS], name_w = 4, op_w = 0, sh_w = 0;
    if (o && o->brief && width > RF__NARROW_MAX) width = RF__NARROW_MAX; /* one screen */
    size_t mcol[RF__MCOLS], ncol[RF__NCOLS_NET];
    char c[RF__NCOLS][24], mc[RF__MCOLS][24], nc[RF__NCOLS_NET][24];
    const int meas = rf__result_has_measured(r), net = r->network.value > 0;
    int narrow = 0, hide[RF__NCOLS] = {0}, mhide[RF__MCOLS] = {0};
    for (int k = 0; k < RF__NCOLS_NET; k++) ncol[k] = net ? strlen(rf__nhdr[k]) : 0;
    for (int k = 0; k < RF__NCOLS; k++) wcol[k] = strlen(rf__hdr[k]);
    for (int k = 0; k < RF__MCOLS; k++) mcol[k] = meas ? strlen(rf__mhdr[k]) : 0;
    /* Long tables take the widest a cell can be instead of formatting every number twice. */
    int measure = r->n_rows <= RF__MEASURED_ROWS;
    if (!measure)
        for (int k = 0; k < RF__NCOLS; k++)
            if (rf__widest[k] > wcol[k]) wcol[k] = rf__widest[k];
    if (!measure) snprintf(c[0], sizeof c[0], "%zu", r->n_rows), wcol[0] = strlen(c[0]);
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        if (measure) {
            rf__cells(r, row, i + 1, c);
            for (int k = 0; k < RF__NCOLS; k++)
                if (strlen(c[k]) > wcol[k]) wcol[k] = strlen(c[k]);
        }
        if (meas) {
            rf__mcells(row, mc);
            for (int k = 0; k < RF__MCOLS; k++)
                if (strlen(mc[k]) > mcol[k]) mcol[k] = strlen(mc[k]);
        }
        if (net) {
            rf__ncells(row, nc);
            for (int k = 0; k < RF__NCOLS_NET; k++)
                if (strlen(nc[k]) > ncol[k]) ncol[k] = strlen(nc[k]);
        }
        size_t nw = rf__utf8_cols(row->name, strlen(row->name));
        if (nw > name_w) name_w = nw;
        if (row->op && strlen(row->op) > op_w) op_w = strlen(row->op);
        if (row->detail && strlen(row->detail) > sh_w) sh_w = strlen(row->detail);
    }
    if (sh_w && sh_w < 5) sh_w = 5; /* "shape" */
    if (op_w && op_w < 2) op_w = 2;
    if (op_w > 11) op_w = 11; /* "GlobalAver~": the name column matters more */
    /* The name column takes what the others leave, at least 20 columns. */
    size_t fixed = 0;
    for (int k = 0; k < RF__NCOLS; k++) fixed += wcol[k] ? wcol[k] + 2 : 0;
    for (int k = 0; k < RF__MCOLS; k++) fixed += meas && mcol[k] ? mcol[k] + 2 : 0;
    for (int k = 0; k < RF__NCOLS_NET; k++) fixed += net ? ncol[k] + 2 : 0;
    if (op_w) fixed += op_w + 2;
    if (sh_w) fixed += sh_w + 2;
    size_t name_min = name_w < 20 ? name_w : 20;
    for (size_t g = 0; meas && !(o && o->wide) && fixed + name_min > RF__NARROW_MAX &&
                       g < sizeof rf__give_way / sizeof *rf__give_way;
         g++) {
        int k = rf__give_way[g].col;
        size_t *cw = rf__give_way[g].measured ? &mcol[k] : &wcol[k];
        (rf__give_way[g].measured ? mhide : hide)[k] = narrow = 1;
        fixed -= *cw + 2;
    }
    if (meas && !(o && o->wide) && sh_w > RF__NARROW_SHAPE &&
        fixed + name_min > RF__NARROW_MAX) { /* shapes give way */
        size_t cut = fixed + name_min - RF__NARROW_MAX;
        size_t keep = sh_w > cut + RF__NARROW_SHAPE ? sh_w - cut : RF__NARROW_SHAPE;
        fixed -= sh_w - keep;
        sh_w = keep;
        narrow = 1;
    }
    size_t room = width > fixed + 20 ? width - fixed : 20; /* names matter most: at least 20 */
    if (name_w > room) { /* cut in the middle, but never so that two rows print alike */
        size_t widest = name_w;
        name_w = room;
        const char **names = measure ? rf__malloc(ctx, r->n_rows * sizeof *names) : NULL;
        for (size_t i = 0; names && i < r->n_rows; i++) names[i] = r->rows[i].name;
        if (names) name_w = rf__name_width_unique(ctx, names, r->n_rows, room, widest);
        rf__free(ctx, names);
    }

    RF_TRY(rf__header(r, w));
    RF_TRY(rf__write_cell(w, rf__hdr[0], wcol[0], 1));
    RF_TRY(RF_WRITE_LIT(w, "  "));
    RF_TRY(rf__write_cell(w, "name", name_w, 0));
    if (op_w) {
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_cell(w, "op", op_w, 0));
    }
    if (sh_w) {
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_cell(w, "shape", sh_w, 0));
    }
    for (int k = 1; k < RF__NCOLS; k++) {
        if (hide[k]) continue;
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_cell(w, rf__hdr[k], wcol[k], k != RF__COL_BOUND));
        for (int j = 0; net && k == RF__COL_AI && j < RF__NCOLS_NET; j++) {
            RF_TRY(RF_WRITE_LIT(w, "  "));
            RF_TRY(rf__write_cell(w, rf__nhdr[j], ncol[j], 1));
        }
    }
    for (int k = 0; meas && k < RF__MCOLS; k++) {
        if (mhide[k]) continue;
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_cell(w, rf__mhdr[k], mcol[k], 1));
    }
    RF_TRY(RF_WRITE_LIT(w, "\n"));
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        rf__cells(r, row, i + 1, c);
        RF_TRY(rf__write_cell(w, c[0], wcol[0], 1));
        RF_TRY(RF_WRITE_LIT(w, "  "));
        RF_TRY(rf__write_name_cell(w, row->name, name_w));
        if (op_w) {
            RF_TRY(RF_WRITE_LIT(w, "  "));
            RF_TRY(rf__write_cell(w, row->op ? row->op : "", op_w, 0));
        }
        if (sh_w) {
            RF_TRY(RF_WRITE_LIT(w, "  "));
            RF_TRY(rf__write_cell(w, row->detail ? row->detail : "", sh_w, 0));
        }
        if (net) rf__ncells(row, nc);
        for (int k = 1; k < RF__NCOLS; k++) {
            if (hide[k]) continue;
            RF_TRY(RF_WRITE_LIT(w, "  "));
            RF_TRY(rf__write_cell(w, c[k], wcol[k], k != RF__COL_BOUND));
            for (int j = 0; net && k == RF__COL_AI && j < RF__NCOLS_NET; j++) {
                RF_TRY(RF_WRITE_LIT(w, "  "));
                RF_TRY(rf__write_cell(w, nc[j], ncol[j], 1));
            }
        }
        if (meas) rf__mcells(row, mc);
        for (int k = 0; meas && k < RF__MCOLS; k++) {
            if (mhide[k]) continue;
            RF_TRY(RF_WRITE_LIT(w, "  "));
            RF_TRY(rf__write_cell(w, mc[k], mcol[k], 1));
        }
        RF_TRY(RF_WRITE_LIT(w, "\n"));
    }
    RF_TRY(rf__totals(v, o, w));
    char hidden[64] = "";
    size_t hl = 0;
    for (size_t g = 0; narrow && g < sizeof rf__give_way / sizeof *rf__give_way; g++) {
        int k = rf__give_way[g].col, m = rf__give_way[g].measured;
        if (m ? mhide[k] : hide[k])
            rf__appendf(hidden, sizeof hidden, &hl, "%s%s", hl ? ", " : "",
                        m ? rf__mhdr[k] : rf__hdr[k]);
    }
    if (narrow && sh_w) rf__appendf(hidden, sizeof hidden, &hl, "%swhole shapes", hl ? ", " : "");
    if (meas) RF_TRY(rf__table_measured(v->src, hidden, o && o->brief, w));
    return RF_OK;
}

rf_status rf_report_table(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_table: missing argument (a freed result?)");
    rf_writer cw = rf__clean_writer(w); /* names from files: no control bytes */
    rf__staged sg;                      /* one write a block, not one a cell */
    rf_writer sw = rf__staged_writer(&sg, &cw);
    rf__view v;
    RF_TRY(rf__view_make(ctx, r, o, &v));
    rf_status st = rf__table(ctx, &v, o, &sw);
    rf__view_free(ctx, &v);
    RF_TRY(st);
    return rf__staged_flush(&sg);
}
