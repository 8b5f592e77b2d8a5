/* test_ops.c — the operations-list reader (roofline/ops.h, docs/ops-format.md) and the byte cursor
 * and file mapping it shares with the other readers: valid CSV and JSON forms, every refused input
 * with its status, message and offset, streaming of 200,000 rows, callbacks that stop the parse,
 * and an out-of-memory sweep. */
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/cursor.h"
#include "formats/formats_int.h"
#include "rf_test.h"
#include "roofline/ops.h"

/* ---- helpers --------------------------------------------------------------------------------- */

#define MAX_ROWS 16

typedef struct collect {
    int n;
    char name[MAX_ROWS][128];
    size_t name_len[MAX_ROWS];
    double flops[MAX_ROWS], bytes[MAX_ROWS];
    uint64_t row[MAX_ROWS];
} collect;

static rf_status collect_fn(void *user, const rf_op_row *r)
{
    collect *c = user;
    if (c->n < MAX_ROWS) {
        size_t k = r->name_len < 127 ? r->name_len : 127;
        memcpy(c->name[c->n], r->name, k);
        c->name[c->n][k] = '\0';
        c->name_len[c->n] = r->name_len;
        c->flops[c->n] = r->flops;
        c->bytes[c->n] = r->bytes;
        c->row[c->n] = r->row;
    }
    c->n++;
    return RF_OK;
}

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

/* Parse `size` bytes of text (size (size_t)-1: up to the NUL) into *out. */
static rf_status parse_n(rf_ctx *ctx, const char *text, size_t size, rf_ops_format fmt,
                         collect *out)
{
    memset(out, 0, sizeof *out);
    return rf_ops_parse(ctx, text, size == (size_t)-1 ? strlen(text) : size, fmt, collect_fn, out);
}

/* Expect a valid input: n rows. */
#define EXPECT_OK(ctx, text, fmt, c, nrows)                                                        \
    do {                                                                                           \
        rf_status st_ = parse_n((ctx), (text), (size_t)-1, (fmt), (c));                            \
        if (st_ != RF_OK) RF_FAIL_AT("unexpected error: %s", rf_ctx_errmsg(ctx));                  \
        RF_EXPECT_INT((c)->n, (nrows));                                                            \
    } while (0)

/* Expect a refused input: status, a message fragment, and an offset (-1: any offset >= 0). */
static void expect_err_at(const char *file, int line, const char *text, size_t size,
                          rf_ops_format fmt, rf_status want, const char *fragment, int64_t off)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    rf_status st = parse_n(ctx, text, size, fmt, &c);
    const char *msg = rf_ctx_errmsg(ctx);
    int64_t got_off = rf_ctx_error_offset(ctx);
    if (st != want || !strstr(msg, fragment) || got_off < 0 || (off >= 0 && got_off != off)) {
        fprintf(stderr, "%s:%d: expected %s \"%s\" at %lld; got %s \"%s\" at %lld\n", file, line,
                rf_status_name(want), fragment, (long long)off, rf_status_name(st), msg,
                (long long)got_off);
        rf_test_failures++;
    }
    rf_ctx_free(ctx);
}
#define EXPECT_ERR(text, fmt, want, fragment)                                                      \
    expect_err_at(__FILE__, __LINE__, (text), (size_t)-1, (fmt), (want), (fragment), -1)
#define EXPECT_ERR_AT(text, fmt, want, fragment, off)                                              \
    expect_err_at(__FILE__, __LINE__, (text), (size_t)-1, (fmt), (want), (fragment), (off))
#define EXPECT_ERR_N(text, n, fmt, want, fragment, off)                                            \
    expect_err_at(__FILE__, __LINE__, (text), (n), (fmt), (want), (fragment), (off))

#define HDR "name,flops,bytes\n"

/* ---- valid CSV ------------------------------------------------------------------------------- */

RF_TEST(csv_plain)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx, HDR "conv1,118013952,2408448\nrelu,802816,3211264\n", RF_OPS_CSV, &c, 2);
    RF_EXPECT_STR(c.name[0], "conv1");
    RF_EXPECT_DBL(c.flops[0], 118013952);
    RF_EXPECT_DBL(c.bytes[0], 2408448);
    RF_EXPECT_INT(c.row[0], 1);
    RF_EXPECT_STR(c.name[1], "relu");
    RF_EXPECT_INT(c.row[1], 2);
    rf_ctx_free(ctx);
}

RF_TEST(csv_quoted_fields)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx,
              HDR "\"a,b\",1,2\n"
                  "\"say \"\"hi\"\"\",3,4\n"
                  "\"two\nlines\",5,6\n"
                  "\"\"\"\",7,8\n"
                  "\"plain\",\"9\",\" 10 \"\n",
              RF_OPS_CSV, &c, 5);
    RF_EXPECT_STR(c.name[0], "a,b");
    RF_EXPECT_STR(c.name[1], "say \"hi\"");
    RF_EXPECT_INT(c.name_len[1], 8);
    RF_EXPECT_STR(c.name[2], "two\nlines");
    RF_EXPECT_STR(c.name[3], "\"");
    RF_EXPECT_STR(c.name[4], "plain");
    RF_EXPECT_DBL(c.flops[4], 9);
    RF_EXPECT_DBL(c.bytes[4], 10);
    RF_EXPECT_INT(c.row[2], 3);
    RF_EXPECT_INT(c.row[3], 4); /* a line break in a name does not count as a row */
    rf_ctx_free(ctx);
}

