/* model/scaling: the step on R ranks from analytic inputs, each answer
 * worked out by hand in the comment beside it; then the interconnect fit's
 * reader and ranks_predict (the one-device model's pieces put together)
 * on tests/model-data/ranks beside the synthetic gpu folder's probes.  Run
 * from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/table.h"
#include "../model/data/interconnect.h"
#include "../model/equations/ranks_step.h"
#include "../model/cli/ranks_print.h"
#include "../model/data/ranks_rows.h"
#include "../model/equations/scaling.h"

#define DATA "tests/model-data/"

/* the arithmetic is a few additions and one division: 1e-12 relative */
#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-12 * fmax(1, fabs((double)(b))))

static char err[256];

/* 256 x 256 faces in fp32: s = 5 x 256 x 256 x 4 = 1,310,720 B; over the
 * link 5 µs + s / 50 GB/s: 5 + 26.2144 = 31.2144 µs */
static const scaling_link link50 = {.latency_us = 5, .bandwidth_gbs = 50};
#define HALO_256 1310720.0
#define RANK_256 (2 * HALO_256) /* a rank's two faces */
#define T_X 31.2144

/* a slab of 256^3 a rank: the slab 108 µs in one launch, its interior 100
 * and its two border planes 10 in two (the second launch costs 2 µs) */
static const scaling_times slab_times = {.slab_us = 108, .border_us = 10, .interior_us = 100, .single_us = 108};

static scaling_case weak(int ranks, int overlap)
{
    return (scaling_case){.nx = 256, .ny = 256, .nz = 256, .ranks = ranks, .ranks_per_device = 1,
                          .mode = SCALING_WEAK, .overlap = overlap, .word_bytes = 4};
}

static scaling_step step_of(scaling_case c, scaling_times t, double exchange_us)
{
    scaling_slab s;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    scaling_step r;
    scaling_predict(&c, &s, &t, exchange_us, &r);
    return r;
}

static void test_link(void **state)
{
    (void)state;
    NEAR(scaling_link_us(link50, HALO_256), T_X);
    NEAR(scaling_link_us(link50, 0), 5);
    /* host-staged as three transfers at s = 1.1e6 B: d2h 8 + s / 55 GB/s
     * = 28, MPI 20 + s / 12.5 GB/s = 108, h2d 9 + s / 50 GB/s = 31 */
    scaling_route host = {.legs = 3, .leg = {{8, 55}, {20, 12.5}, {9, 50}}};
    NEAR(scaling_route_us(&host, 1.1e6), 28 + 108 + 31);
    scaling_route one = {.legs = 1, .leg = {link50}};
    NEAR(scaling_route_us(&one, HALO_256), T_X);
}

static void test_slab(void **state)
{
    (void)state;
    scaling_case c = weak(4, 1);
    scaling_slab s;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    assert_int_equal(s.nz_global, 1024);
    assert_int_equal(s.nz_local, 256);
    assert_int_equal(s.border_planes, 2);
    assert_int_equal(s.interior_planes, 254);
    NEAR(s.cells_rank, 16777216.0);
    NEAR(s.cells_global, 4 * 16777216.0);
    NEAR(s.halo_bytes, HALO_256);
    NEAR(s.exchange_bytes, RANK_256);
    assert_int_equal(s.devices, 4);
    /* strong: the lattice is the global one */
    c.mode = SCALING_STRONG;
    c.nz = 1024;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    assert_int_equal(s.nz_local, 256);
    NEAR(s.cells_global, 4 * 16777216.0);
    /* fp64 doubles the halo */
    c.word_bytes = 8;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    NEAR(s.halo_bytes, 2 * HALO_256);
    /* a slab of one plane is all border */
    c.nz = 4;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    assert_int_equal(s.border_planes, 1);
    assert_int_equal(s.interior_planes, 0);
    /* 3 ranks on 2 devices: 2 devices */
    c = weak(3, 1);
    c.ranks_per_device = 2;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    assert_int_equal(s.devices, 2);
}

static void test_slab_errors(void **state)
{
    (void)state;
    scaling_slab s;
    scaling_case c = weak(3, 1);
    c.mode = SCALING_STRONG;
    c.nz = 1000;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "3 ranks"));
    assert_non_null(strstr(err, "nz = 1000"));
    /* weak scaling divides nothing: any R */
    c.mode = SCALING_WEAK;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), 0);
    c = weak(0, 1);
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "ranks: 0"));
    c = weak(2, 1);
    c.ranks_per_device = 0;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), -1);
    c = weak(2, 1);
    c.ny = 0;
    assert_int_equal(scaling_slab_of(&c, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "256x0x256"));
}

/* overlap: max(T_border + T_interior, T_border + T_x) = max(110, 41.2144);
 * no overlap: T_slab + T_x = 108 + 31.2144 */
static void test_overlap_max_vs_sum(void **state)
{
    (void)state;
    scaling_step on = step_of(weak(2, 1), slab_times, T_X);
    NEAR(on.alpha_us, 110);
    NEAR(on.beta_us, 10 + T_X);
    NEAR(on.step_us, 110);
    assert_false(on.exchange_bound);
    NEAR(on.exchange_us, T_X);
    scaling_step off = step_of(weak(2, 0), slab_times, T_X);
    NEAR(off.step_us, 108 + T_X);
    assert_false(off.exchange_bound);
    /* the interior too short to hide the exchange: T_β = 10 + 31.2144 */
    scaling_times fast = {.slab_us = 28, .border_us = 10, .interior_us = 20, .single_us = 28};
    scaling_step bound = step_of(weak(2, 1), fast, T_X);
    NEAR(bound.step_us, 10 + T_X);
    assert_true(bound.exchange_bound);
    /* a perfectly hidden exchange still costs the slab's two launches: never
     * below the one-device slab in one launch */
    assert_true(on.step_us >= slab_times.slab_us);
    scaling_step free_exchange = step_of(weak(2, 1), slab_times, 0);
    NEAR(free_exchange.step_us, 110);
}

/* the host's wait each step (8 µs) joins every step of several ranks:
 * max(110, 41.2144) + 8 with overlap, 108 + 31.2144 + 8 without; one rank
 * runs as one device does, queued ahead: 108 */
static void test_sync(void **state)
{
    (void)state;
    scaling_times t = slab_times;
    t.sync_us = 8;
    NEAR(step_of(weak(2, 1), t, T_X).step_us, 118);
    NEAR(step_of(weak(2, 0), t, T_X).step_us, 108 + T_X + 8);
    NEAR(step_of(weak(1, 1), t, T_X).step_us, 108);
    NEAR(step_of(weak(4, 1), t, T_X).efficiency, 108.0 / 118);
}

/* a slab of 2 planes has no interior to hide the exchange behind: the
 * overlap asked for does not apply (as lbmkernels runs it), T_slab + T_x */
static void test_overlap_needs_interior(void **state)
{
    (void)state;
    scaling_case c = weak(2, 1);
    c.nz = 2;
    scaling_times t = {.slab_us = 12, .border_us = 12, .interior_us = 0, .single_us = 12};
    scaling_step r = step_of(c, t, T_X);
    assert_false(r.overlapped);
    NEAR(r.step_us, 12 + T_X);
    c.nz = 3;
    t.interior_us = 6;
    r = step_of(c, t, T_X);
    assert_true(r.overlapped);
    NEAR(r.step_us, 12 + T_X);
}

