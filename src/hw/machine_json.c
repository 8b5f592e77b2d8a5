/* machine_json.c — machine files in JSON (docs/machine-file.md): the simple form {name, peak_flops,
 * peak_bandwidth} and the full form with named ceilings, both versioned by "schema". Strict reading
 * through jansson (duplicate keys, unknown keys, bad types and implausible figures are errors, each
 * one sentence naming the item), exact writing (shortest round-trip numbers, fixed key order), file
 * loading and --hw resolution. Never measures; never prints. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/file.h"
#include "core/json_int.h"
#include "core/io.h"
#include "core/json_scan.h"
#include "core/rf_int.h"
#include "core/text.h"
#include "roofline/hw.h"

#define RF__MJ_FILE_MAX ((size_t)16 << 20) /* bytes read from a machine file at most */
#define RF__MJ_CEILINGS_MAX 1024           /* ceilings in one machine file at most */
#define RF__MJ_VALUE_MIN 1e-30             /* plausible range of a figure, base units */
#define RF__MJ_VALUE_MAX 1e30

static const char *const rf__mj_simple_keys[] = {
    "schema", "name", "description", "source", "peak_flops", "peak_bandwidth", NULL};
static const char *const rf__mj_full_keys[] = {
    "schema",     "name",   "description",     "kind",
    "provenance", "source", "default_compute", "default_bandwidth",
    "ceilings",   NULL};
static const char *const rf__mj_ceiling_keys[] = {"name",           "kind",        "value", "unit",
                                                  "provenance",     "source",      "note",  "stats",
                                                  "capacity_bytes", "provisional", NULL};
static const char *const rf__mj_stats_keys[] = {"threads", "repetitions", "min", "median",
                                                "max",     "date",        NULL};

/* ---- reading: small typed getters ------------------------------------------------------------ */

/* A peak (FLOP/s or byte/s): positive and within the plausible range. */
static rf_status rf__mj_peak(rf_ctx *ctx, json_t *obj, const char *key, const char *where,
                             double *out)
{
    RF_TRY(rf__json_num(ctx, obj, key, where, out, NULL));
    RF_CHECK(ctx, *out > 0, RF_RANGE, "%s: '%s' must be positive, got %.17g", where, key, *out);
    RF_CHECK(ctx, *out >= RF__MJ_VALUE_MIN && *out <= RF__MJ_VALUE_MAX, RF_RANGE,
             "%s: '%s' = %g is outside the plausible range [1e-30, 1e30] (base units: FLOP/s, B/s)",
             where, key, *out);
    return RF_OK;
}

/* A whole number in [0, max]; absent leaves *out unchanged. */
static rf_status rf__mj_uint(rf_ctx *ctx, json_t *obj, const char *key, const char *where,
                             double max, uint32_t *out)
{
    double x = 0;
    int present = 0;
    RF_TRY(rf__json_num(ctx, obj, key, where, &x, &present));
    if (!present) return RF_OK;
    RF_CHECK(ctx, x >= 0 && x <= max && x == floor(x), RF_RANGE,
             "%s: '%s' must be a whole number from 0 to %.0f, got %.17g", where, key, max, x);
    *out = (uint32_t)x;
    return RF_OK;
}

static rf_status rf__mj_provenance(rf_ctx *ctx, json_t *obj, const char *where, rf_provenance *out)
{
    char text[16] = "";
    json_t *v = json_object_get(obj, "provenance");
    if (!v) return RF_OK;
    if (json_is_string(v) && json_string_length(v) < sizeof text)
        memcpy(text, json_string_value(v), json_string_length(v) + 1);
    if (text[0] && rf_provenance_parse(text, out)) return RF_OK;
    return rf__error(ctx, RF_FORMAT, -1,
                     "%s: 'provenance' must be \"measured\", \"datasheet\", \"file\" or \"user\"",
                     where);
}

/* ---- reading: the two forms ------------------------------------------------------------------ */

