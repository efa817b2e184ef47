/* The probes measured again at the end of a run: see drift.h. */
#include "drift.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs.h"
#include "stats.h"
#include "table.h"

/* One threads-sweep row's key and time; 1 when the row is one (the threads
 * sweep, neither in place nor swapped), 0 when not, -1 on a bad field. */
static int read_row(const lbp_table *t, int r, model_drift_row *out, char *err, size_t err_len)
{
    if (strcmp(lbp_table_text(t, r, lbp_table_column(t, "sweep")), "threads")) return 0;
    static const char *const optional[] = {"in_place", "swapped"};
    for (int i = 0; i < 2; i++) {
        double v = 0;
        int c = lbp_table_column(t, optional[i]);
        if (c >= 0 && lbp_table_number(t, r, c, &v, err, err_len)) return -1;
        if (v != 0) return 0;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->backend, sizeof out->backend, "%s", lbp_table_text(t, r, lbp_table_column(t, "backend")));
    struct { const char *name; int *dst; int needed; } ints[] = {
        {"word_bytes", &out->word_bytes, 1}, {"misaligned_reads", &out->misaligned_reads, 1},
        {"misaligned_writes", &out->misaligned_writes, 1}, {"block_size", &out->block_size, 1},
        {"ops", &out->ops, 0}, {"blocks_per_cu_requested", &out->blocks_requested, 0}};
    /* whole numbers an int holds (-1: not known) */
    static const model_range small_int = {.lo = -1, .hi = 1 << 24, .whole = 1};
    static const model_range threads = {.lo = 0, .hi = 1e13, .lo_open = 1, .whole = 1};
    static const model_range ms = {.lo = 0, .hi = 1e9, .lo_open = 1};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        double v = 0;
        if ((ints[i].needed || lbp_table_column(t, ints[i].name) >= 0) &&
            model_number_in(t, r, ints[i].name, small_int, &v, err, err_len))
            return -1;
        *ints[i].dst = (int)v;
    }
    if (model_number_in(t, r, "threads", threads, &out->threads, err, err_len) ||
        model_number_in(t, r, "ms_median", ms, &out->first_ms, err, err_len))
        return -1;
    if (out->threads <= 0 || out->first_ms <= 0)
        return lbp_error(err, err_len, "%s:%d: expected positive threads and ms_median", t->path, t->line[r]);
    return 1;
}

static int same_probe(const model_drift_row *a, const model_drift_row *b)
{
    return !strcmp(a->backend, b->backend) && a->word_bytes == b->word_bytes &&
           a->misaligned_reads == b->misaligned_reads && a->misaligned_writes == b->misaligned_writes &&
           a->ops == b->ops && a->block_size == b->block_size && a->blocks_requested == b->blocks_requested &&
           a->threads == b->threads;
}

static int open_membench(lbp_table *t, const char *dir, const char *name, char *err, size_t err_len)
{
    static const char *const cols[] = {"device", "backend", "sweep", "word_bytes", "misaligned_reads",
                                       "misaligned_writes", "block_size", "threads", "ms_median", NULL};
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int r = lbp_table_read_columns(t, path, cols, err, err_len);
    if (r == LBP_TABLE_MISSING)
        return lbp_error(err, err_len, "%s: missing (expected %s)", path,
                    strcmp(name, "membench.csv") ? "the probes make bench measures again after the kernels: membench "
                                                   "--sweeps threads --thread-counts, as core/bench.sh runs it"
                                                 : "the membench tool's probe sweeps");
    return r == LBP_TABLE_OK ? 0 : -1;
}

/* Why no recheck row found its partner. */
static void no_match(const lbp_table *first, const lbp_table *again, int recheck_rows, char *err, size_t err_len)
{
    if (recheck_rows)
        lbp_error(err, err_len, "%s: none of its %d threads-sweep rows matches one of %s (same backend, word size, L, "
                  "M, payload, block size, blocks per SM and thread count expected)", again->path, recheck_rows,
                  first->path);
    else
        lbp_error(err, err_len, "%s: no threads-sweep rows (expected membench --sweeps threads)", again->path);
}

