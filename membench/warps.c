/* Per-warp stamp probes and their summaries (see warps.h). */
#include "warps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { ST_SMID, ST_START, ST_READS, ST_WRITES };

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) lbp_fail("out of memory (%zu B) summarising warp stamps", n);
    return p;
}

static void note_resolution(double *res, uint64_t diff)
{
    if (diff > 0 && (*res == 0 || diff < *res)) *res = (double)diff;
}

/* Start times grouped by SM and sorted: launch delay by rank. */
static void launch_delays(const uint64_t *stamps, int64_t warps, int ranks, mb_warp_summary *out)
{
    uint64_t max_sm = 0;
    for (int64_t w = 0; w < warps; w++)
        if (stamps[MB_STAMPS_PER_WARP * w + ST_SMID] > max_sm) max_sm = stamps[MB_STAMPS_PER_WARP * w + ST_SMID];
    size_t n_sm = (size_t)max_sm + 1;
    int64_t *first = xmalloc(sizeof *first * (n_sm + 1));
    memset(first, 0, sizeof *first * (n_sm + 1));
    for (int64_t w = 0; w < warps; w++) first[stamps[MB_STAMPS_PER_WARP * w + ST_SMID] + 1]++;
    for (size_t s = 0; s < n_sm; s++) first[s + 1] += first[s];
    int64_t *fill = xmalloc(sizeof *fill * n_sm);
    memcpy(fill, first, sizeof *fill * n_sm);
    uint64_t *start = xmalloc(sizeof *start * (size_t)warps);
    for (int64_t w = 0; w < warps; w++)
        start[fill[stamps[MB_STAMPS_PER_WARP * w + ST_SMID]]++] = stamps[MB_STAMPS_PER_WARP * w + ST_START];
    double *delay = xmalloc(sizeof *delay * n_sm);
    if (ranks > MB_MAX_RANKS) ranks = MB_MAX_RANKS;
    for (size_t s = 0; s < n_sm; s++) {
        uint64_t *t = start + first[s];
        int64_t n = first[s + 1] - first[s];
        qsort(t, (size_t)n, sizeof *t, cmp_u64);
        for (int64_t i = 1; i < n; i++) note_resolution(&out->resolution_ns, t[i] - t[i - 1]);
    }
    out->ranks = 0;
    for (int r = 0; r < ranks; r++) {
        int n = 0;
        for (size_t s = 0; s < n_sm; s++)
            if (first[s + 1] - first[s] > r) delay[n++] = (double)(start[first[s] + r] - start[first[s]]);
        if (n == 0) break;
        out->launch[r] = lbp_stats_of(delay, n);
        out->ranks = r + 1;
    }
    free(delay);
    free(start);
    free(fill);
    free(first);
}

int mb_summarize_stamps(const uint64_t *stamps, int64_t warps, int ranks, mb_warp_summary *out, char *why,
                        size_t why_len)
{
    memset(out, 0, sizeof *out);
    out->warps = warps;
    if (warps < 1) {
        snprintf(why, why_len, "no warps stamped");
        return 1;
    }
    double *read = xmalloc(sizeof *read * (size_t)warps), *write = xmalloc(sizeof *write * (size_t)warps);
    for (int64_t w = 0; w < warps; w++) {
        const uint64_t *st = stamps + MB_STAMPS_PER_WARP * w;
        if (st[ST_SMID] > 65535 || st[ST_START] == UINT64_MAX || st[ST_START] > st[ST_READS] ||
            st[ST_READS] > st[ST_WRITES]) {
            snprintf(why, why_len,
                     "warp %lld has no stamps or stamps out of order (smid %llu, start %llu, reads %llu, writes %llu)",
                     (long long)w, (unsigned long long)st[ST_SMID], (unsigned long long)st[ST_START],
                     (unsigned long long)st[ST_READS], (unsigned long long)st[ST_WRITES]);
            free(read);
            free(write);
            return 1;
        }
        read[w] = (double)(st[ST_READS] - st[ST_START]);
        write[w] = (double)(st[ST_WRITES] - st[ST_READS]);
        note_resolution(&out->resolution_ns, st[ST_READS] - st[ST_START]);
        note_resolution(&out->resolution_ns, st[ST_WRITES] - st[ST_READS]);
    }
    out->read = lbp_stats_of(read, (int)(warps < INT32_MAX ? warps : INT32_MAX));
    out->write = lbp_stats_of(write, (int)(warps < INT32_MAX ? warps : INT32_MAX));
    free(read);
    free(write);
    launch_delays(stamps, warps, ranks, out);
    return 0;
}

int64_t mb_live_warps(uint64_t *stamps, int64_t warps, int block_size, int64_t threads)
{
    int warps_per_block = (block_size + 31) / 32;
    int64_t kept = 0;
    for (int64_t w = 0; w < warps; w++) {
        int64_t first_thread = w / warps_per_block * block_size + w % warps_per_block * 32;
        if (first_thread >= threads) continue;
        memmove(stamps + MB_STAMPS_PER_WARP * kept++, stamps + MB_STAMPS_PER_WARP * w,
                MB_STAMPS_PER_WARP * sizeof *stamps);
    }
    return kept;
}

int mb_run_stamps(mb_bench *b, const mb_config *cfg, mb_warp_summary *out, char *why, size_t why_len)
{
    if (mb_spec_check(&cfg->spec, why, why_len)) return 2;
    mb_probe_spec spec = cfg->spec;
    spec.stamps = 1;
    const mb_compiled *c = mb_kernel_for(b, &spec);
    mb_shape sh;
    if (mb_resolve_shape(b, c, cfg, &sh, why, why_len)) return 2;
    int64_t blocks = (b->threads + cfg->block_size - 1) / cfg->block_size;
    int warps_per_block = (cfg->block_size + 31) / 32;
    int64_t warps = blocks * warps_per_block;
    if (warps > b->stamp_warps) {
        snprintf(why, why_len, "internal: stamps buffer holds %lld warps, %lld needed", (long long)b->stamp_warps,
                 (long long)warps);
        return 2;
    }
    size_t bytes = (size_t)warps * MB_STAMPS_PER_WARP * sizeof(uint64_t);
    uint64_t *stamps = xmalloc(bytes);
    mb_prepare(b, spec.word_bytes, spec.words);
    uint32_t seed = mb_next_seed(b);
    mb_launch_probe(b, c, cfg, &sh, seed); /* warm-up */
    lbp_sync(b->d);
    memset(stamps, 0xff, bytes); /* a warp that stamps nothing stays all ones */
    lbp_write(b->d, b->stamps, stamps, bytes);
    mb_launch_probe(b, c, cfg, &sh, seed);
    lbp_sync(b->d);
    int bad = mb_verify(b, &spec, seed, 2, why, why_len); /* the warm-up and the stamped launch */
    if (!bad) {
        lbp_read(b->d, b->stamps, stamps, bytes);
        int ranks = sh.blocks_per_cu > 0 ? sh.blocks_per_cu * warps_per_block
                    : b->d->info.max_threads_per_cu > 0 ? b->d->info.max_threads_per_cu / 32
                                                         : MB_MAX_RANKS;
        bad = mb_summarize_stamps(stamps, mb_live_warps(stamps, warps, cfg->block_size, b->threads), ranks, out,
                                  why, why_len);
    }
    free(stamps);
    return bad;
}
