/* The interconnect between ranks (interconnect.h). */
#include "interconnect.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranks.h"
#include "stats.h"
#include "transfer.h"

#define KIB ((int64_t)1 << 10)
#define MIB ((int64_t)1 << 20)
enum { TAG_TIMES = 7300 };

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

/* Byte k of rank r's messages: never the filler of a receive part. */
static uint8_t pattern(int r, int64_t k) { return (uint8_t)(((k * 7 + (k >> 9) + 31 * r) % 251) + 1); }
#define FILLER 0

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
    lbp_exchange_path path;
    int64_t bytes;
    int reps;
} ic_case;

enum { TAG_UP, TAG_DOWN }; /* a ring's links, as the lattice's */

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

/* Time one case; on rank 0 the per-run times of the slowest rank of the
 * case (ms, c->reps of them) in ms_out.  Returns 0, or 1 (every rank) with
 * why. */
static int measure_case(lbp_device *d, ic_buffers *bu, const ic_case *c, int parts, double *ms_out, char *why,
                        size_t why_len)
{
    lbp_region *send = calloc(2 * (size_t)parts, sizeof *send), *recv = calloc(2 * (size_t)parts, sizeof *recv);
    double *mine = calloc((size_t)c->reps, sizeof *mine), *theirs = calloc((size_t)c->reps, sizeof *theirs);
    if (!send || !recv || !mine || !theirs) lbp_fail("out of host memory for %d timings", c->reps);
    lbp_link l[2];
    const int in_pair = case_links(c, bu, l, send, recv, parts);
    lbp_exchange *x = lbp_exchange_create(d, c->path, l, in_pair);
    lbp_mpi_barrier();
    for (int w = 0; w < 2 && in_pair; w++) lbp_exchange_run(x); /* warm-up: first touches, IPC mappings */
    char mine_why[512] = "";
    int fail = verify_received(bu, c, mine_why, sizeof mine_why);
    for (int r = 0; r < c->reps && in_pair; r++) {
        const double t0 = lbp_now();
        lbp_exchange_run(x);
        mine[r] = (lbp_now() - t0) * 1e3;
    }
    lbp_exchange_destroy(x);
    /* the times to rank 0: the slower of the two per run (a ring: the
     * slowest of its ranks, the others' 0) */
    const int me = lbp_ranks.rank;
    for (int r = 0; r < c->reps && c->ring; r++) {
        const double slowest = lbp_mpi_reduce_all(mine[r], LBP_MPI_MAX);
        if (me == 0) ms_out[r] = theirs[r] = slowest;
    }
    for (int side = 0; side < 2 && !c->ring; side++) {
        const int who = side ? c->b : c->a;
        if (who == 0 && me == 0) memcpy(side ? theirs : ms_out, mine, sizeof *mine * (size_t)c->reps);
        else if (me == who) lbp_mpi_send(mine, sizeof *mine * (size_t)c->reps, 0, TAG_TIMES + side);
        else if (me == 0) lbp_mpi_recv(side ? theirs : ms_out, sizeof *mine * (size_t)c->reps, who, TAG_TIMES + side);
    }
    if (me == 0)
        for (int r = 0; r < c->reps; r++) ms_out[r] = fmax(ms_out[r], theirs[r]);
    const int first = (int)lbp_mpi_reduce_all(fail ? me : lbp_ranks.size, LBP_MPI_MIN);
    if (first < lbp_ranks.size) {
        snprintf(why, why_len, "%s", mine_why);
        lbp_mpi_bcast(why, why_len, first);
        fail = 1;
    }
    free(send);
    free(recv);
    free(mine);
    free(theirs);
    return fail;
}

static void write_row(lbp_csv *rows, const ic_case *c, lbp_stats *st)
{
    const lbp_rank_device *dev = lbp_mpi_devices();
    const double moved = moved_of(c);
    lbp_csv_row(rows, "%s,%d,%d,%s,%s,%s,%s,%s,%" PRId64 ",%d,%.3f,%.3f,%.3f,%.4f", lbp_exchange_names[c->path], c->a,
                c->b, dev[c->a].slug, dev[c->b].slug, dev[c->a].uuid[0] ? dev[c->a].uuid : "unknown",
                dev[c->b].uuid[0] ? dev[c->b].uuid : "unknown", direction_of(c), c->bytes, c->reps,
                st->min * 1e3, st->median * 1e3, st->max * 1e3, moved / (st->median * 1e-3) / 1e9);
}

