/* Verification: every scheme against the host reference in double precision
 * and against each other, mass conservation, and a decaying Taylor-Green
 * vortex against its analytic amplitude. */
#include "verify.h"
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The host buffers of lbm_verify_schemes: six lattices of doubles (start,
 * reference, its scratch, post-collision reference, the stored and the
 * converted device state) and rho and u (4 doubles a cell) three times. */
enum { VERIFY_HOST_LATTICES = 6, VERIFY_HOST_CELL_DOUBLES = 3 * 4 };

int64_t lbm_verify_host_bytes(const lbm_layout *L)
{
    return (int64_t)sizeof(double) * (VERIFY_HOST_LATTICES * lbm_words(L) + VERIFY_HOST_CELL_DOUBLES * L->cells);
}

static void take_least(int64_t *least, int64_t v)
{
    if (v > 0 && (*least < 0 || v < *least)) *least = v;
}

static int64_t rlimit_bytes(int resource)
{
    struct rlimit r;
    if (getrlimit(resource, &r) || r.rlim_cur == RLIM_INFINITY || r.rlim_cur > INT64_MAX) return -1;
    return (int64_t)r.rlim_cur;
}

/* A number from a one-line file (cgroup v2's memory.max: "max" or bytes). */
static int64_t file_number(const char *path)
{
    FILE *f = fopen(path, "r");
    long long v = -1;
    if (f && fscanf(f, "%lld", &v) != 1) v = -1;
    if (f) fclose(f);
    return v;
}

int64_t lbm_host_memory_bytes(void)
{
    int64_t least = -1;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) take_least(&least, (int64_t)pages * page);
    take_least(&least, rlimit_bytes(RLIMIT_AS));
    take_least(&least, rlimit_bytes(RLIMIT_DATA));
    /* a container's limit: the kernel kills a process over it (exit 137)
     * instead of failing its malloc */
    const int64_t max = file_number("/sys/fs/cgroup/memory.max"), used = file_number("/sys/fs/cgroup/memory.current");
    if (max > 0) take_least(&least, used > 0 && used < max ? max - used : max);
    return least;
}

static double *alloc_lattice(const lbm_layout *L)
{
    double *p = calloc((size_t)lbm_words(L), sizeof(double));
    if (!p) lbp_fail("out of host memory for a %dx%dx%d lattice", L->nx, L->ny, L->nz);
    return p;
}

/* rho and u of every cell (compact, cells entries / 3*cells entries). */
static void fields(const lbm_layout *L, const double *f, double *rho, double *u)
{
    int64_t c = 0;
    for (int z = 0; z < L->nz; z++)
        for (int y = 0; y < L->ny; y++)
            for (int x = 0; x < L->nx; x++, c++) {
                double g[LBM_Q];
                for (int i = 0; i < LBM_Q; i++) g[i] = f[lbm_at(L, i, x, y, z)];
                lbm_moments(g, &rho[c], &u[3 * c]);
            }
}

/* ||a - b|| / ||b|| over n values. */
static double rel_l2(const double *a, const double *b, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t k = 0; k < n; k++) {
        num += (a[k] - b[k]) * (a[k] - b[k]);
        den += b[k] * b[k];
    }
    if (!(num == num)) return INFINITY;
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

lbm_tolerances lbm_tolerances_for(lbm_precision p)
{
    return p == LBM_FP64 ? (lbm_tolerances){1e-10, 1e-12} : (lbm_tolerances){1e-4, 1e-5};
}

