/* The probe configurations of each sweep (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpucubes.h"
#include "table.h"

#define D3Q19_WORDS 19 /* N of a D3Q19 lattice update */
#define AA_ODD_MISALIGNED 10 /* L = M = 10 in the A-A odd step; 10 reads of pull, 10 writes of push */

/* The word sizes every sweep that the model reads at a kernel's access
 * width probes: 4 (fp32), 8 (fp64, and fp32 at two cells per thread), 2
 * (fp16s at one cell per thread; at 2 and 4 cells its accesses are 4 and
 * 8 bytes wide). */
static const int all_word_bytes[] = {4, 8, 2};
#define N_WORD_BYTES 3

/* Doubles for an 8-byte payload; 2-byte payloads compute in float. */
static int payload_runs(const mb_plan_options *o, int w) { return w != 8 || o->fp64; }

const char *mb_config_name(const mb_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "N%d-L%d-M%d-w%d-b%d-k%d", c->spec.words, c->spec.misaligned_reads,
             c->spec.misaligned_writes, c->spec.word_bytes, c->block_size, c->blocks_per_cu_requested);
    if (c->spec.payload) snprintf(buf + strlen(buf), len - strlen(buf), "-p%d", c->spec.payload);
    if (c->spec.in_place) snprintf(buf + strlen(buf), len - strlen(buf), "-ip");
    if (c->spec.swapped) snprintf(buf + strlen(buf), len - strlen(buf), "-sw");
    if (mb_vector(&c->spec) > 1) snprintf(buf + strlen(buf), len - strlen(buf), "-v%d", c->spec.vector);
    if (mb_row(&c->spec) > 1) snprintf(buf + strlen(buf), len - strlen(buf), "-r%d", c->spec.row);
    if (mb_band(&c->spec) < 32) snprintf(buf + strlen(buf), len - strlen(buf), "-x%d", c->spec.band);
    if (mb_is_tile(&c->spec))
        snprintf(buf + strlen(buf), len - strlen(buf), "-t%dx%dx%d", c->spec.tile[0], c->spec.tile[1],
                 c->spec.tile[2]);
    if (c->spec.nontemporal) snprintf(buf + strlen(buf), len - strlen(buf), "-nt");
    return buf;
}

static int same_config(const mb_config *a, const mb_config *b)
{
    return a->spec.words == b->spec.words && a->spec.word_bytes == b->spec.word_bytes && a->threads == b->threads &&
           a->spec.misaligned_reads == b->spec.misaligned_reads &&
           a->spec.misaligned_writes == b->spec.misaligned_writes && a->spec.payload == b->spec.payload &&
           a->spec.in_place == b->spec.in_place && a->spec.swapped == b->spec.swapped &&
           mb_vector(&a->spec) == mb_vector(&b->spec) && mb_row(&a->spec) == mb_row(&b->spec) &&
           mb_band(&a->spec) == mb_band(&b->spec) && !memcmp(a->spec.tile, b->spec.tile, sizeof a->spec.tile) &&
           !a->spec.nontemporal == !b->spec.nontemporal &&
           a->block_size == b->block_size &&
           a->blocks_per_cu_requested == b->blocks_per_cu_requested;
}

static void add(mb_plan *p, const mb_plan_options *o, const char *sweep, int n, int w, int l, int m, int bs, int k,
                int stamps)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 128;
        p->items = realloc(p->items, sizeof *p->items * (size_t)p->cap);
        if (!p->items) lbp_fail("out of memory");
    }
    mb_plan_item *it = &p->items[p->n++];
    *it = (mb_plan_item){.sweep = sweep,
                         .cfg = {.spec = {.words = n, .word_bytes = w, .misaligned_reads = l,
                                          .misaligned_writes = m},
                                 .block_size = bs,
                                 .blocks_per_cu_requested = k},
                         .stamps = stamps && o->stamps};
    for (int i = 0; i < p->n - 1 && it->stamps; i++)
        if (p->items[i].stamps && same_config(&p->items[i].cfg, &it->cfg)) it->stamps = 0;
}

static int in_set(int v, const int *set, int n)
{
    for (int i = 0; i < n; i++)
        if (set[i] == v) return 1;
    return 0;
}

