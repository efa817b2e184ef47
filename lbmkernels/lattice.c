/* The D3Q19 lattice on the host: velocity set, layout, equilibrium and BGK
 * collision in double precision, initial states, and the conversions
 * between a scheme's stored state and the canonical populations. */
#include "lbm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int lbm_c[LBM_Q][3] = {
    {0, 0, 0},   {1, 0, 0},  {-1, 0, 0},  {0, 1, 0},  {0, -1, 0}, {0, 0, 1},  {0, 0, -1},
    {1, 1, 0},   {-1, -1, 0}, {1, -1, 0}, {-1, 1, 0}, {1, 0, 1},  {-1, 0, -1}, {1, 0, -1},
    {-1, 0, 1},  {0, 1, 1},  {0, -1, -1}, {0, 1, -1}, {0, -1, 1}};
const int lbm_opp[LBM_Q] = {0, 2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11, 14, 13, 16, 15, 18, 17};
const double lbm_w[LBM_Q] = {1.0 / 3,  1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18, 1.0 / 18,
                             1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36,
                             1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};

const char *const lbm_scheme_names[] = {"push", "pull", "split", "aa", NULL};
const char *const lbm_boundary_names[] = {"periodic", "cavity", NULL};
const char *const lbm_precision_names[] = {"fp32", "fp64", "fp16s", NULL};
const char *const lbm_store_names[] = {"normal", "nontemporal", NULL};

lbm_layout lbm_layout_make(int nx, int ny, int nz, int padding_words, int word_bytes, int skew_bytes)
{
    lbm_layout L = {.nx = nx, .ny = ny, .nz = nz};
    int p = padding_words > 1 ? padding_words : 1;
    L.nxp = (nx + p - 1) / p * p;
    L.cells = (int64_t)nx * ny * nz;
    L.cells_padded = (int64_t)L.nxp * ny * nz;
    L.stride = lbp_skewed_stride(L.cells_padded, word_bytes, skew_bytes);
    return L;
}

void lbm_equilibrium(double rho, const double u[3], double feq[LBM_Q])
{
    double usq = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    for (int i = 0; i < LBM_Q; i++) {
        double cu = lbm_c[i][0] * u[0] + lbm_c[i][1] * u[1] + lbm_c[i][2] * u[2];
        feq[i] = lbm_w[i] * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * usq);
    }
}

void lbm_moments(const double f[LBM_Q], double *rho, double u[3])
{
    double r = 0, j[3] = {0, 0, 0};
    for (int i = 0; i < LBM_Q; i++) {
        r += f[i];
        for (int a = 0; a < 3; a++) j[a] += lbm_c[i][a] * f[i];
    }
    *rho = r;
    for (int a = 0; a < 3; a++) u[a] = j[a] / r;
}

void lbm_collide(double f[LBM_Q], double omega)
{
    double rho, u[3], feq[LBM_Q];
    lbm_moments(f, &rho, u);
    lbm_equilibrium(rho, u, feq);
    for (int i = 0; i < LBM_Q; i++) f[i] += omega * (feq[i] - f[i]);
}

/* Deterministic uniform numbers in [-1, 1) (xorshift), so every scheme and
 * the reference start from the same state. */
static double uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

void lbm_init_state(const lbm_layout *L, double *f, double u0, double noise, unsigned seed)
{
    memset(f, 0, sizeof(double) * (size_t)lbm_words(L));
    uint64_t s = 0x9E3779B97F4A7C15ull ^ seed;
    const double kx = 2 * M_PI / L->nx, ky = 2 * M_PI / L->ny;
    for (int z = 0; z < L->nz; z++)
        for (int y = 0; y < L->ny; y++)
            for (int x = 0; x < L->nx; x++) {
                double u[3] = {u0 * sin(kx * x) * cos(ky * y) + noise * uniform(&s),
                               -u0 * cos(kx * x) * sin(ky * y) + noise * uniform(&s),
                               noise * uniform(&s)};
                double rho = 1.0 - 0.75 * u0 * u0 * (cos(2 * kx * x) + cos(2 * ky * y)) +
                             noise * uniform(&s);
                double feq[LBM_Q];
                lbm_equilibrium(rho, u, feq);
                for (int i = 0; i < LBM_Q; i++)
                    f[lbm_at(L, i, x, y, z)] = feq[i] * (1.0 + noise * uniform(&s));
            }
}

double lbm_mass(const lbm_layout *L, const double *f)
{
    double m = 0;
    for (int64_t k = 0; k < lbm_words(L); k++) m += f[k];
    return m;
}

