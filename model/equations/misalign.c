/* Level 2: what L misaligned reads and M misaligned writes add to the probe
 * time.  Obrecht Art. B §5.3: reads and writes cost separately and
 * saturate, so measured curves come first, and lines (membench-fit.csv
 * slopes) only for combinations never measured. */
#include "levels.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One word size's readings: the kernel's launch and N, the base probe T(N)
 * of that word size. */
typedef struct {
    const model_inputs *in;
    int block_size;
    double words;
    int word_bytes;
    const model_curve *base;
    model_provenance *prov;
} reading;

typedef struct {
    double ns;   /* extra ns per thread */
    int clamped; /* a count past what was measured */
    int past;    /* ... read on past the sweep along its fitted line */
} extra_t;

static const char *sweep_label(model_probe_sweep s)
{
    return model_probe_sweep_name(s);
}

static int fit_slope(const reading *r, int kind, double *slope);

/* Past the sweep's largest count (a 39-word kernel whose words all
 * straddle, on sweeps to 27): the extra at that count plus the sweep's
 * fitted slope (membench-fit.csv, the N nearest the kernel's) per word
 * beyond it, as Obrecht's time is linear in the misaligned count; without
 * a fit, the extra stays at the largest count. */
static void extend_past_sweep(const reading *r, model_probe_sweep s, const model_curve *m, int count, extra_t *out)
{
    const double top = m->p[m->n - 1].x;
    double slope;
    const int kind = s == PROBE_MISALIGNED_READS ? 0 : s == PROBE_MISALIGNED_WRITES ? 1 : 2;
    if (count <= top || fit_slope(r, kind, &slope) || slope <= 0) return;
    out->ns += slope * (count - top);
    out->past = 1;
}

/* Extra ns per thread of `count` misaligned words on the curve of sweep s
 * (one-sided: else the word_bytes sweep's points), over the curve's own
 * aligned point (without one, the base curve at the curve's N).  Of several
 * N, the one nearest the kernel's.  Returns 0, or -1 when not measured. */
static int curve_extra(const reading *r, model_probe_sweep s, int count, extra_t *out)
{
    model_probe_lookup l = {.x = PROBE_X_MISALIGNED, .near_words = r->words, .fallbacks = PROBE_OR_COMMON_BLOCK};
    l.q = model_probe_aligned(s, r->word_bytes, r->block_size);
    l.q.words = PROBE_ANY;
    if (s == PROBE_MISALIGNED_READS) l.q.misaligned_reads = PROBE_ANY;
    else if (s == PROBE_MISALIGNED_WRITES) l.q.misaligned_writes = PROBE_ANY;
    else l.q.misaligned_reads = PROBE_ANY, l.q.misaligned_writes = PROBE_AS_READS;
    if (s != PROBE_MISALIGNED_BOTH) l.fallbacks |= PROBE_OR_STAND_IN_SWEEP;
    model_probe_curve c;
    if (!model_probe_find(r->in, &l, &c, r->prov)) return -1;
    const model_curve *m = &c.curve;
    int ignore = 0;
    double aligned = m->p[0].x == 0 ? m->p[0].y : model_interp(r->base->p, r->base->n, c.read.words, &ignore);
    out->ns = model_interp(m->p, m->n, count, &out->clamped) - aligned;
    extend_past_sweep(r, s, m, count, out);
    model_probe_curve_free(&c);
    return 0;
}

static int one_sided_extra(const reading *r, model_probe_sweep s, int count, extra_t *out)
{
    out->ns = 0;
    return count ? curve_extra(r, s, count, out) : 0;
}

/* membench-fit.csv slope of reads (0), writes (1) or both (2), of the N
 * nearest the kernel's.  Returns 0, or -1 when not fitted. */
static int fit_slope(const reading *r, int kind, double *slope)
{
    const model_inputs *in = r->in;
    int found = -1;
    for (int i = 0; i < in->n_fits; i++) {
        const model_misalign_fit *f = &in->fits[i];
        if (f->misaligned != kind || f->word_bytes != r->word_bytes) continue;
        if (found < 0 || fabs(f->words - r->words) < fabs(in->fits[found].words - r->words)) found = i;
    }
    if (found >= 0) *slope = in->fits[found].slope_ns;
    return found >= 0 ? 0 : -1;
}

