/* predict, validate, summary, drift: see commands.h and --help. */
#include "commands.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "csv.h"
#include "drift.h"
#include "inputs.h"
#include "kernel.h"
#include "predict.h"
#include "table.h"

int model_argc;
char **model_argv;

enum {
    OPT_DATA = LBP_OPT_FIRST_TOOL, OPT_SCHEME, OPT_PRECISION, OPT_WORDS_READ, OPT_WORDS_WRITTEN,
    OPT_MIS_READS, OPT_MIS_WRITES, OPT_WORD_BYTES, OPT_LATTICES, OPT_LAUNCHES, OPT_SIZE,
    OPT_OCCUPANCY, OPT_BLOCKS_PER_SM, OPT_BLOCK_SIZE, OPT_MAX_ERROR, OPT_MAX_ERROR_SMALL, OPT_CELLS_PER_THREAD, OPT_OPS,
    OPT_MAX_CHANGE
};

#define OPT(name, has, code) {name, has, 0, code}
#define SHARED_OPTS                                                   \
    OPT("data", required_argument, OPT_DATA),                         \
    OPT("backend", required_argument, LBP_OPT_BACKEND),               \
    OPT("help", no_argument, LBP_OPT_HELP),                           \
    OPT("version", no_argument, LBP_OPT_VERSION)

#define LEVELS_HELP                                                                          \
    "Levels (each printed, and written to model.csv by validate):\n"                         \
    "  1 roofline  B / bytes per update (Habich §4).  GPU: B = best copy bandwidth of\n"     \
    "              stream.csv (kernel=copy, read+written bytes, working sets >= 4 x L2),\n"  \
    "              bytes = (words read + written) x word bytes = 152 B (fp32), 304 B (fp64).\n" \
    "              CPU with write-allocate (stream-meta kind=cpu, write_allocate=yes, or\n" \
    "              unknown): a store first reads its line, so bytes = (read + 2 x written)\n" \
    "              x word = 228 B (fp32), and B is what the bus moves: likwid copy_mem\n"    \
    "              (stores without write-allocate) when measured, else 3/2 x best copy\n"   \
    "              (copy counts 2 of its 3 transfers).  Without copy_mem this equals\n"     \
    "              best copy / 152 B.\n"                                                    \
    "  2 probe     1 / time per thread of the N-word probe (membench.csv, Obrecht Art. B)\n" \
    "              at N = (words read + written) / 2, L misaligned reads, M misaligned\n"   \
    "              writes, word size and occupancy, interpolated linearly between measured\n" \
    "              probes: base time from the `words` sweep, plus the extra time of the\n"  \
    "              `misaligned_both` (L = M), `misaligned_reads` (M = 0) or\n"              \
    "              `misaligned_writes` (L = 0) sweep, or the membench-fit.csv slopes for\n" \
    "              other combinations, times the `occupancy` sweep's ratio between the\n"   \
    "              kernel's occupancy and the probe's (misaligned writes: the occupancy\n" \
    "              sweep's M=10 probe at the kernel's block size and occupancy), times\n"    \
    "              the arithmetic factor: the payload probe (`payload` sweep, or the\n"     \
    "              occupancy sweep's collision payload at the kernel's block size and\n"     \
    "              occupancy; of the access width: 8 bytes at two float cells per\n"      \
    "              thread) over the aligned one at the kernel's operations per thread.\n"   \
    "              On a CPU with write-allocate a kernel keeping one lattice (A-A)\n"       \
    "              stores into lines it has just read: the probe time is divided by\n"      \
    "              likwid's copy_mem / copy bandwidth (the write-allocate's share of a\n"   \
    "              copy).\n"                                                                \
    "              Outside the measured range the value is clamped and the point marked\n"  \
    "              within_measured=no.\n"                                                   \
    "  3 full      where membench-geometry.csv measured the kernel's own launch (CUDA:\n"  \
    "              access width, block size, blocks per SM, thread count): per launch the\n" \
    "              N=19 probe there with the launch's L and M (in place for a kernel of\n"  \
    "              one lattice: its stores go to the lines it read), plus the collision\n"  \
    "              payload's excess x the kernel's operations / the payload's.  Else,\n"   \
    "              with a `threads` sweep (membench): the aligned N=19 probe's time per\n"  \
    "              launch, back to back, at the lattice's thread count (cells / cells\n"   \
    "              per thread), between the curves either side of the kernel's occupancy\n" \
    "              (linear in 1/occupancy), times the kernel factor (level 2 over its\n"   \
    "              base probe: misalignment, N, arithmetic, block size) and the L2\n"      \
    "              factor (the threads sweep's misaligned and payload curves over the\n"   \
    "              aligned one at that thread count, over the same at the largest).\n"     \
    "              Without one: probe time x (size-sweep copy bandwidth at the probe's\n"  \
    "              working set / at this lattice's), per step max(memory time, launches\n" \
    "              x back-to-back launch interval from launch.csv).  The fixed start\n"    \
    "              cost of one event-timed launch (intercept of copy time vs bytes over\n" \
    "              the L2-resident sizes) is removed from copy and probe times.\n"

