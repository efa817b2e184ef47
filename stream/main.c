/* stream: sustained bandwidth of a device from generated STREAM-copy kernels
 * (array size, word width, block count, block size), the driver's own
 * device-to-device copy, host<->device transfers, and on a CPU likwid-bench.
 * Every configuration's output is verified before its row is written. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "csv.h"
#include "device.h"
#include "gen.h"
#include "likwid.h"
#include "stats.h"
#include "transfer.h"

#define USAGE                                                                                   \
    "usage: stream [options]\n"                                                                 \
    "Sustained bandwidth from generated STREAM-copy kernels (c[i] = a[i]), every element\n"    \
    "verified; results in <out>/stream.csv, transfer.csv, stream-meta.csv.\n"                   \
    "  --sweeps LIST       any of size,word,blocks,block_size,reference,transfer,likwid\n"       \
    "                      (default: all that apply; likwid only on a CPU device)\n"            \
    "  --sizes LIST        array sizes for the size sweep: bytes with K/M/G, comma-separated,\n" \
    "                      or a doubling range A..B (default 4K..min(4G, memory/4) on a GPU,\n" \
    "                      4K..512M on a CPU); multiples of 16 bytes\n"                         \
    "  --max-size BYTES    largest array any sweep uses\n"                                    \
    "  --reps N            exactly N timed repetitions per configuration (default: enough\n"    \
    "                      for ~0.1 s of timed work, at least 10 on a GPU, 5 on a CPU)\n"       \
    LBP_COMMON_HELP

enum { SW_SIZE, SW_WORD, SW_BLOCKS, SW_BLOCK_SIZE, SW_REFERENCE, SW_TRANSFER, SW_LIKWID, SW_COUNT };
static const char *const sweep_names[] = {"size", "word", "blocks", "block_size", "reference",
                                          "transfer", "likwid", NULL};
enum { OPT_SIZES = LBP_OPT_FIRST_TOOL, OPT_MAX_SIZE, OPT_REPS, OPT_SWEEPS };

#define KiB ((int64_t)1 << 10)
#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)
#define MAX_SIZES 64
#define MAX_SUMMARY 256

typedef struct {
    int sweeps[SW_COUNT];   /* -1 default, 0 off, 1 asked for */
    int64_t sizes[MAX_SIZES];
    int n_sizes;            /* 0: default */
    int64_t max_size;       /* 0: none */
    int reps;               /* 0: adaptive */
} stream_options;

/* One line of the stdout table, and what the meta keys are chosen from. */
typedef struct {
    const char *sweep;
    char config[96];
    int64_t array_bytes;
    double gbs_median, gbs_max;
    int generated;          /* a generated copy kernel (not the driver, not likwid) */
} summary_row;

typedef struct {
    lbp_csv *stream_csv, *transfer_csv;
    summary_row rows[MAX_SUMMARY];
    int n_rows;
    int done, total;
    double t_start;
} run_state;

static run_state state;

static _Noreturn void fail_run(const char *what, const char *why)
{
    if (state.stream_csv)
        lbp_csv_abort(state.stream_csv);
    if (state.transfer_csv)
        lbp_csv_abort(state.transfer_csv);
    lbp_fail("%s: %s; nothing written", what, why);
}

static void human_bytes(char *s, size_t len, int64_t b)
{
    if (b >= GiB && b % GiB == 0) snprintf(s, len, "%" PRId64 " GiB", b / GiB);
    else if (b >= MiB && b % MiB == 0) snprintf(s, len, "%" PRId64 " MiB", b / MiB);
    else if (b >= GiB) snprintf(s, len, "%.1f GiB", (double)b / GiB);
    else if (b >= MiB) snprintf(s, len, "%.1f MiB", (double)b / MiB);
    else if (b >= KiB && b % KiB == 0) snprintf(s, len, "%" PRId64 " KiB", b / KiB);
    else snprintf(s, len, "%" PRId64 " B", b);
}

/* ---- options ------------------------------------------------------------ */

static int64_t parse_size(const char *flag, const char *s)
{
    long long v = lbp_parse_bytes(flag, s, 16, (long long)1 << 50);
    if (v % 16)
        lbp_usage_error("%s: '%s' is not a multiple of 16 bytes", flag, s);
    return v;
}

