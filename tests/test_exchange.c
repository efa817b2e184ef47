/* core/exchange between ranks, on a stand-in device whose buffers are
 * POSIX shared memory: its IPC handle is the segment's name, so the peer
 * path (handles passed over MPI, views opened, ready/done messages, copies
 * from the neighbours' memory) runs here as it does on CUDA; its memory is
 * the host's, so the mpi path (a datatype over each link's regions, on
 * device addresses) runs as with a CUDA-aware MPI; and the host path.  tests/test_mpi.sh runs this under mpirun with 2 and 3
 * ranks; alone (one rank) every test is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "device.h"
#include "exchange.h"
#include "ranks.h"

/* ---- the stand-in device ------------------------------------------------- */
struct lbp_buf {
    unsigned char *p;
    size_t bytes;
    char name[LBP_IPC_HANDLE_BYTES];
    int imported;
};

static void shm_release(lbp_device *d, lbp_buf *b)
{
    (void)d;
    munmap(b->p, b->bytes);
    if (!b->imported) shm_unlink(b->name);
    free(b);
}

static lbp_buf *shm_alloc(lbp_device *d, size_t bytes)
{
    (void)d;
    static int count;
    lbp_buf *b = calloc(1, sizeof *b);
    snprintf(b->name, sizeof b->name, "/lbp-test-exchange-%d-%d", (int)getpid(), count++);
    int fd = shm_open(b->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)bytes)) lbp_fail("shm_open %s failed", b->name);
    b->p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (b->p == MAP_FAILED) lbp_fail("mmap of %s failed", b->name);
    b->bytes = bytes;
    return b;
}

static void shm_write(lbp_device *d, lbp_buf *dst, size_t off, const void *src, size_t bytes)
{
    (void)d;
    assert_true(off + bytes <= dst->bytes);
    memcpy(dst->p + off, src, bytes);
}

static void shm_read(lbp_device *d, const lbp_buf *src, size_t off, void *dst, size_t bytes)
{
    (void)d;
    assert_true(off + bytes <= src->bytes);
    memcpy(dst, src->p + off, bytes);
}

static void shm_copy_region(lbp_device *d, lbp_buf *dst, size_t dst_off, const lbp_buf *src, size_t src_off,
                            size_t bytes)
{
    (void)d;
    assert_true(dst_off + bytes <= dst->bytes && src_off + bytes <= src->bytes);
    memcpy(dst->p + dst_off, src->p + src_off, bytes);
}

static int host_buffers; /* host_alloc'd and not yet freed */
static void *shm_host_alloc(lbp_device *d, size_t bytes, int pinned)
{
    (void)d, (void)pinned;
    host_buffers++;
    return malloc(bytes);
}
static void shm_host_free(lbp_device *d, void *p, int pinned)
{
    (void)d, (void)pinned;
    host_buffers--;
    free(p);
}
static void shm_sync(lbp_device *d) { (void)d; }
static int queue_now;
static void shm_select_queue(lbp_device *d, int q) { (void)d; queue_now = q; }

static void shm_export(lbp_device *d, lbp_buf *b, unsigned char handle[LBP_IPC_HANDLE_BYTES])
{
    (void)d;
    memcpy(handle, b->name, LBP_IPC_HANDLE_BYTES);
}

static int views_open;
static lbp_buf *shm_import(lbp_device *d, const unsigned char handle[LBP_IPC_HANDLE_BYTES])
{
    (void)d;
    lbp_buf *b = calloc(1, sizeof *b);
    memcpy(b->name, handle, LBP_IPC_HANDLE_BYTES);
    b->imported = 1;
    int fd = shm_open(b->name, O_RDWR, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) lbp_fail("shm_open %s (a peer's buffer) failed", b->name);
    b->bytes = (size_t)st.st_size;
    b->p = mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    views_open++;
    return b;
}

static void shm_close_view(lbp_device *d, lbp_buf *b)
{
    views_open--;
    shm_release(d, b);
}

static void *shm_pointer(lbp_device *d, lbp_buf *b) { (void)d; return b->p; }

static const lbp_backend shm_backend = {.name = "shm", .alloc = shm_alloc, .release = shm_release,
                                        .write = shm_write, .read = shm_read, .host_alloc = shm_host_alloc,
                                        .host_free = shm_host_free, .sync = shm_sync,
                                        .select_queue = shm_select_queue, .read_async = shm_read,
                                        .write_async = shm_write, .copy_region = shm_copy_region,
                                        .ipc_export = shm_export, .ipc_import = shm_import,
                                        .ipc_close = shm_close_view, .device_pointer = shm_pointer};

static lbp_device shm_device(void)
{
    lbp_device d = {.be = &shm_backend};
    d.info.caps = (lbp_caps){.second_queue = 1, .ipc = 1, .device_pointers = 1, .host_pointers = 1};
    snprintf(d.info.name, sizeof d.info.name, "shared memory");
    return d;
}

