/* Loading a result folder: see inputs.h. */
#include "inputs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "launchprobe.h"
#include "stats.h"

static void join(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* The meta file of the tool run that wrote a data file: a data file
 * without it is not a finished run's (a run killed between its files, or
 * files copied apart), so the model does not read it. */
static const char *meta_of(const char *name)
{
    static const char *const pairs[][2] = {
        {"stream.csv", "stream-meta.csv"},      {"membench.csv", "membench-meta.csv"},
        {"launch.csv", "membench-meta.csv"},    {"membench-fit.csv", "membench-meta.csv"},
        {"membench-geometry.csv", "membench-geometry-meta.csv"}, {"lbm.csv", "lbm-meta.csv"},
        {"membench-tile.csv", "membench-tile-meta.csv"},
        {"membench-launch.csv", "membench-launch-meta.csv"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (!strcmp(pairs[i][0], name)) return pairs[i][1];
    return NULL;
}

int model_require_meta(const char *dir, const char *name, char *err, size_t err_len)
{
    const char *meta = meta_of(name);
    if (!meta) return 0;
    char path[600];
    join(path, sizeof path, dir, meta);
    if (!access(path, F_OK)) return 0;
    return lbp_error(err, err_len, "%s: missing (%s/%s is read only beside the meta file of the run that wrote it)",
                     path, dir, name);
}

/* Read dir/name with its required columns. optional: a missing file is not
 * an error (returns 1). */
static int open_table(lbp_table *t, const char *dir, const char *name,
                      const char *const *columns, int optional, char *err, size_t err_len)
{
    char path[600];
    join(path, sizeof path, dir, name);
    int r = lbp_table_read_columns(t, path, columns, err, err_len);
    if (r == LBP_TABLE_MISSING) {
        if (optional) return 1;
        return lbp_error(err, err_len, "%s: missing (expected the %s output of the %s tool)", path, name,
                    !strncmp(name, "stream", 6) ? "stream" : "membench");
    }
    if (r != LBP_TABLE_OK) return -1;
    if (model_require_meta(dir, name, err, err_len)) {
        lbp_table_free(t);
        return -1;
    }
    return 0;
}

static int row_is_backend(const lbp_table *t, int row, const char *backend)
{
    return !strcmp(lbp_table_text(t, row, lbp_table_column(t, "backend")), backend);
}

static const char *text(const lbp_table *t, int row, const char *column)
{
    return lbp_table_text(t, row, lbp_table_column(t, column));
}

int model_number_in(const lbp_table *t, int r, const char *name, model_range range, double *out, char *err,
                    size_t err_len)
{
    double v;
    if (lbp_table_number_by_name(t, r, name, &v, err, err_len)) return -1;
    const int low = range.lo_open ? !(v > range.lo) : !(v >= range.lo);
    if ((range.has_unknown && v == range.unknown) ||
        (isfinite(v) && !low && v <= range.hi && (!range.whole || v == floor(v)))) {
        *out = v;
        return 0;
    }
    char unknown[48] = "";
    if (range.has_unknown) snprintf(unknown, sizeof unknown, " (or %g: unknown)", range.unknown);
    return lbp_error(err, err_len, "%s:%d: column %s: expected %s in %c%g, %g]%s, got '%s'", t->path, t->line[r],
                     name, range.whole ? "a whole number" : "a number", range.lo_open ? '(' : '[', range.lo, range.hi,
                     unknown, lbp_table_text(t, r, lbp_table_column(t, name)));
}

/* The ranges of the inputs' columns: what a measurement can be. */
static const model_range
    POSITIVE_MS = {.lo = 0, .hi = 1e9, .lo_open = 1},           /* a median time in ms: above 0, under 11 days */
    POSITIVE_GBS = {.lo = 0, .hi = 1e6, .lo_open = 1},          /* up to 1 PB/s */
    POSITIVE_BYTES = {.lo = 0, .hi = 1e15, .lo_open = 1},
    WORD_BYTES = {.lo = 1, .hi = 64, .whole = 1},
    WORDS = {.lo = 1, .hi = 1 << 16, .whole = 1},
    FIT_WORDS = {.lo = 1, .hi = 1 << 16, .whole = 1, .has_unknown = 1, .unknown = -1}, /* -1: a fit over words */
    MISALIGNED = {.lo = 0, .hi = 1 << 16, .whole = 1},
    BLOCK_SIZE = {.lo = 1, .hi = 1 << 20, .whole = 1},
    BLOCKS_PER_CU = {.lo = 0, .hi = 1 << 16, .whole = 1, .has_unknown = 1, .unknown = -1},
    OCCUPANCY = {.lo = 0, .hi = 1, .lo_open = 1, .has_unknown = 1, .unknown = -1},
    THREADS = {.lo = 1, .hi = 1e13, .whole = 1},
    OPS = {.lo = 0, .hi = 1e9},
    FLAG = {.lo = -1e9, .hi = 1e9}, /* 0 or 1, checked with the other columns (read_probe_fields) */
    LAUNCHES = {.lo = 1, .hi = 1e12, .whole = 1},
    VECTOR = {.lo = 1, .hi = 64, .whole = 1},
    ROW = {.lo = 1, .hi = 1 << 20, .whole = 1},
    BAND = {.lo = 1, .hi = 32, .whole = 1},
    TILE = {.lo = 0, .hi = 1024, .whole = 1},
    MICROSECONDS = {.lo = 0, .hi = 1e12},                        /* 0: no measurable interval */
    SLOPE_NS = {.lo = -1e12, .hi = 1e12};

/* A number of row r within range into dst, or return -1 from the row
 * reader with err. */
#define NUM(t, r, name, range, dst)                                                  \
    do {                                                                             \
        double v_;                                                                   \
        if (model_number_in(t, r, name, range, &v_, err, err_len)) return -1;        \
        dst = v_;                                                                    \
    } while (0)

/* The loaders' one way out: the table freed, their status returned. */
static int closed(lbp_table *t, int status)
{
    lbp_table_free(t);
    return status;
}

int model_backends_in(const char *dir, char names[][16], int max, char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "backend", NULL};
    lbp_table t;
    if (open_table(&t, dir, "stream.csv", cols, 0, err, err_len)) return -1;
    int n = 0;
    for (int r = 0; r < t.rows; r++) {
        const char *b = text(&t, r, "backend");
        if (!strcmp(b, "likwid")) continue;
        int seen = 0;
        for (int i = 0; i < n; i++) seen |= !strcmp(names[i], b);
        if (!seen && n < max) snprintf(names[n++], 16, "%s", b);
    }
    lbp_table_free(&t);
    return n;
}

const char *model_meta_value(const model_inputs *in, const char *key)
{
    for (int r = 0; r < in->meta.rows; r++)
        if (!strcmp(lbp_table_text(&in->meta, r, 0), key)) return lbp_table_text(&in->meta, r, 1);
    return NULL;
}

int model_lattice_fits(const model_inputs *in, double cells, double bytes_per_cell, char *err, size_t err_len)
{
    const double need = cells * bytes_per_cell;
    if (in->global_mem_bytes <= 0 || need <= in->global_mem_bytes) return 0;
    char a[32], b[32];
    lbp_bytes_text(a, sizeof a, need);
    lbp_bytes_text(b, sizeof b, in->global_mem_bytes);
    return lbp_error(err, err_len, "%.4g cells of %g B take %s, more than the %s of %s", cells, bytes_per_cell, a, b,
                     in->device[0] ? in->device : in->dir);
}

static double meta_number(const model_inputs *in, const char *key)
{
    const char *v = model_meta_value(in, key);
    if (!v || !*v) return 0;
    char *end;
    double x = strtod(v, &end);
    return (end != v && isfinite(x) && x > 0) ? x : 0;
}

/* A byte count of the meta file: absent, or a whole number >= 0 (0: the
 * device did not say), never text, NaN or a negative count taken for
 * "unknown" in silence. */
static int check_meta_bytes(const model_inputs *in, const char *path, const char *key, char *err, size_t err_len)
{
    const char *v = model_meta_value(in, key);
    if (!v) return 0;
    char *end;
    const double x = strtod(v, &end);
    if (end != v && !*end && isfinite(x) && x >= 0 && x <= 1e15 && x == floor(x)) return 0;
    int line = 0;
    for (int r = 0; r < in->meta.rows; r++)
        if (!strcmp(lbp_table_text(&in->meta, r, 0), key)) line = in->meta.line[r];
    return lbp_error(err, err_len, "%s:%d: %s: expected a whole number of bytes >= 0 (0: unknown), got '%s'", path,
                     line, key, v);
}

static int load_meta(model_inputs *in, char *err, size_t err_len)
{
    char path[600];
    join(path, sizeof path, in->dir, "stream-meta.csv");
    int r = lbp_table_read(&in->meta, path, 0, err, err_len);
    if (r == LBP_TABLE_MISSING)
        return lbp_error(err, err_len, "%s: missing (expected the stream tool's key,value meta file)", path);
    if (r) return -1;
    const char *kind = model_meta_value(in, "kind");
    in->is_cpu = kind && !strcmp(kind, "cpu");
    const char *wa = model_meta_value(in, "write_allocate");
    in->write_allocate = !wa ? -1 : !strcmp(wa, "yes") ? 1 : !strcmp(wa, "no") ? 0 : -1;
    if (check_meta_bytes(in, path, "l2_bytes", err, err_len) ||
        check_meta_bytes(in, path, "global_mem_bytes", err, err_len))
        return -1;
    in->l2_bytes = meta_number(in, "l2_bytes");
    in->global_mem_bytes = meta_number(in, "global_mem_bytes");
    in->compute_units = fmax(meta_number(in, "compute_units"), 0);
    in->likwid_copy_mem_gbs = meta_number(in, "likwid_copy_mem_gbs");
    in->likwid_copy_gbs = meta_number(in, "likwid_copy_gbs");
    return 0;
}

/* A generated copy's row (not the driver's copy, not likwid-bench's, whose
 * rows carry the device's backend but measure the host): 1 and *c, 0 for
 * another row, -1 on a bad field. */
static int read_copy(const model_inputs *in, const lbp_table *t, int r, model_copy_row *c, char *err, size_t err_len)
{
    if (!row_is_backend(t, r, in->backend) || strcmp(text(t, r, "kernel"), "copy") || !strcmp(text(t, r, "sweep"), "likwid"))
        return 0;
    c->size_sweep = !strcmp(text(t, r, "sweep"), "size");
    NUM(t, r, "word_bytes", WORD_BYTES, c->word_bytes);
    NUM(t, r, "array_bytes", POSITIVE_BYTES, c->working_set);
    c->working_set *= 2;
    NUM(t, r, "bytes_moved", POSITIVE_BYTES, c->bytes_moved);
    NUM(t, r, "ms_median", POSITIVE_MS, c->ms_median);
    NUM(t, r, "gbs_median", POSITIVE_GBS, c->gbs_median);
    c->line = t->line[r];
    return 1;
}

/* The device's theoretical bandwidth (stream-meta.csv's theoretical_gbs:
 * 2 x memory clock x bus width, the DRAM's), 0 where it is not known (a
 * CPU's 0.0). */
static double theoretical_gbs(const model_inputs *in)
{
    const char *v = model_meta_value(in, "theoretical_gbs");
    return v ? atof(v) : 0;
}

/* A row's measured bandwidth (gbs_median, and the bytes it moved over its
 * median time, which the model reads too) above the device's theoretical:
 * no device moves more than its bus carries, so the file is not a
 * measurement (a unit slip, a scaled copy).  The margin covers only the
 * theoretical figure's own rounding: written to 0.1 GB/s, from a memory
 * clock the driver reports rounded (to a kHz on CUDA, a MHz elsewhere:
 * 0.1 % at 1 GHz), and the event timer's ~0.5 us on the shortest copy
 * past the L2 (tens of us: ~1 %); 2 % in all, while the best copies
 * measured reach 88..91 % of it (data/).  Rows whose working set fits the
 * L2 are served by it, which may outrun the DRAM: only rows past it
 * (every row where the L2 is unknown) are held to the figure. */
#define THEORETICAL_MARGIN 1.02
static int check_physical(const model_inputs *in, const lbp_table *t, int r, char *err, size_t err_len)
{
    const double theory = theoretical_gbs(in);
    double gbs, bytes, ms, array;
    if (!(theory > 0) || !row_is_backend(t, r, in->backend) || !strcmp(text(t, r, "sweep"), "likwid")) return 0;
    NUM(t, r, "gbs_median", POSITIVE_GBS, gbs);
    NUM(t, r, "bytes_moved", POSITIVE_BYTES, bytes);
    NUM(t, r, "ms_median", POSITIVE_MS, ms);
    NUM(t, r, "array_bytes", POSITIVE_BYTES, array);
    if (in->l2_bytes > 0 && 2 * array <= in->l2_bytes) return 0;
    const double timed = bytes / (ms * 1e6), most = fmax(gbs, timed);
    if (most <= THEORETICAL_MARGIN * theory) return 0;
    return lbp_error(err, err_len, "%s:%d: %s %.6g GB/s is above the device's theoretical %.1f GB/s "
                     "(stream-meta.csv theoretical_gbs): not a measurement", t->path, t->line[r],
                     gbs >= timed ? "gbs_median" : "bytes_moved / ms_median", most, theory);
}

static int load_stream(model_inputs *in, char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "backend", "sweep", "kernel", "word_bytes",
                                       "array_bytes", "bytes_moved", "ms_median", "gbs_median", NULL};
    lbp_table t;
    if (open_table(&t, in->dir, "stream.csv", cols, 0, err, err_len)) return -1;
    in->copies = calloc(t.rows ? t.rows : 1, sizeof *in->copies);
    for (int r = 0; r < t.rows; r++) {
        const int got = read_copy(in, &t, r, &in->copies[in->n_copies], err, err_len);
        if (got < 0 || check_physical(in, &t, r, err, err_len)) return closed(&t, -1);
        if (got && !in->device[0]) snprintf(in->device, sizeof in->device, "%s", text(&t, r, "device"));
        in->n_copies += got;
    }
    if (!in->n_copies)
        return closed(&t, lbp_error(err, err_len, "%s: no kernel=copy rows for backend %s (expected the stream tool's "
                                    "copy sweeps)", t.path, in->backend));
    return closed(&t, 0);
}

