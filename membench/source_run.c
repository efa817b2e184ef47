/* membench --kernel FILE --source SRC: an LBM kernel the suite did not
 * write, verified against the host reference and timed (source_run.h). */
#include "source_run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbmref.h"
#include "stats.h"

#define VERIFY_STEPS 3   /* odd: the result lands in the second buffer, both arguments' roles checked */
#define OMEGA 1.25       /* tau = 0.8, exact in float */
#define FILL_WORDS (1 << 20)

/* What one kernel is: its file, text, set in memory order, scheme, the
 * defines it is compiled with. */
typedef struct {
    const mb_described_options *o;
    model_kernel_file f;
    char *text;
    mb_lbm_set set;
    mb_lbm_scheme scheme;
    int word_bytes;
    char defines[96];
} source_kernel;

/* ---- reading the inputs ---------------------------------------------------- */

/* A source path: 1 to 4095 of A-Z a-z 0-9 . _ - + /, the characters a
 * meta file and a console show as they are. */
static void check_path(const char *path)
{
    static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-+/";
    const size_t n = strlen(path);
    if (n == 0 || n > 4095) lbp_usage_error("--source: a path of %zu characters (1 to 4095)", n);
    const size_t good = strspn(path, ok);
    if (good < n)
        lbp_usage_error("--source: character %zu of the path is not one of A-Z a-z 0-9 . _ - + /: not read", good + 1);
}

/* The source's text: a regular file (opened without blocking, so a FIFO
 * is refused, not waited on) of at most MB_SOURCE_MAX_BYTES, no NUL. */
static char *read_source(const char *path)
{
    check_path(path);
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) lbp_usage_error("--source %s: cannot open (%s)", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        lbp_usage_error("--source %s: not a regular file: not read", path);
    }
    if (st.st_size > MB_SOURCE_MAX_BYTES) {
        close(fd);
        lbp_usage_error("--source %s: %lld bytes, over the %d a kernel source may have", path, (long long)st.st_size,
                        MB_SOURCE_MAX_BYTES);
    }
    char *text = malloc(MB_SOURCE_MAX_BYTES + 2);
    if (!text) lbp_fail("out of memory");
    size_t len = 0;
    for (;;) {
        const ssize_t n = read(fd, text + len, MB_SOURCE_MAX_BYTES + 1 - len);
        if (n == 0) break;
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) lbp_usage_error("--source %s: cannot read (%s)", path, strerror(errno));
        if ((len += (size_t)n) > MB_SOURCE_MAX_BYTES)
            lbp_usage_error("--source %s: over the %d bytes a kernel source may have", path, MB_SOURCE_MAX_BYTES);
    }
    close(fd);
    text[len] = 0;
    if (memchr(text, 0, len)) lbp_usage_error("--source %s: holds a NUL byte: not a kernel source", path);
    return text;
}

/* The file as a kernel this command runs: a velocity set, one launch of
 * pull or push on two lattices. */
static mb_lbm_scheme scheme_of(const model_kernel_file *f, const char *path)
{
    const model_kernel *k = &f->k;
    const unsigned all = MODEL_SHIFT_X | MODEL_SHIFT_Y | MODEL_SHIFT_Z;
    if (k->velocities == MODEL_VELOCITIES_NONE)
        lbp_usage_error("--source: %s gives no velocities (d2q9, d3q15, d3q19, d3q27): the reference needs the set", path);
    if (k->phases > 1 || k->launches_per_step > 1 || k->lattices != 2)
        lbp_usage_error("--source: %s: one launch per step on two lattices (A-B) is what the reference runs", path);
    if (k->read_shift[0] == (MODEL_SHIFT_MINUS | all) && k->write_shift[0] == 0) return MB_LBM_PULL;
    if (k->read_shift[0] == 0 && k->write_shift[0] == all) return MB_LBM_PUSH;
    lbp_usage_error("--source: %s: read_shift = -c (pull) or write_shift = +c (push), the schemes the reference runs",
                    path);
}

