/* membench tests: generator (NVRTC for sm_90), probes on PoCL, the verifier,
 * misaligned accesses, byte records, occupancy search, stamp summaries, plans
 * (the geometry sweep from tests/membench-data/), CLI.
 * Run from the repository root (the CLI tests start ./membench/membench). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends.h"
#include "full.h"
#include "cpucubes.h"
#include "device.h"
#include "../membench/gen.h"
#include "../membench/plan.h"
#include "../membench/probe.h"
#include "skew.h"
#include "../membench/warps.h"

/* ---- generator: every kind of kernel compiles under NVRTC for sm_90 -------- */

/* Kernels are compiled in batches (one NVRTC program, entries renamed):
 * one kernel at a time costs ~50 ms, a batch ~15 ms per kernel. */
typedef struct {
    char *text;
    size_t len, cap;
    int kernels;
} batch;

/* The fewest launches a back-to-back run may take: 20, or where a launch
 * (stretched by a loaded machine) lasts past long_run_ms / 20, the floor of
 * mb_run_launches */
#define LAUNCH_FLOOR (MB_THREADS_FEW_LAUNCHES_QUICK < MB_THREADS_FEW_LAUNCHES ? MB_THREADS_FEW_LAUNCHES_QUICK : MB_THREADS_FEW_LAUNCHES)

static void batch_add(batch *b, const char *src, const char *entry)
{
    char renamed[64];
    snprintf(renamed, sizeof renamed, "%s_%d(", entry, b->kernels++);
    char pattern[64];
    snprintf(pattern, sizeof pattern, "%s(", entry);
    const char *at = strstr(src, pattern);
    assert_non_null(at);
    size_t need = b->len + strlen(src) + 64;
    if (need > b->cap) {
        b->cap = need * 2;
        b->text = realloc(b->text, b->cap);
        assert_non_null(b->text);
    }
    b->len += (size_t)sprintf(b->text + b->len, "%.*s%s%s", (int)(at - src), src, renamed, at + strlen(pattern));
}

static int batch_check(batch *b)
{
    char why[256] = "";
    int rc = b->kernels ? lbp_nvrtc_check(b->text, "", "sm_90", why, sizeof why) : 0;
    b->len = 0;
    b->kernels = 0;
    if (b->text) b->text[0] = 0;
    return rc;
}

static int nvrtc_available(void)
{
    char why[256] = "";
    int rc = lbp_nvrtc_check(mb_empty_source, "", "sm_90", why, sizeof why);
    if (rc < 0) fprintf(stderr, "NVRTC not available: %s\n", why);
    return rc >= 0;
}

/* The word sizes a probe moves. */
static const int word_sizes[] = {2, 4, 8};
#define N_WORD_SIZES 3

static void add_probe(batch *b, int n, int w, int l, int m, int stamps)
{
    mb_probe_spec s = {.words = n, .word_bytes = w, .misaligned_reads = l, .misaligned_writes = m, .stamps = stamps};
    char *src = mb_generate_probe(&s, NULL);
    assert_non_null(src);
    batch_add(b, src, MB_PROBE_ENTRY);
    free(src);
}

/* Representative set: every N in 1..64 and N=128, every word size, each with
 * one of the edge patterns (L,M) = (0,0), (N,0), (0,N), (N,N), (1,N-1)
 * cycling with N, stamps on for every other N; and at N = 1, 19, 64, 128
 * every edge pattern x word size x stamps.  Plus fill/verify and empty. */
static void test_nvrtc_compiles_generated_kernels(void **state)
{
    (void)state;
    if (!nvrtc_available()) skip();
    batch b = {0};
    /* make test: N = 1, 22, 43, 64, each word size and mix */
    for (int n = 1; n <= 64; n += lbp_test_full() ? 1 : 21)
        for (int wi = 0; wi < N_WORD_SIZES; wi++) {
            const int w = word_sizes[wi];
            int e = (n + w) % 5;
            int l = e == 1 || e == 3 ? n : e == 4 ? 1 : 0;
            int m = e == 2 || e == 3 ? n : e == 4 ? n - 1 : 0;
            add_probe(&b, n, w, l, m, n % 2);
            if (b.kernels >= 24) assert_int_equal(batch_check(&b), 0);
        }
    /* make test: the smallest and the largest N, without the stamps */
    static const int edges_n[] = {1, 128, 19, 64};
    for (size_t i = 0; i < (lbp_test_full() ? sizeof edges_n / sizeof *edges_n : 2); i++) {
        int n = edges_n[i];
        for (int wi = 0; wi < N_WORD_SIZES; wi++)
            for (int st = 0; st <= lbp_test_full(); st++) {
                const int w = word_sizes[wi];
                add_probe(&b, n, w, 0, 0, st);
                add_probe(&b, n, w, n, 0, st);
                add_probe(&b, n, w, 0, n, st);
                add_probe(&b, n, w, n, n, st);
            }
        assert_int_equal(batch_check(&b), 0);
    }
    for (int wi = 0; wi < N_WORD_SIZES; wi++) {
        char *src = mb_generate_support(word_sizes[wi]);
        char why[256];
        assert_int_equal(lbp_nvrtc_check(src, "", "sm_90", why, sizeof why), 0);
        free(src);
    }
    /* unrenamed text, as the tool compiles it */
    mb_probe_spec s = {.words = 19, .word_bytes = 4, .misaligned_reads = 10, .misaligned_writes = 10, .stamps = 1};
    char *src = mb_generate_probe(&s, NULL), why[256];
    assert_int_equal(lbp_nvrtc_check(src, "", "sm_90", why, sizeof why), 0);
    free(src);
    /* in place, and swapped, with and without the payload */
    for (int wi = 0; wi < N_WORD_SIZES; wi++)
        for (int sw = 0; sw <= 1; sw++) {
            const int w = word_sizes[wi];
            s = (mb_probe_spec){.words = 19, .word_bytes = w, .misaligned_reads = 10, .misaligned_writes = sw ? 0 : 10,
                                .payload = w != 4 ? 7 : 0, .in_place = !sw, .swapped = sw};
            src = mb_generate_probe(&s, NULL);
            assert_int_equal(lbp_nvrtc_check(src, w == 8 ? MB_PAYLOAD_FP64_OPTIONS : "", "sm_90", why, sizeof why), 0);
            free(src);
        }
    /* narrow: BX = 4, 8, 16 at L, M = 0/0, 10/0, 0/10, one with the payload (one batch) */
    for (int bx = 4; bx < 32; bx *= 2)
        for (int v = 0; v < 3; v++) {
            s = (mb_probe_spec){.words = 19, .word_bytes = 4, .misaligned_reads = v == 1 ? 10 : 0,
                                .misaligned_writes = v == 2 ? 10 : 0, .payload = bx == 16 && v == 0 ? 7 : 0,
                                .band = bx};
            src = mb_generate_probe(&s, NULL);
            assert_non_null(src);
            batch_add(&b, src, MB_PROBE_ENTRY);
            free(src);
        }
    /* tile: 8x8x4 at L, M = 0/0, 10/0, 0/10, 12x8x2 (rows of 252 cells) and 512x1x1 (one batch) */
    static const int tiles[5][5] = {{8, 8, 4, 0, 0}, {8, 8, 4, 10, 0}, {8, 8, 4, 0, 10}, {12, 8, 2, 0, 10},
                                    {512, 1, 1, 10, 0}};
    for (int i = 0; i < 5; i++) {
        s = (mb_probe_spec){.words = 19, .word_bytes = 4, .misaligned_reads = tiles[i][3],
                            .misaligned_writes = tiles[i][4], .tile = {tiles[i][0], tiles[i][1], tiles[i][2]}};
        src = mb_generate_probe(&s, NULL);
        assert_non_null(src);
        batch_add(&b, src, MB_PROBE_ENTRY);
        free(src);
    }
    assert_int_equal(batch_check(&b), 0);
    /* payloads, half-float, float and double, with and without stamps */
    for (int wi = 0; wi < N_WORD_SIZES; wi++)
        for (int p = 1; p <= MB_MAX_PAYLOAD; p *= 4) {
            const int w = word_sizes[wi];
            s = (mb_probe_spec){.words = 19, .word_bytes = w, .misaligned_writes = p % 19, .payload = p,
                                .stamps = p == 4};
            src = mb_generate_probe(&s, NULL);
            assert_int_equal(lbp_nvrtc_check(src, w == 8 ? MB_PAYLOAD_FP64_OPTIONS : "", "sm_90", why, sizeof why), 0);
            free(src);
        }
    free(b.text);
}

static void test_generator_is_straight_line_and_rejects_bad_specs(void **state)
{
    (void)state;
    mb_probe_spec s = {.words = 5, .word_bytes = 4, .misaligned_reads = 2, .misaligned_writes = 3};
    char *src = mb_generate_probe(&s, NULL);
    assert_non_null(src);
    assert_null(strstr(src, "for ("));
    assert_null(strstr(src, "globaltimer")); /* no stamps asked */
    assert_non_null(strstr(src, "in[1 * stride + i + 1]"));
    assert_non_null(strstr(src, "in[2 * stride + i];"));
    assert_non_null(strstr(src, "out[2 * stride + i + 1]"));
    assert_non_null(strstr(src, "out[3 * stride + i] ="));
    free(src);
    s.stamps = 1;
    src = mb_generate_probe(&s, NULL);
    assert_non_null(strstr(src, "%%globaltimer"));
    free(src);
    char why[128];
    mb_probe_spec bad[] = {{.words = 0, .word_bytes = 4},
                           {.words = MB_MAX_WORDS + 1, .word_bytes = 4},
                           {.words = 4, .word_bytes = 16},
                           {.words = 4, .word_bytes = 4, .misaligned_reads = 5},
                           {.words = 4, .word_bytes = 4, .misaligned_writes = -1},
                           {.words = 4, .word_bytes = 4, .payload = -1},
                           {.words = 4, .word_bytes = 4, .payload = MB_MAX_PAYLOAD + 1},
                           {.words = 4, .word_bytes = 4, .misaligned_reads = 1, .in_place = 1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mb_spec_check(&bad[i], why, sizeof why), 1);
        assert_null(mb_generate_probe(&bad[i], NULL));
    }
    assert_non_null(strstr(why, "L=1 and M=0 differ"));
}

/* In place: the words go back where they were read, into `in`; `out` is
 * not touched. */
static void test_generator_in_place(void **state)
{
    (void)state;
    mb_probe_spec s = {.words = 4, .word_bytes = 8, .misaligned_reads = 2, .misaligned_writes = 2, .in_place = 1};
    mb_probe_record r;
    char *src = mb_generate_probe(&s, &r);
    assert_non_null(src);
    assert_non_null(strstr(src, "(GLOBAL u64 *RESTRICT in, GLOBAL u64 *RESTRICT out,"));
    /* thread i's shifted words are those of i + 1, the last thread's of 0 */
    assert_non_null(strstr(src, "const i64 i1 = i + 1 < threads ? i + 1 : 0;"));
    assert_non_null(strstr(src, "const u64 w1 = in[1 * stride + i1];"));
    assert_non_null(strstr(src, "in[1 * stride + i1] = w1 ^ s;"));
    assert_non_null(strstr(src, "in[3 * stride + i] = w3 ^ s;"));
    assert_null(strstr(src, "out["));
    free(src);
    /* so its arrays are spaced as a lattice of that many cells is: 2^24
     * cells, 2^24 elements (32 more where the last thread's i + 1 runs on) */
    assert_true(mb_wraps(&s));
    assert_int_equal(mb_spec_stride(&s, 1 << 24), 1 << 24);
    assert_int_equal(mb_spec_stride(&s, 100), 128);
    mb_probe_spec two = s;
    two.in_place = 0;
    assert_false(mb_wraps(&two));
    assert_int_equal(mb_spec_stride(&two, 1 << 24), (1 << 24) + 32);
    two.in_place = 1, two.vector = 2, two.word_bytes = 2; /* a vector probe's last thread runs on */
    assert_false(mb_wraps(&two));
    assert_int_equal(r.in_place, 1);
    assert_int_equal(r.bytes_read_per_thread, 32);
    assert_int_equal(r.bytes_written_per_thread, 32);
    char name[64];
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N4-L2-M2-w8-ip");
    /* the host mirror: the pattern, the seed xored in by each launch */
    int64_t stride = mb_spec_stride(&s, 100);
    uint64_t p1 = mb_pattern((uint64_t)(stride + 1), 8), sw = mb_seed_word(9, 8);
    assert_true(mb_expected(&s, stride, 100, 9, 1, 1, 1) == (p1 ^ sw));
    assert_true(mb_expected(&s, stride, 100, 9, 2, 1, 1) == p1);
    assert_true(mb_expected(&s, stride, 100, 9, 3, 1, 1) == (p1 ^ sw));
    /* array 1 is shifted and wraps: elements 0 .. 99 written (0 by the
     * last thread), 100 not */
    assert_true(mb_expected(&s, stride, 100, 9, 1, 1, 0) == (mb_pattern((uint64_t)stride, 8) ^ sw));
    assert_true(mb_expected(&s, stride, 100, 9, 1, 1, 100) == mb_pattern((uint64_t)(stride + 100), 8));
    /* array 3 is aligned: element 100 not written */
    assert_true(mb_expected(&s, stride, 100, 9, 1, 3, 100) == mb_pattern((uint64_t)(3 * stride + 100), 8));
    s.in_place = 0;
    free(mb_generate_probe(&s, &r));
    assert_int_equal(r.in_place, 0);
}

/* Swapped: a misaligned index wraps at the last thread; the host mirror
 * moves each array's words on by its read shift less its write shift per
 * launch, xors the seed in once per launch, and leaves the padding as the
 * array written last had it. */
static void test_generator_swapped(void **state)
{
    (void)state;
    mb_probe_spec s = {.words = 3, .word_bytes = 4, .misaligned_reads = 1, .misaligned_writes = 2, .swapped = 1};
    mb_probe_record r;
    char *src = mb_generate_probe(&s, &r);
    assert_non_null(src);
    assert_non_null(strstr(src, "const i64 i1 = i + 1 < threads ? i + 1 : 0;"));
    assert_non_null(strstr(src, "const u32 w0 = in[0 * stride + i1];"));
    assert_non_null(strstr(src, "const u32 w1 = in[1 * stride + i];"));
    assert_non_null(strstr(src, "out[1 * stride + i1] = w1 ^ s;"));
    assert_non_null(strstr(src, "out[2 * stride + i] = w2 ^ s;"));
    assert_null(strstr(src, "i + 1]"));
    free(src);
    assert_int_equal(r.swapped, 1);
    assert_int_equal(r.in_place, 0);
    char name[64], why[128];
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N3-L1-M2-w4-sw");
    /* aligned: no wrapped index */
    mb_probe_spec aligned = {.words = 2, .word_bytes = 8, .swapped = 1};
    src = mb_generate_probe(&aligned, NULL);
    assert_null(strstr(src, "i1"));
    free(src);
    mb_probe_spec both = {.words = 2, .word_bytes = 8, .in_place = 1, .swapped = 1};
    assert_int_equal(mb_spec_check(&both, why, sizeof why), 1);
    assert_non_null(strstr(why, "cannot swap"));
    const int64_t t = 100, stride = mb_stride(t);
    uint64_t sw = mb_seed_word(9, 4);
#define P(x) mb_pattern((uint64_t)(x), 4)
    /* array 0 read and written at i+1, array 2 aligned: the words stay put */
    assert_true(mb_expected(&s, stride, t, 9, 1, 0, 7) == (P(7) ^ sw));
    assert_true(mb_expected(&s, stride, t, 9, 2, 2, 7) == P(2 * stride + 7));
    /* array 1 written at i+1: out[j] = in[j - 1], wrapping */
    assert_true(mb_expected(&s, stride, t, 9, 1, 1, 5) == (P(stride + 4) ^ sw));
    assert_true(mb_expected(&s, stride, t, 9, 1, 1, 0) == (P(stride + 99) ^ sw));
    assert_true(mb_expected(&s, stride, t, 9, 2, 1, 5) == P(stride + 3));
    assert_true(mb_expected(&s, stride, t, 9, 2, 1, 1) == P(stride + 99));
    assert_true(mb_expected(&s, stride, t, 9, 205, 1, 5) == (P(stride + 0) ^ sw));
    /* read at i+1: out[j] = in[j + 1], wrapping */
    mb_probe_spec reads = {.words = 1, .word_bytes = 4, .misaligned_reads = 1, .swapped = 1};
    assert_true(mb_expected(&reads, stride, t, 9, 1, 0, 99) == (P(0) ^ sw));
    assert_true(mb_expected(&reads, stride, t, 9, 3, 0, 98) == (P(1) ^ sw));
    /* padding: poisoned output after an odd count, untouched input after an even one */
    assert_true(mb_expected(&s, stride, t, 9, 1, 1, t) == mb_poison(4));
    assert_true(mb_expected(&s, stride, t, 9, 2, 1, t) == P(stride + t));
#undef P
}

static void test_record_counts_bytes(void **state)
{
    (void)state;
    mb_probe_record r;
    mb_probe_spec s = {.words = 19, .word_bytes = 4, .misaligned_reads = 10};
    free(mb_generate_probe(&s, &r));
    assert_int_equal(r.words, 19);
    assert_int_equal(r.misaligned_reads, 10);
    assert_int_equal(r.misaligned_writes, 0);
    assert_int_equal(r.bytes_read_per_thread, 76);
    assert_int_equal(r.bytes_written_per_thread, 76);
    s = (mb_probe_spec){.words = 27, .word_bytes = 8, .misaligned_writes = 27};
    free(mb_generate_probe(&s, &r));
    assert_int_equal(r.bytes_read_per_thread, 216);
    assert_int_equal(r.bytes_written_per_thread, 216);
    assert_int_equal(r.misaligned_writes, 27);
    assert_int_equal(r.ops_per_thread, 0);
    /* the payload: N * P multiply-adds and the N - 1 additions of the sum */
    s = (mb_probe_spec){.words = 19, .word_bytes = 4, .payload = 7};
    char *src = mb_generate_probe(&s, &r);
    assert_int_equal(r.ops_per_thread, 151);
    assert_int_equal(r.bytes_read_per_thread, 76);
    assert_null(strstr(src, "for ("));
    int fmas = 0;
    for (const char *q = src; (q = strstr(q, " * a_ + sum_;")); q++) fmas++;
    assert_int_equal(fmas, 19 * 7);
    /* shaped like a collision: each word's chain feeds its own store, and
     * the sum of all words is done before the first chain */
    const char *sum = strstr(src, "const float sum_ = lbp_as_f32((w0 & 0x007fffffu) | 0x3f800000u)\n"
                                  "        + lbp_as_f32((w1"),
               *chain = strstr(src, "x0 = x0 * a_ + sum_;");
    assert_non_null(sum);
    assert_non_null(chain);
    assert_true(sum < chain);
    assert_non_null(strstr(src, "out[18 * stride + i] = w18 ^ s ^ (lbp_as_u32(x18) & mask);"));
    free(src);
    char name[64];
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L0-M0-w4-p7");
    assert_int_equal(mb_payload_ops(19, 0), 0);
    assert_int_equal(mb_stride(1000), 1024);
    assert_int_equal(mb_stride(1023), 1024);
    assert_int_equal(mb_stride(1024), 1056); /* index+1 stays inside */
}

/* ---- probes on PoCL ---------------------------------------------------------- */

/* The device of the probe tests: each runs on PoCL and on OpenMP
 * (LBP_TEST_ON_CPU_BACKENDS_SETUP with probe_setup); the command-line tests
 * run the tool on PoCL where it is installed. */
static lbp_device *dev;
static int have_pocl;

static int probe_setup(void **state)
{
    lbp_test_open_device(state);
    dev = *state;
    return 0;
}

static int group_setup(void **state)
{
    (void)state;
    const lbp_backend *be = lbp_backend_by_name("opencl");
    char why[256];
    have_pocl = be && be->count(why, sizeof why) > 0;
    return 0;
}

#define NEAR_REL(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fabs((double)(b)))
#define TEST_THREADS 1000 /* not a multiple of the block size: the last block is partial */

