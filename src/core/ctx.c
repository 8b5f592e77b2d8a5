/* ctx.c — the context: allocator, last error, log callback, failure injection for tests.
 * Owns no global state; everything lives in struct rf_ctx. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rf_int.h"
#include "text.h"

#define RF__ERRMSG_MAX 1024

struct rf_ctx {
    rf_allocator alloc;
    char errmsg[RF__ERRMSG_MAX];
    int64_t err_offset;
    rf_status err_status;
    rf_log_fn log_fn;
    void *log_user;
    rf_log_level log_min;
    uint64_t n_allocs; /* allocations made so far */
    uint64_t fail_at;  /* 0 = never; else the allocation number that fails */
    int fail_sticky;
};

static void *rf__std_malloc(void *u, size_t n)
{
    (void)u;
    return malloc(n);
}
static void *rf__std_realloc(void *u, void *p, size_t n)
{
    (void)u;
    return realloc(p, n);
}
static void rf__std_free(void *u, void *p)
{
    (void)u;
    free(p);
}
static const rf_allocator rf__std_alloc = {rf__std_malloc, rf__std_realloc, rf__std_free, NULL};

rf_status rf_ctx_new(rf_ctx **out, const rf_allocator *alloc)
{
    if (!out) return RF_USAGE;
    *out = NULL;
    const rf_allocator *a = alloc ? alloc : &rf__std_alloc;
    if (!a->malloc_fn || !a->realloc_fn || !a->free_fn) return RF_USAGE;
    rf_ctx *c = a->malloc_fn(a->user, sizeof *c);
    if (!c) return RF_NOMEM;
    memset(c, 0, sizeof *c);
    c->alloc = *a;
    c->err_offset = -1;
    c->log_min = RF_LOG_WARN;
    *out = c;
    return RF_OK;
}

void rf_ctx_free(rf_ctx *ctx)
{
    if (!ctx) return;
    rf_allocator a = ctx->alloc;
    a.free_fn(a.user, ctx);
}

const char *rf_ctx_errmsg(const rf_ctx *ctx)
{
    return ctx ? ctx->errmsg : "no context";
}
int64_t rf_ctx_error_offset(const rf_ctx *ctx)
{
    return ctx ? ctx->err_offset : -1;
}
rf_status rf_ctx_error_status(const rf_ctx *ctx)
{
    return ctx ? ctx->err_status : RF_USAGE;
}

void rf_ctx_clear_error(rf_ctx *ctx)
{
    ctx->errmsg[0] = '\0';
    ctx->err_offset = -1;
    ctx->err_status = RF_OK;
}

void rf_ctx_set_log(rf_ctx *ctx, rf_log_fn fn, void *user, rf_log_level min_level)
{
    ctx->log_fn = fn;
    ctx->log_user = user;
    ctx->log_min = min_level;
}

const rf_allocator *rf_ctx_allocator(const rf_ctx *ctx)
{
    return &ctx->alloc;
}

void rf_ctx_fail_alloc_after(rf_ctx *ctx, uint64_t n, int sticky)
{
    ctx->fail_at = n ? ctx->n_allocs + n : 0;
    ctx->fail_sticky = sticky;
}

uint64_t rf_ctx_alloc_count(const rf_ctx *ctx)
{
    return ctx->n_allocs;
}

const char *rf_version(void)
{
    return RF_VERSION_STRING;
}

/* Counts the allocation and tells whether the failure injection says it must fail. */
static int rf__should_fail(rf_ctx *ctx)
{
    ctx->n_allocs++;
    if (!ctx->fail_at) return 0;
    if (ctx->n_allocs == ctx->fail_at) return 1;
    return ctx->fail_sticky && ctx->n_allocs > ctx->fail_at;
}

void *rf__malloc(rf_ctx *ctx, size_t size)
{
    if (rf__should_fail(ctx)) return NULL;
    return ctx->alloc.malloc_fn(ctx->alloc.user, size ? size : 1);
}

void *rf__calloc(rf_ctx *ctx, size_t n, size_t size)
{
    uint64_t total;
    if (!rf__mul_ok(n, size, &total) || total > SIZE_MAX) return NULL;
    void *p = rf__malloc(ctx, (size_t)total);
    if (p) memset(p, 0, (size_t)total);
    return p;
}

void *rf__realloc(rf_ctx *ctx, void *ptr, size_t size)
{
    if (rf__should_fail(ctx)) return NULL;
    return ctx->alloc.realloc_fn(ctx->alloc.user, ptr, size ? size : 1);
}