/* ---- fp16s: bounds from half's unit roundoff ------------------------------
 * (doc/findings/fp16.md has the derivation at length.)
 * g = f - w, the deviation the device stores (scaled by 2^15, a power of two:
 * no rounding).  Every step rounds each stored population once to half:
 * |r| <= u |g| with u = 2^-11, half's unit roundoff (the scale keeps every
 * |g| >= 2^-29 a normal half; below that the error is under 2^-40).  The
 * FP32 collision adds less than 2^-18 ||g||_w per cell: each moment sum
 * rounds its 18 partial sums by at most 2^-24 sum|g_i| <= 2^-24 ||g_cell||_w
 * (Cauchy-Schwarz, sum w_i = 1), omega < 2 carries that into the
 * populations (under 2^-19 for the density, as much for the momentum).
 * Hence eps = 2^-11 + 2^-18 per step, relative to |g| in the norm
 * ||g||_w^2 = sum_i g_i^2 / w_i.
 * In that norm a step linearised about rest (f = w) cannot grow an error:
 * its equilibrium is the w-orthogonal projection P onto density and
 * momentum, so the collision is P + (1 - omega)(I - P) with |1 - omega| < 1,
 * and streaming and bounce-back only move populations between slots of one
 * weight.  The same holds for g itself: ||g_t||_w <= G, the larger of the
 * norms of the initial and final state (at Mach <= 0.1 the nonlinear terms
 * of the equilibrium change that by a few percent).
 * The roundings are zero-mean and, in a state that moves by more than an
 * ulp a step, independent: E||error after N steps||_w^2 <= (N+1) eps^2 G^2 / 3
 * (a rounding is uniform within +-u|g|: variance <= u^2 g^2 / 3; N steps and
 * the upload).  The norm of thousands of such components lies within a few
 * percent of that root mean square; the check allows 3 times it.  Mass
 * moves by the sum of the roundings: variance <= eps^2 sum g^2 / 3 <=
 * eps^2 G^2 / 9 a step (w_i <= 1/3), allowed 6 standard deviations.  A
 * worst case (every rounding the same way) would be N eps G: at 20 steps
 * 7 times the random walk's bound, too loose to catch a wrong population. */
lbm_half_bounds lbm_half_bounds_for(double g_norm, int steps)
{
    return (lbm_half_bounds){.populations_w = 3 * LBM_HALF_EPS * g_norm * sqrt((steps + 1) / 3.0),
                             .mass = 6 * LBM_HALF_EPS * g_norm * sqrt(steps) / 3};
}

/* A timing run (lbm_measure): the device's Taylor-Green state of amplitude
 * u0, z-independent, stepped `steps` times.  Its mass moves by the sum of
 * the roundings, as above, with three differences.  Every z plane rounds
 * the same numbers the same way (the state stays z-independent exactly):
 * the mass moves nz times one plane's.  Within a plane the vortex repeats
 * under 16 maps (the shift by half the box diagonally and the 8 symmetries
 * of the square), each taking a population to one of the same weight and
 * value: up to K = 16 equal roundings add up, K times the variance of
 * independent ones.  And the deviation decays with the vortex, ||g_t||_w =
 * ||g_0||_w e^(-gamma t), gamma = nu (kx^2 + ky^2): the variances add up to
 * at most T = min(steps, 1 / (1 - e^(-2 gamma))) steps' worth.  Six standard
 * deviations of the plane's sum, relative to the mass:
 *   6 sqrt(K) eps G_plane sqrt(T) / 3 / (nx ny),
 * G_plane = ||g_0||_w of one plane.  At u0 = 0.05, tau = 0.6 that is about
 * 1.0e-4 for every n^3 run long enough for the vortex to decay (T ~ n^2,
 * G_plane ~ n), less for a shorter one. */
static double half_timing_mass(const lbm_layout *Lrun, int64_t steps, double u0, double tau)
{
    lbm_layout plane = lbm_layout_make(Lrun->nx, Lrun->ny, 1, 1, 8, 0);
    double *f = alloc_lattice(&plane);
    lbm_init_state(&plane, f, u0, 0.0, 1u);
    const double g_plane = lbm_deviation_norm(&plane, f);
    free(f);
    const double nu = (tau - 0.5) / 3.0, kx = 2 * M_PI / Lrun->nx, ky = 2 * M_PI / Lrun->ny;
    const double gamma = nu * (kx * kx + ky * ky);
    const double t_eff = fmin((double)steps, 1.0 / -expm1(-2 * gamma));
    return 6 * sqrt(16.0) * LBM_HALF_EPS * g_plane * sqrt(t_eff) / 3 / ((double)Lrun->nx * Lrun->ny);
}

