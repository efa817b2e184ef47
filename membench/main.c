/* membench: generated N-word read/write probes with L misaligned reads and
 * M misaligned writes (Obrecht, thesis Art. B), per-warp timing on CUDA, and
 * kernel launch latency.  Results: membench.csv, warps.csv (CUDA),
 * launch.csv, membench-fit.csv, membench-meta.csv. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "described_run.h"
#include "source_run.h"
#include "gen.h"
#include "kernelfile.h"
#include "probe.h"
#include "stats.h"
#include "launch.h"
#include "plan.h"
#include "warps.h"

#define MB_STR_(x) #x
#define MB_STR(x) MB_STR_(x) /* a number's text, for USAGE */
static const char USAGE[] =
    "usage: membench [options]\n"
    "Generated straight-line probes: each thread reads N words (one array per\n"
    "word, laid out like the populations of a lattice), L of them at index+1,\n"
    "and writes them back, M of them at index+1 (Obrecht, thesis Art. B).\n"
    "Every output element is verified.  Writes membench.csv, warps.csv (CUDA:\n"
    "per-warp %globaltimer stamps), launch.csv, membench-fit.csv and\n"
    "membench-meta.csv into the result folder.\n"
    "\n"
    "  --sweeps LIST       any of words,misaligned,occupancy,word_bytes,launch,\n"
    "                      threads,payload,vector,tile,narrow (default: all but\n"
    "                      narrow, which the tile sweep subsumes)\n"
    "  --tile LIST         block shapes BXxBYxBZ the tile sweep adds to its defaults\n"
    "                      (e.g. 32x4x2,12x8x2)\n"
    "  --tile-from FILES   the same: the blocks of these kernel description files'\n"
    "                      grid launches (comma list; doc/kernels.md), each shape and\n"
    "                      its BSx1x1 also at the file's blocks per SM, forced\n"
    "  --words LIST        N of the words sweep (default 1..40, a CPU 1,2,4,8,12,16,19,\n"
    "                      24,27,32,40; e.g. 1,19,27 or 1..64:4)\n"
    "  --misaligned LIST   N of the misaligned sweeps (default 19,27)\n"
    "  --word-bytes 2|4|8  word size of the words and misaligned sweeps (default 4,\n"
    "                      plus 8- and 2-byte points in the words sweep and 2-byte\n"
    "                      misaligned curves at N=19)\n"
    "  --block-size N      threads per block (default 256)\n"
    "  --blocks-per-sm K   resident blocks per SM, forced with dynamic shared memory\n"
    "                      (default 0: as many as fit; CUDA only)\n"
    "  --threads N         threads per launch, one per cell (default 256^3 on a GPU,\n"
    "                      2^22 on a CPU)\n"
    "  --thread-counts LIST  the threads sweep at exactly these thread counts (e.g.\n"
    "                      the cells of the lattices to model) instead of 2^12..--threads\n"
    "  --reps N            timed repetitions per probe (default 10; on a CPU 3 where\n"
    "                      one timed run takes 10 ms or more)\n"
    "  --aligned-only      the threads and rows sweeps' aligned probe alone (no\n"
    "                      payload, L or M variants)\n"
    "  --no-rows           no rows sweep (a CPU's): make bench's recheck, whose\n"
    "                      drift reads the threads sweep alone (--aligned-only too\n"
    "                      with QUICK=1)\n"
    "  --geometry-from LBM_CSV  the geometry sweep alone (membench-geometry.csv):\n"
    "                      the probe at the launches of lbm.csv's kernels (block size,\n"
    "                      blocks per SM, cells per thread, the thread counts of their\n"
    "                      lattices up to " MB_STR(MB_GEOMETRY_MAX_L2) " x the L2), with L, M = 0 or 10 and the\n"
    "                      collision payload, again with the arrays swapped at every\n"
    "                      launch where a kernel keeps two lattices, and in place\n"
    "                      (stores where it read, L = M) where one keeps one (A-A);\n"
    "                      rows of this device, any backend, that give blocks per\n"
    "                      SM (NVIDIA's OpenCL does, from its kernels' registers);\n"
    "                      make bench runs it after lbmkernels\n"
    "  --geometry-from KERNEL_FILE --size LIST  the same at a kernel description's\n"
    "                      launch (doc/kernels.md): its block, blocks per SM and\n"
    "                      access width, the threads it launches on each lattice\n"
    "                      (lattices that leave threads idle are skipped: the\n"
    "                      probe's threads all work)\n"
    "  --kernel FILE --size LIST  alone: the traffic of a kernel description file\n"
    "                      (doc/kernels.md) generated as a streaming kernel, launched\n"
    "                      as the file says on each lattice (NXxNYxNZ, comma list),\n"
    "                      timed back to back and verified: membench-kernel.csv\n"
    "  --source SRC        with --kernel FILE --size LIST: instead, the LBM kernel\n"
    "                      source SRC that FILE describes (entry lbm_step; contract:\n"
    "                      doc/kernels.md, Independent kernels), verified against a\n"
    "                      double-precision BGK reference (exit 1, no row, when it is\n"
    "                      off) and timed: membench-kernel.csv\n"
    "  --verify-size LIST  with --source: the lattices it is verified on (default:\n"
    "                      two small ones around FILE's block)\n"
    "  --nvrtc-check ARCH  with --kernel FILE --source SRC: compile SRC with NVRTC\n"
    "                      for ARCH (sm_90), no GPU needed; nothing is run\n"
    "  --launch-probe LIST with --kernel: instead, the file's launch on each lattice\n"
    "                      with N words read and written, none misaligned, at each N\n"
    "                      of LIST (e.g. 19,27): membench-launch.csv, which the model\n"
    "                      reads for that kernel's launch (doc/kernels.md)\n"
    "\n"
    "The threads sweep (membench.csv sweep 'threads') runs the aligned N=19\n"
    "probe (L=M=0, default block size) with 2-, 4- and 8-byte words at 2^12 threads,\n"
    "doubling (with x1.5 points from 2^13 to 2^20*1.5; --quick: x4 steps) up to\n"
    "--threads (on a CPU without --threads or --thread-counts: 2^12, the cells of\n"
    "lbmkernels' CPU lattices and the largest it runs with that word size, the\n"
    "counts the model reads there; the misaligned sweeps step L, M by 5), on a compact layout of\n"
    "that many cells: the thread counts of small to large lattices; where the\n"
    "backend can force blocks per SM (CUDA), again at 1, 2, 3, 4 and 6 blocks per\n"
    "SM (--quick: 2, 4), the occupancies LBM kernels run at.  Each timed run is\n"
    "launches back to back (like the steps of a time loop): 20, or as many as\n"
    "fill 2 ms (up to 2000), column 'launches';\n"
    "ms_min/ms_median/ms_max are PER LAUNCH, ns_per_thread = per-launch ns /\n"
    "threads, and the row's timing column is 'back_to_back' (every other row:\n"
    "'events', one launch per timed run).  The same thread\n"
    "counts run again with the collision payload (P=7: 151 arithmetic operations\n"
    "per thread), with L=10, M=10 and L=M=10: misalignment and arithmetic where\n"
    "the working set sits in the L2.\n"
    "\n"
    "The rows sweep (sweep 'rows', CPUs; column row = R) runs the threads sweep's\n"
    "N=19 probe with 2-, 4- and 8-byte words at the same cell counts (column\n"
    "threads), each work-item moving R = 256 adjacent cells in a loop the\n"
    "compiler vectorizes (the shape of lbmkernels' row kernels on a CPU):\n"
    "stores into the other arrays aligned, with the collision payload, L = 10\n"
    "and M = 10; in place aligned, with the payload and L = M = 10; where the\n"
    "backend has non-temporal stores, aligned with them (4- and 8-byte words,\n"
    "stored as lbmkernels' --stores nontemporal kernels store; column stores)\n"
    "and with the folded payload (4- and 8-byte words, in place and not; column\n"
    "payload_form: words converted as integers, no masks, the chains summed into\n"
    "one number a cell, 150 operations as the collision's)\n"
    "(--quick: the aligned ones and the 4-byte non-temporal one).  A CPU's\n"
    "arrays are skewed as lbmkernels' are.\n"
    "\n"
    "The payload sweep (sweep 'payload') runs the aligned N=19 probe with P = 1,\n"
    "2, 4, 7, 10, 14 dependent multiply-adds per word in float (4-byte words) or\n"
    "double (8-byte), shaped like a collision: the sum of the N words, then each\n"
    "word's chain on it feeding that word's store: what arithmetic costs next to\n"
    "the memory traffic; column ops = N*P + N-1 operations per thread.  The\n"
    "occupancy sweep runs the aligned probe, the P=7 one and the L=10 and M=10\n"
    "ones (the P=7 one at every word size), with FP64 the aligned and M=10 ones\n"
    "with 8-byte words, and the aligned and M=10 ones with 2-byte words; on GPUs\n"
    "(not --quick) also the vector sweep's probes of 2-byte words at V = 2 and 4:\n"
    "aligned, M=10, L=10, and in place 0/0 and L=M=10.\n"
    "\n"
    "The vector sweep (sweep 'vector', GPUs; column vector = V) runs N=19 probes\n"
    "whose threads move V = 2 or 4 adjacent 2-byte words of each array, the aligned\n"
    "ones as one 4- or 8-byte access, the misaligned ones (one word further) as V\n"
    "single 2-byte accesses, with L, M = 0/0, 10/0, 0/10, 10/10: how fp16s kernels\n"
    "of 2 and 4 cells per thread move their shifted populations; and 0/0 and 10/10\n"
    "in place (column in_place = 1: stored back where read, as A-A's one lattice).\n"
    "\n"
    "The narrow sweep (sweep 'narrow', GPUs; column band = BX) runs the N=19\n"
    "probe of 4-byte words at --threads (256^3; --quick 2^22), back to back as\n"
    "the threads sweep, with its cells permuted so that each warp takes BX\n"
    "adjacent cells of each of 32/BX rows of 256 cells, BX = 4, 8, 16 and 32\n"
    "(32: the linear probe), with L, M = 0/0, 10/0, 0/10: what a grid of blocks\n"
    "narrower than a warp in x costs; the model reads BX over 32.  Where the\n"
    "threads are not a multiple of 256 x 32/BX, the last partial band's move\n"
    "their own cells.  Every other row's band is 32.  Not run unless named: the\n"
    "tile sweep's 4x8x1, 8x4x1 and 16x2x1 blocks over 32x1x1 answer for it.\n"
    "\n"
    "The tile sweep (sweep 'tile', GPUs; columns tile_x, tile_y, tile_z) runs\n"
    "the same probe with its threads mapped to cells exactly as a 3D grid launch\n"
    "of blocks BX x BY x BZ over a 256 x 256 x Z lattice (blockIdx x fastest,\n"
    "then y, then z; x fastest in a block) at a block of BX BY BZ threads, at\n"
    "32x8x1, 32x4x2, 16x16x1, 16x4x4, 8x8x4, 8x8x8, 4x8x1, 8x4x1, 16x2x1, 32x1x1,\n"
    "--tile's and --tile-from's shapes, and each one's linear reference BSx1x1\n"
    "(BS = BX BY BZ: the linear probe at that block), with L, M = 0/0, 10/0,\n"
    "0/10: the model reads a grid launch's shape over its reference, at the\n"
    "kernel's blocks per SM where --tile-from ran it there.  Threads\n"
    "past the last whole layer of tiles move their own cells.  Every other\n"
    "row's tile is 0x0x0.\n" LBP_COMMON_HELP;

