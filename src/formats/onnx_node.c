/* onnx_node.c — one ONNX NodeProto into an rf_graph layer: its tensors (created on first use),
 * its attributes (INT, FLOAT, STRING, INTS, FLOATS; Constant's tensor becomes the output's shape,
 * type and small integer values), decoded by protobuf-c through the capped allocator.
 * Control flow (If, Loop, Scan) is inlined: the subgraph's nodes become layers named
 * NODE/then|else|body/..., its own names prefixed, outer-scope names kept; Loop and Scan bodies
 * repeat by the trip count (docs/cost-model.md "Control flow"). */
#include <stdio.h>
#include <string.h>

#include "formats/onnx_int.h"
#include "onnx.pb-c.h"

#define RF__ONNX_MAX_DEPTH 16 /* nested subgraphs */

static rf_status rf__build(rf__onnx *o, const Onnx__NodeProto *nd, size_t idx);

/* Find a tensor by name or create it (unknown shape). */
static rf_status rf__tensor_for(rf__onnx *o, const char *name, uint32_t *ti)
{
    *ti = rf_graph_find_tensor(o->g, name);
    if (*ti != RF_GRAPH_NO_TENSOR) return RF_OK;
    return rf_graph_add_tensor(o->ctx, o->g, name, RF_DTYPE_UNKNOWN, UINT32_MAX, NULL, 0, ti);
}

/* A Constant's value (attribute value / value_int / value_ints / value_float) onto its output. */
static rf_status rf__constant(rf__onnx *o, uint32_t out, const Onnx__AttributeProto *a)
{
    rf_graph *g = o->g;
    if (strcmp(a->name, "value") == 0 && a->t) {
        const Onnx__TensorProto *t = a->t;
        rf_dtype dt;
        int64_t dims[RF_GRAPH_MAX_RANK];
        RF_CHECK(o->ctx, t->n_dims <= RF_GRAPH_MAX_RANK, RF_UNSUPPORTED, "%s: constant of rank %zu",
                 o->what, t->n_dims);
        for (size_t i = 0; i < t->n_dims; i++) {
            RF_CHECK(o->ctx, t->dims[i] >= 0, RF_FORMAT, "%s: negative dim", o->what);
            dims[i] = t->dims[i];
        }
        RF_TRY(rf__onnx_dtype(o, t->data_type, &dt));
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, dt));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, (uint32_t)t->n_dims, dims));
        if (t->has_raw_data)
            return rf__onnx_values_raw(o, out, dt, t->raw_data.data, t->raw_data.len);
        if (t->n_int64_data && t->n_int64_data <= RF_GRAPH_MAX_VALUES)
            return rf_graph_set_values(o->ctx, g, out, t->int64_data, (uint32_t)t->n_int64_data);
        if (t->n_float_data && t->n_float_data <= RF_GRAPH_MAX_VALUES) {
            double f[RF_GRAPH_MAX_VALUES];
            for (size_t i = 0; i < t->n_float_data; i++) f[i] = t->float_data[i];
            return rf_graph_set_fvalues(o->ctx, g, out, f, (uint32_t)t->n_float_data);
        }
        if (dt == RF_DTYPE_F32 && t->n_dims == 1 && dims[0] == 0) /* an empty roi */
            return rf_graph_set_fvalues(o->ctx, g, out, NULL, 0);
        return RF_OK;
    }
    int64_t one = 1;
    if (strcmp(a->name, "value_int") == 0) {
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, RF_DTYPE_I64));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, 0, NULL));
        return rf_graph_set_values(o->ctx, g, out, &a->i, 1);
    }
    if (strcmp(a->name, "value_ints") == 0) {
        int64_t n = (int64_t)a->n_ints;
        RF_TRY(rf_graph_set_dtype(o->ctx, g, out, RF_DTYPE_I64));
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, 1, &n));
        return a->n_ints <= RF_GRAPH_MAX_VALUES
                   ? rf_graph_set_values(o->ctx, g, out, a->ints, (uint32_t)a->n_ints)
                   : RF_OK;
    }
    if (strcmp(a->name, "value_float") == 0) {
        double f = a->f;
        g->tensors[out].dtype = RF_DTYPE_F32;
        RF_TRY(rf_graph_set_shape(o->ctx, g, out, 0, &one));
        return rf_graph_set_fvalues(o->ctx, g, out, &f, 1);
    }
    return RF_OK;
}

