/* What a kernel's verification must reach: the rows and the launches its
 * timed runs use (lbmkernels/reach.c).  A fault that shows only past a row
 * length (nx > 40) or past a block (a thread's local id, a second block)
 * passes a check on a small lattice at one small block and is then timed;
 * a check at the timed reach sees it. */
#ifndef LBM_REACH_H
#define LBM_REACH_H

#include "plan.h"
#include "verify.h"

#define LBM_REACH_BLOCKS LBM_VERIFY_MAX_BLOCKS
#define LBM_REACH_NZ 4    /* a short z: the reach is in x and in the launch */
#define LBM_REACH_STEPS 4 /* few steps (even: A-A's pairs) */

typedef struct {
    int nx;                                 /* the longest row timed (cells); 0: none */
    int blocks[LBM_REACH_BLOCKS], nblocks;  /* every block launched, ascending */
} lbm_reach;

/* The reach of group g's kernel of cells per thread g->cpts[ci] in plan p,
 * its cubes resolved as the runner resolves them (cubes), merged into *r
 * (start from (lbm_reach){0}): the block sweep's blocks at its cube, and
 * each size's block (the sweep's blocks where its best is taken) as the
 * runner launches it there (lbm_plan_block_for). */
void lbm_reach_add(lbm_reach *r, const lbm_plan *p, const lbm_options *o, const lbp_device *d, const lbm_group *g,
                   int ci, lbm_cubes cubes);

/* For --verify: the reach of the kernels of precision prec, cells per
 * thread cpt and stores nt that a timing run with the same options (its
 * default sizes: --sizes is --verify's own lattice) would launch. */
void lbm_reach_of_timing(lbm_reach *r, const lbm_options *o, const lbp_device *d, lbm_precision prec, int cpt, int nt);

/* The lattice and launch of a check at reach r: rows of nx cells (at
 * least r->nx), LBM_REACH_NZ planes, enough rows that the launch has more
 * threads than the largest block (a second block starts), LBM_REACH_STEPS
 * steps, every block of r (the caller may keep fewer).  For the periodic
 * box: what timing runs.  Points into r. */
lbm_verify_lattice lbm_reach_check(const lbm_reach *r, int nx, const lbp_device *d, lbm_precision prec, int cpt,
                                   int padding);

/* "257x65x4, block 256" */
void lbm_reach_text(const lbm_verify_lattice *at, char *out, size_t len);

#endif
