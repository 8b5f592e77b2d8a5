/* onnx.c — the ONNX reader: walks ModelProto and GraphProto by hand (formats.md §5c) so that
 * initializer raw_data is never copied, decodes nodes and value infos with protobuf-c (code
 * generated from onnx.proto) through a capped allocator, and builds an rf_graph. Shapes are those
 * the file states; inference is rf_graph_infer_shapes. Never reads external weight files. */
#include <string.h>

#include "formats/onnx_int.h"
#include "onnx.pb-c.h"
#include "roofline/onnx.h"

static rf_status rf__wfail(rf__onnx *o, const rf__cursor *c, const char *why)
{
    size_t off = (size_t)(c->p - o->base);
    return rf__error(o->ctx, RF_FORMAT, (int64_t)off, "%s: %s at byte %zu", o->what, why, off);
}

/* protobuf-c unpack failures: the cap, out of memory, or malformed bytes. */
rf_status rf__onnx_unpack_fail(rf__onnx *o, const uint8_t *p)
{
    size_t off = (size_t)(p - o->base);
    if (o->pa.capped)
        return rf__error(o->ctx, RF_RANGE, (int64_t)off,
                         "%s at byte %zu: decoding it needs more memory than its size justifies",
                         o->what, off);
    return rf__error(o->ctx, RF_FORMAT, (int64_t)off, "%s at byte %zu: malformed message", o->what,
                     off);
}

/* The cap for one protobuf-c message of n bytes: 64 bytes per input byte + 1 MiB. */
void rf__onnx_cap_for(rf__onnx *o, size_t n)
{
    o->pa.capped = 0;
    o->pa.cap = (n > (SIZE_MAX - ((size_t)1 << 20)) / 64 ? SIZE_MAX : n * 64 + ((size_t)1 << 20));
}

void rf__onnx_what(rf__onnx *o, const char *fmt, const char *s, size_t i)
{
    size_t len = 0;
    o->what[0] = '\0';
    rf__appendf(o->what, sizeof o->what, &len, fmt, i, s ? s : "");
}

/* ---- tensors ----------------------------------------------------------------------------------
 */

rf_status rf__onnx_dtype(rf__onnx *o, int32_t id, rf_dtype *dt)
{
    if (id == 0) {
        *dt = RF_DTYPE_UNKNOWN;
        return RF_OK;
    }
    RF_CHECK(o->ctx, rf_dtype_from_onnx(id, dt), RF_UNSUPPORTED, "%s: unknown data type %d",
             o->what, (int)id);
    return RF_OK;
}

/* Small integer contents of an int64/int32 initializer or Constant (for shape inference). */
rf_status rf__onnx_values_raw(rf__onnx *o, uint32_t ti, rf_dtype dt, const uint8_t *raw,
                              size_t raw_len)
{
    int64_t v[RF_GRAPH_MAX_VALUES];
    if (dt == RF_DTYPE_F32 || dt == RF_DTYPE_F64) { /* Resize's scales */
        double f[RF_GRAPH_MAX_VALUES];
        size_t fw = dt == RF_DTYPE_F32 ? 4 : 8;
        if (raw_len % fw || raw_len / fw > RF_GRAPH_MAX_VALUES) return RF_OK;
        for (size_t i = 0; i < raw_len / fw; i++) {
            uint64_t x = 0;
            for (size_t k = fw; k-- > 0;) x = x << 8 | raw[i * fw + k];
            if (fw == 4) {
                uint32_t u = (uint32_t)x;
                float s;
                memcpy(&s, &u, sizeof s);
                f[i] = s;
            } else {
                memcpy(&f[i], &x, sizeof f[i]);
            }
        }
        return rf_graph_set_fvalues(o->ctx, o->g, ti, f, (uint32_t)(raw_len / fw));
    }
    /* int64 / int32, and one-byte booleans (If's condition) */
    size_t w = dt == RF_DTYPE_I64 ? 8 : dt == RF_DTYPE_I32 ? 4 : dt == RF_DTYPE_BOOL ? 1 : 0;
    if (!w || raw_len % w || raw_len / w > RF_GRAPH_MAX_VALUES) return RF_OK;
    for (size_t i = 0; i < raw_len / w; i++) {
        uint64_t x = 0;
        for (size_t k = w; k-- > 0;) x = x << 8 | raw[i * w + k];
        v[i] = w == 8 ? (int64_t)x : w == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)(x != 0);
    }
    return rf_graph_set_values(o->ctx, o->g, ti, v, (uint32_t)(raw_len / w));
}

