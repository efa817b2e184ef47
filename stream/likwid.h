/* likwid-bench as the CPU bandwidth reference: `copy` (ordinary stores),
 * `copy_mem` (non-temporal stores) and `update` (a read and a write of one
 * array, as an in-place lattice), over 1..P pinned threads (where the cores
 * saturate the memory); the ratio of copy_mem to copy, measured again and
 * again, tells whether ordinary stores pay a write-allocate (Habich: 228 B
 * per update on a CPU, not 152). */
#ifndef STREAM_LIKWID_H
#define STREAM_LIKWID_H

#include <stddef.h>
#include <stdint.h>

#include "writealloc.h"

typedef struct {
    double mbytes_per_s;   /* likwid's "MByte/s": loads plus stores, 10^6 B/s */
    double time_s;         /* likwid's "Time" for all iterations */
    long iterations;       /* iterations per thread */
    int64_t bytes_per_iteration; /* likwid's "Data volume" / iterations */
} stream_likwid_result;

/* 1 when likwid-bench is on PATH. */
int stream_likwid_available(void);

/* Run `likwid-bench -t <kernel> -w N:<total_bytes in kB>:<threads>`
 * (iterations: 0 lets likwid choose, from its 1 s minimum).  Returns 0, or
 * -1 with why (likwid missing, failed, or printed no result). */
int stream_likwid_run(const char *kernel, int64_t total_bytes, int threads, long iterations,
                      stream_likwid_result *out, char *why, size_t why_len);

/* Parse likwid-bench's report (exposed for the tests).  Returns 0 or -1. */
int stream_likwid_parse(const char *text, stream_likwid_result *out);

/* "yes" when copy_mem / copy > 1.25, "no" when < 1.1, else "unknown". */
const char *stream_write_allocate_verdict(double copy_gbs, double copy_mem_gbs);

/* The write-allocate verdict from repeated samples of copy and copy_mem
 * (GB/s, sample i of each measured one after the other): the verdict of the
 * medians' ratio, and whether it is close. */
typedef struct {
    const char *verdict; /* "yes", "no", "unknown" */
    double ratio;        /* median copy_mem / median copy */
    double ratio_min, ratio_max; /* over the samples' pairs */
    int samples;
    int close;           /* the ratio within LBP_WA_MARGIN of a threshold,
                            or the pairs' ratios on both sides of one */
} stream_write_allocate;
stream_write_allocate stream_write_allocate_decide(const double *copy_gbs, const double *copy_mem_gbs, int samples);

/* The thread counts of the saturation curve on `cores` physical cores:
 * 1, 2, 3, 4, 6, 8, 12, 16, 24, ... and cores, or quick 1, 2, 4, ... and
 * cores; returns how many. */
int stream_likwid_thread_counts(int cores, int quick, int *out, int max);

#endif
