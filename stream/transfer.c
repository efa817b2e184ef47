/* Host<->device transfer sweep and its latency/bandwidth fit (transfer.h). */
#include "transfer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

typedef struct {
    lbp_device *d;
    lbp_buf *dev;
    void *host;
    size_t bytes;
} transfer_ctx;

static void run_h2d(void *p)
{
    transfer_ctx *c = p;
    c->d->be->write(c->d, c->dev, 0, c->host, c->bytes);
}

static void run_d2h(void *p)
{
    transfer_ctx *c = p;
    c->d->be->read(c->d, c->dev, 0, c->host, c->bytes);
}

int stream_transfer_reps(int64_t bytes, int fixed, int quick)
{
    if (fixed > 0)
        return fixed;
    int reps = bytes <= (1 << 20) ? 50 : bytes <= (16 << 20) ? 20 : 10;
    return quick ? (reps + 4) / 5 : reps;
}

/* T(s) = latency + s / bandwidth (Calore §4), least squares on the
 * relative error (each residual over the measured time): a size's noise
 * counts by its share of that size's time, so neither the 256 MiB points'
 * jitter (tens of µs) swamps the latency (µs) that the small sizes measure,
 * nor one slow small transfer the bandwidth that the large ones measure
 * (an absolute fit of T/s against 1/s can give a negative 1/bandwidth on
 * such a point).  Minimising
 * sum ((a + b s - T) / T)^2 is linear in a and b: u = 1/T, v = s/T, target
 * 1, no constant term. */
void stream_transfer_fit_points(stream_transfer_fit *f, const double *bytes, const double *ms, int n)
{
    double suu = 0, suv = 0, svv = 0, su = 0, sv = 0, mean = 0;
    f->fit = (lbp_fit){.n = n};
    f->latency_us = f->gbs = NAN;
    for (int i = 0; i < n; i++) {
        if (!(ms[i] > 0) || !(bytes[i] > 0)) return;
        const double u = 1 / ms[i], v = bytes[i] / ms[i];
        suu += u * u, suv += u * v, svv += v * v, su += u, sv += v, mean += ms[i] / n;
    }
    const double det = suu * svv - suv * suv;
    if (n < 2 || !(fabs(det) > 1e-12 * suu * svv)) return;
    const double a = (su * svv - sv * suv) / det, b = (suu * sv - suv * su) / det; /* ms, ms per byte */
    double ss = 0, rel = 0, tot = 0;
    for (int i = 0; i < n; i++) {
        const double r = a + b * bytes[i] - ms[i];
        ss += r * r, rel += (r / ms[i]) * (r / ms[i]), tot += (ms[i] - mean) * (ms[i] - mean);
    }
    f->fit.slope = b;
    f->fit.intercept = a;
    f->fit.rms = sqrt(rel / n);
    f->fit.r2 = tot > 0 ? 1 - ss / tot : 1;
    f->latency_us = a * 1e3;
    if (b > 0) f->gbs = 1e-6 / b;
}

int stream_transfers_open(stream_transfers *t, lbp_device *d, int64_t max_bytes, char *why, size_t why_len)
{
    *t = (stream_transfers){.d = d, .max_bytes = max_bytes, .pinned = -1};
    if (!(t->dev = lbp_alloc(d, (size_t)max_bytes))) {
        snprintf(why, why_len, "no room on the device for a %" PRId64 "-byte transfer buffer", max_bytes);
        return 1;
    }
    return 0;
}

static void free_host(stream_transfers *t)
{
    if (t->pinned < 0) return;
    t->d->be->host_free(t->d, t->src, t->pinned);
    t->d->be->host_free(t->d, t->dst, t->pinned);
    t->pinned = -1;
}

/* Source and destination in this kind of host memory, the source holding
 * odd words (the destination is filled with even bytes before each read). */
static void use_host(stream_transfers *t, int pinned)
{
    if (t->pinned == pinned) return;
    free_host(t);
    t->src = t->d->be->host_alloc(t->d, (size_t)t->max_bytes, pinned);
    t->dst = t->d->be->host_alloc(t->d, (size_t)t->max_bytes, pinned);
    if (!t->src || !t->dst) lbp_fail("out of host memory for two %" PRId64 "-byte transfer buffers", t->max_bytes);
    t->pinned = pinned;
    for (int64_t j = 0; j < t->max_bytes / 4; j++) ((uint32_t *)t->src)[j] = (uint32_t)(2u * (uint32_t)j + 1u);
}

