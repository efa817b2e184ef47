/* Running membench probes (see probe.h). */
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "skew.h"

#define SUPPORT_BLOCK 256 /* fill / verify kernels */

static int64_t stamp_warps_bound(int64_t threads, int block_size_min)
{
    /* whole warps plus at most one partial warp per block */
    return (threads + 31) / 32 + (threads + block_size_min - 1) / block_size_min;
}


int64_t mb_bench_stride(const mb_bench *b, int64_t threads, int word_bytes)
{
    return lbp_skewed_stride(mb_stride(threads), word_bytes, lbp_is_cpu(&b->d->info) ? LBP_CPU_SKEW : 0);
}

/* Probe s's own stride over `threads` (mb_spec_stride, skewed on a CPU as
 * mb_bench_stride): at most mb_bench_stride's, which sized the buffers. */
static int64_t spec_stride(const mb_bench *b, const mb_probe_spec *s, int64_t threads)
{
    return lbp_skewed_stride(mb_spec_stride(s, threads), s->word_bytes, lbp_is_cpu(&b->d->info) ? LBP_CPU_SKEW : 0);
}

static lbp_buf *alloc_or_why(lbp_device *d, int64_t bytes, const char *what, char *why, size_t why_len)
{
    if (bytes > d->info.max_alloc_bytes) {
        snprintf(why, why_len, "memory too small: the %s buffer needs %.3g GB, the device allows %.3g GB in one buffer",
                 what, bytes / 1e9, d->info.max_alloc_bytes / 1e9);
        return NULL;
    }
    lbp_buf *buf = lbp_alloc(d, (size_t)bytes);
    if (!buf)
        snprintf(why, why_len, "memory too small: could not allocate the %s buffer (%.3g GB; device has %.3g GB)",
                 what, bytes / 1e9, d->info.global_mem_bytes / 1e9);
    return buf;
}

int mb_bench_open(mb_bench *b, lbp_device *d, int64_t threads, int max_words, int max_word_bytes,
                  int64_t min_array_bytes, int block_size_min, char *why, size_t why_len)
{
    memset(b, 0, sizeof *b);
    b->d = d;
    b->long_run_ms = MB_THREADS_LONG_RUN_MS;
    b->few_launches = MB_THREADS_FEW_LAUNCHES;
    b->threads = threads;
    b->stride = mb_bench_stride(b, threads, max_word_bytes);
    b->max_words = max_words;
    b->max_word_bytes = max_word_bytes;
    b->array_bytes = (int64_t)max_words * b->stride * max_word_bytes;
    if (b->array_bytes < min_array_bytes) b->array_bytes = min_array_bytes;
    /* a config's skewed stride (CPU) reaches up to a page further an array */
    if (lbp_is_cpu(&d->info)) b->array_bytes += (int64_t)max_words * 4096;
    int64_t need = 2 * b->array_bytes + stamp_warps_bound(threads, block_size_min) * MB_STAMPS_PER_WARP * 8;
    if (need > d->info.global_mem_bytes) {
        snprintf(why, why_len,
                 "memory too small: %lld threads x %d words of %d B need %.3g GB, the device has %.3g GB",
                 (long long)threads, max_words, max_word_bytes, need / 1e9, d->info.global_mem_bytes / 1e9);
        return 1;
    }
    b->stamp_warps = d->info.caps.warp_clock ? stamp_warps_bound(threads, block_size_min) : 1;
    if (!(b->in = alloc_or_why(d, b->array_bytes, "input", why, why_len)) ||
        !(b->out = alloc_or_why(d, b->array_bytes, "output", why, why_len)) ||
        !(b->stamps = alloc_or_why(d, b->stamp_warps * MB_STAMPS_PER_WARP * 8, "stamps", why, why_len)) ||
        !(b->result = alloc_or_why(d, 2 * MB_MAX_WORDS * sizeof(uint32_t), "result", why, why_len))) {
        mb_bench_close(b);
        return 1;
    }
    return 0;
}

