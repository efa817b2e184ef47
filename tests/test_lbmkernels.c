/* lbmkernels/: every scheme x precision x boundary (x cells per thread)
 * against the host reference on PoCL and OpenMP, the schemes against each other, Taylor-Green decay,
 * NVRTC compiles for sm_90, a planted error caught, and the CLI's errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmp.h"
#include "backends.h"
#include "full.h"
#include "cli.h"
#include "device.h"
#include "table.h"
#include "../lbmkernels/bench.h"
#include "../lbmkernels/lbm.h"
#include "../lbmkernels/plan.h"
#include "../lbmkernels/reach.h"
#include "../lbmkernels/record.h"
#include "cpucubes.h"
#include "../lbmkernels/verify.h"
#include "../core/kernel.h"

static const lbm_scheme all_schemes[] = {LBM_SCHEME_PUSH, LBM_SCHEME_PULL, LBM_SCHEME_SPLIT, LBM_SCHEME_AA};

/* Rows padded to 128 bytes. */
static int padding_128(lbm_precision p) { return 128 / lbm_word_bytes(p); }

static lbm_verify_opts small_case(lbm_precision p, lbm_boundary b)
{
    /* Non-cubic, nx not a multiple of the padding: catches index bugs. */
    return (lbm_verify_opts){.nx = 12, .ny = 14, .nz = 16, .padding = padding_128(p), .steps = 20,
                             .block_size = 64, .cells_per_thread = 1, .precision = p, .boundary = b, .schemes = all_schemes,
                             .nschemes = 4, .tau = 0.6, .u0 = 0.05, .noise = 0.01, .lid_u = 0.05,
                             .tg_u0 = 0.01};
}

/* Every precision the device runs (fp64 needs doubles). */
static int runs(const lbp_device *d, int p) { return p != LBM_FP64 || d->info.fp64; }

static void verify_case(void **state, lbm_precision p, lbm_boundary b)
{
    lbp_device *d = lbp_test_device(state);
    if (!runs(d, p)) skip();
    lbm_verify_opts o = small_case(p, b);
    assert_int_equal(lbm_verify_schemes(d, &o), 0);
}

static void test_fp32_periodic(void **state) { verify_case(state, LBM_FP32, LBM_PERIODIC); }
static void test_fp32_cavity(void **state) { verify_case(state, LBM_FP32, LBM_CAVITY_BOX); }
static void test_fp64_periodic(void **state) { verify_case(state, LBM_FP64, LBM_PERIODIC); }
static void test_fp64_cavity(void **state) { verify_case(state, LBM_FP64, LBM_CAVITY_BOX); }
static void test_fp16s_periodic(void **state) { verify_case(state, LBM_FP16S, LBM_PERIODIC); }
static void test_fp16s_cavity(void **state) { verify_case(state, LBM_FP16S, LBM_CAVITY_BOX); }

/* No padding and padding to 7 words: the padded layout is not assumed. */
static void test_odd_padding(void **state)
{
    lbp_device *d = lbp_test_device(state);
    lbm_verify_opts o = small_case(LBM_FP32, LBM_CAVITY_BOX);
    o.padding = 1;
    o.nx = 13;
    assert_int_equal(lbm_verify_schemes(d, &o), 0);
    o.padding = 7;
    o.boundary = LBM_PERIODIC;
    assert_int_equal(lbm_verify_schemes(d, &o), 0);
}

static void test_taylor_green(void **state)
{
    lbp_device *d = lbp_test_device(state);
    for (int p = 0; p < LBM_PRECISIONS; p++) {
        if (!runs(d, p)) continue;
        lbm_verify_opts o = small_case(p, LBM_PERIODIC);
        assert_int_equal(lbm_verify_taylor_green(d, &o), 0);
    }
}

static void test_planted_error_is_caught(void **state)
{
    lbp_device *d = lbp_test_device(state);
    for (int p = 0; p < LBM_PRECISIONS; p++)
        for (int b = 0; b < LBM_BOUNDARIES && runs(d, p); b++) {
            lbm_verify_opts o = small_case(p, (lbm_boundary)b);
            o.plant_error = 1;
            assert_int_equal(lbm_verify_schemes(d, &o), 1);
        }
    for (int p = LBM_FP32; p <= LBM_FP16S; p += LBM_FP16S - LBM_FP32) {
        lbm_verify_opts o = small_case(p, LBM_PERIODIC);
        o.nschemes = 1;
        o.plant_error = 1;
        assert_int_equal(lbm_verify_taylor_green(d, &o), 1);
    }
}

/* 2 and 4 cells per thread, every scheme x precision x boundary: nx from 13
 * to 20 (rows whose last vector of cells is partial), rows padded to the
 * least they can be (the cells per thread), to an odd multiple of it and to
 * the default, block sizes that are and are not multiples of the cells a
 * block covers. */
