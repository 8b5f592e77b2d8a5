/* apr_v1.c — aprender's older APR layouts (reference/apr-format.md section 8): "APR1" (u32-sized
 * JSON metadata, a JSON tensor index, unaligned data, a CRC32 trailer) and the "APR\0" wrapper
 * around it (compression byte 0 none, 1 LZ4 via Debian's liblz4 — one size-prefixed block, its
 * declared size bounded before anything is allocated; 2 zstd refused), the aprender-tsp file
 * that also starts with "APR\0" and aprender's APRN classical models (both refused). Never reads
 * tensor data beyond the trailer CRC. */
#include <lz4.h>
#include <string.h>

#include "formats/apr_int.h"

static uint32_t apr_u32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A non-negative JSON integer. */
static int apr_uint(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0) return 0;
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* One object of the JSON index: {"name", "dtype", "shape", "offset", "size"}. */
static rf_status apr_v1_entry(rf__apr_parse *p, json_t *e, size_t i, uint64_t at, uint64_t dlen)
{
    rf_apr_tensor t = {0};
    json_t *nm = json_object_get(e, "name"), *dt = json_object_get(e, "dtype"),
           *sh = json_object_get(e, "shape");
    char ex[96];
    if (!json_is_string(nm) || !json_is_string(dt) || !json_is_array(sh) ||
        !apr_uint(json_object_get(e, "offset"), &t.offset) ||
        !apr_uint(json_object_get(e, "size"), &t.n_bytes))
        return RF__APR_BAD(p, at,
                           "APR1 tensor index entry %zu (index at byte %llu) needs \"name\", "
                           "\"dtype\" (strings), \"shape\" (array), \"offset\" and \"size\" "
                           "(non-negative integers)",
                           i, (unsigned long long)at);
    const char *name =
        rf__excerpt(ex, sizeof ex, json_string_value(nm), json_string_length(nm), 64);
    if (!rf__apr_dtype_from_name(json_string_value(dt), &t.type))
        return RF__APR_BAD(p, at, "APR1 tensor '%s': unknown dtype", name);
    if (json_array_size(sh) > RF_APR_MAX_DIMS)
        return RF__APR_BAD(p, at, "APR1 tensor '%s': %zu dimensions (at most 8)", name,
                           json_array_size(sh));
    t.rank = (uint32_t)json_array_size(sh);
    for (uint32_t d = 0; d < t.rank; d++)
        if (!apr_uint(json_array_get(sh, d), &t.shape[d]))
            return RF__APR_BAD(p, at, "APR1 tensor '%s': a dimension is not a non-negative integer",
                               name);
    RF_TRY(rf__apr_elems(p, &t, at, &t.n_elements));
    uint64_t want, end;
    if (!rf__apr_dtype_size(t.type, t.n_elements, &want) || want != t.n_bytes)
        return RF__APR_BAD(p, at, "APR1 tensor '%s': size %llu is not %llu elements of %s", name,
                           (unsigned long long)t.n_bytes, (unsigned long long)t.n_elements,
                           rf_apr_dtype_name(t.type));
    if (!rf__add_ok(t.offset, t.n_bytes, &end) || end > dlen)
        return rf__error(p->ctx, RF_RANGE, (int64_t)at,
                         "APR1 tensor '%s': data [%llu, + %llu bytes) ends past the %llu-byte "
                         "data section",
                         name, (unsigned long long)t.offset, (unsigned long long)t.n_bytes,
                         (unsigned long long)dlen);
    t.dtype = rf__apr_rf_dtype(t.type);
    t.file_offset = p->a->data_offset + t.offset;
    return rf__apr_add(p, json_string_value(nm), json_string_length(nm), &t, at);
}