int model_drift_match(const char *dir, model_drift_row **rows, int *unmatched, char *device, size_t device_len,
                      char *err, size_t err_len)
{
    lbp_table first, again;
    *rows = NULL;
    *unmatched = 0;
    if (open_membench(&first, dir, "membench.csv", err, err_len)) return -1;
    if (open_membench(&again, dir, "membench-recheck.csv", err, err_len)) {
        lbp_table_free(&first);
        return -1;
    }
    int n = 0, n_first = 0, recheck_rows = 0;
    model_drift_row *out = calloc((size_t)again.rows + 1, sizeof *out),
                    *firsts = calloc((size_t)first.rows + 1, sizeof *firsts);
    if (!out || !firsts) {
        lbp_error(err, err_len, "%s: out of memory", again.path);
        goto bad;
    }
    for (int r = 0; r < first.rows; r++) {
        int k = read_row(&first, r, &firsts[n_first], err, err_len);
        if (k < 0) goto bad;
        n_first += k;
    }
    for (int r = 0; r < again.rows; r++) {
        model_drift_row a;
        int k = read_row(&again, r, &a, err, err_len);
        if (k < 0) goto bad;
        if (!k) continue;
        recheck_rows++;
        const model_drift_row *f = NULL;
        for (int i = 0; i < n_first && !f; i++)
            if (same_probe(&a, &firsts[i])) f = &firsts[i];
        if (!f) {
            (*unmatched)++;
            continue;
        }
        a.recheck_ms = a.first_ms;
        a.first_ms = f->first_ms;
        a.change_pct = 100 * (a.recheck_ms / a.first_ms - 1);
        out[n++] = a;
        if (device && n == 1)
            snprintf(device, device_len, "%s", lbp_table_text(&again, r, lbp_table_column(&again, "device")));
    }
    if (!n) {
        no_match(&first, &again, recheck_rows, err, err_len);
        goto bad;
    }
    free(firsts);
    lbp_table_free(&first);
    lbp_table_free(&again);
    *rows = out;
    return n;
bad:
    free(out);
    free(firsts);
    lbp_table_free(&first);
    lbp_table_free(&again);
    return -1;
}

void model_drift_print(const model_drift_row *rows, int n)
{
    printf("probes measured again after the kernels, change from the first run (drift):\n");
    double *abs_changes = malloc(sizeof *abs_changes * (size_t)(n + 1)), *changes = malloc(sizeof *changes * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(rows[j].backend, rows[i].backend);
        if (seen) continue;
        int m = 0, worst = i, variants = 0;
        for (int j = i; j < n; j++) {
            if (strcmp(rows[j].backend, rows[i].backend)) continue;
            variants += rows[j].misaligned_reads || rows[j].misaligned_writes || rows[j].ops;
            changes[m] = rows[j].change_pct;
            abs_changes[m++] = fabs(rows[j].change_pct);
            if (fabs(rows[j].change_pct) > fabs(rows[worst].change_pct)) worst = j;
        }
        lbp_stats s = lbp_stats_of(changes, m), a = lbp_stats_of(abs_changes, m);
        const model_drift_row *w = &rows[worst];
        char what[96];
        int len = snprintf(what, sizeof what, "%d B", w->word_bytes);
        if (w->misaligned_reads) len += snprintf(what + len, sizeof what - (size_t)len, ", L=%d", w->misaligned_reads);
        if (w->misaligned_writes) len += snprintf(what + len, sizeof what - (size_t)len, ", M=%d", w->misaligned_writes);
        if (w->ops) len += snprintf(what + len, sizeof what - (size_t)len, ", payload");
        if (w->blocks_requested) snprintf(what + len, sizeof what - (size_t)len, ", %d blocks/SM", w->blocks_requested);
        /* a QUICK run measures the aligned probe alone again: said, as its
         * drift leaves out what misalignment and arithmetic moved */
        printf("  %-7s %3d probes: median %+.1f %%, median |change| %.1f %%, largest %+.1f %% at %.0f threads (%s)%s\n",
               rows[i].backend, m, s.median, a.median, w->change_pct, w->threads, what,
               variants ? "" : "; the aligned probe alone (no payload, L or M variants measured again)");
    }
    free(abs_changes);
    free(changes);
}

double model_drift_median_abs(const model_drift_row *rows, int n, const char *backend)
{
    double *abs_changes = malloc(sizeof *abs_changes * (size_t)(n + 1));
    int m = 0;
    for (int i = 0; abs_changes && i < n; i++)
        if (!strcmp(rows[i].backend, backend)) abs_changes[m++] = fabs(rows[i].change_pct);
    const double median = m ? lbp_stats_of(abs_changes, m).median : -1;
    free(abs_changes);
    return median;
}
