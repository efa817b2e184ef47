/* stream/: the generator (records, NVRTC for sm_90, runs on PoCL and OpenMP),
 * verification catching planted errors, transfers, likwid parsing, and the
 * command line's exit statuses.  Runs from the repository root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../stream/bench.h"
#include "backends.h"
#include "csv.h"
#include "device.h"
#include "../stream/gen.h"
#include "../stream/likwid.h"
#include "../stream/plan.h"
#include "../stream/transfer.h"

static const stream_reps quick_reps = {.fixed_reps = 2, .min_reps = 2, .max_reps = 2,
                                       .target_ms = 1, .warmup = 0, .scatter_warn = 1e9};

/* ---- the generator's record ---------------------------------------------- */

static void test_record_counts_bytes(void **state)
{
    (void)state;
    for (int w = 0; stream_word_sizes[w]; w++)
        for (int a = 0; a < STREAM_ACCESS_COUNT; a++) {
            int wb = stream_word_sizes[w];
            stream_config cfg = {.word_bytes = wb, .access = (stream_access)a, .block_size = 128,
                                 .blocks = 7, .elements = 1001};
            stream_kernel k;
            char why[256];
            assert_int_equal(stream_generate(&cfg, &k, why, sizeof why), 0);
            assert_int_equal(k.record.word_bytes, wb);
            assert_int_equal(k.record.elements, 1001);
            assert_int_equal(k.record.bytes_read_per_element, wb);
            assert_int_equal(k.record.bytes_written_per_element, wb);
            assert_int_equal(stream_array_bytes(&k.record), 1001 * wb);
            assert_int_equal(stream_bytes_moved(&k.record), 2 * 1001 * wb);
            assert_int_equal(k.block_size, 128);
            /* one per thread: enough blocks to cover every element; a row
             * per thread: enough for every row of STREAM_ROW_ELEMENTS;
             * stride: as asked */
            assert_int_equal(k.blocks, a == STREAM_ACCESS_ONE   ? (1001 + 127) / 128
                                       : a == STREAM_ACCESS_ROW ? ((1001 + 255) / 256 + 127) / 128
                                                                : 7);
            if (a == STREAM_ACCESS_ROW) assert_non_null(strstr(k.source, "#pragma omp simd"));
            assert_non_null(strstr(k.source, stream_word_type(wb)));
            assert_non_null(strstr(k.source, k.entry));
        }
    stream_record r = stream_driver_copy_record(4096);
    assert_int_equal(stream_array_bytes(&r), 4096);
    assert_int_equal(stream_bytes_moved(&r), 8192);
}

/* The input pattern as 2-byte words: no element equals the poison's half
 * at its position, and a copy from an index shifted by 1..65535 elements
 * differs within any 8 elements (at the start, across the turn of the low
 * half at 2^15 u32 and far out); as u32 no two of a stretch agree. */
static uint16_t pattern_element(uint64_t e)
{
    uint32_t p = stream_pattern(e / 2);
    return (uint16_t)(e % 2 ? p >> 16 : p & 0xffffu);
}

static void test_pattern_halves(void **state)
{
    (void)state;
    const uint64_t starts[] = {65536, (1u << 16) + 65530, (1u << 30) - 3};
    for (size_t s0 = 0; s0 < sizeof starts / sizeof *starts; s0++)
        for (uint64_t d = 1; d < 65536; d++) {
            int differs = 0;
            for (uint64_t e = starts[s0]; e < starts[s0] + 8; e++)
                differs |= pattern_element(e) != pattern_element(e - d);
            if (!differs) fail_msg("a copy shifted by %llu elements passes at %llu", (unsigned long long)d,
                                   (unsigned long long)starts[s0]);
        }
    for (uint64_t j = 0; j < 200000; j++) {
        uint32_t p = stream_pattern(j);
        assert_true((p & 0xffffu) != (STREAM_POISON & 0xffffu) && (p >> 16) != (STREAM_POISON >> 16));
        for (uint64_t d = 1; d < 4 && d <= j; d++) assert_true(stream_pattern(j - d) != p);
    }
    assert_true(stream_pattern(5) != stream_pattern(5 + (1u << 15)) && stream_pattern(5) != stream_pattern(5 + (1u << 29)));
}

