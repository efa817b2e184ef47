/* model/: every level against synthetic CSVs whose answers are known by
 * hand (tests/model-data/), interpolation at, between and beyond measured
 * points, a CPU with write-allocate, A-A's alternation, malformed input, and
 * validate's exit status.  Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmp.h"
#include "../model/data/drift.h"
#include "../model/corrections/holdout.h"
#include "../model/data/inputs.h"
#include "../model/data/interp.h"
#include "../core/kernel.h"
#include "../model/corrections/launchprobe.h"
#include "../model/equations/levels.h"
#include "../model/data/lookup.h"
#include "../model/equations/predict.h"
#include "../model/cli/commands.h"
#include "../model/cli/validation.h"
#include "../core/table.h"

#define DATA "tests/model-data/"
#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1e-3, fabs((double)(b))))

static char err[1024];

static void load(model_inputs *in, const char *dir, const char *backend)
{
    int r = model_inputs_load(in, dir, backend, err, sizeof err);
    if (r) fprintf(stderr, "load %s: %s\n", dir, err);
    assert_int_equal(r, 0);
}

static model_lattice cube(long long n)
{
    return (model_lattice){.nx = n, .ny = n, .nz = n, .cells = (double)n * n * n, .occupancy = -1,
                           .blocks_per_cu = -1};
}

static model_prediction predict(const model_inputs *in, const char *scheme, const char *precision,
                                model_lattice lat)
{
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, scheme, precision), 0);
    model_prediction p;
    assert_int_equal(model_predict(in, &k, &lat, &p, err, sizeof err), 0);
    return p;
}

/* predict() of the scheme with non-temporal stores. */
static model_prediction predict_nontemporal(const model_inputs *in, const char *scheme, const char *precision,
                                            model_lattice lat)
{
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, scheme, precision), 0);
    k.nontemporal = 1;
    model_prediction p;
    assert_int_equal(model_predict(in, &k, &lat, &p, err, sizeof err), 0);
    return p;
}

/* The prediction's notes or fallbacks mention text. */
static int says(const model_prediction *p, const char *text)
{
    return model_provenance_says(&p->prov, text);
}

static model_kernel described(double words, int L, int M, int lattices)
{
    model_kernel k = {.words_read = words, .words_written = words, .word_bytes = 4, .lattices = lattices,
                      .launches_per_step = 1, .phases = 1};
    k.misaligned_reads[0] = L;
    k.misaligned_writes[0] = M;
    return k;
}

/* ---- the CSV reader ----------------------------------------------------- */

static void test_table_missing_column(void **state)
{
    (void)state;
    lbp_table t;
    assert_int_equal(lbp_table_read(&t, DATA "bad/missing-column.csv", 1, err, sizeof err), 0);
    static const char *const cols[] = {"mode", "us_median", NULL};
    assert_int_equal(lbp_table_require(&t, cols, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad/missing-column.csv:1:"));
    assert_non_null(strstr(err, "'us_median'"));
    lbp_table_free(&t);
}

static void test_table_not_a_number(void **state)
{
    (void)state;
    lbp_table t;
    assert_int_equal(lbp_table_read(&t, DATA "bad/not-a-number.csv", 1, err, sizeof err), 0);
    double v;
    assert_int_equal(lbp_table_number_by_name(&t, 0, "launches", &v, err, sizeof err), 0);
    NEAR(v, 10);
    assert_int_equal(lbp_table_number_by_name(&t, 1, "launches", &v, err, sizeof err), -1);
    assert_non_null(strstr(err, "not-a-number.csv:3:"));
    assert_non_null(strstr(err, "expected a number, got 'ten'"));
    lbp_table_free(&t);
}

static void test_table_wrong_count(void **state)
{
    (void)state;
    lbp_table t;
    assert_int_equal(lbp_table_read(&t, DATA "bad/wrong-count.csv", 1, err, sizeof err), LBP_TABLE_MALFORMED);
    /* line 4: the blank line 3 is skipped but counted */
    assert_non_null(strstr(err, "wrong-count.csv:4:"));
    assert_non_null(strstr(err, "expected 8"));
    assert_non_null(strstr(err, "got 7"));
    assert_int_equal(lbp_table_read(&t, DATA "no-such.csv", 1, err, sizeof err), LBP_TABLE_MISSING);
}

static void test_malformed_folder(void **state)
{
    (void)state;
    model_inputs in;
    assert_int_equal(model_inputs_load(&in, DATA "bad-membench", "cuda", err, sizeof err), -1);
    assert_non_null(strstr(err, "bad-membench/membench.csv:3:"));
    assert_non_null(strstr(err, "'threads'"));
    assert_non_null(strstr(err, "'many'"));
    assert_int_equal(model_inputs_load(&in, DATA "bad", "cuda", err, sizeof err), -1);
    assert_non_null(strstr(err, "stream-meta.csv: missing"));
    /* two backends in one folder: the caller must choose */
    assert_int_equal(model_inputs_load(&in, DATA "gpu", NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "--backend"));
}

static void test_meta_quoted(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    assert_string_equal(model_meta_value(&in, "command"), "stream --out x,y");
    assert_string_equal(model_meta_value(&in, "kind"), "gpu");
    NEAR(in.l2_bytes, 1e6);
    NEAR(in.launch_us, 5); /* the back_to_back row with the most launches */
    NEAR(in.start_cost_ms, 0.002);
    model_inputs_free(&in);
}

/* ---- interpolation ------------------------------------------------------ */

static void test_interp(void **state)
{
    (void)state;
    model_point p[] = {{20, 2}, {10, 1}, {40, 3}, {10, 3}};
    int n = model_points_prepare(p, 4);
    assert_int_equal(n, 3); /* 10 merged: mean of 1 and 3 */
    int clamped = 0;
    NEAR(model_interp(p, n, 10, &clamped), 2);
    NEAR(model_interp(p, n, 20, &clamped), 2);
    NEAR(model_interp(p, n, 30, &clamped), 2.5);
    assert_int_equal(clamped, 0);
    NEAR(model_interp(p, n, 50, &clamped), 3);
    assert_int_equal(clamped, 1);
    clamped = 0;
    NEAR(model_interp(p, n, 5, &clamped), 2);
    assert_int_equal(clamped, 1);
    /* the running median of three: a lone spike goes, a run of two stays,
     * a monotone curve is left as it is, and so are the ends */
    model_point spike[] = {{0, 1}, {1, 1}, {2, 5}, {3, 1.2}, {4, 1.4}};
    model_points_median3(spike, 5);
    const double spike_want[] = {1, 1, 1.2, 1.4, 1.4};
    model_point run2[] = {{0, 1}, {1, 1}, {2, 5}, {3, 5}, {4, 1}, {5, 1}};
    model_points_median3(run2, 6);
    const double run2_want[] = {1, 1, 5, 5, 1, 1};
    model_point rising[] = {{0, 1}, {1, 2}, {2, 4}, {3, 8}};
    model_points_median3(rising, 4);
    const double rising_want[] = {1, 2, 4, 8};
    model_point end_spike[] = {{0, 1}, {1, 1.1}, {2, 1.2}, {3, 3}};
    model_points_median3(end_spike, 4);
    for (int i = 0; i < 6; i++) {
        if (i < 5) NEAR(spike[i].y, spike_want[i]);
        NEAR(run2[i].y, run2_want[i]);
        if (i < 4) NEAR(rising[i].y, rising_want[i]);
    }
    NEAR(end_spike[3].y, 3); /* the ends are kept */
    NEAR(end_spike[0].y, 1);
}

/* ---- the probe lookup and its provenance ------------------------------- */

/* One lookup: the query as asked where measured; where not, the block size
 * the sweep has, the nearest word size (any width), the stand-in sweep --
 * each only where allowed, each recorded: what was asked, what was read. */
static void test_lookup_fallbacks(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    model_probe_curve c;
    model_provenance prov;
    model_provenance_init(&prov);
    model_probe_lookup l = {.x = PROBE_X_WORDS};
    l.q = model_probe_aligned(PROBE_WORDS, 4, 256);
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1);
    assert_int_equal(c.curve.n, 3); /* N = 10, 20, 40, the start cost removed */
    NEAR(c.curve.p[0].x, 10);
    NEAR(c.curve.p[0].y, 0.1);
    assert_int_equal(prov.n_fallbacks, 0);
    model_probe_curve_free(&c);
    /* block 128 was not swept: nothing, unless the sweep's block may stand in */
    l.q.block_size = 128;
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 0);
    assert_int_equal(prov.n_fallbacks, 0);
    l.fallbacks = PROBE_OR_COMMON_BLOCK;
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1);
    assert_int_equal(c.read.block_size, 256);
    assert_int_equal(prov.n_fallbacks, 1);
    assert_int_equal(prov.fallbacks[0].kind, MODEL_FALLBACK_BLOCK);
    assert_true(model_provenance_says(&prov, "4-byte words sweep at block 128: read block 256, the sweep's most common"));
    assert_int_equal(prov.within_measured, 1);
    model_probe_curve_free(&c);
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1); /* recorded once */
    assert_int_equal(prov.n_fallbacks, 1);
    model_probe_curve_free(&c);
    /* word sizes never probed read the nearest one measured (4 and 8 here),
     * scaled by bytes: no longer within what was measured */
    assert_int_equal(model_other_word(&in, 2), 4);
    assert_int_equal(model_other_word(&in, 4), 8);
    assert_int_equal(model_other_word(&in, 8), 4);
    assert_int_equal(model_other_word(&in, 16), 8);
    model_provenance_init(&prov);
    l = (model_probe_lookup){.x = PROBE_X_WORDS, .fallbacks = PROBE_OR_OTHER_WORD, .word_use = PROBE_WORD_SCALED};
    l.q = model_probe_aligned(PROBE_WORDS, 16, 256);
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1);
    assert_int_equal(c.read.word_bytes, 8);
    NEAR(c.curve.p[0].y, 0.2);
    assert_int_equal(prov.fallbacks[0].kind, MODEL_FALLBACK_WORD);
    assert_true(model_provenance_says(&prov, "16-byte words sweep: read the 8-byte one scaled by 2 (no 16-byte words sweep)"));
    assert_int_equal(prov.within_measured, 0);
    model_probe_curve_free(&c);
    /* read as a ratio, another word size stays within what was measured */
    model_provenance_init(&prov);
    l.q.word_bytes = 2;
    l.word_use = PROBE_WORD_RATIO;
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1);
    assert_int_equal(c.read.word_bytes, 4);
    assert_true(model_provenance_says(&prov, "2-byte words sweep: read the 4-byte one as a ratio"));
    assert_int_equal(prov.within_measured, 1);
    model_probe_curve_free(&c);
    /* no misaligned_reads sweep of 8-byte words: the word_bytes sweep's
     * 0/0 and 10/0 points stand in, where allowed */
    model_provenance_init(&prov);
    l = (model_probe_lookup){.x = PROBE_X_MISALIGNED, .near_words = 19};
    l.q = model_probe_aligned(PROBE_MISALIGNED_READS, 8, 256);
    l.q.misaligned_reads = PROBE_ANY;
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 0);
    l.fallbacks = PROBE_OR_STAND_IN_SWEEP;
    assert_int_equal(model_probe_find(&in, &l, &c, &prov), 1);
    assert_int_equal(c.read.sweep, PROBE_WORD_BYTES);
    assert_int_equal(c.curve.n, 2);
    NEAR(c.curve.p[1].x, 10);
    NEAR(c.curve.p[1].y, 0.41);
    assert_int_equal(prov.fallbacks[0].kind, MODEL_FALLBACK_SWEEP);
    assert_true(model_provenance_says(&prov, "8-byte misaligned_reads sweep: read the 8-byte word_bytes sweep"));
    model_probe_curve_free(&c);
    /* a misalignment curve answers only with a misaligned point: the
     * 4-byte word_bytes sweep's writes side holds 0/0 and 0/10, its both
     * side nothing but 0/0 */
    l.q = model_probe_aligned(PROBE_WORD_BYTES, 4, 256);
    l.q.misaligned_reads = PROBE_ANY;
    l.q.misaligned_writes = PROBE_AS_READS;
    l.fallbacks = 0;
    assert_int_equal(model_probe_find(&in, &l, &c, NULL), 0);
    model_inputs_free(&in);
}

/* Provenance: notes once, fallbacks once, and a merge keeps both sides'
 * clamps. */
/* The lookup reads the (sweep, word size) group of the probe index, never
 * every row: on a committed folder a query visits at most its group's
 * rows (a small part of membench.csv), and without the index (every row
 * visited: the check can fail) it finds the same curve. */
static void test_lookup_index(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, "tests/fixtures/nvidia-h100-80gb-hbm3", "cuda");
    int group = 0;
    for (int i = 0; i < in.n_probes; i++) group += in.probes[i].sweep == PROBE_WORDS && in.probes[i].word_bytes == 4;
    assert_true(group > 0 && group * 4 < in.n_probes);
    model_probe_lookup l = {.x = PROBE_X_WORDS, .fallbacks = PROBE_OR_COMMON_BLOCK};
    l.q = model_probe_aligned(PROBE_WORDS, 4, 256);
    model_probe_curve c, plain_c;
    long long before = model_probe_rows_visited();
    assert_int_equal(model_probe_find(&in, &l, &c, NULL), 1);
    const long long visited = model_probe_rows_visited() - before;
    assert_true(visited > 0 && visited <= group);
    model_inputs plain = in; /* the same rows without the index */
    memset(&plain.probe_index, 0, sizeof plain.probe_index);
    before = model_probe_rows_visited();
    assert_int_equal(model_probe_find(&plain, &l, &plain_c, NULL), 1);
    assert_int_equal(model_probe_rows_visited() - before, in.n_probes);
    assert_int_equal(c.curve.n, plain_c.curve.n);
    for (int i = 0; i < c.curve.n; i++) {
        NEAR(c.curve.p[i].x, plain_c.curve.p[i].x);
        NEAR(c.curve.p[i].y, plain_c.curve.p[i].y);
    }
    assert_int_equal(c.read.block_size, plain_c.read.block_size);
    /* a query of the words sweep's stand-in (any sweep at the default
     * launch) reads several groups, in file order, and no threads row */
    l.q.sweep = PROBE_ANY_SWEEP;
    model_probe_curve_free(&c);
    model_probe_curve_free(&plain_c);
    assert_int_equal(model_probe_find(&in, &l, &c, NULL), 1);
    assert_int_equal(model_probe_find(&plain, &l, &plain_c, NULL), 1);
    assert_int_equal(c.n_rows, plain_c.n_rows);
    for (int i = 0; i < c.n_rows; i++) assert_ptr_equal(c.rows[i], plain_c.rows[i]);
    model_probe_curve_free(&c);
    model_probe_curve_free(&plain_c);
    model_inputs_free(&in);
}

static void test_provenance_records(void **state)
{
    (void)state;
    model_provenance a, b;
    model_provenance_init(&a);
    model_provenance_init(&b);
    model_note(&a, "one");
    model_note(&a, "one");
    model_clamped(&b, "two at %d", 2);
    model_note(&b, "one");
    model_fell_back(&a, MODEL_FALLBACK_WORD, "asked", "read", "why %d", 1);
    model_fell_back(&a, MODEL_FALLBACK_WORD, "asked", "read", "why %d", 2);
    model_fell_back(&b, MODEL_FALLBACK_MEDIAN, "curve", "its median", "a spike");
    assert_string_equal(a.notes, "one");
    assert_int_equal(a.n_fallbacks, 1);
    assert_int_equal(a.within_measured, 1);
    model_provenance_merge(&a, &b);
    assert_string_equal(a.notes, "one; two at 2");
    assert_int_equal(a.n_fallbacks, 2);
    assert_int_equal(a.within_measured, 0);
    char line[256];
    model_fallback_format(&a.fallbacks[1], line, sizeof line);
    assert_string_equal(line, "curve: read its median (a spike)");
    assert_string_equal(model_fallback_kind_name(MODEL_FALLBACK_MEDIAN), "running median");
    assert_true(model_provenance_says(&a, "its median"));
    assert_false(model_provenance_says(&a, "three"));
    model_note(NULL, "nowhere"); /* a reading whose caveats are not recorded */
}

/* ---- level 1 ------------------------------------------------------------ */

static void test_roofline_gpu(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    /* 1000 GB/s (blocks row; the driver's 1200 is not a generated copy) */
    model_prediction p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.roofline.bytes_per_update, 152);
    NEAR(p.roofline.mlups, 1000e3 / 152);
    p = predict(&in, "aa", "fp64", cube(256));
    NEAR(p.roofline.bytes_per_update, 304);
    NEAR(p.roofline.mlups, 1000e3 / 304);
    /* fp16s: 2-byte words, 76 B per update */
    p = predict(&in, "pull", "fp16s", cube(256));
    NEAR(p.roofline.bytes_per_update, 76);
    NEAR(p.roofline.mlups, 1000e3 / 76);
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "split", "fp16s"), 0);
    assert_int_equal(k.word_bytes, 2);
    assert_int_equal(model_precision_word_bytes("fp16s"), 2);
    assert_int_equal(model_precision_word_bytes("fp16"), -1);
    model_inputs_free(&in);
    load(&in, DATA "gpu", "opencl"); /* the other backend's rows only */
    NEAR(predict(&in, "pull", "fp32", cube(256)).roofline.mlups, 500e3 / 152);
    model_inputs_free(&in);
}

