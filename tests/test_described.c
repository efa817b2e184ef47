/* membench --kernel: the generated kernel of a description file -- its
 * launch (threads, grid), what it refuses, NVRTC for sm_90, runs on PoCL
 * verified element by element, and a verifier that sees the wrong traffic.
 * The command line is tested in tests/test_kernel_check.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "../membench/described_run.h"
#include "../membench/lbmref.h"

static model_kernel_file parse(const char *text)
{
    model_kernel_file f;
    char err[512];
    if (model_kernel_file_parse(text, "test.kernel", &f, err, sizeof err)) fail_msg("%s", err);
    return f;
}

static mb_described describe(const model_kernel_file *f, long long nx, long long ny, long long nz)
{
    mb_described d;
    char why[512];
    if (mb_described_of(f, nx, ny, nz, 0, &d, why, sizeof why)) fail_msg("%s", why);
    return d;
}

#define ROWS_128 "name = r\nwords_read = 15\nmisaligned_reads = 10\nlaunch = rows\nblock_size = 128\n"
#define GRID_2D "name = g\nwords_read = 9\nmisaligned_reads = 6\nlaunch = grid\nblock = 32x8x1\n"
#define GRID_3D "name = g3\nwords_read = 19\nmisaligned_writes = 10\nlaunch = grid\nblock = 8x8x4\n"
#define LINEAR_V2 "name = l\nwords_read = 19\nwords_written = 7\nmisaligned_reads = 10\nmisaligned_writes = 3\n" \
                  "cells_per_thread = 2\nblock_size = 256\n"
#define IN_PLACE "name = ip\nwords_read = 5\nmisaligned_reads = 3\nmisaligned_writes = 3\nlattices = 1\n" \
                 "launch = rows\nblock_size = 64\n"

/* Threads launched: rows round each row up to the block, a grid each
 * dimension, a linear launch the cells (over cells per thread) to blocks. */
static void test_launch_threads_and_grid(void **state)
{
    (void)state;
    unsigned g[3];
    model_kernel_file f = parse(ROWS_128);
    mb_described d = describe(&f, 100, 20, 10);
    mb_described_grid(&d, g);
    assert_int_equal(g[0], 1), assert_int_equal(g[1], 20), assert_int_equal(g[2], 10);
    assert_int_equal(mb_described_threads(&d), 128 * 20 * 10);
    d = describe(&f, 200, 3, 1);
    assert_int_equal(mb_described_threads(&d), 256 * 3);
    f = parse(GRID_2D);
    d = describe(&f, 100, 90, 1);
    mb_described_grid(&d, g);
    assert_int_equal(g[0], 4), assert_int_equal(g[1], 12), assert_int_equal(g[2], 1);
    assert_int_equal(mb_described_threads(&d), 128 * 96);
    f = parse(GRID_3D);
    d = describe(&f, 9, 9, 9);
    assert_int_equal(mb_described_threads(&d), 16 * 16 * 12);
    f = parse(LINEAR_V2);
    d = describe(&f, 33, 17, 9); /* 5049 cells, 2525 threads, 10 blocks */
    assert_int_equal(mb_described_threads(&d), 2560);
    assert_int_equal(d.cells_per_thread, 2);
    f = parse("name = x\nwords_read = 3\n"); /* no block: 256 */
    d = describe(&f, 10, 10, 10);
    assert_int_equal(d.block[0], 256);
    assert_int_equal(mb_described_threads(&d), 1024);
}

/* The name is the only text of the file's in the generated source: a
 * record whose name is not a kernel name (filled by other code than the
 * parser) gets no source; a kernel name appears once, in the comment, and
 * the source is that of any other name with the name replaced. */
static void test_source_takes_whitelisted_names(void **state)
{
    (void)state;
    model_kernel_file f = parse("name = x\nwords_read = 3\n");
    mb_described d = describe(&f, 10, 10, 10);
    char *plain = mb_generate_described(&d);
    assert_non_null(plain);
    static const char *const bad[] = {"*/[[gnu::constructor]]f(){}/*", "a\"b", "a\\b", "a,b", "a\nb", "a b",
                                      "\033[31m", "\001", "e\303\251", "\377", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(f.k.name, sizeof f.k.name, "%s", bad[i]);
        assert_null(mb_generate_described(&d));
    }
    snprintf(f.k.name, sizeof f.k.name, "%s", "Aa0._-z");
    char *named = mb_generate_described(&d);
    assert_non_null(named);
    const char *at = strstr(named, "Aa0._-z");
    assert_non_null(at);
    assert_null(strstr(at + 1, "Aa0._-z"));
    const size_t before = (size_t)(at - named);
    assert_memory_equal(named, plain, before);
    assert_string_equal(at + strlen("Aa0._-z"), plain + before + 1);
    free(named);
    free(plain);
}