double lbm_verify_mass_tolerance(lbm_precision p, const lbm_layout *L, const double *stored, int steps)
{
    return p == LBM_FP16S ? lbm_half_bounds_for(lbm_deviation_norm(L, stored), steps).mass / (double)L->cells
                          : lbm_tolerances_for(p).mass;
}

double lbm_timing_mass_tolerance(lbm_precision p, const lbm_layout *L, int64_t steps, double u0, double tau)
{
    return p == LBM_FP16S ? half_timing_mass(L, steps, u0, tau) : lbm_tolerances_for(p).mass;
}

double lbm_deviation_norm(const lbm_layout *L, const double *f)
{
    double sum = 0;
    for (int z = 0; z < L->nz; z++)
        for (int y = 0; y < L->ny; y++)
            for (int x = 0; x < L->nx; x++)
                for (int i = 0; i < LBM_Q; i++) {
                    double g = f[lbm_at(L, i, x, y, z)] - lbm_w[i];
                    sum += g * g / lbm_w[i];
                }
    return sqrt(sum);
}

/* The tolerance of each comparison with the reference (the schemes against
 * each other: twice these). */
typedef struct {
    double rho, u, populations; /* relative L2 */
    double mass_steps;          /* relative drift over the steps */
    double mass_upload;         /* host sum of what was uploaded vs the device's */
    double mass_all;            /* upload and steps */
} check_tolerances;

/* fp16s: the bounds above in the relative L2 norms of the checks.
 * Populations: sum e_i^2 <= max w ||e||_w^2 = ||e||_w^2 / 3.  Density: per
 * cell |sum e_i| <= ||e_cell||_w (Cauchy-Schwarz, sum w_i = 1).  Velocity:
 * |d j| <= ||e_cell||_w likewise (sum_i w_i c_ia^2 = 1/3 per component), and
 * d u = (d j - u d rho) / rho. */
static check_tolerances half_tolerances(const lbm_layout *L, int steps, double g_norm, const double *ref,
                                        const double *rho_ref, const double *u_ref)
{
    const lbm_half_bounds b = lbm_half_bounds_for(g_norm, steps);
    double ref2 = 0, rho2 = 0, u2 = 0, rho_min = INFINITY, u_max = 0;
    for (int64_t k = 0; k < lbm_words(L); k++) ref2 += ref[k] * ref[k];
    for (int64_t c = 0; c < L->cells; c++) {
        double uu = u_ref[3 * c] * u_ref[3 * c] + u_ref[3 * c + 1] * u_ref[3 * c + 1] + u_ref[3 * c + 2] * u_ref[3 * c + 2];
        rho2 += rho_ref[c] * rho_ref[c];
        u2 += uu;
        rho_min = fmin(rho_min, rho_ref[c]);
        u_max = fmax(u_max, sqrt(uu));
    }
    const double mass = (double)L->cells; /* sum of w_i over the cells; rho ~ 1 */
    return (check_tolerances){
        .populations = b.populations_w / sqrt(3.0) / sqrt(ref2),
        .rho = b.populations_w / sqrt(rho2),
        .u = b.populations_w * (1 + u_max) / rho_min / sqrt(u2),
        .mass_steps = b.mass / mass,
        .mass_upload = lbm_half_bounds_for(g_norm, 1).mass / mass,
        .mass_all = lbm_half_bounds_for(g_norm, steps + 1).mass / mass,
    };
}

/* A check over its tolerance: a failure, or with a planted error the catch
 * the run asked for, said in its own words (a passing test's log has no
 * FAILED in it). */
static const char *over_word(const lbm_verify_opts *o) { return o->plant_error ? "  caught (planted error)" : "  FAILED"; }

/* One comparison; block > 0: the block it ran with, said where several ran. */
static int check(const lbm_verify_opts *o, int block, const char *what, lbm_scheme s, double err, double tol)
{
    int ok = err < tol; /* NaN fails */
    char cpt[16], launch[32] = "";
    if (block > 0 && o->nblocks) snprintf(launch, sizeof launch, ", block %d", block);
    if (!ok || o->verbose)
        fprintf(ok ? stdout : stderr,
                "%s: verify %-28s %-5s %s %-8s %dx%dx%d, cells/thread %s%s%s, %d steps: error %.3e, tolerance %.2e%s\n",
                lbp_prog, what, lbm_scheme_names[s], lbm_precision_names[o->precision],
                lbm_boundary_names[o->boundary], o->nx, o->ny, o->nz, lbm_cpt_text(o->cells_per_thread, cpt, sizeof cpt),
                launch, o->nontemporal ? ", non-temporal stores" : "", o->steps, err, tol, ok ? "" : over_word(o));
    return ok ? 0 : 1;
}

