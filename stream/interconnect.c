/* The interconnect between ranks (interconnect.h). */
#include "interconnect.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "gen.h"
#include "ranks.h"
#include "stats.h"
#include "transfer.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
enum { TAG_TIMES = 7300 };

const char *const stream_ic_beside_names[] = {"none", "copy", NULL};

int stream_ic_default_sizes(int64_t *out, int quick)
{
    int n = 0;
    for (int64_t s = 4 * KIB; s <= (quick ? MIB : 64 * MIB); s *= 4) out[n++] = s;
    /* a face of the lattice: 5 populations of a plane (lbmkernels/slab.h) */
    static const int planes[] = {128, 256, 512};
    for (int p = 0; p < (quick ? 1 : 3); p++)
        for (int word = 4; word <= 8; word *= 2) out[n++] = 5 * (int64_t)planes[p] * planes[p] * word;
    return n;
}

int stream_ic_beside_sizes(const int64_t *sizes, int n, int64_t *out)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (sizes[i] >= 256 * KIB && sizes[i] <= 16 * MIB) out[m++] = sizes[i];
    if (m) return m;
    memcpy(out, sizes, sizeof *out * (size_t)n);
    return n;
}

/* Byte k of rank r's messages: never the filler of a receive part. */
static uint8_t pattern(int r, int64_t k) { return (uint8_t)(((k * 7 + (k >> 9) + 31 * r) % 251) + 1); }
#define FILLER 0

/* Every rank alike: 0 where no rank failed; else 1, why the lowest failing
 * rank's (mine: this rank's). */
static int agree_failure(int fail, const char *mine, char *why, size_t why_len)
{
    const int first = (int)lbp_mpi_reduce_all(fail ? lbp_ranks.rank : lbp_ranks.size, LBP_MPI_MIN);
    if (first == lbp_ranks.size) return 0;
    snprintf(why, why_len, "%s", mine);
    lbp_mpi_bcast(why, why_len, first);
    return 1;
}

/* Every rank's buffer: the message it sends at [0, max), what it receives
 * at [max, 2 max) (a ring: from the rank above; from below at [2 max,
 * 3 max)). */
typedef struct {
    lbp_device *d;
    lbp_buf *buf;
    int64_t max;
    uint8_t *host;
} ic_buffers;

static int open_buffers(ic_buffers *b, lbp_device *d, int64_t max)
{
    *b = (ic_buffers){.d = d, .max = max};
    b->buf = lbp_alloc(d, (size_t)(3 * max));
    b->host = malloc((size_t)(3 * max));
    const int ok = b->buf && b->host;
    if (lbp_mpi_reduce_all(!ok, LBP_MPI_MAX) > 0) return -1;
    for (int64_t k = 0; k < max; k++) b->host[k] = pattern(lbp_ranks.rank, k);
    memset(b->host + max, FILLER, (size_t)(2 * max));
    lbp_write(d, b->buf, b->host, (size_t)(3 * max));
    return 0;
}

static void close_buffers(ic_buffers *b)
{
    if (b->buf) lbp_release(b->d, b->buf);
    free(b->host);
}

/* `bytes` in `parts` regions from `at` on (the last takes the remainder). */
static int split(lbp_region *r, int parts, lbp_buf *buf, int64_t at, int64_t bytes)
{
    if (parts > bytes) parts = (int)bytes;
    const int64_t each = bytes / parts;
    for (int i = 0; i < parts; i++)
        r[i] = (lbp_region){buf, (size_t)(at + i * each), (size_t)(i == parts - 1 ? bytes - i * each : each)};
    return parts;
}

/* A case: the pair a < b, one-way (a -> b) or both ways; or a ring (ring
 * = its ranks, 0 .. ring - 1, a = 0, b = ring - 1): every rank of it sends
 * the message to both ring neighbours and receives one from each, all at
 * once, as a rank of the lattice exchanges its two faces (lbmkernels/slab.c:
 * a link to the rank above and one to the rank below, both in one run). */
typedef struct {
    int a, b, both, ring;
    stream_ic_beside beside;
    lbp_exchange_path path;
    int64_t bytes;
    int reps;
} ic_case;

enum { TAG_UP, TAG_DOWN }; /* a ring's links, as the lattice's */

