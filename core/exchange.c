/* Moving parts of device buffers between ranks (exchange.h). */
#include "exchange.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ranks.h"

#if defined(LBP_HAVE_MPI)
#include <mpi.h>
#endif

const char *const lbp_exchange_names[] = {"none", "host", "peer", "mpi", NULL};

static const char *path_name(lbp_exchange_path p) { return lbp_exchange_names[p]; }

int lbp_exchange_available(const lbp_device *d, lbp_exchange_path path, char *why, size_t why_len)
{
    const lbp_backend *be = d->be;
    why[0] = 0;
    if (path == LBP_EXCHANGE_NONE) return 0;
    if (!lbp_mpi_built())
        snprintf(why, why_len, "--exchange %s: not available: built without MPI (make deps installs Open MPI)",
                 path_name(path));
    else if (path == LBP_EXCHANGE_PEER && !(d->info.caps.ipc && d->info.caps.device_pointers &&
                                            d->info.caps.second_queue))
        snprintf(why, why_len,
                 "--exchange peer: not available: %s (%s) cannot share its memory with other processes "
                 "(CUDA IPC); use host",
                 d->info.name, be->name);
    else if (path == LBP_EXCHANGE_PEER && lbp_ranks.nodes > 1)
        snprintf(why, why_len,
                 "--exchange peer: not available: the ranks span %d nodes, and device memory is shared only "
                 "within one; use host or mpi",
                 lbp_ranks.nodes);
    else if (path == LBP_EXCHANGE_MPI && !d->info.caps.host_pointers && !lbp_mpi_cuda_aware())
        snprintf(why, why_len, "--exchange mpi: not available: the MPI library (%s) does not move device memory "
                 "(MPIX_Query_cuda_support: no); use host or peer", lbp_mpi_library());
    else if (path == LBP_EXCHANGE_MPI && !d->info.caps.device_pointers)
        snprintf(why, why_len, "--exchange mpi: not available: %s buffers have no device address an MPI library "
                 "could take; use host", be->name);
    return why[0] ? -1 : 0;
}

#if defined(LBP_HAVE_MPI)

/* Message tags: one range per kind of message, the link's tag within it. */
enum { TAG_COUNT = 1 * LBP_LINK_TAGS, TAG_REGIONS = 2 * LBP_LINK_TAGS, TAG_READY = 3 * LBP_LINK_TAGS,
       TAG_DONE = 4 * LBP_LINK_TAGS, TAG_DATA = 5 * LBP_LINK_TAGS };

/* A send region as its receiver sees it (the handshake of create). */
typedef struct {
    uint64_t bytes, offset;
    uint64_t address; /* the buffer's device address (peer: names the buffer) */
    unsigned char handle[LBP_IPC_HANDLE_BYTES];
} region_desc;

/* A peer's buffer opened in this process: one view per buffer, however
 * many regions and exchanges use it. */
typedef struct opened {
    int peer;
    uint64_t address;
    lbp_buf *view;
    int refs;
    struct opened *next;
} opened;
static opened *views;

/* host path: a link's pinned staging memory, shared by every exchange of
 * this process over the same link (device, peer, tags).  A rank runs one
 * exchange at a time, and lbp_exchange_run returns with its staging free
 * (the messages complete, the copies back done), so the exchanges of one
 * decomposition (lbmkernels: one per lattice of A-B, one per A-A phase,
 * run in turn every step) stage through one set of host memory, as the
 * interconnect probe's one exchange does, not through a set each, which
 * would double the host memory that the MPI copies and the device's DMA
 * sweep every step. */
typedef struct staging {
    const lbp_device *d;
    int peer, send_tag, recv_tag;
    size_t send_cap, recv_cap;
    unsigned char *send, *recv;
    int refs;
} staging;
static staging **stagings; /* this process's, in no order */
static int nstagings, max_stagings;

typedef struct {
    lbp_link l;
    lbp_region *send, *recv;        /* own copies */
    size_t send_bytes, recv_bytes;
    unsigned char *host_send, *host_recv; /* host: the link's staging */
    staging *stage;
    opened **peer_buf;              /* peer: per receive region, the sender's buffer */
    size_t *peer_offset;            /* ... and where in it the region starts */
    MPI_Datatype send_type, recv_type; /* mpi: the regions as one message */
} link_state;

