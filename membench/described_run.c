/* membench --kernel FILE --size LIST: each lattice's generated kernel
 * timed back to back and verified, rows in membench-kernel.csv (see
 * described.h and described_run.h). */
#include "described_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "csv.h"
#include "plan.h"
#include "source_run.h"

#define DESCRIBED_CSV MB_DESCRIBED_CSV
#define DESCRIBED_HEADER MB_DESCRIBED_HEADER
#define LAUNCH_PROBE_CSV "membench-launch.csv"

int mb_file_blocks_per_sm(const model_kernel_file *f, const lbp_device_info *i, int block_size)
{
    if (f->blocks_per_sm > 0) return (int)f->blocks_per_sm;
    if (f->occupancy > 0 && i->max_threads_per_cu > 0)
        return (int)floor(f->occupancy * i->max_threads_per_cu / block_size + 1e-9);
    if (f->registers > 0 && i->cc_major > 0) {
        const int b = lbp_nv_blocks_per_sm(i->cc_major, i->cc_minor, f->registers, block_size, 0);
        return b > 0 ? b : 0;
    }
    return 0;
}

typedef struct {
    mb_bench *b;
    lbp_kernel *k;
    const mb_described *d;
    lbp_launch_cfg lc;
    uint64_t seed_word;
    int launches, swap;
    int64_t issued;
} described_ctx;

static void launch_once(described_ctx *r, int flip)
{
    mb_bench *b = r->b;
    lbp_arg args[] = {LBP_BUF(flip ? b->out : b->in), LBP_BUF(flip ? b->in : b->out), LBP_I64(b->stride),
                      LBP_I64(r->d->nx), LBP_I64(r->d->ny), LBP_I64(r->d->nz), LBP_I64((int64_t)r->seed_word),
                      LBP_I32(0)};
    lbp_launch(b->d, r->k, &r->lc, (int)(sizeof args / sizeof *args), args);
}

/* Launches back to back; two lattices swap at every launch, as a time
 * loop's do. */
static void run_launches(void *p)
{
    described_ctx *r = p;
    for (int i = 0; i < r->launches; i++, r->issued++) launch_once(r, r->swap && r->issued % 2);
}

/* Enough launches back to back for a run of MB_THREADS_RUN_MS, as the
 * threads sweep's (the steady state of a time loop). */
static void calibrate(described_ctx *r)
{
    r->launches = MB_THREADS_LAUNCHES;
    run_launches(r);
    r->b->d->be->timer_start(r->b->d);
    run_launches(r);
    const double per_launch_ms = r->b->d->be->timer_stop_ms(r->b->d) / r->launches;
    const double want = ceil(MB_THREADS_RUN_MS / fmax(per_launch_ms, 1e-6));
    if (want > r->launches) r->launches = want < MB_THREADS_MAX_LAUNCHES ? (int)want : MB_THREADS_MAX_LAUNCHES;
}

/* One launch on the filled input, its output checked element by element. */
static int verify_one(described_ctx *r, char *why, size_t why_len)
{
    const mb_described *d = r->d;
    const uint32_t seed = mb_next_seed(r->b);
    mb_prepare(r->b, d->word_bytes, d->words_read);
    r->seed_word = mb_seed_word(seed, d->word_bytes);
    launch_once(r, 0);
    lbp_sync(r->b->d);
    const mb_probe_spec s = {.words = d->words_written, .word_bytes = d->word_bytes,
                             .misaligned_reads = d->misaligned_reads, .misaligned_writes = d->misaligned_writes,
                             .in_place = d->in_place, .runs_on = 1};
    if (!mb_verify(r->b, &s, seed, 1, why, why_len)) return 0;
    char tail[256];
    snprintf(tail, sizeof tail, " (kernel %s, %s launch)", d->file->k.name, model_launch_name(d->launch));
    strncat(why, tail, why_len - strlen(why) - 1);
    return 1;
}

static lbp_kernel *compile_described(lbp_device *dev, const mb_described *d)
{
    char *src = mb_generate_described(d);
    if (!src && !model_kernel_name_ok(d->file->k.name))
        lbp_usage_error("the kernel's name is not 1 to %d of A-Z a-z 0-9 . _ -: no source generated",
                        MODEL_KERNEL_NAME_MAX);
    if (!src) lbp_fail("internal: no kernel text for %s", d->file->k.name);
    lbp_kernel *k = lbp_compile(dev, src, MB_DESCRIBED_ENTRY, "");
    free(src);
    if (!k) lbp_fail("compiling the generated kernel of %s failed (log above)", d->file->k.name);
    return k;
}

