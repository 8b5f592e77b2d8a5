/* roofline/ctx.h — the context: the one object that holds state for the library.
 * It owns the allocator, the last error (message and byte offset) and an optional log callback.
 * No call keeps hidden global state; use one context per thread (zstd's rule). */
#ifndef ROOFLINE_CTX_H
#define ROOFLINE_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque. Create with rf_ctx_new, release with rf_ctx_free. Not thread-safe: one per thread. */
typedef struct rf_ctx rf_ctx;

/** A custom allocator. All three functions are required when one is given; `user` is passed back.
 *  realloc_fn(user, NULL, n) must behave as malloc_fn. */
typedef struct rf_allocator {
    void *(*malloc_fn)(void *user, size_t size);
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    void (*free_fn)(void *user, void *ptr);
    void *user;
} rf_allocator;

/** Severity of a log message. */
typedef enum rf_log_level { RF_LOG_DEBUG, RF_LOG_INFO, RF_LOG_WARN } rf_log_level;

/** Log callback: receives one message without a trailing newline. The library never prints; this is
 *  how it reports warnings (e.g. an operation whose cost is unknown) and progress. */
typedef void (*rf_log_fn)(void *user, rf_log_level level, const char *message);

/** Create a context. `alloc` may be NULL (the C library's malloc). The allocator is copied.
 *  Returns RF_NOMEM when the context itself cannot be allocated; *out is then NULL. */
RF_API rf_status rf_ctx_new(rf_ctx **out, const rf_allocator *alloc);

/** Release a context. Accepts NULL. Objects created through it must be freed before. */
RF_API void rf_ctx_free(rf_ctx *ctx);

/** The message of the last error on this context: one sentence naming the file and the item, e.g.
 *  "ops.csv: row 3, field 'flops': \"abc\" is not a number". Empty string when there was none.
 *  Valid until the next call that fails on this context. */
RF_API const char *rf_ctx_errmsg(const rf_ctx *ctx);

/** Byte offset in the input where the last error was found, or -1 when it has none. */
RF_API int64_t rf_ctx_error_offset(const rf_ctx *ctx);

/** Status of the last error on this context (RF_OK after rf_ctx_clear_error). */
RF_API rf_status rf_ctx_error_status(const rf_ctx *ctx);

/** Forget the last error. */
RF_API void rf_ctx_clear_error(rf_ctx *ctx);

/** Install a log callback (NULL removes it). Messages below `min_level` are dropped. */
RF_API void rf_ctx_set_log(rf_ctx *ctx, rf_log_fn fn, void *user, rf_log_level min_level);

/** The allocator this context uses (a copy of the one given, or the C library's). */
RF_API const rf_allocator *rf_ctx_allocator(const rf_ctx *ctx);

/** Test hook: make the `n`-th allocation from now (1-based) fail, and every one after it while
 *  `sticky` is non-zero. n = 0 disables failure injection. Returns nothing; used by the
 *  out-of-memory sweeps in tests/ (curl's allocation limits, SQLite's malloc stress). */
RF_API void rf_ctx_fail_alloc_after(rf_ctx *ctx, uint64_t n, int sticky);

/** Number of allocations made through this context so far (for the out-of-memory sweeps). */
RF_API uint64_t rf_ctx_alloc_count(const rf_ctx *ctx);

/** Library version as "MAJOR.MINOR.PATCH"; static. */
RF_API const char *rf_version(void);

#ifdef __cplusplus
}
#endif
#endif