static void assert_refused(const char *text, long long ny, const char *says)
{
    model_kernel_file f = parse(text);
    mb_described d;
    char why[512] = "";
    assert_int_equal(mb_described_of(&f, 10, ny, 10, 0, &d, why, sizeof why), 1);
    if (!strstr(why, says)) fail_msg("'%s' does not say '%s'", why, says);
}

static void test_refuses_what_it_does_not_generate(void **state)
{
    (void)state;
    assert_refused("name = aa\nwords_read = 19\nmisaligned_reads = 0, 10\nmisaligned_writes = 0, 10\nlattices = 1\n", 10,
                   "alternating launches");
    assert_refused("name = k\nwords_read = 19\nlaunches_per_step = 2\n", 10, "launches_per_step 2");
    assert_refused("name = w\nwords_read = 9\nwords_written = 10\n", 10, "10 words written, 9 read");
    assert_refused("name = ip\nwords_read = 9\nmisaligned_reads = 2\nlattices = 1\n", 10, "L = M");
    assert_refused("name = big\nwords_read = 129\n", 10, "at most 128");
    assert_refused(ROWS_128, 70000, "over the 65535 blocks");
}

static int nvrtc_available(void)
{
    char why[256] = "";
    const int rc = lbp_nvrtc_check(mb_empty_source, "", "sm_90", why, sizeof why);
    if (rc < 0) fprintf(stderr, "NVRTC not available: %s\n", why);
    return rc >= 0;
}

/* Every launch, word size and layout compiles for sm_90. */
static void test_nvrtc_compiles_every_launch(void **state)
{
    (void)state;
    if (!nvrtc_available()) skip();
    const char *texts[] = {ROWS_128, GRID_2D, GRID_3D, LINEAR_V2, IN_PLACE};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (int w = 2; w <= 8; w *= 2) {
            model_kernel_file f = parse(texts[i]);
            mb_described d;
            char why[512];
            assert_int_equal(mb_described_of(&f, 100, 20, 10, w, &d, why, sizeof why), 0);
            char *src = mb_generate_described(&d);
            assert_non_null(src);
            if (lbp_nvrtc_check(src, "", "sm_90", why, sizeof why)) fail_msg("%s, %d-byte words:\n%s", f.k.name, w, src);
            free(src);
        }
}

/* ---- on PoCL ------------------------------------------------------------------ */

static lbp_device pocl;
static int have_pocl;

static int open_pocl(void **state)
{
    (void)state;
    const lbp_backend *be = lbp_backend_by_name("opencl");
    char why[256];
    if (be && be->count(why, sizeof why) > 0) {
        lbp_open(&pocl, "opencl", -1);
        have_pocl = 1;
    }
    return 0;
}

static int close_pocl(void **state)
{
    (void)state;
    if (have_pocl) lbp_close(&pocl);
    return 0;
}

static void open_bench(mb_bench *b, const mb_described *d, long long cells)
{
    char why[512];
    if (mb_bench_open(b, &pocl, cells, d->words_read, 8, 0, 32, why, sizeof why)) fail_msg("%s", why);
}

/* Each launch, on lattices its blocks do not divide, at each word size:
 * timed and verified (every element of every written array, the ones past
 * the lattice still poison). */
static void test_described_kernels_run_verified_on_pocl(void **state)
{
    (void)state;
    if (!have_pocl) skip();
    static const struct {
        const char *text;
        long long n[3];
    } cases[] = {{ROWS_128, {100, 7, 5}}, {GRID_2D, {45, 19, 1}}, {GRID_3D, {9, 9, 9}},
                 {LINEAR_V2, {33, 17, 9}}, {IN_PLACE, {70, 3, 4}}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int w = 2; w <= 8; w *= 2) {
            model_kernel_file f = parse(cases[i].text);
            mb_described d;
            char why[512];
            assert_int_equal(mb_described_of(&f, cases[i].n[0], cases[i].n[1], cases[i].n[2], w, &d, why, sizeof why), 0);
            mb_bench b;
            open_bench(&b, &d, cases[i].n[0] * cases[i].n[1] * cases[i].n[2]);
            mb_described_result m = {0};
            if (mb_described_run(&b, &d, 2, &m, why, sizeof why)) fail_msg("%s, %d-byte words: %s", f.k.name, w, why);
            assert_int_equal(m.threads, mb_described_threads(&d));
            assert_true(m.mlups > 0 && m.ms.median > 0 && m.launches >= 20);
            assert_true(m.bytes_per_update == (double)(d.words_read + d.words_written) * w);
            mb_bench_close(&b);
        }
}