/* weak: efficiency = T_1 / T = 108 / 110; MLUPS = R x 256^3 / 110 µs */
static void test_weak(void **state)
{
    (void)state;
    scaling_step r = step_of(weak(4, 1), slab_times, T_X);
    NEAR(r.mlups, 4 * 16777216.0 / 110);
    NEAR(r.mlups_per_rank, 16777216.0 / 110);
    NEAR(r.single_mlups, 16777216.0 / 108);
    NEAR(r.speedup, 4 * 108.0 / 110);
    NEAR(r.efficiency, 108.0 / 110);
    /* without overlap 108 / 139.2144 */
    r = step_of(weak(4, 0), slab_times, T_X);
    NEAR(r.efficiency, 108 / (108 + T_X));
    /* the same exchange at every R: weak efficiency does not fall with R */
    NEAR(step_of(weak(8, 1), slab_times, T_X).efficiency, step_of(weak(2, 1), slab_times, T_X).efficiency);
}

/* strong: 256 x 256 x 1024 on one device 432 µs; on 4 ranks the slab of
 * 256 planes as above: speedup 432 / 110, efficiency 432 / (4 x 110) */
static void test_strong(void **state)
{
    (void)state;
    scaling_case c = weak(4, 1);
    c.mode = SCALING_STRONG;
    c.nz = 1024;
    scaling_times t = slab_times;
    t.single_us = 432;
    scaling_step r = step_of(c, t, T_X);
    NEAR(r.mlups, 67108864.0 / 110);
    NEAR(r.single_mlups, 67108864.0 / 432);
    NEAR(r.speedup, 432.0 / 110);
    NEAR(r.efficiency, 432.0 / (4 * 110));
    /* strong on 8: slabs of 128 planes, interior 50, border 10, slab 58;
     * the exchange (the same faces) now shows: max(60, 41.2144) = 60 with
     * overlap, 58 + 31.2144 without */
    c.ranks = 8;
    t = (scaling_times){.slab_us = 58, .border_us = 10, .interior_us = 50, .single_us = 432};
    r = step_of(c, t, T_X);
    NEAR(r.step_us, 60);
    NEAR(r.efficiency, 432.0 / (8 * 60));
    c.overlap = 0;
    r = step_of(c, t, T_X);
    NEAR(r.efficiency, 432.0 / (8 * (58 + T_X)));
}

/* one rank: the slab alone, no exchange even when asked to overlap */
static void test_one_rank(void **state)
{
    (void)state;
    scaling_step r = step_of(weak(1, 1), slab_times, T_X);
    NEAR(r.step_us, 108);
    NEAR(r.exchange_us, 0);
    NEAR(r.efficiency, 1);
    NEAR(r.speedup, 1);
}

/* two ranks on one device: its work doubles (2 x 110), the exchange stays;
 * efficiency per device against one device on one rank's lattice: 2 x 108 / 220 */
static void test_oversubscribed(void **state)
{
    (void)state;
    scaling_case c = weak(2, 1);
    c.ranks_per_device = 2;
    scaling_step r = step_of(c, slab_times, T_X);
    NEAR(r.alpha_us, 220);
    NEAR(r.beta_us, 20 + T_X);
    NEAR(r.step_us, 220);
    NEAR(r.efficiency, 2 * 108.0 / 220);
    c.overlap = 0;
    r = step_of(c, slab_times, T_X);
    NEAR(r.step_us, 216 + T_X);
}

/* the slowest rank's two faces: inside a node, across nodes, or one of each */
static void test_projection_faces(void **state)
{
    (void)state;
    NEAR(scaling_exchange_us(1, 8, 3, 40), 3);     /* one node: every face inside */
    NEAR(scaling_exchange_us(1, 1, 3, 40), 0);     /* one rank: none */
    NEAR(scaling_exchange_us(64, 8, 3, 40), 40);   /* node ends: one face across */
    NEAR(scaling_exchange_us(64, 8, 50, 40), 50);  /* ... the slower of the two */
    NEAR(scaling_exchange_us(4, 1, 3, 40), 40);    /* a GPU a node: both across */
    /* 64 nodes of 8, weak, across nodes 10 µs + s / 25 GB/s = 62.4288 µs:
     * exchange-bound with a 20 µs interior */
    scaling_link between = {.latency_us = 10, .bandwidth_gbs = 25};
    double x = scaling_exchange_us(64, 8, T_X, scaling_link_us(between, HALO_256));
    NEAR(x, 10 + HALO_256 / 25e3);
    scaling_times fast = {.slab_us = 28, .border_us = 10, .interior_us = 20, .single_us = 28};
    scaling_step r = step_of(weak(512, 1), fast, x);
    NEAR(r.step_us, 10 + x);
    NEAR(r.efficiency, 28 / (10 + x));
}


/* ---- the interconnect fit ------------------------------------------------ */

/* dir (a mkdtemp template): the gpu folder's probes and the ranks folder's
 * files, then `edit` (a shell command, or NULL) run inside it */
static void ranks_folder(char *dir, const char *edit)
{
    char cmd[2048];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp " DATA "gpu/*.csv %s/ && cp " DATA "ranks/*.csv %s/ && cd %s%s%s", dir, dir, dir,
             edit ? " && " : "", edit ? edit : "");
    assert_int_equal(system(cmd), 0);
}

static void remove_folder(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_fit_pairs(void **state)
{
    (void)state;
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, DATA "ranks", err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(f.n, 10);
    /* 0-1 has both directions: both-ways is the exchange's, either order;
     * its fit counts both messages (3 us + 2 s / 200 GB/s): 100 GB/s a message */
    const interconnect_fit *x = interconnect_pair(&f, "peer", 1, 0);
    assert_non_null(x);
    assert_true(x->both_ways);
    NEAR(x->link.latency_us, 3);
    NEAR(x->fitted.bandwidth_gbs, 200);
    NEAR(x->link.bandwidth_gbs, 100);
    /* one-way: the message alone */
    NEAR(f.fits[4].link.bandwidth_gbs, 150);
    assert_null(interconnect_pair(&f, "peer", 1, 3));
    assert_null(interconnect_pair(&f, "mpi", 0, 1));
    assert_true(interconnect_has_path(&f, "host-mpi"));
    assert_false(interconnect_has_path(&f, "mpi"));
    /* 4 ranks: pairs 0-1, 1-2, 2-3, 3-0, the slowest 2-3 at 80 GB/s a message */
    int missing;
    x = interconnect_ring(&f, "peer", 4, HALO_256, &missing);
    assert_int_equal(missing, 0);
    assert_int_equal(x->rank_a, 2);
    assert_int_equal(x->rank_b, 3);
    /* 8 ranks: 3-4, 4-5, 5-6, 6-7, 7-0 not measured, the slowest pair stands in */
    x = interconnect_ring(&f, "peer", 8, HALO_256, &missing);
    assert_int_equal(missing, 5);
    NEAR(x->link.bandwidth_gbs, 80);
    /* 2 ranks: the one pair 0-1 */
    x = interconnect_ring(&f, "peer", 2, HALO_256, &missing);
    assert_int_equal(missing, 0);
    NEAR(x->link.bandwidth_gbs, 100);
    assert_null(interconnect_ring(&f, "mpi", 2, HALO_256, &missing));
    /* the fastest path at the halo: peer 16.1 us against host 151 us */
    assert_string_equal(ranks_default_exchange(&f, HALO_256), "peer");
    interconnect_free(&f);
}

