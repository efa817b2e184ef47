/* lbmkernels: reference D3Q19 BGK kernels (push, pull, split, A-A; FP32 and
 * FP64) from one kernel source.  Default: MLUPS over a block-size sweep and a
 * domain-size sweep, every timed run mass-checked and every kernel first
 * verified against the host reference; --verify: the full verification. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "csv.h"
#include "device.h"
#include "lbm.h"
#include "multi.h"
#include "plan.h"
#include "ranks.h"
#include "reach.h"
#include "verify.h"

#define USAGE_HEAD                                                                                     \
    "usage: lbmkernels [options]\n"                                                               \
    "Reference D3Q19 BGK kernels, one source for the push, pull, split and A-A schemes in fp32,\n"  \
    "fp64 and fp16s (half in memory, fp32 arithmetic).  Default: MLUPS over a block-size sweep\n"  \
    "(at 256^3) and a domain-size sweep; results in <out>/lbm.csv and lbm-meta.csv.  --verify:\n" \
    "check every scheme against a host reference.\n"                                             \
    "  --verify            verify (host reference, schemes against each other, mass, Taylor-Green;\n" \
    "                      then each kernel at the timed runs' reach: rows a cell longer than the\n" \
    "                      longest timed, more threads than the largest block timed, at that block)\n" \
    "                      and exit: 0 all passed, 1 a check failed\n"                            \
    "  --schemes LIST      any of push,pull,split,aa (default: all)\n"                           \
    "  --precisions LIST   any of fp32,fp64,fp16s (default: all; fp64 skipped where unsupported)\n" \
    "  --boundary B        periodic|cavity, for --verify (default: both; timing is periodic)\n"  \
    "  --sizes LIST        cubes (16,24,100 or a range 16..64:16) or NXxNYxNZ; default: 16 to the\n" \
    "                      largest cube that fits (OpenCL: up to 256^3).  --verify: the\n"  \
    "                      lattice (default 20x18x16)\n"                                  \
    "  --block-sizes LIST  block sizes of the block sweep (default 64,128,192,256,384,512,768,1024)\n" \
    "  --block-size N      fix the block size (no block sweep; cells per thread still swept)\n" \
    "  --cells-per-thread LIST  adjacent cells of a row per thread (accesses that keep x\n"    \
    "                      move as one vector), any of 1,2,4, or row (a thread per row,\n"   \
    "                      looping over x: the CPU's shape), swept with the block size at\n" \
    "                      256^3 (with --sizes: the largest cube of the list), the best\n"   \
    "                      pair used for the size sweep; --verify: each\n"   \
    "                      (default on a GPU 1,2 in fp32 but push, 1 in fp64, 1,2,4 in\n"  \
    "                      fp16s; on a CPU row)\n" \
    "  --stores LIST       how the step kernels store, any of normal,nontemporal (non-temporal:\n" \
    "                      pull and split in fp32 and fp64, a row per thread, where the device\n" \
    "                      has such stores; default: both there, else normal); --verify: each\n" \
    "  --steps N           steps per timed run (default: ~20 ms of steps; --verify: 20); even\n" \
    "  --reps N            timed runs per configuration (default 5, 3 above 64M cells)\n"        \
    "  --passes N          measure each sweep N times over, each configuration keeping its\n"   \
    "                      fastest pass (default 2; --quick 1)\n"                              \
    "  --padding N         pad rows (nx) to a multiple of N words (default: a GPU none beyond the\n" \
    "                      cells per thread, a CPU 32 bytes; 1 = none).  Padding that shares\n"   \
    "                      a 32-byte sector with cells costs far more than its bytes\n"
#define USAGE_RANKS \
    "Across ranks (mpirun -np N lbmkernels ...; a rank per device, the lattice cut into z slabs,\n" \
    "the 5 populations that cross a face exchanged after every step; --verify checks every\n"     \
    "decomposed run against one rank's, bit for bit; lbm.csv rows name ranks, path and overlap):\n" \
    "  --ranks-scaling S   weak: --sizes is one rank's lattice (nz x ranks in all; default);\n" \
    "                      strong: --sizes is the whole lattice (nz a multiple of the ranks)\n"  \
    "  --exchange P        host (device->host, MPI, host->device; default), peer (device to\n"  \
    "                      device on a node: CUDA IPC), mpi (a CUDA-aware MPI moves device\n"    \
    "                      memory); a path the device or library lacks: exit 2\n"             \
    "  --overlap O         on (border planes first, the exchange beside the interior), off,\n"  \
    "                      both (default); timing: one row each.  Defaults across ranks:\n"    \
    "                      --sizes 256 (CPU 64), one cells per thread (the widest default),\n"  \
    "                      --block-size 256 (CPU 64)\n"
/* Without MPI the flags across ranks are not offered (a script can tell
 * from --help). */
#define USAGE USAGE_HEAD USAGE_RANKS LBP_COMMON_HELP
#define USAGE_ONE_RANK USAGE_HEAD LBP_COMMON_HELP
static const char *usage(void) { return lbp_mpi_built() ? USAGE : USAGE_ONE_RANK; }

