/* The cubic lattices (edge lengths) lbmkernels runs on a CPU by default,
 * which membench's threads sweep probes there: a CPU row kernel's launch
 * is the model's threads-sweep reading at the lattice's cells, so these
 * cells are the thread counts it reads.  Shared so the two plans cannot
 * drift apart. */
#ifndef LBP_CPUCUBES_H
#define LBP_CPUCUBES_H

/* 32..256 through the last-level cache (a server's holds 100^3 in FP32)
 * and past it; 100 is not a multiple of 32 (Habich Fig. 5).  Each lattice
 * is a measurement of a few seconds per scheme at 256^3, so the list is
 * kept to the points that shape the curve. */
#define LBP_CPU_CUBES {32, 64, 100, 128, 192, 256}
#define LBP_CPU_N_CUBES 6
/* QUICK: one in the caches, one near a server's last-level cache, one
 * past it. */
#define LBP_CPU_CUBES_QUICK {32, 100, 256}
#define LBP_CPU_N_CUBES_QUICK 3

#endif