struct lbp_exchange {
    lbp_device *d;
    lbp_exchange_path path;
    int nlinks;
    link_state *links;
    MPI_Request *reqs;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) lbp_fail("out of host memory for an exchange");
    return p;
}

static void wait_all(lbp_exchange *x, int n)
{
    MPI_Waitall(n, x->reqs, MPI_STATUSES_IGNORE);
}

static size_t total_bytes(const lbp_region *r, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++) s += r[i].bytes;
    return s;
}

/* The link's staging: one that holds its bytes both ways, or a new one. */
static staging *stage_link(lbp_device *d, const link_state *s)
{
    for (int i = 0; i < nstagings; i++) {
        staging *g = stagings[i];
        if (g->d == d && g->peer == s->l.peer && g->send_tag == s->l.send_tag && g->recv_tag == s->l.recv_tag &&
            g->send_cap >= s->send_bytes && g->recv_cap >= s->recv_bytes) {
            g->refs++;
            return g;
        }
    }
    if (nstagings == max_stagings) {
        max_stagings = max_stagings ? 2 * max_stagings : 8;
        stagings = realloc(stagings, sizeof *stagings * (size_t)max_stagings);
        if (!stagings) lbp_fail("out of host memory for an exchange");
    }
    staging *g = xcalloc(1, sizeof *g);
    *g = (staging){.d = d, .peer = s->l.peer, .send_tag = s->l.send_tag, .recv_tag = s->l.recv_tag,
                   .send_cap = s->send_bytes ? s->send_bytes : 1, .recv_cap = s->recv_bytes ? s->recv_bytes : 1,
                   .refs = 1};
    g->send = d->be->host_alloc(d, g->send_cap, 1);
    g->recv = d->be->host_alloc(d, g->recv_cap, 1);
    if (!g->send || !g->recv) lbp_fail("exchange: no pinned host memory for %zu bytes", g->send_cap + g->recv_cap);
    stagings[nstagings++] = g;
    return g;
}

/* The last exchange over a staging frees it (the list's last entry takes
 * its place). */
static void unstage_link(lbp_device *d, staging *g)
{
    if (--g->refs) return;
    for (int i = 0; i < nstagings; i++)
        if (stagings[i] == g) {
            stagings[i] = stagings[--nstagings];
            break;
        }
    d->be->host_free(d, g->send, 1);
    d->be->host_free(d, g->recv, 1);
    free(g);
    if (!nstagings) {
        free(stagings);
        stagings = NULL;
        max_stagings = 0;
    }
}

size_t lbp_exchange_staging_bytes(void)
{
    size_t n = 0;
    for (int i = 0; i < nstagings; i++) n += stagings[i]->send_cap + stagings[i]->recv_cap;
    return n;
}

static void describe_sends(lbp_exchange *x, const link_state *s, region_desc *out)
{
    lbp_device *d = x->d;
    for (int i = 0; i < s->l.nsend; i++) {
        out[i] = (region_desc){.bytes = s->send[i].bytes, .offset = s->send[i].offset};
        if (d->info.caps.device_pointers) out[i].address = (uint64_t)(uintptr_t)d->be->device_pointer(d, s->send[i].buf);
        if (x->path == LBP_EXCHANGE_PEER) d->be->ipc_export(d, s->send[i].buf, out[i].handle);
    }
}

static opened *open_view(lbp_device *d, int peer, const region_desc *r)
{
    for (opened *o = views; o; o = o->next)
        if (o->peer == peer && o->address == r->address) {
            o->refs++;
            return o;
        }
    opened *o = xcalloc(1, sizeof *o);
    *o = (opened){.peer = peer, .address = r->address, .refs = 1, .next = views, .view = d->be->ipc_import(d, r->handle)};
    views = o;
    return o;
}

static void close_view(lbp_device *d, opened *v)
{
    if (--v->refs) return;
    for (opened **p = &views; *p; p = &(*p)->next)
        if (*p == v) {
            *p = v->next;
            break;
        }
    d->be->ipc_close(d, v->view);
    free(v);
}