enum { OPT_VERIFY = LBP_OPT_FIRST_TOOL, OPT_SCHEMES, OPT_PRECISIONS, OPT_BOUNDARY, OPT_SIZES,
       OPT_BLOCK_SIZES, OPT_BLOCK_SIZE, OPT_CELLS_PER_THREAD, OPT_STORES, OPT_STEPS, OPT_REPS, OPT_PASSES, OPT_PADDING, OPT_PLANT,
       OPT_RANKS_SCALING, OPT_EXCHANGE, OPT_OVERLAP };

#define MAX_DIM 100000
#define LBM_PASS_SPREAD_NOTE 5.0 /* percent: passes further apart are reported */

/* ---- options ------------------------------------------------------------- */

static void list_text(const int *v, int n, char *out, size_t len)
{
    out[0] = 0;
    char t[16];
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? "," : "", lbm_cpt_text(v[i], t, sizeof t));
}

static void parse_names(const char *flag, const char *arg, const char *const *names, int *out, int *n, int max)
{
    char *copy = lbp_list_copy(flag, arg);
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
static int parse_sizes(const char *arg, lbm_dims *out)
{
    char *copy = lbp_list_copy("--sizes", arg);
    int n = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (strchr(item, 'x')) {
            /* split at each 'x' by hand: strtok would read "16xx16x16" as 16^3 */
            int v[3], k = 0;
            for (char *p = item;;) {
                char *x = strchr(p, 'x');
                if (x) *x = 0;
                if (k == 3 || !*p) lbp_usage_error("--sizes: '%s' is not NXxNYxNZ", arg);
                v[k++] = (int)lbp_parse_int("--sizes", p, 1, MAX_DIM);
                if (!x) break;
                p = x + 1;
            }
            if (k != 3) lbp_usage_error("--sizes: '%s' is not NXxNYxNZ", arg);
            if (n >= LBM_MAX_SIZES) lbp_usage_error("--sizes: more than %d sizes", LBM_MAX_SIZES);
            out[n++] = (lbm_dims){v[0], v[1], v[2]};
        } else {
            long long v[LBM_MAX_SIZES];
            int m = lbp_parse_int_list("--sizes", item, 1, MAX_DIM, v, LBM_MAX_SIZES);
            for (int i = 0; i < m; i++) {
                if (n >= LBM_MAX_SIZES) lbp_usage_error("--sizes: more than %d sizes", LBM_MAX_SIZES);
                out[n++] = (lbm_dims){(int)v[i], (int)v[i], (int)v[i]};
            }
        }
    }
    free(copy);
    if (n == 0) lbp_usage_error("--sizes: empty list");
    return n;
}

static void parse_cells_per_thread(const char *arg, lbm_options *o)
{
    char *copy = lbp_list_copy("--cells-per-thread", arg);
    o->ncpt = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int n = !strcmp(item, "row") ? LBM_ROW_PER_THREAD : (int)lbp_parse_int("--cells-per-thread", item, 1, 4);
        if (!lbm_cells_per_thread_ok(n))
            lbp_usage_error("--cells-per-thread: %s is not one of 1, 2, 4, row", item);
        int dup = 0;
        for (int j = 0; j < o->ncpt; j++) dup |= o->cells_per_thread[j] == n;
        if (!dup && o->ncpt < LBM_MAX_CPT) o->cells_per_thread[o->ncpt++] = n;
    }
    free(copy);
    if (!o->ncpt) lbp_usage_error("--cells-per-thread: empty list");
}

static void parse_ranks_option(int code, const char *arg, lbm_options *o)
{
    if (code == OPT_RANKS_SCALING)
        o->scaling = 1 + lbp_parse_choice("--ranks-scaling", arg, (const char *const[]){"weak", "strong", NULL});
    else if (code == OPT_EXCHANGE)
        o->exchange = 1 + lbp_parse_choice("--exchange", arg, (const char *const[]){"host", "peer", "mpi", NULL});
    else
        o->overlap = lbp_parse_choice("--overlap", arg, lbm_overlap_names);
}