/* The load beside an exchange: the suite's STREAM copy (16-byte words, a
 * thread per word, or a row per thread on a CPU, as its kernels run) over
 * arrays far beyond the last-level cache, so that it streams the device's
 * memory as the lattice's interior kernel does, launched on the first
 * queue while the exchange uses the second. */
typedef struct {
    stream_bench bench;
    stream_config cfg;
    stream_kernel kernel;
    double launch_ms;       /* one copy alone (device events, median) */
    double gbs;             /* ... its bandwidth */
} ic_load;

static int64_t load_bytes(const lbp_device *d, int64_t asked)
{
    int64_t bytes = asked > 0 ? asked : lbp_is_cpu(&d->info) ? 16 * MIB : 256 * MIB;
    const int64_t most = lbp_memory_budget(d) / 4; /* beside the probe's own buffers */
    if (bytes > most) bytes = most;
    return bytes / (16 * KIB) * (16 * KIB);
}

/* Compile, time alone and verify the copy (every rank, collective).  0, or
 * 1 with why on every rank. */
static int open_load(ic_load *ld, lbp_device *d, int64_t asked, char *why, size_t why_len)
{
    memset(ld, 0, sizeof *ld);
    const int64_t bytes = load_bytes(d, asked);
    char mine[512] = "";
    int fail = bytes < 16 * KIB || stream_bench_init(&ld->bench, d, bytes) != 0;
    if (fail) snprintf(mine, sizeof mine, "interconnect: no room for the copy beside the exchange (2 x %" PRId64
                       " bytes)", bytes);
    const int cpu = lbp_is_cpu(&d->info);
    ld->cfg = (stream_config){.word_bytes = 16, .access = cpu ? STREAM_ACCESS_ROW : STREAM_ACCESS_ONE,
                              .block_size = d->info.max_block_size < 256 ? d->info.max_block_size : 256,
                              .elements = bytes / 16};
    stream_result res = {0};
    const stream_reps reps = {.fixed_reps = 5, .warmup = 1, .scatter_warn = 1.0};
    if (!fail && stream_run_generated(&ld->bench, &ld->cfg, &reps, &ld->kernel, &res, mine, sizeof mine) != 0)
        fail = 1;
    ld->launch_ms = res.ms.median;
    ld->gbs = res.gbs_median;
    if (!fail && !(ld->launch_ms > 0)) {
        snprintf(mine, sizeof mine, "interconnect: the copy beside the exchange timed %g ms", ld->launch_ms);
        fail = 1;
    }
    if (lbp_ranks.rank == 0 && !fail)
        printf("%s: interconnect: beside the exchanges a copy of 2 x %" PRId64 " bytes, %.3f ms alone (%.1f GB/s)\n",
               lbp_prog, bytes, ld->launch_ms, ld->gbs);
    return agree_failure(fail, mine, why, why_len);
}

/* Did every copy beside the exchanges copy right?  (Local; 0, or 1 with why) */
static int verify_load(ic_load *ld, char *why, size_t why_len)
{
    char mine[400];
    if (!stream_verify(ld->bench.d, ld->bench.out, &ld->kernel.record, 0, mine, sizeof mine)) return 0;
    snprintf(why, why_len, "interconnect: the copy beside the exchange, rank %d: %s", lbp_ranks.rank, mine);
    return 1;
}

static void close_load(ic_load *ld)
{
    if (ld->bench.d) stream_bench_free(&ld->bench);
}

#define BESIDE_TRIES 5   /* a run beside the copy tried so often, the copies x4 each time */
#define MAX_COPIES 1000 /* a CUDA stream queues about as many launches before the host blocks */

/* One exchange beside the copy: copies enough to outlast it, queued on the
 * first queue before it starts; then the wait for them.  *ms: the
 * exchange's time; returns 1 when the copies may have run out before it
 * ended (the first queue's wait shorter than half a copy: a queue already
 * drained returns at once), and raises *expect_ms for the next try. */
