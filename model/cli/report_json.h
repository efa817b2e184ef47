/* predict's and validate's results as JSON (--json): the same structures
 * report.h prints as text, written into an open object of a model_json. */
#ifndef MODEL_REPORT_JSON_H
#define MODEL_REPORT_JSON_H

#include "json.h"
#include "predict.h"
#include "validation.h"

/* predict: device, backend, kernel, lattice, the three levels (level 3: the
 * path that answered and each other path that applies), within_measured,
 * read_instead (each fallback: kind, asked, read, why) and notes. */
void model_json_prediction(model_json *j, const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                           const model_prediction *p);

/* validate: "points" (one object per measured point) and "large"/"small"
 * (worst |error|, bar, over; the worst null where no point was measured). */
void model_json_validation(model_json *j, const model_validated_point *pts, int n, const model_error_bars *bars,
                           const model_validation_stats *s);

#endif
