/* lbmprobe device layer: one interface, several backends (CUDA driver API +
 * NVRTC, OpenCL through the ICD loader), chosen at run time.
 *
 * Error policy: a failing API call is a broken measurement, so it prints
 * "lbmprobe: <backend>: <call> failed at <file>:<line>: <api error string>"
 * and exits 1.  The exceptions return a value the caller can act on:
 * lbp_alloc returns NULL when the device has no room, lbp_compile returns NULL
 * (after printing the compiler log and the offending source lines). */
#ifndef LBP_DEVICE_H
#define LBP_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct lbp_buf lbp_buf;       /* device buffer, opaque */
typedef struct lbp_kernel lbp_kernel; /* compiled kernel, opaque */

/* What kind of device: a tool shapes its defaults by it (lbp_is_cpu). */
typedef enum { LBP_KIND_OTHER, LBP_KIND_GPU, LBP_KIND_CPU } lbp_device_kind;
/* "other", "gpu", "cpu": the word in --list, --describe and <tool>-meta.csv. */
const char *lbp_kind_name(lbp_device_kind kind);
/* The kind a word names (NULL or unknown: other). */
lbp_device_kind lbp_kind_from_name(const char *word);

/* What a backend can do on a device, set by its open(): tools test these,
 * never a backend's name. */
typedef struct {
    int carveout;           /* set_carveout() splits shared memory and L1 */
    int force_blocks_per_cu;/* dynamic shared memory under a carveout it sets
                               makes exactly k blocks resident, and
                               occupancy() counts them */
    int warp_clock;         /* kernels read a per-warp clock and SM id: the
                               prelude's LBP_HAS_CLOCK is 1 */
    int graph_replay;       /* graph_replay_ms() replays captured launches */
    int fresh_context_per_group; /* buffers freed within a context may not be
                               handed back to it: a tool opens the device
                               afresh (lbp_reopen) between groups of large
                               allocations */
    int64_t usable_bytes;   /* device memory a run may count on in all;
                               0: global_mem_bytes */
    int64_t reliable_alloc_bytes; /* the largest buffer it fills reliably once
                               others were freed, for default sweeps; 0: any
                               up to max_alloc_bytes */
    int second_queue;       /* select_queue() gives a second queue, and
                               read_async(), write_async(), copy_region()
                               enqueue without waiting: transfers beside
                               kernels (the halo exchange's overlap) */
    int ipc;                /* ipc_export(), ipc_import(), ipc_close(): other
                               processes of the node open its buffers (CUDA
                               IPC: --exchange peer) */
    int device_pointers;    /* device_pointer() gives buffers' device
                               addresses (for a CUDA-aware MPI) */
    int host_pointers;      /* ... and they are host addresses (a device
                               whose memory is the host's): any MPI library
                               moves them (--exchange mpi without CUDA) */
    int nontemporal_stores; /* the prelude stores without a write-allocate
                               (lbp_stream_f32/f64, LBP_HAS_NT_STORE 1) */
} lbp_caps;

typedef struct {
    char backend[16];        /* the backend's name: "cuda", "opencl", ... */
    char name[128];          /* as the driver names it */
    char slug[96];           /* [a-z0-9-], e.g. "nvidia-h100-80gb-hbm3" */
    char vendor[64];
    char platform[96];       /* OpenCL platform name, or "CUDA" */
    char driver[64];         /* driver version */
    char uuid[40];           /* the board's UUID (8-4-4-4-12 hex), "" unknown:
                                tells two runs on one board from runs on two */
    lbp_device_kind kind;
    int compute_units;       /* SMs, or CPU cores */
    int clock_mhz;           /* max core clock */
    int mem_clock_mhz;       /* memory clock, -1 when the API does not say */
    int bus_width_bits;      /* memory bus width, -1 when unknown */
    double theoretical_gbs;  /* 2 * mem_clock * bus_width / 8 (DDR), 0 unknown */
    int64_t l2_bytes;        /* last-level cache the device reports */
    int64_t global_mem_bytes;
    int64_t max_alloc_bytes; /* largest single buffer */
    int ecc;                 /* 1 on, 0 off, -1 unknown */
    int fp64;                /* double precision supported */
    int max_block_size;      /* threads per block (work-group) */
    int warp_size;           /* 32 on NVIDIA, 1 where unknown */
    int max_threads_per_cu;  /* resident threads per SM, 0 unknown */
    int max_blocks_per_cu;   /* resident blocks per SM, 0 unknown */
    int64_t shared_per_cu;   /* shared (local) memory per SM, bytes */
    int64_t shared_per_block;/* shared (local) memory one block may take */
    int cc_major, cc_minor;  /* CUDA compute capability; 0 on OpenCL */
    double timer_resolution_ns; /* device event timer resolution */
    lbp_caps caps;
} lbp_device_info;

