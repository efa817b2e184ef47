/* model predict: one kernel at one lattice size, level by level. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_ranks.h"
#include "effects.h"
#include "holdout.h"
#include "kernel.h"
#include "kernelfile_launch.h"
#include "launch.h"
#include "predict.h"
#include "ranks_print.h"
#include "report.h"
#include "report_json.h"

static const char predict_usage[] =
    "usage: model predict --data DIR [--backend B] KERNEL --size NX[xNYxNZ] [--occupancy F | --blocks-per-sm K]\n"
    "                     [--ranks N [--exchange host|peer|mpi] [--overlap on|off] [--weak|--strong]]\n"
    "Predicted MLUPS of one kernel on the device whose stream and membench results\n"
    "are in DIR, at each level of the model, with what each level read.\n"
    "KERNEL is a built-in scheme:\n"
    "  --scheme push|pull|split|aa --precision fp32|fp64|fp16s\n"
    "    push  19 words read, 19 written, 0 misaligned reads, 10 misaligned writes\n"
    "    pull, split  10 misaligned reads, 0 misaligned writes\n"
    "    aa    one lattice; launches alternate 0/0 (even step) and 10/10 (odd step)\n"
    "    (10 = the D3Q19 populations with a nonzero x velocity)\n"
    "or a kernel description file (doc/kernels.md; examples/kernels/):\n"
    "  --kernel FILE           name, words, misalignment, word size, lattices, launches,\n"
    "                          operations, cells per thread, the launch (linear, rows,\n"
    "                          grid), block and registers or occupancy; --precision\n"
    "                          fp32|fp64|fp16s sets its word size, the launch flags below\n"
    "                          override the file's\n"
    "or a description of any other kernel, per cell and time step:\n"
    "  --words-read N          words read (required)\n"
    "  --words-written N       words written (default: as read)\n"
    "  --misaligned-reads L    reads at index+1 (default 0)\n"
    "  --misaligned-writes M   writes at index+1 (default 0)\n"
    "  --word-bytes B          bytes per word (default 4; membench probes 2, 4 and 8,\n"
    "                          others are read from the nearest, scaled)\n"
    "  --lattices 1|2          copies of the lattice in memory (default 2)\n"
    "  --launches-per-step K   kernel launches that make one step (default 1)\n"
    "  --ops F                 floating-point operations per cell, FMA counted once\n"
    "                          (default 0; the schemes: 150, lbmkernels' BGK collision)\n"
    "  --misaligned-access vector|word  at several cells per thread, the misaligned\n"
    "                          words move as one vector like the aligned ones (default),\n"
    "                          or one word per cell (lbmkernels' schemes: membench's\n"
    "                          vector probes)\n"
    "  A kernel whose launches alternate between access patterns takes a comma\n"
    "  list, one entry per launch in turn (a single value applies to all):\n"
    "    --misaligned-reads 0,10 --misaligned-writes 0,10 --lattices 1   is A-A;\n"
    "  the prediction averages the launches by time.\n"
    "Lattice and launch:\n"
    "  --size NX[xNYxNZ]       lattice (one number: a cube); one whose words, in every\n"
    "                          lattice kept, are more than the device's memory: exit 2\n"
    "  --occupancy F           resident threads / max per SM the kernel reaches, (0,1]\n"
    "  --blocks-per-sm K       or resident blocks per SM (with --block-size)\n"
    "  --block-size B          threads per block (picks probes of that block size)\n"
    "  --cells-per-thread V    adjacent cells per thread whose aligned words move as one\n"
    "                          vector of V words (lbmkernels' cells_per_thread; default 1),\n"
    "                          or row: a row per work-item looping over x (a CPU's shape)\n"
    "  --data DIR              result folder (stream.csv, stream-meta.csv, membench.csv,\n"
    "                          membench-fit.csv, launch.csv)\n"
    "  --backend cuda|opencl   rows of this backend (needed when DIR holds several)\n"
    MODEL_RANKS_HELP
    "  --before-kernel         the prediction before the kernel (model validate's\n"
    "                          before_kernel_mlups): none of the probes measured at this\n"
    "                          launch and lattice (membench-geometry.csv's rows at its\n"
    "                          launch and thread count, the threads sweep at that count,\n"
    "                          launch probes of it); one device only\n"
    "  --json                  one JSON object instead of the text: the levels, the path\n"
    "                          that answered, within_measured, read_instead and notes\n"
    MODEL_CORRECTIONS_HELP
    "  --help, --version\n" MODEL_LEVELS_HELP;

typedef struct {
    const char *scheme, *precision, *size, *kernel_file;
    model_kernel k; /* the description flags */
    model_kernel_file file; /* --kernel FILE */
    model_lattice lat;
    int described, have_written, cells_per_thread, json, before_kernel;
    int n_reads, n_writes, reads[MODEL_MAX_PHASES], writes[MODEL_MAX_PHASES];
    model_ranks_args ranks; /* several devices */
} predict_args;

