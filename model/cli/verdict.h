/* model summary's closing lines, from model.csv and the run's meta files:
 *   best: per backend and precision, the fastest verified point at a
 *     lattice larger than the last-level cache (stream-meta.csv l2_bytes: a
 *     GPU's L2, a CPU's L3), its lattice beside it -- the one definition
 *     lbmkernels' lbm-meta.csv (best_mlups_*, best_lattice_*) and the
 *     README share;
 *   verdict: how many points are over the model's error bar
 *     (model-meta.csv's bars, 128^3 cells the boundary) of how many, per
 *     backend and precision and for several ranks; how many lie above
 *     their roofline (model.csv's flags); on a CPU the write-allocate
 *     verdict, its ratio and how close it came to going the other way. */
#ifndef MODEL_VERDICT_H
#define MODEL_VERDICT_H

#include <stdio.h>

#include "json.h"
#include "table.h"

/* t: model.csv read with at least backend, scheme, precision, nx, ny, nz,
 * cells, measured_mlups, roofline_mlups and error_pct; dir: its folder;
 * only: that backend's rows (NULL: every backend's). */
void model_best_print(FILE *f, const lbp_table *t, const char *dir, const char *only);
void model_verdict_print(FILE *f, const lbp_table *t, const char *dir, const char *only);
/* The same as "best" (an array) and "verdict" (an object) of j. */
void model_best_json(model_json *j, const lbp_table *t, const char *dir, const char *only);
void model_verdict_json(model_json *j, const lbp_table *t, const char *dir, const char *only);

#endif
