/* Level 3, the threads-sweep path: the measured per-launch time of the
 * aligned N=19 probe launched back to back at the lattice's thread count,
 * stretched by the kernel's factor from level 2 (misalignment, N, block
 * size, and what misalignment and arithmetic cost more where the working
 * set sits in the L2), K launches a step.  Small lattices run few threads
 * (partial waves, latency- and launch-bound), which no bandwidth curve of a
 * many-thread copy shows; the probe measured at that thread count does.
 *
 * The thread count is the launch's (model_launched_threads): threads past
 * the lattice's edge of a rows or grid launch idle but hold slots and
 * issue, so they are read as working ones.
 * A kernel of v cells per thread runs cells / v threads of v x word-byte
 * accesses, and is read on the probes of that access width.  Memory time
 * follows the cells updated, not the threads launched: the threads of row
 * padding move nothing.  The per-launch time already holds the host's
 * launch interval and the gap between steps, so no launch term is added;
 * the kernel's factors, measured with many threads (bandwidth-bound),
 * stretch only the part above that interval.  K > 1 launches per step: K
 * full launches at the lattice's thread count, an upper bound where the
 * launches split the work. */
#include "levels.h"

#include <math.h>
#include <stdio.h>

#include "backtoback.h"
#include "launch.h"

/* The thread count to read, and how much longer the busiest SM (or core)
 * keeps the launch than an even share.  One wave (all blocks resident at
 * once, or blocks per SM unknown): the thread count of an even launch with
 * the load of the kernel's busiest SM.  More waves: the kernel's own count
 * (so its own working set, L2 or DRAM), stretched by the busiest SM's
 * share of blocks over an even one, as SMs that finish take the next
 * block. */
static double threads_read(const model_path_query *q, double *imbalance, model_provenance *prov)
{
    const model_inputs *in = q->in;
    const model_lattice *lat = q->lat;
    double threads = model_launched_threads(q->k, lat);
    *imbalance = 1;
    if (lat->blocks_per_cu > 0 && lat->block_size > 0 &&
        ceil(threads / lat->block_size) > lat->blocks_per_cu * in->compute_units)
        *imbalance = model_busiest_sm_threads(in, threads, lat->block_size) / threads;
    else
        threads = model_busiest_sm_threads(in, threads, lat->block_size);
    const double rows_imbalance = model_cpu_row_imbalance(in, q->k, lat);
    if (rows_imbalance > 1) {
        *imbalance = rows_imbalance;
        model_note(prov, "work-groups of %d rows on %g cores: the busiest core's share x %.3f", lat->block_size,
                   in->compute_units, rows_imbalance);
    }
    return threads;
}

/* The part of a launch above the host's interval, stretched by f. */
static double stretch(const model_inputs *in, double us, double f)
{
    const double floor_us = in->have_launch ? fmin(in->launch_us, us) : 0;
    return floor_us + (us - floor_us) * f;
}

/* Occupancy sweep at the kernel's block size over at the threads sweep's,
 * at the kernel's occupancy; 1 where either curve is missing. */
static double block_factor(const model_inputs *in, int w, const model_lattice *lat, int sweep_block)
{
    if (sweep_block <= 0 || sweep_block == lat->block_size) return 1;
    model_probe_lookup lk = {.x = PROBE_X_OCCUPANCY, .min_points = 2}, ls = lk;
    lk.q = model_probe_aligned(PROBE_OCCUPANCY, w, lat->block_size);
    ls.q = model_probe_aligned(PROBE_OCCUPANCY, w, sweep_block);
    model_probe_curve k, s;
    double f = 1;
    if (model_probe_find(in, &lk, &k, NULL)) {
        if (model_probe_find(in, &ls, &s, NULL)) {
            int ignore = 0;
            const double r = model_interp(k.curve.p, k.curve.n, lat->occupancy, &ignore) /
                             model_interp(s.curve.p, s.curve.n, lat->occupancy, &ignore);
            if (r > 0) f = r;
            model_probe_curve_free(&s);
        }
        model_probe_curve_free(&k);
    }
    return f;
}

