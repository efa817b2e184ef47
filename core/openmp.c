/* OpenMP backend: the host CPU as CPU codes run on it.  Kernel text goes
 * through the C compiler into a shared object (cjit.h), whose wrapper runs
 * a launch's work-groups in an OpenMP loop on threads pinned one per core;
 * buffers are host memory; timing is the host clock around launches that
 * return when they are done. */
#include "device.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cjit.h"
#include "cli.h"
#include "embed.h"
#include "hostcpu.h"
#include "stats.h"

LBP_EMBED_TEXT(lbp_openmp_prelude, "core/openmp_prelude.h");

#define HUGE_PAGE ((size_t)2 << 20)
#define MAX_BLOCK 4096
/* Copies below this run on the calling thread: a parallel region costs
 * microseconds. */
#define PARALLEL_COPY_BYTES ((size_t)1 << 20)

/* Filling and copying buffers on the kernels' threads, with their static
 * schedule: thread t of T takes the t-th T-th of the bytes, so the pages a
 * buffer's first touch places are where a kernel over the same range runs. */
static const char runtime_source[] =
    "#include <omp.h>\n"
    "#include <string.h>\n"
    "static void share(long n, long unit, long *lo, long *hi)\n"
    "{\n"
    "    const long t = omp_get_thread_num(), T = omp_get_num_threads(), units = (n + unit - 1) / unit;\n"
    "    *lo = units * t / T * unit;\n"
    "    *hi = units * (t + 1) / T * unit;\n"
    "    if (*lo > n) *lo = n;\n"
    "    if (*hi > n) *hi = n;\n"
    "}\n"
    "void lbp_rt_zero(unsigned char *p, long n, int threads)\n"
    "{\n"
    "#pragma omp parallel num_threads(threads)\n"
    "    { long lo, hi; share(n, 4096, &lo, &hi); if (hi > lo) memset(p + lo, 0, (size_t)(hi - lo)); }\n"
    "}\n"
    "void lbp_rt_copy(unsigned char *restrict d, const unsigned char *restrict s, long n, int threads)\n"
    "{\n"
    "#pragma omp parallel num_threads(threads)\n"
    "    { long lo, hi; share(n, 64, &lo, &hi); if (hi > lo) memcpy(d + lo, s + lo, (size_t)(hi - lo)); }\n"
    "}\n";

/* A compiled kernel, kept for the life of the device: tools build the same
 * kernel again and again (lbmkernels compiles its init and mass kernels for
 * every scheme), and the compiler takes most of a second at -O3. */
typedef struct compiled {
    char *key; /* entry, options and source, each ended by a NUL */
    size_t key_len;
    lbp_cjit_job *job; /* prefetched, its compiler still running (obj not yet loaded) */
    lbp_cjit_object obj;
    struct compiled *next;
} compiled;

typedef struct {
    int threads;
    int max_jobs; /* compilers at once: the CPUs the process may use */
    compiled *cache;
    lbp_cjit_object runtime;
    void (*zero)(unsigned char *p, long n, int threads);
    void (*copy)(unsigned char *d, const unsigned char *s, long n, int threads);
    double t0; /* timer_start */
} omp_impl;

struct lbp_buf {
    unsigned char *ptr; /* first: a launch passes its address */
    size_t bytes;
};

struct lbp_kernel {
    const lbp_cjit_object *obj; /* in the device's cache */
    char entry[128];
};

static int finish_job(compiled *c, int quiet);

static int omp_count(char *why, size_t len)
{
    return lbp_cjit_available(why, len) ? 1 : -1;
}

/* OMP_NUM_THREADS where the user set it, else one thread per core.  Read
 * strictly, one whole number, before the OpenMP runtime reads it: atoi
 * took "1e9" for 1 thread, and libgomp crashes starting 100000.  More than
 * 4 threads per online CPU (at most 4096) is no measurement of the CPU but
 * of its scheduler: exit 2, as a bad flag. */
static int thread_count(int cores)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (!env || !*env) return cores > 0 ? cores : 1; /* set empty: unset, as the runtime reads it */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const long long most = online > 0 && online < 1024 ? 4 * online : 4096;
    long long n;
    if (lbp_scan_int(env, 1, most, &n))
        lbp_usage_error("OMP_NUM_THREADS: '%s' is not a whole number of threads in [1, %lld] (4 per online CPU, "
                        "at most 4096)", env, most);
    return (int)n;
}