/* t0 (see inputs.h): intercept of ms vs bytes over the size-sweep points
 * that live in L2 (working set <= L2), clamped to [0, fastest such run]. */
static void measure_start_cost(model_inputs *in)
{
    in->start_cost_ms = 0;
    in->start_cost_points = 0;
    if (in->l2_bytes <= 0) return;
    int n = 0;
    double *x = malloc(sizeof *x * in->n_copies), *y = malloc(sizeof *y * in->n_copies);
    double fastest = INFINITY;
    for (int i = 0; i < in->n_copies; i++) {
        const model_copy_row *c = &in->copies[i];
        if (!c->size_sweep || c->working_set > in->l2_bytes) continue;
        x[n] = c->bytes_moved;
        y[n] = c->ms_median;
        fastest = fmin(fastest, c->ms_median);
        n++;
    }
    if (n >= 3) {
        lbp_fit fit = lbp_fit_line(x, y, n);
        in->start_cost_ms = fmax(0, fmin(fit.intercept, fastest));
        in->start_cost_points = n;
    }
    free(x);
    free(y);
}

/* A run's time without t0.  t0 is fitted, so it may overshoot the fastest
 * runs a little; the floor (1 % of the run) keeps a bandwidth finite. */
double model_busy_ms(const model_inputs *in, double ms)
{
    return fmax(ms - in->start_cost_ms, 0.01 * ms);
}

