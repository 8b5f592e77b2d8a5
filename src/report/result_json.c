/* result_json.c — the result JSON (schema RF_RESULT_SCHEMA), written (rf_report_json) and read
 * back for `roofline plot` (rf_result_parse_json), as machine JSON does: strict like the other
 * readers (jansson with duplicate keys refused, unknown keys, wrong types, non-finite or negative
 * figures and inconsistent bounds are errors, each one sentence naming the item). Each row is
 * evaluated again under the file's roof, so a chart drawn from a file puts every point where the
 * analysis did. Never prints. */
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "core/analysis_int.h"
#include "core/json_int.h"
#include "core/json_scan.h"
#include "core/rf_int.h"
#include "core/io.h"
#include "report_int.h"
#include "roofline/report.h"

#define RF__RJ_FILE_MAX ((uint64_t)1 << 30) /* bytes read from a result file at most */

/* What jansson may build (core/json_scan.h): a row is its keys and scalars plus a "measured"
 * object (about 40 values); the head (machine, roof, totals) about 100, the marker API's "regions"
 * ten values a region. Deeper nesting or longer strings have no use here. */
static const rf__json_limits rf__rj_limits = {.max_depth = 6,
                                              .max_string = 65536,
                                              .bulk_key = "rows",
                                              .per_item = 64,
                                              .outside = 1 << 16,
                                              .items_are_containers = 1};

/* "regions": the marker API's measured figures (rf_regions_parse_json reads them) */
static const char *const rf__rj_top_keys[] = {"schema", "kind",    "title",  "machine",
                                              "roof",   "sort",    "top",    "rows",
                                              "totals", "regions", "advice", NULL};
static const char *const rf__rj_machine_keys[] = {"name", "description", "provenance", NULL};
static const char *const rf__rj_roof_keys[] = {"compute", "bandwidth",    "ridge_ai",
                                               "network", "net_ridge_ai", NULL};
static const char *const rf__rj_ceiling_keys[] = {"name",   "value",       "unit", "provenance",
                                                  "source", "provisional", NULL};
static const char *const rf__rj_row_keys[] = {
    "name",     "op",         "shape",  "index",
    "flops",    "bytes",      "ai",     "attainable_flops_per_s",
    "bound",    "efficiency", "time_s", "time_share",
    "measured", "net_bytes",  "net_ai", NULL};
static const char *const rf__rj_measured_keys[] = {"time_s",
                                                   "min_s",
                                                   "max_s",
                                                   "runs",
                                                   "achieved_flops_per_s",
                                                   "achieved_bytes_per_s",
                                                   "utilization",
                                                   "ratio",
                                                   "lost_s",
                                                   "above_roof",
                                                   "reasons",
                                                   "level",
                                                   NULL};
static const char *const rf__rj_tmeasured_keys[] = {"count",       "count_above", "time_s",
                                                    "estimated_s", "lost_s",      "wall_s",
                                                    "overhead_s",  "busy_other",  NULL};
static const char *const rf__rj_totals_keys[] = {
    "count", "flops", "bytes", "ai", "time_s", "by_bound", "measured", "net_bytes", NULL};
static const char *const rf__rj_bound_keys[] = {"count", "flops", "time_s", NULL};

/* A short keyword read from the file, made printable in place before it may reach a message
 * (control bytes become '?'; it then matches no keyword either). */
static void rf__rj_printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

/* Number `key`: finite and >= 0; null allowed (NaN) when `nullable`. */
static rf_status rf__rj_num(rf_ctx *ctx, json_t *obj, const char *key, const char *where,
                            int nullable, double *out)
{
    json_t *v = json_object_get(obj, key);
    RF_CHECK(ctx, v, RF_FORMAT, "%s: missing '%s'", where, key);
    if (json_is_null(v) && nullable) {
        *out = NAN;
        return RF_OK;
    }
    RF_CHECK(ctx, json_is_number(v), RF_FORMAT, "%s: '%s' must be a number", where, key);
    *out = json_number_value(v);
    RF_CHECK(ctx, isfinite(*out) && *out >= 0, RF_RANGE,
             "%s: '%s' must be finite and not negative, got %g", where, key, *out);
    return RF_OK;
}