static void test_roofline_cpu_write_allocate(void **state)
{
    (void)state;
    model_inputs in;
    /* copy 20 GB/s (counted 2 transfers), likwid copy_mem 36 GB/s (bus),
     * likwid copy 50 GB/s rows ignored (they measure likwid, not PoCL) */
    load(&in, DATA "cpu", NULL);
    model_prediction p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.roofline.bytes_per_update, 228);
    NEAR(p.roofline.mlups, 36e3 / 228);
    NEAR(predict(&in, "push", "fp64", cube(256)).roofline.mlups, 36e3 / 456);
    /* A-A stores into the lines it has just read: no write-allocate */
    NEAR(predict(&in, "aa", "fp32", cube(256)).roofline.bytes_per_update, 152);
    NEAR(predict(&in, "aa", "fp32", cube(256)).roofline.mlups, 36e3 / 152);
    /* and the probe (which writes to other arrays) paid it: A-A's probe time
     * over the likwid copy_mem / copy ratio, 36 / 24 */
    model_prediction aa = predict(&in, "aa", "fp32", cube(256));
    NEAR(aa.probe.in_place_factor, 1.5);
    NEAR(predict(&in, "pull", "fp32", cube(256)).probe.in_place_factor, 1);
    in.write_allocate = 0;
    model_prediction aa_no_wa = predict(&in, "aa", "fp32", cube(256));
    NEAR(aa_no_wa.probe.in_place_factor, 1);
    NEAR(aa.probe.mlups, 1.5 * aa_no_wa.probe.mlups);
    in.write_allocate = 1;
    assert_int_equal(model_full_answer(&p)->complete, 0); /* no launch.csv */
    assert_true(says(&p, "no launch.csv"));
    model_inputs_free(&in);
    load(&in, DATA "cpu-no-copy-mem", NULL);
    p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.roofline.gbs, 30);
    NEAR(p.roofline.mlups, 20e3 / 152); /* = 1.5 x 20 / 228 */
    /* no likwid: the bytes' share the roofline assumes, (19 + 2 x 19) / 38,
     * and said (a saving of none put the 16-core server's A-A at push's rate:
     * doc/findings/cpu.md); a kernel that pays the write-allocate saves none */
    p = predict(&in, "aa", "fp32", cube(256));
    NEAR(p.probe.in_place_factor, 1.5);
    assert_true(says(&p, "no likwid copy and copy_mem"));
    assert_true(says(&p, "the bytes' 1.500 assumed"));
    NEAR(predict(&in, "pull", "fp32", cube(256)).probe.in_place_factor, 1);
    model_inputs_free(&in);
    load(&in, DATA "cpu-no-write-allocate", NULL);
    p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.roofline.bytes_per_update, 152);
    NEAR(p.roofline.mlups, 20e3 / 152);
    model_inputs_free(&in);
}

/* Non-temporal stores skip the write-allocate as A-A's in-place stores do:
 * 152 B per FP32 update and the probe's saved line read; the roofline at a
 * lattice's working set follows the size sweep's copy there (never below
 * the DRAM roofline); a point above it, predicted or measured, is flagged. */
/* The test CPU's folder with its membench.csv replaced: its two words-sweep
 * rows, then 4-byte rows-sweep rows (R = 256, block 256) aligned and with
 * non-temporal stores at 2^12, 2^20 and 2^24 cells, the latter at nt[i]
 * times the aligned ms (1 ms a 2^20 cells), then `extra` (a row or ""). */
static void nontemporal_folder(char *dir, const double nt[3], const char *extra)
{
    char cmd[512];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp " DATA "cpu/*.csv %s/", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/membench.csv", dir);
    FILE *f = fopen(cmd, "w");
    assert_non_null(f);
    fprintf(f, "device,backend,sweep,words,word_bytes,misaligned_reads,misaligned_writes,block_size,"
               "blocks_per_cu_requested,blocks_per_cu,occupancy,threads,bytes_moved,reps,ms_min,ms_median,ms_max,"
               "gbs_max,gbs_median,ns_per_thread,timing,ops,launches,in_place,swapped,vector,row,band,stores\n");
    for (int n = 10; n <= 20; n += 10)
        fprintf(f, "test-cpu,opencl,words,%d,4,0,0,256,0,-1,-1,1000000,%d,10,%d,%d,%d,16,16,%d,events,0,1,0,0,1,1,32,"
                   "normal\n", n, 8000000 * n, n / 2, n / 2, n / 2, n / 2);
    const double cells[3] = {1 << 12, 1 << 20, 1 << 24};
    for (int stores = 0; stores < 2; stores++)
        for (int i = 0; i < 3; i++) {
            const double ms = cells[i] / (1 << 20) * (stores ? nt[i] : 1);
            fprintf(f, "test-cpu,opencl,rows,19,4,0,0,256,0,-1,-1,%.0f,%.0f,3,%.9g,%.9g,%.9g,1,1,%.9g,back_to_back,0,"
                       "20,0,0,1,256,32,%s\n", cells[i], 152 * cells[i], ms, ms, ms, ms * 1e6 / cells[i],
                    stores ? "nontemporal" : "normal");
        }
    fputs(extra, f);
    fclose(f);
}

/* A kernel with non-temporal stores saves what the rows sweep's
 * non-temporal probe saves over the aligned row probe (the kernels' own
 * stores, 19 streams), not likwid's one-stream copy_mem / copy (1.5 here):
 * level 2 at the largest count measured, the ratio as measured at each
 * count (below 1 a saving, above a cost: in the cache, such stores go to
 * memory), another word size's ratio where the kernel's was not measured;
 * a stores value the model does not know, or non-temporal stores outside
 * the rows sweep, are refused. */
static void test_nontemporal_rows_probe(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_nt_XXXXXX", cmd[600];
    const double nt[3] = {1.25, 0.9, 0.8};
    nontemporal_folder(dir, nt, "");
    model_inputs in;
    load(&in, dir, NULL);
    NEAR(model_nontemporal_ratio(&in, 4, 256, 0, NULL), 0.8);
    NEAR(model_nontemporal_ratio(&in, 4, 256, 1 << 20, NULL), 0.9);
    NEAR(model_nontemporal_ratio(&in, 4, 256, 1 << 12, NULL), 1.25);
    NEAR(model_nontemporal_ratio(&in, 4, 256, 1 << 30, NULL), 0.8); /* clamped to the counts measured */
    model_provenance prov;
    model_provenance_init(&prov);
    NEAR(model_nontemporal_ratio(&in, 8, 64, 0, &prov), 0.8); /* the 4-byte one, at block 256 */
    assert_true(model_provenance_says(&prov, "the 4-byte one as a ratio"));
    model_prediction p = predict_nontemporal(&in, "pull", "fp32", cube(256));
    NEAR(p.probe.in_place_factor, 1 / 0.8);
    assert_true(says(&p, "the rows sweep's non-temporal probe over the aligned one, x 0.800"));
    assert_false(says(&p, "likwid's copy_mem over copy"));
    NEAR(p.probe.mlups, predict(&in, "pull", "fp32", cube(256)).probe.mlups / 0.8);
    /* A-A's in-place stores keep likwid's share: the probe measures none */
    NEAR(predict(&in, "aa", "fp32", cube(256)).probe.in_place_factor, 1.5);
    model_inputs_free(&in);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    static const char *const bad[] = {
        "test-cpu,opencl,rows,19,4,0,0,256,0,-1,-1,4096,1,3,1,1,1,1,1,1,back_to_back,0,20,0,0,1,256,32,streaming\n",
        "test-cpu,opencl,threads,19,4,0,0,256,0,-1,-1,4096,1,3,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,nontemporal\n"};
    for (int i = 0; i < 2; i++) {
        char bad_dir[] = "/tmp/test_model_nt_XXXXXX";
        nontemporal_folder(bad_dir, nt, bad[i]);
        assert_int_not_equal(model_inputs_load(&in, bad_dir, NULL, err, sizeof err), 0);
        assert_non_null(strstr(err, i ? "non-temporal stores outside the rows sweep" : "expected stores normal|nontemporal"));
        snprintf(cmd, sizeof cmd, "rm -rf %s", bad_dir);
        assert_int_equal(system(cmd), 0);
    }
}

static void test_nontemporal_and_flags(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_cpu_XXXXXX", cmd[512];
    assert_non_null(mkdtemp(dir));
    /* two copies inside the 30 MB L2 at 80 GB/s (no start cost: 0 at 0 B) */
    snprintf(cmd, sizeof cmd,
             "cp " DATA "cpu/*.csv %s/ && printf '%%s\\n' "
             "'test-cpu,opencl,size,copy,4,one,256,0,5000000,10000000,10,0.125,0.125,0.125,80,80' "
             "'test-cpu,opencl,size,copy,4,one,256,0,10000000,20000000,10,0.25,0.25,0.25,80,80' >>%s/stream.csv",
             dir, dir);
    assert_int_equal(system(cmd), 0);
    model_inputs in;
    load(&in, dir, NULL);
    model_prediction p = predict_nontemporal(&in, "pull", "fp32", cube(256));
    NEAR(p.roofline.bytes_per_update, 152);
    NEAR(p.roofline.mlups, 36e3 / 152);
    NEAR(p.probe.in_place_factor, 1.5);
    assert_true(says(&p, "no non-temporal row probe (data from before it): likwid's copy_mem over copy"));
    NEAR(p.roofline.working_set_mlups, p.roofline.mlups); /* 2.5 GB: from DRAM */
    model_prediction normal = predict(&in, "pull", "fp32", cube(256));
    NEAR(normal.roofline.bytes_per_update, 228);
    NEAR(p.probe.mlups, 1.5 * normal.probe.mlups);
    /* 8^3: 311 KB, in the cache: the copy there ran 80 GB/s against 20 */
    const model_prediction small = predict(&in, "pull", "fp32", cube(8));
    NEAR(small.roofline.working_set_mlups, 4 * small.roofline.mlups);
    model_validated_point v = {.measured = 1, .pr = small};
    char text[64];
    assert_int_equal(model_point_flags(&v), v.pr.full.mlups > 4 * small.roofline.mlups);
    v.measured = 4.1 * small.roofline.mlups;
    v.pr.full.mlups = 3.9 * small.roofline.mlups;
    assert_int_equal(model_point_flags(&v), MODEL_FLAG_MEASURED_ABOVE_ROOFLINE);
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text), "measured>roofline");
    v.pr.full.mlups = 4.2 * small.roofline.mlups;
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text), "predicted>roofline;measured>roofline");
    v.local_bytes = 8; /* a kernel that spills */
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text),
                        "predicted>roofline;measured>roofline;spills");
    v.measured = v.pr.full.mlups = small.roofline.mlups;
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text), "spills");
    v.local_bytes = -1; /* unknown: no flag */
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text), "none");
    v.local_bytes = 0;
    assert_string_equal(model_flags_text(model_point_flags(&v), text, sizeof text), "none");
    model_inputs_free(&in);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A row per thread on a CPU: work-groups of block_size rows go to the cores
 * in turn; a launch lasts as long as the busiest core's rows. */
static void test_cpu_row_imbalance(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "cpu", NULL);
    in.compute_units = 2;
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "push", "fp32"), 0);
    k.cells_per_thread = 0; /* lbmkernels' CPU shape */
    model_prediction even, p;
    model_lattice lat = cube(32); /* 1024 rows */
    lat.block_size = 256;         /* 4 groups: 2 per core */
    assert_int_equal(model_predict(&in, &k, &lat, &even, err, sizeof err), 0);
    assert_false(says(&even, "busiest core"));
    /* 768 + 256 rows: one core takes 768 of the 1024, not 512 (no launch
     * interval in this folder: the whole step stretches) */
    lat.block_size = 768;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups / 1.5);
    NEAR(p.probe.mlups, even.probe.mlups); /* level 2 is per cell */
    assert_true(says(&p, "work-groups of 768 rows on 2 cores: the busiest core's share x 1.500"));
    /* 384 + 384 + 256: the first core takes the first and the last, 640 */
    lat.block_size = 384;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups / 1.25);
    /* three cores: a group each, 384 against 1024 / 3 */
    in.compute_units = 3;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups / (384 / (1024 / 3.0)));
    /* one group on two cores: one of them idles */
    in.compute_units = 2;
    lat.block_size = 1024;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups / 2);
    /* a cell per thread (vectorised across work-items): no rows, no change */
    k.cells_per_thread = 1;
    lat.block_size = 768;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups);
    /* core count unknown: no change */
    k.cells_per_thread = 0;
    in.compute_units = 0;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, even.full.mlups);
    model_inputs_free(&in);
}

static void remove_folder(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* dir (a mkdtemp template) made a copy of the synthetic gpu folder, then
 * `edit` (a shell command, or NULL) run inside it. */
static void gpu_folder(char *dir, const char *edit)
{
    char cmd[2048];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp " DATA "gpu/*.csv %s/ && cd %s%s%s", dir, dir, edit ? " && " : "", edit ? edit : "");
    assert_int_equal(system(cmd), 0);
}

/* ---- level 2 ------------------------------------------------------------ */

static void test_probe_schemes(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    /* base T(19) = 0.19 ns between N=10 (0.1) and 20 (0.2) */
    model_prediction p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.25); /* + writes sweep M=10: 0.25 - 0.19 */
    NEAR(p.probe.mlups, 4000);
    assert_int_equal(p.prov.within_measured, 1);
    NEAR(predict(&in, "pull", "fp32", cube(256)).probe.mlups, 1e3 / 0.21);
    NEAR(predict(&in, "split", "fp32", cube(256)).probe.mlups, 1e3 / 0.21);
    /* A-A: even 0/0 (0.19) and odd 10/10 (both sweep 0.26), by time */
    p = predict(&in, "aa", "fp32", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.19);
    NEAR(p.probe.ns_per_cell[1], 0.26);
    NEAR(p.probe.mlups, 1e3 / 0.225);
    /* the probes alone rank the schemes: pull fastest, then A-A, then push */
    assert_true(predict(&in, "pull", "fp32", cube(256)).full.mlups > p.full.mlups);
    assert_true(p.full.mlups > predict(&in, "push", "fp32", cube(256)).full.mlups);
    /* fp64: no misaligned sweeps of 8-byte words, as membench writes them:
     * the word_bytes sweep's 10/0 and 0/10 points */
    p = predict(&in, "pull", "fp64", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.41);
    assert_int_equal(p.prov.within_measured, 1);
    NEAR(predict(&in, "push", "fp64", cube(256)).probe.ns_per_cell[0], 0.46);
    /* A-A odd at fp64 (10/10 never measured at 8 bytes): reads + writes
     * (0.03 + 0.08) x the 4-byte ratio both / (reads + writes) = 0.07 / 0.08 */
    p = predict(&in, "aa", "fp64", cube(256));
    NEAR(p.probe.ns_per_cell[1], 0.38 + 0.11 * 0.875);
    NEAR(p.probe.mlups, 1e3 / ((0.38 + 0.38 + 0.11 * 0.875) / 2));
    assert_true(says(&p, "ratio of 4-byte probes"));
    model_inputs_free(&in);
    /* with a misaligned_both fit of 4-byte words the ratio is its slopes':
     * 0.0056 / (0.002 + 0.006) = 0.7, not one point's */
    char dir[] = "/tmp/lbp-model-both-fit-XXXXXX";
    gpu_folder(dir, "echo 'test-gpu,cuda,misaligned_both,4,19,misaligned_both,0.0056,0.19,0.9,0.001,3' "
                    ">> membench-fit.csv");
    load(&in, dir, "cuda");
    p = predict(&in, "aa", "fp64", cube(256));
    NEAR(p.probe.ns_per_cell[1], 0.38 + 0.11 * 0.7);
    assert_true(says(&p, "ratio of 4-byte fits"));
    model_inputs_free(&in);
    remove_folder(dir);
    /* opencl rows: misaligned probes of 8-byte words only -> scaled by 4/8
     * for fp32, marked; push: nothing at all -> 0 extra, marked */
    load(&in, DATA "gpu", "opencl");
    /* (no opencl size sweep, so no start cost is removed: 0.95 + 0.002) */
    p = predict(&in, "pull", "fp32", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.952 + 0.2 * 0.5);
    assert_int_equal(p.prov.within_measured, 0);
    p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.952);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "misalignment cost taken as 0"));
    model_inputs_free(&in);
}

/* A point of a misalignment sweep off both its neighbours is a disturbance:
 * the reads sweep at L = 0, 5, 10, 15, 19 with L = 10 taken at 0.262 ms
 * (0.212 before) reads L = 10 at the median of 0.202, 0.262 and 0.217. */
static void test_probe_sweep_spike(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-model-spike-XXXXXX";
    gpu_folder(dir,
               "sed -i 's/^\\(test-gpu,cuda,misaligned_reads,19,4,10,0,256,0,8,1.0,1000000,152000000,10\\),.*/"
             "\\1,0.262,0.262,0.262,580.1527,580.1527,0.262000,events/' membench.csv && "
             "echo 'test-gpu,cuda,misaligned_reads,19,4,5,0,256,0,8,1.0,1000000,152000000,10,0.202,0.202,0.202,"
             "752.4752,752.4752,0.202000,events' >> membench.csv && "
             "echo 'test-gpu,cuda,misaligned_reads,19,4,15,0,256,0,8,1.0,1000000,152000000,10,0.217,0.217,0.217,"
             "700.4608,700.4608,0.217000,events' >> membench.csv && grep -q ',10,0,256,0,8,1.0,1000000,152000000,10,0.262' "
             "membench.csv");
    model_inputs in;
    load(&in, dir, "cuda");
    model_prediction p = predict(&in, "pull", "fp32", cube(256));
    NEAR(p.probe.ns_per_cell[0], 0.19 + (0.217 - 0.192));
    /* and says so (L = 15, between the spike and L = 19, moves too) */
    assert_true(says(&p, "4-byte misaligned_reads sweep: read 2 points as the median of their neighbours"));
    assert_int_equal(p.prov.fallbacks[p.prov.n_fallbacks - 1].kind, MODEL_FALLBACK_MEDIAN);
    model_inputs_free(&in);
    remove_folder(dir);
}

