/* D3Q27 BGK, pull, double precision.  One block row of 128 threads per
 * lattice row (grid ceil(nx / 128) x ny x nz): threads past the row's end
 * return, so a row of 100 cells leaves a warp of every block idle.
 * Unrolled through an X-macro list, corners first; each population
 * gathered from x - c_i, the upwind coordinates wrapped once per axis.
 *
 * memory order: 0,0,0  1,1,1  1,1,-1  1,-1,1  1,-1,-1  -1,1,1  -1,1,-1  -1,-1,1  -1,-1,-1
 *   1,1,0  1,-1,0  -1,1,0  -1,-1,0  1,0,1  1,0,-1  -1,0,1  -1,0,-1  0,1,1
 *   0,1,-1  0,-1,1  0,-1,-1  1,0,0  -1,0,0  0,1,0  0,-1,0  0,0,1  0,0,-1 */
#if LBM_Q != 27 || !defined(LBM_FP64)
#error "d3q27-pull-rows-fp64.cl: D3Q27 in double precision"
#endif

/* V(i, cx, cy, cz, w) */
#define D3Q27(V) \
    V(0, 0, 0, 0, 8.0 / 27.0) V(1, 1, 1, 1, 1.0 / 216.0) V(2, 1, 1, -1, 1.0 / 216.0) \
    V(3, 1, -1, 1, 1.0 / 216.0) V(4, 1, -1, -1, 1.0 / 216.0) V(5, -1, 1, 1, 1.0 / 216.0) \
    V(6, -1, 1, -1, 1.0 / 216.0) V(7, -1, -1, 1, 1.0 / 216.0) V(8, -1, -1, -1, 1.0 / 216.0) \
    V(9, 1, 1, 0, 1.0 / 54.0) V(10, 1, -1, 0, 1.0 / 54.0) V(11, -1, 1, 0, 1.0 / 54.0) \
    V(12, -1, -1, 0, 1.0 / 54.0) V(13, 1, 0, 1, 1.0 / 54.0) V(14, 1, 0, -1, 1.0 / 54.0) \
    V(15, -1, 0, 1, 1.0 / 54.0) V(16, -1, 0, -1, 1.0 / 54.0) V(17, 0, 1, 1, 1.0 / 54.0) \
    V(18, 0, 1, -1, 1.0 / 54.0) V(19, 0, -1, 1, 1.0 / 54.0) V(20, 0, -1, -1, 1.0 / 54.0) \
    V(21, 1, 0, 0, 2.0 / 27.0) V(22, -1, 0, 0, 2.0 / 27.0) V(23, 0, 1, 0, 2.0 / 27.0) \
    V(24, 0, -1, 0, 2.0 / 27.0) V(25, 0, 0, 1, 2.0 / 27.0) V(26, 0, 0, -1, 2.0 / 27.0)

/* coordinate upwind of a along c, one of the three precomputed */
#define UP(c, minus1, plus1, same) ((c) > 0 ? (minus1) : (c) < 0 ? (plus1) : (same))

KERNEL void lbm_step(GLOBAL const double *src, GLOBAL double *dst, i32 nx, i32 ny, i32 nz, float omega_f)
{
    const i32 x = (i32)global_id(0);
    if (x >= nx) return;
    const i32 y = group_id(1), z = group_id(2);
    const i64 N = (i64)nx * ny * nz, NXY = (i64)nx * ny;
    const i64 x_m = x == 0 ? nx - 1 : x - 1, x_p = x == nx - 1 ? 0 : x + 1;
    const i64 y_m = (y == 0 ? ny - 1 : y - 1) * (i64)nx, y_p = (y == ny - 1 ? 0 : y + 1) * (i64)nx, y_0 = (i64)y * nx;
    const i64 z_m = (z == 0 ? nz - 1 : z - 1) * NXY, z_p = (z == nz - 1 ? 0 : z + 1) * NXY, z_0 = (i64)z * NXY;
    const double omega = omega_f;

#define GATHER(i, cx, cy, cz, w) \
    const double f##i = src[(i64)(i) * N + UP(cx, x_m, x_p, (i64)x) + UP(cy, y_m, y_p, y_0) + UP(cz, z_m, z_p, z_0)];
    D3Q27(GATHER)
    double rho = 0.0, jx = 0.0, jy = 0.0, jz = 0.0;
#define MOMENTS(i, cx, cy, cz, w) rho += f##i; jx += (cx) * f##i; jy += (cy) * f##i; jz += (cz) * f##i;
    D3Q27(MOMENTS)
    const double ux = jx / rho, uy = jy / rho, uz = jz / rho;
    const double usq15 = 1.5 * (ux * ux + uy * uy + uz * uz);
    const i64 n = x + y_0 + z_0;
#define RELAX(i, cx, cy, cz, w) \
    { \
        const double cu = 3.0 * ((cx) * ux + (cy) * uy + (cz) * uz); \
        dst[(i64)(i) * N + n] = f##i - omega * (f##i - (w) * rho * (1.0 + cu + 0.5 * cu * cu - usq15)); \
    }
    D3Q27(RELAX)
}
