/* llm_exec_pass.c — one forward pass of the measured LLM run: the embedding gather, every decoder
 * block in the order rf_llm_build lays it out (llm_block.c: norm, q/k/v or fused qkv, q/k norms,
 * RoPE, KV-cache store, scores, softmax, A.V, output projection, residual; norm, gated / fused /
 * plain MLP, residual), the final norm and the LM head; each step read off the clock once. */
/* madvise(MADV_HUGEPAGE) is a Linux call beyond POSIX: rf__llm_huge. */
#define _DEFAULT_SOURCE 1
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "exec/llm_exec_int.h"

/* Close the step under way: its time since the last tick goes to kind k. */
static void rf__step_done(rf__llm_exec *lx, int k)
{
    double t = lx->clock(lx->clock_user);
    lx->step_s[k] += t - lx->t_last;
    lx->step_calls[k]++;
    lx->t_last = t;
}

/* Close a fused step: its time since the last tick split over the n kinds by `share` (summing to
 * 1), each counted as called once. */
static void rf__step_split(rf__llm_exec *lx, const int *kinds, const double *share, unsigned n)
{
    double t = lx->clock(lx->clock_user);
    for (unsigned i = 0; i < n; i++) {
        lx->step_s[kinds[i]] += (t - lx->t_last) * share[i];
        lx->step_calls[kinds[i]]++;
    }
    lx->t_last = t;
}

/* Packed matrices from this size on start on a 2 MiB boundary and ask for transparent huge pages
 * (Linux, THP mode "madvise"): decode streams the whole packed set once a token, and on 4 KiB pages
 * two cores pulled 5-7% fewer bytes a second from DRAM (a TLB miss every 64 lines of each stream).
 * The padding before the boundary is address space only, never touched. */
#define RF__HUGE_BYTES ((size_t)2 << 20)

/* bytes (> 0) of memory 64-byte aligned, from RF__HUGE_BYTES on on a 2 MiB boundary with huge
 * pages asked for; *mem is the allocation to free (NULL when out of memory). */
static uint8_t *rf__llm_huge(rf__llm_exec *lx, size_t bytes, void **mem)
{
    size_t align = bytes >= RF__HUGE_BYTES ? RF__HUGE_BYTES : 64;
    *mem = rf__malloc(lx->ctx, bytes + align);
    if (!*mem) return NULL;
    uint8_t *d = (uint8_t *)*mem + (align - (uintptr_t)*mem % align) % align;
#ifdef MADV_HUGEPAGE
    if (align == RF__HUGE_BYTES) (void)madvise(d, bytes, MADV_HUGEPAGE); /* a hint: may fail */
#endif
    return d;
}

/* 1 when Linux gives transparent huge pages to a region that asks (mode "always" or "madvise"). */
static int rf__thp_usable(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return 0;
    char b[128];
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = 0;
    return strstr(b, "[always]") || strstr(b, "[madvise]");
}

/* The matrix of weight i when decode multiplies it where it lies (no packed form of its own at
 * this ISA) and it spans at least 2 MiB, else NULL: the token embedding only as the LM head. */
static rf__exec_weight *rf__llm_streamed(rf__llm_exec *lx, size_t i)
{
    rf__exec_weight *w = &lx->weights[i];
    int role = lx->model->w[i].role, isa = rf__qmatmul_isa(lx->matmul);
    if (!w->used || w->vec || w->id < 0 || w->synth || w->copy_mem ||
        (double)w->rows * (double)w->row_bytes < (double)RF__HUGE_BYTES)
        return NULL;
    if (role == RF__R_TOK_EMBD && rf__llm_exec_weight(lx, -1, RF__R_OUTPUT)) return NULL;
    if (isa >= RF__KERNEL_AVX512 && rf__qgemv_supported(w->id) && w->cols % 32 == 0) return NULL;
    return w;
}

