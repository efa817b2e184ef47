/* Blocks over SMs, work-groups over cores: see launch.h. */
#include "launch.h"
#include "corrections.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "levels.h"

double model_busiest_sm_threads(const model_inputs *in, double threads, int block)
{
    if (in->is_cpu || in->compute_units <= 0 || block <= 0) return threads;
    double blocks = ceil(threads / block);
    return in->compute_units * ceil(blocks / in->compute_units) * block;
}

double model_cpu_row_imbalance(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    const double rows = (double)lat->ny * (double)lat->nz, cores = in->compute_units, bs = lat->block_size;
    if (!in->is_cpu || k->cells_per_thread > 0 || cores < 2 || bs <= 0 || rows <= 0) return 1;
    const double groups = ceil(rows / bs), short_by = groups * bs - rows; /* the last group's missing rows */
    double busiest = 0;
    for (double c = 0; c < cores && c < groups; c++) {
        /* core c: groups c, c + cores, ...; the last one to core (groups - 1) mod cores */
        double r = ceil((groups - c) / cores) * bs - (fmod(groups - 1, cores) == c ? short_by : 0);
        busiest = fmax(busiest, r);
    }
    return busiest / (rows / cores);
}

int model_row_per_thread(const model_inputs *in, const model_kernel *k)
{
    return in->is_cpu && k->cells_per_thread == 0;
}

int model_cells_per_thread(const model_kernel *k)
{
    return k->cells_per_thread > 1 ? k->cells_per_thread : 1;
}

int model_launch_bound(const model_inputs *in, const model_kernel *k, const double *memory_us)
{
    if (!in->have_launch) return 0;
    for (int p = 0; p < k->phases; p++)
        if (k->launches_per_step * in->launch_us >= 0.9 * memory_us[p]) return 1;
    return 0;
}

/* n rounded up to a multiple of b. */
static double round_up(double n, double b)
{
    return b > 0 ? ceil(n / b) * b : n;
}

double model_launched_threads(const model_kernel *k, const model_lattice *lat)
{
    const int v = model_cells_per_thread(k);
    const double row = ceil((double)lat->nx / v), ny = (double)lat->ny, nz = (double)lat->nz;
    switch (k->launch) {
    case MODEL_LAUNCH_ROWS:
        if (lat->block_size > 0) return round_up(row, lat->block_size) * ny * nz;
        break;
    case MODEL_LAUNCH_GRID:
        return round_up(row, k->block[0]) * round_up(ny, k->block[1]) * round_up(nz, k->block[2]);
    case MODEL_LAUNCH_LINEAR: break;
    }
    return lat->cells / v;
}

double model_working_share(const model_kernel *k, const model_lattice *lat)
{
    const double launched = model_launched_threads(k, lat);
    if (k->launch == MODEL_LAUNCH_LINEAR || launched <= 0) return 1;
    const double working = ceil((double)lat->nx / model_cells_per_thread(k)) * (double)lat->ny * (double)lat->nz;
    return fmin(working / launched, 1);
}

static int warp_size(const model_inputs *in)
{
    const char *w = model_meta_value(in, "warp_size");
    return w && atoi(w) > 0 ? atoi(w) : 32;
}

int model_warps_span_rows(const model_inputs *in, const model_kernel *k)
{
    return !in->is_cpu && k->launch == MODEL_LAUNCH_GRID && k->block[0] % warp_size(in) != 0;
}

int model_block_rows_start_rows(const model_inputs *in, const model_kernel *k)
{
    if (!model_warps_span_rows(in, k)) return 1;
    const long long segment = (long long)k->block[0] * model_cells_per_thread(k) * k->word_bytes;
    return segment % MODEL_SECTOR_BYTES == 0;
}

/* Words of `all` at this offset that start inside a sector: the `shifted`
 * ones (x + 1) at o + s, the others at o. */
static int misaligned_at(long long o, int s, int all, int shifted)
{
    return (o % MODEL_SECTOR_BYTES ? all - shifted : 0) + ((o + s) % MODEL_SECTOR_BYTES ? shifted : 0);
}

static long long gcd(long long a, long long b)
{
    while (b) {
        const long long t = a % b;
        a = b, b = t;
    }
    return a;
}

long long model_row_bytes(const model_kernel *k, const model_lattice *lat)
{
    const double rows = (double)lat->ny * (double)lat->nz;
    const long long stride = lat->stored_cells > lat->cells && rows > 0 ? llround(lat->stored_cells / rows) : lat->nx;
    return stride * k->word_bytes;
}

/* The vector sweep's exchange (vector.c): misaligned words one per cell,
 * only the writes misaligned. */