static rf_status rf__mj_schema(rf_ctx *ctx, json_t *root)
{
    double x = 1;
    int present = 0;
    RF_TRY(rf__json_num(ctx, root, "schema", "top level", &x, &present));
    RF_CHECK(ctx, x >= 1 && x == floor(x), RF_FORMAT,
             "top level: 'schema' must be a positive whole number, got %.17g", x);
    RF_CHECK(ctx, x <= RF_MACHINE_SCHEMA, RF_UNSUPPORTED,
             "schema %.15g is newer than this roofline supports (%d)", x, RF_MACHINE_SCHEMA);
    return RF_OK;
}

static rf_status rf__mj_simple(rf_ctx *ctx, json_t *root, const char *src, rf_machine **out)
{
    char name[RF_NAME_MAX] = "", desc[RF_TEXT_MAX] = "", source[RF_TEXT_MAX] = "";
    double flops = 0, bw = 0;
    RF_TRY(rf__json_keys(ctx, root, rf__mj_simple_keys, "top level"));
    RF_TRY(rf__json_str(ctx, root, "name", "top level", name, sizeof name, 1));
    RF_TRY(rf__json_str(ctx, root, "description", "top level", desc, sizeof desc, 0));
    RF_TRY(rf__json_str(ctx, root, "source", "top level", source, sizeof source, 0));
    RF_TRY(rf__mj_peak(ctx, root, "peak_flops", "top level", &flops));
    RF_TRY(rf__mj_peak(ctx, root, "peak_bandwidth", "top level", &bw));
    RF_TRY(rf_machine_simple(ctx, name, flops, bw, RF_PROV_FILE, src, out));
    rf__strlcpy((*out)->description, desc, sizeof desc);
    if (source[0]) rf__strlcpy((*out)->source, source, sizeof source);
    return RF_OK;
}

/* A name from the file, made printable for a one-line message: control bytes as \xNN. */
static const char *rf__mj_shown(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s && n + 5 < cap; s++) {
        unsigned char b = (unsigned char)*s;
        if (b < 0x20 || b == 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\x%02x", b);
        else
            out[n++] = (char)b;
    }
    out[n] = '\0';
    return out;
}

static rf_status rf__mj_stats(rf_ctx *ctx, json_t *v, const char *cname, rf_ceiling_stats *s)
{
    char where[4 * RF_NAME_MAX + 32];
    char shown[4 * RF_NAME_MAX];
    snprintf(where, sizeof where, "stats of ceiling '%s'",
             rf__mj_shown(shown, sizeof shown, cname));
    RF_CHECK(ctx, json_is_object(v), RF_FORMAT, "%s: expected an object, got %s", where,
             rf__json_type_name(v));
    RF_TRY(rf__json_keys(ctx, v, rf__mj_stats_keys, where));
    RF_TRY(rf__mj_uint(ctx, v, "threads", where, 4294967295.0, &s->threads));
    RF_TRY(rf__mj_uint(ctx, v, "repetitions", where, 4294967295.0, &s->repetitions));
    static const char *const figs[] = {"min", "median", "max"};
    double *dst[] = {&s->min, &s->median, &s->max};
    for (int i = 0; i < 3; i++) {
        int present = 0;
        RF_TRY(rf__json_num(ctx, v, figs[i], where, dst[i], &present));
        RF_CHECK(ctx, *dst[i] >= 0 && *dst[i] <= RF__MJ_VALUE_MAX, RF_RANGE,
                 "%s: '%s' must be from 0 to 1e30, got %.17g", where, figs[i], *dst[i]);
        *dst[i] += 0.0; /* -0 becomes +0, so the figure survives a round trip unchanged */
    }
    return rf__json_str(ctx, v, "date", where, s->date, sizeof s->date, 0);
}