/* One attribute onto layer li. Returns 1 through *subgraph for GRAPH(S) attributes. */
/* ConstantOfShape's integer fill value (a one-element INT64 or INT32 tensor) as the private
 * attribute rf_fill_int, so that shape arithmetic sees the values it makes. */
static rf_status rf__fill_value(rf__onnx *o, uint32_t li, const Onnx__AttributeProto *a)
{
    const Onnx__TensorProto *t = a->t;
    if (strcmp(a->name, "value") != 0 || !t || (t->data_type != 7 && t->data_type != 6))
        return RF_OK;
    int64_t v;
    if (t->data_type == 7 && t->n_int64_data == 1)
        v = t->int64_data[0];
    else if (t->data_type == 6 && t->n_int32_data == 1)
        v = t->int32_data[0];
    else if (t->has_raw_data && t->raw_data.len == (t->data_type == 7 ? 8u : 4u)) {
        const uint8_t *b = t->raw_data.data;
        uint64_t u = 0;
        for (size_t k = t->raw_data.len; k-- > 0;) u = u << 8 | b[k];
        v = t->data_type == 7 ? (int64_t)u : (int64_t)(int32_t)(uint32_t)u;
    } else {
        return RF_OK;
    }
    return rf_graph_set_attr_int(o->ctx, o->g, li, "rf_fill_int", v);
}

static rf_status rf__attr(rf__onnx *o, uint32_t li, const Onnx__AttributeProto *a, int *subgraph)
{
    rf_ctx *ctx = o->ctx;
    int type = a->has_type ? a->type : 0;
    RF_CHECK(ctx, a->name && *a->name, RF_FORMAT, "%s: attribute without a name", o->what);
    if (type == 0) /* IR < 3 files may omit the type: infer it from what is set */
        type = a->n_ints ? 7 : a->n_floats ? 6 : a->has_s ? 3 : a->t ? 4 : a->has_f ? 1 : 2;
    switch (type) {
    case 1: return rf_graph_set_attr_float(ctx, o->g, li, a->name, a->f);
    case 2: return rf_graph_set_attr_int(ctx, o->g, li, a->name, a->i);
    case 3:
        return rf_graph_set_attr_string(ctx, o->g, li, a->name, (const char *)a->s.data, a->s.len);
    case 7:
        RF_CHECK(ctx, a->n_ints <= UINT32_MAX, RF_RANGE, "%s: too many ints", o->what);
        return rf_graph_set_attr_ints(ctx, o->g, li, a->name, a->ints, (uint32_t)a->n_ints);
    case 6: {
        double buf[64];
        uint32_t n = a->n_floats < 64 ? (uint32_t)a->n_floats : 64;
        for (uint32_t i = 0; i < n; i++) buf[i] = a->floats[i];
        return rf_graph_set_attr_floats(ctx, o->g, li, a->name, buf, n);
    }
    case 5:
    case 10: *subgraph = 1; return RF_OK;
    default: return RF_OK; /* tensors, strings, type protos: not needed for costs */
    }
}

static rf_status rf__if(rf__onnx *o, const Onnx__NodeProto *nd, const char *nm);
static rf_status rf__loop(rf__onnx *o, const Onnx__NodeProto *nd, const char *nm);
static int rf__is_control(const Onnx__NodeProto *nd);

