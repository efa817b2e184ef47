/* core/: the device layer on PoCL, OpenMP and NVRTC, CSV files, parsing,
 * stats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "cjit.h"
#include "cli.h"
#include "csv.h"
#include "device.h"
#include "half.h"
#include "hostcpu.h"
#include "stats.h"

static const char *saxpy_src =
    "KERNEL void saxpy(GLOBAL float *RESTRICT y, GLOBAL const float *RESTRICT x, float a, i64 n) {\n"
    "  i64 i = global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "KERNEL void dyn(GLOBAL u32 *out, u32 v DYN_SHARED_PARAM) {\n"
    "  lbp_dyn_shared[local_id(0)] = (unsigned char)local_id(0);\n"
    "  LOCAL_BARRIER;\n"
    "  out[global_id(0)] = v + lbp_dyn_shared[local_id(0)] + (u32)(LBP_HAS_CLOCK * 0);\n"
    "}\n";

static void test_runs_dialect_kernel(void **state)
{
    lbp_device *d = lbp_test_device(state);
    assert_string_equal(d->info.backend, d->be->name);
    assert_true(d->info.global_mem_bytes > 0);
    enum { N = 1000 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f;
    lbp_buf *bx = lbp_alloc(d, sizeof x), *by = lbp_alloc(d, sizeof y);
    assert_non_null(bx);
    lbp_write(d, bx, x, sizeof x);
    lbp_write(d, by, y, sizeof y);
    lbp_kernel *k = lbp_compile(d, saxpy_src, "saxpy", "-DUNUSED=1");
    assert_non_null(k);
    lbp_launch_cfg cfg = lbp_cfg_1d((N + 63) / 64, 64);
    lbp_arg args[] = {LBP_BUF(by), LBP_BUF(bx), LBP_F32(2.0f), LBP_I64(N)};
    d->be->timer_start(d);
    lbp_launch(d, k, &cfg, 4, args);
    double ms = d->be->timer_stop_ms(d);
    assert_true(ms >= 0.0);
    lbp_read(d, by, y, sizeof y);
    for (int i = 0; i < N; i++) assert_float_equal(y[i], 2.0f * i + 1.0f, 1e-6);

    /* a timed span of many launches ends at the last one (the first keeps
     * an event, a marker ends the span): 20 launches of 2^22 elements take
     * well over 5 single ones. The single launch is the fastest of 5, and
     * large enough that a CPU backend's thread wake-up on a loaded host
     * (which a lone launch pays and a burst of launches does not) stays
     * small beside it. */
    {
        const int64_t big = 1 << 22;
        lbp_buf *gx = lbp_alloc(d, big * sizeof(float)), *gy = lbp_alloc(d, big * sizeof(float));
        assert_non_null(gx);
        assert_non_null(gy);
        lbp_launch_cfg cb = lbp_cfg_1d((unsigned)(big / 256), 256);
        lbp_arg ab[] = {LBP_BUF(gy), LBP_BUF(gx), LBP_F32(1.0f), LBP_I64(big)};
        double one = 1e30;
        for (int r = 0; r < 5; r++) {
            d->be->timer_start(d);
            lbp_launch(d, k, &cb, 4, ab);
            one = fmin(one, d->be->timer_stop_ms(d));
        }
        d->be->timer_start(d);
        for (int r = 0; r < 20; r++) lbp_launch(d, k, &cb, 4, ab);
        double twenty = d->be->timer_stop_ms(d);
        assert_true(one > 0);
        assert_true(twenty > 5 * one);
        lbp_release(d, gx);
        lbp_release(d, gy);
    }

    /* dynamic shared memory parameter, in blocks as large as the kernel
     * (which waits at a barrier) can launch */
    lbp_kernel *kd = lbp_compile(d, saxpy_src, "dyn", "");
    assert_non_null(kd);
    lbp_kernel_info ki;
    d->be->kernel_info(d, kd, &ki);
    const unsigned block = ki.max_block_size < 64 ? (unsigned)ki.max_block_size : 64;
    assert_true(block >= 1);
    lbp_buf *bo = lbp_alloc(d, 128 * sizeof(uint32_t));
    lbp_launch_cfg c2 = lbp_cfg_1d(128 / block, block);
    c2.shared_bytes = 64;
    lbp_arg a2[] = {LBP_BUF(bo), LBP_I32(7)};
    lbp_launch(d, kd, &c2, 2, a2);
    uint32_t out[128];
    lbp_read(d, bo, out, sizeof out);
    for (int i = 0; i < 128; i++) assert_int_equal(out[i], 7 + i % block);

    /* the driver's own copy */
    lbp_buf *bc = lbp_alloc(d, sizeof y);
    d->be->copy(d, bc, by, sizeof y);
    float z[N];
    lbp_read(d, bc, z, sizeof z);
    assert_memory_equal(z, y, sizeof z);
    d->be->kernel_release(d, k);
    d->be->kernel_release(d, kd);
    lbp_release(d, bx);
    lbp_release(d, by);
    lbp_release(d, bo);
    lbp_release(d, bc);
}

/* A private array indexed by a number the compiler cannot know lives in
 * private (local) memory: the backend's local_bytes holds at least it
 * where the backend can tell; a kernel of a few scalars keeps next to
 * none.  Where it cannot tell (the CPU backends: PoCL's
 * CL_KERNEL_PRIVATE_MEM_SIZE is one figure for every kernel), unknown is
 * unknown for every kernel, never a number the tools would read as a
 * spill. */
static const char *private_src =
    "KERNEL void big_private(GLOBAL float *out, int n) {\n"
    "  float a[256];\n"
    "  for (int i = 0; i < 256; i++) a[i] = (float)(i * n);\n"
    "  out[global_id(0)] = a[(global_id(0) * 7 + n) & 255];\n"
    "}\n";

static int64_t local_bytes_of(lbp_device *d, const char *src, const char *entry)
{
    lbp_kernel *k = lbp_compile(d, src, entry, "");
    assert_non_null(k);
    lbp_kernel_info ki;
    d->be->kernel_info(d, k, &ki);
    d->be->kernel_release(d, k);
    return ki.local_bytes;
}

static void test_private_memory_reported(void **state)
{
    lbp_device *d = lbp_test_device(state);
    const int64_t big = local_bytes_of(d, private_src, "big_private"), small = local_bytes_of(d, saxpy_src, "saxpy");
    if (big < 0) {
        assert_int_equal(small, -1); /* unknown is unknown for every kernel */
        return;
    }
    assert_true(big >= 256 * (int64_t)sizeof(float));
    assert_in_range(small, 0, 64);
}

static void test_compile_error_returns_null(void **state)
{
    lbp_device *d = lbp_test_device(state);
    lbp_kernel *k = lbp_compile(d, "KERNEL void broken(GLOBAL float *a) { a[0] = undeclared; }\n", "broken", "");
    assert_null(k);
}

/* Prefetched compiles (more than run at once, one twice, a broken one, a
 * missing entry) give what lbp_compile gives without them: each kernel its
 * own options' result, NULL for the broken and the missing. */
static void test_prefetched_compiles(void **state)
{
    lbp_device *d = lbp_test_device(state);
    static const char src[] = "KERNEL void scale(GLOBAL float *a) { a[global_id(0)] = SCALE * (float)global_id(0); }\n";
    static const char broken[] = "KERNEL void broken(GLOBAL float *a) { a[0] = undeclared; }\n";
    enum { KINDS = 9, N = 64 };
    char opt[32];
    for (int pass = 0; pass < 2; pass++)
        for (int s = 1; s <= KINDS; s++) {
            snprintf(opt, sizeof opt, "-DSCALE=%d", s);
            lbp_prefetch(d, src, "scale", opt);
        }
    lbp_prefetch(d, broken, "broken", "");
    lbp_prefetch(d, src, "absent", "-DSCALE=1");
    assert_null(lbp_compile(d, broken, "broken", ""));
    assert_null(lbp_compile(d, src, "absent", "-DSCALE=1"));
    lbp_buf *b = lbp_alloc(d, N * sizeof(float));
    assert_non_null(b);
    for (int s = KINDS; s >= 1; s--) {
        snprintf(opt, sizeof opt, "-DSCALE=%d", s);
        lbp_kernel *k = lbp_compile(d, src, "scale", opt);
        assert_non_null(k);
        lbp_launch_cfg cfg = lbp_cfg_1d(N / 16, 16);
        lbp_arg args[] = {LBP_BUF(b)};
        lbp_launch(d, k, &cfg, 1, args);
        float y[N];
        lbp_read(d, b, y, sizeof y);
        for (int i = 0; i < N; i++) assert_float_equal(y[i], (float)(s * i), 0);
        d->be->kernel_release(d, k);
    }
    lbp_release(d, b);
}