RF_TEST(csv_crlf_bom_blank_lines)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx,
              "\xEF\xBB\xBF"
              "name,flops,bytes\r\n\r\na,1,2\r\n   \r\n\nb,3,4",
              RF_OPS_CSV, &c, 2);
    RF_EXPECT_STR(c.name[0], "a");
    RF_EXPECT_STR(c.name[1], "b");
    RF_EXPECT_DBL(c.bytes[1], 4);
    RF_EXPECT_INT(c.row[1], 2); /* blank lines are not rows */
    EXPECT_OK(ctx,
              "\xEF\xBB\xBF"
              "name,flops,bytes\r\n\"x\r\ny\",1,2\r\n",
              RF_OPS_AUTO, &c, 1);
    RF_EXPECT_STR(c.name[0], "x\r\ny");
    rf_ctx_free(ctx);
}

RF_TEST(csv_header_synonym_order_case)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx, " Memory_Bytes , FLOPS ,\"Name\"\n100,200,gemm\n", RF_OPS_CSV, &c, 1);
    RF_EXPECT_STR(c.name[0], "gemm");
    RF_EXPECT_DBL(c.flops[0], 200);
    RF_EXPECT_DBL(c.bytes[0], 100);
    EXPECT_OK(ctx, "bytes,name,flops\n7,x,8\n", RF_OPS_CSV, &c, 1);
    RF_EXPECT_DBL(c.bytes[0], 7);
    RF_EXPECT_DBL(c.flops[0], 8);
    rf_ctx_free(ctx);
}

RF_TEST(csv_spaces_and_numbers)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx,
              HDR "  my op  , 1e12 ,\t4096\t\n"
                  "b,1.5,0.25\n"
                  "c,+3,-0\n"
                  "d,123456789012345678901234567890,1E-3\n"
                  "e,  \" 5 \" ,0\n"
                  "\" keep \",0,0\n",
              RF_OPS_CSV, &c, 6);
    RF_EXPECT_STR(c.name[0], "my op"); /* unquoted names are trimmed */
    RF_EXPECT_DBL(c.flops[0], 1e12);
    RF_EXPECT_DBL(c.bytes[0], 4096);
    RF_EXPECT_DBL(c.flops[1], 1.5);
    RF_EXPECT_DBL(c.bytes[1], 0.25);
    RF_EXPECT_DBL(c.flops[2], 3);
    RF_EXPECT_DBL(c.bytes[2], 0);
    RF_EXPECT(!signbit(c.bytes[2])); /* -0 is plain zero */
    RF_EXPECT_DBL(c.flops[3], 1.2345678901234568e29);
    RF_EXPECT_DBL(c.bytes[3], 1e-3);
    RF_EXPECT_DBL(c.flops[4], 5);       /* ... and so are quoted numbers */
    RF_EXPECT_STR(c.name[5], " keep "); /* quoted names are kept as written */
    rf_ctx_free(ctx);
}

RF_TEST(csv_name_limits)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    static char text[3 * RF__OPS_NAME_MAX];
    size_t len = 0;
    len += (size_t)snprintf(text, sizeof text, HDR);
    memset(text + len, 'n', RF__OPS_NAME_MAX);
    len += RF__OPS_NAME_MAX;
    memcpy(text + len, ",1,2\n", 6);
    EXPECT_OK(ctx, text, RF_OPS_CSV, &c, 1);
    RF_EXPECT_INT(c.name_len[0], RF__OPS_NAME_MAX);
    memcpy(text + len, "n,1,2\n", 7);
    EXPECT_ERR(text, RF_OPS_CSV, RF_RANGE, "row 1, field 'name' is longer than 4096 bytes");
    /* Quoted with escapes: 2048 "" pairs are 4096 bytes unescaped; one more is too long. */
    len = (size_t)snprintf(text, sizeof text, HDR "\"");
    for (int i = 0; i < RF__OPS_NAME_MAX / 2; i++) text[len++] = '"', text[len++] = '"';
    memcpy(text + len, "\",1,2\n", 7);
    EXPECT_OK(ctx, text, RF_OPS_CSV, &c, 1);
    RF_EXPECT_INT(c.name_len[0], RF__OPS_NAME_MAX / 2);
    len = (size_t)snprintf(text, sizeof text, HDR "\"");
    for (int i = 0; i < RF__OPS_NAME_MAX + 1; i++) text[len++] = '"', text[len++] = '"';
    memcpy(text + len, "\",1,2\n", 7);
    EXPECT_ERR(text, RF_OPS_CSV, RF_RANGE, "is longer than 4096 bytes");
    /* Valid UTF-8 of every length. */
    EXPECT_OK(ctx, HDR "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80,1,2\n", RF_OPS_CSV, &c, 1);
    rf_ctx_free(ctx);
}

/* ---- refused CSV ----------------------------------------------------------------------------- */

RF_TEST(csv_empty_input)
{
    EXPECT_ERR_AT("", RF_OPS_CSV, RF_FORMAT, "no operations: the input is empty", 0);
    EXPECT_ERR("\n\r\n  \n", RF_OPS_AUTO, RF_FORMAT, "no operations: the input is empty");
    EXPECT_ERR_AT("\xEF\xBB\xBF", RF_OPS_AUTO, RF_FORMAT, "no operations", 3);
}

RF_TEST(csv_header_only)
{
    EXPECT_ERR_AT(HDR, RF_OPS_CSV, RF_FORMAT,
                  "no operations: the header is not followed by any row", 17);
    EXPECT_ERR("name,flops,bytes", RF_OPS_AUTO, RF_FORMAT, "no operations");
    EXPECT_ERR(HDR "\n\n", RF_OPS_AUTO, RF_FORMAT, "no operations");
}

RF_TEST(csv_unknown_column)
{
    EXPECT_ERR_AT("name,flops,bytes,latency\na,1,2,3\n", RF_OPS_CSV, RF_FORMAT,
                  "header: unknown column 'latency'", 17);
    EXPECT_ERR("name,flops,bytes,time,time_s\n", RF_OPS_CSV, RF_FORMAT,
               "duplicate column 'time_s' (same as 'time')");
    EXPECT_ERR("name,flop,bytes\n", RF_OPS_CSV, RF_FORMAT, "unknown column 'flop'");
    EXPECT_ERR("name,,flops,bytes\n", RF_OPS_CSV, RF_FORMAT, "header, column 2 has no name");
}

