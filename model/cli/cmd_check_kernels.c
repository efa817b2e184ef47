/* model check-kernels: membench --kernel's measurements of described
 * kernels (membench-kernel.csv) against model predict --kernel on the same
 * lattice and launch. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernelfile_launch.h"
#include "launch.h"
#include "predict.h"
#include "table.h"

static const char check_usage[] =
    "usage: model check-kernels --data DIR [--backend B] --measured FILE [--max-error PCT]\n"
    "                           [--max-error-small PCT]\n"
    "Each row of FILE (membench-kernel.csv, written by membench --kernel KFILE\n"
    "--size LIST) predicted as model predict --kernel KFILE --size NXxNYxNZ does,\n"
    "with the row's word size and no arithmetic (membench's generated kernel moves\n"
    "the file's traffic at its launch and computes nothing), from the device's\n"
    "results in DIR; printed beside the measured MLUPS with the error.\n"
    "  --measured FILE         membench-kernel.csv (the kernel files it names are read\n"
    "                          from the paths it gives, relative to this directory)\n"
    "  --max-error PCT         bar for lattices of 128^3 cells and more (default 5)\n"
    "  --max-error-small PCT   bar for smaller lattices (default 10)\n"
    "  --data DIR, --backend B as for model predict; --help, --version\n"
    MODEL_CORRECTIONS_HELP
    "Exit 0: every point within its bar; 1: a point over it (or no prediction);\n"
    "2: a file that cannot be read.\n";

typedef struct {
    const char *measured;
    double large, small;
} check_args;

static void check_option(int o, const char *arg, void *ctx)
{
    check_args *a = ctx;
    if (o == OPT_MEASURED) a->measured = arg;
    if (o == OPT_MAX_ERROR) a->large = lbp_parse_double("--max-error", arg, 0, 1e6);
    if (o == OPT_MAX_ERROR_SMALL) a->small = lbp_parse_double("--max-error-small", arg, 0, 1e6);
}

/* One measured point. */
typedef struct {
    char file[512];
    long long nx, ny, nz, launched, word_bytes;
    double mlups;
} check_row;

static void read_row(const lbp_table *t, int r, check_row *out)
{
    char err[1024];
    /* the name is printed: a kernel name (membench wrote one), no text
     * that could reach the console as an escape sequence */
    if (!model_kernel_name_ok(lbp_table_text(t, r, lbp_table_column(t, "name"))))
        model_bad_input("%s:%d: column 'name': not a kernel name (1 to %d of A-Z a-z 0-9 . _ -)", t->path, t->line[r],
                        MODEL_KERNEL_NAME_MAX);
    snprintf(out->file, sizeof out->file, "%s", lbp_table_text(t, r, lbp_table_column(t, "kernel_file")));
    if (lbp_table_whole_in_by_name(t, r, "nx", 1, 1000000, &out->nx, err, sizeof err) ||
        lbp_table_whole_in_by_name(t, r, "ny", 1, 1000000, &out->ny, err, sizeof err) ||
        lbp_table_whole_in_by_name(t, r, "nz", 1, 1000000, &out->nz, err, sizeof err) ||
        lbp_table_whole_in_by_name(t, r, "launched_threads", 1, 1LL << 50, &out->launched, err, sizeof err) ||
        lbp_table_whole_in_by_name(t, r, "word_bytes", 2, 8, &out->word_bytes, err, sizeof err) ||
        lbp_table_number_in_by_name(t, r, "mlups_median", 1e-9, 1e9, &out->mlups, err, sizeof err))
        model_bad_input("%s", err);
}

/* The prediction of `model predict --kernel FILE --size` for the row,
 * with the row's word size and no arithmetic; NAN when the inputs cannot
 * answer. */
static double predict_row(const model_inputs *in, const check_row *row, model_prediction *pr)
{
    char err[1024];
    model_kernel_file f;
    if (model_kernel_file_read(row->file, &f, err, sizeof err)) model_bad_input("%s", err);
    model_kernel k = f.k;
    k.word_bytes = (int)row->word_bytes;
    k.ops_per_cell = 0;
    model_lattice lat = {.nx = row->nx, .ny = row->ny, .nz = row->nz, .occupancy = -1, .blocks_per_cu = -1};
    lat.cells = (double)lat.nx * lat.ny * lat.nz;
    if (model_kernel_file_launch(&f, in, &lat, err, sizeof err)) model_bad_input("%s", err);
    model_occupancy_from_blocks(in, &lat, f.blocks_said);
    if (model_predict(in, &k, &lat, pr, err, sizeof err)) {
        lbp_warn("%s: %s", row->file, err);
        return NAN;
    }
    return pr->full.mlups;
}

