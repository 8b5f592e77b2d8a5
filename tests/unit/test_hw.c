/* test_hw.c — unit tests for src/hw: the datasheet database (every entry builds and cites its
 * source; known figures), lookup by name and alias, machine JSON in both forms (exact round trip,
 * one test per malformed input with its status and message), file loading, --hw resolution and an
 * out-of-memory sweep of the parser. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rf_test.h"
#include "roofline/buf.h"
#include "roofline/core.h"
#include "roofline/hw.h"

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

static rf_machine *find(rf_ctx *ctx, const char *name)
{
    rf_machine *m = NULL;
    rf_status st = rf_hwdb_find(ctx, name, &m);
    if (st != RF_OK) RF_FAIL_AT("rf_hwdb_find(%s): %s", name, rf_ctx_errmsg(ctx));
    return m;
}

static double value_of(const rf_machine *m, const char *ceiling)
{
    long i = rf_machine_find(m, ceiling);
    if (i < 0) {
        RF_FAIL_AT("%s has no ceiling %s", m->name, ceiling);
        return -1;
    }
    return m->ceilings[i].value;
}

/* Parse a NUL-terminated JSON text named "bad.json"; returns the status, frees any machine. */
static rf_status parse_text(rf_ctx *ctx, const char *text)
{
    rf_machine *m = NULL;
    rf_status st = rf_machine_parse_json(ctx, text, strlen(text), "bad.json", &m);
    rf_machine_free(m);
    return st;
}

/* Expect `text` to fail with `status` and a message that names the input and contains `frag`. */
#define EXPECT_BAD(text, status, frag)                                                             \
    do {                                                                                           \
        rf_ctx *ctx_ = new_ctx();                                                                  \
        RF_EXPECT_INT(parse_text(ctx_, text), status);                                             \
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx_), "bad.json: ");                                     \
        RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx_), frag);                                             \
        rf_ctx_free(ctx_);                                                                         \
    } while (0)

static const char full_json[] =
    "{\"schema\": 1, \"name\": \"box\", \"description\": \"a test box\", \"kind\": \"cpu\",\n"
    " \"default_compute\": \"fp32\", \"default_bandwidth\": \"DRAM\",\n"
    " \"ceilings\": [\n"
    "  {\"name\": \"fp64\", \"kind\": \"compute\", \"value\": 1e12, \"unit\": \"FLOP/s\"},\n"
    "  {\"name\": \"fp32\", \"kind\": \"compute\", \"value\": 2e12, \"provenance\": \"measured\",\n"
    "   \"source\": \"roofline peaks\", \"note\": \"8 threads\",\n"
    "   \"stats\": {\"threads\": 8, \"repetitions\": 10, \"min\": 1.9e12, \"median\": 1.95e12,\n"
    "             \"max\": 2e12, \"date\": \"2026-11-22T01:02:03Z\"}},\n"
    "  {\"name\": \"L2\", \"kind\": \"bandwidth\", \"value\": 1.5e12, \"unit\": \"B/s\"},\n"
    "  {\"name\": \"DRAM\", \"kind\": \"bandwidth\", \"value\": 1e11, \"provenance\": "
    "\"datasheet\", \"source\": \"vendor sheet\"}\n"
    " ]}\n";

/* Exact comparison of two machines, field by field. */
static void expect_same_machine(const rf_machine *a, const rf_machine *b)
{
    RF_EXPECT_STR(a->name, b->name);
    RF_EXPECT_STR(a->description, b->description);
    RF_EXPECT_STR(a->kind, b->kind);
    RF_EXPECT_STR(a->source, b->source);
    RF_EXPECT_INT(a->provenance, b->provenance);
    RF_EXPECT_INT(a->default_compute, b->default_compute);
    RF_EXPECT_INT(a->default_bandwidth, b->default_bandwidth);
    RF_EXPECT_INT(a->n_ceilings, b->n_ceilings);
    for (size_t i = 0; i < a->n_ceilings && i < b->n_ceilings; i++) {
        const rf_ceiling *x = &a->ceilings[i], *y = &b->ceilings[i];
        RF_EXPECT_STR(x->name, y->name);
        RF_EXPECT_INT(x->kind, y->kind);
        RF_EXPECT_DBL(x->value, y->value);
        RF_EXPECT_INT(x->provenance, y->provenance);
        RF_EXPECT_STR(x->source, y->source);
        RF_EXPECT_STR(x->note, y->note);
        RF_EXPECT_INT(x->stats.threads, y->stats.threads);
        RF_EXPECT_INT(x->stats.repetitions, y->stats.repetitions);
        RF_EXPECT_DBL(x->stats.min, y->stats.min);
        RF_EXPECT_DBL(x->stats.median, y->stats.median);
        RF_EXPECT_DBL(x->stats.max, y->stats.max);
        RF_EXPECT_STR(x->stats.date, y->stats.date);
    }
}

