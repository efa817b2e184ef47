/* The model's two errors in a few lines: per backend and precision, for
 * lattices of 128^3 cells and more and for smaller ones, the points and
 * their mean and worst |error|, at the kernel's launch (the full
 * prediction, error_pct) and before the kernel (holdout.h).  validate
 * fills it from its points, summary from model.csv; both print it as text
 * and JSON. */
#ifndef MODEL_ERRORTABLE_H
#define MODEL_ERRORTABLE_H

#include <stdio.h>

#include "json.h"

enum { MODEL_AT_LAUNCH, MODEL_BEFORE_KERNEL, MODEL_ERROR_KINDS };
enum { MODEL_LARGE, MODEL_SMALL, MODEL_SIZE_CLASSES }; /* >= 128^3, below */

typedef struct {
    int points;
    double sum_abs, worst_abs; /* |error| in %, of the finite errors */
} model_error_tally;

typedef struct {
    char backend[16], precision[8];
    model_error_tally t[MODEL_SIZE_CLASSES][MODEL_ERROR_KINDS];
} model_error_group;

#define MODEL_MAX_ERROR_GROUPS 24

typedef struct {
    model_error_group g[MODEL_MAX_ERROR_GROUPS]; /* in order of appearance */
    int n;
    int before_missing; /* points without an error before the kernel (a model.csv
                           written before its column) */
} model_error_table;

/* One point: its errors in % (before: NAN where not known). */
void model_error_table_add(model_error_table *t, const char *backend, const char *precision, double cells,
                           double at_launch_pct, double before_pct);

void model_error_table_print(FILE *f, const model_error_table *t);

/* An array `key` of one object per group and size class with points:
 * backend, precision, lattices ("large": 128^3 and more, "small"), points,
 * at_launch and before_kernel (mean_abs_error_pct, worst_abs_error_pct;
 * null where not known). */
void model_error_table_json(model_json *j, const char *key, const model_error_table *t);

#endif
