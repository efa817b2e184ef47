/* D3Q19 across ranks (slab.h): the decomposition, the crossing words of
 * each scheme, the step with its exchange, and the checks and timing of a
 * decomposed run. */
#include "slab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranks.h"
#include "stats.h"
#include "verify.h"

const int lbm_slots_up[LBM_CROSSING] = {5, 11, 14, 15, 18};
const int lbm_slots_down[LBM_CROSSING] = {6, 12, 13, 16, 17};

enum { TAG_UP, TAG_DOWN };          /* link tags: what travels up, down */
enum { TAG_SCATTER = 7100, TAG_GATHER = 7200 }; /* rank 0's whole lattice */

int lbm_slab_geometry(lbm_slab_geom *g, int nz_global, int ranks, int rank, lbm_boundary b, char *why,
                      size_t why_len)
{
    memset(g, 0, sizeof *g);
    if (nz_global / ranks < LBM_HALO_PLANES) {
        snprintf(why, why_len,
                 "%d ranks: a lattice of %d planes along z leaves %d per rank, thinner than the %d halo plane "
                 "each slab exchanges; use at most %d ranks",
                 ranks, nz_global, nz_global / ranks, LBM_HALO_PLANES, nz_global / LBM_HALO_PLANES);
        return -1;
    }
    if (nz_global % ranks) {
        snprintf(why, why_len,
                 "%d ranks do not divide the lattice's %d planes along z into equal slabs; use nz a multiple "
                 "of %d (--ranks-scaling weak takes the planes of one rank)",
                 ranks, nz_global, ranks);
        return -1;
    }
    *g = (lbm_slab_geom){.ranks = ranks, .rank = rank, .nz_global = nz_global, .nz_local = nz_global / ranks,
                         .z_first = rank * (nz_global / ranks), .below = -1, .above = -1};
    if (ranks > 1) {
        const int periodic = b == LBM_PERIODIC;
        if (rank > 0 || periodic) g->below = (rank + ranks - 1) % ranks;
        if (rank < ranks - 1 || periodic) g->above = (rank + 1) % ranks;
    }
    return 0;
}

/* ---- the crossing words ------------------------------------------------- */

/* Who moves what after a step: halo -> border (the step wrote into the
 * halos) or border -> halo (the next step reads the halos). */
typedef enum { HALO_TO_BORDER, BORDER_TO_HALO } flow;

static flow flow_of(lbm_scheme s, int aa_phase)
{
    if (s == LBM_SCHEME_AA) return aa_phase ? HALO_TO_BORDER : BORDER_TO_HALO;
    return s == LBM_SCHEME_PULL ? BORDER_TO_HALO : HALO_TO_BORDER;
}

/* The slots that travel up, and down: after an alpha step each population
 * sits in its opposite's slot. */
static const int *slots_going(lbm_scheme s, int aa_phase, int up)
{
    const int swapped = s == LBM_SCHEME_AA && aa_phase == 0;
    return up != swapped ? lbm_slots_up : lbm_slots_down;
}

/* The local planes a flow sends up / down from, and receives from below /
 * above into (n the slab's planes). */
static int send_plane(flow f, int up, int n) { return f == HALO_TO_BORDER ? (up ? n + 1 : 0) : (up ? n : 1); }
static int recv_plane(flow f, int from_below, int n)
{
    return f == HALO_TO_BORDER ? (from_below ? 1 : n) : (from_below ? 0 : n + 1);
}


/* Where in a plane the crossing population i is exchanged: every word, or
 * in the cavity after a step that writes across the face only the words
 * some cell streams into (slab.h).  Appends regions of lattice buffer b to
 * r (n counts them); a contiguous run of rows is one region. */
typedef struct {
    lbp_region *r;
    int n, max;
} region_list;

static void add_region(region_list *l, lbp_buf *b, size_t offset, size_t bytes)
{
    if (l->n == l->max) {
        l->max = l->max ? 2 * l->max : 64;
        l->r = realloc(l->r, sizeof *l->r * (size_t)l->max);
        if (!l->r) lbp_fail("out of host memory for the halo regions");
    }
    l->r[l->n++] = (lbp_region){b, offset, bytes};
}

