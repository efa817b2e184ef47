/* lbmprobe's MPI layer (ranks.h): start-up, node-local ranks, agreed errors,
 * the device of each rank, and the few collectives the tools use. */
#include "ranks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>

#if defined(LBP_HAVE_MPI)
#include <mpi.h>
#if defined(OPEN_MPI)
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif
#endif

lbp_rank_info lbp_ranks = {.rank = 0, .size = 1, .local_rank = 0, .local_size = 1, .node = 0, .nodes = 1};

static lbp_rank_device *rank_devices;
static int replicated;      /* inside a span every rank runs alike */
static int saved_out = -1, saved_err = -1;

static void mute(void)
{
    fflush(stdout);
    fflush(stderr);
    int null = open("/dev/null", O_WRONLY);
    if (null < 0) return;
    saved_out = dup(STDOUT_FILENO);
    saved_err = dup(STDERR_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
}

static void unmute(void)
{
    if (saved_out < 0) return;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved_out);
    close(saved_err);
    saved_out = saved_err = -1;
}

static void agree_replicated(int stopped, int code);

void lbp_mpi_replicated_begin(void)
{
    replicated = 1;
    if (lbp_ranks.rank != 0) mute();
}

/* A rank that got through the span says so to those that stopped in it
 * (their exit handler agrees, see at_exit). */
void lbp_mpi_replicated_end(void)
{
    unmute();
    replicated = 0;
    agree_replicated(0, 0);
}

#if defined(LBP_HAVE_MPI)

static int collective_exit; /* every rank is exiting together: end MPI cleanly */

int lbp_mpi_built(void) { return 1; }

const char *lbp_mpi_library(void)
{
    static char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = 0; /* the first line names it */
    return version;
}

int lbp_mpi_cuda_aware(void)
{
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    /* asked at run time: the library loaded may differ from the one built against */
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* Started by a launcher?  Each sets one of these in every rank's
 * environment (Open MPI, PMIx, Hydra/MPICH, PMI-1/2 launchers). */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE",
                                       "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

/* How the ranks left a replicated span (the parsing of a command line that
 * mpirun's MPMD form may give each rank differently): every rank, stopped
 * in it (exit status code) or through it, calls this once.  Where any
 * stopped, every rank ends with the worst status, and where rank 0 did not
 * say the worst itself it prints the first such rank's one line, "rank R:
 * <its line>".  A rank that stopped with success (--help) while others went
 * on is bad usage: the ranks' options differ. */
static void agree_replicated(int stopped, int code)
{
    if (!lbp_ranks.initialized) return;
    char msg[512] = "";
    if (stopped && code == 0)
        snprintf(msg, sizeof msg, "ended at --help or --version: give every rank the same options");
    else if (stopped)
        snprintf(msg, sizeof msg, "%s", lbp_last_error()[0] ? lbp_last_error() : "stopped while parsing its options");
    /* [0]: 1 + the status of a rank that stopped (0: went on); [1]: some rank went on */
    int mine[2] = {stopped ? 1 + code : 0, !stopped}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!all[0]) return;
    const int lone_success = all[0] == 1 && all[1];
    const int worst = lone_success ? LBP_EXIT_USAGE : all[0] - 1;
    const int said = lone_success ? 1 : all[0]; /* whose line rank 0 passes on */
    int first = mine[0] == said ? lbp_ranks.rank : lbp_ranks.size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, MPI_COMM_WORLD);
    const int own = stopped ? code : 0; /* rank 0 has said its own line, unmuted */
    if (lbp_ranks.rank == 0 && (own < worst || lone_success)) {
        fprintf(stderr, "%s: rank %d: %s\n", lbp_prog, first, msg);
        fflush(stderr);
    }
    if (stopped) {
        /* called from the exit handler: end MPI here, and with the agreed status */
        MPI_Finalize();
        if (code != worst) {
            fflush(stdout);
            fflush(stderr);
            _exit(worst);
        }
        return;
    }
    collective_exit = 1;
    exit(worst);
}

