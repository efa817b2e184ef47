/* How far the device moved during a run: the threads sweep's probes that
 * make bench measures again after the kernels (membench-recheck.csv),
 * against the same probes of membench.csv.  The model reads the first run's
 * probes, the kernels ran in between: a change here bounds how closely any
 * prediction can match a kernel of that run. */
#ifndef MODEL_DRIFT_H
#define MODEL_DRIFT_H

#include <stddef.h>

typedef struct {
    char backend[16];
    int word_bytes, misaligned_reads, misaligned_writes, ops, block_size, blocks_requested;
    double threads;
    double first_ms, recheck_ms; /* ms_median per launch of each run */
    double change_pct;           /* 100 (recheck / first - 1) */
} model_drift_row;

/* Every threads-sweep row of dir/membench-recheck.csv with its partner in
 * dir/membench.csv (same backend, word size, L, M, payload, block size,
 * blocks per SM forced, thread count).  Returns the count (> 0) with
 * *rows (free it), *unmatched the recheck rows without a partner, device
 * the rows' device; or -1 with a one-line message naming the file and line
 * (missing or malformed file, no row matched). */
int model_drift_match(const char *dir, model_drift_row **rows, int *unmatched, char *device, size_t device_len,
                      char *err, size_t err_len);

/* For each backend: how many probes, their median change and the largest
 * one with its probe; printed under a title line. */
void model_drift_print(const model_drift_row *rows, int n);

/* The median |change_pct| of a backend's probes, -1 when it has none: the
 * model errors smaller than this cannot be told from the device's own. */
double model_drift_median_abs(const model_drift_row *rows, int n, const char *backend);

#endif
