/* The model's three levels put together: see predict.h. */
#include "predict.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "launchprobe.h"
#include "levels.h"

/* Level 3's paths, in the order they are asked: the most direct
 * measurement of the kernel's launch first.  Every path is computed (what
 * the others would say is printed beside the answer); the first that
 * applies answers. */
static const struct {
    model_full_path id;
    void (*run)(const model_path_query *, model_prediction *);
} full_paths[MODEL_FULL_PATHS] = {
    {MODEL_FULL_GEOMETRY, model_geometry_path},
    {MODEL_FULL_THREADS_SWEEP, model_threads_path},
    {MODEL_FULL_SIZE_SWEEP, model_size_sweep_path},
};

/* Every path's answer for the query, in out. */
static void run_paths(const model_path_query *q, model_prediction *out)
{
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        model_provenance_init(&out->full.answer[full_paths[i].id].prov);
        full_paths[i].run(q, out);
    }
}

/* The first path that applies answers (out holds every path's answer). */
static void full_level(model_prediction *out)
{
    for (int i = 0; i < MODEL_FULL_PATHS; i++)
        if (out->full.answer[full_paths[i].id].applies) {
            out->full.path = full_paths[i].id;
            break;
        }
    const model_path_answer *a = model_full_answer(out);
    out->full.mlups = a->mlups;
    model_provenance_merge(&out->prov, &a->prov);
    if (out->full.path == MODEL_FULL_SIZE_SWEEP && !out->full.answer[MODEL_FULL_THREADS_SWEEP].applies)
        model_note(&out->prov,
                   "level 3 from the stream size sweep and launch interval (membench.csv has no threads sweep)");
}

/* Adds a row class's answer of each path, its time weighted by its share
 * of the rows, to the sum in `into` (a path applies where it does for every
 * class); the details are the largest class's. */
static void add_class(model_full_level *into, const model_full_level *c, double weight, int phases, int first,
                      int largest)
{
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        model_path_answer *a = &into->answer[i];
        const model_path_answer *b = &c->answer[i];
        if (first) {
            *a = *b;
            for (int p = 0; p < phases; p++) a->memory_us[p] = 0;
        } else {
            a->applies = a->applies && b->applies;
            a->complete = a->complete && b->complete;
            a->launch_bound = a->launch_bound || b->launch_bound;
            model_provenance_merge(&a->prov, &b->prov);
        }
        for (int p = 0; p < phases; p++) a->memory_us[p] += weight * b->memory_us[p];
    }
    if (largest) {
        into->geometry = c->geometry;
        into->threads = c->threads;
        into->size_sweep = c->size_sweep;
    }
}

/* Every path's memory time of phase p times factor[p], its MLUPS by the
 * step's change: the size-sweep path's step is each launch's memory time
 * and device gap, at least the launch interval (path_size_sweep.c), the
 * others' the memory time. */
static void scale_memory(const model_kernel *k, const model_lattice *lat, const double *factor,
                         model_prediction *out)
{
    const model_size_sweep_detail *d = &out->full.size_sweep;
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        model_path_answer *a = &out->full.answer[i];
        double before = 0, after = 0, step_us = 0;
        for (int p = 0; p < k->phases; p++) {
            before += a->memory_us[p];
            a->memory_us[p] *= factor[p];
            after += a->memory_us[p];
            step_us += fmax(a->memory_us[p] + d->gap_us, d->launch_us) / k->phases;
        }
        if (!a->applies || after <= 0) continue;
        if (i == MODEL_FULL_SIZE_SWEEP) a->mlups = lat->cells / step_us;
        else a->mlups *= before / after;
    }
    out->full.mlups = model_full_answer(out)->mlups;
}

/* Level 3 of a grid launch: each path's memory time times the tile sweep's
 * factor of its phase at the launch's block shape, where it lacks that,
 * for blocks narrower than a warp, the narrow sweep's (levels.h); its
 * MLUPS by the step's change.  k is a row class's kernel where the rows
 * fall into classes: a class's straddling words cost what the shape's
 * misaligned probes do at its L and M, not at the kernel's. */
static void grid_level(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                       model_prediction *out)
{
    double factor[MODEL_MAX_PHASES];
    if (model_tile_factors(in, k, lat, factor, &out->prov) != 1 &&
        model_narrow_factors(in, k, lat, factor, &out->prov) != 1)
        return;
    scale_memory(k, lat, factor, out);
}

