/* lbmprobe's MPI layer: one rank per device.
 *
 * Built with MPI where mpicc is found (LBP_HAVE_MPI); without it every
 * function here works for a single rank, so the tools need no #ifdefs.  A
 * process started by a launcher (mpirun, srun) initializes MPI; one started
 * on its own is one rank and leaves the library alone (a singleton would
 * cost half a second at start and change nothing).
 *
 * Errors, so that no rank is ever left waiting:
 *  - while the command line is parsed (lbp_mpi_replicated_begin/end) ranks
 *    other than 0 print nothing, and their arguments may differ (mpirun's
 *    MPMD form): a rank that stops there (a usage error, --help) and the
 *    ranks that get through agree at lbp_mpi_replicated_end (an allreduce
 *    from the stopped rank's exit handler), so every rank exits with the
 *    worst status (2 for bad usage; one rank's --help while others go on
 *    is bad usage too), and rank 0 prints the one line of the first rank
 *    that stopped worst ("rank R: ...") where it has not said its own;
 *  - a check whose verdict may differ between ranks (a rank's device) goes
 *    through lbp_mpi_agree: every rank gives its verdict, rank 0 prints the
 *    first failing rank's one-line message, and every rank exits with the
 *    worst status;
 *  - anywhere else a rank that exits with a non-zero status (a failed API
 *    call, a failed check) aborts the job (MPI_Abort) after its message. */
#ifndef LBP_RANKS_H
#define LBP_RANKS_H

#include <stddef.h>

#include "cli.h"
#include "csv.h"
#include "device.h"

typedef struct {
    int rank, size;             /* in the job */
    int local_rank, local_size; /* among the ranks of this rank's node */
    int node, nodes;            /* this node's number (0 ..), and how many */
    int initialized;            /* MPI was initialized (started by a launcher) */
} lbp_rank_info;
extern lbp_rank_info lbp_ranks;

/* What each rank runs on (lbp_mpi_open_device gathers it). */
typedef struct {
    char backend[16], kind[8], slug[96], uuid[40], name[128];
    int node, index;
} lbp_rank_device;

int lbp_mpi_built(void);           /* 1 when built with MPI */
const char *lbp_mpi_library(void); /* the library's version line, "none" without */
/* Does the library move device memory itself (CUDA-aware Open MPI:
 * MPIX_Query_cuda_support)?  0 where it cannot say. */
int lbp_mpi_cuda_aware(void);

/* After lbp_cli_init.  Built without MPI, a process started as one of
 * several ranks stops here (exit 2). */
void lbp_mpi_init(int *argc, char ***argv);
void lbp_mpi_finalize(void);

void lbp_mpi_replicated_begin(void);
/* Collective: where any rank stopped in the span, every rank exits here. */
void lbp_mpi_replicated_end(void);

/* Collective.  code 0: this rank is fine; else its exit status and a
 * one-line message (printf-style, without the program name). */
void lbp_mpi_agree(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Open this rank's device: --device N on every rank when given, else the
 * GPU of the backend numbered by the rank's place on its node (modulo the
 * GPUs there, so that several ranks may share one), else the backend's first
 * device.  Then every rank must run the same backend and kind of device.
 * Errors are agreed (exit 2 on every rank).  A single rank: as
 * lbp_open_from_cli. */
void lbp_mpi_open_device(lbp_device *d, const lbp_common *c);
/* Every rank's device, by rank (after lbp_mpi_open_device). */
const lbp_rank_device *lbp_mpi_devices(void);
/* Do n ranks' devices share backend and kind?  0, or -1 with why. */
int lbp_rank_devices_alike(const lbp_rank_device *all, int n, char *why, size_t why_len);

/* The job in a <tool>-meta.csv: ranks, nodes, the MPI library and whether
 * it moves device memory, each rank's device (rank_<r>_device: slug, UUID,
 * node, device index). */
void lbp_mpi_meta(lbp_meta *m);

/* Collectives and messages over the job (bytes, no datatypes). */
void lbp_mpi_barrier(void);
typedef enum { LBP_MPI_MAX, LBP_MPI_MIN, LBP_MPI_SUM } lbp_mpi_op;
double lbp_mpi_reduce_all(double v, lbp_mpi_op op);
void lbp_mpi_bcast(void *buf, size_t bytes, int root);
void lbp_mpi_allgather(const void *mine, void *all, size_t bytes);
void lbp_mpi_send(const void *buf, size_t bytes, int to, int tag);
void lbp_mpi_recv(void *buf, size_t bytes, int from, int tag);

#endif
