/* Grid launches on membench's tile sweep (their block shape), and blocks
 * narrower than a warp on its narrow sweep where the tile sweep lacks the
 * shape: see levels.h (model_tile_factors, model_narrow_factors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "corrections.h"
#include "levels.h"

#define NARROW_MISALIGNED 10 /* L and M of the sweep's misaligned variants */

/* BX of the sweep to read for a block bx threads wide: 4, 8 or 16, the
 * nearest below (4 for narrower ones). */
static int band_read(int bx)
{
    return bx >= 16 ? 16 : bx >= 8 ? 8 : 4;
}

/* A probe of the narrow sweep (band BX) or of the tile sweep (block shape). */
typedef struct {
    model_probe_sweep sweep;
    int band;
    int tile[3];
    int blocks; /* blocks per SM forced (0: as many as fit), PROBE_ANY: any */
} probe_shape;

static probe_shape narrow_shape(int band)
{
    return (probe_shape){.sweep = PROBE_NARROW, .band = band, .blocks = PROBE_ANY};
}

static probe_shape tile_shape(int bx, int by, int bz, int blocks)
{
    return (probe_shape){.sweep = PROBE_TILE, .band = 32, .tile = {bx, by, bz}, .blocks = blocks};
}

/* ns per thread of the probe of this shape at (L, M) and word size w over
 * the thread counts measured (model_probe_find's back-to-back curve), read
 * at `threads` (clamped: *clamped = 1); -1 where not measured. */
static double shape_ns(const model_inputs *in, int w, const probe_shape *s, int l, int m, double threads,
                       int *clamped)
{
    model_probe_lookup lk = {.q = model_probe_aligned(s->sweep, w, PROBE_ANY), .x = PROBE_X_LAUNCH};
    lk.q.band = s->band;
    lk.q.blocks_requested = s->blocks;
    memcpy(lk.q.tile, s->tile, sizeof lk.q.tile);
    lk.q.misaligned_reads = l;
    lk.q.misaligned_writes = m;
    model_probe_curve c;
    if (!model_probe_find(in, &lk, &c, NULL)) return -1;
    const double us = exp(model_interp(c.curve.p, c.curve.n, log(threads), clamped));
    model_probe_curve_free(&c);
    return us * 1e3 / threads;
}

/* The block size of a probe shape's misaligned sweeps: a tile's threads,
 * any for the narrow sweep's. */
static int shape_block(const probe_shape *s)
{
    return s->sweep == PROBE_TILE ? s->tile[0] * s->tile[1] * s->tile[2] : PROBE_ANY;
}

/* The probe of shape over that of ref at `count` misaligned words on one
 * side (reads: writes = 0, else writes); -1 where either is missing.  The
 * sweeps measure 0 and 10 words at x + 1; at another count the shape's
 * time is the reference's plus what the shape adds.  The reference is the
 * linear probe at the same block, whose extra grows with the count as its
 * misaligned sweep measured (a store's rises faster than the count once
 * the stores' queues fill); what the shape adds (the partial sectors at a
 * block's edges in x, the rows a block spans) is its straddling words'
 * own, linear in their count (*past = 1 past the 10 measured). */
static double side_ratio(const model_inputs *in, int w, const probe_shape *shape, const probe_shape *ref, int count,
                         int writes, double threads, int *clamped, int *past)
{
    const int l = writes ? 0 : NARROW_MISALIGNED, m = writes ? NARROW_MISALIGNED : 0;
    const double s0 = shape_ns(in, w, shape, 0, 0, threads, clamped), r0 = shape_ns(in, w, ref, 0, 0, threads, clamped);
    if (s0 <= 0 || r0 <= 0) return -1;
    if (!count) return s0 / r0;
    const double s10 = shape_ns(in, w, shape, l, m, threads, clamped),
                 r10 = shape_ns(in, w, ref, l, m, threads, clamped);
    if (s10 <= 0 || r10 <= 0) return -1;
    if (count == NARROW_MISALIGNED) return s10 / r10;
    if (count > NARROW_MISALIGNED) *past = 1;
    double grows = model_misaligned_count_ratio(in, w, shape_block(ref), writes, count, NARROW_MISALIGNED);
    if (grows < 0) grows = (double)count / NARROW_MISALIGNED; /* no misaligned sweep: the line */
    const double linear = r0 + (r10 - r0) * grows,
                 added = (s0 - r0) + ((s10 - r10) - (s0 - r0)) * count / NARROW_MISALIGNED;
    return linear > 0 ? (linear + added) / linear : -1;
}

