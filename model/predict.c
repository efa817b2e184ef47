/* The model's three levels: see predict.h. */
#include "predict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(char *notes, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(char *notes, size_t len, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (strstr(notes, line)) return; /* once per prediction, not per phase */
    size_t used = strlen(notes);
    if (used + 3 >= len) return;
    snprintf(notes + used, len - used, "%s%s", used ? "; " : "", line);
}

/* ---- level 1 ------------------------------------------------------------ */

void model_roofline(const model_inputs *in, const model_kernel *k, model_prediction *out)
{
    double largest = 0, best = 0;
    for (int i = 0; i < in->n_copies; i++) largest = fmax(largest, in->copies[i].working_set);
    int dram_only = in->l2_bytes > 0;
    double threshold = dram_only ? 4 * in->l2_bytes : largest / 2;
    for (int pass = 0; pass < 2 && best <= 0; pass++) {
        for (int i = 0; i < in->n_copies; i++)
            if (in->copies[i].working_set >= threshold) best = fmax(best, in->copies[i].gbs_median);
        if (best <= 0) { /* no copy that large: fall back to the largest ones */
            dram_only = 0;
            threshold = largest / 2;
        }
    }
    const char *which = dram_only ? "best copy at working sets >= 4 x L2" : "best copy at the largest working sets (L2 size unknown or never exceeded 4x)";
    int write_allocate = in->is_cpu && in->write_allocate != 0;
    if (write_allocate) {
        /* a kernel that keeps one lattice stores into lines it has just
         * read (A-A): no write-allocate */
        out->bytes_per_update = (k->words_read + (k->lattices == 1 ? 1 : 2) * k->words_written) * k->word_bytes;
        if (in->likwid_copy_mem_gbs > 0) {
            out->roofline_gbs = in->likwid_copy_mem_gbs;
            snprintf(out->roofline_source, sizeof out->roofline_source,
                     "likwid copy_mem %.1f GB/s (bus bandwidth; CPU with write-allocate%s)",
                     out->roofline_gbs, in->write_allocate < 0 ? " assumed" : "");
        } else {
            out->roofline_gbs = 1.5 * best;
            snprintf(out->roofline_source, sizeof out->roofline_source,
                     "3/2 x %s %.1f GB/s (bus bandwidth; CPU with write-allocate%s)", which, best,
                     in->write_allocate < 0 ? " assumed" : "");
        }
    } else {
        out->bytes_per_update = (k->words_read + k->words_written) * k->word_bytes;
        out->roofline_gbs = best;
        snprintf(out->roofline_source, sizeof out->roofline_source, "%s %.1f GB/s", which, best);
    }
    out->roofline_mlups = out->bytes_per_update > 0 ? out->roofline_gbs * 1e3 / out->bytes_per_update : 0;
}

/* ---- level 2 ------------------------------------------------------------ */

/* The word size to fall back on when w was not probed (membench probes 4
 * and 8 bytes; a wider vector reads the 8-byte probes, scaled by bytes). */
static int other_word(int w) { return w == 8 ? 4 : 8; }

typedef struct {
    const model_probe_row **rows;
    int n;
} row_set;

/* Rows of one sweep (or of any sweep, s = PROBE_OTHER with any = 1) with
 * this word size and, when several block sizes were measured, one block
 * size: the kernel's when measured, else the most common. */
static row_set pick_rows(const model_inputs *in, model_probe_sweep s, int any, int word_bytes,
                         int block_size, int aligned_only)
{
    row_set r = {malloc(sizeof *r.rows * (in->n_probes + 1)), 0};
    for (int i = 0; i < in->n_probes; i++) {
        const model_probe_row *p = &in->probes[i];
        if ((!any && p->sweep != s) || p->word_bytes != word_bytes || p->ops) continue; /* payloads: compute_factor */
        if (any && (p->sweep == PROBE_THREADS || p->sweep == PROBE_GEOMETRY)) continue; /* not the base probe */
        if (aligned_only && (p->misaligned_reads || p->misaligned_writes)) continue;
        r.rows[r.n++] = p;
    }
    int keep = -1, keep_count = 0;
    for (int i = 0; i < r.n; i++) {
        int bs = r.rows[i]->block_size, c = 0;
        if (bs == block_size) { keep = bs; break; }
        for (int j = 0; j < r.n; j++) c += r.rows[j]->block_size == bs;
        if (c > keep_count) { keep = bs; keep_count = c; }
    }
    int m = 0;
    for (int i = 0; i < r.n; i++)
        if (r.rows[i]->block_size == keep) r.rows[m++] = r.rows[i];
    r.n = m;
    return r;
}

typedef struct {
    model_point *p;
    int n;
} curve;

static int by_value(const void *a, const void *b)
{
    double d = *(const double *)a - *(const double *)b;
    return (d > 0) - (d < 0);
}

/* Base time T(N) at L = M = 0: the `words` sweep, else any aligned probe. */
static curve base_curve(const model_inputs *in, int word_bytes, int block_size, double *threads,
                        double *occupancy, int *probe_block)
{
    row_set r = pick_rows(in, PROBE_WORDS, 0, word_bytes, block_size, 1);
    if (!r.n) {
        free(r.rows);
        r = pick_rows(in, PROBE_OTHER, 1, word_bytes, block_size, 1);
    }
    curve c = {malloc(sizeof *c.p * (r.n + 1)), 0};
    double *t = malloc(sizeof *t * (r.n + 1)), *o = malloc(sizeof *o * (r.n + 1));
    int no = 0;
    for (int i = 0; i < r.n; i++) {
        c.p[c.n++] = (model_point){r.rows[i]->words, r.rows[i]->ns_per_thread};
        t[i] = r.rows[i]->threads;
        if (r.rows[i]->occupancy > 0) o[no++] = r.rows[i]->occupancy;
    }
    /* median threads and occupancy of the base probes */
    qsort(t, r.n, sizeof *t, by_value);
    qsort(o, no, sizeof *o, by_value);
    *threads = r.n ? t[r.n / 2] : 0;
    *occupancy = no ? o[no / 2] : -1;
    *probe_block = r.n ? r.rows[0]->block_size : -1;
    c.n = model_points_prepare(c.p, c.n);
    free(t);
    free(o);
    free(r.rows);
    return c;
}

static const char *sweep_name(model_probe_sweep s)
{
    return s == PROBE_MISALIGNED_READS ? "misaligned_reads"
         : s == PROBE_MISALIGNED_WRITES ? "misaligned_writes" : "misaligned_both";
}

/* Does probe p belong to the misalignment curve s?  x: its misalignment
 * count.  The dedicated sweeps, and the `word_bytes` sweep's one-sided
 * points (19 words, 0/0, 10/0, 0/10 at each word size) as a second source. */
static int curve_member(const model_probe_row *p, model_probe_sweep s, int from_word_sweep, int *x)
{
    if (p->sweep != (from_word_sweep ? PROBE_WORD_BYTES : s)) return 0;
    int L = p->misaligned_reads, M = p->misaligned_writes;
    if (s == PROBE_MISALIGNED_READS && M == 0) { *x = L; return 1; }
    if (s == PROBE_MISALIGNED_WRITES && L == 0) { *x = M; return 1; }
    if (s == PROBE_MISALIGNED_BOTH && L == M) { *x = L; return 1; }
    return 0;
}

/* Extra ns per thread of `count` misaligned words from the curve s, relative
 * to the curve's own aligned point (or, without one, the base curve at the
 * curve's N).  Of several N measured, the one closest to the kernel's.
 * Returns 0, or -1 when there is no such curve with a nonzero point. */
static int curve_extra(const model_inputs *in, model_probe_sweep s, int from_word_sweep, int word_bytes,
                       int block_size, double words, int count, const curve *base, double *extra, int *clamped)
{
    row_set r = pick_rows(in, from_word_sweep ? PROBE_WORD_BYTES : s, 0, word_bytes, block_size, 0);
    int best_n = -1, x;
    for (int i = 0; i < r.n; i++)
        if (curve_member(r.rows[i], s, from_word_sweep, &x) &&
            (best_n < 0 || fabs(r.rows[i]->words - words) < fabs(best_n - words)))
            best_n = r.rows[i]->words;
    curve c = {malloc(sizeof *c.p * (r.n + 1)), 0};
    int nonzero = 0;
    for (int i = 0; i < r.n; i++)
        if (r.rows[i]->words == best_n && curve_member(r.rows[i], s, from_word_sweep, &x)) {
            c.p[c.n++] = (model_point){x, r.rows[i]->ns_per_thread};
            nonzero |= x > 0;
        }
    free(r.rows);
    c.n = model_points_prepare(c.p, c.n);
    /* A point off both its neighbours is a disturbance of the machine, not
     * of the misalignment (a shared CPU: L = 4, 10, 16 and 19 of one 4-byte
     * reads sweep at 7.2-7.6 ns a thread, every other L at 5.8-6.1) */
    model_points_median3(c.p, c.n);
    if (!nonzero) { free(c.p); return -1; }
    int ignore = 0;
    double aligned = c.p[0].x == 0 ? c.p[0].y : model_interp(base->p, base->n, best_n, &ignore);
    *extra = model_interp(c.p, c.n, count, clamped) - aligned;
    free(c.p);
    return 0;
}