/* A CPU gets a CPU's defaults (a thread per row, caches of hundreds of MB);
 * every other kind a GPU's. */
static inline int lbp_is_cpu(const lbp_device_info *i) { return i->kind == LBP_KIND_CPU; }

typedef struct {
    int registers;           /* per thread, -1 unknown (OpenCL) */
    int max_block_size;      /* largest block this kernel can launch with */
    int64_t local_bytes;     /* private memory per thread beyond the registers
                                (spills, stack, dynamically indexed arrays),
                                bytes; -1 unknown (OpenMP; OpenCL off NVIDIA) */
    int64_t static_shared_bytes;
} lbp_kernel_info;

typedef struct {
    unsigned grid[3];        /* blocks (work-groups) per dimension; 0 means 1 */
    unsigned block[3];       /* threads per block per dimension; 0 means 1 */
    size_t shared_bytes;     /* dynamic shared memory per block: only for
                                kernels that declare DYN_SHARED_PARAM */
} lbp_launch_cfg;

typedef enum { LBP_ARG_BUF, LBP_ARG_I32, LBP_ARG_I64, LBP_ARG_F32, LBP_ARG_F64 } lbp_arg_type;
typedef struct {
    lbp_arg_type type;
    union { lbp_buf *buf; int32_t i32; int64_t i64; float f32; double f64; } v;
} lbp_arg;
#define LBP_BUF(b) ((lbp_arg){.type = LBP_ARG_BUF, .v.buf = (b)})
#define LBP_I32(x) ((lbp_arg){.type = LBP_ARG_I32, .v.i32 = (x)})
#define LBP_I64(x) ((lbp_arg){.type = LBP_ARG_I64, .v.i64 = (x)})
#define LBP_F32(x) ((lbp_arg){.type = LBP_ARG_F32, .v.f32 = (x)})
#define LBP_F64(x) ((lbp_arg){.type = LBP_ARG_F64, .v.f64 = (x)})

typedef struct lbp_device lbp_device;

#define LBP_IPC_HANDLE_BYTES 64 /* CU_IPC_HANDLE_SIZE */

