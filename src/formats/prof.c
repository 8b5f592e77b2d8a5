/* prof.c — entry points of the profiler-measurement reader (roofline/prof.h, docs/prof-import.md):
 * the choice between Nsight Compute CSV and PyTorch trace, the table that sums launches by kernel
 * name, and the rows handed to an analysis (one per kernel, its L1/L2/DRAM intensities in the
 * detail: the hierarchical roofline). The grammars live in ncu.c and torch_trace.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/analysis_int.h"
#include "formats/prof_int.h"

#define RF__PROF_MAX_FILE_BYTES ((uint64_t)4 << 30) /* 4 GiB */

/* FNV-1a over the name. */
static uint64_t prof_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static rf_status prof_rehash(rf__prof_table *t)
{
    size_t n_slot = t->n_slot ? t->n_slot * 2 : 64;
    uint32_t *slot = rf__calloc(t->ctx, n_slot, sizeof *slot);
    if (!slot) return RF_NOMEM_ERR(t->ctx);
    for (size_t i = 0; i < t->n; i++) {
        size_t j = prof_hash(t->k[i].name, strlen(t->k[i].name)) & (n_slot - 1);
        while (slot[j]) j = (j + 1) & (n_slot - 1);
        slot[j] = (uint32_t)(i + 1);
    }
    rf__free(t->ctx, t->slot);
    t->slot = slot;
    t->n_slot = n_slot;
    return RF_OK;
}

rf_status rf__prof_kernel_get(rf__prof_table *t, const char *name, size_t len, rf_prof_kernel **out)
{
    if (len > RF__PROF_NAME_MAX) len = RF__PROF_NAME_MAX;
    if (t->n_slot) {
        size_t j = prof_hash(name, len) & (t->n_slot - 1);
        for (; t->slot[j]; j = (j + 1) & (t->n_slot - 1)) {
            rf_prof_kernel *k = &t->k[t->slot[j] - 1];
            if (strncmp(k->name, name, len) == 0 && k->name[len] == '\0') {
                *out = k;
                return RF_OK;
            }
        }
    }
    if (t->n >= RF__PROF_MAX_KERNELS)
        return rf__error(t->ctx, RF_RANGE, -1, "more than %u distinct kernels",
                         (unsigned)RF__PROF_MAX_KERNELS);
    if ((t->n + 1) * 2 > t->n_slot) RF_TRY(prof_rehash(t));
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        rf_prof_kernel *k = rf__realloc(t->ctx, t->k, cap * sizeof *k);
        if (!k) return RF_NOMEM_ERR(t->ctx);
        t->k = k;
        t->cap = cap;
    }
    char *copy = rf__malloc(t->ctx, len + 1);
    if (!copy) return RF_NOMEM_ERR(t->ctx);
    memcpy(copy, name, len);
    copy[len] = '\0';
    rf_prof_kernel *k = &t->k[t->n];
    memset(k, 0, sizeof *k);
    k->name = copy;
    size_t j = prof_hash(copy, len) & (t->n_slot - 1);
    while (t->slot[j]) j = (j + 1) & (t->n_slot - 1);
    t->slot[j] = (uint32_t)(++t->n);
    *out = k;
    return RF_OK;
}

void rf__prof_table_free(rf__prof_table *t)
{
    for (size_t i = 0; i < t->n; i++) rf__free(t->ctx, (void *)t->k[i].name);
    rf__free(t->ctx, t->k);
    rf__free(t->ctx, t->slot);
    memset(t, 0, sizeof *t);
}

/* Does data[0..n) hold `key`? */
static int prof_has(const uint8_t *data, size_t n, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k <= n; i++)
        if (data[i] == (uint8_t)key[0] && memcmp(data + i, key, k) == 0) return 1;
    return 0;
}

/* The profile format the bytes look like, or AUTO when none. */
static rf_prof_format prof_look(const uint8_t *p, size_t n)
{
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
    size_t look = n - i < 65536 ? n - i : 65536;
    if (i < n && (p[i] == '{' || p[i] == '['))
        return prof_has(p + i, look, "\"traceEvents\"") ||
                       (p[i] == '[' && prof_has(p + i, look, "\"ph\""))
                   ? RF_PROF_TORCH
                   : RF_PROF_AUTO;
    return prof_has(p + i, look, "\"Kernel Name\"") &&
                   (prof_has(p + i, look, "\"Metric Name\"") || prof_has(p + i, look, "__") ||
                    prof_has(p + i, look, "==PROF=="))
               ? RF_PROF_NCU
               : RF_PROF_AUTO;
}