/* "4K,1M,64M" or "4K..1G" (doubling), or a mix. */
static int parse_sizes(const char *s, int64_t *out, int max)
{
    int n = 0;
    char *copy = strdup(s);
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        char *dots = strstr(tok, "..");
        if (dots) {
            *dots = 0;
            int64_t lo = parse_size("--sizes", tok), hi = parse_size("--sizes", dots + 2);
            if (hi < lo)
                lbp_usage_error("--sizes: range '%s..%s' runs backwards", tok, dots + 2);
            for (int64_t v = lo; v <= hi; v *= 2) {
                if (n == max)
                    lbp_usage_error("--sizes: more than %d sizes", max);
                out[n++] = v;
            }
        } else {
            if (n == max)
                lbp_usage_error("--sizes: more than %d sizes", max);
            out[n++] = parse_size("--sizes", tok);
        }
    }
    free(copy);
    if (n == 0)
        lbp_usage_error("--sizes: '%s' names no size", s);
    return n;
}

static void parse_sweeps(const char *s, int *sweeps)
{
    for (int i = 0; i < SW_COUNT; i++)
        sweeps[i] = 0;
    char *copy = strdup(s);
    int any = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        sweeps[lbp_parse_choice("--sweeps", tok, sweep_names)] = 1;
        any = 1;
    }
    free(copy);
    if (!any)
        lbp_usage_error("--sweeps: '%s' names no sweep", s);
}

/* ---- sizes the device allows -------------------------------------------- */

/* Largest array two of which the device can hold at all. */
static int64_t hard_limit(const lbp_device *d)
{
    int64_t lim = d->info.global_mem_bytes / 2;
    if (d->info.max_alloc_bytes > 0 && d->info.max_alloc_bytes < lim)
        lim = d->info.max_alloc_bytes;
    return lim / 16 * 16;
}

static void refuse_size(const lbp_device *d, const char *flag, int64_t bytes)
{
    char a[32], m[32], x[32];
    human_bytes(a, sizeof a, bytes);
    human_bytes(m, sizeof m, d->info.global_mem_bytes);
    human_bytes(x, sizeof x, d->info.max_alloc_bytes);
    lbp_usage_error("%s: an array of %s does not fit: two are needed, and %s has %s of memory "
                    "(largest buffer %s)", flag, a, d->info.name, m, x);
}

static int64_t pow2_at_least(int64_t v)
{
    int64_t p = 16;
    while (p < v)
        p *= 2;
    return p;
}

/* ---- one row ------------------------------------------------------------- */

static void add_summary(const char *sweep, const char *config, int64_t array_bytes,
                        double gbs_median, double gbs_max, int generated)
{
    if (state.n_rows == MAX_SUMMARY)
        return;
    summary_row *r = &state.rows[state.n_rows++];
    r->sweep = sweep;
    snprintf(r->config, sizeof r->config, "%s", config);
    r->array_bytes = array_bytes;
    r->gbs_median = gbs_median;
    r->gbs_max = gbs_max;
    r->generated = generated;
}

static void write_row(const char *sweep, const char *kernel, int word_bytes, const char *access,
                      int block_size, int64_t blocks, const stream_record *r, const stream_result *res)
{
    lbp_csv_row(state.stream_csv, "%s,%s,%d,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%.6f,%.6f,%.6f,%.3f,%.3f",
                sweep, kernel, word_bytes, access, block_size, blocks, stream_array_bytes(r),
                stream_bytes_moved(r), res->reps, res->ms.min, res->ms.median, res->ms.max,
                res->gbs_max, res->gbs_median);
}

static void progress(const char *what)
{
    lbp_progress(++state.done, state.total, lbp_now() - state.t_start, "%s", what);
}

/* Small arrays take microseconds: their scatter is launch noise, so warn
 * only when it is gross. */
static stream_reps reps_for_array(const stream_reps *reps, int64_t array_bytes)
{
    stream_reps r = *reps;
    if (array_bytes < MiB && r.scatter_warn < 2.0)
        r.scatter_warn = 2.0;
    return r;
}

