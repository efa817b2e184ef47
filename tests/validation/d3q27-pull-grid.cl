/* D3Q27 BGK, pull, single precision, a 3D grid of 32x4x2 blocks (threads
 * outside the box return).  No tables: population q is the velocity
 * (q % 3 - 1, q / 3 % 3 - 1, q / 9 - 1), x fastest -- the model's order,
 * so no order line -- and its weight follows from |c|^2. */
#if LBM_Q != 27 || !defined(LBM_FP32)
#error "d3q27-pull-grid.cl: D3Q27 in single precision"
#endif

#if defined(LBP_CUDA)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

INLINE float d3q27_weight(int c2) { return c2 == 0 ? 8.0f / 27.0f : c2 == 1 ? 2.0f / 27.0f : c2 == 2 ? 1.0f / 54.0f : 1.0f / 216.0f; }

INLINE i32 wrap(i32 a, i32 n) { return a < 0 ? a + n : a >= n ? a - n : a; }

KERNEL void lbm_step(GLOBAL const float *f_in, GLOBAL float *f_out, i32 nx, i32 ny, i32 nz, float omega)
{
    const i32 x = (i32)global_id(0), y = (i32)global_id(1), z = (i32)global_id(2);
    if (x >= nx || y >= ny || z >= nz) return;
    const i64 N = (i64)nx * ny * nz;

    float f[27];
    float rho = 0.0f, mx = 0.0f, my = 0.0f, mz = 0.0f;
    UNROLL
    for (int q = 0; q < 27; q++) {
        const i32 cx = q % 3 - 1, cy = q / 3 % 3 - 1, cz = q / 9 - 1;
        const i64 from = wrap(x - cx, nx) + (i64)nx * (wrap(y - cy, ny) + (i64)ny * wrap(z - cz, nz));
        f[q] = f_in[q * N + from];
        rho += f[q];
        mx += (float)cx * f[q];
        my += (float)cy * f[q];
        mz += (float)cz * f[q];
    }
    const float ux = mx / rho, uy = my / rho, uz = mz / rho;
    const float usq = ux * ux + uy * uy + uz * uz;
    const i64 here = x + (i64)nx * (y + (i64)ny * z);
    UNROLL
    for (int q = 0; q < 27; q++) {
        const i32 cx = q % 3 - 1, cy = q / 3 % 3 - 1, cz = q / 9 - 1;
        const float cu = cx * ux + cy * uy + cz * uz;
        const float feq = d3q27_weight(cx * cx + cy * cy + cz * cz) * rho * (1.0f + 3.0f * cu + 4.5f * cu * cu - 1.5f * usq);
        f_out[q * N + here] = (1.0f - omega) * f[q] + omega * feq;
    }
}
