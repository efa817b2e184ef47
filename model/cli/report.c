/* Printing predict's and validate's results: see report.h. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- predict ------------------------------------------------------------ */

typedef struct {
    const model_inputs *in;
    const model_kernel *k;
    const model_lattice *lat;
    const model_prediction *p;
} case_t;

/* " / 1.23 us / 4.56 us per step (phases averaged)" for phases 1.. */
static void print_phases_us(const case_t *c, const double *memory_us)
{
    for (int p = 1; p < c->k->phases; p++) printf(" / %.2f us", memory_us[p]);
}

static const char *launch_name(model_launch_kind kind)
{
    return kind == MODEL_LAUNCH_ROWS ? "a thread row per lattice row" : kind == MODEL_LAUNCH_GRID ? "a grid" : "linear";
}

/* The launch: threads against cells, blocks and waves, where known. */
static void print_launch(const case_t *c)
{
    const model_launch_detail *l = &c->p->full.launch;
    const int v = c->k->cells_per_thread > 1 ? c->k->cells_per_thread : 1;
    printf("launch %s", launch_name(c->k->launch));
    if (c->k->launch == MODEL_LAUNCH_GRID)
        printf(" of %dx%dx%d blocks", c->k->block[0], c->k->block[1], c->k->block[2]);
    else if (c->lat->block_size > 0)
        printf(" in blocks of %d", c->lat->block_size);
    printf(": %.0f threads for %.0f cells (%d per thread), %.1f %% of them idle", l->threads_launched, c->lat->cells,
           v, 100 * (1 - c->lat->cells / (l->threads_launched * v)));
    if (l->blocks > 0) printf(", %.0f blocks", l->blocks);
    if (l->waves > 0) printf(", %.2f waves", l->waves);
    printf("\n");
}

static void print_header(const case_t *c)
{
    char what[400];
    model_kernel_describe(c->k, what, sizeof what);
    printf("device %s (%s), %s\n", c->in->device, c->in->backend, what);
    printf("lattice %lldx%lldx%lld = %.0f cells", c->lat->nx, c->lat->ny, c->lat->nz, c->lat->cells);
    if (c->lat->occupancy > 0) printf(", occupancy %.3f", c->lat->occupancy);
    if (c->lat->blocks_per_cu > 0) printf(", %g blocks per SM", c->lat->blocks_per_cu);
    printf("\n");
    print_launch(c);
    printf("\n%-12s %12s  %s\n", "level", "MLUPS", "from");
}

static void print_levels_1_2(const case_t *c)
{
    const model_roofline_level *r = &c->p->roofline;
    const model_probe_level *pr = &c->p->probe;
    printf("%-12s %12.1f  %s / %.0f B per update\n", "1 roofline", r->mlups, r->source, r->bytes_per_update);
    printf("%-12s %12.1f  probe", "2 probe", pr->mlups);
    for (int p = 0; p < c->k->phases; p++)
        printf("%s %.4f ns/cell (L=%d M=%d)", p ? "," : "", pr->ns_per_cell[p], c->k->misaligned_reads[p],
               c->k->misaligned_writes[p]);
    printf(", occupancy factor %.3f", pr->occupancy_factor);
    if (strcmp(c->in->occupancy_from, c->in->backend)) printf(" (%s's occupancy sweep)", c->in->occupancy_from);
    printf(", arithmetic factor %.3f (%g operations per cell)", pr->compute_factor, c->k->ops_per_cell);
    if (pr->in_place_factor != 1) printf(", in place / %.3f (no write-allocate)", pr->in_place_factor);
    printf("\n");
}

static const char *layout_words(int layout)
{
    return layout == PROBE_LAYOUT_IN_PLACE   ? ", in place (one lattice),"
           : layout == PROBE_LAYOUT_SWAPPED ? ", arrays swapped at every launch (two lattices),"
                                            : "";
}