static rf_status rf__build(rf__onnx *o, const Onnx__NodeProto *nd, size_t idx)
{
    uint32_t in[256], out[256], *ins = in, *outs = out, li;
    if (rf__is_control(nd) && nd->op_type) {
        char nbuf[64];
        snprintf(nbuf, sizeof nbuf, "%s_%zu", nd->op_type, idx);
        const char *nm = nd->name && *nd->name ? nd->name : nbuf;
        char *keep = rf_graph_strdup(o->ctx, o->g, nm, strlen(nm));
        if (!keep) return rf_ctx_error_status(o->ctx);
        return strcmp(nd->op_type, "If") == 0 ? rf__if(o, nd, keep) : rf__loop(o, nd, keep);
    }
    RF_CHECK(o->ctx, nd->n_input <= 256 && nd->n_output <= 256, RF_UNSUPPORTED,
             "%s: more than 256 inputs or outputs", o->what);
    RF_CHECK(o->ctx, nd->op_type && *nd->op_type, RF_FORMAT, "%s: no op_type", o->what);
    for (size_t i = 0; i < nd->n_input; i++) {
        if (!*nd->input[i])
            ins[i] = RF_GRAPH_NO_TENSOR;
        else
            RF_TRY(rf__tensor_for(o, nd->input[i], &ins[i]));
    }
    for (size_t i = 0; i < nd->n_output; i++) {
        RF_TRY(rf__tensor_for(o, nd->output[i], &outs[i]));
        const rf_tensor *t = &o->g->tensors[outs[i]];
        RF_CHECK(o->ctx, t->producer < 0 && !(t->flags & (RF_TENSOR_WEIGHT | RF_TENSOR_INPUT)),
                 RF_FORMAT, "%s: output '%.200s' is already produced elsewhere", o->what, t->name);
    }
    char name[64];
    const char *nm = nd->name && *nd->name ? nd->name : name;
    size_t len = 0;
    rf__appendf(name, sizeof name, &len, "%s_%zu", nd->op_type, idx);
    RF_TRY(rf_graph_add_layer(o->ctx, o->g, nm, nd->op_type, ins, (uint32_t)nd->n_input, outs,
                              (uint32_t)nd->n_output, &li));
    rf_layer *l = &o->g->layers[li];
    const char *dom = nd->domain ? nd->domain : "";
    if (*dom) l->domain = rf_graph_strdup(o->ctx, o->g, dom, strlen(dom));
    if (!l->domain) return rf_ctx_error_status(o->ctx);
    if (*dom) l->kind = rf_op_kind_in_domain(nd->op_type, dom);
    int sub = 0;
    for (size_t i = 0; i < nd->n_attribute; i++) {
        RF_TRY(rf__attr(o, li, nd->attribute[i], &sub));
        if (strcmp(nd->op_type, "Constant") == 0 && nd->n_output == 1)
            RF_TRY(rf__constant(o, outs[0], nd->attribute[i]));
        if (strcmp(nd->op_type, "ConstantOfShape") == 0)
            RF_TRY(rf__fill_value(o, li, nd->attribute[i]));
    }
    if (sub) o->g->layers[li].kind = RF_OP_UNKNOWN; /* a subgraph op roofline does not inline */
    return RF_OK;
}

/* ---- control flow ---------------------------------------------------------------------------
 * A subgraph's own names (its inputs, initializers and node outputs) become PREFIX/name, unless
 * `bind` maps them to an outer tensor; every other name is the enclosing scope's, as that scope
 * maps it (a subgraph nested in an inlined subgraph reads its parent's renamed outputs). */
typedef struct rf__scope {
    const char **from, **to;
    size_t n, cap;
    const struct rf__scope *parent; /* the enclosing subgraph's: its names as this one sees them */
} rf__scope;

static rf_status rf__scope_add(rf__onnx *o, rf__scope *s, const char *from, const char *to)
{
    if (!from || !*from) return RF_OK;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->from[i], from) == 0) return RF_OK; /* the first binding wins */
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        const char **f = rf__malloc(o->ctx, cap * sizeof *f),
                   **t = rf__malloc(o->ctx, cap * sizeof *t);
        if (!f || !t) {
            rf__free(o->ctx, f);
            rf__free(o->ctx, t);
            return RF_NOMEM_ERR(o->ctx);
        }
        if (s->n) memcpy(f, s->from, s->n * sizeof *f), memcpy(t, s->to, s->n * sizeof *t);
        rf__free(o->ctx, s->from);
        rf__free(o->ctx, s->to);
        s->from = f, s->to = t, s->cap = cap;
    }
    s->from[s->n] = from;
    s->to[s->n++] = to;
    return RF_OK;
}

static const char *rf__scope_map(const rf__scope *s, const char *name)
{
    for (; s; s = s->parent)
        for (size_t i = 0; name && *name && i < s->n; i++)
            if (strcmp(s->from[i], name) == 0) return s->to[i];
    return name;
}

static void rf__scope_free(rf__onnx *o, rf__scope *s)
{
    rf__free(o->ctx, s->from);
    rf__free(o->ctx, s->to);
}

