/* plot_out.c — `--plot FILE.svg|FILE.html|-` for every command that has a result (analyze,
 * profile, llm, peaks, plot): picks the back end from the file name, renders into memory, then
 * writes a temporary file beside the target and renames it, so a failure never leaves half a
 * file. One line on stderr naming the file when it fails. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) return 0;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

int cli_plot_format(const char *path)
{
    if (!path || !path[0]) return -1;
    if (strcmp(path, "-") == 0 || cli_ends_with(path, ".svg")) return CLI_PLOT_SVG;
    if (cli_ends_with(path, ".html") || cli_ends_with(path, ".htm")) return CLI_PLOT_HTML;
    return -1;
}

int cli_plot_check(const char *cmd, const char *path)
{
    if (cli_plot_format(path) >= 0) return EXIT_OK;
    fprintf(stderr,
            "roofline %s: chart file '%s': the name must end in .svg or .html ('-' "
            "writes SVG to standard output)\n",
            cmd, path ? path : "");
    return EXIT_USAGE;
}

int cli_write_file(const char *path, const rf_buf *b, const char *what)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp) {
        fprintf(stderr, "roofline: out of memory\n");
        return EXIT_INTERNAL;
    }
    snprintf(tmp, n + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "roofline: cannot write %s to '%s': %s\n", what, path, strerror(errno));
        free(tmp);
        return EXIT_USAGE;
    }
    size_t done = 0;
    int err = 0;
    while (done < b->len && !err) {
        ssize_t k = write(fd, b->data + done, b->len - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            err = k < 0 ? errno : EIO;
        else
            done += (size_t)k;
    }
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    struct stat old;
    mode_t um = umask(0);
    umask(um); /* a new file gets the usual mode; one replaced keeps its own */
    mode_t mode = stat(path, &old) == 0 ? (old.st_mode & 07777) : (0666 & ~um);
    if (!err && chmod(tmp, mode) != 0) err = errno;
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
        unlink(tmp);
        fprintf(stderr,
                "roofline: cannot write %s to '%s': %s (the old file, if any, is unchanged)\n",
                what, path, strerror(err));
    }
    free(tmp);
    return err ? EXIT_INTERNAL : EXIT_OK;
}

/* Write a rendered chart to `path` ('-': stdout). */
static int cli_emit(rf_ctx *ctx, const char *path, const rf_buf *b)
{
    if (strcmp(path, "-") != 0) return cli_write_file(path, b, "the chart");
    rf_writer out = cli_stdout();
    rf_status st = b->len ? rf_write(&out, b->data, b->len) : RF_OK;
    return st == RF_OK && cli_flush(ctx) == RF_OK ? EXIT_OK : EXIT_INTERNAL;
}

int cli_plot_as(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
                const char *path, int format)
{
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = cli_report_opts();
    rf_status st = format == CLI_PLOT_HTML ? rf_report_chart_html(ctx, results, n, m, &o, &w)
                                           : rf_report_chart_svg(ctx, results, n, m, &o, &w);
    int rc = st == RF_OK ? cli_emit(ctx, path, &b) : cli_fail(ctx, st);
    rf_buf_free(&b);
    return rc;
}

int cli_plot_machine(rf_ctx *ctx, const rf_machine *m, const char *path)
{
    int format = cli_plot_format(path);
    if (format < 0) return cli_plot_check("plot", path);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = cli_report_opts();
    rf_status st = rf_report_machine_chart(
        ctx, m, format == CLI_PLOT_HTML ? RF_CHART_HTML : RF_CHART_SVG, &o, &w);
    int rc = st == RF_OK ? cli_emit(ctx, path, &b) : cli_fail(ctx, st);
    rf_buf_free(&b);
    return rc;
}

int cli_plot(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
             const char *path)
{
    int format = cli_plot_format(path);
    if (format < 0) return cli_plot_check("plot", path);
    return cli_plot_as(ctx, results, n, m, path, format);
}

int cli_plot_llm(rf_ctx *ctx, const rf_llm_result *r, const char *path)
{
    int format = cli_plot_format(path);
    if (format < 0) return cli_plot_check("llm", path);
    rf_buf b;
    rf_buf_init(&b, ctx, 0);
    rf_writer w = rf_buf_writer(&b);
    rf_report_opts o = cli_report_opts();
    rf_status st =
        rf_report_llm_chart(ctx, r, format == CLI_PLOT_HTML ? RF_CHART_HTML : RF_CHART_SVG, &o, &w);
    int rc = st == RF_OK ? cli_emit(ctx, path, &b) : cli_fail(ctx, st);
    rf_buf_free(&b);
    return rc;
}
