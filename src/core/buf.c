/* buf.c — the growable capped buffer and the writer helpers renderers use. Memory only. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rf_int.h"
#include "roofline/buf.h"

void rf_buf_init(rf_buf *b, rf_ctx *ctx, size_t max_bytes)
{
    memset(b, 0, sizeof *b);
    b->max = max_bytes ? max_bytes : (size_t)256 << 20;
    b->a = *rf_ctx_allocator(ctx);
}

void rf_buf_free(rf_buf *b)
{
    if (!b) return;
    rf__free_with(&b->a, b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

rf_status rf_buf_append(rf_buf *b, const char *data, size_t size)
{
    if (size > b->max - b->len) return RF_RANGE;
    size_t need = b->len + size + 1;
    if (need > b->cap) {
        size_t ncap = b->cap ? b->cap : 256;
        while (ncap < need) ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
        char *p = rf__alloc_with(&b->a, b->data, ncap);
        if (!p) return RF_NOMEM;
        b->data = p;
        b->cap = ncap;
    }
    if (size) memcpy(b->data + b->len, data, size);
    b->len += size;
    b->data[b->len] = '\0';
    return RF_OK;
}

static rf_status rf__buf_write(void *user, const char *data, size_t size)
{
    return rf_buf_append(user, data, size);
}

rf_writer rf_buf_writer(rf_buf *b)
{
    rf_writer w = {rf__buf_write, b};
    return w;
}

rf_status rf_write(rf_writer *w, const char *data, size_t size)
{
    return w->write(w->user, data, size);
}

rf_status rf_writef(rf_writer *w, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return RF_INTERNAL;
    size_t len = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
    return w->write(w->user, tmp, len);
}

static rf_status rf__staged_write(void *user, const char *data, size_t size)
{
    rf__staged *s = user;
    if (size > sizeof s->buf - s->n) {
        RF_TRY(rf__staged_flush(s));
        if (size >= sizeof s->buf) return rf_write(s->inner, data, size);
    }
    memcpy(s->buf + s->n, data, size);
    s->n += size;
    return RF_OK;
}

rf_writer rf__staged_writer(rf__staged *s, rf_writer *inner)
{
    s->inner = inner;
    s->n = 0;
    rf_writer w = {rf__staged_write, s};
    return w;
}

rf_status rf__staged_flush(rf__staged *s)
{
    size_t n = s->n;
    s->n = 0;
    return n ? rf_write(s->inner, s->buf, n) : RF_OK;
}
