/* graph.c — the rf_graph builder: an arena for strings and small arrays, a name index for
 * tensors, and the add/set calls the readers use. Everything goes through the context's
 * allocator and is released by rf_graph_free (which uses the copy kept in the graph).
 * Never parses files, never computes costs (roofline/graph.h). */
#include <string.h>

#include "core/rf_int.h"
#include "graph/graph_int.h"

struct rf__arena {
    rf__arena *next;
    size_t used, size;
    /* data follows, 16-byte aligned */
};
#define RF__ARENA_HDR ((sizeof(rf__arena) + 15) & ~(size_t)15)
#define RF__ARENA_CHUNK ((size_t)64 * 1024)

struct rf__name_index {
    uint32_t *slots; /* tensor index + 1; 0 = empty */
    size_t cap;      /* power of two */
    size_t used;
};

void *rf_graph_alloc(rf_ctx *ctx, rf_graph *g, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    rf__arena *a = g->arena_;
    if (!a || a->size - a->used < size) {
        size_t want = size > RF__ARENA_CHUNK / 4 ? size : RF__ARENA_CHUNK;
        if (want > SIZE_MAX - RF__ARENA_HDR) {
            rf__error(ctx, RF_RANGE, -1, "graph: allocation of %zu bytes overflows", size);
            return NULL;
        }
        rf__arena *n = rf__malloc(ctx, RF__ARENA_HDR + want);
        if (!n) {
            RF_NOMEM_ERR(ctx);
            return NULL;
        }
        n->used = 0;
        n->size = want;
        if (a && size > RF__ARENA_CHUNK / 4) { /* a big block: keep the current chunk in front */
            n->next = a->next;
            a->next = n;
            n->used = size;
            void *p = (char *)n + RF__ARENA_HDR;
            memset(p, 0, size);
            return p;
        }
        n->next = a;
        g->arena_ = a = n;
    }
    void *p = (char *)a + RF__ARENA_HDR + a->used;
    a->used += size;
    memset(p, 0, size);
    return p;
}

char *rf_graph_strdup(rf_ctx *ctx, rf_graph *g, const char *s, size_t len)
{
    if (len == SIZE_MAX) {
        rf__error(ctx, RF_RANGE, -1, "graph: string too long");
        return NULL;
    }
    char *d = rf_graph_alloc(ctx, g, len + 1);
    if (!d) return NULL;
    if (len) memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

static char *rf__gstr(rf_ctx *ctx, rf_graph *g, const char *s)
{
    return rf_graph_strdup(ctx, g, s ? s : "", s ? strlen(s) : 0);
}

rf_status rf_graph_new(rf_ctx *ctx, const char *format, rf_graph **out)
{
    *out = NULL;
    rf_graph *g = rf__calloc(ctx, 1, sizeof *g);
    if (!g) return RF_NOMEM_ERR(ctx);
    g->alloc_ = *rf_ctx_allocator(ctx);
    g->index_ = rf__calloc(ctx, 1, sizeof *g->index_);
    if (!g->index_ || !(g->format = rf__gstr(ctx, g, format)) ||
        !(g->name = rf__gstr(ctx, g, "")) || !(g->architecture = rf__gstr(ctx, g, ""))) {
        rf_graph_free(g);
        return RF_NOMEM_ERR(ctx);
    }
    *out = g;
    return RF_OK;
}

void rf_graph_free(rf_graph *g)
{
    if (!g) return;
    rf_allocator a = g->alloc_;
    for (rf__arena *c = g->arena_, *n; c; c = n) {
        n = c->next;
        rf__free_with(&a, c);
    }
    if (g->index_) rf__free_with(&a, g->index_->slots);
    rf__free_with(&a, g->index_);
    rf__free_with(&a, g->tensors);
    rf__free_with(&a, g->layers);
    rf__free_with(&a, g->meta);
    rf__free_with(&a, g);
}

rf_status rf_graph_set_name(rf_ctx *ctx, rf_graph *g, const char *name)
{
    const char *s = rf__gstr(ctx, g, name);
    if (!s) return rf_ctx_error_status(ctx);
    g->name = s;
    return RF_OK;
}

rf_status rf_graph_set_architecture(rf_ctx *ctx, rf_graph *g, const char *arch)
{
    const char *s = rf__gstr(ctx, g, arch);
    if (!s) return rf_ctx_error_status(ctx);
    g->architecture = s;
    return RF_OK;
}

rf_status rf_graph_add_meta(rf_ctx *ctx, rf_graph *g, const char *key, const char *value)
{
    RF_TRY(rf__grow(ctx, (void **)&g->meta, &g->cap_meta_, (size_t)g->n_meta + 1, sizeof *g->meta));
    rf_kv kv = {rf__gstr(ctx, g, key), rf__gstr(ctx, g, value)};
    if (!kv.key || !kv.value) return rf_ctx_error_status(ctx);
    g->meta[g->n_meta++] = kv;
    return RF_OK;
}

/* ---- name index (FNV-1a, open addressing, load <= 1/2) --------------------------------------- */

static uint64_t rf__hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static rf_status rf__index_put(rf_ctx *ctx, rf_graph *g, uint32_t idx);

static rf_status rf__index_grow(rf_ctx *ctx, rf_graph *g)
{
    rf__name_index *x = g->index_;
    size_t ncap = x->cap ? x->cap * 2 : 64;
    uint32_t *old = x->slots;
    size_t ocap = x->cap;
    x->slots = rf__calloc(ctx, ncap, sizeof *x->slots);
    if (!x->slots) {
        x->slots = old;
        return RF_NOMEM_ERR(ctx);
    }
    x->cap = ncap;
    x->used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) rf__index_put(ctx, g, old[i] - 1);
    rf__free_with(&g->alloc_, old);
    return RF_OK;
}