int model_variant_over_aligned(const model_inputs *in, const model_probe_lookup *l, double threads, double *here,
                               double *top, int *probe_ops, model_provenance *prov)
{
    model_probe_curve c;
    if (!model_probe_find(in, l, &c, prov)) return 0;
    const model_curve *v = &c.curve, *a = &c.aligned;
    const double lo = fmax(v->p[0].x, a->p[0].x), hi = fmin(v->p[v->n - 1].x, a->p[a->n - 1].x);
    const double x = fmin(fmax(log(threads), lo), hi);
    int ignore = 0;
    *here = exp(model_interp(v->p, v->n, x, &ignore) - model_interp(a->p, a->n, x, &ignore));
    *top = exp(model_interp(v->p, v->n, hi, &ignore) - model_interp(a->p, a->n, hi, &ignore));
    if (probe_ops) *probe_ops = c.rows[c.n_rows - 1]->ops;
    model_probe_curve_free(&c);
    return 1;
}

/* model_variant_over_aligned, each ratio at least 1 (below is noise), a
 * payload's excess scaled by ops over the probe's.  0 where either curve
 * is missing. */
static int variant_over_aligned(const model_inputs *in, const model_probe_lookup *l, double threads, double ops,
                                double *here, double *top, double *scale_out)
{
    int probe_ops = 0;
    double h, t;
    if (!model_variant_over_aligned(in, l, threads, &h, &t, &probe_ops, NULL)) return 0;
    const double scale = l->q.payload ? (probe_ops > 0 ? ops / probe_ops : 0) : 1;
    if (scale_out) *scale_out = scale;
    *here = 1 + (fmax(h, 1) - 1) * scale;
    *top = 1 + (fmax(t, 1) - 1) * scale;
    return 1;
}

/* How much more a variant of the threads sweep (L, M, or payload) costs at
 * `threads` than where the working set is in DRAM: its ratio to the aligned
 * curve there over the same ratio at the largest count both measured, each
 * at least 1 (below is noise), the excess over 1 scaled by ops over the
 * payload's.  1 where either curve is missing. */
static double l2_ratio(const model_inputs *in, const model_probe_query *variant, double threads, double ops)
{
    model_probe_lookup l = {.q = *variant, .x = PROBE_X_LAUNCH, .min_points = 2, .with_aligned = 1};
    double here, top;
    return variant_over_aligned(in, &l, threads, ops, &here, &top, NULL) ? here / top : 1;
}

/* The L2 factor of phase p: the phase's misalignment (at the sweep's word
 * size) and the payload (at the kernel's access width, as level 2 reads
 * it). */
static double l2_factor(const model_path_query *q, const model_b2b_set *set, int p, double threads)
{
    const int v = model_cells_per_thread(q->k), L = q->k->misaligned_reads[p], M = q->k->misaligned_writes[p];
    model_probe_query variant = model_probe_aligned(PROBE_THREADS, set->word_bytes, set->block_size);
    variant.blocks_requested = 0;
    variant.words = D3Q19_Q;
    double f = 1;
    if (L || M) {
        variant.misaligned_reads = L;
        variant.misaligned_writes = M;
        f = l2_ratio(q->in, &variant, threads, 0);
    }
    variant.misaligned_reads = variant.misaligned_writes = 0;
    variant.payload = 1;
    variant.word_bytes = q->k->word_bytes * v;
    return f * l2_ratio(q->in, &variant, threads, q->k->ops_per_cell * v);
}

/* The rows sweep's variant (L, M, payload) over its aligned probe of the
 * same layout and word size at `threads` cells (clamped to the cells both
 * measured), at least 1 (below is noise), a payload's excess scaled by ops
 * over the probe's; 0 where either curve is missing. */