void mb_bench_close(mb_bench *b)
{
    if (!b->d) return;
    lbp_buf *bufs[] = {b->in, b->out, b->stamps, b->result};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        if (bufs[i]) lbp_release(b->d, bufs[i]);
    for (int w = 0; w < 3; w++) {
        if (b->fill[w]) b->d->be->kernel_release(b->d, b->fill[w]);
        if (b->verify[w]) b->d->be->kernel_release(b->d, b->verify[w]);
    }
    for (int i = 0; i < b->n_cache; i++) b->d->be->kernel_release(b->d, b->cache[i].kernel);
    free(b->cache);
    if (b->residency) b->d->be->kernel_release(b->d, b->residency);
    if (b->residency_counts) lbp_release(b->d, b->residency_counts);
    free(b->forced);
    memset(b, 0, sizeof *b);
}

static int same_spec(const mb_probe_spec *a, const mb_probe_spec *b)
{
    return a->words == b->words && a->word_bytes == b->word_bytes && a->misaligned_reads == b->misaligned_reads &&
           a->misaligned_writes == b->misaligned_writes && a->payload == b->payload && !a->in_place == !b->in_place &&
           !a->swapped == !b->swapped && !a->stamps == !b->stamps && mb_vector(a) == mb_vector(b) &&
           mb_row(a) == mb_row(b) && mb_band(a) == mb_band(b) &&
           !memcmp(a->tile, b->tile, sizeof a->tile) && !a->nontemporal == !b->nontemporal;
}

static lbp_kernel *compile_or_die(lbp_device *d, const char *source, const char *entry, const char *options)
{
    lbp_kernel *k = lbp_compile(d, source, entry, options);
    if (!k) lbp_fail("compiling the generated kernel '%s' failed (log above)", entry);
    return k;
}

static const char *probe_options(const mb_probe_spec *s)
{
    return s->payload && s->word_bytes == 8 ? MB_PAYLOAD_FP64_OPTIONS : "";
}

void mb_kernel_prefetch(mb_bench *b, const mb_probe_spec *s)
{
    for (int i = 0; i < b->n_cache; i++)
        if (same_spec(&b->cache[i].spec, s)) return;
    mb_probe_record record;
    char *src = mb_generate_probe(s, &record);
    if (!src) return; /* said where it is compiled */
    lbp_prefetch(b->d, src, MB_PROBE_ENTRY, probe_options(s));
    free(src);
}

const mb_compiled *mb_kernel_for(mb_bench *b, const mb_probe_spec *s)
{
    for (int i = 0; i < b->n_cache; i++)
        if (same_spec(&b->cache[i].spec, s)) return &b->cache[i];
    if (b->n_cache == b->cap_cache) {
        b->cap_cache = b->cap_cache ? 2 * b->cap_cache : 32;
        b->cache = realloc(b->cache, sizeof *b->cache * (size_t)b->cap_cache);
        if (!b->cache) lbp_fail("out of memory");
    }
    mb_compiled *c = &b->cache[b->n_cache];
    char *src = mb_generate_probe(s, &c->record);
    if (!src) lbp_fail("internal: generator rejected a checked spec");
    c->spec = *s;
    c->kernel = compile_or_die(b->d, src, MB_PROBE_ENTRY, probe_options(s));
    free(src);
    b->n_cache++;
    return c;
}

/* ---- occupancy ----------------------------------------------------------- */

struct mb_forced {
    const lbp_kernel *kernel;
    int block_size, blocks, carveout_pct;
    size_t shared_bytes;
};

/* Smallest dynamic shared memory that leaves at most `want` blocks
 * (residency only falls as shared memory grows); 0 when even the most a
 * block may take leaves more. */
static size_t shared_for(lbp_device *d, lbp_kernel *k, int block_size, int want)
{
    size_t lo = 1, hi = (size_t)d->info.shared_per_block;
    if (d->be->occupancy(d, k, block_size, hi) > want) return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->be->occupancy(d, k, block_size, mid) <= want)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Most blocks of block_size threads and `shared` bytes found resident
 * together on one SM, under the carveout set on the counting kernel. */
