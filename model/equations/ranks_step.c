/* A kernel on R ranks: see ranks.h. */
#include "ranks_step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* µs per step of planes x nx x ny on one device: the full level of the
 * one-device model at the kernel's launch, the row padding kept */
static int piece_us(const model_inputs *in, const model_kernel *k, const model_lattice *lat, long long nx,
                    long long ny, long long planes, double *us, model_prediction *pr, model_provenance *prov,
                    char *err, size_t err_len)
{
    *us = 0;
    if (planes <= 0) return 0;
    model_lattice piece = *lat;
    piece.nx = nx;
    piece.ny = ny;
    piece.nz = planes;
    piece.cells = (double)nx * ny * planes;
    piece.stored_cells = lat->cells > 0 && lat->stored_cells > 0 ? piece.cells * lat->stored_cells / lat->cells : 0;
    model_prediction *local = pr ? NULL : malloc(sizeof *local);
    if (!pr && !(pr = local)) return lbp_error(err, err_len, "out of memory");
    int r = model_predict(in, k, &piece, pr, err, err_len);
    if (!r && !(pr->full.mlups > 0))
        r = lbp_error(err, err_len, "the one-device model has no time for %lldx%lldx%lld", nx, ny, planes);
    if (!r) {
        *us = piece.cells / pr->full.mlups; /* MLUPS = cells per µs */
        model_provenance_merge(prov, &pr->prov);
    }
    free(local);
    return r;
}

static int one_device_times(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                            const ranks_request *rq, ranks_prediction *out, char *err, size_t err_len)
{
    const scaling_slab *s = &out->slab;
    long long nx = rq->sc.nx, ny = rq->sc.ny;
    scaling_times *t = &out->times;
    if (piece_us(in, k, lat, nx, ny, s->nz_local, &t->slab_us, &out->slab_pr, &out->prov, err, err_len) ||
        piece_us(in, k, lat, nx, ny, s->border_planes, &t->border_us, NULL, &out->prov, err, err_len) ||
        piece_us(in, k, lat, nx, ny, s->interior_planes, &t->interior_us, NULL, &out->prov, err, err_len))
        return -1;
    t->single_us = t->slab_us;
    if (rq->sc.ranks > 1) {
        t->sync_us = in->have_sync ? in->sync_us : 0;
        if (!in->have_sync)
            model_note(&out->prov, "%s/launch.csv: no sync_each row for %s: the host's wait each step taken as 0",
                       in->dir, in->backend);
    }
    if (rq->sc.mode == SCALING_STRONG && rq->sc.ranks > 1)
        return piece_us(in, k, lat, nx, ny, s->nz_global, &t->single_us, NULL, &out->prov, err, err_len);
    return 0;
}

/* A pinned transfer fit of stream-meta.csv: transfer_<dir>_pinned_* */
static int transfer_link(const model_inputs *in, const char *dir, scaling_link *l, char *err, size_t err_len)
{
    char key_lat[64], key_gbs[64];
    snprintf(key_lat, sizeof key_lat, "transfer_%s_pinned_latency_us", dir);
    snprintf(key_gbs, sizeof key_gbs, "transfer_%s_pinned_gbs", dir);
    const char *lat = model_meta_value(in, key_lat), *gbs = model_meta_value(in, key_gbs);
    char *end1 = NULL, *end2 = NULL;
    double v_lat = lat ? strtod(lat, &end1) : 0, v_gbs = gbs ? strtod(gbs, &end2) : 0;
    if (!lat || !gbs || end1 == lat || end2 == gbs || !(v_gbs > 0))
        return lbp_error(err, err_len,
                         "%s/stream-meta.csv: no %s fit (%s, %s), which the host-staged exchange needs as its %s leg",
                         in->dir, dir, key_lat, key_gbs, dir);
    *l = (scaling_link){.latency_us = v_lat > 0 ? v_lat : 0, .bandwidth_gbs = v_gbs};
    return 0;
}

