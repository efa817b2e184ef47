/* Moving parts of device buffers between ranks: the halo exchange of a
 * decomposed lattice and the interconnect probe share it, so the probe
 * measures the path the exchange takes.
 *
 * Paths (--exchange):
 *   host  device -> host (pinned), MPI_Isend/MPI_Irecv, host -> device: any
 *         backend, any MPI, across nodes; the pinned staging of a link is
 *         shared by every exchange over it in the process;
 *   peer  device to device on one node: each rank opens its neighbours'
 *         buffers through IPC handles passed over MPI (cuIpcGetMemHandle,
 *         cuIpcOpenMemHandle) and copies what it receives from their memory
 *         into its own on its second queue; two small messages per link and
 *         run say "ready" (the sender's regions are written) and "done" (the
 *         receiver has copied them), so no rank overwrites what a neighbour
 *         still reads;
 *   mpi   the MPI library moves device memory itself (CUDA-aware MPI, as
 *         MPIX_Query_cuda_support says, or any MPI where the device's
 *         memory is the host's), one message per link with a datatype
 *         over its regions.
 * Device transfers go to the device's second queue where it has one, so
 * that kernels on the first run beside them. */
#ifndef LBP_EXCHANGE_H
#define LBP_EXCHANGE_H

#include <stddef.h>

#include "device.h"

typedef enum { LBP_EXCHANGE_NONE, LBP_EXCHANGE_HOST, LBP_EXCHANGE_PEER, LBP_EXCHANGE_MPI, LBP_EXCHANGE_PATHS } lbp_exchange_path;
extern const char *const lbp_exchange_names[]; /* "none", "host", "peer", "mpi", NULL */

/* bytes of buf from offset on */
typedef struct {
    lbp_buf *buf;
    size_t offset, bytes;
} lbp_region;

/* What this rank sends to and receives from one other rank.  The peer's
 * link to this rank lists the same regions in the same order and sizes,
 * with the tags swapped: send_tag here is recv_tag there.  Two links to one
 * peer (both neighbours of a periodic ring of two) differ in their tags. */
#define LBP_LINK_TAGS 64 /* tags are 0 .. LBP_LINK_TAGS - 1 */
typedef struct {
    int peer;
    int send_tag, recv_tag;
    int nsend, nrecv;
    const lbp_region *send, *recv;
} lbp_link;

/* Can this path run between the ranks of this job on this device?  0, or
 * -1 with the reason ("not available: ...") in why.  Local; the same on
 * every rank where every rank runs the same backend and kind of device. */
int lbp_exchange_available(const lbp_device *d, lbp_exchange_path path, char *why, size_t why_len);

typedef struct lbp_exchange lbp_exchange;

/* Set up the links (copied): matches each link's regions with the peer's
 * (a mismatch is a broken decomposition: the run ends), allocates staging
 * memory, opens the peers' buffers.  Collective: every rank calls it, with
 * its own links (none is fine). */
lbp_exchange *lbp_exchange_create(lbp_device *d, lbp_exchange_path path, const lbp_link *links, int nlinks);
/* Send every send region, receive every receive region; when it returns,
 * this rank's receive regions hold its peers' data.  The device work that
 * wrote the send regions must be finished or enqueued on the device's
 * second queue; the first queue is left as it is (work there runs on),
 * which is the overlap.  Called by every linked rank alike. */
void lbp_exchange_run(lbp_exchange *x);
/* Collective (every rank, as create): after it, a rank may free the
 * buffers its peers had opened. */
void lbp_exchange_destroy(lbp_exchange *x);
/* Pinned host bytes this process holds for the host path's staging: one
 * set per link (peer and tags), however many exchanges run over it (the
 * exchanges of a process run one at a time, so they share it). */
size_t lbp_exchange_staging_bytes(void);

#endif