/* No carveout, clock or graphs; the memory the host had free when the
 * device opened; buffers at host addresses (any MPI moves them);
 * non-temporal stores on x86-64 (the prelude's). */
static void set_caps(lbp_device_info *i)
{
    const int64_t avail = lbp_host_mem_available();
    i->caps = (lbp_caps){.usable_bytes = avail > 0 && avail < i->global_mem_bytes ? avail : i->global_mem_bytes,
                         .device_pointers = 1, .host_pointers = 1};
#if defined(__x86_64__)
    i->caps.nontemporal_stores = 1;
#endif
}

static void describe(lbp_device_info *i, const lbp_host_cpu *h, int threads)
{
    memset(i, 0, sizeof *i);
    snprintf(i->backend, sizeof i->backend, "openmp");
    snprintf(i->name, sizeof i->name, "%s", h->name);
    lbp_make_slug(i->slug, sizeof i->slug, i->name);
    snprintf(i->vendor, sizeof i->vendor, "%s", h->vendor);
    snprintf(i->platform, sizeof i->platform, "OpenMP: %d thread%s; OMP_PLACES=%s OMP_PROC_BIND=%s", threads,
             threads == 1 ? "" : "s", getenv("OMP_PLACES"), getenv("OMP_PROC_BIND"));
    snprintf(i->driver, sizeof i->driver, "%s", lbp_cjit_compiler_version());
    i->kind = LBP_KIND_CPU;
    i->compute_units = h->cores;
    i->clock_mhz = h->clock_mhz;
    i->mem_clock_mhz = -1;
    i->bus_width_bits = -1;
    i->l2_bytes = h->llc_bytes;
    i->global_mem_bytes = h->mem_bytes;
    i->max_alloc_bytes = h->mem_bytes;
    i->ecc = -1;
    i->fp64 = 1;
    i->max_block_size = MAX_BLOCK;
    i->warp_size = 1;
    struct timespec res;
    i->timer_resolution_ns = clock_getres(CLOCK_MONOTONIC, &res) == 0 ? res.tv_sec * 1e9 + res.tv_nsec : 1000.0;
    set_caps(i);
}

static void omp_open(lbp_device *d, int index)
{
    if (index != 0) lbp_api_fail("openmp", "open", __FILE__, __LINE__, "no such device");
    /* one thread per core, each staying on its core; read by the OpenMP
     * runtime when the first kernel's object loads it */
    setenv("OMP_PLACES", "cores", 0);
    setenv("OMP_PROC_BIND", "close", 0);
    lbp_cjit_check_cache();
    lbp_host_cpu h;
    lbp_host_cpu_describe(&h);
    omp_impl *o = calloc(1, sizeof *o);
    if (!o) lbp_api_fail("openmp", "calloc", __FILE__, __LINE__, "out of host memory");
    o->threads = thread_count(h.cores);
    o->max_jobs = h.cpus > 0 ? h.cpus : 1;
    d->impl = o;
    describe(&d->info, &h, o->threads);
}

static void omp_close(lbp_device *d)
{
    omp_impl *o = d->impl;
    if (!o) return;
    while (o->cache) {
        compiled *c = o->cache;
        o->cache = c->next;
        finish_job(c, 1);
        lbp_cjit_release(&c->obj);
        free(c->key);
        free(c);
    }
    lbp_cjit_release(&o->runtime);
    free(o);
    d->impl = NULL;
}

/* The fill and copy functions, compiled on first use. */
static void need_runtime(omp_impl *o)
{
    if (o->zero) return;
    if (lbp_cjit_build_plain(runtime_source, "buffer fill and copy", &o->runtime) != 0)
        lbp_api_fail("openmp", "compiling the buffer functions", __FILE__, __LINE__, "see the compiler's log above");
    o->zero = (void (*)(unsigned char *, long, int))lbp_cjit_symbol(&o->runtime, "lbp_rt_zero");
    o->copy = (void (*)(unsigned char *, const unsigned char *, long, int))lbp_cjit_symbol(&o->runtime, "lbp_rt_copy");
    if (!o->zero || !o->copy) lbp_api_fail("openmp", "dlsym", __FILE__, __LINE__, "buffer functions missing");
}

static void parallel_copy(omp_impl *o, void *dst, const void *src, size_t bytes)
{
    if (bytes < PARALLEL_COPY_BYTES) {
        memcpy(dst, src, bytes);
        return;
    }
    need_runtime(o);
    o->copy(dst, src, (long)bytes, o->threads);
}