RF_TEST(csv_missing_column)
{
    EXPECT_ERR_AT("name,flops\na,1\n", RF_OPS_CSV, RF_FORMAT, "header: missing column 'bytes'", 0);
    EXPECT_ERR("flops,bytes\n1,2\n", RF_OPS_CSV, RF_FORMAT, "missing column 'name'");
    EXPECT_ERR("bytes,name\n1,x\n", RF_OPS_CSV, RF_FORMAT, "missing column 'flops'");
}

RF_TEST(csv_duplicate_column)
{
    EXPECT_ERR_AT("name,flops,bytes,flops\n", RF_OPS_CSV, RF_FORMAT,
                  "header: duplicate column 'flops'", 17);
    EXPECT_ERR("name,flops,bytes,memory_bytes\n", RF_OPS_CSV, RF_FORMAT,
               "duplicate column 'memory_bytes' (same as 'bytes')");
    EXPECT_ERR("NAME,name\n", RF_OPS_CSV, RF_FORMAT, "duplicate column 'name'");
}

RF_TEST(csv_field_count)
{
    EXPECT_ERR_AT(HDR "a,1,2\nb,3,4\nc,5\n", RF_OPS_CSV, RF_FORMAT,
                  "row 3: 2 fields, the header has 3", 29);
    EXPECT_ERR(HDR "a\n", RF_OPS_CSV, RF_FORMAT, "row 1: 1 field, the header has 3");
    EXPECT_ERR(HDR "a,1,2,3\n", RF_OPS_CSV, RF_FORMAT, "row 1: 4 fields, the header has 3");
    EXPECT_ERR(HDR "a,1,2,\n", RF_OPS_CSV, RF_FORMAT, "row 1: 4 fields, the header has 3");
}

RF_TEST(csv_bad_numbers)
{
    EXPECT_ERR_AT(HDR "a,1,2\nb,1,2\nc,1,2\nd,nan,2\n", RF_OPS_CSV, RF_FORMAT,
                  "row 4, field 'flops': \"nan\" is not a number", 37);
    EXPECT_ERR(HDR "a,abc,2\n", RF_OPS_CSV, RF_FORMAT,
               "row 1, field 'flops': \"abc\" is not a number");
    EXPECT_ERR(HDR "a,1,NaN\n", RF_OPS_CSV, RF_FORMAT, "field 'bytes': \"NaN\" is not a number");
    EXPECT_ERR(HDR "a,inf,2\n", RF_OPS_CSV, RF_FORMAT, "\"inf\" is not a finite number");
    EXPECT_ERR(HDR "a,-Infinity,2\n", RF_OPS_CSV, RF_FORMAT,
               "\"-Infinity\" is not a finite number");
    EXPECT_ERR(HDR "a,0x10,2\n", RF_OPS_CSV, RF_FORMAT,
               "\"0x10\" is not a decimal number (hexadecimal is not accepted)");
    EXPECT_ERR(HDR "a,1e400,2\n", RF_OPS_CSV, RF_RANGE,
               "field 'flops': \"1e400\" is out of range (overflows a double)");
    EXPECT_ERR_AT(HDR "a,1,2\nb,1,2\nc,1,2\nd,1,2\ne,1,-3\n", RF_OPS_CSV, RF_RANGE,
                  "row 5, field 'bytes': \"-3\" is negative", 45);
    EXPECT_ERR("name,flops,memory_bytes\na,1,-3\n", RF_OPS_CSV, RF_RANGE,
               "field 'memory_bytes': \"-3\" is negative");
    EXPECT_ERR(HDR "a,,2\n", RF_OPS_CSV, RF_FORMAT, "row 1, field 'flops' is empty");
    EXPECT_ERR(HDR "a,1 2,2\n", RF_OPS_CSV, RF_FORMAT, "\"1 2\" is not a number");
    EXPECT_ERR(HDR "a,\"1\"\"\",2\n", RF_OPS_CSV, RF_FORMAT, "is not a number");
    EXPECT_ERR(HDR "a,1e,2\n", RF_OPS_CSV, RF_FORMAT, "\"1e\" is not a number");
    EXPECT_ERR(HDR "a,\"\x01\xff\",2\n", RF_OPS_CSV, RF_FORMAT, "\"\\x01\\xff\" is not a number");
    char longnum[400];
    size_t n = (size_t)snprintf(longnum, sizeof longnum, HDR "a,");
    memset(longnum + n, '1', 200);
    memcpy(longnum + n + 200, ",2\n", 4);
    EXPECT_ERR(longnum, RF_OPS_CSV, RF_FORMAT, "is too long to be a number");
}

RF_TEST(csv_quote_errors)
{
    EXPECT_ERR_AT(HDR "a,1,2\n\"b,1,2\nc,3,4\n", RF_OPS_CSV, RF_FORMAT,
                  "row 2: unterminated quote (opened at byte 23)", 23);
    EXPECT_ERR("\"name,flops,bytes\n", RF_OPS_CSV, RF_FORMAT, "header: unterminated quote");
    EXPECT_ERR_AT(HDR "\"a\"b,1,2\n", RF_OPS_CSV, RF_FORMAT,
                  "row 1, field 'name': text after the closing quote", 20);
    EXPECT_ERR(HDR "a,\"1\"x,2\n", RF_OPS_CSV, RF_FORMAT, "field 'flops': text after the closing");
    EXPECT_ERR_AT(HDR "a\"b,1,2\n", RF_OPS_CSV, RF_FORMAT, "row 1, field 'name': a quote inside",
                  18);
    EXPECT_ERR_AT(HDR "a,1,2\rb,3,4\n", RF_OPS_CSV, RF_FORMAT,
                  "row 1: a carriage return not followed by a line feed", 22);
}