static rf_status rf__rj_uint(rf_ctx *ctx, json_t *obj, const char *key, const char *where,
                             uint64_t *out)
{
    double x;
    RF_TRY(rf__rj_num(ctx, obj, key, where, 0, &x));
    RF_CHECK(ctx, x == floor(x) && x <= 9007199254740992.0, RF_RANGE,
             "%s: '%s' must be a whole number, got %.17g", where, key, x);
    *out = (uint64_t)x;
    return RF_OK;
}

static rf_status rf__rj_prov(rf_ctx *ctx, json_t *obj, const char *where, rf_provenance *out)
{
    char text[16];
    RF_TRY(rf__json_str(ctx, obj, "provenance", where, text, sizeof text, 1));
    rf__rj_printable(text);
    RF_CHECK(ctx, rf_provenance_parse(text, out), RF_FORMAT,
             "%s: unknown provenance '%s' (measured, datasheet, file or user)", where, text);
    return RF_OK;
}

static rf_status rf__rj_ceiling(rf_ctx *ctx, json_t *roof, const char *key, rf_ceiling_kind kind,
                                rf_ceiling *c)
{
    char where[32], unit[16];
    snprintf(where, sizeof where, "roof.%s", key);
    json_t *v = json_object_get(roof, key);
    RF_CHECK(ctx, v, RF_FORMAT, "roof: missing '%s'", key);
    RF_TRY(rf__json_keys(ctx, v, rf__rj_ceiling_keys, where));
    memset(c, 0, sizeof *c);
    c->kind = kind;
    RF_TRY(rf__json_str(ctx, v, "name", where, c->name, sizeof c->name, 1));
    RF_TRY(rf__rj_num(ctx, v, "value", where, 0, &c->value));
    RF_CHECK(ctx, c->value > 0, RF_RANGE, "%s: 'value' must be positive", where);
    RF_TRY(rf__json_str(ctx, v, "unit", where, unit, sizeof unit, 1));
    const char *want = kind == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
    RF_CHECK(ctx, strcmp(unit, want) == 0, RF_FORMAT, "%s: 'unit' must be \"%s\"", where, want);
    RF_TRY(rf__rj_prov(ctx, v, where, &c->provenance));
    json_t *p = json_object_get(v, "provisional");
    RF_CHECK(ctx, !p || json_is_boolean(p), RF_FORMAT, "%s: 'provisional' must be true or false",
             where);
    c->provisional = p && json_is_true(p);
    return rf__json_str(ctx, v, "source", where, c->source, sizeof c->source, 0);
}