/* Decode streams every matrix once a token. Those it reads in the mapped file sit on 4 KiB pages
 * of the page cache: a copy on transparent huge pages made two cores decode an F16 1B model 7-17%
 * faster in paired runs (a TLB miss every 64 lines of each stream otherwise), a Q4_K one 1-23%.
 * The bytes such copies take (0 when Linux gives no huge pages). */
double rf__llm_exec_stream_bytes(rf__llm_exec *lx)
{
    double bytes = 0;
    if (!rf__thp_usable()) return 0;
    for (size_t i = 0; i < lx->model->n_w; i++) {
        const rf__exec_weight *w = rf__llm_streamed(lx, i);
        if (w) bytes += (double)w->rows * (double)w->row_bytes;
    }
    return bytes;
}

rf_status rf__llm_exec_stream_copy(rf__llm_exec *lx)
{
    for (size_t i = 0; i < lx->model->n_w; i++) {
        rf__exec_weight *w = rf__llm_streamed(lx, i);
        if (!w) continue;
        size_t bytes = (size_t)w->rows * w->row_bytes;
        uint8_t *d = rf__llm_huge(lx, bytes, &w->copy_mem);
        if (!d) return RF_NOMEM_ERR(lx->ctx);
        memcpy(d, w->data, bytes);
        w->data = d;
        lx->mem_bytes += (double)bytes;
    }
    return RF_OK;
}

/* The packed copy of w (qgemm.h) in prefill's form or (`decode`) in decode's, made at its first
 * product (the harness's warm-up pass). Q8_0 has one form for both; Q4_0 and Q4_1 have two, and a
 * matrix holds one at a time: the first decode product replaces prefill's (2.2 bytes a weight)
 * by decode's (the file's size), so a run never holds both. */
static rf_status rf__llm_packed(rf__llm_exec *lx, const rf__exec_weight *cw, int decode,
                                rf__exec_weight **out)
{
    rf__exec_weight *w = &lx->weights[cw - lx->weights];
    int nib = decode ? rf__qgemv_nib(w->id) : 0;
    if (w->packed_mem && w->packed.nib != nib) {
        rf__free(lx->ctx, w->packed_mem);
        w->packed_mem = NULL;
    }
    if (!w->packed_mem) {
        size_t bytes = nib ? rf__qgemv_bytes(w->id, w->rows, w->cols)
                           : rf__qgemm_bytes(w->id, w->rows, w->cols);
        uint8_t *d = rf__llm_huge(lx, bytes, &w->packed_mem);
        if (!d) return RF_NOMEM_ERR(lx->ctx);
        if (nib)
            rf__qgemv_pack(w->id, w->data, w->row_bytes, w->rows, w->cols, d, &w->packed);
        else
            rf__qgemm_pack(w->id, w->data, w->row_bytes, w->rows, w->cols, d, &w->packed);
        if ((double)bytes > w->packed_peak) { /* counted at the larger form's size */
            lx->mem_bytes += (double)bytes - w->packed_peak;
            w->packed_peak = (double)bytes;
        }
    }
    *out = w;
    return RF_OK;
}

/* The activation scratch of the packed products, at least `need` bytes; 64-byte aligned. */
static rf_status rf__llm_qg_act(rf__llm_exec *lx, size_t need, uint8_t **out)
{
    need += 64;
    if (need > lx->qg_act_cap) {
        void *p = rf__realloc(lx->ctx, lx->qg_act, need);
        if (!p) return RF_NOMEM_ERR(lx->ctx);
        lx->mem_bytes += (double)(need - lx->qg_act_cap);
        lx->qg_act = p;
        lx->qg_act_cap = need;
    }
    *out = (uint8_t *)lx->qg_act + (64 - (uintptr_t)lx->qg_act % 64) % 64;
    return RF_OK;
}

/* Many rows on an AVX-512 VNNI CPU: the quantised types through the packed VNNI GEMM (qgemm.h);
 * 0 when the product goes the other way. */
