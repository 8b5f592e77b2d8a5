/* common.c — what every subcommand shares at run time: the context with its warning printer,
 * status -> exit code (the one place), stdout as a writer, terminal options, machine options. */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

static void cli_log_stderr(void *user, rf_log_level level, const char *msg)
{
    (void)user;
    fprintf(stderr, "roofline: %s%s\n", level == RF_LOG_WARN ? "warning: " : "", msg);
}

rf_ctx *cli_ctx(void)
{
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) {
        fprintf(stderr, "roofline: out of memory\n");
        return NULL;
    }
    rf_ctx_set_log(ctx, cli_log_stderr, NULL, RF_LOG_WARN);
    return ctx;
}

void cli_progress(rf_ctx *ctx, int on)
{
    rf_ctx_set_log(ctx, cli_log_stderr, NULL, on ? RF_LOG_INFO : RF_LOG_WARN);
}

void cli_warn_busy(double share, const char *what)
{
    if (share > RF_BUSY_OTHERS)
        fprintf(stderr,
                "roofline: warning: measuring was disturbed: other processes used %.0f%% of the "
                "CPU time while %s; the figures may be slower than a quiet machine gives\n",
                100 * share, what);
}

/* Set once a write to stdout has failed and been reported: the line is printed once. */
static int cli_output_failed;

static const char *cli_hint; /* a "did you mean" for the next failure line (cli_machine_typo) */

int cli_fail(rf_ctx *ctx, rf_status st)
{
    if (cli_output_failed) return EXIT_INTERNAL; /* already said, in one line */
    const char *msg = ctx ? rf_ctx_errmsg(ctx) : "";
    if (cli_hint)
        fprintf(stderr, "roofline: %s (did you mean '--hw %s'?)\n",
                msg[0] ? msg : rf_status_str(st), cli_hint);
    else
        fprintf(stderr, "roofline: %s\n", msg[0] ? msg : rf_status_str(st));
    cli_hint = NULL;
    if (st == RF_OK) return EXIT_OK;
    return rf_status_is_input_error(st) ? EXIT_USAGE : EXIT_INTERNAL;
}

static rf_status cli_stdout_write(void *user, const char *data, size_t size)
{
    (void)user;
    return fwrite(data, 1, size, stdout) == size ? RF_OK : RF_IO;
}

rf_writer cli_stdout(void)
{
    static char buf[1 << 16];
    static int once;
    if (!once) {
        setvbuf(stdout, buf, _IOFBF, sizeof buf);
        once = 1;
    }
    rf_writer w = {cli_stdout_write, NULL};
    return w;
}

rf_status cli_flush(rf_ctx *ctx)
{
    (void)ctx;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (!cli_output_failed)
            fprintf(stderr, "roofline: cannot write the output (standard output closed or full)\n");
        cli_output_failed = 1;
        return RF_IO;
    }
    return RF_OK;
}

static int cli_locale_utf8(void)
{
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && v[0])
            return strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8") ||
                   strstr(v, "utf-8");
    }
    return 0;
}

int cli_wide;

