/* The host reference of LBM kernels the suite did not write (lbmref.h). */
#include "lbmref.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "half.h"

/* w_i by |c_i|^2 for each set (cs^2 = 1/3 in all four). */
static double weight(model_velocities v, int len2)
{
    static const double w[MODEL_VELOCITY_SETS][4] = {
        [MODEL_D2Q9] = {4.0 / 9, 1.0 / 9, 1.0 / 36, 0},
        [MODEL_D3Q15] = {2.0 / 9, 1.0 / 9, 0, 1.0 / 72},
        [MODEL_D3Q19] = {1.0 / 3, 1.0 / 18, 1.0 / 36, 0},
        [MODEL_D3Q27] = {8.0 / 27, 2.0 / 27, 1.0 / 54, 1.0 / 216},
    };
    return w[v][len2];
}

int mb_lbm_set_of(model_velocities v, mb_lbm_set *out)
{
    memset(out, 0, sizeof *out);
    out->set = v;
    out->q = model_velocities_of(v, out->c);
    for (int i = 0; i < out->q; i++) {
        const int *c = out->c[i];
        out->w[i] = weight(v, c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    }
    return out->q;
}

/* The next "x,y,z" at or after *p, past any other characters. */
static int next_triple(const char **p, int c[3])
{
    const char *s = *p;
    while (*s && !(*s == '-' || (*s >= '0' && *s <= '9'))) s++;
    int used = 0;
    if (sscanf(s, "%d , %d , %d%n", &c[0], &c[1], &c[2], &used) != 3) return -1;
    *p = s + used;
    return 0;
}

int mb_lbm_set_order(mb_lbm_set *s, const char *source, char *why, size_t why_len)
{
    const char *p = strstr(source, MB_LBM_ORDER_MARKER);
    if (!p) return 1;
    p += strlen(MB_LBM_ORDER_MARKER);
    mb_lbm_set o = *s;
    int taken[MODEL_MAX_Q] = {0};
    for (int i = 0; i < s->q; i++) {
        int c[3];
        if (next_triple(&p, c)) {
            snprintf(why, why_len, "'" MB_LBM_ORDER_MARKER "' lists %d velocities, %s has %d", i,
                     model_velocities_name(s->set), s->q);
            return -1;
        }
        int j = 0;
        while (j < s->q && memcmp(s->c[j], c, sizeof c)) j++;
        if (j == s->q || taken[j]) {
            snprintf(why, why_len, "'" MB_LBM_ORDER_MARKER "' velocity %d (%d,%d,%d) is %s of %s", i, c[0], c[1], c[2],
                     j == s->q ? "not one" : "a repeat of one", model_velocities_name(s->set));
            return -1;
        }
        taken[j] = 1;
        memcpy(o.c[i], c, sizeof c);
        o.w[i] = s->w[j];
    }
    *s = o;
    return 0;
}

/* A number in [-1, 1) from a hash of (cell, k): splitmix64. */
static double noise(int64_t cell, int k)
{
    uint64_t z = (uint64_t)cell * 64 + (uint64_t)k + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

static void equilibrium(const mb_lbm_set *s, double rho, const double u[3], double *feq)
{
    const double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    for (int i = 0; i < s->q; i++) {
        const double cu = s->c[i][0] * u[0] + s->c[i][1] * u[1] + s->c[i][2] * u[2];
        feq[i] = s->w[i] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * uu);
    }
}

void mb_lbm_init(const mb_lbm_set *s, const mb_lbm_lattice *l, double *f)
{
    const int64_t cells = l->nx * l->ny * l->nz;
    const int two_d = s->set == MODEL_D2Q9;
    for (int64_t cell = 0; cell < cells; cell++) {
        const double rho = 1 + 0.02 * noise(cell, 40);
        const double u[3] = {0.05 * noise(cell, 41), 0.05 * noise(cell, 42), two_d ? 0 : 0.05 * noise(cell, 43)};
        double feq[MODEL_MAX_Q];
        equilibrium(s, rho, u, feq);
        for (int i = 0; i < s->q; i++) f[i * cells + cell] = feq[i] * (1 + 0.03 * noise(cell, i));
    }
}

/* BGK: g relaxed towards its equilibrium. */
static void collide(const mb_lbm_set *s, double omega, double *g)
{
    double rho = 0, m[3] = {0, 0, 0};
    for (int i = 0; i < s->q; i++) {
        rho += g[i];
        for (int d = 0; d < 3; d++) m[d] += s->c[i][d] * g[i];
    }
    const double u[3] = {m[0] / rho, m[1] / rho, m[2] / rho};
    double feq[MODEL_MAX_Q];
    equilibrium(s, rho, u, feq);
    for (int i = 0; i < s->q; i++) g[i] += omega * (feq[i] - g[i]);
}

static long long wrap(long long a, long long n) { return ((a % n) + n) % n; }

/* Cell index of (x, y, z) + sign * c, periodic. */
static int64_t neighbour(const mb_lbm_lattice *l, long long x, long long y, long long z, const int c[3], int sign)
{
    return wrap(x + sign * c[0], l->nx) + l->nx * (wrap(y + sign * c[1], l->ny) + l->ny * wrap(z + sign * c[2], l->nz));
}

void mb_lbm_step(const mb_lbm_set *s, const mb_lbm_lattice *l, mb_lbm_scheme scheme, double omega,
                 const double *src, double *dst)
{
    const int64_t cells = l->nx * l->ny * l->nz;
    for (long long z = 0; z < l->nz; z++)
        for (long long y = 0; y < l->ny; y++)
            for (long long x = 0; x < l->nx; x++) {
                const int64_t cell = x + l->nx * (y + l->ny * z);
                double g[MODEL_MAX_Q];
                for (int i = 0; i < s->q; i++)
                    g[i] = src[i * cells + (scheme == MB_LBM_PULL ? neighbour(l, x, y, z, s->c[i], -1) : cell)];
                collide(s, omega, g);
                for (int i = 0; i < s->q; i++)
                    dst[i * cells + (scheme == MB_LBM_PUSH ? neighbour(l, x, y, z, s->c[i], 1) : cell)] = g[i];
            }
}

void mb_lbm_encode(const mb_lbm_set *s, int word_bytes, int64_t cells, const double *f, void *words)
{
    for (int i = 0; i < s->q; i++)
        for (int64_t c = 0; c < cells; c++) {
            const int64_t k = i * cells + c;
            if (word_bytes == 8) ((double *)words)[k] = f[k];
            else if (word_bytes == 4) ((float *)words)[k] = (float)f[k];
            else ((uint16_t *)words)[k] = lbp_half_from_double((double)(float)((f[k] - s->w[i]) * MB_LBM_FP16S_SCALE));
        }
}

void mb_lbm_decode(const mb_lbm_set *s, int word_bytes, int64_t cells, const void *words, double *f)
{
    for (int i = 0; i < s->q; i++)
        for (int64_t c = 0; c < cells; c++) {
            const int64_t k = i * cells + c;
            if (word_bytes == 8) f[k] = ((const double *)words)[k];
            else if (word_bytes == 4) f[k] = ((const float *)words)[k];
            else f[k] = lbp_half_to_double(((const uint16_t *)words)[k]) / MB_LBM_FP16S_SCALE + s->w[i];
        }
}

void mb_lbm_rest_word(const mb_lbm_set *s, int word_bytes, int i, void *word)
{
    if (word_bytes == 8) *(double *)word = s->w[i];
    else if (word_bytes == 4) *(float *)word = (float)s->w[i];
    else *(uint16_t *)word = 0; /* f_i - w_i = 0 */
}
