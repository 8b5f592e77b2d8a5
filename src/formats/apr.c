/* apr.c — the APR reader's way in (roofline/apr.h; reference/apr-format.md): magic dispatch
 * (section 1; APRN and aprender-tsp refused), the v2 layout of both writers (section 2: 64-byte
 * header and its CRC32, flags of section 5, the binary tensor index, the optional footer), the
 * tensors' bookkeeping shared with apr_v1.c, lookups and the file wrapper. Every check of section
 * 11 on sizes and offsets runs in 64 bits before anything is allocated. Never reads tensor data
 * (the footer CRC of files up to RF_APR_CRC_MAX_FILE excepted). */
#include <stdlib.h>
#include <string.h>

#include "formats/apr_int.h"

#define APR_LZ4 0x0001u
#define APR_ZSTD 0x0002u
#define APR_ENCRYPTED 0x0004u
#define APR_SHARDED 0x0010u
#define APR_COLUMN_MAJOR 0x0800u
#define APR_KNOWN_FLAGS 0x0FFFu

int rf_apr_magic(const void *data, size_t n)
{
    const uint8_t *h = data;
    return n >= 4 && memcmp(h, "APR", 3) == 0 &&
           (h[3] == 0 || h[3] == '1' || h[3] == '2' || h[3] == 'N');
}

const char *rf_apr_layout_name(rf_apr_layout l)
{
    switch (l) {
    case RF_APR_V2: return "v2";
    case RF_APR_APR1: return "APR1";
    case RF_APR_APR1_LZ4: return "APR1 (LZ4 wrapper)";
    case RF_APR_APR1_RAW: return "APR1 (wrapper)";
    }
    return "?";
}

static rf_gguf_str apr_name(const void *user, uint64_t i)
{
    const rf_apr_tensor *t = &((const rf_apr_tensor *)user)[i];
    rf_gguf_str s = {t->name, strlen(t->name)};
    return s;
}

rf_status rf__apr_elems(rf__apr_parse *p, const rf_apr_tensor *t, uint64_t at, uint64_t *n)
{
    *n = 1;
    for (uint32_t d = 0; d < t->rank; d++)
        if (!rf__mul_ok(*n, t->shape[d], n))
            return rf__error(p->ctx, RF_RANGE, (int64_t)at,
                             "APR tensor index entry at byte %llu: the product of its dimensions "
                             "overflows 64 bits",
                             (unsigned long long)at);
    return RF_OK;
}

rf_status rf__apr_add(rf__apr_parse *p, const char *name, size_t len, const rf_apr_tensor *t,
                      uint64_t at)
{
    rf_apr *a = p->a;
    rf__apr_priv *pv = a->priv;
    char ex[96];
    if (len == 0 || len > RF_APR_MAX_NAME || memchr(name, 0, len))
        return RF__APR_BAD(p, at, "APR tensor index entry at byte %llu: the name is %s",
                           (unsigned long long)at,
                           len == 0                ? "empty"
                           : len > RF_APR_MAX_NAME ? "longer than 256 bytes"
                                                   : "holding a NUL byte");
    size_t cap = (size_t)pv->cap;
    RF_TRY(rf__grow(p->ctx, (void **)&pv->tensors, &cap, (size_t)a->n_tensors + 1,
                    sizeof *pv->tensors));
    pv->cap = cap;
    rf_apr_tensor *dst = &pv->tensors[a->n_tensors];
    *dst = *t;
    if (!(dst->name = rf__strndup(p->ctx, name, len))) return RF_NOMEM_ERR(p->ctx);
    rf_gguf_str s = {dst->name, len};
    if (rf__gg_index_put(&pv->ix, s, a->n_tensors, apr_name, pv->tensors)) {
        rf__free(p->ctx, (void *)dst->name);
        return RF__APR_BAD(p, at, "APR tensor '%s' at byte %llu: the name appears twice",
                           rf__excerpt(ex, sizeof ex, name, len, 64), (unsigned long long)at);
    }
    a->n_tensors++;
    a->params += t->n_elements; /* each tensor's bytes lie inside the file: the sums fit */
    a->weight_bytes += t->n_bytes;
    a->bytes_by_type[t->type] += t->n_bytes;
    return RF_OK;
}