static void add_plane_regions(region_list *l, const lbm_sim *m, lbp_buf *b, int i, int z, flow f, lbm_boundary bd)
{
    const lbm_layout *L = &m->L;
    const size_t w = (size_t)lbm_word_bytes(m->k->precision), row = (size_t)L->nxp * w;
    const size_t plane_at = (size_t)lbm_at(L, i, 0, 0, z) * w;
    const int masked = bd == LBM_CAVITY_BOX && f == HALO_TO_BORDER;
    const int cx = lbm_c[i][0], cy = lbm_c[i][1];
    if (!masked) {
        add_region(l, b, plane_at, row * (size_t)L->ny);
        return;
    }
    /* streamed from (x - cx, y - cy), inside the box; split writes at the
     * cell's own x, and only where x + cx lies inside (else the population
     * stays in its own cell) */
    const int y0 = cy > 0 ? cy : 0, y1 = L->ny + (cy < 0 ? cy : 0);
    if (!cx) {
        add_region(l, b, plane_at + (size_t)y0 * row, row * (size_t)(y1 - y0));
        return;
    }
    const int sx = m->k->scheme == LBM_SCHEME_SPLIT ? -cx : cx;
    const int x0 = sx > 0 ? sx : 0, x1 = L->nx + (sx < 0 ? sx : 0);
    for (int y = y0; y < y1; y++) add_region(l, b, plane_at + (size_t)y * row + (size_t)x0 * w, (size_t)(x1 - x0) * w);
}

/* The exchange after a step of this flow that wrote lattice buffer b. */
static lbp_exchange *make_exchange(lbm_slab *s, lbp_buf *b, int aa_phase)
{
    const lbm_sim *m = &s->m;
    const lbm_scheme sc = m->k->scheme;
    const flow f = flow_of(sc, aa_phase);
    const int n = s->g.nz_local;
    region_list send[2] = {{0}}, recv[2] = {{0}}; /* [0] the link to above, [1] to below */
    lbp_link links[2];
    int nl = 0;
    for (int side = 0; side < 2; side++) {
        const int up = side == 0, peer = up ? s->g.above : s->g.below;
        if (peer < 0) continue;
        const int *out = slots_going(sc, aa_phase, up), *in = slots_going(sc, aa_phase, !up);
        for (int j = 0; j < LBM_CROSSING; j++) {
            add_plane_regions(&send[side], m, b, out[j], send_plane(f, up, n), f, m->k->boundary);
            add_plane_regions(&recv[side], m, b, in[j], recv_plane(f, !up, n), f, m->k->boundary);
        }
        links[nl++] = (lbp_link){.peer = peer, .send_tag = up ? TAG_UP : TAG_DOWN, .recv_tag = up ? TAG_DOWN : TAG_UP,
                                 .nsend = send[side].n, .nrecv = recv[side].n, .send = send[side].r,
                                 .recv = recv[side].r};
    }
    lbp_exchange *x = lbp_exchange_create(m->d, s->path, links, nl);
    for (int side = 0; side < 2; side++) {
        free(send[side].r);
        free(recv[side].r);
    }
    return x;
}

/* ---- the slab ----------------------------------------------------------- */

int lbm_slab_kernels(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                     int cells_per_thread)
{
    return lbm_kernels_build_with(k, d, s, p, b, cells_per_thread, "-DLBM_SLAB=1");
}

static lbm_layout slab_layout(const lbp_device *d, int nx, int ny, const lbm_slab_geom *g, int padding,
                              lbm_precision p)
{
    return lbm_layout_on(d, nx, ny, g->nz_local + 2 * LBM_HALO_PLANES, padding, p);
}

int lbm_slab_create(lbm_slab *s, lbp_device *d, const lbm_kernels *k, int nx, int ny, const lbm_slab_geom *g,
                    int padding, lbp_exchange_path path, int overlap, double omega, double lid_u, int block_size)
{
    memset(s, 0, sizeof *s);
    if (g->ranks < 2 && k->boundary == LBM_PERIODIC) /* its z wrap would need an exchange with itself */
        lbp_fail("a periodic slab needs 2 ranks or more; one rank runs the whole lattice");
    s->g = *g;
    s->path = path;
    s->overlap = overlap;
    const lbm_layout L = slab_layout(d, nx, ny, g, padding, k->precision);
    const int failed = lbm_sim_create(&s->m, d, k, &L, omega, lid_u, block_size) != 0;
    if (lbp_mpi_reduce_all(failed, LBP_MPI_MAX) > 0) { /* every rank gives up together */
        if (!failed) lbm_sim_destroy(&s->m);
        return -1;
    }
    for (int e = 0; e < 2; e++) /* A-A: alpha, beta on its one lattice; A-B: after writing lattice e */
        s->x[e] = make_exchange(s, s->m.lat[k->scheme == LBM_SCHEME_AA ? 0 : e], e);
    return 0;
}

void lbm_slab_destroy(lbm_slab *s)
{
    for (int e = 0; e < 2; e++) lbp_exchange_destroy(s->x[e]);
    lbm_sim_destroy(&s->m);
    memset(s, 0, sizeof *s);
}

/* The exchange after the step about to run. */
static lbp_exchange *next_exchange(const lbm_slab *s)
{
    const lbm_sim *m = &s->m;
    return m->k->scheme == LBM_SCHEME_AA ? s->x[m->t & 1] : s->x[1 - m->cur];
}