enum { OPT_SWEEPS = LBP_OPT_FIRST_TOOL, OPT_WORDS, OPT_MISALIGNED, OPT_WORD_BYTES, OPT_BLOCK_SIZE,
       OPT_BLOCKS_PER_SM, OPT_THREADS, OPT_THREAD_COUNTS, OPT_REPS, OPT_GEOMETRY_FROM, OPT_KERNEL, OPT_SOURCE, OPT_VERIFY_SIZE, OPT_NVRTC_CHECK, OPT_SIZE,
       OPT_ALIGNED_ONLY, OPT_NO_ROWS, OPT_TILE, OPT_TILE_FROM, OPT_LAUNCH_PROBE };

typedef struct {
    lbp_common common;
    mb_plan_options plan;
    long long threads; /* 0: default */
    int reps;          /* 0: default */
    int blocks_per_sm_given;
    int sweeps_given;
    int no_rows;       /* --no-rows */
    const char *geometry_from; /* lbm.csv: the geometry sweep alone */
    const char *tile_from;     /* --tile-from: kernel files, their blocks per SM resolved on the device */
    mb_described_options described; /* --kernel FILE --size LIST */
    const char *size_list;
} options;

static int parse_sweeps(const char *s)
{
    static const char *const names[] = {"words", "misaligned", "occupancy", "word_bytes", "launch", "threads",
                                        "payload", "vector", "narrow", "tile", NULL};
    char *copy = lbp_list_copy("--sweeps", s), *save = NULL;
    int bits = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const int i = lbp_parse_choice("--sweeps", tok, names);
        /* bit 8 is the geometry sweep's */
        bits |= !strcmp(names[i], "narrow") ? SW_NARROW : !strcmp(names[i], "tile") ? SW_TILE : 1 << i;
    }
    free(copy);
    if (!bits) lbp_usage_error("--sweeps: '%s' names no sweep", s);
    return bits;
}

/* One more shape for the tile sweep (once each). */
static void add_tile(mb_plan_options *p, const int tile[3], const char *flag, const char *arg)
{
    for (int i = 0; i < p->n_tiles; i++)
        if (!memcmp(p->tiles[i], tile, sizeof p->tiles[i])) return;
    if (p->n_tiles == MB_MAX_TILES) lbp_usage_error("%s: '%s' gives more than %d block shapes", flag, arg, MB_MAX_TILES);
    memcpy(p->tiles[p->n_tiles++], tile, sizeof p->tiles[0]);
}

/* --tile LIST: BXxBYxBZ shapes. */
static void parse_tiles(mb_plan_options *p, const char *arg)
{
    char *copy = lbp_list_copy("--tile", arg), *save = NULL, why[160];
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int tile[3];
        if (mb_tile_parse(tok, tile, why, sizeof why)) lbp_usage_error("--tile: %s", why);
        add_tile(p, tile, "--tile", arg);
    }
    free(copy);
}

/* A shape at forced blocks per SM, once. */
static void add_forced_tile(mb_plan_options *p, const int tile[3], int blocks, const char *arg)
{
    const int t[4] = {tile[0], tile[1], tile[2], blocks};
    for (int i = 0; i < p->n_forced_tiles; i++)
        if (!memcmp(p->forced_tiles[i], t, sizeof t)) return;
    if (p->n_forced_tiles == MB_MAX_TILES) lbp_usage_error("--tile-from: '%s' gives more than %d launches", arg,
                                                           MB_MAX_TILES);
    memcpy(p->forced_tiles[p->n_forced_tiles++], t, sizeof t);
}

/* --tile-from FILES: the blocks of the files' grid launches (a file of
 * another launch adds nothing); d given (the device open), the blocks per
 * SM each file's grid asks for there (blocks_per_sm; occupancy or
 * registers turned into blocks), at which its shape runs too. */
static void tile_files(mb_plan_options *p, const char *arg, const lbp_device *d)
{
    if (!arg || (d && !d->info.caps.force_blocks_per_cu)) return;
    char *copy = lbp_list_copy("--tile-from", arg), *save = NULL, err[512];
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        model_kernel_file f;
        if (model_kernel_file_read(tok, &f, err, sizeof err)) lbp_usage_error("--tile-from: %s", err);
        if (f.k.launch != MODEL_LAUNCH_GRID) continue;
        if (!d) {
            add_tile(p, f.k.block, "--tile-from", arg);
            continue;
        }
        const int blocks = mb_file_blocks_per_sm(&f, &d->info, f.k.block[0] * f.k.block[1] * f.k.block[2]);
        if (blocks > 0) add_forced_tile(p, f.k.block, blocks, arg);
    }
    free(copy);
}

static void parse_option(int opt, const char *arg, options *o)
{
    mb_plan_options *p = &o->plan;
    switch (opt) {
    case OPT_SWEEPS:
        p->sweeps = parse_sweeps(arg);
        o->sweeps_given = 1;
        break;
    case OPT_GEOMETRY_FROM: o->geometry_from = arg; break;
    case OPT_KERNEL: o->described.file = arg; break;
    case OPT_SOURCE: o->described.source = arg; break;
    case OPT_NVRTC_CHECK:
        if (strspn(arg, "smcomputeabf_0123456789") != strlen(arg) || !*arg || strlen(arg) > 32)
            lbp_usage_error("--nvrtc-check: '%s' is not an architecture such as sm_90", arg);
        o->described.nvrtc_arch = arg;
        break;
    case OPT_VERIFY_SIZE:
        if ((o->described.n_verify_sizes = mb_parse_sizes(arg, o->described.verify_sizes, MB_MAX_SIZES)) < 0)
            lbp_usage_error("--verify-size: '%s' is not NXxNYxNZ or a comma list of up to %d (each 1..1000000)", arg,
                            MB_MAX_SIZES);
        break;
    case OPT_LAUNCH_PROBE:
        o->described.n_probe_words = lbp_parse_int_list("--launch-probe", arg, 1, MB_MAX_WORDS,
                                                        o->described.probe_words, MB_MAX_LIST);
        break;
    case OPT_TILE: parse_tiles(p, arg); break;
    case OPT_TILE_FROM:
        tile_files(p, arg, NULL);
        o->tile_from = arg;
        break;
    case OPT_SIZE:
        o->size_list = arg;
        if ((o->described.n_sizes = mb_parse_sizes(arg, o->described.sizes, MB_MAX_SIZES)) < 0)
            lbp_usage_error("--size: '%s' is not NXxNYxNZ or a comma list of up to %d (each 1..1000000)", arg,
                            MB_MAX_SIZES);
        break;
    case OPT_WORDS: p->n_words = lbp_parse_int_list("--words", arg, 1, MB_MAX_WORDS, p->words, MB_MAX_LIST); break;
    case OPT_MISALIGNED:
        p->n_misaligned_n = lbp_parse_int_list("--misaligned", arg, 1, MB_MAX_WORDS, p->misaligned_n, MB_MAX_LIST);
        break;
    case OPT_WORD_BYTES:
        p->word_bytes = (int)lbp_parse_int("--word-bytes", arg, 2, 8);
        if (p->word_bytes != 2 && p->word_bytes != 4 && p->word_bytes != 8)
            lbp_usage_error("--word-bytes: '%s' is not 2, 4 or 8", arg);
        p->word_bytes_given = 1;
        break;
    case OPT_BLOCK_SIZE: p->block_size = (int)lbp_parse_int("--block-size", arg, 1, 1 << 16); break;
    case OPT_BLOCKS_PER_SM:
        p->blocks_per_cu = (int)lbp_parse_int("--blocks-per-sm", arg, 0, 1024);
        o->blocks_per_sm_given = 1;
        break;
    case OPT_THREADS: o->threads = lbp_parse_int("--threads", arg, 1, 1LL << 31); break;
    case OPT_THREAD_COUNTS:
        p->n_thread_counts = lbp_parse_int_list("--thread-counts", arg, 1, 1LL << 31, p->thread_counts, MB_MAX_LIST);
        break;
    case OPT_REPS: o->reps = (int)lbp_parse_int("--reps", arg, 1, 100000); break;
    case OPT_ALIGNED_ONLY: p->aligned_only = 1; break;
    case OPT_NO_ROWS: o->no_rows = 1; break;
    default:
        if (!lbp_common_opt(&o->common, opt, arg, USAGE)) lbp_bad_option();
    }
}