static const char predict_usage[] =
    "usage: model predict --data DIR [--backend B] KERNEL --size NX[xNYxNZ] [--occupancy F | --blocks-per-sm K]\n"
    "Predicted MLUPS of one kernel on the device whose stream and membench results\n"
    "are in DIR, at each level of the model.\n"
    "KERNEL is a built-in scheme:\n"
    "  --scheme push|pull|split|aa --precision fp32|fp64\n"
    "    push  19 words read, 19 written, 0 misaligned reads, 10 misaligned writes\n"
    "    pull, split  10 misaligned reads, 0 misaligned writes\n"
    "    aa    one lattice; launches alternate 0/0 (even step) and 10/10 (odd step)\n"
    "    (10 = the D3Q19 populations with a nonzero x velocity)\n"
    "or a description of any other kernel, per cell and time step:\n"
    "  --words-read N          words read (required)\n"
    "  --words-written N       words written (default: as read)\n"
    "  --misaligned-reads L    reads at index+1 (default 0)\n"
    "  --misaligned-writes M   writes at index+1 (default 0)\n"
    "  --word-bytes 4|8        word size (default 4)\n"
    "  --lattices 1|2          copies of the lattice in memory (default 2)\n"
    "  --launches-per-step K   kernel launches that make one step (default 1)\n"
    "  --ops F                 floating-point operations per cell, FMA counted once\n"
    "                          (default 0; the schemes: 150, lbmkernels' BGK collision)\n"
    "  A kernel whose launches alternate between access patterns takes a comma\n"
    "  list, one entry per launch in turn (a single value applies to all):\n"
    "    --misaligned-reads 0,10 --misaligned-writes 0,10 --lattices 1   is A-A;\n"
    "  the prediction averages the launches by time.\n"
    "Lattice and launch:\n"
    "  --size NX[xNYxNZ]       lattice (one number: a cube)\n"
    "  --occupancy F           resident threads / max per SM the kernel reaches, (0,1]\n"
    "  --blocks-per-sm K       or resident blocks per SM (with --block-size)\n"
    "  --block-size B          threads per block (picks probes of that block size)\n"
    "  --cells-per-thread V    adjacent cells per thread whose aligned words move as one\n"
    "                          vector of V words (lbmkernels' cells_per_thread; default 1)\n"
    "  --data DIR              result folder (stream.csv, stream-meta.csv, membench.csv,\n"
    "                          membench-fit.csv, launch.csv)\n"
    "  --backend cuda|opencl   rows of this backend (needed when DIR holds several)\n"
    "  --help, --version\n" LEVELS_HELP;

static const char validate_usage[] =
    "usage: model validate --data DIR [--backend B] [--max-error PCT] [--max-error-small PCT] [--force]\n"
    "Predict every measured point of DIR/lbm.csv (each row with its own backend's\n"
    "stream and membench rows), write DIR/model.csv and DIR/model-meta.csv, print\n"
    "measured, predicted and roofline MLUPS with the error of the full model.\n"
    "  --max-error PCT         bar for lattices of 128^3 cells and more (default 5)\n"
    "  --max-error-small PCT   bar for smaller lattices (default 10)\n"
    "  --backend cuda|opencl   only this backend's rows\n"
    "  --force                 replace existing model.csv / model-meta.csv\n"
    "Exit 1 when any point's |error| exceeds its bar.\n" LEVELS_HELP;

static const char summary_usage[] =
    "usage: model summary --data DIR [--backend B]\n"
    "From DIR/model.csv: for each backend, scheme and precision at the largest measured\n"
    "lattice (best block size there): measured, predicted (full model) and roofline\n"
    "MLUPS, measured as % of the roofline, and the model's error; then, where\n"
    "DIR/membench-recheck.csv is, how far the probes moved during the run (model drift).\n";

static const char drift_usage[] =
    "usage: model drift --data DIR [--max-change PCT] [--force]\n"
    "How far the device moved during a run: make bench measures the threads sweep's\n"
    "probes again after the kernels, at the thread counts of their lattices\n"
    "(DIR/membench-recheck.csv).  Each is matched with the same probe of\n"
    "DIR/membench.csv (backend, word size, L, M, payload, block size, blocks per SM,\n"
    "thread count); writes DIR/drift.csv (first_ms, recheck_ms: per-launch medians;\n"
    "change_pct) and prints, per backend, the median and the largest change.  The\n"
    "model reads the first run, the kernels ran between the two: a model error\n"
    "smaller than the change cannot be told from the device's own.\n"
    "  --max-change PCT        exit 1 when a probe changed by more (default: no bar)\n"
    "  --force                 replace an existing drift.csv\n";

static void parse_shared(lbp_common *c, int o, const char *arg, const char *usage, const char **dir)
{
    if (o == OPT_DATA) { *dir = arg; return; }
    if (o == '?') lbp_bad_option();
    if (!lbp_common_opt(c, o, arg, usage)) lbp_bad_option();
}

static const char *backend_filter(const lbp_common *c)
{
    return c->backend && strcmp(c->backend, "auto") ? c->backend : NULL;
}

static void load_or_fail(model_inputs *in, const char *dir, const char *backend)
{
    char err[1024];
    if (model_inputs_load(in, dir, backend, err, sizeof err)) lbp_fail("%s", err);
    if (!in->have_launch)
        lbp_warn("%s/launch.csv: no back_to_back rows for %s: level 3 is incomplete (no launch interval)",
                 dir, in->backend);
}

/* ---- predict ------------------------------------------------------------ */

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

static int phase_list(const char *flag, const char *s, int *out)
{
    int n = model_parse_phase_list(s, 100000, out);
    if (n < 0)
        lbp_usage_error("%s: '%s' is not a whole number or a comma list of up to %d (one per alternating launch)",
                        flag, s, MODEL_MAX_PHASES);
    return n;
}

