/* llm_exec.c — rf_exec_llm_run: the set-up of a measured LLM pass (weights resolved by
 * llm_exec_weights.c; activations, KV cache and RoPE table allocated here), the two timed phases
 * (llm_exec_time.c's harness over llm_exec_pass.c's forward pass), and the result. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exec/llm_exec_int.h"
#include "probe/probe_int.h"

const char *const rf__llm_step_names[RF__STEP_COUNT] = {
#define RF__LLM_STEP_NAME(id, name) name,
    RF__LLM_STEPS(RF__LLM_STEP_NAME)
#undef RF__LLM_STEP_NAME
};

const char *rf_exec_llm_isa(void)
{
    return rf__kernel_isa_name(rf__kernel_isa_best());
}

/* n floats, counted; NULL on failure (the caller reports RF_NOMEM). */
static float *rf__alloc_floats(rf__llm_exec *lx, uint64_t n, int *fail)
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

static rf_status rf__setup_buffers(rf__llm_exec *lx, uint64_t S, uint64_t L)
{
    uint64_t qw = lx->H * lx->D, kw = lx->Hkv * lx->D, n = lx->rows_max, kvn;
    uint64_t tw = qw + 2 * kw > 2 * lx->F ? qw + 2 * kw : 2 * lx->F;
    /* attention scores: a tile of query rows of the prefill by its S positions, or decode's L */
    uint64_t ts = rf__llm_attn_tile(lx->B, lx->H, S, S) * S, sc = lx->B * lx->H * (ts > L ? ts : L);
    RF_CHECK(lx->ctx,
             rf__mul_ok(lx->n_layer * lx->B, lx->Tmax * kw, &kvn) && kvn < ((uint64_t)1 << 34),
             RF_RANGE, "model: a KV cache of %llu positions is too large to run",
             (unsigned long long)lx->Tmax);
    /* every buffer below, in bytes, against what this process may take now (before any) */
    double kv_bytes = 2.0 * (double)kvn * 4, total = kv_bytes;
    double rows = (double)n,
           floats = rows * (3.0 * (double)lx->E + 2.0 * (double)qw + 2.0 * (double)kw +
                            2.0 * (double)lx->F + (double)tw) +
                    (double)lx->B * (double)lx->V + /* logits: each sequence's last row */
                    (double)sc + (double)lx->Tmax * (double)lx->D;
    total += floats * 4;
    double packed = rf__llm_exec_prefill_bytes(lx, S); /* made at the first prefill pass */
    total += packed;
    const char *what;
    double usable = (double)rf__mem_usable(&what);
    /* decode's in-place matrices copied onto huge pages when that fits too (a speed-up only) */
    double copy = rf__llm_exec_stream_bytes(lx);
    if (total > 0.9 * usable)
        return rf__error(lx->ctx, RF_RANGE, -1,
                         "model: measuring needs %.3g GB (a KV cache of %.3g GB for %llu "
                         "positions, %.3g GB of weights repacked for prefill, attention scores "
                         "and activations); %s allows %.3g GB now",
                         total / 1e9, kv_bytes / 1e9, (unsigned long long)lx->Tmax, packed / 1e9,
                         what, usable / 1e9);
    int fail = 0;
    lx->x = rf__alloc_floats(lx, n * lx->E, &fail);
    lx->x_norm = rf__alloc_floats(lx, n * lx->E, &fail);
    lx->proj = rf__alloc_floats(lx, n * lx->E, &fail);
    lx->q = rf__alloc_floats(lx, n * qw, &fail);
    lx->attn = rf__alloc_floats(lx, n * qw, &fail);
    lx->k = rf__alloc_floats(lx, n * kw, &fail);
    lx->v = rf__alloc_floats(lx, n * kw, &fail);
    lx->gate = rf__alloc_floats(lx, n * lx->F, &fail);
    lx->up = rf__alloc_floats(lx, n * lx->F, &fail);
    lx->fused = rf__alloc_floats(lx, n * tw, &fail);
    lx->logits = rf__alloc_floats(lx, lx->B * lx->V, &fail);
    lx->scores = rf__alloc_floats(lx, sc, &fail);
    lx->rope_cs = rf__alloc_floats(lx, lx->Tmax * (lx->D / 2) * 2, &fail);
    lx->k_cache = rf__alloc_floats(lx, kvn, &fail);
    lx->v_cache = rf__alloc_floats(lx, kvn, &fail);
    if (fail) return rf__error(lx->ctx, RF_NOMEM, -1, "out of memory for the executor's buffers");
    if (copy > 0 && total + copy <= 0.9 * usable) RF_TRY(rf__llm_exec_stream_copy(lx));
    rf__llm_rope_table(lx->rope_cs, lx->Tmax, lx->D);
    for (uint64_t i = 0; i < kvn; i++) { /* a filled cache: every page written */
        lx->k_cache[i] = 0.01f * (float)((int)(i % 97) - 48);
        lx->v_cache[i] = 0.01f * (float)((int)(i % 89) - 44);
    }
    return RF_OK;
}

