/* Misaligned words one per cell: a kernel of v > 1 cells per thread that
 * moves its aligned words as one v-word vector but each misaligned word on
 * its own (misaligned_access = word: lbmkernels' d3q19.cl, whose shifted
 * populations cannot be one access, a vector one word off its alignment)
 * loads a warp's misaligned array as v instructions that each read a v-th
 * of every sector they touch (its fp16s stores go through an exchange
 * between neighbouring threads: the aligned vector, one word from shared
 * memory).  A probe of the access width (v x the word size) shifts whole
 * vectors instead, still one access each, and misses that cost; membench's
 * vector sweep moves the words as the kernel does.  Its probe with the kernel's L and M over its aligned one (same N,
 * word size, V and launch) is the factor that level 2 and the geometry
 * path put on their aligned time.  A kernel of one lattice (A-A) whose
 * phase reads and writes the same words (L = M) stores each shifted word
 * into the sector its own load just brought: it reads the sweep's in-place
 * probes, which do the same, never the ones that store into another array. */
#include "levels.h"

#include <math.h>
#include <stdio.h>

#include "launch.h"

/* Mean ns per thread of the rows q matches; -1: none. */
static double mean_ns(const model_inputs *in, const model_probe_query *q)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < in->n_probes; i++)
        if (model_probe_matches(&in->probes[i], q)) {
            sum += in->probes[i].ns_per_thread;
            n++;
        }
    return n ? sum / n : -1;
}

/* The vector probe at (L, M) over the aligned one, both at q's block size
 * where both were measured there, else at any; -1 where either is missing. */
static double ratio_at(const model_inputs *in, model_probe_query q, int L, int M)
{
    for (int pass = 0; pass < 2; pass++) {
        if (pass) q.block_size = PROBE_ANY;
        q.misaligned_reads = q.misaligned_writes = 0;
        const double aligned = mean_ns(in, &q);
        q.misaligned_reads = L;
        q.misaligned_writes = M;
        const double misaligned = mean_ns(in, &q);
        if (aligned > 0 && misaligned > 0) return misaligned / aligned;
    }
    return -1;
}

/* Of the vector sweep's N at this word size and V, the nearest to `words`;
 * -1 where it has none. */
static int vector_words(const model_inputs *in, const model_probe_query *q, double words)
{
    int best = -1;
    model_probe_query m = *q;
    m.words = PROBE_ANY;
    m.block_size = PROBE_ANY;
    m.misaligned_reads = m.misaligned_writes = 0;
    for (int i = 0; i < in->n_probes; i++)
        if (model_probe_matches(&in->probes[i], &m) &&
            (best < 0 || fabs(in->probes[i].words - words) < fabs(best - words)))
            best = in->probes[i].words;
    return best;
}

int model_misaligned_by_word(const model_kernel *k)
{
    return k->misaligned_access == MODEL_MISALIGNED_BY_WORD && model_cells_per_thread(k) > 1;
}

double model_vector_ratio(const model_inputs *in, const model_kernel *k, int phase, int block_size,
                          model_provenance *prov)
{
    const int L = k->misaligned_reads[phase], M = k->misaligned_writes[phase], v = model_cells_per_thread(k);
    if (!model_misaligned_by_word(k) || (!L && !M)) return -1;
    model_probe_query q = model_probe_aligned(PROBE_VECTOR, k->word_bytes, block_size > 0 ? block_size : PROBE_ANY);
    q.vector = v;
    const int in_place = k->lattices == 1 && L == M;
    if (in_place) q.layout = PROBE_LAYOUT_IN_PLACE;
    const double words = (k->words_read + k->words_written) / 2;
    q.words = vector_words(in, &q, words);
    const double measured = q.words > 0 ? ratio_at(in, q, L, M) : -1;
    char asked[96];
    snprintf(asked, sizeof asked, "%d-byte vector probe, V=%d, L=%d M=%d%s", k->word_bytes, v, L, M,
             in_place ? " in place" : "");
    if (measured <= 0) {
        model_fell_back(prov, MODEL_FALLBACK_SWEEP, asked,
                        "the probes of the access width, whose misaligned words move as whole vectors",
                        in_place ? "no in-place vector probe there (older membench.csv: its L = M probe stores "
                                   "into another array, not into the sectors its loads brought)"
                                 : "no vector sweep there (older membench.csv)");
        return -1;
    }
    /* a misaligned access moves the same words plus partial sectors: a
     * faster one is timing noise */
    const double ratio = fmax(measured, 1);
    model_note(prov, "misaligned words one per cell at %d cells per thread: the %s at N=%d, x %.3f over aligned", v,
               asked, q.words, ratio);
    if (fabs(q.words - words) > 1e-9)
        model_note(prov, "vector probe read at N=%d for the kernel's N=%g", q.words, words);
    return ratio;
}