static const char *launch_of(const lbp_table *t, int r)
{
    const int c = lbp_table_column(t, "launch");
    return c >= 0 ? lbp_table_text(t, r, c) : "linear";
}

/* Prints each point; returns how many are over their bar. */
static int check_rows(const model_inputs *in, const lbp_table *t, const check_args *a)
{
    int over = 0;
    model_prediction *pr = malloc(sizeof *pr);
    if (!pr) lbp_fail("out of memory");
    printf("%-20s %-6s %16s %11s %6s %6s %9s %9s %8s %5s\n", "kernel", "launch", "lattice", "threads", "idle%",
           "waves", "predicted", "measured", "error%", "bar%");
    for (int r = 0; r < t->rows; r++) {
        check_row row;
        read_row(t, r, &row);
        const double predicted = predict_row(in, &row, pr), cells = (double)row.nx * row.ny * row.nz;
        const double error = 100 * (predicted - row.mlups) / row.mlups;
        const double bar = cells >= MODEL_LARGE_CELLS ? a->large : a->small;
        const int bad = !(fabs(error) <= bar);
        over += bad;
        char lattice[48];
        snprintf(lattice, sizeof lattice, "%lldx%lldx%lld", row.nx, row.ny, row.nz);
        printf("%-20s %-6s %16s %11lld %6.1f %6.2f %9.1f %9.1f %+8.2f %5g%s\n",
               lbp_table_text(t, r, lbp_table_column(t, "name")), launch_of(t, r), lattice, row.launched,
               100 * (1 - cells / (double)row.launched), pr->full.launch.waves, predicted, row.mlups, error, bar,
               bad ? "  OVER" : "");
    }
    free(pr);
    return over;
}

/* The points were measured on the device whose results predict them. */
static void same_device(const lbp_table *t, const model_inputs *in, const char *path)
{
    const int c = lbp_table_column(t, "device");
    for (int r = 0; c >= 0 && in->device[0] && r < t->rows; r++)
        if (strcmp(lbp_table_text(t, r, c), in->device))
            model_bad_input("%s:%d: measured on %s; the results in %s are of %s", path, t->line[r],
                            lbp_table_text(t, r, c), in->dir, in->device);
}

int model_cmd_check_kernels(int argc, char **argv)
{
    static const struct option opts[] = {MODEL_SHARED_OPTS, MODEL_CORRECTION_OPTS,
                                         MODEL_OPT("measured", required_argument, OPT_MEASURED),
                                         MODEL_OPT("max-error", required_argument, OPT_MAX_ERROR),
                                         MODEL_OPT("max-error-small", required_argument, OPT_MAX_ERROR_SMALL),
                                         {0, 0, 0, 0}};
    check_args a = {.large = 5, .small = 10};
    static const model_command cmd = {opts, check_usage, check_option, "the device's results: stream.csv, membench.csv"};
    model_cli cli;
    model_parse_options(&cli, argc, argv, &cmd, &a);
    if (!a.measured) lbp_usage_error("missing --measured FILE (membench-kernel.csv)");
    static const char *const need[] = {"kernel_file", "name", "nx", "ny", "nz", "launched_threads", "word_bytes",
                                       "mlups_median", NULL};
    lbp_table t;
    char err[1024];
    if (lbp_table_read_columns(&t, a.measured, need, err, sizeof err)) model_bad_input("%s", err);
    if (!t.rows) model_bad_input("%s: no rows", a.measured);
    model_inputs in;
    model_load_or_fail(&in, cli.dir, cli.backend);
    same_device(&t, &in, a.measured);
    const int over = check_rows(&in, &t, &a);
    printf("%d of %d point%s within the bar (%g %% at 128^3 cells and more, %g %% below)\n", t.rows - over, t.rows,
           t.rows > 1 ? "s" : "", a.large, a.small);
    lbp_table_free(&t);
    model_inputs_free(&in);
    return over ? 1 : 0;
}
