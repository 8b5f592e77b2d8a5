/* cmd_run.c — `roofline run [OPTIONS] -- PROGRAM ARGS...`: runs a program instrumented with the
 * marker API (roofline/region.h) with ROOFLINE_OUTPUT_DIR at a private directory of ours
 * (mkdtemp, mode 0700) where each of its processes creates its own record, merges the records
 * once the program has exited, evaluates each region against the machine and prints the usual
 * report plus the regions' measured points. The program's stdout and stderr pass through
 * untouched; its failure status is ours. Process handling and printing only: the regions,
 * counters and renderers are the library's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

static const cli_opt cli_run_opts[] = {
    CLI_MACHINE_OPTS,
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json (the saved result with the regions' measured times)"},
    {"csv", 0, NULL, "same as --format csv"},
    {"chart", 'c', NULL, "draw the ASCII roofline chart under the table"},
    {"no-summary", 0, NULL, "leave out the bottleneck summary under the table"},
    {"wide", 0, NULL, "tables with measurements: every column (default: those that fit 120)"},
    {"plot", 0, "FILE.svg|FILE.html", "also draw the roofline chart as SVG or an HTML page"},
    {"output", 'o', "FILE",
     "also write the regions to FILE (a saved result), replacing it only once the program has "
     "written regions"},
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_run_opts);

/* Run argv with ROOFLINE_OUTPUT_DIR=dir; *status gets the wait status. Returns 0, or a usage error
 * (exit 2) when the program cannot be started. An exec failure is reported through a pipe. */