rf_status rf__onnx_values_packed(rf__onnx *o, uint32_t ti, const uint8_t *p, size_t n)
{
    int64_t v[RF_GRAPH_MAX_VALUES];
    uint32_t k = 0;
    rf__cursor c;
    const char *why;
    rf__cursor_init(&c, p, n);
    while (!rf__cursor_eof(&c)) {
        uint64_t x;
        if (k == RF_GRAPH_MAX_VALUES || !rf__pb_varint(&c, &x, &why)) return RF_OK;
        v[k++] = (int64_t)x;
    }
    return rf_graph_set_values(o->ctx, o->g, ti, v, k);
}

static rf_status rf__initializer(rf__onnx *o, const uint8_t *p, size_t n, size_t idx)
{
    rf__onnx_tensor t;
    rf__onnx_what(o, "graph.initializer[%zu]%s", "", idx);
    RF_TRY(rf__onnx_tensor_decode(o->ctx, o->base, p, n, o->what, &t));
    char name[256];
    rf__excerpt(name, sizeof name, t.name, t.name_len, 200);
    rf__onnx_what(o, "graph.initializer[%zu] '%s'", name, idx);
    rf_dtype dt;
    RF_TRY(rf__onnx_dtype(o, t.data_type, &dt));
    uint64_t elems = 1, bytes = 0;
    for (uint32_t i = 0; i < t.rank; i++)
        RF_CHECK(o->ctx, rf__mul_ok(elems, (uint64_t)t.dims[i], &elems), RF_RANGE,
                 "%s: the product of its dims overflows", o->what);
    RF_CHECK(o->ctx, dt == RF_DTYPE_STRING || rf_dtype_bytes(dt, elems, &bytes), RF_RANGE,
             "%s: its size in bytes overflows", o->what);
    if (t.external) {
        RF_CHECK(o->ctx, t.location, RF_FORMAT, "%s: external data without a location", o->what);
        RF_TRY(rf__onnx_check_location(o->ctx, t.location, t.location_len, o->base_dir, o->what));
        if (t.ext_bad) {
            char ex[64], loc[96];
            rf__excerpt(ex, sizeof ex, t.ext_bad_val, t.ext_bad_len, 40);
            rf__excerpt(loc, sizeof loc, t.location, t.location_len, 60);
            return rf__error(o->ctx, RF_FORMAT, -1,
                             "%s: external data %s \"%s\" in '%s' is not a non-negative decimal "
                             "number",
                             o->what, t.ext_bad, ex, loc);
        }
        if (dt != RF_DTYPE_STRING && t.has_length && t.ext_length != bytes) {
            char loc[96];
            rf__excerpt(loc, sizeof loc, t.location, t.location_len, 60);
            return rf__error(o->ctx, RF_FORMAT, -1,
                             "%s: external data length %llu in '%s', its dims and type need %llu "
                             "bytes",
                             o->what, (unsigned long long)t.ext_length, loc,
                             (unsigned long long)bytes);
        }
        int state = o->base_dir ? rf__onnx_external_state(&t, o->base_dir) : 0;
        if (state == 1 && !o->ext_missing++) {
            rf__strlcpy(o->ext_missing_first, name, sizeof o->ext_missing_first);
            rf__excerpt(o->ext_missing_file, sizeof o->ext_missing_file, t.location, t.location_len,
                        120);
        }
        if (state == 2 && !o->ext_outside++)
            rf__strlcpy(o->ext_outside_first, name, sizeof o->ext_outside_first);
    } else if (t.raw) {
        RF_CHECK(o->ctx, dt == RF_DTYPE_STRING || t.raw_len == bytes, RF_FORMAT,
                 "%s: raw_data has %zu bytes, its dims and type need %llu", o->what, t.raw_len,
                 (unsigned long long)bytes);
    }
    char *nm = rf_graph_strdup(o->ctx, o->g, (const char *)t.name, t.name_len);
    if (!nm) return rf_ctx_error_status(o->ctx);
    RF_CHECK(o->ctx, strlen(nm) == t.name_len && t.name_len > 0, RF_FORMAT,
             "%s: empty name or a name with a NUL byte", o->what);
    uint32_t ti;
    uint32_t fl = RF_TENSOR_WEIGHT | (t.external ? RF_TENSOR_EXTERNAL : 0);
    RF_TRY(rf_graph_add_tensor(o->ctx, o->g, nm, dt, t.rank, t.dims, fl, &ti));
    if (t.raw) return rf__onnx_values_raw(o, ti, dt, t.raw, t.raw_len);
    if (t.i64) return rf__onnx_values_packed(o, ti, t.i64, t.i64_len);
    return RF_OK;
}