static void read_buffer_array(mb_bench *b, lbp_buf *buf, int k, uint64_t *out, int wb)
{
    unsigned char *raw = malloc((size_t)b->stride * (size_t)wb);
    dev->be->read(dev, buf, (size_t)k * (size_t)b->stride * (size_t)wb, raw, (size_t)b->stride * (size_t)wb);
    for (int64_t j = 0; j < b->stride; j++) {
        if (wb == 2) {
            uint16_t v;
            memcpy(&v, raw + 2 * j, 2);
            out[j] = v;
        } else if (wb == 4) {
            uint32_t v;
            memcpy(&v, raw + 4 * j, 4);
            out[j] = v;
        } else {
            memcpy(&out[j], raw + 8 * j, 8);
        }
    }
    free(raw);
}

static void read_array(mb_bench *b, int k, uint64_t *out, int wb)
{
    read_buffer_array(b, b->out, k, out, wb);
}

/* Open a bench on PoCL for up to `words` words of `word_bytes`. */
static void open_bench(mb_bench *b, int words, int word_bytes)
{
    char why[512];
    int rc = mb_bench_open(b, dev, TEST_THREADS, words, word_bytes, 0, 64, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
}

/* One more probe launch with `seed` on what the buffers hold, untimed. */
static void launch_again(mb_bench *b, const mb_config *cfg, uint32_t seed)
{
    char why[512];
    const mb_compiled *c = mb_kernel_for(b, &cfg->spec);
    mb_shape sh;
    assert_int_equal(mb_resolve_shape(b, c, cfg, &sh, why, sizeof why), 0);
    mb_launch_probe(b, c, cfg, &sh, seed);
    lbp_sync(dev);
}

/* One probe launch on fresh buffers without timing or verification;
 * returns its seed. */
static uint32_t launch_once(mb_bench *b, const mb_config *cfg)
{
    mb_prepare(b, cfg->spec.word_bytes, cfg->spec.words);
    uint32_t seed = mb_next_seed(b);
    launch_again(b, cfg, seed);
    return seed;
}

/* A timed run of cfg, verified by mb_run_probe itself (3 repetitions);
 * its record's bytes are 2 N word_bytes per thread. */
static mb_result timed_run(mb_bench *b, const mb_config *cfg)
{
    char why[512];
    mb_result res;
    int rc = mb_run_probe(b, cfg, 1, 3, &res, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
    assert_int_equal(res.bytes_moved, 2LL * cfg->spec.words * cfg->spec.word_bytes * b->threads);
    return res;
}

static void test_probes_run_correctly(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 19, 8);
    static const int cases[][5] = {{1, 4, 0, 0, 0},  {19, 4, 10, 0, 0}, {19, 4, 0, 10, 0}, {19, 8, 10, 10, 0},
                                   {7, 8, 7, 7, 0},  {19, 4, 19, 0, 0}, {3, 4, 1, 2, 0},  {19, 4, 10, 10, 0},
                                   {19, 4, 0, 10, 7}, {19, 8, 10, 0, 7}, {1, 4, 0, 0, 64}, {19, 2, 10, 0, 0},
                                   {19, 2, 0, 10, 7}, {5, 2, 5, 5, 0},   {1, 2, 0, 0, 64}};
    uint64_t *got = malloc(sizeof *got * (size_t)mb_bench_stride(&b, b.threads, 2)); /* the widest layout in words */
    /* make test: one word, misaligned reads at 2 B, both at 8 B, the stamps,
     * writes with the payload at 4 B and 2 B, the payload alone at 2 B */
    static const int quick[] = {1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        if (!lbp_test_full() && !quick[c]) continue;
        mb_config cfg = {.spec = {.words = cases[c][0], .word_bytes = cases[c][1], .misaligned_reads = cases[c][2],
                                  .misaligned_writes = cases[c][3], .payload = cases[c][4]},
                         .block_size = c % 2 ? 64 : 256};
        cfg.spec.stamps = c == 7; /* the stamp variant computes the same (no clock on OpenCL) */
        mb_result res;
        int rc = mb_run_probe(&b, &cfg, 1, 2, &res, why, sizeof why);
        if (rc) fprintf(stderr, "%s\n", why);
        assert_int_equal(rc, 0);
        assert_int_equal(res.bytes_moved, 2LL * cases[c][0] * cases[c][1] * TEST_THREADS);
        assert_true(res.ms.median > 0);
        assert_int_equal(res.shape.blocks_per_cu, -1); /* OpenCL cannot tell */
        /* independent of the verify kernel: every element against the host
         * mirror, in the run's layout (on a CPU skewed for its word size) */
        const int64_t keep_stride = b.stride;
        b.stride = mb_bench_stride(&b, b.threads, cfg.spec.word_bytes);
        for (int k = 0; k < cfg.spec.words; k++) {
            read_array(&b, k, got, cfg.spec.word_bytes);
            /* the seed is private to the run; recover it from element 1 (always written) */
            uint64_t in1 = mb_pattern((uint64_t)(k * b.stride + 1 - (k < cfg.spec.misaligned_writes) +
                                                 (k < cfg.spec.misaligned_reads)),
                                      cfg.spec.word_bytes);
            uint64_t sw = got[1] ^ in1;
            uint32_t s = (uint32_t)(cfg.spec.word_bytes == 8 ? sw >> 32 : sw);
            assert_true(mb_seed_word(s, cfg.spec.word_bytes) == sw);
            for (int64_t j = 0; j < b.stride; j++)
                if (got[j] != mb_expected(&cfg.spec, b.stride, b.threads, s, 1, k, j)) {
                    fprintf(stderr, "case %zu array %d element %lld: 0x%llx\n", c, k, (long long)j,
                            (unsigned long long)got[j]);
                    fail();
                }
        }
        b.stride = keep_stride;
    }
    free(got);
    mb_bench_close(&b);
}

static void test_misaligned_probe_touches_index_plus_one(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 3, 4);
    /* array 0: read and written at i+1; array 1: written at i+1; array 2: aligned */
    mb_config cfg = {.spec = {.words = 3, .word_bytes = 4, .misaligned_reads = 1, .misaligned_writes = 2},
                     .block_size = 256};
    uint32_t seed = launch_once(&b, &cfg);
    uint64_t *a = malloc(sizeof *a * (size_t)b.stride);
    uint64_t poison = mb_poison(4), sw = mb_seed_word(seed, 4);
    int64_t n = TEST_THREADS, stride = b.stride;
    read_array(&b, 0, a, 4);
    assert_true(a[0] == poison);                                /* index 0 never written */
    assert_true(a[n] == (mb_pattern((uint64_t)n, 4) ^ sw));     /* index threads written from in[threads] */
    assert_true(a[1] == (mb_pattern(1, 4) ^ sw));               /* out[i+1] = in[i+1] */
    assert_true(a[n + 1] == poison);
    read_array(&b, 1, a, 4);
    assert_true(a[0] == poison);
    assert_true(a[1] == (mb_pattern((uint64_t)stride, 4) ^ sw)); /* out[i+1] = in[i] */
    assert_true(a[n] == (mb_pattern((uint64_t)(stride + n - 1), 4) ^ sw));
    read_array(&b, 2, a, 4);
    assert_true(a[0] == (mb_pattern((uint64_t)(2 * stride), 4) ^ sw));
    assert_true(a[n - 1] == (mb_pattern((uint64_t)(2 * stride + n - 1), 4) ^ sw));
    assert_true(a[n] == poison);                                /* aligned: nothing past threads-1 */
    assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 0);
    free(a);
    mb_bench_close(&b);
}

/* value into element j of array k of buf (the bench's out or in) */
static void plant_in_buffer(mb_bench *b, lbp_buf *buf, int k, int64_t j, int wb, uint64_t value)
{
    dev->be->write(dev, buf, ((size_t)k * (size_t)b->stride + (size_t)j) * (size_t)wb, &value, (size_t)wb);
}

static void plant(mb_bench *b, int k, int64_t j, int wb, uint64_t value)
{
    plant_in_buffer(b, b->out, k, j, wb, value);
}

/* Vector probes (gen.h): the aligned accesses as one access of V words,
 * the misaligned reads as V single words, the misaligned writes as one
 * aligned access with a word exchanged through shared memory (and single
 * words at a group's edges), in the PTX that NVRTC makes for sm_90 as in
 * lbmkernels' fp16s kernels at 2 and 4 cells per thread
 * (tests/test_lbmkernels: ld.global.nc.v2.u32, ld.global.nc.u16, one
 * vector store per array and st.shared.u16 there); every L, M pattern
 * compiles; specs the vector form has not are refused. */
static int count_in(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void test_vector_probe_ptx(void **state)
{
    (void)state;
    char why[256];
    const mb_probe_spec bad[] = {{.words = 4, .word_bytes = 2, .vector = 3},
                                 {.words = 4, .word_bytes = 2, .vector = 8},
                                 {.words = 4, .word_bytes = 4, .vector = 4},
                                 {.words = 4, .word_bytes = 2, .vector = 4, .payload = 7},
                                 {.words = 4, .word_bytes = 2, .vector = 2, .in_place = 1, .misaligned_reads = 1},
                                 {.words = 4, .word_bytes = 2, .vector = 2, .swapped = 1},
                                 {.words = 4, .word_bytes = 2, .vector = 4, .stamps = 1}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mb_spec_check(&bad[i], why, sizeof why), 1);
        assert_null(mb_generate_probe(&bad[i], NULL));
    }
    char name[64];
    mb_probe_spec s = {.words = 19, .word_bytes = 2, .misaligned_writes = 10, .vector = 4};
    mb_probe_record rec;
    char *src = mb_generate_probe(&s, &rec);
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L0-M10-w2-v4");
    assert_int_equal(rec.vector, 4);
    assert_int_equal(rec.bytes_written_per_thread, 19 * 2 * 4);
    assert_non_null(strstr(src, "out[0 * stride + 4 * i + 4] ="));
    assert_non_null(strstr(src, "*(GLOBAL u64 *)(out + 10 * stride + 4 * i) ="));
    free(src);
    if (!nvrtc_available()) skip();
    /* V = 2 and 4: 4- and 8-byte accesses; the 10 misaligned arrays read as
     * V single words each, written (push's shape, M alone) as one vector
     * each (the V single words of a group's edges beside them) with one word
     * through shared memory, or (A-A's odd step, L = M) as V single words */
    static const struct {
        int v, l, m;
        const char *vec_load, *vec_store;
        int vec_loads, scalar_loads, vec_stores, scalar_stores;
    } cases[] = {{4, 0, 10, "ld.global.nc.u64", "st.global.u64", 19, 0, 19, 40},
                 {4, 10, 10, "ld.global.nc.u64", "st.global.u64", 9, 40, 9, 40},
                 {4, 10, 0, "ld.global.nc.u64", "st.global.u64", 9, 40, 19, 0},
                 {2, 0, 10, "ld.global.nc.u32", "st.global.u32", 19, 0, 19, 20},
                 {2, 10, 10, "ld.global.nc.u32", "st.global.u32", 9, 20, 9, 20}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        s = (mb_probe_spec){.words = 19, .word_bytes = 2, .misaligned_reads = cases[i].l,
                            .misaligned_writes = cases[i].m, .vector = cases[i].v};
        src = mb_generate_probe(&s, NULL);
        char *ptx = lbp_nvrtc_ptx(src, "", "compute_90", why, sizeof why);
        assert_non_null(ptx);
        assert_int_equal(count_in(ptx, cases[i].vec_load), cases[i].vec_loads);
        assert_int_equal(count_in(ptx, "ld.global.nc.u16"), cases[i].scalar_loads);
        assert_int_equal(count_in(ptx, cases[i].vec_store), cases[i].vec_stores);
        assert_int_equal(count_in(ptx, "st.global.u16"), cases[i].scalar_stores);
        assert_int_equal(count_in(ptx, "st.shared.u16"), cases[i].l ? 0 : cases[i].m);
        /* the neighbour's word, and its own read back where the neighbour
         * does not take it (d3q19.cl's XOWN) */
        assert_int_equal(count_in(ptx, "ld.shared.u16"), cases[i].l ? 0 : 2 * cases[i].m);
        assert_int_equal(lbp_nvrtc_check(src, "", "sm_90", why, sizeof why), 0);
        free(ptx);
        free(src);
    }
    /* in place (A-A's one lattice): every store goes back into in, the
     * shifted words one by one where they were read, no exchange; the loads
     * of an array that is written are no read-only (.nc) loads */
    s = (mb_probe_spec){.words = 19, .word_bytes = 2, .misaligned_reads = 10, .misaligned_writes = 10, .vector = 2,
                        .in_place = 1};
    src = mb_generate_probe(&s, NULL);
    assert_non_null(src);
    assert_null(strstr(src, "out["));
    assert_null(strstr(src, "(out +"));
    assert_non_null(strstr(src, "in[0 * stride + 2 * i + 2] ="));
    assert_non_null(strstr(src, "*(GLOBAL u32 *)(in + 10 * stride + 2 * i) ="));
    char *ptx = lbp_nvrtc_ptx(src, "", "compute_90", why, sizeof why);
    assert_non_null(ptx);
    assert_int_equal(count_in(ptx, "ld.global.nc"), 0);
    assert_int_equal(count_in(ptx, "st.global.u32"), 9);
    assert_int_equal(count_in(ptx, "st.global.u16"), 20);
    assert_int_equal(count_in(ptx, "st.shared"), 0);
    free(ptx);
    free(src);
    batch b = {0};
    for (int v = 2; v <= 4; v += 2)
        for (int n = 1; n <= 40; n += 13)
            for (int e = 0; e < 4; e++) {
                s = (mb_probe_spec){.words = n, .word_bytes = 2, .misaligned_reads = e & 1 ? n : n / 2,
                                    .misaligned_writes = e & 2 ? n : 0, .vector = v};
                src = mb_generate_probe(&s, NULL);
                batch_add(&b, src, MB_PROBE_ENTRY);
                free(src);
            }
    s = (mb_probe_spec){.words = 19, .word_bytes = 4, .misaligned_writes = 10, .vector = 2}; /* fp32 at two cells */
    src = mb_generate_probe(&s, NULL);
    batch_add(&b, src, MB_PROBE_ENTRY);
    free(src);
    for (int v = 2; v <= 4; v += 2) /* A-A's two steps in place, as the vector and occupancy sweeps run them */
        for (int lm = 0; lm <= 10; lm += 10) {
            s = (mb_probe_spec){.words = 19, .word_bytes = 2, .misaligned_reads = lm, .misaligned_writes = lm,
                                .vector = v, .in_place = 1};
            src = mb_generate_probe(&s, NULL);
            batch_add(&b, src, MB_PROBE_ENTRY);
            free(src);
        }
    assert_int_equal(batch_check(&b), 0);
    free(b.text);
}

/* A 6-word vector probe of 2-byte words timed (its bytes V times the
 * scalar probe's), then launched once more, untimed, on fresh buffers laid
 * out as mb_run_probe lays them (b->stride its stride): the seed. */
static uint32_t run_vector_probe_again(mb_bench *b, const mb_config *cfg)
{
    char why[512];
    const int v = cfg->spec.vector;
    mb_result res;
    int rc = mb_run_probe(b, cfg, 1, 2, &res, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
    assert_int_equal(res.bytes_moved, 2LL * 6 * 2 * v * TEST_THREADS);
    assert_int_equal(res.record.vector, v);
    assert_int_equal(res.record.in_place, cfg->spec.in_place);
    const uint32_t seed = mb_next_seed(b);
    b->stride = mb_stride((int64_t)v * TEST_THREADS); /* read_array's stride */
    mb_prepare(b, 2, 6);
    launch_again(b, cfg, seed);
    return seed;
}

/* A vector probe in place (A-A's one lattice): every word of every array,
 * shifted or not, back in `in` where it was read, with the seed's lane in
 * it; `out` untouched; the other launch parity and a planted word are
 * caught (got: room for a stride of 4-word vectors). */
static void check_vector_probe_in_place(mb_bench *b, uint64_t *got)
{
    char why[512];
    const int64_t stride_before = b->stride;
    for (int v = 2; v <= 4; v += 2) {
        mb_config cfg = {.spec = {.words = 6, .word_bytes = 2, .misaligned_reads = 3, .misaligned_writes = 3,
                                  .vector = v, .in_place = 1},
                         .block_size = 64};
        const uint32_t seed = run_vector_probe_again(b, &cfg);
        const int64_t moved = (int64_t)v * TEST_THREADS, stride = b->stride;
        const uint64_t sw = mb_seed_word(seed, 2);
        for (int k = 0; k < 6; k++) {
            read_buffer_array(b, b->in, k, got, 2);
            const int shift = k < 3;
            for (int64_t j = 0; j < stride; j++) {
                const int written = j >= shift && j < moved + shift;
                assert_true(got[j] == (mb_pattern((uint64_t)(k * stride + j), 2) ^ (written ? sw : 0)));
                assert_true(got[j] == mb_expected(&cfg.spec, stride, TEST_THREADS, seed, 1, k, j));
            }
            read_array(b, k, got, 2);
            for (int64_t j = 0; j < stride; j++) assert_true(got[j] == mb_poison(2));
        }
        assert_int_equal(mb_verify(b, &cfg.spec, seed, 1, why, sizeof why), 0);
        assert_int_equal(mb_verify(b, &cfg.spec, seed, 2, why, sizeof why), 1);
        plant_in_buffer(b, b->in, 1, moved, 2, mb_pattern((uint64_t)(stride + moved), 2));
        assert_int_equal(mb_verify(b, &cfg.spec, seed, 1, why, sizeof why), 1);
        b->stride = stride_before;
    }
}

/* A vector probe on PoCL and OpenMP: every word of every array against the host
 * mirror, the misaligned ones one 2-byte word off (out[j] = in[j - 1] ^ s
 * for a misaligned write: element 0 stays poisoned, element V threads is
 * written); its bytes are V times the scalar probe's; and the check cannot
 * be passed by a copy shifted by a word, or by the whole vector that an
 * 8-byte probe at index+1 moves; and in place (check_vector_probe_in_place). */
static void test_vector_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 6, 8);
    uint64_t *got = malloc(sizeof *got * (size_t)(4 * b.stride + 64));
    for (int v = 2; v <= 4; v += 2)
        for (int e = 0; e < 4; e++) {
            mb_config cfg = {.spec = {.words = 6, .word_bytes = 2, .misaligned_reads = e & 1 ? 3 : 0,
                                      .misaligned_writes = e & 2 ? 5 : 0, .vector = v},
                             .block_size = e % 2 ? 64 : 256};
            const uint32_t seed = run_vector_probe_again(&b, &cfg);
            const int64_t moved = (int64_t)v * TEST_THREADS, stride = b.stride;
            assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 0);
            const uint64_t sw = mb_seed_word(seed, 2);
            for (int k = 0; k < 6; k++) {
                read_array(&b, k, got, 2);
                const int r = k < cfg.spec.misaligned_reads, w = k < cfg.spec.misaligned_writes;
                for (int64_t j = 0; j < stride; j++) {
                    const int written = j >= w && j < moved + w;
                    const uint64_t want = written ? mb_pattern((uint64_t)(k * stride + j - w + r), 2) ^ sw : mb_poison(2);
                    assert_true(got[j] == want);
                    assert_true(got[j] == mb_expected(&cfg.spec, stride, TEST_THREADS, seed, 1, k, j));
                }
            }
            /* misread as one word further or nearer on either side: caught */
            mb_probe_spec shifted = cfg.spec;
            shifted.misaligned_writes = cfg.spec.misaligned_writes ? 0 : 5;
            assert_int_equal(mb_verify(&b, &shifted, seed, 1, why, sizeof why), 1);
            shifted = cfg.spec;
            shifted.misaligned_reads = cfg.spec.misaligned_reads ? 0 : 3;
            assert_int_equal(mb_verify(&b, &shifted, seed, 1, why, sizeof why), 1);
            if (cfg.spec.misaligned_writes) {
                /* a whole vector further (what index+1 means for a V x 2-byte word) */
                for (int64_t t = 0; t < TEST_THREADS; t++)
                    for (int q = 0; q < v; q++) {
                        const int64_t j = (t + 1) * v + q;
                        plant(&b, 0, j, 2, mb_pattern((uint64_t)(t * v + q + (0 < cfg.spec.misaligned_reads)), 2) ^ sw);
                    }
                plant(&b, 0, 1, 2, mb_poison(2));
                assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 1);
                assert_non_null(strstr(why, "array 0 element"));
            }
            b.stride = mb_stride(TEST_THREADS);
        }
    check_vector_probe_in_place(&b, got);
    free(got);
    mb_bench_close(&b);
}