static rf_status rf__rj_head(rf_ctx *ctx, json_t *root, rf_result *r)
{
    char kind[16], sort[16];
    double schema;
    RF_TRY(rf__rj_num(ctx, root, "schema", "top level", 0, &schema));
    RF_CHECK(ctx, schema == floor(schema) && schema >= 1, RF_FORMAT,
             "top level: 'schema' must be a positive whole number");
    RF_CHECK(ctx, schema <= RF_RESULT_SCHEMA, RF_UNSUPPORTED,
             "schema %.15g is newer than this roofline supports (%d)", schema, RF_RESULT_SCHEMA);
    RF_TRY(rf__json_str(ctx, root, "kind", "top level", kind, sizeof kind, 1));
    rf__rj_printable(kind);
    RF_CHECK(ctx, strcmp(kind, "analysis") == 0, RF_FORMAT,
             "not a roofline result: kind '%s', expected \"analysis\" (from --json)", kind);
    RF_TRY(rf__json_keys(ctx, root, rf__rj_top_keys, "top level"));
    RF_TRY(rf__json_str(ctx, root, "title", "top level", r->title, sizeof r->title, 0));
    json_t *m = json_object_get(root, "machine");
    RF_CHECK(ctx, m, RF_FORMAT, "top level: missing 'machine'");
    RF_TRY(rf__json_keys(ctx, m, rf__rj_machine_keys, "machine"));
    RF_TRY(rf__json_str(ctx, m, "name", "machine", r->machine, sizeof r->machine, 1));
    RF_TRY(rf__json_str(ctx, m, "description", "machine", r->machine_description,
                        sizeof r->machine_description, 0));
    RF_TRY(rf__rj_prov(ctx, m, "machine", &r->provenance));
    json_t *roof = json_object_get(root, "roof");
    RF_CHECK(ctx, roof, RF_FORMAT, "top level: missing 'roof'");
    RF_TRY(rf__json_keys(ctx, roof, rf__rj_roof_keys, "roof"));
    RF_TRY(rf__rj_ceiling(ctx, roof, "compute", RF_CEILING_COMPUTE, &r->compute));
    RF_TRY(rf__rj_ceiling(ctx, roof, "bandwidth", RF_CEILING_BANDWIDTH, &r->bandwidth));
    if (json_object_get(roof, "network"))
        RF_TRY(rf__rj_ceiling(ctx, roof, "network", RF_CEILING_NETWORK, &r->network));
    r->roof.peak_flops_per_s = r->compute.value;
    r->roof.bw_bytes_per_s = r->bandwidth.value;
    RF_TRY(rf_ridge_ai(ctx, &r->roof, &r->ridge_ai));
    RF_TRY(rf__json_str(ctx, root, "sort", "top level", sort, sizeof sort, 1));
    rf__rj_printable(sort);
    RF_TRY(rf_sort_parse(ctx, sort, &r->sort));
    return rf__rj_uint(ctx, root, "top", "top level", &r->top);
}

/* The reasons of a point above its roof, as rf_report_json names them. */
static rf_status rf__rj_reasons(rf_ctx *ctx, json_t *v, const char *where, rf_achieved *a)
{
    static const char *const names[4] = {"faster_level", "miscount", "provisional", "noise"};
    json_t *rs = json_object_get(v, "reasons"), *e;
    size_t i;
    a->why = 0;
    RF_CHECK(ctx, !rs || json_is_array(rs), RF_FORMAT, "%s: 'reasons' must be an array", where);
    json_array_foreach(rs, i, e)
    {
        unsigned bit = 0;
        for (unsigned k = 0; k < 4; k++)
            if (json_is_string(e) && strcmp(json_string_value(e), names[k]) == 0) bit = 1u << k;
        RF_CHECK(
            ctx, bit, RF_FORMAT,
            "%s: reasons[%zu] must be \"faster_level\", \"miscount\", \"provisional\" or \"noise\"",
            where, i);
        a->why |= bit;
    }
    if (!a->above) a->why = 0;
    if (a->above && !a->why) a->why = RF_ABOVE_MISCOUNT;
    a->level[0] = '\0';
    if (a->why & RF_ABOVE_FASTER_LEVEL)
        RF_TRY(rf__json_str(ctx, v, "level", where, a->level, sizeof a->level, 1));
    return RF_OK;
}

/* A row's measured time; the derived figures are computed again (the machine's levels are not in
 * the file, so the reasons are taken as written). */
