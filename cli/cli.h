/* cli.h — what the subcommands of the `roofline` program share: option tables (which give both
 * --help and the man page, like curl's docs/cmdline-opts), the machine options, output to stdout,
 * and the one place that maps a status to an exit code. The program holds no analysis logic. */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include <roofline/roofline.h>

/* The datasheet machine the built-in demo runs against when this one cannot be measured. */
#define CLI_DEMO_MACHINE "xeon-8480plus"

/* Exit codes (DESIGN.md "The command line"). */
enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2 };

/* One option of a subcommand. `arg` is NULL for a flag. */
typedef struct cli_opt {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 for none */
    const char *arg;  /* metavariable ("NAME|FILE") or NULL */
    const char *help; /* one sentence */
} cli_opt;

/* Parsed command line of one subcommand: option values by table index, and positionals. */
#define CLI_MAX_OPTS 48
#define CLI_MAX_POS 8
/* After each option table: it fits cli_args (its {0} terminator aside), checked when compiling. */
#define CLI_OPTS_FIT(table)                                                                        \
    _Static_assert(sizeof(table) / sizeof *(table) <= CLI_MAX_OPTS + 1,                            \
                   #table " has more options than cli_args holds (CLI_MAX_OPTS)")
typedef struct cli_args {
    const cli_opt *opts;
    size_t n_opts;
    const char *value[CLI_MAX_OPTS]; /* NULL when not given; "" for a flag that was given */
    const char *pos[CLI_MAX_POS];
    size_t n_pos;
    char joined[4096]; /* a list option ("NAME=DIMS[,...]") given twice: the values, comma-joined */
    size_t n_joined;
} cli_args;

/* A subcommand. */
typedef struct cli_cmd {
    const char *name;
    const char *usage;       /* "analyze [OPTIONS] OPS.csv|OPS.json" */
    const char *summary;     /* one line for the command list */
    const char *description; /* a paragraph for --help and the man page */
    const cli_opt *opts;     /* terminated by {0} */
    int (*run)(const struct cli_cmd *cmd, int argc, char **argv);
} cli_cmd;

/* `roofline completion bash|zsh` (completion.c): the script, generated from the tables. */
int cli_completion(int argc, char **argv);

/* The subcommand table (main.c). */
extern const cli_cmd *const cli_commands[];
extern const size_t cli_n_commands;

/* Parse argv[1..] of a subcommand against its table. Handles --help (prints help, returns 0 with
 * *done set). Returns EXIT_OK or EXIT_USAGE after printing one line on stderr. */
int cli_parse(const cli_cmd *cmd, int argc, char **argv, cli_args *out, int *done);

/* Value of option `name`, or NULL when not given. */
const char *cli_get(const cli_args *a, const char *name);

/* Print a subcommand's --help to `f`. */
void cli_help(const cli_cmd *cmd, FILE *f);

/* Print the man page (roff) of the whole program to `f`. */
void cli_man(FILE *f);

/* A context whose log callback prints warnings on stderr ("roofline: warning: ..."). */
rf_ctx *cli_ctx(void);

/* Progress messages (the library's info log) on stderr too when `on`; warnings only otherwise. */
void cli_progress(rf_ctx *ctx, int on);

/* --measure: one warning line on stderr when other processes took more than RF_BUSY_OTHERS of the
 * CPU (`share`, 0..1; negative = unknown: nothing said) while `what` was measured. */
void cli_warn_busy(double share, const char *what);

/* Print "roofline: <message>" for a failed call and return the exit code for `st`. */
int cli_fail(rf_ctx *ctx, rf_status st);

/* Print a usage error naming the subcommand and return EXIT_USAGE. */
/* The candidate closest to word[0..n) by edit distance (case-insensitive, swaps count one), if
 * close enough to be a typo (1 edit up to 4 letters, 2 up to 8, else 3); NULL otherwise. */
const char *cli_closest(const char *word, size_t n, const char *const *cands, size_t n_cands);

int cli_usage_error(const cli_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A writer on stdout (buffered; RF_IO when the write fails). */
rf_writer cli_stdout(void);

/* Flush stdout; RF_IO when it failed (e.g. a closed pipe, a full disk). */
rf_status cli_flush(rf_ctx *ctx);

/* Terminal options: COLUMNS (else the tty width, else 80), UTF-8 from the locale variables,
 * colour only on a tty without NO_COLOR. */
rf_report_opts cli_report_opts(void);
/* Set by cli_parse when the command line has --wide: cli_report_opts passes it on. */
extern int cli_wide;

/* The machine options shared by every command that evaluates. */
#define CLI_MACHINE_OPTS                                                                           \
    {"hw", 0, "NAME|FILE|measured",                                                                \
     "machine: a datasheet entry ('roofline hw list'), a machine file, or measured (this one)"},   \
        {"peak-flops", 0, "FLOPS",                                                                 \
         "peak compute, with SI suffix (19.5T); overrides --hw's ceiling"},                        \
        {"peak-bw", 0, "BYTES/S",                                                                  \
         "peak bandwidth, with SI suffix (2039G); overrides --hw's level"},                        \
        {"compute", 0, "CEILING",                                                                  \
         "compute ceiling to use, by name or precision (fp32, fp16.tensor)"},                      \
    {                                                                                              \
        "memory", 0, "LEVEL", "bandwidth ceiling to use (DRAM, L2, ...)"                           \
    }

/* `peaks --mpi` (cli/mpi/peaks_mpi.c, built when CMake finds MPI; otherwise one line saying
 * so and EXIT_USAGE): measures one rank per node (or socket), gathers, times the network. */
int cli_peaks_mpi(const cli_cmd *cmd, const rf_probe_opts *po, int per_socket, int json);

/* `peaks --device opencl[:P.D]` (peaks_device.c): measure an OpenCL device (or read its cache),
 * print its table, --json or chart, and with --merge add it to a node's machine file. */
int cli_peaks_device(const cli_cmd *cmd, const cli_args *a);

/* `hw list --devices` (peaks_device.c): the OpenCL devices as a table or JSON. */
int cli_hw_devices(rf_ctx *ctx, int json);

/* --interconnect NAME|BW: the network roof (analyze). */
#define CLI_NETWORK_OPT                                                                            \
    {                                                                                              \
        "interconnect", 0, "NAME|BYTES/S",                                                         \
            "network roof for rows with net_bytes: an interconnect of 'roofline hw list' "         \
            "(nvlink4, ib-ndr, ...) or a bandwidth (25G); default: the machine file's network "    \
            "ceiling"                                                                              \
    }

/* The network ceiling of `m` for --interconnect (a datasheet link or a bandwidth, added to `m`),
 * else the machine's first network ceiling; *index = SIZE_MAX when there is none. */
rf_status cli_network(rf_ctx *ctx, const cli_args *a, rf_machine *m, size_t *index);

/* 1: cli_machine would measure this machine now (--hw measured, or no --hw and no fallback,
 * with nothing in the probe's cache): the caller checks its input first, on a placeholder
 * machine (cli_placeholder_machine), so a bad file is caught before seconds of measuring. */
int cli_machine_measures(const cli_args *a, const char *fallback);
rf_status cli_placeholder_machine(rf_ctx *ctx, rf_machine **m, size_t *compute, size_t *bandwidth);

/* Resolve --hw / --peak-flops / --peak-bw / --compute / --memory into a machine and the indices of
 * its two ceilings. `fallback` is the machine used when none is given (NULL: it is an error). */
rf_status cli_machine(rf_ctx *ctx, const cli_args *a, const char *fallback, rf_machine **m,
                      size_t *compute, size_t *bandwidth);

/* --advice N and --what-if-hw NAME[,NAME] (profile, llm, analyze; advice_out.c). */
#define CLI_ADVICE_OPTS                                                                            \
    {"advice", 0, "N",                                                                             \
     "what would move it: the N largest predicted savings, each change evaluated on the same "     \
     "layers (default: 5; 0: none)"},                                                              \
    {                                                                                              \
        "what-if-hw", 0, "NAME[,NAME]",                                                            \
            "also evaluate the same work on these machines (datasheet names or files)"             \
    }

typedef struct cli_advice {
    rf_advice_opts o;
    int off;        /* --advice 0 */
    char buf[1024]; /* the --what-if-hw names, split in place */
    const char *names[16];
} cli_advice;

/* Parse --advice and --what-if-hw into *adv; 0 or a usage error (exit 2). */
int cli_advice_parse(const cli_cmd *cmd, const cli_args *a, cli_advice *adv);

/* Parse --format/--json/--csv into "table", "json" or "csv"; NULL after a usage error. */
const char *cli_format(const cli_cmd *cmd, const cli_args *a);

/* Print a result as `format` ("table", "json", "csv"); the table adds the chart (if `chart`) and
 * the bottleneck summary (if `summary`); `adv` (may be NULL) is the JSON's "advice" array and,
 * when `summary`, the table's last section. Returns the exit code. */
int cli_print_result(rf_ctx *ctx, const rf_result *r, const rf_machine *m, const char *format,
                     int chart, int summary, const rf_advice_list *adv);
/* The same with the table's and chart's options given (rows_max, brief: the demo's one screen). */
int cli_print_result_opts(rf_ctx *ctx, const rf_result *r, const rf_machine *m, const char *format,
                          int chart, int summary, const rf_advice_list *adv,
                          const rf_report_opts *opts);

/* A JSON document rendered by `render` (rf_report_json, rf_report_llm_json ...) with the advice
 * added (adv may be NULL: the document as it is) to stdout. */
rf_status cli_json_with_advice(rf_ctx *ctx,
                               rf_status (*render)(rf_ctx *, const void *, rf_writer *),
                               const void *obj, const rf_advice_list *adv);

/* The weights report of an LLM file of an architecture roofline does not build (llm, profile):
 * text, or JSON when `format` is "json". Returns the exit code. */
int cli_weights_report(rf_ctx *ctx, const rf_llm_model *m, const char *path, const rf_machine *mach,
                       size_t bandwidth, const char *format);

/* --plot FILE.svg|FILE.html|- (plot_out.c), shared by analyze, profile, llm, peaks and plot. */
enum { CLI_PLOT_SVG = 0, CLI_PLOT_HTML = 1 };

/* CLI_PLOT_SVG or _HTML from the file name ('-' is SVG on stdout); -1 for another name. */
int cli_plot_format(const char *path);

/* Check a --plot value before any work: 0, or a usage error (one line, exit 2) for command `cmd`.
 */
int cli_plot_check(const char *cmd, const char *path);

/* Draw results[0..n) (several: one series each) with every ceiling of `m` (may be NULL) into
 * `path` ('-': stdout), the back end chosen by the file name. Returns the exit code; one line on
 * stderr naming the file when it fails. */
int cli_plot(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
             const char *path);

/* Same with the back end given (CLI_PLOT_SVG or CLI_PLOT_HTML), whatever the name. */
int cli_plot_as(rf_ctx *ctx, const rf_result *const *results, size_t n, const rf_machine *m,
                const char *path, int format);

/* `llm --plot`: prefill and decode layers as two series, and the measured rates (when any) as a
 * third whose points are the whole passes, estimate and measurement. */
struct rf_llm_result;
int cli_plot_llm(rf_ctx *ctx, const struct rf_llm_result *r, const char *path);

/* The chart of a machine's roofs alone into `path`, as cli_plot. */
int cli_plot_machine(rf_ctx *ctx, const rf_machine *m, const char *path);

/* `roofline profile` on `path` (NULL: the built-in ResNet-18 demo) with the profile options in
 * `a` (cmd_profile.c; also run by the demo). `fallback_machine` as for cli_machine (on failure
 * without --hw the datasheet CLI_DEMO_MACHINE is used). Returns the exit code. */
int cli_profile_run(const cli_cmd *cmd, const cli_args *a, const char *path,
                    const char *fallback_machine);

/* Parse a whole number option (e.g. --top) in [min, max]; usage error otherwise. */
int cli_uint(const cli_cmd *cmd, const char *opt, const char *text, unsigned long long min,
             unsigned long long max, unsigned long long *out);

/* RF_TRY for the CLI's own helpers (which may not use the library's internal macros). */
#define CLI_TRY(expr)                                                                              \
    do {                                                                                           \
        rf_status cli_s = (expr);                                                                  \
        if (cli_s != RF_OK) return cli_s;                                                          \
    } while (0)

/* Write `b` to a temporary file beside `path`, then rename it over `path`: a full disk or a failed
 * write leaves the old file as it was, never half of one. One line on stderr naming `what` ("the
 * chart") and the file when it fails. Returns the exit code. */
int cli_write_file(const char *path, const rf_buf *b, const char *what);

/* Write `text` to `f` wrapped at 78 columns, every line indented by `indent` spaces. */
void cli_wrap(FILE *f, const char *text, int indent);

#endif
