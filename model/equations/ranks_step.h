/* A kernel on R ranks: the one-device model (model_predict) at a rank's
 * slab, its interior and its border planes, the exchange from the
 * interconnect fit, put together by the scaling model (scaling.h).
 *
 * The exchange of a rank (both faces: 2 s each way, scaling.h), by path:
 * the path's ring fit of the row's R ranks where the probe measured one
 * (ranks 0 .. R - 1 each exchanging with both neighbours at once, as the
 * lattice does, so what all ranks copying or staging at once cost is in
 * it); else
 *   peer, mpi  the path's fit (both-ways where fitted), the slowest pair of
 *              the ring r <-> r + 1 (measured while the other ranks idle);
 *   host       the `host` fit where the whole staged path was measured as
 *              one; else three transfers: d2h + the `host-mpi` fit + h2d,
 *              d2h and h2d the pinned transfer fits of stream-meta.csv.
 *              The `host` fit already holds all three stages: stream
 *              --interconnect times lbp_exchange_run itself, whose host
 *              path (core/exchange.c, run_host) runs them in series each
 *              step: a copy per region from the device into a pinned host
 *              buffer on the exchange queue, one wait, MPI_Irecv/Isend
 *              between the pinned buffers, one MPI_Waitall, a copy per
 *              region back to the device, one wait.  So nothing is added
 *              to it (the transfer fits again would count d2h and h2d
 *              twice).  What the probe's case and a rank's exchange do not
 *              share: the probe sends one message of 5 regions (one face's
 *              populations), a rank one message per face (two, each of 5
 *              regions, to the one neighbour with two ranks) in the same
 *              run; the bytes, the stages and the waits are the same, the
 *              copies per stage twice as many.  The fit at 2 s counts its
 *              latency once, the lower bound of the two (2 T(s) the upper).
 *              On more than 2 ranks the two links lead to two neighbours,
 *              and run_host still posts both links' copies, then both
 *              links' messages, then both links' copies back, each stage
 *              with one wait: a rank's work is the same as on 2 ranks, so
 *              the pair fit stands for it as it does there; what differs is
 *              every rank staging at the same time, which only a ring fit
 *              holds.
 * With overlap (asked, and the slab has an interior) the exchange runs
 * beside the interior kernel, so the path's fits measured beside the
 * probe's copy kernel (interconnect.csv's beside copy: the rings timed
 * while every device streams its memory) take the place of the alone ones
 * where the folder has them, through the same lookup; where it has none
 * for the path, the alone fits with a note (exchange_beside 0).  Where
 * the fit beside says the ratio of its runs to runs alone paired with them
 * (interconnect_ratio), the exchange is the alone ring's reading times
 * that ratio at the face (exchange_ratio): the alone sweep's own curve,
 * scaled by what the copy adds at the same moment, so that the host's
 * drift between the alone sweep and the beside sweep cancels; without the
 * ratio (older folders), the medians beside.  Without overlap, alone.
 * Every fit is read through interconnect_us: the probe's medians at the
 * exchange's message inside the measured sizes, the fitted line only
 * outside them (a clamp, within_measured 0).
 * A projection (nodes > 1) takes the link between nodes from the caller:
 * device to device for peer and mpi (peer copies do not cross nodes: the
 * link stands for CUDA-aware MPI over it), between the host buffers for
 * host (plus d2h and h2d).  A prediction is a projection where it uses a
 * link nobody measured: nodes > 1, or a ring pair the fit lacks. */
#ifndef MODEL_RANKS_H
#define MODEL_RANKS_H

#include "inputs.h"
#include "interconnect.h"
#include "kernel.h"
#include "predict.h"
#include "scaling.h"

typedef struct {
    scaling_case sc;            /* word_bytes is taken from the kernel */
    char exchange[8];           /* host, peer, mpi */
    int nodes;                  /* 1: the measured node; more: a projection */
    int ranks_per_node;         /* G; nodes x G = ranks */
    scaling_link between;       /* the link between nodes (nodes > 1) */
} ranks_request;

typedef struct {
    scaling_slab slab;
    scaling_times times;
    scaling_step step;
    model_prediction slab_pr;   /* the one-device model of a rank's slab */
    double within_us;           /* a face's exchange inside a node */
    double between_us;          /* across nodes (projection), else 0 */
    int projection;
    int missing_pairs;          /* ring pairs the fit lacks */
    interconnect_beside exchange_beside; /* what the fit read within the
                                   node was measured beside */
    double exchange_ratio;      /* the paired ratio beside / alone the alone
                                   ring's reading was multiplied by (0:
                                   none; the fit's own reading) */
    char route[400];            /* how the exchange was put together */
    model_provenance prov;      /* the one-device model's clamps, fallbacks
                                   and notes over the pieces, and ours */
} ranks_prediction;

enum { RANKS_INPUT = -1, RANKS_BAD_CASE = -2 };

/* lat: the kernel's launch (occupancy, blocks per SM, block size) and the
 * row padding (stored_cells / cells); its sides are ignored (rq->sc has
 * them).  Returns 0, RANKS_BAD_CASE (err: the case cannot be cut: ranks
 * that do not divide nz, ...) or RANKS_INPUT (err: a path the fit lacks, a
 * transfer fit stream-meta.csv lacks, the one-device model's error). */
int ranks_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                  const interconnect_fits *fits, const ranks_request *rq, ranks_prediction *out, char *err,
                  size_t err_len);

/* The path a user means by default: of host, peer and mpi, the fastest
 * the fit has at bytes (its slowest pair); NULL when it has none. */
const char *ranks_default_exchange(const interconnect_fits *fits, double bytes);

#endif
