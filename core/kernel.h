/* A kernel as the model sees it: what one time step moves per cell.  The
 * four schemes lbmprobe ships are such descriptions; a user can write one
 * for any other kernel.  A kernel whose launches alternate (A-A: an even
 * step with no misaligned access, an odd one with 10 misaligned reads and
 * 10 misaligned writes) has one phase per launch pattern; the model averages
 * the phases by time (a step of each, in turn). */
#ifndef MODEL_KERNEL_H
#define MODEL_KERNEL_H

#define MODEL_MAX_PHASES 8
#define D3Q19_Q 19                 /* populations per cell */
#define D3Q19_X_MOVING 10          /* populations with a nonzero x velocity */
/* Floating-point arithmetic instructions of lbmkernels' BGK collision per
 * cell, FMA counted once: 43 add, 43 sub, 32 mul, 31 fma, 1 rcp in the PTX
 * of every scheme (nvcc -arch=sm_90 -ptx, fp32 and fp64 alike); address
 * arithmetic is not counted.  tests/test_lbmkernels counts it again. */
#define D3Q19_BGK_OPS 150

/* How a kernel's threads map to cells (model_launched_threads in launch.h
 * counts them): one per cell (or per cells_per_thread cells) in a flat
 * launch; one thread row per lattice row, each rounded up to the block's x
 * size; or a grid of blocks over x, y and z, each dimension rounded up. */
typedef enum { MODEL_LAUNCH_LINEAR, MODEL_LAUNCH_ROWS, MODEL_LAUNCH_GRID } model_launch_kind;

/* How a thread of several cells moves its misaligned words: as one vector,
 * like its aligned ones (what a probe of the access width does, and the
 * default), or one word per cell (lbmkernels: d3q19.cl moves a shifted
 * population cell by cell, since a vector one word off its alignment is no
 * access the GPU has): read on membench's vector probes. */
typedef enum { MODEL_MISALIGNED_AS_VECTOR, MODEL_MISALIGNED_BY_WORD } model_misaligned_access;

/* A kernel's velocity set (kernel files' velocities; 0: not given), one
 * word per velocity, and where a launch reads or writes word i: at the
 * cell (0) or shifted by +-c_i in some of x, y, z (read_shift, write_shift:
 * "-c" pull's reads, "+c" push's writes, "-cx" split's reads, "+cyz" its
 * writes).  The model needs it for the words a row or a plane away, which
 * straddle sectors where the rows are not whole sectors (launch.h). */
typedef enum {
    MODEL_VELOCITIES_NONE, MODEL_D2Q9, MODEL_D3Q15, MODEL_D3Q19, MODEL_D3Q27, MODEL_VELOCITY_SETS
} model_velocities;
#define MODEL_MAX_Q 27
#define MODEL_SHIFT_X 1u
#define MODEL_SHIFT_Y 2u
#define MODEL_SHIFT_Z 4u
#define MODEL_SHIFT_MINUS 8u /* -c_i; else +c_i (where any of x, y, z) */

typedef struct {
    char name[48];
    double words_read;             /* per cell and step (N for the probe) */
    double words_written;
    int word_bytes;                /* s: 4 (fp32), 8 (fp64), 2 (fp16s), ... */
    int lattices;                  /* 2 (A-B) or 1 (A-A): working set */
    int launches_per_step;         /* K launches make one time step */
    int phases;                    /* alternating launch patterns, >= 1 */
    int misaligned_reads[MODEL_MAX_PHASES];  /* L per phase */
    int misaligned_writes[MODEL_MAX_PHASES]; /* M per phase */
    int cells_per_thread;          /* adjacent cells a thread updates, moving
                                      aligned words as one vector of this many
                                      (so a thread accesses word_bytes x this);
                                      0 or 1: one cell */
    model_misaligned_access misaligned_access; /* at cells_per_thread > 1 */
    double ops_per_cell;           /* floating-point arithmetic per cell (FMA
                                      once), read from membench's payload
                                      probes; 0: none or unknown */
    model_launch_kind launch;      /* 0: linear, as lbmkernels launches */
    int block[3];                  /* grid launch: threads per block in x, y, z */
    int nontemporal;               /* its stores skip the write-allocate
                                      (non-temporal: lbm.csv's stores) */
    model_velocities velocities;   /* 0: not described (no shifts known) */
    unsigned char read_shift[MODEL_MAX_PHASES];  /* MODEL_SHIFT_* per phase; 0: at the cell */
    unsigned char write_shift[MODEL_MAX_PHASES];
} model_kernel;

/* The velocities of a set ("d3q19"): fills c[q][3], returns Q; -1 for an
 * unknown name (names: model_velocities_name). */
int model_velocities_parse(const char *name, model_velocities *out);
const char *model_velocities_name(model_velocities v);
int model_velocities_of(model_velocities v, int c[MODEL_MAX_Q][3]);

/* "-c", "+cyz", "0" -> MODEL_SHIFT_* bits; -1 for another text.  And back. */
int model_shift_parse(const char *s);
void model_shift_text(unsigned shift, char *out, size_t len);

/* Word i's offset under a shift: d[3] = +-c_i in the shifted components. */
void model_shift_apply(unsigned shift, const int c[3], int d[3]);

/* push, pull, split, aa at fp32, fp64 or fp16s, read from core/kernels/<scheme>.kernel
 * (embedded in the binary) with the precision's word size.  Returns 0, or -1
 * for an unknown name. */
int model_builtin_kernel(model_kernel *k, const char *scheme, const char *precision);

/* Bytes per stored word of a precision ("fp32": 4), -1 for an unknown one. */
int model_precision_word_bytes(const char *precision);
/* Bytes a cell keeps in memory: the larger of its words read and written,
 * in every lattice kept (the least a lattice of it takes). */
double model_kernel_cell_bytes(const model_kernel *k);

/* "0,10" -> {0, 10}: the misalignments of alternating launches.  Returns the
 * count (1..MODEL_MAX_PHASES), or -1 when s is not such a list of whole
 * numbers in [0, max]. */
int model_parse_phase_list(const char *s, int max, int *out);

/* "linear", "rows", "grid"; and back (0, or -1 for another word). */
const char *model_launch_name(model_launch_kind k);
int model_launch_parse(const char *name, model_launch_kind *out);

/* One line: "pull fp32: 19 read / 19 written, misaligned reads/writes 10/0, ..." */
void model_kernel_describe(const model_kernel *k, char *out, size_t len);

#endif
