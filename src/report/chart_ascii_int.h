/* chart_ascii_int.h — the terminal chart's grid and line types and its UTF-8 text helpers,
 * shared by chart_ascii.c (the grid, the draw methods) and chart_ascii_legend.c (the legend).
 * Never installed. */
#ifndef RF_CHART_ASCII_INT_H
#define RF_CHART_ASCII_INT_H

#include <stdint.h>
#include <string.h>

#include "chart.h"
#include "core/rf_int.h"
#include "core/text.h"
#include "report_int.h"
#include "roofline/report.h"

/* What occupies a cell; a later drawing replaces an earlier one of a lower or equal layer. */
enum {
    RF__L_EMPTY,
    RF__L_DENS, /* the rows of a big input that are not markers: under everything, text over it */
    RF__L_AXIS,
    RF__L_ROOF2,
    RF__L_ROOF1,
    RF__L_RIDGE,
    RF__L_POINT,
    RF__L_TEXT
};

typedef struct rf__cell {
    uint32_t ch;   /* code point */
    int32_t point; /* index of the point shown here, or -1 */
    uint8_t layer; /* RF__L_* */
} rf__cell;

typedef struct rf__ascii {
    rf_ctx *ctx;
    const rf__chart *c;
    int utf8;
    unsigned width, rows; /* the grid: columns and rows */
    unsigned left;        /* grid column of plot column 0; the y axis is at left - 1 */
    unsigned pw, ph;      /* plot columns and rows */
    unsigned top;         /* grid row of the plot's top row */
    rf__cell *cells;
    size_t *same_as;    /* per point: the point shown in its cell instead, or SIZE_MAX */
    uint32_t dens_most; /* most rows in one character cell of the density (0: none drawn) */
    int brief;          /* rf_report_opts.brief: the legend in a few lines */
} rf__ascii;

/* ---- text: UTF-8 decoding (invalid bytes and controls become '?') and line building ---------- */

static inline uint32_t rf__next_cp(const char *s, size_t *i)
{
    uint32_t cp;
    size_t n = rf__utf8_decode((const uint8_t *)s + *i, 4, &cp); /* a NUL stops it in time */
    if (n == 0) {
        *i += 1;
        return '?';
    }
    *i += n;
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) ? '?' : cp;
}

static inline size_t rf__encode(char *out, uint32_t cp)
{
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18), out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F)), out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static inline size_t rf__zmax(size_t a, size_t b)
{
    return a > b ? a : b;
}

static inline size_t rf__cols(const char *s)
{
    size_t i = 0, n = 0;
    while (s[i]) rf__next_cp(s, &i), n++;
    return n;
}

/* A line under construction: never more than `max` columns (one column per code point). */
typedef struct rf__line {
    char *buf;
    size_t len, cols, max;
    int utf8;
} rf__line;

static inline void rf__line_cp(rf__line *l, uint32_t cp)
{
    if (l->cols >= l->max) return;
    l->len += rf__encode(l->buf + l->len, cp);
    l->cols++;
}

/* Append s in at most `cols` columns, cut with '~' ('…' in UTF-8) when longer. */
static inline void rf__line_text(rf__line *l, const char *s, size_t cols)
{
    size_t n = rf__cols(s), i = 0;
    size_t keep = n <= cols ? n : cols ? cols - 1 : 0;
    for (size_t k = 0; k < keep; k++) rf__line_cp(l, rf__next_cp(s, &i));
    if (n > cols && cols) rf__line_cp(l, l->utf8 ? 0x2026 : '~');
}

static inline void rf__line_pad(rf__line *l, size_t cols)
{
    while (l->cols < cols && l->cols < l->max) rf__line_cp(l, ' ');
}

static inline rf_status rf__line_flush(rf__line *l, rf_writer *w)
{
    while (l->len && l->buf[l->len - 1] == ' ') l->len--;
    l->buf[l->len++] = '\n';
    rf_status st = rf_write(w, l->buf, l->len);
    l->len = l->cols = 0;
    return st;
}

/* The legend under the grid (chart_ascii_legend.c). */
rf_status rf__ascii_legend(rf__ascii *a, rf__line *l, rf_writer *w);

#endif
