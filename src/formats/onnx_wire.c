/* onnx_wire.c — protobuf wire decoding for the ONNX reader (tags, varints, lengths, skipping;
 * formats.md §5c), the hand decoder of initializer TensorProto metadata that never copies
 * raw_data, external-data path checks, and the capped protobuf-c allocator. No graph logic. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/onnx_int.h"

int rf__pb_varint(rf__cursor *c, uint64_t *v, const char **why)
{
    uint64_t x = 0;
    for (int i = 0; i < 10; i++) {
        uint8_t b;
        if (!rf__cursor_u8(c, &b)) return (*why = "truncated varint", 0);
        if (i == 9 && b > 1) return (*why = "varint longer than 64 bits", 0);
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return (*why = "varint longer than 10 bytes", 0);
}

int rf__pb_tag(rf__cursor *c, uint32_t *field, int *wire, const char **why)
{
    uint64_t t;
    if (!rf__pb_varint(c, &t, why)) return 0;
    if ((t >> 3) == 0 || (t >> 3) > 536870911u) return (*why = "bad field number", 0);
    *field = (uint32_t)(t >> 3);
    *wire = (int)(t & 7);
    return 1;
}

int rf__pb_bytes(rf__cursor *c, const uint8_t **p, size_t *n, const char **why)
{
    uint64_t len;
    if (!rf__pb_varint(c, &len, why)) return 0;
    if (len > rf__cursor_left(c)) return (*why = "length past the end of the input", 0);
    *n = (size_t)len;
    return rf__cursor_bytes(c, *n, p);
}

int rf__pb_skip(rf__cursor *c, int wire, const char **why)
{
    uint64_t v;
    const uint8_t *p;
    size_t n;
    switch (wire) {
    case RF__PB_VARINT: return rf__pb_varint(c, &v, why);
    case RF__PB_I64: return rf__cursor_skip(c, 8) || (*why = "truncated fixed64", 0);
    case RF__PB_I32: return rf__cursor_skip(c, 4) || (*why = "truncated fixed32", 0);
    case RF__PB_LEN: return rf__pb_bytes(c, &p, &n, why);
    default: return (*why = "unsupported wire type (groups or invalid)", 0);
    }
}

/* ---- initializer metadata ----------------------------------------------------------------------
 */

/* Change the status of the error already set (keeping its message and offset). */
static rf_status rf__error_status(rf_ctx *ctx, rf_status st)
{
    char msg[512];
    rf__strlcpy(msg, rf_ctx_errmsg(ctx), sizeof msg);
    return rf__error(ctx, st, rf_ctx_error_offset(ctx), "%s", msg);
}

static rf_status rf__tfail(rf_ctx *ctx, const uint8_t *base, const rf__cursor *c, const char *what,
                           const char *why)
{
    size_t off = (size_t)(c->p - base);
    return rf__error(ctx, RF_FORMAT, (int64_t)off, "%s: %s at byte %zu", what, why, off);
}

/* external_data entry {key 1, value 2}: remember "location". */
static int rf__ext_entry(const uint8_t *p, size_t n, rf__onnx_tensor *t, const char **why)
{
    rf__cursor c;
    const uint8_t *k = NULL, *v = NULL, *s;
    size_t kn = 0, vn = 0, sn;
    uint32_t f;
    int w;
    rf__cursor_init(&c, p, n);
    while (!rf__cursor_eof(&c)) {
        if (!rf__pb_tag(&c, &f, &w, why)) return 0;
        if ((f == 1 || f == 2) && w == RF__PB_LEN) {
            if (!rf__pb_bytes(&c, &s, &sn, why)) return 0;
            if (f == 1)
                k = s, kn = sn;
            else
                v = s, vn = sn;
        } else if (!rf__pb_skip(&c, w, why)) {
            return 0;
        }
    }
    if (k && kn == 8 && memcmp(k, "location", 8) == 0) {
        t->location = v ? v : (const uint8_t *)"";
        t->location_len = vn;
    }
    int off = k && kn == 6 && memcmp(k, "offset", 6) == 0;
    if (off || (k && kn == 6 && memcmp(k, "length", 6) == 0)) {
        uint64_t x = 0; /* a decimal string; more than 19 digits is not a file offset */
        int ok = v && vn && vn <= 19;
        for (size_t i = 0; ok && i < vn; i++) {
            ok = v[i] >= '0' && v[i] <= '9';
            x = x * 10 + (uint64_t)(v[i] - '0');
        }
        if (!ok) { /* negative, empty, not a number: the caller names the tensor */
            t->ext_bad = off ? "offset" : "length";
            t->ext_bad_val = v ? v : (const uint8_t *)"";
            t->ext_bad_len = v ? vn : 0;
        } else if (off) {
            t->ext_offset = x;
        } else {
            t->ext_length = x, t->has_length = 1;
        }
    }
    return 1;
}

/* dims: unpacked varints or a packed run. */
static int rf__dims(rf__cursor *c, int wire, rf__onnx_tensor *t, const char **why)
{
    uint64_t v;
    rf__cursor sub = *c;
    if (wire == RF__PB_LEN) {
        const uint8_t *p;
        size_t n;
        if (!rf__pb_bytes(c, &p, &n, why)) return 0;
        rf__cursor_init(&sub, p, n);
    } else if (wire != RF__PB_VARINT) {
        return (*why = "dims has the wrong wire type", 0);
    }
    do {
        if (!rf__pb_varint(wire == RF__PB_LEN ? &sub : c, &v, why)) return 0;
        if (t->rank >= RF_GRAPH_MAX_RANK) return (*why = "more than 8 dims", 0);
        if ((int64_t)v < 0) return (*why = "negative dim", 0);
        t->dims[t->rank++] = (int64_t)v;
    } while (wire == RF__PB_LEN && !rf__cursor_eof(&sub));
    return 1;
}

