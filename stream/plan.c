/* The steps of a stream run (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "likwid.h"

const char *const stream_sweep_names[] = {"size", "word", "blocks", "block_size", "reference",
                                          "transfer", "likwid", NULL};
const char *const stream_likwid_kernels[] = {"copy", "copy_mem", "update", NULL};

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)

_Noreturn void stream_refuse_size(const lbp_device_info *d, const char *flag, int64_t bytes)
{
    char a[32], m[32], x[32];
    lbp_bytes_text(a, sizeof a, bytes);
    lbp_bytes_text(m, sizeof m, d->global_mem_bytes);
    lbp_bytes_text(x, sizeof x, d->max_alloc_bytes);
    lbp_usage_error("%s: an array of %s does not fit: two are needed, and %s has %s of memory "
                    "(largest buffer %s)", flag, a, d->name, m, x);
}

/* Largest array two of which the device can hold at all. */
static int64_t hard_limit(const lbp_device_info *d)
{
    int64_t lim = d->global_mem_bytes / 2;
    if (d->max_alloc_bytes > 0 && d->max_alloc_bytes < lim) lim = d->max_alloc_bytes;
    return lim / 16 * 16;
}

static int64_t pow2_at_least(int64_t v)
{
    int64_t p = 16;
    while (p < v) p *= 2;
    return p;
}

/* ---- what runs, at which sizes ----------------------------------------- */

/* A CPU device's memory is the host's: what its backend calls a host to
 * device transfer is a copy within one memory, no transfer to measure
 * (the copy sweeps time that copy already). */
static void choose_sweeps(stream_options *o, const lbp_device_info *d)
{
    const int cpu = lbp_is_cpu(d);
    for (int i = 0; i < STREAM_SW_COUNT; i++)
        if (o->sweeps[i] < 0)
            o->sweeps[i] = i == STREAM_SW_LIKWID ? cpu && stream_likwid_available() : i == STREAM_SW_TRANSFER ? !cpu : 1;
    if (o->sweeps[STREAM_SW_LIKWID] && !cpu)
        lbp_usage_error("--sweeps: likwid measures the host CPU, but %s is a %s device", d->name,
                        lbp_kind_name(d->kind));
    if (o->sweeps[STREAM_SW_TRANSFER] && cpu)
        lbp_usage_error("--sweeps: transfer times host<->device copies, but %s is a cpu device: its memory is the "
                        "host's, no transfer to measure", d->name);
}

/* Where a CPU's copies stream from DRAM: arrays of 4x its last-level
 * cache, to the next power of two (its caches hold hundreds of MB). */
static int64_t cpu_dram_array(const lbp_device_info *d)
{
    return pow2_at_least(4 * (d->l2_bytes > 0 ? d->l2_bytes : 32 * MiB));
}

/* The largest array of the size sweep: what was asked for, checked against
 * the device, else a default within a quarter of its memory; on a CPU past
 * 4x its last-level cache, quick or not. */
static int64_t size_cap(const stream_options *o, const lbp_device_info *d)
{
    const int cpu = lbp_is_cpu(d);
    const int64_t limit = hard_limit(d);
    if (o->max_size > limit) stream_refuse_size(d, "--max-size", o->max_size);
    for (int i = 0; i < o->n_sizes; i++)
        if (o->sizes[i] > limit || (o->max_size && o->sizes[i] > o->max_size))
            stream_refuse_size(d, "--sizes", o->sizes[i]);
    if (o->max_size) return o->max_size;
    int64_t cap = o->quick ? (cpu ? 64 * MiB : 1 * GiB) : (cpu ? 512 * MiB : 4 * GiB);
    if (cpu && cap < cpu_dram_array(d)) cap = cpu_dram_array(d);
    if (d->global_mem_bytes / 4 < cap) cap = d->global_mem_bytes / 4 / 16 * 16;
    return cap > limit ? limit : cap;
}

/* The size sweep's arrays: as asked, else 4 KiB doubling up to cap (quick:
 * 4 KiB, 256 KiB, 16 MiB and cap; on a CPU also every power of two from
 * half its last-level cache to cap, across the drop to DRAM). */
static int size_list(const stream_options *o, const lbp_device_info *d, int64_t cap, int64_t *out)
{
    if (o->n_sizes) {
        for (int i = 0; i < o->n_sizes; i++) out[i] = o->sizes[i];
        return o->n_sizes;
    }
    int n = 0;
    if (o->quick) {
        const int64_t q[] = {4 * KiB, 256 * KiB, 16 * MiB};
        for (int i = 0; i < 3; i++)
            if (q[i] <= cap) out[n++] = q[i];
        if (lbp_is_cpu(d))
            for (int64_t s = pow2_at_least(d->l2_bytes / 2); s < cap && n < STREAM_MAX_SIZES - 1; s *= 2)
                if (n == 0 || s > out[n - 1]) out[n++] = s;
        if (n == 0 || cap > out[n - 1]) out[n++] = cap;
    } else {
        for (int64_t s = 4 * KiB; s <= cap && n < STREAM_MAX_SIZES; s *= 2) out[n++] = s;
    }
    if (n == 0) out[n++] = cap;
    return n;
}