int model_cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {
        SHARED_OPTS,
        OPT("scheme", required_argument, OPT_SCHEME), OPT("precision", required_argument, OPT_PRECISION),
        OPT("words-read", required_argument, OPT_WORDS_READ),
        OPT("words-written", required_argument, OPT_WORDS_WRITTEN),
        OPT("misaligned-reads", required_argument, OPT_MIS_READS),
        OPT("misaligned-writes", required_argument, OPT_MIS_WRITES),
        OPT("word-bytes", required_argument, OPT_WORD_BYTES), OPT("lattices", required_argument, OPT_LATTICES),
        OPT("launches-per-step", required_argument, OPT_LAUNCHES), OPT("size", required_argument, OPT_SIZE),
        OPT("occupancy", required_argument, OPT_OCCUPANCY),
        OPT("blocks-per-sm", required_argument, OPT_BLOCKS_PER_SM),
        OPT("block-size", required_argument, OPT_BLOCK_SIZE),
        OPT("cells-per-thread", required_argument, OPT_CELLS_PER_THREAD), OPT("ops", required_argument, OPT_OPS),
        {0, 0, 0, 0}};
    lbp_common c = {.device = -1};
    const char *dir = NULL, *scheme = NULL, *precision = NULL, *size = NULL;
    model_kernel k = {.word_bytes = 4, .lattices = 2, .launches_per_step = 1, .phases = 1};
    model_lattice lat = {.occupancy = -1, .blocks_per_cu = -1};
    int described = 0, n_reads = 1, n_writes = 1, have_written = 0, cells_per_thread = 1;
    int reads[MODEL_MAX_PHASES] = {0}, writes[MODEL_MAX_PHASES] = {0};
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case OPT_SCHEME: scheme = optarg; lbp_parse_choice("--scheme", optarg, (const char *const[]){"push", "pull", "split", "aa", NULL}); break;
        case OPT_PRECISION: precision = optarg; lbp_parse_choice("--precision", optarg, (const char *const[]){"fp32", "fp64", NULL}); break;
        case OPT_WORDS_READ: k.words_read = (double)lbp_parse_int("--words-read", optarg, 1, 1000); described = 1; break;
        case OPT_WORDS_WRITTEN: k.words_written = (double)lbp_parse_int("--words-written", optarg, 1, 1000); have_written = 1; described = 1; break;
        case OPT_MIS_READS: n_reads = phase_list("--misaligned-reads", optarg, reads); described = 1; break;
        case OPT_MIS_WRITES: n_writes = phase_list("--misaligned-writes", optarg, writes); described = 1; break;
        case OPT_WORD_BYTES:
            k.word_bytes = lbp_parse_choice("--word-bytes", optarg, (const char *const[]){"4", "8", NULL}) ? 8 : 4;
            described = 1;
            break;
        case OPT_LATTICES: k.lattices = (int)lbp_parse_int("--lattices", optarg, 1, 2); described = 1; break;
        case OPT_LAUNCHES: k.launches_per_step = (int)lbp_parse_int("--launches-per-step", optarg, 1, 64); described = 1; break;
        case OPT_OPS: k.ops_per_cell = lbp_parse_double("--ops", optarg, 0, 1e6); described = 1; break;
        case OPT_SIZE: size = optarg; break;
        case OPT_OCCUPANCY: lat.occupancy = lbp_parse_double("--occupancy", optarg, 1e-6, 1); break;
        case OPT_BLOCKS_PER_SM: lat.blocks_per_cu = (double)lbp_parse_int("--blocks-per-sm", optarg, 1, 1024); break;
        case OPT_BLOCK_SIZE: lat.block_size = (int)lbp_parse_int("--block-size", optarg, 1, 65536); break;
        case OPT_CELLS_PER_THREAD: cells_per_thread = (int)lbp_parse_int("--cells-per-thread", optarg, 1, 64); break;
        default: parse_shared(&c, o, optarg, predict_usage, &dir);
        }
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!dir) lbp_usage_error("missing --data DIR (the folder with stream.csv and membench.csv)");
    if (!size) lbp_usage_error("missing --size NX[xNYxNZ]");
    if (lat.occupancy > 0 && lat.blocks_per_cu > 0) lbp_usage_error("give --occupancy or --blocks-per-sm, not both");
    parse_size(size, &lat);
    if (scheme || precision) {
        if (described) lbp_usage_error("--scheme describes the kernel already: drop the kernel description flags, or --scheme");
        if (!scheme || !precision) lbp_usage_error("--scheme and --precision go together");
        model_builtin_kernel(&k, scheme, precision);
    } else {
        if (!described || k.words_read <= 0)
            lbp_usage_error("missing kernel: --scheme and --precision, or --words-read N (and the other description flags)");
        if (!have_written) k.words_written = k.words_read;
        if (n_reads > 1 && n_writes > 1 && n_reads != n_writes)
            lbp_usage_error("--misaligned-reads has %d launches, --misaligned-writes %d: give lists of the same length (or one value)",
                            n_reads, n_writes);
        k.phases = n_reads > n_writes ? n_reads : n_writes;
        for (int p = 0; p < k.phases; p++) {
            k.misaligned_reads[p] = reads[n_reads > 1 ? p : 0];
            k.misaligned_writes[p] = writes[n_writes > 1 ? p : 0];
            if (k.misaligned_reads[p] > k.words_read)
                lbp_usage_error("--misaligned-reads: %d is more than the %g words read", k.misaligned_reads[p], k.words_read);
            if (k.misaligned_writes[p] > k.words_written)
                lbp_usage_error("--misaligned-writes: %d is more than the %g words written", k.misaligned_writes[p], k.words_written);
        }
        snprintf(k.name, sizeof k.name, "described kernel");
    }
    k.cells_per_thread = cells_per_thread;
    model_inputs in;
    load_or_fail(&in, dir, backend_filter(&c));
    /* Blocks per SM mean the occupancy lbmkernels would record for them
     * (validate passes both), where the device says its threads per SM. */
    const char *mt = model_meta_value(&in, "max_threads_per_cu");
    if (lat.blocks_per_cu > 0 && lat.block_size > 0 && mt && atof(mt) > 0)
        lat.occupancy = lat.blocks_per_cu * lat.block_size / atof(mt);
    if (lat.occupancy > 1) lbp_usage_error("--blocks-per-sm %g of %d threads: more than the %s threads an SM holds",
                                           lat.blocks_per_cu, lat.block_size, mt);
    model_prediction pr;
    char err[1024], what[400];
    if (model_predict(&in, &k, &lat, &pr, err, sizeof err)) lbp_fail("%s", err);
    model_kernel_describe(&k, what, sizeof what);
    printf("device %s (%s), %s\n", in.device, in.backend, what);
    printf("lattice %lldx%lldx%lld = %.0f cells", lat.nx, lat.ny, lat.nz, lat.cells);
    if (lat.occupancy > 0) printf(", occupancy %.3f", lat.occupancy);
    if (lat.blocks_per_cu > 0) printf(", %g blocks per SM", lat.blocks_per_cu);
    printf("\n\n%-12s %12s  %s\n", "level", "MLUPS", "from");
    printf("%-12s %12.1f  %s / %.0f B per update\n", "1 roofline", pr.roofline_mlups, pr.roofline_source, pr.bytes_per_update);
    printf("%-12s %12.1f  probe", "2 probe", pr.probe_mlups);
    for (int p = 0; p < k.phases; p++)
        printf("%s %.4f ns/cell (L=%d M=%d)", p ? "," : "", pr.probe_ns_per_cell[p], k.misaligned_reads[p], k.misaligned_writes[p]);
    printf(", occupancy factor %.3f", pr.occupancy_factor);
    if (strcmp(in.occupancy_from, in.backend)) printf(" (%s's occupancy sweep)", in.occupancy_from);
    printf(", arithmetic factor %.3f (%g operations per cell)", pr.compute_factor, k.ops_per_cell);
    if (pr.in_place_factor != 1) printf(", in place / %.3f (no write-allocate)", pr.in_place_factor);
    printf("\n");
    if (pr.full_path == MODEL_FULL_GEOMETRY) {
        printf("%-12s %12.1f  geometry path: N=19 probe back to back at the kernel's launch (%d-byte accesses, "
               "block %d, %s) at %.0f threads: aligned %.3f us (-1: not measured there); with the kernel's L, M%s and "
               "payload %.2f us",
               "3 full", pr.full_mlups, pr.b2b_word_bytes, lat.block_size,
               lat.blocks_per_cu > 0 ? "forced blocks per SM" : "as many blocks as fit", pr.b2b_threads, pr.b2b_us,
               pr.geometry_layout == PROBE_LAYOUT_IN_PLACE  ? ", in place (one lattice),"
               : pr.geometry_layout == PROBE_LAYOUT_SWAPPED ? ", arrays swapped at every launch (two lattices),"
                                                            : "",
               pr.memory_us[0]);
        for (int p = 1; p < k.phases; p++) printf(" / %.2f us", pr.memory_us[p]);
        printf(" per step%s\n", k.phases > 1 ? " (phases averaged)" : "");
        printf("%-12s %12.1f  (threads-sweep path, not used)\n", "", pr.threads_sweep_mlups);
        printf("%-12s %12.1f  (size-sweep path, not used)\n", "", pr.size_sweep_mlups);
    } else if (pr.full_path == MODEL_FULL_THREADS_SWEEP) {
        printf("%-12s %12.1f  threads-sweep path: N=19 probe back to back at %.0f threads, occupancy %.3f "
               "(%d-byte sweep, %d curve%s, %d points) %.3f us per launch x kernel factor",
               "3 full", pr.full_mlups, pr.b2b_threads, pr.b2b_occupancy, pr.b2b_word_bytes, pr.b2b_curves,
               pr.b2b_curves > 1 ? "s" : "", pr.b2b_points, pr.b2b_us);
        for (int p = 0; p < k.phases; p++) printf("%s %.3f", p ? " /" : "", pr.kernel_factor[p]);
        printf(" (level-2 probe / base probe at N=19, %.4f ns/thread; block-size factor %.3f; L2 factor", pr.base19_ns,
               pr.block_factor);
        for (int p = 0; p < k.phases; p++) printf("%s %.3f", p ? " /" : "", pr.l2_factor[p]);
        printf(") x %d launch%s = %.2f us",
               k.launches_per_step, k.launches_per_step > 1 ? "es" : "", pr.memory_us[0]);
        for (int p = 1; p < k.phases; p++) printf(" / %.2f us", pr.memory_us[p]);
        printf(" per step%s\n", k.phases > 1 ? " (phases averaged)" : "");
        printf("%-12s %12.1f  (size-sweep path, not used: working set %.3g B, bandwidth x%.3f of the probe's, "
               "back-to-back launch %.2f us, device gap %.2f us)\n",
               "", pr.size_sweep_mlups, pr.working_set, 1 / pr.bandwidth_ratio, pr.launch_us, pr.gap_us);
    } else {
        printf("%-12s %12.1f  size-sweep path (no threads sweep): working set %.3g B: bandwidth x%.3f of the probe's "
               "(%.3g B); memory %.2f us",
               "3 full", pr.full_mlups, pr.working_set, 1 / pr.bandwidth_ratio, pr.probe_working_set, pr.memory_us[0]);
        for (int p = 1; p < k.phases; p++) printf(" / %.2f us", pr.memory_us[p]);
        printf(", device gap %.2f us, back-to-back launch %.2f us per step (%s)%s\n", pr.gap_us, pr.launch_us,
               pr.launch_bound ? "launch-bound" : "memory-bound: memory + gap",
               pr.full_complete ? "" : " [incomplete]");
    }
    if (in.start_cost_points)
        printf("single-launch start cost removed from copy and probe times: %.2f us (fit over %d L2-resident copy sizes)\n",
               in.start_cost_ms * 1e3, in.start_cost_points);
    printf("within_measured: %s\n", pr.within_measured ? "yes" : "no");
    if (pr.notes[0]) printf("notes: %s\n", pr.notes);
    model_inputs_free(&in);
    return 0;
}

