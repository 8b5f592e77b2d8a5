/* qgemv.c — decode on the packed forms (qgemm.h, issue 28): which types decode reads packed and
 * in which form (Q8_0's shared with prefill, qgemm.c; Q4_0's and Q4_1's nibble form, qgemv_q4.c),
 * their sizes and packing, the kernel per form and level, and the driver that splits the groups
 * of one or several matrices against the same activations over the thread team. Calls go
 * qgemv.c -> qgemm.c, qgemv_q4.c. */
#include "exec/qgemm.h"

int rf__qgemv_supported(int id)
{
    return id == RF__WEIGHT_Q8_0 || rf__qgemv_nib(id);
}

size_t rf__qgemv_bytes(int id, uint64_t N, uint64_t K)
{
    if (!rf__qgemv_supported(id)) return 0;
    return rf__qgemv_nib(id) ? rf__qgemv_nib_bytes(id, N, K) : rf__qgemm_bytes(id, N, K);
}

void rf__qgemv_pack(int id, const void *w, size_t row_bytes, uint64_t N, uint64_t K, uint8_t *data,
                    rf__qgemm_w *out)
{
    if (rf__qgemv_nib(id))
        rf__qgemv_nib_pack(id, w, row_bytes, N, K, data, out);
    else
        rf__qgemm_pack(id, w, row_bytes, N, K, data, out);
}

rf__qgemv_kernel_fn rf__qgemv_kernel_for(const rf__qgemm_w *w, int isa)
{
    return w->nib ? rf__qgemv_nib_kernel(isa) : rf__qgemv_kernel(isa);
}

typedef struct rf__qgemv_job {
    const rf__qgemm_w *const *w;
    unsigned n;
    uint64_t groups; /* of the n matrices together */
    int isa;
    const uint8_t *act;
    size_t act_bytes;
    uint64_t S;
    float *const *y;
} rf__qgemv_job;

/* Job p of np: its share of the groups of the matrices end to end, each group read once for every
 * activation row. */
static void rf__qgemv_part(void *arg, unsigned p, unsigned np)
{
    const rf__qgemv_job *j = arg;
    uint64_t g0 = j->groups * p / np, g1 = j->groups * (p + 1) / np, base = 0;
    for (unsigned i = 0; i < j->n && g0 < g1; base += j->w[i]->groups, i++) {
        const rf__qgemm_w *w = j->w[i];
        rf__qgemv_kernel_fn kern = rf__qgemv_kernel_for(w, j->isa);
        uint64_t e = base + w->groups;
        for (; g0 < g1 && g0 < e; g0++) {
            uint64_t g = g0 - base, r0 = g * RF__QGEMM_ROWS;
            unsigned nr = (unsigned)(w->N - r0 < RF__QGEMM_ROWS ? w->N - r0 : RF__QGEMM_ROWS);
            for (uint64_t s = 0; s < j->S; s++)
                kern(w, g, j->act + s * j->act_bytes, nr, j->y[i] + s * w->N + r0);
        }
    }
}

void rf__qgemv_run_n(rf__qmatmul *q, int isa, const rf__qgemm_w *const *w, unsigned n,
                     const void *act, size_t act_bytes, uint64_t S, float *const *y)
{
    rf__qgemv_job j = {w, n, 0, isa, act, act_bytes, S, y};
    for (unsigned i = 0; i < n; i++) j.groups += w[i]->groups;
    rf__qmatmul_parallel(q, rf__qgemv_part, &j);
}

void rf__qgemv_run(rf__qmatmul *q, int isa, const rf__qgemm_w *w, const void *act, size_t act_bytes,
                   uint64_t S, float *y)
{
    rf__qgemv_run_n(q, isa, &w, 1, act, act_bytes, S, &y);
}