static void print_geometry(const case_t *c, const char *label)
{
    const model_path_answer *a = &c->p->full.answer[MODEL_FULL_GEOMETRY];
    const model_geometry_detail *d = &c->p->full.geometry;
    printf("%-12s %12.1f  geometry path: N=19 probe back to back at the kernel's launch (%d-byte accesses, block %d, "
           "%s) at %.0f threads: aligned %.3f us (-1: not measured there); with the kernel's L, M%s and payload %.2f us",
           label, a->mlups, d->word_bytes, c->lat->block_size,
           c->lat->blocks_per_cu > 0 ? "forced blocks per SM" : "as many blocks as fit", d->threads, d->aligned_us,
           layout_words(d->layout), a->memory_us[0]);
    print_phases_us(c, a->memory_us);
    printf(" per step%s\n", c->k->phases > 1 ? " (phases averaged)" : "");
}

static void print_threads(const case_t *c, const char *label)
{
    const model_path_answer *a = &c->p->full.answer[MODEL_FULL_THREADS_SWEEP];
    const model_threads_detail *d = &c->p->full.threads;
    const int K = c->k->launches_per_step;
    printf("%-12s %12.1f  threads-sweep path: N=19 probe back to back at %.0f threads, occupancy %.3f (%d-byte sweep, "
           "%d curve%s, %d points) %.3f us per launch x kernel factor",
           label, a->mlups, d->threads, d->occupancy, d->word_bytes, d->curves, d->curves > 1 ? "s" : "", d->points,
           d->us);
    for (int p = 0; p < c->k->phases; p++) printf("%s %.3f", p ? " /" : "", d->kernel_factor[p]);
    printf(" (level-2 probe / base probe at N=19, %.4f ns/thread; block-size factor %.3f; L2 factor", d->base19_ns,
           d->block_factor);
    for (int p = 0; p < c->k->phases; p++) printf("%s %.3f", p ? " /" : "", d->l2_factor[p]);
    printf(") x %d launch%s", K, K > 1 ? "es" : "");
    /* the launch's factors (row classes, a grid's shape, words a row away,
     * launch probes) scale the time after this path's own: say by how
     * much, so that the line adds up; the notes say which */
    if (d->own_us[0] > 0 && fabs(a->memory_us[0] / d->own_us[0] - 1) > 5e-4)
        printf(" x launch factors %.3f (notes)", a->memory_us[0] / d->own_us[0]);
    printf(" = %.2f us", a->memory_us[0]);
    print_phases_us(c, a->memory_us);
    printf(" per step%s\n", c->k->phases > 1 ? " (phases averaged)" : "");
}

static void print_size_sweep(const case_t *c, const char *label)
{
    const model_path_answer *a = &c->p->full.answer[MODEL_FULL_SIZE_SWEEP];
    const model_size_sweep_detail *d = &c->p->full.size_sweep;
    printf("%-12s %12.1f  size-sweep path: working set %.3g B: bandwidth x%.3f of the probe's (%.3g B); memory %.2f us",
           label, a->mlups, d->working_set, 1 / d->bandwidth_ratio, d->probe_working_set, a->memory_us[0]);
    print_phases_us(c, a->memory_us);
    printf(", device gap %.2f us, back-to-back launch %.2f us per step (%s)%s\n", d->gap_us, d->launch_us,
           a->launch_bound ? "launch-bound" : "memory-bound: memory + gap", a->complete ? "" : " [incomplete]");
}

static const struct {
    model_full_path id;
    const char *name;
    void (*print)(const case_t *, const char *label);
} path_printers[MODEL_FULL_PATHS] = {
    {MODEL_FULL_GEOMETRY, "geometry", print_geometry},
    {MODEL_FULL_THREADS_SWEEP, "threads-sweep", print_threads},
    {MODEL_FULL_SIZE_SWEEP, "size-sweep", print_size_sweep},
};

/* The answer, then what each other path that applies would say. */
static void print_level_3(const case_t *c)
{
    const model_full_level *f = &c->p->full;
    for (int i = 0; i < MODEL_FULL_PATHS; i++)
        if (path_printers[i].id == f->path) path_printers[i].print(c, "3 full");
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        const model_path_answer *a = &f->answer[path_printers[i].id];
        if (path_printers[i].id != f->path && a->applies)
            printf("%-12s %12.1f  (%s path, not used)\n", "", a->mlups, path_printers[i].name);
    }
}

