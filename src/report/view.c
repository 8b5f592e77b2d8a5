/* view.c — what a table or a terminal chart shows of a long result (rf_report_opts.rows_max): its
 * N slowest rows, slowest first, borrowed from the result, and what the rest adds up to. Never
 * copies a name and never changes the result; the totals stay those of every row. */
#include <stdlib.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"

/* A row's time for the ranking: its measurement when it has one, else its estimate. */
static double rf__view_time(const rf_row *row)
{
    return row->measured && row->measured->m.time_s > 0 ? row->measured->m.time_s : row->e.time_s;
}

typedef struct rf__ranked {
    double t;
    size_t i;
} rf__ranked;

static int rf__ranked_cmp(const void *a, const void *b)
{
    const rf__ranked *x = a, *y = b;
    if (x->t != y->t) return x->t > y->t ? -1 : 1; /* slowest first */
    return x->i < y->i ? -1 : x->i > y->i;         /* ties in row order */
}

rf_status rf__view_make(rf_ctx *ctx, const rf_result *r, const rf_report_opts *o, rf__view *v)
{
    memset(v, 0, sizeof *v);
    v->src = r;
    v->r = *r;
    uint64_t max = o ? o->rows_max : 0;
    if (!max || r->n_rows <= max) return RF_OK; /* every row, in its order */
    rf__ranked *k = rf__malloc(ctx, r->n_rows * sizeof *k);
    rf_row *rows = rf__malloc(ctx, (size_t)max * sizeof *rows);
    if (!k || !rows) {
        rf__free(ctx, k);
        rf__free(ctx, rows);
        return RF_NOMEM_ERR(ctx);
    }
    double all = 0, shown = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        k[i] = (rf__ranked){rf__view_time(&r->rows[i]), i};
        all += k[i].t;
    }
    qsort(k, r->n_rows, sizeof *k, rf__ranked_cmp);
    for (size_t i = 0; i < max; i++) {
        rows[i] = r->rows[k[i].i]; /* borrowed: names stay the result's */
        shown += k[i].t;
    }
    rf__free(ctx, k);
    v->rows = rows;
    v->r.rows = rows;
    v->r.n_rows = (size_t)max;
    v->r.sort = RF_SORT_TIME;
    v->n_rest = r->n_rows - (size_t)max;
    v->rest_share = all > 0 ? (all - shown) / all : 0;
    v->measured = rf__result_has_measured(r);
    return RF_OK;
}

void rf__view_free(rf_ctx *ctx, rf__view *v)
{
    rf__free(ctx, v->rows);
    v->rows = NULL;
}

rf_status rf__view_rest_line(const rf__view *v, const rf_report_opts *o, rf_writer *w)
{
    if (!v->n_rest) return RF_OK;
    const char *hint = o && o->more_hint ? o->more_hint : NULL;
    return rf_writef(w, "... %zu more operation%s, %.1f%% of the %s time%s%s%s\n", v->n_rest,
                     v->n_rest == 1 ? "" : "s", 100 * v->rest_share,
                     v->measured ? "measured" : "estimated", hint ? " (" : "", hint ? hint : "",
                     hint ? ")" : "");
}
