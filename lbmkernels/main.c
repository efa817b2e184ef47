/* lbmkernels: reference D3Q19 BGK kernels (push, pull, split, A-A; FP32 and
 * FP64) from one kernel source.  Default: MLUPS over a block-size sweep and a
 * domain-size sweep, every timed run mass-checked and every kernel first
 * verified against the host reference; --verify: the full verification. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "csv.h"
#include "device.h"
#include "lbm.h"
#include "verify.h"

#define USAGE                                                                                     \
    "usage: lbmkernels [options]\n"                                                               \
    "Reference D3Q19 BGK kernels, one source for the push, pull, split and A-A schemes in fp32\n"   \
    "and fp64.  Default: MLUPS over a block-size sweep (at 256^3) and a domain-size sweep; results\n" \
    "in <out>/lbm.csv and lbm-meta.csv.  --verify: check every scheme against a host reference.\n"  \
    "  --verify            verify (host reference, schemes against each other, mass, Taylor-Green)\n" \
    "                      and exit: 0 all passed, 1 a check failed\n"                            \
    "  --schemes LIST      any of push,pull,split,aa (default: all)\n"                           \
    "  --precisions LIST   any of fp32,fp64 (default: both; fp64 skipped where unsupported)\n"   \
    "  --boundary B        periodic|cavity, for --verify (default: both; timing is periodic)\n"  \
    "  --sizes LIST        cubes (16,24,100 or a range 16..64:16) or NXxNYxNZ; default: 16 to the\n" \
    "                      largest cube that fits (OpenCL: up to 256^3).  --verify: the\n"  \
    "                      lattice (default 20x18x16)\n"                                  \
    "  --block-sizes LIST  block sizes of the block sweep (default 64,128,192,256,384,512,768,1024)\n" \
    "  --block-size N      fix the block size (no block sweep; cells per thread still swept)\n" \
    "  --cells-per-thread LIST  adjacent cells of a row per thread (accesses that keep x\n"    \
    "                      move as one vector), any of 1,2,4, or row (a thread per row,\n"   \
    "                      looping over x: the CPU's shape), swept with the block size at\n" \
    "                      256^3, the best pair used for the size sweep; --verify: each\n"   \
    "                      (default on a GPU 1,2 in fp32 but push, 1 in fp64; on a CPU row)\n" \
    "  --steps N           steps per timed run (default: ~20 ms of steps; --verify: 20); even\n" \
    "  --reps N            timed runs per configuration (default 5, 3 above 64M cells)\n"        \
    "  --passes N          measure each sweep N times over, each configuration keeping its\n"   \
    "                      fastest pass (default 2; --quick 1)\n"                              \
    "  --padding N         pad rows (nx) to a multiple of N words (default: a GPU none beyond the\n" \
    "                      cells per thread, a CPU 32 bytes; 1 = none).  Padding that shares\n"   \
    "                      a 32-byte sector with cells costs far more than its bytes (an odd\n"   \
    "                      nx at 2 cells per thread: 16-17 % at nx = 99 on an H100; README)\n"   \
    LBP_COMMON_HELP

enum { OPT_VERIFY = LBP_OPT_FIRST_TOOL, OPT_SCHEMES, OPT_PRECISIONS, OPT_BOUNDARY, OPT_SIZES,
       OPT_BLOCK_SIZES, OPT_BLOCK_SIZE, OPT_CELLS_PER_THREAD, OPT_STEPS, OPT_REPS, OPT_PASSES, OPT_PADDING, OPT_PLANT };

#define MAX_SIZES 64
#define MAX_BLOCKS 32
#define MAX_ROWS 1024
#define MAX_DIM 100000
#define MAX_CPT 4 /* 1, 2, 4, row */
#define LBM_PASS_SPREAD_NOTE 5.0 /* percent: passes further apart are reported */

typedef struct { int nx, ny, nz; } dims;

typedef struct {
    int verify, plant_error;
    int schemes[LBM_SCHEMES], nschemes;
    int precisions[2], nprecisions, precisions_given;
    int boundary; /* -1: both (verify) */
    dims sizes[MAX_SIZES];
    int nsizes;
    int block_sizes[MAX_BLOCKS], nblocks;
    int block_size, steps, reps, padding, passes;
    int cells_per_thread[MAX_CPT], ncpt; /* 0: the default of each precision */
} options;

