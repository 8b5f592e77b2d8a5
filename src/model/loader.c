/* loader.c — the one way from a model file to an rf_graph: the file is mapped once, its format
 * detected once from the bytes (formats/detect.c), and one table of readers dispatches: ONNX to
 * its reader and shape inference with the user's bindings, GGUF and SafeTensors (file or index)
 * and APR to the transformer builder (a prefill of --seq tokens at --batch). rf_model_load is a
 * thin map-then-rf_model_load_mem wrapper. Also serves the embedded demo (data/resnet18.onnx). */
#include <stdlib.h>
#include <string.h>

#include "core/io.h"
#include "formats/formats_int.h"
#include "roofline/llm.h"
#include "roofline/onnx.h"
#include "roofline/model.h"

extern const unsigned char rf__demo_model[];
extern const size_t rf__demo_model_size;

const void *rf_demo_model(size_t *size)
{
    *size = rf__demo_model_size;
    return rf__demo_model;
}

/* --batch / --seq: set axes of every graph input that is not a weight. */
static rf_status rf__apply_batch_seq(rf_ctx *ctx, rf_graph *g, const rf_model_opts *o)
{
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        const rf_tensor *t = &g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        int64_t dims[RF_GRAPH_MAX_RANK];
        memcpy(dims, t->dims, sizeof dims);
        if (o->batch && t->rank >= 1) dims[0] = (int64_t)o->batch;
        if (o->seq && (t->rank == 2 || t->rank == 3)) dims[1] = (int64_t)o->seq;
        RF_TRY(rf_graph_set_shape(ctx, g, i, t->rank, dims));
    }
    return RF_OK;
}

/* Is axis d of input tensor `t` set by the user (an --input binding of t, a --dim of its symbol)?
 */
static int rf__bound(const rf_tensor *t, uint32_t d, const rf_model_opts *o)
{
    for (size_t i = 0; i < o->n_bindings; i++) {
        const rf_shape_binding *b = &o->bindings[i];
        if (b->is_dim != 1 && strcmp(b->name, t->name) == 0) return 1;
        if (b->is_dim == 1 && t->dim_names[d] && strcmp(b->name, t->dim_names[d]) == 0) return 1;
    }
    return 0;
}

/* A symbol that names the batch ("batch", "batch_size", "unk__batch", "Batch"...). */
static int rf__batch_symbol(const char *sym)
{
    for (const char *p = sym ? sym : ""; *p; p++) {
        const char *w = "batch";
        size_t k = 0;
        while (w[k] && (p[k] | 0x20) == w[k]) k++;
        if (!w[k]) return 1;
    }
    return 0;
}

/* Unknown input dimensions (issue 12: no silent table of zeros). The first axis of every input
 * is the batch, and so is an axis whose symbol names it (an RNN state [2, batch, 64]): when the
 * user left it unknown it becomes 1, said in one warning. Any other unknown input dimension
 * stops the run with one line naming them and the flags that set them. Bindings for the symbols
 * set to 1 are added to *b (capacity cap). */
static rf_status rf__input_dims(rf_ctx *ctx, rf_graph *g, const char *name, const rf_model_opts *o,
                                rf_shape_binding *b, size_t cap, size_t *n)
{
    char missing[768] = "", batch[256] = "";
    size_t lm = 0, lb = 0;
    int batch_other = 0;
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        rf_tensor *t = &g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        char shape[160] = "", dims_msg[320] = "", syms[320] = "";
        size_t ls = 0, ld = 0, lsy = 0;
        int other = 0, unnamed = 0, is_batch[RF_GRAPH_MAX_RANK] = {0};
        int64_t dims[RF_GRAPH_MAX_RANK];
        memcpy(dims, t->dims, sizeof dims);
        int set = 0;
        for (uint32_t d = 0; d < t->rank; d++) {
            const char *sym = t->dim_names[d];
            int unknown = t->dims[d] < 0 && !rf__bound(t, d, o);
            is_batch[d] = unknown && (d == 0 || rf__batch_symbol(sym));
            if (unknown && !is_batch[d]) {
                rf__appendf(dims_msg, sizeof dims_msg, &ld, "%s'%s'", other ? ", " : "",
                            sym ? sym : "?");
                if (sym)
                    rf__appendf(syms, sizeof syms, &lsy, "%s%s=N", lsy ? "," : "", sym);
                else
                    unnamed = 1;
                other++;
            }
            if (is_batch[d]) {
                rf__appendf(batch, sizeof batch, &lb, "%s'%s'", lb ? ", " : "", t->name);
                if (d > 0)
                    rf__appendf(batch, sizeof batch, &lb, " (axis %u, '%s')", d, sym),
                        batch_other = 1;
                int seen = 0;
                for (size_t k = 0; sym && k < *n; k++) seen |= strcmp(b[k].name, sym) == 0;
                if (sym && (seen || *n < cap)) { /* every tensor with that symbol gets 1 */
                    if (!seen) {
                        memset(&b[*n], 0, sizeof b[*n]);
                        rf__strlcpy(b[*n].name, sym, sizeof b[*n].name);
                        b[*n].is_dim = 1;
                        b[*n].value = 1;
                        (*n)++;
                    }
                } else {
                    dims[d] = 1, set = 1;
                }
            }
            rf__appendf(shape, sizeof shape, &ls, "%s%s", d ? "x" : "",
                        t->dims[d] >= 0 ? ""
                        : is_batch[d]   ? "1"
                                        : "N");
            if (t->dims[d] >= 0)
                rf__appendf(shape, sizeof shape, &ls, "%lld", (long long)t->dims[d]);
        }
        if (set) RF_TRY(rf_graph_set_shape(ctx, g, i, t->rank, dims));
        if (other)
            rf__appendf(missing, sizeof missing, &lm,
                        "%sinput '%s' has unknown dimension%s %s: give %s%s%s--input %s=%s",
                        lm ? "; " : "", t->name, other > 1 ? "s" : "", dims_msg,
                        lsy && !unnamed ? "--dim " : "", lsy && !unnamed ? syms : "",
                        lsy && !unnamed ? " or " : "", t->name, shape);
    }
    if (lm) return rf__error(ctx, RF_USAGE, -1, "%s: %s", name, missing);
    if (lb)
        rf__log(ctx, RF_LOG_WARN,
                "%s: the %s of input %s is unknown: taken as 1 (the batch; --batch N or --dim "
                "sets it)",
                name, batch_other ? "batch dimension" : "first dimension", batch);
    return RF_OK;
}

