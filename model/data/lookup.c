/* Probe curves and their fallbacks: see lookup.h. */
#include "lookup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel.h"
#include "launch.h"

model_probe_query model_probe_aligned(model_probe_sweep sweep, int word_bytes, int block_size)
{
    return (model_probe_query){.sweep = sweep, .word_bytes = word_bytes, .block_size = block_size,
                               .blocks_requested = PROBE_ANY, .misaligned_reads = 0, .misaligned_writes = 0,
                               .payload = 0, .layout = PROBE_LAYOUT_SAME, .words = PROBE_ANY};
}

static int field_matches(int want, int have)
{
    return want == PROBE_ANY || want == have;
}

/* BX, 32 (a warp's whole row) where 0 or not set. */
static int band_of(int band)
{
    return band > 0 ? band : 32;
}

int model_probe_matches(const model_probe_row *p, const model_probe_query *q)
{
    if (q->sweep == PROBE_ANY_SWEEP ? p->sweep == PROBE_THREADS || p->sweep == PROBE_GEOMETRY ||
                                          p->sweep == PROBE_NARROW || p->sweep == PROBE_TILE
                                    : p->sweep != q->sweep)
        return 0;
    if (band_of(p->band) != band_of(q->band)) return 0; /* narrow probes answer only for their BX */
    if (memcmp(p->tile, q->tile, sizeof p->tile)) return 0; /* tile probes only for their block shape */
    if (q->misaligned_writes == PROBE_AS_READS ? p->misaligned_writes != p->misaligned_reads
                                               : !field_matches(q->misaligned_writes, p->misaligned_writes))
        return 0;
    if ((p->vector > 1 ? p->vector : 1) != (q->vector > 1 ? q->vector : 1)) return 0;
    if ((p->row > 1) != (q->sweep == PROBE_ROWS)) return 0; /* row probes answer only for the rows sweep */
    if (!p->nontemporal != !q->nontemporal) return 0; /* non-temporal probes only where asked */
    if (!p->folded != !q->folded) return 0; /* folded payloads only where asked */
    return p->word_bytes == q->word_bytes && field_matches(q->block_size, p->block_size) &&
           field_matches(q->blocks_requested, p->blocks_requested) &&
           field_matches(q->misaligned_reads, p->misaligned_reads) && field_matches(q->payload, p->ops > 0) &&
           field_matches(q->words, p->words) && p->in_place == (q->layout == PROBE_LAYOUT_IN_PLACE) &&
           p->swapped == (q->layout == PROBE_LAYOUT_SWAPPED);
}

/* ---- the rows a query can match ------------------------------------------ */

static long long rows_visited; /* see model_probe_rows_visited */

long long model_probe_rows_visited(void) { return rows_visited; }

static int ascending(const void *a, const void *b)
{
    const int i = *(const int *)a, j = *(const int *)b;
    return (i > j) - (i < j);
}

/* The indices of the rows of in->probes of this sweep (PROBE_ANY_SWEEP:
 * every sweep but threads, geometry, narrow and tile; PROBE_ANY: every sweep) and word
 * size (PROBE_ANY: every size), in file order, from the index (every row
 * where in has none): *out, to free; returns how many, -1 out of memory. */
static int candidates(const model_inputs *in, int sweep, int word_bytes, int **out)
{
    int *idx = malloc(sizeof *idx * (size_t)(in->n_probes + 1)), n = 0;
    *out = idx;
    if (!idx) return -1;
    const model_probe_index *ix = &in->probe_index;
    if (!ix->order) {
        for (int i = 0; i < in->n_probes; i++) idx[n++] = i;
        return n;
    }
    int groups = 0;
    for (int g = 0; g < ix->n_groups; g++) {
        const model_probe_group *gr = &ix->groups[g];
        const int sweep_ok = sweep == PROBE_ANY ? 1
                           : sweep == PROBE_ANY_SWEEP ? gr->sweep != PROBE_THREADS && gr->sweep != PROBE_GEOMETRY &&
                                                            gr->sweep != PROBE_NARROW && gr->sweep != PROBE_TILE
                                                      : gr->sweep == sweep;
        if (!sweep_ok || (word_bytes != PROBE_ANY && gr->word_bytes != word_bytes)) continue;
        memcpy(idx + n, ix->order + gr->start, sizeof *idx * (size_t)gr->n);
        n += gr->n;
        groups++;
    }
    if (groups > 1) qsort(idx, (size_t)n, sizeof *idx, ascending); /* several groups: file order again */
    return n;
}