static void parse_option(int code, const char *arg, lbm_options *o, lbp_common *c)
{
    long long v[LBM_MAX_BLOCKS];
    switch (code) {
    case OPT_VERIFY: o->verify = 1; break;
    case OPT_PLANT: o->plant_error = 1; break;
    case OPT_SCHEMES: parse_names("--schemes", arg, lbm_scheme_names, o->schemes, &o->nschemes, LBM_SCHEMES); break;
    case OPT_PRECISIONS:
        parse_names("--precisions", arg, lbm_precision_names, o->precisions, &o->nprecisions, LBM_PRECISIONS);
        o->precisions_given = 1;
        break;
    case OPT_BOUNDARY: o->boundary = lbp_parse_choice("--boundary", arg, lbm_boundary_names); break;
    case OPT_SIZES: o->nsizes = parse_sizes(arg, o->sizes); break;
    case OPT_BLOCK_SIZES:
        o->nblocks = lbp_parse_int_list("--block-sizes", arg, 1, 4096, v, LBM_MAX_BLOCKS);
        for (int i = 0; i < o->nblocks; i++) o->block_sizes[i] = (int)v[i];
        break;
    case OPT_BLOCK_SIZE: o->block_size = (int)lbp_parse_int("--block-size", arg, 1, 4096); break;
    case OPT_CELLS_PER_THREAD: parse_cells_per_thread(arg, o); break;
    case OPT_STORES: parse_names("--stores", arg, lbm_store_names, o->stores, &o->nstores, 2); break;
    case OPT_STEPS: o->steps = (int)lbp_parse_int("--steps", arg, 1, 100000000); break;
    case OPT_REPS: o->reps = (int)lbp_parse_int("--reps", arg, 1, 100000); break;
    case OPT_PASSES: o->passes = (int)lbp_parse_int("--passes", arg, 1, 10); break;
    case OPT_PADDING: o->padding = (int)lbp_parse_int("--padding", arg, 1, 4096); break;
    case OPT_RANKS_SCALING:
    case OPT_EXCHANGE:
    case OPT_OVERLAP:
        if (!lbp_mpi_built())
            lbp_usage_error("--ranks-scaling, --exchange, --overlap: built without MPI (make deps installs Open MPI, "
                            "then make clean all)");
        parse_ranks_option(code, arg, o);
        break;
    default:
        if (!lbp_common_opt(c, code, arg, usage())) lbp_bad_option();
    }
}

/* --sizes measures the lattices asked for: the block sweep runs at the
 * largest cube among them.  Where none is a cube it runs at its own cube,
 * which is said before anything is measured. */
static void say_what_sizes_add(const lbm_options *o)
{
    if (o->verify || !o->nsizes || o->block_size) return;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i].nx == o->sizes[i].ny && o->sizes[i].ny == o->sizes[i].nz) return;
    lbp_warn("--sizes: none is a cube, so the block sweep (block sizes x cells per thread) runs first at 256^3 "
             "(quick: 128^3 on a GPU, 32^3 on a CPU; or the largest that fits); --block-size N skips it");
}

static void check_options(lbm_options *o)
{
    if (o->steps && (o->steps & 1))
        lbp_usage_error("--steps: %d is odd (A-A compares and times whole alpha-beta pairs)", o->steps);
    if (!o->nschemes)
        for (int s = 0; s < LBM_SCHEMES; s++) o->schemes[o->nschemes++] = s;
    if (!o->nprecisions)
        for (int p = 0; p < LBM_PRECISIONS; p++) o->precisions[o->nprecisions++] = p;
    for (int i = 0; i < o->ncpt && o->padding; i++)
        if (o->cells_per_thread[i] != LBM_ROW_PER_THREAD && o->padding % o->cells_per_thread[i])
            lbp_usage_error("--padding %d: rows must be padded to a multiple of the %d cells per thread", o->padding,
                            o->cells_per_thread[i]);
    for (int i = 0; i < o->nblocks; i++)
        if (o->block_sizes[i] % 32 && o->block_sizes[i] != 1)
            lbp_warn("--block-sizes: %d is not a multiple of 32 (a warp)", o->block_sizes[i]);
    if (!o->verify && o->boundary == LBM_CAVITY_BOX)
        lbp_usage_error("--boundary: 'cavity' is a validation case; timing runs the periodic box (use --verify)");
    say_what_sizes_add(o);
}

static void parse_options(int argc, char **argv, lbm_options *o, lbp_common *c)
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
        {"stores", required_argument, 0, OPT_STORES},
        {"steps", required_argument, 0, OPT_STEPS},
        {"reps", required_argument, 0, OPT_REPS},
        {"passes", required_argument, 0, OPT_PASSES},
        {"padding", required_argument, 0, OPT_PADDING},
        {"plant-error", no_argument, 0, OPT_PLANT}, /* tests: a corrupted result must fail */
        {"ranks-scaling", required_argument, 0, OPT_RANKS_SCALING},
        {"exchange", required_argument, 0, OPT_EXCHANGE},
        {"overlap", required_argument, 0, OPT_OVERLAP},
        {0, 0, 0, 0}};
    int code;
    while ((code = lbp_getopt(argc, argv, opts)) != -1) parse_option(code, optarg, o, c);
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    o->quick = c->quick;
    check_options(o);
}

/* ---- --verify ------------------------------------------------------------ */
/* The schemes asked for, of those that can store so (all with ordinary
 * stores); returns how many. */
static int schemes_storing(const lbm_options *o, lbm_precision prec, int cpt, lbm_boundary b, int nt,
                           lbm_scheme *out)
{
    int n = 0;
    for (int i = 0; i < o->nschemes; i++)
        if (!nt || lbm_nontemporal_ok((lbm_scheme)o->schemes[i], prec, b, cpt)) out[n++] = (lbm_scheme)o->schemes[i];
    return n;
}