#define RF__QGEMM_MIN_ROWS 8
static rf_status rf__linear_qgemm(rf__llm_exec *lx, const rf__exec_weight *cw, const float *x,
                                  uint64_t n, uint64_t in, float *y, int *done)
{
    int isa = rf__qmatmul_isa(lx->matmul);
    *done = 0;
    if (n < RF__QGEMM_MIN_ROWS || isa < RF__KERNEL_AVX512 || !rf__qgemm_supported(cw->id) ||
        cw->cols != in)
        return RF_OK;
    rf__exec_weight *w;
    uint8_t *act;
    RF_TRY(rf__llm_packed(lx, cw, 0, &w));
    RF_TRY(rf__llm_qg_act(lx, rf__qgemm_act_bytes(n, in, w->packed.blk), &act));
    rf__qgemm_run(lx->matmul, isa, &w->packed, x, n, act, y);
    *done = 1;
    return RF_OK;
}

/* Few rows (decode) on an AVX-512 VNNI CPU: Q8_0 through its packed form (the same one prefill
 * multiplies), Q4_0 and Q4_1 through their nibble form (rf__qgemv_run), the activations quantised
 * once to Q8_32; 0 otherwise. */
static rf_status rf__linear_qgemv(rf__llm_exec *lx, const rf__exec_weight *cw, const float *x,
                                  uint64_t n, uint64_t in, float *y, int *done)
{
    int isa = rf__qmatmul_isa(lx->matmul);
    *done = 0;
    if (n >= RF__QGEMM_MIN_ROWS || isa < RF__KERNEL_AVX512 || !rf__qgemv_supported(cw->id) ||
        cw->cols != in || in % 32)
        return RF_OK;
    rf__exec_weight *w;
    uint8_t *act;
    size_t ab = (rf__act_bytes(cw->id, (size_t)in) + 63) / 64 * 64;
    RF_TRY(rf__llm_packed(lx, cw, 1, &w));
    RF_TRY(rf__llm_qg_act(lx, (size_t)n * ab, &act));
    for (uint64_t s = 0; s < n; s++)
        rf__act_quantize(cw->id, isa, x + s * in, (size_t)in, act + s * ab);
    rf__qgemv_run(lx->matmul, isa, &w->packed, act, ab, n, y);
    *done = 1;
    return RF_OK;
}

/* Few rows (decode): the n products of roles[] (q/k/v, or gate/up) that read the same x as one
 * team job, x quantised once: on their packed forms (rf__qgemv_run_n) as rf__linear_qgemv
 * would, or, for weights of one other type, by the row kernels (rf__qmatmul_dots_n) as
 * rf__qmatmul_run would; biases added after; the step closed with its time split over kinds[] by
 * the bytes each matrix reads. 0 when they would go different ways (then none is done). */
