/* Piecewise-linear interpolation between measured points, which never
 * extrapolates: outside the measured range it clamps to the edge and says
 * so, so the caller can mark the prediction within_measured=no. */
#ifndef MODEL_INTERP_H
#define MODEL_INTERP_H

typedef struct { double x, y; } model_point;
/* Points sorted by x (model_points_prepare); owned, free .p. */
typedef struct { model_point *p; int n; } model_curve;

/* Sort by x and merge points with the same x (their mean y).  Returns the
 * new count. */
int model_points_prepare(model_point *p, int n);
/* Tukey's running median of three over y (prepared points, n >= 3; fewer
 * are left alone): an inner point above or below both its neighbours takes
 * the nearer of them, a run of two or more stays.  The ends are kept: the
 * first is a sweep's aligned point, and a curve that saturates (the
 * misalignment sweeps, 0/10/19) would bend any rule that extrapolates. */
void model_points_median3(model_point *p, int n);
/* y at x (n >= 1, prepared).  *clamped is set to 1 when x lies outside
 * [first x, last x] (relative tolerance 1e-9), left unchanged otherwise. */
double model_interp(const model_point *p, int n, double x, int *clamped);

#endif