static double rows_variant(const model_path_query *q, const model_b2b_set *set, int in_place, int L, int M,
                           int payload, int folded, double threads, double *scale)
{
    model_probe_query v = model_probe_aligned(PROBE_ROWS, set->word_bytes, set->block_size);
    v.words = D3Q19_Q;
    v.layout = in_place ? PROBE_LAYOUT_IN_PLACE : PROBE_LAYOUT_SAME;
    v.misaligned_reads = L;
    v.misaligned_writes = M;
    v.payload = payload;
    v.folded = folded;
    model_probe_lookup l = {.q = v, .x = PROBE_X_LAUNCH, .with_aligned = 1, .fallbacks = PROBE_OR_COMMON_BLOCK};
    double here, top;
    return variant_over_aligned(q->in, &l, threads, q->k->ops_per_cell, &here, &top, scale) ? here : 0;
}

/* The rows sweep's payload variant over its aligned probe: the folded one
 * where measured (membench/gen.h: the collision's instruction mix, where
 * the masked one's integer operations price more than the collision
 * costs in a loop that is not memory-bound), else the masked one, noted. */
static double rows_payload(const model_path_query *q, const model_b2b_set *set, int in_place, double threads,
                           double *scale, model_provenance *prov)
{
    const double folded = rows_variant(q, set, in_place, 0, 0, 1, 1, threads, scale);
    if (folded > 0) {
        if (prov) model_note(prov, "rows sweep: the folded payload (the collision's instructions)");
        return folded;
    }
    if (prov) model_note(prov, "rows sweep: the masked payload (no folded one of %d-byte words)", set->word_bytes);
    return rows_variant(q, set, in_place, 0, 0, 1, 0, threads, scale);
}

/* A row kernel's kernel factor from the rows sweep, read as the loop the
 * compiler vectorizes pays it: the phase's misalignment and the payload,
 * each its variant over the aligned probe (the one-cell probes' ratios,
 * timed a launch at a time, do not carry over: arithmetic hides behind
 * the memory in the loop); non-temporal stores as the rows sweep's
 * non-temporal probe over the aligned one at the kernel's cells (where
 * measured; else the write-allocate they skip saved as level 2 saves it),
 * the in-place probe's saving in its time already.
 * Each variant differs from the aligned probe in one thing and was timed
 * at the same cells back to back, so its time over the aligned one's is
 * what that one thing costs there, with the launch (the fork and join of
 * the cores) in both: the excesses add, 1 + sum (variant - 1), as
 * Obrecht's T = l + T_R + T_W adds its parts.  Multiplied, the misaligned
 * stores' extra time was counted again for every multiple the arithmetic
 * adds: where the conversions of half words make the loop compute-bound
 * (8 times the aligned probe), a 1.26 of misaligned stores became 2.1
 * times the aligned probe's whole time.  0 where
 * the kernel is not a D3Q19 kernel of the probe's words, or a variant it
 * needs was not measured (data from before them). */
static double rows_kernel_factor(const model_path_query *q, const model_b2b_set *set, int p, int in_place,
                                 double threads, model_provenance *prov)
{
    const model_kernel *k = q->k;
    const int L = k->misaligned_reads[p], M = k->misaligned_writes[p];
    if (k->words_read != D3Q19_Q || k->words_written != D3Q19_Q) return 0;
    double s = 1;
    const double mis = L || M ? rows_variant(q, set, in_place, L, M, 0, 0, threads, NULL) : 1;
    const double pay = k->ops_per_cell > 0 ? rows_payload(q, set, in_place, threads, &s, prov) : 1;
    if (!(mis > 0) || !(pay > 0)) return 0;
    double wa = in_place || !(q->probe->in_place_factor > 0) ? 1 : 1 / q->probe->in_place_factor;
    if (!in_place && k->nontemporal) {
        const double nt = model_nontemporal_ratio(q->in, set->word_bytes, set->block_size, threads, NULL);
        if (nt > 0) wa = nt;
    }
    const double f = 1 + (mis - 1) + (pay - 1) + (wa - 1);
    return f > 0 ? f : 0;
}