/* Kind and unit of a ceiling: the unit is optional and, when present, must match the kind. */
static rf_status rf__mj_kind(rf_ctx *ctx, json_t *v, const char *where, rf_ceiling_kind *kind)
{
    char text[16] = "", unit[16] = "";
    json_t *k = json_object_get(v, "kind");
    RF_CHECK(ctx, k, RF_FORMAT, "%s: missing 'kind' (\"compute\", \"bandwidth\" or \"network\")",
             where);
    if (json_is_string(k) && json_string_length(k) < sizeof text)
        memcpy(text, json_string_value(k), json_string_length(k) + 1);
    int compute = strcmp(text, "compute") == 0, network = strcmp(text, "network") == 0;
    RF_CHECK(ctx, compute || network || strcmp(text, "bandwidth") == 0, RF_FORMAT,
             "%s: 'kind' must be \"compute\", \"bandwidth\" or \"network\"", where);
    *kind = compute ? RF_CEILING_COMPUTE : network ? RF_CEILING_NETWORK : RF_CEILING_BANDWIDTH;
    RF_TRY(rf__json_str(ctx, v, "unit", where, unit, sizeof unit, 0));
    int ok = !unit[0] || (compute ? strcmp(unit, "FLOP/s") == 0 || strcmp(unit, "OP/s") == 0
                                  : strcmp(unit, "B/s") == 0);
    char shown[4 * sizeof unit];
    RF_CHECK(ctx, ok, RF_FORMAT, "%s: unit '%s' does not match kind %s (values are in %s)", where,
             rf__mj_shown(shown, sizeof shown, unit), text, compute ? "FLOP/s" : "B/s");
    return RF_OK;
}

/* The optional keys of a ceiling: "capacity_bytes" (a bandwidth level's size, byte, > 0) and
 * "provisional" (true: measured in a disturbed run or out of its physical order; a later run
 * can raise it). */
static rf_status rf__mj_optional(rf_ctx *ctx, json_t *v, const char *where, rf_ceiling *c)
{
    int present = 0;
    RF_TRY(rf__json_num(ctx, v, "capacity_bytes", where, &c->capacity_bytes, &present));
    RF_CHECK(ctx, !present || (c->capacity_bytes > 0 && c->capacity_bytes <= RF__MJ_VALUE_MAX),
             RF_RANGE, "%s: 'capacity_bytes' must be a positive number of bytes, got %.17g", where,
             c->capacity_bytes);
    RF_CHECK(ctx, !present || c->kind == RF_CEILING_BANDWIDTH, RF_FORMAT,
             "%s: 'capacity_bytes' is for bandwidth ceilings only", where);
    json_t *p = json_object_get(v, "provisional");
    RF_CHECK(ctx, !p || json_is_boolean(p), RF_FORMAT, "%s: 'provisional' must be true or false",
             where);
    c->provisional = p && json_is_true(p);
    return RF_OK;
}

static rf_status rf__mj_ceiling(rf_ctx *ctx, rf_machine *m, json_t *v, size_t i, const char *src)
{
    char where[4 * RF_NAME_MAX + 16];
    rf_ceiling c;
    memset(&c, 0, sizeof c);
    snprintf(where, sizeof where, "ceiling %zu", i + 1);
    RF_CHECK(ctx, json_is_object(v), RF_FORMAT, "%s: expected an object, got %s", where,
             rf__json_type_name(v));
    RF_TRY(rf__json_str(ctx, v, "name", where, c.name, sizeof c.name, 1));
    char shown[4 * RF_NAME_MAX];
    snprintf(where, sizeof where, "ceiling '%s'", rf__mj_shown(shown, sizeof shown, c.name));
    RF_TRY(rf__json_keys(ctx, v, rf__mj_ceiling_keys, where));
    RF_CHECK(ctx, rf_machine_find(m, c.name) < 0, RF_FORMAT, "%s appears twice", where);
    RF_TRY(rf__mj_kind(ctx, v, where, &c.kind));
    RF_TRY(rf__mj_peak(ctx, v, "value", where, &c.value));
    c.provenance = RF_PROV_FILE;
    RF_TRY(rf__mj_provenance(ctx, v, where, &c.provenance));
    rf__strlcpy(c.source, src, sizeof c.source);
    RF_TRY(rf__json_str(ctx, v, "source", where, c.source, sizeof c.source, 0));
    RF_TRY(rf__json_str(ctx, v, "note", where, c.note, sizeof c.note, 0));
    json_t *stats = json_object_get(v, "stats");
    if (stats) RF_TRY(rf__mj_stats(ctx, stats, c.name, &c.stats));
    RF_TRY(rf__mj_optional(ctx, v, where, &c));
    return rf_machine_add(ctx, m, &c);
}