/* Row probes (gen.h): a work-item's R cells in a loop the compiler may
 * vectorize (omp simd, Clang's assume_safety); specs the row form has not
 * are refused; the name says R. */
static void test_row_probe_text(void **state)
{
    (void)state;
    const mb_probe_spec bad[] = {{.words = 4, .word_bytes = 4, .row = -1},
                                 {.words = 4, .word_bytes = 4, .row = MB_MAX_ROW + 1},
                                 {.words = 4, .word_bytes = 2, .row = 8, .vector = 2},
                                 {.words = 4, .word_bytes = 4, .row = 8, .swapped = 1},
                                 {.words = 4, .word_bytes = 4, .row = 8, .stamps = 1},
                                 {.words = 4, .word_bytes = 4, .row = 1, .row_ends = 1},
                                 {.words = 4, .word_bytes = 4, .row = 8, .row_ends = 1, .nontemporal = 1}};
    char why[128];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mb_spec_check(&bad[i], why, sizeof why), 1);
        assert_null(mb_generate_probe(&bad[i], NULL));
    }
    mb_probe_spec s = {.words = 19, .word_bytes = 4, .row = 256, .in_place = 1, .misaligned_reads = 3,
                       .misaligned_writes = 3};
    mb_probe_record rec;
    char *src = mb_generate_probe(&s, &rec);
    assert_non_null(src);
    assert_non_null(strstr(src, "#pragma omp simd"));
    assert_non_null(strstr(src, "vectorize(assume_safety)"));
    assert_non_null(strstr(src, "for (i64 i = i_first; i < i_end; i++)"));
    assert_null(strstr(src, "if (i >= threads) return;"));
    assert_int_equal(rec.row, 256);
    assert_int_equal(rec.bytes_read_per_thread, 19 * 4); /* per cell, as the one-cell probe's */
    free(src);
    char name[64];
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L3-M3-w4-ip-r256");
    s.row = 1;
    src = mb_generate_probe(&s, &rec);
    assert_non_null(strstr(src, "if (i >= threads) return;"));
    assert_int_equal(rec.row, 1);
    free(src);
    /* ends apart: the first cell, the loop between (vectorized), the last */
    s = (mb_probe_spec){.words = 19, .word_bytes = 4, .row = 32, .row_ends = 1, .payload = 7};
    src = mb_generate_probe(&s, &rec);
    assert_non_null(src);
    assert_non_null(strstr(src, "const i64 i = i_first;"));
    assert_non_null(strstr(src, "#pragma omp simd\n#endif\n    for (i64 i = i_first + 1; i < i_end - 1; i++)"));
    assert_non_null(strstr(src, "if (i_end - 1 > i_first) {\n    const i64 i = i_end - 1;"));
    assert_null(strstr(src, "for (i64 i = i_first; i < i_end; i++)"));
    assert_int_equal(rec.row, 32);
    free(src);
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L0-M0-w4-p7-r32-e");
    /* the folded payload: words converted as integers, no mask per word, one
     * fold into the seed; 150 operations at N = 19, P = 5 */
    s = (mb_probe_spec){.words = 19, .word_bytes = 8, .row = 256, .payload = MB_PAYLOAD_FOLDED, .folded = 1};
    src = mb_generate_probe(&s, &rec);
    assert_non_null(src);
    assert_non_null(strstr(src, "double x18 = (double)(i32)w18;"));
    assert_non_null(strstr(src, "const double fold_ = "));
    assert_non_null(strstr(src, "(all ^ lbp_as_u64(fold_)) & (u64)mask"));
    assert_null(strstr(src, "0x000fffffffffffff"));
    assert_null(strstr(src, "lbp_as_u64(x"));
    assert_int_equal(rec.ops_per_thread, 150);
    assert_int_equal(rec.folded, 1);
    free(src);
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L0-M0-w8-p5-r256-f");
    const mb_probe_spec bad_folded[] = {{.words = 19, .word_bytes = 4, .payload = 5, .folded = 1},
                                        {.words = 19, .word_bytes = 4, .row = 8, .folded = 1},
                                        {.words = 19, .word_bytes = 2, .row = 8, .payload = 5, .folded = 1}};
    for (size_t i = 0; i < sizeof bad_folded / sizeof *bad_folded; i++)
        assert_int_equal(mb_spec_check(&bad_folded[i], why, sizeof why), 1);
    assert_int_equal(mb_row_items(&(mb_probe_spec){.row = 7}, 1000), 143);
    assert_int_equal(mb_row_items(&(mb_probe_spec){.row = 0}, 1000), 1000);
    /* 128 rows on 16 units: groups of 8, not one group of 256 on one core */
    assert_int_equal(mb_row_block(&(mb_probe_spec){.row = 256}, 32768, 256, 16), 8);
    assert_int_equal(mb_row_block(&(mb_probe_spec){.row = 256}, 1 << 24, 256, 16), 256);
    assert_int_equal(mb_row_block(&(mb_probe_spec){.row = 256}, 4096, 256, 16), 1); /* 16 rows */
    assert_int_equal(mb_row_block(&(mb_probe_spec){.row = 1}, 4096, 256, 16), 256);
}

/* A row probe's 2-byte payload is shaped as the fp16s row kernels compute:
 * each loaded half converted as it is (no masking into a known range), the
 * floats summed in pairs as the collision sums its moments; a one-cell
 * probe keeps its form. */
static void test_row_half_payload_text(void **state)
{
    (void)state;
    mb_probe_spec s = {.words = 19, .word_bytes = 2, .row = 256, .payload = 7};
    mb_probe_record rec;
    char *src = mb_generate_probe(&s, &rec);
    assert_non_null(src);
    assert_int_equal(rec.ops_per_thread, 19 * 7 + 18);
    assert_non_null(strstr(src, "    float x0 = lbp_half_to_float(w0);\n"));
    assert_non_null(strstr(src, "    float x18 = lbp_half_to_float(w18);\n"));
    assert_non_null(strstr(src, "const float sum_ = ((((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + (x7 + x8)))) + "
                                "(((x9 + x10) + (x11 + (x12 + x13))) + ((x14 + x15) + (x16 + (x17 + x18)))));"));
    assert_null(strstr(src, "0x3ffu"));
    assert_non_null(strstr(src, "lbp_float_to_half(x18) & mask"));
    free(src);
    s.row = 1;
    src = mb_generate_probe(&s, &rec);
    assert_non_null(strstr(src, "lbp_half_to_float((u16)((w0 & 0x3ffu) | 0x3800u))"));
    free(src);
}

/* The non-temporal row probe (gen.h): its stores are lbmkernels' LBM_NT
 * rows' stores (the row in chunks of the prelude's LBP_STREAM_CHUNK, the
 * words into an L1 buffer, then lbp_stream_f32 / f64 for each array, the
 * fence after the row; d3q19.cl's chunk is the same constant), no store
 * to out in the loop; specs the form has not are refused. */
static void test_nontemporal_probe_text(void **state)
{
    (void)state;
    const mb_probe_spec bad[] = {{.words = 4, .word_bytes = 4, .nontemporal = 1},          /* one cell */
                                 {.words = 4, .word_bytes = 2, .row = 8, .nontemporal = 1}, /* no half stream */
                                 {.words = 4, .word_bytes = 4, .row = 8, .misaligned_writes = 1, .nontemporal = 1},
                                 {.words = 4, .word_bytes = 4, .row = 8, .in_place = 1, .nontemporal = 1}};
    char why[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(mb_spec_check(&bad[i], why, sizeof why), 1);
        assert_non_null(strstr(why, "non-temporal"));
        assert_null(mb_generate_probe(&bad[i], NULL));
    }
    for (int w = 4; w <= 8; w += 4) {
        mb_probe_spec s = {.words = 19, .word_bytes = w, .row = 256, .misaligned_reads = 10, .nontemporal = 1};
        mb_probe_record rec;
        char *src = mb_generate_probe(&s, &rec);
        assert_non_null(src);
        assert_int_equal(rec.nontemporal, 1);
        assert_int_equal(rec.bytes_written_per_thread, 19 * w);
        assert_non_null(strstr(src, w == 4 ? "float mb_nt[19][LBP_STREAM_CHUNK];" : "double mb_nt[19][LBP_STREAM_CHUNK];"));
        assert_non_null(strstr(src, "i0 += LBP_STREAM_CHUNK"));
        assert_non_null(strstr(src, w == 4 ? "mb_nt[18][i - i0] = lbp_as_f32(w18 ^ s);"
                                           : "mb_nt[18][i - i0] = lbp_as_f64(w18 ^ s);"));
        char flush[128];
        snprintf(flush, sizeof flush, "%s((%s *)(out + 18 * stride + i0), mb_nt[18], i_stop - i0);",
                 w == 4 ? "lbp_stream_f32" : "lbp_stream_f64", w == 4 ? "float" : "double");
        assert_non_null(strstr(src, flush));
        assert_non_null(strstr(src, "lbp_stream_fence();\n}"));
        assert_null(strstr(src, "    out[")); /* every store through the stream */
        assert_non_null(strstr(src, "LBP_HAS_NT_STORE")); /* a backend without: a compile error, not normal stores */
        char name[64];
        assert_string_equal(mb_spec_name(&s, name, sizeof name), w == 4 ? "N19-L10-M0-w4-r256-nt" : "N19-L10-M0-w8-r256-nt");
        free(src);
    }
    /* the kernel's chunk is the prelude's constant */
    FILE *f = fopen("lbmkernels/d3q19.cl", "r");
    assert_non_null(f);
    char line[256];
    int same = 0;
    while (fgets(line, sizeof line, f)) same += !strcmp(line, "#define LBM_NT_CHUNK LBP_STREAM_CHUNK\n");
    fclose(f);
    assert_int_equal(same, 1);
}

/* One row probe of 6 words on b (TEST_THREADS cells): what it moves, a
 * back-to-back run, then every word of every array against the host
 * mirror of the one-cell probe (a row moves what its R one-cell threads
 * move), and a wrong word in the last cell caught. */
static void check_row_probe(mb_bench *b, mb_config cfg, uint64_t *got)
{
    char why[512];
    const int wb = cfg.spec.word_bytes;
    lbp_buf *written = cfg.spec.in_place ? b->in : b->out;
    mb_result res = timed_run(b, &cfg);
    assert_int_equal(res.bytes_moved, 2LL * 6 * wb * TEST_THREADS);
    assert_int_equal(res.record.row, cfg.spec.row);
    assert_int_equal(res.record.nontemporal, cfg.spec.nontemporal);
    cfg.launches = 3;
    int rc = mb_run_probe(b, &cfg, 1, 2, &res, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
    cfg.launches = 0;
    const uint32_t seed = launch_once(b, &cfg);
    assert_int_equal(mb_verify(b, &cfg.spec, seed, 1, why, sizeof why), 0);
    for (int k = 0; k < 6; k++) {
        read_buffer_array(b, written, k, got, wb);
        for (int64_t j = 0; j < b->stride; j++)
            assert_true(got[j] == mb_expected(&cfg.spec, b->stride, TEST_THREADS, seed, 1, k, j));
    }
    const int64_t last = TEST_THREADS - 1 /* array 5 is aligned: its last cell's word */;
    plant_in_buffer(b, written, 5, last, wb, mb_expected(&cfg.spec, b->stride, TEST_THREADS, seed, 1, 5, last) ^ 2);
    assert_int_equal(mb_verify(b, &cfg.spec, seed, 1, why, sizeof why), 1);
    assert_non_null(strstr(why, "array 5 element"));
}

/* The non-temporal row probe on a backend that has such stores (OpenMP;
 * PoCL has none: skipped), R = 7 and 256, 4- and 8-byte words, with L = 3:
 * the same words as the normal probe (check_row_probe). */
static void test_nontemporal_probe(void **state)
{
    (void)state;
    if (!dev || !dev->info.caps.nontemporal_stores) skip();
    mb_bench b;
    open_bench(&b, 6, 8);
    uint64_t *got = malloc(sizeof *got * (size_t)b.stride);
    for (int w = 4; w <= 8; w += 4)
        for (int r = 0; r < 2; r++)
            check_row_probe(&b,
                            (mb_config){.spec = {.words = 6, .word_bytes = w, .misaligned_reads = r ? 3 : 0,
                                                 .row = r ? 7 : 256, .nontemporal = 1},
                                        .block_size = r ? 64 : 4},
                            got);
    free(got);
    mb_bench_close(&b);
}

/* A row probe on PoCL and OpenMP, R = 7 (the last work-item's row partial:
 * 1000 cells) and 256 (four work-items), with misaligned words, in place,
 * and (2-byte words) the payload: check_row_probe. */
static void test_row_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    open_bench(&b, 6, 8);
    uint64_t *got = malloc(sizeof *got * (size_t)b.stride);
    for (int wi = 0; wi < N_WORD_SIZES; wi++)
        for (int e = 0; e < 4; e++) {
            /* make test: each variant at two of the three word sizes */
            if (!lbp_test_full() && (wi + e) % 3 == 2) continue;
            const int wb = word_sizes[wi], in_place = e == 3;
            mb_config cfg = {.spec = {.words = 6, .word_bytes = wb, .misaligned_reads = e & 1 ? 3 : 0,
                                      .misaligned_writes = e & 2 ? (in_place ? 3 : 5) : 0, .in_place = in_place,
                                      .row = e % 2 ? 7 : 256},
                             .block_size = e % 2 ? 64 : 4};
            if (in_place) cfg.spec.misaligned_reads = 3;
            if (e == 0 && wb == 2) cfg.spec.payload = 7; /* the row form of the half payload (gen.c) */
            check_row_probe(&b, cfg, got);
            /* the same with each row's ends apart (gen.h), rows of 7 and of 2
             * (ends alone): the same words */
            cfg.spec.row_ends = 1;
            cfg.spec.row = e % 2 ? 7 : 2;
            if (e == 0) cfg.spec.payload = 7;
            check_row_probe(&b, cfg, got);            /* the folded payload (gen.h), 4- and 8-byte words: the same words */
            if (wb != 2 && (e == 0 || e == 3)) {
                cfg.spec.row_ends = 0;
                cfg.spec.payload = MB_PAYLOAD_FOLDED;
                cfg.spec.folded = 1;
                check_row_probe(&b, cfg, got);
            }
        }
    free(got);
    mb_bench_close(&b);
}

/* The narrow probe's cell of each thread: a permutation of 0 .. threads - 1
 * whatever the count (a last partial band linear), each warp's 32 cells BX
 * adjacent ones in each of 32 / BX rows of MB_BAND_ROW_CELLS. */
static void test_band_cells(void **state)
{
    (void)state;
    static const long long counts[] = {100, 2048, 3 * 2048, 3 * 2048 + 700, 1 << 16};
    for (int bx = 4; bx <= 32; bx *= 2)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
            const mb_probe_spec s = {.words = 19, .word_bytes = 4, .band = bx};
            const long long n = counts[c], whole = n / (MB_BAND_ROW_CELLS * 32 / bx) * (MB_BAND_ROW_CELLS * 32 / bx);
            unsigned char *seen = calloc((size_t)n, 1);
            for (long long t = 0; t < n; t++) {
                const int64_t i = mb_band_cell(&s, t, n);
                assert_true(i >= 0 && i < n);
                assert_int_equal(seen[i], 0);
                seen[i] = 1;
                if (t >= whole) assert_int_equal(i, t);
            }
            free(seen);
            for (long long w = 0; (w + 1) * 32 <= whole; w++) {
                const int64_t first = mb_band_cell(&s, 32 * w, n);
                for (int l = 0; l < 32; l++)
                    assert_int_equal(mb_band_cell(&s, 32 * w + l, n),
                                     first + (l / bx) * MB_BAND_ROW_CELLS + l % bx);
            }
        }
    const mb_probe_spec s8 = {.words = 19, .word_bytes = 4, .band = 8};
    assert_int_equal(mb_band_cell(&s8, 8, 4096), 256);  /* lane 8: the band's second row */
    assert_int_equal(mb_band_cell(&s8, 33, 4096), 9);   /* warp 1, lane 1: the next 8 cells */
    assert_int_equal(mb_band_cell(&s8, 1024, 4096), 1024); /* warp 32: the second band, rows 4 .. 7 */
    assert_int_equal(mb_band_cell(&s8, 32 * 31 + 31, 4096), 3 * 256 + 255);
    char why[128];
    mb_probe_spec bad = s8;
    bad.band = 12;
    assert_int_equal(mb_spec_check(&bad, why, sizeof why), 1);
    assert_non_null(strstr(why, "BX=12"));
    bad = s8;
    bad.swapped = 1;
    assert_int_equal(mb_spec_check(&bad, why, sizeof why), 1);
    char name[64];
    assert_string_equal(mb_spec_name(&s8, name, sizeof name), "N19-L0-M0-w4-x8");
    bad.band = 32;
    bad.swapped = 0;
    assert_string_equal(mb_spec_name(&bad, name, sizeof name), "N19-L0-M0-w4");
}

/* The tile probe's cell of each thread: a permutation of 0 .. threads - 1
 * whatever the count (past the last whole layer of tiles linear); inside
 * each block, thread (tx, ty, tz) BX BY BZ's cell is the block's first
 * plus tx + X (ty + Y tz), the blocks x fastest; BS x 1 x 1 the identity;
 * BX x 32/BX x 1 the narrow probe's mapping at BX. */
static void test_tile_cells(void **state)
{
    (void)state;
    static const int shapes[][3] = {{8, 8, 4}, {32, 4, 2}, {12, 8, 2}, {4, 8, 1}, {512, 1, 1}, {256, 1, 1}, {1, 1, 7}};
    static const long long counts[] = {100, 4 * 65536, 4 * 65536 + 700, 9 * 65536 + 5};
    for (size_t sh = 0; sh < sizeof shapes / sizeof *shapes; sh++)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
            const mb_probe_spec s = {.words = 19, .word_bytes = 4, .tile = {shapes[sh][0], shapes[sh][1], shapes[sh][2]}};
            const long long n = counts[c], bs = (long long)s.tile[0] * s.tile[1] * s.tile[2];
            int64_t d[3];
            mb_tile_lattice(&s, n, d);
            assert_int_equal(d[0] % s.tile[0], 0);
            assert_int_equal(d[1] % s.tile[1], 0);
            assert_int_equal(d[2] % s.tile[2], 0);
            const long long whole = d[0] * d[1] * d[2];
            assert_true(whole <= n);
            unsigned char *seen = calloc((size_t)n, 1);
            for (long long t = 0; t < n; t++) {
                const int64_t i = mb_tile_cell(&s, t, n);
                assert_true(i >= 0 && i < n);
                assert_int_equal(seen[i], 0);
                seen[i] = 1;
                if (t >= whole || (s.tile[1] == 1 && s.tile[2] == 1)) assert_int_equal(i, t);
                if (t >= whole) continue;
                const long long r = t % bs, tx = r % s.tile[0], ty = r / s.tile[0] % s.tile[1],
                                tz = r / (s.tile[0] * s.tile[1]);
                assert_int_equal(i, mb_tile_cell(&s, t - r, n) + tx + d[0] * (ty + d[1] * tz));
            }
            free(seen);
        }
    /* 8x8x4 on 256 x 256 x 4: the block's second row, plane; the next block in x, in y */
    const mb_probe_spec s = {.words = 19, .word_bytes = 4, .tile = {8, 8, 4}};
    assert_int_equal(mb_tile_cell(&s, 8, 1 << 18), 256);
    assert_int_equal(mb_tile_cell(&s, 64, 1 << 18), 65536);
    assert_int_equal(mb_tile_cell(&s, 256, 1 << 18), 8);
    assert_int_equal(mb_tile_cell(&s, 256 * 32, 1 << 18), 8 * 256);
    for (int bx = 4; bx <= 16; bx *= 2) {
        const mb_probe_spec tile = {.words = 19, .word_bytes = 4, .tile = {bx, 32 / bx, 1}},
                            band = {.words = 19, .word_bytes = 4, .band = bx};
        for (long long t = 0; t < 65536; t++) assert_int_equal(mb_tile_cell(&tile, t, 65536), mb_band_cell(&band, t, 65536));
    }
    char why[160], name[64];
    assert_string_equal(mb_spec_name(&s, name, sizeof name), "N19-L0-M0-w4-t8x8x4");
    /* with a band, swapped, 8x64x4 (2048 threads), 8x0x4: each rejected, saying why */
    static const struct {
        int band, swapped, ty;
        const char *says;
    } bad[] = {{8, 0, 8, "tile probe"}, {0, 1, 8, "tile probe"}, {0, 0, 64, "1024"}, {0, 0, 0, "1024"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mb_probe_spec b = s;
        b.band = bad[i].band, b.swapped = bad[i].swapped, b.tile[1] = bad[i].ty;
        assert_int_equal(mb_spec_check(&b, why, sizeof why), 1);
        assert_non_null(strstr(why, bad[i].says));
    }
    int t[3];
    assert_int_equal(mb_tile_parse("12x8x2", t, why, sizeof why), 0);
    assert_int_equal(t[0] * 100 + t[1] * 10 + t[2], 1282);
    static const char *const bad_text[] = {"8x8", "0x1x1", "8x8x4z", "x8x8", "64x32x1", "8x-1x4"};
    for (size_t i = 0; i < sizeof bad_text / sizeof *bad_text; i++)
        assert_int_equal(mb_tile_parse(bad_text[i], t, why, sizeof why), 1);
}