static int resident_blocks(mb_bench *b, int block_size, size_t shared, int carveout_pct, int fit)
{
    lbp_device *d = b->d;
    if (!b->residency) {
        char *src = mb_generate_support(4);
        b->residency = compile_or_die(d, src, MB_RESIDENCY_ENTRY, "");
        free(src);
        if (!(b->residency_counts = lbp_alloc(d, 2 * MB_RESIDENCY_SMS * sizeof(uint32_t))))
            lbp_fail("could not allocate %zu B for the residency count", 2 * MB_RESIDENCY_SMS * sizeof(uint32_t));
    }
    uint32_t counts[2 * MB_RESIDENCY_SMS] = {0};
    lbp_write(d, b->residency_counts, counts, sizeof counts);
    d->be->set_carveout(d, b->residency, carveout_pct);
    lbp_launch_cfg cfg = lbp_cfg_1d((unsigned)(d->info.compute_units * (fit + 1)), (unsigned)block_size);
    cfg.shared_bytes = shared;
    lbp_arg args[] = {LBP_BUF(b->residency_counts), LBP_I64(20000)};
    lbp_launch(d, b->residency, &cfg, 2, args);
    lbp_sync(d);
    lbp_read(d, b->residency_counts, counts, sizeof counts);
    int most = 0;
    for (int i = 0; i < MB_RESIDENCY_SMS; i++)
        if ((int)counts[MB_RESIDENCY_SMS + i] > most) most = (int)counts[MB_RESIDENCY_SMS + i];
    return most;
}

/* `want` blocks per SM under the smallest carveout whose residency count
 * confirms them, left set on k: 0 with *shared, 1 when no carveout does. */
static int forced_shape(mb_bench *b, lbp_kernel *k, int block_size, int want, int fit, size_t *shared)
{
    lbp_device *d = b->d;
    for (int i = 0; i < b->n_forced; i++) {
        const struct mb_forced *f = &b->forced[i];
        if (f->kernel == k && f->block_size == block_size && f->blocks == want) {
            *shared = f->shared_bytes;
            d->be->set_carveout(d, k, f->carveout_pct);
            return 0;
        }
    }
    for (int p = 0; p <= 100; p++) {
        d->be->set_carveout(d, k, p);
        size_t s = shared_for(d, k, block_size, want);
        if (!s || d->be->occupancy(d, k, block_size, s) != want) continue;
        /* the counting kernel has no shared arrays of its own: it takes
         * the probe's static ones as dynamic */
        lbp_kernel_info ki;
        d->be->kernel_info(d, k, &ki);
        if (resident_blocks(b, block_size, s + (size_t)ki.static_shared_bytes, p, fit) != want) continue;
        if (b->n_forced == b->cap_forced) {
            b->cap_forced = b->cap_forced ? 2 * b->cap_forced : 32;
            b->forced = realloc(b->forced, sizeof *b->forced * (size_t)b->cap_forced);
            if (!b->forced) lbp_fail("out of memory");
        }
        b->forced[b->n_forced++] = (struct mb_forced){k, block_size, want, p, s};
        *shared = s;
        return 0;
    }
    d->be->set_carveout(d, k, -1);
    return 1;
}

int mb_block_limit(lbp_device *d, lbp_kernel *k)
{
    lbp_kernel_info ki;
    d->be->kernel_info(d, k, &ki);
    return ki.max_block_size > 0 && ki.max_block_size < d->info.max_block_size ? ki.max_block_size
                                                                                : d->info.max_block_size;
}

