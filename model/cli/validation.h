/* model validate's numbers: each measured point beside its prediction, and
 * what they add up to.  Computing only; report.h prints them. */
#ifndef MODEL_VALIDATION_H
#define MODEL_VALIDATION_H

#include "corrections.h"
#include "errortable.h"
#include "predict.h"
#include "ranks_rows.h"

typedef struct {
    char backend[16], scheme[16], precision[8], stores[16];
    long long nx, ny, nz, block_size;
    int cells_per_thread; /* lbmkernels': 0 a row per thread */
    model_launch_kind launch; /* lbm.csv's launch column; linear where it has none */
    long long local_bytes; /* lbm.csv's: the kernel's spilled bytes per thread; -1 unknown or no column */
    double cells, measured;
    double error_pct; /* 100 (predicted - measured) / measured: > 0 the model is optimistic */
    model_prediction pr;  /* at the kernel's launch: every probe read */
    /* before the kernel (holdout.h): the same prediction without the probes
     * measured at its launch and lattice */
    double before_mlups, before_error_pct;
    model_full_path before_path;
    int before_within_measured;
    /* each correction's effect on the prediction before the kernel
     * (effects.h): its MLUPS with the correction over without */
    double before_effect[MODEL_CORRECTIONS];
    ranks_row ranks; /* lbm.csv's multi-rank columns: one rank here (several: ranks_validate.h) */
} model_validated_point;

/* |error| allowed, in percent: from MODEL_LARGE_CELLS (128^3) on, and below. */
typedef struct {
    double large, small;
} model_error_bars;
/* The bars not given (below 0 or NaN), by the device's kind: a GPU's 5 %
 * from 128^3 and 10 % below, a CPU's 10 % and 15 % (cmd_validate.c says
 * why). */
model_error_bars model_default_bars(model_error_bars given, int cpu);

typedef struct {
    int points, over_large, over_small;
    double worst_large, worst_small;
    int small;                      /* points below 128^3 */
    double small_error_sum;         /* their |error|, summed */
    double small_alternative_sum;   /* the same, of the other way to combine memory and launches */
    int alternative_is_sum;         /* that other way: memory + launch (1), the size-sweep path (0) */
    int geometry;                   /* points the geometry path answered */
    double geometry_error_sum;      /* their |error|, summed */
    int geometry_with_threads;      /* of those, the points the threads-sweep path answers too */
    double geometry_threads_sum;    /* its |error| there, summed */
    int fallback_points[MODEL_FALLBACK_KINDS]; /* points that read a fallback of each kind */
    int predicted_above_roofline, measured_above_roofline; /* points flagged so */
    int spilling;                   /* points flagged spills */
    /* before the kernel (holdout.h) */
    int before_over_large, before_over_small;
    double before_worst_large, before_worst_small;
    int before_paths[MODEL_FULL_PATHS]; /* points each path answered */
} model_validation_stats;

/* What a point is flagged for, never silently: a prediction above the
 * roofline of its working set, a measurement above it; a kernel that keeps
 * local memory (spilled registers), whose traffic to it no probe measured
 * and the prediction leaves out. */
enum { MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE = 1, MODEL_FLAG_MEASURED_ABOVE_ROOFLINE = 2, MODEL_FLAG_SPILLS = 4 };
int model_point_flags(const model_validated_point *v);
/* A prediction's own: MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE where level 3
 * passes the roofline of its working set (an input read past what was
 * measured, or a path that does not fit the kernel), else 0. */
int model_prediction_flags(const model_prediction *p);
/* A kernel of local_bytes per thread: MODEL_FLAG_SPILLS above 0, else 0. */
int model_spill_flag(long long local_bytes);
/* "predicted>roofline;measured>roofline;spills" (those set), or "none". */
const char *model_flags_text(int flags, char *buf, size_t len);

int model_point_is_large(const model_validated_point *v);
int model_point_over(const model_validated_point *v, const model_error_bars *bars);
/* The same of the error before the kernel. */
int model_point_over_before(const model_validated_point *v, const model_error_bars *bars);

void model_validation_stats_of(const model_validated_point *pts, int n, const model_error_bars *bars,
                               model_validation_stats *s);

/* The points' two errors per backend and precision (errortable.h). */
void model_validation_errors(const model_validated_point *pts, int n, model_error_table *t);

#endif
