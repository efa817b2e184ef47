/* D3Q19 BGK, pull (stream then collide), one thread per cell over a linear
 * index in 1D blocks; threads past the last cell return.  Structure of
 * arrays: f[i * N + n], n = x + nx (y + ny z).  Periodic box.
 * Written as a textbook GPU code: velocity and weight tables, loops the
 * compiler unrolls, the neighbour's coordinates wrapped one by one.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0  0,1,0 0,-1,0  0,0,1 0,0,-1
 *   1,1,0 -1,-1,0  1,0,1 -1,0,-1  0,1,1 0,-1,-1  1,-1,0 -1,1,0
 *   1,0,-1 -1,0,1  0,1,-1 0,-1,1 */
#if LBM_Q != 19
#error "d3q19-pull-linear.cl is a D3Q19 kernel"
#endif
#if !defined(LBM_FP32)
#error "d3q19-pull-linear.cl is written in single precision"
#endif

#if defined(LBP_CUDA)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

CONSTANT int ex[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0};
CONSTANT int ey[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 1, -1};
CONSTANT int ez[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, -1, 1, -1, 1};
CONSTANT float wt[19] = {1.f / 3,  1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18, 1.f / 18,
                         1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36,
                         1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36, 1.f / 36};

KERNEL void lbm_step(GLOBAL const float *fsrc, GLOBAL float *fdst, i32 nx, i32 ny, i32 nz, float omega)
{
    const i64 N = (i64)nx * ny * nz;
    const i64 n = global_id(0);
    if (n >= N) return; /* the last block's idle threads */
    const i32 x = (i32)(n % nx), y = (i32)((n / nx) % ny), z = (i32)(n / ((i64)nx * ny));

    float f[19];
    UNROLL
    for (int i = 0; i < 19; i++) {
        /* pull: population i arrives from x - e_i */
        i32 xs = x - ex[i], ys = y - ey[i], zs = z - ez[i];
        if (xs < 0) xs += nx; else if (xs >= nx) xs -= nx;
        if (ys < 0) ys += ny; else if (ys >= ny) ys -= ny;
        if (zs < 0) zs += nz; else if (zs >= nz) zs -= nz;
        f[i] = fsrc[(i64)i * N + xs + (i64)nx * (ys + (i64)ny * zs)];
    }

    float rho = 0.f, jx = 0.f, jy = 0.f, jz = 0.f;
    UNROLL
    for (int i = 0; i < 19; i++) {
        rho += f[i];
        jx += ex[i] * f[i];
        jy += ey[i] * f[i];
        jz += ez[i] * f[i];
    }
    const float ux = jx / rho, uy = jy / rho, uz = jz / rho;
    const float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
    UNROLL
    for (int i = 0; i < 19; i++) {
        const float eu = 3.f * (ex[i] * ux + ey[i] * uy + ez[i] * uz);
        const float feq = wt[i] * rho * (1.f + eu + 0.5f * eu * eu - usq);
        fdst[(i64)i * N + n] = f[i] - omega * (f[i] - feq);
    }
}