/* One-sided extra (reads or writes): the dedicated sweep, else the
 * word_bytes sweep's points. */
static int one_sided_extra(const model_inputs *in, model_probe_sweep s, int word_bytes, int block_size,
                           double words, int count, const curve *base, double *extra, int *clamped)
{
    *extra = 0;
    if (!count) return 0;
    return curve_extra(in, s, 0, word_bytes, block_size, words, count, base, extra, clamped) &&
           curve_extra(in, s, 1, word_bytes, block_size, words, count, base, extra, clamped) ? -1 : 0;
}

/* membench-fit.csv slope for reads (0) or writes (1), of the N closest to
 * the kernel's. */
static int fit_slope(const model_inputs *in, int kind, int word_bytes, double words, double *slope)
{
    int found = -1;
    for (int i = 0; i < in->n_fits; i++) {
        const model_misalign_fit *f = &in->fits[i];
        if (f->misaligned != kind || f->word_bytes != word_bytes) continue;
        if (found < 0 || fabs(f->words - words) < fabs(in->fits[found].words - words)) found = i;
    }
    if (found >= 0) *slope = in->fits[found].slope_ns;
    return found >= 0 ? 0 : -1;
}

/* Largest misalignment count a sweep measured (-1 when not measured). */
static int sweep_max(const model_inputs *in, model_probe_sweep s, int word_bytes)
{
    int m = -1, x;
    for (int i = 0; i < in->n_probes; i++)
        if (in->probes[i].word_bytes == word_bytes && curve_member(&in->probes[i], s, 0, &x) && x > m) m = x;
    return m;
}

/* Extra time of L misaligned reads and M misaligned writes at one word
 * size from what was measured at it; -1 when nothing was.  Obrecht Art. B
 * §5.3: reads and writes cost separately and saturate, so measured curves
 * come first and lines (the fits) only for combinations never measured. */
static int measured_extra(const model_inputs *in, int w, int block_size, double words, int L, int M,
                          const curve *base, double *extra, int *clamped, int *interaction_known,
                          char *notes, size_t notes_len)
{
    *interaction_known = 0;
    if (L == M && !curve_extra(in, PROBE_MISALIGNED_BOTH, 0, w, block_size, words, L, base, extra, clamped)) {
        *interaction_known = 1;
        return 0;
    }
    double slope_r, slope_w;
    if (!M || !L) {
        model_probe_sweep s = M ? PROBE_MISALIGNED_WRITES : PROBE_MISALIGNED_READS;
        if (!one_sided_extra(in, s, w, block_size, words, M ? M : L, base, extra, clamped)) return 0;
        if (fit_slope(in, M ? 1 : 0, w, words, &slope_r)) return -1;
        *extra = slope_r * (M ? M : L);
        if (sweep_max(in, s, w) >= 0 && (M ? M : L) > sweep_max(in, s, w)) *clamped = 1;
        note(notes, notes_len, "%s %d at %d-byte words from the membench-fit.csv slope", sweep_name(s), M ? M : L, w);
        return 0;
    }
    if (!fit_slope(in, 0, w, words, &slope_r) && !fit_slope(in, 1, w, words, &slope_w)) {
        *extra = slope_r * L + slope_w * M;
        int max_l = sweep_max(in, PROBE_MISALIGNED_READS, w), max_m = sweep_max(in, PROBE_MISALIGNED_WRITES, w);
        if ((max_l >= 0 && L > max_l) || (max_m >= 0 && M > max_m)) *clamped = 1;
        note(notes, notes_len, "L=%d M=%d not measured together: membench-fit.csv slopes added", L, M);
        return 0;
    }
    double er, ew;
    if (!one_sided_extra(in, PROBE_MISALIGNED_READS, w, block_size, words, L, base, &er, clamped) &&
        !one_sided_extra(in, PROBE_MISALIGNED_WRITES, w, block_size, words, M, base, &ew, clamped)) {
        *extra = er + ew;
        note(notes, notes_len, "L=%d M=%d not measured together at %d-byte words: one-sided extras added", L, M, w);
        return 0;
    }
    return -1;
}

/* Extra time of L misaligned reads and M misaligned writes.  When L = M
 * was not measured at this word size but was at the other, the other's
 * ratio of (both) to (reads + writes) carries the interaction over. */
static int misalignment_extra(const model_inputs *in, int word_bytes, int block_size, double words, int L,
                              int M, const curve *base, double *extra, int *within, char *notes,
                              size_t notes_len, char *err, size_t err_len)
{
    (void)err;
    (void)err_len;
    *extra = 0;
    if (!L && !M) return 0;
    int clamped = 0, interaction, other = other_word(word_bytes);
    if (!measured_extra(in, word_bytes, block_size, words, L, M, base, extra, &clamped, &interaction, notes,
                        notes_len)) {
        if (L == M && !interaction) {
            /* the other word size's ratio: from its fits' slopes (each over
             * the whole sweep) where it has them, else its probes at L
             * against their own base curve (single points: a ratio of
             * small differences, noisy) */
            double t1, o1, both, r, w;
            int ignore = 0, known;
            int b1;
            curve ob = base_curve(in, other, block_size, &t1, &o1, &b1);
            const int fitted = !fit_slope(in, 2, other, words, &both) && !fit_slope(in, 0, other, words, &r) &&
                               !fit_slope(in, 1, other, words, &w) && both > 0 && r + w > 0;
            if (fitted ||
                (ob.n && !curve_extra(in, PROBE_MISALIGNED_BOTH, 0, other, block_size, words, L, &ob, &both, &ignore) &&
                 !measured_extra(in, other, block_size, words, L, 0, &ob, &r, &ignore, &known, notes, notes_len) &&
                 !measured_extra(in, other, block_size, words, 0, M, &ob, &w, &ignore, &known, notes, notes_len) &&
                 r + w > 0)) {
                *extra *= both / (r + w);
                note(notes, notes_len, "L=M=%d at %d-byte words: reads + writes x %.3f, the both/(reads+writes) ratio of %d-byte %s",
                     L, word_bytes, both / (r + w), other, fitted ? "fits (membench-fit.csv slopes)" : "probes");
            }
            free(ob.p);
        }
    } else {
        /* nothing at this word size: the other's extra, scaled by bytes */
        double t1, o1;
        int interaction_other;
        int b1;
            curve ob = base_curve(in, other, block_size, &t1, &o1, &b1);
        if (ob.n && !measured_extra(in, other, block_size, words, L, M, &ob, extra, &clamped, &interaction_other,
                                    notes, notes_len)) {
            *extra *= (double)word_bytes / other;
            *within = 0;
            note(notes, notes_len, "no misaligned %d-byte probes: %d-byte ones scaled by %g", word_bytes, other,
                 (double)word_bytes / other);
        } else {
            *extra = 0;
            *within = 0;
            note(notes, notes_len, "%s/membench.csv has no %s probes (nor fit): misalignment cost taken as 0", in->dir,
                 L == M ? sweep_name(PROBE_MISALIGNED_BOTH) : L ? sweep_name(PROBE_MISALIGNED_READS)
                                                            : sweep_name(PROBE_MISALIGNED_WRITES));
        }
        free(ob.p);
    }
    if (clamped) {
        *within = 0;
        note(notes, notes_len, "misalignment L=%d M=%d outside the measured sweep: clamped", L, M);
    }
    if (*extra < 0) {
        /* an access at index+1 moves the same bytes plus partial lines: a
         * cheaper misaligned probe is timing noise */
        note(notes, notes_len, "misaligned L=%d M=%d probes timed faster than aligned (%.3g ns): noise, taken as 0",
             L, M, *extra);
        *extra = 0;
    }
    return 0;
}

/* Occupancy: the probe time at the kernel's occupancy over the time at the
 * probe's own, from the `occupancy` sweep (1 when either is unknown). */
static double occupancy_fraction_factor(const model_inputs *in, int word_bytes, const model_lattice *lat,
                                        double probe_occupancy, int probe_block, int *within, char *notes,
                                        size_t notes_len);