/* ---- the tests ------------------------------------------------------------ */
#define BYTES 16384 /* four quarters: sent up, down, received from below, above */
/* Byte k of what `rank` sends towards `up` in round `round`. */
static unsigned char byte_of(int rank, int up, int round, size_t k)
{
    return (unsigned char)(1 + (rank * 37 + up * 101 + round * 53 + (int)k * 7) % 251);
}

/* A ring: to each neighbour three regions of odd sizes and places (sent
 * from the first half of the buffer, received into the second). */
static const size_t region_at[3] = {0, 700, 1500}, region_len[3] = {333, 64, 517};

static int ring_links(lbp_buf *b, lbp_region send[2][3], lbp_region recv[2][3], lbp_link *links)
{
    const int n = lbp_ranks.size, me = lbp_ranks.rank;
    for (int up = 0; up < 2; up++)
        for (int i = 0; i < 3; i++) {
            /* what goes up is what the upper neighbour receives from below */
            send[up][i] = (lbp_region){b, up * BYTES / 4 + region_at[i], region_len[i]};
            recv[up][i] = (lbp_region){b, BYTES / 2 + (1 - up) * BYTES / 4 + region_at[i], region_len[i]};
        }
    links[0] = (lbp_link){.peer = (me + 1) % n, .send_tag = 0, .recv_tag = 1, .nsend = 3, .nrecv = 3,
                          .send = send[1], .recv = recv[1]};
    links[1] = (lbp_link){.peer = (me + n - 1) % n, .send_tag = 1, .recv_tag = 0, .nsend = 3, .nrecv = 3,
                          .send = send[0], .recv = recv[0]};
    return 2;
}

/* A ring over one buffer of the stand-in device, as the tests set it up. */
typedef struct {
    lbp_device d;
    lbp_buf *b;
    lbp_region send[2][3], recv[2][3];
    lbp_link links[2];
    int nl;
} ring_setup;

static void ring_setup_open(ring_setup *r)
{
    r->d = shm_device();
    r->b = shm_alloc(&r->d, BYTES);
    r->nl = ring_links(r->b, r->send, r->recv, r->links);
}

/* Fill what this rank sends in a round, run the exchange, check what came. */
static void one_round(lbp_device *d, lbp_buf *b, lbp_exchange *x, int round)
{
    const int n = lbp_ranks.size, me = lbp_ranks.rank;
    for (int up = 0; up < 2; up++)
        for (size_t k = 0; k < BYTES / 4; k++) b->p[up * BYTES / 4 + k] = byte_of(me, up, round, k);
    memset(b->p + BYTES / 2, 0, BYTES / 2);
    lbp_exchange_run(x);
    assert_int_equal(queue_now, 0); /* the first queue is the current one again */
    for (int from_below = 0; from_below < 2; from_below++) {
        const int peer = from_below ? (me + n - 1) % n : (me + 1) % n;
        for (int i = 0; i < 3; i++)
            for (size_t k = 0; k < BYTES / 4; k++) {
                const int inside = k >= region_at[i] && k < region_at[i] + region_len[i];
                int in_any = 0;
                for (int j = 0; j < 3; j++) in_any |= k >= region_at[j] && k < region_at[j] + region_len[j];
                const unsigned char got = b->p[BYTES / 2 + (size_t)from_below * BYTES / 4 + k];
                if (inside) assert_int_equal(got, byte_of(peer, from_below, round, k));
                else if (!in_any) assert_int_equal(got, 0); /* nothing outside the regions */
            }
    }
    (void)d;
}

static void ring(void **state, lbp_exchange_path path)
{
    (void)state;
    if (lbp_ranks.size < 2) skip();
    lbp_device d = shm_device();
    char why[512];
    assert_int_equal(lbp_exchange_available(&d, path, why, sizeof why), 0);
    lbp_buf *b = shm_alloc(&d, BYTES);
    lbp_region send[2][3], recv[2][3];
    lbp_link links[2];
    lbp_exchange *x = lbp_exchange_create(&d, path, links, ring_links(b, send, recv, links));
    for (int round = 0; round < 4; round++) one_round(&d, b, x, round);
    lbp_exchange_destroy(x);
    assert_int_equal(views_open, 0);
    shm_release(&d, b);
}

static void test_ring_host(void **state) { ring(state, LBP_EXCHANGE_HOST); }
static void test_ring_peer(void **state) { ring(state, LBP_EXCHANGE_PEER); }
static void test_ring_mpi(void **state) { ring(state, LBP_EXCHANGE_MPI); }

/* Two exchanges over one buffer open one view of each peer's buffer; the
 * view outlives the first exchange and closes with the last. */