RF_TEST(csv_nul_byte)
{
    static const char text[] = HDR "a\0b,1,2\n";
    EXPECT_ERR_N(text, sizeof text - 1, RF_OPS_CSV, RF_FORMAT, "NUL byte at byte 18", 18);
    EXPECT_ERR_N(text, sizeof text - 1, RF_OPS_AUTO, RF_FORMAT, "NUL byte", 18);
    EXPECT_ERR_N("\0", 1, RF_OPS_AUTO, RF_FORMAT, "NUL byte at byte 0", 0);
}

RF_TEST(csv_invalid_utf8)
{
    EXPECT_ERR_AT(HDR "ab\xff,1,2\n", RF_OPS_CSV, RF_FORMAT,
                  "row 1, field 'name' is not valid UTF-8 (byte 19)", 19);
    EXPECT_ERR(HDR "\xC0\xAF,1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8");     /* overlong */
    EXPECT_ERR(HDR "\xE0\x80\xAF,1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8"); /* overlong */
    EXPECT_ERR(HDR "\xED\xA0\x80,1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8"); /* surrogate */
    EXPECT_ERR(HDR "\xF4\x90\x80\x80,1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8");
    EXPECT_ERR(HDR "\"x\xC3\",1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8"); /* truncated */
    EXPECT_ERR(HDR "\x80,1,2\n", RF_OPS_CSV, RF_FORMAT, "not valid UTF-8"); /* lone continuation */
}

RF_TEST(csv_empty_name)
{
    EXPECT_ERR_AT(HDR "a,1,2\n,1,2\n", RF_OPS_CSV, RF_FORMAT, "row 2, field 'name' is empty", 23);
    EXPECT_ERR(HDR "\"\",1,2\n", RF_OPS_CSV, RF_FORMAT, "row 1, field 'name' is empty");
    EXPECT_ERR(HDR "   ,1,2\n", RF_OPS_CSV, RF_FORMAT, "row 1, field 'name' is empty");
}

/* ---- valid JSON ------------------------------------------------------------------------------ */

RF_TEST(json_array_form)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx,
              "[{\"name\": \"conv1\", \"flops\": 118013952, \"bytes\": 2408448},\n"
              " {\"bytes\": 4e6, \"flops\": 1e9, \"name\": \"gemm \\\"big\\\" \\u00e9\"},\n"
              " {\"name\": \"x\", \"flops\": 0.5, \"memory_bytes\": 1e12}]\n",
              RF_OPS_JSON, &c, 3);
    RF_EXPECT_STR(c.name[0], "conv1");
    RF_EXPECT_DBL(c.flops[0], 118013952);
    RF_EXPECT_DBL(c.bytes[0], 2408448);
    RF_EXPECT_STR(c.name[1], "gemm \"big\" \xC3\xA9");
    RF_EXPECT_DBL(c.flops[1], 1e9);
    RF_EXPECT_DBL(c.bytes[1], 4e6);
    RF_EXPECT_DBL(c.flops[2], 0.5);
    RF_EXPECT_DBL(c.bytes[2], 1e12);
    RF_EXPECT_INT(c.row[2], 3);
    rf_ctx_free(ctx);
}

RF_TEST(json_object_form)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx, "{\"schema\": 1, \"ops\": [{\"name\":\"a\",\"flops\":1,\"bytes\":2}]}",
              RF_OPS_AUTO, &c, 1);
    RF_EXPECT_STR(c.name[0], "a");
    EXPECT_OK(ctx,
              "\xEF\xBB\xBF {\"ops\": [{\"name\":\"a\",\"flops\":1,\"bytes\":2},"
              "{\"name\":\"b\",\"flops\":3,\"bytes\":4}], \"sch\\u0065ma\": 1}\n\n",
              RF_OPS_AUTO, &c, 2);
    RF_EXPECT_STR(c.name[1], "b");
    rf_ctx_free(ctx);
}

RF_TEST(json_numbers)
{
    rf_ctx *ctx = new_ctx();
    collect c;
    EXPECT_OK(ctx,
              "[{\"name\":\"a\",\"flops\":100000000000000000000,\"bytes\":-0},"
              "{\"name\":\"b\",\"flops\":1.5e3,\"bytes\":0.25},"
              "{\"name\":\"c\",\"flops\":1e-400,\"bytes\":9007199254740993}]",
              RF_OPS_JSON, &c, 3);
    RF_EXPECT_DBL(c.flops[0], 1e20); /* beyond int64: read as a real */
    RF_EXPECT_DBL(c.bytes[0], 0);
    RF_EXPECT(!signbit(c.bytes[0]));
    RF_EXPECT_DBL(c.flops[1], 1500);
    RF_EXPECT_DBL(c.bytes[1], 0.25);
    RF_EXPECT_DBL(c.flops[2], 0);
    RF_EXPECT_DBL(c.bytes[2], 9007199254740992.0);
    rf_ctx_free(ctx);
}

/* ---- refused JSON ---------------------------------------------------------------------------- */

#define OP "{\"name\":\"a\",\"flops\":1,\"bytes\":2}"

RF_TEST(json_trailing_data)
{
    EXPECT_ERR_AT("[" OP "] x", RF_OPS_JSON, RF_FORMAT,
                  "trailing data after the JSON array at byte 35", 35);
    EXPECT_ERR("[" OP "]]", RF_OPS_JSON, RF_FORMAT, "trailing data after the JSON array");
    EXPECT_ERR("{\"ops\":[" OP "]} {}", RF_OPS_JSON, RF_FORMAT,
               "trailing data after the JSON object");
    EXPECT_ERR_AT("[" OP " " OP "]", RF_OPS_JSON, RF_FORMAT,
                  "expected ',' or ']' after ops[0], found '{'", 34);
    EXPECT_ERR("[" OP ",]", RF_OPS_JSON, RF_FORMAT, "ops[1]: expected an object, found ']'");
    EXPECT_ERR("[" OP, RF_OPS_JSON, RF_FORMAT, "found the end of the input");
    EXPECT_ERR("[" OP ",", RF_OPS_JSON, RF_FORMAT, "ops[1]: expected an object, found the end");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1", RF_OPS_JSON, RF_FORMAT, "ops[0]: invalid JSON");
}

