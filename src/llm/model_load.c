/* model_load.c — rf_model_load, the one dispatcher from a model file to an rf_graph: ONNX goes to
 * its reader (src/formats), GGUF and SafeTensors to the transformer builder (src/llm), which
 * reads them through their parsers. It lives here, at the highest module it calls, so that
 * src/formats never depends on src/llm (DESIGN.md: lower folders never include higher ones).
 * Detects the format from the first bytes (GGUF magic, SafeTensors header length + '{', else ONNX
 * by extension or protobuf shape), applies --batch/--seq/--input/--dim and infers shapes; also
 * serves the embedded demo model (data/resnet18.onnx). */
#include <string.h>
#include <sys/stat.h>

#include "formats/formats_int.h"
#include "roofline/apr.h"
#include "roofline/llm.h"
#include "roofline/model.h"

extern const unsigned char rf__demo_model[];
extern const size_t rf__demo_model_size;

const void *rf_demo_model(size_t *size)
{
    *size = rf__demo_model_size;
    return rf__demo_model;
}

static int rf__ends_with(const char *s, const char *suffix)
{
    size_t n = s ? strlen(s) : 0, m = strlen(suffix);
    return n >= m && rf__strcasecmp(s + n - m, suffix) == 0;
}

rf_model_format rf_model_detect(const void *head, size_t n, const char *path)
{
    const uint8_t *h = head;
    if (n >= 4 && memcmp(h, "GGUF", 4) == 0) return RF_MODEL_GGUF;
    if (rf_apr_magic(h, n)) return RF_MODEL_APR;
    if (n >= 9 && h[8] == '{' && h[7] == 0 && h[6] == 0 && h[5] == 0) return RF_MODEL_SAFETENSORS;
    if (rf__ends_with(path, ".onnx")) return RF_MODEL_ONNX;
    if (rf__ends_with(path, ".gguf")) return RF_MODEL_GGUF;
    if (rf__ends_with(path, ".safetensors")) return RF_MODEL_SAFETENSORS;
    /* a ModelProto starts with ir_version (field 1, varint: 0x08) */
    if (n >= 2 && h[0] == 0x08 && h[1] > 0 && h[1] < 64) return RF_MODEL_ONNX;
    return RF_MODEL_AUTO;
}

/* --batch / --seq: set axes of every graph input that is not a weight. */
static void rf__apply_batch_seq(rf_graph *g, const rf_model_opts *o)
{
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        rf_tensor *t = &g->tensors[i];
        if (!(t->flags & RF_TENSOR_INPUT) || (t->flags & RF_TENSOR_WEIGHT) || !t->shape_known)
            continue;
        if (o->batch && t->rank >= 1) t->dims[0] = (int64_t)o->batch;
        if (o->seq && (t->rank == 2 || t->rank == 3)) t->dims[1] = (int64_t)o->seq;
    }
}

static rf_status rf__model_parse(rf_ctx *ctx, rf_model_format fmt, const void *data, size_t size,
                                 const char *name, const char *base_dir, rf_graph **out)
{
    switch (fmt) {
    case RF_MODEL_ONNX: return rf_onnx_parse(ctx, data, size, name, base_dir, out);
    default:
        return rf__error(ctx, RF_UNSUPPORTED, 0,
                         "%s: not a model file roofline reads (ONNX .onnx%s)", name,
                         fmt == RF_MODEL_GGUF ? "; GGUF support is not built yet"
                         : fmt == RF_MODEL_SAFETENSORS ? "; SafeTensors support is not built yet"
                                                       : ", GGUF .gguf, SafeTensors .safetensors");
    }
}

static rf_status rf__finish(rf_ctx *ctx, rf_graph *g, const char *name, const rf_model_opts *o)
{
    static const rf_model_opts none;
    o = o ? o : &none;
    if (o->batch || o->seq) rf__apply_batch_seq(g, o);
    rf_status st = rf_graph_infer_shapes(ctx, g, o->bindings, o->n_bindings);
    if (st != RF_OK && st != RF_USAGE) rf__error_prefix(ctx, name);
    return st;
}

rf_status rf_model_load_mem(rf_ctx *ctx, const void *data, size_t size, const char *name,
                            const rf_model_opts *opts, rf_graph **out)
{
    rf_model_format fmt = opts && opts->format ? opts->format : rf_model_detect(data, size, name);
    *out = NULL;
    RF_TRY(rf__model_parse(ctx, fmt, data, size, name, NULL, out));
    rf_status st = rf__finish(ctx, *out, name, opts);
    if (st != RF_OK) {
        rf_graph_free(*out);
        *out = NULL;
    }
    return st;
}

/* GGUF and SafeTensors: the architecture's graph (src/llm), a prefill of --seq tokens (default
 * 128) at --batch; --input/--dim do not apply to these graphs. */
static rf_status rf__llm_load(rf_ctx *ctx, const char *path, const rf_model_opts *o,
                              rf_graph **out)
{
    if (o && o->n_bindings)
        rf__log(ctx, RF_LOG_WARN, "%s: --input/--dim are ignored for GGUF and SafeTensors models "
                                  "(use --batch and --seq)", path);
    rf_llm_opts lo = {.phase = RF_LLM_PREFILL};
    if (o) lo.batch = o->batch, lo.prompt = o->seq, lo.granular = o->granular;
    return rf_llm_load_graph_opts(ctx, path, &lo, out);
}

rf_status rf_model_load(rf_ctx *ctx, const char *path, const rf_model_opts *opts, rf_graph **out)
{
    rf__map m;
    char dir[4096];
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) /* a SafeTensors checkpoint folder */
        return rf__llm_load(ctx, path, opts, out);
    RF_TRY(rf__map_file(ctx, path, (uint64_t)1 << 40, &m));
    rf_model_format fmt = opts && opts->format ? opts->format : rf_model_detect(m.data, m.size, path);
    if (fmt == RF_MODEL_GGUF || fmt == RF_MODEL_SAFETENSORS || fmt == RF_MODEL_APR) {
        rf__unmap_file(&m);
        return rf__llm_load(ctx, path, opts, out);
    }
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof dir && slash != path) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
    } else {
        rf__strlcpy(dir, slash ? "/" : ".", sizeof dir);
    }
    rf_status st = rf__model_parse(ctx, fmt, m.data, m.size, path, dir, out);
    rf__unmap_file(&m);
    if (st == RF_OK) st = rf__finish(ctx, *out, path, opts);
    if (st != RF_OK) {
        rf_graph_free(*out);
        *out = NULL;
    }
    return st;
}
