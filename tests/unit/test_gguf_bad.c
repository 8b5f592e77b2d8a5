/* test_gguf_bad.c — the GGUF reader on hand-made images (tests/unit/gguf_build.h): a small valid
 * file in both byte orders, nested arrays walked on demand, every refusal with its status, its
 * message and its byte offset (truncation at every byte, counts of 2^63, strings past the end,
 * dims whose product overflows, unknown types, misaligned/outside/overlapping data, duplicates),
 * split sets, and an out-of-memory sweep. */
#include <stdint.h>
#include <unistd.h>

#include "gguf_build.h"
#include "rf_test.h"
#include "roofline/gguf.h"

static rf_ctx *new_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) abort();
    return ctx;
}

/* A valid image: 3 key/values (architecture, alignment, an array of strings), tensors "a" F32 [8]
 * at 0 and "b" Q8_0 [32 x 2] at 32; `extra` lets a test add a key/value (n_kv grows by one). */
static void make_valid(gb *b, int be, void (*extra)(gb *))
{
    memset(b, 0, sizeof *b);
    b->be = be;
    gb_header(b, 3, 2, extra ? 4 : 3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_u32(b, "general.alignment", 32);
    gb_str(b, "tokenizer.ggml.tokens");
    gb_u32(b, 9);
    gb_u32(b, 8);
    gb_u64(b, 3);
    gb_str(b, "<unk>");
    gb_str(b, "");
    gb_str(b, "hello");
    if (extra) extra(b);
    uint64_t da[1] = {8}, db[2] = {32, 2};
    gb_tensor(b, "a", 1, da, 0, 0);
    gb_tensor(b, "b", 2, db, 8, 32);
    gb_pad(b, 32);
    gb_zeros(b, 32 + 68);
}

static rf_status parse(rf_ctx *ctx, const gb *b, rf_gguf **g)
{
    rf_ctx_clear_error(ctx);
    return rf_gguf_parse(ctx, b->p, b->n, g);
}

RF_TEST(valid_little_and_big_endian)
{
    for (int be = 0; be < 2; be++) {
        gb b;
        make_valid(&b, be, NULL);
        rf_ctx *ctx = new_ctx();
        rf_gguf *g = NULL;
        RF_EXPECT_INT(parse(ctx, &b, &g), RF_OK);
        if (!g) RF_FAIL_AT("%s", rf_ctx_errmsg(ctx));
        if (g) {
            RF_EXPECT_INT(g->big_endian, be);
            RF_EXPECT_INT(g->n_tensors, 2);
            RF_EXPECT_INT(g->params, 8 + 64);
            RF_EXPECT_INT(g->weight_bytes, 32 + 68);
            RF_EXPECT_INT(g->tensors[1].dims[1], 2);
            RF_EXPECT_INT(g->tensors[1].offset, 32);
            uint64_t n = 0;
            RF_EXPECT_INT(rf_gguf_get_array_len(ctx, g, "tokenizer.ggml.tokens", &n), RF_OK);
            RF_EXPECT_INT(n, 3);
            rf_gguf_iter it;
            rf_gguf_value v;
            rf_gguf_array_iter(g, &rf_gguf_find(g, "tokenizer.ggml.tokens")->value, &it);
            RF_EXPECT(rf_gguf_array_next(&it, &v) && v.v.s.len == 5);
            RF_EXPECT(rf_gguf_array_next(&it, &v) && v.v.s.len == 0);
            RF_EXPECT(rf_gguf_array_next(&it, &v) && memcmp(v.v.s.ptr, "hello", 5) == 0);
            RF_EXPECT(!rf_gguf_array_next(&it, &v));
        }
        rf_gguf_free(g);
        rf_ctx_free(ctx);
        gb_free(&b);
    }
}

static void extra_nested(gb *b)
{
    gb_str(b, "x.nested"); /* [[1, 2], [3]] of INT16, then a u64 and an f64 later */
    gb_u32(b, 9);
    gb_u32(b, 9);
    gb_u64(b, 2);
    gb_u32(b, 3);
    gb_u64(b, 2);
    gb_uint(b, 1, 2);
    gb_uint(b, (uint16_t)-2, 2);
    gb_u32(b, 3);
    gb_u64(b, 1);
    gb_uint(b, 3, 2);
}

RF_TEST(nested_arrays_on_demand)
{
    gb b;
    make_valid(&b, 0, extra_nested);
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    RF_EXPECT_INT(parse(ctx, &b, &g), RF_OK);
    const rf_gguf_kv *kv = g ? rf_gguf_find(g, "x.nested") : NULL;
    RF_EXPECT(kv && kv->value.arr_type == RF_GGUF_ARRAY && kv->value.arr_count == 2);
    if (kv) {
        rf_gguf_iter it, in;
        rf_gguf_value v, e;
        rf_gguf_array_iter(g, &kv->value, &it);
        RF_EXPECT(rf_gguf_array_next(&it, &v) && v.arr_count == 2 && v.arr_type == RF_GGUF_I16);
        rf_gguf_array_iter(g, &v, &in);
        RF_EXPECT(rf_gguf_array_next(&in, &e) && e.v.i == 1);
        RF_EXPECT(rf_gguf_array_next(&in, &e) && e.v.i == -2);
        RF_EXPECT(rf_gguf_array_next(&it, &v) && v.arr_count == 1);
        RF_EXPECT(!rf_gguf_array_next(&it, &v));
    }
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    gb_free(&b);
}

RF_TEST(truncated_at_every_byte)
{
    gb b;
    make_valid(&b, 0, extra_nested);
    rf_ctx *ctx = new_ctx();
    size_t header = b.n - 100; /* data section: 100 bytes */
    for (size_t n = 0; n < b.n; n++) {
        uint8_t *copy = malloc(n ? n : 1);
        memcpy(copy, b.p, n);
        rf_gguf *g = NULL;
        rf_status st = rf_gguf_parse(ctx, copy, n, &g);
        if (st == RF_OK) RF_FAIL_AT("truncated to %zu bytes accepted", n);
        if (n >= 8 && n < header && !strstr(rf_ctx_errmsg(ctx), "truncated") &&
            !strstr(rf_ctx_errmsg(ctx), "past the end") && !strstr(rf_ctx_errmsg(ctx), "left"))
            RF_FAIL_AT("%zu bytes: %s", n, rf_ctx_errmsg(ctx));
        RF_EXPECT(rf_ctx_error_offset(ctx) >= 0 && (size_t)rf_ctx_error_offset(ctx) <= n);
        RF_EXPECT(g == NULL);
        free(copy);
    }
    rf_ctx_free(ctx);
    gb_free(&b);
}

/* One refused image: status, a piece of the message and the byte offset. */
static void expect_bad(gb *b, rf_status want, const char *msg, int64_t offset)
{
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    rf_status st = parse(ctx, b, &g);
    if (st != want) RF_FAIL_AT("status %d, want %d (%s)", (int)st, (int)want, rf_ctx_errmsg(ctx));
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), msg);
    if (offset >= 0) RF_EXPECT_INT(rf_ctx_error_offset(ctx), offset);
    RF_EXPECT(g == NULL);
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    gb_free(b);
}