/* ---- validate ----------------------------------------------------------- */

typedef struct {
    char backend[16], scheme[16], precision[8];
    long long nx, ny, nz, block_size;
    double cells, measured, error_pct;
    model_prediction pr;
} validated_point;

/* An lbp_device_info from stream-meta.csv (the keys lbp_write_meta writes),
 * so model-meta.csv describes the same device. */
static void device_info_from_meta(const model_inputs *in, lbp_device_info *info)
{
    memset(info, 0, sizeof *info);
#define S(field, key) do { const char *v_ = model_meta_value(in, key); snprintf(info->field, sizeof info->field, "%s", v_ ? v_ : ""); } while (0)
#define I(field, key) do { const char *v_ = model_meta_value(in, key); info->field = v_ ? atoll(v_) : -1; } while (0)
    S(name, "device"); S(slug, "slug"); S(vendor, "vendor"); S(platform, "platform");
    S(driver, "driver");
    info->kind = lbp_kind_from_name(model_meta_value(in, "kind"));
    I(compute_units, "compute_units"); I(clock_mhz, "clock_mhz"); I(mem_clock_mhz, "mem_clock_mhz");
    I(bus_width_bits, "bus_width_bits"); I(l2_bytes, "l2_bytes"); I(global_mem_bytes, "global_mem_bytes");
    I(ecc, "ecc"); I(fp64, "fp64"); I(max_threads_per_cu, "max_threads_per_cu"); I(warp_size, "warp_size");
#undef S
#undef I
    const char *t = model_meta_value(in, "theoretical_gbs");
    info->theoretical_gbs = t ? atof(t) : 0;
    const char *cc = model_meta_value(in, "compute_capability");
    if (cc) sscanf(cc, "%d.%d", &info->cc_major, &info->cc_minor);
    if (!info->slug[0]) snprintf(info->slug, sizeof info->slug, "%s", in->device);
    snprintf(info->backend, sizeof info->backend, "%s", in->backend);
}