RF_TEST(json_duplicate_key)
{
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1,\"flops\":2,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: duplicate key");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1,\"bytes\":2,\"memory_bytes\":2}]", RF_OPS_JSON,
               RF_FORMAT, "ops[0]: keys 'bytes' and 'memory_bytes' both given");
    EXPECT_ERR("{\"ops\":[" OP "],\"ops\":[" OP "]}", RF_OPS_JSON, RF_FORMAT,
               "duplicate top-level key 'ops'");
}

/* `depth` opening brackets after `prefix`, nothing closed. */
static char *nested(const char *prefix, size_t depth)
{
    size_t k = strlen(prefix);
    char *s = malloc(k + depth + 1);
    if (!s) abort();
    memcpy(s, prefix, k);
    memset(s + k, '[', depth);
    s[k + depth] = '\0';
    return s;
}

RF_TEST(json_deep_nesting)
{
    char *s = nested("", 1000000);
    EXPECT_ERR_AT(s, RF_OPS_AUTO, RF_FORMAT, "ops[0]: expected an object, found '['", 1);
    free(s);
    s = nested("[{\"name\":", 1000000);
    EXPECT_ERR(s, RF_OPS_JSON, RF_FORMAT, "ops[0]: nested too deeply");
    free(s);
    s = nested("{\"schema\":", 1000000);
    EXPECT_ERR(s, RF_OPS_JSON, RF_FORMAT, "nested too deeply");
    free(s);
    s = nested("{\"ops\":", 1000000);
    EXPECT_ERR(s, RF_OPS_JSON, RF_FORMAT, "ops[0]: expected an object, found '['");
    free(s);
    size_t n = 1000000;
    s = malloc(n + 1);
    RF_REQUIRE(s);
    memset(s, '{', n);
    s[n] = '\0';
    EXPECT_ERR(s, RF_OPS_JSON, RF_FORMAT, "expected a key string, found '{'");
    free(s);
}

RF_TEST(json_wrong_types)
{
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":\"12\",\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0], key 'flops': \"12\" is a string, not a number");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1,\"memory_bytes\":null}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0], key 'memory_bytes' must be a number, not null");
    EXPECT_ERR("[{\"name\":7,\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0], key 'name' must be a string, not a number");
    EXPECT_ERR("[{\"name\":\"\",\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0], key 'name' is empty");
    EXPECT_ERR_AT("[" OP ", [1,2]]", RF_OPS_JSON, RF_FORMAT,
                  "ops[1]: expected an object, found '['", 35);
    EXPECT_ERR("[" OP ", 3]", RF_OPS_JSON, RF_FORMAT, "ops[1]: expected an object, found '3'");
    EXPECT_ERR("\"ops\"", RF_OPS_JSON, RF_FORMAT, "expected a JSON array or object, found '\\\"'");
}

RF_TEST(json_keys)
{
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1,\"bytes\":2,\"time\":3}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: unknown key 'time'");
    EXPECT_ERR("[" OP ",{\"name\":\"a\",\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[1]: missing key 'flops'");
    EXPECT_ERR("[{\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT, "missing key 'name'");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1}]", RF_OPS_JSON, RF_FORMAT, "missing key 'bytes'");
}

RF_TEST(json_empty)
{
    EXPECT_ERR_AT("[]", RF_OPS_JSON, RF_FORMAT, "no operations: the array is empty", 0);
    EXPECT_ERR(" [ \n ] ", RF_OPS_AUTO, RF_FORMAT, "no operations: the array is empty");
    EXPECT_ERR("{\"ops\": []}", RF_OPS_AUTO, RF_FORMAT, "no operations: the array is empty");
    EXPECT_ERR("{}", RF_OPS_AUTO, RF_FORMAT, "no operations: the top-level object has no 'ops'");
    EXPECT_ERR("{\"schema\":1}", RF_OPS_AUTO, RF_FORMAT, "has no 'ops' key");
    EXPECT_ERR_AT("  ", RF_OPS_JSON, RF_FORMAT, "no operations: the input is empty", 2);
}

RF_TEST(json_numbers_refused)
{
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":NaN,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: NaN and Infinity are not JSON numbers");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":-Infinity,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "NaN and Infinity are not JSON numbers");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1e400,\"bytes\":2}]", RF_OPS_JSON, RF_RANGE,
               "ops[0]: number out of range");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":1,\"bytes\":-3}]", RF_OPS_JSON, RF_RANGE,
               "ops[0], key 'bytes': -3 is negative");
    EXPECT_ERR("[{\"name\":\"a\",\"flops\":0x10,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: invalid JSON");
}