static rf_status apr_v1_index(rf__apr_parse *p, const uint8_t *s, uint64_t n, uint64_t at,
                              uint32_t count, uint64_t dlen)
{
    json_error_t err;
    json_t *root = json_loadb((const char *)s, (size_t)n, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return RF__APR_BAD(p, at + (uint64_t)err.position,
                           "APR1 tensor index at byte %llu is not valid JSON",
                           (unsigned long long)(at + (uint64_t)err.position));
    rf_status st = RF_OK;
    if (!json_is_array(root) || json_array_size(root) != count)
        st = RF__APR_BAD(p, at, "APR1 tensor index at byte %llu is not an array of %u entries",
                         (unsigned long long)at, count);
    if (st == RF_OK) st = rf__gg_index_init(p->ctx, &p->a->priv->ix, count);
    for (size_t i = 0; st == RF_OK && i < count; i++) {
        json_t *e = json_array_get(root, i);
        st = json_is_object(e)
                 ? apr_v1_entry(p, e, i, at, dlen)
                 : RF__APR_BAD(p, at, "APR1 tensor index entry %zu is not an object", i);
    }
    json_decref(root);
    return st;
}

rf_status rf__apr_v1(rf__apr_parse *p)
{
    rf_apr *a = p->a;
    const uint8_t *b = p->base;
    uint64_t size = p->size;
    a->layout = RF_APR_APR1;
    a->version_major = 1;
    a->has_footer = 1;
    if (size < 8 + 8 + 4)
        return RF__APR_BAD(p, size, "APR1 truncated: %llu bytes", (unsigned long long)size);
    uint64_t ml = apr_u32(b + 4);
    if (ml > RF_APR_MAX_METADATA)
        return rf__error(p->ctx, RF_RANGE, 4,
                         "APR1 metadata of %llu bytes is above the 64 MiB "
                         "limit",
                         (unsigned long long)ml);
    if (ml > size - 8 - 8 - 4)
        return RF__APR_BAD(p, 4,
                           "APR1 metadata length %llu at byte 4 runs past the end of the "
                           "file (%llu bytes)",
                           (unsigned long long)ml, (unsigned long long)size);
    uint64_t at = 8 + ml;
    uint32_t count = apr_u32(b + at);
    uint64_t il = apr_u32(b + at + 4), ix = at + 8;
    if (il > size - ix - 4)
        return RF__APR_BAD(p, at + 4,
                           "APR1 tensor index length %llu at byte %llu runs past the "
                           "end of the file",
                           (unsigned long long)il, (unsigned long long)(at + 4));
    if (count > il / 8)
        return RF__APR_BAD(p, at,
                           "APR1 tensor count %u at byte %llu does not fit a %llu-byte "
                           "index",
                           count, (unsigned long long)at, (unsigned long long)il);
    a->metadata_offset = 8;
    a->metadata_size = ml;
    a->index_offset = ix;
    a->data_offset = ix + il;
    uint64_t dlen = size - 4 - a->data_offset;
    RF_TRY(apr_v1_index(p, b + ix, il, ix, count, dlen)); /* a cut file fails here, cheaply */
    a->tensors = a->priv->tensors;
    if (size <= RF_APR_CRC_MAX_FILE) {
        uint32_t want = apr_u32(b + size - 4), got = rf__apr_crc32(0, b, (size_t)size - 4);
        if (want != got)
            return RF__APR_BAD(p, size - 4,
                               "APR1 trailer CRC32 at byte %llu is 0x%08x, the "
                               "file's is 0x%08x",
                               (unsigned long long)(size - 4), want, got);
        a->footer_checked = 1;
    }
    return rf__apr_meta(p, b + 8, ml, 8);
}

/* The decompressed (or stored) APR1 inside a wrapper. */
static rf_status apr_inner(rf__apr_parse *p, const uint8_t *img, uint64_t n, rf_apr_layout l)
{
    if (n < 4 || memcmp(img, "APR1", 4) != 0)
        return RF__APR_BAD(p, 9, "APR\\0 wrapper: its payload is not an APR1 file");
    rf__apr_parse q = *p;
    q.base = img;
    q.size = n;
    rf_status st = rf__apr_v1(&q);
    if (st != RF_OK) { /* offsets inside the payload mean nothing in the file: point at it */
        char msg[512];
        rf__strlcpy(msg, rf_ctx_errmsg(p->ctx), sizeof msg);
        return rf__error(p->ctx, st, 9, "APR1 inside the wrapper (payload at byte 9): %s", msg);
    }
    p->a->layout = l;
    return RF_OK;
}

rf_status rf__apr_wrapper(rf__apr_parse *p)
{
    const uint8_t *b = p->base;
    uint64_t size = p->size;
    if (size >= 12 && memcmp(b + 4, "\1\0\0\0", 4) == 0 &&
        (memcmp(b + 8, "\0PST", 4) == 0 || memcmp(b + 8, "TSP\0", 4) == 0))
        return rf__error(p->ctx, RF_UNSUPPORTED, 8,
                         "aprender-tsp solver file (a travelling-salesman heuristic's state, "
                         "not a neural network): no tensors to profile");
    if (size < 9)
        return RF__APR_BAD(p, size,
                           "APR\\0 wrapper truncated: the 9-byte prefix needs 9 bytes, "
                           "%llu present",
                           (unsigned long long)size);
    uint64_t ulen = apr_u32(b + 5);
    if (b[4] == 2)
        return rf__error(p->ctx, RF_UNSUPPORTED, 4,
                         "APR\\0 wrapper with zstd compression (byte 4 = 2) is not supported");
    if (b[4] == 0) {
        if (ulen != size - 9)
            return RF__APR_BAD(p, 5, "APR\\0 wrapper declares %llu bytes at byte 5, %llu follow",
                               (unsigned long long)ulen, (unsigned long long)(size - 9));
        return apr_inner(p, b + 9, ulen, RF_APR_APR1_RAW);
    }
    /* LZ4 (lz4_flex compress_prepend_size): u32 size, then one block */
    if (size < 13 || apr_u32(b + 9) != ulen)
        return RF__APR_BAD(p, 9,
                           "APR\\0 LZ4 wrapper: the block's size prefix at byte 9 does "
                           "not repeat the declared %llu bytes",
                           (unsigned long long)ulen);
    uint64_t clen = size - 13;
    if (ulen > RF_APR_MAX_INFLATED || clen > (uint64_t)LZ4_MAX_INPUT_SIZE)
        return rf__error(p->ctx, RF_RANGE, 5,
                         "APR\\0 LZ4 wrapper of %llu bytes (declared at "
                         "byte 5) is above the 1 GiB limit",
                         (unsigned long long)ulen);
    if (ulen > 255 * clen + 16 || ulen < 4)
        return RF__APR_BAD(p, 5,
                           "APR\\0 LZ4 wrapper declares %llu bytes, which a %llu-byte LZ4 "
                           "block cannot hold",
                           (unsigned long long)ulen, (unsigned long long)clen);
    uint8_t *out = rf__malloc(p->ctx, (size_t)ulen);
    if (!out) return RF_NOMEM_ERR(p->ctx);
    p->a->priv->inflated = out;
    int got = LZ4_decompress_safe((const char *)b + 13, (char *)out, (int)clen, (int)ulen);
    if (got < 0 || (uint64_t)got != ulen)
        return RF__APR_BAD(p, 13, "APR\\0 LZ4 wrapper: the block at byte 13 is %s",
                           got < 0 ? "corrupt" : "shorter than declared");
    return apr_inner(p, out, ulen, RF_APR_APR1_LZ4);
}

/* APRN (aprender's classical models, section 9): say what it is. */
rf_status rf__apr_aprn(rf__apr_parse *p)
{
    static const struct {
        uint16_t id;
        const char *name;
    } kinds[] = {{0x01, "LinearRegression"},
                 {0x02, "LogisticRegression"},
                 {0x03, "DecisionTree"},
                 {0x04, "RandomForest"},
                 {0x05, "GradientBoosting"},
                 {0x06, "KMeans"},
                 {0x07, "Pca"},
                 {0x08, "NaiveBayes"},
                 {0x09, "Knn"},
                 {0x0A, "Svm"},
                 {0x10, "NgramLm"},
                 {0x11, "Tfidf"},
                 {0x12, "CountVectorizer"},
                 {0x20, "NeuralSequential"},
                 {0x21, "NeuralCustom"},
                 {0x30, "ContentRecommender"},
                 {0x40, "MixtureOfExperts"},
                 {0xFF, "Custom"}};
    const char *kind = "unknown model type";
    uint16_t id = p->size >= 8 ? (uint16_t)(p->base[6] | p->base[7] << 8) : 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].id == id) kind = kinds[i].name;
    return rf__error(p->ctx, RF_UNSUPPORTED, 0, "APRN classical model (%s): no tensors to profile",
                     kind);
}