/* A ValueInfoProto: create the tensor (graph input) or fill in a shape still unknown. */
static rf_status rf__value_info(rf__onnx *o, const uint8_t *p, size_t n, uint32_t flags)
{
    rf__onnx_cap_for(o, n);
    Onnx__ValueInfoProto *vi = onnx__value_info_proto__unpack(&o->pa.pb, n, p);
    if (!vi) return rf__onnx_unpack_fail(o, p);
    rf_status st = RF_OK;
    const char *name = vi->name ? vi->name : "";
    Onnx__TypeProto__Tensor *tt = vi->type ? vi->type->tensor_type : NULL;
    Onnx__TensorShapeProto *sh = tt ? tt->shape : NULL;
    uint32_t ti = rf_graph_find_tensor(o->g, name);
    rf_dtype dt = RF_DTYPE_UNKNOWN;
    int64_t dims[RF_GRAPH_MAX_RANK];
    uint32_t rank =
        sh ? (uint32_t)(sh->n_dim > RF_GRAPH_MAX_RANK ? UINT32_MAX - 1 : sh->n_dim) : UINT32_MAX;
    if (!*name || (tt && (st = rf__onnx_dtype(o, tt->elem_type, &dt)) != RF_OK)) {
        if (st == RF_OK) st = rf__error(o->ctx, RF_FORMAT, -1, "%s: no name", o->what);
        goto out;
    }
    if (rank == UINT32_MAX - 1) {
        st = rf__error(o->ctx, RF_UNSUPPORTED, -1, "%s '%.200s': rank %zu is above %d", o->what,
                       name, sh->n_dim, RF_GRAPH_MAX_RANK);
        goto out;
    }
    for (uint32_t i = 0; sh && i < rank; i++)
        dims[i] =
            sh->dim[i]->has_dim_value && sh->dim[i]->dim_value >= 0 ? sh->dim[i]->dim_value : -1;
    if (ti == RF_GRAPH_NO_TENSOR) {
        if (!(flags & RF_TENSOR_INPUT)) goto out; /* value_info of a tensor nobody uses */
        st = rf_graph_add_tensor(o->ctx, o->g, name, dt, rank, dims, flags, &ti);
    } else {
        rf_tensor *t = &o->g->tensors[ti];
        if (t->flags & RF_TENSOR_WEIGHT) goto out; /* IR < 4: initializers listed as inputs */
        st = rf_graph_add_flags(o->ctx, o->g, ti, flags);
        if (st == RF_OK && t->dtype == RF_DTYPE_UNKNOWN)
            st = rf_graph_set_dtype(o->ctx, o->g, ti, dt);
        if (st == RF_OK && !t->shape_known && rank != UINT32_MAX)
            st = rf_graph_set_shape(o->ctx, o->g, ti, rank, dims);
    }
    for (uint32_t i = 0; st == RF_OK && sh && i < rank; i++)
        if (dims[i] < 0 && sh->dim[i]->dim_param && *sh->dim[i]->dim_param)
            st = rf_graph_set_dim_name(o->ctx, o->g, ti, i, sh->dim[i]->dim_param);
out:
    onnx__value_info_proto__free_unpacked(vi, &o->pa.pb);
    return st;
}