/* Word size w is nearer to word_bytes than *best (at *best_d): equally
 * near, the wider (more bytes in flight per access). */
static void nearer_word(int w, int word_bytes, int *best, double *best_d)
{
    if (w == word_bytes || w == *best || w <= 0) return;
    const double d = fabs(log((double)w / word_bytes));
    if (*best < 0 || d < *best_d - 1e-12 || (d < *best_d + 1e-12 && w > *best)) {
        *best = w;
        *best_d = d;
    }
}

int model_other_word(const model_inputs *in, int word_bytes)
{
    int best = -1;
    double best_d = 0;
    const model_probe_index *ix = &in->probe_index;
    if (ix->order) { /* the groups' word sizes are every row's */
        for (int g = 0; g < ix->n_groups; g++) nearer_word(ix->groups[g].word_bytes, word_bytes, &best, &best_d);
        return best;
    }
    for (int k = 0; k < in->n_probes; k++, rows_visited++) nearer_word(in->probes[k].word_bytes, word_bytes, &best, &best_d);
    return best;
}

double model_probe_words19(const model_inputs *in, int word_bytes, int block_size)
{
    model_probe_query q = model_probe_aligned(PROBE_WORDS, word_bytes, block_size);
    q.words = D3Q19_Q;
    double sum = 0;
    int n = 0, *idx;
    const int rows = candidates(in, q.sweep, word_bytes, &idx);
    for (int k = 0; k < rows; k++, rows_visited++)
        if (model_probe_matches(&in->probes[idx[k]], &q)) {
            sum += in->probes[idx[k]].ns_per_thread;
            n++;
        }
    free(idx);
    return n ? sum / n : -1;
}

/* ---- one candidate -------------------------------------------------------- */

/* Counting block sizes: the distinct ones in order of first appearance,
 * few (a sweep's handful), so one pass over the rows, never a pass per
 * row (a large membench.csv made that quadratic). */
typedef struct {
    int block[64], count[64], n;
    int overflow; /* more distinct sizes than counted: counted the slow way */
} block_counts;

static void count_block(block_counts *c, int b)
{
    for (int i = 0; i < c->n; i++)
        if (c->block[i] == b) {
            c->count[i]++;
            return;
        }
    if (c->n == (int)(sizeof c->block / sizeof *c->block)) {
        c->overflow = 1;
        return;
    }
    c->block[c->n] = b;
    c->count[c->n++] = 1;
}

/* The block most rows have, the first such in order of appearance. */
static int most_common(const block_counts *c)
{
    int keep = -1, keep_count = 0;
    for (int i = 0; i < c->n; i++)
        if (c->count[i] > keep_count) {
            keep = c->block[i];
            keep_count = c->count[i];
        }
    return keep;
}

/* The block size most rows have, the first such in file order. */
static int common_block(const model_probe_row *const *rows, int n)
{
    block_counts c;
    c.n = c.overflow = 0;
    for (int i = 0; i < n; i++) count_block(&c, rows[i]->block_size);
    if (!c.overflow) return most_common(&c);
    int keep = -1, keep_count = 0;
    for (int i = 0; i < n; i++) {
        int bs = rows[i]->block_size, k = 0;
        for (int j = 0; j < n; j++) k += rows[j]->block_size == bs;
        if (k > keep_count) {
            keep = bs;
            keep_count = k;
        }
    }
    return keep;
}

/* The block size to read: the asked one where the rows have it, else the
 * one most of them have. */
static int asked_or_common_block(const model_probe_row *const *rows, int n, int asked)
{
    for (int i = 0; i < n; i++)
        if (rows[i]->block_size == asked) return asked;
    return common_block(rows, n);
}

/* The block size most rows of a sweep have, any word size or variant. */
static int sweep_common_block(const model_inputs *in, model_probe_sweep sweep)
{
    const model_probe_row **rows = malloc(sizeof *rows * (size_t)(in->n_probes + 1));
    int *idx;
    const int m = candidates(in, sweep, PROBE_ANY, &idx);
    if (!rows || m < 0) {
        free(rows);
        free(idx);
        return -1;
    }
    int n = 0;
    for (int k = 0; k < m; k++, rows_visited++)
        if (in->probes[idx[k]].sweep == sweep) rows[n++] = &in->probes[idx[k]];
    const int common = common_block(rows, n);
    free(rows);
    free(idx);
    return common;
}

