/* peaks_mpi.c — `roofline peaks --mpi` under mpirun (built only when CMake finds MPI): one rank per
 * node (or per socket) measures its ceilings with the library's probe while the others sleep; rank
 * 0 gathers the machines as machine-file JSON, then times ping-pong within a node and across nodes
 * and an allreduce over every rank, and prints the cluster (rf_cluster, src/hw/cluster.c renders
 * the figures) or, with --json, the aggregate machine file with its network ceilings. The MPI
 * calls live here only: the library never links MPI. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET: widening a rank mpirun bound to one core */
#include <dirent.h>
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../cli.h"

#define CLI_NAME_LEN 64
#define CLI_PP_MAX ((size_t)64 << 20) /* the largest ping-pong message */
#define CLI_AR_MAX ((size_t)64 << 20) /* the largest allreduce message */

/* Wait for every rank of `comm` without spinning: a spinning rank takes the CPU the measuring
 * rank of its node is timing. */
static void cli_mpi_sleep_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(comm, &rq);
    struct timespec ts = {0, 1000000};
    while (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) nanosleep(&ts, NULL);
}

/* Set the affinity of every thread of this process (OpenBLAS and OpenMP start theirs when they
 * load, so the calling thread's alone is not enough); best effort. */
static void cli_mpi_affinity_all(const cpu_set_t *set)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    if (!d) {
        (void)sched_setaffinity(0, sizeof *set, set);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && tid > 0)
            (void)sched_setaffinity((pid_t)tid, sizeof *set, set);
    }
    closedir(d);
}

/* mpirun binds each rank to one core by default, and a rank bound to one core measures one core.
 * The rank that measures a whole node widens its process to every CPU (the kernel keeps it inside
 * its cpuset) and says so; `before` is kept to restore the binding for the network probes. Returns
 * the CPUs it had before (0 when unknown); *after gets the CPUs it has now. */
static int cli_mpi_widen(cpu_set_t *before, int *after)
{
    *after = 0;
    if (sched_getaffinity(0, sizeof *before, before) != 0) return 0;
    int had = CPU_COUNT(before);
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (long c = 0; c < conf && c < CPU_SETSIZE; c++) CPU_SET((int)c, &all);
    cli_mpi_affinity_all(&all);
    cpu_set_t now;
    *after = sched_getaffinity(0, sizeof now, &now) == 0 ? CPU_COUNT(&now) : had;
    return had;
}

/* The package (socket) of the CPU this rank runs on, from sysfs; 0 when unknown. */
static int cli_mpi_socket(void)
{
    int cpu = -1;
    FILE *f = fopen("/proc/self/stat", "r");
    if (f) {
        char buf[1024];
        if (fgets(buf, sizeof buf, f)) {
            char *p = strrchr(buf, ')');
            for (int field = 2; p && field < 39; field++) p = strchr(p + 1, ' ');
            if (p) cpu = (int)strtol(p + 1, NULL, 10);
        }
        fclose(f);
    }
    if (cpu < 0) return 0;
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    int pkg = 0;
    f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%d", &pkg) != 1) pkg = 0;
        fclose(f);
    }
    return pkg;
}

static int cli_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Half the round trip of `bytes` between ranks a and b (the median of 5 batches); every rank of
 * the world calls it, the others only pass. */
static double cli_mpi_pingpong(int me, int a, int b, char *buf, size_t bytes)
{
    int iters = bytes <= 4096 ? 1000 : bytes <= (1 << 20) ? 50 : 5;
    double t[5];
    for (int r = 0; r < 5; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters && (me == a || me == b); i++) {
            if (me == a) {
                MPI_Send(buf, (int)bytes, MPI_CHAR, b, 7, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_CHAR, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)bytes, MPI_CHAR, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_CHAR, a, 7, MPI_COMM_WORLD);
            }
        }
        t[r] = (MPI_Wtime() - t0) / iters / 2;
    }
    qsort(t, 5, sizeof *t, cli_cmp_double);
    return t[2];
}

