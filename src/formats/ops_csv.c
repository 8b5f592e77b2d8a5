/* ops_csv.c — the CSV form of an operations list (docs/ops-format.md; RFC 4180: fields quoted with
 * "" escapes may hold commas and line breaks; CRLF or LF; a header naming name, flops and bytes).
 * Streams: each row goes to the callback as soon as it is read, names point into the input or into
 * one scratch buffer reused for every row, so memory never grows with the rows. Never allocates
 * per row; never keeps a row after its callback. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/formats_int.h"

/* name, flops and bytes are required; time (seconds measured, optional) may follow in any order. */
enum { COL_NAME, COL_FLOPS, COL_BYTES, COL_TIME, COL_NET, COL_COUNT, COL_REQUIRED = COL_TIME };

/* One field as found in the input. */
typedef struct csv_field {
    const uint8_t *p; /* content: trimmed when unquoted, between the quotes when quoted */
    size_t n;
    size_t off;  /* offset of the field's first byte (its opening quote when quoted) */
    int escaped; /* quoted and holds "" pairs, so the content needs unescaping */
} csv_field;

typedef struct csv {
    rf_ctx *ctx;
    rf__cursor *cur;
    rf__ops_sink *sink;
    uint64_t row;                 /* number of the data row being read; 0 while in the header */
    int n_cols;                   /* columns in the header: COL_REQUIRED, or COL_COUNT with time */
    int kind_at[COL_COUNT];       /* what column i of the header holds (COL_*) */
    const char *label[COL_COUNT]; /* how each kind is named in messages ("bytes", "memory_bytes") */
    char *scratch; /* RF__OPS_NAME_MAX bytes for unescaped names; made on first use */
} csv;

/* Set an error located at `off`: "header[, column K]" or "row N[, field 'x']" then the text.
 * col < 0: the whole row. */
static rf_status csv_err(csv *c, rf_status st, size_t off, int col, const char *fmt, ...)
    RF__PRINTF(5, 6);
static rf_status csv_err(csv *c, rf_status st, size_t off, int col, const char *fmt, ...)
{
    char msg[768];
    size_t len = 0;
    msg[0] = '\0';
    if (c->row == 0) {
        rf__appendf(msg, sizeof msg, &len, "header");
        if (col >= 0) rf__appendf(msg, sizeof msg, &len, ", column %d", col + 1);
    } else {
        rf__appendf(msg, sizeof msg, &len, "row %llu", (unsigned long long)c->row);
        if (col >= 0 && col < COL_COUNT)
            rf__appendf(msg, sizeof msg, &len, ", field '%s'", c->label[c->kind_at[col]]);
        else if (col >= 0)
            rf__appendf(msg, sizeof msg, &len, ", field %d", col + 1);
    }
    va_list ap;
    va_start(ap, fmt);
    if (len < sizeof msg) vsnprintf(msg + len, sizeof msg - len, fmt, ap);
    va_end(ap);
    return rf__error(c->ctx, st, (int64_t)off, "%s", msg);
}

/* ---- fields ---------------------------------------------------------------------------------- */

/* The bytes that end an unquoted field's text (one table lookup per byte in the hot loop). */
static const uint8_t csv_stop[256] = {[','] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1};

/* An unquoted field: up to ',', CR, LF or the end; a '"' inside is an error. */
static rf_status csv_unquoted(csv *c, csv_field *f, int col)
{
    const uint8_t *p = c->cur->p, *end = c->cur->end;
    while (p < end && !csv_stop[*p]) p++;
    if (p < end && *p == '"')
        return csv_err(c, RF_FORMAT, (size_t)(p - c->cur->base), col,
                       ": a quote inside an unquoted field (quote the whole field and double the "
                       "quotes inside)");
    f->p = c->cur->p;
    f->n = (size_t)(p - c->cur->p);
    while (f->n && (f->p[f->n - 1] == ' ' || f->p[f->n - 1] == '\t')) f->n--;
    c->cur->p = p;
    return RF_OK;
}

