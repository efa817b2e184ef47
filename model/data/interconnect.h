/* What the model reads of the interconnect probe (data/FORMAT.md):
 *   interconnect-fit.csv  path,rank_a,rank_b,direction,latency_us,
 *                         bandwidth_gbs,r2,points: T(s) = latency + s /
 *                         bandwidth per path and pair of ranks, one-way or
 *                         both-ways (a message each way at once), s the
 *                         bytes moved: the message one-way, both messages
 *                         both-ways (stream --interconnect); direction
 *                         ring: ranks 0 .. rank_b, each exchanging a
 *                         message with both ring neighbours at once, s a
 *                         rank's four messages
 *   interconnect.csv      the probe's points (the median time of a
 *                         message of `bytes`: each way at once both-ways,
 *                         to and from both neighbours in a ring), which a
 *                         fit is read at inside its measured sizes; its
 *                         device_a/b and uuid_a/b say which ranks shared a
 *                         device.
 * Both files' column beside (optional: a file without it is all none)
 * says what ran on the devices while the exchange was timed: none (alone)
 * or copy (stream --interconnect --beside copy: a STREAM copy on every
 * rank's device for the whole exchange, the rings only), each its own fit;
 * a row beside may say paired_ratio_median, its runs' ratio to runs of the
 * same exchange alone timed each just before (interconnect_ratio).
 * Paths: host (device -> host -> MPI -> host -> device, measured as one),
 * host-mpi (MPI between host buffers alone: the host path is then d2h +
 * host-mpi + h2d), peer (CUDA IPC peer copies), mpi (CUDA-aware MPI).
 * Rows of other paths are kept and never matched. */
#ifndef MODEL_INTERCONNECT_H
#define MODEL_INTERCONNECT_H

#include <stddef.h>

#include "scaling.h"

typedef struct {
    double bytes;           /* interconnect.csv's message */
    double us;              /* its median */
    double ratio;           /* beside a copy: the median ratio of its runs
                               to the runs alone paired with them
                               (paired_ratio_median); 0 where none */
} interconnect_point;

/* What ran beside the exchange the probe timed (column beside) */
typedef enum { INTERCONNECT_ALONE, INTERCONNECT_BESIDE_COPY, INTERCONNECT_BESIDE_KINDS } interconnect_beside;
extern const char *const interconnect_beside_names[]; /* "none", "copy", NULL */

typedef struct {
    char path[16];
    interconnect_beside beside;
    int rank_a, rank_b;
    int both_ways;          /* 1 both-ways, 0 one-way or ring */
    int ring;               /* a ring's ranks (rank_b + 1), 0 for a pair */
    scaling_link fitted;    /* as in the file: s the bytes moved */
    scaling_link link;      /* per message of s bytes each way: both-ways
                               moves 2 s, so half the fitted bandwidth;
                               a ring: per 2 s each way, a rank's faces */
    double r2;
    int points;
    int line;               /* in the file, for messages */
    interconnect_point *measured; /* the probe's points of this path, pair
                                     (or ring) and direction, bytes
                                     ascending; NULL without any */
    int n_measured;
} interconnect_fit;

typedef struct {
    char file[600];
    interconnect_fit *fits;
    int n;
} interconnect_fits;

/* dir/interconnect-fit.csv, and each fit's points from
 * dir/interconnect.csv where that file exists (without it every fit is
 * read as fitted).  Returns LBP_TABLE_OK, LBP_TABLE_MISSING (err names the
 * fit's file), or LBP_TABLE_MALFORMED (err: file, line and what was
 * expected: a direction other than one-way|both-ways|ring, a ring whose
 * rank_a is not 0, a bandwidth <= 0, a negative latency, no rows; a point
 * whose bytes are not a whole number > 0 or whose median is not > 0, two
 * points of one fit at the same bytes; a beside other than none or copy;
 * a paired_ratio_median given but not a number > 0). */
int interconnect_load(interconnect_fits *f, const char *dir, char *err, size_t err_len);
void interconnect_free(interconnect_fits *f);

/* How interconnect_us read a time */
typedef struct {
    int within_measured;    /* 1: the probe's points; 0: the fit */
    double message;         /* the probe's message for those bytes */
    double lo, hi;          /* the points read (equal: one hit exactly),
                               or the measured range the message is outside
                               (0, 0: no points) */
} interconnect_reading;

/* The time of x's link (per message of `bytes` each way; a ring: a rank's
 * 2 s, its faces) as the probe measured it: the medians of x's points at
 * the probe's message (bytes; a ring's: bytes / 2, one face), interpolated
 * between the two measured sizes around it, log time linear in log size
 * (exact where the curve is a power of the size: flat at the latency,
 * proportional at the bandwidth); outside the measured sizes, or without
 * points, the fit (x->link).  how may be NULL. */
double interconnect_us(const interconnect_fit *x, double bytes, interconnect_reading *how);

/* The ratio beside / alone of x's points paired with runs alone
 * (paired_ratio_median) at the probe's message for bytes (as
 * interconnect_us: a ring's bytes / 2), interpolated as interconnect_us
 * interpolates medians; outside the measured sizes the nearest size's (a
 * ratio of two times that both level off at the latency or the bandwidth
 * levels off as well).  0 where any of x's points has no ratio (files
 * written before the probe paired its runs: read the medians beside
 * instead).  how may be NULL. */
double interconnect_ratio(const interconnect_fit *x, double bytes, interconnect_reading *how);

/* Whether the fit has any row of path (alone or beside) */
int interconnect_has_path(const interconnect_fits *f, const char *path);

/* The pair's fit along path (either order) alone, both-ways where fitted,
 * else one-way; NULL when the pair was not measured.  Rings are no pair's. */
const interconnect_fit *interconnect_pair(const interconnect_fits *f, const char *path, int a, int b);

/* R ranks in a ring exchange with r - 1 and r + 1 (mod R): the path's ring
 * fit of R ranks where measured (all ranks exchanging at once, as the
 * lattice does); else the pair whose fit is slowest at bytes, a pair not
 * measured taking the slowest measured pair of the path and counting in
 * *missing.  NULL when the path has no row. */
const interconnect_fit *interconnect_ring(const interconnect_fits *f, const char *path, int ranks, double bytes,
                                          int *missing);
/* The same among the fits measured beside `beside` (interconnect_ring:
 * INTERCONNECT_ALONE); NULL when the path has none so measured. */
const interconnect_fit *interconnect_ring_beside(const interconnect_fits *f, const char *path, int ranks,
                                                 double bytes, interconnect_beside beside, int *missing);

/* The devices the probe's ranks ran on, from dir/interconnect.csv: distinct
 * uuid_a/uuid_b (device_a/device_b where a uuid is unknown), and the ranks
 * (largest rank + 1).  Returns LBP_TABLE_OK, _MISSING or _MALFORMED. */
int interconnect_devices(const char *dir, int *devices, int *ranks, char *err, size_t err_len);

#endif
