/* CUDA backend: the driver API and NVRTC, both loaded with dlopen so the
 * same binary starts on machines without an NVIDIA driver. */
#include "device.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#if defined(LBP_HAVE_CUDA)
#include <cuda.h>
#include <nvrtc.h>

/* Function pointers named after the API; dlsym looks up the versioned symbol
 * the header maps the name to (cuMemAlloc -> cuMemAlloc_v2). */
#define STR2(x) #x
#define STR(x) STR2(x)
#define CU_FUNCS(X)                                                                   \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid) \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)          \
    X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc) \
    X(cuMemFree) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)       \
    X(cuMemHostAlloc) X(cuMemFreeHost) X(cuModuleLoadData) X(cuModuleGetFunction)    \
    X(cuModuleUnload) X(cuFuncGetAttribute) X(cuFuncSetAttribute)                    \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuLaunchKernel) X(cuStreamCreate) \
    X(cuStreamDestroy) X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord)      \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) X(cuStreamBeginCapture) \
    X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphExecDestroy) \
    X(cuGraphDestroy) X(cuGetErrorName) X(cuGetErrorString) X(cuMemGetInfo)              \
    X(cuStreamCreateWithPriority) X(cuCtxGetStreamPriorityRange) X(cuIpcGetMemHandle)    \
    X(cuIpcOpenMemHandle) X(cuIpcCloseMemHandle) X(cuMemcpyAsync) X(cuMemGetAddressRange)
#define NVRTC_FUNCS(X)                                                                  \
    X(nvrtcCreateProgram) X(nvrtcCompileProgram) X(nvrtcGetProgramLogSize)            \
    X(nvrtcGetProgramLog) X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN) X(nvrtcGetPTXSize)    \
    X(nvrtcGetPTX) X(nvrtcDestroyProgram) X(nvrtcGetErrorString) X(nvrtcVersion)

#define DECLARE(f) static __typeof__(&f) p_##f;
CU_FUNCS(DECLARE)
NVRTC_FUNCS(DECLARE)

static void *libcuda, *libnvrtc;
static int cuda_state; /* 0 untried, 1 ready, -1 missing */
static char cuda_why[256];

static int load_symbols(void *lib, const char *const *names, void ***ptrs, int n, char *why, size_t len)
{
    for (int i = 0; i < n; i++) {
        *ptrs[i] = dlsym(lib, names[i]);
        if (!*ptrs[i]) {
            snprintf(why, len, "symbol %s missing", names[i]);
            return -1;
        }
    }
    return 0;
}

#define NAME(f) STR(f),
#define PTR(f) (void **)&p_##f,
static const char *const cu_names[] = {CU_FUNCS(NAME)};
static void **cu_ptrs[] = {CU_FUNCS(PTR)};
static const char *const nvrtc_names[] = {NVRTC_FUNCS(NAME)};
static void **nvrtc_ptrs[] = {NVRTC_FUNCS(PTR)};

static int load_nvrtc(char *why, size_t len)
{
    static int state;
    static char saved[256];
    if (state) {
        if (state < 0) snprintf(why, len, "%s", saved);
        return state > 0 ? 0 : -1;
    }
    const char *env = getenv("LBP_NVRTC");
    const char *candidates[] = {env, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
#ifdef LBP_CUDA_HOME
                                LBP_CUDA_HOME "/lib64/libnvrtc.so",
                                LBP_CUDA_HOME "/targets/x86_64-linux/lib/libnvrtc.so",
#endif
                                "/usr/local/cuda/lib64/libnvrtc.so"};
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !libnvrtc; i++)
        if (candidates[i]) libnvrtc = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!libnvrtc) {
        snprintf(saved, sizeof saved, "NVRTC not found (libnvrtc.so; set LBP_NVRTC to its path)");
    } else if (load_symbols(libnvrtc, nvrtc_names, nvrtc_ptrs, sizeof nvrtc_names / sizeof *nvrtc_names,
                            saved, sizeof saved) == 0) {
        state = 1;
        return 0;
    }
    state = -1;
    snprintf(why, len, "%s", saved);
    return -1;
}

