/* The device layer's backend-independent part: the registry of backends,
 * device selection, the kernel dialect's prelude, compile-log printing. */
#include "device.h"
#include "cli.h"
#include "embed.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

extern const lbp_backend lbp_cuda_backend;
extern const lbp_backend lbp_opencl_backend;
extern const lbp_backend lbp_openmp_backend;

/* In the order --backend auto prefers them: a GPU of CUDA, then of OpenCL;
 * without one the CPU as CPU codes run, compiled C with OpenMP, before PoCL. */
const lbp_backend *const lbp_backends[] = {&lbp_cuda_backend, &lbp_openmp_backend, &lbp_opencl_backend, NULL};

const lbp_backend *lbp_backend_by_name(const char *name)
{
    for (int i = 0; lbp_backends[i]; i++)
        if (strcmp(lbp_backends[i]->name, name) == 0) return lbp_backends[i];
    return NULL;
}

const char *lbp_backend_names(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; lbp_backends[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "", lbp_backends[i]->name);
    return buf;
}

const char *lbp_kind_name(lbp_device_kind kind)
{
    switch (kind) {
    case LBP_KIND_GPU: return "gpu";
    case LBP_KIND_CPU: return "cpu";
    default: return "other";
    }
}

lbp_device_kind lbp_kind_from_name(const char *word)
{
    for (lbp_device_kind k = LBP_KIND_OTHER; k <= LBP_KIND_CPU; k++)
        if (word && !strcmp(word, lbp_kind_name(k))) return k;
    return LBP_KIND_OTHER;
}

_Noreturn void lbp_api_fail(const char *backend, const char *call, const char *file, int line,
                            const char *msg)
{
    fprintf(stderr, "lbmprobe: %s: %s failed at %s:%d: %s\n", backend, call, file, line, msg);
    exit(LBP_EXIT_FAIL);
}

void lbp_list_devices(FILE *f)
{
    for (int b = 0; lbp_backends[b]; b++) {
        const lbp_backend *be = lbp_backends[b];
        char why[256] = "";
        int n = be->count(why, sizeof why);
        if (n < 0) {
            fprintf(f, "%s: %s\n", be->name, why);
            continue;
        }
        if (n == 0) fprintf(f, "%s: no devices%s%s\n", be->name, why[0] ? ": " : "", why);
        for (int i = 0; i < n; i++) {
            lbp_device d = {.be = be, .index = i};
            be->open(&d, i);
            fprintf(f, "%s device %d: %s [%s, %s] slug=%s, %d CUs, %.1f GiB%s\n", be->name, i,
                    d.info.name, d.info.platform, lbp_kind_name(d.info.kind), d.info.slug, d.info.compute_units,
                    d.info.global_mem_bytes / 1073741824.0, d.info.fp64 ? "" : ", no FP64");
            be->close(&d);
        }
    }
}

int lbp_first_gpu(const lbp_backend *be, int n)
{
    for (int i = 0; i < n; i++) {
        lbp_device t = {.be = be, .index = i};
        be->open(&t, i);
        int gpu = t.info.kind == LBP_KIND_GPU;
        be->close(&t);
        if (gpu) return i;
    }
    return 0;
}

/* Open into d the first GPU of be's n devices; 0 (nothing open) when none
 * is one. */
static int open_first_gpu(lbp_device *d, const lbp_backend *be, int n)
{
    for (int i = 0; i < n; i++) {
        *d = (lbp_device){.be = be, .index = i};
        be->open(d, i);
        if (d->info.kind == LBP_KIND_GPU) return 1;
        be->close(d);
    }
    *d = (lbp_device){0};
    return 0;
}

/* The best device: the first GPU of the first backend in the registry's
 * order that has one (a CUDA GPU, else an OpenCL GPU), else the first
 * device of the first backend with any (the CPU through OpenMP). */
