/* rules_recurrent.c — shape and FLOP rules of the recurrent ops and Einsum (docs/cost-model.md,
 * "Recurrent: LSTM, GRU, RNN", "Einsum"), and the views the loop inliner adds (rf_StackTrips,
 * rf_ScanSlice; "Control flow"). The Einsum parse is shared with the executor, which lowers it.
 * The op registry (op_table.h) names them. Counts are checked: an overflow leaves the layer
 * undefined. */
#include <string.h>

#include "graph/graph_int.h"

/* LSTM / GRU / RNN: X [S, B, I] (layout 0) or [B, S, I]; W [dirs, G·H, I]; hidden_size H.
 * Y [S, dirs, B, H] or [B, S, dirs, H]; Y_h (and LSTM's Y_c) [dirs, B, H] or [B, dirs, H]. */
static int rf__rnn_dims(const rf_graph *g, const rf_layer *l, int64_t *S, int64_t *B, int64_t *I,
                        int64_t *H, int64_t *dirs, int64_t *gates)
{
    const rf_tensor *x = rf__lin(g, l, 0), *w = rf__lin(g, l, 1), *r = rf__lin(g, l, 2);
    if (!rf__shape_full(x) || x->rank != 3 || !rf__shape_full(w) || w->rank != 3) return 0;
    int layout = rf_layer_attr_int(l, "layout", 0) != 0;
    *gates = !strcmp(l->op_type, "LSTM") ? 4 : !strcmp(l->op_type, "GRU") ? 3 : 1;
    *S = x->dims[layout ? 1 : 0];
    *B = x->dims[layout ? 0 : 1];
    *I = x->dims[2];
    *dirs = w->dims[0];
    *H = rf_layer_attr_int(l, "hidden_size", 0);
    if (*H <= 0 && rf__shape_full(r) && r->rank == 3) *H = r->dims[2];
    return *H > 0 && *dirs > 0 && *dirs <= 2 && w->dims[2] == *I && w->dims[1] == *gates * *H;
}

rf_status rf__shape_rnn(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    int64_t S, B, I, H, dirs, G;
    if (!rf__rnn_dims(g, l, &S, &B, &I, &H, &dirs, &G)) return RF_OK;
    int layout = rf_layer_attr_int(l, "layout", 0) != 0;
    rf__shp y = {4, {S, dirs, B, H}}, h = {3, {dirs, B, H}};
    if (layout) {
        y.d[0] = B, y.d[1] = S, y.d[2] = dirs;
        h.d[0] = B, h.d[1] = dirs;
    }
    rf_dtype dt = rf__dt(g, l, 0);
    RF_TRY(rf__set(ctx, g, l, 0, &y, dt));
    RF_TRY(rf__set(ctx, g, l, 1, &h, dt));
    return rf__set(ctx, g, l, 2, &h, dt);
}

/* Control flow (ONNX Loop / Scan inlined by the reader): a scan output stacked over the trips,
 * [trips] + the body's shape; a scan input's slice, its shape without axis 0. Views: no cost. */
