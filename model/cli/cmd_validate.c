/* model validate: every measured point of lbm.csv beside its prediction,
 * written to model.csv and held to the error bars. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "errortable.h"
#include "effects.h"
#include "holdout.h"
#include "kernel.h"
#include "ranks_validate.h"
#include "report.h"
#include "report_json.h"
#include "table.h"
#include "validation.h"

static const char validate_usage[] =
    "usage: model validate --data DIR [--backend B] [--max-error PCT] [--max-error-small PCT] [--force]\n"
    "Predict every measured point of DIR/lbm.csv (each row with its own backend's\n"
    "stream and membench rows), write DIR/model.csv and DIR/model-meta.csv, print\n"
    "measured, predicted and roofline MLUPS with the error of the full model\n"
    "(error% = 100 (predicted - measured) / measured: > 0, the model is optimistic).\n"
    "  --max-error PCT         bar for lattices of 128^3 cells and more (default 5 on a\n"
    "                          GPU, 10 on a CPU: stream-meta.csv's kind)\n"
    "  --max-error-small PCT   bar for smaller lattices (default 10 on a GPU, 15 on a CPU)\n"
    "  --backend cuda|opencl   only this backend's rows\n"
    "  --force                 replace existing model.csv / model-meta.csv\n"
    "  --json                  print one JSON object (every point with its provenance, the\n"
    "                          bars) instead of the text; the files are written the same\n"
    MODEL_CORRECTIONS_HELP
    "Every point is also predicted before the kernel: without the probes measured at\n"
    "its own launch and lattice (membench-geometry.csv at its launch and thread count,\n"
    "the threads sweep at that count, its launch probes; model predict --before-kernel),\n"
    "in model.csv's before_kernel_* columns; the closing lines give both errors per\n"
    "backend and precision.  The exit status stays on the error at the kernel's launch.\n"
    "Each named correction's effect on the prediction before the kernel (MLUPS with it\n"
    "over without) is in model.csv's corr_* columns (model corrections tables them).\n"
    "Rows of several ranks (lbm.csv's ranks > 1) are predicted on ranks (model predict\n"
    "--ranks: the slab's pieces and DIR/interconnect-fit.csv), held to the same bars by\n"
    "the slab's size (several ranks on one device: to none), written to model.csv with\n"
    "their ranks, exchange, overlap, scaling and efficiencies.\n"
    "Exit 0: every point within its bar; 1: a point's |error| over its bar, rows of\n"
    "several ranks that could not be predicted (no interconnect-fit.csv), or a\n"
    "prediction that is not a finite number; 2: bad flags, or input it cannot read\n"
    "(a missing, malformed or impossible file: one line naming file, line and column),\n"
    "or a model.csv that exists without --force.\n"
    MODEL_LEVELS_HELP;

enum { MAX_BACKENDS = 4 };

/* lbm.csv's points with their predictions, and each backend's inputs. */
typedef struct {
    const char *dir, *only;
    char path[600];
    lbp_table lbm;
    model_inputs inputs[MAX_BACKENDS];
    int n_inputs;
    model_validated_point *pts;
    int n;
    ranks_validation ranks; /* the rows of several ranks */
    model_launch_kind *rank_launch; /* per point of ranks */
    long long *rank_local_bytes;    /* per point of ranks: lbm.csv's local_bytes */
} validation;

typedef struct {
    model_error_bars bars;
    int json;
} validate_args;

static void validate_option(int o, const char *arg, void *ctx)
{
    validate_args *a = ctx;
    if (o == OPT_MAX_ERROR) a->bars.large = lbp_parse_double("--max-error", arg, 0, 1e6);
    if (o == OPT_MAX_ERROR_SMALL) a->bars.small = lbp_parse_double("--max-error-small", arg, 0, 1e6);
    if (o == OPT_JSON) a->json = 1;
}

/* The points of several ranks over their bars, counted without their table
 * (--json leaves the text out; model.csv has their rows). */
static int ranks_points_over(const ranks_validation *r, const model_error_bars *bars)
{
    int over = 0;
    for (int i = 0; i < r->n; i++) over += ranks_point_over(&r->pts[i], bars->large, bars->small);
    return over;
}

