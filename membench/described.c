/* The generated kernel of a kernel description file (see described.h). */
#include "described.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The most blocks a launch may have along y and z (CUDA's limit; OpenCL's
 * is larger), and along x. */
#define GRID_YZ_MAX 65535LL
#define GRID_X_MAX 2147483647LL

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

void mb_described_grid(const mb_described *d, unsigned grid[3])
{
    const long long row = ceil_div(d->nx, d->cells_per_thread);
    switch (d->launch) {
    case MODEL_LAUNCH_ROWS:
        grid[0] = (unsigned)ceil_div(row, d->block[0]), grid[1] = (unsigned)d->ny, grid[2] = (unsigned)d->nz;
        break;
    case MODEL_LAUNCH_GRID:
        grid[0] = (unsigned)ceil_div(row, d->block[0]), grid[1] = (unsigned)ceil_div(d->ny, d->block[1]);
        grid[2] = (unsigned)ceil_div(d->nz, d->block[2]);
        break;
    case MODEL_LAUNCH_LINEAR:
        grid[0] = (unsigned)ceil_div(ceil_div(d->nx * d->ny * d->nz, d->cells_per_thread), d->block[0]);
        grid[1] = grid[2] = 1;
        break;
    }
}

int64_t mb_described_threads(const mb_described *d)
{
    unsigned g[3];
    mb_described_grid(d, g);
    return (int64_t)g[0] * g[1] * g[2] * d->block[0] * d->block[1] * d->block[2];
}

/* The grid's blocks within the launch limits. */
static int grid_fits(const mb_described *d, char *why, size_t why_len)
{
    const long long row = ceil_div(d->nx, d->cells_per_thread);
    const long long gx = d->launch == MODEL_LAUNCH_LINEAR ? ceil_div(ceil_div(d->nx * d->ny * d->nz,
                                                                              d->cells_per_thread), d->block[0])
                                                          : ceil_div(row, d->block[0]);
    const long long gy = ceil_div(d->ny, d->block[1]), gz = ceil_div(d->nz, d->block[2]);
    if (gx > GRID_X_MAX || (d->launch != MODEL_LAUNCH_LINEAR && (gy > GRID_YZ_MAX || gz > GRID_YZ_MAX))) {
        snprintf(why, why_len, "a %s launch of %lldx%lldx%lld blocks is over the %lld blocks along y or z a launch may have",
                 model_launch_name(d->launch), gx, gy, gz, GRID_YZ_MAX);
        return 1;
    }
    return 0;
}

/* What the generator makes of the file: one launch pattern, one launch
 * per step, every word written also read. */
static int generable(const model_kernel *k, char *why, size_t why_len)
{
    if (k->phases > 1)
        snprintf(why, why_len, "%s: alternating launches (%d misalignment patterns) are not generated: describe one "
                 "launch", k->name, k->phases);
    else if (k->launches_per_step > 1)
        snprintf(why, why_len, "%s: launches_per_step %d: the generator makes one launch per step", k->name,
                 k->launches_per_step);
    else if (k->words_written > k->words_read)
        snprintf(why, why_len, "%s: %g words written, %g read: the generator writes words it read", k->name,
                 k->words_written, k->words_read);
    else if (k->words_read > MB_MAX_WORDS)
        snprintf(why, why_len, "%s: %g words read: the generator makes at most %d", k->name, k->words_read,
                 MB_MAX_WORDS);
    else if (k->lattices == 1 && k->misaligned_reads[0] != k->misaligned_writes[0])
        snprintf(why, why_len, "%s: one lattice with %d misaligned reads and %d writes: an in-place kernel writes "
                 "where it read (L = M)", k->name, k->misaligned_reads[0], k->misaligned_writes[0]);
    else
        return 0;
    return 1;
}

int mb_described_of(const model_kernel_file *f, long long nx, long long ny, long long nz, int word_bytes,
                    mb_described *out, char *why, size_t why_len)
{
    const model_kernel *k = &f->k;
    if (generable(k, why, why_len)) return 1;
    *out = (mb_described){
        .file = f,
        .words_read = (int)k->words_read,
        .words_written = (int)k->words_written,
        .misaligned_reads = k->misaligned_reads[0],
        .misaligned_writes = k->misaligned_writes[0],
        .word_bytes = word_bytes ? word_bytes : k->word_bytes,
        .in_place = k->lattices == 1,
        .cells_per_thread = k->cells_per_thread > 1 ? k->cells_per_thread : 1,
        .launch = k->launch,
        .block = {f->block_size ? k->block[0] : 256, f->block_size ? k->block[1] : 1, f->block_size ? k->block[2] : 1},
        .nx = nx, .ny = ny, .nz = nz};
    return grid_fits(out, why, why_len);
}

