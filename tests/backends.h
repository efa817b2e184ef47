/* The devices the tests run kernels on without a GPU: the CPU through
 * OpenCL (PoCL) and through OpenMP.  A test written once runs on each:
 *
 *   LBP_TEST_ON_CPU_BACKENDS(test_x)   two cmocka tests, "test_x on opencl"
 *                                      and "test_x on openmp"
 *   lbp_device *d = lbp_test_device(state);   in the test: the open device
 *                                      (the test is skipped where the
 *                                      backend has none)
 *
 * Each backend's device is opened once per program and closed by
 * lbp_test_close_devices (the group teardown). */
#ifndef LBP_TESTS_BACKENDS_H
#define LBP_TESTS_BACKENDS_H

#include <string.h>

#include "device.h"

#define LBP_TEST_BACKENDS 2
static const char *const lbp_test_backend_names[LBP_TEST_BACKENDS] = {"opencl", "openmp"};
static lbp_device lbp_test_devices[LBP_TEST_BACKENDS];
static int lbp_test_device_state[LBP_TEST_BACKENDS]; /* 0 untried, 1 open, -1 none */

/* Setup: the state names a backend on entry, holds its device (or NULL)
 * on exit. */
static inline int lbp_test_open_device(void **state)
{
    for (int i = 0; i < LBP_TEST_BACKENDS; i++) {
        if (strcmp(*state, lbp_test_backend_names[i]) != 0) continue;
        if (!lbp_test_device_state[i]) {
            char why[256];
            const lbp_backend *be = lbp_backend_by_name(lbp_test_backend_names[i]);
            lbp_test_device_state[i] = be && be->count(why, sizeof why) > 0 ? 1 : -1;
            if (lbp_test_device_state[i] > 0) lbp_open(&lbp_test_devices[i], lbp_test_backend_names[i], -1);
        }
        *state = lbp_test_device_state[i] > 0 ? &lbp_test_devices[i] : NULL;
        return 0;
    }
    return -1;
}

static inline int lbp_test_close_devices(void **state)
{
    (void)state;
    for (int i = 0; i < LBP_TEST_BACKENDS; i++)
        if (lbp_test_device_state[i] > 0) lbp_close(&lbp_test_devices[i]);
    memset(lbp_test_device_state, 0, sizeof lbp_test_device_state);
    return 0;
}

#define lbp_test_device(state) (*(state) ? (lbp_device *)*(state) : (skip(), (lbp_device *)NULL))

#define LBP_TEST_ON(f, backend) {#f " on " backend, f, lbp_test_open_device, NULL, (void *)(backend)}
#define LBP_TEST_ON_CPU_BACKENDS(f) LBP_TEST_ON(f, "opencl"), LBP_TEST_ON(f, "openmp")
#define LBP_TEST_ON_CPU_BACKENDS_SETUP(f, setup, teardown) \
    {#f " on opencl", f, setup, teardown, (void *)"opencl"}, {#f " on openmp", f, setup, teardown, (void *)"openmp"}

#endif