void rf__free(rf_ctx *ctx, void *ptr)
{
    if (ptr) ctx->alloc.free_fn(ctx->alloc.user, ptr);
}

void *rf__alloc_with(const rf_allocator *a, void *ptr, size_t size)
{
    return a->realloc_fn(a->user, ptr, size ? size : 1);
}

void rf__free_with(const rf_allocator *a, void *ptr)
{
    if (ptr) a->free_fn(a->user, ptr);
}

char *rf__strndup(rf_ctx *ctx, const char *s, size_t n)
{
    char *d = rf__malloc(ctx, n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *rf__strdup(rf_ctx *ctx, const char *s)
{
    return rf__strndup(ctx, s, strlen(s));
}

rf_status rf__grow(rf_ctx *ctx, void **ptr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return RF_OK;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return rf__error(ctx, RF_RANGE, -1, "size overflow");
        ncap *= 2;
    }
    uint64_t bytes;
    if (!rf__mul_ok(ncap, elem, &bytes) || bytes > SIZE_MAX)
        return rf__error(ctx, RF_RANGE, -1, "size overflow");
    void *p = rf__realloc(ctx, *ptr, (size_t)bytes);
    if (!p) return RF_NOMEM_ERR(ctx);
    *ptr = p;
    *cap = ncap;
    return RF_OK;
}

rf_status rf__verror(rf_ctx *ctx, rf_status status, int64_t offset, const char *fmt, va_list ap)
{
    if (!ctx) return status;
    char raw[RF__ERRMSG_MAX];
    vsnprintf(raw, sizeof raw, fmt, ap);
    rf__text_escape(ctx->errmsg, sizeof ctx->errmsg, raw); /* one printable line, always */
    ctx->err_offset = offset;
    ctx->err_status = status;
    return status;
}

rf_status rf__error(rf_ctx *ctx, rf_status status, int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rf__verror(ctx, status, offset, fmt, ap);
    va_end(ap);
    return status;
}

rf_status rf__error_prefix(rf_ctx *ctx, const char *prefix)
{
    char tmp[RF__ERRMSG_MAX];
    size_t len = 0;
    tmp[0] = '\0';
    rf__appendf(tmp, sizeof tmp, &len, "%s: ", prefix);
    rf__appendf(tmp, sizeof tmp, &len, "%s", ctx->errmsg);
    rf__text_escape(ctx->errmsg, sizeof ctx->errmsg, tmp);
    return ctx->err_status;
}

rf_status rf__error_name(rf_ctx *ctx, const char *name)
{
    if (!ctx || !name || !name[0]) return ctx ? ctx->err_status : RF_INTERNAL;
    /* the message holds the name escaped (control bytes as \xNN): compare it so */
    char esc[RF__ERRMSG_MAX];
    rf__text_escape(esc, sizeof esc, name);
    if (strncmp(ctx->errmsg, esc, strlen(esc)) == 0) return ctx->err_status; /* names it */
    /* "model: ..." is what code that was not given the file says (the LLM builder, the LLM
     * executor): the file takes the placeholder's place */
    if (strncmp(ctx->errmsg, "model: ", 7) == 0)
        memmove(ctx->errmsg, ctx->errmsg + 7, strlen(ctx->errmsg + 7) + 1);
    return rf__error_prefix(ctx, name);
}

void rf__log(rf_ctx *ctx, rf_log_level level, const char *fmt, ...)
{
    if (!ctx || !ctx->log_fn || level < ctx->log_min) return;
    char msg[RF__ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char clean[RF__ERRMSG_MAX];
    ctx->log_fn(ctx->log_user, level, rf__text_escape(clean, sizeof clean, msg));
}

size_t rf__strlcpy(char *dst, const char *src, size_t size)
{
    size_t n = strlen(src);
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, src, k);
        dst[k] = '\0';
    }
    return n;
}

static int rf__lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int rf__strncasecmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int ca = rf__lower((unsigned char)a[i]), cb = rf__lower((unsigned char)b[i]);
        if (ca != cb || !ca) return ca - cb;
    }
    return 0;
}

int rf__strcasecmp(const char *a, const char *b)
{
    return rf__strncasecmp(a, b, SIZE_MAX);
}

void rf__appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
    if (*len >= size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    *len = ((size_t)n >= size - *len) ? size - 1 : *len + (size_t)n;
}
