/* What the model prints of runs on several ranks: a prediction (model
 * predict --ranks) as text, CSV or JSON, a projection marked in every text
 * line and in a column/key of its own; and the multi-device block of model
 * summary, with the targets of the multi-device benchmark. */
#ifndef MODEL_RANKS_PRINT_H
#define MODEL_RANKS_PRINT_H

#include <stdio.h>

#include "json.h"
#include "ranks_step.h"
#include "table.h"

typedef enum { RANKS_TEXT, RANKS_CSV, RANKS_JSON } ranks_format;

/* Targets of the multi-device benchmark (make bench's summary says whether
 * each is met; no test holds a run to them) */
#define RANKS_TARGET_EFFICIENCY_PCT 95.0 /* weak scaling, peer exchange, overlap */
#define RANKS_TARGET_GPUS 8
#define RANKS_TARGET_ERROR_PCT 5.0       /* model against measured, per rank */

/* A prediction of `kernel` (a name: "pull fp32") on device/backend.  CSV
 * and JSON: begin once, one per prediction, end once. */
void ranks_print_begin(FILE *f, ranks_format fmt);
void ranks_print_one(FILE *f, ranks_format fmt, const char *device, const char *backend, const char *kernel,
                     const ranks_request *rq, const ranks_prediction *p, int first);
void ranks_print_end(FILE *f, ranks_format fmt);

/* The multi-device block of model summary from model.csv (t, read by the
 * caller): per backend, scaling, exchange and overlap, the fastest scheme
 * at the most ranks, measured against predicted, the efficiencies; the
 * worst error; whether each target is met.  Prints nothing for a file
 * without multi-rank rows.  Returns 0, or -1 with err on a bad number. */
int ranks_summary_print(FILE *f, const lbp_table *t, char *err, size_t err_len);
/* The same block as the member "several_devices" of summary's JSON object
 * (groups, efficiency_target, error_target); nothing for a file without
 * multi-rank rows.  Returns 0, or -1 with err on a bad number. */
int ranks_summary_json(model_json *j, const lbp_table *t, char *err, size_t err_len);

#endif
