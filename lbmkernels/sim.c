/* The D3Q19 kernels on a device: building them from the one embedded source
 * with defines, lattices in device memory, stepping, and the mass reduction. */
#include "lbm.h"
#include "cli.h"
#include "embed.h"
#include "half.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LBP_EMBED_TEXT(lbm_kernel_source, "lbmkernels/d3q19.cl");
const char *lbm_source = lbm_kernel_source;

#define MASS_BLOCK 256 /* d3q19.cl's default */

const char *lbm_precision_options(lbm_precision p)
{
    return p == LBM_FP64 ? " -DLBP_FP64=1 -DLBM_DOUBLE=1" : p == LBM_FP16S ? " -DLBM_FP16S=1" : "";
}

void lbm_build_options(char *out, size_t len, lbm_scheme s, lbm_precision p, lbm_boundary b, int aa_odd,
                       int cells_per_thread)
{
    static const char *const scheme_define[] = {"-DLBM_PUSH=1", "-DLBM_PULL=1", "-DLBM_SPLIT=1",
                                                "-DLBM_AA=1"};
    char cpt[40] = ""; /* one cell per thread: the kernel's default, no define */
    if (cells_per_thread == LBM_ROW_PER_THREAD) snprintf(cpt, sizeof cpt, " -DLBM_ROW=1");
    else if (cells_per_thread > 1) snprintf(cpt, sizeof cpt, " -DCELLS_PER_THREAD=%d", cells_per_thread);
    snprintf(out, len, "%s%s%s%s%s", scheme_define[s], s == LBM_SCHEME_AA && aa_odd ? " -DLBM_AA_ODD=1" : "",
             lbm_precision_options(p), b == LBM_CAVITY_BOX ? " -DLBM_CAVITY=1" : "", cpt);
}

const char *lbm_cpt_text(int cells_per_thread, char *buf, size_t len)
{
    if (cells_per_thread == LBM_ROW_PER_THREAD) snprintf(buf, len, "row");
    else snprintf(buf, len, "%d", cells_per_thread);
    return buf;
}

int lbm_cells_per_thread_ok(int n) { return n == 1 || n == 2 || n == 4 || n == LBM_ROW_PER_THREAD; }

/* The mass reduction, summed in double wherever the device has it, in
 * blocks of MASS_BLOCK threads that meet at barriers; where the kernel
 * cannot launch that many (a device that runs a group's items one after
 * another), one thread per block. */
static void mass_options(char *opt, size_t len, const lbp_device *d, lbm_precision p, int mass_block)
{
    snprintf(opt, len, "-DLBM_MASS=1 -DMASS_BLOCK=%d%s%s", mass_block, lbm_precision_options(p),
             d->info.fp64 ? " -DLBP_FP64=1 -DLBM_ACC_DOUBLE=1" : "");
}

static int build_mass(lbm_kernels *k, lbp_device *d, lbm_precision p)
{
    char opt[200];
    for (k->mass_block = MASS_BLOCK;; k->mass_block = 1) {
        mass_options(opt, sizeof opt, d, p, k->mass_block);
        if (!(k->mass = lbp_compile(d, lbm_source, "lbm_mass", opt))) return -1;
        lbp_kernel_info ki;
        d->be->kernel_info(d, k->mass, &ki);
        if (k->mass_block == 1 || ki.max_block_size <= 0 || ki.max_block_size >= k->mass_block) return 0;
        d->be->kernel_release(d, k->mass);
        k->mass = NULL;
    }
}

int lbm_nontemporal_ok(lbm_scheme s, lbm_precision p, lbm_boundary b, int cells_per_thread)
{
    return (s == LBM_SCHEME_PULL || s == LBM_SCHEME_SPLIT) && p != LBM_FP16S && b == LBM_PERIODIC &&
           cells_per_thread == LBM_ROW_PER_THREAD;
}

int lbm_kernels_build_stores(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                             int cells_per_thread, int nontemporal)
{
    if (nontemporal && !lbm_nontemporal_ok(s, p, b, cells_per_thread))
        lbp_fail("non-temporal stores: %s %s %s with %d cells per thread has stores that move in x or are not "
                 "words of fp32 or fp64; pull and split in the periodic box, a row per thread, have not",
                 lbm_scheme_names[s], lbm_precision_names[p], lbm_boundary_names[b], cells_per_thread);
    const int r = lbm_kernels_build_with(k, d, s, p, b, cells_per_thread, nontemporal ? "-DLBM_NT=1" : "");
    k->nontemporal = nontemporal;
    return r;
}