/* Write `m` (full or simple form) into a fresh buffer; the caller frees it. */
static void write_json(rf_ctx *ctx, const rf_machine *m, int simple, rf_buf *b)
{
    rf_buf_init(b, ctx, 0);
    rf_writer w = rf_buf_writer(b);
    rf_status st = rf_machine_write_json(ctx, m, simple, &w);
    if (st != RF_OK) RF_FAIL_AT("write %s: %s", m->name, rf_ctx_errmsg(ctx));
}

/* ---- the database ---------------------------------------------------------------------------- */

RF_TEST(db_count_and_ids)
{
    size_t n = rf_hwdb_count();
    RF_EXPECT(n >= 17);
    RF_EXPECT(rf_hwdb_id(n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const char *id = rf_hwdb_id(i);
        RF_REQUIRE(id != NULL);
        for (const char *p = id; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
                RF_FAIL_AT("id '%s' is not lower-case with dashes", id);
        for (size_t j = 0; j < i; j++)
            if (strcmp(rf_hwdb_id(j), id) == 0) RF_FAIL_AT("id '%s' appears twice", id);
    }
}

static void check_entry(const rf_machine *m)
{
    int is_gpu = strcmp(m->kind, "gpu") == 0;
    RF_EXPECT(is_gpu || strcmp(m->kind, "cpu") == 0);
    RF_EXPECT(m->description[0] != '\0');
    RF_EXPECT(m->source[0] != '\0');
    RF_EXPECT_INT(m->provenance, RF_PROV_DATASHEET);
    int drams = 0;
    for (size_t k = 0; k < m->n_ceilings; k++) {
        const rf_ceiling *c = &m->ceilings[k];
        if (c->source[0] == '\0') RF_FAIL_AT("%s/%s has no source", m->name, c->name);
        if (!(isfinite(c->value) && c->value > 0)) RF_FAIL_AT("%s/%s value", m->name, c->name);
        RF_EXPECT_INT(c->provenance, RF_PROV_DATASHEET);
        if (strcmp(c->name, "DRAM") == 0) {
            drams++;
            RF_EXPECT_INT(c->kind, RF_CEILING_BANDWIDTH);
        }
    }
    RF_EXPECT_INT(drams, 1);
    RF_REQUIRE(m->default_compute < m->n_ceilings && m->default_bandwidth < m->n_ceilings);
    const rf_ceiling *dc = &m->ceilings[m->default_compute];
    RF_EXPECT_INT(dc->kind, RF_CEILING_COMPUTE);
    RF_EXPECT_STR(m->ceilings[m->default_bandwidth].name, "DRAM");
    if (is_gpu)
        RF_EXPECT_STR(dc->name, "fp32");
    else
        RF_EXPECT(strncmp(dc->name, "fp32.", 5) == 0);
}

RF_TEST(db_every_entry_builds_with_sources)
{
    rf_ctx *ctx = new_ctx();
    for (size_t i = 0; i < rf_hwdb_count(); i++) {
        rf_machine *m = NULL;
        rf_status st = rf_hwdb_get(ctx, i, &m);
        if (st != RF_OK) RF_FAIL_AT("entry %zu: %s", i, rf_ctx_errmsg(ctx));
        if (!m) continue;
        RF_EXPECT_STR(m->name, rf_hwdb_id(i));
        check_entry(m);
        rf_machine_free(m);
    }
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_hwdb_get(ctx, rf_hwdb_count(), &m), RF_USAGE);
    RF_EXPECT(m == NULL);
    rf_ctx_free(ctx);
}

RF_TEST(db_a100_80gb_figures_and_ridge)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = find(ctx, "a100-sxm4-80gb");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "fp16.tensor"), 312e12);
    RF_EXPECT_DBL(value_of(m, "bf16.tensor"), 312e12);
    RF_EXPECT_DBL(value_of(m, "fp32"), 19.5e12);
    RF_EXPECT_DBL(value_of(m, "fp64.tensor"), 19.5e12);
    RF_EXPECT_DBL(value_of(m, "int8.tensor"), 624e12);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 2039e9);
    size_t c = 0, b = 0;
    RF_EXPECT_INT(rf_machine_select(ctx, m, RF_CEILING_COMPUTE, "fp16.tensor", &c), RF_OK);
    RF_EXPECT_INT(rf_machine_select(ctx, m, RF_CEILING_BANDWIDTH, "DRAM", &b), RF_OK);
    rf_roof roof;
    double ridge = 0;
    RF_EXPECT_INT(rf_machine_roof(ctx, m, c, b, &roof), RF_OK);
    RF_EXPECT_INT(rf_ridge_ai(ctx, &roof, &ridge), RF_OK);
    RF_EXPECT_NEAR(ridge, 153.0, 2e-3);
    rf_machine_free(m);
    m = find(ctx, "a100-sxm4-40gb");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 1555e9);
    rf_machine_free(m);
    m = find(ctx, "a100-pcie-80gb");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 1935e9);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(db_h100_dense_not_sparse)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = find(ctx, "h100-sxm5");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "fp16.tensor"), 989.4e12);
    RF_EXPECT_DBL(value_of(m, "bf16.tensor"), 989.4e12);
    RF_EXPECT_DBL(value_of(m, "tf32.tensor"), 494.7e12);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 3350e9);
    for (size_t k = 0; k < m->n_ceilings; k++)
        RF_EXPECT(m->ceilings[k].value < 1979.5e12); /* no sparse 1,979/3,958 figure */
    rf_machine_free(m);
    m = find(ctx, "h200-sxm");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "fp16.tensor"), 989.4e12);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 4800e9);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(db_cpu_entries_carry_derivations)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = find(ctx, "xeon-8480plus");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_DBL(value_of(m, "fp64.fma.avx512"), 56 * 2.0e9 * 32);
    RF_EXPECT_DBL(value_of(m, "bf16.amx"), 56 * 2.0e9 * 1024);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 307.2e9);
    long i = rf_machine_find(m, "fp64.fma.avx512");
    RF_REQUIRE(i >= 0);
    RF_EXPECT_CONTAINS(m->ceilings[i].note, "derived: 56 cores x 2.0 GHz x 32");
    rf_machine_free(m);
    m = find(ctx, "epyc-9654");
    RF_REQUIRE(m != NULL);
    RF_EXPECT_NEAR(value_of(m, "fp64.fma.avx512"), 96 * 2.4e9 * 16, 1e-12);
    RF_EXPECT_DBL(value_of(m, "DRAM"), 460.8e9);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(find_by_alias_and_case)
{
    rf_ctx *ctx = new_ctx();
    static const char *const pairs[][2] = {
        {"A100", "a100-sxm4-80gb"}, {"a100-80gb", "a100-sxm4-80gb"},
        {"H100", "h100-sxm5"},      {"H100-SXM5", "h100-sxm5"},
        {"MI300X", "mi300x"},       {"Grace", "grace-superchip"},
        {"rtx4090", "rtx-4090"},    {"v100", "v100-sxm2-32gb"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        rf_machine *m = find(ctx, pairs[k][0]);
        if (m) RF_EXPECT_STR(m->name, pairs[k][1]);
        rf_machine_free(m);
    }
    rf_ctx_free(ctx);
}

RF_TEST(find_unknown_names_close_ids)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_hwdb_find(ctx, "h100-sxm4", &m), RF_USAGE);
    RF_EXPECT(m == NULL);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "unknown machine 'h100-sxm4'");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "h100-sxm5");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "roofline hw list");
    RF_EXPECT_INT(rf_hwdb_find(ctx, "zx-spectrum", &m), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "see `roofline hw list`");
    RF_EXPECT_INT(rf_hwdb_find(ctx, "", &m), RF_USAGE);
    rf_ctx_free(ctx);
}