RF_TEST(json_top_level_object)
{
    EXPECT_ERR("{\"ops\":[" OP "],\"machine\":{}}", RF_OPS_JSON, RF_FORMAT,
               "unknown top-level key 'machine'");
    EXPECT_ERR("{\"ops\":[" OP "],\"schema\":2}", RF_OPS_JSON, RF_UNSUPPORTED,
               "schema 2 is not supported");
    EXPECT_ERR("{\"schema\":\"1\",\"ops\":[" OP "]}", RF_OPS_JSON, RF_FORMAT,
               "key 'schema' must be the integer 1");
    EXPECT_ERR("{\"ops\":{}}", RF_OPS_JSON, RF_FORMAT, "key 'ops' must be an array, found '{'");
    EXPECT_ERR("{\"ops\" [" OP "]}", RF_OPS_JSON, RF_FORMAT, "expected ':' after key 'ops'");
    EXPECT_ERR("{\"ops\":[" OP "] \"schema\":1}", RF_OPS_JSON, RF_FORMAT,
               "expected ',' or '}' in the top-level object");
    EXPECT_ERR("{\"ops\":[" OP "]", RF_OPS_JSON, RF_FORMAT, "found the end of the input");
    EXPECT_ERR("{ops:[]}", RF_OPS_JSON, RF_FORMAT, "expected a key string, found 'o'");
    EXPECT_ERR("{\"o\\x\":1}", RF_OPS_JSON, RF_FORMAT, "top-level object: invalid JSON");
}

RF_TEST(json_text_errors)
{
    static const char nul[] = "[{\"name\":\"a\0\",\"flops\":1,\"bytes\":2}]";
    EXPECT_ERR_N(nul, sizeof nul - 1, RF_OPS_JSON, RF_FORMAT, "NUL byte at byte 11", 11);
    EXPECT_ERR("[{\"name\":\"a\\u0000\",\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: invalid JSON");
    EXPECT_ERR("[{\"name\":\"a\xff\",\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "ops[0]: invalid JSON (unable to decode byte 0xff");
    EXPECT_ERR("[{\"name\":\"\xED\xA0\x80\",\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "invalid JSON");
    EXPECT_ERR("[{\"name\":\"\\ud800\",\"flops\":1,\"bytes\":2}]", RF_OPS_JSON, RF_FORMAT,
               "invalid JSON");
}

/* ---- streaming, callbacks, memory ------------------------------------------------------------ */

typedef struct tally {
    uint64_t rows;
    double flops;
    uint64_t stop_at; /* return RF_INTERNAL at this row (0: never) */
} tally;

static rf_status tally_fn(void *user, const rf_op_row *r)
{
    tally *t = user;
    if (r->name_len == 0 || !(r->flops >= 0) || !(r->bytes >= 0)) return RF_INTERNAL;
    t->rows++;
    t->flops += r->flops;
    if (t->stop_at && r->row == t->stop_at) return RF_INTERNAL;
    return RF_OK;
}

/* A CSV of n rows "op<i>,<i>,<2i>" in a malloc'd buffer. */
static char *make_csv(uint64_t n, size_t *size)
{
    size_t cap = 64 + n * 48, len = 0;
    char *s = malloc(cap);
    if (!s) abort();
    len += (size_t)snprintf(s, cap, HDR);
    for (uint64_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "op%llu,%llu,%llu\n", (unsigned long long)i,
                                (unsigned long long)i, (unsigned long long)(2 * i));
    *size = len;
    return s;
}

RF_TEST(csv_streaming_200k)
{
    const uint64_t n = 200000;
    size_t size;
    char *s = make_csv(n, &size);
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    uint64_t allocs = rf_ctx_alloc_count(ctx);
    rf_status st = rf_ops_parse(ctx, s, size, RF_OPS_AUTO, tally_fn, &t);
    RF_EXPECT_INT(st, RF_OK);
    RF_EXPECT_INT(t.rows, n);
    RF_EXPECT_DBL(t.flops, (double)(n * (n - 1) / 2));  /* exact: every partial sum < 2^53 */
    RF_EXPECT_INT(rf_ctx_alloc_count(ctx) - allocs, 0); /* no allocation per row */
    rf_ctx_free(ctx);
    free(s);
}

RF_TEST(json_streaming)
{
    const uint64_t n = 20000;
    size_t cap = 64 + n * 64, len = 0;
    char *s = malloc(cap);
    RF_REQUIRE(s);
    len += (size_t)snprintf(s, cap, "{\"ops\":[");
    for (uint64_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"name\":\"op%llu\",\"flops\":%llu,\"bytes\":1}", i ? "," : "",
                                (unsigned long long)i, (unsigned long long)i);
    len += (size_t)snprintf(s + len, cap - len, "],\"schema\":1}");
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    RF_EXPECT_INT(rf_ops_parse(ctx, s, len, RF_OPS_AUTO, tally_fn, &t), RF_OK);
    RF_EXPECT_INT(t.rows, n);
    RF_EXPECT_DBL(t.flops, (double)(n * (n - 1) / 2));
    rf_ctx_free(ctx);
    free(s);
}

RF_TEST(callback_error_stops)
{
    rf_ctx *ctx = new_ctx();
    size_t size;
    char *s = make_csv(100, &size);
    tally t = {0, 0, 7};
    RF_EXPECT_INT(rf_ops_parse(ctx, s, size, RF_OPS_CSV, tally_fn, &t), RF_INTERNAL);
    RF_EXPECT_INT(t.rows, 7);
    free(s);
    t = (tally){0, 0, 2};
    RF_EXPECT_INT(rf_ops_parse(ctx, "[" OP "," OP "," OP "]", strlen("[" OP "," OP "," OP "]"),
                               RF_OPS_JSON, tally_fn, &t),
                  RF_INTERNAL);
    RF_EXPECT_INT(t.rows, 2);
    /* Rows before an error are delivered (streaming); the error still comes back. */
    t = (tally){0, 0, 0};
    RF_EXPECT_INT(rf_ops_parse(ctx, HDR "a,1,2\nb,x,2\n", strlen(HDR "a,1,2\nb,x,2\n"), RF_OPS_CSV,
                               tally_fn, &t),
                  RF_FORMAT);
    RF_EXPECT_INT(t.rows, 1);
    rf_ctx_free(ctx);
}

RF_TEST(usage_errors)
{
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    RF_EXPECT_INT(rf_ops_parse(NULL, "x", 1, RF_OPS_CSV, tally_fn, &t), RF_USAGE);
    RF_EXPECT_INT(rf_ops_parse(ctx, "x", 1, RF_OPS_CSV, NULL, &t), RF_USAGE);
    RF_EXPECT_INT(rf_ops_parse(ctx, NULL, 3, RF_OPS_CSV, tally_fn, &t), RF_USAGE);
    RF_EXPECT_INT(rf_ops_parse(ctx, "x", 1, (rf_ops_format)7, tally_fn, &t), RF_USAGE);
    RF_EXPECT_INT(rf_ops_parse(ctx, NULL, 0, RF_OPS_CSV, tally_fn, &t), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "no operations");
    RF_EXPECT_INT(rf_ops_read_file(ctx, NULL, RF_OPS_AUTO, tally_fn, &t), RF_USAGE);
    rf_ctx_free(ctx);
}

/* Parse with the n-th allocation and all after it failing, for n = 1, 2, ... until it succeeds. */
static void oom_sweep(const char *text, rf_ops_format fmt)
{
    for (uint64_t n = 1; n < 1000; n++) {
        rf_ctx *ctx = new_ctx();
        tally t = {0, 0, 0};
        rf_ctx_fail_alloc_after(ctx, n, 1);
        rf_status st = rf_ops_parse(ctx, text, strlen(text), fmt, tally_fn, &t);
        if (st != RF_OK && st != RF_NOMEM)
            RF_FAIL_AT("n=%llu: %s", (unsigned long long)n, rf_ctx_errmsg(ctx));
        if (st == RF_NOMEM) RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "out of memory");
        rf_ctx_free(ctx);
        if (st == RF_OK) {
            RF_EXPECT_INT(t.rows, 3);
            return;
        }
    }
    RF_FAIL_AT("never succeeded");
}

RF_TEST(oom_sweep)
{
    oom_sweep(HDR "\"a\"\"b\",1,2\n\"c\"\"\",3,4\nplain,5,6\n", RF_OPS_CSV);
    oom_sweep("{\"ops\":[" OP "," OP "," OP "],\"schema\":1}", RF_OPS_AUTO);
}

/* ---- files ----------------------------------------------------------------------------------- */

/* Write text to a file named `leaf` in the build tree; returns the path (static buffer). */
static const char *write_file(const char *leaf, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/test_ops_%s", RF_BINARY_DIR, leaf);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fputs(text, f);
    fclose(f);
    return path;
}

RF_TEST(read_file_formats)
{
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    const char *p = write_file("a.CSV", HDR "a,1,2\nb,3,4\n");
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_OK);
    RF_EXPECT_INT(t.rows, 2);
    unlink(p);
    t = (tally){0, 0, 0};
    p = write_file("b.json", "[" OP "]");
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_OK);
    RF_EXPECT_INT(t.rows, 1);
    unlink(p);
    t = (tally){0, 0, 0};
    p = write_file("c.txt", "[" OP "," OP "]"); /* unknown extension: sniffed */
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_OK);
    RF_EXPECT_INT(t.rows, 2);
    /* An explicit format wins over the extension. */
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_CSV, tally_fn, &t), RF_FORMAT);
    unlink(p);
    p = write_file("d.json", HDR "a,1,2\n"); /* .json: read as JSON, not sniffed */
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "expected a JSON array or object");
    unlink(p);
    rf_ctx_free(ctx);
}