/* PREFIX/name, kept by the graph */
static const char *rf__prefixed(rf__onnx *o, const char *prefix, const char *name)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.255s/%.250s", prefix, name);
    return rf_graph_strdup(o->ctx, o->g, buf, strlen(buf));
}

static const Onnx__GraphProto *rf__graph_attr(const Onnx__NodeProto *nd, const char *name)
{
    for (size_t i = 0; i < nd->n_attribute; i++)
        if (nd->attribute[i]->name && strcmp(nd->attribute[i]->name, name) == 0)
            return nd->attribute[i]->g;
    return NULL;
}

static int64_t rf__int_attr(const Onnx__NodeProto *nd, const char *name, int64_t def)
{
    for (size_t i = 0; i < nd->n_attribute; i++)
        if (nd->attribute[i]->name && strcmp(nd->attribute[i]->name, name) == 0)
            return nd->attribute[i]->i;
    return def;
}

/* A tensor `name` of scalar type dt and value v (a Loop body's iteration number and condition). */
static rf_status rf__scalar(rf__onnx *o, const char *name, rf_dtype dt, int64_t v)
{
    uint32_t t;
    RF_TRY(rf_graph_add_tensor(o->ctx, o->g, name, dt, 0, NULL, RF_TENSOR_WEIGHT, &t));
    return rf_graph_set_values(o->ctx, o->g, t, &v, 1);
}

/* A one-input one-output layer of `op` (Identity, or the private rf_StackTrips / rf_ScanSlice)
 * from outer tensor `in` to `out`, with an integer attribute. */
static rf_status rf__link(rf__onnx *o, const char *lname, const char *op, const char *in,
                          const char *out, const char *attr, int64_t v)
{
    uint32_t ti, to, li;
    if (!in || !*in || !out || !*out) return RF_OK;
    RF_TRY(rf__tensor_for(o, in, &ti));
    RF_TRY(rf__tensor_for(o, out, &to));
    RF_CHECK(o->ctx, o->g->tensors[to].producer < 0, RF_FORMAT,
             "%s: output '%.200s' is already produced elsewhere", o->what, out);
    RF_TRY(rf_graph_add_layer(o->ctx, o->g, lname, op, &ti, 1, &to, 1, &li));
    return attr ? rf_graph_set_attr_int(o->ctx, o->g, li, attr, v) : RF_OK;
}

/* Inline graph `sg` with `prefix` and the bindings in `scope`; every layer it makes repeats
 * `trips` more times and carries `tag_name` = tag (the If group, the Loop) when given. */