/* The phase's factor: L and M each at their count (side_ratio); both
 * misaligned, the two one-sided ratios' excess
 * over the aligned one compounded (no probe has both). */
static double phase_factor(const model_inputs *in, int w, const probe_shape *shape, const probe_shape *ref, int l,
                           int m, double threads, int *clamped, int *both, int *past)
{
    if (!l || !m) return side_ratio(in, w, shape, ref, m ? m : l, m > 0, threads, clamped, past);
    *both = 1;
    const double reads = side_ratio(in, w, shape, ref, l, 0, threads, clamped, past),
                 writes = side_ratio(in, w, shape, ref, m, 1, threads, clamped, past),
                 aligned = side_ratio(in, w, shape, ref, 0, 0, threads, clamped, past);
    return reads > 0 && writes > 0 && aligned > 0 ? reads * writes / aligned : -1;
}

/* The narrow probe at band over the linear one; where the narrow sweep
 * was not run (the tile sweep replaced it), the tile sweep's blocks of one
 * warp, band x 32/band x 1 over 32 x 1 x 1: the same warps over the same
 * rows.  *tiles = 1 where those answered. */
static double band_factor(const model_inputs *in, int w, int band, int l, int m, double threads, int *clamped,
                          int *both, int *past, int *tiles)
{
    const probe_shape narrow = narrow_shape(band), linear = narrow_shape(32);
    const double f = phase_factor(in, w, &narrow, &linear, l, m, threads, clamped, both, past);
    if (f > 0) return f;
    const probe_shape warp = tile_shape(band, 32 / band, 1, 0), warp_linear = tile_shape(32, 1, 1, 0);
    *tiles = 1;
    return phase_factor(in, w, &warp, &warp_linear, l, m, threads, clamped, both, past);
}

/* The word size of the sweep to read: the kernel's access width where its
 * linear probe was measured there, else 4 (the sweep's). */
static int sweep_word(const model_inputs *in, const model_kernel *k, const probe_shape *linear)
{
    const int w = k->word_bytes * model_cells_per_thread(k);
    int clamped = 0;
    return shape_ns(in, w, linear, 0, 0, 1, &clamped) > 0 ? w : 4;
}

/* What a shape sweep's reading took from elsewhere: another word size, L
 * and M both misaligned as a product, a count past the sweep's 10
 * misaligned words read on along its line, the edge of its thread counts
 * (the last two not measured: within_measured no). */
static void sweep_notes(model_provenance *prov, const char *sweep, const model_kernel *k, int w, int both, int past,
                        int clamped, double threads)
{
    const int access = k->word_bytes * model_cells_per_thread(k);
    if (w != access) model_note(prov, "%s sweep read at %d-byte words for the kernel's %d-byte accesses", sweep, w, access);
    if (both) model_note(prov, "%s sweep: L and M both misaligned read as L times M over aligned", sweep);
    if (past)
        model_clamped(prov, "%s sweep's misaligned probes (10 words) extended along the misaligned count",
                      sweep);
    if (clamped)
        model_clamped(prov, "%s sweep read at the edge of its thread counts for the launch's %.0f threads", sweep,
                      threads);
}

/* The kernel's blocks per SM where the launch tells them (0: unknown). */
static int kernel_blocks_per_sm(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    const model_launch_shape s = model_launch_shape_of(in, k, lat);
    return s.per_wave > 0 && in->compute_units > 0 ? (int)lround(s.per_wave / in->compute_units) : 0;
}

/* Every phase's factor with the shape and its reference at blocks per SM
 * forced to `blocks` (0: as many as fit); 0, or -1 with the phase that
 * was not measured in *missing. */
static int tile_phases(const model_inputs *in, const model_kernel *k, int w, int blocks, double threads,
                       double *factor, int *clamped, int *both, int *past, int *missing)
{
    const int *b = k->block;
    const probe_shape shape = tile_shape(b[0], b[1], b[2], blocks), ref = tile_shape(b[0] * b[1] * b[2], 1, 1, blocks);
    for (int p = 0; p < k->phases; p++) {
        factor[p] = phase_factor(in, w, &shape, &ref, k->misaligned_reads[p], k->misaligned_writes[p], threads,
                                 clamped, both, past);
        if (factor[p] <= 0) {
            *missing = p;
            return -1;
        }
    }
    return 0;
}