static void rf__llm_exec_free(rf__llm_exec *lx)
{
    rf_ctx *ctx = lx->ctx;
    float *bufs[] = {lx->x,      lx->x_norm, lx->proj,    lx->q,       lx->attn,
                     lx->k,      lx->v,      lx->gate,    lx->up,      lx->fused,
                     lx->logits, lx->scores, lx->rope_cs, lx->k_cache, lx->v_cache};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) rf__free(ctx, bufs[i]);
    if (lx->weights)
        for (size_t i = 0; i < lx->model->n_w; i++) {
            rf__free(ctx, lx->weights[i].vec);
            rf__free(ctx, lx->weights[i].synth);
            rf__free(ctx, lx->weights[i].packed_mem);
            rf__free(ctx, lx->weights[i].copy_mem);
        }
    rf__free(ctx, lx->weights);
    rf__free(ctx, lx->qg_act);
    rf__free(ctx, lx->fg_buf);
    rf__qmatmul_free(ctx, lx->matmul);
}

/* Bytes of weights one decode step of B sequences reads. */
static double rf__decode_bytes(const rf__llm_exec *lx)
{
    double t = 0;
    int tied = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT) == NULL;
    for (size_t i = 0; i < lx->model->n_w; i++) {
        const rf__exec_weight *w = &lx->weights[i];
        if (!w->used) continue;
        if (lx->model->w[i].role == RF__R_POS_EMBD) {
            t += (double)lx->B * (double)w->cols * 4;
        } else if (w->vec) {
            t += (double)lx->model->w[i].n_bytes;
        } else if (lx->model->w[i].role == RF__R_TOK_EMBD) {
            t += (double)lx->B * (double)w->row_bytes; /* the rows gathered */
            if (tied) t += (double)w->rows * (double)w->row_bytes;
        } else {
            t += (double)w->rows * (double)w->row_bytes;
        }
    }
    return t;
}

/* The kernel type reading the most matrix bytes of a decode step, and its share of them. */
static int rf__decode_main_kernel(const rf__llm_exec *lx, double *share)
{
    double by[RF__WEIGHT_TYPES] = {0}, all = 0;
    int tied = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT) == NULL, best = -1;
    for (size_t i = 0; i < lx->model->n_w; i++) {
        const rf__exec_weight *w = &lx->weights[i];
        if (!w->used || w->vec || w->id < 0 || w->id >= RF__WEIGHT_TYPES) continue;
        int role = lx->model->w[i].role;
        if (role == RF__R_POS_EMBD || (role == RF__R_TOK_EMBD && !tied)) continue;
        by[w->id] += (double)w->rows * (double)w->row_bytes;
        all += (double)w->rows * (double)w->row_bytes;
    }
    for (int id = 0; id < RF__WEIGHT_TYPES; id++)
        if (by[id] > 0 && (best < 0 || by[id] > by[best])) best = id;
    *share = best >= 0 && all > 0 ? by[best] / all : 0;
    return best;
}