static const char *const sweep_names[] = {"words", "misaligned_reads", "misaligned_writes", "misaligned_both",
                                          "occupancy", "word_bytes", "threads", "payload", "geometry", "vector",
                                          "rows", "narrow", "tile", "row_nx", "other"};

const char *model_probe_sweep_name(model_probe_sweep s)
{
    return s <= PROBE_OTHER ? sweep_names[s] : "any";
}

static model_probe_sweep probe_sweep_of(const char *s)
{
    for (int i = 0; i < PROBE_OTHER; i++)
        if (!strcmp(s, sweep_names[i])) return (model_probe_sweep)i;
    return PROBE_OTHER;
}

/* A backend that forced no blocks per SM (OpenCL) has no occupancy curve:
 * another backend's of the same device serves.  How bandwidth follows the
 * resident blocks is the memory system's, not the launch path's, and the
 * model reads the curve as ratios only. */
static void find_occupancy_source(model_inputs *in, const lbp_table *t)
{
    const int req = lbp_table_column(t, "blocks_per_cu_requested");
    snprintf(in->occupancy_from, sizeof in->occupancy_from, "%s", in->backend);
    int own = 0;
    const char *other = NULL;
    for (int r = 0; r < t->rows && req >= 0; r++) {
        double q = 0;
        if (probe_sweep_of(text(t, r, "sweep")) != PROBE_OCCUPANCY || lbp_table_number(t, r, req, &q, NULL, 0) || q <= 0)
            continue;
        if (row_is_backend(t, r, in->backend)) own = 1;
        else if (!other) other = text(t, r, "backend");
    }
    if (!own && other) snprintf(in->occupancy_from, sizeof in->occupancy_from, "%s", other);
}

