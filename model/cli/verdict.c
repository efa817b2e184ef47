/* model summary's best points and verdict: see verdict.h. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "errortable.h"
#include "kernel.h"
#include "validation.h"
#include "writealloc.h"

/* ---- what they read ----------------------------------------------------- */

/* A key,value meta file of dir; no rows where it is missing or unreadable
 * (what it would say is then left out, never guessed). */
static void meta_read(lbp_table *m, const char *dir, const char *name)
{
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const int r = lbp_table_read(m, path, 0, err, sizeof err);
    if (r == LBP_TABLE_MALFORMED) lbp_warn("%s", err);
    if (r) memset(m, 0, sizeof *m);
}

static const char *meta_text(const lbp_table *m, const char *key)
{
    for (int r = 0; r < m->rows; r++)
        if (!strcmp(lbp_table_text(m, r, 0), key)) return lbp_table_text(m, r, 1);
    return NULL;
}

/* The key's finite number, or NAN (absent, text, "not measured: ..."). */
static double meta_number(const lbp_table *m, const char *key)
{
    const char *v = meta_text(m, key);
    char *end;
    const double x = v ? strtod(v, &end) : NAN;
    return v && end != v && !*end && isfinite(x) ? x : NAN;
}

static const char *text(const lbp_table *t, int row, const char *column)
{
    const int c = lbp_table_column(t, column);
    return c < 0 ? NULL : lbp_table_text(t, row, c);
}

/* One rank's point (files without the column: every row); one device's
 * sweep (not one rank of a scaling run measured beside them) */
static int one_rank(const lbp_table *t, int row)
{
    return lbp_table_column(t, "ranks") < 0 || model_table_number(t, row, "ranks") <= 1;
}

static int one_device_sweep(const lbp_table *t, int row)
{
    const char *s = text(t, row, "scaling");
    return !s || !strcmp(s, "none");
}

/* ---- the tallies -------------------------------------------------------- */

typedef struct {
    char backend[16], precision[8];
    int best;                                  /* row; -1: no point past the cache */
    int points[MODEL_SIZE_CLASSES], over[MODEL_SIZE_CLASSES];
} verdict_group;

typedef struct {
    verdict_group g[MODEL_MAX_ERROR_GROUPS];
    int n;
    double llc; /* last-level cache, bytes; 0 unknown */
    model_error_bars bars;
    int ranks_points, ranks_over;
    int have_flags, predicted_above, measured_above, flag_points;
    int highest_row;   /* the point measured highest over its roofline; -1 none */
    double highest_pct;
    int cpu;
    char wa[16];       /* the write-allocate verdict; "" where the run has none */
    double ratio, ratio_min, ratio_max; /* copy_mem / copy; NAN unknown */
    int close;
} verdict;

static verdict_group *group_of(verdict *v, const char *backend, const char *precision)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->g[i].backend, backend) && !strcmp(v->g[i].precision, precision)) return &v->g[i];
    if (v->n == MODEL_MAX_ERROR_GROUPS) return NULL;
    verdict_group *g = &v->g[v->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->backend, sizeof g->backend, "%s", backend);
    snprintf(g->precision, sizeof g->precision, "%s", precision);
    g->best = -1;
    return g;
}

/* The bytes a point's lattices keep (cells x lattices x Q words, from the
 * scheme's description); 0 for a scheme the model does not ship. */
static double lattice_bytes(const lbp_table *t, int row)
{
    model_kernel k;
    if (model_builtin_kernel(&k, text(t, row, "scheme"), text(t, row, "precision"))) return 0;
    return model_table_number(t, row, "cells") * model_kernel_cell_bytes(&k);
}

static void tally_best(verdict_group *g, const verdict *v, const lbp_table *t, int row)
{
    if (!one_device_sweep(t, row) || !one_rank(t, row)) return;
    if (v->llc > 0 && !(lattice_bytes(t, row) > v->llc)) return;
    if (g->best < 0 || model_table_number(t, row, "measured_mlups") > model_table_number(t, g->best, "measured_mlups"))
        g->best = row;
}

/* As model validate counts them: one rank's points by their lattice (a
 * NaN error is over), several ranks' by the cells of one rank, those that
 * share a device left out (ranks_validate.c). */