static rf_status rf__result_kinds(rf_ctx *ctx, rf_exec_llm_result *r, const rf__llm_exec_timing *pf,
                                  const rf__llm_exec_timing *dc)
{
    r->kinds = rf__calloc(ctx, RF__STEP_COUNT, sizeof *r->kinds);
    if (!r->kinds) return RF_NOMEM_ERR(ctx);
    for (int k = 0; k < RF__STEP_COUNT; k++) {
        if (!pf->step_calls[k] && !dc->step_calls[k]) continue;
        rf_exec_llm_kind *o = &r->kinds[r->n_kinds++];
        rf__strlcpy(o->name, rf__llm_step_names[k], sizeof o->name);
        o->prefill_s = pf->step_s[k];
        o->decode_s = dc->step_s[k];
        o->prefill_calls = pf->step_calls[k];
        o->decode_calls = dc->step_calls[k];
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
    r->busy_other = -1;
    rf__llm_exec lx = {0};
    lx.ctx = ctx;
    lx.model = model;
    lx.B = B;
    lx.E = hp->n_embd;
    lx.H = hp->n_head;
    lx.Hkv = hp->n_head_kv;
    lx.D = hp->head_dim;
    lx.n_layer = hp->n_layer;
    lx.Tmax = S > L ? S : L;
    lx.rows_max = B * S;
    lx.eps = 1e-5f;
    lx.clock = opts->clock ? opts->clock : rf__llm_exec_clock;
    lx.clock_user = opts->clock_user;
    rf__xprogress_start(&lx.progress, ctx, lx.clock(lx.clock_user));
    int isa = rf__kernel_isa_best();
    rf__llm_exec_timing pf, dc;
    rf_status st = RF_OK;
    lx.weights = rf__calloc(ctx, model->n_w ? model->n_w : 1, sizeof *lx.weights);
    if (!lx.weights) st = RF_NOMEM_ERR(ctx);
    if (st == RF_OK) st = rf__llm_exec_setup_weights(&lx, r);
    if (st == RF_OK) st = rf__qmatmul_new(ctx, opts->threads, isa, &lx.matmul);
    if (st == RF_OK) st = rf__setup_buffers(&lx, S, L);
    if (st == RF_OK) rf__llm_exec_progress(&lx, "weights and buffers ready", 0, 0);
    unsigned warm = opts->warmup ? opts->warmup : 2;
    rf__cpu_times c0 = rf__cpu_times_now();
    if (st == RF_OK) st = rf__llm_exec_time(&lx, S, 0, warm, opts->repeat, 0, &pf);
    if (st == RF_OK) st = rf__llm_exec_time(&lx, 1, L - 1, warm, opts->repeat, 1, &dc);
    rf__cpu_times c1 = rf__cpu_times_now();
    r->busy_other = opts->clock ? -1 : rf__cpu_others_share(&c0, &c1);
    if (st == RF_OK) st = rf__result_kinds(ctx, r, &pf, &dc);
    if (st == RF_OK) {
        r->batch = B;
        r->prompt = S;
        r->context = L;
        r->threads = rf__qmatmul_threads(lx.matmul);
        r->warmup = warm;
        r->prefill_repeat = pf.repeat;
        r->repeat = dc.repeat;
        rf__strlcpy(r->isa, rf__kernel_isa_name(isa), sizeof r->isa);
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
        int main_id = rf__decode_main_kernel(&lx, &r->decode_kernel_share);
        r->decode_kernel_dtype = main_id >= 0 ? rf__weight_dtype(main_id) : RF_DTYPE_UNKNOWN;
        r->decode_products_s = dc.prod_med_s;
        r->decode_products_min_s = dc.prod_min_s;
        r->decode_products_max_s = dc.prod_max_s;
        r->decode_products_share = dc.prod_share;
        r->decode_products_in_step_s = dc.prod_in_step_s;
        r->decode_kv_bytes = 2.0 * (double)(lx.n_layer * B * L * lx.Hkv * lx.D) * 4;
        r->memory_bytes = lx.mem_bytes;
        snprintf(r->notes, sizeof r->notes,
                 "Activations and the KV cache run as F32 (the options' act_bits, kv_bits and "
                 "what-if weight type are not applied); products with quantized weights take "
                 "the activations rounded to 8 bits per block, as llama.cpp does. %s Synthetic "
                 "token ids.",
                 B * S < 8 ? "Prefill: integer dot products per row, as in decode."
                 : !(rf__qmatmul_isa(lx.matmul) >= RF__KERNEL_AVX512)
                     ? "Prefill: weight rows dequantised to F32 in chunks, then OpenBLAS sgemm."
                 : rf__qmatmul_amx(lx.matmul)
                     ? "Prefill: quantized types repacked at warm-up, integer products on 8-bit "
                       "activations (AMX-INT8 tiles; Q6_K AVX-512 VNNI); other types an AVX-512 "
                       "sgemm. Decode: 16 rows a call, Q8_0 on that form, Q4_0/Q4_1 on one of "
                       "the file's size."
                     : "Prefill: quantized types repacked at warm-up, integer products on 8-bit "
                       "activations (AVX-512 VNNI); other types an AVX-512 sgemm. Decode: 16 rows "
                       "a call, Q8_0 on that form, Q4_0/Q4_1 on one of the file's size.");
    }
    rf__llm_exec_free(&lx);
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
