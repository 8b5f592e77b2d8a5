/* opts.c — command-line parsing from the option tables, and the help text and man page made from
 * the same tables (curl's docs/cmdline-opts idea: one source for both). */
#include <ctype.h>
#include <stdint.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

static const cli_opt *cli_find_long(const cli_cmd *cmd, const char *name, size_t n, size_t *idx)
{
    for (size_t i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++)
        if (strlen(cmd->opts[i].name) == n && strncmp(cmd->opts[i].name, name, n) == 0) {
            *idx = i;
            return &cmd->opts[i];
        }
    return NULL;
}

static const cli_opt *cli_find_short(const cli_cmd *cmd, char c, size_t *idx)
{
    for (size_t i = 0; i < CLI_MAX_OPTS && cmd->opts[i].name; i++)
        if (cmd->opts[i].short_name && cmd->opts[i].short_name == c) {
            *idx = i;
            return &cmd->opts[i];
        }
    return NULL;
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "roofline %s: ", cmd->name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'roofline %s --help')\n", cmd->name);
    return EXIT_USAGE;
}

/* Take the value of option `o` from "--name=value", or the next argument. */
static int cli_take_value(const cli_cmd *cmd, const cli_opt *o, const char *inline_val, int argc,
                          char **argv, int *i, const char **out)
{
    if (!o->arg) {
        if (inline_val) return cli_usage_error(cmd, "option '--%s' takes no value", o->name);
        *out = "";
        return EXIT_OK;
    }
    if (inline_val) {
        *out = inline_val;
        return EXIT_OK;
    }
    if (*i + 1 >= argc)
        return cli_usage_error(cmd, "option '--%s' needs a value (%s)", o->name, o->arg);
    *out = argv[++*i];
    return EXIT_OK;
}

/* Optimal string alignment distance (Levenshtein plus adjacent swaps), case-insensitive, of
 * a[0..na) and b; words over 63 bytes are never close. */
static size_t cli_distance(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    if (na > 63 || nb > 63) return SIZE_MAX;
    size_t d[64][64];
    for (size_t i = 0; i <= na; i++) d[i][0] = i;
    for (size_t j = 0; j <= nb; j++) d[0][j] = j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
            size_t v = d[i - 1][j - 1] + (ca != cb);
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

const char *cli_closest(const char *word, size_t n, const char *const *cands, size_t n_cands)
{
    const char *best = NULL;
    size_t bd = SIZE_MAX, limit = n <= 4 ? 1 : n <= 8 ? 2 : 3;
    for (size_t i = 0; i < n_cands; i++) {
        size_t dd = cands[i] ? cli_distance(word, n, cands[i]) : SIZE_MAX;
        if (dd < bd) bd = dd, best = cands[i];
    }
    return bd <= limit ? best : NULL;
}

/* The long option of `cmd` closest to s[0..n), or NULL. */
static const char *cli_closest_option(const cli_cmd *cmd, const char *s, size_t n)
{
    const char *names[CLI_MAX_OPTS];
    size_t k = 0;
    for (; k < CLI_MAX_OPTS && cmd->opts[k].name; k++) names[k] = cmd->opts[k].name;
    return cli_closest(s, n, names, k);
}

int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *out, int *done)
{
    memset(out, 0, sizeof *out);
    *done = 0;
    out->opts = cmd->opts;
    while (cmd->opts[out->n_opts].name && out->n_opts < CLI_MAX_OPTS) out->n_opts++;
    int only_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (only_pos || s[0] != '-' || strcmp(s, "-") == 0) {
            if (out->n_pos == CLI_MAX_POS) return cli_usage_error(cmd, "too many arguments");
            out->pos[out->n_pos++] = s;
            continue;
        }
        if (strcmp(s, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            cli_help(cmd, stdout);
            *done = 1;
            return EXIT_OK;
        }
        size_t idx = 0;
        const cli_opt *o;
        const char *inline_val = NULL;
        if (s[1] == '-') {
            const char *eq = strchr(s + 2, '=');
            size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
            inline_val = eq ? eq + 1 : NULL;
            o = cli_find_long(cmd, s + 2, n, &idx);
            if (!o) {
                const char *near = cli_closest_option(cmd, s + 2, n);
                if (near)
                    return cli_usage_error(cmd, "unknown option '%.*s' (did you mean '--%s'?)",
                                           (int)(n + 2), s, near);
                return cli_usage_error(cmd, "unknown option '%.*s'", (int)(n + 2), s);
            }
        } else {
            o = s[2] ? NULL : cli_find_short(cmd, s[1], &idx);
            if (!o) return cli_usage_error(cmd, "unknown option '%s'", s);
        }
        const char *before = out->value[idx];
        int rc = cli_take_value(cmd, o, inline_val, argc, argv, &i, &out->value[idx]);
        if (rc) return rc;
        if (before && o->arg && strstr(o->arg, "[,...]")) { /* --input a=1 --input b=2: both */
            size_t na = strlen(before), nb = strlen(out->value[idx]);
            if (out->n_joined + na + nb + 2 > sizeof out->joined)
                return cli_usage_error(cmd, "--%s given too many times", o->name);
            char *j = out->joined + out->n_joined;
            memcpy(j, before, na);
            j[na] = ',';
            memcpy(j + na + 1, out->value[idx], nb + 1);
            out->value[idx] = j;
            out->n_joined += na + nb + 2;
        }
    }
    cli_wide = cli_get(out, "wide") != NULL;
    return EXIT_OK;
}

