/* What each named correction (corrections.h) does to one prediction. */
#ifndef MODEL_EFFECTS_H
#define MODEL_EFFECTS_H

#include <stddef.h>

#include "corrections.h"
#include "inputs.h"
#include "kernel.h"
#include "predict.h"

/* effect[c]: the full level's MLUPS with the corrections as switched now
 * (with_mlups) over the same prediction with c switched off too --
 * 1 where c does not touch this kernel, 0 where c is off already; before
 * the kernel (holdout.h) when before_kernel, else at its launch.  The
 * switches are as they were on return.  0, or -1 with err. */
int model_correction_effects(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                             int before_kernel, double with_mlups, double effect[MODEL_CORRECTIONS], char *err,
                             size_t err_len);

#endif
