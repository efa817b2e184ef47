/* Inside the model: the pieces of level 2 and the paths of level 3, each
 * in its own file; model_predict (predict.c) puts them together. */
#ifndef MODEL_LEVELS_H
#define MODEL_LEVELS_H

#include "lookup.h"
#include "predict.h"

/* ---- level 2 (probe.c, misalign.c, occupancy.c, compute.c) ---- */

/* The base probe T(N) at L = M = 0, no payload: the words sweep, else any
 * aligned probe at the default launch. */
typedef struct {
    model_probe_curve found; /* the curve over N and where it was read */
    double threads;          /* median thread count of its rows (their working set) */
    double occupancy;        /* median occupancy of its rows, -1 unknown */
    int block_size;          /* its rows' block size */
} model_base_probe;

/* fallbacks: PROBE_OR_OTHER_WORD to read another word size scaled by
 * bytes.  Returns 1 when found (free base->found), else 0. */
int model_base_probe_find(const model_inputs *in, int word_bytes, int block_size, unsigned fallbacks,
                          model_base_probe *base, model_provenance *prov);

/* Extra ns per thread of L misaligned reads and M misaligned writes, at the
 * kernel's block size and N, over the base probe's time (never < 0). */
double model_misalignment_extra(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                                const model_probe_shape *shape, model_provenance *prov);

/* How the linear probe's misaligned extra grows with the count: the
 * misaligned sweep (reads: writes = 0, writes: 1, both: 2) of N=19 (the
 * nearest measured) at this word and block size, its extra at `count` over
 * its extra at `at`; -1 where not measured or the extra at `at` is not
 * above 0. */
double model_misaligned_count_ratio(const model_inputs *in, int word_bytes, int block_size, int writes, int count,
                                    int at);

/* Probe time at the kernel's occupancy over at the base probe's own. */
double model_occupancy_factor(const model_inputs *in, const model_base_probe *base, const model_lattice *lat,
                              model_provenance *prov);

/* A variant of the occupancy sweep (L, M misaligned, or payload) over the
 * aligned probe at the kernel's block size and occupancy; -1 where not
 * measured.  *ops (may be NULL): the payload's operations per thread. */
typedef struct {
    int word_bytes, misaligned_reads, misaligned_writes, payload;
} model_variant;
double model_variant_ratio(const model_inputs *in, const model_variant *v, const model_lattice *lat, int *ops,
                           model_provenance *prov);

/* The kernel's arithmetic (ops per thread at accesses of word_bytes):
 * payload probe time over the aligned probe's, >= 1; 1 without payload
 * probes or ops. */
double model_compute_factor(const model_inputs *in, double ops, int word_bytes, const model_lattice *lat,
                            model_provenance *prov);

/* A kernel of several cells per thread whose misaligned words move one
 * per cell (model_kernel.misaligned_access, vector.c). */
int model_misaligned_by_word(const model_kernel *k);
/* Its phase's misaligned accesses on membench's vector probes: the probe
 * with the phase's L and M over the aligned one, >= 1, read on the
 * occupancy sweep at lat's block size and occupancy where measured there,
 * else on the vector sweep at lat's block size where measured (<= 0:
 * any).  -1 where it does not apply (one cell per
 * thread, misaligned words moved as vectors, nothing misaligned) or where
 * the sweep was not measured (recorded in prov as a fallback: the caller
 * reads the probes of the access width, as before). */
double model_vector_ratio(const model_inputs *in, const model_kernel *k, int phase, const model_lattice *lat,
                          model_provenance *prov);

/* A variant's time over its aligned twin's (l: with_aligned, its curves
 * back to back over log(threads)), as measured: at `threads` (clamped to
 * the counts both measured) into *here, at the largest both measured into
 * *top; *probe_ops (may be NULL) the variant's operations per thread.
 * Fallbacks taken are recorded in prov (may be NULL).  0 where either
 * curve is missing (path_threads.c). */
int model_variant_over_aligned(const model_inputs *in, const model_probe_lookup *l, double threads, double *here,
                               double *top, int *probe_ops, model_provenance *prov);

/* A kernel with non-temporal stores on a CPU: the rows sweep's
 * non-temporal probe over its aligned row probe (word_bytes, or the other
 * word size measured; block_size or the sweep's most common), at `cells`
 * (clamped to the counts both measured; <= 0: the largest), as measured:
 * below 1 the write-allocate saved, above 1 a cost (such stores bypass the
 * caches a small lattice would stay in).  0 where that probe was not
 * measured (data from before it).  probe.c. */
double model_nontemporal_ratio(const model_inputs *in, int word_bytes, int block_size, double cells,
                               model_provenance *prov);

/* Level 2 for a kernel (probe.c).  Returns 0, or -1 with err. */
int model_probe_level_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                         model_probe_level *out, model_provenance *prov, char *err, size_t err_len);

/* ---- level 3 ---- */

/* A grid launch whose blocks are narrower than a warp in x (BX < 32, GPUs):
 * each warp takes BX cells of 32 / BX rows.  factor[phase]: membench's
 * narrow probe at BX (4, 8 or 16: the nearest below) over at 32 (where
 * the narrow sweep was not run, the tile sweep's BX x 32/BX x 1 blocks over
 * 32 x 1 x 1), at the
 * phase's L and M (each the nearer of 0 and 10; both misaligned, the 10/0
 * and 0/10 ratios times each other over the 0/0 one), read at the launch's
 * threads (clamped to those measured), level 3's memory time multiplies by
 * it.  Returns 1 with factor, 0 where the launch is not such a grid, -1
 * where the sweep was not measured (recorded in prov as a fallback). */
int model_narrow_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                         model_provenance *prov);

/* A grid launch of blocks BX x BY x BZ (GPUs): factor[phase] is
 * membench's tile probe at that shape over its linear reference (BS x 1 x
 * 1, BS = BX BY BZ: the same block size), at the phase's L and M as
 * model_narrow_factors reads them, at the launch's threads (clamped).
 * Returns 1 with factor, 0 where the launch is not a grid or the tile
 * sweep lacks the shape (noted in prov: model_narrow_factors, as before,
 * then decides). */
int model_tile_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                       model_provenance *prov);

/* What every path reads. */
typedef struct {
    const model_inputs *in;
    const model_kernel *k;
    const model_lattice *lat;
    const model_probe_level *probe; /* level 2's answer */
} model_path_query;

/* A path writes out->full.answer[its id] (applies = 0 where it does not
 * apply) and its detail in out->full. */
void model_geometry_path(const model_path_query *q, model_prediction *out);
/* The geometry sweep's probe at the kernel's launch (laid out as its
 * lattices are, no payload) with L and M of 0 or 10, in µs; -1 where not
 * measured there (path_geometry.c says when it answers). */
double model_geometry_probe_us(const model_inputs *in, const model_kernel *k, const model_lattice *lat, int L, int M);

/* Level 3's factor per phase for the words a row or plane away that
 * straddle sectors (launch.h: model_row_shifted_words), on each path's
 * memory time: the probe of the kernel's access width with those words
 * misaligned too over the probe with its own (rowshift.c).  Returns 1 where
 * a factor is not 1, else 0 (factor all 1). */
int model_row_shift_factors(const model_inputs *in, const model_kernel *k, const model_lattice *lat, double *factor,
                            model_provenance *prov);
void model_threads_path(const model_path_query *q, model_prediction *out);
void model_size_sweep_path(const model_path_query *q, model_prediction *out);

#endif
