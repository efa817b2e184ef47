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
#include "interconnect.h"
#include "likwid.h"
#include "plan.h"
#include "ranks.h"
#include "stats.h"
#include "transfer.h"

#define USAGE_HEAD                                                                              \
    "usage: stream [options]\n"                                                                 \
    "Sustained bandwidth from generated STREAM-copy kernels (c[i] = a[i]), every element\n"    \
    "verified; results in <out>/stream.csv, transfer.csv, stream-meta.csv.\n"                   \
    "  --sweeps LIST       any of size,word,blocks,block_size,reference,transfer,likwid\n"       \
    "                      (default: all that apply; likwid only on a CPU device,\n"       \
    "                      transfer only on a GPU: a CPU device's memory is the host's)\n"   \
    "  --sizes LIST        array sizes for the size sweep: bytes with K/M/G, comma-separated,\n" \
    "                      or a doubling range A..B (default 4K..min(4G, memory/4) on a GPU,\n" \
    "                      4K..512M on a CPU); multiples of 16 bytes\n"                         \
    "  --max-size BYTES    largest array any sweep uses\n"                                    \
    "  --reps N            exactly N timed repetitions per configuration (default: enough\n"    \
    "                      for ~0.1 s of timed work, at least 10 on a GPU, 5 on a CPU)\n"
#define USAGE_RANKS                                                                              \
    "  --interconnect      under mpirun (a rank per device): instead of the sweeps, every pair\n" \
    "                      of ranks, one message one way and one each way at once, then rings\n" \
    "                      of ranks 0..R-1 (R = 2, 4, 8, ... and all) where every rank sends one\n" \
    "                      to each neighbour and receives one from each, all at once; over message\n" \
    "                      sizes (--sizes; default 4K..64M by 4 and the D3Q19 halo's 5 planes of\n" \
    "                      128^2, 256^2, 512^2 in fp32 and fp64), each moved in 5 parts as the\n" \
    "                      halo exchange moves it, verified, fitted T(s) = latency + s/bandwidth\n" \
    "                      (s: the bytes a rank moves: both messages both ways, a ring's four);\n" \
    "                      results in <out>/interconnect.csv, interconnect-fit.csv,\n"          \
    "                      interconnect-meta.csv\n"                                             \
    "  --exchange LIST     --interconnect's paths, any of host,peer,mpi (default: each this\n"  \
    "                      device and MPI library offer); one they lack: exit 2\n"             \
    "  --beside LIST       --interconnect's conditions, any of none,copy (default both): none\n" \
    "                      times each exchange alone; copy times the rings again while every\n" \
    "                      rank's device runs a STREAM copy on another queue (as the interior\n" \
    "                      kernel runs beside the exchange with overlap on), at the sizes from\n" \
    "                      256K to 16M, each run beside paired with one alone just before it;\n" \
    "                      columns beside (both files), paired_* (interconnect.csv)\n"          \
    "  --beside-bytes N    the copy's array (default 256M on a GPU, 16M on a CPU)\n"
/* Without MPI --interconnect is not offered (a script can tell from --help). */
#define USAGE USAGE_HEAD USAGE_RANKS LBP_COMMON_HELP
#define USAGE_ONE_RANK USAGE_HEAD LBP_COMMON_HELP
static const char *usage(void) { return lbp_mpi_built() ? USAGE : USAGE_ONE_RANK; }

enum { OPT_SIZES = LBP_OPT_FIRST_TOOL, OPT_MAX_SIZE, OPT_REPS, OPT_SWEEPS, OPT_INTERCONNECT, OPT_EXCHANGE, OPT_BESIDE,
       OPT_BESIDE_BYTES, OPT_PLANT };

#define MAX_SUMMARY 256 /* rows of the stdout table */

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
    char *copy = lbp_list_copy("--sizes", s);
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
    for (int i = 0; i < STREAM_SW_COUNT; i++)
        sweeps[i] = 0;
    char *copy = lbp_list_copy("--sweeps", s);
    int any = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
        sweeps[lbp_parse_choice("--sweeps", tok, stream_sweep_names)] = 1;
        any = 1;
    }
    free(copy);
    if (!any)
        lbp_usage_error("--sweeps: '%s' names no sweep", s);
}