RF_TEST(read_file_errors)
{
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    char want[600];
    const char *p = write_file("e.csv", HDR "a,1,2\nb,1,2\nc,abc,2\n");
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_FORMAT);
    snprintf(want, sizeof want, "%s: row 3, field 'flops': \"abc\" is not a number", p);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), want);
    RF_EXPECT_INT(rf_ctx_error_offset(ctx), 31);
    unlink(p);
    p = write_file("empty.csv", "");
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_FORMAT);
    snprintf(want, sizeof want, "%s: no operations: the input is empty", p);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), want);
    unlink(p);
    RF_EXPECT_INT(rf_ops_read_file(ctx, RF_BINARY_DIR "/no/such.csv", RF_OPS_AUTO, tally_fn, &t),
                  RF_IO);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), RF_BINARY_DIR "/no/such.csv: no such file or directory");
    RF_EXPECT_INT(rf_ops_read_file(ctx, RF_BINARY_DIR, RF_OPS_AUTO, tally_fn, &t), RF_IO);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), RF_BINARY_DIR ": is a directory");
    /* A callback's failure is not prefixed with the path. */
    p = write_file("f.csv", HDR "a,1,2\nb,1,2\n");
    t = (tally){0, 0, 1};
    rf_ctx_clear_error(ctx);
    RF_EXPECT_INT(rf_ops_read_file(ctx, p, RF_OPS_AUTO, tally_fn, &t), RF_INTERNAL);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), "");
    unlink(p);
    rf_ctx_free(ctx);
}

/* Make standard input a pipe holding `text` (this test's process only). */
static void stdin_from(const char *text)
{
    int fds[2];
    if (pipe(fds) != 0) abort();
    size_t n = strlen(text);
    if (write(fds[1], text, n) != (ssize_t)n) abort();
    close(fds[1]);
    if (dup2(fds[0], STDIN_FILENO) < 0) abort();
    close(fds[0]);
}