/* The verifier holds the generated kernel to the traffic it was described
 * with: the output of M = 3 misaligned writes read as M = 2 or L = 2 fails. */
static void test_verifier_sees_other_traffic(void **state)
{
    (void)state;
    if (!have_pocl) skip();
    model_kernel_file f = parse(LINEAR_V2);
    mb_described d = describe(&f, 33, 17, 9);
    mb_bench b;
    open_bench(&b, &d, 33 * 17 * 9);
    b.threads = 33 * 17 * 9, b.stride = mb_stride(b.threads);
    char *src = mb_generate_described(&d);
    lbp_kernel *k = lbp_compile(&pocl, src, MB_DESCRIBED_ENTRY, "");
    free(src);
    assert_non_null(k);
    const uint32_t seed = 12345;
    mb_prepare(&b, d.word_bytes, d.words_read);
    lbp_launch_cfg lc = {.block = {256, 1, 1}};
    mb_described_grid(&d, lc.grid);
    lbp_arg args[] = {LBP_BUF(b.in), LBP_BUF(b.out), LBP_I64(b.stride), LBP_I64(33), LBP_I64(17), LBP_I64(9),
                      LBP_I64((int64_t)mb_seed_word(seed, d.word_bytes)), LBP_I32(0)};
    lbp_launch(&pocl, k, &lc, 8, args);
    lbp_sync(&pocl);
    char why[512];
    mb_probe_spec s = {.words = 7, .word_bytes = 4, .misaligned_reads = 10, .misaligned_writes = 3};
    assert_int_equal(mb_verify(&b, &s, seed, 1, why, sizeof why), 0);
    s.misaligned_writes = 2;
    assert_int_equal(mb_verify(&b, &s, seed, 1, why, sizeof why), 1);
    s.misaligned_writes = 3, s.misaligned_reads = 2;
    assert_int_equal(mb_verify(&b, &s, seed, 1, why, sizeof why), 1);
    pocl.be->kernel_release(&pocl, k);
    mb_bench_close(&b);
}

