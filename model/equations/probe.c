/* Level 2: Obrecht's transfer model.  The time per thread of membench's
 * N-word probe at the kernel's N, misalignment, word size and occupancy,
 * interpolated between measured probes, times the kernel's arithmetic;
 * P = 1 / T. */
#include "levels.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "launch.h"

static int by_value(const void *a, const void *b)
{
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

/* The median of the values of v (n of them) that are > 0; -1 when none. */
static double median_positive(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (v[i] > 0) v[m++] = v[i];
    qsort(v, m, sizeof *v, by_value);
    return m ? v[m / 2] : -1;
}

int model_base_probe_find(const model_inputs *in, int word_bytes, int block_size, unsigned fallbacks,
                          model_base_probe *base, model_provenance *prov)
{
    model_probe_lookup l = {.x = PROBE_X_WORDS, .word_use = PROBE_WORD_SCALED,
                            .fallbacks = PROBE_OR_COMMON_BLOCK | PROBE_OR_STAND_IN_SWEEP | fallbacks};
    l.q = model_probe_aligned(PROBE_WORDS, word_bytes, block_size);
    if (!model_probe_find(in, &l, &base->found, prov)) return 0;
    const int n = base->found.n_rows;
    double *v = malloc(sizeof *v * (size_t)n);
    for (int i = 0; i < n; i++) v[i] = base->found.rows[i]->threads;
    base->threads = median_positive(v, n);
    for (int i = 0; i < n; i++) v[i] = base->found.rows[i]->occupancy;
    base->occupancy = median_positive(v, n);
    base->block_size = base->found.rows[0]->block_size;
    free(v);
    return 1;
}

/* The occupancy sweep of this very misalignment, where measured: its cost
 * at the kernel's block size and occupancy (a misaligned store costs more
 * the more of them are in flight).  Stores only: the sweep forces
 * occupancy with shared memory, which takes the L1 that catches the second
 * line of a misaligned load, and the kernels use none.  -1 elsewhere. */
static double misaligned_stores_ratio(const model_inputs *in, const model_base_probe *base,
                                      const model_probe_shape *s, const model_lattice *lat, model_provenance *prov)
{
    if (s->misaligned_reads || !s->misaligned_writes || s->words != D3Q19_Q) return -1;
    const model_variant v = {.word_bytes = base->found.read.word_bytes, .misaligned_writes = s->misaligned_writes};
    return model_variant_ratio(in, &v, lat, NULL, prov);
}

int model_probe_time(const model_inputs *in, const model_probe_shape *shape, const model_lattice *lat,
                     model_probe_timing *out, model_provenance *prov, char *err, size_t err_len)
{
    model_base_probe base;
    if (!model_base_probe_find(in, shape->word_bytes, lat->block_size, PROBE_OR_OTHER_WORD, &base, prov)) {
        snprintf(err, err_len, "%s/membench.csv: no aligned probe (L = M = 0) for backend %s", in->dir, in->backend);
        return -1;
    }
    const model_curve *c = &base.found.curve;
    int clamped = 0;
    const double t = model_interp(c->p, c->n, shape->words, &clamped);
    if (clamped)
        model_clamped(prov, "N=%g words outside the measured %g..%g: clamped", shape->words, c->p[0].x, c->p[c->n - 1].x);
    double extra = model_misalignment_extra(in, &base, lat, shape, prov);
    out->occupancy_factor = model_occupancy_factor(in, &base, lat, prov);
    const double stores = misaligned_stores_ratio(in, &base, shape, lat, prov);
    if (stores > 0) {
        extra = t * (fmax(stores, 1) - 1);
        model_note(prov, "L=%d M=%d at the kernel's block size and occupancy: x %.3f", shape->misaligned_reads,
                   shape->misaligned_writes, fmax(stores, 1));
    }
    out->ns_per_thread = (t + extra) * out->occupancy_factor * shape->word_bytes / base.found.read.word_bytes;
    out->probe_threads = base.threads;
    model_probe_curve_free(&base.found);
    return 0;
}

double model_nontemporal_ratio(const model_inputs *in, int word_bytes, int block_size, double cells,
                               model_provenance *prov)
{
    if (!model_correction_on(MODEL_CORR_NONTEMPORAL)) return 0;
    model_probe_query v = model_probe_aligned(PROBE_ROWS, word_bytes, block_size);
    v.words = D3Q19_Q;
    v.nontemporal = 1;
    const model_probe_lookup l = {.q = v, .x = PROBE_X_LAUNCH, .with_aligned = 1, .word_use = PROBE_WORD_RATIO,
                                  .fallbacks = PROBE_OR_COMMON_BLOCK | PROBE_OR_OTHER_WORD};
    double here, top;
    if (!model_variant_over_aligned(in, &l, cells > 0 ? cells : HUGE_VAL, &here, &top, NULL, prov)) return 0;
    return cells > 0 ? here : top;
}

/* On a CPU with write-allocate, the probe (which stores into other arrays
 * than it reads) paid the line read every store makes; a kernel keeping one
 * lattice (A-A) stores into lines it has just read, one that stores
 * non-temporally reads none: each saves it.  Non-temporal stores by the
 * rows sweep's non-temporal probe over the aligned one where the working
 * set is largest (the same stores as the kernel's, 19 streams of them);
 * without it, and in place, by the share likwid measured for a copy
 * (copy_mem's stores are non-temporal, one stream), noted for
 * non-temporal stores; without likwid, by the bytes the roofline counts
 * (read + 2 x written over read + written: the bus as bound, as the
 * roofline assumes it), noted. */
static double in_place_factor(const model_inputs *in, const model_kernel *k, int block_size, model_provenance *prov)
{
    if (!in->is_cpu || in->write_allocate == 0 || !model_skips_write_allocate(k)) return 1;
    const double nt = k->nontemporal && k->lattices > 1
                          ? model_nontemporal_ratio(in, k->word_bytes * model_cells_per_thread(k), block_size, 0, prov)
                          : 0;
    if (nt > 0) {
        model_note(prov, "non-temporal stores: the rows sweep's non-temporal probe over the aligned one, x %.3f",
                   nt);
        return 1 / nt;
    }
    if (in->likwid_copy_gbs > 0 && in->likwid_copy_mem_gbs > in->likwid_copy_gbs) {
        const double f = in->likwid_copy_mem_gbs / in->likwid_copy_gbs;
        if (k->nontemporal && k->lattices > 1)
            model_note(prov, "non-temporal stores: no non-temporal row probe (data from before it): likwid's "
                             "copy_mem over copy, / %.3f (one stream; a kernel's 19 gain less)", f);
        return f;
    }
    const double moved = k->words_read + k->words_written;
    const double f = moved > 0 ? (k->words_read + 2 * k->words_written) / moved : 1;
    model_note(prov, "%s on a CPU with write-allocate, but no likwid copy and copy_mem to size the saving: "
                     "the bytes' %.3f assumed (read + 2 x written over read + written)",
               k->nontemporal ? "non-temporal stores" : "in place", f);
    return f;
}

/* A probe moves N words each way: a kernel that reads and writes different
 * counts is matched by its mean (the same bytes).  v cells per thread: the
 * probe of v x word-byte accesses, per thread / v; where the kernel moves
 * its misaligned words one per cell, their cost is the vector sweep's
 * (vector.c).  The arithmetic is the
 * payload probe's at the kernel's access width and its operations per
 * thread (v cells' collisions): a thread of v cells keeps v x 19 words in
 * flight, and the time its arithmetic adds shows against that. */
int model_probe_level_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                         model_probe_level *out, model_provenance *prov, char *err, size_t err_len)
{
    const int v = model_cells_per_thread(k);
    model_probe_shape shape = {.words = (k->words_read + k->words_written) / 2, .word_bytes = k->word_bytes * v};
    for (int p = 0; p < k->phases; p++) {
        model_probe_timing t;
        shape.misaligned_reads = k->misaligned_reads[p];
        shape.misaligned_writes = k->misaligned_writes[p];
        if (model_probe_time(in, &shape, lat, &t, prov, err, err_len)) return -1;
        out->ns_per_cell[p] = t.ns_per_thread / v;
        out->probe_threads = t.probe_threads;
        out->occupancy_factor = t.occupancy_factor;
    }
    out->compute_factor = model_compute_factor(in, k->ops_per_cell * v, k->word_bytes * v, lat, prov);
    out->in_place_factor = in_place_factor(in, k, lat->block_size, prov);
    double mean_ns = 0;
    for (int p = 0; p < k->phases; p++) {
        out->ns_per_cell[p] *= out->compute_factor / out->in_place_factor;
        mean_ns += out->ns_per_cell[p] / k->phases;
    }
    out->mlups = 1e3 / mean_ns; /* cells per ns x 1e3 = MLUPS */
    return 0;
}
