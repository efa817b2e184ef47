/* Timing one D3Q19 configuration: device-side initial state, a pilot run to
 * pick the steps per timed run, timed runs between device events, and the
 * mass of the lattice before and after, so no number comes from a broken run. */
#include "bench.h"
#include "cli.h"
#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIB ((int64_t)1 << 20)

/* Smallest lattice (bytes) the device refused in this run: larger ones are
 * not tried again (a refusal can take the driver a minute). */
static int64_t refused_bytes;

static int fits(const lbp_device *d, const lbm_layout *L, lbm_scheme s, lbm_precision p)
{
    int64_t one = lbm_words(L) * lbm_word_bytes(p);
    if (L->cells_padded > INT32_MAX - 4096) return 0; /* 32-bit cell indices in the kernel */
    if (d->info.max_alloc_bytes > 0 && one > d->info.max_alloc_bytes) return 0;
    if (refused_bytes > 0 && lbm_bytes_needed(L, s, p) >= refused_bytes) return 0;
    return lbm_bytes_needed(L, s, p) <= lbp_memory_budget(d);
}

int lbm_fits(const lbp_device *d, const lbm_layout *L, lbm_scheme s, lbm_precision p, char *why, size_t why_len)
{
    if (fits(d, L, s, p)) return 0;
    const double gb = 1e9;
    int64_t one = lbm_words(L) * lbm_word_bytes(p);
    /* Cells the one-lattice A-A scheme fits: budget / (19 words). */
    int64_t aa_cells = lbp_memory_budget(d) / (LBM_Q * lbm_word_bytes(p));
    if (d->info.max_alloc_bytes > 0 && aa_cells > d->info.max_alloc_bytes / (LBM_Q * lbm_word_bytes(p)))
        aa_cells = d->info.max_alloc_bytes / (LBM_Q * lbm_word_bytes(p));
    if (aa_cells > INT32_MAX - 4096) aa_cells = INT32_MAX - 4096;
    char cube[48];
    if (L->nx == L->ny && L->ny == L->nz) snprintf(cube, sizeof cube, "%d³", L->nx);
    else snprintf(cube, sizeof cube, "%dx%dx%d", L->nx, L->ny, L->nz);
    if (L->cells_padded > INT32_MAX - 4096)
        snprintf(why, why_len, "lattice %s has %lld cells (padded), more than the kernels' 32-bit cell index allows",
                 cube, (long long)L->cells_padded);
    else if (refused_bytes > 0 && lbm_bytes_needed(L, s, p) >= refused_bytes)
        snprintf(why, why_len, "lattice %s needs %.1f GB in %s; the device already refused %.1f GB", cube,
                 lbm_bytes_needed(L, s, p) / gb, lbm_precision_names[p], refused_bytes / gb);
    else if (d->info.max_alloc_bytes > 0 && one > d->info.max_alloc_bytes)
        snprintf(why, why_len,
                 "lattice %s needs %.1f GB per lattice in %s, the device's largest buffer is %.1f GB; "
                 "the A-A scheme fits up to ~%.3g cells",
                 cube, one / gb, lbm_precision_names[p], d->info.max_alloc_bytes / gb, (double)aa_cells);
    else
        snprintf(why, why_len,
                 "lattice %s needs %.1f GB in %s (%d lattice%s), device has %.1f GB; the A-A scheme keeps "
                 "one lattice and fits up to ~%.3g cells (%d³)",
                 cube, lbm_bytes_needed(L, s, p) / gb, lbm_precision_names[p], lbm_lattices(s),
                 lbm_lattices(s) > 1 ? "s" : "", d->info.global_mem_bytes / gb, (double)aa_cells,
                 (int)floor(cbrt((double)aa_cells)));
    return -1;
}

int lbm_largest_cube(const lbp_device *d, lbm_scheme s, lbm_precision p, int padding)
{
    int64_t cells = lbp_memory_budget(d) / ((int64_t)lbm_lattices(s) * LBM_Q * lbm_word_bytes(p));
    int n = (int)floor(cbrt((double)cells)) + 1;
    while (n > 0) {
        lbm_layout L = lbm_layout_on(d, n, n, n, padding, p);
        if (fits(d, &L, s, p)) return n;
        n--;
    }
    return 0;
}

typedef struct {
    lbm_sim *m;
    int steps;
} run_ctx;

static void run_steps(void *p)
{
    run_ctx *c = p;
    lbm_sim_steps(c->m, c->steps);
}

static double time_steps(lbp_device *d, lbm_sim *m, int steps)
{
    d->be->timer_start(d);
    lbm_sim_steps(m, steps);
    return d->be->timer_stop_ms(d);
}

/* Steps per run: as asked, else enough for target_ms (a tiny lattice is
 * launch bound: that is its real cost, so its runs are many launches back
 * to back); even, so that A-A ends each run in the normal layout. */
static int steps_per_run(lbp_device *d, lbm_sim *m, const lbm_timing_opts *t)
{
    int steps = t->steps;
    if (steps <= 0) {
        const double target = t->target_ms > 0 ? t->target_ms : 20.0;
        time_steps(d, m, 2);
        double step_ms = time_steps(d, m, 2) / 2;
        double want = target / (step_ms > 1e-6 ? step_ms : 1e-6);
        if (want > 8) { /* refine on a longer pilot: 2 steps overstate launch costs */
            int pilot = want / 4 > 25000 ? 25000 : 2 * (int)(want / 8);
            step_ms = time_steps(d, m, pilot) / pilot;
            want = target / (step_ms > 1e-6 ? step_ms : 1e-6);
        }
        steps = want > 100000 ? 100000 : (int)ceil(want);
    }
    if (steps < 2) steps = 2;
    return steps + (steps & 1);
}