/* --kernel FILE --size LIST runs alone: the sweeps' options do not apply. */
static void check_described(options *o)
{
    mb_described_options *d = &o->described;
    if ((d->source || d->nvrtc_arch || d->n_verify_sizes) && !d->file)
        lbp_usage_error("--source, --verify-size and --nvrtc-check go with --kernel FILE");
    if ((d->nvrtc_arch || d->n_verify_sizes) && !d->source)
        lbp_usage_error("--verify-size and --nvrtc-check go with --source SRC");
    if (d->nvrtc_arch) { /* a compile check alone: no device, no lattice */
        d->word_bytes = o->plan.word_bytes_given ? o->plan.word_bytes : 0;
        return;
    }
    if (o->geometry_from && o->size_list && !d->file) { /* the geometry of a kernel file (plan_geometry) */
        d->word_bytes = o->plan.word_bytes_given ? o->plan.word_bytes : 0;
        return;
    }
    if (!d->file != !o->size_list)
        lbp_usage_error("--kernel FILE (or --geometry-from KERNEL_FILE) and --size LIST go together");
    if (d->n_probe_words && !d->file) lbp_usage_error("--launch-probe goes with --kernel FILE --size LIST");
    if (!d->file) return;
    const mb_plan_options *p = &o->plan;
    if (o->sweeps_given || o->geometry_from || p->n_words || p->n_misaligned_n || o->threads || p->n_thread_counts ||
        o->blocks_per_sm_given || p->block_size != 256)
        lbp_usage_error("--kernel runs the described kernel alone (its launch is the file's): drop --sweeps, "
                        "--geometry-from, --words, --misaligned, --threads, --thread-counts, --block-size and "
                        "--blocks-per-sm");
    d->common = &o->common;
    d->word_bytes = p->word_bytes_given ? p->word_bytes : 0;
}