/* A row-per-work-item kernel on a CPU reads the rows sweep (its in-place
 * curve for one lattice), which moves the cells as the kernel does; data
 * from before that sweep, the threads sweep's one-cell probe, recorded as
 * a fallback. */
static int read_rows(const model_path_query *q, int access, int in_place, model_b2b_set *set, model_provenance *prov)
{
    if (!model_row_per_thread(q->in, q->k)) return 0;
    if (!model_b2b_rows(q->in, access, q->lat->block_size, in_place, set, prov)) {
        char asked[96];
        snprintf(asked, sizeof asked, "%d-byte rows sweep%s (a row per work-item)", access, in_place ? ", in place" : "");
        model_fell_back(prov, MODEL_FALLBACK_SWEEP, asked, "the threads sweep (a cell per work-item)",
                        "not measured: data from before that sweep");
        return 0;
    }
    model_note(prov, "rows sweep%s: the probe of a row per work-item", in_place ? ", in place" : "");
    return 1;
}

/* The threads of a rows or grid launch past the lattice's edge move no
 * words, but each holds its block's slot on an SM until the block's last
 * working thread is done: of the threads resident at the kernel's
 * occupancy, only the working share keeps words in flight.  By Little's
 * law the launch then runs as a launch of its working threads alone at
 * that share of the occupancy, which has as many waves (the same blocks
 * over the same slots).  *working: the lattice at that occupancy; returns
 * level 2 there (the kernel factor's numerator, read at the occupancy the
 * back-to-back curves are), q->probe where every thread works or the
 * occupancy is unknown, NULL where level 2 fails there. */
static const model_probe_level *working_level(const model_path_query *q, model_lattice *working,
                                              model_probe_level *level, model_provenance *prov)
{
    const double share = model_working_share(q->k, q->lat);
    *working = *q->lat;
    if (share >= 1 || q->lat->occupancy <= 0) return q->probe;
    working->occupancy = q->lat->occupancy * share;
    model_note(prov, "%.1f %% of the launched threads idle: read at their working threads and occupancy %.3f x %.3f",
               100 * (1 - share), q->lat->occupancy, share);
    model_provenance scratch; /* level 2's own reading was recorded once, at the kernel's occupancy */
    model_provenance_init(&scratch);
    char err[256];
    if (model_probe_level_of(q->in, q->k, working, level, &scratch, err, sizeof err)) {
        model_note(prov, "%s", err);
        return NULL;
    }
    return level;
}

/* Each phase's kernel factor and memory time on the per-launch time at
 * the lattice's thread count; the step's mean time over the phases. */
static double phases_us(const model_path_query *q, const model_b2b_set *set, const model_probe_level *probe,
                        int from_rows, int in_place, double threads, double per_launch_us, double base_ns,
                        model_path_answer *a, model_threads_detail *d)
{
    const model_inputs *in = q->in;
    const model_kernel *k = q->k;
    const int v = model_cells_per_thread(k);
    double step_us = 0;
    /* the in-place row probe paid no write-allocate: level 2's saving of it
     * is in its time already */
    const double saved = from_rows && in_place && probe->in_place_factor > 0 ? probe->in_place_factor : 1;
    for (int p = 0; p < k->phases; p++) {
        const double rows_f = from_rows ? rows_kernel_factor(q, set, p, in_place, threads, p == 0 ? &a->prov : NULL) : 0;
        if (from_rows && !(rows_f > 0) && p == 0)
            model_fell_back(&a->prov, MODEL_FALLBACK_SWEEP, "the rows sweep's misaligned and payload variants",
                            "level 2's probes over their base (a cell per work-item, one launch at a time)",
                            "not measured: data from before them, or a kernel of other words");
        d->l2_factor[p] = rows_f > 0 ? 1 : l2_factor(q, set, p, threads);
        d->kernel_factor[p] = rows_f > 0 ? rows_f
                                         : probe->ns_per_cell[p] * saved * v / base_ns * d->block_factor *
                                               d->l2_factor[p];
        /* the rows variants' excesses were timed at the launch's own cells,
         * past whatever launch interval the aligned probe had: they add to
         * the whole per-launch time, with no floor left unstretched */
        a->memory_us[p] = k->launches_per_step * (rows_f > 0 ? per_launch_us * rows_f
                                                             : stretch(in, per_launch_us, d->kernel_factor[p]));
        d->own_us[p] = a->memory_us[p];
        step_us += a->memory_us[p] / k->phases;
    }
    return step_us;
}