static void test_views_shared(void **state)
{
    (void)state;
    if (lbp_ranks.size < 2) skip();
    ring_setup r;
    ring_setup_open(&r);
    lbp_exchange *first = lbp_exchange_create(&r.d, LBP_EXCHANGE_PEER, r.links, r.nl);
    lbp_exchange *second = lbp_exchange_create(&r.d, LBP_EXCHANGE_PEER, r.links, r.nl);
    assert_int_equal(views_open, lbp_ranks.size == 2 ? 1 : 2); /* one per distinct neighbour */
    lbp_exchange_destroy(first);
    assert_int_equal(views_open, lbp_ranks.size == 2 ? 1 : 2);
    one_round(&r.d, r.b, second, 7);
    lbp_exchange_destroy(second);
    assert_int_equal(views_open, 0);
    shm_release(&r.d, r.b);
}

/* Two host-path exchanges over the same links (lbmkernels' one per
 * lattice) stage through one set of host memory, a send and a receive
 * buffer per link, and run in turn on it; a third over larger regions
 * gets its own; the staging goes with the last exchange that uses it. */
static void test_staging_shared(void **state)
{
    (void)state;
    if (lbp_ranks.size < 2) skip();
    ring_setup r;
    ring_setup_open(&r);
    size_t link_bytes = 0; /* a link's regions, one way */
    for (int i = 0; i < 3; i++) link_bytes += region_len[i];
    assert_int_equal(lbp_exchange_staging_bytes(), 0);
    lbp_exchange *first = lbp_exchange_create(&r.d, LBP_EXCHANGE_HOST, r.links, r.nl);
    lbp_exchange *second = lbp_exchange_create(&r.d, LBP_EXCHANGE_HOST, r.links, r.nl);
    assert_int_equal(host_buffers, 4); /* per link: send, receive */
    assert_int_equal(lbp_exchange_staging_bytes(), 4 * link_bytes);
    for (int round = 0; round < 4; round++) one_round(&r.d, r.b, round & 1 ? second : first, round);
    /* a longer first region on every link: more than the staging holds */
    ring_setup wider = r;
    for (int up = 0; up < 2; up++) wider.send[up][0].bytes = wider.recv[up][0].bytes = region_len[0] + 1;
    wider.links[0].send = wider.send[1], wider.links[0].recv = wider.recv[1];
    wider.links[1].send = wider.send[0], wider.links[1].recv = wider.recv[0];
    lbp_exchange *third = lbp_exchange_create(&r.d, LBP_EXCHANGE_HOST, wider.links, wider.nl);
    assert_int_equal(host_buffers, 8);
    lbp_exchange_destroy(third);
    lbp_exchange_destroy(first);
    assert_int_equal(host_buffers, 4); /* the second still uses them */
    one_round(&r.d, r.b, second, 5);
    lbp_exchange_destroy(second);
    assert_int_equal(host_buffers, 0);
    assert_int_equal(lbp_exchange_staging_bytes(), 0);
    shm_release(&r.d, r.b);
}

/* One-way: a rank that only sends and one that only receives (the
 * interconnect probe's links), the others idle. */
static void test_one_way_peer(void **state)
{
    (void)state;
    if (lbp_ranks.size < 2) skip();
    lbp_device d = shm_device();
    lbp_buf *b = shm_alloc(&d, BYTES);
    const int me = lbp_ranks.rank;
    for (size_t k = 0; k < BYTES; k++) b->p[k] = me == 0 ? byte_of(0, 1, 9, k) : 0;
    lbp_region part[2] = {{b, 0, 1000}, {b, 1000, 24}}, into[2] = {{b, 8192, 1000}, {b, 9192, 24}};
    lbp_link l = me == 0 ? (lbp_link){.peer = 1, .send_tag = 0, .recv_tag = 1, .nsend = 2, .send = part}
                         : (lbp_link){.peer = 0, .send_tag = 1, .recv_tag = 0, .nrecv = 2, .recv = into};
    lbp_exchange *x = lbp_exchange_create(&d, LBP_EXCHANGE_PEER, &l, me <= 1);
    lbp_exchange_run(x);
    lbp_exchange_destroy(x);
    if (me == 1)
        for (size_t k = 0; k < 1024; k++) assert_int_equal(b->p[8192 + k], byte_of(0, 1, 9, k));
    shm_release(&d, b);
}

int main(int argc, char **argv)
{
    lbp_cli_init("test_exchange");
    lbp_mpi_init(&argc, &argv);
    if (lbp_ranks.size < 2) printf("test_exchange: one rank: skipped here; tests/test_mpi.sh runs it under mpirun\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_host),
        cmocka_unit_test(test_ring_peer),
        cmocka_unit_test(test_ring_mpi),
        cmocka_unit_test(test_views_shared),
        cmocka_unit_test(test_staging_shared),
        cmocka_unit_test(test_one_way_peer),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    /* every rank's verdict, so that all end alike */
    const int any = (int)lbp_mpi_reduce_all(failed, LBP_MPI_MAX);
    lbp_mpi_finalize();
    return any ? 1 : 0;
}
