/* OpenCL backend, through the ICD loader: NVIDIA's OpenCL, PoCL on the
 * CPU, any vendor.  Devices of all platforms are numbered in one list. */
#include "device.h"

#include <stdlib.h>
#include <string.h>

#if defined(LBP_HAVE_OPENCL)
#include <CL/cl.h>
#include <CL/cl_ext.h> /* CL_DEVICE_UUID_KHR */

#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001
#endif

static const char *cl_error_name(cl_int e)
{
    switch (e) {
#define E(x) case x: return #x;
        E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
        E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_BUILD_PROGRAM_FAILURE) E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT)
        E(CL_INVALID_OPERATION) E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
#undef E
    default: return "unknown OpenCL error";
    }
}

static void cl_check(cl_int r, const char *call, const char *file, int line)
{
    if (r == CL_SUCCESS) return;
    char msg[128];
    snprintf(msg, sizeof msg, "%s (%d)", cl_error_name(r), (int)r);
    lbp_api_fail("opencl", call, file, line, msg);
}
#define CL(call) cl_check(call, #call, __FILE__, __LINE__)
#define CLE(expr, err) (expr); cl_check(err, #expr, __FILE__, __LINE__)

typedef struct pinned_map {
    void *ptr;
    cl_mem mem;
    struct pinned_map *next;
} pinned_map;

typedef struct {
    cl_platform_id platform;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue queues[2]; /* the first; the second (select_queue), made when first asked for */
    cl_command_queue queue;     /* the current one of the two */
    int timing;
    cl_event first, last;  /* the first timed command's event; the end marker's */
    int timed_commands;    /* commands enqueued since timer_start */
    int nvidia;
    pinned_map *pinned;
} ocl_impl;

struct lbp_buf {
    cl_mem mem;
    size_t bytes;
};

struct lbp_kernel {
    cl_program program;
    cl_kernel kernel;
    cl_uint num_args;
    int registers;
    char entry[128];
};

#define MAX_DEVICES 64
static int all_devices(cl_platform_id *plat, cl_device_id *dev, char *why, size_t len)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    /* NVIDIA's OpenCL reads a kernel built before from its JIT cache, with
     * an empty build log: the log is where its register count comes from
     * (registers_from_log), so build afresh unless the user said otherwise */
    setenv("CUDA_CACHE_DISABLE", "1", 0);
    cl_int r = clGetPlatformIDs(16, ps, &np);
    if (r != CL_SUCCESS || np == 0) {
        snprintf(why, len, "no OpenCL platform (ICD loader found none: install an OpenCL driver, e.g. pocl-opencl-icd)");
        return -1;
    }
    int n = 0;
    for (cl_uint p = 0; p < np && n < MAX_DEVICES; p++) {
        cl_device_id ds[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, ds, &nd) != CL_SUCCESS) continue;
        for (cl_uint i = 0; i < nd && n < MAX_DEVICES; i++) {
            plat[n] = ps[p];
            dev[n++] = ds[i];
        }
    }
    if (n == 0) snprintf(why, len, "OpenCL platforms found, but no devices");
    return n;
}

static int ocl_count(char *why, size_t len)
{
    cl_platform_id p[MAX_DEVICES];
    cl_device_id d[MAX_DEVICES];
    return all_devices(p, d, why, len);
}

static void dev_str(cl_device_id d, cl_device_info what, char *out, size_t len)
{
    out[0] = 0;
    if (clGetDeviceInfo(d, what, len, out, NULL) != CL_SUCCESS) out[0] = 0;
    out[len - 1] = 0;
    /* trim trailing blanks some drivers leave */
    for (size_t n = strlen(out); n > 0 && out[n - 1] == ' '; n--) out[n - 1] = 0;
}

