/* Verification of the D3Q19 kernels (lbmkernels/verify.c). */
#ifndef LBM_VERIFY_H
#define LBM_VERIFY_H

#include "lbm.h"

typedef struct {
    double field; /* relative L2 error of rho, u, populations */
    double mass;  /* relative mass drift */
} lbm_tolerances;
lbm_tolerances lbm_tolerances_for(int fp64);

typedef struct {
    int nx, ny, nz, padding, steps, block_size;
    int cells_per_thread; /* of lbm_step: 1, 2, 4 or LBM_ROW_PER_THREAD */
    int fp64;
    lbm_boundary boundary;
    const lbm_scheme *schemes;
    int nschemes;
    double tau, u0, noise, lid_u, tg_u0;
    int plant_error; /* corrupt one population before comparing */
    int verbose;     /* print passing checks too */
} lbm_verify_opts;

/* Host memory lbm_verify_schemes takes for lattice L: its double-precision
 * copies of the lattice and the fields of every cell. */
int64_t lbm_verify_host_bytes(const lbm_layout *L);
/* Host memory this process may still take: the least of the physical
 * memory, the address-space and data limits (setrlimit) and the cgroup's
 * memory.max less its use; -1 when none is known. */
int64_t lbm_host_memory_bytes(void);

/* Every scheme of o against the host reference, the first scheme, and mass
 * conservation.  Prints each failed check (which, scheme, precision, error,
 * tolerance) on stderr; returns 0 when all pass, 1 otherwise. */
int lbm_verify_schemes(lbp_device *d, const lbm_verify_opts *o);

/* Relative error of the Taylor-Green amplitude after `steps` steps on an
 * n x n x 1 periodic lattice against u0 exp(-nu 2 k^2 t). */
double lbm_taylor_green_error(lbp_device *d, const lbm_kernels *k, int n, int steps, double tau,
                              double u0, int padding, int plant_error);
/* The Taylor-Green check at 16^2 and 32^2 (diffusive scaling) for every
 * scheme of o; 0 pass, 1 fail. */
int lbm_verify_taylor_green(lbp_device *d, const lbm_verify_opts *o);

#endif