static int lbm_number(const lbp_table *t, int row, const char *col, double *v, double fallback)
{
    if (lbp_table_column(t, col) < 0) { *v = fallback; return 0; }
    char err[512];
    if (lbp_table_number_by_name(t, row, col, v, err, sizeof err)) lbp_fail("%s", err);
    return 0;
}

int model_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        SHARED_OPTS, OPT("force", no_argument, LBP_OPT_FORCE),
        OPT("max-error", required_argument, OPT_MAX_ERROR),
        OPT("max-error-small", required_argument, OPT_MAX_ERROR_SMALL), {0, 0, 0, 0}};
    lbp_common c = {.device = -1};
    const char *dir = NULL;
    double max_error = 5, max_error_small = 10;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case OPT_MAX_ERROR: max_error = lbp_parse_double("--max-error", optarg, 0, 1e6); break;
        case OPT_MAX_ERROR_SMALL: max_error_small = lbp_parse_double("--max-error-small", optarg, 0, 1e6); break;
        default: parse_shared(&c, o, optarg, validate_usage, &dir);
        }
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!dir) lbp_usage_error("missing --data DIR (the folder with lbm.csv, stream.csv, membench.csv)");
    const char *only = backend_filter(&c);
    lbp_check_fresh(dir, (const char *const[]){"model.csv", "model-meta.csv", NULL}, c.force);

    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/lbm.csv", dir);
    lbp_table lbm;
    int r = lbp_table_read(&lbm, path, 1, err, sizeof err);
    if (r == LBP_TABLE_MISSING) lbp_fail("%s: missing (expected the lbmkernels tool's measurements)", path);
    if (r) lbp_fail("%s", err);
    static const char *const cols[] = {"device", "backend", "scheme", "precision", "boundary", "nx", "ny", "nz",
                                       "cells", "block_size", "mlups_median", NULL};
    if (lbp_table_require(&lbm, cols, err, sizeof err)) lbp_fail("%s", err);

    enum { MAX_BACKENDS = 4 };
    model_inputs inputs[MAX_BACKENDS];
    int n_inputs = 0;
    validated_point *pts = calloc(lbm.rows ? lbm.rows : 1, sizeof *pts);
    int n = 0;
    int ib = lbp_table_column(&lbm, "backend"), is = lbp_table_column(&lbm, "scheme"),
        ip = lbp_table_column(&lbm, "precision"), ibd = lbp_table_column(&lbm, "boundary");
    for (int row = 0; row < lbm.rows; row++) {
        const char *backend = lbp_table_text(&lbm, row, ib);
        if (strcmp(lbp_table_text(&lbm, row, ibd), "periodic") || (only && strcmp(backend, only))) continue;
        int b;
        for (b = 0; b < n_inputs && strcmp(inputs[b].backend, backend); b++) {}
        if (b == n_inputs) {
            if (n_inputs == MAX_BACKENDS) lbp_fail("%s:%d: more than %d backends", path, lbm.line[row], MAX_BACKENDS);
            load_or_fail(&inputs[n_inputs++], dir, backend);
        }
        validated_point *v = &pts[n];
        snprintf(v->backend, sizeof v->backend, "%s", backend);
        snprintf(v->scheme, sizeof v->scheme, "%s", lbp_table_text(&lbm, row, is));
        snprintf(v->precision, sizeof v->precision, "%s", lbp_table_text(&lbm, row, ip));
        model_kernel k;
        if (model_builtin_kernel(&k, v->scheme, v->precision))
            lbp_fail("%s:%d: expected scheme push|pull|split|aa and precision fp32|fp64, got '%s' '%s'", path,
                     lbm.line[row], v->scheme, v->precision);
        double nx, ny, nz, nxp, cells, bs, bpc, occ, lattices;
        lbm_number(&lbm, row, "nx", &nx, 0);
        lbm_number(&lbm, row, "ny", &ny, 0);
        lbm_number(&lbm, row, "nz", &nz, 0);
        lbm_number(&lbm, row, "nx_padded", &nxp, nx);
        lbm_number(&lbm, row, "cells", &cells, 0);
        lbm_number(&lbm, row, "block_size", &bs, 0);
        lbm_number(&lbm, row, "mlups_median", &v->measured, 0);
        lbm_number(&lbm, row, "blocks_per_cu", &bpc, -1);
        lbm_number(&lbm, row, "occupancy", &occ, -1);
        lbm_number(&lbm, row, "lattices", &lattices, k.lattices);
        double cpt;
        lbm_number(&lbm, row, "cells_per_thread", &cpt, 1);
        if (cpt < 0 || cpt > 64 || cpt != (int)cpt)
            lbp_fail("%s:%d: expected cells_per_thread a whole number 0..64 (0: a row per thread), got %g", path,
                     lbm.line[row], cpt);
        k.cells_per_thread = (int)cpt;
        if (cells <= 0 || v->measured <= 0)
            lbp_fail("%s:%d: expected positive cells and mlups_median", path, lbm.line[row]);
        if ((int)lattices != k.lattices)
            lbp_fail("%s:%d: %s keeps %d lattice(s), the row says %g", path, lbm.line[row], v->scheme, k.lattices, lattices);
        model_lattice lat = {.nx = (long long)nx, .ny = (long long)ny, .nz = (long long)nz, .cells = cells,
                             .stored_cells = nxp * ny * nz, .occupancy = occ, .blocks_per_cu = bpc,
                             .block_size = (int)bs};
        if (model_predict(&inputs[b], &k, &lat, &v->pr, err, sizeof err)) lbp_fail("%s", err);
        v->nx = lat.nx; v->ny = lat.ny; v->nz = lat.nz; v->block_size = (long long)bs; v->cells = cells;
        v->error_pct = 100 * (v->pr.full_mlups - v->measured) / v->measured;
        n++;
    }
    if (!n) lbp_fail("%s: no periodic rows%s%s to validate", path, only ? " for backend " : "", only ? only : "");

    /* table, bars */
    int failed = 0, failed_small = 0, n_small = 0, n_geometry = 0;
    double worst = 0, worst_small = 0, small_abs_max = 0, small_abs_sum = 0, geometry_abs = 0, geometry_alt = 0;
    printf("%-7s %-6s %-5s %-15s %6s %10s %10s %10s %10s %8s %s\n", "backend", "scheme", "prec", "size", "block",
           "measured", "roofline", "probe", "full", "error%", "");
    for (int i = 0; i < n; i++) {
        validated_point *v = &pts[i];
        int large = v->cells >= MODEL_LARGE_CELLS;
        double bar = large ? max_error : max_error_small, e = fabs(v->error_pct);
        int over = e > bar;
        char size[48];
        snprintf(size, sizeof size, "%lldx%lldx%lld", v->nx, v->ny, v->nz);
        printf("%-7s %-6s %-5s %-15s %6lld %10.1f %10.1f %10.1f %10.1f %+8.2f %s%s%s\n", v->backend, v->scheme,
               v->precision, size, v->block_size, v->measured, v->pr.roofline_mlups, v->pr.probe_mlups,
               v->pr.full_mlups, v->error_pct, over ? "OVER " : "", v->pr.within_measured ? "" : "clamped ",
               v->pr.launch_bound ? "launch-bound" : "");
        if (large) { worst = fmax(worst, e); failed += over; }
        else {
            worst_small = fmax(worst_small, e);
            failed_small += over;
            n_small++;
            small_abs_max += e;
            /* the alternative: the size-sweep path beside the threads path,
             * else memory + launch interval beside the max */
            double alt = v->pr.full_path == MODEL_FULL_SIZE_SWEEP ? v->pr.full_sum_mlups : v->pr.size_sweep_mlups;
            small_abs_sum += fabs(100 * (alt - v->measured) / v->measured);
        }
        if (v->pr.full_path == MODEL_FULL_GEOMETRY) {
            n_geometry++;
            geometry_abs += e;
            geometry_alt += fabs(100 * (v->pr.threads_sweep_mlups - v->measured) / v->measured);
        }
    }
    printf("\nsizes >= 128^3: worst |error| %.2f %% (bar %.1f %%), %d over\n", worst, max_error, failed);
    if (n_small) {
        printf("sizes <  128^3: worst |error| %.2f %% (bar %.1f %%), %d over\n", worst_small, max_error_small, failed_small);
        if (pts[0].pr.full_path != MODEL_FULL_SIZE_SWEEP)
            printf("level 3 from the membench threads sweep (probe back to back at the lattice's thread count): mean |error| %.2f %% below 128^3; the size-sweep path would give %.2f %%\n",
                   small_abs_max / n_small, small_abs_sum / n_small);
        else
            printf("level 3 from the size sweep, step = max(back-to-back launch interval, memory + device gap): mean |error| %.2f %% below 128^3; memory + back-to-back interval would give %.2f %%\n",
                   small_abs_max / n_small, small_abs_sum / n_small);
    }
    if (n_geometry)
        printf("%d points from the geometry path (membench-geometry.csv: the probe at the kernel's own launch): mean "
               "|error| %.2f %%; the threads-sweep path would give %.2f %% there\n",
               n_geometry, geometry_abs / n_geometry, geometry_alt / n_geometry);
    char borrowed[128] = "";
    for (int b = 0; b < n_inputs; b++)
        if (strcmp(inputs[b].occupancy_from, inputs[b].backend)) {
            int geometry = 0;
            for (int i = 0; i < inputs[b].n_borrowed; i++) geometry |= inputs[b].borrowed[i].sweep == PROBE_GEOMETRY;
            printf("%s forced no blocks per SM: its kernels' occupancy is read on %s's occupancy sweep (ratios)%s%s%s\n",
                   inputs[b].backend, inputs[b].occupancy_from,
                   geometry ? ", their launches on its geometry sweep (each at least " : "",
                   geometry ? inputs[b].backend : "", geometry ? "'s launch interval)" : "");
            snprintf(borrowed + strlen(borrowed), sizeof borrowed - strlen(borrowed), "%s%s:%s", *borrowed ? " " : "",
                     inputs[b].backend, inputs[b].occupancy_from);
        }
    if (!inputs[0].have_launch) printf("level 3 incomplete: no launch.csv rows\n");

    /* files */
    lbp_device_info info;
    device_info_from_meta(&inputs[0], &info);
    lbp_csv *csv = lbp_csv_open(dir, "model.csv",
                                "scheme,precision,nx,ny,nz,cells,block_size,measured_mlups,roofline_mlups,"
                                "probe_mlups,full_mlups,error_pct,within_measured",
                                &info, c.force);
    for (int i = 0; i < n; i++) {
        validated_point *v = &pts[i];
        lbp_csv_set_backend(csv, v->backend);
        lbp_csv_row(csv, "%s,%s,%lld,%lld,%lld,%.0f,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%s", v->scheme, v->precision, v->nx,
                    v->ny, v->nz, v->cells, v->block_size, v->measured, v->pr.roofline_mlups, v->pr.probe_mlups,
                    v->pr.full_mlups, v->error_pct, v->pr.within_measured ? "yes" : "no");
    }
    lbp_csv_commit(csv);
    lbp_kv extra[16];
    int ne = 0;
