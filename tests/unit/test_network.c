/* test_network.c — the third roof (issue 15): rf_roof_eval_net by hand, the analysis' network
 * bound and totals, network ceilings in machine files, the interconnect database, net_bytes in
 * operations lists (CSV and JSON, bad values refused) and the result JSON read back. */
#include "rf_test.h"

#include <math.h>
#include <string.h>

#include <roofline/roofline.h>

static rf_ctx *ctx_new(void)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    return c;
}

/* 100 GFLOP/s, 10 GB/s memory, 1 GB/s network. 1 GFLOP, 100 MB, 500 MB over the network:
 * compute 10 ms, memory 10 ms, network 500 ms -> network-bound, 500 ms, attainable 1e9 / 0.5 =
 * 2 GFLOP/s = net AI 2 x 1 GB/s, efficiency 2%. */
RF_TEST(net_eval_by_hand)
{
    rf_ctx *c = ctx_new();
    rf_roof roof = {100e9, 10e9};
    rf_eval e;
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 1e9, 1e9, 1e8, 5e8, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_NETWORK);
    RF_EXPECT_NEAR(e.time_s, 0.5, 1e-15);
    RF_EXPECT_NEAR(e.net_ai, 2.0, 1e-15);
    RF_EXPECT_NEAR(e.attainable_flops_per_s, 2e9, 1e-15);
    RF_EXPECT_NEAR(e.efficiency, 0.02, 1e-15);
    RF_EXPECT_NEAR(e.ai, 10.0, 1e-15); /* the memory intensity is kept */
    /* 5 MB over the network: 5 ms, under the 10 ms tie of compute and memory -> compute (a tie
     * at the ridge is compute) with the network bytes still reported */
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 1e9, 1e9, 1e8, 5e6, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_COMPUTE);
    RF_EXPECT_NEAR(e.time_s, 0.01, 1e-15);
    RF_EXPECT_NEAR(e.net_bytes, 5e6, 1e-15);
    /* the same as rf_roof_eval with no network bytes and no network roof */
    rf_eval plain;
    RF_EXPECT_INT(rf_roof_eval(c, &roof, 1e6, 1e7, &plain), RF_OK);
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 0, 1e6, 1e7, 0, &e), RF_OK);
    RF_EXPECT_INT(e.bound, plain.bound);
    RF_EXPECT_DBL(e.time_s, plain.time_s);
    RF_EXPECT(isnan(e.net_ai));
    /* network bytes only (an allreduce with no FLOPs counted): network-bound, attainable 0 */
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 1e9, 0, 0, 1e9, &e), RF_OK);
    RF_EXPECT_INT(e.bound, RF_BOUND_NETWORK);
    RF_EXPECT_NEAR(e.time_s, 1.0, 1e-15);
    /* refusals: network bytes without a network roof, NaN, negative */
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 0, 1e9, 1e8, 1, &e), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "no network ceiling");
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 1e9, 1e9, 1e8, NAN, &e), RF_RANGE);
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, 1e9, 1e9, 1e8, -1, &e), RF_RANGE);
    RF_EXPECT_INT(rf_roof_eval_net(c, &roof, -1, 1e9, 1e8, 1, &e), RF_USAGE);
    RF_EXPECT_STR(rf_bound_name(RF_BOUND_NETWORK), "network");
    rf_ctx_free(c);
}

static rf_machine *machine_with_link(rf_ctx *c)
{
    rf_machine *m = NULL;
    if (rf_machine_simple(c, "t", 100e9, 10e9, RF_PROV_USER, "test", &m) != RF_OK) return NULL;
    const rf_interconnect *ic = NULL;
    if (rf_interconnect_find(c, "ib-hdr", &ic) != RF_OK ||
        rf_machine_add_interconnect(c, m, ic) != RF_OK) {
        rf_machine_free(m);
        return NULL;
    }
    return m;
}

/* Two rows on 100 GFLOP/s, 10 GB/s and ib-hdr's 25 GB/s: "gemm" 1 GFLOP, 10 MB, 1 MB net ->
 * compute 10 ms; "allreduce" 1 MFLOP, 4 MB, 250 MB net -> network 10 ms. Totals: 251 MB over
 * the network, one row per bound, 10 ms each. */
