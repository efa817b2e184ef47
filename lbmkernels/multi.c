/* lbmkernels across ranks (multi.h). */
#include "multi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "csv.h"
#include "exchange.h"
#include "ranks.h"
#include "reach.h"
#include "slab.h"
#include "verify.h"

const char *const lbm_scaling_names[] = {"none", "weak", "strong", NULL};
const char *const lbm_overlap_names[] = {"off", "on", "both", NULL};

int lbm_multi_wanted(const lbm_options *o)
{
    return lbp_ranks.size > 1 || o->scaling || o->exchange || o->overlap >= 0;
}

static lbm_scaling scaling_of(const lbm_options *o) { return o->scaling ? (lbm_scaling)o->scaling : LBM_SCALING_WEAK; }
static lbp_exchange_path path_of(const lbm_options *o)
{
    return o->exchange ? (lbp_exchange_path)o->exchange : LBP_EXCHANGE_HOST;
}

/* The overlaps to run: off, on, or both (the default; off alone where the
 * device has one queue, which an explicit on refuses). */
static int overlaps_of(const lbm_options *o, const lbp_device *d, int *out)
{
    if (o->overlap == 0 || o->overlap == 1) {
        out[0] = o->overlap;
        return 1;
    }
    out[0] = 0, out[1] = 1;
    return d->info.caps.second_queue ? 2 : 1;
}

/* --sizes as the whole lattice: weak scaling gives one rank's. */
static lbm_dims whole_lattice(const lbm_options *o, lbm_dims size)
{
    if (scaling_of(o) == LBM_SCALING_WEAK) size.nz *= lbp_ranks.size;
    return size;
}

/* What every rank must agree can run: the path, the overlap, each
 * lattice's slabs (usage errors, exit 2 on every rank). */
static void check_setup(lbp_device *d, const lbm_options *o, const lbm_dims *sizes, int nsizes)
{
    char why[512] = "";
    if (lbp_ranks.size > 1) {
        const int bad = lbp_exchange_available(d, path_of(o), why, sizeof why) != 0;
        lbp_mpi_agree(bad ? LBP_EXIT_USAGE : 0, "%s", why);
    }
    lbp_mpi_agree(o->overlap == 1 && !d->info.caps.second_queue ? LBP_EXIT_USAGE : 0,
                  "--overlap on: not available: %s (%s) has one queue, and the exchange cannot run beside the interior",
                  d->info.name, d->info.backend);
    for (int i = 0; i < nsizes; i++) {
        lbm_slab_geom g;
        const lbm_dims w = whole_lattice(o, sizes[i]);
        const int bad = lbm_slab_geometry(&g, w.nz, lbp_ranks.size, lbp_ranks.rank, LBM_PERIODIC, why, sizeof why);
        lbp_mpi_agree(bad ? LBP_EXIT_USAGE : 0, "--sizes %dx%dx%d: %s", sizes[i].nx, sizes[i].ny, sizes[i].nz, why);
    }
}

/* The precisions that run (fp64 where the device has it). */
static int precisions_of(const lbp_device *d, const lbm_options *o, int *out)
{
    int n = 0;
    for (int i = 0; i < o->nprecisions; i++) {
        if (o->precisions[i] == LBM_FP64 && !d->info.fp64) {
            lbp_mpi_agree(o->precisions_given ? LBP_EXIT_USAGE : 0, "fp64 asked for, but %s (%s) has no double precision",
                          d->info.name, d->info.backend);
            if (lbp_ranks.rank == 0) printf("%s: fp64 skipped: %s has no double precision\n", lbp_prog, d->info.name);
            continue;
        }
        out[n++] = o->precisions[i];
    }
    return n;
}

static lbm_slab_check_opts check_opts(const lbp_device *d, const lbm_options *o, lbm_dims w, lbm_precision prec, int cpt,
                                      lbm_boundary b, lbm_scheme s)
{
    return (lbm_slab_check_opts){.nx = w.nx, .ny = w.ny, .nz = w.nz, .padding = lbm_plan_padding(o, d, prec, cpt),
                                 .steps = o->steps ? o->steps : 20, .block_size = o->block_size ? o->block_size : 64,
                                 .cells_per_thread = cpt, .precision = prec, .boundary = b, .scheme = s,
                                 .path = path_of(o), .tau = 0.6, .u0 = 0.05, .noise = 0.01, .lid_u = 0.05,
                                 .plant_error = o->plant_error};
}

