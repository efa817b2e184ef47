/* Level 2: the kernel's occupancy and block size, read on membench's
 * occupancy sweep (blocks per SM forced).  Little's law: bandwidth follows
 * the bytes in flight per SM, occupancy x words x word size, so another
 * word size's curve is read at the occupancy that holds as many bytes in
 * flight. */
#include "levels.h"

#include <math.h>
#include <stdio.h>

/* The aligned occupancy curve at one block size (two points at least). */
static model_probe_lookup aligned_occupancy(int word_bytes, int block_size, unsigned fallbacks)
{
    model_probe_lookup l = {.x = PROBE_X_OCCUPANCY, .fallbacks = fallbacks, .word_use = PROBE_WORD_IN_FLIGHT,
                            .min_points = 2};
    l.q = model_probe_aligned(PROBE_OCCUPANCY, word_bytes, block_size);
    return l;
}

/* The time on curve a at x over the time on curve b at y; *clamped_x and
 * *clamped_y say which of the two lay outside its curve. */
static double time_ratio(const model_curve *a, double x, const model_curve *b, double y, int *clamped_x,
                         int *clamped_y)
{
    return model_interp(a->p, a->n, x, clamped_x) / model_interp(b->p, b->n, y, clamped_y);
}

/* The note for an occupancy read outside the sweep it was read on: whose
 * occupancy it is (the kernel's or the base probe's), the value in the
 * curve's words where they differ, and that sweep's word size, block size
 * and range, so the range printed is the one the value missed. */
static void note_outside(model_provenance *prov, const char *whose, double occupancy, double scale,
                         const model_probe_curve *c)
{
    const model_curve *k = &c->curve;
    char scaled[64] = "";
    if (scale != 1)
        snprintf(scaled, sizeof scaled, " (%.3f in %d-byte words)", occupancy * scale, c->read.word_bytes);
    model_clamped(prov, "%s occupancy %.3f%s outside the %d-byte block-%d occupancy sweep's %.3f..%.3f: clamped",
                  whose, occupancy, scaled, c->read.word_bytes, c->read.block_size, k->p[0].x, k->p[k->n - 1].x);
}

/* What an occupancy of `asked`-byte words reads on a curve of `read`-byte
 * words: as many bytes in flight. */
static double in_flight(int asked, int read)
{
    return (double)asked / read;
}

/* The kernel's block size was swept: its curve at the kernel's occupancy
 * over the base probe's block size's curve at the probe's occupancy;
 * -1 where either curve is missing. */
static double at_kernel_block(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                              model_provenance *prov)
{
    const int w = base->found.read.word_bytes;
    model_probe_lookup lk = aligned_occupancy(w, lat->block_size, PROBE_OR_OTHER_WORD), lp;
    model_probe_curve k, p;
    if (!model_probe_find(in, &lk, &k, NULL)) return -1;
    lp = aligned_occupancy(k.read.word_bytes, base->block_size, 0);
    double factor = -1;
    if (model_probe_find(in, &lp, &p, NULL)) {
        int kernel_out = 0, probe_out = 0;
        const double s = in_flight(w, k.read.word_bytes);
        factor = time_ratio(&k.curve, lat->occupancy * s, &p.curve, base->occupancy * s, &kernel_out, &probe_out);
        model_probe_record(&lk, &k, prov);
        if (kernel_out) note_outside(prov, "the kernel's", lat->occupancy, s, &k);
        if (probe_out) note_outside(prov, "the base probe's", base->occupancy, s, &p);
        model_probe_curve_free(&p);
    }
    model_probe_curve_free(&k);
    return factor;
}

/* The occupancy blocks per SM mean, from the share of an SM a probe row's
 * block took (occupancy / blocks), scaled to the kernel's block size. */