static void load_kernel(const mb_described_options *o, source_kernel *sk)
{
    char why[1024];
    memset(sk, 0, sizeof *sk);
    sk->o = o;
    if (model_kernel_file_read(o->file, &sk->f, why, sizeof why)) lbp_usage_error("%s", why);
    sk->scheme = scheme_of(&sk->f, o->file);
    sk->word_bytes = o->word_bytes ? o->word_bytes : sk->f.k.word_bytes;
    sk->text = read_source(o->source);
    mb_lbm_set_of(sk->f.k.velocities, &sk->set);
    if (mb_lbm_set_order(&sk->set, sk->text, why, sizeof why) < 0) lbp_usage_error("--source %s: %s", o->source, why);
    snprintf(sk->defines, sizeof sk->defines, "-DLBM_Q=%d %s", sk->set.q,
             sk->word_bytes == 8 ? "-DLBM_FP64=1 -DLBP_FP64=1" : sk->word_bytes == 4 ? "-DLBM_FP32=1" : "-DLBM_FP16S=1");
}

/* ---- buffers and launches ---------------------------------------------------- */

typedef struct {
    lbp_device *dev;
    lbp_kernel *k;
    mb_described d;
    lbp_launch_cfg lc;
    lbp_buf *a, *b;
    int launches;
    int64_t issued;
} source_ctx;

static void launch_once(source_ctx *r, int flip)
{
    lbp_arg args[] = {LBP_BUF(flip ? r->b : r->a), LBP_BUF(flip ? r->a : r->b), LBP_I32((int32_t)r->d.nx),
                      LBP_I32((int32_t)r->d.ny), LBP_I32((int32_t)r->d.nz), LBP_F32((float)OMEGA)};
    lbp_launch(r->dev, r->k, &r->lc, (int)(sizeof args / sizeof *args), args);
}

/* Launches back to back, the two lattices swapped at each, as a time loop. */
static void run_launches(void *p)
{
    source_ctx *r = p;
    for (int i = 0; i < r->launches; i++, r->issued++) launch_once(r, (int)(r->issued % 2));
}

/* The launch of d on its lattice, two buffers of Q words per cell. */
static void open_ctx(source_ctx *r, lbp_device *dev, lbp_kernel *k, const source_kernel *sk, long long nx,
                     long long ny, long long nz)
{
    char why[512];
    memset(r, 0, sizeof *r);
    r->dev = dev, r->k = k;
    if (nx * ny * nz > INT32_MAX) lbp_usage_error("--size %lldx%lldx%lld: over 2^31 cells", nx, ny, nz);
    if (mb_described_of(&sk->f, nx, ny, nz, sk->word_bytes, &r->d, why, sizeof why))
        lbp_usage_error("--kernel %s: %s", sk->o->file, why);
    mb_described_grid(&r->d, r->lc.grid);
    for (int i = 0; i < 3; i++) r->lc.block[i] = (unsigned)r->d.block[i];
    const size_t bytes = (size_t)(nx * ny * nz) * (size_t)sk->set.q * (size_t)sk->word_bytes;
    r->a = lbp_alloc(dev, bytes);
    r->b = r->a ? lbp_alloc(dev, bytes) : NULL;
    if (!r->b) lbp_fail("%s on %lldx%lldx%lld: no room for two lattices of %.2f GB", sk->o->file, nx, ny, nz, bytes / 1e9);
}

static void close_ctx(source_ctx *r)
{
    lbp_release(r->dev, r->a);
    lbp_release(r->dev, r->b);
}

static lbp_kernel *compile_source(lbp_device *dev, const source_kernel *sk)
{
    lbp_kernel *k = lbp_compile(dev, sk->text, MB_SOURCE_ENTRY, sk->defines);
    if (!k) lbp_fail("--source %s: compiling %s with %s failed (log above)", sk->o->source, MB_SOURCE_ENTRY, sk->defines);
    return k;
}

/* ---- verification ------------------------------------------------------------- */