static void test_probe_interpolation_edges(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    model_lattice lat = cube(256);
    struct { double words; int L, M; double ns; int within; } cases[] = {
        {10, 0, 0, 0.1, 1},             /* exactly at a measured point */
        {15, 0, 0, 0.15, 1},            /* between points */
        {40, 0, 0, 0.4, 1},             /* the last point */
        {50, 0, 0, 0.4, 0},             /* beyond: clamped */
        {5, 0, 0, 0.1, 0},              /* below: clamped */
        {19, 5, 0, 0.20, 1},            /* reads sweep, between 0 and 10 */
        {19, 0, 19, 0.27, 1},           /* writes sweep, last point */
        {19, 0, 25, 0.27 + 6 * 0.006, 0}, /* beyond the writes sweep: on along its fit slope */
        {19, 5, 3, 0.19 + 5 * 0.002 + 3 * 0.006, 1}, /* not measured together: fits */
        {27, 10, 0, 0.27 + 0.02, 1},    /* N=27: base 0.27, extra of the N=19 sweep */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lat.occupancy = -1;
        model_provenance prov;
        model_provenance_init(&prov);
        const model_probe_shape shape = {cases[i].words, cases[i].L, cases[i].M, 4};
        model_probe_timing t;
        assert_int_equal(model_probe_time(&in, &shape, &lat, &t, &prov, err, sizeof err), 0);
        NEAR(t.ns_per_thread, cases[i].ns);
        assert_int_equal(prov.within_measured, cases[i].within);
        if (!prov.within_measured) assert_non_null(strstr(prov.notes, "clamped"));
    }
    model_inputs_free(&in);
}

static void test_probe_occupancy(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    model_lattice lat = cube(256);
    lat.occupancy = 0.5; /* 0.228 / 0.19 = 1.2 */
    model_prediction p = predict(&in, "push", "fp32", lat);
    NEAR(p.probe.occupancy_factor, 1.2);
    NEAR(p.probe.mlups, 1e3 / 0.3);
    lat.occupancy = 0.75; /* (0.228 + 0.19) / 2 / 0.19 = 1.1 */
    NEAR(predict(&in, "push", "fp32", lat).probe.mlups, 1e3 / 0.275);
    lat.occupancy = 0.1; /* below the sweep: clamped to 0.25 -> 2 */
    p = predict(&in, "push", "fp32", lat);
    NEAR(p.probe.mlups, 1e3 / 0.5);
    assert_int_equal(p.prov.within_measured, 0);
    lat.occupancy = -1; /* 4 blocks of 256 = 0.5 (probe: 8 blocks = 1.0) */
    lat.blocks_per_cu = 4;
    NEAR(predict(&in, "push", "fp32", lat).probe.occupancy_factor, 1.2);
    model_inputs_free(&in);
}

/* A backend that forced no blocks per SM (OpenCL) reads its kernels'
 * occupancy on another backend's forced sweep of the same device: the gpu
 * folder seen by both, CUDA's occupancy rows forced, OpenCL's one row not. */
static void test_probe_occupancy_borrowed(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-model-borrow-XXXXXX";
    gpu_folder(dir,
             "for f in stream.csv launch.csv membench-fit.csv; do "
             "sed -n '2,$s/^test-gpu,cuda,/test-gpu,opencl,/p' $f > t && cat t >> $f; done && "
             "awk -F, -v OFS=, 'NR > 1 && $3 == \"occupancy\" { $9 = $10 } { print }' membench.csv > m && "
             "sed -En '2,$s/^test-gpu,cuda,(word|misaligned)/test-gpu,opencl,\\1/p' membench.csv >> m && "
             "echo 'test-gpu,opencl,occupancy,19,4,0,0,256,0,8,1.0,1000000,152000000,10,0.5,0.5,0.5,1,1,0.5,events' >> m && "
             "mv m membench.csv");
    model_inputs cu, cl;
    load(&cu, dir, "cuda");
    load(&cl, dir, "opencl");
    assert_string_equal(cu.occupancy_from, "cuda");
    assert_string_equal(cl.occupancy_from, "cuda");
    model_lattice lat = cube(256);
    lat.occupancy = 0.5; /* CUDA's curve: 0.228 / 0.19 = 1.2, as test_probe_occupancy */
    NEAR(predict(&cl, "push", "fp32", lat).probe.occupancy_factor, 1.2);
    NEAR(predict(&cu, "push", "fp32", lat).probe.occupancy_factor, 1.2);
    /* OpenCL's own unforced row is not a curve point */
    for (int i = 0; i < cl.n_probes; i++) assert_false(cl.probes[i].sweep == PROBE_OCCUPANCY && cl.probes[i].ns_per_thread > 0.4);
    model_inputs_free(&cu);
    model_inputs_free(&cl);
    remove_folder(dir);
}

/* ---- level 3 ------------------------------------------------------------ */

static void test_full_levels(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    /* large: DRAM plateau both for the probe and the lattice, memory-bound */
    model_prediction p = predict(&in, "push", "fp32", cube(256));
    /* memory 0.25 ns/cell; no graph row: no device gap */
    NEAR(p.full.mlups, 4000);
    assert_int_equal(model_full_answer(&p)->complete, 1);
    NEAR(predict(&in, "aa", "fp32", cube(256)).full.mlups, 1e3 / 0.225);
    /* tiny: 1000 cells, working set 152 kB below the sweep (clamped to the
     * 4000 GB/s of L2), memory 62.5 ns under the 5 us back-to-back
     * launch interval: 200 MLUPS (memory + interval would say 197.5) */
    p = predict(&in, "push", "fp32", cube(10));
    NEAR(p.full.size_sweep.bandwidth_ratio, 0.25);
    NEAR(p.full.mlups, 1000 / 5000.0 * 1e3);
    NEAR(p.full.size_sweep.sum_mlups, 1000 / 5062.5 * 1e3);
    assert_int_equal(model_full_answer(&p)->launch_bound, 1);
    assert_int_equal(p.prov.within_measured, 0);
    /* exactly at a size-sweep point: 10 words, one lattice, 500000 cells =
     * 2e7 B, where the copy gets 1000 GB/s like the probe's 8e7 B */
    model_kernel k = described(10, 0, 0, 1);
    model_lattice lat = {.nx = 100, .ny = 100, .nz = 50, .cells = 5e5, .occupancy = -1, .blocks_per_cu = -1};
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.size_sweep.working_set, 2e7);
    NEAR(p.full.size_sweep.bandwidth_ratio, 1);
    NEAR(p.full.mlups, 1e4);
    assert_int_equal(p.prov.within_measured, 1);
    /* between points: 8 x 125 x 125 push (50^3's cells, in rows of whole
     * sectors: no word a row away straddles), 1.9e7 B between 2e6 (2000
     * GB/s) and 2e7 (1000 GB/s) in log(size) */
    p = predict(&in, "push", "fp32", (model_lattice){.nx = 8, .ny = 125, .nz = 125, .cells = 125000,
                                                      .occupancy = -1, .blocks_per_cu = -1});
    double f = log(1.9e7 / 2e6) / log(10), gbs = 2000 - 1000 * f;
    NEAR(p.full.size_sweep.bandwidth_ratio, 1000 / gbs);
    NEAR(p.full.mlups, 1e3 * 125000 / (125000 * 0.25 * 1000 / gbs));
    assert_int_equal(p.prov.within_measured, 1);
    model_inputs_free(&in);
}

/* The device-side gap (graph replay interval) adds to the memory time; the
 * back-to-back interval stays the floor. */
static void test_device_gap(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_gap_XXXXXX";
    gpu_folder(dir, "echo test-gpu,cuda,graph,1000,10,1,1,1 >> launch.csv");
    model_inputs in;
    load(&in, dir, "cuda");
    model_prediction p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.full.size_sweep.gap_us, 1);
    NEAR(p.full.mlups, 1e3 * 16777216 / (16777216 * 0.25 + 1000));
    assert_int_equal(model_full_answer(&p)->launch_bound, 0);
    p = predict(&in, "push", "fp32", cube(10)); /* 62.5 ns + 1 us < 5 us */
    NEAR(p.full.mlups, 200);
    assert_int_equal(model_full_answer(&p)->launch_bound, 1);
    model_inputs_free(&in);
    remove_folder(dir);
}

/* ---- the CLI ------------------------------------------------------------ */

#define MODEL_OUT lbp_test_tmp("model.out")
#define MODEL_ERR lbp_test_tmp("model.err")

static int run(const char *cmd)
{
    char line[2048];
    snprintf(line, sizeof line, "%s >%s 2>%s", cmd, MODEL_OUT, MODEL_ERR);
    int s = system(line);
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

static int file_has(const char *path, const char *text)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, text) != NULL;
}

/* ---- level 3 from the threads sweep ------------------------------------ */

/* gpu/ plus a 4-byte threads sweep (per-launch ms, back to back):
 * 4096 -> 5 us, 16384 -> 6 us, 65536 -> 10 us, 1048576 -> 200 us, and
 * 256^3 at the words sweep's 0.19 ns per thread; launches back to back
 * every 2 us (launch.csv). */
#define B2B_US 2.0
/* A launch of `us` per the threads curve, the kernel's factor f stretching
 * the part above the back-to-back interval. */
#define STRETCH(us, f) (B2B_US + ((us) - B2B_US) * (f))
static void threads_folder(char *dir)
{
    char cmd[1024];
    gpu_folder(dir, "sed -i 's/^test-gpu,cuda,back_to_back,1000,.*/test-gpu,cuda,back_to_back,1000,10,2,2,2/' launch.csv");
    static const double rows[][2] = {{4096, 0.005}, {16384, 0.006}, {65536, 0.010}, {1048576, 0.2},
                                     {16777216, 16777216 * 0.19e-6}};
    snprintf(cmd, sizeof cmd, "%s/membench.csv", dir);
    FILE *f = fopen(cmd, "a");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        fprintf(f, "test-gpu,cuda,threads,19,4,0,0,256,0,8,1.0,%.0f,%.0f,10,%.12g,%.12g,%.12g,1,1,%.12g,back_to_back\n", rows[i][0],
                152 * rows[i][0], rows[i][1], rows[i][1], rows[i][1], rows[i][1] * 1e6 / rows[i][0]);
    fclose(f);
}

static model_lattice stored(double cells, double stored_cells)
{
    return (model_lattice){.nx = 1, .ny = 1, .nz = 1, .cells = cells, .stored_cells = stored_cells,
                           .occupancy = -1, .blocks_per_cu = -1};
}

static void test_full_threads_sweep(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_threads_XXXXXX";
    threads_folder(dir);
    model_inputs in;
    load(&in, dir, "cuda");
    /* back-to-back rows keep their time: no start cost removed */
    for (int i = 0; i < in.n_probes; i++)
        if (in.probes[i].sweep == PROBE_THREADS && in.probes[i].threads == 4096) NEAR(in.probes[i].launch_us, 5);
    /* at a point: 16^3 = 4096 threads, 5 us, push's factor 0.25 / 0.19
     * stretching the 3 us above the launch interval */
    model_prediction p = predict(&in, "push", "fp32", cube(16));
    assert_int_equal(p.full.path, MODEL_FULL_THREADS_SWEEP);
    NEAR(p.full.threads.us, 5);
    NEAR(p.full.threads.base19_ns, 0.19);
    NEAR(p.full.threads.kernel_factor[0], 0.25 / 0.19);
    NEAR(p.full.mlups, 4096 / STRETCH(5, 0.25 / 0.19));
    NEAR(p.probe.mlups, 4000); /* level 2 untouched by the threads rows */
    assert_int_equal(p.prov.within_measured, 1);
    assert_int_equal(model_full_answer(&p)->complete, 1);
    assert_true(p.full.answer[MODEL_FULL_SIZE_SWEEP].mlups > 0); /* the fallback as a diagnostic */
    assert_false(says(&p, "no threads sweep"));
    /* between points, log-log: 8192 is halfway from 4096 (5 us) to 16384
     * (6 us) in log(threads), so sqrt(5 x 6) us; the updated cells pick the
     * point, not the stored ones (row padding moves nothing) */
    p = predict(&in, "pull", "fp32", stored(8192, 8704));
    NEAR(p.full.threads.us, sqrt(30));
    NEAR(p.full.threads.threads, 8192);
    NEAR(p.full.mlups, 8192 / STRETCH(sqrt(30), 0.21 / 0.19));
    assert_int_equal(p.prov.within_measured, 1);
    p = predict(&in, "pull", "fp32", stored(32768, 32768)); /* sqrt(6 x 10) */
    NEAR(p.full.threads.us, sqrt(60));
    /* 2^22, halfway from 2^20 (200 us) to 2^24 (0.19 ns per thread) in
     * log(threads): within 0.2 % of proportional there */
    p = predict(&in, "push", "fp32", stored(1 << 22, 1 << 22));
    assert_true(fabs(p.full.threads.us - sqrt(200.0 * 16777216.0 * 0.19e-3)) < 1e-6 * p.full.threads.us);
    /* two cells per thread: half the threads, of 8-byte accesses (here the
     * 4-byte sweep x 2), against the 8-byte base probe (0.38 ns, pull 0.41) */
    model_kernel two = {0};
    model_builtin_kernel(&two, "pull", "fp32");
    two.cells_per_thread = 2;
    model_lattice lat32 = cube(32);
    char err2[512];
    assert_int_equal(model_predict(&in, &two, &lat32, &p, err2, sizeof err2), 0);
    NEAR(p.full.threads.threads, 16384);
    NEAR(p.full.threads.us, 12);
    NEAR(p.probe.ns_per_cell[0], 0.41 / 2);
    NEAR(p.full.mlups, 32768 / STRETCH(12, 0.41 / 0.38));
    /* clamped below */
    p = predict(&in, "pull", "fp32", cube(8));
    NEAR(p.full.threads.us, 5);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "below the threads sweep"));
    /* past the largest probe (2.5 GB, far past the L2): at its rate */
    p = predict(&in, "pull", "fp32", cube(300));
    NEAR(p.full.threads.us, 27e6 * 0.19e-3);
    assert_int_equal(p.prov.within_measured, 1);
    /* 256^3: the large end agrees with level 2 (the launch interval, not
     * stretched, is 0.05 % of the launch) */
    p = predict(&in, "push", "fp32", cube(256));
    NEAR(p.full.mlups, 16777216 / STRETCH(16777216 * 0.19e-3, 0.25 / 0.19));
    assert_true(fabs(p.full.mlups / 4000 - 1) < 1e-3);
    /* blocks spread over the SMs in turn: with 4 SMs, 16^3 in blocks of 768
     * is 6 blocks, 2 on the busiest SM, as long as an even launch of
     * 4 x 2 x 768 = 6144 threads (log-log between 4096 and 16384); in
     * blocks of 256, 16 blocks, 4 on each: 4096 */
    in.compute_units = 4;
    model_lattice odd = cube(16);
    odd.block_size = 768;
    p = predict(&in, "pull", "fp32", odd);
    NEAR(p.full.threads.threads, 6144);
    NEAR(p.full.threads.us, 5 * pow(6.0 / 5, log(1.5) / log(4)));
    /* two blocks of 768 resident per SM hold all 6 at once: the same; one
     * per SM takes two waves: the kernel's own 4096 threads (5 us), the part
     * above the launch interval times the busiest SM's 2 blocks over an
     * even 1.5 (the host's interval is paid once) */
    odd.blocks_per_cu = 2;
    NEAR(predict(&in, "pull", "fp32", odd).full.threads.threads, 6144);
    odd.blocks_per_cu = 1;
    p = predict(&in, "pull", "fp32", odd);
    NEAR(p.full.threads.threads, 4096);
    NEAR(p.full.threads.us, STRETCH(5, 1.5));
    odd.blocks_per_cu = -1;
    odd.block_size = 256;
    NEAR(predict(&in, "pull", "fp32", odd).full.threads.threads, 4096);
    in.compute_units = 0;
    /* A-A: per phase (0.19 and 0.26 ns against 0.19), averaged */
    p = predict(&in, "aa", "fp32", cube(16));
    NEAR(p.full.threads.kernel_factor[0], 1);
    NEAR(p.full.threads.kernel_factor[1], 0.26 / 0.19);
    NEAR(p.full.mlups, 4096 / ((STRETCH(5, 1) + STRETCH(5, 0.26 / 0.19)) / 2));
    /* fp64: no 8-byte sweep -> the 4-byte one x 2, against the 8-byte base
     * (0.38 ns at N=19; pull 0.41) */
    p = predict(&in, "pull", "fp64", cube(16));
    NEAR(p.full.threads.us, 10);
    assert_int_equal(p.full.threads.word_bytes, 4);
    NEAR(p.full.mlups, 4096 / STRETCH(10, 0.41 / 0.38));
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "no 8-byte threads sweep"));
    /* N != 19 carries T(N) / T(19); K launches multiply */
    model_kernel k = described(10, 0, 0, 2);
    model_lattice lat = stored(4096, 4096);
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, 4096 / STRETCH(5, 0.1 / 0.19));
    k.launches_per_step = 3;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, 4096 / (3 * STRETCH(5, 0.1 / 0.19)));
    model_inputs_free(&in);
    /* predict names the path and the numbers */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "./model/model predict --data %s --backend cuda --scheme push --precision fp32 --size 16",
             dir);
    if (!access("model/model", X_OK)) {
        assert_int_equal(run(cmd), 0);
        assert_true(file_has(MODEL_OUT, "threads-sweep path"));
        assert_true(file_has(MODEL_OUT, "4096 threads"));
        assert_true(file_has(MODEL_OUT, "5.000 us per launch"));
        snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 100 --max-error-small 1000",
                 dir);
        assert_int_equal(run(cmd), 0);
        assert_true(file_has(MODEL_OUT, "level 3 from the membench threads sweep"));
        snprintf(cmd, sizeof cmd, "%s/model-meta.csv", dir);
        assert_true(file_has(cmd, "full_path,threads_sweep"));
    }
    remove_folder(dir);
    /* without a threads sweep: the size-sweep path, said so */
    load(&in, DATA "gpu", "cuda");
    p = predict(&in, "push", "fp32", cube(16));
    assert_int_equal(p.full.path, MODEL_FULL_SIZE_SWEEP);
    assert_true(says(&p, "no threads sweep"));
    model_inputs_free(&in);
}

