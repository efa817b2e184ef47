/* interconnect-fit.csv and interconnect.csv: see interconnect.h. */
#include "interconnect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

const char *const interconnect_beside_names[] = {"none", "copy", NULL};

/* The row's beside: none where the file has no such column (written before
 * the probe timed anything beside its exchanges) */
static int beside_of(const lbp_table *t, int row, interconnect_beside *out, char *err, size_t err_len)
{
    const int c = lbp_table_column(t, "beside");
    const char *text = c < 0 ? "none" : lbp_table_text(t, row, c);
    for (int b = 0; interconnect_beside_names[b]; b++)
        if (!strcmp(text, interconnect_beside_names[b])) {
            *out = (interconnect_beside)b;
            return 0;
        }
    return lbp_error(err, err_len, "%s:%d: expected beside none or copy, got '%s'", t->path, t->line[row], text);
}

/* The row's numbers of the columns names (NULL-ended), in order */
static int numbers_of(const lbp_table *t, int row, const char *const *names, double *out, char *err, size_t err_len)
{
    for (int i = 0; names[i]; i++)
        if (lbp_table_number_by_name(t, row, names[i], &out[i], err, err_len)) return -1;
    return 0;
}

static int fit_row(const lbp_table *t, int row, interconnect_fit *out, char *err, size_t err_len)
{
    static const char *const names[] = {"rank_a", "rank_b", "latency_us", "bandwidth_gbs", "r2", "points", NULL};
    double v[6];
    if (numbers_of(t, row, names, v, err, err_len)) return -1;
    const double a = v[0], b = v[1], lat = v[2], gbs = v[3], r2 = v[4], points = v[5];
    const char *path = lbp_table_text(t, row, lbp_table_column(t, "path"));
    const char *dir = lbp_table_text(t, row, lbp_table_column(t, "direction"));
    int line = t->line[row];
    if (!*path || strlen(path) >= sizeof out->path)
        return lbp_error(err, err_len, "%s:%d: expected a path (host, host-mpi, peer, mpi), got '%s'", t->path, line,
                         path);
    const int ring = !strcmp(dir, "ring");
    if (strcmp(dir, "one-way") && strcmp(dir, "both-ways") && !ring)
        return lbp_error(err, err_len, "%s:%d: expected direction one-way, both-ways or ring, got '%s'", t->path, line,
                         dir);
    if (a < 0 || b < 0 || a != (int)a || b != (int)b || a == b)
        return lbp_error(err, err_len, "%s:%d: expected two different ranks (whole numbers >= 0), got %g and %g",
                         t->path, line, a, b);
    if (ring && a != 0)
        return lbp_error(err, err_len, "%s:%d: expected a ring of ranks 0 .. rank_b (rank_a 0), got rank_a %g", t->path,
                         line, a);
    if (!(gbs > 0)) return lbp_error(err, err_len, "%s:%d: expected bandwidth_gbs > 0, got %g", t->path, line, gbs);
    if (lat < 0) return lbp_error(err, err_len, "%s:%d: expected latency_us >= 0, got %g", t->path, line, lat);
    if (beside_of(t, row, &out->beside, err, err_len)) return -1;
    snprintf(out->path, sizeof out->path, "%s", path);
    out->rank_a = (int)a;
    out->rank_b = (int)b;
    out->both_ways = !strcmp(dir, "both-ways");
    out->ring = ring ? (int)b + 1 : 0;
    out->fitted = (scaling_link){.latency_us = lat, .bandwidth_gbs = gbs};
    /* both-ways moves 2 s for a message of s each way; a ring 4 s for its
     * two neighbours' s each way, i.e. 2 s at a rank's exchange of 2 s */
    out->link = (scaling_link){.latency_us = lat, .bandwidth_gbs = out->both_ways || ring ? gbs / 2 : gbs};
    out->r2 = r2;
    out->points = (int)points;
    out->line = line;
    return 0;
}

/* The fit a probe row belongs to: same path, direction, ranks and beside */
static interconnect_fit *fit_of_point(interconnect_fits *f, const char *path, const char *dir, int a, int b,
                                      interconnect_beside beside)
{
    int ring = !strcmp(dir, "ring"), both = !strcmp(dir, "both-ways");
    for (int i = 0; i < f->n; i++) {
        interconnect_fit *x = &f->fits[i];
        if (strcmp(x->path, path) || !x->ring != !ring || x->both_ways != both || x->beside != beside) continue;
        if ((x->rank_a == a && x->rank_b == b) || (x->rank_a == b && x->rank_b == a)) return x;
    }
    return NULL;
}

