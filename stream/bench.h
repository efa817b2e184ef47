/* Running and verifying one STREAM-copy configuration: input pattern,
 * poisoned output, timed runs with device events, a check of every element. */
#ifndef STREAM_BENCH_H
#define STREAM_BENCH_H

#include "device.h"
#include "gen.h"
#include "stats.h"

/* Every u32 of the input holds an odd low half and an even high half, the
 * poison an even low and an odd high half, so an element the kernel did
 * not write can never pass for a copied one, not even a 2-byte element.
 * The low half is 2j + 1, the high half 2 (j ^ j >> 15) (mod 2^16): a
 * 2-byte copy from an index shifted by up to 65535 elements differs within
 * a few elements, and no two u32 of a 4 GB array are equal (test_stream). */
#define STREAM_POISON 0xDEADBEEEu
static inline uint32_t stream_pattern(uint64_t u32_index)
{
    const uint32_t j = (uint32_t)u32_index;
    return (uint32_t)((2u * (j ^ (j >> 15))) << 16) | ((2u * j + 1u) & 0xffffu);
}

/* How many timed repetitions a configuration gets. */
typedef struct {
    int fixed_reps;      /* > 0: exactly this many (--reps) */
    int min_reps, max_reps;
    double target_ms;    /* otherwise: about this much timed work, from a pilot run */
    int warmup;
    double scatter_warn;
} stream_reps;

typedef struct {
    lbp_stats ms;        /* device-event times of single runs */
    int reps;
    double gbs_median, gbs_max; /* bytes moved (from the record) per second, 10^9 B/s */
} stream_result;

#define STREAM_WORD_SLOTS 4
/* Two device arrays a (input, holding the pattern) and c (output) of
 * capacity_bytes each, plus the kernels compiled so far. */
typedef struct {
    lbp_device *d;
    lbp_buf *in, *out;
    int64_t capacity_bytes;
    lbp_kernel *kernels[STREAM_WORD_SLOTS][STREAM_ACCESS_COUNT]; /* by word size (4, 8, 16, 2) and access */
} stream_bench;

/* Allocate both arrays and write the input pattern.  Returns 0, or -1 when
 * the device has no room (nothing left allocated). */
int stream_bench_init(stream_bench *b, lbp_device *d, int64_t capacity_bytes);
void stream_bench_free(stream_bench *b);

/* Generate, compile (cached per word size and access), poison the output,
 * run, time and verify one configuration.  Returns 0 when verified, 1 with the
 * first wrong element in why, -1 when the configuration cannot be built
 * (why says so).  elements * word_bytes must fit in the capacity. */
int stream_run_generated(stream_bench *b, const stream_config *cfg, const stream_reps *reps,
                         stream_kernel *kernel_out, stream_result *res, char *why, size_t why_len);

/* Enqueue one run of cfg's kernel, which stream_run_generated compiled,
 * on the current queue and return without waiting: a load beside other
 * work (the interconnect probe's).  gk: what stream_generate made of cfg.
 * Returns 0, -1 when the kernel was not compiled. */
int stream_enqueue_generated(stream_bench *b, const stream_config *cfg, const stream_kernel *gk);

/* The same for the driver's device-to-device copy of `bytes` bytes. */
int stream_run_driver_copy(stream_bench *b, int64_t bytes, const stream_reps *reps,
                           stream_record *record_out, stream_result *res, char *why, size_t why_len);

/* Fill [0, bytes) of buf with the poison, through the host. */
void stream_poison(lbp_device *d, lbp_buf *buf, int64_t bytes);
/* Fill [0, bytes) of buf with the input pattern, through the host. */
void stream_write_pattern(lbp_device *d, lbp_buf *buf, int64_t bytes);

/* Check every element the record says was written against the input pattern,
 * and that the guard_bytes after the array still hold the poison.  Returns 0,
 * or 1 with "element E: expected X, got Y" in why. */
int stream_verify(lbp_device *d, const lbp_buf *out, const stream_record *r, int64_t guard_bytes,
                  char *why, size_t why_len);

#endif
