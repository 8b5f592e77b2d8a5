/* data.c — machine-readable renderers of an analysis: JSON (schema RF_RESULT_SCHEMA, base units,
 * null for infinite intensity) and CSV (RFC 4180). Rows are written one at a time, so a million-row
 * result streams without building a document in memory. */
#include <math.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"

static rf_status rf__json_key_num(rf_writer *w, const char *key, double v, int last)
{
    RF_TRY(RF_WRITE_LIT(w, "\""));
    RF_TRY(rf_write(w, key, strlen(key)));
    RF_TRY(RF_WRITE_LIT(w, "\": "));
    RF_TRY(rf__write_json_number(w, v));
    return last ? RF_OK : RF_WRITE_LIT(w, ", ");
}

static rf_status rf__json_ceiling(rf_writer *w, const char *key, const rf_ceiling *c)
{
    RF_TRY(rf_writef(w, "    \"%s\": {\"name\": ", key));
    RF_TRY(rf__write_json_string(w, c->name));
    RF_TRY(RF_WRITE_LIT(w, ", "));
    RF_TRY(rf__json_key_num(w, "value", c->value, 0));
    RF_TRY(rf_writef(w, "\"unit\": \"%s\", \"provenance\": \"%s\", \"source\": ",
                     c->kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s",
                     rf_provenance_name(c->provenance)));
    RF_TRY(rf__write_json_string(w, c->source));
    if (c->provisional) RF_TRY(RF_WRITE_LIT(w, ", \"provisional\": true"));
    return RF_WRITE_LIT(w, "}");
}

static rf_status rf__json_head(const rf_result *r, rf_writer *w)
{
    static const char *sorts[] = {"input", "time", "ai", "name", "lost"};
    RF_TRY(rf_writef(
        w, "{\n  \"schema\": %d,\n  \"kind\": \"analysis\",\n  \"title\": ", RF_RESULT_SCHEMA));
    RF_TRY(rf__write_json_string(w, r->title));
    RF_TRY(RF_WRITE_LIT(w, ",\n  \"machine\": {\"name\": "));
    RF_TRY(rf__write_json_string(w, r->machine));
    RF_TRY(RF_WRITE_LIT(w, ", \"description\": "));
    RF_TRY(rf__write_json_string(w, r->machine_description));
    RF_TRY(rf_writef(w, ", \"provenance\": \"%s\"},\n  \"roof\": {\n",
                     rf_provenance_name(r->provenance)));
    RF_TRY(rf__json_ceiling(w, "compute", &r->compute));
    RF_TRY(RF_WRITE_LIT(w, ",\n"));
    RF_TRY(rf__json_ceiling(w, "bandwidth", &r->bandwidth));
    RF_TRY(RF_WRITE_LIT(w, ",\n    "));
    RF_TRY(rf__json_key_num(w, "ridge_ai", r->ridge_ai, 1));
    return rf_writef(w, "\n  },\n  \"sort\": \"%s\",\n  \"top\": %llu,\n", sorts[r->sort],
                     (unsigned long long)r->top);
}

static rf_status rf__json_row(const rf_result *r, const rf_row *row, rf_writer *w)
{
    RF_TRY(RF_WRITE_LIT(w, "    {\"name\": "));
    RF_TRY(rf__write_json_string(w, row->name));
    if (row->op) {
        RF_TRY(RF_WRITE_LIT(w, ", \"op\": "));
        RF_TRY(rf__write_json_string(w, row->op));
    }
    if (row->detail) {
        RF_TRY(RF_WRITE_LIT(w, ", \"shape\": "));
        RF_TRY(rf__write_json_string(w, row->detail));
    }
    RF_TRY(rf_writef(w, ", \"index\": %llu, ", (unsigned long long)row->index));
    RF_TRY(rf__json_key_num(w, "flops", row->e.flops, 0));
    RF_TRY(rf__json_key_num(w, "bytes", row->e.bytes, 0));
    RF_TRY(rf__json_key_num(w, "ai", row->e.ai, 0));
    RF_TRY(rf__json_key_num(w, "attainable_flops_per_s", row->e.attainable_flops_per_s, 0));
    RF_TRY(rf_writef(w, "\"bound\": \"%s\", ", rf_bound_name(row->e.bound)));
    RF_TRY(rf__json_key_num(w, "efficiency", row->e.efficiency, 0));
    RF_TRY(rf__json_key_num(w, "time_s", row->e.time_s, 0));
    RF_TRY(rf__json_key_num(w, "time_share", rf__time_share(r, row), 1));
    RF_TRY(rf__json_row_measured(row, w));
    return RF_WRITE_LIT(w, "}");
}