/* The row's paired_ratio_median: 0 where the file has no such column or
 * the row leaves it empty (a row alone) */
static int ratio_of(const lbp_table *t, int row, double *out, char *err, size_t err_len)
{
    *out = 0;
    const int c = lbp_table_column(t, "paired_ratio_median");
    if (c < 0 || !*lbp_table_text(t, row, c)) return 0;
    if (lbp_table_number_by_name(t, row, "paired_ratio_median", out, err, err_len)) return -1;
    if (*out > 0) return 0;
    return lbp_error(err, err_len, "%s:%d: expected paired_ratio_median > 0 or empty, got %g", t->path, t->line[row],
                     *out);
}

/* One row of interconnect.csv into its fit's points (a row no fit has,
 * another path's or too few points to fit, is left out) */
static int point_row(interconnect_fits *f, const lbp_table *t, int row, char *err, size_t err_len)
{
    static const char *const names[] = {"rank_a", "rank_b", "bytes", "us_median", NULL};
    double v[4];
    if (numbers_of(t, row, names, v, err, err_len)) return -1;
    const double a = v[0], b = v[1], bytes = v[2], us = v[3];
    const char *path = lbp_table_text(t, row, lbp_table_column(t, "path"));
    const char *dir = lbp_table_text(t, row, lbp_table_column(t, "direction"));
    int line = t->line[row];
    if (strcmp(dir, "one-way") && strcmp(dir, "both-ways") && strcmp(dir, "ring"))
        return lbp_error(err, err_len, "%s:%d: expected direction one-way, both-ways or ring, got '%s'", t->path, line,
                         dir);
    if (!(bytes > 0) || bytes != floor(bytes))
        return lbp_error(err, err_len, "%s:%d: expected bytes a whole number > 0, got %g", t->path, line, bytes);
    if (!(us > 0)) return lbp_error(err, err_len, "%s:%d: expected us_median > 0, got %g", t->path, line, us);
    interconnect_beside beside;
    if (beside_of(t, row, &beside, err, err_len)) return -1;
    interconnect_fit *x = fit_of_point(f, path, dir, (int)a, (int)b, beside);
    if (!x) return 0;
    interconnect_point *grown = realloc(x->measured, (x->n_measured + 1) * sizeof *grown);
    if (!grown) return lbp_error(err, err_len, "out of memory");
    x->measured = grown;
    int at = x->n_measured++;
    for (; at > 0 && x->measured[at - 1].bytes > bytes; at--) x->measured[at] = x->measured[at - 1];
    if (at > 0 && x->measured[at - 1].bytes == bytes)
        return lbp_error(err, err_len, "%s:%d: a second %s %s point of ranks %g-%g at %g bytes%s%s%s", t->path, line,
                         path, dir, a, b, bytes, beside ? " (beside " : "", beside ? interconnect_beside_names[beside] : "",
                         beside ? ")" : "");
    x->measured[at] = (interconnect_point){.bytes = bytes, .us = us};
    return ratio_of(t, row, &x->measured[at].ratio, err, err_len);
}

/* dir/interconnect.csv's points into the fits; none where it is missing */
static int load_points(interconnect_fits *f, const char *dir, char *err, size_t err_len)
{
    static const char *const cols[] = {"path", "rank_a", "rank_b", "direction", "bytes", "us_median", NULL};
    char path[600];
    snprintf(path, sizeof path, "%s/interconnect.csv", dir);
    lbp_table t;
    int r = lbp_table_read_columns(&t, path, cols, err, err_len);
    if (r == LBP_TABLE_MISSING) return LBP_TABLE_OK;
    if (r) return r;
    for (int i = 0; i < t.rows && !r; i++)
        if (point_row(f, &t, i, err, err_len)) r = LBP_TABLE_MALFORMED;
    lbp_table_free(&t);
    return r;
}

