/* Level 3, the geometry path (first in line): where membench-geometry.csv
 * measured the N=19 probe at the kernel's own launch -- access width, block
 * size, blocks per SM (known, so forced), the lattice's thread count
 * (launched: model_launched_threads) -- each launch is the probe there with the
 * phase's L and M, plus the collision payload's excess over it scaled by
 * the kernel's operations per thread over the payload's (counted, not
 * weighed: the 8-byte probe read for a float kernel of two cells per
 * thread computes in double, but at these sizes the arithmetic's latency,
 * one operation after another, is what shows).  Waves of blocks, blocks per SM and what
 * misalignment and arithmetic cost at that working set are then measured,
 * not modelled.
 *
 * The probes read are the ones laid out as the kernel's arrays are: a
 * kernel keeping one lattice (A-A) the in-place probe (its phases have
 * L = M), whose stores go to the lines its loads brought in; two lattices
 * the probe that swaps its arrays at every launch where measured, which
 * like a time loop reads what the launch before wrote (at the L2's edge
 * those lines may still be there, dirty), else (older data) the probe that
 * reads and writes the same arrays at every launch.
 *
 * It answers only there: N = 19, L and M of 0 or 10, in place for one
 * lattice, the thread count inside the measured ones, every launched thread
 * working (the probe's all do: a rows or grid launch with idle threads is
 * the threads path's). */
#include "levels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "backtoback.h"
#include "launch.h"

/* The kernel's launch: access width, block size, blocks per SM. */
static model_probe_query launch_query(const model_kernel *k, const model_lattice *lat)
{
    model_probe_query q = {.sweep = PROBE_GEOMETRY, .word_bytes = k->word_bytes * model_cells_per_thread(k),
                           .block_size = lat->block_size, .blocks_requested = (int)lat->blocks_per_cu,
                           .misaligned_reads = PROBE_ANY, .misaligned_writes = PROBE_ANY, .payload = PROBE_ANY,
                           .layout = PROBE_LAYOUT_SAME, .words = PROBE_ANY};
    return q;
}

static int layout_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    if (k->lattices < 2) return PROBE_LAYOUT_IN_PLACE;
    model_probe_query q = launch_query(k, lat);
    q.layout = PROBE_LAYOUT_SWAPPED;
    for (int i = 0; i < in->n_probes; i++)
        if (model_probe_matches(&in->probes[i], &q)) return PROBE_LAYOUT_SWAPPED;
    return PROBE_LAYOUT_SAME;
}

/* Past the sweep's largest thread count at a launch, where that count
 * already streamed this many L2s of working set from DRAM, the launch is
 * carried along the threads sweep's aligned curve of its access width: its
 * time there over its time at that count (from 12 L2s on that curve's time
 * per thread moves by under 2 % up to its top, 16 M threads, on the H100;
 * past its top, the time per thread at its top). */
#define MODEL_GEOMETRY_FLAT_L2 16.0

/* The threads sweep's time at x threads on curve c, its time per thread
 * at its top past that. */
static double along(const model_curve *c, double x)
{
    int clamped = 0;
    const double hi = c->p[c->n - 1].x;
    return exp(model_interp(c->p, c->n, fmin(log(x), hi), &clamped)) * (log(x) > hi ? x / exp(hi) : 1);
}

static double threads_sweep_ratio(const model_inputs *in, int width, double threads, double top)
{
    model_probe_query q = model_probe_aligned(PROBE_THREADS, width, PROBE_ANY);
    q.words = D3Q19_Q;
    model_curve c = model_b2b_curve_of(in, &q, NULL);
    const double ratio = c.n ? along(&c, threads) / along(&c, top) : threads / top;
    free(c.p);
    return ratio;
}

/* µs of the probe with L, M (and the payload) at `threads`, -1 where not
 * measured there or past its largest count short of DRAM; *ops: the
 * payload's operations per thread. */
static double probe_us(const model_inputs *in, model_probe_query q, int payload, double threads, int *ops,
                       model_provenance *prov)
{
    q.payload = payload;
    q.words = D3Q19_Q;
    model_curve c = model_b2b_curve_of(in, &q, ops);
    double us = model_b2b_inside_us(&c, threads);
    if (us < 0 && c.n && log(threads) > c.p[c.n - 1].x && in->l2_bytes > 0) {
        const double top = exp(c.p[c.n - 1].x);
        const double l2s = top * q.word_bytes * D3Q19_Q * (q.layout == PROBE_LAYOUT_IN_PLACE ? 1 : 2) / in->l2_bytes;
        if (l2s >= MODEL_GEOMETRY_FLAT_L2) {
            us = exp(c.p[c.n - 1].y) * threads_sweep_ratio(in, q.word_bytes, threads, top);
            model_clamped(prov, "threads past the geometry sweep's largest count at this launch (%.0f, %.0f L2s): "
                                "carried along the threads sweep",
                          top, l2s);
        }
    }
    free(c.p);
    return us;
}

/* The sweep measured L and M of 0 or 10, in place L = M only. */
static int measured_lm(const model_probe_query *q, int L, int M)
{
    return (!L || L == D3Q19_X_MOVING) && (!M || M == D3Q19_X_MOVING) && (q->layout != PROBE_LAYOUT_IN_PLACE || L == M);
}

/* The kernel's launch as the sweep measures it, laid out as its lattices
 * are, into *q and *threads; 0 where the path does not answer: N = 19,
 * block size and blocks per SM known, every launched thread working (the
 * probe's all do: not a launch with idle ones). */