/* ---- machine JSON ---------------------------------------------------------------------------- */

RF_TEST(json_round_trip_every_db_entry)
{
    rf_ctx *ctx = new_ctx();
    for (size_t i = 0; i < rf_hwdb_count(); i++) {
        rf_machine *a = NULL, *b = NULL;
        RF_EXPECT_INT(rf_hwdb_get(ctx, i, &a), RF_OK);
        if (!a) continue;
        rf_buf one, two;
        write_json(ctx, a, 0, &one);
        rf_status st = rf_machine_parse_json(ctx, one.data, one.len, "rt.json", &b);
        if (st != RF_OK) RF_FAIL_AT("%s: %s", a->name, rf_ctx_errmsg(ctx));
        if (b) {
            expect_same_machine(a, b);
            write_json(ctx, b, 0, &two);
            RF_EXPECT_STR(one.data, two.data);
            rf_buf_free(&two);
        }
        rf_buf_free(&one);
        rf_machine_free(a);
        rf_machine_free(b);
    }
    rf_ctx_free(ctx);
}

RF_TEST(json_write_prints_numbers_cleanly)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = find(ctx, "a100");
    RF_REQUIRE(m != NULL);
    rf_buf b;
    write_json(ctx, m, 0, &b);
    RF_REQUIRE(b.data != NULL);
    RF_EXPECT(strncmp(b.data, "{\n  \"schema\": 1,\n  \"name\": \"a100-sxm4-80gb\",\n", 44) == 0);
    RF_EXPECT_CONTAINS(b.data, "\"value\": 19500000000000,");
    RF_EXPECT_CONTAINS(b.data, "\"value\": 2039000000000,");
    RF_EXPECT_CONTAINS(b.data, "\"default_bandwidth\": \"DRAM\"");
    RF_EXPECT(b.len > 2 && strcmp(b.data + b.len - 2, "}\n") == 0);
    rf_buf_free(&b);
    write_json(ctx, m, 1, &b);
    RF_REQUIRE(b.data != NULL);
    RF_EXPECT_CONTAINS(b.data, "\"peak_flops\": 19500000000000,\n");
    RF_EXPECT_CONTAINS(b.data, "\"peak_bandwidth\": 2039000000000\n}\n");
    rf_buf_free(&b);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(json_simple_form)
{
    rf_ctx *ctx = new_ctx();
    const char *text = "{\"name\": \"textbook\", \"peak_flops\": 1.95e13, \"peak_bandwidth\": "
                       "2.039e12, \"description\": \"exercise 3\"}";
    rf_machine *m = NULL, *again = NULL;
    RF_EXPECT_INT(rf_machine_parse_json(ctx, text, strlen(text), "simple.json", &m), RF_OK);
    RF_REQUIRE(m != NULL);
    RF_EXPECT_STR(m->name, "textbook");
    RF_EXPECT_STR(m->description, "exercise 3");
    RF_EXPECT_INT(m->n_ceilings, 2);
    RF_EXPECT_DBL(value_of(m, "peak"), 1.95e13);
    RF_EXPECT_DBL(value_of(m, "memory"), 2.039e12);
    RF_EXPECT_INT(m->ceilings[0].provenance, RF_PROV_FILE);
    RF_EXPECT_STR(m->ceilings[0].source, "simple.json");
    RF_EXPECT_STR(m->ceilings[m->default_bandwidth].name, "memory");
    rf_buf b;
    write_json(ctx, m, 1, &b);
    RF_EXPECT_INT(rf_machine_parse_json(ctx, b.data, b.len, "simple.json", &again), RF_OK);
    if (again) expect_same_machine(m, again);
    rf_buf_free(&b);
    rf_machine_free(again);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(json_full_form_with_stats)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL, *again = NULL;
    RF_EXPECT_INT(rf_machine_parse_json(ctx, full_json, strlen(full_json), "box.json", &m), RF_OK);
    RF_REQUIRE(m != NULL);
    RF_EXPECT_STR(m->kind, "cpu");
    RF_EXPECT_INT(m->n_ceilings, 4);
    RF_EXPECT_STR(m->ceilings[m->default_compute].name, "fp32");
    RF_EXPECT_STR(m->ceilings[m->default_bandwidth].name, "DRAM");
    RF_EXPECT_INT(m->ceilings[0].provenance, RF_PROV_FILE);
    RF_EXPECT_STR(m->ceilings[0].source, "box.json");
    RF_EXPECT_INT(m->ceilings[1].provenance, RF_PROV_MEASURED);
    RF_EXPECT_INT(m->ceilings[1].stats.threads, 8);
    RF_EXPECT_DBL(m->ceilings[1].stats.median, 1.95e12);
    RF_EXPECT_STR(m->ceilings[1].stats.date, "2026-11-22T01:02:03Z");
    RF_EXPECT_INT(m->ceilings[3].provenance, RF_PROV_DATASHEET);
    RF_EXPECT_STR(m->ceilings[3].source, "vendor sheet");
    rf_buf b;
    write_json(ctx, m, 0, &b);
    RF_EXPECT_INT(rf_machine_parse_json(ctx, b.data, b.len, "box.json", &again), RF_OK);
    if (again) expect_same_machine(m, again);
    rf_buf_free(&b);
    rf_machine_free(again);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(json_exact_doubles_survive)
{
    rf_ctx *ctx = new_ctx();
    static const double values[] = {0.1,   1.0 / 3.0, 19.5e12, 1.9500000000000002e13, 123456789.125,
                                    1e-30, 1e30,      4.35e9,  2.2250738585072014e-08};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
        rf_machine *m = NULL, *b = NULL;
        RF_REQUIRE(rf_machine_simple(ctx, "x", values[k], values[k], RF_PROV_USER, "cli", &m) ==
                   RF_OK);
        rf_buf buf;
        write_json(ctx, m, 0, &buf);
        RF_EXPECT_INT(rf_machine_parse_json(ctx, buf.data, buf.len, "x.json", &b), RF_OK);
        if (b) expect_same_machine(m, b);
        rf_buf_free(&buf);
        rf_machine_free(m);
        rf_machine_free(b);
    }
    rf_ctx_free(ctx);
}

