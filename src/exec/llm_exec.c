/* llm_exec.c — rf_exec_llm_run: set-up of a measured LLM pass (every weight resolved to a kernel
 * type and its bytes in the mapped file, or a substitute; activations, KV cache and RoPE table
 * allocated), the timing harness (warm-up passes, timed passes, the median pass and its per-kind
 * times, through exec.h's clock), and the result. The forward pass is llm_exec_pass.c's. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/llm_exec_int.h"
#include "probe/probe_int.h"

const char *const rf__lx_kind_names[RF__LK_COUNT] = {
#define RF__LX_NAME(id, name) name,
    RF__LX_KINDS(RF__LX_NAME)
#undef RF__LX_NAME
};

const char *rf_exec_llm_isa(void)
{
    return rf__qisa_name(rf__qisa_best());
}

const rf__lw *rf__lx_w(const rf__lx *lx, int64_t b, int role)
{
    const rf__llm_w *w = rf__llm_get(lx->m, b, role);
    return w ? &lx->lw[w - lx->m->w] : NULL;
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
static rf_status rf__subst(rf_ctx *ctx, rf_exec_llm_result *r, const char *name, rf_dtype from,
                           rf_dtype to)
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

static rf_status rf__setup_matrix(rf__lx *lx, const rf__llm_w *w, rf__lw *o, rf_exec_llm_result *r)
{
    rf_ctx *ctx = lx->ctx;
    RF_CHECK(ctx, w->rank == 2 && w->dims[0] > 0 && w->dims[1] > 0, RF_FORMAT,
             "model: tensor '%s' is not a matrix", w->name);
    o->rows = (uint64_t)w->dims[0];
    o->cols = (uint64_t)w->dims[1];
    uint32_t be, bb;
    int id = rf__qk_id(w->dtype);
    if (id >= 0) {
        rf__qk_block(id, &be, &bb);
        if (o->cols % be) id = -1;
    }
    if (id < 0) { /* no kernel: the nearest type, synthetic data of the same shape */
        id = rf__qk_nearest(w->dtype, o->cols);
        rf__qk_block(id, &be, &bb);
        RF_TRY(rf__subst(ctx, r, w->name, w->dtype, rf__qk_dtype(id)));
    }
    o->id = id;
    o->row_bytes = (size_t)(o->cols / be * bb);
    uint64_t bytes;
    RF_CHECK(ctx, rf__mul_ok(o->rows, o->row_bytes, &bytes) && bytes < ((uint64_t)1 << 40),
             RF_RANGE, "model: tensor '%s' is too large", w->name);
    if (rf__qk_dtype(id) == w->dtype) {
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

static rf_status rf__setup_vector(rf__lx *lx, const rf__llm_w *w, rf__lw *o, rf_exec_llm_result *r)
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
    int id = rf__qk_id(w->dtype);
    uint32_t be = 1, bb = 4;
    if (id >= 0) rf__qk_block(id, &be, &bb);
    if (id >= 0 && n % be == 0 && w->data && w->n_bytes == n / be * bb) {
        rf__qk_dequant(id, w->data, o->vec, (size_t)n);
        return RF_OK;
    }
    for (uint64_t i = 0; i < n; i++) o->vec[i] = 1.0f;
    return rf__subst(lx->ctx, r, w->name, w->dtype, RF_DTYPE_F32);
}

