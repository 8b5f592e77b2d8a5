/* roofline/cluster.h — many machines measured as one allocation (`roofline peaks --mpi`): each
 * node's ceilings, the spread per ceiling (the slowest node against the median: a sick node
 * stands out), the aggregate ceilings of the whole allocation, and the network ceilings measured
 * between the ranks (ping-pong, allreduce bus bandwidth). Pure arithmetic on figures the caller
 * gathered: nothing here measures, knows MPI or prints. */
#ifndef ROOFLINE_CLUSTER_H
#define ROOFLINE_CLUSTER_H

#include <stddef.h>

#include "export.h"
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A node under this share of a ceiling's median is flagged slow. */
#define RF_CLUSTER_SLOW 0.9

/** One ceiling across the nodes that have it. */
typedef struct rf_cluster_spread {
    char name[RF_NAME_MAX];
    rf_ceiling_kind kind;
    size_t n; /**< nodes that have it */
    double median, min, max;
    size_t slowest;       /**< index of the node with the lowest figure */
    double slowest_ratio; /**< min / median */
    size_t n_slow;        /**< nodes under RF_CLUSTER_SLOW x median */
} rf_cluster_spread;

/** A ping-pong or allreduce curve: message sizes and times. */
typedef struct rf_cluster_curve {
    double bytes[32];
    double seconds[32]; /**< ping-pong: half the round trip; allreduce: one allreduce */
    double rate[32];    /**< B/s: bytes / seconds, or the bus bandwidth for an allreduce */
    size_t n;
} rf_cluster_curve;

typedef struct rf_cluster {
    size_t n_nodes;
    char (*names)[RF_NAME_MAX]; /**< each node's name ("host", "host:socket1") */
    rf_machine **nodes;         /**< each node's machine; owned */
    rf_cluster_spread *spread;  /**< one per ceiling of the first node; rf_cluster_finish */
    size_t n_spread;
    rf_machine *aggregate; /**< the allocation: compute and bandwidth ceilings every node has,
                                summed; the network ceilings measured; owned */
    unsigned ranks;        /**< MPI ranks of the run */
    rf_cluster_curve p2p_intra, p2p_inter, allreduce; /**< n = 0 when not measured */
    rf_allocator alloc_;                              /**< private */
    size_t cap_;                                      /**< private */
} rf_cluster;

/** An empty cluster. *out owned by the caller (rf_cluster_free). */
RF_API rf_status rf_cluster_new(rf_ctx *ctx, rf_cluster **out);

/** Add a node: a copy of `m` under `name`. */
RF_API rf_status rf_cluster_add_node(rf_ctx *ctx, rf_cluster *c, const char *name,
                                     const rf_machine *m);

/** Record a ping-pong curve between two ranks on one node (`inter` 0) or on two (`inter` 1):
 *  message sizes and half round trips. The ceiling net.p2p.intra / net.p2p.inter is the highest
 *  rate (bytes / half round trip) of the curve; its note gives the latency: the half round trip of
 *  the smallest message. RF_RANGE for sizes or times that are not finite and positive. */
RF_API rf_status rf_cluster_set_pingpong(rf_ctx *ctx, rf_cluster *c, int inter, const double *bytes,
                                         const double *half_rtt_s, size_t n);

/** Record an allreduce curve over `ranks` ranks: message sizes and times of one allreduce. The
 *  rate is the bus bandwidth as nccl-tests define it, algbw x 2(n-1)/n with algbw = bytes /
 *  time; the ceiling net.allreduce.busbw is the highest. */
RF_API rf_status rf_cluster_set_allreduce(rf_ctx *ctx, rf_cluster *c, unsigned ranks,
                                          const double *bytes, const double *seconds, size_t n);

/** Bus bandwidth of an allreduce of `bytes` in `seconds` over `ranks` ranks (nccl-tests:
 *  busbw = algbw x 2(ranks-1)/ranks). 0 for one rank. */
RF_API double rf_allreduce_busbw(double bytes, double seconds, unsigned ranks);

/** Compute the spread and the aggregate machine from the nodes (and the network curves recorded
 *  so far; call again after recording more). */
RF_API rf_status rf_cluster_finish(rf_ctx *ctx, rf_cluster *c);

/** Release. Accepts NULL. */
RF_API void rf_cluster_free(rf_cluster *c);

#ifdef __cplusplus
}
#endif
#endif