static lbm_dims verify_size(const lbm_options *o)
{
    return o->nsizes ? o->sizes[0] : (lbm_dims){20, 18, 16};
}

/* In the periodic box (what timing runs), the kernels are checked at the
 * reach of the timed runs a timing with these options would launch too
 * (reach.h): rows a cell longer than the longest timed, more threads than
 * the largest block timed, launched with that block; a fault past a row
 * or a block shows there where the small lattice misses it. */
static int verify_one(lbp_device *d, const lbm_options *o, lbm_precision prec, int cpt, lbm_boundary b, int nt)
{
    const lbm_dims size = verify_size(o);
    lbm_scheme schemes[LBM_SCHEMES];
    const int nschemes = schemes_storing(o, prec, cpt, b, nt, schemes);
    if (!nschemes) return 0;
    const int padding = lbm_plan_padding(o, d, prec, cpt);
    lbm_verify_opts v = {.nx = size.nx, .ny = size.ny, .nz = size.nz, .padding = padding,
                         .steps = o->steps ? o->steps : 20, .block_size = o->block_size ? o->block_size : 64,
                         .cells_per_thread = cpt, .nontemporal = nt, .precision = prec, .boundary = b,
                         .schemes = schemes, .nschemes = nschemes, .tau = 0.6, .u0 = 0.05, .noise = 0.01, .lid_u = 0.05,
                         .tg_u0 = 0.01, .plant_error = o->plant_error, .verbose = 1};
    lbm_reach reach = {0};
    lbm_verify_lattice at;
    char where[128] = "";
    if (b == LBM_PERIODIC) lbm_reach_of_timing(&reach, o, d, prec, cpt, nt);
    if (reach.nx) {
        at = lbm_reach_check(&reach, reach.nx + 1, d, prec, cpt, padding);
        at.blocks = &reach.blocks[reach.nblocks - 1]; /* the largest: timing checks each of its own */
        at.nblocks = 1;
        v.reach = &at;
        char text[64];
        lbm_reach_text(&at, text, sizeof text);
        snprintf(where, sizeof where, ", and at the timed runs' reach (%s)", text);
    }
    int r = lbm_verify_schemes(d, &v);
    if (b == LBM_PERIODIC) r |= lbm_verify_taylor_green(d, &v);
    char t[16];
    printf("%s: verify %s %s, %s per thread%s%s: %s\n", lbp_prog, lbm_precision_names[prec], lbm_boundary_names[b],
           lbm_cpt_text(cpt, t, sizeof t), nt ? ", non-temporal stores" : "", where, r ? "FAILED" : "passed");
    return r;
}

/* The checks timing makes before it starts (32-bit cell index, device
 * memory), and the host memory of the double-precision reference, before
 * verification starts: a usage error (exit 2), never a late failure. */
static void check_verify_fits(const lbp_device *d, const lbm_options *o)
{
    const lbm_dims size = verify_size(o);
    char why[512];
    for (int p = 0; p < o->nprecisions; p++) {
        const lbm_precision prec = (lbm_precision)o->precisions[p];
        if (prec == LBM_FP64 && !d->info.fp64) continue;
        lbm_layout L = lbm_layout_on(d, size.nx, size.ny, size.nz, lbm_plan_padding(o, d, prec, 4), prec);
        for (int s = 0; s < o->nschemes; s++)
            if (lbm_fits(d, &L, (lbm_scheme)o->schemes[s], prec, why, sizeof why) != 0) lbp_usage_error("--verify: %s", why);
        const int64_t need = lbm_verify_host_bytes(&L), have = lbm_host_memory_bytes();
        if (have > 0 && need > have)
            lbp_usage_error("--verify: lattice %dx%dx%d needs %.1f GB of host memory for the double-precision "
                            "reference, %.1f GB available",
                            size.nx, size.ny, size.nz, need / 1e9, have / 1e9);
    }
}

static int run_verify(lbp_device *d, const lbm_options *o)
{
    check_verify_fits(d, o);
    int failures = 0;
    for (int p = 0; p < o->nprecisions; p++) {
        const lbm_precision prec = (lbm_precision)o->precisions[p];
        if (prec == LBM_FP64 && !d->info.fp64) {
            if (o->precisions_given) lbm_refuse_fp64(d);
            printf("%s: fp64 skipped: %s has no double precision\n", lbp_prog, d->info.name);
            continue;
        }
        int cpts[LBM_MAX_CPT], stores[2];
        const int ncpt = lbm_plan_cells_per_thread(o, d, prec, -1, cpts), nstores = lbm_plan_stores(o, d, stores);
        for (int si = 0; si < nstores; si++)
            for (int ci = 0; ci < ncpt; ci++)
                for (int b = 0; b < LBM_BOUNDARIES; b++)
                    if (o->boundary < 0 || b == o->boundary)
                        failures += verify_one(d, o, prec, cpts[ci], (lbm_boundary)b, stores[si]);
    }
    if (failures) fprintf(stderr, "%s: verification FAILED (%d groups)\n", lbp_prog, failures);
    return failures ? LBP_EXIT_FAIL : 0;
}