/* The weight of role in block b must be rows x cols (0: any). */
static rf_status rf__expect(rf__lx *lx, int64_t b, int role, uint64_t rows, uint64_t cols)
{
    const rf__lw *w = rf__lx_w(lx, b, role);
    if (!w) return RF_OK;
    const rf__llm_w *mw = rf__llm_get(lx->m, b, role);
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
static rf_status rf__setup_weights(rf__lx *lx, rf_exec_llm_result *r)
{
    const rf_llm_model *m = lx->m;
    for (size_t i = 0; i < m->n_w; i++) {
        const rf__llm_w *w = &m->w[i];
        if (rf__is_matrix(w->role))
            RF_TRY(rf__setup_matrix(lx, w, &lx->lw[i], r));
        else if (rf__is_vector(w->role))
            RF_TRY(rf__setup_vector(lx, w, &lx->lw[i], r));
        else
            continue;
        lx->lw[i].used = 1;
    }
    uint64_t E = lx->E, qw = lx->H * lx->D, kw = lx->Hkv * lx->D;
    const rf__lw *out = rf__lx_w(lx, -1, RF__R_OUTPUT), *te = rf__lx_w(lx, -1, RF__R_TOK_EMBD);
    RF_CHECK(lx->ctx, te && te->id >= 0, RF_FORMAT, "model: no token embedding matrix");
    lx->V = out ? out->rows : te->rows;
    RF_TRY(rf__expect(lx, -1, RF__R_TOK_EMBD, 0, E));
    RF_TRY(rf__expect(lx, -1, RF__R_OUTPUT, 0, E));
    RF_TRY(rf__expect(lx, -1, RF__R_OUT_NORM, E, 0));
    const rf__lw *pe = rf__lx_w(lx, -1, RF__R_POS_EMBD);
    RF_CHECK(lx->ctx, !pe || pe->cols == E, RF_FORMAT,
             "model: position embedding rows of %llu values, expected %llu",
             (unsigned long long)(pe ? pe->cols : 0), (unsigned long long)E);
    for (int64_t b = 0; b < (int64_t)lx->nl; b++) {
        int fused = rf__lx_w(lx, b, RF__R_QKV) != NULL;
        RF_CHECK(lx->ctx,
                 fused || (rf__lx_w(lx, b, RF__R_Q) && rf__lx_w(lx, b, RF__R_K) &&
                           rf__lx_w(lx, b, RF__R_V) && rf__lx_w(lx, b, RF__R_O)),
                 RF_FORMAT, "model: block %lld lacks attention weights", (long long)b);
        RF_CHECK(lx->ctx,
                 rf__lx_w(lx, b, RF__R_O) && rf__lx_w(lx, b, RF__R_DOWN) &&
                     (rf__lx_w(lx, b, RF__R_UP) || rf__lx_w(lx, b, RF__R_GATE_UP)),
                 RF_FORMAT, "model: block %lld lacks attention output or MLP weights",
                 (long long)b);
        const rf__lw *gu = rf__lx_w(lx, b, RF__R_GATE_UP), *up = rf__lx_w(lx, b, RF__R_UP);
        uint64_t F = gu ? gu->rows / 2 : up->rows;
        RF_CHECK(lx->ctx, F > 0 && (!gu || gu->rows % 2 == 0), RF_FORMAT,
                 "model: block %lld: odd fused gate_up width", (long long)b);
        if (F > lx->F) lx->F = F;
        RF_TRY(rf__expect(lx, b, RF__R_QKV, qw + 2 * kw, E));
        RF_TRY(rf__expect(lx, b, RF__R_Q, qw, E));
        RF_TRY(rf__expect(lx, b, RF__R_K, kw, E));
        RF_TRY(rf__expect(lx, b, RF__R_V, kw, E));
        RF_TRY(rf__expect(lx, b, RF__R_O, E, qw));
        RF_TRY(rf__expect(lx, b, RF__R_GATE, F, E));
        RF_TRY(rf__expect(lx, b, RF__R_UP, F, E));
        RF_TRY(rf__expect(lx, b, RF__R_GATE_UP, 2 * F, E));
        RF_TRY(rf__expect(lx, b, RF__R_DOWN, E, F));
        static const int norms[] = {RF__R_ATTN_NORM, RF__R_ATTN_NORM_B, RF__R_POST_ATTN_NORM,
                                    RF__R_FFN_NORM,  RF__R_FFN_NORM_B,  RF__R_POST_FFN_NORM};
        for (size_t i = 0; i < sizeof norms / sizeof *norms; i++)
            RF_TRY(rf__expect(lx, b, norms[i], E, 0));
        RF_TRY(rf__expect(lx, b, RF__R_Q_NORM, lx->D, 0));
        RF_TRY(rf__expect(lx, b, RF__R_K_NORM, lx->D, 0));
        RF_TRY(rf__expect(lx, b, RF__R_Q_B, fused ? 0 : qw, 0));
        RF_TRY(rf__expect(lx, b, RF__R_K_B, kw, 0));
        RF_TRY(rf__expect(lx, b, RF__R_V_B, kw, 0));
        RF_TRY(rf__expect(lx, b, RF__R_QKV_B, qw + 2 * kw, 0));
        RF_TRY(rf__expect(lx, b, RF__R_O_B, E, 0));
        RF_TRY(rf__expect(lx, b, RF__R_UP_B, F, 0));
        RF_TRY(rf__expect(lx, b, RF__R_DOWN_B, E, 0));
    }
    return RF_OK;
}

/* n floats, counted; NULL on failure (the caller reports RF_NOMEM). */
static float *rf__buf(rf__lx *lx, uint64_t n, int *fail)
{
    if (*fail || n > ((uint64_t)1 << 36)) {
        *fail = 1;
        return NULL;
    }
    float *p = rf__calloc(lx->ctx, (size_t)(n ? n : 1), sizeof *p);
    if (!p) *fail = 1;
    lx->mem_bytes += (double)n * 4;
    return p;
}

static rf_status rf__setup_buffers(rf__lx *lx, uint64_t S, uint64_t L)
{
    uint64_t qw = lx->H * lx->D, kw = lx->Hkv * lx->D, n = lx->rows_max, kvn;
    uint64_t tw = qw + 2 * kw > 2 * lx->F ? qw + 2 * kw : 2 * lx->F;
    uint64_t sc = lx->B * lx->H * (S * S > L ? S * S : L);
    RF_CHECK(lx->ctx, rf__mul_ok(lx->nl * lx->B, lx->Tmax * kw, &kvn) && kvn < ((uint64_t)1 << 34),
             RF_RANGE, "model: a KV cache of %llu positions is too large to run",
             (unsigned long long)lx->Tmax);
    int fail = 0;
    lx->x = rf__buf(lx, n * lx->E, &fail);
    lx->xn = rf__buf(lx, n * lx->E, &fail);
    lx->o = rf__buf(lx, n * lx->E, &fail);
    lx->qb = rf__buf(lx, n * qw, &fail);
    lx->att = rf__buf(lx, n * qw, &fail);
    lx->kb = rf__buf(lx, n * kw, &fail);
    lx->vb = rf__buf(lx, n * kw, &fail);
    lx->gb = rf__buf(lx, n * lx->F, &fail);
    lx->ub = rf__buf(lx, n * lx->F, &fail);
    lx->tmp = rf__buf(lx, n * tw, &fail);
    lx->logits = rf__buf(lx, n * lx->V, &fail);
    lx->scores = rf__buf(lx, sc, &fail);
    lx->rope_cs = rf__buf(lx, lx->Tmax * (lx->D / 2) * 2, &fail);
    lx->kc = rf__buf(lx, kvn, &fail);
    lx->vc = rf__buf(lx, kvn, &fail);
    if (fail) return rf__error(lx->ctx, RF_NOMEM, -1, "out of memory for the executor's buffers");
    rf__lx_rope_table(lx->rope_cs, lx->Tmax, lx->D);
    for (uint64_t i = 0; i < kvn; i++) { /* a filled cache: every page written */
        lx->kc[i] = 0.01f * (float)((int)(i % 97) - 48);
        lx->vc[i] = 0.01f * (float)((int)(i % 89) - 44);
    }
    return RF_OK;
}

static void rf__lx_free(rf__lx *lx)
{
    rf_ctx *ctx = lx->ctx;
    float *bufs[] = {lx->x,  lx->xn,  lx->o,      lx->qb,     lx->att,     lx->kb, lx->vb, lx->gb,
                     lx->ub, lx->tmp, lx->logits, lx->scores, lx->rope_cs, lx->kc, lx->vc};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) rf__free(ctx, bufs[i]);
    if (lx->lw)
        for (size_t i = 0; i < lx->m->n_w; i++) {
            rf__free(ctx, lx->lw[i].vec);
            rf__free(ctx, lx->lw[i].synth);
        }
    rf__free(ctx, lx->lw);
    rf__qmm_free(ctx, lx->q);
}

