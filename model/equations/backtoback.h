/* Level 3's reading of probes launched back to back (membench's threads
 * sweep, and the geometry sweep at the kernels' own launches): time per
 * launch over the thread count, log-log, so that a launch-bound stretch
 * (constant time) and a bandwidth-bound one (time proportional to threads)
 * both interpolate exactly. */
#ifndef MODEL_BACKTOBACK_H
#define MODEL_BACKTOBACK_H

#include "lookup.h"

typedef struct {
    model_curve c;        /* log(µs per launch) over log(threads) */
    double occupancy;     /* the rows' occupancy, -1 unknown */
    int blocks_requested; /* blocks per SM forced, 0: as many as fit */
    double capacity;      /* threads resident at once, 0 unknown */
} model_b2b_curve;

#define MODEL_MAX_B2B_CURVES 16

/* The threads sweep's aligned N=19 curves, one per forced blocks-per-SM
 * count, and where they were read. */
typedef struct {
    model_b2b_curve c[MODEL_MAX_B2B_CURVES];
    int n;
    int word_bytes, block_size; /* read */
    int points;                 /* over all curves */
} model_b2b_set;

/* Returns 1 with *set (free it), or 0 where the sweep was not measured.
 * fallbacks: PROBE_OR_OTHER_WORD to read another word size (scaled by
 * bytes: the caller scales). */
int model_b2b_threads(const model_inputs *in, int word_bytes, int block_size, unsigned fallbacks,
                      model_b2b_set *set, model_provenance *prov);
void model_b2b_free(model_b2b_set *set);

/* The same from the rows sweep (a CPU: R cells per work-item in a loop, as
 * a row kernel runs), its in-place curve where in_place (a kernel keeping
 * one lattice, whose stores go to the lines it read), at this word size
 * only.  0 where not measured (data from before the sweep). */
int model_b2b_rows(const model_inputs *in, int word_bytes, int block_size, int in_place, model_b2b_set *set,
                   model_provenance *prov);

typedef struct {
    double us;        /* per launch */
    double occupancy; /* the occupancy read */
    int two_d;        /* between two occupancy curves (1) or on one (0) */
} model_b2b_time;

/* Per-launch µs at `threads` for a kernel of this occupancy (<= 0 unknown):
 * between the curves either side of it where there are several with known
 * occupancy (an L2-resident lattice needs many more bytes in flight than a
 * DRAM-bound one, so the occupancy's effect there is not the DRAM-regime
 * ratio level 2 reads), else on the full-occupancy curve.  same_set > 0 (a kernel
 * keeping fewer lattices than the probe): the thread count whose working
 * set is the kernel's.  Sorts set's curves by occupancy. */
model_b2b_time model_b2b_launch_us(const model_inputs *in, model_b2b_set *set, double occupancy, double threads,
                                   double same_set, model_provenance *prov);

/* How this backend's launches relate to those of the backend whose sweeps
 * it borrows (in->borrowed), at access width w: *floor_us, the shortest
 * launch of its own threads sweep (the host's interval back to back: a
 * launch lasts the longer of that and the device's work), and *beta, its
 * time over the other's at its largest probe, at its own occupancy (the
 * device's work alone: bandwidth, not launches).  0 when either sweep is
 * missing. */
int model_b2b_borrowed_scale(const model_inputs *in, int word_bytes, int block_size, double *floor_us, double *beta);

/* One configuration's curve (an exact query, PROBE_X_LAUNCH); empty where
 * not measured.  *ops (may be NULL): the payload's operations per thread. */
model_curve model_b2b_curve_of(const model_inputs *in, const model_probe_query *q, int *ops);

/* µs at `threads` on curve c, -1 outside its thread counts. */
double model_b2b_inside_us(const model_curve *c, double threads);

#endif
