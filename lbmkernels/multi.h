/* lbmkernels across ranks (mpirun -np N lbmkernels ...): the lattice cut
 * into z slabs, one per rank (lbmkernels/slab.h).  --verify checks every
 * decomposed run against one rank's run of the same lattice; the timing
 * measures the whole lattice's MLUPS over the slowest rank's time, each
 * configuration first checked the same way, and writes lbm.csv rows with
 * the ranks, exchange path, overlap, scaling, planes per rank and exchange
 * time (rank 0 writes). */
#ifndef LBM_MULTI_H
#define LBM_MULTI_H

#include "cli.h"
#include "device.h"
#include "plan.h"

typedef enum { LBM_SCALING_NONE, LBM_SCALING_WEAK, LBM_SCALING_STRONG } lbm_scaling;
extern const char *const lbm_scaling_names[]; /* "none", "weak", "strong", NULL */
#define LBM_OVERLAP_BOTH 2                     /* o->overlap: 0 off, 1 on, 2 both, -1 not given */
extern const char *const lbm_overlap_names[]; /* "off", "on", "both", NULL */

/* Does the run span ranks: more than one, or --ranks-scaling, --exchange or
 * --overlap given? */
int lbm_multi_wanted(const lbm_options *o);
/* Collective; exit status (0 all passed, 1 a check failed). */
int lbm_multi_verify(lbp_device *d, const lbm_options *o);
/* Collective; exit status. */
int lbm_multi_time(lbp_device *d, const lbm_options *o, const lbp_common *c, int argc, char **argv);

#endif