static int load_cuda(void)
{
    if (cuda_state) return cuda_state;
    cuda_state = -1;
    libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        snprintf(cuda_why, sizeof cuda_why, "no CUDA driver (libcuda.so.1 not found)");
        return cuda_state;
    }
    if (load_symbols(libcuda, cu_names, cu_ptrs, sizeof cu_names / sizeof *cu_names, cuda_why,
                     sizeof cuda_why) < 0)
        return cuda_state;
    CUresult r = p_cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *s = "?";
        p_cuGetErrorName(r, &s);
        snprintf(cuda_why, sizeof cuda_why, "CUDA driver present but cuInit failed: %s", s);
        return cuda_state;
    }
    cuda_state = 1;
    return cuda_state;
}

static void cu_check(CUresult r, const char *call, const char *file, int line)
{
    if (r == CUDA_SUCCESS) return;
    const char *name = "?", *desc = "";
    p_cuGetErrorName(r, &name);
    p_cuGetErrorString(r, &desc);
    char msg[512];
    snprintf(msg, sizeof msg, "%s (%s)", name, desc);
    lbp_api_fail("cuda", call, file, line, msg);
}
#define CU(call) cu_check(p_##call, #call, __FILE__, __LINE__)

typedef struct {
    CUdevice dev;
    CUcontext ctx;
    CUstream streams[2]; /* the first; the second (select_queue), made when first asked for */
    CUstream stream;     /* the current one of the two */
    CUevent ev_start, ev_stop;
} cuda_impl;

struct lbp_buf {
    CUdeviceptr ptr;
    size_t bytes;
    int imported; /* another process's memory, opened by ipc_import */
};

struct lbp_kernel {
    CUmodule module;
    CUfunction fn;
    char entry[128];
    size_t shared_set; /* dynamic shared memory limit set so far */
};

static int cuda_count(char *why, size_t len)
{
    if (load_cuda() < 0) {
        snprintf(why, len, "%s", cuda_why);
        return -1;
    }
    int n = 0;
    CU(cuDeviceGetCount(&n));
    if (n == 0) snprintf(why, len, "driver found, but no CUDA device");
    return n;
}

static int attr(CUdevice dev, CUdevice_attribute a)
{
    int v = 0;
    CU(cuDeviceGetAttribute(&v, a, dev));
    return v;
}