static int run_beside(lbp_exchange *x, ic_load *ld, double *expect_ms, double *ms)
{
    lbp_device *d = ld->bench.d;
    const int copies = (int)fmin(ceil(2 * *expect_ms / ld->launch_ms) + 1, MAX_COPIES);
    for (int i = 0; i < copies; i++)
        if (stream_enqueue_generated(&ld->bench, &ld->cfg, &ld->kernel)) lbp_fail("interconnect: the copy vanished");
    const double t0 = lbp_now();
    lbp_exchange_run(x); /* on the second queue; the first is selected again after it */
    const double t1 = lbp_now();
    lbp_sync(d);
    const double tail_ms = (lbp_now() - t1) * 1e3;
    *ms = (t1 - t0) * 1e3;
    const int ran_out = tail_ms < ld->launch_ms / 2;
    if (ran_out) *expect_ms = fmax(4 * *expect_ms, *ms);
    else *expect_ms = fmax(*expect_ms, *ms);
    return ran_out;
}

/* Every rank alike: one timed run of the case (in_pair: this rank's part
 * in it), beside the load where the case says, tried again on every rank
 * while any rank's copies ran out before its exchange ended.  *ms: this
 * rank's time.  Returns 0, or 1 (every rank) with why after BESIDE_TRIES
 * tries: an exchange that waits for the first queue (an MPI library's
 * copies on the default stream, a device that runs one queue at a time)
 * cannot be timed beside it. */
static int timed_run(lbp_exchange *x, int in_pair, const ic_case *c, ic_load *ld, double *expect_ms, double *ms,
                     char *why, size_t why_len)
{
    *ms = 0;
    if (c->beside == STREAM_IC_ALONE) {
        const double t0 = lbp_now();
        if (in_pair) lbp_exchange_run(x);
        if (in_pair) *ms = (lbp_now() - t0) * 1e3;
        return 0;
    }
    for (int tries = 0; tries < BESIDE_TRIES; tries++) {
        const int ran_out = in_pair && run_beside(x, ld, expect_ms, ms);
        if (lbp_mpi_reduce_all(ran_out, LBP_MPI_MAX) == 0) return 0;
    }
    snprintf(why, why_len, "interconnect: path %s, ring of ranks 0-%d beside a copy, %" PRId64 " bytes: the copies "
             "ran out before the exchange ended %d times (it waits for them?)", lbp_exchange_names[c->path],
             c->ring - 1, c->bytes, BESIDE_TRIES);
    return 1;
}

static const char *direction_of(const ic_case *c) { return c->ring ? "ring" : c->both ? "both-ways" : "one-way"; }

/* Bytes a rank moves in a run: counted both ways, over its links */
static double moved_of(const ic_case *c) { return (double)c->bytes * (c->ring ? 4 : c->both ? 2 : 1); }

/* The rank this one's link `side` of a ring leads to: 0 above, 1 below */
static int ring_neighbour(const ic_case *c, int side)
{
    return side == 0 ? (lbp_ranks.rank + 1) % c->ring : (lbp_ranks.rank + c->ring - 1) % c->ring;
}

/* This rank's links of the case (0 when not in it).  send and recv hold
 * 2 x parts regions; a ring's links send the same bytes, receive apart. */
static int case_links(const ic_case *c, ic_buffers *bu, lbp_link *l, lbp_region *send, lbp_region *recv, int parts)
{
    const int me = lbp_ranks.rank;
    if (c->ring) {
        if (me >= c->ring) return 0;
        for (int side = 0; side < 2; side++) {
            l[side] = (lbp_link){.peer = ring_neighbour(c, side), .send_tag = side ? TAG_DOWN : TAG_UP,
                                 .recv_tag = side ? TAG_UP : TAG_DOWN, .send = send + side * parts,
                                 .recv = recv + side * parts};
            l[side].nsend = split(send + side * parts, parts, bu->buf, 0, c->bytes);
            l[side].nrecv = split(recv + side * parts, parts, bu->buf, (1 + side) * bu->max, c->bytes);
        }
        return 2;
    }
    if (me != c->a && me != c->b) return 0;
    const int is_a = me == c->a, sends = is_a || c->both, receives = !is_a || c->both;
    *l = (lbp_link){.peer = is_a ? c->b : c->a, .send_tag = is_a ? 0 : 1, .recv_tag = is_a ? 1 : 0};
    if (sends) l->nsend = split(send, parts, bu->buf, 0, c->bytes);
    if (receives) l->nrecv = split(recv, parts, bu->buf, bu->max, c->bytes);
    l->send = send;
    l->recv = recv;
    return 1;
}

