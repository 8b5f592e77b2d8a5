/* op_registry.c — the op registry's rows (op_table.h) as data: looking an op up by type and
 * domain, the kind of an op type for the readers, the rules a layer gets, the rules of a kind for
 * a layer whose type has no row, and the public listing behind `roofline ops`. */
#include <string.h>

#include "graph/graph_int.h"

static const rf__op_row rf__op_rows[] = {
#define RF__OP_ROW(id, name, dom, kind, shape, cost, sec, exec, why)                               \
    {RF_OPID_##id,    name,          RF__DOM_##dom, RF_OP_##kind, rf__shape_##shape,               \
     rf__cost_##cost, RF__SEC_##sec, #exec,         why},
    RF_OP_TABLE(RF__OP_ROW)
#undef RF__OP_ROW
};
_Static_assert(sizeof rf__op_rows / sizeof *rf__op_rows == RF_OPID_COUNT,
               "one row per op id (op_table.h)");

static const char *const rf__section_titles[] = {
#define RF__SEC_TITLE(id, title) title,
    RF_COST_SECTIONS(RF__SEC_TITLE)
#undef RF__SEC_TITLE
};
_Static_assert(sizeof rf__section_titles / sizeof *rf__section_titles == RF__SEC_COUNT,
               "one title per section");

const char *rf__cost_section_title(rf__cost_section s)
{
    return (unsigned)s < RF__SEC_COUNT ? rf__section_titles[s] : "";
}

const rf__op_row *rf__op_row_at(rf__op_id id)
{
    return (unsigned)id < RF_OPID_COUNT ? &rf__op_rows[id] : NULL;
}

/* The row of `type` in domain `dom`: a binary search over the rows, sorted by name (a name may
 * stand in several domains, side by side). */
static const rf__op_row *rf__search(const char *type, rf__op_domain dom)
{
    size_t lo = 0, hi = RF_OPID_COUNT;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(rf__op_rows[mid].name, type) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < RF_OPID_COUNT && strcmp(rf__op_rows[lo].name, type) == 0; lo++)
        if (rf__op_rows[lo].domain == dom) return &rf__op_rows[lo];
    return NULL;
}

const rf__op_row *rf__op_find(const char *op_type, const char *domain)
{
    if (!op_type) return NULL;
    const rf__op_row *r = NULL;
    if (domain && domain[0] && strcmp(domain, "ai.onnx") != 0) {
        if (strcmp(domain, "com.microsoft") != 0) return NULL; /* a domain nobody knows */
        r = rf__search(op_type, RF__DOM_MS);
    }
    if (!r) r = rf__search(op_type, RF__DOM_ONNX);
    if (!r) r = rf__search(op_type, RF__DOM_RF);
    return r;
}

const rf__op_row *rf__op_of(const rf_layer *l)
{
    return l->kind == RF_OP_UNKNOWN ? NULL : rf__op_find(l->op_type, l->domain);
}

rf_op_kind rf_op_kind_from_type(const char *op_type)
{
    const rf__op_row *r = rf__op_find(op_type, "");
    return r ? r->kind : RF_OP_UNKNOWN;
}

rf_op_kind rf_op_kind_in_domain(const char *op_type, const char *domain)
{
    const rf__op_row *r = rf__op_find(op_type, domain);
    return r ? r->kind : RF_OP_UNKNOWN;
}

/* ---- a kind's rules, for a layer whose type has no row (a builder's or an API user's own op
 * type with its kind set) ------------------------------------------------------------------ */

rf__shape_rule rf__kind_shape(rf_op_kind k)
{
    switch (k) {
    case RF_OP_CONV:
    case RF_OP_CONV_TRANSPOSE: return rf__shape_conv;
    case RF_OP_POOL:
    case RF_OP_GLOBAL_POOL: return rf__shape_pool;
    case RF_OP_GEMM:
    case RF_OP_MATMUL: return rf__shape_gemm;
    case RF_OP_ELEMENTWISE: return rf__shape_broadcast;
    case RF_OP_ACTIVATION:
    case RF_OP_SOFTMAX:
    case RF_OP_LAYERNORM:
    case RF_OP_RMSNORM:
    case RF_OP_BATCHNORM:
    case RF_OP_ROPE: return rf__shape_same;
    case RF_OP_REDUCE: return rf__shape_reduce;
    case RF_OP_RESIZE: return rf__shape_resize;
    default: return rf__shape_none;
    }
}

rf__cost_rule rf__kind_cost(rf_op_kind k)
{
    switch (k) {
    case RF_OP_UNKNOWN: return rf__cost_unknown;
    case RF_OP_CONV: return rf__cost_conv;
    case RF_OP_CONV_TRANSPOSE: return rf__cost_convt;
    case RF_OP_GEMM: return rf__cost_gemm;
    case RF_OP_MATMUL: return rf__cost_matmul;
    case RF_OP_ATTENTION: return rf__cost_attention;
    case RF_OP_METADATA:
    case RF_OP_CONSTANT:
    case RF_OP_DATA_MOVEMENT:
    case RF_OP_GATHER: return rf__cost_zero;
    case RF_OP_REDUCE:
    case RF_OP_GLOBAL_POOL: return rf__cost_per_input;
    case RF_OP_POOL: return rf__cost_window;
    case RF_OP_ELEMENTWISE: return rf__cost_nary;
    case RF_OP_RESIZE: return rf__cost_resize;
    default: return rf__cost_per_elem;
    }
}

/* ---- the public listing ------------------------------------------------------------------- */

size_t rf_op_registry_count(void)
{
    return RF_OPID_COUNT;
}

int rf_op_registry_at(size_t i, rf_op_info *out)
{
    static const char *const domains[] = {"", "com.microsoft", "roofline"};
    if (i >= RF_OPID_COUNT || !out) return 0;
    const rf__op_row *r = &rf__op_rows[i];
    out->name = r->name;
    out->domain = domains[r->domain];
    out->kind = r->kind;
    out->cost_section = rf__cost_section_title(r->section);
    out->executor = r->no_kernel ? NULL : r->executor;
    out->no_kernel = r->no_kernel;
    return 1;
}
