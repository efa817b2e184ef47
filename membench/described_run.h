/* membench --kernel FILE --size LIST: the generated kernel of a kernel
 * description file (described.h) on each lattice, timed back to back (two
 * lattices swapped at every launch, as a time loop's) and verified, one row
 * each in membench-kernel.csv: the launch, the threads launched, the
 * blocks per SM reached, the traffic and the time per launch. */
#ifndef MB_DESCRIBED_RUN_H
#define MB_DESCRIBED_RUN_H

#include "cli.h"
#include "csv.h"
#include "described.h"
#include "plan.h"
#include "probe.h"

#define MB_MAX_SIZES 32

/* membench-kernel.csv: one row per lattice (data/FORMAT.md). */
#define MB_DESCRIBED_CSV "membench-kernel.csv"
#define MB_DESCRIBED_HEADER                                                                                       \
    "kernel_file,name,launch,nx,ny,nz,cells,block,block_size,cells_per_thread,launched_threads,"                \
    "blocks_per_cu_requested,blocks_per_cu,occupancy,registers,words_read,words_written,misaligned_reads,"      \
    "misaligned_writes,word_bytes,lattices,bytes_per_update,reps,launches,ms_min,ms_median,ms_max,mlups_median," \
    "gbs_median"

typedef struct {
    const lbp_common *common;
    const char *file;                 /* the kernel description */
    long long sizes[MB_MAX_SIZES][3]; /* lattices, NX NY NZ */
    int n_sizes;
    int word_bytes;                   /* 0: the file's */
    int reps;
    /* --launch-probe LIST: instead of the file's traffic, its launch with N
     * words read and written and none misaligned, at each N of the list
     * (membench-launch.csv): what the model reads to carry its error at
     * the launch to the kernel's own words */
    long long probe_words[MB_MAX_LIST];
    int n_probe_words;
    /* --source SRC: instead of the generated kernel, the LBM kernel source
     * SRC that the file describes, verified against a host reference and
     * timed (source_run.h); --verify-size LIST its verification lattices
     * (0: the defaults), --nvrtc-check ARCH: compile it with NVRTC only */
    const char *source;
    long long verify_sizes[MB_MAX_SIZES][3];
    int n_verify_sizes;
    const char *nvrtc_arch;
} mb_described_options;

/* The blocks per SM a kernel file asks for (blocks_per_sm; occupancy or
 * registers turned into blocks on this device), 0: as many as fit. */
int mb_file_blocks_per_sm(const model_kernel_file *f, const lbp_device_info *i, int block_size);

/* "256x256x256,100x100x100" into sizes; returns the count, -1 when list is
 * not such a list (each 1..1000000, at most max). */
int mb_parse_sizes(const char *list, long long (*sizes)[3], int max);

typedef struct {
    mb_shape shape;
    int blocks_per_cu_requested;
    int launches, reps;  /* launches back to back per timed run; timed runs */
    lbp_stats ms;        /* per launch */
    int64_t threads;     /* launched, idle ones included */
    double mlups, gbs, bytes_per_update;
} mb_described_result;

/* Time (reps runs after 2 warm-ups) and verify d on b's buffers.  Returns
 * 0; 1 with why when an element is wrong; 2 with why for a launch the
 * device cannot make (block size, blocks per SM). */
/* One row of membench-kernel.csv for d's lattice, file the kernel file. */
void mb_described_write_row(lbp_csv *csv, const char *file, const mb_described *d, const mb_described_result *m);

int mb_described_run(mb_bench *b, const mb_described *d, int reps, mb_described_result *out, char *why,
                     size_t why_len);

/* membench --geometry-from FILE --size LIST: the file's launch as one
 * geometry of the geometry sweep (plan.h): its block size, the blocks per SM
 * it asks for (forced: the probe must be the kernel's occupancy), its
 * access width (word size x cells per thread) and, per lattice, its
 * launched threads, in place for one lattice, swapped for two.  A lattice
 * whose launch leaves threads idle is skipped with a warning: the probe's
 * threads all work, so it is not that launch (model.md: the geometry path
 * does not read it there).  Returns 1 with *g; 0 with why where no lattice
 * is left; -1 with why for a file that gives no geometry (unreadable, no
 * blocks per SM, an access width not probed, a launch not generated). */
int mb_described_geometry(const mb_described_options *o, const lbp_device_info *info, mb_geometry *g,
                          char *why, size_t why_len);

/* The command: every lattice of o, rows in membench-kernel.csv and
 * membench-kernel-meta.csv (with probe words: every lattice at each N, rows
 * in membench-launch.csv and membench-launch-meta.csv).  Returns 0; exits 1
 * or 2 on failure. */
int mb_described_main(lbp_device *dev, const mb_described_options *o, int argc, char **argv);

#endif
