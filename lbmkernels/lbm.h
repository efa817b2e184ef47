/* D3Q19 BGK reference kernels: the lattice, the schemes, the host reference
 * and the device runs (lbmkernels/). */
#ifndef LBM_H
#define LBM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "device.h"
#include "skew.h"

#define LBM_Q 19 /* populations per cell */

/* D3Q19 velocity set, in the order of d3q19.cl's LBM_D3Q19 list. */
extern const int lbm_c[LBM_Q][3];
extern const int lbm_opp[LBM_Q];
extern const double lbm_w[LBM_Q];

typedef enum { LBM_SCHEME_PUSH, LBM_SCHEME_PULL, LBM_SCHEME_SPLIT, LBM_SCHEME_AA, LBM_SCHEMES } lbm_scheme;
typedef enum { LBM_PERIODIC, LBM_CAVITY_BOX, LBM_BOUNDARIES } lbm_boundary;
extern const char *const lbm_scheme_names[];   /* "push", "pull", "split", "aa", NULL */
extern const char *const lbm_boundary_names[]; /* "periodic", "cavity", NULL */
/* How lbm_step stores: "normal", "nontemporal" (LBM_NT), NULL; lbm.csv's
 * stores column. */
extern const char *const lbm_store_names[];
static inline int lbm_lattices(lbm_scheme s) { return s == LBM_SCHEME_AA ? 1 : 2; }

/* How a population is stored; the arithmetic is FP32 but for fp64.
 * fp16s: IEEE half holding LBM_FP16S_SCALE (f_i - w_i) (d3q19.cl says why);
 * the others f_i - w_i in their own type. */
typedef enum { LBM_FP32, LBM_FP64, LBM_FP16S, LBM_PRECISIONS } lbm_precision;
extern const char *const lbm_precision_names[]; /* "fp32", "fp64", "fp16s", NULL */
#define LBM_FP16S_SCALE 32768.0 /* LBM_SCALE of d3q19.cl */
/* Bytes of one stored population: 4, 8, 2. */
static inline int lbm_word_bytes(lbm_precision p) { return p == LBM_FP64 ? 8 : p == LBM_FP16S ? 2 : 4; }
/* The factor the device keeps f_i - w_i multiplied by (1 but for fp16s). */
static inline double lbm_scale(lbm_precision p) { return p == LBM_FP16S ? LBM_FP16S_SCALE : 1.0; }

/* Lattice geometry: SoA, x fastest, rows padded to nxp words (Habich §6).
 * The populations lie `stride` words apart: on a CPU cells_padded rounded
 * up to skew the arrays (skew.h; 128^3 in fp32 and 64^3 would otherwise
 * put them a multiple of 4 KiB apart), elsewhere cells_padded. */
typedef struct {
    int nx, ny, nz;
    int nxp;              /* nx rounded up to the padding */
    int64_t cells;        /* nx*ny*nz */
    int64_t cells_padded; /* nxp*ny*nz: the cells a lattice sweep covers */
    int64_t stride;       /* words from one population's array to the next */
} lbm_layout;
lbm_layout lbm_layout_make(int nx, int ny, int nz, int padding_words, int word_bytes, int skew_bytes);
/* The layout device d runs: words of the precision's size, the arrays
 * skewed on a CPU only. */
static inline lbm_layout lbm_layout_on(const lbp_device *d, int nx, int ny, int nz, int padding_words,
                                       lbm_precision p)
{
    return lbm_layout_make(nx, ny, nz, padding_words, lbm_word_bytes(p), lbp_is_cpu(&d->info) ? LBP_CPU_SKEW : 0);
}
static inline int64_t lbm_cell(const lbm_layout *L, int x, int y, int z)
{
    return x + (int64_t)L->nxp * (y + (int64_t)L->ny * z);
}
static inline int64_t lbm_at(const lbm_layout *L, int i, int x, int y, int z)
{
    return i * L->stride + lbm_cell(L, x, y, z);
}
/* Words of one lattice (19 * stride). */
static inline int64_t lbm_words(const lbm_layout *L) { return LBM_Q * L->stride; }