/* Bytes of weights one decode step of B sequences reads. */
static double rf__decode_bytes(const rf__lx *lx)
{
    double t = 0;
    int tied = rf__lx_w(lx, -1, RF__R_OUTPUT) == NULL;
    for (size_t i = 0; i < lx->m->n_w; i++) {
        const rf__lw *w = &lx->lw[i];
        if (!w->used) continue;
        if (lx->m->w[i].role == RF__R_POS_EMBD) {
            t += (double)lx->B * (double)w->cols * 4;
        } else if (w->vec) {
            t += (double)lx->m->w[i].n_bytes;
        } else if (lx->m->w[i].role == RF__R_TOK_EMBD) {
            t += (double)lx->B * (double)w->row_bytes; /* the rows gathered */
            if (tied) t += (double)w->rows * (double)w->row_bytes;
        } else {
            t += (double)w->rows * (double)w->row_bytes;
        }
    }
    return t;
}

static rf_status rf__result_kinds(rf_ctx *ctx, rf_exec_llm_result *r, const rf__lx_timing *pf,
                                  const rf__lx_timing *dc)
{
    r->kinds = rf__calloc(ctx, RF__LK_COUNT, sizeof *r->kinds);
    if (!r->kinds) return RF_NOMEM_ERR(ctx);
    for (int k = 0; k < RF__LK_COUNT; k++) {
        if (!pf->kn[k] && !dc->kn[k]) continue;
        rf_exec_llm_kind *o = &r->kinds[r->n_kinds++];
        rf__strlcpy(o->name, rf__lx_kind_names[k], sizeof o->name);
        o->prefill_s = pf->ks[k];
        o->decode_s = dc->ks[k];
        o->prefill_calls = pf->kn[k];
        o->decode_calls = dc->kn[k];
    }
    return RF_OK;
}

