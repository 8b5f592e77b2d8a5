/* test_exec_einsum.c — Einsum in the executor (op_einsum.c) against a naive reference that sums
 * the product of the operands over every assignment of the letters (NumPy's definition, size-1
 * dims broadcasting): batched products, a transposed operand read in place, ellipses with
 * broadcast batch dims, dot, transpose, diagonal, trace, reductions, outer and elementwise
 * products, three operands, a letter only one operand has and no one needs. Tolerance
 * (close_all: 1e-4 absolute + 1e-4 relative): sums of at most 64 products of values in [-1, 1]
 * in float, against double sums; the float rounding is below 64 * 2^-24 ~ 4e-6. */
#include "exec_tg.h"

#define MAXOP 3

typedef struct ecase {
    const char *eq;     /* the equation the layer carries */
    const char *ref[4]; /* the reference's terms, ellipses written out; ref[n] = output */
    int n;              /* operands */
    int64_t dims[MAXOP][4];
    uint32_t rank[MAXOP];
    const char *kernel;
} ecase;

/* The reference: letters' sizes from the operands (1 yields), then every assignment. */
static void ref_einsum(const ecase *c, float *const *x, float *y, int64_t *ydims, uint32_t *yrank)
{
    int64_t size[128];
    for (int i = 0; i < 128; i++) size[i] = -1;
    char letters[16] = "";
    for (int o = 0; o < c->n; o++)
        for (uint32_t d = 0; d < c->rank[o]; d++) {
            int ch = c->ref[o][d];
            if (size[ch] < 0 || size[ch] == 1) size[ch] = c->dims[o][d];
            if (!strchr(letters, ch)) letters[strlen(letters)] = (char)ch;
        }
    const char *out = c->ref[c->n];
    uint64_t ny = 1;
    *yrank = (uint32_t)strlen(out);
    for (uint32_t i = 0; i < *yrank; i++) ydims[i] = size[(int)out[i]], ny *= (uint64_t)ydims[i];
    for (uint64_t i = 0; i < ny; i++) y[i] = 0;
    int nl = (int)strlen(letters);
    int64_t v[128] = {0}, total = 1;
    for (int i = 0; i < nl; i++) total *= size[(int)letters[i]];
    for (int64_t it = 0; it < total; it++) {
        int64_t r = it;
        for (int i = nl - 1; i >= 0; i--) {
            v[(int)letters[i]] = r % size[(int)letters[i]];
            r /= size[(int)letters[i]];
        }
        double prod = 1;
        for (int o = 0; o < c->n; o++) {
            int64_t off = 0;
            for (uint32_t d = 0; d < c->rank[o]; d++)
                off = off * c->dims[o][d] + (c->dims[o][d] == 1 ? 0 : v[(int)c->ref[o][d]]);
            prod *= x[o][off];
        }
        int64_t yo = 0;
        for (uint32_t i = 0; i < *yrank; i++) yo = yo * ydims[i] + v[(int)out[i]];
        y[yo] += (float)prod;
    }
}

/* One layer with the case's equation, run, and compared with the reference. */
static void check(const ecase *c)
{
    tg t = tg_new();
    uint32_t in[MAXOP];
    char nm[16];
    for (int o = 0; o < c->n; o++) {
        snprintf(nm, sizeof nm, "x%d", o);
        in[o] = tens(&t, nm, RF_TENSOR_INPUT, c->dims[o], c->rank[o]);
    }
    /* output shape from the letters' sizes */
    int64_t size[128];
    for (int i = 0; i < 128; i++) size[i] = -1;
    for (int o = 0; o < c->n; o++)
        for (uint32_t d = 0; d < c->rank[o]; d++) {
            int ch = c->ref[o][d];
            if (size[ch] < 0 || size[ch] == 1) size[ch] = c->dims[o][d];
        }
    const char *outl = c->ref[c->n];
    int64_t yd[RF_GRAPH_MAX_RANK];
    uint32_t yr = (uint32_t)strlen(outl);
    for (uint32_t i = 0; i < yr; i++) yd[i] = size[(int)outl[i]];
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, yd, yr);
    uint32_t li = lay(&t, "Einsum", in, (uint32_t)c->n, y);
    rf_graph_set_attr_string(t.ctx, t.g, li, "equation", c->eq, strlen(c->eq));
    if (run(&t)) {
        expect_measured(&t, li, c->kernel);
        float *xv[MAXOP] = {NULL};
        for (int o = 0; o < c->n; o++) xv[o] = vals(&t, in[o], 0);
        static float ry[4096];
        int64_t rd[RF_GRAPH_MAX_RANK];
        uint32_t rr;
        ref_einsum(c, xv, ry, rd, &rr);
        float *gy = out(&t, y);
        close_all(c->eq, gy, ry, elems(&t, y));
        for (int o = 0; o < c->n; o++) free(xv[o]);
        free(gy);
    }
    tg_free(&t);
}