static rf_status rf__index_put(rf_ctx *ctx, rf_graph *g, uint32_t idx)
{
    rf__name_index *x = g->index_;
    if ((x->used + 1) * 2 > x->cap) RF_TRY(rf__index_grow(ctx, g));
    size_t m = x->cap - 1, i = (size_t)rf__hash(g->tensors[idx].name) & m;
    while (x->slots[i]) i = (i + 1) & m;
    x->slots[i] = idx + 1;
    x->used++;
    return RF_OK;
}

uint32_t rf_graph_find_tensor(const rf_graph *g, const char *name)
{
    const rf__name_index *x = g->index_;
    if (!x || !x->cap || !name || !*name) return RF_GRAPH_NO_TENSOR;
    size_t m = x->cap - 1, i = (size_t)rf__hash(name) & m;
    for (; x->slots[i]; i = (i + 1) & m)
        if (strcmp(g->tensors[x->slots[i] - 1].name, name) == 0) return x->slots[i] - 1;
    return RF_GRAPH_NO_TENSOR;
}

/* ---- tensors ----------------------------------------------------------------------------------
 */

static void rf__count_weight(rf_graph *g, const rf_tensor *t)
{
    uint64_t n, b;
    if (!(t->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_CONST_WEIGHT)) || !rf_tensor_elems(t, &n))
        return;
    if (!rf__add_ok(g->params, n, &g->params)) g->params = UINT64_MAX;
    if (rf_tensor_bytes(t, &b) && !rf__add_ok(g->weight_bytes, b, &g->weight_bytes))
        g->weight_bytes = UINT64_MAX;
}