/* How far a verified population may be from the reference, in units of
 * its weight w_i, after `steps` steps.  A step's arithmetic rounds each
 * moment, a sum of Q terms, by up to Q units of the arithmetic's rounding
 * u (2^-24 in float, fp16s computing in float too, 2^-53 in double), and
 * the equilibrium scales a moment's error by at most about 1 + 3|c| + the
 * square terms, under 16 with the relaxation's own roundings: 16 Q u per
 * step.  fp16s also rounds every stored word, 32768 (f_i - w_i), to 11
 * significant bits: |f_i - w_i| 2^-11 each step, with deviations
 * |f_i - w_i| / w_i up to `deviation` (the reference's largest), counted
 * twice for what a step carries of the last one's rounding. */
static double tolerance(int word_bytes, int q, int steps, double deviation)
{
    const double u = word_bytes == 8 ? 0x1p-53 : 0x1p-24;
    const double storage = word_bytes == 2 ? 2 * deviation * 0x1p-11 : 0;
    return steps * (16.0 * q * u + storage);
}

/* Largest |f_i - w_i| / w_i of a state. */
static double deviation_of(const mb_lbm_set *s, int64_t cells, const double *f)
{
    double most = 0;
    for (int i = 0; i < s->q; i++)
        for (int64_t c = 0; c < cells; c++) most = fmax(most, fabs(f[i * cells + c] - s->w[i]) / s->w[i]);
    return most;
}

typedef struct {
    double max_error, tolerance;
    int64_t wrong;
} verdict;

/* Compares got with want; the first population most off is described in
 * why.  Returns 1 when any is over the tolerance (or not a number). */
static int compare(const mb_lbm_set *s, const mb_lbm_lattice *l, const double *want, const double *got, verdict *v,
                   char *why, size_t why_len)
{
    const int64_t cells = l->nx * l->ny * l->nz;
    int64_t worst = -1;
    v->max_error = 0, v->wrong = 0;
    for (int i = 0; i < s->q; i++)
        for (int64_t c = 0; c < cells; c++) {
            const int64_t k = i * cells + c;
            const double e = fabs(got[k] - want[k]) / s->w[i];
            if (!(e <= v->tolerance)) v->wrong++;
            if (!(e <= v->max_error)) v->max_error = isnan(e) ? INFINITY : e, worst = k;
        }
    if (!v->wrong) return 0;
    const int i = (int)(worst / cells);
    const int64_t c = worst % cells;
    snprintf(why, why_len,
             "population %d (c = %d,%d,%d) of cell (%lld,%lld,%lld): expected %.9g, got %.9g (off by %.3g w_i, "
             "tolerance %.3g w_i; %lld of %lld words off)",
             i, s->c[i][0], s->c[i][1], s->c[i][2], (long long)(c % l->nx), (long long)(c / l->nx % l->ny),
             (long long)(c / (l->nx * l->ny)), want[worst], got[worst], v->max_error, v->tolerance, (long long)v->wrong,
             (long long)(cells * s->q));
    return 1;
}

/* VERIFY_STEPS launches on lattice l from the known state, every word
 * checked against the reference.  Returns 0, or 1 with why. */
static int verify_on(lbp_device *dev, lbp_kernel *k, const source_kernel *sk, const long long n[3], verdict *v,
                     char *why, size_t why_len)
{
    const mb_lbm_set *s = &sk->set;
    const mb_lbm_lattice l = {n[0], n[1], n[2]};
    const int64_t cells = l.nx * l.ny * l.nz, words = cells * s->q;
    double *ref = malloc((size_t)words * sizeof *ref), *next = malloc((size_t)words * sizeof *next);
    void *raw = malloc((size_t)words * (size_t)sk->word_bytes);
    if (!ref || !next || !raw) lbp_fail("out of memory");
    mb_lbm_init(s, &l, ref);
    mb_lbm_encode(s, sk->word_bytes, cells, ref, raw);
    mb_lbm_decode(s, sk->word_bytes, cells, raw, ref); /* the reference starts from the words stored */
    source_ctx r;
    open_ctx(&r, dev, k, sk, l.nx, l.ny, l.nz);
    lbp_write(dev, r.a, raw, (size_t)words * (size_t)sk->word_bytes);
    r.launches = VERIFY_STEPS;
    run_launches(&r);
    lbp_sync(dev);
    lbp_read(dev, VERIFY_STEPS % 2 ? r.b : r.a, raw, (size_t)words * (size_t)sk->word_bytes);
    close_ctx(&r);
    double deviation = deviation_of(s, cells, ref);
    for (int t = 0; t < VERIFY_STEPS; t++) {
        mb_lbm_step(s, &l, sk->scheme, OMEGA, ref, next);
        double *swap = ref;
        ref = next, next = swap;
        deviation = fmax(deviation, deviation_of(s, cells, ref));
    }
    mb_lbm_decode(s, sk->word_bytes, cells, raw, next);
    v->tolerance = tolerance(sk->word_bytes, s->q, VERIFY_STEPS, deviation);
    const int bad = compare(s, &l, ref, next, v, why, why_len);
    free(ref), free(next), free(raw);
    return bad;
}