/* Largest misalignment count a one-sided sweep measured (-1: none). */
static int sweep_max(const reading *r, model_probe_sweep s)
{
    model_probe_query q = model_probe_aligned(s, r->word_bytes, PROBE_ANY);
    q.payload = PROBE_ANY;
    if (s == PROBE_MISALIGNED_READS) q.misaligned_reads = PROBE_ANY;
    else q.misaligned_writes = PROBE_ANY;
    int m = -1;
    for (int i = 0; i < r->in->n_probes; i++) {
        const model_probe_row *p = &r->in->probes[i];
        int x = s == PROBE_MISALIGNED_READS ? p->misaligned_reads : p->misaligned_writes;
        if (model_probe_matches(p, &q) && x > m) m = x;
    }
    return m;
}

/* One side never measured at this word size: its fitted line. */
static int one_sided_from_fit(const reading *r, model_probe_sweep s, int count, extra_t *out)
{
    double slope;
    if (fit_slope(r, s == PROBE_MISALIGNED_WRITES ? 1 : 0, &slope)) return -1;
    out->ns = slope * count;
    const int max = sweep_max(r, s);
    if (max >= 0 && count > max) out->clamped = 1;
    char asked[96];
    snprintf(asked, sizeof asked, "%s %d at %d-byte words", sweep_label(s), count, r->word_bytes);
    model_fell_back(r->prov, MODEL_FALLBACK_SWEEP, asked, "the membench-fit.csv slope", "not measured");
    return 0;
}

/* Both sides, never measured together: the fitted lines added, else the
 * one-sided extras added. */
static int two_sided_extra(const reading *r, int L, int M, extra_t *out)
{
    char asked[96];
    snprintf(asked, sizeof asked, "L=%d M=%d at %d-byte words", L, M, r->word_bytes);
    double slope_r, slope_w;
    if (!fit_slope(r, 0, &slope_r) && !fit_slope(r, 1, &slope_w)) {
        out->ns = slope_r * L + slope_w * M;
        const int max_l = sweep_max(r, PROBE_MISALIGNED_READS), max_m = sweep_max(r, PROBE_MISALIGNED_WRITES);
        if ((max_l >= 0 && L > max_l) || (max_m >= 0 && M > max_m)) out->clamped = 1;
        model_fell_back(r->prov, MODEL_FALLBACK_SWEEP, asked, "membench-fit.csv slopes added",
                        "not measured together");
        return 0;
    }
    extra_t er = {0}, ew = {0};
    if (one_sided_extra(r, PROBE_MISALIGNED_READS, L, &er) || one_sided_extra(r, PROBE_MISALIGNED_WRITES, M, &ew))
        return -1;
    out->ns = er.ns + ew.ns;
    out->clamped |= er.clamped | ew.clamped;
    out->past |= er.past | ew.past;
    model_fell_back(r->prov, MODEL_FALLBACK_SWEEP, asked, "one-sided extras added", "not measured together");
    return 0;
}

/* From what was measured at this word size; -1 when nothing was.
 * *both_measured: L = M read on the both sweep itself. */
static int measured_extra(const reading *r, int L, int M, extra_t *out, int *both_measured)
{
    *both_measured = 0;
    if (L == M && !curve_extra(r, PROBE_MISALIGNED_BOTH, L, out)) {
        *both_measured = 1;
        return 0;
    }
    if (L && M) return two_sided_extra(r, L, M, out);
    const model_probe_sweep s = M ? PROBE_MISALIGNED_WRITES : PROBE_MISALIGNED_READS;
    if (!one_sided_extra(r, s, M ? M : L, out)) return 0;
    return one_sided_from_fit(r, s, M ? M : L, out);
}

/* L = M where only reads and writes apart were measured at this word size:
 * the other word size's interaction, both / (reads + writes), from its
 * fits' slopes (each over a whole sweep) where it has them, else from its
 * probes at L against their own base curve (single points: noisy). */
static void carry_interaction(const reading *r, int other, int L, int M, double *extra)
{
    model_base_probe ob;
    const int have_base = model_base_probe_find(r->in, other, r->block_size, 0, &ob, NULL);
    reading o = *r;
    o.word_bytes = other;
    o.base = have_base ? &ob.found.curve : NULL;
    double both, rd, wr;
    extra_t e_both = {0}, e_r = {0}, e_w = {0};
    int known;
    const int fitted = !fit_slope(&o, 2, &both) && !fit_slope(&o, 0, &rd) && !fit_slope(&o, 1, &wr) && both > 0 &&
                       rd + wr > 0;
    if (!fitted && have_base && !curve_extra(&o, PROBE_MISALIGNED_BOTH, L, &e_both) &&
        !measured_extra(&o, L, 0, &e_r, &known) && !measured_extra(&o, 0, M, &e_w, &known)) {
        both = e_both.ns;
        rd = e_r.ns;
        wr = e_w.ns;
    } else if (!fitted) {
        rd = wr = 0;
    }
    if (rd + wr > 0) {
        char asked[96], got[160];
        snprintf(asked, sizeof asked, "L=M=%d at %d-byte words", L, r->word_bytes);
        snprintf(got, sizeof got, "reads + writes x %.3f, the both/(reads+writes) ratio of %d-byte %s",
                 both / (rd + wr), other, fitted ? "fits (membench-fit.csv slopes)" : "probes");
        model_fell_back(r->prov, MODEL_FALLBACK_WORD, asked, got, "not measured together at %d-byte words",
                        r->word_bytes);
        *extra *= both / (rd + wr);
    }
    if (have_base) model_probe_curve_free(&ob.found);
}

