#include <stddef.h>
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "kernelfile.h"

LBP_EMBED_TEXT(model_push_kernel, "model/kernels/push.kernel");
LBP_EMBED_TEXT(model_pull_kernel, "model/kernels/pull.kernel");
LBP_EMBED_TEXT(model_split_kernel, "model/kernels/split.kernel");
LBP_EMBED_TEXT(model_aa_kernel, "model/kernels/aa.kernel");

/* The shipped schemes' description files, compiled in. */
static const struct {
    const char *scheme, *text;
} builtin_files[] = {
    {"push", model_push_kernel}, {"pull", model_pull_kernel}, {"split", model_split_kernel}, {"aa", model_aa_kernel}};

int model_precision_word_bytes(const char *precision)
{
    if (!strcmp(precision, "fp32")) return 4;
    if (!strcmp(precision, "fp64")) return 8;
    if (!strcmp(precision, "fp16s")) return 2; /* half storage, float arithmetic (lbmkernels) */
    return -1;
}

int model_builtin_kernel(model_kernel *k, const char *scheme, const char *precision)
{
    memset(k, 0, sizeof *k);
    const int word_bytes = model_precision_word_bytes(precision);
    if (word_bytes < 0) return -1;
    for (size_t i = 0; i < sizeof builtin_files / sizeof *builtin_files; i++) {
        if (strcmp(scheme, builtin_files[i].scheme)) continue;
        char path[64], err[512];
        snprintf(path, sizeof path, "model/kernels/%s.kernel", scheme);
        model_kernel_file f;
        if (model_kernel_file_parse(builtin_files[i].text, path, &f, err, sizeof err)) {
            /* the embedded files are the program's own: tests/test_kernelfile parses them */
            fprintf(stderr, "model: built-in %s\n", err);
            abort();
        }
        *k = f.k;
        k->word_bytes = word_bytes;
        snprintf(k->name, sizeof k->name, "%s %s", scheme, precision);
        return 0;
    }
    return -1;
}

static const char *const launch_names[] = {"linear", "rows", "grid"};

const char *model_launch_name(model_launch_kind k)
{
    return k >= MODEL_LAUNCH_LINEAR && k <= MODEL_LAUNCH_GRID ? launch_names[k] : "linear";
}

int model_launch_parse(const char *name, model_launch_kind *out)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, launch_names[i])) {
            *out = (model_launch_kind)i;
            return 0;
        }
    return -1;
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
    char cells[96] = "";
    if (k->cells_per_thread > 1)
        snprintf(cells, sizeof cells, ", %d cells per thread (%d-byte vectors%s)", k->cells_per_thread,
                 k->cells_per_thread * k->word_bytes,
                 k->misaligned_access == MODEL_MISALIGNED_BY_WORD ? ", misaligned words one per cell" : "");
    snprintf(out, len,
             "%s: %g words read, %g written per cell, misaligned reads/writes %s%s, "
             "%d-byte words%s, %g arithmetic operations per cell, %d lattice%s, %d launch%s per step%s",
             k->name[0] ? k->name : "kernel", k->words_read, k->words_written, mis,
             k->phases > 1 ? " (alternating launches)" : "", k->word_bytes, cells, k->ops_per_cell, k->lattices,
             k->lattices > 1 ? "s" : "", k->launches_per_step, k->launches_per_step > 1 ? "es" : "",
             k->nontemporal ? ", non-temporal stores" : "");
}