/* Before the first step: what it reads from the halos (pull). */
static void fill_halos(lbm_slab *s)
{
    lbm_sim *m = &s->m;
    lbp_sync(m->d);
    if (m->k->scheme == LBM_SCHEME_PULL) lbp_exchange_run(s->x[m->cur]);
}

static void launch_planes(lbm_slab *s, int first, int count, int stride)
{
    lbm_sim *m = &s->m;
    lbp_arg a[LBM_STEP_ARGS + 5];
    int na = lbm_sim_step_args(m, a);
    a[na++] = LBP_I32(first);
    a[na++] = LBP_I32(count);
    a[na++] = LBP_I32(stride);
    a[na++] = LBP_I32(s->g.z_first - LBM_HALO_PLANES); /* global z of local plane 0 */
    a[na++] = LBP_I32(s->g.nz_global);
    lbm_layout planes = m->L;
    planes.nz = count;
    const int64_t threads = lbm_step_threads(&planes, m->k->cells_per_thread);
    lbp_launch_cfg cfg = lbp_cfg_1d((unsigned)((threads + m->block_size - 1) / m->block_size), (unsigned)m->block_size);
    lbp_launch(m->d, lbm_sim_step_kernel(m), &cfg, na, a);
}

/* One step.  Overlap: the two border planes on the second queue, the
 * interior on the first, and once the borders are done the exchange beside
 * the interior; it needs an interior (3 planes or more). */
static void slab_step(lbm_slab *s)
{
    lbm_sim *m = &s->m;
    lbp_device *d = m->d;
    const int n = s->g.nz_local;
    lbp_exchange *x = next_exchange(s);
    if (s->overlap && n > 2 && d->info.caps.second_queue) {
        lbp_select_queue(d, 1);
        launch_planes(s, 1, 2, n - 1);
        lbp_select_queue(d, 0);
        launch_planes(s, 2, n - 2, 1);
        lbp_select_queue(d, 1);
        lbp_sync(d);
        lbp_select_queue(d, 0);
    } else {
        launch_planes(s, 1, n, 1);
        lbp_sync(d);
    }
    const double t0 = lbp_now();
    lbp_exchange_run(x);
    s->exchange_ms = (lbp_now() - t0) * 1e3;
    lbp_sync(d);
    lbm_sim_advance(m);
}

void lbm_slab_steps(lbm_slab *s, int n)
{
    for (int i = 0; i < n; i++) slab_step(s);
}


double lbm_slab_mass(lbm_slab *s)
{
    lbm_sim *m = &s->m;
    const lbm_layout *L = &m->L;
    const lbm_precision p = m->k->precision;
    const size_t w = (size_t)lbm_word_bytes(p), plane = (size_t)L->nxp * L->ny;
    /* lbm_sim_mass sums every word (S (f - w)) over S plus w per cell, halos
     * included: take the halo planes' words and cells off again */
    double mass = lbm_sim_mass(m) - 2.0 * LBM_HALO_PLANES * L->nx * L->ny;
    void *raw = malloc(plane * w);
    if (!raw) lbp_fail("out of host memory for a plane");
    for (int i = 0; i < LBM_Q; i++)
        for (int z = 0; z < L->nz; z += L->nz - 1) {
            m->d->be->read(m->d, m->lat[m->cur], (size_t)lbm_at(L, i, 0, 0, z) * w, raw, plane * w);
            for (size_t k = 0; k < plane; k++) mass -= lbm_raw_word(p, raw, k) / lbm_scale(p);
        }
    free(raw);
    return lbp_mpi_reduce_all(mass, LBP_MPI_SUM);
}

void lbm_slab_init_device(lbm_slab *s, double u0)
{
    lbm_sim_init_device(&s->m, u0);
    fill_halos(s);
}

/* planes [from, from + count) of one layout's populations into another's at
 * `to` (same nx, ny and padding; the arrays' strides may differ) */
static void copy_planes(const lbm_layout *A, const double *a, int from, const lbm_layout *B, double *b, int to,
                        int count)
{
    const size_t plane = (size_t)A->nxp * A->ny;
    for (int i = 0; i < LBM_Q; i++)
        memcpy(b + lbm_at(B, i, 0, 0, to), a + lbm_at(A, i, 0, 0, from), sizeof(double) * plane * (size_t)count);
}

static double *host_lattice(const lbm_layout *L)
{
    double *p = calloc((size_t)lbm_words(L), sizeof(double));
    if (!p) lbp_fail("out of host memory for a %dx%dx%d lattice", L->nx, L->ny, L->nz);
    return p;
}