static rf_status rf__json_totals(const rf_totals *t, rf_writer *w)
{
    RF_TRY(rf_writef(w, "  \"totals\": {\"count\": %llu, ", (unsigned long long)t->count));
    RF_TRY(rf__json_key_num(w, "flops", t->flops, 0));
    RF_TRY(rf__json_key_num(w, "bytes", t->bytes, 0));
    RF_TRY(rf__json_key_num(w, "ai", t->ai, 0));
    RF_TRY(rf__json_key_num(w, "time_s", t->time_s, 0));
    RF_TRY(RF_WRITE_LIT(w, "\"by_bound\": {"));
    for (int k = 0; k < 3; k++) {
        RF_TRY(rf_writef(w, "\"%s\": {\"count\": %llu, ", rf_bound_name((rf_bound)k),
                         (unsigned long long)t->count_by_bound[k]));
        RF_TRY(rf__json_key_num(w, "flops", t->flops_by_bound[k], 0));
        RF_TRY(rf__json_key_num(w, "time_s", t->time_by_bound_s[k], 1));
        RF_TRY(k < 2 ? RF_WRITE_LIT(w, "}, ") : RF_WRITE_LIT(w, "}"));
    }
    RF_TRY(RF_WRITE_LIT(w, "}"));
    RF_TRY(rf__json_totals_measured(t, w));
    return RF_WRITE_LIT(w, "}\n}\n");
}

rf_status rf_report_json(rf_ctx *ctx, const rf_result *r, rf_writer *w)
{
    (void)ctx;
    RF_TRY(rf__json_head(r, w));
    RF_TRY(RF_WRITE_LIT(w, "  \"rows\": ["));
    for (size_t i = 0; i < r->n_rows; i++) {
        RF_TRY(i ? RF_WRITE_LIT(w, ",\n") : RF_WRITE_LIT(w, "\n"));
        RF_TRY(rf__json_row(r, &r->rows[i], w));
    }
    RF_TRY(r->n_rows ? RF_WRITE_LIT(w, "\n  ],\n") : RF_WRITE_LIT(w, "],\n"));
    return rf__json_totals(&r->totals, w);
}

rf_status rf_report_csv(rf_ctx *ctx, const rf_result *r, rf_writer *w)
{
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    (void)ctx;
    int with_op = 0, with_sh = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        with_op |= r->rows[i].op != NULL;
        with_sh |= r->rows[i].detail != NULL;
    }
    int meas = rf__result_has_measured(r);
    RF_TRY(rf_writef(w,
                     "name,%s%sflops,bytes,ai,attainable_flops_per_s,bound,efficiency,time_s,"
                     "time_share%s\n",
                     with_op ? "op," : "", with_sh ? "shape," : "",
                     meas ? rf__csv_measured_header : ""));
    char num[40];
    for (size_t i = 0; i < r->n_rows; i++) {
        const rf_row *row = &r->rows[i];
        RF_TRY(rf__write_csv_field(w, row->name));
        RF_TRY(RF_WRITE_LIT(w, ","));
        if (with_op) {
            RF_TRY(rf__write_csv_field(w, row->op ? row->op : ""));
            RF_TRY(RF_WRITE_LIT(w, ","));
        }
        if (with_sh) {
            RF_TRY(rf__write_csv_field(w, row->detail ? row->detail : ""));
            RF_TRY(RF_WRITE_LIT(w, ","));
        }
        /* One line in a local buffer, written once: a million rows make every call count. */
        const double v[] = {
            row->e.flops, row->e.bytes,      row->e.ai,     row->e.attainable_flops_per_s,
            NAN,          row->e.efficiency, row->e.time_s, rf__time_share(r, row)};
        char line[400];
        size_t len = 0;
        for (size_t k = 0; k < 8; k++) {
            const char *t = k == 4        ? rf_bound_name(row->e.bound)
                            : isnan(v[k]) ? ""
                                          : rf_number_format(num, sizeof num, v[k]);
            size_t n = strlen(t);
            memcpy(line + len, t, n);
            len += n;
            line[len++] = k < 7 ? ',' : '\n';
        }
        if (meas) len--; /* the measured cells go before the line end */
        RF_TRY(rf_write(w, line, len));
        if (meas) {
            RF_TRY(rf__csv_row_measured(row, w));
            RF_TRY(RF_WRITE_LIT(w, "\n"));
        }
    }
    return RF_OK;
}
