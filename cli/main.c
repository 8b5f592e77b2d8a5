/* main.c — the `roofline` program: the subcommand table, --help, --version, and `roofline` with no
 * argument running the demo. Each subcommand lives in its own cmd_<name>.c. */
#include <string.h>

#include "cli.h"

extern const rf_cli_cmd rf_cmd_analyze, rf_cmd_hw, rf_cmd_demo, rf_cmd_peaks, rf_cmd_plot,
    rf_cmd_profile, rf_cmd_llm;
extern const rf_cli_cmd cli_cmd_run;

const rf_cli_cmd *const rf_cli_commands[] = {&rf_cmd_analyze, &rf_cmd_hw, &rf_cmd_demo,
                                              &rf_cmd_peaks, &rf_cmd_plot, &rf_cmd_profile,
                                              &rf_cmd_llm, &cli_cmd_run};
const size_t rf_cli_n_commands = sizeof rf_cli_commands / sizeof *rf_cli_commands;

static void rf__usage(FILE *f)
{
    fprintf(f, "usage: roofline [COMMAND] [OPTIONS]\n\n");
    rf_cli_wrap(f, "Roofline performance analysis: on this machine (or a named one), is a "
                   "computation limited by compute or by memory, how far is it from what the "
                   "hardware allows, and what would move it?", 0);
    fprintf(f, "\ncommands:\n");
    for (size_t i = 0; i < rf_cli_n_commands; i++)
        fprintf(f, "  %-10s %s\n", rf_cli_commands[i]->name, rf_cli_commands[i]->summary);
    fprintf(f, "\nWith no command, roofline runs 'demo'. 'roofline COMMAND --help' for details.\n"
               "  -h, --help     show this help\n  -V, --version  show the version\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) return rf_cmd_demo.run(&rf_cmd_demo, 1, argv);
    const char *c = argv[1];
    if (strcmp(c, "--help") == 0 || strcmp(c, "-h") == 0 || strcmp(c, "help") == 0) {
        if (argc > 2 && strcmp(argv[2], "--man") == 0) {
            rf_cli_man(stdout);
            return 0;
        }
        rf__usage(stdout);
        return 0;
    }
    if (strcmp(c, "--version") == 0 || strcmp(c, "-V") == 0) {
        printf("roofline %s (libroofline %s)\n", RF_VERSION_STRING, rf_version());
        return 0;
    }
    for (size_t i = 0; i < rf_cli_n_commands; i++)
        if (strcmp(c, rf_cli_commands[i]->name) == 0)
            return rf_cli_commands[i]->run(rf_cli_commands[i], argc - 1, argv + 1);
    if (c[0] == '-' && c[1]) return rf_cmd_demo.run(&rf_cmd_demo, argc, argv);
    fprintf(stderr, "roofline: unknown command '%s' (see 'roofline --help')\n", c);
    return RF_EXIT_USAGE;
}