/* Occupancy-sweep rows of one variant (L, M, with or without payload) at
 * one block size as a curve of ns/thread over occupancy (fewer than 2
 * points: empty, unless the one point is at `only_at`, an occupancy > 0:
 * where a variant fits one block per SM, that point is the kernel's
 * launch); *ops: the payload's operations. */
static curve variant_occupancy_points(const model_inputs *in, int word_bytes, int block_size, int L, int M,
                                      int payload, double only_at, int *ops);
static curve variant_occupancy_curve(const model_inputs *in, int word_bytes, int block_size, int L, int M,
                                     int payload, int *ops)
{
    return variant_occupancy_points(in, word_bytes, block_size, L, M, payload, -1, ops);
}

static curve variant_occupancy_points(const model_inputs *in, int word_bytes, int block_size, int L, int M,
                                      int payload, double only_at, int *ops)
{
    curve c = {malloc(sizeof *c.p * (in->n_probes + 1)), 0};
    for (int i = 0; i < in->n_probes; i++) {
        const model_probe_row *p = &in->probes[i];
        if (p->sweep == PROBE_OCCUPANCY && p->word_bytes == word_bytes && p->block_size == block_size &&
            p->occupancy > 0 && p->misaligned_reads == L && p->misaligned_writes == M && (p->ops > 0) == payload) {
            c.p[c.n++] = (model_point){p->occupancy, p->ns_per_thread};
            if (ops) *ops = p->ops;
        }
    }
    c.n = model_points_prepare(c.p, c.n);
    if (c.n < 2 && !(c.n == 1 && only_at > 0 && fabs(c.p[0].x - only_at) < 1e-3)) c.n = 0;
    return c;
}

static curve occupancy_curve(const model_inputs *in, int word_bytes, int block_size)
{
    return variant_occupancy_curve(in, word_bytes, block_size, 0, 0, 0, NULL);
}

/* A variant's occupancy curve over the aligned one at the kernel's
 * occupancy and block size -- where that block size was not swept, at the
 * sweep's most common one (either word size: a ratio has no unit); the
 * kernel's word size first, where its one row at the kernel's block size is
 * at the kernel's occupancy (a variant of which one block fits per SM);
 * -1 when not measured. */
static double variant_occupancy_ratio(const model_inputs *in, int word_bytes, const model_lattice *lat, int L,
                                      int M, int payload, int *ops)
{
    if (lat->occupancy <= 0 || lat->block_size <= 0) return -1;
    int common = -1, most = 0;
    for (int i = 0; i < in->n_probes; i++) {
        int c = 0, b = in->probes[i].block_size;
        if (in->probes[i].sweep != PROBE_OCCUPANCY) continue;
        for (int j = 0; j < in->n_probes; j++) c += in->probes[j].sweep == PROBE_OCCUPANCY && in->probes[j].block_size == b;
        if (c > most) { most = c; common = b; }
    }
    for (int attempt = 0; attempt < 4; attempt++) {
        int w = attempt % 2 ? other_word(word_bytes) : word_bytes, block = attempt < 2 ? lat->block_size : common;
        if (attempt >= 2 && (common < 0 || common == lat->block_size)) break;
        const double at = block == lat->block_size ? lat->occupancy : -1;
        curve v = variant_occupancy_points(in, w, block, L, M, payload, at, ops);
        /* the aligned curve: same word size, else the other one scaled by
         * the base probes' ratio (the occupancy sweep runs aligned at 4 bytes) */
        double scale = 1;
        curve a = variant_occupancy_points(in, w, block, 0, 0, 0, at, NULL);
        if (!a.n) {
            free(a.p);
            a = variant_occupancy_points(in, other_word(w), block, 0, 0, 0, at, NULL);
            double t_w = -1, t_o = -1;
            for (int i = 0; i < in->n_probes; i++) {
                const model_probe_row *p = &in->probes[i];
                if (p->sweep != PROBE_WORDS || p->words != D3Q19_Q || p->ops || p->misaligned_reads ||
                    p->misaligned_writes)
                    continue;
                if (p->word_bytes == w) t_w = p->ns_per_thread;
                if (p->word_bytes == other_word(w)) t_o = p->ns_per_thread;
            }
            scale = t_w > 0 && t_o > 0 ? t_w / t_o : -1;
        }
        double r = -1;
        if (v.n && a.n && scale > 0) {
            int ignore = 0;
            double q = fmin(fmax(lat->occupancy, fmax(v.p[0].x, a.p[0].x)), fmin(v.p[v.n - 1].x, a.p[a.n - 1].x));
            r = model_interp(v.p, v.n, q, &ignore) / (scale * model_interp(a.p, a.n, q, &ignore));
        }
        free(v.p);
        free(a.p);
        if (r > 0) return r;
    }
    return -1;
}

static double occupancy_factor(const model_inputs *in, int word_bytes, const model_lattice *lat,
                               double probe_occupancy, int probe_block, int *within, char *notes,
                               size_t notes_len)
{
    /* Where the sweep covered the kernel's own block size, read the probe
     * there (blocks per SM at that block size, as the kernel runs) and
     * compare with the base probe's own configuration. */
    if (lat->occupancy > 0 && probe_occupancy > 0) {
        /* a ratio has no unit: the other word size's sweep serves too */
        int w = word_bytes;
        curve at_kernel = occupancy_curve(in, w, lat->block_size);
        if (!at_kernel.n) {
            free(at_kernel.p);
            w = other_word(word_bytes);
            at_kernel = occupancy_curve(in, w, lat->block_size);
        }
        curve at_probe = occupancy_curve(in, w, probe_block);
        double factor = -1;
        if (at_kernel.n && at_probe.n) {
            /* Little's law: bandwidth follows the bytes in flight per SM,
             * occupancy x words x word size; read a curve of w-byte probes
             * at the occupancy that holds as many bytes in flight */
            double scale = (double)word_bytes / w;
            int clamped = 0;
            factor = model_interp(at_kernel.p, at_kernel.n, lat->occupancy * scale, &clamped) /
                     model_interp(at_probe.p, at_probe.n, probe_occupancy * scale, &clamped);
            if (clamped) {
                *within = 0;
                note(notes, notes_len, "occupancy %.3f outside the measured range at block %d: clamped",
                     lat->occupancy, lat->block_size);
            }
        }
        free(at_kernel.p);
        free(at_probe.p);
        if (factor > 0) return factor;
    }
    return occupancy_fraction_factor(in, word_bytes, lat, probe_occupancy, probe_block, within, notes, notes_len);
}

/* Fallback (the kernel's block size was not swept): the occupancy curve at
 * the probe's own block size, read at the kernel's occupancy fraction. */
static double occupancy_fraction_factor(const model_inputs *in, int word_bytes, const model_lattice *lat,
                                        double probe_occupancy, int probe_block, int *within, char *notes,
                                        size_t notes_len)
{
    row_set r = pick_rows(in, PROBE_OCCUPANCY, 0, word_bytes, probe_block, 1);
    double query = lat->occupancy;
    if (query <= 0 && lat->blocks_per_cu > 0) {
        /* blocks -> occupancy with the threads-per-block share a probe row
         * shows (occupancy / blocks), scaled to the kernel's block size */
        for (int i = 0; i < in->n_probes && query <= 0; i++) {
            const model_probe_row *p = &in->probes[i];
            if (p->occupancy > 0 && p->blocks_per_cu > 0 && p->block_size > 0)
                query = lat->blocks_per_cu * p->occupancy / p->blocks_per_cu *
                        (lat->block_size > 0 ? (double)lat->block_size / p->block_size : 1);
        }
        if (query <= 0) note(notes, notes_len, "blocks per SM given but no probe row tells the occupancy they mean");
    }
    curve c = {malloc(sizeof *c.p * (in->n_probes + 1)), 0};
    int w = word_bytes;
    for (int attempt = 0; attempt < 3 && c.n < 2; attempt++) {
        /* the kernel's block size when its occupancies were swept, else the
         * block size the blocks-per-SM sweep used (the most common), else
         * the other word size's sweep (the ratio has no unit) */
        if (attempt == 1) r = pick_rows(in, PROBE_OCCUPANCY, 0, word_bytes, probe_block, 1);
        if (attempt == 2) r = pick_rows(in, PROBE_OCCUPANCY, 0, w = other_word(word_bytes), probe_block, 1);
        c.n = 0;
        for (int i = 0; i < r.n; i++)
            if (r.rows[i]->occupancy > 0)
                c.p[c.n++] = (model_point){r.rows[i]->occupancy, r.rows[i]->ns_per_thread};
        free(r.rows);
        c.n = model_points_prepare(c.p, c.n);
    }
    double factor = 1;
    if (query > 0 && probe_occupancy > 0 && c.n >= 2) {
        int clamped = 0;
        double scale = (double)word_bytes / w; /* as many bytes in flight (see above) */
        factor = model_interp(c.p, c.n, query * scale, &clamped) /
                 model_interp(c.p, c.n, probe_occupancy * scale, &clamped);
        if (clamped) {
            *within = 0;
            note(notes, notes_len, "occupancy %.3f outside the measured %.3f..%.3f: clamped", query,
                 c.p[0].x, c.p[c.n - 1].x);
        }
    } else if (query > 0) {
        note(notes, notes_len, "no occupancy sweep (or probe occupancy unknown): the probe's occupancy assumed");
    }
    free(c.p);
    return factor;
}