static void test_cells_per_thread(void **state)
{
    lbp_device *d = lbp_test_device(state);
    static const int cpts[] = {2, 4};
    int nx = 13, run = 0;
    for (size_t c = 0; c < sizeof cpts / sizeof cpts[0]; c++)
        for (int p = 0; p < LBM_PRECISIONS; p++)
            for (int b = 0; b < LBM_BOUNDARIES && runs(d, p); b++, run++) {
                /* make test: two cells in FP32 in the cavity, four in FP16S
                 * in the periodic box (each a new set of kernels to compile) */
                if (!lbp_test_full() && !(c == 0 ? p == LBM_FP32 && b == LBM_CAVITY_BOX
                                                 : p == LBM_FP16S && b == LBM_PERIODIC))
                    continue;
                lbm_verify_opts o = small_case(p, (lbm_boundary)b);
                const int paddings[] = {cpts[c], 3 * cpts[c], padding_128(p)};
                o.cells_per_thread = cpts[c];
                o.nx = nx;
                o.ny = 7;
                o.nz = 6;
                o.steps = 10;
                o.padding = paddings[run % 3];
                o.block_size = run % 2 ? 96 : 64;
                nx = nx == 20 ? 13 : nx + 1;
                int r = lbm_verify_schemes(d, &o);
                if (r) fprintf(stderr, "%d cells per thread, %s, %s, nx %d, padding %d: FAILED\n", cpts[c],
                               lbm_precision_names[p], lbm_boundary_names[b], o.nx, o.padding);
                assert_int_equal(r, 0);
            }
    /* and the Taylor-Green decay with two and four cells per thread */
    for (int p = lbp_test_full() ? LBM_FP32 : LBM_FP16S; p <= LBM_FP16S; p += LBM_FP16S - LBM_FP32) {
        lbm_verify_opts o = small_case(p, LBM_PERIODIC);
        o.cells_per_thread = p == LBM_FP16S ? 4 : 2;
        assert_int_equal(lbm_verify_taylor_green(d, &o), 0);
    }
    /* a planted error with two cells per thread is caught too */
    lbm_verify_opts o = small_case(LBM_FP32, LBM_CAVITY_BOX);
    o.cells_per_thread = 2;
    o.nx = 19;
    o.plant_error = 1;
    assert_int_equal(lbm_verify_schemes(d, &o), 1);
}

/* A row per thread (the CPU's shape), every scheme x precision x boundary:
 * rows of 1, 2 and 3 cells (no inner cell, or one) and longer ones, padded
 * or not, block sizes that do and do not divide the rows; the Taylor-Green
 * decay; a planted error caught. */
static void test_row_per_thread(void **state)
{
    lbp_device *d = lbp_test_device(state);
    static const int nxs[] = {1, 2, 3, 13, 17};
    int run = 0;
    for (size_t i = 0; i < sizeof nxs / sizeof nxs[0]; i++)
        for (int p = 0; p < LBM_PRECISIONS; p++)
            for (int b = 0; b < LBM_BOUNDARIES && runs(d, p) && (p != LBM_FP16S || i % 2); b++, run++) {
                /* (fp16s: rows of 2 and 13 cells, enough for its loads and stores;
                 * make test: FP32 in the cavity, every row length) */
                if (!lbp_test_full() && (p != LBM_FP32 || b != LBM_CAVITY_BOX)) continue;
                lbm_verify_opts o = small_case(p, (lbm_boundary)b);
                o.cells_per_thread = LBM_ROW_PER_THREAD;
                o.nx = nxs[i];
                o.ny = 7;
                o.nz = 6;
                o.steps = 10;
                o.padding = run % 2 ? 1 : padding_128(p);
                o.block_size = run % 3 ? 5 : 64;
                int r = lbm_verify_schemes(d, &o);
                if (r) fprintf(stderr, "row per thread, %s, %s, nx %d, padding %d: FAILED\n",
                               lbm_precision_names[p], lbm_boundary_names[b], o.nx, o.padding);
                assert_int_equal(r, 0);
            }
    lbm_verify_opts o = small_case(LBM_FP32, LBM_PERIODIC);
    o.cells_per_thread = LBM_ROW_PER_THREAD;
    if (lbp_test_full()) assert_int_equal(lbm_verify_taylor_green(d, &o), 0);
    o = small_case(LBM_FP32, LBM_CAVITY_BOX);
    o.cells_per_thread = LBM_ROW_PER_THREAD;
    o.plant_error = 1;
    assert_int_equal(lbm_verify_schemes(d, &o), 1);
}

/* Non-temporal stores (pull and split, a row per thread, the periodic box):
 * rows shorter than the kernel's chunk of 128 cells, of several chunks and
 * a partial last one, padded or not; a planted error caught; the kernels
 * whose stores move in x are refused (exit 1). */
static lbp_device *nt_device;
static void build_push_nt(void)
{
    lbm_kernels k;
    lbm_kernels_build_stores(&k, nt_device, LBM_SCHEME_PUSH, LBM_FP32, LBM_PERIODIC, LBM_ROW_PER_THREAD, 1);
}

static void test_nontemporal_stores(void **state)
{
    lbp_device *d = lbp_test_device(state);
    static const lbm_scheme nt_schemes[] = {LBM_SCHEME_PULL, LBM_SCHEME_SPLIT};
    static const int nxs[] = {1, 2, 17, 128, 130, 300};
    int run = 0;
    for (size_t i = 0; i < sizeof nxs / sizeof nxs[0]; i++)
        for (int p = LBM_FP32; p <= LBM_FP64; p++, run++) {
            if (!runs(d, p)) continue;
            /* make test: FP32, rows shorter than a chunk and of a partial one */
            if (!lbp_test_full() && (p != LBM_FP32 || (nxs[i] != 2 && nxs[i] != 130))) continue;
            lbm_verify_opts o = small_case((lbm_precision)p, LBM_PERIODIC);
            o.schemes = nt_schemes;
            o.nschemes = 2;
            o.cells_per_thread = LBM_ROW_PER_THREAD;
            o.nontemporal = 1;
            o.nx = nxs[i];
            o.ny = 5;
            o.nz = 4;
            o.steps = 6;
            o.padding = run % 2 ? 1 : (p == LBM_FP64 ? 8 : 16);
            o.block_size = run % 3 ? 3 : 64;
            int r = lbm_verify_schemes(d, &o);
            if (r) fprintf(stderr, "non-temporal, %s, nx %d, padding %d: FAILED\n", lbm_precision_names[p], o.nx,
                           o.padding);
            assert_int_equal(r, 0);
        }
    lbm_verify_opts o = small_case(LBM_FP32, LBM_PERIODIC);
    o.schemes = nt_schemes;
    o.nschemes = 2;
    o.cells_per_thread = LBM_ROW_PER_THREAD;
    o.nontemporal = 1;
    assert_int_equal(lbm_verify_taylor_green(d, &o), 0);
    o.plant_error = 1;
    assert_int_equal(lbm_verify_schemes(d, &o), 1);
    assert_true(lbm_nontemporal_ok(LBM_SCHEME_SPLIT, LBM_FP64, LBM_PERIODIC, LBM_ROW_PER_THREAD));
    assert_false(lbm_nontemporal_ok(LBM_SCHEME_PUSH, LBM_FP32, LBM_PERIODIC, LBM_ROW_PER_THREAD) ||
                 lbm_nontemporal_ok(LBM_SCHEME_AA, LBM_FP32, LBM_PERIODIC, LBM_ROW_PER_THREAD) ||
                 lbm_nontemporal_ok(LBM_SCHEME_PULL, LBM_FP32, LBM_CAVITY_BOX, LBM_ROW_PER_THREAD) ||
                 lbm_nontemporal_ok(LBM_SCHEME_PULL, LBM_FP32, LBM_PERIODIC, 2) ||
                 lbm_nontemporal_ok(LBM_SCHEME_PULL, LBM_FP16S, LBM_PERIODIC, LBM_ROW_PER_THREAD));
    nt_device = d;
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        freopen("/dev/null", "w", stderr);
        build_push_nt();
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
}