static rf_status rf__linear_n(rf__llm_exec *lx, int64_t blk, const int *roles,
                              const int *bias_roles, const int *kinds, unsigned n, const float *x,
                              uint64_t rows, uint64_t in, float *const *y, int *done)
{
    int isa = rf__qmatmul_isa(lx->matmul), packed = 1;
    const rf__exec_weight *cw[RF__QGEMV_MAX_MATS] = {NULL};
    double share[RF__QGEMV_MAX_MATS], total = 0;
    *done = 0;
    if (rows >= RF__QGEMM_MIN_ROWS || n > RF__QGEMV_MAX_MATS || n > RF__QMATMUL_MAX_MATS)
        return RF_OK;
    for (unsigned i = 0; i < n; i++) {
        cw[i] = rf__llm_exec_weight(lx, blk, roles[i]);
        if (!cw[i] || cw[i]->vec || cw[i]->id < 0 || cw[i]->cols != in || cw[i]->id != cw[0]->id ||
            cw[i]->row_bytes != cw[0]->row_bytes)
            return RF_OK;
    }
    if (isa < RF__KERNEL_AVX512 || !rf__qgemv_supported(cw[0]->id) || in % 32) packed = 0;
    if (packed) {
        const rf__qgemm_w *pw[RF__QGEMV_MAX_MATS];
        for (unsigned i = 0; i < n; i++) {
            rf__exec_weight *w;
            RF_TRY(rf__llm_packed(lx, cw[i], 1, &w));
            pw[i] = &w->packed;
            share[i] = (double)rf__qgemv_bytes(w->id, w->rows, w->cols);
        }
        uint8_t *act;
        size_t ab = (rf__act_bytes(cw[0]->id, (size_t)in) + 63) / 64 * 64;
        RF_TRY(rf__llm_qg_act(lx, (size_t)rows * ab, &act));
        for (uint64_t s = 0; s < rows; s++)
            rf__act_quantize(cw[0]->id, isa, x + s * in, (size_t)in, act + s * ab);
        rf__qgemv_run_n(lx->matmul, isa, pw, n, act, ab, rows, y);
    } else {
        const uint8_t *wd[RF__QMATMUL_MAX_MATS];
        uint64_t N[RF__QMATMUL_MAX_MATS];
        for (unsigned i = 0; i < n; i++) {
            wd[i] = cw[i]->data;
            N[i] = cw[i]->rows;
            share[i] = (double)cw[i]->rows * (double)cw[i]->row_bytes;
        }
        RF_TRY(rf__qmatmul_dots_n(lx->ctx, lx->matmul, cw[0]->id, wd, cw[0]->row_bytes, N, n, in, x,
                                  rows, y));
    }
    for (unsigned i = 0; i < n; i++) total += share[i];
    for (unsigned i = 0; i < n; i++) {
        const rf__exec_weight *b =
            bias_roles[i] >= 0 ? rf__llm_exec_weight(lx, blk, bias_roles[i]) : NULL;
        if (b && b->vec)
            for (uint64_t r = 0; r < rows; r++)
                rf__llm_add(y[i] + r * cw[i]->rows, b->vec, cw[i]->rows);
        share[i] = total > 0 ? share[i] / total : 1.0 / n;
    }
    rf__step_split(lx, kinds, share, n);
    *done = 1;
    return RF_OK;
}

/* Many rows on an AVX-512 CPU, the other types (F32, F16, BF16, those without a packed form):
 * the float GEMM (qgemm.h), its rows dequantised a tile at a time; 0 when the product goes the
 * other way. */
static rf_status rf__linear_fgemm(rf__llm_exec *lx, const rf__exec_weight *w, const float *x,
                                  uint64_t n, uint64_t in, float *y, int *done)
{
    int isa = rf__qmatmul_isa(lx->matmul);
    uint32_t be, bb;
    rf__weight_block(w->id, &be, &bb);
    *done = 0;
    if (n < RF__QGEMM_MIN_ROWS || isa < RF__KERNEL_AVX512 || w->cols != in ||
        (in > RF__FGEMM_KC && RF__FGEMM_KC % be))
        return RF_OK;
    size_t need = rf__fgemm_scratch_bytes(n, in, rf__qmatmul_threads(lx->matmul)) + 64;
    if (need > lx->fg_cap) {
        void *p = rf__realloc(lx->ctx, lx->fg_buf, need);
        if (!p) return RF_NOMEM_ERR(lx->ctx);
        lx->mem_bytes += (double)(need - lx->fg_cap);
        lx->fg_buf = p;
        lx->fg_cap = need;
    }
    uint8_t *buf = (uint8_t *)lx->fg_buf + (64 - (uintptr_t)lx->fg_buf % 64) % 64;
    rf__fgemm_run(lx->matmul, isa, w->id, w->data, w->row_bytes, w->rows, in, x, n, buf, y);
    *done = 1;
    return RF_OK;
}