/* One binary index entry at the cursor (reference section 2, "Tensor index"). */
static rf_status apr_entry(rf__apr_parse *p, rf__cursor *c, const uint8_t **prev, size_t *prev_len)
{
    rf_apr *a = p->a;
    uint64_t at = rf__cursor_offset(c);
    uint16_t nl;
    uint8_t nd;
    const uint8_t *name;
    rf_apr_tensor t = {0};
    char ex[96];
    if (!rf__cursor_u16(c, &nl) || !rf__cursor_bytes(c, nl, &name) ||
        !rf__cursor_u8(c, &t.dtype_byte) || !rf__cursor_u8(c, &nd))
        return RF__APR_BAD(p, at,
                           "APR tensor index entry %llu at byte %llu runs past the data "
                           "offset %llu",
                           (unsigned long long)a->n_tensors, (unsigned long long)at,
                           (unsigned long long)a->data_offset);
    const char *nm = rf__excerpt(ex, sizeof ex, name, nl, 64);
    if (nl == 0 || nl > RF_APR_MAX_NAME || memchr(name, 0, nl))
        return RF__APR_BAD(p, at, "APR tensor index entry at byte %llu: the name is %s",
                           (unsigned long long)at,
                           nl == 0                ? "empty"
                           : nl > RF_APR_MAX_NAME ? "longer than 256 bytes"
                                                  : "holding a NUL byte");
    if (nd > RF_APR_MAX_DIMS)
        return RF__APR_BAD(p, at, "APR tensor '%s' at byte %llu: %u dimensions (at most 8)", nm,
                           (unsigned long long)at, nd);
    t.rank = nd;
    for (uint32_t d = 0; d < nd; d++)
        if (!rf__cursor_u64(c, &t.shape[d])) goto short_entry;
    if (!rf__cursor_u64(c, &t.offset) || !rf__cursor_u64(c, &t.n_bytes)) goto short_entry;
    if (*prev) {
        size_t m = *prev_len < nl ? *prev_len : nl;
        int cmp = memcmp(*prev, name, m);
        if (cmp > 0 || (cmp == 0 && *prev_len > nl))
            return RF__APR_BAD(p, at,
                               "APR tensor '%s' at byte %llu: the index is not sorted by name", nm,
                               (unsigned long long)at);
    }
    *prev = name;
    *prev_len = nl;
    RF_TRY(rf__apr_elems(p, &t, at, &t.n_elements));
    int known;
    if (!rf__apr_dtype_pick(t.dtype_byte, t.shape, t.rank, t.n_elements, t.n_bytes, &t.type,
                            &known)) {
        if (known && (a->flags & (APR_LZ4 | APR_ZSTD)))
            return rf__error(p->ctx, RF_UNSUPPORTED, (int64_t)at,
                             "APR tensor '%s' at byte %llu: compressed tensors are not supported "
                             "(%llu bytes stored for %llu elements)",
                             nm, (unsigned long long)at, (unsigned long long)t.n_bytes,
                             (unsigned long long)t.n_elements);
        return RF__APR_BAD(p, at,
                           known ? "APR tensor '%s' at byte %llu: %llu bytes stored for %llu "
                                   "elements fit no type dtype byte %u can mean"
                                 : "APR tensor '%s' at byte %llu: %llu bytes for %llu elements "
                                   "of unknown dtype byte %u",
                           nm, (unsigned long long)at, (unsigned long long)t.n_bytes,
                           (unsigned long long)t.n_elements, t.dtype_byte);
    }
    t.dtype = rf__apr_rf_dtype(t.type);
    uint64_t end;
    if (!rf__add_ok(a->data_offset, t.offset, &t.file_offset) ||
        !rf__add_ok(t.file_offset, t.n_bytes, &end) || end > p->size)
        return rf__error(p->ctx, RF_RANGE, (int64_t)at,
                         "APR tensor '%s' at byte %llu: data [%llu + %llu, + %llu bytes) ends "
                         "past the end of the file (%llu bytes)",
                         nm, (unsigned long long)at, (unsigned long long)a->data_offset,
                         (unsigned long long)t.offset, (unsigned long long)t.n_bytes,
                         (unsigned long long)p->size);
    return rf__apr_add(p, (const char *)name, nl, &t, at);
short_entry:
    return RF__APR_BAD(p, at, "APR tensor '%s' at byte %llu runs past the data offset %llu", nm,
                       (unsigned long long)at, (unsigned long long)a->data_offset);
}

