/* cells.c — the cells of the renderers' tables: intensity in three digits, UTF-8 aware widths,
 * names cut in the middle, a row's share of time and the slowest rows (report_int.h). Output is
 * locale independent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/core.h"

char *rf__ai_text(char *buf, size_t size, double ai)
{
    if (isnan(ai))
        snprintf(buf, size, "-");
    else if (isinf(ai))
        snprintf(buf, size, "inf");
    else if (ai != 0 && (ai < 0.001 || ai >= 999.5))
        rf_si_format_compact(buf, size, ai, "");
    else
        rf__g_format(buf, size, ai, 3);
    return buf;
}

size_t rf__utf8_fit(const char *s, size_t cols, size_t *used)
{
    size_t i = 0, c = 0;
    while (s[i]) {
        size_t len = 1;
        while (s[i + len] && ((unsigned char)s[i + len] & 0xC0) == 0x80) len++;
        if (c + 1 > cols) break;
        i += len;
        c++;
    }
    *used = c;
    return i;
}

rf_status rf__write_cell(rf_writer *w, const char *s, size_t cols, int right)
{
    size_t n = strlen(s), have = rf__utf8_cols(s, n), used = 0, bytes = n;
    if (have > cols) {
        bytes = rf__utf8_fit(s, cols ? cols - 1 : 0, &used);
        RF_TRY(rf_write(w, s, bytes));
        return cols ? RF_WRITE_LIT(w, "~") : RF_OK;
    }
    static const char spaces[] = "                                                                ";
    size_t pad = cols - have;
    if (!right) RF_TRY(rf_write(w, s, bytes));
    while (pad) {
        size_t k = pad < sizeof spaces - 1 ? pad : sizeof spaces - 1;
        RF_TRY(rf_write(w, spaces, k));
        pad -= k;
    }
    if (right) RF_TRY(rf_write(w, s, bytes));
    return RF_OK;
}

/* How a name longer than `cols` prints: its first *head bytes, '~', then the string at *tail. */
static int rf__name_cut(const char *s, size_t cols, size_t *head, const char **tail)
{
    size_t n = strlen(s), have = rf__utf8_cols(s, n);
    if (have <= cols || cols < 8) return 0;
    size_t head_cols = (cols - 1) / 3, tail_cols = cols - 1 - head_cols, used;
    *head = rf__utf8_fit(s, head_cols, &used);
    /* The tail: skip code points from the start until tail_cols remain. */
    const char *t = s;
    for (size_t skip = have - tail_cols; skip; skip--) {
        t++;
        while ((*t & 0xC0) == 0x80) t++;
    }
    *tail = t;
    return 1;
}

typedef struct rf__printed {
    const char *s, *tail; /* tail NULL: printed whole */
    size_t head;
} rf__printed;

static int rf__printed_cmp(const void *a, const void *b)
{
    const rf__printed *x = a, *y = b;
    size_t hx = x->tail ? x->head : strlen(x->s), hy = y->tail ? y->head : strlen(y->s);
    size_t k = hx < hy ? hx : hy;
    int c = memcmp(x->s, y->s, k);
    if (c || hx != hy) return c ? c : (hx < hy ? -1 : 1);
    if (!x->tail || !y->tail) return (x->tail != NULL) - (y->tail != NULL);
    return strcmp(x->tail, y->tail);
}

size_t rf__name_width_unique(rf_ctx *ctx, const char *const *names, size_t n, size_t cols,
                             size_t widest)
{
    if (n < 2 || cols >= widest) return cols;
    rf__printed *p = rf__malloc(ctx, n * sizeof *p);
    if (!p) return cols; /* no memory for the check: the names print as they would have */
    while (cols < widest) {
        for (size_t i = 0; i < n; i++) {
            p[i].s = names[i] ? names[i] : "";
            p[i].tail = NULL;
            rf__name_cut(p[i].s, cols, &p[i].head, &p[i].tail);
        }
        qsort(p, n, sizeof *p, rf__printed_cmp);
        int clash = 0;
        for (size_t i = 1; i < n && !clash; i++)
            clash = rf__printed_cmp(&p[i - 1], &p[i]) == 0 && (p[i].tail || p[i - 1].tail);
        if (!clash) break;
        cols += cols / 4 > 4 ? cols / 4 : 4;
    }
    rf__free(ctx, p);
    return cols < widest ? cols : widest;
}

rf_status rf__write_name_cell(rf_writer *w, const char *s, size_t cols)
{
    size_t head = 0;
    const char *t = NULL;
    if (!rf__name_cut(s, cols, &head, &t)) return rf__write_cell(w, s, cols, 0);
    RF_TRY(rf_write(w, s, head));
    RF_TRY(RF_WRITE_LIT(w, "~"));
    return rf_write(w, t, strlen(t));
}

double rf__time_share(const rf_result *r, const rf_row *row)
{
    return r->totals.time_s > 0 ? row->e.time_s / r->totals.time_s : 0;
}

size_t rf__slowest_rows(const rf_result *r, size_t k, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_rows && k; i++) {
        size_t pos = n;
        while (pos > 0 && r->rows[idx[pos - 1]].e.time_s < r->rows[i].e.time_s) pos--;
        if (pos >= k) continue;
        size_t end = n < k ? n : k - 1;
        memmove(idx + pos + 1, idx + pos, (end - pos) * sizeof *idx);
        idx[pos] = i;
        if (n < k) n++;
    }
    return n;
}

rf_status rf__write_machine_line(rf_writer *w, const char *lead, const char *desc, const char *name,
                                 rf_provenance prov)
{
    const char *p = rf_provenance_name(prov);
    int same = strcmp(name, p) == 0;
    char said[48];
    snprintf(said, sizeof said, "(%s", p); /* "Xeon (measured, 2 threads)": said once */
    if (same && strstr(desc, said)) return rf_writef(w, "%smachine  %s\n", lead, desc);
    return rf_writef(w, "%smachine  %s [%s%s%s]\n", lead, desc, name, same ? "" : ", ",
                     same ? "" : p);
}