static void write_fit(lbp_csv *fits, const ic_case *c, const double *moved, const double *ms, int n)
{
    stream_transfer_fit f = {0};
    stream_transfer_fit_points(&f, moved, ms, n);
    lbp_csv_row(fits, "%s,%d,%d,%s,%.3f,%.4f,%.6f,%d", lbp_exchange_names[c->path], c->a, c->b, direction_of(c),
                f.latency_us, f.gbs, f.fit.r2, n);
    printf("%s: interconnect %-4s rank %d %s rank %d: latency %8.2f us, bandwidth %8.2f GB/s (T = latency + "
           "s/bandwidth, %d sizes)\n",
           lbp_prog, lbp_exchange_names[c->path], c->a, c->ring ? "ring" : c->both ? "<->" : "-> ", c->b,
           f.latency_us, f.gbs, n);
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

/* The cases of one path: every pair a < b one-way and both ways, then the
 * rings of 2, 4, 8, ... ranks and of all of them (the rank counts make
 * bench runs the lattice on).  Returns the count; out holds
 * ranks * ranks + 64. */
static int cases_of(lbp_exchange_path path, int ranks, ic_case *out)
{
    int n = 0;
    for (int a = 0; a < ranks; a++)
        for (int b = a + 1; b < ranks; b++)
            for (int both = 0; both < 2; both++) out[n++] = (ic_case){.a = a, .b = b, .both = both, .path = path};
    for (int r = 2; r <= ranks; r = (r < ranks && 2 * r > ranks) ? ranks : 2 * r)
        out[n++] = (ic_case){.a = 0, .b = r - 1, .both = 1, .ring = r, .path = path};
    return n;
}

/* One case over every size, its rows and fit on rank 0.  0, or 1 with why. */
static int sweep_case(lbp_device *d, ic_buffers *bu, const stream_ic_opts *o, ic_case *c, lbp_csv *rows,
                      lbp_csv *fits, int *done, int total, double t_start, char *why, size_t why_len)
{
    double moved[STREAM_IC_MAX_SIZES], median[STREAM_IC_MAX_SIZES];
    int fail = 0;
    for (int i = 0; i < o->nsizes && !fail; i++) {
        c->bytes = o->sizes[i];
        c->reps = stream_transfer_reps(c->bytes, o->reps, o->quick);
        double *ms = calloc((size_t)c->reps, sizeof *ms);
        if (!ms) lbp_fail("out of host memory for %d timings", c->reps);
        fail = measure_case(d, bu, c, o->regions, ms, why, why_len);
        if (!fail && lbp_ranks.rank == 0) {
            lbp_stats st = lbp_stats_of(ms, c->reps);
            write_row(rows, c, &st);
            moved[i] = moved_of(c);
            median[i] = st.median;
            lbp_progress(++*done, total, lbp_now() - t_start, "interconnect %s %d %s %d, %" PRId64 " B",
                         lbp_exchange_names[c->path], c->a, c->ring ? "ring" : c->both ? "<->" : "->", c->b,
                         c->bytes);
        }
        free(ms);
    }
    if (!fail && lbp_ranks.rank == 0) write_fit(fits, c, moved, median, o->nsizes);
    return fail;
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
    const int ranks = lbp_ranks.size;
    ic_case *cases = calloc((size_t)ranks * ranks + 64, sizeof *cases);
    if (!cases) lbp_fail("out of host memory for the cases of %d ranks", ranks);
    const int total = npaths * cases_of(LBP_EXCHANGE_HOST, ranks, cases) * o->nsizes;
    int done = 0, fail = 0;
    const double t_start = lbp_now();
    for (int p = 0; p < npaths && !fail; p++) {
        const int n = cases_of((lbp_exchange_path)paths[p], ranks, cases);
        for (int i = 0; i < n && !fail; i++)
            fail = sweep_case(d, &bu, o, &cases[i], rows, fits, &done, total, t_start, why, why_len);
    }
    free(cases);
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
    lbp_meta_write(m, dir, force);
}

int stream_interconnect_main(lbp_device *d, const stream_ic_opts *o, const lbp_common *c, int argc, char **argv)
{
    char why[1024] = "";
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
