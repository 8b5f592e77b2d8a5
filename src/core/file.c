/* file.c — opening input files for the parsers (core/file.h): O_NONBLOCK, fstat, regular files
 * only, every refusal naming the path. Owns no data; never reads, never prints. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

rf_status rf__file_errno(rf_ctx *ctx, const char *path, const char *what, int e)
{
    const char *why;
    char buf[128];
    switch (e) {
    case ENOENT: why = "no such file or directory"; break;
    case ENOTDIR: why = "a component of the path is not a directory"; break;
    case EACCES:
    case EPERM: why = "permission denied"; break;
    case EISDIR: why = "is a directory"; break;
    case ELOOP: why = "too many levels of symbolic links"; break;
    default:
        if (strerror_r(e, buf, sizeof buf) != 0) buf[0] = '\0';
        why = buf[0] ? buf : "unknown error";
    }
    return rf__error(ctx, RF_IO, -1, "%s: %s%s", path, what, why);
}

static const char *rf__file_kind(mode_t m)
{
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "a special file";
}

rf_status rf__open_regular(rf_ctx *ctx, const char *path, int *fd, uint64_t *size)
{
    *fd = -1;
    *size = 0;
    int f;
    do {
        f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    } while (f < 0 && errno == EINTR);
    if (f < 0) return rf__file_errno(ctx, path, "", errno);
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return rf__file_errno(ctx, path, "cannot stat: ", e);
    }
    if (S_ISDIR(st.st_mode)) {
        close(f);
        return rf__file_errno(ctx, path, "", EISDIR);
    }
    if (!S_ISREG(st.st_mode) || st.st_size < 0) {
        close(f);
        return rf__error(ctx, RF_IO, -1, "%s: is %s, not a regular file (only files are read)",
                         path, rf__file_kind(st.st_mode));
    }
    /* O_NONBLOCK means nothing for a regular file, but clear it for whoever reads the fd */
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) (void)fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    *size = (uint64_t)st.st_size;
    return RF_OK;
}
