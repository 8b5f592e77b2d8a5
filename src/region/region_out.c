/* region_out.c — the regions leave the process: the merge of every thread's record (exact calls,
 * totals, min and max; the median over the kept samples), the saved result with its "regions"
 * section (rf_report_json plus one array) written to $ROOFLINE_OUTPUT or as this process's own
 * new file in $ROOFLINE_OUTPUT_DIR, the strict reader of that section and the merge of several
 * processes' records. Never prints. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/io.h"
#include "core/json_int.h"
#include "core/rf_int.h"
#include "region_int.h"
#include "core/text.h"
#include "roofline/hw.h"
#include "roofline/probe.h"

#define RF__REGIONS_FILE_MAX ((uint64_t)1 << 28)

/* The roof of a regions file when neither $ROOFLINE_HW nor a measurement names one: the CLI's
 * demo machine (a datasheet entry), only so the file is a complete result for `roofline plot`. */
#define RF__REGIONS_FALLBACK_MACHINE "xeon-8480plus"

/* One merged name with its samples, while merging. */
typedef struct rf__merge_item {
    rf_region_stats s;
    uint64_t total_ns, min_ns, max_ns;
    uint64_t *samples;
    size_t n_samples, cap_samples;
} rf__merge_item;

typedef struct rf__merge {
    rf_ctx *ctx;
    rf__merge_item *items;
    size_t n, cap;
    rf_status st;
} rf__merge;

static rf_status rf__merge_entry(rf__merge *m, const rf__rentry *en)
{
    size_t i = 0;
    while (i < m->n && strcmp(m->items[i].s.name, en->name) != 0) i++;
    if (i == m->n) {
        RF_TRY(rf__grow(m->ctx, (void **)&m->items, &m->cap, m->n + 1, sizeof *m->items));
        memset(&m->items[i], 0, sizeof m->items[i]);
        m->items[i].s.name = rf__strdup(m->ctx, en->name);
        if (!m->items[i].s.name) return RF_NOMEM_ERR(m->ctx);
        m->n++;
    }
    rf__merge_item *it = &m->items[i];
    if (en->calls) {
        if (it->s.calls == 0 || en->min_ns < it->min_ns) it->min_ns = en->min_ns;
        if (en->max_ns > it->max_ns) it->max_ns = en->max_ns;
        it->s.threads++;
    }
    it->s.calls += en->calls;
    it->total_ns += en->total_ns;
    it->s.unmatched += en->unmatched;
    it->s.flops += en->flops;
    it->s.bytes += en->bytes;
    it->s.counted_calls += en->cnt_calls;
    it->s.counted_flops += en->cnt_flops;
    it->s.counted_bytes += en->cnt_bytes;
    if (en->n_samples) {
        RF_TRY(rf__grow(m->ctx, (void **)&it->samples, &it->cap_samples,
                        it->n_samples + en->n_samples, sizeof *it->samples));
        memcpy(it->samples + it->n_samples, en->samples, en->n_samples * sizeof *en->samples);
        it->n_samples += en->n_samples;
    }
    return RF_OK;
}

static void rf__merge_thread(void *user, const rf__rthread *t)
{
    rf__merge *m = user;
    for (uint32_t i = 0; i < t->n_entries && m->st == RF_OK; i++)
        m->st = rf__merge_entry(m, &t->entries[i]);
}

static int rf__cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static rf_status rf__regions_new(rf_ctx *ctx, size_t n, rf_regions **out)
{
    rf_regions *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->alloc_ = *rf_ctx_allocator(ctx);
    if (n && !(r->items = rf__calloc(ctx, n, sizeof *r->items))) {
        rf__free(ctx, r);
        return RF_NOMEM_ERR(ctx);
    }
    *out = r;
    return RF_OK;
}