double rf__llm_exec_prefill_bytes(const rf__llm_exec *lx, uint64_t S)
{
    uint64_t n = lx->B * S, kmax = 0;
    int isa = rf__qmatmul_isa(lx->matmul);
    if (isa < RF__KERNEL_AVX512) return 0;
    int head = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT) ? RF__R_OUTPUT : RF__R_TOK_EMBD;
    double packed = 0;
    for (size_t i = 0; i < lx->model->n_w; i++) {
        const rf__exec_weight *w = &lx->weights[i];
        int role = lx->model->w[i].role;
        if (!w->used || w->vec || w->id < 0 || (role == RF__R_TOK_EMBD && head != role)) continue;
        int many = (role == head ? lx->B : n) >= RF__QGEMM_MIN_ROWS; /* the head: B rows */
        /* one form at a time (rf__llm_packed): the larger of those the run makes */
        double pb = many && rf__qgemm_supported(w->id)
                        ? (double)rf__qgemm_bytes(w->id, w->rows, w->cols)
                        : 0,
               db = (double)rf__qgemv_bytes(w->id, w->rows, w->cols);
        packed += pb > db ? pb : db;
        if (many && w->cols > kmax) kmax = w->cols;
    }
    if (n < RF__QGEMM_MIN_ROWS) return packed;
    return packed + (double)rf__qgemm_act_bytes(n, kmax, 16) +
           (double)rf__fgemm_scratch_bytes(n, kmax, rf__qmatmul_threads(lx->matmul));
}

/* y [n, rows of w] = x [n, cols of w] . W^T (+ bias). */
static rf_status rf__linear(rf__llm_exec *lx, int64_t blk, int role, int bias_role, const float *x,
                            uint64_t n, uint64_t in, uint64_t out, float *y)
{
    const rf__exec_weight *w = rf__llm_exec_weight(lx, blk, role),
                          *b = bias_role >= 0 ? rf__llm_exec_weight(lx, blk, bias_role) : NULL;
    int done;
    RF_TRY(rf__linear_qgemm(lx, w, x, n, in, y, &done));
    if (!done) RF_TRY(rf__linear_qgemv(lx, w, x, n, in, y, &done));
    if (!done) RF_TRY(rf__linear_fgemm(lx, w, x, n, in, y, &done));
    if (!done)
        RF_TRY(rf__qmatmul_run(lx->ctx, lx->matmul, w->id, w->data, w->row_bytes, w->rows, in, x, n,
                               y));
    (void)out;
    if (b && b->vec)
        for (uint64_t r = 0; r < n; r++) rf__llm_add(y + r * w->rows, b->vec, w->rows);
    return RF_OK;
}

static void rf__norm_role(rf__llm_exec *lx, int64_t blk, int role, int bias_role, const float *x,
                          float *y, uint64_t n, uint64_t c)
{
    const rf__exec_weight *w = rf__llm_exec_weight(lx, blk, role),
                          *b = bias_role >= 0 ? rf__llm_exec_weight(lx, blk, bias_role) : NULL;
    rf__llm_norm(x, y, n, c, w ? w->vec : NULL, b ? b->vec : NULL, lx->model->layernorm, lx->eps);
}

static void rf__embed(rf__llm_exec *lx, uint64_t S, uint64_t p0)
{
    const rf__exec_weight *e = rf__llm_exec_weight(lx, -1, RF__R_TOK_EMBD),
                          *pe = rf__llm_exec_weight(lx, -1, RF__R_POS_EMBD);
    uint64_t n = lx->B * S;
    for (uint64_t r = 0; r < n; r++) {
        uint64_t pos = p0 + r % S, tok = (pos * 7919 + r / S) % e->rows; /* synthetic tokens */
        float *xr = lx->x + r * lx->E;
        rf__dequant_row(e->id, e->data + tok * e->row_bytes, xr, lx->E);
        if (lx->model->gemma_scale)
            for (uint64_t i = 0; i < lx->E; i++) xr[i] *= 45.25f; /* ~sqrt(n_embd): scale only */
        if (pe && pe->vec && pos < pe->rows) rf__llm_add(xr, pe->vec + pos * lx->E, lx->E);
    }
}

