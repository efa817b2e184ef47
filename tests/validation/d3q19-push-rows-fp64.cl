/* D3Q19 BGK, push (collide, then stream to x + c_i), double precision.
 * One block row per lattice row: a grid of ceil(nx / block) x ny x nz 1D
 * blocks, so a row narrower than the block leaves warps idle in every
 * block.  Populations unrolled by an X-macro list; periodic neighbours
 * as xp / xm, yp / ym, zp / zm.  SoA, f[i * N + x + nx (y + ny z)].
 *
 * memory order: 0,0,0  1,0,0 -1,0,0 0,1,0 0,-1,0 0,0,1 0,0,-1
 *   1,1,0 -1,1,0 1,-1,0 -1,-1,0  1,0,1 -1,0,1 1,0,-1 -1,0,-1
 *   0,1,1 0,-1,1 0,1,-1 0,-1,-1 */
#if LBM_Q != 19 || !defined(LBM_FP64)
#error "d3q19-push-rows-fp64.cl: D3Q19 in double precision"
#endif

/* V(i, cx, cy, cz, w) */
#define D3Q19_LIST(V)                                                                              \
    V(0, 0, 0, 0, 1.0 / 3.0)                                                                       \
    V(1, 1, 0, 0, 1.0 / 18.0) V(2, -1, 0, 0, 1.0 / 18.0) V(3, 0, 1, 0, 1.0 / 18.0)                 \
    V(4, 0, -1, 0, 1.0 / 18.0) V(5, 0, 0, 1, 1.0 / 18.0) V(6, 0, 0, -1, 1.0 / 18.0)                \
    V(7, 1, 1, 0, 1.0 / 36.0) V(8, -1, 1, 0, 1.0 / 36.0) V(9, 1, -1, 0, 1.0 / 36.0)                \
    V(10, -1, -1, 0, 1.0 / 36.0) V(11, 1, 0, 1, 1.0 / 36.0) V(12, -1, 0, 1, 1.0 / 36.0)            \
    V(13, 1, 0, -1, 1.0 / 36.0) V(14, -1, 0, -1, 1.0 / 36.0) V(15, 0, 1, 1, 1.0 / 36.0)            \
    V(16, 0, -1, 1, 1.0 / 36.0) V(17, 0, 1, -1, 1.0 / 36.0) V(18, 0, -1, -1, 1.0 / 36.0)

#define PICK(c, plus, minus, here) ((c) > 0 ? (plus) : (c) < 0 ? (minus) : (here))

KERNEL void lbm_step(GLOBAL const double *fin, GLOBAL double *fout, i32 nx, i32 ny, i32 nz, float omega_f)
{
    const i32 x = (i32)global_id(0);
    const i32 y = group_id(1), z = group_id(2);
    if (x >= nx) return; /* past the row's end */
    const i64 N = (i64)nx * ny * nz;
    const i64 n = x + (i64)nx * (y + (i64)ny * z);
    const double omega = (double)omega_f;
    const i32 xp = x + 1 == nx ? 0 : x + 1, xm = x == 0 ? nx - 1 : x - 1;
    const i32 yp = y + 1 == ny ? 0 : y + 1, ym = y == 0 ? ny - 1 : y - 1;
    const i32 zp = z + 1 == nz ? 0 : z + 1, zm = z == 0 ? nz - 1 : z - 1;

#define READ(i, cx, cy, cz, w) const double f##i = fin[(i64)(i) * N + n];
    D3Q19_LIST(READ)
    double rho = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
#define SUM(i, cx, cy, cz, w) rho += f##i; mx += (cx) * f##i; my += (cy) * f##i; mz += (cz) * f##i;
    D3Q19_LIST(SUM)
    const double ux = mx / rho, uy = my / rho, uz = mz / rho;
    const double u2 = ux * ux + uy * uy + uz * uz;
#define COLLIDE_PUSH(i, cx, cy, cz, w)                                                               \
    {                                                                                                \
        const double cu = (cx) * ux + (cy) * uy + (cz) * uz;                                         \
        const double feq = (w) * rho * (1.0 + 3.0 * cu + 4.5 * cu * cu - 1.5 * u2);                  \
        const i64 to = PICK(cx, xp, xm, x) + (i64)nx * (PICK(cy, yp, ym, y) + (i64)ny * PICK(cz, zp, zm, z)); \
        fout[(i64)(i) * N + to] = (1.0 - omega) * f##i + omega * feq;                                \
    }
    D3Q19_LIST(COLLIDE_PUSH)
}
