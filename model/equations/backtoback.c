/* Probes launched back to back: see backtoback.h. */
#include "backtoback.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "launch.h"

/* The curve of blocks-per-SM count k in set, added when new (NULL when
 * the set is full). */
static model_b2b_curve *curve_for(model_b2b_set *set, int k, int max_points)
{
    for (int g = 0; g < set->n; g++)
        if (set->c[g].blocks_requested == k) return &set->c[g];
    if (set->n == MODEL_MAX_B2B_CURVES) return NULL;
    model_b2b_curve *c = &set->c[set->n++];
    *c = (model_b2b_curve){{malloc(sizeof(model_point) * (size_t)(max_points + 1)), 0}, -1, k, 0};
    return c;
}

/* The curves that lookup l finds, into *set: 1, or 0 where none. */
static int b2b_read(const model_inputs *in, const model_probe_lookup *l, model_b2b_set *set, model_provenance *prov)
{
    memset(set, 0, sizeof *set);
    model_probe_curve found;
    if (!model_probe_find(in, l, &found, prov)) return 0;
    set->word_bytes = found.read.word_bytes;
    set->block_size = found.read.block_size;
    for (int i = 0; i < found.n_rows; i++) {
        const model_probe_row *p = found.rows[i];
        model_b2b_curve *c = p->launch_us > 0 ? curve_for(set, p->blocks_requested, found.n_rows) : NULL;
        if (!c) continue;
        c->c.p[c->c.n++] = (model_point){log(model_busiest_sm_threads(in, p->threads, p->block_size)), log(p->launch_us)};
        if (p->occupancy > 0) c->occupancy = p->occupancy;
        if (p->blocks_per_cu > 0) c->capacity = p->blocks_per_cu * p->block_size * in->compute_units;
    }
    for (int g = 0; g < set->n; g++) set->points += set->c[g].c.n = model_points_prepare(set->c[g].c.p, set->c[g].c.n);
    model_probe_curve_free(&found);
    return 1;
}

int model_b2b_threads(const model_inputs *in, int word_bytes, int block_size, unsigned fallbacks,
                      model_b2b_set *set, model_provenance *prov)
{
    model_probe_lookup l = {.x = PROBE_X_LAUNCH, .word_use = PROBE_WORD_SCALED,
                            .fallbacks = PROBE_OR_COMMON_BLOCK | fallbacks};
    l.q = model_probe_aligned(PROBE_THREADS, word_bytes, block_size);
    l.q.words = D3Q19_Q;
    return b2b_read(in, &l, set, prov);
}

int model_b2b_rows(const model_inputs *in, int word_bytes, int block_size, int in_place, model_b2b_set *set,
                   model_provenance *prov)
{
    model_probe_lookup l = {.x = PROBE_X_LAUNCH, .word_use = PROBE_WORD_SCALED, .fallbacks = PROBE_OR_COMMON_BLOCK};
    l.q = model_probe_aligned(PROBE_ROWS, word_bytes, block_size);
    l.q.words = D3Q19_Q;
    l.q.layout = in_place ? PROBE_LAYOUT_IN_PLACE : PROBE_LAYOUT_SAME;
    return b2b_read(in, &l, set, prov);
}

void model_b2b_free(model_b2b_set *set)
{
    for (int g = 0; g < set->n; g++) free(set->c[g].c.p);
    set->n = 0;
}

/* Per-launch µs of one curve at `threads`.  Past its largest probe the time
 * grows with the threads at the rate of that probe (the DRAM plateau, when
 * the probe's own working set was well past the L2, else flagged); below
 * its smallest (launch-bound) it stays. */
static double curve_us(const model_inputs *in, const model_curve *c, double threads, int word_bytes,
                       model_provenance *prov)
{
    const double top_threads = exp(c->p[c->n - 1].x);
    if (threads > top_threads) {
        const double top_bytes = 2.0 * D3Q19_Q * word_bytes * top_threads;
        if (in->l2_bytes <= 0 || top_bytes < 4 * in->l2_bytes)
            model_clamped(prov, "%.0f threads past the threads sweep's %.0f, whose working set is not 4x the L2: "
                                "extended at its rate", threads, top_threads);
        return exp(c->p[c->n - 1].y) * threads / top_threads;
    }
    int clamped = 0;
    const double us = exp(model_interp(c->p, c->n, log(threads), &clamped));
    if (clamped) model_clamped(prov, "%.0f threads below the threads sweep's %.0f: clamped", threads, exp(c->p[0].x));
    return us;
}

typedef struct {
    const model_inputs *in;
    double threads, same_set;
    int word_bytes;
    model_provenance *prov;
} b2b_reading;

/* The per-launch time at the reading's thread count, or (a kernel keeping
 * fewer lattices) the shorter of that and the time at the thread count of
 * the kernel's working set, scaled to its thread count. */
static double launch_us_on(const b2b_reading *r, const model_curve *c)
{
    double t = curve_us(r->in, c, r->threads, r->word_bytes, r->prov);
    if (r->same_set > 0 && r->same_set >= exp(c->p[0].x))
        t = fmin(t, curve_us(r->in, c, r->same_set, r->word_bytes, r->prov) * r->threads / r->same_set);
    return t;
}