int model_tile_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                       model_provenance *prov)
{
    if (in->is_cpu || k->launch != MODEL_LAUNCH_GRID || !model_correction_on(MODEL_CORR_TILE)) return 0;
    const int *b = k->block;
    const probe_shape linear = tile_shape(b[0] * b[1] * b[2], 1, 1, 0);
    const int w = sweep_word(in, k, &linear);
    const int access = k->word_bytes * model_cells_per_thread(k);
    if (w != access && b[0] * access < MODEL_SECTOR_BYTES) {
        /* a warp's rows of BX words fill part of a sector; the sweep's
         * shape at another word size moves other bytes a row: the narrow
         * sweep at the same bytes a row answers (below) */
        model_note(prov, "tile sweep at %dx%dx%d measured at %d-byte words only: rows of %d bytes there, the "
                         "kernel's %d", b[0], b[1], b[2], w, b[0] * w, b[0] * access);
        return 0;
    }
    const double threads = model_launched_threads(k, lat);
    const int own = kernel_blocks_per_sm(in, k, lat);
    int clamped = 0, both = 0, past = 0, missing = 0;
    /* the shape at the kernel's own blocks per SM (membench --tile-from its
     * file) first: what a shape costs depends on how many blocks share an SM */
    int blocks = own;
    if (own <= 0 || tile_phases(in, k, w, own, threads, factor, &clamped, &both, &past, &missing)) {
        blocks = 0;
        clamped = both = past = 0;
        if (tile_phases(in, k, w, 0, threads, factor, &clamped, &both, &past, &missing)) {
            model_note(prov, "membench.csv has no tile sweep at %dx%dx%d blocks and %dx1x1 at L=%d M=%d: the grid "
                             "read without it", b[0], b[1], b[2], b[0] * b[1] * b[2], k->misaligned_reads[missing],
                       k->misaligned_writes[missing]);
            return 0;
        }
        if (own > 0)
            model_note(prov, "tile sweep at %dx%dx%d read at as many blocks per SM as fit, not the kernel's %d "
                             "(membench --tile-from its file measures it there)", b[0], b[1], b[2], own);
    }
    sweep_notes(prov, "tile", k, w, both, past, clamped, threads);
    char at[48] = "";
    if (blocks > 0) snprintf(at, sizeof at, " at %d blocks per SM", blocks);
    model_note(prov, "grid of %dx%dx%d blocks: level 3 x %.3f (tile sweep at %dx%dx%d over %dx1x1%s, first phase, "
                     "L=%d M=%d)", b[0], b[1], b[2], factor[0], b[0], b[1], b[2], b[0] * b[1] * b[2], at,
               k->misaligned_reads[0], k->misaligned_writes[0]);
    return 1;
}

int model_narrow_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                         model_provenance *prov)
{
    const int bx = k->block[0];
    if (!model_warps_span_rows(in, k) || bx >= 32 || !model_correction_on(MODEL_CORR_NARROW)) return 0;
    const probe_shape linear = narrow_shape(32);
    const int w = sweep_word(in, k, &linear);
    /* what a warp's row costs is the bytes it moves of a sector: read at
     * another word size, the band with the same bytes a row (8 halves
     * are the 4-byte sweep's BX = 4) */
    const int access = k->word_bytes * model_cells_per_thread(k), bytes_bx = bx * access / w;
    if (bytes_bx >= 32) return 0;
    const int band = band_read(bytes_bx > 0 ? bytes_bx : 1);
    const double threads = model_launched_threads(k, lat);
    int clamped = 0, both = 0, past = 0, tiles = 0;
    char asked[96];
    snprintf(asked, sizeof asked, "narrow sweep at BX=%d (blocks %d threads wide in x)", band, bx);
    for (int p = 0; p < k->phases; p++) {
        factor[p] = band_factor(in, w, band, k->misaligned_reads[p], k->misaligned_writes[p], threads, &clamped,
                                &both, &past, &tiles);
        if (factor[p] <= 0) {
            model_fell_back(prov, MODEL_FALLBACK_SWEEP, asked, "whole-row probes",
                            "membench.csv has no narrow sweep (nor tile sweep of one-warp blocks) at L=%d M=%d: "
                            "each warp's access spans rows, priced as whole rows",
                            k->misaligned_reads[p], k->misaligned_writes[p]);
            return -1;
        }
    }
    if (band != bx) model_note(prov, "blocks %d threads wide in x read on the narrow sweep at BX=%d", bx, band);
    sweep_notes(prov, "narrow", k, w, both, past, clamped, threads);
    if (tiles)
        model_note(prov, "blocks %d threads wide in x: level 3 x %.3f (tile sweep at %dx%dx1 over 32x1x1, "
                         "first phase)", bx, factor[0], band, 32 / band);
    else
        model_note(prov, "blocks %d threads wide in x: level 3 x %.3f (narrow sweep at BX=%d over BX=32, first phase)",
                   bx, factor[0], band);
    return 1;
}
