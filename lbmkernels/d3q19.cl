/* D3Q19 BGK: one kernel source for every propagation scheme and precision.
 *
 * Defines (set by the host, lbmkernels/source.c):
 *   scheme     LBM_PUSH | LBM_PULL | LBM_SPLIT | LBM_AA (+ LBM_AA_ODD for the
 *              odd, beta, step; the even, alpha, step otherwise)
 *   precision  LBM_DOUBLE (with LBP_FP64, which enables cl_khr_fp64)
 *   boundary   LBM_CAVITY: lid-driven cavity, half-way bounce-back on the six
 *              box faces, lid at z = nz - 1 moving with (lid_u, 0, 0) (Ladd's
 *              momentum term, wall density 1); else a periodic box, and the
 *              kernel carries no boundary branch at all.
 *   LBM_ACC_DOUBLE  accumulate the mass reduction in double.
 *
 * Layout: structure of arrays, x fastest, rows padded to nxp (Habich §6):
 * population i of cell (x,y,z) at i*cp + x + nxp*(y + ny*z), cp = nxp*ny*nz.
 * One thread per cell of the padded lattice (1-D blocks along x); threads in
 * the padding columns return at once.
 *
 * Where a population goes, per scheme (c_i its velocity, opp(i) the opposite):
 *   push   read slot i at own cell,        write slot i at x + c_i
 *   pull   read slot i at x - c_i,         write slot i at own cell
 *   split  read slot i at (x - c_ix, y, z), write slot i at (x, y + c_iy, z + c_iz)
 *          (Obrecht Art. A §7.1: the lattice holds post-collision values that
 *          still owe their x shift)
 *   A-A    even (alpha): read slot i at own cell, write slot opp(i) at own cell
 *          odd (beta):   read slot opp(i) at x - c_i, write slot i at x + c_i
 *          (Riesinger §4.1.1; after a beta step the lattice is in the normal
 *          layout again)
 * Bounce-back, when the neighbour a population comes from / goes to is a wall:
 *   f_i(x, t+1) = f*_opp(i)(x, t) + 6 w_i rho_w c_i.u_w   (pull form)
 * and where each scheme keeps that value is spelled out in its macros. */

#if defined(LBM_DOUBLE)
typedef double real;
#else
typedef float real;
#endif
#if defined(LBM_ACC_DOUBLE)
typedef double acc_t;
#else
typedef float acc_t;
#endif
#define R(v) ((real)(v))

/* (i, c_x, c_y, c_z, opp(i)) */
#define LBM_D3Q19(F)                                                   \
    F(0, 0, 0, 0, 0)                                                   \
    F(1, 1, 0, 0, 2) F(2, -1, 0, 0, 1) F(3, 0, 1, 0, 4)                \
    F(4, 0, -1, 0, 3) F(5, 0, 0, 1, 6) F(6, 0, 0, -1, 5)               \
    F(7, 1, 1, 0, 8) F(8, -1, -1, 0, 7) F(9, 1, -1, 0, 10)             \
    F(10, -1, 1, 0, 9) F(11, 1, 0, 1, 12) F(12, -1, 0, -1, 11)         \
    F(13, 1, 0, -1, 14) F(14, -1, 0, 1, 13) F(15, 0, 1, 1, 16)         \
    F(16, 0, -1, -1, 15) F(17, 0, 1, -1, 18) F(18, 0, -1, 1, 17)

/* Address of slot i at cell index idx (64-bit: 19 * cp exceeds 2^32). */
#define AT(i, idx) ((i64)(i) * cp + (i64)(idx))
/* Cell-index offset of the neighbour at +c (c constant: the selects fold). */
#define OFS(cx, cy, cz)                                                        \
    (((cx) > 0 ? xp : (cx) < 0 ? xm : 0) + ((cy) > 0 ? yp : (cy) < 0 ? ym : 0) + \
     ((cz) > 0 ? zp : (cz) < 0 ? zm : 0))

#if defined(LBM_CAVITY)
/* Is the cell at +c inside the box? */
#define IN_X(cx) ((cx) > 0 ? !at_xp : (cx) < 0 ? !at_xm : 1)
#define IN_Y(cy) ((cy) > 0 ? !at_yp : (cy) < 0 ? !at_ym : 1)
#define IN_Z(cz) ((cz) > 0 ? !at_zp : (cz) < 0 ? !at_zm : 1)
#define IN_BOX(cx, cy, cz) (IN_X(cx) && IN_Y(cy) && IN_Z(cz))
/* 6 w_i c_i.u_w for a link from this cell towards +c when it crosses the lid
 * (only diagonal links with c_x != 0 carry momentum: 6 w_i = 1/6). */
