/* Timing statistics and least-squares fits. */
#include "stats.h"
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of a sorted array. */
static double quantile(const double *s, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return s[n - 1];
    return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

lbp_stats lbp_stats_of(double *samples, int n)
{
    lbp_stats s = {0};
    if (n <= 0) return s;
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    s.n = n;
    s.min = samples[0];
    s.max = samples[n - 1];
    s.median = quantile(samples, n, 0.5);
    s.q1 = quantile(samples, n, 0.25);
    s.q3 = quantile(samples, n, 0.75);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += samples[i];
    s.mean = sum / n;
    return s;
}

double lbp_scatter(const lbp_stats *s)
{
    return s->median > 0 ? (s->max - s->min) / s->median : 0.0;
}

double lbp_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Is one run, timed on the host over the last warm-up, a CPU's long one
 * (LBP_CPU_LONG_RUN_MS and more)?  Its jitter is the host's: threads
 * descheduled for a few ms by a neighbour or the hypervisor, which a
 * long run averages over and which a retry meets again; so a few
 * repetitions give as good a median as many, and scatter is reported, not
 * chased (where nearly every set scatters by 5 %, retries only multiply the
 * run's length). */
static int warm_up(lbp_device *d, void (*run)(void *ctx), void *ctx, int warmup)
{
    double last_ms = 0;
    for (int i = 0; i < warmup; i++) {
        const double t0 = lbp_now();
        run(ctx);
        lbp_sync(d);
        last_ms = 1e3 * (lbp_now() - t0);
    }
    lbp_sync(d);
    return lbp_is_cpu(&d->info) && warmup > 0 && last_ms >= LBP_CPU_LONG_RUN_MS;
}

lbp_stats lbp_time_runs(lbp_device *d, void (*run)(void *ctx), void *ctx, const lbp_timing *t)
{
    const int long_runs = warm_up(d, run, ctx, t->warmup);
    int reps = t->reps > 0 ? t->reps : 1;
    if (long_runs && reps > LBP_CPU_LONG_RUN_REPS) reps = LBP_CPU_LONG_RUN_REPS;
    const int retries = long_runs ? 0 : t->retries > 0 ? t->retries : 0;
    double *ms = malloc(sizeof *ms * (size_t)reps);
    if (!ms) lbp_fail("out of host memory for %d timings", reps);
    double limit = t->scatter_warn > 0 ? t->scatter_warn : 0.05;
    lbp_stats s = {0};
    for (int attempt = 0; attempt <= retries; attempt++) {
        for (int i = 0; i < reps; i++) {
            d->be->timer_start(d);
            run(ctx);
            ms[i] = d->be->timer_stop_ms(d);
        }
        lbp_stats a = lbp_stats_of(ms, reps);
        if (reps < 3 || lbp_scatter(&a) <= limit) { /* a clean set: taken */
            s = a;
            break;
        }
        if (!attempt || a.median < s.median) s = a;
    }
    free(ms);
    const char *what = t->what ? t->what : "measurement";
    double ticks = d->info.timer_resolution_ns > 0 ? s.median * 1e6 / d->info.timer_resolution_ns : 1e9;
    if (ticks < 20)
        lbp_warn("%s: %.4f ms is only %.0f ticks of the %.0f ns device timer", what, s.median, ticks,
                 d->info.timer_resolution_ns);
    if (reps >= 3 && lbp_scatter(&s) > limit)
        lbp_warn("%s: repetitions scatter by %.1f %% (min %.4f, median %.4f, max %.4f ms)", what,
                 100 * lbp_scatter(&s), s.min, s.median, s.max);
    return s;
}

lbp_fit lbp_fit_line(const double *x, const double *y, int n)
{
    lbp_fit f = {0};
    f.n = n;
    if (n < 2) {
        f.intercept = n ? y[0] : 0;
        return f;
    }
    double sx = 0, sy = 0;
    for (int i = 0; i < n; i++) sx += x[i], sy += y[i];
    double mx = sx / n, my = sy / n, sxx = 0, sxy = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    f.slope = sxx > 0 ? sxy / sxx : 0;
    f.intercept = my - f.slope * mx;
    double ss = 0;
    for (int i = 0; i < n; i++) {
        double r = y[i] - (f.slope * x[i] + f.intercept);
        ss += r * r;
    }
    f.rms = sqrt(ss / n);
    f.r2 = syy > 0 ? 1.0 - ss / syy : 1.0;
    return f;
}

int lbp_fit_slope_clear(const lbp_fit *f)
{
    if (!(f->slope > 0)) return 0;
    if (f->n < 3 || f->r2 >= 1) return 1;
    if (!(f->r2 > 0)) return 0;
    return f->r2 * (f->n - 2) / (1 - f->r2) >= 4; /* t >= 2 */
}
