/* Before the kernel: the prediction a user gets for a kernel not yet
 * written.  The model's full prediction may read probes measured at a
 * kernel's own launch and lattice, after the kernel ran (a diagnosis of a
 * kernel that exists); the holdout is the same level-3 prediction from the
 * inputs without them (doc/model.md, "Validation: two errors"):
 *
 *   geometry     membench-geometry.csv's rows at the point's launch: its
 *                access width (word size x cells per thread), block size,
 *                forced blocks per SM and thread count -- the rows the
 *                geometry path reads there (in this backend's rows and in
 *                those it borrows); its other thread counts stay
 *   threads      the threads sweep's rows (a CPU's rows sweep too, which
 *                the threads path reads for a row per work-item) at the
 *                point's thread count, launched or working, every variant
 *                and word size; neighbouring counts stay and are read
 *                between, as a kernel of a new size would be
 *   launch       membench-launch.csv's probes at the kernel's launch on
 *                the lattice
 *
 * The tile sweep is not lattice-specific (one 256 x 256 x Z lattice at a
 * fixed thread count) and stays.  A filter of the inputs, not a branch in
 * the paths: every path reads the filtered rows as it reads any others. */
#ifndef MODEL_HOLDOUT_H
#define MODEL_HOLDOUT_H

#include <stddef.h>

#include "inputs.h"
#include "kernel.h"
#include "predict.h"

/* What is held out for one point, from its kernel and lattice. */
typedef struct {
    int width;              /* access width, bytes: word size x cells per thread */
    int block_size;         /* 0 unknown */
    int blocks_requested;   /* blocks per SM (the geometry sweep forces the kernel's); 0 unknown */
    double threads;         /* the launch's threads (idle ones included) */
    double working_threads; /* of them, the ones that update cells */
    double cells;           /* the lattice's */
    const model_kernel *k;  /* for the launch probes' match */
    const model_lattice *lat;
} model_holdout;

model_holdout model_holdout_of(const model_kernel *k, const model_lattice *lat);

/* How many rows of each kind the holdout took out. */
typedef struct {
    int geometry, threads, launch_probes;
} model_held_out;

/* A view of in without the held-out rows: its probe rows, borrowed rows
 * and launch probes are its own (free with model_holdout_inputs_free),
 * everything else is in's. */
typedef struct {
    model_inputs in;
    model_held_out held;
} model_holdout_inputs;

/* 0, or -1 out of memory (err says so). */
int model_holdout_inputs_of(const model_inputs *in, const model_holdout *h, model_holdout_inputs *out, char *err,
                            size_t err_len);
void model_holdout_inputs_free(model_holdout_inputs *v);

/* model_predict on the view without the point's own probes; *held (may
 * be NULL) what was taken out, also said in out's notes.  at_launch (may
 * be NULL): model_predict's answer on in, copied where nothing is held out
 * (the same inputs give the same prediction; validate saves a second one).
 * 0, or -1 with err. */
int model_predict_before_kernel(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                                const model_prediction *at_launch, model_prediction *out, model_held_out *held,
                                char *err, size_t err_len);

#endif