/* Each configuration of cfgs run on `threads` threads, timed (its record's
 * band and tile the spec's), then once: what it writes is the linear
 * probe's, checked by the verify kernel and element by element on the host. */
static void check_permuted_probes(const mb_config *cfgs, int n, int64_t threads)
{
    mb_bench b;
    char why[512];
    int rc = mb_bench_open(&b, dev, threads, 19, 4, 0, 64, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
    uint64_t *got = malloc(sizeof *got * (size_t)b.stride);
    for (int c = 0; c < n; c++) {
        mb_config cfg = cfgs[c];
        cfg.launches = 3;
        mb_result res = timed_run(&b, &cfg);
        assert_int_equal(res.record.band, mb_band(&cfg.spec));
        assert_memory_equal(res.record.tile, cfg.spec.tile, sizeof cfg.spec.tile);
        cfg.launches = 0;
        const uint32_t seed = launch_once(&b, &cfg);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 0);
        b.stride = mb_bench_stride(&b, b.threads, 4);
        for (int k = 0; k < 19; k += 9) {
            read_array(&b, k, got, 4);
            for (int64_t j = 0; j < b.stride; j++)
                assert_true(got[j] == mb_expected(&cfg.spec, b.stride, threads, seed, 1, k, j));
        }
    }
    free(got);
    mb_bench_close(&b);
}

/* The tile probe at 8x4x2 (M = 10) and 16x16x1 (L = 10) on two layers of
 * tiles and a few threads past them (each kernel is a compile on the CPU
 * backends, so two). */
static void test_tile_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    const mb_config cfgs[2] = {
        {.spec = {.words = 19, .word_bytes = 4, .misaligned_writes = 10, .tile = {8, 4, 2}}, .block_size = 64},
        {.spec = {.words = 19, .word_bytes = 4, .misaligned_reads = 10, .tile = {16, 16, 1}}, .block_size = 256}};
    check_permuted_probes(cfgs, 2, 2 * 65536 + 500);
}

/* The narrow probe at BX = 8 (L = 10, then M = 10) and 32 (the linear one)
 * on a count of 3 whole bands of BX = 8 and a partial one (each kernel is a
 * compile on the CPU backends, so three). */
static void test_narrow_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    const mb_config cfgs[3] = {
        {.spec = {.words = 19, .word_bytes = 4, .misaligned_reads = 10, .band = 8}, .block_size = 256},
        {.spec = {.words = 19, .word_bytes = 4, .misaligned_writes = 10, .band = 8}, .block_size = 256},
        {.spec = {.words = 19, .word_bytes = 4, .misaligned_writes = 10, .band = 32}, .block_size = 256}};
    check_permuted_probes(cfgs, 3, 3 * 1024 + 500);
}

static void test_verifier_catches_planted_errors(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 5, 8);
    for (int wi = 0; wi < N_WORD_SIZES; wi++) {
        const int wb = word_sizes[wi];
        mb_config cfg = {.spec = {.words = 5, .word_bytes = wb, .misaligned_reads = 2, .misaligned_writes = 2},
                         .block_size = 256};
        uint32_t seed = launch_once(&b, &cfg);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 0);
        /* a wrong seed is caught everywhere (+2: a 2-byte word xors in
         * the seed's low 16 bits less its lowest) */
        assert_int_equal(mb_verify(&b, &cfg.spec, seed + 2, 1, why, sizeof why), 1);
        /* one wrong element in an aligned array */
        uint64_t good = mb_expected(&cfg.spec, b.stride, b.threads, seed, 1, 3, 500);
        plant(&b, 3, 500, wb, good ^ 4);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 1);
        assert_non_null(strstr(why, "array 3 element 500"));
        assert_non_null(strstr(why, "1 wrong"));
        plant(&b, 3, 500, wb, good);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 0);
        /* element 0 of a misaligned-write array must stay poisoned */
        plant(&b, 1, 0, wb, mb_expected(&cfg.spec, b.stride, b.threads, seed, 1, 2, 0));
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 1);
        assert_non_null(strstr(why, "array 1 element 0"));
        plant(&b, 1, 0, wb, mb_poison(wb));
        /* element `threads` of a misaligned-write array must be written */
        plant(&b, 0, TEST_THREADS, wb, mb_poison(wb));
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 1);
        assert_non_null(strstr(why, "array 0 element 1000"));
        /* padding past the last written element must stay poisoned */
        plant(&b, 0, TEST_THREADS, wb, mb_expected(&cfg.spec, b.stride, b.threads, seed, 1, 0, TEST_THREADS));
        plant(&b, 4, TEST_THREADS + 3, wb, 0);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 1, why, sizeof why), 1);
        assert_non_null(strstr(why, "array 4 element 1003"));
    }
    mb_bench_close(&b);
}

/* An in-place probe on PoCL: the input array after an odd and an even count
 * of launches, against the host mirror and the verify kernel; the output
 * arrays stay poisoned; a wrong element is caught; a timed run (back to
 * back too) verifies itself. */
static void test_in_place_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 19, 8);
    uint64_t *got = malloc(sizeof *got * (size_t)b.stride);
    for (int wi = 0; wi < N_WORD_SIZES; wi++) {
        const int wb = word_sizes[wi];
        mb_config cfg = {.spec = {.words = 19, .word_bytes = wb, .misaligned_reads = 10, .misaligned_writes = 10,
                                  .in_place = 1},
                         .block_size = 128};
        uint32_t seed = launch_once(&b, &cfg);
        for (int launches = 1; launches <= 2; launches++) {
            if (launches > 1) launch_again(&b, &cfg, seed);
            for (int k = 0; k < 19; k++) {
                read_buffer_array(&b, b.in, k, got, wb);
                for (int64_t j = 0; j < b.stride; j++)
                    if (got[j] != mb_expected(&cfg.spec, b.stride, b.threads, seed, launches, k, j)) {
                        fprintf(stderr, "w%d after %d launches: array %d element %lld: 0x%llx\n", wb, launches, k,
                                (long long)j, (unsigned long long)got[j]);
                        fail();
                    }
                read_array(&b, k, got, wb);
                assert_true(got[0] == mb_poison(wb) && got[TEST_THREADS] == mb_poison(wb));
            }
            assert_int_equal(mb_verify(&b, &cfg.spec, seed, launches, why, sizeof why), 0);
            /* the other parity is wrong on every written element */
            assert_int_equal(mb_verify(&b, &cfg.spec, seed, launches + 1, why, sizeof why), 1);
        }
        /* after 2 launches element 5 of array 12 is the pattern again; a
         * flipped bit is caught, and named as the in-place array */
        uint64_t good = mb_expected(&cfg.spec, b.stride, b.threads, seed, 2, 12, 5);
        plant_in_buffer(&b, b.in, 12, 5, wb, good ^ 1);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 2, why, sizeof why), 1);
        assert_non_null(strstr(why, "input array 12 element 5"));
        /* timed runs count their launches: one launch each, and back to back */
        for (int b2b = 0; b2b <= 1; b2b++) {
            cfg.launches = b2b ? MB_THREADS_LAUNCHES : 0;
            cfg.spec.misaligned_reads = cfg.spec.misaligned_writes = b2b ? 0 : 10;
            cfg.spec.payload = b2b ? 7 : 0;
            assert_int_equal(timed_run(&b, &cfg).record.in_place, 1);
        }
    }
    free(got);
    mb_bench_close(&b);
}

/* A swapped probe on PoCL: after 1, 2 and 3 launches the array written last
 * against a host simulation of the launches (independent of mb_expected:
 * each launch writes dst[(j + m) mod T] = src[(j + l) mod T] ^ seed, then
 * the arrays trade places), against mb_expected and the verify kernel; a
 * wrong launch count or element is caught; timed runs verify themselves. */
static void test_swapped_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 19, 8);
    const int64_t t = TEST_THREADS, n = b.stride;
    uint64_t *got = malloc(sizeof *got * (size_t)n), *sim[2], *next = malloc(sizeof *next * (size_t)n);
    sim[0] = malloc(sizeof *sim[0] * (size_t)n);
    sim[1] = malloc(sizeof *sim[1] * (size_t)n);
    static const int lm[][2] = {{10, 0}, {0, 10}, {10, 10}, {0, 0}};
    for (int c = 0; c < 4; c++) {
        const int wb = c == 3 ? 2 : c % 2 ? 8 : 4;
        mb_config cfg = {.spec = {.words = 19, .word_bytes = wb, .misaligned_reads = lm[c][0],
                                  .misaligned_writes = lm[c][1], .swapped = 1},
                         .block_size = 128};
        uint32_t seed = launch_once(&b, &cfg);
        for (int launches = 1; launches <= 3; launches++) {
            if (launches > 1) launch_again(&b, &cfg, seed);
            for (int k = 0; k < 19; k++) {
                const int64_t l = k < lm[c][0], m = k < lm[c][1];
                for (int64_t j = 0; j < n; j++)
                    sim[0][j] = mb_pattern((uint64_t)(k * n + j), wb), sim[1][j] = mb_poison(wb);
                for (int x = 0; x < launches; x++) {
                    uint64_t *src = sim[x % 2], *dst = sim[1 - x % 2];
                    memcpy(next, dst, sizeof *next * (size_t)n);
                    for (int64_t j = 0; j < t; j++)
                        next[(j + m) % t] = src[(j + l) % t] ^ mb_seed_word(seed, wb);
                    memcpy(dst, next, sizeof *next * (size_t)n);
                }
                read_buffer_array(&b, launches % 2 ? b.out : b.in, k, got, wb);
                for (int64_t j = 0; j < n; j++)
                    if (got[j] != sim[launches % 2][j] ||
                        got[j] != mb_expected(&cfg.spec, n, t, seed, launches, k, j)) {
                        fprintf(stderr, "L%d M%d after %d launches: array %d element %lld: 0x%llx\n", lm[c][0],
                                lm[c][1], launches, k, (long long)j, (unsigned long long)got[j]);
                        fail();
                    }
            }
            assert_int_equal(mb_verify(&b, &cfg.spec, seed, launches, why, sizeof why), 0);
            if (lm[c][0] == lm[c][1]) continue; /* the words stay put: the other array holds launches - 1 = + 1 */
            /* the other parity reads the other array, one launch behind */
            assert_int_equal(mb_verify(&b, &cfg.spec, seed, launches + 1, why, sizeof why), 1);
            /* two launches fewer: the misaligned arrays have moved on since */
            if (launches > 2) assert_int_equal(mb_verify(&b, &cfg.spec, seed, launches - 2, why, sizeof why), 1);
        }
        /* a flipped bit in the array written last (the output after 3) */
        uint64_t good = mb_expected(&cfg.spec, n, t, seed, 3, 12, 5);
        plant(&b, 12, 5, wb, good ^ 1);
        assert_int_equal(mb_verify(&b, &cfg.spec, seed, 3, why, sizeof why), 1);
        assert_non_null(strstr(why, "output array 12 element 5"));
        /* timed runs, one launch each and back to back */
        for (int b2b = 0; b2b <= 1; b2b++) {
            cfg.launches = b2b ? MB_THREADS_LAUNCHES : 0;
            cfg.spec.payload = b2b ? 7 : 0;
            assert_int_equal(timed_run(&b, &cfg).record.swapped, 1);
        }
    }
    free(got);
    free(next);
    free(sim[0]);
    free(sim[1]);
    mb_bench_close(&b);
}

/* ---- occupancy search, with a fake backend (OpenCL cannot tell) ------------ */

/* Like an SM of sm_90: 2048 threads, 32 blocks, 228 KB shared with 1 KB
 * reserved per block, 64 K registers at 32 per thread. */
static int fake_occupancy(lbp_device *d, lbp_kernel *k, int block_size, size_t shared)
{
    (void)d; (void)k;
    int by_threads = 2048 / block_size, by_regs = 65536 / (32 * block_size);
    int by_shared = (int)((228 * 1024) / (shared + 1024));
    int m = by_threads < by_regs ? by_threads : by_regs;
    if (by_shared < m) m = by_shared;
    return m < 32 ? m : 32;
}

static void fake_kernel_info(lbp_device *d, lbp_kernel *k, lbp_kernel_info *out)
{
    (void)d; (void)k;
    *out = (lbp_kernel_info){.registers = 32, .max_block_size = 1024};
}

static void test_occupancy_search_reaches_k_exactly(void **state)
{
    (void)state;
    lbp_backend be = {.name = "fake", .occupancy = fake_occupancy, .kernel_info = fake_kernel_info};
    lbp_device d = {.be = &be};
    d.info.max_block_size = 1024;
    d.info.max_threads_per_cu = 2048;
    d.info.shared_per_block = 227 * 1024;
    mb_bench b = {.d = &d};
    mb_compiled c = {.spec = {.words = 19, .word_bytes = 4}};
    char why[256];
    for (int k = 0; k <= 8; k++) {
        mb_config cfg = {.spec = c.spec, .block_size = 256, .blocks_per_cu_requested = k};
        mb_shape sh;
        assert_int_equal(mb_resolve_shape(&b, &c, &cfg, &sh, why, sizeof why), 0);
        assert_int_equal(sh.blocks_per_cu, k ? k : 8);
        assert_true(fake_occupancy(&d, NULL, 256, sh.shared_bytes) == (k ? k : 8));
        if (k > 0 && k < 8) assert_true(fake_occupancy(&d, NULL, 256, sh.shared_bytes - 1) > k); /* smallest */
        assert_true(sh.occupancy == (k ? k : 8) * 256 / 2048.0);
    }
    mb_config too_many = {.spec = c.spec, .block_size = 256, .blocks_per_cu_requested = 9};
    mb_shape sh;
    assert_int_equal(mb_resolve_shape(&b, &c, &too_many, &sh, why, sizeof why), 1);
    assert_non_null(strstr(why, "cannot fit"));
    mb_config too_big = {.spec = c.spec, .block_size = 2048};
    assert_int_equal(mb_resolve_shape(&b, &c, &too_big, &sh, why, sizeof why), 1);
    assert_non_null(strstr(why, "block size 2048"));
}

/* ---- stamp summaries ----------------------------------------------------------- */

static void test_stamp_summary(void **state)
{
    (void)state;
    /* 2 SMs, 3 warps each; SM 1's warps start 100 and 250 ns after its first */
    uint64_t st[6][4] = {
        {0, 1000, 1400, 2000}, {1, 5000, 5300, 5900}, {0, 1032, 1532, 2132},
        {1, 5100, 5200, 6000}, {0, 1064, 1564, 2264}, {1, 5250, 5750, 6250},
    };
    mb_warp_summary w;
    char why[256];
    assert_int_equal(mb_summarize_stamps(&st[0][0], 6, 2, &w, why, sizeof why), 0);
    assert_int_equal(w.warps, 6);
    assert_int_equal(w.ranks, 2);
    assert_int_equal(w.launch[0].n, 2);
    assert_true(w.launch[0].max == 0);
    assert_true(w.launch[1].min == 32 && w.launch[1].max == 100);
    assert_true(w.read.min == 100 && w.read.max == 500);
    assert_true(w.write.min == 500 && w.write.max == 800);
    assert_true(w.resolution_ns == 32);
    /* 900 threads in blocks of 256: block 3 has warps for 768..1023, of
     * which those starting at 928, 960, 992 never run */
    uint64_t many[32][4];
    for (int w = 0; w < 32; w++) many[w][0] = (uint64_t)w;
    assert_int_equal(mb_live_warps(&many[0][0], 32, 256, 900), 29);
    assert_true(many[28][0] == 28);
    assert_int_equal(mb_live_warps(&many[0][0], 32, 256, 1024), 32);
    for (int w = 0; w < 32; w++) many[w][0] = (uint64_t)w;
    assert_int_equal(mb_live_warps(&many[0][0], 8 * 2, 100, 200), 8); /* 4 warps per block of 100 */
    assert_true(many[3][0] == 3 && many[4][0] == 4);
    st[3][1] = UINT64_MAX; /* a warp that never stamped */
    assert_int_equal(mb_summarize_stamps(&st[0][0], 6, 2, &w, why, sizeof why), 1);
    assert_non_null(strstr(why, "warp 3"));
    st[3][1] = 5100;
    st[4][2] = 900; /* reads before start */
    assert_int_equal(mb_summarize_stamps(&st[0][0], 6, 2, &w, why, sizeof why), 1);
}

/* ---- plans ----------------------------------------------------------------------- */

static void test_plan_sweeps(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_MISALIGNED, .word_bytes = 4, .block_size = 256, .n_misaligned_n = 2,
                         .misaligned_n = {19, 27}, .stamps = 1};
    mb_plan p;
    mb_plan_build(&p, &o);
    int reads19 = 0, both27 = 0, aa_odd = 0, stamped = 0, reads19_w2 = 0;
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        if (c->spec.word_bytes == 2) {
            /* 2-byte words: the N = 19 curves alone, never stamped */
            assert_int_equal(c->spec.words, 19);
            assert_int_equal(p.items[i].stamps, 0);
            reads19_w2 += !strcmp(p.items[i].sweep, "misaligned_reads");
            continue;
        }
        assert_int_equal(c->spec.word_bytes, 4);
        if (!strcmp(p.items[i].sweep, "misaligned_reads") && c->spec.words == 19) reads19++;
        if (!strcmp(p.items[i].sweep, "misaligned_both") && c->spec.words == 27) {
            both27++;
            assert_int_equal(c->spec.misaligned_reads, c->spec.misaligned_writes);
        }
        if (c->spec.words == 19 && c->spec.misaligned_reads == 10 && c->spec.misaligned_writes == 10) aa_odd++;
        stamped += p.items[i].stamps;
    }
    assert_int_equal(reads19, 20); /* L = 0..19 in steps of 1 */
    assert_int_equal(reads19_w2, 20);
    assert_int_equal(both27, 10);  /* 0, 3, ..., 27 */
    assert_int_equal(aa_odd, 1);
    assert_true(stamped > 0);
    int max_words = 0, max_wb = 0, min_bs = 1 << 30;
    int64_t array_bytes = 0;
    mb_plan_limits(&p, &max_words, &max_wb, &min_bs, &array_bytes);
    assert_int_equal(max_words, 27);
    mb_plan_free(&p);
    /* a word size given: that one alone */
    o.word_bytes_given = 1;
    mb_plan_build(&p, &o);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.spec.word_bytes, 4);
    mb_plan_free(&p);
}

/* The threads sweep: the N=19 aligned probe at thread counts from 2^12 up to
 * --threads, 4- and 8-byte words, launched back to back. */
