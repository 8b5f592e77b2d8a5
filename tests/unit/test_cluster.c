/* test_cluster.c — the arithmetic of `peaks --mpi` (src/hw/cluster.c), by hand: the spread of a
 * ceiling over nodes (median, slowest, flagged under 90% of the median), the aggregate (sums of
 * what every node has), nccl-tests' bus bandwidth, the network ceilings from the curves. */
#include "rf_test.h"

#include <math.h>
#include <string.h>

#include <roofline/roofline.h>

static rf_machine *node(rf_ctx *c, double flops, double dram, int with_l3)
{
    rf_machine *m = NULL;
    if (rf_machine_simple(c, "n", flops, dram, RF_PROV_MEASURED, "test", &m) != RF_OK) return NULL;
    if (with_l3) {
        rf_ceiling ce;
        memset(&ce, 0, sizeof ce);
        snprintf(ce.name, sizeof ce.name, "L3");
        ce.kind = RF_CEILING_BANDWIDTH;
        ce.value = 4 * dram;
        ce.capacity_bytes = 32 << 20;
        rf_machine_add(c, m, &ce);
    }
    return m;
}

/* Four nodes of 100, 98, 70 and 102 GFLOP/s (70 is the sick one), DRAM 10, 10, 10, 9 GB/s; only
 * three have an L3 figure. Median of the peaks (98 + 100) / 2 = 99; 70 / 99 = 0.707, flagged;
 * the aggregate sums 370 GFLOP/s and 39 GB/s, and leaves L3 out (not every node has it). */
RF_TEST(cluster_spread_and_aggregate)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    rf_cluster *cl = NULL;
    RF_REQUIRE(rf_cluster_new(c, &cl) == RF_OK);
    const double f[4] = {100e9, 98e9, 70e9, 102e9}, b[4] = {10e9, 10e9, 10e9, 9e9};
    const char *names[4] = {"a", "b", "sick", "d"};
    for (int i = 0; i < 4; i++) {
        rf_machine *m = node(c, f[i], b[i], i != 3);
        RF_REQUIRE(m != NULL);
        RF_EXPECT_INT(rf_cluster_add_node(c, cl, names[i], m), RF_OK);
        rf_machine_free(m);
    }
    cl->ranks = 8;
    RF_EXPECT_INT(rf_cluster_finish(c, cl), RF_OK);
    RF_REQUIRE(cl->n_spread == 3);
    const rf_cluster_spread *peak = &cl->spread[0], *mem = &cl->spread[1], *l3 = &cl->spread[2];
    RF_EXPECT_STR(peak->name, "peak");
    RF_EXPECT_DBL(peak->median, 99e9);
    RF_EXPECT_DBL(peak->min, 70e9);
    RF_EXPECT_INT(peak->slowest, 2);
    RF_EXPECT_NEAR(peak->slowest_ratio, 70.0 / 99.0, 1e-15);
    RF_EXPECT_INT(peak->n_slow, 1);
    RF_EXPECT_DBL(mem->median, 10e9);
    RF_EXPECT_INT(mem->n_slow, 0); /* 9 / 10 = 0.9: not under 0.9 */
    RF_EXPECT_INT(l3->n, 3);
    const rf_machine *ag = cl->aggregate;
    RF_EXPECT_DBL(ag->ceilings[rf_machine_find(ag, "peak")].value, 370e9);
    RF_EXPECT_DBL(ag->ceilings[rf_machine_find(ag, "memory")].value, 39e9);
    RF_EXPECT(rf_machine_find(ag, "L3") < 0);
    RF_EXPECT_STR(ag->ceilings[ag->default_compute].name, "peak");
    RF_EXPECT_STR(ag->ceilings[ag->default_bandwidth].name, "memory");
    rf_cluster_free(cl);
    rf_ctx_free(c);
}

/* nccl-tests: 64 MiB in 10 ms over 8 ranks: algbw 6.71 GB/s, busbw x 2 x 7 / 8 = 11.74 GB/s.
 * Ping-pong: 8 B in 1 us (8 MB/s), 1 MiB in 100 us (10.5 GB/s), 64 MiB in 7 ms (9.59 GB/s): the
 * ceiling is the best rate, 10.49 GB/s, its note the small message's latency. */
RF_TEST(cluster_network_ceilings)
{
    rf_ctx *c = NULL;
    rf_ctx_new(&c, NULL);
    const double mib = 1048576;
    RF_EXPECT_NEAR(rf_allreduce_busbw(64 * mib, 0.01, 8), 64 * mib / 0.01 * 2 * 7 / 8, 1e-15);
    RF_EXPECT_DBL(rf_allreduce_busbw(64 * mib, 0.01, 1), 0);
    rf_cluster *cl = NULL;
    RF_REQUIRE(rf_cluster_new(c, &cl) == RF_OK);
    rf_machine *m = node(c, 1e12, 1e11, 0);
    RF_REQUIRE(m && rf_cluster_add_node(c, cl, "a", m) == RF_OK);
    rf_machine_free(m);
    const double pb[3] = {8, mib, 64 * mib}, ps[3] = {1e-6, 100e-6, 7e-3};
    RF_EXPECT_INT(rf_cluster_set_pingpong(c, cl, 0, pb, ps, 3), RF_OK);
    const double ab[2] = {mib, 64 * mib}, as[2] = {1e-3, 0.01};
    RF_EXPECT_INT(rf_cluster_set_allreduce(c, cl, 8, ab, as, 2), RF_OK);
    RF_EXPECT_INT(rf_cluster_finish(c, cl), RF_OK);
    const rf_machine *ag = cl->aggregate;
    long p = rf_machine_find(ag, "net.p2p.intra"), a = rf_machine_find(ag, "net.allreduce.busbw");
    RF_REQUIRE(p >= 0 && a >= 0);
    RF_EXPECT_INT(ag->ceilings[p].kind, RF_CEILING_NETWORK);
    RF_EXPECT_NEAR(ag->ceilings[p].value, mib / 100e-6, 1e-15);
    RF_EXPECT_CONTAINS(ag->ceilings[p].note, "1 us for 8 B");
    RF_EXPECT_NEAR(ag->ceilings[a].value, 64 * mib / 0.01 * 2 * 7 / 8, 1e-15);
    RF_EXPECT(rf_machine_find(ag, "net.p2p.inter") < 0); /* not measured: no ceiling */
    /* bad curves */
    const double bad[1] = {NAN};
    RF_EXPECT_INT(rf_cluster_set_pingpong(c, cl, 1, pb, bad, 1), RF_RANGE);
    RF_EXPECT_INT(rf_cluster_set_allreduce(c, cl, 1, ab, as, 2), RF_USAGE);
    rf_cluster_free(cl);
    rf_ctx_free(c);
}