/* Threads curves at two occupancies: 1.0 (as many blocks as fit) and 0.5
 * (4 blocks forced, twice the time).  A kernel's occupancy picks between
 * them, linearly in 1 / occupancy; outside it clamps; unknown reads the
 * full curve. */
static void test_full_threads_occupancy(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_occ_XXXXXX", path[600];
    threads_folder(dir);
    static const double rows[][2] = {{4096, 0.010}, {16384, 0.012}, {65536, 0.020}, {16777216, 16777216 * 0.38e-6}};
    snprintf(path, sizeof path, "%s/membench.csv", dir);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        fprintf(f, "test-gpu,cuda,threads,19,4,0,0,256,4,4,0.5,%.0f,%.0f,10,%.12g,%.12g,%.12g,1,1,%.12g,back_to_back\n",
                rows[i][0], 152 * rows[i][0], rows[i][1], rows[i][1], rows[i][1], rows[i][1] * 1e6 / rows[i][0]);
    fclose(f);
    model_inputs in;
    load(&in, dir, "cuda");
    model_lattice lat = cube(16);
    lat.occupancy = 0.5;
    model_prediction p = predict(&in, "pull", "fp32", lat);
    NEAR(p.full.threads.us, 10);
    NEAR(p.full.threads.occupancy, 0.5);
    assert_int_equal(p.full.threads.curves, 2);
    NEAR(p.full.threads.kernel_factor[0], 0.21 / 0.19); /* misalignment only: occupancy is in the curve */
    NEAR(p.full.mlups, 4096 / STRETCH(10, 0.21 / 0.19));
    assert_int_equal(p.prov.within_measured, 1);
    lat.occupancy = 0.75; /* linear in 1 / occupancy: 2/3 of the way from 0.5 to 1 */
    NEAR(predict(&in, "pull", "fp32", lat).full.threads.us, 10 - 5 * 2.0 / 3);
    lat.occupancy = 0.25;
    p = predict(&in, "pull", "fp32", lat);
    NEAR(p.full.threads.us, 10);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "outside the threads sweep"));
    lat.occupancy = -1;
    NEAR(predict(&in, "pull", "fp32", lat).full.threads.us, 5);
    model_inputs_free(&in);
    /* with 4 SMs, the 4-block curve holds 4 x 256 x 4 = 4096 threads at
     * once: at 16^3 forcing fewer blocks changes nothing that runs, and the
     * faster measurement of that configuration counts (the full curve's);
     * at 32^3 it does not hold them */
    snprintf(path, sizeof path, "%s/stream-meta.csv", dir);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("compute_units,4\n", f);
    fclose(f);
    load(&in, dir, "cuda");
    lat.occupancy = 0.5;
    NEAR(predict(&in, "pull", "fp32", lat).full.threads.us, 5);
    model_lattice lat32 = cube(32);
    lat32.occupancy = 0.5;
    NEAR(predict(&in, "pull", "fp32", lat32).full.threads.us, sqrt(12.0 * 20.0));
    model_inputs_free(&in);
    remove_folder(dir);
}


/* membench.csv with the ops column: the gpu folder's rows (ops 0), the
 * aligned threads curve of threads_folder, and `extra` rows. */
static void variants_folder(char *dir, const char *extra)
{
    char cmd[1024];
    threads_folder(dir);
    snprintf(cmd, sizeof cmd, "cd %s && sed -e '1s/$/,ops/' -e '2,$s/$/,0/' membench.csv > m.csv && mv m.csv membench.csv", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/membench.csv", dir);
    FILE *f = fopen(cmd, "a");
    assert_non_null(f);
    fputs(extra, f);
    fclose(f);
}

/* A probe row: sweep, N, L, M, block, k, occupancy, threads, ms, timing, ops. */
static void row_w(char *buf, size_t len, const char *sweep, int w, int L, int M, int block, int k, double occupancy,
                  double threads, double ms, const char *timing, int ops)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used,
             "test-gpu,cuda,%s,19,%d,%d,%d,%d,%d,%d,%g,%.0f,%.0f,10,%.12g,%.12g,%.12g,1,1,%.12g,%s,%d\n", sweep, w, L,
             M, block, k, k, occupancy, threads, 38.0 * w * threads, ms, ms, ms, ms * 1e6 / threads, timing, ops);
}

static void row(char *buf, size_t len, const char *sweep, int L, int M, int block, int k, double occupancy,
                double threads, double ms, const char *timing, int ops)
{
    row_w(buf, len, sweep, 4, L, M, block, k, occupancy, threads, ms, timing, ops);
}

/* The payload sweep (arithmetic per cell), misaligned stores at the
 * kernel's block size and occupancy, and misalignment and payload at the
 * lattice's thread count: each against numbers known by hand. */
static void test_payload_and_variants(void **state)
{
    (void)state;
    static char extra[8192];
    extra[0] = 0;
    /* ops 0 (the words sweep's N=19, 0.19 ns) .. 151 (0.38 ns) */
    row(extra, sizeof extra, "words", 0, 0, 256, 0, 1.0, 1e6, 0.19, "events", 0);
    row(extra, sizeof extra, "payload", 0, 0, 256, 0, 1.0, 1e6, 0.38, "events", 151);
    char dir[] = "/tmp/test_model_payload_XXXXXX";
    variants_folder(dir, extra);
    model_inputs in;
    load(&in, dir, "cuda");
    model_kernel k = described(19, 0, 0, 2);
    model_lattice lat = cube(256);
    model_prediction p, q;
    assert_int_equal(model_predict(&in, &k, &lat, &q, err, sizeof err), 0); /* no arithmetic */
    NEAR(q.probe.compute_factor, 1);
    k.ops_per_cell = 150;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    /* event-timed rows lose the start cost (2 us): 0.188 and 0.378 ns */
    const double t0 = 0.188, t151 = 0.378, f150 = (t0 + (t151 - t0) * 150 / 151) / t0;
    NEAR(p.probe.compute_factor, f150);
    NEAR(p.probe.ns_per_cell[0], q.probe.ns_per_cell[0] * f150);
    assert_true(says(&p, "payload sweep"));
    assert_int_equal(p.prov.within_measured, 1);
    k.ops_per_cell = 302; /* past the sweep: clamped, said so */
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.probe.compute_factor, t151 / t0);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "past the payload sweep"));
    model_inputs_free(&in);
    remove_folder(dir);

    /* a disturbed point (140 operations slower than 151) takes the time of
     * the point after it: the factor at 150 is the 151 point's, not 5 %
     * above it as between 0.598 and 0.378 */
    extra[0] = 0;
    row(extra, sizeof extra, "words", 0, 0, 256, 0, 1.0, 1e6, 0.19, "events", 0);
    row(extra, sizeof extra, "payload", 0, 0, 256, 0, 1.0, 1e6, 0.60, "events", 140);
    row(extra, sizeof extra, "payload", 0, 0, 256, 0, 1.0, 1e6, 0.38, "events", 151);
    char disturbed[] = "/tmp/test_model_payload_XXXXXX";
    variants_folder(disturbed, extra);
    load(&in, disturbed, "cuda");
    k.ops_per_cell = 150;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.probe.compute_factor, t151 / t0);
    assert_true(says(&p, "slower than at 151"));
    model_inputs_free(&in);
    remove_folder(disturbed);

    /* occupancy sweep at block 512: aligned 0.202 / 0.192 ms at occupancy
     * 0.5 / 1, 10 misaligned stores x 1.05 / x 1.15 (after the start cost),
     * 10 misaligned loads x 2 (shared memory took the L1: not read) */
    extra[0] = 0;
    row(extra, sizeof extra, "occupancy", 0, 0, 512, 4, 0.5, 1e6, 0.202, "events", 0);
    row(extra, sizeof extra, "occupancy", 0, 0, 512, 8, 1.0, 1e6, 0.192, "events", 0);
    row(extra, sizeof extra, "occupancy", 0, 10, 512, 4, 0.5, 1e6, 0.002 + 0.2 * 1.05, "events", 0);
    row(extra, sizeof extra, "occupancy", 0, 10, 512, 8, 1.0, 1e6, 0.002 + 0.19 * 1.15, "events", 0);
    row(extra, sizeof extra, "occupancy", 10, 0, 512, 4, 0.5, 1e6, 0.402, "events", 0);
    row(extra, sizeof extra, "occupancy", 10, 0, 512, 8, 1.0, 1e6, 0.382, "events", 0);
    /* block 1024, of which one block fits per SM (occupancy 0.5): one row
     * per variant, aligned 0.202 ms, the payload x 1.08, 10 misaligned
     * stores x 1.06 */
    row(extra, sizeof extra, "occupancy", 0, 0, 1024, 1, 0.5, 1e6, 0.202, "events", 0);
    row(extra, sizeof extra, "occupancy", 0, 0, 1024, 1, 0.5, 1e6, 0.002 + 0.2 * 1.08, "events", 151);
    row(extra, sizeof extra, "occupancy", 0, 10, 1024, 1, 0.5, 1e6, 0.002 + 0.2 * 1.06, "events", 0);
    /* and with 8-byte words (double payload): x 1.02 */
    row_w(extra, sizeof extra, "occupancy", 8, 0, 0, 1024, 1, 0.5, 1e6, 0.402, "events", 0);
    row_w(extra, sizeof extra, "occupancy", 8, 0, 0, 1024, 1, 0.5, 1e6, 0.002 + 0.4 * 1.02, "events", 151);
    /* threads curves at k = 0: 10 misaligned stores x 1.5 at 4096 threads,
     * x 1.1 at the top; the payload x 1.3 at 4096, x 1 at the top */
    static const double t[][2] = {{4096, 0.005}, {16777216, 16777216 * 0.19e-6}};
    for (int i = 0; i < 2; i++) {
        row(extra, sizeof extra, "threads", 0, 10, 256, 0, 1.0, t[i][0], t[i][1] * (i ? 1.1 : 1.5), "back_to_back", 0);
        row(extra, sizeof extra, "threads", 0, 0, 256, 0, 1.0, t[i][0], t[i][1] * (i ? 1.0 : 1.3), "back_to_back", 151);
    }
    char dir2[] = "/tmp/test_model_variants_XXXXXX";
    variants_folder(dir2, extra);
    load(&in, dir2, "cuda");
    lat = cube(256);
    lat.block_size = 512;
    lat.occupancy = 0.5;
    p = predict(&in, "push", "fp32", lat);
    assert_true(says(&p, "L=0 M=10 at the kernel's block size and occupancy: x 1.050"));
    p = predict(&in, "pull", "fp32", lat);
    assert_false(says(&p, "at the kernel's block size and occupancy: x"));
    /* one row per variant at block 1024: read where it is the kernel's
     * launch (occupancy 0.5), not elsewhere */
    lat.block_size = 1024;
    p = predict(&in, "push", "fp32", lat);
    NEAR(p.probe.compute_factor, 1 + 0.08 * 150 / 151);
    assert_true(says(&p, "payload probe at the kernel's block size and occupancy"));
    assert_true(says(&p, "L=0 M=10 at the kernel's block size and occupancy: x 1.060"));
    /* two cells per thread: the 8-byte payload, 2 x 150 operations per
     * thread against its 151 */
    {
        model_kernel two = {0};
        model_builtin_kernel(&two, "pull", "fp32");
        two.cells_per_thread = 2;
        char err2[512];
        assert_int_equal(model_predict(&in, &two, &lat, &p, err2, sizeof err2), 0);
        NEAR(p.probe.compute_factor, 1 + 0.02 * 300 / 151);
    }
    lat.occupancy = 0.25;
    p = predict(&in, "push", "fp32", lat);
    NEAR(p.probe.compute_factor, 1); /* no payload probe of that launch, no payload sweep */
    assert_false(says(&p, "payload probe at the kernel's block size and occupancy"));
    /* the stores: at the sweep's most common block size (512), its lowest occupancy */
    assert_true(says(&p, "L=0 M=10 at the kernel's block size and occupancy: x 1.050"));
    assert_true(says(&p, "4-byte occupancy sweep, L=0 M=10 at block 1024: read block 512, the sweep's most common"));
    /* 16^3 = 4096 threads: push's kernel factor x (1.5 / 1.1) x (1 + 0.3 x 150 / 151) */
    lat = cube(16);
    p = predict(&in, "push", "fp32", lat);
    NEAR(p.full.threads.l2_factor[0], 1.5 / 1.1 * (1 + 0.3 * 150 / 151));
    lat = cube(256); /* the top: as in DRAM */
    NEAR(predict(&in, "push", "fp32", lat).full.threads.l2_factor[0], 1);
    model_inputs_free(&in);
    remove_folder(dir2);
}

/* A variant of the occupancy sweep over the aligned probe at the same
 * launch, where the aligned one was swept at another word size only: that
 * one, times the two sizes' N=19 base probes' ratio, and said so. */
static void test_lookup_aligned_other_word(void **state)
{
    (void)state;
    static char extra[4096];
    extra[0] = 0;
    row(extra, sizeof extra, "words", 0, 0, 256, 0, 1.0, 1e6, 0.192, "events", 0);     /* 0.19 ns */
    row_w(extra, sizeof extra, "words", 8, 0, 0, 256, 0, 1.0, 1e6, 0.382, "events", 0); /* 0.38 ns: x 2 */
    row(extra, sizeof extra, "occupancy", 0, 0, 512, 4, 0.5, 1e6, 0.202, "events", 0);
    row(extra, sizeof extra, "occupancy", 0, 0, 512, 8, 1.0, 1e6, 0.192, "events", 0);
    row_w(extra, sizeof extra, "occupancy", 8, 0, 0, 512, 4, 0.5, 1e6, 0.002 + 0.4 * 1.1, "events", 151);
    row_w(extra, sizeof extra, "occupancy", 8, 0, 0, 512, 8, 1.0, 1e6, 0.002 + 0.38 * 1.1, "events", 151);
    char dir[] = "/tmp/test_model_aligned_XXXXXX";
    variants_folder(dir, extra);
    model_inputs in;
    load(&in, dir, "cuda");
    model_lattice lat = cube(256);
    lat.block_size = 512;
    lat.occupancy = 0.5;
    model_provenance prov;
    model_provenance_init(&prov);
    int ops = 0;
    const model_variant payload = {.word_bytes = 8, .payload = 1};
    NEAR(model_variant_ratio(&in, &payload, &lat, &ops, &prov), 1.1);
    assert_int_equal(ops, 151);
    assert_true(model_provenance_says(&prov, "aligned 8-byte occupancy sweep at block 512: read the 4-byte one x 2.000"));
    assert_int_equal(prov.within_measured, 1);
    model_inputs_free(&in);
    remove_folder(dir);
}

/* ---- level 3 from the geometry sweep ----------------------------------- */

/* threads_folder plus model-data/geometry/membench-geometry.csv: the N=19
 * probe back to back at block 768, 1 block per SM forced, per-launch µs
 * (ms_median x 1e3; ms_min and ms_max differ, so that reading another
 * column would show):
 *
 *   4-byte words      2048   4096  32768 threads
 *   L=0  M=0            3.5    6     20
 *   L=0  M=0  ops 151   4.5    8     26
 *   L=10 M=0            4.5    7     24
 *   L=10 M=0  ops 151   6     10     33
 *   L=0  M=10           5      8     30
 *   L=0  M=10 ops 151   6.5   10.5   38
 *   L=10 M=10           6      9     34
 *   L=10 M=10 ops 151   7     12     44
 *   8-byte words      2048   4096
 *   L=0  M=0            5      8
 *   L=0  M=0  ops 151   9     14
 *   L=10 M=0            6      9.5
 *   L=10 M=0  ops 151  11     16
 *
 * in place (column in_place 1), 4-byte words   2048   4096
 *   L=0  M=0                                     3      4
 *   L=0  M=0  ops 151                            4      5.5
 *   L=10 M=10                                    5      7
 *   L=10 M=10 ops 151                            6      9
 *
 * and rows the path must never read, 50 us (60 with the payload) at all
 * three 4-byte thread counts: L=5 M=0 (it answers only L and M of 0 or 10)
 * and L=10 M=0 with blocks per SM not forced (blocks_per_cu_requested 0),
 * and 500 us in place at L=M=10, 4096 threads, not forced;
 * and an opencl row (L=10 M=0, 4096 threads, 500 us) that a cuda load must
 * not read.  The launch interval is threads_folder's 2 us, the L2 the gpu
 * folder's 1e6 B; the built-in kernels do 150 operations per cell. */
#define OPS_SHARE (150.0 / 151)
/* threads_folder plus the membench-geometry.csv of model-data/<fixture>,
 * and threads_folder alone (the threads path's answer), loaded for cuda. */
static void geometry_and_plain_from(const char *fixture, char *dir, char *plain_dir, model_inputs *in,
                                    model_inputs *plain)
{
    char cmd[600];
    threads_folder(dir);
    snprintf(cmd, sizeof cmd, "cp " DATA "%s/membench-geometry*.csv %s/", fixture, dir);
    assert_int_equal(system(cmd), 0);
    threads_folder(plain_dir);
    load(in, dir, "cuda");
    load(plain, plain_dir, "cuda");
}

