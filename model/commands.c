/* What the commands share (options, loading), and the two small commands:
 * summary and drift. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "drift.h"
#include "ranks_print.h"
#include "table.h"

int model_argc;
char **model_argv;

void model_parse_options(model_cli *cli, int argc, char **argv, const model_command *cmd, void *ctx)
{
    *cli = (model_cli){.common = {.device = -1}};
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "", cmd->opts, NULL)) != -1) {
        if (o == OPT_DATA) cli->dir = optarg;
        else if (o == '?') lbp_bad_option();
        else if (o >= LBP_OPT_FIRST_TOOL && cmd->own) cmd->own(o, optarg, ctx);
        else if (!lbp_common_opt(&cli->common, o, optarg, cmd->usage)) lbp_bad_option();
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (!cli->dir) lbp_usage_error("missing --data DIR (%s)", cmd->data_dir_is);
    const char *b = cli->common.backend;
    cli->backend = b && strcmp(b, "auto") ? b : NULL;
}

void model_load_or_fail(model_inputs *in, const char *dir, const char *backend)
{
    char err[1024];
    if (model_inputs_load(in, dir, backend, err, sizeof err)) model_bad_input("%s", err);
    if (!in->have_launch)
        lbp_warn("%s/launch.csv: no back_to_back rows for %s: level 3 is incomplete (no launch interval)", dir,
                 in->backend);
}

/* ---- summary ------------------------------------------------------------ */

static const char summary_usage[] =
    "usage: model summary --data DIR [--backend B]\n"
    "From DIR/model.csv: for each backend, scheme and precision at the largest measured\n"
    "lattice (best block size there): measured, predicted (full model) and roofline\n"
    "MLUPS, measured as % of the roofline, and the model's error; then, where model.csv\n"
    "has rows of several ranks, per backend, scaling, exchange path and overlap the\n"
    "fastest scheme at the most ranks (measured, predicted, error, efficiencies) and\n"
    "whether the multi-device targets are met (weak-scaling efficiency >= 95 % at 8 GPUs\n"
    "with peer exchange and overlap; the model within 5 % per rank); then, where\n"
    "DIR/membench-recheck.csv is, how far the probes moved during the run (model drift).\n";

static double number_or_fail(const lbp_table *t, int row, const char *column)
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

/* The row of the largest lattice (at it, the best measured), -1 when none. */
static int largest_row(const lbp_table *t, const char *backend, const char *scheme, const char *precision)
{
    int best = -1;
    double best_cells = -1, best_measured = -1;
    for (int i = 0; i < t->rows; i++) {
        if (strcmp(text_of(t, i, "backend"), backend) || strcmp(text_of(t, i, "scheme"), scheme) ||
            strcmp(text_of(t, i, "precision"), precision) || !one_device_row(t, i))
            continue;
        const double cells = number_or_fail(t, i, "cells"), measured = number_or_fail(t, i, "measured_mlups");
        if (cells > best_cells || (cells == best_cells && measured > best_measured)) {
            best = i;
            best_cells = cells;
            best_measured = measured;
        }
    }
    return best;
}

static void print_summary_row(const lbp_table *t, int row)
{
    const double cells = number_or_fail(t, row, "cells"), measured = number_or_fail(t, row, "measured_mlups");
    const double roof = number_or_fail(t, row, "roofline_mlups"), full = number_or_fail(t, row, "full_mlups");
    printf("%-7s %-6s %-5s %12.0f %10.1f %10.1f %10.1f %10.1f%% %+8.2f\n", text_of(t, row, "backend"),
           text_of(t, row, "scheme"), text_of(t, row, "precision"), cells, measured, full, roof,
           roof > 0 ? 100 * measured / roof : 0, number_or_fail(t, row, "error_pct"));
}

/* The drift lines under the table, where the recheck file is; one it cannot
 * read costs these lines, not the table. */
static void print_drift_if_any(const char *dir)
{
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/membench-recheck.csv", dir);
    if (access(path, F_OK)) return;
    model_drift_row *rows;
    int unmatched, n = model_drift_match(dir, &rows, &unmatched, NULL, 0, err, sizeof err);
    if (n < 0) {
        lbp_warn("no drift: %s", err);
        return;
    }
    model_drift_print(rows, n);
    free(rows);
}

int model_cmd_summary(int argc, char **argv)
{
    static const struct option opts[] = {MODEL_SHARED_OPTS, {0, 0, 0, 0}};
    static const model_command cmd = {opts, summary_usage, NULL, "the folder with model.csv"};
    model_cli cli;
    model_parse_options(&cli, argc, argv, &cmd, NULL);
    char path[600], err[1024];
    snprintf(path, sizeof path, "%s/model.csv", cli.dir);
    static const char *const cols[] = {"backend", "scheme", "precision", "cells", "measured_mlups", "roofline_mlups",
                                       "full_mlups", "error_pct", NULL};
    lbp_table t;
    int r = lbp_table_read_columns(&t, path, cols, err, sizeof err);
    if (r == LBP_TABLE_MISSING) model_bad_input("%s: missing (run model validate first)", path);
    if (r) model_bad_input("%s", err);
    static const char *const schemes[] = {"push", "pull", "split", "aa"}, *const precisions[] = {"fp32", "fp64", "fp16s"};
    char backends[4][16];
    const int nb = backends_of(&t, cli.backend, backends, 4);
    printf("%-7s %-6s %-5s %12s %10s %10s %10s %11s %8s\n", "backend", "scheme", "prec", "cells", "measured",
           "predicted", "roofline", "% roofline", "error%");
    int printed = 0;
    for (int b = 0; b < nb; b++)
        for (int s = 0; s < 4; s++)
            for (int p = 0; p < 3; p++) {
                const int row = largest_row(&t, backends[b], schemes[s], precisions[p]);
                if (row < 0) continue;
                print_summary_row(&t, row);
                printed++;
            }
    if (!printed)
        model_bad_input("%s: no rows%s%s", path, cli.backend ? " for backend " : "", cli.backend ? cli.backend : "");
    if (ranks_summary_print(stdout, &t, err, sizeof err)) model_bad_input("%s", err);
    lbp_table_free(&t);
    print_drift_if_any(cli.dir);
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
