/* file.h — opening an input file for a parser: only regular files are read (issue 11 item 4).
 * A FIFO, a character device (/dev/zero behind a symlink), a socket or a directory is refused
 * before any read, so it can neither hang the program nor feed it endless bytes.
 * Never installed; never included by cli/. */
#ifndef RF_FILE_H
#define RF_FILE_H

#include <stdint.h>

#include "core/rf_int.h"

/* Open `path` read-only with O_NONBLOCK (opening a FIFO never waits for a writer) and
 * O_CLOEXEC, fstat it, and keep it only when it is a regular file. RF_OK with *fd (the caller
 * closes it) and *size (bytes); else RF_IO with "PATH: REASON" on the context (no such file,
 * permission denied, is a directory, "is a FIFO, not a regular file", ...). */
rf_status rf__open_regular(rf_ctx *ctx, const char *path, int *fd, uint64_t *size);

/* "PATH: REASON" (RF_IO) for errno `e`, REASON after `what` ("", "read error: ", ...). */
rf_status rf__file_errno(rf_ctx *ctx, const char *path, const char *what, int e);

#endif
