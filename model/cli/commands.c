/* What the commands share (options, loading), and the two small commands:
 * summary and drift. */
#include "commands.h"
#include "corrections.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "drift.h"
#include "errortable.h"
#include "json.h"
#include "ranks_print.h"
#include "table.h"
#include "verdict.h"

int model_argc;
char **model_argv;

void model_parse_options(model_cli *cli, int argc, char **argv, const model_command *cmd, void *ctx)
{
    *cli = (model_cli){.common = {.device = -1}};
    optind = 1;
    int o;
    while ((o = lbp_getopt(argc, argv, cmd->opts)) != -1) {
        if (o == OPT_DATA) cli->dir = optarg;
        else if (o == OPT_WITHOUT || o == OPT_CORRECTIONS) {
            char err[512];
            if ((o == OPT_WITHOUT ? model_corrections_without : model_corrections_only)(optarg, err, sizeof err))
                lbp_usage_error("--%s: %s", o == OPT_WITHOUT ? "without" : "corrections", err);
        } else if (o >= LBP_OPT_FIRST_TOOL && cmd->own) cmd->own(o, optarg, ctx);
        else if (!lbp_common_opt(&cli->common, o, optarg, cmd->usage)) lbp_bad_option();
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!cli->dir) lbp_usage_error("missing --data DIR (%s)", cmd->data_dir_is);
    const char *b = cli->common.backend;
    cli->backend = b && strcmp(b, "auto") ? b : NULL;
}

/* Several backends and no --backend is a usage error (exit 2), named
 * before loading: the folder is fine, the command line is not. */
static void require_backend_if_several(const char *dir, const char *backend)
{
    char names[8][16], err[1024];
    if (backend) return;
    const int n = model_backends_in(dir, names, 8, err, sizeof err);
    if (n > 1)
        lbp_usage_error("%s holds results of several backends (%s, %s%s): pass --backend", dir, names[0], names[1],
                        n > 2 ? ", ..." : "");
}

void model_load_or_fail(model_inputs *in, const char *dir, const char *backend)
{
    char err[1024];
    require_backend_if_several(dir, backend);
    if (model_inputs_load(in, dir, backend, err, sizeof err)) model_bad_input("%s", err);
    if (!in->have_launch)
        lbp_warn("%s/launch.csv: no back_to_back rows for %s: level 3 is incomplete (no launch interval)", dir,
                 in->backend);
}

/* ---- summary ------------------------------------------------------------ */

static const char summary_usage[] =
    "usage: model summary --data DIR [--backend B] [--json]\n"
    "From DIR/model.csv: for each scheme and precision, every backend at the largest\n"
    "lattice they all measured (best block size there; a backend's larger lattice on\n"
    "a line of its own): measured, predicted (full model) and roofline\n"
    "MLUPS, measured as % of the roofline, and the model's error; then the model's\n"
    "two errors per backend and precision, from 128^3 and below (points, mean and\n"
    "worst |error|): at the kernel's launch (error_pct) and before the kernel\n"
    "(before_kernel_error_pct: none of the probes measured at its own launch and\n"
    "lattice; '-' in a model.csv written before that column); then, where model.csv\n"
    "has rows of several ranks, per backend, scaling, exchange path and overlap the\n"
    "fastest scheme at the most ranks (measured, predicted, error, efficiencies) and\n"
    "whether the multi-device targets are met (weak-scaling efficiency >= 95 % at 8 GPUs\n"
    "with peer exchange and overlap; the model within 5 % per rank); then, where\n"
    "DIR/membench-recheck.csv is, how far the probes moved during the run (model drift)\n"
    "and how many points lie within it; where DIR/bench.log is, how many timings'\n"
    "repetitions scattered.  It ends with the best and the verdict (verdict.h): per\n"
    "backend and precision the fastest verified point at a lattice larger than the\n"
    "last-level cache (stream-meta.csv l2_bytes), its lattice beside it; the points\n"
    "over the error bar (model-meta.csv's bars) of how many, per backend and\n"
    "precision and of several ranks; the points above their roofline (flags); on a\n"
    "CPU the write-allocate verdict, its copy_mem / copy ratio and whether it is\n"
    "close.  A QUICK run says so first.\n"
    "  --json                  the one-device table, drift and tallies as one JSON object\n";