int stream_transfer_measure(stream_transfers *t, int pinned, int64_t bytes, int reps, int quick, lbp_csv *csv,
                            char *why, size_t why_len)
{
    const char *memory = pinned ? "pinned" : "pageable";
    if (bytes > t->max_bytes || t->n[pinned] == STREAM_TRANSFER_SIZES) {
        snprintf(why, why_len, "%s transfer of %" PRId64 " bytes: beyond the %d sizes of %" PRId64 " bytes at most",
                 memory, bytes, STREAM_TRANSFER_SIZES, t->max_bytes);
        return 1;
    }
    use_host(t, pinned);
    const int r = stream_transfer_reps(bytes, reps, quick);
    /* Below 1 MiB the scatter is the latency's noise: warn only when gross. */
    const double scatter_warn = bytes < (1 << 20) ? 2.0 : 0.25;
    lbp_stats st[2];
    memset(t->dst, 0xEE, (size_t)bytes); /* even bytes: never the odd pattern */
    for (int dir = 0; dir < 2; dir++) {
        char what[64];
        transfer_ctx ctx = {t->d, t->dev, dir ? t->dst : t->src, (size_t)bytes};
        snprintf(what, sizeof what, "%s %s %" PRId64 " B", dir ? "d2h" : "h2d", memory, bytes);
        st[dir] = lbp_time_runs(t->d, dir ? run_d2h : run_h2d, &ctx, &(lbp_timing){2, r, scatter_warn, what, 0});
    }
    if (memcmp(t->src, t->dst, (size_t)bytes) != 0) {
        int64_t k = 0;
        while (t->src[k] == t->dst[k]) k++;
        snprintf(why, why_len, "%s transfer of %" PRId64 " bytes: byte %" PRId64 " came back 0x%02x, expected 0x%02x",
                 memory, bytes, k, t->dst[k], t->src[k]);
        return 1;
    }
    const int i = t->n[pinned]++;
    t->bytes[pinned][i] = (double)bytes;
    for (int dir = 0; dir < 2; dir++) {
        t->ms[pinned][dir][i] = st[dir].median;
        lbp_csv_row(csv, "%s,%s,%" PRId64 ",%d,%.6f,%.6f,%.6f,%.3f", dir ? "d2h" : "h2d", memory, bytes, r,
                    st[dir].min, st[dir].median, st[dir].max, (double)bytes / (st[dir].median * 1e-3) / 1e9);
    }
    return 0;
}

void stream_transfers_fit(const stream_transfers *t, stream_transfer_fit fits[STREAM_TRANSFER_FITS])
{
    for (int f = 0; f < STREAM_TRANSFER_FITS; f++) {
        const int pinned = f < 2, dir = f % 2;
        fits[f].direction = dir ? "d2h" : "h2d";
        fits[f].host_memory = pinned ? "pinned" : "pageable";
        stream_transfer_fit_points(&fits[f], t->bytes[pinned], t->ms[pinned][dir], t->n[pinned]);
    }
}

void stream_transfers_close(stream_transfers *t)
{
    free_host(t);
    if (t->dev) lbp_release(t->d, t->dev);
    t->dev = NULL;
}

int stream_transfer_sweep(lbp_device *d, const int64_t *sizes, int n_sizes, int reps, int quick,
                          lbp_csv *csv, stream_transfer_fit fits[STREAM_TRANSFER_FITS],
                          char *why, size_t why_len)
{
    int64_t max_bytes = 0;
    for (int i = 0; i < n_sizes; i++)
        if (sizes[i] > max_bytes) max_bytes = sizes[i];
    stream_transfers t;
    if (stream_transfers_open(&t, d, max_bytes, why, why_len)) return 1;
    int rc = 0;
    for (int pinned = 1; pinned >= 0 && !rc; pinned--)
        for (int i = 0; i < n_sizes && !rc; i++)
            rc = stream_transfer_measure(&t, pinned, sizes[i], reps, quick, csv, why, why_len);
    stream_transfers_fit(&t, fits);
    stream_transfers_close(&t);
    return rc;
}
