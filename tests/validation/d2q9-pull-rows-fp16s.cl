/* D2Q9 BGK, pull, FP16S (FluidX3D's storage: 32768 (f_i - w_i) in IEEE
 * half, arithmetic in float).  One block row of 256 threads per lattice
 * row of a flat lattice: a row of 200 cells leaves 56 threads of every
 * block idle.  Lattice Boltzmann in FluidX3D's velocity order.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0  0,1,0 0,-1,0  1,1,0 -1,-1,0  1,-1,0 -1,1,0 */
#if LBM_Q != 9 || !defined(LBM_FP16S)
#error "d2q9-pull-rows-fp16s.cl: D2Q9 in FP16S"
#endif
#define load(p, o) (lbp_load_half(p, o) * 3.0517578E-5f)
#define store(p, o, x) lbp_store_half(p, o, (x) * 32768.0f)

KERNEL void lbm_step(GLOBAL const lbp_half *fi, GLOBAL lbp_half *fo, i32 nx, i32 ny, i32 nz, float w)
{
    const u32 x = (u32)global_id(0);
    if (x >= (u32)nx) return; /* idle threads at the row's end */
    const u32 y = (u32)group_id(1);
    (void)nz;
    const u64 N = (u64)nx * (u64)ny;
    const u64 x0 = x, xp = (x + 1u) % (u32)nx, xm = (x + (u32)nx - 1u) % (u32)nx;
    const u64 y0 = (u64)y * nx, yp = (u64)((y + 1u) % (u32)ny) * nx, ym = (u64)((y + (u32)ny - 1u) % (u32)ny) * nx;
    float fhn[9]; /* shifted: f_i - w_i */
    fhn[0] = load(fi, x0 + y0);
    fhn[1] = load(fi, 1u * N + xm + y0);
    fhn[2] = load(fi, 2u * N + xp + y0);
    fhn[3] = load(fi, 3u * N + x0 + ym);
    fhn[4] = load(fi, 4u * N + x0 + yp);
    fhn[5] = load(fi, 5u * N + xm + ym);
    fhn[6] = load(fi, 6u * N + xp + yp);
    fhn[7] = load(fi, 7u * N + xm + yp);
    fhn[8] = load(fi, 8u * N + xp + ym);
    const float rho = 1.0f + fhn[0] + fhn[1] + fhn[2] + fhn[3] + fhn[4] + fhn[5] + fhn[6] + fhn[7] + fhn[8];
    const float ux = (fhn[1] - fhn[2] + fhn[5] - fhn[6] + fhn[7] - fhn[8]) / rho;
    const float uy = (fhn[3] - fhn[4] + fhn[5] - fhn[6] - fhn[7] + fhn[8]) / rho;
    const float c3 = -3.0f * (ux * ux + uy * uy), rhom1 = rho - 1.0f;
    const float u[9] = {0.0f, 3.0f * ux, -3.0f * ux, 3.0f * uy, -3.0f * uy, 3.0f * (ux + uy), -3.0f * (ux + uy),
                        3.0f * (ux - uy), 3.0f * (uy - ux)};
    const u64 n = x0 + y0;
    for (u32 i = 0u; i < 9u; i++) {
        const float wi = i == 0u ? 4.0f / 9.0f : i < 5u ? 1.0f / 9.0f : 1.0f / 36.0f;
        const float feq = wi * fma(rho, fma(0.5f, fma(u[i], u[i], c3), u[i]), rhom1);
        store(fo, (u64)i * N + n, fma(1.0f - w, fhn[i], w * feq));
    }
}