/* On a CPU whose backend stores non-temporally, pull and split get a group
 * of each (a row per thread only); where the cells per thread asked for
 * have no row, or the device no such stores, none; small lattices run in
 * groups of no more rows than a core's share. */
static void test_plan_nontemporal_groups(void **state)
{
    (void)state;
    lbp_device d = {.info = {.kind = LBP_KIND_CPU, .compute_units = 16, .fp64 = 1, .max_block_size = 4096,
                             .global_mem_bytes = 64LL << 30, .max_alloc_bytes = 64LL << 30,
                             .caps = {.usable_bytes = 64LL << 30, .nontemporal_stores = 1}}};
    lbm_options o = {.quick = 1, .nschemes = 4, .schemes = {0, 1, 2, 3}, .nprecisions = 2, .precisions = {0, 1}};
    lbm_plan p;
    lbm_plan_build(&p, &o, &d);
    assert_int_equal(p.ngroups, 12); /* per precision push, pull, pull-nt, split, split-nt, aa */
    int nt = 0;
    for (int g = 0; g < p.ngroups; g++) {
        if (!p.groups[g].nontemporal) continue;
        nt++;
        assert_true(p.groups[g].scheme == LBM_SCHEME_PULL || p.groups[g].scheme == LBM_SCHEME_SPLIT);
        assert_int_equal(p.groups[g].ncpt, 1);
        assert_int_equal(p.groups[g].cpts[0], LBM_ROW_PER_THREAD);
    }
    assert_int_equal(nt, 4);
    lbm_plan_free(&p);
    o.ncpt = 1;
    o.cells_per_thread[0] = 1; /* a cell per thread: no non-temporal kernel */
    lbm_plan_build(&p, &o, &d);
    assert_int_equal(p.ngroups, 8);
    lbm_plan_free(&p);
    o.ncpt = 0;
    d.info.caps.nontemporal_stores = 0;
    lbm_plan_build(&p, &o, &d);
    assert_int_equal(p.ngroups, 8);
    lbm_plan_free(&p);
    int stores[2];
    assert_int_equal(lbm_plan_stores(&o, &d, stores), 1);
    /* 32^3: 1024 rows, 64 a core on 16 cores */
    lbm_layout L = lbm_layout_make(32, 32, 32, 8, 4, LBP_CPU_SKEW);
    assert_int_equal(lbm_plan_block_for(&d, LBM_ROW_PER_THREAD, &L, 256), 64);
    assert_int_equal(lbm_plan_block_for(&d, LBM_ROW_PER_THREAD, &L, 16), 16);
    assert_int_equal(lbm_plan_block_for(&d, 1, &L, 256), 256);
    d.info.kind = LBP_KIND_GPU;
    assert_int_equal(lbm_plan_block_for(&d, LBM_ROW_PER_THREAD, &L, 256), 256);
}

/* A CPU's default plan: per group a block sweep of 2 group sizes
 * at the sweep cube and the lattices of cpucubes.h (the cells membench's
 * threads sweep probes there), in 2 passes (QUICK 1): 16 groups (push,
 * pull, pull-nt, split, split-nt, aa in fp32 and fp64; push, pull, split,
 * aa in fp16s). */
static void test_plan_cpu_length(void **state)
{
    (void)state;
    lbp_device d = {.info = {.kind = LBP_KIND_CPU, .compute_units = 16, .fp64 = 1, .max_block_size = 4096,
                             .global_mem_bytes = 64LL << 30, .max_alloc_bytes = 64LL << 30,
                             .caps = {.usable_bytes = 64LL << 30, .nontemporal_stores = 1}}};
    static const int cubes[] = LBP_CPU_CUBES, quick_cubes[] = LBP_CPU_CUBES_QUICK;
    for (int quick = 0; quick <= 1; quick++) {
        lbm_options o = {.quick = quick, .nschemes = 4, .schemes = {0, 1, 2, 3}, .nprecisions = 3,
                         .precisions = {0, 1, 2}};
        lbm_plan p;
        lbm_plan_build(&p, &o, &d);
        const int *list = quick ? quick_cubes : cubes, n = quick ? LBP_CPU_N_CUBES_QUICK : LBP_CPU_N_CUBES;
        const int blocks = 2;
        assert_int_equal(p.passes, quick ? 1 : 2);
        int fp16_nt = 0;
        for (int g = 0; g < p.ngroups; g++) {
            const lbm_group *gr = &p.groups[g];
            fp16_nt += gr->prec == LBM_FP16S && gr->nontemporal;
            assert_int_equal(gr->n, blocks + n);
            for (int i = 0; i < blocks; i++) assert_int_equal(p.entries[gr->first + i].sweep, LBM_SWEEP_BLOCK);
            for (int i = 0; i < n; i++) {
                const lbm_entry *e = &p.entries[gr->first + blocks + i];
                assert_int_equal(e->sweep, LBM_SWEEP_SIZE);
                assert_int_equal(e->size.nx, list[i]);
                assert_int_equal(e->size.nz, list[i]);
            }
        }
        /* push, pull, pull-nt, split, split-nt, aa in fp32 and fp64; fp16s without nt */
        assert_int_equal(p.ngroups, 16);
        assert_int_equal(fp16_nt, 0);
        lbm_plan_free(&p);
    }
}