/* Run, verify and record one generated configuration. */
static void measure_generated(stream_bench *b, const char *sweep, const stream_config *cfg,
                              const stream_reps *reps_in)
{
    stream_reps reps_for = reps_for_array(reps_in, cfg->elements * cfg->word_bytes);
    const stream_reps *reps = &reps_for;
    stream_kernel k;
    stream_result res;
    char why[512];
    int rc = stream_run_generated(b, cfg, reps, &k, &res, why, sizeof why);
    char config[96];
    snprintf(config, sizeof config, "%s x%u", k.name, k.blocks);
    if (rc < 0)
        fail_run(sweep, why);
    if (rc > 0) {
        char what[256];
        char a[32];
        human_bytes(a, sizeof a, stream_array_bytes(&k.record));
        snprintf(what, sizeof what, "verification failed: %s sweep, %s, %s", sweep, config, a);
        fail_run(what, why);
    }
    write_row(sweep, "copy", cfg->word_bytes, stream_access_names[cfg->access], (int)k.block_size,
              k.blocks, &k.record, &res);
    add_summary(sweep, config, stream_array_bytes(&k.record), res.gbs_median, res.gbs_max, 1);
    progress(config);
}

/* ---- the sweeps ----------------------------------------------------------- */

static int clamp_block(const lbp_device *d, int bs)
{
    return d->info.max_block_size > 0 && bs > d->info.max_block_size ? d->info.max_block_size : bs;
}

