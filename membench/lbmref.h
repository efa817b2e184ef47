/* A host reference for LBM kernels the suite did not write (membench
 * --kernel FILE --source SRC): one generic BGK stream + collide in double
 * precision over a velocity set's table (D2Q9, D3Q15, D3Q19, D3Q27: c_i in
 * the kernel's own memory order, w_i from |c_i|^2), periodic in x, y, z;
 * the known initial state the kernels start from; and the words a kernel
 * keeps in memory at each precision. */
#ifndef MB_LBMREF_H
#define MB_LBMREF_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"

typedef struct {
    model_velocities set;
    int q;
    int c[MODEL_MAX_Q][3]; /* population i's velocity, in memory order */
    double w[MODEL_MAX_Q]; /* its weight */
} mb_lbm_set;

/* The set's populations in the model's order (model_velocities_of) with
 * their weights.  Returns Q. */
int mb_lbm_set_of(model_velocities v, mb_lbm_set *out);

/* The memory order a kernel source declares: the text after the marker
 * MB_LBM_ORDER_MARKER ("memory order:") holds Q triples "cx,cy,cz" (any
 * separators around them: a comment spanning lines).  Reorders s to it.
 * Returns 0 (1: no marker, s unchanged), -1 with why when the triples are
 * not a permutation of the set's velocities. */
#define MB_LBM_ORDER_MARKER "memory order:"
int mb_lbm_set_order(mb_lbm_set *s, const char *source, char *why, size_t why_len);

/* Propagation: pull (stream from x - c_i, then collide at x) or push
 * (collide at x, then stream to x + c_i). */
typedef enum { MB_LBM_PULL, MB_LBM_PUSH } mb_lbm_scheme;

/* Structure of arrays, x fastest: population i of cell x + nx (y + ny z)
 * at f[i * cells + cell]. */
typedef struct {
    long long nx, ny, nz;
} mb_lbm_lattice;

/* The known state: equilibrium at a density 1 +- 0.02 and a velocity of up
 * to 0.05 per axis (0 along z on a 2D set), each population then perturbed
 * by up to 3 % of itself, all from a hash of the cell and population (the
 * non-equilibrium part tells every population from its opposite). */
void mb_lbm_init(const mb_lbm_set *s, const mb_lbm_lattice *l, double *f);
/* One time step from src to dst (distinct arrays), relaxation rate omega. */
void mb_lbm_step(const mb_lbm_set *s, const mb_lbm_lattice *l, mb_lbm_scheme scheme, double omega,
                 const double *src, double *dst);

/* A population as a kernel keeps it in memory: fp64 and fp32 the value;
 * fp16s (2-byte words) FluidX3D's shifted and scaled half,
 * MB_LBM_FP16S_SCALE * (f_i - w_i) rounded to nearest even. */
#define MB_LBM_FP16S_SCALE 32768.0
void mb_lbm_encode(const mb_lbm_set *s, int word_bytes, int64_t cells, const double *f, void *words);
void mb_lbm_decode(const mb_lbm_set *s, int word_bytes, int64_t cells, const void *words, double *f);
/* The word of population i at rest equilibrium (f_i = w_i). */
void mb_lbm_rest_word(const mb_lbm_set *s, int word_bytes, int i, void *word);

#endif