static void describe_fit(char *out, size_t len, const char *what, const interconnect_fit *x)
{
    const char *beside = x->beside == INTERCONNECT_BESIDE_COPY ? " beside a copy" : "";
    if (x->ring) {
        snprintf(out, len, "%s ring fit of ranks 0-%d (all at once%s): %.3g us + 4 s / %.4g GB/s", what, x->rank_b,
                 beside, x->fitted.latency_us, x->fitted.bandwidth_gbs);
        return;
    }
    snprintf(out, len, "%s %s fit of ranks %d-%d%s: %.3g us + %s / %.4g GB/s", what,
             x->both_ways ? "both-ways" : "one-way", x->rank_a, x->rank_b, beside, x->fitted.latency_us,
             x->both_ways ? "2 s" : "s", x->fitted.bandwidth_gbs);
}

/* The path's ring (interconnect_ring) for a row: with overlap (asked, and
 * an interior to hide the exchange behind) the one measured beside the
 * probe's copy, as the exchange runs beside the interior kernel; the alone
 * one where the folder has none such, with a note */
static const interconnect_fit *ring_for(const interconnect_fits *fits, const char *path, int ring, double s,
                                        const ranks_request *rq, ranks_prediction *out)
{
    const int overlapped = rq->sc.overlap && out->slab.interior_planes > 0;
    out->exchange_beside = INTERCONNECT_ALONE;
    if (overlapped) {
        const interconnect_fit *x =
            interconnect_ring_beside(fits, path, ring, s, INTERCONNECT_BESIDE_COPY, &out->missing_pairs);
        if (x) {
            out->exchange_beside = INTERCONNECT_BESIDE_COPY;
            return x;
        }
    }
    const interconnect_fit *x = interconnect_ring(fits, path, ring, s, &out->missing_pairs);
    if (x && overlapped)
        model_note(&out->prov,
                   "%s: no %s fit measured beside a copy (stream --interconnect --beside copy): the exchange beside "
                   "the interior priced by the medians of the exchange alone",
                   fits->file, path);
    return x;
}

/* x read at a rank's s through interconnect_us, its reading appended to
 * what (the route) and, outside the probe's sizes, recorded as a clamp */
static double read_fit(const interconnect_fit *x, double s, char *what, size_t len, model_provenance *prov)
{
    interconnect_reading how;
    double us = interconnect_us(x, s, &how);
    size_t used = strlen(what);
    if (how.within_measured && how.lo == how.hi)
        snprintf(what + used, len - used, ", read at the probe's median of %.0f B", how.message);
    else if (how.within_measured)
        snprintf(what + used, len - used, ", read between the probe's medians of %.0f and %.0f B", how.lo, how.hi);
    else if (how.hi > 0)
        model_clamped(prov, "%s %s of ranks %d-%d: a message of %.0f B is outside the probe's %.0f..%.0f B: the fit",
                      x->path, x->ring ? "ring" : x->both_ways ? "both-ways" : "one-way", x->rank_a, x->rank_b,
                      how.message, how.lo, how.hi);
    else
        model_clamped(prov, "%s %s of ranks %d-%d: no interconnect.csv points: the fit", x->path,
                      x->ring ? "ring" : x->both_ways ? "both-ways" : "one-way", x->rank_a, x->rank_b);
    return us;
}

/* Beside a copy where the fit beside x says its paired ratio: the alone
 * ring of the path read at s, times the ratio at the face (ranks.h).
 * Returns 1 with within_us and the route set, 0 where not so priced. */
