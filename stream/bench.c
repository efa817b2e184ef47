/* Running and verifying one STREAM-copy configuration (see bench.h). */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Host staging for pattern, poison and read-back: chunks keep host memory
 * small next to multi-GB device arrays.  A multiple of 16 bytes, so no
 * element straddles two chunks. */
#define STAGING_BYTES ((int64_t)32 << 20)
#define GUARD_BYTES ((int64_t)4096)

static uint32_t *staging(void)
{
    static uint32_t *buf;
    if (!buf && !(buf = malloc(STAGING_BYTES)))
        lbp_fail("out of host memory for a %lld-byte staging buffer", (long long)STAGING_BYTES);
    return buf;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

void stream_poison(lbp_device *d, lbp_buf *buf, int64_t bytes)
{
    uint32_t *h = staging();
    for (int64_t j = 0; j < min64(bytes, STAGING_BYTES) / 4; j++)
        h[j] = STREAM_POISON;
    for (int64_t off = 0; off < bytes; off += STAGING_BYTES)
        d->be->write(d, buf, (size_t)off, h, (size_t)min64(STAGING_BYTES, bytes - off));
}

void stream_write_pattern(lbp_device *d, lbp_buf *buf, int64_t bytes)
{
    uint32_t *h = staging();
    for (int64_t off = 0; off < bytes; off += STAGING_BYTES) {
        int64_t len = min64(STAGING_BYTES, bytes - off);
        for (uint32_t j = 0; j < (uint32_t)(len / 4); j++)
            h[j] = stream_pattern((uint64_t)(off / 4 + j));
        d->be->write(d, buf, (size_t)off, h, (size_t)len);
    }
}

/* "0x00000001:0x00000003" for the u32 words of one element. */
static void format_words(char *s, size_t len, const uint32_t *w, int count)
{
    size_t at = 0;
    s[0] = 0;
    for (int k = 0; k < count && at < len; k++)
        at += (size_t)snprintf(s + at, len - at, "%s0x%08" PRIx32, k ? ":" : "", w[k]);
}

/* 2-byte words: two to a u32, the first in its low half (little-endian). */
static void describe_half_mismatch(const stream_record *r, int64_t u32_index, uint32_t got, char *why,
                                   size_t why_len)
{
    const uint32_t want = stream_pattern((uint64_t)u32_index);
    const int high = (got & 0xffffu) == (want & 0xffffu);
    const unsigned g = high ? got >> 16 : got & 0xffffu, w = high ? want >> 16 : want & 0xffffu;
    const unsigned poison = high ? STREAM_POISON >> 16 : STREAM_POISON & 0xffffu;
    snprintf(why, why_len, "element %" PRId64 " of %" PRId64 " (2-byte words): expected 0x%04x, got 0x%04x%s",
             2 * u32_index + high, r->elements, w, g, g == poison ? " (never written)" : "");
}

static void describe_mismatch(const stream_record *r, int64_t u32_index, const uint32_t *got,
                              char *why, size_t why_len)
{
    if (r->word_bytes == 2) {
        describe_half_mismatch(r, u32_index, got[0], why, why_len);
        return;
    }
    int wb = r->word_bytes > 0 ? r->word_bytes : 4; /* driver copy: report u32 words */
    int per = wb / 4;
    int64_t element = u32_index / per;
    int64_t first = element * per;
    uint32_t want[4];
    for (int k = 0; k < per; k++)
        want[k] = stream_pattern((uint64_t)(first + k));
    char ws[64], gs[64];
    format_words(ws, sizeof ws, want, per);
    format_words(gs, sizeof gs, got + (first - u32_index), per);
    if (r->word_bytes > 0)
        snprintf(why, why_len, "element %" PRId64 " of %" PRId64 " (%d-byte words): expected %s, got %s%s",
                 element, r->elements, wb, ws, gs, got[0] == STREAM_POISON ? " (never written)" : "");
    else
        snprintf(why, why_len, "byte offset %" PRId64 " of %" PRId64 ": expected %s, got %s%s",
                 element * 4, r->elements, ws, gs, got[0] == STREAM_POISON ? " (never written)" : "");
}

int stream_verify(lbp_device *d, const lbp_buf *out, const stream_record *r, int64_t guard_bytes,
                  char *why, size_t why_len)
{
    uint32_t *h = staging();
    int64_t bytes = stream_array_bytes(r);
    for (int64_t off = 0; off < bytes; off += STAGING_BYTES) {
        int64_t len = min64(STAGING_BYTES, bytes - off);
        d->be->read(d, out, (size_t)off, h, (size_t)len);
        int64_t base = off / 4;
        /* Branch-free first pass (vectorises); search only on a mismatch. */
        uint32_t diff = 0;
        for (uint32_t j = 0; j < (uint32_t)(len / 4); j++)
            diff |= h[j] ^ stream_pattern((uint64_t)(base + j));
        for (int64_t j = 0; diff && j < len / 4; j++)
            if (h[j] != stream_pattern((uint64_t)(base + j))) {
                /* Align the report to the element's first word in the chunk. */
                int per = (r->word_bytes > 4 ? r->word_bytes : 4) / 4;
                int64_t first = (base + j) / per * per;
                describe_mismatch(r, first, h + (first - base), why, why_len);
                return 1;
            }
    }
    /* An odd count of 2-byte words ends in half a u32: the copied low half
     * (little-endian devices) and the poison's high half. */
    int64_t whole = bytes / 4 * 4;
    if (bytes > whole) {
        uint32_t tail, want = (stream_pattern((uint64_t)(whole / 4)) & 0xffffu) | (STREAM_POISON & 0xffff0000u);
        d->be->read(d, out, (size_t)whole, &tail, 4);
        if ((tail & 0xffffu) != (want & 0xffffu)) {
            describe_half_mismatch(r, whole / 4, tail, why, why_len);
            return 1;
        }
        if (tail != want) {
            snprintf(why, why_len, "wrote past the end of the array: byte offset %" PRId64 " (array of %" PRId64
                     " bytes) holds 0x%04" PRIx32 ", expected the poison 0x%04x",
                     bytes, bytes, tail >> 16, STREAM_POISON >> 16);
            return 1;
        }
        whole += 4;
        guard_bytes -= whole - bytes;
    }
    if (guard_bytes > 0) {
        d->be->read(d, out, (size_t)whole, h, (size_t)guard_bytes);
        for (int64_t j = 0; j < guard_bytes / 4; j++)
            if (h[j] != STREAM_POISON) {
                snprintf(why, why_len,
                         "wrote past the end of the array: byte offset %" PRId64
                         " (array of %" PRId64 " bytes) holds 0x%08" PRIx32 ", expected the poison 0x%08x",
                         whole + 4 * j, bytes, h[j], STREAM_POISON);
                return 1;
            }
    }
    return 0;
}

int stream_bench_init(stream_bench *b, lbp_device *d, int64_t capacity_bytes)
{
    memset(b, 0, sizeof *b);
    b->d = d;
    b->capacity_bytes = capacity_bytes;
    b->in = lbp_alloc(d, (size_t)capacity_bytes);
    b->out = b->in ? lbp_alloc(d, (size_t)capacity_bytes) : NULL;
    if (!b->out) {
        if (b->in)
            lbp_release(d, b->in);
        b->in = NULL;
        return -1;
    }
    stream_write_pattern(d, b->in, capacity_bytes);
    return 0;
}

void stream_bench_free(stream_bench *b)
{
    for (int w = 0; w < STREAM_WORD_SLOTS; w++)
        for (int a = 0; a < STREAM_ACCESS_COUNT; a++)
            if (b->kernels[w][a])
                b->d->be->kernel_release(b->d, b->kernels[w][a]);
    if (b->out)
        lbp_release(b->d, b->out);
    if (b->in)
        lbp_release(b->d, b->in);
    memset(b, 0, sizeof *b);
}

static int word_slot(int word_bytes) { return word_bytes == 2 ? 3 : word_bytes == 4 ? 0 : word_bytes == 8 ? 1 : 2; }

typedef struct {
    lbp_device *d;
    lbp_kernel *k;
    lbp_launch_cfg cfg;
    lbp_arg args[3];
} launch_ctx;
static void run_launch(void *p)
{
    launch_ctx *c = p;
    lbp_launch(c->d, c->k, &c->cfg, 3, c->args);
}

/* A copy from b's input array to its output */
static launch_ctx launch_of(stream_bench *b, lbp_kernel *k, const stream_kernel *gk, const stream_config *cfg)
{
    return (launch_ctx){b->d, k, lbp_cfg_1d(gk->blocks, gk->block_size),
                        {LBP_BUF(b->in), LBP_BUF(b->out), LBP_I64(cfg->elements)}};
}

typedef struct {
    lbp_device *d;
    lbp_buf *dst, *src;
    size_t bytes;
} copy_ctx;
static void run_copy(void *p)
{
    copy_ctx *c = p;
    c->d->be->copy(c->d, c->dst, c->src, c->bytes);
}

/* Poison (array plus guard), one host-timed pilot run that also warms up,
 * the timed runs, verification. */
static int time_and_verify(stream_bench *b, void (*run)(void *), void *ctx, const stream_record *r,
                           const stream_reps *policy, const char *what, stream_result *res,
                           char *why, size_t why_len)
{
    int64_t bytes = stream_array_bytes(r);
    int64_t guard = min64(GUARD_BYTES, b->capacity_bytes - bytes);
    stream_poison(b->d, b->out, bytes + guard);

    double t0 = lbp_now();
    run(ctx);
    lbp_sync(b->d);
    double pilot_ms = (lbp_now() - t0) * 1e3;

    int reps = policy->fixed_reps, warmup = policy->warmup;
    if (reps <= 0) {
        double want = pilot_ms > 0 ? policy->target_ms / pilot_ms : policy->max_reps;
        /* A slow configuration (one block streaming a GB) gets fewer runs:
         * at least 3, and about 4x the target time at most. */
        int floor_reps = policy->min_reps;
        if (pilot_ms * floor_reps > 4 * policy->target_ms) {
            floor_reps = (int)(4 * policy->target_ms / pilot_ms);
            if (floor_reps < 3)
                floor_reps = 3;
        }
        reps = want < floor_reps ? floor_reps : want > policy->max_reps ? policy->max_reps : (int)want;
        if (pilot_ms > policy->target_ms / 4)
            warmup = 0; /* the pilot run already warmed it up */
    }
    lbp_timing t = {warmup, reps, policy->scatter_warn, what, 2};
    res->ms = lbp_time_runs(b->d, run, ctx, &t);
    res->reps = reps;
    double moved = (double)stream_bytes_moved(r);
    res->gbs_median = moved / (res->ms.median * 1e-3) / 1e9;
    res->gbs_max = moved / (res->ms.min * 1e-3) / 1e9;
    return stream_verify(b->d, b->out, r, guard, why, why_len);
}

int stream_run_generated(stream_bench *b, const stream_config *cfg, const stream_reps *policy,
                         stream_kernel *kernel_out, stream_result *res, char *why, size_t why_len)
{
    stream_kernel gk;
    if (stream_generate(cfg, &gk, why, why_len) != 0)
        return -1;
    if (stream_array_bytes(&gk.record) > b->capacity_bytes) {
        snprintf(why, why_len, "array of %" PRId64 " bytes exceeds the allocated %" PRId64,
                 stream_array_bytes(&gk.record), b->capacity_bytes);
        return -1;
    }
    lbp_kernel **slot = &b->kernels[word_slot(cfg->word_bytes)][cfg->access];
    lbp_kernel *k = cfg->planted_skip ? NULL : *slot;
    if (!k) {
        k = lbp_compile(b->d, gk.source, gk.entry, "");
        if (!k) {
            snprintf(why, why_len, "kernel %s did not compile", gk.name);
            return -1;
        }
        if (!cfg->planted_skip)
            *slot = k;
    }
    if (kernel_out)
        *kernel_out = gk;

    launch_ctx ctx = launch_of(b, k, &gk, cfg);
    char what[96];
    snprintf(what, sizeof what, "copy %s x%u, %" PRId64 " B", gk.name, gk.blocks,
             stream_array_bytes(&gk.record));
    int rc = time_and_verify(b, run_launch, &ctx, &gk.record, policy, what, res, why, why_len);
    if (cfg->planted_skip)
        b->d->be->kernel_release(b->d, k);
    return rc;
}

int stream_enqueue_generated(stream_bench *b, const stream_config *cfg, const stream_kernel *gk)
{
    lbp_kernel *k = b->kernels[word_slot(cfg->word_bytes)][cfg->access];
    if (!k || cfg->planted_skip)
        return -1;
    launch_ctx ctx = launch_of(b, k, gk, cfg);
    run_launch(&ctx);
    return 0;
}

int stream_run_driver_copy(stream_bench *b, int64_t bytes, const stream_reps *policy,
                           stream_record *record_out, stream_result *res, char *why, size_t why_len)
{
    stream_record r = stream_driver_copy_record(bytes);
    if (bytes > b->capacity_bytes || bytes % 4) {
        snprintf(why, why_len, "driver copy of %" PRId64 " bytes: not a multiple of 4 within %" PRId64,
                 bytes, b->capacity_bytes);
        return -1;
    }
    if (record_out)
        *record_out = r;
    copy_ctx ctx = {b->d, b->out, b->in, (size_t)bytes};
    char what[64];
    snprintf(what, sizeof what, "driver copy, %" PRId64 " B", bytes);
    return time_and_verify(b, run_copy, &ctx, &r, policy, what, res, why, why_len);
}
