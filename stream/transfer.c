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

/* Small transfers are latency-bound and noisy: give them more repetitions. */
static int reps_for(int64_t bytes, int fixed, int quick)
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
 * nor one slow small transfer (13 instead of 10 µs) the bandwidth that the
 * large ones measure (an absolute fit of T/s against 1/s, used before, gave
 * a negative 1/bandwidth on such a point).  Minimising
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

int stream_transfer_sweep(lbp_device *d, const int64_t *sizes, int n_sizes, int reps, int quick,
                          lbp_csv *csv, stream_transfer_fit fits[STREAM_TRANSFER_FITS],
                          char *why, size_t why_len)
{
    if (n_sizes > 64)
        n_sizes = 64;
    int64_t max_bytes = 0;
    for (int i = 0; i < n_sizes; i++)
        if (sizes[i] > max_bytes)
            max_bytes = sizes[i];
    lbp_buf *dev = lbp_alloc(d, (size_t)max_bytes);
    if (!dev) {
        snprintf(why, why_len, "no room on the device for a %" PRId64 "-byte transfer buffer", max_bytes);
        return 1;
    }
    int total = 2 * n_sizes, done = 0;
    double t_start = lbp_now();
    for (int pinned = 1; pinned >= 0; pinned--) {
        const char *memory = pinned ? "pinned" : "pageable";
        uint8_t *src = d->be->host_alloc(d, (size_t)max_bytes, pinned);
        uint8_t *dst = d->be->host_alloc(d, (size_t)max_bytes, pinned);
        for (int64_t j = 0; j < max_bytes / 4; j++)
            ((uint32_t *)src)[j] = (uint32_t)(2u * (uint32_t)j + 1u);
        double bytes[64], ms_h2d[64], ms_d2h[64];
        for (int i = 0; i < n_sizes; i++) {
            int r = reps_for(sizes[i], reps, quick);
            char what[64];
            transfer_ctx ctx = {d, dev, src, (size_t)sizes[i]};
            snprintf(what, sizeof what, "h2d %s %" PRId64 " B", memory, sizes[i]);
            /* Below 1 MiB the scatter is the latency's noise: warn only when gross. */
            double scatter_warn = sizes[i] < (1 << 20) ? 2.0 : 0.25;
            lbp_stats h2d = lbp_time_runs(d, run_h2d, &ctx, &(lbp_timing){2, r, scatter_warn, what, 0});

            memset(dst, 0xEE, (size_t)sizes[i]); /* even bytes: never the odd pattern */
            ctx.host = dst;
            snprintf(what, sizeof what, "d2h %s %" PRId64 " B", memory, sizes[i]);
            lbp_stats d2h = lbp_time_runs(d, run_d2h, &ctx, &(lbp_timing){2, r, scatter_warn, what, 0});

            if (memcmp(src, dst, (size_t)sizes[i]) != 0) {
                int64_t k = 0;
                while (src[k] == dst[k])
                    k++;
                snprintf(why, why_len,
                         "%s transfer of %" PRId64 " bytes: byte %" PRId64 " came back 0x%02x, expected 0x%02x",
                         memory, sizes[i], k, dst[k], src[k]);
                d->be->host_free(d, src, pinned);
                d->be->host_free(d, dst, pinned);
                lbp_release(d, dev);
                return 1;
            }
            const lbp_stats *st[2] = {&h2d, &d2h};
            for (int dir = 0; dir < 2; dir++)
                lbp_csv_row(csv, "%s,%s,%" PRId64 ",%d,%.6f,%.6f,%.6f,%.3f", dir ? "d2h" : "h2d",
                            memory, sizes[i], r, st[dir]->min, st[dir]->median, st[dir]->max,
                            (double)sizes[i] / (st[dir]->median * 1e-3) / 1e9);
            bytes[i] = (double)sizes[i];
            ms_h2d[i] = h2d.median;
            ms_d2h[i] = d2h.median;
            lbp_progress(++done, total, lbp_now() - t_start, "transfer %s %" PRId64 " B", memory, sizes[i]);
        }
        d->be->host_free(d, src, pinned);
        d->be->host_free(d, dst, pinned);
        for (int dir = 0; dir < 2; dir++) {
            stream_transfer_fit *f = &fits[2 * (1 - pinned) + dir];
            f->direction = dir ? "d2h" : "h2d";
            f->host_memory = memory;
            stream_transfer_fit_points(f, bytes, dir ? ms_d2h : ms_h2d, n_sizes);
        }
    }
    lbp_release(d, dev);
    return 0;
}