/* A rank that ends on its own (an error not every rank sees) must take the
 * others with it, or they wait for it for ever.  One that ends while the
 * command line is parsed agrees with the others how they all end. */
static void at_exit(int status, void *arg)
{
    (void)arg;
    int done = 0;
    MPI_Finalized(&done);
    if (done) return;
    unmute();
    if (replicated) {
        replicated = 0;
        agree_replicated(1, status);
        return;
    }
    if (status == 0 || collective_exit) {
        MPI_Finalize();
        return;
    }
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
}

static void find_node(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, lbp_ranks.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lbp_ranks.local_rank);
    MPI_Comm_size(node, &lbp_ranks.local_size);
    /* nodes numbered by their first rank: the leaders before this one */
    int leader = lbp_ranks.local_rank == 0, before = 0;
    MPI_Exscan(&leader, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (lbp_ranks.rank == 0) before = 0; /* MPI_Exscan leaves rank 0's undefined */
    lbp_ranks.node = before;
    MPI_Bcast(&lbp_ranks.node, 1, MPI_INT, 0, node);
    MPI_Allreduce(&leader, &lbp_ranks.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
}

void lbp_mpi_init(int *argc, char ***argv)
{
    if (!launched()) return;
    MPI_Init(argc, argv);
    lbp_ranks.initialized = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &lbp_ranks.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &lbp_ranks.size);
    find_node();
    on_exit(at_exit, NULL);
}

void lbp_mpi_finalize(void)
{
    if (!lbp_ranks.initialized) return;
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

void lbp_mpi_agree(int code, const char *fmt, ...)
{
    char msg[512] = "";
    if (code) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    int worst = code;
    if (lbp_ranks.initialized) MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!worst) return;
    int first = code ? lbp_ranks.rank : lbp_ranks.size;
    if (lbp_ranks.initialized) {
        MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, MPI_COMM_WORLD);
    }
    if (lbp_ranks.rank == 0) fprintf(stderr, "%s: %s\n", lbp_prog, msg);
    collective_exit = 1;
    exit(worst);
}

void lbp_mpi_barrier(void)
{
    if (lbp_ranks.initialized) MPI_Barrier(MPI_COMM_WORLD);
}

double lbp_mpi_reduce_all(double v, lbp_mpi_op op)
{
    if (!lbp_ranks.initialized) return v;
    double r = v;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op == LBP_MPI_MAX ? MPI_MAX : op == LBP_MPI_MIN ? MPI_MIN : MPI_SUM,
                  MPI_COMM_WORLD);
    return r;
}

void lbp_mpi_bcast(void *buf, size_t bytes, int root)
{
    if (lbp_ranks.initialized) MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD);
}

void lbp_mpi_allgather(const void *mine, void *all, size_t bytes)
{
    if (!lbp_ranks.initialized) {
        memmove(all, mine, bytes);
        return;
    }
    MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
}

/* Messages may exceed an int of bytes (a lattice gathered for a check): sent
 * in pieces. */
#define PIECE ((size_t)1 << 30)
void lbp_mpi_send(const void *buf, size_t bytes, int to, int tag)
{
    for (size_t off = 0; off < bytes || off == 0; off += PIECE) {
        size_t n = bytes - off < PIECE ? bytes - off : PIECE;
        MPI_Send((const char *)buf + off, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD);
        if (!bytes) break;
    }
}

void lbp_mpi_recv(void *buf, size_t bytes, int from, int tag)
{
    for (size_t off = 0; off < bytes || off == 0; off += PIECE) {
        size_t n = bytes - off < PIECE ? bytes - off : PIECE;
        MPI_Recv((char *)buf + off, (int)n, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!bytes) break;
    }
}

#else /* built without MPI: one rank */

int lbp_mpi_built(void) { return 0; }
const char *lbp_mpi_library(void) { return "none"; }
int lbp_mpi_cuda_aware(void) { return 0; }

