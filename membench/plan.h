/* What a membench run measures: the probe configurations of each sweep. */
#ifndef MB_PLAN_H
#define MB_PLAN_H

#include "probe.h"

enum { SW_WORDS = 1, SW_MISALIGNED = 2, SW_OCCUPANCY = 4, SW_WORD_BYTES = 8, SW_LAUNCH = 16, SW_THREADS = 32,
       SW_PAYLOAD = 64, SW_VECTOR = 128, SW_GEOMETRY = 256 /* --geometry-from: alone */, SW_NARROW = 512,
       SW_TILE = 1024, SW_ALL = 255 | SW_TILE /* the narrow sweep: by name (the tile sweep subsumes it) */ };

#define MB_MAX_TILES 32 /* shapes of the tile sweep (defaults and --tile) */

/* The payload that stands in for a D3Q19 BGK collision in the threads and
 * occupancy sweeps: 19 x 7 + 18 = 151 arithmetic operations per thread (the
 * lbmkernels collision compiles to 150 floating-point instructions in PTX,
 * FMA counted once; core/kernel.c). */
#define MB_PAYLOAD_COLLISION 7

#define MB_THREADS_MIN (1LL << 12)   /* smallest thread count of the threads sweep */
#define MB_THREADS_LAUNCHES 20       /* launches back to back per timed run there, at least (probe.h) */

#define MB_MAX_LIST 256
/* The geometry sweep measures kernel launches up to this many L2s of working
 * set: past a few L2s the threads sweep's curve is flat in the thread count,
 * but not in the launch (block size, forced blocks per SM, in place), which
 * is what the block-size sweeps at 256^3 vary. */
#define MB_GEOMETRY_MAX_L2 32

/* Index of a word size in per-word-size arrays: 4 -> 0, 8 -> 1, 2 -> 2. */
static inline int mb_word_slot(int word_bytes) { return word_bytes == 8 ? 1 : word_bytes == 2 ? 2 : 0; }

typedef struct {
    int sweeps;               /* SW_* bits */
    int quick;
    int word_bytes;           /* for the words and misaligned sweeps */
    int word_bytes_given;     /* --word-bytes: no extra 8-byte points */
    int block_size;           /* for every sweep but the block-size part of occupancy */
    int blocks_per_cu;        /* k for every sweep but occupancy; 0 = as many as fit */
    long long words[MB_MAX_LIST];
    int n_words;
    long long misaligned_n[MB_MAX_LIST]; /* N of the misaligned sweeps */
    int n_misaligned_n;
    int stamps;               /* the backend has a per-warp clock */
    long long max_threads;    /* threads per launch (--threads): the top of the threads sweep */
    long long threads_top[3]; /* by mb_word_slot: the threads sweep's top where above
                               * max_threads (a CPU: the largest lattice; 0 none) */
    long long thread_counts[MB_MAX_LIST]; /* --thread-counts: the threads sweep at these counts only */
    int n_thread_counts;
    int fp64;                 /* the device has doubles: 8-byte payloads */
    int vector;               /* the device runs kernels of several cells per
                               * thread (a GPU): the vector sweep */
    int narrow;               /* the narrow sweep (a GPU, whose grid kernels' warps
                               * can span rows; elsewhere where asked by name) */
    int tile;                 /* the tile sweep (a GPU, whose grid kernels' blocks
                               * span rows and planes; elsewhere where asked by name) */
    int tiles[MB_MAX_TILES][3]; /* --tile: shapes the tile sweep adds to its defaults */
    int n_tiles;
    int forced_tiles[MB_MAX_TILES][4]; /* BX, BY, BZ and blocks per SM: shapes run again with
                                        * their references at those blocks, forced
                                        * (--tile-from: each kernel file's) */
    int n_forced_tiles;
    int row;                  /* cells per work-item of the rows sweep (a CPU, whose
                               * kernels run a row per work-item); 0 none */
    int aligned_only;         /* --aligned-only: the threads and rows sweeps'
                               * aligned probe alone, no variants */
    int nontemporal;          /* the backend stores without a write-allocate
                               * (caps.nontemporal_stores): the rows sweep's
                               * non-temporal variant */
    int cpu;                  /* the device is a CPU: the threads sweep at the
                               * cells of lbmkernels' CPU lattices, coarser
                               * misaligned curves (plan.c says why) */
} mb_plan_options;