void lbm_slab_scatter(lbm_slab *s, const lbm_layout *G, const double *global)
{
    const lbm_layout *L = &s->m.L;
    const size_t bytes = sizeof(double) * (size_t)lbm_words(L);
    double *mine = host_lattice(L);
    if (s->g.rank == 0) {
        double *part = host_lattice(L);
        for (int r = s->g.ranks - 1; r >= 0; r--) {
            copy_planes(G, global, r * s->g.nz_local, L, r ? part : mine, LBM_HALO_PLANES, s->g.nz_local);
            if (r) lbp_mpi_send(part, bytes, r, TAG_SCATTER);
        }
        free(part);
    } else {
        lbp_mpi_recv(mine, bytes, 0, TAG_SCATTER);
    }
    lbm_sim_upload(&s->m, mine);
    free(mine);
    fill_halos(s);
}

void lbm_slab_gather(lbm_slab *s, const lbm_layout *G, double *global)
{
    const lbm_layout *L = &s->m.L;
    const size_t bytes = sizeof(double) * (size_t)lbm_words(L);
    double *mine = host_lattice(L);
    lbm_sim_download(&s->m, mine);
    if (s->g.rank == 0) {
        copy_planes(L, mine, LBM_HALO_PLANES, G, global, 0, s->g.nz_local);
        for (int r = 1; r < s->g.ranks; r++) {
            lbp_mpi_recv(mine, bytes, r, TAG_GATHER);
            copy_planes(L, mine, LBM_HALO_PLANES, G, global, r * s->g.nz_local, s->g.nz_local);
        }
    } else {
        lbp_mpi_send(mine, bytes, 0, TAG_GATHER);
    }
    free(mine);
}

/* ---- checks ------------------------------------------------------------- */

/* Rank 0's verdict to every rank: 0, or 1 with why. */
static int share_verdict(int fail, char *why, size_t why_len)
{
    lbp_mpi_bcast(&fail, sizeof fail, 0);
    if (fail) lbp_mpi_bcast(why, why_len, 0);
    return fail;
}

static void check_geometry(const lbm_slab_check_opts *o, lbm_slab_geom *g)
{
    char why[256];
    if (lbm_slab_geometry(g, o->nz, lbp_ranks.size, lbp_ranks.rank, o->boundary, why, sizeof why))
        lbp_mpi_agree(LBP_EXIT_USAGE, "%s", why);
}

int lbm_ranks_build_rank0_first(int (*build)(void *ctx), void *ctx)
{
    int failed = lbp_ranks.rank == 0 ? build(ctx) : 0;
    lbp_mpi_barrier();
    if (lbp_ranks.rank != 0) failed = build(ctx);
    return failed;
}

typedef struct {
    lbm_kernels *slab, *whole;
    lbp_device *d;
    const lbm_slab_check_opts *o;
} check_build;

static int build_check_kernels(void *ctx)
{
    const check_build *c = ctx;
    const lbm_slab_check_opts *o = c->o;
    int failed = lbm_slab_kernels(c->slab, c->d, o->scheme, o->precision, o->boundary, o->cells_per_thread) != 0;
    if (!failed && c->whole && lbp_ranks.rank == 0)
        failed = lbm_kernels_build(c->whole, c->d, o->scheme, o->precision, o->boundary, o->cells_per_thread) != 0;
    return failed;
}

void lbm_slab_check_kernels(lbm_kernels *slab, lbm_kernels *whole, lbp_device *d, const lbm_slab_check_opts *o)
{
    check_build c = {slab, whole, d, o};
    const int failed = lbm_ranks_build_rank0_first(build_check_kernels, &c);
    lbp_mpi_agree(failed ? LBP_EXIT_FAIL : 0, "rank %d: the %s %s %s kernels do not compile", lbp_ranks.rank,
                  lbm_scheme_names[o->scheme], lbm_precision_names[o->precision], lbm_boundary_names[o->boundary]);
}

static const char *run_name(const lbm_slab_check_opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %s %dx%dx%d on %d ranks, exchange %s, overlap %s", lbm_scheme_names[o->scheme],
             lbm_precision_names[o->precision], lbm_boundary_names[o->boundary], o->nx, o->ny, o->nz, lbp_ranks.size,
             lbp_exchange_names[o->path], o->overlap ? "on" : "off");
    return buf;
}

/* Rank 0: the one-rank run of the same lattice, single-device kernel. */
static void whole_run(lbp_device *d, const lbm_kernels *k, const lbm_slab_check_opts *o, const lbm_layout *G,
                      const double *start, double *end)
{
    lbm_sim m;
    if (lbm_sim_create(&m, d, k, G, 1.0 / o->tau, o->boundary == LBM_CAVITY_BOX ? o->lid_u : 0.0, o->block_size))
        lbp_fail("no device memory for the %dx%dx%d lattice of the one-rank run", G->nx, G->ny, G->nz);
    lbm_sim_upload(&m, start);
    lbm_sim_steps(&m, o->steps);
    lbm_sim_download(&m, end);
    lbm_sim_destroy(&m);
}