/* The timed runs' reach (reach.h) that --verify and timing's own check
 * run at: the longest row timed and every block launched, as the size
 * sweep shrinks a CPU row kernel's blocks (16 cores: 32^3's 1024 rows, 64
 * a core); the check's lattice has rows a cell longer (--verify) and more
 * threads than the largest block. */
static void test_reach_of_plans(void **state)
{
    (void)state;
    lbp_device d = {.info = {.kind = LBP_KIND_CPU, .compute_units = 16, .fp64 = 1, .max_block_size = 4096,
                             .global_mem_bytes = 64LL << 30, .max_alloc_bytes = 64LL << 30,
                             .caps = {.usable_bytes = 64LL << 30}}};
    lbm_options o = {.nschemes = 1, .schemes = {LBM_SCHEME_PULL}, .nprecisions = 1, .precisions = {LBM_FP32}};
    lbm_reach r = {0};
    lbm_reach_of_timing(&r, &o, &d, LBM_FP32, LBM_ROW_PER_THREAD, 0);
    assert_int_equal(r.nx, 256);
    assert_int_equal(r.nblocks, 2);
    assert_int_equal(r.blocks[0], 64);
    assert_int_equal(r.blocks[1], 256);
    lbm_verify_lattice at = lbm_reach_check(&r, r.nx + 1, &d, LBM_FP32, LBM_ROW_PER_THREAD, 8);
    assert_int_equal(at.nx, 257);
    assert_int_equal(at.nz, LBM_REACH_NZ);
    assert_true(at.ny * at.nz > 256); /* rows: a thread each */
    assert_int_equal(at.steps % 2, 0);
    /* --quick: 16 and 64 rows a block, 256 the longest row */
    o.quick = 1;
    r = (lbm_reach){0};
    lbm_reach_of_timing(&r, &o, &d, LBM_FP32, LBM_ROW_PER_THREAD, 0);
    assert_int_equal(r.nx, 256);
    assert_int_equal(r.nblocks, 2);
    assert_int_equal(r.blocks[0], 16);
    assert_int_equal(r.blocks[1], 64);
    /* --block-size and --sizes: those alone */
    o = (lbm_options){.nschemes = 1, .schemes = {LBM_SCHEME_AA}, .nprecisions = 1, .precisions = {LBM_FP32},
                      .block_size = 128, .nsizes = 2, .sizes = {{48, 48, 48}, {300, 20, 10}}};
    lbm_plan p;
    lbm_plan_build(&p, &o, &d);
    r = (lbm_reach){0};
    lbm_reach_add(&r, &p, &o, &d, &p.groups[0], 0, lbm_plan_cubes(&p, &o, &d, &p.groups[0]));
    assert_int_equal(r.nx, 300);
    assert_int_equal(r.nblocks, 2); /* 128, and 300x20x10's 200 rows on 16 cores: 13 */
    assert_int_equal(r.blocks[0], 13);
    assert_int_equal(r.blocks[1], 128);
    lbm_plan_free(&p);
    /* a GPU: every block of the sweep, rows past 768, threads past 1024 */
    d.info.kind = LBP_KIND_GPU;
    o = (lbm_options){.nschemes = 1, .schemes = {LBM_SCHEME_PULL}, .nprecisions = 1, .precisions = {LBM_FP32}};
    r = (lbm_reach){0};
    lbm_reach_of_timing(&r, &o, &d, LBM_FP32, 1, 0);
    assert_true(r.nx >= 768);
    assert_int_equal(r.nblocks, 8);
    assert_int_equal(r.blocks[7], 1024);
    at = lbm_reach_check(&r, r.nx + 1, &d, LBM_FP32, 1, 1);
    assert_true((int64_t)at.nx * at.ny * at.nz > 1024);
}

/* Threads of the step launch: nxp / cells per thread per row. */
static void test_step_threads(void **state)
{
    (void)state;
    lbm_layout L = lbm_layout_make(13, 7, 6, 32, 4, LBP_CPU_SKEW); /* nxp 32 */
    assert_int_equal(L.nxp, 32);
    assert_int_equal(lbm_step_threads(&L, 1), L.cells_padded);
    assert_int_equal(lbm_step_threads(&L, 2), 16 * 7 * 6);
    assert_int_equal(lbm_step_threads(&L, 4), 8 * 7 * 6);
    L = lbm_layout_make(13, 7, 6, 2, 4, LBP_CPU_SKEW); /* nxp 14 */
    assert_int_equal(lbm_step_threads(&L, 2), 7 * 7 * 6);
    assert_true(lbm_cells_per_thread_ok(1) && lbm_cells_per_thread_ok(2) && lbm_cells_per_thread_ok(4));
    assert_false(lbm_cells_per_thread_ok(3) || lbm_cells_per_thread_ok(-1) || lbm_cells_per_thread_ok(8));
    assert_true(lbm_cells_per_thread_ok(LBM_ROW_PER_THREAD));
    assert_int_equal(lbm_step_threads(&L, LBM_ROW_PER_THREAD), 7 * 6);
    char opt[256];
    lbm_build_options(opt, sizeof opt, LBM_SCHEME_PULL, 0, LBM_PERIODIC, 0, 1);
    assert_null(strstr(opt, "CELLS_PER_THREAD")); /* one cell: the kernel's default, unchanged build */
    lbm_build_options(opt, sizeof opt, LBM_SCHEME_PULL, 0, LBM_PERIODIC, 0, 2);
    assert_non_null(strstr(opt, "-DCELLS_PER_THREAD=2"));
    lbm_build_options(opt, sizeof opt, LBM_SCHEME_AA, 1, LBM_CAVITY_BOX, 1, LBM_ROW_PER_THREAD);
    assert_non_null(strstr(opt, "-DLBM_ROW=1"));
    assert_null(strstr(opt, "CELLS_PER_THREAD"));
}