/* Cells per thread to sweep for scheme s (-1: any): as given; on a CPU a
 * row per thread (LBM_ROW_PER_THREAD: the kernel loops over the row, which
 * the compiler vectorizes with contiguous loads; a cell per thread there
 * compiles to gathers and scatters and runs 1.5x slower, PoCL on a
 * Skylake-AVX512, 128^3 fp32); on a GPU 1 and 2 in fp32 (push: 1), 1 in
 * fp64.  Measured on an H200 (CUDA, 256^3): two adjacent fp32 cells per
 * thread, whose x-keeping accesses then move as 8-byte vectors, lift pull
 * and split by 4 % and A-A by 2 %, but slow push down by 7 % (its shifted
 * stores write every other word, each 32-byte sector in two halves).  In
 * fp64 (16-byte vectors) two cells gain at most 0.5 %, and 4 cells gain
 * nothing over 2 in either precision while they halve the occupancy. */
static int cells_per_thread_list(const options *o, const lbp_device *d, int fp64, int s, int *out)
{
    if (o->ncpt) {
        memcpy(out, o->cells_per_thread, sizeof(int) * (size_t)o->ncpt);
        return o->ncpt;
    }
    if (lbp_is_cpu(&d->info)) {
        out[0] = LBM_ROW_PER_THREAD;
        return 1;
    }
    out[0] = 1;
    if (fp64 || s == LBM_SCHEME_PUSH) return 1;
    out[1] = 2;
    return 2;
}

static void list_text(const int *v, int n, char *out, size_t len)
{
    out[0] = 0;
    char t[16];
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", lbm_cpt_text(v[i], t, sizeof t));
}

static void parse_names(const char *flag, const char *arg, const char *const *names, int *out, int *n, int max)
{
    char *copy = strdup(arg);
    *n = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int v = lbp_parse_choice(flag, item, names);
        int dup = 0;
        for (int i = 0; i < *n; i++) dup |= out[i] == v;
        if (!dup && *n < max) out[(*n)++] = v;
    }
    free(copy);
    if (*n == 0) lbp_usage_error("%s: empty list", flag);
}

/* "16,24,32..64:16" cubes, or "NXxNYxNZ" items. */
static int parse_sizes(const char *arg, dims *out)
{
    char *copy = strdup(arg);
    int n = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (strchr(item, 'x')) {
            int v[3], k = 0;
            char *s2;
            for (char *p = strtok_r(item, "x", &s2); p; p = strtok_r(NULL, "x", &s2)) {
                if (k == 3) lbp_usage_error("--sizes: '%s' is not NXxNYxNZ", arg);
                v[k++] = (int)lbp_parse_int("--sizes", p, 1, MAX_DIM);
            }
            if (k != 3) lbp_usage_error("--sizes: '%s' is not NXxNYxNZ", arg);
            if (n >= MAX_SIZES) lbp_usage_error("--sizes: more than %d sizes", MAX_SIZES);
            out[n++] = (dims){v[0], v[1], v[2]};
        } else {
            long long v[MAX_SIZES];
            int m = lbp_parse_int_list("--sizes", item, 1, MAX_DIM, v, MAX_SIZES);
            for (int i = 0; i < m; i++) {
                if (n >= MAX_SIZES) lbp_usage_error("--sizes: more than %d sizes", MAX_SIZES);
                out[n++] = (dims){(int)v[i], (int)v[i], (int)v[i]};
            }
        }
    }
    free(copy);
    if (n == 0) lbp_usage_error("--sizes: empty list");
    return n;
}