/* Put a u32/u64 into an image at a byte offset (little-endian). */
static void poke(gb *b, size_t at, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) b->p[at + i] = (uint8_t)(v >> (8 * i));
}

RF_TEST(bad_header)
{
    gb b = {0};
    gb_raw(&b, "GGUX\3\0\0\0", 8);
    expect_bad(&b, RF_FORMAT, "magic at byte 0 is not 'GGUF'", 0);
    make_valid(&b, 0, NULL);
    poke(&b, 4, 1, 4);
    expect_bad(&b, RF_UNSUPPORTED, "GGUF version 1 at byte 4 is no longer supported", 4);
    make_valid(&b, 0, NULL);
    poke(&b, 4, 7, 4);
    expect_bad(&b, RF_UNSUPPORTED, "version 7 at byte 4 is not supported", 4);
    make_valid(&b, 0, NULL);
    poke(&b, 16, (uint64_t)1 << 63, 8);
    expect_bad(&b, RF_FORMAT, "key/value count 9223372036854775808 at byte 16 cannot fit", 16);
    make_valid(&b, 0, NULL);
    poke(&b, 8, (uint64_t)1 << 63, 8);
    expect_bad(&b, RF_FORMAT, "tensor count 9223372036854775808 at byte 8 cannot fit", 8);
}

