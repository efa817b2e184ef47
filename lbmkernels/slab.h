/* D3Q19 across ranks: the lattice cut into slabs along z (its planes are
 * contiguous in every population's array), one per rank, each with a halo
 * plane on either side, and the populations that cross a z face moved
 * between neighbours after every step (core/exchange).
 *
 * Which words cross, per scheme (n the rank's planes, 1 .. n; 0 and n + 1
 * its halos; U the five populations with c_z = +1, D those with c_z = -1):
 *   push, split, A-A odd (beta): the step writes into the halos what belongs
 *     to the neighbours' border planes: halo n + 1, slots U -> the upper
 *     neighbour's plane 1; halo 0, slots D -> the lower one's plane n;
 *   pull: the next step reads the halos: plane n, slots U -> the upper
 *     neighbour's halo 0; plane 1, slots D -> the lower one's halo n + 1
 *     (once more before the first step, for the initial state);
 *   A-A even (alpha): touches only its own cells, but leaves each
 *     population in the opposite slot, where the following beta step reads
 *     it across the face: plane n, slots D -> the upper neighbour's halo 0;
 *     plane 1, slots U -> the lower one's halo n + 1.
 * So every step moves 5 planes up and 5 down, after the step.  In the
 * cavity, a border plane's word that nobody streams into (its source lies
 * beyond an x or y wall) is written by the rank's own bounce-back, so only
 * the streamed words cross there: the rows and columns next to the walls
 * stay (for split, whose writes keep x, the column whose x neighbour is a
 * wall).
 *
 * With overlap, the border planes go first on the device's second queue,
 * the interior on the first, and the exchange runs beside the interior
 * (Calore; Obrecht Art. E). */
#ifndef LBM_SLAB_H
#define LBM_SLAB_H

#include "bench.h"
#include "exchange.h"
#include "lbm.h"

#define LBM_HALO_PLANES 1 /* D3Q19 reaches one plane along z */
#define LBM_CROSSING 5    /* populations crossing a z face each way */
extern const int lbm_slots_up[LBM_CROSSING];   /* c_z = +1 */
extern const int lbm_slots_down[LBM_CROSSING]; /* c_z = -1 */

typedef struct {
    int ranks, rank;
    int nz_global, nz_local; /* planes of the lattice; of this rank's slab */
    int z_first;             /* global z of the slab's first plane */
    int below, above;        /* neighbour ranks; -1 at a cavity wall, and with one rank */
} lbm_slab_geom;

/* The slab of rank `rank` of `ranks`.  0, or -1 with why (a usage error:
 * slabs thinner than the halo, or a rank count that does not divide nz). */
int lbm_slab_geometry(lbm_slab_geom *g, int nz_global, int ranks, int rank, lbm_boundary b, char *why,
                      size_t why_len);

typedef struct {
    lbm_sim m; /* the slab with its halos: nz_local + 2 planes */
    lbm_slab_geom g;
    lbp_exchange_path path;
    lbp_exchange *x[2]; /* A-B: the exchange after a step that wrote lattice l; A-A: of the alpha, beta step */
    int overlap;
    double exchange_ms; /* the last step's exchange, host clock */
} lbm_slab;

/* k: compiled with lbm_slab_kernels.  Collective; 0, or -1 when the slab
 * does not fit some rank's device (nothing kept). */
int lbm_slab_create(lbm_slab *s, lbp_device *d, const lbm_kernels *k, int nx, int ny, const lbm_slab_geom *g,
                    int padding, lbp_exchange_path path, int overlap, double omega, double lid_u, int block_size);
void lbm_slab_destroy(lbm_slab *s); /* collective */
/* The step kernels with -DLBM_SLAB=1 (init and mass as ever); 0 or -1. */
int lbm_slab_kernels(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                     int cells_per_thread);

/* Rank 0's stored state of the whole lattice (layout G) into the slabs,
 * then the halos the first step reads; collective (global: rank 0 only). */
void lbm_slab_scatter(lbm_slab *s, const lbm_layout *G, const double *global);
/* The Taylor-Green state on every slab's device, then the halos. */
void lbm_slab_init_device(lbm_slab *s, double u0);
/* Every slab's stored state into rank 0's whole lattice; collective. */
void lbm_slab_gather(lbm_slab *s, const lbm_layout *G, double *global);
/* n steps, each with its exchange; collective. */
void lbm_slab_steps(lbm_slab *s, int n);
/* The whole lattice's mass (halos left out); collective. */
double lbm_slab_mass(lbm_slab *s);

/* ---- checks (collective; every rank gets the verdict) ------------------ */
typedef struct {
    int nx, ny, nz; /* the whole lattice */
    int padding, steps, block_size, cells_per_thread;
    lbm_precision precision;
    lbm_boundary boundary;
    lbm_scheme scheme;
    lbp_exchange_path path;
    int overlap;
    double tau, u0, noise, lid_u;
    int plant_error; /* corrupt the decomposed result: the check must fail */
} lbm_slab_check_opts;
/* The kernels the checks of o's scheme, precision and boundary run: the
 * slab's on every rank, the single-device ones (whole) on rank 0.  A
 * compile error ends every rank (exit 1). */
void lbm_slab_check_kernels(lbm_kernels *slab, lbm_kernels *whole, lbp_device *d, const lbm_slab_check_opts *o);

/* Collective: rank 0 runs build(ctx) first, the other ranks after it (each
 * its own; a rank's failure is its own return).  Ranks on one CPU device
 * share its compiler's cache (PoCL's): several builds of one program into a
 * cold cache at once failed there, and one rank's build fills it for the
 * rest. */
int lbm_ranks_build_rank0_first(int (*build)(void *ctx), void *ctx);
/* The decomposed run against one rank's run of the same lattice with the
 * single-device kernel (rank 0): every population of every cell the same,
 * bit for bit, and the mass kept.  0 pass, 1 fail (why). */
int lbm_slab_check_run(lbp_device *d, const lbm_kernels *slab, const lbm_kernels *whole,
                       const lbm_slab_check_opts *o, char *why, size_t why_len);
/* A value planted in each crossing population of each border (or halo)
 * plane that a step sends must arrive in that population's halo (or
 * border) plane of the right neighbour, at the same cell, and nothing else
 * may change; every exchange of the scheme.  0 pass, 1 fail (why). */
int lbm_slab_check_halos(lbp_device *d, const lbm_kernels *slab, const lbm_slab_check_opts *o, char *why,
                         size_t why_len);

/* ---- timing ------------------------------------------------------------- */
typedef struct {
    lbm_result r;       /* L: the whole lattice; times: the slowest rank's */
    int ranks, nz_local, overlap;
    lbp_exchange_path path;
    double exchange_us; /* median per step on rank 0 */
} lbm_slab_result;
/* Time nx x ny x g->nz_global on g->ranks ranks: one rank runs the
 * single-device kernel k_whole, several the slab kernels k_slab.  Host
 * clock around whole runs, each ended on every rank; MLUPS of the whole
 * lattice over the slowest rank's time.  Collective; 0 (r filled), -1 when
 * the lattice does not fit (why), 1 when the mass check failed (why). */
int lbm_slab_measure(lbp_device *d, const lbm_kernels *k_slab, const lbm_kernels *k_whole, int nx, int ny,
                     const lbm_slab_geom *g, int padding, int block_size, lbp_exchange_path path, int overlap,
                     const lbm_timing_opts *t, lbm_slab_result *r, char *why, size_t why_len);

#endif
