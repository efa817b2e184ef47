/* See report_json.h. */
#include "report_json.h"

#include <math.h>
#include <string.h>

static void json_provenance(model_json *j, const model_provenance *p)
{
    model_json_bool(j, "within_measured", p->within_measured);
    model_json_array(j, "read_instead");
    for (int i = 0; i < p->n_fallbacks; i++) {
        const model_fallback *f = &p->fallbacks[i];
        model_json_object(j, NULL);
        model_json_string(j, "kind", model_fallback_kind_name(f->kind));
        model_json_string(j, "asked", f->asked);
        model_json_string(j, "read", f->read);
        model_json_string(j, "why", f->why);
        model_json_close(j);
    }
    model_json_close(j);
    /* the notes are "; "-separated: one string each */
    model_json_array(j, "notes");
    for (const char *s = p->notes; *s;) {
        const char *end = strstr(s, "; ");
        char note[sizeof p->notes];
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        memcpy(note, s, len);
        note[len] = 0;
        model_json_string(j, NULL, note);
        s += len + (end ? 2 : 0);
    }
    model_json_close(j);
}

static void json_lattice(model_json *j, const model_lattice *lat)
{
    model_json_object(j, "lattice");
    model_json_number(j, "nx", (double)lat->nx);
    model_json_number(j, "ny", (double)lat->ny);
    model_json_number(j, "nz", (double)lat->nz);
    model_json_number(j, "cells", lat->cells);
    if (lat->occupancy > 0) model_json_number(j, "occupancy", lat->occupancy);
    if (lat->blocks_per_cu > 0) model_json_number(j, "blocks_per_sm", lat->blocks_per_cu);
    if (lat->block_size > 0) model_json_number(j, "block_size", lat->block_size);
    model_json_close(j);
}

static void json_level_3(model_json *j, const model_full_level *f)
{
    model_json_object(j, "full");
    model_json_number(j, "mlups", f->mlups);
    model_json_string(j, "path", model_full_path_name(f->path));
    model_json_bool(j, "launch_bound", f->answer[f->path].launch_bound);
    model_json_bool(j, "complete", f->answer[f->path].complete);
    model_json_object(j, "other_paths");
    for (int i = 0; i < MODEL_FULL_PATHS; i++)
        if (i != (int)f->path && f->answer[i].applies) model_json_number(j, model_full_path_name((model_full_path)i), f->answer[i].mlups);
    model_json_close(j);
    model_json_close(j);
}

void model_json_prediction(model_json *j, const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                           const model_prediction *p)
{
    char what[400];
    model_kernel_describe(k, what, sizeof what);
    model_json_string(j, "device", in->device);
    model_json_string(j, "backend", in->backend);
    model_json_string(j, "kernel", what);
    json_lattice(j, lat);
    model_json_object(j, "roofline");
    model_json_number(j, "mlups", p->roofline.mlups);
    model_json_number(j, "gbs", p->roofline.gbs);
    model_json_number(j, "bytes_per_update", p->roofline.bytes_per_update);
    model_json_string(j, "source", p->roofline.source);
    model_json_close(j);
    model_json_object(j, "probe");
    model_json_number(j, "mlups", p->probe.mlups);
    model_json_number(j, "occupancy_factor", p->probe.occupancy_factor);
    model_json_number(j, "compute_factor", p->probe.compute_factor);
    model_json_string(j, "occupancy_from", in->occupancy_from);
    model_json_close(j);
    json_level_3(j, &p->full);
    json_provenance(j, &p->prov);
    char flags[64];
    model_json_string(j, "flags", model_flags_text(model_prediction_flags(p), flags, sizeof flags));
}

static void json_point(model_json *j, const model_validated_point *v, const model_error_bars *bars)
{
    const model_prediction *p = &v->pr;
    model_json_object(j, NULL);
    model_json_string(j, "backend", v->backend);
    model_json_string(j, "scheme", v->scheme);
    model_json_string(j, "precision", v->precision);
    model_json_number(j, "nx", (double)v->nx);
    model_json_number(j, "ny", (double)v->ny);
    model_json_number(j, "nz", (double)v->nz);
    model_json_number(j, "block_size", (double)v->block_size);
    model_json_number(j, "cells_per_thread", v->cells_per_thread);
    model_json_number(j, "measured_mlups", v->measured);
    model_json_number(j, "roofline_mlups", p->roofline.mlups);
    model_json_number(j, "probe_mlups", p->probe.mlups);
    model_json_number(j, "full_mlups", p->full.mlups);
    model_json_number(j, "error_pct", v->error_pct);
    model_json_bool(j, "over_bar", model_point_over(v, bars));
    model_json_string(j, "path", model_full_path_name(p->full.path));
    model_json_bool(j, "launch_bound", model_full_answer(p)->launch_bound);
    char flags[64];
    model_json_string(j, "flags", model_flags_text(model_point_flags(v), flags, sizeof flags));
    model_json_number(j, "local_bytes", (double)v->local_bytes);
    model_json_object(j, "before_kernel");
    model_json_number(j, "mlups", v->before_mlups);
    model_json_number(j, "error_pct", v->before_error_pct);
    model_json_bool(j, "over_bar", model_point_over_before(v, bars));
    model_json_string(j, "path", model_full_path_name(v->before_path));
    model_json_bool(j, "within_measured", v->before_within_measured);
    model_json_close(j);
    json_provenance(j, &p->prov);
    model_json_close(j);
}

/* "large" or "small": the worst |error| (null where no point), bar, over. */
static void json_bar(model_json *j, const char *key, int points, double worst, double bar, int over)
{
    model_json_object(j, key);
    model_json_number(j, "points", points);
    model_json_number(j, "worst_abs_error_pct", points ? worst : NAN);
    model_json_number(j, "bar_pct", bar);
    model_json_number(j, "over", over);
    model_json_close(j);
}

void model_json_validation(model_json *j, const model_validated_point *pts, int n, const model_error_bars *bars,
                           const model_validation_stats *s)
{
    model_json_array(j, "points");
    for (int i = 0; i < n; i++) json_point(j, &pts[i], bars);
    model_json_close(j);
    json_bar(j, "large", s->points - s->small, s->worst_large, bars->large, s->over_large);
    json_bar(j, "small", s->small, s->worst_small, bars->small, s->over_small);
    model_json_object(j, "before_kernel");
    json_bar(j, "large", s->points - s->small, s->before_worst_large, bars->large, s->before_over_large);
    json_bar(j, "small", s->small, s->before_worst_small, bars->small, s->before_over_small);
    model_json_close(j);
    model_error_table t;
    model_validation_errors(pts, n, &t);
    model_error_table_json(j, "model_error", &t);
}