static int threads_points(const mb_plan_options *base, int quick, long long top, int w, long long *first,
                          long long *last)
{
    int variants[5] = {0};
    mb_plan_options o = *base;
    o.quick = quick;
    if (top) o.max_threads = top; /* 0: base's, and its threads_top */
    top = o.max_threads;
    for (int i = 0; i < 3; i++)
        if (o.threads_top[i] > top) top = o.threads_top[i];
    mb_plan p;
    mb_plan_build(&p, &o);
    int n = 0;
    long long prev = 0;
    for (int i = 0; i < p.n; i++) {
        const mb_plan_item *it = &p.items[i];
        assert_string_equal(it->sweep, "threads");
        const mb_config *c = &it->cfg;
        assert_int_equal(c->spec.words, 19);
        assert_int_equal(c->block_size, 256);
        assert_int_equal(c->launches, MB_THREADS_LAUNCHES);
        assert_int_equal(it->stamps, 0);
        assert_true(c->threads > 0 && c->threads <= top);
        if (c->spec.word_bytes != w) continue;
        /* aligned, payload, L=10, M=10, L=M=10: the same thread counts each */
        int l = c->spec.misaligned_reads, m = c->spec.misaligned_writes, v;
        if (c->spec.payload) {
            assert_int_equal(c->spec.payload, MB_PAYLOAD_COLLISION);
            assert_int_equal(l + m, 0);
            v = 1;
        } else {
            assert_true((l == 0 || l == 10) && (m == 0 || m == 10));
            v = l && m ? 4 : m ? 3 : l ? 2 : 0;
        }
        variants[v]++;
        if (v) continue;
        assert_true(c->threads > prev); /* ascending, no repeats */
        if (!n) *first = c->threads;
        *last = prev = c->threads;
        n++;
    }
    mb_plan_free(&p);
    for (int v = 1; v < 5; v++) assert_int_equal(variants[v], v == 1 && w == 8 && !base->fp64 ? 0 : n);
    return n;
}

/* The payload sweep (P = 1..14 at every word size, 8 bytes only with
 * doubles) and the occupancy variants. */
/* The vector sweep: 2-byte words at V = 2 and 4, L, M = 0/0, 10/0, 0/10,
 * 10/10, and 0/0 and 10/10 in place, where the device runs several cells per thread (a GPU) and the
 * default word size runs; nothing elsewhere. */
static void test_plan_vector(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_VECTOR, .word_bytes = 4, .block_size = 256, .vector = 1, .stamps = 1};
    mb_plan p;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 12);
    /* push's, pull's and A-A's shapes, then A-A's two steps in place */
    static const int lm[6][3] = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}, {10, 10, 0}, {0, 0, 1}, {10, 10, 1}};
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        assert_string_equal(p.items[i].sweep, "vector");
        assert_int_equal(c->spec.vector, i < 6 ? 2 : 4);
        assert_int_equal(c->spec.word_bytes, 2);
        assert_int_equal(c->spec.words, 19);
        assert_int_equal(c->spec.misaligned_reads, lm[i % 6][0]);
        assert_int_equal(c->spec.misaligned_writes, lm[i % 6][1]);
        assert_int_equal(c->spec.in_place, lm[i % 6][2]);
        assert_int_equal(p.items[i].stamps, 0);
        char why[128];
        assert_int_equal(mb_spec_check(&c->spec, why, sizeof why), 0);
    }
    /* buffers sized for the widest access: 8 bytes */
    int max_words = 0, max_word_bytes = 0, min_block = 1024;
    int64_t array_bytes = 0;
    mb_plan_limits(&p, &max_words, &max_word_bytes, &min_block, &array_bytes);
    assert_int_equal(max_word_bytes, 8);
    mb_plan_free(&p);
    o.sweeps = SW_ALL;
    o.vector = 0; /* a CPU */
    o.n_words = 1;
    o.words[0] = 19;
    mb_plan_build(&p, &o);
    for (int i = 0; i < p.n; i++) assert_int_equal(mb_vector(&p.items[i].cfg.spec), 1);
    mb_plan_free(&p);
    o.sweeps = SW_VECTOR;
    o.vector = 1;
    o.word_bytes_given = 1;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 0);
    mb_plan_free(&p);
}

/* A narrow or tile sweep's item: the N=19 probe of 4-byte words at L, M =
 * lm, --threads 2^24, back to back, no stamps, a spec the generator makes. */
static void assert_n19_back_to_back(const mb_plan_item *it, const char *sweep, const int lm[2])
{
    const mb_config *c = &it->cfg;
    assert_string_equal(it->sweep, sweep);
    assert_int_equal(c->spec.word_bytes, 4);
    assert_int_equal(c->spec.words, 19);
    assert_int_equal(c->spec.misaligned_reads, lm[0]);
    assert_int_equal(c->spec.misaligned_writes, lm[1]);
    assert_int_equal(c->threads, 1LL << 24);
    assert_int_equal(c->launches, MB_THREADS_LAUNCHES);
    assert_int_equal(it->stamps, 0);
    char why[128];
    assert_int_equal(mb_spec_check(&c->spec, why, sizeof why), 0);
}

/* The rows sweep's non-temporal curves: aligned, stores into out, 4- and
 * 8-byte words (quick: 4-byte only), the row of the others, named -nt;
 * none where the backend has no such stores; the other curves as before. */
static void test_plan_rows_nontemporal(void **state)
{
    (void)state;
    for (int quick = 0; quick < 2; quick++) {
        int plain = 0;
        for (int nt = 0; nt < 2; nt++) {
            mb_plan_options o = {.sweeps = SW_THREADS, .quick = quick, .word_bytes = 4, .block_size = 256,
                                 .thread_counts = {4096, 1 << 20}, .n_thread_counts = 2, .fp64 = 1, .row = 256,
                                 .nontemporal = nt, .cpu = 1};
            mb_plan p;
            mb_plan_build(&p, &o);
            int rows = 0, seen[2] = {0, 0};
            for (int i = 0; i < p.n; i++) {
                const mb_probe_spec *sp = &p.items[i].cfg.spec;
                if (strcmp(p.items[i].sweep, "rows")) continue;
                assert_int_equal(sp->row, 256);
                if (!sp->nontemporal) {
                    rows++;
                    continue;
                }
                assert_int_equal(sp->misaligned_reads + sp->misaligned_writes + sp->payload + sp->in_place, 0);
                assert_true(sp->word_bytes == 4 || sp->word_bytes == 8);
                seen[sp->word_bytes == 8]++;
                char name[96];
                assert_non_null(strstr(mb_config_name(&p.items[i].cfg, name, sizeof name), "-r256-nt"));
            }
            if (!nt) plain = rows;
            assert_int_equal(rows, plain);
            assert_int_equal(seen[0], nt ? 2 : 0);
            assert_int_equal(seen[1], nt && !quick ? 2 : 0);
            mb_plan_free(&p);
            o.aligned_only = 1; /* the recheck: no variant, this one neither */
            mb_plan_build(&p, &o);
            for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.spec.nontemporal, 0);
            mb_plan_free(&p);
        }
    }
}

/* The narrow sweep: 4-byte words at BX = 4, 8, 16, 32 x L, M = 0/0, 10/0,
 * 0/10 at --threads, back to back, where asked (a GPU); nothing elsewhere. */
static void test_plan_narrow(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_NARROW, .word_bytes = 4, .block_size = 256, .narrow = 1, .stamps = 1,
                         .max_threads = 1LL << 24};
    mb_plan p;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 12);
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        assert_n19_back_to_back(&p.items[i], "narrow", lm[i % 3]);
        assert_int_equal(c->spec.band, 4 << (i / 3));
    }
    mb_plan_free(&p);
    o.narrow = 0; /* a CPU */
    o.sweeps = SW_ALL;
    o.n_words = 1;
    o.words[0] = 19;
    mb_plan_build(&p, &o);
    for (int i = 0; i < p.n; i++) assert_int_equal(mb_band(&p.items[i].cfg.spec), 32);
    mb_plan_free(&p);
}

/* The tile sweep: its default shapes, --tile's, then each one's linear
 * reference BS x 1 x 1, each once, x L, M = 0/0, 10/0, 0/10, at a block of
 * the shape's threads, --threads, back to back; nothing on a CPU unless
 * asked; the default sweeps no longer run the narrow one. */
static void test_plan_tile(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_TILE, .word_bytes = 4, .block_size = 256, .tile = 1, .stamps = 1,
                         .max_threads = 1LL << 24, .n_tiles = 2, .tiles = {{12, 8, 2}, {8, 8, 4}}};
    mb_plan p;
    mb_plan_build(&p, &o);
    /* 10 defaults, 12x8x2 (8x8x4 is one), references 256x1x1, 512x1x1, 192x1x1 (32x1x1 is one) */
    assert_int_equal(p.n, 3 * 14);
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    int refs = 0, custom = 0;
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        assert_n19_back_to_back(&p.items[i], "tile", lm[i % 3]);
        assert_true(mb_is_tile(&c->spec));
        assert_int_equal(c->block_size, c->spec.tile[0] * c->spec.tile[1] * c->spec.tile[2]);
        for (int j = 0; j < i; j++) /* each shape and L, M once */
            assert_false(!memcmp(p.items[j].cfg.spec.tile, c->spec.tile, sizeof c->spec.tile) &&
                         p.items[j].cfg.spec.misaligned_reads == c->spec.misaligned_reads &&
                         p.items[j].cfg.spec.misaligned_writes == c->spec.misaligned_writes);
        refs += c->spec.tile[1] == 1 && c->spec.tile[2] == 1 && c->spec.tile[0] > 32;
        custom += c->spec.tile[0] == 12;
    }
    assert_int_equal(refs, 3 * 3);
    assert_int_equal(custom, 3);
    mb_plan_free(&p);
    /* --tile-from files of 8x8x4 blocks at 4 per SM and of 32x8x1 at 4
     * and at 6: each shape and its reference again at those, forced, each
     * L, M once (256x1x1 at 4 once for both shapes) */
    o.n_forced_tiles = 3;
    memcpy(o.forced_tiles, (int[3][4]){{8, 8, 4, 4}, {32, 8, 1, 4}, {32, 8, 1, 6}}, sizeof(int[3][4]));
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 3 * 14 + 5 * 3);
    int forced = 0;
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        assert_n19_back_to_back(&p.items[i], "tile", lm[i % 3]);
        if (!c->blocks_per_cu_requested) continue;
        forced++;
        assert_true(!memcmp(c->spec.tile, (int[3]){8, 8, 4}, sizeof c->spec.tile) ||
                    !memcmp(c->spec.tile, (int[3]){32, 8, 1}, sizeof c->spec.tile) ||
                    !memcmp(c->spec.tile, (int[3]){256, 1, 1}, sizeof c->spec.tile));
        assert_true(c->blocks_per_cu_requested == 4 ||
                    (c->blocks_per_cu_requested == 6 && c->spec.tile[0] != 8));
        assert_int_equal(c->block_size, 256);
    }
    assert_int_equal(forced, 5 * 3);
    mb_plan_free(&p);
    o.n_forced_tiles = 0;
    o.tile = 0; /* a CPU */
    o.narrow = 1;
    o.sweeps = SW_ALL;
    o.n_words = 1;
    o.words[0] = 19;
    mb_plan_build(&p, &o);
    for (int i = 0; i < p.n; i++) {
        assert_false(mb_is_tile(&p.items[i].cfg.spec));
        assert_int_equal(mb_band(&p.items[i].cfg.spec), 32); /* narrow: by name only */
    }
    mb_plan_free(&p);
}

static void test_plan_payload(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_PAYLOAD, .word_bytes = 4, .block_size = 256, .fp64 = 1};
    mb_plan p;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 18);
    for (int i = 0; i < p.n; i++) {
        assert_string_equal(p.items[i].sweep, "payload");
        assert_int_equal(p.items[i].cfg.spec.word_bytes, i < 6 ? 4 : i < 12 ? 8 : 2);
        assert_true(p.items[i].cfg.spec.payload >= 1 && p.items[i].cfg.spec.payload <= 14);
        assert_int_equal(p.items[i].cfg.spec.misaligned_reads + p.items[i].cfg.spec.misaligned_writes, 0);
    }
    mb_plan_free(&p);
    o.fp64 = 0;
    o.quick = 1;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 2); /* float payloads of 4- and 2-byte words */
    assert_int_equal(p.items[0].cfg.spec.payload, MB_PAYLOAD_COLLISION);
    assert_int_equal(p.items[0].cfg.spec.word_bytes, 4);
    assert_int_equal(p.items[1].cfg.spec.word_bytes, 2);
    mb_plan_free(&p);
    mb_probe_spec v[MB_OCCUPANCY_VARIANTS];
    /* aligned, payload w4 and w2, L=10, M=10, w2 aligned and M=10 */
    assert_int_equal(mb_occupancy_variants(&o, v), 7);
    assert_int_equal(v[2].payload, MB_PAYLOAD_COLLISION);
    assert_int_equal(v[2].word_bytes, 2);
    o.fp64 = 1;
    assert_int_equal(mb_occupancy_variants(&o, v), 10);
    assert_int_equal(v[2].payload, MB_PAYLOAD_COLLISION);
    assert_int_equal(v[2].word_bytes, 8);
    assert_int_equal(v[3].payload, MB_PAYLOAD_COLLISION);
    assert_int_equal(v[3].word_bytes, 2);
    assert_int_equal(v[5].misaligned_writes, 10);
    assert_int_equal(v[5].word_bytes, 4);
    /* 8-byte words aligned and with M = 10 (fp64 kernels) */
    assert_int_equal(v[6].word_bytes, 8);
    assert_int_equal(v[6].misaligned_writes + v[6].misaligned_reads + v[6].payload, 0);
    assert_int_equal(v[7].word_bytes, 8);
    assert_int_equal(v[7].misaligned_writes, 10);
    assert_int_equal(v[7].misaligned_reads + v[7].payload, 0);
    /* 2-byte words aligned and with M = 10 (fp16s kernels at a cell per thread) */
    assert_int_equal(v[8].word_bytes, 2);
    assert_int_equal(v[8].misaligned_writes + v[8].misaligned_reads + v[8].payload, 0);
    assert_int_equal(v[9].word_bytes, 2);
    assert_int_equal(v[9].misaligned_writes, 10);
    assert_int_equal(v[9].misaligned_reads + v[9].payload, 0);
    /* only the default word size's plain variant is stamped */
    o.stamps = 1;
    memset(&p, 0, sizeof p);
    mb_plan_occupancy(&p, &o, &v[6], 256, 2);
    mb_plan_occupancy(&p, &o, &v[8], 256, 2);
    assert_int_equal(p.n, 4);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].stamps, 0);
    mb_plan_free(&p);
    o.stamps = 0;
    o.word_bytes = 8; /* an 8-byte default: nothing added */
    assert_int_equal(mb_occupancy_variants(&o, v), 6);
    o.word_bytes = 4;
    o.word_bytes_given = 1; /* 4 bytes given: no 2-byte variants */
    assert_int_equal(mb_occupancy_variants(&o, v), 8);
    o.word_bytes_given = 0;
    assert_int_equal(mb_occupancy_variants(&o, v), 10);
    /* a variant's occupancy rows carry it; only the plain one is stamped */
    o.stamps = 1;
    o.quick = 0;
    memset(&p, 0, sizeof p);
    mb_plan_occupancy(&p, &o, &v[1], 256, 8);
    mb_plan_occupancy(&p, &o, &v[0], 256, 8);
    assert_int_equal(p.n, 16);
    for (int i = 0; i < p.n; i++) {
        assert_int_equal(p.items[i].cfg.spec.payload, i < 8 ? MB_PAYLOAD_COLLISION : 0);
        assert_int_equal(p.items[i].stamps, i >= 8);
    }
    mb_plan_free(&p);
}

/* On a GPU (o.vector) the occupancy sweep also runs the vector probes of
 * 2-byte words as fp16s kernels move them, at V = 2 and 4: aligned, M = 10,
 * L = 10, in place 0/0 and 10/10 (not --quick, not with a word size
 * given); each spec one the generator makes, and its occupancy rows carry
 * V and in_place. */
static void test_plan_occupancy_vector(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_OCCUPANCY, .word_bytes = 4, .block_size = 256, .fp64 = 1, .vector = 1};
    mb_probe_spec v[MB_OCCUPANCY_VARIANTS];
    assert_int_equal(mb_occupancy_variants(&o, v), 20);
    static const int shape[5][3] = {{0, 0, 0}, {0, 10, 0}, {10, 0, 0}, {0, 0, 1}, {10, 10, 1}};
    char why[256];
    for (int i = 10; i < 20; i++) {
        assert_int_equal(v[i].word_bytes, 2);
        assert_int_equal(v[i].words, 19);
        assert_int_equal(v[i].vector, i < 15 ? 2 : 4);
        assert_int_equal(v[i].misaligned_reads, shape[(i - 10) % 5][0]);
        assert_int_equal(v[i].misaligned_writes, shape[(i - 10) % 5][1]);
        assert_int_equal(v[i].in_place, shape[(i - 10) % 5][2]);
        assert_int_equal(v[i].payload, 0);
        assert_int_equal(mb_spec_check(&v[i], why, sizeof why), 0);
    }
    mb_plan p = {0};
    mb_plan_occupancy(&p, &o, &v[19], 512, 2);
    assert_int_equal(p.n, 2);
    for (int i = 0; i < p.n; i++) {
        assert_int_equal(p.items[i].cfg.spec.vector, 4);
        assert_int_equal(p.items[i].cfg.spec.in_place, 1);
        assert_int_equal(p.items[i].cfg.blocks_per_cu_requested, i + 1);
        assert_int_equal(p.items[i].stamps, 0);
    }
    mb_plan_free(&p);
    o.quick = 1;
    assert_int_equal(mb_occupancy_variants(&o, v), 10);
    o.quick = 0;
    o.vector = 0; /* a CPU */
    assert_int_equal(mb_occupancy_variants(&o, v), 10);
    o.vector = 1;
    o.word_bytes_given = 1;
    assert_int_equal(mb_occupancy_variants(&o, v), 8);
}

static void test_plan_threads(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_THREADS, .word_bytes = 4, .block_size = 256, .stamps = 1, .fp64 = 1};
    long long first, last;
    /* GPU default 2^24: 13 powers of 2 + x1.5 at 2^13..2^20 (8) */
    for (int w = 2; w <= 8; w *= 2) {
        assert_int_equal(threads_points(&o, 0, 1LL << 24, w, &first, &last), 21);
        assert_int_equal(first, 4096);
        assert_int_equal(last, 1LL << 24);
    }
    /* quick GPU 2^22: 2^12, 2^14, ..., 2^22 */
    assert_int_equal(threads_points(&o, 1, 1LL << 22, 4, &first, &last), 6);
    /* CPU 2^18 (7 powers + 5), quick CPU 2^16 (3) */
    assert_int_equal(threads_points(&o, 0, 1LL << 18, 8, &first, &last), 12);
    assert_int_equal(threads_points(&o, 1, 1LL << 16, 8, &first, &last), 3);
    mb_plan_options no_fp64 = o; /* no 8-byte payload curve */
    no_fp64.fp64 = 0;
    assert_int_equal(threads_points(&no_fp64, 1, 1LL << 16, 8, &first, &last), 3);
    /* the top is always a point, also off the grid or below 2^12 */
    assert_int_equal(threads_points(&o, 0, 100000, 4, &first, &last), 10); /* 4096..65536: 5 + 4 x1.5 + top */
    assert_int_equal(last, 100000);
    assert_int_equal(threads_points(&o, 0, 1000, 4, &first, &last), 1);
    assert_int_equal(first, 1000);
    /* the same curve again at 1, 2, 3, 4, 6 blocks per SM below what fits
     * (quick: 2, 4); nothing where blocks cannot be forced, or when the
     * default sweep already runs at a forced count */
    static const struct { int quick, fit, curves; } fewer[] = {{0, 8, 5}, {0, 5, 4}, {0, 1, 0}, {1, 8, 2},
                                                               {1, 3, 1}, {0, 0, 0}, {0, -1, 0}};
    for (size_t i = 0; i < sizeof fewer / sizeof *fewer; i++) {
        mb_plan_options q = o;
        q.quick = fewer[i].quick;
        q.max_threads = 1LL << 24;
        mb_plan p;
        memset(&p, 0, sizeof p);
        mb_plan_threads_occupancy(&p, &q, 8, fewer[i].fit);
        int per_curve = q.quick ? 7 : 21, k_prev = 0;
        assert_int_equal(p.n, fewer[i].curves * per_curve);
        for (int j = 0; j < p.n; j++) {
            assert_string_equal(p.items[j].sweep, "threads");
            assert_int_equal(p.items[j].cfg.spec.word_bytes, 8);
            assert_true(p.items[j].cfg.blocks_per_cu_requested >= k_prev);
            assert_true(p.items[j].cfg.blocks_per_cu_requested < fewer[i].fit);
            k_prev = p.items[j].cfg.blocks_per_cu_requested;
        }
        mb_plan_free(&p);
    }
    /* grouped: the threads items last, by thread count, each count's
     * curves together (aligned first, then the variants, as planned) */
    mb_plan_options all = o;
    all.sweeps = SW_THREADS | SW_WORDS | SW_PAYLOAD;
    all.max_threads = 1LL << 16;
    all.n_words = 2;
    all.words[0] = 1;
    all.words[1] = 19;
    mb_plan g;
    mb_plan_build(&g, &all);
    mb_plan_group_threads(&g);
    int first_threads = -1;
    for (int j = 0; j < g.n; j++) {
        int is_threads = !strcmp(g.items[j].sweep, "threads");
        if (is_threads && first_threads < 0) first_threads = j;
        if (first_threads >= 0) assert_true(is_threads);
        if (is_threads && j > first_threads) assert_true(g.items[j].cfg.threads >= g.items[j - 1].cfg.threads);
    }
    assert_int_equal(g.items[first_threads].cfg.threads, 4096);
    assert_int_equal(g.items[first_threads].cfg.spec.misaligned_reads + g.items[first_threads].cfg.spec.payload, 0);
    assert_int_equal(g.n - first_threads, 15 * 8); /* 5 variants x 3 word sizes x 2^12 .. 2^16 with x1.5 steps */
    mb_plan_free(&g);
    mb_plan_options forced = o;
    forced.blocks_per_cu = 2;
    forced.max_threads = 1LL << 24;
    mb_plan fp;
    memset(&fp, 0, sizeof fp);
    mb_plan_threads_occupancy(&fp, &forced, 4, 8);
    assert_int_equal(fp.n, 0);
    mb_plan_free(&fp);
    /* not in a plan without the sweep */
    o.sweeps = SW_WORDS;
    o.n_words = 1;
    o.words[0] = 19;
    o.max_threads = 1LL << 24;
    mb_plan p;
    mb_plan_build(&p, &o);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.threads, 0);
    mb_plan_free(&p);
}