/* The arrays of the 19 populations: on a CPU at least cells_padded apart,
 * skewed against 4 KiB pages so that no two start on the same 128-byte
 * slot of a page, by less than a page of waste; on a GPU cells_padded. */
static void test_population_stride(void **state)
{
    (void)state;
    const int sizes[][2] = {{128, 8}, {128, 4}, {64, 4}, {5, 8}, {200, 4}, {230, 8}};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        int n = sizes[t][0], w = sizes[t][1];
        lbm_layout L = lbm_layout_make(n, n, n, 32 / w, w, 0); /* a GPU: no skew */
        assert_int_equal(L.stride, L.cells_padded);
        L = lbm_layout_make(n, n, n, 32 / w, w, LBP_CPU_SKEW);
        assert_true(L.stride >= L.cells_padded);
        assert_true((L.stride - L.cells_padded) * w < 4096 + LBP_CPU_SKEW);
        assert_int_equal(L.stride * w % 4096, LBP_CPU_SKEW);
        int slot_used[32] = {0};
        for (int i = 0; i < LBM_Q; i++) {
            int slot = (int)(i * L.stride * w % 4096 / 128);
            assert_int_equal(slot_used[slot], 0);
            slot_used[slot] = 1;
        }
    }
}

/* The split state's pending x shift and the pull state's collision are
 * undone exactly by the host conversions. */
static void test_scheme_conversions_round_trip(void **state)
{
    (void)state;
    lbm_layout L = lbm_layout_make(5, 4, 3, 8, 8, LBP_CPU_SKEW);
    size_t n = (size_t)lbm_words(&L);
    double *f = calloc(n, sizeof *f), *s = calloc(n, sizeof *s), *g = calloc(n, sizeof *g);
    lbm_init_state(&L, f, 0.05, 0.01, 7u);
    for (int b = 0; b < LBM_BOUNDARIES; b++) {
        lbm_to_scheme(&L, LBM_SCHEME_SPLIT, (lbm_boundary)b, 1.0, f, s);
        lbm_from_scheme(&L, LBM_SCHEME_SPLIT, (lbm_boundary)b, s, g);
        for (size_t k = 0; k < n; k++) assert_true(f[k] == g[k]);
        assert_true(lbm_mass(&L, s) - lbm_mass(&L, f) < 1e-12);
    }
    free(f); free(s); free(g);
}

static void test_nvrtc_compiles_every_variant(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    static const int cpts[] = {1, 2, 4, LBM_ROW_PER_THREAD};
    int variant = 0;
    for (size_t c = 0; c < sizeof cpts / sizeof cpts[0]; c++)
        for (int s = 0; s < LBM_SCHEMES; s++)
            for (int p = 0; p < LBM_PRECISIONS; p++)
                for (int b = 0; b < LBM_BOUNDARIES; b++)
                    for (int odd = 0; odd < (s == LBM_SCHEME_AA ? 2 : 1); odd++, variant++) {
                        /* make test: every scheme x precision x boundary once,
                         * its cells per thread taken in turn */
                        if (!lbp_test_full() && variant % 4 != (int)c) continue;
                        lbm_build_options(opt, sizeof opt, (lbm_scheme)s, p, (lbm_boundary)b, odd, cpts[c]);
                        int r = lbp_nvrtc_check(lbm_kernel_source, opt, "sm_90", why, sizeof why);
                        if (r) fprintf(stderr, "NVRTC failed for %s\n", opt);
                        assert_int_equal(r, 0);
                    }
    /* the kernel refuses a cells-per-thread it has no code for */
    assert_int_equal(lbp_nvrtc_check(lbm_kernel_source, "-DLBM_PULL=1 -DCELLS_PER_THREAD=3", "sm_90", why, sizeof why), 1);
    assert_int_equal(lbp_nvrtc_check(lbm_kernel_source, "-DLBM_PULL=1 -DLBM_ROW=1 -DCELLS_PER_THREAD=2", "sm_90", why,
                                     sizeof why), 1);
    for (int p = 0; p < LBM_PRECISIONS; p++) {
        char o2[128];
        snprintf(o2, sizeof o2, "-DLBM_INIT=1%s", lbm_precision_options(p));
        assert_int_equal(lbp_nvrtc_check(lbm_kernel_source, o2, "sm_90", why, sizeof why), 0);
        snprintf(o2, sizeof o2, "-DLBM_MASS=1%s", lbm_precision_options(p));
        assert_int_equal(lbp_nvrtc_check(lbm_kernel_source, o2, "sm_90", why, sizeof why), 0);
        snprintf(o2, sizeof o2, "-DLBM_MASS=1%s -DLBP_FP64=1 -DLBM_ACC_DOUBLE=1", lbm_precision_options(p));
        assert_int_equal(lbp_nvrtc_check(lbm_kernel_source, o2, "sm_90", why, sizeof why), 0);
    }
}


/* Floating-point arithmetic instructions (FMA once) in PTX text. */
static int ptx_fp_ops(const char *ptx)
{
    static const char *const ops[] = {"add", "sub", "mul", "fma", "div", "rcp", "neg", "sqrt"};
    int n = 0;
    for (const char *line = ptx; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        while (*line == ' ' || *line == '\t') line++;
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char insn[64];
        size_t k = 0;
        while (k < len && k < sizeof insn - 1 && line[k] != ' ' && line[k] != '\t') { insn[k] = line[k]; k++; }
        insn[k] = 0;
        if (!strstr(insn, ".f32") && !strstr(insn, ".f64")) continue;
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (!strncmp(insn, ops[i], strlen(ops[i])) && insn[strlen(ops[i])] == '.') { n++; break; }
    }
    return n;
}