int mb_described_run(mb_bench *b, const mb_described *d, int reps, mb_described_result *out, char *why,
                     size_t why_len)
{
    lbp_device *dev = b->d;
    const int block_size = d->block[0] * d->block[1] * d->block[2];
    mb_compiled c = {.kernel = compile_described(dev, d)};
    mb_config cfg = {.block_size = block_size,
                     .blocks_per_cu_requested = mb_file_blocks_per_sm(d->file, &dev->info, block_size)};
    int status = 2;
    if (mb_resolve_shape(b, &c, &cfg, &out->shape, why, why_len)) goto done;
    const int64_t cells = d->nx * d->ny * d->nz, bench_threads = b->threads, bench_stride = b->stride;
    b->threads = cells, b->stride = mb_bench_stride(b, cells, d->word_bytes);
    described_ctx r = {.b = b, .k = c.kernel, .d = d, .swap = !d->in_place};
    mb_described_grid(d, r.lc.grid);
    for (int i = 0; i < 3; i++) r.lc.block[i] = (unsigned)d->block[i];
    r.lc.shared_bytes = out->shape.shared_bytes;
    r.seed_word = mb_seed_word(mb_next_seed(b), d->word_bytes);
    calibrate(&r);
    char name[96];
    snprintf(name, sizeof name, "%s %lldx%lldx%lld", d->file->k.name, d->nx, d->ny, d->nz);
    const lbp_stats per_run = lbp_time_runs(dev, run_launches, &r, &(lbp_timing){2, reps, 0.05, name, 2});
    status = verify_one(&r, why, why_len);
    b->threads = bench_threads, b->stride = bench_stride;
    if (status) goto done;
    out->blocks_per_cu_requested = cfg.blocks_per_cu_requested;
    out->launches = r.launches;
    out->reps = reps;
    out->ms = per_run;
    out->ms.min /= r.launches, out->ms.median /= r.launches, out->ms.max /= r.launches;
    out->threads = mb_described_threads(d);
    out->mlups = (double)cells / (out->ms.median * 1e3);
    out->bytes_per_update = (double)(d->words_read + d->words_written) * d->word_bytes;
    out->gbs = out->bytes_per_update * (double)cells / (out->ms.median * 1e6);
done:
    dev->be->kernel_release(dev, c.kernel);
    return status;
}

/* ---- the command -------------------------------------------------------------- */

int mb_parse_sizes(const char *list, long long (*sizes)[3], int max)
{
    int n = 0;
    const char *p = list;
    for (;;) {
        long long v[3];
        int used = 0;
        if (n == max || sscanf(p, "%lldx%lldx%lld%n", &v[0], &v[1], &v[2], &used) != 3 || *p < '0' || *p > '9')
            return -1;
        for (int i = 0; i < 3; i++)
            if (v[i] < 1 || v[i] > 1000000) return -1;
        memcpy(sizes[n++], v, sizeof v);
        p += used;
        if (!*p) return n;
        if (*p++ != ',') return -1;
    }
}

/* What runs, checked before anything does: the lattices as the file's
 * kernels, or each lattice's launch at every probe word count (N read and
 * written, none misaligned).  Returns how many. */
static int describe_all(const model_kernel_file *f, const mb_described_options *o, mb_described *ds)
{
    char why[512];
    const int per = o->n_probe_words ? o->n_probe_words : 1;
    for (int i = 0; i < o->n_sizes; i++) {
        mb_described d;
        if (mb_described_of(f, o->sizes[i][0], o->sizes[i][1], o->sizes[i][2], o->word_bytes, &d, why, sizeof why))
            lbp_usage_error("--kernel %s: %s", o->file, why);
        for (int j = 0; j < per; j++) {
            mb_described *e = &ds[i * per + j];
            *e = d;
            if (!o->n_probe_words) continue;
            e->words_read = e->words_written = (int)o->probe_words[j];
            e->misaligned_reads = e->misaligned_writes = 0;
        }
    }
    return o->n_sizes * per;
}

