/* A kernel described in a file (doc/kernels.md): `key = value` lines, `#`
 * starts a comment, blank lines are skipped, keys in any order, each once.
 *
 *   name               required; 1 to 47 of A-Z a-z 0-9 . _ - (it reaches
 *                      generated source, CSV files and the console)
 *   words_read         required; whole number 1..1000 (N, per cell and step)
 *   words_written      1..1000, default: as read
 *   misaligned_reads   L, 0..words_read; a comma list, one per alternating
 *   misaligned_writes  launch (M, 0..words_written); lists of two lengths
 *                      above one contradict each other; default 0
 *   word_bytes         2, 4 or 8 (default 4; --precision overrides it)
 *   lattices           1 or 2 (default 2)
 *   launches_per_step  1..64 (default 1)
 *   ops_per_cell       0..1e6 (default 0)
 *   cells_per_thread   1..64 (default 1), adjacent along x
 *   misaligned_access  vector (default) | word: how a thread of several
 *                      cells moves its misaligned words (model_kernel)
 *   launch             linear (default) | rows | grid
 *   block              BXxBYxBZ, each >= 1, at most 1024 threads in all
 *   block_size         1..1024
 *   registers          1..255 per thread     } at most one of the three:
 *   occupancy          (0, 1]                } how many blocks an SM holds
 *   blocks_per_sm      1..64                 }
 *
 * Contradictions (reported at the later key's line): a rows or linear
 * launch with a block whose y or z size is not 1; block and block_size that
 * disagree (block_size = BX*BY*BZ); a grid launch without block; a rows
 * launch without block or block_size (a row is rounded up to it);
 * registers or blocks_per_sm without a block size; more than one of
 * registers, occupancy, blocks_per_sm; a misalignment above the words it
 * counts.  Every error is one line, "FILE:LINE: KEY: what", and the CLI
 * exits 2 on it; a required key that is missing is reported at the last
 * line.
 *
 * What a value may be, before what it means: printable ASCII, at most 255
 * characters (never cut), no space inside it (a list's commas may have
 * spaces around them); whole numbers in decimal, read with their overflow
 * checked (never wrapped).  A line that is not "key = value" with a key of
 * a-z, 0-9 and _ is named by its number, never echoed.  A file is read
 * only if it is a regular file (a FIFO, a directory or a device is
 * refused, without blocking) of at most 16383 bytes. */
#ifndef MODEL_KERNELFILE_H
#define MODEL_KERNELFILE_H

#include <stddef.h>

#include "kernel.h"

typedef struct {
    model_kernel k;       /* block[] filled for every launch that has a block */
    int block_size;       /* threads per block, 0 not given */
    double occupancy;     /* <= 0 not given */
    double blocks_per_sm; /* <= 0 not given */
    int registers;        /* per thread, 0 not given */
    int word_bytes_given; /* the file said word_bytes */
    char blocks_said[640]; /* "FILE:LINE: blocks_per_sm" (or registers): where the blocks per SM
                              come from, for an error about them; "" not given */
} model_kernel_file;

/* A kernel name: 1 to MODEL_KERNEL_NAME_MAX of these characters, the only
 * ones that may reach generated kernel source. */
#define MODEL_KERNEL_NAME_MAX 47 /* model_kernel's name[48] */
#define MODEL_KERNEL_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
int model_kernel_name_ok(const char *name);

/* Parses text (named `file` in errors).  Returns 0, or -1 with err. */
int model_kernel_file_parse(const char *text, const char *file, model_kernel_file *out, char *err, size_t err_len);

/* Reads and parses the file at path.  Returns 0, or -1 with err. */
int model_kernel_file_read(const char *path, model_kernel_file *out, char *err, size_t err_len);

#endif