static rf_status rf__inline(rf__onnx *o, const Onnx__GraphProto *sg, const char *prefix,
                            rf__scope *scope, uint64_t trips, const char *tag_name, int64_t tag,
                            const char *tag_str_name, const char *tag_str)
{
    RF_CHECK(o->ctx, o->depth < RF__ONNX_MAX_DEPTH, RF_UNSUPPORTED,
             "%s: subgraphs nested deeper than %d", o->what, RF__ONNX_MAX_DEPTH);
    /* the subgraph's own names */
    for (size_t i = 0; i < sg->n_input; i++)
        if (sg->input[i]->name)
            RF_TRY(rf__scope_add(o, scope, sg->input[i]->name,
                                 rf__prefixed(o, prefix, sg->input[i]->name)));
    for (size_t i = 0; i < sg->n_node; i++)
        for (size_t k = 0; k < sg->node[i]->n_output; k++)
            if (*sg->node[i]->output[k])
                RF_TRY(rf__scope_add(o, scope, sg->node[i]->output[k],
                                     rf__prefixed(o, prefix, sg->node[i]->output[k])));
    for (size_t i = 0; i < sg->n_initializer; i++) {
        const Onnx__TensorProto *t = sg->initializer[i];
        if (!t->name) continue;
        const char *nm = rf__prefixed(o, prefix, t->name);
        if (!nm) return rf_ctx_error_status(o->ctx);
        RF_TRY(rf__scope_add(o, scope, t->name, nm));
        rf_dtype dt;
        int64_t dims[RF_GRAPH_MAX_RANK];
        RF_CHECK(o->ctx, t->n_dims <= RF_GRAPH_MAX_RANK, RF_UNSUPPORTED,
                 "%s: subgraph initializer of rank %zu", o->what, t->n_dims);
        for (size_t d = 0; d < t->n_dims; d++) {
            RF_CHECK(o->ctx, t->dims[d] >= 0, RF_FORMAT, "%s: negative dim", o->what);
            dims[d] = t->dims[d];
        }
        RF_TRY(rf__onnx_dtype(o, t->data_type, &dt));
        uint32_t ti;
        RF_TRY(rf_graph_add_tensor(o->ctx, o->g, nm, dt, (uint32_t)t->n_dims, dims,
                                   RF_TENSOR_WEIGHT, &ti));
        if (t->has_raw_data)
            RF_TRY(rf__onnx_values_raw(o, ti, dt, t->raw_data.data, t->raw_data.len));
        else if (t->n_int64_data && t->n_int64_data <= RF_GRAPH_MAX_VALUES)
            RF_TRY(rf_graph_set_values(o->ctx, o->g, ti, t->int64_data, (uint32_t)t->n_int64_data));
    }
    o->depth++;
    const void *outer = o->scope;
    scope->parent = outer;
    o->scope = scope;
    rf_status st = RF_OK;
    for (size_t i = 0; i < sg->n_node && st == RF_OK; i++) {
        const Onnx__NodeProto *src = sg->node[i];
        Onnx__NodeProto copy = *src;
        char **in = rf__malloc(o->ctx, (src->n_input + 1) * sizeof *in);
        char **out = rf__malloc(o->ctx, (src->n_output + 1) * sizeof *out);
        if (!in || !out) {
            rf__free(o->ctx, in);
            rf__free(o->ctx, out);
            st = RF_NOMEM_ERR(o->ctx);
            break;
        }
        for (size_t k = 0; k < src->n_input; k++)
            in[k] = (char *)rf__scope_map(scope, src->input[k]);
        for (size_t k = 0; k < src->n_output; k++)
            out[k] = (char *)rf__scope_map(scope, src->output[k]);
        char nbuf[64];
        snprintf(nbuf, sizeof nbuf, "%s_%zu", src->op_type ? src->op_type : "node", i);
        copy.input = in;
        copy.output = out;
        copy.name = (char *)rf__prefixed(o, prefix, src->name && *src->name ? src->name : nbuf);
        uint32_t before = o->g->n_layers;
        st = copy.name ? rf__build(o, &copy, i) : rf_ctx_error_status(o->ctx);
        for (uint32_t li = before; st == RF_OK && li < o->g->n_layers; li++) {
            rf_layer *l = &o->g->layers[li];
            uint64_t r = l->repeat ? l->repeat : 1;
            if (!rf__mul_ok(r, trips, &r))
                st = rf__error(o->ctx, RF_RANGE, -1, "%s: nested trip counts overflow", o->what);
            l->repeat = r;
            if (st == RF_OK && tag_name)
                st = rf_graph_set_attr_int(o->ctx, o->g, li, tag_name, tag);
            if (st == RF_OK && tag_str_name && rf_layer_attr(l, tag_str_name) == NULL)
                st = rf_graph_set_attr_string(o->ctx, o->g, li, tag_str_name, tag_str,
                                              strlen(tag_str));
        }
        rf__free(o->ctx, in);
        rf__free(o->ctx, out);
    }
    o->depth--;
    o->scope = outer;
    return st;
}

/* Prepend "G:b" (If group G, branch b: 0 then, 1 else) to the rf_if_path of layers [from, n): the
 * Ifs a layer sits in, outermost first ("1:1/3:0"), for the cost model to drop a branch with all
 * it nests. */
static rf_status rf__if_tag(rf__onnx *o, uint32_t from, int64_t group, int b)
{
    for (uint32_t li = from; li < o->g->n_layers; li++) {
        rf_layer *l = &o->g->layers[li];
        rf_attr *a = NULL;
        for (uint32_t k = 0; k < l->n_attrs && !a; k++)
            if (strcmp(l->attrs[k].name, "rf_if_path") == 0) a = &l->attrs[k];
        char path[512];
        int n = snprintf(path, sizeof path, "%lld:%d%s%s", (long long)group, b, a ? "/" : "",
                         a && a->s ? a->s : "");
        RF_CHECK(o->ctx, n > 0 && (size_t)n < sizeof path, RF_UNSUPPORTED,
                 "%s: If nodes nested too deeply", o->what);
        if (!a) {
            RF_TRY(rf_graph_set_attr_string(o->ctx, o->g, li, "rf_if_path", path, (size_t)n));
        } else if (!(a->s = rf_graph_strdup(o->ctx, o->g, path, (size_t)n))) {
            return rf_ctx_error_status(o->ctx);
        }
    }
    return RF_OK;
}