static void parse_options(int argc, char **argv, options *o)
{
    static const struct option opts[] = {LBP_COMMON_LONGOPTS,
                                         {"sweeps", required_argument, 0, OPT_SWEEPS},
                                         {"words", required_argument, 0, OPT_WORDS},
                                         {"misaligned", required_argument, 0, OPT_MISALIGNED},
                                         {"word-bytes", required_argument, 0, OPT_WORD_BYTES},
                                         {"block-size", required_argument, 0, OPT_BLOCK_SIZE},
                                         {"blocks-per-sm", required_argument, 0, OPT_BLOCKS_PER_SM},
                                         {"threads", required_argument, 0, OPT_THREADS},
                                         {"thread-counts", required_argument, 0, OPT_THREAD_COUNTS},
                                         {"reps", required_argument, 0, OPT_REPS},
                                         {"aligned-only", no_argument, 0, OPT_ALIGNED_ONLY},
                                         {"no-rows", no_argument, 0, OPT_NO_ROWS},
                                         {"geometry-from", required_argument, 0, OPT_GEOMETRY_FROM},
                                         {"kernel", required_argument, 0, OPT_KERNEL},
                                         {"source", required_argument, 0, OPT_SOURCE},
                                         {"verify-size", required_argument, 0, OPT_VERIFY_SIZE},
                                         {"nvrtc-check", required_argument, 0, OPT_NVRTC_CHECK},
                                         {"launch-probe", required_argument, 0, OPT_LAUNCH_PROBE},
                                         {"size", required_argument, 0, OPT_SIZE},
                                         {"tile", required_argument, 0, OPT_TILE},
                                         {"tile-from", required_argument, 0, OPT_TILE_FROM},
                                         {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->common.device = -1;
    mb_plan_options *p = &o->plan;
    p->sweeps = SW_ALL;
    p->word_bytes = 4;
    p->block_size = 256;
    int opt;
    while ((opt = lbp_getopt(argc, argv, opts)) != -1) parse_option(opt, optarg, o);
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    check_described(o);
    if (o->geometry_from) {
        if (o->sweeps_given || p->n_thread_counts)
            lbp_usage_error("--geometry-from runs the geometry sweep alone: drop --sweeps and --thread-counts");
        p->sweeps = SW_GEOMETRY;
    }
    p->quick = o->common.quick;
}

/* lbmkernels' largest lattice on a CPU, 256^3 cells. */
#define MB_CPU_THREADS_TOP (1LL << 24)

/* Defaults that depend on the device (and --quick). */
static void apply_defaults(options *o, const lbp_device *d)
{
    mb_plan_options *p = &o->plan;
    /* a CPU's last-level cache can hold hundreds of MB: 2^22 threads of
     * 19 4-byte words each way span 640 MB */
    long long top = 0;
    for (int i = 0; i < p->n_thread_counts; i++)
        if (p->thread_counts[i] > top) top = p->thread_counts[i];
    if (o->threads && top > o->threads)
        lbp_usage_error("--thread-counts: %lld is over --threads %lld", top, o->threads);
    /* on a CPU the threads sweep goes on to the largest lattice lbmkernels
     * runs there, 256^3, quick or not (two lattices of 19 words within the
     * memory budget), as a CPU's curve still climbs at 2^22 */
    if (lbp_is_cpu(&d->info) && !o->threads && !top)
        for (int w = 2; w <= 8; w *= 2) {
            const long long fit = lbp_memory_budget(d) / (2LL * 19 * w);
            p->threads_top[mb_word_slot(w)] = fit < MB_CPU_THREADS_TOP ? fit : MB_CPU_THREADS_TOP;
        }
    if (!o->threads)
        o->threads = top ? top : !lbp_is_cpu(&d->info) ? (p->quick ? 1LL << 22 : 1LL << 24) : (p->quick ? 1LL << 16 : 1LL << 22);
    if (!o->reps) o->reps = p->quick ? 5 : 10;
    p->max_threads = o->threads;
    p->cpu = lbp_is_cpu(&d->info);
    if (!p->n_words) {
        /* a CPU's time against N is a line (membench-fit.csv), and every N
         * is a kernel its C compiler builds for seconds: a dozen points */
        static const int quick_words[] = {1, 4, 8, 19, 27, 40}, cpu_words[] = {1, 2, 4, 8, 12, 16, 19, 24, 27, 32, 40};
        const int *list = p->quick ? quick_words : cpu_words;
        const size_t n = p->quick ? sizeof quick_words / sizeof *quick_words : sizeof cpu_words / sizeof *cpu_words;
        if (p->quick || p->cpu)
            for (size_t i = 0; i < n; i++) p->words[p->n_words++] = list[i];
        else
            for (int n = 1; n <= 40; n++) p->words[p->n_words++] = n;
    }
    if (!p->n_misaligned_n) {
        p->misaligned_n[p->n_misaligned_n++] = 19;
        if (!p->quick) p->misaligned_n[p->n_misaligned_n++] = 27;
    }
    p->stamps = d->info.caps.warp_clock;
    p->fp64 = d->info.fp64;
    /* lbmkernels runs several cells per thread on GPUs only: elsewhere the
     * vector sweep runs where asked by name */
    p->vector = !lbp_is_cpu(&d->info) || (o->sweeps_given && (p->sweeps & SW_VECTOR));
    /* grid kernels of blocks narrower than a warp are a GPU's: elsewhere the
     * narrow sweep runs where asked by name */
    p->narrow = !lbp_is_cpu(&d->info) || (o->sweeps_given && (p->sweeps & SW_NARROW));
    /* and so are 3D grids of blocks: the tile sweep */
    p->tile = !lbp_is_cpu(&d->info) || (o->sweeps_given && (p->sweeps & SW_TILE));
    for (int i = 0; i < p->n_tiles; i++)
        if (p->tiles[i][0] * p->tiles[i][1] * p->tiles[i][2] > d->info.max_block_size)
            lbp_usage_error("--tile: %dx%dx%d is over %s's %d threads per block", p->tiles[i][0], p->tiles[i][1],
                            p->tiles[i][2], d->info.name, d->info.max_block_size);
    tile_files(p, o->tile_from, d);
    /* lbmkernels runs a row per work-item on CPUs: the rows sweep there */
    p->row = lbp_is_cpu(&d->info) && !o->no_rows ? MB_ROW_CELLS : 0;
    p->nontemporal = d->info.caps.nontemporal_stores;
    if (!p->fp64) lbp_warn("%s has no FP64: no 8-byte payload probes", d->info.name);
    if (o->blocks_per_sm_given && p->blocks_per_cu > 0 && !d->info.caps.force_blocks_per_cu)
        lbp_warn("--blocks-per-sm %d: %s cannot tell the occupancy; running unconstrained", p->blocks_per_cu,
                 d->info.backend);
}

/* ---- the measurement ------------------------------------------------------ */

typedef struct {
    options *o;
    lbp_device *d;
    const char *dir;
    int geometry;       /* --geometry-from: the geometry sweep alone */
    const char *stem;   /* the result files' name: membench, membench-geometry (the geometry
                         * sweep alone) or membench-tile (the tile sweep alone: a run that
                         * adds it to a folder beside its membench.csv) */
    int probes;         /* a sweep of probes runs */
    mb_bench bench;
    mb_plan plan;
    mb_result *results; /* per plan item */
    double *wall_s;     /* per run of run_probes (passes x items): its seconds, for the time left */
    lbp_csv *csv, *warps_csv;
    double timer_resolution_ns;
    mb_launch_result launch[MB_LAUNCH_MODES];
} run;

static _Noreturn void fail_run(run *r, const char *why)
{
    lbp_csv *files[] = {r->csv, r->warps_csv};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (files[i]) lbp_csv_abort(files[i]);
    lbp_fail("%s", why);
}

/* The sweeps force blocks per SM with shared memory under a carveout the
 * backend sets, confirmed by counting resident blocks (CUDA).  NVIDIA's
 * OpenCL tells a kernel's occupancy but chooses the carveout itself: its
 * sweeps run as many blocks as fit. */
static int can_force(const lbp_device *d) { return d->info.caps.force_blocks_per_cu; }

/* The tile sweep's shapes whose blocks are over what the device launches
 * of their kernel (NVIDIA's OpenCL: 256 threads for a 19-word probe) are
 * left out, each said once; every other probe over its limit is an error
 * (below). */
static void drop_probes_over_limit(run *r)
{
    int kept = 0;
    for (int i = 0; i < r->plan.n; i++) {
        const mb_plan_item *it = &r->plan.items[i];
        const mb_config *c = &it->cfg;
        if (mb_is_tile(&c->spec)) {
            const int limit = mb_block_limit(r->d, mb_kernel_for(&r->bench, &c->spec)->kernel);
            if (c->block_size > limit) {
                if (!c->spec.misaligned_reads && !c->spec.misaligned_writes)
                    lbp_warn("tile sweep: blocks of %dx%dx%d (%d threads) are over the %d threads %s launches of "
                             "this probe: not run",
                             c->spec.tile[0], c->spec.tile[1], c->spec.tile[2], c->block_size, limit,
                             r->d->info.backend);
                continue;
            }
        }
        /* A kernel's launch that a probe of its shape cannot take (the
         * payload's registers leave fewer threads or blocks than the
         * kernel's): that launch has no geometry row of that variant, and
         * the model answers it by another path, as it says. */
        char why[256], name[64];
        mb_shape sh;
        if (!strcmp(it->sweep, "geometry") &&
            mb_resolve_shape(&r->bench, mb_kernel_for(&r->bench, &c->spec), c, &sh, why, sizeof why)) {
            lbp_warn("geometry sweep: %s: %s: not run", mb_config_name(c, name, sizeof name), why);
            continue;
        }
        r->plan.items[kept++] = *it;
    }
    r->plan.n = kept;
}

/* The blocks per SM a sweep may force up to: as many as fit, 0 where none
 * can be forced. */
static int blocks_to_force(lbp_device *d, lbp_kernel *k, int block_size)
{
    return can_force(d) ? d->be->occupancy(d, k, block_size, 0) : 0;
}

/* The fill and verify kernels of every word size the plan's probes and
 * `extra` use, compiled beside the probes. */
static void prefetch_support(run *r, const mb_probe_spec *extra, int n_extra)
{
    int seen[3] = {0, 0, 0};
    for (int i = 0; i < r->plan.n + n_extra; i++) {
        const int w = i < r->plan.n ? r->plan.items[i].cfg.spec.word_bytes : extra[i - r->plan.n].word_bytes;
        if ((w == 2 || w == 4 || w == 8) && !seen[mb_word_slot(w)]++) mb_support_prefetch(&r->bench, w);
    }
}

/* Occupancy sweep needs the N=19 kernel's limit; everything is compiled and
 * checked here, before anything is measured or written. */
static void preflight(run *r)
{
    char why[512];
    mb_plan_options *p = &r->o->plan;
    mb_probe_spec first[MB_OCCUPANCY_VARIANTS + 3]; /* the kernels that size the plan, side by side */
    int nfirst = p->sweeps & SW_OCCUPANCY ? mb_occupancy_variants(p, first) : 0;
    for (int w = 2; w <= 8 && (p->sweeps & SW_THREADS); w *= 2)
        first[nfirst++] = (mb_probe_spec){.words = 19, .word_bytes = w};
    for (int i = 0; i < nfirst; i++) mb_kernel_prefetch(&r->bench, &first[i]);
    prefetch_support(r, first, nfirst);
    if (p->sweeps & SW_OCCUPANCY) {
        mb_probe_spec variants[MB_OCCUPANCY_VARIANTS];
        int nv = mb_occupancy_variants(p, variants);
        for (int v = 0; v < nv; v++) {
            /* each variant at the blocks per SM its own registers allow */
            mb_config c = {.spec = variants[v], .block_size = p->block_size};
            const mb_compiled *k = mb_kernel_for(&r->bench, &c.spec);
            mb_shape sh;
            if (mb_resolve_shape(&r->bench, k, &c, &sh, why, sizeof why)) lbp_usage_error("%s", why);
            if (v == 0 && !can_force(r->d))
                lbp_warn("occupancy sweep: %s cannot force blocks per compute unit; block sizes only",
                         r->d->info.backend);
            const int limit = mb_block_limit(r->d, k->kernel);
            static const int block_sizes[] = MB_OCCUPANCY_BLOCK_SIZES;
            for (size_t b = 0; b < sizeof block_sizes / sizeof *block_sizes; b++)
                if (block_sizes[b] <= limit)
                    mb_plan_occupancy(&r->plan, p, &variants[v], block_sizes[b],
                                      blocks_to_force(r->d, k->kernel, block_sizes[b]));
        }
    }
    if (p->sweeps & SW_THREADS)
        for (int w = 2; w <= 8; w *= 2) {
            mb_config c = {.spec = {.words = 19, .word_bytes = w}, .block_size = p->block_size};
            const mb_compiled *k = mb_kernel_for(&r->bench, &c.spec);
            mb_plan_threads_occupancy(&r->plan, p, w, blocks_to_force(r->d, k->kernel, p->block_size));
        }
    mb_plan_group_threads(&r->plan);
    for (int i = 0; i < r->plan.n; i++) /* side by side where the backend can */
        for (int s = 0; s <= r->plan.items[i].stamps; s++) {
            mb_probe_spec spec = r->plan.items[i].cfg.spec;
            spec.stamps = s;
            if (!mb_spec_check(&spec, why, sizeof why)) mb_kernel_prefetch(&r->bench, &spec);
        }
    drop_probes_over_limit(r);
    double t0 = lbp_now();
    for (int i = 0; i < r->plan.n; i++) {
        mb_plan_item *it = &r->plan.items[i];
        mb_config c = it->cfg;
        for (int s = 0; s <= it->stamps; s++) {
            c.spec.stamps = s;
            char name[64];
            if (mb_spec_check(&c.spec, why, sizeof why)) lbp_usage_error("%s", why);
            const mb_compiled *k = mb_kernel_for(&r->bench, &c.spec);
            mb_shape sh;
            if (mb_resolve_shape(&r->bench, k, &c, &sh, why, sizeof why))
                lbp_usage_error("%s: %s", mb_config_name(&c, name, sizeof name), why);
        }
        if (i % 10 == 9 || i == r->plan.n - 1)
            lbp_progress_of("compile", i + 1, r->plan.n, lbp_now() - t0, "probes checked, %d kernels compiled",
                            r->bench.n_cache);
    }
}

static void write_probe_row(run *r, const mb_plan_item *it, const mb_result *res)
{
    const mb_config *c = &res->cfg;
    char occupancy[32];
    if (res->shape.occupancy < 0)
        snprintf(occupancy, sizeof occupancy, "-1");
    else
        snprintf(occupancy, sizeof occupancy, "%.4f", res->shape.occupancy);
    lbp_csv_row(r->csv, "%s,%d,%d,%d,%d,%d,%d,%d,%s,%lld,%lld,%d,%.6f,%.6f,%.6f,%.2f,%.2f,%.6f,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s", it->sweep,
                res->record.words, res->record.word_bytes, res->record.misaligned_reads,
                res->record.misaligned_writes, c->block_size, c->blocks_per_cu_requested, res->shape.blocks_per_cu,
                occupancy, (long long)res->threads, (long long)res->bytes_moved, res->ms.n, res->ms.min,
                res->ms.median, res->ms.max, res->gbs_max, res->gbs_median, res->ns_per_thread,
                c->launches > 1 ? "back_to_back" : "events", res->record.ops_per_thread, c->launches > 1 ? c->launches : 1,
                res->record.in_place, res->record.swapped, res->record.vector, res->record.row,
                res->record.band, res->record.tile[0], res->record.tile[1], res->record.tile[2],
                res->record.nontemporal ? "nontemporal" : "normal", res->record.folded ? "folded" : "masked");
}

static void write_stats_row(lbp_csv *csv, const char *config, const char *phase, int rank, const lbp_stats *s)
{
    lbp_csv_row(csv, "%s,%s,%d,%d,%.0f,%.0f,%.0f,%.0f,%.0f", config, phase, rank, s->n, s->min, s->q1, s->median,
                s->q3, s->max);
}

static void run_stamps(run *r, const mb_plan_item *it)
{
    char why[512], name[64];
    mb_warp_summary w;
    if (mb_run_stamps(&r->bench, &it->cfg, &w, why, sizeof why)) fail_run(r, why);
    mb_config_name(&it->cfg, name, sizeof name);
    for (int k = 0; k < w.ranks; k++) write_stats_row(r->warps_csv, name, "launch", k, &w.launch[k]);
    write_stats_row(r->warps_csv, name, "read", -1, &w.read);
    write_stats_row(r->warps_csv, name, "write", -1, &w.write);
    if (w.resolution_ns > 0 && (r->timer_resolution_ns == 0 || w.resolution_ns < r->timer_resolution_ns))
        r->timer_resolution_ns = w.resolution_ns;
}

/* ---- the time left ------------------------------------------------------- */

/* Seconds item `it` takes at gbs GB/s: its bytes per launch, the launches
 * of a timed run (back to back: as many as fill MB_THREADS_RUN_MS, a few
 * where the bench's long_run_ms is exceeded, probe.h), warm-up and
 * repetitions (on a CPU, long runs take LBP_CPU_LONG_RUN_REPS, stats.h).
 * Its points differ by orders of magnitude (a thread count of 2^12 against
 * 2^24): counting points, an estimate from the first ones came out at a
 * tenth of the run. */
static double item_seconds(const run *r, const mb_plan_item *it, double gbs)
{
    const mb_config *c = &it->cfg;
    const double threads = c->threads > 0 ? (double)c->threads : (double)r->o->threads;
    const double bytes = threads * c->spec.words * c->spec.word_bytes * 2.0 * mb_vector(&c->spec);
    const double launch_ms = bytes / (gbs * 1e6);
    double run_ms = launch_ms;
    if (c->launches > 1)
        run_ms = fmax(MB_THREADS_RUN_MS, fmin(launch_ms * c->launches, fmax(r->bench.long_run_ms,
                                                                             r->bench.few_launches * launch_ms)));
    int reps = r->o->reps;
    if (lbp_is_cpu(&r->d->info) && run_ms >= LBP_CPU_LONG_RUN_MS && reps > LBP_CPU_LONG_RUN_REPS)
        reps = LBP_CPU_LONG_RUN_REPS;
    const int warmup = r->o->plan.quick ? 1 : 2, pilot = c->launches > 1 ? 2 : 0;
    return ((warmup + reps) * run_ms + pilot * launch_ms) / 1e3;
}

/* Item i's result so far is its first pass's where this asks (before its
 * second run): how long that pass's timed runs lasted. */
#define MB_ONE_PASS_S 0.05
static int one_pass(const run *r, int i)
{
    const mb_result *x = &r->results[i];
    return x->ms.median * x->cfg.launches * x->ms.n / 1e3 >= MB_ONE_PASS_S;
}

static double item_threads(const run *r, const mb_plan_item *it)
{
    return it->cfg.threads > 0 ? (double)it->cfg.threads : (double)r->o->threads;
}

/* Seconds left after `done` of the plan's `total` runs (passes x items):
 * each remaining run's cost at the bandwidth of the points measured so far
 * (item_seconds), times how much longer than that cost the runs already
 * done at the nearest thread count took (r->wall_s: repetitions measured
 * again, fills, verification, and a large array's bandwidth below a small
 * one's).  A single factor for all of them held the estimate still while
 * the small points went by and left the large ones at the end unpriced;
 * per thread count it moves with each point and prices the large ones by
 * the large ones measured (the rows sweep measures every size early). */
static double seconds_left(const run *r, int done, int total)
{
    const int n = r->plan.n;
    double bytes = 0, ms = 0;
    for (int i = 0; i < done && i < n; i++) {
        const mb_result *x = &r->results[i];
        if (x->gbs_median > 0) bytes += x->gbs_median * x->ms.median, ms += x->ms.median;
    }
    if (ms <= 0 || !r->wall_s) return NAN;
    const double gbs = bytes / ms; /* the time-weighted mean of their GB/s */
    double rest = 0;
    for (int k = done; k < total; k++) {
        if (k >= n && one_pass(r, k % n)) continue;
        const mb_plan_item *it = &r->plan.items[k % n];
        const double threads = item_threads(r, it);
        /* the done runs at the thread count nearest this one's (log distance) */
        double nearest = INFINITY, near_threads = 0;
        for (int j = 0; j < done; j++) {
            if (r->wall_s[j] <= 0) continue; /* a second pass not run */
            const double d = fabs(log(item_threads(r, &r->plan.items[j % n]) / threads));
            if (d < nearest) nearest = d, near_threads = item_threads(r, &r->plan.items[j % n]);
        }
        double wall = 0, cost = 0;
        for (int j = 0; j < done; j++)
            if (r->wall_s[j] > 0 && item_threads(r, &r->plan.items[j % n]) == near_threads)
                wall += r->wall_s[j], cost += item_seconds(r, &r->plan.items[j % n], gbs);
        rest += item_seconds(r, it, gbs) * (cost > 0 ? fmax(1, wall / cost) : 1);
    }
    return rest;
}

/* The plan in `passes` passes, each item keeping its faster one (the
 * geometry sweep takes MB_GEOMETRY_PASSES: a slower device state for a few
 * ms -- clocks, a freshly loaded module -- can hold one variant at one
 * thread count slow through all its repetitions), then the rows. An item
 * whose first pass's timed runs spanned MB_ONE_PASS_S or more (the
 * lattices past a few L2s) is not run again: such a state holds one of its
 * repetitions at most, and their median does not see it. */
#define MB_GEOMETRY_PASSES 2
static void run_probes(run *r, int passes)
{
    char why[512], name[64];
    double t0 = lbp_now();
    int warmup = r->o->plan.quick ? 1 : 2;
    r->wall_s = calloc((size_t)passes * (size_t)r->plan.n, sizeof *r->wall_s);
    if (!r->wall_s) lbp_fail("out of memory");
    for (int pass = 0; pass < passes; pass++)
        for (int i = 0; i < r->plan.n; i++) {
            mb_plan_item *it = &r->plan.items[i];
            mb_result res;
            if (pass && one_pass(r, i)) continue;
            const double t_item = lbp_now();
            int rc = mb_run_probe(&r->bench, &it->cfg, warmup, r->o->reps, &res, why, sizeof why);
            if (rc == 2) lbp_usage_error("%s", why); /* preflight should have caught it */
            if (rc) fail_run(r, why);
            if (!pass || res.ms.median < r->results[i].ms.median) r->results[i] = res;
            if (!pass && it->stamps) run_stamps(r, it);
            const int done = pass * r->plan.n + i + 1, total = passes * r->plan.n;
            const double elapsed = lbp_now() - t0;
            r->wall_s[done - 1] = lbp_now() - t_item;
            lbp_progress_left(done, total, elapsed, seconds_left(r, done, total), "%s %s x%lld: %.1f GB/s",
                              it->sweep, mb_config_name(&it->cfg, name, sizeof name), (long long)res.threads,
                              res.gbs_median);
        }
    free(r->wall_s);
    r->wall_s = NULL;
    for (int i = 0; i < r->plan.n; i++) write_probe_row(r, &r->plan.items[i], &r->results[i]);
}

/* ---- fits ------------------------------------------------------------------- */

typedef struct {
    lbp_fit fit;
    double aligned_ns; /* ns_per_thread at x = 0 (misaligned sweeps) */
} fit_result;

/* ns_per_thread against x over the rows of one sweep (words < 0: N is x). */
static int fit_sweep(const run *r, const char *sweep, int word_bytes, int words, fit_result *out)
{
    double x[MB_MAX_LIST * 2], y[MB_MAX_LIST * 2];
    int n = 0;
    out->aligned_ns = NAN;
    for (int i = 0; i < r->plan.n && n < MB_MAX_LIST * 2; i++) {
        const mb_plan_item *it = &r->plan.items[i];
        const mb_config *c = &it->cfg;
        if (strcmp(it->sweep, sweep) || c->spec.word_bytes != word_bytes) continue;
        if (words >= 0 && c->spec.words != words) continue;
        double v = words < 0 ? c->spec.words
                   : strcmp(sweep, "misaligned_writes") == 0 ? c->spec.misaligned_writes
                                                             : c->spec.misaligned_reads;
        if (v == 0) out->aligned_ns = r->results[i].ns_per_thread;
        x[n] = v;
        y[n++] = r->results[i].ns_per_thread;
    }
    if (n < 2) return 0;
    out->fit = lbp_fit_line(x, y, n);
    return 1;
}

static void write_fit_row(lbp_csv *csv, const char *name, int word_bytes, int words, const char *x, const lbp_fit *f)
{
    lbp_csv_row(csv, "%s,%d,%d,%s,%.6f,%.6f,%.6f,%.6f,%d", name, word_bytes, words, x, f->slope, f->intercept, f->r2,
                f->rms, f->n);
}

typedef struct {
    double read_ns, write_ns, both_ns, aligned_ns; /* at N=19 (NAN: not measured) */
    lbp_fit fits[3];                               /* read, write, both (n = 0: not measured) */
} n19_costs;

static n19_costs write_fits(run *r)
{
    const char *dir = r->dir;
    const lbp_device_info *info = &r->d->info;
    n19_costs c = {.read_ns = NAN, .write_ns = NAN, .both_ns = NAN, .aligned_ns = NAN};
    const mb_plan_options *p = &r->o->plan;
    if (!(p->sweeps & (SW_WORDS | SW_MISALIGNED))) return c;
    lbp_csv *csv = lbp_csv_open(dir, "membench-fit.csv", "fit,word_bytes,words,x,slope_ns,intercept_ns,r2,rms_ns,points",
                                info, r->o->common.force);
    fit_result f;
    for (int w = 2; w <= 8; w *= 2)
        if (fit_sweep(r, "words", w, -1, &f)) write_fit_row(csv, "time_vs_words", w, -1, "words", &f.fit);
    /* the 2-byte curves at N = 19 the plan adds beside a 4-byte default */
    static const char *const sweeps[] = {"misaligned_reads", "misaligned_writes", "misaligned_both"};
    for (int s = 0; s < 3 && p->word_bytes != 2 && (p->sweeps & SW_MISALIGNED); s++)
        if (fit_sweep(r, sweeps[s], 2, 19, &f)) write_fit_row(csv, sweeps[s], 2, 19, sweeps[s], &f.fit);
    for (int i = 0; i < p->n_misaligned_n && (p->sweeps & SW_MISALIGNED); i++) {
        int n = (int)p->misaligned_n[i];
        for (int s = 0; s < 3; s++) {
            if (!fit_sweep(r, sweeps[s], p->word_bytes, n, &f)) continue;
            write_fit_row(csv, sweeps[s], p->word_bytes, n, sweeps[s], &f.fit);
            if (n != 19) continue;
            double *slot = s == 0 ? &c.read_ns : s == 1 ? &c.write_ns : &c.both_ns;
            *slot = f.fit.slope;
            c.fits[s] = f.fit;
            c.aligned_ns = f.aligned_ns;
        }
    }
    lbp_csv_finish(csv);
    return c;
}

/* ---- launch latency ------------------------------------------------------- */

static void measure_launch(run *r)
{
    int quick = r->o->plan.quick;
    int launches = !lbp_is_cpu(&r->d->info) ? (quick ? 200 : 1000) : (quick ? 50 : 200);
    fprintf(stderr, "%s: launch latency (%d launches x %d reps per mode)\n", lbp_prog, launches, r->o->reps);
    mb_measure_launch(r->d, launches, r->o->reps, r->launch);
}

static void write_launch(const run *r)
{
    const mb_launch_result *lr = r->launch;
    lbp_csv *csv = lbp_csv_open(r->dir, "launch.csv", "mode,launches,reps,us_min,us_median,us_max", &r->d->info,
                                r->o->common.force);
    for (int m = 0; m < MB_LAUNCH_MODES; m++)
        if (lr[m].measured)
            lbp_csv_row(csv, "%s,%d,%d,%.3f,%.3f,%.3f", mb_launch_mode_names[m], lr[m].launches, lr[m].reps,
                        lr[m].us.min, lr[m].us.median, lr[m].us.max);
    lbp_csv_finish(csv);
}

/* ---- summary ----------------------------------------------------------------- */

static const mb_result *aligned_n19(const run *r)
{
    for (int i = 0; i < r->plan.n; i++) {
        const mb_config *c = &r->plan.items[i].cfg;
        if (c->spec.words == 19 && c->spec.word_bytes == r->o->plan.word_bytes && !c->spec.misaligned_reads &&
            !c->spec.misaligned_writes && !c->spec.payload && c->block_size == r->o->plan.block_size && !c->threads &&
            c->blocks_per_cu_requested == r->o->plan.blocks_per_cu)
            return &r->results[i];
    }
    return NULL;
}

/* Time of the payload sweep's collision probe over the aligned N=19 probe
 * (same word size and launch): what the arithmetic of a collision adds
 * (1: hidden under the memory traffic).  NAN when either is missing. */
static double collision_ratio(const run *r)
{
    const mb_result *a = aligned_n19(r);
    for (int i = 0; i < r->plan.n && a; i++) {
        const mb_config *c = &r->plan.items[i].cfg;
        if (!strcmp(r->plan.items[i].sweep, "payload") && c->spec.payload == MB_PAYLOAD_COLLISION &&
            c->spec.word_bytes == a->cfg.spec.word_bytes && r->results[i].ms.median > 0 && a->ms.median > 0)
            return r->results[i].ms.median / a->ms.median;
    }
    return NAN;
}

/* A misaligned word's cost, where its slope is clear of the scatter; else
 * no number is a cost: the slope is said to be noise, with what says so. */
static void print_cost(const char *what, double ns, const lbp_fit *f, double aligned_ns)
{
    if (isnan(ns))
        printf("  %-32s not measured\n", what);
    else if (!lbp_fit_slope_clear(f))
        printf("  %-32s within noise: no cost measured (fitted slope %+.4f ns/thread per word, r^2 %.2f over %d "
               "points)\n", what, ns, f->r2, f->n);
    else
        printf("  %-32s %+8.4f ns/thread per word (%+.2f %% of aligned)\n", what, ns, 100 * ns / aligned_ns);
}

/* The write's cost over the read's: a number only where both are clear of
 * the scatter (a ratio over a noise-level or negative slope means nothing). */
static void print_write_read_ratio(const n19_costs *c, double ratio)
{
    if (isnan(c->read_ns) || isnan(c->write_ns)) return;
    if (!isnan(ratio))
        printf("  misaligned write / misaligned read cost ratio: %.2f\n", ratio);
    else
        printf("  misaligned write / misaligned read cost ratio: n/a (the misaligned %s extra is within noise)\n",
               !lbp_fit_slope_clear(&c->fits[0]) ? "read" : "write");
}

/* Blocks per SM of the default threads sweep (the others are the
 * fewer-blocks curves). */
static int p_blocks(const run *r) { return r->o->plan.blocks_per_cu; }

/* The row of `sweep` at a's launch (block size, blocks per SM, thread
 * count) with w-byte words, L = l, M = m, the payload, in place or swapped
 * (NULL: none). */
static const mb_result *layout_row(const run *r, const char *sweep, const mb_config *a, int w, int l, int m,
                                   int payload, int in_place, int swapped)
{
    for (int j = 0; j < r->plan.n; j++) {
        const mb_config *c = &r->plan.items[j].cfg;
        if (!strcmp(r->plan.items[j].sweep, sweep) && c->spec.word_bytes == w && c->threads == a->threads &&
            c->spec.misaligned_reads == l && c->spec.misaligned_writes == m && c->spec.payload == payload &&
            !c->spec.in_place == !in_place && !c->spec.swapped == !swapped &&
            c->block_size == a->block_size && c->blocks_per_cu_requested == a->blocks_per_cu_requested)
            return &r->results[j];
    }
    return NULL;
}

/* The same, neither in place nor swapped */
static const mb_result *variant_row(const run *r, const char *sweep, const mb_config *a, int w, int l, int m,
                                    int payload)
{
    return layout_row(r, sweep, a, w, l, m, payload, 0, 0);
}

/* The threads sweep as a table: per-launch time of 4- and 8-byte words,
 * and what the payload and misalignment add (4-byte words, x aligned). */
static void print_threads_sweep(const run *r)
{
    int header = 0;
    for (int i = 0; i < r->plan.n; i++) {
        const mb_plan_item *it = &r->plan.items[i];
        const mb_probe_spec *s = &it->cfg.spec;
        if (strcmp(it->sweep, "threads") || s->word_bytes != 4 || s->misaligned_reads || s->misaligned_writes ||
            s->payload || it->cfg.blocks_per_cu_requested != p_blocks(r))
            continue;
        if (!header++)
            printf("  threads sweep (N=19, runs of %d+ launches back to back; per launch; 4 B: x aligned with\n"
                   "  payload P=%d, L=10, M=10, L=M=10):\n"
                   "  %10s %9s %9s %9s %7s %7s %7s %7s\n",
                   MB_THREADS_LAUNCHES, MB_PAYLOAD_COLLISION, "threads", "4 B us", "GB/s", "8 B us", "P", "L10",
                   "M10", "L=M=10");
        const mb_result *a = &r->results[i], *b = variant_row(r, "threads", &it->cfg, 8, 0, 0, 0);
        printf("  %10lld %9.2f %9.1f", (long long)a->threads, a->ms.median * 1e3, a->gbs_median);
        if (b) printf(" %9.2f", b->ms.median * 1e3);
        else printf(" %9s", "-");
        static const int variant[4][3] = {{0, 0, MB_PAYLOAD_COLLISION}, {10, 0, 0}, {0, 10, 0}, {10, 10, 0}};
        for (int v = 0; v < 4; v++) {
            const mb_result *x = variant_row(r, "threads", &it->cfg, 4, variant[v][0], variant[v][1], variant[v][2]);
            if (x && a->ms.median > 0) printf(" %7.2f", x->ms.median / a->ms.median);
            else printf(" %7s", "-");
        }
        printf("\n");
    }
}

/* The narrow sweep's row at BX = band, L = l, M = m (NULL: none). */
static const mb_result *narrow_row(const run *r, int band, int l, int m)
{
    for (int j = 0; j < r->plan.n; j++) {
        const mb_probe_spec *s = &r->plan.items[j].cfg.spec;
        if (!strcmp(r->plan.items[j].sweep, "narrow") && mb_band(s) == band && s->misaligned_reads == l &&
            s->misaligned_writes == m)
            return &r->results[j];
    }
    return NULL;
}

/* The tile sweep's row at shape tile, L = l, M = m, blocks per SM forced
 * to k (NULL: none). */
static const mb_result *tile_row(const run *r, const int tile[3], int l, int m, int k)
{
    for (int j = 0; j < r->plan.n; j++) {
        const mb_probe_spec *s = &r->plan.items[j].cfg.spec;
        if (!strcmp(r->plan.items[j].sweep, "tile") && !memcmp(s->tile, tile, sizeof s->tile) &&
            s->misaligned_reads == l && s->misaligned_writes == m &&
            r->plan.items[j].cfg.blocks_per_cu_requested == k)
            return &r->results[j];
    }
    return NULL;
}

/* One line of the tile table: us per launch at 0/0, each L/M over BSx1x1. */
static void print_tile_line(const run *r, const int shape[3], int k)
{
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    const int ref[3] = {shape[0] * shape[1] * shape[2], 1, 1};
    char name[48], label[64];
    const mb_result *aligned = tile_row(r, shape, 0, 0, k);
    if (!aligned) return;
    mb_tile_name(shape, name, sizeof name);
    if (k != r->o->plan.blocks_per_cu) snprintf(label, sizeof label, "%s @%d/SM", name, k);
    else snprintf(label, sizeof label, "%s", name);
    printf("  %-14s %9.2f", label, aligned->ms.median * 1e3);
    for (int v = 0; v < 3; v++) {
        const mb_result *x = tile_row(r, shape, lm[v][0], lm[v][1], k), *lin = tile_row(r, ref, lm[v][0], lm[v][1], k);
        if (x && lin && lin->ms.median > 0) printf(" %7.3f", x->ms.median / lin->ms.median);
        else printf(" %7s", "-");
    }
    printf("\n");
}

/* The tile sweep as a table: per shape, us per launch at L/M = 0/0 and each
 * L/M's time over the linear reference BS x 1 x 1 (what the model reads);
 * then the --tile-from shapes at their kernels' blocks per SM. */
static void print_tile_sweep(const run *r)
{
    const mb_plan_options *o = &r->o->plan;
    int shapes[2 * (MB_MAX_TILES + 16)][3];
    const int n = mb_plan_tile_shapes(o, shapes, (int)(sizeof shapes / sizeof *shapes));
    for (int s = 0, header = 0; s < n; s++) {
        if (!tile_row(r, shapes[s], 0, 0, o->blocks_per_cu)) continue;
        if (!header++)
            printf("  tile sweep (N=19, 4 B, back to back; threads as a 3D grid of BXxBYxBZ blocks; us per\n"
                   "  launch at 0/0, and each L/M over the linear BSx1x1 at the same L/M and blocks per SM):\n"
                   "  %-14s %9s %7s %7s %7s\n", "block", "0/0 us", "0/0", "10/0", "0/10");
        print_tile_line(r, shapes[s], o->blocks_per_cu);
    }
    for (int t = 0; t < o->n_forced_tiles; t++)
        if (o->forced_tiles[t][3] != o->blocks_per_cu) print_tile_line(r, o->forced_tiles[t], o->forced_tiles[t][3]);
}

/* The narrow sweep as a table: per launch at BX = 32 (linear), and BX = 16,
 * 8, 4 as times that (what the model reads). */
static void print_narrow_sweep(const run *r)
{
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    for (int v = 0, header = 0; v < 3; v++) {
        const mb_result *linear = narrow_row(r, 32, lm[v][0], lm[v][1]);
        if (!linear || linear->ms.median <= 0) continue;
        if (!header++)
            printf("  narrow sweep (N=19, 4 B, back to back; each warp BX cells of 32/BX rows; us per launch\n"
                   "  at BX=32, x that at BX=16, 8, 4):\n  %7s %9s %7s %7s %7s\n",
                   "L/M", "32 us", "16", "8", "4");
        printf("  %4d/%-2d %9.2f", lm[v][0], lm[v][1], linear->ms.median * 1e3);
        for (int bx = 16; bx >= 4; bx /= 2) {
            const mb_result *x = narrow_row(r, bx, lm[v][0], lm[v][1]);
            if (x) printf(" %7.2f", x->ms.median / linear->ms.median);
            else printf(" %7s", "-");
        }
        printf("\n");
    }
}

static void summarise(run *r, int argc, char **argv, const n19_costs *c)
{
    const char *dir = r->dir;
    const mb_launch_result *lr = r->launch;
    const mb_result *a = aligned_n19(r);
    double launch_us[MB_LAUNCH_MODES];
    for (int m = 0; m < MB_LAUNCH_MODES; m++) launch_us[m] = lr[m].measured ? lr[m].us.median : NAN;
    const int ratio_means = lbp_fit_slope_clear(&c->fits[0]) && lbp_fit_slope_clear(&c->fits[1]);
    double ratio = ratio_means ? c->write_ns / c->read_ns : NAN, collision = collision_ratio(r);
    lbp_meta *m = lbp_meta_new(r->stem, &r->d->info, argc, argv);
    lbp_meta_number(m, "aligned_n19_gbs", "%.2f", a ? a->gbs_median : NAN);
    lbp_meta_number(m, "misaligned_read_ns", "%.6f", c->read_ns);
    lbp_meta_number(m, "misaligned_write_ns", "%.6f", c->write_ns);
    lbp_meta_number(m, "misaligned_both_ns", "%.6f", c->both_ns);
    lbp_meta_number(m, "misaligned_write_read_ratio", "%.3f", ratio);
    lbp_meta_number(m, "collision_payload_ratio", "%.3f", collision);
    lbp_meta_number(m, "launch_us_back_to_back", "%.3f", launch_us[MB_LAUNCH_BACK_TO_BACK]);
    lbp_meta_number(m, "launch_us_sync_each", "%.3f", launch_us[MB_LAUNCH_SYNC_EACH]);
    lbp_meta_number(m, "launch_us_graph", "%.3f", launch_us[MB_LAUNCH_GRAPH]);
    lbp_meta_number(m, "globaltimer_resolution_ns", "%.0f", r->timer_resolution_ns > 0 ? r->timer_resolution_ns : NAN);
    lbp_meta_number(m, "threads", "%.0f", r->bench.threads ? (double)r->bench.threads : NAN);
    if (r->o->plan.stamps) lbp_meta_set(m, "warp_timing", "globaltimer");
    else lbp_meta_set(m, "warp_timing", "none (%s has no per-warp clock)", r->d->info.backend);
    lbp_meta_write(m, dir, r->o->common.force);

    printf("membench on %s (%s), results in %s\n", r->d->info.name, r->d->info.backend, dir);
    if (r->bench.threads)
        printf("  %lld threads per launch, block size %d\n", (long long)r->bench.threads, r->o->plan.block_size);
    if (a)
        printf("  aligned probe N=19 (%d B words):  %.2f GB/s, %.4f ns/thread\n", a->record.word_bytes, a->gbs_median,
               a->ns_per_thread);
    double aligned_ns = !isnan(c->aligned_ns) ? c->aligned_ns : a ? a->ns_per_thread : NAN;
    print_cost("misaligned read (N=19):", c->read_ns, &c->fits[0], aligned_ns);
    print_cost("misaligned write (N=19):", c->write_ns, &c->fits[1], aligned_ns);
    print_cost("misaligned read+write (N=19):", c->both_ns, &c->fits[2], aligned_ns);
    print_write_read_ratio(c, ratio);
    if (!isnan(collision))
        printf("  collision payload (P=%d, %d operations per thread): x %.3f the aligned probe's time\n",
               MB_PAYLOAD_COLLISION, mb_payload_ops(19, MB_PAYLOAD_COLLISION), collision);
    for (int m = 0; m < MB_LAUNCH_MODES; m++)
        if (lr[m].measured) printf("  launch latency %-14s %8.2f us\n", mb_launch_mode_names[m], lr[m].us.median);
    if (r->timer_resolution_ns > 0) printf("  %%globaltimer resolution:         %.0f ns\n", r->timer_resolution_ns);
    print_threads_sweep(r);
    print_narrow_sweep(r);
    print_tile_sweep(r);
}

/* The geometry sweep: per geometry and thread count, the aligned probe's
 * per-launch time and what misalignment and the payload make of it. */
static void summarise_geometry(run *r, int argc, char **argv)
{
    const char *dir = r->dir;
    lbp_meta *m = lbp_meta_new("membench-geometry", &r->d->info, argc, argv);
    lbp_meta_set(m, "geometry_from", "%s", r->o->geometry_from);
    lbp_meta_write(m, dir, r->o->common.force);
    printf("membench geometry sweep on %s (%s), the launches of %s; results in %s/membench-geometry.csv\n"
           "  N=19, runs of %d+ launches back to back; us per launch, aligned, then x aligned with L=10, M=10,\n"
           "  L=M=10, the payload P=%d, the arrays swapped at every launch, and in place (all aligned)\n"
           "  %6s %4s %3s %10s %9s %7s %7s %7s %7s %7s %7s\n",
           r->d->info.name, r->d->info.backend, r->o->geometry_from, dir, MB_THREADS_LAUNCHES,
           MB_PAYLOAD_COLLISION, "block", "k", "B", "threads", "us", "L10", "M10", "L=M=10", "P", "swap", "inplace");
    for (int i = 0; i < r->plan.n; i++) {
        const mb_config *a = &r->plan.items[i].cfg;
        if (a->spec.misaligned_reads || a->spec.misaligned_writes || a->spec.payload || a->spec.in_place ||
            a->spec.swapped)
            continue;
        printf("  %6d %4d %3d %10lld %9.2f", a->block_size, a->blocks_per_cu_requested, a->spec.word_bytes,
               (long long)a->threads, r->results[i].ms.median * 1e3);
        static const int variant[6][5] = {{10, 0, 0, 0, 0}, {0, 10, 0, 0, 0}, {10, 10, 0, 0, 0},
                                          {0, 0, MB_PAYLOAD_COLLISION, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 1, 0}};
        for (int v = 0; v < 6; v++) {
            const mb_result *x = layout_row(r, "geometry", a, a->spec.word_bytes, variant[v][0], variant[v][1],
                                            variant[v][2], variant[v][3], variant[v][4]);
            if (x) printf(" %7.2f", x->ms.median / r->results[i].ms.median);
            else printf(" %7s", "-");
        }
        printf("\n");
    }
}

/* ---- main: options, plan, run, report ----------------------------------- */

/* The files this run writes, checked before anything is measured. */
static void check_fresh(const run *r)
{
    const mb_plan_options *p = &r->o->plan;
    const char *names[6];
    char csv[64], meta[64];
    int n = 0;
    snprintf(csv, sizeof csv, "%s.csv", r->stem);
    snprintf(meta, sizeof meta, "%s-meta.csv", r->stem);
    if (r->probes) names[n++] = csv;
    if (r->probes && p->stamps && !strcmp(r->stem, "membench")) names[n++] = "warps.csv";
    if (p->sweeps & (SW_WORDS | SW_MISALIGNED)) names[n++] = "membench-fit.csv";
    if (p->sweeps & SW_LAUNCH) names[n++] = "launch.csv";
    names[n++] = meta;
    names[n] = NULL;
    lbp_check_fresh(r->dir, names, r->o->common.force);
}

/* The geometry sweep's items: the launches of lbm.csv's kernels on this
 * device, at their thread counts (the largest sets the buffers). */
static void plan_geometry(run *r)
{
    static mb_geometry geoms[MB_MAX_GEOMETRIES];
    const lbp_device_info *i = &r->d->info;
    char why[512];
    mb_described_options kernel = r->o->described; /* --size given: geometry_from is a kernel file */
    kernel.file = r->o->geometry_from;
    const int from_kernel = kernel.n_sizes > 0;
    int ng = from_kernel ? mb_described_geometry(&kernel, i, geoms, why, sizeof why)
                         : mb_read_geometries(r->o->geometry_from, i->slug, (double)i->l2_bytes, geoms,
                                              MB_MAX_GEOMETRIES, why, sizeof why);
    if (ng <= 0 && from_kernel) lbp_usage_error("%s", why);
    if (ng < 0) lbp_usage_error("%s", why); /* lbm.csv missing or malformed: bad input */
    if (ng == 0)
        lbp_fail("%s: no rows of device %s with blocks per SM and a working set within %d x the L2 (%.0f MB): no "
                 "geometry to probe", r->o->geometry_from, i->slug, MB_GEOMETRY_MAX_L2, i->l2_bytes / 1e6);
    long long top = 0;
    for (int g = 0; g < ng; g++)
        for (int t = 0; t < geoms[g].n_threads; t++)
            if (geoms[g].threads[t] > top) top = geoms[g].threads[t];
    r->o->threads = top;
    mb_plan_geometry(&r->plan, &r->o->plan, geoms, ng);
}

/* Buffers for the plan's largest probe, the occupancy sweep's variants
 * (planned once the probes compile) counted in. */
static void open_bench(run *r)
{
    const mb_plan_options *p = &r->o->plan;
    int max_words = 0, max_word_bytes = 0, min_block = p->block_size;
    int64_t array_bytes = 0;
    mb_plan_limits(&r->plan, &max_words, &max_word_bytes, &min_block, &array_bytes);
    if (p->sweeps & SW_OCCUPANCY) {
        mb_probe_spec v[MB_OCCUPANCY_VARIANTS];
        for (int i = 0, n = mb_occupancy_variants(p, v); i < n; i++) {
            if (max_words < v[i].words) max_words = v[i].words;
            const int width = v[i].word_bytes * mb_vector(&v[i]); /* a vector probe's access */
            if (max_word_bytes < width) max_word_bytes = width;
        }
        if (min_block > 64) min_block = 64;
    }
    char why[512];
    if (mb_bench_open(&r->bench, r->d, r->o->threads, max_words, max_word_bytes, array_bytes, min_block, why,
                      sizeof why))
        lbp_usage_error("%s", why);
    if (p->quick) {
        r->bench.long_run_ms = MB_THREADS_LONG_RUN_MS_QUICK;
        r->bench.few_launches = MB_THREADS_FEW_LAUNCHES_QUICK;
    }
}

static void measure_probes(run *r)
{
    const lbp_device_info *info = &r->d->info;
    const int force = r->o->common.force;
    open_bench(r);
    preflight(r);
    r->results = calloc((size_t)r->plan.n, sizeof *r->results);
    if (!r->results) lbp_fail("out of memory");
    char csv[64];
    snprintf(csv, sizeof csv, "%s.csv", r->stem);
    r->csv = lbp_csv_open(r->dir, csv,
                          "sweep,words,word_bytes,misaligned_reads,misaligned_writes,block_size,"
                          "blocks_per_cu_requested,blocks_per_cu,occupancy,threads,bytes_moved,reps,ms_min,"
                          "ms_median,ms_max,gbs_max,gbs_median,ns_per_thread,timing,ops,launches,in_place,swapped,vector,row,"
                          "band,tile_x,tile_y,tile_z,stores,payload_form",
                          info, force);
    if (r->o->plan.stamps && !strcmp(r->stem, "membench"))
        r->warps_csv = lbp_csv_open(r->dir, "warps.csv", "config,phase,rank,count,min_ns,q1_ns,median_ns,q3_ns,max_ns",
                                    info, force);
    run_probes(r, r->geometry && !r->o->plan.quick ? MB_GEOMETRY_PASSES : 1);
    lbp_csv_finish(r->csv);
    if (r->warps_csv) lbp_csv_finish(r->warps_csv);
}

static void report(run *r, int argc, char **argv)
{
    if (r->geometry) {
        summarise_geometry(r, argc, argv);
        return;
    }
    n19_costs costs = write_fits(r);
    if (r->o->plan.sweeps & SW_LAUNCH) write_launch(r);
    summarise(r, argc, argv, &costs);
}

int main(int argc, char **argv)
{
    lbp_cli_init("membench");
    options o;
    parse_options(argc, argv, &o);
    if (o.described.nvrtc_arch) return mb_source_nvrtc_check(&o.described);
    lbp_device d;
    lbp_open_from_cli(&d, &o.common);
    if (o.described.file) {
        o.described.reps = o.reps ? o.reps : o.common.quick ? 5 : 10;
        const int status = mb_described_main(&d, &o.described, argc, argv);
        lbp_close(&d);
        return status;
    }
    apply_defaults(&o, &d);
    mb_plan_options *p = &o.plan;
    run r = {.o = &o, .d = &d, .geometry = p->sweeps == SW_GEOMETRY,
             .probes = (p->sweeps & (SW_WORDS | SW_MISALIGNED | SW_OCCUPANCY | SW_WORD_BYTES | SW_THREADS |
                                     SW_PAYLOAD | SW_VECTOR | SW_GEOMETRY | SW_NARROW | SW_TILE)) != 0};
    r.stem = r.geometry ? "membench-geometry" : p->sweeps == SW_TILE ? "membench-tile" : "membench";
    r.dir = lbp_result_dir(o.common.out_dir, &d.info);
    check_fresh(&r);
    mb_plan_build(&r.plan, p);
    if (r.geometry) plan_geometry(&r);
    if (r.probes) measure_probes(&r);
    if (p->sweeps & SW_LAUNCH) measure_launch(&r);
    report(&r, argc, argv);
    free(r.results);
    mb_plan_free(&r.plan);
    if (r.probes) mb_bench_close(&r.bench);
    lbp_close(&d);
    return 0;
}
