/* The three levels of the model (DESIGN.md, model/):
 *
 * 1. roofline   P = B / bytes per update (Habich §4).  GPU, or CPU without
 *    write-allocate: B = best copy bandwidth (read + written bytes) of the
 *    stream.csv copy rows at working sets >= 4 x L2, bytes = (words read +
 *    words written) x word bytes (152 B fp32, 304 B fp64 for D3Q19).  CPU
 *    with write-allocate (stream-meta kind=cpu, write_allocate yes or
 *    unknown): every store first reads its line, so bytes = (read + 2 x
 *    written) x word (228 B fp32; a kernel keeping one lattice, A-A, stores
 *    into lines it has just read: 152 B), and B is the bus bandwidth: likwid's
 *    copy_mem (stores that skip the write-allocate, so what it counts is what
 *    the bus moved) when present, else 3/2 x the best copy (which counted 2
 *    of the 3 transfers per element).  Without copy_mem the CPU roofline is
 *    thus the same as best copy / (2 x 19 x word).
 * 2. probe      Obrecht Art. B: T = time per thread of the N-word probe at
 *    this kernel's N, misaligned reads L and writes M, word size and
 *    occupancy, interpolated between measured probes; P = 1 / T.  Where
 *    membench ran the occupancy sweep with L = 10 or M = 10, a kernel with
 *    that misalignment reads it at its own block size and occupancy.  The
 *    kernel's arithmetic (ops per cell) multiplies T by the payload probe's
 *    time over the aligned probe's: at the kernel's block size and
 *    occupancy (occupancy sweep with the collision payload, its excess
 *    scaled by ops / the payload's ops), else from the payload sweep
 *    interpolated at the kernel's ops (compute_factor).  A variant of
 *    which one block fits per SM at the kernel's block size has one row
 *    there: read where that row is the kernel's occupancy (its own word
 *    size first).
 * 3. full       three paths.
 *    a. threads sweep (membench.csv sweep `threads`, the default): the
 *    measured per-launch time of the aligned N=19 probe launched back to
 *    back at the lattice's thread count (updated cells; on a GPU, where all
 *    blocks are resident at once, the count of an even launch with the
 *    load of the kernel's busiest SM, blocks going to the SMs in turn;
 *    where they take more waves, the time at the kernel's own count, its
 *    part above the launch interval times the busiest SM's blocks over an
 *    even share), interpolated in
 *    log(threads); the part of
 *    it above the back-to-back launch interval times the kernel's factor
 *    from level 2 (its probe time per thread over the base probe's at
 *    N=19, same word size: the misalignment, occupancy and word-count
 *    factor), times K launches per step; A-A: per phase, averaged.  Small
 *    lattices run few threads (partial waves, latency- and launch-bound),
 *    which no bandwidth curve of a many-thread copy shows; the probe
 *    measured at that thread count does.  Misalignment and arithmetic cost more where the working set
 *    sits in the L2: with threads curves of the kernel's L, M and of the
 *    collision payload, the kernel factor is scaled by their ratio to the
 *    aligned curve at the lattice's thread count over that ratio at the
 *    curve's largest (DRAM) count (l2_factor; a ratio under 1 is noise and
 *    taken as 1).  Without a threads sweep of the kernel's word size, the other
 *    word size's, scaled by bytes (within_measured = no).
 *    c. geometry (membench-geometry.csv, written by make bench after
 *    lbmkernels on a GPU): where the N=19 probe was measured at the
 *    kernel's own launch -- access width, block size, blocks per SM, the
 *    lattice's thread count -- per phase the probe with the phase's L and
 *    M there, plus the collision payload's excess scaled by the kernel's
 *    operations; K launches per step.  Waves of blocks (144 blocks of 768
 *    on 132 SMs take two), blocks per SM and what misalignment and
 *    arithmetic cost at that working set are measured, not modelled.  A
 *    kernel keeping one lattice (A-A): the in-place probe (in_place 1, its
 *    phases' L = M), which moves that lattice's working set and stores
 *    into the lines it has just read, as the kernel does.  Answers only
 *    there (N = 19, L and M of 0 or 10, in place for one lattice);
 *    elsewhere path a.
 *    b. fallback (no threads sweep): the probe time scaled by the bandwidth
 *    this lattice's working set gets relative to the probe's own working
 *    set (stream.csv size sweep: small lattices live in L2), per step
 *    max(memory time + device gap, launches x back-to-back interval ℓ).
 *
 * Why max and not sum: lbmkernels times many steps launched back to back
 * without synchronising, so the host queues launch i+1 while the device runs
 * launch i; a step costs the longer of the two pipelines (host issue
 * interval ℓ, device time), not their sum.  The single-launch start cost that
 * the event timings of stream and membench include (t0, see inputs.h) is
 * removed from them for the same reason.  validate prints the error the
 * sum would give at small sizes, so the data can confirm the choice. */