/* ---- host side (double precision) -------------------------------------- */
/* Equilibrium populations for density rho and velocity u. */
void lbm_equilibrium(double rho, const double u[3], double feq[LBM_Q]);
/* BGK collision of one cell in place: f += omega (f_eq - f). */
void lbm_collide(double f[LBM_Q], double omega);
/* rho and u of one set of populations. */
void lbm_moments(const double f[LBM_Q], double *rho, double u[3]);

/* Fill f (lbm_words doubles, padding zero) with a non-trivial state: a
 * Taylor-Green vortex of amplitude u0 plus seeded random perturbations of
 * density, velocity and non-equilibrium part (amplitude noise). */
void lbm_init_state(const lbm_layout *L, double *f, double u0, double noise, unsigned seed);
/* The textbook step on the host: collide every cell, then stream (push
 * form), with half-way bounce-back for the cavity; f_tmp same size as f. */
void lbm_reference_steps(const lbm_layout *L, lbm_boundary b, double omega, double lid_u,
                         double *f, double *f_tmp, int steps);
/* Total mass: sum of every population. */
double lbm_mass(const lbm_layout *L, const double *f);

/* A scheme's stored state <-> the canonical pre-collision populations f(t).
 * push, A-A (after an even number of steps): the same; pull: the lattice
 * holds the post-collision f*(t), so to_scheme collides and from_scheme
 * returns f*(t) (same rho and u); split: the lattice holds populations that
 * still owe their x shift, so the conversions apply / undo it. */
void lbm_to_scheme(const lbm_layout *L, lbm_scheme s, lbm_boundary b, double omega,
                   const double *f, double *stored);
void lbm_from_scheme(const lbm_layout *L, lbm_scheme s, lbm_boundary b, const double *stored,
                     double *f);

/* ---- device side ------------------------------------------------------- */
extern const char lbm_kernel_source[]; /* d3q19.cl, embedded */
/* The text every kernel is built from: lbm_kernel_source.  Only a test
 * program points it elsewhere (tests/lbmkernels_fault.c plants a fault in a
 * copy); no option or environment variable of the tools can. */
extern const char *lbm_source;

/* Cells per thread LBM_ROW_PER_THREAD: one thread per row (y, z), its cells
 * in a loop over x (the CPU's shape; d3q19.cl, LBM_ROW). */
#define LBM_ROW_PER_THREAD 0

/* The -D options of a scheme/precision/boundary/cells-per-thread build of
 * lbm_step (buffer >= 160; one cell per thread adds no define). */
void lbm_build_options(char *out, size_t len, lbm_scheme s, lbm_precision p, lbm_boundary b, int aa_odd,
                       int cells_per_thread);
/* The precision's -D options alone (for lbm_init and lbm_mass). */
const char *lbm_precision_options(lbm_precision p);
/* Cells per thread the kernel handles: 1, 2, 4 or LBM_ROW_PER_THREAD. */
/* "1", "2", "4" or "row" in buf */
const char *lbm_cpt_text(int cells_per_thread, char *buf, size_t len);
int lbm_cells_per_thread_ok(int n);
/* Threads lbm_step is launched with: nxp / cells_per_thread per row (rows
 * must be padded to a multiple of cells_per_thread), one per row for
 * LBM_ROW_PER_THREAD. */
int64_t lbm_step_threads(const lbm_layout *L, int cells_per_thread);

/* Compiled kernels of one scheme, precision and boundary. */
typedef struct {
    lbm_scheme scheme;
    lbm_precision precision;
    lbm_boundary boundary;
    int cells_per_thread; /* of step: adjacent cells x, x + 1, ... of a row per thread,
                           * or LBM_ROW_PER_THREAD */
    int nontemporal;     /* step stores with non-temporal stores (LBM_NT) */
    lbp_kernel *step[2]; /* A-A: even, odd; others: step[0] */
    lbp_kernel *init, *mass;
    int mass_block; /* threads per block of mass: 256, or 1 where its barriers cannot be met */
} lbm_kernels;
/* Returns 0, or -1 when a compile failed (the log was printed). */
int lbm_kernels_build(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                      int cells_per_thread);
/* The same, the step kernels compiled with more defines (a slab's
 * "-DLBM_SLAB=1"). */