/* The fixed large array of the word, blocks, block_size and reference
 * sweeps: at least 8x the L2 so the copy streams from DRAM. */
static int64_t fixed_array(const stream_options *o, const lbp_device_info *d, int64_t cap)
{
    const int cpu = lbp_is_cpu(d);
    int64_t fixed = pow2_at_least(8 * (d->l2_bytes > 0 ? d->l2_bytes : 32 * MiB));
    if (!cpu && fixed < 1 * GiB) fixed = 1 * GiB;
    const int64_t most = o->quick ? (cpu ? 32 * MiB : 512 * MiB) : (cpu ? 256 * MiB : 4 * GiB);
    if (fixed > most) fixed = most;
    return fixed > cap ? cap : fixed;
}

/* Repetitions: ~0.1 s of timed work per configuration. */
static stream_reps reps_policy(const stream_options *o, const lbp_device_info *d)
{
    const int cpu = lbp_is_cpu(d);
    if (o->quick)
        return (stream_reps){.fixed_reps = o->reps, .min_reps = 3, .max_reps = 30, .target_ms = 10, .warmup = 1,
                             .scatter_warn = 0.5};
    return (stream_reps){.fixed_reps = o->reps, .min_reps = cpu ? 5 : 10, .max_reps = cpu ? 500 : 1000,
                         .target_ms = 100, .warmup = cpu ? 1 : 2, .scatter_warn = cpu ? 1.0 : 0.25};
}

/* ---- the steps ---------------------------------------------------------- */

static stream_step *add(stream_plan *p, stream_step_kind kind, stream_sweep sweep)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->steps = realloc(p->steps, sizeof *p->steps * (size_t)p->cap);
        if (!p->steps) lbp_fail("out of memory");
    }
    stream_step *s = &p->steps[p->n++];
    *s = (stream_step){.kind = kind, .sweep = sweep};
    return s;
}

static void add_copy(stream_plan *p, stream_sweep sweep, stream_config cfg)
{
    add(p, STREAM_STEP_GENERATED, sweep)->cfg = cfg;
}

static int clamp_block(const lbp_device_info *d, int bs)
{
    return d->max_block_size > 0 && bs > d->max_block_size ? d->max_block_size : bs;
}

