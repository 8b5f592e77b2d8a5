/* rf_int.h — internals shared by every module of the library: allocation through the context,
 * error reporting (RF_CHECK / RF_TRY, zstd's error_private.h), and small helpers.
 * Never installed; never included by cli/. */
#ifndef RF_INT_H
#define RF_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "roofline/buf.h"
#include "roofline/ctx.h"

#if defined(__GNUC__) || defined(__clang__)
#define RF__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RF__PRINTF(a, b)
#endif

void *rf__malloc(rf_ctx *ctx, size_t size);
void *rf__calloc(rf_ctx *ctx, size_t n, size_t size);
void *rf__realloc(rf_ctx *ctx, void *ptr, size_t size);
void rf__free(rf_ctx *ctx, void *ptr);
char *rf__strdup(rf_ctx *ctx, const char *s);
char *rf__strndup(rf_ctx *ctx, const char *s, size_t n);

/* Allocation through a copied allocator (for objects that outlive the call, e.g. rf_machine). */
void *rf__alloc_with(const rf_allocator *a, void *ptr, size_t size);
void rf__free_with(const rf_allocator *a, void *ptr);

/* Grow *ptr (of *cap elements of `elem` bytes) to hold at least `need`; doubles. RF_NOMEM/RF_RANGE.
 */
rf_status rf__grow(rf_ctx *ctx, void **ptr, size_t *cap, size_t need, size_t elem);

/* Set the context's error and return `status`. offset -1 when none. */
rf_status rf__error(rf_ctx *ctx, rf_status status, int64_t offset, const char *fmt, ...)
    RF__PRINTF(4, 5);
rf_status rf__verror(rf_ctx *ctx, rf_status status, int64_t offset, const char *fmt, va_list ap);

/* Prefix the current error message with "prefix: " (e.g. a file name). Returns the status. */
rf_status rf__error_prefix(rf_ctx *ctx, const char *prefix);

/* Make the current error message start with `name` (a file the user gave), prefixing it unless it
 * already does: every bad-input message names the file. Returns the status. */
rf_status rf__error_name(rf_ctx *ctx, const char *name);

/* Log through the context's callback, if any. */
void rf__log(rf_ctx *ctx, rf_log_level level, const char *fmt, ...) RF__PRINTF(3, 4);

/* Out-of-memory error with a message. */
#define RF_NOMEM_ERR(ctx) rf__error((ctx), RF_NOMEM, -1, "out of memory")

/* If !(cond): set the error and return `code` from the enclosing function. */
#define RF_CHECK(ctx, cond, code, ...)                                                             \
    do {                                                                                           \
        if (!(cond)) return rf__error((ctx), (code), -1, __VA_ARGS__);                             \
    } while (0)

/* Evaluate an rf_status expression; return it from the enclosing function if it failed. */
#define RF_TRY(expr)                                                                               \
    do {                                                                                           \
        rf_status rf__st = (expr);                                                                 \
        if (rf__st != RF_OK) return rf__st;                                                        \
    } while (0)

/* Same, but jump to `label` with `st` set (for functions with one cleanup label). */
#define RF_TRY_GOTO(st, expr, label)                                                               \
    do {                                                                                           \
        (st) = (expr);                                                                             \
        if ((st) != RF_OK) goto label;                                                             \
    } while (0)

/* Overflow-checked size arithmetic: return 0 on overflow, 1 otherwise. */
static inline int rf__mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a) return 0;
    *out = a * b;
    return 1;
}
static inline int rf__add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a) return 0;
    *out = a + b;
    return 1;
}

/* Bounded string copy that always terminates; returns strlen(src) (like strlcpy). */
size_t rf__strlcpy(char *dst, const char *src, size_t size);

/* Case-insensitive ASCII comparisons (locale independent). */
int rf__strcasecmp(const char *a, const char *b);
int rf__strncasecmp(const char *a, const char *b, size_t n);

/* Bytes this process may still take (memlimit.c): the least of MemAvailable, RLIMIT_AS and
 * RLIMIT_DATA less what is mapped, and the cgroup's limit less its usage; *what names the one that
 * binds. UINT64_MAX when none is known. */
uint64_t rf__mem_usable(const char **what);

/* CPU time of every process (busy, total) and of this one (self), in seconds, from /proc/stat
 * and getrusage; ok = 0 when /proc/stat could not be read. (core/cpuload.c) */
typedef struct rf__cpu_times {
    double busy, total, self;
    int ok;
} rf__cpu_times;
rf__cpu_times rf__cpu_times_now(void);
/* Share of the machine's CPU time that other processes used between samples a and b, 0..1;
 * -1 when unknown (no /proc/stat, or under 0.2 CPU-seconds between them: too coarse). */
double rf__cpu_others_share(const rf__cpu_times *a, const rf__cpu_times *b);
/* snprintf that appends at *len into buf[size]; keeps the buffer terminated; never overflows. */
void rf__appendf(char *buf, size_t size, size_t *len, const char *fmt, ...) RF__PRINTF(4, 5);

/* Strict decimal number scan of s[0..n): optional sign, digits with an optional fraction, optional
 * exponent; no hex, no NaN/Inf, no spaces. Returns RF_OK and *out, or RF_FORMAT (not a number) or
 * RF_RANGE (negative when !allow_negative, or overflow to infinity) with *why set to a short
 * static explanation. Locale independent. */
rf_status rf__decimal_scan(const char *s, size_t n, int allow_negative, double *out,
                           const char **why);

/* printf's "%.<prec>g" of v (1 <= prec <= 9) into buf, without printf's cost on the common path
 * (units.c; byte-identical output, snprintf where double arithmetic cannot decide a rounding). */
char *rf__g_format(char *buf, size_t size, double v, int prec);
/* rf__g_format's fast half: returns 0, writing nothing, when only snprintf can decide. */
int rf__g_fast(char *buf, size_t size, double v, int prec);
/* printf's "%.1f" of v followed by `suffix` ("%" for a share), the same way. */
char *rf__f1_format(char *buf, size_t size, double v, const char *suffix);
/* rf_number_format through strfromd and strtod alone (the reference its fast path is tested
 * against). */
char *rf__number_format_slow(char *buf, size_t size, double value);
/* printf's "%llu" of v into buf (at least 21 bytes); returns buf. */
char *rf__u64_text(char *buf, uint64_t v);

/* A writer that gathers small writes (a table's cells) into 16 KiB before passing them on, so
 * the writer below (a terminal filter, stdio) runs once a block, not once a cell. Flush before
 * the inner writer is used directly and at the end; the struct lives on the caller's stack. */
typedef struct rf__staged {
    rf_writer *inner;
    size_t n;
    char buf[16384];
} rf__staged;
rf_writer rf__staged_writer(rf__staged *s, rf_writer *inner);
rf_status rf__staged_flush(rf__staged *s);

#endif