static void test_parse_sizes(void **state)
{
    (void)state;
    long long s[MB_MAX_SIZES][3];
    assert_int_equal(mb_parse_sizes("100x20x10", s, MB_MAX_SIZES), 1);
    assert_true(s[0][0] == 100 && s[0][1] == 20 && s[0][2] == 10);
    assert_int_equal(mb_parse_sizes("1024x1024x8,4096x64x64,1x1x1", s, MB_MAX_SIZES), 3);
    assert_true(s[1][0] == 4096 && s[2][2] == 1);
    const char *bad[] = {"", "100", "100x20", "100x20x10,", "0x1x1", "1x1x2000000", "a1x1x1", "1x1x1;2x2x2",
                         "1x1x1,,2x2x2", "-1x1x1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (mb_parse_sizes(bad[i], s, MB_MAX_SIZES) != -1) fail_msg("'%s' accepted", bad[i]);
    assert_int_equal(mb_parse_sizes("1x1x1,1x1x1,1x1x1", s, 2), -1);
}

/* The host reference the independent kernels are verified against
 * (membench --source): every set's weights sum to 1 with zero first
 * moment; a uniform equilibrium is a fixed point; mass and momentum are
 * conserved by both schemes; pull and push are the same steps in another
 * order (a shift after a pull step is a push step after a shift). */
static double moment(const mb_lbm_set *s, int64_t cells, const double *f, int axis)
{
    double m = 0;
    for (int i = 0; i < s->q; i++)
        for (int64_t c = 0; c < cells; c++) m += (axis < 0 ? 1 : s->c[i][axis]) * f[i * cells + c];
    return m;
}

/* Pure streaming to x + c_i, periodic (one push step at omega 0). */
static void shift(const mb_lbm_set *s, const mb_lbm_lattice *l, const double *src, double *dst)
{
    mb_lbm_step(s, l, MB_LBM_PUSH, 0.0, src, dst);
}

static void test_reference_conserves_and_commutes(void **state)
{
    (void)state;
    const model_velocities sets[] = {MODEL_D2Q9, MODEL_D3Q15, MODEL_D3Q19, MODEL_D3Q27};
    for (size_t v = 0; v < sizeof sets / sizeof *sets; v++) {
        mb_lbm_set s;
        const int q = mb_lbm_set_of(sets[v], &s);
        double w = 0, wc[3] = {0, 0, 0};
        for (int i = 0; i < q; i++) {
            w += s.w[i];
            for (int d = 0; d < 3; d++) wc[d] += s.w[i] * s.c[i][d];
        }
        assert_true(fabs(w - 1) < 1e-15 && fabs(wc[0]) + fabs(wc[1]) + fabs(wc[2]) < 1e-15);
        const mb_lbm_lattice l = {7, 5, sets[v] == MODEL_D2Q9 ? 1 : 4};
        const int64_t cells = l.nx * l.ny * l.nz, n = cells * q;
        double *f = malloc(n * sizeof *f), *g = malloc(n * sizeof *g), *h = malloc(n * sizeof *h),
               *k = malloc(n * sizeof *k);
        assert_non_null(f), assert_non_null(g), assert_non_null(h), assert_non_null(k);
        for (int i = 0; i < q; i++)
            for (int64_t c = 0; c < cells; c++) f[i * cells + c] = s.w[i];
        mb_lbm_step(&s, &l, MB_LBM_PULL, 1.25, f, g);
        for (int64_t j = 0; j < n; j++) assert_true(fabs(g[j] - f[j]) < 1e-15);
        mb_lbm_init(&s, &l, f);
        for (int scheme = 0; scheme < 2; scheme++) {
            mb_lbm_step(&s, &l, (mb_lbm_scheme)scheme, 1.25, f, g);
            for (int axis = -1; axis < 3; axis++)
                assert_true(fabs(moment(&s, cells, g, axis) - moment(&s, cells, f, axis)) < 1e-12);
        }
        mb_lbm_step(&s, &l, MB_LBM_PULL, 1.25, f, g); /* shift(pull(f)) */
        shift(&s, &l, g, h);
        shift(&s, &l, f, g); /* push(shift(f)) */
        mb_lbm_step(&s, &l, MB_LBM_PUSH, 1.25, g, k);
        for (int64_t j = 0; j < n; j++) assert_true(fabs(h[j] - k[j]) < 1e-15);
        free(f), free(g), free(h), free(k);
    }
}

/* A source's "memory order:" reorders the set; a list that is short, has
 * a velocity twice or one not of the set is refused; FP16S words hold
 * 32768 (f_i - w_i) and decode to within half's rounding. */
static void test_reference_order_and_words(void **state)
{
    (void)state;
    mb_lbm_set s, t;
    char why[256];
    mb_lbm_set_of(MODEL_D2Q9, &s);
    t = s;
    assert_int_equal(mb_lbm_set_order(&t, "no marker here", why, sizeof why), 1);
    assert_int_equal(mb_lbm_set_order(&t, "/* memory order: 0,0,0 1,0,0 0,1,0 -1,0,0 0,-1,0\n * 1,1,0 -1,1,0 -1,-1,0 1,-1,0 */",
                                      why, sizeof why), 0);
    assert_int_equal(t.c[3][0], -1), assert_int_equal(t.c[6][1], 1);
    assert_true(t.w[0] == 4.0 / 9 && t.w[2] == 1.0 / 9 && t.w[8] == 1.0 / 36);
    t = s;
    assert_int_equal(mb_lbm_set_order(&t, "memory order: 0,0,0 1,0,0", why, sizeof why), -1);
    assert_non_null(strstr(why, "lists 2 velocities"));
    assert_int_equal(mb_lbm_set_order(&t, "memory order: 0,0,0 1,0,0 1,0,0", why, sizeof why), -1);
    assert_non_null(strstr(why, "a repeat"));
    assert_int_equal(mb_lbm_set_order(&t, "memory order: 0,0,1", why, sizeof why), -1);
    assert_non_null(strstr(why, "not one"));
    const double f[9] = {0.45, 0.11, 0.1, 0.12, 0.1111, 0.03, 0.02, 0.028, 0.0277};
    uint16_t words[9];
    double back[9];
    mb_lbm_encode(&s, 2, 1, f, words);
    mb_lbm_decode(&s, 2, 1, words, back);
    for (int i = 0; i < 9; i++) assert_true(fabs(back[i] - f[i]) <= fabs(f[i] - s.w[i]) * 0x1p-11 + 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_threads_and_grid),
        cmocka_unit_test(test_source_takes_whitelisted_names),
        cmocka_unit_test(test_refuses_what_it_does_not_generate),
        cmocka_unit_test(test_parse_sizes),
        cmocka_unit_test(test_nvrtc_compiles_every_launch),
        cmocka_unit_test(test_described_kernels_run_verified_on_pocl),
        cmocka_unit_test(test_verifier_sees_other_traffic),
        cmocka_unit_test(test_reference_conserves_and_commutes),
        cmocka_unit_test(test_reference_order_and_words),
    };
    return cmocka_run_group_tests(tests, open_pocl, close_pocl);
}
