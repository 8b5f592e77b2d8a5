/* checked.h — overflow-checked signed 64-bit arithmetic for numbers that came from a file (dims,
 * pads, strides, groups, steps): each helper returns 1 and stores the exact result, or 0 on
 * overflow and leaves *out alone — never a wrapped value, never undefined behaviour (curl's
 * curlx_ helpers, SQLite's sqlite3AddInt64). Unsigned sizes use rf__mul_ok/rf__add_ok in rf_int.h.
 */
#ifndef RF_CHECKED_H
#define RF_CHECKED_H

#include <stdint.h>

static inline int rf__i64_add(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return 0;
    *out = r;
    return 1;
}

static inline int rf__i64_sub(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return 0;
    *out = r;
    return 1;
}

static inline int rf__i64_mul(int64_t a, int64_t b, int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return 0;
    *out = r;
    return 1;
}

/* ceil(a / b) for a >= 0, b > 0, without forming a + b - 1. */
static inline int64_t rf__i64_div_ceil(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

#endif