/* Enough grid-stride blocks to fill the device at this block size. */
static int64_t full_grid_blocks(const lbp_device_info *d, int block_size)
{
    int per_cu = d->max_threads_per_cu > 0 ? d->max_threads_per_cu / block_size : 8;
    return (int64_t)(d->compute_units > 0 ? d->compute_units : 1) * (per_cu > 0 ? per_cu : 1);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Habich Fig. 1: 1, 2, 4, ... up to 64 x compute units, plus the multiples
 * 1, 2, 4, ... 64 of the compute-unit count. */
static int block_counts(const lbp_device_info *d, int quick, int64_t *out)
{
    int64_t cu = d->compute_units > 0 ? d->compute_units : 1;
    int n = 0;
    if (quick) {
        const int64_t q[] = {1, cu, 8 * cu, 64 * cu};
        for (int i = 0; i < 4; i++) out[n++] = q[i];
    } else {
        for (int64_t b = 1; b <= 64 * cu; b *= 2) out[n++] = b;
        for (int64_t k = 1; k <= 64; k *= 2) out[n++] = k * cu;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

static void plan_copies(stream_plan *p, const stream_options *o, const lbp_device_info *d, const int64_t *sizes,
                        int n_sizes)
{
    const int plain = clamp_block(d, 256);
    const stream_config one = {.word_bytes = 16, .access = STREAM_ACCESS_ONE, .block_size = plain};
    /* a CPU: each size again with a row per thread, as its kernels run */
    const int accesses = lbp_is_cpu(d) ? STREAM_ACCESS_COUNT : STREAM_ACCESS_ROW;
    for (int i = 0; i < n_sizes && o->sweeps[STREAM_SW_SIZE]; i++)
        for (int a = STREAM_ACCESS_ONE; a < accesses; a += STREAM_ACCESS_ROW - STREAM_ACCESS_ONE)
            add_copy(p, STREAM_SW_SIZE, (stream_config){.word_bytes = 16, .access = (stream_access)a,
                                                        .block_size = plain, .elements = sizes[i] / 16});
    for (int w = 0; stream_word_sizes[w] && o->sweeps[STREAM_SW_WORD]; w++)
        for (int a = 0; a < accesses; a++)
            add_copy(p, STREAM_SW_WORD, (stream_config){.word_bytes = stream_word_sizes[w], .access = (stream_access)a,
                                                        .block_size = plain, .blocks = full_grid_blocks(d, plain),
                                                        .elements = p->fixed / stream_word_sizes[w]});
    int64_t counts[64];
    for (int i = 0, n = block_counts(d, o->quick, counts); i < n && o->sweeps[STREAM_SW_BLOCKS]; i++)
        add_copy(p, STREAM_SW_BLOCKS, (stream_config){.word_bytes = 16, .access = STREAM_ACCESS_STRIDE,
                                                      .block_size = plain, .blocks = counts[i],
                                                      .elements = p->fixed / 16});
    for (int bs = 32; bs <= 1024 && o->sweeps[STREAM_SW_BLOCK_SIZE]; bs *= 2) {
        stream_config c = one;
        c.block_size = bs;
        c.elements = p->fixed / 16;
        if ((!o->quick || bs == 64 || bs == 256 || bs == 1024) && (d->max_block_size <= 0 || bs <= d->max_block_size))
            add_copy(p, STREAM_SW_BLOCK_SIZE, c);
    }
    if (o->sweeps[STREAM_SW_REFERENCE]) add(p, STREAM_STEP_DRIVER_COPY, STREAM_SW_REFERENCE)->bytes = p->fixed;
}

static void add_likwid(stream_plan *p, int kernel, int threads)
{
    stream_step *s = add(p, STREAM_STEP_LIKWID, STREAM_SW_LIKWID);
    s->bytes = p->likwid_bytes;
    s->likwid = kernel;
    s->threads = threads;
}

int stream_likwid_runs_at(int kernel, int threads, int cores, int quick)
{
    return !quick || (threads == cores && kernel != STREAM_LIKWID_UPDATE);
}

/* likwid-bench on a working set of 4x the last-level cache (within a
 * quarter of the memory): each kernel at 1, 2, 3, 4, 6, 8, 12, ..., P pinned
 * threads (stream_likwid_thread_counts; quick: copy and copy_mem at P
 * alone, stream_likwid_runs_at), P the physical cores, then copy and
 * copy_mem again at P until there are STREAM_WA_SAMPLES of each for the
 * write-allocate verdict. */
static void plan_likwid(stream_plan *p, const stream_options *o, const lbp_device_info *d)
{
    if (!o->sweeps[STREAM_SW_LIKWID]) return;
    p->likwid_bytes = cpu_dram_array(d);
    if (p->likwid_bytes > d->global_mem_bytes / 4) p->likwid_bytes = d->global_mem_bytes / 4 / MiB * MiB;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    p->likwid_threads = d->compute_units > 0 ? d->compute_units : 1;
    if (online > 0 && p->likwid_threads > online) p->likwid_threads = (int)online;
    int counts[1024];
    const int n = stream_likwid_thread_counts(p->likwid_threads, o->quick, counts, 1024);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < STREAM_LIKWID_KERNELS; k++)
            if (stream_likwid_runs_at(k, counts[i], p->likwid_threads, o->quick)) add_likwid(p, k, counts[i]);
    for (int sample = 1; sample < (o->quick ? STREAM_WA_SAMPLES_QUICK : STREAM_WA_SAMPLES); sample++) {
        add_likwid(p, STREAM_LIKWID_COPY, p->likwid_threads);
        add_likwid(p, STREAM_LIKWID_COPY_MEM, p->likwid_threads);
    }
}

/* Transfers of 4 KiB .. 256 MiB (64 MiB on a CPU, 4 MiB quick, x4 steps),
 * pinned host memory first. */
static void plan_host(stream_plan *p, const stream_options *o, const lbp_device_info *d)
{
    int64_t most = o->quick ? 4 * MiB : lbp_is_cpu(d) ? 64 * MiB : 256 * MiB;
    if (most > hard_limit(d)) most = hard_limit(d);
    for (int pinned = 1; pinned >= 0 && o->sweeps[STREAM_SW_TRANSFER]; pinned--)
        for (int64_t b = 4 * KiB; b <= most; b *= o->quick ? 4 : 2) {
            stream_step *s = add(p, STREAM_STEP_TRANSFER, STREAM_SW_TRANSFER);
            s->bytes = b;
            s->pinned = pinned;
        }
}

void stream_plan_build(stream_plan *p, stream_options *o, const lbp_device_info *d)
{
    *p = (stream_plan){.reps = reps_policy(o, d)};
    choose_sweeps(o, d);
    const int64_t cap = size_cap(o, d);
    int64_t sizes[STREAM_MAX_SIZES];
    const int n_sizes = size_list(o, d, cap, sizes);
    p->fixed = fixed_array(o, d, cap);
    p->any_fixed = o->sweeps[STREAM_SW_WORD] || o->sweeps[STREAM_SW_BLOCKS] || o->sweeps[STREAM_SW_BLOCK_SIZE] ||
                   o->sweeps[STREAM_SW_REFERENCE];
    plan_copies(p, o, d, sizes, n_sizes);
    plan_likwid(p, o, d);
    plan_host(p, o, d);
    if (stream_plan_count(p, STREAM_STEP_GENERATED) + stream_plan_count(p, STREAM_STEP_DRIVER_COPY) == 0) return;
    p->capacity = p->any_fixed ? p->fixed : 0;
    for (int i = 0; i < n_sizes && o->sweeps[STREAM_SW_SIZE]; i++)
        if (sizes[i] > p->capacity) p->capacity = sizes[i];
}

void stream_plan_free(stream_plan *p)
{
    free(p->steps);
    *p = (stream_plan){0};
}

int stream_plan_count(const stream_plan *p, stream_step_kind kind)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) n += p->steps[i].kind == kind;
    return n;
}