static void expect_malformed(const char *edit, const char *what)
{
    char dir[] = "/tmp/lbp-fit-XXXXXX";
    ranks_folder(dir, edit);
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, dir, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, "interconnect-fit.csv"));
    if (!strstr(err, what)) fprintf(stderr, "expected '%s' in: %s\n", what, err);
    assert_non_null(strstr(err, what));
    remove_folder(dir);
}

static void test_fit_malformed(void **state)
{
    (void)state;
    expect_malformed("sed -i '3s/both-ways/sideways/' interconnect-fit.csv", ":3: expected direction one-way, both-ways or ring, got 'sideways'");
    expect_malformed("sed -i '3s/both-ways/ring/' interconnect-fit.csv", ":3: expected a ring of ranks 0 .. rank_b (rank_a 0), got rank_a 1");
    expect_malformed("sed -i '2s/,200,/,0,/' interconnect-fit.csv", ":2: expected bandwidth_gbs > 0, got 0");
    expect_malformed("sed -i '2s/,3,200,/,-4,200,/' interconnect-fit.csv", ":2: expected latency_us >= 0");
    expect_malformed("sed -i '2s/peer,0,1/peer,1,1/' interconnect-fit.csv", ":2: expected two different ranks");
    expect_malformed("sed -i '2s/,0.999,/,x,/' interconnect-fit.csv", "'r2'");
    expect_malformed("sed -i '1s/latency_us/latency/' interconnect-fit.csv", "'latency_us'");
    expect_malformed("sed -i '2,$d' interconnect-fit.csv", "no fits");
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, "/nonexistent", err, sizeof err), LBP_TABLE_MISSING);
    assert_non_null(strstr(err, "/nonexistent/interconnect-fit.csv"));
}