/* The rows matching q; with PROBE_OR_COMMON_BLOCK, at one block size
 * (asked_or_common_block), which q then names. */
static int match_rows(const model_inputs *in, model_probe_query *q, int or_common, const model_probe_row **rows)
{
    model_probe_query m = *q;
    if (or_common) m.block_size = PROBE_ANY;
    int n = 0, *idx;
    const int cands = candidates(in, m.sweep, m.word_bytes, &idx);
    for (int k = 0; k < cands; k++, rows_visited++)
        if (model_probe_matches(&in->probes[idx[k]], &m)) rows[n++] = &in->probes[idx[k]];
    free(idx);
    if (!or_common) return n;
    q->block_size = asked_or_common_block(rows, n, q->block_size);
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (rows[i]->block_size == q->block_size) rows[kept++] = rows[i];
    return kept;
}

/* The misalignment count a row stands for on a curve whose query leaves L
 * (reads, both) or M (writes) open. */
static int misalignment_of(const model_probe_row *p, const model_probe_query *q)
{
    return q->misaligned_reads == PROBE_ANY ? p->misaligned_reads : p->misaligned_writes;
}

/* Of the N measured, the nearest to `near` (the first such). */
static int nearest_words(const model_probe_row *const *rows, int n, double near)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (best < 0 || fabs(rows[i]->words - near) < fabs(best - near)) best = rows[i]->words;
    return best;
}

/* Does row p give a point on axis x, and which. */
static int point_of(const model_inputs *in, const model_probe_row *p, const model_probe_query *q, model_probe_x x,
                    model_point *pt)
{
    switch (x) {
    case PROBE_X_WORDS: *pt = (model_point){p->words, p->ns_per_thread}; return 1;
    case PROBE_X_MISALIGNED:
        *pt = (model_point){misalignment_of(p, q), p->ns_per_thread};
        return q->words == PROBE_ANY || p->words == q->words;
    case PROBE_X_OCCUPANCY: *pt = (model_point){p->occupancy, p->ns_per_thread}; return p->occupancy > 0;
    case PROBE_X_OPS: *pt = (model_point){p->ops, p->ns_per_thread}; return 1;
    case PROBE_X_LAUNCH: {
        const double t = p->sweep == PROBE_THREADS ? model_busiest_sm_threads(in, p->threads, p->block_size) : p->threads;
        *pt = (model_point){log(t), log(p->launch_us)};
        return p->launch_us > 0;
    }
    }
    return 0;
}

static model_curve curve_of(const model_inputs *in, const model_probe_row *const *rows, int n,
                            const model_probe_query *q, model_probe_x x)
{
    model_curve c = {malloc(sizeof *c.p * (size_t)(n + 1)), 0};
    for (int i = 0; i < n; i++)
        if (point_of(in, rows[i], q, x, &c.p[c.n])) c.n++;
    c.n = model_points_prepare(c.p, c.n);
    return c;
}

/* Enough points: min_points, or the one point where a single one answers. */
static int enough(const model_probe_lookup *l, const model_curve *c, int at_asked_block)
{
    const int min = l->min_points > 1 ? l->min_points : 1;
    if (c->n >= min) return 1;
    return c->n == 1 && l->single_point_at > 0 && at_asked_block && fabs(c->p[0].x - l->single_point_at) < 1e-3;
}

/* A misalignment curve answers only with a misaligned point. */
static int has_misaligned_point(const model_curve *c)
{
    for (int i = 0; i < c->n; i++)
        if (c->p[i].x > 0) return 1;
    return 0;
}

/* Running median of three; returns how many points it moved. */
static int smooth(model_curve *c)
{
    double *before = malloc(sizeof *before * (size_t)(c->n + 1));
    for (int i = 0; i < c->n; i++) before[i] = c->p[i].y;
    model_points_median3(c->p, c->n);
    int moved = 0;
    for (int i = 0; i < c->n; i++) moved += before[i] != c->p[i].y;
    free(before);
    return moved;
}