static void geometry_and_plain(char *dir, char *plain_dir, model_inputs *in, model_inputs *plain)
{
    geometry_and_plain_from("geometry", dir, plain_dir, in, plain);
}

/* cube(n) launched in blocks of `block`, `blocks_per_cu` resident per SM */
static model_lattice launched(long long n, int block, double blocks_per_cu)
{
    model_lattice lat = cube(n);
    lat.block_size = block;
    lat.blocks_per_cu = blocks_per_cu;
    return lat;
}

/* The threads path answers, as it does without membench-geometry.csv. */
static void threads_path_answers(const model_inputs *geo, const model_inputs *plain, const model_kernel *k,
                                 model_lattice lat)
{
    model_prediction p, q;
    assert_int_equal(model_predict(geo, k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(model_predict(plain, k, &lat, &q, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_THREADS_SWEEP);
    assert_int_equal(q.full.path, MODEL_FULL_THREADS_SWEEP);
    NEAR(p.full.mlups, q.full.mlups);
    assert_false(p.full.answer[MODEL_FULL_GEOMETRY].applies); /* the geometry path did not answer */
}

/* Past the geometry sweep's largest count at a launch (32768 threads,
 * 4,980,736 B of two 4-byte lattices): with an L2 of 2e5 B that count
 * streamed 24.9 L2s, and the launch is carried along the threads sweep's
 * aligned curve (log-log between its points: 16384 at 6 us, 65536 at 10,
 * 1048576 at 200), saying so; with the fixture's L2 of 1e6 B (5 L2s) it
 * is not, and the threads path answers. */
static void test_full_geometry_past_its_top(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    threads_path_answers(&in, &plain, &pull, launched(48, 768, 1)); /* 110592 threads */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "sed -i 's/^l2_bytes,.*/l2_bytes,200000/' %s/stream-meta.csv", dir);
    assert_int_equal(system(cmd), 0);
    model_inputs small_l2;
    load(&small_l2, dir, "cuda");
    model_prediction p = predict(&small_l2, "pull", "fp32", launched(48, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    const double at_top = 6 * pow(2, log(10.0 / 6) / log(4)), at_t = 10 * pow(110592.0 / 65536, log(20.0) / log(16));
    const double r = at_t / at_top; /* the geometry's L=10 M=0 probe: 24 us, 33 with the payload */
    NEAR(model_full_answer(&p)->memory_us[0], 24 * r + 9 * r * OPS_SHARE);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "carried along the threads sweep"));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    model_inputs_free(&small_l2);
    remove_folder(dir);
    remove_folder(plain_dir);
}

static void test_full_geometry(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    int geometry_rows = 0;
    for (int i = 0; i < in.n_probes; i++)
        if (in.probes[i].sweep == PROBE_GEOMETRY) {
            geometry_rows++;
            assert_int_equal(in.probes[i].words, 19);
        }
    assert_int_equal(geometry_rows, 53); /* 24 + 8 + 8 in place + 13 never read, not the opencl row */

    /* at a point: pull fp32 at 16^3 = 4096 threads, L=10 M=0: 7 us, plus
     * the payload's excess 10 - 7 = 3 us x 150 / 151 */
    model_prediction p = predict(&in, "pull", "fp32", launched(16, 768, 1));
    model_prediction q = predict(&plain, "pull", "fp32", launched(16, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 7 + 3 * OPS_SHARE);
    NEAR(p.full.mlups, 4096 / (7 + 3 * OPS_SHARE));
    NEAR(p.full.geometry.aligned_us, 6); /* printed: the plain (0/0) probe at 4096 threads */
    NEAR(p.full.geometry.threads, 4096);
    assert_int_equal(p.full.geometry.word_bytes, 4);
    /* the threads path's answer kept beside it: the same as without the file */
    assert_int_equal(q.full.path, MODEL_FULL_THREADS_SWEEP);
    NEAR(p.full.answer[MODEL_FULL_THREADS_SWEEP].mlups, q.full.mlups);
    assert_true(fabs(p.full.mlups - q.full.mlups) > 1e-3 * q.full.mlups);
    NEAR(p.probe.mlups, q.probe.mlups); /* levels 1 and 2 untouched */
    NEAR(p.roofline.mlups, q.roofline.mlups);
    /* push (L=0 M=10): 8 us + (10.5 - 8) x 150 / 151; the aligned probe
     * there is 6 us */
    p = predict(&in, "push", "fp32", launched(16, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.mlups, 4096 / (8 + 2.5 * OPS_SHARE));
    /* between the thread counts, each curve log-log: 24^3 = 13824 threads
     * is log(3.375) / log(8) = log(1.5) / log(2) of the way from 4096 to
     * 32768: 7 x (24 / 7)^f and 10 x (33 / 10)^f */
    const double f = log(1.5) / log(2), t = 7 * pow(24.0 / 7, f), tp = 10 * pow(33.0 / 10, f);
    p = predict(&in, "pull", "fp32", launched(24, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.geometry.threads, 13824);
    NEAR(model_full_answer(&p)->memory_us[0], t + (tp - t) * OPS_SHARE);
    NEAR(p.full.mlups, 13824 / (t + (tp - t) * OPS_SHARE));
    NEAR(p.full.answer[MODEL_FULL_THREADS_SWEEP].mlups, predict(&plain, "pull", "fp32", launched(24, 768, 1)).full.mlups);
    /* a kernel without arithmetic: the probe alone (7 us at 4096) */
    model_kernel k = described(19, 10, 0, 2);
    model_lattice lat = launched(16, 768, 1);
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.mlups, 4096 / 7.0);
    /* K launches per step: K x the launch */
    k.launches_per_step = 3;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    NEAR(p.full.mlups, 4096 / 21.0);
    /* the CLI names the path */
    char cmd[1024];
    if (!access("model/model", X_OK)) {
        snprintf(cmd, sizeof cmd, "./model/model predict --data %s --backend cuda --scheme pull --precision fp32 "
                 "--size 16 --block-size 768 --blocks-per-sm 1", dir);
        assert_int_equal(run(cmd), 0);
        assert_true(file_has(MODEL_OUT, "geometry path"));
        assert_true(file_has(MODEL_OUT, "4096 threads"));
        assert_true(file_has(MODEL_OUT, "(threads-sweep path, not used)"));
    }
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(plain_dir);
    /* validate counts the points the geometry path answered: one lbm.csv
     * row at 16^3 in blocks of 768, one per SM (measured 410 MLUPS) */
    snprintf(cmd, sizeof cmd, "echo test-gpu,cuda,pull,fp32,periodic,16,16,16,16,4096,768,10,5,0.0999,0.0999,0.0999,"
             "410,410,0,-1,1,0.375,2,152 >> %s/lbm.csv", dir);
    assert_int_equal(system(cmd), 0);
    if (!access("model/model", X_OK)) {
        snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 100 --max-error-small 1000",
                 dir);
        assert_int_equal(run(cmd), 0);
        assert_true(file_has(MODEL_OUT, "1 points from the geometry path"));
        /* the probes of block 256 read for the kernel's 768, counted */
        assert_true(file_has(MODEL_OUT, "points that read a fallback (model predict shows which): block size 1"));
        snprintf(cmd, sizeof cmd, "%s/model-meta.csv", dir);
        assert_true(file_has(cmd, "geometry_points,1"));
        assert_true(file_has(cmd, "full_path,geometry+threads_sweep"));
        snprintf(cmd, sizeof cmd, "%s/model.csv", dir);
        char full[64];
        snprintf(full, sizeof full, ",%.3f,", 4096 / (7 + 3 * OPS_SHARE));
        assert_true(file_has(cmd, full));
    }
    remove_folder(dir);
}

/* Level 3's paths are asked in order -- geometry, threads sweep, size
 * sweep --, the first that applies answers, and the others are computed
 * beside it with their own clamps, which are not the answer's. */
static void test_full_paths_precedence(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    /* 2048 threads: the geometry sweep's lowest count, below the threads sweep's 4096 */
    model_lattice lat = {.nx = 2048, .ny = 1, .nz = 1, .cells = 2048, .occupancy = -1, .blocks_per_cu = 1,
                         .block_size = 768};
    model_prediction p = predict(&in, "push", "fp32", lat);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    for (int i = 0; i < MODEL_FULL_PATHS; i++) assert_int_equal(p.full.answer[i].applies, 1);
    NEAR(p.full.mlups, p.full.answer[MODEL_FULL_GEOMETRY].mlups);
    NEAR(p.full.mlups, 2048 / (5 + 1.5 * OPS_SHARE)); /* L=0 M=10 there: 5 us, payload 6.5 */
    assert_true(p.full.answer[MODEL_FULL_SIZE_SWEEP].mlups > 0);
    assert_int_equal(p.full.answer[MODEL_FULL_THREADS_SWEEP].prov.within_measured, 0);
    assert_true(model_provenance_says(&p.full.answer[MODEL_FULL_THREADS_SWEEP].prov, "below the threads sweep"));
    assert_false(says(&p, "below the threads sweep"));
    assert_int_equal(p.prov.within_measured, 1);
    /* without the geometry file the threads path answers; without a
     * threads sweep, the size sweep */
    p = predict(&plain, "push", "fp32", lat);
    assert_int_equal(p.full.path, MODEL_FULL_THREADS_SWEEP);
    assert_int_equal(p.full.answer[MODEL_FULL_GEOMETRY].applies, 0);
    assert_int_equal(p.prov.within_measured, 0);
    assert_true(says(&p, "below the threads sweep"));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    load(&in, DATA "gpu", "cuda");
    p = predict(&in, "push", "fp32", lat);
    assert_int_equal(p.full.path, MODEL_FULL_SIZE_SWEEP);
    assert_int_equal(p.full.answer[MODEL_FULL_GEOMETRY].applies + p.full.answer[MODEL_FULL_THREADS_SWEEP].applies, 0);
    model_inputs_free(&in);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* Where the geometry sweep did not measure the kernel's launch, the threads
 * path answers, exactly as without the file. */
static void test_geometry_fallbacks(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    /* the control: measured there */
    model_prediction p;
    model_lattice lat = launched(16, 768, 1);
    assert_int_equal(model_predict(&in, &pull, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    /* blocks per SM unknown (as many as fit: OpenCL, or not given), even
     * where the sweep has rows of as many as fit (requested 0) */
    threads_path_answers(&in, &plain, &pull, launched(16, 768, 0));
    threads_path_answers(&in, &plain, &pull, launched(16, 768, -1));
    /* a blocks-per-SM count or block size the sweep did not force */
    threads_path_answers(&in, &plain, &pull, launched(16, 768, 2));
    threads_path_answers(&in, &plain, &pull, launched(16, 512, 1));
    threads_path_answers(&in, &plain, &pull, launched(16, 0, 1));
    /* thread counts outside the sweep's 2048 .. 32768: 64^3 and 8^3 */
    threads_path_answers(&in, &plain, &pull, launched(64, 768, 1));
    threads_path_answers(&in, &plain, &pull, launched(8, 768, 1));
    /* L or M not 0 or 10: 5 misaligned reads, even with L=5 rows there
     * (10 answers, the control) */
    model_kernel k = described(19, 10, 0, 2);
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    k = described(19, 5, 0, 2);
    threads_path_answers(&in, &plain, &k, lat);
    k = described(19, 0, 19, 2);
    threads_path_answers(&in, &plain, &k, lat);
    /* N != 19, read or written */
    k = described(10, 10, 0, 2);
    threads_path_answers(&in, &plain, &k, lat);
    k = described(19, 10, 0, 2);
    k.words_written = 18;
    threads_path_answers(&in, &plain, &k, lat);
    /* A-A with one phase not measured: the whole kernel falls back */
    k = described(19, 0, 0, 1);
    k.phases = 2;
    k.misaligned_reads[1] = 10;
    k.misaligned_writes[1] = 5;
    threads_path_answers(&in, &plain, &k, lat);
    /* the 8-byte rows stop at 4096 threads: fp64 at 24^3 (13824) falls back */
    model_kernel pull64;
    assert_int_equal(model_builtin_kernel(&pull64, "pull", "fp64"), 0);
    threads_path_answers(&in, &plain, &pull64, launched(24, 768, 1));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* A-A keeps one lattice: each phase reads the in-place rows (its L = M),
 * the step is the mean of the two phases. */
static void test_geometry_aa(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    /* 16^3 = 4096 threads: even phase 4 + (5.5 - 4) x 150/151, odd phase
     * 7 + (9 - 7) x 150/151 */
    model_lattice lat = launched(16, 768, 1);
    model_prediction p = predict(&in, "aa", "fp32", lat);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 4 + 1.5 * OPS_SHARE);
    NEAR(model_full_answer(&p)->memory_us[1], 7 + 2 * OPS_SHARE);
    NEAR(p.full.geometry.aligned_us, 4); /* printed: the aligned in-place probe at the kernel's thread count */
    assert_int_equal(p.full.geometry.layout, PROBE_LAYOUT_IN_PLACE);
    NEAR(p.full.mlups, 4096 / ((4 + 1.5 * OPS_SHARE + 7 + 2 * OPS_SHARE) / 2));
    /* 2048 cells: 3 + 1 x 150/151 and 5 + 1 x 150/151 */
    lat = (model_lattice){.nx = 2048, .ny = 1, .nz = 1, .cells = 2048, .occupancy = -1, .blocks_per_cu = 1,
                          .block_size = 768};
    p = predict(&in, "aa", "fp32", lat);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 3 + OPS_SHARE);
    NEAR(model_full_answer(&p)->memory_us[1], 5 + OPS_SHARE);
    /* two lattices (a pull-like kernel with A-A's phases): the separate
     * arrays, 6 + 2 x 150/151 and 9 + 3 x 150/151 */
    model_kernel two = described(19, 0, 0, 2);
    two.phases = 2;
    two.misaligned_reads[1] = two.misaligned_writes[1] = 10;
    two.ops_per_cell = D3Q19_BGK_OPS;
    lat = launched(16, 768, 1);
    assert_int_equal(model_predict(&in, &two, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 6 + 2 * OPS_SHARE);
    NEAR(model_full_answer(&p)->memory_us[1], 9 + 3 * OPS_SHARE);
    /* where the in-place rows stop (32768 threads), or for one lattice
     * with L != M (no in-place probe of that), the threads path answers */
    model_kernel aa;
    assert_int_equal(model_builtin_kernel(&aa, "aa", "fp32"), 0);
    threads_path_answers(&in, &plain, &aa, launched(32, 768, 1));
    model_kernel one = described(19, 10, 0, 1);
    threads_path_answers(&in, &plain, &one, launched(16, 768, 1));
    /* blocks per SM not forced: never the 500 us row */
    threads_path_answers(&in, &plain, &aa, launched(16, 768, 0));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    /* a file without in-place rows (written before membench had them): A-A
     * falls back to the threads path, the others keep the geometry path */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "grep -v ',1$' %s/membench-geometry.csv > %s/g.csv && mv %s/g.csv %s/membench-geometry.csv",
             dir, dir, dir, dir);
    assert_int_equal(system(cmd), 0);
    load(&in, dir, "cuda");
    load(&plain, plain_dir, "cuda");
    threads_path_answers(&in, &plain, &aa, launched(16, 768, 1));
    assert_int_equal(predict(&in, "pull", "fp32", launched(16, 768, 1)).full.path, MODEL_FULL_GEOMETRY);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* model-data/geometry-swapped: the geometry folder's rows (column swapped
 * 0) and, at block 768, 1 block per SM, 4-byte words, the probe with its
 * arrays swapped at every launch (swapped 1), per-launch µs:
 *
 *                      2048   4096 threads
 *   L=0  M=0             3      5
 *   L=10 M=0             4      5.5
 *   L=10 M=0  ops 151    5      8
 *   L=0  M=10            4.5    6.5
 *   L=0  M=10 ops 151    5.5    9
 *
 * A kernel of two lattices reads them where they were measured; A-A the
 * in-place rows; where the swapped rows stop, the threads path answers. */
static void test_geometry_swapped(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    char cmd[600];
    model_inputs in, plain;
    geometry_and_plain_from("geometry-swapped", dir, plain_dir, &in, &plain);
    int swapped = 0;
    for (int i = 0; i < in.n_probes; i++) swapped += in.probes[i].swapped;
    assert_int_equal(swapped, 12);
    /* pull, 16^3: 5.5 + (8 - 5.5) x 150/151 (not the same arrays' 7 + 3) */
    model_prediction p = predict(&in, "pull", "fp32", launched(16, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    assert_int_equal(p.full.geometry.layout, PROBE_LAYOUT_SWAPPED);
    NEAR(model_full_answer(&p)->memory_us[0], 5.5 + 2.5 * OPS_SHARE);
    NEAR(p.full.geometry.aligned_us, 5);
    /* push, 2048 cells: 4.5 + 1 x 150/151 */
    model_lattice lat = {.nx = 2048, .ny = 1, .nz = 1, .cells = 2048, .occupancy = -1, .blocks_per_cu = 1,
                         .block_size = 768};
    p = predict(&in, "push", "fp32", lat);
    assert_int_equal(p.full.geometry.layout, PROBE_LAYOUT_SWAPPED);
    NEAR(model_full_answer(&p)->memory_us[0], 4.5 + OPS_SHARE);
    /* A-A: in place as before, 4 + 1.5 x 150/151 and 7 + 2 x 150/151 */
    p = predict(&in, "aa", "fp32", launched(16, 768, 1));
    assert_int_equal(p.full.geometry.layout, PROBE_LAYOUT_IN_PLACE);
    NEAR(model_full_answer(&p)->memory_us[0], 4 + 1.5 * OPS_SHARE);
    NEAR(model_full_answer(&p)->memory_us[1], 7 + 2 * OPS_SHARE);
    /* 24^3 = 13824 threads: past the swapped rows, so the threads path (not
     * the same arrays' rows, which reach 32768) */
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    threads_path_answers(&in, &plain, &pull, launched(24, 768, 1));
    /* the CLI says which probes it read */
    if (!access("model/model", X_OK)) {
        snprintf(cmd, sizeof cmd, "./model/model predict --data %s --backend cuda --scheme pull --precision fp32 "
                 "--size 16 --block-size 768 --blocks-per-sm 1", dir);
        assert_int_equal(run(cmd), 0);
        assert_true(file_has(MODEL_OUT, "arrays swapped at every launch"));
    }
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* Two cells per thread: half the threads, 8-byte accesses (the 8-byte
 * rows), the payload's excess x 150 x 2 / 151 (a thread computes two
 * collisions). */
static void test_geometry_two_cells(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "pull", "fp32"), 0);
    k.cells_per_thread = 2;
    /* 16^3: 2048 threads, L=10: 6 us + (11 - 6) x 300 / 151 (the 4-byte
     * rows would say 4.5 + 1.5 x ...) */
    model_lattice lat = launched(16, 768, 1);
    model_prediction p;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.geometry.threads, 2048);
    assert_int_equal(p.full.geometry.word_bytes, 8);
    NEAR(model_full_answer(&p)->memory_us[0], 6 + 5 * 300.0 / 151);
    NEAR(p.full.mlups, 4096 / (6 + 5 * 300.0 / 151));
    /* 16 x 25 x 20 = 8000 cells (rows of whole sectors), 4000 threads:
     * log-log between 2048 and 4096 */
    const double f = log(4000.0 / 2048) / log(2), t = 6 * pow(9.5 / 6, f), tp = 11 * pow(16.0 / 11, f);
    lat = launched(16, 768, 1);
    lat.ny = 25, lat.nz = 20, lat.cells = 8000;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.mlups, 8000 / (t + (tp - t) * 300.0 / 151));
    /* 32^3: 16384 threads, past the 8-byte rows: the threads path */
    threads_path_answers(&in, &plain, &k, launched(32, 768, 1));
    /* fp64, one cell per thread: the same 8-byte rows at 4096 threads, the
     * excess x 150 / 151: 9.5 + 6.5 x 150 / 151 */
    p = predict(&in, "pull", "fp64", launched(16, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    assert_int_equal(p.full.geometry.word_bytes, 8);
    NEAR(p.full.mlups, 4096 / (9.5 + 6.5 * OPS_SHARE));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* One N=19 probe row of 10^6 threads (after add_vector_sweep's columns):
 * word bytes, L, M, block size, blocks per SM requested and resident in
 * launch[], ns per thread (ms_median less the folder's 0.002 ms start
 * cost). */
static void vector_row(FILE *f, const char *sweep, const int launch[6], double occupancy, double ns, int in_place,
                       int v)
{
    const double ms = ns + 0.002;
    fprintf(f, "test-gpu,cuda,%s,19,%d,%d,%d,%d,%d,%d,%.4f,1000000,1,10,%.6f,%.6f,%.6f,1,1,%.6f,events,%d,%d\n", sweep,
            launch[0], launch[1], launch[2], launch[3], launch[4], launch[5], occupancy, ms, ms, ms, ms * 1e3,
            in_place, v);
}

/* membench's vector sweep in dir's membench.csv (columns in_place and
 * vector added, 0 and 1 on the rows there): 2-byte words, N=19, block 256,
 * 10^6 threads, ns per thread (ms_median less the folder's 0.002 ms start
 * cost):
 *   V=4: L,M 0/0 0.40, 10/0 0.42, 0/10 0.52 (x 1.3), 10/10 0.80 (x 2);
 *        in place 0/0 0.50, 10/10 0.55 (x 1.1)
 *   V=2: L,M 0/0 0.20, 10/0 0.21 (x 1.05), 0/10 0.22 (x 1.1)
 * and a 4-byte V=2 row at 0/0 alone (no misaligned partner: not read). */
static void add_vector_sweep(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && sed -i '1s/$/,in_place,vector/; 2,$s/$/,0,1/' membench.csv", dir);
    assert_int_equal(system(cmd), 0);
    static const struct {
        int w, v, l, m, in_place;
        double ns;
    } rows[] = {{2, 4, 0, 0, 0, 0.40},  {2, 4, 10, 0, 0, 0.42}, {2, 4, 0, 10, 0, 0.52},  {2, 4, 10, 10, 0, 0.80},
                {2, 4, 0, 0, 1, 0.50},  {2, 4, 10, 10, 1, 0.55}, {2, 2, 0, 0, 0, 0.20},  {2, 2, 10, 0, 0, 0.21},
                {2, 2, 0, 10, 0, 0.22}, {4, 2, 0, 0, 0, 0.4}};
    snprintf(cmd, sizeof cmd, "%s/membench.csv", dir);
    FILE *f = fopen(cmd, "a");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        vector_row(f, "vector", (int[]){rows[i].w, rows[i].l, rows[i].m, 256, 0, 8}, 1.0, rows[i].ns,
                   rows[i].in_place, rows[i].v);
    fclose(f);
}

/* Level 2 reads the probes of a kernel's access width, the vector sweep
 * or not (doc/model.md, `vector`: read at level 2 before the kernel, its
 * ratio raised the GPU folders' points over the bar): push and A-A fp16s at
 * four cells, pull at two, predict at level 2 what they predict on the same
 * data without the sweep, and say nothing of a vector probe there. */
static void test_vector_probe_level2(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-model-vector-XXXXXX";
    gpu_folder(dir, NULL);
    add_vector_sweep(dir);
    model_inputs in, old;
    load(&in, dir, "cuda");
    load(&old, DATA "gpu", "cuda");
    model_lattice lat = cube(256);
    static const struct {
        const char *scheme;
        int v;
    } cases[] = {{"push", 4}, {"aa", 4}, {"pull", 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        model_kernel k;
        model_prediction p, q;
        assert_int_equal(model_builtin_kernel(&k, cases[i].scheme, "fp16s"), 0);
        assert_int_equal(k.misaligned_access, MODEL_MISALIGNED_BY_WORD);
        k.cells_per_thread = cases[i].v;
        assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
        assert_int_equal(model_predict(&old, &k, &lat, &q, err, sizeof err), 0);
        for (int ph = 0; ph < k.phases; ph++) NEAR(p.probe.ns_per_cell[ph], q.probe.ns_per_cell[ph]);
    }
    model_inputs_free(&in);
    model_inputs_free(&old);
    remove_folder(dir);
}

/* The occupancy sweep's vector probes (2-byte words, V = 2, block 512, 1
 * and 2 blocks per SM: occupancy 0.25 and 0.5) in dir's membench.csv (after
 * add_vector_sweep): aligned 0.20 ns per thread at both; M = 10 (push's
 * exchange) 0.26 at one block (x 1.3), 0.21 at two (x 1.05); in place 0/0
 * 0.20 and 10/10 0.20 at one block (x 1). */
static void add_occupancy_vector_rows(const char *dir)
{
    static const struct {
        int l, m, in_place, k;
        double ns;
    } rows[] = {{0, 0, 0, 1, 0.20}, {0, 0, 0, 2, 0.20}, {0, 10, 0, 1, 0.26},
                {0, 10, 0, 2, 0.21}, {0, 0, 1, 1, 0.20}, {10, 10, 1, 1, 0.20}};
    char path[600];
    snprintf(path, sizeof path, "%s/membench.csv", dir);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        vector_row(f, "occupancy", (int[]){2, rows[i].l, rows[i].m, 512, rows[i].k, rows[i].k}, 0.25 * rows[i].k,
                   rows[i].ns, rows[i].in_place, 2);
    fclose(f);
}

/* Where the occupancy sweep ran the vector probes at the kernel's block
 * size, their ratio at the kernel's occupancy (or blocks per SM) replaces
 * the vector sweep's one launch: push fp16s at 2 cells in blocks of 512,
 * one block per SM x 1.3, two x 1.05 (given as blocks per SM), halfway
 * between interpolated; A-A's odd step on the in-place pair there; at block
 * 256, which the occupancy sweep did not run with vectors, the vector sweep
 * (x 1.1); with occupancy outside the measured 0.25..0.5, the vector sweep
 * too. */
static void test_vector_probe_at_launch(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-model-vector-launch-XXXXXX";
    gpu_folder(dir, NULL);
    add_vector_sweep(dir);
    add_occupancy_vector_rows(dir);
    model_inputs in;
    load(&in, dir, "cuda");
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "push", "fp16s"), 0);
    k.cells_per_thread = 2;
    model_lattice lat = cube(256);
    lat.block_size = 512;
    lat.occupancy = 0.25;
    model_provenance prov;
    model_provenance_init(&prov);
    NEAR(model_vector_ratio(&in, &k, 0, &lat, &prov), 1.3);
    assert_true(model_provenance_says(&prov, "on the occupancy sweep at block 512"));
    model_provenance_init(&prov);
    lat.occupancy = 0.375;
    NEAR(model_vector_ratio(&in, &k, 0, &lat, &prov), (0.26 + 0.21) / 2 / 0.20);
    model_provenance_init(&prov);
    lat.occupancy = -1;
    lat.blocks_per_cu = 2;
    NEAR(model_vector_ratio(&in, &k, 0, &lat, &prov), 1.05);
    model_provenance_init(&prov);
    lat.blocks_per_cu = -1;
    lat.occupancy = 0.75; /* past the sweep's 0.5 at this block: not read there */
    NEAR(model_vector_ratio(&in, &k, 0, &lat, &prov), 1.1);
    assert_false(model_provenance_says(&prov, "occupancy sweep"));
    model_provenance_init(&prov);
    lat.block_size = 256;
    lat.occupancy = 0.25;
    NEAR(model_vector_ratio(&in, &k, 0, &lat, &prov), 1.1);
    model_provenance_init(&prov);
    lat.block_size = 512;
    /* A-A at 2 cells: its odd step on the in-place pair at the launch, x 1 */
    assert_int_equal(model_builtin_kernel(&k, "aa", "fp16s"), 0);
    k.cells_per_thread = 2;
    NEAR(model_vector_ratio(&in, &k, 1, &lat, &prov), 1.0);
    assert_true(model_provenance_says(&prov, "L=10 M=10 in place at N=19 on the occupancy sweep"));
    model_provenance_init(&prov);
    model_inputs_free(&in);
    remove_folder(dir);
}

/* The geometry path for such a kernel: the aligned probe at its launch
 * times the vector sweep's factor (the sweep's misaligned rows shift whole
 * 8-byte words); pull fp16s at 4 cells, 16x16x32 = 8192 cells, 2048
 * threads, block 768, 1 block per SM: L=0 M=0 5 us, with the payload 9 us
 * (model-data/geometry), x 1.05 (V=4, L=10: 0.42 / 0.40), the payload's
 * excess x 4 x 150 / 151; without the sweep the L=10 rows (6 and 11 us). */
static void test_vector_probe_geometry(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_vector_geo_XXXXXX", plain_dir[] = "/tmp/test_model_vector_geo_XXXXXX";
    char cmd[600];
    threads_folder(dir);
    add_vector_sweep(dir);
    threads_folder(plain_dir);
    snprintf(cmd, sizeof cmd, "cp " DATA "geometry/membench-geometry*.csv %s/ && cp " DATA
             "geometry/membench-geometry*.csv %s/", dir, plain_dir);
    assert_int_equal(system(cmd), 0);
    model_inputs in, plain;
    load(&in, dir, "cuda");
    load(&plain, plain_dir, "cuda");
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "pull", "fp16s"), 0);
    k.cells_per_thread = 4;
    model_lattice lat = {.nx = 16, .ny = 16, .nz = 32, .cells = 8192, .block_size = 768, .blocks_per_cu = 1,
                         .occupancy = -1};
    model_prediction p;
    assert_int_equal(model_predict(&in, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(p.full.geometry.threads, 2048);
    const double ops = 4 * 150.0 / 151;
    NEAR(model_full_answer(&p)->memory_us[0], 5 * 1.05 + (9 - 5) * 1.05 * ops);
    assert_true(says(&p, "2-byte vector probe, V=4, L=10 M=0"));
    assert_int_equal(model_predict(&plain, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 6 + (11 - 6) * ops);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* A backend that forces no blocks per SM (OpenCL) reads its kernels'
 * launches on the geometry sweep that occupancy_from (CUDA, the same
 * device) measured there, each launch the longer of that and its own launch
 * interval: the geometry folder without its opencl row, CUDA's occupancy
 * rows forced, and OpenCL's rows -- CUDA's stream, fits, words and
 * misaligned rows; its threads sweep CUDA's but for a 9 us floor (4096 ->
 * 9 us, 16384 -> 9.5); its launch test 9 us (gpu/launch.csv). */
static void test_geometry_borrowed(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", cmd[2048];
    threads_folder(dir);
    snprintf(cmd, sizeof cmd,
             "cd %s && grep -v ',opencl,' \"$OLDPWD\"/" DATA "geometry/membench-geometry.csv > membench-geometry.csv && "
             "cp \"$OLDPWD\"/" DATA "geometry/membench-geometry-meta.csv . && "
             "for f in stream.csv membench-fit.csv; do sed -n '2,$s/^test-gpu,cuda,/test-gpu,opencl,/p' $f > t && "
             "cat t >> $f; done && "
             "awk -F, -v OFS=, 'NR > 1 && $3 == \"occupancy\" { $9 = $10 } { print }' membench.csv > m && "
             "sed -En '2,$s/^test-gpu,cuda,(word|misaligned)/test-gpu,opencl,\\1/p' membench.csv >> m && "
             "sed -En '2,$s/^test-gpu,cuda,threads,/test-gpu,opencl,threads,/p' membench.csv | "
             "awk -F, -v OFS=, '$12 == 4096 { $16 = 0.009 } $12 == 16384 { $16 = 0.0095 } { print }' >> m && "
             "mv m membench.csv && rm t",
             dir);
    assert_int_equal(system(cmd), 0);
    model_inputs cl, cu;
    load(&cl, dir, "opencl");
    load(&cu, dir, "cuda");
    assert_string_equal(cl.occupancy_from, "cuda");
    assert_true(cl.n_borrowed > 0);
    assert_int_equal(cu.n_borrowed, 0);
    for (int i = 0; i < cl.n_probes; i++) assert_false(cl.probes[i].sweep == PROBE_GEOMETRY);
    /* pull fp32 at 16^3 in blocks of 768, one per SM: CUDA's 7 + 3 x
     * 150 / 151 us (the two backends alike at the largest probe: x 1), over
     * the 9 us floor; the CUDA load's own answer is the same */
    model_prediction p = predict(&cl, "pull", "fp32", launched(16, 768, 1));
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 7 + 3 * OPS_SHARE);
    assert_true(says(&p, "cuda's geometry sweep at this launch"));
    NEAR(predict(&cu, "pull", "fp32", launched(16, 768, 1)).full.answer[MODEL_FULL_GEOMETRY].memory_us[0],
         7 + 3 * OPS_SHARE);
    /* a kernel without arithmetic: CUDA's 7 us is under OpenCL's floor */
    model_kernel k = described(19, 10, 0, 2);
    model_lattice lat = launched(16, 768, 1);
    assert_int_equal(model_predict(&cl, &k, &lat, &p, err, sizeof err), 0);
    assert_int_equal(p.full.path, MODEL_FULL_GEOMETRY);
    NEAR(model_full_answer(&p)->memory_us[0], 9);
    NEAR(p.full.geometry.aligned_us, 9); /* the aligned probe's 6 us, at the floor too */
    assert_int_equal(model_predict(&cu, &k, &lat, &p, err, sizeof err), 0);
    NEAR(model_full_answer(&p)->memory_us[0], 7);
    /* a launch CUDA did not measure: the threads path */
    p = predict(&cl, "pull", "fp32", launched(16, 256, 2));
    assert_int_equal(p.full.path, MODEL_FULL_THREADS_SWEEP);
    model_inputs_free(&cl);
    model_inputs_free(&cu);
    remove_folder(dir);
}

/* A malformed membench-geometry.csv fails the load, naming file and line;
 * so does a geometry row in membench.csv. */
static void test_geometry_malformed(void **state)
{
    (void)state;
    static const struct { const char *fixture, *where, *what; } cases[] = {
        {"wrong-sweep", "membench-geometry.csv:3:", "sweep 'threads'"},
        {"not-a-number", "membench-geometry.csv:4:", "'fast'"},
        {"in-place-misaligned", "membench-geometry.csv:4:", "in_place 0, or 1 with misaligned_reads = misaligned_writes"},
        {"in-place-two", "membench-geometry.csv:2:", "in_place 0, or 1"},
        {"swapped-two", "membench-geometry.csv:2:", "swapped 0, or 1 with in_place 0"},
        {"swapped-in-place", "membench-geometry.csv:2:", "swapped 0, or 1 with in_place 0"},
    };
    char cmd[1024];
    model_inputs in;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[] = "/tmp/test_model_geometry_XXXXXX";
        threads_folder(dir);
        snprintf(cmd, sizeof cmd, "cp " DATA "bad-geometry/%s/membench-geometry*.csv %s/", cases[i].fixture, dir);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(model_inputs_load(&in, dir, "cuda", err, sizeof err), -1);
        assert_non_null(strstr(err, cases[i].where));
        assert_non_null(strstr(err, cases[i].what));
        if (!access("model/model", X_OK)) {
            snprintf(cmd, sizeof cmd, "./model/model predict --data %s --backend cuda --scheme pull --precision fp32 "
                     "--size 16", dir);
            assert_int_equal(run(cmd), 2); /* input the model cannot read */
            assert_true(file_has(MODEL_ERR, cases[i].where));
        }
        remove_folder(dir);
    }
    /* the other way round: a geometry row among membench.csv's */
    char dir[] = "/tmp/test_model_geometry_XXXXXX", path[600];
    threads_folder(dir);
    snprintf(path, sizeof path, "%s/membench.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int lines = 0, c;
    while ((c = fgetc(f)) != EOF) lines += c == '\n';
    fclose(f);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("test-gpu,cuda,geometry,19,4,0,0,768,1,1,0.375,4096,622592,10,0.006,0.006,0.006,100,100,1.5,back_to_back\n", f);
    fclose(f);
    assert_int_equal(model_inputs_load(&in, dir, "cuda", err, sizeof err), -1);
    char where[64];
    snprintf(where, sizeof where, "membench.csv:%d:", lines + 1);
    assert_non_null(strstr(err, where));
    assert_non_null(strstr(err, "sweep 'geometry'"));
    remove_folder(dir);
}

/* ---- drift: the probes measured again after the kernels ----------------- */

/* tests/model-data/drift: the recheck moved cuda's aligned 4-byte probe at
 * 32768 threads by +10 %, its payload probe by -5 %, the L=10 and the
 * 2-blocks-per-SM ones not at all (each would read +60 % or +20 % against
 * the aligned default probe), the 8-byte one at 262144 by -20 %, opencl's
 * by +25 %; one recheck row (65536 threads) has no partner. */
static void test_drift_match(void **state)
{
    (void)state;
    model_drift_row *rows;
    int unmatched = -1;
    char device[64] = "";
    int n = model_drift_match(DATA "drift", &rows, &unmatched, device, sizeof device, err, sizeof err);
    if (n < 0) fprintf(stderr, "%s\n", err);
    assert_int_equal(n, 6);
    assert_int_equal(unmatched, 1);
    assert_string_equal(device, "test-gpu");
    static const double want[] = {10, -5, 0, 0, -20, 25};
    for (int i = 0; i < n; i++) NEAR(rows[i].change_pct, want[i]);
    assert_string_equal(rows[5].backend, "opencl");
    NEAR(rows[4].first_ms, 0.1);
    NEAR(rows[4].recheck_ms, 0.08);
    assert_int_equal(rows[1].ops, 151);
    assert_int_equal(rows[3].blocks_requested, 2);
    free(rows);
}

/* dir's recheck file: the synthetic one edited by a sed script (NULL: none);
 * matching then fails with a message holding `expect`.  Returns err. */
static const char *drift_fails(const char *dir, const char *sed_script, const char *expect)
{
    char cmd[1024];
    if (sed_script)
        snprintf(cmd, sizeof cmd, "sed '%s' " DATA "drift/membench-recheck.csv > %s/membench-recheck.csv", sed_script,
                 dir);
    else
        snprintf(cmd, sizeof cmd, "rm -f %s/membench-recheck.csv", dir);
    assert_int_equal(system(cmd), 0);
    model_drift_row *rows;
    int unmatched;
    assert_int_equal(model_drift_match(dir, &rows, &unmatched, NULL, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, expect));
    return err;
}

static void test_drift_malformed(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-model-drift-XXXXXX", cmd[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp " DATA "drift/membench.csv %s/", dir);
    assert_int_equal(system(cmd), 0);
    /* no recheck file */
    drift_fails(dir, NULL, "membench-recheck.csv: missing");
    /* a field that is not a number, named by its line */
    assert_non_null(strstr(drift_fails(dir, "3s/,0.019,/,fast,/", "membench-recheck.csv:3:"), "'ms_median'"));
    /* rows, but none measured in the first run */
    drift_fails(dir, "s/,256,/,512,/", "none of its 7 threads-sweep rows matches");
    /* no threads sweep at all */
    drift_fails(dir, "s/,threads,19,/,words,19,/", "no threads-sweep rows");
    remove_folder(dir);
}

/* model drift writes drift.csv once (--force to replace it) and holds the
 * changes to --max-change; model summary prints them beside the table */
static void test_drift_cli(void **state)
{
    (void)state;
    if (access("model/model", X_OK)) skip();
    char dir[] = "/tmp/lbp-model-drift-cli-XXXXXX", cmd[1024], path[600];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp " DATA "drift/membench.csv " DATA "drift/membench-recheck.csv %s/", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "./model/model drift --data %s", dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "cuda      5 probes: median +0.0 %, median |change| 5.0 %, largest -20.0 % "
                                                "at 262144 threads (8 B)"));
    assert_true(file_has(MODEL_OUT, "opencl    1 probes: median +25.0 %"));
    /* opencl's recheck is the aligned probe alone (a QUICK run's): said;
     * cuda's has variants: nothing said */
    assert_true(file_has(MODEL_OUT, "at 32768 threads (4 B); the aligned probe alone (no payload, L or M "
                                                "variants measured again)\n"));
    assert_false(file_has(MODEL_OUT, "(8 B); the aligned probe alone"));
    assert_true(file_has(MODEL_ERR, "1 probe(s) with no partner"));
    snprintf(path, sizeof path, "%s/drift.csv", dir);
    assert_true(file_has(path, "device,backend,word_bytes,threads,misaligned_reads,misaligned_writes,ops,block_size,"
                               "blocks_per_cu_requested,first_ms,recheck_ms,change_pct\n"));
    assert_true(file_has(path, "test-gpu,cuda,4,32768,0,0,151,256,0,0.020000,0.019000,-5.000\n"));
    assert_true(file_has(path, "test-gpu,opencl,4,32768,0,0,0,256,0,0.008000,0.010000,25.000\n"));
    /* never overwritten silently: refused as a usage error */
    assert_int_equal(run(cmd), 2);
    assert_true(file_has(MODEL_ERR, "drift.csv exists"));
    snprintf(cmd, sizeof cmd, "./model/model drift --data %s --force --max-change 24", dir);
    assert_int_equal(run(cmd), 1);
    assert_true(file_has(MODEL_ERR, "1 probe(s) changed by more than 24.0 %"));
    snprintf(cmd, sizeof cmd, "./model/model drift --data %s --force --max-change 25.5", dir);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "./model/model drift --data %s --backend cuda", dir);
    assert_int_equal(run(cmd), 2);
    /* summary: the table, then the drift */
    snprintf(cmd, sizeof cmd, "printf 'device,backend,scheme,precision,nx,ny,nz,cells,measured_mlups,roofline_mlups,"
                              "full_mlups,error_pct\\ntest-gpu,cuda,push,fp32,256,256,256,16777216,4200,6579,4000,-4.762\\n'"
                              " > %s/model.csv && ./model/model summary --data %s", dir, dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "cuda    push   fp32            256\u00b3     4200.0     4000.0     6579.0"));
    assert_true(file_has(MODEL_OUT, "probes measured again after the kernels, change from the first run (drift):\n"));
    /* a recheck file it cannot read costs the drift lines, not the table */
    snprintf(cmd, sizeof cmd, "sed -i '2s/,0.011,/,x,/' %s/membench-recheck.csv && ./model/model summary --data %s", dir,
             dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "cuda    push   fp32"));
    assert_true(file_has(MODEL_ERR, "no drift: "));
    assert_true(file_has(MODEL_ERR, "membench-recheck.csv:2:"));
    remove_folder(dir);
}