/* flags: a level 3 above the roofline of its working set is said beside
 * the clamps, never passed over: no kernel moves its bytes faster than a
 * copy of the same working set. */
static void print_flags(const model_prediction *p)
{
    char flags[64];
    const int f = model_prediction_flags(p);
    printf("flags: %s", model_flags_text(f, flags, sizeof flags));
    if (f & MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE)
        printf(" (level 3's %.1f MLUPS is %.2f x the roofline of its working set, %.1f MLUPS: not a bound the kernel "
               "can pass)", p->full.mlups, p->full.mlups / p->roofline.working_set_mlups, p->roofline.working_set_mlups);
    printf("\n");
}

static void print_provenance(const model_provenance *p)
{
    printf("within_measured: %s\n", p->within_measured ? "yes" : "no");
    for (int i = 0; i < p->n_fallbacks; i++) {
        char line[512];
        model_fallback_format(&p->fallbacks[i], line, sizeof line);
        printf("read instead (%s): %s\n", model_fallback_kind_name(p->fallbacks[i].kind), line);
    }
    if (p->notes[0]) printf("notes: %s\n", p->notes);
}

void model_report_prediction(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                             const model_prediction *p)
{
    const case_t c = {in, k, lat, p};
    print_header(&c);
    print_levels_1_2(&c);
    print_level_3(&c);
    if (in->start_cost_points)
        printf("single-launch start cost removed from copy and probe times: %.2f us (fit over %d L2-resident copy "
               "sizes)\n", in->start_cost_ms * 1e3, in->start_cost_points);
    print_provenance(&p->prov);
    print_flags(p);
}

/* ---- validate ----------------------------------------------------------- */

void model_report_points(const model_validated_point *pts, int n, const model_error_bars *bars)
{
    printf("%-7s %-6s %-5s %-15s %6s %10s %10s %10s %10s %8s %s\n", "backend", "scheme", "prec", "size", "block",
           "measured", "roofline", "probe", "full", "error%", "");
    for (int i = 0; i < n; i++) {
        const model_validated_point *v = &pts[i];
        const model_prediction *p = &v->pr;
        char size[48], scheme[24];
        snprintf(size, sizeof size, "%lldx%lldx%lld", v->nx, v->ny, v->nz);
        snprintf(scheme, sizeof scheme, "%s%s", v->scheme, strcmp(v->stores, "nontemporal") ? "" : "-nt");
        const int flags = model_point_flags(v);
        printf("%-7s %-6s %-5s %-15s %6lld %10.1f %10.1f %10.1f %10.1f %+8.2f %s%s%s%s%s%s\n", v->backend, scheme,
               v->precision, size, v->block_size, v->measured, p->roofline.mlups, p->probe.mlups, p->full.mlups,
               v->error_pct, model_point_over(v, bars) ? "OVER " : "", p->prov.within_measured ? "" : "clamped ",
               model_full_answer(p)->launch_bound ? "launch-bound " : "",
               flags & MODEL_FLAG_PREDICTED_ABOVE_ROOFLINE ? "PREDICTED>ROOFLINE " : "",
               flags & MODEL_FLAG_MEASURED_ABOVE_ROOFLINE ? "MEASURED>ROOFLINE " : "",
               flags & MODEL_FLAG_SPILLS ? "SPILLS" : "");
    }
}

/* A worst error of no point reads as a perfect one: say none was measured. */
static void print_large_sizes(const model_validation_stats *s, const model_error_bars *bars)
{
    if (s->points > s->small)
        printf("\nsizes >= 128^3: worst |error| %.2f %% (bar %.1f %%), %d over\n", s->worst_large, bars->large,
               s->over_large);
    else
        printf("\nno lattice of 128^3 or more measured (the bar of %.1f %% applies to none)\n", bars->large);
}

static void print_small_sizes(const model_validation_stats *s, const model_error_bars *bars)
{
    printf("sizes <  128^3: worst |error| %.2f %% (bar %.1f %%), %d over\n", s->worst_small, bars->small, s->over_small);
    const double mean = s->small_error_sum / s->small, alt = s->small_alternative_sum / s->small;
    if (!s->alternative_is_sum)
        printf("level 3 from the membench threads sweep (probe back to back at the lattice's thread count): mean "
               "|error| %.2f %% below 128^3; the size-sweep path would give %.2f %%\n", mean, alt);
    else
        printf("level 3 from the size sweep, step = max(back-to-back launch interval, memory + device gap): mean "
               "|error| %.2f %% below 128^3; memory + back-to-back interval would give %.2f %%\n", mean, alt);
}