static void say_check(const lbm_slab_check_opts *co, const char *what, int failed, const char *why)
{
    if (lbp_ranks.rank) return;
    char cpt[16];
    if (failed) fprintf(stderr, "%s: FAILED: %s\n", lbp_prog, why);
    printf("%s: verify %-5s %s %-8s %dx%dx%d on %d ranks, cells/thread %s, exchange %s, %s: %s\n", lbp_prog,
           lbm_scheme_names[co->scheme], lbm_precision_names[co->precision], lbm_boundary_names[co->boundary], co->nx,
           co->ny, co->nz, lbp_ranks.size, lbm_cpt_text(co->cells_per_thread, cpt, sizeof cpt),
           lbp_exchange_names[co->path], what, failed ? "FAILED" : "passed");
}

/* The halo check, then the decomposed run against one rank's with each
 * overlap; failures counted. */
static int check_decomposed(lbp_device *d, const lbm_options *o, lbm_slab_check_opts *co)
{
    char why[1024];
    lbm_kernels slab, whole;
    lbm_slab_check_kernels(&slab, &whole, d, co);
    int failures = lbm_slab_check_halos(d, &slab, co, why, sizeof why);
    say_check(co, "halos: planted values where they belong", failures, why);
    int overlaps[2];
    for (int i = 0, n = overlaps_of(o, d, overlaps); i < n; i++) {
        co->overlap = overlaps[i];
        const int r = lbm_slab_check_run(d, &slab, &whole, co, why, sizeof why);
        say_check(co, co->overlap ? "overlap on: bit for bit as one rank" : "overlap off: bit for bit as one rank", r,
                  why);
        failures += r;
    }
    lbm_kernels_release(&slab, d);
    if (lbp_ranks.rank == 0) lbm_kernels_release(&whole, d);
    return failures;
}

int lbm_multi_verify(lbp_device *d, const lbm_options *o)
{
    const lbm_dims size = o->nsizes ? o->sizes[0] : (lbm_dims){20, 18, scaling_of(o) == LBM_SCALING_WEAK ? 4 : 16};
    check_setup(d, o, &size, 1);
    lbp_mpi_agree(lbp_ranks.size < 2 ? LBP_EXIT_USAGE : 0,
                  "--verify of a decomposed run needs at least 2 ranks (mpirun -np N); one rank: lbmkernels --verify");
    lbp_mpi_agree(size.nx < 3 || size.ny < 3 ? LBP_EXIT_USAGE : 0, "--sizes %dx%dx%d: the halo check needs nx, ny >= 3",
                  size.nx, size.ny, size.nz);
    const lbm_dims w = whole_lattice(o, size);
    int precisions[LBM_PRECISIONS], failures = 0;
    const int np = precisions_of(d, o, precisions);
    for (int p = 0; p < np; p++) {
        int cpts[LBM_MAX_CPT];
        const int ncpt = lbm_plan_cells_per_thread(o, d, (lbm_precision)precisions[p], -1, cpts);
        for (int ci = 0; ci < ncpt; ci++)
            for (int b = 0; b < LBM_BOUNDARIES; b++) {
                if (o->boundary >= 0 && b != o->boundary) continue;
                for (int s = 0; s < o->nschemes; s++) {
                    lbm_slab_check_opts co = check_opts(d, o, w, (lbm_precision)precisions[p], cpts[ci], (lbm_boundary)b,
                                                        (lbm_scheme)o->schemes[s]);
                    failures += check_decomposed(d, o, &co);
                }
            }
    }
    if (failures && lbp_ranks.rank == 0) fprintf(stderr, "%s: verification FAILED (%d checks)\n", lbp_prog, failures);
    return failures ? LBP_EXIT_FAIL : 0;
}

/* ---- timing --------------------------------------------------------------- */

typedef struct {
    lbp_device *d;
    const lbm_options *o;
    lbp_csv *csv; /* rank 0 */
    lbm_slab_result *rows;
    lbm_scheme *schemes;
    lbm_precision *prec;
    int nrows, cap;
    int groups; /* run so far */
} multi_run;