typedef struct {
    const char *sweep; /* membench.csv sweep name */
    mb_config cfg;
    int stamps;        /* also a stamp probe (first occurrence of a config only) */
} mb_plan_item;

typedef struct {
    mb_plan_item *items;
    int n, cap;
} mb_plan;

/* Every sweep but occupancy (which needs a compiled kernel: mb_plan_occupancy).
 * With the default 4-byte words, the words sweep adds 8- and 2-byte
 * points (N = 1, 4, 8, 19, 27, 40; quick: 19) and the misaligned sweep
 * 2-byte curves at N = 19; the word_bytes sweep runs 2, 4 and 8 bytes.
 * The threads sweep: N=19 at the default block size, word sizes 2, 4 and 8,
 * thread counts 2^12, 2^12*1.5, 2^13, ... (x1.5 points from 2^13 to
 * 2^20*1.5; quick: powers of 4 only) up to max_threads, which is always a
 * point (--thread-counts: exactly those counts instead); MB_THREADS_LAUNCHES
 * launches per timed run.  One curve aligned,
 * then the same thread counts with the collision payload, with L = 10
 * misaligned reads, M = 10 misaligned writes and both (what misalignment
 * and arithmetic cost where the working set sits in the L2).
 * The payload sweep: N=19 aligned, P = 1, 2, 4, 7, 10, 14 (quick: 7) at
 * every word size (8 bytes only with fp64). */
void mb_plan_build(mb_plan *p, const mb_plan_options *o);

/* The tile sweep's block shapes (defaults, --tile's, then each one's
 * linear reference BS x 1 x 1), each once: how many, at most cap. */
int mb_plan_tile_shapes(const mb_plan_options *o, int (*out)[3], int cap);
/* The vector sweep (sweep 'vector', with o->vector and the default word
 * size not given): N=19 vector probes of 2-byte words (gen.h) at V = 2 and
 * 4, the access widths of fp16s at 2 and 4 cells per thread, each with
 * L, M = 0/0, 10/0, 0/10 and 10/10: what lbmkernels' shifted populations
 * cost, moved one word per cell beside aligned accesses of V words.  Part
 * of mb_plan_build. */
/* The threads sweep (the aligned probe, w-byte words) again at fewer blocks
 * per SM than fit (blocks_fit, 0 or -1: the backend
 * cannot force them, nothing added): 1, 2, 3, 4, 6 (quick: 2, 4) below
 * blocks_fit, so the model reads small lattices at the kernel's occupancy.
 * Only when the default sweep runs with as many blocks as fit. */
void mb_plan_threads_occupancy(mb_plan *p, const mb_plan_options *o, int word_bytes, int blocks_fit);
/* The block sizes of the occupancy sweep: those lbmkernels sweeps. */
#define MB_OCCUPANCY_BLOCK_SIZES {64, 128, 192, 256, 384, 512, 768, 1024}
/* The variants of the occupancy sweep, N=19 each: aligned at the default
 * word size, then with the collision payload (4, with fp64 8, and 2 bytes),
 * with L = 10 and with M = 10 (default word size), with fp64 and a 4-byte
 * default 8-byte words aligned and with M = 10, and with a 4-byte default
 * (not given) 2-byte words aligned and with M = 10; and, there, on a
 * device that runs several cells per thread (o->vector) and not --quick,
 * the vector probes of 2-byte words at V = 2 and 4 as fp16s kernels move
 * them (gen.h): aligned, M = 10 (push's exchange), L = 10, and in place
 * 0/0 and 10/10 (A-A): what the shifted words cost at each kernel's own
 * block size and blocks per SM (an exchange's barrier holds a whole block).
 * Fills up to MB_OCCUPANCY_VARIANTS specs, returns the count. */
