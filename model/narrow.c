/* Grid launches of blocks narrower than a warp, on membench's narrow sweep:
 * see levels.h (model_narrow_factors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "launch.h"
#include "levels.h"

#define NARROW_MISALIGNED 10 /* L and M of the sweep's misaligned variants */

/* BX of the sweep to read for a block bx threads wide: 4, 8 or 16, the
 * nearest below (4 for narrower ones). */
static int band_read(int bx)
{
    return bx >= 16 ? 16 : bx >= 8 ? 8 : 4;
}

/* ns per thread of the narrow probe at (band, L, M) and word size w over
 * the thread counts measured (model_probe_find's back-to-back curve), read
 * at `threads` (clamped: *clamped = 1); -1 where not measured. */
static double narrow_ns(const model_inputs *in, int w, int band, int l, int m, double threads, int *clamped)
{
    model_probe_lookup lk = {.q = model_probe_aligned(PROBE_NARROW, w, PROBE_ANY), .x = PROBE_X_LAUNCH};
    lk.q.band = band;
    lk.q.misaligned_reads = l;
    lk.q.misaligned_writes = m;
    model_probe_curve c;
    if (!model_probe_find(in, &lk, &c, NULL)) return -1;
    const double us = exp(model_interp(c.curve.p, c.curve.n, log(threads), clamped));
    model_probe_curve_free(&c);
    return us * 1e3 / threads;
}

/* The narrow probe at band over the linear one, both at (L, M); -1 where
 * either is missing. */
static double band_ratio(const model_inputs *in, int w, int band, int l, int m, double threads, int *clamped)
{
    const double narrow = narrow_ns(in, w, band, l, m, threads, clamped),
                 linear = narrow_ns(in, w, 32, l, m, threads, clamped);
    return narrow > 0 && linear > 0 ? narrow / linear : -1;
}

/* The phase's factor: L and M each read at the nearer of 0 and 10; both
 * misaligned, the two one-sided ratios' excess over the aligned one
 * compounded (no probe has both). */
static double phase_factor(const model_inputs *in, int w, int band, int l, int m, double threads, int *clamped,
                           int *both)
{
    const int lr = l >= NARROW_MISALIGNED / 2 ? NARROW_MISALIGNED : 0,
              mr = m >= NARROW_MISALIGNED / 2 ? NARROW_MISALIGNED : 0;
    if (!lr || !mr) return band_ratio(in, w, band, lr, mr, threads, clamped);
    *both = 1;
    const double reads = band_ratio(in, w, band, lr, 0, threads, clamped),
                 writes = band_ratio(in, w, band, 0, mr, threads, clamped),
                 aligned = band_ratio(in, w, band, 0, 0, threads, clamped);
    return reads > 0 && writes > 0 && aligned > 0 ? reads * writes / aligned : -1;
}

/* The word size of the sweep to read: the kernel's access width where
 * measured there, else 4 (the sweep's). */
static int narrow_word(const model_inputs *in, const model_kernel *k)
{
    const int w = k->word_bytes * model_cells_per_thread(k);
    int clamped = 0;
    return narrow_ns(in, w, 32, 0, 0, 1, &clamped) > 0 ? w : 4;
}

int model_narrow_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                         model_provenance *prov)
{
    const int bx = k->block[0];
    if (!model_warps_span_rows(in, k) || bx >= 32) return 0;
    const int band = band_read(bx), w = narrow_word(in, k);
    const double threads = model_launched_threads(k, lat);
    int clamped = 0, both = 0;
    char asked[96];
    snprintf(asked, sizeof asked, "narrow sweep at BX=%d (blocks %d threads wide in x)", band, bx);
    for (int p = 0; p < k->phases; p++) {
        factor[p] = phase_factor(in, w, band, k->misaligned_reads[p], k->misaligned_writes[p], threads, &clamped,
                                 &both);
        if (factor[p] <= 0) {
            model_fell_back(prov, MODEL_FALLBACK_SWEEP, asked, "whole-row probes",
                            "membench.csv has no narrow sweep at L=%d M=%d: each warp's access spans rows, priced "
                            "as whole rows",
                            k->misaligned_reads[p], k->misaligned_writes[p]);
            return -1;
        }
    }
    if (band != bx) model_note(prov, "blocks %d threads wide in x read on the narrow sweep at BX=%d", bx, band);
    if (w != k->word_bytes * model_cells_per_thread(k))
        model_note(prov, "narrow sweep read at %d-byte words for the kernel's %d-byte accesses", w,
                   k->word_bytes * model_cells_per_thread(k));
    if (both) model_note(prov, "narrow sweep: L and M both misaligned read as L=10 times M=10 over aligned");
    if (clamped)
        model_clamped(prov, "narrow sweep read at the edge of its thread counts for the launch's %.0f threads",
                      threads);
    model_note(prov, "blocks %d threads wide in x: level 3 x %.3f (narrow sweep at BX=%d over BX=32, first phase)",
               bx, factor[0], band);
    return 1;
}