int model_probe_time(const model_inputs *in, double words, int misaligned_reads,
                     int misaligned_writes, int word_bytes, const model_lattice *lat,
                     double *ns_per_thread, double *probe_threads, double *occ_factor,
                     int *within, char *notes, size_t notes_len, char *err, size_t err_len)
{
    int probe_word = word_bytes;
    double threads, probe_occupancy;
    int probe_block;
    curve base = base_curve(in, probe_word, lat->block_size, &threads, &probe_occupancy, &probe_block);
    if (!base.n) {
        /* no probe of this word size: the other one, scaled by bytes */
        free(base.p);
        probe_word = other_word(word_bytes);
        base = base_curve(in, probe_word, lat->block_size, &threads, &probe_occupancy, &probe_block);
        if (!base.n) {
            free(base.p);
            snprintf(err, err_len, "%s/membench.csv: no aligned probe (L = M = 0) for backend %s",
                     in->dir, in->backend);
            return -1;
        }
        *within = 0;
        note(notes, notes_len, "no %d-byte probes: %d-byte probes scaled by %g", word_bytes,
             probe_word, (double)word_bytes / probe_word);
    }
    int clamped = 0;
    double t = model_interp(base.p, base.n, words, &clamped);
    if (clamped) {
        *within = 0;
        note(notes, notes_len, "N=%g words outside the measured %g..%g: clamped", words, base.p[0].x,
             base.p[base.n - 1].x);
    }
    double extra;
    int r = misalignment_extra(in, probe_word, lat->block_size, words, misaligned_reads, misaligned_writes,
                               &base, &extra, within, notes, notes_len, err, err_len);
    free(base.p);
    if (r) return -1;
    *occ_factor = occupancy_factor(in, probe_word, lat, probe_occupancy, probe_block, within, notes, notes_len);
    /* the occupancy sweep of this very misalignment, where measured: its
     * cost at the kernel's block size and occupancy (a misaligned store
     * costs more the more of them are in flight).  Stores only: the sweep
     * forces occupancy with shared memory, which takes the L1 that catches
     * the second line of a misaligned load (measured: 10 misaligned loads
     * cost 1-2 % at full occupancy, 5-11 % wherever shared memory fills the
     * L1), and the kernels use none */
    double mis = !misaligned_reads && misaligned_writes && words == D3Q19_Q
                     ? variant_occupancy_ratio(in, probe_word, lat, misaligned_reads, misaligned_writes, 0, NULL) : -1;
    if (mis > 0) {
        extra = t * (fmax(mis, 1) - 1);
        note(notes, notes_len, "L=%d M=%d at the kernel's block size and occupancy: x %.3f", misaligned_reads,
             misaligned_writes, fmax(mis, 1));
    }
    *ns_per_thread = (t + extra) * *occ_factor * word_bytes / probe_word;
    *probe_threads = threads;
    return 0;
}

/* The kernel's arithmetic: the payload probe's time over the aligned one's.
 * At the kernel's block size and occupancy where the occupancy sweep ran
 * the collision payload (its excess over 1 scaled by ops / the payload's
 * ops), else the payload sweep (aligned N=19, default launch) interpolated
 * at ops, its ops = 0 point the words sweep's N=19 probe.  1 without
 * payload probes or ops. */
static double compute_factor(const model_inputs *in, double ops, int word_bytes, const model_lattice *lat,
                             int *within, char *notes, size_t notes_len)
{
    if (ops <= 0) return 1;
    int probe_ops = 0;
    double r = variant_occupancy_ratio(in, word_bytes, lat, 0, 0, 1, &probe_ops);
    if (r > 0 && probe_ops > 0) {
        double f = 1 + (fmax(r, 1) - 1) * ops / probe_ops;
        note(notes, notes_len, "arithmetic: payload probe at the kernel's block size and occupancy, x %.3f", f);
        return f;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        int w = attempt ? other_word(word_bytes) : word_bytes, block = -1;
        curve c = {malloc(sizeof *c.p * (in->n_probes + 1)), 0};
        for (int i = 0; i < in->n_probes; i++) {
            const model_probe_row *p = &in->probes[i];
            if (p->sweep == PROBE_PAYLOAD && p->word_bytes == w && p->ops > 0) {
                c.p[c.n++] = (model_point){p->ops, p->ns_per_thread};
                block = p->block_size;
            }
        }
        double t0 = -1;
        for (int i = 0; i < in->n_probes && c.n; i++) {
            const model_probe_row *p = &in->probes[i];
            if (p->sweep == PROBE_WORDS && p->word_bytes == w && p->words == D3Q19_Q && !p->ops &&
                !p->misaligned_reads && !p->misaligned_writes && p->block_size == block)
                t0 = p->ns_per_thread;
        }
        if (t0 > 0) c.p[c.n++] = (model_point){0, t0};
        c.n = model_points_prepare(c.p, c.n);
        /* more arithmetic never takes less time: a point slower than one
         * with more operations was disturbed (a shared CPU's neighbour),
         * and takes that one's time */
        for (int i = c.n - 2; i >= 0; i--)
            if (c.p[i].y > c.p[i + 1].y) {
                note(notes, notes_len, "payload sweep at %g operations slower than at %g: taken as the latter",
                     c.p[i].x, c.p[i + 1].x);
                c.p[i].y = c.p[i + 1].y;
            }
        if (t0 > 0) t0 = c.p[0].y;
        double f = -1;
        if (t0 > 0 && c.n >= 2) {
            int clamped = 0;
            f = fmax(model_interp(c.p, c.n, ops, &clamped) / t0, 1);
            if (clamped) {
                *within = 0;
                note(notes, notes_len, "%g operations per thread past the payload sweep's %g: clamped", ops,
                     c.p[c.n - 1].x);
            }
            note(notes, notes_len, "arithmetic: payload sweep (%d-byte words) at %g operations, x %.3f", w, ops, f);
        }
        free(c.p);
        if (f > 0) return f;
    }
    note(notes, notes_len, "no payload probes: the arithmetic taken as hidden under the memory traffic");
    return 1;
}

/* ---- level 3 ------------------------------------------------------------ */

/* A kernel of a row per thread on a CPU (cells_per_thread 0, lbmkernels'
 * CPU shape): its work-groups of block_size rows go to the cores in turn as
 * they free up, so a launch of few groups lasts as long as the busiest
 * core's rows take.  Returns that share over an even one; 1 elsewhere.
 * Measured with PoCL on 2 cores (7684a0bee9e7): FP64 push and pull at 32^3
 * in groups of 768 rows (768 + 256 of 1,024) ran 96-97 MLUPS, 1.5 x under
 * the probe's 153; split, in groups of 256, 148. */
static double cpu_row_imbalance(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    const double rows = (double)lat->ny * (double)lat->nz, cores = in->compute_units, bs = lat->block_size;
    if (!in->is_cpu || k->cells_per_thread > 0 || cores < 2 || bs <= 0 || rows <= 0) return 1;
    const double groups = ceil(rows / bs), short_by = groups * bs - rows; /* the last group's missing rows */
    double busiest = 0;
    for (double c = 0; c < cores && c < groups; c++) {
        /* core c: groups c, c + cores, ...; the last one to core (groups - 1) mod cores */
        double r = ceil((groups - c) / cores) * bs - (fmod(groups - 1, cores) == c ? short_by : 0);
        busiest = fmax(busiest, r);
    }
    return busiest / (rows / cores);
}