RF_TEST(bad_key_values)
{
    gb b;
    make_valid(&b, 0, NULL);
    poke(&b, 24, 1000000, 8); /* first key's length */
    expect_bad(&b, RF_FORMAT, "key #0 at byte 24: string length 1000000 runs past the end", 24);
    /* duplicate key */
    b = (gb){0};
    gb_header(&b, 3, 0, 2);
    gb_kv_u32(&b, "a.b", 1);
    size_t second = b.n;
    gb_kv_u32(&b, "a.b", 2);
    expect_bad(&b, RF_FORMAT, "key 'a.b' at byte 43 appears twice", (int64_t)second);
    /* alignment not a power of two, or of the wrong type */
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_kv_u32(&b, "general.alignment", 48);
    expect_bad(&b, RF_FORMAT, "'general.alignment' at byte 24 must be a non-zero power of two", 24);
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_kv_str(&b, "general.alignment", "32");
    expect_bad(&b, RF_FORMAT, "(got STRING", 24);
    /* unknown value type, BOOL 2, unknown array element type, array count 2^62, deep nesting */
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_str(&b, "k");
    gb_u32(&b, 13);
    gb_u32(&b, 0);
    expect_bad(&b, RF_FORMAT, "key 'k' at byte 33: unknown value type 13", 33);
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_str(&b, "k");
    gb_u32(&b, 7);
    gb_raw(&b, "\2", 1);
    expect_bad(&b, RF_FORMAT, "BOOL value 2 is neither 0 nor 1", 37);
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_str(&b, "k");
    gb_u32(&b, 9);
    gb_u32(&b, 99);
    gb_u64(&b, 1);
    expect_bad(&b, RF_FORMAT, "unknown array element type 99", 37);
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_str(&b, "k");
    gb_u32(&b, 9);
    gb_u32(&b, 10);
    gb_u64(&b, (uint64_t)1 << 62);
    gb_zeros(&b, 64);
    expect_bad(&b, RF_FORMAT, "array of 4611686018427387904 UINT64 elements", 37);
    b = (gb){0};
    gb_header(&b, 3, 0, 1);
    gb_str(&b, "k");
    gb_u32(&b, 9);
    for (int i = 0; i < 9; i++) {
        gb_u32(&b, 9);
        gb_u64(&b, 1);
    }
    gb_zeros(&b, 64);
    expect_bad(&b, RF_FORMAT, "nested deeper than 8", -1);
}

/* An image with one key and the given tensors (file order), data section of `data` bytes. */
typedef struct tdesc {
    const char *name;
    uint32_t n_dims;
    uint64_t dims[5];
    uint32_t type;
    uint64_t offset;
} tdesc;

static void make_tensors(gb *b, const tdesc *t, int n, size_t data)
{
    *b = (gb){0};
    gb_header(b, 3, (uint64_t)n, 1);
    gb_kv_str(b, "general.architecture", "x");
    for (int i = 0; i < n; i++)
        gb_tensor(b, t[i].name, t[i].n_dims, t[i].dims, t[i].type, t[i].offset);
    gb_pad(b, 32);
    gb_zeros(b, data);
}

