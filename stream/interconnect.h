/* The interconnect between ranks (stream --interconnect, under mpirun):
 * for each pair of ranks a < b and each exchange path, the time of one
 * message a -> b (one-way) and of a message each way at once (both-ways)
 * over a size sweep that includes a D3Q19 halo's own sizes, each message
 * moved by core/exchange exactly as the halo exchange moves it (split into
 * `regions` parts, as a face's 5 crossing populations), verified, and
 * fitted T(s) = latency + s / bandwidth as the host transfers are (Calore
 * §4; stream_transfer_fit_points), s counting the bytes moved: the message
 * one-way, both messages both-ways.  Then direction `ring`, rank_a 0 and
 * rank_b R - 1: ranks 0 .. R - 1 (R = 2, 4, 8, ... and all) each send the
 * message to both ring neighbours and receive one from each, all at once,
 * as the lattice's exchange does on R ranks (its two faces in one run; all
 * ranks together, where a pair leaves the others idle); s counts a rank's
 * four messages, the time is the slowest rank's.  Beside (`beside` copy):
 * the rings again, each rank's device running a memory-bound copy kernel
 * on its first queue for the whole of every timed exchange, as the
 * lattice's interior kernel runs beside the exchange with overlap on (the
 * exchange's copies then share the device's memory with it); alone rows
 * say `beside` none.  Each run beside the copy is paired with a run of
 * the same exchange alone just before it (every rank alike), so that both
 * see the same state of a host whose speed drifts over minutes: a row
 * beside says the median of those alone runs (paired_alone_us_median) and
 * of the ratios beside / alone run by run (paired_ratio_median), which the
 * model multiplies into the alone sweep's reading; rows alone leave both
 * empty. */
#ifndef STREAM_INTERCONNECT_H
#define STREAM_INTERCONNECT_H

#include <stdint.h>

#include "cli.h"
#include "csv.h"
#include "device.h"
#include "exchange.h"

#define STREAM_IC_MAX_SIZES 64

/* What runs on the devices while an exchange is timed */
typedef enum { STREAM_IC_ALONE, STREAM_IC_BESIDE_COPY, STREAM_IC_BESIDE_KINDS } stream_ic_beside;
extern const char *const stream_ic_beside_names[]; /* "none", "copy", NULL */

typedef struct {
    int64_t sizes[STREAM_IC_MAX_SIZES]; /* message bytes */
    int nsizes;
    int regions;                        /* parts per message (5: a D3Q19 face) */
    int reps;                           /* timed runs per size; 0: by size */
    int quick;
    int paths[LBP_EXCHANGE_PATHS];      /* none given: every path available here */
    int npaths;
    int beside[STREAM_IC_BESIDE_KINDS]; /* 1: time the cases so (none given: every kind) */
    int64_t beside_bytes;               /* the copy's array; 0: by device (GPU 256 MiB, CPU 16 MiB) */
    int plant_error;                    /* tests: the last rank's copy beside is corrupted after
                                           its runs, so its check must fail the probe on every rank */
} stream_ic_opts;

/* The sizes timed beside a copy: those of sizes[] from 256 KiB to 16 MiB
 * (a face of 128^2 to 512^2 planes and the powers of 4 around them), or all
 * of them where none is.  Returns the count. */
int stream_ic_beside_sizes(const int64_t *sizes, int n, int64_t *out);

/* The default sweep: powers of 4 from 4 KiB to 64 MiB (quick: to 1 MiB)
 * and the halo messages of 128^2, 256^2 and 512^2 planes (quick: 128^2) in
 * fp32 and fp64.  Returns the count. */
int stream_ic_default_sizes(int64_t *out, int quick);

/* The columns of interconnect.csv and interconnect-fit.csv (after device,
 * backend). */
#define STREAM_IC_HEADER                                                                                   \
    "path,rank_a,rank_b,device_a,device_b,uuid_a,uuid_b,direction,bytes,reps,us_min,us_median,us_max,gbs_median," \
    "paired_alone_us_median,paired_ratio_median,beside"
#define STREAM_IC_FIT_HEADER "path,rank_a,rank_b,direction,latency_us,bandwidth_gbs,r2,points,beside"

/* Collective (every rank).  Rows go to rows and fits on rank 0 (NULL
 * elsewhere).  Returns 0, or 1 with why on every rank when a message
 * arrived wrong. */
int stream_interconnect(lbp_device *d, const stream_ic_opts *o, lbp_csv *rows, lbp_csv *fits, char *why,
                        size_t why_len);

/* stream --interconnect: the paths asked for must exist (else exit 2 on
 * every rank); rank 0 writes interconnect.csv, interconnect-fit.csv and
 * interconnect-meta.csv into the result folder.  Collective; the exit
 * status. */
int stream_interconnect_main(lbp_device *d, const stream_ic_opts *o, const lbp_common *c, int argc, char **argv);

#endif
