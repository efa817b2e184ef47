/* The timing plan of lbmkernels (see plan.h). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpucubes.h"

/* On a CPU a row per thread (LBM_ROW_PER_THREAD): the kernel loops over the
 * row, which the compiler vectorizes with contiguous loads, where a cell
 * per thread compiles to gathers and scatters.  On a GPU 1 and 2 cells in
 * fp32, 1 in fp64 and for push: two adjacent cells move the accesses that
 * keep x as 8-byte vectors, which pull, split and A-A gain from, while
 * push's shifted stores then write every other word, each 32-byte sector in
 * two halves; fp64's words gain too little from pairs, and four cells gain
 * nothing over two while they halve the occupancy.  fp16s: 1, 2 and 4 for
 * every scheme.  One cell moves 64 bytes per warp and array, which a shifted
 * access spreads over 3 sectors for 2, and half the bytes in flight of
 * fp32's thread; 2 and 4 cells move the accesses that keep x as 4- and
 * 8-byte vectors: which pays is the sweep's to tell. */
int lbm_plan_cells_per_thread(const lbm_options *o, const lbp_device *d, lbm_precision prec, int s, int *out)
{
    if (o->ncpt) {
        memcpy(out, o->cells_per_thread, sizeof(int) * (size_t)o->ncpt);
        return o->ncpt;
    }
    if (lbp_is_cpu(&d->info)) {
        out[0] = LBM_ROW_PER_THREAD;
        return 1;
    }
    out[0] = 1;
    if (prec == LBM_FP16S) {
        out[1] = 2;
        out[2] = 4;
        return 3;
    }
    if (prec == LBM_FP64 || s == LBM_SCHEME_PUSH) return 1;
    out[1] = 2;
    return 2;
}

/* A CPU: 32 bytes (a sector), where the row kernel's vectors start.  A GPU:
 * none beyond what the kernel's vectors need (a multiple of cpt).  Habich
 * §6 pads rows to 128 bytes, the coalescing unit of older GPUs; here that
 * only idles the threads of the padding, and padding that shares a 32-byte
 * sector with cells costs far more than its bytes: what counts is partly
 * written sectors, not where rows start. */
int lbm_plan_padding(const lbm_options *o, const lbp_device *d, lbm_precision prec, int cpt)
{
    if (o->padding) return o->padding;
    if (lbp_is_cpu(&d->info)) return 32 / lbm_word_bytes(prec);
    return cpt > 1 ? cpt : 1;
}

int lbm_plan_stores(const lbm_options *o, const lbp_device *d, int *out)
{
    const int can = d->info.caps.nontemporal_stores;
    for (int i = 0; i < o->nstores; i++)
        if (o->stores[i] && !can)
            lbp_usage_error("--stores: %s (%s) has no non-temporal stores", d->info.name, d->info.backend);
    if (o->nstores) {
        memcpy(out, o->stores, sizeof(int) * (size_t)o->nstores);
        return o->nstores;
    }
    out[0] = 0;
    out[1] = 1;
    return can ? 2 : 1;
}

int lbm_plan_block_for(const lbp_device *d, int cpt, const lbm_layout *L, int block)
{
    if (!lbp_is_cpu(&d->info) || cpt != LBM_ROW_PER_THREAD || d->info.compute_units < 1) return block;
    const int64_t share = ((int64_t)L->ny * L->nz + d->info.compute_units - 1) / d->info.compute_units;
    return share < block ? (int)(share > 0 ? share : 1) : block;
}

_Noreturn void lbm_refuse_fp64(const lbp_device *d)
{
    lbp_usage_error("fp64 asked for, but %s (%s) has no double precision", d->info.name, d->info.backend);
}

/* The precisions that run: fp64 only where the device has it. */
static void choose_precisions(lbm_plan *p, const lbm_options *o, const lbp_device *d)
{
    for (int i = 0; i < o->nprecisions; i++) {
        if (o->precisions[i] == LBM_FP64 && !d->info.fp64) {
            if (o->precisions_given) lbm_refuse_fp64(d);
            printf("%s: fp64 skipped: %s has no double precision\n", lbp_prog, d->info.name);
            continue;
        }
        p->precisions[p->nprecisions++] = o->precisions[i];
    }
}