/* The first population of a cell where two canonical states differ. */
static int first_difference(const lbm_layout *G, const double *a, const double *b, char *why, size_t why_len,
                            const char *what)
{
    for (int z = 0; z < G->nz; z++)
        for (int y = 0; y < G->ny; y++)
            for (int x = 0; x < G->nx; x++)
                for (int i = 0; i < LBM_Q; i++) {
                    const int64_t k = lbm_at(G, i, x, y, z);
                    if (memcmp(&a[k], &b[k], sizeof a[k])) {
                        snprintf(why, why_len,
                                 "%s: population %d of cell (%d, %d, %d) is %.17g decomposed, %.17g on one rank "
                                 "(not bit for bit the same)",
                                 what, i, x, y, z, a[k], b[k]);
                        return 1;
                    }
                }
    return 0;
}

int lbm_slab_check_run(lbp_device *d, const lbm_kernels *slab, const lbm_kernels *whole,
                       const lbm_slab_check_opts *o, char *why, size_t why_len)
{
    lbm_slab_geom g;
    check_geometry(o, &g);
    const double omega = 1.0 / o->tau, lid_u = o->boundary == LBM_CAVITY_BOX ? o->lid_u : 0.0;
    const lbm_layout G = lbm_layout_on(d, o->nx, o->ny, o->nz, o->padding, o->precision);
    double *start = NULL, *slabs = NULL, *whole_end = NULL;
    if (g.rank == 0) {
        double *f = host_lattice(&G);
        start = host_lattice(&G);
        slabs = host_lattice(&G);
        whole_end = host_lattice(&G);
        lbm_init_state(&G, f, o->u0, o->noise, 12345u);
        lbm_to_scheme(&G, o->scheme, o->boundary, omega, f, start);
        free(f);
    }
    lbm_slab s;
    if (lbm_slab_create(&s, d, slab, o->nx, o->ny, &g, o->padding, o->path, o->overlap, omega, lid_u, o->block_size))
        lbp_fail("no device memory for a slab of %dx%dx%d", o->nx, o->ny, g.nz_local);
    lbm_slab_scatter(&s, &G, start);
    const double mass_before = lbm_slab_mass(&s);
    lbm_slab_steps(&s, o->steps);
    const double mass_after = lbm_slab_mass(&s);
    lbm_slab_gather(&s, &G, slabs);
    lbm_slab_destroy(&s);

    int fail = 0;
    char name[192];
    run_name(o, name, sizeof name);
    if (g.rank == 0) {
        whole_run(d, whole, o, &G, start, whole_end);
        if (o->plant_error) /* a border cell of the last slab */
            slabs[lbm_at(&G, lbm_slots_up[0], G.nx / 2, G.ny / 2, G.nz - g.nz_local)] += 1e-3;
        double *a = host_lattice(&G), *b = host_lattice(&G);
        lbm_from_scheme(&G, o->scheme, o->boundary, slabs, a);
        lbm_from_scheme(&G, o->scheme, o->boundary, whole_end, b);
        fail = first_difference(&G, a, b, why, why_len, name);
        const double drift = fabs(mass_after / mass_before - 1),
                     tol = lbm_verify_mass_tolerance(o->precision, &G, start, o->steps);
        if (!fail && !(drift < tol)) {
            snprintf(why, why_len, "%s: mass drift %.3e over %d steps (%.12g -> %.12g), tolerance %.1e", name, drift,
                     o->steps, mass_before, mass_after, tol);
            fail = 1;
        }
        free(a);
        free(b);
        free(start);
        free(slabs);
        free(whole_end);
    }
    return share_verdict(fail, why, why_len);
}

/* The halo check: every word starts as its rank's mark; each crossing
 * population of each plane a step sends gets a planted value at one cell
 * (the rank, the population and the direction in it).  After the
 * exchange, the receiving plane must hold that value at that cell, the
 * sender's mark elsewhere where the plane was sent (or its own where a
 * cavity wall keeps words back), and every other word its own mark. */
/* Small whole numbers, exact in any word (half's run to 2048); the two
 * neighbours of a rank differ in rank % 16. */
static double mark_of(int rank) { return -(rank % 1024 + 1.0); }
static double plant_of(int rank, int slot, int up) { return 1.0 + (rank % 16) * 40 + 2 * slot + (up ? 1 : 0); }
/* a cell inside every cavity mask (x, y away from the walls) */
static void plant_cell(const lbm_layout *L, int rank, int slot, int *x, int *y)
{
    *x = 1 + (rank + slot) % (L->nx - 2);
    *y = 1 + (2 * rank + slot) % (L->ny - 2);
}


