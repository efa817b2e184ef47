/* A D3Q19 step on R ranks (DESIGN.md "Beyond one GPU"): the lattice cut
 * into slabs along z, one rank per device, from the one-device model of a
 * rank's slab and a fit of the interconnect T(s) = latency + s / bandwidth
 * (Calore et al. §4, as the host transfers are fitted).  Pure functions:
 * the caller predicts the slab's pieces with model_predict and reads the
 * interconnect fit; nothing here reads a file.
 *
 *   slab        nx x ny x nz_local, nz_local = nz / R.  Strong scaling: the
 *               global lattice nx x ny x nz is fixed; weak: each rank's is,
 *               the global one is nx x ny x (R nz).
 *   halo        s = 5 x nx x ny x word bytes: the populations that cross one
 *               z face in one direction (5 of D3Q19's 19 have c_z = +1).
 *   exchange    T_x = T(2 s), the path's both-ways fit (a rank sends while
 *               its neighbours send to it) at the bytes a rank sends each
 *               way: a face to each neighbour, both faces' copies one after
 *               the other on its exchange queue (two ranks: both faces to
 *               the one neighbour), so 2 s through its own link; host-staged
 *               where the whole path was not measured as one: the three
 *               transfers d2h + MPI + h2d.  The slowest rank sets the step.
 *   no overlap  T = T_slab + T_x + T_sync (the slab as one launch, then
 *               the exchange)
 *   overlap     border planes first, then the exchange on a second stream
 *               while the interior runs: T = max(T_α, T_β) + T_sync
 *               (Calore's model),
 *                 T_α = T_border + T_interior   the device's own chain
 *                 T_β = T_border + T_x          the exchange's chain
 *               only where the slab has an interior (3 planes or more; the
 *               exchange needs the borders done first); else no overlap.
 *   T_sync      the host waits for the device every step (the exchange
 *               starts when the border is done), so the next step's launch
 *               is not queued ahead as a one-device time loop's is: one
 *               launch with a synchronisation (launch.csv's sync_each).
 *               The border is in T_α because border and interior share the
 *               device's memory bandwidth: run side by side they take no
 *               less than one after the other, so a perfectly hidden
 *               exchange still costs the slab's two launches, never less
 *               than the one-device slab (max(T_interior, T_border + T_x)
 *               would beat it by T_border).
 *   R = 1       no exchange, no wait: T = T_slab.
 *   K ranks on one device (oversubscribed, to check the paths on one GPU):
 *               the device's work is K ranks': T_slab, T_border and
 *               T_interior times K, T_x as fitted.
 *   MLUPS       the global lattice's cells / T (cells per µs = MLUPS);
 *   efficiency  MLUPS / (devices x MLUPS of one device alone): weak, one
 *               device on one rank's lattice (T_1 / T); strong, one device
 *               on the whole lattice (T_1 / (R T)).
 *   projection  N nodes of G ranks, placed in order: a rank at a node's end
 *               has a face across nodes, so the slowest rank's T_x =
 *               max(T_within, T_between), each at the rank's 2 s (G = 1:
 *               T_between; bounding the node's end from above, whose link
 *               across carries one face). */
#ifndef MODEL_SCALING_H
#define MODEL_SCALING_H

#include <stddef.h>

#define D3Q19_CROSSING 5 /* populations that cross a z face, each way */

/* T(s) = latency + s / bandwidth, µs for s bytes (bandwidth in 10^9 B/s) */
typedef struct {
    double latency_us;
    double bandwidth_gbs;
} scaling_link;

/* One face's message along a path: one measured link, or legs in a row
 * (host-staged: d2h, MPI, h2d). */
#define SCALING_MAX_LEGS 3
typedef struct {
    int legs;
    scaling_link leg[SCALING_MAX_LEGS];
} scaling_route;

typedef enum { SCALING_STRONG, SCALING_WEAK } scaling_mode;

typedef struct {
    long long nx, ny, nz;   /* strong: the whole lattice; weak: one rank's */
    int ranks;              /* R */
    int ranks_per_device;   /* K: 1, or more sharing one device */
    scaling_mode mode;
    int overlap;            /* 1: border first, exchange beside the interior */
    int word_bytes;
} scaling_case;

/* How the lattice is cut */
typedef struct {
    long long nz_global, nz_local;
    long long border_planes;    /* the planes whose populations leave the slab:
                                   2, or 1 for a slab of one plane */
    long long interior_planes;  /* nz_local - border_planes */
    double cells_global, cells_rank;
    double halo_bytes;          /* s: one face, one direction */
    double exchange_bytes;      /* what a rank sends (and receives) each step:
                                   2 s from 2 ranks on, 0 for one */
    int devices;                /* ceil(R / K) */
} scaling_slab;

/* The one-device model's times, µs per step, of what a rank runs */
typedef struct {
    double slab_us;      /* the slab, one launch (no overlap; R = 1) */
    double border_us;    /* its border planes, one launch (overlap) */
    double interior_us;  /* its interior planes, one launch (overlap) */
    double single_us;    /* the reference: one device alone, no exchange, on
                            one rank's lattice (weak) or the whole one (strong) */
    double sync_us;      /* T_sync: the host's wait each step (R > 1) */
} scaling_times;

typedef struct {
    double exchange_us;     /* T_x (0 for one rank) */
    double alpha_us;        /* overlap: T_α; else the slab's compute */
    double beta_us;         /* overlap: T_β; else T_x */
    int overlapped;         /* the overlap applied (asked, and an interior) */
    double step_us;         /* T */
    double mlups;           /* the whole lattice */
    double mlups_per_rank;
    double single_mlups;    /* one device alone on the reference lattice */
    double speedup;         /* mlups / single_mlups */
    double efficiency;      /* mlups / (devices x single_mlups) */
    int exchange_bound;     /* the exchange sets the step */
} scaling_step;

/* latency + bytes / bandwidth, µs */
double scaling_link_us(scaling_link l, double bytes);
/* The legs of a route one after the other, µs */
double scaling_route_us(const scaling_route *r, double bytes);

/* The cut of c.  Returns 0, or -1 with err naming the bad value: ranks or
 * ranks per device below 1, a lattice side below 1, a strong-scaling nz
 * that R does not divide. */
int scaling_slab_of(const scaling_case *c, scaling_slab *s, char *err, size_t err_len);

/* The slowest rank's exchange of N nodes of G ranks each: both faces at
 * once, within_us a face inside a node, between_us one across nodes. */
double scaling_exchange_us(int nodes, int ranks_per_node, double within_us, double between_us);

/* The step: no overlap T_slab + T_x + T_sync, overlap max(T_α, T_β) +
 * T_sync, R = 1 T_slab;
 * MLUPS, speedup and efficiency against t->single_us. */
void scaling_predict(const scaling_case *c, const scaling_slab *s, const scaling_times *t, double exchange_us,
                     scaling_step *out);

#endif
