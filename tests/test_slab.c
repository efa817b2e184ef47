/* The multi-rank engine's parts that one process can check (the decomposed
 * runs themselves need mpirun: tests/test_mpi.sh): the slab geometry and
 * its errors, the crossing populations, every slab kernel variant through
 * NVRTC, which exchange paths a device offers, the check that every rank
 * runs the same kind of device, and the interconnect sweep's sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "device.h"
#include "exchange.h"
#include "ranks.h"
#include "../lbmkernels/slab.h"
#include "../stream/interconnect.h"

static void test_geometry_neighbours(void **state)
{
    (void)state;
    char why[256];
    lbm_slab_geom g;
    /* periodic ring of 4: rank 0's lower neighbour is the last */
    assert_int_equal(lbm_slab_geometry(&g, 32, 4, 0, LBM_PERIODIC, why, sizeof why), 0);
    assert_int_equal(g.nz_local, 8);
    assert_int_equal(g.z_first, 0);
    assert_int_equal(g.below, 3);
    assert_int_equal(g.above, 1);
    assert_int_equal(lbm_slab_geometry(&g, 32, 4, 3, LBM_PERIODIC, why, sizeof why), 0);
    assert_int_equal(g.z_first, 24);
    assert_int_equal(g.below, 2);
    assert_int_equal(g.above, 0);
    /* the cavity's walls: no neighbour beyond the first and last slab */
    assert_int_equal(lbm_slab_geometry(&g, 32, 4, 0, LBM_CAVITY_BOX, why, sizeof why), 0);
    assert_int_equal(g.below, -1);
    assert_int_equal(g.above, 1);
    assert_int_equal(lbm_slab_geometry(&g, 32, 4, 3, LBM_CAVITY_BOX, why, sizeof why), 0);
    assert_int_equal(g.below, 2);
    assert_int_equal(g.above, -1);
    /* two ranks, periodic: the one neighbour on both sides */
    assert_int_equal(lbm_slab_geometry(&g, 6, 2, 1, LBM_PERIODIC, why, sizeof why), 0);
    assert_int_equal(g.below, 0);
    assert_int_equal(g.above, 0);
    /* one rank exchanges nothing */
    assert_int_equal(lbm_slab_geometry(&g, 6, 1, 0, LBM_PERIODIC, why, sizeof why), 0);
    assert_int_equal(g.below, -1);
    assert_int_equal(g.above, -1);
}

static void test_geometry_errors(void **state)
{
    (void)state;
    char why[256];
    lbm_slab_geom g;
    assert_int_equal(lbm_slab_geometry(&g, 7, 2, 0, LBM_PERIODIC, why, sizeof why), -1);
    assert_non_null(strstr(why, "do not divide"));
    assert_non_null(strstr(why, "7 planes"));
    assert_int_equal(lbm_slab_geometry(&g, 2, 4, 0, LBM_PERIODIC, why, sizeof why), -1);
    assert_non_null(strstr(why, "thinner than the 1 halo plane"));
    assert_int_equal(lbm_slab_geometry(&g, 4, 4, 2, LBM_CAVITY_BOX, why, sizeof why), 0);
    assert_int_equal(g.nz_local, 1);
}

/* The crossing populations are those with c_z = +1 and -1, and each up
 * slot's opposite is a down slot. */
static void test_crossing_slots(void **state)
{
    (void)state;
    int up = 0, down = 0;
    for (int i = 0; i < LBM_Q; i++) {
        up += lbm_c[i][2] == 1;
        down += lbm_c[i][2] == -1;
    }
    assert_int_equal(up, LBM_CROSSING);
    assert_int_equal(down, LBM_CROSSING);
    for (int j = 0; j < LBM_CROSSING; j++) {
        assert_int_equal(lbm_c[lbm_slots_up[j]][2], 1);
        assert_int_equal(lbm_c[lbm_slots_down[j]][2], -1);
        int found = 0;
        for (int k = 0; k < LBM_CROSSING; k++) found |= lbm_opp[lbm_slots_up[j]] == lbm_slots_down[k];
        assert_true(found);
    }
}