#ifndef MODEL_PREDICT_H
#define MODEL_PREDICT_H

#include "inputs.h"
#include "kernel.h"

typedef struct {
    long long nx, ny, nz;
    double cells;           /* updated cells: nx * ny * nz */
    double stored_cells;    /* cells in memory (with row padding); 0 = cells */
    double occupancy;       /* the real kernel's, in (0, 1]; <= 0 unknown */
    double blocks_per_cu;   /* alternative to occupancy; <= 0 unknown */
    int block_size;         /* threads per block; 0 unknown */
} model_lattice;

typedef struct {
    /* level 1 */
    double roofline_mlups, roofline_gbs, bytes_per_update;
    char roofline_source[200];
    /* level 2 */
    double probe_mlups;
    double probe_ns_per_cell[MODEL_MAX_PHASES];
    double probe_working_set;     /* bytes the probe's arrays span */
    double occupancy_factor;      /* probe time at the kernel's occupancy / at the probe's */
    double compute_factor;        /* payload probe at the kernel's operations per
                                     cell / the aligned probe (1: the arithmetic
                                     hides under the memory traffic) */
    double in_place_factor;       /* CPU with write-allocate, a kernel keeping one
                                     lattice: likwid copy_mem / copy, the
                                     write-allocate's share of a copy's time
                                     that storing into just-read lines saves
                                     (divides the probe time); else 1 */
    double l2_factor[MODEL_MAX_PHASES]; /* threads path: misalignment and payload
                                     at the lattice's thread count over at the
                                     sweep's largest (1: as in DRAM) */
    /* level 3 */
    double full_mlups;
    double full_sum_mlups;        /* the same with memory + launch (diagnostic) */
    double working_set;           /* lattices x words x word bytes x stored cells */
    double bandwidth_ratio;       /* size-sweep bandwidth at the probe's / at ours */
    double memory_us[MODEL_MAX_PHASES];
    double launch_us;             /* K x ℓ per step, 0 when unknown */
    double gap_us;                /* K x device-side gap per step, 0 when unknown */
    int launch_bound;             /* some phase shorter than the launch interval */
    int full_complete;            /* 0 when launch.csv or the size sweep is missing */
    int full_path;                /* MODEL_FULL_GEOMETRY, _THREADS_SWEEP or _SIZE_SWEEP */
    int geometry_layout;          /* geometry path: the probes read (PROBE_LAYOUT_*) */
    /* level 3, threads-sweep path */
    double b2b_threads;           /* thread count looked up (stored cells) */
    double b2b_us;                /* per-launch µs of the N=19 probe there (scaled
                                     by bytes when from the other word size;
                                     geometry path: aligned, in the layout read) */
    int b2b_word_bytes;           /* word size of the sweep read */
    int b2b_points;               /* points of that sweep */
    int b2b_curves;               /* occupancy curves of that sweep */
    double b2b_occupancy;         /* occupancy read (the kernel's between
                                     curves, else the one curve's) */
    double block_factor;          /* occupancy sweep at the kernel's block
                                     size / at the threads sweep's, at the
                                     kernel's occupancy (1 when one curve) */
    double base19_ns;             /* level-2 base probe ns/thread at N=19 */
    double kernel_factor[MODEL_MAX_PHASES]; /* probe_ns_per_cell / base19_ns x l2_factor */
    double size_sweep_mlups;      /* the fallback path's answer (diagnostic; 0
                                     when the threads path was not used) */
    double threads_sweep_mlups;   /* the threads path's answer where the
                                     geometry path answered (diagnostic) */
    int within_measured;          /* 1 when nothing was clamped */
    char notes[1200];             /* what was clamped or assumed, "; "-separated */
} model_prediction;

enum { MODEL_FULL_SIZE_SWEEP = 0, MODEL_FULL_THREADS_SWEEP = 1, MODEL_FULL_GEOMETRY = 2 };

/* All three levels.  Returns 0, or -1 with err when the inputs cannot
 * answer at all (no probe of any word size, say). */
int model_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                  model_prediction *out, char *err, size_t err_len);

/* Level 1 alone. */
void model_roofline(const model_inputs *in, const model_kernel *k, model_prediction *out);

/* Level 2's building block: ns per thread of the probe with N words, L
 * misaligned reads, M misaligned writes, word_bytes, at the kernel's
 * occupancy (lat).  *within cleared when an input was clamped; notes
 * appended.  Returns 0 or -1 with err. */
int model_probe_time(const model_inputs *in, double words, int misaligned_reads,
                     int misaligned_writes, int word_bytes, const model_lattice *lat,
                     double *ns_per_thread, double *probe_threads, double *occupancy_factor,
                     int *within, char *notes, size_t notes_len, char *err, size_t err_len);

#endif
