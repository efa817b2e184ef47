/* What each compiled kernel of lbmkernels moves per cell and step -- words,
 * misaligned reads and writes, word size, lattices, bytes per update, its
 * launch -- read from the model's description file of its scheme
 * (core/kernels/<scheme>.kernel, embedded through core/kernel.c): the
 * one source of lbm.csv's record and of the model's prediction.
 * tests/test_lbmkernels holds it to the kernels' own lattice tables. */
#ifndef LBM_RECORD_H
#define LBM_RECORD_H

#include "lbm.h"

typedef struct {
    int words_read, words_written;
    int word_bytes, lattices;
    int bytes_per_update;      /* (words read + written) x word bytes */
    char misaligned_reads[32]; /* "10", or "0;10" for alternating launches */
    char misaligned_writes[32];
    const char *launch;        /* linear, rows, grid */
} lbm_record;

/* The record of scheme s at precision p. */
lbm_record lbm_record_of(lbm_scheme s, lbm_precision p);

/* lbm.csv's columns of the record, after the others. */
#define LBM_RECORD_COLUMNS "launch,words_read,words_written,misaligned_reads,misaligned_writes"

#endif
