/* llm_weights.c — the weights report of a model whose architecture roofline does not build:
 * parameters, bytes by type, bits per weight, and the tensors grouped by name with their numbers
 * replaced by '*' (every block's copy of a tensor in one group). The ceiling of reading them once
 * per token (aprender's simple figure) is the renderer's division by a bandwidth. */
#include <string.h>

#include "llm/llm_int.h"

/* "blk.12.attn_q.weight" -> "blk.*.attn_q.weight": every run of digits between separators. */
static void rf__prefix(const char *name, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = name; *p && n + 2 < cap;) {
        int start = p == name || p[-1] == '.' || p[-1] == '_' || p[-1] == '/';
        const char *q = p;
        while (*q >= '0' && *q <= '9') q++;
        if (start && q > p && (*q == '\0' || *q == '.' || *q == '_' || *q == '/')) {
            out[n++] = '*';
            p = q;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

/* FNV-1a of a group name, for the table that finds a tensor's group in constant time (a file may
 * hold millions of tensors, each a group of its own). */
static uint64_t rf__hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of group `pre` in the open-addressing table `slot` (mask + 1 entries, a power of two;
 * an entry is a group index + 1, 0 when empty): the group's, or the empty one where it goes. */
static size_t rf__slot(const rf_llm_weights *w, const size_t *slot, size_t mask, const char *pre)
{
    size_t i = (size_t)rf__hash(pre) & mask;
    while (slot[i] && strcmp(w->groups[slot[i] - 1].prefix, pre) != 0) i = (i + 1) & mask;
    return i;
}

void rf_llm_weights_free(rf_llm_weights *w)
{
    if (!w) return;
    rf_allocator al = w->alloc_;
    for (size_t i = 0; i < w->n_groups; i++) rf__free_with(&al, w->groups[i].prefix);
    rf__free_with(&al, w->groups);
    rf__free_with(&al, w);
}

rf_status rf_llm_weights_report(rf_ctx *ctx, const rf_llm_model *m, rf_llm_weights **out)
{
    RF_CHECK(ctx, m && out, RF_USAGE, "rf_llm_weights_report: missing argument");
    *out = NULL;
    rf_llm_weights *w = rf__calloc(ctx, 1, sizeof *w);
    if (!w) return RF_NOMEM_ERR(ctx);
    w->alloc_ = *rf_ctx_allocator(ctx);
    rf__strlcpy(w->architecture, m->hp.architecture, sizeof w->architecture);
    rf__strlcpy(w->format, m->hp.format, sizeof w->format);
    size_t cap = 0, mask = 15;
    while (mask < SIZE_MAX / 4 && mask / 2 < m->n_w) mask = mask * 2 + 1; /* at most half full */
    size_t *slot = m->n_w < SIZE_MAX / 8 ? rf__calloc(ctx, mask + 1, sizeof *slot) : NULL;
    rf_status st = slot ? RF_OK : RF_NOMEM_ERR(ctx);
    for (size_t i = 0; i < m->n_w && st == RF_OK; i++) {
        const rf__llm_w *t = &m->w[i];
        uint64_t el = 1, b = 0;
        for (uint32_t d = 0; d < t->rank; d++)
            if (!rf__mul_ok(el, (uint64_t)t->dims[d], &el)) el = 0;
        if (!rf_dtype_bytes(t->dtype, el, &b)) b = 0;
        b += t->extra_bytes;
        w->tensors++;
        if (!rf__add_ok(w->params, el, &w->params) || !rf__add_ok(w->bytes, b, &w->bytes)) {
            st = rf__error(ctx, RF_RANGE, -1, "model: more than 2^64 parameters or bytes");
            break;
        }
        if ((unsigned)t->dtype < RF_DTYPE_COUNT) {
            w->bytes_by_dtype[t->dtype] += b;
            w->params_by_dtype[t->dtype] += el;
        }
        char pre[256];
        rf__prefix(t->name, pre, sizeof pre);
        size_t at = rf__slot(w, slot, mask, pre), k = slot[at] ? slot[at] - 1 : w->n_groups;
        if (k == w->n_groups) {
            st = rf__grow(ctx, (void **)&w->groups, &cap, w->n_groups + 1, sizeof *w->groups);
            if (st != RF_OK) break;
            memset(&w->groups[k], 0, sizeof w->groups[k]);
            w->groups[k].prefix = rf__strdup(ctx, pre);
            if (!w->groups[k].prefix) {
                st = RF_NOMEM_ERR(ctx);
                break;
            }
            w->groups[k].dtype = t->dtype;
            w->n_groups++;
            slot[at] = w->n_groups;
        }
        rf_llm_weight_group *g = &w->groups[k];
        g->tensors++;
        g->params += el;
        g->bytes += b;
        if (g->dtype != t->dtype) g->dtype = RF_DTYPE_UNKNOWN;
    }
    rf__free(ctx, slot);
    if (st != RF_OK) {
        rf_llm_weights_free(w);
        return st;
    }
    w->bits_per_weight = w->params ? 8.0 * (double)w->bytes / (double)w->params : 0;
    *out = w;
    return RF_OK;
}
