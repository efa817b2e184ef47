/* The reach of the timed runs (reach.h): the longest row and every block
 * launched, from the timing plan's entries as the runner (main.c) resolves
 * them. */
#include "reach.h"

#include <stdio.h>
#include <string.h>

static void add_block(lbm_reach *r, int block)
{
    int i = 0;
    while (i < r->nblocks && r->blocks[i] < block) i++;
    if (i < r->nblocks && r->blocks[i] == block) return;
    if (r->nblocks == LBM_REACH_BLOCKS) { /* full (never at the plan's limits): the largest kept */
        if (i < r->nblocks) return;
        i = --r->nblocks;
    }
    memmove(&r->blocks[i + 1], &r->blocks[i], sizeof r->blocks[0] * (size_t)(r->nblocks - i));
    r->blocks[i] = block;
    r->nblocks++;
}

void lbm_reach_add(lbm_reach *r, const lbm_plan *p, const lbm_options *o, const lbp_device *d, const lbm_group *g,
                   int ci, lbm_cubes cubes)
{
    const int cpt = g->cpts[ci], padding = lbm_plan_padding(o, d, g->prec, cpt);
    int swept[LBM_MAX_BLOCKS], nswept = 0;
    for (int i = g->first; i < g->first + g->n; i++) {
        const lbm_entry *e = &p->entries[i];
        if (e->sweep != LBM_SWEEP_BLOCK || e->ci != ci) continue;
        if (cubes.sweep > r->nx) r->nx = cubes.sweep;
        add_block(r, e->block);
        if (nswept < LBM_MAX_BLOCKS) swept[nswept++] = e->block;
    }
    for (int i = g->first; i < g->first + g->n; i++) {
        const lbm_entry *e = &p->entries[i];
        if (e->sweep != LBM_SWEEP_SIZE || (e->ci >= 0 && e->ci != ci)) continue;
        const lbm_dims size = e->cube == LBM_CUBE_WHOLE ? (lbm_dims){cubes.whole, cubes.whole, cubes.whole} : e->size;
        if (!size.nx) continue;
        if (size.nx > r->nx) r->nx = size.nx;
        const lbm_layout L = lbm_layout_on(d, size.nx, size.ny, size.nz, padding, g->prec);
        /* the block given, or the block sweep's best: any of its blocks */
        const int *cand = e->block ? &e->block : swept, ncand = e->block ? 1 : nswept;
        for (int b = 0; b < ncand; b++) add_block(r, lbm_plan_block_for(d, cpt, &L, cand[b]));
    }
}

void lbm_reach_of_timing(lbm_reach *r, const lbm_options *o, const lbp_device *d, lbm_precision prec, int cpt, int nt)
{
    lbm_options t = *o;
    t.verify = 0;
    t.nsizes = 0;
    t.precisions[0] = prec;
    t.nprecisions = 1;
    lbm_plan p;
    lbm_plan_build(&p, &t, d);
    for (int gi = 0; gi < p.ngroups; gi++) {
        const lbm_group *g = &p.groups[gi];
        if (g->nontemporal != nt) continue;
        for (int ci = 0; ci < g->ncpt; ci++)
            if (g->cpts[ci] == cpt) lbm_reach_add(r, &p, &t, d, g, ci, lbm_plan_cubes(&p, &t, d, g));
    }
    lbm_plan_free(&p);
}

lbm_verify_lattice lbm_reach_check(const lbm_reach *r, int nx, const lbp_device *d, lbm_precision prec, int cpt,
                                   int padding)
{
    if (nx < r->nx) nx = r->nx;
    const int block = r->nblocks ? r->blocks[r->nblocks - 1] : 64;
    const lbm_layout row = lbm_layout_on(d, nx, 1, 1, padding, prec);
    const int64_t per_row = cpt == LBM_ROW_PER_THREAD ? 1 : row.nxp / cpt; /* threads (lbm_step_threads) */
    const int64_t rows = ((int64_t)block + per_row) / per_row; /* block + 1 threads at least: a second block */
    int ny = (int)((rows + LBM_REACH_NZ - 1) / LBM_REACH_NZ);
    if (ny < 4) ny = 4;
    return (lbm_verify_lattice){.nx = nx, .ny = ny, .nz = LBM_REACH_NZ, .steps = LBM_REACH_STEPS,
                                .blocks = r->nblocks ? r->blocks : NULL, .nblocks = r->nblocks};
}

void lbm_reach_text(const lbm_verify_lattice *at, char *out, size_t len)
{
    int n = snprintf(out, len, "%dx%dx%d, block%s ", at->nx, at->ny, at->nz, at->nblocks > 1 ? "s" : "");
    for (int i = 0; i < at->nblocks && n >= 0 && (size_t)n < len; i++)
        n += snprintf(out + n, len - (size_t)n, "%s%d", i ? "," : "", at->blocks[i]);
}