RF_TEST(json_write_escapes_strings)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = NULL, *b = NULL;
    RF_REQUIRE(rf_machine_simple(ctx, "esc", 1e12, 1e11, RF_PROV_USER,
                                 "a\x01"
                                 "b\"c\\d\xff\xc3\xa9",
                                 &m) == RF_OK);
    rf_buf buf;
    write_json(ctx, m, 0, &buf);
    RF_REQUIRE(buf.data != NULL);
    RF_EXPECT_CONTAINS(buf.data, "\"source\": \"a\\u0001b\\\"c\\\\d\\ufffd\xc3\xa9\"");
    RF_EXPECT_INT(rf_machine_parse_json(ctx, buf.data, buf.len, "esc.json", &b), RF_OK);
    if (b)
        RF_EXPECT_STR(b->source, "a\x01"
                                 "b\"c\\d\xef\xbf\xbd\xc3\xa9");
    rf_buf_free(&buf);
    rf_machine_free(b);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

RF_TEST(json_write_reports_a_failing_writer)
{
    rf_ctx *ctx = new_ctx();
    rf_machine *m = find(ctx, "t4");
    RF_REQUIRE(m != NULL);
    rf_buf b;
    rf_buf_init(&b, ctx, 100); /* far too small */
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_machine_write_json(ctx, m, 0, &w), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "cannot write machine 't4'");
    rf_buf_free(&b);
    rf_machine_free(m);
    rf_ctx_free(ctx);
}