/* The model can run: GGUF data mapped, a known block structure, no experts. */
static rf_status rf__runnable(rf_ctx *ctx, const rf_llm_model *m)
{
    const rf_llm_hparams *hp = &m->hp;
    RF_CHECK(ctx, hp->known, RF_UNSUPPORTED,
             "model: architecture '%s' is not built block by block; it cannot be run",
             hp->architecture);
    RF_CHECK(ctx, hp->n_expert == 0, RF_UNSUPPORTED,
             "model: mixture-of-experts blocks (%llu experts) are not run yet",
             (unsigned long long)hp->n_expert);
    RF_CHECK(ctx, m->maps && !m->conv1d, RF_UNSUPPORTED,
             "model: its weights are not mapped in place (only little-endian GGUF files run)");
    RF_CHECK(ctx,
             hp->n_head && hp->head_dim && hp->n_head_kv && hp->n_head % hp->n_head_kv == 0 &&
                 hp->head_dim % 2 == 0 && hp->n_layer,
             RF_FORMAT, "model: %llu heads of %llu over %llu KV heads cannot be run",
             (unsigned long long)hp->n_head, (unsigned long long)hp->head_dim,
             (unsigned long long)hp->n_head_kv);
    return RF_OK;
}

rf_status rf_exec_llm_run(rf_ctx *ctx, const rf_llm_model *model, const rf_llm_opts *prefill,
                          const rf_llm_opts *decode, const rf_exec_opts *opts,
                          rf_exec_llm_result **out)
{
    static const rf_llm_opts none = {0};
    static const rf_exec_opts dflt = {0};
    if (!ctx) return RF_USAGE;
    RF_CHECK(ctx, model && out, RF_USAGE, "rf_exec_llm_run: model and out are required");
    *out = NULL;
    if (!prefill) prefill = &none;
    if (!decode) decode = &none;
    if (!opts) opts = &dflt;
    RF_TRY(rf__runnable(ctx, model));
    const rf_llm_hparams *hp = &model->hp;
    uint64_t B = decode->batch ? decode->batch : prefill->batch ? prefill->batch : 1;
    uint64_t S = prefill->prompt ? prefill->prompt : 128,
             L = decode->context ? decode->context : 128;
    RF_CHECK(ctx, B <= 4096 && S <= 1000000 && L <= 10000000, RF_RANGE,
             "batch %llu, prompt %llu or context %llu is out of range", (unsigned long long)B,
             (unsigned long long)S, (unsigned long long)L);
    rf_exec_llm_result *r = rf__calloc(ctx, 1, sizeof *r);
    if (!r) return RF_NOMEM_ERR(ctx);
    r->alloc = *rf_ctx_allocator(ctx);
    rf__lx lx = {0};
    lx.ctx = ctx;
    lx.m = model;
    lx.B = B;
    lx.E = hp->n_embd;
    lx.H = hp->n_head;
    lx.Hkv = hp->n_head_kv;
    lx.D = hp->head_dim;
    lx.nl = hp->n_layer;
    lx.Tmax = S > L ? S : L;
    lx.rows_max = B * S;
    lx.eps = 1e-5f;
    lx.clock = opts->clock ? opts->clock : rf__lx_clock;
    lx.clock_user = opts->clock_user;
    int isa = rf__qisa_best();
    rf__lx_timing pf, dc;
    rf_status st = RF_OK;
    lx.lw = rf__calloc(ctx, model->n_w ? model->n_w : 1, sizeof *lx.lw);
    if (!lx.lw) st = RF_NOMEM_ERR(ctx);
    if (st == RF_OK) st = rf__setup_weights(&lx, r);
    if (st == RF_OK) st = rf__setup_buffers(&lx, S, L);
    if (st == RF_OK) st = rf__qmm_new(ctx, opts->threads, isa, &lx.q);
    unsigned warm = opts->warmup ? opts->warmup : 2;
    if (st == RF_OK) st = rf__lx_time(&lx, S, 0, warm, opts->repeat, &pf);
    if (st == RF_OK) st = rf__lx_time(&lx, 1, L - 1, warm, opts->repeat, &dc);
    if (st == RF_OK) st = rf__result_kinds(ctx, r, &pf, &dc);
    if (st == RF_OK) {
        r->batch = B;
        r->prompt = S;
        r->context = L;
        r->threads = rf__qmm_threads(lx.q);
        r->warmup = warm;
        r->prefill_repeat = pf.repeat;
        r->repeat = dc.repeat;
        rf__strlcpy(r->isa, rf__qisa_name(isa), sizeof r->isa);
        r->prefill_s = pf.med_s;
        r->prefill_min_s = pf.min_s;
        r->prefill_max_s = pf.max_s;
        r->prefill_tokens_per_s = pf.med_s > 0 ? (double)(B * S) / pf.med_s : 0;
        r->decode_s = dc.med_s;
        r->decode_min_s = dc.min_s;
        r->decode_max_s = dc.max_s;
        r->decode_tokens_per_s = dc.med_s > 0 ? (double)B / dc.med_s : 0;
        r->decode_weight_bytes = rf__decode_bytes(&lx);
        r->decode_bytes_per_s = dc.med_s > 0 ? r->decode_weight_bytes / dc.med_s : 0;
        r->decode_kv_bytes = 2.0 * (double)(lx.nl * B * L * lx.Hkv * lx.D) * 4;
        r->memory_bytes = lx.mem_bytes;
        snprintf(r->notes, sizeof r->notes,
                 "Activations and the KV cache run as F32 (the options' act_bits, kv_bits and "
                 "what-if weight type are not applied). %s Synthetic token ids.",
                 B * S >= 8 ? "Prefill: weight rows dequantised to F32 in chunks, then OpenBLAS "
                              "sgemm."
                            : "Prefill: dot products per row, as in decode.");
    }
    rf__lx_free(&lx);
    if (st != RF_OK) {
        rf_exec_llm_result_free(r);
        return st;
    }
    *out = r;
    return RF_OK;
}

void rf_exec_llm_result_free(rf_exec_llm_result *r)
{
    if (!r) return;
    rf_allocator a = r->alloc;
    rf__free_with(&a, r->kinds);
    rf__free_with(&a, r->subst);
    rf__free_with(&a, r);
}
