#include <stddef.h>
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed.h"
#include "kernelfile.h"

LBP_EMBED_TEXT(model_push_kernel, "core/kernels/push.kernel");
LBP_EMBED_TEXT(model_pull_kernel, "core/kernels/pull.kernel");
LBP_EMBED_TEXT(model_split_kernel, "core/kernels/split.kernel");
LBP_EMBED_TEXT(model_aa_kernel, "core/kernels/aa.kernel");

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

double model_kernel_cell_bytes(const model_kernel *k)
{
    const double words = k->words_read > k->words_written ? k->words_read : k->words_written;
    return words * k->word_bytes * k->lattices;
}

int model_builtin_kernel(model_kernel *k, const char *scheme, const char *precision)
{
    memset(k, 0, sizeof *k);
    const int word_bytes = model_precision_word_bytes(precision);
    if (word_bytes < 0) return -1;
    for (size_t i = 0; i < sizeof builtin_files / sizeof *builtin_files; i++) {
        if (strcmp(scheme, builtin_files[i].scheme)) continue;
        char path[64], err[512];
        snprintf(path, sizeof path, "core/kernels/%s.kernel", scheme);
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

static const char *const velocity_names[MODEL_VELOCITY_SETS] = {"", "d2q9", "d3q15", "d3q19", "d3q27"};

int model_velocities_parse(const char *name, model_velocities *out)
{
    for (int v = 1; v < MODEL_VELOCITY_SETS; v++)
        if (!strcmp(name, velocity_names[v])) {
            *out = (model_velocities)v;
            return 0;
        }
    return -1;
}

const char *model_velocities_name(model_velocities v)
{
    return v > 0 && v < MODEL_VELOCITY_SETS ? velocity_names[v] : "";
}

/* The standard sets as the squared lengths they keep: D2Q9 every c of
 * {-1,0,1}^2; D3Q15 0, 1, 3; D3Q19 0, 1, 2; D3Q27 all of {-1,0,1}^3. */
int model_velocities_of(model_velocities v, int c[MODEL_MAX_Q][3])
{
    int q = 0;
    for (int z = -1; z <= 1; z++)
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++) {
                const int len2 = x * x + y * y + z * z;
                const int keep = v == MODEL_D2Q9    ? z == 0
                                 : v == MODEL_D3Q15 ? len2 != 2
                                 : v == MODEL_D3Q19 ? len2 != 3
                                                    : v == MODEL_D3Q27;
                if (!keep) continue;
                c[q][0] = x, c[q][1] = y, c[q][2] = z;
                q++;
            }
    return q;
}

int model_shift_parse(const char *s)
{
    if (!strcmp(s, "0")) return 0;
    if ((s[0] != '+' && s[0] != '-') || s[1] != 'c') return -1;
    unsigned bits = s[0] == '-' ? MODEL_SHIFT_MINUS : 0, axes = 0;
    const char *p = s + 2;
    if (!*p) axes = MODEL_SHIFT_X | MODEL_SHIFT_Y | MODEL_SHIFT_Z;
    for (unsigned last = 0; *p; p++) { /* x, y, z in order, each once */
        const unsigned a = *p == 'x' ? MODEL_SHIFT_X : *p == 'y' ? MODEL_SHIFT_Y : *p == 'z' ? MODEL_SHIFT_Z : 0;
        if (!a || a <= last) return -1;
        axes |= a, last = a;
    }
    return (int)(bits | axes);
}

void model_shift_text(unsigned shift, char *out, size_t len)
{
    const unsigned axes = shift & (MODEL_SHIFT_X | MODEL_SHIFT_Y | MODEL_SHIFT_Z);
    if (!axes) {
        snprintf(out, len, "0");
        return;
    }
    snprintf(out, len, "%cc%s%s%s", shift & MODEL_SHIFT_MINUS ? '-' : '+',
             axes == 7 ? "" : axes & MODEL_SHIFT_X ? "x" : "", axes != 7 && axes & MODEL_SHIFT_Y ? "y" : "",
             axes != 7 && axes & MODEL_SHIFT_Z ? "z" : "");
}

void model_shift_apply(unsigned shift, const int c[3], int d[3])
{
    const int sign = shift & MODEL_SHIFT_MINUS ? -1 : 1;
    for (int a = 0; a < 3; a++) d[a] = shift & (1u << a) ? sign * c[a] : 0;
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
    char stencil[160] = "";
    if (k->velocities) {
        size_t at = (size_t)snprintf(stencil, sizeof stencil, " (%s, read at ", model_velocities_name(k->velocities));
        for (int side = 0; side < 2 && at < sizeof stencil; side++)
            for (int i = 0; i < k->phases && at < sizeof stencil; i++) {
                char text[16];
                model_shift_text(side ? k->write_shift[i] : k->read_shift[i], text, sizeof text);
                const char *before = i ? ", " : side ? ", written at " : "";
                at += (size_t)snprintf(stencil + at, sizeof stencil - at, "%s%s%s", before, text,
                                       side && i == k->phases - 1 ? ")" : "");
            }
    }
    char cells[96] = "";
    if (k->cells_per_thread > 1)
        snprintf(cells, sizeof cells, ", %d cells per thread (%d-byte vectors%s)", k->cells_per_thread,
                 k->cells_per_thread * k->word_bytes,
                 k->misaligned_access == MODEL_MISALIGNED_BY_WORD ? ", misaligned words one per cell" : "");
    snprintf(out, len,
             "%s: %g words read, %g written per cell%s, misaligned reads/writes %s%s, "
             "%d-byte words%s, %g arithmetic operations per cell, %d lattice%s, %d launch%s per step%s",
             k->name[0] ? k->name : "kernel", k->words_read, k->words_written, stencil, mis,
             k->phases > 1 ? " (alternating launches)" : "", k->word_bytes, cells, k->ops_per_cell, k->lattices,
             k->lattices > 1 ? "s" : "", k->launches_per_step, k->launches_per_step > 1 ? "es" : "",
             k->nontemporal ? ", non-temporal stores" : "");
}
