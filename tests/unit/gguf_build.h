/* gguf_build.h — a tiny GGUF writer for tests: builds images in memory byte by byte (either byte
 * order), so every refusal of the reader can be produced exactly. Test-only; aborts on OOM. */
#ifndef RF_TEST_GGUF_BUILD_H
#define RF_TEST_GGUF_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct gb {
    uint8_t *p;
    size_t n, cap;
    int be;
} gb;

static inline void gb_raw(gb *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    if (n) memcpy(b->p + b->n, s, n);
    b->n += n;
}

static inline void gb_uint(gb *b, uint64_t v, unsigned n)
{
    uint8_t t[8];
    for (unsigned i = 0; i < n; i++) t[b->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
    gb_raw(b, t, n);
}
static inline void gb_u32(gb *b, uint32_t v)
{
    gb_uint(b, v, 4);
}
static inline void gb_u64(gb *b, uint64_t v)
{
    gb_uint(b, v, 8);
}
static inline void gb_str(gb *b, const char *s)
{
    gb_u64(b, strlen(s));
    gb_raw(b, s, strlen(s));
}
static inline void gb_header(gb *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv)
{
    gb_raw(b, "GGUF", 4);
    gb_u32(b, version);
    gb_u64(b, n_tensors);
    gb_u64(b, n_kv);
}
static inline void gb_kv_u32(gb *b, const char *key, uint32_t v)
{
    gb_str(b, key);
    gb_u32(b, 4);
    gb_u32(b, v);
}
static inline void gb_kv_str(gb *b, const char *key, const char *v)
{
    gb_str(b, key);
    gb_u32(b, 8);
    gb_str(b, v);
}
/* dims[0] innermost, as in the file. */
static inline void gb_tensor(gb *b, const char *name, uint32_t n_dims, const uint64_t *dims,
                             uint32_t type, uint64_t offset)
{
    gb_str(b, name);
    gb_u32(b, n_dims);
    for (uint32_t i = 0; i < n_dims; i++) gb_u64(b, dims[i]);
    gb_u32(b, type);
    gb_u64(b, offset);
}
static inline void gb_zeros(gb *b, size_t n)
{
    for (size_t i = 0; i < n; i++) gb_raw(b, "", 1);
}
static inline void gb_pad(gb *b, size_t align)
{
    gb_zeros(b, (align - b->n % align) % align);
}
static inline void gb_free(gb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

#endif
