/* test_onnx_ext.c — the ops beyond the common set (src/graph/rules_*.c) on models made by
 * tests/data/onnx/gen_ops.py, every costed layer's FLOPs against the reference counted there
 * independently (NAME.ref.json: hand rules written out in the generator; the recurrent model
 * exported by torch.onnx): Einsum equations, an ONNX-Runtime-optimized transformer block
 * (com.microsoft contrib ops), a QDQ / QLinear / Integer quantized CNN (integer output types),
 * LSTM and GRU. No layer of these models may stay undefined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roofline/roofline.h>

#include "rf_test.h"

/* The reference FLOPs of layer `name` in the JSON text (-1 when it is not listed). */
static double ref_of(const char *json, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, "\"%s\": ", name);
    const char *p = strstr(json, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

static void check_model(const char *stem, int want_refs)
{
    char path[512], refp[512];
    snprintf(path, sizeof path, "%s/tests/data/onnx/%s.onnx", RF_SOURCE_DIR, stem);
    snprintf(refp, sizeof refp, "%s/tests/data/onnx/%s.ref.json", RF_SOURCE_DIR, stem);
    char *ref = rf_test_slurp(refp);
    RF_EXPECT(ref != NULL);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    rf_status st = rf_model_load(ctx, path, NULL, &g);
    RF_EXPECT_INT(st, RF_OK);
    if (st == RF_OK) st = rf_graph_cost(ctx, g, &c);
    RF_EXPECT_INT(st, RF_OK);
    int matched = 0;
    for (uint32_t i = 0; c && ref && i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        if (!c->layers[i].known)
            RF_FAIL_AT("%s: layer '%s' (%s) undefined: %s", stem, l->name, l->op_type,
                       c->layers[i].reason);
        double want = ref_of(ref, l->name);
        if (want < 0) continue;
        matched++;
        if (c->layers[i].flops != want)
            RF_FAIL_AT("%s: layer '%s' (%s): %.17g FLOPs, the reference %.17g", stem, l->name,
                       l->op_type, c->layers[i].flops, want);
    }
    RF_EXPECT(matched >= want_refs);
    if (c) RF_EXPECT_INT(c->n_unknown, 0);
    rf_cost_free(c);
    rf_graph_free(g);
    rf_ctx_free(ctx);
    free(ref);
}

RF_TEST(einsum_equations)
{
    check_model("einsum", 7);
}

RF_TEST(ort_contrib_transformer)
{
    check_model("ort_transformer", 16);
}

RF_TEST(quantized_cnn)
{
    check_model("quantized", 10);
}

RF_TEST(recurrent_lstm_gru)
{
    check_model("recurrent", 2);
}

/* TopK, ArgMax, CumSum, GatherElements, ScatterElements (none and add), ScatterND, GatherND and
 * Range as torch.onnx (and TF) export them;
 * TopK's indices are int64, so its bytes are those of the exported model. */
RF_TEST(selection_scans_scatters)
{
    check_model("selection", 10);
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/onnx/selection.onnx", RF_SOURCE_DIR);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    RF_EXPECT_INT(rf_model_load(ctx, path, NULL, &g), RF_OK);
    if (g) RF_EXPECT_INT(rf_graph_cost(ctx, g, &c), RF_OK);
    int seen = 0;
    for (uint32_t i = 0; c && i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        if (strcmp(l->op_type, "TopK")) continue;
        seen = 1;
        const rf_tensor *v = &g->tensors[l->outputs[0]], *ix = &g->tensors[l->outputs[1]];
        RF_EXPECT_INT(ix->dtype, RF_DTYPE_I64);
        RF_EXPECT_INT(v->rank, 3);
        if (v->rank == 3) RF_EXPECT_INT(v->dims[1], 5);
        /* x 2x50x8 f32 + K (int64) + values 2x5x8 f32 + indices 2x5x8 int64 */
        RF_EXPECT_DBL(c->layers[i].bytes, 3200 + 8 + 320 + 640);
    }
    RF_EXPECT(seen);
    rf_cost_free(c);
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

/* The rest of the standard ops (trigonometry, Round, Sign, LRN, MVN, LpNormalization, the other
 * reductions, CastLike, Trilu, OneHot, the generators): none undefined, every count by hand. */
RF_TEST(more_standard_ops)
{
    check_model("more_ops", 30);
}

/* Integer output types reach the bytes: MatMulInteger writes int32, QuantizeLinear uint8. */
RF_TEST(integer_output_types)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/onnx/quantized.onnx", RF_SOURCE_DIR);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_graph *g = NULL;
    RF_EXPECT_INT(rf_model_load(ctx, path, NULL, &g), RF_OK);
    for (uint32_t i = 0; g && i < g->n_layers; i++) {
        const rf_layer *l = &g->layers[i];
        rf_dtype dt = g->tensors[l->outputs[0]].dtype;
        if (!strcmp(l->name, "matmul_integer") || !strcmp(l->name, "conv_integer"))
            RF_EXPECT_INT(dt, RF_DTYPE_I32);
        if (!strcmp(l->name, "quant_in") || !strcmp(l->name, "dynamic_quant"))
            RF_EXPECT_INT(dt, RF_DTYPE_U8);
        if (!strcmp(l->name, "dequant_in")) RF_EXPECT_INT(dt, RF_DTYPE_F32);
    }
    rf_graph_free(g);
    rf_ctx_free(ctx);
}

/* Hostile equations are refused as undefined, never read out of bounds. */
RF_TEST(einsum_hostile_equations)
{
    static const char *const eqs[] = {"",
                                      "->",
                                      "ij,jk->ii",
                                      "ij,,jk",
                                      "i.j->i",
                                      "ij->k",
                                      "....,ij->ij",
                                      "ij,jk->ikk",
                                      "abcdefghijklmnop->a",
                                      "ij->",
                                      "ij,jk,kl,lm,mn,no,op,pq,qr->ir"};
    for (size_t k = 0; k < sizeof eqs / sizeof *eqs; k++) {
        rf_ctx *ctx;
        rf_ctx_new(&ctx, NULL);
        rf_op_input in[2] = {{RF_DTYPE_F32, 2, (const int64_t[]){3, 4}, 0, NULL, 0},
                             {RF_DTYPE_F32, 2, (const int64_t[]){4, 5}, 0, NULL, 0}};
        rf_attr a;
        memset(&a, 0, sizeof a);
        a.name = "equation";
        a.type = RF_ATTR_STRING;
        a.s = eqs[k];
        rf_layer_cost c;
        rf_status st = rf_op_cost(ctx, "Einsum", in, 2, &a, 1, &c, NULL, NULL);
        RF_EXPECT(st == RF_OK || st == RF_RANGE);
        rf_ctx_free(ctx);
    }
}

/* A ViT exported with a dynamic batch (gen_vit.py): the class token's Expand shape comes from
 * Shape/Gather/Unsqueeze/Concat/Reshape/ConstantOfShape/Mul/Equal/Where; every layer must be
 * costed and the matrix FLOPs match the hand count (vit.ref.json), at batch 1 (the symbolic batch
 * taken as 1) and at --batch 4. */
RF_TEST(vit_class_token_shape_arithmetic)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/onnx/vit.onnx", RF_SOURCE_DIR);
    for (uint64_t batch = 1; batch <= 4; batch += 3) {
        rf_ctx *ctx;
        rf_ctx_new(&ctx, NULL);
        rf_model_opts o;
        memset(&o, 0, sizeof o);
        o.batch = batch == 1 ? 0 : batch;
        rf_graph *g = NULL;
        rf_cost *c = NULL;
        RF_EXPECT_INT(rf_model_load(ctx, path, &o, &g), RF_OK);
        if (g) RF_EXPECT_INT(rf_graph_cost(ctx, g, &c), RF_OK);
        if (c) {
            RF_EXPECT_INT(c->n_unknown, 0);
            RF_EXPECT_DBL(c->matmul_conv_flops, 828288.0 * (double)batch);
        }
        rf_cost_free(c);
        rf_graph_free(g);
        rf_ctx_free(ctx);
    }
}