rf_status rf__onnx_tensor_decode(rf_ctx *ctx, const uint8_t *base, const uint8_t *p, size_t n,
                                 const char *what, rf__onnx_tensor *t)
{
    rf__cursor c;
    const char *why = NULL;
    memset(t, 0, sizeof *t);
    c.base = c.p = p;
    c.end = p + n;
    while (!rf__cursor_eof(&c)) {
        uint32_t f;
        int w;
        uint64_t v;
        const uint8_t *s;
        size_t sn;
        int ok = rf__pb_tag(&c, &f, &w, &why);
        if (ok && f == 1)
            ok = rf__dims(&c, w, t, &why);
        else if (ok && (f == 2 || f == 14) && w == RF__PB_VARINT) {
            ok = rf__pb_varint(&c, &v, &why);
            if (f == 2)
                t->data_type = (int32_t)v;
            else
                t->external |= v == 1;
        } else if (ok && (f == 8 || f == 9 || f == 7 || f == 13) && w == RF__PB_LEN) {
            ok = rf__pb_bytes(&c, &s, &sn, &why);
            if (ok && f == 8) t->name = s, t->name_len = sn;
            if (ok && f == 9) t->raw = s, t->raw_len = sn;
            if (ok && f == 7) t->i64 = s, t->i64_len = sn;
            if (ok && f == 13) ok = rf__ext_entry(s, sn, t, &why), t->external = 1;
        } else if (ok) {
            ok = rf__pb_skip(&c, w, &why);
        }
        if (!ok) {
            rf_status st = rf__tfail(ctx, base, &c, what, why);
            return strcmp(why, "more than 8 dims") == 0 ? rf__error_status(ctx, RF_UNSUPPORTED)
                                                        : st;
        }
    }
    return RF_OK;
}

/* ---- external data paths (never opened) ------------------------------------------------------ */

rf_status rf__onnx_check_location(rf_ctx *ctx, const uint8_t *loc, size_t n, const char *base_dir,
                                  const char *what)
{
    char path[PATH_MAX], ex[96];
    rf__excerpt(ex, sizeof ex, loc, n, 60);
    RF_CHECK(ctx, n > 0 && n < 4096 && !memchr(loc, 0, n), RF_FORMAT,
             "%s: external data location \"%s\" is empty, too long or contains NUL", what, ex);
    RF_CHECK(ctx, loc[0] != '/' && loc[0] != '\\' && !(n >= 2 && loc[1] == ':'), RF_FORMAT,
             "%s: external data location \"%s\" is absolute (must be relative to the model)", what,
             ex);
    for (size_t i = 0; i < n;) { /* components separated by / or \ */
        size_t j = i;
        while (j < n && loc[j] != '/' && loc[j] != '\\') j++;
        RF_CHECK(ctx, !(j - i == 2 && loc[i] == '.' && loc[i + 1] == '.'), RF_FORMAT,
                 "%s: external data location \"%s\" contains '..' (leaves the model's folder)",
                 what, ex);
        i = j + 1;
    }
    if (!base_dir) return RF_OK;
    size_t len = 0;
    path[0] = '\0';
    rf__appendf(path, sizeof path, &len, "%s/%.*s", base_dir, (int)n, (const char *)loc);
    char real_file[PATH_MAX], real_dir[PATH_MAX];
    struct stat st;
    if (lstat(path, &st) != 0) return RF_OK; /* missing weights: fine, dims are in the graph */
    if (!realpath(path, real_file) || !realpath(base_dir, real_dir)) return RF_OK;
    size_t dl = strlen(real_dir);
    RF_CHECK(
        ctx, strncmp(real_file, real_dir, dl) == 0 && (real_file[dl] == '/' || dl == 1), RF_FORMAT,
        "%s: external data location \"%s\" leaves the model's folder through a link", what, ex);
    return RF_OK;
}

int rf__onnx_external_state(const rf__onnx_tensor *t, const char *base_dir)
{
    char path[PATH_MAX];
    size_t len = 0;
    struct stat st;
    path[0] = '\0';
    rf__appendf(path, sizeof path, &len, "%s/%.*s", base_dir ? base_dir : ".", (int)t->location_len,
                (const char *)t->location);
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 1;
    uint64_t size = (uint64_t)st.st_size;
    if (t->ext_offset > size || (t->has_length && t->ext_length > size - t->ext_offset)) return 2;
    return 0;
}

/* ---- protobuf-c allocator ---------------------------------------------------------------------
 */

#define RF__PB_HDR 16 /* size header in front of each block (keeps 16-byte alignment) */

static void *rf__pb_alloc_fn(void *user, size_t size)
{
    rf__pb_alloc *a = user;
    if (size > a->cap || a->live > a->cap - size) {
        a->capped = 1;
        return NULL;
    }
    unsigned char *p = rf__malloc(a->ctx, size + RF__PB_HDR);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    a->live += size;
    return p + RF__PB_HDR;
}

static void rf__pb_free_fn(void *user, void *ptr)
{
    rf__pb_alloc *a = user;
    if (!ptr) return;
    unsigned char *p = (unsigned char *)ptr - RF__PB_HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    a->live -= size;
    rf__free(a->ctx, p);
}

void rf__pb_alloc_init(rf__pb_alloc *a, rf_ctx *ctx, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->pb.alloc = rf__pb_alloc_fn;
    a->pb.free = rf__pb_free_fn;
    a->pb.allocator_data = a;
    a->ctx = ctx;
    a->cap = cap;
}
