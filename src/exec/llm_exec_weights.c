/* llm_exec_weights.c — every weight of the model as the executor reads it, and the look-up of a
 * block's weight by role that the set-up, the pass and the result share: matrices at their
 * kernel type with their bytes in the mapped file, or the nearest type with synthetic data when
 * theirs has no kernel (recorded as a substitution); norms and biases copied to F32; every block's
 * shapes checked against the hyper-parameters. Never reads the matrices' data. */
#include <string.h>

#include "exec/llm_exec_int.h"

const rf__exec_weight *rf__llm_exec_weight(const rf__llm_exec *lx, int64_t b, int role)
{
    const rf__llm_w *w = rf__llm_get(lx->model, b, role);
    return w ? &lx->weights[w - lx->model->w] : NULL;
}

static int rf__is_matrix(int role)
{
    switch (role) {
    case RF__R_TOK_EMBD:
    case RF__R_OUTPUT:
    case RF__R_Q:
    case RF__R_K:
    case RF__R_V:
    case RF__R_QKV:
    case RF__R_O:
    case RF__R_GATE:
    case RF__R_UP:
    case RF__R_GATE_UP:
    case RF__R_DOWN: return 1;
    default: return 0;
    }
}

static int rf__is_vector(int role)
{
    return !rf__is_matrix(role) && role != RF__R_ROUTER && role != RF__R_GATE_EXPS &&
           role != RF__R_UP_EXPS && role != RF__R_DOWN_EXPS && role != RF__R_OTHER;
}

/* Record a substitution (one entry per from/to pair). */
static rf_status rf__record_subst(rf_ctx *ctx, rf_exec_llm_result *r, const char *name,
                                  rf_dtype from, rf_dtype to)
{
    for (size_t i = 0; i < r->n_subst; i++)
        if (r->subst[i].from == from && r->subst[i].to == to) {
            r->subst[i].count++;
            return RF_OK;
        }
    rf_exec_llm_subst *n = rf__realloc(ctx, r->subst, (r->n_subst + 1) * sizeof *n);
    if (!n) return RF_NOMEM_ERR(ctx);
    r->subst = n;
    rf_exec_llm_subst *s = &n[r->n_subst++];
    memset(s, 0, sizeof *s);
    rf__strlcpy(s->weight, name, sizeof s->weight);
    s->from = from;
    s->to = to;
    s->count = 1;
    return RF_OK;
}

static rf_status rf__setup_matrix(rf__llm_exec *lx, const rf__llm_w *w, rf__exec_weight *o,
                                  rf_exec_llm_result *r)
{
    rf_ctx *ctx = lx->ctx;
    RF_CHECK(ctx, w->rank == 2 && w->dims[0] > 0 && w->dims[1] > 0, RF_FORMAT,
             "model: tensor '%s' is not a matrix", w->name);
    o->rows = (uint64_t)w->dims[0];
    o->cols = (uint64_t)w->dims[1];
    uint32_t be, bb;
    int id = rf__weight_type(w->dtype);
    if (id >= 0) {
        rf__weight_block(id, &be, &bb);
        if (o->cols % be) id = -1;
    }
    if (id < 0) { /* no kernel: the nearest type, synthetic data of the same shape */
        id = rf__weight_type_nearest(w->dtype, o->cols);
        rf__weight_block(id, &be, &bb);
        RF_TRY(rf__record_subst(ctx, r, w->name, w->dtype, rf__weight_dtype(id)));
    }
    o->id = id;
    o->row_bytes = (size_t)(o->cols / be * bb);
    uint64_t bytes;
    RF_CHECK(ctx, rf__mul_ok(o->rows, o->row_bytes, &bytes) && bytes < ((uint64_t)1 << 40),
             RF_RANGE, "model: tensor '%s' is too large", w->name);
    if (rf__weight_dtype(id) == w->dtype) {
        RF_CHECK(ctx, w->data && w->n_bytes == bytes, RF_FORMAT,
                 "model: tensor '%s' holds %llu bytes, expected %llu", w->name,
                 (unsigned long long)w->n_bytes, (unsigned long long)bytes);
        o->data = w->data;
        return RF_OK;
    }
    o->synth = rf__malloc(ctx, (size_t)bytes);
    if (!o->synth) return RF_NOMEM_ERR(ctx);
    memset(o->synth, 0x11, (size_t)bytes); /* small normal scales; every page really written */
    o->data = o->synth;
    lx->mem_bytes += (double)bytes;
    return RF_OK;
}

static rf_status rf__setup_vector(rf__llm_exec *lx, const rf__llm_w *w, rf__exec_weight *o,
                                  rf_exec_llm_result *r)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < w->rank; d++)
        RF_CHECK(lx->ctx,
                 w->dims[d] > 0 && rf__mul_ok(n, (uint64_t)w->dims[d], &n) &&
                     n < ((uint64_t)1 << 32),
                 RF_RANGE, "model: tensor '%s' is too large", w->name);
    o->rows = w->rank == 2 ? (uint64_t)w->dims[0] : 1;
    o->cols = n / o->rows;
    o->vec = rf__malloc(lx->ctx, (size_t)n * sizeof(float));
    if (!o->vec) return RF_NOMEM_ERR(lx->ctx);
    lx->mem_bytes += (double)n * 4;
    int id = rf__weight_type(w->dtype);
    uint32_t be = 1, bb = 4;
    if (id >= 0) rf__weight_block(id, &be, &bb);
    if (id >= 0 && n % be == 0 && w->data && w->n_bytes == n / be * bb) {
        rf__dequant_row(id, w->data, o->vec, (size_t)n);
        return RF_OK;
    }
    for (uint64_t i = 0; i < n; i++) o->vec[i] = 1.0f;
    return rf__record_subst(lx->ctx, r, w->name, w->dtype, RF_DTYPE_F32);
}

