/* Timing the D3Q19 kernels: MLUPS of one scheme, precision, lattice and
 * block size, with a mass-conservation spot check around the timed steps. */
#ifndef LBM_BENCH_H
#define LBM_BENCH_H

#include "lbm.h"
#include "record.h"
#include "csv.h"
#include "stats.h"

typedef struct {
    int steps;        /* > 0: exactly this many per timed run (made even) */
    int reps;         /* > 0: exactly this many timed runs */
    double target_ms; /* otherwise steps for about this long per run */
} lbm_timing_opts;

typedef struct {
    lbm_layout L;
    int block_size, steps, reps;
    int cells_per_thread; /* of the step kernel */
    int nontemporal;      /* its stores (lbm_store_names) */
    lbp_stats ms;
    double ms_median_slowest; /* the slowest pass's median (lbm_keep_faster) */
    double mlups_median, mlups_max, gbs_median;
    int registers, blocks_per_cu;
    int64_t local_bytes; /* per thread, of the step kernels: spills; -1 unknown */
    double occupancy;
    double mass_drift;
} lbm_result;

/* Time one configuration.  Returns 0 (r filled), -1 when the lattice does not
 * fit (why says so), 1 when the spot check failed (why says which, error and
 * tolerance). */
int lbm_measure(lbp_device *d, const lbm_kernels *k, const lbm_layout *L, int block_size,
                const lbm_timing_opts *t, lbm_result *r, char *why, size_t why_len);

/* Of two measurements of one configuration (two passes), keep in `kept` the
 * one of the lower median, and the slower pass's median in
 * ms_median_slowest. */
void lbm_keep_faster(lbm_result *kept, const lbm_result *r);
/* How much slower the slowest pass ran than the kept one, in percent. */
double lbm_pass_spread_pct(const lbm_result *r);

/* lbm.csv's columns after device,backend: the configuration and its
 * timing (and its stores: normal, nontemporal; registers and local_bytes:
 * the step kernels' registers and spilled bytes per thread), then the ranks it ran on (a single device: 1 rank, exchange none,
 * overlap 0, scaling none, nz_local = nz, exchange_us 0), then the
 * kernel's record (record.h: its launch, words and misaligned counts, as
 * lattices and bytes_per_update, from its description file).  MLUPS: the
 * whole lattice's updates over the slowest rank's time. */
#define LBM_CSV_HEADER                                                                                          \
    "scheme,precision,boundary,nx,ny,nz,nx_padded,cells,block_size,steps,reps,ms_min,ms_median,ms_max,"         \
    "mlups_median,mlups_max,gbs_median,registers,local_bytes,blocks_per_cu,occupancy,lattices,"                 \
    "bytes_per_update,cells_per_thread,pass_spread_pct,stores,ranks,exchange,overlap,scaling,nz_local,exchange_us," LBM_RECORD_COLUMNS
typedef struct {
    int ranks;
    const char *exchange; /* none, host, peer, mpi */
    int overlap;          /* the exchange beside the interior: 0, 1 */
    const char *scaling;  /* none, weak, strong */
    int nz_local;         /* planes per rank (interior) */
    double exchange_us;   /* median per step on rank 0 */
} lbm_ranks_cols;
/* A row of lbm.csv; rk NULL: a single device. */
void lbm_csv_write(lbp_csv *csv, lbm_scheme s, lbm_precision p, const lbm_result *m, const lbm_ranks_cols *rk);

/* Does this lattice fit?  0 yes; -1 no, with the one-line reason (size, bytes
 * needed, device memory, and how many cells the A-A scheme would fit). */
int lbm_fits(const lbp_device *d, const lbm_layout *L, lbm_scheme s, lbm_precision p, char *why, size_t why_len);
/* Largest n such that an n^3 lattice of this scheme fits (0 none). */
int lbm_largest_cube(const lbp_device *d, lbm_scheme s, lbm_precision p, int padding);

#endif
