/* What a membench run measures: the probe configurations of each sweep. */
#ifndef MB_PLAN_H
#define MB_PLAN_H

#include "probe.h"

enum { SW_WORDS = 1, SW_MISALIGNED = 2, SW_OCCUPANCY = 4, SW_WORD_BYTES = 8, SW_LAUNCH = 16, SW_THREADS = 32,
       SW_ALL = 63 };

#define MB_THREADS_MIN (1LL << 12)   /* smallest thread count of the threads sweep */
#define MB_THREADS_LAUNCHES 20       /* launches back to back per timed run there */

#define MB_MAX_LIST 256

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
 * The threads sweep: N=19, L=M=0 at the default block size, word sizes 4 and
 * 8, thread counts 2^12, 2^12*1.5, 2^13, ... (x1.5 points from 2^13 to
 * 2^20*1.5; quick: powers of 4 only) up to max_threads, which is always a
 * point; MB_THREADS_LAUNCHES launches per timed run. */
void mb_plan_build(mb_plan *p, const mb_plan_options *o);
/* The threads sweep again at fewer blocks per SM than fit (blocks_fit, 0 or
 * -1: the backend cannot force them, nothing added): 1, 2, 3, 4, 6 (quick:
 * 2, 4) below blocks_fit, so the model reads small lattices at the kernel's
 * occupancy.  Only when the default sweep runs with as many blocks as fit. */
void mb_plan_threads_occupancy(mb_plan *p, const mb_plan_options *o, int word_bytes, int blocks_fit);
/* Occupancy sweep at N=19: k = 1..blocks_fit (0 or -1: skipped), then block
 * sizes 64..1024 up to max_block_size at k = 0. */
/* Occupancy sweep at one block size: blocks per SM 1..blocks_fit (0: cannot force). */
void mb_plan_occupancy(mb_plan *p, const mb_plan_options *o, int block_size, int blocks_fit);
void mb_plan_free(mb_plan *p);
/* Largest N and word size, smallest block size in the plan. */
void mb_plan_limits(const mb_plan *p, int *max_words, int *max_word_bytes, int *min_block_size);
/* "N19-L0-M0-w4-b256-k0" (warps.csv config). */
const char *mb_config_name(const mb_config *c, char *buf, size_t len);

#endif