int lbm_kernels_build(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                      int cells_per_thread)
{
    return lbm_kernels_build_with(k, d, s, p, b, cells_per_thread, "");
}

/* The options of a step phase: its build options and step_defines. */
static void step_options(char *opt, size_t len, lbm_scheme s, lbm_precision p, lbm_boundary b, int phase,
                         int cells_per_thread, const char *step_defines)
{
    lbm_build_options(opt, len, s, p, b, phase, cells_per_thread);
    if (step_defines[0]) snprintf(opt + strlen(opt), len - strlen(opt), " %s", step_defines);
}

static void init_options(char *opt, size_t len, lbm_precision p)
{
    snprintf(opt, len, "-DLBM_INIT=1%s", lbm_precision_options(p));
}

void lbm_kernels_prefetch(lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b, int cells_per_thread,
                          int nontemporal)
{
    char opt[256];
    for (int phase = 0; phase < (s == LBM_SCHEME_AA ? 2 : 1); phase++) {
        step_options(opt, sizeof opt, s, p, b, phase, cells_per_thread, nontemporal ? "-DLBM_NT=1" : "");
        lbp_prefetch(d, lbm_source, "lbm_step", opt);
    }
    init_options(opt, sizeof opt, p);
    lbp_prefetch(d, lbm_source, "lbm_init", opt);
    for (int mb = MASS_BLOCK;; mb = 1) { /* the barrier's, and one thread per block */
        mass_options(opt, sizeof opt, d, p, mb);
        lbp_prefetch(d, lbm_source, "lbm_mass", opt);
        if (mb == 1) break;
    }
}

int lbm_kernels_build_with(lbm_kernels *k, lbp_device *d, lbm_scheme s, lbm_precision p, lbm_boundary b,
                           int cells_per_thread, const char *step_defines)
{
    memset(k, 0, sizeof *k);
    if (!lbm_cells_per_thread_ok(cells_per_thread))
        lbp_fail("cells per thread %d: the kernel handles 1, 2, 4 or a row", cells_per_thread);
    k->scheme = s;
    k->precision = p;
    k->boundary = b;
    k->cells_per_thread = cells_per_thread;
    char opt[256];
    for (int phase = 0; phase < (s == LBM_SCHEME_AA ? 2 : 1); phase++) {
        step_options(opt, sizeof opt, s, p, b, phase, cells_per_thread, step_defines);
        if (!(k->step[phase] = lbp_compile(d, lbm_source, "lbm_step", opt))) goto fail;
    }
    init_options(opt, sizeof opt, p);
    if (!(k->init = lbp_compile(d, lbm_source, "lbm_init", opt))) goto fail;
    if (build_mass(k, d, p) != 0) goto fail;
    return 0;
fail:
    lbm_kernels_release(k, d);
    return -1;
}

void lbm_step_limits(lbp_device *d, const lbm_kernels *k, int block_size, int *registers, int64_t *local_bytes,
                     int *max_block, int *blocks_per_cu)
{
    if (registers) *registers = 0;
    if (local_bytes) *local_bytes = -1;
    if (max_block) *max_block = d->info.max_block_size;
    if (blocks_per_cu) *blocks_per_cu = 0;
    for (int ph = 0; ph < 2 && k->step[ph]; ph++) {
        lbp_kernel_info ki;
        d->be->kernel_info(d, k->step[ph], &ki);
        if (registers && (ph == 0 || ki.registers > *registers)) *registers = ki.registers;
        if (local_bytes && (ph == 0 || ki.local_bytes > *local_bytes)) *local_bytes = ki.local_bytes;
        if (max_block && ki.max_block_size > 0 && ki.max_block_size < *max_block) *max_block = ki.max_block_size;
        if (blocks_per_cu) {
            int b = d->be->occupancy(d, k->step[ph], block_size, 0);
            if (ph == 0 || b < *blocks_per_cu) *blocks_per_cu = b;
        }
    }
}

void lbm_kernels_release(lbm_kernels *k, lbp_device *d)
{
    lbp_kernel **all[] = {&k->step[0], &k->step[1], &k->init, &k->mass};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (*all[i]) {
            d->be->kernel_release(d, *all[i]);
            *all[i] = NULL;
        }
}

int64_t lbm_bytes_needed(const lbm_layout *L, lbm_scheme s, lbm_precision p)
{
    return (int64_t)lbm_lattices(s) * lbm_words(L) * lbm_word_bytes(p);
}