/* One exchange of the slab, planted, run and checked on this rank; 0 or 1. */
static int check_one_exchange(lbm_slab *s, int e, char *why, size_t why_len)
{
    lbm_sim *m = &s->m;
    const lbm_layout *L = &m->L;
    const lbm_scheme sc = m->k->scheme;
    const int aa_phase = sc == LBM_SCHEME_AA ? e : 0, n = s->g.nz_local;
    const lbm_precision p = m->k->precision; /* the marks and plants are whole numbers below 2048: exact in half too */
    const flow f = flow_of(sc, aa_phase);
    lbp_buf *b = m->lat[sc == LBM_SCHEME_AA ? 0 : e];
    const size_t words = (size_t)lbm_words(L), bytes = words * (size_t)lbm_word_bytes(p);
    void *raw = malloc(bytes), *got = malloc(bytes);
    if (!raw || !got) lbp_fail("out of host memory for a lattice");
    for (size_t k = 0; k < words; k++) lbm_raw_put(p, raw, k, mark_of(s->g.rank));
    for (int up = 0; up < 2; up++) {
        if ((up ? s->g.above : s->g.below) < 0) continue;
        const int *slots = slots_going(sc, aa_phase, up);
        for (int j = 0; j < LBM_CROSSING; j++) {
            int x, y;
            plant_cell(L, s->g.rank, slots[j], &x, &y);
            lbm_raw_put(p, raw, (size_t)lbm_at(L, slots[j], x, y, send_plane(f, up, n)), plant_of(s->g.rank, slots[j], up));
        }
    }
    lbp_write(m->d, b, raw, bytes);
    lbp_exchange_run(s->x[e]);
    lbp_read(m->d, b, got, bytes);

    int fail = 0;
    /* what arrived: from below (travelling up) and from above (down) */
    for (int from_below = 0; from_below < 2 && !fail; from_below++) {
        const int peer = from_below ? s->g.below : s->g.above;
        if (peer < 0) continue;
        const int *slots = slots_going(sc, aa_phase, from_below);
        const int z = recv_plane(f, from_below, n);
        for (int j = 0; j < LBM_CROSSING && !fail; j++) {
            int px, py;
            plant_cell(L, peer, slots[j], &px, &py);
            for (int y = 0; y < L->ny && !fail; y++)
                for (int x = 0; x < L->nxp && !fail; x++) {
                    const int64_t k = lbm_at(L, slots[j], x, y, z);
                    const double v = lbm_raw_word(p, got, (size_t)k);
                    const double want = x == px && y == py ? plant_of(peer, slots[j], from_below) : mark_of(peer);
                    /* next to a wall (or in the padding) a cavity keeps the
                     * words nobody streams into: its own mark may stay */
                    const int edge = x == 0 || x >= L->nx - 1 || y == 0 || y == L->ny - 1;
                    if (v == want || (edge && v == mark_of(s->g.rank))) {
                        lbm_raw_put(p, raw, (size_t)k, v); /* accounted for */
                        continue;
                    }
                    snprintf(why, why_len,
                             "rank %d, population %d of cell (%d, %d) in plane %d holds %g after the exchange; "
                             "expected %g from rank %d (%s neighbour)",
                             s->g.rank, slots[j], x, y, z, v, want, peer, from_below ? "lower" : "upper");
                    fail = 1;
                }
        }
    }
    /* nothing else moved */
    for (size_t k = 0; k < words && !fail; k++)
        if (lbm_raw_word(p, got, k) != lbm_raw_word(p, raw, k)) {
            const size_t c = k % (size_t)L->stride;
            snprintf(why, why_len,
                     "rank %d: population %zu of cell (%zu, %zu, %zu) changed in the exchange (%g, was %g), "
                     "which sends nothing there",
                     s->g.rank, k / (size_t)L->stride, c % (size_t)L->nxp, c / (size_t)L->nxp % (size_t)L->ny,
                     c / ((size_t)L->nxp * L->ny), lbm_raw_word(p, got, k), lbm_raw_word(p, raw, k));
            fail = 1;
        }
    free(raw);
    free(got);
    return fail;
}

