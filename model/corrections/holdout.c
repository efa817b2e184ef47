/* Before the kernel: the inputs without the probes measured at a point's
 * own launch and lattice (see holdout.h). */
#include "holdout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "launchprobe.h"

model_holdout model_holdout_of(const model_kernel *k, const model_lattice *lat)
{
    const double threads = model_launched_threads(k, lat);
    return (model_holdout){.width = k->word_bytes * model_cells_per_thread(k),
                           .block_size = lat->block_size > 0 ? lat->block_size : 0,
                           .blocks_requested = lat->blocks_per_cu >= 1 ? (int)lat->blocks_per_cu : 0,
                           .threads = threads, .working_threads = threads * model_working_share(k, lat),
                           .cells = lat->cells, .k = k, .lat = lat};
}

/* Thread counts are whole numbers in the files. */
static int same_count(double a, double b)
{
    return b > 0 && fabs(a - b) < 0.5;
}

static int at_threads(double threads, const model_holdout *h)
{
    return same_count(threads, h->threads) || same_count(threads, h->working_threads);
}

/* The rows the geometry path reads at the point's launch (path_geometry.c's
 * launch_query: width, block size, forced blocks per SM; any layout, L, M
 * and payload), at every thread count: membench measures them at the
 * launches of lbm.csv's kernels, after the kernels ran, so a kernel not
 * yet written has none at its launch, whatever its lattice. */
static int geometry_at(const model_probe_row *p, const model_holdout *h)
{
    return p->sweep == PROBE_GEOMETRY && h->block_size > 0 && h->blocks_requested > 0 && p->word_bytes == h->width &&
           p->block_size == h->block_size && p->blocks_requested == h->blocks_requested;
}

/* Row p is held out (counted in *held).  own: this backend's rows (the
 * threads sweep is read only from them); else the rows it
 * borrows, of which the geometry path reads the geometry sweep. */
static int held_row(const model_probe_row *p, const model_holdout *h, int own, model_held_out *held)
{
    if (geometry_at(p, h)) return ++held->geometry;
    if (!own) return 0;
    if ((p->sweep == PROBE_THREADS || p->sweep == PROBE_ROWS) && at_threads(p->threads, h)) return ++held->threads;
    return 0;
}

/* rows[0 .. n) less the held-out ones into *out (and its index). */
static int filter_rows(const model_probe_row *rows, int n, const model_holdout *h, int own, model_probe_row **out,
                       int *n_out, model_probe_index *ix, model_held_out *held)
{
    memset(ix, 0, sizeof *ix);
    *n_out = 0;
    *out = malloc(sizeof **out * (size_t)(n + 1));
    if (!*out) return -1;
    for (int i = 0; i < n; i++)
        if (!held_row(&rows[i], h, own, held)) (*out)[(*n_out)++] = rows[i];
    return model_probe_index_build(ix, *out, *n_out);
}

static int filter_launch_probes(const model_inputs *in, const model_holdout *h, model_inputs *view,
                                model_held_out *held)
{
    view->n_launch_probes = 0;
    view->launch_probes = malloc(sizeof *view->launch_probes * (size_t)(in->n_launch_probes + 1));
    if (!view->launch_probes) return -1;
    for (int i = 0; i < in->n_launch_probes; i++) {
        if (model_launch_probe_at(&in->launch_probes[i], h->k, h->lat)) held->launch_probes++;
        else view->launch_probes[view->n_launch_probes++] = in->launch_probes[i];
    }
    return 0;
}

int model_holdout_inputs_of(const model_inputs *in, const model_holdout *h, model_holdout_inputs *out, char *err,
                            size_t err_len)
{
    memset(out, 0, sizeof *out);
    model_inputs *v = &out->in;
    *v = *in;
    v->probes = v->borrowed = NULL;
    v->launch_probes = NULL;
    memset(&v->probe_index, 0, sizeof v->probe_index);
    memset(&v->borrowed_index, 0, sizeof v->borrowed_index);
    if (filter_rows(in->probes, in->n_probes, h, 1, &v->probes, &v->n_probes, &v->probe_index, &out->held) ||
        filter_rows(in->borrowed, in->n_borrowed, h, 0, &v->borrowed, &v->n_borrowed, &v->borrowed_index,
                    &out->held) ||
        filter_launch_probes(in, h, v, &out->held)) {
        model_holdout_inputs_free(out);
        snprintf(err, err_len, "%s: out of memory holding out a point's own probes", in->dir);
        return -1;
    }
    return 0;
}

void model_holdout_inputs_free(model_holdout_inputs *hv)
{
    model_inputs *v = &hv->in;
    model_probe_index_free(&v->probe_index);
    model_probe_index_free(&v->borrowed_index);
    free(v->probes);
    free(v->borrowed);
    free(v->launch_probes);
    v->probes = v->borrowed = NULL;
    v->launch_probes = NULL;
    v->n_probes = v->n_borrowed = v->n_launch_probes = 0;
}

int model_predict_before_kernel(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                                const model_prediction *at_launch, model_prediction *out, model_held_out *held,
                                char *err, size_t err_len)
{
    const model_holdout h = model_holdout_of(k, lat);
    model_holdout_inputs v;
    if (model_holdout_inputs_of(in, &h, &v, err, err_len)) return -1;
    const model_held_out *c = &v.held;
    const int none = !c->geometry && !c->threads && !c->launch_probes;
    int status = 0;
    if (none && at_launch) *out = *at_launch;
    else status = model_predict(&v.in, k, lat, out, err, err_len);
    if (!status)
        model_note(&out->prov, "before the kernel: held out %d geometry rows at its launch and %.0f threads, %d "
                               "threads-sweep rows at that count, %d launch probes",
                   v.held.geometry, h.threads, v.held.threads, v.held.launch_probes);
    if (held) *held = v.held;
    model_holdout_inputs_free(&v);
    return status;
}
