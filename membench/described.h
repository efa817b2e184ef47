/* membench --kernel FILE --size NXxNYxNZ: the traffic of a kernel
 * description file (doc/kernels.md), generated as a streaming kernel and
 * launched the way the file says (linear, rows rounded up to the block, a
 * grid of blocks), timed back to back and verified, one row per lattice in
 * membench-kernel.csv.  What `model check-kernels` compares with
 * `model predict --kernel`. */
#ifndef MB_DESCRIBED_H
#define MB_DESCRIBED_H

#include <stddef.h>
#include <stdint.h>

#include "kernelfile.h"

/* The generated kernel and its launch on one lattice. */
typedef struct {
    const model_kernel_file *file;
    int words_read, words_written;       /* R, W: arrays read, the first W of them written */
    int misaligned_reads, misaligned_writes;
    int word_bytes, in_place;            /* in place: one lattice (L = M) */
    int cells_per_thread;                /* V, adjacent along x */
    model_launch_kind launch;
    int block[3];                        /* threads per block in x, y, z */
    long long nx, ny, nz;
} mb_described;

/* The file's kernel on an nx x ny x nz lattice, word size word_bytes (0:
 * the file's).  Returns 0, or 1 with why for what the generator does not
 * make (alternating launches, several launches per step, more words written
 * than read, one lattice with L != M, a grid over the launch's limits). */
int mb_described_of(const model_kernel_file *f, long long nx, long long ny, long long nz, int word_bytes,
                    mb_described *out, char *why, size_t why_len);

/* Kernel text (entry MB_DESCRIBED_ENTRY), caller frees.  Arguments:
 *   GLOBAL WORD *in, GLOBAL WORD *out, i64 stride, i64 nx, i64 ny, i64 nz,
 *   u64 seed_word, u32 mask (0), then the dynamic shared memory.
 * Cell (x, y, z) is c = x + nx (y + ny z); word k is read from
 * in[k stride + c (+1 for k < L)] and, for k < W, written xored with the
 * seed word to out[k stride + c (+1 for k < M)] (in place: back to in
 * where it was read), the layout and values of membench's probes, so that
 * mb_verify checks them.  NULL for a name that is not a kernel name
 * (model_kernel_name_ok): no other text of the file reaches the source. */
#define MB_DESCRIBED_ENTRY "membench_described"
char *mb_generate_described(const mb_described *d);

/* Threads launched (idle ones included) and the launch's grid of blocks. */
int64_t mb_described_threads(const mb_described *d);
void mb_described_grid(const mb_described *d, unsigned grid[3]);

#endif