/* Room for n more rows in *rows (of *count), zeroed. */
static int grow(model_probe_row **rows, int count, int n, const char *path, char *err, size_t err_len)
{
    model_probe_row *grown = realloc(*rows, sizeof **rows * (size_t)(count + n + 1));
    if (!grown) return lbp_error(err, err_len, "%s: out of memory", path);
    *rows = grown;
    memset(grown + count, 0, sizeof *grown * (size_t)(n + 1));
    return 0;
}

/* A probe row's block shape (columns tile_x, tile_y, tile_z: all three or
 * none), checked: 0 0 0, or each >= 1 and at most 1024 threads, in the tile
 * sweep only, which has one in every row. */
static int read_tile(const lbp_table *t, int r, model_probe_row *p, char *err, size_t err_len)
{
    static const char *const cols[3] = {"tile_x", "tile_y", "tile_z"};
    int have = 0;
    for (int i = 0; i < 3; i++) have += lbp_table_column(t, cols[i]) >= 0;
    if (have && have < 3)
        return lbp_error(err, err_len, "%s: expected the columns tile_x, tile_y and tile_z together", t->path);
    for (int i = 0; i < 3 && have; i++) NUM(t, r, cols[i], TILE, p->tile[i]);
    const int none = !p->tile[0] && !p->tile[1] && !p->tile[2];
    if (!none && (!p->tile[0] || !p->tile[1] || !p->tile[2] || p->tile[0] * p->tile[1] * p->tile[2] > 1024))
        return lbp_error(err, err_len, "%s:%d: tile %dx%dx%d: expected 0x0x0, or each size >= 1 and at most 1024 "
                         "threads in all", t->path, t->line[r], p->tile[0], p->tile[1], p->tile[2]);
    if (none == (p->sweep == PROBE_TILE))
        return lbp_error(err, err_len, "%s:%d: tile %dx%dx%d in sweep '%s' (the tile sweep's rows, and only "
                         "they, have a block shape)", t->path, t->line[r], p->tile[0], p->tile[1], p->tile[2],
                         text(t, r, "sweep"));
    return 0;
}