#define KV(k, ...) do { extra[ne].key = k; snprintf(extra[ne].value, sizeof extra[ne].value, __VA_ARGS__); ne++; } while (0)
    KV("points", "%d", n);
    KV("max_error_pct", "%g", max_error);
    KV("max_error_small_pct", "%g", max_error_small);
    KV("worst_error_pct", "%.3f", worst);
    KV("worst_error_small_pct", "%.3f", worst_small);
    KV("points_over", "%d", failed + failed_small);
    KV("launch_combination", "%s", pts[0].pr.full_path != MODEL_FULL_SIZE_SWEEP ? "threads sweep (back to back)" : "max(memory, launch)");
    KV("full_path", "%s", n_geometry ? "geometry+threads_sweep" : pts[0].pr.full_path == MODEL_FULL_THREADS_SWEEP ? "threads_sweep" : "size_sweep");
    KV("geometry_points", "%d", n_geometry);
    KV("occupancy_from", "%s", *borrowed ? borrowed : "own");
    KV("launch_us", "%.3f", inputs[0].have_launch ? inputs[0].launch_us : -1);
    KV("start_cost_us", "%.3f", inputs[0].start_cost_ms * 1e3);
    KV("result", "%s", failed + failed_small ? "fail" : "pass");
#undef KV
    lbp_write_meta(dir, "model", &info, model_argv ? model_argc : argc, model_argv ? model_argv : argv, extra, ne, c.force);
    printf("wrote %s/model.csv, %s/model-meta.csv\n", dir, dir);
    for (int b = 0; b < n_inputs; b++) model_inputs_free(&inputs[b]);
    lbp_table_free(&lbm);
    free(pts);
    if (failed + failed_small) {
        fprintf(stderr, "model: %d point(s) over the error bar (%.1f %% from 128^3, %.1f %% below)\n",
                failed + failed_small, max_error, max_error_small);
        return LBP_EXIT_FAIL;
    }
    return 0;
}