rf_status rf__shape_stack_trips(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, y;
    int64_t trips = rf_layer_attr_int(l, "trips", 1);
    if (!rf__get(g, l, 0, &x) || x.rank + 1 > RF_GRAPH_MAX_RANK || trips < 0) return RF_OK;
    y.rank = x.rank + 1;
    y.d[0] = trips;
    memcpy(y.d + 1, x.d, x.rank * sizeof *x.d);
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* An If whose both branches were inlined (onnx_node.c): (condition, then, else) -> the branch the
 * condition's value takes, shape and known values alike; the then branch while it is unknown. */
rf_status rf__shape_if_select(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    const int64_t *c;
    if (l->n_inputs != 3 || l->n_outputs != 1) return RF_OK;
    uint32_t pick = rf__vals(g, l, 0, &c) >= 1 ? (c[0] ? 1 : 2) : 1;
    rf__shp x;
    if (!rf__get(g, l, pick, &x)) return RF_OK;
    RF_TRY(rf__set(ctx, g, l, 0, &x, rf__dt(g, l, pick)));
    const int64_t *v;
    int n = rf__vals(g, l, pick, &v);
    return n >= 0 ? rf_graph_set_values(ctx, g, l->outputs[0], v, (uint32_t)n) : RF_OK;
}

rf_status rf__shape_scan_slice(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x, y;
    if (!rf__get(g, l, 0, &x) || x.rank < 1) return RF_OK;
    y.rank = x.rank - 1;
    memcpy(y.d, x.d + 1, y.rank * sizeof *x.d);
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

int rf__ein_parse(const rf_graph *g, const rf_layer *l, rf__ein *e)
{
    const rf_attr *a = rf_layer_attr(l, "equation");
    if (!a || a->type != RF_ATTR_STRING || !a->s) return 0;
    memset(e, 0, sizeof *e);
    for (int i = 0; i < 128; i++) e->size[i] = -1;
    const char *s = a->s, *arrow = strstr(s, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - s) : strlen(s);
    if (lhs_len > 256) return 0;
    int ell_rank = 0; /* dims the ellipsis stands for (the largest over the operands) */
    int k = 0, pos = 0, ell[RF__EIN_MAX] = {0};
    for (size_t i = 0; i <= lhs_len; i++) {
        char c = i < lhs_len ? s[i] : ',';
        if (c == ' ') continue;
        if (c == ',') {
            if (k >= RF__EIN_MAX || (uint32_t)k >= l->n_inputs) return 0;
            const rf_tensor *t = rf__lin(g, l, (uint32_t)k);
            if (!rf__shape_full(t)) return 0;
            int er = (int)t->rank - (pos - (ell[k] ? 1 : 0));
            if (ell[k] ? er < 0 : er != 0) return 0;
            if (ell[k] && er > ell_rank) ell_rank = er;
            k++;
            pos = 0;
            continue;
        }
        if (c == '.' && i + 2 < lhs_len && s[i + 1] == '.' && s[i + 2] == '.') {
            if (ell[k] || k >= RF__EIN_MAX) return 0;
            ell[k] = 1;
            if (pos >= RF_GRAPH_MAX_RANK) return 0;
            e->term[k][pos++] = '*';
            i += 2;
            continue;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || k >= RF__EIN_MAX ||
            pos >= RF_GRAPH_MAX_RANK)
            return 0;
        e->term[k][pos++] = c;
    }
    e->n = k;
    if (k != (int)l->n_inputs || ell_rank > 9) return 0;
    /* sizes: letters from the dims, ellipsis dims right-aligned as '0'..'8' */
    for (int o = 0; o < k; o++) {
        const rf_tensor *t = rf__lin(g, l, (uint32_t)o);
        int er = (int)t->rank - (int)strlen(e->term[o]) + (ell[o] ? 1 : 0);
        char expanded[RF_GRAPH_MAX_RANK + 1];
        int n = 0;
        uint32_t d = 0;
        for (const char *p = e->term[o]; *p; p++) {
            if (*p == '*') {
                for (int j = 0; j < er; j++) {
                    if (n >= RF_GRAPH_MAX_RANK) return 0;
                    char c = (char)('0' + ell_rank - er + j);
                    int64_t v = t->dims[d++];
                    /* broadcast: 1 yields to the other size */
                    if (e->size[(int)c] < 0 || e->size[(int)c] == 1)
                        e->size[(int)c] = v;
                    else if (v != 1 && v != e->size[(int)c])
                        return 0;
                    expanded[n++] = c;
                }
                continue;
            }
            int64_t v = t->dims[d++];
            if (e->size[(int)*p] >= 0 && e->size[(int)*p] != v) return 0;
            e->size[(int)*p] = v;
            expanded[n++] = *p;
        }
        expanded[n] = '\0';
        memcpy(e->term[o], expanded, (size_t)n + 1);
    }
    /* output: explicit, or the letters seen once in alphabetical order after the ellipsis */
    int n = 0;
    if (arrow) {
        for (const char *p = arrow + 2; *p; p++) {
            if (*p == ' ') continue;
            if (*p == '.' && p[1] == '.' && p[2] == '.') {
                for (int j = 0; j < ell_rank && n < RF_GRAPH_MAX_RANK; j++)
                    e->out[n++] = (char)('0' + j);
                p += 2;
                continue;
            }
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) || e->size[(int)*p] < 0 ||
                n >= RF_GRAPH_MAX_RANK || strchr(e->out, *p))
                return 0;
            e->out[n++] = *p;
        }
    } else {
        for (int j = 0; j < ell_rank && n < RF_GRAPH_MAX_RANK; j++) e->out[n++] = (char)('0' + j);
        for (int c = 'A'; c <= 'z'; c++) {
            int seen = 0;
            for (int o = 0; o < k; o++)
                for (const char *p = e->term[o]; *p; p++) seen += *p == c;
            if (seen == 1) {
                if (n >= RF_GRAPH_MAX_RANK) return 0;
                e->out[n++] = (char)c;
            }
        }
    }
    e->out[n] = '\0';
    return 1;
}

