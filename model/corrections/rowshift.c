/* Words a row or a plane away that straddle sectors (launch.h:
 * model_row_shifted_words), priced at level 3.  A linear launch's warp
 * moves a contiguous run of each array; a word shifted by dy rows and dz
 * planes moves that run dy R + dz P bytes further, which is no whole number
 * of 32-byte sectors where the rows are not (D3Q19 in fp16s on 200^3: rows
 * of 400 bytes): each such run touches one sector more than it fills, as
 * the misaligned probe's run shifted by one word does.  Per phase, the
 * probe of the kernel's access width with those words misaligned as well
 * over the probe with the kernel's own misaligned words: first the
 * geometry sweep's probes at the kernel's launch (0 and 10 words measured;
 * another count grows as the misaligned sweep of that side measured it,
 * as the tile factors do), else the misaligned sweeps (level 2's
 * misalignment extra at the access width).  Where the kernel moves its
 * x-shifted words one per cell (vector.c prices those), the probe's own
 * are none: only the row-shifted ones are whole vectors. */
#include "levels.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>

#include "launch.h"

enum { GROWS_OWN, GROWS_OTHER_WORD, GROWS_LINE };

/* A count's misaligned extra over 10's on the misaligned sweep of side (0
 * reads, 1 writes, 2 both) at word size w, else at 4 or 2 bytes (a ratio
 * has no unit), else the count's share of 10. */
static double grows(const model_inputs *in, int w, int block, int side, int count, int *how)
{
    if (count == D3Q19_X_MOVING || !count) return count ? 1 : 0;
    const int sizes[3] = {w, 4, 2};
    for (int i = 0; i < 3; i++) {
        if (i && sizes[i] == w) continue;
        const double g = model_misaligned_count_ratio(in, sizes[i], block, side, count, D3Q19_X_MOVING);
        if (g >= 0) {
            if (i && *how < GROWS_OTHER_WORD) *how = GROWS_OTHER_WORD;
            return g;
        }
    }
    *how = GROWS_LINE;
    return (double)count / D3Q19_X_MOVING;
}

/* The geometry sweep's probes at the kernel's launch: t[L][M] with L, M
 * 0 or 10 (index 0 or 1), -1 where not measured there. */
typedef struct {
    double t[2][2];
} launch_probes;

static launch_probes launch_probes_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    launch_probes g;
    for (int l = 0; l < 2; l++)
        for (int m = 0; m < 2; m++)
            g.t[l][m] = model_geometry_probe_us(in, k, lat, l * D3Q19_X_MOVING, m * D3Q19_X_MOVING);
    return g;
}

/* The probe at the launch with a reads and b writes misaligned, µs; -1
 * where not measured there. */
static double geometry_us(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                          const launch_probes *g, int a, int b, int *how)
{
    const double t00 = g->t[0][0];
    if (t00 <= 0) return -1;
    if ((!a || a == D3Q19_X_MOVING) && (!b || b == D3Q19_X_MOVING) && g->t[a > 0][b > 0] > 0) return g->t[a > 0][b > 0];
    const int w = k->word_bytes * model_cells_per_thread(k);
    if (k->lattices < 2) { /* in place: its phases read and write the same words */
        const double t = g->t[1][1];
        return a == b && t > 0 ? t00 + fmax(t - t00, 0) * grows(in, w, lat->block_size, 2, a, how) : -1;
    }
    double t = t00;
    for (int side = 0; side < 2; side++) {
        const int count = side ? b : a;
        if (!count) continue;
        const double t10 = side ? g->t[0][1] : g->t[1][0];
        if (t10 <= 0) return -1;
        t += fmax(t10 - t00, 0) * grows(in, w, lat->block_size, side, count, how);
    }
    return t;
}

/* Level 2's probe at the access width with a and b misaligned over the
 * same with l and m (the aligned probe at the kernel's N plus each
 * misalignment extra); -1 without an aligned probe. */
static double sweep_ratio(const model_inputs *in, const model_kernel *k, const model_lattice *lat, int a, int b,
                          int l, int m)
{
    model_base_probe base;
    const int w = k->word_bytes * model_cells_per_thread(k);
    if (!model_base_probe_find(in, w, lat->block_size, PROBE_OR_OTHER_WORD, &base, NULL)) return -1;
    model_probe_shape shape = {.words = (k->words_read + k->words_written) / 2, .word_bytes = w};
    int clamped = 0;
    model_provenance scratch;
    model_provenance_init(&scratch);
    const double t = model_interp(base.found.curve.p, base.found.curve.n, shape.words, &clamped);
    shape.misaligned_reads = a, shape.misaligned_writes = b;
    const double num = t + model_misalignment_extra(in, &base, lat, &shape, &scratch);
    shape.misaligned_reads = l, shape.misaligned_writes = m;
    const double den = t + model_misalignment_extra(in, &base, lat, &shape, &scratch);
    model_probe_curve_free(&base.found);
    return num > 0 && den > 0 ? num / den : -1;
}

int model_row_shift_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                            model_provenance *prov)
{
    int any = 0, have_probes = 0;
    char what[200] = "";
    size_t used = 0;
    launch_probes g;
    for (int p = 0; p < k->phases; p++) factor[p] = 1;
    if (!model_correction_on(MODEL_CORR_ROW_SHIFT)) return 0;
    for (int p = 0; p < k->phases; p++) {
        model_row_shifted r = model_row_shifted_words(in, k, lat, p);
        /* the x-shifted words are accesses of the width where they move as
         * vectors; moved one per cell, they are another access than the
         * whole vectors a row away (even where the vector sweep is missing
         * and the geometry path prices them as vectors), and push's
         * exchanged stores are among those vectors */
        const int whole = !model_misaligned_by_word(k);
        if (!whole) r.writes += r.exchanged;
        if (!r.reads && !r.writes) continue;
        const int lx = whole ? k->misaligned_reads[p] : 0, mx = whole ? k->misaligned_writes[p] : 0;
        if (!have_probes) g = launch_probes_of(in, k, lat), have_probes = 1;
        int how = GROWS_OWN;
        const double num = geometry_us(in, k, lat, &g, lx + r.reads, mx + r.writes, &how),
                     den = geometry_us(in, k, lat, &g, lx, mx, &how);
        double ratio = num > 0 && den > 0 ? num / den : -1;
        const char *from = "the geometry sweep at the kernel's launch";
        if (ratio <= 0) {
            ratio = sweep_ratio(in, k, lat, lx + r.reads, mx + r.writes, lx, mx);
            from = "the misaligned sweeps";
            how = GROWS_OWN;
        }
        if (ratio <= 0) {
            model_note(prov, "words a row or plane away straddle sectors (launch %d: %d read, %d written), but no "
                             "probe prices them: taken as aligned", p + 1, r.reads, r.writes);
            continue;
        }
        factor[p] = fmax(ratio, 1); /* more partial sectors never take less time */
        any = 1;
        if (used < sizeof what)
            used += snprintf(what + used, sizeof what - used, "%slaunch %d: %d read, %d written, x %.3f (%s%s)",
                             used ? "; " : "", p + 1, r.reads, r.writes, factor[p], from,
                             how == GROWS_OTHER_WORD ? ", grown as another word size's misaligned sweep"
                             : how == GROWS_LINE    ? ", grown in proportion to the count"
                                                    : "");
    }
    if (any)
        model_note(prov, "rows of %lld bytes are not whole %d-byte sectors: words a row or plane away straddle "
                         "them (%s)", model_row_bytes(k, lat), MODEL_SECTOR_BYTES, what);
    return any;
}