static void test_devices(void **state)
{
    (void)state;
    int devices, ranks;
    assert_int_equal(interconnect_devices(DATA "ranks", &devices, &ranks, err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(devices, 4);
    assert_int_equal(ranks, 4);
    /* one board under every rank: 2 ranks on one GPU */
    char dir[] = "/tmp/lbp-dev-XXXXXX";
    ranks_folder(dir, "sed -i 's/GPU-000[0-9]/GPU-0000/g' interconnect.csv");
    assert_int_equal(interconnect_devices(dir, &devices, &ranks, err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(devices, 1);
    assert_int_equal(ranks, 4);
    remove_folder(dir);
    /* uuids unknown: the device indices tell */
    char dir2[] = "/tmp/lbp-dev-XXXXXX";
    ranks_folder(dir2, "sed -i 's/GPU-000[0-9]/unknown/g' interconnect.csv");
    assert_int_equal(interconnect_devices(dir2, &devices, &ranks, err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(devices, 4);
    remove_folder(dir2);
    assert_int_equal(interconnect_devices("/nonexistent", &devices, &ranks, err, sizeof err), LBP_TABLE_MISSING);
}

/* ---- ranks_predict: the one-device model's pieces and the fit ------------ */

typedef struct {
    char dir[32];
    model_inputs in;
    interconnect_fits fits;
    model_kernel k;
    model_lattice lat;
} ranks_fixture;

static void fixture_open(ranks_fixture *fx, const char *edit)
{
    snprintf(fx->dir, sizeof fx->dir, "/tmp/lbp-ranks-XXXXXX");
    ranks_folder(fx->dir, edit);
    assert_int_equal(model_inputs_load(&fx->in, fx->dir, "cuda", err, sizeof err), 0);
    assert_int_equal(interconnect_load(&fx->fits, fx->dir, err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(model_builtin_kernel(&fx->k, "pull", "fp32"), 0);
    fx->lat = (model_lattice){.occupancy = -1, .blocks_per_cu = -1};
}

static void fixture_close(ranks_fixture *fx)
{
    model_inputs_free(&fx->in);
    interconnect_free(&fx->fits);
    remove_folder(fx->dir);
}

/* µs per step of nx x ny x nz alone on the device (the one-device model) */
static double alone_us(ranks_fixture *fx, long long nx, long long ny, long long nz)
{
    model_lattice l = fx->lat;
    l.nx = nx;
    l.ny = ny;
    l.nz = nz;
    l.cells = (double)nx * ny * nz;
    model_prediction p;
    assert_int_equal(model_predict(&fx->in, &fx->k, &l, &p, err, sizeof err), 0);
    return l.cells / p.full.mlups;
}

/* A 256^3 slab's pieces are the one-device model's at fx's kernel and launch */
static void expect_pieces_alone(ranks_fixture *fx, const ranks_prediction *p)
{
    NEAR(p->times.slab_us, alone_us(fx, 256, 256, 256));
    NEAR(p->times.border_us, alone_us(fx, 256, 256, 2));
    NEAR(p->times.interior_us, alone_us(fx, 256, 256, 254));
}

static void expect_predicted(ranks_fixture *fx, const ranks_request *rq, ranks_prediction *p)
{
    int r = ranks_predict(&fx->in, &fx->k, &fx->lat, &fx->fits, rq, p, err, sizeof err);
    if (r) fprintf(stderr, "ranks_predict: %s\n", err);
    assert_int_equal(r, 0);
}

/* ranks_predict refuses rq with code, its message holding text */
static void expect_refused(ranks_fixture *fx, const ranks_request *rq, int code, const char *text)
{
    ranks_prediction p;
    assert_int_equal(ranks_predict(&fx->in, &fx->k, &fx->lat, &fx->fits, rq, &p, err, sizeof err), code);
    if (!strstr(err, text)) fprintf(stderr, "expected '%s' in: %s\n", text, err);
    assert_non_null(strstr(err, text));
}

static ranks_request request(int ranks, scaling_mode mode, long long nz, const char *exchange, int overlap)
{
    ranks_request rq = {.sc = {.nx = 256, .ny = 256, .nz = nz, .ranks = ranks, .ranks_per_device = 1, .mode = mode,
                               .overlap = overlap},
                        .nodes = 1, .ranks_per_node = ranks};
    snprintf(rq.exchange, sizeof rq.exchange, "%s", exchange);
    return rq;
}

static void test_ranks_weak(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, NULL);
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    /* the pieces are the one-device model's */
    expect_pieces_alone(&fx, &p);
    NEAR(p.times.single_us, p.times.slab_us);
    NEAR(p.times.sync_us, 10); /* launch.csv's sync_each */
    /* 4 ranks: the slowest pair 2-3, both-ways 3 us + 2 x (2 s) / 160 GB/s
     * (a rank sends both faces, 2 s) */
    NEAR(p.step.exchange_us, 3 + RANK_256 / 80e3);
    NEAR(p.step.step_us,
         fmax(p.times.border_us + p.times.interior_us, p.times.border_us + p.step.exchange_us) + p.times.sync_us);
    NEAR(p.step.mlups, 4 * 16777216.0 / p.step.step_us);
    assert_false(p.projection);
    assert_non_null(strstr(p.route, "ranks 2-3"));
    /* without overlap: the slab and the exchange */
    rq.sc.overlap = 0;
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.step_us, p.times.slab_us + 3 + RANK_256 / 80e3 + 10);
    /* host, measured as one path: 20 us + 2 x (2 s) / 20 GB/s */
    snprintf(rq.exchange, sizeof rq.exchange, "host");
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 20 + RANK_256 / 10e3);
    /* 8 ranks: pairs not measured make it a projection */
    rq = request(8, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    assert_true(p.projection);
    assert_int_equal(p.missing_pairs, 5);
    assert_true(model_provenance_says(&p.prov, "not measured"));
    fixture_close(&fx);
}

static void test_ranks_strong(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, NULL);
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_STRONG, 512, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    assert_int_equal(p.slab.nz_local, 128);
    NEAR(p.times.slab_us, alone_us(&fx, 256, 256, 128));
    NEAR(p.times.single_us, alone_us(&fx, 256, 256, 512));
    NEAR(p.step.efficiency, p.times.single_us / (4 * p.step.step_us));
    /* 3 ranks do not cut 512 planes */
    rq = request(3, SCALING_STRONG, 512, "peer", 1);
    expect_refused(&fx, &rq, RANKS_BAD_CASE, "3 ranks do not divide nz = 512");
    fixture_close(&fx);
}

/* A ring fit (the probe's ranks 0 .. R - 1 all exchanging with both
 * neighbours at once) is the exchange of a row of exactly R ranks, ahead of
 * the pairs, and never a pair's: 4 ranks take the ring 0-3 (5 us + 4 s /
 * 100 GB/s: 2 s, a rank's faces, at 50 GB/s), though its pairs are faster;
 * 2 ranks take the ring 0-1; 8 ranks, with no ring of 8, the pairs as
 * before (the ring 0-3 is not the slowest pair 2-3 that stands in). */
#define RINGS "printf 'test-gpu,cuda,peer,0,3,ring,5,100,0.99,12\\ntest-gpu,cuda,peer,0,1,ring,4,300,0.99,12\\n' >>interconnect-fit.csv"
static void test_ranks_ring_fit(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, RINGS);
    assert_int_equal(fx.fits.n, 12);
    int missing;
    const interconnect_fit *x = interconnect_ring(&fx.fits, "peer", 4, HALO_256, &missing);
    assert_int_equal(missing, 0);
    assert_int_equal(x->ring, 4);
    NEAR(x->link.latency_us, 5);
    NEAR(x->link.bandwidth_gbs, 50);
    x = interconnect_ring(&fx.fits, "peer", 2, HALO_256, &missing);
    assert_int_equal(x->ring, 2);
    NEAR(x->link.bandwidth_gbs, 150);
    x = interconnect_ring(&fx.fits, "peer", 8, HALO_256, &missing);
    assert_int_equal(missing, 5);
    assert_int_equal(x->ring, 0);
    NEAR(x->link.bandwidth_gbs, 80);
    /* a pair is a pair's fit, the ring 0-3 not among them */
    x = interconnect_pair(&fx.fits, "peer", 0, 3);
    assert_int_equal(x->ring, 0);
    NEAR(x->fitted.bandwidth_gbs, 200);
    /* host has no ring: its pairs, as before */
    x = interconnect_ring(&fx.fits, "host", 4, HALO_256, &missing);
    assert_int_equal(x->ring, 0);
    NEAR(x->link.bandwidth_gbs, 10);
    /* the prediction: the ring's time, said in the route */
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 5 + RANK_256 / 50e3);
    NEAR(p.step.step_us, p.times.slab_us + 5 + RANK_256 / 50e3 + 10);
    assert_false(p.projection);
    assert_non_null(strstr(p.route, "ring fit of ranks 0-3"));
    fixture_close(&fx);
}

/* A ring point of interconnect.csv: ranks 0 .. last, a message of bytes
 * to and from each neighbour, its median us */
#define RING_POINT(last, bytes, us)                                                                            \
    "printf 'test-gpu,cuda,peer,0," #last ",0," #last ",GPU-0000,GPU-000" #last ",ring," #bytes ",20," #us "," #us \
    "," #us ",1\\n' >>interconnect.csv"

/* The exchange reads the probe's medians, not the fit, inside the measured
 * sizes: 4 ranks at 256^2 send a face of 1,310,720 B, the geometric middle
 * of the ring's points at 655,360 (40 us) and 2,621,440 B (90 us), so log
 * time linear in log size gives sqrt(40 x 90) = 60 us (the fit: 57.4; time
 * linear in log size: 65).  2 ranks: a point at the face itself, read as
 * measured. */
static void test_ranks_ring_points(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, RINGS " && " RING_POINT(3, 655360, 40) " && " RING_POINT(3, 2621440, 90) " && "
                 RING_POINT(1, 327680, 30) " && " RING_POINT(1, 1310720, 77) " && " RING_POINT(1, 5242880, 200));
    int missing;
    const interconnect_fit *x = interconnect_ring(&fx.fits, "peer", 4, HALO_256, &missing);
    assert_int_equal(x->n_measured, 2);
    interconnect_reading how;
    NEAR(interconnect_us(x, RANK_256, &how), 60);
    assert_int_equal(how.within_measured, 1);
    NEAR(how.message, HALO_256);
    NEAR(how.lo, 655360);
    NEAR(how.hi, 2621440);
    /* at a measured point itself, its median */
    NEAR(interconnect_us(x, 2 * 655360.0, &how), 40);
    NEAR(interconnect_us(x, 2 * 2621440.0, &how), 90);
    assert_int_equal(how.within_measured, 1);
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 60);
    assert_non_null(strstr(p.route, "between the probe's medians of 655360 and 2621440 B"));
    assert_false(model_provenance_says(&p.prov, "outside the probe's"));
    rq = request(2, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 77);
    assert_non_null(strstr(p.route, "the probe's median of 1310720 B"));
    /* the pairs read their own points: 2-3 at a message of 2 s, on its line */
    x = interconnect_pair(&fx.fits, "peer", 2, 3);
    NEAR(interconnect_us(x, RANK_256, &how), 3 + RANK_256 / 80e3);
    assert_int_equal(how.within_measured, 1);
    fixture_close(&fx);
}

/* Outside the measured sizes the fit, recorded: the ring of 4's points end
 * at 65,536 B, below a 256^2 face; a fit without points (the ring of 2
 * here) says so too.  Both clear within_measured. */
static void test_ranks_ring_outside_points(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, RINGS " && " RING_POINT(3, 4096, 20) " && " RING_POINT(3, 65536, 25));
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 5 + RANK_256 / 50e3);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(model_provenance_says(&p.prov, "a message of 1310720 B is outside the probe's 4096..65536 B: the fit"));
    rq = request(2, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 4 + RANK_256 / 150e3);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(model_provenance_says(&p.prov, "no interconnect.csv points: the fit"));
    fixture_close(&fx);
}

/* interconnect_load refuses a point it cannot read as a median at a size,
 * naming the file, the line and the value */
static void expect_points_refused(const char *edit, const char *text)
{
    char dir[64] = "/tmp/lbp-ranks-XXXXXX";
    ranks_folder(dir, edit);
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, dir, err, sizeof err), LBP_TABLE_MALFORMED);
    if (!strstr(err, text)) fprintf(stderr, "expected '%s' in: %s\n", text, err);
    assert_non_null(strstr(err, text));
    assert_non_null(strstr(err, "interconnect.csv:"));
    remove_folder(dir);
}