/* The sends a peer describes must be the receives this link expects. */
static void match_regions(lbp_exchange *x, link_state *s, const region_desc *theirs, int ntheirs)
{
    size_t theirs_bytes = 0;
    for (int i = 0; i < ntheirs; i++) theirs_bytes += theirs[i].bytes;
    int same = ntheirs == s->l.nrecv;
    for (int i = 0; same && i < ntheirs; i++) same = theirs[i].bytes == s->recv[i].bytes;
    if (!same)
        lbp_fail("exchange: rank %d sends %d regions (%zu bytes) over the link on which rank %d expects %d regions "
                 "(%zu bytes): the two sides of the decomposition disagree",
                 s->l.peer, ntheirs, theirs_bytes, lbp_ranks.rank, s->l.nrecv, s->recv_bytes);
    if (x->path == LBP_EXCHANGE_PEER) {
        s->peer_buf = xcalloc((size_t)ntheirs, sizeof *s->peer_buf);
        s->peer_offset = xcalloc((size_t)ntheirs, sizeof *s->peer_offset);
        for (int i = 0; i < ntheirs; i++) {
            s->peer_buf[i] = open_view(x->d, s->l.peer, &theirs[i]);
            s->peer_offset[i] = (size_t)theirs[i].offset;
        }
    }
}

/* Every link tells its peer what it sends; each side checks the other's
 * sends against its receives, and a peer-path receiver opens the buffers. */
static void handshake(lbp_exchange *x)
{
    const int n = x->nlinks;
    int *counts = xcalloc((size_t)n, sizeof *counts);
    region_desc **mine = xcalloc((size_t)n, sizeof *mine), **theirs = xcalloc((size_t)n, sizeof *theirs);
    int k = 0;
    for (int i = 0; i < n; i++) {
        link_state *s = &x->links[i];
        MPI_Irecv(&counts[i], 1, MPI_INT, s->l.peer, TAG_COUNT + s->l.recv_tag, MPI_COMM_WORLD, &x->reqs[k++]);
        MPI_Isend(&s->l.nsend, 1, MPI_INT, s->l.peer, TAG_COUNT + s->l.send_tag, MPI_COMM_WORLD, &x->reqs[k++]);
    }
    wait_all(x, k);
    k = 0;
    for (int i = 0; i < n; i++) {
        link_state *s = &x->links[i];
        mine[i] = xcalloc((size_t)s->l.nsend, sizeof **mine);
        theirs[i] = xcalloc((size_t)counts[i], sizeof **theirs);
        describe_sends(x, s, mine[i]);
        MPI_Irecv(theirs[i], counts[i] * (int)sizeof(region_desc), MPI_BYTE, s->l.peer, TAG_REGIONS + s->l.recv_tag,
                  MPI_COMM_WORLD, &x->reqs[k++]);
        MPI_Isend(mine[i], s->l.nsend * (int)sizeof(region_desc), MPI_BYTE, s->l.peer, TAG_REGIONS + s->l.send_tag,
                  MPI_COMM_WORLD, &x->reqs[k++]);
    }
    wait_all(x, k);
    for (int i = 0; i < n; i++) {
        match_regions(x, &x->links[i], theirs[i], counts[i]);
        free(mine[i]);
        free(theirs[i]);
    }
    free(mine);
    free(theirs);
    free(counts);
}

/* mpi path: a link's regions as one datatype, addresses relative to the
 * first region's (on the device: MPI takes the base pointer). */