/* ---- malformed inputs: one test each --------------------------------------------------------- */

#define SIMPLE_OK "\"name\": \"x\", \"peak_flops\": 1e12, \"peak_bandwidth\": 1e11"
#define CEIL_FP32 "{\"name\": \"fp32\", \"kind\": \"compute\", \"value\": 1e12}"
#define CEIL_DRAM "{\"name\": \"DRAM\", \"kind\": \"bandwidth\", \"value\": 1e11}"

RF_TEST(bad_empty)
{
    EXPECT_BAD("", RF_FORMAT, "empty input");
}
RF_TEST(bad_blank)
{
    EXPECT_BAD(" \n\t ", RF_FORMAT, "empty input");
}
RF_TEST(bad_not_json)
{
    EXPECT_BAD("peak_flops = 1e12", RF_FORMAT, "line 1, column 4: '[' or '{' expected");
}
RF_TEST(bad_trailing_garbage)
{
    EXPECT_BAD("{" SIMPLE_OK "} extra", RF_FORMAT, "end of file expected");
}
RF_TEST(bad_top_level_array)
{
    EXPECT_BAD("[1, 2]", RF_FORMAT, "expected a JSON object, got an array");
}
RF_TEST(bad_duplicate_key)
{
    EXPECT_BAD("{" SIMPLE_OK ", \"name\": \"y\"}", RF_FORMAT, "duplicate object key");
}
RF_TEST(bad_unknown_key)
{
    EXPECT_BAD("{" SIMPLE_OK ", \"peak_flop\": 1}", RF_FORMAT,
               "top level: unknown key 'peak_flop'");
}
RF_TEST(bad_unknown_key_in_ceiling)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [{\"name\": \"fp32\", \"kind\": \"compute\", "
               "\"value\": 1, \"vaule\": 2}, " CEIL_DRAM "]}",
               RF_FORMAT, "ceiling 'fp32': unknown key 'vaule'");
}
RF_TEST(bad_missing_value)
{
    EXPECT_BAD(
        "{\"name\": \"x\", \"ceilings\": [{\"name\": \"fp32\", \"kind\": \"compute\"}, " CEIL_DRAM
        "]}",
        RF_FORMAT, "ceiling 'fp32': missing 'value'");
}
RF_TEST(bad_missing_peak)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": 1e12}", RF_FORMAT, "missing 'peak_bandwidth'");
}
RF_TEST(bad_missing_name)
{
    EXPECT_BAD("{\"peak_flops\": 1e12, \"peak_bandwidth\": 1e11}", RF_FORMAT, "missing 'name'");
}
RF_TEST(bad_string_value)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": \"19.5T\", \"peak_bandwidth\": 1e11}", RF_FORMAT,
               "'peak_flops' must be a number, got a string");
}
RF_TEST(bad_negative)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": -1e12, \"peak_bandwidth\": 1e11}", RF_RANGE,
               "'peak_flops' must be positive, got -1000000000000");
}
RF_TEST(bad_zero)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [" CEIL_FP32
               ", {\"name\": \"DRAM\", \"kind\": \"bandwidth\", \"value\": 0}]}",
               RF_RANGE, "ceiling 'DRAM': 'value' must be positive, got 0");
}
RF_TEST(bad_overflow_1e400)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": 1e400, \"peak_bandwidth\": 1e11}", RF_RANGE,
               "real number overflow");
}
RF_TEST(bad_huge)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": 2e30, \"peak_bandwidth\": 1e11}", RF_RANGE,
               "outside the plausible range");
}
RF_TEST(bad_nan)
{
    EXPECT_BAD("{\"name\": \"x\", \"peak_flops\": NaN, \"peak_bandwidth\": 1}", RF_FORMAT,
               "invalid token");
}
RF_TEST(bad_schema_2)
{
    EXPECT_BAD("{\"schema\": 2, " SIMPLE_OK "}", RF_UNSUPPORTED,
               "schema 2 is newer than this roofline supports (1)");
}
RF_TEST(bad_schema_not_whole)
{
    EXPECT_BAD("{\"schema\": 1.5, " SIMPLE_OK "}", RF_FORMAT, "'schema' must be a positive whole");
}
RF_TEST(bad_default_names_missing_ceiling)
{
    EXPECT_BAD("{\"name\": \"x\", \"default_compute\": \"fp16.tensor\", \"ceilings\": [" CEIL_FP32
               ", " CEIL_DRAM "]}",
               RF_FORMAT, "'default_compute' names no ceiling: 'fp16.tensor'");
}
RF_TEST(bad_default_wrong_kind)
{
    EXPECT_BAD("{\"name\": \"x\", \"default_compute\": \"DRAM\", \"ceilings\": [" CEIL_FP32
               ", " CEIL_DRAM "]}",
               RF_FORMAT, "is not a compute ceiling");
}
RF_TEST(bad_no_bandwidth_ceiling)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [" CEIL_FP32 "]}", RF_FORMAT,
               "has no bandwidth ceiling");
}
RF_TEST(bad_duplicate_ceiling)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [" CEIL_FP32 ", " CEIL_DRAM
               ", {\"name\": \"FP32\", \"kind\": \"compute\", \"value\": 2e12}]}",
               RF_FORMAT, "ceiling 'FP32' appears twice");
}
RF_TEST(bad_unit_mismatch)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [" CEIL_FP32
               ", {\"name\": \"DRAM\", \"kind\": \"bandwidth\", \"value\": 1e11, \"unit\": "
               "\"GB/s\"}]}",
               RF_FORMAT, "unit 'GB/s' does not match kind bandwidth");
}
RF_TEST(bad_name_too_long)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"name\": \"%070d\", \"peak_flops\": 1e12, \"peak_bandwidth\": 1e11}", 7);
    EXPECT_BAD(text, RF_RANGE, "'name' is too long (70 bytes, at most 63)");
}
RF_TEST(bad_note_too_long)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"x\", \"ceilings\": [" CEIL_DRAM ", {\"name\": \"fp32\", \"kind\": "
             "\"compute\", \"value\": 1, \"note\": \"%0400d\"}]}",
             1);
    EXPECT_BAD(text, RF_RANGE, "ceiling 'fp32': 'note' is too long");
}
RF_TEST(bad_deeply_nested)
{
    size_t n = 100000;
    char *text = malloc(n + 1);
    RF_REQUIRE(text != NULL);
    memset(text, '[', n);
    text[n] = '\0';
    EXPECT_BAD(text, RF_FORMAT, "maximum parsing depth");
    free(text);
}
RF_TEST(bad_ceiling_not_object)
{
    EXPECT_BAD("{\"name\": \"x\", \"ceilings\": [" CEIL_FP32 ", 3]}", RF_FORMAT,
               "ceiling 2: expected an object, got a number");
}
RF_TEST(bad_provenance)
{
    EXPECT_BAD("{\"name\": \"x\", \"provenance\": \"guess\", \"ceilings\": [" CEIL_FP32
               ", " CEIL_DRAM "]}",
               RF_FORMAT, "'provenance' must be");
}