static void open_auto(lbp_device *d)
{
    const lbp_backend *any = NULL;
    char why[256], reasons[1024] = "";
    for (int b = 0; lbp_backends[b]; b++) {
        const lbp_backend *be = lbp_backends[b];
        why[0] = 0;
        int n = be->count(why, sizeof why);
        if (n > 0 && open_first_gpu(d, be, n)) return;
        if (n > 0 && !any) any = be;
        if (n <= 0)
            snprintf(reasons + strlen(reasons), sizeof reasons - strlen(reasons), "%s%s: %s", reasons[0] ? "; " : "",
                     be->name, n < 0 ? why : "no devices");
    }
    if (!any) lbp_usage_error("no device found: %s", reasons);
    *d = (lbp_device){.be = any, .index = 0};
    any->open(d, 0);
}

void lbp_open(lbp_device *d, const char *backend, int index)
{
    memset(d, 0, sizeof *d);
    char names[128];
    if (!backend || strcmp(backend, "auto") == 0) {
        if (index >= 0)
            lbp_usage_error("--device needs --backend NAME (%s)", lbp_backend_names(names, sizeof names));
        open_auto(d);
        return;
    }
    const lbp_backend *be = lbp_backend_by_name(backend);
    if (!be)
        lbp_usage_error("--backend: unknown backend '%s' (%s, auto)", backend,
                        lbp_backend_names(names, sizeof names));
    char why[256] = "";
    int n = be->count(why, sizeof why);
    if (n < 0) {
        fprintf(stderr, "%s: %s: %s\n", lbp_prog, backend, why);
        exit(LBP_EXIT_USAGE);
    }
    if (n == 0) {
        fprintf(stderr, "%s: %s: no devices%s%s (see --list)\n", lbp_prog, backend, why[0] ? ": " : "", why);
        exit(LBP_EXIT_USAGE);
    }
    /* no --device: the backend's first GPU (an ICD lists PoCL's CPU
     * beside the GPUs, often first), else its first device */
    if (index < 0) index = lbp_first_gpu(be, n);
    if (index >= n) {
        fprintf(stderr, "%s: --device %d: %s has %d device%s (see --list)\n", lbp_prog, index,
                backend, n, n == 1 ? "" : "s");
        exit(LBP_EXIT_USAGE);
    }
    d->be = be;
    d->index = index;
    be->open(d, index);
}

void lbp_close(lbp_device *d)
{
    if (d->be) d->be->close(d);
    d->be = NULL;
}

void lbp_reopen(lbp_device *d)
{
    const lbp_backend *be = d->be;
    const int index = d->index;
    lbp_close(d);
    d->be = be;
    d->index = index;
    be->open(d, index);
}

static void describe(const lbp_device_info *i, int index)
{
    printf("backend,%s\nindex,%d\nname,%s\nslug,%s\nkind,%s\nvendor,%s\nplatform,%s\n"
           "driver,%s\nuuid,%s\ncompute_units,%d\nclock_mhz,%d\nmem_clock_mhz,%d\nbus_width_bits,%d\n"
           "theoretical_gbs,%.1f\nl2_bytes,%lld\nglobal_mem_bytes,%lld\nmax_alloc_bytes,%lld\n"
           "ecc,%d\nfp64,%d\nmax_block_size,%d\nwarp_size,%d\nmax_threads_per_cu,%d\n"
           "compute_capability,%d.%d\n",
           i->backend, index, i->name, i->slug, lbp_kind_name(i->kind), i->vendor, i->platform, i->driver,
           i->uuid[0] ? i->uuid : "unknown", i->compute_units, i->clock_mhz, i->mem_clock_mhz, i->bus_width_bits, i->theoretical_gbs,
           (long long)i->l2_bytes, (long long)i->global_mem_bytes, (long long)i->max_alloc_bytes,
           i->ecc, i->fp64, i->max_block_size, i->warp_size, i->max_threads_per_cu, i->cc_major,
           i->cc_minor);
}

void lbp_open_from_cli(lbp_device *d, const lbp_common *c)
{
    if (c->list) {
        lbp_list_devices(stdout);
        exit(0);
    }
    lbp_open(d, c->backend, c->device);
    if (c->describe) {
        describe(&d->info, d->index);
        lbp_close(d);
        exit(0);
    }
}