static void plan_words(mb_plan *p, const mb_plan_options *o)
{
    static const int stamped[] = {1, 4, 8, 16, 19, 24, 32, 40};
    static const int other_bytes[] = {1, 4, 8, 19, 27, 40}; /* the other word sizes' points */
    int n_stamped = o->quick ? 0 : (int)(sizeof stamped / sizeof *stamped);
    for (int i = 0; i < o->n_words; i++) {
        int n = (int)o->words[i];
        add(p, o, "words", n, o->word_bytes, 0, 0, o->block_size, o->blocks_per_cu,
            n == D3Q19_WORDS || in_set(n, stamped, n_stamped));
    }
    if (o->word_bytes_given || o->word_bytes != 4) return;
    for (int w = 8; w >= 2; w -= 6)
        for (int i = 0; i < o->n_words; i++) {
            int n = (int)o->words[i];
            if (o->quick ? n == D3Q19_WORDS : in_set(n, other_bytes, (int)(sizeof other_bytes / sizeof *other_bytes)))
                add(p, o, "words", n, w, 0, 0, o->block_size, o->blocks_per_cu, 0);
        }
}

/* Steps of 1 up to N=20 (D3Q19), coarser above; always ends at x = N.  A
 * CPU's curves are lines (no sectors: a shifted word costs its cache line
 * or nothing), read as a slope, and each point is a kernel the C compiler
 * builds for seconds: quick's steps there, and a CPU's quick run the
 * fewest points a slope through the schemes' L, M = 10 takes (0, 10, N). */
static int misaligned_step(const mb_plan_options *o, int n)
{
    if (o->quick && o->cpu) return n >= 10 ? AA_ODD_MISALIGNED : 1;
    if (o->quick || o->cpu) return n >= 10 ? 5 : 1;
    return n <= 20 ? 1 : 3;
}

static void plan_misaligned_curves(mb_plan *p, const mb_plan_options *o, int n, int w)
{
    static const char *const sweeps[] = {"misaligned_reads", "misaligned_writes", "misaligned_both"};
    const int step = misaligned_step(o, n);
    for (int s = 0; s < 3; s++) {
        for (int x = 0;; x += step) {
            if (x > n) x = n;
            int l = s == 1 ? 0 : x, m = s == 0 ? 0 : x;
            int stamped = n == D3Q19_WORDS && (x == 0 || x == AA_ODD_MISALIGNED || x == n) && !o->quick &&
                          w == o->word_bytes;
            add(p, o, sweeps[s], n, w, l, m, o->block_size, o->blocks_per_cu, stamped);
            if (x == n) break;
        }
    }
}

static void plan_misaligned(mb_plan *p, const mb_plan_options *o)
{
    for (int i = 0; i < o->n_misaligned_n; i++) plan_misaligned_curves(p, o, (int)o->misaligned_n[i], o->word_bytes);
    /* 2-byte words at N = 19 too: a shifted 2-byte access of a warp spans
     * 3 sectors for 2, a share of the cost no wider word shows */
    if (!o->word_bytes_given && o->word_bytes == 4) plan_misaligned_curves(p, o, D3Q19_WORDS, 2);
}

static void plan_word_bytes(mb_plan *p, const mb_plan_options *o)
{
    static const int lm[3][2] = {{0, 0}, {AA_ODD_MISALIGNED, 0}, {0, AA_ODD_MISALIGNED}};
    for (int w = 2; w <= 8; w *= 2)
        for (int i = 0; i < 3; i++)
            add(p, o, "word_bytes", D3Q19_WORDS, w, lm[i][0], lm[i][1], o->block_size, o->blocks_per_cu, 1);
}

/* The vector sweep: push's, pull's and A-A's shapes of shifted words at V
 * words per thread, then A-A's two steps in place (one array, each word
 * stored back where it was read, L = M): A-A's odd step stores its shifted
 * words into the sectors its own loads just brought, where the 10/10 probe
 * above stores them into sectors of another array that nothing read. */
static void plan_vector(mb_plan *p, const mb_plan_options *o)
{
    static const int lm[6][3] = {{0, 0, 0},
                                 {AA_ODD_MISALIGNED, 0, 0},
                                 {0, AA_ODD_MISALIGNED, 0},
                                 {AA_ODD_MISALIGNED, AA_ODD_MISALIGNED, 0},
                                 {0, 0, 1},
                                 {AA_ODD_MISALIGNED, AA_ODD_MISALIGNED, 1}};
    if (!o->vector || o->word_bytes_given || o->word_bytes != 4) return;
    for (int v = 2; v <= MB_MAX_VECTOR; v *= 2)
        for (int i = 0; i < 6; i++) {
            add(p, o, "vector", D3Q19_WORDS, 2, lm[i][0], lm[i][1], o->block_size, o->blocks_per_cu, 0);
            p->items[p->n - 1].cfg.spec.vector = v;
            p->items[p->n - 1].cfg.spec.in_place = lm[i][2];
        }
}

static void add_threads(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *v, int k, long long threads)
{
    add(p, o, "threads", D3Q19_WORDS, v->word_bytes, v->misaligned_reads, v->misaligned_writes, o->block_size, k, 0);
    p->items[p->n - 1].cfg.spec.payload = v->payload;
    p->items[p->n - 1].cfg.threads = threads;
    p->items[p->n - 1].cfg.launches = MB_THREADS_LAUNCHES;
}

