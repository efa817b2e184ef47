/* D3Q27 BGK, push, FP16S (FluidX3D's storage: 32768 (f_i - w_i) in half,
 * float arithmetic); one thread per cell over the linear index, blocks of
 * 256, threads past the last cell return.  FluidX3D's velocity order:
 * rest, faces, edges, corners, each as opposite pairs.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0  0,1,0 0,-1,0  0,0,1 0,0,-1
 *   1,1,0 -1,-1,0  1,0,1 -1,0,-1  0,1,1 0,-1,-1  1,-1,0 -1,1,0
 *   1,0,-1 -1,0,1  0,1,-1 0,-1,1
 *   1,1,1 -1,-1,-1  1,1,-1 -1,-1,1  1,-1,1 -1,1,-1  -1,1,1 1,-1,-1 */
#if LBM_Q != 27 || !defined(LBM_FP16S)
#error "d3q27-push-linear-fp16s.cl: D3Q27 in FP16S"
#endif
typedef lbp_half fpxx;
#define load(p, o) (lbp_load_half(p, o) * 3.0517578E-5f)
#define store(p, o, x) lbp_store_half(p, o, (x) * 32768.0f)

CONSTANT signed char c27[3 * 27] = {
    0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 1, -1, -1, 1,
    0, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 1, -1, 1, -1, 1, -1, -1, 1, 1, -1,
    0, 0, 0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1, -1};
CONSTANT float w27[27] = {8.f / 27.f, 2.f / 27.f, 2.f / 27.f, 2.f / 27.f, 2.f / 27.f, 2.f / 27.f, 2.f / 27.f,
                          1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f,
                          1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 54.f, 1.f / 216.f, 1.f / 216.f,
                          1.f / 216.f, 1.f / 216.f, 1.f / 216.f, 1.f / 216.f, 1.f / 216.f, 1.f / 216.f};

KERNEL void lbm_step(GLOBAL const fpxx *fi, GLOBAL fpxx *fo, i32 nx, i32 ny, i32 nz, float w)
{
    const u64 def_N = (u64)nx * (u64)ny * (u64)nz;
    const u64 n = (u64)global_id(0);
    if (n >= def_N) return;
    const u32 x = (u32)(n % (u64)nx), y = (u32)((n / (u64)nx) % (u64)ny), z = (u32)(n / ((u64)nx * (u64)ny));
    float fhn[27];
    float rho = 1.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
    for (u32 i = 0u; i < 27u; i++) {
        fhn[i] = load(fi, (u64)i * def_N + n);
        rho += fhn[i];
        ux += (float)c27[i] * fhn[i];
        uy += (float)c27[27 + i] * fhn[i];
        uz += (float)c27[54 + i] * fhn[i];
    }
    ux /= rho; uy /= rho; uz /= rho;
    const float c3 = -3.0f * (ux * ux + uy * uy + uz * uz), rhom1 = rho - 1.0f;
    for (u32 i = 0u; i < 27u; i++) {
        const float cu = 3.0f * ((float)c27[i] * ux + (float)c27[27 + i] * uy + (float)c27[54 + i] * uz);
        const float feq = w27[i] * fma(rho, fma(0.5f, fma(cu, cu, c3), cu), rhom1); /* feq - w, shifted */
        const u32 xn = (x + (u32)nx + (u32)(int)c27[i]) % (u32)nx;
        const u32 yn = (y + (u32)ny + (u32)(int)c27[27 + i]) % (u32)ny;
        const u32 zn = (z + (u32)nz + (u32)(int)c27[54 + i]) % (u32)nz;
        store(fo, (u64)i * def_N + (u64)xn + (u64)nx * ((u64)yn + (u64)ny * (u64)zn), fma(1.0f - w, fhn[i], w * feq));
    }
}