/* ---- files, resolution, out of memory -------------------------------------------------------- */

static const char *tmp_path(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", RF_BINARY_DIR, name);
    return buf;
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

RF_TEST(load_and_resolve)
{
    rf_ctx *ctx = new_ctx();
    char path[1024];
    tmp_path("test_hw_box.json", path, sizeof path);
    RF_REQUIRE(write_file(path, full_json));
    rf_machine *m = NULL;
    RF_EXPECT_INT(rf_machine_read_file(ctx, path, &m), RF_OK);
    RF_REQUIRE(m != NULL);
    RF_EXPECT_STR(m->ceilings[0].source, path);
    RF_EXPECT_STR(m->source, path);
    rf_machine_free(m);
    RF_EXPECT_INT(rf_machine_resolve(ctx, path, &m), RF_OK);
    RF_EXPECT(m && strcmp(m->name, "box") == 0);
    rf_machine_free(m);
    RF_EXPECT_INT(rf_machine_resolve(ctx, "H100", &m), RF_OK);
    RF_EXPECT(m && strcmp(m->name, "h100-sxm5") == 0);
    rf_machine_free(m);
    RF_EXPECT_INT(rf_machine_resolve(ctx, "no-such-box.json", &m), RF_USAGE);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), "unknown machine 'no-such-box.json': not in the database "
                                      "(see `roofline hw list`) and no such file");
    RF_EXPECT_INT(rf_machine_resolve(ctx, "h100-sxm4", &m), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "unknown machine 'h100-sxm4': not in the database "
                                           "(close: h100-sxm5");
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "and no such file");
    RF_EXPECT_INT(rf_machine_resolve(ctx, "", &m), RF_USAGE);
    remove(path);
    rf_ctx_free(ctx);
}

