/* cursor.h — the one bounded byte cursor every format reader shares: position, end, offsets,
 * peek/advance/skip/expect for text formats and little-endian integer/float reads for binary ones.
 * Every read checks the bounds first and leaves the cursor unchanged when it fails; nothing here
 * allocates, sets an error or knows a format. Also: UTF-8 validation (RFC 3629) and safe excerpts
 * of input bytes for error messages (cursor.c). Internal: never installed. */
#ifndef RF_FORMATS_CURSOR_H
#define RF_FORMATS_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A window [base, end) over borrowed input; p is the current position, base <= p <= end. */
typedef struct rf__cursor {
    const uint8_t *base; /* first byte of the input: offsets count from here */
    const uint8_t *p;    /* current position */
    const uint8_t *end;  /* one past the last byte */
} rf__cursor;

/* Start at the first byte of data[0..size). data may be NULL only when size is 0. */
static inline void rf__cursor_init(rf__cursor *c, const void *data, size_t size)
{
    static const uint8_t empty[1] = {0};
    c->base = data ? (const uint8_t *)data : empty;
    c->p = c->base;
    c->end = c->base + (data ? size : 0);
}

/* Offset of the current position from the start of the input, in bytes. */
static inline size_t rf__cursor_offset(const rf__cursor *c)
{
    return (size_t)(c->p - c->base);
}

/* Bytes left from the current position to the end. */
static inline size_t rf__cursor_left(const rf__cursor *c)
{
    return (size_t)(c->end - c->p);
}

/* Non-zero at the end of the input. */
static inline int rf__cursor_eof(const rf__cursor *c)
{
    return c->p >= c->end;
}

/* The current byte (0..255), or -1 at the end. Does not move. */
static inline int rf__cursor_peek(const rf__cursor *c)
{
    return c->p < c->end ? *c->p : -1;
}

/* The byte `k` positions ahead of the current one, or -1 past the end. Does not move. */
static inline int rf__cursor_peek_at(const rf__cursor *c, size_t k)
{
    return k < rf__cursor_left(c) ? c->p[k] : -1;
}

/* Move forward by n bytes. Returns 1, or 0 (cursor unchanged) when fewer than n bytes are left. */
static inline int rf__cursor_skip(rf__cursor *c, size_t n)
{
    if (n > rf__cursor_left(c)) return 0;
    c->p += n;
    return 1;
}

/* Move forward by one byte if any is left (a no-op at the end). */
static inline void rf__cursor_advance(rf__cursor *c)
{
    if (c->p < c->end) c->p++;
}

/* Skip JSON/CSV blank characters: space, tab, CR, LF (RFC 8259 section 2 "ws"). */
static inline void rf__cursor_skip_ws(rf__cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

/* Skip spaces and tabs only (within a line). */
static inline void rf__cursor_skip_blanks(rf__cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t')) c->p++;
}

/* Consume `byte` if it is the current byte. Returns 1 when consumed, 0 otherwise. */
static inline int rf__cursor_expect(rf__cursor *c, uint8_t byte)
{
    if (c->p >= c->end || *c->p != byte) return 0;
    c->p++;
    return 1;
}

/* Consume the n bytes of `s` if the input continues with exactly them. Returns 1 or 0. */
static inline int rf__cursor_expect_bytes(rf__cursor *c, const void *s, size_t n)
{
    if (n > rf__cursor_left(c) || memcmp(c->p, s, n) != 0) return 0;
    c->p += n;
    return 1;
}

/* Borrow the next n bytes: *out points into the input. Returns 1, or 0 when too few are left. */
static inline int rf__cursor_bytes(rf__cursor *c, size_t n, const uint8_t **out)
{
    if (n > rf__cursor_left(c)) return 0;
    *out = c->p;
    c->p += n;
    return 1;
}

/* Little-endian reads: 1 and the value, or 0 (cursor unchanged) when the input is too short.
 * Assembled byte by byte, so they work on any host byte order and any alignment. */
static inline int rf__cursor_u8(rf__cursor *c, uint8_t *out)
{
    if (c->p >= c->end) return 0;
    *out = *c->p++;
    return 1;
}

static inline int rf__cursor_u16(rf__cursor *c, uint16_t *out)
{
    if (rf__cursor_left(c) < 2) return 0;
    *out = (uint16_t)(c->p[0] | (unsigned)c->p[1] << 8);
    c->p += 2;
    return 1;
}

static inline int rf__cursor_u32(rf__cursor *c, uint32_t *out)
{
    if (rf__cursor_left(c) < 4) return 0;
    *out = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
           (uint32_t)c->p[3] << 24;
    c->p += 4;
    return 1;
}

static inline int rf__cursor_u64(rf__cursor *c, uint64_t *out)
{
    if (rf__cursor_left(c) < 8) return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | c->p[i];
    *out = v;
    c->p += 8;
    return 1;
}

/* IEEE 754 binary32 / binary64 stored little-endian. */
static inline int rf__cursor_f32(rf__cursor *c, float *out)
{
    uint32_t bits;
    if (!rf__cursor_u32(c, &bits)) return 0;
    memcpy(out, &bits, sizeof *out);
    return 1;
}

static inline int rf__cursor_f64(rf__cursor *c, double *out)
{
    uint64_t bits;
    if (!rf__cursor_u64(c, &bits)) return 0;
    memcpy(out, &bits, sizeof *out);
    return 1;
}

/* Validate UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 * Returns n when s[0..n) is valid, else the index of the first byte of the bad sequence. */
size_t rf__utf8_check(const uint8_t *s, size_t n);

/* Write a printable, NUL-terminated excerpt of s[0..n) into out[0..cap): printable ASCII as is,
 * `"` and `\` escaped, other bytes as \xNN; cut with "..." so it fits and is at most `max` input
 * bytes long. For quoting input in error messages without echoing control characters. */
const char *rf__excerpt(char *out, size_t cap, const void *s, size_t n, size_t max);

#endif
