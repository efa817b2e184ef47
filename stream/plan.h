/* What a stream run measures: from the options and the device, the list of
 * steps in the order they run, each one measurement that one runner
 * (stream/main.c) executes and verifies; the progress counts the steps. */
#ifndef STREAM_PLAN_H
#define STREAM_PLAN_H

#include <stdint.h>

#include "bench.h"
#include "device.h"

typedef enum { STREAM_SW_SIZE, STREAM_SW_WORD, STREAM_SW_BLOCKS, STREAM_SW_BLOCK_SIZE, STREAM_SW_REFERENCE,
               STREAM_SW_TRANSFER, STREAM_SW_LIKWID, STREAM_SW_COUNT } stream_sweep;
extern const char *const stream_sweep_names[]; /* stream.csv's sweep column; NULL-terminated */

#define STREAM_MAX_SIZES 64
/* Samples of copy and copy_mem at all cores for the write-allocate verdict
 * (quick: two, the fewest that still show a spread and warn when close:
 * each likwid-bench run costs seconds, mostly its own start). */
#define STREAM_WA_SAMPLES 5
#define STREAM_WA_SAMPLES_QUICK 2

/* The command line's choices. */
typedef struct {
    int sweeps[STREAM_SW_COUNT]; /* -1 default, 0 off, 1 asked for */
    int64_t sizes[STREAM_MAX_SIZES];
    int n_sizes;                 /* 0: default */
    int64_t max_size;            /* 0: none */
    int reps;                    /* 0: adaptive */
    int quick;
    int interconnect;            /* --interconnect: between ranks, instead of the sweeps */
} stream_options;

typedef enum {
    STREAM_STEP_GENERATED,       /* a generated copy kernel (cfg) */
    STREAM_STEP_DRIVER_COPY,     /* the driver's device-to-device copy of `bytes` */
    STREAM_STEP_LIKWID,          /* likwid-bench kernel `likwid` at `threads` on a working set of `bytes` */
    STREAM_STEP_TRANSFER         /* h2d and d2h of `bytes`, host memory pinned (index 1) or pageable (0) */
} stream_step_kind;

typedef struct {
    stream_step_kind kind;
    stream_sweep sweep;
    stream_config cfg;   /* a generated copy */
    int64_t bytes;       /* driver copy: one array; likwid: all arrays; transfer: the bytes moved each way */
    int likwid;          /* likwid: which of stream_likwid_kernels */
    int threads;         /* likwid: pinned threads */
    int pinned;          /* transfer: pinned (1) or pageable (0) host memory */
} stream_step;

/* "copy", "copy_mem", "update" (in that order: STREAM_LIKWID_COPY, ...) */
extern const char *const stream_likwid_kernels[];
enum { STREAM_LIKWID_COPY, STREAM_LIKWID_COPY_MEM, STREAM_LIKWID_UPDATE, STREAM_LIKWID_KERNELS };

/* 1 where the plan runs likwid-bench kernel `kernel` at `threads` of the
 * saturation curve's counts (stream_likwid_thread_counts) on `cores` (the
 * first pass, before the write-allocate samples): a full run every kernel
 * at every count; quick what the model reads, copy and copy_mem at all
 * cores (the roofline, the write-allocate saving and verdict), no curve and
 * no update: each likwid-bench run costs seconds whatever it measures (its
 * own start), and the model reads neither. */
int stream_likwid_runs_at(int kernel, int threads, int cores, int quick);

typedef struct {
    stream_step *steps;
    int n, cap;
    int64_t capacity;    /* bytes of each of the two device arrays the copies need; 0: no copy */
    int64_t fixed;       /* the array of the word, blocks, block_size and reference sweeps */
    int64_t likwid_bytes;/* likwid-bench's working set: 4x the last-level cache and more */
    int likwid_threads;  /* the most threads of its curve: the physical cores */
    int any_fixed;       /* a sweep at the fixed array runs */
    stream_reps reps;    /* repetitions of each copy */
} stream_plan;

/* The sweeps that run (defaults: all but likwid, which runs on a CPU with
 * likwid-bench), their sizes within what the device holds, the steps.
 * Exits 2 when a size asked for cannot fit or likwid is asked for off a
 * CPU. */
void stream_plan_build(stream_plan *p, stream_options *o, const lbp_device_info *d);
void stream_plan_free(stream_plan *p);
/* The steps of one kind. */
int stream_plan_count(const stream_plan *p, stream_step_kind kind);

/* Exit 2: an array of `bytes` (two needed) does not fit on the device. */
_Noreturn void stream_refuse_size(const lbp_device_info *d, const char *flag, int64_t bytes);

#endif