/* --json: the points and the bars as one object, the files written named
 * in it (the text's lines are left out). */
static void report_json(const validation *v, const model_error_bars *bars, const model_validation_stats *s)
{
    model_json j;
    model_json_begin(&j, stdout);
    model_json_string(&j, "data", v->dir);
    model_json_validation(&j, v->pts, v->n, bars, s);
    model_json_bool(&j, "pass", s->over_large + s->over_small == 0);
    model_json_end(&j);
}

/* What lbm.csv's columns can hold: lattices an int indexes, launches of
 * threads an int counts (so no cast below is undefined). */
static const model_range DIM = {.lo = 1, .hi = 1 << 20, .whole = 1},
                         CELLS = {.lo = 0, .hi = 1e13, .lo_open = 1, .whole = 1},
                         BLOCK = {.lo = 1, .hi = 1 << 20, .whole = 1},
                         CPT = {.lo = 0, .hi = 64, .whole = 1},
                         LATTICES = {.lo = 1, .hi = 2, .whole = 1},
                         OCCUPANCY = {.lo = 0, .hi = 1, .lo_open = 1, .has_unknown = 1, .unknown = -1},
                         BLOCKS_PER_CU = {.lo = 0, .hi = 1 << 16, .whole = 1, .has_unknown = 1, .unknown = -1},
                         MLUPS = {.lo = 0, .hi = 1e9, .lo_open = 1},
                         LOCAL_BYTES = {.lo = 0, .hi = 1 << 30, .whole = 1, .has_unknown = 1, .unknown = -1};

/* Row's number in col within range, or fallback where lbm.csv has no such
 * column; a value out of range: exit 2 naming file, line and column. */
static double lbm_number(const validation *v, int row, const char *col, model_range range, double fallback)
{
    if (lbp_table_column(&v->lbm, col) < 0) return fallback;
    char err[512];
    double x;
    if (model_number_in(&v->lbm, row, col, range, &x, err, sizeof err)) model_bad_input("%s", err);
    return x;
}

/* The inputs of a backend, loaded at its first row. */
static const model_inputs *inputs_of(validation *v, const char *backend, int line)
{
    for (int b = 0; b < v->n_inputs; b++)
        if (!strcmp(v->inputs[b].backend, backend)) return &v->inputs[b];
    if (v->n_inputs == MAX_BACKENDS) model_bad_input("%s:%d: more than %d backends", v->path, line, MAX_BACKENDS);
    model_load_or_fail(&v->inputs[v->n_inputs], v->dir, backend);
    return &v->inputs[v->n_inputs++];
}

/* The row's launch: lbm.csv's launch column, linear in files written before
 * it (the shipped schemes launch one thread per cell, or cells_per_thread).
 * A grid needs the block's shape, which lbm.csv does not hold. */
static model_launch_kind launch_of(const validation *v, int row)
{
    const int c = lbp_table_column(&v->lbm, "launch");
    model_launch_kind k = MODEL_LAUNCH_LINEAR;
    if (c < 0) return k;
    const char *text = lbp_table_text(&v->lbm, row, c);
    if (model_launch_parse(text, &k) || k == MODEL_LAUNCH_GRID)
        model_bad_input("%s:%d: column 'launch': expected linear or rows (a grid's block shape is not in lbm.csv), "
                        "got '%s'", v->path, v->lbm.line[row], text);
    return k;
}