/* The blocks a scheme's kernel runs with (lbm_verify_opts.blocks); 0 where
 * it cannot launch block_size (said, as the block sweep skips it). */
static int blocks_to_run(const lbm_verify_opts *o, lbm_scheme s, int max_block, int *out)
{
    int n = 0;
    for (int i = 0; i < o->nblocks && n < LBM_VERIFY_MAX_BLOCKS; i++)
        if (o->blocks[i] <= max_block) out[n++] = o->blocks[i];
    if (o->nblocks) {
        if (!n) out[n++] = max_block;
        return n;
    }
    if (o->block_size <= max_block) {
        out[0] = o->block_size;
        return 1;
    }
    char cpt[16];
    printf("%s: verify %s %s %s, cells/thread %s: skipped, the kernel launches at most %d threads per "
           "block, not %d\n", lbp_prog, lbm_scheme_names[s], lbm_precision_names[o->precision],
           lbm_boundary_names[o->boundary], lbm_cpt_text(o->cells_per_thread, cpt, sizeof cpt), max_block,
           o->block_size);
    return 0;
}

/* Every scheme of o at o's lattice, with its kernel k[si] (built). */
static int verify_lattice(lbp_device *d, const lbm_verify_opts *o, const lbm_kernels *k)
{
    lbm_layout L = lbm_layout_on(d, o->nx, o->ny, o->nz, o->padding, o->precision);
    const double omega = 1.0 / o->tau;
    const double lid_u = o->boundary == LBM_CAVITY_BOX ? o->lid_u : 0.0;
    double *f0 = alloc_lattice(&L), *ref = alloc_lattice(&L), *tmp = alloc_lattice(&L);
    double *ref_post = alloc_lattice(&L), *stored = alloc_lattice(&L), *got = alloc_lattice(&L);
    double *rho_ref = malloc(sizeof(double) * (size_t)L.cells), *u_ref = malloc(sizeof(double) * 3 * (size_t)L.cells);
    double *rho_first = malloc(sizeof(double) * (size_t)L.cells), *u_first = malloc(sizeof(double) * 3 * (size_t)L.cells);
    double *rho = malloc(sizeof(double) * (size_t)L.cells), *u = malloc(sizeof(double) * 3 * (size_t)L.cells);
    if (!rho_ref || !u_ref || !rho_first || !u_first || !rho || !u) lbp_fail("out of host memory");

    lbm_init_state(&L, f0, o->u0, o->noise, 12345u);
    memcpy(ref, f0, sizeof(double) * (size_t)lbm_words(&L));
    lbm_reference_steps(&L, o->boundary, omega, lid_u, ref, tmp, o->steps);
    fields(&L, ref, rho_ref, u_ref);
    /* The pull lattice holds post-collision populations. */
    memcpy(ref_post, ref, sizeof(double) * (size_t)lbm_words(&L));
    for (int z = 0; z < L.nz; z++)
        for (int y = 0; y < L.ny; y++)
            for (int x = 0; x < L.nx; x++) {
                double g[LBM_Q];
                for (int i = 0; i < LBM_Q; i++) g[i] = ref_post[lbm_at(&L, i, x, y, z)];
                lbm_collide(g, omega);
                for (int i = 0; i < LBM_Q; i++) ref_post[lbm_at(&L, i, x, y, z)] = g[i];
            }
    /* The reference itself must conserve mass. */
    int failures = check(o, 0, "reference mass drift", LBM_SCHEME_PUSH,
                         fabs(lbm_mass(&L, ref) / lbm_mass(&L, f0) - 1), 1e-12);
    check_tolerances tol;
    if (o->precision == LBM_FP16S) {
        /* the largest deviation of the stored states: the pull state is post-collision */
        double g_norm = fmax(fmax(lbm_deviation_norm(&L, f0), lbm_deviation_norm(&L, ref)),
                             lbm_deviation_norm(&L, ref_post));
        lbm_to_scheme(&L, LBM_SCHEME_PULL, o->boundary, omega, f0, stored);
        g_norm = fmax(g_norm, lbm_deviation_norm(&L, stored));
        tol = half_tolerances(&L, o->steps, g_norm, ref, rho_ref, u_ref);
    } else {
        const lbm_tolerances t = lbm_tolerances_for(o->precision);
        tol = (check_tolerances){t.field, t.field, t.field, t.mass, t.mass, t.mass};
    }

    int first = -1;
    for (int si = 0; si < o->nschemes; si++) {
        lbm_scheme s = o->schemes[si];
        int max_block, blocks[LBM_VERIFY_MAX_BLOCKS], nblocks;
        lbm_step_limits(d, &k[si], o->block_size, NULL, NULL, &max_block, NULL);
        nblocks = blocks_to_run(o, s, max_block, blocks);
        for (int bi = 0; bi < nblocks; bi++) {
            const int block = blocks[bi];
            lbm_sim m;
            if (lbm_sim_create(&m, d, &k[si], &L, omega, lid_u, block) != 0)
                lbp_fail("no device memory for a %dx%dx%d lattice", L.nx, L.ny, L.nz);
            lbm_to_scheme(&L, s, o->boundary, omega, f0, stored);
            lbm_sim_upload(&m, stored);
            double mass_before = lbm_sim_mass(&m), mass_host = lbm_mass(&L, stored);
            lbm_sim_steps(&m, o->steps);
            lbm_sim_download(&m, stored);
            double mass_after = lbm_sim_mass(&m);
            lbm_sim_destroy(&m);
            if (o->plant_error) /* a corrupted population must be caught */
                stored[lbm_at(&L, 5, L.nx / 2, L.ny / 3, L.nz - 1)] += 0.05;
            lbm_from_scheme(&L, s, o->boundary, stored, got);
            fields(&L, got, rho, u);

            failures += check(o, block, "rho vs host reference", s, rel_l2(rho, rho_ref, L.cells), tol.rho);
            failures += check(o, block, "u vs host reference", s, rel_l2(u, u_ref, 3 * L.cells), tol.u);
            failures += check(o, block, "populations vs host reference", s,
                              rel_l2(got, s == LBM_SCHEME_PULL ? ref_post : ref, lbm_words(&L)), tol.populations);
            failures += check(o, block, "mass drift (device sum)", s, fabs(mass_after / mass_before - 1), tol.mass_steps);
            failures += check(o, block, "mass drift (host sum)", s, fabs(lbm_mass(&L, stored) / mass_host - 1),
                              tol.mass_all);
            failures += check(o, block, "device mass sum vs host", s, fabs(mass_before / mass_host - 1), tol.mass_upload);
            if (first < 0) {
                first = s;
                memcpy(rho_first, rho, sizeof(double) * (size_t)L.cells);
                memcpy(u_first, u, sizeof(double) * 3 * (size_t)L.cells);
            } else if (s != (lbm_scheme)first) {
                char what[64];
                snprintf(what, sizeof what, "rho vs %s", lbm_scheme_names[first]);
                failures += check(o, block, what, s, rel_l2(rho, rho_first, L.cells), 2 * tol.rho);
                snprintf(what, sizeof what, "u vs %s", lbm_scheme_names[first]);
                failures += check(o, block, what, s, rel_l2(u, u_first, 3 * L.cells), 2 * tol.u);
            }
        }
    }
    free(f0); free(ref); free(tmp); free(ref_post); free(stored); free(got);
    free(rho_ref); free(u_ref); free(rho_first); free(u_first); free(rho); free(u);
    return failures;
}