/* A quoted field: from the opening '"' to the closing one; "" stands for one quote. */
static rf_status csv_quoted(csv *c, csv_field *f, int col)
{
    rf__cursor *cur = c->cur;
    rf__cursor_advance(cur); /* the opening quote */
    const uint8_t *start = cur->p;
    for (;;) {
        const uint8_t *q = memchr(cur->p, '"', rf__cursor_left(cur));
        if (!q)
            return csv_err(c, RF_FORMAT, f->off, -1, ": unterminated quote (opened at byte %zu)",
                           f->off);
        cur->p = q + 1;
        if (!rf__cursor_expect(cur, '"')) break; /* a lone quote closes the field */
        f->escaped = 1;
    }
    f->p = start;
    f->n = (size_t)(cur->p - 1 - start);
    rf__cursor_skip_blanks(cur);
    if (!rf__cursor_eof(cur) && *cur->p != ',' && *cur->p != '\n' && *cur->p != '\r')
        return csv_err(c, RF_FORMAT, rf__cursor_offset(cur), col, ": text after the closing quote");
    return RF_OK;
}

/* Consume the delimiter after a field: *more = 1 after ',', 0 at a line end or the input's end. */
static rf_status csv_delim(csv *c, int *more)
{
    rf__cursor *cur = c->cur;
    *more = rf__cursor_expect(cur, ',');
    if (*more || rf__cursor_eof(cur) || rf__cursor_expect(cur, '\n')) return RF_OK;
    if (rf__cursor_peek_at(cur, 1) == '\n') { /* the current byte is '\r' */
        rf__cursor_skip(cur, 2);
        return RF_OK;
    }
    return csv_err(c, RF_FORMAT, rf__cursor_offset(cur), -1,
                   ": a carriage return not followed by a line feed");
}

/* Read one field (column index col, 0-based) and its delimiter. */
static rf_status csv_field_read(csv *c, csv_field *f, int col, int *more)
{
    rf__cursor_skip_blanks(c->cur);
    f->off = rf__cursor_offset(c->cur);
    f->escaped = 0;
    if (rf__cursor_peek(c->cur) == '"')
        RF_TRY(csv_quoted(c, f, col));
    else
        RF_TRY(csv_unquoted(c, f, col));
    return csv_delim(c, more);
}

/* Skip blank lines (empty or only spaces and tabs). Returns 0 at the end of the input. */
static int csv_skip_blank_lines(rf__cursor *cur)
{
    for (;;) {
        rf__cursor_skip_blanks(cur);
        if (rf__cursor_eof(cur)) return 0;
        if (rf__cursor_expect(cur, '\n')) continue;
        if (rf__cursor_peek(cur) == '\r' && rf__cursor_peek_at(cur, 1) == '\n') {
            rf__cursor_skip(cur, 2);
            continue;
        }
        return 1;
    }
}

