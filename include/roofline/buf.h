/* roofline/buf.h — where renderers write: a writer callback, and a growable memory buffer with a
 * hard cap that implements it. The library never writes to a file descriptor itself. */
#ifndef ROOFLINE_BUF_H
#define ROOFLINE_BUF_H

#include <stddef.h>

#include "export.h"
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A sink for text. `write` returns RF_OK or an error (e.g. RF_IO when stdout is closed). */
typedef struct rf_writer {
    rf_status (*write)(void *user, const char *data, size_t size);
    void *user;
} rf_writer;

/** A growable buffer owned by the caller. Initialise with rf_buf_init; release with rf_buf_free. */
typedef struct rf_buf {
    char *data;     /**< NUL-terminated contents (NULL until the first write) */
    size_t len;     /**< bytes written, excluding the NUL */
    size_t cap;     /**< bytes allocated */
    size_t max;     /**< hard cap on len; writes beyond it fail with RF_RANGE */
    rf_allocator a; /**< allocator used for data */
} rf_buf;

/** Start an empty buffer that may grow to `max_bytes` (0 = 256 MiB), allocating through `ctx`. */
RF_API void rf_buf_init(rf_buf *b, rf_ctx *ctx, size_t max_bytes);

/** Release the buffer's memory. Accepts NULL. */
RF_API void rf_buf_free(rf_buf *b);

/** Append `size` bytes. RF_NOMEM or RF_RANGE (cap reached). */
RF_API rf_status rf_buf_append(rf_buf *b, const char *data, size_t size);

/** A writer that appends to `b`. */
RF_API rf_writer rf_buf_writer(rf_buf *b);

/** Write through a writer; convenience for renderers. */
RF_API rf_status rf_write(rf_writer *w, const char *data, size_t size);

/** Write a string literal (its length known at compile time). */
#define RF_WRITE_LIT(w, lit) rf_write((w), "" lit, sizeof(lit) - 1)

/** printf-style write through a writer (formatted in chunks of up to 4 KiB; longer is cut). */
RF_API rf_status rf_writef(rf_writer *w, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Write `text` word-wrapped to `width` columns (UTF-8 code points count one column each): the
 *  first line starts with `first` (e.g. "  1. "), the following ones with `indent` spaces (at most
 *  32). Words are never split. Ends with a newline. */
RF_API rf_status rf_write_wrapped(rf_writer *w, size_t width, const char *first, size_t indent,
                                  const char *text);

#ifdef __cplusplus
}
#endif
#endif