/* "host,peer": paths of the exchange (none is not one). */
static int parse_paths(const char *s, int *out)
{
    static const char *const paths[] = {"host", "peer", "mpi", NULL};
    int n = 0;
    char *copy = lbp_list_copy("--exchange", s);
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const int p = 1 + lbp_parse_choice("--exchange", tok, paths);
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= out[i] == p;
        if (!dup) out[n++] = p;
    }
    free(copy);
    if (!n) lbp_usage_error("--exchange: empty list");
    return n;
}

/* "none,copy": what runs beside the interconnect's exchanges */
static void parse_beside(const char *s, int *out)
{
    int any = 0;
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS; b++) out[b] = 0;
    char *copy = lbp_list_copy("--beside", s);
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        out[lbp_parse_choice("--beside", tok, stream_ic_beside_names)] = 1;
        any = 1;
    }
    free(copy);
    if (!any) lbp_usage_error("--beside: '%s' names nothing", s);
}

static void parse_options(int argc, char **argv, stream_options *so, stream_ic_opts *ic, lbp_common *c)
{
    static const struct option opts[] = {LBP_COMMON_LONGOPTS,
                                         {"sizes", required_argument, 0, OPT_SIZES},
                                         {"max-size", required_argument, 0, OPT_MAX_SIZE},
                                         {"reps", required_argument, 0, OPT_REPS},
                                         {"sweeps", required_argument, 0, OPT_SWEEPS},
                                         {"interconnect", no_argument, 0, OPT_INTERCONNECT},
                                         {"exchange", required_argument, 0, OPT_EXCHANGE},
                                         {"beside", required_argument, 0, OPT_BESIDE},
                                         {"beside-bytes", required_argument, 0, OPT_BESIDE_BYTES},
                                         {"plant-error", no_argument, 0, OPT_PLANT}, /* tests: a wrong copy beside must fail */
                                         {0, 0, 0, 0}};
    int beside_given = 0;
    for (int i = 0; i < STREAM_SW_COUNT; i++)
        so->sweeps[i] = -1;
    int o;
    while ((o = lbp_getopt(argc, argv, opts)) != -1) {
        switch (o) {
        case OPT_SIZES: so->n_sizes = parse_sizes(optarg, so->sizes, STREAM_MAX_SIZES); break;
        case OPT_MAX_SIZE: so->max_size = parse_size("--max-size", optarg); break;
        case OPT_REPS: so->reps = (int)lbp_parse_int("--reps", optarg, 1, 1000000); break;
        case OPT_SWEEPS: parse_sweeps(optarg, so->sweeps); break;
        case OPT_INTERCONNECT:
        case OPT_EXCHANGE:
        case OPT_BESIDE:
        case OPT_BESIDE_BYTES:
            if (!lbp_mpi_built())
                lbp_usage_error("--interconnect, --exchange, --beside: built without MPI (make deps installs Open MPI, "
                                "then make clean all)");
            if (o == OPT_INTERCONNECT) so->interconnect = 1;
            else if (o == OPT_EXCHANGE) ic->npaths = parse_paths(optarg, ic->paths);
            else if (o == OPT_BESIDE) parse_beside(optarg, ic->beside);
            else ic->beside_bytes = lbp_parse_bytes("--beside-bytes", optarg, 16 << 10, (long long)1 << 40);
            beside_given |= o == OPT_BESIDE || o == OPT_BESIDE_BYTES;
            break;
        case OPT_PLANT: ic->plant_error = 1; break;
            default:
            if (!lbp_common_opt(c, o, optarg, usage()))
                lbp_bad_option();
        }
    }
    if (optind < argc)
        lbp_usage_error("unexpected argument '%s'", argv[optind]);
    so->quick = c->quick;
    if (ic->npaths && !so->interconnect) lbp_usage_error("--exchange: only with --interconnect");
    if (beside_given && !so->interconnect) lbp_usage_error("--beside, --beside-bytes: only with --interconnect");
    int any_beside = 0;
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS; b++) any_beside |= ic->beside[b];
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS && !any_beside; b++) ic->beside[b] = 1;
    /* the interconnect's messages: the sizes given, else its own sweep */
    ic->quick = c->quick;
    ic->reps = so->reps;
    ic->regions = 5; /* a D3Q19 face: 5 populations cross it */
    if (!so->n_sizes) ic->nsizes = stream_ic_default_sizes(ic->sizes, c->quick);
    for (int i = 0; i < so->n_sizes && i < STREAM_IC_MAX_SIZES; i++) ic->sizes[ic->nsizes++] = so->sizes[i];
}