/* ---- summary ------------------------------------------------------------ */

int model_cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {SHARED_OPTS, {0, 0, 0, 0}};
    lbp_common c = {.device = -1};
    const char *dir = NULL;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) parse_shared(&c, o, optarg, summary_usage, &dir);
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!dir) lbp_usage_error("missing --data DIR (the folder with model.csv)");
    const char *only = backend_filter(&c);
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/model.csv", dir);
    lbp_table t;
    int r = lbp_table_read(&t, path, 1, err, sizeof err);
    if (r == LBP_TABLE_MISSING) lbp_fail("%s: missing (run model validate first)", path);
    if (r) lbp_fail("%s", err);
    static const char *const cols[] = {"backend", "scheme", "precision", "cells", "measured_mlups", "roofline_mlups",
                                       "full_mlups", "error_pct", NULL};
    if (lbp_table_require(&t, cols, err, sizeof err)) lbp_fail("%s", err);
    static const char *const schemes[] = {"push", "pull", "split", "aa"}, *const precisions[] = {"fp32", "fp64"};
    char backends[4][16];
    int nb = 0;
    for (int i = 0; i < t.rows; i++) {
        const char *b = lbp_table_text(&t, i, lbp_table_column(&t, "backend"));
        int seen = 0;
        for (int j = 0; j < nb; j++) seen |= !strcmp(backends[j], b);
        if (!seen && nb < 4 && (!only || !strcmp(only, b))) snprintf(backends[nb++], 16, "%s", b);
    }
    printf("%-7s %-6s %-5s %12s %10s %10s %10s %11s %8s\n", "backend", "scheme", "prec", "cells", "measured",
           "predicted", "roofline", "% roofline", "error%");
    int printed = 0;
    for (int b = 0; b < nb; b++)
        for (int s = 0; s < 4; s++)
            for (int p = 0; p < 2; p++) {
                int best = -1;
                double best_cells = -1, best_measured = -1;
                for (int i = 0; i < t.rows; i++) {
                    if (strcmp(lbp_table_text(&t, i, lbp_table_column(&t, "backend")), backends[b]) ||
                        strcmp(lbp_table_text(&t, i, lbp_table_column(&t, "scheme")), schemes[s]) ||
                        strcmp(lbp_table_text(&t, i, lbp_table_column(&t, "precision")), precisions[p]))
                        continue;
                    double cells, measured;
                    if (lbp_table_number_by_name(&t, i, "cells", &cells, err, sizeof err) ||
                        lbp_table_number_by_name(&t, i, "measured_mlups", &measured, err, sizeof err))
                        lbp_fail("%s", err);
                    if (cells > best_cells || (cells == best_cells && measured > best_measured)) {
                        best = i;
                        best_cells = cells;
                        best_measured = measured;
                    }
                }
                if (best < 0) continue;
                double roof, full, error;
                if (lbp_table_number_by_name(&t, best, "roofline_mlups", &roof, err, sizeof err) ||
                    lbp_table_number_by_name(&t, best, "full_mlups", &full, err, sizeof err) ||
                    lbp_table_number_by_name(&t, best, "error_pct", &error, err, sizeof err))
                    lbp_fail("%s", err);
                printf("%-7s %-6s %-5s %12.0f %10.1f %10.1f %10.1f %10.1f%% %+8.2f\n", backends[b], schemes[s],
                       precisions[p], best_cells, best_measured, full, roof, roof > 0 ? 100 * best_measured / roof : 0,
                       error);
                printed++;
            }
    lbp_table_free(&t);
    if (!printed) lbp_fail("%s: no rows%s%s", path, only ? " for backend " : "", only ? only : "");
    snprintf(path, sizeof path, "%s/membench-recheck.csv", dir);
    if (!access(path, F_OK)) {
        model_drift_row *rows;
        int unmatched, n = model_drift_match(dir, &rows, &unmatched, NULL, 0, err, sizeof err);
        if (n < 0) { /* the table stands without it */
            lbp_warn("no drift: %s", err);
            return 0;
        }
        model_drift_print(rows, n);
        free(rows);
    }
    return 0;
}