/* If: the branch its condition selects when the condition is known (a constant); else both,
 * their layers tagged rf_if_path (rf__if_tag), and each output an rf_IfSelect (condition, then,
 * else) tagged rf_if_select = the group and rf_if_node = the If's name: the cost model keeps the
 * branch the inferred condition takes, or the larger when it stays unknown. A known condition's
 * outputs are Identity layers. */
static rf_status rf__if(rf__onnx *o, const Onnx__NodeProto *nd, const char *nm)
{
    const Onnx__GraphProto *br[2] = {rf__graph_attr(nd, "then_branch"),
                                     rf__graph_attr(nd, "else_branch")};
    RF_CHECK(o->ctx, br[0] && br[1] && nd->n_input >= 1, RF_FORMAT,
             "%s: If needs a condition, then_branch and else_branch", o->what);
    uint32_t ct = rf_graph_find_tensor(o->g, nd->input[0]);
    int known =
        ct != RF_GRAPH_NO_TENSOR && o->g->tensors[ct].values && o->g->tensors[ct].n_values >= 1;
    int take = known ? (o->g->tensors[ct].values[0] ? 0 : 1) : -1;
    int64_t group = known ? 0 : (int64_t)++o->if_groups;
    const char *out_branch[2][64];
    size_t n_out[2] = {0, 0};
    for (int b = 0; b < 2; b++) {
        if (take >= 0 && b != take) continue;
        rf__scope sc = {0};
        char prefix[512];
        snprintf(prefix, sizeof prefix, "%s/%s", nm, b ? "else" : "then");
        uint32_t before = o->g->n_layers;
        rf_status st = rf__inline(o, br[b], prefix, &sc, 1, NULL, 0, NULL, NULL);
        if (st == RF_OK && !known) st = rf__if_tag(o, before, group, b);
        for (size_t k = 0; st == RF_OK && k < br[b]->n_output && k < 64; k++)
            out_branch[b][n_out[b]++] = rf__scope_map(&sc, br[b]->output[k]->name);
        rf__scope_free(o, &sc);
        RF_TRY(st);
    }
    int b = take >= 0 ? take : 0;
    for (size_t k = 0; k < nd->n_output && k < n_out[b]; k++) {
        char ln[512];
        snprintf(ln, sizeof ln, "%s/out_%zu", nm, k);
        if (known || k >= n_out[1] || !*out_branch[0][k] || !*out_branch[1][k]) {
            RF_TRY(rf__link(o, ln, "Identity", out_branch[b][k], nd->output[k], NULL, 0));
            continue;
        }
        /* Both branches: a select that shape inference resolves once the condition's value is
         * known (a shape test, say); the cost model then drops the branch not taken. */
        uint32_t in[3], to, li;
        RF_TRY(rf__tensor_for(o, nd->input[0], &in[0]));
        RF_TRY(rf__tensor_for(o, out_branch[0][k], &in[1]));
        RF_TRY(rf__tensor_for(o, out_branch[1][k], &in[2]));
        RF_TRY(rf__tensor_for(o, nd->output[k], &to));
        RF_CHECK(o->ctx, o->g->tensors[to].producer < 0, RF_FORMAT,
                 "%s: output '%.200s' is already produced elsewhere", o->what, nd->output[k]);
        RF_TRY(rf_graph_add_layer(o->ctx, o->g, ln, "rf_IfSelect", in, 3, &to, 1, &li));
        RF_TRY(rf_graph_set_attr_int(o->ctx, o->g, li, "rf_if_select", group));
        RF_TRY(rf_graph_set_attr_string(o->ctx, o->g, li, "rf_if_node", nm, strlen(nm)));
    }
    return RF_OK;
}

/* Loop (M, cond, carried...) and Scan (states..., scan inputs...): the body repeats by the trip
 * count: Loop's M when its value is known, Scan's scan axis when the shape is; else once, tagged
 * rf_loop (the node) and rf_trips_unknown for --trips. */