rf_status rf_graph_add_tensor(rf_ctx *ctx, rf_graph *g, const char *name, rf_dtype dtype,
                              uint32_t rank, const int64_t *dims, uint32_t flags, uint32_t *index)
{
    name = name ? name : "";
    RF_CHECK(ctx, rank == UINT32_MAX || rank <= RF_GRAPH_MAX_RANK, RF_UNSUPPORTED,
             "tensor '%.200s': rank %u is above the supported %d", name, rank, RF_GRAPH_MAX_RANK);
    RF_CHECK(ctx, g->n_tensors < RF_GRAPH_NO_TENSOR - 1, RF_RANGE, "graph: too many tensors");
    RF_CHECK(ctx, !*name || rf_graph_find_tensor(g, name) == RF_GRAPH_NO_TENSOR, RF_FORMAT,
             "duplicate tensor '%.200s'", name);
    RF_TRY(rf__grow(ctx, (void **)&g->tensors, &g->cap_tensors_, (size_t)g->n_tensors + 1,
                    sizeof *g->tensors));
    rf_tensor *t = &g->tensors[g->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = rf__gstr(ctx, g, name);
    if (!t->name) return rf_ctx_error_status(ctx);
    t->dtype = dtype;
    t->flags = flags;
    t->producer = -1;
    if (rank != UINT32_MAX) {
        t->shape_known = 1;
        t->rank = rank;
        for (uint32_t i = 0; i < rank; i++) t->dims[i] = dims ? (dims[i] < 0 ? -1 : dims[i]) : -1;
    }
    uint32_t idx = g->n_tensors++;
    if (*name) {
        rf_status st = rf__index_put(ctx, g, idx);
        if (st != RF_OK) {
            g->n_tensors--;
            return st;
        }
    }
    rf__count_weight(g, t);
    if (index) *index = idx;
    return RF_OK;
}

rf_status rf_graph_set_shape(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t rank,
                             const int64_t *dims)
{
    RF_CHECK(ctx, tensor < g->n_tensors, RF_USAGE, "graph: no tensor %u", tensor);
    RF_CHECK(ctx, rank <= RF_GRAPH_MAX_RANK, RF_UNSUPPORTED,
             "tensor '%.200s': rank %u is above the supported %d", g->tensors[tensor].name, rank,
             RF_GRAPH_MAX_RANK);
    rf_tensor *t = &g->tensors[tensor];
    t->shape_known = 1;
    t->rank = rank;
    for (uint32_t i = 0; i < RF_GRAPH_MAX_RANK; i++) {
        t->dims[i] = i < rank && dims && dims[i] >= 0 ? dims[i] : -1;
        if (i >= rank || t->dims[i] >= 0) t->dim_names[i] = NULL;
    }
    return RF_OK;
}

rf_status rf_graph_set_dtype(rf_ctx *ctx, rf_graph *g, uint32_t tensor, rf_dtype dtype)
{
    RF_CHECK(ctx, tensor < g->n_tensors, RF_USAGE, "graph: no tensor %u", tensor);
    g->tensors[tensor].dtype = dtype;
    return RF_OK;
}

rf_status rf_graph_add_flags(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t flags)
{
    RF_CHECK(ctx, tensor < g->n_tensors, RF_USAGE, "graph: no tensor %u", tensor);
    rf_tensor *t = &g->tensors[tensor];
    uint64_t n = 0;
    /* a weight that turns out to be a buffer leaves the parameter count (still in weight_bytes) */
    uint32_t w = RF_TENSOR_WEIGHT | RF_TENSOR_CONST_WEIGHT;
    if ((flags & RF_TENSOR_BUFFER) && (t->flags & w) && !(t->flags & RF_TENSOR_BUFFER) &&
        rf_tensor_elems(t, &n))
        g->params = g->params >= n ? g->params - n : 0;
    int new_weight = (flags & w) && !(t->flags & w);
    t->flags |= flags;
    if (new_weight) rf__count_weight(g, t); /* a Constant node's tensor found to be a weight */
    return RF_OK;
}

rf_status rf_graph_set_dim_name(rf_ctx *ctx, rf_graph *g, uint32_t tensor, uint32_t axis,
                                const char *symbol)
{
    RF_CHECK(ctx, tensor < g->n_tensors && axis < RF_GRAPH_MAX_RANK, RF_USAGE,
             "graph: no tensor %u axis %u", tensor, axis);
    const char *s = rf__gstr(ctx, g, symbol);
    if (!s) return rf_ctx_error_status(ctx);
    g->tensors[tensor].dim_names[axis] = s;
    return RF_OK;
}

/* A graph-owned copy of n values of `size` bytes each into *dst (NULL, untouched, when n is over
 * RF_GRAPH_MAX_VALUES: such contents are not kept). */
static rf_status rf__keep_values(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const void *v,
                                 uint32_t n, size_t size, void **dst)
{
    RF_CHECK(ctx, tensor < g->n_tensors, RF_USAGE, "graph: no tensor %u", tensor);
    *dst = NULL;
    if (n > RF_GRAPH_MAX_VALUES) return RF_OK;
    *dst = rf_graph_alloc(ctx, g, (size_t)n * size + 1);
    if (!*dst) return rf_ctx_error_status(ctx);
    if (n) memcpy(*dst, v, (size_t)n * size);
    return RF_OK;
}

rf_status rf_graph_set_fvalues(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const double *v,
                               uint32_t n)
{
    void *d = NULL;
    RF_TRY(rf__keep_values(ctx, g, tensor, v, n, sizeof *v, &d));
    if (d) g->tensors[tensor].fvalues = d, g->tensors[tensor].n_fvalues = n;
    return RF_OK;
}

rf_status rf_graph_set_values(rf_ctx *ctx, rf_graph *g, uint32_t tensor, const int64_t *v,
                              uint32_t n)
{
    void *d = NULL;
    RF_TRY(rf__keep_values(ctx, g, tensor, v, n, sizeof *v, &d));
    if (d) g->tensors[tensor].values = d, g->tensors[tensor].n_values = n;
    return RF_OK;
}
