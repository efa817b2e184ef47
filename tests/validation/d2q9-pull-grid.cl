/* D2Q9 BGK, pull, single precision: the classic 2D code with the nine
 * populations written out (rest, E, N, W, S, NE, NW, SW, SE), a 2D grid of
 * 32x8 blocks over a flat lattice (nz = 1); threads past the edges return.
 *
 * memory order: 0,0,0  1,0,0 0,1,0 -1,0,0 0,-1,0  1,1,0 -1,1,0 -1,-1,0 1,-1,0 */
#if LBM_Q != 9 || !defined(LBM_FP32)
#error "d2q9-pull-grid.cl: D2Q9 in single precision"
#endif

KERNEL void lbm_step(GLOBAL const float *fA, GLOBAL float *fB, i32 nx, i32 ny, i32 nz, float omega)
{
    const i32 x = (i32)global_id(0), y = (i32)global_id(1);
    if (x >= nx || y >= ny) return;
    (void)nz;
    const i64 N = (i64)nx * ny;
    const i32 xe = (x + 1) % nx, xw = (x - 1 + nx) % nx;
    const i32 yn = (y + 1) % ny, ys = (y - 1 + ny) % ny;
#define IDX(X, Y) ((i64)(X) + (i64)(Y) * nx)

    /* pull: each population from the neighbour it left */
    const float f0 = fA[0 * N + IDX(x, y)];
    const float f1 = fA[1 * N + IDX(xw, y)];
    const float f2 = fA[2 * N + IDX(x, ys)];
    const float f3 = fA[3 * N + IDX(xe, y)];
    const float f4 = fA[4 * N + IDX(x, yn)];
    const float f5 = fA[5 * N + IDX(xw, ys)];
    const float f6 = fA[6 * N + IDX(xe, ys)];
    const float f7 = fA[7 * N + IDX(xe, yn)];
    const float f8 = fA[8 * N + IDX(xw, yn)];

    const float rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8;
    const float ux = (f1 + f5 + f8 - f3 - f6 - f7) / rho;
    const float uy = (f2 + f5 + f6 - f4 - f7 - f8) / rho;
    const float uu = 1.5f * (ux * ux + uy * uy);
    const float r1 = rho / 9.0f, r2 = rho / 36.0f;
    const float feq0 = 4.0f * r1 * (1.0f - uu);
    const float feq1 = r1 * (1.0f + 3.0f * ux + 4.5f * ux * ux - uu);
    const float feq2 = r1 * (1.0f + 3.0f * uy + 4.5f * uy * uy - uu);
    const float feq3 = r1 * (1.0f - 3.0f * ux + 4.5f * ux * ux - uu);
    const float feq4 = r1 * (1.0f - 3.0f * uy + 4.5f * uy * uy - uu);
    const float feq5 = r2 * (1.0f + 3.0f * (ux + uy) + 4.5f * (ux + uy) * (ux + uy) - uu);
    const float feq6 = r2 * (1.0f + 3.0f * (uy - ux) + 4.5f * (uy - ux) * (uy - ux) - uu);
    const float feq7 = r2 * (1.0f - 3.0f * (ux + uy) + 4.5f * (ux + uy) * (ux + uy) - uu);
    const float feq8 = r2 * (1.0f + 3.0f * (ux - uy) + 4.5f * (ux - uy) * (ux - uy) - uu);

    const i64 c = IDX(x, y);
    fB[0 * N + c] = f0 + omega * (feq0 - f0);
    fB[1 * N + c] = f1 + omega * (feq1 - f1);
    fB[2 * N + c] = f2 + omega * (feq2 - f2);
    fB[3 * N + c] = f3 + omega * (feq3 - f3);
    fB[4 * N + c] = f4 + omega * (feq4 - f4);
    fB[5 * N + c] = f5 + omega * (feq5 - f5);
    fB[6 * N + c] = f6 + omega * (feq6 - f6);
    fB[7 * N + c] = f7 + omega * (feq7 - f7);
    fB[8 * N + c] = f8 + omega * (feq8 - f8);
}