/* The row's kernel: its scheme and precision, and how lbmkernels launched it. */
static model_kernel kernel_of(const validation *v, int row, const model_validated_point *pt)
{
    const int line = v->lbm.line[row];
    model_kernel k;
    if (model_builtin_kernel(&k, pt->scheme, pt->precision))
        model_bad_input("%s:%d: expected scheme push|pull|split|aa and precision fp32|fp64|fp16s, got '%s' '%s'", v->path, line,
                 pt->scheme, pt->precision);
    const double cpt = lbm_number(v, row, "cells_per_thread", CPT, 1),
                 lattices = lbm_number(v, row, "lattices", LATTICES, k.lattices);
    if (cpt < 0 || cpt > 64 || cpt != (int)cpt)
        model_bad_input("%s:%d: expected cells_per_thread a whole number 0..64 (0: a row per thread), got %g", v->path, line,
                 cpt);
    if ((int)lattices != k.lattices)
        model_bad_input("%s:%d: %s keeps %d lattice(s), the row says %g", v->path, line, pt->scheme, k.lattices, lattices);
    k.cells_per_thread = (int)cpt;
    if (pt->stores[0] && strcmp(pt->stores, "normal") && strcmp(pt->stores, "nontemporal"))
        model_bad_input("%s:%d: expected stores normal|nontemporal, got '%s'", v->path, line, pt->stores);
    k.nontemporal = !strcmp(pt->stores, "nontemporal");
    k.launch = launch_of(v, row);
    return k;
}

static model_lattice lattice_of(const validation *v, int row)
{
    const double nx = lbm_number(v, row, "nx", DIM, 0), ny = lbm_number(v, row, "ny", DIM, 0),
                 nz = lbm_number(v, row, "nz", DIM, 0);
    return (model_lattice){.nx = (long long)nx, .ny = (long long)ny, .nz = (long long)nz,
                           .cells = lbm_number(v, row, "cells", CELLS, 0),
                           .stored_cells = lbm_number(v, row, "nx_padded", DIM, nx) * ny * nz,
                           .occupancy = lbm_number(v, row, "occupancy", OCCUPANCY, -1),
                           .blocks_per_cu = lbm_number(v, row, "blocks_per_cu", BLOCKS_PER_CU, -1),
                           .block_size = (int)lbm_number(v, row, "block_size", BLOCK, 0)};
}

/* A prediction that is not a finite number never reaches model.csv: with
 * the inputs checked when loaded, it is the model's fault (exit 1). */
static void check_finite_prediction(const validation *v, int row, const model_prediction *pr)
{
    const double level[3] = {pr->roofline.mlups, pr->probe.mlups, pr->full.mlups};
    static const char *const name[3] = {"roofline", "probe", "full"};
    for (int i = 0; i < 3; i++)
        if (!isfinite(level[i]))
            lbp_fail("%s:%d: the %s prediction is not a finite number (%g MLUPS); nothing written", v->path,
                     v->lbm.line[row], name[i], level[i]);
}

/* The row's kernel's spilled bytes per thread; -1 where lbm.csv predates
 * the column.  Read to flag the point, never to change its prediction. */
static long long local_bytes_of(const validation *v, int row)
{
    return (long long)lbm_number(v, row, "local_bytes", LOCAL_BYTES, -1);
}

/* The point predicted before the kernel (holdout.h): its MLUPS, error and
 * path beside the full prediction's. */
static void predict_before(const validation *v, int row, const model_inputs *in, const model_kernel *k,
                           const model_lattice *lat, model_validated_point *pt)
{
    model_prediction *pr = malloc(sizeof *pr);
    if (!pr) lbp_fail("%s: out of memory", v->path);
    char err[1024];
    if (model_predict_before_kernel(in, k, lat, &pt->pr, pr, NULL, err, sizeof err)) model_bad_input("%s", err);
    check_finite_prediction(v, row, pr);
    pt->before_mlups = pr->full.mlups;
    pt->before_error_pct = 100 * (pr->full.mlups - pt->measured) / pt->measured;
    pt->before_path = pr->full.path;
    pt->before_within_measured = pr->prov.within_measured;
    free(pr);
    if (model_correction_effects(in, k, lat, 1, pt->before_mlups, pt->before_effect, err, sizeof err))
        model_bad_input("%s", err);
}