#define LID_TOWARDS(cx, cz) (((cz) > 0 && at_zp && (cx) != 0) ? R(cx) * lid6 : R(0))
#endif

/* ---- the scheme: where population i is read and written ---------------- */
#if defined(LBM_PUSH)
#define LOAD(i, cx, cy, cz, o) real f##i = src[AT(i, n)];
#if defined(LBM_CAVITY)
#define STORE(i, cx, cy, cz, o)                                           \
    if (IN_BOX(cx, cy, cz)) dst[AT(i, n + OFS(cx, cy, cz))] = f##i;        \
    else dst[AT(o, n)] = f##i - LID_TOWARDS(cx, cz);
#else
#define STORE(i, cx, cy, cz, o) dst[AT(i, n + OFS(cx, cy, cz))] = f##i;
#endif

#elif defined(LBM_PULL)
#if defined(LBM_CAVITY)
#define LOAD(i, cx, cy, cz, o)                                                    \
    real f##i = IN_BOX(-(cx), -(cy), -(cz)) ? src[AT(i, n + OFS(-(cx), -(cy), -(cz)))] \
                                           : src[AT(o, n)] - LID_TOWARDS(-(cx), -(cz));
#else
#define LOAD(i, cx, cy, cz, o) real f##i = src[AT(i, n + OFS(-(cx), -(cy), -(cz)))];
#endif
#define STORE(i, cx, cy, cz, o) dst[AT(i, n)] = f##i;

#elif defined(LBM_SPLIT)
/* Cavity: a population bounced back at a y/z wall (or at an edge whose x
 * neighbour is inside) is stored where its reader looks, slot opp(i) at
 * (x + c_ix, y, z); one bounced at an x wall is stored in slot i of its own
 * cell, which nobody else writes, and the reader whose x source lies outside
 * the box takes it from there. */
#if defined(LBM_CAVITY)
#define LOAD(i, cx, cy, cz, o) \
    real f##i = IN_X(-(cx)) ? src[AT(i, n + OFS(-(cx), 0, 0))] : src[AT(o, n)];
#define STORE(i, cx, cy, cz, o)                                                \
    if (IN_BOX(cx, cy, cz)) dst[AT(i, n + OFS(0, cy, cz))] = f##i;              \
    else if (IN_X(cx)) dst[AT(o, n + OFS(cx, 0, 0))] = f##i - LID_TOWARDS(cx, cz); \
    else dst[AT(i, n)] = f##i - LID_TOWARDS(cx, cz);
#else
#define LOAD(i, cx, cy, cz, o) real f##i = src[AT(i, n + OFS(-(cx), 0, 0))];
#define STORE(i, cx, cy, cz, o) dst[AT(i, n + OFS(0, cy, cz))] = f##i;
#endif

#elif defined(LBM_AA) && !defined(LBM_AA_ODD)
#define LOAD(i, cx, cy, cz, o) real f##i = f[AT(i, n)];
#define STORE(i, cx, cy, cz, o) f[AT(o, n)] = f##i;

#elif defined(LBM_AA) && defined(LBM_AA_ODD)
#if defined(LBM_CAVITY)
#define LOAD(i, cx, cy, cz, o)                                                  \
    real f##i = IN_BOX(-(cx), -(cy), -(cz)) ? f[AT(o, n + OFS(-(cx), -(cy), -(cz)))] \
                                           : f[AT(i, n)] - LID_TOWARDS(-(cx), -(cz));
#define STORE(i, cx, cy, cz, o)                                    \
    if (IN_BOX(cx, cy, cz)) f[AT(i, n + OFS(cx, cy, cz))] = f##i;   \
    else f[AT(o, n)] = f##i - LID_TOWARDS(cx, cz);
#else
#define LOAD(i, cx, cy, cz, o) real f##i = f[AT(o, n + OFS(-(cx), -(cy), -(cz)))];
#define STORE(i, cx, cy, cz, o) f[AT(i, n + OFS(cx, cy, cz))] = f##i;
#endif
#endif