/* The model's operation count of the collision (D3Q19_BGK_OPS) is what the
 * kernels compile to: every scheme and precision, one cell per thread,
 * periodic box, within 5 %. */
static void test_collision_ops_match_the_model(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    for (int s = 0; s < LBM_SCHEMES; s++)
        for (int p = 0; p < LBM_PRECISIONS; p++) {
            lbm_build_options(opt, sizeof opt, (lbm_scheme)s, p, LBM_PERIODIC, s == LBM_SCHEME_AA, 1);
            char *ptx = lbp_nvrtc_ptx(lbm_kernel_source, opt, "compute_90", why, sizeof why);
            assert_non_null(ptx);
            int n = ptx_fp_ops(ptx);
            free(ptx);
            if (abs(n - D3Q19_BGK_OPS) > D3Q19_BGK_OPS / 20) fprintf(stderr, "%s: %d floating-point operations\n", opt, n);
            assert_true(abs(n - D3Q19_BGK_OPS) <= D3Q19_BGK_OPS / 20);
        }
    /* the counter counts: an empty kernel has none, one multiply-add one */
    char *ptx = lbp_nvrtc_ptx("KERNEL void k(GLOBAL float *x) { x[0] = x[1] * x[2] + x[3]; }\n", "", "compute_90", why,
                              sizeof why);
    assert_non_null(ptx);
    assert_int_equal(ptx_fp_ops(ptx), 1);
    free(ptx);
}

/* CUDA's register caps are in the PTX: split at two float cells per thread
 * held to 80 (two blocks of 384 per SM), A-A there to 512 threads, A-A
 * at four half cells to 256 (its registers then fit without spilling);
 * split at one or four cells, in FP64, and pull at two, not. */
static void test_register_caps(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    static const struct {
        lbm_scheme s;
        lbm_precision p;
        int cpt;
        const char *directive; /* NULL: none of the two */
    } cases[] = {
        {LBM_SCHEME_SPLIT, 0, 2, ".maxnreg 80"}, {LBM_SCHEME_AA, 0, 2, ".maxntid 512"},
        {LBM_SCHEME_AA, LBM_FP16S, 4, ".maxntid 256"}, {LBM_SCHEME_AA, LBM_FP16S, 2, ".maxntid 512"},
        {LBM_SCHEME_SPLIT, 0, 1, NULL},          {LBM_SCHEME_SPLIT, 0, 4, NULL},
        {LBM_SCHEME_SPLIT, 1, 2, NULL},          {LBM_SCHEME_PULL, 0, 2, NULL},
        /* fp16s at two cells: pull and split held to 64 (two blocks of 512 an
         * SM); push reaches 64 by itself, its exchanged cell read back */
        {LBM_SCHEME_PULL, LBM_FP16S, 2, ".maxnreg 64"}, {LBM_SCHEME_SPLIT, LBM_FP16S, 2, ".maxnreg 64"},
        {LBM_SCHEME_PUSH, LBM_FP16S, 2, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lbm_build_options(opt, sizeof opt, cases[i].s, cases[i].p, LBM_PERIODIC, 0, cases[i].cpt);
        char *ptx = lbp_nvrtc_ptx(lbm_kernel_source, opt, "compute_90", why, sizeof why);
        assert_non_null(ptx);
        if (cases[i].directive) {
            assert_non_null(strstr(ptx, cases[i].directive));
        } else {
            assert_null(strstr(ptx, ".maxnreg"));
            assert_null(strstr(ptx, ".maxntid"));
        }
        free(ptx);
    }
}

/* fp16s moves halves: one cell per thread 2-byte accesses, two cells 4-byte
 * vectors, four 8-byte vectors (the accesses that keep x; pull's stores
 * all do), converted by cvt; nothing moves as a float. */
static void test_half_access_widths(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    static const struct {
        int cpt;
        const char *load, *store;
    } cases[] = {{1, "ld.global.nc.u16", "st.global.u16"},
                 {2, "ld.global.nc.u32", "st.global.u32"},
                 {4, "ld.global.nc.v2.u32", "st.global.v2.u32"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lbm_build_options(opt, sizeof opt, LBM_SCHEME_PULL, LBM_FP16S, LBM_PERIODIC, 0, cases[i].cpt);
        char *ptx = lbp_nvrtc_ptx(lbm_kernel_source, opt, "compute_90", why, sizeof why);
        assert_non_null(ptx);
        assert_non_null(strstr(ptx, cases[i].load));
        assert_non_null(strstr(ptx, cases[i].store));
        assert_non_null(strstr(ptx, "cvt.f32.f16"));
        assert_non_null(strstr(ptx, cases[i].cpt > 1 ? "cvt.rn.f16x2.f32" : "cvt.rn.f16.f32"));
        assert_null(strstr(ptx, "ld.global.nc.f32"));
        assert_null(strstr(ptx, "st.global.f32"));
        if (cases[i].cpt == 1) assert_null(strstr(ptx, "st.global.u32"));
        free(ptx);
    }
}

/* How many times needle occurs in text, followed by a blank (so that
 * "st.global.u32" does not count "st.global.u32x"). */
static int occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        if (p[strlen(needle)] == ' ' || p[strlen(needle)] == '\t') n++;
    return n;
}

/* fp16s push at 2 and 4 cells per thread stores every array as one
 * aligned vector, the shifted ones too (the neighbour's cell handed over
 * through shared memory): 19 vector stores (the cell-by-cell ones left are
 * the row ends' and block edges'), 10 halves exchanged; A-A's odd step
 * keeps its shifted stores cell by cell. */
static void test_half_shifted_stores_are_vectors(void **state)
{
    (void)state;
    char why[256], opt[256];
    if (lbp_nvrtc_check("KERNEL void k() {}\n", "", "sm_90", why, sizeof why) < 0) skip();
    static const struct {
        int cpt;
        const char *store;
    } cases[] = {{2, "st.global.u32"}, {4, "st.global.v2.u32"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int s = 0; s < 2; s++) {
            lbm_build_options(opt, sizeof opt, s ? LBM_SCHEME_AA : LBM_SCHEME_PUSH, LBM_FP16S, LBM_PERIODIC, s,
                              cases[i].cpt);
            char *ptx = lbp_nvrtc_ptx(lbm_kernel_source, opt, "compute_90", why, sizeof why);
            assert_non_null(ptx);
            /* push: all 19 as vectors, the 10 shifted through the exchange (each
             * thread's cell read by its neighbour, and by itself where the
             * neighbour does not store it); A-A's odd step: its 9 aligned as
             * vectors, the 10 shifted cell by cell (no exchange: it spills) */
            assert_int_equal(occurrences(ptx, cases[i].store), s ? 9 : 19);
            assert_int_equal(occurrences(ptx, "st.shared.u16"), s ? 0 : 10);
            assert_int_equal(occurrences(ptx, "ld.shared.u16"), s ? 0 : 20);
            free(ptx);
        }
}

/* Run the tool; returns its exit status, stderr's line count in *lines. */
static int run_tool(const char *args, int *lines, char *err, size_t err_len)
{
    char cmd[1600];
    const char *errfile = lbp_test_tmp("lbmkernels.err");
    snprintf(cmd, sizeof cmd, "./lbmkernels/lbmkernels %s 2>%s >/dev/null", args, errfile);
    int st = system(cmd);
    FILE *f = fopen(errfile, "r");
    *lines = 0;
    err[0] = 0;
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            if (*lines == 0) snprintf(err, err_len, "%s", line);
            (*lines)++;
        }
        fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {"--bogus", "--sizes 0", "--sizes -16", "--sizes 16x0x4",
                                      "--schemes push,foo", "--precisions fp16", "--boundary wall",
                                      "--steps 3", "--block-size 0", "extra", "--padding 0",
                                      "--boundary cavity", "--cells-per-thread 3", "--cells-per-thread 0",
                                      "--cells-per-thread 1,x", "--passes 0", "--passes 11", "--stores fast",
                                      "--backend opencl --stores nontemporal"};
    char err[1024];
    int lines;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_tool(bad[i], &lines, err, sizeof err);
        if (rc != 2 || lines != 1) fprintf(stderr, "'%s': exit %d, %d lines: %s", bad[i], rc, lines, err);
        assert_int_equal(rc, 2);
        /* getopt names an unknown option itself, then the tool's hint */
        assert_true(lines == 1 || (i == 0 && lines == 2));
    }
    /* A lattice larger than the device: refused, naming size and memory. */
    char args[700];
    snprintf(args, sizeof args, "--sizes 1250 --schemes push --precisions fp32 --out %s --force", lbp_test_tmp("out"));
    assert_int_equal(run_tool(args, &lines, err, sizeof err), 2);
    assert_non_null(strstr(err, "1250"));
    assert_non_null(strstr(err, "GB"));
    /* --verify exits 1 on a planted error, 0 otherwise. */
    assert_int_equal(run_tool("--verify --schemes aa --precisions fp32 --boundary cavity --sizes 9x7x6 --plant-error",
                              &lines, err, sizeof err), 1);
    assert_non_null(strstr(err, "caught (planted error)"));
    assert_int_equal(run_tool("--verify --schemes split,aa --precisions fp32 --boundary cavity --sizes 9x7x6",
                              &lines, err, sizeof err), 0);
    assert_int_equal(run_tool("--verify --schemes pull --precisions fp32 --boundary periodic --sizes 19x5x4 "
                              "--cells-per-thread 2 --plant-error", &lines, err, sizeof err), 1);
}