static void open_for(mb_bench *b, lbp_device *dev, const mb_described *ds, int n)
{
    int64_t most = 0;
    int words = 0;
    for (int i = 0; i < n; i++) {
        if (ds[i].nx * ds[i].ny * ds[i].nz > most) most = ds[i].nx * ds[i].ny * ds[i].nz;
        if (ds[i].words_read > words) words = ds[i].words_read;
    }
    char why[512];
    if (mb_bench_open(b, dev, most, words, ds[0].word_bytes, 0, 32, why, sizeof why))
        lbp_usage_error("--kernel %s: %s", ds[0].file->k.name, why);
}

void mb_described_write_row(lbp_csv *csv, const char *file, const mb_described *d, const mb_described_result *m)
{
    const model_kernel *k = &d->file->k;
    lbp_csv_row(csv, "%s,%s,%s,%lld,%lld,%lld,%lld,%dx%dx%d,%d,%d,%lld,%d,%d,%.4f,%d,%d,%d,%d,%d,%d,%d,%.0f,%d,%d,"
                     "%.6f,%.6f,%.6f,%.2f,%.2f",
                file, k->name, model_launch_name(d->launch), d->nx, d->ny, d->nz, d->nx * d->ny * d->nz, d->block[0],
                d->block[1], d->block[2], d->block[0] * d->block[1] * d->block[2], d->cells_per_thread,
                (long long)m->threads, m->blocks_per_cu_requested, m->shape.blocks_per_cu, m->shape.occupancy,
                m->shape.registers, d->words_read, d->words_written, d->misaligned_reads, d->misaligned_writes,
                d->word_bytes, d->in_place ? 1 : 2, m->bytes_per_update, m->reps, m->launches, m->ms.min,
                m->ms.median, m->ms.max, m->mlups, m->gbs);
}

int mb_described_main(lbp_device *dev, const mb_described_options *o, int argc, char **argv)
{
    if (o->source) return mb_source_main(dev, o, argc, argv);
    model_kernel_file f;
    char why[1024];
    /* the path is a field of membench-kernel.csv: no comma, quote or control byte */
    for (const char *c = o->file; *c; c++)
        if (*c == ',' || *c == '"' || (unsigned char)*c < 0x20 || *c == 0x7f)
            lbp_usage_error("--kernel: a path with a comma, a quote or a control byte (character %d): membench-kernel.csv "
                            "keeps it in a field", (int)(c - o->file) + 1);
    if (model_kernel_file_read(o->file, &f, why, sizeof why)) lbp_usage_error("%s", why);
    for (int p = 0; p < f.k.phases && !o->n_probe_words; p++)
        if ((f.k.read_shift[p] | f.k.write_shift[p]) & (MODEL_SHIFT_Y | MODEL_SHIFT_Z)) {
            fprintf(stderr, "membench: %s: its words a row or plane away (read_shift, write_shift) are moved at "
                            "the cell, those shifted in x at x + 1: the probe shifts in x only\n", o->file);
            break;
        }
    mb_described *ds = calloc((size_t)o->n_sizes * (o->n_probe_words ? o->n_probe_words : 1), sizeof *ds);
    if (!ds) lbp_fail("out of memory");
    const int n = describe_all(&f, o, ds);
    const char *dir = lbp_result_dir(o->common->out_dir, &dev->info);
    const char *csv_name = o->n_probe_words ? LAUNCH_PROBE_CSV : DESCRIBED_CSV,
               *meta_kind = o->n_probe_words ? "membench-launch" : "membench-kernel";
    char meta_name[64];
    snprintf(meta_name, sizeof meta_name, "%s-meta.csv", meta_kind);
    lbp_check_fresh(dir, (const char *const[]){csv_name, meta_name, NULL}, o->common->force);
    mb_bench b;
    open_for(&b, dev, ds, n);
    lbp_csv *csv = lbp_csv_open(dir, csv_name, DESCRIBED_HEADER, &dev->info, o->common->force);
    printf("membench --kernel %s%s on %s (%s): per launch, back to back\n  %-16s %6s %18s %5s %12s %9s %9s %9s\n",
           o->file, o->n_probe_words ? " --launch-probe" : "", dev->info.name, dev->info.backend, "kernel", "launch",
           "lattice", "words", "threads", "us", "MLUPS", "GB/s");
    for (int i = 0; i < n; i++) {
        mb_described_result m = {0};
        const int status = mb_described_run(&b, &ds[i], o->reps, &m, why, sizeof why);
        if (status) {
            lbp_csv_abort(csv);
            if (status == 2) lbp_usage_error("--kernel %s: %s", o->file, why);
            lbp_fail("%s", why);
        }
        mb_described_write_row(csv, o->file, &ds[i], &m);
        char lattice[64];
        snprintf(lattice, sizeof lattice, "%lldx%lldx%lld", ds[i].nx, ds[i].ny, ds[i].nz);
        printf("  %-16s %6s %18s %5d %12lld %9.2f %9.1f %9.1f\n", f.k.name, model_launch_name(ds[i].launch), lattice,
               ds[i].words_read, (long long)m.threads, m.ms.median * 1e3, m.mlups, m.gbs);
    }
    lbp_csv_finish(csv);
    lbp_meta *meta = lbp_meta_new(meta_kind, &dev->info, argc, argv);
    lbp_meta_set(meta, "kernel_file", "%s", o->file);
    if (o->n_probe_words) {
        char words[256] = "";
        for (int j = 0, used = 0; j < o->n_probe_words && used < (int)sizeof words; j++)
            used += snprintf(words + used, sizeof words - used, "%s%lld", j ? ";" : "", o->probe_words[j]);
        lbp_meta_set(meta, "launch_probe_words", "%s", words);
    }
    lbp_meta_write(meta, dir, o->common->force);
    printf("  results in %s/%s\n", dir, csv_name);
    mb_bench_close(&b);
    free(ds);
    return 0;
}