double model_table_number(const lbp_table *t, int row, const char *column)
{
    char err[1024];
    double v;
    if (lbp_table_number_by_name(t, row, column, &v, err, sizeof err)) model_bad_input("%s", err);
    return v;
}

static const char *text_of(const lbp_table *t, int row, const char *column)
{
    return lbp_table_text(t, row, lbp_table_column(t, column));
}

/* The backends with rows, in order of appearance (only: that one). */
static int backends_of(const lbp_table *t, const char *only, char names[][16], int max)
{
    int n = 0;
    for (int i = 0; i < t->rows; i++) {
        const char *b = text_of(t, i, "backend");
        int seen = 0;
        for (int j = 0; j < n; j++) seen |= !strcmp(names[j], b);
        if (!seen && n < max && (!only || !strcmp(only, b))) snprintf(names[n++], 16, "%s", b);
    }
    return n;
}

/* A row of the one-device sweep: not one of several ranks, nor the one-rank
 * run measured beside them (files without the column: every row) */
static int one_device_row(const lbp_table *t, int row)
{
    return lbp_table_column(t, "scaling") < 0 || !strcmp(text_of(t, row, "scaling"), "none");
}

/* How a row's kernel stored ("normal" where model.csv predates the column):
 * pull with non-temporal stores is a kernel of its own beside pull. */
static const char *stores_of(const lbp_table *t, int row)
{
    return lbp_table_column(t, "stores") < 0 ? "normal" : text_of(t, row, "stores");
}

static int row_is(const lbp_table *t, int row, const char *backend, const char *scheme, const char *precision,
                  const char *stores)
{
    return !strcmp(text_of(t, row, "backend"), backend) && !strcmp(text_of(t, row, "scheme"), scheme) &&
           !strcmp(text_of(t, row, "precision"), precision) && !strcmp(stores_of(t, row), stores);
}

static int same_lattice(const lbp_table *t, int a, int b)
{
    return model_table_number(t, a, "nx") == model_table_number(t, b, "nx") &&
           model_table_number(t, a, "ny") == model_table_number(t, b, "ny") &&
           model_table_number(t, a, "nz") == model_table_number(t, b, "nz");
}

/* The best measured row of a backend, scheme and precision: at the lattice
 * of row `at` (-1: at the largest lattice); -1 when none. */
static int best_row(const lbp_table *t, const char *backend, const char *scheme, const char *precision,
                    const char *stores, int at)
{
    int best = -1;
    double best_cells = -1, best_measured = -1;
    for (int i = 0; i < t->rows; i++) {
        if (!row_is(t, i, backend, scheme, precision, stores) || !one_device_row(t, i) ||
            (at >= 0 && !same_lattice(t, i, at)))
            continue;
        const double cells = model_table_number(t, i, "cells"), measured = model_table_number(t, i, "measured_mlups");
        if (cells > best_cells || (cells == best_cells && measured > best_measured)) {
            best = i;
            best_cells = cells;
            best_measured = measured;
        }
    }
    return best;
}

/* A row at the largest lattice that every backend with rows of this scheme
 * and precision measured, so that their rows compare; -1 when they share
 * none. */
static int common_lattice_row(const lbp_table *t, char backends[][16], int nb, const char *scheme,
                              const char *precision, const char *stores)
{
    int common = -1;
    for (int i = 0; i < t->rows; i++) {
        if (strcmp(text_of(t, i, "scheme"), scheme) || strcmp(text_of(t, i, "precision"), precision) ||
            strcmp(stores_of(t, i), stores) || !one_device_row(t, i))
            continue;
        if (common >= 0 && model_table_number(t, i, "cells") <= model_table_number(t, common, "cells")) continue;
        int everyone = 1;
        for (int b = 0; b < nb && everyone; b++)
            everyone = best_row(t, backends[b], scheme, precision, stores, -1) < 0 ||
                       best_row(t, backends[b], scheme, precision, stores, i) >= 0;
        if (everyone) common = i;
    }
    return common;
}

/* "256³" for a cube, else "NX×NY×NZ", padded to `width` columns (the
 * signs are two bytes and one column). */