static void tally_error(verdict_group *g, verdict *v, const lbp_table *t, int row)
{
    const double e = fabs(model_table_number(t, row, "error_pct"));
    if (one_rank(t, row)) {
        const int size = model_table_number(t, row, "cells") >= MODEL_LARGE_CELLS ? MODEL_LARGE : MODEL_SMALL;
        g->points[size]++;
        g->over[size] += !(e <= (size == MODEL_LARGE ? v->bars.large : v->bars.small));
        return;
    }
    const int has_local = lbp_table_column(t, "nz_local") >= 0, has_devices = lbp_table_column(t, "devices") >= 0;
    if (has_devices && model_table_number(t, row, "devices") < model_table_number(t, row, "ranks")) return;
    const double cells_rank =
        has_local ? model_table_number(t, row, "nx") * model_table_number(t, row, "ny") * model_table_number(t, row, "nz_local") : model_table_number(t, row, "cells");
    v->ranks_points++;
    v->ranks_over += e > (cells_rank >= MODEL_LARGE_CELLS ? v->bars.large : v->bars.small);
}

static void tally_flags(verdict *v, const lbp_table *t, int row)
{
    const char *flags = text(t, row, "flags");
    if (!flags) return;
    v->flag_points++;
    v->predicted_above += strstr(flags, "predicted>roofline") != NULL;
    if (!strstr(flags, "measured>roofline")) return;
    v->measured_above++;
    const char *ws = text(t, row, "roofline_ws_mlups");
    const double roof = ws ? model_table_number(t, row, "roofline_ws_mlups") : model_table_number(t, row, "roofline_mlups");
    const double pct = roof > 0 ? 100 * model_table_number(t, row, "measured_mlups") / roof : 0;
    if (v->highest_row < 0 || pct > v->highest_pct) v->highest_row = row, v->highest_pct = pct;
}

/* On a CPU: stream's write-allocate verdict, the ratio it was decided on
 * (write_allocate_ratio, or from likwid's two figures in a meta file
 * written before that key) and whether it was close. */
static void write_allocate_of(verdict *v, const lbp_table *stream)
{
    const char *wa = meta_text(stream, "write_allocate");
    v->ratio = meta_number(stream, "write_allocate_ratio");
    v->ratio_min = meta_number(stream, "write_allocate_ratio_min");
    v->ratio_max = meta_number(stream, "write_allocate_ratio_max");
    const double copy = meta_number(stream, "likwid_copy_gbs"), copy_mem = meta_number(stream, "likwid_copy_mem_gbs");
    if (isnan(v->ratio) && copy > 0 && copy_mem > 0) v->ratio = copy_mem / copy;
    snprintf(v->wa, sizeof v->wa, "%s", wa ? wa : "");
    const double close = meta_number(stream, "write_allocate_close");
    const int near = fabs(v->ratio - LBP_WA_YES_ABOVE) < LBP_WA_MARGIN || fabs(v->ratio - LBP_WA_NO_BELOW) < LBP_WA_MARGIN;
    const int across = (v->ratio_min < LBP_WA_YES_ABOVE && v->ratio_max > LBP_WA_YES_ABOVE) ||
                       (v->ratio_min < LBP_WA_NO_BELOW && v->ratio_max > LBP_WA_NO_BELOW);
    v->close = isnan(close) ? near || across : close != 0;
}

static void verdict_of(verdict *v, const lbp_table *t, const char *dir, const char *only)
{
    lbp_table stream = {0}, model = {0};
    meta_read(&stream, dir, "stream-meta.csv");
    meta_read(&model, dir, "model-meta.csv");
    memset(v, 0, sizeof *v);
    v->highest_row = -1;
    const char *kind = meta_text(&stream, "kind") ? meta_text(&stream, "kind") : meta_text(&model, "kind");
    v->cpu = kind && !strcmp(kind, "cpu");
    const double llc = meta_number(&stream, "l2_bytes");
    v->llc = llc > 0 ? llc : 0;
    v->bars = model_default_bars((model_error_bars){.large = meta_number(&model, "max_error_pct"),
                                                    .small = meta_number(&model, "max_error_small_pct")},
                                 v->cpu);
    if (v->cpu) write_allocate_of(v, &stream);
    v->have_flags = lbp_table_column(t, "flags") >= 0;
    for (int r = 0; r < t->rows; r++) {
        if (only && strcmp(text(t, r, "backend"), only)) continue;
        verdict_group *g = group_of(v, text(t, r, "backend"), text(t, r, "precision"));
        if (!g) continue;
        tally_best(g, v, t, r);
        tally_error(g, v, t, r);
        tally_flags(v, t, r);
    }
    lbp_table_free(&stream);
    lbp_table_free(&model);
}

/* ---- text --------------------------------------------------------------- */

static const char *shown_scheme(const lbp_table *t, int row, char *out, size_t len)
{
    const char *stores = text(t, row, "stores");
    snprintf(out, len, "%s%s", text(t, row, "scheme"), stores && strcmp(stores, "normal") ? "-nt" : "");
    return out;
}

