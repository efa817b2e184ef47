/* Printing runs on several ranks: see ranks_print.h. */
#include "ranks_print.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- one prediction ------------------------------------------------------ */

/* The fields of a prediction, in the order of the CSV header and the JSON
 * keys; text values quoted in JSON */
#define RANKS_FIELDS                                                                                          \
    "device,backend,kernel,nx,ny,nz,scaling,ranks,nodes,ranks_per_node,ranks_per_device,exchange,overlap,"   \
    "nz_local,halo_bytes,exchange_bytes,slab_us,interior_us,border_us,single_us,sync_us,within_us,between_us,exchange_us,step_us,"  \
    "mlups,mlups_per_rank,single_mlups,speedup,efficiency_pct,exchange_bound,projection"

static void emit(FILE *f, ranks_format fmt, const char *key, int quoted, const char *fmt_value, ...)
    __attribute__((format(printf, 5, 6)));
static void emit(FILE *f, ranks_format fmt, const char *key, int quoted, const char *fmt_value, ...)
{
    char value[256];
    va_list ap;
    va_start(ap, fmt_value);
    vsnprintf(value, sizeof value, fmt_value, ap);
    va_end(ap);
    int first = !strcmp(key, "device");
    if (fmt == RANKS_CSV) fprintf(f, "%s%s", first ? "" : ",", value);
    else fprintf(f, "%s\"%s\": %s%s%s", first ? "" : ", ", key, quoted ? "\"" : "", value, quoted ? "\"" : "");
}

static void print_fields(FILE *f, ranks_format fmt, const char *device, const char *backend, const char *kernel,
                         const ranks_request *rq, const ranks_prediction *p)
{
    const scaling_case *c = &rq->sc;
    const scaling_step *s = &p->step;
    emit(f, fmt, "device", 1, "%s", device);
    emit(f, fmt, "backend", 1, "%s", backend);
    emit(f, fmt, "kernel", 1, "%s", kernel);
    emit(f, fmt, "nx", 0, "%lld", c->nx);
    emit(f, fmt, "ny", 0, "%lld", c->ny);
    emit(f, fmt, "nz", 0, "%lld", p->slab.nz_global);
    emit(f, fmt, "scaling", 1, "%s", c->mode == SCALING_WEAK ? "weak" : "strong");
    emit(f, fmt, "ranks", 0, "%d", c->ranks);
    emit(f, fmt, "nodes", 0, "%d", rq->nodes);
    emit(f, fmt, "ranks_per_node", 0, "%d", rq->ranks_per_node);
    emit(f, fmt, "ranks_per_device", 0, "%d", c->ranks_per_device);
    emit(f, fmt, "exchange", 1, "%s", c->ranks > 1 ? rq->exchange : "none");
    emit(f, fmt, "overlap", 0, "%d", c->overlap);
    emit(f, fmt, "nz_local", 0, "%lld", p->slab.nz_local);
    emit(f, fmt, "halo_bytes", 0, "%.0f", p->slab.halo_bytes);
    emit(f, fmt, "exchange_bytes", 0, "%.0f", p->slab.exchange_bytes);
    emit(f, fmt, "slab_us", 0, "%.3f", p->times.slab_us);
    emit(f, fmt, "interior_us", 0, "%.3f", p->times.interior_us);
    emit(f, fmt, "border_us", 0, "%.3f", p->times.border_us);
    emit(f, fmt, "single_us", 0, "%.3f", p->times.single_us);
    emit(f, fmt, "sync_us", 0, "%.3f", p->times.sync_us);
    emit(f, fmt, "within_us", 0, "%.3f", p->within_us);
    emit(f, fmt, "between_us", 0, "%.3f", p->between_us);
    emit(f, fmt, "exchange_us", 0, "%.3f", s->exchange_us);
    emit(f, fmt, "step_us", 0, "%.3f", s->step_us);
    emit(f, fmt, "mlups", 0, "%.1f", s->mlups);
    emit(f, fmt, "mlups_per_rank", 0, "%.1f", s->mlups_per_rank);
    emit(f, fmt, "single_mlups", 0, "%.1f", s->single_mlups);
    emit(f, fmt, "speedup", 0, "%.4f", s->speedup);
    emit(f, fmt, "efficiency_pct", 0, "%.3f", 100 * s->efficiency);
    emit(f, fmt, "exchange_bound", 0, "%d", s->exchange_bound);
    emit(f, fmt, "projection", 0, "%s", fmt == RANKS_CSV ? (p->projection ? "yes" : "no")
                                                                         : (p->projection ? "true" : "false"));
}

