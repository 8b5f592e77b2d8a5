/* io.c — bring an input file into memory for the (data, size) parsers: mmap for regular files
 * (POSIX mmap, read-only, private), a bounded read into a context buffer for standard input ("-",
 * which may be a pipe). A named path must be a regular file (core/file.h): a FIFO or /dev/zero is
 * refused, never read. Owns only the mapping; never parses, never prints. Errors name the path.
 * Known limit of mmap: a file truncated by another process while mapped raises SIGBUS. */
/* madvise(MADV_DONTNEED) is a BSD/Linux call beyond POSIX: rf__map_drop_before. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/io.h"

static const uint8_t rf__map_empty[1] = {0};

/* Name of the input in messages: the path, or "standard input" for "-". */
static const char *rf__map_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* RF_IO naming the path and the reason for errno `e`. */
static rf_status rf__map_errno(rf_ctx *ctx, const char *path, const char *what, int e)
{
    return rf__file_errno(ctx, rf__map_name(path), what, e);
}

static rf_status rf__map_too_large(rf_ctx *ctx, const char *path, uint64_t max_bytes)
{
    return rf__error(ctx, RF_RANGE, -1, "%s: too large (the limit is %llu bytes)",
                     rf__map_name(path), (unsigned long long)max_bytes);
}

/* Read fd to its end into a context buffer of at most max_bytes. */
static rf_status rf__map_read_fd(rf_ctx *ctx, int fd, const char *path, uint64_t max_bytes,
                                 rf__map *map)
{
    uint8_t *buf = NULL;
    size_t cap = 0, len = 0;
    rf_status st = RF_OK;
    if (max_bytes > SIZE_MAX - 1) max_bytes = SIZE_MAX - 1;
    for (;;) {
        if (len == cap) {
            size_t want = cap ? cap + 1 : 65536; /* rf__grow doubles from here */
            RF_TRY_GOTO(st, rf__grow(ctx, (void **)&buf, &cap, want, 1), fail);
        }
        size_t room = cap - len;
        if (room > max_bytes + 1 - len) room = (size_t)(max_bytes + 1 - len); /* one over: detect */
        ssize_t n = read(fd, buf + len, room);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            st = rf__map_errno(ctx, path, "read error: ", errno);
            goto fail;
        }
        if (n == 0) break;
        len += (size_t)n;
        if (len > max_bytes) {
            st = rf__map_too_large(ctx, path, max_bytes);
            goto fail;
        }
    }
    map->heap = buf;
    map->data = len ? buf : rf__map_empty;
    map->size = len;
    return RF_OK;
fail:
    rf__free(ctx, buf);
    if (st == RF_NOMEM) rf__error_prefix(ctx, rf__map_name(path));
    return st;
}

/* mmap a regular file of `size` bytes (size > 0). */
static rf_status rf__map_mmap(rf_ctx *ctx, int fd, const char *path, size_t size, rf__map *map)
{
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return rf__map_errno(ctx, path, "cannot map: ", errno);
#ifdef MADV_SEQUENTIAL
    (void)madvise(p, size, MADV_SEQUENTIAL);
#endif
    map->mapped = p;
    map->mapped_len = size;
    map->data = p;
    map->size = size;
    return RF_OK;
}

/* The regular, non-regular or directory branch for an open descriptor. */
static rf_status rf__map_fd(rf_ctx *ctx, int fd, const char *path, uint64_t max_bytes, rf__map *map)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return rf__map_errno(ctx, path, "cannot stat: ", errno);
    if (S_ISDIR(st.st_mode)) return rf__map_errno(ctx, path, "", EISDIR);
    if (!S_ISREG(st.st_mode)) return rf__map_read_fd(ctx, fd, path, max_bytes, map);
    if (st.st_size < 0 || (uint64_t)st.st_size > max_bytes || (uint64_t)st.st_size > SIZE_MAX)
        return rf__map_too_large(ctx, path, max_bytes);
    if (st.st_size == 0) return RF_OK; /* map is already the empty input */
    return rf__map_mmap(ctx, fd, path, (size_t)st.st_size, map);
}

rf_status rf__map_file(rf_ctx *ctx, const char *path, uint64_t max_bytes, rf__map *map)
{
    memset(map, 0, sizeof *map);
    map->data = rf__map_empty;
    map->ctx = ctx;
    if (!path || !path[0]) return rf__error(ctx, RF_USAGE, -1, "no input file name given");
    if (strcmp(path, "-") == 0) return rf__map_fd(ctx, STDIN_FILENO, path, max_bytes, map);
    int fd;
    uint64_t size;
    RF_TRY(rf__open_regular(ctx, path, &fd, &size));
    rf_status st = rf__map_fd(ctx, fd, path, max_bytes, map);
    close(fd); /* a mapping stays valid after its descriptor is closed */
    if (st != RF_OK) rf__unmap_file(map);
    return st;
}

void rf__unmap_file(rf__map *map)
{
    if (!map) return;
    if (map->mapped) munmap(map->mapped, map->mapped_len);
    if (map->heap) rf__free(map->ctx, map->heap);
    rf_ctx *ctx = map->ctx;
    memset(map, 0, sizeof *map);
    map->data = rf__map_empty;
    map->ctx = ctx;
}

void rf__map_drop_before(rf__map *map, const void *p)
{
#ifdef MADV_DONTNEED
    if (!map || !map->mapped) return; /* a heap buffer (standard input) keeps its bytes */
    const uint8_t *b = map->mapped, *q = p;
    long page = sysconf(_SC_PAGESIZE);
    if (q < b || q > b + map->mapped_len || page <= 0) return;
    size_t n = (size_t)(q - b), pg = (size_t)page;
    if (q < b + map->mapped_len) n = n > pg ? (n - pg) / pg * pg : 0; /* whole pages before p */
    /* A private read-only file mapping: the pages are dropped from memory and read from the file
     * again if touched, so nothing is lost; only the resident size shrinks. */
    if (n) (void)madvise(map->mapped, n, MADV_DONTNEED);
#else
    (void)map, (void)p;
#endif
}