static size_t word_bytes(const lbm_sim *m) { return (size_t)lbm_word_bytes(m->k->precision); }

double lbm_raw_word(lbm_precision p, const void *raw, size_t k)
{
    return p == LBM_FP64    ? ((const double *)raw)[k]
           : p == LBM_FP16S ? lbp_half_to_double(((const uint16_t *)raw)[k])
                            : (double)((const float *)raw)[k];
}

void lbm_raw_put(lbm_precision p, void *raw, size_t k, double v)
{
    if (p == LBM_FP64) ((double *)raw)[k] = v;
    else if (p == LBM_FP16S) ((uint16_t *)raw)[k] = lbp_half_from_double(v);
    else ((float *)raw)[k] = (float)v;
}

int lbm_sim_create(lbm_sim *m, lbp_device *d, const lbm_kernels *k, const lbm_layout *L,
                   double omega, double lid_u, int block_size)
{
    memset(m, 0, sizeof *m);
    if (k->cells_per_thread != LBM_ROW_PER_THREAD && L->nxp % k->cells_per_thread)
        lbp_fail("rows of %d words cannot be split into vectors of %d cells per thread; pad them to a multiple",
                 L->nxp, k->cells_per_thread);
    m->d = d;
    m->k = k;
    m->L = *L;
    m->omega = omega;
    m->lid_u = lid_u;
    m->block_size = block_size;
    size_t bytes = (size_t)lbm_words(L) * word_bytes(m);
    m->mass_blocks = d->info.compute_units > 0 ? 8 * d->info.compute_units : 64;
    if (m->mass_blocks > 4096) m->mass_blocks = 4096;
    for (int l = 0; l < lbm_lattices(k->scheme); l++)
        if (!(m->lat[l] = lbp_alloc(d, bytes))) goto no_room;
    if (!(m->partial = lbp_alloc(d, sizeof(double) * (size_t)m->mass_blocks))) goto no_room;
    return 0;
no_room:
    lbm_sim_destroy(m);
    return -1;
}

void lbm_sim_destroy(lbm_sim *m)
{
    for (int l = 0; l < 2; l++)
        if (m->lat[l]) lbp_release(m->d, m->lat[l]);
    if (m->partial) lbp_release(m->d, m->partial);
    m->lat[0] = m->lat[1] = m->partial = NULL;
}

/* Is word k of a lattice a cell's population (not a padding column nor the
 * gap between two populations' arrays)? */
static int in_lattice(const lbm_layout *L, size_t k)
{
    size_t c = k % (size_t)L->stride;
    return c < (size_t)L->cells_padded && (int)(c % (size_t)L->nxp) < L->nx;
}

void lbm_sim_upload(lbm_sim *m, const double *stored)
{
    size_t words = (size_t)lbm_words(&m->L);
    void *host = malloc(words * word_bytes(m));
    if (!host) lbp_fail("out of host memory for a %zu-word lattice", words);
    /* The device keeps S (f_i - w_i) (d3q19.cl); padding stays 0. */
    const lbm_layout *L = &m->L;
    const lbm_precision p = m->k->precision;
    const double scale = lbm_scale(p);
    for (size_t k = 0; k < words; k++) {
        int i = (int)(k / (size_t)L->stride);
        lbm_raw_put(p, host, k, in_lattice(L, k) ? (stored[k] - lbm_w[i]) * scale : 0.0);
    }
    for (int l = 0; l < lbm_lattices(m->k->scheme); l++) lbp_write(m->d, m->lat[l], host, words * word_bytes(m));
    free(host);
    m->cur = 0;
    m->t = 0;
}

void lbm_sim_download(lbm_sim *m, double *stored)
{
    size_t words = (size_t)lbm_words(&m->L);
    void *host = malloc(words * word_bytes(m));
    if (!host) lbp_fail("out of host memory for a %zu-word lattice", words);
    lbp_read(m->d, m->lat[m->cur], host, words * word_bytes(m));
    const lbm_layout *L = &m->L;
    const lbm_precision p = m->k->precision;
    const double scale = lbm_scale(p);
    for (size_t k = 0; k < words; k++) {
        int i = (int)(k / (size_t)L->stride);
        stored[k] = in_lattice(L, k) ? lbm_raw_word(p, host, k) / scale + lbm_w[i] : 0.0;
    }
    free(host);
}