/* The default verification lattices: one wider than a block and a row of
 * blocks, one narrower than the block in x (idle threads in every block of
 * a rows or grid launch), neither a multiple of the block; nz = 1 on D2Q9. */
static int default_verify_sizes(const source_kernel *sk, long long (*sizes)[3])
{
    const model_kernel *k = &sk->f.k;
    const int bx = (sk->f.block_size ? k->block[0] : 256) * (k->cells_per_thread > 1 ? k->cells_per_thread : 1);
    const int by = sk->f.block_size ? k->block[1] : 1, bz = sk->f.block_size ? k->block[2] : 1;
    const int flat = k->velocities == MODEL_D2Q9;
    const long long a[3] = {bx + 19, by + 5, flat ? 1 : bz + 3}, b[3] = {bx > 6 ? bx - 3 : 3, 2 * by + 1, flat ? 1 : 2 * bz + 1};
    memcpy(sizes[0], a, sizeof a);
    memcpy(sizes[1], b, sizeof b);
    return 2;
}

static void verify_all(lbp_device *dev, lbp_kernel *k, const source_kernel *sk)
{
    long long sizes[MB_MAX_SIZES][3];
    const mb_described_options *o = sk->o;
    int n = o->n_verify_sizes;
    if (n) memcpy(sizes, o->verify_sizes, sizeof sizes);
    else n = default_verify_sizes(sk, sizes);
    for (int i = 0; i < n; i++) {
        verdict v;
        char why[1024];
        if (sk->set.set == MODEL_D2Q9 && sizes[i][2] != 1)
            lbp_usage_error("--verify-size: %lldx%lldx%lld: a d2q9 lattice has nz = 1", sizes[i][0], sizes[i][1], sizes[i][2]);
        if (verify_on(dev, k, sk, sizes[i], &v, why, sizeof why))
            lbp_fail("%s (%s) does not verify on %lldx%lldx%lld after %d steps: %s; no number written", o->source,
                     sk->f.k.name, sizes[i][0], sizes[i][1], sizes[i][2], VERIFY_STEPS, why);
        printf("  verified %s on %lldx%lldx%lld: %d %s steps, every population within %.2g w_i of the double "
               "reference (largest %.2g)\n",
               sk->f.k.name, sizes[i][0], sizes[i][1], sizes[i][2], VERIFY_STEPS,
               sk->scheme == MB_LBM_PULL ? "pull" : "push", v.tolerance, v.max_error);
    }
}

/* ---- timing ------------------------------------------------------------------- */

/* Buffer a at rest equilibrium (f_i = w_i), written a chunk at a time:
 * the timed lattices are too large for a host copy of the state. */
static void fill_rest(source_ctx *r, const source_kernel *sk)
{
    const int64_t cells = r->d.nx * r->d.ny * r->d.nz;
    const int wb = sk->word_bytes;
    unsigned char *chunk = malloc((size_t)FILL_WORDS * (size_t)wb);
    if (!chunk) lbp_fail("out of memory");
    for (int i = 0; i < sk->set.q; i++) {
        unsigned char word[8];
        mb_lbm_rest_word(&sk->set, wb, i, word);
        for (int64_t j = 0; j < FILL_WORDS; j++) memcpy(chunk + j * wb, word, (size_t)wb);
        for (int64_t at = 0; at < cells; at += FILL_WORDS) {
            const int64_t n = cells - at < FILL_WORDS ? cells - at : FILL_WORDS;
            r->dev->be->write(r->dev, r->a, (size_t)((i * cells + at) * wb), chunk, (size_t)(n * wb));
        }
    }
    free(chunk);
}