/* The end of the attention and of the MLP: lx->proj normed in place when the block has a norm
 * after it (role norm_role), then added to the residual stream lx->x. */
static void rf__residual(rf__llm_exec *lx, int64_t l, uint64_t n, int norm_role, int norm_step,
                         int add_step)
{
    if (rf__llm_exec_weight(lx, l, norm_role)) {
        rf__norm_role(lx, l, norm_role, -1, lx->proj, lx->proj, n, lx->E);
        rf__step_done(lx, norm_step);
    }
    rf__llm_add(lx->x, lx->proj, n * lx->E);
    rf__step_done(lx, add_step);
}

/* q, k and v by three products. */
static rf_status rf__qkv_apart(rf__llm_exec *lx, int64_t l, uint64_t n, uint64_t E, uint64_t qw,
                               uint64_t kw)
{
    RF_TRY(rf__linear(lx, l, RF__R_Q, RF__R_Q_B, lx->x_norm, n, E, qw, lx->q));
    rf__step_done(lx, RF__STEP_Q);
    RF_TRY(rf__linear(lx, l, RF__R_K, RF__R_K_B, lx->x_norm, n, E, kw, lx->k));
    rf__step_done(lx, RF__STEP_K);
    RF_TRY(rf__linear(lx, l, RF__R_V, RF__R_V_B, lx->x_norm, n, E, kw, lx->v));
    rf__step_done(lx, RF__STEP_V);
    return RF_OK;
}

static rf_status rf__attention(rf__llm_exec *lx, int64_t l, uint64_t S, uint64_t p0)
{
    uint64_t n = lx->B * S, E = lx->E, D = lx->D, qw = lx->H * D, kw = lx->Hkv * D;
    if (rf__llm_exec_weight(lx, l, RF__R_QKV)) {
        RF_TRY(rf__linear(lx, l, RF__R_QKV, RF__R_QKV_B, lx->x_norm, n, E, qw + 2 * kw, lx->fused));
        for (uint64_t r = 0; r < n; r++) {
            const float *t = lx->fused + r * (qw + 2 * kw);
            memcpy(lx->q + r * qw, t, qw * sizeof *t);
            memcpy(lx->k + r * kw, t + qw, kw * sizeof *t);
            memcpy(lx->v + r * kw, t + qw + kw, kw * sizeof *t);
        }
        rf__step_done(lx, RF__STEP_QKV);
    } else {
        static const int roles[3] = {RF__R_Q, RF__R_K, RF__R_V},
                         biases[3] = {RF__R_Q_B, RF__R_K_B, RF__R_V_B},
                         kinds[3] = {RF__STEP_Q, RF__STEP_K, RF__STEP_V};
        float *const ys[3] = {lx->q, lx->k, lx->v};
        int done;
        RF_TRY(rf__linear_n(lx, l, roles, biases, kinds, 3, lx->x_norm, n, E, ys, &done));
        if (!done) RF_TRY(rf__qkv_apart(lx, l, n, E, qw, kw));
    }
    if (rf__llm_exec_weight(lx, l, RF__R_Q_NORM)) {
        rf__norm_role(lx, l, RF__R_Q_NORM, -1, lx->q, lx->q, n * lx->H, D);
        rf__step_done(lx, RF__STEP_Q_NORM);
    }
    if (rf__llm_exec_weight(lx, l, RF__R_K_NORM)) {
        rf__norm_role(lx, l, RF__R_K_NORM, -1, lx->k, lx->k, n * lx->Hkv, D);
        rf__step_done(lx, RF__STEP_K_NORM);
    }
    if (lx->model->rope) {
        rf__llm_rope(lx->q, n, lx->H, D, S, p0, lx->rope_cs);
        rf__step_done(lx, RF__STEP_ROPE_Q);
        rf__llm_rope(lx->k, n, lx->Hkv, D, S, p0, lx->rope_cs);
        rf__step_done(lx, RF__STEP_ROPE_K);
    }
    for (uint64_t r = 0; r < n; r++) {
        uint64_t b = r / S, t = p0 + r % S, at = (((uint64_t)l * lx->B + b) * lx->Tmax + t) * kw;
        memcpy(lx->k_cache + at, lx->k + r * kw, kw * sizeof(float));
        memcpy(lx->v_cache + at, lx->v + r * kw, kw * sizeof(float));
    }
    rf__step_done(lx, RF__STEP_KV_STORE);
    uint64_t tile = rf__llm_attn_tile(lx->B, lx->H, S, p0 + S);
    for (uint64_t i0 = 0; i0 < S; i0 += tile) { /* query rows a tile at a time */
        uint64_t ni = S - i0 < tile ? S - i0 : tile;
        rf__llm_attn_scores(lx, (uint64_t)l, S, p0, i0, ni);
        rf__step_done(lx, RF__STEP_SCORES);
        rf__llm_attn_softmax(lx, S, p0, i0, ni);
        rf__step_done(lx, RF__STEP_SOFTMAX);
        rf__llm_attn_values(lx, (uint64_t)l, S, p0, i0, ni);
        rf__step_done(lx, RF__STEP_AV);
    }
    RF_TRY(rf__linear(lx, l, RF__R_O, RF__R_O_B, lx->attn, n, qw, E, lx->proj));
    rf__step_done(lx, RF__STEP_O);
    rf__residual(lx, l, n, RF__R_POST_ATTN_NORM, RF__STEP_POST_ATTN_NORM, RF__STEP_ATTN_RES);
    return RF_OK;
}

