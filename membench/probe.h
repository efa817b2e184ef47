/* Running membench probes on a device: buffers laid out like the
 * populations of a lattice (SoA), occupancy fixed with dynamic shared
 * memory, timed runs, and verification of every output element. */
#ifndef MB_PROBE_H
#define MB_PROBE_H

#include "device.h"
#include "gen.h"
#include "stats.h"

/* A run of launches back to back lasts this long at least, */
#define MB_THREADS_RUN_MS 2.0
/* in up to this many launches. */
#define MB_THREADS_MAX_LAUNCHES 2000
/* Launches of more than this in all (20 of 5 ms each) run as few of them
 * as fill it, MB_THREADS_FEW_LAUNCHES at least (mb_bench's long_run_ms and
 * few_launches; --quick's halve a run of a CPU's 256^3 launches of tens of
 * ms each, two a run instead of three to five: the host's interval is lost
 * in each of them). */
#define MB_THREADS_LONG_RUN_MS 100.0
#define MB_THREADS_FEW_LAUNCHES 3
#define MB_THREADS_LONG_RUN_MS_QUICK 50.0
#define MB_THREADS_FEW_LAUNCHES_QUICK 2

/* A probe configuration: the kernel plus how it is launched. */
typedef struct {
    mb_probe_spec spec;
    int block_size;
    int blocks_per_cu_requested; /* k; 0 = as many as fit */
    int64_t threads;             /* threads launched; 0 = the bench's (mb_bench.threads) */
    int launches;                /* launches back to back per timed run (threads sweep), at least; 0 or 1: one */
} mb_config;

/* A compiled kernel, kept for the whole run (configs repeat across sweeps). */
typedef struct {
    mb_probe_spec spec;
    lbp_kernel *kernel;
    mb_probe_record record;
} mb_compiled;

typedef struct {
    lbp_device *d;
    int64_t threads;      /* threads per launch, one per "cell" */
    int64_t stride;       /* elements per array (mb_stride) */
    int max_words;        /* arrays the buffers hold */
    int max_word_bytes;
    int64_t array_bytes;  /* bytes of the input buffer, and of the output one */
    lbp_buf *in, *out, *stamps, *result;
    int64_t stamp_warps;  /* warps the stamps buffer holds */
    int in_word_bytes;    /* word size the input currently holds (0: none) */
    lbp_kernel *fill[3], *verify[3]; /* [0]: 4 B, [1]: 8 B, [2]: 2 B; compiled on first use */
    lbp_kernel *residency;           /* compiled on first use, with its buffer */
    lbp_buf *residency_counts;
    struct mb_forced *forced;        /* forced shapes found so far */
    int n_forced, cap_forced;
    mb_compiled *cache;
    int n_cache, cap_cache;
    uint32_t seed_counter;
    int64_t launched;     /* probe launches since mb_prepare (a swapped probe alternates) */
    double long_run_ms;   /* MB_THREADS_LONG_RUN_MS and MB_THREADS_FEW_LAUNCHES */
    int few_launches;     /* (mb_bench_open), or their _QUICK twins */
} mb_bench;

/* Allocate for max_words arrays of max_word_bytes words at `threads`, and
 * at least min_array_bytes per buffer (configs with more threads of fewer
 * or smaller words: mb_plan_limits).  Returns 0, or 1 with why (memory too
 * small: the caller exits 2). */
int mb_bench_open(mb_bench *b, lbp_device *d, int64_t threads, int max_words, int max_word_bytes,
                  int64_t min_array_bytes, int block_size_min, char *why, size_t why_len);
void mb_bench_close(mb_bench *b);
/* Words from one array to the next for `threads` words of word_bytes each:
 * mb_stride(threads), skewed on a CPU (skew.h) as lbmkernels' lattices. */
int64_t mb_bench_stride(const mb_bench *b, int64_t threads, int word_bytes);

/* The launches of one timed run of a back-to-back probe asked for
 * `launches`, of per_launch_ms each (the pilot's): as many as fill
 * MB_THREADS_RUN_MS, or where they last past b->long_run_ms as few as fill
 * that, b->few_launches at least. */
int mb_run_launches(const mb_bench *b, int launches, double per_launch_ms);

/* The compiled probe for a spec (compiled once; exits 1 on a compile error). */
const mb_compiled *mb_kernel_for(mb_bench *b, const mb_probe_spec *s);
/* A hint that mb_kernel_for(b, s) follows (lbp_prefetch). */
void mb_kernel_prefetch(mb_bench *b, const mb_probe_spec *s);
/* The same for the fill and verify kernels of w-byte words, which a probe
 * of that size compiles at its first run otherwise: one at a time, seconds
 * each on a CPU, where the probes' kernels compile side by side. */
void mb_support_prefetch(mb_bench *b, int word_bytes);

/* Launch shape: dynamic shared memory that makes exactly k blocks resident,
 * where the backend sets a carveout, under the smallest one that holds them
 * (the rest stays L1, as for a kernel without shared memory), checked by
 * counting the blocks resident together on each SM.
 * Returns 0 with shared_bytes, blocks_per_cu (reached; -1 unknown) and
 * occupancy (resident threads / max threads per CU; -1 unknown), or 1 with
 * why for an impossible configuration (block size over the device's or the
 * kernel's limit, k blocks that cannot fit). */
typedef struct {
    size_t shared_bytes;
    int blocks_per_cu;
    double occupancy;
    int registers;
} mb_shape;
int mb_resolve_shape(mb_bench *b, const mb_compiled *c, const mb_config *cfg, mb_shape *out, char *why,
                     size_t why_len);
/* The largest block the device launches of kernel k (the device's and the
 * kernel's limits). */
int mb_block_limit(lbp_device *d, lbp_kernel *k);

/* One probe measured and verified. */
typedef struct {
    mb_config cfg;
    mb_probe_record record;
    mb_shape shape;
    int64_t threads;     /* threads launched */
    int64_t bytes_moved; /* per launch, from the record */
    lbp_stats ms;
    double ns_per_thread, gbs_median, gbs_max;
} mb_result;

/* Fill, time (warmup + reps runs of cfg->launches launches each, or, where
 * that is more than one, of as many more as fill MB_THREADS_RUN_MS, up to
 * MB_THREADS_MAX_LAUNCHES, or as few as fill MB_THREADS_LONG_RUN_MS where
 * cfg->launches would take longer: out->cfg.launches says how many; ms is per
 * launch), verify.  A config with its own thread count runs on a compact
 * layout of that many cells (stride mb_stride(threads)) in the same buffers.  Returns 0 ok; 1 with why when
 * an output element is wrong; 2 with why for an impossible configuration. */
int mb_run_probe(mb_bench *b, const mb_config *cfg, int warmup, int reps, mb_result *out, char *why,
                 size_t why_len);

/* Steps of mb_run_probe, public for the tests and the stamp probes. */
void mb_prepare(mb_bench *b, int word_bytes, int words);          /* input pattern, poisoned output */
uint32_t mb_next_seed(mb_bench *b);
void mb_launch_probe(mb_bench *b, const mb_compiled *c, const mb_config *cfg, const mb_shape *sh,
                     uint32_t seed);
/* Check every element of every output array (in place, or swapped after an
 * even count: input array) against mb_expected after `launches` launches
 * since mb_prepare.  0 ok;
 * 1 with "array k element j: expected X, got Y (n wrong in this array)". */
int mb_verify(mb_bench *b, const mb_probe_spec *s, uint32_t seed, int64_t launches, char *why, size_t why_len);

#endif