RF_TEST(load_errors_name_the_path)
{
    rf_ctx *ctx = new_ctx();
    char path[1024];
    rf_machine *m = NULL;
    tmp_path("test_hw_missing_dir/none.json", path, sizeof path);
    RF_EXPECT_INT(rf_machine_read_file(ctx, path, &m), RF_IO);
    RF_EXPECT(strncmp(rf_ctx_errmsg(ctx), path, strlen(path)) == 0);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "no such file or directory");
    tmp_path("test_hw_bad.json", path, sizeof path);
    RF_REQUIRE(write_file(path, "{\"name\": \"x\", \"peak_flops\": 0, \"peak_bandwidth\": 1}"));
    RF_EXPECT_INT(rf_machine_read_file(ctx, path, &m), RF_RANGE);
    RF_EXPECT(strncmp(rf_ctx_errmsg(ctx), path, strlen(path)) == 0);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "'peak_flops' must be positive");
    remove(path);
    tmp_path("test_hw_big.json", path, sizeof path);
    FILE *f = fopen(path, "wb");
    RF_REQUIRE(f != NULL);
    fseek(f, (long)(17 << 20), SEEK_SET); /* sparse 17 MiB file */
    fputc(' ', f);
    fclose(f);
    RF_EXPECT_INT(rf_machine_read_file(ctx, path, &m), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "too large (the limit is 16777216 bytes)");
    RF_EXPECT(m == NULL);
    remove(path);
    rf_ctx_free(ctx);
}