static int cli_run_child(const cli_cmd *cmd, char **argv, const char *dir, int *status)
{
    int fds[2];
    if (pipe(fds) != 0) return cli_usage_error(cmd, "cannot create a pipe: %s", strerror(errno));
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL); /* nothing of ours may be written twice or after the child's output */
    pid_t pid = fork();
    if (pid < 0) return cli_usage_error(cmd, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        unsetenv("ROOFLINE_OUTPUT"); /* the records go to our directory, nowhere else */
        if (setenv("ROOFLINE_OUTPUT_DIR", dir, 1) == 0) execvp(argv[0], argv);
        int e = errno;
        if (write(fds[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(fds[1]);
    int e = 0;
    ssize_t n;
    while ((n = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(fds[0]);
    /* a terminal's ^C goes to the program; we only wait for it */
    void (*old_int)(int) = signal(SIGINT, SIG_IGN);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    signal(SIGINT, old_int);
    if (n == (ssize_t)sizeof e)
        return cli_usage_error(cmd, "cannot run '%s': %s", argv[0], strerror(e));
    return 0;
}

static int cli_run_cmp(const void *a, const void *b)
{
    const char *x = strrchr(*(const char *const *)a, '/') + 1;
    const char *y = strrchr(*(const char *const *)b, '/') + 1;
    long px = strtol(x + 8, NULL, 10), py = strtol(y + 8, NULL, 10);
    return px != py ? (px > py) - (px < py) : strcmp(x, y);
}

/* The paths of the records in `dir` (regular files regions-*.json, by pid: the parent's regions
 * usually first), or with `clean` remove everything in it and the directory. *n records. */
static char **cli_run_records(const char *dir, int clean, size_t *n)
{
    DIR *d = opendir(dir);
    char **names = NULL, path[4096];
    size_t cap = 0;
    *n = 0;
    if (!d) return NULL;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat sb;
        size_t len = strlen(e->d_name);
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (clean) {
            unlink(path);
            continue;
        }
        if (strncmp(e->d_name, "regions-", 8) != 0 || len < 13 ||
            strcmp(e->d_name + len - 5, ".json") != 0 || lstat(path, &sb) != 0 ||
            !S_ISREG(sb.st_mode))
            continue;
        if (*n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 8) * sizeof *names);
            if (!more) break;
            names = more;
        }
        if (!(names[*n] = strdup(path))) break;
        ++*n;
    }
    closedir(d);
    if (clean) rmdir(dir);
    if (names) qsort(names, *n, sizeof *names, cli_run_cmp);
    return names;
}

/* Every record in `dir` merged into *out (NULL when the program wrote none). */
static rf_status cli_run_collect(rf_ctx *ctx, const char *dir, rf_regions **out)
{
    size_t n;
    char **names = cli_run_records(dir, 0, &n);
    rf_status st = RF_OK;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        rf_regions *r = NULL;
        if (st == RF_OK) st = rf_regions_read_file(ctx, names[i], &r);
        if (st == RF_OK && *out) st = rf_regions_merge(ctx, *out, r);
        if (st == RF_OK && !*out) {
            *out = r;
            r = NULL;
        }
        rf_regions_free(r);
        free(names[i]);
    }
    free(names);
    if (st != RF_OK) {
        rf_regions_free(*out);
        *out = NULL;
    }
    return st;
}

/* --output FILE: the merged regions as a saved result, replacing FILE in one rename. */
static int cli_run_keep(rf_ctx *ctx, const rf_regions *regs, const rf_machine *m, const char *title,
                        const char *path)
{
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer bw = rf_buf_writer(&b);
    rf_status st = rf_regions_write_json(ctx, regs, m, title, &bw);
    int rc = st == RF_OK ? cli_write_file(path, &b, "the regions") : cli_fail(ctx, st);
    rf_buf_free(&b);
    return rc;
}

/* The report once the program has run: the records in `dir` against the machine. */
static int cli_run_report(const cli_cmd *cmd, const cli_args *a, const char *dir, const char *title,
                          const rf_perf_counters *pc)
{
    const char *format = cli_format(cmd, a), *plot = cli_get(a, "plot");
    if (!format) return EXIT_USAGE;
    rf_ctx *ctx = cli_ctx();
    if (!ctx) return EXIT_INTERNAL;
    rf_regions *regs = NULL;
    rf_machine *m = NULL;
    rf_result *r = NULL;
    size_t ci, bi;
    int rc = EXIT_OK;
    rf_status st = cli_run_collect(ctx, dir, &regs);
    if (st == RF_OK && !regs) {
        fprintf(stderr,
                "roofline run: %s wrote no regions (build it with -DROOFLINE_MARKERS and mark "
                "regions with RF_REGION_BEGIN/END)\n",
                title);
        rf_ctx_free(ctx);
        return EXIT_USAGE;
    }
    if (st == RF_OK) st = cli_machine(ctx, a, "measured", &m, &ci, &bi);
    if (st == RF_OK) st = rf_regions_analyze(ctx, regs, m, ci, bi, title, &r);
    if (st != RF_OK) {
        rc = cli_fail(ctx, st);
        goto out;
    }
    if (cli_get(a, "output") && (rc = cli_run_keep(ctx, regs, m, title, cli_get(a, "output"))))
        goto out;
    rf_writer w = cli_stdout();
    rf_report_opts o = cli_report_opts();
    if (strcmp(format, "json") == 0) {
        st = rf_regions_write_json(ctx, regs, m, title, &w);
        rc = st == RF_OK && cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
    } else if (strcmp(format, "csv") == 0) {
        rc = cli_print_result(ctx, r, m, format, 0, 0, NULL);
    } else {
        char line[1024];
        rf_writef(&w, "counters  %s\n\n", rf_perf_describe(pc, line, sizeof line));
        rc = cli_print_result(ctx, r, m, format, cli_get(a, "chart") != NULL,
                              !cli_get(a, "no-summary"), NULL);
        if (rc == EXIT_OK) {
            st = rf_write(&w, "\n", 1);
            if (st == RF_OK) st = rf_report_regions(ctx, regs, r, &o, &w);
            if (st != RF_OK || cli_flush(ctx) != RF_OK) rc = EXIT_INTERNAL;
        }
    }
    if (rc == EXIT_OK && plot) rc = cli_plot(ctx, (const rf_result *const *)&r, 1, m, plot);
out:
    rf_result_free(r);
    rf_machine_free(m);
    rf_regions_free(regs);
    rf_ctx_free(ctx);
    return rc;
}

static int cli_run(const cli_cmd *cmd, int argc, char **argv)
{
    int dd = 1;
    while (dd < argc && strcmp(argv[dd], "--") != 0) dd++;
    cli_args a;
    int done, rc = cli_parse(cmd, dd, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos) return cli_usage_error(cmd, "put the program after '--': run -- %s", a.pos[0]);
    if (dd + 1 >= argc) return cli_usage_error(cmd, "missing '-- PROGRAM [ARGS...]'");
    const char *plot = cli_get(&a, "plot");
    if (plot && (strcmp(plot, "-") == 0 || cli_plot_check(cmd->name, plot)))
        return plot && strcmp(plot, "-") == 0
                   ? cli_usage_error(cmd, "--plot needs a file name (stdout is the program's)")
                   : EXIT_USAGE;
    if (!cli_format(cmd, &a)) return EXIT_USAGE;
    /* hardware counters: when this process can open them, so can the program's markers */
    rf_perf_counters pc;
    rf_ctx *pctx = cli_ctx();
    if (!pctx) return EXIT_INTERNAL;
    rf_perf_detect(pctx, NULL, NULL, &pc);
    rf_ctx_free(pctx);
    if (pc.fp && pc.mem) setenv("ROOFLINE_COUNTERS", "1", 1);
    const char *tdir = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/roofline-run-XXXXXX", tdir && tdir[0] ? tdir : "/tmp");
    if (!mkdtemp(dir)) return cli_usage_error(cmd, "cannot create %s: %s", dir, strerror(errno));
    int status = 0;
    rc = cli_run_child(cmd, argv + dd + 1, dir, &status);
    const char *prog = strrchr(argv[dd + 1], '/') ? strrchr(argv[dd + 1], '/') + 1 : argv[dd + 1];
    if (rc == 0 && WIFSIGNALED(status)) {
        fprintf(stderr, "roofline run: %s was killed by signal %d\n", prog, WTERMSIG(status));
        rc = 128 + WTERMSIG(status);
    } else if (rc == 0 && WEXITSTATUS(status) != 0) {
        fprintf(stderr, "roofline run: %s exited with status %d\n", prog, WEXITSTATUS(status));
        rc = WEXITSTATUS(status); /* the program's own */
    } else if (rc == 0) {
        rc = cli_run_report(cmd, &a, dir, prog, &pc);
    }
    size_t n;
    free(cli_run_records(dir, 1, &n));
    return rc;
}

const cli_cmd cli_cmd_run = {
    "run",
    "run [OPTIONS] -- PROGRAM [ARGS...]",
    "run a program with marker regions and put each region on the roofline",
    "Runs PROGRAM (built with -DROOFLINE_MARKERS and marked with RF_REGION_BEGIN, RF_REGION_END "
    "and RF_REGION_ADD from <roofline/roofline.h>) with ROOFLINE_OUTPUT_DIR set to a private "
    "directory where each of its processes writes its own record, merges the records, "
    "then evaluates every region's FLOPs and bytes against the machine (this one measured unless "
    "--hw says otherwise) and prints the table, chart and summary, and each region's measured "
    "calls, time per call, achieved FLOP/s and utilization. The program's output passes through "
    "untouched; when it fails, its exit status is roofline's. Where perf_event exposes this CPU's "
    "floating-point and last-level-cache-miss counters, each region's FLOPs and bytes are "
    "counted by them (one line names the counters); otherwise (most VMs) one line says why and "
    "the counts given by RF_REGION_ADD are used.",
    cli_run_opts,
    cli_run,
};