/* ---- wrappers ---------------------------------------------------------- */
lbp_buf *lbp_alloc(lbp_device *d, size_t bytes) { return d->be->alloc(d, bytes); }
void lbp_release(lbp_device *d, lbp_buf *b)
{
    if (!b) return;
    d->be->sync(d);
    d->be->release(d, b);
}
void lbp_write(lbp_device *d, lbp_buf *dst, const void *src, size_t bytes) { d->be->write(d, dst, 0, src, bytes); }
void lbp_read(lbp_device *d, const lbp_buf *src, void *dst, size_t bytes) { d->be->read(d, src, 0, dst, bytes); }
lbp_kernel *lbp_compile(lbp_device *d, const char *source, const char *entry, const char *options)
{
    return d->be->compile(d, source, entry, options ? options : "");
}
void lbp_prefetch(lbp_device *d, const char *source, const char *entry, const char *options)
{
    if (d->be->prefetch) d->be->prefetch(d, source, entry, options ? options : "");
}
void lbp_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args)
{
    d->be->launch(d, k, cfg, nargs, args);
}
void lbp_sync(lbp_device *d) { d->be->sync(d); }
void lbp_select_queue(lbp_device *d, int queue)
{
    if (d->info.caps.second_queue) d->be->select_queue(d, queue);
}
int64_t lbp_memory_budget(const lbp_device *d)
{
    int64_t mem = d->info.caps.usable_bytes > 0 ? d->info.caps.usable_bytes : d->info.global_mem_bytes;
    const int64_t least = (int64_t)256 << 20; /* 256 MiB */
    int64_t headroom = mem / 32 > least ? mem / 32 : least;
    return mem > headroom ? mem - headroom : 0;
}

lbp_launch_cfg lbp_cfg_1d(unsigned blocks, unsigned block_size)
{
    return (lbp_launch_cfg){.grid = {blocks, 1, 1}, .block = {block_size, 1, 1}, .shared_bytes = 0};
}

/* ---- NVIDIA occupancy ------------------------------------------------- */
static const struct nv_limits {
    int major, minor, threads, blocks, shared_kb, reserved_kb;
} nv_table[] = {
    {7, 0, 2048, 32, 96, 0},  {7, 2, 2048, 32, 96, 0},  {7, 5, 1024, 16, 64, 0},
    {8, 0, 2048, 32, 164, 1}, {8, 6, 1536, 16, 100, 1}, {8, 7, 2048, 16, 164, 1},
    {8, 9, 1536, 24, 100, 1}, {9, 0, 2048, 32, 228, 1}, {10, 0, 2048, 32, 228, 1},
};

static const struct nv_limits *nv_limits_of(int major, int minor)
{
    for (size_t i = 0; i < sizeof nv_table / sizeof *nv_table; i++)
        if (nv_table[i].major == major && nv_table[i].minor == minor) return &nv_table[i];
    return NULL;
}

int lbp_nv_max_threads_per_sm(int cc_major, int cc_minor)
{
    const struct nv_limits *l = nv_limits_of(cc_major, cc_minor);
    return l ? l->threads : -1;
}

int lbp_nv_blocks_per_sm(int cc_major, int cc_minor, int registers, int block_size, int64_t shared_bytes)
{
    const struct nv_limits *l = nv_limits_of(cc_major, cc_minor);
    if (!l || registers < 0 || registers > 255 || block_size < 1 || shared_bytes < 0) return -1;
    const int warps = (block_size + 31) / 32, max_warps = l->threads / 32;
    if (block_size > 1024 || warps > max_warps) return 0;
    int blocks = l->blocks;
    if (max_warps / warps < blocks) blocks = max_warps / warps;
    if (registers > 0) {
        const int per_warp = (registers * 32 + 255) / 256 * 256;
        const int by_regs = 4 * (16384 / per_warp) / warps;
        if (by_regs < blocks) blocks = by_regs;
    }
    const int64_t per_block = shared_bytes + (int64_t)l->reserved_kb * 1024;
    if (per_block > 0 && (int64_t)l->shared_kb * 1024 / per_block < blocks)
        blocks = (int)((int64_t)l->shared_kb * 1024 / per_block);
    return blocks;
}

