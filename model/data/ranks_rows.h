/* The multi-rank columns of lbm.csv (data/FORMAT.md), as validate reads
 * them: ranks, exchange (none|host|peer|mpi), overlap (0|1), scaling
 * (none|weak|strong), nz_local, exchange_us.  A file without them is one
 * device's: ranks 1, exchange none, overlap 0, scaling none.  nx, ny, nz
 * and cells are the whole lattice's, mlups_median its updates over the
 * slowest rank's time. */
#ifndef MODEL_RANKS_ROWS_H
#define MODEL_RANKS_ROWS_H

#include <stddef.h>

#include "predict.h"
#include "ranks_step.h"
#include "table.h"

typedef struct {
    int ranks;
    char exchange[8];
    int overlap;
    char scaling[8];
    long long nz_local;     /* the row's, or nz for one rank */
    double exchange_us;     /* measured, µs per step; -1 unknown */
} ranks_row;

/* Row `row` of lbm.csv, with nz (already read) to check nz_local against.
 * Returns 0, or -1 with err "file:line: ..." naming the bad value. */
int ranks_row_read(const lbp_table *lbm, int row, long long nz, ranks_row *out, char *err, size_t err_len);

/* The request that predicts such a row: lat is its whole lattice as
 * validate reads it (launch, padding); devices the ranks ran on (the
 * interconnect probe's count; 0 unknown: one a rank).  Returns 0, or -1
 * with err (a row whose scaling is none, an nz that is not ranks x
 * nz_local). */
int ranks_request_of(const ranks_row *r, const model_lattice *lat, int devices, ranks_request *rq, char *err,
                     size_t err_len);

/* The measured one-device MLUPS a multi-rank row's efficiency is against:
 * a one-rank row of lbm.csv of the same backend, scheme and precision on
 * the reference lattice (weak: nx x ny x nz_local; strong: the whole one),
 * the same scaling run first (make bench measures it beside the others),
 * then any one-device row there, at the row's block size where one is,
 * else the fastest.  0 when there is none. */
double ranks_baseline_mlups(const lbp_table *lbm, int row, const ranks_row *r);

#endif
