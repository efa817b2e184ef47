/* Host<->device transfers: h2d and d2h, pinned and pageable host memory,
 * over a size sweep, with the fit T(s) = latency + s / bandwidth (Calore §4). */
#ifndef STREAM_TRANSFER_H
#define STREAM_TRANSFER_H

#include "csv.h"
#include "device.h"
#include "stats.h"

typedef struct {
    const char *direction;   /* "h2d" or "d2h" */
    const char *host_memory; /* "pinned" or "pageable" */
    lbp_fit fit;             /* ms against bytes; rms: of the relative residuals */
    double latency_us;       /* intercept of the fit (NaN: no fit) */
    double gbs;              /* 1 / slope: asymptotic bandwidth, 10^9 B/s (NaN: no fit, or a slope <= 0) */
} stream_transfer_fit;

#define STREAM_TRANSFER_FITS 4 /* h2d/d2h x pinned/pageable */

/* Time every size in both directions with both host memories, verify the
 * round trip (data written h2d and read back d2h must match), write a
 * transfer.csv row per measurement, fit each curve.  reps: fixed count when
 * > 0, else chosen per size.  Returns 0, or 1 with why on a failed check. */
int stream_transfer_sweep(lbp_device *d, const int64_t *sizes, int n_sizes, int reps, int quick,
                          lbp_csv *csv, stream_transfer_fit fits[STREAM_TRANSFER_FITS],
                          char *why, size_t why_len);

/* The fit alone, over n (bytes, ms) points, least squares on the relative
 * error; direction and host_memory are left as they were. */
void stream_transfer_fit_points(stream_transfer_fit *f, const double *bytes, const double *ms, int n);

#endif
