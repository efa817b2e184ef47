/* Timing statistics: warm-up, repetitions, min/median/max, and warnings
 * when a timing is near the timer's resolution or repetitions scatter. */
#ifndef LBP_STATS_H
#define LBP_STATS_H

#include "device.h"

typedef struct {
    int n;
    double min, q1, median, q3, max, mean;
} lbp_stats;

/* Statistics of n samples (the array is sorted in place). */
lbp_stats lbp_stats_of(double *samples, int n);

/* Scatter of repetitions: (max - min) / median. */
double lbp_scatter(const lbp_stats *s);

typedef struct {
    int warmup;          /* untimed runs first (default 2) */
    int reps;            /* timed runs (default 10) */
    double scatter_warn; /* warn above this (max-min)/median, default 0.05 */
    const char *what;    /* name used in warnings */
    int retries;         /* measure all reps again, up to this often, while they scatter */
} lbp_timing;
#define LBP_TIMING_DEFAULT {2, 10, 0.05, "measurement", 0}

/* On a CPU, runs of this many ms and more (the last warm-up, on the host
 * clock) are long: at most LBP_CPU_LONG_RUN_REPS repetitions, no retries
 * (stats.c says why). */
#define LBP_CPU_LONG_RUN_MS 10.0
#define LBP_CPU_LONG_RUN_REPS 3

/* Run `run(ctx)` warmup times, then reps times each between device timer
 * start and stop; returns the statistics in ms (on a CPU, runs of
 * LBP_CPU_LONG_RUN_MS or more: fewer reps, no retries).  Where the repetitions
 * scatter more than scatter_warn (another process took the device or a
 * core for a while: the host of a shared CPU), the reps run again, up to
 * `retries` times, and the set with the lowest median is kept.  Warns on
 * stderr when the median is under 20 timer ticks or the kept set still
 * scatters more than scatter_warn. */
lbp_stats lbp_time_runs(lbp_device *d, void (*run)(void *ctx), void *ctx, const lbp_timing *t);

/* Host wall clock in seconds (monotonic). */
double lbp_now(void);

/* Least-squares line y = slope*x + intercept, with r^2 and the rms of the
 * residuals. */
typedef struct { double slope, intercept, r2, rms; int n; } lbp_fit;
lbp_fit lbp_fit_line(const double *x, const double *y, int n);
/* 1 where the fitted slope is above zero and clear of the scatter about
 * the line: its t statistic, sqrt(r^2 (n - 2) / (1 - r^2)), at least 2
 * (about 95 %; two points: the sign alone).  A cost per unit read off a
 * slope that is not is noise, and a ratio over it means nothing. */
int lbp_fit_slope_clear(const lbp_fit *f);

#endif