/* Host memory, huge-page aligned where large, zeroed by the kernels'
 * threads (its first touch: see runtime_source).  NULL where the host has
 * not that much memory free (the kernel would otherwise overcommit it and
 * kill the process in the middle of a measurement). */
static lbp_buf *omp_alloc(lbp_device *d, size_t bytes)
{
    omp_impl *o = d->impl;
    const int64_t avail = lbp_host_mem_available();
    if (avail >= 0 && (int64_t)bytes > avail) return NULL;
    const size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    const size_t size = (bytes + align - 1) / align * align;
    lbp_buf *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->ptr = aligned_alloc(align, size ? size : align);
    if (!b->ptr) {
        free(b);
        return NULL;
    }
    b->bytes = bytes;
    if (align == HUGE_PAGE) madvise(b->ptr, size, MADV_HUGEPAGE);
    need_runtime(o);
    o->zero(b->ptr, (long)size, o->threads);
    return b;
}

static void omp_release(lbp_device *d, lbp_buf *b)
{
    (void)d;
    free(b->ptr);
    free(b);
}

static void check_range(const lbp_buf *b, size_t off, size_t bytes, const char *what)
{
    if (off + bytes > b->bytes) lbp_api_fail("openmp", what, __FILE__, __LINE__, "range outside the buffer");
}

static void omp_write(lbp_device *d, lbp_buf *dst, size_t off, const void *src, size_t bytes)
{
    check_range(dst, off, bytes, "write");
    parallel_copy(d->impl, dst->ptr + off, src, bytes);
}

static void omp_read(lbp_device *d, const lbp_buf *src, size_t off, void *dst, size_t bytes)
{
    check_range(src, off, bytes, "read");
    parallel_copy(d->impl, dst, src->ptr + off, bytes);
}

/* The reference copy: the C library's memcpy on every thread, each its
 * share. */
static void omp_copy(lbp_device *d, lbp_buf *dst, const lbp_buf *src, size_t bytes)
{
    check_range(dst, 0, bytes, "copy");
    check_range(src, 0, bytes, "copy");
    parallel_copy(d->impl, dst->ptr, src->ptr, bytes);
}

/* No page-locking on the host itself: both kinds are plain memory. */
static void *omp_host_alloc(lbp_device *d, size_t bytes, int pinned)
{
    (void)d;
    (void)pinned;
    return malloc(bytes);
}

static void omp_host_free(lbp_device *d, void *p, int pinned)
{
    (void)d;
    (void)pinned;
    free(p);
}

/* the C prelude, the half conversions a CPU vectorizes, the source */
static char *full_source(const char *source)
{
    const char *const parts[] = {lbp_openmp_prelude, lbp_half_bits, "\n#line 1\n", source, NULL};
    return lbp_join_texts(parts);
}

static char *cache_key(const char *source, const char *entry, const char *options, size_t *len)
{
    const size_t a = strlen(entry) + 1, b = strlen(options) + 1, c = strlen(source) + 1;
    char *key = malloc(a + b + c);
    if (!key) lbp_api_fail("openmp", "malloc", __FILE__, __LINE__, "out of host memory");
    memcpy(key, entry, a);
    memcpy(key + a, options, b);
    memcpy(key + a + b, source, c);
    *len = a + b + c;
    return key;
}

/* The source of a cache key (after its entry and options). */
static const char *key_source(const compiled *c)
{
    const char *options = c->key + strlen(c->key) + 1;
    return options + strlen(options) + 1;
}

/* Wait for a prefetched compile and load it; 0, or -1 where it failed (its
 * log printed, unless quiet: a prefetch nobody asked for again). */
static int finish_job(compiled *c, int quiet)
{
    if (!c->job) return 0;
    char *full = full_source(key_source(c));
    const int rc = lbp_cjit_finish_kernel(c->job, full, quiet, &c->obj);
    c->job = NULL;
    free(full);
    return rc;
}

static compiled *cache_find(omp_impl *o, const char *key, size_t len)
{
    for (compiled *c = o->cache; c; c = c->next)
        if (c->key_len == len && memcmp(c->key, key, len) == 0) return c;
    return NULL;
}

