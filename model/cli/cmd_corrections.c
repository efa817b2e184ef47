/* model corrections: the catalog (corrections.h), and what each correction
 * does to the error before the kernel over result folders, from their
 * model.csv (model validate writes each correction's effect, corr_*): the
 * prediction without a correction is the one with it over its effect. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corrections.h"
#include "table.h"

static const char corrections_usage[] =
    "usage: model corrections [--list] [--max-error PCT --max-error-small PCT] DIR...\n"
    "The model's named corrections (each switched off by model predict or validate\n"
    "--without NAME), and for each what it does to the error before the kernel over\n"
    "the one-rank points of every DIR/model.csv (written by model validate): the\n"
    "points it changes, their mean and worst |error| with it and without it, and the\n"
    "points over the bar with and without.  A correction earns its keep where the\n"
    "error is lower with it.\n"
    "  --list                  the catalog only: name and what it corrects\n"
    "  --max-error PCT         bar from 128^3 on (default: each folder's model-meta.csv)\n"
    "  --max-error-small PCT   bar below 128^3 (likewise)\n"
    "Exit 0; 2: bad flags, or a model.csv without the corr_* columns (model validate\n"
    "--force writes them).\n";

typedef struct {
    int points[MODEL_CORRECTIONS];                   /* points the correction changes */
    double sum_with[MODEL_CORRECTIONS], sum_without[MODEL_CORRECTIONS];
    double worst_with[MODEL_CORRECTIONS], worst_without[MODEL_CORRECTIONS];
    int over_with[MODEL_CORRECTIONS], over_without[MODEL_CORRECTIONS];
    int all_points, all_over;
} tally;

/* The bar of a folder: the flag, else its model-meta.csv's, else the GPU's. */
static double bar_of(const char *dir, const char *key, double flag, double fallback)
{
    if (flag > 0) return flag;
    char path[1100];
    snprintf(path, sizeof path, "%s/model-meta.csv", dir);
    lbp_table m;
    char err[256];
    double v = fallback;
    if (lbp_table_read(&m, path, 1, err, sizeof err) == 0) {
        for (int r = 0; r < m.rows; r++)
            if (!strcmp(lbp_table_text(&m, r, 0), key)) v = atof(lbp_table_text(&m, r, 1));
        lbp_table_free(&m);
    }
    return v;
}

static void add_folder(const char *dir, double large_flag, double small_flag, tally *t)
{
    char path[1100], err[1024];
    snprintf(path, sizeof path, "%s/model.csv", dir);
    const double large = bar_of(dir, "max_error_pct", large_flag, 5);
    const double small = bar_of(dir, "max_error_small_pct", small_flag, 10);
    static const char *const cols[] = {"cells", "ranks", "measured_mlups", "before_kernel_mlups", NULL};
    lbp_table m;
    const int r = lbp_table_read_columns(&m, path, cols, err, sizeof err);
    if (r == LBP_TABLE_MISSING) model_bad_input("%s: missing (run model validate first)", path);
    if (r) model_bad_input("%s", err);
    int col[MODEL_CORRECTIONS];
    const char *names = model_corrections_columns();
    for (int c = 0; c < MODEL_CORRECTIONS; c++) {
        char name[64];
        const char *start = names;
        for (int i = 0; i < c; i++) start = strchr(start, ',') + 1;
        const size_t len = strcspn(start, ",");
        snprintf(name, sizeof name, "%.*s", (int)len, start);
        if ((col[c] = lbp_table_column(&m, name)) < 0)
            model_bad_input("%s: no column %s (a model.csv from before the corrections' columns: model validate "
                            "--force writes them)", path, name);
    }
    for (int row = 0; row < m.rows; row++) {
        double cells, ranks, measured, with;
        if (lbp_table_number_by_name(&m, row, "cells", &cells, err, sizeof err) ||
            lbp_table_number_by_name(&m, row, "ranks", &ranks, err, sizeof err) ||
            lbp_table_number_by_name(&m, row, "measured_mlups", &measured, err, sizeof err) ||
            lbp_table_number_by_name(&m, row, "before_kernel_mlups", &with, err, sizeof err))
            model_bad_input("%s", err);
        if (ranks != 1 || !(measured > 0) || !(with > 0)) continue;
        const double bar = cells >= MODEL_LARGE_CELLS ? large : small;
        const double e_with = fabs(100 * (with - measured) / measured);
        t->all_points++;
        t->all_over += e_with > bar;
        for (int c = 0; c < MODEL_CORRECTIONS; c++) {
            double effect;
            if (lbp_table_number(&m, row, col[c], &effect, err, sizeof err)) model_bad_input("%s", err);
            if (!(effect > 0) || fabs(effect - 1) < 1e-4) continue;
            const double e_without = fabs(100 * (with / effect - measured) / measured);
            t->points[c]++;
            t->sum_with[c] += e_with;
            t->sum_without[c] += e_without;
            t->worst_with[c] = fmax(t->worst_with[c], e_with);
            t->worst_without[c] = fmax(t->worst_without[c], e_without);
            t->over_with[c] += e_with > bar;
            t->over_without[c] += e_without > bar;
        }
    }
    lbp_table_free(&m);
}

static void print_catalog(void)
{
    for (int c = 0; c < MODEL_CORRECTIONS; c++)
        printf("%-17s %s\n", model_correction_catalog[c].name, model_correction_catalog[c].what);
}

typedef struct {
    int list;
    double large, small;
} corrections_args;

int model_cmd_corrections(int argc, char **argv)
{
    corrections_args a = {0};
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        const char *o = argv[first];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(corrections_usage, stdout);
            return 0;
        } else if (!strcmp(o, "--list")) {
            a.list = 1;
        } else if ((!strcmp(o, "--max-error") || !strcmp(o, "--max-error-small")) && first + 1 < argc) {
            const double v = lbp_parse_double(o, argv[first + 1], 0.001, 1000);
            if (!strcmp(o, "--max-error")) a.large = v;
            else a.small = v;
            first++;
        } else {
            lbp_usage_error("unknown or incomplete option '%s' (model corrections --help)", o);
        }
    }
    if (a.list) {
        print_catalog();
        return 0;
    }
    if (first >= argc) lbp_usage_error("model corrections: name one result folder or more (or --list)");
    tally t = {0};
    for (int i = first; i < argc; i++) add_folder(argv[i], a.large, a.small, &t);
    printf("before the kernel, %d one-rank points, %d over their bar with every correction:\n", t.all_points,
           t.all_over);
    printf("%-17s %7s %21s %21s %13s\n", "correction", "points", "mean |err| with/out", "worst |err| with/out",
           "over with/out");
    for (int c = 0; c < MODEL_CORRECTIONS; c++) {
        const int n = t.points[c];
        if (!n) {
            printf("%-17s %7d %21s %21s %13s\n", model_correction_catalog[c].name, 0, "-", "-", "-");
            continue;
        }
        printf("%-17s %7d %10.2f %10.2f %10.2f %10.2f %6d %6d\n", model_correction_catalog[c].name, n,
               t.sum_with[c] / n, t.sum_without[c] / n, t.worst_with[c], t.worst_without[c], t.over_with[c],
               t.over_without[c]);
    }
    return 0;
}