/* Did rank from's message arrive at `at`?  0, or 1 with why. */
static int verify_from(ic_buffers *bu, const ic_case *c, int from, int64_t at, char *why, size_t why_len)
{
    const int me = lbp_ranks.rank;
    uint8_t *got = bu->host + at;
    bu->d->be->read(bu->d, bu->buf, (size_t)at, got, (size_t)c->bytes);
    for (int64_t k = 0; k < c->bytes; k++)
        if (got[k] != pattern(from, k)) {
            snprintf(why, why_len,
                     "interconnect: path %s%s, rank %d -> %d, %" PRId64 " bytes: byte %" PRId64
                     " arrived as 0x%02x, rank %d sent 0x%02x",
                     lbp_exchange_names[c->path], c->ring ? " (ring)" : "", from, me, c->bytes, k, got[k], from,
                     pattern(from, k));
            return 1;
        }
    memset(got, FILLER, (size_t)c->bytes); /* the next size must bring its own */
    bu->d->be->write(bu->d, bu->buf, (size_t)at, got, (size_t)c->bytes);
    return 0;
}

/* Did the messages arrive?  0, or 1 with why. */
static int verify_received(ic_buffers *bu, const ic_case *c, char *why, size_t why_len)
{
    const int me = lbp_ranks.rank;
    if (c->ring) {
        if (me >= c->ring) return 0;
        return verify_from(bu, c, ring_neighbour(c, 0), bu->max, why, why_len) ||
               verify_from(bu, c, ring_neighbour(c, 1), 2 * bu->max, why, why_len);
    }
    if (!(me == c->b || (me == c->a && c->both))) return 0;
    return verify_from(bu, c, me == c->a ? c->b : c->a, bu->max, why, why_len);
}

/* The case's per-run times (mine, reps of them) to rank 0's out: the
 * slowest rank of the case per run (a ring: of its ranks, the others' 0;
 * a pair: the slower of the two).  Collective. */
static void slowest_to_root(const ic_case *c, const double *mine, double *out)
{
    const int me = lbp_ranks.rank;
    double *theirs = calloc((size_t)c->reps, sizeof *theirs);
    if (!theirs) lbp_fail("out of host memory for %d timings", c->reps);
    for (int r = 0; r < c->reps && c->ring; r++) {
        const double slowest = lbp_mpi_reduce_all(mine[r], LBP_MPI_MAX);
        if (me == 0) out[r] = theirs[r] = slowest;
    }
    for (int side = 0; side < 2 && !c->ring; side++) {
        const int who = side ? c->b : c->a;
        if (who == 0 && me == 0) memcpy(side ? theirs : out, mine, sizeof *mine * (size_t)c->reps);
        else if (me == who) lbp_mpi_send(mine, sizeof *mine * (size_t)c->reps, 0, TAG_TIMES + side);
        else if (me == 0) lbp_mpi_recv(side ? theirs : out, sizeof *mine * (size_t)c->reps, who, TAG_TIMES + side);
    }
    if (me == 0)
        for (int r = 0; r < c->reps; r++) out[r] = fmax(out[r], theirs[r]);
    free(theirs);
}

/* Time one case; on rank 0 the per-run times of the slowest rank of the
 * case (ms, c->reps of them) in ms_out.  Beside the copy (alone_out on
 * every rank, c->reps of them) each run is paired: the exchange
 * alone, then beside the copy, one after the other on every rank, so that
 * both see the same state of the host and links (which drifts over the
 * minutes between an alone sweep and a beside sweep); the alone runs'
 * times then in alone_out.  Returns 0, or 1 (every rank) with why, or
 * CASE_GAVE_UP (every rank) with why: not timed beside the copy. */
