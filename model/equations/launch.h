/* How a launch's blocks spread over the device: what the slowest SM or
 * core is given decides how long the launch lasts. */
#ifndef MODEL_LAUNCH_H
#define MODEL_LAUNCH_H

#include "inputs.h"
#include "kernel.h"
#include "predict.h"

/* A launch of `threads` in blocks of `block` as the thread count of an even
 * launch with the same load on its busiest SM: blocks go to the SMs in
 * turn, so a launch whose blocks do not fill every SM equally lasts as long
 * as one that gives every SM the busiest one's share.  Unchanged on a CPU
 * or where the SM count is unknown. */
double model_busiest_sm_threads(const model_inputs *in, double threads, int block);

/* A kernel of a row per thread on a CPU (cells_per_thread 0, lbmkernels'
 * CPU shape): its work-groups of block_size rows go to the cores in turn as
 * they free up, so a launch of few groups lasts as long as the busiest
 * core's rows take.  Returns that share over an even one; 1 elsewhere. */
double model_cpu_row_imbalance(const model_inputs *in, const model_kernel *k, const model_lattice *lat);

/* A kernel of a row per work-item on a CPU (cells_per_thread 0): 1. */
int model_row_per_thread(const model_inputs *in, const model_kernel *k);

/* Cells a thread updates (0 or 1 in the kernel: one). */
int model_cells_per_thread(const model_kernel *k);

/* Threads the kernel's launch starts on lat (v = cells per thread, along
 * x): linear, cells / v; rows, ny x nz rows of ceil(nx / v) threads, each
 * rounded up to the block size; grid, ceil(nx / v), ny and nz each rounded
 * up to the block's x, y and z size.  The threads past the lattice's edge
 * idle, but still hold an SM's slots and issue their index arithmetic and
 * bounds check, so the model reads its sweeps at this count.  A rows launch
 * of unknown block size: as linear. */
double model_launched_threads(const model_kernel *k, const model_lattice *lat);

/* The launched threads that update cells (a rows or grid launch: ceil(nx /
 * v) x ny x nz) over all launched: 1 for a linear launch, less where rows or
 * blocks are padded past the lattice's edge. */
double model_working_share(const model_kernel *k, const model_lattice *lat);

/* A rows or grid launch starts each lattice row's warps at the row's first
 * cell, so where a row's bytes (nx x s) are not a multiple of the 32-byte
 * sector a GPU moves, rows start at offsets inside a sector: a warp's access
 * there straddles one sector more than it fills, as the misaligned probe's
 * access (shifted by a word) does, whatever the offset.  The rows fall into
 * classes by offset, each a share of the rows (equal over offsets): in a
 * row at offset o the words a linear launch reads aligned are misaligned
 * unless o is a whole sector, and the x + 1 ones unless o + s is.  Each
 * class: its share and its L and M per phase.  One class of weight 1 and
 * the kernel's own L and M for a linear launch, rows of whole sectors, a CPU
 * (no warps) or a grid whose blocks' rows are neither whole warps nor whole
 * sectors (a piece of 4 cells of 4-byte words straddles by where its block
 * sits, not by the row's offset alone).  A grid of 8-cell blocks of 4-byte
 * words takes the classes: each block's 32-byte piece of a row starts at
 * the row's offset.  Returns the count. */
#define MODEL_SECTOR_BYTES 32
#define MODEL_MAX_ROW_CLASSES 3
typedef struct {
    double weight;
    int misaligned_reads[MODEL_MAX_PHASES], misaligned_writes[MODEL_MAX_PHASES];
} model_row_class;
int model_row_classes(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                      model_row_class out[MODEL_MAX_ROW_CLASSES]);

/* Words a row or a plane away.  A linear launch's warps move contiguous
 * runs of each array; a word read or written at (y + dy, z + dz) is that
 * run shifted by dy rows and dz planes, which lands inside a sector where
 * dy R + dz P (R, P: a stored row's and plane's bytes) is not a multiple of
 * 32 bytes: the run then straddles one sector more than it fills, as the
 * misaligned probe's run shifted by a word does.  Counted per phase: the
 * words whose shift keeps x (a whole word or vector; shifted in x they are
 * misaligned anyway); apart, at v > 1 cells per thread with the
 * misaligned words one per cell and only the writes misaligned (push's
 * exchange: those stores are aligned vectors at their row), the x-shifted
 * writes a row or plane shift straddles (exchanged).  0 for kernels
 * without velocities and shifts, a CPU (no warps), or a rows or grid
 * launch (whose rows' own offsets model_row_classes prices). */
typedef struct {
    int reads, writes, exchanged;
} model_row_shifted;
model_row_shifted model_row_shifted_words(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                                          int phase);
/* A stored row's bytes (nx with its padding, times the word size). */
long long model_row_bytes(const model_kernel *k, const model_lattice *lat);

/* A grid launch whose blocks are narrower in x than a warp (or not whole
 * warps wide): each warp's access covers pieces of several rows. */
int model_warps_span_rows(const model_inputs *in, const model_kernel *k);

/* Whether each piece of a row a warp takes starts where the row does or a
 * whole number of sectors past it: a rows launch, a grid whose blocks are
 * whole warps wide, or one narrower whose blocks' rows (BX cells of v
 * words) are whole sectors (8 x 8 x 4 blocks of 4-byte words: 32 bytes).
 * Then a row's offset in its sector decides, as for whole rows, which of
 * its pieces straddle sectors (model_row_classes). */
int model_block_rows_start_rows(const model_inputs *in, const model_kernel *k);

/* The launch's blocks, resident blocks per wave and waves (blocks over SMs
 * x blocks per SM, those from the occupancy where only it is known); 0 for
 * what the block size, the SM count or the blocks per SM leave unknown. */
typedef struct {
    double threads, blocks, per_wave, waves;
} model_launch_shape;
model_launch_shape model_launch_shape_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat);

/* Some phase's K launches take little more than the host's interval to
 * issue them back to back (at least 0.9 of it): the launches, not the
 * memory, bound the step.  0 where the interval was not measured. */
int model_launch_bound(const model_inputs *in, const model_kernel *k, const double *memory_us);

/* Blocks per SM as the occupancy lbmkernels would record for them (the
 * probes are read at it; model validate passes both), where the device
 * says its threads per SM; exit 2 when that is more than an SM holds,
 * naming where they came from (said: "--blocks-per-sm", or a kernel
 * file's line). */
void model_occupancy_from_blocks(const model_inputs *in, model_lattice *lat, const char *said);

#endif