/* Level 3 of a linear launch whose rows are not whole sectors: each path's
 * memory time of a phase times its words' straddling a row or plane away
 * (rowshift.c). */
static void row_shift_level(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                            model_prediction *out)
{
    double factor[MODEL_MAX_PHASES];
    if (model_row_shift_factors(in, k, lat, factor, &out->prov)) scale_memory(k, lat, factor, out);
}

/* Level 3 over the launch's row classes (launch.h): each class's kernel (its
 * L and M) predicted on the whole lattice, the step the classes' times
 * weighted by their shares of the rows. */
static int full_level_by_rows(const model_path_query *q, const model_row_class *rows, int n, model_prediction *out,
                              char *err, size_t err_len)
{
    model_prediction *c = malloc(sizeof *c);
    if (!c) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int largest = 0;
    for (int r = 1; r < n; r++)
        if (rows[r].weight > rows[largest].weight) largest = r;
    for (int r = 0; r < n; r++) {
        model_kernel k = *q->k;
        memcpy(k.misaligned_reads, rows[r].misaligned_reads, sizeof k.misaligned_reads);
        memcpy(k.misaligned_writes, rows[r].misaligned_writes, sizeof k.misaligned_writes);
        memset(c, 0, sizeof *c);
        model_provenance_init(&c->prov);
        if (model_probe_level_of(q->in, &k, q->lat, &c->probe, &c->prov, err, err_len)) {
            free(c);
            return -1;
        }
        const model_path_query qc = {q->in, &k, q->lat, &c->probe};
        run_paths(&qc, c);
        grid_level(q->in, &k, q->lat, c);
        add_class(&out->full, &c->full, rows[r].weight, q->k->phases, r == 0, r == largest);
        model_provenance_merge(&out->prov, &c->prov); /* the class's clamps: its L and M may pass the sweeps' */
    }
    free(c);
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        model_path_answer *a = &out->full.answer[i];
        double step_us = 0;
        for (int p = 0; p < q->k->phases; p++) step_us += a->memory_us[p] / q->k->phases;
        a->mlups = a->applies && step_us > 0 ? q->lat->cells / step_us : 0;
    }
    return 0;
}

/* The notes of a launch the row classes price, or do not. */
static void note_rows(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                      const model_row_class *rows, int n, model_provenance *prov)
{
    if (model_warps_span_rows(in, k) && k->block[0] > 32)
        model_note(prov, "blocks %d threads wide in x: each warp's access spans rows, which no probe measures "
                         "(priced as whole rows)", k->block[0]);
    if (n < 2) return;
    char classes[160] = "";
    for (int r = 0, used = 0; r < n && used < (int)sizeof classes; r++)
        used += snprintf(classes + used, sizeof classes - used, "%s%.1f %% L=%d M=%d", r ? ", " : "",
                         100 * rows[r].weight, rows[r].misaligned_reads[0], rows[r].misaligned_writes[0]);
    model_note(prov, "rows of %lld bytes start at several offsets in a %d-byte sector, so the warps of some "
                     "straddle sectors: rows %s (first launch pattern)",
               (long long)(lat->nx * k->word_bytes), MODEL_SECTOR_BYTES, classes);
}

/* Every level from the probes (model_predict less the launch probes). */
static int predict_levels(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                          model_prediction *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    model_provenance_init(&out->prov);
    model_roofline(in, k, &out->roofline);
    model_roofline_at(in, k, lat, &out->roofline);
    if (model_probe_level_of(in, k, lat, &out->probe, &out->prov, err, err_len)) return -1;
    const model_launch_shape shape = model_launch_shape_of(in, k, lat);
    out->full.launch = (model_launch_detail){shape.threads, shape.blocks, shape.waves};
    const model_path_query q = {in, k, lat, &out->probe};
    model_row_class rows[MODEL_MAX_ROW_CLASSES];
    const int n = model_row_classes(in, k, lat, rows);
    note_rows(in, k, lat, rows, n, &out->prov);
    if (n > 1 && full_level_by_rows(&q, rows, n, out, err, err_len)) return -1;
    if (n == 1) {
        run_paths(&q, out);
        grid_level(in, k, lat, out);
        row_shift_level(in, k, lat, out);
    }
    full_level(out);
    return 0;
}