/* ---- timing: the plan's entries, group by group -------------------------- */
typedef struct {
    lbm_scheme scheme;
    lbm_precision prec;
    lbm_result r;
} row;

/* What a group leaves for the meta: its best row (best_lattice_bytes), and
 * the block size and cells per thread of its size sweep. */
typedef struct {
    int have;        /* a row measured */
    int have_best;   /* one of them past the last-level cache: best */
    lbm_result best;
    int block, ci;
} group_result;

typedef struct {
    lbp_device *d;
    const lbm_options *o;
    const lbm_plan *p;
    lbp_csv *csv;
    row *rows;            /* one per entry at most */
    int nrows;
    group_result *groups;
    int done, total;      /* measurements: entries x passes */
    double t0;
} lbm_run;

/* One configuration of a sweep. */
typedef struct {
    const lbm_kernels *k;
    int ci, block;
    lbm_layout L;
    int ok; /* measured: w holds it */
    row w;
} sweep_item;

static _Noreturn void fail_run(lbm_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static _Noreturn void fail_run(lbm_run *r, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    lbp_csv_abort(r->csv);
    lbp_fail("%s", why);
}

/* "pull", or "pull-nt" with non-temporal stores: for messages and keys. */
static const char *group_name(const lbm_group *g)
{
    static char names[LBM_SCHEMES][16];
    snprintf(names[g->scheme], sizeof names[0], "%s%s", lbm_scheme_names[g->scheme], g->nontemporal ? "-nt" : "");
    return names[g->scheme];
}

static void print_row(const row *w)
{
    const lbm_result *r = &w->r;
    char size[32], occ[16] = "-", regs[16] = "-", cpt[16];
    snprintf(size, sizeof size, "%dx%dx%d", r->L.nx, r->L.ny, r->L.nz);
    if (r->occupancy >= 0) snprintf(occ, sizeof occ, "%.0f%%", 100 * r->occupancy);
    if (r->registers >= 0) snprintf(regs, sizeof regs, "%d", r->registers);
    printf("%-6s %-5s %14s %6d %5s %-6s %10.1f %9.1f %5s %7s\n", lbm_scheme_names[w->scheme],
           lbm_precision_names[w->prec], size, r->block_size, lbm_cpt_text(r->cells_per_thread, cpt, sizeof cpt),
           r->nontemporal ? "nt" : "normal", r->mlups_median, r->gbs_median, regs, occ);
}

static void keep_row(lbm_run *r, const row *w)
{
    lbm_csv_write(r->csv, w->scheme, w->prec, &w->r, NULL);
    r->rows[r->nrows++] = *w;
}

/* Entries that will not be measured still count: the progress reaches its
 * total. */
static void skip_entry(lbm_run *r) { r->done += r->p->passes; }

/* A sweep of one group in `passes` passes, each configuration's second
 * measurement after all the others of its sweep, on a fresh lattice, and
 * each keeping its faster pass (as membench's geometry sweep does): a
 * device state can hold one configuration slow through all its runs of
 * one pass while the others beside it run as ever.  A mass check that
 * fails in any pass ends the run; a lattice refused in a later pass keeps
 * its first. */
static void measure_sweep(lbm_run *r, const lbm_group *g, sweep_item *it, int n)
{
    const char *s = group_name(g), *prec = lbm_precision_names[g->prec];
    char why[512], cpt[16];
    for (int pass = 0; pass < r->p->passes; pass++)
        for (int i = 0; i < n; i++) {
            r->done++;
            if (pass && !it[i].ok) continue;
            lbm_result m;
            int rc = lbm_measure(r->d, it[i].k, &it[i].L, it[i].block, &r->p->timing, &m, why, sizeof why);
            if (rc > 0) fail_run(r, "%s", why);
            if (rc < 0) {
                if (!pass) printf("%s: %s %s: skipped: %s\n", lbp_prog, s, prec, why);
                continue;
            }
            if (!it[i].ok) it[i].w = (row){.scheme = g->scheme, .prec = g->prec, .r = m};
            else lbm_keep_faster(&it[i].w.r, &m);
            it[i].ok = 1;
            lbp_progress(r->done, r->total, lbp_now() - r->t0, "%s %s %dx%dx%d block %d, cells per thread %s: %.1f MLUPS",
                         s, prec, m.L.nx, m.L.ny, m.L.nz, m.block_size,
                         lbm_cpt_text(m.cells_per_thread, cpt, sizeof cpt), m.mlups_median);
        }
    for (int i = 0; i < n && r->p->passes > 1; i++)
        if (it[i].ok && lbm_pass_spread_pct(&it[i].w.r) > LBM_PASS_SPREAD_NOTE)
            printf("%s: %s %s %dx%dx%d block %d: passes %.1f %% apart (the faster kept)\n", lbp_prog, s, prec,
                   it[i].L.nx, it[i].L.ny, it[i].L.nz, it[i].block, lbm_pass_spread_pct(&it[i].w.r));
}

/* Keep a sweep's measured rows; returns the index of its fastest, -1 none. */
static int keep_sweep(lbm_run *r, const sweep_item *it, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!it[i].ok) continue;
        keep_row(r, &it[i].w);
        if (best < 0 || it[i].w.r.mlups_median > it[best].w.r.mlups_median) best = i;
    }
    return best;
}

