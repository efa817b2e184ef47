/* See errortable.h. */
#include "errortable.h"

#include <math.h>
#include <string.h>

#include "commands.h"

static model_error_group *group_of(model_error_table *t, const char *backend, const char *precision)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->g[i].backend, backend) && !strcmp(t->g[i].precision, precision)) return &t->g[i];
    if (t->n == MODEL_MAX_ERROR_GROUPS) return NULL;
    model_error_group *g = &t->g[t->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->backend, sizeof g->backend, "%s", backend);
    snprintf(g->precision, sizeof g->precision, "%s", precision);
    return g;
}

static void tally(model_error_tally *t, double pct)
{
    if (!isfinite(pct)) return;
    t->points++;
    t->sum_abs += fabs(pct);
    t->worst_abs = fmax(t->worst_abs, fabs(pct));
}

void model_error_table_add(model_error_table *t, const char *backend, const char *precision, double cells,
                           double at_launch_pct, double before_pct)
{
    model_error_group *g = group_of(t, backend, precision);
    if (!g) return;
    const int size = cells >= MODEL_LARGE_CELLS ? MODEL_LARGE : MODEL_SMALL;
    tally(&g->t[size][MODEL_AT_LAUNCH], at_launch_pct);
    tally(&g->t[size][MODEL_BEFORE_KERNEL], before_pct);
    t->before_missing += !isfinite(before_pct);
}

static const char *const size_names[MODEL_SIZE_CLASSES] = {">=128^3", "<128^3"};

/* "  1.23 /   4.56", or "-" where no point has the error. */
static void print_tally(FILE *f, const model_error_tally *t)
{
    if (t->points) fprintf(f, " %7.2f / %7.2f", t->sum_abs / t->points, t->worst_abs);
    else fprintf(f, " %17s", "-");
}

void model_error_table_print(FILE *f, const model_error_table *t)
{
    fprintf(f, "\nmodel error, |error| %% mean / worst: at the kernel's launch (probes measured there read), before "
               "the kernel (none measured at its own launch and lattice)\n");
    fprintf(f, "%-7s %-5s %-8s %6s %17s %17s\n", "backend", "prec", "lattices", "points", "at launch",
            "before kernel");
    for (int i = 0; i < t->n; i++)
        for (int s = 0; s < MODEL_SIZE_CLASSES; s++) {
            const model_error_tally *at = t->g[i].t[s];
            const int points = at[MODEL_AT_LAUNCH].points > at[MODEL_BEFORE_KERNEL].points
                                   ? at[MODEL_AT_LAUNCH].points : at[MODEL_BEFORE_KERNEL].points;
            if (!points) continue;
            fprintf(f, "%-7s %-5s %-8s %6d", t->g[i].backend, t->g[i].precision, size_names[s], points);
            print_tally(f, &at[MODEL_AT_LAUNCH]);
            print_tally(f, &at[MODEL_BEFORE_KERNEL]);
            fprintf(f, "\n");
        }
    if (t->before_missing)
        fprintf(f, "before the kernel: not known for %d point(s) (a model.csv written before its before_kernel "
                   "columns: run model validate again)\n", t->before_missing);
}

static void json_tally(model_json *j, const char *key, const model_error_tally *t)
{
    model_json_object(j, key);
    model_json_number(j, "points", t->points);
    model_json_number(j, "mean_abs_error_pct", t->points ? t->sum_abs / t->points : NAN);
    model_json_number(j, "worst_abs_error_pct", t->points ? t->worst_abs : NAN);
    model_json_close(j);
}

void model_error_table_json(model_json *j, const char *key, const model_error_table *t)
{
    model_json_array(j, key);
    for (int i = 0; i < t->n; i++)
        for (int s = 0; s < MODEL_SIZE_CLASSES; s++) {
            const model_error_tally *at = t->g[i].t[s];
            if (!at[MODEL_AT_LAUNCH].points && !at[MODEL_BEFORE_KERNEL].points) continue;
            model_json_object(j, NULL);
            model_json_string(j, "backend", t->g[i].backend);
            model_json_string(j, "precision", t->g[i].precision);
            model_json_string(j, "lattices", s == MODEL_LARGE ? "large" : "small");
            json_tally(j, "at_launch", &at[MODEL_AT_LAUNCH]);
            json_tally(j, "before_kernel", &at[MODEL_BEFORE_KERNEL]);
            model_json_close(j);
        }
    model_json_close(j);
}
