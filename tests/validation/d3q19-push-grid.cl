/* D3Q19 BGK, push, single precision: each thread collides its own cell and
 * scatters the post-collision populations to x + c_i (modulo the box).
 * A 3D grid of 16x4x4 blocks; threads past the box's edges return.
 * Velocity set in the order of Krueger et al.'s book (rest, then the six
 * faces, then the twelve edges as opposite pairs).
 *
 * memory order: 0,0,0  1,0,0 -1,0,0 0,1,0 0,-1,0 0,0,1 0,0,-1
 *   1,1,0 -1,-1,0 1,0,1 -1,0,-1 0,1,1 0,-1,-1 1,-1,0 -1,1,0
 *   1,0,-1 -1,0,1 0,1,-1 0,-1,1 */
#if LBM_Q != 19 || !defined(LBM_FP32)
#error "d3q19-push-grid.cl: D3Q19 in single precision"
#endif

#if defined(LBP_CUDA)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

CONSTANT i32 cxs[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0};
CONSTANT i32 cys[19] = {0, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 1, -1};
CONSTANT i32 czs[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, -1, 1, -1, 1};

INLINE float weight(int i) { return i == 0 ? 1.0f / 3.0f : i < 7 ? 1.0f / 18.0f : 1.0f / 36.0f; }

KERNEL void lbm_step(GLOBAL const float *src, GLOBAL float *dst, i32 nx, i32 ny, i32 nz, float omega)
{
    const i32 x = (i32)global_id(0), y = (i32)global_id(1), z = (i32)global_id(2);
    if (x >= nx || y >= ny || z >= nz) return;
    const i64 cells = (i64)nx * ny * nz;
    const i64 idx = x + (i64)nx * y + (i64)nx * ny * z;

    float f[19];
    float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
    UNROLL
    for (int i = 0; i < 19; i++) {
        f[i] = src[i * cells + idx];
        rho += f[i];
        ux += cxs[i] * f[i];
        uy += cys[i] * f[i];
        uz += czs[i] * f[i];
    }
    const float inv = 1.0f / rho;
    ux *= inv; uy *= inv; uz *= inv;
    const float sq = 1.0f - 1.5f * (ux * ux + uy * uy + uz * uz);
    UNROLL
    for (int i = 0; i < 19; i++) {
        const float cu = cxs[i] * ux + cys[i] * uy + czs[i] * uz;
        const float feq = weight(i) * rho * (sq + cu * (3.0f + 4.5f * cu));
        const i32 xn = (x + cxs[i] + nx) % nx, yn = (y + cys[i] + ny) % ny, zn = (z + czs[i] + nz) % nz;
        dst[i * cells + xn + (i64)nx * yn + (i64)nx * ny * zn] = f[i] + omega * (feq - f[i]);
    }
}