static void test_points_malformed(void **state)
{
    (void)state;
    expect_points_refused(RING_POINT(3, 0, 20), "expected bytes a whole number > 0, got 0");
    expect_points_refused(RING_POINT(3, 4096.5, 20), "expected bytes a whole number > 0, got 4096.5");
    expect_points_refused(RING_POINT(3, 4096, -1), "expected us_median > 0, got -1");
    expect_points_refused(RING_POINT(3, 4096, nan), "expected a number");
    expect_points_refused("sed -i '2s/both-ways/sideways/' interconnect.csv", "got 'sideways'");
    expect_points_refused(RINGS " && " RING_POINT(3, 4096, 20) " && " RING_POINT(3, 4096, 21),
                          "a second peer ring point of ranks 0-3 at 4096 bytes");
    /* without interconnect.csv: the fits, read as fitted */
    char dir[64] = "/tmp/lbp-ranks-XXXXXX";
    ranks_folder(dir, "rm interconnect.csv");
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, dir, err, sizeof err), LBP_TABLE_OK);
    interconnect_reading how;
    const interconnect_fit *x = interconnect_pair(&f, "peer", 2, 3);
    NEAR(interconnect_us(x, RANK_256, &how), 3 + RANK_256 / 80e3);
    assert_int_equal(how.within_measured, 0);
    interconnect_free(&f);
    remove_folder(dir);
}

/* ---- the exchange beside a copy (column beside) ---------------------------- */

/* The ranks folder's files given the column (every row none: as the probe
 * writes them alone), then a peer ring of 4 alone and one beside a copy,
 * each with points at 655,360 and 2,621,440 B around a 256^2 face (alone
 * 30 and 60 us: sqrt(30 x 60) = 42.43 at the face; beside 40 and 90: 60),
 * at the same sizes: one fit's points each, no second point of either. */
#define BESIDE_COLUMN "sed -i '1s/$/,beside/; 2,$s/$/,none/' interconnect-fit.csv interconnect.csv"
#define BESIDE_RINGS                                                                                       \
    "printf 'test-gpu,cuda,peer,0,3,ring,5,100,0.99,2,none\ntest-gpu,cuda,peer,0,3,ring,6,50,0.99,2,copy\n' " \
    ">>interconnect-fit.csv"
#define BESIDE_POINT(beside, bytes, us)                                                                     \
    "printf 'test-gpu,cuda,peer,0,3,0,3,GPU-0000,GPU-0003,ring," #bytes ",20," #us "," #us "," #us ",1," #beside \
    "\\n' >>interconnect.csv"
#define BESIDE_FOLDER                                                                                       \
    BESIDE_COLUMN " && " BESIDE_RINGS " && " BESIDE_POINT(none, 655360, 30) " && " BESIDE_POINT(none, 2621440, 60) \
                  " && " BESIDE_POINT(copy, 655360, 40) " && " BESIDE_POINT(copy, 2621440, 90)

/* Files written before the column: every fit alone */
static void test_beside_old_files(void **state)
{
    (void)state;
    interconnect_fits f;
    assert_int_equal(interconnect_load(&f, DATA "ranks", err, sizeof err), LBP_TABLE_OK);
    for (int i = 0; i < f.n; i++) assert_int_equal(f.fits[i].beside, INTERCONNECT_ALONE);
    int missing;
    assert_null(interconnect_ring_beside(&f, "peer", 4, HALO_256, INTERCONNECT_BESIDE_COPY, &missing));
    interconnect_free(&f);
}

/* Each lookup keeps to its condition: alone never reads a fit measured
 * beside, beside never an alone one (NULL where the path has none) */
static void test_beside_lookup(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, BESIDE_FOLDER);
    assert_int_equal(fx.fits.n, 12);
    int missing;
    const interconnect_fit *x = interconnect_ring(&fx.fits, "peer", 4, HALO_256, &missing);
    assert_int_equal(x->beside, INTERCONNECT_ALONE);
    assert_int_equal(x->ring, 4);
    NEAR(interconnect_us(x, RANK_256, NULL), sqrt(30.0 * 60.0));
    x = interconnect_ring_beside(&fx.fits, "peer", 4, HALO_256, INTERCONNECT_BESIDE_COPY, &missing);
    assert_int_equal(x->beside, INTERCONNECT_BESIDE_COPY);
    assert_int_equal(x->n_measured, 2);
    NEAR(interconnect_us(x, RANK_256, NULL), 60);
    /* no ring of 2 beside, and no pair measured beside to stand in */
    assert_null(interconnect_ring_beside(&fx.fits, "peer", 2, HALO_256, INTERCONNECT_BESIDE_COPY, &missing));
    assert_null(interconnect_ring_beside(&fx.fits, "host", 4, HALO_256, INTERCONNECT_BESIDE_COPY, &missing));
    /* the pairs stay alone */
    assert_int_equal(interconnect_pair(&fx.fits, "peer", 2, 3)->beside, INTERCONNECT_ALONE);
    fixture_close(&fx);
}

/* A row with overlap reads the ring measured beside a copy; without
 * overlap, or a slab with no interior to overlap with, the ring alone; a
 * path without beside fits falls back to alone, with a note */
static void test_ranks_beside(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, BESIDE_FOLDER);
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 60);
    assert_int_equal(p.exchange_beside, INTERCONNECT_BESIDE_COPY);
    assert_non_null(strstr(p.route, "all at once beside a copy"));
    assert_false(model_provenance_says(&p.prov, "beside a copy (stream"));
    rq = request(4, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, sqrt(30.0 * 60.0));
    assert_int_equal(p.exchange_beside, INTERCONNECT_ALONE);
    assert_null(strstr(p.route, "beside"));
    /* strong, 4 ranks of 2 planes: all border, the exchange runs alone */
    rq = request(4, SCALING_STRONG, 8, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    assert_int_equal(p.exchange_beside, INTERCONNECT_ALONE);
    assert_false(model_provenance_says(&p.prov, "beside a copy (stream"));
    /* host has no fit beside: alone, as without overlap, and said */
    rq = request(4, SCALING_WEAK, 256, "host", 0);
    expect_predicted(&fx, &rq, &p);
    const double alone = p.within_us;
    rq = request(4, SCALING_WEAK, 256, "host", 1);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.within_us, alone);
    assert_int_equal(p.exchange_beside, INTERCONNECT_ALONE);
    assert_true(model_provenance_says(&p.prov, "no host fit measured beside a copy"));
    fixture_close(&fx);
}

static void test_beside_malformed(void **state)
{
    (void)state;
    expect_malformed(BESIDE_COLUMN " && sed -i '2s/,none$/,sideways/' interconnect-fit.csv",
                     ":2: expected beside none or copy, got 'sideways'");
    expect_points_refused(BESIDE_COLUMN " && sed -i '3s/,none$/,maybe/' interconnect.csv",
                          ":3: expected beside none or copy, got 'maybe'");
    expect_points_refused(BESIDE_FOLDER " && " BESIDE_POINT(copy, 655360, 41),
                          "a second peer ring point of ranks 0-3 at 655360 bytes (beside copy)");
}

/* ---- beside a copy, paired with runs alone (paired_ratio_median) ---------- */

/* The beside folder as the probe now writes it: a row beside says the
 * median of the runs alone paired with its runs and of the ratios run by
 * run, rows alone leave both empty.  The alone sweep's ring: 30 and 60 us
 * at 655,360 and 2,621,440 B; beside 40 and 90 us, paired with runs alone
 * of 25 and 75 us at ratios 1.6 and 1.2 (the host drifted between the
 * sweeps: 40 / 30 and 90 / 60 would say 1.33 and 1.5).  At the 256^2 face,
 * log-midway: alone sqrt(30 x 60), ratio sqrt(1.6 x 1.2), the exchange
 * their product (58.79 us, where the medians beside read 60). */
