/* D3Q19 BGK: one kernel source for every propagation scheme and precision.
 *
 * Defines (set by the host, lbmkernels/source.c):
 *   scheme     LBM_PUSH | LBM_PULL | LBM_SPLIT | LBM_AA (+ LBM_AA_ODD for the
 *              odd, beta, step; the even, alpha, step otherwise)
 *   precision  LBM_DOUBLE (with LBP_FP64, which enables cl_khr_fp64);
 *              LBM_FP16S: IEEE half in memory, float arithmetic (FluidX3D's
 *              FP32/FP16S, Lehmann et al. 2022); else float
 *   boundary   LBM_CAVITY: lid-driven cavity, half-way bounce-back on the six
 *              box faces, lid at z = nz - 1 moving with (lid_u, 0, 0) (Ladd's
 *              momentum term, wall density 1); else a periodic box, and the
 *              kernel carries no boundary branch at all.
 *   LBM_ACC_DOUBLE  accumulate the mass reduction in double.
 *   CELLS_PER_THREAD  adjacent x cells per thread of lbm_step (1, 2 or 4;
 *              default 1); rows must be padded to a multiple of it.
 *   LBM_ROW    one thread per row instead, looping over x (the CPU's shape;
 *              see the row kernel below).
 *   LBM_SLAB   the lattice is one rank's slab of a lattice cut along z
 *              (lbmkernels/slab.c): its planes 1 .. nz-2 are the rank's,
 *              planes 0 and nz-1 halos that hold what the neighbours send
 *              or what goes to them.  lbm_step takes five more arguments:
 *              it updates z_count planes from z_first on, z_stride apart
 *              (the two border planes in one launch, or the interior), never
 *              wraps z, and places the cavity's z walls at the global planes
 *              0 and nz_global - 1, local plane z being global z + z_offset.
 *   LBM_NT     with LBM_ROW: non-temporal stores (pull, split; C prelude).
 *
 * Layout: structure of arrays, x fastest, rows padded to nxp (Habich §6):
 * population i of cell (x,y,z) at i*cp + x + nxp*(y + ny*z), cp >= nxp*ny*nz
 * the stride between arrays (lbm.h: skewed against 4 KiB pages).
 * One thread per CELLS_PER_THREAD adjacent cells (1, 2 or 4, default 1) of a
 * row of the padded lattice (1-D blocks along x; see lbm_step); threads whose
 * cells all lie in the padding columns return at once.  With more than one
 * cell per thread, every access of the periodic box that keeps its x position
 * moves the thread's cells as one vector (8 or 16 bytes per thread).
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
/* word_t: a population in memory.  LD(P, idx) reads one as a real, ST(P,
 * idx, v) writes one.
 * fp16s: the lattice holds S (f_i - w_i) in IEEE half, S = LBM_SCALE = 2^15.
 * Storing the deviation from the weight spends half's 11 significant bits
 * on what changes (Lehmann et al. 2022); the scale, a power of two, costs no
 * rounding and lifts deviations down to 2^-29 out of half's subnormal range
 * (below 2^-14, where it keeps fewer bits), while populations in [0, 1]
 * (|f_i - w_i| < 1) stay below 2^15 < 65504, the largest half.  The
 * arithmetic runs on the scaled values: COLLIDE unscales the moments once
 * per cell (UNSCALE) and scales the equilibrium back (SCALE), a few
 * multiplies instead of one per load and store. */
#if defined(LBM_FP16S)
#define LBM_HALF 1
typedef lbp_half word_t;
#define LBM_SCALE 32768.0f
#define LD(P, idx) lbp_load_half(P, idx)
#define ST(P, idx, v) lbp_store_half(P, idx, v)
#define UNSCALE(v) ((v) * R(1.0f / LBM_SCALE))
#define SCALE(v) ((v) * R(LBM_SCALE))
#else
typedef real word_t;
#define LD(P, idx) (P)[idx]
#define ST(P, idx, v) (P)[idx] = (v)
#define UNSCALE(v) (v)
#define SCALE(v) (v)
#endif
#if defined(LBM_ACC_DOUBLE)
typedef double acc_t;
#else
typedef float acc_t;
#endif
#define R(v) ((real)(v))

/* The planes a launch of lbm_step covers, and where the z walls are. */
#if defined(LBM_SLAB)
#define SLAB_PARAMS , const i32 z_first, const i32 z_count, const i32 z_stride, const i32 z_offset, const i32 nz_global
#define LAUNCH_PLANES z_count
/* launch row r (y + ny * its plane's place in the launch) -> lattice row */
#define SLAB_ROW(r) ((r) + (z_first + ((r) / ny) * (z_stride - 1)) * ny)
#define Z_GLOBAL(z) ((z) + z_offset)
#define NZ_GLOBAL nz_global
#else
#define SLAB_PARAMS
#define LAUNCH_PLANES nz
#define SLAB_ROW(r) (r)
#define Z_GLOBAL(z) (z)
#define NZ_GLOBAL nz
#endif

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
/* Cell-index offset from cell C (a, b, ... as _a, _b) to its neighbour at +c
 * (c constant: the selects fold).  Only the x offsets are per cell. */