/* A CPU: the smallest count, the cells of lbmkernels' CPU lattices below
 * top, and top.  A row kernel's work-items are its lattice's rows, but the
 * model reads the curve at its cells (one thread per cell of the probe),
 * and nothing between those points: on a CPU a launch of 2^21 threads
 * and more takes milliseconds to tens of them, and every thread count is
 * 15 curves, so the x2/x1.5 grid of a GPU (21 counts) would cost minutes
 * where these few counts cost one. */
static void plan_cpu_threads_curve(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *v, int k,
                                   long long top)
{
    static const int cubes[] = LBP_CPU_CUBES, quick_cubes[] = LBP_CPU_CUBES_QUICK;
    const int *list = o->quick ? quick_cubes : cubes;
    const int n = o->quick ? LBP_CPU_N_CUBES_QUICK : LBP_CPU_N_CUBES;
    long long last = MB_THREADS_MIN < top ? MB_THREADS_MIN : top;
    add_threads(p, o, v, k, last);
    for (int i = 0; i < n; i++) {
        const long long cells = (long long)list[i] * list[i] * list[i];
        if (cells <= last || cells >= top) continue;
        add_threads(p, o, v, k, cells);
        last = cells;
    }
    if (top > last) add_threads(p, o, v, k, top);
}

/* The aligned N=19 probe with w-byte words and k blocks per SM at the thread
 * counts of small to large lattices (32^3 = 2^15, 48^3 ~ 2^16.8, 64^3 =
 * 2^18, 128^3 = 2^21, 256^3 = 2^24), launched back to back like the steps of
 * a time loop.  The L2-resident range, where the time changes fastest, gets
 * points at x1.5 too. */
/* The threads sweep's largest count for w-byte words (0: none). */
static long long sweep_top(const mb_plan_options *o, int w)
{
    long long top = o->max_threads, beyond = o->threads_top[mb_word_slot(w)];
    return beyond > top && top > 0 ? beyond : top;
}

static void plan_threads_curve(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *v, int k)
{
    if (o->n_thread_counts) {
        for (int i = 0; i < o->n_thread_counts; i++) add_threads(p, o, v, k, o->thread_counts[i]);
        return;
    }
    const long long top = sweep_top(o, v->word_bytes);
    if (top <= 0) return;
    if (o->cpu) {
        plan_cpu_threads_curve(p, o, v, k, top);
        return;
    }
    long long t = MB_THREADS_MIN < top ? MB_THREADS_MIN : top;
    while (t < top) {
        add_threads(p, o, v, k, t);
        long long half_step = t + t / 2;
        if (!o->quick && t >= (1LL << 13) && t <= (1LL << 20) && half_step < top) add_threads(p, o, v, k, half_step);
        t *= o->quick ? 4 : 2;
    }
    add_threads(p, o, v, k, top);
}

static void plan_threads(mb_plan *p, const mb_plan_options *o)
{
    /* aligned; collision payload; L = 10; M = 10; L = M = 10 */
    static const int variants[5][3] = {{0, 0, 0}, {0, 0, MB_PAYLOAD_COLLISION}, {AA_ODD_MISALIGNED, 0, 0},
                                       {0, AA_ODD_MISALIGNED, 0}, {AA_ODD_MISALIGNED, AA_ODD_MISALIGNED, 0}};
    for (int i = 0; i < (o->aligned_only ? 1 : 5); i++)
        for (int wi = 0; wi < N_WORD_BYTES; wi++) {
            const int w = all_word_bytes[wi];
            if (variants[i][2] && !payload_runs(o, w)) continue;
            mb_probe_spec v = {.words = D3Q19_WORDS, .word_bytes = w, .misaligned_reads = variants[i][0],
                               .misaligned_writes = variants[i][1], .payload = variants[i][2]};
            plan_threads_curve(p, o, &v, o->blocks_per_cu);
        }
}

/* The rows sweep: the threads sweep's N=19 probe with R cells per
 * work-item in a loop (gen.h), the shape of lbmkernels' row kernels on a
 * CPU, at the threads sweep's cell counts, in 2-, 4- and 8-byte words:
 * stores into the other arrays (aligned; the collision payload; L = 10;
 * M = 10) and in place, A-A's traffic (aligned; the payload; L = M = 10,
 * its odd step).  The variants are what the model's kernel factor reads
 * for a row kernel: the one-cell probes' ratios, timed one launch at a
 * time, do not carry over to a loop the compiler vectorizes (a payload
 * hidden behind the memory there, for one).  Where the backend has
 * non-temporal stores, the aligned probe again with them (4- and 8-byte
 * words, gen.h): what the kernels' LBM_NT stores save over the aligned
 * rows; and the folded payload (4- and 8-byte words, in place and not,
 * gen.h), the collision's instructions where the loop is not
 * memory-bound.  Quick: the aligned curves, and the 4-byte non-temporal
 * one. */