/* ---- the run: every step of the plan, verified, into its rows ------------ */

/* One line of the stdout table, and what the meta keys are chosen from. */
typedef struct {
    stream_sweep sweep;
    char config[96];
    int64_t array_bytes;
    double gbs_median, gbs_max;
    int generated;          /* a generated copy kernel (not the driver, not likwid) */
} summary_row;

/* One likwid-bench run. */
typedef struct {
    int kernel, threads;
    stream_likwid_result res;
} likwid_point;
#define MAX_LIKWID 1024

typedef struct {
    lbp_device *d;
    const stream_plan *plan;
    const stream_options *opt;
    lbp_csv *stream_csv, *transfer_csv;
    stream_bench bench;     /* the copies' arrays, while a copy is ahead */
    stream_transfers transfers;
    summary_row rows[MAX_SUMMARY];
    int n_rows;
    double dtod_gbs;        /* the driver copy; NaN: not measured */
    likwid_point likwid[MAX_LIKWID];
    int n_likwid, likwid_failed;
    stream_transfer_fit fits[STREAM_TRANSFER_FITS];
    int done;
    double t_start;
} stream_run;

static _Noreturn void fail_run(stream_run *r, const char *what, const char *why)
{
    if (r->stream_csv)
        lbp_csv_abort(r->stream_csv);
    if (r->transfer_csv)
        lbp_csv_abort(r->transfer_csv);
    lbp_fail("%s: %s; nothing written", what, why);
}

static void add_summary(stream_run *r, stream_sweep sweep, const char *config, int64_t array_bytes,
                        double gbs_median, double gbs_max, int generated)
{
    if (r->n_rows == MAX_SUMMARY)
        return;
    summary_row *s = &r->rows[r->n_rows++];
    *s = (summary_row){.sweep = sweep, .array_bytes = array_bytes, .gbs_median = gbs_median, .gbs_max = gbs_max,
                       .generated = generated};
    snprintf(s->config, sizeof s->config, "%s", config);
}

static void write_row(stream_run *r, stream_sweep sweep, const char *kernel, int word_bytes, const char *access,
                      int block_size, int64_t blocks, const stream_record *rec, const stream_result *res)
{
    lbp_csv_row(r->stream_csv, "%s,%s,%d,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%.6f,%.6f,%.6f,%.3f,%.3f,0",
                stream_sweep_names[sweep], kernel, word_bytes, access, block_size, blocks, stream_array_bytes(rec),
                stream_bytes_moved(rec), res->reps, res->ms.min, res->ms.median, res->ms.max, res->gbs_max,
                res->gbs_median);
}

/* Small arrays take microseconds: their scatter is launch noise, so warn
 * only when it is gross. */
static stream_reps reps_for_array(const stream_reps *reps, int64_t array_bytes)
{
    stream_reps r = *reps;
    if (array_bytes < ((int64_t)1 << 20) && r.scatter_warn < 2.0)
        r.scatter_warn = 2.0;
    return r;
}

/* A generated copy: run, verify, record; its name is the progress label. */
static void step_generated(stream_run *r, const stream_step *s, char *label, size_t len)
{
    const char *sweep = stream_sweep_names[s->sweep];
    const stream_reps reps = reps_for_array(&r->plan->reps, s->cfg.elements * s->cfg.word_bytes);
    stream_kernel k;
    stream_result res;
    char why[512];
    int rc = stream_run_generated(&r->bench, &s->cfg, &reps, &k, &res, why, sizeof why);
    snprintf(label, len, "%s x%u", k.name, k.blocks);
    if (rc < 0)
        fail_run(r, sweep, why);
    if (rc > 0) {
        char what[256], a[32];
        lbp_bytes_text(a, sizeof a, stream_array_bytes(&k.record));
        snprintf(what, sizeof what, "verification failed: %s sweep, %s, %s", sweep, label, a);
        fail_run(r, what, why);
    }
    write_row(r, s->sweep, "copy", s->cfg.word_bytes, stream_access_names[s->cfg.access], (int)k.block_size, k.blocks,
              &k.record, &res);
    add_summary(r, s->sweep, label, stream_array_bytes(&k.record), res.gbs_median, res.gbs_max, 1);
}