/* BGK relaxation of the pair (i, opp(i)) with c_i.u = s.  The lattice holds
 * f_i - w_i (as FluidX3D does), so the arithmetic works on small numbers and
 * FP32 keeps mass to rounding:  f_eq - w = w (rho - 1) + w rho (3 s + 9/2 s^2
 * - 3/2 u^2); the odd part 3 w rho s flips sign for opp(i). */
#define RELAX_PAIR(i, o, w_rest, wrho, s)                             \
    {                                                                 \
        const real s_ = (s);                                          \
        const real even_ = (w_rest) + (wrho) * R(4.5) * s_ * s_;      \
        const real odd_ = R(3.0) * (wrho) * s_;                       \
        f##i += omega * (even_ + odd_ - f##i);                        \
        f##o += omega * (even_ - odd_ - f##o);                        \
    }

#if defined(LOAD)
#if defined(LBM_AA)
#define LBM_PARAMS GLOBAL real *RESTRICT f
#else
#define LBM_PARAMS GLOBAL const real *RESTRICT src, GLOBAL real *RESTRICT dst
#endif

/* One time step of every cell: omega = 1/tau (precomputed on the host),
 * lid_u the lid velocity (cavity only). */
KERNEL void lbm_step(LBM_PARAMS, const i32 nx, const i32 ny, const i32 nz, const i32 nxp,
                     const i64 cp, const real omega, const real lid_u)
{
    const i64 gid = global_id(0);
    if (gid >= cp) return;
    const i32 n = (i32)gid;
    const i32 row = (i32)((u32)n / (u32)nxp); /* y + ny*z */
    const i32 x = n - row * nxp;
    if (x >= nx) return; /* padding column */
    const i32 z = (i32)((u32)row / (u32)ny);
    const i32 y = row - z * ny;
    const i32 plane = nxp * ny;
#if defined(LBM_CAVITY)
    const i32 at_xm = x == 0, at_xp = x == nx - 1;
    const i32 at_ym = y == 0, at_yp = y == ny - 1;
    const i32 at_zm = z == 0, at_zp = z == nz - 1;
    const real lid6 = lid_u * R(1.0 / 6.0);
    /* Offsets are only used towards cells inside the box. */
    const i32 xp = 1, xm = -1, yp = nxp, ym = -nxp, zp = plane, zm = -plane;
    (void)at_ym; (void)at_zm; (void)at_yp; (void)at_xm; (void)at_xp;
#else
    /* Periodic neighbours, once per cell, with selects. */
    const i32 xp = x == nx - 1 ? 1 - nx : 1;
    const i32 xm = x == 0 ? nx - 1 : -1;
    const i32 yp = y == ny - 1 ? (1 - ny) * nxp : nxp;
    const i32 ym = y == 0 ? (ny - 1) * nxp : -nxp;
    const i32 zp = z == nz - 1 ? (1 - nz) * plane : plane;
    const i32 zm = z == 0 ? (nz - 1) * plane : -plane;
    (void)lid_u;
#endif
    (void)xp; (void)xm; (void)yp; (void)ym; (void)zp; (void)zm;

    /* All 19 loads first: independent, all in flight together. */
    LBM_D3Q19(LOAD)

    const real rho_dev = f0 + ((f1 + f2) + (f3 + f4) + (f5 + f6)) + /* rho - 1 */
                         ((f7 + f8) + (f9 + f10) + (f11 + f12) + (f13 + f14)) +
                         ((f15 + f16) + (f17 + f18));
    const real rho = R(1.0) + rho_dev;
    const real jx = (f1 - f2) + (f7 - f8) + (f9 - f10) + (f11 - f12) + (f13 - f14);
    const real jy = (f3 - f4) + (f7 - f8) + (f10 - f9) + (f15 - f16) + (f17 - f18);
    const real jz = (f5 - f6) + (f11 - f12) + (f14 - f13) + (f15 - f16) + (f18 - f17);
    const real inv_rho = R(1.0) / rho;
    const real ux = jx * inv_rho, uy = jy * inv_rho, uz = jz * inv_rho;
    /* w (rho - 1) - w rho 3/2 u^2, per weight class */
    const real rest = rho_dev - rho * R(1.5) * (ux * ux + uy * uy + uz * uz);
    const real w1rho = rho * R(1.0 / 18.0), w2rho = rho * R(1.0 / 36.0);
    const real w1rest = rest * R(1.0 / 18.0), w2rest = rest * R(1.0 / 36.0);

    f0 += omega * (rest * R(1.0 / 3.0) - f0);
    RELAX_PAIR(1, 2, w1rest, w1rho, ux)
    RELAX_PAIR(3, 4, w1rest, w1rho, uy)
    RELAX_PAIR(5, 6, w1rest, w1rho, uz)
    RELAX_PAIR(7, 8, w2rest, w2rho, ux + uy)
    RELAX_PAIR(9, 10, w2rest, w2rho, ux - uy)
    RELAX_PAIR(11, 12, w2rest, w2rho, ux + uz)
    RELAX_PAIR(13, 14, w2rest, w2rho, ux - uz)
    RELAX_PAIR(15, 16, w2rest, w2rho, uy + uz)
    RELAX_PAIR(17, 18, w2rest, w2rho, uy - uz)

    LBM_D3Q19(STORE)
}
#endif /* LOAD */