/* Items first.. of a threads curve made row probes of R cells. */
static void rows_curve(mb_plan *p, int first, int row, int in_place, int nontemporal)
{
    for (int j = first; j < p->n; j++) {
        p->items[j].sweep = "rows";
        p->items[j].cfg.spec.row = row;
        p->items[j].cfg.spec.in_place = in_place;
        p->items[j].cfg.spec.nontemporal = nontemporal;
    }
}

static void plan_rows(mb_plan *p, const mb_plan_options *o)
{
    static const int variants[2][4][3] = {
        {{0, 0, 0}, {0, 0, MB_PAYLOAD_COLLISION}, {AA_ODD_MISALIGNED, 0, 0}, {0, AA_ODD_MISALIGNED, 0}},
        {{0, 0, 0}, {0, 0, MB_PAYLOAD_COLLISION}, {AA_ODD_MISALIGNED, AA_ODD_MISALIGNED, 0}, {-1}}};
    if (o->row < 2 || o->blocks_per_cu > 0) return;
    for (int in_place = 0; in_place < 2; in_place++)
        for (int i = 0; i < 4 && variants[in_place][i][0] >= 0 && (i == 0 || !(o->quick || o->aligned_only)); i++)
            for (int wi = 0; wi < N_WORD_BYTES; wi++) {
                const int w = all_word_bytes[wi], *v = variants[in_place][i];
                if (v[2] && !payload_runs(o, w)) continue;
                const int first = p->n;
                plan_threads_curve(p, o,
                                   &(mb_probe_spec){.words = D3Q19_WORDS, .word_bytes = w, .misaligned_reads = v[0],
                                                    .misaligned_writes = v[1], .payload = v[2]},
                                   0);
                rows_curve(p, first, o->row, in_place, 0);
            }
    /* the folded payload (gen.h), the collision's instruction mix: the
     * words of fp32 and fp64 kernels, in place and not; not quick */
    for (int i = 0; i < 4 && !(o->quick || o->aligned_only); i++) {
        const int w = all_word_bytes[i % 2], first = p->n;
        if (!payload_runs(o, w)) continue;
        plan_threads_curve(p, o, &(mb_probe_spec){.words = D3Q19_WORDS, .word_bytes = w, .payload = MB_PAYLOAD_FOLDED},
                           0);
        rows_curve(p, first, o->row, i / 2, 0);
        for (int j = first; j < p->n; j++) p->items[j].cfg.spec.folded = 1;
    }
    /* stores without the write-allocate, as lbmkernels' LBM_NT rows store
     * (gen.h): the words of its kernels (fp32, fp64); quick: fp32's */
    for (int wi = 0; wi < 2 && o->nontemporal && !o->aligned_only; wi++) {
        const int first = p->n, w = all_word_bytes[wi];
        if (o->quick && w != 4) continue;
        plan_threads_curve(p, o, &(mb_probe_spec){.words = D3Q19_WORDS, .word_bytes = w}, 0);
        rows_curve(p, first, o->row, 0, 1);
    }
}

/* The narrow sweep: the threads sweep's N=19 probe of 4-byte words at its
 * largest count (--threads), its cells permuted so that each warp takes BX
 * cells of 32 / BX rows (gen.h), BX = 4, 8, 16 and 32 (linear), with L, M =
 * 0/0, 10/0, 0/10: what a grid of blocks narrower than a warp costs over
 * whole-warp rows, the ratio the model reads for such a launch. */
static void plan_narrow(mb_plan *p, const mb_plan_options *o)
{
    static const int lm[3][2] = {{0, 0}, {AA_ODD_MISALIGNED, 0}, {0, AA_ODD_MISALIGNED}};
    if (!o->narrow || o->max_threads <= 0) return;
    for (int bx = 4; bx <= 32; bx *= 2)
        for (int i = 0; i < 3; i++) {
            add(p, o, "narrow", D3Q19_WORDS, 4, lm[i][0], lm[i][1], o->block_size, o->blocks_per_cu, 0);
            mb_config *c = &p->items[p->n - 1].cfg;
            c->spec.band = bx;
            c->threads = o->max_threads;
            c->launches = MB_THREADS_LAUNCHES;
        }
}