int lbm_kernels_build_with(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                           int cells_per_thread, const char *step_defines);
/* The same with non-temporal stores where nontemporal (d3q19.cl, LBM_NT):
 * only where lbm_nontemporal_ok, and on a backend whose prelude offers them
 * (else the compile fails, with its log). */
int lbm_kernels_build_stores(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                             int cells_per_thread, int nontemporal);
/* Tell the backend that lbm_kernels_build_stores(.., s, p, b,
 * cells_per_thread, nontemporal) follows (lbp_prefetch: a CPU's compiles
 * run side by side). */
void lbm_kernels_prefetch(lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b, int cells_per_thread,
                          int nontemporal);
/* Kernels whose stores keep x (pull, split) in the periodic box, a row per
 * thread, of fp32 or fp64 words: the ones that can store non-temporally. */
int lbm_nontemporal_ok(lbm_scheme s, lbm_precision p, lbm_boundary b, int cells_per_thread);
void lbm_kernels_release(lbm_kernels *k, lbp_device *d);
/* Over the step kernels (both A-A phases): the most registers, the most
 * local (spilled) bytes per thread, the largest block every one launches,
 * the fewest blocks per compute unit at block_size (-1 where the backend
 * cannot tell).  NULL: not wanted. */
void lbm_step_limits(lbp_device *d, const lbm_kernels *k, int block_size, int *registers, int64_t *local_bytes,
                     int *max_block, int *blocks_per_cu);

/* A lattice on the device and the state of a run. */
typedef struct {
    lbp_device *d;
    const lbm_kernels *k;
    lbm_layout L;
    lbp_buf *lat[2];  /* A-A: lat[0] only */
    lbp_buf *partial; /* mass reduction */
    int mass_blocks;
    int cur;          /* lattice holding the current state (A-B) */
    int64_t t;        /* steps done */
    double omega, lid_u;
    int block_size;
} lbm_sim;
/* Word k of a raw lattice buffer in precision p, as the number the device
 * keeps (S (f_i - w_i): not unscaled, not shifted), and the other way. */
double lbm_raw_word(lbm_precision p, const void *raw, size_t k);
void lbm_raw_put(lbm_precision p, void *raw, size_t k, double v);
/* Bytes the lattices of a scheme need. */
int64_t lbm_bytes_needed(const lbm_layout *L, lbm_scheme s, lbm_precision p);
/* Allocate; returns 0, or -1 when the device has no room (nothing kept). */
int lbm_sim_create(lbm_sim *m, lbp_device *d, const lbm_kernels *k, const lbm_layout *L,
                   double omega, double lid_u, int block_size);
void lbm_sim_destroy(lbm_sim *m);
/* Upload a stored (scheme-layout) state into the current lattice (and the
 * other one of an A-B pair, so its padding is defined too).  The device
 * keeps f_i - w_i (more FP32 digits, mass kept to rounding; fp16s scaled
 * and rounded to half); upload and download shift by w_i (and scale), so
 * callers see plain populations. */
void lbm_sim_upload(lbm_sim *m, const double *stored);
void lbm_sim_download(lbm_sim *m, double *stored);
/* Device-side Taylor-Green equilibrium of amplitude u0 in every lattice. */
void lbm_sim_init_device(lbm_sim *m, double u0);
/* Enqueue n steps, back to back (A-A: even steps alpha, odd beta). */
void lbm_sim_steps(lbm_sim *m, int n);
/* One step by hand (a slab's launches): the kernel of step m->t, its
 * arguments for the current lattices (returns how many, at most
 * LBM_STEP_ARGS; a slab kernel takes its own after them), and the advance
 * to the next step once launched. */
#define LBM_STEP_ARGS 10
lbp_kernel *lbm_sim_step_kernel(const lbm_sim *m);
int lbm_sim_step_args(const lbm_sim *m, lbp_arg *a);
void lbm_sim_advance(lbm_sim *m);
/* Total mass of the current lattice, reduced on the device. */
double lbm_sim_mass(lbm_sim *m);

#endif