#if defined(LBM_INIT)
#if defined(LBP_CUDA) && !defined(LBM_DOUBLE)
#define SIN_(v) sinf(v)
#define COS_(v) cosf(v)
#else
#define SIN_(v) sin(v)
#define COS_(v) cos(v)
#endif
#define INIT_STORE(i, cx, cy, cz, o)                                          \
    {                                                                         \
        const real s_ = R(cx) * ux + R(cy) * uy + R(cz) * uz;                 \
        f[AT(i, n)] = pad ? R(0) : W_(cx, cy, cz) * (rho_dev + rho * (R(3.0) * s_ + R(4.5) * s_ * s_ - u15)); \
    }
#define W_(cx, cy, cz) \
    ((cx) * (cx) + (cy) * (cy) + (cz) * (cz) == 0 ? R(1.0 / 3.0) : (cx) * (cx) + (cy) * (cy) + (cz) * (cz) == 1 ? R(1.0 / 18.0) : R(1.0 / 36.0))

/* Equilibrium of a Taylor-Green vortex in x-y with amplitude u0, stored as
 * f - w (timing runs; verification uploads its fields from the host).
 * Padding cells get 0. */
KERNEL void lbm_init(GLOBAL real *RESTRICT f, const i32 nx, const i32 ny, const i32 nz,
                     const i32 nxp, const i64 cp, const real u0)
{
    const i64 gid = global_id(0);
    if (gid >= cp) return;
    const i32 n = (i32)gid;
    const i32 row = n / nxp;
    const i32 x = n - row * nxp;
    const i32 y = row % ny;
    const i32 pad = x >= nx;
    const real kx = R(6.283185307179586) / R(nx), ky = R(6.283185307179586) / R(ny);
    const real ux = u0 * SIN_(kx * R(x)) * COS_(ky * R(y));
    const real uy = -u0 * COS_(kx * R(x)) * SIN_(ky * R(y));
    const real uz = R(0);
    const real rho_dev = -R(0.75) * u0 * u0 * (COS_(R(2) * kx * R(x)) + COS_(R(2) * ky * R(y)));
    const real rho = R(1.0) + rho_dev;
    const real u15 = R(1.5) * (ux * ux + uy * uy);
    (void)nz;
    LBM_D3Q19(INIT_STORE)
}
#endif

#if defined(LBM_MASS)
#define MASS_BLOCK 256
/* Sum of all `count` words of f (that is, mass - cells, as f - w is stored):
 * one partial sum per block (launched with MASS_BLOCK threads), added up on
 * the host.  Padding holds zeros. */
KERNEL void lbm_mass(GLOBAL const real *RESTRICT f, const i64 count, GLOBAL acc_t *RESTRICT partial)
{
    LOCAL acc_t sums[MASS_BLOCK];
    const i32 t = local_id(0);
    const i64 stride = (i64)num_groups(0) * MASS_BLOCK;
    acc_t s = 0;
    for (i64 k = global_id(0); k < count; k += stride) s += (acc_t)f[k];
    sums[t] = s;
    LOCAL_BARRIER;
    for (i32 h = MASS_BLOCK / 2; h > 0; h /= 2) {
        if (t < h) sums[t] += sums[t + h];
        LOCAL_BARRIER;
    }
    if (t == 0) partial[group_id(0)] = sums[0];
}
#endif
