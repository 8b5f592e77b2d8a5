/* cmd_demo.c — `roofline demo` (and `roofline` with no argument): profiles the built-in
 * ResNet-18 (an ONNX graph embedded in the library, data/resnet18.onnx) like `roofline profile`,
 * against the default machine (cli_machine's fallback). */
#include <string.h>

#include "cli.h"

static const cli_opt cli_demo_opts[] = {
    CLI_MACHINE_OPTS,
    {"batch", 'b', "N", "batch size (default: 1)"},
    {"input", 'i', "NAME=DIMS", "input shape, e.g. input=1x3x512x512"},
    {"compare", 0, "NAME=DIMS", "profile again with these input shapes and show the shift"},
    {"top", 'n', "N", "list the N slowest layers, slowest first (default: 8; 0: every layer)"},
    {"all", 0, NULL,
     "the full report: every layer in model order, the whole chart and legend, the "
     "bottleneck summary, the slowest layers and every suggestion"},
    {"format", 'f', "table|json|csv", "output format (default: table)"},
    {"json", 0, NULL, "same as --format json"},
    {"csv", 0, NULL, "same as --format csv"},
    {"no-chart", 0, NULL, "leave out the chart"},
    {"wide", 0, NULL, "tables with measurements: every column (default: those that fit 120)"},
    {"measure", 'm', NULL,
     "run ResNet-18 on this CPU and put every layer's measured point under "
     "its roof"},
    {"repeat", 0, "N",
     "--measure: timed passes after 2 warm-up ones (default: as many as fit in about 2.5 s); 1: "
     "one pass in all"},
    {"threads", 0, "N", "--measure: threads for oneDNN and OpenBLAS (default: every core)"},
    {"plot", 0, "FILE.svg|FILE.html|-", "also draw the chart as SVG or an interactive HTML page"},
    CLI_ADVICE_OPTS,
    {0, 0, 0, 0},
};
CLI_OPTS_FIT(cli_demo_opts);

static int cli_demo(const cli_cmd *cmd, int argc, char **argv)
{
    cli_args a;
    int done, rc = cli_parse(cmd, argc, argv, &a, &done);
    if (rc || done) return rc;
    if (a.n_pos) return cli_usage_error(cmd, "unexpected argument '%s'", a.pos[0]);
    return cli_profile_run(cmd, &a, NULL, CLI_DEMO_MACHINE);
}

const cli_cmd cmd_demo = {
    "demo",
    "demo [OPTIONS]",
    "the built-in demo (what 'roofline' with no argument runs)",
    "Profiles the built-in model, ResNet-18 (torchvision's architecture, batch 1, 3x224x224, "
    "FP32; an ONNX graph embedded in the program, weights not needed), layer by layer as "
    "'roofline profile' does, against the machine given or else the default machine "
    "(the datasheet figures of an Intel Xeon Platinum 8480+ when none can be resolved). "
    "The table fits one screen: the 8 slowest layers and a line for the rest, a short chart of "
    "them, the model's totals and the first two suggestions; --all prints the full report, "
    "--json and --csv every layer, --plot the chart of every layer.",
    cli_demo_opts,
    cli_demo,
};