static double occupancy_of_blocks(const model_inputs *in, const model_lattice *lat, model_provenance *prov)
{
    for (int i = 0; i < in->n_probes; i++) {
        const model_probe_row *p = &in->probes[i];
        if (p->occupancy > 0 && p->blocks_per_cu > 0 && p->block_size > 0)
            return lat->blocks_per_cu * p->occupancy / p->blocks_per_cu *
                   (lat->block_size > 0 ? (double)lat->block_size / p->block_size : 1);
    }
    model_note(prov, "blocks per SM given but no probe row tells the occupancy they mean");
    return 0;
}

/* The kernel's block size not swept: the curve at the base probe's block
 * size, read at the kernel's occupancy. */
static double at_probe_block(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                             model_provenance *prov)
{
    double occupancy = lat->occupancy;
    if (occupancy <= 0 && lat->blocks_per_cu > 0) occupancy = occupancy_of_blocks(in, lat, prov);
    const int w = base->found.read.word_bytes;
    model_probe_lookup l = aligned_occupancy(w, base->block_size, PROBE_OR_COMMON_BLOCK | PROBE_OR_OTHER_WORD);
    model_probe_curve c;
    const int found = model_probe_find(in, &l, &c, NULL);
    double factor = 1;
    if (occupancy > 0 && base->occupancy > 0 && found) {
        int kernel_out = 0, probe_out = 0;
        const double s = in_flight(w, c.read.word_bytes);
        factor = time_ratio(&c.curve, occupancy * s, &c.curve, base->occupancy * s, &kernel_out, &probe_out);
        model_probe_record(&l, &c, prov);
        if (kernel_out) note_outside(prov, "the kernel's", occupancy, s, &c);
        if (probe_out) note_outside(prov, "the base probe's", base->occupancy, s, &c);
    } else if (occupancy > 0) {
        model_note(prov, "no occupancy sweep (or probe occupancy unknown): the probe's occupancy assumed");
    }
    if (found) model_probe_curve_free(&c);
    return factor;
}

double model_occupancy_factor(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                              model_provenance *prov)
{
    if (lat->occupancy > 0 && base->occupancy > 0) {
        const double f = at_kernel_block(in, base, lat, prov);
        if (f > 0) return f;
    }
    return at_probe_block(in, base, lat, prov);
}

/* The variant's curve and the aligned one at the same launch are read at
 * the kernel's launch where measured, and, where one block fits per SM at
 * the kernel's block size, from the one row there that is the kernel's
 * occupancy; else at the sweep's most common block size. */
double model_variant_ratio(const model_inputs *in, const model_variant *v, const model_lattice *lat, int *ops,
                           model_provenance *prov)
{
    if (lat->occupancy <= 0 || lat->block_size <= 0) return -1;
    model_probe_lookup l = {.x = PROBE_X_OCCUPANCY, .word_use = PROBE_WORD_RATIO, .min_points = 2,
                            .single_point_at = lat->occupancy, .with_aligned = 1,
                            .fallbacks = PROBE_THEN_COMMON_BLOCK | PROBE_OR_OTHER_WORD};
    l.q = model_probe_aligned(PROBE_OCCUPANCY, v->word_bytes, lat->block_size);
    l.q.misaligned_reads = v->misaligned_reads;
    l.q.misaligned_writes = v->misaligned_writes;
    l.q.payload = v->payload;
    model_probe_curve c;
    if (!model_probe_find(in, &l, &c, prov)) return -1;
    const model_curve *m = &c.curve, *a = &c.aligned;
    const double q = fmin(fmax(lat->occupancy, fmax(m->p[0].x, a->p[0].x)), fmin(m->p[m->n - 1].x, a->p[a->n - 1].x));
    int ignore = 0;
    const double r = model_interp(m->p, m->n, q, &ignore) / (c.aligned_scale * model_interp(a->p, a->n, q, &ignore));
    if (ops) *ops = c.rows[c.n_rows - 1]->ops;
    model_probe_curve_free(&c);
    return r;
}
