/* Verification of the D3Q19 kernels (lbmkernels/verify.c). */
#ifndef LBM_VERIFY_H
#define LBM_VERIFY_H

#include "lbm.h"

typedef struct {
    double field; /* relative L2 error of rho, u, populations */
    double mass;  /* relative mass drift */
} lbm_tolerances;
/* fp32 and fp64: fixed tolerances (fp16s derives its own from the test
 * state: lbm_half_bounds). */
lbm_tolerances lbm_tolerances_for(lbm_precision p);
/* The relative mass drift of `steps` steps from the stored state `stored`
 * (plain populations, layout L) as the device sums it: fp32 and fp64 their
 * fixed tolerance, fp16s the random walk of its roundings (verify.c). */
double lbm_verify_mass_tolerance(lbm_precision p, const lbm_layout *L, const double *stored, int steps);
/* The relative mass drift a timing run may show: `steps` steps from the
 * device's Taylor-Green state of amplitude u0 (lbm_sim_init_device) with
 * relaxation time tau on lattice L. */
double lbm_timing_mass_tolerance(lbm_precision p, const lbm_layout *L, int64_t steps, double u0, double tau);

/* fp16s: what rounding the stored deviation g = f - w to half can do to a
 * run of `steps` steps from a state whose ||g||_w = sqrt(sum g_i^2 / w_i)
 * over the lattice is at most g_norm (verify.c derives them). */
#define LBM_HALF_EPS (0x1p-11 + 0x1p-18) /* per step and population, relative to |g| */
typedef struct {
    double populations_w; /* ||error||_w: 3 x the random walk's root mean square */
    double mass;          /* |mass change|: 6 x its standard deviation */
} lbm_half_bounds;
lbm_half_bounds lbm_half_bounds_for(double g_norm, int steps);
/* ||f - w||_w of a lattice of plain populations. */
double lbm_deviation_norm(const lbm_layout *L, const double *f);

#define LBM_VERIFY_MAX_BLOCKS 128 /* lbm_verify_opts.blocks */
/* A lattice and launch to check kernels at (lbmkernels/reach.h makes the
 * timed runs' reach). */
typedef struct {
    int nx, ny, nz, steps;
    const int *blocks; /* as lbm_verify_opts.blocks */
    int nblocks;
} lbm_verify_lattice;

typedef struct {
    int nx, ny, nz, padding, steps, block_size;
    /* nblocks > 0: each scheme launched with each of these blocks (a timed
     * run's launches, lbmkernels/reach.h) that its kernel can launch, or
     * with its largest where it can launch none; block_size unused.  0: with
     * block_size alone (skipped where the kernel cannot launch it). */
    const int *blocks;
    int nblocks;
    int cells_per_thread; /* of lbm_step: 1, 2, 4 or LBM_ROW_PER_THREAD */
    lbm_precision precision;
    int nontemporal;      /* non-temporal stores (schemes where lbm_nontemporal_ok) */
    lbm_boundary boundary;
    const lbm_scheme *schemes;
    int nschemes;
    double tau, u0, noise, lid_u, tg_u0;
    int plant_error; /* corrupt one population before comparing */
    int verbose;     /* print passing checks too */
    /* non-NULL: the same kernels then checked at this lattice and launch
     * too (its passing checks not printed) */
    const lbm_verify_lattice *reach;
} lbm_verify_opts;

/* o's lattice, steps and blocks those of at (block_size its largest). */
void lbm_verify_at(lbm_verify_opts *o, const lbm_verify_lattice *at);

/* Host memory lbm_verify_schemes takes for lattice L: its double-precision
 * copies of the lattice and the fields of every cell. */
int64_t lbm_verify_host_bytes(const lbm_layout *L);
/* Host memory this process may still take: the least of the physical
 * memory, the address-space and data limits (setrlimit) and the cgroup's
 * memory.max less its use; -1 when none is known. */
int64_t lbm_host_memory_bytes(void);

/* Every scheme of o against the host reference, the first scheme, and mass
 * conservation, at o's lattice, then at o->reach where given (one build of
 * each kernel for both).  Prints each failed check (which, scheme,
 * precision, error, tolerance) on stderr; returns 0 when all pass, 1
 * otherwise. */
int lbm_verify_schemes(lbp_device *d, const lbm_verify_opts *o);

/* The Taylor-Green amplitude after `steps` steps on an n x n x 1 periodic
 * lattice over the analytic u0 exp(-nu 2 k^2 t), less 1 (signed); in
 * *rounding_bound (may be NULL) what fp16s rounding can add to it
 * (0 for the other precisions). */
double lbm_taylor_green_error(lbp_device *d, const lbm_kernels *k, int n, int steps, double tau,
                              double u0, int padding, int plant_error, double *rounding_bound);
/* The Taylor-Green check at 16^2 and 32^2 (diffusive scaling) for every
 * scheme of o: fp32 and fp64 against the analytic decay, fp16s against
 * the fp32 kernel of its scheme within the rounding bound; 0 pass, 1 fail. */
int lbm_verify_taylor_green(lbp_device *d, const lbm_verify_opts *o);

#endif