RF_TEST(read_stdin)
{
    rf_ctx *ctx = new_ctx();
    tally t = {0, 0, 0};
    stdin_from(HDR "a,1,2\nb,3,4\nc,5,6\n");
    RF_EXPECT_INT(rf_ops_read_file(ctx, "-", RF_OPS_AUTO, tally_fn, &t), RF_OK);
    RF_EXPECT_INT(t.rows, 3);
    RF_EXPECT_DBL(t.flops, 9);
    stdin_from("[" OP ",\n");
    RF_EXPECT_INT(rf_ops_read_file(ctx, "-", RF_OPS_AUTO, tally_fn, &t), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "standard input: ops[1]: expected an object");
    /* Out of memory while reading standard input. */
    stdin_from(HDR "a,1,2\n");
    rf_ctx_fail_alloc_after(ctx, 1, 1);
    RF_EXPECT_INT(rf_ops_read_file(ctx, "-", RF_OPS_AUTO, tally_fn, &t), RF_NOMEM);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), "standard input: out of memory");
    rf_ctx_fail_alloc_after(ctx, 0, 0);
    rf_ctx_free(ctx);
}

RF_TEST(map_file_limits)
{
    rf_ctx *ctx = new_ctx();
    rf__map map;
    const char *p = write_file("g.csv", "0123456789");
    RF_EXPECT_INT(rf__map_file(ctx, p, 10, &map), RF_OK);
    RF_EXPECT_INT(map.size, 10);
    RF_EXPECT(memcmp(map.data, "0123456789", 10) == 0);
    rf__unmap_file(&map);
    RF_EXPECT_INT(rf__map_file(ctx, p, 9, &map), RF_RANGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "g.csv: too large (the limit is 9 bytes)");
    RF_EXPECT(map.data != NULL && map.size == 0);
    rf__unmap_file(&map); /* harmless on a failed map */
    unlink(p);
    stdin_from("0123456789");
    RF_EXPECT_INT(rf__map_file(ctx, "-", 9, &map), RF_RANGE);
    RF_EXPECT_STR(rf_ctx_errmsg(ctx), "standard input: too large (the limit is 9 bytes)");
    stdin_from("0123456789");
    RF_EXPECT_INT(rf__map_file(ctx, "-", 10, &map), RF_OK);
    RF_EXPECT_INT(map.size, 10);
    rf__unmap_file(&map);
    /* a character device is not read (it could be /dev/zero): only regular files are */
    RF_EXPECT_INT(rf__map_file(ctx, "/dev/null", 10, &map), RF_IO);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "/dev/null: is a character device");
    RF_EXPECT(map.data != NULL && map.size == 0);
    rf__unmap_file(&map);
    RF_EXPECT_INT(rf__map_file(ctx, "", 10, &map), RF_USAGE);
    rf_ctx_free(ctx);
}

/* ---- the shared cursor ----------------------------------------------------------------------- */

RF_TEST(cursor_reads)
{
    static const uint8_t b[] = {0x01, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 0xEF, 0xCD, 0xAB,
                                0x89, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0xC0, 0x3F, 0x99};
    rf__cursor c;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    rf__cursor_init(&c, b, sizeof b);
    RF_EXPECT(rf__cursor_u8(&c, &u8) && u8 == 1);
    RF_EXPECT(rf__cursor_u16(&c, &u16) && u16 == 0x1234);
    RF_EXPECT(rf__cursor_u32(&c, &u32) && u32 == 0x12345678);
    RF_EXPECT(rf__cursor_u64(&c, &u64) && u64 == 0x0123456789ABCDEFull);
    RF_EXPECT(rf__cursor_f32(&c, &f) && f == 1.5f);
    RF_EXPECT_INT(rf__cursor_offset(&c), 19);
    RF_EXPECT(!rf__cursor_u16(&c, &u16)); /* one byte left: refused, cursor unchanged */
    RF_EXPECT(!rf__cursor_u64(&c, &u64));
    RF_EXPECT_INT(rf__cursor_offset(&c), 19);
    RF_EXPECT_INT(rf__cursor_peek(&c), 0x99);
    RF_EXPECT_INT(rf__cursor_peek_at(&c, 1), -1);
    RF_EXPECT(!rf__cursor_skip(&c, 2));
    RF_EXPECT(rf__cursor_u8(&c, &u8) && rf__cursor_eof(&c));
    RF_EXPECT_INT(rf__cursor_peek(&c), -1);
    rf__cursor_advance(&c); /* no-op at the end */
    RF_EXPECT_INT(rf__cursor_offset(&c), 20);
    rf__cursor_init(&c, " \t\r\n ab", 7);
    rf__cursor_skip_ws(&c);
    RF_EXPECT(!rf__cursor_expect(&c, 'b'));
    RF_EXPECT(rf__cursor_expect(&c, 'a'));
    RF_EXPECT(!rf__cursor_expect_bytes(&c, "bc", 2));
    RF_EXPECT(rf__cursor_expect_bytes(&c, "b", 1));
    rf__cursor_init(&c, NULL, 0);
    RF_EXPECT(rf__cursor_eof(&c) && rf__cursor_left(&c) == 0);
}

RF_TEST(utf8_and_excerpt)
{
    RF_EXPECT_INT(rf__utf8_check((const uint8_t *)"a\xC3\xA9\xE2\x82\xAC\xF4\x8F\xBF\xBF", 10), 10);
    RF_EXPECT_INT(rf__utf8_check((const uint8_t *)"ab\xC1\x81", 4), 2);
    RF_EXPECT_INT(rf__utf8_check((const uint8_t *)"\xF0\x8F\xBF\xBF", 4), 0); /* overlong */
    RF_EXPECT_INT(rf__utf8_check((const uint8_t *)"x\xEF\xBF", 3), 1);        /* truncated */
    RF_EXPECT_INT(rf__utf8_check((const uint8_t *)"\xF5\x80\x80\x80", 4), 0);
    char out[16];
    RF_EXPECT_STR(rf__excerpt(out, sizeof out, "a\"\n", 3, 40), "a\\\"\\x0a");
    RF_EXPECT_STR(rf__excerpt(out, sizeof out, "abcdefghijklmnopqrstuvwxyz", 26, 40),
                  "abcdefghijkl...");
    RF_EXPECT_STR(rf__excerpt(out, sizeof out, "abcdef", 6, 3), "abc...");
}