static void test_nvrtc_compiles_every_slab_variant(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    /* the slab mode changes how a launch maps to rows and the z neighbours,
     * not the cells' code: every scheme, phase and boundary, the shapes of
     * a thread in every word size (each NVRTC compile takes most of a
     * second, so not every pair) */
    static const struct { int cpt; lbm_precision p; } shapes[] = {
        {1, LBM_FP64}, {2, LBM_FP32}, {LBM_ROW_PER_THREAD, LBM_FP32}, {4, LBM_FP16S}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
        for (int s = 0; s < LBM_SCHEMES; s++)
            for (int b = 0; b < LBM_BOUNDARIES; b++)
                for (int odd = 0; odd < (s == LBM_SCHEME_AA ? 2 : 1); odd++) {
                    lbm_build_options(opt, sizeof opt, (lbm_scheme)s, shapes[c].p, (lbm_boundary)b, odd,
                                      shapes[c].cpt);
                    strcat(opt, " -DLBM_SLAB=1");
                    int r = lbp_nvrtc_check(lbm_kernel_source, opt, "sm_90", why, sizeof why);
                    if (r) fprintf(stderr, "NVRTC failed for %s\n", opt);
                    assert_int_equal(r, 0);
                }
}

/* PoCL: host staging where MPI is built, never the device-direct paths,
 * each refusal one line that says why. */
static void test_exchange_paths_on_pocl(void **state)
{
    (void)state;
    lbp_device d;
    lbp_open(&d, "opencl", -1);
    char why[512];
    assert_int_equal(lbp_exchange_available(&d, LBP_EXCHANGE_NONE, why, sizeof why), 0);
    assert_int_equal(lbp_exchange_available(&d, LBP_EXCHANGE_HOST, why, sizeof why), lbp_mpi_built() ? 0 : -1);
    assert_int_equal(lbp_exchange_available(&d, LBP_EXCHANGE_PEER, why, sizeof why), -1);
    assert_non_null(strstr(why, "--exchange peer: not available"));
    assert_null(strchr(why, '\n'));
    assert_int_equal(lbp_exchange_available(&d, LBP_EXCHANGE_MPI, why, sizeof why), -1);
    assert_non_null(strstr(why, "--exchange mpi: not available"));
    assert_int_equal(d.info.caps.ipc, 0);
    lbp_close(&d);
}

static void test_rank_devices_alike(void **state)
{
    (void)state;
    lbp_rank_device all[3] = {{.backend = "cuda", .kind = "gpu", .slug = "nvidia-h100"},
                              {.backend = "cuda", .kind = "gpu", .slug = "nvidia-h200"},
                              {.backend = "cuda", .kind = "gpu", .slug = "nvidia-h100"}};
    char why[512];
    assert_int_equal(lbp_rank_devices_alike(all, 3, why, sizeof why), 0); /* two models, one kind */
    snprintf(all[2].backend, sizeof all[2].backend, "opencl");
    snprintf(all[2].kind, sizeof all[2].kind, "cpu");
    assert_int_equal(lbp_rank_devices_alike(all, 3, why, sizeof why), -1);
    assert_non_null(strstr(why, "rank 2 on a opencl cpu"));
    assert_int_equal(lbp_rank_devices_alike(all, 2, why, sizeof why), 0);
}

/* The sweep holds the halo's own messages: 5 planes of 128^2 .. 512^2. */
static void test_interconnect_sizes(void **state)
{
    (void)state;
    int64_t s[STREAM_IC_MAX_SIZES];
    int n = stream_ic_default_sizes(s, 0), halo = 0;
    for (int i = 0; i < n; i++) halo += s[i] == 5 * 256 * 256 * 4 || s[i] == 5 * 512 * 512 * 8;
    assert_int_equal(halo, 2);
    assert_true(n <= STREAM_IC_MAX_SIZES);
    int q = stream_ic_default_sizes(s, 1);
    assert_true(q < n);
}

int main(void)
{
    lbp_cli_init("test_slab");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_neighbours),
        cmocka_unit_test(test_geometry_errors),
        cmocka_unit_test(test_crossing_slots),
        cmocka_unit_test(test_nvrtc_compiles_every_slab_variant),
        cmocka_unit_test(test_exchange_paths_on_pocl),
        cmocka_unit_test(test_rank_devices_alike),
        cmocka_unit_test(test_interconnect_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