/* Each group's kernel: the cells per thread asked for (the first), else
 * the device's default with the widest accesses; blocks of 256 threads on
 * a GPU, 64 rows on a CPU, unless asked. */
static int cpt_of(const lbp_device *d, const lbm_options *o, lbm_precision prec, lbm_scheme s)
{
    int cpts[LBM_MAX_CPT];
    const int n = lbm_plan_cells_per_thread(o, d, prec, s, cpts);
    return o->ncpt ? cpts[0] : cpts[n - 1];
}
static int block_of(const lbp_device *d, const lbm_options *o)
{
    return o->block_size ? o->block_size : lbp_is_cpu(&d->info) ? 64 : 256;
}

static _Noreturn void fail_all(multi_run *r, const char *why)
{
    if (r->csv) lbp_csv_abort(r->csv);
    r->csv = NULL;
    lbp_mpi_agree(LBP_EXIT_FAIL, "%s", why);
    exit(LBP_EXIT_FAIL); /* not reached: the verdict ends every rank */
}

/* No number from a wrong kernel or decomposition: this scheme at the timed
 * launch (reach.h: rows as long as the longest timed, more threads per
 * rank than the run's block, launched with it) against the host reference
 * on every rank's device; then across ranks decomposed into slabs of 4
 * planes, with this run's path and overlaps, against one rank's run (the
 * same kernel: bit for bit, which a fault in both would pass). */
static void check_before_timing(multi_run *r, lbm_scheme s, lbm_precision prec, int cpt, const lbm_dims *sizes,
                                int nsizes)
{
    char why[1024];
    const int padding = lbm_plan_padding(r->o, r->d, prec, cpt);
    lbm_reach reach = {.nblocks = 1, .blocks = {block_of(r->d, r->o)}};
    for (int i = 0; i < nsizes; i++)
        if (sizes[i].nx > reach.nx) reach.nx = sizes[i].nx;
    const lbm_verify_lattice at = lbm_reach_check(&reach, 3, r->d, prec, cpt, padding);
    lbm_scheme one[1] = {s};
    lbm_verify_opts v = {.padding = padding, .cells_per_thread = cpt, .precision = prec, .boundary = LBM_PERIODIC,
                         .schemes = one, .nschemes = 1, .tau = 0.6, .u0 = 0.05, .noise = 0.01,
                         .plant_error = r->o->plant_error};
    lbm_verify_at(&v, &at);
    const int mine = lbm_verify_schemes(r->d, &v) ? lbp_ranks.rank + 1 : 0;
    const int failed = (int)lbp_mpi_reduce_all(mine, LBP_MPI_MAX); /* the last failing rank, + 1 */
    if (failed) {
        char on[32] = "";
        if (lbp_ranks.size > 1) snprintf(on, sizeof on, " on rank %d's device", failed - 1);
        snprintf(why, sizeof why, "the %s %s kernel failed verification at the timed launch%s; nothing written",
                 lbm_scheme_names[s], lbm_precision_names[prec], on);
        fail_all(r, why);
    }
    if (lbp_ranks.size == 1) return;
    lbm_slab_check_opts co = check_opts(r->d, r->o, (lbm_dims){at.nx, at.ny, at.nz * lbp_ranks.size}, prec, cpt,
                                        LBM_PERIODIC, s);
    co.steps = 10;
    co.block_size = reach.blocks[0];
    if (check_decomposed(r->d, r->o, &co)) {
        snprintf(why, sizeof why, "the decomposed %s %s run failed its check; nothing written", lbm_scheme_names[s],
                 lbm_precision_names[prec]);
        fail_all(r, why);
    }
}