/* Curve g.  Where every thread of the launch is resident at once on curve
 * g, forcing fewer blocks per SM changes nothing that runs: all curves that
 * hold the launch measured the same configuration, and the fastest of them
 * is the one least disturbed (a slower device state only adds time). */
static double resident_us(const b2b_reading *r, const model_b2b_set *set, int g)
{
    double t = launch_us_on(r, &set->c[g].c);
    if (set->c[g].capacity <= 0 || r->threads > set->c[g].capacity) return t;
    for (int h = 0; h < set->n; h++)
        if (h != g && set->c[h].capacity >= r->threads) t = fmin(t, launch_us_on(r, &set->c[h].c));
    return t;
}

static void sort_by_occupancy(model_b2b_set *set)
{
    for (int i = 1; i < set->n; i++)
        for (int j = i; j > 0 && set->c[j].occupancy < set->c[j - 1].occupancy; j--) {
            model_b2b_curve t = set->c[j];
            set->c[j] = set->c[j - 1];
            set->c[j - 1] = t;
        }
}

/* The full-occupancy curve (as many blocks as fit), else the highest. */
static int full_curve(const model_b2b_set *set)
{
    int g = set->n - 1;
    for (int i = 0; i < set->n; i++)
        if (set->c[i].blocks_requested == 0) g = i;
    return g;
}

model_b2b_time model_b2b_launch_us(const model_inputs *in, model_b2b_set *set, double occupancy, double threads,
                                   double same_set, model_provenance *prov)
{
    const b2b_reading r = {in, threads, same_set, set->word_bytes, prov};
    sort_by_occupancy(set);
    int first = 0;
    while (first < set->n && set->c[first].occupancy <= 0) first++;
    model_b2b_time out = {.two_d = set->n - first >= 2 && occupancy > 0};
    if (!out.two_d) {
        const int g = full_curve(set);
        out.occupancy = set->c[g].occupancy;
        out.us = resident_us(&r, set, g);
        return out;
    }
    const model_b2b_curve *c = set->c;
    int hi = first;
    while (hi < set->n - 1 && c[hi].occupancy < occupancy) hi++;
    const int lo = hi > first && c[hi].occupancy >= occupancy ? hi - 1 : hi;
    const double t_lo = resident_us(&r, set, lo), t_hi = resident_us(&r, set, hi);
    if (occupancy < c[first].occupancy - 1e-9 || occupancy > c[set->n - 1].occupancy + 1e-9)
        model_clamped(prov, "occupancy %.3f outside the threads sweep's %.3f..%.3f: clamped", occupancy,
                      c[first].occupancy, c[set->n - 1].occupancy);
    /* linear in 1 / occupancy: where latency bounds a launch, its time
     * follows the bytes in flight (Little's law), so the inverse */
    double f = c[hi].occupancy > c[lo].occupancy
                   ? (1 / occupancy - 1 / c[lo].occupancy) / (1 / c[hi].occupancy - 1 / c[lo].occupancy) : 0;
    f = fmin(fmax(f, 0), 1);
    out.occupancy = occupancy;
    out.us = t_lo + f * (t_hi - t_lo);
    return out;
}

int model_b2b_borrowed_scale(const model_inputs *in, int word_bytes, int block_size, double *floor_us, double *beta)
{
    const model_inputs other = model_inputs_borrowed(in);
    model_b2b_set own, theirs;
    const int have_own = model_b2b_threads(in, word_bytes, block_size, 0, &own, NULL);
    const int have_theirs = model_b2b_threads(&other, word_bytes, block_size, 0, &theirs, NULL);
    int ok = 0;
    if (have_own && have_theirs && own.n && theirs.n) {
        const model_b2b_curve *g = &own.c[full_curve(&own)];
        const model_curve *c = &g->c;
        *floor_us = exp(c->p[0].y);
        for (int i = 1; i < c->n; i++) *floor_us = fmin(*floor_us, exp(c->p[i].y));
        const double top = exp(c->p[c->n - 1].x);
        *beta = exp(c->p[c->n - 1].y) / model_b2b_launch_us(&other, &theirs, g->occupancy, top, 0, NULL).us;
        ok = *beta > 0;
    }
    if (have_own) model_b2b_free(&own);
    if (have_theirs) model_b2b_free(&theirs);
    return ok;
}

model_curve model_b2b_curve_of(const model_inputs *in, const model_probe_query *q, int *ops)
{
    model_probe_lookup l = {.q = *q, .x = PROBE_X_LAUNCH};
    model_probe_curve found;
    if (!model_probe_find(in, &l, &found, NULL)) return (model_curve){NULL, 0};
    if (ops) *ops = found.rows[found.n_rows - 1]->ops;
    model_curve c = found.curve;
    found.curve.p = NULL;
    model_probe_curve_free(&found);
    return c;
}

double model_b2b_inside_us(const model_curve *c, double threads)
{
    if (!c->n) return -1;
    int clamped = 0;
    const double y = model_interp(c->p, c->n, log(threads), &clamped);
    return clamped ? -1 : exp(y);
}