/* omega, lid_u, u0: the arithmetic's type (float but for fp64) */
static lbp_arg real_arg(const lbm_sim *m, double v)
{
    return m->k->precision == LBM_FP64 ? LBP_F64(v) : LBP_F32((float)v);
}

/* One thread per word of a population's array (stride). */
static lbp_launch_cfg cells_cfg(const lbm_sim *m, int block)
{
    int64_t blocks = (m->L.stride + block - 1) / block;
    return lbp_cfg_1d((unsigned)blocks, (unsigned)block);
}

int64_t lbm_step_threads(const lbm_layout *L, int cells_per_thread)
{
    if (cells_per_thread == LBM_ROW_PER_THREAD) return (int64_t)L->ny * L->nz;
    return (int64_t)(L->nxp / cells_per_thread) * L->ny * L->nz; /* tpr in d3q19.cl */
}

/* lbm_step: cells_per_thread adjacent cells of a row per thread. */
static lbp_launch_cfg step_cfg(const lbm_sim *m, int block)
{
    int64_t blocks = (lbm_step_threads(&m->L, m->k->cells_per_thread) + block - 1) / block;
    return lbp_cfg_1d((unsigned)blocks, (unsigned)block);
}

void lbm_sim_init_device(lbm_sim *m, double u0)
{
    lbp_launch_cfg cfg = cells_cfg(m, 256);
    for (int l = 0; l < lbm_lattices(m->k->scheme); l++) {
        lbp_arg a[] = {LBP_BUF(m->lat[l]), LBP_I32(m->L.nx), LBP_I32(m->L.ny), LBP_I32(m->L.nz),
                       LBP_I32(m->L.nxp), LBP_I64(m->L.stride), real_arg(m, u0)};
        lbp_launch(m->d, m->k->init, &cfg, 7, a);
    }
    m->cur = 0;
    m->t = 0;
}

int lbm_sim_step_args(const lbm_sim *m, lbp_arg *a)
{
    int na = 0;
    const int aa = m->k->scheme == LBM_SCHEME_AA;
    a[na++] = LBP_BUF(m->lat[aa ? 0 : m->cur]);
    if (!aa) a[na++] = LBP_BUF(m->lat[1 - m->cur]);
    a[na++] = LBP_I32(m->L.nx);
    a[na++] = LBP_I32(m->L.ny);
    a[na++] = LBP_I32(m->L.nz);
    a[na++] = LBP_I32(m->L.nxp);
    a[na++] = LBP_I64(m->L.stride);
    a[na++] = real_arg(m, m->omega);
    a[na++] = real_arg(m, m->lid_u);
    return na;
}

lbp_kernel *lbm_sim_step_kernel(const lbm_sim *m)
{
    return m->k->step[m->k->scheme == LBM_SCHEME_AA ? m->t & 1 : 0];
}

void lbm_sim_advance(lbm_sim *m)
{
    if (m->k->scheme != LBM_SCHEME_AA) m->cur = 1 - m->cur;
    m->t++;
}

void lbm_sim_steps(lbm_sim *m, int n)
{
    lbp_launch_cfg cfg = step_cfg(m, m->block_size);
    lbp_arg a[LBM_STEP_ARGS];
    for (int s = 0; s < n; s++) {
        int na = lbm_sim_step_args(m, a);
        lbp_launch(m->d, lbm_sim_step_kernel(m), &cfg, na, a);
        lbm_sim_advance(m);
    }
}

double lbm_sim_mass(lbm_sim *m)
{
    lbp_launch_cfg cfg = lbp_cfg_1d((unsigned)m->mass_blocks, (unsigned)m->k->mass_block);
    lbp_arg a[] = {LBP_BUF(m->lat[m->cur]), LBP_I64(lbm_words(&m->L)), LBP_BUF(m->partial)};
    lbp_launch(m->d, m->k->mass, &cfg, 3, a);
    int acc_double = m->d->info.fp64;
    double part[4096];
    float partf[4096];
    if (acc_double) lbp_read(m->d, m->partial, part, sizeof(double) * (size_t)m->mass_blocks);
    else lbp_read(m->d, m->partial, partf, sizeof(float) * (size_t)m->mass_blocks);
    double sum = 0;
    for (int b = 0; b < m->mass_blocks; b++) sum += acc_double ? part[b] : partf[b];
    /* the lattice holds S (f_i - w_i), sum of w_i = 1 */
    return sum / lbm_scale(m->k->precision) + (double)m->L.cells;
}