static rf_status rf__mlp(rf__llm_exec *lx, int64_t l, uint64_t S)
{
    uint64_t n = lx->B * S, E = lx->E, F;
    const float *in = lx->x;
    const rf__exec_weight *gu = rf__llm_exec_weight(lx, l, RF__R_GATE_UP),
                          *up = rf__llm_exec_weight(lx, l, RF__R_UP);
    F = gu ? gu->rows / 2 : up->rows; /* widths may differ per block */
    if (rf__llm_exec_weight(lx, l, RF__R_FFN_NORM)) {
        rf__norm_role(lx, l, RF__R_FFN_NORM, RF__R_FFN_NORM_B, lx->x, lx->x_norm, n, E);
        rf__step_done(lx, RF__STEP_FFN_NORM);
        in = lx->x_norm;
    }
    int gated = 1;
    if (rf__llm_exec_weight(lx, l, RF__R_GATE_UP)) {
        RF_TRY(rf__linear(lx, l, RF__R_GATE_UP, -1, in, n, E, 2 * F, lx->fused));
        for (uint64_t r = 0; r < n; r++) {
            memcpy(lx->gate + r * F, lx->fused + r * 2 * F, F * sizeof(float));
            memcpy(lx->up + r * F, lx->fused + r * 2 * F + F, F * sizeof(float));
        }
        rf__step_done(lx, RF__STEP_GATE_UP);
    } else if (rf__llm_exec_weight(lx, l, RF__R_GATE)) {
        static const int roles[2] = {RF__R_GATE, RF__R_UP}, biases[2] = {-1, RF__R_UP_B},
                         kinds[2] = {RF__STEP_GATE, RF__STEP_UP};
        float *const ys[2] = {lx->gate, lx->up};
        int done;
        RF_TRY(rf__linear_n(lx, l, roles, biases, kinds, 2, in, n, E, ys, &done));
        if (!done) {
            RF_TRY(rf__linear(lx, l, RF__R_GATE, -1, in, n, E, F, lx->gate));
            rf__step_done(lx, RF__STEP_GATE);
            RF_TRY(rf__linear(lx, l, RF__R_UP, RF__R_UP_B, in, n, E, F, lx->up));
            rf__step_done(lx, RF__STEP_UP);
        }
    } else {
        RF_TRY(rf__linear(lx, l, RF__R_UP, RF__R_UP_B, in, n, E, F, lx->gate));
        rf__step_done(lx, RF__STEP_UP);
        gated = 0;
    }
    rf__llm_activation(lx->gate, n * F, lx->model->act_gelu, rf__qmatmul_isa(lx->matmul));
    rf__step_done(lx, RF__STEP_ACT);
    if (gated) {
        rf__llm_mul(lx->gate, lx->up, n * F);
        rf__step_done(lx, RF__STEP_MUL);
    }
    RF_TRY(rf__linear(lx, l, RF__R_DOWN, RF__R_DOWN_B, lx->gate, n, F, E, lx->proj));
    rf__step_done(lx, RF__STEP_DOWN);
    rf__residual(lx, l, n, RF__R_POST_FFN_NORM, RF__STEP_POST_FFN_NORM, RF__STEP_FFN_RES);
    return RF_OK;
}