void model_threads_path(const model_path_query *q, model_prediction *out)
{
    const model_inputs *in = q->in;
    const model_kernel *k = q->k;
    const model_lattice *lat = q->lat;
    model_threads_detail *d = &out->full.threads;
    model_path_answer *a = &out->full.answer[MODEL_FULL_THREADS_SWEEP];
    const int v = model_cells_per_thread(k), access = k->word_bytes * v;
    model_b2b_set set;
    const int in_place = k->lattices < 2, from_rows = read_rows(q, access, in_place, &set, &a->prov);
    if (!from_rows && !model_b2b_threads(in, access, lat->block_size, PROBE_OR_OTHER_WORD, &set, &a->prov)) return;
    double imbalance;
    model_lattice working;
    model_probe_level working_probe;
    const model_probe_level *probe = working_level(q, &working, &working_probe, &a->prov);
    if (!probe) {
        model_b2b_free(&set);
        return;
    }
    lat = &working;
    const double threads = threads_read(q, &imbalance, &a->prov) * model_working_share(k, q->lat);
    /* A kernel that keeps fewer lattices than the probe's two (A-A) has a
     * smaller working set: where that lets it stay in the L2 while the
     * probe at the same thread count spills, the probe with the kernel's
     * working set, scaled to its thread count, is the shorter time (the
     * rows sweep's in-place probe has the kernel's) */
    const double same_set = k->lattices < 2 && !(from_rows && in_place) ? threads * k->lattices / 2 : 0;
    const model_b2b_time t = model_b2b_launch_us(in, &set, lat->occupancy, threads, same_set, &a->prov);
    double per_launch_us = imbalance > 1 ? stretch(in, t.us, imbalance) : t.us;
    /* The kernel factor is level 2's probe over its base probe (N=19,
     * aligned, the kernel's access width and block size).  With occupancy
     * curves the occupancy is in the per-launch time already: the base is
     * read at the kernel's occupancy, so the factor keeps misalignment and
     * N (and the block size's factor); with one curve, at the probe's own,
     * so it carries the occupancy too. */
    model_lattice base_lat = t.two_d ? *lat : (model_lattice){.block_size = lat->block_size};
    const double block_f = t.two_d ? block_factor(in, set.word_bytes, lat, set.block_size) : 1;
    per_launch_us *= (double)access / set.word_bytes;
    model_probe_timing base;
    char err[256];
    const model_probe_shape base_shape = {.words = D3Q19_Q, .word_bytes = access};
    if (model_probe_time(in, &base_shape, &base_lat, &base, &a->prov, err, sizeof err)) {
        model_note(&a->prov, "%s", err);
        model_b2b_free(&set);
        return;
    }
    a->applies = a->complete = 1;
    *d = (model_threads_detail){.threads = threads, .us = per_launch_us, .word_bytes = set.word_bytes,
                                .points = set.points, .curves = set.n, .occupancy = t.occupancy,
                                .block_factor = block_f, .base19_ns = base.ns_per_thread};
    const double step_us = phases_us(q, &set, probe, from_rows, in_place, threads, per_launch_us,
                                     base.ns_per_thread, a, d);
    a->launch_bound = model_launch_bound(in, k, a->memory_us);
    a->mlups = lat->cells / step_us;
    model_b2b_free(&set);
}