/* Enough grid-stride blocks to fill the device at this block size. */
static int64_t full_grid_blocks(const lbp_device *d, int block_size)
{
    int per_cu = d->info.max_threads_per_cu > 0 ? d->info.max_threads_per_cu / block_size : 8;
    int64_t blocks = (int64_t)(d->info.compute_units > 0 ? d->info.compute_units : 1) * (per_cu > 0 ? per_cu : 1);
    return blocks;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Habich Fig. 1: 1, 2, 4, ... up to 64 x compute units, plus the multiples
 * 1, 2, 4, ... 64 of the compute-unit count. */
static int block_counts(const lbp_device *d, int quick, int64_t *out)
{
    int64_t cu = d->info.compute_units > 0 ? d->info.compute_units : 1;
    int n = 0;
    if (quick) {
        int64_t q[] = {1, cu, 8 * cu, 64 * cu};
        for (int i = 0; i < 4; i++)
            out[n++] = q[i];
    } else {
        for (int64_t b = 1; b <= 64 * cu; b *= 2)
            out[n++] = b;
        for (int64_t k = 1; k <= 64; k *= 2)
            out[n++] = k * cu;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || out[u - 1] != out[i])
            out[u++] = out[i];
    return u;
}

static int block_sizes(const lbp_device *d, int quick, int *out)
{
    int n = 0;
    for (int bs = 32; bs <= 1024; bs *= 2)
        if ((!quick || bs == 64 || bs == 256 || bs == 1024) &&
            (d->info.max_block_size <= 0 || bs <= d->info.max_block_size))
            out[n++] = bs;
    return n;
}

static double theoretical_or_nan(const lbp_device *d)
{
    return d->info.theoretical_gbs > 0 ? d->info.theoretical_gbs : NAN;
}

/* ---- likwid ------------------------------------------------------------- */

typedef struct {
    int ran;
    double copy_gbs, copy_mem_gbs;
    int threads;
} likwid_summary;

static void run_likwid(const lbp_device *d, int64_t array_bytes, int quick, likwid_summary *ls)
{
    const char *kernels[] = {"copy", "copy_mem"};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ls->threads = d->info.compute_units > 0 ? d->info.compute_units : 1;
    if (cores > 0 && ls->threads > cores)
        ls->threads = (int)cores;
    stream_likwid_result r[2];
    char why[512];
    for (int i = 0; i < 2; i++) {
        if (stream_likwid_run(kernels[i], 2 * array_bytes, ls->threads, quick ? 10 : 0, &r[i], why,
                              sizeof why) != 0) {
            lbp_warn("likwid-bench skipped: %s", why);
            return;
        }
        char what[64];
        snprintf(what, sizeof what, "likwid-bench %s", kernels[i]);
        progress(what);
    }
    for (int i = 0; i < 2; i++) {
        double ms = r[i].time_s * 1e3 / (double)r[i].iterations;
        double gbs = r[i].mbytes_per_s / 1e3;
        lbp_csv_row(state.stream_csv, "likwid,%s,8,cpu,0,0,%" PRId64 ",%" PRId64 ",%ld,%.6f,%.6f,%.6f,%.3f,%.3f",
                    kernels[i], r[i].bytes_per_iteration / 2, r[i].bytes_per_iteration, r[i].iterations,
                    ms, ms, ms, gbs, gbs);
        char config[64];
        snprintf(config, sizeof config, "likwid-bench %s, %d threads", kernels[i], ls->threads);
        add_summary("likwid", config, r[i].bytes_per_iteration / 2, gbs, gbs, 0);
    }
    ls->ran = 1;
    ls->copy_gbs = r[0].mbytes_per_s / 1e3;
    ls->copy_mem_gbs = r[1].mbytes_per_s / 1e3;
}

/* ---- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    lbp_cli_init("stream");
    static const struct option opts[] = {
        LBP_COMMON_LONGOPTS,
        {"sizes", required_argument, 0, OPT_SIZES},
        {"max-size", required_argument, 0, OPT_MAX_SIZE},
        {"reps", required_argument, 0, OPT_REPS},
        {"sweeps", required_argument, 0, OPT_SWEEPS},
        {0, 0, 0, 0}};
    lbp_common c = {.device = -1};
    stream_options so = {.n_sizes = 0};
    for (int i = 0; i < SW_COUNT; i++)
        so.sweeps[i] = -1;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case OPT_SIZES: so.n_sizes = parse_sizes(optarg, so.sizes, MAX_SIZES); break;
        case OPT_MAX_SIZE: so.max_size = parse_size("--max-size", optarg); break;
        case OPT_REPS: so.reps = (int)lbp_parse_int("--reps", optarg, 1, 1000000); break;
        case OPT_SWEEPS: parse_sweeps(optarg, so.sweeps); break;
        case '?': lbp_bad_option();
        default:
            if (!lbp_common_opt(&c, o, optarg, USAGE))
                lbp_bad_option();
        }
    }
    if (optind < argc)
        lbp_usage_error("unexpected argument '%s'", argv[optind]);

    lbp_device d;
    lbp_open_from_cli(&d, &c);
    const int cpu = lbp_is_cpu(&d.info), quick = c.quick;

    /* Which sweeps run. */
    for (int i = 0; i < SW_COUNT; i++)
        if (so.sweeps[i] < 0)
            so.sweeps[i] = i == SW_LIKWID ? cpu && stream_likwid_available() : 1;
    if (so.sweeps[SW_LIKWID] && !cpu)
        lbp_usage_error("--sweeps: likwid measures the host CPU, but %s is a %s device", d.info.name,
                        lbp_kind_name(d.info.kind));

    /* Sizes: check what was asked for against the device, then the defaults. */
    int64_t limit = hard_limit(&d);
    if (so.max_size > limit)
        refuse_size(&d, "--max-size", so.max_size);
    for (int i = 0; i < so.n_sizes; i++)
        if (so.sizes[i] > limit || (so.max_size && so.sizes[i] > so.max_size))
            refuse_size(&d, "--sizes", so.sizes[i]);
    int64_t cap = cpu ? 512 * MiB : 4 * GiB;
    if (quick)
        cap = cpu ? 64 * MiB : 1 * GiB;
    if (d.info.global_mem_bytes / 4 < cap)
        cap = d.info.global_mem_bytes / 4 / 16 * 16;
    if (cap > limit)
        cap = limit;
    if (so.max_size)
        cap = so.max_size;
    if (so.n_sizes == 0) {
        if (quick) {
            int64_t q[] = {4 * KiB, 256 * KiB, 16 * MiB, cap};
            for (int i = 0; i < 4; i++)
                if (q[i] <= cap && (so.n_sizes == 0 || q[i] > so.sizes[so.n_sizes - 1]))
                    so.sizes[so.n_sizes++] = q[i];
        } else {
            for (int64_t s = 4 * KiB; s <= cap && so.n_sizes < MAX_SIZES; s *= 2)
                so.sizes[so.n_sizes++] = s;
        }
        if (so.n_sizes == 0)
            so.sizes[so.n_sizes++] = cap;
    }
    /* The fixed large array of the word, blocks, block_size and reference
     * sweeps: at least 8x the L2 so the copy streams from DRAM. */
    int64_t fixed = pow2_at_least(8 * (d.info.l2_bytes > 0 ? d.info.l2_bytes : 32 * MiB));
    if (!cpu && fixed < 1 * GiB)
        fixed = 1 * GiB;
    int64_t fixed_cap = quick ? (cpu ? 32 * MiB : 512 * MiB) : (cpu ? 256 * MiB : 4 * GiB);
    if (fixed > fixed_cap)
        fixed = fixed_cap;
    if (fixed > cap)
        fixed = cap;
    int any_fixed = so.sweeps[SW_WORD] || so.sweeps[SW_BLOCKS] || so.sweeps[SW_BLOCK_SIZE] ||
                    so.sweeps[SW_REFERENCE] || so.sweeps[SW_LIKWID];
    int64_t capacity = any_fixed ? fixed : 0;
    if (so.sweeps[SW_SIZE])
        for (int i = 0; i < so.n_sizes; i++)
            if (so.sizes[i] > capacity)
                capacity = so.sizes[i];

    /* Transfer sizes: 4 KiB .. 256 MiB (64 MiB on a CPU), doubling. */
    int64_t transfer_sizes[MAX_SIZES];
    int n_transfer = 0;
    int64_t transfer_max = quick ? 4 * MiB : cpu ? 64 * MiB : 256 * MiB;
    if (transfer_max > limit)
        transfer_max = limit;
    for (int64_t s = 4 * KiB; s <= transfer_max; s *= quick ? 4 : 2)
        transfer_sizes[n_transfer++] = s;

    const char *dir = lbp_result_dir(c.out_dir, &d.info);
    lbp_check_fresh(dir, (const char *const[]){"stream.csv", "transfer.csv", "stream-meta.csv", NULL},
                    c.force);

    stream_bench bench = {0};
    int need_bench = so.sweeps[SW_SIZE] || so.sweeps[SW_WORD] || so.sweeps[SW_BLOCKS] ||
                     so.sweeps[SW_BLOCK_SIZE] || so.sweeps[SW_REFERENCE];
    if (need_bench && stream_bench_init(&bench, &d, capacity) != 0)
        refuse_size(&d, "array size", capacity);

    /* Repetitions: ~0.1 s of timed work per configuration. */
    stream_reps reps = {.fixed_reps = so.reps, .min_reps = cpu ? 5 : 10, .max_reps = cpu ? 500 : 1000,
                        .target_ms = 100, .warmup = cpu ? 1 : 2, .scatter_warn = cpu ? 1.0 : 0.25};
    if (quick)
        reps = (stream_reps){.fixed_reps = so.reps, .min_reps = 3, .max_reps = 30, .target_ms = 10,
                             .warmup = 1, .scatter_warn = 0.5};

    /* Plan, for the progress count. */
    int64_t counts[64];
    int n_counts = block_counts(&d, quick, counts);
    int sizes_bs[8];
    int n_bs = block_sizes(&d, quick, sizes_bs);
    state.total = (so.sweeps[SW_SIZE] ? so.n_sizes : 0) + (so.sweeps[SW_WORD] ? 6 : 0) +
                  (so.sweeps[SW_BLOCKS] ? n_counts : 0) + (so.sweeps[SW_BLOCK_SIZE] ? n_bs : 0) +
                  (so.sweeps[SW_REFERENCE] ? 1 : 0) + (so.sweeps[SW_LIKWID] ? 2 : 0);
    state.t_start = lbp_now();
    if (need_bench || so.sweeps[SW_LIKWID])
        state.stream_csv = lbp_csv_open(dir, "stream.csv",
                                        "sweep,kernel,word_bytes,access,block_size,blocks,array_bytes,"
                                        "bytes_moved,reps,ms_min,ms_median,ms_max,gbs_max,gbs_median",
                                        &d.info, c.force);

    const int plain_block = clamp_block(&d, 256);
    if (so.sweeps[SW_SIZE])
        for (int i = 0; i < so.n_sizes; i++) {
            stream_config cfg = {.word_bytes = 16, .access = STREAM_ACCESS_ONE, .block_size = plain_block,
                                 .elements = so.sizes[i] / 16};
            measure_generated(&bench, "size", &cfg, &reps);
        }
    if (so.sweeps[SW_WORD])
        for (int w = 0; stream_word_sizes[w]; w++)
            for (int a = 0; a < STREAM_ACCESS_COUNT; a++) {
                stream_config cfg = {.word_bytes = stream_word_sizes[w], .access = (stream_access)a,
                                     .block_size = plain_block,
                                     .blocks = full_grid_blocks(&d, plain_block),
                                     .elements = fixed / stream_word_sizes[w]};
                measure_generated(&bench, "word", &cfg, &reps);
            }
    if (so.sweeps[SW_BLOCKS])
        for (int i = 0; i < n_counts; i++) {
            stream_config cfg = {.word_bytes = 16, .access = STREAM_ACCESS_STRIDE, .block_size = plain_block,
                                 .blocks = counts[i], .elements = fixed / 16};
            measure_generated(&bench, "blocks", &cfg, &reps);
        }
    if (so.sweeps[SW_BLOCK_SIZE])
        for (int i = 0; i < n_bs; i++) {
            stream_config cfg = {.word_bytes = 16, .access = STREAM_ACCESS_ONE, .block_size = sizes_bs[i],
                                 .elements = fixed / 16};
            measure_generated(&bench, "block_size", &cfg, &reps);
        }
    double dtod_gbs = NAN;
    if (so.sweeps[SW_REFERENCE]) {
        stream_record r;
        stream_result res;
        char why[512];
        int rc = stream_run_driver_copy(&bench, fixed, &reps, &r, &res, why, sizeof why);
        if (rc != 0)
            fail_run(rc > 0 ? "verification failed: driver device-to-device copy" : "driver copy", why);
        write_row("reference", "memcpy_dtod", 0, "driver", 0, 0, &r, &res);
        add_summary("reference", "driver copy (dtod)", fixed, res.gbs_median, res.gbs_max, 0);
        dtod_gbs = res.gbs_median;
        progress("driver copy");
    }
    if (need_bench)
        stream_bench_free(&bench);

    likwid_summary ls = {0};
    if (so.sweeps[SW_LIKWID])
        run_likwid(&d, fixed, quick, &ls);

    stream_transfer_fit fits[STREAM_TRANSFER_FITS];
    if (so.sweeps[SW_TRANSFER]) {
        state.transfer_csv = lbp_csv_open(dir, "transfer.csv",
                                          "direction,host_memory,bytes,reps,ms_min,ms_median,ms_max,gbs_median",
                                          &d.info, c.force);
        char why[512];
        if (stream_transfer_sweep(&d, transfer_sizes, n_transfer, so.reps, quick, state.transfer_csv, fits,
                                  why, sizeof why) != 0)
            fail_run("transfer sweep", why);
    }

    /* Best generated copy from DRAM: sizes >= 4x the L2; where none was that
     * large (a CPU whose last-level cache is huge), the fixed large size of
     * the word/blocks/block_size sweeps and above, or else the largest. */
    int64_t dram_from = 4 * d.info.l2_bytes, largest = 0;
    for (int i = 0; i < state.n_rows; i++)
        if (state.rows[i].generated && state.rows[i].array_bytes > largest)
            largest = state.rows[i].array_bytes;
    int below_l2 = largest > 0 && largest < dram_from;
    if (below_l2)
        dram_from = any_fixed && fixed <= largest ? fixed : largest;
    const summary_row *best = NULL;
    for (int i = 0; i < state.n_rows; i++) {
        const summary_row *r = &state.rows[i];
        if (r->generated && r->array_bytes >= dram_from && (!best || r->gbs_median > best->gbs_median))
            best = r;
    }

    lbp_meta *meta = lbp_meta_new("stream", &d.info, argc, argv);
    char fixed_h[32];
    human_bytes(fixed_h, sizeof fixed_h, fixed);
    if (best) {
        char a[32];
        human_bytes(a, sizeof a, best->array_bytes);
        lbp_meta_set(meta, "best_copy_gbs", "%.3f", best->gbs_median);
        lbp_meta_set(meta, "best_copy_config", "%s sweep: %s; %s arrays%s", best->sweep, best->config, a,
           below_l2 ? " (no array >= 4x L2 measured)" : "");
    }
    if (!isnan(dtod_gbs))
        lbp_meta_set(meta, "dtod_gbs", "%.3f", dtod_gbs);
    if (any_fixed)
        lbp_meta_set(meta, "fixed_array_bytes", "%" PRId64, fixed);
    if (so.sweeps[SW_TRANSFER]) {
        for (int i = 0; i < STREAM_TRANSFER_FITS; i++) {
            char latency[64], gbs[64];
            snprintf(latency, sizeof latency, "transfer_%s_%s_latency_us", fits[i].direction, fits[i].host_memory);
            snprintf(gbs, sizeof gbs, "transfer_%s_%s_gbs", fits[i].direction, fits[i].host_memory);
            /* a curve without a fit (too few sizes, a slope <= 0) leaves its keys out */
            if (isfinite(fits[i].latency_us)) lbp_meta_set(meta, latency, "%.3f", fits[i].latency_us);
            if (isfinite(fits[i].gbs)) lbp_meta_set(meta, gbs, "%.3f", fits[i].gbs);
        }
    }
    if (ls.ran) {
        lbp_meta_set(meta, "likwid_copy_gbs", "%.3f", ls.copy_gbs);
        lbp_meta_set(meta, "likwid_copy_mem_gbs", "%.3f", ls.copy_mem_gbs);
        lbp_meta_set(meta, "likwid_threads", "%d", ls.threads);
        lbp_meta_set(meta, "write_allocate", "%s", stream_write_allocate_verdict(ls.copy_gbs, ls.copy_mem_gbs));
    }

    if (state.stream_csv)
        lbp_csv_commit(state.stream_csv);
    if (state.transfer_csv)
        lbp_csv_commit(state.transfer_csv);
    lbp_meta_write(meta, dir, c.force);

    /* The table. */
    printf("%-10s  %-30s  %9s  %11s  %9s\n", "sweep", "config", "array", "GB/s median", "GB/s best");
    for (int i = 0; i < state.n_rows; i++) {
        const summary_row *r = &state.rows[i];
        char a[32];
        human_bytes(a, sizeof a, r->array_bytes);
        printf("%-10s  %-30s  %9s  %11.1f  %9.1f\n", r->sweep, r->config, a, r->gbs_median, r->gbs_max);
    }
    if (so.sweeps[SW_TRANSFER])
        for (int i = 0; i < STREAM_TRANSFER_FITS; i++) {
            if (isfinite(fits[i].gbs))
                printf("transfer %s %-8s  latency %8.2f us  bandwidth %8.2f GB/s  (fit T = latency + s/bandwidth)\n",
                       fits[i].direction, fits[i].host_memory, fits[i].latency_us, fits[i].gbs);
            else
                printf("transfer %s %-8s  no fit of T = latency + s/bandwidth (time does not grow with size)\n",
                       fits[i].direction, fits[i].host_memory);
        }
    double theo = theoretical_or_nan(&d);
    if (best)
        printf("best copy   %9.1f GB/s  (%s, %s%s)\n", best->gbs_median, best->sweep, best->config,
               below_l2 ? "; no array >= 4x L2 measured" : "");
    if (!isnan(dtod_gbs))
        printf("driver copy %9.1f GB/s  (device-to-device, %s)\n", dtod_gbs, fixed_h);
    if (!isnan(theo))
        printf("theoretical %9.1f GB/s  (memory clock x bus width)\n", theo);
    if (best && !isnan(theo))
        printf("best copy is %.1f %% of theoretical\n", 100 * best->gbs_median / theo);
    if (best && !isnan(dtod_gbs))
        printf("best copy is %.1f %% of the driver copy\n", 100 * best->gbs_median / dtod_gbs);
    if (ls.ran)
        printf("likwid-bench copy %.1f GB/s, copy_mem %.1f GB/s: write-allocate %s\n", ls.copy_gbs,
               ls.copy_mem_gbs, stream_write_allocate_verdict(ls.copy_gbs, ls.copy_mem_gbs));
    printf("results in %s\n", dir);
    lbp_close(&d);
    return 0;
}