void lbm_verify_at(lbm_verify_opts *o, const lbm_verify_lattice *at)
{
    o->nx = at->nx;
    o->ny = at->ny;
    o->nz = at->nz;
    o->steps = at->steps;
    o->blocks = at->blocks;
    o->nblocks = at->nblocks;
    if (at->nblocks) o->block_size = at->blocks[at->nblocks - 1];
}

/* The kernels are built once for both lattices: a build costs more than a
 * check on a small lattice (PoCL preprocesses the source to look up its
 * cache). */
int lbm_verify_schemes(lbp_device *d, const lbm_verify_opts *o)
{
    lbm_kernels k[LBM_SCHEMES];
    for (int si = 0; si < o->nschemes; si++)
        if (lbm_kernels_build_stores(&k[si], d, o->schemes[si], o->precision, o->boundary, o->cells_per_thread,
                                     o->nontemporal) != 0)
            lbp_fail("the %s %s %s kernel does not compile", lbm_scheme_names[o->schemes[si]],
                     lbm_precision_names[o->precision], lbm_boundary_names[o->boundary]);
    int failures = verify_lattice(d, o, k);
    if (o->reach) {
        lbm_verify_opts at = *o;
        lbm_verify_at(&at, o->reach);
        at.reach = NULL;
        at.verbose = 0;
        failures += verify_lattice(d, &at, k);
    }
    for (int si = 0; si < o->nschemes; si++) lbm_kernels_release(&k[si], d);
    return failures ? 1 : 0;
}