static void step_driver_copy(stream_run *r, const stream_step *s, char *label, size_t len)
{
    stream_record rec;
    stream_result res;
    char why[512];
    int rc = stream_run_driver_copy(&r->bench, s->bytes, &r->plan->reps, &rec, &res, why, sizeof why);
    if (rc != 0)
        fail_run(r, rc > 0 ? "verification failed: driver device-to-device copy" : "driver copy", why);
    write_row(r, s->sweep, "memcpy_dtod", 0, "driver", 0, 0, &rec, &res);
    add_summary(r, s->sweep, "driver copy (dtod)", s->bytes, res.gbs_median, res.gbs_max, 0);
    r->dtod_gbs = res.gbs_median;
    snprintf(label, len, "driver copy");
}

static double likwid_gbs(const likwid_point *p) { return p->res.mbytes_per_s / 1e3; }

/* likwid-bench is a reference, not a measurement of ours: where it fails,
 * a warning, and no likwid row from then on.  0: skipped, no progress. */
static int step_likwid(stream_run *r, const stream_step *s, char *label, size_t len)
{
    if (r->likwid_failed || r->n_likwid == MAX_LIKWID)
        return 0;
    likwid_point *p = &r->likwid[r->n_likwid];
    *p = (likwid_point){.kernel = s->likwid, .threads = s->threads};
    char why[512];
    if (stream_likwid_run(stream_likwid_kernels[s->likwid], s->bytes, s->threads, r->opt->quick ? 3 : 10, &p->res, why,
                          sizeof why) != 0) {
        lbp_warn("likwid-bench skipped: %s", why);
        r->likwid_failed = 1;
        return 0;
    }
    r->n_likwid++;
    const double ms = p->res.time_s * 1e3 / (double)p->res.iterations;
    lbp_csv_row(r->stream_csv, "likwid,%s,8,cpu,0,0,%" PRId64 ",%" PRId64 ",%ld,%.6f,%.6f,%.6f,%.3f,%.3f,%d",
                stream_likwid_kernels[s->likwid], p->res.bytes_per_iteration / 2, p->res.bytes_per_iteration,
                p->res.iterations, ms, ms, ms, likwid_gbs(p), likwid_gbs(p), s->threads);
    snprintf(label, len, "likwid-bench %s, %d thread%s", stream_likwid_kernels[s->likwid], s->threads,
             s->threads == 1 ? "" : "s");
    return 1;
}

/* A kernel's runs at `threads`, in the order they ran; returns how many. */
static int likwid_samples(const stream_run *r, int kernel, int threads, double *gbs, int max)
{
    int n = 0;
    for (int i = 0; i < r->n_likwid && n < max; i++)
        if (r->likwid[i].kernel == kernel && r->likwid[i].threads == threads) gbs[n++] = likwid_gbs(&r->likwid[i]);
    return n;
}

/* The write-allocate verdict from the samples of copy and copy_mem at all
 * cores; samples 0 where likwid did not run there. */
static stream_write_allocate likwid_write_allocate(const stream_run *r)
{
    double copy[64], copy_mem[64];
    int n = likwid_samples(r, STREAM_LIKWID_COPY, r->plan->likwid_threads, copy, 64);
    const int m = likwid_samples(r, STREAM_LIKWID_COPY_MEM, r->plan->likwid_threads, copy_mem, 64);
    if (m < n) n = m;
    return stream_write_allocate_decide(copy, copy_mem, n);
}

/* The median of a kernel's runs at all cores, NaN where none ran. */
static double likwid_at_all_cores(const stream_run *r, int kernel)
{
    double gbs[64];
    const int n = likwid_samples(r, kernel, r->plan->likwid_threads, gbs, 64);
    return n ? lbp_stats_of(gbs, n).median : NAN;
}