/* Fallback: working-set bandwidth (stream size sweep) and launch interval. */
static int size_sweep_path(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double words,
                           double probe_threads, model_prediction *out)
{
    double stored = lat->stored_cells > 0 ? lat->stored_cells : lat->cells;
    out->working_set = k->lattices * fmax(k->words_read, k->words_written) * k->word_bytes * stored;
    out->probe_working_set = 2 * words * k->word_bytes * probe_threads;
    int clamped = 0;
    double b_probe = model_size_bandwidth(in, out->probe_working_set, k->word_bytes, &clamped);
    double b_here = model_size_bandwidth(in, out->working_set, k->word_bytes, &clamped);
    if (b_probe > 0 && b_here > 0) {
        out->bandwidth_ratio = b_probe / b_here;
        if (clamped) {
            out->within_measured = 0;
            note(out->notes, sizeof out->notes, "working set %.3g B (or the probe's %.3g B) outside the stream size sweep: clamped",
                 out->working_set, out->probe_working_set);
        }
    } else {
        out->bandwidth_ratio = 1;
        out->full_complete = 0;
        note(out->notes, sizeof out->notes, "no stream size sweep: level 3 incomplete (no working-set effect)");
    }
    if (in->have_launch) {
        out->launch_us = k->launches_per_step * in->launch_us;
    } else {
        out->full_complete = 0;
        note(out->notes, sizeof out->notes, "no launch.csv: level 3 incomplete (no launch interval)");
    }
    /* The probe's time is per launched thread: a padded row launches
     * nx_padded threads for nx cells, and the idle ones still hold a slot
     * (fewer bytes in flight per SM), so the memory time counts stored
     * cells.  A step then costs, on the device, its memory time plus the
     * gap between two dependent kernels (the interval of launches replayed
     * from a CUDA graph, where no host stands in between; 0 where no graph
     * was measured) -- Obrecht's T = l + T_R + T_W -- but never less than
     * the interval at which the host can issue launches back to back.
     * memory + back-to-back interval is kept as a diagnostic. */
    if (in->have_gap) out->gap_us = k->launches_per_step * in->gap_us;
    else if (in->have_launch)
        note(out->notes, sizeof out->notes, "no graph launch interval: device-side gap between steps taken as 0");
    const double imbalance = cpu_row_imbalance(in, k, lat);
    if (imbalance > 1)
        note(out->notes, sizeof out->notes, "work-groups of %d rows on %g cores: the busiest core's share x %.3f",
             lat->block_size, in->compute_units, imbalance);
    double step_ns = 0, step_sum_ns = 0;
    for (int p = 0; p < k->phases; p++) {
        double memory_ns = stored * out->probe_ns_per_cell[p] * out->bandwidth_ratio * imbalance;
        double device_ns = memory_ns + out->gap_us * 1e3;
        out->memory_us[p] = memory_ns * 1e-3;
        if (out->launch_us * 1e3 > device_ns) out->launch_bound = 1;
        step_ns += fmax(device_ns, out->launch_us * 1e3) / k->phases;
        step_sum_ns += (memory_ns + out->launch_us * 1e3) / k->phases;
    }
    out->full_mlups = 1e3 * lat->cells / step_ns;
    out->full_sum_mlups = 1e3 * lat->cells / step_sum_ns;
    out->full_path = MODEL_FULL_SIZE_SWEEP;
    return 0;
}

/* A launch of `threads` in blocks of `block` as the thread count of an even
 * launch with the same load on its busiest SM: blocks go to the SMs in turn,
 * so a launch whose blocks do not fill every SM equally lasts as long as
 * one that gives every SM the busiest one's share (measured: a 32^3 lattice
 * in 43 blocks of 768 takes the probe's time at 132 x 768 threads, not at
 * 32768).  Unchanged on a CPU or where the SM count is unknown. */
static double busiest_sm_threads(const model_inputs *in, double threads, int block)
{
    if (in->is_cpu || in->compute_units <= 0 || block <= 0) return threads;
    double blocks = ceil(threads / block);
    return in->compute_units * ceil(blocks / in->compute_units) * block;
}

/* The threads sweep at one word size, as curves of log(per-launch µs) over
 * log(threads) -- log-log, so that a launch-bound stretch (constant time)
 * and a bandwidth-bound one (time proportional to threads) both interpolate
 * exactly -- one per forced blocks-per-SM count k (0: as many as fit), each
 * with the occupancy its rows reached.  Returns the count (0: not measured);
 * free each .c.p. */
typedef struct {
    curve c;
    double occupancy; /* -1 unknown */
    int k;            /* blocks per SM forced, 0 none */
    double capacity;  /* threads resident at once (blocks per SM x block x SMs), 0 unknown */
} occupancy_curve_t;
#define MAX_THREADS_CURVES 16

static int threads_curves(const model_inputs *in, int word_bytes, int block_size, occupancy_curve_t *out)
{
    row_set r = pick_rows(in, PROBE_THREADS, 0, word_bytes, block_size, 1);
    int n = 0;
    for (int i = 0; i < r.n; i++) {
        const model_probe_row *p = r.rows[i];
        if (p->words != D3Q19_Q || p->launch_us <= 0) continue;
        int g = 0;
        while (g < n && out[g].k != p->blocks_requested) g++;
        if (g == n) {
            if (n == MAX_THREADS_CURVES) continue;
            out[n++] = (occupancy_curve_t){{malloc(sizeof(model_point) * (size_t)(r.n + 1)), 0}, -1,
                                           p->blocks_requested, 0};
        }
        out[g].c.p[out[g].c.n++] = (model_point){log(busiest_sm_threads(in, p->threads, p->block_size)), log(p->launch_us)};
        if (p->occupancy > 0) out[g].occupancy = p->occupancy;
        if (p->blocks_per_cu > 0) out[g].capacity = p->blocks_per_cu * p->block_size * in->compute_units;
    }
    free(r.rows);
    for (int g = 0; g < n; g++) out[g].c.n = model_points_prepare(out[g].c.p, out[g].c.n);
    return n;
}

static void free_curves(occupancy_curve_t *c, int n)
{
    for (int g = 0; g < n; g++) free(c[g].c.p);
}

/* Any threads sweep (either word size: the other one is scaled by bytes). */
static int has_threads_sweep(const model_inputs *in, int block_size)
{
    int found = 0;
    for (int w = 4; w <= 8 && !found; w += 4) {
        occupancy_curve_t c[MAX_THREADS_CURVES];
        int n = threads_curves(in, w, block_size, c);
        found = n > 0;
        free_curves(c, n);
    }
    return found;
}

/* Per-launch µs of one curve at `threads` (log-log).  Past its largest
 * probe the time grows with the threads at the rate of that probe (the DRAM
 * plateau, when the probe's own working set was well past the L2, else
 * flagged); below its smallest (launch-bound) it stays. */
static double curve_launch_us(const model_inputs *in, const curve *c, double threads, int word_bytes,
                              model_prediction *out)
{
    double top_threads = exp(c->p[c->n - 1].x);
    if (threads > top_threads) {
        double top_bytes = 2.0 * D3Q19_Q * word_bytes * top_threads;
        if (in->l2_bytes <= 0 || top_bytes < 4 * in->l2_bytes) {
            out->within_measured = 0;
            note(out->notes, sizeof out->notes, "%.0f threads past the threads sweep's %.0f, whose working set is not"
                 " 4x the L2: extended at its rate", threads, top_threads);
        }
        return exp(c->p[c->n - 1].y) * threads / top_threads;
    }
    int clamped = 0;
    double us = exp(model_interp(c->p, c->n, log(threads), &clamped));
    if (clamped) {
        out->within_measured = 0;
        note(out->notes, sizeof out->notes, "%.0f threads below the threads sweep's %.0f: clamped", threads,
             exp(c->p[0].x));
    }
    return us;
}

/* The per-launch time at `threads`, or (same_set > 0: the kernel keeps one
 * lattice) the shorter of that and the time at the thread count whose
 * working set is the kernel's, scaled to `threads`. */
static double launch_us_for(const model_inputs *in, const curve *c, double threads, double same_set, int w,
                            model_prediction *out)
{
    double t = curve_launch_us(in, c, threads, w, out);
    if (same_set > 0 && same_set >= exp(c->p[0].x)) t = fmin(t, curve_launch_us(in, c, same_set, w, out) * threads / same_set);
    return t;
}

/* One variant (L, M, with or without payload; same arrays at every
 * launch, in place or swapped: PROBE_LAYOUT_*) of a
 * back-to-back sweep (threads or geometry) at one launch (access width w,
 * block size, blocks per SM k; 0: as many as fit), log(per-launch µs) over
 * log(threads) -- the threads sweep's at the busiest SM's load
 * (busiest_sm_threads) -- empty when not measured.  *ops: the payload's
 * operations per thread. */