static rf_status rf__loop(rf__onnx *o, const Onnx__NodeProto *nd, const char *nm)
{
    int scan = strcmp(nd->op_type, "Scan") == 0;
    const Onnx__GraphProto *body = rf__graph_attr(nd, "body");
    RF_CHECK(o->ctx, body, RF_FORMAT, "%s: %s without a body", o->what, nd->op_type);
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/body", nm);
    rf__scope sc = {0};
    int64_t trips = -1;
    size_t n_state, n_scan_in = 0;
    rf_status st = RF_OK;
    if (!scan) {
        RF_CHECK(o->ctx, body->n_input >= 2 && nd->n_input >= 2, RF_FORMAT,
                 "%s: Loop's body needs (iteration, condition, ...) inputs", o->what);
        uint32_t mt = *nd->input[0] ? rf_graph_find_tensor(o->g, nd->input[0]) : RF_GRAPH_NO_TENSOR;
        if (mt != RF_GRAPH_NO_TENSOR && o->g->tensors[mt].values && o->g->tensors[mt].n_values >= 1)
            trips = o->g->tensors[mt].values[0];
        n_state = nd->n_input - 2;
        const char *it = rf__prefixed(o, prefix, "rf_iteration"),
                   *cd = rf__prefixed(o, prefix, "rf_condition");
        if (!it || !cd) return rf_ctx_error_status(o->ctx);
        RF_TRY(rf__scalar(o, it, RF_DTYPE_I64, 0));
        RF_TRY(rf__scalar(o, cd, RF_DTYPE_BOOL, 1));
        st = rf__scope_add(o, &sc, body->input[0]->name, it);
        if (st == RF_OK) st = rf__scope_add(o, &sc, body->input[1]->name, cd);
        for (size_t k = 0; st == RF_OK && k < n_state && 2 + k < body->n_input; k++)
            st = rf__scope_add(o, &sc, body->input[2 + k]->name, nd->input[2 + k]);
    } else {
        n_scan_in = (size_t)rf__int_attr(nd, "num_scan_inputs", 0);
        RF_CHECK(o->ctx, n_scan_in >= 1 && n_scan_in <= nd->n_input && body->n_input == nd->n_input,
                 RF_FORMAT, "%s: Scan's num_scan_inputs and body inputs do not agree", o->what);
        n_state = nd->n_input - n_scan_in;
        uint32_t s0 = rf_graph_find_tensor(o->g, nd->input[n_state]);
        if (s0 != RF_GRAPH_NO_TENSOR && o->g->tensors[s0].shape_known &&
            o->g->tensors[s0].rank >= 1 && o->g->tensors[s0].dims[0] >= 0)
            trips = o->g->tensors[s0].dims[0];
        for (size_t k = 0; st == RF_OK && k < n_state; k++)
            st = rf__scope_add(o, &sc, body->input[k]->name, nd->input[k]);
        for (size_t j = 0; st == RF_OK && j < n_scan_in; j++) { /* one slice per iteration */
            const char *slice = rf__prefixed(o, prefix, body->input[n_state + j]->name);
            char ln[512];
            snprintf(ln, sizeof ln, "%s/slice_%zu", nm, j);
            st = slice ? rf__scope_add(o, &sc, body->input[n_state + j]->name, slice)
                       : rf_ctx_error_status(o->ctx);
            if (st == RF_OK)
                st = rf__link(o, ln, "rf_ScanSlice", nd->input[n_state + j], slice, NULL, 0);
        }
    }
    if (st == RF_OK && trips < 0) trips = -1;
    RF_CHECK(o->ctx, trips < (int64_t)1 << 40, RF_RANGE,
             "%s: a trip count of %lld is beyond reason", o->what, (long long)trips);
    uint64_t reps = trips >= 0 ? (uint64_t)trips : 1;
    if (st == RF_OK)
        st = rf__inline(o, body, prefix, &sc, reps, trips < 0 ? "rf_trips_unknown" : NULL, 1,
                        "rf_loop", nm);
    /* outputs: the carried / state values, then the stacked scan outputs */
    size_t first = scan ? 0 : 1;
    for (size_t k = 0; st == RF_OK && k < nd->n_output && first + k < body->n_output; k++) {
        const char *from = rf__scope_map(&sc, body->output[first + k]->name);
        char ln[512];
        snprintf(ln, sizeof ln, "%s/out_%zu", nm, k);
        int stacked = k >= n_state;
        st = rf__link(o, ln, stacked ? "rf_StackTrips" : "Identity", from, nd->output[k],
                      stacked ? "trips" : NULL, (int64_t)reps);
    }
    rf__scope_free(o, &sc);
    return st;
}