static int writes_exchanged(const model_kernel *k, int phase)
{
    return model_misaligned_by_word(k) && k->misaligned_writes[phase] && !k->misaligned_reads[phase];
}

model_row_shifted model_row_shifted_words(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                                          int phase)
{
    model_row_shifted n = {0, 0, 0};
    if (!k->velocities || in->is_cpu || k->launch != MODEL_LAUNCH_LINEAR) return n;
    const long long row = model_row_bytes(k, lat), plane = row * lat->ny;
    int c[MODEL_MAX_Q][3];
    const int q = model_velocities_of(k->velocities, c);
    for (int side = 0; side < 2; side++) {
        const unsigned shift = side ? k->write_shift[phase] : k->read_shift[phase];
        const int exchanged = side && writes_exchanged(k, phase);
        for (int i = 0; i < q; i++) {
            int d[3];
            model_shift_apply(shift, c[i], d);
            const long long at = ((d[1] * row + d[2] * plane) % MODEL_SECTOR_BYTES + MODEL_SECTOR_BYTES) %
                                 MODEL_SECTOR_BYTES;
            if (!at) continue;
            if (!d[0]) (*(side ? &n.writes : &n.reads))++;
            else if (exchanged) n.exchanged++;
        }
    }
    return n;
}

int model_row_classes(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                      model_row_class out[MODEL_MAX_ROW_CLASSES])
{
    out[0].weight = 1;
    for (int p = 0; p < k->phases; p++) {
        out[0].misaligned_reads[p] = k->misaligned_reads[p];
        out[0].misaligned_writes[p] = k->misaligned_writes[p];
    }
    const long long step = gcd(model_row_bytes(k, lat) % MODEL_SECTOR_BYTES, MODEL_SECTOR_BYTES);
    if (!model_correction_on(MODEL_CORR_ROW_CLASSES) || in->is_cpu || k->launch == MODEL_LAUNCH_LINEAR || !model_block_rows_start_rows(in, k) ||
        step == MODEL_SECTOR_BYTES)
        return 1;
    int n = 0;
    const double share = (double)step / MODEL_SECTOR_BYTES; /* row offsets are the multiples of step, evenly */
    for (long long o = 0; o < MODEL_SECTOR_BYTES; o += step) {
        model_row_class c = {.weight = share};
        for (int p = 0; p < k->phases; p++) {
            c.misaligned_reads[p] = misaligned_at(o, k->word_bytes, k->words_read, k->misaligned_reads[p]);
            c.misaligned_writes[p] = misaligned_at(o, k->word_bytes, k->words_written, k->misaligned_writes[p]);
        }
        int i = 0;
        while (i < n && (memcmp(out[i].misaligned_reads, c.misaligned_reads, sizeof c.misaligned_reads) ||
                         memcmp(out[i].misaligned_writes, c.misaligned_writes, sizeof c.misaligned_writes)))
            i++;
        if (i < n) out[i].weight += share;
        else if (n < MODEL_MAX_ROW_CLASSES) out[n++] = c; /* offsets 0, -s and the rest: three at most */
    }
    return n;
}

model_launch_shape model_launch_shape_of(const model_inputs *in, const model_kernel *k, const model_lattice *lat)
{
    model_launch_shape s = {.threads = model_launched_threads(k, lat)};
    if (lat->block_size <= 0) return s;
    s.blocks = ceil(s.threads / lat->block_size);
    double per_sm = lat->blocks_per_cu;
    const char *mt = model_meta_value(in, "max_threads_per_cu");
    if (per_sm <= 0 && lat->occupancy > 0 && mt && atof(mt) > 0)
        per_sm = floor(lat->occupancy * atof(mt) / lat->block_size + 1e-9); /* as occupancy_from_blocks, inverted */
    if (in->is_cpu || in->compute_units <= 0 || per_sm < 1) return s;
    s.per_wave = in->compute_units * per_sm;
    s.waves = s.blocks / s.per_wave;
    return s;
}

/* Blocks per SM mean the occupancy lbmkernels would record for them
 * (validate passes both), where the device says its threads per SM. */
void model_occupancy_from_blocks(const model_inputs *in, model_lattice *lat, const char *said)
{
    const char *mt = model_meta_value(in, "max_threads_per_cu");
    if (lat->blocks_per_cu > 0 && lat->block_size > 0 && mt && atof(mt) > 0)
        lat->occupancy = lat->blocks_per_cu * lat->block_size / atof(mt);
    if (lat->occupancy > 1)
        lbp_usage_error("%s: %g blocks of %d threads: more than the %s threads an SM holds", said, lat->blocks_per_cu,
                        lat->block_size, mt);
}
