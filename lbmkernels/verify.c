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

lbm_tolerances lbm_tolerances_for(int fp64)
{
    return fp64 ? (lbm_tolerances){1e-10, 1e-12} : (lbm_tolerances){1e-4, 1e-5};
}

static int check(const lbm_verify_opts *o, const char *what, lbm_scheme s, double err, double tol)
{
    int ok = err < tol; /* NaN fails */
    char cpt[16];
    if (!ok || o->verbose)
        fprintf(ok ? stdout : stderr,
                "%s: verify %-28s %-5s %s %-8s %dx%dx%d, cells/thread %s, %d steps: error %.3e, tolerance %.1e%s\n",
                lbp_prog, what, lbm_scheme_names[s], lbm_precision_names[o->fp64],
                lbm_boundary_names[o->boundary], o->nx, o->ny, o->nz, lbm_cpt_text(o->cells_per_thread, cpt, sizeof cpt),
                o->steps, err, tol, ok ? "" : "  FAILED");
    return ok ? 0 : 1;
}

int lbm_verify_schemes(lbp_device *d, const lbm_verify_opts *o)
{
    lbm_layout L = lbm_layout_on(d, o->nx, o->ny, o->nz, o->padding, o->fp64);
    const double omega = 1.0 / o->tau;
    const double lid_u = o->boundary == LBM_CAVITY_BOX ? o->lid_u : 0.0;
    const lbm_tolerances tol = lbm_tolerances_for(o->fp64);
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
    int failures = check(o, "reference mass drift", LBM_SCHEME_PUSH,
                         fabs(lbm_mass(&L, ref) / lbm_mass(&L, f0) - 1), 1e-12);

    int first = -1;
    for (int si = 0; si < o->nschemes; si++) {
        lbm_scheme s = o->schemes[si];
        lbm_kernels k;
        if (lbm_kernels_build(&k, d, s, o->fp64, o->boundary, o->cells_per_thread) != 0)
            lbp_fail("the %s %s %s kernel does not compile", lbm_scheme_names[s],
                     lbm_precision_names[o->fp64], lbm_boundary_names[o->boundary]);
        lbm_sim m;
        if (lbm_sim_create(&m, d, &k, &L, omega, lid_u, o->block_size) != 0)
            lbp_fail("no device memory for a %dx%dx%d lattice", L.nx, L.ny, L.nz);
        lbm_to_scheme(&L, s, o->boundary, omega, f0, stored);
        lbm_sim_upload(&m, stored);
        double mass_before = lbm_sim_mass(&m), mass_host = lbm_mass(&L, stored);
        lbm_sim_steps(&m, o->steps);
        lbm_sim_download(&m, stored);
        double mass_after = lbm_sim_mass(&m);
        lbm_sim_destroy(&m);
        lbm_kernels_release(&k, d);
        if (o->plant_error) /* a corrupted population must be caught */
            stored[lbm_at(&L, 5, L.nx / 2, L.ny / 3, L.nz - 1)] += 0.05;
        lbm_from_scheme(&L, s, o->boundary, stored, got);
        fields(&L, got, rho, u);

        failures += check(o, "rho vs host reference", s, rel_l2(rho, rho_ref, L.cells), tol.field);
        failures += check(o, "u vs host reference", s, rel_l2(u, u_ref, 3 * L.cells), tol.field);
        failures += check(o, "populations vs host reference", s,
                          rel_l2(got, s == LBM_SCHEME_PULL ? ref_post : ref, lbm_words(&L)), tol.field);
        failures += check(o, "mass drift (device sum)", s, fabs(mass_after / mass_before - 1), tol.mass);
        failures += check(o, "mass drift (host sum)", s, fabs(lbm_mass(&L, stored) / mass_host - 1), tol.mass);
        failures += check(o, "device mass sum vs host", s, fabs(mass_before / mass_host - 1), tol.mass);
        if (first < 0) {
            first = s;
            memcpy(rho_first, rho, sizeof(double) * (size_t)L.cells);
            memcpy(u_first, u, sizeof(double) * 3 * (size_t)L.cells);
        } else {
            char what[64];
            snprintf(what, sizeof what, "rho vs %s", lbm_scheme_names[first]);
            failures += check(o, what, s, rel_l2(rho, rho_first, L.cells), tol.field);
            snprintf(what, sizeof what, "u vs %s", lbm_scheme_names[first]);
            failures += check(o, what, s, rel_l2(u, u_first, 3 * L.cells), tol.field);
        }
    }
    free(f0); free(ref); free(tmp); free(ref_post); free(stored); free(got);
    free(rho_ref); free(u_ref); free(rho_first); free(u_first); free(rho); free(u);
    return failures ? 1 : 0;
}

double lbm_taylor_green_error(lbp_device *d, const lbm_kernels *k, int n, int steps, double tau,
                              double u0, int padding, int plant_error)
{
    lbm_layout L = lbm_layout_on(d, n, n, 1, padding, k->fp64);
    const double omega = 1.0 / tau, nu = (tau - 0.5) / 3.0, kw = 2 * M_PI / n;
    double *f = alloc_lattice(&L), *stored = alloc_lattice(&L);
    lbm_init_state(&L, f, u0, 0.0, 1u);
    lbm_sim m;
    if (lbm_sim_create(&m, d, k, &L, omega, 0.0, 64) != 0) lbp_fail("no device memory for %dx%dx1", n, n);
    lbm_to_scheme(&L, k->scheme, LBM_PERIODIC, omega, f, stored);
    lbm_sim_upload(&m, stored);
    lbm_sim_steps(&m, steps);
    lbm_sim_download(&m, stored);
    lbm_sim_destroy(&m);
    if (plant_error) stored[lbm_at(&L, 1, n / 4, n / 2, 0)] += 0.01;
    lbm_from_scheme(&L, k->scheme, LBM_PERIODIC, stored, f);
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
    return fabs(proj / norm / exact - 1.0);
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
        if (lbm_kernels_build(&k, d, s, o->fp64, LBM_PERIODIC, o->cells_per_thread) != 0)
            lbp_fail("the %s %s periodic kernel does not compile", lbm_scheme_names[s], lbm_precision_names[o->fp64]);
        double e1 = lbm_taylor_green_error(d, &k, n1, steps1, o->tau, o->tg_u0, o->padding, o->plant_error);
        double e2 = lbm_taylor_green_error(d, &k, n2, 4 * steps1, o->tau, o->tg_u0, o->padding, 0);
        lbm_kernels_release(&k, d);
        double ratio = e1 / e2;
        int ok = e1 < tol_coarse && ratio > min_ratio && ratio < 6.0;
        if (!ok || o->verbose)
            fprintf(ok ? stdout : stderr,
                    "%s: verify taylor-green decay        %-5s %s amplitude error %.3e at %d^2 (%d steps), "
                    "%.3e at %d^2 (%d steps), ratio %.2f (tolerance: < %.0e, ratio in %.1f..6)%s\n",
                    lbp_prog, lbm_scheme_names[s], lbm_precision_names[o->fp64], e1, n1, steps1, e2, n2,
                    4 * steps1, ratio, tol_coarse, min_ratio, ok ? "" : "  FAILED");
        failures += !ok;
    }
    return failures ? 1 : 0;
}