static void print_geometry_points(const model_validation_stats *s)
{
    printf("%d points from the geometry path (membench-geometry.csv: the probe at the kernel's own launch): mean "
           "|error| %.2f %%", s->geometry, s->geometry_error_sum / s->geometry);
    if (s->geometry_with_threads)
        printf("; the threads-sweep path would give %.2f %% at %d of them", s->geometry_threads_sum / s->geometry_with_threads,
               s->geometry_with_threads);
    printf("\n");
}

/* How many points read each kind of fallback (predict says which). */
static void print_fallbacks(const model_validation_stats *s)
{
    int any = 0;
    for (int k = 0; k < MODEL_FALLBACK_KINDS; k++) any |= s->fallback_points[k] > 0;
    if (!any) return;
    printf("points that read a fallback (model predict shows which):");
    for (int k = 0, first = 1; k < MODEL_FALLBACK_KINDS; k++)
        if (s->fallback_points[k]) {
            printf("%s %s %d", first ? "" : ",", model_fallback_kind_name((model_fallback_kind)k), s->fallback_points[k]);
            first = 0;
        }
    printf(" of %d\n", s->points);
}

/* Before the kernel (holdout.h): how far it misses, and the path each
 * point then took. */
static void print_before_kernel(const model_validation_stats *s, const model_error_bars *bars)
{
    printf("before the kernel (none of the probes measured at its own launch and lattice): worst |error| %.2f %% from "
           "128^3 (bar %.1f %%, %d over), %.2f %% below (bar %.1f %%, %d over); the verdict stays on the error at "
           "the kernel's launch\n", s->before_worst_large, bars->large, s->before_over_large, s->before_worst_small,
           bars->small, s->before_over_small);
    printf("before the kernel, level 3 from: geometry %d, threads sweep %d, size sweep %d of %d points\n",
           s->before_paths[MODEL_FULL_GEOMETRY], s->before_paths[MODEL_FULL_THREADS_SWEEP],
           s->before_paths[MODEL_FULL_SIZE_SWEEP], s->points);
}

/* A backend that forced no blocks per SM reads another's sweeps. */
static void print_borrowed(const model_inputs *in)
{
    int geometry = 0;
    for (int i = 0; i < in->n_borrowed; i++) geometry |= in->borrowed[i].sweep == PROBE_GEOMETRY;
    printf("%s forced no blocks per SM: its kernels' occupancy is read on %s's occupancy sweep (ratios)%s%s%s\n",
           in->backend, in->occupancy_from, geometry ? ", their launches on its geometry sweep (each at least " : "",
           geometry ? in->backend : "", geometry ? "'s launch interval)" : "");
}

void model_report_validation(const model_validation_stats *s, const model_error_bars *bars,
                             const model_inputs *inputs, int n_inputs)
{
    print_large_sizes(s, bars);
    if (s->small) print_small_sizes(s, bars);
    if (s->geometry) print_geometry_points(s);
    if (s->points) print_before_kernel(s, bars);
    if (s->predicted_above_roofline || s->measured_above_roofline)
        printf("flagged: %d prediction(s) and %d measurement(s) above the roofline of their working set (level 1 "
               "scaled by the stream size sweep's copy there over the DRAM copy's)\n",
               s->predicted_above_roofline, s->measured_above_roofline);
    if (s->spilling)
        printf("flagged: %d point(s) whose kernel spills to local memory (lbm.csv local_bytes > 0): that traffic is in "
               "no probe, so their prediction leaves it out\n", s->spilling);
    print_fallbacks(s);
    for (int b = 0; b < n_inputs; b++)
        if (strcmp(inputs[b].occupancy_from, inputs[b].backend)) print_borrowed(&inputs[b]);
    if (n_inputs && !inputs[0].have_launch) printf("level 3 incomplete: no launch.csv rows\n");
}
