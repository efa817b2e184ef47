/* What the model knows about one device and backend: the rows of a result
 * folder (data/FORMAT.md) that the other tools wrote, filtered by backend.
 *   stream-meta.csv  kind, l2_bytes, write_allocate, likwid_copy_mem_gbs, likwid_copy_gbs
 *   stream.csv       generated copy kernels (roofline, size sweep)
 *   membench.csv     N-word probes (Obrecht Art. B); the `threads` sweep
 *                    (timing back_to_back: ms per launch of launches queued
 *                    back to back, no start cost to remove); the `vector`
 *                    sweep (column vector, optional); the `rows` sweep (a
 *                    CPU: row probes, column row, in place or not, back
 *                    to back; optional); the `narrow` sweep (a GPU: warps
 *                    over 32 / BX rows, column band, back to back; optional);
 *                    the `tile` sweep (a GPU: threads as a 3D grid launch of
 *                    BX x BY x BZ blocks, columns tile_x, tile_y, tile_z,
 *                    back to back; optional)
 *   membench-geometry.csv  the N=19 probe back to back at the LBM kernels' own
 *                    launches (block size, blocks per SM, thread count),
 *                    sweep `geometry` (optional)
 *   membench-fit.csv extra time per misaligned word (optional)
 *   membench-launch.csv  described kernels' launches with N aligned words
 *                    (launchprobe.h; optional)
 *   launch.csv       back-to-back launch interval (optional) */
#ifndef MODEL_INPUTS_H
#define MODEL_INPUTS_H

#include <stddef.h>
#include "interp.h"
#include "table.h"

typedef enum {
    PROBE_WORDS, PROBE_MISALIGNED_READS, PROBE_MISALIGNED_WRITES, PROBE_MISALIGNED_BOTH,
    PROBE_OCCUPANCY, PROBE_WORD_BYTES, PROBE_THREADS, PROBE_PAYLOAD,
    PROBE_GEOMETRY, /* membench-geometry.csv: back to back at the kernels' launches */
    PROBE_VECTOR,   /* V-word vectors, misaligned words one by one (membench's gen.h) */
    PROBE_ROWS,     /* a CPU: R cells per work-item in a loop, back to back (column row) */
    PROBE_NARROW,   /* a GPU: each warp takes BX cells of 32 / BX rows, back to back (column band) */
    PROBE_TILE,     /* a GPU: threads as a 3D grid of BX x BY x BZ blocks, back to back (columns tile_*) */
    PROBE_ROW_NX,   /* a CPU: the rows probe at a lattice's own rows, ends apart, beside rows of R (rownx.h) */
    PROBE_OTHER,
    PROBE_ANY_SWEEP /* queries only: any sweep at the default launch (not threads, geometry, narrow, tile) */
} model_probe_sweep;

/* "words", "misaligned_reads", ...: the sweep column's name. */
const char *model_probe_sweep_name(model_probe_sweep s);

/* Where a probe's launches store: into the other arrays, the same ones at
 * every launch; back where they read (in place); into the other arrays,
 * swapped at every launch (a time loop's two lattices) */
enum { PROBE_LAYOUT_SAME, PROBE_LAYOUT_IN_PLACE, PROBE_LAYOUT_SWAPPED };

typedef struct {
    model_probe_sweep sweep;
    int words;              /* N */
    int word_bytes;
    int misaligned_reads;   /* L */
    int misaligned_writes;  /* M */
    int block_size;
    int blocks_requested;   /* blocks per SM forced (0: as many as fit) */
    double blocks_per_cu;   /* -1 unknown */
    double occupancy;       /* -1 unknown */
    double threads;
    int ops;                /* payload arithmetic per thread (column ops; 0 none or absent) */
    int in_place;           /* 1: stores back where it read (geometry sweep only; 0 absent) */
    int swapped;            /* 1: launches alternate the arrays (geometry sweep only; 0 absent) */
    int vector;             /* V words per thread and array, aligned ones as one access,
                               misaligned ones one by one (vector sweep; 1 elsewhere or absent) */
    int row;                /* R cells per work-item in a loop (rows sweep; 1 elsewhere or absent) */
    int band;               /* BX cells of a row per warp (narrow sweep; 32 elsewhere or absent) */
    int tile[3];            /* BX, BY, BZ of the blocks (tile sweep; 0 0 0 elsewhere or absent) */
    int nontemporal;        /* 1: non-temporal stores (column stores; rows sweep only; 0 absent) */
    int folded;             /* 1: the folded payload (column payload_form; rows sweep only; 0 absent) */
    double ns_per_thread;   /* with the single-launch start cost removed (threads
                               sweep: as measured, per launch back to back) */
    double launch_us;       /* threads and geometry sweeps: time per launch, back to back, µs */
} model_probe_row;

typedef struct {
    int misaligned;         /* 0 reads, 1 writes, 2 both */
    int word_bytes;
    int words;              /* the N it was fitted at */
    double slope_ns;        /* extra ns per thread per misaligned word */
} model_misalign_fit;

typedef struct {
    int size_sweep;         /* row of the `size` sweep */
    int word_bytes;
    double working_set;     /* 2 * array_bytes */
    double bytes_moved, ms_median, gbs_median;
    int line;
} model_copy_row;

/* The probe rows grouped by (sweep, word size), each group in file order:
 * a lookup visits one or two groups, never every row (model/data/lookup.c). */
typedef struct {
    int sweep, word_bytes;
    int start, n; /* rows order[start .. start + n) */
} model_probe_group;