static void keep(multi_run *r, lbm_scheme s, lbm_precision prec, const lbm_slab_result *res)
{
    if (r->nrows == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->rows = realloc(r->rows, sizeof *r->rows * (size_t)r->cap);
        r->schemes = realloc(r->schemes, sizeof *r->schemes * (size_t)r->cap);
        r->prec = realloc(r->prec, sizeof *r->prec * (size_t)r->cap);
        if (!r->rows || !r->schemes || !r->prec) lbp_fail("out of host memory");
    }
    r->rows[r->nrows] = *res;
    r->schemes[r->nrows] = s;
    r->prec[r->nrows++] = prec;
    if (!r->csv) return;
    const lbm_ranks_cols rk = {.ranks = res->ranks, .exchange = lbp_exchange_names[res->path], .overlap = res->overlap,
                               .scaling = lbm_scaling_names[scaling_of(r->o)], .nz_local = res->nz_local,
                               .exchange_us = res->exchange_us};
    lbm_csv_write(r->csv, s, prec, &res->r, &rk);
}

/* One lattice, one overlap: each pass measured, the faster kept. */
static void measure(multi_run *r, const lbm_kernels *slab, const lbm_kernels *whole, lbm_dims size, int overlap,
                    int passes)
{
    const lbm_dims w = whole_lattice(r->o, size);
    const lbm_precision prec = whole->precision;
    const int cpt = whole->cells_per_thread;
    lbm_slab_geom g;
    char why[1024];
    lbm_slab_geometry(&g, w.nz, lbp_ranks.size, lbp_ranks.rank, LBM_PERIODIC, why, sizeof why); /* checked before */
    lbm_slab_result kept = {0}, res;
    for (int pass = 0; pass < passes; pass++) {
        const int rc = lbm_slab_measure(r->d, slab, whole, w.nx, w.ny, &g, lbm_plan_padding(r->o, r->d, prec, cpt),
                                        block_of(r->d, r->o), path_of(r->o), overlap,
                                        &(lbm_timing_opts){r->o->steps, r->o->reps, 20.0}, &res, why, sizeof why);
        if (rc > 0) fail_all(r, why);
        if (rc < 0) {
            if (lbp_ranks.rank == 0) printf("%s: %s %s: skipped: %s\n", lbp_prog, lbm_scheme_names[whole->scheme],
                                            lbm_precision_names[prec], why);
            return;
        }
        /* the faster pass, the slower's median kept for pass_spread_pct */
        const double slowest = pass && kept.r.ms_median_slowest > res.r.ms.median ? kept.r.ms_median_slowest
                                                                                  : res.r.ms.median;
        if (!pass || res.r.ms.median < kept.r.ms.median) kept = res;
        kept.r.ms_median_slowest = slowest;
    }
    keep(r, whole->scheme, prec, &kept);
    if (lbp_ranks.rank == 0)
        printf("%s: %s %s %dx%dx%d on %d ranks (%d planes each), exchange %s, overlap %s: %.1f MLUPS, exchange "
               "%.1f us per step\n",
               lbp_prog, lbm_scheme_names[whole->scheme], lbm_precision_names[prec], w.nx, w.ny, w.nz, kept.ranks,
               kept.nz_local, lbp_exchange_names[kept.path], kept.overlap ? "on" : "off", kept.r.mlups_median,
               kept.exchange_us);
}

typedef struct {
    lbm_kernels *slab, *whole;
    lbp_device *d;
    lbm_scheme s;
    lbm_precision prec;
    int cpt;
} group_build;

static int build_group_kernels(void *ctx)
{
    const group_build *g = ctx;
    int bad = lbm_kernels_build(g->whole, g->d, g->s, g->prec, LBM_PERIODIC, g->cpt) != 0;
    if (!bad && lbp_ranks.size > 1) bad = lbm_slab_kernels(g->slab, g->d, g->s, g->prec, LBM_PERIODIC, g->cpt) != 0;
    return bad;
}