/* ---- GraphProto: four passes over its fields (initializers, inputs, nodes, shapes) ------------
 */

static rf_status rf__graph_pass(rf__onnx *o, const uint8_t *gp, size_t gn, int pass)
{
    rf__cursor c = {o->base, gp, gp + gn};
    size_t count[16] = {0};
    const char *why;
    while (!rf__cursor_eof(&c)) {
        uint32_t f;
        int w;
        const uint8_t *p;
        size_t n;
        rf__onnx_what(o, "graph%.0zu%s", "", 0);
        if (!rf__pb_tag(&c, &f, &w, &why)) return rf__wfail(o, &c, why);
        int mine = (pass == 0 && f == 5) || (pass == 1 && f == 11) || (pass == 2 && f == 1) ||
                   (pass == 3 && (f == 13 || f == 12)) || (pass == 0 && f == 2);
        if (!mine || w != RF__PB_LEN) {
            if (mine) return rf__wfail(o, &c, "field has the wrong wire type");
            if (!rf__pb_skip(&c, w, &why)) return rf__wfail(o, &c, why);
            continue;
        }
        if (!rf__pb_bytes(&c, &p, &n, &why)) return rf__wfail(o, &c, why);
        size_t i = count[f]++;
        if (f == 2) {
            char *nm = rf_graph_strdup(o->ctx, o->g, (const char *)p, n);
            if (!nm) return rf_ctx_error_status(o->ctx);
            o->g->name = nm;
        } else if (f == 5) {
            RF_TRY(rf__initializer(o, p, n, i));
        } else if (f == 11 || f == 12 || f == 13) {
            const char *fld = f == 11   ? "graph.input[%zu]%s"
                              : f == 12 ? "graph.output[%zu]%s"
                                        : "graph.value_info[%zu]%s";
            rf__onnx_what(o, fld, "", i);
            RF_TRY(rf__value_info(o, p, n,
                                  f == 11   ? RF_TENSOR_INPUT
                                  : f == 12 ? RF_TENSOR_OUTPUT
                                            : 0));
        } else {
            RF_TRY(rf__onnx_node(o, p, n, i));
        }
    }
    return RF_OK;
}

static rf_status rf__graph(rf__onnx *o, const uint8_t *gp, size_t gn)
{
    for (int pass = 0; pass < 4; pass++) RF_TRY(rf__graph_pass(o, gp, gn, pass));
    return RF_OK;
}

/* The ONNX IR asks for nodes in topological order, but converters break it (the fp16 converter
 * appends its Casts at the end) and ONNX Runtime sorts them: so do we, refusing a real cycle. */
static rf_status rf__topological(rf__onnx *o)
{
    uint32_t moved = 0;
    RF_TRY(rf_graph_sort_layers(o->ctx, o->g, &moved));
    if (moved)
        rf__log(o->ctx, RF_LOG_INFO,
                "%u node%s listed before the nodes whose outputs they read: sorted, as ONNX "
                "Runtime does",
                moved, moved == 1 ? " was" : "s were");
    return RF_OK;
}

/* opset_import entry: the default domain's version. */
static rf_status rf__opset(rf__onnx *o, const uint8_t *p, size_t n)
{
    rf__onnx_cap_for(o, n);
    Onnx__OperatorSetIdProto *op = onnx__operator_set_id_proto__unpack(&o->pa.pb, n, p);
    if (!op) return rf__onnx_unpack_fail(o, p);
    if ((!op->domain || !*op->domain || strcmp(op->domain, "ai.onnx") == 0) && op->has_version)
        o->g->opset = op->version;
    o->opsets++;
    onnx__operator_set_id_proto__free_unpacked(op, &o->pa.pb);
    return RF_OK;
}