RF_TEST(net_analysis_totals)
{
    rf_ctx *c = ctx_new();
    rf_machine *m = machine_with_link(c);
    RF_REQUIRE(m != NULL);
    RF_EXPECT_INT(m->n_ceilings, 3);
    RF_EXPECT_INT(m->ceilings[2].kind, RF_CEILING_NETWORK);
    RF_EXPECT_DBL(m->ceilings[2].value, 25e9);
    RF_EXPECT_INT(m->default_bandwidth, 1); /* never the default bandwidth */
    rf_analysis *a = NULL;
    rf_result *r = NULL;
    RF_EXPECT_INT(rf_analysis_new(c, m, 0, 1, RF_SORT_INPUT, 0, &a), RF_OK);
    RF_EXPECT_INT(rf_analysis_set_network(a, m, 1), RF_USAGE); /* DRAM is not a network */
    RF_EXPECT_INT(rf_analysis_set_network(a, m, 2), RF_OK);
    RF_EXPECT_INT(rf_analysis_add_net(a, "gemm", 4, NULL, NULL, 0, 1e9, 1e7, 1e6, NULL), RF_OK);
    RF_EXPECT_INT(rf_analysis_add_net(a, "allreduce", 9, NULL, NULL, 0, 1e6, 4e6, 2.5e8, NULL),
                  RF_OK);
    RF_EXPECT_INT(rf_analysis_finish(a, "t", &r), RF_OK);
    RF_REQUIRE(r != NULL);
    RF_EXPECT_STR(r->network.name, "ib-hdr");
    RF_EXPECT_NEAR(r->totals.net_bytes, 2.51e8, 1e-15);
    RF_EXPECT_INT(r->totals.count_by_bound[RF_BOUND_COMPUTE], 1);
    RF_EXPECT_INT(r->totals.count_by_bound[RF_BOUND_NETWORK], 1);
    RF_EXPECT_NEAR(r->totals.time_by_bound_s[RF_BOUND_NETWORK], 0.01, 1e-12);
    RF_EXPECT_NEAR(r->totals.time_s, 0.02, 1e-12);
    /* the JSON carries the network and reads back to the same rows */
    rf_buf b;
    rf_buf_init(&b, c, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_report_json(c, r, &w), RF_OK);
    RF_EXPECT(b.data && strstr(b.data, "\"network\": {\"name\": \"ib-hdr\"") != NULL);
    rf_result *back = NULL;
    RF_EXPECT_INT(rf_result_parse_json(c, b.data, b.len, "mem", &back), RF_OK);
    RF_REQUIRE(back != NULL);
    RF_EXPECT_DBL(back->network.value, 25e9);
    RF_EXPECT_INT(back->rows[1].e.bound, RF_BOUND_NETWORK);
    RF_EXPECT_DBL(back->rows[1].e.net_bytes, 2.5e8);
    RF_EXPECT_INT(back->totals.count_by_bound[RF_BOUND_NETWORK], 1);
    rf_result_free(back);
    rf_buf_free(&b);
    rf_analysis_free(a);
    rf_result_free(r);
    /* without a network roof, a row with network bytes is refused and names the row */
    RF_EXPECT_INT(rf_analysis_new(c, m, 0, 1, RF_SORT_INPUT, 0, &a), RF_OK);
    RF_EXPECT_INT(rf_analysis_add_net(a, "ar", 2, NULL, NULL, 0, 1, 1, 1, NULL), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "operation 'ar'");
    rf_analysis_free(a);
    rf_machine_free(m);
    rf_ctx_free(c);
}

RF_TEST(net_machine_file_round_trip)
{
    rf_ctx *c = ctx_new();
    rf_machine *m = machine_with_link(c), *back = NULL;
    RF_REQUIRE(m != NULL);
    rf_buf b;
    rf_buf_init(&b, c, 0);
    rf_writer w = rf_buf_writer(&b);
    RF_EXPECT_INT(rf_machine_write_json(c, m, 0, &w), RF_OK);
    RF_EXPECT(b.data && strstr(b.data, "\"kind\": \"network\"") != NULL);
    RF_EXPECT_INT(rf_machine_parse_json(c, b.data, b.len, "mem", &back), RF_OK);
    RF_REQUIRE(back != NULL);
    long i = rf_machine_find(back, "ib-hdr");
    RF_EXPECT(i >= 0);
    if (i >= 0) {
        RF_EXPECT_INT(back->ceilings[i].kind, RF_CEILING_NETWORK);
        RF_EXPECT_DBL(back->ceilings[i].value, 25e9);
    }
    rf_machine_free(back);
    rf_buf_free(&b);
    /* a network ceiling cannot be a file's default bandwidth; a unit must be B/s */
    static const char bad[] =
        "{\"schema\": 1, \"name\": \"x\", \"default_bandwidth\": \"net\", \"ceilings\": ["
        "{\"name\": \"p\", \"kind\": \"compute\", \"value\": 1e12},"
        "{\"name\": \"net\", \"kind\": \"network\", \"value\": 1e10}]}";
    back = NULL;
    RF_EXPECT_INT(rf_machine_parse_json(c, bad, sizeof bad - 1, "mem", &back), RF_FORMAT);
    RF_EXPECT(back == NULL);
    static const char unit[] = "{\"schema\": 1, \"name\": \"x\", \"ceilings\": ["
                               "{\"name\": \"p\", \"kind\": \"compute\", \"value\": 1e12},"
                               "{\"name\": \"m\", \"kind\": \"bandwidth\", \"value\": 1e11},"
                               "{\"name\": \"net\", \"kind\": \"network\", \"value\": 1e10, "
                               "\"unit\": \"FLOP/s\"}]}";
    RF_EXPECT_INT(rf_machine_parse_json(c, unit, sizeof unit - 1, "mem", &back), RF_FORMAT);
    rf_machine_free(m);
    rf_ctx_free(c);
}