/* One periodic row of lbm.csv of one rank, predicted. */
static void add_point(validation *v, int row, const ranks_row *ranks)
{
    const lbp_table *t = &v->lbm;
    model_validated_point *pt = &v->pts[v->n];
    snprintf(pt->backend, sizeof pt->backend, "%s", lbp_table_text(t, row, lbp_table_column(t, "backend")));
    snprintf(pt->scheme, sizeof pt->scheme, "%s", lbp_table_text(t, row, lbp_table_column(t, "scheme")));
    snprintf(pt->precision, sizeof pt->precision, "%s", lbp_table_text(t, row, lbp_table_column(t, "precision")));
    /* older lbm.csv without the column: ordinary stores */
    const int is = lbp_table_column(t, "stores");
    snprintf(pt->stores, sizeof pt->stores, "%s", is < 0 ? "normal" : lbp_table_text(t, row, is));
    const model_inputs *in = inputs_of(v, pt->backend, t->line[row]);
    const model_kernel k = kernel_of(v, row, pt);
    const model_lattice lat = lattice_of(v, row);
    pt->cells_per_thread = k.cells_per_thread;
    pt->launch = k.launch;
    pt->local_bytes = local_bytes_of(v, row);
    pt->measured = lbm_number(v, row, "mlups_median", MLUPS, 0);
    if (!(lat.cells > 0) || !(pt->measured > 0) || !isfinite(pt->measured))
        model_bad_input("%s:%d: expected positive cells and mlups_median", v->path, t->line[row]);
    char err[1024];
    if (model_predict(in, &k, &lat, &pt->pr, err, sizeof err)) model_bad_input("%s", err);
    check_finite_prediction(v, row, &pt->pr);
    pt->nx = lat.nx;
    pt->ny = lat.ny;
    pt->nz = lat.nz;
    pt->block_size = lat.block_size;
    pt->cells = lat.cells;
    pt->error_pct = 100 * (pt->pr.full.mlups - pt->measured) / pt->measured;
    predict_before(v, row, in, &k, &lat, pt);
    pt->ranks = *ranks;
    v->n++;
}

/* One periodic row of several ranks, predicted on them. */
static void add_ranks_point(validation *v, int row, const ranks_row *ranks)
{
    const lbp_table *t = &v->lbm;
    model_validated_point kind; /* scheme and precision, for kernel_of */
    snprintf(kind.scheme, sizeof kind.scheme, "%s", lbp_table_text(t, row, lbp_table_column(t, "scheme")));
    snprintf(kind.precision, sizeof kind.precision, "%s", lbp_table_text(t, row, lbp_table_column(t, "precision")));
    const model_inputs *in = inputs_of(v, lbp_table_text(t, row, lbp_table_column(t, "backend")), t->line[row]);
    const model_kernel k = kernel_of(v, row, &kind);
    const model_lattice lat = lattice_of(v, row);
    char err[1024];
    const int before = v->ranks.n;
    if (ranks_validation_add(&v->ranks, in, &k, &lat, t, row, ranks, err, sizeof err)) model_bad_input("%s", err);
    if (v->ranks.n > before) {
        v->rank_launch[before] = k.launch;
        v->rank_local_bytes[before] = local_bytes_of(v, row);
    }
}

static void read_points(validation *v)
{
    static const char *const cols[] = {"device", "backend", "scheme", "precision", "boundary", "nx", "ny", "nz",
                                       "cells", "block_size", "mlups_median", NULL};
    char err[1024];
    snprintf(v->path, sizeof v->path, "%s/lbm.csv", v->dir);
    int r = lbp_table_read_columns(&v->lbm, v->path, cols, err, sizeof err);
    if (r == LBP_TABLE_MISSING) model_bad_input("%s: missing (expected the lbmkernels tool's measurements)", v->path);
    if (r) model_bad_input("%s", err);
    if (model_require_meta(v->dir, "lbm.csv", err, sizeof err)) model_bad_input("%s", err);
    v->pts = calloc(v->lbm.rows ? v->lbm.rows : 1, sizeof *v->pts);
    v->rank_launch = calloc(v->lbm.rows ? v->lbm.rows : 1, sizeof *v->rank_launch);
    v->rank_local_bytes = calloc(v->lbm.rows ? v->lbm.rows : 1, sizeof *v->rank_local_bytes);
    if (!v->pts || !v->rank_launch || !v->rank_local_bytes) lbp_fail("%s: out of memory", v->path);
    if (ranks_validation_init(&v->ranks, v->dir, v->lbm.rows, err, sizeof err)) model_bad_input("%s", err);
    const int ib = lbp_table_column(&v->lbm, "backend"), ibd = lbp_table_column(&v->lbm, "boundary");
    for (int row = 0; row < v->lbm.rows; row++) {
        if (strcmp(lbp_table_text(&v->lbm, row, ibd), "periodic") ||
            (v->only && strcmp(lbp_table_text(&v->lbm, row, ib), v->only)))
            continue;
        ranks_row ranks;
        if (ranks_row_read(&v->lbm, row, (long long)lbm_number(v, row, "nz", DIM, 0), &ranks, err, sizeof err))
            model_bad_input("%s", err);
        if (ranks.ranks > 1) add_ranks_point(v, row, &ranks);
        else add_point(v, row, &ranks);
    }
    if (!v->n)
        model_bad_input("%s: no periodic rows%s%s to validate", v->path, v->only ? " for backend " : "", v->only ? v->only : "");
}