static int phase_list(const char *flag, const char *s, int *out)
{
    int n = model_parse_phase_list(s, 100000, out);
    if (n < 0)
        lbp_usage_error("%s: '%s' is not a whole number or a comma list of up to %d (one per alternating launch)",
                        flag, s, MODEL_MAX_PHASES);
    return n;
}

/* The flags that describe a kernel; 0 when o is not one. */
static int kernel_option(int o, const char *arg, predict_args *a)
{
    model_kernel *k = &a->k;
    switch (o) {
    case OPT_WORDS_READ: k->words_read = (double)lbp_parse_int("--words-read", arg, 1, 1000); break;
    case OPT_WORDS_WRITTEN:
        k->words_written = (double)lbp_parse_int("--words-written", arg, 1, 1000);
        a->have_written = 1;
        break;
    case OPT_MIS_READS: a->n_reads = phase_list("--misaligned-reads", arg, a->reads); break;
    case OPT_MIS_WRITES: a->n_writes = phase_list("--misaligned-writes", arg, a->writes); break;
    case OPT_WORD_BYTES: k->word_bytes = (int)lbp_parse_int("--word-bytes", arg, 1, 64); break;
    case OPT_LATTICES: k->lattices = (int)lbp_parse_int("--lattices", arg, 1, 2); break;
    case OPT_LAUNCHES: k->launches_per_step = (int)lbp_parse_int("--launches-per-step", arg, 1, 64); break;
    case OPT_OPS: k->ops_per_cell = lbp_parse_double("--ops", arg, 0, 1e6); break;
    case OPT_MIS_ACCESS:
        k->misaligned_access = (model_misaligned_access)lbp_parse_choice(
            "--misaligned-access", arg, (const char *const[]){"vector", "word", NULL});
        break;
    default: return 0;
    }
    a->described = 1;
    return 1;
}

static void predict_option(int o, const char *arg, void *ctx)
{
    predict_args *a = ctx;
    if (kernel_option(o, arg, a) || model_ranks_option(o, arg, &a->ranks)) return;
    switch (o) {
    case OPT_SCHEME:
        a->scheme = arg;
        lbp_parse_choice("--scheme", arg, (const char *const[]){"push", "pull", "split", "aa", NULL});
        break;
    case OPT_PRECISION:
        a->precision = arg;
        lbp_parse_choice("--precision", arg, (const char *const[]){"fp32", "fp64", "fp16s", NULL});
        break;
    case OPT_SIZE: a->size = arg; break;
    case OPT_KERNEL: a->kernel_file = arg; break;
    case OPT_OCCUPANCY: a->lat.occupancy = lbp_parse_double("--occupancy", arg, 1e-6, 1); break;
    case OPT_BLOCKS_PER_SM: a->lat.blocks_per_cu = (double)lbp_parse_int("--blocks-per-sm", arg, 1, 1024); break;
    case OPT_BLOCK_SIZE: a->lat.block_size = (int)lbp_parse_int("--block-size", arg, 1, 65536); break;
    case OPT_CELLS_PER_THREAD:
        /* row: lbm.csv's 0, a row per work-item (-1 here, as given) */
        a->cells_per_thread = !strcmp(arg, "row") ? -1 : (int)lbp_parse_int("--cells-per-thread", arg, 1, 64);
        break;
    case OPT_JSON: a->json = 1; break;
    case OPT_BEFORE_KERNEL: a->before_kernel = 1; break;
    }
}