static rf_status rf__rj_measured(rf_ctx *ctx, const rf_result *r, json_t *v, const char *row_where,
                                 rf_row *row)
{
    char where[64];
    snprintf(where, sizeof where, "%s.measured", row_where);
    RF_CHECK(ctx, json_is_object(v), RF_FORMAT, "%s: expected an object", where);
    RF_TRY(rf__json_keys(ctx, v, rf__rj_measured_keys, where));
    rf_measured m, ok;
    uint64_t runs;
    RF_TRY(rf__rj_num(ctx, v, "time_s", where, 0, &m.time_s));
    RF_TRY(rf__rj_num(ctx, v, "min_s", where, 0, &m.min_s));
    RF_TRY(rf__rj_num(ctx, v, "max_s", where, 0, &m.max_s));
    RF_TRY(rf__rj_uint(ctx, v, "runs", where, &runs));
    RF_CHECK(ctx, runs <= UINT32_MAX, RF_RANGE, "%s: 'runs' is too large", where);
    m.runs = (uint32_t)runs;
    RF_TRY(rf__measured_check(ctx, &m, where, &ok));
    json_t *above = json_object_get(v, "above_roof");
    RF_CHECK(ctx, above && json_is_boolean(above), RF_FORMAT,
             "%s: 'above_roof' must be true or false", where);
    row->measured = rf__malloc(ctx, sizeof *row->measured);
    if (!row->measured) return RF_NOMEM_ERR(ctx);
    rf__achieved_eval(&row->e, &r->roof, 0, NULL, 0, &ok, row->measured);
    return rf__rj_reasons(ctx, v, where, row->measured);
}

static rf_status rf__rj_row(rf_ctx *ctx, rf_result *r, json_t *v, size_t i)
{
    char where[48], bound[16];
    snprintf(where, sizeof where, "rows[%zu]", i);
    RF_TRY(rf__json_keys(ctx, v, rf__rj_row_keys, where));
    rf_row *row = &r->rows[i];
    json_t *name = json_object_get(v, "name"), *op = json_object_get(v, "op");
    json_t *shape = json_object_get(v, "shape");
    RF_CHECK(ctx, name && json_is_string(name), RF_FORMAT, "%s: 'name' must be a string", where);
    RF_CHECK(ctx, !op || json_is_string(op), RF_FORMAT, "%s: 'op' must be a string", where);
    RF_CHECK(ctx, !shape || json_is_string(shape), RF_FORMAT, "%s: 'shape' must be a string",
             where);
    RF_TRY(rf__rj_uint(ctx, v, "index", where, &row->index));
    double flops, bytes, ignored;
    RF_TRY(rf__rj_num(ctx, v, "flops", where, 0, &flops));
    RF_TRY(rf__rj_num(ctx, v, "bytes", where, 0, &bytes));
    static const char *const derived[] = {"ai", "attainable_flops_per_s", "efficiency", "time_s",
                                          "time_share"};
    for (size_t k = 0; k < 5; k++) RF_TRY(rf__rj_num(ctx, v, derived[k], where, 1, &ignored));
    RF_TRY(rf__json_str(ctx, v, "bound", where, bound, sizeof bound, 1));
    rf__rj_printable(bound);
    double net_bytes = 0;
    if (json_object_get(v, "net_bytes")) {
        RF_TRY(rf__rj_num(ctx, v, "net_bytes", where, 0, &net_bytes));
        RF_TRY(rf__rj_num(ctx, v, "net_ai", where, 1, &ignored));
    }
    RF_CHECK(ctx, net_bytes == 0 || r->network.value > 0, RF_FORMAT,
             "%s: 'net_bytes' without a network roof (roof.network)", where);
    RF_TRY(rf_roof_eval_net(ctx, &r->roof, r->network.value, flops, bytes, net_bytes, &row->e));
    RF_CHECK(ctx, strcmp(bound, rf_bound_name(row->e.bound)) == 0, RF_FORMAT,
             "%s: bound '%s' does not match its figures under the file's roof (%s)", where, bound,
             rf_bound_name(row->e.bound));
    row->name = rf__strndup(ctx, json_string_value(name), json_string_length(name));
    row->op = op ? rf__strndup(ctx, json_string_value(op), json_string_length(op)) : NULL;
    row->detail =
        shape ? rf__strndup(ctx, json_string_value(shape), json_string_length(shape)) : NULL;
    if (!row->name || (op && !row->op) || (shape && !row->detail)) return RF_NOMEM_ERR(ctx);
    json_t *meas = json_object_get(v, "measured");
    return meas ? rf__rj_measured(ctx, r, meas, where, row) : RF_OK;
}