static rf_status rf__model(rf__onnx *o)
{
    rf__cursor c;
    const uint8_t *graph = NULL;
    size_t graph_n = 0, functions = 0;
    const char *why;
    rf__cursor_init(&c, o->base, o->size);
    while (!rf__cursor_eof(&c)) {
        uint32_t f;
        int w;
        const uint8_t *p;
        size_t n;
        uint64_t v;
        rf__onnx_what(o, "model%.0zu%s", "", 0);
        if (!rf__pb_tag(&c, &f, &w, &why)) return rf__wfail(o, &c, why);
        if (f == 1 && w == RF__PB_VARINT) {
            if (!rf__pb_varint(&c, &v, &why)) return rf__wfail(o, &c, why);
            RF_CHECK(o->ctx, v >= 1 && v <= 64, RF_UNSUPPORTED,
                     "model: ir_version %llu is not an ONNX IR version", (unsigned long long)v);
            continue;
        }
        if (f != 2 && f != 7 && f != 8 && f != 14 && f != 25) {
            if (!rf__pb_skip(&c, w, &why)) return rf__wfail(o, &c, why);
            continue;
        }
        if (w != RF__PB_LEN) return rf__wfail(o, &c, "field has the wrong wire type");
        if (!rf__pb_bytes(&c, &p, &n, &why)) return rf__wfail(o, &c, why);
        if (f == 7) graph = p, graph_n = n;
        if (f == 25) functions++;
        if (f == 8) RF_TRY(rf__opset(o, p, n));
        if (f == 2) {
            char *s = rf_graph_strdup(o->ctx, o->g, (const char *)p, n);
            if (!s || rf_graph_add_meta(o->ctx, o->g, "producer_name", s) != RF_OK)
                return rf_ctx_error_status(o->ctx);
        }
    }
    RF_CHECK(o->ctx, o->size > 0, RF_FORMAT, "empty file: not an ONNX model");
    if (!graph) return rf__error(o->ctx, RF_FORMAT, (int64_t)o->size, "model: no graph (field 7)");
    RF_CHECK(o->ctx, o->opsets, RF_FORMAT,
             "model: no opset_import (the ONNX spec requires one: which operator set the nodes "
             "follow is unknown)");
    if (functions)
        rf__log(o->ctx, RF_LOG_WARN,
                "model has %zu local function%s: nodes calling them are "
                "counted as undefined",
                functions, functions == 1 ? "" : "s");
    RF_TRY(rf__graph(o, graph, graph_n));
    return rf__topological(o);
}

/* BatchNormalization's running mean and variance (inputs 3 and 4) are buffers, not parameters:
 * PyTorch's parameter count leaves them out, and so does params (weight_bytes keeps them). */
static void rf__onnx_buffers(rf_graph *g)
{
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        if (strcmp(l->op_type, "BatchNormalization") != 0) continue;
        for (uint32_t k = 3; k < 5 && k < l->n_inputs; k++) {
            if (l->inputs[k] == RF_GRAPH_NO_TENSOR) continue;
            rf_tensor *t = &g->tensors[l->inputs[k]];
            if (!(t->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_CONST_WEIGHT)) ||
                (t->flags & RF_TENSOR_BUFFER) || !t->shape_known)
                continue;
            rf_graph_add_flags(NULL, g, l->inputs[k], RF_TENSOR_BUFFER);
        }
    }
}

/* Weights in Constant nodes (paddle2onnx, some tf2onnx exports): a Constant's floating-point or
 * 8-bit tensor of rank >= 1 counts as a weight (params, weight bytes) unless it is only read as
 * Resize's / Upsample's roi, scales or sizes. */