/* The bytes a lattice of the group keeps: cells x lattices x Q words (the
 * one definition of "best" the model summary shares: a point whose
 * lattices fit the last-level cache runs at the cache's speed, not the
 * memory's, and is no kernel's sustained rate). */
static double lattice_bytes(const lbm_group *g, const lbm_result *m)
{
    return (double)m->L.cells * lbm_lattices(g->scheme) * LBM_Q * lbm_word_bytes(g->prec);
}

/* The group's best: the fastest row (every row kept is verified) at a
 * lattice larger than the last-level cache (the device's l2_bytes: a GPU's
 * L2, a CPU's L3; unknown, 0: every lattice). */
static void keep_if_best(const lbm_run *r, const lbm_group *g, group_result *res, const lbm_result *m)
{
    const int64_t llc = r->d->info.l2_bytes;
    res->have = 1;
    if (llc > 0 && !(lattice_bytes(g, m) > (double)llc)) return;
    if (!res->have_best || m->mlups_median > res->best.mlups_median) res->best = *m;
    res->have_best = 1;
}

/* First each kernel itself against the host reference, at the timed
 * launch (reach.h): rows as long as the longest it times, every block it
 * launches, more threads than the largest; a short z and few steps keep
 * it cheap.  So no number below comes from a kernel wrong at a row or a
 * block the timing reaches.  Then its build for timing and the largest
 * block it launches. */
static void build_kernels(lbm_run *r, const lbm_group *g, lbm_cubes cubes, lbm_kernels *k, int *max_block)
{
    const char *s = group_name(g), *prec = lbm_precision_names[g->prec];
    for (int ci = 0; ci < g->ncpt; ci++) {
        lbm_scheme one[1] = {g->scheme};
        const int padding = lbm_plan_padding(r->o, r->d, g->prec, g->cpts[ci]);
        lbm_reach reach = {0};
        lbm_reach_add(&reach, r->p, r->o, r->d, g, ci, cubes);
        const lbm_verify_lattice at = lbm_reach_check(&reach, 3, r->d, g->prec, g->cpts[ci], padding);
        lbm_verify_opts v = {.padding = padding, .block_size = 64, .cells_per_thread = g->cpts[ci],
                             .nontemporal = g->nontemporal, .precision = g->prec, .boundary = LBM_PERIODIC,
                             .schemes = one, .nschemes = 1, .tau = 0.6, .u0 = 0.05, .noise = 0.01,
                             .plant_error = r->o->plant_error};
        lbm_verify_at(&v, &at);
        char cpt[16], where[LBM_REACH_BLOCKS * 6 + 64];
        lbm_cpt_text(g->cpts[ci], cpt, sizeof cpt);
        lbm_reach_text(&at, where, sizeof where);
        if (lbm_verify_schemes(r->d, &v) != 0)
            fail_run(r, "the %s %s kernel (cells per thread %s) failed verification at the timed launch (%s); nothing "
                     "written", s, prec, cpt, where);
        if (lbm_kernels_build_stores(&k[ci], r->d, g->scheme, g->prec, LBM_PERIODIC, g->cpts[ci], g->nontemporal) != 0)
            fail_run(r, "the %s %s kernel (cells per thread %s) does not compile", s, prec, cpt);
        lbm_step_limits(r->d, &k[ci], 0, NULL, NULL, &max_block[ci], NULL);
    }
}

/* The block sweep at the group's sweep cube; its best (block, cells per
 * thread) in *res.  Returns whether it ran. */
static int block_sweep(lbm_run *r, const lbm_group *g, const lbm_kernels *k, const int *max_block, int cube,
                       sweep_item *it, group_result *res)
{
    const char *s = group_name(g), *prec = lbm_precision_names[g->prec];
    int n = 0, entries = 0;
    for (int i = g->first; i < g->first + g->n; i++) {
        const lbm_entry *e = &r->p->entries[i];
        if (e->sweep != LBM_SWEEP_BLOCK) continue;
        entries++;
        if (e->block > max_block[e->ci]) {
            printf("%s: block %d skipped for %s %s, %d cells per thread: the kernel launches at most "
                   "%d threads per block\n", lbp_prog, e->block, s, prec, g->cpts[e->ci], max_block[e->ci]);
            skip_entry(r);
            continue;
        }
        const lbm_layout L = lbm_layout_on(r->d, cube, cube, cube, lbm_plan_padding(r->o, r->d, g->prec, g->cpts[e->ci]),
                                           g->prec);
        it[n++] = (sweep_item){.k = &k[e->ci], .ci = e->ci, .block = e->block, .L = L};
    }
    if (!entries) return 0;
    measure_sweep(r, g, it, n);
    const int best = keep_sweep(r, it, n);
    if (best < 0) fail_run(r, "no block size of the sweep could run %s %s", s, prec);
    *res = (group_result){.block = it[best].w.r.block_size, .ci = it[best].ci};
    for (int i = 0; i < n; i++)
        if (it[i].ok) keep_if_best(r, g, res, &it[i].w.r);
    return 1;
}

