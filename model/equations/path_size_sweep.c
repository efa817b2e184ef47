/* Level 3, the size-sweep path (always answers; last in line): the probe
 * time scaled by the bandwidth this lattice's working set gets relative to
 * the probe's own (stream.csv size sweep: small lattices live in L2), and
 * the launch interval.
 *
 * The probe's time is per launched thread: a padded row launches nx_padded
 * threads for nx cells, and the idle ones still hold a slot (fewer bytes in
 * flight per SM), so the memory time counts stored cells.  A step costs, on
 * the device, its memory time plus the gap between two dependent kernels
 * (launches replayed from a CUDA graph, where no host stands in between; 0
 * where no graph was measured) -- Obrecht's T = l + T_R + T_W -- but never
 * less than the interval at which the host issues launches back to back:
 * lbmkernels queues many steps without synchronising, so the host's and the
 * device's pipelines overlap, and a step costs the longer of the two, not
 * their sum (which is kept as a diagnostic). */
#include "levels.h"

#include <math.h>

#include "launch.h"

/* The working sets and their bandwidth ratio; complete = 0 without a size
 * sweep. */
static void working_sets(const model_path_query *q, model_size_sweep_detail *d, model_path_answer *a)
{
    const model_kernel *k = q->k;
    const double stored = q->lat->stored_cells > 0 ? q->lat->stored_cells : q->lat->cells;
    const double words = (k->words_read + k->words_written) / 2;
    d->working_set = k->lattices * fmax(k->words_read, k->words_written) * k->word_bytes * stored;
    d->probe_working_set = 2 * words * k->word_bytes * q->probe->probe_threads;
    int clamped = 0;
    const double b_probe = model_size_bandwidth(q->in, d->probe_working_set, k->word_bytes, &clamped);
    const double b_here = model_size_bandwidth(q->in, d->working_set, k->word_bytes, &clamped);
    if (b_probe > 0 && b_here > 0) {
        d->bandwidth_ratio = b_probe / b_here;
        if (clamped)
            model_clamped(&a->prov, "working set %.3g B (or the probe's %.3g B) outside the stream size sweep: clamped",
                          d->working_set, d->probe_working_set);
    } else {
        d->bandwidth_ratio = 1;
        a->complete = 0;
        model_note(&a->prov, "no stream size sweep: level 3 incomplete (no working-set effect)");
    }
}

/* The host's launch interval and the device's gap, K launches a step. */
static void launch_terms(const model_path_query *q, model_size_sweep_detail *d, model_path_answer *a)
{
    const model_inputs *in = q->in;
    if (in->have_launch) {
        d->launch_us = q->k->launches_per_step * in->launch_us;
    } else {
        a->complete = 0;
        model_note(&a->prov, "no launch.csv: level 3 incomplete (no launch interval)");
    }
    if (in->have_gap) d->gap_us = q->k->launches_per_step * in->gap_us;
    else if (in->have_launch)
        model_note(&a->prov, "no graph launch interval: device-side gap between steps taken as 0");
}

void model_size_sweep_path(const model_path_query *q, model_prediction *out)
{
    model_size_sweep_detail *d = &out->full.size_sweep;
    model_path_answer *a = &out->full.answer[MODEL_FULL_SIZE_SWEEP];
    const model_kernel *k = q->k;
    const model_lattice *lat = q->lat;
    a->applies = a->complete = 1;
    working_sets(q, d, a);
    launch_terms(q, d, a);
    const double imbalance = model_cpu_row_imbalance(q->in, k, lat);
    if (imbalance > 1)
        model_note(&a->prov, "work-groups of %d rows on %g cores: the busiest core's share x %.3f", lat->block_size,
                   q->in->compute_units, imbalance);
    const double stored = lat->stored_cells > 0 ? lat->stored_cells : lat->cells;
    double step_ns = 0, step_sum_ns = 0;
    for (int p = 0; p < k->phases; p++) {
        const double memory_ns = stored * q->probe->ns_per_cell[p] * d->bandwidth_ratio * imbalance;
        const double device_ns = memory_ns + d->gap_us * 1e3;
        a->memory_us[p] = memory_ns * 1e-3;
        if (d->launch_us * 1e3 > device_ns) a->launch_bound = 1;
        step_ns += fmax(device_ns, d->launch_us * 1e3) / k->phases;
        step_sum_ns += (memory_ns + d->launch_us * 1e3) / k->phases;
    }
    a->mlups = 1e3 * lat->cells / step_ns;
    d->sum_mlups = 1e3 * lat->cells / step_sum_ns;
}
