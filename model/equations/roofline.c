/* Level 1: the roofline, copy bandwidth over bytes per update (Habich §4). */
#include "predict.h"

#include <math.h>
#include <stdio.h>

/* The best copy bandwidth where the working set is past the caches: at
 * least 4 x L2 where the L2 is known and the sweep got there, else the
 * upper half of the sizes measured.  *which says which. */
static double best_copy_gbs(const model_inputs *in, const char **which)
{
    double largest = 0, best = 0;
    for (int i = 0; i < in->n_copies; i++) largest = fmax(largest, in->copies[i].working_set);
    int dram_only = in->l2_bytes > 0;
    double threshold = dram_only ? 4 * in->l2_bytes : largest / 2;
    for (int pass = 0; pass < 2 && best <= 0; pass++) {
        for (int i = 0; i < in->n_copies; i++)
            if (in->copies[i].working_set >= threshold) best = fmax(best, in->copies[i].gbs_median);
        if (best <= 0) { /* no copy that large: fall back to the largest ones */
            dram_only = 0;
            threshold = largest / 2;
        }
    }
    *which = dram_only ? "best copy at working sets >= 4 x L2"
                       : "best copy at the largest working sets (L2 size unknown or never exceeded 4x)";
    return best;
}

void model_roofline(const model_inputs *in, const model_kernel *k, model_roofline_level *out)
{
    const char *which;
    const double best = best_copy_gbs(in, &which);
    if (in->is_cpu && in->write_allocate != 0) {
        /* every store first reads its line, except into lines the kernel
         * has just read (one lattice, A-A) and where it stores
         * non-temporally; what the bus moves is likwid's copy_mem, else a
         * copy's 3 transfers of which it counted 2 */
        const char *assumed = in->write_allocate < 0 ? " assumed" : "";
        out->bytes_per_update =
            (k->words_read + (model_skips_write_allocate(k) ? 1 : 2) * k->words_written) * k->word_bytes;
        if (in->likwid_copy_mem_gbs > 0) {
            out->gbs = in->likwid_copy_mem_gbs;
            snprintf(out->source, sizeof out->source,
                     "likwid copy_mem %.1f GB/s (bus bandwidth; CPU with write-allocate%s)", out->gbs, assumed);
        } else {
            out->gbs = 1.5 * best;
            snprintf(out->source, sizeof out->source, "3/2 x %s %.1f GB/s (bus bandwidth; CPU with write-allocate%s)",
                     which, best, assumed);
        }
    } else {
        out->bytes_per_update = (k->words_read + k->words_written) * k->word_bytes;
        out->gbs = best;
        snprintf(out->source, sizeof out->source, "%s %.1f GB/s", which, best);
    }
    out->mlups = out->bytes_per_update > 0 ? out->gbs * 1e3 / out->bytes_per_update : 0;
    out->working_set_mlups = out->mlups;
    out->dram_copy_gbs = best;
}

int model_skips_write_allocate(const model_kernel *k)
{
    return k->lattices == 1 || k->nontemporal;
}

/* A lattice that fits a cache gets the bandwidth a copy of its working set
 * got in the size sweep: the roofline scaled by that over the DRAM copy's
 * (never below the DRAM roofline). */
void model_roofline_at(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                       model_roofline_level *out)
{
    const double stored = lat->stored_cells > 0 ? lat->stored_cells : lat->cells;
    const double ws = k->lattices * fmax(k->words_read, k->words_written) * k->word_bytes * stored;
    int clamped = 0;
    const double here = model_size_bandwidth(in, ws, k->word_bytes, &clamped);
    out->working_set_mlups = out->mlups;
    if (here > out->dram_copy_gbs && out->dram_copy_gbs > 0) out->working_set_mlups = out->mlups * here / out->dram_copy_gbs;
}