/* Threads of d's launch that update a cell. */
static int64_t working_threads(const mb_described *d)
{
    const int64_t row = (d->nx + d->cells_per_thread - 1) / d->cells_per_thread;
    return d->launch == MODEL_LAUNCH_LINEAR ? mb_described_threads(d) : row * d->ny * d->nz;
}

/* Lattice s of o onto g: 1 added, 0 skipped (idle threads), -1 with why. */
static int add_lattice(const mb_described_options *o, const model_kernel_file *f, const lbp_device_info *info, int s,
                       mb_geometry *g, char *why, size_t why_len)
{
    const long long *n = o->sizes[s];
    mb_described d;
    char reason[256];
    if (mb_described_of(f, n[0], n[1], n[2], o->word_bytes, &d, reason, sizeof reason)) {
        snprintf(why, why_len, "%s: %s", o->file, reason);
        return -1;
    }
    const int block_size = d.block[0] * d.block[1] * d.block[2], width = d.word_bytes * d.cells_per_thread;
    const int blocks = mb_file_blocks_per_sm(f, info, block_size);
    if (blocks < 1) {
        snprintf(why, why_len, "%s: no blocks_per_sm, occupancy or registers this device turns into blocks per SM: "
                 "the geometry probe forces the kernel's", o->file);
        return -1;
    }
    if (width != 2 && width != 4 && width != 8) {
        snprintf(why, why_len, "%s: %d-byte accesses (%d cells per thread of %d bytes) are not probed", o->file, width,
                 d.cells_per_thread, d.word_bytes);
        return -1;
    }
    const int64_t launched = mb_described_threads(&d), working = working_threads(&d);
    if (working < launched) {
        lbp_warn("%s: %lldx%lldx%lld leaves %.1f %% of its threads idle: the probe's threads all work, so it is not "
                 "this launch (skipped)", o->file, n[0], n[1], n[2], 100.0 * (double)(launched - working) / launched);
        return 0;
    }
    g->block_size = block_size, g->blocks_per_cu = blocks, g->word_bytes = width; /* the file's, every lattice */
    if (mb_geometry_add(g, (long long)launched, f->k.lattices)) {
        snprintf(why, why_len, "%s: more than %d lattices", o->file, MB_MAX_LIST);
        return -1;
    }
    return 1;
}

int mb_described_geometry(const mb_described_options *o, const lbp_device_info *info, mb_geometry *g, char *why,
                          size_t why_len)
{
    model_kernel_file f;
    if (model_kernel_file_read(o->file, &f, why, why_len)) return -1;
    memset(g, 0, sizeof *g);
    int added = 0;
    for (int s = 0; s < o->n_sizes; s++) {
        const int r = add_lattice(o, &f, info, s, g, why, why_len);
        if (r < 0) return -1;
        added += r;
    }
    if (!added) snprintf(why, why_len, "%s: every lattice of --size leaves threads idle: no geometry to probe", o->file);
    return added > 0;
}