rf_status rf_regions_snapshot(rf_ctx *ctx, rf_regions **out)
{
    RF_CHECK(ctx, out, RF_USAGE, "rf_regions_snapshot: missing argument");
    *out = NULL;
    rf__merge m = {ctx, NULL, 0, 0, RF_OK};
    double ns = rf__regions_ns_per_tick();
    rf__regions_each(rf__merge_thread, &m);
    rf_status st = m.st;
    rf_regions *r = NULL;
    if (st == RF_OK) st = rf__regions_new(ctx, m.n, &r);
    for (size_t i = 0; i < m.n; i++) {
        rf__merge_item *it = &m.items[i];
        if (r) {
            rf_region_stats *s = &r->items[r->n++];
            *s = it->s;
            it->s.name = NULL;
            s->total_s = (double)it->total_ns * ns / 1e9;
            s->min_s = (double)it->min_ns * ns / 1e9;
            s->max_s = (double)it->max_ns * ns / 1e9;
            if (it->n_samples) {
                if (it->n_samples > 1) /* qsort(NULL, 0, ...) is undefined */
                    qsort(it->samples, it->n_samples, sizeof *it->samples, rf__cmp_u64);
                size_t h = it->n_samples / 2;
                double mid = it->n_samples % 2
                                 ? (double)it->samples[h]
                                 : ((double)it->samples[h - 1] + (double)it->samples[h]) / 2;
                s->median_s = mid * ns / 1e9;
            }
        }
        rf__free(ctx, it->s.name);
        rf__free(ctx, it->samples);
    }
    rf__free(ctx, m.items);
    if (st != RF_OK) {
        rf_regions_free(r);
        return st;
    }
    *out = r;
    return RF_OK;
}

rf_status rf_regions_merge(rf_ctx *ctx, rf_regions *into, const rf_regions *from)
{
    RF_CHECK(ctx, into && from, RF_USAGE, "rf_regions_merge: missing argument");
    size_t n_new = 0;
    for (size_t j = 0; j < from->n; j++) {
        size_t i = 0;
        while (i < into->n && strcmp(into->items[i].name, from->items[j].name) != 0) i++;
        n_new += i == into->n;
    }
    if (n_new) {
        size_t cap = into->n; /* the items array is exactly n long: grow it to n + n_new */
        RF_TRY(rf__grow(ctx, (void **)&into->items, &cap, into->n + n_new, sizeof *into->items));
    }
    for (size_t j = 0; j < from->n; j++) {
        const rf_region_stats *f = &from->items[j];
        size_t i = 0;
        while (i < into->n && strcmp(into->items[i].name, f->name) != 0) i++;
        rf_region_stats *s = &into->items[i];
        if (i == into->n) {
            memset(s, 0, sizeof *s);
            if (!(s->name = rf__strdup(ctx, f->name))) return RF_NOMEM_ERR(ctx);
            into->n++;
        }
        if (f->calls && (s->calls == 0 || f->min_s < s->min_s)) s->min_s = f->min_s;
        if (f->max_s > s->max_s) s->max_s = f->max_s;
        if (s->calls + f->calls) /* the per-call medians, weighted by calls: an estimate */
            s->median_s = (s->median_s * (double)s->calls + f->median_s * (double)f->calls) /
                          (double)(s->calls + f->calls);
        s->calls += f->calls;
        s->total_s += f->total_s;
        s->flops += f->flops;
        s->bytes += f->bytes;
        s->threads += f->threads;
        s->unmatched += f->unmatched;
        s->counted_calls += f->counted_calls;
        s->counted_flops += f->counted_flops;
        s->counted_bytes += f->counted_bytes;
    }
    return RF_OK;
}

void rf_regions_free(rf_regions *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) rf__free_with(&r->alloc_, r->items[i].name);
    rf__free_with(&r->alloc_, r->items);
    rf_allocator a = r->alloc_;
    rf__free_with(&a, r);
}

int rf_region_counts(const rf_region_stats *s, double *flops, double *bytes)
{
    int counted = s->calls && s->counted_calls == s->calls;
    *flops = counted ? s->counted_flops : s->flops;
    *bytes = counted ? s->counted_bytes : s->bytes;
    return counted;
}

static rf_status rf__key_num(rf_writer *w, const char *key, double v)
{
    RF_TRY(rf_writef(w, ", \"%s\": ", key));
    return rf__write_json_number(w, v);
}

