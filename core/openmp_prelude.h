/* lbmprobe kernel dialect prelude, C with OpenMP (core/openmp.c compiles
 * every kernel text with this in front and -DLBP_OPENMP=1).
 *
 * A kernel is a static inline C function that the backend's generated
 * wrapper calls once per work-item, in a loop over the work-items of each
 * work-group, in an OpenMP loop over the work-groups.  The work-item's ids
 * reach it as a hidden first parameter, lbp_wi, that the backend inserts
 * into the entry's parameter list; inside INLINE helpers (and kernels other
 * than the entry) the ids are read from a thread-local copy, which the
 * wrapper keeps up to date only where such a use exists, so that the loop
 * over the work-items stays free of stores the compiler cannot see through.
 *
 * What differs from a GPU: a work-group's items run one after another on
 * one thread, so LOCAL_BARRIER cannot be honoured between them: a kernel
 * whose body uses it runs only with one work-item per group (kernel_info
 * says max_block_size 1, and a larger launch is refused).  LOCAL memory is one
 * copy per OpenMP thread, which runs whole groups one at a time.  There is
 * no device clock (LBP_HAS_CLOCK 0). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL static inline __attribute__((always_inline))
#define GLOBAL
#define LOCAL static _Thread_local
#define CONSTANT static const
#define RESTRICT restrict
#define INLINE __attribute__((always_inline)) inline
#define LOCAL_BARRIER lbp_barrier_mark_(lbp_wi)
/* a kernel may ask for a barrier only where this is 1 (here: groups of one) */
#define LBP_HAS_GROUP_BARRIER 0
#define DYN_SHARED_PARAM , unsigned char *restrict lbp_dyn_shared

typedef int32_t i32;
typedef uint32_t u32;
typedef int64_t i64;
typedef uint64_t u64;

/* The ids of one work-item (OpenCL's get_global_id and friends). */
typedef struct {
    i64 gid[3];
    i32 lid[3], grp[3], lsz[3], ngr[3];
} lbp_workitem;
static _Thread_local lbp_workitem lbp_wi;
#define global_id(d) (lbp_wi.gid[(d)])
#define local_id(d) (lbp_wi.lid[(d)])
#define group_id(d) (lbp_wi.grp[(d)])
#define local_size(d) (lbp_wi.lsz[(d)])
#define num_groups(d) (lbp_wi.ngr[(d)])

/* The backend finds this call in the entry's body in the preprocessed text
 * (see above); one in a helper it cannot see stops the program when the
 * group has more than one item. */
static inline void lbp_barrier_mark_(lbp_workitem w)
{
    if (w.lsz[0] * w.lsz[1] * w.lsz[2] > 1) {
        fprintf(stderr, "lbmprobe: openmp: LOCAL_BARRIER in a group of %d work-items: this backend runs a "
                        "group's items one after another and honours barriers only in groups of one\n",
                w.lsz[0] * w.lsz[1] * w.lsz[2]);
        exit(1);
    }
}

#define LBP_HAS_CLOCK 0
#define lbp_globaltimer() ((u64)0)
#define lbp_smid() ((u32)0)
#define lbp_lane() ((u32)0)

static inline float lbp_as_f32(u32 u) { float f; memcpy(&f, &u, sizeof f); return f; }
static inline u32 lbp_as_u32(float f) { u32 u; memcpy(&u, &f, sizeof u); return u; }
static inline double lbp_as_f64(u64 u) { double f; memcpy(&f, &u, sizeof f); return f; }
static inline u64 lbp_as_u64(double f) { u64 u; memcpy(&u, &f, sizeof u); return u; }

/* OpenCL's vector types the kernels use, aligned to their size as there. */
typedef struct __attribute__((aligned(8))) { u32 x, y; } uint2;
typedef struct __attribute__((aligned(16))) { u32 x, y, z, w; } uint4;
typedef struct __attribute__((aligned(8))) { float x, y; } float2;
typedef struct __attribute__((aligned(16))) { float x, y, z, w; } float4;
typedef struct __attribute__((aligned(16))) { double x, y; } double2;

/* OpenCL's atomics on 32-bit words: they return the old value. */
#define atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define lbp_atomic_keep_(p, v, better)                                                        \
    __extension__({                                                                           \
        __typeof__(*(p)) *p_ = (p), v_ = (v), o_ = __atomic_load_n(p_, __ATOMIC_RELAXED);     \
        while (better(v_, o_) &&                                                              \
               !__atomic_compare_exchange_n(p_, &o_, v_, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) \
            ;                                                                                 \
        o_;                                                                                   \
    })
#define lbp_less_(a, b) ((a) < (b))
#define lbp_more_(a, b) ((a) > (b))
#define atomic_min(p, v) lbp_atomic_keep_(p, v, lbp_less_)
#define atomic_max(p, v) lbp_atomic_keep_(p, v, lbp_more_)

/* Non-temporal stores: n words from s (in cache) to d with stores that
 * write whole cache lines without reading them first (no write-allocate),
 * from d's first 64-byte line boundary on; the words before it and after
 * the last whole vector are stored as usual.  lbp_stream_fence orders them
 * before what the thread stores next (x86: they are weakly ordered). */
#if defined(__x86_64__) && defined(__SSE2__)
#include <immintrin.h>
#define LBP_HAS_NT_STORE 1
#if defined(__AVX512F__)
#define LBP_STREAM_PS(d, s) _mm512_stream_ps((d), _mm512_loadu_ps(s))
#define LBP_STREAM_PD(d, s) _mm512_stream_pd((d), _mm512_loadu_pd(s))
#define LBP_STREAM_BYTES 64
#elif defined(__AVX__)
#define LBP_STREAM_PS(d, s) _mm256_stream_ps((d), _mm256_loadu_ps(s))
#define LBP_STREAM_PD(d, s) _mm256_stream_pd((d), _mm256_loadu_pd(s))
#define LBP_STREAM_BYTES 32
#else
#define LBP_STREAM_PS(d, s) _mm_stream_ps((d), _mm_loadu_ps(s))
#define LBP_STREAM_PD(d, s) _mm_stream_pd((d), _mm_loadu_pd(s))
#define LBP_STREAM_BYTES 16
#endif
#define LBP_STREAM_BODY(T, STREAM)                                                  \
    i64 k = 0;                                                                      \
    for (; k < n && ((uintptr_t)(d + k) & 63); k++) d[k] = s[k];                   \
    for (; k + LBP_STREAM_BYTES / (i64)sizeof(T) <= n; k += LBP_STREAM_BYTES / (i64)sizeof(T)) \
        STREAM(d + k, s + k);                                                       \
    for (; k < n; k++) d[k] = s[k];
static inline void lbp_stream_f32(float *restrict d, const float *restrict s, i64 n) { LBP_STREAM_BODY(float, LBP_STREAM_PS) }
static inline void lbp_stream_f64(double *restrict d, const double *restrict s, i64 n) { LBP_STREAM_BODY(double, LBP_STREAM_PD) }
static inline void lbp_stream_fence(void) { _mm_sfence(); }
/* Cells a row kernel buffers per array in L1 before streaming them out
 * (lbmkernels' LBM_NT rows and membench's non-temporal row probe: one
 * constant, so that the probe's stores are the kernel's). */
#define LBP_STREAM_CHUNK 128
#else
#define LBP_HAS_NT_STORE 0
#endif

/* Half precision: a half in memory is its 16 bits; the conversions and
 * the load and store forms are core/half_bits.h, which the backend puts
 * after this prelude. */
typedef uint16_t u16;
typedef u16 lbp_half;