/* "512³" for a cube, else "NX×NY×NZ". */
static const char *lattice_text(const lbp_table *t, int row, char *out, size_t len)
{
    const double nx = model_table_number(t, row, "nx"), ny = model_table_number(t, row, "ny"), nz = model_table_number(t, row, "nz");
    if (nx == ny && ny == nz) snprintf(out, len, "%.0f\u00b3", nx);
    else snprintf(out, len, "%.0f\u00d7%.0f\u00d7%.0f", nx, ny, nz);
    return out;
}

static double roofline_pct(const lbp_table *t, int row)
{
    const double roof = model_table_number(t, row, "roofline_mlups");
    return roof > 0 ? 100 * model_table_number(t, row, "measured_mlups") / roof : 0;
}

void model_best_print(FILE *f, const lbp_table *t, const char *dir, const char *only)
{
    verdict v;
    verdict_of(&v, t, dir, only);
    char cache[32], scheme[32], lattice[64];
    lbp_bytes_text(cache, sizeof cache, v.llc);
    if (v.llc > 0) fprintf(f, "best: the fastest verified point at a lattice larger than the last-level cache (%s):\n", cache);
    else fprintf(f, "best: the fastest verified point (the last-level cache unknown: every lattice):\n");
    for (int i = 0; i < v.n; i++) {
        const verdict_group *g = &v.g[i];
        if (g->best < 0) {
            fprintf(f, "  %-7s %-5s none: every lattice measured fits in the last-level cache\n", g->backend, g->precision);
            continue;
        }
        fprintf(f, "  %-7s %-5s %10.1f MLUPS %-8s at %s (%.1f %% of its roofline)\n", g->backend, g->precision,
                model_table_number(t, g->best, "measured_mlups"), shown_scheme(t, g->best, scheme, sizeof scheme),
                lattice_text(t, g->best, lattice, sizeof lattice), roofline_pct(t, g->best));
    }
}

static int total_points(const verdict_group *g) { return g->points[MODEL_LARGE] + g->points[MODEL_SMALL]; }
static int total_over(const verdict_group *g) { return g->over[MODEL_LARGE] + g->over[MODEL_SMALL]; }

/* The threshold nearer the ratio, and how far from it. */
static double nearest_threshold(double ratio, const char **which)
{
    const int yes = fabs(ratio - LBP_WA_YES_ABOVE) <= fabs(ratio - LBP_WA_NO_BELOW);
    *which = yes ? "yes" : "no";
    return yes ? LBP_WA_YES_ABOVE : LBP_WA_NO_BELOW;
}

static void write_allocate_print(FILE *f, const verdict *v)
{
    if (!v->wa[0]) {
        fprintf(f, "  write-allocate: not decided (no likwid-bench figures in stream-meta.csv): the roofline assumes it\n");
        return;
    }
    fprintf(f, "  write-allocate: %s", v->wa);
    if (isnan(v->ratio)) {
        fprintf(f, " (no copy_mem / copy ratio recorded)\n");
        return;
    }
    const char *which;
    const double threshold = nearest_threshold(v->ratio, &which);
    fprintf(f, ", likwid-bench copy_mem / copy %.2f", v->ratio);
    if (!isnan(v->ratio_min) && !isnan(v->ratio_max)) fprintf(f, " (samples %.2f..%.2f)", v->ratio_min, v->ratio_max);
    fprintf(f, " (yes above %.2f, no below %.2f)\n    %.2f %s the %s threshold", LBP_WA_YES_ABOVE, LBP_WA_NO_BELOW,
            fabs(v->ratio - threshold), v->ratio >= threshold ? "above" : "below", which);
    if (v->close)
        fprintf(f, ": CLOSE, another run may decide the other way, and every ordinary-store roofline moves by x1.5 "
                   "with it\n");
    else fprintf(f, ": not close (close: within %.2f, or samples on both sides)\n", LBP_WA_MARGIN);
}