enum { CASE_GAVE_UP = 2 };
static int measure_case(lbp_device *d, ic_buffers *bu, ic_load *ld, const ic_case *c, int parts, double *ms_out,
                        double *alone_out, char *why, size_t why_len)
{
    lbp_region *send = calloc(2 * (size_t)parts, sizeof *send), *recv = calloc(2 * (size_t)parts, sizeof *recv);
    double *mine = calloc((size_t)c->reps, sizeof *mine), *mine_alone = calloc((size_t)c->reps, sizeof *mine);
    if (!send || !recv || !mine || !mine_alone) lbp_fail("out of host memory for %d timings", c->reps);
    lbp_link l[2];
    const int in_pair = case_links(c, bu, l, send, recv, parts);
    lbp_exchange *x = lbp_exchange_create(d, c->path, l, in_pair);
    const int paired = c->beside != STREAM_IC_ALONE; /* every rank alike */
    ic_case alone = *c;
    alone.beside = STREAM_IC_ALONE;
    lbp_mpi_barrier();
    /* warm-up: first touches, IPC mappings; beside, how many copies outlast it */
    double expect_ms = ld ? ld->launch_ms : 0, ms;
    char mine_why[512] = "", gave_up_why[512] = "";
    int gave_up = 0; /* every rank alike: the runs stop */
    for (int w = 0; w < 2 && !gave_up; w++)
        gave_up = timed_run(x, in_pair, c, ld, &expect_ms, &ms, gave_up_why, sizeof gave_up_why);
    /* a message arrived wrong: this rank's alone, so the runs go on */
    int fail = !gave_up && verify_received(bu, c, mine_why, sizeof mine_why);
    for (int r = 0; r < c->reps && !gave_up; r++) {
        if (paired) timed_run(x, in_pair, &alone, NULL, NULL, &mine_alone[r], NULL, 0);
        gave_up = timed_run(x, in_pair, c, ld, &expect_ms, &mine[r], gave_up_why, sizeof gave_up_why);
    }
    lbp_exchange_destroy(x);
    slowest_to_root(c, mine, ms_out);
    if (paired) slowest_to_root(c, mine_alone, alone_out);
    fail = agree_failure(fail, mine_why, why, why_len);
    if (!fail && gave_up) {
        snprintf(why, why_len, "%s", gave_up_why);
        fail = CASE_GAVE_UP;
    }
    free(send);
    free(recv);
    free(mine);
    free(mine_alone);
    return fail;
}

/* The pairing of a row beside the copy: the median of its paired runs
 * alone and of the ratios beside / alone run by run (0, 0: a row alone) */
typedef struct {
    double alone_ms, ratio;
} ic_paired;

static ic_paired paired_of(const double *beside, double *alone, int reps)
{
    double *ratio = calloc((size_t)reps, sizeof *ratio);
    if (!ratio) lbp_fail("out of host memory for %d timings", reps);
    for (int r = 0; r < reps; r++) ratio[r] = beside[r] / alone[r];
    const ic_paired p = {.alone_ms = lbp_stats_of(alone, reps).median, .ratio = lbp_stats_of(ratio, reps).median};
    free(ratio);
    return p;
}

static void write_row(lbp_csv *rows, const ic_case *c, lbp_stats *st, const ic_paired *pa)
{
    const lbp_rank_device *dev = lbp_mpi_devices();
    const double moved = moved_of(c);
    char alone[32] = "", ratio[32] = "";
    if (pa->ratio > 0) {
        snprintf(alone, sizeof alone, "%.3f", pa->alone_ms * 1e3);
        snprintf(ratio, sizeof ratio, "%.4f", pa->ratio);
    }
    lbp_csv_row(rows, "%s,%d,%d,%s,%s,%s,%s,%s,%" PRId64 ",%d,%.3f,%.3f,%.3f,%.4f,%s,%s,%s",
                lbp_exchange_names[c->path], c->a, c->b, dev[c->a].slug, dev[c->b].slug,
                dev[c->a].uuid[0] ? dev[c->a].uuid : "unknown", dev[c->b].uuid[0] ? dev[c->b].uuid : "unknown",
                direction_of(c), c->bytes, c->reps, st->min * 1e3, st->median * 1e3, st->max * 1e3,
                moved / (st->median * 1e-3) / 1e9, alone, ratio, stream_ic_beside_names[c->beside]);
}