/* The tile sweep's default block shapes: common 3D-grid launches, the
 * narrow sweep's warps (BX x 32/BX x 1 blocks of one warp) and the linear
 * probe at 32 threads; each shape's linear reference (BS x 1 x 1, BS its
 * threads: the identity) is added after them. */
static const int default_tiles[][3] = {{32, 8, 1}, {32, 4, 2}, {16, 16, 1}, {16, 4, 4}, {8, 8, 4}, {8, 8, 8},
                                       {4, 8, 1}, {8, 4, 1}, {16, 2, 1}, {32, 1, 1}};

static int tile_planned(const int (*tiles)[3], int n, const int *t)
{
    for (int i = 0; i < n; i++)
        if (!memcmp(tiles[i], t, sizeof tiles[i])) return 1;
    return 0;
}

/* The shapes the tile sweep runs: the defaults, then --tile's, then each
 * one's linear reference, each once; returns how many (at most cap). */
int mb_plan_tile_shapes(const mb_plan_options *o, int (*out)[3], int cap)
{
    int n = 0;
    const int n_default = (int)(sizeof default_tiles / sizeof *default_tiles);
    for (int i = 0; i < n_default + o->n_tiles && n < cap; i++) {
        const int *t = i < n_default ? default_tiles[i] : o->tiles[i - n_default];
        if (!tile_planned(out, n, t)) memcpy(out[n++], t, sizeof out[0]);
    }
    for (int i = 0, shapes = n; i < shapes && n < cap; i++) {
        const int ref[3] = {out[i][0] * out[i][1] * out[i][2], 1, 1};
        if (!tile_planned(out, n, ref)) memcpy(out[n++], ref, sizeof out[0]);
    }
    return n;
}

/* The tile sweep: the narrow sweep's probe (N=19, 4-byte words, the
 * threads sweep's largest count, L, M = 0/0, 10/0, 0/10), its threads
 * mapped to cells as a 3D grid launch of blocks BX x BY x BZ (gen.h), at
 * a block of BX BY BZ threads: what a grid launch's block shape costs over
 * the linear probe at the same block size (BS x 1 x 1), the ratio the
 * model reads for a grid launch of that shape. */
static void plan_tile_shape(mb_plan *p, const mb_plan_options *o, const int shape[3], int blocks_per_cu)
{
    static const int lm[3][2] = {{0, 0}, {AA_ODD_MISALIGNED, 0}, {0, AA_ODD_MISALIGNED}};
    for (int i = 0; i < 3; i++) {
        add(p, o, "tile", D3Q19_WORDS, 4, lm[i][0], lm[i][1], shape[0] * shape[1] * shape[2], blocks_per_cu, 0);
        mb_config *c = &p->items[p->n - 1].cfg;
        memcpy(c->spec.tile, shape, sizeof c->spec.tile);
        c->threads = o->max_threads;
        c->launches = MB_THREADS_LAUNCHES;
    }
}

/* Whether the plan has the tile probe of this shape at these forced
 * blocks per SM already. */
static int tile_forced_planned(const mb_plan *p, const int shape[3], int blocks_per_cu)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->items[i].sweep, "tile") && p->items[i].cfg.blocks_per_cu_requested == blocks_per_cu &&
            !memcmp(p->items[i].cfg.spec.tile, shape, sizeof p->items[i].cfg.spec.tile))
            return 1;
    return 0;
}

/* A block shape's cost depends on how many blocks share an SM (the rows
 * and planes in flight, the L1 that the shared memory forcing them leaves),
 * so a kernel file's shape runs again at its own blocks per SM, with its
 * reference at the same: the model reads the pair at the kernel's. */
static void plan_tile_forced(mb_plan *p, const mb_plan_options *o)
{
    for (int t = 0; t < o->n_forced_tiles; t++) {
        const int *shape = o->forced_tiles[t], k = o->forced_tiles[t][3];
        const int ref[3] = {shape[0] * shape[1] * shape[2], 1, 1};
        if (!tile_forced_planned(p, shape, k)) plan_tile_shape(p, o, shape, k);
        if (!tile_forced_planned(p, ref, k)) plan_tile_shape(p, o, ref, k);
    }
}

static void plan_tile(mb_plan *p, const mb_plan_options *o)
{
    int shapes[2 * (MB_MAX_TILES + 16)][3];
    if (!o->tile || o->max_threads <= 0) return;
    const int n = mb_plan_tile_shapes(o, shapes, (int)(sizeof shapes / sizeof *shapes));
    for (int s = 0; s < n; s++) plan_tile_shape(p, o, shapes[s], o->blocks_per_cu);
    plan_tile_forced(p, o);
}