#define MB_OCCUPANCY_VARIANTS 20
int mb_occupancy_variants(const mb_plan_options *o, mb_probe_spec *out);
/* Occupancy sweep of one variant at one block size: blocks per SM
 * 1..blocks_fit (0 or -1: cannot force, as many as fit). */
void mb_plan_occupancy(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *variant, int block_size,
                       int blocks_fit);
/* One launch geometry of the LBM kernels (lbm.csv): block size, blocks per
 * SM, access width (word bytes x cells per thread) and
 * the thread counts of its lattices, each marked where a kernel of one
 * lattice (A-A) runs it and where one of two (push, pull, split) does. */
typedef struct {
    int block_size, blocks_per_cu, word_bytes; /* blocks_per_cu >= 1, forced */
    long long threads[MB_MAX_LIST];             /* ascending */
    unsigned char in_place[MB_MAX_LIST];        /* 1: probe in place there too */
    unsigned char swapped[MB_MAX_LIST];         /* 1: probe swapped there too */
    int n_threads;
} mb_geometry;
#define MB_MAX_GEOMETRIES 128

/* The geometries of the rows of `device` (a slug) in lbm_csv, whatever
 * backend ran them (a launch is the device's: NVIDIA's OpenCL kernels,
 * whose blocks per SM follow from the registers ptxas reports, are probed
 * through CUDA, which can force them), that say their blocks per SM (a
 * probe forced to an unknown occupancy could not be the kernel's launch)
 * and whose working set (lattices
 * x 19 words x word bytes x cells) is at most 4 x l2_bytes (where the L2
 * shapes the time; l2_bytes 0: 2^21 cells at most): distinct block size,
 * blocks per SM and access width, with the thread counts cells /
 * cells_per_thread, marked in_place where a kernel that keeps one lattice
 * runs them, swapped where one that keeps two does.  Access widths other than 2, 4 and 8
 * bytes are left out (a warning).  Returns the count, or -1 with a message
 * naming the file and line. */
int mb_read_geometries(const char *lbm_csv, const char *device, double l2_bytes, mb_geometry *out, int max,
                       char *err, size_t err_len);
/* Thread count `threads` added to g (in order, once), marked in place for a
 * kernel of one lattice, swapped for one of two.  -1: no room. */
int mb_geometry_add(mb_geometry *g, long long threads, int lattices);
/* The geometry sweep (membench-geometry.csv, sweep 'geometry'): the N=19
 * probe at each geometry and thread count, back to back like the threads
 * sweep, with L and M each 0 or 10, without and with the collision payload
 * (with 8-byte words only where the device has FP64): the kernels' own
 * launches (wave count, blocks per SM) with their misalignment and
 * arithmetic; at a thread count marked swapped the same four L, M again
 * with the arrays swapped at every launch (a time loop's two lattices:
 * each launch reads what the last one wrote); at one marked in_place the
 * in-place probe at L = M = 0 and 10 (an A-A kernel's two steps: one
 * lattice's working set, stores into the lines just read).  All variants
 * at one thread count run one after another. */
void mb_plan_geometry(mb_plan *p, const mb_plan_options *o, const mb_geometry *g, int n);
/* Move the threads sweep's items to the end of the plan, by thread count
 * (stable): every curve's point at one thread count runs right after the
 * others, so a slower device state for a while shifts all of them alike
 * and their ratios hold (curves run one after another shift whole). */
void mb_plan_group_threads(mb_plan *p);
void mb_plan_free(mb_plan *p);
/* Largest N and word size, smallest block size in the plan; array_bytes:
 * the most bytes per buffer of a config with its own thread count. */
void mb_plan_limits(const mb_plan *p, int *max_words, int *max_word_bytes, int *min_block_size,
                    int64_t *array_bytes);
/* "N19-L0-M0-w4-b256-k0" (warps.csv config). */
const char *mb_config_name(const mb_config *c, char *buf, size_t len);

#endif