RF_TEST(bad_tensor_infos)
{
    gb b;
    const size_t t0 = 24 + 8 + 20 + 4 + 8 + 1; /* first tensor info */
    tdesc five[] = {{"w", 5, {1, 1, 1, 1, 1}, 0, 0}};
    make_tensors(&b, five, 1, 32);
    expect_bad(&b, RF_FORMAT, "tensor 'w' at byte 65: 5 dims (at most 4)", (int64_t)t0);
    tdesc ovf[] = {{"w", 4, {1u << 20, 1u << 20, 1u << 20, 1u << 20}, 0, 0}};
    make_tensors(&b, ovf, 1, 32);
    expect_bad(&b, RF_RANGE, "tensor 'w' at byte 65: the product of its dims overflows", 65);
    tdesc big[] = {{"w", 1, {UINT64_MAX}, 0, 0}};
    make_tensors(&b, big, 1, 32);
    expect_bad(&b, RF_RANGE, "product of its dims overflows", 65);
    tdesc unk[] = {{"w", 1, {8}, 4, 0}};
    make_tensors(&b, unk, 1, 32);
    expect_bad(&b, RF_UNSUPPORTED, "tensor 'w' at byte 65: unknown ggml type id 4", 65);
    tdesc unk2[] = {{"w", 1, {8}, 4000000000u, 0}};
    make_tensors(&b, unk2, 1, 32);
    expect_bad(&b, RF_UNSUPPORTED, "unknown ggml type id 4000000000", 65);
    tdesc row[] = {{"w", 2, {48, 2}, 12, 0}};
    make_tensors(&b, row, 1, 1024);
    expect_bad(&b, RF_FORMAT, "row length 48 is not a multiple of the Q4_K block size 256", 65);
    tdesc mis[] = {{"w", 1, {8}, 0, 16}};
    make_tensors(&b, mis, 1, 64);
    expect_bad(&b, RF_FORMAT, "data offset 16 is not a multiple of the alignment 32", 65);
    tdesc out[] = {{"w", 1, {8}, 0, 0}, {"v", 1, {16}, 0, 32}};
    make_tensors(&b, out, 2, 64);
    expect_bad(&b, RF_FORMAT, "tensor 'v': data [32, +64) at file byte", -1);
    tdesc far[] = {{"w", 1, {8}, 0, (uint64_t)1 << 62}};
    make_tensors(&b, far, 1, 64);
    expect_bad(&b, RF_FORMAT, "runs past the end of the file", -1);
    tdesc ovl[] = {{"w", 1, {16}, 0, 0}, {"v", 1, {8}, 0, 32}};
    make_tensors(&b, ovl, 2, 128);
    expect_bad(&b, RF_FORMAT, "tensor 'v' at file byte 192 overlaps tensor 'w'", 192);
    tdesc dup[] = {{"w", 1, {8}, 0, 0}, {"w", 1, {8}, 0, 32}};
    make_tensors(&b, dup, 2, 64);
    expect_bad(&b, RF_FORMAT, "tensor 'w' at byte 98 appears twice", 98);
    tdesc lng[] = {
        {"a_name_that_is_much_longer_than_the_sixty_four_bytes_the_spec_allows", 1, {8}, 0, 0}};
    make_tensors(&b, lng, 1, 64);
    expect_bad(&b, RF_FORMAT, "name longer than 64 bytes", 65);
    /* zero-element tensors and shared empty offsets are fine */
    tdesc empty[] = {{"w", 2, {0, 5}, 0, 0}, {"v", 1, {8}, 0, 0}};
    make_tensors(&b, empty, 2, 32);
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    RF_EXPECT_INT(parse(ctx, &b, &g), RF_OK);
    rf_gguf_free(g);
    rf_ctx_free(ctx);
    gb_free(&b);
}

/* Write shard k of n (1-based in the name) into dir; `tensor` is its one tensor's name. */
static void write_shard(const char *dir, int k, int n, int no, int count, int total,
                        const char *tensor)
{
    gb b = {0};
    gb_header(&b, 3, 1, 4);
    gb_kv_str(&b, "general.architecture", "llama");
    gb_str(&b, "split.no");
    gb_u32(&b, 2);
    gb_uint(&b, (uint64_t)no, 2);
    gb_str(&b, "split.count");
    gb_u32(&b, 2);
    gb_uint(&b, (uint64_t)count, 2);
    gb_str(&b, "split.tensors.count");
    gb_u32(&b, 5);
    gb_u32(&b, (uint32_t)total);
    uint64_t d[1] = {8};
    gb_tensor(&b, tensor, 1, d, 0, 0);
    gb_pad(&b, 32);
    gb_zeros(&b, 32);
    char path[512];
    snprintf(path, sizeof path, "%s/m-%05d-of-%05d.gguf", dir, k, n);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b.p, 1, b.n, f) != b.n) RF_FAIL_AT("cannot write %s", path);
    if (f) fclose(f);
    gb_free(&b);
}