static void write_fit(lbp_csv *fits, const ic_case *c, const double *moved, const double *ms, int n)
{
    stream_transfer_fit f = {0};
    stream_transfer_fit_points(&f, moved, ms, n);
    lbp_csv_row(fits, "%s,%d,%d,%s,%.3f,%.4f,%.6f,%d,%s", lbp_exchange_names[c->path], c->a, c->b, direction_of(c),
                f.latency_us, f.gbs, f.fit.r2, n, stream_ic_beside_names[c->beside]);
    printf("%s: interconnect %-4s rank %d %s rank %d%s: latency %8.2f us, bandwidth %8.2f GB/s (T = latency + "
           "s/bandwidth, %d sizes)\n",
           lbp_prog, lbp_exchange_names[c->path], c->a, c->ring ? "ring" : c->both ? "<->" : "-> ", c->b,
           c->beside ? " beside a copy" : "", f.latency_us, f.gbs, n);
}

/* The paths to measure: those asked for, or every one available here. */
static int paths_of(const lbp_device *d, const stream_ic_opts *o, int *out)
{
    if (o->npaths) {
        memcpy(out, o->paths, sizeof *out * (size_t)o->npaths);
        return o->npaths;
    }
    int n = 0;
    char why[512];
    for (int p = LBP_EXCHANGE_HOST; p < LBP_EXCHANGE_PATHS; p++)
        if (lbp_exchange_available(d, (lbp_exchange_path)p, why, sizeof why) == 0) out[n++] = p;
    return n;
}

/* The cases of one path alone: every pair a < b one-way and both ways,
 * then the rings of 2, 4, 8, ... ranks and of all of them (the rank counts
 * make bench runs the lattice on); beside a copy: the rings (the lattice's
 * exchange with overlap on).  Returns the count; out holds
 * ranks * ranks + 64. */
static int cases_of(lbp_exchange_path path, stream_ic_beside beside, int ranks, ic_case *out)
{
    int n = 0;
    for (int a = 0; a < ranks && beside == STREAM_IC_ALONE; a++)
        for (int b = a + 1; b < ranks; b++)
            for (int both = 0; both < 2; both++) out[n++] = (ic_case){.a = a, .b = b, .both = both, .path = path};
    for (int r = 2; r <= ranks; r = (r < ranks && 2 * r > ranks) ? ranks : 2 * r)
        out[n++] = (ic_case){.a = 0, .b = r - 1, .both = 1, .ring = r, .beside = beside, .path = path};
    return n;
}

/* What a sweep runs on: the probe's buffers, the load beside (NULL
 * alone), the sizes, the progress */
typedef struct {
    lbp_device *d;
    ic_buffers *bu;
    ic_load *ld;
    const int64_t *sizes;
    int nsizes;
    int done, total;
    double t_start;
} ic_sweep;

/* One case over every size, its rows and fit on rank 0.  0, or 1 with why. */
static int sweep_case(ic_sweep *sw, const stream_ic_opts *o, ic_case *c, lbp_csv *rows, lbp_csv *fits, char *why,
                      size_t why_len)
{
    double moved[STREAM_IC_MAX_SIZES], median[STREAM_IC_MAX_SIZES];
    int fail = 0, done = 0;
    for (int i = 0; i < sw->nsizes && !fail; i++) {
        c->bytes = sw->sizes[i];
        c->reps = stream_transfer_reps(c->bytes, o->reps, o->quick);
        double *ms = calloc((size_t)c->reps, sizeof *ms), *alone = calloc((size_t)c->reps, sizeof *alone);
        if (!ms || !alone) lbp_fail("out of host memory for %d timings", c->reps);
        fail = measure_case(sw->d, sw->bu, c->beside ? sw->ld : NULL, c, o->regions, ms, alone, why, why_len);
        if (!fail && lbp_ranks.rank == 0) {
            const ic_paired pa = c->beside ? paired_of(ms, alone, c->reps) : (ic_paired){0};
            lbp_stats st = lbp_stats_of(ms, c->reps);
            write_row(rows, c, &st, &pa);
            moved[done] = moved_of(c);
            median[done++] = st.median;
            lbp_progress(++sw->done, sw->total, lbp_now() - sw->t_start, "interconnect %s %d %s %d%s, %" PRId64 " B",
                         lbp_exchange_names[c->path], c->a, c->ring ? "ring" : c->both ? "<->" : "->", c->b,
                         c->beside ? " beside a copy" : "", c->bytes);
        }
        free(ms);
        free(alone);
    }
    /* a case not timed beside the copy (on every rank alike): the sizes it
     * was, fitted where two were, and the probe goes on, said */
    if (fail == CASE_GAVE_UP && lbp_ranks.rank == 0)
        fprintf(stderr, "%s: warning: %s; %s\n", lbp_prog, why,
                done > 1 ? "fitted over the sizes before" : "no fit beside for it (the model reads it alone)");
    const int fitted = fail == CASE_GAVE_UP ? done > 1 : !fail;
    if (fail == CASE_GAVE_UP) fail = 0;
    if (fitted && lbp_ranks.rank == 0) write_fit(fits, c, moved, median, done);
    return fail;
}