/* An lbp_device_info from stream-meta.csv (the keys lbp_write_meta writes),
 * so model-meta.csv describes the same device. */
static void device_info_from_meta(const model_inputs *in, lbp_device_info *info)
{
    memset(info, 0, sizeof *info);
#define S(field, key) do { const char *v_ = model_meta_value(in, key); snprintf(info->field, sizeof info->field, "%s", v_ ? v_ : ""); } while (0)
#define I(field, key) do { const char *v_ = model_meta_value(in, key); info->field = v_ ? atoll(v_) : -1; } while (0)
    S(name, "device"); S(slug, "slug"); S(vendor, "vendor"); S(platform, "platform");
    S(driver, "driver");
    info->kind = lbp_kind_from_name(model_meta_value(in, "kind"));
    I(compute_units, "compute_units"); I(clock_mhz, "clock_mhz"); I(mem_clock_mhz, "mem_clock_mhz");
    I(bus_width_bits, "bus_width_bits"); I(l2_bytes, "l2_bytes"); I(global_mem_bytes, "global_mem_bytes");
    I(ecc, "ecc"); I(fp64, "fp64"); I(max_threads_per_cu, "max_threads_per_cu"); I(warp_size, "warp_size");
#undef S
#undef I
    const char *t = model_meta_value(in, "theoretical_gbs");
    info->theoretical_gbs = t ? atof(t) : 0;
    const char *cc = model_meta_value(in, "compute_capability");
    if (cc) sscanf(cc, "%d.%d", &info->cc_major, &info->cc_minor);
    if (!info->slug[0]) snprintf(info->slug, sizeof info->slug, "%s", in->device);
    snprintf(info->backend, sizeof info->backend, "%s", in->backend);
}

/* The corr_* columns of a point: each correction's effect before the
 * kernel (-1 on rows of several ranks, which are not predicted so). */
static const char *effects_text(const double *effect, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int c = 0; c < MODEL_CORRECTIONS && used < len; c++)
        used += effect ? snprintf(buf + used, len - used, ",%.4f", effect[c]) : snprintf(buf + used, len - used, ",-1");
    return buf;
}