#define OB "openblas:einsum"

RF_TEST(einsum_contractions)
{
    static const ecase cs[] = {
        {"bij,bjk->bik", {"bij", "bjk", "bik"}, 2, {{2, 3, 4}, {2, 4, 5}}, {3, 3}, OB},
        {"bij,bjk->bik", {"bij", "bjk", "bik"}, 2, {{2, 8, 16}, {2, 16, 8}}, {3, 3}, OB},
        {"bhqd,bhkd->bhqk", {"bhqd", "bhkd", "bhqk"}, 2, {{1, 2, 6, 8}, {1, 2, 5, 8}}, {4, 4}, OB},
        {"ki,kj->ij", {"ki", "kj", "ij"}, 2, {{20, 10}, {20, 12}}, {2, 2}, OB},
        {"ij,jk", {"ij", "jk", "ik"}, 2, {{4, 5}, {5, 6}}, {2, 2}, OB},
        {"i,i->", {"i", "i", ""}, 2, {{64}, {64}}, {1, 1}, OB},
        {"i,j->ij", {"i", "j", "ij"}, 2, {{7}, {9}}, {1, 1}, OB},
        {"ij,ij->ij", {"ij", "ij", "ij"}, 2, {{3, 4}, {3, 4}}, {2, 2}, OB},
        {"abc,cd->da", {"abc", "cd", "da"}, 2, {{3, 4, 5}, {5, 6}}, {3, 2}, OB},
        {"ij,jk,kl->il", {"ij", "jk", "kl", "il"}, 3, {{2, 3}, {3, 4}, {4, 5}}, {2, 2, 2}, OB},
        {"bii,bij->bj", {"bii", "bij", "bj"}, 2, {{2, 4, 4}, {2, 4, 3}}, {3, 3}, OB},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) check(&cs[i]);
}

RF_TEST(einsum_ellipsis_broadcast)
{
    static const ecase cs[] = {
        {"...ij,...jk->...ik", {"xyij", "yjk", "xyik"}, 2, {{2, 3, 4, 5}, {3, 5, 6}}, {4, 3}, OB},
        {"...ij,...jk->...ik", {"xyij", "yjk", "xyik"}, 2, {{2, 1, 4, 5}, {3, 5, 6}}, {4, 3}, OB},
        {"...ij,...jk", {"xyij", "yjk", "xyik"}, 2, {{2, 3, 4, 5}, {1, 5, 6}}, {4, 3}, OB},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) check(&cs[i]);
}

RF_TEST(einsum_one_operand)
{
    static const ecase cs[] = {
        {"ij->ji", {"ij", "ji"}, 1, {{8, 16}}, {2}, "c:einsum"},
        {"ii->i", {"ii", "i"}, 1, {{5, 5}}, {2}, "c:einsum"},
        {"ii", {"ii", ""}, 1, {{5, 5}}, {2}, "c:einsum"},
        {"ijk->i", {"ijk", "i"}, 1, {{3, 4, 5}}, {3}, "c:einsum"},
        {"ijk->ki", {"ijk", "ki"}, 1, {{3, 4, 5}}, {3}, "c:einsum"},
        {"ij->", {"ij", ""}, 1, {{6, 7}}, {2}, "c:einsum"},
        {"ij", {"ij", "ij"}, 1, {{6, 7}}, {2}, "c:einsum"},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) check(&cs[i]);
}

/* What the parser refuses is not measured, with the reason. */
RF_TEST(einsum_refused)
{
    tg t = tg_new();
    uint32_t a = tens(&t, "a", RF_TENSOR_INPUT, D(3, 4));
    uint32_t y = tens(&t, "y", RF_TENSOR_OUTPUT, D(4, 3));
    uint32_t li = lay(&t, "Einsum", IN(a), y);
    rf_graph_set_attr_string(t.ctx, t.g, li, "equation", "ij->jk", 6);
    if (run(&t)) {
        RF_EXPECT_INT(t.p->layers[li].measured, 0);
        RF_EXPECT(strstr(t.p->layers[li].reason, "Einsum") != NULL);
    }
    tg_free(&t);
}