/* Sizes asked for must fit every scheme asked for (with the most padding). */
static void check_sizes_fit(const lbm_plan *p, const lbm_options *o, const lbp_device *d)
{
    char why[512];
    for (int f = 0; f < p->nprecisions; f++)
        for (int s = 0; s < o->nschemes; s++)
            for (int i = 0; i < o->nsizes; i++) {
                const lbm_precision prec = (lbm_precision)p->precisions[f];
                lbm_layout L = lbm_layout_on(d, o->sizes[i].nx, o->sizes[i].ny, o->sizes[i].nz,
                                             lbm_plan_padding(o, d, prec, 4), prec);
                if (lbm_fits(d, &L, (lbm_scheme)o->schemes[s], prec, why, sizeof why) != 0)
                    lbp_usage_error("%s", why);
            }
}

/* Is one lattice of n^3 cells of word_bytes words one the backend fills
 * reliably (caps.reliable_alloc_bytes)? */
static int reliable_cube(const lbp_device *d, int n, int word_bytes)
{
    const int64_t limit = d->info.caps.reliable_alloc_bytes;
    return limit <= 0 || (int64_t)LBM_Q * word_bytes * n * n * n <= limit;
}

/* Cubes from 16 up, non-multiples of 32 among them (Habich Fig. 5): a GPU
 * on to what fits, within lattices its backend fills reliably in either
 * precision (the list serves both: fp64's words); a CPU the cubes of
 * cpucubes.h, which membench's threads sweep probes at (a CPU has no
 * waves or sectors that small lattices would show; its curve follows the
 * caches, and each lattice costs seconds per scheme there). */
static int default_sizes(const lbp_device *d, int quick, lbm_dims *out)
{
    static const int gpu[] = {16, 24, 32, 48, 64, 96, 100, 128, 160, 192, 200, 256, 320, 384, 512, 640, 768};
    static const int cpu[] = LBP_CPU_CUBES;
    static const int gpu_quick[] = {32, 100, 256};
    static const int cpu_quick[] = LBP_CPU_CUBES_QUICK; /* the last past a CPU's last-level cache */
    const int is_cpu = lbp_is_cpu(&d->info);
    const int *list = quick ? (is_cpu ? cpu_quick : gpu_quick) : is_cpu ? cpu : gpu;
    int n = quick ? (is_cpu ? LBP_CPU_N_CUBES_QUICK : 3) : is_cpu ? LBP_CPU_N_CUBES : (int)(sizeof gpu / sizeof gpu[0]),
        kept = 0;
    for (int i = 0; i < n; i++)
        if (quick || reliable_cube(d, list[i], 8)) out[kept++] = (lbm_dims){list[i], list[i], list[i]};
    return kept;
}

static void add_entry(lbm_plan *p, lbm_entry e)
{
    if (p->nentries == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->entries = realloc(p->entries, sizeof *p->entries * (size_t)p->cap);
        if (!p->entries) lbp_fail("out of memory");
    }
    p->entries[p->nentries++] = e;
}

/* Every cells per thread x block size at the sweep cube; --block-size fixes
 * the block, and one pair alone needs no sweep. */
static void plan_block_sweep(lbm_plan *p, const lbm_options *o, const lbp_device *d, const lbm_group *g)
{
    /* a GPU's warps and waves; a CPU's groups of rows (work for a core
     * between two trips to the OpenMP loop's schedule): 64 and 256 rows
     * (fewer add a trip to the schedule every few rows and gain nothing a
     * larger group does not; each point is seconds at 256^3, and with four
     * sizes the block sweep was two thirds of a CPU's lbmkernels) */
    static const int default_blocks[] = {64, 128, 192, 256, 384, 512, 768, 1024};
    static const int quick_blocks[] = {64, 128, 256, 512};
    static const int cpu_blocks[] = {64, 256}, cpu_quick_blocks[] = {16, 64};
    if (o->block_size && g->ncpt == 1) return;
    const int cpu = lbp_is_cpu(&d->info);
    const int *bl = o->block_size ? &o->block_size : o->nblocks ? o->block_sizes
                    : cpu ? (o->quick ? cpu_quick_blocks : cpu_blocks) : o->quick ? quick_blocks : default_blocks;
    const int nb = o->block_size ? 1 : o->nblocks ? o->nblocks : cpu ? 2 : o->quick ? 4 : 8;
    for (int ci = 0; ci < g->ncpt; ci++)
        for (int b = 0; b < nb; b++)
            add_entry(p, (lbm_entry){.sweep = LBM_SWEEP_BLOCK, .ci = ci, .block = bl[b], .cube = LBM_CUBE_SWEEP});
}

/* The sizes asked for, else the defaults and, on a GPU, the whole-sector
 * cube: a row that ends inside a 32-byte sector costs more than its bytes. */
