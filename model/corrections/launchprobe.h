/* membench --kernel FILE --size LIST --launch-probe LIST: a kernel's launch
 * (rows or grid of blocks, idle threads, rows that start inside a sector,
 * blocks per SM) on its own lattice, with N words read and written and none
 * misaligned, at a few N (membench-launch.csv, optional in a result
 * folder).  The model predicts those probes as it predicts the kernel; its
 * error on them at each N, on a line through N, is its error at the launch
 * carried to the kernel's own words (predict.c: launch_probe_level). */
#ifndef MODEL_LAUNCHPROBE_H
#define MODEL_LAUNCHPROBE_H

#include <stddef.h>

#include "inputs.h"
#include "kernel.h"
#include "predict.h"

#define MODEL_MAX_LAUNCH_PROBES 16

/* One row of membench-launch.csv. */
typedef struct model_launch_probe {
    model_launch_kind launch;
    int block[3];
    int cells_per_thread;
    long long nx, ny, nz;
    double blocks_per_cu, occupancy; /* reached; -1 unknown */
    int word_bytes, lattices, words;
    double mlups;
} model_launch_probe;

/* The columns membench-launch.csv must have; its rows of in->backend (t,
 * read by inputs.c with them) into in->launch_probes.  0, or -1 with one
 * line in err naming the file and line (a row that is no launch probe:
 * misaligned words, or words read and written apart). */
extern const char *const model_launch_probe_columns[];
int model_launch_probes_read(model_inputs *in, const lbp_table *t, char *err, size_t err_len);

/* Probe p measured at k's launch on lat: launch kind, block, cells per
 * thread, word size, lattices, the lattice, blocks per SM (or occupancy)
 * where both say them. */
int model_launch_probe_at(const model_launch_probe *p, const model_kernel *k, const model_lattice *lat);

/* The probes measured at k's launch on lat (launch kind, block, cells per
 * thread, word size, lattices, the lattice, blocks per SM where both say):
 * their word counts ascending and MLUPS (the mean of a count's rows, where
 * the launch was measured more than once), at most max.  Returns how many
 * counts. */
int model_launch_probes_at(const model_inputs *in, const model_kernel *k, const model_lattice *lat, int *words,
                           double *mlups, int max);

/* k with n words read and written, none misaligned, no arithmetic and no
 * shifted words: the launch probe at n as the model sees it. */
model_kernel model_launch_probe_kernel(const model_kernel *k, int n);

#endif