/* A backend: the only thing a tool sees of CUDA or OpenCL. */
typedef struct lbp_backend {
    const char *name; /* "cuda", "opencl" */
    /* Number of devices; -1 when the runtime is missing, with the reason
     * ("no CUDA driver (libcuda.so.1 not found)") written to why. */
    int (*count)(char *why, size_t why_len);
    void (*open)(lbp_device *d, int index); /* fills d->info */
    void (*close)(lbp_device *d);
    lbp_buf *(*alloc)(lbp_device *d, size_t bytes); /* NULL: no room */
    /* Frees b; the layer (lbp_release) first waits for what uses it. */
    void (*release)(lbp_device *d, lbp_buf *b);
    void (*write)(lbp_device *d, lbp_buf *dst, size_t offset, const void *src, size_t bytes);
    void (*read)(lbp_device *d, const lbp_buf *src, size_t offset, void *dst, size_t bytes);
    /* Device-to-device copy by the driver itself (cuMemcpyDtoD,
     * clEnqueueCopyBuffer): the reference a generated copy must reach. */
    void (*copy)(lbp_device *d, lbp_buf *dst, const lbp_buf *src, size_t bytes);
    /* Host memory for transfers: pinned (page-locked) or pageable (malloc). */
    void *(*host_alloc)(lbp_device *d, size_t bytes, int pinned);
    void (*host_free)(lbp_device *d, void *p, int pinned);
    /* Compile kernel text (the dialect prelude is prepended by the layer).
     * options: space-separated -DNAME or -DNAME=VALUE. */
    lbp_kernel *(*compile)(lbp_device *d, const char *source, const char *entry, const char *options);
    void (*kernel_release)(lbp_device *d, lbp_kernel *k);
    void (*kernel_info)(lbp_device *d, lbp_kernel *k, lbp_kernel_info *out);
    /* Resident blocks per compute unit for this block size and dynamic
     * shared memory; -1 when the API cannot tell (OpenCL). */
    int (*occupancy)(lbp_device *d, lbp_kernel *k, int block_size, size_t shared_bytes);
    /* Where caps.carveout (else NULL): the kernel's
     * preferred shared-memory share of the memory it splits with the L1, in
     * percent, -1 for no preference.  occupancy() then counts with it. */
    void (*set_carveout)(lbp_device *d, lbp_kernel *k, int percent);
    void (*launch)(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args);
    void (*sync)(lbp_device *d);
    /* Device-event timing of everything enqueued between start and stop. */
    void (*timer_start)(lbp_device *d);
    double (*timer_stop_ms)(lbp_device *d);
    /* Where caps.graph_replay (else NULL): capture `launches` launches of k
     * into a graph, replay it once untimed, then time `replays` replays with
     * the host clock around launch+sync; returns ms per replay (median). */
    double (*graph_replay_ms)(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg,
                              int nargs, const lbp_arg *args, int launches, int replays);

    /* ---- for transfers beside kernels (halo exchanges) ---- */
    /* Where caps.second_queue (else NULL): a second queue (CUDA stream, OpenCL command queue) of higher
     * priority where the device has priorities: after select_queue(d, 1)
     * launches, reads, writes, copies, sync and the timer go to it, after
     * select_queue(d, 0) to the first again.  Work on one queue may run
     * while the other's does. */
    void (*select_queue)(lbp_device *d, int queue);
    /* Enqueue a transfer on the current queue and return; it is done at the
     * next sync.  host stays valid until then (pinned memory from
     * host_alloc, so that the copy is a DMA the kernels run beside). */
    void (*read_async)(lbp_device *d, const lbp_buf *src, size_t offset, void *host, size_t bytes);
    void (*write_async)(lbp_device *d, lbp_buf *dst, size_t offset, const void *host, size_t bytes);
    /* Copy between parts of two buffers on the current queue, not waited
     * for; src may be another process's buffer opened by ipc_import. */
    void (*copy_region)(lbp_device *d, lbp_buf *dst, size_t dst_offset, const lbp_buf *src, size_t src_offset,
                        size_t bytes);
    /* Where caps.ipc (else NULL): a handle another process of the node passes to
     * ipc_import to reach buffer b (on this device or another one);
     * ipc_close ends that view (not the exporter's buffer). */
    void (*ipc_export)(lbp_device *d, lbp_buf *b, unsigned char handle[LBP_IPC_HANDLE_BYTES]);
    lbp_buf *(*ipc_import)(lbp_device *d, const unsigned char handle[LBP_IPC_HANDLE_BYTES]);
    void (*ipc_close)(lbp_device *d, lbp_buf *b);
    /* Where caps.device_pointers (else NULL): the buffer's address in the
     * device's address space, for libraries that take device pointers
     * (CUDA-aware MPI). */
    void *(*device_pointer)(lbp_device *d, lbp_buf *b);
    /* Optional (else NULL): start compiling what compile() will soon be
     * asked for with the same arguments, beside other such compiles (the
     * OpenMP backend runs a C compiler per kernel, several at once); a
     * failure shows at that compile().  Call lbp_prefetch. */
    void (*prefetch)(lbp_device *d, const char *source, const char *entry, const char *options);
} lbp_backend;

/* The functions every backend has, named <prefix>_count, <prefix>_open,
 * ...: a backend's table is {.name = "x", LBP_BACKEND_FUNCTIONS(x), and
 * the optional ones it has}, so none is left out unnoticed. */
