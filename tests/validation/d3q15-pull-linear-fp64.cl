/* D3Q15 BGK, pull, double precision; a 1D launch over the linear cell
 * index in blocks of 128 (idle threads past the last cell).  Tables in
 * constant memory, the streaming source wrapped with a modulo.
 * Populations in the model's order (z, then y, then x from -1 to 1, less
 * the edge velocities, |c|^2 = 2): no order line needed. */
#if LBM_Q != 15 || !defined(LBM_FP64)
#error "d3q15-pull-linear-fp64.cl: D3Q15 in double precision"
#endif

#if defined(LBP_CUDA)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

CONSTANT i32 CX[15] = {-1, 1, 0, -1, 1, 0, -1, 0, 1, 0, -1, 1, 0, -1, 1};
CONSTANT i32 CY[15] = {-1, -1, 0, 1, 1, -1, 0, 0, 0, 1, -1, -1, 0, 1, 1};
CONSTANT i32 CZ[15] = {-1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
CONSTANT double W[15] = {1.0 / 72, 1.0 / 72, 1.0 / 9, 1.0 / 72, 1.0 / 72, 1.0 / 9, 1.0 / 9, 2.0 / 9,
                         1.0 / 9, 1.0 / 9, 1.0 / 72, 1.0 / 72, 1.0 / 9, 1.0 / 72, 1.0 / 72};

KERNEL void lbm_step(GLOBAL const double *a, GLOBAL double *b, i32 nx, i32 ny, i32 nz, float omega_f)
{
    const i64 cells = (i64)nx * ny * nz;
    const i64 id = global_id(0);
    if (id >= cells) return;
    const i64 plane = (i64)nx * ny;
    const i64 z = id / plane, y = (id % plane) / nx, x = id % nx;
    const double om = omega_f;

    double f[15], rho = 0, jx = 0, jy = 0, jz = 0;
    UNROLL
    for (int q = 0; q < 15; q++) {
        const i64 sx = (x - CX[q] + nx) % nx, sy = (y - CY[q] + ny) % ny, sz = (z - CZ[q] + nz) % nz;
        f[q] = a[q * cells + sx + sy * nx + sz * plane];
        rho += f[q];
        jx += CX[q] * f[q];
        jy += CY[q] * f[q];
        jz += CZ[q] * f[q];
    }
    const double ux = jx / rho, uy = jy / rho, uz = jz / rho, uu = ux * ux + uy * uy + uz * uz;
    UNROLL
    for (int q = 0; q < 15; q++) {
        const double cu = CX[q] * ux + CY[q] * uy + CZ[q] * uz;
        const double eq = W[q] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * uu);
        b[q * cells + id] = (1 - om) * f[q] + om * eq;
    }
}