/* Every case of every path under one condition (alone, beside the
 * copy): its rows and fits on rank 0.  0, or 1 with why. */
static int sweep_beside(ic_sweep *sw, const stream_ic_opts *o, stream_ic_beside beside, const int *paths,
                        int npaths, lbp_csv *rows, lbp_csv *fits, char *why, size_t why_len)
{
    const int ranks = lbp_ranks.size;
    ic_case *cases = calloc((size_t)ranks * ranks + 64, sizeof *cases);
    if (!cases) lbp_fail("out of host memory for the cases of %d ranks", ranks);
    int fail = 0;
    for (int p = 0; p < npaths && !fail; p++) {
        const int n = cases_of((lbp_exchange_path)paths[p], beside, ranks, cases);
        for (int i = 0; i < n && !fail; i++) fail = sweep_case(sw, o, &cases[i], rows, fits, why, why_len);
    }
    free(cases);
    return fail;
}

/* The sizes a condition sweeps: all of them alone; beside, those around
 * the faces (stream_ic_beside_sizes) */
static int sizes_of(const stream_ic_opts *o, stream_ic_beside beside, int64_t *out)
{
    if (beside != STREAM_IC_ALONE) return stream_ic_beside_sizes(o->sizes, o->nsizes, out);
    memcpy(out, o->sizes, sizeof *out * (size_t)o->nsizes);
    return o->nsizes;
}

static int total_runs(const stream_ic_opts *o, int npaths)
{
    const int ranks = lbp_ranks.size;
    int64_t sizes[STREAM_IC_MAX_SIZES];
    ic_case *cases = calloc((size_t)ranks * ranks + 64, sizeof *cases);
    if (!cases) lbp_fail("out of host memory for the cases of %d ranks", ranks);
    int total = 0;
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS; b++)
        if (o->beside[b])
            total += npaths * cases_of(LBP_EXCHANGE_HOST, (stream_ic_beside)b, ranks, cases) *
                     sizes_of(o, (stream_ic_beside)b, sizes);
    free(cases);
    return total;
}

int stream_interconnect(lbp_device *d, const stream_ic_opts *o, lbp_csv *rows, lbp_csv *fits, char *why,
                        size_t why_len)
{
    int paths[LBP_EXCHANGE_PATHS];
    const int npaths = paths_of(d, o, paths);
    int64_t max = 1;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > max) max = o->sizes[i];
    ic_buffers bu;
    if (open_buffers(&bu, d, max)) {
        snprintf(why, why_len, "interconnect: a device has no room for 3 x %" PRId64 " bytes", max);
        return 1;
    }
    ic_load ld = {0};
    int64_t sizes[STREAM_IC_MAX_SIZES];
    ic_sweep sw = {.d = d, .bu = &bu, .ld = &ld, .sizes = sizes, .total = total_runs(o, npaths), .t_start = lbp_now()};
    int fail = 0;
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS && !fail; b++) {
        if (!o->beside[b]) continue;
        if (b != STREAM_IC_ALONE && !ld.bench.d) fail = open_load(&ld, d, o->beside_bytes, why, why_len);
        sw.nsizes = sizes_of(o, (stream_ic_beside)b, sizes);
        if (!fail) fail = sweep_beside(&sw, o, (stream_ic_beside)b, paths, npaths, rows, fits, why, why_len);
    }
    if (!fail && ld.bench.d) {
        /* every copy beside verified (a wrong one on any rank: all fail) */
        char mine[512] = "";
        const uint32_t wrong = 0;
        if (o->plant_error && lbp_ranks.rank == lbp_ranks.size - 1) d->be->write(d, ld.bench.out, 64, &wrong, 4);
        fail = agree_failure(verify_load(&ld, mine, sizeof mine), mine, why, why_len);
    }
    close_load(&ld);
    close_buffers(&bu);
    return fail;
}