/* summary: every backend at the lattice they all measured, a larger one of
 * its own on its own line, lattices as N³ or NX×NY×NZ, QUICK said first,
 * the scatter warnings of bench.log counted; validate without a lattice of
 * 128^3 says so instead of a worst error of 0. */
static void test_summary_rows(void **state)
{
    (void)state;
    if (access("model/model", X_OK)) skip();
    char dir[] = "/tmp/test_model_XXXXXX", cmd[1024];
    gpu_folder(dir, "printf 'key,value\\ncommand,lbmkernels/lbmkernels --out x --quick\\n' > lbm-meta.csv && "
                    "printf 'a: repetitions scatter by 6.0 %%\\nb\\nc: repetitions scatter by 9.1 %%\\n' > bench.log");
    snprintf(cmd, sizeof cmd,
             "printf 'device,backend,scheme,precision,nx,ny,nz,cells,measured_mlups,roofline_mlups,full_mlups,error_pct\\n"
             "g,cuda,push,fp32,512,512,256,67108864,4300,6579,4100,-4.6\\n"
             "g,cuda,push,fp32,128,128,128,2097152,4000,6579,3900,-2.5\\n"
             "g,opencl,push,fp32,128,128,128,2097152,3800,6579,3700,-2.6\\n"
             "g,opencl,push,fp32,64,64,64,262144,3000,6579,3100,3.3\\n' > %s/model.csv && ./model/model summary --data %s",
             dir, dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "QUICK run: "));
    assert_true(file_has(MODEL_OUT, "cuda    push   fp32            128\u00b3     4000.0"));
    assert_true(file_has(MODEL_OUT, "opencl  push   fp32            128\u00b3     3800.0"));
    assert_true(file_has(MODEL_OUT, "cuda    push   fp32     512\u00d7512\u00d7256     4300.0"));
    assert_false(file_has(MODEL_OUT, "64\u00b3"));
    assert_true(file_has(MODEL_OUT, "(warnings in bench.log): 2\n"));
    /* a full run says nothing of QUICK */
    snprintf(cmd, sizeof cmd,
             "printf 'key,value\\ncommand,lbmkernels/lbmkernels --out x\\n' > %s/lbm-meta.csv && ./model/model summary --data %s",
             dir, dir);
    assert_int_equal(run(cmd), 0);
    assert_false(file_has(MODEL_OUT, "QUICK"));
    /* no lattice of 128^3 or more */
    snprintf(cmd, sizeof cmd, "sed -i '/,256,256,256,/d' %s/lbm.csv && ./model/model validate --data %s --force", dir,
             dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "no lattice of 128^3 or more measured"));
    assert_false(file_has(MODEL_OUT, "sizes >= 128^3"));
    remove_folder(dir);
}