#define LBP_BACKEND_FUNCTIONS(prefix)                                                                          \
    .count = prefix##_count, .open = prefix##_open, .close = prefix##_close, .alloc = prefix##_alloc,         \
    .release = prefix##_release, .write = prefix##_write, .read = prefix##_read, .copy = prefix##_copy,       \
    .host_alloc = prefix##_host_alloc, .host_free = prefix##_host_free, .compile = prefix##_compile,         \
    .kernel_release = prefix##_kernel_release, .kernel_info = prefix##_kernel_info,                          \
    .occupancy = prefix##_occupancy, .launch = prefix##_launch, .sync = prefix##_sync,                       \
    .timer_start = prefix##_timer_start, .timer_stop_ms = prefix##_timer_stop_ms

struct lbp_device {
    const lbp_backend *be;
    lbp_device_info info;
    int index;
    void *impl;
};

/* ---- selecting a device ------------------------------------------------ */
const lbp_backend *lbp_backend_by_name(const char *name); /* NULL unknown */
extern const lbp_backend *const lbp_backends[]; /* NULL-terminated */

/* Print every backend's devices (and why a backend has none) to f. */
void lbp_list_devices(FILE *f);

/* Open a device.  backend NULL or "auto": the best one found, the first GPU
 * of the first backend in lbp_backends[] that has one (a CUDA GPU, else an
 * OpenCL GPU), else the first device of the first backend with any (an
 * OpenCL CPU).  index < 0: the backend's first
 * GPU, else its first device (for auto: the chosen one).  On a missing
 * backend or device prints a one-line error and exits 2. */
void lbp_open(lbp_device *d, const char *backend, int index);
/* The index of the first of backend be's n devices of kind GPU, 0 when none
 * is. */
int lbp_first_gpu(const lbp_backend *be, int n);
void lbp_close(lbp_device *d);
/* Close and open the same device again: a fresh context (caps.
 * fresh_context_per_group). */
void lbp_reopen(lbp_device *d);
/* The registered backends' names, "cuda, opencl", for messages. */
const char *lbp_backend_names(char *buf, size_t len);

/* ---- thin wrappers (so tools read d->be->x less) ------------------------ */
lbp_buf *lbp_alloc(lbp_device *d, size_t bytes);
void lbp_release(lbp_device *d, lbp_buf *b);
void lbp_write(lbp_device *d, lbp_buf *dst, const void *src, size_t bytes);
void lbp_read(lbp_device *d, const lbp_buf *src, void *dst, size_t bytes);
lbp_kernel *lbp_compile(lbp_device *d, const char *source, const char *entry, const char *options);
/* A hint that lbp_compile(d, source, entry, options) follows: where the
 * backend can, its compile starts now beside others (nothing elsewhere).
 * Give every kernel of a run before its first lbp_compile; no compile runs
 * once that lbp_compile returns, so none disturbs a measurement. */
void lbp_prefetch(lbp_device *d, const char *source, const char *entry, const char *options);
void lbp_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, int nargs, const lbp_arg *args);
void lbp_sync(lbp_device *d);
/* Work from now on to the device's second queue (1) or its first (0); a
 * no-op where it has one queue (caps.second_queue 0). */
void lbp_select_queue(lbp_device *d, int queue);
/* A 1-D launch configuration: blocks x block_size. */
lbp_launch_cfg lbp_cfg_1d(unsigned blocks, unsigned block_size);
/* Device memory a run may use in all: what the backend lets it count on
 * (caps.usable_bytes), less some headroom. */
int64_t lbp_memory_budget(const lbp_device *d);

