/* model/scaling: the step on R ranks from analytic inputs, each answer
 * worked out by hand in the comment beside it.  Run from anywhere. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "../model/scaling.h"

/* the arithmetic is a few additions and one division: 1e-12 relative */
#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-12 * fmax(1, fabs((double)(b))))

static char err[256];

/* 256 x 256 faces in fp32: s = 5 x 256 x 256 x 4 = 1,310,720 B; over the
 * link 5 µs + s / 50 GB/s: 5 + 26.2144 = 31.2144 µs */
static const scaling_link link50 = {.latency_us = 5, .bandwidth_gbs = 50};
#define HALO_256 1310720.0
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link),
        cmocka_unit_test(test_slab),
        cmocka_unit_test(test_slab_errors),
        cmocka_unit_test(test_overlap_max_vs_sum),
        cmocka_unit_test(test_weak),
        cmocka_unit_test(test_strong),
        cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_oversubscribed),
        cmocka_unit_test(test_projection_faces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