static void test_alloc_too_large_returns_null(void **state)
{
    lbp_device *d = lbp_test_device(state);
    assert_null(lbp_alloc(d, (size_t)d->info.max_alloc_bytes + 4096));
}

static void test_nvrtc_compiles_dialect_for_sm90(void **state)
{
    (void)state;
    char why[256];
    int r = lbp_nvrtc_check(saxpy_src, "-DUNUSED=1", "sm_90", why, sizeof why);
    if (r < 0) {
        print_message("NVRTC not available: %s\n", why);
        skip();
    }
    assert_int_equal(r, 0);
    const char *clock_src = "KERNEL void t(GLOBAL u64 *o) { o[global_id(0)] = lbp_globaltimer() + lbp_smid() + lbp_lane(); }\n";
    assert_int_equal(lbp_nvrtc_check(clock_src, "", "sm_90", why, sizeof why), 0);
    assert_int_equal(lbp_nvrtc_check("KERNEL void b() { nope; }\n", "", "sm_90", why, sizeof why), 1);
}

/* ---- half precision ------------------------------------------------------ */

/* The host conversions: every half survives a round trip; a value halfway
 * between two neighbours goes to the even one; the edges of the range. */
static void test_half_host_conversions(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        double v = lbp_half_to_double((uint16_t)h);
        if (isnan(v)) {
            assert_true((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
            continue;
        }
        assert_int_equal(lbp_half_from_double(v), h);
        if ((h & 0x7fff) >= 0x7bff) continue; /* no finite neighbour above */
        double next = lbp_half_to_double((uint16_t)(h + 1)), mid = (v + next) / 2;
        uint16_t even = h & 1 ? (uint16_t)(h + 1) : (uint16_t)h;
        assert_int_equal(lbp_half_from_double(mid), even);
        /* just off the midpoint: the nearer one */
        assert_int_equal(lbp_half_from_double(mid + (next - v) * 1e-3), (uint16_t)(h + 1));
        assert_int_equal(lbp_half_from_double(mid - (next - v) * 1e-3), (uint16_t)h);
    }
    assert_int_equal(lbp_half_from_double(1.0), 0x3c00);
    assert_int_equal(lbp_half_from_double(-2.0), 0xc000);
    assert_int_equal(lbp_half_from_double(65504.0), 0x7bff);
    assert_int_equal(lbp_half_from_double(65519.99), 0x7bff);
    assert_int_equal(lbp_half_from_double(65520.0), 0x7c00); /* the tie goes to 2^16: infinity */
    assert_int_equal(lbp_half_from_double(-1e9), 0xfc00);
    assert_int_equal(lbp_half_from_double(0x1p-24), 0x0001);  /* least subnormal */
    assert_int_equal(lbp_half_from_double(0x1p-25), 0x0000);  /* the tie to 0 (even) */
    assert_int_equal(lbp_half_from_double(0x1.8p-25), 0x0001);
    assert_int_equal(lbp_half_from_double(-0.0), 0x8000);
    assert_true(isnan(lbp_half_to_double(lbp_half_from_double(NAN))));
    assert_true(fabs(lbp_half_to_double(0x3c01) - 1.0 - 2 * LBP_HALF_UNIT_ROUNDOFF) < 1e-15);
#if defined(__FLT16_MANT_DIG__)
    /* and the compiler's own conversion agrees on a spread of doubles */
    uint64_t r = 88172645463325252ull;
    for (int i = 0; i < 200000; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        double x = ldexp((double)(r >> 11) / 9007199254740992.0, (int)(r % 48) - 30) * (r & 1 ? -1 : 1);
        _Float16 c = (_Float16)x;
        uint16_t bits;
        memcpy(&bits, &c, 2);
        if ((double)(float)x != x) continue; /* the compiler may round through float: a second rounding */
        assert_int_equal(lbp_half_from_double(x), bits);
    }
#endif
}

/* Every float of in through each load/store form of the dialect: one half
 * (h1), two as one 4-byte access (h2), four as one 8-byte access (h4), and
 * the bits (lbp_float_to_half); back[4 n] the four read back as floats. */
static const char *half_src =
    "KERNEL void halves(GLOBAL const float *RESTRICT in, GLOBAL lbp_half *RESTRICT h1,\n"
    "    GLOBAL lbp_half *RESTRICT h2, GLOBAL lbp_half *RESTRICT h4, GLOBAL u16 *RESTRICT bits,\n"
    "    GLOBAL float *RESTRICT back, i64 n)\n"
    "{\n"
    "  const i64 i = 4 * global_id(0);\n"
    "  if (i >= n) return;\n"
    "  float4 v; v.x = in[i]; v.y = in[i + 1]; v.z = in[i + 2]; v.w = in[i + 3];\n"
    "  float2 a, b; a.x = v.x; a.y = v.y; b.x = v.z; b.y = v.w;\n"
    "  for (int k = 0; k < 4; k++) lbp_store_half(h1, i + k, in[i + k]);\n"
    "  lbp_store_half2(h2, i, a);\n"
    "  lbp_store_half2(h2, i + 2, b);\n"
    "  lbp_store_half4(h4, i, v);\n"
    "  for (int k = 0; k < 4; k++) bits[i + k] = lbp_float_to_half(in[i + k]);\n"
    "  for (int k = 0; k < 4; k++) back[i + k] = lbp_load_half(h1, i + k);\n"
    "  const float2 c = lbp_load_half2(h2, i), e = lbp_load_half2(h2, i + 2);\n"
    "  back[n + i] = c.x; back[n + i + 1] = c.y; back[n + i + 2] = e.x; back[n + i + 3] = e.y;\n"
    "  const float4 w = lbp_load_half4(h4, i);\n"
    "  back[2 * n + i] = w.x; back[2 * n + i + 1] = w.y; back[2 * n + i + 2] = w.z; back[2 * n + i + 3] = w.w;\n"
    "  for (int k = 0; k < 4; k++) back[3 * n + i + k] = lbp_half_to_float(bits[i + k]);\n"
    "}\n";

/* On PoCL and OpenMP: every finite half, every midpoint between two (ties
 * to even), and values past the range go through every form as the host
 * rounds them. */
static void test_half_dialect(void **state)
{
    lbp_device *d = lbp_test_device(state);
    enum { N = 2 * 65536 };
    float *in = malloc(sizeof(float) * N), *back = malloc(sizeof(float) * 4 * N);
    uint16_t *h[4];
    for (int k = 0; k < 4; k++) h[k] = malloc(2 * N);
    for (int i = 0; i < 65536; i++) {
        double v = lbp_half_to_double((uint16_t)i);
        in[i] = isnan(v) ? 0.0f : (float)v;
        double next = lbp_half_to_double((uint16_t)(i + 1 < 65536 ? i + 1 : i));
        /* midpoints (exact in float: 12 significant bits), past the top 1e6 */
        in[65536 + i] = isfinite(v) && isfinite(next) && (i & 0x7fff) < 0x7bff ? (float)((v + next) / 2) : 1e6f;
    }
    lbp_buf *bin = lbp_alloc(d, sizeof(float) * N), *bb[4], *bback = lbp_alloc(d, sizeof(float) * 4 * N);
    for (int k = 0; k < 4; k++) bb[k] = lbp_alloc(d, 2 * N);
    lbp_write(d, bin, in, sizeof(float) * N);
    lbp_kernel *kern = lbp_compile(d, half_src, "halves", "");
    assert_non_null(kern);
    lbp_launch_cfg cfg = lbp_cfg_1d(N / 4 / 64, 64);
    lbp_arg args[] = {LBP_BUF(bin), LBP_BUF(bb[0]), LBP_BUF(bb[1]), LBP_BUF(bb[2]), LBP_BUF(bb[3]), LBP_BUF(bback),
                      LBP_I64(N)};
    lbp_launch(d, kern, &cfg, 7, args);
    for (int k = 0; k < 4; k++) lbp_read(d, bb[k], h[k], 2 * N);
    lbp_read(d, bback, back, sizeof(float) * 4 * N);
    int wrong = 0;
    for (int i = 0; i < N; i++) {
        uint16_t want = lbp_half_from_double(in[i]);
        for (int k = 0; k < 4; k++) {
            int ok = h[k][i] == want && back[k * N + i] == (float)lbp_half_to_double(want);
            if (!ok && wrong++ < 5)
                fprintf(stderr, "form %d, %.9g: stored 0x%04x read %.9g, expected 0x%04x\n", k, in[i], h[k][i],
                        back[k * N + i], want);
        }
    }
    assert_int_equal(wrong, 0);
    d->be->kernel_release(d, kern);
    lbp_release(d, bin);
    lbp_release(d, bback);
    for (int k = 0; k < 4; k++) lbp_release(d, bb[k]), free(h[k]);
    free(in);
    free(back);
}

/* NVRTC: the same kernel compiles for sm_90 (cvt.rn.f16x2.f32 packs two
 * halves) and for sm_75 (two single conversions; NVRTC 13 compiles
 * nothing older), with no header. */
static void test_half_dialect_on_nvrtc(void **state)
{
    (void)state;
    char why[256];
    if (lbp_nvrtc_check(half_src, "", "sm_90", why, sizeof why) < 0) skip();
    assert_int_equal(lbp_nvrtc_check(half_src, "", "sm_90", why, sizeof why), 0);
    assert_int_equal(lbp_nvrtc_check(half_src, "", "sm_75", why, sizeof why), 0);
    char *ptx = lbp_nvrtc_ptx(half_src, "", "compute_90", why, sizeof why);
    assert_non_null(ptx);
    assert_non_null(strstr(ptx, "cvt.rn.f16x2.f32"));
    assert_non_null(strstr(ptx, "st.global.v2.u32")); /* four halves in one 8-byte store */
    assert_non_null(strstr(ptx, "st.global.u32"));    /* two in one 4-byte store */
    free(ptx);
    ptx = lbp_nvrtc_ptx(half_src, "", "compute_75", why, sizeof why);
    assert_non_null(ptx);
    assert_null(strstr(ptx, "cvt.rn.f16x2.f32"));
    assert_non_null(strstr(ptx, "cvt.rn.f16.f32"));
    free(ptx);
}

/* CONSTANT tables are folded into the arithmetic on CUDA, as OpenCL's
 * compiler folds its __constant ones: after unrolling, a velocity read
 * from a table is a literal, so no constant-memory load is left and the
 * periodic wrap of a shifted index is one modulo per distinct shift. */
static void test_constant_tables_fold_on_nvrtc(void **state)
{
    (void)state;
    static const char src[] =
        "CONSTANT i32 CX[4] = {-1, 0, 1, 0};\n"
        "KERNEL void k(GLOBAL float *a, GLOBAL float *b, i32 nx) {\n"
        "  const i64 x = global_id(0); float s = 0;\n"
        "  _Pragma(\"unroll\") for (int q = 0; q < 4; q++) s += a[(x - CX[q] + nx) % nx];\n"
        "  b[x] = s; }\n";
    char why[256];
    if (lbp_nvrtc_check(src, "", "sm_90", why, sizeof why) < 0) skip();
    char *ptx = lbp_nvrtc_ptx(src, "", "compute_90", why, sizeof why);
    assert_non_null(ptx);
    assert_null(strstr(ptx, "ld.const"));
    int rems = 0;
    for (const char *p = ptx; (p = strstr(p, "rem.s64")); p++) rems++;
    assert_in_range(rems, 1, 3); /* shifts -1, 0, +1: four reads, three 64-bit wraps (unfolded: four) */
    free(ptx);
}

static void test_stats_and_fit(void **state)
{
    (void)state;
    double s[] = {5, 1, 3, 2, 4};
    lbp_stats st = lbp_stats_of(s, 5);
    assert_float_equal(st.min, 1, 0);
    assert_float_equal(st.median, 3, 0);
    assert_float_equal(st.max, 5, 0);
    assert_float_equal(st.q1, 2, 1e-12);
    assert_float_equal(lbp_scatter(&st), 4.0 / 3.0, 1e-12);
    double x[] = {1, 2, 3, 4}, y[] = {3, 5, 7, 9};
    lbp_fit f = lbp_fit_line(x, y, 4);
    assert_float_equal(f.slope, 2, 1e-12);
    assert_float_equal(f.intercept, 1, 1e-12);
    assert_float_equal(f.r2, 1, 1e-12);
    assert_float_equal(f.rms, 0, 1e-12);
    assert_true(lbp_fit_slope_clear(&f));
    /* the misaligned-read fits a cost ratio was once printed over: a CPU's
     * negative slope (pthread fixture), a flat one that explains nothing
     * (r^2 0.0006 over 5 points); an H100's small but clear one */
    assert_false(lbp_fit_slope_clear(&(lbp_fit){.slope = -0.001619, .r2 = 0.221303, .n = 20}));
    assert_false(lbp_fit_slope_clear(&(lbp_fit){.slope = 0.000306, .r2 = 0.000643, .n = 5}));
    assert_true(lbp_fit_slope_clear(&(lbp_fit){.slope = 0.000060, .r2 = 0.982575, .n = 20}));
    /* t = 2 is the edge: r^2 = 4 / (n - 2 + 4) */
    assert_true(lbp_fit_slope_clear(&(lbp_fit){.slope = 1, .r2 = 4.0 / 22 + 1e-9, .n = 20}));
    assert_false(lbp_fit_slope_clear(&(lbp_fit){.slope = 1, .r2 = 4.0 / 22 - 1e-6, .n = 20}));
}

/* A device whose timer replays a script of timings (ms). */
static const double *timer_script;
static int timer_next;
static void scripted_sync(lbp_device *d) { (void)d; }
static void scripted_start(lbp_device *d) { (void)d; }
static double scripted_stop(lbp_device *d) { (void)d; return timer_script[timer_next++]; }
static void no_run(void *ctx) { (void)ctx; }

/* Repetitions that scatter are measured again (up to `retries` times): a
 * clean set is taken, else the set with the lowest median. */
static void test_time_runs_retries_scattered_sets(void **state)
{
    (void)state;
    static const lbp_backend scripted = {.name = "scripted", .sync = scripted_sync,
                                         .timer_start = scripted_start, .timer_stop_ms = scripted_stop};
    lbp_device d = {.be = &scripted};
    /* a disturbed set (median 1.1, scatter 100 %), then a clean one */
    static const double a[] = {1.0, 2.0, 1.1, 1.0, 1.2, 1.0, 1.01, 0.99, 1.0, 1.02};
    timer_script = a, timer_next = 0;
    lbp_stats st = lbp_time_runs(&d, no_run, NULL, &(lbp_timing){0, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, 10);
    assert_float_equal(st.median, 1.0, 1e-12);
    assert_float_equal(st.max, 1.02, 1e-12);
    /* without retries the first set stands */
    timer_next = 0;
    st = lbp_time_runs(&d, no_run, NULL, &(lbp_timing){0, 5, 0.05, "scripted", 0});
    assert_int_equal(timer_next, 5);
    assert_float_equal(st.median, 1.1, 1e-12);
    /* every set scatters: three sets, the lowest median kept */
    static const double b[] = {3, 1, 2, 1, 1, 2, 2, 2, 1, 3, 1, 1, 2, 3, 3};
    timer_script = b, timer_next = 0;
    st = lbp_time_runs(&d, no_run, NULL, &(lbp_timing){0, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, 15);
    assert_float_equal(st.median, 1.0, 1e-12);
    assert_float_equal(st.max, 3.0, 1e-12);
}

/* A run as long as ctx says (ms, host clock). */
static void sleep_run(void *ctx)
{
    const double ms = *(const double *)ctx;
    struct timespec t = {.tv_sec = 0, .tv_nsec = (long)(ms * 1e6)};
    nanosleep(&t, NULL);
}

/* On a CPU, runs of LBP_CPU_LONG_RUN_MS or more (the last warm-up, on the
 * host clock) take at most LBP_CPU_LONG_RUN_REPS repetitions and no retry,
 * their scatter only reported; shorter runs, and a GPU's of any length,
 * keep the reps and retries asked for. */
static void test_time_runs_cpu_long_runs(void **state)
{
    (void)state;
    static const lbp_backend scripted = {.name = "scripted", .sync = scripted_sync,
                                         .timer_start = scripted_start, .timer_stop_ms = scripted_stop};
    lbp_device cpu = {.be = &scripted, .info = {.kind = LBP_KIND_CPU}}, gpu = {.be = &scripted};
    static const double scattered[] = {3, 1, 2, 1, 1, 2, 2, 2, 1, 3, 1, 1, 2, 3, 3};
    double long_ms = 1.5 * LBP_CPU_LONG_RUN_MS, short_ms = 0;
    timer_script = scattered, timer_next = 0;
    lbp_stats st = lbp_time_runs(&cpu, sleep_run, &long_ms, &(lbp_timing){1, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, LBP_CPU_LONG_RUN_REPS);
    assert_int_equal(st.n, LBP_CPU_LONG_RUN_REPS);
    assert_float_equal(st.median, 2.0, 1e-12); /* 3, 1, 2 */
    timer_next = 0; /* short runs on a CPU: all reps, retried */
    st = lbp_time_runs(&cpu, sleep_run, &short_ms, &(lbp_timing){1, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, 15);
    timer_next = 0; /* long runs on a GPU: the same */
    st = lbp_time_runs(&gpu, sleep_run, &long_ms, &(lbp_timing){1, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, 15);
    timer_next = 0; /* no warm-up: nothing timed on the host, nothing changed */
    st = lbp_time_runs(&cpu, sleep_run, &long_ms, &(lbp_timing){0, 5, 0.05, "scripted", 2});
    assert_int_equal(timer_next, 15);
    (void)st;
}

static void test_slug(void **state)
{
    (void)state;
    char s[96];
    lbp_make_slug(s, sizeof s, "NVIDIA H100 80GB HBM3");
    assert_string_equal(s, "nvidia-h100-80gb-hbm3");
    lbp_make_slug(s, sizeof s, "pthread-skylake-avx512-Intel(R) Xeon(R) Processor");
    assert_string_equal(s, "pthread-skylake-avx512-intel-xeon-processor");
    const unsigned char u[16] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 0x02, 0x03, 0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x06, 0xff};
    lbp_format_uuid(s, sizeof s, u);
    assert_string_equal(s, "deadbeef-0001-0203-a0b1-c2d3e4f506ff");
}

/* A backend whose devices are of the kinds in fake_kinds (an OpenCL ICD
 * that lists PoCL's CPU before the GPUs): --backend without --device opens
 * the first GPU. */
static const char *fake_kinds[4];
static void fake_open(lbp_device *d, int index) { d->info.kind = lbp_kind_from_name(fake_kinds[index]); }
static void fake_close(lbp_device *d) { (void)d; }

static void test_first_gpu(void **state)
{
    (void)state;
    const lbp_backend fake = {.name = "fake", .open = fake_open, .close = fake_close};
    fake_kinds[0] = "cpu", fake_kinds[1] = "gpu", fake_kinds[2] = "gpu";
    assert_int_equal(lbp_first_gpu(&fake, 3), 1);
    assert_int_equal(lbp_first_gpu(&fake, 1), 0); /* the CPU alone */
    fake_kinds[0] = "gpu";
    assert_int_equal(lbp_first_gpu(&fake, 3), 0);
    fake_kinds[0] = "cpu", fake_kinds[1] = "other", fake_kinds[2] = "cpu";
    assert_int_equal(lbp_first_gpu(&fake, 3), 0); /* no GPU: the first device */
}

/* Every backend with a device says what it can do, and its optional
 * functions are there exactly where it says so; the kind's word reads back. */
static void test_capabilities_match_the_backend(void **state)
{
    (void)state;
    int opened = 0;
    for (int b = 0; lbp_backends[b]; b++) {
        const lbp_backend *be = lbp_backends[b];
        char why[256];
        if (be->count(why, sizeof why) <= 0) continue;
        lbp_device d;
        lbp_open(&d, be->name, 0);
        const lbp_caps *c = &d.info.caps;
        assert_int_equal(c->carveout, be->set_carveout != NULL);
        assert_int_equal(c->graph_replay, be->graph_replay_ms != NULL);
        assert_int_equal(c->second_queue, be->select_queue && be->read_async && be->write_async && be->copy_region);
        assert_int_equal(c->ipc, be->ipc_export && be->ipc_import && be->ipc_close);
        assert_int_equal(c->device_pointers, be->device_pointer != NULL);
        assert_true(!c->host_pointers || c->device_pointers);
        assert_true(!c->force_blocks_per_cu || c->carveout);
        assert_true(c->usable_bytes > 0 && c->usable_bytes <= d.info.global_mem_bytes);
        assert_true(lbp_memory_budget(&d) < c->usable_bytes);
        assert_int_equal(lbp_kind_from_name(lbp_kind_name(d.info.kind)), d.info.kind);
        lbp_reopen(&d);
        assert_string_equal(d.info.backend, be->name);
        lbp_close(&d);
        opened++;
    }
    assert_true(opened > 0); /* PoCL at least */
    assert_int_equal(lbp_kind_from_name("gpu"), LBP_KIND_GPU);
    assert_int_equal(lbp_kind_from_name("cpu"), LBP_KIND_CPU);
    assert_int_equal(lbp_kind_from_name("fpga"), LBP_KIND_OTHER);
    assert_int_equal(lbp_kind_from_name(NULL), LBP_KIND_OTHER);
}

/* NVIDIA occupancy from registers (NVIDIA's OpenCL), against what
 * cuOccupancyMaxActiveBlocksPerMultiprocessor gave for the H100's and H200's
 * kernels (lbm.csv: registers, block size, blocks per SM). */
static void test_nv_blocks_per_sm(void **state)
{
    (void)state;
    static const int cases[][3] = {{54, 768, 1}, {128, 64, 8}, {68, 64, 14}, {72, 512, 1}, {120, 384, 1},
                                   /* the four partitions: 48 registers leave 40 warps, not 42 */
                                   {48, 64, 20}, {48, 192, 6}, {86, 64, 10}, {54, 192, 6}, {32, 256, 8},
                                   {32, 64, 32}, {0, 32, 32}, {64, 1024, 1}, {255, 64, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = lbp_nv_blocks_per_sm(9, 0, cases[i][0], cases[i][1], 0);
        if (got != cases[i][2]) fprintf(stderr, "%d registers, block %d: %d\n", cases[i][0], cases[i][1], got);
        assert_int_equal(got, cases[i][2]);
    }
    /* shared memory: 228 KB per SM, 1 KB reserved per block */
    assert_int_equal(lbp_nv_blocks_per_sm(9, 0, 32, 256, 100 * 1024), 2);
    assert_int_equal(lbp_nv_blocks_per_sm(9, 0, 32, 256, 227 * 1024), 1);
    assert_int_equal(lbp_nv_blocks_per_sm(9, 0, 32, 256, 228 * 1024), 0);
    /* another generation: 1536 threads and 16 blocks per SM */
    assert_int_equal(lbp_nv_blocks_per_sm(8, 6, 32, 64, 0), 16);
    assert_int_equal(lbp_nv_blocks_per_sm(8, 6, 32, 512, 0), 3);
    assert_int_equal(lbp_nv_max_threads_per_sm(8, 6), 1536);
    assert_int_equal(lbp_nv_max_threads_per_sm(9, 0), 2048);
    /* unknown: compute capability, registers, block size */
    assert_int_equal(lbp_nv_blocks_per_sm(6, 1, 32, 256, 0), -1);
    assert_int_equal(lbp_nv_max_threads_per_sm(6, 1), -1);
    assert_int_equal(lbp_nv_blocks_per_sm(9, 0, -1, 256, 0), -1);
    assert_int_equal(lbp_nv_blocks_per_sm(9, 0, 32, 2048, 0), 0);
}

static void test_int_list_and_bytes(void **state)
{
    (void)state;
    long long v[64];
    int n = lbp_parse_int_list("--x", "1,4..6,32..256:x2", 0, 1000, v, 64);
    long long want[] = {1, 4, 5, 6, 32, 64, 128, 256};
    assert_int_equal(n, 8);
    for (int i = 0; i < n; i++) assert_int_equal(v[i], want[i]);
    assert_int_equal(lbp_parse_bytes("--s", "4K", 0, 1LL << 40), 4096);
    assert_int_equal(lbp_parse_bytes("--s", "2GiB", 0, 1LL << 40), 2LL << 30);
    /* and back: whole units where they divide, else one decimal */
    const struct { double b; const char *text; } t[] = {
        {100, "100 B"}, {4096, "4 KiB"}, {1500, "1500 B"}, {1536.0 * 1024 * 1024, "1536 MiB"},
        {2.5 * 1024 * 1024 + 1, "2.5 MiB"}, {3LL << 30, "3 GiB"}, {(3LL << 30) + 1, "3.0 GiB"},
        {1.5 * 1024 * 1024 * 1024 * 1024 * 1024 + 1, "1.5 PiB"}};
    char text[32];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        lbp_bytes_text(text, sizeof text, t[i].b);
        assert_string_equal(text, t[i].text);
    }
}

/* Run a function in a child; return its exit status. */
static int exit_status_of(void (*fn)(void))
{
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        freopen("/dev/null", "w", stderr);
        fn();
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
static void bad_int(void) { lbp_parse_int("--n", "12x", 0, 100); }
static void bad_range(void) { lbp_parse_int("--n", "101", 0, 100); }
static void bad_backend(void) { lbp_device d; lbp_open(&d, "metal", -1); }
static void bad_device(void) { lbp_device d; lbp_open(&d, "opencl", 99); }

static void test_bad_input_exits_2(void **state)
{
    (void)state;
    assert_int_equal(exit_status_of(bad_int), 2);
    assert_int_equal(exit_status_of(bad_range), 2);
    assert_int_equal(exit_status_of(bad_backend), 2);
    assert_int_equal(exit_status_of(bad_device), 2);
}

static char tmpdir[64];
static void overwrite_without_force(void)
{
    lbp_device_info i = {.slug = "x", .backend = "opencl"};
    lbp_csv_open(tmpdir, "r.csv", "a", &i, 0);
}

static void test_csv_tmp_rename_and_no_overwrite(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lbp-test-%d/sub", (int)getpid());
    lbp_device_info i = {.slug = "dev", .backend = "opencl"};
    lbp_csv *c = lbp_csv_open(tmpdir, "r.csv", "a,b", &i, 0);
    lbp_csv_row(c, "%d,%d", 1, 2);
    char path[128], tmp[160];
    snprintf(path, sizeof path, "%s/r.csv", tmpdir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    assert_int_equal(access(path, F_OK), -1); /* nothing before commit */
    assert_int_equal(access(tmp, F_OK), 0);
    lbp_csv_commit(c);
    assert_int_equal(access(tmp, F_OK), -1);
    FILE *f = fopen(path, "r");
    char buf[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_string_equal(buf, "device,backend,a,b\ndev,opencl,1,2\n");
    assert_int_equal(exit_status_of(overwrite_without_force), 2); /* a refusal: usage */
    c = lbp_csv_open(tmpdir, "r.csv", "a", &i, 1); /* --force */
    lbp_csv_abort(c);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(access(path, F_OK), 0); /* the old file is kept on abort */
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf /tmp/lbp-test-%d", (int)getpid());
    assert_int_equal(system(cmd), 0);
}

/* The meta builder: device rows first, then the tool's in the order set,
 * keys and values copied, NaN as n/a, a key set again keeping its place. */
static void test_meta_builder(void **state)
{
    (void)state;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/lbp-test-meta-%d", (int)getpid());
    lbp_device_info i = {.slug = "dev", .backend = "opencl", .kind = LBP_KIND_GPU};
    char *argv[] = {"tool", "--flag", "a,b"};
    lbp_meta *m = lbp_meta_new("t", &i, 3, argv);
    char key[16];
    snprintf(key, sizeof key, "first");
    lbp_meta_set(m, key, "%d", 1);
    snprintf(key, sizeof key, "second");
    lbp_meta_number(m, key, "%.2f", NAN);
    lbp_meta_number(m, "third", "%.2f", 2.5);
    lbp_meta_set(m, "first", "again");
    lbp_meta_write(m, dir, 0);
    char path[128], line[256], rows[8][256];
    snprintf(path, sizeof path, "%s/t-meta.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int n = 0, kind = 0, tool = 0;
    while (fgets(line, sizeof line, f)) {
        kind += !strcmp(line, "kind,gpu\n");
        tool += !strcmp(line, "tool,t\n");
        assert_false(!strncmp(line, "command,", 8) && strcmp(line, "command,\"tool --flag a,b\"\n"));
        snprintf(rows[n++ % 8], sizeof rows[0], "%s", line);
    }
    fclose(f);
    assert_int_equal(kind, 1);
    assert_int_equal(tool, 1);
    assert_string_equal(rows[(n - 3) % 8], "first,again\n");
    assert_string_equal(rows[(n - 2) % 8], "second,n/a\n");
    assert_string_equal(rows[(n - 1) % 8], "third,2.50\n");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* An environment variable that can change a measured number is recorded
 * as env_<name>; one that cannot (the object cache's folder) is not. */
static void test_meta_records_environment(void **state)
{
    (void)state;
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/lbp-test-env-%d", (int)getpid());
    setenv("LBP_OMP_CFLAGS", "-O3 -funroll-loops", 1);
    setenv("LBP_OMP_CACHE", "/nowhere", 1);
    lbp_device_info i = {.slug = "dev", .backend = "openmp", .kind = LBP_KIND_CPU};
    char *argv[] = {"tool"};
    lbp_meta *m = lbp_meta_new("t", &i, 1, argv);
    lbp_meta_write(m, dir, 0); /* frees m */
    unsetenv("LBP_OMP_CFLAGS");
    unsetenv("LBP_OMP_CACHE");
    char path[128], line[256];
    snprintf(path, sizeof path, "%s/t-meta.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int cflags = 0, cache = 0;
    while (fgets(line, sizeof line, f)) {
        cflags += !strcmp(line, "env_LBP_OMP_CFLAGS,-O3 -funroll-loops\n");
        cache += !strncmp(line, "env_LBP_OMP_CACHE", 17);
    }
    fclose(f);
    assert_int_equal(cflags, 1);
    assert_int_equal(cache, 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* What fn writes to stderr (in a child), and its exit status. */
static int stderr_of(void (*fn)(void), char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/lbp-test-err-%d", (int)getpid());
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        freopen(path, "w", stderr);
        fn();
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = 0;
    if (f) fclose(f);
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void refuse_existing(void)
{
    lbp_check_fresh(tmpdir, (const char *const[]){"r.csv", NULL}, 0);
}
static void refuse_existing_out(void)
{
    lbp_device_info i = {.slug = "x"};
    lbp_result_dir(tmpdir, &i);
    refuse_existing();
}

/* A refusal to overwrite suggests --out only to a tool that chose its
 * folder by --out (lbp_result_dir): model validate and drift take none. */
static void test_check_fresh_suggests_out_only_with_it(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lbp-test-fresh-%d", (int)getpid());
    lbp_device_info i = {.slug = "dev", .backend = "opencl"};
    lbp_csv_commit(lbp_csv_open(tmpdir, "r.csv", "a", &i, 0));
    char err[512];
    assert_int_equal(stderr_of(refuse_existing, err, sizeof err), 2); /* a refusal: usage */
    assert_non_null(strstr(err, "r.csv exists"));
    assert_null(strstr(err, "--out"));
    assert_int_equal(stderr_of(refuse_existing_out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--out DIR"));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    assert_int_equal(system(cmd), 0);
}

/* A result folder too long for its files' paths is a usage error, not a
 * truncated name. */
static void long_out(void)
{
    static char dir[8192];
    size_t n = 0;
    while (n + 202 < sizeof dir) n += (size_t)snprintf(dir + n, sizeof dir - n, "/%0200d", 1);
    lbp_device_info i = {.slug = "x"};
    lbp_result_dir(dir, &i);
}
static void long_out_name(void)
{
    static char dir[400];
    memset(dir, 'a', sizeof dir - 1);
    lbp_device_info i = {.slug = "x"};
    lbp_result_dir(dir, &i);
}

static void test_result_dir_length(void **state)
{
    (void)state;
    assert_int_equal(exit_status_of(long_out), 2);
    assert_int_equal(exit_status_of(long_out_name), 2);
    lbp_device_info i = {.slug = "x"};
    assert_string_equal(lbp_result_dir(NULL, &i), "results/x");
    assert_string_equal(lbp_result_dir("/tmp/o", &i), "/tmp/o");
}

/* ---- One run per result folder ------------------------------------------ */

static char lockdir[64];
static void claim_lockdir(void) { lbp_claim_dir(lockdir); }

static void remove_tree(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A second process claiming a folder another holds fails at once (exit 1,
 * one line saying so); once the holder ends, the folder is free. */
static void test_second_run_into_a_folder_fails(void **state)
{
    (void)state;
    snprintf(lockdir, sizeof lockdir, "/tmp/lbp-test-lock-%d", (int)getpid());
    int go[2], ready[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(ready), 0);
    fflush(NULL);
    pid_t holder = fork();
    if (holder == 0) {
        char c;
        lbp_claim_dir(lockdir);
        if (write(ready[1], "r", 1) != 1) _exit(3);
        _exit(read(go[0], &c, 1) == 1 ? 0 : 3);
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    char err[512];
    assert_int_equal(stderr_of(claim_lockdir, err, sizeof err), 1);
    assert_non_null(strstr(err, "in use by another run"));
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
    assert_int_equal(write(go[1], "g", 1), 1);
    int st;
    waitpid(holder, &st, 0);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(exit_status_of(claim_lockdir), 0);
    close(go[0]), close(go[1]), close(ready[0]), close(ready[1]);
    remove_tree(lockdir);
}

/* A file that appeared between the check and the commit is kept: the
 * commit refuses (exit 1) instead of replacing it. */
static void commit_over_a_new_file(void)
{
    lbp_device_info i = {.slug = "x", .backend = "opencl"};
    lbp_csv *c = lbp_csv_open(lockdir, "r.csv", "a", &i, 0);
    char path[128];
    snprintf(path, sizeof path, "%s/r.csv", lockdir);
    FILE *f = fopen(path, "w");
    fputs("theirs\n", f);
    fclose(f);
    lbp_csv_commit(c);
}

static void test_commit_never_replaces_without_force(void **state)
{
    (void)state;
    snprintf(lockdir, sizeof lockdir, "/tmp/lbp-test-commit-%d", (int)getpid());
    assert_int_equal(exit_status_of(commit_over_a_new_file), 2);
    char path[128], buf[64] = "";
    snprintf(path, sizeof path, "%s/r.csv", lockdir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "theirs\n");
    remove_tree(lockdir); /* and no temp file was left: rmdir of the rest */
}

static void touch(const char *dir, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}
static int exists(const char *dir, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Claiming a folder removes the temp files of runs that ended early (their
 * process gone, or the old shared name), and nothing else. */
static void test_claim_removes_stale_temps(void **state)
{
    (void)state;
    snprintf(lockdir, sizeof lockdir, "/tmp/lbp-test-stale-%d", (int)getpid());
    lbp_mkdir_p(lockdir);
    touch(lockdir, "lbm.csv.tmp.2147483646"); /* above any pid_max: no such process */
    touch(lockdir, "lbm.csv.tmp");
    touch(lockdir, "membench.csv.tmp.1"); /* init: alive */
    touch(lockdir, "notes.tmp");
    touch(lockdir, "lbm.csv");
    assert_int_equal(exit_status_of(claim_lockdir), 0);
    assert_false(exists(lockdir, "lbm.csv.tmp.2147483646"));
    assert_false(exists(lockdir, "lbm.csv.tmp"));
    assert_true(exists(lockdir, "membench.csv.tmp.1"));
    assert_true(exists(lockdir, "notes.tmp"));
    assert_true(exists(lockdir, "lbm.csv"));
    remove_tree(lockdir);
}

/* A tool's files are renamed together just before its meta: a run that
 * fails (or is killed) before the meta leaves no data file without it. */
static void finish_then_fail(void)
{
    lbp_device_info i = {.slug = "x", .backend = "opencl"};
    lbp_csv_finish(lbp_csv_open(lockdir, "a.csv", "a", &i, 0));
    lbp_csv_finish(lbp_csv_open(lockdir, "b.csv", "b", &i, 0));
    lbp_fail("a measurement failed");
}
static void finish_then_meta(void)
{
    lbp_device_info i = {.slug = "x", .backend = "opencl"};
    lbp_csv_finish(lbp_csv_open(lockdir, "a.csv", "a", &i, 0));
    lbp_csv_finish(lbp_csv_open(lockdir, "b.csv", "b", &i, 0));
    char *argv[] = {"t"};
    lbp_meta_write(lbp_meta_new("t", &i, 1, argv), lockdir, 0);
    exit(0);
}

static void test_result_set_committed_with_its_meta(void **state)
{
    (void)state;
    snprintf(lockdir, sizeof lockdir, "/tmp/lbp-test-set-%d", (int)getpid());
    assert_int_equal(exit_status_of(finish_then_fail), 1);
    DIR *d = opendir(lockdir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 0); /* neither the data files nor their temps */
    assert_int_equal(exit_status_of(finish_then_meta), 0);
    assert_true(exists(lockdir, "a.csv"));
    assert_true(exists(lockdir, "b.csv"));
    assert_true(exists(lockdir, "t-meta.csv"));
    remove_tree(lockdir);
}

/* A run that ends early with a result file still open (a failed
 * measurement's lbp_fail, SIGTERM, a crash's abort) leaves no temp file of
 * it, and one in the middle of an OpenMP compile no build folder: each in
 * a folder of its own (mkdtemp), TMPDIR for the compile. */
static char early_dir[64];
static lbp_csv *early_csv; /* held, as a tool holds its open files, until the process ends */
static void open_csv(void)
{
    lbp_device_info i = {.slug = "x", .backend = "openmp"};
    early_csv = lbp_csv_open(early_dir, "lbm.csv", "a", &i, 0);
    lbp_csv_row(early_csv, "1");
}
static void open_then_fail(void) { open_csv(); lbp_fail("a measurement failed"); }
static void open_then_term(void) { open_csv(); raise(SIGTERM); }
static void open_then_abort(void) { open_csv(); abort(); }
static void start_compile(void)
{
    setenv("TMPDIR", early_dir, 1);
    setenv("LBP_OMP_CACHE", "off", 1);
    lbp_cjit_start_kernel("void k(float *a) { a[0] = 1; }\n", "k", "");
}
static void compile_then_fail(void) { start_compile(); lbp_fail("a compile's caller failed"); }
static void compile_then_term(void) { start_compile(); raise(SIGTERM); }

/* What a run of ours leaves: result temp files ("*.csv.tmp.<pid>") and
 * build folders ("lbmprobe-omp-*"); not the compiler's own temp files
 * (it runs on, orphaned, and removes them as it ends). */
static int leftovers_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") || !strncmp(e->d_name, "lbmprobe-omp-", 13);
    if (d) closedir(d);
    return n;
}

static void test_early_end_leaves_no_temps(void **state)
{
    (void)state;
    void (*const ends[])(void) = {open_then_fail, open_then_term, open_then_abort, compile_then_fail,
                                  compile_then_term};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        snprintf(early_dir, sizeof early_dir, "/tmp/lbp-early-XXXXXX");
        assert_non_null(mkdtemp(early_dir));
        exit_status_of(ends[i]);
        assert_int_equal(leftovers_in(early_dir), 0);
        remove_tree(early_dir);
    }
}

/* ---- the openmp backend ---------------------------------------------------- */

/* The wrapper generator reads an entry's parameters from preprocessed text:
 * the definition, not a call, a prototype or a name in a string; line
 * markers inside the list; the dynamic shared memory; no parameters. */
static void test_cjit_parses_entries(void **state)
{
    (void)state;
    lbp_cjit_entry e;
    char why[256];
    const char *text =
        "static _Thread_local lbp_workitem lbp_wi;\n"
        "void k(int);\n"
        "const char *s = \"void k(float x) {\";\n"
        "static void other(void) { k(1); }\n"
        "static inline __attribute__((always_inline)) void k(const float *restrict a,\n"
        "# 12 \"kernel.c\"\n"
        "    float *restrict b, const long n, unsigned char *restrict lbp_dyn_shared)\n"
        "{ if (n) b[0] = a[lbp_wi.gid[0]]; lbp_barrier_mark_(lbp_wi); }\n";
    assert_int_equal(lbp_cjit_parse_entry(text, "k", &e, why, sizeof why), 0);
    assert_int_equal(e.nparams, 3);
    assert_string_equal(e.params[0].name, "a");
    assert_string_equal(e.params[0].decl, "const float *restrict a");
    assert_string_equal(e.params[1].decl, "float *restrict b");
    assert_string_equal(e.params[2].name, "n");
    assert_true(e.dyn_shared);
    assert_true(e.uses_barrier);
    assert_false(e.ids_outside_entry); /* the declaration is not a use */
    assert_int_equal(text[e.params_open], '(');
    assert_int_equal(text[e.params_close], ')');
    /* the ids read in a helper: the wrapper must keep the thread-local copy */
    const char *helper = "static _Thread_local lbp_workitem lbp_wi;\n"
                         "static long h(void) { return lbp_wi.gid[0]; }\n"
                         "static void f(void) { lbp_barrier_mark_(lbp_wi); }\n"
                         "void k(void) { h(); }\n";
    assert_int_equal(lbp_cjit_parse_entry(helper, "k", &e, why, sizeof why), 0);
    assert_int_equal(e.nparams, 0);
    assert_false(e.dyn_shared || e.uses_barrier);
    assert_true(e.ids_outside_entry);
    char *wrapped = lbp_cjit_wrap(helper, "k", &e);
    assert_non_null(strstr(wrapped, "void k(lbp_workitem lbp_wi) {"));
    assert_non_null(strstr(wrapped, "lbp_wi = lbp_w;"));
    assert_non_null(strstr(wrapped, "#pragma omp for schedule(static)"));
    free(wrapped);
    /* what the wrapper cannot pass, and what is not there */
    assert_int_equal(lbp_cjit_parse_entry("void k(float a[4]) {}\n", "k", &e, why, sizeof why), -1);
    assert_non_null(strstr(why, "array"));
    assert_int_equal(lbp_cjit_parse_entry("void k(int a);\nvoid kk(int a) {}\n", "k", &e, why, sizeof why), -1);
    assert_non_null(strstr(why, "no definition"));
}

static void test_cache_sizes_parse(void **state)
{
    (void)state;
    assert_int_equal(lbp_parse_cache_size("266240K"), 266240LL << 10);
    assert_int_equal(lbp_parse_cache_size("32M"), 32LL << 20);
    assert_int_equal(lbp_parse_cache_size("512"), 512);
    assert_int_equal(lbp_parse_cache_size("x"), -1);
    assert_int_equal(lbp_parse_cache_size("4Q"), -1);
    lbp_host_cpu h;
    lbp_host_cpu_describe(&h);
    assert_true(h.cores >= 1 && h.cores <= h.cpus);
    assert_true(h.mem_bytes > 0);
}

/* Every id of a 3-D launch, also where a helper reads them, and a scalar of
 * each type, as the openmp wrapper passes them. */
static const char ids_src[] =
    "INLINE i64 flat(void) { return global_id(0) + 5 * (global_id(1) + 4 * global_id(2)); }\n"
    "KERNEL void ids(GLOBAL i64 *RESTRICT out, i32 a, i64 b, float c, double e) {\n"
    "  const i64 n = flat(), g = global_id(0) + 5 * (global_id(1) + 4 * global_id(2));\n"
    "  out[8 * n + 0] = n == g;\n"
    "  out[8 * n + 1] = local_id(0) + 10 * local_id(1) + 100 * local_id(2);\n"
    "  out[8 * n + 2] = group_id(0) + 10 * group_id(1) + 100 * group_id(2);\n"
    "  out[8 * n + 3] = local_size(0) + 10 * local_size(1) + 100 * local_size(2);\n"
    "  out[8 * n + 4] = num_groups(0) + 10 * num_groups(1) + 100 * num_groups(2);\n"
    "  out[8 * n + 5] = a + b;\n"
    "  out[8 * n + 6] = (i64)(c * 4.0f) + (i64)(e * 8.0);\n"
    "  out[8 * n + 7] = lbp_as_u32(lbp_as_f32(0x3f800000u)) == 0x3f800000u && LBP_HAS_CLOCK == 0;\n"
    "}\n";

static void test_runs_every_id(void **state)
{
    lbp_device *d = lbp_test_device(state);
    enum { NX = 5, NY = 4, NZ = 3, W = 8 };
    lbp_buf *b = lbp_alloc(d, sizeof(int64_t) * W * NX * NY * NZ);
    assert_non_null(b);
    lbp_kernel *k = lbp_compile(d, ids_src, "ids", "-DLBP_FP64=1");
    assert_non_null(k);
    /* grid 5 x 2 x 3 of blocks 1 x 2 x 1 */
    lbp_launch_cfg cfg = {.grid = {5, 2, 3}, .block = {1, 2, 1}};
    lbp_arg a[] = {LBP_BUF(b), LBP_I32(40), LBP_I64(2), LBP_F32(0.25f), LBP_F64(0.5)};
    lbp_launch(d, k, &cfg, 5, a);
    int64_t out[W * NX * NY * NZ];
    lbp_read(d, b, out, sizeof out);
    for (int z = 0; z < NZ; z++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++) {
                const int64_t *o = out + W * (x + NX * (y + NY * z));
                assert_int_equal(o[0], 1);
                assert_int_equal(o[1], 10 * (y % 2));
                assert_int_equal(o[2], x + 10 * (y / 2) + 100 * z);
                assert_int_equal(o[3], 1 + 20 + 100);
                assert_int_equal(o[4], 5 + 20 + 300);
                assert_int_equal(o[5], 42);
                assert_int_equal(o[6], 1 + 4);
                assert_int_equal(o[7], 1);
            }
    d->be->kernel_release(d, k);
    lbp_release(d, b);
}

/* (The children of exit_status_of must not start OpenMP threads: the
 * runtime's pool does not survive a fork, so the buffer comes from the
 * parent and the launches fail before they run.) */
static lbp_device *refusing;
static lbp_kernel *refused;
static lbp_buf *refused_buf;
static void launch_barrier_kernel_with_two(void)
{
    lbp_launch_cfg c = lbp_cfg_1d(1, 2);
    lbp_arg a[] = {LBP_BUF(refused_buf), LBP_I32(7)};
    lbp_launch(refusing, refused, &c, 2, a);
}
static void launch_with_wrong_type(void)
{
    lbp_launch_cfg c = lbp_cfg_1d(1, 1);
    lbp_arg a[] = {LBP_BUF(refused_buf), LBP_F32(7)};
    lbp_launch(refusing, refused, &c, 2, a);
}
static void launch_with_one_argument(void)
{
    lbp_launch_cfg c = lbp_cfg_1d(1, 1);
    lbp_arg a[] = {LBP_BUF(refused_buf)};
    lbp_launch(refusing, refused, &c, 1, a);
}

/* A kernel that waits at LOCAL_BARRIER launches with one work-item per
 * group only (its kernel_info says so), a larger group is refused with exit
 * 1, and so are arguments of the wrong type or count. */
static void test_openmp_refuses_what_it_cannot_run(void **state)
{
    refusing = lbp_test_device(state);
    refused = lbp_compile(refusing, saxpy_src, "dyn", "");
    assert_non_null(refused);
    refused_buf = lbp_alloc(refusing, 64);
    lbp_kernel_info ki;
    refusing->be->kernel_info(refusing, refused, &ki);
    assert_int_equal(ki.max_block_size, 1);
    assert_int_equal(exit_status_of(launch_barrier_kernel_with_two), 1);
    assert_int_equal(exit_status_of(launch_with_wrong_type), 1);
    assert_int_equal(exit_status_of(launch_with_one_argument), 1);
    lbp_kernel *k = lbp_compile(refusing, saxpy_src, "saxpy", "");
    refusing->be->kernel_info(refusing, k, &ki);
    assert_true(ki.max_block_size >= 1024);
    refusing->be->kernel_release(refusing, k);
    refusing->be->kernel_release(refusing, refused);
    lbp_release(refusing, refused_buf);
    /* one thread per core, pinned, unless the user said otherwise */
    assert_non_null(getenv("OMP_PLACES"));
    assert_non_null(getenv("OMP_PROC_BIND"));
    assert_true(lbp_is_cpu(&refusing->info));
    assert_true(refusing->info.caps.nontemporal_stores);
    assert_true(refusing->info.compute_units >= 1);
}

/* The compiled objects' cache (cjit.h): a kernel compiled once is loaded
 * from the cache folder by a device opened afresh (no compile), and runs; a
 * damaged object there is compiled again; other options are another
 * object; LBP_OMP_CACHE=off keeps none. */
static void saxpy_runs(lbp_device *d, const char *options)
{
    enum { N = 100 };
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 1.0f;
    lbp_buf *bx = lbp_alloc(d, sizeof x), *by = lbp_alloc(d, sizeof y);
    lbp_write(d, bx, x, sizeof x);
    lbp_write(d, by, y, sizeof y);
    lbp_kernel *k = lbp_compile(d, saxpy_src, "saxpy", options);
    assert_non_null(k);
    lbp_launch_cfg cfg = lbp_cfg_1d((N + 63) / 64, 64);
    lbp_arg args[] = {LBP_BUF(by), LBP_BUF(bx), LBP_F32(2.0f), LBP_I64(N)};
    lbp_launch(d, k, &cfg, 4, args);
    lbp_read(d, by, y, sizeof y);
    for (int i = 0; i < N; i++) assert_float_equal(y[i], 2.0f * i + 1.0f, 1e-6);
    d->be->kernel_release(d, k);
    lbp_release(d, bx);
    lbp_release(d, by);
}

static int files_in(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '\\.lbpobj$'", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

static void test_openmp_object_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-cjit-cache-XXXXXX", cmd[300], opt[64];
    assert_non_null(mkdtemp(dir));
    const char *was = getenv("LBP_OMP_CACHE");
    char *saved = was ? strdup(was) : NULL;
    setenv("LBP_OMP_CACHE", dir, 1);
    snprintf(opt, sizeof opt, "-DCACHE_TEST=%ld", (long)getpid());
    lbp_device d;
    lbp_open(&d, "openmp", 0);
    int before = lbp_cjit_compiles();
    saxpy_runs(&d, opt);
    assert_int_equal(lbp_cjit_compiles(), before + 1);
    assert_int_equal(files_in(dir), 1);
    lbp_close(&d);
    lbp_open(&d, "openmp", 0); /* its own in-memory cache empty: from the folder */
    saxpy_runs(&d, opt);
    assert_int_equal(lbp_cjit_compiles(), before + 1);
    lbp_close(&d);
    snprintf(cmd, sizeof cmd, "for f in %s/*.lbpobj; do echo damaged > $f; done", dir);
    assert_int_equal(system(cmd), 0);
    lbp_open(&d, "openmp", 0);
    saxpy_runs(&d, opt);
    assert_int_equal(lbp_cjit_compiles(), before + 2);
    saxpy_runs(&d, "-DCACHE_TEST_OTHER=1"); /* other options: another object */
    assert_int_equal(files_in(dir), 2);
    lbp_close(&d);
    setenv("LBP_OMP_CACHE", "off", 1);
    lbp_open(&d, "openmp", 0);
    before = lbp_cjit_compiles();
    saxpy_runs(&d, opt);
    assert_int_equal(lbp_cjit_compiles(), before + 1);
    lbp_close(&d);
    if (saved) setenv("LBP_OMP_CACHE", saved, 1);
    else unsetenv("LBP_OMP_CACHE");
    free(saved);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Build folders (lbmprobe-omp-*) in dir. */
static int build_folders_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strncmp(e->d_name, "lbmprobe-omp-", 13) == 0;
    if (d) closedir(d);
    return n;
}

/* A process that exits while prefetched compilers run (a tool's usage
 * error) leaves no build folder in TMPDIR; a forked child's exit leaves its
 * parent's. */
static void test_openmp_exit_removes_build_folders(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-cjit-exit-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *was_tmp = getenv("TMPDIR"), *was_cache = getenv("LBP_OMP_CACHE");
    char *saved_tmp = was_tmp ? strdup(was_tmp) : NULL, *saved_cache = was_cache ? strdup(was_cache) : NULL;
    setenv("TMPDIR", dir, 1);
    setenv("LBP_OMP_CACHE", "off", 1);
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        lbp_device d;
        lbp_open(&d, "openmp", 0);
        lbp_prefetch(&d, saxpy_src, "saxpy", "-DEXIT_TEST=1");
        lbp_prefetch(&d, saxpy_src, "saxpy", "-DEXIT_TEST=2");
        const int running = build_folders_in(dir);
        free(saved_tmp);
        free(saved_cache);
        exit(running >= 1 ? 2 : 3); /* one compiler per CPU at once */
    }
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 2);
    assert_int_equal(build_folders_in(dir), 0);
    lbp_device d;
    lbp_open(&d, "openmp", 0);
    lbp_prefetch(&d, saxpy_src, "saxpy", "-DEXIT_TEST=3");
    fflush(NULL);
    if ((p = fork()) == 0) {
        free(saved_tmp);
        free(saved_cache);
        exit(0);
    }
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_int_equal(build_folders_in(dir), 1);
    lbp_close(&d);
    assert_int_equal(build_folders_in(dir), 0);
    if (saved_tmp) setenv("TMPDIR", saved_tmp, 1);
    else unsetenv("TMPDIR");
    if (saved_cache) setenv("LBP_OMP_CACHE", saved_cache, 1);
    else unsetenv("LBP_OMP_CACHE");
    free(saved_tmp);
    free(saved_cache);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    lbp_cli_init("test_core");
    const struct CMUnitTest tests[] = {
        LBP_TEST_ON_CPU_BACKENDS(test_runs_dialect_kernel),
        LBP_TEST_ON_CPU_BACKENDS(test_compile_error_returns_null),
        LBP_TEST_ON_CPU_BACKENDS(test_private_memory_reported),
        LBP_TEST_ON_CPU_BACKENDS(test_alloc_too_large_returns_null),
        LBP_TEST_ON_CPU_BACKENDS(test_prefetched_compiles),
        cmocka_unit_test(test_nvrtc_compiles_dialect_for_sm90),
        cmocka_unit_test(test_half_host_conversions),
        LBP_TEST_ON_CPU_BACKENDS(test_half_dialect),
        cmocka_unit_test(test_half_dialect_on_nvrtc),
        cmocka_unit_test(test_constant_tables_fold_on_nvrtc),
        cmocka_unit_test(test_cjit_parses_entries),
        cmocka_unit_test(test_cache_sizes_parse),
        LBP_TEST_ON_CPU_BACKENDS(test_runs_every_id),
        LBP_TEST_ON(test_openmp_refuses_what_it_cannot_run, "openmp"),
        LBP_TEST_ON(test_openmp_object_cache, "openmp"),
        LBP_TEST_ON(test_openmp_exit_removes_build_folders, "openmp"),
        cmocka_unit_test(test_stats_and_fit),
        cmocka_unit_test(test_time_runs_retries_scattered_sets),
        cmocka_unit_test(test_time_runs_cpu_long_runs),
        cmocka_unit_test(test_slug),
        cmocka_unit_test(test_first_gpu),
        cmocka_unit_test(test_capabilities_match_the_backend),
        cmocka_unit_test(test_nv_blocks_per_sm),
        cmocka_unit_test(test_int_list_and_bytes),
        cmocka_unit_test(test_bad_input_exits_2),
        cmocka_unit_test(test_csv_tmp_rename_and_no_overwrite),
        cmocka_unit_test(test_meta_builder),
        cmocka_unit_test(test_meta_records_environment),
        cmocka_unit_test(test_check_fresh_suggests_out_only_with_it),
        cmocka_unit_test(test_result_dir_length),
        cmocka_unit_test(test_second_run_into_a_folder_fails),
        cmocka_unit_test(test_commit_never_replaces_without_force),
        cmocka_unit_test(test_claim_removes_stale_temps),
        cmocka_unit_test(test_result_set_committed_with_its_meta),
        cmocka_unit_test(test_early_end_leaves_no_temps),
    };
    return cmocka_run_group_tests_name("core", tests, NULL, lbp_test_close_devices);
}