static int measured_launch(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                           model_probe_query *q, double *threads)
{
    if (k->words_read != D3Q19_Q || k->words_written != D3Q19_Q || lat->block_size <= 0 || lat->blocks_per_cu < 1 ||
        model_working_share(k, lat) < 1)
        return 0;
    *q = launch_query(k, lat);
    q->layout = layout_of(in, k, lat);
    *threads = model_launched_threads(k, lat);
    return 1;
}

/* Phase p's launch in µs; -1 where the sweep did not measure it.  A
 * kernel whose misaligned words move one per cell (vector.c; by_word > 0,
 * read from the kernel's backend's own vector sweep): the aligned probe at
 * its launch times that factor for the phase's L and M, as the geometry
 * sweep's misaligned probes shift whole vectors. */
static double phase_us(const model_inputs *in, const model_kernel *k, model_probe_query q, int p, double threads,
                       double by_word, model_provenance *prov)
{
    const int L = k->misaligned_reads[p], M = k->misaligned_writes[p];
    if (!measured_lm(&q, L, M)) return -1;
    q.misaligned_reads = by_word > 0 ? 0 : L;
    q.misaligned_writes = by_word > 0 ? 0 : M;
    const double f = by_word > 0 ? by_word : 1;
    int ops = 0;
    const double t = probe_us(in, q, 0, threads, NULL, prov) * f;
    if (t <= 0) return -1;
    if (k->ops_per_cell <= 0) return t;
    const double tp = probe_us(in, q, 1, threads, &ops, prov) * f;
    if (tp <= 0 || ops <= 0) return -1;
    return t + fmax(tp - t, 0) * k->ops_per_cell * model_cells_per_thread(k) / ops;
}

double model_geometry_probe_us(const model_inputs *in, const model_kernel *k, const model_lattice *lat, int L, int M)
{
    model_probe_query q;
    double threads;
    if (!measured_launch(in, k, lat, &q, &threads) || !measured_lm(&q, L, M)) return -1;
    q.misaligned_reads = L;
    q.misaligned_writes = M;
    const double us = probe_us(in, q, 0, threads, NULL, NULL);
    return us > 0 ? us : -1;
}

/* Every phase's launch from `in`'s geometry rows, and the aligned probe
 * there (what predict prints).  Returns 1, or 0 where not measured. */
static int phases_from(const model_inputs *in, const model_path_query *q, double *us, model_geometry_detail *d,
                       model_provenance *prov)
{
    const model_kernel *k = q->k;
    const model_lattice *lat = q->lat;
    model_probe_query launch;
    double threads;
    if (!measured_launch(in, k, lat, &launch, &threads)) return 0;
    for (int p = 0; p < k->phases; p++)
        if ((us[p] = phase_us(in, k, launch, p, threads, model_vector_ratio(q->in, k, p, lat, prov), prov)) <= 0)
            return 0;
    launch.misaligned_reads = launch.misaligned_writes = 0;
    *d = (model_geometry_detail){.threads = threads, .word_bytes = launch.word_bytes, .layout = launch.layout,
                                 .aligned_us = probe_us(in, launch, 0, threads, NULL, NULL)};
    return 1;
}

/* A backend that cannot force blocks per SM (OpenCL) has no geometry sweep
 * of its own; where occupancy_from's (the same device through CUDA)
 * measured the kernel's launch, that is the device's work, and each launch
 * takes the longer of it (times the two backends' bandwidth ratio) and this
 * backend's own launch interval, which differs from CUDA's. */
static int phases_borrowed(const model_path_query *q, double *us, model_geometry_detail *d, model_provenance *prov)
{
    const model_inputs *in = q->in;
    const model_inputs other = model_inputs_borrowed(in);
    double floor_us, beta;
    if (!in->n_borrowed || !phases_from(&other, q, us, d, prov) ||
        !model_b2b_borrowed_scale(in, d->word_bytes, q->lat->block_size, &floor_us, &beta))
        return 0;
    for (int p = 0; p < q->k->phases; p++) us[p] = fmax(floor_us, beta * us[p]);
    if (d->aligned_us > 0) d->aligned_us = fmax(floor_us, beta * d->aligned_us);
    char asked[64], got[160];
    snprintf(asked, sizeof asked, "%s's geometry sweep", in->backend);
    snprintf(got, sizeof got, "%s's geometry sweep at this launch, x %.3f, at least this backend's %.2f us launch "
             "interval", in->occupancy_from, beta, floor_us);
    model_fell_back(prov, MODEL_FALLBACK_BACKEND, asked, got, "%s forced no blocks per SM", in->backend);
    return 1;
}

void model_geometry_path(const model_path_query *q, model_prediction *out)
{
    model_path_answer *a = &out->full.answer[MODEL_FULL_GEOMETRY];
    model_geometry_detail *d = &out->full.geometry;
    double us[MODEL_MAX_PHASES];
    if (!phases_from(q->in, q, us, d, &a->prov) && !phases_borrowed(q, us, d, &a->prov)) return;
    a->applies = a->complete = 1;
    double step_us = 0;
    for (int p = 0; p < q->k->phases; p++) {
        a->memory_us[p] = q->k->launches_per_step * us[p];
        step_us += a->memory_us[p] / q->k->phases;
    }
    a->launch_bound = model_launch_bound(q->in, q->k, a->memory_us);
    a->mlups = q->lat->cells / step_us;
}
