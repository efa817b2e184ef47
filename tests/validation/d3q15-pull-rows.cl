/* D3Q15 BGK, pull, single precision.  Launched one block row per lattice
 * row (blocks of 128 threads, rounded up: threads at x >= nx return).
 * Each population gathered from its upwind neighbour with explicit
 * periodic index arithmetic; SoA, x fastest.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0 0,1,0 0,-1,0 0,0,1 0,0,-1
 *   1,1,1 -1,-1,-1 1,1,-1 -1,-1,1 1,-1,1 -1,1,-1 -1,1,1 1,-1,-1 */
#if LBM_Q != 15 || !defined(LBM_FP32)
#error "d3q15-pull-rows.cl: D3Q15 in single precision"
#endif

#define W0 (2.0f / 9.0f)
#define W1 (1.0f / 9.0f)
#define W3 (1.0f / 72.0f)

KERNEL void lbm_step(GLOBAL const float *f_old, GLOBAL float *f_new, i32 nx, i32 ny, i32 nz, float omega)
{
    const i32 x = (i32)(group_id(0) * local_size(0) + local_id(0));
    if (x >= nx) return;
    const i32 y = group_id(1), z = group_id(2);
    const i64 N = (i64)nx * ny * nz;
    /* upwind coordinates: x - c for c = +1 is xm, for c = -1 xp */
    const i64 xm = x > 0 ? x - 1 : nx - 1, xp = x < nx - 1 ? x + 1 : 0;
    const i64 ym = (y > 0 ? y - 1 : ny - 1) * (i64)nx, yp = (y < ny - 1 ? y + 1 : 0) * (i64)nx, y0 = (i64)y * nx;
    const i64 zm = (z > 0 ? z - 1 : nz - 1) * (i64)nx * ny, zp = (z < nz - 1 ? z + 1 : 0) * (i64)nx * ny,
              z0 = (i64)z * nx * ny;

    const float f0 = f_old[0 * N + x + y0 + z0];
    const float f1 = f_old[1 * N + xm + y0 + z0];
    const float f2 = f_old[2 * N + xp + y0 + z0];
    const float f3 = f_old[3 * N + x + ym + z0];
    const float f4 = f_old[4 * N + x + yp + z0];
    const float f5 = f_old[5 * N + x + y0 + zm];
    const float f6 = f_old[6 * N + x + y0 + zp];
    const float f7 = f_old[7 * N + xm + ym + zm];
    const float f8 = f_old[8 * N + xp + yp + zp];
    const float f9 = f_old[9 * N + xm + ym + zp];
    const float f10 = f_old[10 * N + xp + yp + zm];
    const float f11 = f_old[11 * N + xm + yp + zm];
    const float f12 = f_old[12 * N + xp + ym + zp];
    const float f13 = f_old[13 * N + xp + ym + zm];
    const float f14 = f_old[14 * N + xm + yp + zp];

    const float rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8 + f9 + f10 + f11 + f12 + f13 + f14;
    const float ux = (f1 - f2 + f7 - f8 + f9 - f10 + f11 - f12 - f13 + f14) / rho;
    const float uy = (f3 - f4 + f7 - f8 + f9 - f10 - f11 + f12 + f13 - f14) / rho;
    const float uz = (f5 - f6 + f7 - f8 - f9 + f10 + f11 - f12 + f13 - f14) / rho;
    const float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
    const i64 n = x + y0 + z0;

#define RELAX(i, w, cu)                                                                   \
    {                                                                                     \
        const float e = (cu);                                                             \
        f_new[(i) * N + n] = f##i + omega * ((w) * rho * (1.0f + 3.0f * e + 4.5f * e * e - u2) - f##i); \
    }
    RELAX(0, W0, 0.0f)
    RELAX(1, W1, ux) RELAX(2, W1, -ux) RELAX(3, W1, uy) RELAX(4, W1, -uy) RELAX(5, W1, uz) RELAX(6, W1, -uz)
    RELAX(7, W3, ux + uy + uz) RELAX(8, W3, -ux - uy - uz)
    RELAX(9, W3, ux + uy - uz) RELAX(10, W3, -ux - uy + uz)
    RELAX(11, W3, ux - uy + uz) RELAX(12, W3, -ux + uy - uz)
    RELAX(13, W3, -ux + uy + uz) RELAX(14, W3, ux - uy - uz)
}