static int paired_beside(const interconnect_fits *fits, const char *path, int ring, double s,
                         const interconnect_fit *x, ranks_prediction *out)
{
    if (out->exchange_beside != INTERCONNECT_BESIDE_COPY) return 0;
    interconnect_reading how;
    const double ratio = interconnect_ratio(x, s, &how);
    int missing = 0;
    const interconnect_fit *alone = ratio > 0 ? interconnect_ring(fits, path, ring, s, &missing) : NULL;
    if (!alone) return 0;
    char what[240], beside[160];
    describe_fit(what, sizeof what, path, alone);
    out->within_us = read_fit(alone, s, what, sizeof what, &out->prov) * ratio;
    out->exchange_ratio = ratio;
    if (missing > out->missing_pairs) out->missing_pairs = missing;
    describe_fit(beside, sizeof beside, path, x);
    if (!how.within_measured)
        model_clamped(&out->prov, "%s ring of ranks 0-%d beside a copy: a message of %.0f B is outside the paired "
                      "%.0f..%.0f B: the nearest size's ratio", path, x->rank_b, how.message, how.lo, how.hi);
    snprintf(out->route, sizeof out->route, "within a node: %s", what);
    const size_t used = strlen(out->route);
    snprintf(out->route + used, sizeof out->route - used, "; x %.3f, the paired ratio beside / alone of the %s", ratio,
             beside);
    return 1;
}

/* One face inside the node: the path's ring, or host-staged as three legs */
static int within_node(const model_inputs *in, const interconnect_fits *fits, const ranks_request *rq,
                       ranks_prediction *out, char *err, size_t err_len)
{
    double s = out->slab.exchange_bytes;
    int ring = rq->nodes > 1 ? rq->ranks_per_node : rq->sc.ranks;
    if (ring < 2) return 0;
    char what[240];
    const interconnect_fit *x = ring_for(fits, rq->exchange, ring, s, rq, out);
    if (x) {
        if (!paired_beside(fits, rq->exchange, ring, s, x, out)) {
            describe_fit(what, sizeof what, rq->exchange, x);
            out->within_us = read_fit(x, s, what, sizeof what, &out->prov);
            snprintf(out->route, sizeof out->route, "within a node: %s", what);
        }
    } else if (!strcmp(rq->exchange, "host") && (x = interconnect_ring(fits, "host-mpi", ring, s, &out->missing_pairs))) {
        scaling_route r = {.legs = 2};
        if (transfer_link(in, "d2h", &r.leg[0], err, err_len) || transfer_link(in, "h2d", &r.leg[1], err, err_len))
            return -1;
        describe_fit(what, sizeof what, "host-mpi", x);
        out->within_us = scaling_route_us(&r, s) + read_fit(x, s, what, sizeof what, &out->prov);
        snprintf(out->route, sizeof out->route,
                 "within a node: three transfers, d2h %.3g us + s / %.4g GB/s, %s, h2d %.3g us + s / %.4g GB/s",
                 r.leg[0].latency_us, r.leg[0].bandwidth_gbs, what, r.leg[1].latency_us, r.leg[1].bandwidth_gbs);
    } else {
        return lbp_error(err, err_len, "%s: no %s path%s", fits->file, rq->exchange,
                         !strcmp(rq->exchange, "host") ? " (nor host-mpi to stage it through)" : "");
    }
    if (out->missing_pairs)
        model_clamped(&out->prov, "%d ring pair(s) of %d ranks not measured: the slowest measured pair used",
                      out->missing_pairs, ring);
    return 0;
}

