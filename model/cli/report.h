/* What predict and validate print: the computing is elsewhere (predict.h,
 * validation.h), so another form of output (JSON, say) is another
 * reporter of the same structures. */
#ifndef MODEL_REPORT_H
#define MODEL_REPORT_H

#include "predict.h"
#include "validation.h"

/* predict: the kernel and lattice, each level with what it read, the paths
 * of level 3 not used, and the provenance. */
void model_report_prediction(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                             const model_prediction *p);

/* validate: one line per point (measured, roofline, probe, full, error). */
void model_report_points(const model_validated_point *pts, int n, const model_error_bars *bars);

/* validate: the worst errors against the bars, the paths' mean errors, the
 * fallbacks read, and which backend borrowed another's sweeps. */
void model_report_validation(const model_validation_stats *s, const model_error_bars *bars,
                             const model_inputs *inputs, int n_inputs);

#endif