static curve launch_curve(const model_inputs *in, model_probe_sweep s, int w, int block, int k, int L, int M,
                          int payload, int layout, int *ops)
{
    curve c = {malloc(sizeof *c.p * (in->n_probes + 1)), 0};
    for (int i = 0; i < in->n_probes; i++) {
        const model_probe_row *p = &in->probes[i];
        if (p->sweep == s && p->word_bytes == w && p->block_size == block && p->blocks_requested == k &&
            p->misaligned_reads == L && p->misaligned_writes == M && (p->ops > 0) == payload && p->words == D3Q19_Q &&
            p->in_place == (layout == PROBE_LAYOUT_IN_PLACE) && p->swapped == (layout == PROBE_LAYOUT_SWAPPED) &&
            p->launch_us > 0) {
            double t = s == PROBE_THREADS ? busiest_sm_threads(in, p->threads, p->block_size) : p->threads;
            c.p[c.n++] = (model_point){log(t), log(p->launch_us)};
            if (ops) *ops = p->ops;
        }
    }
    c.n = model_points_prepare(c.p, c.n);
    return c;
}

/* A variant of the threads sweep at the default launch (as many blocks as
 * fit, block size `block`); empty with fewer than two points. */
static curve variant_threads_curve(const model_inputs *in, int w, int block, int L, int M, int payload, int *ops)
{
    curve c = launch_curve(in, PROBE_THREADS, w, block, 0, L, M, payload, PROBE_LAYOUT_SAME, ops);
    if (c.n < 2) c.n = 0;
    return c;
}

/* How much more a variant costs at `threads` than where the working set is
 * in DRAM: (variant / aligned at threads) / (the same at the largest count
 * both measured), each ratio at least 1 (below is noise); the excess over 1
 * scaled by `scale`.  1 when either curve is missing. */
static double l2_ratio(const model_inputs *in, int w, int block, double threads, int L, int M, int payload,
                       double ops)
{
    int probe_ops = 0;
    curve v = variant_threads_curve(in, w, block, L, M, payload, &probe_ops);
    curve a = variant_threads_curve(in, w, block, 0, 0, 0, NULL);
    double f = 1;
    if (v.n && a.n) {
        double lo = fmax(v.p[0].x, a.p[0].x), hi = fmin(v.p[v.n - 1].x, a.p[a.n - 1].x);
        double scale = payload ? (probe_ops > 0 ? ops / probe_ops : 0) : 1;
        int ignore = 0;
        double x = fmin(fmax(log(threads), lo), hi);
        double here = exp(model_interp(v.p, v.n, x, &ignore) - model_interp(a.p, a.n, x, &ignore));
        double top = exp(model_interp(v.p, v.n, hi, &ignore) - model_interp(a.p, a.n, hi, &ignore));
        here = 1 + (fmax(here, 1) - 1) * scale;
        top = 1 + (fmax(top, 1) - 1) * scale;
        f = here / top;
    }
    free(v.p);
    free(a.p);
    return f;
}

/* Curve g at `threads`.  Where every thread of the launch is resident at
 * once on curve g, forcing fewer blocks per SM changes nothing that runs:
 * all curves that hold the launch measured the same configuration, and the
 * fastest of them is the one least disturbed (a slower device state only
 * adds time; measured: whole curves shifted by 1 us at the launch floor). */
static double resident_launch_us(const model_inputs *in, const occupancy_curve_t *cs, int nc, int g, double threads,
                                 double same_set, int w, model_prediction *out)
{
    double t = launch_us_for(in, &cs[g].c, threads, same_set, w, out);
    if (cs[g].capacity <= 0 || threads > cs[g].capacity) return t;
    for (int h = 0; h < nc; h++)
        if (h != g && cs[h].capacity >= threads) t = fmin(t, launch_us_for(in, &cs[h].c, threads, same_set, w, out));
    return t;
}

/* Per-launch µs at `threads` from the aligned threads curves: between the
 * two curves either side of the kernel's occupancy where there are several
 * with known occupancy (*two_d = 1), else the full-occupancy curve (k = 0;
 * else the highest).  Sorts cs. */
static double curves_launch_us(const model_inputs *in, occupancy_curve_t *cs, int nc, const model_lattice *lat,
                               double threads, double same_set, int w, model_prediction *out, int *two_d)
{
    for (int i = 1; i < nc; i++)
        for (int j = i; j > 0 && cs[j].occupancy < cs[j - 1].occupancy; j--) {
            occupancy_curve_t t = cs[j];
            cs[j] = cs[j - 1];
            cs[j - 1] = t;
        }
    int first = 0;
    while (first < nc && cs[first].occupancy <= 0) first++;
    *two_d = nc - first >= 2 && lat->occupancy > 0;
    if (!*two_d) {
        int g = nc - 1;
        for (int i = 0; i < nc; i++)
            if (cs[i].k == 0) g = i;
        out->b2b_occupancy = cs[g].occupancy;
        return resident_launch_us(in, cs, nc, g, threads, same_set, w, out);
    }
    int hi = first;
    while (hi < nc - 1 && cs[hi].occupancy < lat->occupancy) hi++;
    int lo = hi > first && cs[hi].occupancy >= lat->occupancy ? hi - 1 : hi;
    double t_lo = resident_launch_us(in, cs, nc, lo, threads, same_set, w, out);
    double t_hi = resident_launch_us(in, cs, nc, hi, threads, same_set, w, out);
    if (lat->occupancy < cs[first].occupancy - 1e-9 || lat->occupancy > cs[nc - 1].occupancy + 1e-9) {
        out->within_measured = 0;
        note(out->notes, sizeof out->notes, "occupancy %.3f outside the threads sweep's %.3f..%.3f: clamped",
             lat->occupancy, cs[first].occupancy, cs[nc - 1].occupancy);
    }
    /* linear in 1 / occupancy: where latency bounds a launch, its time
     * follows the bytes in flight (Little's law), so the inverse */
    double f = cs[hi].occupancy > cs[lo].occupancy
                   ? (1 / lat->occupancy - 1 / cs[lo].occupancy) / (1 / cs[hi].occupancy - 1 / cs[lo].occupancy) : 0;
    f = fmin(fmax(f, 0), 1);
    out->b2b_occupancy = lat->occupancy;
    return t_lo + f * (t_hi - t_lo);
}

/* Occupancy sweep at the kernel's block size over at the threads sweep's,
 * at the kernel's occupancy; -1 when either curve is missing. */
static double block_ratio(const model_inputs *in, int w, int kernel_block, int sweep_block, double occupancy)
{
    double f = -1;
    curve at_kernel = occupancy_curve(in, w, kernel_block), at_sweep = occupancy_curve(in, w, sweep_block);
    if (at_kernel.n && at_sweep.n) {
        int ignore = 0;
        f = model_interp(at_kernel.p, at_kernel.n, occupancy, &ignore) /
            model_interp(at_sweep.p, at_sweep.n, occupancy, &ignore);
    }
    free(at_kernel.p);
    free(at_sweep.p);
    return f;
}

/* Default path when membench.csv has a threads sweep: see predict.h.
 *
 * A kernel with v cells per thread runs cells / v threads of v x word-byte
 * accesses: it is read from the probes of that access width.  Memory time
 * follows the cells updated, not the threads launched: the threads of row
 * padding move nothing (measured: a 200^3 fp32 lattice, rows padded by 12 %,
 * runs 4-5 % below 192^3, not 12 %).
 *
 * With threads curves at several occupancies (CUDA), the per-launch time is
 * read at the kernel's thread count on the curves either side of its
 * occupancy and interpolated linearly between them: an L2-resident lattice
 * needs many more bytes in flight than a DRAM-bound one, so the
 * occupancy's effect there is not the DRAM-regime ratio.  The kernel factor
 * is then the level-2 probe time over the base probe's (N=19, aligned) at
 * the kernel's own occupancy and block size -- misalignment and N alone --
 * times the block-size factor at that occupancy (occupancy sweep at the
 * kernel's block size over the threads sweep's block size).
 *
 * With one curve (as many blocks as fit; OpenCL): step = K x T_b2b(threads)
 * x kernel_factor, kernel_factor = (level-2 probe ns/thread of this kernel)
 * / (level-2 base probe ns/thread at N=19, same access width and block
 * size, no misalignment, the probe's occupancy): misalignment, occupancy
 * and, for a kernel with N != 19 words, T(N)/T(19).
 *
 * Those ratios are measured with many threads (bandwidth-bound): at small,
 * latency- or launch-bound sizes they overstate the effect, so they
 * stretch only the time above the back-to-back launch interval.  K > 1
 * launches per step: K full launches at the lattice's thread count, an
 * upper bound when the launches split the work.  The per-launch time already
 * holds the back-to-back launch interval and the gap between steps, so no
 * launch term is added. */