/* A text line, "[projection] " first where the prediction is one */
static void line(FILE *f, int projection, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(FILE *f, int projection, const char *fmt, ...)
{
    if (projection) fputs("[projection] ", f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

static void print_text(FILE *f, const char *device, const char *backend, const char *kernel, const ranks_request *rq,
                       const ranks_prediction *p)
{
    const scaling_case *c = &rq->sc;
    const scaling_slab *sl = &p->slab;
    const scaling_times *t = &p->times;
    const scaling_step *s = &p->step;
    int pj = p->projection;
    char where[96] = "";
    if (rq->nodes > 1) snprintf(where, sizeof where, " (%d nodes of %d)", rq->nodes, rq->ranks_per_node);
    else if (c->ranks_per_device > 1) snprintf(where, sizeof where, " (%d a device: oversubscribed)", c->ranks_per_device);
    line(f, pj, "device %s (%s), %s on %d rank%s%s, %s scaling: %lldx%lldx%lld%s, exchange %s, overlap %s", device,
         backend, kernel, c->ranks, c->ranks > 1 ? "s" : "", where, c->mode == SCALING_WEAK ? "weak" : "strong", c->nx,
         c->ny, sl->nz_global, c->mode == SCALING_WEAK ? " (the lattice per rank fixed)" : "",
         c->ranks > 1 ? rq->exchange : "none", c->overlap ? "on" : "off");
    line(f, pj, "slab %lldx%lldx%lld a rank: %.2f us per step in one launch; interior %lld planes %.2f us, border %lld planes %.2f us",
         c->nx, c->ny, sl->nz_local, t->slab_us, sl->interior_planes, t->interior_us, sl->border_planes, t->border_us);
    if (c->ranks > 1) {
        line(f, pj, "halo %.0f B a face each way, %.0f B a rank (both faces); %s", sl->halo_bytes, sl->exchange_bytes,
             p->route);
        line(f, pj, "exchange of the slowest rank: %.2f us (inside a node %.2f us%s)", s->exchange_us, p->within_us,
             rq->nodes > 1 ? "" : ", no link between nodes");
        if (rq->nodes > 1) line(f, pj, "  across nodes %.2f us", p->between_us);
    }
    if (c->ranks == 1)
        line(f, pj, "step: T_slab = %.2f us (one rank: no exchange)", s->step_us);
    else if (s->overlapped)
        line(f, pj, "step: max(T_border + T_interior = %.2f, T_border + T_exchange = %.2f) + T_sync %.2f = %.2f us (%s)",
             s->alpha_us, s->beta_us, t->sync_us, s->step_us,
             s->exchange_bound ? "the exchange shows" : "the exchange hidden");
    else
        line(f, pj, "step: T_slab + T_exchange + T_sync = %.2f + %.2f + %.2f = %.2f us%s", s->alpha_us, s->beta_us,
             t->sync_us, s->step_us, c->overlap ? " (no overlap: the slab has no interior)" : "");
    char against[96] = "";
    if (c->ranks_per_device > 1 && rq->nodes <= 1)
        snprintf(against, sizeof against, " (against %d device%s, %d ranks a device)", sl->devices,
                 sl->devices > 1 ? "s" : "", c->ranks_per_device);
    line(f, pj, "MLUPS %.1f (the whole lattice), %.1f a rank; one device alone on %s %.1f: speedup %.3f, efficiency %.2f %%%s",
         s->mlups, s->mlups_per_rank, c->mode == SCALING_WEAK ? "a rank's lattice" : "the whole lattice",
         s->single_mlups, s->speedup, 100 * s->efficiency, against);
    line(f, pj, "within_measured: %s", p->prov.within_measured ? "yes" : "no");
    for (int i = 0; i < p->prov.n_fallbacks; i++) {
        char what[512];
        model_fallback_format(&p->prov.fallbacks[i], what, sizeof what);
        line(f, pj, "read instead (%s): %s", model_fallback_kind_name(p->prov.fallbacks[i].kind), what);
    }
    if (p->prov.notes[0]) line(f, pj, "notes: %s", p->prov.notes);
}

void ranks_print_begin(FILE *f, ranks_format fmt)
{
    if (fmt == RANKS_CSV) fprintf(f, "%s\n", RANKS_FIELDS);
    if (fmt == RANKS_JSON) fputs("[\n", f);
}

void ranks_print_one(FILE *f, ranks_format fmt, const char *device, const char *backend, const char *kernel,
                     const ranks_request *rq, const ranks_prediction *p, int first)
{
    if (fmt == RANKS_TEXT) {
        if (!first) fputc('\n', f);
        print_text(f, device, backend, kernel, rq, p);
        return;
    }
    if (fmt == RANKS_JSON) fprintf(f, "%s  {", first ? "" : ",\n");
    print_fields(f, fmt, device, backend, kernel, rq, p);
    fputs(fmt == RANKS_JSON ? "}" : "\n", f);
}

void ranks_print_end(FILE *f, ranks_format fmt)
{
    if (fmt == RANKS_JSON) fputs("\n]\n", f);
}

/* ---- the summary block --------------------------------------------------- */

typedef struct {
    char backend[16], scheme[16], precision[8], exchange[8], scaling[8];
    int ranks, overlap, devices;
    double measured, predicted, error_pct, measured_eff, predicted_eff;
} summary_row;

static int summary_rows(const lbp_table *t, summary_row **out, char *err, size_t err_len)
{
    summary_row *rows = calloc(t->rows ? t->rows : 1, sizeof *rows);
    int n = 0;
    for (int i = 0; i < t->rows; i++) {
        summary_row *r = &rows[n];
        double ranks, overlap, devices;
        if (lbp_table_number_by_name(t, i, "ranks", &ranks, err, err_len)) goto bad;
        if (ranks <= 1) continue;
        if (lbp_table_number_by_name(t, i, "overlap", &overlap, err, err_len) ||
            lbp_table_number_by_name(t, i, "devices", &devices, err, err_len) ||
            lbp_table_number_by_name(t, i, "measured_mlups", &r->measured, err, err_len) ||
            lbp_table_number_by_name(t, i, "full_mlups", &r->predicted, err, err_len) ||
            lbp_table_number_by_name(t, i, "error_pct", &r->error_pct, err, err_len) ||
            lbp_table_number_by_name(t, i, "measured_efficiency_pct", &r->measured_eff, err, err_len) ||
            lbp_table_number_by_name(t, i, "predicted_efficiency_pct", &r->predicted_eff, err, err_len))
            goto bad;
#define TEXT(field, col) snprintf(r->field, sizeof r->field, "%s", lbp_table_text(t, i, lbp_table_column(t, col)))
        TEXT(backend, "backend"); TEXT(scheme, "scheme"); TEXT(precision, "precision");
        TEXT(exchange, "exchange"); TEXT(scaling, "scaling");
#undef TEXT
        r->ranks = (int)ranks;
        r->overlap = (int)overlap;
        r->devices = (int)devices;
        n++;
    }
    *out = rows;
    return n;
bad:
    free(rows);
    return -1;
}

static int oversubscribed(const summary_row *r) { return r->devices < r->ranks; }

/* The row a group (backend, scaling, exchange, overlap) is shown by: its
 * most ranks, the fastest scheme there; -1 unless row i is the group's
 * first, so that each group shows once, where it first appears. */
static int group_best(const summary_row *rows, int n, int i)
{
    const summary_row *r = &rows[i];
    int best = i;
    for (int j = 0; j < n; j++) {
        const summary_row *o = &rows[j];
        if (strcmp(o->backend, r->backend) || strcmp(o->scaling, r->scaling) || strcmp(o->exchange, r->exchange) ||
            o->overlap != r->overlap)
            continue;
        if (j < i) return -1;
        const summary_row *b = &rows[best];
        if (o->ranks > b->ranks || (o->ranks == b->ranks && o->measured > b->measured)) best = j;
    }
    return best;
}

static void print_group_lines(FILE *f, const summary_row *rows, int n)
{
    fprintf(f, "%-7s %-7s %-8s %-7s %5s %-6s %-5s %10s %10s %8s %9s %9s\n", "backend", "scaling", "exchange",
            "overlap", "ranks", "scheme", "prec", "measured", "predicted", "error%", "eff meas", "eff pred");
    for (int i = 0; i < n; i++) {
        const int best = group_best(rows, n, i);
        if (best < 0) continue;
        const summary_row *b = &rows[best];
        char me[16] = "-", pe[16] = "-";
        if (b->measured_eff >= 0) snprintf(me, sizeof me, "%.1f %%", b->measured_eff);
        if (b->predicted_eff >= 0) snprintf(pe, sizeof pe, "%.1f %%", b->predicted_eff);
        fprintf(f, "%-7s %-7s %-8s %-7s %5d %-6s %-5s %10.1f %10.1f %+8.2f %9s %9s%s\n", b->backend, b->scaling,
                b->exchange, b->overlap ? "on" : "off", b->ranks, b->scheme, b->precision, b->measured, b->predicted,
                b->error_pct, me, pe, oversubscribed(b) ? "  (oversubscribed)" : "");
    }
}

/* The rows the efficiency target reads: weak scaling through peer copies
 * with overlap, one device a rank, a measured efficiency */
static int efficiency_target_row(const summary_row *r)
{
    return !strcmp(r->scaling, "weak") && !strcmp(r->exchange, "peer") && r->overlap && !oversubscribed(r) &&
           r->measured_eff >= 0;
}

/* The most ranks of those rows (0: none) */
static int efficiency_target_ranks(const summary_row *rows, int n)
{
    int most = 0;
    for (int i = 0; i < n; i++)
        if (efficiency_target_row(&rows[i]) && rows[i].ranks > most) most = rows[i].ranks;
    return most;
}

/* Weak scaling through peer copies with overlap, on one device a rank, at
 * the most ranks measured: every fp32 scheme's efficiency */
static void print_efficiency_target(FILE *f, const summary_row *rows, int n)
{
    const int most = efficiency_target_ranks(rows, n);
    fprintf(f, "target: weak-scaling efficiency >= %.0f %% at %d GPUs with peer exchange and overlap: ",
            RANKS_TARGET_EFFICIENCY_PCT, RANKS_TARGET_GPUS);
    if (!most) { fprintf(f, "not measured\n"); return; }
    double worst = 1e9;
    fprintf(f, "at %d GPUs%s:", most, most < RANKS_TARGET_GPUS ? " (the most measured)" : "");
    int k = 0;
    for (int i = 0; i < n; i++) {
        const summary_row *r = &rows[i];
        if (!efficiency_target_row(r) || r->ranks != most) continue;
        fprintf(f, "%s %s %s %.1f %%", k++ ? "," : "", r->scheme, r->precision, r->measured_eff);
        worst = fmin(worst, r->measured_eff);
    }
    int met = worst >= RANKS_TARGET_EFFICIENCY_PCT;
    fprintf(f, ": %s%s\n", met ? "met" : "not met",
            most < RANKS_TARGET_GPUS ? (met ? " there" : "") : "");
}

/* The error target's tally: the worst |error| over the points of one device
 * a rank (*points of them), *over the oversubscribed ones left out */
static double worst_error(const summary_row *rows, int n, int *points, int *over)
{
    double worst = 0;
    *points = *over = 0;
    for (int i = 0; i < n; i++) {
        if (oversubscribed(&rows[i])) { (*over)++; continue; }
        worst = fmax(worst, fabs(rows[i].error_pct));
        (*points)++;
    }
    return worst;
}

/* The worst |error| of each exchange path (one device a rank), where the
 * rows have more than one: a path's own miss is not hidden by another's */
static void print_error_by_path(FILE *f, const summary_row *rows, int n)
{
    int paths = 0;
    for (int i = 0; i < n; i++) {
        int first = !oversubscribed(&rows[i]);
        for (int j = 0; j < i && first; j++)
            first = oversubscribed(&rows[j]) || strcmp(rows[j].exchange, rows[i].exchange);
        paths += first;
    }
    if (paths < 2) return;
    fprintf(f, " (by path:");
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (oversubscribed(&rows[i])) continue;
        int first = 1, points = 0;
        double worst = 0;
        for (int j = 0; j < n; j++) {
            if (oversubscribed(&rows[j]) || strcmp(rows[j].exchange, rows[i].exchange)) continue;
            if (j < i) { first = 0; break; }
            worst = fmax(worst, fabs(rows[j].error_pct));
            points++;
        }
        if (first)
            fprintf(f, "%s %s %.2f %% over %d, %s", k++ ? ";" : "", rows[i].exchange, worst, points,
                    worst <= RANKS_TARGET_ERROR_PCT ? "met" : "not met");
    }
    fputc(')', f);
}

static void print_error_target(FILE *f, const summary_row *rows, int n)
{
    int k, over;
    const double worst = worst_error(rows, n, &k, &over);
    fprintf(f, "target: model within %.0f %% of measured MLUPS per rank: ", RANKS_TARGET_ERROR_PCT);
    if (!k) fprintf(f, "no run of one device a rank\n");
    else {
        fprintf(f, "worst |error| %.2f %% over %d points: %s", worst, k, worst <= RANKS_TARGET_ERROR_PCT ? "met" : "not met");
        print_error_by_path(f, rows, n);
        fputc('\n', f);
    }
    if (over)
        fprintf(f, "%d point(s) ran several ranks on one device (oversubscribed): a check of the paths, outside the targets\n",
                over);
}

/* The rows of more than one rank of model.csv (*rows, to free): how many,
 * 0 for one device's file (no multi-rank columns; *rows NULL), -1 with err
 * on a bad number. */
static int multi_rank_rows(const lbp_table *t, summary_row **rows, char *err, size_t err_len)
{
    static const char *const cols[] = {"ranks", "exchange", "overlap", "scaling", "devices", "measured_mlups",
                                       "full_mlups", "error_pct", "measured_efficiency_pct",
                                       "predicted_efficiency_pct", NULL};
    *rows = NULL;
    if (lbp_table_require(t, cols, NULL, 0)) return 0;
    return summary_rows(t, rows, err, err_len);
}

int ranks_summary_print(FILE *f, const lbp_table *t, char *err, size_t err_len)
{
    summary_row *rows;
    const int n = multi_rank_rows(t, &rows, err, err_len);
    if (n < 0) return -1;
    if (n) {
        fprintf(f, "\nseveral devices (model.csv rows of more than one rank; efficiency against one device alone):\n");
        print_group_lines(f, rows, n);
        print_efficiency_target(f, rows, n);
        print_error_target(f, rows, n);
    }
    free(rows);
    return 0;
}

static void json_group(model_json *j, const summary_row *b)
{
    model_json_object(j, NULL);
    model_json_string(j, "backend", b->backend);
    model_json_string(j, "scaling", b->scaling);
    model_json_string(j, "exchange", b->exchange);
    model_json_bool(j, "overlap", b->overlap);
    model_json_number(j, "ranks", b->ranks);
    model_json_number(j, "devices", b->devices);
    model_json_bool(j, "oversubscribed", oversubscribed(b));
    model_json_string(j, "scheme", b->scheme);
    model_json_string(j, "precision", b->precision);
    model_json_number(j, "measured_mlups", b->measured);
    model_json_number(j, "full_mlups", b->predicted);
    model_json_number(j, "error_pct", b->error_pct);
    if (b->measured_eff >= 0) model_json_number(j, "measured_efficiency_pct", b->measured_eff);
    if (b->predicted_eff >= 0) model_json_number(j, "predicted_efficiency_pct", b->predicted_eff);
    model_json_close(j);
}

static void json_targets(model_json *j, const summary_row *rows, int n)
{
    const int most = efficiency_target_ranks(rows, n);
    model_json_object(j, "efficiency_target");
    model_json_number(j, "target_pct", RANKS_TARGET_EFFICIENCY_PCT);
    model_json_number(j, "target_gpus", RANKS_TARGET_GPUS);
    if (most) {
        double worst = 1e9;
        for (int i = 0; i < n; i++)
            if (efficiency_target_row(&rows[i]) && rows[i].ranks == most) worst = fmin(worst, rows[i].measured_eff);
        model_json_number(j, "ranks", most);
        model_json_number(j, "worst_efficiency_pct", worst);
        model_json_bool(j, "met", worst >= RANKS_TARGET_EFFICIENCY_PCT);
    }
    model_json_close(j);
    int points, over;
    const double worst = worst_error(rows, n, &points, &over);
    model_json_object(j, "error_target");
    model_json_number(j, "target_pct", RANKS_TARGET_ERROR_PCT);
    model_json_number(j, "points", points);
    model_json_number(j, "oversubscribed_points", over);
    if (points) {
        model_json_number(j, "worst_abs_error_pct", worst);
        model_json_bool(j, "met", worst <= RANKS_TARGET_ERROR_PCT);
    }
    model_json_close(j);
}

int ranks_summary_json(model_json *j, const lbp_table *t, char *err, size_t err_len)
{
    summary_row *rows;
    const int n = multi_rank_rows(t, &rows, err, err_len);
    if (n < 0) return -1;
    if (n) {
        model_json_object(j, "several_devices");
        model_json_array(j, "groups");
        for (int i = 0; i < n; i++) {
            const int best = group_best(rows, n, i);
            if (best >= 0) json_group(j, &rows[best]);
        }
        model_json_close(j);
        json_targets(j, rows, n);
        model_json_close(j);
    }
    free(rows);
    return 0;
}
