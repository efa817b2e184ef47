/* Per-warp %globaltimer stamps (CUDA): a stamp probe is the timed probe's
 * kernel plus, in lane 0 of each warp, smid and the time at start, after the
 * reads and after the writes (Obrecht Art. B §3 steps 1-6).  Stamp probes are
 * launched separately from the timed bandwidth launches. */
#ifndef MB_WARPS_H
#define MB_WARPS_H

#include "probe.h"

#define MB_MAX_RANKS 64 /* warp ranks summarised per SM (2048 threads / 32) */

typedef struct {
    int64_t warps;                  /* warps stamped */
    int ranks;                      /* ranks in launch[] */
    lbp_stats launch[MB_MAX_RANKS]; /* ℓ(r): start of the r-th warp of an SM after its first, over SMs, ns */
    lbp_stats read, write;          /* T_R, T_W per warp, ns */
    double resolution_ns;           /* smallest nonzero difference seen (0: none) */
} mb_warp_summary;

/* Summarise raw stamps (MB_STAMPS_PER_WARP per warp: smid, t_start,
 * t_reads, t_writes); `ranks`: warps resident per SM in the first wave.
 * 0 ok; 1 with why when a warp has no stamps or its stamps are out of order. */
int mb_summarize_stamps(const uint64_t *stamps, int64_t warps, int ranks, mb_warp_summary *out, char *why,
                        size_t why_len);

/* Drop (compact away) the warps whose first thread is past the last one
 * (a partial last block): they return before stamping.  Returns the warps
 * kept. */
int64_t mb_live_warps(uint64_t *stamps, int64_t warps, int block_size, int64_t threads);

/* Launch the stamp variant of cfg twice (the first warms up), verify its
 * output, read and summarise the stamps.  Same returns as mb_run_probe. */
int mb_run_stamps(mb_bench *b, const mb_config *cfg, mb_warp_summary *out, char *why, size_t why_len);

#endif
