/* STREAM-copy kernel generator: a small configuration in, kernel text in the
 * portable dialect (core/device.h) plus ONE record of what the kernel moves
 * out.  Every bandwidth stream/ reports is computed from that record
 * (stream_bytes_moved), never from a second count (likwid-bench style). */
#ifndef STREAM_GEN_H
#define STREAM_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    STREAM_ACCESS_ONE,    /* one element per thread: c[i] = a[i], i = global id */
    STREAM_ACCESS_STRIDE, /* grid-stride loop over the array (Habich Fig. 1) */
    STREAM_ACCESS_ROW,    /* STREAM_ROW_ELEMENTS adjacent elements per thread in a loop
                           * the compiler vectorizes: a CPU code's shape (lbmkernels'
                           * row kernels there) */
    STREAM_ACCESS_COUNT
} stream_access;
extern const char *const stream_access_names[]; /* "one", "stride", "row"; NULL-terminated */
#define STREAM_ROW_ELEMENTS 256

extern const int stream_word_sizes[]; /* 2, 4, 8, 16; 0-terminated */

typedef struct {
    int word_bytes;        /* s: 2 (u16), 4 (u32), 8 (uint2) or 16 (uint4) */
    stream_access access;
    int block_size;        /* threads per block (work-group) */
    int64_t blocks;        /* stride: blocks launched; one: ignored (one thread per element) */
    int64_t elements;      /* words per array */
    /* Tests only: the kernel leaves this element unwritten, so verification
     * must catch it.  Used when planted_skip is non-zero. */
    int planted_skip;
    int64_t planted_skip_element;
} stream_config;

/* What one run of a copy moves.  The driver's device-to-device copy is
 * described by the same record with word_bytes 0 and one byte per element. */
typedef struct {
    int word_bytes;                /* s; 0 = driver copy (elements are bytes) */
    int64_t elements;              /* per array */
    int bytes_read_per_element;
    int bytes_written_per_element;
} stream_record;

typedef struct {
    char source[1024];     /* kernel text in the dialect */
    char entry[32];        /* kernel function name */
    char name[64];         /* short config name: "w16-one-b256" */
    unsigned blocks, block_size; /* launch configuration */
    stream_record record;
} stream_kernel;

/* Generate the kernel for cfg.  Returns 0, or -1 with the reason in why
 * (bad word size, block size, element count, grid too large). */
int stream_generate(const stream_config *cfg, stream_kernel *out, char *why, size_t why_len);

/* The record of the driver's device-to-device copy of `bytes` bytes. */
stream_record stream_driver_copy_record(int64_t bytes);

/* Bytes of one array, and bytes read plus written per run. */
int64_t stream_array_bytes(const stream_record *r);
int64_t stream_bytes_moved(const stream_record *r);

/* "u16", "u32", "uint2", "uint4", or NULL for an unsupported width. */
const char *stream_word_type(int word_bytes);

#endif