static void step_transfer(stream_run *r, const stream_step *s, char *label, size_t len)
{
    char why[512];
    if (!r->transfers.dev) {
        int64_t most = 0;
        for (int i = 0; i < r->plan->n; i++)
            if (r->plan->steps[i].kind == STREAM_STEP_TRANSFER && r->plan->steps[i].bytes > most)
                most = r->plan->steps[i].bytes;
        if (stream_transfers_open(&r->transfers, r->d, most, why, sizeof why))
            fail_run(r, "transfer sweep", why);
    }
    if (stream_transfer_measure(&r->transfers, s->pinned, s->bytes, r->opt->reps, r->opt->quick, r->transfer_csv, why,
                                sizeof why))
        fail_run(r, "transfer sweep", why);
    snprintf(label, len, "transfer %s %" PRId64 " B", s->pinned ? "pinned" : "pageable", s->bytes);
}

static int uses_bench(const stream_step *s)
{
    return s->kind == STREAM_STEP_GENERATED || s->kind == STREAM_STEP_DRIVER_COPY;
}

/* One step; the copies' arrays are given back before the first step that
 * does not use them (likwid and the transfers need the memory). */
static void run_step(stream_run *r, const stream_step *s)
{
    char label[128];
    int shown = 1;
    if (!uses_bench(s) && r->bench.d)
        stream_bench_free(&r->bench);
    switch (s->kind) {
    case STREAM_STEP_GENERATED: step_generated(r, s, label, sizeof label); break;
    case STREAM_STEP_DRIVER_COPY: step_driver_copy(r, s, label, sizeof label); break;
    case STREAM_STEP_LIKWID: shown = step_likwid(r, s, label, sizeof label); break;
    case STREAM_STEP_TRANSFER: step_transfer(r, s, label, sizeof label); break;
    }
    r->done++;
    if (shown)
        lbp_progress(r->done, r->plan->n, lbp_now() - r->t_start, "%s", label);
}

static void run_plan(stream_run *r, const char *dir, int force)
{
    if (r->plan->capacity > 0 && stream_bench_init(&r->bench, r->d, r->plan->capacity) != 0)
        stream_refuse_size(&r->d->info, "array size", r->plan->capacity);
    r->t_start = lbp_now();
    if (r->plan->n - stream_plan_count(r->plan, STREAM_STEP_TRANSFER) > 0)
        r->stream_csv = lbp_csv_open(dir, "stream.csv",
                                     "sweep,kernel,word_bytes,access,block_size,blocks,array_bytes,"
                                     "bytes_moved,reps,ms_min,ms_median,ms_max,gbs_max,gbs_median,threads",
                                     &r->d->info, force);
    if (stream_plan_count(r->plan, STREAM_STEP_TRANSFER) > 0)
        r->transfer_csv = lbp_csv_open(dir, "transfer.csv",
                                       "direction,host_memory,bytes,reps,ms_min,ms_median,ms_max,gbs_median",
                                       &r->d->info, force);
    for (int i = 0; i < r->plan->n; i++)
        run_step(r, &r->plan->steps[i]);
    if (r->bench.d)
        stream_bench_free(&r->bench);
    if (r->transfers.dev) {
        stream_transfers_fit(&r->transfers, r->fits);
        stream_transfers_close(&r->transfers);
    }
}

/* ---- the report ------------------------------------------------------- */

/* Best generated copy from DRAM: sizes >= 4x the L2; where none was that
 * large (a CPU whose last-level cache is huge), the fixed large size of
 * the word/blocks/block_size sweeps and above, or else the largest. */
static const summary_row *best_copy(const stream_run *r, int *below_l2)
{
    int64_t dram_from = 4 * r->d->info.l2_bytes, largest = 0;
    for (int i = 0; i < r->n_rows; i++)
        if (r->rows[i].generated && r->rows[i].array_bytes > largest)
            largest = r->rows[i].array_bytes;
    *below_l2 = largest > 0 && largest < dram_from;
    if (*below_l2)
        dram_from = r->plan->any_fixed && r->plan->fixed <= largest ? r->plan->fixed : largest;
    const summary_row *best = NULL;
    for (int i = 0; i < r->n_rows; i++) {
        const summary_row *s = &r->rows[i];
        if (s->generated && s->array_bytes >= dram_from && (!best || s->gbs_median > best->gbs_median))
            best = s;
    }
    return best;
}

