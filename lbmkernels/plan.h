/* What an lbmkernels timing run measures: per precision and scheme (a
 * group), a block sweep (every cells per thread x block size at one cube)
 * and a size sweep with the block sweep's best, as entries that one runner
 * (lbmkernels/main.c) executes; the progress counts entries x passes. */
#ifndef LBM_PLAN_H
#define LBM_PLAN_H

#include "bench.h"
#include "lbm.h"

#define LBM_MAX_SIZES 64
#define LBM_MAX_BLOCKS 32
#define LBM_MAX_CPT 4 /* 1, 2, 4, row */

typedef struct { int nx, ny, nz; } lbm_dims;

/* The command line's choices (0 or empty: the default). */
typedef struct {
    int verify, plant_error, quick;
    int schemes[LBM_SCHEMES], nschemes;
    int precisions[LBM_PRECISIONS], nprecisions, precisions_given;
    int boundary; /* -1: both (verify) */
    lbm_dims sizes[LBM_MAX_SIZES];
    int nsizes;
    int block_sizes[LBM_MAX_BLOCKS], nblocks;
    int block_size, steps, reps, padding, passes;
    int cells_per_thread[LBM_MAX_CPT], ncpt;
    /* across ranks (lbmkernels/multi.h): 0 not given, else an lbm_scaling;
     * 0 not given, else an lbp_exchange_path; -1 not given, 0 off, 1 on,
     * 2 both */
    int scaling, exchange, overlap;
    int stores[2], nstores; /* 0 normal, 1 non-temporal (lbm_store_names) */
} lbm_options;

/* Cells per thread of scheme s (-1: any) in this precision on d: as asked,
 * else the device's defaults.  Returns the count. */
int lbm_plan_cells_per_thread(const lbm_options *o, const lbp_device *d, lbm_precision prec, int s, int *out);
/* How the step kernels store: as asked (non-temporal only where the device
 * can: exit 2 otherwise), else ordinary stores and, where the device has
 * them, non-temporal ones too.  Returns the count. */
int lbm_plan_stores(const lbm_options *o, const lbp_device *d, int *out);
/* The block a lattice L runs with, of the one planned: on a CPU a row
 * kernel's groups of rows no larger than an even share of the rows per core,
 * so that no core idles on a small lattice. */
int lbm_plan_block_for(const lbp_device *d, int cpt, const lbm_layout *L, int block);
/* Row padding in words for a kernel of cpt cells per thread. */
int lbm_plan_padding(const lbm_options *o, const lbp_device *d, lbm_precision prec, int cpt);
/* Exit 2: fp64 asked for on a device without it. */
_Noreturn void lbm_refuse_fp64(const lbp_device *d);

typedef enum { LBM_SWEEP_BLOCK, LBM_SWEEP_SIZE } lbm_sweep;

/* A lattice given, or one the runner resolves when its group starts (what
 * fits then: an earlier refusal shrinks it). */
typedef enum {
    LBM_CUBE_GIVEN,
    LBM_CUBE_SWEEP,  /* the block sweep's: 256^3 (quick: 128^3 on a GPU, 32^3 on a CPU) or the largest that fits */
    LBM_CUBE_WHOLE   /* the largest cube whose rows fill whole 32-byte sectors unpadded, where above the list */
} lbm_cube;

typedef struct {
    lbm_sweep sweep;
    int ci;          /* cells per thread: index in its group's list; -1: the block sweep's best */
    int block;       /* threads per block; 0: the block sweep's best */
    lbm_cube cube;
    lbm_dims size;   /* LBM_CUBE_GIVEN */
} lbm_entry;

typedef struct {
    lbm_scheme scheme;
    lbm_precision prec;
    int nontemporal; /* the step kernels' stores (LBM_NT) */
    int cpts[LBM_MAX_CPT], ncpt;
    int first, n;    /* its entries, the block sweep's first */
} lbm_group;

typedef struct {
    lbm_group *groups;
    int ngroups;
    lbm_entry *entries;
    int nentries, cap;
    int precisions[LBM_PRECISIONS], nprecisions; /* those that run */
    int passes;
    lbm_timing_opts timing;
} lbm_plan;

/* The timing plan.  Prints a line for fp64 where the device has none (exit
 * 2 where asked for by name); a size asked for that cannot fit is a usage
 * error. */
void lbm_plan_build(lbm_plan *p, const lbm_options *o, const lbp_device *d);
void lbm_plan_free(lbm_plan *p);

/* The cubes a group's entries resolve to when it starts (an earlier
 * refusal shrinks what fits): the block sweep's, and the whole-sector one
 * (0: it adds nothing to the sizes before it, or is not a lattice the
 * backend fills reliably). */
typedef struct { int sweep, whole; } lbm_cubes;
lbm_cubes lbm_plan_cubes(const lbm_plan *p, const lbm_options *o, const lbp_device *d, const lbm_group *g);

#endif
