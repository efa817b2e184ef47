/* D3Q15 BGK, push, FP16S (FluidX3D's: 32768 (f_i - w_i) in IEEE half,
 * float arithmetic).  A 3D grid of 64x2x2 blocks; threads outside the box
 * return.  The shifted populations collide as they are (rho - 1 from
 * their sum), then go to the neighbours at +c_i.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0 0,1,0 0,-1,0 0,0,1 0,0,-1
 *   1,1,1 -1,-1,-1 1,1,-1 -1,-1,1 1,-1,1 -1,1,-1 -1,1,1 1,-1,-1 */
#if LBM_Q != 15 || !defined(LBM_FP16S)
#error "d3q15-push-grid-fp16s.cl: D3Q15 in FP16S"
#endif
#define LOAD_F(p, k) (lbp_load_half(p, k) * (1.0f / 32768.0f))
#define STORE_F(p, k, v) lbp_store_half(p, k, (v) * 32768.0f)

KERNEL void lbm_step(GLOBAL const lbp_half *fi, GLOBAL lbp_half *fo, i32 nx, i32 ny, i32 nz, float omega)
{
    const i32 x = (i32)global_id(0), y = (i32)global_id(1), z = (i32)global_id(2);
    if (x >= nx || y >= ny || z >= nz) return;
    const i64 N = (i64)nx * ny * nz, sy = nx, sz = (i64)nx * ny;
    const i64 n = x + y * sy + z * sz;
    /* offsets to the neighbours, wrapped */
    const i64 dxp = x == nx - 1 ? -(i64)(nx - 1) : 1, dxm = x == 0 ? (i64)(nx - 1) : -1;
    const i64 dyp = (y == ny - 1 ? -(i64)(ny - 1) : 1) * sy, dym = (y == 0 ? (i64)(ny - 1) : -1) * sy;
    const i64 dzp = (z == nz - 1 ? -(i64)(nz - 1) : 1) * sz, dzm = (z == 0 ? (i64)(nz - 1) : -1) * sz;

    float h[15];
    for (int i = 0; i < 15; i++) h[i] = LOAD_F(fi, i * N + n);
    float rho = 1.0f;
    for (int i = 0; i < 15; i++) rho += h[i];
    const float jx = h[1] - h[2] + h[7] - h[8] + h[9] - h[10] + h[11] - h[12] - h[13] + h[14];
    const float jy = h[3] - h[4] + h[7] - h[8] + h[9] - h[10] - h[11] + h[12] + h[13] - h[14];
    const float jz = h[5] - h[6] + h[7] - h[8] - h[9] + h[10] + h[11] - h[12] + h[13] - h[14];
    const float ux = jx / rho, uy = jy / rho, uz = jz / rho;
    const float c3 = 1.0f - 1.5f * (ux * ux + uy * uy + uz * uz);
    const float cu[15] = {0.0f, ux, -ux, uy, -uy, uz, -uz, ux + uy + uz, -ux - uy - uz, ux + uy - uz, -ux - uy + uz,
                          ux - uy + uz, -ux + uy - uz, -ux + uy + uz, ux - uy - uz};
    const i64 to[15] = {n, n + dxp, n + dxm, n + dyp, n + dym, n + dzp, n + dzm, n + dxp + dyp + dzp,
                        n + dxm + dym + dzm, n + dxp + dyp + dzm, n + dxm + dym + dzp, n + dxp + dym + dzp,
                        n + dxm + dyp + dzm, n + dxm + dyp + dzp, n + dxp + dym + dzm};
    for (int i = 0; i < 15; i++) {
        const float w = i == 0 ? 2.0f / 9.0f : i < 7 ? 1.0f / 9.0f : 1.0f / 72.0f;
        const float feq_shifted = w * (rho * (c3 + cu[i] * (3.0f + 4.5f * cu[i])) - 1.0f);
        STORE_F(fo, i * N + to[i], h[i] + omega * (feq_shifted - h[i]));
    }
}