static int measured_transfers(const stream_run *r)
{
    return stream_plan_count(r->plan, STREAM_STEP_TRANSFER) > 0;
}

/* The fewest threads at which a kernel reaches 90 % of its best median
 * (where the cores saturate the memory); 0 where it did not run. */
static int likwid_saturation(const stream_run *r, int kernel, double *best)
{
    int counts[1024];
    const int n = stream_likwid_thread_counts(r->plan->likwid_threads, r->opt->quick, counts, 1024);
    double at[1024];
    *best = 0;
    for (int i = 0; i < n; i++) {
        double gbs[64];
        const int k = likwid_samples(r, kernel, counts[i], gbs, 64);
        at[i] = k ? lbp_stats_of(gbs, k).median : 0;
        if (at[i] > *best) *best = at[i];
    }
    for (int i = 0; i < n; i++)
        if (*best > 0 && at[i] >= 0.9 * *best) return counts[i];
    return 0;
}

/* What a quick run leaves out of likwid-bench's (stream_likwid_runs_at),
 * said where a figure would be. */
static const char quick_likwid[] = "--quick runs copy and copy_mem at all cores alone (no saturation curve, no update)";

/* likwid-bench's figures at all cores, where each kernel saturates, and
 * the write-allocate verdict with how it was decided. */
static void likwid_meta(const stream_run *r, lbp_meta *m)
{
    lbp_meta_number(m, "likwid_copy_gbs", "%.3f", likwid_at_all_cores(r, STREAM_LIKWID_COPY));
    lbp_meta_number(m, "likwid_copy_mem_gbs", "%.3f", likwid_at_all_cores(r, STREAM_LIKWID_COPY_MEM));
    if (r->opt->quick) lbp_meta_set(m, "likwid_update_gbs", "not measured: %s", quick_likwid);
    else lbp_meta_number(m, "likwid_update_gbs", "%.3f", likwid_at_all_cores(r, STREAM_LIKWID_UPDATE));
    lbp_meta_set(m, "likwid_threads", "%d", r->plan->likwid_threads);
    lbp_meta_set(m, "likwid_working_set_bytes", "%" PRId64, r->plan->likwid_bytes);
    for (int k = 0; k < STREAM_LIKWID_KERNELS; k++) {
        char key[64];
        double best;
        snprintf(key, sizeof key, "likwid_%s_saturation_threads", stream_likwid_kernels[k]);
        if (!r->opt->quick)
            lbp_meta_set(m, key, "%d", likwid_saturation(r, k, &best));
        else
            lbp_meta_set(m, key, "not measured: %s", quick_likwid);
    }
    const stream_write_allocate w = likwid_write_allocate(r);
    lbp_meta_set(m, "write_allocate", "%s", w.verdict);
    lbp_meta_number(m, "write_allocate_ratio", "%.3f", w.ratio);
    lbp_meta_number(m, "write_allocate_ratio_min", "%.3f", w.ratio_min);
    lbp_meta_number(m, "write_allocate_ratio_max", "%.3f", w.ratio_max);
    lbp_meta_set(m, "write_allocate_samples", "%d", w.samples);
    lbp_meta_set(m, "write_allocate_close", "%d", w.close);
    lbp_meta_set(m, "write_allocate_rule",
                 "likwid-bench copy_mem / copy: medians of %d samples each at %d threads on %" PRId64
                 " MB; yes above %.2f; no below %.2f; close within %.2f of either or with samples on both sides",
                 w.samples, r->plan->likwid_threads, r->plan->likwid_bytes / 1000000, LBP_WA_YES_ABOVE,
                 LBP_WA_NO_BELOW, LBP_WA_MARGIN);
}