static rf_status rf__rj_totals(rf_ctx *ctx, json_t *root, rf_result *r)
{
    json_t *t = json_object_get(root, "totals");
    RF_CHECK(ctx, t, RF_FORMAT, "top level: missing 'totals'");
    RF_TRY(rf__json_keys(ctx, t, rf__rj_totals_keys, "totals"));
    rf_totals *o = &r->totals;
    RF_TRY(rf__rj_uint(ctx, t, "count", "totals", &o->count));
    RF_TRY(rf__rj_num(ctx, t, "flops", "totals", 0, &o->flops));
    RF_TRY(rf__rj_num(ctx, t, "bytes", "totals", 0, &o->bytes));
    RF_TRY(rf__rj_num(ctx, t, "time_s", "totals", 0, &o->time_s));
    o->ai = o->bytes > 0 ? o->flops / o->bytes : (o->flops > 0 ? INFINITY : NAN);
    RF_CHECK(ctx, o->count >= r->n_rows, RF_FORMAT, "totals: 'count' is less than the rows given");
    json_t *bb = json_object_get(t, "by_bound");
    RF_CHECK(ctx, bb, RF_FORMAT, "totals: missing 'by_bound'");
    static const char *const names[] = {"memory", "compute", "undefined", "network", NULL};
    RF_TRY(rf__json_keys(ctx, bb, names, "totals.by_bound"));
    if (r->network.value > 0 && json_object_get(t, "net_bytes"))
        RF_TRY(rf__rj_num(ctx, t, "net_bytes", "totals", 0, &o->net_bytes));
    for (int k = 0; k < RF_BOUND_COUNT; k++) {
        char where[40];
        snprintf(where, sizeof where, "totals.by_bound.%s", names[k]);
        json_t *b = json_object_get(bb, names[k]);
        if (!b && k == RF_BOUND_NETWORK && !(r->network.value > 0)) continue;
        RF_CHECK(ctx, b, RF_FORMAT, "totals.by_bound: missing '%s'", names[k]);
        RF_TRY(rf__json_keys(ctx, b, rf__rj_bound_keys, where));
        RF_TRY(rf__rj_uint(ctx, b, "count", where, &o->count_by_bound[k]));
        RF_TRY(rf__rj_num(ctx, b, "flops", where, 0, &o->flops_by_bound[k]));
        RF_TRY(rf__rj_num(ctx, b, "time_s", where, 0, &o->time_by_bound_s[k]));
    }
    json_t *m = json_object_get(t, "measured");
    if (!m) return RF_OK;
    RF_CHECK(ctx, json_is_object(m), RF_FORMAT, "totals.measured: expected an object");
    RF_TRY(rf__json_keys(ctx, m, rf__rj_tmeasured_keys, "totals.measured"));
    RF_TRY(rf__rj_uint(ctx, m, "count", "totals.measured", &o->count_measured));
    RF_TRY(rf__rj_uint(ctx, m, "count_above", "totals.measured", &o->count_above));
    RF_TRY(rf__rj_num(ctx, m, "time_s", "totals.measured", 0, &o->measured_s));
    RF_TRY(rf__rj_num(ctx, m, "estimated_s", "totals.measured", 0, &o->measured_est_s));
    o->lost_s = o->measured_s - o->measured_est_s; /* may be negative: not read as a figure */
    if (json_object_get(m, "wall_s"))
        RF_TRY(rf__rj_num(ctx, m, "wall_s", "totals.measured", 0, &o->wall_s));
    if (json_object_get(m, "busy_other")) {
        RF_TRY(rf__rj_num(ctx, m, "busy_other", "totals.measured", 0, &o->busy_other));
        RF_CHECK(ctx, o->busy_other <= 1, RF_RANGE,
                 "totals.measured.busy_other: a share of the CPU, at most 1, got %g",
                 o->busy_other);
    }
    return RF_OK;
}

/* The head (every top-level member but "rows") is a small tree; the rows are decoded and checked
 * one at a time from their bytes, so a file of many tiny rows costs one row's tree. */
