/* model validate's sums: see validation.h. */
#include "validation.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

int model_spill_flag(long long local_bytes)
{
    return local_bytes > 0 ? MODEL_FLAG_SPILLS : 0;
}

int model_prediction_flags(const model_prediction *p)
{
    const double roof = p->roofline.working_set_mlups;
    return roof > 0 && p->full.mlups > roof ? MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE : 0;
}

int model_point_flags(const model_validated_point *v)
{
    const double roof = v->pr.roofline.working_set_mlups;
    const int spills = model_spill_flag(v->local_bytes);
    if (!(roof > 0)) return spills;
    return model_prediction_flags(&v->pr) | (v->measured > roof ? MODEL_FLAG_MEASURED_ABOVE_ROOFLINE : 0) | spills;
}

const char *model_flags_text(int flags, char *buf, size_t len)
{
    static const struct {
        int flag;
        const char *name;
    } names[] = {{MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE, "predicted>roofline"},
                 {MODEL_FLAG_MEASURED_ABOVE_ROOFLINE, "measured>roofline"},
                 {MODEL_FLAG_SPILLS, "spills"}};
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((flags & names[i].flag) && used < len)
            used += snprintf(buf + used, len - used, "%s%s", used ? ";" : "", names[i].name);
    if (!flags) snprintf(buf, len, "none");
    return buf;
}

int model_point_is_large(const model_validated_point *v)
{
    return v->cells >= MODEL_LARGE_CELLS;
}

/* Written so that a NaN error is over the bar (every comparison with NaN
 * is false). */
int model_point_over(const model_validated_point *v, const model_error_bars *bars)
{
    return !(fabs(v->error_pct) <= (model_point_is_large(v) ? bars->large : bars->small));
}

int model_point_over_before(const model_validated_point *v, const model_error_bars *bars)
{
    return !(fabs(v->before_error_pct) <= (model_point_is_large(v) ? bars->large : bars->small));
}

static double error_pct_of(double predicted, double measured)
{
    return 100 * (predicted - measured) / measured;
}

/* Below 128^3: the answer's error beside the other way to combine memory
 * and launches -- the size-sweep path beside the threads path, or memory +
 * launch interval beside their max. */
static void add_small(const model_validated_point *v, model_validation_stats *s)
{
    const model_full_level *f = &v->pr.full;
    const double alt = f->path == MODEL_FULL_SIZE_SWEEP ? f->size_sweep.sum_mlups
                                                        : f->answer[MODEL_FULL_SIZE_SWEEP].mlups;
    s->small++;
    s->small_error_sum += fabs(v->error_pct);
    s->small_alternative_sum += fabs(error_pct_of(alt, v->measured));
}

static void add_geometry(const model_validated_point *v, model_validation_stats *s)
{
    const model_path_answer *threads = &v->pr.full.answer[MODEL_FULL_THREADS_SWEEP];
    s->geometry++;
    s->geometry_error_sum += fabs(v->error_pct);
    if (!threads->applies) return;
    s->geometry_with_threads++;
    s->geometry_threads_sum += fabs(error_pct_of(threads->mlups, v->measured));
}

static void add_fallbacks(const model_provenance *p, model_validation_stats *s)
{
    int seen[MODEL_FALLBACK_KINDS] = {0};
    for (int i = 0; i < p->n_fallbacks; i++) seen[p->fallbacks[i].kind] = 1;
    for (int k = 0; k < MODEL_FALLBACK_KINDS; k++) s->fallback_points[k] += seen[k];
}

/* |error| e of point v, over its bar or not, into the worst and the count
 * over the bar of its size class: [0] from 128^3, [1] below. */
static void add_to_bar(const model_validated_point *v, double e, int over, double *worst[2], int *count[2])
{
    const int small = !model_point_is_large(v);
    *worst[small] = fmax(*worst[small], e);
    *count[small] += over;
}

static void add_before(const model_validated_point *v, const model_error_bars *bars, model_validation_stats *s)
{
    add_to_bar(v, fabs(v->before_error_pct), model_point_over_before(v, bars),
               (double *[]){&s->before_worst_large, &s->before_worst_small},
               (int *[]){&s->before_over_large, &s->before_over_small});
    s->before_paths[v->before_path]++;
}

void model_validation_stats_of(const model_validated_point *pts, int n, const model_error_bars *bars,
                               model_validation_stats *s)
{
    memset(s, 0, sizeof *s);
    s->points = n;
    s->alternative_is_sum = n && pts[0].pr.full.path == MODEL_FULL_SIZE_SWEEP;
    for (int i = 0; i < n; i++) {
        const model_validated_point *v = &pts[i];
        add_to_bar(v, fabs(v->error_pct), model_point_over(v, bars), (double *[]){&s->worst_large, &s->worst_small},
                   (int *[]){&s->over_large, &s->over_small});
        if (!model_point_is_large(v)) add_small(v, s);
        if (v->pr.full.path == MODEL_FULL_GEOMETRY) add_geometry(v, s);
        const int flags = model_point_flags(v);
        s->predicted_above_roofline += (flags & MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE) != 0;
        s->measured_above_roofline += (flags & MODEL_FLAG_MEASURED_ABOVE_ROOFLINE) != 0;
        s->spilling += (flags & MODEL_FLAG_SPILLS) != 0;
        add_fallbacks(&v->pr.prov, s);
        add_before(v, bars, s);
    }
}

void model_validation_errors(const model_validated_point *pts, int n, model_error_table *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i++)
        model_error_table_add(t, pts[i].backend, pts[i].precision, pts[i].cells, pts[i].error_pct,
                              pts[i].before_error_pct);
}