static int threads_sweep_path(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                              model_prediction *out, char *err, size_t err_len)
{
    const int v = k->cells_per_thread > 1 ? k->cells_per_thread : 1;
    const int access = k->word_bytes * v;
    int w = access;
    occupancy_curve_t cs[MAX_THREADS_CURVES];
    int nc = threads_curves(in, w, lat->block_size, cs);
    if (!nc) {
        w = other_word(access);
        nc = threads_curves(in, w, lat->block_size, cs);
    }
    if (!nc) { /* has_threads_sweep said there is one */
        snprintf(err, err_len, "internal: threads sweep vanished");
        return -1;
    }
    /* One wave (all blocks resident at once, or blocks per SM unknown): the
     * thread count of an even launch with the load of the kernel's busiest
     * SM.  More waves: the kernel's own thread count (so its own working
     * set: L2 or DRAM), the part above the launch interval times the
     * busiest SM's share of blocks over an even one, as SMs that finish
     * take the next block (a 48^3 FP64 lattice in 144 blocks of 768, one per
     * SM, took 11 us; the probe at 2 x 132 x 768 threads takes 22, its
     * working set past the L2).  Where membench-geometry.csv measured the
     * kernel's own launch, geometry_path answers instead. */
    double threads = lat->cells / v, imbalance = 1;
    if (lat->blocks_per_cu > 0 && lat->block_size > 0 &&
        ceil(threads / lat->block_size) > lat->blocks_per_cu * in->compute_units)
        imbalance = busiest_sm_threads(in, threads, lat->block_size) / threads;
    else
        threads = busiest_sm_threads(in, threads, lat->block_size);
    const double rows_imbalance = cpu_row_imbalance(in, k, lat);
    if (rows_imbalance > 1) {
        imbalance = rows_imbalance;
        note(out->notes, sizeof out->notes, "work-groups of %d rows on %g cores: the busiest core's share x %.3f",
             lat->block_size, in->compute_units, rows_imbalance);
    }
    /* A kernel that keeps fewer lattices than the probe's two (A-A) has a
     * smaller working set: where that lets it stay in the L2 while the
     * probe at the same thread count spills, the probe with the kernel's
     * working set, scaled to its thread count, is the shorter time (and
     * where launches bound it, the probe at its own thread count is) */
    const double same_set = k->lattices < 2 ? threads * k->lattices / 2 : 0;
    int sweep_block = -1, two_d = 0;
    for (int i = 0; i < in->n_probes && sweep_block < 0; i++)
        if (in->probes[i].sweep == PROBE_THREADS && in->probes[i].word_bytes == w) sweep_block = in->probes[i].block_size;
    double per_launch_us = curves_launch_us(in, cs, nc, lat, threads, same_set, w, out, &two_d);
    if (imbalance > 1) {
        double fl = in->have_launch ? fmin(in->launch_us, per_launch_us) : 0;
        per_launch_us = fl + (per_launch_us - fl) * imbalance;
    }
    model_lattice base_lat = {.block_size = lat->block_size};
    double block_factor = 1;
    if (two_d) {
        /* the base probe at the kernel's occupancy: the factor keeps
         * misalignment (and N) only, times the block-size factor (the
         * payload rows' where the curves carry the payload) */
        base_lat = *lat;
        if (sweep_block > 0 && sweep_block != lat->block_size) {
            double f = block_ratio(in, w, lat->block_size, sweep_block, lat->occupancy);
            if (f > 0) block_factor = f;
        }
    }
    if (w != access) {
        per_launch_us *= (double)access / w;
        out->within_measured = 0;
        note(out->notes, sizeof out->notes, "no %d-byte threads sweep: the %d-byte one scaled by %g", access, w,
             (double)access / w);
    }
    /* the base probe at N=19, aligned, same access width */
    double base_ns, ignore_threads, ignore_factor;
    int ignore_within = 1;
    char ignore_notes[1200] = "";
    if (model_probe_time(in, D3Q19_Q, 0, 0, access, &base_lat, &base_ns, &ignore_threads, &ignore_factor,
                         &ignore_within, ignore_notes, sizeof ignore_notes, err, err_len)) {
        free_curves(cs, nc);
        return -1;
    }
    out->full_path = MODEL_FULL_THREADS_SWEEP;
    out->b2b_threads = threads;
    out->b2b_us = per_launch_us;
    out->b2b_word_bytes = w;
    out->b2b_points = 0;
    for (int i = 0; i < nc; i++) out->b2b_points += cs[i].c.n;
    out->b2b_curves = nc;
    out->block_factor = block_factor;
    out->base19_ns = base_ns;
    out->launch_bound = 0;
    double step_us = 0;
    for (int p = 0; p < k->phases; p++) {
        int L = k->misaligned_reads[p], M = k->misaligned_writes[p];
        /* the payload's ratio at the kernel's access width (see compute_factor) */
        out->l2_factor[p] = (L || M ? l2_ratio(in, w, sweep_block, threads, L, M, 0, 0) : 1) *
                            l2_ratio(in, access, sweep_block, threads, 0, 0, 1, k->ops_per_cell * v);
        out->kernel_factor[p] = out->probe_ns_per_cell[p] * v / base_ns * block_factor * out->l2_factor[p];
        /* the host's launch interval is paid whatever the kernel does: its
         * factors stretch only the time above it */
        double floor_us = in->have_launch ? fmin(in->launch_us, per_launch_us) : 0;
        out->memory_us[p] = k->launches_per_step * (floor_us + (per_launch_us - floor_us) * out->kernel_factor[p]);
        if (in->have_launch && out->launch_us >= 0.9 * out->memory_us[p]) out->launch_bound = 1;
        step_us += out->memory_us[p] / k->phases;
    }
    out->full_mlups = lat->cells / step_us;
    free_curves(cs, nc);
    return 0;
}

/* ---- level 3, geometry path ---------------------------------------------- */

/* µs at `threads` on a geometry curve, -1 outside its thread counts (the
 * path does not apply: the threads-sweep path answers). */
static double geometry_us(const curve *c, double threads)
{
    if (!c->n) return -1;
    int clamped = 0;
    double y = model_interp(c->p, c->n, log(threads), &clamped);
    return clamped ? -1 : exp(y);
}

/* Where membench-geometry.csv holds the kernel's launch (same access width,
 * block size and blocks per SM -- known, so CUDA; thread counts around
 * cells / v): per phase,
 * the probe with the phase's L and M at the lattice's thread count, plus
 * the collision payload's excess over it scaled by the kernel's operations
 * per thread (per cell x v: a thread of v cells computes v collisions) over
 * the payload's per thread (counted, not weighed: the 8-byte probe of a
 * float kernel with v = 2 computes in double; at these sizes the
 * arithmetic's latency, one operation after another, is what shows).  The wave count, the blocks per SM
 * and what misalignment and arithmetic cost at that working set are then
 * measured, not modelled.  A kernel keeping one lattice (A-A): the in-place
 * probe (its phases have L = M), whose working set is that lattice's and
 * whose stores go to the lines its loads brought in, as the kernel's do.
 * Two lattices: the swapped probe where membench measured it at this
 * launch, which like a time loop reads at each launch what the one before
 * wrote (at the L2's edge the lines it reads may still be there, dirty);
 * else (older data) the probe that reads and writes the same arrays at
 * every launch.
 * Returns 1 when it answered, 0 when it does not apply (N != 19, other L
 * or M, not measured there). */
static int geometry_phases(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                           double *phase_us, double *aligned_out, int *layout_out)
{
    const int v = k->cells_per_thread > 1 ? k->cells_per_thread : 1, w = k->word_bytes * v;
    const int blocks = (int)lat->blocks_per_cu, in_place = k->lattices < 2;
    int layout = in_place ? PROBE_LAYOUT_IN_PLACE : PROBE_LAYOUT_SAME;
    for (int i = 0; i < in->n_probes && layout == PROBE_LAYOUT_SAME; i++) {
        const model_probe_row *p = &in->probes[i];
        if (p->sweep == PROBE_GEOMETRY && p->swapped && p->word_bytes == w && p->block_size == lat->block_size &&
            p->blocks_requested == blocks)
            layout = PROBE_LAYOUT_SWAPPED;
    }
    if (k->words_read != D3Q19_Q || k->words_written != D3Q19_Q || lat->block_size <= 0 || blocks < 1) return 0;
    const double threads = lat->cells / v;
    for (int p = 0; p < k->phases; p++) {
        int L = k->misaligned_reads[p], M = k->misaligned_writes[p], ops = 0;
        if ((L && L != D3Q19_X_MOVING) || (M && M != D3Q19_X_MOVING)) return 0; /* what the sweep measured */
        if (in_place && L != M) return 0;
        curve plain = launch_curve(in, PROBE_GEOMETRY, w, lat->block_size, blocks, L, M, 0, layout, NULL);
        curve pay = launch_curve(in, PROBE_GEOMETRY, w, lat->block_size, blocks, L, M, 1, layout, &ops);
        double t = geometry_us(&plain, threads), tp = geometry_us(&pay, threads);
        free(plain.p);
        free(pay.p);
        if (t <= 0) return 0;
        double excess = 0;
        if (k->ops_per_cell > 0) {
            if (tp <= 0 || ops <= 0) return 0;
            excess = fmax(tp - t, 0) * k->ops_per_cell * v / ops;
        }
        phase_us[p] = t + excess;
    }
    curve aligned = launch_curve(in, PROBE_GEOMETRY, w, lat->block_size, blocks, 0, 0, 0, layout, NULL);
    *aligned_out = geometry_us(&aligned, threads); /* what is printed: the plain probe there */
    free(aligned.p);
    *layout_out = layout;
    return 1;
}