static cl_ulong dev_ulong(cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static cl_uint dev_uint(cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    if (clGetDeviceInfo(d, what, sizeof v, &v, NULL) != CL_SUCCESS) return 0;
    return v;
}

/* OpenCL sets no carveout, has no per-warp clock, no graphs and no IPC,
 * but a second command queue.  It
 * promises no more memory in all than its largest buffer, and NVIDIA's
 * OpenCL keeps buffers freed within a context from the next ones, and once
 * others were freed refused lattices of a few GB and failed from then on:
 * a fresh context per group of allocations, and default sweeps within
 * buffers of 4 GiB. */
static void set_caps(lbp_device_info *i)
{
    i->caps = (lbp_caps){.fresh_context_per_group = 1, .usable_bytes = i->global_mem_bytes,
                         .reliable_alloc_bytes = (int64_t)4 << 30, .second_queue = 1};
    if (i->max_alloc_bytes > 0 && i->max_alloc_bytes < i->caps.usable_bytes) i->caps.usable_bytes = i->max_alloc_bytes;
}

static void ocl_open(lbp_device *d, int index)
{
    cl_platform_id plats[MAX_DEVICES];
    cl_device_id devs[MAX_DEVICES];
    char why[256];
    if (all_devices(plats, devs, why, sizeof why) <= index) lbp_api_fail("opencl", "open", __FILE__, __LINE__, "no such device");
    ocl_impl *o = calloc(1, sizeof *o);
    d->impl = o;
    o->platform = plats[index];
    o->dev = devs[index];
    cl_int err;
    o->ctx = CLE(clCreateContext(NULL, 1, &o->dev, NULL, NULL, &err), err);
    o->queues[0] = CLE(clCreateCommandQueue(o->ctx, o->dev, CL_QUEUE_PROFILING_ENABLE, &err), err);
    o->queue = o->queues[0];

    lbp_device_info *i = &d->info;
    memset(i, 0, sizeof *i);
    snprintf(i->backend, sizeof i->backend, "opencl");
    dev_str(o->dev, CL_DEVICE_NAME, i->name, sizeof i->name);
    lbp_make_slug(i->slug, sizeof i->slug, i->name);
    dev_str(o->dev, CL_DEVICE_VENDOR, i->vendor, sizeof i->vendor);
    clGetPlatformInfo(o->platform, CL_PLATFORM_NAME, sizeof i->platform, i->platform, NULL);
    i->platform[sizeof i->platform - 1] = 0;
    dev_str(o->dev, CL_DRIVER_VERSION, i->driver, sizeof i->driver);
    cl_device_type type = 0;
    clGetDeviceInfo(o->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    i->kind = type & CL_DEVICE_TYPE_GPU ? LBP_KIND_GPU : type & CL_DEVICE_TYPE_CPU ? LBP_KIND_CPU : LBP_KIND_OTHER;
    i->compute_units = (int)dev_uint(o->dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    i->clock_mhz = (int)dev_uint(o->dev, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    i->mem_clock_mhz = -1;
    i->bus_width_bits = -1;
    i->l2_bytes = (int64_t)dev_ulong(o->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
    i->global_mem_bytes = (int64_t)dev_ulong(o->dev, CL_DEVICE_GLOBAL_MEM_SIZE);
    i->max_alloc_bytes = (int64_t)dev_ulong(o->dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    i->ecc = (int)dev_uint(o->dev, CL_DEVICE_ERROR_CORRECTION_SUPPORT);
    i->fp64 = dev_ulong(o->dev, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
    size_t wg = 0;
    clGetDeviceInfo(o->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    i->max_block_size = (int)wg;
    i->shared_per_block = (int64_t)dev_ulong(o->dev, CL_DEVICE_LOCAL_MEM_SIZE);
    i->shared_per_cu = i->shared_per_block;
    char ext[8192];
    dev_str(o->dev, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    o->nvidia = strstr(ext, "cl_nv_device_attribute_query") != NULL;
    unsigned char uuid[CL_UUID_SIZE_KHR];
    if (strstr(ext, "cl_khr_device_uuid") &&
        clGetDeviceInfo(o->dev, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, NULL) == CL_SUCCESS)
        lbp_format_uuid(i->uuid, sizeof i->uuid, uuid);
    i->warp_size = 1;
    if (o->nvidia) {
        i->warp_size = (int)dev_uint(o->dev, CL_DEVICE_WARP_SIZE_NV);
        i->cc_major = (int)dev_uint(o->dev, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV);
        i->cc_minor = (int)dev_uint(o->dev, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV);
        const int t = lbp_nv_max_threads_per_sm(i->cc_major, i->cc_minor);
        if (t > 0) i->max_threads_per_cu = t;
    }
    size_t res = 0;
    clGetDeviceInfo(o->dev, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof res, &res, NULL);
    i->timer_resolution_ns = (double)res;
    set_caps(i);
}

static void ocl_forget_events(ocl_impl *o)
{
    if (o->first) clReleaseEvent(o->first);
    if (o->last) clReleaseEvent(o->last);
    o->first = o->last = NULL;
}

static void ocl_close(lbp_device *d)
{
    ocl_impl *o = d->impl;
    if (!o) return;
    for (int q = 0; q < 2; q++)
        if (o->queues[q]) clFinish(o->queues[q]);
    ocl_forget_events(o);
    for (int q = 0; q < 2; q++)
        if (o->queues[q]) clReleaseCommandQueue(o->queues[q]);
    clReleaseContext(o->ctx);
    free(o);
    d->impl = NULL;
}

/* Timed commands: an event for the first one only, as CUDA records one
 * event at each end of the span.  An event on every command costs NVIDIA's
 * OpenCL host time per launch, several times a launch's own, which a time
 * loop does not pay; timer_stop ends the span with a marker. */
static cl_event *timed_event(ocl_impl *o, cl_event *tmp)
{
    if (!o->timing) return NULL;
    o->timed_commands++;
    return o->first ? NULL : tmp;
}
static void keep_event(ocl_impl *o, cl_event ev)
{
    if (o->timing && !o->first) o->first = ev;
}

static lbp_buf *ocl_alloc(lbp_device *d, size_t bytes)
{
    ocl_impl *o = d->impl;
    if ((int64_t)bytes > d->info.max_alloc_bytes) return NULL;
    cl_int err;
    cl_mem m = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &err);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_HOST_MEMORY)
        return NULL;
    cl_check(err, "clCreateBuffer", __FILE__, __LINE__);
    /* OpenCL allocates lazily: touch the whole buffer now so that a buffer
     * too large fails here, not in the middle of a measurement. */
    cl_uint zero = 0;
    size_t pattern = bytes % 4 == 0 && bytes ? 4 : 1;
    err = clEnqueueFillBuffer(o->queue, m, &zero, pattern, 0, bytes ? bytes : 1, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(o->queue);
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY) {
        clReleaseMemObject(m);
        return NULL;
    }
    cl_check(err, "clEnqueueFillBuffer (first touch of a new buffer)", __FILE__, __LINE__);
    lbp_buf *b = calloc(1, sizeof *b);
    b->mem = m;
    b->bytes = bytes;
    return b;
}

static void ocl_release(lbp_device *d, lbp_buf *b)
{
    (void)d; /* OpenCL frees a buffer once the commands that use it are done */
    CL(clReleaseMemObject(b->mem));
    free(b);
}

static void ocl_write(lbp_device *d, lbp_buf *dst, size_t off, const void *src, size_t bytes)
{
    ocl_impl *o = d->impl;
    cl_event ev;
    CL(clEnqueueWriteBuffer(o->queue, dst->mem, CL_TRUE, off, bytes, src, 0, NULL, timed_event(o, &ev)));
    if (o->timing) keep_event(o, ev);
}

static void ocl_read(lbp_device *d, const lbp_buf *src, size_t off, void *dst, size_t bytes)
{
    ocl_impl *o = d->impl;
    cl_event ev;
    CL(clEnqueueReadBuffer(o->queue, src->mem, CL_TRUE, off, bytes, dst, 0, NULL, timed_event(o, &ev)));
    if (o->timing) keep_event(o, ev);
}

static void ocl_copy(lbp_device *d, lbp_buf *dst, const lbp_buf *src, size_t bytes)
{
    ocl_impl *o = d->impl;
    cl_event ev;
    CL(clEnqueueCopyBuffer(o->queue, src->mem, dst->mem, 0, 0, bytes, 0, NULL, timed_event(o, &ev)));
    if (o->timing) keep_event(o, ev);
}

/* Pinned host memory the OpenCL way: a buffer the driver allocates in host
 * memory (CL_MEM_ALLOC_HOST_PTR), mapped for the host to use. */
static void *ocl_host_alloc(lbp_device *d, size_t bytes, int pinned)
{
    ocl_impl *o = d->impl;
    if (!pinned) return malloc(bytes);
    cl_int err;
    cl_mem m = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err != CL_SUCCESS) return NULL;
    void *p = clEnqueueMapBuffer(o->queue, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(m);
        return NULL;
    }
    pinned_map *pm = malloc(sizeof *pm);
    *pm = (pinned_map){p, m, o->pinned};
    o->pinned = pm;
    return p;
}

static void ocl_host_free(lbp_device *d, void *p, int pinned)
{
    ocl_impl *o = d->impl;
    if (!p) return;
    if (!pinned) {
        free(p);
        return;
    }
    for (pinned_map **pp = &o->pinned; *pp; pp = &(*pp)->next) {
        if ((*pp)->ptr != p) continue;
        pinned_map *pm = *pp;
        CL(clEnqueueUnmapMemObject(o->queue, pm->mem, p, 0, NULL, NULL));
        CL(clFinish(o->queue));
        CL(clReleaseMemObject(pm->mem));
        *pp = pm->next;
        free(pm);
        return;
    }
}

/* NVIDIA's OpenCL prints ptxas's resource use with -cl-nv-verbose:
 * "ptxas info    : Used 40 registers" after "Compiling entry ['name']". */
static int registers_from_log(const char *log, const char *entry)
{
    char key[160];
    snprintf(key, sizeof key, "'%s'", entry);
    const char *p = strstr(log, key);
    if (!p) p = log;
    const char *u = strstr(p, "Used ");
    return u ? atoi(u + 5) : -1;
}

static char *build_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = calloc(1, n + 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
    return log;
}

static lbp_kernel *ocl_compile(lbp_device *d, const char *source, const char *entry, const char *options)
{
    ocl_impl *o = d->impl;
    char *full = lbp_full_source(source);
    const char *src = full;
    cl_int err;
    cl_program prog = CLE(clCreateProgramWithSource(o->ctx, 1, &src, NULL, &err), err);
    const char *extra = getenv("LBP_OCL_OPTIONS");
    if (!extra) extra = "";
    size_t olen = strlen(options) + strlen(extra) + 96;
    char *opts = malloc(olen);
    /* a CPU runs a work-group as a loop: half conversions it vectorizes */
    snprintf(opts, olen, "-DLBP_OPENCL=1 %s%s%s %s", d->info.kind == LBP_KIND_CPU ? "-DLBP_HALF_BITS=1 " : "",
             o->nvidia ? "-cl-nv-verbose " : "", extra, options);
    err = clBuildProgram(prog, 1, &o->dev, opts, NULL, NULL);
    free(opts);
    char *log = build_log(prog, o->dev);
    if (err != CL_SUCCESS) {
        lbp_print_compile_log("opencl", entry, log, full);
        free(log);
        free(full);
        clReleaseProgram(prog);
        return NULL;
    }
    free(full);
    lbp_kernel *k = calloc(1, sizeof *k);
    k->program = prog;
    snprintf(k->entry, sizeof k->entry, "%s", entry);
    k->registers = o->nvidia ? registers_from_log(log, entry) : -1;
    free(log);
    k->kernel = clCreateKernel(prog, entry, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "lbmprobe: opencl: kernel '%s' not found in the compiled source (%s)\n", entry,
                cl_error_name(err));
        clReleaseProgram(prog);
        free(k);
        return NULL;
    }
    CL(clGetKernelInfo(k->kernel, CL_KERNEL_NUM_ARGS, sizeof k->num_args, &k->num_args, NULL));
    return k;
}

static void ocl_kernel_release(lbp_device *d, lbp_kernel *k)
{
    (void)d;
    if (!k) return;
    clReleaseKernel(k->kernel);
    clReleaseProgram(k->program);
    free(k);
}

static void ocl_kernel_info(lbp_device *d, lbp_kernel *k, lbp_kernel_info *out)
{
    ocl_impl *o = d->impl;
    size_t wg = 0;
    cl_ulong priv = 0, local = 0;
    clGetKernelWorkGroupInfo(k->kernel, o->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    const cl_int priv_err =
        clGetKernelWorkGroupInfo(k->kernel, o->dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL);
    clGetKernelWorkGroupInfo(k->kernel, o->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    out->registers = k->registers;
    out->max_block_size = (int)wg;
    /* NVIDIA answers the kernel's local memory (spills, private arrays), as
     * ptxas counted it; PoCL answers one figure whatever the kernel (a
     * trivial one and one with a 4 KB private array alike), which is no
     * kernel's: unknown there, as its registers are. */
    out->local_bytes = o->nvidia && priv_err == CL_SUCCESS ? (int64_t)priv : -1;
    out->static_shared_bytes = (int64_t)local;
}

/* NVIDIA: from the registers ptxas reported and the local memory, by the
 * compute capability's limits; elsewhere unknown. */
static int ocl_occupancy(lbp_device *d, lbp_kernel *k, int block_size, size_t shared_bytes)
{
    ocl_impl *o = d->impl;
    if (!o->nvidia || k->registers < 0) return -1;
    cl_ulong local = 0;
    if (clGetKernelWorkGroupInfo(k->kernel, o->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local, &local, NULL) !=
        CL_SUCCESS)
        return -1;
    return lbp_nv_blocks_per_sm(d->info.cc_major, d->info.cc_minor, k->registers, block_size,
                                (int64_t)local + (int64_t)shared_bytes);
}

static void ocl_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args)
{
    ocl_impl *o = d->impl;
    if ((cl_uint)nargs != k->num_args && (cl_uint)nargs + 1 != k->num_args)
        lbp_api_fail("opencl", "launch", __FILE__, __LINE__, "argument count does not match the kernel");
    for (int i = 0; i < nargs; i++) {
        const lbp_arg *a = &args[i];
        cl_int r;
        switch (a->type) {
        case LBP_ARG_BUF: r = clSetKernelArg(k->kernel, i, sizeof(cl_mem), &a->v.buf->mem); break;
        case LBP_ARG_I32: r = clSetKernelArg(k->kernel, i, sizeof(cl_int), &a->v.i32); break;
        case LBP_ARG_I64: r = clSetKernelArg(k->kernel, i, sizeof(cl_long), &a->v.i64); break;
        case LBP_ARG_F32: r = clSetKernelArg(k->kernel, i, sizeof(cl_float), &a->v.f32); break;
        default: r = clSetKernelArg(k->kernel, i, sizeof(cl_double), &a->v.f64); break;
        }
        cl_check(r, "clSetKernelArg", __FILE__, __LINE__);
    }
    /* DYN_SHARED_PARAM: the kernel's extra last parameter is local memory */
    if ((cl_uint)nargs + 1 == k->num_args)
        CL(clSetKernelArg(k->kernel, nargs, cfg->shared_bytes ? cfg->shared_bytes : 16, NULL));
    size_t global[3], local[3];
    for (int i = 0; i < 3; i++) {
        local[i] = cfg->block[i] ? cfg->block[i] : 1;
        global[i] = (size_t)(cfg->grid[i] ? cfg->grid[i] : 1) * local[i];
    }
    cl_event ev;
    cl_int r = clEnqueueNDRangeKernel(o->queue, k->kernel, 3, NULL, global, local, 0, NULL, timed_event(o, &ev));
    if (r != CL_SUCCESS) {
        char call[192];
        snprintf(call, sizeof call, "clEnqueueNDRangeKernel(%s, global %zux%zux%zu, local %zux%zux%zu)", k->entry,
                 global[0], global[1], global[2], local[0], local[1], local[2]);
        cl_check(r, call, __FILE__, __LINE__);
    }
    if (o->timing) keep_event(o, ev);
}

static void ocl_sync(lbp_device *d)
{
    ocl_impl *o = d->impl;
    CL(clFinish(o->queue));
}

static void ocl_timer_start(lbp_device *d)
{
    ocl_impl *o = d->impl;
    ocl_forget_events(o);
    o->timing = 1;
    o->timed_commands = 0;
}

/* From the start of the first timed command to the end of the last. */
static double ocl_timer_stop_ms(lbp_device *d)
{
    ocl_impl *o = d->impl;
    /* in order: the marker runs when every command before it has ended */
    if (o->first && o->timed_commands > 1) CL(clEnqueueMarkerWithWaitList(o->queue, 0, NULL, &o->last));
    CL(clFinish(o->queue));
    o->timing = 0;
    if (!o->first) return 0.0;
    cl_ulong start = 0, end = 0;
    CL(clGetEventProfilingInfo(o->first, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL(clGetEventProfilingInfo(o->last ? o->last : o->first, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    ocl_forget_events(o);
    if (end < start) lbp_api_fail("opencl", "clGetEventProfilingInfo", __FILE__, __LINE__,
                                  "the end marker's time precedes the first command's start");
    return (double)(end - start) * 1e-6;
}

static void ocl_select_queue(lbp_device *d, int queue)
{
    ocl_impl *o = d->impl;
    if (queue && !o->queues[1]) {
        cl_int err;
        o->queues[1] = CLE(clCreateCommandQueue(o->ctx, o->dev, CL_QUEUE_PROFILING_ENABLE, &err), err);
    }
    o->queue = o->queues[queue ? 1 : 0];
}

static void ocl_read_async(lbp_device *d, const lbp_buf *src, size_t off, void *host, size_t bytes)
{
    ocl_impl *o = d->impl;
    CL(clEnqueueReadBuffer(o->queue, src->mem, CL_FALSE, off, bytes, host, 0, NULL, NULL));
}

static void ocl_write_async(lbp_device *d, lbp_buf *dst, size_t off, const void *host, size_t bytes)
{
    ocl_impl *o = d->impl;
    CL(clEnqueueWriteBuffer(o->queue, dst->mem, CL_FALSE, off, bytes, host, 0, NULL, NULL));
}

static void ocl_copy_region(lbp_device *d, lbp_buf *dst, size_t dst_off, const lbp_buf *src, size_t src_off,
                            size_t bytes)
{
    ocl_impl *o = d->impl;
    CL(clEnqueueCopyBuffer(o->queue, src->mem, dst->mem, src_off, dst_off, bytes, 0, NULL, NULL));
}

const lbp_backend lbp_opencl_backend = {.name = "opencl", LBP_BACKEND_FUNCTIONS(ocl), .select_queue = ocl_select_queue,
                                        .read_async = ocl_read_async, .write_async = ocl_write_async,
                                        .copy_region = ocl_copy_region};

#else
static int noocl_count(char *why, size_t len)
{
    snprintf(why, len, "OpenCL backend not built (CL/cl.h was not found at build time)");
    return -1;
}
const lbp_backend lbp_opencl_backend = {.name = "opencl", .count = noocl_count};
#endif