static void run_group(multi_run *r, lbm_scheme s, lbm_precision prec, const lbm_dims *sizes, int nsizes)
{
    /* a context that keeps what one group freed from the next: a fresh one */
    if (r->groups++ && r->d->info.caps.fresh_context_per_group) lbp_reopen(r->d);
    const int cpt = cpt_of(r->d, r->o, prec, s);
    check_before_timing(r, s, prec, cpt, sizes, nsizes);
    lbm_kernels slab = {0}, whole;
    group_build g = {&slab, &whole, r->d, s, prec, cpt};
    const int bad = lbm_ranks_build_rank0_first(build_group_kernels, &g);
    lbp_mpi_agree(bad ? LBP_EXIT_FAIL : 0, "rank %d: the %s %s kernel does not compile", lbp_ranks.rank,
                  lbm_scheme_names[s], lbm_precision_names[prec]);
    int overlaps[2];
    const int nov = lbp_ranks.size > 1 ? overlaps_of(r->o, r->d, overlaps) : (overlaps[0] = 0, 1);
    const int passes = r->o->passes ? r->o->passes : r->o->quick ? 1 : 2;
    for (int i = 0; i < nsizes; i++)
        for (int k = 0; k < nov; k++) measure(r, &slab, &whole, sizes[i], overlaps[k], passes);
    if (lbp_ranks.size > 1) lbm_kernels_release(&slab, r->d);
    lbm_kernels_release(&whole, r->d);
}

static void write_meta(const multi_run *r, const char *dir, int force, int argc, char **argv)
{
    lbp_meta *m = lbp_meta_new("lbm", &r->d->info, argc, argv);
    lbp_mpi_meta(m);
    lbp_meta_set(m, "scaling", "%s", lbm_scaling_names[scaling_of(r->o)]);
    lbp_meta_set(m, "exchange", "%s", lbp_exchange_names[lbp_ranks.size > 1 ? path_of(r->o) : LBP_EXCHANGE_NONE]);
    lbp_meta_write(m, dir, force);
}

static void print_table(const multi_run *r, const char *dir)
{
    printf("%-6s %-5s %16s %5s %8s %7s %10s %11s\n", "scheme", "prec", "size", "ranks", "exchange", "overlap", "MLUPS",
           "exchange_us");
    for (int i = 0; i < r->nrows; i++) {
        const lbm_slab_result *x = &r->rows[i];
        char size[48];
        snprintf(size, sizeof size, "%dx%dx%d", x->r.L.nx, x->r.L.ny, x->r.L.nz);
        printf("%-6s %-5s %16s %5d %8s %7d %10.1f %11.1f\n", lbm_scheme_names[r->schemes[i]],
               lbm_precision_names[r->prec[i]], size, x->ranks, lbp_exchange_names[x->path], x->overlap,
               x->r.mlups_median, x->exchange_us);
    }
    printf("%s: results in %s/lbm.csv\n", lbp_prog, dir);
}

int lbm_multi_time(lbp_device *d, const lbm_options *o, const lbp_common *c, int argc, char **argv)
{
    static const lbm_dims gpu = {256, 256, 256}, cpu = {64, 64, 64}, gpu_quick = {128, 128, 128}, cpu_quick = {32, 32, 32};
    const int is_cpu = lbp_is_cpu(&d->info);
    const lbm_dims fallback = is_cpu ? (o->quick ? cpu_quick : cpu) : (o->quick ? gpu_quick : gpu);
    const lbm_dims *sizes = o->nsizes ? o->sizes : &fallback;
    const int nsizes = o->nsizes ? o->nsizes : 1;
    check_setup(d, o, sizes, nsizes);
    int precisions[LBM_PRECISIONS];
    const int np = precisions_of(d, o, precisions);
    multi_run r = {.d = d, .o = o};
    const char *dir = NULL; /* rank 0's: it writes */
    if (lbp_ranks.rank == 0) {
        dir = lbp_result_dir(c->out_dir, &d->info);
        lbp_check_fresh(dir, (const char *const[]){"lbm.csv", "lbm-meta.csv", NULL}, c->force);
        r.csv = lbp_csv_open(dir, "lbm.csv", LBM_CSV_HEADER, &d->info, c->force);
    }
    lbp_mpi_barrier(); /* rank 0 may refuse to overwrite: the others wait for that */
    for (int p = 0; p < np; p++)
        for (int s = 0; s < o->nschemes; s++) run_group(&r, (lbm_scheme)o->schemes[s], (lbm_precision)precisions[p], sizes, nsizes);
    if (lbp_ranks.rank == 0) {
        lbp_csv_finish(r.csv);
        write_meta(&r, dir, c->force, argc, argv);
        print_table(&r, dir);
    }
    free(r.rows);
    free(r.schemes);
    free(r.prec);
    return 0;
}