/* If / Loop / Scan of the default domain with their subgraphs: inlined. */
static int rf__is_control(const Onnx__NodeProto *nd)
{
    if (nd->domain && *nd->domain && strcmp(nd->domain, "ai.onnx") != 0) return 0;
    return nd->op_type && (!strcmp(nd->op_type, "If") || !strcmp(nd->op_type, "Loop") ||
                           !strcmp(nd->op_type, "Scan"));
}

/* The nesting depth of subgraphs in NodeProto bytes (attribute 5 -> g 6 -> node 1 -> ...), at
 * most `limit` + 1 counted: measured before protobuf-c decodes (and recurses into) them.
 * Malformed bytes stop the count; the decoder then says what is wrong. */
static int rf__node_depth(const uint8_t *p, size_t n, int limit)
{
    rf__cursor c;
    const char *why;
    int deepest = 0;
    rf__cursor_init(&c, p, n);
    while (!rf__cursor_eof(&c)) {
        uint32_t f;
        int w;
        const uint8_t *a;
        size_t an;
        if (!rf__pb_tag(&c, &f, &w, &why)) return deepest;
        if (f != 5 || w != RF__PB_LEN) {
            if (!rf__pb_skip(&c, w, &why)) return deepest;
            continue;
        }
        if (!rf__pb_bytes(&c, &a, &an, &why)) return deepest;
        rf__cursor ac; /* AttributeProto: g = 6 */
        rf__cursor_init(&ac, a, an);
        while (!rf__cursor_eof(&ac)) {
            const uint8_t *gp;
            size_t gn;
            if (!rf__pb_tag(&ac, &f, &w, &why)) break;
            if (f != 6 || w != RF__PB_LEN) {
                if (!rf__pb_skip(&ac, w, &why)) break;
                continue;
            }
            if (!rf__pb_bytes(&ac, &gp, &gn, &why)) break;
            if (limit <= 0) return 1;
            rf__cursor gc; /* GraphProto: node = 1 */
            rf__cursor_init(&gc, gp, gn);
            int sub = 0;
            while (!rf__cursor_eof(&gc)) {
                const uint8_t *np;
                size_t nn;
                if (!rf__pb_tag(&gc, &f, &w, &why)) break;
                if (f != 1 || w != RF__PB_LEN) {
                    if (!rf__pb_skip(&gc, w, &why)) break;
                    continue;
                }
                if (!rf__pb_bytes(&gc, &np, &nn, &why)) break;
                int d = rf__node_depth(np, nn, limit - 1);
                if (d > sub) sub = d;
            }
            if (1 + sub > deepest) deepest = 1 + sub;
            if (deepest > limit) return deepest;
        }
    }
    return deepest;
}

rf_status rf__onnx_node(rf__onnx *o, const uint8_t *p, size_t n, size_t idx)
{
    rf__onnx_what(o, "graph.node[%zu]%s", "", idx);
    RF_CHECK(o->ctx, rf__node_depth(p, n, RF__ONNX_MAX_DEPTH) <= RF__ONNX_MAX_DEPTH, RF_UNSUPPORTED,
             "graph.node[%zu]: subgraphs nested deeper than %d levels", idx, RF__ONNX_MAX_DEPTH);
    rf__onnx_cap_for(o, n);
    Onnx__NodeProto *nd = onnx__node_proto__unpack(&o->pa.pb, n, p);
    if (!nd) return rf__onnx_unpack_fail(o, p);
    char ex[160];
    rf__excerpt(ex, sizeof ex, nd->name ? nd->name : "", nd->name ? strlen(nd->name) : 0, 120);
    size_t len = 0;
    o->what[0] = '\0';
    rf__appendf(o->what, sizeof o->what, &len, "graph.node[%zu] '%s'", idx, ex);
    rf_status st = rf__build(o, nd, idx);
    onnx__node_proto__free_unpacked(nd, &o->pa.pb);
    return st;
}