static int find_aligned(const model_inputs *in, const model_probe_lookup *l, int at_asked_block,
                        model_probe_curve *out);

/* Candidate q: its rows and curve in *out; 1 when they answer. */
static int try_candidate(const model_inputs *in, const model_probe_lookup *l, model_probe_query q,
                         int at_asked_block, model_probe_curve *out)
{
    memset(out, 0, sizeof *out);
    out->rows = malloc(sizeof *out->rows * (size_t)(in->n_probes + 1));
    out->n_rows = match_rows(in, &q, l->fallbacks & PROBE_OR_COMMON_BLOCK, out->rows);
    if (l->x == PROBE_X_MISALIGNED) q.words = nearest_words(out->rows, out->n_rows, l->near_words);
    out->read = q;
    out->curve = curve_of(in, out->rows, out->n_rows, &q, l->x);
    int ok = enough(l, &out->curve, at_asked_block);
    if (ok && l->x == PROBE_X_MISALIGNED) {
        ok = has_misaligned_point(&out->curve);
        out->replaced = smooth(&out->curve);
    }
    if (ok && l->with_aligned) ok = find_aligned(in, l, at_asked_block, out);
    if (!ok) model_probe_curve_free(out);
    return ok;
}

/* ---- the aligned probe at the same launch (with_aligned) ------------------ */

static int find_aligned(const model_inputs *in, const model_probe_lookup *l, int at_asked_block,
                        model_probe_curve *out)
{
    model_probe_lookup a = *l;
    a.with_aligned = 0;
    a.fallbacks = 0;
    a.q = out->read;
    a.q.misaligned_reads = a.q.misaligned_writes = a.q.payload = a.q.nontemporal = a.q.folded = 0;
    if (l->q.sweep == PROBE_PAYLOAD) { /* the payload sweep's ops = 0 point: the words sweep's N=19 probe */
        a.q.sweep = PROBE_WORDS;
        a.q.words = D3Q19_Q;
    }
    model_probe_curve c;
    out->aligned_scale = 1;
    int ok = try_candidate(in, &a, a.q, at_asked_block, &c);
    if (!ok && l->q.sweep == PROBE_OCCUPANCY) {
        /* the occupancy sweep ran aligned at one word size: another's,
         * scaled by the two sizes' base probes */
        a.q.word_bytes = model_other_word(in, out->read.word_bytes);
        const double t_w = model_probe_words19(in, out->read.word_bytes, PROBE_ANY);
        const double t_o = model_probe_words19(in, a.q.word_bytes, PROBE_ANY);
        out->aligned_scale = t_w > 0 && t_o > 0 ? t_w / t_o : -1;
        ok = out->aligned_scale > 0 && a.q.word_bytes > 0 && try_candidate(in, &a, a.q, at_asked_block, &c);
    }
    if (!ok) return 0;
    out->aligned = c.curve;
    out->aligned_word_bytes = c.read.word_bytes;
    free(c.rows);
    return 1;
}

/* ---- the candidates, in order --------------------------------------------- */

/* words: any aligned probe at the default launch; a one-sided misalignment
 * sweep: the word_bytes sweep, whose 19-word probes include 10/0 and 0/10 */
static model_probe_sweep stand_in_sweep(model_probe_sweep s)
{
    if (s == PROBE_WORDS) return PROBE_ANY_SWEEP;
    if (s == PROBE_MISALIGNED_READS || s == PROBE_MISALIGNED_WRITES) return PROBE_WORD_BYTES;
    return s;
}

int model_probe_find(const model_inputs *in, const model_probe_lookup *l, model_probe_curve *out,
                     model_provenance *prov)
{
    int blocks[2] = {l->q.block_size, -1}, words[2] = {l->q.word_bytes, -1}, nb = 1, nw = 1, ns = 1;
    model_probe_sweep sweeps[2] = {l->q.sweep, l->q.sweep};
    if (l->fallbacks & PROBE_THEN_COMMON_BLOCK) {
        blocks[1] = sweep_common_block(in, l->q.sweep);
        nb += blocks[1] >= 0 && blocks[1] != blocks[0];
    }
    if (l->fallbacks & PROBE_OR_OTHER_WORD) nw += (words[1] = model_other_word(in, words[0])) > 0;
    if (l->fallbacks & PROBE_OR_STAND_IN_SWEEP) ns += (sweeps[1] = stand_in_sweep(sweeps[0])) != sweeps[0];
    for (int b = 0; b < nb; b++)
        for (int w = 0; w < nw; w++)
            for (int s = 0; s < ns; s++) {
                model_probe_query q = l->q;
                q.block_size = blocks[b];
                q.word_bytes = words[w];
                q.sweep = sweeps[s];
                if (try_candidate(in, l, q, b == 0, out)) {
                    model_probe_record(l, out, prov);
                    return 1;
                }
            }
    memset(out, 0, sizeof *out);
    return 0;
}

