/* model validate's rows of several ranks: see ranks_validate.h. */
#include "ranks_validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "table.h"

int ranks_validation_init(ranks_validation *v, const char *dir, int rows, char *err, size_t err_len)
{
    memset(v, 0, sizeof *v);
    v->dir = dir;
    v->pts = calloc(rows > 0 ? rows : 1, sizeof *v->pts);
    if (!v->pts) return lbp_error(err, err_len, "%s: out of memory", dir);
    int probed, r = interconnect_devices(dir, &v->devices, &probed, err, err_len);
    if (r == LBP_TABLE_MISSING) v->devices = 0;
    else if (r) return -1;
    return 0;
}

void ranks_validation_free(ranks_validation *v)
{
    if (v->fits_loaded > 0) interconnect_free(&v->fits);
    free(v->pts);
    v->pts = NULL;
}

/* The fit, read at the first row that needs it: 1 loaded, 0 missing (the
 * row skipped), -1 malformed */
static int fits_of(ranks_validation *v, char *err, size_t err_len)
{
    if (!v->fits_loaded) {
        int r = interconnect_load(&v->fits, v->dir, v->why_skipped, sizeof v->why_skipped);
        if (r == LBP_TABLE_MALFORMED) return lbp_error(err, err_len, "%s", v->why_skipped);
        v->fits_loaded = r == LBP_TABLE_OK ? 1 : -1;
    }
    return v->fits_loaded > 0;
}

static void text_of(const lbp_table *t, int row, const char *col, char *out, size_t len)
{
    snprintf(out, len, "%s", lbp_table_text(t, row, lbp_table_column(t, col)));
}

int ranks_validation_add(ranks_validation *v, const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                         const lbp_table *lbm, int row, const ranks_row *cols, char *err, size_t err_len)
{
    int have = fits_of(v, err, err_len);
    if (have < 0) return -1;
    if (!have) { v->skipped++; return 0; }
    ranks_point *p = &v->pts[v->n];
    text_of(lbm, row, "backend", p->backend, sizeof p->backend);
    text_of(lbm, row, "scheme", p->scheme, sizeof p->scheme);
    text_of(lbm, row, "precision", p->precision, sizeof p->precision);
    p->cols = *cols;
    p->nx = lat->nx;
    p->ny = lat->ny;
    p->nz = lat->nz;
    p->block_size = lat->block_size;
    p->cells_per_thread = k->cells_per_thread;
    p->cells = lat->cells;
    if (lbp_table_number_by_name(lbm, row, "mlups_median", &p->measured, err, err_len)) return -1;
    char why[512];
    if (ranks_request_of(cols, lat, v->devices, &p->rq, why, sizeof why) ||
        ranks_predict(in, k, lat, &v->fits, &p->rq, &p->pr, why, sizeof why))
        return lbp_error(err, err_len, "%s:%d: %s", lbm->path, lbm->line[row], why);
    p->error_pct = 100 * (p->pr.step.mlups - p->measured) / p->measured;
    double one = ranks_baseline_mlups(lbm, row, cols);
    p->measured_eff_pct = one > 0 ? 100 * p->measured / (p->pr.slab.devices * one) : -1;
    v->n++;
    return 0;
}

static int shares_device(const ranks_point *p) { return p->rq.sc.ranks_per_device > 1; }

int ranks_point_over(const ranks_point *p, double bar_large, double bar_small)
{
    if (shares_device(p)) return 0;
    return fabs(p->error_pct) > (p->pr.slab.cells_rank >= MODEL_LARGE_CELLS ? bar_large : bar_small);
}

static void percent_or_dash(char *out, size_t len, double v)
{
    if (v >= 0) snprintf(out, len, "%.1f", v);
    else snprintf(out, len, "-");
}

int ranks_validation_report(FILE *f, const ranks_validation *v, double bar_large, double bar_small)
{
    if (v->skipped)
        fprintf(f, "\n%d row(s) of several ranks not predicted: %s\n", v->skipped, v->why_skipped);
    if (!v->n) return 0;
    fprintf(f, "\nseveral ranks (lbm.csv rows of ranks > 1; the whole lattice's MLUPS; efficiency against one device):\n");
    fprintf(f, "%-7s %-6s %-5s %-15s %-6s %5s %-8s %-7s %10s %10s %8s %9s %9s %8s %8s\n", "backend", "scheme",
            "prec", "size", "scale", "ranks", "exchange", "overlap", "measured", "predicted", "error%", "exch us",
            "pred us", "eff %", "pred %");
    int over = 0, shared = 0;
    double worst = -1;
    for (int i = 0; i < v->n; i++) {
        const ranks_point *p = &v->pts[i];
        int o = ranks_point_over(p, bar_large, bar_small);
        char size[48], me[16], mx[16];
        snprintf(size, sizeof size, "%lldx%lldx%lld", p->nx, p->ny, p->nz);
        percent_or_dash(me, sizeof me, p->measured_eff_pct);
        percent_or_dash(mx, sizeof mx, p->cols.exchange_us);
        fprintf(f, "%-7s %-6s %-5s %-15s %-6s %5d %-8s %-7s %10.1f %10.1f %+8.2f %9s %9.1f %8s %8.1f %s%s%s%s\n",
                p->backend, p->scheme, p->precision, size, p->cols.scaling, p->cols.ranks, p->cols.exchange,
                p->cols.overlap ? "on" : "off", p->measured, p->pr.step.mlups, p->error_pct, mx,
                p->pr.step.exchange_us, me, 100 * p->pr.step.efficiency, o ? "OVER " : "",
                shares_device(p) ? "oversubscribed " : "", p->pr.projection ? "projection " : "",
                p->pr.exchange_beside == INTERCONNECT_BESIDE_COPY ? "exchange-beside-copy" : "");
        over += o;
        shared += shares_device(p);
        if (!shares_device(p)) worst = fmax(worst, fabs(p->error_pct));
    }
    fprintf(f, "several ranks: %d points", v->n);
    if (shared) fprintf(f, " (%d with several ranks on one device: a check of the paths, held to no bar)", shared);
    if (worst >= 0)
        fprintf(f, ", worst |error| %.2f %% (bars %.1f %% from a slab of 128^3, %.1f %% below), %d over", worst,
                bar_large, bar_small, over);
    fputc('\n', f);
    return over;
}

void ranks_point_csv(const ranks_point *p, char *out, size_t len)
{
    const model_prediction *one = &p->pr.slab_pr; /* a rank's slab on one device */
    const int devices = p->pr.slab.devices;
    snprintf(out, len,
             "%s,%s,%lld,%lld,%lld,%.0f,%lld,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%d,%s,%d,%s,%lld,%d,%.3f,%.3f,%.3f,%.3f,%s",
             p->scheme, p->precision, p->nx, p->ny, p->nz, p->cells, p->block_size, p->measured,
             devices * one->roofline.mlups, devices * one->probe.mlups, p->pr.step.mlups, p->error_pct,
             p->pr.prov.within_measured ? "yes" : "no", p->cols.ranks, p->cols.exchange, p->cols.overlap,
             p->cols.scaling, p->cols.nz_local, devices, p->cols.exchange_us, p->pr.step.exchange_us,
             p->measured_eff_pct, 100 * p->pr.step.efficiency, p->pr.projection ? "yes" : "no");
}
