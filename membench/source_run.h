/* membench --kernel FILE --source SRC --size LIST: an LBM kernel the suite
 * did not write (tests/validation/), described by FILE, compiled from SRC
 * through lbmprobe's device layer, verified against a host reference in
 * double precision (lbmref.h) and timed on each lattice, one row per
 * lattice in membench-kernel.csv, the columns membench --kernel writes for
 * the generated kernel, so that model check-kernels reads them.
 *
 * The contract a source keeps (doc/kernels.md, "Independent kernels"):
 *   entry   KERNEL void lbm_step(GLOBAL const W *src, GLOBAL W *dst,
 *                                i32 nx, i32 ny, i32 nz, float omega)
 *           one BGK time step from src to dst, periodic in x, y and z,
 *           launched as FILE says (launch, block, cells_per_thread);
 *   layout  structure of arrays, x fastest: population i of cell
 *           x + nx (y + ny z) at i * nx * ny * nz + cell;
 *   order   the populations' velocities in memory order after the text
 *           "memory order:" (lbmref.h), else the model's order;
 *   scheme  FILE's read_shift = -c (pull) or write_shift = +c (push);
 *   defines LBM_Q (the set's Q) and one of LBM_FP64 (with LBP_FP64),
 *           LBM_FP32, LBM_FP16S from FILE's word_bytes (8, 4, 2); W is
 *           double, float or lbp_half: fp16s keeps 32768 (f_i - w_i) in
 *           IEEE half and computes in float (FluidX3D's FP16S). */
#ifndef MB_SOURCE_RUN_H
#define MB_SOURCE_RUN_H

#include "described_run.h"

#define MB_SOURCE_ENTRY "lbm_step"
#define MB_SOURCE_MAX_BYTES (256 * 1024)

/* The command (described_run.h's options with source set).  Returns 0;
 * exits 1 when the kernel does not verify (no row written), 2 on bad
 * usage or input. */
int mb_source_main(lbp_device *dev, const mb_described_options *o, int argc, char **argv);

/* --nvrtc-check ARCH: the source compiled by NVRTC for ARCH with FILE's
 * defines, no GPU needed.  Returns 0 compiled, 1 a compile error (log
 * printed), exits 2 where NVRTC cannot be loaded or the input is bad. */
int mb_source_nvrtc_check(const mb_described_options *o);

#endif
