/* rules_linalg.c — shape and FLOP rules of the linear-algebra ops (docs/cost-model.md, "Det"):
 * Det, the determinant of each matrix of a batch. The op registry (op_table.h) names them. Counts
 * are checked: an overflow leaves the layer undefined. */
#include "graph/graph_int.h"

/* [..., n, n] -> [...], the input's type. */
rf_status rf__shape_det(rf_ctx *ctx, rf_graph *g, const rf_layer *l)
{
    rf__shp x;
    if (!rf__get(g, l, 0, &x) || x.rank < 2 || x.d[x.rank - 1] != x.d[x.rank - 2]) return RF_OK;
    x.rank -= 2;
    return rf__set(ctx, g, l, 0, &x, rf__dt(g, l, 0));
}

/* floor(2·n³/3) + n per matrix (LU, then the product of the pivots). */
int rf__cost_det(const rf_graph *g, const rf_layer *l, uint64_t *core, uint64_t *extra,
                 const char **why)
{
    const rf_tensor *x = rf__lin(g, l, 0);
    uint64_t batch, n, n3, per;
    (void)extra;
    if (!rf__shape_full(x) || x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
        return RF__WHY("input is not a batch of square matrices");
    n = (uint64_t)x->dims[x->rank - 1];
    if (!rf__prod(x, 0, x->rank - 2, &batch) || !rf__mul_ok(n, n, &n3) || !rf__mul_ok(n3, n, &n3) ||
        !rf__mul_ok(n3 / 3, 2, &per) || !rf__add_ok(per + (n3 % 3) * 2 / 3, n, &per) ||
        !rf__mul_ok(batch, per, core))
        return RF__WHY("counts overflow");
    return 1;
}