/* Nothing measured at this word size: another's, scaled by bytes. */
static int other_word_extra(const reading *r, int other, int L, int M, extra_t *out)
{
    model_base_probe ob;
    if (other <= 0 || !model_base_probe_find(r->in, other, r->block_size, 0, &ob, NULL)) return -1;
    reading o = *r;
    o.word_bytes = other;
    o.base = &ob.found.curve;
    int known;
    const int ok = !measured_extra(&o, L, M, out, &known);
    model_probe_curve_free(&ob.found);
    if (!ok) return -1;
    const double scale = (double)r->word_bytes / other;
    out->ns *= scale;
    char asked[64], got[96];
    snprintf(asked, sizeof asked, "misaligned %d-byte probes", r->word_bytes);
    snprintf(got, sizeof got, "%d-byte ones scaled by %g", other, scale);
    model_fell_back(r->prov, MODEL_FALLBACK_WORD, asked, got, "no misaligned %d-byte probes", r->word_bytes);
    return 0;
}

static const char *missing_sweep(int L, int M)
{
    return sweep_label(L == M ? PROBE_MISALIGNED_BOTH : L ? PROBE_MISALIGNED_READS : PROBE_MISALIGNED_WRITES);
}

double model_misalignment_extra(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                                const model_probe_shape *shape, model_provenance *prov)
{
    const int L = shape->misaligned_reads, M = shape->misaligned_writes;
    if (!L && !M) return 0;
    const reading r = {in, lat->block_size, shape->words, base->found.read.word_bytes, &base->found.curve, prov};
    const int other = model_other_word(in, r.word_bytes);
    extra_t e = {0};
    int both_measured;
    if (!measured_extra(&r, L, M, &e, &both_measured)) {
        if (L == M && !both_measured && other > 0) carry_interaction(&r, other, L, M, &e.ns);
    } else if (!other_word_extra(&r, other, L, M, &e)) {
        prov->within_measured = 0;
    } else {
        e.ns = 0;
        prov->within_measured = 0;
        model_note(prov, "%s/membench.csv has no %s probes (nor fit): misalignment cost taken as 0", in->dir,
                   missing_sweep(L, M));
    }
    if (e.past)
        model_clamped(prov, "misalignment L=%d M=%d past the measured sweep: read on along its membench-fit.csv "
                            "slope, not clamped", L, M);
    else if (e.clamped)
        model_clamped(prov, "misalignment L=%d M=%d outside the measured sweep: clamped", L, M);
    if (e.ns < 0) {
        /* an access at index+1 moves the same bytes plus partial lines: a
         * cheaper misaligned probe is timing noise */
        model_note(prov, "misaligned L=%d M=%d probes timed faster than aligned (%.3g ns): noise, taken as 0", L, M,
                   e.ns);
        e.ns = 0;
    }
    return e.ns;
}

double model_misaligned_count_ratio(const model_inputs *in, int word_bytes, int block_size, int writes, int count,
                                    int at)
{
    model_base_probe b;
    if (!model_correction_on(MODEL_CORR_MISALIGNED_COUNT)) return -1;
    if (!model_base_probe_find(in, word_bytes, block_size, 0, &b, NULL)) return -1;
    const reading r = {in, block_size, D3Q19_Q, word_bytes, &b.found.curve, NULL};
    const model_probe_sweep s = writes == 2 ? PROBE_MISALIGNED_BOTH : writes ? PROBE_MISALIGNED_WRITES
                                                                              : PROBE_MISALIGNED_READS;
    extra_t here = {0}, there = {0};
    const int ok = !curve_extra(&r, s, count, &here) && !curve_extra(&r, s, at, &there);
    model_probe_curve_free(&b.found);
    return ok && there.ns > 0 ? fmax(here.ns, 0) / there.ns : -1;
}