rf_status rf_regions_analyze(rf_ctx *ctx, const rf_regions *regions, const rf_machine *m,
                             size_t compute, size_t bandwidth, const char *title, rf_result **out)
{
    RF_CHECK(ctx, regions && m && out, RF_USAGE, "rf_regions_analyze: missing argument");
    rf_analysis *a = NULL;
    RF_TRY(rf_analysis_new(ctx, m, compute, bandwidth, RF_SORT_INPUT, 0, &a));
    rf_status st = RF_OK;
    for (size_t i = 0; i < regions->n && st == RF_OK; i++) {
        const rf_region_stats *s = &regions->items[i];
        /* the counts given are totals over every call, so the time is too */
        rf_measured t = {s->total_s, 0, 0,
                         (uint32_t)(s->calls > UINT32_MAX ? UINT32_MAX : s->calls)};
        double f, b;
        rf_region_counts(s, &f, &b); /* the hardware's counts when every call was counted */
        if (s->calls && s->total_s > 0)
            st = rf_analysis_add_measured(a, s->name, strlen(s->name), "region", NULL, 1, f, b, &t);
        else
            st = rf_analysis_add_detail(a, s->name, strlen(s->name), "region", NULL, 1, f, b);
    }
    if (st == RF_OK) st = rf_analysis_finish(a, title ? title : "regions", out);
    rf_analysis_free(a);
    return st;
}

/* rf_report_json of the result, its closing "\n}\n" replaced by the "regions" array. */
rf_status rf_regions_write_json(rf_ctx *ctx, const rf_regions *regions, const rf_machine *m,
                                const char *title, rf_writer *w)
{
    RF_CHECK(ctx, regions && m && w, RF_USAGE, "rf_regions_write_json: missing argument");
    rf_result *r = NULL;
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_status st;
    RF_TRY_GOTO(
        st,
        rf_regions_analyze(ctx, regions, m, m->default_compute, m->default_bandwidth, title, &r),
        out);
    rf_writer bw = rf_buf_writer(&b);
    RF_TRY_GOTO(st, rf_report_json(ctx, r, &bw), out);
    RF_CHECK(ctx, b.len >= 3 && memcmp(b.data + b.len - 3, "\n}\n", 3) == 0, RF_INTERNAL,
             "rf_regions_write_json: unexpected end of the result JSON");
    RF_TRY_GOTO(st, rf_write(w, b.data, b.len - 3), out);
    RF_TRY_GOTO(st, RF_WRITE_LIT(w, ",\n  \"regions\": ["), out);
    for (size_t i = 0; i < regions->n; i++) {
        const rf_region_stats *s = &regions->items[i];
        RF_TRY_GOTO(st, rf_writef(w, "%s\n    {\"name\": ", i ? "," : ""), out);
        RF_TRY_GOTO(st, rf__write_json_string(w, s->name), out);
        RF_TRY_GOTO(st, rf_writef(w, ", \"calls\": %llu", (unsigned long long)s->calls), out);
        RF_TRY_GOTO(st, rf__key_num(w, "total_s", s->total_s), out);
        RF_TRY_GOTO(st, rf__key_num(w, "min_s", s->min_s), out);
        RF_TRY_GOTO(st, rf__key_num(w, "median_s", s->median_s), out);
        RF_TRY_GOTO(st, rf__key_num(w, "max_s", s->max_s), out);
        RF_TRY_GOTO(st, rf__key_num(w, "flops", s->flops), out);
        RF_TRY_GOTO(st, rf__key_num(w, "bytes", s->bytes), out);
        RF_TRY_GOTO(st,
                    rf_writef(w, ", \"threads\": %u, \"unmatched\": %llu", s->threads,
                              (unsigned long long)s->unmatched),
                    out);
        if (s->counted_calls) {
            RF_TRY_GOTO(
                st, rf_writef(w, ", \"counted_calls\": %llu", (unsigned long long)s->counted_calls),
                out);
            RF_TRY_GOTO(st, rf__key_num(w, "counted_flops", s->counted_flops), out);
            RF_TRY_GOTO(st, rf__key_num(w, "counted_bytes", s->counted_bytes), out);
        }
        RF_TRY_GOTO(st, RF_WRITE_LIT(w, "}"), out);
    }
    st = regions->n ? RF_WRITE_LIT(w, "\n  ]\n}\n") : RF_WRITE_LIT(w, "]\n}\n");
out:
    rf_buf_free(&b);
    rf_result_free(r);
    return st;
}