RF_TEST(split_files)
{
    char dir[256], first[300];
    snprintf(dir, sizeof dir, RF_BINARY_DIR "/split_test_%d", (int)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) RF_FAIL_AT("mkdir");
    snprintf(first, sizeof first, "%s/m-00001-of-00003.gguf", dir);
    write_shard(dir, 1, 3, 0, 3, 3, "t0");
    write_shard(dir, 2, 3, 1, 3, 3, "t1");
    write_shard(dir, 3, 3, 2, 3, 3, "t2");
    rf_ctx *ctx = new_ctx();
    rf_gguf *g = NULL;
    RF_EXPECT_INT(rf_gguf_read_file(ctx, first, &g), RF_OK);
    if (g) {
        RF_EXPECT_INT(g->n_shards, 3);
        RF_EXPECT_INT(g->n_tensors, 3);
        RF_EXPECT_INT(g->params, 24);
        RF_EXPECT_INT(g->tensors[2].shard, 2);
        RF_EXPECT(rf_gguf_tensor_find(g, "t1") == &g->tensors[1]);
        RF_EXPECT(rf_gguf_find(g, "general.architecture") != NULL);
        RF_EXPECT_INT(g->total_bytes, 3 * g->file_size);
    }
    rf_gguf_free(g);
    g = NULL;
    /* the second file given first; a wrong split.no; a tensor twice; a missing shard */
    char second[300];
    snprintf(second, sizeof second, "%s/m-00002-of-00003.gguf", dir);
    RF_EXPECT_INT(rf_gguf_read_file(ctx, second, &g), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "split file 2 of 3; open the first one");
    write_shard(dir, 3, 3, 1, 3, 3, "t2");
    RF_EXPECT_INT(rf_gguf_read_file(ctx, first, &g), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "m-00003-of-00003.gguf: split.no 1 / split.count 3");
    write_shard(dir, 3, 3, 2, 3, 3, "t1");
    RF_EXPECT_INT(rf_gguf_read_file(ctx, first, &g), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "tensor 't1' is in two split files");
    write_shard(dir, 3, 3, 2, 3, 4, "t2");
    RF_EXPECT_INT(rf_gguf_read_file(ctx, first, &g), RF_FORMAT);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "split.tensors.count 4, expected 3");
    snprintf(cmd, sizeof cmd, "rm -f '%s/m-00003-of-00003.gguf'", dir);
    if (system(cmd) != 0) RF_FAIL_AT("rm");
    RF_EXPECT_INT(rf_gguf_read_file(ctx, first, &g), RF_IO);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(ctx), "m-00003-of-00003.gguf");
    RF_EXPECT(g == NULL);
    rf_ctx_free(ctx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) RF_FAIL_AT("rm");
}

RF_TEST(out_of_memory_sweep)
{
    gb b;
    make_valid(&b, 0, extra_nested);
    rf_ctx *ctx = new_ctx();
    int ok = 0;
    for (uint64_t n = 1; n < 64 && !ok; n++) {
        rf_ctx_fail_alloc_after(ctx, n, 1);
        rf_gguf *g = NULL;
        rf_status st = rf_gguf_parse(ctx, b.p, b.n, &g);
        if (st == RF_OK)
            ok = 1;
        else
            RF_EXPECT_INT(st, RF_NOMEM);
        rf_ctx_fail_alloc_after(ctx, 0, 0);
        rf_gguf_free(g);
    }
    RF_EXPECT(ok);
    rf_ctx_free(ctx);
    gb_free(&b);
}