const char *cli_get(const cli_args *a, const char *name)
{
    for (size_t i = 0; i < a->n_opts; i++)
        if (strcmp(a->opts[i].name, name) == 0) return a->value[i];
    return NULL;
}

void cli_help(const cli_cmd *cmd, FILE *f)
{
    fprintf(f, "usage: roofline %s\n\n", cmd->usage);
    cli_wrap(f, cmd->description, 0);
    if (cmd->opts[0].name) fprintf(f, "\noptions:\n");
    for (size_t i = 0; cmd->opts[i].name; i++) {
        const cli_opt *o = &cmd->opts[i];
        char left[64];
        snprintf(left, sizeof left, "%s%c%s--%s%s%s", o->short_name ? "-" : "",
                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : " ", o->name,
                 o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-28s %s\n", o->short_name ? left : left + 2, o->help);
    }
    fprintf(f, "  %-28s %s\n", "-h, --help", "show this help and exit");
}

/* roff needs '-' escaped and lines starting with '.' or '\'' protected. */
static void cli_roff(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '-')
            fputs("\\-", f);
        else if (*s == '\\')
            fputs("\\e", f);
        else
            fputc(*s, f);
    }
}

void cli_man(FILE *f)
{
    fputs(".TH ROOFLINE 1 \"\" \"roofline " RF_VERSION_STRING "\" \"User Commands\"\n", f);
    fputs(".SH NAME\nroofline \\- roofline performance analysis: is it compute or memory bound?\n",
          f);
    fputs(".SH SYNOPSIS\n.B roofline\n[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIFILE\\fR]\n", f);
    fputs(".SH DESCRIPTION\nWith no command, roofline profiles its built\\-in demo model.\n", f);
    fputs("Results go to standard output, diagnostics to standard error.\n", f);
    for (size_t c = 0; c < cli_n_commands; c++) {
        const cli_cmd *cmd = cli_commands[c];
        fputs(".SH \"roofline ", f);
        cli_roff(f, cmd->name);
        fputs("\"\n.B roofline ", f);
        cli_roff(f, cmd->usage);
        fputs("\n.PP\n", f);
        cli_roff(f, cmd->description);
        fputs("\n", f);
        for (size_t i = 0; cmd->opts[i].name; i++) {
            fputs(".TP\n.B \\-\\-", f);
            cli_roff(f, cmd->opts[i].name);
            if (cmd->opts[i].arg) {
                fputs(" \\fI", f);
                cli_roff(f, cmd->opts[i].arg);
                fputs("\\fR", f);
            }
            fputs("\n", f);
            cli_roff(f, cmd->opts[i].help);
            fputs("\n", f);
        }
    }
    fputs(".SH ENVIRONMENT\n.TP\n.B COLUMNS\nwidth of tables and charts (default: the terminal, "
          "else 80)\n.TP\n.B NO_COLOR\ndisables colour\n.TP\n.B RF_ISA\nhighest instruction "
          "set measured and run (as --isa: avx512, avx2, sse2, generic)\n.TP\n.B RF_AMX\n0 or "
          "off: --measure keeps quantized prefill products off AMX-INT8 tiles (AVX-512 VNNI "
          "instead)\n",
          f);
    fputs(".SH EXIT STATUS\n0 success, 1 internal failure, 2 bad usage or bad input.\n", f);
}