/* The machine the file's roof comes from: $ROOFLINE_HW, the cached measurement, the demo's. */
static rf_status rf__default_machine(rf_ctx *ctx, rf_machine **m)
{
    const char *hw = getenv("ROOFLINE_HW");
    *m = NULL;
    if (hw && hw[0] && strcmp(hw, "measured") != 0) return rf_machine_resolve(ctx, hw, m);
    rf_probe_opts o;
    memset(&o, 0, sizeof o);
    for (int quick = 0; quick < 2 && !*m; quick++) {
        o.quick = quick;
        if (rf_probe_cache_load(ctx, &o, m) != RF_OK) *m = NULL;
    }
    return *m ? RF_OK : rf_hwdb_find(ctx, RF__REGIONS_FALLBACK_MACHINE, m);
}

static rf_status rf__file_write(void *user, const char *data, size_t size)
{
    return fwrite(data, 1, size, user) == size ? RF_OK : RF_IO;
}

/* A new file of this process in `dir` (ROOFLINE_OUTPUT_DIR): regions-PID.json, else
 * regions-PID-N.json when that name is taken; created, never followed or reused (O_EXCL,
 * O_NOFOLLOW), so a name planted in advance is never written through. The name in `path`. */
static FILE *rf__record_open(const char *dir, char *path, size_t size)
{
    for (int k = 0; k < 100; k++) {
        if (k)
            snprintf(path, size, "%s/regions-%ld-%d.json", dir, (long)getpid(), k);
        else
            snprintf(path, size, "%s/regions-%ld.json", dir, (long)getpid());
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            FILE *f = fdopen(fd, "w");
            if (!f) close(fd);
            return f;
        }
        if (errno != EEXIST && errno != ELOOP) return NULL;
    }
    return NULL;
}

rf_status rf_regions_write(rf_ctx *ctx, const char *path)
{
    const char *dir = path ? NULL : getenv("ROOFLINE_OUTPUT_DIR");
    char rec[4096], tmp[4200];
    int renamed = 0;
    if (!path && !(dir && dir[0])) path = getenv("ROOFLINE_OUTPUT");
    if (!(dir && dir[0]) && (!path || !path[0])) return RF_OK;
    rf_regions *r = NULL;
    rf_machine *m = NULL;
    FILE *f = NULL;
    rf_status st;
    RF_TRY_GOTO(st, rf_regions_snapshot(ctx, &r), out);
    RF_TRY_GOTO(st, rf__default_machine(ctx, &m), out);
    if (dir && dir[0]) {
        f = rf__record_open(dir, rec, sizeof rec);
        path = rec;
    } else { /* a new file beside `path`, renamed over it at the end: a symlink planted at the
              * name is replaced, never written through, and readers never see half a file */
        int n = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
        int fd = n > 0 && (size_t)n < sizeof tmp
                     ? open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644)
                     : -1;
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (fd >= 0 && !f) close(fd);
        if (f) renamed = 1;
    }
    if (!f) {
        st = rf__error(ctx, RF_IO, -1, "%s: cannot write the regions", path);
        goto out;
    }
    rf_writer w = {rf__file_write, f};
    const char *title = getenv("ROOFLINE_TITLE");
    st = rf_regions_write_json(ctx, r, m, title && title[0] ? title : "regions", &w);
    if (fclose(f) != 0 && st == RF_OK)
        st = rf__error(ctx, RF_IO, -1, "%s: write failed", path);
    else if (st == RF_IO)
        rf__error(ctx, RF_IO, -1, "%s: write failed", path);
    if (renamed && st == RF_OK && rename(tmp, path) != 0)
        st = rf__error(ctx, RF_IO, -1, "%s: cannot write the regions", path);
    if (renamed && st != RF_OK) unlink(tmp);
out:
    rf_machine_free(m);
    rf_regions_free(r);
    return st;
}

static const char *const rf__region_keys[] = {
    "name",  "calls",   "total_s",   "min_s",         "median_s",      "max_s",         "flops",
    "bytes", "threads", "unmatched", "counted_calls", "counted_flops", "counted_bytes", NULL};

static rf_status rf__num(rf_ctx *ctx, json_t *o, const char *key, const char *where, double *out)
{
    RF_TRY(rf__json_num(ctx, o, key, where, out, NULL));
    RF_CHECK(ctx, *out >= 0, RF_RANGE, "%s: '%s' must not be negative", where, key);
    return RF_OK;
}

static rf_status rf__count(rf_ctx *ctx, json_t *o, const char *key, const char *where,
                           uint64_t *out)
{
    double v;
    RF_TRY(rf__num(ctx, o, key, where, &v));
    RF_CHECK(ctx, v == floor(v) && v <= 9007199254740992.0, RF_RANGE,
             "%s: '%s' must be a whole number", where, key);
    *out = (uint64_t)v;
    return RF_OK;
}