static void write_model_csv(const validation *v, const lbp_device_info *info, int force)
{
    char header[2048], effects[512];
    snprintf(header, sizeof header, "%s,%s",
             "scheme,precision,nx,ny,nz,cells,block_size,measured_mlups,roofline_mlups,"
             "probe_mlups,full_mlups,error_pct,within_measured," MODEL_CSV_RANKS_COLUMNS
             ",cells_per_thread,stores,roofline_ws_mlups,flags,launch,exchange_beside,"
             "before_kernel_mlups,before_kernel_error_pct,before_kernel_path",
             model_corrections_columns());
    lbp_csv *csv = lbp_csv_open(v->dir, "model.csv", header, info, force);
    for (int i = 0; i < v->n; i++) {
        const model_validated_point *pt = &v->pts[i];
        const model_prediction *p = &pt->pr;
        const ranks_row *r = &pt->ranks;
        char flags[64];
        lbp_csv_set_backend(csv, pt->backend);
        lbp_csv_row(csv, "%s,%s,%lld,%lld,%lld,%.0f,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%s,1,%s,%d,%s,%lld,1,%.3f,-1,-1,-1,no,%d,%s,%.3f,%s,%s,-,%.3f,%.3f,%s%s",
                    pt->scheme, pt->precision, pt->nx, pt->ny, pt->nz, pt->cells, pt->block_size, pt->measured,
                    p->roofline.mlups, p->probe.mlups, p->full.mlups, pt->error_pct,
                    p->prov.within_measured ? "yes" : "no", r->exchange, r->overlap, r->scaling, r->nz_local,
                    r->exchange_us, pt->cells_per_thread, pt->stores, p->roofline.working_set_mlups,
                    model_flags_text(model_point_flags(pt), flags, sizeof flags), model_launch_name(pt->launch),
                    pt->before_mlups, pt->before_error_pct, model_full_path_name(pt->before_path),
                    effects_text(pt->before_effect, effects, sizeof effects));
    }
    for (int i = 0; i < v->ranks.n; i++) {
        char row[1024];
        ranks_point_csv(&v->ranks.pts[i], row, sizeof row);
        lbp_csv_set_backend(csv, v->ranks.pts[i].backend);
        char flags[64];
        lbp_csv_row(csv, "%s,%d,normal,-1,%s,%s,%s,-1,-,-%s", row, v->ranks.pts[i].cells_per_thread,
                    model_flags_text(model_spill_flag(v->rank_local_bytes[i]), flags, sizeof flags),
                    model_launch_name(v->rank_launch[i]),
                    interconnect_beside_names[v->ranks.pts[i].pr.exchange_beside],
                    effects_text(NULL, effects, sizeof effects));
    }
    lbp_csv_finish(csv);
}

/* "opencl:cuda" for each backend that read another's sweeps, else "own". */
static void borrowed_backends(const validation *v, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int b = 0; b < v->n_inputs; b++)
        if (strcmp(v->inputs[b].occupancy_from, v->inputs[b].backend) && used < len)
            used += snprintf(out + used, len - used, "%s%s:%s", used ? " " : "", v->inputs[b].backend,
                             v->inputs[b].occupancy_from);
    if (!out[0]) snprintf(out, len, "own");
}

static void write_model_meta(const validation *v, const lbp_device_info *info, const model_error_bars *bars,
                             const model_validation_stats *s, int ranks_over, int force)
{
    const model_full_path path = v->pts[0].pr.full.path;
    const int over = s->over_large + s->over_small + ranks_over;
    char borrowed[128];
    borrowed_backends(v, borrowed, sizeof borrowed);
    lbp_kv extra[24];
    int ne = 0;
#define KV(k, ...) do { extra[ne].key = k; snprintf(extra[ne].value, sizeof extra[ne].value, __VA_ARGS__); ne++; } while (0)
    KV("points", "%d", v->n);
    KV("max_error_pct", "%g", bars->large);
    KV("max_error_small_pct", "%g", bars->small);
    KV("worst_error_pct", "%.3f", s->worst_large);
    KV("worst_error_small_pct", "%.3f", s->worst_small);
    KV("points_over", "%d", over);
    KV("launch_combination", "%s", path != MODEL_FULL_SIZE_SWEEP ? "threads sweep (back to back)" : "max(memory, launch)");
    KV("full_path", "%s", s->geometry ? "geometry+threads_sweep" : path == MODEL_FULL_THREADS_SWEEP ? "threads_sweep" : "size_sweep");
    KV("geometry_points", "%d", s->geometry);
    KV("occupancy_from", "%s", borrowed);
    KV("launch_us", "%.3f", v->inputs[0].have_launch ? v->inputs[0].launch_us : -1);
    KV("start_cost_us", "%.3f", v->inputs[0].start_cost_ms * 1e3);
    KV("ranks_points", "%d", v->ranks.n);
    KV("ranks_points_over", "%d", ranks_over);
    KV("ranks_points_not_predicted", "%d", v->ranks.skipped);
    KV("result", "%s", over || v->ranks.skipped ? "fail" : "pass");
    KV("points_predicted_above_roofline", "%d", s->predicted_above_roofline);
    KV("points_measured_above_roofline", "%d", s->measured_above_roofline);
    KV("points_spilling", "%d", s->spilling);
    KV("before_kernel_points_over_bar", "%d", s->before_over_large + s->before_over_small);
    KV("before_kernel_worst_error_pct", "%.3f", s->before_worst_large);
    KV("before_kernel_worst_error_small_pct", "%.3f", s->before_worst_small);
#undef KV
    lbp_write_meta(v->dir, "model", info, model_argc, model_argv, extra, ne, force);
}