int lbm_slab_check_halos(lbp_device *d, const lbm_kernels *slab, const lbm_slab_check_opts *o, char *why,
                         size_t why_len)
{
    lbm_slab_geom g;
    check_geometry(o, &g);
    if (o->nx < 3 || o->ny < 3) lbp_mpi_agree(LBP_EXIT_USAGE, "the halo check needs nx, ny >= 3");
    lbm_slab s;
    if (lbm_slab_create(&s, d, slab, o->nx, o->ny, &g, o->padding, o->path, o->overlap, 1.0 / o->tau, 0.0,
                        o->block_size))
        lbp_fail("no device memory for a slab of %dx%dx%d", o->nx, o->ny, g.nz_local);
    int fail = 0;
    char mine[512] = "", name[192];
    for (int e = 0; e < 2 && !fail; e++) {
        fail = check_one_exchange(&s, e, mine, sizeof mine);
        /* the first rank that failed tells why */
        int first = (int)lbp_mpi_reduce_all(fail ? s.g.rank : s.g.ranks, LBP_MPI_MIN);
        fail = first < s.g.ranks;
        if (fail) {
            snprintf(why, why_len, "%s", mine);
            lbp_mpi_bcast(why, why_len, first);
            char tail[600];
            snprintf(tail, sizeof tail, "halo check %s, exchange after %s: %s", run_name(o, name, sizeof name),
                     o->scheme == LBM_SCHEME_AA ? (e ? "beta" : "alpha") : e ? "writing lattice 1" : "writing lattice 0",
                     why);
            snprintf(why, why_len, "%s", tail);
        }
    }
    lbm_slab_destroy(&s);
    return fail;
}

/* ---- timing ------------------------------------------------------------- */

typedef struct {
    lbm_slab *s;  /* several ranks */
    lbm_sim *m;   /* one rank: the whole lattice */
    double *exchange_ms; /* per step, rank 0 */
    int nexchange, max_exchange;
} timed;

/* n steps, ended on this rank's device; host seconds. */
static double run_steps(timed *t, int n)
{
    const double t0 = lbp_now();
    if (t->m) {
        lbm_sim_steps(t->m, n);
        lbp_sync(t->m->d);
        return lbp_now() - t0;
    }
    for (int i = 0; i < n; i++) {
        slab_step(t->s);
        if (t->exchange_ms && t->nexchange < t->max_exchange) t->exchange_ms[t->nexchange++] = t->s->exchange_ms;
    }
    return lbp_now() - t0;
}