/* Started as one of several ranks, each would run alone and write the same
 * files: refuse. */
void lbp_mpi_init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const char *v = getenv(sizes[i]);
        if (v && atoi(v) > 1)
            lbp_usage_error("started as one of %s ranks, but built without MPI (make deps installs Open MPI, then "
                            "make clean all)", v);
    }
}
void lbp_mpi_finalize(void) {}
static void agree_replicated(int stopped, int code) { (void)stopped, (void)code; }

void lbp_mpi_agree(int code, const char *fmt, ...)
{
    if (!code) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (code == LBP_EXIT_USAGE) lbp_usage_error("%s", msg);
    lbp_fail("%s", msg);
}

void lbp_mpi_barrier(void) {}
double lbp_mpi_reduce_all(double v, lbp_mpi_op op) { (void)op; return v; }
void lbp_mpi_bcast(void *buf, size_t bytes, int root) { (void)buf, (void)bytes, (void)root; }
void lbp_mpi_allgather(const void *mine, void *all, size_t bytes) { memmove(all, mine, bytes); }

_Noreturn static void no_peer(void) { lbp_fail("no other rank to talk to: built without MPI"); }
void lbp_mpi_send(const void *buf, size_t bytes, int to, int tag) { (void)buf, (void)bytes, (void)to, (void)tag; no_peer(); }
void lbp_mpi_recv(void *buf, size_t bytes, int from, int tag) { (void)buf, (void)bytes, (void)from, (void)tag; no_peer(); }
#endif

/* ---- the device of each rank ------------------------------------------- */

/* The GPUs among backend be's n devices (their indices, at most max). */
static int gpus_of(const lbp_backend *be, int n, int *out, int max)
{
    int k = 0;
    for (int i = 0; i < n && k < max; i++) {
        lbp_device t = {.be = be, .index = i};
        be->open(&t, i);
        if (t.info.kind == LBP_KIND_GPU) out[k++] = i;
        be->close(&t);
    }
    return k;
}

/* The backend --backend names, or for auto the one lbp_open takes (the
 * first in the registry with a GPU, else the first with any device), with
 * its device count and GPUs; NULL with why. */
typedef struct {
    const lbp_backend *be;
    int count, gpus[256], ngpu;
} backend_choice;

static int choose_backend(backend_choice *c, const char *name, char *why, size_t len)
{
    char names[128], reason[256] = "";
    memset(c, 0, sizeof *c);
    if (name && strcmp(name, "auto")) {
        if (!(c->be = lbp_backend_by_name(name))) {
            snprintf(why, len, "--backend: unknown backend '%s' (%s, auto)", name, lbp_backend_names(names, sizeof names));
            return -1;
        }
        if ((c->count = c->be->count(reason, sizeof reason)) <= 0) {
            snprintf(why, len, "%s: %s (see --list)", name, c->count < 0 ? reason : "no devices");
            return -1;
        }
        c->ngpu = gpus_of(c->be, c->count, c->gpus, 256);
        return 0;
    }
    backend_choice any = {0};
    for (int b = 0; lbp_backends[b]; b++) {
        backend_choice t = {.be = lbp_backends[b]};
        if ((t.count = t.be->count(reason, sizeof reason)) <= 0) continue;
        if ((t.ngpu = gpus_of(t.be, t.count, t.gpus, 256)) > 0) {
            *c = t;
            return 0;
        }
        if (!any.be) any = t;
    }
    if (!any.be) {
        snprintf(why, len, "no device found by any backend (see --list)");
        return -1;
    }
    *c = any;
    return 0;
}