static void parse_options(int argc, char **argv, options *o, lbp_common *c)
{
    static const struct option opts[] = {
        LBP_COMMON_LONGOPTS,
        {"verify", no_argument, 0, OPT_VERIFY},
        {"schemes", required_argument, 0, OPT_SCHEMES},
        {"precisions", required_argument, 0, OPT_PRECISIONS},
        {"boundary", required_argument, 0, OPT_BOUNDARY},
        {"sizes", required_argument, 0, OPT_SIZES},
        {"block-sizes", required_argument, 0, OPT_BLOCK_SIZES},
        {"block-size", required_argument, 0, OPT_BLOCK_SIZE},
        {"cells-per-thread", required_argument, 0, OPT_CELLS_PER_THREAD},
        {"steps", required_argument, 0, OPT_STEPS},
        {"reps", required_argument, 0, OPT_REPS},
        {"passes", required_argument, 0, OPT_PASSES},
        {"padding", required_argument, 0, OPT_PADDING},
        {"plant-error", no_argument, 0, OPT_PLANT}, /* tests: a corrupted result must fail */
        {0, 0, 0, 0}};
    long long v[MAX_BLOCKS];
    int code;
    while ((code = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (code) {
        case OPT_VERIFY: o->verify = 1; break;
        case OPT_PLANT: o->plant_error = 1; break;
        case OPT_SCHEMES: parse_names("--schemes", optarg, lbm_scheme_names, o->schemes, &o->nschemes, LBM_SCHEMES); break;
        case OPT_PRECISIONS:
            parse_names("--precisions", optarg, lbm_precision_names, o->precisions, &o->nprecisions, 2);
            o->precisions_given = 1;
            break;
        case OPT_BOUNDARY: o->boundary = lbp_parse_choice("--boundary", optarg, lbm_boundary_names); break;
        case OPT_SIZES: o->nsizes = parse_sizes(optarg, o->sizes); break;
        case OPT_BLOCK_SIZES:
            o->nblocks = lbp_parse_int_list("--block-sizes", optarg, 1, 4096, v, MAX_BLOCKS);
            for (int i = 0; i < o->nblocks; i++) o->block_sizes[i] = (int)v[i];
            break;
        case OPT_BLOCK_SIZE: o->block_size = (int)lbp_parse_int("--block-size", optarg, 1, 4096); break;
        case OPT_CELLS_PER_THREAD: {
            char *copy = strdup(optarg);
            o->ncpt = 0;
            for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                int n = !strcmp(item, "row") ? LBM_ROW_PER_THREAD
                                             : (int)lbp_parse_int("--cells-per-thread", item, 1, 4);
                if (!lbm_cells_per_thread_ok(n))
                    lbp_usage_error("--cells-per-thread: %s is not one of 1, 2, 4, row", item);
                int dup = 0;
                for (int j = 0; j < o->ncpt; j++) dup |= o->cells_per_thread[j] == n;
                if (!dup && o->ncpt < MAX_CPT) o->cells_per_thread[o->ncpt++] = n;
            }
            free(copy);
            if (!o->ncpt) lbp_usage_error("--cells-per-thread: empty list");
            break;
        }
        case OPT_STEPS: o->steps = (int)lbp_parse_int("--steps", optarg, 1, 100000000); break;
        case OPT_REPS: o->reps = (int)lbp_parse_int("--reps", optarg, 1, 100000); break;
        case OPT_PASSES: o->passes = (int)lbp_parse_int("--passes", optarg, 1, 10); break;
        case OPT_PADDING: o->padding = (int)lbp_parse_int("--padding", optarg, 1, 4096); break;
        case '?': lbp_bad_option();
        default:
            if (!lbp_common_opt(c, code, optarg, USAGE)) lbp_bad_option();
        }
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (o->steps && (o->steps & 1))
        lbp_usage_error("--steps: %d is odd (A-A compares and times whole alpha-beta pairs)", o->steps);
}

/* Row padding in words, for a kernel of cpt cells per thread, unless asked.
 * A CPU: 32 bytes (a sector), where the row kernel's vectors start.  A GPU:
 * none beyond what the kernel's vectors need (a multiple of cpt).  Habich §6
 * pads rows to 128 bytes, the coalescing unit of older GPUs; on an H200
 * (CUDA) that made a 200^3 fp32 lattice (rows of 224 words, 12 % idle
 * threads) 6 % slower than rows of 200 words.  Padding that shares a
 * 32-byte sector with cells costs far more than its bytes: on an H100, fp32
 * at 100^3 with rows padded to 104 words ran push 11,486 and pull 14,137
 * MLUPS, unpadded 15,111 and 17,205 (98 + 2, 196 + 4, 228 + 4 words alike),
 * while 104x100x100, the same layout with cells in columns 100-103, ran
 * 16,084 and 17,070, and 200 + 8 words (a whole sector) cost 2-3 %.  Not
 * where rows start, nor partly written sectors (README). */
static int padding_words(const options *o, const lbp_device *d, int fp64, int cpt)
{
    if (o->padding) return o->padding;
    if (lbp_is_cpu(&d->info)) return fp64 ? 4 : 8;
    return cpt > 1 ? cpt : 1;
}

static void print_no_fp64(const lbp_device *d)
{
    lbp_usage_error("fp64 asked for, but %s (%s) has no double precision", d->info.name, d->info.backend);
}

/* ---- --verify ------------------------------------------------------------ */
static int run_verify(lbp_device *d, const options *o)
{
    dims size = o->nsizes ? o->sizes[0] : (dims){20, 18, 16};
    int steps = o->steps ? o->steps : 20;
    lbm_scheme schemes[LBM_SCHEMES];
    for (int i = 0; i < o->nschemes; i++) schemes[i] = (lbm_scheme)o->schemes[i];
    int failures = 0;
    for (int p = 0; p < o->nprecisions; p++) {
        int fp64 = o->precisions[p];
        if (fp64 && !d->info.fp64) {
            if (o->precisions_given) print_no_fp64(d);
            printf("%s: fp64 skipped: %s has no double precision\n", lbp_prog, d->info.name);
            continue;
        }
        int cpts[MAX_CPT];
        int ncpt = cells_per_thread_list(o, d, fp64, -1, cpts);
        for (int ci = 0; ci < ncpt; ci++)
            for (int b = 0; b < LBM_BOUNDARIES; b++) {
                if (o->boundary >= 0 && b != o->boundary) continue;
                lbm_verify_opts v = {.nx = size.nx, .ny = size.ny, .nz = size.nz, .padding = padding_words(o, d, fp64, cpts[ci]),
                                     .steps = steps, .block_size = o->block_size ? o->block_size : 64,
                                     .cells_per_thread = cpts[ci], .fp64 = fp64, .boundary = (lbm_boundary)b,
                                     .schemes = schemes, .nschemes = o->nschemes, .tau = 0.6, .u0 = 0.05,
                                     .noise = 0.01, .lid_u = 0.05, .tg_u0 = 0.01, .plant_error = o->plant_error,
                                     .verbose = 1};
                int r = lbm_verify_schemes(d, &v);
                if (b == LBM_PERIODIC) r |= lbm_verify_taylor_green(d, &v);
                char t[16];
                printf("%s: verify %s %s, %s per thread: %s\n", lbp_prog, lbm_precision_names[fp64],
                       lbm_boundary_names[b], lbm_cpt_text(cpts[ci], t, sizeof t), r ? "FAILED" : "passed");
                failures += r;
            }
    }
    if (failures) fprintf(stderr, "%s: verification FAILED (%d groups)\n", lbp_prog, failures);
    return failures ? LBP_EXIT_FAIL : 0;
}

/* ---- timing -------------------------------------------------------------- */
typedef struct {
    lbm_scheme scheme;
    int fp64;
    lbm_result r;
} row;

/* Does one lattice of n^3 cells, in either precision, stay within the
 * buffers the backend fills reliably (caps.reliable_alloc_bytes)?  The
 * default sizes serve both precisions, so fp64's words count. */
static int reliable_cube(const lbp_device *d, int n)
{
    const int64_t limit = d->info.caps.reliable_alloc_bytes;
    return limit <= 0 || (int64_t)LBM_Q * 8 * n * n * n <= limit;
}

static int default_sizes(const lbp_device *d, int quick, dims *out)
{
    static const int gpu[] = {16, 24, 32, 48, 64, 96, 100, 128, 160, 192, 200, 256, 320, 384, 512, 640, 768};
    static const int cpu[] = {16, 24, 32, 48, 64, 96, 100, 128, 160, 192, 200, 256};
    static const int gpu_quick[] = {32, 100, 256};
    static const int cpu_quick[] = {16, 48, 100};
    const int is_cpu = lbp_is_cpu(&d->info);
    const int *list = quick ? (is_cpu ? cpu_quick : gpu_quick) : is_cpu ? cpu : gpu;
    int n = quick ? 3 : is_cpu ? (int)(sizeof cpu / sizeof cpu[0]) : (int)(sizeof gpu / sizeof gpu[0]), kept = 0;
    for (int i = 0; i < n; i++)
        if (quick || reliable_cube(d, list[i])) out[kept++] = (dims){list[i], list[i], list[i]};
    return kept;
}

static void print_row(const row *w)
{
    const lbm_result *r = &w->r;
    char size[32], occ[16] = "-", regs[16] = "-", cpt[16];
    snprintf(size, sizeof size, "%dx%dx%d", r->L.nx, r->L.ny, r->L.nz);
    if (r->occupancy >= 0) snprintf(occ, sizeof occ, "%.0f%%", 100 * r->occupancy);
    if (r->registers >= 0) snprintf(regs, sizeof regs, "%d", r->registers);
    printf("%-6s %-5s %14s %6d %5s %10.1f %9.1f %5s %7s\n", lbm_scheme_names[w->scheme],
           lbm_precision_names[w->fp64], size, r->block_size, lbm_cpt_text(r->cells_per_thread, cpt, sizeof cpt),
           r->mlups_median, r->gbs_median,
           regs, occ);
}

static void csv_row(lbp_csv *csv, const row *w)
{
    const lbm_result *r = &w->r;
    lbp_csv_row(csv, "%s,%s,periodic,%d,%d,%d,%d,%lld,%d,%d,%d,%.6f,%.6f,%.6f,%.2f,%.2f,%.2f,%d,%d,%.4f,%d,%d,%d,%.2f",
                lbm_scheme_names[w->scheme], lbm_precision_names[w->fp64], r->L.nx, r->L.ny, r->L.nz, r->L.nxp,
                (long long)r->L.cells, r->block_size, r->steps, r->reps, r->ms.min, r->ms.median, r->ms.max,
                r->mlups_median, r->mlups_max, r->gbs_median, r->registers, r->blocks_per_cu, r->occupancy,
                lbm_lattices(w->scheme), 2 * LBM_Q * (w->fp64 ? 8 : 4), r->cells_per_thread,
                lbm_pass_spread_pct(r));
}

/* One configuration of a sweep. */
typedef struct {
    const lbm_kernels *k;
    int ci, block;
    lbm_layout L;
    int ok; /* measured: w holds it */
    row w;
} sweep_item;

/* A sweep of one scheme and precision in `passes` passes, each
 * configuration's second measurement after all the others of its sweep, on
 * a fresh lattice, and each keeping its faster pass (as membench's geometry
 * sweep does).  In one pass a device state can hold a configuration slow
 * through all its runs: an H200 (CUDA, 0807571a5664) ran FP64 pull and split
 * at 256^3 in blocks of 64 10 % below their previous run's figure, five runs
 * alike, while the blocks of 128 beside them matched theirs.  A mass check
 * that fails in any pass ends the run; a lattice refused in a later pass
 * keeps its first. */
static void measure_sweep(lbp_device *d, sweep_item *it, int n, int passes, const lbm_timing_opts *t, lbp_csv *csv,
                          lbm_scheme s, int fp64)
{
    char why[512];
    for (int pass = 0; pass < passes; pass++)
        for (int i = 0; i < n; i++) {
            if (pass && !it[i].ok) continue;
            lbm_result r;
            int rc = lbm_measure(d, it[i].k, &it[i].L, it[i].block, t, &r, why, sizeof why);
            if (rc > 0) {
                lbp_csv_abort(csv);
                lbp_fail("%s", why);
            }
            if (rc < 0) {
                if (!pass) printf("%s: %s %s: skipped: %s\n", lbp_prog, lbm_scheme_names[s], lbm_precision_names[fp64], why);
                continue;
            }
            if (!it[i].ok) it[i].w = (row){.scheme = s, .fp64 = fp64, .r = r};
            else lbm_keep_faster(&it[i].w.r, &r);
            it[i].ok = 1;
        }
    for (int i = 0; i < n && passes > 1; i++)
        if (it[i].ok && lbm_pass_spread_pct(&it[i].w.r) > LBM_PASS_SPREAD_NOTE)
            printf("%s: %s %s %dx%dx%d block %d: passes %.1f %% apart (the faster kept)\n", lbp_prog,
                   lbm_scheme_names[s], lbm_precision_names[fp64], it[i].L.nx, it[i].L.ny, it[i].L.nz, it[i].block,
                   lbm_pass_spread_pct(&it[i].w.r));
}

static void keep_row(lbp_csv *csv, row *rows, int *nrows, const row *w)
{
    csv_row(csv, w);
    if (*nrows < MAX_ROWS) rows[(*nrows)++] = *w;
}

static int run_timing(lbp_device *d, const options *o, const lbp_common *c, int argc, char **argv)
{
    /* Which precisions run at all. */
    int precisions[2], nprec = 0;
    for (int p = 0; p < o->nprecisions; p++) {
        if (o->precisions[p] && !d->info.fp64) {
            if (o->precisions_given) print_no_fp64(d);
            printf("%s: fp64 skipped: %s has no double precision\n", lbp_prog, d->info.name);
            continue;
        }
        precisions[nprec++] = o->precisions[p];
    }
    /* Explicitly asked-for sizes must fit every scheme asked for. */
    char why[512];
    if (o->nsizes)
        for (int p = 0; p < nprec; p++)
            for (int s = 0; s < o->nschemes; s++)
                for (int i = 0; i < o->nsizes; i++) {
                    lbm_layout L = lbm_layout_on(d, o->sizes[i].nx, o->sizes[i].ny, o->sizes[i].nz,
                                                 padding_words(o, d, precisions[p], 4 /* the most */),
                                                 precisions[p]);
                    if (lbm_fits(d, &L, (lbm_scheme)o->schemes[s], precisions[p], why, sizeof why) != 0)
                        lbp_usage_error("%s", why);
                }

    const char *dir = lbp_result_dir(c->out_dir, &d->info);
    lbp_check_fresh(dir, (const char *const[]){"lbm.csv", "lbm-meta.csv", NULL}, c->force);
    lbp_csv *csv = lbp_csv_open(dir, "lbm.csv",
                                "scheme,precision,boundary,nx,ny,nz,nx_padded,cells,block_size,steps,reps,"
                                "ms_min,ms_median,ms_max,mlups_median,mlups_max,gbs_median,registers,"
                                "blocks_per_cu,occupancy,lattices,bytes_per_update,cells_per_thread,pass_spread_pct",
                                &d->info, c->force);
    static row rows[MAX_ROWS];
    int nrows = 0;
    lbp_meta *meta = lbp_meta_new("lbm", &d->info, argc, argv);
    const int is_gpu = !lbp_is_cpu(&d->info);
    const lbm_timing_opts topt = {o->steps, o->reps, 20.0};
    const int passes = o->passes ? o->passes : c->quick ? 1 : 2;
    static sweep_item items[MAX_CPT * MAX_BLOCKS + MAX_SIZES + 1];
    static const int default_blocks[] = {64, 128, 192, 256, 384, 512, 768, 1024};
    static const int quick_blocks[] = {64, 128, 256, 512};
    double t0 = lbp_now();
    int combos = nprec * o->nschemes, done = 0;

    for (int p = 0; p < nprec; p++) {
        const int fp64 = precisions[p];
        int cpts[MAX_CPT];
        { /* the cells per thread swept for this precision */
            char key[48], swept[64];
            snprintf(key, sizeof key, "cells_per_thread_swept_%s", lbm_precision_names[fp64]);
            list_text(cpts, cells_per_thread_list(o, d, fp64, -1, cpts), swept, sizeof swept);
            lbp_meta_set(meta, key, "%s", swept);
        }
        for (int si = 0; si < o->nschemes; si++) {
            const lbm_scheme s = (lbm_scheme)o->schemes[si];
            const int ncpt = cells_per_thread_list(o, d, fp64, s, cpts);
            lbp_progress(done++, combos, lbp_now() - t0, "%s %s", lbm_scheme_names[s], lbm_precision_names[fp64]);
            /* NVIDIA's OpenCL (driver 580) does not hand freed buffers back
             * within a context: a fresh context for each scheme and
             * precision keeps what one group allocates from starving the
             * next. */
            if (done > 1 && d->info.caps.fresh_context_per_group) lbp_reopen(d);
            lbm_kernels k[MAX_CPT];
            int max_block[MAX_CPT];
            for (int ci = 0; ci < ncpt; ci++) {
                /* First the kernel itself: a small non-cubic lattice against
                 * the host reference, so no number below comes from a wrong
                 * kernel.  nx = 29 leaves a partial last chunk of each row
                 * for 2 and 4 cells per thread. */
                lbm_scheme one[1] = {s};
                lbm_verify_opts v = {.nx = 29, .ny = 14, .nz = 10, .padding = padding_words(o, d, fp64, cpts[ci]), .steps = 10, .block_size = 64,
                                     .cells_per_thread = cpts[ci], .fp64 = fp64, .boundary = LBM_PERIODIC,
                                     .schemes = one, .nschemes = 1, .tau = 0.6, .u0 = 0.05, .noise = 0.01,
                                     .plant_error = o->plant_error};
                char cpt[16];
                lbm_cpt_text(cpts[ci], cpt, sizeof cpt);
                if (lbm_verify_schemes(d, &v) != 0) {
                    lbp_csv_abort(csv);
                    lbp_fail("the %s %s kernel (cells per thread %s) failed verification; nothing written",
                             lbm_scheme_names[s], lbm_precision_names[fp64], cpt);
                }
                if (lbm_kernels_build(&k[ci], d, s, fp64, LBM_PERIODIC, cpts[ci]) != 0) {
                    lbp_csv_abort(csv);
                    lbp_fail("the %s %s kernel (cells per thread %s) does not compile", lbm_scheme_names[s],
                             lbm_precision_names[fp64], cpt);
                }
                lbm_step_limits(d, &k[ci], 0, NULL, &max_block[ci], NULL);
            }

            /* Block sweep at 256^3 (the largest cube up to that which fits):
             * every cells per thread x block size; --block-size fixes the
             * block, and one pair alone needs no sweep. */
            int block = o->block_size, best_ci = 0;
            lbm_result sweep_best = {0};
            int have_sweep = 0;
            int cpt_most = 1; /* the most padding: that of the most cells per thread */
            for (int ci = 0; ci < ncpt; ci++)
                if (cpts[ci] > cpt_most) cpt_most = cpts[ci];
            int largest = lbm_largest_cube(d, s, fp64, padding_words(o, d, fp64, cpt_most));
            int sweep_n = c->quick ? (is_gpu ? 128 : 32) : 256;
            if (sweep_n > largest) sweep_n = largest;
            if (!block || ncpt > 1) {
                const int *bl = o->block_size ? &o->block_size : o->nblocks ? o->block_sizes : c->quick ? quick_blocks : default_blocks;
                int nb = o->block_size ? 1 : o->nblocks ? o->nblocks : c->quick ? 4 : 8, n = 0;
                for (int ci = 0; ci < ncpt; ci++)
                    for (int b = 0; b < nb; b++) {
                        if (bl[b] > max_block[ci]) {
                            printf("%s: block %d skipped for %s %s, %d cells per thread: the kernel launches at most "
                                   "%d threads per block\n", lbp_prog, bl[b], lbm_scheme_names[s],
                                   lbm_precision_names[fp64], cpts[ci], max_block[ci]);
                            continue;
                        }
                        items[n++] = (sweep_item){.k = &k[ci], .ci = ci, .block = bl[b],
                                                  .L = lbm_layout_on(d, sweep_n, sweep_n, sweep_n,
                                                                     padding_words(o, d, fp64, cpts[ci]), fp64)};
                    }
                measure_sweep(d, items, n, passes, &topt, csv, s, fp64);
                for (int i = 0; i < n; i++) {
                    if (!items[i].ok) continue;
                    keep_row(csv, rows, &nrows, &items[i].w);
                    if (!have_sweep || items[i].w.r.mlups_median > sweep_best.mlups_median) {
                        sweep_best = items[i].w.r;
                        best_ci = items[i].ci;
                    }
                    have_sweep = 1;
                }
                if (!have_sweep) {
                    lbp_csv_abort(csv);
                    lbp_fail("no block size of the sweep could run %s %s", lbm_scheme_names[s], lbm_precision_names[fp64]);
                }
                block = sweep_best.block_size;
            }

            /* Size sweep with the best pair. */
            dims sizes[MAX_SIZES + 1];
            int nsizes = o->nsizes;
            if (nsizes) memcpy(sizes, o->sizes, sizeof(dims) * (size_t)nsizes);
            else {
                nsizes = default_sizes(d, c->quick, sizes);
                /* the largest cube whose rows fill whole 32-byte sectors
                 * unpadded: on an H200, fp32 at 985^3 (rows of 985 words,
                 * 986 with 2 cells per thread) ran 12-15 % below 984^3 */
                const int whole = largest - largest % (fp64 ? 4 : 8);
                if (is_gpu && !c->quick && reliable_cube(d, whole) && whole > sizes[nsizes - 1].nx)
                    sizes[nsizes++] = (dims){whole, whole, whole};
            }
            lbm_result best = sweep_best;
            int have_best = have_sweep, n = 0;
            for (int i = 0; i < nsizes; i++) {
                lbm_layout L = lbm_layout_on(d, sizes[i].nx, sizes[i].ny, sizes[i].nz,
                                             padding_words(o, d, fp64, cpts[best_ci]), fp64);
                if (have_sweep && L.nx == sweep_n && L.ny == sweep_n && L.nz == sweep_n) continue; /* measured */
                items[n++] = (sweep_item){.k = &k[best_ci], .ci = best_ci, .block = block, .L = L};
            }
            measure_sweep(d, items, n, passes, &topt, csv, s, fp64);
            for (int i = 0; i < n; i++) {
                if (!items[i].ok) continue;
                keep_row(csv, rows, &nrows, &items[i].w);
                if (!have_best || items[i].w.r.mlups_median > best.mlups_median) best = items[i].w.r;
                have_best = 1;
            }
            for (int ci = 0; ci < ncpt; ci++) lbm_kernels_release(&k[ci], d);
            if (have_best) {
                char key[4][48], t[16];
                const char *const key_names[] = {"best_mlups", "best_config", "block_size", "cells_per_thread"};
                for (int j = 0; j < 4; j++)
                    snprintf(key[j], sizeof key[j], "%s_%s_%s", key_names[j], lbm_scheme_names[s], lbm_precision_names[fp64]);
                lbp_meta_set(meta, key[0], "%.1f", best.mlups_median);
                lbp_meta_set(meta, key[1], "%dx%dx%d block %d cells_per_thread %s", best.L.nx, best.L.ny, best.L.nz,
                             best.block_size, lbm_cpt_text(best.cells_per_thread, t, sizeof t));
                lbp_meta_set(meta, key[2], "%d", block);
                lbp_meta_set(meta, key[3], "%d", cpts[best_ci]);
            }
        }
    }
    lbp_progress(combos, combos, lbp_now() - t0, "done");
    lbp_csv_commit(csv);
    lbp_meta_write(meta, dir, c->force);

    printf("%-6s %-5s %14s %6s %5s %10s %9s %5s %7s\n", "scheme", "prec", "size", "block", "cells", "MLUPS", "GB/s",
           "regs", "occup");
    for (int i = 0; i < nrows; i++) print_row(&rows[i]);
    printf("%s: results in %s/lbm.csv\n", lbp_prog, dir);
    return 0;
}

int main(int argc, char **argv)
{
    lbp_cli_init("lbmkernels");
    options o = {.boundary = -1};
    lbp_common c = {.device = -1};
    parse_options(argc, argv, &o, &c);
    if (!o.nschemes)
        for (int s = 0; s < LBM_SCHEMES; s++) o.schemes[o.nschemes++] = s;
    if (!o.nprecisions) o.precisions[0] = 0, o.precisions[1] = 1, o.nprecisions = 2;
    for (int i = 0; i < o.ncpt && o.padding; i++)
        if (o.cells_per_thread[i] != LBM_ROW_PER_THREAD && o.padding % o.cells_per_thread[i])
            lbp_usage_error("--padding %d: rows must be padded to a multiple of the %d cells per thread", o.padding,
                            o.cells_per_thread[i]);
    for (int i = 0; i < o.nblocks; i++)
        if (o.block_sizes[i] % 32 && o.block_sizes[i] != 1)
            lbp_warn("--block-sizes: %d is not a multiple of 32 (a warp)", o.block_sizes[i]);
    if (!o.verify && o.boundary == LBM_CAVITY_BOX)
        lbp_usage_error("--boundary: 'cavity' is a validation case; timing runs the periodic box (use --verify)");

    lbp_device d;
    lbp_open_from_cli(&d, &c);
    int rc = o.verify ? run_verify(&d, &o) : run_timing(&d, &o, &c, argc, argv);
    lbp_close(&d);
    return rc;
}