/* A CPU's threads sweep: past max_threads, doubling, to each word size's
 * own top; the buffers sized for its largest config. */
static void test_plan_threads_top(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_THREADS, .word_bytes = 4, .block_size = 256, .fp64 = 1,
                         .max_threads = 1LL << 22, .threads_top = {12360000, 6180000, 24720000}};
    long long first, last;
    int n4 = threads_points(&o, 0, 0, 4, &first, &last);
    assert_int_equal(last, 12360000);
    int n8 = threads_points(&o, 0, 0, 8, &first, &last);
    assert_int_equal(last, 6180000);
    int n2 = threads_points(&o, 0, 0, 2, &first, &last);
    assert_int_equal(last, 24720000);
    /* 2^22 and 2^23 are points of the 4-byte curve, 2^22 the 8-byte one's
     * last but one, 2^22..2^24 of the 2-byte one */
    assert_int_equal(n4, n8 + 1);
    assert_int_equal(n2, n4 + 1);
    mb_plan p;
    mb_plan_build(&p, &o);
    int max_words = 0, max_wb = 0, min_bs = 256, at_2_22 = 0, at_2_23 = 0;
    for (int i = 0; i < p.n; i++) {
        at_2_22 += p.items[i].cfg.threads == 1LL << 22;
        at_2_23 += p.items[i].cfg.threads == 1LL << 23;
    }
    assert_int_equal(at_2_22, 15); /* 5 variants x 3 word sizes */
    assert_int_equal(at_2_23, 10);
    int64_t array_bytes = 0;
    mb_plan_limits(&p, &max_words, &max_wb, &min_bs, &array_bytes);
    assert_int_equal(array_bytes, 19LL * 8 * mb_stride(6180000)); /* just over 19 x 4 x 12360000 */
    mb_plan_free(&p);
    /* a top under max_threads changes nothing */
    o.threads_top[0] = o.threads_top[1] = o.threads_top[2] = 1000;
    assert_int_equal(threads_points(&o, 0, 0, 4, &first, &last), n4 - 2);
    assert_int_equal(last, 1LL << 22);
}

/* Items of plan p in `sweep` with w-byte words, L = l, M = m, payload and
 * this thread count (0: any), N = 19 (all the CPU plan's threads and N=19
 * misaligned items have). */
static int count_items(const mb_plan *p, const char *sweep, int w, int l, int m, int payload, long long threads)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) {
        const mb_config *c = &p->items[i].cfg;
        n += !strcmp(p->items[i].sweep, sweep) && c->spec.words == 19 && c->spec.word_bytes == w &&
             c->spec.misaligned_reads == l &&
             c->spec.misaligned_writes == m && c->spec.payload == payload && (!threads || c->threads == threads);
    }
    return n;
}

/* --aligned-only (make bench's QUICK recheck): the threads sweep at the
 * counts asked, the aligned probe alone at each word size; the rows sweep
 * aligned too (gone with --no-rows: row 0). */
static void test_plan_aligned_only(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_THREADS, .word_bytes = 4, .block_size = 256, .fp64 = 1, .cpu = 1, .row = 256,
                         .max_threads = 1LL << 24, .n_thread_counts = 3,
                         .thread_counts = {32768, 1000000, 1LL << 24}};
    for (int aligned = 0; aligned <= 1; aligned++) {
        mb_plan_options q = o;
        q.aligned_only = aligned;
        mb_plan p;
        mb_plan_build(&p, &q);
        int threads = 0, rows = 0;
        for (int i = 0; i < p.n; i++) {
            threads += !strcmp(p.items[i].sweep, "threads");
            rows += !strcmp(p.items[i].sweep, "rows");
        }
        /* 5 variants (aligned, payload, L, M, L=M) x 3 word sizes, or the aligned x 3 */
        assert_int_equal(threads, 3 * (aligned ? 3 : 15));
        /* rows: 4 + 3 variants x 3 word sizes and the folded payload in and
         * out of place x 2, or aligned in and out of place x 3 */
        assert_int_equal(rows, 3 * (aligned ? 6 : 25));
        for (int w = 2; w <= 8; w *= 2) assert_int_equal(count_items(&p, "threads", w, 0, 0, 0, 1LL << 24), 1);
        assert_int_equal(count_items(&p, "threads", 4, 10, 0, 0, 0), aligned ? 0 : 3);
        assert_int_equal(count_items(&p, "threads", 8, 0, 0, MB_PAYLOAD_COLLISION, 0), aligned ? 0 : 3);
        mb_plan_free(&p);
        q.row = 0;
        mb_plan_build(&p, &q);
        assert_int_equal(p.n, 3 * (aligned ? 3 : 15));
        mb_plan_free(&p);
    }
}

/* A CPU's plan: the threads sweep at 2^12, the cells of every lattice
 * lbmkernels runs there by default (cpucubes.h: the thread counts the
 * model reads for a row kernel) and the top, every curve the model reads
 * (aligned, payload, L, M, L=M at 2, 4 and 8 bytes); the misaligned
 * curves in steps of 5; and in all far fewer probes than a GPU's plan. */
static void test_plan_cpu(void **state)
{
    (void)state;
    const long long top = 1LL << 24;
    mb_plan_options o = {.sweeps = SW_ALL, .word_bytes = 4, .block_size = 256, .fp64 = 1, .cpu = 1,
                         .max_threads = 1LL << 22, .threads_top = {top, top, top}, .n_misaligned_n = 2,
                         .misaligned_n = {19, 27}};
    static const int words[] = {1, 2, 4, 8, 12, 16, 19, 24, 27, 32, 40};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) o.words[o.n_words++] = words[i];
    static const int variants[5][3] = {{0, 0, 0}, {0, 0, MB_PAYLOAD_COLLISION}, {10, 0, 0}, {0, 10, 0}, {10, 10, 0}};
    for (int quick = 0; quick <= 1; quick++) {
        mb_plan_options q = o;
        q.quick = quick;
        mb_plan p;
        mb_plan_build(&p, &q);
        static const int cubes[] = LBP_CPU_CUBES, quick_cubes[] = LBP_CPU_CUBES_QUICK;
        const int *list = quick ? quick_cubes : cubes, n = quick ? LBP_CPU_N_CUBES_QUICK : LBP_CPU_N_CUBES;
        for (int w = 2; w <= 8; w *= 2)
            for (int v = 0; v < 5; v++) {
                const int l = variants[v][0], m = variants[v][1], pl = variants[v][2];
                /* every lattice's cells, and the smallest count */
                for (int c = 0; c < n; c++) {
                    const long long cells = (long long)list[c] * list[c] * list[c];
                    assert_int_equal(count_items(&p, "threads", w, l, m, pl, cells), 1);
                }
                assert_int_equal(count_items(&p, "threads", w, l, m, pl, MB_THREADS_MIN), 1);
                /* nothing else: 256^3 is the top and a lattice */
                assert_int_equal(count_items(&p, "threads", w, l, m, pl, 0), n + 1);
            }
        /* misaligned at N=19 (4 and 2 bytes): x = 0, 5, 10, 15, 19; quick 0, 10, 19 */
        for (int x = 0; x <= 19; x++) {
            const int want = x % (quick ? 10 : 5) == 0 || x == 19;
            assert_int_equal(count_items(&p, "misaligned_reads", 4, x, 0, 0, 0) == 1, want);
            assert_int_equal(count_items(&p, "misaligned_writes", 2, 0, x, 0, 0) == 1, want);
        }
        /* the GPU's plan of the same options, for the length */
        mb_plan_options g = q;
        g.cpu = 0;
        mb_plan gp;
        mb_plan_build(&gp, &g);
        const int threads_items = 15 * (n + 1);
        if (!quick) {
            /* 11 + 12 words, 3 curves x 5 misaligned at N19 (4 and 2 B), 3 x 7 at N27,
             * 9 word_bytes, 18 payload, 15 x 7 threads */
            assert_int_equal(p.n, 23 + 2 * 15 + 21 + 9 + 18 + threads_items);
            assert_true(2 * p.n < gp.n);
        } else {
            assert_int_equal(threads_items, 15 * 4);
            assert_true(p.n < gp.n + 15 * 4);
        }
        mb_plan_free(&gp);
        mb_plan_free(&p);
    }
}

/* --thread-counts: the threads sweep at exactly those counts, in the order
 * given, for every variant and the fewer-blocks curves; --threads is no
 * longer a point. */
static void test_plan_thread_counts(void **state)
{
    (void)state;
    static const long long counts[] = {5000, 1000, 300000};
    mb_plan_options o = {.sweeps = SW_THREADS, .word_bytes = 4, .block_size = 256, .fp64 = 1,
                         .max_threads = 1LL << 24, .n_thread_counts = 3, .thread_counts = {5000, 1000, 300000}};
    for (int fp64 = 0; fp64 <= 1; fp64++) {
        o.fp64 = fp64;
        mb_plan p;
        mb_plan_build(&p, &o);
        /* 5 variants x 3 word sizes (no 8-byte payload without doubles) x 3 counts */
        assert_int_equal(p.n, (fp64 ? 15 : 14) * 3);
        for (int i = 0; i < p.n; i++) {
            const mb_config *c = &p.items[i].cfg;
            assert_string_equal(p.items[i].sweep, "threads");
            assert_int_equal(c->threads, counts[i % 3]);
            assert_int_equal(c->launches, MB_THREADS_LAUNCHES);
            assert_int_equal(c->block_size, 256);
            assert_int_equal(c->spec.words, 19);
            /* the three counts of one curve are one variant */
            if (i % 3) {
                const mb_config *first = &p.items[i - i % 3].cfg;
                assert_int_equal(c->spec.word_bytes, first->spec.word_bytes);
                assert_int_equal(c->spec.misaligned_reads, first->spec.misaligned_reads);
                assert_int_equal(c->spec.misaligned_writes, first->spec.misaligned_writes);
                assert_int_equal(c->spec.payload, first->spec.payload);
            }
        }
        mb_plan_free(&p);
    }
    /* quick changes nothing: the counts are the counts */
    o.quick = 1;
    mb_plan p;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 45);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.threads, counts[i % 3]);
    mb_plan_free(&p);
    o.quick = 0;
    /* the fewer-blocks curves take the same counts: 1, 2, 3, 4, 6 below 8 */
    memset(&p, 0, sizeof p);
    mb_plan_threads_occupancy(&p, &o, 8, 8);
    assert_int_equal(p.n, 5 * 3);
    static const int ks[] = {1, 2, 3, 4, 6};
    for (int i = 0; i < p.n; i++) {
        assert_int_equal(p.items[i].cfg.threads, counts[i % 3]);
        assert_int_equal(p.items[i].cfg.blocks_per_cu_requested, ks[i / 3]);
        assert_int_equal(p.items[i].cfg.spec.word_bytes, 8);
    }
    /* grouped by thread count: 1000, then 5000, then 300000 */
    mb_plan_group_threads(&p);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.threads, i < 5 ? 1000 : i < 10 ? 5000 : 300000);
    mb_plan_free(&p);
    /* one count */
    o.n_thread_counts = 1;
    o.thread_counts[0] = 77;
    o.fp64 = 0;
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 14);
    for (int i = 0; i < p.n; i++) assert_int_equal(p.items[i].cfg.threads, 77);
    mb_plan_free(&p);
}

/* ---- the geometry sweep ------------------------------------------------------- */

#define MB_DATA "tests/membench-data/"

/* tests/membench-data/lbm.csv at an L2 of 19 x 2^20 B / MB_GEOMETRY_MAX_L2:
 * the sweep's top is the working set of 131072 cells of two fp32 lattices
 * (2 x 19 x 4 B each). */
#define FIXTURE_L2 (19.0 * (1 << 20) / MB_GEOMETRY_MAX_L2)

/* the thread counts, none marked in place unless one_lattice is one of
 * them; all marked swapped (a kernel of two lattices runs them) but 8000 */
static void assert_threads_in_place(const mb_geometry *g, const long long *want, int n, long long one_lattice)
{
    assert_int_equal(g->n_threads, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(g->threads[i], want[i]);
        assert_int_equal(g->in_place[i], want[i] == one_lattice);
        assert_int_equal(g->swapped[i], want[i] != 8000);
    }
}

static void assert_threads(const mb_geometry *g, const long long *want, int n)
{
    assert_threads_in_place(g, want, n, -1);
}

static void test_read_geometries(void **state)
{
    (void)state;
    static mb_geometry g[MB_MAX_GEOMETRIES];
    char err[512] = "";
    /* merged by (block size, blocks per SM, access width), first seen first,
     * whatever backend ran the row (the OpenCL one is the fourth); the
     * 131073-cell, 2^21-cell and larger rows are over the sweep's top; the one
     * without blocks per SM, the fp64 x 2 cells per thread (16-byte) row
     * and the one of 0 cells per thread (a whole row per thread: the CPU's
     * shape, 12288 cells) are left out */
    int n = mb_read_geometries(MB_DATA "lbm.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES, err, sizeof err);
    if (n < 0) fprintf(stderr, "%s\n", err);
    assert_int_equal(n, 4);
    /* 4096 twice, 131072 (exactly the top), then 8192: sorted, distinct */
    assert_int_equal(g[0].block_size, 128);
    assert_int_equal(g[0].blocks_per_cu, 4);
    assert_int_equal(g[0].word_bytes, 4);
    assert_threads_in_place(&g[0], (const long long[]){4096, 8192, 131072}, 3, 8192); /* one A-A row at 8192 */
    /* fp32 at 2 cells per thread: 8-byte accesses, 16384 cells in 8192
     * threads; fp64 at 1 cell per thread is the same access width */
    assert_int_equal(g[1].block_size, 256);
    assert_int_equal(g[1].blocks_per_cu, 2);
    assert_int_equal(g[1].word_bytes, 8);
    assert_threads(&g[1], (const long long[]){2048, 8192}, 2);
    /* one lattice of 8000 cells: its thread count, marked in place */
    assert_int_equal(g[2].block_size, 64);
    assert_int_equal(g[2].blocks_per_cu, 8);
    assert_int_equal(g[2].word_bytes, 4);
    assert_threads_in_place(&g[2], (const long long[]){8000}, 1, 8000);
    /* the OpenCL kernel's launch, probed like the others */
    assert_int_equal(g[3].block_size, 512);
    assert_int_equal(g[3].blocks_per_cu, 1);
    assert_int_equal(g[3].word_bytes, 4);
    assert_threads(&g[3], (const long long[]){4096}, 1);

    /* no L2 size: up to 2^21 cells, whatever the working set */
    memset(g, 0, sizeof g);
    n = mb_read_geometries(MB_DATA "lbm.csv", "gpu", 0, g, MB_MAX_GEOMETRIES, err, sizeof err);
    assert_int_equal(n, 4);
    assert_int_equal(g[0].block_size, 128);
    assert_threads_in_place(&g[0], (const long long[]){4096, 8192, 131072, 131073, 2097152}, 5, 8192);
    assert_threads(&g[1], (const long long[]){2048, 8192}, 2);
    assert_threads_in_place(&g[2], (const long long[]){8000}, 1, 8000);
    /* a smaller L2: the 131072-cell row is out too */
    n = mb_read_geometries(MB_DATA "lbm.csv", "gpu", FIXTURE_L2 - 1, g, MB_MAX_GEOMETRIES, err, sizeof err);
    assert_int_equal(n, 4);
    assert_threads_in_place(&g[0], (const long long[]){4096, 8192}, 2, 8192);

    /* fp16s: 2-byte words, accesses of 2, 4 and 8 bytes at 1, 2 and 4
     * cells per thread; fp32 at one cell shares the 4-byte access of fp16s
     * at two */
    memset(g, 0, sizeof g);
    n = mb_read_geometries(MB_DATA "lbm-fp16s.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES, err, sizeof err);
    if (n < 0) fprintf(stderr, "%s\n", err);
    assert_int_equal(n, 3);
    assert_int_equal(g[0].word_bytes, 2);
    assert_int_equal(g[0].block_size, 128);
    assert_threads(&g[0], (const long long[]){4096}, 1);
    assert_int_equal(g[1].word_bytes, 4);
    assert_threads(&g[1], (const long long[]){2048, 4096}, 2);
    assert_int_equal(g[2].word_bytes, 8);
    assert_int_equal(g[2].block_size, 256);
    assert_int_equal(g[2].blocks_per_cu, 2);
    assert_int_equal(g[2].n_threads, 1);
    assert_int_equal(g[2].threads[0], 8192);
    assert_true(g[2].in_place[0] && !g[2].swapped[0]); /* A-A: one lattice */

    /* another device's file: nothing */
    assert_int_equal(mb_read_geometries(MB_DATA "lbm.csv", "other-gpu", 0, g, MB_MAX_GEOMETRIES, err, sizeof err), 0);

    /* more geometries than room for */
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "lbm.csv", "gpu", FIXTURE_L2, g, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "lbm.csv"));
    assert_non_null(strstr(err, "more than 2 launch geometries"));

    /* malformed: the file and the line */
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "lbm-bad-number.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES, err,
                                        sizeof err), -1);
    assert_non_null(strstr(err, MB_DATA "lbm-bad-number.csv:3:"));
    assert_non_null(strstr(err, "'cells'"));
    assert_non_null(strstr(err, "'4k'"));
    /* a number no int holds, where the geometry is an int: refused, never cast */
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "lbm-huge-number.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES, err,
                                        sizeof err), -1);
    assert_non_null(strstr(err, MB_DATA "lbm-huge-number.csv:3:"));
    assert_non_null(strstr(err, "'cells_per_thread'"));
    assert_non_null(strstr(err, "[0, 64], got '1e30'"));
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "lbm-missing-column.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES,
                                        err, sizeof err), -1);
    assert_non_null(strstr(err, MB_DATA "lbm-missing-column.csv:1:"));
    assert_non_null(strstr(err, "cells_per_thread"));
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "lbm-bad-precision.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES,
                                        err, sizeof err), -1);
    assert_non_null(strstr(err, MB_DATA "lbm-bad-precision.csv:4:"));
    assert_non_null(strstr(err, "fp32|fp64"));
    /* ... but only rows of the device read count: another device's are
     * nothing to probe and nothing wrong */
    assert_int_equal(mb_read_geometries(MB_DATA "lbm-bad-precision.csv", "other-gpu", FIXTURE_L2, g,
                                        MB_MAX_GEOMETRIES, err, sizeof err), 0);
    err[0] = 0;
    assert_int_equal(mb_read_geometries(MB_DATA "no-such-lbm.csv", "gpu", FIXTURE_L2, g, MB_MAX_GEOMETRIES, err,
                                        sizeof err), -1);
    assert_non_null(strstr(err, MB_DATA "no-such-lbm.csv"));
}

