/* D3Q19 BGK, pull, FP16S as FluidX3D keeps it: the density distribution
 * functions shifted by their weights (f_i - w_i) and scaled by 32768 in
 * IEEE half, arithmetic in float.  A 3D grid of 3D blocks; threads outside
 * the box return.  Neighbour indices as FluidX3D's neighbors(): j[i] the
 * cell at +c_i; pull reads population i from j of its opposite.
 *
 * memory order: 0,0,0  1,0,0 -1,0,0  0,1,0 0,-1,0  0,0,1 0,0,-1
 *   1,1,0 -1,-1,0  1,0,1 -1,0,-1  0,1,1 0,-1,-1  1,-1,0 -1,1,0
 *   1,0,-1 -1,0,1  0,1,-1 0,-1,1 */
#if LBM_Q != 19 || !defined(LBM_FP16S)
#error "d3q19-pull-grid-fp16s.cl: D3Q19 in FP16S"
#endif
typedef lbp_half fpxx;
#define load(p, o) (lbp_load_half(p, o) * 3.0517578E-5f)
#define store(p, o, v) lbp_store_half(p, o, (v) * 32768.0f)

INLINE void neighbors(const i64 nx, const i64 ny, const i64 nz, const i64 x, const i64 y, const i64 z, i64 *j)
{
    const i64 x0 = x, xp = (x + 1) % nx, xm = (x + nx - 1) % nx;
    const i64 y0 = nx * y, yp = nx * ((y + 1) % ny), ym = nx * ((y + ny - 1) % ny);
    const i64 z0 = nx * ny * z, zp = nx * ny * ((z + 1) % nz), zm = nx * ny * ((z + nz - 1) % nz);
    j[0] = x0 + y0 + z0;
    j[1] = xp + y0 + z0; j[2] = xm + y0 + z0;
    j[3] = x0 + yp + z0; j[4] = x0 + ym + z0;
    j[5] = x0 + y0 + zp; j[6] = x0 + y0 + zm;
    j[7] = xp + yp + z0; j[8] = xm + ym + z0;
    j[9] = xp + y0 + zp; j[10] = xm + y0 + zm;
    j[11] = x0 + yp + zp; j[12] = x0 + ym + zm;
    j[13] = xp + ym + z0; j[14] = xm + yp + z0;
    j[15] = xp + y0 + zm; j[16] = xm + y0 + zp;
    j[17] = x0 + yp + zm; j[18] = x0 + ym + zp;
}

/* FluidX3D's equilibrium of the shifted DDFs: feq_i - w_i */
INLINE void calculate_f_eq(const float rho, float ux, float uy, float uz, float *feq)
{
    const float w0 = 1.f / 3.f, ws = 1.f / 18.f, we = 1.f / 36.f;
    const float rhom1 = rho - 1.f;
    const float c3 = -3.f * (ux * ux + uy * uy + uz * uz);
    ux *= 3.f; uy *= 3.f; uz *= 3.f;
    feq[0] = w0 * fma(rho, 0.5f * c3, rhom1);
    const float u0 = ux + uy, u1 = ux + uz, u2 = uy + uz, u3 = ux - uy, u4 = ux - uz, u5 = uy - uz;
    const float rhos = ws * rho, rhoe = we * rho, rhom1s = ws * rhom1, rhom1e = we * rhom1;
    feq[1] = fma(rhos, fma(0.5f, fma(ux, ux, c3), ux), rhom1s); feq[2] = fma(rhos, fma(0.5f, fma(ux, ux, c3), -ux), rhom1s);
    feq[3] = fma(rhos, fma(0.5f, fma(uy, uy, c3), uy), rhom1s); feq[4] = fma(rhos, fma(0.5f, fma(uy, uy, c3), -uy), rhom1s);
    feq[5] = fma(rhos, fma(0.5f, fma(uz, uz, c3), uz), rhom1s); feq[6] = fma(rhos, fma(0.5f, fma(uz, uz, c3), -uz), rhom1s);
    feq[7] = fma(rhoe, fma(0.5f, fma(u0, u0, c3), u0), rhom1e); feq[8] = fma(rhoe, fma(0.5f, fma(u0, u0, c3), -u0), rhom1e);
    feq[9] = fma(rhoe, fma(0.5f, fma(u1, u1, c3), u1), rhom1e); feq[10] = fma(rhoe, fma(0.5f, fma(u1, u1, c3), -u1), rhom1e);
    feq[11] = fma(rhoe, fma(0.5f, fma(u2, u2, c3), u2), rhom1e); feq[12] = fma(rhoe, fma(0.5f, fma(u2, u2, c3), -u2), rhom1e);
    feq[13] = fma(rhoe, fma(0.5f, fma(u3, u3, c3), u3), rhom1e); feq[14] = fma(rhoe, fma(0.5f, fma(u3, u3, c3), -u3), rhom1e);
    feq[15] = fma(rhoe, fma(0.5f, fma(u4, u4, c3), u4), rhom1e); feq[16] = fma(rhoe, fma(0.5f, fma(u4, u4, c3), -u4), rhom1e);
    feq[17] = fma(rhoe, fma(0.5f, fma(u5, u5, c3), u5), rhom1e); feq[18] = fma(rhoe, fma(0.5f, fma(u5, u5, c3), -u5), rhom1e);
}

KERNEL void lbm_step(GLOBAL const fpxx *fi, GLOBAL fpxx *fo, i32 nx, i32 ny, i32 nz, float w)
{
    const i64 x = global_id(0), y = global_id(1), z = global_id(2);
    if (x >= nx || y >= ny || z >= nz) return;
    const i64 def_N = (i64)nx * ny * nz;
    i64 j[19];
    neighbors(nx, ny, nz, x, y, z, j);
    float fhn[19];
    fhn[0] = load(fi, j[0]);
    for (int i = 1; i < 19; i += 2) { /* pull: i from the cell at -c_i, the opposite's neighbour */
        fhn[i] = load(fi, (i64)i * def_N + j[i + 1]);
        fhn[i + 1] = load(fi, (i64)(i + 1) * def_N + j[i]);
    }
    float rho = fhn[0], ux, uy, uz;
    for (int i = 1; i < 19; i++) rho += fhn[i];
    rho += 1.f;
    ux = fhn[1] - fhn[2] + fhn[7] - fhn[8] + fhn[9] - fhn[10] + fhn[13] - fhn[14] + fhn[15] - fhn[16];
    uy = fhn[3] - fhn[4] + fhn[7] - fhn[8] + fhn[11] - fhn[12] + fhn[14] - fhn[13] + fhn[17] - fhn[18];
    uz = fhn[5] - fhn[6] + fhn[9] - fhn[10] + fhn[11] - fhn[12] + fhn[16] - fhn[15] + fhn[18] - fhn[17];
    ux /= rho; uy /= rho; uz /= rho;
    float feq[19];
    calculate_f_eq(rho, ux, uy, uz, feq);
    for (int i = 0; i < 19; i++) store(fo, (i64)i * def_N + j[0], fma(1.f - w, fhn[i], w * feq[i]));
}