void model_verdict_print(FILE *f, const lbp_table *t, const char *dir, const char *only)
{
    verdict v;
    verdict_of(&v, t, dir, only);
    int points = v.ranks_points, over = v.ranks_over;
    for (int i = 0; i < v.n; i++) points += total_points(&v.g[i]), over += total_over(&v.g[i]);
    fprintf(f, "verdict: %s %d of %d points over the model's error bar (|error| > %g %% from 128\u00b3 cells, > %g %% "
               "below)\n",
            over ? "FAIL," : "pass,", over, points, v.bars.large, v.bars.small);
    for (int i = 0; i < v.n; i++) {
        const verdict_group *g = &v.g[i];
        if (!total_points(g)) continue;
        fprintf(f, "  %-7s %-5s %4d of %4d over (from 128\u00b3: %d of %d; below: %d of %d)\n", g->backend, g->precision,
                total_over(g), total_points(g), g->over[MODEL_LARGE], g->points[MODEL_LARGE], g->over[MODEL_SMALL],
                g->points[MODEL_SMALL]);
    }
    if (v.ranks_points)
        fprintf(f, "  several ranks %4d of %4d over (the bar by one rank's cells)\n", v.ranks_over, v.ranks_points);
    if (v.have_flags) {
        fprintf(f, "  above their roofline (model.csv flags): measured %d, predicted %d of %d points", v.measured_above,
                v.predicted_above, v.flag_points);
        char scheme[32], lattice[64];
        if (v.highest_row >= 0)
            fprintf(f, "; highest %.1f %% of its working set's (%s %s %s at %s)", v.highest_pct, text(t, v.highest_row, "backend"),
                    shown_scheme(t, v.highest_row, scheme, sizeof scheme), text(t, v.highest_row, "precision"),
                    lattice_text(t, v.highest_row, lattice, sizeof lattice));
        fprintf(f, "\n");
    }
    if (v.cpu) write_allocate_print(f, &v);
}

/* ---- JSON --------------------------------------------------------------- */

void model_best_json(model_json *j, const lbp_table *t, const char *dir, const char *only)
{
    verdict v;
    verdict_of(&v, t, dir, only);
    char scheme[32];
    model_json_object(j, "best");
    model_json_number(j, "last_level_cache_bytes", v.llc);
    model_json_array(j, "points");
    for (int i = 0; i < v.n; i++) {
        const verdict_group *g = &v.g[i];
        model_json_object(j, NULL);
        model_json_string(j, "backend", g->backend);
        model_json_string(j, "precision", g->precision);
        model_json_bool(j, "past_cache", g->best >= 0);
        if (g->best >= 0) {
            model_json_string(j, "scheme", shown_scheme(t, g->best, scheme, sizeof scheme));
            model_json_number(j, "nx", model_table_number(t, g->best, "nx"));
            model_json_number(j, "ny", model_table_number(t, g->best, "ny"));
            model_json_number(j, "nz", model_table_number(t, g->best, "nz"));
            model_json_number(j, "measured_mlups", model_table_number(t, g->best, "measured_mlups"));
            model_json_number(j, "roofline_pct", roofline_pct(t, g->best));
        }
        model_json_close(j);
    }
    model_json_close(j);
    model_json_close(j);
}

void model_verdict_json(model_json *j, const lbp_table *t, const char *dir, const char *only)
{
    verdict v;
    verdict_of(&v, t, dir, only);
    int points = v.ranks_points, over = v.ranks_over;
    for (int i = 0; i < v.n; i++) points += total_points(&v.g[i]), over += total_over(&v.g[i]);
    model_json_object(j, "verdict");
    model_json_bool(j, "pass", !over);
    model_json_number(j, "points", points);
    model_json_number(j, "points_over", over);
    model_json_number(j, "max_error_pct", v.bars.large);
    model_json_number(j, "max_error_small_pct", v.bars.small);
    model_json_array(j, "groups");
    for (int i = 0; i < v.n; i++) {
        const verdict_group *g = &v.g[i];
        if (!total_points(g)) continue;
        model_json_object(j, NULL);
        model_json_string(j, "backend", g->backend);
        model_json_string(j, "precision", g->precision);
        model_json_number(j, "points", total_points(g));
        model_json_number(j, "points_over", total_over(g));
        model_json_close(j);
    }
    model_json_close(j);
    model_json_number(j, "ranks_points", v.ranks_points);
    model_json_number(j, "ranks_points_over", v.ranks_over);
    if (v.have_flags) {
        model_json_number(j, "measured_above_roofline", v.measured_above);
        model_json_number(j, "predicted_above_roofline", v.predicted_above);
    }
    if (v.cpu) {
        model_json_object(j, "write_allocate");
        model_json_string(j, "verdict", v.wa[0] ? v.wa : "not decided");
        if (!isnan(v.ratio)) model_json_number(j, "ratio", v.ratio);
        model_json_number(j, "yes_above", LBP_WA_YES_ABOVE);
        model_json_number(j, "no_below", LBP_WA_NO_BELOW);
        model_json_bool(j, "close", v.close);
        model_json_close(j);
    }
    model_json_close(j);
}