static void plan_size_sweep(lbm_plan *p, const lbm_options *o, const lbp_device *d, int swept)
{
    lbm_dims sizes[LBM_MAX_SIZES];
    int n = o->nsizes;
    if (n) memcpy(sizes, o->sizes, sizeof(lbm_dims) * (size_t)n);
    else n = default_sizes(d, o->quick, sizes);
    const int block = swept ? 0 : o->block_size;
    for (int i = 0; i < n; i++)
        add_entry(p, (lbm_entry){.sweep = LBM_SWEEP_SIZE, .ci = swept ? -1 : 0, .block = block,
                                 .cube = LBM_CUBE_GIVEN, .size = sizes[i]});
    if (!o->nsizes && !o->quick && !lbp_is_cpu(&d->info))
        add_entry(p, (lbm_entry){.sweep = LBM_SWEEP_SIZE, .ci = swept ? -1 : 0, .block = block,
                                 .cube = LBM_CUBE_WHOLE});
}

/* A group of scheme s in this precision with these stores: its cells per
 * thread (with non-temporal stores, those lbm_nontemporal_ok allows; no
 * group where none is). */
static void plan_group(lbm_plan *p, const lbm_options *o, const lbp_device *d, lbm_scheme s, lbm_precision prec,
                       int nt)
{
    lbm_group *g = &p->groups[p->ngroups];
    *g = (lbm_group){.scheme = s, .prec = prec, .nontemporal = nt, .first = p->nentries};
    int cpts[LBM_MAX_CPT];
    const int n = lbm_plan_cells_per_thread(o, d, prec, s, cpts);
    for (int i = 0; i < n; i++)
        if (!nt || lbm_nontemporal_ok(s, prec, LBM_PERIODIC, cpts[i])) g->cpts[g->ncpt++] = cpts[i];
    if (!g->ncpt) return;
    p->ngroups++;
    plan_block_sweep(p, o, d, g);
    plan_size_sweep(p, o, d, p->nentries > g->first);
    g->n = p->nentries - g->first;
}

void lbm_plan_build(lbm_plan *p, const lbm_options *o, const lbp_device *d)
{
    *p = (lbm_plan){.passes = o->passes ? o->passes : o->quick ? 1 : 2,
                    .timing = {o->steps, o->reps, 20.0}};
    choose_precisions(p, o, d);
    check_sizes_fit(p, o, d);
    int stores[2];
    const int nstores = lbm_plan_stores(o, d, stores);
    p->groups = calloc((size_t)(p->nprecisions * o->nschemes * nstores) + 1, sizeof *p->groups);
    if (!p->groups) lbp_fail("out of memory");
    for (int f = 0; f < p->nprecisions; f++)
        for (int s = 0; s < o->nschemes; s++)
            for (int i = 0; i < nstores; i++)
                plan_group(p, o, d, (lbm_scheme)o->schemes[s], (lbm_precision)p->precisions[f], stores[i]);
}

void lbm_plan_free(lbm_plan *p)
{
    free(p->groups);
    free(p->entries);
    *p = (lbm_plan){0};
}

/* With --sizes, the block sweep runs at the largest cube asked for (then
 * the size sweep leaves it out), so that only the lattices asked for are
 * measured; 0 when none was asked or none is a cube. */
static int largest_given_cube(const lbm_options *o)
{
    int most = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i].nx == o->sizes[i].ny && o->sizes[i].ny == o->sizes[i].nz && o->sizes[i].nx > most)
            most = o->sizes[i].nx;
    return most;
}

lbm_cubes lbm_plan_cubes(const lbm_plan *p, const lbm_options *o, const lbp_device *d, const lbm_group *g)
{
    int cpt_most = 1; /* the most padding: that of the most cells per thread */
    for (int ci = 0; ci < g->ncpt; ci++)
        if (g->cpts[ci] > cpt_most) cpt_most = g->cpts[ci];
    const int largest = lbm_largest_cube(d, g->scheme, g->prec, lbm_plan_padding(o, d, g->prec, cpt_most));
    lbm_cubes c = {.sweep = o->quick ? (lbp_is_cpu(&d->info) ? 32 : 128) : 256};
    const int asked = largest_given_cube(o);
    if (asked) c.sweep = asked;
    if (c.sweep > largest) c.sweep = largest;
    const int whole = largest - largest % (32 / lbm_word_bytes(g->prec)); /* words per 32-byte sector */
    for (int i = g->first + 1; i < g->first + g->n; i++)
        if (p->entries[i].cube == LBM_CUBE_WHOLE && p->entries[i - 1].cube == LBM_CUBE_GIVEN &&
            whole > p->entries[i - 1].size.nx && reliable_cube(d, whole, lbm_word_bytes(g->prec)))
            c.whole = whole;
    return c;
}