/* The default ceiling of `kind` named by `key`, if given; otherwise the first of that kind. */
static rf_status rf__mj_default(rf_ctx *ctx, json_t *root, const char *key, rf_ceiling_kind kind,
                                rf_machine *m, size_t *index)
{
    const char *what = kind == RF_CEILING_COMPUTE ? "compute" : "bandwidth";
    char name[RF_NAME_MAX] = "", shown[4 * RF_NAME_MAX];
    RF_TRY(rf__json_str(ctx, root, key, "top level", name, sizeof name, 0));
    if (name[0]) {
        long i = rf_machine_find(m, name);
        rf__mj_shown(shown, sizeof shown, name);
        RF_CHECK(ctx, i >= 0, RF_FORMAT, "top level: '%s' names no ceiling: '%s'", key, shown);
        RF_CHECK(ctx, m->ceilings[i].kind == kind, RF_FORMAT,
                 "top level: '%s' names '%s', which is not a %s ceiling", key, shown, what);
        *index = (size_t)i;
    }
    RF_CHECK(ctx, *index < m->n_ceilings, RF_FORMAT, "machine '%s' has no %s ceiling",
             rf__mj_shown(shown, sizeof shown, m->name), what);
    return RF_OK;
}

static rf_status rf__mj_header(rf_ctx *ctx, json_t *root, const char *src, rf_machine *m)
{
    RF_TRY(rf__json_str(ctx, root, "description", "top level", m->description,
                        sizeof m->description, 0));
    RF_TRY(rf__json_str(ctx, root, "kind", "top level", m->kind, sizeof m->kind, 0));
    RF_CHECK(ctx, m->kind[0], RF_FORMAT, "top level: 'kind' is empty");
    RF_TRY(rf__mj_provenance(ctx, root, "top level", &m->provenance));
    rf__strlcpy(m->source, src, sizeof m->source);
    return rf__json_str(ctx, root, "source", "top level", m->source, sizeof m->source, 0);
}

static rf_status rf__mj_fill(rf_ctx *ctx, json_t *root, const char *src, rf_machine *m)
{
    RF_TRY(rf__mj_header(ctx, root, src, m));
    json_t *arr = json_object_get(root, "ceilings");
    RF_CHECK(ctx, arr, RF_FORMAT, "top level: missing 'ceilings'");
    RF_CHECK(ctx, json_is_array(arr), RF_FORMAT, "top level: 'ceilings' must be an array, got %s",
             rf__json_type_name(arr));
    size_t n = json_array_size(arr);
    RF_CHECK(ctx, n > 0, RF_FORMAT, "top level: 'ceilings' is empty");
    RF_CHECK(ctx, n <= RF__MJ_CEILINGS_MAX, RF_RANGE,
             "top level: 'ceilings' has %zu entries, at most %d", n, RF__MJ_CEILINGS_MAX);
    for (size_t i = 0; i < n; i++) RF_TRY(rf__mj_ceiling(ctx, m, json_array_get(arr, i), i, src));
    RF_TRY(
        rf__mj_default(ctx, root, "default_compute", RF_CEILING_COMPUTE, m, &m->default_compute));
    return rf__mj_default(ctx, root, "default_bandwidth", RF_CEILING_BANDWIDTH, m,
                          &m->default_bandwidth);
}