double lbm_taylor_green_error(lbp_device *d, const lbm_kernels *k, int n, int steps, double tau,
                              double u0, int padding, int plant_error, double *rounding_bound)
{
    lbm_layout L = lbm_layout_on(d, n, n, 1, padding, k->precision);
    const double omega = 1.0 / tau, nu = (tau - 0.5) / 3.0, kw = 2 * M_PI / n;
    double *f = alloc_lattice(&L), *stored = alloc_lattice(&L);
    lbm_init_state(&L, f, u0, 0.0, 1u);
    const double g_norm = lbm_deviation_norm(&L, f);
    double rho_min = INFINITY, u_max = 0;
    for (int pass = 0; pass < 2; pass++) { /* the initial state, then the final one */
        if (pass) {
            lbm_sim m;
            if (lbm_sim_create(&m, d, k, &L, omega, 0.0, 64) != 0) lbp_fail("no device memory for %dx%dx1", n, n);
            lbm_to_scheme(&L, k->scheme, LBM_PERIODIC, omega, f, stored);
            lbm_sim_upload(&m, stored);
            lbm_sim_steps(&m, steps);
            lbm_sim_download(&m, stored);
            lbm_sim_destroy(&m);
            if (plant_error) stored[lbm_at(&L, 1, n / 4, n / 2, 0)] += 0.01;
            lbm_from_scheme(&L, k->scheme, LBM_PERIODIC, stored, f);
        }
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++) {
                double g[LBM_Q], rho, u[3];
                for (int i = 0; i < LBM_Q; i++) g[i] = f[lbm_at(&L, i, x, y, 0)];
                lbm_moments(g, &rho, u);
                rho_min = fmin(rho_min, rho);
                u_max = fmax(u_max, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
            }
    }
    /* Amplitude of u_x on its mode sin(k x) cos(k y). */
    double proj = 0, norm = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            double g[LBM_Q], rho, u[3];
            for (int i = 0; i < LBM_Q; i++) g[i] = f[lbm_at(&L, i, x, y, 0)];
            lbm_moments(g, &rho, u);
            double mode = sin(kw * x) * cos(kw * y);
            proj += u[0] * mode;
            norm += mode * mode;
        }
    free(f);
    free(stored);
    double exact = u0 * exp(-nu * 2 * kw * kw * steps);
    if (rounding_bound) {
        /* fp16s (the bounds of lbm_half_bounds_for): the amplitude moves by
         * |d u_x . mode| / ||mode||^2 <= ||d u|| / ||mode|| (Cauchy-Schwarz,
         * whatever the error's shape), ||d u|| <= ||e||_w (1 + |u|) / rho */
        *rounding_bound = k->precision != LBM_FP16S
                              ? 0
                              : lbm_half_bounds_for(g_norm, steps).populations_w * (1 + u_max) / rho_min /
                                    sqrt(norm) / exact;
    }
    return proj / norm / exact - 1.0;
}