static void parse_size(const char *s, model_lattice *lat)
{
    long long v[3];
    char tail;
    int n = sscanf(s, "%lldx%lldx%lld%c", &v[0], &v[1], &v[2], &tail);
    if (n != 3) {
        n = sscanf(s, "%lld%c", &v[0], &tail) == 1 ? 1 : 0;
        v[1] = v[2] = v[0];
    }
    if (!n || s[0] < '0' || s[0] > '9' || v[0] < 1 || v[1] < 1 || v[2] < 1 || v[0] > 100000 || v[1] > 100000 ||
        v[2] > 100000)
        lbp_usage_error("--size: '%s' is not NX or NXxNYxNZ (whole numbers 1..100000)", s);
    lat->nx = v[0];
    lat->ny = v[1];
    lat->nz = v[2];
    lat->cells = (double)lat->nx * lat->ny * lat->nz;
}

/* The described kernel's alternating launches, each checked against its
 * word counts. */
static void described_phases(predict_args *a)
{
    model_kernel *k = &a->k;
    if (a->n_reads > 1 && a->n_writes > 1 && a->n_reads != a->n_writes)
        lbp_usage_error("--misaligned-reads has %d launches, --misaligned-writes %d: give lists of the same length "
                        "(or one value)", a->n_reads, a->n_writes);
    k->phases = a->n_reads > a->n_writes ? a->n_reads : a->n_writes;
    for (int p = 0; p < k->phases; p++) {
        k->misaligned_reads[p] = a->reads[a->n_reads > 1 ? p : 0];
        k->misaligned_writes[p] = a->writes[a->n_writes > 1 ? p : 0];
        if (k->misaligned_reads[p] > k->words_read)
            lbp_usage_error("--misaligned-reads: %d is more than the %g words read", k->misaligned_reads[p],
                            k->words_read);
        if (k->misaligned_writes[p] > k->words_written)
            lbp_usage_error("--misaligned-writes: %d is more than the %g words written", k->misaligned_writes[p],
                            k->words_written);
    }
}

/* The kernel of --kernel FILE (exit 2 on any mistake in it), its word size
 * from --precision where given. */
static void kernel_from_file(predict_args *a)
{
    char err[1024];
    if (a->scheme || a->described)
        lbp_usage_error("--kernel %s describes the kernel already: drop --scheme or the description flags",
                        a->kernel_file);
    if (model_kernel_file_read(a->kernel_file, &a->file, err, sizeof err)) lbp_usage_error("%s", err);
    a->k = a->file.k;
    if (a->precision) a->k.word_bytes = model_precision_word_bytes(a->precision);
    if (a->k.launch == MODEL_LAUNCH_GRID && a->lat.block_size > 0 && a->lat.block_size != a->file.block_size)
        lbp_usage_error("--block-size %d: %s launches a grid of %dx%dx%d blocks (%d threads)", a->lat.block_size,
                        a->kernel_file, a->k.block[0], a->k.block[1], a->k.block[2], a->file.block_size);
}