#define OFS(C, cx, cy, cz)                                                               \
    (((cx) > 0 ? xp##C : (cx) < 0 ? xm##C : 0) + ((cy) > 0 ? yp : (cy) < 0 ? ym : 0) + \
     ((cz) > 0 ? zp : (cz) < 0 ? zm : 0))

#if defined(LBM_CAVITY)
/* Is the cell at +c of cell C inside the box? */
#define IN_X(C, cx) ((cx) > 0 ? !at_xp##C : (cx) < 0 ? !at_xm##C : 1)
#define IN_Y(cy) ((cy) > 0 ? !at_yp : (cy) < 0 ? !at_ym : 1)
#define IN_Z(cz) ((cz) > 0 ? !at_zp : (cz) < 0 ? !at_zm : 1)
#define IN_BOX(C, cx, cy, cz) (IN_X(C, cx) && IN_Y(cy) && IN_Z(cz))
/* 6 w_i c_i.u_w for a link from this cell towards +c when it crosses the lid
 * (only diagonal links with c_x != 0 carry momentum: 6 w_i = 1/6). */
#define LID_TOWARDS(cx, cz) (((cz) > 0 && at_zp && (cx) != 0) ? R(cx) * lid6 : R(0)) /* lid6 scaled */
#endif

/* ---- the scheme: where population i of cell C is read and written ------ */
/* LOAD(C, i, cx, cy, cz, o) assigns f<i><C> (declared by DECL), STORE writes
 * it back. */
#if !defined(LBM_CAVITY)
/* The periodic box: each scheme is the slot and the offset (a multiple of
 * the velocity) of the read and of the write of population i:
 * RSLOT/RX/RY/RZ and WSLOT/WX/WY/WZ. */
#if defined(LBM_PUSH)
#define RSLOT(i, o) i
#define RX(cx) 0
#define RY(cy) 0
#define RZ(cz) 0
#define WSLOT(i, o) i
#define WX(cx) (cx)
#define WY(cy) (cy)
#define WZ(cz) (cz)
#elif defined(LBM_PULL)
#define RSLOT(i, o) i
#define RX(cx) (-(cx))
#define RY(cy) (-(cy))
#define RZ(cz) (-(cz))
#define WSLOT(i, o) i
#define WX(cx) 0
#define WY(cy) 0
#define WZ(cz) 0
#elif defined(LBM_SPLIT)
#define RSLOT(i, o) i
#define RX(cx) (-(cx))
#define RY(cy) 0
#define RZ(cz) 0
#define WSLOT(i, o) i
#define WX(cx) 0
#define WY(cy) (cy)
#define WZ(cz) (cz)
#elif defined(LBM_AA) && !defined(LBM_AA_ODD)
#define RSLOT(i, o) i
#define RX(cx) 0
#define RY(cy) 0
#define RZ(cz) 0
#define WSLOT(i, o) o
#define WX(cx) 0
#define WY(cy) 0
#define WZ(cz) 0
#elif defined(LBM_AA) && defined(LBM_AA_ODD)
#define RSLOT(i, o) o
#define RX(cx) (-(cx))
#define RY(cy) (-(cy))
#define RZ(cz) (-(cz))
#define WSLOT(i, o) i
#define WX(cx) (cx)
#define WY(cy) (cy)
#define WZ(cz) (cz)
#endif
#if defined(RSLOT)
#define LOAD(C, i, cx, cy, cz, o) f##i##C = LD(SRC, AT(RSLOT(i, o), n##C + OFS(C, RX(cx), RY(cy), RZ(cz))));
#define STORE(C, i, cx, cy, cz, o) ST(DST, AT(WSLOT(i, o), n##C + OFS(C, WX(cx), WY(cy), WZ(cz))), f##i##C);
#endif

#elif defined(LBM_PUSH) /* the cavity from here on */
#define LOAD(C, i, cx, cy, cz, o) f##i##C = LD(src, AT(i, n##C));
#define STORE(C, i, cx, cy, cz, o)                                                 \
    if (IN_BOX(C, cx, cy, cz)) ST(dst, AT(i, n##C + OFS(C, cx, cy, cz)), f##i##C); \
    else ST(dst, AT(o, n##C), f##i##C - LID_TOWARDS(cx, cz));

#elif defined(LBM_PULL)
#define LOAD(C, i, cx, cy, cz, o)                                                                 \
    f##i##C = IN_BOX(C, -(cx), -(cy), -(cz)) ? LD(src, AT(i, n##C + OFS(C, -(cx), -(cy), -(cz)))) \
                                             : LD(src, AT(o, n##C)) - LID_TOWARDS(-(cx), -(cz));
#define STORE(C, i, cx, cy, cz, o) ST(dst, AT(i, n##C), f##i##C);

#elif defined(LBM_SPLIT)
/* A population bounced back at a y/z wall (or at an edge whose x neighbour
 * is inside) is stored where its reader looks, slot opp(i) at (x + c_ix, y,
 * z); one bounced at an x wall is stored in slot i of its own cell, which
 * nobody else writes, and the reader whose x source lies outside the box
 * takes it from there. */
#define LOAD(C, i, cx, cy, cz, o) \
    f##i##C = IN_X(C, -(cx)) ? LD(src, AT(i, n##C + OFS(C, -(cx), 0, 0))) : LD(src, AT(o, n##C));
#define STORE(C, i, cx, cy, cz, o)                                                             \
    if (IN_BOX(C, cx, cy, cz)) ST(dst, AT(i, n##C + OFS(C, 0, cy, cz)), f##i##C);              \
    else if (IN_X(C, cx)) ST(dst, AT(o, n##C + OFS(C, cx, 0, 0)), f##i##C - LID_TOWARDS(cx, cz)); \
    else ST(dst, AT(i, n##C), f##i##C - LID_TOWARDS(cx, cz));

#elif defined(LBM_AA) && !defined(LBM_AA_ODD)
#define LOAD(C, i, cx, cy, cz, o) f##i##C = LD(f, AT(i, n##C));
#define STORE(C, i, cx, cy, cz, o) ST(f, AT(o, n##C), f##i##C);

#elif defined(LBM_AA) && defined(LBM_AA_ODD)
#define LOAD(C, i, cx, cy, cz, o)                                                               \
    f##i##C = IN_BOX(C, -(cx), -(cy), -(cz)) ? LD(f, AT(o, n##C + OFS(C, -(cx), -(cy), -(cz)))) \
                                             : LD(f, AT(i, n##C)) - LID_TOWARDS(-(cx), -(cz));
#define STORE(C, i, cx, cy, cz, o)                                              \
    if (IN_BOX(C, cx, cy, cz)) ST(f, AT(i, n##C + OFS(C, cx, cy, cz)), f##i##C); \
    else ST(f, AT(o, n##C), f##i##C - LID_TOWARDS(cx, cz));
#endif
#if defined(LBM_AA)
#define SRC f
#define DST f
#else
#define SRC src
#define DST dst
#endif

/* BGK relaxation of the pair (i, opp(i)) of cell C with c_i.u = s.  The
 * lattice holds f_i - w_i (as FluidX3D does), so the arithmetic works on
 * small numbers and FP32 keeps mass to rounding:  f_eq - w = w (rho - 1) +
 * w rho (3 s + 9/2 s^2 - 3/2 u^2); the odd part 3 w rho s flips sign for
 * opp(i).  (fp16s: f, w_rest and wrho are scaled by LBM_SCALE.) */
#define RELAX_PAIR(C, i, o, w_rest, wrho, s)                          \
    {                                                                 \
        const real s_ = (s);                                          \
        const real even_ = (w_rest) + (wrho) * R(4.5) * s_ * s_;      \
        const real odd_ = R(3.0) * (wrho) * s_;                       \
        f##i##C += omega * (even_ + odd_ - f##i##C);                  \
        f##o##C += omega * (even_ - odd_ - f##o##C);                  \
    }

/* BGK collision of cell C in place: moments, then the nine pairs and the
 * rest population. */
#define COLLIDE(C)                                                                             \
    {                                                                                          \
        const real rho_dev_s = f0##C + ((f1##C + f2##C) + (f3##C + f4##C) + (f5##C + f6##C)) +    \
                             ((f7##C + f8##C) + (f9##C + f10##C) + (f11##C + f12##C) +          \
                              (f13##C + f14##C)) +                                             \
                             ((f15##C + f16##C) + (f17##C + f18##C)); /* S (rho - 1) */        \
        const real rho_dev = UNSCALE(rho_dev_s);                                               \
        const real rho = R(1.0) + rho_dev;                                                     \
        const real jx = (f1##C - f2##C) + (f7##C - f8##C) + (f9##C - f10##C) +                 \
                        (f11##C - f12##C) + (f13##C - f14##C);                                 \
        const real jy = (f3##C - f4##C) + (f7##C - f8##C) + (f10##C - f9##C) +                 \
                        (f15##C - f16##C) + (f17##C - f18##C);                                 \
        const real jz = (f5##C - f6##C) + (f11##C - f12##C) + (f14##C - f13##C) +              \
                        (f15##C - f16##C) + (f18##C - f17##C);                                 \
        const real inv_rho = UNSCALE(R(1.0) / rho); /* the j above are scaled */               \
        const real ux = jx * inv_rho, uy = jy * inv_rho, uz = jz * inv_rho;                    \
        /* w (rho - 1) - w rho 3/2 u^2, per weight class */                                    \
        const real rest = SCALE(rho_dev - rho * R(1.5) * (ux * ux + uy * uy + uz * uz));       \
        const real rho_s = SCALE(rho);                                                         \
        const real w1rho = rho_s * R(1.0 / 18.0), w2rho = rho_s * R(1.0 / 36.0);               \
        const real w1rest = rest * R(1.0 / 18.0), w2rest = rest * R(1.0 / 36.0);               \
        f0##C += omega * (rest * R(1.0 / 3.0) - f0##C);                                        \
        RELAX_PAIR(C, 1, 2, w1rest, w1rho, ux)                                                 \
        RELAX_PAIR(C, 3, 4, w1rest, w1rho, uy)                                                 \
        RELAX_PAIR(C, 5, 6, w1rest, w1rho, uz)                                                 \
        RELAX_PAIR(C, 7, 8, w2rest, w2rho, ux + uy)                                            \
        RELAX_PAIR(C, 9, 10, w2rest, w2rho, ux - uy)                                           \
        RELAX_PAIR(C, 11, 12, w2rest, w2rho, ux + uz)                                          \
        RELAX_PAIR(C, 13, 14, w2rest, w2rho, ux - uz)                                          \
        RELAX_PAIR(C, 15, 16, w2rest, w2rho, uy + uz)                                          \
        RELAX_PAIR(C, 17, 18, w2rest, w2rho, uy - uz)                                          \
    }

/* Cell C, the k-th of this thread: x_a + k when that lies inside the row,
 * else a copy of cell a (its scalar loads and collision repeat a's; its
 * stores are skipped), so every load stays unconditional and in bounds.  Its
 * x neighbours (periodic) or x walls (cavity) are its own. */
#if defined(LBM_CAVITY)
/* (offsets are only used towards cells inside the box) */
#define CELL_X(C) const i32 at_xm##C = x##C == 0, at_xp##C = x##C == nx - 1, xp##C = 1, xm##C = -1; \
                  (void)at_xm##C; (void)at_xp##C; (void)xp##C; (void)xm##C;
#define INNER_X(C) const i32 at_xm##C = 0, at_xp##C = 0, xp##C = 1, xm##C = -1; \
                   (void)at_xm##C; (void)at_xp##C; (void)xp##C; (void)xm##C;
/* y, z walls of the row (y, z) and its neighbour offsets */
#define ROW_YZ                                                 \
    const i32 at_ym = y == 0, at_yp = y == ny - 1;             \
    const i32 at_zm = Z_GLOBAL(z) == 0, at_zp = Z_GLOBAL(z) == NZ_GLOBAL - 1; \
    const real lid6 = SCALE(lid_u * R(1.0 / 6.0));             \
    const i32 yp = nxp, ym = -nxp, zp = plane, zm = -plane;    \
    (void)at_ym; (void)at_zm; (void)at_yp; (void)at_zp; (void)lid6; \
    (void)yp; (void)ym; (void)zp; (void)zm;
#else
#define CELL_X(C) const i32 xp##C = x##C == nx - 1 ? 1 - nx : 1; \
                  const i32 xm##C = x##C == 0 ? nx - 1 : -1;     \
                  (void)xp##C; (void)xm##C;
/* a cell that is neither end of its row */
#define INNER_X(C) const i32 xp##C = 1, xm##C = -1; (void)xp##C; (void)xm##C;
/* Periodic neighbours of the row (y, z), with selects; a slab's z
 * neighbours are its own planes or its halos. */
#if defined(LBM_SLAB)
#define Z_NEIGHBOURS const i32 zp = plane, zm = -plane;
#else
#define Z_NEIGHBOURS                                                  \
    const i32 zp = z == nz - 1 ? (1 - nz) * plane : plane;            \
    const i32 zm = z == 0 ? (nz - 1) * plane : -plane;
#endif
#define ROW_YZ                                                        \
    const i32 yp = y == ny - 1 ? (1 - ny) * nxp : nxp;                \
    const i32 ym = y == 0 ? (ny - 1) * nxp : -nxp;                    \
    Z_NEIGHBOURS                                                      \
    (void)yp; (void)ym; (void)zp; (void)zm; (void)lid_u;
#endif
#define CELL(C, k)                                \
    const i32 inside##C = x_a + (k) < nx;         \
    const i32 x##C = inside##C ? x_a + (k) : x_a; \
    const i32 n##C = n_a + (x##C - x_a);          \
    CELL_X(C)

#if defined(LOAD)
#if !defined(CELLS_PER_THREAD)
#define CELLS_PER_THREAD 1
#endif
#if CELLS_PER_THREAD != 1 && CELLS_PER_THREAD != 2 && CELLS_PER_THREAD != 4
#error "CELLS_PER_THREAD must be 1, 2 or 4"
#endif
#if defined(LBM_ROW) && CELLS_PER_THREAD != 1
#error "LBM_ROW updates one cell at a time"
#endif

/* Population i of every cell of the thread (LBM_D3Q19's five arguments):
 * declared, loaded one word per cell, stored one word per cell (cells past
 * the row's end are not stored). */
#if CELLS_PER_THREAD == 1
#define DECL(i, cx, cy, cz, o) real f##i##_a;
#define LOADS(i, cx, cy, cz, o) LOAD(_a, i, cx, cy, cz, o)
#define STORES(i, cx, cy, cz, o) STORE(_a, i, cx, cy, cz, o)
#elif CELLS_PER_THREAD == 2
#define DECL(i, cx, cy, cz, o) real f##i##_a, f##i##_b;
#define LOADS(i, cx, cy, cz, o) LOAD(_a, i, cx, cy, cz, o) LOAD(_b, i, cx, cy, cz, o)
#define STORES(i, cx, cy, cz, o) \
    STORE(_a, i, cx, cy, cz, o) if (inside_b) { STORE(_b, i, cx, cy, cz, o) }
#else
#define DECL(i, cx, cy, cz, o) real f##i##_a, f##i##_b, f##i##_c, f##i##_d;
#define LOADS(i, cx, cy, cz, o) \
    LOAD(_a, i, cx, cy, cz, o) LOAD(_b, i, cx, cy, cz, o) LOAD(_c, i, cx, cy, cz, o) LOAD(_d, i, cx, cy, cz, o)
#define STORES(i, cx, cy, cz, o)                                                                \
    STORE(_a, i, cx, cy, cz, o) if (inside_b) { STORE(_b, i, cx, cy, cz, o) }                   \
    if (inside_c) { STORE(_c, i, cx, cy, cz, o) } if (inside_d) { STORE(_d, i, cx, cy, cz, o) }
#endif

/* The periodic box with several cells per thread: an access that keeps its
 * x position (RX or WX 0) moves the thread's cells as one vector of 8 or 16
 * bytes (two 16-byte halves for four doubles): a warp then moves 256 or 512
 * contiguous bytes per instruction instead of 128.  The others stay one
 * word per cell, but for fp16s push's and A-A odd's shifted stores, which
 * go through an exchange between neighbouring threads (LBM_XCHG below).
 * Vector addresses are aligned: x_a, nxp and so cp are
 * multiples of CELLS_PER_THREAD.  A vector store needs all cells inside the
 * row; the last, partial vector of a row stores word by word. */
#if CELLS_PER_THREAD > 1 && !defined(LBM_CAVITY)
#define LBM_VECTOR 1
#if defined(LBM_HALF) /* 4- or 8-byte vectors of halves */
#if CELLS_PER_THREAD == 2
#define VLD(P, i, idx) { const float2 v_ = lbp_load_half2(P, idx); f##i##_a = v_.x; f##i##_b = v_.y; }
#define VST(P, i, idx) { float2 v_; v_.x = f##i##_a; v_.y = f##i##_b; lbp_store_half2(P, idx, v_); }
#else
#define VLD(P, i, idx)                                                      \
    {                                                                       \
        const float4 v_ = lbp_load_half4(P, idx);                           \
        f##i##_a = v_.x; f##i##_b = v_.y; f##i##_c = v_.z; f##i##_d = v_.w; \
    }
#define VST(P, i, idx)                                                      \
    {                                                                       \
        float4 v_;                                                          \
        v_.x = f##i##_a; v_.y = f##i##_b; v_.z = f##i##_c; v_.w = f##i##_d; \
        lbp_store_half4(P, idx, v_);                                        \
    }
#endif
#elif CELLS_PER_THREAD == 4 && !defined(LBM_DOUBLE)
typedef float4 vreal;
#define VLD(P, i, idx)                                                          \
    {                                                                           \
        const vreal v_ = *(GLOBAL const vreal *)((P) + (idx));                  \
        f##i##_a = v_.x; f##i##_b = v_.y; f##i##_c = v_.z; f##i##_d = v_.w;     \
    }
#define VST(P, i, idx)                                                          \
    {                                                                           \
        vreal v_;                                                               \
        v_.x = f##i##_a; v_.y = f##i##_b; v_.z = f##i##_c; v_.w = f##i##_d;     \
        *(GLOBAL vreal *)((P) + (idx)) = v_;                                    \
    }
#else
#if defined(LBM_DOUBLE)
typedef double2 vreal;
#else
typedef float2 vreal;
#endif
#define VLD2(P, idx, A, B)                                                      \
    {                                                                           \
        const vreal v_ = *(GLOBAL const vreal *)((P) + (idx));                  \
        A = v_.x; B = v_.y;                                                     \
    }
#define VST2(P, idx, A, B)                                                      \
    {                                                                           \
        vreal v_;                                                               \
        v_.x = A; v_.y = B;                                                     \
        *(GLOBAL vreal *)((P) + (idx)) = v_;                                    \
    }
#if CELLS_PER_THREAD == 2
#define VLD(P, i, idx) VLD2(P, idx, f##i##_a, f##i##_b)
#define VST(P, i, idx) VST2(P, idx, f##i##_a, f##i##_b)
#else
#define VLD(P, i, idx) VLD2(P, idx, f##i##_a, f##i##_b) VLD2(P, (idx) + 2, f##i##_c, f##i##_d)
#define VST(P, i, idx) VST2(P, idx, f##i##_a, f##i##_b) VST2(P, (idx) + 2, f##i##_c, f##i##_d)
#endif
#endif
#define LOADV(i, cx, cy, cz, o)                                                   \
    if (RX(cx) == 0) { VLD(SRC, i, AT(RSLOT(i, o), n_a + OFS(_a, 0, RY(cy), RZ(cz)))) } \
    else { LOADS(i, cx, cy, cz, o) }
#define STOREV(i, cx, cy, cz, o)                                                                 \
    if (WX(cx) == 0 && all_inside) { VST(DST, i, AT(WSLOT(i, o), n_a + OFS(_a, 0, WY(cy), WZ(cz)))) } \
    else { STORES(i, cx, cy, cz, o) }

/* fp16s push: the shifted stores as aligned vectors too.
 * A thread's v cells of population i go to x_a + c_ix .. x_a + v - 1 + c_ix,
 * one half word off the vector's alignment: stored cell by cell, a warp
 * writes a v-th of every sector with each of v instructions.  Instead each
 * thread hands the cell that leaves its vector (the last for c_ix = +1, the
 * first for -1) to its neighbour through local memory, and stores the
 * aligned vector at x_a with the neighbour's cell in it: one 4- or 8-byte
 * store per array, as the aligned side.  At a row's ends x wraps: the
 * neighbour of its first thread is its last, and the other way round, where
 * the row is whole vectors (nx a multiple of v).  Where the neighbour is in
 * another block or past the exchange's LBM_XCHG_BLOCK threads, or the row
 * ends in a partial vector, both sides store cell by cell; the rules below
 * pair up so that every word is stored once:
 *   x_prev  the thread holding x - 1 shares the block and the exchange, and
 *           is the one before, or the row's last (whole vectors)
 *   x_next  the thread holding x + v likewise, the one after (its first
 *           cell inside the row) or the row's first
 *   take_prev / take_next  this thread stores its vector with that cell
 *   next_takes / prev_takes  the neighbour does (so this one leaves it)
 * Not A-A's odd step: its 19 shifted loads and the exchange's indices
 * together spill registers to local memory at 2 and 4 cells per thread,
 * which costs it more than the cell-by-cell stores (doc/findings/fp16.md).
 * The openmp backend runs groups of one: no barrier, no exchange. */
#if defined(LBM_HALF) && LBP_HAS_GROUP_BARRIER && defined(LBM_PUSH)
#define LBM_XCHG 1
/* The cell a thread hands on it also stores itself where the neighbour
 * does not take it: read back from the exchange (XOWN), it need not stay in
 * a register across the barrier (two cells: 64 registers instead of 72, so
 * two blocks of 512 fit on an SM).  That needs a slot for every thread of
 * any group: where the dialect bounds a group (LBP_MAX_GROUP), the
 * exchange covers that many; elsewhere its first 512 threads, and a thread
 * past them keeps its cell.  The 20 KB this takes leave fewer blocks of 64
 * an SM, which costs a little there (doc/findings/fp16.md, "Two cells a
 * thread at one block of 512 an SM"). */
#if defined(LBP_MAX_GROUP) && LBP_MAX_GROUP <= 1024
#define LBM_XCHG_BLOCK LBP_MAX_GROUP
#define XOWN(i, C) XGET(i, 0)
#else
#define LBM_XCHG_BLOCK 512
#define XOWN(i, C) (x_lid < x_n ? XGET(i, 0) : f##i##C)
#endif
/* the slot of the 10 populations with c_ix != 0 (1, 2, 7 .. 14) */
#define XSLOT(i) ((i) < 7 ? ((i) > 0 ? (i) - 1 : 0) : (i) - 5)
#define XAT(i, k) xchg[XSLOT(i) * LBM_XCHG_BLOCK + x_lid + (k)]
#define XGET(i, k) lbp_half_to_float(XAT(i, k))
/* a single word of population i at cell C's shifted place: value v */
#define XSTORE(C, i, cx, cy, cz, o, v) ST(DST, AT(WSLOT(i, o), n##C + OFS(C, WX(cx), WY(cy), WZ(cz))), v);
/* this thread's aligned vector of slot WSLOT(i) at the written row */
#define XV_AT(i, cy, cz, o) AT(WSLOT(i, o), n_a + OFS(_a, 0, WY(cy), WZ(cz)))
#if CELLS_PER_THREAD == 2
#define XLAST(i) f##i##_b
#define XST_UP(i, cx, cy, cz, o)                                                         \
    if (take_prev) {                                                                     \
        float2 v_; v_.x = XGET(i, x_po); v_.y = f##i##_a;                                \
        lbp_store_half2(DST, XV_AT(i, cy, cz, o), v_);                                   \
    } else { STORE(_a, i, cx, cy, cz, o) }                                               \
    if (inside_b && !next_takes) { XSTORE(_b, i, cx, cy, cz, o, XOWN(i, _b)) }
#define XST_DOWN(i, cx, cy, cz, o)                                                       \
    if (take_next) {                                                                     \
        float2 v_; v_.x = f##i##_b; v_.y = XGET(i, x_no);                                \
        lbp_store_half2(DST, XV_AT(i, cy, cz, o), v_);                                   \
    } else if (inside_b) { STORE(_b, i, cx, cy, cz, o) }                                 \
    if (!prev_takes) { XSTORE(_a, i, cx, cy, cz, o, XOWN(i, _a)) }
#else
#define XLAST(i) f##i##_d
#define XST_UP(i, cx, cy, cz, o)                                                         \
    if (take_prev) {                                                                     \
        float4 v_; v_.x = XGET(i, x_po); v_.y = f##i##_a; v_.z = f##i##_b; v_.w = f##i##_c; \
        lbp_store_half4(DST, XV_AT(i, cy, cz, o), v_);                                   \
    } else {                                                                             \
        STORE(_a, i, cx, cy, cz, o)                                                      \
        if (inside_b) { STORE(_b, i, cx, cy, cz, o) }                                    \
        if (inside_c) { STORE(_c, i, cx, cy, cz, o) }                                    \
    }                                                                                    \
    if (inside_d && !next_takes) { XSTORE(_d, i, cx, cy, cz, o, XOWN(i, _d)) }
#define XST_DOWN(i, cx, cy, cz, o)                                                       \
    if (take_next) {                                                                     \
        float4 v_; v_.x = f##i##_b; v_.y = f##i##_c; v_.z = f##i##_d; v_.w = XGET(i, x_no); \
        lbp_store_half4(DST, XV_AT(i, cy, cz, o), v_);                                   \
    } else {                                                                             \
        if (inside_b) { STORE(_b, i, cx, cy, cz, o) }                                    \
        if (inside_c) { STORE(_c, i, cx, cy, cz, o) }                                    \
        if (inside_d) { STORE(_d, i, cx, cy, cz, o) }                                    \
    }                                                                                    \
    if (!prev_takes) { XSTORE(_a, i, cx, cy, cz, o, XOWN(i, _a)) }
#endif
/* the cell that leaves this thread's vector, as a half, for its neighbour */
#define XPUT(i, cx, cy, cz, o) \
    if (WX(cx) != 0 && x_lid < x_n) { XAT(i, 0) = lbp_float_to_half(WX(cx) > 0 ? XLAST(i) : f##i##_a); }
#undef STOREV
#define STOREV(i, cx, cy, cz, o)                                                                   \
    if (WX(cx) == 0) {                                                                             \
        if (all_inside) { VST(DST, i, AT(WSLOT(i, o), n_a + OFS(_a, 0, WY(cy), WZ(cz)))) }         \
        else { STORES(i, cx, cy, cz, o) }                                                          \
    } else if (WX(cx) > 0) { XST_UP(i, cx, cy, cz, o) }                                            \
    else { XST_DOWN(i, cx, cy, cz, o) }
#endif
#endif

/* CUDA: capped so that a 512-thread block fits (A-A keeps its load
 * addresses live for the stores to the same slots).  A-A with four half
 * cells a thread needs more than the 128 registers a 512-thread block
 * leaves (its odd step spills a few hundred bytes a thread to local memory,
 * which costs more than the occupancy the cap keeps): it launches at most
 * 256 threads a block instead.  Split, two float
 * cells per thread: held to pull's 80 registers (no spills; NVRTC 12.4
 * on), so that two blocks of 384 threads fit on an SM: with one block of
 * 384 per SM, as its own register count leaves it, that launch runs well
 * below the other block sizes.  Pull and split, two half cells per thread:
 * held to 64 registers (no spills), so that two blocks of 512 fit instead
 * of one, where one ran well below the other block sizes.  Push needs no
 * cap: its exchange leaves it at 64 (XOWN above; held to 64 with its cell
 * kept in a register, it spilled). */
#if defined(LBP_CUDA) && defined(LBM_AA) && defined(LBM_HALF) && CELLS_PER_THREAD == 4
#define LBM_STEP_BOUNDS __launch_bounds__(256, 1)
#elif defined(LBP_CUDA) && defined(LBM_AA) && CELLS_PER_THREAD > 1 && !defined(LBM_DOUBLE)
#define LBM_STEP_BOUNDS __launch_bounds__(512, 1)
#elif defined(LBP_CUDA) && defined(LBM_FP16S) && CELLS_PER_THREAD == 2 && (defined(LBM_PULL) || defined(LBM_SPLIT)) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define LBM_STEP_BOUNDS __maxnreg__(64)
#elif defined(LBP_CUDA) && defined(LBM_SPLIT) && CELLS_PER_THREAD == 2 && !defined(LBM_DOUBLE) && \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4))
#define LBM_STEP_BOUNDS __maxnreg__(80)
#else
#define LBM_STEP_BOUNDS
#endif
#if defined(LBM_AA)
#define LBM_PARAMS GLOBAL word_t *RESTRICT f
#else
#define LBM_PARAMS GLOBAL const word_t *RESTRICT src, GLOBAL word_t *RESTRICT dst
#endif

#if defined(LBM_ROW)
/* One time step, one thread per row (y, z) of the lattice, its cells in a
 * loop over x: the shape of a CPU code, for OpenCL on CPUs (which run a
 * work-group as a loop over its work-items and vectorize the innermost loop)
 * and for the C of the openmp backend.
 * Inside the row every access of a cell lies at a fixed offset from it, so
 * the compiler moves each population of a vector of cells with one
 * contiguous load or store; the row's two end cells, whose x neighbours wrap
 * around (or are walls), are updated on their own.  A cell per thread
 * (CELLS_PER_THREAD) is the GPU's shape: vectorized across work-items, its
 * per-cell neighbour selects and row division turn every access into a
 * gather or a scatter.  Launched with ny * nz threads.  No two cells touch
 * the same word in a step (A-A included), hence assume_safety (omp simd).
 *
 * LBM_NT (pull and split, whose stores keep x, in the periodic box; a
 * prelude with lbp_stream_f32/f64): the row's new populations go to a
 * buffer of LBM_NT_CHUNK cells per population, which stays in L1, and from
 * there to the lattice with non-temporal stores, which write whole cache
 * lines without reading them first: 152 bytes per update of fp32 instead of
 * the 228 of a write-allocate (Habich; lbm-benchmark-kernels' "nt"
 * kernels).  The row runs in chunks of that many cells; without LBM_NT it
 * is one chunk. */
#if defined(LBM_NT)
#if !defined(LBP_HAS_NT_STORE) || !LBP_HAS_NT_STORE
#error "LBM_NT: this backend's prelude offers no non-temporal stores"
#endif
#if defined(LBM_CAVITY) || defined(LBM_FP16S) || !(defined(LBM_PULL) || defined(LBM_SPLIT))
#error "LBM_NT: pull or split in the periodic box (stores that keep x), words of fp32 or fp64"
#endif
#define LBM_NT_CHUNK LBP_STREAM_CHUNK
#if defined(LBM_DOUBLE)
#define NT_STREAM lbp_stream_f64
#else
#define NT_STREAM lbp_stream_f32
#endif
#undef STORE
#define STORE(C, i, cx, cy, cz, o) nt_row[WSLOT(i, o)][n##C - nt_base] = f##i##C;
#define NT_FLUSH(i, cx, cy, cz, o) \
    NT_STREAM(&DST[AT(WSLOT(i, o), nt_base + OFS(_a, 0, WY(cy), WZ(cz)))], nt_row[WSLOT(i, o)], x_end - x0);
#define ROW_CHUNK LBM_NT_CHUNK
#else
#define ROW_CHUNK nx
#endif
#define CELL_UPDATE                \
    {                              \
        LBM_D3Q19(DECL)            \
        LBM_D3Q19(LOADS)           \
        COLLIDE(_a)                \
        LBM_D3Q19(STORES)          \
    }
KERNEL void lbm_step(LBM_PARAMS, const i32 nx, const i32 ny, const i32 nz, const i32 nxp, const i64 cp,
                     const real omega, const real lid_u SLAB_PARAMS)
{
    const i64 gid = global_id(0);
    if (gid >= (i64)ny * LAUNCH_PLANES) return;
    const i32 row = SLAB_ROW((i32)gid); /* y + ny*z */
    (void)cp;
    const i32 z = row / ny;
    const i32 y = row - z * ny;
    const i32 plane = nxp * ny;
    ROW_YZ
    const i32 n_row = row * nxp;
#if defined(LBM_NT)
    real nt_row[19][LBM_NT_CHUNK];
#endif
    for (i32 x0 = 0; x0 < nx; x0 += ROW_CHUNK) {
        const i32 x_end = nx - x0 < ROW_CHUNK ? nx : x0 + ROW_CHUNK;
        const i32 nt_base = n_row + x0;
        (void)nt_base;
        if (x0 == 0) {
            const i32 x_a = 0, n_a = n_row;
            CELL_X(_a)
            CELL_UPDATE
        }
        const i32 x_inner_end = x_end < nx - 1 ? x_end : nx - 1;
#if defined(__clang__)
#pragma clang loop vectorize(assume_safety)
#elif defined(LBP_OPENMP)
#pragma omp simd
#endif
        for (i32 x = x0 > 1 ? x0 : 1; x < x_inner_end; x++) {
            const i32 n_a = n_row + x;
            INNER_X(_a)
            CELL_UPDATE
        }
        if (x_end == nx && nx > 1) {
            const i32 x_a = nx - 1, n_a = n_row + x_a;
            CELL_X(_a)
            CELL_UPDATE
        }
#if defined(LBM_NT)
        {
            INNER_X(_a)
            LBM_D3Q19(NT_FLUSH)
        }
#endif
    }
#if defined(LBM_NT)
    lbp_stream_fence();
#endif
}
#else
/* One time step of every cell: omega = 1/tau (precomputed on the host),
 * lid_u the lid velocity (cavity only).
 *
 * Threads: tpr = nxp / CELLS_PER_THREAD per row (y, z), so the launch covers
 * tpr * ny * nz threads (nxp * ny * nz with one cell per thread).  Thread j
 * of a row updates the cells x = j CELLS_PER_THREAD + k, k < CELLS_PER_THREAD, that
 * lie inside the row (x < nx).  All loads are issued before any collision,
 * all stores after.  Threads whose first cell lies in the padding return at
 * once. */
KERNEL void LBM_STEP_BOUNDS lbm_step(LBM_PARAMS, const i32 nx, const i32 ny, const i32 nz,
                                     const i32 nxp, const i64 cp, const real omega, const real lid_u SLAB_PARAMS)
{
#if defined(LBM_XCHG)
    LOCAL u16 xchg[10 * LBM_XCHG_BLOCK]; /* first: OpenCL's local variables at kernel scope */
#endif
    const i64 gid = global_id(0);
    const i32 tpr = nxp / CELLS_PER_THREAD; /* threads per row */
#if defined(LBM_XCHG)
    /* Every thread meets the exchange's barrier: one past the launch or in
     * the padding columns works on the row's first cells and stores nothing. */
    const i32 in_launch = gid < (i64)tpr * ny * LAUNCH_PLANES;
    const i32 t = in_launch ? (i32)gid : 0;
#else
    if (gid >= (i64)tpr * ny * LAUNCH_PLANES) return;
    const i32 t = (i32)gid;
#endif
    const i32 launch_row = (i32)((u32)t / (u32)tpr);
    const i32 x_t = (t - launch_row * tpr) * CELLS_PER_THREAD;
#if defined(LBM_XCHG)
    const i32 active = in_launch && x_t < nx;
    const i32 x_a = x_t < nx ? x_t : 0;
#else
    const i32 x_a = x_t;
    if (x_a >= nx) return; /* padding column */
#endif
    const i32 row = SLAB_ROW(launch_row); /* y + ny*z */
    const i32 n_a = row * nxp + x_a;
    (void)cp;
    const i32 z = (i32)((u32)row / (u32)ny);
    const i32 y = row - z * ny;
    const i32 plane = nxp * ny;
    ROW_YZ
    CELL_X(_a)
#if CELLS_PER_THREAD > 1
    CELL(_b, 1)
#endif
#if CELLS_PER_THREAD > 2
    CELL(_c, 2)
    CELL(_d, 3)
#endif

    /* All loads of all cells first: independent, all in flight together. */
    LBM_D3Q19(DECL)
#if defined(LBM_VECTOR)
    const i32 all_inside = x_a + CELLS_PER_THREAD <= nx;
    LBM_D3Q19(LOADV)
#else
    LBM_D3Q19(LOADS)
#endif

    COLLIDE(_a)
#if CELLS_PER_THREAD > 1
    COLLIDE(_b)
#endif
#if CELLS_PER_THREAD > 2
    COLLIDE(_c)
    COLLIDE(_d)
#endif

#if defined(LBM_XCHG)
    const i32 x_lid = local_id(0);
    const i32 x_n = local_size(0) < LBM_XCHG_BLOCK ? local_size(0) : LBM_XCHG_BLOCK;
    LBM_D3Q19(XPUT)
    LOCAL_BARRIER;
    if (!active) return;
    /* x wraps: the thread before a row's first is the row's last, and the
     * one after its last its first, where its rows are whole vectors
     * (x_po, x_no: those threads' local ids less this one's) */
    const i32 x_row = nx % CELLS_PER_THREAD == 0 ? nx / CELLS_PER_THREAD : 0; /* 0: no wrap */
    const i32 x_last = x_a + CELLS_PER_THREAD >= nx;
    const i32 x_po = x_a > 0 ? -1 : x_row - 1, x_no = x_last ? 1 - x_row : 1;
    const i32 x_prev = x_lid < x_n && x_lid + x_po >= 0 && x_lid + x_po < x_n && (x_a > 0 || x_row > 0);
    const i32 x_next = x_lid < x_n && x_lid + x_no >= 0 && x_lid + x_no < x_n && (!x_last || x_row > 0);
    const i32 take_prev = x_prev && all_inside, prev_takes = x_prev;
    const i32 take_next = x_next, next_takes = x_next && (x_a + 2 * CELLS_PER_THREAD <= nx || x_last);
#endif
#if defined(LBM_VECTOR)
    LBM_D3Q19(STOREV)
#else
    LBM_D3Q19(STORES)
#endif
}
#endif /* LBM_ROW */
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
        ST(f, AT(i, n), pad ? R(0) : SCALE(W_(cx, cy, cz) * (rho_dev + rho * (R(3.0) * s_ + R(4.5) * s_ * s_ - u15)))); \
    }
#define W_(cx, cy, cz) \
    ((cx) * (cx) + (cy) * (cy) + (cz) * (cz) == 0 ? R(1.0 / 3.0) : (cx) * (cx) + (cy) * (cy) + (cz) * (cz) == 1 ? R(1.0 / 18.0) : R(1.0 / 36.0))

/* Equilibrium of a Taylor-Green vortex in x-y with amplitude u0, stored as
 * f - w (fp16s: scaled; timing runs; verification uploads its fields from the host).  One
 * thread per word of an array (cp); padding and the gap between arrays get 0. */
KERNEL void lbm_init(GLOBAL word_t *RESTRICT f, const i32 nx, const i32 ny, const i32 nz,
                     const i32 nxp, const i64 cp, const real u0)
{
    const i64 gid = global_id(0);
    if (gid >= cp) return;
    const i32 n = (i32)gid;
    const i32 row = n / nxp;
    const i32 x = n - row * nxp;
    const i32 y = row % ny;
    const i32 pad = x >= nx || row >= ny * nz;
    const real kx = R(6.283185307179586) / R(nx), ky = R(6.283185307179586) / R(ny);
    const real ux = u0 * SIN_(kx * R(x)) * COS_(ky * R(y));
    const real uy = -u0 * COS_(kx * R(x)) * SIN_(ky * R(y));
    const real uz = R(0);
    const real rho_dev = -R(0.75) * u0 * u0 * (COS_(R(2) * kx * R(x)) + COS_(R(2) * ky * R(y)));
    const real rho = R(1.0) + rho_dev;
    const real u15 = R(1.5) * (ux * ux + uy * uy);
    LBM_D3Q19(INIT_STORE)
}
#endif

#if defined(LBM_MASS)
#if !defined(MASS_BLOCK)
#define MASS_BLOCK 256
#endif
/* Sum of all `count` words of f (that is, mass - cells, as f - w is stored;
 * fp16s: times LBM_SCALE, which the host divides out):
 * one partial sum per block (launched with MASS_BLOCK threads), added up on
 * the host.  Padding holds zeros. */
KERNEL void lbm_mass(GLOBAL const word_t *RESTRICT f, const i64 count, GLOBAL acc_t *RESTRICT partial)
{
#if MASS_BLOCK == 1
    /* One work-item per group, on a device whose groups cannot wait at a
     * barrier (a CPU running a group's items as a loop): each sums its
     * contiguous share, which a CPU core reads best (a grid-stride share
     * would make every core read every cache line). */
    const i64 g = group_id(0), groups = num_groups(0);
    acc_t s = 0;
    for (i64 k = count * g / groups; k < count * (g + 1) / groups; k++) s += (acc_t)LD(f, k);
    partial[g] = s;
#else
    LOCAL acc_t sums[MASS_BLOCK];
    const i32 t = local_id(0);
    const i64 stride = (i64)num_groups(0) * MASS_BLOCK;
    acc_t s = 0;
    for (i64 k = global_id(0); k < count; k += stride) s += (acc_t)LD(f, k);
    sums[t] = s;
    LOCAL_BARRIER;
    for (i32 h = MASS_BLOCK / 2; h > 0; h /= 2) {
        if (t < h) sums[t] += sums[t + h];
        LOCAL_BARRIER;
    }
    if (t == 0) partial[group_id(0)] = sums[0];
#endif
}
#endif