static void test_generator_refuses_bad_configs(void **state)
{
    (void)state;
    stream_kernel k;
    char why[256];
    const stream_config good = {.word_bytes = 16, .access = STREAM_ACCESS_STRIDE, .block_size = 256,
                                .blocks = 4, .elements = 100};
    stream_config bad[5] = {good, good, good, good, good};
    bad[0].word_bytes = 12;
    bad[1].block_size = 0;
    bad[2].elements = 0;
    bad[3].blocks = 0;
    bad[4].access = STREAM_ACCESS_ONE;
    bad[4].block_size = 1;
    bad[4].elements = (int64_t)1 << 40; /* more than 2^31-1 blocks */
    for (int i = 0; i < 5; i++) {
        why[0] = 0;
        assert_int_equal(stream_generate(&bad[i], &k, why, sizeof why), -1);
        assert_true(strlen(why) > 0);
    }
    assert_int_equal(stream_generate(&good, &k, why, sizeof why), 0);
}

/* ---- NVRTC: every kernel text the generator can emit --------------------- */

static void test_every_config_compiles_for_sm90(void **state)
{
    (void)state;
    int checked = 0;
    for (int w = 0; stream_word_sizes[w]; w++)
        for (int a = 0; a < STREAM_ACCESS_COUNT; a++)
            for (int planted = 0; planted < 2; planted++) {
                /* The text depends only on word, access and the planted skip. */
                stream_config cfg = {.word_bytes = stream_word_sizes[w], .access = (stream_access)a,
                                     .block_size = 256, .blocks = 132, .elements = 1 << 20,
                                     .planted_skip = planted, .planted_skip_element = 5};
                stream_kernel k;
                char why[256];
                assert_int_equal(stream_generate(&cfg, &k, why, sizeof why), 0);
                int rc = lbp_nvrtc_check(k.source, "", "sm_90", why, sizeof why);
                if (rc < 0) {
                    print_message("NVRTC not available: %s\n", why);
                    skip();
                }
                if (rc != 0)
                    fail_msg("%s did not compile under NVRTC:\n%s", k.name, k.source);
                checked++;
            }
    assert_int_equal(checked, 8 * STREAM_ACCESS_COUNT); /* 4 word sizes, with and without the planted skip */
}

/* ---- on the CPU backends (PoCL, OpenMP) ------------------------------------ */

typedef struct {
    lbp_device *d;
    stream_bench b;
} bench_fixture;

#define CAPACITY ((int64_t)1 << 20)

static int bench_setup(void **state)
{
    lbp_test_open_device(state);
    if (!*state) return 0; /* the test skips */
    bench_fixture *f = calloc(1, sizeof *f);
    f->d = *state;
    if (stream_bench_init(&f->b, f->d, CAPACITY) != 0)
        return -1;
    *state = f;
    return 0;
}

static int bench_teardown(void **state)
{
    bench_fixture *f = *state;
    if (!f) return 0;
    stream_bench_free(&f->b);
    free(f);
    return 0;
}

static bench_fixture *fixture(void **state)
{
    if (!*state) skip();
    return *state;
}

static void test_every_config_runs(void **state)
{
    bench_fixture *f = fixture(state);
    const int block_sizes[] = {64, 256};
    for (int w = 0; stream_word_sizes[w]; w++)
        for (int a = 0; a < STREAM_ACCESS_COUNT; a++)
            for (int bs = 0; bs < 2; bs++) {
                int wb = stream_word_sizes[w];
                /* Not a multiple of the block size, and short of the
                 * capacity, so a tail or an overrun would show. */
                stream_config cfg = {.word_bytes = wb, .access = (stream_access)a,
                                     .block_size = block_sizes[bs], .blocks = 3,
                                     .elements = (CAPACITY - 4096) / wb - 5};
                stream_kernel k;
                stream_result res;
                char why[512] = "";
                int rc = stream_run_generated(&f->b, &cfg, &quick_reps, &k, &res, why, sizeof why);
                if (rc != 0)
                    fail_msg("%s: %s", k.name, why);
                assert_int_equal(res.reps, 2);
                assert_true(res.gbs_median > 0 && res.gbs_max >= res.gbs_median);
                assert_int_equal(stream_bytes_moved(&k.record), 2 * cfg.elements * wb);
            }
    stream_record r;
    stream_result res;
    char why[512] = "";
    assert_int_equal(stream_run_driver_copy(&f->b, CAPACITY / 2, &quick_reps, &r, &res, why, sizeof why), 0);
    assert_int_equal(stream_bytes_moved(&r), CAPACITY);
}