static void print_lattice(const lbp_table *t, int row, int width)
{
    const double nx = model_table_number(t, row, "nx"), ny = model_table_number(t, row, "ny"), nz = model_table_number(t, row, "nz");
    char text[64];
    int columns;
    if (nx == ny && ny == nz) columns = snprintf(text, sizeof text, "%.0f\u00b3", nx) - 1;
    else columns = snprintf(text, sizeof text, "%.0f\u00d7%.0f\u00d7%.0f", nx, ny, nz) - 2;
    printf("%*s%s", width > columns ? width - columns : 0, "", text);
}

/* The scheme as the summary names it: "-nt" where its stores are
 * non-temporal. */
static void summary_scheme(const lbp_table *t, int row, char *scheme, size_t len)
{
    snprintf(scheme, len, "%s%s", text_of(t, row, "scheme"), strcmp(stores_of(t, row), "normal") ? "-nt" : "");
}

/* The widths of the summary's text columns: the longest of their header
 * and every row shown, so that a long name ("split-nt", a backend of
 * nine letters) never shifts the numbers after it. */
typedef struct {
    int backend, scheme, precision;
} summary_widths;

static int widest(int width, const char *text)
{
    const int n = (int)strlen(text);
    return n > width ? n : width;
}

static summary_widths summary_widths_of(const lbp_table *t, const int *rows, int n)
{
    summary_widths w = {7, 6, 5}; /* the widths before any name outgrew them */
    for (int i = 0; i < n; i++) {
        char scheme[64];
        summary_scheme(t, rows[i], scheme, sizeof scheme);
        w.backend = widest(w.backend, text_of(t, rows[i], "backend"));
        w.scheme = widest(w.scheme, scheme);
        w.precision = widest(w.precision, text_of(t, rows[i], "precision"));
    }
    return w;
}

static void print_summary_row(const lbp_table *t, int row, const summary_widths *w)
{
    const double measured = model_table_number(t, row, "measured_mlups");
    const double roof = model_table_number(t, row, "roofline_mlups"), full = model_table_number(t, row, "full_mlups");
    char scheme[64];
    summary_scheme(t, row, scheme, sizeof scheme);
    printf("%-*s %-*s %-*s ", w->backend, text_of(t, row, "backend"), w->scheme, scheme, w->precision,
           text_of(t, row, "precision"));
    print_lattice(t, row, 14);
    printf(" %10.1f %10.1f %10.1f %10.1f%% %+8.2f\n", measured, full, roof, roof > 0 ? 100 * measured / roof : 0,
           model_table_number(t, row, "error_pct"));
}

/* A scheme and precision: each backend at the lattice they all measured,
 * then any backend's larger lattice of its own.  Their rows in out (room
 * for 2 per backend); returns how many. */
static int scheme_rows(const lbp_table *t, char backends[][16], int nb, const char *scheme, const char *precision,
                       const char *stores, int *out)
{
    const int common = common_lattice_row(t, backends, nb, scheme, precision, stores);
    int n = 0;
    for (int b = 0; b < nb && common >= 0; b++) {
        const int row = best_row(t, backends[b], scheme, precision, stores, common);
        if (row >= 0) out[n++] = row;
    }
    for (int b = 0; b < nb; b++) {
        const int row = best_row(t, backends[b], scheme, precision, stores, -1);
        if (row >= 0 && (common < 0 || !same_lattice(t, row, common))) out[n++] = row;
    }
    return n;
}

/* A QUICK run (--quick in a tool's command line) is said first: its sweeps
 * are shorter and smaller, so its numbers do not stand beside a full run's. */