/* The same number on every rank: the most any rank wants. */
static int steps_for(timed *t, const lbm_timing_opts *o)
{
    int steps = o->steps;
    if (steps <= 0) {
        /* every rank runs the same pilots: the slowest rank's step decides */
        const double target = (o->target_ms > 0 ? o->target_ms : 20.0) * 1e-3;
        run_steps(t, 2);
        double step_s = lbp_mpi_reduce_all(run_steps(t, 2) / 2, LBP_MPI_MAX);
        double want = target / (step_s > 1e-9 ? step_s : 1e-9);
        if (want > 8) { /* refine on a longer pilot, as lbm_measure does */
            const int pilot = want / 4 > 25000 ? 25000 : 2 * (int)(want / 8);
            step_s = lbp_mpi_reduce_all(run_steps(t, pilot) / pilot, LBP_MPI_MAX);
            want = target / (step_s > 1e-9 ? step_s : 1e-9);
        }
        steps = want > 100000 ? 100000 : (int)ceil(want);
    }
    if (steps < 2) steps = 2;
    return steps + (steps & 1); /* even: A-A ends each run in the normal layout */
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The timed runs' state: the Taylor-Green vortex of this amplitude, relaxed
 * with this tau (lbm_timing_mass_tolerance bounds its mass drift). */
#define TIMED_U0 0.05
#define TIMED_TAU 0.6

static int timed_setup(timed *t, lbm_slab *s, lbm_sim *m, lbp_device *d, const lbm_kernels *k_slab,
                       const lbm_kernels *k_whole, int nx, int ny, const lbm_slab_geom *g, int padding, int block_size,
                       lbp_exchange_path path, int overlap)
{
    memset(t, 0, sizeof *t);
    const double omega = 1.0 / TIMED_TAU;
    if (g->ranks == 1) {
        lbm_layout L = lbm_layout_on(d, nx, ny, g->nz_global, padding, k_whole->precision);
        if (lbm_sim_create(m, d, k_whole, &L, omega, 0.0, block_size)) return -1;
        lbm_sim_init_device(m, TIMED_U0);
        t->m = m;
        return 0;
    }
    if (lbm_slab_create(s, d, k_slab, nx, ny, g, padding, path, overlap, omega, 0.0, block_size)) return -1;
    lbm_slab_init_device(s, TIMED_U0);
    t->s = s;
    return 0;
}

static double timed_mass(timed *t) { return t->m ? lbm_sim_mass(t->m) : lbm_slab_mass(t->s); }

int lbm_slab_measure(lbp_device *d, const lbm_kernels *k_slab, const lbm_kernels *k_whole, int nx, int ny,
                     const lbm_slab_geom *g, int padding, int block_size, lbp_exchange_path path, int overlap,
                     const lbm_timing_opts *o, lbm_slab_result *r, char *why, size_t why_len)
{
    const lbm_kernels *k = g->ranks == 1 ? k_whole : k_slab;
    const lbm_layout L = g->ranks == 1 ? lbm_layout_on(d, nx, ny, g->nz_global, padding, k->precision)
                                       : slab_layout(d, nx, ny, g, padding, k->precision);
    const int no_room = lbm_fits(d, &L, k->scheme, k->precision, why, why_len) != 0;
    const int first = (int)lbp_mpi_reduce_all(no_room ? g->rank : g->ranks, LBP_MPI_MIN);
    if (first < g->ranks) {
        lbp_mpi_bcast(why, why_len, first);
        return -1;
    }
    lbm_slab s;
    lbm_sim m;
    timed t;
    if (timed_setup(&t, &s, &m, d, k_slab, k_whole, nx, ny, g, padding, block_size, path, overlap)) {
        snprintf(why, why_len, "a device refused the %.1f GB of a %dx%dx%d slab", lbm_bytes_needed(&L, k->scheme, k->precision) / 1e9,
                 nx, ny, L.nz);
        return -1;
    }
    const double mass_before = timed_mass(&t);
    const int steps = steps_for(&t, o);
    const int reps = o->reps > 0 ? o->reps : 5;
    double *ms = calloc((size_t)reps, sizeof *ms);
    if (g->rank == 0 && g->ranks > 1) {
        t.max_exchange = reps * steps;
        t.exchange_ms = calloc((size_t)t.max_exchange, sizeof *t.exchange_ms);
    }
    if (!ms || (g->rank == 0 && g->ranks > 1 && !t.exchange_ms)) lbp_fail("out of host memory for %d timings", reps * steps);
    double *kept = t.exchange_ms;
    t.exchange_ms = NULL; /* the warm-up run is not counted */
    run_steps(&t, steps);
    t.exchange_ms = kept;
    for (int rep = 0; rep < reps; rep++) {
        lbp_mpi_barrier();
        ms[rep] = lbp_mpi_reduce_all(run_steps(&t, steps), LBP_MPI_MAX) * 1e3; /* the slowest rank's */
    }
    const double mass_after = timed_mass(&t);
    const int64_t done_steps = t.m ? t.m->t : t.s->m.t;
    if (t.m) lbm_sim_destroy(&m);
    else lbm_slab_destroy(&s);

    memset(r, 0, sizeof *r);
    r->ranks = g->ranks;
    r->nz_local = g->nz_local;
    r->overlap = g->ranks > 1 && overlap;
    r->path = g->ranks > 1 ? path : LBP_EXCHANGE_NONE;
    if (t.nexchange) {
        qsort(t.exchange_ms, (size_t)t.nexchange, sizeof *t.exchange_ms, compare_doubles);
        r->exchange_us = t.exchange_ms[t.nexchange / 2] * 1e3;
    }
    r->exchange_us = lbp_mpi_reduce_all(r->exchange_us, LBP_MPI_MAX); /* rank 0's; the others have 0 */
    free(t.exchange_ms);

    const lbm_layout whole = lbm_layout_on(d, nx, ny, g->nz_global, padding, k->precision);
    const double drift = fabs(mass_after / mass_before - 1.0),
                 tol = lbm_timing_mass_tolerance(k->precision, &whole, done_steps, TIMED_U0, TIMED_TAU);
    if (!(drift < tol)) {
        free(ms);
        snprintf(why, why_len,
                 "mass check failed for %s %s %dx%dx%d on %d ranks: relative drift %.3e over %lld steps (mass %.9g "
                 "-> %.9g), tolerance %.1e",
                 lbm_scheme_names[k->scheme], lbm_precision_names[k->precision], nx, ny, g->nz_global, g->ranks, drift,
                 (long long)done_steps, mass_before, mass_after, tol);
        return 1;
    }
    lbm_result *res = &r->r;
    lbm_step_limits(d, k, block_size, &res->registers, &res->local_bytes, NULL, &res->blocks_per_cu);
    res->occupancy = (res->blocks_per_cu > 0 && d->info.max_threads_per_cu > 0)
                         ? (double)res->blocks_per_cu * block_size / d->info.max_threads_per_cu
                         : -1;
    res->L = lbm_layout_on(d, nx, ny, g->nz_global, padding, k->precision);
    res->block_size = block_size;
    res->cells_per_thread = k->cells_per_thread;
    res->steps = steps;
    res->reps = reps;
    res->ms = lbp_stats_of(ms, reps);
    res->ms_median_slowest = res->ms.median;
    const double updates = (double)res->L.cells * steps;
    res->mlups_median = updates / (res->ms.median * 1e-3) / 1e6;
    res->mlups_max = updates / (res->ms.min * 1e-3) / 1e6;
    res->gbs_median = 2.0 * LBM_Q * (double)lbm_word_bytes(k->precision) * updates / (res->ms.median * 1e-3) / 1e9;
    res->mass_drift = drift;
    free(ms);
    return 0;
}