static rf_status rf__onnx_constant_weights(rf_ctx *ctx, rf_graph *g)
{
    uint8_t *read = rf__malloc(ctx, (size_t)g->n_tensors + 1); /* 1: read as a weight would be */
    if (!read) return RF_NOMEM_ERR(ctx);
    memset(read, 0, (size_t)g->n_tensors + 1);
    for (uint32_t k = 0; k < g->n_layers; k++) {
        const rf_layer *c = &g->layers[k];
        int resize = strcmp(c->op_type, "Resize") == 0 || strcmp(c->op_type, "Upsample") == 0;
        for (uint32_t j = 0; j < (resize ? 1u : c->n_inputs); j++)
            if (c->inputs[j] != RF_GRAPH_NO_TENSOR) read[c->inputs[j]] = 1;
    }
    for (uint32_t i = 0; i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        if (strcmp(l->op_type, "Constant") != 0 || l->n_outputs != 1) continue;
        uint32_t ti = l->outputs[0];
        const rf_tensor *t = &g->tensors[ti];
        rf_dtype dt = t->dtype;
        if (read[ti] && t->shape_known && t->rank > 0 && !(t->flags & RF_TENSOR_WEIGHT) &&
            (dt == RF_DTYPE_F32 || dt == RF_DTYPE_F16 || dt == RF_DTYPE_BF16 ||
             dt == RF_DTYPE_F64 || dt == RF_DTYPE_I8 || dt == RF_DTYPE_U8))
            rf_graph_add_flags(NULL, g, ti, RF_TENSOR_CONST_WEIGHT);
    }
    rf__free(ctx, read);
    return RF_OK;
}

rf_status rf_onnx_parse(rf_ctx *ctx, const void *data, size_t size, const char *name,
                        const char *base_dir, rf_graph **out)
{
    rf__onnx o;
    memset(&o, 0, sizeof o);
    *out = NULL;
    o.ctx = ctx;
    o.base = data ? data : (const uint8_t *)"";
    o.size = data ? size : 0;
    o.base_dir = base_dir;
    rf__pb_alloc_init(&o.pa, ctx, 0);
    RF_TRY(rf_graph_new(ctx, "onnx", &o.g));
    rf_status st = rf__model(&o);
    if (st != RF_OK) {
        rf_graph_free(o.g);
        return name ? rf__error_prefix(ctx, name) : st;
    }
    st = rf__onnx_constant_weights(ctx, o.g);
    if (st != RF_OK) {
        rf_graph_free(o.g);
        return st;
    }
    rf__onnx_buffers(o.g);
    const char *nm = name ? name : "model";
    if (o.ext_missing)
        rf__log(ctx, RF_LOG_WARN,
                "%s: external data file '%s' of %zu initializer%s (first '%s') is missing; the "
                "weights are not needed to count",
                nm, o.ext_missing_file, o.ext_missing, o.ext_missing == 1 ? "" : "s",
                o.ext_missing_first);
    if (o.ext_outside)
        rf__log(ctx, RF_LOG_WARN,
                "%s: the external data of %zu initializer%s (first '%s') lies past the end of its "
                "file; the weights are not needed to count",
                nm, o.ext_outside, o.ext_outside == 1 ? "" : "s", o.ext_outside_first);
    *out = o.g;
    return RF_OK;
}

rf_status rf_onnx_read_file(rf_ctx *ctx, const char *path, rf_graph **out)
{
    rf__map m;
    char dir[4096];
    *out = NULL;
    RF_TRY(rf__map_file(ctx, path, (uint64_t)1 << 40, &m));
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof dir) {
        memcpy(dir, path, (size_t)(slash - path));
        dir[slash - path] = '\0';
        if (slash == path) rf__strlcpy(dir, "/", sizeof dir);
    } else {
        rf__strlcpy(dir, ".", sizeof dir);
    }
    rf_status st = rf_onnx_parse(ctx, m.data, m.size, path, dir, out);
    rf__unmap_file(&m);
    return st;
}