rf_status rf_prof_detect_file(rf_ctx *ctx, const char *path, rf_prof_format *out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_prof_detect_file: path and out are required");
    *out = RF_PROF_AUTO;
    if (strcmp(path, "-") == 0) return RF_OK;
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__PROF_MAX_FILE_BYTES, &map));
    *out = prof_look(map.data, map.size);
    rf__unmap_file(&map);
    return RF_OK;
}

/* AUTO: JSON when the first non-blank byte is '[' or '{'; ncu when a line before the data names
 * "Kernel Name"; else refused. */
static rf_status prof_sniff(rf_ctx *ctx, const rf__cursor *cur, rf_prof_format *fmt)
{
    rf__cursor probe = *cur;
    rf__cursor_skip_ws(&probe);
    int b = rf__cursor_peek(&probe);
    if (b == '[' || b == '{') {
        *fmt = RF_PROF_TORCH;
        return RF_OK;
    }
    size_t look = rf__cursor_left(&probe) < 65536 ? rf__cursor_left(&probe) : 65536;
    static const char key[] = "\"Kernel Name\"";
    for (size_t i = 0; i + sizeof key - 1 <= look; i++)
        if (memcmp(probe.p + i, key, sizeof key - 1) == 0) {
            *fmt = RF_PROF_NCU;
            return RF_OK;
        }
    return rf__error(ctx, RF_FORMAT, (int64_t)rf__cursor_offset(&probe),
                     "neither a PyTorch trace (JSON) nor an Nsight Compute CSV (no \"Kernel Name\" "
                     "column in its first 64 KiB); say which with --from");
}

static rf_status prof_parse_table(rf_ctx *ctx, const void *data, size_t size, rf_prof_format fmt,
                                  rf__prof_table *t, rf_prof_format *found)
{
    const uint8_t *nul = size ? memchr(data, 0, size) : NULL;
    if (nul) {
        size_t off = (size_t)(nul - (const uint8_t *)data);
        return rf__error(ctx, RF_FORMAT, (int64_t)off, "NUL byte at byte %zu (a profile is text)",
                         off);
    }
    rf__cursor cur;
    rf__cursor_init(&cur, data, size);
    rf__cursor_expect_bytes(&cur, "\xEF\xBB\xBF", 3);
    if (fmt == RF_PROF_AUTO) RF_TRY(prof_sniff(ctx, &cur, &fmt));
    if (found) *found = fmt;
    if (fmt == RF_PROF_TORCH)
        RF_TRY(rf__prof_parse_torch(ctx, cur.p, rf__cursor_left(&cur), t));
    else if (fmt == RF_PROF_NCU)
        RF_TRY(rf__prof_parse_ncu(ctx, &cur, t));
    else
        return rf__error(ctx, RF_USAGE, -1, "unknown profile format %d", (int)fmt);
    if (t->n == 0)
        return rf__error(ctx, RF_FORMAT, (int64_t)size,
                         fmt == RF_PROF_NCU
                             ? "no kernel with a known metric (FLOP counters, dram/lts/l1tex "
                               "bytes or gpu__time_duration)"
                             : "no op with flops and no kernel event in the trace");
    return RF_OK;
}

rf_status rf_prof_parse(rf_ctx *ctx, const void *data, size_t size, rf_prof_format fmt,
                        rf_prof_fn fn, void *user, rf_prof_format *found)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, fn, RF_USAGE, "rf_prof_parse: no kernel callback given");
    RF_CHECK(ctx, data || size == 0, RF_USAGE, "rf_prof_parse: data is NULL but size is %zu", size);
    rf__prof_table t = {ctx, NULL, 0, 0, NULL, 0};
    rf_status st = prof_parse_table(ctx, data, size, fmt, &t, found);
    for (size_t i = 0; st == RF_OK && i < t.n; i++) st = fn(user, &t.k[i]);
    rf__prof_table_free(&t);
    return st;
}