#define PAIRED_COLUMN                                                                                        \
    "sed -i '1s/$/,beside/; 2,$s/$/,none/' interconnect-fit.csv && sed -i "                                 \
    "'1s/$/,paired_alone_us_median,paired_ratio_median,beside/; 2,$s/$/,,,none/' interconnect.csv"
#define PAIRED_POINT(beside, bytes, us, alone, ratio)                                                       \
    "printf 'test-gpu,cuda,peer,0,3,0,3,GPU-0000,GPU-0003,ring," #bytes ",20," #us "," #us "," #us ",1," #alone \
    "," #ratio "," #beside "\\n' >>interconnect.csv"
#define PAIRED_FOLDER                                                                                       \
    PAIRED_COLUMN " && " BESIDE_RINGS " && " PAIRED_POINT(none, 655360, 30, , ) " && "                      \
    PAIRED_POINT(none, 2621440, 60, , ) " && " PAIRED_POINT(copy, 655360, 40, 25, 1.6) " && "               \
    PAIRED_POINT(copy, 2621440, 90, 75, 1.2)

/* The ratio is read as the medians are (log-log between the sizes around
 * the message), the nearest size's outside them; none without the column
 * or where a point lacks it */
static void test_paired_ratio(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, PAIRED_FOLDER);
    int missing;
    const interconnect_fit *x = interconnect_ring_beside(&fx.fits, "peer", 4, HALO_256, INTERCONNECT_BESIDE_COPY,
                                                         &missing);
    interconnect_reading how;
    NEAR(interconnect_ratio(x, RANK_256, &how), sqrt(1.6 * 1.2));
    assert_true(how.within_measured);
    NEAR(interconnect_ratio(x, 2 * 655360.0, &how), 1.6);
    NEAR(interconnect_ratio(x, 2 * 100000.0, &how), 1.6);
    assert_false(how.within_measured);
    NEAR(interconnect_ratio(x, 2 * 1e7, &how), 1.2);
    assert_false(how.within_measured);
    /* the alone ring's points say no ratio */
    assert_true(interconnect_ratio(interconnect_ring(&fx.fits, "peer", 4, HALO_256, &missing), RANK_256, NULL) == 0);
    fixture_close(&fx);
    fixture_open(&fx, BESIDE_FOLDER);
    x = interconnect_ring_beside(&fx.fits, "peer", 4, HALO_256, INTERCONNECT_BESIDE_COPY, &missing);
    assert_true(interconnect_ratio(x, RANK_256, NULL) == 0);
    fixture_close(&fx);
}

/* With overlap the exchange is the alone sweep's reading times the paired
 * ratio, never the medians beside; without overlap alone as ever; a fit
 * beside whose points lack a ratio reads its medians */
static void test_ranks_paired(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, PAIRED_FOLDER);
    ranks_prediction p;
    ranks_request rq = request(4, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, sqrt(30.0 * 60.0) * sqrt(1.6 * 1.2));
    NEAR(p.exchange_ratio, sqrt(1.6 * 1.2));
    assert_int_equal(p.exchange_beside, INTERCONNECT_BESIDE_COPY);
    assert_non_null(strstr(p.route, "the paired ratio beside / alone"));
    assert_non_null(strstr(p.route, "all at once beside a copy"));
    rq = request(4, SCALING_WEAK, 256, "peer", 0);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, sqrt(30.0 * 60.0));
    assert_true(p.exchange_ratio == 0);
    fixture_close(&fx);
    /* one point beside without its ratio: the medians beside */
    fixture_open(&fx, PAIRED_COLUMN " && " BESIDE_RINGS " && " PAIRED_POINT(none, 655360, 30, , ) " && "
                      PAIRED_POINT(none, 2621440, 60, , ) " && " PAIRED_POINT(copy, 655360, 40, 25, 1.6) " && "
                      PAIRED_POINT(copy, 2621440, 90, , ));
    rq = request(4, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    NEAR(p.step.exchange_us, 60);
    assert_true(p.exchange_ratio == 0);
    fixture_close(&fx);
}

static void test_paired_malformed(void **state)
{
    (void)state;
    expect_points_refused(PAIRED_FOLDER " && sed -i '$s/,1.2,copy$/,-1,copy/' interconnect.csv",
                          "expected paired_ratio_median > 0 or empty, got -1");
    expect_points_refused(PAIRED_FOLDER " && sed -i '$s/,1.2,copy$/,0,copy/' interconnect.csv",
                          "expected paired_ratio_median > 0 or empty, got 0");
    expect_points_refused(PAIRED_FOLDER " && sed -i '$s/,1.2,copy$/,lots,copy/' interconnect.csv",
                          "paired_ratio_median");
}

/* The pieces are predicted at the kernel's own launch: its cells per
 * thread and the lattice's occupancy (validate passes each lbm.csv row's),
 * never a default one.  The fixture's probes at 4 and 8 bytes make pull at
 * 2 cells per thread (8-byte vectors) and at occupancy 0.5 differ from the
 * default launch. */
static void test_ranks_kernel_launch(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, NULL);
    ranks_prediction p;
    ranks_request rq = request(2, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    const double default_slab = p.times.slab_us;
    fx.k.cells_per_thread = 2;
    fx.lat.occupancy = 0.5;
    expect_predicted(&fx, &rq, &p);
    expect_pieces_alone(&fx, &p);
    assert_true(fabs(p.times.slab_us / default_slab - 1) > 1e-3);
    fixture_close(&fx);
}

/* host without a whole-path fit: d2h + host-mpi (2 us + 2 s / 40 GB/s both
 * ways) + h2d, the transfers from
 * the ranks folder's stream-meta.csv (d2h 8 us + s / 50 GB/s, h2d 9 us +
 * s / 50 GB/s) */
static void test_ranks_host_three_legs(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, "sed -i '/,host,/d' interconnect-fit.csv");
    ranks_prediction p;
    ranks_request rq = request(2, SCALING_WEAK, 256, "host", 0);
    expect_predicted(&fx, &rq, &p);
    double s = RANK_256;
    NEAR(p.step.exchange_us, (8 + s / 50e3) + (2 + s / 20e3) + (9 + s / 50e3));
    assert_non_null(strstr(p.route, "three transfers"));
    /* no mpi path at all: the error names the file and the path */
    snprintf(rq.exchange, sizeof rq.exchange, "mpi");
    expect_refused(&fx, &rq, RANKS_INPUT, "interconnect-fit.csv: no mpi path");
    fixture_close(&fx);
    /* neither host nor host-mpi */
    fixture_open(&fx, "sed -i '/,host/d' interconnect-fit.csv");
    rq = request(2, SCALING_WEAK, 256, "host", 0);
    expect_refused(&fx, &rq, RANKS_INPUT, "no host path (nor host-mpi");
    fixture_close(&fx);
}

/* 64 nodes of 8: within a node the measured ring (its pairs beyond 0-3 not
 * measured), between nodes the given link; marked a projection */