static void plan_payload(mb_plan *p, const mb_plan_options *o)
{
    static const int payloads[] = {1, 2, 4, MB_PAYLOAD_COLLISION, 10, 14}, quick_payloads[] = {MB_PAYLOAD_COLLISION};
    const int *list = o->quick ? quick_payloads : payloads;
    int n = o->quick ? 1 : (int)(sizeof payloads / sizeof *payloads);
    for (int wi = 0; wi < N_WORD_BYTES; wi++)
        for (int i = 0; i < n && payload_runs(o, all_word_bytes[wi]); i++) {
            const int w = all_word_bytes[wi];
            add(p, o, "payload", D3Q19_WORDS, w, 0, 0, o->block_size, o->blocks_per_cu, 0);
            p->items[p->n - 1].cfg.spec.payload = list[i];
        }
}

void mb_plan_threads_occupancy(mb_plan *p, const mb_plan_options *o, int word_bytes, int blocks_fit)
{
    /* 1, 2, 3, 4 and 6 blocks of the default size (12.5 .. 75 % at 256
     * threads: where the LBM kernels' registers leave them); quick: 2, 4 */
    static const int ks[] = {1, 2, 3, 4, 6}, quick_ks[] = {2, 4};
    const int *list = o->quick ? quick_ks : ks;
    int n = o->quick ? 2 : 5;
    if (!(o->sweeps & SW_THREADS) || o->blocks_per_cu > 0) return;
    const mb_probe_spec v = {.words = D3Q19_WORDS, .word_bytes = word_bytes};
    for (int i = 0; i < n; i++)
        if (list[i] < blocks_fit) plan_threads_curve(p, o, &v, list[i]);
}

void mb_plan_build(mb_plan *p, const mb_plan_options *o)
{
    memset(p, 0, sizeof *p);
    if (o->sweeps & SW_WORDS) plan_words(p, o);
    if (o->sweeps & SW_MISALIGNED) plan_misaligned(p, o);
    if (o->sweeps & SW_WORD_BYTES) plan_word_bytes(p, o);
    if (o->sweeps & SW_VECTOR) plan_vector(p, o);
    if (o->sweeps & SW_THREADS) plan_threads(p, o);
    if (o->sweeps & SW_THREADS) plan_rows(p, o);
    if (o->sweeps & SW_PAYLOAD) plan_payload(p, o);
    if (o->sweeps & SW_NARROW) plan_narrow(p, o);
    if (o->sweeps & SW_TILE) plan_tile(p, o);
}

/* fp16s at 2 and 4 cells per thread: the vector sweep's shapes (plan_vector)
 * but the two-array 10/10, which no kernel has; fills 10 specs. */
static int occupancy_vector_variants(mb_probe_spec *out)
{
    static const int lm[5][3] = {{0, 0, 0},
                                 {0, AA_ODD_MISALIGNED, 0},
                                 {AA_ODD_MISALIGNED, 0, 0},
                                 {0, 0, 1},
                                 {AA_ODD_MISALIGNED, AA_ODD_MISALIGNED, 1}};
    int n = 0;
    for (int v = 2; v <= MB_MAX_VECTOR; v *= 2)
        for (int i = 0; i < 5; i++)
            out[n++] = (mb_probe_spec){.words = D3Q19_WORDS, .word_bytes = 2, .misaligned_reads = lm[i][0],
                                       .misaligned_writes = lm[i][1], .in_place = lm[i][2], .vector = v};
    return n;
}

int mb_occupancy_variants(const mb_plan_options *o, mb_probe_spec *out)
{
    int n = 0;
    const mb_probe_spec base = {.words = D3Q19_WORDS, .word_bytes = o->word_bytes};
    out[n++] = base;
    for (int wi = 0; wi < N_WORD_BYTES; wi++)
        if (payload_runs(o, all_word_bytes[wi]))
            out[n++] = (mb_probe_spec){.words = D3Q19_WORDS, .word_bytes = all_word_bytes[wi],
                                       .payload = MB_PAYLOAD_COLLISION};
    out[n] = base;
    out[n++].misaligned_reads = AA_ODD_MISALIGNED;
    out[n] = base;
    out[n++].misaligned_writes = AA_ODD_MISALIGNED;
    if (o->fp64 && base.word_bytes == 4) {
        /* 8-byte words aligned and with M = 10: what a store in flight
         * costs depends on the bytes it moves (fp64 kernels) */
        out[n] = base;
        out[n++].word_bytes = 8;
        out[n] = out[n - 1];
        out[n++].misaligned_writes = AA_ODD_MISALIGNED;
    }
    if (base.word_bytes == 4 && !o->word_bytes_given) {
        /* 2-byte words aligned and with M = 10 (fp16s at one cell per thread) */
        out[n] = base;
        out[n++].word_bytes = 2;
        out[n] = out[n - 1];
        out[n++].misaligned_writes = AA_ODD_MISALIGNED;
        if (o->vector && !o->quick) n += occupancy_vector_variants(out + n);
    }
    return n;
}