/* The size sweep with the block sweep's best pair (or the one given),
 * leaving out the cube the block sweep measured. */
static void size_sweep(lbm_run *r, const lbm_group *g, const lbm_kernels *k, lbm_cubes cubes, int swept,
                       sweep_item *it, group_result *res)
{
    if (!swept) res->block = r->o->block_size, res->ci = 0;
    int n = 0;
    for (int i = g->first; i < g->first + g->n; i++) {
        const lbm_entry *e = &r->p->entries[i];
        if (e->sweep != LBM_SWEEP_SIZE) continue;
        const int ci = e->ci >= 0 ? e->ci : res->ci, block = e->block ? e->block : res->block;
        const lbm_dims size = e->cube == LBM_CUBE_WHOLE ? (lbm_dims){cubes.whole, cubes.whole, cubes.whole} : e->size;
        const lbm_layout L = lbm_layout_on(r->d, size.nx, size.ny, size.nz,
                                           lbm_plan_padding(r->o, r->d, g->prec, g->cpts[ci]), g->prec);
        if (!size.nx || (swept && L.nx == cubes.sweep && L.ny == cubes.sweep && L.nz == cubes.sweep)) {
            skip_entry(r); /* no whole-sector cube, or measured by the block sweep */
            continue;
        }
        it[n++] = (sweep_item){.k = &k[ci], .ci = ci, .block = lbm_plan_block_for(r->d, g->cpts[ci], &L, block), .L = L};
    }
    measure_sweep(r, g, it, n);
    for (int i = 0; i < n; i++)
        if (it[i].ok) {
            keep_row(r, &it[i].w);
            keep_if_best(r, g, res, &it[i].w.r);
        }
}

static void run_group(lbm_run *r, int gi)
{
    const lbm_group *g = &r->p->groups[gi];
    lbp_progress(r->done, r->total, lbp_now() - r->t0, "%s %s", group_name(g), lbm_precision_names[g->prec]);
    /* a context that keeps what one group freed from the next: a fresh one */
    if (gi > 0 && r->d->info.caps.fresh_context_per_group) lbp_reopen(r->d);
    lbm_kernels k[LBM_MAX_CPT];
    int max_block[LBM_MAX_CPT];
    const lbm_cubes cubes = lbm_plan_cubes(r->p, r->o, r->d, g);
    build_kernels(r, g, cubes, k, max_block);
    sweep_item *it = calloc((size_t)g->n, sizeof *it);
    if (!it) lbp_fail("out of memory");
    group_result *res = &r->groups[gi];
    const int swept = block_sweep(r, g, k, max_block, cubes.sweep, it, res);
    memset(it, 0, sizeof *it * (size_t)g->n);
    size_sweep(r, g, k, cubes, swept, it, res);
    free(it);
    for (int ci = 0; ci < g->ncpt; ci++) lbm_kernels_release(&k[ci], r->d);
}

static void run_plan(lbm_run *r, const char *dir, int force)
{
    r->csv = lbp_csv_open(dir, "lbm.csv", LBM_CSV_HEADER, &r->d->info, force);
    r->rows = calloc((size_t)r->p->nentries + 1, sizeof *r->rows);
    r->groups = calloc((size_t)r->p->ngroups + 1, sizeof *r->groups);
    if (!r->rows || !r->groups) lbp_fail("out of memory");
    r->total = r->p->nentries * r->p->passes;
    r->t0 = lbp_now();
    for (int gi = 0; gi < r->p->ngroups; gi++) {
        const lbm_group *g = &r->p->groups[gi];
        for (int ci = 0; ci < g->ncpt; ci++)
            lbm_kernels_prefetch(r->d, g->scheme, g->prec, LBM_PERIODIC, g->cpts[ci], g->nontemporal);
    }
    for (int gi = 0; gi < r->p->ngroups; gi++) run_group(r, gi);
    lbp_progress(r->total, r->total, lbp_now() - r->t0, "done");
    lbp_csv_finish(r->csv);
}

/* ---- the report ------------------------------------------------------------ */

/* best_mlups, best_lattice and best_config of a group: its best past the
 * last-level cache, or "none" and why where every lattice it measured fits
 * in it (a small or QUICK sweep on a CPU of a large L3). */
