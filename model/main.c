/* model: predicted MLUPS of D3Q19 propagation schemes from the stream and
 * membench probes, and their validation against lbmkernels' measurements. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char usage[] =
    "usage: model COMMAND [options]   (model COMMAND --help for each)\n"
    "  predict   predicted MLUPS of one kernel at one lattice size, level by level\n"
    "  validate  predict every point of DIR/lbm.csv, write model.csv, check the error\n"
    "  summary   the table `make bench` ends with, from DIR/model.csv\n"
    "  drift     how far the probes moved between the start and the end of a run\n"
    "  check-kernels  membench --kernel's measured described kernels against their\n"
    "            predictions (membench-kernel.csv)\n"
    "  corrections  the named corrections, and what each does to the error before\n"
    "            the kernel over result folders (their model.csv)\n"
    "  --help, --version\n";

int main(int argc, char **argv)
{
    lbp_cli_init("model");
    model_argc = argc;
    model_argv = argv;
    if (argc < 2) lbp_usage_error("missing command (predict, validate, summary, drift, check-kernels, corrections); see --help");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) { fputs(usage, stdout); return 0; }
    if (!strcmp(cmd, "--version")) { printf("model (lbmprobe) %s\n", LBP_VERSION); return 0; }
    if (!strcmp(cmd, "predict")) return model_cmd_predict(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate")) return model_cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "summary")) return model_cmd_summary(argc - 1, argv + 1);
    if (!strcmp(cmd, "drift")) return model_cmd_drift(argc - 1, argv + 1);
    if (!strcmp(cmd, "check-kernels")) return model_cmd_check_kernels(argc - 1, argv + 1);
    if (!strcmp(cmd, "corrections")) return model_cmd_corrections(argc - 1, argv + 1);
    lbp_usage_error("unknown command '%s' (predict, validate, summary, drift, check-kernels, corrections)", cmd);
}
