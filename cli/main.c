/* main.c — the `roofline` program: the subcommand table, --help, --version, and `roofline` with no
 * argument running the demo. Each subcommand lives in its own cmd_<name>.c. */
#include <string.h>

#include "cli.h"

extern const cli_cmd cmd_analyze, cmd_hw, cmd_demo, cmd_peaks, cmd_plot, cmd_profile, cmd_llm,
    cmd_ops;
extern const cli_cmd cli_cmd_run;

const cli_cmd *const cli_commands[] = {&cmd_analyze, &cmd_hw,  &cmd_demo,    &cmd_peaks, &cmd_plot,
                                       &cmd_profile, &cmd_llm, &cli_cmd_run, &cmd_ops};
const size_t cli_n_commands = sizeof cli_commands / sizeof *cli_commands;

static void cli_usage(FILE *f)
{
    fprintf(f, "usage: roofline [COMMAND] [OPTIONS]\n\n");
    cli_wrap(f,
             "Roofline performance analysis: on this machine (or a named one), is a "
             "computation limited by compute or by memory, how far is it from what the "
             "hardware allows, and what would move it?",
             0);
    fprintf(f, "\ncommands:\n");
    for (size_t i = 0; i < cli_n_commands; i++)
        fprintf(f, "  %-10s %s\n", cli_commands[i]->name, cli_commands[i]->summary);
    fprintf(f, "\nWith no command, roofline runs 'demo'. 'roofline COMMAND --help' (or 'roofline "
               "help COMMAND') for details;\n'roofline completion bash|zsh' prints a shell "
               "completion script.\n"
               "  -h, --help     show this help\n  -V, --version  show the version\n");
}

/* One line on stderr for a word that names no command, with the closest one when it is a typo. */
static int cli_unknown_command(const char *c)
{
    const char *names[sizeof cli_commands / sizeof *cli_commands + 2];
    for (size_t i = 0; i < cli_n_commands; i++) names[i] = cli_commands[i]->name;
    names[cli_n_commands] = "help";
    names[cli_n_commands + 1] = "completion";
    const char *near = cli_closest(c, strlen(c), names, cli_n_commands + 2);
    if (near)
        fprintf(stderr, "roofline: unknown command '%s' (did you mean '%s'?)\n", c, near);
    else
        fprintf(stderr, "roofline: unknown command '%s' (see 'roofline --help')\n", c);
    return EXIT_USAGE;
}

static int cli_dispatch(int argc, char **argv)
{
    if (argc < 2) return cmd_demo.run(&cmd_demo, 1, argv);
    const char *c = argv[1];
    if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0 || strcmp(c, "help") == 0) {
        if (argc > 2 && strcmp(argv[2], "--man") == 0) {
            cli_man(stdout);
            return 0;
        }
        if (argc > 2) { /* help COMMAND: that command's help; an unknown one is bad usage */
            for (size_t i = 0; i < cli_n_commands; i++)
                if (strcmp(argv[2], cli_commands[i]->name) == 0) {
                    cli_help(cli_commands[i], stdout);
                    return 0;
                }
            return cli_unknown_command(argv[2]);
        }
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(c, "completion") == 0) return cli_completion(argc, argv);
    if (strcmp(c, "--version") == 0 || strcmp(c, "-V") == 0) {
        printf("roofline %s (libroofline %s)\n", RF_VERSION_STRING, rf_version());
        return 0;
    }
    for (size_t i = 0; i < cli_n_commands; i++)
        if (strcmp(c, cli_commands[i]->name) == 0)
            return cli_commands[i]->run(cli_commands[i], argc - 1, argv + 1);
    if (c[0] == '-' && c[1]) return cmd_demo.run(&cmd_demo, argc, argv);
    return cli_unknown_command(c);
}

/* Every command's output is checked once more here: a failed write to stdout (a full disk, a
 * closed pipe) is exit 1 with one line, whichever path wrote (help, version, man page, reports). */
int main(int argc, char **argv)
{
    int rc = cli_dispatch(argc, argv);
    if (cli_flush(NULL) != RF_OK) return EXIT_INTERNAL;
    return rc;
}
