#include "interp.h"

#include <math.h>
#include <stdlib.h>

static int by_x(const void *a, const void *b)
{
    double d = ((const model_point *)a)->x - ((const model_point *)b)->x;
    return (d > 0) - (d < 0);
}

int model_points_prepare(model_point *p, int n)
{
    if (n <= 0) return 0;
    qsort(p, n, sizeof *p, by_x);
    int out = 0;
    for (int i = 0; i < n;) {
        int j = i;
        double sum = 0;
        while (j < n && p[j].x == p[i].x) sum += p[j++].y;
        p[out].x = p[i].x;
        p[out].y = sum / (j - i);
        out++;
        i = j;
    }
    return out;
}

static double median3(double a, double b, double c)
{
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

void model_points_median3(model_point *p, int n)
{
    if (n < 3) return;
    double prev = p[0].y;
    for (int i = 1; i < n - 1; i++) {
        double here = p[i].y;
        p[i].y = median3(prev, here, p[i + 1].y);
        prev = here;
    }
}

double model_interp(const model_point *p, int n, double x, int *clamped)
{
    double tol = 1e-9 * fmax(fabs(p[0].x), fabs(p[n - 1].x));
    if (x <= p[0].x) {
        if (x < p[0].x - tol) *clamped = 1;
        return p[0].y;
    }
    if (x >= p[n - 1].x) {
        if (x > p[n - 1].x + tol) *clamped = 1;
        return p[n - 1].y;
    }
    int i = 1;
    while (p[i].x < x) i++;
    double f = (x - p[i - 1].x) / (p[i].x - p[i - 1].x);
    return p[i - 1].y + f * (p[i].y - p[i - 1].y);
}
