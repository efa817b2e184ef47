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
#define STREAM_TRANSFER_SIZES 64 /* sizes of one curve, at most */

/* A device buffer for transfers up to max_bytes, host memory of one kind at
 * a time, and the points measured so far ([1]: pinned, [0]: pageable). */
typedef struct {
    lbp_device *d;
    lbp_buf *dev;
    int64_t max_bytes;
    int pinned;            /* the kind src and dst are; -1 none yet */
    uint8_t *src, *dst;
    int n[2];
    double bytes[2][STREAM_TRANSFER_SIZES], ms[2][2][STREAM_TRANSFER_SIZES]; /* [pinned][d2h][point] */
} stream_transfers;

/* Returns 0, or 1 with why when the device has no room. */
int stream_transfers_open(stream_transfers *t, lbp_device *d, int64_t max_bytes, char *why, size_t why_len);
/* Time `bytes` h2d then d2h from pinned or pageable host memory, verify the
 * round trip (data written h2d and read back d2h must match), write a
 * transfer.csv row per direction.  reps: fixed count when > 0, else chosen
 * by size.  Returns 0, or 1 with why on a failed check. */
int stream_transfer_measure(stream_transfers *t, int pinned, int64_t bytes, int reps, int quick, lbp_csv *csv,
                            char *why, size_t why_len);
/* The curves' fits: pinned h2d, pinned d2h, pageable h2d, pageable d2h. */
void stream_transfers_fit(const stream_transfers *t, stream_transfer_fit fits[STREAM_TRANSFER_FITS]);
void stream_transfers_close(stream_transfers *t);

/* All of it: every size in both directions with both host memories, then
 * the fits.  Returns 0, or 1 with why. */
int stream_transfer_sweep(lbp_device *d, const int64_t *sizes, int n_sizes, int reps, int quick,
                          lbp_csv *csv, stream_transfer_fit fits[STREAM_TRANSFER_FITS],
                          char *why, size_t why_len);

/* Timed runs for a transfer of `bytes`: `fixed` when > 0, else more for
 * small transfers, which are latency-bound and noisy (quick: a fifth). */
int stream_transfer_reps(int64_t bytes, int fixed, int quick);

/* The fit alone, over n (bytes, ms) points, least squares on the relative
 * error; direction and host_memory are left as they were. */
void stream_transfer_fit_points(stream_transfer_fit *f, const double *bytes, const double *ms, int n);

#endif