static MPI_Datatype regions_type(lbp_device *d, const lbp_region *r, int n, void **base)
{
    int *lengths = xcalloc((size_t)n, sizeof *lengths);
    MPI_Aint *displ = xcalloc((size_t)n, sizeof *displ);
    char *first = n ? (char *)d->be->device_pointer(d, r[0].buf) + r[0].offset : NULL;
    for (int i = 0; i < n; i++) {
        lengths[i] = (int)r[i].bytes;
        displ[i] = (MPI_Aint)(((char *)d->be->device_pointer(d, r[i].buf) + r[i].offset) - first);
    }
    MPI_Datatype t;
    MPI_Type_create_hindexed(n, lengths, displ, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    free(lengths);
    free(displ);
    *base = first;
    return t;
}

static void prepare_link(lbp_exchange *x, link_state *s, const lbp_link *l)
{
    lbp_device *d = x->d;
    if (l->peer == lbp_ranks.rank || l->peer < 0 || l->peer >= lbp_ranks.size)
        lbp_fail("exchange: rank %d cannot link to rank %d (ranks 0..%d, not itself)", lbp_ranks.rank, l->peer,
                 lbp_ranks.size - 1);
    if (l->send_tag < 0 || l->send_tag >= LBP_LINK_TAGS || l->recv_tag < 0 || l->recv_tag >= LBP_LINK_TAGS)
        lbp_fail("exchange: link tags %d, %d outside 0..%d", l->send_tag, l->recv_tag, LBP_LINK_TAGS - 1);
    s->l = *l;
    s->send = xcalloc((size_t)l->nsend, sizeof *s->send);
    s->recv = xcalloc((size_t)l->nrecv, sizeof *s->recv);
    /* a link may send or receive nothing (NULL, 0): memcpy from NULL is
     * undefined even for 0 bytes */
    if (l->nsend) memcpy(s->send, l->send, sizeof *s->send * (size_t)l->nsend);
    if (l->nrecv) memcpy(s->recv, l->recv, sizeof *s->recv * (size_t)l->nrecv);
    s->send_bytes = total_bytes(s->send, l->nsend);
    s->recv_bytes = total_bytes(s->recv, l->nrecv);
    for (int i = 0; i < l->nsend + l->nrecv; i++) {
        const lbp_region *r = i < l->nsend ? &s->send[i] : &s->recv[i - l->nsend];
        if (r->bytes > INT_MAX) lbp_fail("exchange: a region of %zu bytes, more than one MPI message takes", r->bytes);
    }
    if (s->send_bytes > INT_MAX || s->recv_bytes > INT_MAX)
        lbp_fail("exchange: %zu bytes over one link, more than one MPI message takes", s->send_bytes + s->recv_bytes);
    if (x->path == LBP_EXCHANGE_HOST) {
        s->stage = stage_link(d, s);
        s->host_send = s->stage->send;
        s->host_recv = s->stage->recv;
    }
    if (x->path == LBP_EXCHANGE_MPI) {
        void *base;
        s->send_type = regions_type(d, s->send, l->nsend, &base);
        s->recv_type = regions_type(d, s->recv, l->nrecv, &base);
    }
}

lbp_exchange *lbp_exchange_create(lbp_device *d, lbp_exchange_path path, const lbp_link *links, int nlinks)
{
    char why[512];
    if (lbp_exchange_available(d, path, why, sizeof why)) lbp_fail("%s", why);
    lbp_exchange *x = xcalloc(1, sizeof *x);
    x->d = d;
    x->path = path;
    x->nlinks = path == LBP_EXCHANGE_NONE ? 0 : nlinks;
    x->links = xcalloc((size_t)x->nlinks, sizeof *x->links);
    x->reqs = xcalloc((size_t)(2 * x->nlinks), sizeof *x->reqs);
    for (int i = 0; i < x->nlinks; i++) prepare_link(x, &x->links[i], &links[i]);
    if (x->nlinks) handshake(x);
    return x;
}

static void read_region(lbp_device *d, const lbp_region *r, void *host)
{
    if (d->info.caps.second_queue) d->be->read_async(d, r->buf, r->offset, host, r->bytes);
    else d->be->read(d, r->buf, r->offset, host, r->bytes);
}

static void write_region(lbp_device *d, const lbp_region *r, const void *host)
{
    if (d->info.caps.second_queue) d->be->write_async(d, r->buf, r->offset, host, r->bytes);
    else d->be->write(d, r->buf, r->offset, host, r->bytes);
}

static void run_host(lbp_exchange *x)
{
    lbp_device *d = x->d;
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        for (int r = 0, at = 0; r < s->l.nsend; at += (int)s->send[r].bytes, r++)
            read_region(d, &s->send[r], s->host_send + at);
    }
    d->be->sync(d);
    int k = 0;
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        if (s->l.nrecv)
            MPI_Irecv(s->host_recv, (int)s->recv_bytes, MPI_BYTE, s->l.peer, TAG_DATA + s->l.recv_tag, MPI_COMM_WORLD,
                      &x->reqs[k++]);
        if (s->l.nsend)
            MPI_Isend(s->host_send, (int)s->send_bytes, MPI_BYTE, s->l.peer, TAG_DATA + s->l.send_tag, MPI_COMM_WORLD,
                      &x->reqs[k++]);
    }
    wait_all(x, k);
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        for (int r = 0, at = 0; r < s->l.nrecv; at += (int)s->recv[r].bytes, r++)
            write_region(d, &s->recv[r], s->host_recv + at);
    }
    d->be->sync(d);
}

/* A zero-byte message on every link in one direction: "ready" from each
 * sender to its receiver, "done" back. */
