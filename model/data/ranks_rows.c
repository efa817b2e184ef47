/* lbm.csv's multi-rank columns: see ranks_rows.h. */
#include "ranks_rows.h"

#include <stdio.h>
#include <string.h>

/* The text of a column, or fallback where the file has no such column */
static const char *text_or(const lbp_table *t, int row, const char *col, const char *fallback)
{
    int c = lbp_table_column(t, col);
    return c < 0 ? fallback : lbp_table_text(t, row, c);
}

static int number_or(const lbp_table *t, int row, const char *col, double fallback, double *v, char *err,
                     size_t err_len)
{
    if (lbp_table_column(t, col) < 0) { *v = fallback; return 0; }
    return lbp_table_number_by_name(t, row, col, v, err, err_len);
}

static int one_of(const char *s, const char *const *choices)
{
    for (; *choices; choices++)
        if (!strcmp(s, *choices)) return 1;
    return 0;
}

int ranks_row_read(const lbp_table *lbm, int row, long long nz, ranks_row *out, char *err, size_t err_len)
{
    static const char *const exchanges[] = {"none", "host", "peer", "mpi", NULL};
    static const char *const scalings[] = {"none", "weak", "strong", NULL};
    double ranks, overlap, nz_local;
    int line = lbm->line[row];
    memset(out, 0, sizeof *out);
    if (number_or(lbm, row, "ranks", 1, &ranks, err, err_len) ||
        number_or(lbm, row, "overlap", 0, &overlap, err, err_len) ||
        number_or(lbm, row, "exchange_us", -1, &out->exchange_us, err, err_len))
        return -1;
    if (ranks < 1 || ranks > 1e6 || ranks != (int)ranks)
        return lbp_error(err, err_len, "%s:%d: expected ranks a whole number >= 1, got %g", lbm->path, line, ranks);
    out->ranks = (int)ranks;
    if (number_or(lbm, row, "nz_local", (double)nz / out->ranks, &nz_local, err, err_len)) return -1;
    const char *exchange = text_or(lbm, row, "exchange", "none"), *scaling = text_or(lbm, row, "scaling", "none");
    if (!one_of(exchange, exchanges))
        return lbp_error(err, err_len, "%s:%d: expected exchange none, host, peer or mpi, got '%s'", lbm->path, line,
                         exchange);
    if (!one_of(scaling, scalings))
        return lbp_error(err, err_len, "%s:%d: expected scaling none, weak or strong, got '%s'", lbm->path, line,
                         scaling);
    if (overlap != 0 && overlap != 1)
        return lbp_error(err, err_len, "%s:%d: expected overlap 0 or 1, got %g", lbm->path, line, overlap);
    if (nz_local < 1 || nz_local != (long long)nz_local || (long long)nz_local * out->ranks != nz)
        return lbp_error(err, err_len, "%s:%d: expected nz = ranks x nz_local (the whole lattice), got nz %lld, %d ranks, nz_local %g",
                         lbm->path, line, nz, out->ranks, nz_local);
    if (out->ranks > 1 && (!strcmp(exchange, "none") || !strcmp(scaling, "none")))
        return lbp_error(err, err_len, "%s:%d: a row of %d ranks needs an exchange (host, peer, mpi) and a scaling (weak, strong), got '%s' and '%s'",
                         lbm->path, line, out->ranks, exchange, scaling);
    snprintf(out->exchange, sizeof out->exchange, "%s", exchange);
    snprintf(out->scaling, sizeof out->scaling, "%s", scaling);
    out->overlap = (int)overlap;
    out->nz_local = (long long)nz_local;
    return 0;
}

int ranks_request_of(const ranks_row *r, const model_lattice *lat, int devices, ranks_request *rq, char *err,
                     size_t err_len)
{
    if (r->ranks > 1 && strcmp(r->scaling, "weak") && strcmp(r->scaling, "strong"))
        return lbp_error(err, err_len, "%d ranks with scaling '%s': expected weak or strong", r->ranks, r->scaling);
    memset(rq, 0, sizeof *rq);
    int weak = !strcmp(r->scaling, "weak");
    rq->sc = (scaling_case){.nx = lat->nx, .ny = lat->ny, .nz = weak ? r->nz_local : lat->nz, .ranks = r->ranks,
                            .ranks_per_device = devices > 0 ? (r->ranks + devices - 1) / devices : 1,
                            .mode = weak ? SCALING_WEAK : SCALING_STRONG, .overlap = r->overlap};
    snprintf(rq->exchange, sizeof rq->exchange, "%s", r->exchange);
    rq->nodes = 1;
    rq->ranks_per_node = r->ranks;
    return 0;
}

static int same_text(const lbp_table *t, int a, int b, const char *col)
{
    int c = lbp_table_column(t, col);
    return c < 0 || !strcmp(lbp_table_text(t, a, c), lbp_table_text(t, b, c));
}

static double number_at(const lbp_table *t, int row, const char *col, double fallback)
{
    double v;
    return number_or(t, row, col, fallback, &v, NULL, 0) ? fallback : v;
}

double ranks_baseline_mlups(const lbp_table *lbm, int row, const ranks_row *r)
{
    double nz_ref = !strcmp(r->scaling, "weak") ? (double)r->nz_local : number_at(lbm, row, "nz", 0);
    double best = 0;
    int best_score = -1;
    for (int i = 0; i < lbm->rows; i++) {
        if (number_at(lbm, i, "ranks", 1) != 1 || !same_text(lbm, i, row, "backend") ||
            !same_text(lbm, i, row, "scheme") || !same_text(lbm, i, row, "precision") ||
            strcmp(text_or(lbm, i, "boundary", "periodic"), "periodic") ||
            number_at(lbm, i, "nx", -1) != number_at(lbm, row, "nx", -2) ||
            number_at(lbm, i, "ny", -1) != number_at(lbm, row, "ny", -2) || number_at(lbm, i, "nz", -1) != nz_ref)
            continue;
        int score = 2 * !strcmp(text_or(lbm, i, "scaling", "none"), r->scaling) +
                    (number_at(lbm, i, "block_size", -1) == number_at(lbm, row, "block_size", -2));
        double mlups = number_at(lbm, i, "mlups_median", 0);
        if (score > best_score || (score == best_score && mlups > best)) {
            best_score = score;
            best = mlups;
        }
    }
    return best;
}