int interconnect_load(interconnect_fits *f, const char *dir, char *err, size_t err_len)
{
    static const char *const cols[] = {"path", "rank_a", "rank_b", "direction", "latency_us", "bandwidth_gbs",
                                       "r2", "points", NULL};
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s/interconnect-fit.csv", dir);
    lbp_table t;
    int r = lbp_table_read_columns(&t, f->file, cols, err, err_len);
    if (r) return r;
    if (!t.rows) {
        lbp_table_free(&t);
        lbp_error(err, err_len, "%s: no fits (the interconnect probe wrote none)", f->file);
        return LBP_TABLE_MALFORMED;
    }
    f->fits = calloc(t.rows, sizeof *f->fits);
    for (int i = 0; i < t.rows; i++)
        if (fit_row(&t, i, &f->fits[f->n++], err, err_len)) {
            lbp_table_free(&t);
            interconnect_free(f);
            return LBP_TABLE_MALFORMED;
        }
    lbp_table_free(&t);
    r = load_points(f, dir, err, err_len);
    if (r) interconnect_free(f);
    return r;
}

void interconnect_free(interconnect_fits *f)
{
    for (int i = 0; i < f->n; i++) free(f->fits[i].measured);
    free(f->fits);
    f->fits = NULL;
    f->n = 0;
}

/* The value of p's points (ratio: their ratios, else their medians) at
 * message, log value linear in log size between the two sizes around it;
 * outside them the nearest size's, r->within_measured 0 */
static double points_at(const interconnect_point *p, int n, double message, int ratio, interconnect_reading *r)
{
    *r = (interconnect_reading){.message = message, .lo = p[0].bytes, .hi = p[n - 1].bytes};
    int i = 0;
    while (i + 1 < n && p[i + 1].bytes < message) i++;
    const interconnect_point *lo = &p[i], *hi = i + 1 < n ? &p[i + 1] : &p[i];
    if (message <= p[0].bytes) hi = lo = &p[0];
    else if (message >= p[n - 1].bytes) hi = lo = &p[n - 1];
    else if (lo->bytes == message) hi = lo;
    else if (hi->bytes == message) lo = hi;
    const double vlo = ratio ? lo->ratio : lo->us, vhi = ratio ? hi->ratio : hi->us;
    const double w = hi == lo ? 0 : log(message / lo->bytes) / log(hi->bytes / lo->bytes);
    if (message >= p[0].bytes && message <= p[n - 1].bytes)
        *r = (interconnect_reading){.within_measured = 1, .message = message, .lo = lo->bytes, .hi = hi->bytes};
    return exp(log(vlo) + w * log(vhi / vlo));
}

double interconnect_us(const interconnect_fit *x, double bytes, interconnect_reading *how)
{
    interconnect_reading r = {.message = x->ring ? bytes / 2 : bytes};
    double us = scaling_link_us(x->link, bytes);
    if (x->n_measured > 0) {
        const double at = points_at(x->measured, x->n_measured, r.message, 0, &r);
        if (r.within_measured) us = at;
    }
    if (how) *how = r;
    return us;
}

double interconnect_ratio(const interconnect_fit *x, double bytes, interconnect_reading *how)
{
    interconnect_reading r = {.message = x->ring ? bytes / 2 : bytes};
    int paired = x->n_measured > 0;
    for (int i = 0; i < x->n_measured; i++) paired = paired && x->measured[i].ratio > 0;
    const double ratio = paired ? points_at(x->measured, x->n_measured, r.message, 1, &r) : 0;
    if (how) *how = r;
    return ratio;
}

int interconnect_has_path(const interconnect_fits *f, const char *path)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->fits[i].path, path)) return 1;
    return 0;
}

/* The pair's fit along path measured beside `beside` (interconnect_pair) */
static const interconnect_fit *pair_of(const interconnect_fits *f, const char *path, int a, int b,
                                       interconnect_beside beside)
{
    const interconnect_fit *found = NULL;
    for (int i = 0; i < f->n; i++) {
        const interconnect_fit *x = &f->fits[i];
        if (x->ring || x->beside != beside || strcmp(x->path, path)) continue;
        if (!((x->rank_a == a && x->rank_b == b) || (x->rank_a == b && x->rank_b == a))) continue;
        if (!found || (x->both_ways && !found->both_ways)) found = x;
    }
    return found;
}

const interconnect_fit *interconnect_pair(const interconnect_fits *f, const char *path, int a, int b)
{
    return pair_of(f, path, a, b, INTERCONNECT_ALONE);
}