static void cuda_open(lbp_device *d, int index)
{
    char why[256];
    if (cuda_count(why, sizeof why) <= index) lbp_api_fail("cuda", "open", __FILE__, __LINE__, "no such device");
    cuda_impl *c = calloc(1, sizeof *c);
    d->impl = c;
    CU(cuDeviceGet(&c->dev, index));
    CU(cuDevicePrimaryCtxRetain(&c->ctx, c->dev));
    CU(cuCtxSetCurrent(c->ctx));
    CU(cuStreamCreate(&c->streams[0], CU_STREAM_DEFAULT));
    c->stream = c->streams[0];
    CU(cuEventCreate(&c->ev_start, CU_EVENT_DEFAULT));
    CU(cuEventCreate(&c->ev_stop, CU_EVENT_DEFAULT));

    lbp_device_info *i = &d->info;
    memset(i, 0, sizeof *i);
    snprintf(i->backend, sizeof i->backend, "cuda");
    CU(cuDeviceGetName(i->name, sizeof i->name, c->dev));
    lbp_make_slug(i->slug, sizeof i->slug, i->name);
    snprintf(i->vendor, sizeof i->vendor, "NVIDIA");
    snprintf(i->platform, sizeof i->platform, "CUDA");
    int ver = 0;
    CU(cuDriverGetVersion(&ver));
    snprintf(i->driver, sizeof i->driver, "CUDA %d.%d", ver / 1000, (ver % 1000) / 10);
    i->kind = LBP_KIND_GPU;
    CUuuid uuid;
    if (p_cuDeviceGetUuid(&uuid, c->dev) == CUDA_SUCCESS)
        lbp_format_uuid(i->uuid, sizeof i->uuid, (const unsigned char *)uuid.bytes);
    i->compute_units = attr(c->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    i->clock_mhz = attr(c->dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;
    i->mem_clock_mhz = attr(c->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000;
    i->bus_width_bits = attr(c->dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    /* double data rate: two transfers per memory clock */
    i->theoretical_gbs = 2.0 * attr(c->dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) * 1e3 *
                         (i->bus_width_bits / 8.0) / 1e9;
    i->l2_bytes = attr(c->dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    size_t total = 0;
    CU(cuDeviceTotalMem(&total, c->dev));
    i->global_mem_bytes = (int64_t)total;
    i->max_alloc_bytes = (int64_t)total;
    i->ecc = attr(c->dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
    i->fp64 = 1;
    i->max_block_size = attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    i->warp_size = attr(c->dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    i->max_threads_per_cu = attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    i->max_blocks_per_cu = attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    i->shared_per_cu = attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    i->shared_per_block = attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    i->cc_major = attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    i->cc_minor = attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    i->timer_resolution_ns = 500.0; /* cuEventElapsedTime: about 0.5 us */
    /* IPC maps another process's allocation into this context's share of
     * the unified address space, which every 64-bit CUDA device has */
    i->caps = (lbp_caps){.carveout = 1, .force_blocks_per_cu = 1, .warp_clock = 1, .graph_replay = 1,
                         .usable_bytes = i->global_mem_bytes, /* any buffer that fits, reliably */
                         .second_queue = 1, .ipc = 1, .device_pointers = 1};
}

static void cuda_close(lbp_device *d)
{
    cuda_impl *c = d->impl;
    if (!c) return;
    p_cuCtxSynchronize();
    p_cuEventDestroy(c->ev_start);
    p_cuEventDestroy(c->ev_stop);
    for (int q = 0; q < 2; q++)
        if (c->streams[q]) p_cuStreamDestroy(c->streams[q]);
    p_cuDevicePrimaryCtxRelease(c->dev);
    free(c);
    d->impl = NULL;
}

static lbp_buf *cuda_alloc(lbp_device *d, size_t bytes)
{
    (void)d;
    lbp_buf *b = calloc(1, sizeof *b);
    b->bytes = bytes;
    CUresult r = p_cuMemAlloc(&b->ptr, bytes ? bytes : 1);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        free(b);
        return NULL;
    }
    cu_check(r, "cuMemAlloc", __FILE__, __LINE__);
    return b;
}

static void cuda_ipc_close(lbp_device *d, lbp_buf *b);

static void cuda_release(lbp_device *d, lbp_buf *b)
{
    if (b->imported) {
        cuda_ipc_close(d, b);
        return;
    }
    CU(cuMemFree(b->ptr));
    free(b);
}

static void check_range(const lbp_buf *b, size_t off, size_t bytes, const char *what)
{
    if (off + bytes > b->bytes) lbp_api_fail("cuda", what, __FILE__, __LINE__, "range outside the buffer");
}

static void cuda_write(lbp_device *d, lbp_buf *dst, size_t off, const void *src, size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(dst, off, bytes, "write");
    CU(cuMemcpyHtoDAsync(dst->ptr + off, src, bytes, c->stream));
    CU(cuStreamSynchronize(c->stream));
}

static void cuda_read(lbp_device *d, const lbp_buf *src, size_t off, void *dst, size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(src, off, bytes, "read");
    CU(cuMemcpyDtoHAsync(dst, src->ptr + off, bytes, c->stream));
    CU(cuStreamSynchronize(c->stream));
}

static void cuda_copy(lbp_device *d, lbp_buf *dst, const lbp_buf *src, size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(dst, 0, bytes, "copy");
    check_range(src, 0, bytes, "copy");
    CU(cuMemcpyDtoDAsync(dst->ptr, src->ptr, bytes, c->stream));
}

static void *cuda_host_alloc(lbp_device *d, size_t bytes, int pinned)
{
    (void)d;
    if (!pinned) return malloc(bytes);
    void *p = NULL;
    CUresult r = p_cuMemHostAlloc(&p, bytes, 0);
    return r == CUDA_SUCCESS ? p : NULL;
}

static void cuda_host_free(lbp_device *d, void *p, int pinned)
{
    (void)d;
    if (!p) return;
    if (pinned) CU(cuMemFreeHost(p));
    else free(p);
}

/* Split "-DA=1 -DB" into an argv for NVRTC, after the fixed options. */
static int build_options(const char **opts, int max, char *buf, const char *options)
{
    int n = 0;
    strcpy(buf, options);
    for (char *tok = strtok(buf, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n")) opts[n++] = tok;
    return n;
}

/* Compile with NVRTC into a cubin for arch ("sm_90") or, when arch starts
 * with "compute_", into PTX.  Returns the image (malloc'd) or NULL. */
static char *nvrtc_compile(const char *source, const char *entry, const char *options,
                           const char *arch, int quiet_ok)
{
    char *full = lbp_full_source(source);
    nvrtcProgram prog;
    nvrtcResult r = p_nvrtcCreateProgram(&prog, full, "kernel.cu", 0, NULL, NULL);
    if (r != NVRTC_SUCCESS) lbp_api_fail("cuda", "nvrtcCreateProgram", __FILE__, __LINE__, p_nvrtcGetErrorString(r));
    char archopt[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    const char *opts[256] = {archopt, "-DLBP_CUDA=1", "--std=c++17"};
    char *buf = malloc(strlen(options) + 1);
    int nopt = 3 + build_options(opts + 3, 250, buf, options);
    r = p_nvrtcCompileProgram(prog, nopt, opts);
    char *image = NULL;
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        p_nvrtcGetProgramLogSize(prog, &n);
        char *log = calloc(1, n + 1);
        p_nvrtcGetProgramLog(prog, log);
        if (!quiet_ok) lbp_print_compile_log("cuda", entry, log, full);
        free(log);
    } else if (strncmp(arch, "sm_", 3) == 0) {
        size_t n = 0;
        p_nvrtcGetCUBINSize(prog, &n);
        image = malloc(n);
        p_nvrtcGetCUBIN(prog, image);
    } else {
        size_t n = 0;
        p_nvrtcGetPTXSize(prog, &n);
        image = malloc(n);
        p_nvrtcGetPTX(prog, image);
    }
    p_nvrtcDestroyProgram(&prog);
    free(buf);
    free(full);
    return image;
}

int lbp_nvrtc_check(const char *source, const char *options, const char *arch, char *why, size_t why_len)
{
    if (load_nvrtc(why, why_len) < 0) return -1;
    char *image = nvrtc_compile(source, "(check)", options ? options : "", arch, 0);
    free(image);
    return image ? 0 : 1;
}

char *lbp_nvrtc_ptx(const char *source, const char *options, const char *arch, char *why, size_t why_len)
{
    if (load_nvrtc(why, why_len) < 0) return NULL;
    char *ptx = nvrtc_compile(source, "(ptx)", options ? options : "", arch, 0);
    if (!ptx) snprintf(why, why_len, "NVRTC could not compile the source (log above)");
    return ptx;
}

static lbp_kernel *cuda_compile(lbp_device *d, const char *source, const char *entry, const char *options)
{
    char why[256];
    if (load_nvrtc(why, sizeof why) < 0) {
        fprintf(stderr, "lbmprobe: cuda: %s\n", why);
        return NULL;
    }
    char arch[32];
    snprintf(arch, sizeof arch, "sm_%d%d", d->info.cc_major, d->info.cc_minor);
    char *image = nvrtc_compile(source, entry, options, arch, 0);
    if (!image) return NULL;
    lbp_kernel *k = calloc(1, sizeof *k);
    snprintf(k->entry, sizeof k->entry, "%s", entry);
    CU(cuModuleLoadData(&k->module, image));
    free(image);
    CUresult r = p_cuModuleGetFunction(&k->fn, k->module, entry);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "lbmprobe: cuda: kernel '%s' not found in the compiled source\n", entry);
        p_cuModuleUnload(k->module);
        free(k);
        return NULL;
    }
    return k;
}

static void cuda_kernel_release(lbp_device *d, lbp_kernel *k)
{
    (void)d;
    if (!k) return;
    CU(cuModuleUnload(k->module));
    free(k);
}

static int fattr(lbp_kernel *k, CUfunction_attribute a)
{
    int v = 0;
    CU(cuFuncGetAttribute(&v, a, k->fn));
    return v;
}

static void cuda_kernel_info(lbp_device *d, lbp_kernel *k, lbp_kernel_info *out)
{
    (void)d;
    out->registers = fattr(k, CU_FUNC_ATTRIBUTE_NUM_REGS);
    out->max_block_size = fattr(k, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    out->local_bytes = fattr(k, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    out->static_shared_bytes = fattr(k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
}

/* Dynamic shared memory above 48 KB needs the kernel's limit raised. */
static void allow_shared(lbp_kernel *k, size_t bytes)
{
    if (bytes <= 48 * 1024 || bytes <= k->shared_set) return;
    CU(cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes));
    k->shared_set = bytes;
}

static int cuda_occupancy(lbp_device *d, lbp_kernel *k, int block_size, size_t shared_bytes)
{
    (void)d;
    /* a block's dynamic shared memory and the kernel's own static arrays
     * come out of one per-block limit */
    if ((int64_t)shared_bytes + fattr(k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) > d->info.shared_per_block) return 0;
    allow_shared(k, shared_bytes);
    int blocks = 0;
    CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->fn, block_size, shared_bytes));
    return blocks;
}

static void cuda_set_carveout(lbp_device *d, lbp_kernel *k, int percent)
{
    (void)d;
    CU(cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent < 0 ? -1 : percent));
}

#define MAX_ARGS 256
static void cuda_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args)
{
    cuda_impl *c = d->impl;
    void *params[MAX_ARGS];
    if (nargs > MAX_ARGS) lbp_api_fail("cuda", "launch", __FILE__, __LINE__, "too many kernel arguments");
    for (int i = 0; i < nargs; i++)
        params[i] = args[i].type == LBP_ARG_BUF ? (void *)&args[i].v.buf->ptr : (void *)&args[i].v;
    allow_shared(k, cfg->shared_bytes);
    unsigned g[3], b[3];
    for (int i = 0; i < 3; i++) {
        g[i] = cfg->grid[i] ? cfg->grid[i] : 1;
        b[i] = cfg->block[i] ? cfg->block[i] : 1;
    }
    CUresult r = p_cuLaunchKernel(k->fn, g[0], g[1], g[2], b[0], b[1], b[2], (unsigned)cfg->shared_bytes,
                                  c->stream, params, NULL);
    if (r != CUDA_SUCCESS) {
        char call[192];
        snprintf(call, sizeof call, "cuLaunchKernel(%s, grid %ux%ux%u, block %ux%ux%u)", k->entry, g[0], g[1],
                 g[2], b[0], b[1], b[2]);
        cu_check(r, call, __FILE__, __LINE__);
    }
}

static void cuda_sync(lbp_device *d)
{
    cuda_impl *c = d->impl;
    CU(cuStreamSynchronize(c->stream));
}

static void cuda_timer_start(lbp_device *d)
{
    cuda_impl *c = d->impl;
    CU(cuEventRecord(c->ev_start, c->stream));
}

static double cuda_timer_stop_ms(lbp_device *d)
{
    cuda_impl *c = d->impl;
    CU(cuEventRecord(c->ev_stop, c->stream));
    CU(cuEventSynchronize(c->ev_stop));
    float ms = 0;
    CU(cuEventElapsedTime(&ms, c->ev_start, c->ev_stop));
    return ms;
}

static double cuda_graph_replay_ms(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs,
                                   const lbp_arg *args, int launches, int replays)
{
    cuda_impl *c = d->impl;
    CUgraph graph;
    CUgraphExec exec;
    CU(cuStreamSynchronize(c->stream));
    CU(cuStreamBeginCapture(c->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    for (int i = 0; i < launches; i++) cuda_launch(d, k, cfg, nargs, args);
    CU(cuStreamEndCapture(c->stream, &graph));
    CU(cuGraphInstantiate(&exec, graph, 0));
    CU(cuGraphLaunch(exec, c->stream)); /* warm-up: uploads the graph */
    CU(cuStreamSynchronize(c->stream));
    double *t = malloc(sizeof *t * (size_t)replays);
    for (int r = 0; r < replays; r++) {
        double t0 = lbp_now();
        CU(cuGraphLaunch(exec, c->stream));
        CU(cuStreamSynchronize(c->stream));
        t[r] = (lbp_now() - t0) * 1e3;
    }
    lbp_stats s = lbp_stats_of(t, replays);
    free(t);
    CU(cuGraphExecDestroy(exec));
    CU(cuGraphDestroy(graph));
    return s.median;
}

/* The second stream gets the highest priority the device has: the border
 * planes and their copies go first while the interior kernel fills the
 * GPU (Obrecht Art. E, Calore). */
static void cuda_select_queue(lbp_device *d, int queue)
{
    cuda_impl *c = d->impl;
    if (queue && !c->streams[1]) {
        int least = 0, greatest = 0;
        CU(cuCtxGetStreamPriorityRange(&least, &greatest));
        CU(cuStreamCreateWithPriority(&c->streams[1], CU_STREAM_DEFAULT, greatest));
    }
    c->stream = c->streams[queue ? 1 : 0];
}

static void cuda_read_async(lbp_device *d, const lbp_buf *src, size_t off, void *host, size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(src, off, bytes, "read_async");
    CU(cuMemcpyDtoHAsync(host, src->ptr + off, bytes, c->stream));
}

static void cuda_write_async(lbp_device *d, lbp_buf *dst, size_t off, const void *host, size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(dst, off, bytes, "write_async");
    CU(cuMemcpyHtoDAsync(dst->ptr + off, host, bytes, c->stream));
}

/* With unified addressing cuMemcpyAsync takes pointers of either device
 * (an IPC view of a peer GPU's memory included) and finds where each lies:
 * the copy goes over NVLink or PCIe, or stays on one GPU. */
static void cuda_copy_region(lbp_device *d, lbp_buf *dst, size_t dst_off, const lbp_buf *src, size_t src_off,
                             size_t bytes)
{
    cuda_impl *c = d->impl;
    check_range(dst, dst_off, bytes, "copy_region");
    check_range(src, src_off, bytes, "copy_region");
    CU(cuMemcpyAsync(dst->ptr + dst_off, src->ptr + src_off, bytes, c->stream));
}

static void cuda_ipc_export(lbp_device *d, lbp_buf *b, unsigned char handle[LBP_IPC_HANDLE_BYTES])
{
    (void)d;
    CUipcMemHandle h;
    _Static_assert(sizeof h == LBP_IPC_HANDLE_BYTES, "CUipcMemHandle is 64 bytes");
    CU(cuIpcGetMemHandle(&h, b->ptr));
    memcpy(handle, &h, sizeof h);
}

/* The view spans the exporter's whole allocation (its size asked of the
 * driver), so copies anywhere in it pass the range check. */
static lbp_buf *cuda_ipc_import(lbp_device *d, const unsigned char handle[LBP_IPC_HANDLE_BYTES])
{
    (void)d;
    CUipcMemHandle h;
    memcpy(&h, handle, sizeof h);
    lbp_buf *b = calloc(1, sizeof *b);
    b->imported = 1;
    CU(cuIpcOpenMemHandle(&b->ptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CUdeviceptr base = 0;
    CU(cuMemGetAddressRange(&base, &b->bytes, b->ptr));
    return b;
}

static void cuda_ipc_close(lbp_device *d, lbp_buf *b)
{
    cuda_impl *c = d->impl;
    for (int q = 0; q < 2; q++)
        if (c->streams[q]) CU(cuStreamSynchronize(c->streams[q]));
    CU(cuIpcCloseMemHandle(b->ptr));
    free(b);
}

static void *cuda_device_pointer(lbp_device *d, lbp_buf *b)
{
    (void)d;
    return (void *)(uintptr_t)b->ptr;
}

const lbp_backend lbp_cuda_backend = {.name = "cuda", LBP_BACKEND_FUNCTIONS(cuda), .set_carveout = cuda_set_carveout,
                                      .graph_replay_ms = cuda_graph_replay_ms, .select_queue = cuda_select_queue,
                                      .read_async = cuda_read_async, .write_async = cuda_write_async,
                                      .copy_region = cuda_copy_region, .ipc_export = cuda_ipc_export,
                                      .ipc_import = cuda_ipc_import, .ipc_close = cuda_ipc_close,
                                      .device_pointer = cuda_device_pointer};

#else /* built without cuda.h / nvrtc.h */

static int nocuda_count(char *why, size_t len)
{
    snprintf(why, len, "CUDA backend not built (cuda.h and nvrtc.h were not found at build time)");
    return -1;
}
const lbp_backend lbp_cuda_backend = {.name = "cuda", .count = nocuda_count};

int lbp_nvrtc_check(const char *source, const char *options, const char *arch, char *why, size_t why_len)
{
    (void)source; (void)options; (void)arch;
    snprintf(why, why_len, "CUDA backend not built (no nvrtc.h at build time)");
    return -1;
}

char *lbp_nvrtc_ptx(const char *source, const char *options, const char *arch, char *why, size_t why_len)
{
    (void)source; (void)options; (void)arch;
    snprintf(why, why_len, "CUDA backend not built (no nvrtc.h at build time)");
    return NULL;
}
#endif