/* A built-in scheme, a kernel file, or the kernel the flags describe. */
static void kernel_from_args(predict_args *a)
{
    if (a->kernel_file) {
        kernel_from_file(a);
    } else if (a->scheme || a->precision) {
        if (a->described)
            lbp_usage_error("--scheme describes the kernel already: drop the kernel description flags, or --scheme");
        if (!a->scheme || !a->precision) lbp_usage_error("--scheme and --precision go together");
        model_builtin_kernel(&a->k, a->scheme, a->precision);
    } else {
        if (!a->described || a->k.words_read <= 0)
            lbp_usage_error("missing kernel: --scheme and --precision, or --words-read N (and the other description "
                            "flags)");
        if (!a->have_written) a->k.words_written = a->k.words_read;
        described_phases(a);
        snprintf(a->k.name, sizeof a->k.name, "described kernel");
    }
    if (a->cells_per_thread || !a->kernel_file)
        a->k.cells_per_thread = a->cells_per_thread < 0 ? 0 : a->cells_per_thread ? a->cells_per_thread : 1;
}

/* What --before-kernel held out, as JSON. */
static void json_held_out(model_json *j, const model_held_out *h)
{
    model_json_object(j, "before_kernel");
    model_json_number(j, "geometry_rows", h->geometry);
    model_json_number(j, "threads_rows", h->threads);
    model_json_number(j, "launch_probes", h->launch_probes);
    model_json_close(j);
}

/* Each correction's effect on this prediction (effects.h), as text: the
 * ones that change it, and the ones switched off. */
static void print_effects(const double *effect)
{
    char off[256];
    printf("corrections (MLUPS with over without):");
    int any = 0;
    for (int c = 0; c < MODEL_CORRECTIONS; c++)
        if (effect[c] > 0 && fabs(effect[c] - 1) >= 1e-4)
            printf("%s %s x %.4f", any++ ? "," : "", model_correction_catalog[c].name, effect[c]);
    if (!any) printf(" none changes it");
    if (model_corrections_off_text(off, sizeof off)[0]) printf("; off: %s", off);
    printf("\n");
}

static void json_effects(model_json *j, const double *effect)
{
    model_json_object(j, "corrections");
    for (int c = 0; c < MODEL_CORRECTIONS; c++)
        if (model_correction_on(c)) model_json_number(j, model_correction_catalog[c].name, effect[c]);
    model_json_close(j);
}

/* One device: the prediction (before the kernel where asked), as text or
 * JSON. */
static void predict_one(const model_inputs *in, const predict_args *a)
{
    char err[1024];
    model_held_out held;
    model_prediction *pr = malloc(sizeof *pr);
    if (!pr) lbp_fail("out of memory");
    const int failed = a->before_kernel ? model_predict_before_kernel(in, &a->k, &a->lat, NULL, pr, &held, err, sizeof err)
                                        : model_predict(in, &a->k, &a->lat, pr, err, sizeof err);
    if (failed) model_bad_input("%s", err); /* inputs that cannot answer */
    double effect[MODEL_CORRECTIONS];
    if (model_correction_effects(in, &a->k, &a->lat, a->before_kernel, pr->full.mlups, effect, err, sizeof err))
        model_bad_input("%s", err);
    if (a->json) {
        model_json j;
        model_json_begin(&j, stdout);
        model_json_prediction(&j, in, &a->k, &a->lat, pr);
        if (a->before_kernel) json_held_out(&j, &held);
        json_effects(&j, effect);
        model_json_end(&j);
    } else {
        if (a->before_kernel)
            printf("before the kernel: held out %d geometry rows at its launch and thread count, %d threads-sweep "
                   "rows at that count, %d launch probes\n", held.geometry, held.threads, held.launch_probes);
        model_report_prediction(in, &a->k, &a->lat, pr);
        print_effects(effect);
    }
    free(pr);
}