static int apr_by_offset(const void *x, const void *y)
{
    const rf_apr_tensor *a = *(const rf_apr_tensor *const *)x,
                        *b = *(const rf_apr_tensor *const *)y;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Overlaps and alignment (warnings), the end of the data, and the footer (section 2 "Footer"). */
static rf_status apr_data_end(rf__apr_parse *p)
{
    rf_apr *a = p->a;
    uint64_t n = a->n_tensors, end = a->data_offset, unaligned = 0, overlaps = 0;
    const rf_apr_tensor **o = rf__malloc(p->ctx, (size_t)(n ? n : 1) * sizeof *o);
    if (!o) return RF_NOMEM_ERR(p->ctx);
    for (uint64_t i = 0; i < n; i++) o[i] = &a->tensors[i];
    if ((size_t)n > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(o, (size_t)n, sizeof *o, apr_by_offset);
    for (uint64_t i = 0; i < n; i++) {
        unaligned += o[i]->offset % 64 != 0;
        overlaps += o[i]->file_offset < end && i > 0;
        if (o[i]->file_offset + o[i]->n_bytes > end) end = o[i]->file_offset + o[i]->n_bytes;
    }
    rf__free(p->ctx, o);
    if (overlaps)
        rf__log(p->ctx, RF_LOG_WARN, "APR: %llu tensors' data overlap another tensor's",
                (unsigned long long)overlaps);
    if (unaligned)
        rf__log(p->ctx, RF_LOG_INFO, "APR: %llu tensors start at offsets not a multiple of 64",
                (unsigned long long)unaligned);
    uint64_t padded = end + (64 - end % 64) % 64, size = p->size;
    if (size == end || size == padded) {
        rf__log(p->ctx, RF_LOG_INFO, "APR: no footer CRC32 (realizar's converter writes none)");
        return RF_OK;
    }
    if (size != end + 4 && size != padded + 4)
        return RF__APR_BAD(p, end,
                           "APR: the tensors' data end at byte %llu but the file has %llu bytes: "
                           "neither padding nor a 4-byte CRC32 footer follows",
                           (unsigned long long)end, (unsigned long long)size);
    a->has_footer = 1;
    if (size > RF_APR_CRC_MAX_FILE) return RF_OK; /* checking would read every tensor */
    const uint8_t *f = p->base + size - 4;
    uint32_t want =
        (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
    uint32_t got = rf__apr_crc32(0, p->base, (size_t)size - 4);
    if (got != want)
        return RF__APR_BAD(p, size - 4,
                           "APR footer CRC32 at byte %llu is 0x%08x, the file's is 0x%08x",
                           (unsigned long long)(size - 4), want, got);
    a->footer_checked = 1;
    return RF_OK;
}

/* The 64-byte header: fields, CRC, flags, the sections' bounds. */
static rf_status apr_v2_header(rf__apr_parse *p, uint32_t *count, uint32_t *meta_size)
{
    rf_apr *a = p->a;
    rf__cursor c;
    uint8_t maj = 0, min = 0;
    uint16_t flags = 0;
    uint32_t crc = 0;
    rf__cursor_init(&c, p->base, (size_t)p->size);
    if (p->size < 64)
        return RF__APR_BAD(p, p->size, "APR v2 truncated: the header needs 64 bytes, %llu present",
                           (unsigned long long)p->size);
    rf__cursor_skip(&c, 4);
    rf__cursor_u8(&c, &maj);
    rf__cursor_u8(&c, &min);
    rf__cursor_u16(&c, &flags);
    rf__cursor_u32(&c, count);
    rf__cursor_u64(&c, &a->metadata_offset);
    rf__cursor_u32(&c, meta_size);
    rf__cursor_u64(&c, &a->index_offset);
    rf__cursor_u64(&c, &a->data_offset);
    rf__cursor_u32(&c, &crc);
    a->layout = RF_APR_V2;
    a->version_major = maj;
    a->version_minor = min;
    a->flags = flags;
    a->metadata_size = *meta_size;
    if (maj != 2) rf__log(p->ctx, RF_LOG_WARN, "APR v2: version %u.%u, read as 2.0", maj, min);
    uint32_t got = rf__apr_crc32(rf__apr_crc32(0, p->base, 40), p->base + 44, 20);
    if (got != crc && !(p->flags & RF_APR_LENIENT_CRC))
        return RF__APR_BAD(
            p, 40, "APR v2 header CRC32 at byte 40 is 0x%08x, the header's is 0x%08x", crc, got);
    if (got != crc) rf__log(p->ctx, RF_LOG_WARN, "APR v2: header CRC32 mismatch ignored");
    if (flags & (APR_ENCRYPTED | APR_COLUMN_MAJOR))
        return rf__error(p->ctx, RF_UNSUPPORTED, 6, "APR v2 flags 0x%04x at byte 6: %s", flags,
                         flags & APR_ENCRYPTED ? "encrypted files are not supported"
                                               : "column-major layout is not supported");
    if (flags & ~APR_KNOWN_FLAGS)
        rf__log(p->ctx, RF_LOG_WARN, "APR v2: unknown flag bits 0x%04x", flags & ~APR_KNOWN_FLAGS);
    if (flags & APR_SHARDED)
        rf__log(p->ctx, RF_LOG_WARN, "APR v2: one shard of a sharded model: its tensors only");
    uint64_t mend;
    if (a->metadata_offset < 64 || !rf__add_ok(a->metadata_offset, *meta_size, &mend) ||
        mend > p->size)
        return RF__APR_BAD(p, 12,
                           "APR v2 metadata [%llu, + %u bytes) at byte 12 is not between the "
                           "header and the end of the file (%llu bytes)",
                           (unsigned long long)a->metadata_offset, *meta_size,
                           (unsigned long long)p->size);
    if (*meta_size > RF_APR_MAX_METADATA)
        return rf__error(p->ctx, RF_RANGE, 20,
                         "APR v2 metadata of %u bytes is above the 64 MiB "
                         "limit",
                         *meta_size);
    if (a->index_offset < mend || a->index_offset > p->size)
        return RF__APR_BAD(p, 24,
                           "APR v2 tensor index offset %llu at byte 24 is not between the end of "
                           "the metadata (%llu) and the end of the file (%llu)",
                           (unsigned long long)a->index_offset, (unsigned long long)mend,
                           (unsigned long long)p->size);
    if (a->data_offset < a->index_offset || a->data_offset > p->size)
        return RF__APR_BAD(p, 32,
                           "APR v2 data offset %llu at byte 32 is not between the tensor index "
                           "(%llu) and the end of the file (%llu)",
                           (unsigned long long)a->data_offset, (unsigned long long)a->index_offset,
                           (unsigned long long)p->size);
    if (*count > (a->data_offset - a->index_offset) / 20)
        return RF__APR_BAD(p, 8, "APR v2 tensor count %u at byte 8 does not fit a %llu-byte index",
                           *count, (unsigned long long)(a->data_offset - a->index_offset));
    return RF_OK;
}

static rf_status apr_v2(rf__apr_parse *p)
{
    rf_apr *a = p->a;
    uint32_t count = 0, msize = 0;
    RF_TRY(apr_v2_header(p, &count, &msize));
    if (count && p->base[a->index_offset] == '[')
        return rf__error(p->ctx, RF_UNSUPPORTED, (int64_t)a->index_offset,
                         "APR v2 tensor index at byte %llu is JSON (realizar's to_apr_bytes "
                         "payload), not a model's binary index",
                         (unsigned long long)a->index_offset);
    RF_TRY(rf__gg_index_init(p->ctx, &a->priv->ix, count));
    rf__cursor c;
    rf__cursor_init(&c, p->base, (size_t)a->data_offset);
    rf__cursor_skip(&c, (size_t)a->index_offset);
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (uint32_t i = 0; i < count; i++) RF_TRY(apr_entry(p, &c, &prev, &prev_len));
    a->tensors = a->priv->tensors;
    RF_TRY(apr_data_end(p));
    return rf__apr_meta(p, p->base + a->metadata_offset, msize, a->metadata_offset);
}

static rf_status apr_dispatch(rf__apr_parse *p)
{
    const uint8_t *h = p->base;
    if (!rf_apr_magic(h, (size_t)p->size))
        return RF__APR_BAD(p, 0, "not an APR file (no APR\\0, APR1, APR2 or APRN magic at byte 0)");
    if (h[3] == 'N') return rf__apr_aprn(p);
    if (h[3] == '1') return rf__apr_v1(p);
    if (h[3] == '2') return apr_v2(p);
    if (p->size < 5)
        return RF__APR_BAD(p, p->size, "APR truncated: %llu bytes", (unsigned long long)p->size);
    int zstd = p->size >= 13 && h[4] == 2 && memcmp(h + 9, "\x28\xb5\x2f\xfd", 4) == 0;
    if (h[4] == 2 && !zstd) return apr_v2(p);
    if (h[4] <= 2) return rf__apr_wrapper(p);
    return rf__error(p->ctx, RF_UNSUPPORTED, 4,
                     "APR\\0 with version byte %u at byte 4: only version 2 (and the APR1 wrappers "
                     "0 and 1) are known",
                     h[4]);
}

void rf_apr_free(rf_apr *a)
{
    if (!a) return;
    rf_allocator al = a->alloc_;
    rf__apr_priv *pv = a->priv;
    if (pv) {
        for (uint64_t i = 0; pv->tensors && i < a->n_tensors; i++)
            rf__free_with(&al, (void *)pv->tensors[i].name);
        rf__free_with(&al, pv->tensors);
        rf__gg_index_free(&al, &pv->ix);
        rf__free_with(&al, pv->inflated);
        json_decref(pv->meta);
        rf__free_with(&al, pv);
    }
    rf__free_with(&al, a);
}

rf_status rf_apr_parse(rf_ctx *ctx, const void *data, size_t size, const char *name, unsigned flags,
                       rf_apr **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, out && (data || size == 0), RF_USAGE, "rf_apr_parse: bad arguments");
    *out = NULL;
    rf_apr *a = rf__calloc(ctx, 1, sizeof *a);
    if (a) a->alloc_ = *rf_ctx_allocator(ctx);
    rf__apr_priv *pv = a ? rf__calloc(ctx, 1, sizeof *pv) : NULL;
    if (!pv) {
        rf__free(ctx, a);
        return RF_NOMEM_ERR(ctx);
    }
    a->priv = pv;
    a->file_size = size;
    rf__apr_parse p = {ctx, data ? data : (const uint8_t *)"", size, flags, a};
    rf_status st = apr_dispatch(&p);
    json_decref(pv->meta);
    pv->meta = NULL;
    if (st != RF_OK) {
        rf_apr_free(a);
        return name ? rf__error_prefix(ctx, name) : st;
    }
    a->tensors = pv->tensors;
    *out = a;
    return RF_OK;
}

rf_status rf_apr_read_file(rf_ctx *ctx, const char *path, unsigned flags, rf_apr **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_apr_read_file: path and out are required");
    rf__map map;
    *out = NULL;
    RF_TRY(rf__map_file(ctx, path, (uint64_t)1 << 50, &map));
    rf_status st = rf_apr_parse(ctx, map.data, map.size, path, flags, out);
    rf__unmap_file(&map); /* names are copied: the pages read go back at once */
    return st;
}

const rf_apr_tensor *rf_apr_find(const rf_apr *a, const char *name)
{
    if (!a || !name) return NULL;
    uint64_t i = rf__gg_index_get(&a->priv->ix, name, strlen(name), apr_name, a->tensors);
    return i ? &a->tensors[i - 1] : NULL;
}