rf_status rf_prof_format_parse(rf_ctx *ctx, const char *text, rf_prof_format *out)
{
    if (strcmp(text, "ncu") == 0)
        *out = RF_PROF_NCU;
    else if (strcmp(text, "torch-trace") == 0 || strcmp(text, "torch") == 0)
        *out = RF_PROF_TORCH;
    else
        return rf__error(ctx, RF_USAGE, -1, "unknown profile format '%s' (ncu or torch-trace)",
                         text);
    return RF_OK;
}

/* One measured row per kernel: all FLOPs, DRAM bytes (else L2, else L1, else a trace op's input
 * tensors), the summed time; the
 * detail carries the launch count and the intensity at each level collected. */
static rf_status prof_add(rf_analysis *an, const rf_prof_kernel *k, rf_prof_level level,
                          size_t *n_rows)
{
    double flops = k->flops_fp64 + k->flops_fp32 + k->flops_fp16 + k->flops_tensor + k->flops_other;
    double bytes = k->bytes_dram > 0 ? k->bytes_dram
                   : k->bytes_l2 > 0 ? k->bytes_l2
                   : k->bytes_l1 > 0 ? k->bytes_l1
                                     : k->bytes_inputs;
    if (level != RF_PROF_LEVEL_AUTO) {
        bytes = level == RF_PROF_LEVEL_L1   ? k->bytes_l1
                : level == RF_PROF_LEVEL_L2 ? k->bytes_l2
                                            : k->bytes_dram;
        if (!(bytes > 0)) return RF_OK;
    }
    (*n_rows)++;
    char detail[160];
    size_t len = 0;
    detail[0] = '\0';
    rf__appendf(detail, sizeof detail, &len, "x%llu", (unsigned long long)k->count);
    const struct {
        const char *name;
        double bytes;
    } lv[] = {{"L1", k->bytes_l1},
              {"L2", k->bytes_l2},
              {"DRAM", k->bytes_dram},
              {"inputs", k->bytes_dram > 0 ? 0 : k->bytes_inputs}};
    for (size_t i = 0; i < 4; i++)
        if (lv[i].bytes > 0 && flops > 0)
            rf__appendf(detail, sizeof detail, &len, " %s AI %.3g", lv[i].name,
                        flops / lv[i].bytes);
    if (k->flops_tensor > 0 && flops > 0)
        rf__appendf(detail, sizeof detail, &len, " tensor %.0f%%", 100 * k->flops_tensor / flops);
    rf_measured m = {k->time_s, 0, 0, k->count > UINT32_MAX ? UINT32_MAX : (uint32_t)k->count};
    return rf__analysis_add_tensor(an, k->name, strlen(k->name), k->gpu_kernel ? "kernel" : "op",
                                   detail, level != RF_PROF_LEVEL_AUTO, flops, k->flops_tensor,
                                   bytes, k->time_s > 0 ? &m : NULL);
}

rf_status rf_prof_analyze_file(rf_ctx *ctx, const char *path, rf_prof_format fmt, rf_analysis *an)
{
    return rf_prof_analyze_file_level(ctx, path, fmt, RF_PROF_LEVEL_AUTO, an, NULL);
}

rf_status rf_prof_analyze_file_level(rf_ctx *ctx, const char *path, rf_prof_format fmt,
                                     rf_prof_level level, rf_analysis *an, size_t *n_rows)
{
    size_t rows = 0;
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && an, RF_USAGE, "rf_prof_analyze_file: path and analysis are required");
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__PROF_MAX_FILE_BYTES, &map)); /* its errors name the path */
    rf__prof_table t = {ctx, NULL, 0, 0, NULL, 0};
    rf_prof_format found = fmt;
    rf_status st = prof_parse_table(ctx, map.data, map.size, fmt, &t, &found);
    for (size_t i = 0; st == RF_OK && i < t.n; i++) st = prof_add(an, &t.k[i], level, &rows);
    if (st != RF_OK) rf__error_prefix(ctx, strcmp(path, "-") == 0 ? "standard input" : path);
    rf__prof_table_free(&t);
    rf__unmap_file(&map);
    if (n_rows) *n_rows = rows;
    return st;
}