void model_probe_curve_free(model_probe_curve *c)
{
    free(c->curve.p);
    free(c->aligned.p);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* ---- provenance ------------------------------------------------------------- */

/* "4-byte occupancy sweep, L=0 M=10, with payload" */
static void describe(const model_probe_query *q, int word_bytes, char *out, size_t len)
{
    int used = snprintf(out, len, "%d-byte %s", word_bytes,
                        q->sweep == PROBE_ANY_SWEEP ? "aligned probes" : model_probe_sweep_name(q->sweep));
    if (q->sweep != PROBE_ANY_SWEEP && used < (int)len) used += snprintf(out + used, len - used, " sweep");
    if (q->misaligned_reads > 0 || q->misaligned_writes > 0)
        used += snprintf(out + used, len - used, ", L=%d M=%d", q->misaligned_reads, q->misaligned_writes);
    if (q->payload == 1 && used < (int)len) used += snprintf(out + used, len - used, ", with payload");
    if (q->nontemporal && used < (int)len) snprintf(out + used, len - used, ", non-temporal stores");
}

static void record_word(const model_probe_lookup *l, const model_probe_curve *c, model_provenance *prov)
{
    static const char *const uses[] = {"scaled by %g", "at as many bytes in flight", "as a ratio (it has no unit)"};
    const int asked = l->q.word_bytes, read = c->read.word_bytes;
    char what[96], how[64], got[160];
    describe(&l->q, asked, what, sizeof what);
    snprintf(how, sizeof how, uses[l->word_use], (double)asked / read);
    snprintf(got, sizeof got, "the %d-byte one %s", read, how);
    model_fell_back(prov, MODEL_FALLBACK_WORD, what, got, "no %s", what);
    if (l->word_use == PROBE_WORD_SCALED) prov->within_measured = 0;
}

void model_probe_record(const model_probe_lookup *l, const model_probe_curve *c, model_provenance *prov)
{
    if (!prov) return;
    char what[96], got[160];
    const model_probe_query *r = &c->read;
    describe(r, r->word_bytes, what, sizeof what);
    if (r->word_bytes != l->q.word_bytes) record_word(l, c, prov);
    if (r->block_size != l->q.block_size && l->q.block_size > 0) {
        char asked[128];
        snprintf(asked, sizeof asked, "%s at block %d", what, l->q.block_size);
        snprintf(got, sizeof got, "block %d, the sweep's most common", r->block_size);
        model_fell_back(prov, MODEL_FALLBACK_BLOCK, asked, got, "nothing to read at block %d", l->q.block_size);
    }
    if (r->sweep != l->q.sweep) {
        char asked[96];
        describe(&l->q, r->word_bytes, asked, sizeof asked);
        snprintf(got, sizeof got, "the %s", what);
        model_fell_back(prov, MODEL_FALLBACK_SWEEP, asked, got, "not measured");
    }
    if (c->aligned.n && c->aligned_word_bytes != r->word_bytes) {
        char asked[128];
        snprintf(asked, sizeof asked, "aligned %d-byte occupancy sweep at block %d", r->word_bytes, r->block_size);
        snprintf(got, sizeof got, "the %d-byte one x %.3f, the ratio of the two sizes' N=19 probes",
                 c->aligned_word_bytes, c->aligned_scale);
        model_fell_back(prov, MODEL_FALLBACK_WORD, asked, got, "not measured");
    }
    if (c->replaced) {
        snprintf(got, sizeof got, "%d point%s as the median of %s neighbours", c->replaced, c->replaced > 1 ? "s" : "",
                 c->replaced > 1 ? "their" : "its");
        model_fell_back(prov, MODEL_FALLBACK_MEDIAN, what, got,
                        "off both neighbours: a disturbance of the machine, not of the misalignment");
    }
}