static int wrap(int v, int n) { return v < 0 ? v + n : v >= n ? v - n : v; }

void lbm_reference_steps(const lbm_layout *L, lbm_boundary b, double omega, double lid_u,
                         double *f, double *f_tmp, int steps)
{
    const int n[3] = {L->nx, L->ny, L->nz};
    for (int t = 0; t < steps; t++) {
        memset(f_tmp, 0, sizeof(double) * (size_t)lbm_words(L));
        for (int z = 0; z < L->nz; z++)
            for (int y = 0; y < L->ny; y++)
                for (int x = 0; x < L->nx; x++) {
                    double g[LBM_Q];
                    for (int i = 0; i < LBM_Q; i++) g[i] = f[lbm_at(L, i, x, y, z)];
                    lbm_collide(g, omega);
                    const int p[3] = {x, y, z};
                    for (int i = 0; i < LBM_Q; i++) {
                        int q[3], inside = 1;
                        for (int a = 0; a < 3; a++) {
                            q[a] = p[a] + lbm_c[i][a];
                            if (q[a] < 0 || q[a] >= n[a]) inside = 0;
                            q[a] = wrap(q[a], n[a]);
                        }
                        if (b == LBM_PERIODIC || inside) {
                            f_tmp[lbm_at(L, i, q[0], q[1], q[2])] = g[i];
                        } else {
                            /* Half-way bounce-back; the lid (z = nz beyond the
                             * top) moves with (lid_u, 0, 0): Ladd's term
                             * 6 w_i rho_w c_i.u_w with rho_w = 1. */
                            double lid = (z + lbm_c[i][2] >= L->nz) ? 6 * lbm_w[i] * lbm_c[i][0] * lid_u : 0;
                            f_tmp[lbm_at(L, lbm_opp[i], x, y, z)] = g[i] - lid;
                        }
                    }
                }
        memcpy(f, f_tmp, sizeof(double) * (size_t)lbm_words(L));
    }
}

/* Split: the slot and cell where the population f_i(x,y,z) is kept, still
 * owing its x shift: slot i at (x - c_ix, y, z), or, when that lies beyond an
 * x wall of the cavity, slot opp(i) at the cell itself (d3q19.cl). */
static int64_t split_slot(const lbm_layout *L, lbm_boundary b, int i, int x, int y, int z)
{
    int xs = x - lbm_c[i][0];
    if (xs >= 0 && xs < L->nx) return lbm_at(L, i, xs, y, z);
    if (b == LBM_PERIODIC) return lbm_at(L, i, wrap(xs, L->nx), y, z);
    return lbm_at(L, lbm_opp[i], x, y, z);
}

void lbm_to_scheme(const lbm_layout *L, lbm_scheme s, lbm_boundary b, double omega,
                   const double *f, double *stored)
{
    size_t bytes = sizeof(double) * (size_t)lbm_words(L);
    if (s == LBM_SCHEME_PUSH || s == LBM_SCHEME_AA) {
        memcpy(stored, f, bytes);
        return;
    }
    memset(stored, 0, bytes);
    for (int z = 0; z < L->nz; z++)
        for (int y = 0; y < L->ny; y++)
            for (int x = 0; x < L->nx; x++) {
                double g[LBM_Q];
                for (int i = 0; i < LBM_Q; i++) g[i] = f[lbm_at(L, i, x, y, z)];
                if (s == LBM_SCHEME_PULL) {
                    lbm_collide(g, omega);
                    for (int i = 0; i < LBM_Q; i++) stored[lbm_at(L, i, x, y, z)] = g[i];
                } else {
                    for (int i = 0; i < LBM_Q; i++) stored[split_slot(L, b, i, x, y, z)] = g[i];
                }
            }
}

void lbm_from_scheme(const lbm_layout *L, lbm_scheme s, lbm_boundary b, const double *stored,
                     double *f)
{
    size_t bytes = sizeof(double) * (size_t)lbm_words(L);
    if (s != LBM_SCHEME_SPLIT) {
        memcpy(f, stored, bytes);
        return;
    }
    memset(f, 0, bytes);
    for (int z = 0; z < L->nz; z++)
        for (int y = 0; y < L->ny; y++)
            for (int x = 0; x < L->nx; x++)
                for (int i = 0; i < LBM_Q; i++)
                    f[lbm_at(L, i, x, y, z)] = stored[split_slot(L, b, i, x, y, z)];
}
