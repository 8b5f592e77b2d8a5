/* cluster_report.c — `roofline peaks --mpi` as text: one row per ceiling with each node's figure
 * (up to four nodes side by side), the spread (the slowest node against the median, flagged under
 * RF_CLUSTER_SLOW of it), the aggregate of the allocation, then the network curves and ceilings.
 * Renders an rf_cluster only; src/hw/cluster.c computes it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/rf_int.h"
#include "report_int.h"
#include "roofline/cluster.h"
#include "roofline/report.h"

#define RF__CL_COLS 4 /* nodes shown side by side; more: the spread only */

static const char *rf__unit(rf_ceiling_kind k)
{
    return k == RF_CEILING_COMPUTE ? "FLOP/s" : "B/s";
}

static rf_status rf__curve_rows(rf_writer *w, const char *what, const rf_cluster_curve *cv,
                                const char *rate_name)
{
    char b[32], t[32], r[32];
    if (!cv->n) return rf_writef(w, "  %s: not measured\n", what);
    RF_TRY(rf_writef(w, "  %s:\n   %10s %12s %12s\n", what, "message", "time", rate_name));
    for (size_t i = 0; i < cv->n; i++)
        RF_TRY(rf_writef(w, "   %10s %12s %12s\n",
                         rf_bytes_format_iec(b, sizeof b, cv->bytes[i], 3),
                         rf_time_format(t, sizeof t, cv->seconds[i], 3),
                         rf_si_format(r, sizeof r, cv->rate[i], 3, "B/s")));
    return RF_OK;
}

rf_status rf_report_cluster(rf_ctx *ctx, const rf_cluster *c, const rf_report_opts *o, rf_writer *w)
{
    (void)o;
    RF_CHECK(ctx, c && c->aggregate, RF_USAGE, "rf_report_cluster: an unfinished cluster");
    rf_writer rf__cw = rf__clean_writer(w);
    w = &rf__cw;
    char v[32];
    size_t shown = c->n_nodes <= RF__CL_COLS ? c->n_nodes : 0;
    RF_TRY(rf_writef(w, "cluster: %zu node%s measured, %u MPI rank%s\n\n", c->n_nodes,
                     c->n_nodes == 1 ? "" : "s", c->ranks, c->ranks == 1 ? "" : "s"));
    RF_TRY(rf_writef(w, "%-18s", "ceiling"));
    for (size_t i = 0; i < shown; i++) RF_TRY(rf_writef(w, " %14.14s", c->names[i]));
    RF_TRY(rf_writef(w, " %12s %12s  %-22s %s\n", "median", "min/median", "slowest", "aggregate"));
    for (size_t k = 0; k < c->n_spread; k++) {
        const rf_cluster_spread *s = &c->spread[k];
        RF_TRY(rf_writef(w, "%-18.18s", s->name));
        for (size_t i = 0; i < shown; i++) {
            long j = rf_machine_find(c->nodes[i], s->name);
            RF_TRY(rf_writef(
                w, " %14s",
                j < 0 ? "-"
                      : rf_si_format_compact(v, sizeof v, c->nodes[i]->ceilings[j].value, "")));
        }
        char slow[64];
        snprintf(slow, sizeof slow, "%.20s%s", c->names[s->slowest], s->n_slow ? " (slow)" : "");
        long a = rf_machine_find(c->aggregate, s->name);
        char agg[40] = "-";
        if (a >= 0)
            rf_si_format(agg, sizeof agg, c->aggregate->ceilings[a].value, 3, rf__unit(s->kind));
        RF_TRY(rf_writef(w, " %12s %11.2fx  %-22s %s\n",
                         rf_si_format_compact(v, sizeof v, s->median, ""), s->slowest_ratio, slow,
                         agg));
    }
    size_t slow = 0;
    for (size_t k = 0; k < c->n_spread; k++) slow += c->spread[k].n_slow > 0;
    RF_TRY(rf_writef(w,
                     "\nspread: the slowest node's figure over the median per ceiling; a node "
                     "under %.0f%% of\nthe median is flagged slow (%zu ceiling%s with one). "
                     "aggregate: the sum over the nodes\nof every ceiling all of them have (the "
                     "allocation's compute and bandwidth).\n",
                     100 * RF_CLUSTER_SLOW, slow, slow == 1 ? "" : "s"));
    RF_TRY(RF_WRITE_LIT(w, "\nnetwork (MPI, median of repetitions per message size)\n"));
    RF_TRY(rf__curve_rows(w, "ping-pong within a node (rank to rank, half the round trip)",
                          &c->p2p_intra, "B/s"));
    if (c->p2p_inter.n || c->n_nodes > 1)
        RF_TRY(rf__curve_rows(w, "ping-pong across nodes", &c->p2p_inter, "B/s"));
    else
        RF_TRY(RF_WRITE_LIT(w, "  ping-pong across nodes: not measured, every rank is on one "
                               "node\n"));
    RF_TRY(rf__curve_rows(w, "allreduce over every rank (bus bandwidth, nccl-tests' busbw)",
                          &c->allreduce, "busbw"));
    RF_TRY(RF_WRITE_LIT(w, "\nnetwork ceilings (kind network; --json writes them into the "
                           "machine file)\n"));
    for (size_t k = 0; k < c->aggregate->n_ceilings; k++) {
        const rf_ceiling *ce = &c->aggregate->ceilings[k];
        if (ce->kind != RF_CEILING_NETWORK) continue;
        RF_TRY(rf_writef(w, "  %-20s %12s  %s\n", ce->name,
                         rf_si_format(v, sizeof v, ce->value, 3, "B/s"), ce->note));
    }
    return RF_OK;
}
