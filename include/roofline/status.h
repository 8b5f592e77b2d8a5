/* roofline/status.h — the status codes every fallible call returns.
 * One list, RF_STATUS_LIST, expands into the enum and the name/string tables (libuv's
 * UV_ERRNO_MAP), so a code and its text can never drift apart. The detail of an error lives on the
 * context (rf_ctx_errmsg), not in the code. */
#ifndef ROOFLINE_STATUS_H
#define ROOFLINE_STATUS_H

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, text). The order is part of the ABI: append only. */
#define RF_STATUS_LIST(X)                                                                          \
    X(OK, "success")                                                                               \
    X(NOMEM, "out of memory")                                                                      \
    X(IO, "input/output error")                                                                    \
    X(FORMAT, "malformed input")                                                                   \
    X(UNSUPPORTED, "unsupported input or feature")                                                 \
    X(RANGE, "value out of range")                                                                 \
    X(USAGE, "invalid argument")                                                                   \
    X(INTERNAL, "internal error")

/** Result of every call that can fail. RF_OK is 0; everything else is an error. */
typedef enum rf_status {
#define RF__STATUS_ENUM(name, text) RF_##name,
    RF_STATUS_LIST(RF__STATUS_ENUM)
#undef RF__STATUS_ENUM
        RF_STATUS_COUNT
} rf_status;

/** The code's short name ("FORMAT"); a static string, never NULL. Thread-safe. */
RF_API const char *rf_status_name(rf_status status);

/** A lower-case sentence fragment for the code ("malformed input"); static, never NULL. */
RF_API const char *rf_status_str(rf_status status);

/** True for the codes that mean the caller's input or usage was wrong (FORMAT, UNSUPPORTED, RANGE,
 *  USAGE, IO), as opposed to NOMEM and INTERNAL. The CLI maps the first to exit code 2. */
RF_API int rf_status_is_input_error(rf_status status);

#ifdef __cplusplus
}
#endif
#endif