/* The items of one thread count of a geometry: L, M = 0/10 (L fastest),
 * without then with the collision payload (w8 without doubles: no payload). */
static void assert_geometry_items(const mb_plan_item *it, const mb_geometry *g, long long threads, int with_payload)
{
    for (int v = 0; v < (with_payload ? 8 : 4); v++) {
        const mb_config *c = &it[v].cfg;
        assert_string_equal(it[v].sweep, "geometry");
        assert_int_equal(it[v].stamps, 0);
        assert_int_equal(c->spec.words, 19);
        assert_int_equal(c->spec.word_bytes, g->word_bytes);
        assert_int_equal(c->spec.misaligned_reads, v & 1 ? 10 : 0);
        assert_int_equal(c->spec.misaligned_writes, v & 2 ? 10 : 0);
        assert_int_equal(c->spec.payload, v & 4 ? MB_PAYLOAD_COLLISION : 0);
        assert_int_equal(c->spec.stamps, 0);
        assert_int_equal(c->block_size, g->block_size);
        assert_int_equal(c->blocks_per_cu_requested, g->blocks_per_cu);
        assert_int_equal(c->threads, threads);
        assert_int_equal(c->launches, MB_THREADS_LAUNCHES);
    }
}

static void test_plan_geometry(void **state)
{
    (void)state;
    mb_plan_options o = {.sweeps = SW_GEOMETRY, .word_bytes = 4, .block_size = 256, .stamps = 1, .fp64 = 1,
                         .max_threads = 1LL << 24};
    mb_plan p;
    /* the geometry sweep is alone: nothing from mb_plan_build */
    mb_plan_build(&p, &o);
    assert_int_equal(p.n, 0);
    mb_geometry g[2] = {{.block_size = 128, .blocks_per_cu = 3, .word_bytes = 4, .threads = {4096, 65536},
                         .n_threads = 2},
                        {.block_size = 64, .blocks_per_cu = 7, .word_bytes = 8, .threads = {1000, 2000},
                         .n_threads = 2}};
    mb_plan_geometry(&p, &o, g, 1);
    assert_int_equal(p.n, 2 * 8);
    assert_geometry_items(&p.items[0], &g[0], 4096, 1);
    assert_geometry_items(&p.items[8], &g[0], 65536, 1);
    mb_plan_free(&p);
    /* 4-byte words: the payload whether or not the device has doubles */
    o.fp64 = 0;
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, g, 1);
    assert_int_equal(p.n, 16);
    mb_plan_free(&p);
    /* 8-byte words without doubles: the 4 payload-free variants per count */
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, &g[1], 1);
    assert_int_equal(p.n, 2 * 4);
    assert_geometry_items(&p.items[0], &g[1], 1000, 0);
    assert_geometry_items(&p.items[4], &g[1], 2000, 0);
    mb_plan_free(&p);
    /* both, with doubles: geometry by geometry, appended to the plan */
    o.fp64 = 1;
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, g, 2);
    assert_int_equal(p.n, 4 * 8);
    assert_geometry_items(&p.items[0], &g[0], 4096, 1);
    assert_geometry_items(&p.items[8], &g[0], 65536, 1);
    assert_geometry_items(&p.items[16], &g[1], 1000, 1);
    assert_geometry_items(&p.items[24], &g[1], 2000, 1);
    /* grouping the threads sweep leaves the geometry items where they are */
    mb_plan_group_threads(&p);
    assert_geometry_items(&p.items[0], &g[0], 4096, 1);
    assert_geometry_items(&p.items[24], &g[1], 2000, 1);
    int max_words = 0, max_wb = 0, min_bs = 256;
    int64_t array_bytes = 0;
    mb_plan_limits(&p, &max_words, &max_wb, &min_bs, &array_bytes);
    assert_int_equal(max_words, 19);
    assert_int_equal(max_wb, 8);
    assert_int_equal(min_bs, 64);
    char name[64];
    assert_string_equal(mb_config_name(&p.items[31].cfg, name, sizeof name), "N19-L10-M10-w8-b64-k7-p7");
    mb_plan_free(&p);
    /* a count marked swapped: per payload the 4 variants, then the same 4
     * swapped; one marked in place: the 4, then in place at L = M = 0 and 10 */
    mb_geometry both = {.block_size = 128, .blocks_per_cu = 4, .word_bytes = 4, .threads = {1000, 2000},
                        .in_place = {0, 1}, .swapped = {1, 1}, .n_threads = 2};
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, &both, 1);
    assert_int_equal(p.n, 16 + 20);
    for (int i = 0; i < p.n; i++) {
        const mb_config *c = &p.items[i].cfg;
        int t = i >= 16, v = (t ? i - 16 : i) % (t ? 10 : 8); /* variant within its payload */
        char why[128];
        assert_int_equal(c->threads, t ? 2000 : 1000);
        assert_int_equal(c->spec.payload, (t ? i - 16 : i) >= (t ? 10 : 8) ? MB_PAYLOAD_COLLISION : 0);
        assert_int_equal(c->spec.swapped, v >= 4 && v < 8);
        assert_int_equal(c->spec.in_place, v >= 8);
        if (v < 8) {
            assert_int_equal(c->spec.misaligned_reads, v & 1 ? 10 : 0);
            assert_int_equal(c->spec.misaligned_writes, v & 2 ? 10 : 0);
        }
        assert_int_equal(mb_spec_check(&c->spec, why, sizeof why), 0);
    }
    assert_string_equal(mb_config_name(&p.items[7].cfg, name, sizeof name), "N19-L10-M10-w4-b128-k4-sw");
    mb_plan_free(&p);
    /* a thread count marked in place: per payload the 4 variants, then in
     * place at L = M = 0 and 10 */
    mb_geometry aa = {.block_size = 128, .blocks_per_cu = 4, .word_bytes = 8, .threads = {1000, 2000},
                      .in_place = {0, 1}, .n_threads = 2};
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, &aa, 1);
    assert_int_equal(p.n, 8 + 12);
    assert_geometry_items(&p.items[0], &aa, 1000, 1);
    for (int i = 0; i < 8; i++) assert_int_equal(p.items[i].cfg.spec.in_place, 0);
    for (int pay = 0; pay <= 1; pay++) {
        const mb_plan_item *it = &p.items[8 + 6 * pay];
        for (int v = 0; v < 6; v++) {
            const mb_config *c = &it[v].cfg;
            int lm = v < 4 ? v : v == 4 ? 0 : 3;
            assert_string_equal(it[v].sweep, "geometry");
            assert_int_equal(c->spec.in_place, v >= 4);
            assert_int_equal(c->spec.misaligned_reads, lm & 1 ? 10 : 0);
            assert_int_equal(c->spec.misaligned_writes, lm & 2 ? 10 : 0);
            assert_int_equal(c->spec.payload, pay ? MB_PAYLOAD_COLLISION : 0);
            assert_int_equal(c->threads, 2000);
            assert_int_equal(c->block_size, 128);
            assert_int_equal(c->blocks_per_cu_requested, 4);
            assert_int_equal(c->launches, MB_THREADS_LAUNCHES);
            char why[128];
            assert_int_equal(mb_spec_check(&c->spec, why, sizeof why), 0);
        }
    }
    assert_string_equal(mb_config_name(&p.items[19].cfg, name, sizeof name), "N19-L10-M10-w8-b128-k4-p7-ip");
    mb_plan_free(&p);
    /* no geometries, no items */
    memset(&p, 0, sizeof p);
    mb_plan_geometry(&p, &o, g, 0);
    assert_int_equal(p.n, 0);
    mb_plan_free(&p);
}

/* The launches of a timed run (mb_run_launches): 20 as asked, or as many
 * as fill 2 ms; launches that fill long_run_ms as few as fill it, never
 * fewer than few_launches.  A CPU's 256^3 launch of 47 ms (19 4-byte words
 * each way at 54 GB/s): three a run in a full run, two with --quick's
 * window (50 ms); one of 94 ms (8-byte words) three and two; one of 23 ms
 * five and three. */
static void test_long_run_launches(void **state)
{
    (void)state;
    mb_bench full = {.long_run_ms = MB_THREADS_LONG_RUN_MS, .few_launches = MB_THREADS_FEW_LAUNCHES};
    mb_bench quick = {.long_run_ms = MB_THREADS_LONG_RUN_MS_QUICK, .few_launches = MB_THREADS_FEW_LAUNCHES_QUICK};
    assert_int_equal(mb_run_launches(&full, MB_THREADS_LAUNCHES, 47), 3);
    assert_int_equal(mb_run_launches(&quick, MB_THREADS_LAUNCHES, 47), 2);
    assert_int_equal(mb_run_launches(&full, MB_THREADS_LAUNCHES, 94), 3);
    assert_int_equal(mb_run_launches(&quick, MB_THREADS_LAUNCHES, 94), 2);
    assert_int_equal(mb_run_launches(&full, MB_THREADS_LAUNCHES, 23), 5);
    assert_int_equal(mb_run_launches(&quick, MB_THREADS_LAUNCHES, 23), 3);
    /* short launches: the same either way (20, or enough to fill 2 ms) */
    for (int i = 0; i < 2; i++) {
        const mb_bench *b = i ? &quick : &full;
        assert_int_equal(mb_run_launches(b, MB_THREADS_LAUNCHES, 1.0), MB_THREADS_LAUNCHES);
        assert_int_equal(mb_run_launches(b, MB_THREADS_LAUNCHES, 0.001), (int)ceil(MB_THREADS_RUN_MS / 0.001));
        assert_int_equal(mb_run_launches(b, MB_THREADS_LAUNCHES, 1e-9), MB_THREADS_MAX_LAUNCHES);
    }
    /* mb_bench_open sets a full run's */
    if (!dev) return;
    mb_bench b;
    open_bench(&b, 19, 4);
    assert_true(b.long_run_ms == MB_THREADS_LONG_RUN_MS);
    assert_int_equal(b.few_launches, MB_THREADS_FEW_LAUNCHES);
    mb_bench_close(&b);
}

static void test_threads_probe(void **state)
{
    (void)state;
    if (!dev) skip();
    mb_bench b;
    char why[512];
    open_bench(&b, 19, 8);
    int64_t bench_stride = b.stride;
    for (int wi = 0; wi < N_WORD_SIZES; wi++) {
        const int w = word_sizes[wi];
        mb_config cfg = {.spec = {.words = 19, .word_bytes = w}, .block_size = 256, .threads = 300,
                         .launches = MB_THREADS_LAUNCHES};
        mb_result res;
        int rc = mb_run_probe(&b, &cfg, 1, 2, &res, why, sizeof why);
        if (rc) fprintf(stderr, "%s\n", why);
        assert_int_equal(rc, 0);
        assert_int_equal(res.threads, 300);
        /* the launches of a run: 20 at least, as many as fill MB_THREADS_RUN_MS, at most the cap;
         * fewer (never below the floor) where a loaded machine stretched the pilot launch past
         * long_run_ms / 20 (mb_run_launches, tested exactly in test_long_run_launches) */
        assert_true(res.cfg.launches >= LAUNCH_FLOOR && res.cfg.launches <= MB_THREADS_MAX_LAUNCHES);
        assert_int_equal(res.bytes_moved, 2LL * 19 * w * 300);
        NEAR_REL(res.ns_per_thread, res.ms.median * 1e6 / 300);
        assert_true(res.ms.min <= res.ms.median && res.ms.median <= res.ms.max);
        /* the bench is back at its own size */
        assert_int_equal(b.threads, TEST_THREADS);
        assert_int_equal(b.stride, bench_stride);
        /* independent of the verify kernel: the compact layout of 300 cells */
        int64_t stride = mb_bench_stride(&b, 300, w);
        b.stride = stride;
        uint64_t *got = malloc(sizeof *got * (size_t)stride);
        for (int k = 0; k < 19; k++) {
            read_array(&b, k, got, w);
            uint64_t sw = got[1] ^ mb_pattern((uint64_t)(k * stride + 1), w);
            uint32_t seed = (uint32_t)(w == 8 ? sw >> 32 : sw);
            for (int64_t j = 0; j < stride; j++)
                if (got[j] != mb_expected(&cfg.spec, stride, 300, seed, 1, k, j)) {
                    fprintf(stderr, "w%d array %d element %lld: 0x%llx\n", w, k, (long long)j,
                            (unsigned long long)got[j]);
                    fail();
                }
        }
        free(got);
        b.stride = bench_stride;
    }
    /* more threads than the bench's, in the bytes its buffers hold (19
     * 8-byte words at 1000 threads: 19 4-byte words at 2000): run and
     * verified on their own layout; past those bytes, or with per-warp
     * stamps (sized for the bench's threads), refused */
    /* on a CPU the arrays are skewed, and each may reach a page further */
    const int64_t margin = lbp_is_cpu(&dev->info) ? 19 * 4096 : 0;
    for (int w = 2; w <= 8 && margin; w *= 2) /* 2^20 words of any size: a multiple of 4 KiB unskewed */
        assert_int_equal(mb_bench_stride(&b, 1 << 20, w) * w % 4096, LBP_CPU_SKEW);
    assert_int_equal(b.array_bytes, 19 * 8 * mb_bench_stride(&b, TEST_THREADS, 8) + margin);
    mb_config more = {.spec = {.words = 19, .word_bytes = 4}, .block_size = 256, .threads = 2 * TEST_THREADS,
                      .launches = 2};
    mb_result res;
    int rc = mb_run_probe(&b, &more, 1, 1, &res, why, sizeof why);
    if (rc) fprintf(stderr, "%s\n", why);
    assert_int_equal(rc, 0);
    assert_int_equal(res.threads, 2 * TEST_THREADS);
    assert_int_equal(b.threads, TEST_THREADS);
    mb_config big = more;
    big.threads = 2 * TEST_THREADS + 2000; /* past the bytes and any margin */
    assert_int_equal(mb_run_probe(&b, &big, 1, 1, &res, why, sizeof why), 2);
    assert_non_null(strstr(why, "buffers sized for"));
    big = (mb_config){.spec = {.words = 19, .word_bytes = 8}, .block_size = 256, .threads = 2 * TEST_THREADS};
    assert_int_equal(mb_run_probe(&b, &big, 1, 1, &res, why, sizeof why), 2);
    big = more;
    big.spec.stamps = 1;
    assert_int_equal(mb_run_probe(&b, &big, 1, 1, &res, why, sizeof why), 2);
    mb_bench_close(&b);
    /* a bench opened for more bytes than its own threads' (mb_plan_limits) */
    char why2[512];
    assert_int_equal(mb_bench_open(&b, dev, TEST_THREADS, 19, 4, 19 * 8 * mb_stride(3000), 64, why2, sizeof why2), 0);
    assert_int_equal(b.array_bytes, 19 * 8 * mb_stride(3000) + margin);
    more.threads = 6000;
    assert_int_equal(mb_run_probe(&b, &more, 1, 1, &res, why, sizeof why), 0);
    mb_bench_close(&b);
}

/* ---- the command line ---------------------------------------------------------- */

static int run_cli(const char *args, char *err, size_t err_len)
{
    char cmd[1024];
    const char *bin = access("./membench/membench", X_OK) == 0 ? "./membench/membench" : "../membench/membench";
    snprintf(cmd, sizeof cmd, "%s %s --out /tmp/test_membench_out.%d 2>&1 >/dev/null", bin, args, (int)getpid());
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t n = fread(err, 1, err_len - 1, f);
    err[n] = 0;
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void test_cli_bad_usage_exits_2_with_one_line(void **state)
{
    (void)state;
    static const char *const bad_flags[] = {"--words 0", "--words 1,x", "--word-bytes 6", "--misaligned 0",
                                            "--sweeps words,foo", "--threads 0", "--reps 0", "extra",
                                            "--block-size 0"};
    char err[4096];
    for (size_t i = 0; i < sizeof bad_flags / sizeof *bad_flags; i++) {
        int rc = run_cli(bad_flags[i], err, sizeof err);
        if (rc != 2 || count_lines(err) != 1) fprintf(stderr, "'%s' -> %d:\n%s", bad_flags[i], rc, err);
        assert_int_equal(rc, 2);
        assert_int_equal(count_lines(err), 1);
    }
    /* getopt names the option, core adds a pointer to --help */
    assert_int_equal(run_cli("--bogus", err, sizeof err), 2);
    assert_non_null(strstr(err, "bogus"));
    assert_true(count_lines(err) <= 2);
    if (!have_pocl) return;
    /* impossible configurations on a real device */
    static const char *const impossible[] = {"--backend opencl --sweeps words --words 19 --block-size 65536",
                                             "--backend opencl --sweeps words --threads 2147483648"};
    for (size_t i = 0; i < sizeof impossible / sizeof *impossible; i++) {
        int rc = run_cli(impossible[i], err, sizeof err);
        if (rc != 2 || count_lines(err) != 1) fprintf(stderr, "'%s' -> %d:\n%s", impossible[i], rc, err);
        assert_int_equal(rc, 2);
        assert_int_equal(count_lines(err), 1);
    }
    assert_non_null(strstr(err, "memory too small"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/test_membench_out.%d", (int)getpid());
    assert_int_equal(system(cmd), 0);
}

/* membench --sweeps threads,payload on PoCL: per-launch rows marked
 * back_to_back, every variant of the threads sweep at both thread counts,
 * the payload sweep's row with its operation count. */
static void test_cli_threads_sweep(void **state)
{
    (void)state;
    LBP_FULL_ONLY(); /* every sweep's probes compiled through PoCL: a minute of a cold 2-core machine */
    if (!have_pocl) skip();
    char err[8192], path[256];
    int rc = run_cli("--backend opencl --sweeps threads,payload --quick --threads 16384 --reps 2", err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    snprintf(path, sizeof path, "/tmp/test_membench_out.%d/membench.csv", (int)getpid());
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int rows = 0, payload_rows = 0, seen[3][5][2] = {{{0}}}; /* by mb_word_slot */
    int rows_rows[3][2] = {{0}}; /* the rows sweep by word size (mb_word_slot), in place */
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, ",threads,"));
    assert_non_null(strstr(line, ",timing,ops"));
    while (fgets(line, sizeof line, f)) {
        char sweep[32], timing[32];
        int words, wb, l, m, bs, ops, launches;
        long long threads, bytes;
        /* device,backend,sweep,words,word_bytes,L,M,block_size,k,blocks,occupancy,threads,bytes_moved,reps,
         * ms_min,ms_median,ms_max,gbs_max,gbs_median,ns_per_thread,timing,ops,launches */
        double ms_min, ms_median, ms_max, ns;
        int n = sscanf(line, "%*[^,],%*[^,],%31[^,],%d,%d,%d,%d,%d,%*[^,],%*[^,],%*[^,],%lld,%lld,%*d,%lf,%lf,%lf,%*[^,],%*[^,],%lf,%31[^,],%d,%d",
                       sweep, &words, &wb, &l, &m, &bs, &threads, &bytes, &ms_min, &ms_median, &ms_max, &ns, timing, &ops,
                       &launches);
        assert_int_equal(n, 15);
        assert_int_equal(words, 19);
        assert_int_equal(bytes, 2LL * 19 * wb * threads);
        assert_true(ms_min <= ms_median && ms_median <= ms_max);
        if (!strcmp(sweep, "payload")) {
            assert_string_equal(timing, "events");
            assert_int_equal(launches, 1);
            assert_int_equal(ops, 151);
            assert_int_equal(l + m, 0);
            payload_rows++;
            continue;
        }
        if (!strcmp(sweep, "rows")) { /* a CPU, quick: the aligned probe, 256 cells a work-item, in place or not */
            assert_string_equal(timing, "back_to_back");
            assert_int_equal(l + m + ops, 0);
            assert_non_null(strstr(line, ",256,32,0,0,0,normal,masked\n")); /* row R, band 32, no tile; PoCL: no non-temporal stores */
            rows_rows[mb_word_slot(wb)][strstr(line, ",1,0,1,256,32,0,0,0,normal,masked\n") != NULL]++;
            continue;
        }
        assert_string_equal(sweep, "threads");
        assert_string_equal(timing, "back_to_back");
        /* runs fill MB_THREADS_RUN_MS, in MB_THREADS_LAUNCHES launches at least (LAUNCH_FLOOR) */
        assert_true(launches >= LAUNCH_FLOOR && launches <= MB_THREADS_MAX_LAUNCHES);
        assert_true(fabs(ns - ms_median * 1e6 / threads) <= 1e-3 * ns + 1e-6);
        assert_true(threads == 4096 || threads == 16384);
        assert_true(ops == 0 || ops == 151);
        int v = ops ? 1 : l && m ? 4 : m ? 3 : l ? 2 : 0;
        seen[mb_word_slot(wb)][v][threads == 16384]++;
        rows++;
    }
    fclose(f);
    int fp64 = seen[1][1][0] > 0; /* PoCL without doubles: no 8-byte payload */
    assert_int_equal(rows, 2 * (14 + fp64));
    assert_int_equal(payload_rows, 2 + fp64);
    for (int i = 0; i < 6; i++) assert_int_equal(rows_rows[i / 2][i % 2], 2); /* 4096 and 16384 cells */
    for (int i = 0; i < 3; i++)
        for (int v = 0; v < 5; v++)
            for (int j = 0; j < 2; j++) assert_int_equal(seen[i][v][j], i == 1 && v == 1 && !fp64 ? 0 : 1);
    /* the payload sweep alone writes membench.csv too */
    rc = run_cli("--backend opencl --sweeps payload --quick --threads 4096 --reps 2 --force", err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    payload_rows = 0;
    while (fgets(line, sizeof line, f)) payload_rows += strstr(line, ",payload,19,") != NULL;
    fclose(f);
    assert_int_equal(payload_rows, 2 + fp64);
    /* the occupancy sweep alone: its buffers hold the 8-byte payload variant
     * (they were once sized for the default word alone: "internal: buffers
     * sized for 19 words of 4 B") */
    rc = run_cli("--backend opencl --sweeps occupancy --threads 4096 --reps 2 --force", err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    int at_256 = 0, eight_byte_payload = 0; /* OpenCL: every block size, as many blocks as fit */
    while (fgets(line, sizeof line, f)) {
        const char *sweep = strstr(line, ",occupancy,19,");
        int w, l, m, bs;
        assert_non_null(sweep);
        assert_int_equal(sscanf(sweep, ",occupancy,19,%d,%d,%d,%d,", &w, &l, &m, &bs), 4);
        at_256 += bs == 256;
        eight_byte_payload += bs == 256 && w == 8 && strstr(line, ",events,0,") == NULL;
    }
    fclose(f);
    /* aligned, payload (4, 8 and 2 B), L = 10, M = 10, 8 B aligned and M = 10,
     * 2 B aligned and M = 10 */
    assert_int_equal(at_256, 7 + 3 * fp64);
    assert_int_equal(eight_byte_payload, fp64);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/test_membench_out.%d", (int)getpid());
    assert_int_equal(system(cmd), 0);
}

static char *read_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    size_t got;
    while ((got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) s = realloc(s, cap *= 2);
    }
    s[n] = 0;
    fclose(f);
    return s;
}

static void out_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/test_membench_out.%d/%s", (int)getpid(), name);
}

static void remove_out(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/test_membench_out.%d", (int)getpid());
    assert_int_equal(system(cmd), 0);
}

/* --thread-counts on PoCL: the threads sweep's rows at exactly those
 * counts; a count over --threads is a usage error. */
static void test_cli_thread_counts(void **state)
{
    (void)state;
    char err[8192], path[256];
    assert_int_equal(run_cli("--thread-counts 0", err, sizeof err), 2);
    assert_int_equal(count_lines(err), 1);
    assert_int_equal(run_cli("--thread-counts 100,x", err, sizeof err), 2);
    assert_int_equal(count_lines(err), 1);
    if (!have_pocl) skip();
    remove_out();
    int rc = run_cli("--backend opencl --sweeps threads --thread-counts 5000,4096 --threads 4096", err, sizeof err);
    assert_int_equal(rc, 2);
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, "5000"));
    rc = run_cli("--backend opencl --sweeps threads --quick --thread-counts 3000,5000 --reps 2", err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    out_path(path, sizeof path, "membench.csv");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int rows = 0, row_rows = 0, at[2] = {0, 0};
    assert_non_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char sweep[32];
        long long threads;
        int n = sscanf(line, "%*[^,],%*[^,],%31[^,],%*d,%*d,%*d,%*d,%*d,%*[^,],%*[^,],%*[^,],%lld", sweep, &threads);
        assert_int_equal(n, 2);
        assert_true(threads == 3000 || threads == 5000);
        if (!strcmp(sweep, "rows")) { /* a CPU's rows sweep, quick: 6 aligned curves at each count */
            row_rows++;
            continue;
        }
        assert_string_equal(sweep, "threads");
        at[threads == 5000]++;
        rows++;
    }
    fclose(f);
    /* 5 variants x 3 word sizes (no 8-byte payload without doubles) per count */
    assert_true(rows == 2 * 14 || rows == 2 * 15);
    assert_int_equal(row_rows, 2 * 6);
    assert_int_equal(at[0], at[1]);
    remove_out();
}