/* One allreduce of `bytes` of floats over every rank: the median of 5. */
static double cli_mpi_allreduce(float *in, float *out, size_t bytes)
{
    double t[5];
    for (int r = 0; r < 5; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, (int)(bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        t[r] = MPI_Wtime() - t0;
    }
    qsort(t, 5, sizeof *t, cli_cmp_double);
    return t[2];
}

/* The lowest rank other than 0 whose host is (same) or is not (!same) rank 0's, or -1. */
static int cli_mpi_partner(const char (*hosts)[CLI_NAME_LEN], int n, int same)
{
    for (int r = 1; r < n; r++)
        if ((strcmp(hosts[r], hosts[0]) == 0) == same) return r;
    return -1;
}

typedef struct cli_mpi_net {
    double pp_bytes[2][16], pp_s[2][16], ar_bytes[8], ar_s[8];
    size_t n_pp[2], n_ar;
} cli_mpi_net;

/* Ping-pong within a node and across nodes (rank 0 with its partners), then the allreduces. */
static int cli_mpi_network(int me, int n, const char (*hosts)[CLI_NAME_LEN], cli_mpi_net *net)
{
    char *buf = calloc(1, CLI_PP_MAX);
    float *in = calloc(1, CLI_AR_MAX), *out = calloc(1, CLI_AR_MAX);
    int ok = buf && in && out, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    memset(net, 0, sizeof *net);
    if (all_ok) {
        for (int inter = 0; inter < 2; inter++) {
            int p = cli_mpi_partner(hosts, n, !inter);
            if (p < 0) continue;
            if (me == 0)
                fprintf(stderr, "roofline: peaks --mpi: ping-pong rank 0 <-> %d (%s)\n", p,
                        inter ? "across nodes" : "within a node");
            for (size_t b = 8; b <= CLI_PP_MAX; b *= 4) {
                double s = cli_mpi_pingpong(me, 0, p, buf, b);
                net->pp_bytes[inter][net->n_pp[inter]] = (double)b;
                net->pp_s[inter][net->n_pp[inter]++] = s;
                if (b * 4 > CLI_PP_MAX && b != CLI_PP_MAX) b = CLI_PP_MAX / 4; /* end on 64 MiB */
            }
        }
        if (n > 1) {
            if (me == 0) fprintf(stderr, "roofline: peaks --mpi: allreduce over %d ranks\n", n);
            for (size_t b = (size_t)1 << 20; b <= CLI_AR_MAX; b *= 8) {
                net->ar_bytes[net->n_ar] = (double)b;
                net->ar_s[net->n_ar++] = cli_mpi_allreduce(in, out, b);
            }
        }
    }
    free(buf);
    free(in);
    free(out);
    return all_ok;
}

int cli_peaks_mpi(const cli_cmd *cmd, const rf_probe_opts *po, int per_socket, int json)
{
    (void)cmd;
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init(NULL, NULL);
    int me = 0, n = 1, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    /* who measures: the first rank of each node, or of each (node, socket) */
    MPI_Comm node, group;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    int sock = per_socket ? cli_mpi_socket() : 0, grank = 0;
    MPI_Comm_split(node, sock, me, &group);
    MPI_Comm_rank(group, &grank);
    int measures = grank == 0;
    char name[CLI_NAME_LEN];
    if (per_socket)
        snprintf(name, sizeof name, "%.40s:socket%d", host, sock);
    else
        snprintf(name, sizeof name, "%.60s", host);
    char(*hosts)[CLI_NAME_LEN] = calloc((size_t)n, CLI_NAME_LEN);
    char(*names)[CLI_NAME_LEN] = calloc((size_t)n, CLI_NAME_LEN);
    char hostname[CLI_NAME_LEN];
    snprintf(hostname, sizeof hostname, "%.60s", host);
    MPI_Allgather(hostname, CLI_NAME_LEN, MPI_CHAR, hosts, CLI_NAME_LEN, MPI_CHAR, MPI_COMM_WORLD);
    MPI_Gather(name, CLI_NAME_LEN, MPI_CHAR, names, CLI_NAME_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* each measuring rank measures, at the same time as the others */
    rf_ctx *ctx = cli_ctx();
    rf_buf doc;
    rf_status st = ctx ? RF_OK : RF_NOMEM;
    if (ctx) rf_buf_init(&doc, ctx, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (measures && ctx) {
        rf_probe_report *r = NULL;
        cpu_set_t bound;
        int had = 0, now = 0;
        if (!per_socket) had = cli_mpi_widen(&bound, &now);
        if (had && now > had)
            fprintf(stderr,
                    "roofline: peaks --mpi: rank %d (%s) was bound to %d CPU%s (mpirun's default "
                    "binding); it measures the node on all %d it may use, and is bound again "
                    "after\n",
                    me, name, had, had == 1 ? "" : "s", now);
        if (me == 0) cli_progress(ctx, 1);
        st = rf_probe_run(ctx, po, &r);
        if (had && now > had) cli_mpi_affinity_all(&bound);
        if (st == RF_OK) {
            snprintf(r->machine->name, sizeof r->machine->name, "%s", name);
            rf_writer w = rf_buf_writer(&doc);
            st = rf_machine_write_json(ctx, r->machine, 0, &w);
        }
        if (st != RF_OK)
            fprintf(stderr, "roofline: rank %d (%s): %s\n", me, name, rf_ctx_errmsg(ctx));
        rf_probe_report_free(r);
        if (me == 0) cli_progress(ctx, 0);
    }
    cli_mpi_sleep_barrier(MPI_COMM_WORLD);
    int mine = st == RF_OK && measures ? (int)doc.len : 0, bad = st != RF_OK, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    int *lens = me == 0 ? calloc((size_t)n, sizeof *lens) : NULL;
    int *offs = me == 0 ? calloc((size_t)n, sizeof *offs) : NULL;
    MPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    long total = 0;
    for (int r = 0; me == 0 && r < n; r++) offs[r] = (int)total, total += lens[r];
    char *all = me == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(mine ? doc.data : NULL, mine, MPI_CHAR, all, lens, offs, MPI_CHAR, 0,
                MPI_COMM_WORLD);
    cli_mpi_net net;
    int net_ok = cli_mpi_network(me, n, (const char(*)[CLI_NAME_LEN])hosts, &net);

    int rc = EXIT_OK;
    if (me == 0) {
        rf_cluster *c = NULL;
        rf_status s = any_bad ? RF_IO : ctx ? rf_cluster_new(ctx, &c) : RF_NOMEM;
        if (any_bad)
            fprintf(stderr, "roofline: peaks --mpi: a measuring rank failed (see above)\n");
        for (int r = 0; s == RF_OK && r < n; r++) {
            if (!lens[r]) continue;
            rf_machine *m = NULL;
            s = rf_machine_parse_json(ctx, all + offs[r], (size_t)lens[r], names[r], &m);
            if (s == RF_OK) s = rf_cluster_add_node(ctx, c, names[r], m);
            rf_machine_free(m);
        }
        if (s == RF_OK) c->ranks = (unsigned)n;
        for (int inter = 0; s == RF_OK && net_ok && inter < 2; inter++)
            if (net.n_pp[inter])
                s = rf_cluster_set_pingpong(ctx, c, inter, net.pp_bytes[inter], net.pp_s[inter],
                                            net.n_pp[inter]);
        if (s == RF_OK && net_ok && net.n_ar)
            s = rf_cluster_set_allreduce(ctx, c, (unsigned)n, net.ar_bytes, net.ar_s, net.n_ar);
        if (s == RF_OK) s = rf_cluster_finish(ctx, c);
        rf_writer w = cli_stdout();
        rf_report_opts o = cli_report_opts();
        if (s == RF_OK)
            s = json ? rf_machine_write_json(ctx, c->aggregate, 0, &w)
                     : rf_report_cluster(ctx, c, &o, &w);
        if (s == RF_OK && cli_flush(ctx) != RF_OK) s = RF_IO;
        if (s != RF_OK) rc = any_bad ? EXIT_INTERNAL : cli_fail(ctx, s);
        rf_cluster_free(c);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(all);
    free(lens);
    free(offs);
    free(hosts);
    free(names);
    if (ctx) rf_buf_free(&doc);
    rf_ctx_free(ctx);
    MPI_Comm_free(&group);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return rc;
}
