/* The step on R ranks: see scaling.h for the equations. */
#include "scaling.h"

#include <math.h>
#include <stdio.h>

#include "table.h"

double scaling_link_us(scaling_link l, double bytes)
{
    return l.latency_us + bytes / (l.bandwidth_gbs * 1e3); /* 1 GB/s = 1e3 B per µs */
}

double scaling_route_us(const scaling_route *r, double bytes)
{
    double t = 0;
    for (int i = 0; i < r->legs; i++) t += scaling_link_us(r->leg[i], bytes);
    return t;
}

int scaling_slab_of(const scaling_case *c, scaling_slab *s, char *err, size_t err_len)
{
    if (c->ranks < 1) return lbp_error(err, err_len, "ranks: %d is not a count of ranks (1 or more)", c->ranks);
    if (c->ranks_per_device < 1)
        return lbp_error(err, err_len, "ranks per device: %d is not 1 or more", c->ranks_per_device);
    if (c->nx < 1 || c->ny < 1 || c->nz < 1)
        return lbp_error(err, err_len, "lattice %lldx%lldx%lld: every side must be 1 or more", c->nx, c->ny, c->nz);
    if (c->mode == SCALING_STRONG && c->nz % c->ranks)
        return lbp_error(err, err_len, "%d ranks do not divide nz = %lld into equal slabs", c->ranks, c->nz);
    s->nz_global = c->mode == SCALING_WEAK ? c->nz * c->ranks : c->nz;
    s->nz_local = s->nz_global / c->ranks;
    s->border_planes = s->nz_local < 2 ? s->nz_local : 2;
    s->interior_planes = s->nz_local - s->border_planes;
    s->cells_rank = (double)c->nx * c->ny * s->nz_local;
    s->cells_global = s->cells_rank * c->ranks;
    s->halo_bytes = (double)D3Q19_CROSSING * c->nx * c->ny * c->word_bytes;
    s->exchange_bytes = c->ranks > 1 ? 2 * s->halo_bytes : 0;
    s->devices = (c->ranks + c->ranks_per_device - 1) / c->ranks_per_device;
    return 0;
}

double scaling_exchange_us(int nodes, int ranks_per_node, double within_us, double between_us)
{
    if (nodes <= 1) return ranks_per_node > 1 ? within_us : 0;
    if (ranks_per_node <= 1) return between_us;
    return fmax(within_us, between_us);
}

void scaling_predict(const scaling_case *c, const scaling_slab *s, const scaling_times *t, double exchange_us,
                     scaling_step *out)
{
    double k = c->ranks_per_device; /* ranks whose work one device does */
    *out = (scaling_step){0};
    if (c->ranks == 1) {
        out->alpha_us = k * t->slab_us;
        out->step_us = out->alpha_us;
    } else if (c->overlap && s->interior_planes > 0) {
        out->overlapped = 1;
        out->exchange_us = exchange_us;
        out->alpha_us = k * (t->border_us + t->interior_us);
        out->beta_us = k * t->border_us + exchange_us;
        out->step_us = fmax(out->alpha_us, out->beta_us) + t->sync_us;
        out->exchange_bound = out->beta_us > out->alpha_us;
    } else {
        out->exchange_us = exchange_us;
        out->alpha_us = k * t->slab_us;
        out->beta_us = exchange_us;
        out->step_us = out->alpha_us + out->beta_us + t->sync_us;
        out->exchange_bound = out->beta_us > out->alpha_us;
    }
    double reference_cells = c->mode == SCALING_WEAK ? s->cells_rank : s->cells_global;
    out->mlups = s->cells_global / out->step_us;
    out->mlups_per_rank = out->mlups / c->ranks;
    out->single_mlups = reference_cells / t->single_us;
    out->speedup = out->mlups / out->single_mlups;
    out->efficiency = out->speedup / s->devices;
}