static void signal_links(lbp_exchange *x, int tag_base, int from_senders)
{
    int k = 0;
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        const int speak = from_senders ? s->l.nsend > 0 : s->l.nrecv > 0;
        const int listen = from_senders ? s->l.nrecv > 0 : s->l.nsend > 0;
        const int speak_tag = from_senders ? s->l.send_tag : s->l.recv_tag;
        const int listen_tag = from_senders ? s->l.recv_tag : s->l.send_tag;
        if (listen) MPI_Irecv(NULL, 0, MPI_BYTE, s->l.peer, tag_base + listen_tag, MPI_COMM_WORLD, &x->reqs[k++]);
        if (speak) MPI_Isend(NULL, 0, MPI_BYTE, s->l.peer, tag_base + speak_tag, MPI_COMM_WORLD, &x->reqs[k++]);
    }
    wait_all(x, k);
}

static void run_peer(lbp_exchange *x)
{
    lbp_device *d = x->d;
    d->be->sync(d); /* this rank's send regions are written */
    signal_links(x, TAG_READY, 1);
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        for (int r = 0; r < s->l.nrecv; r++)
            d->be->copy_region(d, s->recv[r].buf, s->recv[r].offset, s->peer_buf[r]->view, s->peer_offset[r],
                               s->recv[r].bytes);
    }
    d->be->sync(d);
    signal_links(x, TAG_DONE, 0);
}

static void run_mpi(lbp_exchange *x)
{
    lbp_device *d = x->d;
    d->be->sync(d); /* this rank's send regions are written */
    int k = 0;
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        if (s->l.nrecv)
            MPI_Irecv((char *)d->be->device_pointer(d, s->recv[0].buf) + s->recv[0].offset, 1, s->recv_type,
                      s->l.peer, TAG_DATA + s->l.recv_tag, MPI_COMM_WORLD, &x->reqs[k++]);
        if (s->l.nsend)
            MPI_Isend((char *)d->be->device_pointer(d, s->send[0].buf) + s->send[0].offset, 1, s->send_type,
                      s->l.peer, TAG_DATA + s->l.send_tag, MPI_COMM_WORLD, &x->reqs[k++]);
    }
    wait_all(x, k);
}

void lbp_exchange_run(lbp_exchange *x)
{
    if (!x->nlinks) return;
    lbp_select_queue(x->d, 1);
    if (x->path == LBP_EXCHANGE_HOST) run_host(x);
    else if (x->path == LBP_EXCHANGE_PEER) run_peer(x);
    else if (x->path == LBP_EXCHANGE_MPI) run_mpi(x);
    lbp_select_queue(x->d, 0);
}

void lbp_exchange_destroy(lbp_exchange *x)
{
    if (!x) return;
    lbp_device *d = x->d;
    for (int i = 0; i < x->nlinks; i++) {
        link_state *s = &x->links[i];
        if (s->stage) unstage_link(d, s->stage);
        for (int r = 0; s->peer_buf && r < s->l.nrecv; r++) close_view(d, s->peer_buf[r]);
        if (x->path == LBP_EXCHANGE_MPI) {
            MPI_Type_free(&s->send_type);
            MPI_Type_free(&s->recv_type);
        }
        free(s->peer_buf);
        free(s->peer_offset);
        free(s->send);
        free(s->recv);
    }
    /* no rank frees a buffer before every peer has closed its view of it */
    if (x->path == LBP_EXCHANGE_PEER) lbp_mpi_barrier();
    free(x->links);
    free(x->reqs);
    free(x);
}

#else /* built without MPI: only the path that moves nothing */

struct lbp_exchange {
    int unused;
};

lbp_exchange *lbp_exchange_create(lbp_device *d, lbp_exchange_path path, const lbp_link *links, int nlinks)
{
    (void)links;
    char why[512];
    if (lbp_exchange_available(d, path, why, sizeof why)) lbp_fail("%s", why);
    if (nlinks && path != LBP_EXCHANGE_NONE) lbp_fail("exchange: links to other ranks, but built without MPI");
    return calloc(1, sizeof(lbp_exchange));
}
void lbp_exchange_run(lbp_exchange *x) { (void)x; }
size_t lbp_exchange_staging_bytes(void) { return 0; }
void lbp_exchange_destroy(lbp_exchange *x) { free(x); }
#endif