static void cache_remove(omp_impl *o, compiled *gone)
{
    for (compiled **p = &o->cache; *p; p = &(*p)->next)
        if (*p == gone) {
            *p = gone->next;
            free(gone->key);
            free(gone);
            return;
        }
}

/* A new entry of the cache, its compile started (a job) or done. */
static compiled *cache_add(omp_impl *o, char *key, size_t len)
{
    compiled *c = calloc(1, sizeof *c);
    if (!c) lbp_api_fail("openmp", "calloc", __FILE__, __LINE__, "out of host memory");
    c->key = key;
    c->key_len = len;
    c->next = o->cache;
    o->cache = c;
    return c;
}

/* The object of this source, entry and options: from the cache (waiting
 * for a prefetched compile), else compiled into it; NULL where the compile
 * failed (its log printed). */
static const lbp_cjit_object *compile_cached(omp_impl *o, const char *source, const char *entry, const char *options)
{
    size_t len;
    char *key = cache_key(source, entry, options, &len);
    compiled *c = cache_find(o, key, len);
    if (c) {
        free(key);
        if (finish_job(c, 0) == 0) return &c->obj;
        cache_remove(o, c);
        return NULL;
    }
    c = cache_add(o, key, len);
    char *full = full_source(source);
    const int rc = lbp_cjit_build_kernel(full, entry, options, &c->obj);
    free(full);
    if (rc == 0) return &c->obj;
    cache_remove(o, c);
    return NULL;
}

/* Compilers started and not yet waited for. */
static int jobs_running(const omp_impl *o)
{
    int n = 0;
    for (const compiled *c = o->cache; c; c = c->next) n += c->job != NULL;
    return n;
}

/* Start compiling what a tool will ask for soon, beside what already
 * compiles, as many compilers at once as the process has CPUs: the
 * oldest running one is waited for first where there are that many. */
static void omp_prefetch(lbp_device *d, const char *source, const char *entry, const char *options)
{
    omp_impl *o = d->impl;
    size_t len;
    char *key = cache_key(source, entry, options, &len);
    if (cache_find(o, key, len)) {
        free(key);
        return;
    }
    while (jobs_running(o) >= o->max_jobs) {
        compiled *oldest = NULL;
        for (compiled *c = o->cache; c; c = c->next)
            if (c->job) oldest = c; /* the list runs newest first */
        if (finish_job(oldest, 1) != 0) cache_remove(o, oldest);
    }
    compiled *c = cache_add(o, key, len);
    char *full = full_source(source);
    c->job = lbp_cjit_start_kernel(full, entry, options);
    free(full);
    if (!c->job) cache_remove(o, c);
}

/* Wait for every prefetched compile (a failed one leaves the cache, to
 * fail again, with its log, where it is asked for). */
static void finish_all(omp_impl *o)
{
    for (compiled *c = o->cache, *next; c; c = next) {
        next = c->next;
        if (finish_job(c, 1) != 0) cache_remove(o, c);
    }
}

/* After a compile no compiler runs: the prefetched ones are waited for
 * here, so that none runs beside what is measured next. */
static lbp_kernel *omp_compile(lbp_device *d, const char *source, const char *entry, const char *options)
{
    const lbp_cjit_object *obj = compile_cached(d->impl, source, entry, options);
    finish_all(d->impl);
    if (!obj) return NULL;
    lbp_kernel *k = calloc(1, sizeof *k);
    if (!k) lbp_api_fail("openmp", "calloc", __FILE__, __LINE__, "out of host memory");
    k->obj = obj;
    snprintf(k->entry, sizeof k->entry, "%s", entry);
    return k;
}

static void omp_kernel_release(lbp_device *d, lbp_kernel *k)
{
    (void)d;
    free(k);
}

/* A kernel with LOCAL_BARRIER runs with one work-item per group only: the
 * items of a group run one after another, and none can wait for the next. */
static void omp_kernel_info(lbp_device *d, lbp_kernel *k, lbp_kernel_info *out)
{
    (void)d;
    out->registers = -1;
    out->max_block_size = k->obj->entry.uses_barrier ? 1 : MAX_BLOCK;
    out->local_bytes = -1;
    out->static_shared_bytes = 0;
}

static int omp_occupancy(lbp_device *d, lbp_kernel *k, int block_size, size_t shared_bytes)
{
    (void)d;
    (void)k;
    (void)block_size;
    (void)shared_bytes;
    return -1;
}