static void write_meta(const stream_run *r, const char *dir, int force, int argc, char **argv)
{
    lbp_meta *m = lbp_meta_new("stream", &r->d->info, argc, argv);
    int below_l2;
    const summary_row *best = best_copy(r, &below_l2);
    if (best) {
        char a[32];
        lbp_bytes_text(a, sizeof a, best->array_bytes);
        lbp_meta_set(m, "best_copy_gbs", "%.3f", best->gbs_median);
        lbp_meta_set(m, "best_copy_config", "%s sweep: %s; %s arrays%s", stream_sweep_names[best->sweep],
                     best->config, a, below_l2 ? " (no array >= 4x L2 measured)" : "");
    }
    if (!isnan(r->dtod_gbs))
        lbp_meta_set(m, "dtod_gbs", "%.3f", r->dtod_gbs);
    if (r->plan->any_fixed)
        lbp_meta_set(m, "fixed_array_bytes", "%" PRId64, r->plan->fixed);
    for (int i = 0; i < STREAM_TRANSFER_FITS && measured_transfers(r); i++) {
        const stream_transfer_fit *f = &r->fits[i];
        char latency[64], gbs[64];
        snprintf(latency, sizeof latency, "transfer_%s_%s_latency_us", f->direction, f->host_memory);
        snprintf(gbs, sizeof gbs, "transfer_%s_%s_gbs", f->direction, f->host_memory);
        /* a curve without a fit (too few sizes, a slope <= 0) leaves its keys out */
        if (isfinite(f->latency_us))
            lbp_meta_set(m, latency, "%.3f", f->latency_us);
        if (isfinite(f->gbs))
            lbp_meta_set(m, gbs, "%.3f", f->gbs);
    }
    if (r->n_likwid)
        likwid_meta(r, m);
    lbp_meta_write(m, dir, force);
}

/* A fitted latency below zero is the intercept of a line through
 * scattered small transfers, not a time: said so, not printed as one. */
static void print_transfer_fits(const stream_run *r)
{
    if (lbp_is_cpu(&r->d->info))
        printf("transfer    not measured on this backend (a cpu device's memory is the host's)\n");
    for (int i = 0; i < STREAM_TRANSFER_FITS && measured_transfers(r); i++) {
        const stream_transfer_fit *f = &r->fits[i];
        if (isfinite(f->gbs) && !(f->latency_us >= 0))
            printf("transfer %s %-8s  latency n/a (fitted %.3f us: within noise of 0)  bandwidth %8.2f GB/s  (fit T = "
                   "latency + s/bandwidth)\n", f->direction, f->host_memory, f->latency_us, f->gbs);
        else if (isfinite(f->gbs))
            printf("transfer %s %-8s  latency %8.2f us  bandwidth %8.2f GB/s  (fit T = latency + s/bandwidth)\n",
                   f->direction, f->host_memory, f->latency_us, f->gbs);
        else
            printf("transfer %s %-8s  no fit of T = latency + s/bandwidth (time does not grow with size)\n",
                   f->direction, f->host_memory);
    }
}

static void print_likwid(const stream_run *r)
{
    for (int k = 0; k < STREAM_LIKWID_KERNELS; k++) {
        double best;
        const int sat = likwid_saturation(r, k, &best);
        if (r->opt->quick && k == STREAM_LIKWID_UPDATE)
            printf("likwid-bench %-8s not measured\n", stream_likwid_kernels[k]);
        else if (r->opt->quick)
            printf("likwid-bench %-8s %7.1f GB/s at %d threads\n", stream_likwid_kernels[k], likwid_at_all_cores(r, k),
                   r->plan->likwid_threads);
        else
            printf("likwid-bench %-8s %7.1f GB/s at %d threads; 90 %% of its best (%.1f) from %d thread%s\n",
                   stream_likwid_kernels[k], likwid_at_all_cores(r, k), r->plan->likwid_threads, best, sat,
                   sat == 1 ? "" : "s");
    }
    if (r->opt->quick) printf("likwid-bench: %s\n", quick_likwid);
    const stream_write_allocate w = likwid_write_allocate(r);
    printf("write-allocate %s: copy_mem / copy %.2f (samples %.2f..%.2f, %d each)\n", w.verdict, w.ratio, w.ratio_min,
           w.ratio_max, w.samples);
    if (w.close)
        lbp_warn("the write-allocate verdict '%s' is close: copy_mem / copy %.2f (samples %.2f..%.2f) near %.2f or "
                 "%.2f", w.verdict, w.ratio, w.ratio_min, w.ratio_max, LBP_WA_NO_BELOW, LBP_WA_YES_ABOVE);
}