int model_cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_SHARED_OPTS,
        MODEL_OPT("scheme", required_argument, OPT_SCHEME), MODEL_OPT("precision", required_argument, OPT_PRECISION),
        MODEL_OPT("words-read", required_argument, OPT_WORDS_READ),
        MODEL_OPT("words-written", required_argument, OPT_WORDS_WRITTEN),
        MODEL_OPT("misaligned-reads", required_argument, OPT_MIS_READS),
        MODEL_OPT("misaligned-writes", required_argument, OPT_MIS_WRITES),
        MODEL_OPT("word-bytes", required_argument, OPT_WORD_BYTES),
        MODEL_OPT("lattices", required_argument, OPT_LATTICES),
        MODEL_OPT("launches-per-step", required_argument, OPT_LAUNCHES), MODEL_OPT("size", required_argument, OPT_SIZE),
        MODEL_OPT("occupancy", required_argument, OPT_OCCUPANCY),
        MODEL_OPT("blocks-per-sm", required_argument, OPT_BLOCKS_PER_SM),
        MODEL_OPT("block-size", required_argument, OPT_BLOCK_SIZE),
        MODEL_OPT("cells-per-thread", required_argument, OPT_CELLS_PER_THREAD),
        MODEL_OPT("ops", required_argument, OPT_OPS), MODEL_OPT("kernel", required_argument, OPT_KERNEL),
        MODEL_OPT("misaligned-access", required_argument, OPT_MIS_ACCESS),
        MODEL_RANKS_OPTS, MODEL_OPT("json", no_argument, OPT_JSON),
        MODEL_OPT("before-kernel", no_argument, OPT_BEFORE_KERNEL), MODEL_CORRECTION_OPTS, {0, 0, 0, 0}};
    predict_args a = {.k = {.word_bytes = 4, .lattices = 2, .launches_per_step = 1, .phases = 1},
                      .lat = {.occupancy = -1, .blocks_per_cu = -1}, .n_reads = 1,
                      .n_writes = 1, .ranks = MODEL_RANKS_ARGS_INIT};
    static const model_command cmd = {opts, predict_usage, predict_option, "the folder with stream.csv and membench.csv"};
    model_cli cli;
    model_parse_options(&cli, argc, argv, &cmd, &a);
    if (!a.size) lbp_usage_error("missing --size NX[xNYxNZ]");
    if (a.lat.occupancy > 0 && a.lat.blocks_per_cu > 0) lbp_usage_error("give --occupancy or --blocks-per-sm, not both");
    parse_size(a.size, &a.lat);
    kernel_from_args(&a);
    const int on_ranks = model_ranks_asked(&a.ranks);
    if (on_ranks && a.json) { /* --json is --format json there */
        if (a.ranks.format >= 0 && a.ranks.format != RANKS_JSON) lbp_usage_error("--json and --format: give one");
        a.ranks.format = RANKS_JSON;
    }
    if (on_ranks) model_ranks_check(&a.ranks);
    if (on_ranks && a.before_kernel) lbp_usage_error("--before-kernel: one device only (drop --ranks)");
    model_inputs in;
    model_load_or_fail(&in, cli.dir, cli.backend);
    char err[1024];
    /* blocks per SM from the command line, else from the file (its line) */
    const char *blocks_said = a.lat.blocks_per_cu > 0 || !a.kernel_file ? "--blocks-per-sm" : a.file.blocks_said;
    if (a.kernel_file && model_kernel_file_launch(&a.file, &in, &a.lat, err, sizeof err))
        lbp_usage_error("%s", err);
    model_occupancy_from_blocks(&in, &a.lat, blocks_said);
    /* a lattice the device cannot hold is a mistake in the input, not a
     * prediction (on ranks: each rank's slab, below) */
    if (!on_ranks && model_lattice_fits(&in, a.lat.cells, model_kernel_cell_bytes(&a.k), err, sizeof err))
        lbp_usage_error("--size %s: %s", a.size, err);
    if (on_ranks) {
        const int status = model_predict_ranks(&in, &a.k, &a.lat, &a.ranks, cli.dir);
        model_inputs_free(&in);
        return status;
    }
    predict_one(&in, &a);
    model_inputs_free(&in);
    return 0;
}