/* The bars not given on the command line, by the device's kind: a GPU's
 * kernels stream from a memory the probes saturate alike at every run (5 %
 * from 128^3, 10 % below); a CPU's share a socket's cache and memory with
 * whatever else the host runs, and its own probes, measured again after
 * the kernels, move by more than 5 % (doc/findings/cpu.md), so there the
 * bars are the ones the CPU model was set (10 % and 15 %). */
model_error_bars model_default_bars(model_error_bars given, int cpu)
{
    if (!(given.large >= 0)) given.large = cpu ? 10 : 5;
    if (!(given.small >= 0)) given.small = cpu ? 15 : 10;
    return given;
}

int model_cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        MODEL_SHARED_OPTS, MODEL_CORRECTION_OPTS, MODEL_OPT("force", no_argument, LBP_OPT_FORCE),
        MODEL_OPT("max-error", required_argument, OPT_MAX_ERROR),
        MODEL_OPT("max-error-small", required_argument, OPT_MAX_ERROR_SMALL), MODEL_OPT("json", no_argument, OPT_JSON),
        {0, 0, 0, 0}};
    validate_args args = {.bars = {.large = -1, .small = -1}};
    static const model_command cmd = {opts, validate_usage, validate_option,
                                      "the folder with lbm.csv, stream.csv, membench.csv"};
    model_cli cli;
    model_parse_options(&cli, argc, argv, &cmd, &args);
    const int force = cli.common.force;
    lbp_check_fresh(cli.dir, (const char *const[]){"model.csv", "model-meta.csv", NULL}, force);
    validation v = {.dir = cli.dir, .only = cli.backend};
    read_points(&v);
    const model_error_bars bars = model_default_bars(args.bars, v.n_inputs > 0 && v.inputs[0].is_cpu);
    model_validation_stats s;
    model_validation_stats_of(v.pts, v.n, &bars, &s);
    if (args.json) {
        report_json(&v, &bars, &s);
    } else {
        model_report_points(v.pts, v.n, &bars);
        model_report_validation(&s, &bars, v.inputs, v.n_inputs);
        model_error_table t;
        model_validation_errors(v.pts, v.n, &t);
        model_error_table_print(stdout, &t);
    }
    const int ranks_over = args.json ? ranks_points_over(&v.ranks, &bars)
                                     : ranks_validation_report(stdout, &v.ranks, bars.large, bars.small);
    lbp_device_info info;
    device_info_from_meta(&v.inputs[0], &info);
    write_model_csv(&v, &info, force);
    write_model_meta(&v, &info, &bars, &s, ranks_over, force);
    if (!args.json) printf("wrote %s/model.csv, %s/model-meta.csv\n", v.dir, v.dir);
    const int over = s.over_large + s.over_small + ranks_over, skipped = v.ranks.skipped;
    for (int b = 0; b < v.n_inputs; b++) model_inputs_free(&v.inputs[b]);
    ranks_validation_free(&v.ranks);
    lbp_table_free(&v.lbm);
    free(v.pts);
    free(v.rank_launch);
    free(v.rank_local_bytes);
    if (skipped) fprintf(stderr, "model: %d row(s) of several ranks not predicted (no interconnect fit)\n", skipped);
    if (over)
        fprintf(stderr, "model: %d point(s) over the error bar (%.1f %% from 128^3, %.1f %% below)\n", over,
                bars.large, bars.small);
    return over || skipped ? LBP_EXIT_FAIL : 0;
}