static void print_table(const stream_run *r, const char *dir)
{
    printf("%-10s  %-30s  %9s  %11s  %9s\n", "sweep", "config", "array", "GB/s median", "GB/s best");
    for (int i = 0; i < r->n_rows; i++) {
        const summary_row *s = &r->rows[i];
        char a[32];
        lbp_bytes_text(a, sizeof a, s->array_bytes);
        printf("%-10s  %-30s  %9s  %11.1f  %9.1f\n", stream_sweep_names[s->sweep], s->config, a, s->gbs_median,
               s->gbs_max);
    }
    print_transfer_fits(r);
    int below_l2;
    const summary_row *best = best_copy(r, &below_l2);
    const double theo = r->d->info.theoretical_gbs > 0 ? r->d->info.theoretical_gbs : NAN;
    char fixed[32];
    lbp_bytes_text(fixed, sizeof fixed, r->plan->fixed);
    if (best)
        printf("best copy   %9.1f GB/s  (%s, %s%s)\n", best->gbs_median, stream_sweep_names[best->sweep], best->config,
               below_l2 ? "; no array >= 4x L2 measured" : "");
    if (!isnan(r->dtod_gbs))
        printf("driver copy %9.1f GB/s  (device-to-device, %s)\n", r->dtod_gbs, fixed);
    if (!isnan(theo))
        printf("theoretical %9.1f GB/s  (memory clock x bus width)\n", theo);
    if (best && !isnan(theo))
        printf("best copy is %.1f %% of theoretical\n", 100 * best->gbs_median / theo);
    if (best && !isnan(r->dtod_gbs))
        printf("best copy is %.1f %% of the driver copy\n", 100 * best->gbs_median / r->dtod_gbs);
    if (r->n_likwid)
        print_likwid(r);
    printf("results in %s\n", dir);
}

/* ---- main: options, plan, run, report ----------------------------------- */

/* The sweeps of one device: plan, run, report. */
static int run_sweeps(lbp_device *d, stream_options *so, const lbp_common *c, int argc, char **argv)
{
    stream_plan plan;
    stream_plan_build(&plan, so, &d->info);
    const char *dir = lbp_result_dir(c->out_dir, &d->info);
    lbp_check_fresh(dir, (const char *const[]){"stream.csv", "transfer.csv", "stream-meta.csv", NULL}, c->force);

    stream_run r = {.d = d, .plan = &plan, .opt = so, .dtod_gbs = NAN};
    run_plan(&r, dir, c->force);
    if (r.stream_csv)
        lbp_csv_finish(r.stream_csv);
    if (r.transfer_csv)
        lbp_csv_finish(r.transfer_csv);
    write_meta(&r, dir, c->force, argc, argv);
    print_table(&r, dir);
    stream_plan_free(&plan);
    return 0;
}

/* Under mpirun every rank parses alike (a usage error ends them all, rank
 * 0 says why); several ranks measure only the interconnect. */
int main(int argc, char **argv)
{
    lbp_cli_init("stream");
    lbp_mpi_init(&argc, &argv);
    stream_options so = {0};
    stream_ic_opts ic = {0};
    lbp_common c = {.device = -1};
    lbp_mpi_replicated_begin();
    parse_options(argc, argv, &so, &ic, &c);
    if (lbp_ranks.size > 1 && !so.interconnect)
        lbp_usage_error("%d ranks: under mpirun stream measures only --interconnect (one device: run it alone)",
                        lbp_ranks.size);
    lbp_mpi_replicated_end();
    lbp_device d;
    lbp_mpi_open_device(&d, &c);
    const int rc = so.interconnect ? stream_interconnect_main(&d, &ic, &c, argc, argv) : run_sweeps(&d, &so, &c, argc, argv);
    lbp_close(&d);
    lbp_mpi_finalize();
    return rc;
}