/* ---- uuid, slug ------------------------------------------------------------ */
void lbp_format_uuid(char *out, size_t len, const unsigned char b[16])
{
    snprintf(out, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Lower-case [a-z0-9-] from a device name, dropping "(R)" and "(TM)". */
void lbp_make_slug(char *slug, size_t len, const char *name)
{
    size_t o = 0;
    int dash = 1;
    for (const char *p = name; *p && o + 1 < len; p++) {
        if (strncasecmp(p, "(r)", 3) == 0) { p += 2; continue; }
        if (strncasecmp(p, "(tm)", 4) == 0) { p += 3; continue; }
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch)) {
            slug[o++] = (char)tolower(ch);
            dash = 0;
        } else if (!dash) {
            slug[o++] = '-';
            dash = 1;
        }
    }
    while (o > 0 && slug[o - 1] == '-') o--;
    slug[o] = 0;
    if (o == 0) snprintf(slug, len, "device");
}

/* ---- the kernel dialect ------------------------------------------------ */
const char lbp_prelude[] =
    "/* lbmprobe kernel dialect prelude */\n"
    "#if defined(LBP_CUDA)\n"
    "#define KERNEL extern \"C\" __global__\n"
    "#define GLOBAL\n"
    "#define LOCAL __shared__\n"
    /* A table in constant memory is immutable, as OpenCL's __constant and
     * OpenMP's static const are: without const a __constant__ array may be
     * written by the host (cudaMemcpyToSymbol), so NVRTC reads every entry
     * at run time and cannot fold c_i into the index arithmetic; with it, a
     * loop over velocity tables compiles to the arithmetic OpenCL's
     * compiler makes of the same text (a quarter of the 64-bit modulos and
     * no constant loads in tests/validation's D3Q15 kernel). */
    "#define CONSTANT static __constant__ const\n"
    "#define RESTRICT __restrict__\n"
    "#define INLINE __device__ __forceinline__\n"
    "#define LOCAL_BARRIER __syncthreads()\n"
    "#define LBP_HAS_GROUP_BARRIER 1\n"
    "#define LBP_MAX_GROUP 1024\n"
    "#define DYN_SHARED_PARAM\n"
    "extern __shared__ unsigned char lbp_dyn_shared[];\n"
    "typedef int i32; typedef unsigned int u32;\n"
    "typedef long long i64; typedef unsigned long long u64;\n"
    "INLINE i64 global_id(int d) { return d == 0 ? (i64)blockIdx.x * blockDim.x + threadIdx.x\n"
    "  : d == 1 ? (i64)blockIdx.y * blockDim.y + threadIdx.y : (i64)blockIdx.z * blockDim.z + threadIdx.z; }\n"
    "INLINE i32 local_id(int d) { return d == 0 ? threadIdx.x : d == 1 ? threadIdx.y : threadIdx.z; }\n"
    "INLINE i32 group_id(int d) { return d == 0 ? blockIdx.x : d == 1 ? blockIdx.y : blockIdx.z; }\n"
    "INLINE i32 local_size(int d) { return d == 0 ? blockDim.x : d == 1 ? blockDim.y : blockDim.z; }\n"
    "INLINE i32 num_groups(int d) { return d == 0 ? gridDim.x : d == 1 ? gridDim.y : gridDim.z; }\n"
    "#define LBP_HAS_CLOCK 1\n"
    "INLINE u64 lbp_globaltimer(void) { u64 t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "INLINE u32 lbp_smid(void) { u32 r; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return r; }\n"
    "INLINE u32 lbp_lane(void) { u32 r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
    "#define lbp_as_f32(u) __uint_as_float(u)\n"
    "#define lbp_as_u32(f) __float_as_uint(f)\n"
    "#define lbp_as_f64(u) __longlong_as_double((long long)(u))\n"
    "#define lbp_as_u64(d) ((u64)__double_as_longlong(d))\n"
    /* Half precision in memory, FP32 in registers: a half is kept as its
     * 16 bits (u16) and converted by the PTX instructions themselves, so no
     * header is needed (NVRTC 13 has no built-in cuda_fp16.h and would need
     * the toolkit's include folder at run time).  cvt.rn.f16x2.f32 packs two
     * (sm_80 on; older GPUs pack two single conversions). */
    "typedef unsigned short u16;\n"
    "typedef u16 lbp_half;\n"
    "INLINE float lbp_half_to_float(u16 h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
    "INLINE u16 lbp_float_to_half(float f) { u16 h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
    "INLINE u32 lbp_float2_to_half2(float lo, float hi) {\n"
    "#if __CUDA_ARCH__ >= 800\n"
    "  u32 w; asm(\"cvt.rn.f16x2.f32 %0, %1, %2;\" : \"=r\"(w) : \"f\"(hi), \"f\"(lo)); return w;\n"
    "#else\n"
    "  return (u32)lbp_float_to_half(lo) | (u32)lbp_float_to_half(hi) << 16;\n"
    "#endif\n"
    "}\n"
    "INLINE float2 lbp_half2_to_float2(u32 w) { float2 v; v.x = lbp_half_to_float((u16)w); v.y = lbp_half_to_float((u16)(w >> 16)); return v; }\n"
    "INLINE float lbp_load_half(const lbp_half *p, i64 i) { return lbp_half_to_float(p[i]); }\n"
    "INLINE void lbp_store_half(lbp_half *p, i64 i, float v) { p[i] = lbp_float_to_half(v); }\n"
    "INLINE float2 lbp_load_half2(const lbp_half *p, i64 i) { return lbp_half2_to_float2(*(const u32 *)(p + i)); }\n"
    "INLINE void lbp_store_half2(lbp_half *p, i64 i, float2 v) { *(u32 *)(p + i) = lbp_float2_to_half2(v.x, v.y); }\n"
    "INLINE float4 lbp_load_half4(const lbp_half *p, i64 i) {\n"
    "  const uint2 w = *(const uint2 *)(p + i);\n"
    "  const float2 a = lbp_half2_to_float2(w.x), b = lbp_half2_to_float2(w.y);\n"
    "  float4 v; v.x = a.x; v.y = a.y; v.z = b.x; v.w = b.y; return v; }\n"
    "INLINE void lbp_store_half4(lbp_half *p, i64 i, float4 v) {\n"
    "  uint2 w; w.x = lbp_float2_to_half2(v.x, v.y); w.y = lbp_float2_to_half2(v.z, v.w);\n"
    "  *(uint2 *)(p + i) = w; }\n"
    "#elif defined(LBP_OPENCL)\n"
    "#if defined(LBP_FP64) && defined(cl_khr_fp64)\n"
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#endif\n"
    "#define KERNEL __kernel\n"
    "#define GLOBAL __global\n"
    "#define LOCAL __local\n"
    "#define CONSTANT __constant\n"
    "#define RESTRICT restrict\n"
    "#define INLINE inline\n"
    "#define LOCAL_BARRIER barrier(CLK_LOCAL_MEM_FENCE)\n"
    "#define LBP_HAS_GROUP_BARRIER 1\n"
    "#define DYN_SHARED_PARAM , __local unsigned char *lbp_dyn_shared\n"
    "typedef int i32; typedef uint u32; typedef long i64; typedef ulong u64;\n"
    "#define global_id(d) ((i64)get_global_id(d))\n"
    "#define local_id(d) ((i32)get_local_id(d))\n"
    "#define group_id(d) ((i32)get_group_id(d))\n"
    "#define local_size(d) ((i32)get_local_size(d))\n"
    "#define num_groups(d) ((i32)get_num_groups(d))\n"
    "#define LBP_HAS_CLOCK 0\n"
    "#define lbp_globaltimer() ((u64)0)\n"
    "#define lbp_smid() ((u32)0)\n"
    "#define lbp_lane() ((u32)0)\n"
    "#define lbp_as_f32(u) as_float(u)\n"
    "#define lbp_as_u32(f) as_uint(f)\n"
    "#define lbp_as_f64(u) as_double(u)\n"
    "#define lbp_as_u64(d) as_ulong(d)\n"
    /* Half precision in memory: core OpenCL's vload_half / vstore_half
     * (no cl_khr_fp16 needed: half is only a storage type).  The 2- and
     * 4-wide forms move one 4- or 8-byte word and convert it in registers
     * (vload_half2 of the private word), as the CUDA prelude does: with
     * vloada_half2/4 from global memory NVIDIA's OpenCL ran the kernels of
     * 2 and 4 cells a thread 7-17 % under CUDA's on an H200
     * (doc/findings/fp16.md).  On a CPU device (LBP_HALF_BITS, set by the
     * backend) core/half_bits.h instead, after this prelude: PoCL leaves a
     * loop of vload_half scalar. */
    "typedef ushort u16;\n"
    "typedef half lbp_half;\n"
    "#if !defined(LBP_HALF_BITS)\n"
    "INLINE float lbp_half_to_float(u16 h) { return vload_half(0, (const half *)&h); }\n"
    "INLINE u16 lbp_float_to_half(float f) { u16 h; vstore_half_rte(f, 0, (half *)&h); return h; }\n"
    "INLINE float2 lbp_half2_of(u32 w) { return vload_half2(0, (const half *)&w); }\n"
    "INLINE u32 lbp_half2_from(float2 v) { u32 w; vstore_half2_rte(v, 0, (half *)&w); return w; }\n"
    "INLINE float4 lbp_half4_of(uint2 w) { return vload_half4(0, (const half *)&w); }\n"
    "INLINE uint2 lbp_half4_from(float4 v) { uint2 w; vstore_half4_rte(v, 0, (half *)&w); return w; }\n"
    "#define lbp_load_half(p, i) vload_half((i), (p))\n"
    "#define lbp_store_half(p, i, v) vstore_half_rte((v), (i), (p))\n"
    "#define lbp_load_half2(p, i) lbp_half2_of(*(const __global u32 *)((p) + (i)))\n"
    "#define lbp_store_half2(p, i, v) (*(__global u32 *)((p) + (i)) = lbp_half2_from(v))\n"
    "#define lbp_load_half4(p, i) lbp_half4_of(*(const __global uint2 *)((p) + (i)))\n"
    "#define lbp_store_half4(p, i, v) (*(__global uint2 *)((p) + (i)) = lbp_half4_from(v))\n"
    "#endif\n"
    "#else\n"
    "#error \"compile with -DLBP_CUDA=1 or -DLBP_OPENCL=1\"\n"
    "#endif\n";