rf_status rf__llm_exec_pass(rf__llm_exec *lx, uint64_t S, uint64_t p0)
{
    uint64_t n = lx->B * S;
    memset(lx->step_s, 0, sizeof lx->step_s);
    memset(lx->step_calls, 0, sizeof lx->step_calls);
    lx->t_last = lx->clock(lx->clock_user);
    rf__embed(lx, S, p0);
    rf__step_done(lx, RF__STEP_EMBD);
    for (uint64_t l = 0; l < lx->n_layer; l++) {
        rf__norm_role(lx, (int64_t)l, RF__R_ATTN_NORM, RF__R_ATTN_NORM_B, lx->x, lx->x_norm, n,
                      lx->E);
        rf__step_done(lx, RF__STEP_ATTN_NORM);
        RF_TRY(rf__attention(lx, (int64_t)l, S, p0));
        RF_TRY(rf__mlp(lx, (int64_t)l, S));
    }
    /* The next token needs the logits of each sequence's last position only (llama.cpp, by
     * default, outputs those alone too): those B rows gathered, normed and through the head. */
    for (uint64_t b = 0; b < lx->B && S > 1; b++)
        memmove(lx->x + b * lx->E, lx->x + (b * S + S - 1) * lx->E, lx->E * sizeof(float));
    rf__norm_role(lx, -1, RF__R_OUT_NORM, RF__R_OUT_NORM_B, lx->x, lx->x_norm, lx->B, lx->E);
    rf__step_done(lx, RF__STEP_OUT_NORM);
    int role = rf__llm_exec_weight(lx, -1, RF__R_OUTPUT) ? RF__R_OUTPUT : RF__R_TOK_EMBD;
    RF_TRY(rf__linear(lx, -1, role, -1, lx->x_norm, lx->B, lx->E, lx->V, lx->logits));
    rf__step_done(lx, RF__STEP_OUTPUT);
    return RF_OK;
}

/* The roof's hook (llm_exec_roof.c): one weight product exactly as the pass makes it. */
rf_status rf__llm_exec_linear(rf__llm_exec *lx, int64_t blk, int role, const float *x, uint64_t n,
                              uint64_t in, uint64_t out, float *y)
{
    return rf__linear(lx, blk, role, -1, x, n, in, out, y);
}

rf_status rf__llm_exec_linear_n(rf__llm_exec *lx, int64_t blk, const int *roles, const int *kinds,
                                unsigned n, const float *x, uint64_t rows, uint64_t in,
                                float *const *y, int *done)
{
    static const int none[RF__QGEMV_MAX_MATS] = {-1, -1, -1, -1};
    *done = 0;
    if (n == 0 || n > RF__QGEMV_MAX_MATS) return RF_OK;
    return rf__linear_n(lx, blk, roles, none, kinds, n, x, rows, in, y, done);
}