static rf_status rf__mj_full(rf_ctx *ctx, json_t *root, const char *src, rf_machine **out)
{
    char name[RF_NAME_MAX] = "";
    RF_TRY(rf__json_keys(ctx, root, rf__mj_full_keys, "top level"));
    RF_TRY(rf__json_str(ctx, root, "name", "top level", name, sizeof name, 1));
    rf_machine *m = NULL;
    RF_TRY(rf_machine_new(ctx, name, &m));
    rf_status st = rf__mj_fill(ctx, root, src, m);
    if (st != RF_OK) {
        rf_machine_free(m);
        return st;
    }
    *out = m;
    return RF_OK;
}

/* Full form when any key only it has is present; simple form otherwise. */
static int rf__mj_is_full(json_t *root)
{
    static const char *const full_only[] = {"ceilings", "kind", "provenance", "default_compute",
                                            "default_bandwidth"};
    for (size_t i = 0; i < sizeof full_only / sizeof full_only[0]; i++)
        if (json_object_get(root, full_only[i])) return 1;
    return 0;
}

static rf_status rf__mj_parse(rf_ctx *ctx, const char *data, size_t size, const char *src,
                              rf_machine **out)
{
    json_t *root;
    RF_TRY(rf__json_load(ctx, data, size, &root));
    rf_status st = rf__mj_schema(ctx, root);
    if (st == RF_OK)
        st = rf__mj_is_full(root) ? rf__mj_full(ctx, root, src, out)
                                  : rf__mj_simple(ctx, root, src, out);
    json_decref(root);
    return st;
}

rf_status rf_machine_parse_json(rf_ctx *ctx, const void *data, size_t size, const char *source,
                                rf_machine **out)
{
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_machine_parse_json: missing argument");
    *out = NULL;
    const char *src = source && source[0] ? source : "machine JSON";
    /* What jansson may build (core/json_scan.h): a ceiling with stats is about 30 values. */
    static const rf__json_limits lim = {.max_depth = 0,
                                        .max_string = 65536,
                                        .bulk_key = "ceilings",
                                        .per_item = 64,
                                        .outside = 256,
                                        .items_are_containers = 1};
    rf_status st = rf__json_scan(ctx, data ? data : "", size, &lim);
    if (st == RF_OK) st = rf__mj_parse(ctx, data ? data : "", size, src, out);
    if (st != RF_OK) rf__error_prefix(ctx, src);
    return st;
}

/* ---- writing --------------------------------------------------------------------------------- */

/* Write s (at most cap bytes) as a JSON string; bytes that are not UTF-8 become U+FFFD. */
static rf_status rf__mj_wstr(rf_writer *w, const char *s, size_t cap)
{
    return rf__write_json_stringn(w, s, strnlen(s, cap < RF_TEXT_MAX ? cap : RF_TEXT_MAX));
}

static rf_status rf__mj_wnum(rf_ctx *ctx, rf_writer *w, double v, const char *what)
{
    char buf[40];
    RF_CHECK(ctx, isfinite(v), RF_RANGE, "cannot write %s: %g is not a finite number", what, v);
    rf_number_format(buf, sizeof buf, v);
    return rf_write(w, buf, strlen(buf));
}

/* "  "key": "value",\n" with `indent` spaces; `last` drops the comma. */
static rf_status rf__mj_wfield(rf_writer *w, int indent, const char *key, const char *val,
                               size_t cap, int last)
{
    RF_TRY(rf_writef(w, "%*s\"%s\": ", indent, "", key));
    RF_TRY(rf__mj_wstr(w, val, cap));
    return rf_write(w, last ? "\n" : ",\n", last ? 1 : 2);
}

static int rf__mj_has_stats(const rf_ceiling *c)
{
    const rf_ceiling_stats *s = &c->stats;
    return c->provenance == RF_PROV_MEASURED || s->threads || s->repetitions || s->min ||
           s->median || s->max || s->date[0];
}