int mb_resolve_shape(mb_bench *b, const mb_compiled *c, const mb_config *cfg, mb_shape *out, char *why,
                     size_t why_len)
{
    lbp_device *d = b->d;
    lbp_kernel_info ki;
    d->be->kernel_info(d, c->kernel, &ki);
    *out = (mb_shape){.shared_bytes = 0, .blocks_per_cu = -1, .occupancy = -1, .registers = ki.registers};
    const int limit = mb_block_limit(d, c->kernel);
    if (cfg->block_size < 1 || cfg->block_size > limit) {
        snprintf(why, why_len, "block size %d is over the limit of %d threads for this device and kernel",
                 cfg->block_size, limit);
        return 1;
    }
    if (d->info.caps.carveout) d->be->set_carveout(d, c->kernel, -1);
    int fit = d->be->occupancy(d, c->kernel, cfg->block_size, 0);
    if (fit < 0) return 0; /* the API cannot tell (OpenCL, but NVIDIA's): run unconstrained */
    int want = cfg->blocks_per_cu_requested;
    if (fit == 0 || want > fit) {
        snprintf(why, why_len, "%d blocks of %d threads per compute unit cannot fit (at most %d for this kernel)",
                 want ? want : 1, cfg->block_size, fit);
        return 1;
    }
    size_t shared = 0;
    if (want > 0 && want < fit &&
        (!d->info.caps.carveout || forced_shape(b, c->kernel, cfg->block_size, want, fit, &shared))) {
        /* no carveout to set, or none confirmed: the default one */
        if (!(shared = shared_for(d, c->kernel, cfg->block_size, want))) {
            snprintf(why, why_len, "%d blocks per compute unit cannot be forced: even %lld B of shared memory per block leaves more",
                     want, (long long)d->info.shared_per_block);
            return 1;
        }
    }
    out->shared_bytes = shared;
    out->blocks_per_cu = d->be->occupancy(d, c->kernel, cfg->block_size, shared);
    if (out->blocks_per_cu < 1) {
        snprintf(why, why_len, "%d blocks per compute unit cannot be reached with block size %d", want, cfg->block_size);
        return 1;
    }
    if (d->info.max_threads_per_cu > 0)
        out->occupancy = (double)out->blocks_per_cu * cfg->block_size / d->info.max_threads_per_cu;
    return 0;
}

/* ---- fill, launch, verify ------------------------------------------------ */

static lbp_kernel *support_kernel(mb_bench *b, int word_bytes, int verify)
{
    const int w = word_bytes == 2 ? 2 : word_bytes == 8;
    lbp_kernel **slot = verify ? &b->verify[w] : &b->fill[w];
    if (!*slot) {
        char *src = mb_generate_support(word_bytes);
        *slot = compile_or_die(b->d, src, verify ? MB_VERIFY_ENTRY : MB_FILL_ENTRY, "");
        free(src);
    }
    return *slot;
}

void mb_support_prefetch(mb_bench *b, int word_bytes)
{
    const int w = word_bytes == 2 ? 2 : word_bytes == 8;
    char *src = mb_generate_support(word_bytes);
    if (!b->fill[w]) lbp_prefetch(b->d, src, MB_FILL_ENTRY, "");
    if (!b->verify[w]) lbp_prefetch(b->d, src, MB_VERIFY_ENTRY, "");
    free(src);
}

static unsigned support_block(const mb_bench *b)
{
    int bs = SUPPORT_BLOCK;
    if (b->d->info.max_block_size > 0 && b->d->info.max_block_size < bs) bs = b->d->info.max_block_size;
    return (unsigned)bs;
}

void mb_prepare(mb_bench *b, int word_bytes, int words)
{
    /* the pattern depends on the word size; the output is poisoned every time
     * so that an element a probe does not write is seen */
    int64_t elements = b->in_word_bytes == word_bytes
                           ? (int64_t)words * b->stride
                           : b->array_bytes / word_bytes;
    unsigned bs = support_block(b);
    lbp_launch_cfg cfg = lbp_cfg_1d((unsigned)((elements + bs - 1) / bs), bs);
    lbp_arg args[] = {LBP_BUF(b->in), LBP_BUF(b->out), LBP_I64(elements)};
    lbp_launch(b->d, support_kernel(b, word_bytes, 0), &cfg, 3, args);
    lbp_sync(b->d);
    b->in_word_bytes = word_bytes;
    b->launched = 0;
}

uint32_t mb_next_seed(mb_bench *b)
{
    uint32_t x = 0x2545F491u + 0x9E3779B9u * ++b->seed_counter;
    x ^= x >> 16;
    x *= 0x7feb352du;
    return x ^ (x >> 15);
}

void mb_launch_probe(mb_bench *b, const mb_compiled *c, const mb_config *cfg, const mb_shape *sh, uint32_t seed)
{
    /* a row probe's work-items each take R of the threads' cells */
    const int64_t items = mb_row_items(&c->spec, b->threads);
    const unsigned bs = mb_row_block(&c->spec, b->threads, (unsigned)cfg->block_size, b->d->info.compute_units);
    lbp_launch_cfg lc = lbp_cfg_1d((unsigned)((items + bs - 1) / bs), bs);
    lc.shared_bytes = sh->shared_bytes;
    /* swapped: every other launch reads out and writes in */
    const int flip = c->spec.swapped && b->launched % 2;
    b->launched++;
    lbp_arg args[MB_PROBE_NARGS] = {LBP_BUF(flip ? b->out : b->in), LBP_BUF(flip ? b->in : b->out), LBP_I64(b->stride),
                                    LBP_I64(b->threads), LBP_I32((int32_t)seed), LBP_I32(0),
                                    LBP_BUF(b->stamps)};
    lbp_launch(b->d, c->kernel, &lc, MB_PROBE_NARGS, args);
}