static void add_occupancy(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *v, int block_size, int k,
                          int stamps)
{
    add(p, o, "occupancy", v->words, v->word_bytes, v->misaligned_reads, v->misaligned_writes, block_size, k,
        stamps);
    p->items[p->n - 1].cfg.spec.payload = v->payload;
    p->items[p->n - 1].cfg.spec.vector = v->vector;
    p->items[p->n - 1].cfg.spec.in_place = v->in_place;
}

void mb_plan_occupancy(mb_plan *p, const mb_plan_options *o, const mb_probe_spec *v, int block_size,
                       int blocks_fit)
{
    const int plain = !v->payload && !v->misaligned_reads && !v->misaligned_writes && v->word_bytes == o->word_bytes;
    /* Without a way to force blocks per SM (OpenCL): as many as fit. */
    if (blocks_fit <= 0) {
        add_occupancy(p, o, v, block_size, 0, 0);
        return;
    }
    /* Every block size with every resident block count a kernel of that
     * block size can reach (a subset past 8), so the model reads the probe
     * at the kernel's own block size and blocks per SM. Warp stamps only at
     * the default block size. */
    for (int k = 1; k <= blocks_fit; k++) {
        /* the curve bends at few blocks: those are never skipped */
        int pick = o->quick ? (k <= 4 || k == blocks_fit || k == blocks_fit / 2)
                            : (k <= 8 || k % 4 == 0 || k == blocks_fit);
        if (pick) add_occupancy(p, o, v, block_size, k, plain && block_size == o->block_size);
    }
}

void mb_plan_group_threads(mb_plan *p)
{
    mb_plan_item *moved = malloc(sizeof *moved * (size_t)(p->n ? p->n : 1));
    if (!moved) lbp_fail("out of memory");
    int m = 0, kept = 0;
    for (int i = 0; i < p->n; i++) {
        if (!strcmp(p->items[i].sweep, "threads")) moved[m++] = p->items[i];
        else p->items[kept++] = p->items[i];
    }
    /* insertion sort by thread count: stable, and the plan is small */
    for (int i = 1; i < m; i++)
        for (int j = i; j > 0 && moved[j].cfg.threads < moved[j - 1].cfg.threads; j--) {
            mb_plan_item t = moved[j];
            moved[j] = moved[j - 1];
            moved[j - 1] = t;
        }
    memcpy(p->items + kept, moved, sizeof *moved * (size_t)m);
    free(moved);
}

void mb_plan_free(mb_plan *p)
{
    free(p->items);
    memset(p, 0, sizeof *p);
}

void mb_plan_limits(const mb_plan *p, int *max_words, int *max_word_bytes, int *min_block_size,
                    int64_t *array_bytes)
{
    for (int i = 0; i < p->n; i++) {
        const mb_config *c = &p->items[i].cfg;
        /* a vector probe's V words per thread fit where its access width's
         * one word does: V mb_stride(t) >= mb_stride(V t) */
        const int width = c->spec.word_bytes * mb_vector(&c->spec);
        int64_t bytes = (int64_t)c->spec.words * width * mb_stride(c->threads);
        if (c->threads > 0 && bytes > *array_bytes) *array_bytes = bytes;
        if (c->spec.words > *max_words) *max_words = c->spec.words;
        if (width > *max_word_bytes) *max_word_bytes = width;
        if (c->block_size < *min_block_size) *min_block_size = c->block_size;
    }
}

/* Index of thread count t in g (added, in order, where new); -1: no room. */
static int add_geometry_threads(mb_geometry *g, long long t)
{
    for (int i = 0; i < g->n_threads; i++)
        if (g->threads[i] == t) return i;
    if (g->n_threads == MB_MAX_LIST) return -1;
    int i = g->n_threads++;
    for (; i > 0 && g->threads[i - 1] > t; i--)
        g->threads[i] = g->threads[i - 1], g->in_place[i] = g->in_place[i - 1], g->swapped[i] = g->swapped[i - 1];
    g->threads[i] = t;
    g->in_place[i] = g->swapped[i] = 0;
    return i;
}

int mb_geometry_add(mb_geometry *g, long long threads, int lattices)
{
    const int j = add_geometry_threads(g, threads);
    if (j < 0) return -1;
    if (lattices < 2) g->in_place[j] = 1;
    else g->swapped[j] = 1;
    return 0;
}