static void test_ranks_projection(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, NULL);
    ranks_prediction p;
    ranks_request rq = request(512, SCALING_WEAK, 256, "peer", 1);
    rq.nodes = 64;
    rq.ranks_per_node = 8;
    rq.between = (scaling_link){.latency_us = 10, .bandwidth_gbs = 25};
    expect_predicted(&fx, &rq, &p);
    assert_true(p.projection);
    NEAR(p.within_us, 3 + RANK_256 / 80e3);
    NEAR(p.between_us, 10 + RANK_256 / 25e3);
    NEAR(p.step.exchange_us, p.between_us);
    assert_true(model_provenance_says(&p.prov, "peer copies do not cross nodes"));
    /* host across nodes: d2h + the link + h2d */
    snprintf(rq.exchange, sizeof rq.exchange, "host");
    expect_predicted(&fx, &rq, &p);
    double s = RANK_256;
    NEAR(p.between_us, (8 + s / 50e3) + (10 + s / 25e3) + (9 + s / 50e3));
    /* nodes x ranks a node must be the ranks */
    rq.sc.ranks = 500;
    expect_refused(&fx, &rq, RANKS_BAD_CASE, "64 nodes of 8 ranks are not 500 ranks");
    /* one node, one rank: no exchange, no projection */
    rq = request(1, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    assert_false(p.projection);
    NEAR(p.step.exchange_us, 0);
    NEAR(p.step.efficiency, 1);
    fixture_close(&fx);
}

/* ---- lbm.csv's multi-rank columns -------------------------------------- */

static void read_lbm(lbp_table *t, const char *path)
{
    assert_int_equal(lbp_table_read(t, path, 1, err, sizeof err), 0);
}

/* the row of `ranks`, `exchange`, `overlap`, `scaling` */
static int find_row(const lbp_table *t, int ranks, const char *exchange, int overlap, const char *scaling)
{
    for (int i = 0; i < t->rows; i++) {
        ranks_row r;
        double nz;
        assert_int_equal(lbp_table_number_by_name(t, i, "nz", &nz, err, sizeof err), 0);
        assert_int_equal(ranks_row_read(t, i, (long long)nz, &r, err, sizeof err), 0);
        if (r.ranks == ranks && !strcmp(r.exchange, exchange) && r.overlap == overlap && !strcmp(r.scaling, scaling))
            return i;
    }
    fail_msg("no row of %d ranks, %s, overlap %d, %s", ranks, exchange, overlap, scaling);
    return -1;
}

static void test_rows(void **state)
{
    (void)state;
    lbp_table t;
    ranks_row r;
    /* a file of one device: ranks 1, none */
    read_lbm(&t, DATA "gpu/lbm.csv");
    assert_int_equal(ranks_row_read(&t, 0, 256, &r, err, sizeof err), 0);
    assert_int_equal(r.ranks, 1);
    assert_string_equal(r.exchange, "none");
    assert_string_equal(r.scaling, "none");
    assert_int_equal(r.nz_local, 256);
    NEAR(r.exchange_us, -1);
    lbp_table_free(&t);
    read_lbm(&t, DATA "ranks/lbm.csv");
    int row = find_row(&t, 4, "peer", 1, "weak");
    assert_int_equal(ranks_row_read(&t, row, 1024, &r, err, sizeof err), 0);
    assert_int_equal(r.nz_local, 256);
    NEAR(r.exchange_us, 37);
    /* the request: weak, 256 planes a rank, one device a rank */
    model_lattice lat = {.nx = 256, .ny = 256, .nz = 1024, .cells = 256.0 * 256 * 1024};
    ranks_request rq;
    assert_int_equal(ranks_request_of(&r, &lat, 4, &rq, err, sizeof err), 0);
    assert_int_equal(rq.sc.nz, 256);
    assert_int_equal(rq.sc.mode, SCALING_WEAK);
    assert_int_equal(rq.sc.ranks_per_device, 1);
    assert_string_equal(rq.exchange, "peer");
    /* 4 ranks on the probe's 1 device: 4 a device */
    assert_int_equal(ranks_request_of(&r, &lat, 1, &rq, err, sizeof err), 0);
    assert_int_equal(rq.sc.ranks_per_device, 4);
    /* the baseline: the one-rank weak run at 256^3 (4700), not the
     * one-device sweep's row there (4857.1) */
    NEAR(ranks_baseline_mlups(&t, row, &r), 4700);
    /* strong: the one-rank strong run of the whole 256x256x512 */
    row = find_row(&t, 4, "peer", 1, "strong");
    assert_int_equal(ranks_row_read(&t, row, 512, &r, err, sizeof err), 0);
    NEAR(ranks_baseline_mlups(&t, row, &r), 4700);
    assert_int_equal(ranks_request_of(&r, &lat, 0, &rq, err, sizeof err), 0);
    assert_int_equal(rq.sc.nz, 1024); /* the lattice given, the whole one */
    assert_int_equal(rq.sc.mode, SCALING_STRONG);
    lbp_table_free(&t);
}

static void expect_bad_row(const char *edit, const char *what)
{
    char dir[] = "/tmp/lbp-rows-XXXXXX";
    ranks_folder(dir, edit);
    char path[64];
    snprintf(path, sizeof path, "%s/lbm.csv", dir);
    lbp_table t;
    read_lbm(&t, path);
    int bad = 0;
    for (int i = 0; i < t.rows && !bad; i++) {
        ranks_row r;
        double nz;
        assert_int_equal(lbp_table_number_by_name(&t, i, "nz", &nz, err, sizeof err), 0);
        bad = ranks_row_read(&t, i, (long long)nz, &r, err, sizeof err) != 0;
    }
    assert_true(bad);
    if (!strstr(err, what)) fprintf(stderr, "expected '%s' in: %s\n", what, err);
    assert_non_null(strstr(err, what));
    lbp_table_free(&t);
    remove_folder(dir);
}

static void test_rows_malformed(void **state)
{
    (void)state;
    expect_bad_row("sed -i '8s/,peer,/,carrier,/' lbm.csv", ":8: expected exchange none, host, peer or mpi, got 'carrier'");
    expect_bad_row("sed -i '8s/,weak,/,medium,/' lbm.csv", ":8: expected scaling none, weak or strong, got 'medium'");
    expect_bad_row("sed -i '8s/,peer,1,/,peer,2,/' lbm.csv", ":8: expected overlap 0 or 1, got 2");
    expect_bad_row("sed -i '8s/,2,peer,/,0,peer,/' lbm.csv", ":8: expected ranks a whole number >= 1, got 0");
    expect_bad_row("sed -i '8s/,weak,256,/,weak,200,/' lbm.csv", ":8: expected nz = ranks x nz_local");
    expect_bad_row("sed -i '8s/,peer,1,weak,/,none,1,weak,/' lbm.csv", ":8: a row of 2 ranks needs an exchange");
    expect_bad_row("sed -i '8s/,30.5$/,fast/' lbm.csv", "'exchange_us'");
}

/* ---- printing --------------------------------------------------------- */

/* what f printed, in buf */
static void printed(FILE *f, char *buf, size_t len)
{
    long n = ftell(f);
    assert_true(n > 0 && (size_t)n < len);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
}