int mb_verify(mb_bench *b, const mb_probe_spec *s, uint32_t seed, int64_t launches, char *why, size_t why_len)
{
    uint32_t result[2 * MB_MAX_WORDS];
    for (int k = 0; k < s->words; k++) result[2 * k] = 0, result[2 * k + 1] = UINT32_MAX;
    lbp_write(b->d, b->result, result, sizeof(uint32_t) * 2 * (size_t)s->words);
    unsigned bs = support_block(b);
    lbp_launch_cfg cfg = lbp_cfg_1d((unsigned)((b->stride + bs - 1) / bs), bs);
    cfg.grid[1] = (unsigned)s->words;
    /* in place: the input; swapped: the array written last (the input
     * after an even count of launches) */
    const int odd = launches % 2;
    lbp_buf *data = s->in_place || (s->swapped && !odd) ? b->in : b->out;
    int32_t mode = s->in_place  ? (odd ? MB_VERIFY_IN_PLACE_ODD : MB_VERIFY_IN_PLACE_EVEN)
                   : s->swapped ? (odd ? MB_VERIFY_SWAPPED_ODD : MB_VERIFY_SWAPPED_EVEN)
                                : MB_VERIFY_OUTPUT;
    /* the words of each array the launches moved: a vector probe's threads
     * move V each, which the check reads as V times the threads */
    const int64_t moved = b->threads * mb_vector(s);
    lbp_arg args[] = {LBP_BUF(data),       LBP_I64(b->stride),
                      LBP_I64(moved),      LBP_I32(s->misaligned_reads),
                      LBP_I32(mb_checked_writes(s)), LBP_I32((int32_t)seed),
                      LBP_I32(mode),       LBP_I64(launches % moved),
                      LBP_BUF(b->result)};
    lbp_launch(b->d, support_kernel(b, s->word_bytes, 1), &cfg, 9, args);
    lbp_sync(b->d);
    lbp_read(b->d, b->result, result, sizeof(uint32_t) * 2 * (size_t)s->words);
    for (int k = 0; k < s->words; k++) {
        if (result[2 * k] == 0) continue;
        int64_t j = result[2 * k + 1];
        uint64_t got = 0;
        size_t wb = (size_t)s->word_bytes;
        b->d->be->read(b->d, data, ((size_t)k * (size_t)b->stride + (size_t)j) * wb, &got, wb);
        char name[64];
        snprintf(why, why_len,
                 "probe %s: %s array %d element %lld: expected 0x%llx, got 0x%llx (%u wrong elements in this array)",
                 mb_spec_name(s, name, sizeof name), data == b->in ? "input" : "output", k, (long long)j,
                 (unsigned long long)mb_expected(s, b->stride, b->threads, seed, launches, k, j),
                 (unsigned long long)got,
                 result[2 * k]);
        return 1;
    }
    return 0;
}

/* ---- a timed, verified probe ---------------------------------------------- */

typedef struct {
    mb_bench *b;
    const mb_compiled *c;
    const mb_config *cfg;
    const mb_shape *sh;
    uint32_t seed;
    int launches;
    int64_t issued; /* launches since the fill */
} run_ctx;

/* One timed run: `launches` launches back to back (the regime of an LBM time
 * loop); every launch rewrites the same output with the same seed, so the
 * output after the runs is verified as for one launch (in place: as for an
 * even or odd count of launches, each xoring the seed in again; swapped:
 * each launch moving the words on by the read shift less the write shift,
 * mb_expected). */
static void run_once(void *p)
{
    run_ctx *r = p;
    for (int i = 0; i < r->launches; i++) mb_launch_probe(r->b, r->c, r->cfg, r->sh, r->seed);
    r->issued += r->launches;
}