static rf_status rf__rj_doc(rf_ctx *ctx, json_t *root, const char *data, size_t at, size_t end,
                            rf_result *r)
{
    RF_TRY(rf__rj_head(ctx, root, r));
    RF_CHECK(ctx, end > at, RF_FORMAT, "top level: 'rows' must be an array");
    size_t cap = 0, pos = at;
    for (size_t i = 0;; i++) {
        json_t *v = NULL;
        rf_status st = rf__json_bulk_next(ctx, data, &pos, end, &v);
        if (st != RF_OK) return rf__error_prefix(ctx, "rows");
        if (!v) break;
        st = rf__grow(ctx, (void **)&r->rows, &cap, i + 1, sizeof *r->rows);
        if (st == RF_OK) {
            memset(&r->rows[i], 0, sizeof r->rows[i]);
            r->n_rows = i + 1; /* so rf_result_free releases what was allocated */
            st = rf__rj_row(ctx, r, v, i);
        }
        json_decref(v);
        RF_TRY(st);
    }
    return rf__rj_totals(ctx, root, r);
}

rf_status rf_result_parse_json(rf_ctx *ctx, const void *data, size_t size, const char *source,
                               rf_result **out)
{
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_result_parse_json: missing argument");
    *out = NULL;
    const char *src = source && source[0] ? source : "result JSON";
    json_t *root = NULL;
    rf_result *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->totals.busy_other = -1;
    r->alloc_ = *rf_ctx_allocator(ctx);
    size_t at = 0, end = 0;
    rf_status st = rf__json_scan(ctx, data, size, &rf__rj_limits);
    if (st == RF_OK) st = rf__json_load_bulk(ctx, data, size, "rows", &root, &at, &end);
    if (st == RF_OK) st = rf__rj_doc(ctx, root, data, at, end, r);
    json_decref(root);
    if (st != RF_OK) {
        rf_result_free(r);
        return rf__error_prefix(ctx, src);
    }
    *out = r;
    return RF_OK;
}

rf_status rf_result_read_file(rf_ctx *ctx, const char *path, rf_result **out)
{
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_result_read_file: missing argument");
    *out = NULL;
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__RJ_FILE_MAX, &map));
    rf_status st = rf_result_parse_json(ctx, map.data, map.size, path, out);
    rf__unmap_file(&map);
    return st;
}

/* ---- writing (rf_report_json): rows one at a time, so a million-row result streams -------- */

rf_status rf__json_key_num(rf_writer *w, const char *key, double v, int last)
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
    static const char *const sorts[] = {"input", "time", "ai", "name", "lost"};
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
    if (r->network.value > 0) {
        RF_TRY(RF_WRITE_LIT(w, ",\n"));
        RF_TRY(rf__json_ceiling(w, "network", &r->network));
        RF_TRY(RF_WRITE_LIT(w, ",\n    "));
        RF_TRY(rf__json_key_num(w, "net_ridge_ai", r->roof.peak_flops_per_s / r->network.value, 1));
    }
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
    char ix[24];
    RF_TRY(RF_WRITE_LIT(w, ", \"index\": "));
    RF_TRY(rf_write(w, ix, strlen(rf__u64_text(ix, row->index))));
    RF_TRY(RF_WRITE_LIT(w, ", "));
    RF_TRY(rf__json_key_num(w, "flops", row->e.flops, 0));
    RF_TRY(rf__json_key_num(w, "bytes", row->e.bytes, 0));
    RF_TRY(rf__json_key_num(w, "ai", row->e.ai, 0));
    RF_TRY(rf__json_key_num(w, "attainable_flops_per_s", row->e.attainable_flops_per_s, 0));
    const char *bound = rf_bound_name(row->e.bound);
    RF_TRY(RF_WRITE_LIT(w, "\"bound\": \""));
    RF_TRY(rf_write(w, bound, strlen(bound)));
    RF_TRY(RF_WRITE_LIT(w, "\", "));
    RF_TRY(rf__json_key_num(w, "efficiency", row->e.efficiency, 0));
    RF_TRY(rf__json_key_num(w, "time_s", row->e.time_s, 0));
    RF_TRY(rf__json_key_num(w, "time_share", rf__time_share(r, row), r->network.value > 0 ? 0 : 1));
    if (r->network.value > 0) {
        RF_TRY(rf__json_key_num(w, "net_bytes", row->e.net_bytes, 0));
        RF_TRY(rf__json_key_num(w, "net_ai", row->e.net_ai, 1));
    }
    RF_TRY(rf__json_row_measured(row, w));
    return RF_WRITE_LIT(w, "}");
}

