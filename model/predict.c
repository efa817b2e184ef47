/* The model's three levels put together: see predict.h. */
#include "predict.h"

#include <string.h>

#include "launch.h"
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

static void full_level(const model_path_query *q, model_prediction *out)
{
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        model_provenance_init(&out->full.answer[full_paths[i].id].prov);
        full_paths[i].run(q, out);
    }
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

int model_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat, model_prediction *out,
                  char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    model_provenance_init(&out->prov);
    model_roofline(in, k, &out->roofline);
    model_roofline_at(in, k, lat, &out->roofline);
    if (model_probe_level_of(in, k, lat, &out->probe, &out->prov, err, err_len)) return -1;
    const model_launch_shape shape = model_launch_shape_of(in, k, lat);
    out->full.launch = (model_launch_detail){shape.threads, shape.blocks, shape.waves};
    const model_path_query q = {in, k, lat, &out->probe};
    full_level(&q, out);
    return 0;
}

const model_path_answer *model_full_answer(const model_prediction *p)
{
    return &p->full.answer[p->full.path];
}