static void test_print(void **state)
{
    (void)state;
    ranks_fixture fx;
    fixture_open(&fx, NULL);
    ranks_prediction p;
    ranks_request rq = request(512, SCALING_WEAK, 256, "peer", 1);
    rq.nodes = 64;
    rq.ranks_per_node = 8;
    rq.between = (scaling_link){.latency_us = 10, .bandwidth_gbs = 25};
    expect_predicted(&fx, &rq, &p);
    static char buf[16384];
    /* text: every line marked */
    FILE *f = tmpfile();
    ranks_print_one(f, RANKS_TEXT, "test-gpu", "cuda", "pull fp32", &rq, &p, 1);
    printed(f, buf, sizeof buf);
    int lines = 0;
    for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"), lines++)
        if (strncmp(l, "[projection] ", 13)) fail_msg("line not marked a projection: %s", l);
    assert_true(lines >= 6);
    /* CSV: a header and a row of as many fields, projection yes */
    f = tmpfile();
    ranks_print_begin(f, RANKS_CSV);
    ranks_print_one(f, RANKS_CSV, "test-gpu", "cuda", "pull fp32", &rq, &p, 1);
    ranks_print_end(f, RANKS_CSV);
    printed(f, buf, sizeof buf);
    char *row = strchr(buf, '\n') + 1;
    int header_fields = 1, row_fields = 1;
    for (char *c = buf; c < row; c++) header_fields += *c == ',';
    for (char *c = row; *c; c++) row_fields += *c == ',';
    assert_int_equal(header_fields, row_fields);
    assert_non_null(strstr(buf, ",projection\n"));
    assert_non_null(strstr(row, ",yes\n"));
    assert_non_null(strstr(row, "test-gpu,cuda,pull fp32,256,256,131072,weak,512,64,8,1,peer,1,256,1310720,"));
    /* JSON: an array of one object, the projection a boolean */
    f = tmpfile();
    ranks_print_begin(f, RANKS_JSON);
    ranks_print_one(f, RANKS_JSON, "test-gpu", "cuda", "pull fp32", &rq, &p, 1);
    ranks_print_end(f, RANKS_JSON);
    printed(f, buf, sizeof buf);
    assert_int_equal(buf[0], '[');
    assert_non_null(strstr(buf, "\"projection\": true}"));
    assert_non_null(strstr(buf, "\"exchange\": \"peer\""));
    assert_non_null(strstr(buf, "\"ranks\": 512,"));
    /* a measured one: no mark */
    rq = request(2, SCALING_WEAK, 256, "peer", 1);
    expect_predicted(&fx, &rq, &p);
    f = tmpfile();
    ranks_print_one(f, RANKS_TEXT, "test-gpu", "cuda", "pull fp32", &rq, &p, 1);
    printed(f, buf, sizeof buf);
    assert_null(strstr(buf, "projection"));
    assert_non_null(strstr(buf, "exchange hidden"));
    fixture_close(&fx);
}

/* the summary block from a model.csv: the lines, the targets */
static void summary_of(const char *rows, char *buf, size_t len)
{
    char path[] = "/tmp/lbp-model-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *w = fdopen(fd, "w");
    fprintf(w, "device,backend,scheme,precision,measured_mlups,full_mlups,error_pct,ranks,exchange,overlap,scaling,"
               "devices,measured_efficiency_pct,predicted_efficiency_pct\n%s", rows);
    fclose(w);
    lbp_table t;
    assert_int_equal(lbp_table_read(&t, path, 1, err, sizeof err), 0);
    FILE *f = tmpfile();
    assert_int_equal(ranks_summary_print(f, &t, err, sizeof err), 0);
    if (ftell(f) == 0) { buf[0] = 0; fclose(f); }
    else printed(f, buf, len);
    lbp_table_free(&t);
    unlink(path);
}

static void test_summary(void **state)
{
    (void)state;
    static char buf[8192];
    /* 8 GPUs, every fp32 scheme at least 95 %, errors within 5 %: met */
    summary_of("d,cuda,pull,fp32,150000,152000,1.33,8,peer,1,weak,8,97.2,98.0\n"
               "d,cuda,aa,fp32,140000,141000,0.71,8,peer,1,weak,8,95.4,95.9\n"
               "d,cuda,pull,fp32,76000,76500,0.66,4,peer,1,weak,4,98.5,99.0\n"
               "d,cuda,pull,fp32,60000,63000,4.9,8,host,0,weak,8,40.1,42.0\n"
               "d,cuda,pull,fp32,19000,19000,0,1,none,0,weak,1,-1,-1\n", buf, sizeof buf);
    assert_non_null(strstr(buf, "at 8 GPUs: pull fp32 97.2 %, aa fp32 95.4 %: met\n"));
    /* and each path's worst, where there are several */
    assert_non_null(strstr(buf, "worst |error| 4.90 % over 4 points: met (by path: peer 1.33 % over 3, met; host 4.90 % "
                                "over 1, met)\n"));
    /* one line a group: peer-on at its 8 ranks (pull, the faster), host-off */
    assert_non_null(strstr(buf, "cuda    weak    peer     on          8 pull"));
    assert_null(strstr(buf, "    4 pull"));
    assert_non_null(strstr(buf, "cuda    weak    host     off         8 pull"));
    /* one scheme under 95 %, an error over 5 %: not met */
    summary_of("d,cuda,pull,fp32,150000,152000,1.33,8,peer,1,weak,8,97.2,98.0\n"
               "d,cuda,aa,fp32,130000,141000,8.46,8,peer,1,weak,8,94.9,95.9\n", buf, sizeof buf);
    assert_non_null(strstr(buf, "aa fp32 94.9 %: not met\n"));
    assert_non_null(strstr(buf, "worst |error| 8.46 % over 2 points: not met\n"));
    /* 2 GPUs the most: said; oversubscribed points outside the targets */
    summary_of("d,cuda,pull,fp32,38000,38500,1.3,2,peer,1,weak,2,97.0,98.0\n"
               "d,cuda,pull,fp32,9000,12000,33.3,2,host,1,weak,1,47.0,60.0\n", buf, sizeof buf);
    assert_non_null(strstr(buf, "at 2 GPUs (the most measured): pull fp32 97.0 %: met there\n"));
    assert_non_null(strstr(buf, "worst |error| 1.30 % over 1 points: met\n"));
    assert_non_null(strstr(buf, "1 point(s) ran several ranks on one device"));
    assert_non_null(strstr(buf, "(oversubscribed)"));
    /* no peer run: not measured; one device's file: nothing */
    summary_of("d,cuda,pull,fp32,9000,9100,1.1,2,host,0,weak,2,90,91\n", buf, sizeof buf);
    assert_non_null(strstr(buf, "with peer exchange and overlap: not measured\n"));
    summary_of("d,cuda,pull,fp32,9000,9100,1.1,1,none,0,none,1,-1,-1\n", buf, sizeof buf);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link),
        cmocka_unit_test(test_slab),
        cmocka_unit_test(test_slab_errors),
        cmocka_unit_test(test_overlap_max_vs_sum),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_overlap_needs_interior),
        cmocka_unit_test(test_weak),
        cmocka_unit_test(test_strong),
        cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_oversubscribed),
        cmocka_unit_test(test_projection_faces),
        cmocka_unit_test(test_fit_pairs),
        cmocka_unit_test(test_fit_malformed),
        cmocka_unit_test(test_ranks_ring_fit),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_ranks_weak),
        cmocka_unit_test(test_ranks_strong),
        cmocka_unit_test(test_ranks_kernel_launch),
        cmocka_unit_test(test_ranks_host_three_legs),
        cmocka_unit_test(test_ranks_ring_points),
        cmocka_unit_test(test_ranks_ring_outside_points),
        cmocka_unit_test(test_points_malformed),
        cmocka_unit_test(test_beside_old_files),
        cmocka_unit_test(test_beside_lookup),
        cmocka_unit_test(test_ranks_beside),
        cmocka_unit_test(test_beside_malformed),
        cmocka_unit_test(test_paired_ratio),
        cmocka_unit_test(test_ranks_paired),
        cmocka_unit_test(test_paired_malformed),
        cmocka_unit_test(test_ranks_projection),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_rows_malformed),
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