static const char *kind_name(int kind, int bytes, char *buf, size_t len)
{
    snprintf(buf, len, "%s", kind == LBP_CJIT_POINTER ? "a pointer" : "");
    if (kind == LBP_CJIT_INTEGER || kind == LBP_CJIT_REAL)
        snprintf(buf, len, "a %d-byte %s", bytes, kind == LBP_CJIT_INTEGER ? "integer" : "floating-point number");
    else if (kind != LBP_CJIT_POINTER)
        snprintf(buf, len, "of type class %d", kind);
    return buf;
}

/* Does the value of a fit the parameter p? */
static int arg_fits(const lbp_arg *a, const lbp_cjit_param *p)
{
    switch (a->type) {
    case LBP_ARG_BUF: return p->kind == LBP_CJIT_POINTER;
    case LBP_ARG_I32: return p->kind == LBP_CJIT_INTEGER && p->bytes == 4;
    case LBP_ARG_I64: return p->kind == LBP_CJIT_INTEGER && p->bytes == 8;
    case LBP_ARG_F32: return p->kind == LBP_CJIT_REAL && p->bytes == 4;
    default: return p->kind == LBP_CJIT_REAL && p->bytes == 8;
    }
}

static void check_args(const lbp_kernel *k, int nargs, const lbp_arg *args)
{
    static const char *const arg_names[] = {"a buffer", "a 4-byte integer", "an 8-byte integer",
                                            "a 4-byte floating-point number", "an 8-byte floating-point number"};
    const lbp_cjit_entry *e = &k->obj->entry;
    char msg[512], kind[64];
    if (nargs != e->nparams) {
        snprintf(msg, sizeof msg, "kernel '%s' takes %d arguments, launched with %d", k->entry, e->nparams, nargs);
        lbp_api_fail("openmp", "launch", __FILE__, __LINE__, msg);
    }
    for (int i = 0; i < nargs; i++) {
        if (arg_fits(&args[i], &e->params[i])) continue;
        snprintf(msg, sizeof msg, "kernel '%s', parameter %d (%s) is %s, the argument %s", k->entry, i,
                 e->params[i].decl, kind_name(e->params[i].kind, e->params[i].bytes, kind, sizeof kind),
                 arg_names[args[i].type]);
        lbp_api_fail("openmp", "launch", __FILE__, __LINE__, msg);
    }
}

static void omp_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args)
{
    omp_impl *o = d->impl;
    check_args(k, nargs, args);
    void *values[LBP_CJIT_MAX_PARAMS];
    for (int i = 0; i < nargs; i++)
        values[i] = args[i].type == LBP_ARG_BUF ? (void *)&args[i].v.buf->ptr : (void *)&args[i].v;
    long shape[LBP_CJIT_SHAPE_LEN];
    long items = 1;
    for (int i = 0; i < 3; i++) {
        shape[LBP_CJIT_SHAPE_GRID + i] = cfg->grid[i] ? cfg->grid[i] : 1;
        shape[LBP_CJIT_SHAPE_BLOCK + i] = cfg->block[i] ? cfg->block[i] : 1;
        items *= shape[LBP_CJIT_SHAPE_BLOCK + i];
    }
    shape[LBP_CJIT_SHAPE_SHARED] = (long)cfg->shared_bytes;
    shape[LBP_CJIT_SHAPE_THREADS] = o->threads;
    if (k->obj->entry.uses_barrier && items > 1) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "kernel '%s' uses LOCAL_BARRIER, which this backend honours only with one work-item per "
                 "work-group (launched with %ld)", k->entry, items);
        lbp_api_fail("openmp", "launch", __FILE__, __LINE__, msg);
    }
    k->obj->run(values, shape);
}

/* A launch returns when its work is done. */
static void omp_sync(lbp_device *d) { (void)d; }

static void omp_timer_start(lbp_device *d)
{
    omp_impl *o = d->impl;
    o->t0 = lbp_now();
}

static double omp_timer_stop_ms(lbp_device *d)
{
    omp_impl *o = d->impl;
    return (lbp_now() - o->t0) * 1e3;
}

static void *omp_device_pointer(lbp_device *d, lbp_buf *b)
{
    (void)d;
    return b->ptr;
}

const lbp_backend lbp_openmp_backend = {.name = "openmp", LBP_BACKEND_FUNCTIONS(omp),
                                        .device_pointer = omp_device_pointer, .prefetch = omp_prefetch};