/* ---- drift -------------------------------------------------------------- */

int model_cmd_drift(int argc, char **argv)
{
    static const struct option opts[] = {SHARED_OPTS, OPT("force", no_argument, LBP_OPT_FORCE),
                                         OPT("max-change", required_argument, OPT_MAX_CHANGE), {0, 0, 0, 0}};
    lbp_common c = {.device = -1};
    const char *dir = NULL;
    double max_change = -1;
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == OPT_MAX_CHANGE) max_change = lbp_parse_double("--max-change", optarg, 0, 1e6);
        else parse_shared(&c, o, optarg, drift_usage, &dir);
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!dir) lbp_usage_error("missing --data DIR (the folder with membench.csv and membench-recheck.csv)");
    if (backend_filter(&c)) lbp_usage_error("--backend: drift compares every backend's probes");
    lbp_check_fresh(dir, (const char *const[]){"drift.csv", NULL}, c.force);
    char err[1024];
    lbp_device_info info = {0};
    model_drift_row *rows;
    int unmatched, n = model_drift_match(dir, &rows, &unmatched, info.slug, sizeof info.slug, err, sizeof err);
    if (n < 0) lbp_fail("%s", err);
    if (unmatched) lbp_warn("%s/membench-recheck.csv: %d probe(s) with no partner in membench.csv: left out", dir, unmatched);
    snprintf(info.backend, sizeof info.backend, "%s", rows[0].backend);
    lbp_csv *csv = lbp_csv_open(dir, "drift.csv",
                                "word_bytes,threads,misaligned_reads,misaligned_writes,ops,block_size,"
                                "blocks_per_cu_requested,first_ms,recheck_ms,change_pct",
                                &info, c.force);
    int over = 0;
    for (int i = 0; i < n; i++) {
        const model_drift_row *r = &rows[i];
        lbp_csv_set_backend(csv, r->backend);
        lbp_csv_row(csv, "%d,%.0f,%d,%d,%d,%d,%d,%.6f,%.6f,%.3f", r->word_bytes, r->threads, r->misaligned_reads,
                    r->misaligned_writes, r->ops, r->block_size, r->blocks_requested, r->first_ms, r->recheck_ms,
                    r->change_pct);
        over += max_change >= 0 && fabs(r->change_pct) > max_change;
    }
    lbp_csv_commit(csv);
    model_drift_print(rows, n);
    printf("written: %s/drift.csv\n", dir);
    free(rows);
    if (over) {
        fprintf(stderr, "model: %d probe(s) changed by more than %.1f %% during the run\n", over, max_change);
        return LBP_EXIT_FAIL;
    }
    return 0;
}