/* The fields of a probe row, checked. */
static int read_probe_fields(const lbp_table *t, int r, model_probe_row *p, double *ms, char *err, size_t err_len)
{
    p->sweep = probe_sweep_of(text(t, r, "sweep"));
    NUM(t, r, "words", WORDS, p->words);
    NUM(t, r, "word_bytes", WORD_BYTES, p->word_bytes);
    NUM(t, r, "misaligned_reads", MISALIGNED, p->misaligned_reads);
    NUM(t, r, "misaligned_writes", MISALIGNED, p->misaligned_writes);
    NUM(t, r, "block_size", BLOCK_SIZE, p->block_size);
    if (lbp_table_column(t, "blocks_per_cu_requested") >= 0)
        NUM(t, r, "blocks_per_cu_requested", BLOCKS_PER_CU, p->blocks_requested);
    NUM(t, r, "blocks_per_cu", BLOCKS_PER_CU, p->blocks_per_cu);
    NUM(t, r, "occupancy", OCCUPANCY, p->occupancy);
    NUM(t, r, "threads", THREADS, p->threads);
    if (lbp_table_column(t, "ops") >= 0) NUM(t, r, "ops", OPS, p->ops);
    if (lbp_table_column(t, "in_place") >= 0) NUM(t, r, "in_place", FLAG, p->in_place);
    if (lbp_table_column(t, "swapped") >= 0) NUM(t, r, "swapped", FLAG, p->swapped);
    p->vector = 1;
    if (lbp_table_column(t, "vector") >= 0) NUM(t, r, "vector", VECTOR, p->vector);
    p->row = 1;
    if (lbp_table_column(t, "row") >= 0) NUM(t, r, "row", ROW, p->row);
    p->band = 32;
    if (lbp_table_column(t, "band") >= 0) NUM(t, r, "band", BAND, p->band);
    if (read_tile(t, r, p, err, err_len)) return -1;
    NUM(t, r, "ms_median", POSITIVE_MS, *ms);
    const int stores = lbp_table_column(t, "stores");
    const char *how = stores >= 0 ? lbp_table_text(t, r, stores) : "normal";
    if (strcmp(how, "normal") && strcmp(how, "nontemporal"))
        return lbp_error(err, err_len, "%s:%d: expected stores normal|nontemporal, got '%s'", t->path, t->line[r], how);
    p->nontemporal = !strcmp(how, "nontemporal");
    const int form = lbp_table_column(t, "payload_form");
    const char *pf = form >= 0 ? lbp_table_text(t, r, form) : "masked";
    if (strcmp(pf, "masked") && strcmp(pf, "folded"))
        return lbp_error(err, err_len, "%s:%d: expected payload_form masked|folded, got '%s'", t->path, t->line[r], pf);
    p->folded = !strcmp(pf, "folded");
    if (p->folded && ((p->sweep != PROBE_ROWS && p->sweep != PROBE_ROW_NX) || p->ops <= 0))
        return lbp_error(err, err_len, "%s:%d: a folded payload outside the rows and row_nx sweeps' payload probes",
                         t->path, t->line[r]);
    if (p->threads <= 0 || *ms <= 0 || p->words <= 0 || p->ops < 0)
        return lbp_error(err, err_len, "%s:%d: expected positive words, threads and ms_median, ops >= 0", t->path,
                         t->line[r]);
    if (p->in_place != 0 && (p->in_place != 1 || p->misaligned_reads != p->misaligned_writes))
        return lbp_error(err, err_len, "%s:%d: expected in_place 0, or 1 with misaligned_reads = misaligned_writes",
                         t->path, t->line[r]);
    if ((p->swapped != 0 && p->swapped != 1) || (p->swapped && p->in_place))
        return lbp_error(err, err_len, "%s:%d: expected swapped 0, or 1 with in_place 0", t->path, t->line[r]);
    return 0;
}

/* A probe row of membench.csv (geometry = 0), membench-geometry.csv or
 * membench-tile.csv (tile_file = 1: tile rows only): 1 and *p, 0 for a row
 * the model does not read, -1 on a bad one. */