static void test_verify_catches_corrupted_element(void **state)
{
    bench_fixture *f = fixture(state);
    stream_config cfg = {.word_bytes = 8, .access = STREAM_ACCESS_ONE, .block_size = 128,
                         .elements = 10000};
    stream_kernel k;
    stream_result res;
    char why[512] = "";
    assert_int_equal(stream_run_generated(&f->b, &cfg, &quick_reps, &k, &res, why, sizeof why), 0);
    assert_int_equal(stream_verify(f->d, f->b.out, &k.record, 4096, why, sizeof why), 0);

    /* One wrong u32 in element 777 (its second half). */
    uint32_t wrong = 12345;
    f->d->be->write(f->d, f->b.out, 777 * 8 + 4, &wrong, 4);
    assert_int_equal(stream_verify(f->d, f->b.out, &k.record, 4096, why, sizeof why), 1);
    print_message("caught: %s\n", why);
    assert_non_null(strstr(why, "element 777 "));
    assert_non_null(strstr(why, "got 0x"));
    assert_non_null(strstr(why, "0x00003039")); /* 12345 */

    /* A write past the end of the array. */
    assert_int_equal(stream_run_generated(&f->b, &cfg, &quick_reps, &k, &res, why, sizeof why), 0);
    f->d->be->write(f->d, f->b.out, 10000 * 8 + 16, &wrong, 4);
    assert_int_equal(stream_verify(f->d, f->b.out, &k.record, 4096, why, sizeof why), 1);
    assert_non_null(strstr(why, "past the end"));

    /* 2-byte words, an odd count: the last element shares its u32 with the
     * first byte pair past the end; a wrong element in either half of a u32
     * is named, and so are the last one and a write just past it. */
    stream_config half = {.word_bytes = 2, .access = STREAM_ACCESS_ONE, .block_size = 128, .elements = 10001};
    const struct {
        int64_t offset;
        const char *says;
    } cases[] = {{777 * 2, "element 777 "}, {778 * 2, "element 778 "}, {10000 * 2, "element 10000 "},
                 {10001 * 2, "past the end"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(stream_run_generated(&f->b, &half, &quick_reps, &k, &res, why, sizeof why), 0);
        uint16_t w16 = 12345;
        f->d->be->write(f->d, f->b.out, (size_t)cases[i].offset, &w16, 2);
        assert_int_equal(stream_verify(f->d, f->b.out, &k.record, 4096, why, sizeof why), 1);
        print_message("caught: %s\n", why);
        assert_non_null(strstr(why, cases[i].says));
        if (i < 3) assert_non_null(strstr(why, "got 0x3039"));
    }
}

static void test_verify_catches_skipped_element(void **state)
{
    bench_fixture *f = fixture(state);
    for (int a = 0; a < 2 * STREAM_ACCESS_COUNT; a++) { /* 16- and 2-byte words */
        stream_config cfg = {.word_bytes = a < STREAM_ACCESS_COUNT ? 16 : 2, .access = (stream_access)(a % STREAM_ACCESS_COUNT),
                             .block_size = 64, .blocks = 5, .elements = 5000, .planted_skip = 1,
                             .planted_skip_element = 4321};
        stream_kernel k;
        stream_result res;
        char why[512] = "";
        assert_int_equal(stream_run_generated(&f->b, &cfg, &quick_reps, &k, &res, why, sizeof why), 1);
        print_message("caught: %s\n", why);
        assert_non_null(strstr(why, "element 4321 "));
        assert_non_null(strstr(why, "never written"));
    }
    /* The cached, correct kernel is unaffected by the planted one. */
    stream_config ok = {.word_bytes = 16, .access = STREAM_ACCESS_ONE, .block_size = 64, .elements = 5000};
    stream_kernel k;
    stream_result res;
    char why[512] = "";
    assert_int_equal(stream_run_generated(&f->b, &ok, &quick_reps, &k, &res, why, sizeof why), 0);
}

/* The transfer fit, least squares on the relative error: exact points give
 * their latency and bandwidth back; a slow small transfer (measured on an
 * H100: 13.2 us at 4 KiB between 10.1 us at 8 and 16 KiB) moves neither far;
 * a time that does not grow with size, or one point, gives no fit. */
static void test_transfer_fit(void **state)
{
    (void)state;
    stream_transfer_fit f;
    double bytes[12], ms[12];
    for (int i = 0; i < 12; i++) {
        bytes[i] = 4096.0 * (1 << (2 * i));
        ms[i] = 0.010 + bytes[i] / 50e6; /* 10 us + s / 50 GB/s */
    }
    stream_transfer_fit_points(&f, bytes, ms, 12);
    assert_true(fabs(f.latency_us - 10) < 1e-9);
    assert_true(fabs(f.gbs - 50) < 1e-9);
    assert_true(f.fit.rms < 1e-12);
    assert_int_equal(f.fit.n, 12);
    static const double h100_bytes[] = {4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152,
                                        4194304, 8388608, 16777216, 33554432, 67108864, 134217728, 268435456};
    static const double h100_ms[] = {0.013248, 0.010144, 0.010176, 0.014176, 0.011632, 0.013120,
                                     0.019440, 0.021776, 0.031952, 0.051664, 0.093536, 0.172784,
                                     0.339680, 0.662240, 1.245456, 2.498640, 5.004176};
    stream_transfer_fit_points(&f, h100_bytes, h100_ms, 17);
    assert_true(f.gbs > 50 && f.gbs < 55);         /* the large sizes ran 53.6-53.9 GB/s */
    assert_true(f.latency_us > 9 && f.latency_us < 13);
    for (int i = 0; i < 12; i++) ms[i] = 1.0 - 0.01 * i;
    stream_transfer_fit_points(&f, bytes, ms, 12);
    assert_true(isnan(f.gbs));
    stream_transfer_fit_points(&f, bytes, ms, 1);
    assert_true(isnan(f.gbs) && isnan(f.latency_us));
}

static void test_transfers(void **state)
{
    lbp_device *d = lbp_test_device(state);
    char dir[] = "/tmp/test_stream_XXXXXX";
    assert_non_null(mkdtemp(dir));
    lbp_csv *csv = lbp_csv_open(dir, "transfer.csv", "direction,host_memory,bytes,reps,ms_min,ms_median,ms_max,gbs_median",
                                &d->info, 1);
    const int64_t sizes[] = {4096, 65536, 1 << 20};
    stream_transfer_fit fits[STREAM_TRANSFER_FITS];
    char why[512] = "";
    int rc = stream_transfer_sweep(d, sizes, 3, 3, 1, csv, fits, why, sizeof why);
    if (rc != 0)
        fail_msg("%s", why);
    for (int i = 0; i < STREAM_TRANSFER_FITS; i++) {
        assert_non_null(fits[i].direction);
        assert_int_equal(fits[i].fit.n, 3);
    }
    assert_string_equal(fits[0].direction, "h2d");
    assert_string_equal(fits[3].host_memory, "pageable");
    lbp_csv_abort(csv);
    rmdir(dir);
}

/* ---- likwid-bench report ------------------------------------------------- */

static void test_likwid_parse_and_verdict(void **state)
{
    (void)state;
    const char *report =
        "Cycles:\t\t\t35648024\n"
        "Time:\t\t\t1.371111e-02 sec\n"
        "Iterations:\t\t20\n"
        "Iterations per thread:\t10\n"
        "Size (Byte):\t\t64000000\n"
        "Data volume (Byte):\t640000000\n"
        "MByte/s:\t\t46677.48\n";
    stream_likwid_result r;
    assert_int_equal(stream_likwid_parse(report, &r), 0);
    assert_float_equal(r.mbytes_per_s, 46677.48, 1e-6);
    assert_int_equal(r.iterations, 10);
    assert_int_equal(r.bytes_per_iteration, 64000000);
    assert_int_equal(stream_likwid_parse("Cycles: 12\nno result here\n", &r), -1);
    assert_string_equal(stream_write_allocate_verdict(10, 15), "yes");
    assert_string_equal(stream_write_allocate_verdict(10, 10.5), "no");
    assert_string_equal(stream_write_allocate_verdict(10, 11.8), "unknown");
    assert_string_equal(stream_write_allocate_verdict(0, 11.8), "unknown");

    /* the verdict from repeated samples: the medians' ratio; close where it
     * is near a threshold or the samples' ratios straddle one */
    const double copy[] = {10, 10.2, 9.9}, far_yes[] = {15, 15.1, 14.8}, near_yes[] = {12.6, 12.7, 12.5},
                 straddle[] = {11.5, 13.5, 12.0}, no[] = {10.1, 10.3, 9.8};
    stream_write_allocate w = stream_write_allocate_decide(copy, far_yes, 3);
    assert_string_equal(w.verdict, "yes");
    assert_float_equal(w.ratio, 15.0 / 10.0, 1e-12);
    assert_int_equal(w.samples, 3);
    assert_false(w.close);
    w = stream_write_allocate_decide(copy, near_yes, 3);
    assert_string_equal(w.verdict, "yes");
    assert_true(w.close);
    w = stream_write_allocate_decide(copy, straddle, 3);
    assert_string_equal(w.verdict, "unknown"); /* 12.0 / 10.0 */
    assert_true(w.ratio_min < 1.25 && w.ratio_max > 1.25 && w.close);
    w = stream_write_allocate_decide(copy, no, 3);
    assert_string_equal(w.verdict, "no");
    assert_false(w.close);
    w = stream_write_allocate_decide(copy, no, 0);
    assert_string_equal(w.verdict, "unknown");
    assert_true(isnan(w.ratio));

    /* the saturation curve's thread counts: every count, or doublings and P */
    int t[64];
    assert_int_equal(stream_likwid_thread_counts(4, 0, t, 64), 4);
    assert_int_equal(t[3], 4);
    assert_int_equal(stream_likwid_thread_counts(12, 1, t, 64), 5); /* 1 2 4 8 12 */
    assert_int_equal(t[3], 8);
    assert_int_equal(t[4], 12);
    assert_int_equal(stream_likwid_thread_counts(16, 1, t, 64), 5); /* 1 2 4 8 16 */
    assert_int_equal(t[4], 16);
    assert_int_equal(stream_likwid_thread_counts(0, 1, t, 64), 1);
    /* every count to 4, then x1.5 and x4/3 in turn, and P */
    static const int sixteen[] = {1, 2, 3, 4, 6, 8, 12, 16};
    assert_int_equal(stream_likwid_thread_counts(16, 0, t, 64), 8);
    for (int i = 0; i < 8; i++) assert_int_equal(t[i], sixteen[i]);
    assert_int_equal(stream_likwid_thread_counts(20, 0, t, 64), 9); /* ... 16 20 */
    assert_int_equal(t[8], 20);
    assert_int_equal(stream_likwid_thread_counts(5, 0, t, 64), 5); /* 1 2 3 4 5 */
    assert_int_equal(t[4], 5);
}

/* The likwid-bench runs a QUICK run makes on the 16-core server: copy and
 * copy_mem at 16 threads, then each once more for the write-allocate
 * verdict's second sample: 4 runs of about 3 s each, where every kernel's
 * curve at 1, 2, 4, 8, 16 and three samples made 19; a full run keeps
 * every kernel at every count (1, 2, 3, 4, 6, 8, 12, 16) and five samples. */
static void test_quick_likwid_runs(void **state)
{
    (void)state;
    int t[64];
    for (int quick = 0; quick <= 1; quick++) {
        const int n = stream_likwid_thread_counts(16, quick, t, 64);
        int runs[STREAM_LIKWID_KERNELS] = {0};
        for (int i = 0; i < n; i++)
            for (int k = 0; k < STREAM_LIKWID_KERNELS; k++) runs[k] += stream_likwid_runs_at(k, t[i], 16, quick);
        const int extra = quick ? STREAM_WA_SAMPLES_QUICK - 1 : STREAM_WA_SAMPLES - 1;
        assert_int_equal(runs[STREAM_LIKWID_COPY], quick ? 1 : 8);
        assert_int_equal(runs[STREAM_LIKWID_COPY_MEM], quick ? 1 : 8);
        assert_int_equal(runs[STREAM_LIKWID_UPDATE], quick ? 0 : 8);
        assert_int_equal(runs[0] + runs[1] + runs[2] + 2 * extra, quick ? 4 : 32);
    }
    assert_int_equal(STREAM_WA_SAMPLES_QUICK, 2);
    assert_true(stream_likwid_runs_at(STREAM_LIKWID_COPY_MEM, 16, 16, 1));
    assert_false(stream_likwid_runs_at(STREAM_LIKWID_COPY_MEM, 8, 16, 1));
    assert_false(stream_likwid_runs_at(STREAM_LIKWID_COPY, 1, 16, 1));
    assert_false(stream_likwid_runs_at(STREAM_LIKWID_UPDATE, 16, 16, 1));
    assert_true(stream_likwid_runs_at(STREAM_LIKWID_UPDATE, 1, 16, 0));
}

/* On a CPU the size sweep goes past 4x the last-level cache also quick, and
 * likwid-bench runs at 1, 2, 3, 4, 6, ..., P threads (quick: copy and
 * copy_mem at P alone) on a working set
 * of that size, then copy and copy_mem again at P for the write-allocate
 * samples. */
static void test_cpu_plan_passes_the_cache(void **state)
{
    (void)state;
    lbp_device_info d = {.kind = LBP_KIND_CPU, .compute_units = 16, .l2_bytes = 260LL << 20,
                         .global_mem_bytes = 64LL << 30, .max_alloc_bytes = 64LL << 30, .max_block_size = 4096};
    for (int quick = 0; quick <= 1; quick++) {
        stream_options o = {.quick = quick};
        for (int i = 0; i < STREAM_SW_COUNT; i++) o.sweeps[i] = i == STREAM_SW_SIZE || i == STREAM_SW_LIKWID;
        stream_plan p;
        stream_plan_build(&p, &o, &d);
        int64_t largest = 0;
        int likwid = 0, at_p = 0;
        const long online = sysconf(_SC_NPROCESSORS_ONLN);
        const int cores = online > 0 && online < 16 ? (int)online : 16;
        for (int i = 0; i < p.n; i++) {
            const stream_step *s = &p.steps[i];
            if (s->kind == STREAM_STEP_GENERATED && s->cfg.elements * 16 > largest) largest = s->cfg.elements * 16;
            if (s->kind != STREAM_STEP_LIKWID) continue;
            likwid++;
            assert_int_equal(s->bytes, 2LL << 30); /* 4 x 260 MiB, to the next power of two */
            assert_true(s->threads >= 1 && s->threads <= cores);
            at_p += s->threads == cores && s->likwid != STREAM_LIKWID_UPDATE;
        }
        assert_true(largest >= 4 * d.l2_bytes);
        int counts[64];
        const int n = stream_likwid_thread_counts(cores, quick, counts, 64);
        const int samples = quick ? STREAM_WA_SAMPLES_QUICK : STREAM_WA_SAMPLES;
        /* full: every kernel at every count; quick: copy and copy_mem at P */
        int first_pass = 0, per_kernel[STREAM_LIKWID_KERNELS] = {0};
        for (int i = 0; i < n; i++)
            for (int k = 0; k < STREAM_LIKWID_KERNELS; k++) first_pass += stream_likwid_runs_at(k, counts[i], cores, quick);
        for (int i = 0; i < p.n; i++)
            if (p.steps[i].kind == STREAM_STEP_LIKWID) per_kernel[p.steps[i].likwid]++;
        if (!quick) assert_int_equal(likwid, 3 * n + 2 * (samples - 1));
        assert_int_equal(likwid, first_pass + 2 * (samples - 1));
        assert_int_equal(per_kernel[STREAM_LIKWID_COPY_MEM], (quick ? 1 : n) + samples - 1);
        assert_int_equal(per_kernel[STREAM_LIKWID_UPDATE], quick ? 0 : n);
        assert_int_equal(per_kernel[STREAM_LIKWID_COPY], (quick ? 1 : n) + samples - 1);
        assert_int_equal(at_p, 2 * samples);
        assert_int_equal(p.likwid_threads, cores);
        stream_plan_free(&p);
    }
}

/* ---- the command line ------------------------------------------------------ */

/* Run ./stream/stream with args; returns the exit status and the number of
 * lines it wrote to stderr. */
static int run_tool(const char *args, int *stderr_lines)
{
    if (access("./stream/stream", X_OK) != 0)
        fail_msg("./stream/stream not built (run from the repository root after make)");
    char err[] = "/tmp/test_stream_err_XXXXXX";
    int fd = mkstemp(err);
    assert_true(fd >= 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "./stream/stream %s >/dev/null 2>%s", args, err);
    int status = system(cmd);
    FILE *f = fopen(err, "r");
    int lines = 0, ch;
    while (f && (ch = fgetc(f)) != EOF)
        lines += ch == '\n';
    if (f)
        fclose(f);
    unlink(err);
    if (stderr_lines)
        *stderr_lines = lines;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_cli_usage_errors_exit_2(void **state)
{
    (void)state;
    const char *bad[] = {
        "--bogus",
        "--sweeps size,nonsense",
        "--reps 0",
        "--sizes 1000",                          /* not a multiple of 16 */
        "--sizes 4K..1X",
        "--backend opencl --sizes 64G --out /tmp/test_stream_never",   /* impossible size */
        "--backend opencl --max-size 1024G --out /tmp/test_stream_never", /* impossible size */
        "--backend opencl --device 99",          /* missing device */
        "extra-argument",
        "--reps",                                /* no value */
        "--force=yes",                           /* a value to a flag */
        "--de",                                  /* ambiguous: --device, --describe */
        "-x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int lines = -1;
        int rc = run_tool(bad[i], &lines);
        if (rc != 2 || lines != 1)
            fail_msg("'stream %s': exit %d with %d stderr lines, expected exit 2 and one line", bad[i], rc, lines);
    }
    assert_int_equal(run_tool("--help", NULL), 0);
    assert_int_equal(run_tool("--version", NULL), 0);
}

static void test_cli_quick_run_writes_results(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_stream_out_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char args[256];
    snprintf(args, sizeof args,
             "--backend opencl --quick --sweeps size,word,reference --sizes 64K,1M --max-size 1M --out %s", dir);
    assert_int_equal(run_tool(args, NULL), 0);
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/stream.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "device,backend,sweep,kernel,word_bytes,access"));
    int rows = 0, word_rows = 0, reference_rows = 0;
    while (fgets(line, sizeof line, f)) {
        rows++;
        word_rows += strstr(line, ",word,copy,") != NULL;
        reference_rows += strstr(line, ",reference,memcpy_dtod,0,driver,") != NULL;
    }
    fclose(f);
    /* a CPU: the size sweep again with a row per thread, the word sweep
     * with it as a third access */
    assert_int_equal(rows, 2 * 2 + 12 + 1);
    assert_int_equal(word_rows, 12);
    assert_int_equal(reference_rows, 1);
    snprintf(path, sizeof path, "%s/stream-meta.csv", dir);
    f = fopen(path, "r");
    assert_non_null(f);
    int best = 0, dtod = 0, uuid = 0;
    while (fgets(line, sizeof line, f)) {
        best += strncmp(line, "best_copy_gbs,", 14) == 0;
        dtod += strncmp(line, "dtod_gbs,", 9) == 0;
        /* the board's, or unknown (PoCL does not say) */
        if (!strncmp(line, "uuid,", 5)) {
            uuid++;
            assert_true(!strcmp(line, "uuid,unknown\n") || strlen(line) == 5 + 36 + 1);
        }
    }
    fclose(f);
    assert_int_equal(best, 1);
    assert_int_equal(dtod, 1);
    assert_int_equal(uuid, 1);
    /* A second run refuses to overwrite without --force. */
    assert_int_not_equal(run_tool(args, NULL), 0);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_counts_bytes),
        cmocka_unit_test(test_pattern_halves),
        cmocka_unit_test(test_generator_refuses_bad_configs),
        cmocka_unit_test(test_every_config_compiles_for_sm90),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_every_config_runs, bench_setup, bench_teardown),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_verify_catches_corrupted_element, bench_setup, bench_teardown),
        LBP_TEST_ON_CPU_BACKENDS_SETUP(test_verify_catches_skipped_element, bench_setup, bench_teardown),
        cmocka_unit_test(test_transfer_fit),
        LBP_TEST_ON_CPU_BACKENDS(test_transfers),
        cmocka_unit_test(test_likwid_parse_and_verdict),
        cmocka_unit_test(test_quick_likwid_runs),
        cmocka_unit_test(test_cpu_plan_passes_the_cache),
        cmocka_unit_test(test_cli_usage_errors_exit_2),
        cmocka_unit_test(test_cli_quick_run_writes_results),
    };
    return cmocka_run_group_tests(tests, NULL, lbp_test_close_devices);
}