static void write_meta(lbp_device *d, const stream_ic_opts *o, const int *paths, int npaths, const char *dir,
                       int force, int argc, char **argv)
{
    lbp_meta *m = lbp_meta_new("interconnect", &d->info, argc, argv);
    lbp_mpi_meta(m);
    char list[64] = "";
    for (int p = 0; p < npaths; p++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", p ? "," : "", lbp_exchange_names[paths[p]]);
    lbp_meta_set(m, "paths", "%s", list);
    lbp_meta_set(m, "regions_per_message", "%d", o->regions);
    list[0] = 0;
    for (int b = 0; b < STREAM_IC_BESIDE_KINDS; b++)
        if (o->beside[b])
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ";" : "",
                     stream_ic_beside_names[b]);
    lbp_meta_set(m, "beside", "%s", list);
    if (o->beside[STREAM_IC_BESIDE_COPY]) lbp_meta_set(m, "beside_copy_bytes", "%" PRId64, load_bytes(d, o->beside_bytes));
    lbp_meta_write(m, dir, force);
}

int stream_interconnect_main(lbp_device *d, const stream_ic_opts *asked, const lbp_common *c, int argc, char **argv)
{
    char why[1024] = "";
    stream_ic_opts mine = *asked, *o = &mine;
    if (o->beside[STREAM_IC_BESIDE_COPY] && !d->info.caps.second_queue) {
        /* its exchange would wait for the copy (lbmkernels runs such a
         * device without overlap) */
        o->beside[STREAM_IC_BESIDE_COPY] = 0;
        if (lbp_ranks.rank == 0)
            fprintf(stderr, "%s: interconnect: %s (%s) has one queue: no exchange beside a copy\n", lbp_prog,
                    d->info.name, d->be->name);
    }
    lbp_mpi_agree(lbp_ranks.size < 2 ? LBP_EXIT_USAGE : 0,
                  "--interconnect measures between ranks: start at least 2 (mpirun -np N stream --interconnect)");
    for (int p = 0; p < o->npaths; p++) {
        const int bad = lbp_exchange_available(d, (lbp_exchange_path)o->paths[p], why, sizeof why) != 0;
        lbp_mpi_agree(bad ? LBP_EXIT_USAGE : 0, "%s", why);
    }
    int paths[LBP_EXCHANGE_PATHS];
    const int npaths = paths_of(d, o, paths);
    const char *dir = NULL; /* rank 0's: it writes */
    lbp_csv *rows = NULL, *fits = NULL;
    if (lbp_ranks.rank == 0) {
        dir = lbp_result_dir(c->out_dir, &d->info);
        lbp_check_fresh(dir, (const char *const[]){"interconnect.csv", "interconnect-fit.csv", "interconnect-meta.csv",
                                                   NULL},
                        c->force);
        rows = lbp_csv_open(dir, "interconnect.csv", STREAM_IC_HEADER, &d->info, c->force);
        fits = lbp_csv_open(dir, "interconnect-fit.csv", STREAM_IC_FIT_HEADER, &d->info, c->force);
    }
    lbp_mpi_barrier(); /* rank 0 may refuse to overwrite: the others wait for that */
    if (stream_interconnect(d, o, rows, fits, why, sizeof why)) {
        lbp_csv_abort(rows);
        lbp_csv_abort(fits);
        lbp_mpi_agree(LBP_EXIT_FAIL, "%s; nothing written", why);
    }
    if (lbp_ranks.rank == 0) {
        lbp_csv_finish(rows);
        lbp_csv_finish(fits);
        write_meta(d, o, paths, npaths, dir, c->force, argc, argv);
        printf("%s: results in %s/interconnect.csv, interconnect-fit.csv\n", lbp_prog, dir);
    }
    return 0;
}