static int read_probe(const model_inputs *in, const lbp_table *t, int r, int geometry, int tile_file,
                      model_probe_row *p, char *err, size_t err_len)
{
    double ms;
    memset(p, 0, sizeof *p);
    if (read_probe_fields(t, r, p, &ms, err, err_len)) return -1;
    /* the model reads in-place and swapped probes at the kernels' own launches
     * and in the rows and row_nx sweeps only, and in-place vector probes
     * (A-A's shifted words one per cell, vector.c) */
    const int layout_read = p->sweep == PROBE_GEOMETRY || p->sweep == PROBE_ROWS || p->sweep == PROBE_ROW_NX;
    const int vector_in_place = p->vector > 1 && (p->sweep == PROBE_VECTOR || p->sweep == PROBE_OCCUPANCY);
    if ((p->swapped && !layout_read) || (p->in_place && !layout_read && !vector_in_place)) return 0;
    if (geometry != (p->sweep == PROBE_GEOMETRY) || (tile_file && p->sweep != PROBE_TILE))
        return lbp_error(err, err_len, "%s:%d: sweep '%s' does not belong in this file", t->path, t->line[r],
                         text(t, r, "sweep"));
    if (p->nontemporal && (p->sweep != PROBE_ROWS || p->in_place || p->misaligned_writes))
        return lbp_error(err, err_len, "%s:%d: non-temporal stores outside the rows sweep's stores into the other "
                         "arrays (M = 0)", t->path, t->line[r]);
    if (p->band != 32 && p->sweep != PROBE_NARROW)
        return lbp_error(err, err_len, "%s:%d: band %d outside the narrow sweep (every other row's is 32)", t->path,
                         t->line[r], p->band);
    if (p->sweep == PROBE_THREADS || p->sweep == PROBE_GEOMETRY || p->sweep == PROBE_ROWS ||
        p->sweep == PROBE_NARROW || p->sweep == PROBE_TILE || p->sweep == PROBE_ROW_NX) {
        /* per launch of a back-to-back queue: nothing to remove */
        p->launch_us = ms * 1e3;
        p->ns_per_thread = ms * 1e6 / p->threads;
    } else {
        /* the same start cost as the copies: the probe runs one launch too */
        p->ns_per_thread = model_busy_ms(in, ms) * 1e6 / p->threads;
    }
    return 1;
}

/* Whose row r is: this backend's (0), occupancy_from's threads or geometry
 * row, borrowed (1), or neither (-1).  The occupancy sweep is read from
 * occupancy_from. */
static int row_owner(const model_inputs *in, const lbp_table *t, int r, int geometry)
{
    const model_probe_sweep sweep = geometry ? PROBE_GEOMETRY : probe_sweep_of(text(t, r, "sweep"));
    const int borrowing = strcmp(in->occupancy_from, in->backend) != 0;
    if (borrowing && (sweep == PROBE_THREADS || sweep == PROBE_GEOMETRY) && row_is_backend(t, r, in->occupancy_from))
        return 1;
    return row_is_backend(t, r, sweep == PROBE_OCCUPANCY && !geometry ? in->occupancy_from : in->backend) ? 0 : -1;
}

/* The probe files: membench.csv, then the optional ones, whose rows join
 * the same list: membench-geometry.csv (the geometry sweep alone) and
 * membench-tile.csv (the tile sweep alone, run into a folder that has its
 * membench.csv already). */
enum { MEMBENCH_MAIN, MEMBENCH_GEOMETRY, MEMBENCH_TILE };
static const char *const membench_files[] = {"membench.csv", "membench-geometry.csv", "membench-tile.csv"};

static int load_membench(model_inputs *in, int which, char *err, size_t err_len)
{
    const int geometry = which == MEMBENCH_GEOMETRY;
    static const char *const cols[] = {"device", "backend", "sweep", "words", "word_bytes",
                                       "misaligned_reads", "misaligned_writes", "block_size",
                                       "blocks_per_cu", "occupancy", "threads", "ms_median", NULL};
    lbp_table t;
    int r0 = open_table(&t, in->dir, membench_files[which], cols, which != MEMBENCH_MAIN, err, err_len);
    if (r0 == 1) return 0;
    if (r0) return -1;
    if (which == MEMBENCH_MAIN) find_occupancy_source(in, &t);
    if (grow(&in->probes, in->n_probes, t.rows, t.path, err, err_len) ||
        grow(&in->borrowed, in->n_borrowed, t.rows, t.path, err, err_len))
        return closed(&t, -1);
    const int before = in->n_probes;
    for (int r = 0; r < t.rows; r++) {
        const int owner = row_owner(in, &t, r, geometry);
        if (owner < 0) continue;
        int *count = owner ? &in->n_borrowed : &in->n_probes;
        const int got = read_probe(in, &t, r, geometry, which == MEMBENCH_TILE,
                                   (owner ? in->borrowed : in->probes) + *count, err, err_len);
        if (got < 0) return closed(&t, -1);
        *count += got;
    }
    if (which == MEMBENCH_MAIN && in->n_probes == before)
        return closed(&t, lbp_error(err, err_len, "%s: no rows for backend %s (expected the membench tool's probe "
                                    "sweeps)", t.path, in->backend));
    return closed(&t, 0);
}

/* A misalignment fit of this backend: 1 and *m, 0 for another row, -1 on
 * a bad field. */
static int read_fit(const model_inputs *in, const lbp_table *t, int r, model_misalign_fit *m, char *err, size_t err_len)
{
    if (!row_is_backend(t, r, in->backend)) return 0;
    const char *f = text(t, r, "fit");
    m->misaligned = !strcmp(f, "misaligned_reads") ? 0 : !strcmp(f, "misaligned_writes") ? 1
                  : !strcmp(f, "misaligned_both") ? 2 : -1;
    if (m->misaligned < 0) return 0;
    NUM(t, r, "word_bytes", WORD_BYTES, m->word_bytes);
    NUM(t, r, "words", FIT_WORDS, m->words);
    NUM(t, r, "slope_ns", SLOPE_NS, m->slope_ns);
    return 1;
}