/* --trips NODE=N: the layers of Loop / Scan NODE whose trip count the file does not give
 * (rf_trips_unknown) repeat N times. A name that matches no such loop is a usage error. */
static rf_status rf__trips(rf_ctx *ctx, rf_graph *g, const char *name, const char *spec)
{
    char buf[1024];
    if (!spec || !*spec) return RF_OK;
    RF_CHECK(ctx, strlen(spec) < sizeof buf, RF_USAGE, "--trips: too long");
    memcpy(buf, spec, strlen(spec) + 1);
    for (char *s = buf, *e; s && *s; s = e) {
        e = strchr(s, ',');
        if (e) *e++ = '\0';
        char *eq = strrchr(s, '=');
        char *end = NULL;
        long long n = eq ? strtoll(eq + 1, &end, 10) : -1;
        RF_CHECK(ctx, eq && eq != s && end && !*end && n >= 1 && n < (1ll << 40), RF_USAGE,
                 "--trips '%.100s': expected NODE=N (N >= 1)", s);
        *eq = '\0';
        int found = 0;
        for (uint32_t i = 0; i < g->n_layers; i++) {
            rf_layer *l = &g->layers[i];
            const rf_attr *lp = rf_layer_attr(l, "rf_loop");
            if (!lp || lp->type != RF_ATTR_STRING || strcmp(lp->s, s) != 0 ||
                !rf_layer_attr_int(l, "rf_trips_unknown", 0))
                continue;
            uint64_t r = l->repeat ? l->repeat : 1;
            RF_CHECK(ctx, rf__mul_ok(r, (uint64_t)n, &r), RF_RANGE, "--trips %s: overflow", s);
            l->repeat = r;
            RF_TRY(rf_graph_set_attr_int(ctx, g, i, "rf_trips_unknown", 0));
            found = 1;
        }
        RF_CHECK(ctx, found, RF_USAGE,
                 "%s: --trips %s: no Loop or Scan of that name with an "
                 "unknown trip count",
                 name, s);
    }
    return RF_OK;
}

/* One warning per Loop / Scan still at one iteration. */
static void rf__warn_trips(rf_ctx *ctx, const rf_graph *g, const char *name)
{
    const char *last = NULL;
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        const rf_attr *lp = rf_layer_attr(l, "rf_loop");
        if (!lp || lp->type != RF_ATTR_STRING || !rf_layer_attr_int(l, "rf_trips_unknown", 0) ||
            (last && strcmp(last, lp->s) == 0))
            continue;
        last = lp->s;
        rf__log(ctx, RF_LOG_WARN,
                "%s: the trip count of '%s' is not known from the file: its body is counted "
                "once (--trips %s=N sets it)",
                name, lp->s, lp->s);
    }
}

/* ONNX: the graph as the file states it, then the user's shapes and inference. */
static rf_status rf__load_onnx(rf_ctx *ctx, const void *data, size_t size, const char *name,
                               const char *dir, const rf_model_opts *o, rf_graph **out)
{
    RF_TRY(rf_onnx_parse(ctx, data, size, name, dir, out));
    if (o->batch || o->seq) RF_TRY(rf__apply_batch_seq(ctx, *out, o));
    rf_shape_binding b[48];
    size_t nb = o->n_bindings < 32 ? o->n_bindings : 32;
    if (nb) memcpy(b, o->bindings, nb * sizeof *b);
    rf_status st = rf__input_dims(ctx, *out, name, o, b, sizeof b / sizeof *b, &nb);
    if (st != RF_OK) return st;
    if (o->n_bindings > 32) nb = o->n_bindings; /* more than kept: the user's, as given */
    if (st == RF_OK) st = rf__trips(ctx, *out, name, o->trips);
    if (st == RF_OK)
        st = rf_graph_infer_shapes(ctx, *out, nb == o->n_bindings ? o->bindings : b, nb);
    if (st != RF_OK && st != RF_USAGE) rf__error_prefix(ctx, name);
    if (st == RF_OK) rf__warn_trips(ctx, *out, name);
    return st;
}