/* The first cell of the thread (c0, x0) and the return of the idle ones. */
static void described_cell(FILE *t, const mb_described *d)
{
    fprintf(t, "    const i64 v_ = %d;\n", d->cells_per_thread);
    switch (d->launch) {
    case MODEL_LAUNCH_LINEAR:
        fputs("    const i64 cells = nx * ny * nz;\n"
              "    const i64 c0 = global_id(0) * v_;\n"
              "    if (c0 >= cells) return;\n",
              t);
        break;
    case MODEL_LAUNCH_ROWS:
        fputs("    const i64 x0 = global_id(0) * v_;\n"
              "    if (x0 >= nx) return;\n"
              "    const i64 c0 = x0 + nx * ((i64)group_id(1) + ny * (i64)group_id(2));\n",
              t);
        break;
    case MODEL_LAUNCH_GRID:
        fputs("    const i64 x0 = global_id(0) * v_, y = global_id(1), z = global_id(2);\n"
              "    if (x0 >= nx || y >= ny || z >= nz) return;\n"
              "    const i64 c0 = x0 + nx * (y + ny * z);\n",
              t);
        break;
    }
}

/* Cell c0 + v: its R reads, every store after every load (as in a
 * collision: the mask is 0), its W writes. */
static void described_update(FILE *t, const mb_described *d, const char *word, int v)
{
    if (v == 0) fputs("    {\n", t);
    else fprintf(t, "    if (%s + %d < %s) {\n", d->launch == MODEL_LAUNCH_LINEAR ? "c0" : "x0", v,
                 d->launch == MODEL_LAUNCH_LINEAR ? "cells" : "nx");
    fprintf(t, "        const i64 c = c0 + %d;\n", v);
    for (int k = 0; k < d->words_read; k++)
        fprintf(t, "        const %s w%d = in[%d * stride + c%s];\n", word, k, k, k < d->misaligned_reads ? " + 1" : "");
    fprintf(t, "        const %s all = (%s)(w0", word, word);
    for (int k = 1; k < d->words_read; k++) fprintf(t, " ^ w%d", k);
    fputs(");\n", t);
    fprintf(t, "        const %s s = (%s)(seed_word ^ (u64)(all & mask));\n", word, word);
    for (int k = 0; k < d->words_written; k++)
        fprintf(t, "        %s[%d * stride + c%s] = (%s)(w%d ^ s);\n", d->in_place ? "in" : "out", k,
                k < d->misaligned_writes ? " + 1" : "", word, k);
    fputs("    }\n", t);
}

char *mb_generate_described(const mb_described *d)
{
    const char *word = mb_word_type(d->word_bytes);
    /* the name is the only text of the file's in the source (its comment):
     * whitelisted characters only, whoever filled the record */
    if (!word || !model_kernel_name_ok(d->file->k.name)) return NULL;
    char *s = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&s, &len);
    if (!t) return NULL;
    fprintf(t,
            "/* membench: the traffic of kernel %s (generated from its description): %d words of %d B\n"
            " * read per cell, %d of them at x+1, %d written%s, %d at x+1; a %s launch of\n"
            " * %dx%dx%d-thread blocks, %d cell%s per thread. */\n",
            d->file->k.name, d->words_read, d->word_bytes, d->misaligned_reads, d->words_written,
            d->in_place ? " in place" : "", d->misaligned_writes, model_launch_name(d->launch), d->block[0], d->block[1],
            d->block[2], d->cells_per_thread, d->cells_per_thread > 1 ? "s" : "");
    fprintf(t,
            "KERNEL void " MB_DESCRIBED_ENTRY "(GLOBAL %s *RESTRICT in, GLOBAL %s *RESTRICT out, i64 stride,\n"
            "    i64 nx, i64 ny, i64 nz, u64 seed_word, u32 mask DYN_SHARED_PARAM)\n"
            "{\n",
            word, word);
    if (d->in_place) fputs("    (void)out;\n", t);
    described_cell(t, d);
    for (int v = 0; v < d->cells_per_thread; v++) described_update(t, d, word, v);
    fputs("}\n", t);
    fclose(t);
    return s;
}
