/* A row kernel's rows at its own length: membench's row_nx sweep (a CPU),
 * the rows probe with rows of NX cells and their ends apart over rows of
 * R cells without them, each pair back to back at NX^3 cells. */
#ifndef MODEL_ROWNX_H
#define MODEL_ROWNX_H

#include "inputs.h"
#include "provenance.h"

/* The ratio at rows of nx cells for the aligned probe (payload 0) or the
 * collision payload's (1) of word_bytes words, in place or not:
 * interpolated in log NX between the measured NX and R (ratio 1: the rows
 * sweep's own rows), 1 at nx >= R, the smallest NX's ratio below it
 * (noted); each measured ratio at least 1 (below is noise, as the rows
 * variants' are).  0 where the sweep has no such pair (data from before
 * it, or --quick's aligned ones alone). */
double model_row_nx_ratio(const model_inputs *in, int word_bytes, int in_place, int payload, double nx,
                          model_provenance *prov);

#endif