typedef struct {
    int *order;               /* row indices, group after group */
    model_probe_group *groups; /* sorted by sweep, then word size */
    int n_groups;
} model_probe_index;

typedef struct {
    char dir[512];
    char backend[16];
    char occupancy_from[16]; /* the backend whose occupancy sweep was read
                                (another one where this one forced none) */
    char device[96];        /* slug from the rows' device column */
    lbp_table meta;       /* stream-meta.csv, key,value */
    int is_cpu;             /* meta kind=cpu */
    int write_allocate;     /* 1 yes, 0 no, -1 unknown (meta write_allocate) */
    double l2_bytes;        /* 0 unknown */
    double global_mem_bytes; /* the device's memory (meta global_mem_bytes), 0 unknown */
    double compute_units;   /* SMs (meta compute_units), 0 unknown */
    double likwid_copy_mem_gbs; /* 0 absent */
    double likwid_copy_gbs;     /* the same copy with write-allocate; 0 absent */

    model_copy_row *copies;
    int n_copies;
    model_probe_row *probes;
    int n_probes;
    model_probe_index probe_index; /* of probes; empty (order NULL): scan them all */
    /* The threads and geometry sweeps of occupancy_from, where that is
     * another backend (CUDA, the same device): the device's work at this
     * backend's kernels' launches, read with this backend's own launch
     * interval and bandwidth ratio (geometry path), never alone. */
    model_probe_row *borrowed;
    int n_borrowed;
    model_probe_index borrowed_index;
    model_misalign_fit *fits;
    int n_fits;
    struct model_launch_probe *launch_probes; /* membench-launch.csv (launchprobe.h) */
    int n_launch_probes;

    int have_launch;
    double launch_us;       /* ℓ: back-to-back interval per launch, µs */
    int have_gap;
    double gap_us;          /* device-side interval between dependent launches
                               (CUDA graph replay), µs */
    int have_sync;
    double sync_us;         /* a launch with the host waiting for it each time
                               (sync_each), µs: what a step that synchronises
                               pays beyond its kernels (several ranks) */

    /* t0: fixed cost of one event-timed launch (host submission, ramp),
     * the intercept of time vs bytes over the L2-resident copy sizes; a
     * queue of back-to-back launches hides it, so it is removed from the
     * copy and probe times.  0 when it cannot be measured. */
    double start_cost_ms;
    int start_cost_points;
} model_inputs;

/* The backends that have rows in dir/stream.csv (not "likwid").  Returns the
 * count, or -1 with err. */
/* 0 where dir/name has the meta file of the tool run that wrote it (or
 * needs none), else -1 with err naming the missing file. */
int model_require_meta(const char *dir, const char *name, char *err, size_t err_len);
int model_backends_in(const char *dir, char names[][16], int max, char *err, size_t err_len);

/* Load dir's files for backend (NULL: the only backend in stream.csv; an
 * error when there are several).  Returns 0, or -1 with a one-line message
 * naming the file and line.  Missing optional files leave have_launch = 0 /
 * n_fits = 0. */
/* The range a column's numbers must lie in: [lo, hi] (lo itself excluded
 * where lo_open), whole numbers only where whole; unknown: a value that
 * stands for "not known" and is accepted as it is (0 where none: set
 * has_unknown). */
typedef struct {
    double lo, hi;
    int lo_open, whole;
    int has_unknown;
    double unknown;
} model_range;

/* Row r's number in column name, finite and within range; else -1 with
 * one line in err naming the file, line, column and value.  (The model's
 * inputs pass here so that an impossible number -- a zero time, an
 * occupancy of 2, a lattice of 1e308 cells -- stops the load instead of
 * turning into an infinite or undefined prediction.) */
int model_number_in(const lbp_table *t, int r, const char *name, model_range range, double *out, char *err,
                    size_t err_len);

int model_inputs_load(model_inputs *in, const char *dir, const char *backend, char *err,
                      size_t err_len);
void model_inputs_free(model_inputs *in);

/* occupancy_from's threads and geometry sweeps (in->borrowed) as the
 * probes of a view of in. */
model_inputs model_inputs_borrowed(const model_inputs *in);

/* The rows of probes (n of them) indexed: 0, or -1 out of memory (ix left
 * empty, which lookups read as "scan every row"). */
int model_probe_index_build(model_probe_index *ix, const model_probe_row *probes, int n);
void model_probe_index_free(model_probe_index *ix);
/* The group of (sweep, word size) in ix: its first row in *order, how many
 * (0: none); -1 where ix is empty. */
int model_probe_index_group(const model_probe_index *ix, int sweep, int word_bytes, const int **order);

/* ms of one event-timed run without the start cost t0. */
double model_busy_ms(const model_inputs *in, double ms);

/* A stream-meta.csv value, or NULL. */
const char *model_meta_value(const model_inputs *in, const char *key);

/* 0 where `cells` of bytes_per_cell fit the device's memory (or it is
 * unknown); else -1 with err saying what they take, against what it has. */
int model_lattice_fits(const model_inputs *in, double cells, double bytes_per_cell, char *err, size_t err_len);

/* Bandwidth (GB/s, start cost removed) that the copy of the `size` sweep
 * reaches at this working set, interpolated in log(working set), for
 * word_bytes if that word size was swept (else all, best per size).  Above
 * the largest size: the plateau, clamped only if the sweep never passed
 * 4 x L2.  Returns 0 when there is no size sweep. */
double model_size_bandwidth(const model_inputs *in, double working_set, int word_bytes,
                            int *clamped);

#endif