rf_report_opts cli_report_opts(void)
{
    rf_report_opts o;
    memset(&o, 0, sizeof o);
    o.wide = cli_wide;
    o.width = 80;
    const char *cols = getenv("COLUMNS");
    long c = 0;
    if (cols && cols[0]) {
        char *end;
        c = strtol(cols, &end, 10);
        if (*end) c = 0;
    }
    struct winsize ws;
    if (c <= 0 && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
        c = ws.ws_col;
    if (c > 0) o.width = c < 40 ? 40 : (c > 1000 ? 1000 : (unsigned)c);
    o.utf8 = cli_locale_utf8();
    const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
    o.color = isatty(STDOUT_FILENO) && !(nc && nc[0]) && !(term && strcmp(term, "dumb") == 0);
    return o;
}

/* Override ceiling `idx` of `m` with a figure from the command line. */
static rf_status cli_override(rf_ctx *ctx, rf_machine *m, size_t idx, const char *text,
                              const char *what)
{
    double v;
    char source[64];
    rf_status st = rf_si_parse(ctx, text, what, &v);
    if (st != RF_OK) return st;
    snprintf(source, sizeof source, "%s on the command line", what);
    return rf_machine_set_value(ctx, m, idx, v, RF_PROV_USER, source);
}

/* --hw NAME named nothing: when NAME is a typo of 'measured' or of a datasheet machine, say so
 * before the library's line is printed (one line: "did you mean" replaces no part of it). */
static void cli_machine_typo(const char *hw)
{
    size_t n = rf_hwdb_count();
    const char **names = malloc((n + 1) * sizeof *names);
    if (!names) return;
    names[0] = "measured";
    for (size_t i = 0; i < n; i++) names[i + 1] = rf_hwdb_id(i);
    /* a name that starts the typed one (h100-sxm5 in h100-sxm5-80gb) beats a closer spelling of
     * another machine (a100-sxm4-80gb): the library's "close:" list says the same */
    size_t best = 0, hl = strlen(hw);
    for (size_t i = 1; i <= n; i++) {
        size_t l = strlen(names[i]);
        if (l > best && l >= 4 && l < hl && strncmp(hw, names[i], l) == 0) {
            best = l;
            cli_hint = names[i];
        }
    }
    if (!best) cli_hint = cli_closest(hw, hl, names, n + 1); /* static strings: they outlive this */
    free(names);
}

int cli_machine_measures(const cli_args *a, const char *fallback)
{
    const char *hw = cli_get(a, "hw");
    if (!hw && cli_get(a, "peak-flops") && cli_get(a, "peak-bw")) return 0;
    if (hw ? strcmp(hw, "measured") != 0 : fallback && strcmp(fallback, "measured") != 0) return 0;
    rf_ctx *ctx = NULL;
    if (rf_ctx_new(&ctx, NULL) != RF_OK) return 0;
    rf_probe_opts o;
    memset(&o, 0, sizeof o);
    rf_machine *m = NULL;
    if (rf_probe_cache_load(ctx, &o, &m) == RF_OK && !m) {
        o.quick = 1;
        rf_probe_cache_load(ctx, &o, &m);
    }
    int measures = m == NULL;
    rf_machine_free(m);
    rf_ctx_free(ctx);
    return measures;
}

rf_status cli_placeholder_machine(rf_ctx *ctx, rf_machine **m, size_t *compute, size_t *bandwidth)
{
    *compute = 0;
    *bandwidth = 1;
    return rf_machine_simple(ctx, "input-check", 1e12, 1e11, RF_PROV_USER, "checking the input", m);
}

rf_status cli_machine(rf_ctx *ctx, const cli_args *a, const char *fallback, rf_machine **m,
                      size_t *compute, size_t *bandwidth)
{
    const char *hw = cli_get(a, "hw"), *pf = cli_get(a, "peak-flops"), *pb = cli_get(a, "peak-bw");
    rf_status st;
    *m = NULL;
    if (!hw && pf && pb) {
        /* Placeholder figures, replaced (and checked) by the overrides below. */
        st = rf_machine_simple(ctx, "custom", 1, 1, RF_PROV_USER, "command line", m);
    } else if (!hw && !fallback) {
        /* No machine named: this one, from the cache or measured now (issue 12, item 5). */
        fprintf(stderr, "roofline: no --hw given: using this machine, measured ('roofline peaks'; "
                        "--hw NAME for a datasheet machine)\n");
        cli_progress(ctx, 1);
        st = rf_probe_measured(ctx, m);
        cli_progress(ctx, 0);
    } else if (strcmp(hw ? hw : fallback, "measured") == 0) {
        /* This machine: the cached measurement, else a quick run now (progress on stderr). */
        cli_progress(ctx, 1);
        st = rf_probe_measured(ctx, m);
        cli_progress(ctx, 0);
    } else {
        st = rf_machine_resolve(ctx, hw ? hw : fallback, m);
        if (st == RF_USAGE && hw) cli_machine_typo(hw);
    }
    if (st != RF_OK) return st;
    st = rf_machine_select(ctx, *m, RF_CEILING_COMPUTE, cli_get(a, "compute"), compute);
    if (st == RF_OK)
        st = rf_machine_select(ctx, *m, RF_CEILING_BANDWIDTH, cli_get(a, "memory"), bandwidth);
    if (st == RF_OK && pf) st = cli_override(ctx, *m, *compute, pf, "--peak-flops");
    if (st == RF_OK && pb) st = cli_override(ctx, *m, *bandwidth, pb, "--peak-bw");
    if (st != RF_OK) {
        rf_machine_free(*m);
        *m = NULL;
    }
    return st;
}

rf_status cli_network(rf_ctx *ctx, const cli_args *a, rf_machine *m, size_t *index)
{
    const char *spec = cli_get(a, "interconnect");
    *index = SIZE_MAX;
    if (!spec) {
        for (size_t i = 0; i < m->n_ceilings; i++)
            if (m->ceilings[i].kind == RF_CEILING_NETWORK) {
                *index = i;
                return RF_OK;
            }
        return RF_OK;
    }
    const rf_interconnect *ic = NULL;
    rf_status st;
    if (spec[0] >= '0' && spec[0] <= '9') { /* a bandwidth */
        rf_ceiling c;
        memset(&c, 0, sizeof c);
        if ((st = rf_si_parse(ctx, spec, "--interconnect", &c.value)) != RF_OK) return st;
        snprintf(c.name, sizeof c.name, "network");
        c.kind = RF_CEILING_NETWORK;
        c.provenance = RF_PROV_USER;
        snprintf(c.source, sizeof c.source, "--interconnect %s", spec);
        long old = rf_machine_find(m, c.name);
        if (old >= 0) {
            *index = (size_t)old;
            return rf_machine_set_value(ctx, m, (size_t)old, c.value, RF_PROV_USER, c.source);
        }
        st = rf_machine_add(ctx, m, &c);
    } else {
        if ((st = rf_interconnect_find(ctx, spec, &ic)) != RF_OK) return st;
        long old = rf_machine_find(m, ic->id);
        if (old >= 0) {
            *index = (size_t)old;
            return RF_OK;
        }
        st = rf_machine_add_interconnect(ctx, m, ic);
    }
    if (st == RF_OK) *index = m->n_ceilings - 1;
    return st;
}

const char *cli_format(const cli_cmd *cmd, const cli_args *a)
{
    const char *f = cli_get(a, "format");
    if (cli_get(a, "json")) f = "json";
    if (cli_get(a, "csv")) f = "csv";
    if (!f) return "table";
    if (strcmp(f, "table") && strcmp(f, "json") && strcmp(f, "csv")) {
        cli_usage_error(cmd, "unknown format '%s' (use table, json or csv)", f);
        return NULL;
    }
    return f;
}

int cli_uint(const cli_cmd *cmd, const char *opt, const char *text, unsigned long long min,
             unsigned long long max, unsigned long long *out)
{
    unsigned long long v = 0;
    const char *p = text;
    if (!*p) return cli_usage_error(cmd, "--%s needs a whole number", opt);
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || v > (max - (unsigned)(*p - '0')) / 10)
            return cli_usage_error(cmd, "--%s: '%s' is not a whole number from %llu to %llu", opt,
                                   text, min, max);
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (v < min)
        return cli_usage_error(cmd, "--%s: '%s' is not a whole number from %llu to %llu", opt, text,
                               min, max);
    *out = v;
    return EXIT_OK;
}

static rf_status cli_file_write(void *user, const char *data, size_t size)
{
    return fwrite(data, 1, size, (FILE *)user) == size ? RF_OK : RF_IO;
}

void cli_wrap(FILE *f, const char *text, int indent)
{
    static const char spaces[] = "                                ";
    rf_writer w = {cli_file_write, f};
    size_t n = indent < 0 ? 0 : (size_t)indent < sizeof spaces ? (size_t)indent : sizeof spaces - 1;
    rf_write_wrapped(&w, 78, spaces + sizeof spaces - 1 - n, n, text);
}