static void write_best(lbp_meta *m, const lbm_run *r, const lbm_group *g, const group_result *res)
{
    const char *s = group_name(g), *prec = lbm_precision_names[g->prec];
    char key[48], t[16];
    const lbm_result *b = &res->best;
    if (!res->have_best) {
        static const char *const keys[] = {"best_mlups", "best_lattice", "best_config"};
        for (int i = 0; i < 3; i++) {
            snprintf(key, sizeof key, "%s_%s_%s", keys[i], s, prec);
            lbp_meta_set(m, key, "none: every lattice measured fits in the last-level cache (%" PRId64 " B)",
                         r->d->info.l2_bytes);
        }
        return;
    }
    snprintf(key, sizeof key, "best_mlups_%s_%s", s, prec);
    lbp_meta_set(m, key, "%.1f", b->mlups_median);
    snprintf(key, sizeof key, "best_lattice_%s_%s", s, prec);
    lbp_meta_set(m, key, "%dx%dx%d", b->L.nx, b->L.ny, b->L.nz);
    snprintf(key, sizeof key, "best_config_%s_%s", s, prec);
    lbp_meta_set(m, key, "%dx%dx%d block %d cells_per_thread %s", b->L.nx, b->L.ny, b->L.nz, b->block_size,
                 lbm_cpt_text(b->cells_per_thread, t, sizeof t));
}

static void write_meta(const lbm_run *r, const char *dir, int force, int argc, char **argv)
{
    lbp_meta *m = lbp_meta_new("lbm", &r->d->info, argc, argv);
    for (int f = 0; f < r->p->nprecisions; f++) {
        const lbm_precision precision = (lbm_precision)r->p->precisions[f];
        char key[48], value[64];
        int cpts[LBM_MAX_CPT];
        snprintf(key, sizeof key, "cells_per_thread_swept_%s", lbm_precision_names[precision]);
        list_text(cpts, lbm_plan_cells_per_thread(r->o, r->d, precision, -1, cpts), value, sizeof value);
        lbp_meta_set(m, key, "%s", value);
        for (int gi = 0; gi < r->p->ngroups; gi++) {
            const lbm_group *g = &r->p->groups[gi];
            const group_result *res = &r->groups[gi];
            if (g->prec != precision || !res->have) continue;
            const char *s = group_name(g), *prec = lbm_precision_names[precision];
            write_best(m, r, g, res);
            snprintf(key, sizeof key, "block_size_%s_%s", s, prec);
            lbp_meta_set(m, key, "%d", res->block);
            snprintf(key, sizeof key, "cells_per_thread_%s_%s", s, prec);
            lbp_meta_set(m, key, "%d", g->cpts[res->ci]);
        }
    }
    lbp_meta_write(m, dir, force);
}

static void print_table(const lbm_run *r, const char *dir)
{
    printf("%-6s %-5s %14s %6s %5s %-6s %10s %9s %5s %7s\n", "scheme", "prec", "size", "block", "cells", "stores",
           "MLUPS", "GB/s", "regs", "occup");
    for (int i = 0; i < r->nrows; i++) print_row(&r->rows[i]);
    printf("%s: results in %s/lbm.csv\n", lbp_prog, dir);
}

/* ---- main: options, plan, run, report ----------------------------------- */

/* One device's timing: plan, run, report. */
static int run_timing(lbp_device *d, const lbm_options *o, const lbp_common *c, int argc, char **argv)
{
    lbm_plan plan;
    lbm_plan_build(&plan, o, d);
    const char *dir = lbp_result_dir(c->out_dir, &d->info);
    lbp_check_fresh(dir, (const char *const[]){"lbm.csv", "lbm-meta.csv", NULL}, c->force);
    lbm_run r = {.d = d, .o = o, .p = &plan};
    run_plan(&r, dir, c->force);
    write_meta(&r, dir, c->force, argc, argv);
    print_table(&r, dir);
    free(r.rows);
    free(r.groups);
    lbm_plan_free(&plan);
    return 0;
}

/* Under mpirun every rank parses alike (a usage error ends them all, rank
 * 0 says why), and all finish together. */
int main(int argc, char **argv)
{
    lbp_cli_init("lbmkernels");
    lbp_mpi_init(&argc, &argv);
    lbm_options o = {.boundary = -1, .overlap = -1};
    lbp_common c = {.device = -1};
    lbp_mpi_replicated_begin();
    parse_options(argc, argv, &o, &c);
    lbp_mpi_replicated_end();
    lbp_device d;
    lbp_mpi_open_device(&d, &c);
    int rc;
    if (lbm_multi_wanted(&o) && (!o.verify || lbp_ranks.size > 1))
        rc = o.verify ? lbm_multi_verify(&d, &o) : lbm_multi_time(&d, &o, &c, argc, argv);
    else
        rc = o.verify ? run_verify(&d, &o) : run_timing(&d, &o, &c, argc, argv);
    lbp_close(&d);
    lbp_mpi_finalize();
    return rc;
}