/* After the timed runs the lattice still holds the rest state: the first
 * and last cells of every population (a cheap look for what a large
 * lattice alone shows: an index past 2^31, a NaN). */
static int rest_holds(source_ctx *r, const source_kernel *sk, char *why, size_t why_len)
{
    const int64_t cells = r->d.nx * r->d.ny * r->d.nz, n = cells < 4096 ? cells : 4096;
    const int wb = sk->word_bytes;
    lbp_sync(r->dev);
    unsigned char *raw = malloc((size_t)(n * wb));
    if (!raw) lbp_fail("out of memory");
    int bad = 0;
    for (int i = 0; i < sk->set.q && !bad; i++)
        for (int end = 0; end < 2 && !bad; end++) {
            const int64_t at = end ? cells - n : 0;
            r->dev->be->read(r->dev, r->issued % 2 ? r->b : r->a, (size_t)((i * cells + at) * wb), raw, (size_t)(n * wb));
            for (int64_t j = 0; j < n && !bad; j++) {
                double one[1];
                mb_lbm_set single = sk->set;
                single.q = 1, single.w[0] = sk->set.w[i];
                mb_lbm_decode(&single, wb, 1, raw + j * wb, one);
                if (!(fabs(one[0] - sk->set.w[i]) <= 1e-3 * sk->set.w[i])) {
                    snprintf(why, why_len, "population %d of cell %lld left the rest state after %lld launches: %.9g, "
                             "not %.9g", i, (long long)(at + j), (long long)r->issued, one[0], sk->set.w[i]);
                    bad = 1;
                }
            }
        }
    free(raw);
    return bad;
}

/* Enough launches back to back for a run of MB_THREADS_RUN_MS. */
static void calibrate(source_ctx *r)
{
    r->launches = 4;
    run_launches(r);
    r->dev->be->timer_start(r->dev);
    run_launches(r);
    const double per_launch_ms = r->dev->be->timer_stop_ms(r->dev) / r->launches;
    const double want = ceil(MB_THREADS_RUN_MS / fmax(per_launch_ms, 1e-6));
    if (want > r->launches) r->launches = want < MB_THREADS_MAX_LAUNCHES ? (int)want : MB_THREADS_MAX_LAUNCHES;
}

static void time_lattice(lbp_device *dev, lbp_kernel *k, const source_kernel *sk, const long long n[3], int reps,
                         source_ctx *r, mb_described_result *out)
{
    char why[512];
    open_ctx(r, dev, k, sk, n[0], n[1], n[2]);
    mb_bench shape_of = {.d = dev}; /* mb_resolve_shape reads only the device when nothing is forced */
    mb_compiled c = {.kernel = k};
    const int block_size = r->d.block[0] * r->d.block[1] * r->d.block[2];
    const mb_config cfg = {.block_size = block_size};
    if (mb_resolve_shape(&shape_of, &c, &cfg, &out->shape, why, sizeof why))
        lbp_usage_error("--kernel %s: %s", sk->o->file, why);
    fill_rest(r, sk);
    calibrate(r);
    char name[96];
    snprintf(name, sizeof name, "%s %lldx%lldx%lld", sk->f.k.name, n[0], n[1], n[2]);
    const lbp_stats per_run = lbp_time_runs(dev, run_launches, r, &(lbp_timing){2, reps, 0.05, name, 2});
    if (rest_holds(r, sk, why, sizeof why)) lbp_fail("%s on %lldx%lldx%lld: %s; no number written", sk->o->source, n[0], n[1], n[2], why);
    const double cells = (double)(n[0] * n[1] * n[2]);
    out->launches = r->launches, out->reps = reps, out->ms = per_run;
    out->ms.min /= r->launches, out->ms.median /= r->launches, out->ms.max /= r->launches;
    out->threads = mb_described_threads(&r->d);
    out->mlups = cells / (out->ms.median * 1e3);
    out->bytes_per_update = 2.0 * sk->set.q * sk->word_bytes;
    out->gbs = out->bytes_per_update * cells / (out->ms.median * 1e6);
    close_ctx(r);
}

