/* csv.c — the CSV renderer of an analysis (RFC 4180; base units; measured columns when a row has
 * a measurement). Rows are written one at a time, so a million-row result streams without building
 * a document in memory. The JSON form lives with its reader in result_json.c. */
#include <math.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/report.h"

rf_status rf_report_csv(rf_ctx *ctx, const rf_result *r, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_csv: missing argument (a freed result?)");
    rf_writer rf__cw = rf__clean_writer(w); /* names from files: no control bytes */
    w = &rf__cw;
    int with_op = 0, with_sh = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        with_op |= r->rows[i].op != NULL;
        with_sh |= r->rows[i].detail != NULL;
    }
    int meas = rf__result_has_measured(r), net = r->network.value > 0;
    RF_TRY(rf_writef(w,
                     "name,%s%sflops,bytes,ai,attainable_flops_per_s,bound,efficiency,time_s,"
                     "time_share%s%s\n",
                     with_op ? "op," : "", with_sh ? "shape," : "", net ? ",net_bytes,net_ai" : "",
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
        if (net) { /* the network cells before the line end */
            len--;
            line[len++] = ',';
            const char *t = rf_number_format(num, sizeof num, row->e.net_bytes);
            memcpy(line + len, t, strlen(t));
            len += strlen(t);
            line[len++] = ',';
            t = isnan(row->e.net_ai) || isinf(row->e.net_ai)
                    ? ""
                    : rf_number_format(num, sizeof num, row->e.net_ai);
            memcpy(line + len, t, strlen(t));
            len += strlen(t);
            line[len++] = '\n';
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