RF_TEST(oom_sweep_parse)
{
    rf_ctx *ctx = new_ctx();
    int nomem = 0, ok = 0;
    for (uint64_t n = 1; n <= 16; n++) {
        rf_machine *m = NULL;
        rf_ctx_fail_alloc_after(ctx, n, 1);
        rf_status st = rf_machine_parse_json(ctx, full_json, strlen(full_json), "oom.json", &m);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        if (st != RF_OK && st != RF_NOMEM) RF_FAIL_AT("n=%d: %s", (int)n, rf_ctx_errmsg(ctx));
        if (st == RF_NOMEM) RF_EXPECT(m == NULL);
        nomem += st == RF_NOMEM;
        ok += st == RF_OK;
        rf_machine_free(m);
    }
    RF_EXPECT(nomem >= 1);
    RF_EXPECT(ok >= 1);
    rf_ctx_free(ctx);
}

RF_TEST(oom_sweep_load_and_db)
{
    rf_ctx *ctx = new_ctx();
    char path[1024];
    tmp_path("test_hw_oom.json", path, sizeof path);
    RF_REQUIRE(write_file(path, full_json));
    int nomem = 0;
    for (uint64_t n = 1; n <= 16; n++) {
        rf_machine *m = NULL, *d = NULL;
        rf_ctx_fail_alloc_after(ctx, n, 1);
        rf_status st = rf_machine_read_file(ctx, path, &m);
        rf_status sd = rf_hwdb_find(ctx, "h100", &d);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        RF_EXPECT(st == RF_OK || st == RF_NOMEM);
        RF_EXPECT(sd == RF_OK || sd == RF_NOMEM);
        nomem += st == RF_NOMEM;
        rf_machine_free(m);
        rf_machine_free(d);
    }
    RF_EXPECT(nomem >= 1);
    remove(path);
    rf_ctx_free(ctx);
}