static rf_status rf__json_totals(const rf_totals *t, int net, rf_writer *w)
{
    RF_TRY(rf_writef(w, "  \"totals\": {\"count\": %llu, ", (unsigned long long)t->count));
    RF_TRY(rf__json_key_num(w, "flops", t->flops, 0));
    RF_TRY(rf__json_key_num(w, "bytes", t->bytes, 0));
    if (net) RF_TRY(rf__json_key_num(w, "net_bytes", t->net_bytes, 0));
    RF_TRY(rf__json_key_num(w, "ai", t->ai, 0));
    RF_TRY(rf__json_key_num(w, "time_s", t->time_s, 0));
    RF_TRY(RF_WRITE_LIT(w, "\"by_bound\": {"));
    const int nk = net ? RF_BOUND_COUNT : 3;
    for (int k = 0; k < nk; k++) {
        RF_TRY(rf_writef(w, "\"%s\": {\"count\": %llu, ", rf_bound_name((rf_bound)k),
                         (unsigned long long)t->count_by_bound[k]));
        RF_TRY(rf__json_key_num(w, "flops", t->flops_by_bound[k], 0));
        RF_TRY(rf__json_key_num(w, "time_s", t->time_by_bound_s[k], 1));
        RF_TRY(k + 1 < nk ? RF_WRITE_LIT(w, "}, ") : RF_WRITE_LIT(w, "}"));
    }
    RF_TRY(RF_WRITE_LIT(w, "}"));
    RF_TRY(rf__json_totals_measured(t, w));
    return RF_WRITE_LIT(w, "}\n}\n");
}

static rf_status rf__json_doc(const rf_result *r, rf_writer *w)
{
    RF_TRY(rf__json_head(r, w));
    RF_TRY(RF_WRITE_LIT(w, "  \"rows\": ["));
    for (size_t i = 0; i < r->n_rows; i++) {
        RF_TRY(i ? RF_WRITE_LIT(w, ",\n") : RF_WRITE_LIT(w, "\n"));
        RF_TRY(rf__json_row(r, &r->rows[i], w));
    }
    RF_TRY(r->n_rows ? RF_WRITE_LIT(w, "\n  ],\n") : RF_WRITE_LIT(w, "],\n"));
    return rf__json_totals(&r->totals, r->network.value > 0, w);
}

rf_status rf_report_json(rf_ctx *ctx, const rf_result *r, rf_writer *w)
{
    RF_CHECK(ctx, r && w, RF_USAGE, "rf_report_json: missing argument (a freed result?)");
    rf__staged sg; /* one write a block, not one a key */
    rf_writer sw = rf__staged_writer(&sg, w);
    RF_TRY(rf__json_doc(r, &sw));
    return rf__staged_flush(&sg);
}

rf_status rf__json_reopen(rf_ctx *ctx, const char *doc, size_t len, const char *who, rf_writer *w)
{
    size_t end = len;
    while (doc && end && strchr(" \t\r\n", doc[end - 1])) end--;
    RF_CHECK(ctx, doc && w && end >= 2 && doc[end - 1] == '}', RF_USAGE, "%s: not a JSON object",
             who);
    end--; /* the closing brace */
    while (end && strchr(" \t\r\n", doc[end - 1])) end--;
    return rf_write(w, doc, end);
}