/* Control flow (gen_control.py, totals by hand in control.ref.json): If on a constant takes its
 * branch; on an input both are costed and the larger counted; Loop and Scan bodies repeat by the
 * trip count (Loop's constant M, Scan's sequence), an unknown one once or by --trips. */
static double control_flops(const char *stem, const char *trips, int *then_only)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/onnx/%s.onnx", RF_SOURCE_DIR, stem);
    rf_ctx *ctx;
    rf_ctx_new(&ctx, NULL);
    rf_model_opts o;
    memset(&o, 0, sizeof o);
    o.trips = trips;
    rf_graph *g = NULL;
    rf_cost *c = NULL;
    double f = -1;
    if (rf_model_load(ctx, path, &o, &g) == RF_OK && rf_graph_cost(ctx, g, &c) == RF_OK) {
        f = c->flops;
        RF_EXPECT_INT(c->n_unknown, 0);
        if (then_only) {
            *then_only = 1;
            for (uint32_t i = 0; i < g->n_layers; i++)
                if (strstr(g->layers[i].name, "/else/")) *then_only = 0;
        }
    } else {
        RF_FAIL_AT("%s: %s", stem, rf_ctx_errmsg(ctx));
    }
    rf_cost_free(c);
    rf_graph_free(g);
    rf_ctx_free(ctx);
    return f;
}

RF_TEST(control_flow_if_loop_scan)
{
    char refp[512];
    snprintf(refp, sizeof refp, "%s/tests/data/onnx/control.ref.json", RF_SOURCE_DIR);
    char *ref = rf_test_slurp(refp);
    RF_REQUIRE(ref != NULL);
    static const char *const stems[] = {"if_known",   "if_unknown",   "vad_if",
                                        "loop_const", "loop_unknown", "scan"};
    for (size_t i = 0; i < sizeof stems / sizeof *stems; i++) {
        int then_only = 0;
        double f = control_flops(stems[i], NULL, &then_only);
        if (f != ref_of(ref, stems[i]))
            RF_FAIL_AT("%s: %.17g FLOPs, the reference %.17g", stems[i], f, ref_of(ref, stems[i]));
        if (!strcmp(stems[i], "if_known")) RF_EXPECT(then_only); /* the else branch not inlined */
        if (!strcmp(stems[i], "if_unknown")) RF_EXPECT(!then_only); /* both, one counted */
    }
    RF_EXPECT_DBL(control_flops("loop_unknown", "loop=7", NULL),
                  ref_of(ref, "loop_unknown_trips7"));
    free(ref);
}