int mb_read_geometries(const char *lbm_csv, const char *device, double l2_bytes, mb_geometry *out, int max,
                       char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "precision", "cells", "block_size", "blocks_per_cu",
                                       "lattices", "cells_per_thread", NULL};
    lbp_table t;
    if (lbp_table_read(&t, lbm_csv, 1, err, err_len)) return -1;
    if (lbp_table_require(&t, cols, err, err_len)) {
        lbp_table_free(&t);
        return -1;
    }
    int n = 0, rc = 0;
    for (int r = 0; r < t.rows && !rc; r++) {
        if (strcmp(lbp_table_text(&t, r, lbp_table_column(&t, "device")), device)) continue;
        const char *prec = lbp_table_text(&t, r, lbp_table_column(&t, "precision"));
        /* whole numbers in what lbmkernels writes (blocks_per_cu -1: not
         * known; cells_per_thread 0: a row per thread), so that every cast
         * below is defined */
        long long cells, bs, k, lattices, v;
        if (lbp_table_whole_in_by_name(&t, r, "cells", 1, 1LL << 50, &cells, err, err_len) ||
            lbp_table_whole_in_by_name(&t, r, "block_size", 1, 1 << 20, &bs, err, err_len) ||
            lbp_table_whole_in_by_name(&t, r, "blocks_per_cu", -1, 1 << 16, &k, err, err_len) ||
            lbp_table_whole_in_by_name(&t, r, "lattices", 1, 2, &lattices, err, err_len) ||
            lbp_table_whole_in_by_name(&t, r, "cells_per_thread", 0, 64, &v, err, err_len)) {
            rc = -1;
            break;
        }
        int w = !strcmp(prec, "fp64") ? 8 : !strcmp(prec, "fp32") ? 4 : !strcmp(prec, "fp16s") ? 2 : 0;
        if (!w) {
            snprintf(err, err_len, "%s:%d: expected precision fp32|fp64|fp16s", t.path, t.line[r]);
            rc = -1;
            break;
        }
        if (v < 1) continue; /* 0: a whole row per thread (the CPU's shape), not a launch of cells */
        double set = (double)lattices * D3Q19_WORDS * w * cells;
        if (l2_bytes > 0 ? set > MB_GEOMETRY_MAX_L2 * l2_bytes : cells > (1 << 21)) continue;
        int width = w * (int)v;
        if (width != 2 && width != 4 && width != 8) {
            lbp_warn("%s:%d: %d-byte accesses (%d cells per thread of %d bytes) are not probed", t.path, t.line[r],
                     width, (int)v, w);
            continue;
        }
        if (k < 1) continue; /* blocks per SM not known: the probe's would not be the kernel's */
        int kk = (int)k, g = 0;
        while (g < n && !(out[g].block_size == (int)bs && out[g].blocks_per_cu == kk && out[g].word_bytes == width))
            g++;
        if (g == n) {
            if (n == max) {
                snprintf(err, err_len, "%s: more than %d launch geometries", t.path, max);
                rc = -1;
                break;
            }
            out[n++] = (mb_geometry){.block_size = (int)bs, .blocks_per_cu = kk, .word_bytes = width};
        }
        if (mb_geometry_add(&out[g], (long long)(cells / v), (int)lattices)) {
            snprintf(err, err_len, "%s: more than %d thread counts at one launch geometry", t.path, MB_MAX_LIST);
            rc = -1;
        }
    }
    lbp_table_free(&t);
    return rc ? -1 : n;
}

void mb_plan_geometry(mb_plan *p, const mb_plan_options *o, const mb_geometry *g, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g[i].n_threads; j++)
            for (int payload = 0; payload <= 1; payload++) {
                if (payload && g[i].word_bytes == 8 && !o->fp64) continue;
                /* L, M = 0/0, 10/0, 0/10, 10/10; then, where a kernel keeps
                 * two lattices, the four swapped; where one keeps one, in
                 * place at 0/0 and 10/10 (the A-A steps) */
                for (int x = 0; x < 10; x++) {
                    if ((x >= 4 && x < 8 && !g[i].swapped[j]) || (x >= 8 && !g[i].in_place[j])) continue;
                    int lm = x < 8 ? x % 4 : x == 8 ? 0 : 3;
                    add(p, o, "geometry", D3Q19_WORDS, g[i].word_bytes, lm & 1 ? AA_ODD_MISALIGNED : 0,
                        lm & 2 ? AA_ODD_MISALIGNED : 0, g[i].block_size, g[i].blocks_per_cu, 0);
                    mb_config *c = &p->items[p->n - 1].cfg;
                    c->spec.payload = payload ? MB_PAYLOAD_COLLISION : 0;
                    c->spec.swapped = x >= 4 && x < 8;
                    c->spec.in_place = x >= 8;
                    c->threads = g[i].threads[j];
                    c->launches = MB_THREADS_LAUNCHES;
                }
            }
}