/* occupancy_from's threads and geometry sweeps, as a view of `in` */
static model_inputs borrowed_view(const model_inputs *in)
{
    model_inputs other = *in;
    other.probes = in->borrowed;
    other.n_probes = in->n_borrowed;
    return other;
}

/* How this backend's launches relate to occupancy_from's on the same
 * device, at access width w: *floor_us, the shortest launch of its own
 * threads sweep (the host's interval back to back: a launch lasts the
 * longer of that and the device's work), and *beta, its time over the
 * other's at the largest probe, at its own occupancy (the device's work
 * alone: bandwidth, not launches).  0 when either sweep is missing. */
static int borrowed_scale(const model_inputs *in, int w, int block, double *floor_us, double *beta)
{
    occupancy_curve_t own[MAX_THREADS_CURVES], cs[MAX_THREADS_CURVES];
    model_inputs other = borrowed_view(in);
    int n_own = threads_curves(in, w, block, own), nc = threads_curves(&other, w, block, cs), ok = 0;
    if (n_own && nc) {
        int g = n_own - 1;
        for (int i = 0; i < n_own; i++)
            if (own[i].k == 0) g = i;
        const curve *c = &own[g].c;
        *floor_us = exp(c->p[0].y);
        for (int i = 1; i < c->n; i++) *floor_us = fmin(*floor_us, exp(c->p[i].y));
        model_lattice at_own = {.block_size = block, .occupancy = own[g].occupancy};
        model_prediction scratch = {0};
        int two_d = 0;
        double top = exp(c->p[c->n - 1].x);
        *beta = exp(c->p[c->n - 1].y) / curves_launch_us(&other, cs, nc, &at_own, top, 0, w, &scratch, &two_d);
        ok = *beta > 0;
    }
    free_curves(own, n_own);
    free_curves(cs, nc);
    return ok;
}

/* The geometry path (see geometry_phases).  A backend that cannot force
 * blocks per SM (OpenCL) has no geometry sweep of its own; where
 * occupancy_from's (the same device through CUDA) measured the kernel's
 * launch -- block size, the blocks per SM its registers allow, thread
 * count -- that is the device's work, and each launch takes the longer of
 * it (times the two backends' bandwidth ratio) and this backend's launch
 * interval (measured, H200 at 9635326b920c: FP32 pull at 32^3 took 4.26 us
 * a step through OpenCL, 3.37 through CUDA; the threads sweep's shortest
 * launch 4.1 and 3.0 us). */
static int geometry_path(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                         model_prediction *out)
{
    const int v = k->cells_per_thread > 1 ? k->cells_per_thread : 1, w = k->word_bytes * v;
    double phase_us[MODEL_MAX_PHASES], aligned_us;
    int layout;
    const double threads = lat->cells / v;
    if (!geometry_phases(in, k, lat, phase_us, &aligned_us, &layout)) {
        model_inputs other = borrowed_view(in);
        double floor_us, beta;
        if (!in->n_borrowed || !geometry_phases(&other, k, lat, phase_us, &aligned_us, &layout) ||
            !borrowed_scale(in, w, lat->block_size, &floor_us, &beta))
            return 0;
        for (int p = 0; p < k->phases; p++) phase_us[p] = fmax(floor_us, beta * phase_us[p]);
        if (aligned_us > 0) aligned_us = fmax(floor_us, beta * aligned_us);
        note(out->notes, sizeof out->notes, "%s's geometry sweep at this launch, x %.3f, at least this backend's"
             " %.2f us launch interval", in->occupancy_from, beta, floor_us);
    }
    out->full_path = MODEL_FULL_GEOMETRY;
    out->geometry_layout = layout;
    out->b2b_threads = threads;
    out->b2b_word_bytes = w;
    out->b2b_us = aligned_us;
    out->threads_sweep_mlups = out->full_mlups;
    double step_us = 0;
    for (int p = 0; p < k->phases; p++) {
        out->memory_us[p] = k->launches_per_step * phase_us[p];
        step_us += out->memory_us[p] / k->phases;
    }
    out->full_mlups = lat->cells / step_us;
    return 1;
}

/* ---- all levels --------------------------------------------------------- */

int model_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                  model_prediction *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->within_measured = 1;
    out->full_complete = 1;
    model_roofline(in, k, out);

    /* level 2: a probe moves N words each way; a kernel that reads and
     * writes different counts is matched by its mean (same bytes).  v cells
     * per thread: the probe of v x word-byte accesses, per thread / v */
    double words = (k->words_read + k->words_written) / 2, probe_threads = 0, mean_probe_ns = 0;
    const int v = k->cells_per_thread > 1 ? k->cells_per_thread : 1;
    for (int p = 0; p < k->phases; p++) {
        if (model_probe_time(in, words, k->misaligned_reads[p], k->misaligned_writes[p], k->word_bytes * v,
                             lat, &out->probe_ns_per_cell[p], &probe_threads, &out->occupancy_factor,
                             &out->within_measured, out->notes, sizeof out->notes, err, err_len))
            return -1;
        out->probe_ns_per_cell[p] /= v;
    }
    /* the payload probe of the kernel's access width, its operations per
     * thread (v cells' collisions) over the payload's, as the geometry path
     * reads it: a thread of v cells keeps v x 19 words in flight, and the
     * time its arithmetic adds shows against that (H100 at 9635326b920c,
     * FP32 split, 2 cells per thread, one block of 384 per SM at 256^3:
     * 879 us a step; the 8-byte probe at that launch 875, its double
     * payload x 1.000; the 4-byte payload's x 1.034 had made it -5.4 %) */
    out->compute_factor = compute_factor(in, k->ops_per_cell * v, k->word_bytes * v, lat, &out->within_measured,
                                         out->notes, sizeof out->notes);
    /* the probe writes to other arrays than it reads, so on a CPU with
     * write-allocate its time holds the write-allocate; a kernel that keeps
     * one lattice (A-A) stores into lines it has just read and saves it:
     * by the share likwid measured for a copy */
    out->in_place_factor = 1;
    if (in->is_cpu && in->write_allocate != 0 && k->lattices == 1) {
        if (in->likwid_copy_gbs > 0 && in->likwid_copy_mem_gbs > in->likwid_copy_gbs)
            out->in_place_factor = in->likwid_copy_mem_gbs / in->likwid_copy_gbs;
        else
            note(out->notes, sizeof out->notes,
                 "in place on a CPU with write-allocate, but no likwid copy and copy_mem to size the saving: none "
                 "assumed");
    }
    for (int p = 0; p < k->phases; p++) {
        out->probe_ns_per_cell[p] *= out->compute_factor / out->in_place_factor;
        mean_probe_ns += out->probe_ns_per_cell[p] / k->phases;
    }
    out->probe_mlups = 1e3 / mean_probe_ns; /* cells per ns x 1e3 = MLUPS */

    /* level 3: the size-sweep path always (the answer without a threads
     * sweep, a diagnostic with one), the threads-sweep path where measured */
    if (!has_threads_sweep(in, lat->block_size)) {
        if (size_sweep_path(in, k, lat, words, probe_threads, out)) return -1;
        note(out->notes, sizeof out->notes,
             "level 3 from the stream size sweep and launch interval (membench.csv has no threads sweep)");
        return 0;
    }
    model_prediction fallback = *out;
    if (size_sweep_path(in, k, lat, words, probe_threads, &fallback)) return -1;
    out->size_sweep_mlups = fallback.full_mlups;
    out->full_sum_mlups = fallback.full_sum_mlups;
    out->working_set = fallback.working_set;
    out->probe_working_set = fallback.probe_working_set;
    out->bandwidth_ratio = fallback.bandwidth_ratio;
    out->launch_us = fallback.launch_us;
    out->gap_us = fallback.gap_us;
    if (threads_sweep_path(in, k, lat, out, err, err_len)) return -1;
    geometry_path(in, k, lat, out);
    return 0;
}