static void gather_devices(const lbp_device *d)
{
    lbp_rank_device mine = {.node = lbp_ranks.node, .index = d->index};
    snprintf(mine.backend, sizeof mine.backend, "%s", d->info.backend);
    snprintf(mine.kind, sizeof mine.kind, "%s", lbp_kind_name(d->info.kind));
    snprintf(mine.slug, sizeof mine.slug, "%s", d->info.slug);
    snprintf(mine.uuid, sizeof mine.uuid, "%s", d->info.uuid);
    snprintf(mine.name, sizeof mine.name, "%s", d->info.name);
    free(rank_devices);
    rank_devices = calloc((size_t)lbp_ranks.size, sizeof *rank_devices);
    if (!rank_devices) lbp_fail("out of host memory for %d ranks' devices", lbp_ranks.size);
    lbp_mpi_allgather(&mine, rank_devices, sizeof mine);
}

const lbp_rank_device *lbp_mpi_devices(void) { return rank_devices; }

void lbp_mpi_open_device(lbp_device *d, const lbp_common *c)
{
    /* --list and --describe end every rank in the span below: all or none */
    const double ends = c->list || c->describe;
    lbp_mpi_agree(lbp_mpi_reduce_all(ends, LBP_MPI_MAX) != lbp_mpi_reduce_all(ends, LBP_MPI_MIN) ? LBP_EXIT_USAGE : 0,
                  "--list or --describe given to some ranks only: give every rank the same options");
    if (lbp_ranks.size == 1 || c->list || c->describe) {
        /* --list and --describe print once (rank 0) and end every rank */
        lbp_mpi_replicated_begin();
        lbp_open_from_cli(d, c);
        lbp_mpi_replicated_end();
        gather_devices(d);
        return;
    }
    char why[384] = "";
    backend_choice bc;
    const int bad = choose_backend(&bc, c->backend, why, sizeof why) != 0;
    lbp_mpi_agree(bad ? LBP_EXIT_USAGE : 0, "rank %d: %s", lbp_ranks.rank, why);
    /* the rank's place on its node picks a GPU; several ranks may share one */
    const int index = c->device >= 0 ? c->device : bc.ngpu ? bc.gpus[lbp_ranks.local_rank % bc.ngpu] : 0;
    lbp_mpi_agree(index < bc.count ? 0 : LBP_EXIT_USAGE, "--device %d: rank %d's %s has %d device%s (see --list)",
                  index, lbp_ranks.rank, bc.be->name, bc.count, bc.count == 1 ? "" : "s");
    lbp_open(d, bc.be->name, index);
    gather_devices(d);
    /* every rank holds the same table: the same verdict everywhere */
    lbp_mpi_agree(lbp_rank_devices_alike(rank_devices, lbp_ranks.size, why, sizeof why) ? LBP_EXIT_USAGE : 0, "%s",
                  why);
}

int lbp_rank_devices_alike(const lbp_rank_device *all, int n, char *why, size_t why_len)
{
    for (int r = 1; r < n; r++)
        if (strcmp(all[r].kind, all[0].kind) || strcmp(all[r].backend, all[0].backend)) {
            snprintf(why, why_len,
                     "ranks on different kinds of device: rank 0 on a %s %s (%s), rank %d on a %s %s (%s); every "
                     "rank needs the same backend and kind",
                     all[0].backend, all[0].kind, all[0].slug, r, all[r].backend, all[r].kind, all[r].slug);
            return -1;
        }
    return 0;
}

void lbp_mpi_meta(lbp_meta *m)
{
    lbp_meta_set(m, "ranks", "%d", lbp_ranks.size);
    lbp_meta_set(m, "nodes", "%d", lbp_ranks.nodes);
    lbp_meta_set(m, "mpi_library", "%s", lbp_mpi_library());
    lbp_meta_set(m, "mpi_cuda_aware", "%d", lbp_mpi_cuda_aware());
    for (int k = 0; rank_devices && k < lbp_ranks.size; k++) {
        const lbp_rank_device *r = &rank_devices[k];
        char key[48];
        snprintf(key, sizeof key, "rank_%d_device", k);
        lbp_meta_set(m, key, "%s %s node %d device %d", r->slug, r->uuid[0] ? r->uuid : "unknown", r->node, r->index);
    }
}