rf_status rf__shape_einsum(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__ein e;
    if (!rf__ein_parse(g, l, &e)) return RF_OK;
    rf__shp y = {(uint32_t)strlen(e.out), {0}};
    for (uint32_t i = 0; i < y.rank; i++) y.d[i] = e.size[(int)e.out[i]];
    return rf__set(ctx, g, l, 0, &y, rf__dt(g, l, 0));
}

/* "Einsum": P = the product of every index's size (each term of the sum); an n-operand einsum
 * does n - 1 multiplies and one add per term: n·P (2P for a matrix product, P for a one-operand
 * sum or transpose). The contraction (n >= 2) is matrix work. */
int rf__cost_einsum(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                    const char **why)
{
    rf__ein e;
    (void)extra;
    if (!rf__ein_parse(g, l, &e)) return RF__WHY("equation unparsed or shapes unknown");
    uint64_t p = 1;
    for (int c = 0; c < 128; c++)
        if (e.size[c] >= 0 && !rf__mul_ok(p, (uint64_t)e.size[c], &p))
            return RF__WHY("counts overflow");
    if (!rf__mul_ok(p, (uint64_t)(e.n > 1 ? e.n : 1), core)) return RF__WHY("counts overflow");
    return 1;
}

/* "Recurrent": per direction, step and batch row: the input and recurrent projections
 * 2·G·H·(I + H) (matrix work), the two bias adds 2·G·H when B is given, the sum of the two
 * projections G·H, and the gates: LSTM 9·H (3 sigmoids, 2 tanh, 3 products, c's sum; + 6·H with
 * peepholes), GRU 8·H (2 sigmoids, r·(R·h), its sum, tanh, (1 - z)·n + z·h), RNN H (the
 * activation). */
int rf__cost_rnn(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                 const char **why)
{
    int64_t S, B, I, H, dirs, G;
    if (!rf__rnn_dims(g, l, &S, &B, &I, &H, &dirs, &G))
        return RF__WHY("X, W or hidden_size unknown");
    uint64_t rows, mm, el;
    uint64_t gates = G == 4 ? 9 + (rf__lin(g, l, 7) ? 6 : 0) : G == 3 ? 8 : 1;
    uint64_t per_el = (uint64_t)G * (uint64_t)H * (rf__lin(g, l, 3) ? 3 : 1) + gates * (uint64_t)H;
    if (!rf__mul_ok((uint64_t)S, (uint64_t)B, &rows) || !rf__mul_ok(rows, (uint64_t)dirs, &rows) ||
        !rf__madd(2 * (uint64_t)G, (uint64_t)H, 1, 0, &mm) ||
        !rf__mul_ok(mm, (uint64_t)I + (uint64_t)H, &mm) || !rf__mul_ok(mm, rows, core) ||
        !rf__mul_ok(per_el, rows, &el))
        return RF__WHY("counts overflow");
    *extra = el;
    return 1;
}