/* make bench's recheck on PoCL (a CPU): --no-rows, and with QUICK
 * --aligned-only: the threads sweep alone, aligned with QUICK. */
static void test_cli_recheck_probes(void **state)
{
    (void)state;
    char err[8192], path[256], args[256];
    if (!have_pocl) skip();
    for (int aligned = 0; aligned <= 1; aligned++) {
        remove_out();
        snprintf(args, sizeof args, "--backend opencl --sweeps threads --quick --thread-counts 3000,5000 --reps 2 %s",
                 aligned ? "--no-rows --aligned-only" : "--no-rows");
        const int rc = run_cli(args, err, sizeof err);
        if (rc) fprintf(stderr, "%s", err);
        assert_int_equal(rc, 0);
        out_path(path, sizeof path, "membench.csv");
        char *text = read_whole(path), *save = NULL;
        assert_non_null(text);
        assert_non_null(strtok_r(text, "\n", &save)); /* the header */
        int rows = 0, misaligned = 0;
        for (char *row; (row = strtok_r(NULL, "\n", &save));) {
            char sweep[32];
            int l, m;
            assert_int_equal(sscanf(row, "%*[^,],%*[^,],%31[^,],%*d,%*d,%d,%d", sweep, &l, &m), 3);
            assert_string_equal(sweep, "threads");
            misaligned += l || m;
            rows++;
        }
        free(text);
        if (aligned) {
            assert_int_equal(rows, 2 * 3); /* the aligned probe at 2, 4 and 8 bytes per count */
            assert_int_equal(misaligned, 0);
        } else {
            assert_true(rows == 2 * 14 || rows == 2 * 15);
            assert_int_equal(misaligned, 2 * 9);
        }
    }
    remove_out();
}

/* A copy of fixture `name` whose rows of device "cpu" are PoCL's device
 * (membench reads the rows of the device it runs on); its path in *path. */
static void with_pocl_slug(const char *name, char *path, size_t len)
{
    char src[256];
    snprintf(src, sizeof src, MB_DATA "%s", name);
    snprintf(path, len, "/tmp/test_membench_in.%d", (int)getpid());
    mkdir(path, 0700);
    snprintf(path, len, "/tmp/test_membench_in.%d/%s", (int)getpid(), name);
    char *text = read_whole(src);
    assert_non_null(text);
    void *pocl = "opencl";
    assert_int_equal(lbp_test_open_device(&pocl), 0);
    assert_non_null(pocl);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        const int cpu = !strncmp(line, "cpu,", 4);
        fprintf(f, "%s%s\n", cpu ? ((lbp_device *)pocl)->info.slug : "", cpu ? line + 3 : line);
    }
    assert_int_equal(fclose(f), 0);
    free(text);
}

/* membench --geometry-from KERNEL_FILE --size LIST: the file's launch
 * (rows of 64 threads, 2 blocks per SM, 4-byte words, two lattices) at the
 * threads it launches on each lattice; a lattice leaving threads idle is
 * skipped with a warning, and only such lattices, or a file without blocks
 * per SM, is exit 2 with the file named. */
static void test_cli_geometry_kernel(void **state)
{
    (void)state;
    char err[16384], kfile[128], plain[128], args[512], path[256];
    snprintf(kfile, sizeof kfile, "/tmp/test_membench_geo.%d.kernel", (int)getpid());
    snprintf(plain, sizeof plain, "/tmp/test_membench_geo_plain.%d.kernel", (int)getpid());
    FILE *f = fopen(kfile, "w");
    assert_non_null(f);
    fputs("name = g\nwords_read = 19\nmisaligned_reads = 10\nlaunch = rows\nblock_size = 64\nblocks_per_sm = 2\n", f);
    assert_int_equal(fclose(f), 0);
    f = fopen(plain, "w");
    assert_non_null(f);
    fputs("name = p\nwords_read = 19\nlaunch = rows\nblock_size = 64\n", f);
    assert_int_equal(fclose(f), 0);
    /* --size without --kernel or --geometry-from: usage */
    assert_int_equal(run_cli("--size 64x8x8", err, sizeof err), 2);
    assert_non_null(strstr(err, "--geometry-from KERNEL_FILE"));
    if (!have_pocl) {
        remove(kfile), remove(plain);
        skip();
    }
    remove_out();
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --size 100x4x4 --quick --reps 2", kfile);
    int rc = run_cli(args, err, sizeof err);
    if (rc != 2) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(err, "21.9 % of its threads idle"));
    assert_non_null(strstr(err, "no geometry to probe"));
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --size 64x8x8 --quick --reps 2", plain);
    assert_int_equal(run_cli(args, err, sizeof err), 2);
    assert_non_null(strstr(err, plain));
    assert_non_null(strstr(err, "blocks per SM"));
    out_path(path, sizeof path, "membench-geometry.csv");
    assert_int_not_equal(access(path, F_OK), 0);
    /* 64x8x8 and 128x16x8: 4096 and 16384 threads; 100x4x4 skipped */
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --size 64x8x8,100x4x4,128x16x8 --quick --reps 2",
             kfile);
    rc = run_cli(args, err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(err, "100x4x4 leaves"));
    f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    int rows = 0, swapped = 0;
    while (fgets(line, sizeof line, f)) {
        int words, wb, bs, k_req, sw;
        long long threads;
        int n = sscanf(line, "%*[^,],%*[^,],%*[^,],%d,%d,%*d,%*d,%d,%d,%*[^,],%*[^,],%lld,%*[^,],%*[^,],%*[^,],%*[^,],"
                             "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],%d",
                       &words, &wb, &bs, &k_req, &threads, &sw);
        assert_int_equal(n, 6);
        assert_int_equal(words, 19);
        assert_int_equal(wb, 4);
        assert_int_equal(bs, 64);
        assert_int_equal(k_req, 2);
        assert_true(threads == 4096 || threads == 16384);
        swapped += sw;
        rows++;
    }
    fclose(f);
    assert_true(rows > 0 && swapped > 0); /* two lattices: the swapped probe too */
    remove(kfile), remove(plain);
    remove_out();
}

/* membench --geometry-from on PoCL.  OpenCL cannot force blocks per SM: a
 * row that names them runs unconstrained (blocks_per_cu -1), one that
 * does not is no geometry at all. */
static void test_cli_geometry_sweep(void **state)
{
    (void)state;
    char err[16384], path[256], meta[256], lbm[256], no_blocks[256], args[768];
    /* alone: with --sweeps or --thread-counts a usage error, before any device */
    static const char *const bad[] = {"--geometry-from " MB_DATA "opencl-lbm.csv --sweeps threads",
                                      "--sweeps words --geometry-from " MB_DATA "opencl-lbm.csv",
                                      "--geometry-from " MB_DATA "opencl-lbm.csv --thread-counts 4096"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = run_cli(bad[i], err, sizeof err);
        if (rc != 2 || count_lines(err) != 1) fprintf(stderr, "'%s' -> %d:\n%s", bad[i], rc, err);
        assert_int_equal(rc, 2);
        assert_int_equal(count_lines(err), 1);
        assert_non_null(strstr(err, "--geometry-from"));
    }
    if (!have_pocl) skip();
    remove_out();
    with_pocl_slug("opencl-lbm.csv", lbm, sizeof lbm);
    with_pocl_slug("opencl-no-blocks-lbm.csv", no_blocks, sizeof no_blocks);
    out_path(path, sizeof path, "membench-geometry.csv");
    out_path(meta, sizeof meta, "membench-geometry-meta.csv");
    /* a missing file: named, nothing written; missing input is a usage
     * error (exit 2), as in every tool */
    int rc = run_cli("--backend opencl --geometry-from " MB_DATA "no-such-lbm.csv --reps 2", err, sizeof err);
    if (rc != 2 || count_lines(err) != 1) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 2);
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, MB_DATA "no-such-lbm.csv"));
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_not_equal(access(meta, F_OK), 0);
    /* only rows without blocks per SM (and a row of another device): no
     * geometry, one line */
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --reps 2", no_blocks);
    rc = run_cli(args, err, sizeof err);
    if (rc != 1 || count_lines(err) != 1) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 1);
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, no_blocks));
    assert_non_null(strstr(err, "no geometry"));
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_not_equal(access(meta, F_OK), 0);
    /* a malformed file: file and line, a usage error */
    rc = run_cli("--backend opencl --geometry-from " MB_DATA "lbm-missing-column.csv --reps 2", err, sizeof err);
    assert_int_equal(rc, 2);
    assert_int_equal(count_lines(err), 1);
    assert_non_null(strstr(err, MB_DATA "lbm-missing-column.csv:1:"));
    assert_int_not_equal(access(path, F_OK), 0);

    /* two OpenCL rows at block size 64, 1 block per SM: 4096 and 8192 threads */
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --quick --reps 2", lbm);
    rc = run_cli(args, err, sizeof err);
    if (rc) fprintf(stderr, "%s", err);
    assert_int_equal(rc, 0);
    out_path(err, sizeof err, "membench.csv"); /* the geometry sweep writes its own files only */
    assert_int_not_equal(access(err, F_OK), 0);
    out_path(err, sizeof err, "membench-meta.csv");
    assert_int_not_equal(access(err, F_OK), 0);
    char *before = read_whole(path);
    assert_non_null(before);
    char *m = read_whole(meta);
    assert_non_null(m);
    assert_non_null(strstr(m, "tool,membench-geometry\n"));
    snprintf(args, sizeof args, "geometry_from,%s\n", lbm);
    assert_non_null(strstr(m, args));
    free(m);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "device,backend,sweep,words,word_bytes,misaligned_reads,misaligned_writes,block_size,"
                              "blocks_per_cu_requested,blocks_per_cu,occupancy,threads,bytes_moved,reps,ms_min,"
                              "ms_median,ms_max,gbs_max,gbs_median,ns_per_thread,timing,ops,launches,in_place,swapped,"
                              "vector,row,band,tile_x,tile_y,tile_z,stores,payload_form\n");
    int rows = 0, seen[2][32] = {{0}};
    long long prev_threads = 0;
    while (fgets(line, sizeof line, f)) {
        char backend[32], sweep[32], timing[32];
        int words, wb, l, m, bs, k_req, k, reps, ops, launches, ip, sw;
        long long threads, bytes;
        double ms_min, ms_median, ms_max;
        int n = sscanf(line, "%*[^,],%31[^,],%31[^,],%d,%d,%d,%d,%d,%d,%d,%*[^,],%lld,%lld,%d,%lf,%lf,%lf,%*[^,],"
                             "%*[^,],%*[^,],%31[^,],%d,%d,%d,%d",
                       backend, sweep, &words, &wb, &l, &m, &bs, &k_req, &k, &threads, &bytes, &reps, &ms_min,
                       &ms_median, &ms_max, timing, &ops, &launches, &ip, &sw);
        assert_int_equal(n, 20);
        assert_string_equal(backend, "opencl");
        assert_string_equal(sweep, "geometry");
        assert_int_equal(words, 19);
        assert_int_equal(wb, 4);
        assert_int_equal(bs, 64);
        assert_int_equal(k_req, 1);
        assert_int_equal(k, -1); /* OpenCL: unconstrained, cannot tell */
        assert_true(threads == 4096 || threads == 8192);
        assert_true(threads >= prev_threads); /* every variant of one count together */
        prev_threads = threads;
        assert_int_equal(bytes, 2LL * 19 * 4 * threads);
        assert_int_equal(reps, 2);
        assert_true(ms_min > 0 && ms_min <= ms_median && ms_median <= ms_max);
        assert_string_equal(timing, "back_to_back");
        assert_true(launches >= LAUNCH_FLOOR && launches <= MB_THREADS_MAX_LAUNCHES);
        assert_true((l == 0 || l == 10) && (m == 0 || m == 10));
        assert_true(ops == 0 || ops == 151);
        assert_true(ip == 0 || (ip == 1 && l == m && threads == 8192)); /* the A-A row's count */
        assert_true(sw == 0 || (sw == 1 && !ip));                        /* both counts have a push row */
        seen[threads == 8192][(l ? 1 : 0) | (m ? 2 : 0) | (ops ? 4 : 0) | (ip ? 8 : 0) | (sw ? 16 : 0)]++;
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 16 + 20);
    for (int t = 0; t < 2; t++)
        for (int v = 0; v < 32; v++)
            assert_int_equal(seen[t][v], v < 8 || (v >= 16 && v < 24) ||
                                             (t == 1 && v >= 8 && v < 16 && ((v & 3) == 0 || (v & 3) == 3)));
    /* again without --force: refused, the file kept as it was */
    snprintf(args, sizeof args, "--backend opencl --geometry-from %s --quick --reps 2", lbm);
    rc = run_cli(args, err, sizeof err);
    assert_int_not_equal(rc, 0);
    assert_non_null(strstr(err, "membench-geometry"));
    assert_non_null(strstr(err, "--force"));
    char *after = read_whole(path);
    assert_non_null(after);
    assert_string_equal(after, before);
    free(after);
    free(before);
    remove_out();
    snprintf(args, sizeof args, "rm -rf /tmp/test_membench_in.%d", (int)getpid());
    assert_int_equal(system(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_is_straight_line_and_rejects_bad_specs),
        cmocka_unit_test(test_record_counts_bytes),
        cmocka_unit_test(test_generator_in_place),
        cmocka_unit_test(test_generator_swapped),
        cmocka_unit_test(test_nvrtc_compiles_generated_kernels),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_probes_run_correctly, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_misaligned_probe_touches_index_plus_one, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_verifier_catches_planted_errors, probe_setup, NULL),
        cmocka_unit_test(test_vector_probe_ptx),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_vector_probe, probe_setup, NULL),
        cmocka_unit_test(test_row_probe_text),
        cmocka_unit_test(test_nontemporal_probe_text),
        cmocka_unit_test(test_row_half_payload_text),
        cmocka_unit_test(test_plan_rows_nontemporal),
        cmocka_unit_test(test_band_cells),
        cmocka_unit_test(test_tile_cells),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_tile_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_narrow_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_row_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_nontemporal_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_in_place_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_swapped_probe, probe_setup, NULL),
        cmocka_unit_test(test_occupancy_search_reaches_k_exactly),
        cmocka_unit_test(test_stamp_summary),
        cmocka_unit_test(test_plan_sweeps),
        cmocka_unit_test(test_plan_payload),
        cmocka_unit_test(test_plan_vector),
        cmocka_unit_test(test_plan_occupancy_vector),
        cmocka_unit_test(test_plan_narrow),
        cmocka_unit_test(test_plan_tile),
        cmocka_unit_test(test_plan_threads),
        cmocka_unit_test(test_plan_thread_counts),
        cmocka_unit_test(test_plan_threads_top),
        cmocka_unit_test(test_plan_cpu),
        cmocka_unit_test(test_plan_aligned_only),
        cmocka_unit_test(test_read_geometries),
        cmocka_unit_test(test_plan_geometry),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_threads_probe, probe_setup, NULL),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_long_run_launches, probe_setup, NULL),
        cmocka_unit_test(test_cli_bad_usage_exits_2_with_one_line),
        cmocka_unit_test(test_cli_threads_sweep),
        cmocka_unit_test(test_cli_thread_counts),
        cmocka_unit_test(test_cli_recheck_probes),
        cmocka_unit_test(test_cli_geometry_sweep),
        cmocka_unit_test(test_cli_geometry_kernel),
    };
    return cmocka_run_group_tests(tests, group_setup, lbp_test_close_devices);
}