static int load_fits(model_inputs *in, char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "backend", "fit", "word_bytes", "words", "slope_ns", NULL};
    lbp_table t;
    int r0 = open_table(&t, in->dir, "membench-fit.csv", cols, 1, err, err_len);
    if (r0 == 1) return 0;
    if (r0) return -1;
    in->fits = calloc(t.rows ? t.rows : 1, sizeof *in->fits);
    for (int r = 0; r < t.rows; r++) {
        const int got = read_fit(in, &t, r, &in->fits[in->n_fits], err, err_len);
        if (got < 0) return closed(&t, -1);
        in->n_fits += got;
    }
    return closed(&t, 0);
}

/* A launch.csv row of this backend: its mode (1 back_to_back, 2 graph,
 * 3 sync_each), launches and µs; 0 for another row, -1 on a bad field. */
static int read_launch(const model_inputs *in, const lbp_table *t, int r, double *launches, double *us, char *err,
                       size_t err_len)
{
    if (!row_is_backend(t, r, in->backend)) return 0;
    const char *mode = text(t, r, "mode");
    const int kind = !strcmp(mode, "back_to_back") ? 1 : !strcmp(mode, "graph") ? 2 : !strcmp(mode, "sync_each") ? 3 : 0;
    if (!kind) return 0;
    NUM(t, r, "launches", LAUNCHES, *launches);
    NUM(t, r, "us_median", MICROSECONDS, *us);
    return kind;
}

/* membench-launch.csv (optional): the described kernels' launches with N
 * aligned words (launchprobe.h). */
static int load_launch_probes(model_inputs *in, char *err, size_t err_len)
{
    lbp_table t;
    const int r0 = open_table(&t, in->dir, "membench-launch.csv", model_launch_probe_columns, 1, err, err_len);
    if (r0 == 1) return 0;
    if (r0) return -1;
    return closed(&t, model_launch_probes_read(in, &t, err, err_len));
}

/* ℓ: the back_to_back row with the most launches (the steady state), the
 * graph row's interval (launches with no host in between) and the
 * sync_each row's (the host waits for each). */
static int load_launch(model_inputs *in, char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "backend", "mode", "launches", "us_median", NULL};
    lbp_table t;
    int r0 = open_table(&t, in->dir, "launch.csv", cols, 1, err, err_len);
    if (r0 == 1) return 0;
    if (r0) return -1;
    double most[4] = {-1, -1, -1, -1};
    for (int r = 0; r < t.rows; r++) {
        double launches, us;
        const int kind = read_launch(in, &t, r, &launches, &us, err, err_len);
        if (kind < 0) return closed(&t, -1);
        if (!kind || launches <= most[kind]) continue;
        most[kind] = launches;
        if (kind == 1) in->launch_us = us, in->have_launch = 1;
        else if (kind == 2) in->gap_us = us, in->have_gap = 1;
        else in->sync_us = us, in->have_sync = 1;
    }
    return closed(&t, 0);
}

int model_inputs_load(model_inputs *in, const char *dir, const char *backend, char *err,
                      size_t err_len)
{
    memset(in, 0, sizeof *in);
    snprintf(in->dir, sizeof in->dir, "%s", dir);
    if (!backend) {
        char names[8][16];
        int n = model_backends_in(dir, names, 8, err, err_len);
        if (n < 0) return -1;
        if (n == 0) return lbp_error(err, err_len, "%s/stream.csv: no rows (expected copy measurements)", dir);
        if (n > 1)
            return lbp_error(err, err_len, "%s holds results of several backends (%s, %s%s): pass --backend",
                        dir, names[0], names[1], n > 2 ? ", ..." : "");
        snprintf(in->backend, sizeof in->backend, "%s", names[0]);
    } else {
        snprintf(in->backend, sizeof in->backend, "%s", backend);
    }
    if (load_meta(in, err, err_len) || load_stream(in, err, err_len)) goto bad;
    measure_start_cost(in);
    if (load_membench(in, MEMBENCH_MAIN, err, err_len) || load_membench(in, MEMBENCH_GEOMETRY, err, err_len) ||
        load_membench(in, MEMBENCH_TILE, err, err_len) || load_fits(in, err, err_len) ||
        load_launch(in, err, err_len) || load_launch_probes(in, err, err_len))
        goto bad;
    if (model_probe_index_build(&in->probe_index, in->probes, in->n_probes) ||
        model_probe_index_build(&in->borrowed_index, in->borrowed, in->n_borrowed)) {
        lbp_error(err, err_len, "%s: out of memory indexing the probe rows", in->dir);
        goto bad;
    }
    return 0;
bad:
    model_inputs_free(in);
    return -1;
}

