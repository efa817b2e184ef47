/* The model CLI's four commands (main.c dispatches), one file each, and
 * what they share.  Each returns the exit status: 0 ok, 1 failed
 * validation (points over the error bar, a prediction that is not a
 * number), 2 bad flags or input the model cannot read (a missing,
 * malformed or impossible file). */
#ifndef MODEL_COMMANDS_H
#define MODEL_COMMANDS_H

#include <getopt.h>

#include "cli.h"
#include "inputs.h"

/* The whole command line, for model-meta.csv (set by main). */
extern int model_argc;
extern char **model_argv;

int model_cmd_predict(int argc, char **argv);  /* cmd_predict.c */
int model_cmd_validate(int argc, char **argv); /* cmd_validate.c */
int model_cmd_summary(int argc, char **argv);  /* commands.c */
int model_cmd_drift(int argc, char **argv);    /* commands.c */
int model_cmd_check_kernels(int argc, char **argv); /* cmd_check_kernels.c */
int model_cmd_corrections(int argc, char **argv);   /* cmd_corrections.c */

/* 128^3: sizes from here on are held to --max-error, smaller ones to
 * --max-error-small. */
#define MODEL_LARGE_CELLS (128.0 * 128 * 128)

/* What every command's --help ends with. */
#define MODEL_LEVELS_HELP                                                                    \
    "The model's levels (doc/model.md describes them):\n"                                    \
    "  1 roofline  best copy bandwidth / bytes per update (write-allocate on CPUs)\n"        \
    "  2 probe     membench's N-word probe at the kernel's misalignment, word size,\n"      \
    "              occupancy and arithmetic\n"                                              \
    "  3 full      the probe at the kernel's own launch (membench-geometry.csv), else\n"    \
    "              back to back at the lattice's thread count (threads sweep), else\n"      \
    "              scaled by the working set's bandwidth and the launch interval\n"         \
    "Inputs outside what was measured are clamped and marked within_measured=no.\n"

/* Tool options of the commands (after the shared ones). */
enum {
    OPT_DATA = LBP_OPT_FIRST_TOOL, OPT_SCHEME, OPT_PRECISION, OPT_WORDS_READ, OPT_WORDS_WRITTEN,
    OPT_MIS_READS, OPT_MIS_WRITES, OPT_WORD_BYTES, OPT_LATTICES, OPT_LAUNCHES, OPT_SIZE,
    OPT_OCCUPANCY, OPT_BLOCKS_PER_SM, OPT_BLOCK_SIZE, OPT_MAX_ERROR, OPT_MAX_ERROR_SMALL, OPT_CELLS_PER_THREAD, OPT_OPS,
    OPT_MAX_CHANGE, OPT_KERNEL,
    /* several ranks (cmd_ranks.h) */
    OPT_RANKS, OPT_EXCHANGE, OPT_OVERLAP, OPT_WEAK, OPT_STRONG, OPT_NODES, OPT_GPUS_PER_NODE, OPT_LINK_LATENCY,
    OPT_LINK_GBS, OPT_FORMAT, OPT_JSON, OPT_MIS_ACCESS, OPT_MEASURED, OPT_BEFORE_KERNEL,
    /* the catalog of corrections (corrections.h), read by model_parse_options */
    OPT_WITHOUT, OPT_CORRECTIONS
};

/* --without NAME[,NAME] and --corrections all|none|NAME[,NAME]: the
 * commands that predict take them (model_parse_options applies them). */
#define MODEL_CORRECTION_OPTS                                               \
    MODEL_OPT("without", required_argument, OPT_WITHOUT),                   \
    MODEL_OPT("corrections", required_argument, OPT_CORRECTIONS)
#define MODEL_CORRECTIONS_HELP                                                               \
    "  --without NAME[,NAME]   predict without those corrections (model corrections\n"       \
    "                          --list names them; doc/model.md says what each does)\n"      \
    "  --corrections LIST      only those (all: the default; none: the equations alone)\n"

#define MODEL_OPT(name, has, code) {name, has, 0, code}
#define MODEL_SHARED_OPTS                                                   \
    MODEL_OPT("data", required_argument, OPT_DATA),                         \
    MODEL_OPT("backend", required_argument, LBP_OPT_BACKEND),               \
    MODEL_OPT("help", no_argument, LBP_OPT_HELP),                           \
    MODEL_OPT("version", no_argument, LBP_OPT_VERSION)

/* What the shared options said. */
typedef struct {
    lbp_common common;
    const char *dir;     /* --data */
    const char *backend; /* --backend, NULL for auto */
} model_cli;

/* A command's options: the table, its --help text, the handler of its own
 * options (NULL: none), and the folder --data names (for the error). */
typedef struct {
    const struct option *opts;
    const char *usage;
    void (*own)(int o, const char *arg, void *ctx);
    const char *data_dir_is;
} model_command;

/* Parses argv: the shared options, and each other one through
 * cmd->own(o, arg, ctx).  Exits 2 on a bad option or a stray argument, and
 * without --data. */
void model_parse_options(model_cli *cli, int argc, char **argv, const model_command *cmd, void *ctx);

/* Input the model cannot read: one line, exit 2 -- bad input is a usage
 * error as a bad flag is (LBP_EXIT_USAGE), never a failed validation. */
#define model_bad_input(...) lbp_usage_error(__VA_ARGS__)

/* The named column of a table row as a finite number; input the model
 * cannot read exits 2 (model_bad_input). */
double model_table_number(const lbp_table *t, int row, const char *column);

/* model_inputs_load, or exit 2 with its message; warns when level 3 will
 * lack the launch interval. */
void model_load_or_fail(model_inputs *in, const char *dir, const char *backend);

#endif