static rf_status rf__parse_item(rf_ctx *ctx, json_t *v, size_t i, rf_region_stats *s)
{
    char where[40];
    snprintf(where, sizeof where, "regions[%zu]", i);
    RF_CHECK(ctx, json_is_object(v), RF_FORMAT, "%s: expected an object", where);
    RF_TRY(rf__json_keys(ctx, v, rf__region_keys, where));
    json_t *name = json_object_get(v, "name");
    RF_CHECK(ctx, json_is_string(name) && json_string_length(name) > 0, RF_FORMAT,
             "%s: 'name' must be a non-empty string", where);
    s->name = rf__strndup(ctx, json_string_value(name), json_string_length(name));
    if (!s->name) return RF_NOMEM_ERR(ctx);
    uint64_t threads;
    RF_TRY(rf__count(ctx, v, "calls", where, &s->calls));
    RF_TRY(rf__num(ctx, v, "total_s", where, &s->total_s));
    RF_TRY(rf__num(ctx, v, "min_s", where, &s->min_s));
    RF_TRY(rf__num(ctx, v, "median_s", where, &s->median_s));
    RF_TRY(rf__num(ctx, v, "max_s", where, &s->max_s));
    RF_TRY(rf__num(ctx, v, "flops", where, &s->flops));
    RF_TRY(rf__num(ctx, v, "bytes", where, &s->bytes));
    RF_TRY(rf__count(ctx, v, "threads", where, &threads));
    RF_TRY(rf__count(ctx, v, "unmatched", where, &s->unmatched));
    RF_CHECK(ctx, threads <= UINT32_MAX, RF_RANGE, "%s: 'threads' is too large", where);
    s->threads = (uint32_t)threads;
    if (json_object_get(v, "counted_calls")) { /* hardware counts, all three or none */
        RF_TRY(rf__count(ctx, v, "counted_calls", where, &s->counted_calls));
        RF_TRY(rf__num(ctx, v, "counted_flops", where, &s->counted_flops));
        RF_TRY(rf__num(ctx, v, "counted_bytes", where, &s->counted_bytes));
        RF_CHECK(ctx, s->counted_calls <= s->calls, RF_RANGE, "%s: 'counted_calls' exceeds 'calls'",
                 where);
    } else {
        RF_CHECK(ctx, !json_object_get(v, "counted_flops") && !json_object_get(v, "counted_bytes"),
                 RF_FORMAT, "%s: 'counted_flops' and 'counted_bytes' need 'counted_calls'", where);
    }
    return RF_OK;
}

rf_status rf_regions_parse_json(rf_ctx *ctx, const void *data, size_t size, const char *source,
                                rf_regions **out)
{
    RF_CHECK(ctx, out && (data || !size), RF_USAGE, "rf_regions_parse_json: missing argument");
    *out = NULL;
    json_t *root = NULL;
    rf_regions *r = NULL;
    rf_status st = rf__json_load(ctx, data, size, &root);
    json_t *arr = st == RF_OK ? json_object_get(root, "regions") : NULL;
    if (st == RF_OK && !json_is_array(arr))
        st = rf__error(ctx, RF_FORMAT, -1, "no 'regions' array (not written by the marker API)");
    if (st == RF_OK) st = rf__regions_new(ctx, json_array_size(arr), &r);
    for (size_t i = 0; st == RF_OK && i < json_array_size(arr); i++) {
        r->n = i + 1;
        st = rf__parse_item(ctx, json_array_get(arr, i), i, &r->items[i]);
    }
    json_decref(root);
    if (st != RF_OK) {
        rf_regions_free(r);
        return rf__error_prefix(ctx, source && source[0] ? source : "regions JSON");
    }
    *out = r;
    return RF_OK;
}

rf_status rf_regions_read_file(rf_ctx *ctx, const char *path, rf_regions **out)
{
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_regions_read_file: missing argument");
    *out = NULL;
    rf__map map;
    RF_TRY(rf__map_file(ctx, path, RF__REGIONS_FILE_MAX, &map));
    rf_status st = rf_regions_parse_json(ctx, map.data, map.size, path, out);
    rf__unmap_file(&map);
    return st;
}
