/* Level 2: the kernel's arithmetic, as the payload probes time it: the
 * N=19 probe with a collision's worth of operations per thread over the
 * same probe without. */
#include "levels.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More arithmetic never takes less time: a point slower than one with more
 * operations was disturbed (a shared CPU's neighbour), and takes that
 * one's time. */
static void make_monotone(model_curve *c, model_provenance *prov)
{
    for (int i = c->n - 2; i >= 0; i--)
        if (c->p[i].y > c->p[i + 1].y) {
            model_note(prov, "payload sweep at %g operations slower than at %g: taken as the latter", c->p[i].x,
                       c->p[i + 1].x);
            c->p[i].y = c->p[i + 1].y;
        }
}

/* The payload sweep (aligned N=19, default launch) interpolated at ops, its
 * ops = 0 point the words sweep's N=19 probe; -1 where not measured. */
static double payload_sweep_factor(const model_inputs *in, double ops, int word_bytes, model_provenance *prov)
{
    model_probe_lookup l = {.x = PROBE_X_OPS, .with_aligned = 1, .word_use = PROBE_WORD_RATIO,
                            .fallbacks = PROBE_OR_COMMON_BLOCK | PROBE_OR_OTHER_WORD};
    l.q = model_probe_aligned(PROBE_PAYLOAD, word_bytes, PROBE_ANY);
    l.q.payload = 1;
    model_probe_curve found;
    if (!model_probe_find(in, &l, &found, prov)) return -1;
    model_curve c = {malloc(sizeof *c.p * (size_t)(found.curve.n + found.aligned.n)), 0};
    memcpy(c.p, found.curve.p, sizeof *c.p * (size_t)found.curve.n);
    memcpy(c.p + found.curve.n, found.aligned.p, sizeof *c.p * (size_t)found.aligned.n);
    c.n = model_points_prepare(c.p, found.curve.n + found.aligned.n);
    make_monotone(&c, prov);
    int clamped = 0;
    const double f = fmax(model_interp(c.p, c.n, ops, &clamped) / c.p[0].y, 1);
    if (clamped)
        model_clamped(prov, "%g operations per thread past the payload sweep's %g: clamped", ops, c.p[c.n - 1].x);
    model_note(prov, "arithmetic: payload sweep (%d-byte words) at %g operations, x %.3f", found.read.word_bytes, ops, f);
    free(c.p);
    model_probe_curve_free(&found);
    return f;
}

double model_compute_factor(const model_inputs *in, double ops, int word_bytes, const model_lattice *lat,
                            model_provenance *prov)
{
    if (ops <= 0 || !model_correction_on(MODEL_CORR_COMPUTE)) return 1;
    /* at the kernel's block size and occupancy where the occupancy sweep ran
     * the collision's payload there: its excess over 1, scaled by the
     * kernel's operations over the payload's */
    int probe_ops = 0;
    const model_variant payload = {.word_bytes = word_bytes, .payload = 1};
    const double r = model_variant_ratio(in, &payload, lat, &probe_ops, prov);
    if (r > 0 && probe_ops > 0) {
        const double f = 1 + (fmax(r, 1) - 1) * ops / probe_ops;
        model_note(prov, "arithmetic: payload probe at the kernel's block size and occupancy, x %.3f", f);
        return f;
    }
    const double f = payload_sweep_factor(in, ops, word_bytes, prov);
    if (f > 0) return f;
    model_note(prov, "no payload probes: the arithmetic taken as hidden under the memory traffic");
    return 1;
}
