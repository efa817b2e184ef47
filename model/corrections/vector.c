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
 * probes, which do the same, never the ones that store into another array.
 * First, where the occupancy sweep ran the vector probes (membench on a GPU
 * since it does), their ratio at the kernel's own block size and
 * occupancy: single-word accesses, and push's exchange and its barrier,
 * cost more the fewer other blocks an SM has to run meanwhile, which the
 * vector sweep's one launch (block 256, as many blocks as fit) does not
 * show. */
#include "levels.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/* The occupancy sweep's rows of q's shape (its block size) as a curve of
 * ns per thread over occupancy; n = 0 where none. */
static model_curve occupancy_curve(const model_inputs *in, model_probe_query q)
{
    q.sweep = PROBE_OCCUPANCY;
    model_curve c = {.p = malloc(sizeof *c.p * (size_t)(in->n_probes + 1)), .n = 0};
    if (!c.p) return c;
    for (int i = 0; i < in->n_probes; i++)
        if (model_probe_matches(&in->probes[i], &q) && in->probes[i].occupancy > 0)
            c.p[c.n++] = (model_point){in->probes[i].occupancy, in->probes[i].ns_per_thread};
    c.n = model_points_prepare(c.p, c.n);
    return c;
}

/* The kernel's occupancy: its own, else that of the occupancy sweep's row
 * of its blocks per SM at its block size; <= 0 unknown. */
static double kernel_occupancy(const model_inputs *in, model_probe_query q, const model_lattice *lat)
{
    if (lat->occupancy > 0) return lat->occupancy;
    q.sweep = PROBE_OCCUPANCY;
    for (int i = 0; i < in->n_probes; i++)
        if (model_probe_matches(&in->probes[i], &q) && in->probes[i].blocks_per_cu == lat->blocks_per_cu)
            return in->probes[i].occupancy;
    return -1;
}

/* The vector probe at (L, M) over the aligned one on the occupancy sweep,
 * both read at the kernel's block size and occupancy, within what was
 * measured there; -1 where not. */
static double launch_ratio(const model_inputs *in, model_probe_query q, int L, int M, const model_lattice *lat)
{
    if (lat->block_size <= 0) return -1;
    q.block_size = lat->block_size;
    q.misaligned_reads = q.misaligned_writes = 0;
    const double x = kernel_occupancy(in, q, lat);
    model_curve a = occupancy_curve(in, q);
    q.misaligned_reads = L;
    q.misaligned_writes = M;
    model_curve m = occupancy_curve(in, q);
    double ratio = -1;
    int clamped = 0;
    if (x > 0 && a.n > 0 && m.n > 0) {
        const double t_m = model_interp(m.p, m.n, x, &clamped), t_a = model_interp(a.p, a.n, x, &clamped);
        if (!clamped && t_a > 0) ratio = t_m / t_a;
    }
    free(a.p);
    free(m.p);
    return ratio;
}

/* Of the N of the vector probes (vector and occupancy sweeps) at this word
 * size and V, the nearest to `words`; -1 where they have none. */
static int vector_words(const model_inputs *in, const model_probe_query *q, double words)
{
    int best = -1;
    model_probe_query m = *q;
    m.words = PROBE_ANY;
    m.block_size = PROBE_ANY;
    m.misaligned_reads = m.misaligned_writes = 0;
    static const model_probe_sweep sweeps[2] = {PROBE_VECTOR, PROBE_OCCUPANCY};
    for (int s = 0; s < 2; s++) {
        m.sweep = sweeps[s];
        for (int i = 0; i < in->n_probes; i++)
            if (model_probe_matches(&in->probes[i], &m) &&
                (best < 0 || fabs(in->probes[i].words - words) < fabs(best - words)))
                best = in->probes[i].words;
    }
    return best;
}

int model_misaligned_by_word(const model_kernel *k)
{
    return k->misaligned_access == MODEL_MISALIGNED_BY_WORD && model_cells_per_thread(k) > 1;
}

double model_vector_ratio(const model_inputs *in, const model_kernel *k, int phase, const model_lattice *lat,
                          model_provenance *prov)
{
    const int L = k->misaligned_reads[phase], M = k->misaligned_writes[phase], v = model_cells_per_thread(k);
    if (!model_misaligned_by_word(k) || (!L && !M) || !model_correction_on(MODEL_CORR_VECTOR)) return -1;
    const int block_size = lat->block_size;
    model_probe_query q = model_probe_aligned(PROBE_VECTOR, k->word_bytes, block_size > 0 ? block_size : PROBE_ANY);
    q.vector = v;
    const int in_place = k->lattices == 1 && L == M;
    if (in_place) q.layout = PROBE_LAYOUT_IN_PLACE;
    const double words = (k->words_read + k->words_written) / 2;
    q.words = vector_words(in, &q, words);
    char asked[96];
    snprintf(asked, sizeof asked, "%d-byte vector probe, V=%d, L=%d M=%d%s", k->word_bytes, v, L, M,
             in_place ? " in place" : "");
    const double at_launch = q.words > 0 ? launch_ratio(in, q, L, M, lat) : -1;
    if (at_launch > 0) {
        const double ratio = fmax(at_launch, 1); /* faster than aligned: noise, as below */
        model_note(prov, "misaligned words one per cell at %d cells per thread: the %s at N=%d on the occupancy "
                   "sweep at block %d and the kernel's occupancy, x %.3f over aligned", v, asked, q.words,
                   block_size, ratio);
        return ratio;
    }
    const double measured = q.words > 0 ? ratio_at(in, q, L, M) : -1;
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
