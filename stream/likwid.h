/* likwid-bench as the CPU bandwidth reference: `copy` (ordinary stores) and
 * `copy_mem` (non-temporal stores); their ratio tells whether ordinary
 * stores pay a write-allocate (Habich: 228 B per update on a CPU, not 152). */
#ifndef STREAM_LIKWID_H
#define STREAM_LIKWID_H

#include <stddef.h>
#include <stdint.h>

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

#endif