/* lbm.csv's local_bytes: a row whose kernel spills (> 0) is flagged spills
 * in model.csv, the table and the closing lines; rows of 0 or -1 are not;
 * no predicted number moves against the same file without the column. */
static int validate_loosely(const char *dir, const char *then)
{
    char cmd[1280];
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 100 --max-error-small 1000 %s",
             dir, then);
    return run(cmd);
}

/* A shell script run in dir. */
static int in_folder(const char *dir, const char *script)
{
    char cmd[1536];
    snprintf(cmd, sizeof cmd, "cd %s && %s", dir, script);
    return run(cmd);
}

static void test_spills_flagged(void **state)
{
    (void)state;
    if (access("model/model", X_OK)) skip();
    char dir[] = "/tmp/test_model_XXXXXX", cmd[256];
    gpu_folder(dir, NULL);
    snprintf(cmd, sizeof cmd, "&& mv %s/model.csv %s/model-old.csv", dir, dir);
    assert_int_equal(validate_loosely(dir, cmd), 0);
    assert_false(file_has(MODEL_OUT, "SPILLS"));
    assert_false(file_has(MODEL_OUT, "spills to local memory"));
    /* after registers: 96 bytes on the A-A row, 0 on the 256^3 push row,
     * -1 elsewhere */
    assert_int_equal(in_folder(dir, "awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"registers\") r = i; "
                                    "$r = $r \",local_bytes\"; print; next } "
                                    "{ $r = $r \",\" ($3 == \"aa\" ? 96 : $3 == \"push\" && $6 == 256 ? 0 : -1); print }' "
                                    "lbm.csv > l.tmp && mv l.tmp lbm.csv && grep -q '^device,.*,registers,local_bytes,' lbm.csv"),
                     0);
    assert_int_equal(validate_loosely(dir, "--force"), 0);
    assert_true(file_has(MODEL_OUT, "SPILLS"));
    assert_true(file_has(MODEL_OUT, "flagged: 1 point(s) whose kernel spills to local memory"));
    snprintf(cmd, sizeof cmd, "%s/model-meta.csv", dir);
    assert_true(file_has(cmd, "points_spilling,1\n"));
    assert_int_equal(validate_loosely(dir, "--force --json"), 0);
    assert_true(file_has(MODEL_OUT, "\"scheme\":\"aa\""));
    assert_true(file_has(MODEL_OUT, "\"flags\":\"spills\",\"local_bytes\":96"));
    /* the A-A row alone flagged; every column but flags as before */
    assert_int_equal(in_folder(dir, "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == \"flags\") f = i; next } "
                                    "($3 == \"aa\") != ($f == \"spills\") { bad = 1 } END { exit !(f && NR == 5 && !bad) }' "
                                    "model.csv && for m in model.csv model-old.csv; do awk -F, -v OFS=, 'NR == 1 { "
                                    "for (i = 1; i <= NF; i++) if ($i == \"flags\") f = i } { $f = \"\"; print }' $m > "
                                    "$m.cut; done && cmp model.csv.cut model-old.csv.cut"),
                     0);
    remove_folder(dir);
}

/* ---- before the kernel: the point's own probes held out (holdout.h) ---- */

/* A row the geometry sweep of the fixture would hold: 4-byte accesses,
 * blocks of 768, one forced per SM. */
static int fixture_launch_at(const model_probe_row *p, double threads)
{
    return p->sweep == PROBE_GEOMETRY && p->word_bytes == 4 && p->block_size == 768 && p->blocks_requested == 1 &&
           p->threads == threads;
}

/* The holdout of pull at 16^3 in blocks of 768 (4096 threads) takes out
 * every geometry row at that launch (membench measured them at the
 * kernels' launches, after the kernels ran: a kernel not yet written has
 * none, whatever its lattice) and the threads sweep's row at 4096; other
 * launches' rows and the threads sweep's other counts stay. */