int lbm_measure(lbp_device *d, const lbm_kernels *k, const lbm_layout *L, int block_size,
                const lbm_timing_opts *t, lbm_result *r, char *why, size_t why_len)
{
    if (lbm_fits(d, L, k->scheme, k->precision, why, why_len) != 0) return -1;
    lbm_sim m;
    const double tau = 0.6, u0 = 0.05;
    if (lbm_sim_create(&m, d, k, L, 1.0 / tau, 0.0, block_size) != 0) {
        int64_t need = lbm_bytes_needed(L, k->scheme, k->precision);
        if (!refused_bytes || need < refused_bytes) refused_bytes = need;
        snprintf(why, why_len, "the device refused %.1f GB for a %dx%dx%d lattice",
                 lbm_bytes_needed(L, k->scheme, k->precision) / 1e9, L->nx, L->ny, L->nz);
        return -1;
    }
    lbm_sim_init_device(&m, u0);
    const double mass_before = lbm_sim_mass(&m);
    const int steps = steps_per_run(d, &m, t);
    int reps = t->reps > 0 ? t->reps : L->cells > 64 * MIB ? 3 : 5;

    char what[96], cpt[16];
    snprintf(what, sizeof what, "%s %s %dx%dx%d block %d, cells per thread %s", lbm_scheme_names[k->scheme],
             lbm_precision_names[k->precision], L->nx, L->ny, L->nz, block_size,
             lbm_cpt_text(k->cells_per_thread, cpt, sizeof cpt));
    run_ctx ctx = {&m, steps};
    lbp_stats s = lbp_time_runs(d, run_steps, &ctx, &(lbp_timing){1, reps, 0.05, what, 2});
    const double mass_after = lbm_sim_mass(&m);
    lbm_sim_destroy(&m);

    const double drift = fabs(mass_after / mass_before - 1.0);
    const double tol = lbm_timing_mass_tolerance(k->precision, L, m.t, u0, tau);
    if (!(drift < tol)) {
        snprintf(why, why_len, "mass check failed for %s: relative drift %.3e over %lld steps (mass %.9g -> %.9g), tolerance %.1e",
                 what, drift, (long long)m.t, mass_before, mass_after, tol);
        return 1;
    }

    lbm_step_limits(d, k, block_size, &r->registers, &r->local_bytes, NULL, &r->blocks_per_cu);
    r->occupancy = (r->blocks_per_cu > 0 && d->info.max_threads_per_cu > 0)
                       ? (double)r->blocks_per_cu * block_size / d->info.max_threads_per_cu
                       : -1;
    r->L = *L;
    r->block_size = block_size;
    r->cells_per_thread = k->cells_per_thread;
    r->nontemporal = k->nontemporal;
    r->steps = steps;
    r->reps = reps;
    r->ms = s;
    r->ms_median_slowest = s.median;
    const double updates = (double)L->cells * steps;
    r->mlups_median = updates / (s.median * 1e-3) / 1e6;
    r->mlups_max = updates / (s.min * 1e-3) / 1e6;
    r->gbs_median = lbm_record_of(k->scheme, k->precision).bytes_per_update * updates / (s.median * 1e-3) / 1e9;
    r->mass_drift = drift;
    return 0;
}

void lbm_keep_faster(lbm_result *kept, const lbm_result *r)
{
    const double slowest = fmax(kept->ms_median_slowest, r->ms_median_slowest);
    if (r->ms.median < kept->ms.median) *kept = *r;
    kept->ms_median_slowest = slowest;
}

double lbm_pass_spread_pct(const lbm_result *r)
{
    return r->ms.median > 0 ? 100.0 * (r->ms_median_slowest / r->ms.median - 1) : 0;
}

void lbm_csv_write(lbp_csv *csv, lbm_scheme s, lbm_precision p, const lbm_result *m, const lbm_ranks_cols *rk)
{
    const lbm_ranks_cols one = {.ranks = 1, .exchange = "none", .scaling = "none", .nz_local = m->L.nz};
    if (!rk) rk = &one;
    const lbm_record rec = lbm_record_of(s, p);
    lbp_csv_row(csv, "%s,%s,periodic,%d,%d,%d,%d,%lld,%d,%d,%d,%.6f,%.6f,%.6f,%.2f,%.2f,%.2f,%d,%lld,%d,%.4f,%d,%d,%d,%.2f,%s,"
                     "%d,%s,%d,%s,%d,%.3f,%s,%d,%d,%s,%s",
                lbm_scheme_names[s], lbm_precision_names[p], m->L.nx, m->L.ny, m->L.nz, m->L.nxp,
                (long long)m->L.cells, m->block_size, m->steps, m->reps, m->ms.min, m->ms.median, m->ms.max,
                m->mlups_median, m->mlups_max, m->gbs_median, m->registers, (long long)m->local_bytes, m->blocks_per_cu, m->occupancy,
                rec.lattices, rec.bytes_per_update, m->cells_per_thread, lbm_pass_spread_pct(m),
                lbm_store_names[m->nontemporal], rk->ranks, rk->exchange, rk->overlap, rk->scaling, rk->nz_local,
                rk->exchange_us, rec.launch, rec.words_read, rec.words_written, rec.misaligned_reads,
                rec.misaligned_writes);
}