/* One face across nodes: the given link, with d2h and h2d around it for host */
static int between_nodes(const model_inputs *in, const ranks_request *rq, ranks_prediction *out, char *err,
                         size_t err_len)
{
    double s = out->slab.exchange_bytes;
    size_t used = strlen(out->route);
    const char *sep = used ? "; " : "";
    if (strcmp(rq->exchange, "host")) {
        out->between_us = scaling_link_us(rq->between, s);
        snprintf(out->route + used, sizeof out->route - used, "%sbetween nodes: the given link %.3g us + s / %.4g GB/s",
                 sep, rq->between.latency_us, rq->between.bandwidth_gbs);
        if (!strcmp(rq->exchange, "peer"))
            model_note(&out->prov,
                       "peer copies do not cross nodes: faces between nodes take the given link device to device");
        return 0;
    }
    scaling_route r = {.legs = 3};
    if (transfer_link(in, "d2h", &r.leg[0], err, err_len) || transfer_link(in, "h2d", &r.leg[2], err, err_len))
        return -1;
    r.leg[1] = rq->between;
    out->between_us = scaling_route_us(&r, s);
    snprintf(out->route + used, sizeof out->route - used,
             "%sbetween nodes: d2h + the given link %.3g us + s / %.4g GB/s + h2d", sep, rq->between.latency_us,
             rq->between.bandwidth_gbs);
    return 0;
}

int ranks_predict(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                  const interconnect_fits *fits, const ranks_request *rq, ranks_prediction *out, char *err,
                  size_t err_len)
{
    memset(out, 0, sizeof *out);
    model_provenance_init(&out->prov);
    scaling_case sc = rq->sc;
    sc.word_bytes = k->word_bytes;
    if (rq->nodes > 1 && rq->nodes * rq->ranks_per_node != sc.ranks) {
        lbp_error(err, err_len, "%d nodes of %d ranks are not %d ranks", rq->nodes, rq->ranks_per_node, sc.ranks);
        return RANKS_BAD_CASE;
    }
    if (scaling_slab_of(&sc, &out->slab, err, err_len)) return RANKS_BAD_CASE;
    /* a device holds its ranks' slabs, each with a halo plane on either side */
    const long long planes = out->slab.nz_local + (sc.ranks > 1 ? 2 : 0);
    const int per_device = sc.ranks < sc.ranks_per_device ? sc.ranks : sc.ranks_per_device;
    char why[512];
    if (model_lattice_fits(in, (double)sc.nx * sc.ny * planes * per_device, model_kernel_cell_bytes(k), why,
                           sizeof why)) {
        lbp_error(err, err_len, "a device's %d slab%s of %lldx%lldx%lld (halo planes included): %s", per_device,
                  per_device > 1 ? "s" : "", sc.nx, sc.ny, planes, why);
        return RANKS_BAD_CASE;
    }
    if (one_device_times(in, k, lat, rq, out, err, err_len)) return RANKS_INPUT;
    if (sc.ranks > 1) {
        if (within_node(in, fits, rq, out, err, err_len)) return RANKS_INPUT;
        if (rq->nodes > 1 && between_nodes(in, rq, out, err, err_len)) return RANKS_INPUT;
    }
    if (rq->nodes > 1)
        model_clamped(&out->prov, "the link between nodes is given (--link-latency-us, --link-gbs), not measured");
    out->projection = rq->nodes > 1 || out->missing_pairs > 0;
    /* a link nobody measured is outside what was measured, whatever the
     * one-device pieces read */
    if (out->projection) out->prov.within_measured = 0;
    double exchange = scaling_exchange_us(rq->nodes > 1 ? rq->nodes : 1, rq->nodes > 1 ? rq->ranks_per_node : sc.ranks,
                                          out->within_us, out->between_us);
    scaling_predict(&sc, &out->slab, &out->times, exchange, &out->step);
    return 0;
}

const char *ranks_default_exchange(const interconnect_fits *fits, double bytes)
{
    static const char *const paths[] = {"peer", "mpi", "host"};
    const char *best = NULL;
    double best_us = 0;
    for (int i = 0; i < 3; i++) {
        int missing;
        const interconnect_fit *x = interconnect_ring(fits, paths[i], 2, bytes, &missing);
        if (!x) continue;
        double us = interconnect_us(x, bytes, NULL);
        if (!best || us < best_us) { best = paths[i]; best_us = us; }
    }
    if (!best && interconnect_has_path(fits, "host-mpi")) best = "host";
    return best;
}
