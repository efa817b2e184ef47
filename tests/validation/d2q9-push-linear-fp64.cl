/* D2Q9 BGK, push, double precision; one thread per cell over the linear
 * index in blocks of 128, threads past the last cell return.  Velocities
 * and weights from tables; post-collision populations sent to x + c_i,
 * wrapped by a comparison per axis.  nz must be 1 (a flat lattice).
 *
 * memory order: 0,0,0  1,0,0 -1,0,0 0,1,0 0,-1,0  1,1,0 -1,-1,0 -1,1,0 1,-1,0 */
#if LBM_Q != 9 || !defined(LBM_FP64)
#error "d2q9-push-linear-fp64.cl: D2Q9 in double precision"
#endif

#if defined(LBP_CUDA)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

CONSTANT i32 vx[9] = {0, 1, -1, 0, 0, 1, -1, -1, 1};
CONSTANT i32 vy[9] = {0, 0, 0, 1, -1, 1, -1, 1, -1};
CONSTANT double vw[9] = {4.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 9.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0};

KERNEL void lbm_step(GLOBAL const double *f, GLOBAL double *g, i32 nx, i32 ny, i32 nz, float omega_f)
{
    const i64 size = (i64)nx * ny * nz;
    const i64 k = global_id(0);
    if (k >= size) return;
    const i32 x = (i32)(k % nx), y = (i32)(k / nx);
    const double omega = omega_f;
    double fl[9], rho = 0.0, ux = 0.0, uy = 0.0;
    UNROLL
    for (int i = 0; i < 9; i++) {
        fl[i] = f[i * size + k];
        rho += fl[i];
        ux += vx[i] * fl[i];
        uy += vy[i] * fl[i];
    }
    ux /= rho;
    uy /= rho;
    const double u2 = ux * ux + uy * uy;
    UNROLL
    for (int i = 0; i < 9; i++) {
        const double eu = vx[i] * ux + vy[i] * uy;
        const double feq = vw[i] * rho * (1.0 + 3.0 * eu + 4.5 * eu * eu - 1.5 * u2);
        i32 xd = x + vx[i], yd = y + vy[i];
        if (xd == nx) xd = 0;
        if (xd < 0) xd = nx - 1;
        if (yd == ny) yd = 0;
        if (yd < 0) yd = ny - 1;
        g[i * size + xd + (i64)yd * nx] = fl[i] * (1.0 - omega) + feq * omega;
    }
}