/* The weight of role in block b must be rows x cols (0: any). */
static rf_status rf__expect_shape(rf__llm_exec *lx, int64_t b, int role, uint64_t rows,
                                  uint64_t cols)
{
    const rf__exec_weight *w = rf__llm_exec_weight(lx, b, role);
    if (!w) return RF_OK;
    const rf__llm_w *mw = rf__llm_get(lx->model, b, role);
    if (w->vec) {
        RF_CHECK(lx->ctx, (uint64_t)(w->rows * w->cols) >= rows, RF_FORMAT,
                 "model: tensor '%s' has %llu values, expected %llu", mw->name,
                 (unsigned long long)(w->rows * w->cols), (unsigned long long)rows);
        return RF_OK;
    }
    RF_CHECK(lx->ctx, (!rows || w->rows == rows) && (!cols || w->cols == cols), RF_FORMAT,
             "model: tensor '%s' is %llux%llu, expected %llux%llu", mw->name,
             (unsigned long long)w->rows, (unsigned long long)w->cols, (unsigned long long)rows,
             (unsigned long long)cols);
    return RF_OK;
}

/* Every weight resolved, every block's shapes checked; lx->F is the widest MLP. */
rf_status rf__llm_exec_setup_weights(rf__llm_exec *lx, rf_exec_llm_result *r)
{
    const rf_llm_model *m = lx->model;
    for (size_t i = 0; i < m->n_w; i++) {
        const rf__llm_w *w = &m->w[i];
        if (rf__is_matrix(w->role))
            RF_TRY(rf__setup_matrix(lx, w, &lx->weights[i], r));
        else if (rf__is_vector(w->role))
            RF_TRY(rf__setup_vector(lx, w, &lx->weights[i], r));
        else
            continue;
        lx->weights[i].used = 1;
    }
    uint64_t E = lx->E, qw = lx->H * lx->D, kw = lx->Hkv * lx->D;
    const rf__exec_weight *out = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT),
                          *te = rf__llm_exec_weight(lx, -1, RF__R_TOK_EMBD);
    RF_CHECK(lx->ctx, te && te->id >= 0, RF_FORMAT, "model: no token embedding matrix");
    lx->V = out ? out->rows : te->rows;
    RF_TRY(rf__expect_shape(lx, -1, RF__R_TOK_EMBD, 0, E));
    RF_TRY(rf__expect_shape(lx, -1, RF__R_OUTPUT, 0, E));
    RF_TRY(rf__expect_shape(lx, -1, RF__R_OUT_NORM, E, 0));
    const rf__exec_weight *pe = rf__llm_exec_weight(lx, -1, RF__R_POS_EMBD);
    RF_CHECK(lx->ctx, !pe || pe->cols == E, RF_FORMAT,
             "model: position embedding rows of %llu values, expected %llu",
             (unsigned long long)(pe ? pe->cols : 0), (unsigned long long)E);
    for (int64_t b = 0; b < (int64_t)lx->n_layer; b++) {
        int fused = rf__llm_exec_weight(lx, b, RF__R_QKV) != NULL;
        RF_CHECK(lx->ctx,
                 fused ||
                     (rf__llm_exec_weight(lx, b, RF__R_Q) && rf__llm_exec_weight(lx, b, RF__R_K) &&
                      rf__llm_exec_weight(lx, b, RF__R_V) && rf__llm_exec_weight(lx, b, RF__R_O)),
                 RF_FORMAT, "model: block %lld lacks attention weights", (long long)b);
        RF_CHECK(
            lx->ctx,
            rf__llm_exec_weight(lx, b, RF__R_O) && rf__llm_exec_weight(lx, b, RF__R_DOWN) &&
                (rf__llm_exec_weight(lx, b, RF__R_UP) || rf__llm_exec_weight(lx, b, RF__R_GATE_UP)),
            RF_FORMAT, "model: block %lld lacks attention output or MLP weights", (long long)b);
        const rf__exec_weight *gu = rf__llm_exec_weight(lx, b, RF__R_GATE_UP),
                              *up = rf__llm_exec_weight(lx, b, RF__R_UP);
        uint64_t F = gu ? gu->rows / 2 : up->rows;
        RF_CHECK(lx->ctx, F > 0 && (!gu || gu->rows % 2 == 0), RF_FORMAT,
                 "model: block %lld: odd fused gate_up width", (long long)b);
        if (F > lx->F) lx->F = F;
        RF_TRY(rf__expect_shape(lx, b, RF__R_QKV, qw + 2 * kw, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_Q, qw, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_K, kw, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_V, kw, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_O, E, qw));
        RF_TRY(rf__expect_shape(lx, b, RF__R_GATE, F, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_UP, F, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_GATE_UP, 2 * F, E));
        RF_TRY(rf__expect_shape(lx, b, RF__R_DOWN, E, F));
        static const int norms[] = {RF__R_ATTN_NORM, RF__R_ATTN_NORM_B, RF__R_POST_ATTN_NORM,
                                    RF__R_FFN_NORM,  RF__R_FFN_NORM_B,  RF__R_POST_FFN_NORM};
        for (size_t i = 0; i < sizeof norms / sizeof *norms; i++)
            RF_TRY(rf__expect_shape(lx, b, norms[i], E, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_Q_NORM, lx->D, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_K_NORM, lx->D, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_Q_B, fused ? 0 : qw, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_K_B, kw, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_V_B, kw, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_QKV_B, qw + 2 * kw, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_O_B, E, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_UP_B, F, 0));
        RF_TRY(rf__expect_shape(lx, b, RF__R_DOWN_B, E, 0));
    }
    return RF_OK;
}