void model_inputs_free(model_inputs *in)
{
    lbp_table_free(&in->meta);
    model_probe_index_free(&in->probe_index);
    model_probe_index_free(&in->borrowed_index);
    free(in->copies);
    free(in->probes);
    free(in->borrowed);
    free(in->fits);
    free(in->launch_probes);
    in->copies = NULL;
    in->probes = NULL;
    in->fits = NULL;
    in->launch_probes = NULL;
    in->n_copies = in->n_probes = in->n_fits = in->n_launch_probes = 0;
}

model_inputs model_inputs_borrowed(const model_inputs *in)
{
    model_inputs other = *in;
    other.probes = in->borrowed;
    other.n_probes = in->n_borrowed;
    other.probe_index = in->borrowed_index;
    return other;
}

double model_size_bandwidth(const model_inputs *in, double working_set, int word_bytes,
                            int *clamped)
{
    int same_word = 0;
    for (int i = 0; i < in->n_copies; i++)
        same_word += in->copies[i].size_sweep && in->copies[i].word_bytes == word_bytes;
    model_point *p = malloc(sizeof *p * (in->n_copies + 1));
    int n = 0;
    for (int i = 0; i < in->n_copies; i++) {
        const model_copy_row *c = &in->copies[i];
        if (!c->size_sweep || (same_word >= 2 && c->word_bytes != word_bytes)) continue;
        double gbs = c->bytes_moved / (model_busy_ms(in, c->ms_median) * 1e6);
        /* best configuration per size: keep the max, not the mean */
        int k;
        for (k = 0; k < n; k++)
            if (p[k].x == log(c->working_set)) break;
        if (k == n) p[n++] = (model_point){log(c->working_set), gbs};
        else if (gbs > p[k].y) p[k].y = gbs;
    }
    if (!n) { free(p); return 0; }
    n = model_points_prepare(p, n);
    int edge = 0;
    double gbs = model_interp(p, n, log(working_set), &edge);
    if (edge) {
        int above = log(working_set) > p[n - 1].x;
        int plateau = in->l2_bytes > 0 && exp(p[n - 1].x) >= 4 * in->l2_bytes;
        if (!(above && plateau)) *clamped = 1;
    }
    free(p);
    return gbs;
}

/* ---- the probe index --------------------------------------------------------- */

static const model_probe_row *sort_rows; /* qsort has no context argument */

static int by_group_then_row(const void *a, const void *b)
{
    const int i = *(const int *)a, j = *(const int *)b;
    const model_probe_row *p = &sort_rows[i], *q = &sort_rows[j];
    if (p->sweep != q->sweep) return p->sweep < q->sweep ? -1 : 1;
    if (p->word_bytes != q->word_bytes) return p->word_bytes < q->word_bytes ? -1 : 1;
    return (i > j) - (i < j); /* file order within a group */
}

int model_probe_index_build(model_probe_index *ix, const model_probe_row *probes, int n)
{
    memset(ix, 0, sizeof *ix);
    ix->order = malloc(sizeof *ix->order * (size_t)(n + 1));
    ix->groups = malloc(sizeof *ix->groups * (size_t)(n + 1));
    if (!ix->order || !ix->groups) {
        model_probe_index_free(ix);
        return -1;
    }
    for (int i = 0; i < n; i++) ix->order[i] = i;
    sort_rows = probes;
    qsort(ix->order, (size_t)n, sizeof *ix->order, by_group_then_row);
    for (int k = 0; k < n; k++) {
        const model_probe_row *p = &probes[ix->order[k]];
        model_probe_group *g = ix->n_groups ? &ix->groups[ix->n_groups - 1] : NULL;
        if (g && g->sweep == (int)p->sweep && g->word_bytes == p->word_bytes) {
            g->n++;
            continue;
        }
        ix->groups[ix->n_groups++] = (model_probe_group){(int)p->sweep, p->word_bytes, k, 1};
    }
    return 0;
}

void model_probe_index_free(model_probe_index *ix)
{
    free(ix->order);
    free(ix->groups);
    memset(ix, 0, sizeof *ix);
}

int model_probe_index_group(const model_probe_index *ix, int sweep, int word_bytes, const int **order)
{
    if (!ix->order) return -1;
    int lo = 0, hi = ix->n_groups;
    while (lo < hi) { /* the first group not before (sweep, word_bytes) */
        const int mid = (lo + hi) / 2;
        const model_probe_group *g = &ix->groups[mid];
        if (g->sweep < sweep || (g->sweep == sweep && g->word_bytes < word_bytes)) lo = mid + 1;
        else hi = mid;
    }
    *order = ix->order;
    if (lo == ix->n_groups || ix->groups[lo].sweep != sweep || ix->groups[lo].word_bytes != word_bytes) return 0;
    *order = ix->order + ix->groups[lo].start;
    return ix->groups[lo].n;
}