int mb_source_main(lbp_device *dev, const mb_described_options *o, int argc, char **argv)
{
    source_kernel sk;
    load_kernel(o, &sk);
    if (o->n_probe_words) lbp_usage_error("--launch-probe times membench's generated kernel: drop --source");
    if (sk.word_bytes == 8 && !dev->info.fp64) lbp_usage_error("%s: fp64 and %s has none", o->file, dev->info.name);
    for (int i = 0; i < o->n_sizes; i++)
        if (sk.set.set == MODEL_D2Q9 && o->sizes[i][2] != 1)
            lbp_usage_error("--size: %lldx%lldx%lld: a d2q9 lattice has nz = 1", o->sizes[i][0], o->sizes[i][1], o->sizes[i][2]);
    const char *dir = lbp_result_dir(o->common->out_dir, &dev->info);
    lbp_check_fresh(dir, (const char *const[]){MB_DESCRIBED_CSV, "membench-kernel-meta.csv", NULL}, o->common->force);
    printf("membench --kernel %s --source %s on %s (%s), %s\n", o->file, o->source, dev->info.name, dev->info.backend,
           sk.defines);
    lbp_kernel *k = compile_source(dev, &sk);
    verify_all(dev, k, &sk); /* before any file is opened: a kernel that fails leaves none */
    lbp_csv *csv = lbp_csv_open(dir, MB_DESCRIBED_CSV, MB_DESCRIBED_HEADER, &dev->info, o->common->force);
    printf("  %-22s %6s %18s %5s %12s %9s %9s %9s\n", "kernel", "launch", "lattice", "words", "threads", "us", "MLUPS",
           "GB/s");
    for (int i = 0; i < o->n_sizes; i++) {
        source_ctx r;
        mb_described_result m = {0};
        time_lattice(dev, k, &sk, o->sizes[i], o->reps, &r, &m);
        mb_described_write_row(csv, o->file, &r.d, &m);
        char lattice[64];
        snprintf(lattice, sizeof lattice, "%lldx%lldx%lld", r.d.nx, r.d.ny, r.d.nz);
        printf("  %-22s %6s %18s %5d %12lld %9.2f %9.1f %9.1f\n", sk.f.k.name, model_launch_name(r.d.launch), lattice,
               sk.set.q, (long long)m.threads, m.ms.median * 1e3, m.mlups, m.gbs);
    }
    lbp_csv_finish(csv);
    lbp_meta *meta = lbp_meta_new("membench-kernel", &dev->info, argc, argv);
    lbp_meta_set(meta, "kernel_file", "%s", o->file);
    lbp_meta_set(meta, "source", "%s", o->source);
    lbp_meta_set(meta, "defines", "%s", sk.defines);
    lbp_meta_set(meta, "verified_steps", "%d", VERIFY_STEPS);
    lbp_meta_write(meta, dir, o->common->force);
    printf("  results in %s/%s\n", dir, MB_DESCRIBED_CSV);
    dev->be->kernel_release(dev, k);
    free(sk.text);
    return 0;
}

int mb_source_nvrtc_check(const mb_described_options *o)
{
    source_kernel sk;
    load_kernel(o, &sk);
    char why[512];
    const int r = lbp_nvrtc_check(sk.text, sk.defines, o->nvrtc_arch, why, sizeof why);
    if (r < 0) {
        fprintf(stderr, "membench: --nvrtc-check: %s\n", why);
        exit(LBP_EXIT_USAGE);
    }
    printf("%s: %s %s for %s with %s\n", o->source, r ? "does not compile" : "compiles", MB_SOURCE_ENTRY,
           o->nvrtc_arch, sk.defines);
    free(sk.text);
    return r ? 1 : 0;
}
