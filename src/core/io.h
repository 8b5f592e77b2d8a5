/* io.h — the one way the library reads a file: mapped read-only into memory for the (data, size)
 * parsers of every module (models, operations lists, machine files, saved results, the probe
 * cache). Never installed; never included by cli/. */
#ifndef RF_CORE_IO_H
#define RF_CORE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "core/rf_int.h"

/* A file's bytes in memory: mapped read-only (regular files), or read into a buffer from the
 * context (standard input, pipes and other non-regular files). `data` is valid, and never NULL,
 * until rf__unmap_file; `size` may be 0. */
typedef struct rf__map {
    const uint8_t *data;
    size_t size;
    void *mapped;      /* mmap base, or NULL */
    size_t mapped_len; /* length given to mmap */
    void *heap;        /* buffer from rf__malloc, or NULL */
    rf_ctx *ctx;       /* the context that owns `heap` */
} rf__map;

/* Map `path` (a regular file) or read it ("-" is standard input; FIFOs and character devices are
 * read too) into *map. Refuses more than max_bytes. On failure *map is empty (safe to unmap) and
 * the error names the path: RF_IO (no such file, permission denied, is a directory, read error),
 * RF_RANGE (too large), RF_NOMEM. Size-0 files are not mapped (mmap refuses length 0). */
rf_status rf__map_file(rf_ctx *ctx, const char *path, uint64_t max_bytes, rf__map *map);

/* Let the memory of a mapped file's pages before `p` go (a streaming reader that is past them:
 * they are read from the file again if touched). Nothing for a heap buffer or a p outside. */
void rf__map_drop_before(rf__map *map, const void *p);

/* Release what rf__map_file acquired; leaves *map empty. Accepts an empty or zeroed map. */
void rf__unmap_file(rf__map *map);

#endif
