/* Launch probes: see launchprobe.h. */
#include "launchprobe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "launch.h"

static int read_row(const lbp_table *t, int r, model_launch_probe *p, char *err, size_t err_len)
{
    static const model_range CELLS = {.lo = 1, .hi = 1e6, .whole = 1}, COUNT = {.lo = 0, .hi = 1 << 16, .whole = 1},
                             PER_THREAD = {.lo = 1, .hi = 64, .whole = 1},
                             WORD_BYTES = {.lo = 1, .hi = 64, .whole = 1},
                             LATTICES = {.lo = 1, .hi = 2, .whole = 1},
                             KNOWN_OR_NOT = {.lo = -1, .hi = 1 << 16},
                             MLUPS = {.lo = 0, .hi = 1e9, .lo_open = 1};
    static const struct {
        const char *name;
        const model_range *range;
    } cols[] = {{"nx", &CELLS},          {"ny", &CELLS},          {"nz", &CELLS},
                {"cells_per_thread", &PER_THREAD}, {"word_bytes", &WORD_BYTES}, {"lattices", &LATTICES},
                {"words_read", &COUNT},  {"words_written", &COUNT}, {"misaligned_reads", &COUNT},
                {"misaligned_writes", &COUNT}, {"mlups_median", &MLUPS}};
    double v[11];
    for (int i = 0; i < 11; i++)
        if (model_number_in(t, r, cols[i].name, *cols[i].range, &v[i], err, err_len)) return -1;
    if (model_number_in(t, r, "blocks_per_cu", KNOWN_OR_NOT, &p->blocks_per_cu, err, err_len) ||
        model_number_in(t, r, "occupancy", KNOWN_OR_NOT, &p->occupancy, err, err_len))
        return -1;
    if (v[6] != v[7] || v[8] || v[9] || v[6] < 1)
        return lbp_error(err, err_len, "%s:%d: words read %g, written %g, misaligned %g and %g: a launch probe moves "
                         "N words each way, none misaligned (membench --kernel FILE --launch-probe LIST)",
                         t->path, t->line[r], v[6], v[7], v[8], v[9]);
    const char *launch = lbp_table_text(t, r, lbp_table_column(t, "launch")),
               *block = lbp_table_text(t, r, lbp_table_column(t, "block"));
    int used = 0;
    if (model_launch_parse(launch, &p->launch))
        return lbp_error(err, err_len, "%s:%d: launch '%s': expected linear, rows or grid", t->path, t->line[r],
                         launch);
    if (sscanf(block, "%dx%dx%d%n", &p->block[0], &p->block[1], &p->block[2], &used) != 3 || block[used] ||
        p->block[0] < 1 || p->block[1] < 1 || p->block[2] < 1 || p->block[0] * p->block[1] * p->block[2] > 1 << 16)
        return lbp_error(err, err_len, "%s:%d: block '%s': expected BXxBYxBZ", t->path, t->line[r], block);
    p->nx = (long long)v[0], p->ny = (long long)v[1], p->nz = (long long)v[2];
    p->cells_per_thread = (int)v[3], p->word_bytes = (int)v[4], p->lattices = (int)v[5], p->words = (int)v[6];
    p->mlups = v[10];
    return 0;
}

const char *const model_launch_probe_columns[] = {
    "backend", "launch", "nx", "ny", "nz", "block", "cells_per_thread", "blocks_per_cu", "occupancy", "words_read",
    "words_written", "misaligned_reads", "misaligned_writes", "word_bytes", "lattices", "mlups_median", NULL};

int model_launch_probes_read(model_inputs *in, const lbp_table *t, char *err, size_t err_len)
{
    in->launch_probes = calloc((size_t)t->rows + 1, sizeof *in->launch_probes);
    if (!in->launch_probes) return lbp_error(err, err_len, "%s: out of memory", t->path);
    for (int r = 0; r < t->rows; r++) {
        if (strcmp(lbp_table_text(t, r, lbp_table_column(t, "backend")), in->backend)) continue;
        if (read_row(t, r, &in->launch_probes[in->n_launch_probes], err, err_len)) return -1;
        in->n_launch_probes++;
    }
    return 0;
}

/* Blocks per SM, or else occupancy, where both the probe and the kernel's
 * launch say them: the same. */
static int same_residency(const model_launch_probe *p, const model_lattice *lat)
{
    if (p->blocks_per_cu > 0 && lat->blocks_per_cu > 0) return fabs(p->blocks_per_cu - lat->blocks_per_cu) < 0.5;
    if (p->occupancy > 0 && lat->occupancy > 0) return fabs(p->occupancy - lat->occupancy) < 0.01;
    return 1;
}

int model_launch_probe_at(const model_launch_probe *p, const model_kernel *k, const model_lattice *lat)
{
    const int size = p->block[0] * p->block[1] * p->block[2];
    if (p->launch != k->launch || p->nx != lat->nx || p->ny != lat->ny || p->nz != lat->nz ||
        p->word_bytes != k->word_bytes || p->lattices != k->lattices ||
        p->cells_per_thread != model_cells_per_thread(k) || (lat->block_size > 0 && size != lat->block_size))
        return 0;
    if (k->launch == MODEL_LAUNCH_GRID)
        for (int i = 0; i < 3; i++)
            if (p->block[i] != k->block[i]) return 0;
    return same_residency(p, lat);
}

int model_launch_probes_at(const model_inputs *in, const model_kernel *k, const model_lattice *lat, int *words,
                           double *mlups, int max)
{
    int n = 0, rows[MODEL_MAX_LAUNCH_PROBES];
    if (max > MODEL_MAX_LAUNCH_PROBES) max = MODEL_MAX_LAUNCH_PROBES;
    for (int i = 0; i < in->n_launch_probes; i++) {
        const model_launch_probe *p = &in->launch_probes[i];
        if (!model_launch_probe_at(p, k, lat)) continue;
        int j = 0;
        while (j < n && words[j] < p->words) j++;
        if (j < n && words[j] == p->words) { /* the running mean of the count's rows */
            mlups[j] += (p->mlups - mlups[j]) / ++rows[j];
            continue;
        }
        if (n == max) continue;
        memmove(words + j + 1, words + j, sizeof *words * (size_t)(n - j));
        memmove(mlups + j + 1, mlups + j, sizeof *mlups * (size_t)(n - j));
        memmove(rows + j + 1, rows + j, sizeof *rows * (size_t)(n - j));
        words[j] = p->words, mlups[j] = p->mlups, rows[j] = 1, n++;
    }
    return n;
}

model_kernel model_launch_probe_kernel(const model_kernel *k, int n)
{
    model_kernel p = *k;
    snprintf(p.name, sizeof p.name, "launch probe N=%d", n);
    p.words_read = p.words_written = n;
    p.phases = 1;
    p.launches_per_step = 1;
    memset(p.misaligned_reads, 0, sizeof p.misaligned_reads);
    memset(p.misaligned_writes, 0, sizeof p.misaligned_writes);
    memset(p.read_shift, 0, sizeof p.read_shift);
    memset(p.write_shift, 0, sizeof p.write_shift);
    p.velocities = MODEL_VELOCITIES_NONE;
    p.ops_per_cell = 0;
    p.nontemporal = 0;
    return p;
}