/* Two passes keep each configuration's faster one and say how far apart
 * they were; one pass writes 0. */
static void test_passes_keep_the_faster(void **state)
{
    (void)state;
    lbm_result kept = {.block_size = 64, .ms = {.min = 9, .median = 10, .max = 11}, .ms_median_slowest = 10},
               faster = {.block_size = 64, .ms = {.min = 7.5, .median = 8, .max = 9}, .ms_median_slowest = 8},
               slower = {.block_size = 64, .ms = {.min = 11, .median = 12, .max = 13}, .ms_median_slowest = 12};
    assert_float_equal(lbm_pass_spread_pct(&kept), 0, 1e-12);
    lbm_keep_faster(&kept, &faster);
    assert_float_equal(kept.ms.median, 8, 1e-12);
    assert_float_equal(kept.ms.min, 7.5, 1e-12);
    assert_float_equal(lbm_pass_spread_pct(&kept), 25, 1e-9); /* 10 / 8 */
    lbm_keep_faster(&kept, &slower);
    assert_float_equal(kept.ms.median, 8, 1e-12);
    assert_float_equal(lbm_pass_spread_pct(&kept), 50, 1e-9); /* 12 / 8 */

    /* the tool on the default backend: one row per configuration whatever
     * the passes, each with its spread (>= 0; 0 with one pass); normal
     * stores only (a CPU's backend adds a non-temporal group otherwise) */
    char err[1024], out[] = "/tmp/test_lbmk_passes_XXXXXX"; /* its own: tests may run side by side */
    int lines;
    assert_non_null(mkdtemp(out));
    for (int passes = 1; passes <= 2; passes++) {
        char args[256];
        snprintf(args, sizeof args, "--quick --passes %d --schemes pull --precisions fp32 --stores normal --block-sizes 64 --sizes 16 "
                 "--out %s --force", passes, out);
        assert_int_equal(run_tool(args, &lines, err, sizeof err), 0);
        lbp_table t;
        char why[256];
        char path[64];
        snprintf(path, sizeof path, "%s/lbm.csv", out);
        assert_int_equal(lbp_table_read(&t, path, 1, why, sizeof why), 0);
        /* --sizes 16: only 16^3 (the block sweep runs there, at the one
         * block size asked for), never the block sweep's own 32^3 */
        assert_int_equal(t.rows, 1);
        assert_int_equal(lbp_table_column(&t, "nx") >= 0, 1);
        double nx;
        assert_int_equal(lbp_table_number(&t, 0, lbp_table_column(&t, "nx"), &nx, why, sizeof why), 0);
        assert_float_equal(nx, 16, 0);
        int col = lbp_table_column(&t, "pass_spread_pct");
        assert_true(col >= 0);
        for (int r = 0; r < t.rows; r++) {
            double v;
            assert_int_equal(lbp_table_number(&t, r, col, &v, why, sizeof why), 0);
            if (passes == 1) assert_float_equal(v, 0, 1e-12);
            else assert_true(v >= 0);
        }
        /* the record of pull fp32, from core/kernels/pull.kernel */
        static const char *const record[][2] = {{"launch", "linear"}, {"words_read", "19"}, {"words_written", "19"},
                                                {"misaligned_reads", "10"}, {"misaligned_writes", "0"},
                                                {"lattices", "2"}, {"bytes_per_update", "152"}};
        for (size_t i = 0; i < sizeof record / sizeof *record; i++) {
            const int c = lbp_table_column(&t, record[i][0]);
            assert_true(c >= 0);
            assert_string_equal(lbp_table_text(&t, 0, c), record[i][1]);
        }
        /* local_bytes beside registers: a whole number, -1 unknown; a
         * backend that cannot tell registers cannot tell spills either */
        const int regs = lbp_table_column(&t, "registers"), local = lbp_table_column(&t, "local_bytes");
        assert_int_equal(local, regs + 1);
        double nregs, nlocal;
        assert_int_equal(lbp_table_number(&t, 0, regs, &nregs, why, sizeof why), 0);
        assert_int_equal(lbp_table_number(&t, 0, local, &nlocal, why, sizeof why), 0);
        assert_true(nlocal >= -1 && nlocal == (long long)nlocal);
        if (nregs < 0) assert_float_equal(nlocal, -1, 0);
        lbp_table_free(&t);
    }
    char rm[96];
    snprintf(rm, sizeof rm, "rm -rf %s", out);
    assert_int_equal(system(rm), 0);
}