static void test_holdout_rows(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX";
    model_inputs in, plain;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    const model_lattice lat = launched(16, 768, 1);
    const model_holdout h = model_holdout_of(&pull, &lat);
    model_holdout_inputs v;
    assert_int_equal(model_holdout_inputs_of(&in, &h, &v, err, sizeof err), 0);
    int launch = 0, at_4096 = 0, threads = 0, other_launch = 0;
    for (int i = 0; i < in.n_probes; i++) {
        const model_probe_row *p = &in.probes[i];
        launch += fixture_launch_at(p, p->threads);
        at_4096 += fixture_launch_at(p, 4096);
        threads += p->sweep == PROBE_THREADS && p->threads == 4096;
        other_launch += p->sweep == PROBE_GEOMETRY && !fixture_launch_at(p, p->threads);
    }
    assert_true(at_4096 >= 8 && launch > at_4096 && threads == 1 && other_launch > 0);
    assert_int_equal(v.held.geometry, launch);
    assert_int_equal(v.held.threads, threads);
    assert_int_equal(v.held.launch_probes, 0);
    assert_int_equal(v.in.n_probes, in.n_probes - launch - threads);
    int left = 0, left_other = 0, left_threads = 0;
    for (int i = 0; i < v.in.n_probes; i++) {
        const model_probe_row *p = &v.in.probes[i];
        left += fixture_launch_at(p, p->threads) || (p->sweep == PROBE_THREADS && p->threads == 4096);
        left_other += p->sweep == PROBE_GEOMETRY;
        left_threads += p->sweep == PROBE_THREADS;
    }
    assert_int_equal(left, 0);
    assert_int_equal(left_other, other_launch);
    assert_int_equal(left_threads, 4); /* threads_folder's 16384, 65536, 1048576, 256^3 */
    model_holdout_inputs_free(&v);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* The fixture's geometry row at `threads` of pull's L=10 M=0 launch
 * (payload ops 0 or 151), `us` per launch back to back. */
static void plant_geometry_row(const char *dir, double threads, int ops, double us)
{
    char path[600];
    snprintf(path, sizeof path, "%s/membench-geometry.csv", dir);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    const double bytes = 152 * threads, ms = us / 1e3;
    fprintf(f, "test-gpu,cuda,geometry,19,4,10,0,768,1,1,0.375,%.0f,%.0f,10,%.9g,%.9g,%.9g,%.6f,%.6f,%.9g,back_to_back,%d,200,0\n",
            threads, bytes, ms, ms, ms, bytes / (ms * 1e6), bytes / (ms * 1e6), us * 1e3 / threads, ops);
    fclose(f);
}

/* A geometry row planted at the point's launch and thread count, 2x off
 * (pull at 24^3: 13824 threads, read between 4096 and 32768 before it):
 * the prediction at the kernel's launch reads it (half the MLUPS), the
 * one before the kernel reads no geometry row of that launch at all (the
 * threads sweep answers, the same with and without the planted rows). */
static void test_holdout_planted_row(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", plain_dir[] = "/tmp/test_model_geometry_XXXXXX", cmd[200], other[64];
    model_inputs in, plain, planted;
    geometry_and_plain(dir, plain_dir, &in, &plain);
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    const model_lattice lat = launched(24, 768, 1);
    const model_prediction at = predict(&in, "pull", "fp32", lat);
    assert_int_equal(at.full.path, MODEL_FULL_GEOMETRY);
    model_prediction before, p;
    model_held_out held, held0;
    assert_int_equal(model_predict_before_kernel(&in, &pull, &lat, &at, &before, &held0, err, sizeof err), 0);
    assert_true(held0.geometry > 0 && held0.threads == 0); /* the launch's rows; nothing at 13824 */
    assert_true(before.full.path != MODEL_FULL_GEOMETRY);
    const double f = log(1.5) / log(2), t = 7 * pow(24.0 / 7, f), tp = 10 * pow(33.0 / 10, f);
    snprintf(cmd, sizeof cmd, "cp -r %s %s-planted", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(other, sizeof other, "%s-planted", dir);
    plant_geometry_row(other, 13824, 0, 2 * t);
    plant_geometry_row(other, 13824, 151, 2 * tp);
    load(&planted, other, "cuda");
    const model_prediction moved = predict(&planted, "pull", "fp32", lat);
    assert_int_equal(moved.full.path, MODEL_FULL_GEOMETRY);
    NEAR(moved.full.mlups, at.full.mlups / 2);
    assert_int_equal(model_predict_before_kernel(&planted, &pull, &lat, &moved, &p, &held, err, sizeof err), 0);
    assert_int_equal(held.geometry, held0.geometry + 2);
    assert_int_equal(p.full.path, before.full.path);
    NEAR(p.full.mlups, before.full.mlups);
    char said[64];
    snprintf(said, sizeof said, "before the kernel: held out %d geometry rows", held.geometry);
    assert_true(says(&p, said));
    model_inputs_free(&in);
    model_inputs_free(&plain);
    model_inputs_free(&planted);
    remove_folder(other);
    remove_folder(dir);
    remove_folder(plain_dir);
}

/* membench-launch.csv's probes at the kernel's launch on its lattice are
 * held out, another lattice's stay. */
static void test_holdout_launch_probes(void **state)
{
    (void)state;
    model_inputs in;
    load(&in, DATA "gpu", "cuda");
    model_launch_probe probes[3];
    for (int i = 0; i < 3; i++)
        probes[i] = (model_launch_probe){.launch = MODEL_LAUNCH_LINEAR, .block = {256, 1, 1}, .cells_per_thread = 1,
                                         .nx = i == 2 ? 32 : 64, .ny = 64, .nz = 64, .blocks_per_cu = -1,
                                         .occupancy = -1, .word_bytes = 4, .lattices = 2, .words = i ? 27 : 19,
                                         .mlups = 1000};
    model_launch_probe *own = in.launch_probes;
    const int n_own = in.n_launch_probes;
    in.launch_probes = probes;
    in.n_launch_probes = 3;
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    model_lattice lat = cube(64);
    lat.block_size = 256;
    const model_holdout h = model_holdout_of(&pull, &lat);
    model_holdout_inputs v;
    assert_int_equal(model_holdout_inputs_of(&in, &h, &v, err, sizeof err), 0);
    assert_int_equal(v.held.launch_probes, 2);
    assert_int_equal(v.in.n_launch_probes, 1);
    assert_int_equal(v.in.launch_probes[0].nx, 32);
    assert_int_equal(v.in.n_probes, in.n_probes); /* no geometry or threads rows in the fixture */
    model_holdout_inputs_free(&v);
    in.launch_probes = own;
    in.n_launch_probes = n_own;
    model_inputs_free(&in);
}

/* threads_folder plus the geometry fixture's rows at 4096 threads alone,
 * and an lbm.csv row of pull at 16^3 in blocks of 768, one per SM (410
 * MLUPS): its only geometry rows are at its own launch and count. */
static void own_launch_only_folder(char *dir)
{
    char cmd[1024];
    threads_folder(dir);
    snprintf(cmd, sizeof cmd, "cp " DATA "geometry/membench-geometry-meta.csv %s/ && awk -F, 'NR == 1 || $12 == 4096' "
             DATA "geometry/membench-geometry.csv > %s/membench-geometry.csv && echo test-gpu,cuda,pull,fp32,periodic,"
             "16,16,16,16,4096,768,10,5,0.0999,0.0999,0.0999,410,410,0,-1,1,0.375,2,152 >> %s/lbm.csv", dir, dir, dir);
    assert_int_equal(system(cmd), 0);
}

/* A point whose only geometry rows are at its own launch: the geometry
 * path answers at the kernel's launch, the threads sweep before it, and
 * model.csv's before_kernel_path says so. */
static void test_holdout_falls_back(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_model_geometry_XXXXXX", cmd[1024];
    own_launch_only_folder(dir);
    model_inputs in;
    load(&in, dir, "cuda");
    model_kernel pull;
    assert_int_equal(model_builtin_kernel(&pull, "pull", "fp32"), 0);
    const model_lattice lat = launched(16, 768, 1);
    const model_prediction at = predict(&in, "pull", "fp32", lat);
    assert_int_equal(at.full.path, MODEL_FULL_GEOMETRY);
    model_prediction before;
    assert_int_equal(model_predict_before_kernel(&in, &pull, &lat, &at, &before, NULL, err, sizeof err), 0);
    assert_int_equal(before.full.path, MODEL_FULL_THREADS_SWEEP);
    assert_false(before.full.answer[MODEL_FULL_GEOMETRY].applies);
    model_inputs_free(&in);
    if (access("model/model", X_OK)) {
        remove_folder(dir);
        skip();
    }
    assert_int_equal(validate_loosely(dir, ""), 0);
    assert_true(file_has(MODEL_OUT, "before the kernel, level 3 from: geometry 0, threads sweep 5"));
    snprintf(cmd, sizeof cmd, "%s/model-meta.csv", dir);
    assert_true(file_has(cmd, "before_kernel_points_over_bar,"));
    snprintf(cmd, sizeof cmd, "%s/model.csv", dir);
    lbp_table t;
    static const char *const cols[] = {"nx", "full_mlups", "before_kernel_mlups", "before_kernel_error_pct",
                                       "before_kernel_path", NULL};
    assert_int_equal(lbp_table_read_columns(&t, cmd, cols, err, sizeof err), 0);
    int found = 0;
    for (int r = 0; r < t.rows; r++) {
        if (strcmp(lbp_table_text(&t, r, lbp_table_column(&t, "nx")), "16")) continue;
        found++;
        assert_string_equal(lbp_table_text(&t, r, lbp_table_column(&t, "before_kernel_path")), "threads-sweep");
        double mlups;
        assert_int_equal(lbp_table_number_by_name(&t, r, "before_kernel_mlups", &mlups, err, sizeof err), 0);
        assert_true(fabs(mlups - before.full.mlups) < 1e-3);
    }
    assert_int_equal(found, 1);
    lbp_table_free(&t);
    snprintf(cmd, sizeof cmd, "./model/model predict --data %s --backend cuda --scheme pull --precision fp32 --size 16 "
             "--block-size 768 --blocks-per-sm 1 --before-kernel", dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "before the kernel: held out "));
    assert_true(file_has(MODEL_OUT, "threads-sweep path: N=19"));
    assert_false(file_has(MODEL_OUT, "geometry path: N=19"));
    remove_folder(dir);
}

/* "%7.2f / %7.2f": the mean and worst |error| of model.csv's column at
 * lattices below 128^3, as summary prints them. */
static void small_errors(const lbp_table *t, const char *column, char *out, size_t len)
{
    double sum = 0, worst = 0, e, cells;
    int n = 0;
    for (int r = 0; r < t->rows; r++) {
        assert_int_equal(lbp_table_number_by_name(t, r, "cells", &cells, err, sizeof err), 0);
        assert_int_equal(lbp_table_number_by_name(t, r, column, &e, err, sizeof err), 0);
        if (cells >= MODEL_LARGE_CELLS) continue;
        sum += fabs(e), worst = fmax(worst, fabs(e)), n++;
    }
    assert_true(n > 0);
    snprintf(out, len, "%7.2f / %7.2f", sum / n, worst);
}

/* validate's closing lines and --json, summary's text and --json: both
 * errors, per backend and precision, split at 128^3. */
static void test_two_errors_reported(void **state)
{
    (void)state;
    if (access("model/model", X_OK)) skip();
    char dir[] = "/tmp/test_model_geometry_XXXXXX", cmd[1024], at[64], before[64], line[200];
    own_launch_only_folder(dir);
    assert_int_equal(validate_loosely(dir, ""), 0);
    assert_true(file_has(MODEL_OUT, "model error, |error| % mean / worst: at the kernel's launch"));
    assert_int_equal(validate_loosely(dir, "--force --json"), 0);
    assert_true(file_has(MODEL_OUT, "\"before_kernel\":{\"mlups\":"));
    assert_true(file_has(MODEL_OUT, "\"model_error\":[{\"backend\":\"cuda\",\"precision\":\"fp32\""));
    assert_true(file_has(MODEL_OUT, "\"before_kernel\":{\"large\":{"));
    snprintf(cmd, sizeof cmd, "%s/model.csv", dir);
    lbp_table t;
    static const char *const cols[] = {"cells", "error_pct", "before_kernel_error_pct", NULL};
    assert_int_equal(lbp_table_read_columns(&t, cmd, cols, err, sizeof err), 0);
    small_errors(&t, "error_pct", at, sizeof at);
    small_errors(&t, "before_kernel_error_pct", before, sizeof before);
    assert_true(strcmp(at, before)); /* the 16^3 point moved */
    lbp_table_free(&t);
    snprintf(cmd, sizeof cmd, "./model/model summary --data %s", dir);
    assert_int_equal(run(cmd), 0);
    snprintf(line, sizeof line, "cuda    fp32  <128^3   %6d %s %s\n", 2, at, before);
    assert_true(file_has(MODEL_OUT, line));
    assert_true(file_has(MODEL_OUT, "cuda    fp32  >=128^3  "));
    snprintf(cmd, sizeof cmd, "./model/model summary --data %s --json", dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "\"lattices\":\"small\",\"at_launch\":{\"points\":2,"));
    assert_true(file_has(MODEL_OUT, "\"before_kernel\":{\"points\":2,\"mean_abs_error_pct\":"));
    /* a model.csv from before the columns: the error at launch, before the kernel not known */
    assert_int_equal(in_folder(dir, "cut -d, -f1-32 model.csv > m && mv m model.csv"), 0);
    snprintf(cmd, sizeof cmd, "./model/model summary --data %s", dir);
    assert_int_equal(run(cmd), 0);
    snprintf(line, sizeof line, "cuda    fp32  <128^3   %6d %s %17s\n", 2, at, "-");
    assert_true(file_has(MODEL_OUT, line));
    assert_true(file_has(MODEL_OUT, "before the kernel: not known for 5 point(s)"));
    remove_folder(dir);
}

static void test_cli(void **state)
{
    (void)state;
    if (access("model/model", X_OK)) skip();
    char dir[] = "/tmp/test_model_XXXXXX", cmd[1024];
    gpu_folder(dir, NULL);
    /* worst error at 256^3 is 4.76 %: passes 5, fails 4 */
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 5", dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "-4.76"));
    snprintf(cmd, sizeof cmd, "%s/model.csv", dir);
    assert_true(file_has(cmd, "test-gpu,cuda,push,fp32,256,256,256,16777216,256,4200.000,6578.947,4000.000,4000.000,-4.762,yes"));
    assert_true(file_has(cmd, "test-gpu,cuda,push,fp32,10,10,10,1000,256,210.000,6578.947,4000.000,200.000,-4.762,no"));
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 5", dir);
    assert_int_equal(run(cmd), 2); /* refuses to overwrite: a usage error */
    assert_true(file_has(MODEL_ERR, "--force"));
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error 4 --force", dir);
    assert_int_equal(run(cmd), 1);
    snprintf(cmd, sizeof cmd, "%s/model-meta.csv", dir);
    assert_true(file_has(cmd, "result,fail"));
    /* the small lattice (4.76 %) against --max-error-small */
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error-small 4 --force", dir);
    assert_int_equal(run(cmd), 1);
    snprintf(cmd, sizeof cmd, "./model/model validate --data %s --backend cuda --max-error-small 5 --force", dir);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "./model/model summary --data %s", dir);
    assert_int_equal(run(cmd), 0);
    assert_true(file_has(MODEL_OUT, "63.8%"));
    remove_folder(dir);

    /* predict: a described A-A equals the built-in */
    assert_int_equal(run("./model/model predict --data " DATA "gpu --backend cuda --words-read 19 "
                         "--misaligned-reads 0,10 --misaligned-writes 0,10 --lattices 1 --size 256"), 0);
    assert_true(file_has(MODEL_OUT, "4444.4"));
    /* 4 blocks of 256 of the meta's 2048 threads per SM: occupancy 0.5, as
     * --occupancy 0.5 says (probe level 1e3 / 0.3, test_probe_occupancy) */
    assert_int_equal(run("./model/model predict --data " DATA "gpu --backend cuda --scheme push --precision fp32 "
                         "--size 256 --block-size 256 --blocks-per-sm 4"), 0);
    assert_true(file_has(MODEL_OUT, "occupancy 0.500, 4 blocks per SM"));
    assert_true(file_has(MODEL_OUT, "3333.3"));
    assert_int_equal(run("./model/model predict --data " DATA "gpu --backend cuda --scheme push --precision fp32 "
                         "--size 256 --block-size 256 --blocks-per-sm 9"), 2);
    /* predict says what it read instead of what was asked */
    assert_int_equal(run("./model/model predict --data " DATA "gpu --backend opencl --scheme pull --precision fp32 "
                         "--size 256"), 0);
    assert_true(file_has(MODEL_OUT, "read instead (word size): misaligned 4-byte probes: read 8-byte ones "
                                                "scaled by 0.5 (no misaligned 4-byte probes)"));
    assert_true(file_has(MODEL_OUT, "within_measured: no"));
    /* fp16s: 76 B per update; the folder has no 2-byte probes, and says
     * which word size it read instead */
    assert_int_equal(run("./model/model predict --data " DATA "gpu --backend cuda --scheme pull --precision fp16s "
                         "--size 256"), 0);
    assert_true(file_has(MODEL_OUT, "/ 76 B per update"));
    assert_true(file_has(MODEL_OUT, "2-byte words"));
    assert_true(file_has(MODEL_OUT, "read instead (word size)"));
    /* bad flags: 2; bad input: 2 as well (issue 36: exit 1 is a failed
     * validation, never unreadable input), naming file and line */
    assert_int_equal(run("./model/model predict --data " DATA "gpu --scheme push --precision fp16 --size 64"), 2);
    assert_int_equal(run("./model/model predict --data " DATA "gpu --scheme sideways --precision fp32 --size 64"), 2);
    assert_int_equal(run("./model/model predict --data " DATA "gpu --scheme push --precision fp32 --size 64x"), 2);
    assert_int_equal(run("./model/model predict --data " DATA "gpu --words-read 19 --misaligned-reads 0,10 "
                         "--misaligned-writes 0,10,5 --size 64"), 2);
    assert_int_equal(run("./model/model predict --data " DATA "bad-membench --backend cuda --scheme push "
                         "--precision fp32 --size 64"), 2);
    assert_true(file_has(MODEL_ERR, "bad-membench/membench.csv:3:"));
}

/* A NaN or infinite error is over any bar (a comparison with NaN is
 * false, so "error > bar" alone would pass it). */
static void test_nan_error_is_over_the_bar(void **state)
{
    (void)state;
    static model_validated_point v; /* static: the prediction is large */
    const model_error_bars bars = {.large = 5, .small = 10};
    v.cells = MODEL_LARGE_CELLS;
    v.error_pct = 4;
    assert_false(model_point_over(&v, &bars));
    v.error_pct = NAN;
    assert_true(model_point_over(&v, &bars));
    v.error_pct = -INFINITY;
    assert_true(model_point_over(&v, &bars));
    v.cells = 1000;
    v.error_pct = NAN;
    assert_true(model_point_over(&v, &bars));
    model_validation_stats s;
    model_validation_stats_of(&v, 1, &bars, &s);
    assert_int_equal(s.over_small, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nan_error_is_over_the_bar),
        cmocka_unit_test(test_table_missing_column),
        cmocka_unit_test(test_table_not_a_number),
        cmocka_unit_test(test_table_wrong_count),
        cmocka_unit_test(test_malformed_folder),
        cmocka_unit_test(test_meta_quoted),
        cmocka_unit_test(test_interp),
        cmocka_unit_test(test_lookup_fallbacks),
        cmocka_unit_test(test_lookup_index),
        cmocka_unit_test(test_provenance_records),
        cmocka_unit_test(test_probe_sweep_spike),
        cmocka_unit_test(test_roofline_gpu),
        cmocka_unit_test(test_roofline_cpu_write_allocate),
        cmocka_unit_test(test_nontemporal_and_flags),
        cmocka_unit_test(test_nontemporal_rows_probe),
        cmocka_unit_test(test_cpu_row_imbalance),
        cmocka_unit_test(test_probe_schemes),
        cmocka_unit_test(test_probe_interpolation_edges),
        cmocka_unit_test(test_probe_occupancy),
        cmocka_unit_test(test_probe_occupancy_borrowed),
        cmocka_unit_test(test_full_levels),
        cmocka_unit_test(test_device_gap),
        cmocka_unit_test(test_full_threads_sweep),
        cmocka_unit_test(test_full_threads_occupancy),
        cmocka_unit_test(test_payload_and_variants),
        cmocka_unit_test(test_lookup_aligned_other_word),
        cmocka_unit_test(test_full_geometry),
        cmocka_unit_test(test_full_geometry_past_its_top),
        cmocka_unit_test(test_full_paths_precedence),
        cmocka_unit_test(test_geometry_fallbacks),
        cmocka_unit_test(test_geometry_aa),
        cmocka_unit_test(test_geometry_swapped),
        cmocka_unit_test(test_geometry_two_cells),
        cmocka_unit_test(test_vector_probe_level2),
        cmocka_unit_test(test_vector_probe_geometry),
        cmocka_unit_test(test_vector_probe_at_launch),
        cmocka_unit_test(test_geometry_borrowed),
        cmocka_unit_test(test_geometry_malformed),
        cmocka_unit_test(test_holdout_rows),
        cmocka_unit_test(test_holdout_planted_row),
        cmocka_unit_test(test_holdout_launch_probes),
        cmocka_unit_test(test_holdout_falls_back),
        cmocka_unit_test(test_two_errors_reported),
        cmocka_unit_test(test_drift_match),
        cmocka_unit_test(test_drift_malformed),
        cmocka_unit_test(test_drift_cli),
        cmocka_unit_test(test_summary_rows),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_spills_flagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
