/* Predicted MLUPS of a kernel on a measured device, in three levels
 * (doc/model.md specifies them; doc/findings/model-history.md tells the
 * choices behind them):
 *
 *   1 roofline  copy bandwidth / bytes per update            (roofline.c)
 *   2 probe     the N-word probe at the kernel's misalignment, word size,
 *               occupancy and arithmetic (Obrecht Art. B)     (probe.c)
 *   3 full      the first of three paths that answers: the probe at the
 *               kernel's own launch (path_geometry.c), the probe back to
 *               back at the lattice's thread count (path_threads.c), the
 *               probe scaled by the working set's bandwidth and the launch
 *               interval (path_size_sweep.c); the others are kept beside it
 *
 * Every probe is read through one lookup (lookup.h); what it read instead
 * of what was asked, and what it clamped, is the prediction's provenance. */
#ifndef MODEL_PREDICT_H
#define MODEL_PREDICT_H

#include "inputs.h"
#include "kernel.h"
#include "provenance.h"

typedef struct {
    long long nx, ny, nz;
    double cells;         /* updated cells: nx * ny * nz */
    double stored_cells;  /* cells in memory (with row padding); 0 = cells */
    double occupancy;     /* the real kernel's, in (0, 1]; <= 0 unknown */
    double blocks_per_cu; /* alternative to occupancy; <= 0 unknown */
    int block_size;       /* threads per block; 0 unknown */
} model_lattice;

/* Level 1. */
typedef struct {
    double mlups, gbs, bytes_per_update;
    char source[200]; /* which bandwidth, in words */
    double dram_copy_gbs;     /* the copy it rests on (its working sets past the caches) */
    double working_set_mlups; /* at the lattice's working set: mlups x the size sweep's
                                 copy there / dram_copy_gbs, where that is more */
} model_roofline_level;

/* Level 2. */
typedef struct {
    double mlups;
    double ns_per_cell[MODEL_MAX_PHASES];
    double probe_threads;    /* the base probes' thread count (their working set) */
    double occupancy_factor; /* probe time at the kernel's occupancy / at the probe's */
    double compute_factor;   /* the kernel's arithmetic: payload probe / aligned probe (1: hidden) */
    double in_place_factor;  /* CPU with write-allocate, a kernel that skips it (one lattice,
                                non-temporal stores): the store's saved line read (divides
                                the probe time); else 1 */
} model_probe_level;

/* Level 3's paths, in the order they are asked: the first that answers wins. */
typedef enum { MODEL_FULL_GEOMETRY, MODEL_FULL_THREADS_SWEEP, MODEL_FULL_SIZE_SWEEP, MODEL_FULL_PATHS } model_full_path;

/* What one path said. */
typedef struct {
    int applies; /* 0: the path does not apply (nothing below is set) */
    double mlups;
    double memory_us[MODEL_MAX_PHASES]; /* per step, each phase */
    int launch_bound;                   /* a launch interval near or above some phase's time */
    int complete;                       /* 0: an input it needs is missing (said in prov) */
    model_provenance prov;              /* its own clamps and fallbacks */
} model_path_answer;

typedef struct {
    double working_set;       /* lattices x words x word bytes x stored cells */
    double probe_working_set; /* bytes the base probe's arrays span */
    double bandwidth_ratio;   /* size-sweep bandwidth at the probe's working set / at ours */
    double launch_us;         /* K x back-to-back launch interval, 0 unknown */
    double gap_us;            /* K x device-side gap between launches, 0 unknown */
    double sum_mlups;         /* memory + launch interval, not max (diagnostic) */
} model_size_sweep_detail;

typedef struct {
    double threads;       /* thread count read */
    double us;            /* per-launch µs of the N=19 probe there (scaled by bytes when
                             from another word size) */
    int word_bytes;       /* word size of the sweep read */
    int points, curves;   /* of that sweep */
    double occupancy;     /* occupancy read */
    double block_factor;  /* occupancy sweep at the kernel's block size / at the sweep's */
    double base19_ns;     /* level-2 base probe ns per thread at N=19 */
    double kernel_factor[MODEL_MAX_PHASES]; /* level 2 / base19 x block and L2 factors */
    double l2_factor[MODEL_MAX_PHASES];     /* misalignment and payload at this thread
                                               count over at the sweep's largest */
    double own_us[MODEL_MAX_PHASES];        /* the path's time per step before the
                                               launch's factors (predict.c) scale it */
} model_threads_detail;

typedef struct {
    double threads;    /* thread count read */
    double aligned_us; /* per-launch µs of the aligned probe there, in the layout read */
    int word_bytes;
    int layout;        /* PROBE_LAYOUT_* of the probes read */
} model_geometry_detail;

/* Level 3. */
typedef struct {
    double threads_launched; /* the launch's threads (idle ones included) */
    double blocks, waves;    /* 0 where the block size or blocks per SM are unknown */
} model_launch_detail;

typedef struct {
    model_launch_detail launch;
    model_full_path path; /* the path that answered */
    double mlups;         /* its answer */
    model_path_answer answer[MODEL_FULL_PATHS];
    model_geometry_detail geometry;
    model_threads_detail threads;
    model_size_sweep_detail size_sweep;
} model_full_level;

typedef struct {
    model_roofline_level roofline;
    model_probe_level probe;
    model_full_level full;
    model_provenance prov; /* levels 1 and 2 and the path that answered */
} model_prediction;

/* All three levels.  Returns 0, or -1 with err when the inputs cannot
 * answer at all (no probe of any word size, say). */
int model_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat, model_prediction *out,
                  char *err, size_t err_len);

/* "geometry", "threads-sweep", "size-sweep": the name model.csv and the
 * JSON give a path. */
const char *model_full_path_name(model_full_path path);

/* The answering path's answer (out->full.answer[out->full.path]). */
const model_path_answer *model_full_answer(const model_prediction *p);

/* Level 1 alone. */
void model_roofline(const model_inputs *in, const model_kernel *k, model_roofline_level *out);
/* Its working_set_mlups at a lattice (after model_roofline). */
void model_roofline_at(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                       model_roofline_level *out);
/* A kernel whose stores pay no write-allocate on a CPU: one lattice (its
 * stores go to lines it has just read) or non-temporal stores. */
int model_skips_write_allocate(const model_kernel *k);

/* Level 2's building block: the probe of `words` words per thread (N), L
 * misaligned reads, M misaligned writes, accesses of word_bytes. */
typedef struct {
    double words;
    int misaligned_reads, misaligned_writes;
    int word_bytes;
} model_probe_shape;

typedef struct {
    double ns_per_thread;    /* at the kernel's launch (lat) */
    double probe_threads;    /* the base probes' thread count */
    double occupancy_factor;
} model_probe_timing;

/* Returns 0, or -1 with err when no aligned probe was measured at any word
 * size.  Clamps and fallbacks go to prov. */
int model_probe_time(const model_inputs *in, const model_probe_shape *shape, const model_lattice *lat,
                     model_probe_timing *out, model_provenance *prov, char *err, size_t err_len);

#endif