/* The database's links, per direction: NVLink 4 900 GB/s both ways = 450; IB NDR 400 Gb/s = 50
 * GB/s; PCIe 5.0 x16 32 GT/s x 16 x 128/130 / 8 = 63 GB/s. */
RF_TEST(net_interconnect_database)
{
    rf_ctx *c = ctx_new();
    const rf_interconnect *ic = NULL;
    RF_EXPECT_INT(rf_interconnect_find(c, "NVLink4", &ic), RF_OK);
    RF_EXPECT(ic && ic->bytes_per_s == 450e9 && ic->latency_s > 0);
    RF_EXPECT_INT(rf_interconnect_find(c, "ib-ndr", &ic), RF_OK);
    RF_EXPECT(ic && ic->bytes_per_s == 50e9);
    RF_EXPECT_INT(rf_interconnect_find(c, "pcie5-x16", &ic), RF_OK);
    RF_EXPECT(ic && fabs(ic->bytes_per_s - 32e9 * 16 * 128 / 130 / 8) < 0.01 * ic->bytes_per_s);
    RF_EXPECT_INT(rf_interconnect_find(c, "token-ring", &ic), RF_USAGE);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "nvlink3");
    const char *want[] = {"nvlink3", "nvlink4", "pcie4-x16", "pcie5-x16",
                          "ib-hdr",  "ib-ndr",  "eth-100g",  "eth-400g"};
    RF_EXPECT_INT(rf_interconnect_count(), 8);
    for (size_t i = 0; i < 8; i++) {
        const rf_interconnect *x = rf_interconnect_at(i);
        RF_EXPECT(x && strcmp(x->id, want[i]) == 0 && x->source[0] && x->note[0]);
    }
    RF_EXPECT(rf_interconnect_at(8) == NULL);
    rf_ctx_free(c);
}

typedef struct {
    double net[4];
    int n;
} rows_seen;

static rf_status on_row(void *user, const rf_op_row *row)
{
    rows_seen *s = user;
    if (s->n < 4) s->net[s->n++] = row->net_bytes;
    return RF_OK;
}

RF_TEST(net_bytes_in_operations_lists)
{
    rf_ctx *c = ctx_new();
    rows_seen s = {{0}, 0};
    static const char csv[] = "name,flops,bytes,net_bytes\na,1,2,3\nb,1,2,0\n";
    RF_EXPECT_INT(rf_ops_parse(c, csv, sizeof csv - 1, RF_OPS_CSV, on_row, &s), RF_OK);
    RF_EXPECT_INT(s.n, 2);
    RF_EXPECT_DBL(s.net[0], 3);
    RF_EXPECT_DBL(s.net[1], 0);
    static const char js[] = "[{\"name\": \"a\", \"flops\": 1, \"bytes\": 2, \"net_bytes\": 4e9}]";
    s.n = 0;
    RF_EXPECT_INT(rf_ops_parse(c, js, sizeof js - 1, RF_OPS_JSON, on_row, &s), RF_OK);
    RF_EXPECT_DBL(s.net[0], 4e9);
    static const char neg[] = "name,flops,bytes,net_bytes\na,1,2,-3\n";
    RF_EXPECT(rf_ops_parse(c, neg, sizeof neg - 1, RF_OPS_CSV, on_row, &s) != RF_OK);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "net_bytes");
    static const char nan_[] = "name,flops,bytes,net_bytes\na,1,2,nan\n";
    RF_EXPECT(rf_ops_parse(c, nan_, sizeof nan_ - 1, RF_OPS_CSV, on_row, &s) != RF_OK);
    static const char big[] =
        "[{\"name\": \"a\", \"flops\": 1, \"bytes\": 2, \"net_bytes\": 1e999}]";
    RF_EXPECT(rf_ops_parse(c, big, sizeof big - 1, RF_OPS_JSON, on_row, &s) != RF_OK);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "1e999");
    static const char str[] =
        "[{\"name\": \"a\", \"flops\": 1, \"bytes\": 2, \"net_bytes\": \"x\"}]";
    RF_EXPECT(rf_ops_parse(c, str, sizeof str - 1, RF_OPS_JSON, on_row, &s) != RF_OK);
    RF_EXPECT_CONTAINS(rf_ctx_errmsg(c), "net_bytes");
    rf_ctx_free(c);
}