/* GGUF and SafeTensors: the architecture's graph, a prefill of --seq tokens (default 128) at
 * --batch; --input/--dim do not apply to these graphs. */
static rf_status rf__load_llm(rf_ctx *ctx, const void *data, size_t size, const char *name,
                              const char *dir, const rf_model_opts *o, rf_graph **out)
{
    (void)dir;
    rf_llm_model *m = NULL;
    rf_llm_opts lo = {0};
    lo.phase = RF_LLM_PREFILL;
    lo.batch = o->batch;
    lo.prompt = o->seq;
    lo.granular = o->granular;
    if (o->n_bindings)
        rf__log(ctx, RF_LOG_WARN,
                "%s: --input/--dim are ignored for GGUF and SafeTensors models "
                "(use --batch and --seq)",
                name);
    RF_TRY(rf_llm_parse(ctx, data, size, name, &m));
    rf_status st = rf_llm_hparams_get(m)->known
                       ? rf_llm_build(ctx, m, &lo, out)
                       : rf__error(ctx, RF_UNSUPPORTED, -1,
                                   "%s: architecture '%s' is not one roofline builds block by "
                                   "block: no layer graph (`roofline llm` reports its weights)",
                                   name, rf_llm_hparams_get(m)->architecture);
    rf_llm_free(m);
    return st;
}

/* The readers, in the order their detection is tried. */
typedef struct rf__reader {
    rf_model_format format;
    rf_status (*load)(rf_ctx *ctx, const void *data, size_t size, const char *name, const char *dir,
                      const rf_model_opts *o, rf_graph **out);
} rf__reader;

static const rf__reader rf__readers[] = {
    {RF_MODEL_ONNX, rf__load_onnx},
    {RF_MODEL_GGUF, rf__load_llm},
    {RF_MODEL_SAFETENSORS, rf__load_llm},
    {RF_MODEL_APR, rf__load_llm},
};

static rf_status rf__load(rf_ctx *ctx, const void *data, size_t size, const char *name,
                          const char *dir, const rf_model_opts *opts, rf_graph **out)
{
    static const rf_model_opts none;
    const rf_model_opts *o = opts ? opts : &none;
    *out = NULL;
    RF_CHECK(ctx, o->batch <= RF_MODEL_MAX_BATCH && o->seq <= RF_MODEL_MAX_BATCH, RF_RANGE,
             "%s: %s %llu is out of range (at most %llu)", name,
             o->batch > RF_MODEL_MAX_BATCH ? "batch" : "seq",
             (unsigned long long)(o->batch > RF_MODEL_MAX_BATCH ? o->batch : o->seq),
             (unsigned long long)RF_MODEL_MAX_BATCH);
    rf_model_format fmt = o->format ? o->format : rf_model_detect(data, size, name);
    if (fmt == RF_MODEL_AUTO && rf__is_st_index(data, size)) fmt = RF_MODEL_SAFETENSORS;
    for (size_t i = 0; i < sizeof rf__readers / sizeof *rf__readers; i++) {
        if (rf__readers[i].format != fmt) continue;
        rf_status st = rf__readers[i].load(ctx, data, size, name, dir, o, out);
        if (st != RF_OK) {
            rf_graph_free(*out);
            *out = NULL;
            if (st != RF_USAGE) rf__error_name(ctx, name); /* bad input names the file */
        }
        return st;
    }
    return rf__error(ctx, RF_UNSUPPORTED, 0,
                     "%s: not a model file roofline reads (ONNX .onnx, GGUF .gguf, SafeTensors "
                     ".safetensors with its config.json, APR .apr)",
                     name);
}

rf_status rf_model_load_mem(rf_ctx *ctx, const void *data, size_t size, const char *name,
                            const rf_model_opts *opts, rf_graph **out)
{
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, data && out, RF_USAGE, "rf_model_load_mem: data and out are required");
    return rf__load(ctx, data, size, name ? name : "model", NULL, opts, out);
}

rf_status rf_model_load(rf_ctx *ctx, const char *path, const rf_model_opts *opts, rf_graph **out)
{
    char file[4096], dir[4096];
    rf__map m;
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, path && out, RF_USAGE, "rf_model_load: path and out are required");
    *out = NULL;
    RF_TRY(rf__model_file(ctx, path, file, sizeof file));
    RF_TRY(rf__map_file(ctx, file, (uint64_t)1 << 50, &m));
    const char *slash = strrchr(file, '/');
    if (slash && slash != file) {
        memcpy(dir, file, (size_t)(slash - file));
        dir[slash - file] = '\0';
    } else {
        rf__strlcpy(dir, slash ? "/" : ".", sizeof dir);
    }
    rf_status st = rf__load(ctx, m.data, m.size, file, dir, opts, out);
    rf__unmap_file(&m);
    return st;
}
