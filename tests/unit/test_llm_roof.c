/* test_llm_roof.c — decode's roof measured with it (src/exec/llm_exec_roof.c, issue 28): after
 * each timed decode step the harness runs the same step's weight products alone. On a clock that
 * moves 0.7 s a read every step costs one tick (q/k/v or gate/up made as one job: one tick for
 * all), so the products pass must cost exactly the ticks of the decode step's products, no more
 * (it ran nothing else) and no fewer (it skipped none). */
#include <math.h>
#include <string.h>

#include "rf_fixtures.h"
#include "rf_test.h"
#include "roofline/roofline.h"

static double tick_clock(void *user)
{
    double *t = user;
    return *t += 0.7;
}

static const char *const products[] = {"attn_q",      "attn_k",   "attn_v", "attn_qkv",
                                       "attn_output", "ffn_gate", "ffn_up", "ffn_gate_up",
                                       "ffn_down",    "output"};

RF_TEST(llm_roof_products_pass_is_the_steps_products)
{
    double t = 0;
    rf_ctx *ctx = NULL;
    rf_llm_model *m = NULL;
    rf_exec_llm_result *r = NULL;
    rf_llm_opts po = {0}, dopt = {0};
    rf_exec_opts eo = {1, 1, 3, tick_clock, &t, 0};
    po.prompt = 4;
    dopt.phase = RF_LLM_DECODE;
    dopt.context = 8;
    RF_REQUIRE(rf_ctx_new(&ctx, NULL) == RF_OK);
    RF_REQUIRE(rf_llm_read_file(ctx, RF_FIXTURES_DIR "gguf/tiny_llama_mixed.gguf", &m) == RF_OK);
    RF_REQUIRE(rf_exec_llm_run(ctx, m, &po, &dopt, &eo, &r) == RF_OK);
    uint64_t n_prod = 0, n_all = 0, n_layer = rf_llm_hparams_get(m)->n_layer;
    for (size_t i = 0; i < r->n_kinds; i++) {
        n_all += r->kinds[i].decode_calls;
        for (size_t k = 0; k < sizeof products / sizeof *products; k++)
            if (strcmp(r->kinds[i].name, products[k]) == 0) n_prod += r->kinds[i].decode_calls;
        /* the kinds' counts are the decode step's, not the products pass's */
        if (strcmp(r->kinds[i].name, "attn_scores") == 0)
            RF_EXPECT_INT(r->kinds[i].decode_calls, n_layer);
    }
    RF_EXPECT(n_prod >= 4 * n_layer + 1 && n_prod < n_all);
    /* Every step but the products costs one tick; q/k/v and gate/up made as one job
     * (llm_exec_pass.c's rf__linear_n) cost one tick for two or three kinds, in the decode step and
     * in the products pass alike: the pass's product ticks equal the step's, between a third of the
     * calls and all. */
    double ticks = r->decode_products_s / 0.7;
    RF_EXPECT_NEAR(ticks, floor(ticks + 0.5), 1e-6);
    RF_EXPECT(ticks >= (double)n_prod / 3 - 1e-6 && ticks <= (double)n_prod + 1e-6);
    RF_EXPECT_NEAR(r->decode_s - r->decode_products_in_step_s, 0.7 * (double)(n_all - n_prod),
                   1e-6);
    RF_EXPECT_NEAR(r->decode_products_in_step_s, r->decode_products_s, 1e-6);
    RF_EXPECT_NEAR(r->decode_products_min_s, r->decode_products_s, 1e-6);
    RF_EXPECT_NEAR(r->decode_products_max_s, r->decode_products_s, 1e-6);
    RF_EXPECT_NEAR(r->decode_products_share, r->decode_products_s / r->decode_s, 1e-9);
    rf_exec_llm_result_free(r);
    rf_llm_free(m);
    rf_ctx_free(ctx);
}