static rf_status rf__mj_wstats(rf_ctx *ctx, rf_writer *w, const rf_ceiling *c)
{
    const rf_ceiling_stats *s = &c->stats;
    RF_TRY(rf_writef(w, ",\n      \"stats\": {\"threads\": %u, \"repetitions\": %u, \"min\": ",
                     (unsigned)s->threads, (unsigned)s->repetitions));
    RF_TRY(rf__mj_wnum(ctx, w, s->min, "a stats figure"));
    RF_TRY(rf_writef(w, ", \"median\": "));
    RF_TRY(rf__mj_wnum(ctx, w, s->median, "a stats figure"));
    RF_TRY(rf_writef(w, ", \"max\": "));
    RF_TRY(rf__mj_wnum(ctx, w, s->max, "a stats figure"));
    RF_TRY(rf_writef(w, ", \"date\": "));
    RF_TRY(rf__mj_wstr(w, s->date, sizeof s->date));
    return rf_writef(w, "}");
}

static rf_status rf__mj_wceiling(rf_ctx *ctx, rf_writer *w, const rf_ceiling *c, int last)
{
    int compute = c->kind == RF_CEILING_COMPUTE;
    RF_TRY(rf_writef(w, "    {\n"));
    RF_TRY(rf__mj_wfield(w, 6, "name", c->name, sizeof c->name, 0));
    RF_TRY(rf__mj_wfield(w, 6, "kind", rf_ceiling_kind_name(c->kind), 16, 0));
    RF_TRY(rf_writef(w, "      \"value\": "));
    RF_TRY(rf__mj_wnum(ctx, w, c->value, "a ceiling value"));
    RF_TRY(rf_writef(w, ",\n"));
    RF_TRY(rf__mj_wfield(w, 6, "unit", compute ? "FLOP/s" : "B/s", 16, 0));
    RF_TRY(rf__mj_wfield(w, 6, "provenance", rf_provenance_name(c->provenance), 16, 0));
    RF_TRY(rf__mj_wfield(w, 6, "source", c->source, sizeof c->source, 0));
    RF_TRY(rf_writef(w, "      \"note\": "));
    RF_TRY(rf__mj_wstr(w, c->note, sizeof c->note));
    if (rf__mj_has_stats(c)) RF_TRY(rf__mj_wstats(ctx, w, c));
    if (c->capacity_bytes > 0) { /* optional keys: only when set, so older files stay the same */
        RF_TRY(rf_writef(w, ",\n      \"capacity_bytes\": "));
        RF_TRY(rf__mj_wnum(ctx, w, c->capacity_bytes, "a capacity"));
    }
    if (c->provisional) RF_TRY(rf_writef(w, ",\n      \"provisional\": true"));
    return rf_writef(w, "\n    }%s\n", last ? "" : ",");
}

static rf_status rf__mj_wfull(rf_ctx *ctx, const rf_machine *m, rf_writer *w)
{
    RF_TRY(rf_writef(w, "{\n  \"schema\": %d,\n", RF_MACHINE_SCHEMA));
    RF_TRY(rf__mj_wfield(w, 2, "name", m->name, sizeof m->name, 0));
    RF_TRY(rf__mj_wfield(w, 2, "description", m->description, sizeof m->description, 0));
    RF_TRY(rf__mj_wfield(w, 2, "kind", m->kind, sizeof m->kind, 0));
    RF_TRY(rf__mj_wfield(w, 2, "provenance", rf_provenance_name(m->provenance), 16, 0));
    RF_TRY(rf__mj_wfield(w, 2, "source", m->source, sizeof m->source, 0));
    if (m->default_compute < m->n_ceilings)
        RF_TRY(rf__mj_wfield(w, 2, "default_compute", m->ceilings[m->default_compute].name,
                             RF_NAME_MAX, 0));
    if (m->default_bandwidth < m->n_ceilings)
        RF_TRY(rf__mj_wfield(w, 2, "default_bandwidth", m->ceilings[m->default_bandwidth].name,
                             RF_NAME_MAX, 0));
    RF_TRY(rf_writef(w, "  \"ceilings\": [\n"));
    for (size_t i = 0; i < m->n_ceilings; i++)
        RF_TRY(rf__mj_wceiling(ctx, w, &m->ceilings[i], i + 1 == m->n_ceilings));
    return rf_writef(w, "  ]\n}\n");
}