/* ---- the portable kernel dialect ---------------------------------------
 * Every kernel text is compiled with this prelude in front, and with
 * -DLBP_CUDA=1 or -DLBP_OPENCL=1.  It offers:
 *   KERNEL, GLOBAL, LOCAL, CONSTANT, RESTRICT, INLINE, LOCAL_BARRIER
 *   LBP_HAS_GROUP_BARRIER: 1 where LOCAL_BARRIER holds a whole work-group
 *   of any size (0: the openmp backend, groups of one only)
 *   LBP_MAX_GROUP: the most threads a group can have, where the dialect
 *   knows it when compiling (CUDA: 1024); undefined elsewhere
 *   DYN_SHARED_PARAM (last parameter; dynamic shared memory, see cfg)
 *   i32 u32 i64 u64 types; global_id(d) local_id(d) group_id(d)
 *   local_size(d) num_groups(d) (d = 0, 1, 2; 64-bit for global_id)
 *   LBP_HAS_CLOCK, lbp_globaltimer() (ns), lbp_smid(), lbp_lane()
 *   lbp_as_f32/lbp_as_u32, lbp_as_f64/lbp_as_u64: the bits of a word as
 *   a float or double and back (no conversion)
 *   Half precision as a storage type (IEEE binary16 in memory, float in
 *   registers, round to nearest even on the way in): u16; lbp_half, the
 *   type of a half in memory; lbp_load_half(p, i) / lbp_store_half(p, i, v)
 *   (one float); lbp_load_half2 / lbp_store_half2 (float2, p + i 4-byte
 *   aligned: one 4-byte access) and lbp_load_half4 / lbp_store_half4
 *   (float4, 8-byte aligned); lbp_half_to_float(u16) / lbp_float_to_half
 *   on the bits.  CUDA: PTX cvt; OpenCL: vload_half and its kin, on a CPU
 *   device (LBP_HALF_BITS) and in C: core/half_bits.h.
 *   LBP_FP64 enables double precision (cl_khr_fp64) on OpenCL when defined. */
extern const char lbp_prelude[];
/* core/half_bits.h: half conversions in arithmetic a CPU vectorizes */
extern const char lbp_half_bits[];

/* The full text a backend compiles: prelude (and, on OpenCL with
 * LBP_HALF_BITS, lbp_half_bits) + source.  Caller frees. */
char *lbp_full_source(const char *source);
/* The texts of parts (NULL-terminated) one after the other, in a string
 * the caller frees. */
char *lbp_join_texts(const char *const *parts);

/* Compile-check with NVRTC only, no GPU or driver needed (tests).  arch e.g.
 * "sm_90".  Returns 0 on success; on failure prints the log and returns 1;
 * returns -1 (with why) when libnvrtc cannot be loaded. */
int lbp_nvrtc_check(const char *source, const char *options, const char *arch,
                    char *why, size_t why_len);
/* The PTX NVRTC makes of the source for arch ("compute_90"), caller frees;
 * NULL with why when NVRTC cannot be loaded or the compile fails. */
char *lbp_nvrtc_ptx(const char *source, const char *options, const char *arch, char *why, size_t why_len);

/* Print a compiler log and, for each "line N" it names, that source line. */
void lbp_print_compile_log(const char *backend, const char *entry, const char *log,
                           const char *full_source);

/* NVIDIA GPUs: resident blocks per SM of a kernel from its registers per
 * thread and shared memory per block, by the per-compute-capability limits
 * of the CUDA programming guide (threads, warps and blocks per SM, shared
 * memory per SM and the 1 KB each block reserves from 8.0 on); registers
 * go to warps in units of 256, within each of the SM's four partitions of
 * 16384, the rule cuOccupancyMaxActiveBlocksPerMultiprocessor follows
 * (tests/test_core.c holds it to that call's answers).  For NVIDIA's
 * OpenCL, which does not say.  -1 for a compute capability not in the
 * table or an unknown register count. */
int lbp_nv_blocks_per_sm(int cc_major, int cc_minor, int registers, int block_size, int64_t shared_bytes);
/* Threads per SM of a compute capability, -1 when not in the table. */
int lbp_nv_max_threads_per_sm(int cc_major, int cc_minor);

/* 16 bytes -> "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (out: 37 bytes at least). */
void lbp_format_uuid(char *out, size_t len, const unsigned char bytes[16]);

/* "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3" (drops (R), (TM)). */
void lbp_make_slug(char *slug, size_t len, const char *name);

/* Fatal error helpers used by the backends. */
_Noreturn void lbp_api_fail(const char *backend, const char *call, const char *file,
                            int line, const char *msg);

#endif