static int run_was_quick(const char *dir)
{
    static const char *const metas[] = {"stream-meta.csv", "membench-meta.csv", "lbm-meta.csv", NULL};
    int quick = 0;
    for (int i = 0; metas[i] && !quick; i++) {
        char path[600], line[4096];
        snprintf(path, sizeof path, "%s/%s", dir, metas[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        while (!quick && fgets(line, sizeof line, f))
            quick = !strncmp(line, "command,", 8) && strstr(line, " --quick");
        fclose(f);
    }
    return quick;
}

static const char quick_note[] = "QUICK run: fewer sizes, block sizes and repetitions, smaller arrays (a CPU's may "
                                 "stay in its last-level cache); its figures do not compare with a full run's";

/* How many of model.csv's points the model predicts within their backend's
 * median drift (their error is the device's own as much as the model's):
 * *within of *points (the points of a backend with drift). */
static void count_within_drift(const lbp_table *t, const model_drift_row *rows, int n, int *within, int *points)
{
    *within = *points = 0;
    for (int i = 0; i < t->rows; i++) {
        const double drift = model_drift_median_abs(rows, n, text_of(t, i, "backend"));
        if (drift < 0 || !one_device_row(t, i)) continue;
        (*points)++;
        *within += fabs(model_table_number(t, i, "error_pct")) <= drift;
    }
}

/* The drift rows, where the recheck file is (n 0: none); one it cannot
 * read costs the drift, not the table. */
static int drift_rows_if_any(const char *dir, model_drift_row **rows)
{
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/membench-recheck.csv", dir);
    *rows = NULL;
    if (access(path, F_OK)) return 0;
    int unmatched, n = model_drift_match(dir, rows, &unmatched, NULL, 0, err, sizeof err);
    if (n < 0) {
        lbp_warn("no drift: %s", err);
        return 0;
    }
    return n;
}

/* The timings whose repetitions scattered, counted in the run's bench.log
 * (make bench keeps it), so that many warnings read as one fact; -1
 * without a log. */
static int scatter_warnings(const char *dir)
{
    char path[600], line[4096];
    snprintf(path, sizeof path, "%s/bench.log", dir);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int scattered = 0;
    while (fgets(line, sizeof line, f)) scattered += strstr(line, "repetitions scatter by") != NULL;
    fclose(f);
    return scattered;
}

/* model.csv's points of one rank (every row in files without the column),
 * their two errors: at the kernel's launch and before it (NAN in files
 * written before that column). */
static void errors_of(const lbp_table *t, model_error_table *e)
{
    memset(e, 0, sizeof *e);
    const int before = lbp_table_column(t, "before_kernel_error_pct") >= 0, ranks = lbp_table_column(t, "ranks") >= 0;
    for (int i = 0; i < t->rows; i++) {
        if (ranks && model_table_number(t, i, "ranks") > 1) continue;
        model_error_table_add(e, text_of(t, i, "backend"), text_of(t, i, "precision"), model_table_number(t, i, "cells"),
                              model_table_number(t, i, "error_pct"),
                              before ? model_table_number(t, i, "before_kernel_error_pct") : NAN);
    }
}

/* What summary shows: its rows of model.csv, the model's two errors, the
 * drift, the tallies. */
typedef struct {
    const char *dir, *backend; /* backend: --backend's, NULL every one */
    const lbp_table *t;
    const int *rows;
    int n;
    model_error_table errors;
    model_drift_row *drift;
    int n_drift, within, drift_points, scattered, quick;
} summary_view;

static void summary_text(const summary_view *v)
{
    if (v->quick) printf("%s\n", quick_note);
    const summary_widths w = summary_widths_of(v->t, v->rows, v->n);
    printf("%-*s %-*s %-*s %14s %10s %10s %10s %11s %8s\n", w.backend, "backend", w.scheme, "scheme", w.precision,
           "prec", "lattice", "measured", "predicted", "roofline", "% roofline", "error%");
    for (int i = 0; i < v->n; i++) print_summary_row(v->t, v->rows[i], &w);
    model_error_table_print(stdout, &v->errors);
    char err[1024];
    if (ranks_summary_print(stdout, v->t, err, sizeof err)) model_bad_input("%s", err);
    if (v->n_drift) {
        model_drift_print(v->drift, v->n_drift);
        printf("points of model.csv within their backend's median drift (|error| <= median |change|): %d of %d\n",
               v->within, v->drift_points);
    }
    if (v->scattered >= 0) printf("timings whose repetitions scatter (warnings in bench.log): %d\n", v->scattered);
    model_best_print(stdout, v->t, v->dir, v->backend);
    model_verdict_print(stdout, v->t, v->dir, v->backend);
}

static void summary_json_row(model_json *j, const lbp_table *t, int row)
{
    static const char *const texts[] = {"backend", "scheme", "precision", NULL};
    static const char *const numbers[] = {"nx", "ny", "nz", "cells", "measured_mlups", "full_mlups", "roofline_mlups",
                                          "error_pct", NULL};
    model_json_object(j, NULL);
    for (int i = 0; texts[i]; i++) model_json_string(j, texts[i], text_of(t, row, texts[i]));
    model_json_string(j, "stores", stores_of(t, row));
    for (int i = 0; numbers[i]; i++) model_json_number(j, numbers[i], model_table_number(t, row, numbers[i]));
    model_json_close(j);
}

static void summary_json(const summary_view *v)
{
    model_json j;
    model_json_begin(&j, stdout);
    model_json_string(&j, "data", v->dir);
    model_json_bool(&j, "quick", v->quick);
    if (v->quick) model_json_string(&j, "quick_note", quick_note);
    model_json_array(&j, "rows");
    for (int i = 0; i < v->n; i++) summary_json_row(&j, v->t, v->rows[i]);
    model_json_close(&j);
    model_error_table_json(&j, "model_error", &v->errors);
    char err[1024];
    if (ranks_summary_json(&j, v->t, err, sizeof err)) model_bad_input("%s", err);
    if (v->n_drift) {
        model_json_object(&j, "drift");
        for (int i = 0; i < v->n_drift; i++)
            if (i == 0 || strcmp(v->drift[i].backend, v->drift[i - 1].backend))
                model_json_number(&j, v->drift[i].backend, model_drift_median_abs(v->drift, v->n_drift, v->drift[i].backend));
        model_json_close(&j);
        model_json_object(&j, "within_drift");
        model_json_number(&j, "points", v->within);
        model_json_number(&j, "of", v->drift_points);
        model_json_close(&j);
    }
    if (v->scattered >= 0) model_json_number(&j, "scatter_warnings", v->scattered);
    model_best_json(&j, v->t, v->dir, v->backend);
    model_verdict_json(&j, v->t, v->dir, v->backend);
    model_json_end(&j);
}

/* Every row's MLUPS what a run can be: finite, above 0 and at most 1e7
 * (10 TLUPS: the inputs' 1 PB/s bandwidth cap, inputs.c, over the
 * smallest update lbmkernels writes, D3Q19 fp16s's 76 B, is 1.3e7), or
 * exit 2 on the first that is not (a percentage of -inf or of 30 digits
 * is no summary). */
static void check_mlups(const lbp_table *t)
{
    static const char *const cols[] = {"measured_mlups", "full_mlups", "roofline_mlups"};
    static const model_range MLUPS = {.lo = 0, .hi = 1e7, .lo_open = 1};
    char err[1024];
    double v;
    for (int r = 0; r < t->rows; r++)
        for (int c = 0; c < 3; c++)
            if (model_number_in(t, r, cols[c], MLUPS, &v, err, sizeof err)) model_bad_input("%s", err);
}

static void summary_option(int o, const char *arg, void *ctx)
{
    (void)arg;
    if (o == OPT_JSON) *(int *)ctx = 1;
}

int model_cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {MODEL_SHARED_OPTS, MODEL_OPT("json", no_argument, OPT_JSON), {0, 0, 0, 0}};
    static const model_command cmd = {opts, summary_usage, summary_option, "the folder with model.csv"};
    model_cli cli;
    int json = 0;
    model_parse_options(&cli, argc, argv, &cmd, &json);
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/model.csv", cli.dir);
    static const char *const cols[] = {"backend", "scheme", "precision", "nx", "ny", "nz", "cells", "measured_mlups",
                                       "roofline_mlups", "full_mlups", "error_pct", NULL};
    lbp_table t;
    int r = lbp_table_read_columns(&t, path, cols, err, sizeof err);
    if (r == LBP_TABLE_MISSING) model_bad_input("%s: missing (run model validate first)", path);
    if (r) model_bad_input("%s", err);
    check_mlups(&t);
    static const char *const schemes[] = {"push", "pull", "split", "aa"}, *const precisions[] = {"fp32", "fp64", "fp16s"};
    char backends[4][16];
    const int nb = backends_of(&t, cli.backend, backends, 4);
    static const char *const stores[] = {"normal", "nontemporal"};
    int rows[4 * 2 * 3 * 2 * 4];
    summary_view v = {.dir = cli.dir, .backend = cli.backend, .t = &t, .rows = rows, .quick = run_was_quick(cli.dir),
                      .scattered = scatter_warnings(cli.dir)};
    for (int s = 0; s < 4; s++)
        for (int st = 0; st < 2; st++)
            for (int p = 0; p < 3; p++)
                v.n += scheme_rows(&t, backends, nb, schemes[s], precisions[p], stores[st], rows + v.n);
    if (!v.n) model_bad_input("%s: no rows%s%s", path, cli.backend ? " for backend " : "", cli.backend ? cli.backend : "");
    errors_of(&t, &v.errors);
    v.n_drift = drift_rows_if_any(cli.dir, &v.drift);
    if (v.n_drift) count_within_drift(&t, v.drift, v.n_drift, &v.within, &v.drift_points);
    if (json) summary_json(&v);
    else summary_text(&v);
    free(v.drift);
    lbp_table_free(&t);
    return 0;
}

/* ---- drift -------------------------------------------------------------- */

static const char drift_usage[] =
    "usage: model drift --data DIR [--max-change PCT] [--force]\n"
    "How far the device moved during a run: make bench measures the threads sweep's\n"
    "probes again after the kernels, at the thread counts of their lattices\n"
    "(DIR/membench-recheck.csv).  Each is matched with the same probe of\n"
    "DIR/membench.csv (backend, word size, L, M, payload, block size, blocks per SM,\n"
    "thread count); writes DIR/drift.csv (first_ms, recheck_ms: per-launch medians;\n"
    "change_pct) and prints, per backend, the median and the largest change.  The\n"
    "model reads the first run, the kernels ran between the two: a model error\n"
    "smaller than the change cannot be told from the device's own.\n"
    "  --max-change PCT        exit 1 when a probe changed by more (default: no bar)\n"
    "  --force                 replace an existing drift.csv\n";

static void drift_option(int o, const char *arg, void *ctx)
{
    if (o == OPT_MAX_CHANGE) *(double *)ctx = lbp_parse_double("--max-change", arg, 0, 1e6);
}

/* drift.csv; returns how many probes changed by more than max_change. */
static int write_drift(const char *dir, const model_drift_row *rows, int n, lbp_device_info *info, int force,
                       double max_change)
{
    lbp_csv *csv = lbp_csv_open(dir, "drift.csv",
                                "word_bytes,threads,misaligned_reads,misaligned_writes,ops,block_size,"
                                "blocks_per_cu_requested,first_ms,recheck_ms,change_pct",
                                info, force);
    int over = 0;
    for (int i = 0; i < n; i++) {
        const model_drift_row *r = &rows[i];
        lbp_csv_set_backend(csv, r->backend);
        lbp_csv_row(csv, "%d,%.0f,%d,%d,%d,%d,%d,%.6f,%.6f,%.3f", r->word_bytes, r->threads, r->misaligned_reads,
                    r->misaligned_writes, r->ops, r->block_size, r->blocks_requested, r->first_ms, r->recheck_ms,
                    r->change_pct);
        over += max_change >= 0 && fabs(r->change_pct) > max_change;
    }
    lbp_csv_commit(csv);
    return over;
}

int model_cmd_drift(int argc, char **argv)
{
    static const struct option opts[] = {MODEL_SHARED_OPTS, MODEL_OPT("force", no_argument, LBP_OPT_FORCE),
                                         MODEL_OPT("max-change", required_argument, OPT_MAX_CHANGE), {0, 0, 0, 0}};
    static const model_command cmd = {opts, drift_usage, drift_option,
                                      "the folder with membench.csv and membench-recheck.csv"};
    model_cli cli;
    double max_change = -1;
    model_parse_options(&cli, argc, argv, &cmd, &max_change);
    if (cli.backend) lbp_usage_error("--backend: drift compares every backend's probes");
    lbp_check_fresh(cli.dir, (const char *const[]){"drift.csv", NULL}, cli.common.force);
    char err[1024];
    lbp_device_info info = {0};
    model_drift_row *rows;
    int unmatched, n = model_drift_match(cli.dir, &rows, &unmatched, info.slug, sizeof info.slug, err, sizeof err);
    if (n < 0) model_bad_input("%s", err);
    if (unmatched)
        lbp_warn("%s/membench-recheck.csv: %d probe(s) with no partner in membench.csv: left out", cli.dir, unmatched);
    snprintf(info.backend, sizeof info.backend, "%s", rows[0].backend);
    const int over = write_drift(cli.dir, rows, n, &info, cli.common.force, max_change);
    model_drift_print(rows, n);
    printf("written: %s/drift.csv\n", cli.dir);
    free(rows);
    if (over) {
        fprintf(stderr, "model: %d probe(s) changed by more than %.1f %% during the run\n", over, max_change);
        return LBP_EXIT_FAIL;
    }
    return 0;
}