/* The slowest pair of path at bytes, both-ways where a pair has it */
static const interconnect_fit *slowest_pair(const interconnect_fits *f, const char *path, double bytes,
                                            interconnect_beside beside)
{
    const interconnect_fit *worst = NULL;
    double worst_us = -1;
    for (int i = 0; i < f->n; i++) {
        const interconnect_fit *x = &f->fits[i];
        if (x->ring || x->beside != beside || strcmp(x->path, path)) continue;
        x = pair_of(f, path, x->rank_a, x->rank_b, beside);
        double us = interconnect_us(x, bytes, NULL);
        if (us > worst_us) { worst = x; worst_us = us; }
    }
    return worst;
}

/* The path's ring fit measured on exactly `ranks` ranks, or NULL */
static const interconnect_fit *ring_of(const interconnect_fits *f, const char *path, int ranks,
                                       interconnect_beside beside)
{
    for (int i = 0; i < f->n; i++)
        if (f->fits[i].ring == ranks && f->fits[i].beside == beside && !strcmp(f->fits[i].path, path))
            return &f->fits[i];
    return NULL;
}

const interconnect_fit *interconnect_ring_beside(const interconnect_fits *f, const char *path, int ranks,
                                                 double bytes, interconnect_beside beside, int *missing)
{
    *missing = 0;
    const interconnect_fit *ring = ring_of(f, path, ranks, beside);
    if (ring) return ring;
    const interconnect_fit *stand_in = slowest_pair(f, path, bytes, beside), *worst = NULL;
    if (!stand_in) return NULL;
    int pairs = ranks == 2 ? 1 : ranks; /* two ranks: both faces face the same neighbour */
    double worst_us = -1;
    for (int r = 0; r < pairs && ranks > 1; r++) {
        const interconnect_fit *x = pair_of(f, path, r, (r + 1) % ranks, beside);
        if (!x) { x = stand_in; (*missing)++; }
        double us = interconnect_us(x, bytes, NULL);
        if (us > worst_us) { worst = x; worst_us = us; }
    }
    return worst ? worst : stand_in;
}

const interconnect_fit *interconnect_ring(const interconnect_fits *f, const char *path, int ranks, double bytes,
                                          int *missing)
{
    return interconnect_ring_beside(f, path, ranks, bytes, INTERCONNECT_ALONE, missing);
}

/* A device's name: its uuid, else "index N" (one node's numbering) */
static void device_key(const lbp_table *t, int row, const char *uuid_col, const char *index_col, char *out, size_t len)
{
    const char *uuid = lbp_table_text(t, row, lbp_table_column(t, uuid_col));
    if (*uuid && strcmp(uuid, "unknown")) snprintf(out, len, "uuid %s", uuid);
    else snprintf(out, len, "index %s", lbp_table_text(t, row, lbp_table_column(t, index_col)));
}

int interconnect_devices(const char *dir, int *devices, int *ranks, char *err, size_t err_len)
{
    static const char *const cols[] = {"rank_a", "rank_b", "device_a", "device_b", "uuid_a", "uuid_b", NULL};
    char path[600];
    snprintf(path, sizeof path, "%s/interconnect.csv", dir);
    lbp_table t;
    int r = lbp_table_read_columns(&t, path, cols, err, err_len);
    if (r) return r;
    char (*seen)[96] = calloc(2 * (size_t)t.rows + 1, sizeof *seen);
    int n = 0, top = -1;
    for (int row = 0; row < t.rows && !r; row++)
        for (int side = 0; side < 2; side++) {
            char key[96];
            double rank;
            if (lbp_table_number_by_name(&t, row, side ? "rank_b" : "rank_a", &rank, err, err_len)) {
                r = LBP_TABLE_MALFORMED;
                break;
            }
            if (rank > top) top = (int)rank;
            device_key(&t, row, side ? "uuid_b" : "uuid_a", side ? "device_b" : "device_a", key, sizeof key);
            int known = 0;
            for (int i = 0; i < n && !known; i++) known = !strcmp(seen[i], key);
            if (!known) snprintf(seen[n++], sizeof seen[0], "%s", key);
        }
    if (!r && !t.rows) {
        lbp_error(err, err_len, "%s: no rows", path);
        r = LBP_TABLE_MALFORMED;
    }
    *devices = n;
    *ranks = top + 1;
    free(seen);
    lbp_table_free(&t);
    return r;
}