int mb_run_launches(const mb_bench *b, int launches, double per_launch_ms)
{
    if (per_launch_ms * launches > b->long_run_ms) {
        const double few = ceil(b->long_run_ms / fmax(per_launch_ms, 1e-6));
        launches = few > b->few_launches ? (int)few : b->few_launches;
    }
    double want = ceil(MB_THREADS_RUN_MS / fmax(per_launch_ms, 1e-6));
    if (want > launches) launches = want < MB_THREADS_MAX_LAUNCHES ? (int)want : MB_THREADS_MAX_LAUNCHES;
    return launches;
}

int mb_run_probe(mb_bench *b, const mb_config *cfg, int warmup, int reps, mb_result *out, char *why,
                 size_t why_len)
{
    if (mb_spec_check(&cfg->spec, why, why_len)) return 2;
    if (cfg->spec.words > b->max_words || cfg->spec.word_bytes > b->max_word_bytes) {
        snprintf(why, why_len, "internal: buffers sized for %d words of %d B", b->max_words, b->max_word_bytes);
        return 2;
    }
    /* a config's own thread count: a layout of that many cells in the same
     * buffers (with per-warp stamps no more threads than they were sized
     * for); a vector probe's threads move V words of each array */
    const int64_t threads_run = cfg->threads > 0 ? cfg->threads : b->threads;
    const int64_t stride_run = spec_stride(b, &cfg->spec, threads_run * mb_vector(&cfg->spec));
    if (cfg->threads < 0 || (int64_t)cfg->spec.words * cfg->spec.word_bytes * stride_run > b->array_bytes ||
        (cfg->spec.stamps && cfg->threads > b->threads)) {
        snprintf(why, why_len, "internal: %lld threads of %d %d-byte words asked, buffers sized for %lld B",
                 (long long)cfg->threads, cfg->spec.words, cfg->spec.word_bytes, (long long)b->array_bytes);
        return 2;
    }
    const mb_compiled *c = mb_kernel_for(b, &cfg->spec);
    mb_shape sh;
    if (mb_resolve_shape(b, c, cfg, &sh, why, why_len)) return 2;
    /* its own lattice: compact layout in the same buffers, restored after */
    int64_t bench_threads = b->threads, bench_stride = b->stride;
    b->threads = threads_run, b->stride = stride_run;
    int launches = cfg->launches > 1 ? cfg->launches : 1;
    mb_prepare(b, cfg->spec.word_bytes, cfg->spec.words);
    run_ctx r = {b, c, cfg, &sh, mb_next_seed(b), launches, 0};
    if (launches > 1) {
        /* Back to back: a run long enough for the steady state of a time
         * loop, where the host issues launches as fast as the device takes
         * them (a short run puts the floor of a small launch higher); of
         * launches so long that the host's interval is lost in them (a
         * CPU's lattice of 256^3), a few, within b->long_run_ms.
         * The pilot is two launches, then the full count. */
        r.launches = 2;
        run_once(&r);
        b->d->be->timer_start(b->d);
        run_once(&r);
        launches = mb_run_launches(b, launches, b->d->be->timer_stop_ms(b->d) / 2);
        r.launches = launches;
    }
    char name[64];
    mb_spec_name(&cfg->spec, name, sizeof name);
    lbp_stats per_run = lbp_time_runs(b->d, run_once, &r, &(lbp_timing){warmup, reps, 0.05, name, 2});
    int bad = mb_verify(b, &cfg->spec, r.seed, r.issued, why, why_len);
    int64_t threads = b->threads;
    b->threads = bench_threads, b->stride = bench_stride;
    if (bad) return 1;
    out->ms = per_run;
    out->ms.min /= launches, out->ms.q1 /= launches, out->ms.median /= launches;
    out->ms.q3 /= launches, out->ms.max /= launches, out->ms.mean /= launches;
    out->cfg = *cfg;
    out->cfg.launches = launches;
    out->record = c->record;
    out->shape = sh;
    out->threads = threads;
    out->bytes_moved = (c->record.bytes_read_per_thread + c->record.bytes_written_per_thread) * threads;
    out->ns_per_thread = out->ms.median * 1e6 / (double)threads;
    out->gbs_median = out->bytes_moved / (out->ms.median * 1e6);
    out->gbs_max = out->bytes_moved / (out->ms.min * 1e6);
    return 0;
}