static rf_status rf__mj_wsimple(rf_ctx *ctx, const rf_machine *m, rf_writer *w)
{
    RF_CHECK(ctx, m->default_compute < m->n_ceilings && m->default_bandwidth < m->n_ceilings,
             RF_USAGE, "machine '%s' has no default compute and bandwidth ceilings to write",
             m->name);
    RF_TRY(rf_writef(w, "{\n  \"schema\": %d,\n", RF_MACHINE_SCHEMA));
    RF_TRY(rf__mj_wfield(w, 2, "name", m->name, sizeof m->name, 0));
    RF_TRY(rf__mj_wfield(w, 2, "description", m->description, sizeof m->description, 0));
    RF_TRY(rf__mj_wfield(w, 2, "source", m->source, sizeof m->source, 0));
    RF_TRY(rf_writef(w, "  \"peak_flops\": "));
    RF_TRY(rf__mj_wnum(ctx, w, m->ceilings[m->default_compute].value, "peak_flops"));
    RF_TRY(rf_writef(w, ",\n  \"peak_bandwidth\": "));
    RF_TRY(rf__mj_wnum(ctx, w, m->ceilings[m->default_bandwidth].value, "peak_bandwidth"));
    return rf_writef(w, "\n}\n");
}

rf_status rf_machine_write_json(rf_ctx *ctx, const rf_machine *m, int simple, rf_writer *w)
{
    RF_CHECK(ctx, m && w && w->write, RF_USAGE, "rf_machine_write_json: missing argument");
    rf_ctx_clear_error(ctx);
    rf_status st = simple ? rf__mj_wsimple(ctx, m, w) : rf__mj_wfull(ctx, m, w);
    /* A failing writer sets no message on the context: give the error one. */
    if (st != RF_OK && rf_ctx_error_status(ctx) == RF_OK)
        rf__error(ctx, st, -1, "cannot write machine '%s': %s", m->name, rf_status_str(st));
    return st;
}

rf_status rf_machine_read_file(rf_ctx *ctx, const char *path, rf_machine **out)
{
    RF_CHECK(ctx, out && path, RF_USAGE, "rf_machine_read_file: missing argument");
    *out = NULL;
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__MJ_FILE_MAX, &map)); /* its errors name the path */
    rf_status st = rf_machine_parse_json(ctx, map.data, map.size, path, out);
    rf__unmap_file(&map);
    return st;
}

rf_status rf_machine_resolve(rf_ctx *ctx, const char *spec, rf_machine **out)
{
    RF_CHECK(ctx, out && spec, RF_USAGE, "rf_machine_resolve: missing argument");
    *out = NULL;
    RF_CHECK(ctx, spec[0], RF_USAGE,
             "no machine given: name one from `roofline hw list` or a machine file");
    rf_status st = rf_hwdb_find(ctx, spec, out);
    if (st != RF_USAGE) return st;
    struct stat sb;
    if (stat(spec, &sb) == 0) return rf_machine_read_file(ctx, spec, out);
    /* Keep the database's suggestions ("(close: h100-sxm5, h100-pcie; see ...)"), if any. */
    char hint[256] = "(see `roofline hw list`)";
    const char *near = strstr(rf_ctx_errmsg(ctx), "(close: ");
    if (near) rf__strlcpy(hint, near, sizeof hint);
    return rf__error(ctx, RF_USAGE, -1,
                     "unknown machine '%s': not in the database %s and no such file", spec, hint);
}