/* Least squares line through (x, y), n >= 2 distinct x, read at x0. */
static double on_line(const double *x, const double *y, int n, double x0)
{
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) mx += x[i] / n, my += y[i] / n;
    for (int i = 0; i < n; i++) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
    return my + (sxx > 0 ? sxy / sxx : 0) * (x0 - mx);
}

/* Level 3 times the model's error at the kernel's launch (launchprobe.h):
 * where the folder measured that launch on this lattice with N aligned
 * words at two or more N, each probe is predicted as the kernel is, and
 * the measured time over the predicted, on a line through N, read at the
 * kernel's words, scales every path's time.  What the launch costs beyond
 * what the sweeps carry (rows that start inside a sector, nearly empty
 * blocks, a block's shape) grows with the words a thread moves: the line
 * carries that, the kernel's own misaligned words stay the sweeps'. */
static void launch_probe_level(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                               model_prediction *out)
{
    int words[MODEL_MAX_LAUNCH_PROBES];
    double measured[MODEL_MAX_LAUNCH_PROBES], x[MODEL_MAX_LAUNCH_PROBES], ratio[MODEL_MAX_LAUNCH_PROBES];
    if (!model_correction_on(MODEL_CORR_LAUNCH_PROBES)) return;
    const int n = model_launch_probes_at(in, k, lat, words, measured, MODEL_MAX_LAUNCH_PROBES);
    if (!n) return;
    if (n < 2 || k->phases != 1 || k->launches_per_step != 1) {
        model_note(&out->prov, "membench-launch.csv has this launch %s: not read", n < 2
                   ? "at one word count (a line through N needs two)"
                   : "but the kernel alternates launches or takes several a step (the probes are one launch)");
        return;
    }
    model_prediction *p = malloc(sizeof *p);
    if (!p) return;
    char err[256] = "no MLUPS", said[240] = "";
    int used = 0;
    for (int i = 0; i < n; i++) {
        const model_kernel pk = model_launch_probe_kernel(k, words[i]);
        if (predict_levels(in, &pk, lat, p, err, sizeof err) || !(p->full.mlups > 0)) {
            model_note(&out->prov, "membench-launch.csv: its probe at N=%d not predicted (%s): not read", words[i],
                       err);
            free(p);
            return;
        }
        x[i] = words[i];
        ratio[i] = p->full.mlups / measured[i]; /* measured time over predicted */
        if (used < (int)sizeof said)
            used += snprintf(said + used, sizeof said - used, "%sN=%d x %.3f", i ? ", " : "", words[i], ratio[i]);
    }
    free(p);
    const double nk = (k->words_read + k->words_written) / 2;
    const double e = on_line(x, ratio, n, nk);
    if (!(e > 0.2 && e < 5)) {
        model_note(&out->prov, "membench-launch.csv: the model's time at this launch x %s reads x %.3f at N=%g: "
                   "not read", said, e, nk);
        return;
    }
    if (nk < x[0] || nk > x[n - 1])
        model_clamped(&out->prov, "the kernel's %g words past its launch probes' %d to %d: read on their line", nk,
                      words[0], words[n - 1]);
    double factor[MODEL_MAX_PHASES];
    for (int i = 0; i < k->phases; i++) factor[i] = e;
    scale_memory(k, lat, factor, out);
    model_note(&out->prov, "its launch on this lattice measured with aligned probes (membench-launch.csv): time "
               "measured over predicted %s; at the kernel's N=%g on their line x %.3f", said, nk, e);
}

int model_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat, model_prediction *out,
                  char *err, size_t err_len)
{
    if (predict_levels(in, k, lat, out, err, err_len)) return -1;
    launch_probe_level(in, k, lat, out);
    return 0;
}

const char *model_full_path_name(model_full_path path)
{
    static const char *const names[MODEL_FULL_PATHS] = {"geometry", "threads-sweep", "size-sweep"};
    return path >= 0 && path < MODEL_FULL_PATHS ? names[path] : "none";
}

const model_path_answer *model_full_answer(const model_prediction *p)
{
    return &p->full.answer[p->full.path];
}