/* fp16s: its amplitude against that of the fp32 kernel of the same scheme
 * (whose decay the fp32 checks hold to the analytic one), within the
 * rounding bound at both sizes; the decay rate's error is the amplitude's
 * over the decay exponent nu 2 k^2 t. */
static int half_taylor_green(lbp_device *d, const lbm_verify_opts *o, lbm_scheme s, const lbm_kernels *k, int n1,
                             int steps1)
{
    lbm_kernels k32;
    if (lbm_kernels_build(&k32, d, s, LBM_FP32, LBM_PERIODIC, o->cells_per_thread) != 0)
        lbp_fail("the %s fp32 periodic kernel does not compile", lbm_scheme_names[s]);
    int failures = 0;
    for (int level = 0; level < 2; level++) {
        const int n = n1 << level, steps = steps1 << (2 * level);
        double bound;
        double e16 = lbm_taylor_green_error(d, k, n, steps, o->tau, o->tg_u0, o->padding, o->plant_error && !level,
                                            &bound);
        double e32 = lbm_taylor_green_error(d, &k32, n, steps, o->tau, o->tg_u0, o->padding, 0, NULL);
        const double decay = (o->tau - 0.5) / 3.0 * 2 * (2 * M_PI / n) * (2 * M_PI / n) * steps;
        int ok = fabs(e16 - e32) < bound; /* NaN fails */
        if (!ok || o->verbose)
            fprintf(ok ? stdout : stderr,
                    "%s: verify taylor-green decay        %-5s %s amplitude error %.3e at %d^2 (%d steps), fp32 "
                    "%.3e: apart %.3e (decay rate %.2f %%), tolerance %.2e (rate %.2f %%)%s\n",
                    lbp_prog, lbm_scheme_names[s], lbm_precision_names[o->precision], e16, n, steps, e32,
                    fabs(e16 - e32), 100 * fabs(log1p(e16) - log1p(e32)) / decay, bound, 100 * bound / decay,
                    ok ? "" : over_word(o));
        failures += !ok;
    }
    lbm_kernels_release(&k32, d);
    return failures;
}

int lbm_verify_taylor_green(lbp_device *d, const lbm_verify_opts *o)
{
    /* Diffusive scaling: twice the resolution, four times the steps, so the
     * lattice's second-order error drops by about 4. */
    const int n1 = 16, n2 = 32, steps1 = 40;
    const double tol_coarse = 0.05, min_ratio = 3.0;
    int failures = 0;
    for (int si = 0; si < o->nschemes; si++) {
        lbm_scheme s = o->schemes[si];
        lbm_kernels k;
        if (lbm_kernels_build_stores(&k, d, s, o->precision, LBM_PERIODIC, o->cells_per_thread, o->nontemporal) != 0)
            lbp_fail("the %s %s periodic kernel does not compile", lbm_scheme_names[s], lbm_precision_names[o->precision]);
        if (o->precision == LBM_FP16S) {
            failures += half_taylor_green(d, o, s, &k, n1, steps1) != 0;
            lbm_kernels_release(&k, d);
            continue;
        }
        double e1 = fabs(lbm_taylor_green_error(d, &k, n1, steps1, o->tau, o->tg_u0, o->padding, o->plant_error, NULL));
        double e2 = fabs(lbm_taylor_green_error(d, &k, n2, 4 * steps1, o->tau, o->tg_u0, o->padding, 0, NULL));
        lbm_kernels_release(&k, d);
        double ratio = e1 / e2;
        int ok = e1 < tol_coarse && ratio > min_ratio && ratio < 6.0;
        if (!ok || o->verbose)
            fprintf(ok ? stdout : stderr,
                    "%s: verify taylor-green decay        %-5s %s amplitude error %.3e at %d^2 (%d steps), "
                    "%.3e at %d^2 (%d steps), ratio %.2f (tolerance: < %.0e, ratio in %.1f..6)%s\n",
                    lbp_prog, lbm_scheme_names[s], lbm_precision_names[o->precision], e1, n1, steps1, e2, n2,
                    4 * steps1, ratio, tol_coarse, min_ratio, ok ? "" : over_word(o));
        failures += !ok;
    }
    return failures ? 1 : 0;
}
