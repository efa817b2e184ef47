/* model validate's rows of several ranks: each predicted from its own
 * lattice, ranks, path, overlap and scaling (ranks.h), beside what it
 * measured, for model.csv and the table validate prints. */
#ifndef MODEL_RANKS_VALIDATE_H
#define MODEL_RANKS_VALIDATE_H

#include <stdio.h>

#include "interconnect.h"
#include "ranks_step.h"
#include "ranks_rows.h"

/* model.csv's columns after the one-device ones (data/FORMAT.md) */
#define MODEL_CSV_RANKS_COLUMNS                                                                     \
    "ranks,exchange,overlap,scaling,nz_local,devices,measured_exchange_us,predicted_exchange_us," \
    "measured_efficiency_pct,predicted_efficiency_pct,projection"

typedef struct {
    char backend[16], scheme[16], precision[8];
    ranks_row cols;             /* lbm.csv's multi-rank columns */
    long long nx, ny, nz, block_size;
    int cells_per_thread;       /* lbmkernels': 0 a row per thread */
    double cells, measured;     /* the whole lattice's */
    double error_pct;           /* 100 (predicted - measured) / measured */
    double measured_eff_pct;    /* -1 without a one-rank row to compare with */
    ranks_request rq;
    ranks_prediction pr;
} ranks_point;

typedef struct {
    const char *dir;
    ranks_point *pts;
    int n;
    int fits_loaded;            /* 1 loaded, -1 missing, 0 not yet asked */
    interconnect_fits fits;
    int devices;                /* the probe's devices (interconnect.csv), 0 unknown */
    int skipped;                /* rows not predicted for want of the fit */
    char why_skipped[700];
} ranks_validation;

/* For up to `rows` points of dir's lbm.csv.  Returns 0, or -1 with err when
 * interconnect.csv is malformed. */
int ranks_validation_init(ranks_validation *v, const char *dir, int rows, char *err, size_t err_len);
void ranks_validation_free(ranks_validation *v);

/* Row `row` of lbm (ranks > 1: cols), its kernel k and its whole lattice
 * lat as validate reads them, predicted.  Without interconnect-fit.csv the
 * row is counted in skipped.  Returns 0, or -1 with err (a malformed fit,
 * a path it lacks, a row the lattice cannot be cut as it says). */
int ranks_validation_add(ranks_validation *v, const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                         const lbp_table *lbm, int row, const ranks_row *cols, char *err, size_t err_len);

/* A point's bar: large from a slab of 128^3 cells; several ranks on one
 * device are held to none (a check of the paths). */
int ranks_point_over(const ranks_point *p, double bar_large, double bar_small);

/* The table of points and the worst error; returns the points over. */
int ranks_validation_report(FILE *f, const ranks_validation *v, double bar_large, double bar_small);

/* model.csv's row of a point, after device,backend */
void ranks_point_csv(const ranks_point *p, char *out, size_t len);

#endif