/* The content of a field without surrounding spaces/tabs (quoted numbers may have them). */
static void csv_trim(const csv_field *f, const uint8_t **p, size_t *n)
{
    const uint8_t *s = f->p;
    size_t k = f->n;
    while (k && (*s == ' ' || *s == '\t')) s++, k--;
    while (k && (s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
    *p = s;
    *n = k;
}

/* ---- header ---------------------------------------------------------------------------------- */

/* Which column a header field names, and how to spell it in messages; -1 when unknown. */
static int csv_column_kind(const uint8_t *p, size_t n, const char **label)
{
    static const struct {
        const char *name;
        int kind;
    } known[] = {{"name", COL_NAME},          {"flops", COL_FLOPS}, {"bytes", COL_BYTES},
                 {"memory_bytes", COL_BYTES}, {"time", COL_TIME},   {"time_s", COL_TIME},
                 {"net_bytes", COL_NET}};
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        if (n == strlen(known[i].name) && rf__strncasecmp((const char *)p, known[i].name, n) == 0) {
            *label = known[i].name;
            return known[i].kind;
        }
    }
    return -1;
}

/* Check header field number col and record what it holds. */
static rf_status csv_header_column(csv *c, const csv_field *f, int col, int seen[COL_COUNT])
{
    const uint8_t *p;
    size_t n;
    const char *label = NULL;
    char ex[96];
    csv_trim(f, &p, &n);
    if (n == 0) return csv_err(c, RF_FORMAT, f->off, col, " has no name");
    int kind = csv_column_kind(p, n, &label);
    if (kind < 0)
        return csv_err(c, RF_FORMAT, f->off, -1,
                       ": unknown column '%s' (expected name, flops, bytes or memory_bytes, and "
                       "optionally time and net_bytes)",
                       rf__excerpt(ex, sizeof ex, p, n, 40));
    if (seen[kind] && strcmp(label, c->label[kind]) != 0)
        return csv_err(c, RF_FORMAT, f->off, -1, ": duplicate column '%s' (same as '%s')", label,
                       c->label[kind]);
    if (seen[kind]) return csv_err(c, RF_FORMAT, f->off, -1, ": duplicate column '%s'", label);
    seen[kind] = 1;
    c->kind_at[col] = kind;
    c->label[kind] = label;
    return RF_OK;
}

/* The header: the first non-blank line. */
static rf_status csv_header(csv *c)
{
    static const char *const required[COL_REQUIRED] = {"name", "flops", "bytes"};
    int seen[COL_COUNT] = {0};
    size_t start = rf__cursor_offset(c->cur);
    int more = 1;
    for (int col = 0; more; col++) {
        csv_field f;
        RF_TRY(csv_field_read(c, &f, col, &more));
        RF_TRY(csv_header_column(c, &f, col, seen)); /* a 5th column is unknown or a duplicate */
        c->n_cols = col + 1;
    }
    for (int k = 0; k < COL_REQUIRED; k++)
        if (!seen[k]) return csv_err(c, RF_FORMAT, start, -1, ": missing column '%s'", required[k]);
    return RF_OK;
}

/* ---- rows ------------------------------------------------------------------------------------ */

/* Why a number field was refused (RF_FORMAT cases), in words for the message. */
static const char *csv_number_why(const uint8_t *p, size_t n, const char *why)
{
    if (strcmp(why, "number too long") == 0) return "too long to be a number";
    if (n && (*p == '+' || *p == '-')) p++, n--;
    if (n >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return "not a decimal number (hexadecimal is not accepted)";
    if (n >= 3 && rf__strncasecmp((const char *)p, "inf", 3) == 0) return "not a finite number";
    return "not a number";
}

/* Fast path for the common case, a plain integer of at most 15 digits: exact in a double (below
 * 2^53), so the result is the one rf__decimal_scan's strtod gives, without its cost (strtod was a
 * third of the time for a million rows). Returns 0 when the text is anything else. */
static int csv_small_integer(const uint8_t *p, size_t n, double *out)
{
    if (n == 0 || n > 15) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    *out = (double)v;
    return 1;
}

/* A flops or bytes field: a strict decimal number, finite and >= 0. */
static rf_status csv_number(csv *c, const csv_field *f, int col, double *out)
{
    const uint8_t *p;
    size_t n;
    const char *why = "not a number";
    char ex[96];
    csv_trim(f, &p, &n);
    if (csv_small_integer(p, n, out)) return RF_OK;
    if (n == 0) return csv_err(c, RF_FORMAT, f->off, col, " is empty");
    rf_status st = f->escaped ? RF_FORMAT : rf__decimal_scan((const char *)p, n, 0, out, &why);
    if (st == RF_OK) return RF_OK;
    if (st == RF_FORMAT) why = csv_number_why(p, n, why);
    return csv_err(c, st, f->off, col, ": \"%s\" is %s", rf__excerpt(ex, sizeof ex, p, n, 40), why);
}

/* The time field: empty (no measurement for this row) or a number of seconds, finite and > 0. */
static rf_status csv_time(csv *c, const csv_field *f, int col, rf_op_row *row)
{
    const uint8_t *p;
    size_t n;
    csv_trim(f, &p, &n);
    if (n == 0) return RF_OK;
    RF_TRY(csv_number(c, f, col, &row->time_s));
    if (!(row->time_s > 0))
        return csv_err(c, RF_RANGE, f->off, col, ": a measured time must be positive, got 0");
    row->has_time = 1;
    return RF_OK;
}

/* Copy a quoted name into the scratch buffer, each "" becoming ". Returns the length, or
 * RF__OPS_NAME_MAX + 1 when it does not fit. */
static size_t csv_unescape(char *dst, const uint8_t *s, size_t n)
{
    const uint8_t *end = s + n;
    size_t len = 0;
    while (s < end) {
        const uint8_t *q = memchr(s, '"', (size_t)(end - s));
        size_t chunk = (size_t)((q ? q + 1 : end) - s); /* up to and with the first quote */
        if (chunk > RF__OPS_NAME_MAX - len) return RF__OPS_NAME_MAX + 1;
        memcpy(dst + len, s, chunk);
        len += chunk;
        s += chunk + (q ? 1 : 0); /* skip the second quote of the pair */
    }
    return len;
}

/* The name field: non-empty, valid UTF-8, at most RF__OPS_NAME_MAX bytes once unescaped. */
static rf_status csv_name(csv *c, const csv_field *f, int col, rf_op_row *row)
{
    /* "" pairs are ASCII: checking the raw, still escaped form is enough. */
    size_t bad = rf__utf8_check(f->p, f->n);
    if (bad < f->n)
        return csv_err(c, RF_FORMAT, (size_t)(f->p - c->cur->base) + bad, col,
                       " is not valid UTF-8 (byte %zu)", (size_t)(f->p - c->cur->base) + bad);
    row->name = (const char *)f->p;
    row->name_len = f->n;
    if (f->escaped) {
        if (!c->scratch && !(c->scratch = rf__malloc(c->ctx, RF__OPS_NAME_MAX)))
            return RF_NOMEM_ERR(c->ctx);
        row->name = c->scratch;
        row->name_len = csv_unescape(c->scratch, f->p, f->n);
    }
    if (row->name_len == 0) return csv_err(c, RF_FORMAT, f->off, col, " is empty");
    if (row->name_len > RF__OPS_NAME_MAX)
        return csv_err(c, RF_RANGE, f->off, col, " is longer than %d bytes", RF__OPS_NAME_MAX);
    return RF_OK;
}

/* Read the fields of one record into f[0..COL_COUNT) and count them all. */
static rf_status csv_record(csv *c, csv_field f[COL_COUNT], size_t *count)
{
    int more = 1;
    size_t k = 0;
    while (more) {
        csv_field extra;
        int col = k < INT_MAX - 1 ? (int)k : INT_MAX - 1;
        RF_TRY(csv_field_read(c, k < COL_COUNT ? &f[k] : &extra, col, &more));
        k++;
    }
    *count = k;
    return RF_OK;
}

/* One data row: read, check, convert, deliver. */
static rf_status csv_row(csv *c)
{
    csv_field f[COL_COUNT];
    size_t count, start = rf__cursor_offset(c->cur);
    RF_TRY(csv_record(c, f, &count));
    if (count != (size_t)c->n_cols)
        return csv_err(c, RF_FORMAT, start, -1, ": %zu field%s, the header has %d", count,
                       count == 1 ? "" : "s", c->n_cols);
    rf_op_row row = {NULL, 0, 0, 0, c->row, 0, 0, 0};
    for (int i = 0; i < c->n_cols; i++) {
        switch (c->kind_at[i]) {
        case COL_NAME: RF_TRY(csv_name(c, &f[i], i, &row)); break;
        case COL_FLOPS: RF_TRY(csv_number(c, &f[i], i, &row.flops)); break;
        case COL_TIME: RF_TRY(csv_time(c, &f[i], i, &row)); break;
        case COL_NET: RF_TRY(csv_number(c, &f[i], i, &row.net_bytes)); break;
        default: RF_TRY(csv_number(c, &f[i], i, &row.bytes)); break;
        }
    }
    return rf__ops_emit(c->sink, &row);
}

static rf_status csv_parse(csv *c)
{
    if (!csv_skip_blank_lines(c->cur))
        return rf__error(c->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(c->cur),
                         "no operations: the input is empty");
    RF_TRY(csv_header(c));
    while (csv_skip_blank_lines(c->cur)) {
        c->row++;
        RF_TRY(csv_row(c));
    }
    if (c->row == 0)
        return rf__error(c->ctx, RF_FORMAT, (int64_t)rf__cursor_offset(c->cur),
                         "no operations: the header is not followed by any row");
    return RF_OK;
}

rf_status rf__ops_parse_csv(rf_ctx *ctx, rf__cursor *cur, rf__ops_sink *sink)
{
    csv c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.cur = cur;
    c.sink = sink;
    rf_status st = csv_parse(&c);
    rf__free(ctx, c.scratch);
    return st;
}