LBP_EMBED_TEXT(lbp_half_bits, "core/half_bits.h");

char *lbp_join_texts(const char *const *parts)
{
    size_t n = 1;
    for (int i = 0; parts[i]; i++) n += strlen(parts[i]);
    char *s = malloc(n), *e = s;
    if (!s) lbp_api_fail("host", "malloc", __FILE__, __LINE__, "out of memory");
    for (int i = 0; parts[i]; i++) {
        const size_t k = strlen(parts[i]);
        memcpy(e, parts[i], k);
        e += k;
    }
    *e = 0;
    return s;
}

char *lbp_full_source(const char *source)
{
    const char *const parts[] = {lbp_prelude, "#if defined(LBP_OPENCL) && defined(LBP_HALF_BITS)\n", lbp_half_bits,
                                 "#endif\n#line 1\n", source, NULL};
    return lbp_join_texts(parts);
}

/* The compiler names lines of the kernel source (after "#line 1"); show
 * each such line once after the log. */
void lbp_print_compile_log(const char *backend, const char *entry, const char *log,
                           const char *full_source)
{
    fprintf(stderr, "lbmprobe: %s: compiling kernel '%s' failed:\n%s\n", backend, entry,
            log && *log ? log : "(empty log)");
    const char *src = strstr(full_source, "#line 1\n");
    src = src ? src + 8 : full_source;
    int shown[8], nshown = 0;
    for (const char *p = log; p && *p && nshown < 8; p++) {
        /* NVRTC: "kernel.cu(12): error", clang/PoCL: "<source>:12:5: error" */
        long line = 0;
        if (*p == '(' && isdigit((unsigned char)p[1])) line = strtol(p + 1, NULL, 10);
        else if (*p == ':' && isdigit((unsigned char)p[1]) && p > log && p[-1] != ' ')
            line = strtol(p + 1, NULL, 10);
        if (line <= 0) continue;
        int seen = 0;
        for (int i = 0; i < nshown; i++) seen |= shown[i] == line;
        if (seen) continue;
        const char *l = src;
        for (long n = 1; n < line && l; n++) {
            l = strchr(l, '\n');
            if (l) l++;
        }
        if (!l || !*l) continue;
        const char *e = strchr(l, '\n');
        fprintf(stderr, "  source line %ld: %.*s\n", line, (int)(e ? e - l : (long)strlen(l)), l);
        shown[nshown++] = (int)line;
    }
}