/* lbm.csv's record of every scheme and precision comes from the model's
 * description files; it must say what the kernels do: 19 words each way,
 * the precision's word size, the scheme's lattices, and the populations
 * with a nonzero x velocity (counted from the lattice's own velocities)
 * misaligned where the scheme shifts them (push: writes, pull and split:
 * reads, A-A: both on odd steps). */
static void test_record_from_the_description_files(void **state)
{
    (void)state;
    int x_moving = 0;
    for (int i = 0; i < LBM_Q; i++) x_moving += lbm_c[i][0] != 0;
    char ten[16], zero_ten[32];
    snprintf(ten, sizeof ten, "%d", x_moving);
    snprintf(zero_ten, sizeof zero_ten, "0;%d", x_moving);
    const char *expect[LBM_SCHEMES][2] = {{"0", ten}, {ten, "0"}, {ten, "0"}, {zero_ten, zero_ten}};
    for (int s = 0; s < LBM_SCHEMES; s++)
        for (int p = 0; p < LBM_PRECISIONS; p++) {
            const lbm_record r = lbm_record_of((lbm_scheme)s, (lbm_precision)p);
            assert_int_equal(r.words_read, LBM_Q);
            assert_int_equal(r.words_written, LBM_Q);
            assert_int_equal(r.word_bytes, lbm_word_bytes((lbm_precision)p));
            assert_int_equal(r.lattices, lbm_lattices((lbm_scheme)s));
            assert_int_equal(r.bytes_per_update, 2 * LBM_Q * lbm_word_bytes((lbm_precision)p));
            assert_string_equal(r.misaligned_reads, expect[s][0]);
            assert_string_equal(r.misaligned_writes, expect[s][1]);
            assert_string_equal(r.launch, "linear");
            /* and the model reads the same file */
            model_kernel k;
            assert_int_equal(model_builtin_kernel(&k, lbm_scheme_names[s], lbm_precision_names[p]), 0);
            assert_int_equal(k.word_bytes * (k.words_read + k.words_written), r.bytes_per_update);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scheme_conversions_round_trip),
        LBP_TEST_ON_CPU_BACKENDS(test_fp32_periodic),
        LBP_TEST_ON_CPU_BACKENDS(test_fp32_cavity),
        LBP_TEST_ON_CPU_BACKENDS(test_fp64_periodic),
        LBP_TEST_ON_CPU_BACKENDS(test_fp64_cavity),
        LBP_TEST_ON_CPU_BACKENDS(test_fp16s_periodic),
        LBP_TEST_ON_CPU_BACKENDS(test_fp16s_cavity),
        LBP_TEST_ON_CPU_BACKENDS(test_odd_padding),
        cmocka_unit_test(test_step_threads),
        cmocka_unit_test(test_plan_nontemporal_groups),
        cmocka_unit_test(test_plan_cpu_length),
        cmocka_unit_test(test_reach_of_plans),
        cmocka_unit_test(test_population_stride),
        LBP_TEST_ON_CPU_BACKENDS(test_cells_per_thread),
        LBP_TEST_ON_CPU_BACKENDS(test_row_per_thread),
        LBP_TEST_ON(test_nontemporal_stores, "openmp"),
        LBP_TEST_ON_CPU_BACKENDS(test_taylor_green),
        LBP_TEST_ON_CPU_BACKENDS(test_planted_error_is_caught),
        cmocka_unit_test(test_nvrtc_compiles_every_variant),
        cmocka_unit_test(test_register_caps),
        cmocka_unit_test(test_half_access_widths),
        cmocka_unit_test(test_half_shifted_stores_are_vectors),
        cmocka_unit_test(test_collision_ops_match_the_model),
        cmocka_unit_test(test_cli_errors),
        cmocka_unit_test(test_passes_keep_the_faster),
        cmocka_unit_test(test_record_from_the_description_files),
    };
    lbp_cli_init("test_lbmkernels");
    return cmocka_run_group_tests(tests, NULL, lbp_test_close_devices);
}
