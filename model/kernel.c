#include <stddef.h>
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int model_builtin_kernel(model_kernel *k, const char *scheme, const char *precision)
{
    memset(k, 0, sizeof *k);
    if (!strcmp(precision, "fp32")) k->word_bytes = 4;
    else if (!strcmp(precision, "fp64")) k->word_bytes = 8;
    else return -1;
    k->words_read = k->words_written = D3Q19_Q;
    k->lattices = 2;
    k->launches_per_step = 1;
    k->phases = 1;
    k->cells_per_thread = 1;
    k->ops_per_cell = D3Q19_BGK_OPS;
    if (!strcmp(scheme, "push")) {
        /* collide, then write to x + c_i: the x-moving populations land
         * one word off the aligned index */
        k->misaligned_writes[0] = D3Q19_X_MOVING;
    } else if (!strcmp(scheme, "pull") || !strcmp(scheme, "split")) {
        /* read from x - c_i (split: x - c_ix only, y and z shifts are whole
         * rows and stay aligned), write in place */
        k->misaligned_reads[0] = D3Q19_X_MOVING;
    } else if (!strcmp(scheme, "aa")) {
        /* even (α) step: own cell both ways; odd (β) step: read at x - c_i,
         * write at x + c_i.  One lattice in memory. */
        k->lattices = 1;
        k->phases = 2;
        k->misaligned_reads[1] = k->misaligned_writes[1] = D3Q19_X_MOVING;
    } else {
        return -1;
    }
    snprintf(k->name, sizeof k->name, "%s %s", scheme, precision);
    return 0;
}

int model_parse_phase_list(const char *s, int max, int *out)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        if (*p < '0' || *p > '9') return -1;
        long v = strtol(p, &end, 10);
        if (v < 0 || v > max || n == MODEL_MAX_PHASES) return -1;
        out[n++] = (int)v;
        if (*end == ',') { p = end + 1; continue; }
        if (*end) return -1;
        return n;
    }
}

void model_kernel_describe(const model_kernel *k, char *out, size_t len)
{
    char mis[128] = "";
    size_t used = 0;
    for (int i = 0; i < k->phases && used < sizeof mis; i++)
        used += snprintf(mis + used, sizeof mis - used, "%s%d/%d", i ? " then " : "",
                         k->misaligned_reads[i], k->misaligned_writes[i]);
    char cells[64] = "";
    if (k->cells_per_thread > 1)
        snprintf(cells, sizeof cells, ", %d cells per thread (%d-byte vectors)", k->cells_per_thread,
                 k->cells_per_thread * k->word_bytes);
    snprintf(out, len,
             "%s: %g words read, %g written per cell, misaligned reads/writes %s%s, "
             "%d-byte words%s, %g arithmetic operations per cell, %d lattice%s, %d launch%s per step",
             k->name[0] ? k->name : "kernel", k->words_read, k->words_written, mis,
             k->phases > 1 ? " (alternating launches)" : "", k->word_bytes, cells, k->ops_per_cell, k->lattices,
             k->lattices > 1 ? "s" : "", k->launches_per_step, k->launches_per_step > 1 ? "es" : "");
}
